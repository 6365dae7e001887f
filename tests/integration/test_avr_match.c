/* Crash Pilot on the real firmware: a two-seat table whose seats are two
 * emulated ATmega328P pads (tests/avr/avrpad, firmware/pad.elf), each on
 * its own pty with its own crystal error.
 *
 * The first-press judge (docs/judge.md) takes the presses as the pads
 * stamped them: of two presses 3 ms apart the earlier wins, whichever pad
 * makes it; two pads pressing in the same microsecond are a tie and start
 * a tiebreak, and every call or tie agrees with the times and
 * uncertainties GET /v1/presses reports ("The tie set").  The verdicts come
 * back to the pins: a correct call lights the button that made it, a wrong
 * one sounds the buzzer, a tie blinks the tied pads' lights.  A pad whose
 * chip is reset mid-match comes back as itself and plays on.  And a whole
 * match is played to its end on the pads.
 *
 * Timing goes through signals only (an event, a state the daemon shows, a
 * line a pad prints); nothing here measures how long anything took. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/avr_stage.h"
#include "tests/integration/avrpad_proc.h"
#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

/* As test_avr_pads.c: the firmware's speed counted on the ptys, and a
 * generous settle window. */
static const char config_text[] =
        "[pads]\n"
        "baud = 1000000\n"
        "pty_wire_time = yes\n"
        "settle_window = 50000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* uids no other test uses ("AVR" and a serial) */
#define UID_BASE        UINT64_C(0x4156520000000020)
#define N_PADS          2
static const int crystal_ppm[N_PADS] = { -45, 25 };

/* A Crash Pilot pad's button b calls row b + 1; button 6 is "doesn't fit"
 * (docs/protocol.md section 7). */
#define DOESNT_FIT_BUTTON       6
/* The judge's tie window (docs/judge.md, "Configuration"): two presses
 * closer than this, or than their combined uncertainty, tie. */
#define TIE_WINDOW_US           100

static struct avr_stage stage;
/* Presses each pad made (printed), for the daemon's counters. */
static unsigned made[N_PADS];
static json_int_t table_id;

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_int_t jint(json_t *o, const char *key) {
        json_t *v = json_object_get(o, key);

        if (!json_is_integer(v))
                fail_msg("no integer member %s", key);
        return json_integer_value(v);
}

static int setup(void **state) {
        struct http_reply r;
        char body[512];
        (void) state;

        const char *const args[] = { "--trace", NULL };
        avr_stage_start(&stage, N_PADS, UID_BASE, crystal_ppm, args, config_text);
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\"}, "
                 "{\"seat\": 2, \"pad\": \"%s\"}]}", unique_name("avrtable"), stage.ids[0], stage.ids[1]);
        http_post_json(&stage.daemon, "/v1/tables", stage.admin_token, body, &r);
        expect(&r, 201);
        table_id = jint(r.json, "id");
        http_reply_done(&r);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        avr_stage_stop(&stage);
        return 0;
}

/* ---- the match --------------------------------------------------------- */

static json_t *match_of(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&stage.daemon, path, NULL, &r);
        expect(&r, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

/* The public view of match id (a new reference), for cp_wait_window. */
static json_t *public_view(json_int_t id) {
        json_t *m = match_of(id), *v = json_incref(json_object_get(m, "view"));
        json_decref(m);
        return v;
}

/* The button of a legal call on the face-up card (or, with want_wrong, a
 * wrong one). */
static unsigned pick_button(json_t *v, bool want_wrong) {
        int c = cp_pick_call(v, want_wrong);
        return c == CP_DOESNT_FIT_CALL ? DOESNT_FIT_BUTTON : (unsigned) c - 1;
}

/* Creates and starts a two-seat Crash Pilot match at the table (the
 * verdict pause longer than the judge's 250 ms cooldown, so that a seat's
 * next press always counts; no card expires during a test); opens st on
 * its events. */
static json_int_t start_match(struct stream *st) {
        struct http_reply r;
        char path[96], body[256];

        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ada\", \"Bo\"], "
                 "\"seed\": 5, \"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 120000}}}",
                 (long long) table_id);
        http_post_json(&stage.daemon, "/v1/matches", stage.referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = jint(r.json, "id");
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(st, stage.daemon.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&stage.daemon, path, stage.referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        return id;
}

static void abort_match(json_int_t id) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        http_post_json(&stage.daemon, path, stage.referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
}

/* The next event at or after *from named one of names. */
static const struct event *next_event(struct stream *st, size_t *from, const char *const *names) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                for (size_t i = *from; i < st->n_events; i++)
                        for (const char *const *n = names; *n; n++)
                                if (strcmp(st->events[i].name, *n) == 0) {
                                        *from = i + 1;
                                        return &st->events[i];
                                }
                if (st->done || mono_ms() > deadline)
                        fail_msg("no %s event came after #%zu", names[0], *from);
                pump(st, 50);
        }
}

/* What decided a window: a judged call or a tie. */
static const char *const decisions[] = { "call_judged", "tiebreak_started", NULL };

/* ---- presses ------------------------------------------------------------ */

struct reported {
        int64_t time_us, uncertainty_us;
};

/* The press of pad i on button b after seq after, as /v1/presses reports
 * it. */
static struct reported reported_press(json_int_t after, unsigned i, unsigned b) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *items = avr_stage_presses(&stage, after, 1);
                size_t k;
                json_t *it;

                json_array_foreach(items, k, it)
                        if (strcmp(json_string_value(json_object_get(it, "pad")), stage.ids[i]) == 0 &&
                            jint(it, "button") == b) {
                                struct reported r = { jint(it, "time_us"), jint(it, "uncertainty_us") };
                                json_decref(items);
                                return r;
                        }
                json_decref(items);
                if (mono_ms() > deadline)
                        fail_msg("pad %u's press of button %u is not in /v1/presses", i, b);
                usleep(50000);
        }
}

/* Pads 0 and 1 press buttons b0 and b1, pad 1 delta µs after pad 0 (before
 * it when negative).  False when a pad refused its press (the machine was
 * too slow for the lead): whatever the other did, the caller goes on from
 * the window's decision.  ret (may be NULL) gets what the daemon reported. */
static bool press_pair(unsigned b0, unsigned b1, int64_t delta, json_int_t after, struct reported ret[N_PADS]) {
        size_t mark[N_PADS];
        int64_t base = avr_stage_soon(), h[N_PADS];

        avr_stage_schedule(&stage, 0, b0, base, 50000, &mark[0]);
        avr_stage_schedule(&stage, 1, b1, base + delta, 50000, &mark[1]);
        h[0] = avr_stage_pressed(&stage, 0, b0, &mark[0]);
        h[1] = avr_stage_pressed(&stage, 1, b1, &mark[1]);
        for (unsigned i = 0; i < N_PADS; i++)
                made[i] += h[i] >= 0;
        if (h[0] < 0 || h[1] < 0)
                return false;
        if (ret)
                for (unsigned i = 0; i < N_PADS; i++) {
                        ret[i] = reported_press(after, i, i ? b1 : b0);
                        /* as test_avr_pads.c checks at length */
                        if (llabs(ret[i].time_us - h[i]) > ret[i].uncertainty_us)
                                fail_msg("pad %u's press at host µs %" PRId64 " was reported at %" PRId64
                                         ", outside its uncertainty %" PRId64, i, h[i], ret[i].time_us,
                                         ret[i].uncertainty_us);
                }
        return true;
}

/* Pad i taps button b (avr_stage_tap), counted. */
static void tap(unsigned i, unsigned b) {
        avr_stage_tap(&stage, i, b);
        made[i]++;
}

/* docs/judge.md, "The tie set": from the reported times, is this a tie? */
static bool reported_tie(const struct reported r[N_PADS]) {
        int64_t gap = llabs(r[1].time_us - r[0].time_us), u = r[0].uncertainty_us + r[1].uncertainty_us;
        return gap <= (u > TIE_WINDOW_US ? u : TIE_WINDOW_US);
}

/* ---- the tests ---------------------------------------------------------- */

/* Of two presses 3 ms apart (far beyond their uncertainties) the earlier
 * wins, pad 0's then pad 1's; two presses in the same microsecond tie, and
 * so do two 60 µs apart when the daemon's reports put them within reach of
 * each other (else the earlier by the reports wins): every decision agrees
 * with what /v1/presses reports. */
static void the_judge_orders_what_it_can_and_ties_the_rest(void **state) {
        static const struct {
                int64_t delta;          /* pad 1's press after pad 0's */
                const char *what;
        } rounds[] = {
                { 3000, "pad 0 first by 3 ms" },
                { -3000, "pad 1 first by 3 ms" },
                { 0, "both in the same microsecond" },
                { 60, "pad 1 60 µs after pad 0" },
        };
        struct stream st;
        size_t at = 0;
        json_int_t w = 0;
        bool tiebreak = false;
        (void) state;

        json_int_t id = start_match(&st);
        for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
                struct reported rep[N_PADS];
                json_t *v = cp_wait_window(public_view, id, w);
                unsigned b = pick_button(v, false);
                json_int_t after = avr_stage_press_seq(&stage);

                w = cp_window_id(v);
                json_decref(v);
                /* a tiebreak's card: only the tied seats, both of them here */
                bool done = press_pair(b, b, rounds[r].delta, after, rep);
                const struct event *ev = next_event(&st, &at, decisions);
                if (!done) {
                        r--;            /* again, in the next window */
                        continue;
                }
                bool tie = strcmp(ev->name, "tiebreak_started") == 0;
                print_message("# %s: reported %+" PRId64 " µs apart (uncertainties %" PRId64 " + %" PRId64
                              "): %s\n", rounds[r].what, rep[1].time_us - rep[0].time_us, rep[0].uncertainty_us,
                              rep[1].uncertainty_us, tie ? "a tie" : "a call");
                if (tie != reported_tie(rep))
                        fail_msg("%s: the judge called %s, but the reported times %+" PRId64 " µs apart with "
                                 "uncertainties %" PRId64 " + %" PRId64 " make %s", rounds[r].what,
                                 tie ? "a tie" : "a winner", rep[1].time_us - rep[0].time_us, rep[0].uncertainty_us,
                                 rep[1].uncertainty_us, tie ? "a winner" : "a tie");
                if (tie) {
                        json_t *seats = json_object_get(ev->data, "seats");
                        assert_int_equal(json_array_size(seats), 2);
                        assert_int_equal(json_integer_value(json_array_get(seats, 0)), 1);
                        assert_int_equal(json_integer_value(json_array_get(seats, 1)), 2);
                        tiebreak = true;
                } else {
                        json_int_t seat = jint(ev->data, "seat");
                        json_int_t earlier = rep[0].time_us < rep[1].time_us ? 1 : 2;
                        assert_int_equal(seat, earlier);
                        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
                        tiebreak = false;
                }
                /* the presses 3 ms apart are never a tie and the injected
                 * order wins; the same microsecond is always a tie, as the
                 * reports are within their uncertainties */
                if (rounds[r].delta == 3000 || rounds[r].delta == -3000) {
                        assert_false(tie);
                        assert_int_equal(jint(ev->data, "seat"), rounds[r].delta > 0 ? 1 : 2);
                } else if (rounds[r].delta == 0) {
                        assert_true(tie);
                }
        }
        (void) tiebreak;
        stream_close(&st);
        abort_match(id);
}


/* Waits for pad i to print needle after *mark (the mark moves past it). */
static void pad_prints(unsigned i, size_t *mark, const char *needle) {
        char line[256];

        avrpad_expect(&stage.pads[i], mark, needle, line, sizeof line);
}

/* Crash Pilot's feedback (docs/games/crash-pilot.md, "Pads") reaches the
 * pins: a correct call lights the button that made it and puts it out
 * again (1000 ms); a wrong call sounds the buzzer (400 ms) and stops it; a
 * tie blinks every light of both tied pads. */
static void lights_and_buzzer_reach_the_pins(void **state) {
        struct stream st;
        size_t at = 0, mark[N_PADS];
        json_int_t w = 0;
        char needle[32];
        (void) state;

        json_int_t id = start_match(&st);

        /* seat 1 calls right: pad 0's light of that button, on then off */
        json_t *v = cp_wait_window(public_view, id, w);
        unsigned b = pick_button(v, false);
        w = cp_window_id(v);
        json_decref(v);
        mark[0] = avrpad_mark(&stage.pads[0]);
        tap(0, b);
        const struct event *ev = next_event(&st, &at, decisions);
        assert_string_equal(ev->name, "call_judged");
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        snprintf(needle, sizeof needle, "] light %u on", b);
        pad_prints(0, &mark[0], needle);
        snprintf(needle, sizeof needle, "] light %u off", b);
        pad_prints(0, &mark[0], needle);

        /* seat 2 calls wrong: pad 1's buzzer, on then off */
        v = cp_wait_window(public_view, id, w);
        b = pick_button(v, true);
        w = cp_window_id(v);
        json_decref(v);
        mark[1] = avrpad_mark(&stage.pads[1]);
        tap(1, b);
        ev = next_event(&st, &at, decisions);
        assert_string_equal(ev->name, "call_judged");
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "wrong");
        pad_prints(1, &mark[1], "] buzzer on");
        pad_prints(1, &mark[1], "] buzzer off");

        /* both at once: a tie, and every light of both pads blinks (on,
         * off, on again) */
        for (;;) {
                v = cp_wait_window(public_view, id, w);
                b = pick_button(v, false);
                w = cp_window_id(v);
                json_decref(v);
                for (unsigned i = 0; i < N_PADS; i++)
                        mark[i] = avrpad_mark(&stage.pads[i]);
                bool both = press_pair(b, b, 0, 0, NULL);
                ev = next_event(&st, &at, decisions);
                if (both)
                        break;
        }
        assert_string_equal(ev->name, "tiebreak_started");
        for (unsigned i = 0; i < N_PADS; i++)
                for (unsigned light = 0; light < 7; light++) {
                        size_t from = mark[i];

                        snprintf(needle, sizeof needle, "] light %u on", light);
                        pad_prints(i, &from, needle);
                        snprintf(needle, sizeof needle, "] light %u off", light);
                        pad_prints(i, &from, needle);
                        snprintf(needle, sizeof needle, "] light %u on", light);
                        pad_prints(i, &from, needle);
                }
        stream_close(&st);
        abort_match(id);
}

/* The chip's reset pin pulled mid-match (avrpad's reset: the power stays,
 * so do the EEPROM and the uid): the firmware starts over and says HELLO
 * from address 0; the daemon knows the pad — the same one in GET /v1/pads
 * (no other appears), the same address again, its clock synced anew — and
 * the match goes on: the pad's next presses, numbered from 0 again, are
 * judged into its seat's calls. */
static void a_pad_reset_mid_match_keeps_its_identity(void **state) {
        struct stream st;
        size_t at = 0, mark;
        json_int_t w = 0;
        char line[256], needle[64];
        (void) state;

        json_int_t id = start_match(&st);
        json_t *v = cp_wait_window(public_view, id, w);
        unsigned b = pick_button(v, false);
        w = cp_window_id(v);
        json_decref(v);
        tap(0, b);
        const struct event *ev = next_event(&st, &at, decisions);
        assert_int_equal(jint(ev->data, "seat"), 1);

        json_t *pad = avr_stage_pad(&stage, 0);
        json_int_t address = jint(pad, "address");
        json_decref(pad);
        mark = avrpad_mark(&stage.pads[0]);
        avrpad_send(&stage.pads[0], "reset");
        avrpad_expect(&stage.pads[0], &mark, "] reset host_us ", line, sizeof line);
        avrpad_expect(&stage.pads[0], &mark, "pad>  addr 0 seq 0 type 0x01 ", line, sizeof line);
        avrpad_expect(&stage.pads[0], &mark, " type 0x81 ", line, sizeof line);
        snprintf(needle, sizeof needle, "pad>  addr %lld ", (long long) address);
        avrpad_expect(&stage.pads[0], &mark, needle, line, sizeof line);
        avr_stage_wait_synced(&stage);

        /* the same two pads, the reset one at its address */
        struct http_reply r;
        size_t i, ours = 0;
        json_t *it;
        http_get(&stage.daemon, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, it) {
                const char *pid = json_string_value(json_object_get(it, "id"));
                ours += strcmp(pid, stage.ids[0]) == 0 || strcmp(pid, stage.ids[1]) == 0;
                if (strcmp(pid, stage.ids[0]) == 0)
                        assert_int_equal(jint(it, "address"), address);
        }
        http_reply_done(&r);
        assert_int_equal(ours, N_PADS);

        /* the match goes on, on the reset pad's presses */
        for (int k = 0; k < 2; k++) {
                v = cp_wait_window(public_view, id, w);
                b = pick_button(v, false);
                w = cp_window_id(v);
                json_decref(v);
                tap(0, b);
                ev = next_event(&st, &at, decisions);
                assert_string_equal(ev->name, "call_judged");
                assert_int_equal(jint(ev->data, "seat"), 1);
                assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        }
        json_t *m = match_of(id);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "running");
        json_decref(m);
        stream_close(&st);
        abort_match(id);
}

/* A whole match on the pads, to its end: seat 1 (pad 0) calls right, seat
 * 2 (pad 1) once wrong; both press at once and tie, and seat 2 wins the
 * tiebreak; seat 1 then calls right until its stack is out (13 cards for
 * two players) and wins.  Every call and the tie came from the pads, the
 * daemon counted each press once (however often the pad sent it before
 * its ACK, which waits for the call to be stored), and the result names
 * seat 1. */
static void a_whole_match_is_played_on_the_pads(void **state) {
        struct stream st;
        size_t at = 0;
        json_int_t w = 0;
        bool tied = false, tiebreak_won = false, wrong = false;
        unsigned calls = 0, windows = 0;
        (void) state;

        json_int_t before[N_PADS];
        for (unsigned i = 0; i < N_PADS; i++) {
                before[i] = avr_stage_counter(&stage, i, "presses");
                made[i] = 0;
        }
        json_int_t id = start_match(&st);
        for (;;) {
                /* the decision before this was stored before its event came */
                json_t *m = match_of(id);
                const char *st_name = json_string_value(json_object_get(m, "state"));
                bool over = st_name && strcmp(st_name, "finished") == 0;
                json_decref(m);
                if (over)
                        break;
                if (++windows > 40)
                        fail_msg("the match did not end in 40 windows");

                json_t *v = cp_wait_window(public_view, id, w);
                unsigned right = pick_button(v, false), wrong_b = pick_button(v, true);
                w = cp_window_id(v);
                json_decref(v);
                const struct event *ev;
                if (tied && !tiebreak_won) {
                        tap(1, right);
                        ev = next_event(&st, &at, decisions);
                        assert_int_equal(jint(ev->data, "seat"), 2);
                        tiebreak_won = true;
                } else if (calls >= 3 && !tied) {
                        bool both = press_pair(right, right, 0, 0, NULL);
                        ev = next_event(&st, &at, decisions);
                        if (both) {
                                assert_string_equal(ev->name, "tiebreak_started");
                                tied = true;
                        }
                } else if (calls >= 5 && !wrong) {
                        tap(1, wrong_b);
                        ev = next_event(&st, &at, decisions);
                        assert_int_equal(jint(ev->data, "seat"), 2);
                        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "wrong");
                        wrong = true;
                } else {
                        tap(0, right);
                        ev = next_event(&st, &at, decisions);
                        assert_int_equal(jint(ev->data, "seat"), 1);
                        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
                }
                if (strcmp(ev->name, "call_judged") == 0)
                        calls++;
        }
        static const char *const finished[] = { "match_finished", NULL };
        const struct event *ev = next_event(&st, &at, finished);
        assert_int_equal(jint(ev->data, "winner"), 1);
        assert_true(tied && tiebreak_won && wrong);

        /* the stored log: the start (the referee's), then every call and
         * the tie from the pads */
        struct http_reply r;
        char path[96];
        size_t i, pad_inputs = 0;
        json_t *it;
        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&stage.daemon, path, stage.referee_token, &r);
        expect(&r, 200);
        json_array_foreach(json_object_get(r.json, "items"), i, it) {
                const char *kind = json_string_value(json_object_get(it, "kind"));
                if (strcmp(kind, "call") == 0 || strcmp(kind, "tie") == 0) {
                        assert_string_equal(json_string_value(json_object_get(it, "source")), "pad");
                        pad_inputs++;
                }
        }
        http_reply_done(&r);
        assert_int_equal(pad_inputs, calls + 1);
        /* the driver counts a press once its settle window has passed */
        for (unsigned k = 0; k < N_PADS; k++) {
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
                     avr_stage_counter(&stage, k, "presses") - before[k] < made[k] && mono_ms() < deadline;)
                        usleep(50000);
                assert_int_equal(avr_stage_counter(&stage, k, "presses") - before[k], made[k]);
        }
        print_message("# the match took %u windows: %u calls and a tie, all from the pads\n", windows, calls);
        stream_close(&st);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_judge_orders_what_it_can_and_ties_the_rest),
                cmocka_unit_test(lights_and_buzzer_reach_the_pins),
                cmocka_unit_test(a_pad_reset_mid_match_keeps_its_identity),
                cmocka_unit_test(a_whole_match_is_played_on_the_pads),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
