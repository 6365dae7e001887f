/* The first-press judge (engine/judge.h, docs/judge.md).
 *
 * Most tests are rows of one table: a config, then steps in the order the
 * runtime would make the calls (open a window, hand over presses with the
 * answer each must get, poll with the expected result, check the final
 * verdict of a press).  Every decision is also checked against the
 * judge's own promises: each held press comes back exactly once, the
 * first presses are counted presses, and the explanation agrees.  The
 * order and seat-number properties loop over permutations instead. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "engine/judge.h"

/* A reveal at 1000 s of CLOCK_MONOTONIC; every time below is relative. */
#define O       INT64_C(1000000000)
#define MS      INT64_C(1000)
#define SEAT(s) (UINT32_C(1) << (s))

/* Defaults, spelled out so the expected decision times below can be read. */
#define SETTLE  JUDGE_DEFAULT_SETTLE_US
#define LOCKOUT JUDGE_DEFAULT_LOCKOUT_US

enum step_kind {
        S_OPEN = 1,
        S_PRESS,
        S_POLL,
        S_CLOSE,
        S_FINAL,
        S_NO_WINDOW_TO_POLL,
};

struct step {
        enum step_kind kind;
        uint8_t seat, button;
        bool receive_time;
        int64_t t;              /* OPEN: open_us; PRESS, FINAL: press time; POLL: now */
        int64_t u, recv;        /* PRESS */
        int64_t wake;           /* POLL pending: the wake-up time */
        int64_t decided;        /* POLL decided: decided_us, or 0 for "do not check" */
        int expect;             /* PRESS, FINAL: enum judge_reason; POLL: 0 pending,
                                 * else enum judge_outcome */
        uint32_t seats;         /* OPEN: allowed; POLL decided: the first set */
        bool fallback;          /* POLL decided: receive_time_fallback */
};

#define OPEN(at, mask)          { .kind = S_OPEN, .t = (at), .seats = (mask) }
#define CLOSE()                 { .kind = S_CLOSE }
#define PRESS(s, at, unc, rcv, why) \
        { .kind = S_PRESS, .seat = (s), .t = (at), .u = (unc), .recv = (rcv), .expect = (why) }
#define PRESS_BUTTON(s, b, at, unc, rcv, why) \
        { .kind = S_PRESS, .seat = (s), .button = (b), .t = (at), .u = (unc), .recv = (rcv), .expect = (why) }
#define PRESS_RT(s, at, unc, why) \
        { .kind = S_PRESS, .seat = (s), .t = (at), .u = (unc), .recv = (at), .expect = (why), \
          .receive_time = true }
#define PENDING(now, w)         { .kind = S_POLL, .t = (now), .wake = (w) }
#define WINNER(now, s)          { .kind = S_POLL, .t = (now), .expect = JUDGE_WINNER, .seats = SEAT(s) }
#define WINNER_AT(now, s, d)    { .kind = S_POLL, .t = (now), .expect = JUDGE_WINNER, .seats = SEAT(s), \
                                  .decided = (d) }
#define TIE(now, mask)          { .kind = S_POLL, .t = (now), .expect = JUDGE_TIE, .seats = (mask) }
#define TIE_RT(now, mask)       { .kind = S_POLL, .t = (now), .expect = JUDGE_TIE, .seats = (mask), \
                                  .fallback = true }
#define FINAL(s, at, why)       { .kind = S_FINAL, .seat = (s), .t = (at), .expect = (why) }
#define FINAL_BUTTON(s, b, at, why) \
                                { .kind = S_FINAL, .seat = (s), .button = (b), .t = (at), .expect = (why) }
#define NO_WINDOW_TO_POLL(now)  { .kind = S_NO_WINDOW_TO_POLL, .t = (now) }

#define MAX_STEPS 16

struct scenario {
        const char *name;
        const struct judge_config *cfg;         /* NULL: the defaults */
        struct step steps[MAX_STEPS];
};

static const struct judge_config cooldown_1ms = {
        .settle_us = SETTLE, .tie_window_us = 100, .lockout_us = LOCKOUT, .cooldown_us = 1 * MS,
        .accept_receive_time = true,
};
static const struct judge_config cooldown_1ms_extending = {
        .settle_us = SETTLE, .tie_window_us = 100, .lockout_us = LOCKOUT, .cooldown_us = 1 * MS,
        .cooldown_extends = true, .accept_receive_time = true,
};
static const struct judge_config whole_window_lockout = {
        .settle_us = SETTLE, .tie_window_us = 100, .lockout_us = LOCKOUT, .cooldown_us = 250 * MS,
        .lockout_whole_window = true, .accept_receive_time = true,
};
static const struct judge_config clocks_required = {
        .settle_us = SETTLE, .tie_window_us = 100, .lockout_us = LOCKOUT, .cooldown_us = 250 * MS,
        .accept_receive_time = false,
};

static const struct scenario scenarios[] = {
{ "single_press_wins_once_the_settle_window_has_passed", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(3, O + 300 * MS, 20, O + 301 * MS, JUDGE_HELD),
        PENDING(O + 301 * MS, O + 300 * MS + 20 + SETTLE),
        PENDING(O + 300 * MS + 20 + SETTLE - 1, O + 300 * MS + 20 + SETTLE),
        WINNER_AT(O + 300 * MS + 20 + SETTLE, 3, O + 300 * MS + 20 + SETTLE),
        FINAL(3, O + 300 * MS, JUDGE_COUNTED),
        NO_WINDOW_TO_POLL(O + 400 * MS),
} },
{ "presses_a_millisecond_apart_the_earlier_wins", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(5, O + 301 * MS, 20, O + 301 * MS + 900, JUDGE_HELD),
        PRESS(2, O + 300 * MS, 20, O + 301 * MS + 950, JUDGE_HELD),
        WINNER(O + 303 * MS, 2),
        FINAL(5, O + 301 * MS, JUDGE_COUNTED),
} },
{ "presses_at_the_same_microsecond_tie", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(1, O + 300 * MS, 10, O + 301 * MS, JUDGE_HELD),
        PRESS(4, O + 300 * MS, 10, O + 301 * MS + 200, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(1) | SEAT(4)),
} },
{ "presses_within_the_tie_window_tie", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS + 60, 5, O + 301 * MS, JUDGE_HELD),
        PRESS(6, O + 300 * MS, 5, O + 301 * MS + 100, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(0) | SEAT(6)),
} },
{ "a_gap_equal_to_the_tie_window_ties_and_one_microsecond_more_orders", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 0, O + 301 * MS, JUDGE_HELD),
        PRESS(1, O + 300 * MS + 100, 0, O + 301 * MS, JUDGE_HELD),
        PRESS(2, O + 300 * MS + 101, 0, O + 301 * MS, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(0) | SEAT(1)),
        FINAL(2, O + 300 * MS + 101, JUDGE_COUNTED),
} },
{ "presses_150us_apart_with_tiny_uncertainties_are_ordered", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(4, O + 300 * MS + 150, 10, O + 301 * MS, JUDGE_HELD),
        PRESS(7, O + 300 * MS, 10, O + 301 * MS + 300, JUDGE_HELD),
        WINNER(O + 303 * MS, 7),
} },
{ "presses_200us_apart_are_ordered_while_the_uncertainties_sum_below_200us", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 99, O + 301 * MS, JUDGE_HELD),
        PRESS(1, O + 300 * MS + 200, 99, O + 301 * MS, JUDGE_HELD),
        WINNER(O + 303 * MS, 0),
} },
{ "large_uncertainties_make_presses_150us_apart_a_tie", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(4, O + 300 * MS + 150, 100, O + 301 * MS, JUDGE_HELD),
        PRESS(7, O + 300 * MS, 75, O + 301 * MS + 300, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(4) | SEAT(7)),
} },
{ "three_presses_within_the_window_are_a_three_way_tie", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(6, O + 300 * MS + 50, 5, O + 301 * MS, JUDGE_HELD),
        PRESS(0, O + 300 * MS, 5, O + 301 * MS + 10, JUDGE_HELD),
        PRESS(3, O + 300 * MS + 20, 5, O + 301 * MS + 20, JUDGE_HELD),
        PRESS(1, O + 301 * MS, 5, O + 302 * MS, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(0) | SEAT(3) | SEAT(6)),
        FINAL(1, O + 301 * MS, JUDGE_COUNTED),
} },
{ "ties_do_not_chain_a_press_beyond_the_window_of_the_earliest_is_out", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 5, O + 301 * MS, JUDGE_HELD),
        PRESS(1, O + 300 * MS + 80, 5, O + 301 * MS, JUDGE_HELD),
        PRESS(2, O + 300 * MS + 160, 5, O + 301 * MS, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(0) | SEAT(1)),
        FINAL(2, O + 300 * MS + 160, JUDGE_COUNTED),
} },
{ "a_press_another_press_definitely_beat_is_not_tied", NULL, {
        /* Seat 0's pad has no clock: ±500 µs covers seats 1 and 2 alike,
         * but seat 1's good clock shows seat 2 came 290 µs after it. */
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS_RT(0, O + 300 * MS, 500, JUDGE_HELD),
        PRESS(1, O + 300 * MS + 10, 0, O + 301 * MS, JUDGE_HELD),
        PRESS(2, O + 300 * MS + 300, 0, O + 301 * MS, JUDGE_HELD),
        TIE_RT(O + 303 * MS, SEAT(0) | SEAT(1)),
        FINAL(2, O + 300 * MS + 300, JUDGE_COUNTED),
} },
{ "a_tiebreaker_refuses_seats_that_were_not_tied", NULL, {
        OPEN(O, SEAT(1) | SEAT(3)),
        PRESS(0, O + 200 * MS, 10, O + 201 * MS, JUDGE_NOT_ALLOWED),
        PRESS(3, O + 300 * MS, 10, O + 301 * MS, JUDGE_HELD),
        PRESS(1, O + 301 * MS, 10, O + 301 * MS + 900, JUDGE_HELD),
        WINNER(O + 303 * MS, 3),
} },
{ "an_earlier_press_arriving_late_but_before_the_decision_wins", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 300 * MS + 900, JUDGE_HELD),
        PENDING(O + 300 * MS + 900, O + 300 * MS + 20 + SETTLE),
        PRESS(1, O + 299 * MS + 500, 20, O + 302 * MS, JUDGE_HELD),
        PENDING(O + 302 * MS, O + 299 * MS + 500 + 20 + SETTLE),
        WINNER(O + 299 * MS + 500 + 20 + SETTLE, 1),
        FINAL(0, O + 300 * MS, JUDGE_COUNTED),
} },
{ "presses_handed_over_out_of_received_order_are_replayed_in_received_order", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(1, O + 299 * MS, 20, O + 302 * MS, JUDGE_HELD),
        PRESS(0, O + 300 * MS, 20, O + 300 * MS + 500, JUDGE_HELD),
        WINNER_AT(O + 303 * MS, 1, O + 302 * MS),
        FINAL(0, O + 300 * MS, JUDGE_COUNTED),
} },
{ "a_press_arriving_after_the_decision_is_too_late", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 300 * MS + 900, JUDGE_HELD),
        WINNER(O + 300 * MS + 20 + SETTLE, 0),
        PRESS(1, O + 299 * MS, 20, O + 303 * MS, JUDGE_TOO_LATE),
        NO_WINDOW_TO_POLL(O + 304 * MS),
} },
{ "a_late_poll_decides_as_of_the_decision_time", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 300 * MS + 500, JUDGE_HELD),
        PRESS(1, O + 299 * MS, 20, O + 300 * MS + 20 + SETTLE + 1, JUDGE_HELD),
        WINNER_AT(O + 305 * MS, 0, O + 300 * MS + 20 + SETTLE),
        FINAL(1, O + 299 * MS, JUDGE_TOO_LATE),
} },
{ "a_press_long_delayed_decides_on_arrival_when_nothing_came_before_it", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(2, O + 300 * MS, 20, O + 320 * MS, JUDGE_HELD),
        WINNER_AT(O + 320 * MS, 2, O + 320 * MS),
} },
{ "a_false_start_locks_the_seat_out_until_it_expires", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O - 10 * MS, 20, O + 500, JUDGE_FALSE_START),
        PRESS(0, O + 200 * MS, 20, O + 200 * MS + 800, JUDGE_LOCKED_OUT),
        PENDING(O + 201 * MS, JUDGE_NEVER),
        PRESS(0, O - 10 * MS + LOCKOUT, 20, O + 240 * MS + 800, JUDGE_HELD),
        PRESS(1, O + 241 * MS, 20, O + 241 * MS + 900, JUDGE_HELD),
        WINNER(O + 244 * MS, 0),
} },
{ "a_false_start_before_the_window_opened_locks_the_seat_out", NULL, {
        PRESS(0, O - 50 * MS, 20, O - 49 * MS, JUDGE_NO_WINDOW),
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 150 * MS, 20, O + 151 * MS, JUDGE_LOCKED_OUT),
        PRESS(1, O + 190 * MS, 20, O + 191 * MS, JUDGE_HELD),
        WINNER(O + 193 * MS, 1),
} },
{ "a_false_start_arriving_after_a_later_press_of_its_seat_still_locks_it_out", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 100 * MS, 20, O + 100 * MS + 500, JUDGE_HELD),
        PRESS(0, O - 5 * MS, 20, O + 100 * MS + 600, JUDGE_FALSE_START),
        PRESS(1, O + 101 * MS, 20, O + 101 * MS + 800, JUDGE_HELD),
        WINNER(O + 101 * MS + 20 + SETTLE, 1),
        FINAL(0, O + 100 * MS, JUDGE_LOCKED_OUT),
} },
{ "a_false_start_received_after_the_decision_changes_nothing_but_the_next_window", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 100 * MS, 20, O + 100 * MS + 500, JUDGE_HELD),
        PRESS(0, O - 1 * MS, 20, O + 100 * MS + 20 + SETTLE + 1, JUDGE_FALSE_START),
        WINNER(O + 104 * MS, 0),
        OPEN(O + 200 * MS, JUDGE_ALL_SEATS),
        PRESS(0, O + 240 * MS, 20, O + 241 * MS, JUDGE_LOCKED_OUT),
        PRESS(1, O + 245 * MS, 20, O + 246 * MS, JUDGE_HELD),
        WINNER(O + 248 * MS, 1),
} },
{ "a_false_start_handed_over_first_but_received_after_the_decision_locks_nothing_out", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O - 1 * MS, 20, O + 100 * MS + 20 + SETTLE + 1, JUDGE_FALSE_START),
        PRESS(0, O + 100 * MS, 20, O + 100 * MS + 500, JUDGE_HELD),
        WINNER_AT(O + 100 * MS + 20 + SETTLE + 1, 0, O + 100 * MS + 20 + SETTLE),
} },
{ "a_whole_window_lockout_keeps_a_false_starter_out_to_the_end", &whole_window_lockout, {
        PRESS(2, O - 300 * MS, 20, O - 299 * MS, JUDGE_NO_WINDOW),
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O - 100 * MS, 20, O + 1 * MS, JUDGE_FALSE_START),
        PRESS(0, O + 400 * MS, 20, O + 401 * MS, JUDGE_LOCKED_OUT),
        PRESS(2, O + 450 * MS, 20, O + 451 * MS, JUDGE_HELD),
        PRESS(1, O + 451 * MS, 20, O + 452 * MS, JUDGE_HELD),
        WINNER(O + 453 * MS, 2),
} },
{ "closing_a_window_keeps_its_presses_as_possible_false_starts", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 100 * MS, 20, O + 100 * MS + 500, JUDGE_HELD),
        CLOSE(),
        PRESS(1, O + 150 * MS, 20, O + 151 * MS, JUDGE_NO_WINDOW),
        NO_WINDOW_TO_POLL(O + 152 * MS),
        OPEN(O + 200 * MS, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 301 * MS, JUDGE_LOCKED_OUT),
        PRESS(1, O + 300 * MS, 20, O + 301 * MS, JUDGE_LOCKED_OUT),
        PRESS(2, O + 300 * MS, 20, O + 301 * MS, JUDGE_HELD),
        WINNER(O + 303 * MS, 2),
} },
{ "mashing_within_the_cooldown_is_refused_as_cooldown_then_as_already_pressed", &cooldown_1ms, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 300 * MS + 500, JUDGE_HELD),
        PRESS(0, O + 300 * MS + 400, 20, O + 300 * MS + 900, JUDGE_HELD),
        PRESS(0, O + 300 * MS + 1200, 20, O + 300 * MS + 1700, JUDGE_HELD),
        PRESS(0, O + 300 * MS + 1600, 20, O + 302 * MS, JUDGE_HELD),
        WINNER(O + 303 * MS, 0),
        FINAL(0, O + 300 * MS, JUDGE_COUNTED),
        FINAL(0, O + 300 * MS + 400, JUDGE_COOLDOWN),
        FINAL(0, O + 300 * MS + 1200, JUDGE_ALREADY_PRESSED),
        FINAL(0, O + 300 * MS + 1600, JUDGE_ALREADY_PRESSED),
} },
{ "a_cooldown_press_extends_the_cooldown_when_configured", &cooldown_1ms_extending, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 300 * MS + 500, JUDGE_HELD),
        PRESS(0, O + 300 * MS + 400, 20, O + 300 * MS + 900, JUDGE_HELD),
        PRESS(0, O + 300 * MS + 1200, 20, O + 300 * MS + 1700, JUDGE_HELD),
        PRESS(0, O + 300 * MS + 2300, 20, O + 302 * MS + 400, JUDGE_HELD),
        WINNER(O + 303 * MS, 0),
        FINAL(0, O + 300 * MS + 400, JUDGE_COOLDOWN),
        FINAL(0, O + 300 * MS + 1200, JUDGE_COOLDOWN),
        FINAL(0, O + 300 * MS + 2300, JUDGE_ALREADY_PRESSED),
} },
{ "the_cooldown_carries_into_a_tiebreaker_opened_soon_after", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS, 20, O + 301 * MS, JUDGE_HELD),
        PRESS(1, O + 300 * MS + 10, 20, O + 301 * MS, JUDGE_HELD),
        TIE(O + 303 * MS, SEAT(0) | SEAT(1)),
        OPEN(O + 400 * MS, SEAT(0) | SEAT(1)),
        PRESS(0, O + 420 * MS, 20, O + 421 * MS, JUDGE_COOLDOWN),
        PRESS(1, O + 560 * MS, 20, O + 561 * MS, JUDGE_HELD),
        PRESS(0, O + 560 * MS + 500, 20, O + 561 * MS + 100, JUDGE_HELD),
        WINNER(O + 563 * MS, 1),
} },
{ "a_seat_counts_its_earliest_press_whatever_order_its_frames_arrive_in", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS(0, O + 300 * MS + 500, 20, O + 301 * MS, JUDGE_HELD),
        PRESS(0, O + 300 * MS, 20, O + 301 * MS + 100, JUDGE_HELD),
        PRESS(1, O + 300 * MS + 300, 20, O + 301 * MS + 200, JUDGE_HELD),
        WINNER(O + 303 * MS, 0),
        FINAL(0, O + 300 * MS, JUDGE_COUNTED),
        FINAL(0, O + 300 * MS + 500, JUDGE_COOLDOWN),
} },
{ "two_buttons_of_one_seat_in_the_same_microsecond_count_the_lower_button", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS_BUTTON(0, 5, O + 300 * MS, 20, O + 301 * MS, JUDGE_HELD),
        PRESS_BUTTON(0, 2, O + 300 * MS, 20, O + 301 * MS + 10, JUDGE_HELD),
        WINNER(O + 303 * MS, 0),
        FINAL_BUTTON(0, 2, O + 300 * MS, JUDGE_COUNTED),
        FINAL_BUTTON(0, 5, O + 300 * MS, JUDGE_COOLDOWN),
} },
{ "a_receive_time_press_widens_the_settle_window_and_is_flagged", NULL, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS_RT(0, O + 300 * MS, 1500, JUDGE_HELD),
        PENDING(O + 300 * MS, O + 300 * MS + 1500 + SETTLE),
        PRESS(1, O + 301 * MS, 20, O + 302 * MS + 500, JUDGE_HELD),
        PENDING(O + 302 * MS + 500, O + 301 * MS + 20 + SETTLE),
        TIE_RT(O + 301 * MS + 20 + SETTLE, SEAT(0) | SEAT(1)),
} },
{ "receive_time_presses_are_refused_when_clocks_are_required", &clocks_required, {
        OPEN(O, JUDGE_ALL_SEATS),
        PRESS_RT(0, O + 300 * MS, 1500, JUDGE_NO_CLOCK),
        PRESS(1, O + 301 * MS, 20, O + 302 * MS, JUDGE_HELD),
        WINNER(O + 304 * MS, 1),
} },
{ "a_window_nobody_presses_in_stays_pending", NULL, {
        PRESS(0, O - 900 * MS, 20, O - 899 * MS, JUDGE_NO_WINDOW),
        OPEN(O, JUDGE_ALL_SEATS),
        PENDING(O + 10000 * MS, JUDGE_NEVER),
        CLOSE(),
        PRESS(0, O + 10001 * MS, 20, O + 10002 * MS, JUDGE_NO_WINDOW),
        NO_WINDOW_TO_POLL(O + 10003 * MS),
} },
};

#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

static bool same_press(const struct judge_press *a, const struct judge_press *b) {
        return a->id == b->id && a->seat == b->seat && a->button == b->button && a->time_us == b->time_us &&
               a->uncertainty_us == b->uncertainty_us && a->received_us == b->received_us &&
               a->receive_time == b->receive_time;
}

static uint32_t seat_mask(const struct judge_press *p, size_t n) {
        uint32_t m = 0;

        for (size_t i = 0; i < n; i++)
                m |= SEAT(p[i].seat);
        return m;
}

/* What every decision promises, whatever the scenario. */
static void check_result_invariants(const struct judge_result *r, const struct judge_press *held, size_t n_held) {
        struct judge_explanation x;

        assert_true(r->n_first >= 1);
        assert_true(r->n_first <= r->n_counted);
        assert_int_equal(r->outcome, r->n_first == 1 ? JUDGE_WINNER : JUDGE_TIE);
        for (size_t i = 0; i < r->n_first; i++) {
                bool found = false;

                for (size_t k = 0; k < r->n_counted; k++)
                        found |= same_press(&r->first[i], &r->counted[k]);
                assert_true(found);
                if (i > 0)
                        assert_true(r->first[i - 1].seat < r->first[i].seat);
        }
        for (size_t i = 1; i < r->n_counted; i++)
                assert_true(r->counted[i - 1].seat < r->counted[i].seat);
        for (size_t h = 0; h < n_held; h++) {
                size_t seen = 0;

                for (size_t k = 0; k < r->n_counted; k++)
                        seen += same_press(&held[h], &r->counted[k]);
                for (size_t k = 0; k < r->n_refused; k++)
                        seen += same_press(&held[h], &r->refused[k].press);
                assert_int_equal(seen, 1);
        }
        assert_int_equal(r->n_counted + r->n_refused, n_held);

        assert_int_equal(judge_explain(r, &x), 0);
        assert_int_equal(x.n, r->n_counted);
        assert_int_equal(x.earliest_us, r->earliest_us);
        for (size_t i = 0; i < x.n; i++) {
                bool first = false;

                for (size_t k = 0; k < r->n_first; k++)
                        first |= same_press(&x.margins[i].press, &r->first[k]);
                assert_int_equal(x.margins[i].first, first);
                assert_true(x.margins[i].margin_us >= 0);
                if (first) {
                        assert_int_equal(x.margins[i].beaten_by, -1);
                        assert_true(x.margins[i].margin_us <= x.margins[i].threshold_us);
                } else {
                        assert_true(x.margins[i].beaten_by >= 0);
                        assert_true(x.margins[i].beaten_gap_us > x.margins[i].beaten_threshold_us);
                }
        }
}

static void run_scenario(void **state) {
        const struct scenario *sc = *state;
        struct judge j;
        struct judge_result r;
        bool have_result = false;
        struct judge_press held[MAX_STEPS];
        size_t n_held = 0;
        uint64_t next_id = 1;

        assert_int_equal(judge_init(&j, sc->cfg), 0);
        for (size_t i = 0; i < MAX_STEPS && sc->steps[i].kind; i++) {
                const struct step *s = &sc->steps[i];
                enum judge_reason why = JUDGE_FULL + 1;
                int64_t wake = 0;
                int rc;

                switch (s->kind) {
                case S_OPEN:
                        assert_int_equal(judge_open(&j, s->t, s->seats), 0);
                        n_held = 0;
                        break;
                case S_CLOSE:
                        assert_int_equal(judge_close(&j), 0);
                        n_held = 0;
                        break;
                case S_PRESS: {
                        struct judge_press p = {
                                .id = next_id++, .seat = s->seat, .button = s->button, .time_us = s->t,
                                .uncertainty_us = s->u, .received_us = s->recv, .receive_time = s->receive_time,
                        };

                        assert_int_equal(judge_press(&j, &p, &why), 0);
                        if ((int) why != s->expect)
                                fail_msg("step %zu: press answered \"%s\", expected \"%s\"", i,
                                         judge_reason_name(why), judge_reason_name(s->expect));
                        if (why == JUDGE_HELD)
                                held[n_held++] = p;
                        break;
                }
                case S_POLL:
                        rc = judge_poll(&j, s->t, &wake, &r);
                        if (s->expect == 0) {
                                if (rc != JUDGE_PENDING)
                                        fail_msg("step %zu: decided, expected pending", i);
                                assert_int_equal(wake, s->wake);
                                break;
                        }
                        if (rc != JUDGE_DECIDED)
                                fail_msg("step %zu: poll returned %d, expected a decision", i, rc);
                        have_result = true;
                        assert_int_equal(r.outcome, s->expect);
                        assert_int_equal(seat_mask(r.first, r.n_first), s->seats);
                        assert_int_equal(r.receive_time_fallback, s->fallback);
                        if (s->decided)
                                assert_int_equal(r.decided_us, s->decided);
                        check_result_invariants(&r, held, n_held);
                        n_held = 0;
                        break;
                case S_FINAL: {
                        enum judge_reason found = JUDGE_HELD;

                        assert_true(have_result);
                        for (size_t k = 0; k < r.n_counted; k++)
                                if (r.counted[k].seat == s->seat && r.counted[k].time_us == s->t &&
                                    r.counted[k].button == s->button)
                                        found = JUDGE_COUNTED;
                        for (size_t k = 0; k < r.n_refused; k++)
                                if (r.refused[k].press.seat == s->seat && r.refused[k].press.time_us == s->t &&
                                    r.refused[k].press.button == s->button)
                                        found = r.refused[k].reason;
                        if ((int) found != s->expect)
                                fail_msg("step %zu: final verdict \"%s\", expected \"%s\"", i,
                                         judge_reason_name(found), judge_reason_name(s->expect));
                        break;
                }
                case S_NO_WINDOW_TO_POLL:
                        assert_int_equal(judge_poll(&j, s->t, &wake, &r), -ENOENT);
                        break;
                }
        }
}

/* --- Permutations ------------------------------------------------------ */

struct press_set {
        const char *what;
        int64_t open_us;
        struct judge_press p[4];        /* received_us is set by the test */
        enum judge_outcome outcome;
        uint32_t first;
};

#define P(i, s, at, unc) { .id = (i), .seat = (s), .time_us = (at), .uncertainty_us = (unc) }

static const struct press_set press_sets[] = {
        { "a tie of two and two losers", O, {
                P(1, 0, O + 300 * MS, 20), P(2, 1, O + 300 * MS + 50, 20),
                P(3, 2, O + 300 * MS + 400, 20), P(4, 3, O + 301 * MS, 20) }, JUDGE_TIE, SEAT(0) | SEAT(1) },
        { "a clear winner", O, {
                P(1, 0, O + 300 * MS + 700, 20), P(2, 1, O + 300 * MS + 250, 20),
                P(3, 2, O + 300 * MS, 20), P(4, 3, O + 301 * MS, 20) }, JUDGE_WINNER, SEAT(2) },
        { "a false start locks out its seat's later press", O, {
                P(1, 0, O - 20 * MS, 20), P(2, 0, O + 100, 20),
                P(3, 1, O + 1000, 20), P(4, 2, O + 1060, 20) }, JUDGE_TIE, SEAT(1) | SEAT(2) },
        { "a chain that must not link", O, {
                P(1, 0, O + 300 * MS, 5), P(2, 1, O + 300 * MS + 80, 5),
                P(3, 2, O + 300 * MS + 160, 5), P(4, 3, O + 301 * MS, 5) }, JUDGE_TIE, SEAT(0) | SEAT(1) },
        { "two presses of one seat", O, {
                P(1, 0, O + 300 * MS + 300, 20), P(2, 0, O + 300 * MS, 20),
                P(3, 1, O + 300 * MS + 200, 20), P(4, 2, O + 300 * MS + 1000, 20) }, JUDGE_WINNER, SEAT(0) },
};

static const int permutations[24][4] = {
        {0,1,2,3},{0,1,3,2},{0,2,1,3},{0,2,3,1},{0,3,1,2},{0,3,2,1},
        {1,0,2,3},{1,0,3,2},{1,2,0,3},{1,2,3,0},{1,3,0,2},{1,3,2,0},
        {2,0,1,3},{2,0,3,1},{2,1,0,3},{2,1,3,0},{2,3,0,1},{2,3,1,0},
        {3,0,1,2},{3,0,2,1},{3,1,0,2},{3,1,2,0},{3,2,0,1},{3,2,1,0},
};

/* The decision, reduced to what must not depend on arrival order: which
 * presses (by id) were first, and what became of each press in the end (its
 * answer when judge_press() refused it at once, else its verdict in the
 * decision: a press the judge can refuse at once in one order it holds and
 * refuses in the decision in another). */
struct summary {
        enum judge_outcome outcome;
        int64_t decided_us;
        uint64_t first;                 /* bit id */
        enum judge_reason fate[8];      /* by id */
};

static void summarise(const struct judge_result *r, const enum judge_reason *answers, struct summary *ret) {
        memset(ret, 0, sizeof *ret);
        ret->outcome = r->outcome;
        ret->decided_us = r->decided_us;
        for (size_t i = 0; i < 8; i++)
                ret->fate[i] = answers[i];
        for (size_t i = 0; i < r->n_first; i++)
                ret->first |= UINT64_C(1) << r->first[i].id;
        for (size_t i = 0; i < r->n_counted; i++)
                ret->fate[r->counted[i].id] = JUDGE_COUNTED;
        for (size_t i = 0; i < r->n_refused; i++)
                ret->fate[r->refused[i].press.id] = r->refused[i].reason;
}

static void assert_same_summary(const struct summary *a, const struct summary *b) {
        assert_int_equal(a->outcome, b->outcome);
        assert_int_equal(a->decided_us, b->decided_us);
        assert_int_equal(a->first, b->first);
        for (size_t i = 0; i < 8; i++)
                assert_int_equal(a->fate[i], b->fate[i]);
}

/* Hands the presses over in the permuted order, either with received times
 * that follow the arrival order (so the permutation is also the order the
 * frames came in) or with fixed received times (only the call order
 * changes), polling after each arrival as the runtime would.  Returns the
 * decision. */
static void judge_in_order(const struct press_set *set, const int *order, bool arrival_follows_order,
                           struct summary *ret) {
        enum judge_reason answers[8] = { 0 };
        struct judge_result r;
        struct judge j;
        int64_t latest = INT64_MIN;
        int64_t wake;
        int rc;

        for (size_t i = 0; i < 4; i++)
                if (set->p[i].time_us > latest)
                        latest = set->p[i].time_us;
        assert_int_equal(judge_init(&j, NULL), 0);
        assert_int_equal(judge_open(&j, set->open_us, JUDGE_ALL_SEATS), 0);
        for (size_t k = 0; k < 4; k++) {
                struct judge_press p = set->p[order[k]];
                enum judge_reason why;

                p.received_us = arrival_follows_order ? latest + 100 * (int64_t) (k + 1)
                                                      : latest + 100 * (int64_t) (order[k] + 1);
                assert_int_equal(judge_press(&j, &p, &why), 0);
                assert_true(why == JUDGE_HELD || why == JUDGE_FALSE_START || why == JUDGE_LOCKED_OUT);
                answers[p.id] = why;
                if (arrival_follows_order)
                        assert_int_equal(judge_poll(&j, p.received_us, &wake, &r), JUDGE_PENDING);
        }
        rc = judge_poll(&j, latest + 10 * MS, &wake, &r);
        assert_int_equal(rc, JUDGE_DECIDED);
        summarise(&r, answers, ret);
}

static void arrival_order_does_not_change_the_decision(void **state) {
        (void) state;

        for (size_t s = 0; s < sizeof press_sets / sizeof press_sets[0]; s++) {
                const struct press_set *set = &press_sets[s];
                struct summary reference, other;
                uint32_t first_seats = 0;

                judge_in_order(set, permutations[0], true, &reference);
                assert_int_equal(reference.outcome, set->outcome);
                for (size_t i = 0; i < 4; i++)
                        if (reference.first & (UINT64_C(1) << set->p[i].id))
                                first_seats |= SEAT(set->p[i].seat);
                assert_int_equal(first_seats, set->first);
                for (size_t k = 0; k < 24; k++) {
                        judge_in_order(set, permutations[k], true, &other);
                        assert_same_summary(&reference, &other);
                        judge_in_order(set, permutations[k], false, &other);
                        assert_same_summary(&reference, &other);
                }
        }
}

/* The same press times judged with the seat numbers shuffled: the same
 * presses are first, so seat numbers never decide anything. */
static void seat_numbers_never_break_a_tie(void **state) {
        static const uint8_t seats[4] = { 0, 2, 5, 7 };
        (void) state;

        for (size_t s = 0; s < sizeof press_sets / sizeof press_sets[0]; s++) {
                const struct press_set *set = &press_sets[s];
                struct summary reference, other;
                bool have_reference = false;

                /* Seat numbers are relabelled consistently: presses of one seat stay together. */
                for (size_t k = 0; k < 24; k++) {
                        struct press_set relabelled = *set;

                        for (size_t i = 0; i < 4; i++)
                                relabelled.p[i].seat = seats[permutations[k][set->p[i].seat]];
                        judge_in_order(&relabelled, permutations[0], true, &other);
                        assert_int_equal(other.outcome, set->outcome);
                        if (!have_reference) {
                                reference = other;
                                have_reference = true;
                        }
                        assert_same_summary(&reference, &other);
                }
        }
}

/* Random windows: presses from four seats around the opening (false starts
 * included), random error bounds, transport delays up to 6 ms, a few pads
 * without a clock, short and long lockouts and cooldowns, both lockout and
 * cooldown modes.  Judged twice: handed over in received order with a poll
 * at every arrival, as the runtime does; and handed over in a shuffled order
 * all at once with one late poll.  The decisions must be the same. */
static uint64_t splitmix64(uint64_t *x) {
        uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static int64_t uniform(uint64_t *x, int64_t lo, int64_t hi) {
        return lo + (int64_t) (splitmix64(x) % (uint64_t) (hi - lo + 1));
}

#define RANDOM_PRESSES 6
#define RANDOM_WINDOWS 5000

struct decision {
        int status;
        enum judge_outcome outcome;
        int64_t decided_us;
        uint64_t first, counted;        /* bit id */
};

static void reduce(int status, const struct judge_result *r, struct decision *ret) {
        memset(ret, 0, sizeof *ret);
        ret->status = status;
        if (status != JUDGE_DECIDED)
                return;
        ret->outcome = r->outcome;
        ret->decided_us = r->decided_us;
        for (size_t i = 0; i < r->n_first; i++)
                ret->first |= UINT64_C(1) << r->first[i].id;
        for (size_t i = 0; i < r->n_counted; i++)
                ret->counted |= UINT64_C(1) << r->counted[i].id;
}

static void random_windows_decide_alike_whatever_the_call_order_and_poll_times(void **state) {
        uint64_t seed = 20240601;
        size_t decided = 0, ties = 0;
        (void) state;

        for (size_t w = 0; w < RANDOM_WINDOWS; w++) {
                struct judge_press p[RANDOM_PRESSES];
                size_t order[RANDOM_PRESSES];
                struct judge j;
                struct judge_result r;
                struct decision live = { .status = JUDGE_PENDING }, batch;
                enum judge_reason why;
                int64_t last = INT64_MIN;
                struct judge_config cfg;

                judge_config_init(&cfg);
                cfg.lockout_us = uniform(&seed, 0, 1) ? LOCKOUT : 3 * MS;
                cfg.cooldown_us = uniform(&seed, 0, 1) ? 250 * MS : 1 * MS;
                cfg.lockout_whole_window = uniform(&seed, 0, 1);
                cfg.cooldown_extends = uniform(&seed, 0, 1);

                for (size_t i = 0; i < RANDOM_PRESSES; i++) {
                        bool no_clock = uniform(&seed, 0, 9) == 0;

                        p[i] = (struct judge_press) {
                                .id = i,
                                .seat = (uint8_t) uniform(&seed, 0, 3),
                                .button = (uint8_t) uniform(&seed, 0, 1),
                                .time_us = O + uniform(&seed, -2 * MS, 10 * MS),
                                .uncertainty_us = no_clock ? 1500 : uniform(&seed, 0, 300),
                                .receive_time = no_clock,
                        };
                        p[i].received_us = p[i].time_us + (no_clock ? 0 : uniform(&seed, 100, 6 * MS));
                        last = p[i].received_us > last ? p[i].received_us : last;
                        order[i] = i;
                }

                /* Live: in received order, polling at each arrival. */
                for (size_t a = 1; a < RANDOM_PRESSES; a++)
                        for (size_t b = a; b > 0 && p[order[b]].received_us < p[order[b - 1]].received_us; b--) {
                                size_t t = order[b];
                                order[b] = order[b - 1];
                                order[b - 1] = t;
                        }
                assert_int_equal(judge_init(&j, &cfg), 0);
                assert_int_equal(judge_open(&j, O, JUDGE_ALL_SEATS), 0);
                for (size_t k = 0; k < RANDOM_PRESSES; k++) {
                        int64_t now = p[order[k]].received_us;
                        int rc;

                        assert_int_equal(judge_press(&j, &p[order[k]], &why), 0);
                        if (k + 1 < RANDOM_PRESSES && p[order[k + 1]].received_us == now)
                                continue;
                        if (live.status == JUDGE_DECIDED)
                                continue;
                        rc = judge_poll(&j, now, NULL, &r);
                        if (rc == JUDGE_DECIDED)
                                reduce(rc, &r, &live);
                }
                if (live.status != JUDGE_DECIDED)
                        reduce(judge_poll(&j, last + 10 * MS, NULL, &r), &r, &live);

                /* Batch: shuffled, one poll at the end. */
                for (size_t k = RANDOM_PRESSES - 1; k > 0; k--) {
                        size_t m = (size_t) uniform(&seed, 0, (int64_t) k);
                        size_t t = order[k];
                        order[k] = order[m];
                        order[m] = t;
                }
                assert_int_equal(judge_init(&j, &cfg), 0);
                assert_int_equal(judge_open(&j, O, JUDGE_ALL_SEATS), 0);
                for (size_t k = 0; k < RANDOM_PRESSES; k++)
                        assert_int_equal(judge_press(&j, &p[order[k]], &why), 0);
                reduce(judge_poll(&j, last + 10 * MS, NULL, &r), &r, &batch);

                if (memcmp(&live, &batch, sizeof live) != 0)
                        fail_msg("window %zu: live and batch decisions differ", w);
                decided += live.status == JUDGE_DECIDED;
                ties += live.status == JUDGE_DECIDED && live.outcome == JUDGE_TIE;
        }
        /* The generator must reach both kinds of decision, or it proves little. */
        print_message("%zu of %d windows decided, %zu ties\n", decided, RANDOM_WINDOWS, ties);
        assert_true(decided > RANDOM_WINDOWS / 2);
        assert_true(ties > 50);
}

/* --- Explanation, errors, configuration -------------------------------- */

static void explanation_gives_margins_thresholds_and_a_witness(void **state) {
        struct judge j;
        struct judge_result r;
        struct judge_explanation x;
        enum judge_reason why;
        static const struct judge_press presses[] = {
                { .id = 1, .seat = 4, .time_us = O + 300 * MS, .uncertainty_us = 30, .received_us = O + 301 * MS },
                { .id = 2, .seat = 1, .time_us = O + 300 * MS + 90, .uncertainty_us = 10, .received_us = O + 301 * MS },
                { .id = 3, .seat = 6, .time_us = O + 300 * MS + 500, .uncertainty_us = 10, .received_us = O + 301 * MS },
        };
        (void) state;

        assert_int_equal(judge_init(&j, NULL), 0);
        assert_int_equal(judge_open(&j, O, JUDGE_ALL_SEATS), 0);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(judge_press(&j, &presses[i], &why), 0);
        assert_int_equal(judge_poll(&j, O + 303 * MS, NULL, &r), JUDGE_DECIDED);
        assert_int_equal(r.outcome, JUDGE_TIE);
        assert_int_equal(judge_explain(&r, &x), 0);

        assert_int_equal(x.earliest_us, O + 300 * MS);
        assert_int_equal(x.earliest_uncertainty_us, 30);
        assert_int_equal(x.tie_window_us, JUDGE_DEFAULT_TIE_WINDOW_US);
        assert_int_equal(x.settle_us, JUDGE_DEFAULT_SETTLE_US);
        assert_int_equal(x.decided_us, O + 300 * MS + 30 + SETTLE);
        assert_int_equal(x.n, 3);
        /* seat order: 1, 4, 6 */
        assert_int_equal(x.margins[0].press.seat, 1);
        assert_int_equal(x.margins[0].margin_us, 90);
        assert_int_equal(x.margins[0].threshold_us, 100);
        assert_true(x.margins[0].first);
        assert_int_equal(x.margins[1].press.seat, 4);
        assert_int_equal(x.margins[1].margin_us, 0);
        assert_true(x.margins[1].first);
        assert_int_equal(x.margins[2].press.seat, 6);
        assert_int_equal(x.margins[2].margin_us, 500);
        assert_false(x.margins[2].first);
        assert_int_equal(x.margins[2].beaten_by, 1);            /* seat 4: 500 − 100 beats 410 − 100 */
        assert_int_equal(x.margins[2].beaten_gap_us, 500);
        assert_int_equal(x.margins[2].beaten_threshold_us, 100);

        assert_int_equal(judge_explain(&(struct judge_result) { 0 }, &x), -EINVAL);
}

static void bad_presses_windows_and_configs_are_rejected(void **state) {
        struct judge j;
        struct judge_config c;
        enum judge_reason why = JUDGE_HELD;
        struct judge_press ok = { .seat = 0, .time_us = O, .uncertainty_us = 0, .received_us = O };
        struct judge_press bad;
        (void) state;

        assert_int_equal(judge_init(&j, NULL), 0);
        assert_int_equal(judge_poll(&j, O, NULL, &(struct judge_result) { 0 }), -ENOENT);
        assert_int_equal(judge_open(&j, O, 0), -EINVAL);
        assert_int_equal(judge_open(&j, O, SEAT(JUDGE_MAX_SEATS)), -EINVAL);
        assert_int_equal(judge_open(&j, JUDGE_TIME_LIMIT_US + 1, JUDGE_ALL_SEATS), -EINVAL);
        assert_int_equal(judge_open(&j, O, JUDGE_ALL_SEATS), 0);
        assert_int_equal(judge_open(&j, O, JUDGE_ALL_SEATS), -EBUSY);

        bad = ok, bad.seat = JUDGE_MAX_SEATS;
        assert_int_equal(judge_press(&j, &bad, &why), -EINVAL);
        bad = ok, bad.uncertainty_us = -1;
        assert_int_equal(judge_press(&j, &bad, &why), -EINVAL);
        bad = ok, bad.uncertainty_us = JUDGE_MAX_UNCERTAINTY_US + 1;
        assert_int_equal(judge_press(&j, &bad, &why), -EINVAL);
        bad = ok, bad.time_us = -JUDGE_TIME_LIMIT_US - 1;
        assert_int_equal(judge_press(&j, &bad, &why), -EINVAL);
        bad = ok, bad.received_us = JUDGE_TIME_LIMIT_US + 1;
        assert_int_equal(judge_press(&j, &bad, &why), -EINVAL);
        assert_int_equal(why, JUDGE_HELD);              /* untouched on error */
        assert_int_equal(judge_press(&j, &ok, &why), 0);
        assert_int_equal(why, JUDGE_HELD);

        judge_config_init(&c);
        assert_int_equal(judge_config_check(&c), 0);
        c.settle_us = c.tie_window_us - 1;
        assert_int_equal(judge_config_check(&c), -EINVAL);
        assert_int_equal(judge_init(&j, &c), -EINVAL);
        judge_config_init(&c);
        c.lockout_us = -1;
        assert_int_equal(judge_config_check(&c), -EINVAL);
        judge_config_init(&c);
        c.cooldown_us = JUDGE_MAX_DURATION_US + 1;
        assert_int_equal(judge_config_check(&c), -EINVAL);
        assert_string_equal(judge_reason_name(JUDGE_TOO_LATE), "too late");
        assert_string_equal(judge_reason_name((enum judge_reason) 99), "unknown");
}

static void defaults_order_presses_200us_apart_and_follow_jeopardy(void **state) {
        struct judge_config c;
        (void) state;

        judge_config_init(&c);
        assert_true(c.tie_window_us < 200);
        assert_true(c.settle_us >= c.tie_window_us + 1042 + 1000);
        assert_int_equal(c.lockout_us, 250000);
        assert_false(c.lockout_whole_window);
        assert_false(c.cooldown_extends);
        assert_true(c.accept_receive_time);
}

/* When more presses must be kept than there is room for, the excess is
 * refused and still remembered as a possible false start. */
static void a_window_refuses_presses_beyond_its_room(void **state) {
        static const struct judge_config keep_cooldowns = {
                .settle_us = SETTLE, .tie_window_us = 100, .lockout_us = LOCKOUT,
                .cooldown_us = 10000 * MS, .cooldown_extends = true, .accept_receive_time = true,
        };
        struct judge j;
        struct judge_result r;
        enum judge_reason why;
        (void) state;

        /* Seat 0 wins window 1; its cooldown (10 s, extending) then makes
         * every press of seat 0 in window 2 one the judge must keep. */
        assert_int_equal(judge_init(&j, &keep_cooldowns), 0);
        assert_int_equal(judge_open(&j, O, JUDGE_ALL_SEATS), 0);
        assert_int_equal(judge_press(&j, &(struct judge_press) { .seat = 0, .time_us = O + 1 * MS,
                                                                .received_us = O + 2 * MS }, &why), 0);
        assert_int_equal(judge_poll(&j, O + 5 * MS, NULL, &r), JUDGE_DECIDED);
        assert_int_equal(judge_open(&j, O + 1000 * MS, JUDGE_ALL_SEATS), 0);
        for (int64_t i = 0; i < JUDGE_MAX_PRESSES; i++) {
                assert_int_equal(judge_press(&j, &(struct judge_press) { .seat = 0,
                                 .time_us = O + 1001 * MS + i, .received_us = O + 1002 * MS + i }, &why), 0);
                assert_int_equal(why, JUDGE_COOLDOWN);
        }
        assert_int_equal(judge_press(&j, &(struct judge_press) { .seat = 1, .time_us = O + 1100 * MS,
                                                                .received_us = O + 1101 * MS }, &why), 0);
        assert_int_equal(why, JUDGE_FULL);
        assert_int_equal(judge_close(&j), 0);
        assert_int_equal(judge_open(&j, O + 1200 * MS, JUDGE_ALL_SEATS), 0);
        assert_int_equal(judge_press(&j, &(struct judge_press) { .seat = 1, .time_us = O + 1201 * MS,
                                                                .received_us = O + 1202 * MS }, &why), 0);
        assert_int_equal(why, JUDGE_LOCKED_OUT);
}

int main(void) {
        struct CMUnitTest tests[N_SCENARIOS + 7];
        size_t n = 0;

        for (size_t i = 0; i < N_SCENARIOS; i++)
                tests[n++] = (struct CMUnitTest) {
                        .name = scenarios[i].name,
                        .test_func = run_scenario,
                        .initial_state = (void *) &scenarios[i],
                };
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(arrival_order_does_not_change_the_decision);
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(seat_numbers_never_break_a_tie);
        tests[n++] = (struct CMUnitTest)
                cmocka_unit_test(random_windows_decide_alike_whatever_the_call_order_and_poll_times);
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(explanation_gives_margins_thresholds_and_a_witness);
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(bad_presses_windows_and_configs_are_rejected);
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(defaults_order_presses_200us_apart_and_follow_jeopardy);
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(a_window_refuses_presses_beyond_its_room);
        return _cmocka_run_group_tests("judge", tests, n, NULL, NULL);
}
