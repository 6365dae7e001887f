/* tests/integration/avr_checks.h — the checks the emulated-pad programs
 * run (test_avr_pads.c and test_avr_match.c on pads with a line each,
 * test_avr_bus.c on pads sharing one RS-485 bus), each on whatever stage
 * (avr_stage.h) it is given, so that both kinds of line pass the same
 * checks.  Each fails the cmocka test it runs in.
 *
 * Timing goes through signals only (a line a pad prints, an event, a state
 * the daemon shows); what is compared is what the daemon claims about
 * times it measured — a press's time and uncertainty, an order, a tie —
 * against the times the emulator printed, never how long anything took. */
#ifndef ARBITER_TESTS_AVR_CHECKS_H
#define ARBITER_TESTS_AVR_CHECKS_H

#include "tests/integration/avr_stage.h"

/* ---- the line ---- */

/* Each pad is in GET /v1/pads as its HELLO said (a 7-button pad, firmware
 * 1.0, a 2 MHz clock), on its line, connected, given an address (on a bus,
 * each its own) and synced; the pad's trace (the pads run with --trace)
 * shows its HELLO from address 0, its ASSIGN, and its frames from that
 * address since; its status light is on.  A bus is polled (polls and
 * discoveries counted). */
void avr_check_discovery(struct avr_stage *s);
/* Presses taking turns on every pad, each at a host time: the time GET
 * /v1/presses reports is within the uncertainty it reports of the host
 * time the pad printed. */
void avr_check_press_times(struct avr_stage *s, unsigned presses);
/* Pads a and b press in pairs from 3 ms apart down to the same
 * microsecond, either first: never reported in the wrong order by more than
 * the judge's tie threshold (their combined uncertainty, or the 100 µs tie
 * window if that is more), 3 ms apart in the right one, and listed in
 * reported-time order. */
void avr_check_order(struct avr_stage *s, unsigned a, unsigned b);
/* A PRESS lost on the line (drop out) and an ACK lost on its way to the pad
 * (drop in): resent, the pad ends with nothing pending, the press delivered
 * once. */
void avr_check_lost_frames(struct avr_stage *s);

/* ---- Crash Pilot on the pads ---- */

/* Makes a table whose seats 1..n are pads 0..n-1 (after the stage has
 * started); the match checks play at it. */
void avr_table_make(struct avr_stage *s);
/* Of two right calls by pads 0 and 1 3 ms apart the earlier wins, either
 * pad; the same microsecond is a tie; 60 µs apart the decision is the one
 * the reported times and uncertainties make (docs/judge.md, "The tie
 * set"). */
void avr_check_judge(struct avr_stage *s);
/* The verdicts' LIGHTs and BUZZ on the pins, on the pad's own clock from
 * the frame's arrival: a correct call's lamp lit for its 1000 ms and out
 * after, a wrong call's buzzer on and off, a tie's blink of every lamp of
 * both tied pads (on and off again and again for 1000 ms, out after). */
void avr_check_lights_and_buzzer(struct avr_stage *s);
/* Pad 0's chip reset mid-match comes back as itself (HELLO from address 0,
 * the same pad and address, synced again) and its next presses are judged
 * into its seat's calls. */
void avr_check_reset_mid_match(struct avr_stage *s);
/* A whole match to its end: right calls, a tie and its tiebreak, a wrong
 * call, until seat 1 (pad 0) has turned over its last card; every call and
 * the tie from the pads, each press counted once. */
void avr_check_whole_match(struct avr_stage *s);

#endif
