/* firmware/buttons.c — see buttons.h. */
#include "firmware/buttons.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "firmware/board.h"

volatile uint8_t buttons_lost;

static uint8_t enabled;                 /* buttons 0 .. n-1 */
static volatile uint8_t seen;           /* level at the last interrupt */
static volatile uint8_t reported;       /* level the last edge reported */
static volatile uint8_t in_window;
static uint32_t window_end[BOARD_BUTTONS_MAX];
static uint32_t last_edge[BOARD_BUTTONS_MAX];

static struct button_edge ring[BUTTONS_RING];
static volatile uint8_t ring_wr, ring_count;
static uint8_t ring_rd;

static void push(uint8_t button, uint8_t pressed, uint32_t time) {
        if (ring_count == BUTTONS_RING) {
                buttons_lost++;
                return;
        }
        ring[ring_wr] = (struct button_edge) { button, pressed, time };
        ring_wr = (uint8_t) ((ring_wr + 1) % BUTTONS_RING);
        ring_count++;
}

void buttons_init(uint8_t n_buttons) {
        enabled = (uint8_t) ((1u << n_buttons) - 1) & BOARD_BUTTONS_MASK;
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                seen = reported = board_buttons_read() & enabled;
                in_window = 0;
                ring_wr = ring_rd = ring_count = 0;
                PCMSK1 = enabled & 0x3f;                        /* PC0..PC5 */
                PCMSK2 = (enabled & 0x40) ? _BV(PCINT19) : 0;   /* PD3 */
                PCIFR = _BV(PCIF1) | _BV(PCIF2);
                PCICR = _BV(PCIE1) | _BV(PCIE2);
        }
}

/* Both pin-change vectors: the clock first, then the pins.  At most seven
 * rounds of the loop, each a few compares and stores. */
ISR(PCINT1_vect) {
        uint32_t t = clock_read_isr();
        uint8_t now = board_buttons_read() & enabled;
        uint8_t changed = now ^ seen;
        uint8_t bit = 1;

        seen = now;
        for (uint8_t i = 0; changed; i++, bit <<= 1) {
                if (!(changed & bit))
                        continue;
                changed &= (uint8_t) ~bit;
                if (in_window & bit) {
                        last_edge[i] = t;
                        continue;
                }
                if ((now ^ reported) & bit) {
                        push(i, (now & bit) != 0, t);
                        reported ^= bit;
                }
                in_window |= bit;
                window_end[i] = t + BUTTONS_DEBOUNCE_TICKS;
        }
}

ISR(PCINT2_vect, ISR_ALIASOF(PCINT1_vect));

void buttons_poll(void) {
        uint8_t open = in_window;
        uint8_t bit = 1;

        for (uint8_t i = 0; open; i++, bit <<= 1) {
                if (!(open & bit))
                        continue;
                open &= (uint8_t) ~bit;
                /* One button at a time with interrupts masked: a few µs. */
                ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                        uint32_t t = clock_read_isr();

                        if ((int32_t) (t - window_end[i]) >= 0) {
                                uint8_t level = board_buttons_read() & bit;

                                in_window &= (uint8_t) ~bit;
                                seen = (uint8_t) ((seen & ~bit) | level);
                                if ((level ^ reported) & bit) {
                                        push(i, level != 0, last_edge[i]);
                                        reported ^= bit;
                                }
                        }
                }
        }
}

uint8_t buttons_next(struct button_edge *ret) {
        uint8_t got = 0;

        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                if (ring_count) {
                        *ret = ring[ring_rd];
                        ring_rd = (uint8_t) ((ring_rd + 1) % BUTTONS_RING);
                        ring_count--;
                        got = 1;
                }
        }
        return got;
}

uint8_t buttons_pending(void) {
        return ring_count != 0;
}

uint8_t buttons_held(void) {
        return reported;
}
