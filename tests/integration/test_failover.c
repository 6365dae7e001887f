/* The league's primary restarted, then failed over to its standby (issue
 * 17, "Faults"), on the stage of league.h: a primary, a synchronous
 * standby (the primary's synchronous_standby_names names it, so that a
 * commit the primary acknowledged is on the standby too), and venue
 * north's daemon with a DSN that lists both socket directories with
 * target_session_attrs=read-write (docs/operations.md), playing a Reflex
 * match with a referee's awards, each tagged in its "reason":
 *   - the primary restarted (a fast shutdown, sessions cut): awards made
 *     meanwhile are answered from the spool; the daemon reconnects, takes
 *     its venue's lock again, flushes the spool, and the stored log has
 *     every acknowledged award at its seq;
 *   - the primary killed (an immediate shutdown: SIGQUIT to its
 *     postmaster) and the standby promoted: the daemon finds the promoted
 *     server through its DSN (the dead one refuses, the standby was
 *     read-only until promoted), takes its lock there, flushes what it
 *     spooled, every acknowledged award is in the promoted server's log,
 *     and play goes on.
 * Every wait is for a state (the daemon's /v1/health, pg_stat_replication,
 * pg_locks), never a time. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"
#include "tests/integration/league.h"
#include "tests/integration/sse_client.h"

#define NORTH           0
#define MAX_AWARDS      64
/* Reflex ends at this score: more than the awards the test makes to a seat. */
#define TARGET          20
/* The go comes late (reflex.h's largest delay): the log holds the awards
 * and few timer inputs. */
#define GO_DELAY_MS     10000
/* pg_locks's classid of a daemon's venue lock (store/store.c,
 * STORE_DAEMON_LOCK_CLASS: "arbd" as a big-endian int4), in SQL. */
#define DAEMON_LOCK_CLASS "x'61726264'::int"

static struct league l;

struct award {
        json_int_t seq;
        char tag[32];
        bool spooled;                   /* answered while the database was away */
};

static struct award awards[MAX_AWARDS];
static size_t n_awards;
static json_int_t match_id;

static int teardown(void **state) {
        (void) state;
        league_done(&l);
        n_awards = 0;
        return 0;
}

/* One award to alternate seats, tagged; acknowledged (2xx with a seq) or
 * the test fails. */
static void award(bool spooled) {
        struct award *a = &awards[n_awards];
        char path[96], body[256];
        struct http_reply r;

        assert_true(n_awards < MAX_AWARDS);
        snprintf(a->tag, sizeof a->tag, "failover-%zu", n_awards);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) match_id);
        snprintf(body, sizeof body, "{\"kind\": \"award\", \"to\": [%zu], \"points\": 1, \"category\": \"bonus\", "
                 "\"reason\": \"%s\"}", 1 + n_awards % 2, a->tag);
        league_request(&l, NORTH, "POST", path, l.referee, body, &r, NULL, 0);
        if (r.status < 200 || r.status > 299)
                fail_msg("award %s%s: HTTP %ld: %s", a->tag, spooled ? " (database away)" : "", r.status, r.body);
        a->seq = json_integer_value(json_object_get(r.json, "seq"));
        if (a->seq <= 0)
                fail_msg("award %s answered without a seq: %s", a->tag, r.body);
        a->spooled = spooled;
        http_reply_done(&r);
        n_awards++;
}

/* Every acknowledged award is in the stored log at its seq, read through
 * the daemon (from whichever server it is on now). */
static void every_award_stored(const char *when) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) match_id);
        json_t *log = league_call(&l, NORTH, "GET", path, l.referee, NULL, 200);
        json_t *items = json_object_get(log, "items");
        for (size_t k = 0; k < n_awards; k++) {
                json_t *it = json_array_get(items, (size_t) awards[k].seq - 1);
                const char *reason = json_string_value(json_object_get(it, "reason"));
                if (!it || json_integer_value(json_object_get(it, "seq")) != awards[k].seq || !reason ||
                    strcmp(reason, awards[k].tag) != 0)
                        fail_msg("%s: award %s (seq %lld, %s) is not in the stored log (%zu items)", when,
                                 awards[k].tag, (long long) awards[k].seq,
                                 awards[k].spooled ? "spooled" : "stored", json_array_size(items));
        }
        json_decref(log);
}

/* The daemon's venue lock is held on the server at dsn by an arbiterd
 * session (waits for it). */
static void venue_locked_on(const char *dsn, const char *when) {
        char sql[512], what[128];

        snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_locks k JOIN pg_stat_activity a USING (pid) "
                 "WHERE k.locktype = 'advisory' AND k.granted AND k.classid::bigint = %s AND k.objsubid = 2 "
                 "AND k.objid = (SELECT number FROM venues WHERE id = 'north') AND a.application_name = 'arbiterd'",
                 DAEMON_LOCK_CLASS);
        snprintf(what, sizeof what, "%s: north's daemon holds its venue lock", when);
        league_wait_sql(dsn, sql, what);
}

/* Waits until north's log says "spool flushed" n times (each outage's
 * spool flushed once the database is back). */
static void spool_flushed(unsigned n, const char *when) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;; usleep(20000)) {
                char *log = daemon_log(&l.v[NORTH].d);
                unsigned seen = 0;
                for (const char *p = log; (p = strstr(p, "spool flushed")); p++)
                        seen++;
                free(log);
                if (seen >= n)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("%s: north's spool was never flushed (%u of %u)", when, seen, n);
        }
}

static void standby_in_sync(void) {
        league_wait_sql(l.dsn, "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'replica' "
                        "AND state = 'streaming' AND sync_state = 'sync'", "the standby streams, synchronous");
}

static void database_away(void) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;; usleep(20000)) {
                struct http_reply r;
                league_request(&l, NORTH, "GET", "/v1/health", NULL, NULL, &r, NULL, 0);
                const char *s = json_string_value(json_object_get(json_object_get(r.json, "database"), "state"));
                bool away = s && strcmp(s, "ready") != 0;
                http_reply_done(&r);
                if (away)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("north's daemon never saw its database go");
        }
}

static void the_primary_restarted_then_failed_over_loses_nothing_acknowledged(void **state) {
        const struct league_options opt = { .venues = 1, .replica = true, .synchronous = true,
                                            .failover_dsn = true };
        char body[512], path[96];
        (void) state;

        league_init(&l, "failover", &opt);
        venue_locked_on(l.dsn, "at start");
        json_int_t table = league_table(&l, NORTH, NORTH, 2, false);
        snprintf(body, sizeof body, "{\"game\": \"reflex\", \"table\": %lld, \"players\": [\"Ann\", \"Bo\"], "
                 "\"seed\": 5, \"config\": {\"mode\": \"judged\", \"points\": {\"target\": %d}, "
                 "\"go\": {\"delay_min_ms\": %d, \"delay_max_ms\": %d}}}", (long long) table, TARGET, GO_DELAY_MS,
                 GO_DELAY_MS);
        json_t *m = league_call(&l, NORTH, "POST", "/v1/matches", l.referee, body, 201);
        match_id = json_integer_value(json_object_get(m, "id"));
        json_decref(m);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) match_id);
        json_decref(league_call(&l, NORTH, "POST", path, l.referee, "{}", 200));
        for (int k = 0; k < 3; k++)
                award(false);
        every_award_stored("before any fault");

        /* The primary restarted: awards meanwhile go to the spool. */
        league_pg(&l, false, "stop");
        database_away();
        award(true);
        award(true);
        league_pg(&l, false, "start");
        league_wait_database(&l, NORTH, "ready");
        venue_locked_on(l.dsn, "after the primary's restart");
        spool_flushed(1, "after the primary's restart");
        standby_in_sync();
        every_award_stored("after the primary's restart");
        for (int k = 0; k < 3; k++)
                award(false);
        every_award_stored("after the restart, played on");

        /* The primary fails; the standby, synchronous, has every commit the
         * primary acknowledged, and is promoted. */
        league_crash_primary(&l);
        database_away();
        award(true);
        award(true);
        league_pg(&l, true, "promote");
        league_wait_database(&l, NORTH, "ready");
        venue_locked_on(l.replica_dsn, "on the promoted standby");
        assert_int_equal(league_sql(l.replica_dsn, "SELECT pg_is_in_recovery()"), 0);
        spool_flushed(2, "on the promoted standby");
        every_award_stored("on the promoted standby");

        /* Play goes on there. */
        for (int k = 0; k < 3; k++)
                award(false);
        every_award_stored("on the promoted standby, played on");
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) match_id);
        m = league_call(&l, NORTH, "GET", path, l.referee, NULL, 200);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "running");
        json_decref(m);
        assert_int_equal(league_stop(&l, NORTH), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(the_primary_restarted_then_failed_over_loses_nothing_acknowledged,
                                          teardown),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
