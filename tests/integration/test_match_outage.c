/* Matches go on while PostgreSQL is down, and nothing is lost
 * (docs/architecture.md, "Persistence"): with a cluster of its own, a Crash
 * Pilot match takes calls while the database is stopped (they are spooled,
 * answered 200 with their events), and when it returns the stored log holds
 * every input in seq order without a gap; an input spooled just before a
 * kill -9 (database still down) is in the log after both come back, and the
 * rebuilt match passes the replay check with the same view. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"
#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/sse_client.h"
#include "store/spool.h"

static struct daemon_proc daemon_;
static char *referee_token, *pg_dir;

static void pg(const char *what) {
        const char *root = harness_env("ARBITER_TEST_ROOT");
        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' %s >/dev/null", root, pg_dir, what), 0);
}

static int stop_cluster(void **state) {
        harness_kill_daemons(state);
        if (pg_dir)
                run_cmd("'%s/tools/pgcluster' '%s' stop >/dev/null 2>&1", harness_env("ARBITER_TEST_ROOT"), pg_dir);
        free(pg_dir);
        pg_dir = NULL;
        return 0;
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static char *token(const char *dsn, const char *role) {
        int st;
        char *t = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                   "'%s' --create-token %s '%s' 2>/dev/null",
                              dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"), role,
                              unique_name(role));
        assert_int_equal(st, 0);
        t[strcspn(t, "\n")] = '\0';
        return t;
}

/* Seat 1's view: served by the live match, so also while the database
 * (which GET /v1/matches/{id} reads) is down. */
static json_t *view_of(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        json_t *v = json_incref(r.json);
        http_reply_done(&r);
        return v;
}

/* Waits for the next window, calls it correctly from seat; returns the
 * input's seq and the window's id in *ret_window. */
static json_int_t call_next(json_int_t id, int seat, json_int_t *ret_window) {
        struct http_reply r;
        char path[64], body[128];
        json_t *v = cp_wait_window(view_of, id, *ret_window), *e;
        size_t i;
        bool judged = false;

        *ret_window = cp_window_id(v);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        snprintf(body, sizeof body, "{\"seat\": %d, \"kind\": \"call\", \"call\": %d}", seat, cp_pick_call(v, false));
        json_decref(v);
        http_post_json(&daemon_, path, referee_token, body, &r);
        expect(&r, 200);
        json_array_foreach(json_object_get(r.json, "events"), i, e)
                if (strcmp(json_string_value(json_object_get(e, "kind")), "call_judged") == 0)
                        judged = true;
        if (!judged)
                fail_msg("no call_judged among the reply's events: %s", r.body);
        json_int_t seq = json_integer_value(json_object_get(r.json, "seq"));
        http_reply_done(&r);
        return seq;
}

/* The stored log (a new reference); checks seq 1..n without a gap. */
static json_t *log_of(json_int_t id) {
        struct http_reply r;
        char path[96];
        json_t *it;
        size_t i;

        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        json_t *items = json_incref(json_object_get(r.json, "items"));
        http_reply_done(&r);
        json_array_foreach(items, i, it) {
                if (json_integer_value(json_object_get(it, "seq")) != (json_int_t) i + 1)
                        fail_msg("log item %zu has seq %lld", i, (long long) json_integer_value(json_object_get(it, "seq")));
                assert_int_equal(strlen(json_string_value(json_object_get(it, "state_hash"))), 16);
        }
        return items;
}

static void assert_logged_call(json_t *items, json_int_t seq) {
        json_t *it = json_array_get(items, (size_t) seq - 1);
        if (!it)
                fail_msg("input %lld is not in the log (%zu items)", (long long) seq, json_array_size(items));
        assert_string_equal(json_string_value(json_object_get(it, "kind")), "call");
}

static void inputs_made_during_an_outage_are_spooled_and_flushed(void **state) {
        char *dir, *dsn, *env_dsn, *env_spool, *admin;
        struct http_reply r;
        char body[512], path[96];
        json_int_t window = 0;
        int st;
        (void) state;

        assert_true(asprintf(&dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("spool")) > 0);
        assert_int_equal(run_cmd("mkdir -p '%s'", dir), 0);
        assert_true(asprintf(&pg_dir, "%s/pg", dir) > 0);
        pg("init");
        pg("start");
        dsn = run_capture(&st, "'%s/tools/pgcluster' '%s' dsn", harness_env("ARBITER_TEST_ROOT"), pg_dir);
        dsn[strcspn(dsn, "\n")] = '\0';
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        assert_true(asprintf(&env_spool, "ARBITER_SPOOL=%s/spool", dir) > 0);
        const char *env[] = { env_dsn, env_spool, NULL };
        admin = token(dsn, "admin");
        referee_token = token(dsn, "referee");

        daemon_start(&daemon_, env, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        assert_true(daemon_log_contains(&daemon_, "is empty"));
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}, {\"seat\": 3}]}",
                 unique_name("table"));
        http_post_json(&daemon_, "/v1/tables", admin, body, &r);
        expect(&r, 201);
        json_int_t table = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\", "
                 "\"Cy\"], \"seed\": 11, \"config\": {\"reveal\": {\"pause_ms\": 0}}}", (long long) table);
        http_post_json(&daemon_, "/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        json_int_t first = call_next(id, 1, &window);
        /* The next reveal is stored too: the log is read after every write
         * queued before it (the store sends queries in order). */
        json_decref(cp_wait_window(view_of, id, window));
        json_decref(log_of(id));

        /* The database goes away; calls are still taken and answered. */
        pg("stop");
        assert_true(wait_database_state(&daemon_, "disconnected", HARNESS_WAIT_MS));
        json_int_t during1 = call_next(id, 2, &window);
        json_int_t during2 = call_next(id, 3, &window);
        assert_true(during1 > first && during2 > during1);
        http_get(&daemon_, "/v1/health", NULL, &r);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "degraded");
        assert_string_not_equal(json_string_value(json_object_get(json_object_get(r.json, "database"), "state")),
                                "ready");
        http_reply_done(&r);

        /* It returns: the spool is flushed, the log is whole. */
        pg("start");
        assert_true(wait_database_state(&daemon_, "ready", HARNESS_WAIT_MS));
        assert_true(daemon_wait_log(&daemon_, "spool flushed", HARNESS_WAIT_MS));
        /* the REST connection reconnects on its own: reads wait for it */
        assert_true(wait_database_state(&daemon_, "ready", HARNESS_WAIT_MS));
        json_t *items = log_of(id);
        assert_logged_call(items, first);
        assert_logged_call(items, during1);
        assert_logged_call(items, during2);
        json_decref(items);

        /* Down again: one more call is spooled, then kill -9. */
        json_decref(cp_wait_window(view_of, id, window));
        pg("stop");
        assert_true(wait_database_state(&daemon_, "disconnected", HARNESS_WAIT_MS));
        json_int_t last = call_next(id, 1, &window);
        json_decref(cp_wait_window(view_of, id, window));   /* the reveal after it, spooled as well */
        json_t *before = view_of(id);
        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);

        /* Both come back: the spooled input is stored, the replay agrees. */
        pg("start");
        daemon_start(&daemon_, env, NULL, true);
        assert_true(daemon_wait_log(&daemon_, "rebuilt from the input log", HARNESS_WAIT_MS));
        /* the REST connection and the token cache come up on their own */
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        assert_true(daemon_log_contains(&daemon_, "written to the database once it is ready"));
        assert_false(daemon_log_contains(&daemon_, "needs a referee"));
        items = log_of(id);
        assert_logged_call(items, last);
        json_decref(items);
        json_t *after = view_of(id);
        if (!json_equal(before, after))
                fail_msg("the view changed across the restart:\n%s\n%s", json_dumps(before, 0), json_dumps(after, 0));
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        assert_true(json_is_null(json_object_get(r.json, "needs_referee")));
        http_reply_done(&r);
        json_decref(before);
        json_decref(after);
        assert_int_equal(daemon_stop(&daemon_, SIGTERM, NULL), 0);

        free(admin);
        free(referee_token);
        free(env_dsn);
        free(env_spool);
        free(dsn);
        free(dir);
}

/* A spool that cannot be opened is a start-up error that says so. */
static void an_unopenable_spool_stops_the_start(void **state) {
        struct daemon_proc d;
        char *env_spool;
        (void) state;

        assert_true(asprintf(&env_spool, "ARBITER_SPOOL=%s/no/such/dir/spool", harness_env("ARBITER_TEST_TMP")) > 0);
        const char *env[] = { env_spool, NULL };
        daemon_start(&d, env, NULL, false);
        assert_int_equal(daemon_wait_exit(&d), 1);
        assert_true(daemon_log_contains(&d, "cannot open the spool"));
        free(env_spool);
}

/* Lines of the daemon's log (it runs at debug level) that contain needle,
 * from byte from on. */
static size_t log_count(const struct daemon_proc *d, size_t from, const char *needle) {
        char *log = daemon_log(d), *p = log + (from < strlen(log) ? from : strlen(log));
        size_t n = 0;

        while ((p = strstr(p, needle))) {
                n++;
                p += strlen(needle);
        }
        free(log);
        return n;
}

static size_t log_size(const struct daemon_proc *d) {
        char *log = daemon_log(d);
        size_t n = strlen(log);
        free(log);
        return n;
}

/* After an outage long enough for the back-off to grow (six failed
 * attempts), a database that is back is used again within 3 s. */
#define RECONNECT_ATTEMPTS      6
#define RECONNECT_WITHIN_MS     3000

static void a_database_that_returns_is_used_within_3_s(void **state) {
        char *dir, *dsn, *env_dsn;
        struct daemon_proc d;
        int st;
        (void) state;

        assert_true(asprintf(&dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("back")) > 0);
        assert_int_equal(run_cmd("mkdir -p '%s'", dir), 0);
        assert_true(asprintf(&pg_dir, "%s/pg", dir) > 0);
        pg("init");
        pg("start");
        dsn = run_capture(&st, "'%s/tools/pgcluster' '%s' dsn", harness_env("ARBITER_TEST_ROOT"), pg_dir);
        dsn[strcspn(dsn, "\n")] = '\0';
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        const char *env[] = { env_dsn, NULL };
        daemon_start(&d, env, NULL, true);
        assert_true(wait_database_state(&d, "ready", HARNESS_WAIT_MS));

        size_t from = log_size(&d);
        pg("stop");
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
             log_count(&d, from, "debug: database disconnected:") < RECONNECT_ATTEMPTS;) {
                if (mono_ms() > deadline)
                        fail_msg("the daemon did not try to reconnect %d times", RECONNECT_ATTEMPTS);
                usleep(20000);
        }
        pg("start");
        int64_t back = mono_ms();
        assert_true(wait_database_state(&d, "ready", HARNESS_WAIT_MS));
        int64_t took = mono_ms() - back;
        if (took > RECONNECT_WITHIN_MS)
                fail_msg("the database was back, but the daemon used it only %lld ms later",
                         (long long) took);
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        free(env_dsn);
        free(dsn);
        free(dir);
}

/* A spool damaged in the middle (whole records after the damage) stops
 * the start with exit status 65 and a message saying what to run; the file
 * is kept byte for byte; --spool-check shows the damage and exits 65;
 * --spool-drop removes the damaged bytes, keeping the records after them,
 * and the daemon starts. */
static void a_damaged_spool_waits_for_an_operator(void **state) {
        static const char *const records[] = { "{\"not\": \"an input 1\"}", "{\"not\": \"an input 2\"}",
                                               "{\"not\": \"an input 3\"}" };
        struct daemon_proc d;
        struct spool *sp;
        char *path, *env_spool, *before, *after, *out;
        int st;
        (void) state;

        assert_true(asprintf(&path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("damaged")) > 0);
        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(spool_append(sp, records[i], strlen(records[i])), 0);
        spool_close(sp);
        /* a bit of the second record's payload flips at rest */
        size_t second = 8 + strlen(records[0]);
        assert_int_equal(run_cmd("printf 'X' | dd of='%s' bs=1 seek=%zu conv=notrunc status=none", path,
                                 second + 8 + 3), 0);
        before = run_capture(&st, "od -An -tx1 -v '%s'", path);

        assert_true(asprintf(&env_spool, "ARBITER_SPOOL=%s", path) > 0);
        const char *env[] = { env_spool, NULL };
        daemon_start(&d, env, NULL, false);
        assert_int_equal(daemon_wait_exit(&d), 65);
        assert_true(daemon_log_contains(&d, "is damaged in the middle"));
        assert_true(daemon_log_contains(&d, "--spool-check"));
        after = run_capture(&st, "od -An -tx1 -v '%s'", path);
        assert_string_equal(before, after);

        out = run_capture(&st, "ARBITER_SPOOL='%s' '%s' --spool-check", path, harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 65);
        char needle[64];
        snprintf(needle, sizeof needle, "at %zu: DAMAGED", second);
        if (!strstr(out, needle) || !strstr(out, "--spool-drop"))
                fail_msg("--spool-check did not show the damage at %zu:\n%s", second, out);
        free(out);
        out = run_capture(&st, "ARBITER_SPOOL='%s' '%s' --spool-drop %zu", path, harness_env("ARBITER_TEST_DAEMON"),
                          second);
        assert_int_equal(st, 0);
        free(out);

        daemon_start(&d, env, NULL, true);
        assert_true(daemon_log_contains(&d, "holds 2 inputs"));
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        free(before);
        free(after);
        free(env_spool);
        free(path);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(inputs_made_during_an_outage_are_spooled_and_flushed, stop_cluster),
                cmocka_unit_test_teardown(an_unopenable_spool_stops_the_start, harness_kill_daemons),
                cmocka_unit_test_teardown(a_damaged_spool_waits_for_an_operator, harness_kill_daemons),
                cmocka_unit_test_teardown(a_database_that_returns_is_used_within_3_s, stop_cluster),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
