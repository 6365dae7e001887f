/* tools/arbiter-padsim/pad.h — one simulated pad: the protocol state machine.
 *
 *   UNASSIGNED --ASSIGN(uid)--> ASSIGNED --RESET--> UNASSIGNED
 *   HELLO every 250 ms          HEARTBEAT every 500 ms, answers SYNC,
 *   (random phase)              obeys LIGHT/BUZZ/LOCKOUT, sends events
 *
 * A press or release becomes an event with the next event number and the
 * pad-clock time at which the contact closed or opened; it stays pending and
 * is retransmitted (20 ms, doubling to 200 ms) until the host ACKs that
 * number.  Pending events and the event counter survive RESET and unplugs:
 * only a power cycle would lose them, and the simulator never power-cycles a
 * pad.  Presses on an unassigned pad are ignored, as a pad not yet in a game
 * has nobody to tell.
 *
 * Ownership: the pad owns its timers; it sends through sim->line.
 */
#ifndef ARBITER_PADSIM_PAD_H
#define ARBITER_PADSIM_PAD_H

#include <stdbool.h>
#include <stdint.h>

#include "hardware/frame.h"
#include "tools/arbiter-padsim/sim.h"

struct pad;

int pad_new(struct sim *sim, unsigned index, const struct pad_config *cfg, struct pad **ret);
void pad_free(struct pad *p);           /* accepts NULL */

/* Starts the HELLO timer. */
void pad_start(struct pad *p);

/* A valid frame from the host, read at rx_us; the pad decides whether it
 * is addressed to it. */
void pad_receive(struct pad *p, const struct frame *f, int64_t rx_us);

/* The contact of button closed at press_us (CLOCK_MONOTONIC µs; may be a
 * little in the past: a timer fires late, the press did not).  The PRESS
 * goes out now, after delay_us on the line if that is >= 0.  With hold_us
 * > 0 the button is released at press_us + hold_us; otherwise it stays
 * down until pad_release().  A press of a button that is still down
 * releases it first (at press_us, or when its hold ran out if that was
 * earlier): the finger came up in between.  Returns -EINVAL for a button
 * the pad does not have; everything a real pad would do quietly (ignore a
 * press while unassigned, a locked button) is logged and returns 0. */
int pad_press(struct pad *p, unsigned button, int64_t press_us, int64_t delay_us, int64_t hold_us);
int pad_release(struct pad *p, unsigned button, int64_t release_us);

/* The pad's clock at host time host_us (0 without a clock). */
uint32_t pad_clock(const struct pad *p, int64_t host_us);

bool pad_assigned(const struct pad *p);
uint8_t pad_kind(const struct pad *p);
unsigned pad_buttons(const struct pad *p);

/* One line of counters, at exit. */
void pad_log_stats(const struct pad *p);

#endif
