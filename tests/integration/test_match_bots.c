/* Whole Crash Pilot matches for 2, 3, 4 and 5 players, played on
 * arbiter-padsim pads through a real pty and checked the three ways a
 * venue sees them: REST, Server-Sent Events and D-Bus (`busctl --user
 * monitor --json=short`, a real client).
 *
 * The players are bots the test drives through padsim's script: each
 * window, a bot reads the public view as a player reads the table, picks
 * its button and presses after a seeded, human-like reaction time (400 to
 * 700 ms).  Every match has, in this order:
 *   - a tie: seats 1 and 2 press the same legal button at the same moment
 *     (retried on a later card should the two clocks order them), then the
 *     tiebreak, which seat 1 wins;
 *   - an elimination: the last seat makes three wrong calls;
 *   - seat 1 calling right, card after card, while another bot presses a
 *     random button later (not first: ignored), until seat 1 has turned
 *     over its last card (with two players the elimination ends it).
 * The four-player match is killed with SIGKILL halfway, with a window open;
 * the restarted daemon shows the same view, the pads come back, and the
 * match is played to its end. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7400: pads no other test binds to a table. */
#define UID_BASE        "29696"
#define N_PADS          5
static const char *const pad_ids[N_PADS] = {
        "0000000000007400", "0000000000007401", "0000000000007402", "0000000000007403", "0000000000007404",
};
#define DOESNT_FIT_BUTTON 6
/* Reaction times of the bots: the press lands this long after the script
 * line, so the judge sees presses ordered as the bots chose. */
#define REACT_MIN_US    400000
#define REACT_SPAN_US   300000
/* A bot that is not first presses this much later: beyond any tie. */
#define LATE_US         120000

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *monitor_path, *referee_token, *admin_token;
static pid_t monitor_pid;
static json_int_t table_id;
static uint64_t rng_state = 0x5eed;

static unsigned rnd(unsigned n) {
        rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (unsigned) ((rng_state >> 33) % n);
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_t *match_of(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *public_view(json_int_t id) {
        json_t *m = match_of(id), *v = json_incref(json_object_get(m, "view"));
        json_decref(m);
        return v;
}

static int button_of(int call) {
        return call == CP_DOESNT_FIT_CALL ? DOESNT_FIT_BUTTON : call - 1;
}

static void press(int pad, int button, int in_us) {
        padsim_send(&sim, "{\"in_us\":%d,\"pad\":%d,\"button\":%d,\"press\":true}", in_us, pad, button);
}

static int reaction(void) {
        return REACT_MIN_US + (int) rnd(REACT_SPAN_US);
}

static bool all_synced(void) {
        struct http_reply r;
        size_t i, n = 0;
        json_t *p;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                n += json_is_true(json_object_get(p, "connected")) &&
                     json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        http_reply_done(&r);
        return n == N_PADS;
}

static void wait_synced(void) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d simulated pads did not all connect and sync", N_PADS);
                usleep(50000);
        }
}

static void start_daemon(void) {
        char *env_pads, *arg;

        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
}

static int setup(void **state) {
        struct http_reply r;
        char body[768];
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("bots")) > 0);
        assert_true(asprintf(&monitor_path, "%s/%s.json", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        const char *sim_args[] = { "--pads", "5", "--link", link_path, "--seed", "23", "--uid-base", UID_BASE,
                                   NULL };
        padsim_start(&sim, sim_args);
        start_daemon();
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        wait_synced();

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\"}, "
                 "{\"seat\": 2, \"pad\": \"%s\"}, {\"seat\": 3, \"pad\": \"%s\"}, {\"seat\": 4, \"pad\": \"%s\"}, "
                 "{\"seat\": 5, \"pad\": \"%s\"}]}", unique_name("bots"), pad_ids[0], pad_ids[1], pad_ids[2],
                 pad_ids[3], pad_ids[4]);
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        table_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);

        /* a real D-Bus client records every match signal for the whole run */
        char *pid_s = run_capture(NULL, "busctl --user monitor --json=short --match "
                                        "\"type='signal',path_namespace='/org/arbiter/Arbiter1/match'\" "
                                        "> '%s' 2>/dev/null & echo $!", monitor_path);
        monitor_pid = (pid_t) atoi(pid_s);
        free(pid_s);
        assert_true(monitor_pid > 0);
        usleep(500000);         /* let it subscribe */
        return 0;
}

static int teardown(void **state) {
        (void) state;
        if (monitor_pid > 0)
                kill(monitor_pid, SIGTERM);
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(monitor_path);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

/* The next event of st (from *at on) whose name is one of names. */
static const struct event *next_of(struct stream *st, size_t *at, const char *const *names) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                for (size_t i = *at; i < st->n_events; i++)
                        for (const char *const *n = names; *n; n++)
                                if (strcmp(st->events[i].name, *n) == 0) {
                                        *at = i + 1;
                                        return &st->events[i];
                                }
                if (st->done || mono_ms() > deadline)
                        fail_msg("no %s event arrived after #%zu", names[0], *at);
                pump(st, 50);
        }
}

static size_t count_events(const struct stream *st, const char *name, const char *key, const char *value) {
        size_t n = 0;

        for (size_t i = 0; i < st->n_events; i++) {
                if (strcmp(st->events[i].name, name) != 0)
                        continue;
                const char *v = key ? json_string_value(json_object_get(st->events[i].data, key)) : NULL;
                n += !key || (v && strcmp(v, value) == 0);
        }
        return n;
}

/* A seat's place in the match's final result (GET /v1/matches/{id}). */
static json_int_t place_of(json_t *match, int seat) {
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(json_object_get(match, "result"), "placements"), i, p)
                if (json_integer_value(json_object_get(p, "seat")) == seat)
                        return json_integer_value(json_object_get(p, "place"));
        fail_msg("seat %d has no place in the result", seat);
        return 0;
}

/* Counts the monitor's signals of member on the match's object whose
 * payload's element index is the string (or, with value NULL, any). */
static size_t dbus_signals(json_int_t id, const char *member, int index, const char *value) {
        char path[96], *line = NULL;
        size_t cap = 0, n = 0;
        FILE *f = fopen(monitor_path, "r");

        assert_non_null(f);
        snprintf(path, sizeof path, "/org/arbiter/Arbiter1/match/%lld", (long long) id);
        while (getline(&line, &cap, f) > 0) {
                json_t *j = json_loads(line, 0, NULL);
                if (!j)
                        continue;
                const char *p = json_string_value(json_object_get(j, "path")),
                           *m = json_string_value(json_object_get(j, "member"));
                json_t *data = json_object_get(json_object_get(j, "payload"), "data");
                if (p && m && strcmp(p, path) == 0 && strcmp(m, member) == 0) {
                        const char *v = json_string_value(json_array_get(data, (size_t) index));
                        n += !value || (v && strcmp(v, value) == 0);
                }
                json_decref(j);
        }
        free(line);
        fclose(f);
        return n;
}

static void wait_dbus(json_int_t id, const char *member, int index, const char *value) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; dbus_signals(id, member, index, value) == 0;) {
                if (mono_ms() > deadline)
                        fail_msg("busctl monitor saw no %s%s%s of match %lld", member, value ? " " : "",
                                 value ? value : "", (long long) id);
                usleep(50000);
        }
}

/* Active seats (1-based bit mask) of a view: those the window allows. */
static unsigned window_seats(json_t *v) {
        unsigned mask = 0;
        size_t i;
        json_t *s;

        json_array_foreach(json_object_get(json_object_get(v, "window"), "seats"), i, s)
                mask |= 1u << json_integer_value(s);
        return mask;
}

static void kill_and_restart(json_int_t id) {
        json_t *before = public_view(id);

        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);
        start_daemon();
        assert_true(daemon_wait_log(&daemon_, "rebuilt from the input log", HARNESS_WAIT_MS));
        /* the REST connection and the token cache come up on their own */
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        json_t *after = public_view(id);
        if (!json_equal(before, after))
                fail_msg("the view changed across kill -9 and restart:\n%s\n%s", json_dumps(before, 0),
                         json_dumps(after, 0));
        json_decref(before);
        json_decref(after);
        wait_synced();
}

static void play(int n, bool kill_halfway) {
        static const char *const judged[] = { "call_judged", NULL };
        static const char *const tie_or_call[] = { "tiebreak_started", "call_judged", NULL };
        static const char *const names[] = { "\"Ana\"", "\"Ben\"", "\"Cy\"", "\"Dee\"", "\"Eve\"" };
        struct http_reply r;
        struct stream st;
        char path[96], body[512], players[128] = "";
        size_t at = 0;
        const struct event *ev;
        json_int_t w = 0;
        json_t *v;

        for (int i = 0; i < n; i++) {
                strcat(players, names[i]);
                if (i + 1 < n)
                        strcat(players, ", ");
        }
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [%s], \"seed\": %d, "
                 "\"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 60000}}}", (long long) table_id,
                 players, 100 + n);
        http_post_json(&daemon_, "/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(&st, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);

        /* a tie between seats 1 and 2, then seat 1 wins the tiebreak */
        bool tied = false;
        for (int attempt = 0; attempt < 5 && !tied; attempt++) {
                v = cp_wait_window(public_view, id, w);
                w = cp_window_id(v);
                int b = button_of(cp_pick_call(v, false)), t = reaction();
                json_decref(v);
                press(0, b, t);
                press(1, b, t);
                ev = next_of(&st, &at, tie_or_call);
                tied = strcmp(ev->name, "tiebreak_started") == 0;
        }
        assert_true(tied);
        v = cp_wait_window(public_view, id, w);
        w = cp_window_id(v);
        assert_int_equal(window_seats(v), (1u << 1) | (1u << 2));
        int t = reaction();
        press(0, button_of(cp_pick_call(v, false)), t);
        press(1, button_of(cp_pick_call(v, true)), t + LATE_US);
        json_decref(v);
        ev = next_of(&st, &at, judged);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), 1);
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");

        /* the last seat calls wrongly three times: out */
        for (int chip = 1; chip <= 3; chip++) {
                v = cp_wait_window(public_view, id, w);
                w = cp_window_id(v);
                press(n - 1, button_of(cp_pick_call(v, true)), reaction());
                json_decref(v);
                ev = next_of(&st, &at, judged);
                assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), n);
                assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "wrong");
        }
        static const char *const out[] = { "player_eliminated", NULL };
        ev = next_of(&st, &at, out);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), n);

        /* seat 1 calls right until it has turned over its last card */
        bool killed = false;
        for (int round = 0; n > 2; round++) {
                json_t *m = match_of(id);
                bool over = strcmp(json_string_value(json_object_get(m, "state")), "finished") == 0;
                json_decref(m);
                if (over)
                        break;
                if (round > 40)
                        fail_msg("match %lld did not finish after %d correct calls", (long long) id, round);
                if (kill_halfway && !killed && round == 2) {
                        json_decref(cp_wait_window(public_view, id, w));
                        kill_and_restart(id);
                        stream_close(&st);
                        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
                        stream_open(&st, daemon_.url, path, NULL);
                        at = 0;
                        killed = true;
                }
                v = cp_wait_window(public_view, id, w);
                w = cp_window_id(v);
                unsigned seats = window_seats(v);
                int other = 2 + (int) rnd((unsigned) n - 1);       /* seat 2..n */
                t = reaction();
                press(0, button_of(cp_pick_call(v, false)), t);
                if (seats & (1u << other))
                        press(other - 1, (int) rnd(7), t + LATE_US);
                json_decref(v);
                ev = next_of(&st, &at, judged);
                assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), 1);
                assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        }
        assert_true(killed == (kill_halfway && n > 2));
        static const char *const finished[] = { "match_finished", NULL };
        ev = next_of(&st, &at, finished);

        /* REST: finished, seat 1 first, the eliminated seat last */
        json_t *m = match_of(id);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "finished");
        assert_int_equal(json_array_size(json_object_get(json_object_get(m, "result"), "placements")), n);
        assert_int_equal(place_of(m, 1), 1);
        assert_int_equal(place_of(m, n), n);
        json_decref(m);

        /* SSE (since the last reconnect when killed): the wrong calls, the
         * elimination and the reveals were all published */
        if (!killed) {
                assert_true(count_events(&st, "call_judged", "verdict", "wrong") >= 3);
                assert_int_equal(count_events(&st, "tiebreak_started", NULL, NULL), 1);
                assert_int_equal(count_events(&st, "player_eliminated", NULL, NULL), 1);
        }
        assert_true(count_events(&st, "card_revealed", NULL, NULL) >= 1);
        stream_close(&st);

        /* D-Bus: the same story on the match's object */
        wait_dbus(id, "MatchFinished", 0, NULL);
        assert_int_equal(dbus_signals(id, "TiebreakStarted", 0, NULL), 1);
        assert_int_equal(dbus_signals(id, "PlayerEliminated", 0, NULL), 1);
        assert_true(dbus_signals(id, "CallJudged", 2, "wrong") >= 3);
        assert_true(dbus_signals(id, "CallJudged", 2, "correct") >= (n > 2 ? 2u : 1u));
        assert_true(dbus_signals(id, "CardRevealed", 0, NULL) >= 5);
}

static void two_players(void **state) { (void) state; play(2, false); }
static void three_players(void **state) { (void) state; play(3, false); }
static void four_players_with_a_kill_halfway(void **state) { (void) state; play(4, true); }
static void five_players(void **state) { (void) state; play(5, false); }

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(two_players),
                cmocka_unit_test(three_players),
                cmocka_unit_test(four_players_with_a_kill_halfway),
                cmocka_unit_test(five_players),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
