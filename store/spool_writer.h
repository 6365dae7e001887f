/* store/spool_writer.h — the spool's writes, off the loop thread
 * (docs/architecture.md, "The event loop"; store/spool.h).
 *
 * An fdatasync may take milliseconds on a good disk and seconds on a busy
 * or failing one; the loop thread must not wait for it.  The writer owns
 * one worker thread.  spool_writer_append() frames the record and reserves
 * its place (spool_reserve) on the loop thread, then hands it over; the
 * worker writes and fdatasyncs each record alone, in order
 * (spool_write_frame: one at a time, so that a crash can tear only the
 * last, store/spool.h "Damage"), and cuts the file once it is flushed
 * (spool_truncate_file, an fsync too); the result comes back to the loop thread
 * through an eventfd, where the record is committed (spool_commit) and the
 * caller's callback runs.
 *
 * Invariants:
 *   - records reach the file, and callbacks run, in the order of
 *     spool_writer_append();
 *   - a callback runs exactly once, on the loop thread, never inside
 *     spool_writer_append() (spool_writer_free() runs the last ones);
 *   - only the worker touches the file while a record is on its way; it
 *     reads nothing of struct spool but its descriptor, and the loop thread
 *     alone touches the rest;
 *   - after a failed write nothing more is written: every record after it
 *     completes with -EIO (nothing may be acknowledged after a failed
 *     fsync), and so does every later append.
 *
 * Ownership: the writer borrows the spool, which must outlive it.
 */
#ifndef ARBITER_STORE_SPOOL_WRITER_H
#define ARBITER_STORE_SPOOL_WRITER_H

#include <stddef.h>

struct loop;
struct spool;
struct spool_writer;

/* r: 0 once the record is durable (a pending record of the spool), or the
 * write's -errno. */
typedef void (*spool_written_fn)(void *userdata, int r);

int spool_writer_new(struct loop *loop, struct spool *spool, struct spool_writer **ret);
/* Lets the worker finish what it was given, joins it, then runs the
 * callbacks still due.  Accepts NULL. */
void spool_writer_free(struct spool_writer *w);

/* Queues a copy of data.  0 (fn follows), -EINVAL (too large or empty),
 * -EIO (the spool failed before), -ENOMEM. */
int spool_writer_append(struct spool_writer *w, const void *data, size_t len, spool_written_fn fn,
                        void *userdata);

/* Cuts the file to zero and fsyncs it (spool_truncate_file), in order with
 * the records: 0 (fn follows), -EALREADY (not spool_may_truncate), or
 * -ENOMEM. */
int spool_writer_truncate(struct spool_writer *w, spool_written_fn fn, void *userdata);

/* Records appended (and cuts asked for) whose callback has not run yet. */
size_t spool_writer_pending(const struct spool_writer *w);

#endif
