/* arbiterd's life as systemd and an operator see it: command line, bad
 * configuration, readiness, SIGHUP, SIGTERM, migrations it must refuse, and
 * the database going away and coming back. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"

/* Where a test may put files of its own. */
static char *test_dir(const char *name) {
        char *d;
        assert_true(asprintf(&d, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name(name)) > 0);
        assert_int_equal(run_cmd("mkdir -p '%s'", d), 0);
        return d;
}

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void version_and_help(void **state) {
        int st;
        (void) state;

        char *out = run_capture(&st, "'%s' --version", harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 0);
        assert_string_equal(out, "arbiterd " ARBITER_VERSION "\n");
        free(out);
        out = run_capture(&st, "'%s' --help", harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "--create-token ROLE NAME"));
        free(out);
        out = run_capture(&st, "'%s' --bogus 2>&1", harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 64);
        free(out);
        out = run_capture(&st, "'%s' --create-token emperor x 2>&1", harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 64);
        assert_non_null(strstr(out, "unknown role"));
        free(out);
}

/* A bad file fails with FILE:LINE: message and EX_CONFIG, before anything starts. */
static void bad_config_exits_78_with_file_and_line(void **state) {
        char *dir = test_dir("cfg"), *path;
        int st;
        (void) state;

        assert_true(asprintf(&path, "%s/bad.conf", dir) > 0);
        write_file(path, "[http]\nlisten = 127.0.0.1:8080\nbody_limit = lots\n");
        char *out = run_capture(&st, "'%s' --config '%s' 2>&1", harness_env("ARBITER_TEST_DAEMON"), path);
        assert_int_equal(st, 78);
        char *expect;
        assert_true(asprintf(&expect, "%s:3: ", path) > 0);
        if (!strstr(out, expect))
                fail_msg("expected \"%s\" in: %s", expect, out);
        free(out);

        write_file(path, "[http]\nlisten = 127.0.0.1:8080\n");
        out = run_capture(&st, "'%s' --config '%s' --check-config 2>&1", harness_env("ARBITER_TEST_DAEMON"), path);
        assert_int_equal(st, 0);
        free(out);

        out = run_capture(&st, "ARBITER_LISTEN=nowhere '%s' --check-config 2>&1", harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 78);
        assert_non_null(strstr(out, "ARBITER_LISTEN"));
        free(out);
        free(expect);
        free(path);
        free(dir);
}

static void sigterm_exits_zero_within_a_second(void **state) {
        struct daemon_proc d;
        int64_t elapsed;
        (void) state;

        daemon_start(&d, NULL, NULL, true);
        int st = daemon_stop(&d, SIGTERM, &elapsed);
        printf("# SIGTERM to exit: %lld ms\n", (long long) elapsed / 1000);
        assert_int_equal(st, 0);
        assert_true(elapsed < 1000000);
        assert_true(daemon_log_contains(&d, "stopping gracefully"));
}

static void sigint_exits_zero_and_says_stopping(void **state) {
        struct daemon_proc d;
        (void) state;

        daemon_start(&d, NULL, NULL, true);
        assert_int_equal(daemon_stop(&d, SIGINT, NULL), 0);
        assert_non_null(strstr(d.notified, "STOPPING=1"));
}

/* SIGTERM while a request waits on the database: the request still gets
 * its answer, then the daemon exits 0.  The wait is made real by holding a
 * lock on api_tokens from another session. */
static void sigterm_finishes_a_request_in_flight(void **state) {
        char *dir = test_dir("inflight"), *env_dsn;
        const char *db = unique_name("inflight");
        char *dsn = create_database(db);
        struct daemon_proc d;
        int st;
        (void) state;

        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        const char *env[] = { env_dsn, NULL };
        char *token = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                       "'%s' --create-token admin inflight 2>/dev/null",
                                  dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 0);
        token[strcspn(token, "\n")] = '\0';
        daemon_start(&d, env, NULL, true);
        assert_true(wait_tokens_loaded(&d, HARNESS_WAIT_MS));

        /* another session holds the table for 2 s */
        assert_int_equal(run_cmd("psql '%s' -q -c 'BEGIN; LOCK TABLE api_tokens IN ACCESS EXCLUSIVE MODE; "
                                 "SELECT pg_sleep(2); COMMIT;' >/dev/null 2>&1 &", dsn), 0);
        bool locked = false;
        for (int i = 0; i < HARNESS_WAIT_MS / 20 && !locked; i++) {
                char *n = run_capture(&st, "psql '%s' -tA -c \"SELECT count(*) FROM pg_locks l JOIN pg_class c "
                                           "ON c.oid = l.relation WHERE c.relname = 'api_tokens' "
                                           "AND l.mode = 'AccessExclusiveLock' AND l.granted\"", dsn);
                locked = atoi(n) == 1;
                free(n);
                if (!locked)
                        usleep(20000);
        }
        assert_true(locked);

        /* a read that must wait for the lock */
        assert_int_equal(run_cmd("curl -s -o '%s/body' -w '%%{http_code}' -H 'Authorization: Bearer %s' "
                                 "'%s/v1/tokens' > '%s/code' 2>/dev/null &", dir, token, d.url, dir), 0);
        bool in_flight = false;
        for (int i = 0; i < HARNESS_WAIT_MS / 20 && !in_flight; i++) {
                struct http_reply r;
                http_get(&d, "/v1/status", NULL, &r);
                /* the status request counts itself */
                in_flight = json_integer_value(json_object_get(json_object_get(r.json, "http"),
                                                               "active_requests")) >= 2;
                http_reply_done(&r);
                if (!in_flight)
                        usleep(20000);
        }
        assert_true(in_flight);

        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        char *code = NULL;
        for (int i = 0; i < HARNESS_WAIT_MS / 20; i++) {    /* curl writes once it has the reply */
                free(code);
                code = run_capture(&st, "cat '%s/code' 2>/dev/null", dir);
                if (*code)
                        break;
                usleep(20000);
        }
        assert_string_equal(code, "200");
        free(code);
        char *body = run_capture(&st, "cat '%s/body'", dir);
        assert_non_null(strstr(body, "\"inflight\""));
        free(body);
        free(token);
        free(env_dsn);
        free(dsn);
        free(dir);
}

/* SIGHUP re-reads the file: a good change applies, a bad file is refused
 * and the daemon keeps running with what it had. */
static void sighup_reloads_and_survives_a_bad_file(void **state) {
        char *dir = test_dir("hup"), *path, *arg;
        struct daemon_proc d;
        struct http_reply r;
        (void) state;

        assert_true(asprintf(&path, "%s/arbiterd.conf", dir) > 0);
        write_file(path, "[log]\nlevel = info\n");
        assert_true(asprintf(&arg, "--config=%s", path) > 0);
        const char *args[] = { arg, NULL };
        daemon_start(&d, NULL, args, true);

        write_file(path, "[log]\nlevel = debug\n[http]\nopen_reads = no\n");
        kill(d.pid, SIGHUP);
        assert_true(daemon_wait_log(&d, "configuration reloaded", HARNESS_WAIT_MS));
        /* open_reads = no: health stays open, but reads of the index now need a token */
        http_get(&d, "/v1", NULL, &r);
        assert_int_equal(r.status, 401);
        http_reply_done(&r);

        write_file(path, "[log]\nlevel = loud\n");
        kill(d.pid, SIGHUP);
        assert_true(daemon_wait_log(&d, "reload failed", HARNESS_WAIT_MS));
        http_get(&d, "/v1/health", NULL, &r);
        assert_int_equal(r.status, 200);
        http_reply_done(&r);

        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        free(arg);
        free(path);
        free(dir);
}

/* Copies the migrations to a directory of the test's own, applies them to a
 * fresh database, then edits an applied file: the next start must refuse. */
static void changed_applied_migration_refuses_start(void **state) {
        char *dir = test_dir("mig"), *env_dsn, *env_mig;
        const char *db = unique_name("mig");
        char *dsn = create_database(db);
        struct daemon_proc d;
        (void) state;

        assert_int_equal(run_cmd("cp '%s'/migrations/*.sql '%s'/", harness_env("ARBITER_TEST_ROOT"), dir), 0);
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        assert_true(asprintf(&env_mig, "ARBITER_MIGRATIONS=%s", dir) > 0);
        const char *env[] = { env_dsn, env_mig, NULL };

        daemon_start(&d, env, NULL, true);
        assert_true(wait_database_state(&d, "ready", HARNESS_WAIT_MS));
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);

        assert_int_equal(run_cmd("echo '-- edited after release' >> '%s/0001_tokens.sql'", dir), 0);
        daemon_start(&d, env, NULL, false);
        int st = daemon_wait_exit(&d);
        assert_int_equal(st, 65);
        char *log = daemon_log(&d);
        if (!strstr(log, "0001_tokens.sql"))
                fail_msg("the refusal should name the changed file; log:\n%s", log);
        free(log);

        /* --migrate-only says the same, with the same status */
        char *out = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s' ARBITER_BUS=none '%s' --migrate-only 2>&1",
                                dsn, dir, harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 65);
        assert_non_null(strstr(out, "0001_tokens.sql"));
        free(out);
        free(env_dsn);
        free(env_mig);
        free(dsn);
        free(dir);
}

static void migrate_only_applies_and_exits(void **state) {
        const char *db = unique_name("fresh");
        char *dsn = create_database(db);
        int st;
        (void) state;

        char *out = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none '%s' --migrate-only 2>&1",
                                dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 0);
        free(out);
        out = run_capture(&st, "psql '%s' -tA -c 'SELECT count(*) FROM schema_migrations'", dsn);
        assert_int_equal(st, 0);
        assert_true(atoi(out) >= 1);
        free(out);
        free(dsn);
}

/* With no database at all the daemon still starts, serves /v1/health and
 * says what is missing; a one-shot command fails fast with 69. */
static void starts_and_serves_health_without_a_database(void **state) {
        char *dir = test_dir("nodb"), *env_dsn;
        struct daemon_proc d;
        struct http_reply r;
        int st;
        (void) state;

        assert_true(asprintf(&env_dsn, "ARBITER_DSN=host=%s dbname=arbiter user=arbiter connect_timeout=2", dir) > 0);
        const char *env[] = { env_dsn, NULL };
        daemon_start(&d, env, NULL, true);
        http_get(&d, "/v1/health", NULL, &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "degraded");
        const char *state_s = json_string_value(json_object_get(json_object_get(r.json, "database"), "state"));
        assert_true(strcmp(state_s, "disconnected") == 0 || strcmp(state_s, "connecting") == 0);
        http_reply_done(&r);

        /* a write with a token cannot be checked yet: 503, not a crash */
        http_post_json(&d, "/v1/tokens", "arb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "{}", &r);
        assert_int_equal(r.status, 503);
        http_reply_done(&r);
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);

        char *out = run_capture(&st, "ARBITER_DSN='host=%s dbname=arbiter connect_timeout=2' ARBITER_BUS=none "
                                     "ARBITER_MIGRATIONS='%s/migrations' '%s' --create-token admin x 2>&1",
                                dir, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"));
        assert_int_equal(st, 69);
        assert_non_null(strstr(out, "database"));
        free(out);
        free(env_dsn);
        free(dir);
}

static char *outage_pg;     /* the outage test's own cluster, stopped at teardown */

static int stop_outage_cluster(void **state) {
        harness_kill_daemons(state);
        if (outage_pg)
                run_cmd("'%s/tools/pgcluster' '%s' stop >/dev/null 2>&1", harness_env("ARBITER_TEST_ROOT"), outage_pg);
        free(outage_pg);
        outage_pg = NULL;
        return 0;
}

/* The database is stopped under a running daemon: health says so, the
 * daemon stays up, and it reconnects when the database returns.  Uses a
 * cluster of its own so the other tests keep theirs. */
static void database_outage_is_reported_and_survived(void **state) {
        char *dir = test_dir("outage"), *pg, *env_dsn;
        struct daemon_proc d;
        struct http_reply r;
        int st;
        (void) state;

        assert_true(asprintf(&pg, "%s/pg", dir) > 0);
        outage_pg = strdup(pg);
        const char *root = harness_env("ARBITER_TEST_ROOT");
        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' init >/dev/null 2>&1 && '%s/tools/pgcluster' '%s' start",
                                 root, pg, root, pg), 0);
        char *dsn = run_capture(&st, "'%s/tools/pgcluster' '%s' dsn", root, pg);
        dsn[strcspn(dsn, "\n")] = '\0';
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        const char *env[] = { env_dsn, NULL };

        daemon_start(&d, env, NULL, true);
        assert_true(wait_database_state(&d, "ready", HARNESS_WAIT_MS));

        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' stop", root, pg), 0);
        assert_true(wait_database_state(&d, "disconnected", HARNESS_WAIT_MS));
        http_get(&d, "/v1/health", NULL, &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "degraded");
        http_reply_done(&r);

        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' start", root, pg), 0);
        assert_true(wait_database_state(&d, "ready", HARNESS_WAIT_MS));
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        assert_true(daemon_log_contains(&d, "database unavailable"));

        free(env_dsn);
        free(dsn);
        free(pg);
        free(dir);
}

/* systemd passes the listening socket (arbiterd.socket): HTTP is served on
 * it, not on [http] listen. */
static void socket_activation_serves_on_the_passed_socket(void **state) {
        struct daemon_proc d;
        struct http_reply r;
        (void) state;

        daemon_start_socket_activated(&d, NULL);
        http_get(&d, "/v1/health", NULL, &r);   /* the first connection starts it */
        assert_int_equal(r.status, 200);
        http_reply_done(&r);
        assert_true(daemon_wait_notify(&d, "READY=1", HARNESS_WAIT_MS));
        assert_true(daemon_log_contains(&d, "(socket from systemd)"));
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
}

static void watchdog_is_pinged_from_the_loop(void **state) {
        struct daemon_proc d;
        const char *env[] = { "WATCHDOG_USEC=400000", NULL };
        (void) state;

        daemon_start(&d, env, NULL, true);
        assert_true(daemon_wait_notify(&d, "WATCHDOG=1", HARNESS_WAIT_MS));
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
}

static pid_t private_bus_pid;

static pid_t start_private_bus(const char *path) {
        int st;
        char *out = run_capture(&st, "dbus-daemon --session --fork --nopidfile --print-pid=1 --address=unix:path=%s",
                                path);
        assert_int_equal(st, 0);
        pid_t pid = (pid_t) atoi(out);
        free(out);
        assert_true(pid > 0);
        return pid;
}

static int stop_private_bus(void **state) {
        harness_kill_daemons(state);
        if (private_bus_pid > 0)
                kill(private_bus_pid, SIGTERM);
        private_bus_pid = 0;
        return 0;
}

static bool wait_bus_state(const struct daemon_proc *d, const char *want) {
        for (int i = 0; i < HARNESS_WAIT_MS / 50; i++) {
                struct http_reply r;
                http_get(d, "/v1/health", NULL, &r);
                const char *s = json_string_value(json_object_get(json_object_get(r.json, "bus"), "state"));
                bool ok = s && strcmp(s, want) == 0;
                http_reply_done(&r);
                if (ok)
                        return true;
                usleep(50000);
        }
        return false;
}

/* The bus goes away (dbus-daemon restarted): arbiterd keeps serving HTTP,
 * reconnects, and owns its name again. */
static void bus_restart_is_survived(void **state) {
        char *dir = test_dir("bus"), *path, *env_bus;
        struct daemon_proc d;
        int st;
        (void) state;

        assert_true(asprintf(&path, "%s/bus", dir) > 0);
        assert_true(asprintf(&env_bus, "DBUS_SESSION_BUS_ADDRESS=unix:path=%s", path) > 0);
        const char *env[] = { env_bus, NULL };
        private_bus_pid = start_private_bus(path);
        daemon_start(&d, env, NULL, true);
        assert_true(wait_bus_state(&d, "owned"));

        kill(private_bus_pid, SIGTERM);
        private_bus_pid = 0;
        assert_true(wait_bus_state(&d, "connecting"));
        struct http_reply r;
        http_get(&d, "/v1/health", NULL, &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "degraded");
        http_reply_done(&r);

        unlink(path);
        private_bus_pid = start_private_bus(path);
        assert_true(wait_bus_state(&d, "owned"));
        char *out = run_capture(&st, "DBUS_SESSION_BUS_ADDRESS=unix:path=%s busctl --user get-property "
                                     "org.arbiter.Arbiter1 /org/arbiter/Arbiter1 org.arbiter.Arbiter1.Manager "
                                     "Version 2>&1", path);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, ARBITER_VERSION));
        free(out);
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        free(env_bus);
        free(path);
        free(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(version_and_help, harness_kill_daemons),
                cmocka_unit_test_teardown(bad_config_exits_78_with_file_and_line, harness_kill_daemons),
                cmocka_unit_test_teardown(sigterm_exits_zero_within_a_second, harness_kill_daemons),
                cmocka_unit_test_teardown(sigint_exits_zero_and_says_stopping, harness_kill_daemons),
                cmocka_unit_test_teardown(sigterm_finishes_a_request_in_flight, harness_kill_daemons),
                cmocka_unit_test_teardown(sighup_reloads_and_survives_a_bad_file, harness_kill_daemons),
                cmocka_unit_test_teardown(changed_applied_migration_refuses_start, harness_kill_daemons),
                cmocka_unit_test_teardown(migrate_only_applies_and_exits, harness_kill_daemons),
                cmocka_unit_test_teardown(starts_and_serves_health_without_a_database, harness_kill_daemons),
                cmocka_unit_test_teardown(database_outage_is_reported_and_survived, stop_outage_cluster),
                cmocka_unit_test_teardown(socket_activation_serves_on_the_passed_socket, harness_kill_daemons),
                cmocka_unit_test_teardown(watchdog_is_pinged_from_the_loop, harness_kill_daemons),
                cmocka_unit_test_teardown(bus_restart_is_survived, stop_private_bus),
        };
        return cmocka_run_group_tests_name("lifecycle", tests, NULL, NULL);
}
