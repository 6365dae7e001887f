/* store/replica.c — see replica.h.
 *
 * Invariants:
 *   - probing is true exactly while a probe's query is queued or in flight
 *     on the replica's store; the timer never sends a second one.
 *   - probe.done is false from every state change of the connection until
 *     the first probe sent after it has answered: a probe's answer from the
 *     session before a reconnect says nothing about this one (store.h: a
 *     query in flight when the connection is lost fails anyway).
 *   - logged is the verdict last logged (-1 before the first); a change is
 *     logged once.  Being on the way (connecting, preparing the session,
 *     waiting for the first probe) is no news: it is not logged and does
 *     not count as a change.
 */
#include "store/replica.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"

/* The probe (replica.h): one row.  pg_stat_wal_receiver has a row only
 * while a WAL receiver runs; to a role without pg_read_all_stats it shows
 * the pid and nulls.  The LSNs come as bytes from 0/0 (bigint: 2^63 bytes
 * of WAL is beyond any cluster); the replay age is now() (the statement's
 * start) less the newest replayed commit's time.  store_replica_lag_of()
 * makes the lag of them. */
static const char probe_sql[] =
        "SELECT r.recovery, "
        "       coalesce(w.status = 'streaming', false) AS streaming, "
        "       w.pid IS NOT NULL AND w.status IS NULL AS hidden, "
        "       pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::bigint AS received, "
        "       pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint AS replayed, "
        "       greatest(0, floor(extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000))::bigint "
        "         AS replay_age_ms "
        "  FROM (SELECT pg_is_in_recovery() AS recovery) r "
        "  LEFT JOIN pg_stat_wal_receiver w ON true";

int64_t store_replica_lag_of(const struct store_replica_sample *now, int64_t replayed, int64_t replay_age_ms,
                             const struct store_replica_sample *history, size_t n) {
        int64_t lag = replay_age_ms;

        if (!now->in_recovery)
                return 0;
        /* A receiver that starts again (the replica restarted) streams from
         * the start of the WAL segment it needs, below what was already
         * replayed from local WAL: "<=", not "=". */
        if (now->streaming && now->received >= 0 && replayed >= 0 && now->received <= replayed)
                return 0;
        /* The newest earlier probe that found the receiver streaming and
         * what it had received by then all replayed now: the replica holds
         * the primary as it was at that probe at least. */
        for (size_t i = n; i-- > 0;) {
                const struct store_replica_sample *h = &history[i];

                if (!h->streaming || h->received < 0 || replayed < 0 || h->received > replayed)
                        continue;
                int64_t since = now->sent_usec > h->sent_usec ? (now->sent_usec - h->sent_usec) / USEC_PER_MSEC : 0;
                if (lag < 0 || since < lag)
                        lag = since;
                break;
        }
        return lag;
}

struct store_replica {
        struct loop *loop;
        struct store *store;
        struct event *timer;
        unsigned max_lag_ms;
        bool probing;
        bool closing;                   /* store_replica_free() runs: a probe's error is not news */
        struct store_replica_probe probe;
        /* The answered probes of this session, oldest first (the newest
         * STORE_REPLICA_HISTORY): what the replica had received when. */
        struct store_replica_sample history[STORE_REPLICA_HISTORY];
        size_t n_history;
        char probe_error[256];
        uint64_t probes, probe_failures, reads_replica, reads_primary;
        int logged;                     /* the verdict last logged; -1: none yet */
};

static const char *const verdict_names[] = {
        [STORE_REPLICA_USE] = "use",
        [STORE_REPLICA_BEHIND] = "behind",
        [STORE_REPLICA_UNAVAILABLE] = "unavailable",
};

const char *store_replica_verdict_to_string(enum store_replica_verdict v) {
        if ((unsigned) v >= sizeof verdict_names / sizeof verdict_names[0])
                return "unknown";
        return verdict_names[v];
}

enum store_replica_verdict store_replica_verdict_of(enum store_state state, const struct store_replica_probe *p,
                                                    int64_t now_usec, unsigned max_lag_ms) {
        if (state != STORE_READY || !p->done || p->failed)
                return STORE_REPLICA_UNAVAILABLE;
        if (p->lag_ms < 0)
                return STORE_REPLICA_BEHIND;
        int64_t age_ms = now_usec > p->sent_usec ? (now_usec - p->sent_usec) / USEC_PER_MSEC : 0;
        return p->lag_ms + age_ms > (int64_t) max_lag_ms ? STORE_REPLICA_BEHIND : STORE_REPLICA_USE;
}

enum store_replica_verdict store_replica_verdict(const struct store_replica *r, int64_t now_usec,
                                                 int64_t *ret_lag_ms) {
        if (ret_lag_ms)
                *ret_lag_ms = r->probe.done && !r->probe.failed ? r->probe.lag_ms : -1;
        return store_replica_verdict_of(store_get_state(r->store), &r->probe, now_usec, r->max_lag_ms);
}

void store_replica_status(const struct store_replica *r, int64_t now_usec, struct store_replica_status *ret) {
        const struct store_replica_probe *p = &r->probe;
        enum store_state state = store_get_state(r->store);

        *ret = (struct store_replica_status) {
                .state = state, .max_lag_ms = r->max_lag_ms, .in_recovery = p->done && p->in_recovery,
                .probes = r->probes, .probe_failures = r->probe_failures, .reads_replica = r->reads_replica,
                .reads_primary = r->reads_primary, .probe_age_ms = -1,
        };
        ret->verdict = store_replica_verdict(r, now_usec, &ret->lag_ms);
        if (p->done)
                ret->probe_age_ms = now_usec > p->sent_usec ? (now_usec - p->sent_usec) / USEC_PER_MSEC : 0;
        switch (ret->verdict) {
        case STORE_REPLICA_USE:
                break;
        case STORE_REPLICA_UNAVAILABLE:
                if (state != STORE_READY)
                        snprintf(ret->reason, sizeof ret->reason, "unavailable: its connection is %s: %s",
                                 store_state_to_string(state), store_get_detail(r->store));
                else if (!p->done)
                        snprintf(ret->reason, sizeof ret->reason, "unavailable: connected, its lag not probed "
                                 "yet");
                else
                        snprintf(ret->reason, sizeof ret->reason, "unavailable: its lag probe failed: %s",
                                 r->probe_error);
                break;
        case STORE_REPLICA_BEHIND:
                if (ret->lag_ms < 0)
                        snprintf(ret->reason, sizeof ret->reason, "behind: by an unknown time (it has "
                                 "replayed no transaction since it started, and not yet all it received)");
                else if (ret->lag_ms > (int64_t) r->max_lag_ms)
                        snprintf(ret->reason, sizeof ret->reason, "behind: by %" PRId64 " ms at its last "
                                 "probe, more than replica_max_lag (%u ms)", ret->lag_ms, r->max_lag_ms);
                else
                        snprintf(ret->reason, sizeof ret->reason, "behind: %" PRId64 " ms at its last probe, "
                                 "%" PRId64 " ms ago: together more than replica_max_lag (%u ms); the "
                                 "replica answers its probes slowly", ret->lag_ms, ret->probe_age_ms,
                                 r->max_lag_ms);
                if (p->receiver_hidden) {
                        size_t n = strlen(ret->reason);
                        snprintf(ret->reason + n, sizeof ret->reason - n, "; its database role cannot see "
                                 "the replica's WAL receiver, so its lag is the age of its last replayed "
                                 "transaction even when it is caught up: grant the role pg_read_all_stats "
                                 "(docs/operations.md, \"A read replica\")");
                }
                break;
        }
}

/* Logs a change of the verdict, once. */
static void note_verdict(struct store_replica *r) {
        struct store_replica_status st;

        store_replica_status(r, now_usec(), &st);
        if ((int) st.verdict == r->logged)
                return;
        if (st.verdict == STORE_REPLICA_UNAVAILABLE &&
            (st.state == STORE_CONNECTING || st.state == STORE_MIGRATING ||
             (st.state == STORE_READY && !r->probe.done)))
                return;
        r->logged = (int) st.verdict;
        if (st.verdict == STORE_REPLICA_USE)
                log_notice("read replica in use (lag %" PRId64 " ms): displays, leaderboards and exports "
                           "read from it", st.lag_ms);
        else
                log_warning("read replica not used, reads go to the primary: %s", st.reason);
}

/* A bigint column of the probe's row; dflt when NULL. */
static int64_t column_or(const PGresult *res, int col, int64_t dflt) {
        return PQgetisnull(res, 0, col) ? dflt : strtoll(PQgetvalue(res, 0, col), NULL, 10);
}

static void on_probe(void *userdata, const PGresult *res, const char *error) {
        struct store_replica *r = userdata;

        r->probing = false;
        if (r->closing)
                return;
        if (!res || PQntuples(res) != 1) {
                r->probe.done = true;
                r->probe.failed = true;
                r->probe_failures++;
                snprintf(r->probe_error, sizeof r->probe_error, "%s", error ? error : "it answered no row");
                note_verdict(r);
                return;
        }
        struct store_replica_sample now = {
                .sent_usec = r->probe.sent_usec, .in_recovery = PQgetvalue(res, 0, 0)[0] == 't',
                .streaming = PQgetvalue(res, 0, 1)[0] == 't', .received = column_or(res, 3, -1),
        };
        r->probes++;
        r->probe.done = true;
        r->probe.failed = false;
        r->probe.in_recovery = now.in_recovery;
        r->probe.streaming = now.streaming;
        r->probe.receiver_hidden = PQgetvalue(res, 0, 2)[0] == 't';
        r->probe.lag_ms = store_replica_lag_of(&now, column_or(res, 4, -1), column_or(res, 5, -1), r->history,
                                               r->n_history);
        if (r->n_history == STORE_REPLICA_HISTORY)
                memmove(r->history, r->history + 1, (STORE_REPLICA_HISTORY - 1) * sizeof r->history[0]);
        else
                r->n_history++;
        r->history[r->n_history - 1] = now;
        note_verdict(r);
}

static void probe_send(struct store_replica *r) {
        int64_t sent = now_usec();

        if (r->probing || store_get_state(r->store) != STORE_READY)
                return;
        if (store_query(r->store, probe_sql, 0, NULL, on_probe, r) < 0)
                return;         /* not READY after all, or out of memory: the next tick tries again */
        r->probing = true;
        /* a probe's time is when it was sent: the earliest its answer can
         * describe, so that its age is never understated */
        r->probe.sent_usec = sent;
}

static void on_tick(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        probe_send(userdata);
}

static void on_state(void *userdata, enum store_state state, const char *detail) {
        struct store_replica *r = userdata;

        (void) detail;
        r->probe.done = false;
        r->probe.failed = false;
        r->n_history = 0;               /* another session: another replica, perhaps */
        if (state == STORE_READY)
                probe_send(r);
        note_verdict(r);
}

int store_replica_new(struct loop *loop, const struct store_replica_config *cfg, struct store_replica **ret) {
        struct store_config sc = {
                .dsn = cfg->dsn,
                .statement_timeout_ms = cfg->statement_timeout_ms,
                .reconnect_max_s = cfg->reconnect_max_s,
                /* no migrations_dir, no hold_lock, no pipeline: a reader */
                .dsn_key = "database.replica_dsn", .dsn_env = "ARBITER_REPLICA_DSN",
        };
        struct timeval tick = usec_to_timeval((int64_t) STORE_REPLICA_PROBE_MS * USEC_PER_MSEC);
        struct store_replica *r = calloc(1, sizeof *r);
        int ret_r;

        if (!r)
                return -ENOMEM;
        r->loop = loop;
        r->max_lag_ms = cfg->max_lag_ms;
        r->logged = -1;
        r->timer = event_new(loop_base(loop), -1, EV_PERSIST, on_tick, r);
        if (!r->timer || event_add(r->timer, &tick) < 0) {
                store_replica_free(r);
                return -ENOMEM;
        }
        ret_r = store_new(loop, &sc, on_state, r, &r->store);
        if (ret_r < 0) {
                store_replica_free(r);
                return ret_r;
        }
        *ret = r;
        return 0;
}

void store_replica_free(struct store_replica *r) {
        if (!r)
                return;
        if (r->timer)
                event_free(r->timer);
        r->timer = NULL;
        /* a probe in flight gets its error now, while r is still here */
        r->closing = true;
        store_free(r->store);
        free(r);
}

struct store *store_replica_store(const struct store_replica *r) {
        return r->store;
}

void store_replica_count_read(struct store_replica *r, bool replica) {
        if (replica)
                r->reads_replica++;
        else
                r->reads_primary++;
}

void store_replica_set_statement_timeout(struct store_replica *r, unsigned ms) {
        store_set_statement_timeout(r->store, ms);
}
