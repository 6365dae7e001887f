/* store/replica.h — the read replica (docs/operations.md, "A read replica";
 * docs/architecture.md, "The event loop").
 *
 * [database] replica_dsn names a streaming replica of the database (a hot
 * standby fed by the primary's WAL).  The reads that may lag a little — a
 * display's standings, leaderboards, exports — may go to it
 * (api_read_store() in api/handlers.h); writes and every read that must see
 * the latest write never do.  This module owns what that takes:
 *
 *   - a third connection on the loop, a struct store without migrations,
 *     without the daemon's lock and without pipeline mode (store.h: it
 *     connects, sets statement_timeout, LISTENs on nothing, and reconnects
 *     with the same back-off as the primary's connections);
 *   - a lag probe on that connection (never on the primary's) about every
 *     STORE_REPLICA_PROBE_MS, and at once when it becomes READY, at most one
 *     in flight: the replica's own idea of how far behind it is;
 *   - the verdict: may a read that may lag go to it now?
 *
 * The probe asks the replica (one statement) whether it is in recovery,
 * whether its WAL receiver streams, how much WAL it has received and
 * replayed, and how old its newest replayed commit is; its lag is then
 * (store_replica_lag_of(), pure):
 *
 *     not in recovery (pg_is_in_recovery() false)         0
 *     its WAL receiver streaming and everything received
 *       replayed (receive LSN <= replay LSN)               0
 *     otherwise the least of
 *       the age of its newest replayed commit              (it holds the primary as of that commit)
 *       the time since the newest earlier probe that       (it holds the primary as of that probe)
 *         found it streaming, with all it had received
 *         then replayed now
 *     unknown (-1) when neither is known.
 *
 * A replica caught up with an idle primary has nothing to replay: lag 0.
 * One whose replay is behind what it receives (paused, or slower than the
 * primary's writes) is as far behind as the older of the two says, and not
 * more: the second bound keeps a replica that is a moment from caught up
 * after a quiet spell (the primary wrote nothing for minutes, then once, and
 * the probe came between receive and replay) from looking minutes behind.
 * pg_stat_wal_receiver shows its status only to a role with
 * pg_read_all_stats (or a superuser): without it the probe cannot see that
 * the receiver streams and only the first bound holds, so that an idle
 * primary makes the replica look further and further behind; the verdict's
 * reason says so.
 *
 * The verdict (store_replica_verdict(), a pure function of what the module
 * knows and the time):
 *
 *     UNAVAILABLE  the connection is not READY, it has not been probed since
 *                  it became READY, or its last probe failed;
 *     BEHIND       its lag is unknown, or its lag at the last probe plus the
 *                  time since that probe was sent exceeds max_lag_ms: the
 *                  most it can be behind now, so that a replica whose replay
 *                  stopped right after a probe is skipped once that much time
 *                  has passed, and a probe that does not come back (a
 *                  replica that answers slowly) ends its use as well;
 *     USE          otherwise.
 *
 * Every callback of the store and of the probe runs on the loop; nothing
 * here blocks.  Transitions of the verdict are logged (notice when the
 * replica is used again, warning when it is skipped) as the probe or the
 * connection finds them.
 */
#ifndef ARBITER_STORE_REPLICA_H
#define ARBITER_STORE_REPLICA_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

struct loop;
struct store_replica;

/* About once a second: a display polls its standings no faster, and
 * replica_max_lag's default (5 s) spans several probes. */
#define STORE_REPLICA_PROBE_MS 1000

struct store_replica_config {
        const char *dsn;                /* libpq conninfo or URI of the replica */
        unsigned statement_timeout_ms;
        unsigned reconnect_max_s;
        unsigned max_lag_ms;            /* [database] replica_max_lag */
};

enum store_replica_verdict {
        STORE_REPLICA_USE,
        STORE_REPLICA_BEHIND,
        STORE_REPLICA_UNAVAILABLE,
};

/* What the last probe found. */
struct store_replica_probe {
        bool done;                      /* a probe answered since the connection became READY */
        bool failed;                    /* the last one failed (error says why) */
        bool in_recovery;               /* pg_is_in_recovery(): a replica, not a promoted primary */
        bool streaming;                 /* its WAL receiver streams */
        bool receiver_hidden;           /* the role may not see the WAL receiver's status */
        int64_t lag_ms;                 /* -1: unknown */
        int64_t sent_usec;              /* CLOCK_MONOTONIC when the probe was sent */
};

/* One answered probe, as the next probes' lag needs it. */
struct store_replica_sample {
        int64_t sent_usec;              /* CLOCK_MONOTONIC when it was sent */
        int64_t received;               /* receive LSN, bytes from 0/0; -1 none */
        bool in_recovery;
        bool streaming;
};
/* Probes remembered for the second bound: several seconds of them. */
#define STORE_REPLICA_HISTORY 8

/* The lag (ms, -1 unknown) of the probe now, which found replayed (replay
 * LSN, bytes; -1 none) and replay_age_ms (the newest replayed commit's
 * age; -1 none), given the session's earlier probes, oldest first.  Pure:
 * the rule above. */
int64_t store_replica_lag_of(const struct store_replica_sample *now, int64_t replayed, int64_t replay_age_ms,
                             const struct store_replica_sample *history, size_t n);

/* The verdict of a replica whose connection is in state and whose last
 * probe is p, at now_usec, for max_lag_ms.  Pure. */
enum store_replica_verdict store_replica_verdict_of(enum store_state state, const struct store_replica_probe *p,
                                                    int64_t now_usec, unsigned max_lag_ms);

/* Copies cfg; connects on the first loop turn and probes from then on. */
int store_replica_new(struct loop *loop, const struct store_replica_config *cfg, struct store_replica **ret);
/* Accepts NULL.  A probe in flight gets its error and is forgotten; the
 * owner's queries on store_replica_store() get theirs (store_free()). */
void store_replica_free(struct store_replica *r);

/* The connection, for the repositories' read calls. */
struct store *store_replica_store(const struct store_replica *r);
/* The verdict now; *ret_lag_ms (may be NULL) the lag of the last probe, -1
 * when unknown or none. */
enum store_replica_verdict store_replica_verdict(const struct store_replica *r, int64_t now_usec,
                                                 int64_t *ret_lag_ms);
/* Counts a read that may lag: served by the replica or by the primary. */
void store_replica_count_read(struct store_replica *r, bool replica);
/* Changes the statement timeout of its connection (SIGHUP). */
void store_replica_set_statement_timeout(struct store_replica *r, unsigned ms);

/* For GET /v1/status and /v1/health. */
struct store_replica_status {
        enum store_state state;         /* of its connection */
        enum store_replica_verdict verdict;
        int64_t lag_ms;                 /* the last probe's; -1 unknown or none */
        int64_t probe_age_ms;           /* since the last answered probe was sent; -1 none */
        unsigned max_lag_ms;
        bool in_recovery;
        uint64_t probes, probe_failures;        /* answered, failed */
        uint64_t reads_replica, reads_primary;  /* reads that may lag, by where they went */
        char reason[512];               /* why not USE, a line a person can act on; "" for USE */
};
void store_replica_status(const struct store_replica *r, int64_t now_usec, struct store_replica_status *ret);
const char *store_replica_verdict_to_string(enum store_replica_verdict v);

#endif
