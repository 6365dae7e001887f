/* tests/integration/test_replica.c — the read replica (issue 17;
 * store/replica.h, api/read_store.c, docs/operations.md "A read replica").
 *
 * A primary of the test's own (tests/integration/outage.h) and a streaming
 * replica of it made by `tools/pgcluster DIR replica PRIMARY`; a daemon on
 * the primary with [database] replica_dsn on the replica.
 *
 *   - replica_serves_displays (replica_max_lag an hour): the reads of a
 *     display, a seat-less anonymous client and the leaderboards come from
 *     the replica, with "Arbiter-Read-From: replica; lag-ms=N"; a referee's
 *     and an admin's from the primary ("primary").  The proof that they do:
 *     with the replica's replay paused (pg_wal_replay_pause()) after it has
 *     received a write, a display does not see that write and an admin does;
 *     resumed, the display sees it.
 *   - behind_and_back (replica_max_lag 1000 ms): paused with a write
 *     received and not replayed, the replica falls behind by the age of its
 *     last replayed commit; once the probe says so, a display's read comes
 *     from the primary with "replica=behind" and sees the write; resumed, the
 *     replica again.
 *   - stopped_and_started: the replica stopped, a display's reads come from
 *     the primary with "replica=unavailable", still 200, and /v1/health says
 *     "ok" with the replica's state; started again, the replica.
 *
 * Every wait is for a condition (the probe's verdict in /v1/status, a row on
 * the replica), bounded by HARNESS_WAIT_MS; no sleep hopes for anything.
 * The clusters are made once for the program and stopped by the group
 * teardown, the daemon by each test's teardown, also after a failure.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/outage.h"

/* How often a wait asks again: well under the probe's second. */
#define POLL_US 50000
/* replica_max_lag of the daemon that must keep reading a paused replica. */
#define LAG_AN_HOUR_MS 3600000
/* replica_max_lag of the daemon that must skip it: a paused replica's lag
 * grows past it as its last replayed commit ages. */
#define LAG_SHORT_MS 1000

static struct outage stage;
static char *replica_dir;
static char *display;                   /* a display token */

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static void pgcluster(const char *dir, const char *what) {
        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' %s >/dev/null", harness_env("ARBITER_TEST_ROOT"), dir,
                                 what), 0);
}

/* One value from the replica (psql -tA), malloc'd; fails the test on error. */
static char *replica_sql(const char *sql) {
        int st;
        char *out = run_capture(&st, "'%s/tools/pgcluster' '%s' psql -qtA -c \"%s\"",
                                harness_env("ARBITER_TEST_ROOT"), replica_dir, sql);

        if (st != 0)
                fail_msg("psql on the replica failed (%d): %s", st, sql);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

/* Waits until sql answers "t" on the replica. */
static void replica_wait(const char *sql, const char *what) {
        int64_t waited = 0;

        for (;;) {
                char *v = replica_sql(sql);
                bool yes = strcmp(v, "t") == 0;
                free(v);
                if (yes)
                        return;
                if (waited > (int64_t) HARNESS_WAIT_MS * 1000)
                        fail_msg("the replica did not get there within %d ms: %s", HARNESS_WAIT_MS, what);
                usleep(POLL_US);
                waited += POLL_US;
        }
}

static int group_setup(void **state) {
        (void) state;
        outage_init(&stage, "replica");
        assert_true(asprintf(&replica_dir, "%s/replica", stage.dir) > 0);
        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' replica '%s' >/dev/null 2>&1",
                                 harness_env("ARBITER_TEST_ROOT"), replica_dir, stage.pg_dir), 0);
        pgcluster(replica_dir, "start");
        char *dsn = run_capture(NULL, "'%s/tools/pgcluster' '%s' dsn", harness_env("ARBITER_TEST_ROOT"), replica_dir);
        dsn[strcspn(dsn, "\n")] = '\0';
        outage_env(&stage, "ARBITER_REPLICA_DSN=%s", dsn);
        free(dsn);
        /* made before any daemon starts, so that each loads it at start */
        int st;
        display = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none '%s' "
                                   "--create-token display '%s' 2>/dev/null", stage.dsn,
                              harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"),
                              unique_name("display"));
        assert_int_equal(st, 0);
        display[strcspn(display, "\n")] = '\0';
        return 0;
}

static int group_teardown(void **state) {
        (void) state;
        outage_kill(&stage);
        if (replica_dir)
                run_cmd("'%s/tools/pgcluster' '%s' stop >/dev/null 2>&1", harness_env("ARBITER_TEST_ROOT"),
                        replica_dir);
        outage_done(&stage);
        free(replica_dir);
        free(display);
        return 0;
}

/* Each test leaves the replica running and replaying, and no daemon. */
static int teardown(void **state) {
        (void) state;
        outage_kill(&stage);
        run_cmd("'%s/tools/pgcluster' '%s' start >/dev/null 2>&1 && '%s/tools/pgcluster' '%s' psql -qtA "
                "-c 'SELECT pg_wal_replay_resume()' >/dev/null 2>&1", harness_env("ARBITER_TEST_ROOT"), replica_dir,
                harness_env("ARBITER_TEST_ROOT"), replica_dir);
        return 0;
}

/* The daemon, with replica_max_lag max_lag_ms (a file of its own: the key
 * has no environment variable). */
static void start_daemon(unsigned max_lag_ms) {
        char *conf;
        FILE *f;

        assert_true(asprintf(&conf, "%s/arbiterd-%u.conf", stage.dir, max_lag_ms) > 0);
        f = fopen(conf, "w");
        assert_non_null(f);
        fprintf(f, "[database]\nreplica_max_lag = %u\n", max_lag_ms);
        fclose(f);
        const char *const args[] = { "--config", conf, NULL };
        daemon_start(&stage.d, (const char *const *) stage.env, args, true);
        stage.running = true;
        assert_true(wait_tokens_loaded(&stage.d, HARNESS_WAIT_MS));
        free(conf);
}

/* Stops the daemon with SIGTERM: a clean exit, the replica's connection
 * and probe freed with the rest (an ASan build's leak check runs then). */
static void stop_daemon(void) {
        assert_int_equal(daemon_stop(&stage.d, SIGTERM, NULL), 0);
        stage.running = false;
}

/* GET /v1/status's database.replica (a new reference). */
static json_t *replica_status(void) {
        struct http_reply r;
        json_t *j;

        http_get(&stage.d, "/v1/status", stage.admin, &r);
        expect(&r, 200);
        j = json_object_get(json_object_get(r.json, "database"), "replica");
        if (!j)
                fail_msg("/v1/status has no database.replica: %s", r.body);
        json_incref(j);
        http_reply_done(&r);
        return j;
}

/* Waits until the replica's verdict in /v1/status is verdict. */
static void wait_verdict(const char *verdict) {
        int64_t waited = 0;
        char *last = NULL;

        for (;;) {
                json_t *j = replica_status();
                const char *v = json_string_value(json_object_get(j, "verdict"));
                bool there = v && strcmp(v, verdict) == 0;

                free(last);
                last = json_dumps(j, JSON_COMPACT);
                json_decref(j);
                if (there)
                        break;
                if (waited > (int64_t) HARNESS_WAIT_MS * 1000)
                        fail_msg("the replica's verdict is not %s after %d ms: %s", verdict, HARNESS_WAIT_MS, last);
                usleep(POLL_US);
                waited += POLL_US;
        }
        free(last);
}

/* GET path with token: 200, and the Arbiter-Read-From header starts with
 * from.  The reply in *r. */
static void read_as(const char *path, const char *token, const char *from, struct http_reply *r) {
        http_get(&stage.d, path, token, r);
        expect(r, 200);
        if (strncmp(r->read_from, from, strlen(from)) != 0)
                fail_msg("GET %s: Arbiter-Read-From is \"%s\", expected \"%s...\"", path, r->read_from, from);
}

/* Whether the player list read as token (from where from says) names name. */
static bool players_list_has(const char *token, const char *from, const char *name) {
        struct http_reply r;
        bool found = false;
        size_t i;
        json_t *p;

        read_as("/v1/players", token, from, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                found |= strcmp(json_string_value(json_object_get(p, "name")), name) == 0;
        http_reply_done(&r);
        return found;
}

/* A player named after prefix, added by the admin (on the primary); its name. */
static char *add_player(const char *prefix) {
        struct http_reply r;
        char body[128], *name = strdup(unique_name(prefix));

        snprintf(body, sizeof body, "{\"name\":\"%s\"}", name);
        http_post_json(&stage.d, "/v1/players", stage.admin, body, &r);
        expect(&r, 201);
        assert_string_equal(r.read_from, "");   /* a write says nothing of where reads go */
        http_reply_done(&r);
        return name;
}

/* Pauses the replica's replay once it has received and not replayed a
 * write: the player added after the pause. */
static char *pause_behind_a_write(void) {
        char sql[256], *name;

        free(replica_sql("SELECT pg_wal_replay_pause()"));
        replica_wait("SELECT pg_get_wal_replay_pause_state() = 'paused'", "replay paused");
        name = add_player("unreplayed");
        replica_wait("SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()", "a write received, not replayed");
        snprintf(sql, sizeof sql, "SELECT count(*) = 0 FROM players WHERE name = '%s'", name);
        replica_wait(sql, "the player not yet on the replica");
        return name;
}

static void replica_serves_displays(void **state) {
        struct http_reply r;
        char path[96], sql[256];

        (void) state;
        start_daemon(LAG_AN_HOUR_MS);
        wait_verdict("use");

        /* a player on the primary reaches the replica */
        char *seen = add_player("replayed");
        snprintf(sql, sizeof sql, "SELECT count(*) = 1 FROM players WHERE name = '%s'", seen);
        replica_wait(sql, "the first player replayed");
        assert_true(players_list_has(display, "replica; lag-ms=", seen));
        assert_true(players_list_has(NULL, "replica; lag-ms=", seen));         /* open reads */

        /* a tournament, then the replica paused behind a second player */
        http_post_json(&stage.d, "/v1/tournaments", stage.admin, "{\"name\":\"t\",\"game\":\"crash-pilot\"}", &r);
        expect(&r, 201);
        json_int_t tournament = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        char *unseen = pause_behind_a_write();
        snprintf(path, sizeof path, "/v1/tournaments/%lld", (long long) tournament);

        /* a display reads the replica: the first player, not the second */
        assert_true(players_list_has(display, "replica; lag-ms=", seen));
        assert_false(players_list_has(display, "replica; lag-ms=", unseen));
        read_as(path, display, "replica; lag-ms=", &r);
        http_reply_done(&r);
        read_as("/v1/tournaments", display, "replica; lag-ms=", &r);
        http_reply_done(&r);
        read_as("/v1/leaderboards/crash-pilot", display, "replica; lag-ms=", &r);
        http_reply_done(&r);
        read_as("/v1/matches", display, "replica; lag-ms=", &r);
        http_reply_done(&r);
        /* a reply that is not 200 says where it read too */
        http_get(&stage.d, "/v1/players/999999999", display, &r);
        expect(&r, 404);
        assert_true(strncmp(r.read_from, "replica; lag-ms=", 16) == 0);
        http_reply_done(&r);

        /* a referee and an admin read the primary, which has the second */
        assert_true(players_list_has(stage.admin, "primary", unseen));
        assert_true(players_list_has(stage.referee, "primary", unseen));
        read_as("/v1/players", stage.admin, "primary", &r);
        assert_string_equal(r.read_from, "primary");    /* nothing skipped */
        http_reply_done(&r);

        /* the standings of a tournament the replica has not replayed yet:
         * 404 from the replica, the tournament from the primary */
        free(replica_sql("SELECT pg_wal_replay_resume()"));
        free(replica_sql("SELECT pg_wal_replay_pause()"));
        replica_wait("SELECT pg_get_wal_replay_pause_state() = 'paused'", "replay paused again");
        http_post_json(&stage.d, "/v1/tournaments", stage.admin, "{\"name\":\"u\",\"game\":\"crash-pilot\"}", &r);
        expect(&r, 201);
        snprintf(path, sizeof path, "/v1/tournaments/%lld", (long long) json_integer_value(json_object_get(r.json, "id")));
        http_reply_done(&r);
        replica_wait("SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()", "the tournament received");
        http_get(&stage.d, path, display, &r);
        expect(&r, 404);
        assert_true(strncmp(r.read_from, "replica; lag-ms=", 16) == 0);
        http_reply_done(&r);
        read_as(path, stage.admin, "primary", &r);
        http_reply_done(&r);

        /* resumed: the display sees what the replica has replayed */
        free(replica_sql("SELECT pg_wal_replay_resume()"));
        snprintf(sql, sizeof sql, "SELECT count(*) = 1 FROM players WHERE name = '%s'", unseen);
        replica_wait(sql, "the second player replayed");
        assert_true(players_list_has(display, "replica; lag-ms=", unseen));
        read_as(path, display, "replica; lag-ms=", &r);
        http_reply_done(&r);

        json_t *st = replica_status();
        assert_true(json_integer_value(json_object_get(json_object_get(st, "reads"), "replica")) > 0);
        assert_true(json_is_true(json_object_get(st, "in_recovery")));
        json_decref(st);
        free(seen);
        free(unseen);
        stop_daemon();
}

static void behind_and_back(void **state) {
        struct http_reply r;
        char sql[256];

        (void) state;
        start_daemon(LAG_SHORT_MS);
        wait_verdict("use");

        char *name = pause_behind_a_write();
        /* the replica's last replayed commit ages past replica_max_lag */
        wait_verdict("behind");
        json_t *st = replica_status();
        assert_false(json_is_true(json_object_get(st, "used")));
        /* what the verdict adds up: its lag at the probe and the probe's age */
        assert_true(json_integer_value(json_object_get(st, "lag_ms")) +
                    json_integer_value(json_object_get(st, "probe_age_ms")) > LAG_SHORT_MS);
        assert_non_null(strstr(json_string_value(json_object_get(st, "reason")), "behind"));
        json_decref(st);

        /* a display's reads go to the primary, and see the write */
        assert_true(players_list_has(display, "primary; replica=behind", name));
        read_as("/v1/leaderboards/crash-pilot", display, "primary; replica=behind", &r);
        http_reply_done(&r);
        /* an admin's plain "primary": nothing was skipped for it */
        read_as("/v1/players", stage.admin, "primary", &r);
        assert_string_equal(r.read_from, "primary");
        http_reply_done(&r);
        /* health: the replica behind is not the daemon's trouble */
        http_get(&stage.d, "/v1/health", NULL, &r);
        expect(&r, 200);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "ok");
        assert_false(json_is_true(json_object_get(
                json_object_get(json_object_get(r.json, "database"), "replica"), "used")));
        http_reply_done(&r);

        /* resumed: caught up, the replica again */
        free(replica_sql("SELECT pg_wal_replay_resume()"));
        snprintf(sql, sizeof sql, "SELECT count(*) = 1 FROM players WHERE name = '%s'", name);
        replica_wait(sql, "the player replayed");
        wait_verdict("use");
        assert_true(players_list_has(display, "replica; lag-ms=", name));
        free(name);
        stop_daemon();
}

static void stopped_and_started(void **state) {
        struct http_reply r;

        (void) state;
        start_daemon(LAG_SHORT_MS);
        wait_verdict("use");
        char *name = add_player("while-stopped");

        pgcluster(replica_dir, "stop");
        wait_verdict("unavailable");
        assert_true(players_list_has(display, "primary; replica=unavailable", name));
        read_as("/v1/tournaments", NULL, "primary; replica=unavailable", &r);
        http_reply_done(&r);
        read_as("/v1/leaderboards/crash-pilot", display, "primary; replica=unavailable", &r);
        http_reply_done(&r);
        json_t *st = replica_status();
        assert_string_not_equal(json_string_value(json_object_get(st, "state")), "ready");
        assert_non_null(strstr(json_string_value(json_object_get(st, "reason")), "unavailable"));
        json_decref(st);
        http_get(&stage.d, "/v1/health", NULL, &r);
        expect(&r, 200);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "ok");
        assert_string_equal(json_string_value(json_object_get(json_object_get(r.json, "database"), "state")),
                            "ready");
        http_reply_done(&r);

        pgcluster(replica_dir, "start");
        wait_verdict("use");
        assert_true(players_list_has(display, "replica; lag-ms=", name));
        free(name);
        stop_daemon();
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(replica_serves_displays, teardown),
                cmocka_unit_test_teardown(behind_and_back, teardown),
                cmocka_unit_test_teardown(stopped_and_started, teardown),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
