/* tests/integration/avr_checks.c — see avr_checks.h. */
#define _GNU_SOURCE
#include "tests/integration/avr_checks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/sse_client.h"

/* A Crash Pilot pad's button b calls row b + 1; button 6 is "doesn't fit"
 * (docs/protocol.md section 7). */
#define DOESNT_FIT_BUTTON       6
/* The judge's tie window (docs/judge.md, "Configuration"): two presses
 * closer than this, or than their combined uncertainty, tie. */
#define TIE_WINDOW_US           100

/* The stage of the check running (for cp_wait_window's callback) and the
 * table the match checks play at. */
static struct avr_stage *S;
static json_int_t table_id;
/* Presses each pad made (printed), for the daemon's counters. */
static unsigned made[AVR_STAGE_MAX_PADS];

static json_int_t jint(json_t *o, const char *key) {
        json_t *v = json_object_get(o, key);

        if (!json_is_integer(v))
                fail_msg("no integer member %s", key);
        return json_integer_value(v);
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static bool is_pad(json_t *press, unsigned i) {
        return strcmp(json_string_value(json_object_get(press, "pad")), S->ids[i]) == 0;
}

/* The next line pad i's process prints after *mark that contains needle
 * (after the pad's tag when tagged: the pad's own lines, not the line's)
 * and also (NULL: anything); *mark moves past it.  Lines that contain the
 * needle but not also are passed over, until deadline (mono_ms): then the
 * test fails, naming what it waited for. */
static void expect_line(unsigned i, size_t *mark, bool tagged, const char *needle, const char *also, int64_t deadline,
                        char *line, size_t size) {
        struct avrpad_proc *p = avr_stage_proc(S, i);
        char full[128], buf[256];

        if (!line) {
                line = buf;
                size = sizeof buf;
        }
        snprintf(full, sizeof full, "%s%s", tagged ? S->tag[i] : "", needle);
        for (;;) {
                int64_t left = deadline - mono_ms();

                if (left < 0 || !avrpad_wait(p, mark, full, (int) left, line, size))
                        fail_msg("pad %u printed no \"%s\"%s%s%s in time; see %s", i, full, also ? " with \"" : "",
                                 also ? also : "", also ? "\"" : "", p->out_path);
                if (!also || strstr(line, also))
                        return;
        }
}

static int64_t deadline_ms(void) {
        return mono_ms() + HARNESS_WAIT_MS;
}

/* ---- the line ------------------------------------------------------------ */

/* Waits for the host's ASSIGN of pad i's uid after *mark: "type 0x81" and
 * the uid as it carries it (little-endian).  On a bus every pad hears it:
 * any pad's line of it will do. */
static void expect_assign(unsigned i, size_t *mark) {
        char uid[40];
        size_t u = (size_t) snprintf(uid, sizeof uid, " type 0x81");

        for (int b = 7; b >= 0; b--)
                u += (size_t) snprintf(uid + u, sizeof uid - u, " %.2s", S->ids[i] + 2 * b);
        expect_line(i, mark, false, "host> addr 255 seq ", uid, deadline_ms(), NULL, 0);
}

void avr_check_discovery(struct avr_stage *s) {
        struct http_reply r;
        size_t k;
        json_t *port;
        unsigned timed = 0;
        json_int_t addresses[AVR_STAGE_MAX_PADS];

        S = s;
        /* each pty counts its air time at 1 Mbaud, as configured; a bus is
         * polled */
        http_get(&s->daemon, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "ports"), k, port) {
                assert_true(json_is_true(json_object_get(port, "pseudo_terminal")));
                timed += json_is_true(json_object_get(port, "wire_time"));
                if (s->line == AVR_LINE_BUS) {
                        json_t *polling = json_object_get(port, "polling");
                        assert_true(json_is_true(json_object_get(port, "rs485")));
                        assert_true(jint(polling, "polls") > 0);
                        assert_true(jint(polling, "discoveries") > 0);
                }
        }
        assert_int_equal(timed, s->n_procs);
        http_reply_done(&r);

        for (unsigned i = 0; i < s->n_pads; i++) {
                json_t *p = avr_stage_pad(s, i), *clock = json_object_get(p, "clock");
                struct avrpad_proc *proc = avr_stage_proc(s, i);
                char needle[64], line[256];
                size_t at = 0;

                assert_string_equal(json_string_value(json_object_get(p, "kind")), "buttons");
                assert_int_equal(jint(p, "buttons"), 7);
                assert_string_equal(json_string_value(json_object_get(p, "firmware")), "1.0");
                assert_string_equal(json_string_value(json_object_get(p, "port")), proc->pty);
                assert_true(json_is_true(json_object_get(p, "connected")));
                json_int_t address = addresses[i] = jint(p, "address");
                assert_true(address >= 1 && address <= 247);
                for (unsigned j = 0; j < i; j++)
                        if (s->line == AVR_LINE_BUS)
                                assert_true(addresses[j] != address);
                assert_int_equal(jint(clock, "hz"), 2000000);
                assert_true(json_is_true(json_object_get(clock, "synced")));
                assert_true(jint(clock, "uncertainty_us") > 0);
                json_decref(p);

                /* --trace: the pad's HELLO from address 0, the host's ASSIGN
                 * of its uid, then its frames from the address the daemon
                 * shows, and none from 0 after that */
                avr_stage_expect(s, i, &at, "pad>  addr 0 seq 0 type 0x01 ", line, sizeof line);
                expect_assign(i, &at);
                snprintf(needle, sizeof needle, "pad>  addr %lld ", (long long) address);
                avr_stage_expect(s, i, &at, needle, line, sizeof line);
                snprintf(needle, sizeof needle, "%spad>  addr 0 ", s->tag[i]);
                assert_int_equal(avrpad_count(proc, at, needle), 0);
                /* the status light went on and stayed on */
                size_t on = 0;
                avr_stage_expect(s, i, &on, "status on", line, sizeof line);
                snprintf(needle, sizeof needle, "%sstatus ", s->tag[i]);
                while (avrpad_wait(proc, &on, needle, 0, line, sizeof line))
                        ;
                assert_non_null(strstr(line, "status on"));
        }
}

void avr_check_press_times(struct avr_stage *s, unsigned presses) {
        int64_t injected[64];
        json_int_t after = avr_stage_press_seq(s);
        int64_t worst = 0;
        double worst_share = 0;

        S = s;
        assert_true(presses <= 64);
        for (unsigned k = 0; k < presses; k++)
                injected[k] = avr_stage_press(s, k % s->n_pads, k % 7, avr_stage_soon());
        json_t *items = avr_stage_presses(s, after, presses);
        assert_int_equal(json_array_size(items), presses);
        for (unsigned k = 0; k < presses; k++) {
                unsigned pad = k % s->n_pads, nth = 0;
                json_t *p = NULL, *it;
                size_t i;

                /* pad's (k / n)th press since after */
                json_array_foreach(items, i, it)
                        if (is_pad(it, pad) && nth++ == k / s->n_pads)
                                p = it;
                assert_non_null(p);
                assert_int_equal(jint(p, "button"), k % 7);
                assert_false(json_is_true(json_object_get(p, "clock_fallback")));
                int64_t err = jint(p, "time_us") - injected[k], u = jint(p, "uncertainty_us");
                if (llabs(err) > u)
                        fail_msg("pad %u's press %u, injected at host µs %" PRId64 ", was reported at %lld: %" PRId64
                                 " µs off, outside its uncertainty of %" PRId64 " µs",
                                 pad, k, injected[k], (long long) jint(p, "time_us"), err, u);
                if (llabs(err) > llabs(worst))
                        worst = err;
                if ((double) llabs(err) / (double) u > worst_share)
                        worst_share = (double) llabs(err) / (double) u;
        }
        print_message("# %u presses: the largest error %" PRId64 " µs, at most %.0f %% of the uncertainty claimed\n",
                      presses, worst, worst_share * 100);
        json_decref(items);
}

void avr_check_order(struct avr_stage *s, unsigned a, unsigned b) {
        static const int64_t deltas[] = { 3000, -3000, 1000, -1000, 400, -400, 150, -150, 40, -40, 0 };
        enum { ROUNDS = sizeof deltas / sizeof deltas[0] };
        const unsigned pads[2] = { a, b }, buttons[2] = { 1, 2 };
        json_int_t first = avr_stage_press_seq(s);
        unsigned ordered = 0, within = 0, refusals = 0;

        S = s;
        for (size_t r = 0; r < ROUNDS; r++) {
                int64_t h[2], t[2], u[2], base = avr_stage_soon();
                json_int_t after = avr_stage_press_seq(s);
                size_t mark[2];
                bool refused = false;

                for (unsigned i = 0; i < 2; i++)
                        avr_stage_schedule(s, pads[i], buttons[i], base + (i ? deltas[r] : 0), 50000, &mark[i]);
                for (unsigned i = 0; i < 2; i++)
                        refused |= (h[i] = avr_stage_pressed(s, pads[i], buttons[i], &mark[i])) < 0;
                if (refused) {
                        /* the machine was too slow for the lead: again */
                        if (++refusals == AVR_STAGE_TRIES)
                                fail_msg("%u pairs of presses came after their time", refusals);
                        r--;
                        continue;
                }
                json_t *items = avr_stage_presses(s, after, 2);
                for (unsigned i = 0; i < 2; i++) {
                        size_t k;
                        json_t *it, *p = NULL;

                        json_array_foreach(items, k, it)
                                if (is_pad(it, pads[i]) && jint(it, "button") == buttons[i])
                                        p = it;
                        assert_non_null(p);
                        t[i] = jint(p, "time_us");
                        u[i] = jint(p, "uncertainty_us");
                }
                json_decref(items);

                int64_t injected = h[1] - h[0], reported = t[1] - t[0];
                print_message("# pad %u %+" PRId64 " µs after pad %u: injected %+" PRId64 ", reported %+" PRId64
                              " (uncertainties %" PRId64 " + %" PRId64 ")\n",
                              b, deltas[r], a, injected, reported, u[0], u[1]);
                /* the judge's threshold (docs/judge.md, "The tie set") */
                int64_t tie = u[0] + u[1] > TIE_WINDOW_US ? u[0] + u[1] : TIE_WINDOW_US;
                bool reversed = (injected > 0 && reported < 0) || (injected < 0 && reported > 0);
                if (reversed && llabs(reported) > tie)
                        fail_msg("presses %+" PRId64 " µs apart were reported %+" PRId64 " µs apart: the wrong "
                                 "order, beyond their combined uncertainty %" PRId64 " µs",
                                 injected, reported, u[0] + u[1]);
                if (llabs(deltas[r]) >= 3000)
                        assert_false(reversed || reported == 0);
                if (llabs(reported) > tie)
                        ordered++;
                else
                        within++;
        }
        print_message("# %u pairs ordered beyond their uncertainty, %u within it (a tie for the judge)\n", ordered,
                      within);

        /* the listing is in reported-time order, and nothing came late */
        json_t *items = avr_stage_presses(s, first, 2 * ROUNDS);
        size_t k;
        json_t *it;
        json_int_t prev = 0;
        json_array_foreach(items, k, it) {
                if (jint(it, "time_us") < prev || json_is_true(json_object_get(it, "late"))) {
                        char *text = json_dumps(items, JSON_COMPACT);
                        fail_msg("GET /v1/presses lists press #%zu out of pad-time order or late: %s", k, text);
                }
                prev = jint(it, "time_us");
        }
        json_decref(items);
}

/* --trace: the pending events of pad i's next HEARTBEAT from (its "pad>
 * addr A seq ") after *mark: pad_time(4) pending(2) rx_errors(2). */
static unsigned next_heartbeat_pending(unsigned i, const char *from, size_t *mark, int64_t deadline) {
        char line[256];
        unsigned b[8];

        expect_line(i, mark, true, from, " type 0x05 ", deadline, line, sizeof line);
        const char *at = strstr(line, " type 0x05 ") + strlen(" type 0x05 ");
        if (sscanf(at, "%x %x %x %x %x %x %x %x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7]) != 8)
                fail_msg("a HEARTBEAT the harness printed oddly: %s", line);
        return b[4] | b[5] << 8;
}

void avr_check_lost_frames(struct avr_stage *s) {
        static const struct {
                const char *command, *printed, *type;
        } losses[] = {
                { "drop out 1 PRESS", "dropped out frame addr ", " type 0x02 " },
                { "drop in 1 ACK", "dropped in frame addr ", " type 0x82 " },
        };

        S = s;
        for (unsigned k = 0; k < sizeof losses / sizeof losses[0]; k++) {
                const unsigned pad = k % s->n_pads, button = 3;
                json_int_t after = avr_stage_press_seq(s);
                json_int_t presses = avr_stage_counter(s, pad, "presses");
                json_int_t duplicates = avr_stage_counter(s, pad, "duplicates");
                json_t *p = avr_stage_pad(s, pad);
                json_int_t address = jint(p, "address");
                char line[256], from[48], press[48];
                size_t start = avr_stage_mark(s, pad), dropped = start, sent = start;
                int64_t deadline = deadline_ms();

                json_decref(p);
                avr_stage_send(s, pad, "%s", losses[k].command);
                avr_stage_tap(s, pad, button);
                expect_line(pad, &dropped, true, losses[k].printed, losses[k].type, deadline, line, sizeof line);

                json_t *items = avr_stage_presses(s, after, 1);
                json_t *it = json_array_get(items, 0);
                assert_true(is_pad(it, pad));
                assert_int_equal(jint(it, "button"), button);
                json_int_t event_no = jint(it, "event_no");
                json_decref(items);

                /* the pad sent the PRESS again: twice in all at least (when
                 * the ACK is slow, the second may come before the ACK that
                 * was lost), and after the PRESS that was lost */
                snprintf(from, sizeof from, "pad>  addr %lld seq ", (long long) address);
                snprintf(press, sizeof press, " type 0x02 %02x %02x %02x ", (unsigned) (event_no & 0xff),
                         (unsigned) (event_no >> 8 & 0xff), button);
                expect_line(pad, &sent, true, from, press, deadline, line, sizeof line);
                expect_line(pad, &sent, true, from, press, deadline, line, sizeof line);
                if (k == 0) {
                        size_t again = dropped;
                        expect_line(pad, &again, true, from, press, deadline, line, sizeof line);
                }
                /* until an ACK reached it: a HEARTBEAT with nothing pending */
                size_t beat = sent > dropped ? sent : dropped;
                while (next_heartbeat_pending(pad, from, &beat, deadline) != 0)
                        ;
                if (k == 1)
                        assert_true(avr_stage_counter(s, pad, "duplicates") > duplicates);

                /* delivered once */
                items = avr_stage_presses(s, after, 1);
                assert_int_equal(json_array_size(items), 1);
                json_decref(items);
                for (int64_t d = deadline_ms(); avr_stage_counter(s, pad, "presses") == presses && mono_ms() < d;)
                        usleep(20000);
                assert_int_equal(avr_stage_counter(s, pad, "presses"), presses + 1);
                print_message("# %s: resent, delivered once (%lld duplicates seen)\n", losses[k].command,
                              (long long) (avr_stage_counter(s, pad, "duplicates") - duplicates));
        }
}

/* ---- the match ----------------------------------------------------------- */

void avr_table_make(struct avr_stage *s) {
        struct http_reply r;
        char body[1024];
        size_t n;

        n = (size_t) snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [", unique_name("avrtable"));
        for (unsigned i = 0; i < s->n_pads; i++)
                n += (size_t) snprintf(body + n, sizeof body - n, "%s{\"seat\": %u, \"pad\": \"%s\"}", i ? ", " : "",
                                       i + 1, s->ids[i]);
        snprintf(body + n, sizeof body - n, "]}");
        http_post_json(&s->daemon, "/v1/tables", s->admin_token, body, &r);
        expect(&r, 201);
        table_id = jint(r.json, "id");
        http_reply_done(&r);
}

static json_t *match_of(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&S->daemon, path, NULL, &r);
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

/* Creates and starts a Crash Pilot match at the table, a seat for each pad
 * (the verdict pause longer than the judge's 250 ms cooldown, so that a
 * seat's next press always counts; no card expires during a check); opens
 * st on its events. */
static json_int_t start_match(struct stream *st) {
        static const char *const names[] = { "Ada", "Bo", "Cy", "Di" };
        struct http_reply r;
        char path[96], body[512], players[128] = "";

        for (unsigned i = 0; i < S->n_pads; i++)
                snprintf(players + strlen(players), sizeof players - strlen(players), "%s\"%s\"", i ? ", " : "",
                         names[i]);
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [%s], \"seed\": 5, "
                 "\"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 120000}}}", (long long) table_id,
                 players);
        http_post_json(&S->daemon, "/v1/matches", S->referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = jint(r.json, "id");
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(st, S->daemon.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&S->daemon, path, S->referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        return id;
}

static void abort_match(json_int_t id) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        http_post_json(&S->daemon, path, S->referee_token, "{}", &r);
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

struct reported {
        int64_t time_us, uncertainty_us;
};

/* The press of pad i on button b after seq after, as /v1/presses reports
 * it. */
static struct reported reported_press(json_int_t after, unsigned i, unsigned b) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *items = avr_stage_presses(S, after, 1);
                size_t k;
                json_t *it;

                json_array_foreach(items, k, it)
                        if (is_pad(it, i) && jint(it, "button") == b) {
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

/* Pads 0 and 1 press button b, pad 1 delta µs after pad 0 (before it when
 * negative).  False when a pad refused its press (the machine was too slow
 * for the lead): whatever the other did, the caller goes on from the
 * window's decision.  ret (may be NULL) gets what the daemon reported,
 * each press checked within its uncertainty. */
static bool press_pair(unsigned b, int64_t delta, json_int_t after, struct reported ret[2]) {
        size_t mark[2];
        int64_t base = avr_stage_soon(), h[2];

        for (unsigned i = 0; i < 2; i++)
                avr_stage_schedule(S, i, b, base + (i ? delta : 0), 50000, &mark[i]);
        for (unsigned i = 0; i < 2; i++) {
                h[i] = avr_stage_pressed(S, i, b, &mark[i]);
                made[i] += h[i] >= 0;
        }
        if (h[0] < 0 || h[1] < 0)
                return false;
        if (ret)
                for (unsigned i = 0; i < 2; i++) {
                        ret[i] = reported_press(after, i, b);
                        if (llabs(ret[i].time_us - h[i]) > ret[i].uncertainty_us)
                                fail_msg("pad %u's press at host µs %" PRId64 " was reported at %" PRId64
                                         ", outside its uncertainty %" PRId64, i, h[i], ret[i].time_us,
                                         ret[i].uncertainty_us);
                }
        return true;
}

/* Pad i taps button b (avr_stage_tap), counted. */
static void tap(unsigned i, unsigned b) {
        avr_stage_tap(S, i, b);
        made[i]++;
}

/* docs/judge.md, "The tie set": from the reported times, is this a tie? */
static bool reported_tie(const struct reported r[2]) {
        int64_t gap = llabs(r[1].time_us - r[0].time_us), u = r[0].uncertainty_us + r[1].uncertainty_us;
        return gap <= (u > TIE_WINDOW_US ? u : TIE_WINDOW_US);
}

/* The next window after w: its view (a new reference); *w moves to it. */
static json_t *next_window(json_int_t id, json_int_t *w) {
        json_t *v = cp_wait_window(public_view, id, *w);
        *w = cp_window_id(v);
        return v;
}

void avr_check_judge(struct avr_stage *s) {
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
        unsigned refusals = 0;

        S = s;
        json_int_t id = start_match(&st);
        for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
                struct reported rep[2];
                json_t *v = next_window(id, &w);
                unsigned b = pick_button(v, false);
                json_int_t after = avr_stage_press_seq(s);

                json_decref(v);
                /* after a tie the card is the tied seats', both of these */
                bool done = press_pair(b, rounds[r].delta, after, rep);
                const struct event *ev = next_event(&st, &at, decisions);
                if (!done) {
                        /* again, in the next window */
                        if (++refusals == AVR_STAGE_TRIES)
                                fail_msg("%u pairs of presses came after their time", refusals);
                        r--;
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
                } else {
                        assert_int_equal(jint(ev->data, "seat"), rep[0].time_us < rep[1].time_us ? 1 : 2);
                        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
                }
                /* 3 ms apart is never a tie and the injected order wins; the
                 * same microsecond is always a tie, the reports being within
                 * their uncertainties */
                if (llabs(rounds[r].delta) == 3000) {
                        assert_false(tie);
                        assert_int_equal(jint(ev->data, "seat"), rounds[r].delta > 0 ? 1 : 2);
                } else if (rounds[r].delta == 0) {
                        assert_true(tie);
                }
        }
        stream_close(&st);
        abort_match(id);
}

/* ---- the pins: what a LIGHT did to a lamp, on the pad's own clock ---- */

/* The emulated µs of the LIGHT (0x84) for pad i (at address) of button
 * (0xff: every button) in mode, at or after *mark: the host frame's line,
 * "host> addr A seq S type 0x84 BB MM DD DD" (on a bus the line's, stamped
 * with pad 0's clock: a few ms apart at most from pad i's over a test). */
static double light_frame(unsigned i, json_int_t address, unsigned button, unsigned mode, size_t *mark) {
        char needle[48], frame[32], line[256];

        snprintf(needle, sizeof needle, "host> addr %lld seq ", (long long) address);
        snprintf(frame, sizeof frame, " type 0x84 %02x %02x ", button, mode);
        expect_line(i, mark, false, needle, frame, deadline_ms(), line, sizeof line);
        return avrpad_emu_us(line);
}

/* Waits until pad i has printed a line stamped after emulated µs t (a pad
 * always prints: its frames with --trace, its DE on a bus). */
static void wait_past(unsigned i, double t) {
        char line[256];
        size_t mark = avr_stage_mark(S, i);
        int64_t deadline = deadline_ms();

        do
                expect_line(i, &mark, true, "", NULL, deadline, line, sizeof line);
        while (avrpad_emu_us(line) <= t);
}

/* Pad i's lamp b as its pins printed it: how many times it went on and off
 * in (from, to] emulated µs, and whether it was on at to (and at from). */
struct lamp {
        unsigned ons, offs;
        bool on_at_from, on_at_to;
};

static struct lamp lamp_between(unsigned i, unsigned b, double from, double to) {
        char on[48], off[48], line[256];
        const char *const needles[] = { on, off, NULL };
        struct lamp l = { 0 };
        size_t at = 0;
        int k;

        snprintf(on, sizeof on, "%slight %u on", S->tag[i], b);
        snprintf(off, sizeof off, "%slight %u off", S->tag[i], b);
        while ((k = avrpad_wait_any(avr_stage_proc(S, i), &at, needles, 0, line, sizeof line)) >= 0) {
                double t = avrpad_emu_us(line);
                if (t > to)
                        break;
                if (t <= from)
                        l.on_at_from = k == 0;
                else if (k == 0)
                        l.ons++;
                else
                        l.offs++;
                l.on_at_to = k == 0;
        }
        return l;
}

/* A LIGHT of lamp b at emulated µs t_light, on for duration_ms: lit a
 * moment after its frame came (by it, or still from before), never out
 * until its duration is nearly over, and out just after. */
static void expect_lit(unsigned i, unsigned b, double t_light, unsigned duration_ms) {
        double lit = t_light + 5000, end = t_light + duration_ms * 1000.0;
        struct lamp l = lamp_between(i, b, lit, end - 50000);

        if (!l.on_at_from || l.offs)
                fail_msg("pad %u's lamp %u: %s 5 ms after its LIGHT (at %.1f), %u times out during its %u ms", i, b,
                         l.on_at_from ? "on" : "off", t_light, l.offs, duration_ms);
        l = lamp_between(i, b, end - 50000, end + 100000);
        if (l.on_at_to)
                fail_msg("pad %u's lamp %u still on 100 ms after its LIGHT of %u ms (at %.1f) ran out", i, b,
                         duration_ms, t_light);
}

/* A LIGHT blinking every lamp at t_light for duration_ms: each lamp goes on
 * and off again and again meanwhile, and is out just after. */
static void expect_blinking(unsigned i, double t_light, unsigned duration_ms) {
        double end = t_light + duration_ms * 1000.0;

        for (unsigned b = 0; b < 7; b++) {
                struct lamp l = lamp_between(i, b, t_light, end);

                if (l.ons < 2 || l.offs < 2)
                        fail_msg("pad %u's lamp %u went on %u and off %u times in the %u ms of its blink (at %.1f)",
                                 i, b, l.ons, l.offs, duration_ms, t_light);
                l = lamp_between(i, b, end, end + 100000);
                if (l.on_at_to)
                        fail_msg("pad %u's lamp %u still on 100 ms after its blink ran out", i, b);
        }
}

void avr_check_lights_and_buzzer(struct avr_stage *s) {
        struct stream st;
        size_t at = 0, mark[2];
        json_int_t w = 0, address[2];

        S = s;
        for (unsigned i = 0; i < 2; i++) {
                json_t *p = avr_stage_pad(s, i);
                address[i] = jint(p, "address");
                json_decref(p);
        }
        json_int_t id = start_match(&st);

        /* seat 1 calls right: pad 0's lamp of that button, on for 1000 ms
         * (docs/games/crash-pilot.md, "Pads") */
        json_t *v = next_window(id, &w);
        unsigned b = pick_button(v, false);
        json_decref(v);
        mark[0] = avr_stage_mark(s, 0);
        tap(0, b);
        const struct event *ev = next_event(&st, &at, decisions);
        assert_string_equal(ev->name, "call_judged");
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        double t = light_frame(0, address[0], b, 1, &mark[0]);
        wait_past(0, t + 1200000);
        expect_lit(0, b, t, 1000);

        /* the same with the LIGHT lost on its way: the pad counts the gap
         * in the host's seq, its rx_errors go up, and the host sends its
         * lights again (docs/protocol.md section 6) */
        v = next_window(id, &w);
        b = pick_button(v, false);
        json_decref(v);
        mark[0] = avr_stage_mark(s, 0);
        avr_stage_send(s, 0, "drop in 1 LIGHT");
        tap(0, b);
        ev = next_event(&st, &at, decisions);
        assert_string_equal(ev->name, "call_judged");
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "correct");
        char lit[32];
        snprintf(lit, sizeof lit, "light %u on", b);
        avr_stage_expect(s, 0, &mark[0], "dropped in frame", NULL, 0);
        avr_stage_expect(s, 0, &mark[0], lit, NULL, 0);
        snprintf(lit, sizeof lit, "light %u off", b);
        avr_stage_expect(s, 0, &mark[0], lit, NULL, 0);

        /* seat 2 calls wrong: pad 1's buzzer, on then off */
        v = next_window(id, &w);
        b = pick_button(v, true);
        json_decref(v);
        mark[1] = avr_stage_mark(s, 1);
        tap(1, b);
        ev = next_event(&st, &at, decisions);
        assert_string_equal(ev->name, "call_judged");
        assert_string_equal(json_string_value(json_object_get(ev->data, "verdict")), "wrong");
        avr_stage_expect(s, 1, &mark[1], "buzzer on", NULL, 0);
        avr_stage_expect(s, 1, &mark[1], "buzzer off", NULL, 0);

        /* both at once: a tie, and every lamp of both pads blinks for 1000 ms */
        for (unsigned tries = 0, both = 0; !both; tries++) {
                if (tries == AVR_STAGE_TRIES)
                        fail_msg("%u pairs of presses came after their time", tries);
                v = next_window(id, &w);
                b = pick_button(v, false);
                json_decref(v);
                for (unsigned i = 0; i < 2; i++)
                        mark[i] = avr_stage_mark(s, i);
                both = press_pair(b, 0, 0, NULL);
                ev = next_event(&st, &at, decisions);
        }
        assert_string_equal(ev->name, "tiebreak_started");
        for (unsigned i = 0; i < 2; i++) {
                t = light_frame(i, address[i], 0xff, 2, &mark[i]);
                wait_past(i, t + 1200000);
                expect_blinking(i, t, 1000);
        }
        stream_close(&st);
        abort_match(id);
}

void avr_check_reset_mid_match(struct avr_stage *s) {
        struct stream st;
        size_t at = 0, mark;
        json_int_t w = 0;
        char what[64];

        S = s;
        json_int_t id = start_match(&st);
        json_t *v = next_window(id, &w);
        unsigned b = pick_button(v, false);
        json_decref(v);
        tap(0, b);
        const struct event *ev = next_event(&st, &at, decisions);
        assert_int_equal(jint(ev->data, "seat"), 1);

        json_t *pad = avr_stage_pad(s, 0);
        json_int_t address = jint(pad, "address");
        json_decref(pad);
        mark = avr_stage_mark(s, 0);
        avr_stage_send(s, 0, "reset");
        avr_stage_expect(s, 0, &mark, "reset host_us ", NULL, 0);
        avr_stage_expect(s, 0, &mark, "pad>  addr 0 seq 0 type 0x01 ", NULL, 0);
        expect_assign(0, &mark);
        snprintf(what, sizeof what, "pad>  addr %lld ", (long long) address);
        avr_stage_expect(s, 0, &mark, what, NULL, 0);
        avr_stage_wait_synced(s);

        /* the same pads, the reset one at its address */
        struct http_reply r;
        size_t i;
        unsigned ours = 0;
        json_t *it;
        http_get(&s->daemon, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, it)
                for (unsigned k = 0; k < s->n_pads; k++)
                        if (strcmp(json_string_value(json_object_get(it, "id")), s->ids[k]) == 0) {
                                ours++;
                                if (k == 0)
                                        assert_int_equal(jint(it, "address"), address);
                        }
        http_reply_done(&r);
        assert_int_equal(ours, s->n_pads);

        /* the match goes on, on the reset pad's presses */
        for (int k = 0; k < 2; k++) {
                v = next_window(id, &w);
                b = pick_button(v, false);
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

void avr_check_whole_match(struct avr_stage *s) {
        static const char *const finished[] = { "match_finished", NULL };
        struct stream st;
        size_t at = 0;
        json_int_t w = 0, before[AVR_STAGE_MAX_PADS];
        bool tied = false, tiebreak_won = false, wrong = false;
        unsigned calls = 0, windows = 0;

        S = s;
        for (unsigned i = 0; i < s->n_pads; i++) {
                before[i] = avr_stage_counter(s, i, "presses");
                made[i] = 0;
        }
        json_int_t id = start_match(&st);
        for (;;) {
                /* the decision before this was stored before its event came */
                json_t *m = match_of(id);
                const char *state = json_string_value(json_object_get(m, "state"));
                bool over = state && strcmp(state, "finished") == 0;
                json_decref(m);
                if (over)
                        break;
                if (++windows > 40)
                        fail_msg("the match did not end in 40 windows");

                json_t *v = next_window(id, &w);
                unsigned right = pick_button(v, false), wrong_button = pick_button(v, true);
                json_decref(v);
                const struct event *ev;
                if (tied && !tiebreak_won) {
                        tap(1, right);
                        ev = next_event(&st, &at, decisions);
                        assert_int_equal(jint(ev->data, "seat"), 2);
                        tiebreak_won = true;
                } else if (calls >= 3 && !tied) {
                        bool both = press_pair(right, 0, 0, NULL);
                        ev = next_event(&st, &at, decisions);
                        if (both) {
                                assert_string_equal(ev->name, "tiebreak_started");
                                tied = true;
                        }
                } else if (calls >= 5 && !wrong) {
                        tap(1, wrong_button);
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
        http_get(&s->daemon, path, s->referee_token, &r);
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
        /* each press counted once, however often its pad sent it before
         * its ACK, which waits for the call to be stored (the driver counts
         * a press once its settle window has passed) */
        for (unsigned k = 0; k < s->n_pads; k++) {
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
                     avr_stage_counter(s, k, "presses") - before[k] < made[k] && mono_ms() < deadline;)
                        usleep(50000);
                assert_int_equal(avr_stage_counter(s, k, "presses") - before[k], made[k]);
        }
        print_message("# the match took %u windows: %u calls and a tie, all from the pads\n", windows, calls);
        stream_close(&st);
}
