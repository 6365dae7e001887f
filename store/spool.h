/* store/spool.h — the local append-only spool for writes the database
 * cannot take right now (docs/architecture.md, "Persistence").
 *
 * When PostgreSQL is unreachable, matches go on: each input is appended
 * here and fsync'd before it is acknowledged, and the spool is flushed to
 * the database in order when it returns.  A record on disk is
 *
 *     u32 length (LE) | u32 CRC-32C of the payload (LE) | payload
 *
 * and the file is a sequence of records.  A crash can leave a torn tail (a
 * short header, a short payload, a payload whose CRC fails): spool_open()
 * keeps every whole record before it and truncates the rest, so what was
 * acknowledged (fsync'd) is never lost and what was not is never replayed
 * half-written.
 *
 * A record is removed only by spool_consume(): the flusher reads records
 * from the front, writes them to the database, and after the commit
 * consumes them.  The consumed prefix is recorded by rewriting the file
 * without it once it is empty (spool_reset) — the spool is small and
 * short-lived, so no head pointer file is needed.
 *
 * An fsync failure is fatal for the caller, as it is for PostgreSQL since
 * the 2018 "fsyncgate" discussion (its data_sync_retry setting, off by
 * default, makes a failed fsync a PANIC): after a failure Linux may have
 * dropped the dirty pages, so the data may or may not be on disk and
 * nothing may be acknowledged after it.
 */
#ifndef ARBITER_STORE_SPOOL_H
#define ARBITER_STORE_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_MAX_RECORD (1u << 20)     /* a match input is a few hundred bytes */

struct spool;

/* Opens (creating) path, truncating a torn tail.  *ret_records says how
 * many whole records it holds, *ret_truncated how many bytes were cut. */
int spool_open(const char *path, struct spool **ret, size_t *ret_records, size_t *ret_truncated);
void spool_close(struct spool *s);     /* accepts NULL */

/* Appends one record and fsyncs it.  0, -EINVAL (too large), or -errno
 * (an fsync error: treat as fatal). */
int spool_append(struct spool *s, const void *data, size_t len);

/* Calls fn for every record in order, from the first not yet consumed;
 * stops early when fn returns non-zero and returns that value. */
typedef int (*spool_fn)(void *userdata, const void *data, size_t len);
int spool_foreach(struct spool *s, spool_fn fn, void *userdata);

/* Marks the first n unconsumed records as written to the database; when
 * none is left the file is truncated to zero. */
int spool_consume(struct spool *s, size_t n);

size_t spool_pending(const struct spool *s);

/* CRC-32C (Castagnoli), exposed for tests: check value 0xe3069283 for "123456789". */
uint32_t spool_crc32c(const void *data, size_t len);

#endif
