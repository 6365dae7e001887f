/* Pad presses drive a match: a three-seat Crash Pilot match at a table
 * whose seats are arbiter-padsim pads on a real pty.  A correct call, a
 * wrong call and two pads pressing at once go through the first-press judge
 * into the engine and come out over SSE; the pads get their LIGHT and BUZZ
 * frames; a pad at no seat of the match is counted in /v1/status and
 * changes nothing; a seat outside a tiebreak is ignored and counted. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"
#include "tests/integration/crash_pilot_view.h"

/* As test_pads.c: a generous settle window for a sanitizer build. */
static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7300 (unlike the other tests, so that no table
 * elsewhere holds these pads): pads 0..2 sit at the table, pad 3 at none. */
#define UID_BASE        "29440"
#define N_PADS          4
static const char *const pad_ids[N_PADS] = {
        "0000000000007300", "0000000000007301", "0000000000007302", "0000000000007303",
};

/* A Crash Pilot pad's button b calls row b + 1; button 6 is "doesn't fit"
 * (docs/protocol.md section 7). */
#define DOESNT_FIT_BUTTON       6

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *admin_token, *referee_token;
static json_int_t table_id;

static const struct event *next_event(struct stream *st, size_t *from, const char *const *names) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;

        for (;;) {
                for (size_t i = *from; i < st->n_events; i++)
                        for (const char *const *n = names; *n; n++)
                                if (strcmp(st->events[i].name, *n) == 0) {
                                        *from = i + 1;
                                        return &st->events[i];
                                }
                if (st->done || mono_ms() > deadline)
                        fail_msg("no %s event arrived after #%zu (%s)", names[0], *from, st->buf);
                pump(st, 50);
        }
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

/* The pad button for a legal call on the face-up card (or, with
 * want_wrong, a wrong one), as test_matches.c picks its calls. */
static int pick_button(json_t *v, bool want_wrong) {
        int c = cp_pick_call(v, want_wrong);
        return c == CP_DOESNT_FIT_CALL ? DOESNT_FIT_BUTTON : c - 1;
}

/* The public view of match id (a new reference), for cp_wait_window. */
static json_t *public_view(json_int_t id) {
        json_t *m = match_of(id), *v = json_incref(json_object_get(m, "view"));
        json_decref(m);
        return v;
}

static json_int_t health_unassigned(void) {
        struct http_reply r;

        http_get(&daemon_, "/v1/status", NULL, &r);
        json_t *pads = json_object_get(r.json, "pads");
        assert_true(json_is_integer(json_object_get(pads, "unassigned_presses")));
        json_int_t n = json_integer_value(json_object_get(pads, "unassigned_presses"));
        http_reply_done(&r);
        return n;
}

static size_t log_length(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        size_t n = json_array_size(json_object_get(r.json, "items"));
        http_reply_done(&r);
        return n;
}

/* Judged calls in match id's log (each resend of a press is not one). */
static size_t calls_in_log(json_int_t id) {
        struct http_reply r;
        char path[64];
        size_t i, n = 0;
        json_t *it;

        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        json_array_foreach(json_object_get(r.json, "items"), i, it)
                n += strcmp(json_string_value(json_object_get(it, "kind")), "call") == 0;
        http_reply_done(&r);
        return n;
}

static void wait_padsim_log(const char *needle) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !padsim_log_contains(&sim, needle);) {
                if (mono_ms() > deadline)
                        fail_msg("padsim never logged \"%s\"", needle);
                usleep(50000);
        }
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

static int setup(void **state) {
        struct http_reply r;
        char body[512];
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("mp")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        /* -v: padsim logs every ACK with the number of sends it took */
        const char *sim_args[] = { "--pads", "4", "--link", link_path, "--seed", "11", "--uid-base", UID_BASE,
                                   "-v", NULL };
        padsim_start(&sim, sim_args);

        char *env_pads, *arg;
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d simulated pads did not all connect and sync", N_PADS);
                usleep(50000);
        }

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\"}, "
                 "{\"seat\": 2, \"pad\": \"%s\"}, {\"seat\": 3, \"pad\": \"%s\"}]}",
                 unique_name("padtable"), pad_ids[0], pad_ids[1], pad_ids[2]);
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        table_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

static void press(int pad, int button, int in_us) {
        padsim_send(&sim, "{\"in_us\":%d,\"pad\":%d,\"button\":%d,\"press\":true}", in_us, pad, button);
}

static void presses_on_the_pads_are_judged_into_calls(void **state) {
        static const char *const judged[] = { "call_judged", NULL };
        static const char *const tie_or_call[] = { "tiebreak_started", "call_judged", NULL };
        struct stream st;
        struct http_reply r;
        char path[96], body[256];
        size_t at = 0;
        json_t *v;
        const struct event *ev;
        (void) state;

        /* The pause between verdict and next reveal is longer than the
         * judge's 250 ms cooldown, so a seat's next press always counts. */
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\", "
                 "\"Cy\"], \"seed\": 7, \"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 60000}}}",
                 (long long) table_id);
        http_post_json(&daemon_, "/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        json_t *seat1 = json_array_get(json_object_get(r.json, "seats"), 0);
        json_t *pad1 = json_array_get(json_object_get(seat1, "pads"), 0);
        assert_string_equal(json_string_value(json_object_get(pad1, "pad")), pad_ids[0]);
        assert_string_equal(json_string_value(json_object_get(pad1, "role")), "buttons");
        http_reply_done(&r);

        snprintf(path, sizeof path, "/v1/events?topic=match/%lld", (long long) id);
        stream_open(&st, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);

        /* seat 1 (pad 0) calls correctly: the judge's winner, with a reaction time */
        v = cp_wait_window(public_view, id, 0);
        json_int_t w = cp_window_id(v);
        press(0, pick_button(v, false), 1000);
        json_decref(v);
        ev = next_event(&st, &at, judged);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), 1);
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        assert_true(json_integer_value(json_object_get(ev->data, "reaction_us")) > 0);
        wait_padsim_log("pad 0: light");

        /* seat 2 (pad 1) calls wrongly: a chip and a buzz */
        v = cp_wait_window(public_view, id, w);
        w = cp_window_id(v);
        press(1, pick_button(v, true), 1000);
        json_decref(v);
        ev = next_event(&st, &at, judged);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), 2);
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "wrong");
        wait_padsim_log("pad 1: buzz");

        /* pads 0 and 2 press at the same scheduled time: their presses lie
         * within each other's error bounds, so the judge calls a tie and a
         * tiebreak starts for seats 1 and 3.  Should the two clocks happen
         * to order them beyond doubt, the judge names one winner instead:
         * then it must be one of the two and the call comes from a pad. */
        v = cp_wait_window(public_view, id, w);
        w = cp_window_id(v);
        int b = pick_button(v, false);
        json_decref(v);
        press(0, b, 5000);
        press(2, b, 5000);
        ev = next_event(&st, &at, tie_or_call);
        if (strcmp(ev->name, "tiebreak_started") == 0) {
                json_t *seats = json_object_get(ev->data, "seats");
                assert_int_equal(json_array_size(seats), 2);
                assert_int_equal(json_integer_value(json_array_get(seats, 0)), 1);
                assert_int_equal(json_integer_value(json_array_get(seats, 1)), 3);
                wait_padsim_log("pad 2: light");

                /* seat 2 is not in the tiebreak: its press is ignored and counted */
                v = cp_wait_window(public_view, id, w);
                w = cp_window_id(v);
                json_decref(v);
                size_t before = log_length(id);
                press(1, 0, 1000);
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                        json_t *m = match_of(id);
                        json_int_t ignored = json_integer_value(json_object_get(m, "ignored_presses"));
                        json_decref(m);
                        if (ignored >= 1)
                                break;
                        if (mono_ms() > deadline)
                                fail_msg("the press of a seat outside the tiebreak was not counted");
                        usleep(50000);
                }
                assert_int_equal(log_length(id), before);
        } else {
                json_int_t seat = json_integer_value(json_object_get(ev->data, "seat"));
                assert_true(seat == 1 || seat == 3);
                print_message("# the simultaneous presses were ordered: seat %lld won\n", (long long) seat);
                v = cp_wait_window(public_view, id, w);         /* the next card is up and waits 60 s */
                json_decref(v);
        }

        /* a pad at no seat of this match changes nothing and is counted */
        json_int_t unassigned = health_unassigned();
        size_t before = log_length(id);
        json_t *m0 = match_of(id);
        press(3, 0, 1000);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; health_unassigned() <= unassigned;) {
                if (mono_ms() > deadline)
                        fail_msg("the press of a pad at no seat was not counted in /v1/status");
                usleep(50000);
        }
        assert_int_equal(log_length(id), before);
        json_t *m1 = match_of(id);
        assert_true(json_equal(json_object_get(m0, "view"), json_object_get(m1, "view")));
        json_decref(m0);
        json_decref(m1);

        /* every judged input is in the log as coming from a pad */
        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        size_t i, pads = 0;
        json_t *it;
        json_array_foreach(json_object_get(r.json, "items"), i, it)
                pads += strcmp(json_string_value(json_object_get(it, "source")), "pad") == 0;
        assert_true(pads >= 3);
        http_reply_done(&r);

        stream_close(&st);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
}

/* Creates and starts a Crash Pilot match at table tid; returns its id and
 * opens st on its events. */
static json_int_t start_match(json_int_t tid, const char *players, struct stream *st) {
        struct http_reply r;
        char path[96], body[256];

        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [%s], \"seed\": 7, "
                 "\"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 60000}}}", (long long) tid, players);
        http_post_json(&daemon_, "/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(st, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        return id;
}

static void abort_match(json_int_t id) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
}

/* The number of sends padsim's newest ACK for pad took ("pad P: event E
 * acknowledged after N sends"), 0 when none was logged. */
static unsigned last_ack_sends(int pad) {
        char *text = NULL, needle[32];
        size_t cap = 0;
        unsigned sends = 0, e, n;
        FILE *f = fopen(sim.log_path, "r");

        assert_non_null(f);
        snprintf(needle, sizeof needle, "pad %d: event ", pad);
        while (getline(&text, &cap, f) > 0) {
                char *at = strstr(text, needle);
                if (at && sscanf(at + strlen(needle), "%u acknowledged after %u send", &e, &n) == 2)
                        sends = n;
        }
        free(text);
        fclose(f);
        return sends;
}

static json_int_t pad_duplicates(int pad) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/pads/%s", pad_ids[pad]);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        json_t *n = json_object_get(json_object_get(r.json, "counters"), "duplicates");
        assert_true(json_is_integer(n));
        json_int_t d = json_integer_value(n);
        http_reply_done(&r);
        return d;
}

/* docs/architecture.md, "Persistence": a press is ACKed once what it made
 * is durable.
 * Another session locks match_inputs for 1.5 s; a correct call made during
 * that time is not ACKed (the pad sends it again and again, each resend
 * seen as a duplicate and not judged twice) and not published, until the
 * lock goes and the input is stored: then both happen, and the log holds
 * the call once. */
static void a_press_is_acked_only_once_its_call_is_stored(void **state) {
        static const char *const judged[] = { "call_judged", NULL };
        struct stream st;
        size_t at = 0;
        int st_code;
        (void) state;

        json_int_t id = start_match(table_id, "\"Ana\", \"Ben\", \"Cy\"", &st);
        json_t *v = cp_wait_window(public_view, id, 0);
        int button = pick_button(v, false);
        json_decref(v);
        size_t calls = calls_in_log(id);
        json_int_t dups = pad_duplicates(0);

        const char *dsn = harness_env("ARBITER_TEST_DSN");
        assert_int_equal(run_cmd("psql '%s' -q -c 'BEGIN; LOCK TABLE match_inputs IN ACCESS EXCLUSIVE MODE; "
                                 "SELECT pg_sleep(1.5); COMMIT;' >/dev/null 2>&1 &", dsn), 0);
        bool locked = false;
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !locked && mono_ms() < deadline;) {
                char *n = run_capture(&st_code, "psql '%s' -tA -c \"SELECT count(*) FROM pg_locks l JOIN pg_class c "
                                                "ON c.oid = l.relation WHERE c.relname = 'match_inputs' "
                                                "AND l.mode = 'AccessExclusiveLock' AND l.granted\"", dsn);
                locked = atoi(n) == 1;
                free(n);
                if (!locked)
                        usleep(20000);
        }
        assert_true(locked);

        press(0, button, 1000);
        usleep(600 * 1000);
        /* 600 ms in: resent at 20, 60, 140, 300 ms, never ACKed, not published */
        assert_true(pad_duplicates(0) >= dups + 2);
        for (size_t i = 0; i < st.n_events; i++)
                assert_string_not_equal(st.events[i].name, "call_judged");

        const struct event *ev = next_event(&st, &at, judged);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), 1);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; last_ack_sends(0) < 3;) {
                if (mono_ms() > deadline)
                        fail_msg("pad 0's press was not ACKed after several sends (last ACK: %u sends)",
                                 last_ack_sends(0));
                usleep(50000);
        }
        assert_int_equal(calls_in_log(id), calls + 1);
        stream_close(&st);
        abort_match(id);
}

/* A table's button map: at a second table, pad 3's buttons are rewired
 * (button 0 is "doesn't fit", button k is row 7 − k).  A press of the
 * button mapped to the legal row makes that call, whatever the pad's own
 * numbering says; a button the map leaves out makes no call. */
static void a_seats_button_map_decides_the_call(void **state) {
        static const char *const judged[] = { "call_judged", NULL };
        struct http_reply r;
        struct stream st;
        char body[512];
        size_t at = 0;
        (void) state;

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\", \"buttons\": "
                 "{\"0\": \"doesnt-fit\", \"1\": \"row 6\", \"2\": \"row-5\", \"3\": \"Row 4\", \"4\": \"row 3\", "
                 "\"5\": \"row 2\", \"6\": \"row 1\"}}, {\"seat\": 2}]}", unique_name("mapped"), pad_ids[3]);
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        json_int_t tid = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);

        /* a name that is no call of any game is refused, naming the button */
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"buttons\": {\"2\": \"row 9\"}}]}",
                 unique_name("badmap"));
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 400);
        assert_non_null(strstr(r.body, "seats[0].buttons.2"));
        http_reply_done(&r);

        /* a stream of a match that does not exist is a 404, not a quiet stream */
        http_get(&daemon_, "/v1/matches/987654321/events", NULL, &r);
        expect(&r, 404);
        http_reply_done(&r);

        json_int_t id = start_match(tid, "\"Dee\", \"Eve\"", &st);
        json_t *v = cp_wait_window(public_view, id, 0);
        int call = cp_pick_call(v, false);
        json_decref(v);
        int button = call == CP_DOESNT_FIT_CALL ? 0 : 7 - call;
        press(3, button, 1000);
        const struct event *ev = next_event(&st, &at, judged);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "seat")), 1);
        assert_int_equal(json_integer_value(json_object_get(ev->data, "call")), call);
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        stream_close(&st);
        abort_match(id);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(presses_on_the_pads_are_judged_into_calls),
                cmocka_unit_test(a_press_is_acked_only_once_its_call_is_stored),
                cmocka_unit_test(a_seats_button_map_decides_the_call),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
