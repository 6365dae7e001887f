/* The database under a venue's faults (issue 11, "One connection for
 * everything" and "Nothing acknowledged is ever lost"), each on a cluster
 * of the test's own (outage.h):
 *   - a match input whose write is cut by the outage (the daemon's INSERT
 *     waits on a lock another session holds, then PostgreSQL stops) goes to
 *     the spool and is answered as accepted, and the match goes on;
 *   - start, pause and resume during an outage answer what happened (200,
 *     the match as the daemon holds it), so a retry is refused, not
 *     applied twice;
 *   - a second daemon on the same database refuses to start, saying why;
 *   - with the REST connection stuck behind a lock, requests past
 *     [database] queue_limit get 503 with Retry-After, while health checks,
 *     referees and the match runtime (a connection of its own) go on;
 *     arbiterctl, refused the same way, asks again after the Retry-After
 *     and gets its answer.
 * Where the test waits for the database to be in a state (a lock granted, a
 * query waiting), it asks pg_locks and pg_stat_activity. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/async_post.h"
#include "tests/integration/harness.h"
#include "tests/integration/outage.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/sse_client.h"

static struct outage o;
static struct daemon_proc second;
static pid_t locker = -1;

static int teardown(void **state) {
        (void) state;
        outage_release(&locker);
        if (second.pid > 0) {
                kill(second.pid, SIGKILL);
                daemon_wait_exit(&second);
                second.pid = 0;
        }
        outage_done(&o);
        return 0;
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

/* A session of the test's that takes table's lock and keeps it until
 * outage_release(&locker) (or the cluster stops). */
static void lock_table(const char *table) {
        char sql[256], check[512];

        snprintf(sql, sizeof sql, "BEGIN; LOCK TABLE %s IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3600)", table);
        snprintf(check, sizeof check, "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                 "WHERE a.application_name = 'locker' AND l.relation = '%s'::regclass AND l.granted", table);
        locker = outage_hold(&o, sql, check);
}

/* Waits until n of the daemon's queries wait on a lock. */
static void wait_daemon_blocked(int n) {
        char sql[256];

        snprintf(sql, sizeof sql, "SELECT count(*) >= %d FROM pg_stat_activity WHERE application_name = "
                 "'arbiterd' AND wait_event_type = 'Lock'", n);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; ;) {
                int st;
                char *out = run_capture(&st, "psql '%s' -tAX -c \"%s\"", o.dsn, sql);
                bool yes = out[0] == 't';

                free(out);
                if (yes)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("the daemon's query never waited on the lock");
        }
}

static void post(const char *path, const char *body, struct http_reply *r) {
        http_post_json(&o.d, path, o.referee, body, r);
}

/* The stored log's kinds after the start, as "pause resume …". */
static char *kinds(json_int_t id) {
        json_t *items = outage_log(&o, id), *it;
        char *text = calloc(1, 1024);
        size_t i, at = 0;

        json_array_foreach(items, i, it)
                at += (size_t) snprintf(text + at, 1024 - at, "%s%s", at ? " " : "",
                                        json_string_value(json_object_get(it, "kind")));
        json_decref(items);
        return text;
}

static const char *state_of(json_t *match) {
        return json_string_value(json_object_get(match, "state"));
}

static void a_write_cut_by_the_outage_goes_to_the_spool(void **state) {
        struct async_post q;
        struct http_reply r;
        char path[96];
        (void) state;

        outage_init(&o, "writecut");
        outage_start(&o, true);
        json_int_t id = outage_match(&o, 21);

        /* The pause's INSERT waits on the lock; then the database stops
         * under it. */
        lock_table("match_inputs");
        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) id);
        async_post_start(&q, o.d.url, path, o.referee, "{}");
        wait_daemon_blocked(1);
        outage_pg(&o, "stop");
        async_post_join(&q);
        outage_release(&locker);
        if (q.status != 200 || !strstr(q.reply, "\"paused\"") || !strstr(q.reply, "\"spool\""))
                fail_msg("the pause whose write was cut was answered %ld: %s", q.status, q.reply);

        /* The match goes on, through the spool. */
        snprintf(path, sizeof path, "/v1/matches/%lld/resume", (long long) id);
        post(path, "{}", &r);
        expect(&r, 200);
        assert_string_equal(state_of(r.json), "running");
        http_reply_done(&r);

        outage_pg(&o, "start");
        assert_true(daemon_wait_log(&o.d, "spool flushed", HARNESS_WAIT_MS));
        /* the REST connection reconnects on its own: reads wait for it */
        assert_true(wait_database_state(&o.d, "ready", HARNESS_WAIT_MS));
        char *k = kinds(id);
        assert_string_equal(k, "start pause resume");
        free(k);
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&o.d, path, o.referee, &r);
        expect(&r, 200);
        assert_string_equal(state_of(r.json), "running");
        http_reply_done(&r);
}

static void control_requests_in_an_outage_say_what_happened(void **state) {
        struct http_reply r;
        char path[96];
        (void) state;

        outage_init(&o, "control");
        outage_start(&o, true);
        json_int_t id = outage_match(&o, 22);
        outage_pg(&o, "stop");
        assert_true(wait_database_state(&o.d, "disconnected", HARNESS_WAIT_MS));

        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) id);
        post(path, "{}", &r);
        expect(&r, 200);
        assert_string_equal(state_of(r.json), "paused");
        assert_string_equal(json_string_value(json_object_get(r.json, "stored")), "spool");
        http_reply_done(&r);
        /* a client that retries is told it is done already */
        post(path, "{}", &r);
        expect(&r, 409);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/resume", (long long) id);
        post(path, "{}", &r);
        expect(&r, 200);
        assert_string_equal(state_of(r.json), "running");
        http_reply_done(&r);

        outage_pg(&o, "start");
        assert_true(daemon_wait_log(&o.d, "spool flushed", HARNESS_WAIT_MS));
        /* the REST connection reconnects on its own: reads wait for it */
        assert_true(wait_database_state(&o.d, "ready", HARNESS_WAIT_MS));
        char *k = kinds(id);
        /* the refused retry is logged too, as refused */
        assert_string_equal(k, "start pause pause resume");
        free(k);
}

static void a_second_daemon_on_the_database_refuses(void **state) {
        char *spool2, *env[4];
        (void) state;

        outage_init(&o, "twodaemons");
        outage_start(&o, true);
        json_int_t id = outage_match(&o, 23);

        assert_true(asprintf(&spool2, "%s/spool2", o.dir) > 0);
        assert_true(asprintf(&env[0], "ARBITER_DSN=%s", o.dsn) > 0);
        assert_true(asprintf(&env[1], "ARBITER_SPOOL=%s", spool2) > 0);
        env[2] = NULL;
        daemon_start(&second, (const char *const *) env, NULL, false);
        assert_int_equal(daemon_wait_exit(&second), 65);
        second.pid = 0;
        assert_true(daemon_log_contains(&second, "another arbiterd runs venue main on this database"));
        assert_true(daemon_log_contains(&second, "arbiterd, server pid"));

        /* the first one runs on, its match live */
        struct http_reply r;
        char path[96];
        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) id);
        post(path, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);

        /* stopped, it lets the next one in at once */
        assert_int_equal(daemon_stop(&o.d, SIGTERM, NULL), 0);
        o.running = false;
        daemon_start(&second, (const char *const *) env, NULL, true);
        assert_true(wait_database_state(&second, "ready", HARNESS_WAIT_MS));
        kill(second.pid, SIGTERM);
        assert_int_equal(daemon_wait_exit(&second), 0);
        second.pid = 0;
        free(env[0]);
        free(env[1]);
        free(spool2);
}

/* Reads one HTTP reply's head from fd (the body is not needed). */
static long read_status(int fd, char *head, size_t len) {
        size_t at = 0;
        long status = 0;

        while (at + 1 < len) {
                ssize_t n = read(fd, head + at, len - 1 - at);
                if (n <= 0)
                        break;
                at += (size_t) n;
                head[at] = '\0';
                if (strstr(head, "\r\n\r\n"))
                        break;
        }
        head[at] = '\0';
        sscanf(head, "HTTP/1.%*d %ld", &status);
        return status;
}

#define QUEUE_LIMIT 4

static void a_full_database_queue_is_503_and_matches_go_on(void **state) {
        char *config, *arg, head[2048], path[96];
        int fds[QUEUE_LIMIT];
        struct http_reply r;
        FILE *f;
        (void) state;

        outage_init(&o, "queue");
        assert_true(asprintf(&config, "%s/arbiterd.conf", o.dir) > 0);
        f = fopen(config, "w");
        assert_non_null(f);
        fprintf(f, "[database]\nqueue_limit = %d\nstatement_timeout = 60000\n", QUEUE_LIMIT);
        fclose(f);
        assert_true(asprintf(&arg, "--config=%s", config) > 0);
        const char *args[] = { arg, NULL };
        daemon_start(&o.d, (const char *const *) o.env, args, true);
        o.running = true;
        assert_true(wait_tokens_loaded(&o.d, HARNESS_WAIT_MS));
        json_int_t id = outage_match(&o, 24);

        /* Displays' reads queue behind one that waits on a lock. */
        lock_table("players");
        for (int i = 0; i < QUEUE_LIMIT; i++) {
                char from[32];
                snprintf(from, sizeof from, "127.0.0.%d", 10 + i);
                fds[i] = raw_connect(from, o.d.port);
                assert_true(raw_send(fds[i], "GET /v1/players HTTP/1.1\r\nHost: arbiter\r\n\r\n"));
        }
        wait_daemon_blocked(1);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; ;) {
                http_get(&o.d, "/v1/status", o.admin, &r);
                expect(&r, 200);
                json_int_t pending = json_integer_value(json_object_get(json_object_get(r.json, "database"),
                                                                        "pending"));
                http_reply_done(&r);
                if (pending >= QUEUE_LIMIT)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the reads never queued");
        }

        /* the next display is refused at once, and told when to come back */
        long st = raw_request("127.0.0.20", o.d.port, "GET", "/v1/players", NULL, head, sizeof head);
        assert_int_equal(st, 503);
        if (!strstr(head, "Retry-After: 1"))
                fail_msg("no Retry-After: %s", head);
        /* health checks, referees and the match runtime go on */
        http_get(&o.d, "/v1/health", NULL, &r);
        expect(&r, 200);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) id);
        post(path, "{}", &r);
        expect(&r, 200);
        assert_string_equal(state_of(r.json), "paused");
        http_reply_done(&r);
        http_get(&o.d, "/v1/status", o.admin, &r);
        expect(&r, 200);
        json_t *refused = json_object_get(json_object_get(r.json, "http"), "refused");
        assert_true(json_integer_value(json_object_get(refused, "queue_full")) >= 1);
        http_reply_done(&r);

        /* arbiterctl, refused the same way, asks again when Retry-After
         * says and gets its list once the queue has drained */
        char ctl_err[512], ctl_bin[512];
        snprintf(ctl_err, sizeof ctl_err, "%s/arbiterctl.err", o.dir);
        snprintf(ctl_bin, sizeof ctl_bin, "%s/arbiterctl", harness_env("ARBITER_TEST_BUILD"));
        pid_t ctl = fork();
        assert_true(ctl >= 0);
        if (ctl == 0) {
                if (!freopen(ctl_err, "w", stderr) || !freopen("/dev/null", "w", stdout))
                        _exit(127);
                execl(ctl_bin, "arbiterctl", "--url", o.d.url, "players", "list", (char *) NULL);
                _exit(127);
        }
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                char *said = run_capture(NULL, "cat '%s' 2>/dev/null", ctl_err);
                bool retrying = strstr(said, "asking again in 1 s") != NULL;
                free(said);
                if (retrying)
                        break;
                if (mono_ms() > deadline) {
                        kill(ctl, SIGKILL);
                        waitpid(ctl, NULL, 0);
                        fail_msg("arbiterctl never said it would ask again");
                }
        }

        /* the lock goes (a backend in pg_sleep does not notice its client
         * leave): the queued reads are answered */
        assert_int_equal(run_cmd("psql '%s' -qtAX -c \"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                 "WHERE application_name = 'locker'\" >/dev/null", o.dsn), 0);
        outage_release(&locker);
        for (int i = 0; i < QUEUE_LIMIT; i++) {
                assert_int_equal(read_status(fds[i], head, sizeof head), 200);
                close(fds[i]);
        }
        int ctl_status;
        assert_int_equal(waitpid(ctl, &ctl_status, 0), ctl);
        if (!WIFEXITED(ctl_status) || WEXITSTATUS(ctl_status) != 0)
                fail_msg("arbiterctl players list exited %d after its retry", ctl_status);
        free(arg);
        free(config);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(a_write_cut_by_the_outage_goes_to_the_spool, teardown),
                cmocka_unit_test_teardown(control_requests_in_an_outage_say_what_happened, teardown),
                cmocka_unit_test_teardown(a_second_daemon_on_the_database_refuses, teardown),
                cmocka_unit_test_teardown(a_full_database_queue_is_503_and_matches_go_on, teardown),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
