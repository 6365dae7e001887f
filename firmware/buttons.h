/* firmware/buttons.h — button and slap edges, stamped in the pin-change
 * interrupt and debounced without delaying the first edge.
 *
 * docs/protocol.md section 7, step 1: an event carries the pad time of the
 * first edge of the contact.  The pin-change interrupt reads the pad clock
 * first, then the pins; a button whose level changed and that is not in its
 * debounce window gives an edge at once, with that time, and opens a window
 * of BUTTONS_DEBOUNCE_TICKS (5 ms).  Edges inside the window are bounce:
 * they only note their time.  When the window closes (buttons_poll(), from
 * the main loop) the pin is read again; if it settled on the other level
 * than the one reported (a tap shorter than the window), that change is an
 * edge too, stamped with the last edge seen in the window.
 *
 *     level reported R --edge--> edge(time of this edge), window open
 *     window open --edges--> note last edge time
 *     window closes: pin == R? nothing : edge(last edge time)
 *
 * Edges go to a ring of BUTTONS_RING entries that the main loop drains in
 * order (buttons_next()); a full ring drops the new edge and counts it.
 * Two buttons pressed in the same microsecond come out of one interrupt,
 * both with its time: the order between them is the host's tie rule, not
 * the pin numbering.
 */
#ifndef ARBITER_FIRMWARE_BUTTONS_H
#define ARBITER_FIRMWARE_BUTTONS_H

#include <stdint.h>

#include "firmware/clock.h"

/* docs/protocol.md section 7 suggests 5 ms; arcade microswitches bounce
 * for 1 to 5 ms. */
#define BUTTONS_DEBOUNCE_MS     5
#define BUTTONS_DEBOUNCE_TICKS  ((uint32_t) BUTTONS_DEBOUNCE_MS * CLOCK_TICKS_PER_MS)
#define BUTTONS_RING            16

struct button_edge {
        uint8_t button;
        uint8_t pressed;                /* 1 PRESS, 0 RELEASE */
        uint32_t time;                  /* pad time of the edge */
};

extern volatile uint8_t buttons_lost;   /* edges dropped: ring full */

/* Enables the pin-change interrupts of buttons 0 .. n-1. */
void buttons_init(uint8_t n_buttons);
/* Closes debounce windows that have run out. */
void buttons_poll(void);
/* Takes the oldest edge; 0 when there is none. */
uint8_t buttons_next(struct button_edge *ret);
/* Whether an edge waits in the ring. */
uint8_t buttons_pending(void);
/* The buttons held now, as reported (bit i: button i). */
uint8_t buttons_held(void);

#endif
