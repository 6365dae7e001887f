/* store/spool.h — the local append-only spool for writes the database
 * cannot take right now (docs/architecture.md, "Persistence").
 *
 * When PostgreSQL is unreachable, matches go on: each input is appended
 * here and fsync'd before it is acknowledged, and the spool is flushed to
 * the database in order when it returns.  A record on disk is
 *
 *     u32 length (LE) | u32 CRC-32C of the payload (LE) | payload
 *
 * and the file is a sequence of records.  One process writes a spool: it
 * holds an exclusive flock(2) on the file while it has it open.
 *
 * Damage.  A record is whole when its length fits the file and its CRC
 * holds.  spool_open() walks the records from the start; at the first
 * that is not whole it looks for a whole record anywhere after it:
 *   - none: the bad bytes are a torn tail, a write that a crash cut short.
 *     Records are appended and fsync'd one at a time, so only the last
 *     can be torn, and it was never acknowledged: it is cut, and the
 *     whole records before it are kept;
 *   - one: the bad bytes are damage in the middle (a disk error, a bit
 *     flipped at rest), and the whole records after them were
 *     acknowledged.  spool_open() refuses (-EUCLEAN) and changes nothing;
 *     an operator looks (spool_scan, `arbiterd --spool-check`) and decides:
 *     spool_drop() removes the damaged bytes and keeps what follows,
 *     spool_truncate_at() cuts everything from an offset on
 *     (docs/operations.md, "The spool").
 * A bit flipped in the last record cannot be told from a torn write: it is
 * cut like one.
 *
 * A record is removed only by spool_consume(): the flusher reads records
 * from the front, writes them to the database, and after the commit
 * consumes them.  The consumed prefix is dropped by cutting the file to
 * zero once every record is consumed (spool_truncate) — the spool is small
 * and short-lived, so no head pointer file is needed.
 *
 * An fsync failure is fatal for the caller, as it is for PostgreSQL since
 * the 2018 "fsyncgate" discussion (its data_sync_retry setting, off by
 * default, makes a failed fsync a PANIC): after a failure Linux may have
 * dropped the dirty pages, so the data may or may not be on disk and
 * nothing may be acknowledged after it.
 */
#ifndef ARBITER_STORE_SPOOL_H
#define ARBITER_STORE_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPOOL_MAX_RECORD (1u << 20)     /* a match input is a few hundred bytes */

struct spool;

/* Opens (creating) path, truncating a torn tail (see "Damage").
 * *ret_records says how many whole records it holds, *ret_truncated how
 * many bytes were cut.  -EUCLEAN when it is damaged in the middle (the
 * file is left as it is), -EBUSY when another process has it open. */
int spool_open(const char *path, struct spool **ret, size_t *ret_records, size_t *ret_truncated);
void spool_close(struct spool *s);     /* accepts NULL */

/* Appends one record and fsyncs it, on the calling thread.  0, -EINVAL
 * (too large), or -errno (an fsync error: treat as fatal). */
int spool_append(struct spool *s, const void *data, size_t len);

/* The same in three steps, so that the slow one can run on another thread
 * (store/spool_writer.h): spool_reserve frames a record and gives it the
 * place after every record appended or reserved before it; any thread may
 * then spool_write_frame it (it reads only the spool's descriptor; one
 * frame at a time, in order); spool_commit, back on the owner's thread and
 * in reservation order, makes it a pending record when r (the write's
 * result) is 0.  A frame whose write or fdatasync fails is cut off the file
 * again (best effort), since it was never acknowledged.  A failed write
 * fails the spool: every later reserve is
 * refused (-EIO) and every later commit is -EIO, since nothing may be
 * acknowledged after a failed fsync. */
struct spool_frame {
        off_t at;
        size_t len;                     /* header and payload */
        uint8_t *bytes;                 /* owned until spool_commit */
};
int spool_reserve(struct spool *s, const void *data, size_t len, struct spool_frame *ret);
int spool_write_frame(const struct spool *s, const struct spool_frame *f);
int spool_commit(struct spool *s, struct spool_frame *f, int r);

/* Calls fn for every record in order, from the first not yet consumed;
 * stops early when fn returns non-zero and returns that value. */
typedef int (*spool_fn)(void *userdata, const void *data, size_t len);
int spool_foreach(struct spool *s, spool_fn fn, void *userdata);

/* Marks the first n unconsumed records as written to the database. */
int spool_consume(struct spool *s, size_t n);

/* Once every record is consumed and none is being written, the file is
 * cut to zero and fsync'd, so that a crash cannot bring consumed records
 * back after later inputs went to the database directly.  In three steps
 * as an append (the cut is an fsync too): spool_truncate_begin on the
 * owner's thread when spool_may_truncate, spool_truncate_file on any
 * thread, spool_truncate_end back on the owner's with its result (a failure
 * fails the spool).  Frames reserved meanwhile go after the cut, from 0.
 * spool_truncate does all three on the calling thread (0 when there is
 * nothing to cut). */
bool spool_may_truncate(const struct spool *s);
void spool_truncate_begin(struct spool *s);
int spool_truncate_file(const struct spool *s);
int spool_truncate_end(struct spool *s, int r);
int spool_truncate(struct spool *s);

size_t spool_pending(const struct spool *s);
/* No record in the file (consumed or not), none being written, no cut on
 * its way: only then may inputs go to the database directly
 * (match/match.h, "The spool"). */
bool spool_empty(const struct spool *s);

/* What a scan of a spool file finds, in file order: each whole record,
 * each damaged range (bad bytes a whole record follows), and a torn tail
 * (bad bytes at the end).  offset and length are in bytes of the file; a
 * record's payload is data/len (borrowed for the callback). */
enum spool_item_kind {
        SPOOL_ITEM_RECORD,
        SPOOL_ITEM_DAMAGED,
        SPOOL_ITEM_TORN_TAIL,
};
struct spool_item {
        enum spool_item_kind kind;
        uint64_t offset, length;
        const void *data;
        size_t len;
};
typedef int (*spool_scan_fn)(void *userdata, const struct spool_item *it);
/* Reads path without changing it (also while a daemon has it open) and
 * calls fn for each item; stops early when fn returns non-zero and returns
 * that value. */
int spool_scan(const char *path, spool_scan_fn fn, void *userdata);

/* An operator's repairs, for a spool no process has open (-EBUSY).
 * spool_truncate_at cuts the file at offset, which must start an item or
 * be the file's end (else -EINVAL); *ret_cut says how many bytes went.
 * spool_drop removes the damaged range that starts at offset (else
 * -EINVAL), keeping everything after it: the file is rewritten beside
 * itself and renamed over, so that a crash leaves one or the other. */
int spool_truncate_at(const char *path, uint64_t offset, uint64_t *ret_cut);
int spool_drop(const char *path, uint64_t offset, uint64_t *ret_dropped);

/* CRC-32C (Castagnoli), exposed for tests: check value 0xe3069283 for "123456789". */
uint32_t spool_crc32c(const void *data, size_t len);

#endif
