/* The relay that stands for a venue's link to the league's PostgreSQL in the
 * league tests (tests/fault/pgrelay.c, pgrelay_proc.h), against the suite's
 * cluster:
 *   - a session through it is the relay's user's, by peer authentication,
 *     and carries queries both ways;
 *   - cut closes every session: one in the middle of a query (its client
 *     hears that the server closed the connection), one idle (its backend
 *     on the server ends), and refuses new ones; restore relays them
 *     again;
 *   - a daemon whose DSN goes through it loses the database on a cut (a
 *     tournament's operation is refused meanwhile, saying that the league's
 *     primary cannot be reached from its venue: api/failures.h) and is
 *     READY again after the restore.
 * Every wait is for a line of the relay's or a state the server or the
 * daemon shows, never a time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"
#include "tests/integration/pgrelay_proc.h"
#include "tests/integration/sse_client.h"

static struct pgrelay_proc relay;
static struct daemon_proc daemon_;
static pid_t sleeper = -1, idler = -1;
static char *dsn;

static int teardown(void **state) {
        (void) state;
        if (sleeper > 0) {
                kill(sleeper, SIGKILL);
                waitpid(sleeper, NULL, 0);
                sleeper = -1;
        }
        if (idler > 0) {
                kill(idler, SIGKILL);
                waitpid(idler, NULL, 0);
                idler = -1;
        }
        harness_kill_daemons(NULL);
        pgrelay_stop(&relay);
        free(dsn);
        dsn = NULL;
        return 0;
}

static void start_relay(void) {
        char dir[256], server[256];

        snprintf(dir, sizeof dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("relay"));
        snprintf(server, sizeof server, "%s/run", harness_env("ARBITER_TEST_PGDIR"));
        pgrelay_start(&relay, dir, server);
        dsn = pgrelay_dsn(&relay, harness_env("ARBITER_TEST_DSN"));
}

/* psql through the relay: its status, its output in *ret_out (may be NULL). */
static int psql_relay(const char *sql, char **ret_out) {
        int st;
        char *out = run_capture(&st, "psql '%s' -tAX -c \"%s\" 2>&1", dsn, sql);

        if (ret_out)
                *ret_out = out;
        else
                free(out);
        return st;
}

/* One number (a boolean: 1 or 0) from the server, asked directly (not
 * through the relay). */
static long long direct_number(const char *sql) {
        int st;
        char *out = run_capture(&st, "psql '%s' -tAX -c \"%s\"", harness_env("ARBITER_TEST_DSN"), sql);
        long long v = out[0] == 't' ? 1 : atoll(out);

        assert_int_equal(st, 0);
        free(out);
        return v;
}

static void wait_direct(const char *sql, const char *what) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; direct_number(sql) < 1;)
                if (mono_ms() > deadline)
                        fail_msg("the server never showed it: %s", what);
}

static void a_session_goes_through_as_the_relays_user(void **state) {
        char *out;

        (void) state;
        start_relay();
        assert_int_equal(psql_relay("SELECT current_user || ' ' || 6 * 7", &out), 0);
        if (strcmp(out, "arbiter 42\n") != 0)
                fail_msg("through the relay: %s", out);
        free(out);
        struct pgrelay_count c = pgrelay_count(&relay);
        assert_int_equal(c.accepted, 1);
        assert_int_equal(c.refused, 0);
        /* psql ended its session: the relay let both sides go */
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; pgrelay_count(&relay).connections != 0;)
                if (mono_ms() > deadline)
                        fail_msg("the relay kept a session psql had ended");
}

/* A psql of the test's through the relay, application name app, running
 * sql; with hold, its stdin stays open afterwards (an idle session) until
 * the test closes *ret_stdin.  Its pid. */
static pid_t psql_session(const char *app, const char *sql, bool hold, int *ret_stdin) {
        int in[2];

        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY);
                setenv("PGAPPNAME", app, 1);
                dup2(in[0], STDIN_FILENO);
                dup2(null, STDOUT_FILENO);
                dup2(null, STDERR_FILENO);
                execlp("psql", "psql", dsn, "-qX", "-v", "ON_ERROR_STOP=1", (char *) NULL);
                _exit(127);
        }
        close(in[0]);
        assert_true(write(in[1], sql, strlen(sql)) == (ssize_t) strlen(sql));
        if (hold) {
                *ret_stdin = in[1];
        } else {
                close(in[1]);
                *ret_stdin = -1;
        }
        return pid;
}

static void cut_ends_sessions_and_refuses_until_restored(void **state) {
        char *out;
        int status, idle_in, busy_in;

        (void) state;
        start_relay();
        /* one session in the middle of a query, one idle between queries */
        sleeper = psql_session("relay_busy", "SELECT pg_sleep(3600);\n", false, &busy_in);
        idler = psql_session("relay_idle", "SELECT 1;\n", true, &idle_in);
        wait_direct("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'relay_busy' "
                    "AND query LIKE '%pg_sleep%'", "the busy session runs its query");
        wait_direct("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'relay_idle' "
                    "AND state = 'idle'", "the idle session is idle");
        assert_int_equal(pgrelay_count(&relay).connections, 2);

        assert_int_equal(pgrelay_cut(&relay), 2);
        /* the client in a query hears of it at once: psql ends with a failure */
        assert_int_equal(waitpid(sleeper, &status, 0), sleeper);
        sleeper = -1;
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
        /* the server's idle backend hears of it at once too (a backend in a
         * query would only at its end: PostgreSQL reads its client between
         * queries) */
        wait_direct("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'relay_idle'",
                    "the idle session's backend ended");
        close(idle_in);
        assert_int_equal(waitpid(idler, &status, 0), idler);
        idler = -1;

        assert_int_not_equal(psql_relay("SELECT 1", &out), 0);
        if (!strstr(out, "closed the connection"))
                fail_msg("a connection while cut: %s", out);
        free(out);
        struct pgrelay_count c = pgrelay_count(&relay);
        assert_int_equal(c.connections, 0);
        assert_int_equal(c.refused, 1);

        pgrelay_restore(&relay);
        assert_int_equal(psql_relay("SELECT 1", &out), 0);
        assert_string_equal(out, "1\n");
        free(out);
}

/* An admin token in the database at db_dsn (malloc'd). */
static char *admin_token_in(const char *db_dsn) {
        int st;
        char *t = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                   "'%s' --create-token admin '%s' 2>/dev/null", db_dsn,
                              harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"),
                              unique_name("admin"));
        assert_int_equal(st, 0);
        t[strcspn(t, "\n")] = '\0';
        return t;
}

static void a_daemon_loses_the_database_on_a_cut_and_gets_it_back(void **state) {
        char *env_dsn, *db_dsn, *admin;
        char dir[256], server[256];
        struct http_reply r;

        (void) state;
        db_dsn = create_database(unique_name("relaydb"));
        admin = admin_token_in(db_dsn);
        snprintf(dir, sizeof dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("relay"));
        snprintf(server, sizeof server, "%s/run", harness_env("ARBITER_TEST_PGDIR"));
        pgrelay_start(&relay, dir, server);
        dsn = pgrelay_dsn(&relay, db_dsn);
        free(db_dsn);
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        const char *env[] = { env_dsn, "ARBITER_BUS=none", "ARBITER_VENUE=north", NULL };
        daemon_start(&daemon_, env, NULL, true);
        assert_true(wait_database_state(&daemon_, "ready", HARNESS_WAIT_MS));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        /* the daemon's connections (REST, the input lane, the rating
         * worker's) all go through the relay */
        assert_true(pgrelay_count(&relay).connections >= 2);

        assert_true(pgrelay_cut(&relay) >= 2);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                http_get(&daemon_, "/v1/health", NULL, &r);
                const char *s = json_string_value(json_object_get(json_object_get(r.json, "database"), "state"));
                bool down = s && strcmp(s, "ready") != 0;
                http_reply_done(&r);
                if (down)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the daemon still says its database is ready after the cut");
                usleep(20000);
        }
        /* a tournament's operation needs the league's primary: refused,
         * saying so (api/failures.h); another route says the database is
         * away, as it always has */
        http_post_json(&daemon_, "/v1/tournaments", admin, "{\"name\": \"Cup\", \"game\": \"crash-pilot\"}", &r);
        assert_int_equal(r.status, 503);
        const char *detail = json_string_value(json_object_get(r.json, "detail"));
        if (!detail || !strstr(detail, "cannot be reached from venue north: tournament operations need it; "
                                       "this venue's matches go on"))
                fail_msg("a tournament operation while the primary is away: %s", r.body);
        http_reply_done(&r);
        http_post_json(&daemon_, "/v1/players", admin, "{\"name\": \"Ada\"}", &r);
        assert_int_equal(r.status, 503);
        detail = json_string_value(json_object_get(r.json, "detail"));
        if (!detail || strstr(detail, "tournament operations"))
                fail_msg("another route while the primary is away: %s", r.body);
        http_reply_done(&r);

        pgrelay_restore(&relay);
        assert_true(wait_database_state(&daemon_, "ready", HARNESS_WAIT_MS));
        http_post_json(&daemon_, "/v1/tournaments", admin, "{\"name\": \"Cup\", \"game\": \"crash-pilot\"}", &r);
        assert_int_equal(r.status, 201);
        http_reply_done(&r);
        assert_int_equal(daemon_stop(&daemon_, SIGTERM, NULL), 0);
        free(env_dsn);
        free(admin);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(a_session_goes_through_as_the_relays_user, teardown),
                cmocka_unit_test_teardown(cut_ends_sessions_and_refuses_until_restored, teardown),
                cmocka_unit_test_teardown(a_daemon_loses_the_database_on_a_cut_and_gets_it_back, teardown),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
