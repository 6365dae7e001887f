/* store/league.h — the league events' repository: the table league_events
 * (migrations/0010_venues.sql) and the channel its appends notify
 * (docs/architecture.md, "Several venues").
 *
 * The daemons of a league's venues share one database; each tells the
 * others what it published first-hand (a result, a called match, a table's
 * match, a live match's public view) by appending it here, and reads what
 * the others appended.  api/league.h owns the flow; this file owns the SQL.
 *
 * Invariant: ids commit in id order.  Every append is one statement that
 * first takes the transaction advisory lock STORE_LEAGUE_LOCK_KEY, then
 * draws its ids (in the order given) and, in the same transaction,
 * pg_notify(STORE_LEAGUE_CHANNEL, its newest id).  The lock is held until
 * the commit, so no append can draw an id below one that an earlier
 * transaction has not committed yet: a reader that has seen id N has seen
 * every id below N that will ever commit, and reading "id > cursor" in id
 * order never skips a row that commits later.  (Ids may still have gaps:
 * an append that failed drew ids and rolled them back.)  The NOTIFYs come
 * in commit order too; they carry ids only, and a reader reads the rows.
 *
 * Rows are kept for STORE_LEAGUE_KEEP_S (store_league_prune): a daemon
 * that reconnects within that catches up from its cursor.
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for arguments out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 */
#ifndef ARBITER_STORE_LEAGUE_H
#define ARBITER_STORE_LEAGUE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Key of the transaction advisory lock every append takes before it draws
 * its ids (whoever else writes league_events must take it too): the bytes
 * "arbiterl" read as a big-endian int64, beside the migration lock's
 * "arbiter1" (store/store.c).  A one-bigint key: it never meets the venue
 * locks, which take two int4 keys (pg_locks objsubid 2). */
#define STORE_LEAGUE_LOCK_KEY INT64_C(0x617262697465726c)

/* The channel every append notifies, with the newest id it committed. */
#define STORE_LEAGUE_CHANNEL "arbiter_league"
/* How long rows are kept: an hour (migrations/0010_venues.sql), far more
 * than a reconnect takes, and a few thousand rows of a busy league night. */
#define STORE_LEAGUE_KEEP_S 3600
/* league_events.topic and .event: length 1..64 (the table's CHECKs). */
#define STORE_LEAGUE_NAME_MAX 64

/* One event to append (borrowed for the call only). */
struct store_league_new {
        const char *topic;              /* "tournament/7", "table/3", "match/42", ... */
        const char *event;              /* its name on the SSE stream */
        const char *data;               /* JSON text (an object) */
};

/* One stored event.  Text points into the query's result: valid only
 * during the callback (copy what you keep). */
struct store_league_row {
        int64_t id;
        const char *venue;
        const char *topic;
        const char *event;
        const char *data;               /* JSON text */
};

/* last_id: the newest id of the append (its NOTIFY's payload), on success
 * (failure NULL); on failure the server's SQLSTATE and constraint
 * (store/store.h) and the store's words. */
typedef void (*store_league_appended_fn)(void *userdata, int64_t last_id, const struct store_error *failure,
                                         const char *error);
/* rows[0..n) in id order; oldest: the smallest id the table holds (0 when
 * empty), so that a reader can tell that rows after its cursor were pruned
 * before it read them. */
typedef void (*store_league_rows_fn)(void *userdata, const struct store_league_row *rows, size_t n, int64_t oldest,
                                     const struct store_error *failure, const char *error);
/* A number: the newest id (0: none), or the rows pruned. */
typedef void (*store_league_count_fn)(void *userdata, int64_t n, const struct store_error *failure,
                                      const char *error);

/* Appends ev[0..n) (1..STORE_LEAGUE_BATCH_MAX, each topic and event
 * 1..STORE_LEAGUE_NAME_MAX bytes: else -EINVAL) as venue's, in one
 * statement (see the invariant above). */
#define STORE_LEAGUE_BATCH_MAX 1000
int store_league_append(struct store *s, const char *venue, const struct store_league_new *ev, size_t n,
                        store_league_appended_fn cb, void *userdata);

/* The events with id > after, in id order, at most limit
 * (1..STORE_LEAGUE_BATCH_MAX). */
int store_league_since(struct store *s, int64_t after, unsigned limit, store_league_rows_fn cb, void *userdata);

/* The newest id (0 when the table is empty): where a reader that does not
 * replay history starts. */
int store_league_last_id(struct store *s, store_league_count_fn cb, void *userdata);

/* The newest "match_view" event of match (topic "match/<match>"): one row
 * or none. */
int store_league_newest_view(struct store *s, int64_t match, store_league_rows_fn cb, void *userdata);

/* Deletes the rows older than keep_s seconds; n is how many. */
int store_league_prune(struct store *s, unsigned keep_s, store_league_count_fn cb, void *userdata);

/* LISTENs on STORE_LEAGUE_CHANNEL now and after every reconnect
 * (store_listen); the payload is the newest id of an append. */
int store_league_watch(struct store *s, store_notify_fn fn, void *userdata);

#endif
