/* arbiter-bots at a table of a real daemon, pressing the pads of a real
 * arbiter-padsim through its script (the bots' stdout is padsim's stdin),
 * as make run sets them up (docs/bots.md).
 *
 *   - never wrong (--error-pct 0), the bots host a match and win it by
 *     play: the winner turned over their last card; then they host the next;
 *   - always wrong (--error-pct 100), a match ends by eliminations: the
 *     winner is the last one still in, holding cards;
 *   - a match a referee starts at the table takes it over: the bots abort
 *     the one they host — also when they were started again meanwhile, from
 *     their --state file — and play the referee's;
 *   - after kill -9 and a restart of the daemon they reconnect and play on.
 *
 * The test follows the bots by the lines they log (a match begins, a match
 * is over, the stream is back) and checks each claim through REST and the
 * match's event stream.  The bots are fast (150 ms reaction times, 200 ms
 * verdict pauses) so that a whole match takes seconds. */
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
#include "tests/integration/sse_client.h"

static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7600: pads no other test binds to a table. */
#define UID_BASE        "0x7600"
#define N_PADS          4
static const char *const pad_ids[N_PADS] = {
        "0000000000007600", "0000000000007601", "0000000000007602", "0000000000007603",
};
/* A whole match of fast bots takes seconds; this only stops a hang. */
#define MATCH_WAIT_MS   (4 * HARNESS_WAIT_MS)
#define MAX_BOTS        2

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *token_path, *state_path, *table_name, *referee_token;
static json_int_t table_id;
static pid_t bots_pid, live_bots[MAX_BOTS];
static char bots_log[256];

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_t *get(const char *fmt, json_int_t id) {
        struct http_reply r;
        char path[128];

        snprintf(path, sizeof path, fmt, (long long) id);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static void post(const char *path, const char *body, long status, json_int_t *ret_id) {
        struct http_reply r;

        http_post_json(&daemon_, path, referee_token, body, &r);
        expect(&r, status);
        if (ret_id)
                *ret_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
}

/* ---- the bots: a child whose stdout is padsim's script ----------------- */

static void kill_bots_at_exit(void) {
        for (int i = 0; i < MAX_BOTS; i++)
                if (live_bots[i] > 0) {
                        kill(live_bots[i], SIGKILL);
                        waitpid(live_bots[i], NULL, 0);
                }
}

static void bots_start(const char *error_pct) {
        static unsigned n;
        char *bin;

        assert_true(asprintf(&bin, "%s/arbiter-bots", harness_env("ARBITER_TEST_BUILD")) > 0);
        snprintf(bots_log, sizeof bots_log, "%s/bots-%d-%u.log", harness_env("ARBITER_TEST_TMP"), (int) getpid(),
                 n++);
        bots_pid = fork();
        assert_true(bots_pid >= 0);
        if (bots_pid == 0) {
                int log = open(bots_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(sim.script_fd, STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                const char *argv[] = { bin, "--url", daemon_.url, "--table", table_name, "--uid-base", UID_BASE,
                                       "--pads", "4", "--keep-playing", "--token-file", token_path,
                                       "--state", state_path,
                                       "--error-pct", error_pct, "--seed", "41", "--reaction-ms", "150",
                                       "--reaction-min-ms", "80", "--between-ms", "300",
                                       "--match-config", "{\"reveal\": {\"pause_ms\": 200}}", NULL };
                execv(bin, (char **) argv);
                _exit(127);
        }
        free(bin);
        for (int i = 0; i < MAX_BOTS; i++)
                if (live_bots[i] == 0) {
                        live_bots[i] = bots_pid;
                        break;
                }
}

static void bots_stop(void) {
        if (bots_pid <= 0)
                return;
        kill(bots_pid, SIGTERM);
        waitpid(bots_pid, NULL, 0);
        for (int i = 0; i < MAX_BOTS; i++)
                if (live_bots[i] == bots_pid)
                        live_bots[i] = 0;
        bots_pid = 0;
}

/* How many lines of the bots' log contain both a and b (b may be NULL). */
static unsigned log_lines(const char *a, const char *b) {
        FILE *f = fopen(bots_log, "r");
        char *line = NULL;
        size_t cap = 0;
        unsigned n = 0;

        if (!f)
                return 0;
        while (getline(&line, &cap, f) > 0)
                n += strstr(line, a) && (!b || strstr(line, b));
        free(line);
        fclose(f);
        return n;
}

/* Waits for the count-th line (from 1) with a and b; returns the match id
 * the line names ("match N at …"), or 0. */
static json_int_t wait_line(const char *a, const char *b, unsigned count, int timeout_ms) {
        for (int64_t deadline = mono_ms() + timeout_ms; log_lines(a, b) < count;) {
                if (mono_ms() > deadline) {
                        struct daemon_proc fake = { 0 };
                        snprintf(fake.log_path, sizeof fake.log_path, "%s", bots_log);
                        fail_msg("the bots did not log \"%s\" (%u times); their log:\n%s", a, count, daemon_log(&fake));
                }
                usleep(20000);
        }
        FILE *f = fopen(bots_log, "r");
        char *line = NULL;
        size_t cap = 0;
        unsigned n = 0;
        long long id = 0;

        assert_non_null(f);
        while (n < count && getline(&line, &cap, f) > 0)
                if (strstr(line, a) && (!b || strstr(line, b)) && ++n == count) {
                        const char *m = strstr(line, "match ");
                        if (m)
                                sscanf(m, "match %lld", &id);
                }
        free(line);
        fclose(f);
        return id;
}

/* ---- set-up ------------------------------------------------------------ */

/* Starts the daemon; on port when it is not 0 (a restart: the bots keep
 * their --url), else on one the harness picks. */
static void start_daemon(int port) {
        char *env_pads, *env_listen, *arg;

        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&env_listen, "ARBITER_LISTEN=127.0.0.1:%d", port) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, port ? env_listen : NULL, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        if (port) {
                daemon_.port = port;
                snprintf(daemon_.url, sizeof daemon_.url, "http://127.0.0.1:%d", port);
        }
        free(env_pads);
        free(env_listen);
        free(arg);
}

static int setup(void **state) {
        char body[512];
        FILE *f;
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("bots")) > 0);
        assert_true(asprintf(&token_path, "%s/%s.token", harness_env("ARBITER_TEST_TMP"), unique_name("bots")) > 0);
        assert_true(asprintf(&state_path, "%s/%s.state", harness_env("ARBITER_TEST_TMP"), unique_name("bots")) > 0);
        table_name = strdup(unique_name("bots"));
        assert_non_null(f = fopen(config_path, "w"));
        fputs(config_text, f);
        fclose(f);

        const char *sim_args[] = { "--pads", "4", "--link", link_path, "--seed", "29", "--uid-base", UID_BASE,
                                   "--quiet", NULL };
        /* The tokens before the daemon, so that its first load has them:
         * one made later is known only once its NOTIFY has been heard. */
        referee_token = create_token("referee", unique_name("referee"));
        assert_non_null(f = fopen(token_path, "w"));
        fprintf(f, "%s\n", referee_token);
        fclose(f);
        char *admin = create_token("admin", unique_name("admin"));
        padsim_start(&sim, sim_args);
        start_daemon(0);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        struct http_reply r;
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\"}, "
                 "{\"seat\": 2, \"pad\": \"%s\"}, {\"seat\": 3, \"pad\": \"%s\"}, {\"seat\": 4, \"pad\": \"%s\"}]}",
                 table_name, pad_ids[0], pad_ids[1], pad_ids[2], pad_ids[3]);
        http_post_json(&daemon_, "/v1/tables", admin, body, &r);
        expect(&r, 201);
        table_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        free(admin);
        atexit(kill_bots_at_exit);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        bots_stop();
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(token_path);
        free(state_path);
        free(table_name);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

/* The seat's figures in a finished match's result. */
static json_t *stats_of(json_t *match, size_t place_index) {
        return json_object_get(json_array_get(json_object_get(json_object_get(match, "result"), "placements"),
                                              place_index), "stats");
}

/* ---- the tests --------------------------------------------------------- */

static void never_wrong_they_win_by_play_and_host_the_next_match(void **state) {
        (void) state;
        bots_start("0");
        json_int_t id = wait_line("is over", NULL, 1, MATCH_WAIT_MS);
        assert_true(log_lines("is over", "turning over their last card") == 1);

        json_t *m = get("/v1/matches/%lld", id);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "finished");
        assert_int_equal(json_integer_value(json_object_get(m, "table")), table_id);
        assert_int_equal(json_integer_value(json_object_get(stats_of(m, 0), "cards_left")), 0);
        assert_int_equal(json_array_size(json_object_get(m, "seats")), N_PADS);
        json_decref(m);

        /* the next match is hosted after it */
        json_int_t next = wait_line("at ", ": Ana, Ben, Cy, Dee", 2, HARNESS_WAIT_MS);
        assert_true(next > id);
        m = get("/v1/matches/%lld", next);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "running");
        json_decref(m);
}

/* Aborts every running or paused match at the table. */
static void abort_live_matches(void) {
        static const char *const live[] = { "running", "paused" };
        char path[96];

        for (size_t k = 0; k < sizeof live / sizeof live[0]; k++) {
                struct http_reply r;
                json_t *it;
                size_t i;

                snprintf(path, sizeof path, "/v1/matches?state=%s&limit=1000", live[k]);
                http_get(&daemon_, path, NULL, &r);
                expect(&r, 200);
                json_array_foreach(json_object_get(r.json, "items"), i, it)
                        if (json_integer_value(json_object_get(it, "table")) == table_id) {
                                snprintf(path, sizeof path, "/v1/matches/%lld/abort",
                                         (long long) json_integer_value(json_object_get(it, "id")));
                                post(path, "{}", 200, NULL);
                        }
                http_reply_done(&r);
        }
}

static void always_wrong_a_match_ends_by_eliminations(void **state) {
        (void) state;

        bots_stop();
        abort_live_matches();
        bots_start("100");
        json_int_t id = wait_line("is over", NULL, 1, MATCH_WAIT_MS);
        assert_true(log_lines("is over", "the last one still in") == 1);
        json_t *m = get("/v1/matches/%lld", id);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "finished");
        assert_true(json_integer_value(json_object_get(stats_of(m, 0), "cards_left")) > 0);
        for (size_t i = 1; i < N_PADS; i++)
                assert_true(json_is_true(json_object_get(stats_of(m, i), "eliminated")));
        json_decref(m);
}

static void a_match_started_at_the_table_takes_it_over(void **state) {
        char body[256], path[96];
        struct stream st;
        json_int_t theirs;
        (void) state;

        /* the bots host their next match; a referee pauses it (so that it
         * cannot end meanwhile) */
        json_int_t hosted = wait_line("at ", ": Ana, Ben, Cy, Dee", 2, HARNESS_WAIT_MS);
        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) hosted);
        post(path, "{}", 200, NULL);
        /* bots started again know it for theirs (--state) */
        bots_stop();
        bots_start("100");
        assert_int_equal(wait_line("at ", ": Ana, Ben, Cy, Dee", 1, HARNESS_WAIT_MS), hosted);
        /* and a referee starts a match of their own at the table */
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Zed\", \"Yan\", "
                 "\"Xi\"], \"config\": {\"reveal\": {\"pause_ms\": 200}}}", (long long) table_id);
        post("/v1/matches", body, 201, &theirs);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) theirs);
        stream_open(&st, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) theirs);
        post(path, "{}", 200, NULL);

        wait_line("aborting the bots' match", NULL, 1, HARNESS_WAIT_MS);
        json_t *m = get("/v1/matches/%lld", hosted);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "aborted");
        json_decref(m);
        assert_int_equal(wait_line("at ", ": Zed, Yan, Xi", 1, HARNESS_WAIT_MS), theirs);
        /* the bots play the referee's match: a call from one of its seats */
        size_t at = wait_event(&st, 0, "call_judged", NULL);
        json_int_t seat = json_integer_value(json_object_get(st.events[at].data, "seat"));
        assert_true(seat >= 1 && seat <= 3);
        stream_close(&st);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) theirs);
        post(path, "{}", 200, NULL);
}

static void after_a_daemon_restart_they_play_on(void **state) {
        (void) state;

        int port = daemon_.port;

        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);
        wait_line("lost arbiterd's event stream", NULL, 1, HARNESS_WAIT_MS);
        /* nothing can end now: no daemon */
        unsigned over = log_lines("is over", NULL);
        start_daemon(port);
        wait_line("connected to arbiterd", NULL, 1, HARNESS_WAIT_MS);
        /* a match ends, by calls the bots made after the restart */
        json_int_t id = wait_line("is over", NULL, over + 1, MATCH_WAIT_MS);
        json_t *m = get("/v1/matches/%lld", id);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "finished");
        assert_int_equal(json_integer_value(json_object_get(m, "table")), table_id);
        json_decref(m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(never_wrong_they_win_by_play_and_host_the_next_match),
                cmocka_unit_test(always_wrong_a_match_ends_by_eliminations),
                cmocka_unit_test(a_match_started_at_the_table_takes_it_over),
                cmocka_unit_test(after_a_daemon_restart_they_play_on),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
