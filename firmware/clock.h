/* firmware/clock.h — the pad's clock: pad time and the millisecond tick.
 *
 * Pad time (docs/protocol.md section 7, "Pad time") is Timer1, free-running
 * at F_CPU / 8 = 2 MHz (0.5 µs a tick, clock_hz 2000000 in HELLO), as the
 * low 16 bits, and a 16-bit count of its overflows kept by the overflow
 * interrupt as the high 16 bits: exactly 32 bits, wrapping from 0xffffffff
 * to 0 every 2^32 / 2 MHz = 35.8 minutes, as the protocol requires.  2 MHz
 * rather than 1: the prescaler has no /16, and the full rate costs nothing.
 *
 * The race when extending: an overflow may happen after the interrupts were
 * masked (inside another interrupt, or in clock_now()) and before TCNT1 is
 * read; its interrupt is then pending (TOV1 set) and clock_hi not yet
 * counted.  clock_read_isr() sees TOV1 and adds the missing overflow, but
 * only if TCNT1 is in its lower half: a small count read with TOV1 set means
 * the wrap came before the read; a count near 0xffff with TOV1 set cannot
 * have wrapped after the flag and before the read in the few cycles between,
 * so it belongs before the wrap (the flag is then one set a moment ago).
 * This holds while no code masks interrupts for more than half a timer
 * period, 16 ms — ours mask for microseconds.
 *
 * The millisecond tick is Timer1's compare A, moved on by 2000 ticks in its
 * interrupt, so milliseconds and pad time come from one crystal; it also
 * wakes the CPU from idle sleep once a millisecond, which is what drives
 * blinking, resends and heartbeats.
 */
#ifndef ARBITER_FIRMWARE_CLOCK_H
#define ARBITER_FIRMWARE_CLOCK_H

#include <avr/io.h>
#include <stdint.h>

#define CLOCK_PRESCALE          8
#define CLOCK_HZ                (F_CPU / CLOCK_PRESCALE)
#define CLOCK_TICKS_PER_MS      (CLOCK_HZ / 1000)
#define CLOCK_TICKS_PER_US      (CLOCK_HZ / 1000000)

extern volatile uint16_t clock_hi;      /* Timer1 overflows, the high half */
extern volatile uint32_t clock_ms;      /* milliseconds, wrapping every 49.7 days */

void clock_init(void);

/* Pad time, with interrupts masked (in an interrupt, or inside an atomic
 * block): bounded, no loop. */
static inline uint32_t clock_read_isr(void) {
        uint16_t lo = TCNT1;
        uint16_t hi = clock_hi;

        if ((TIFR1 & _BV(TOV1)) && lo < 0x8000)
                hi++;
        return ((uint32_t) hi << 16) | lo;
}

/* Pad time, from the main loop. */
uint32_t clock_now(void);
/* Milliseconds, from the main loop (32 bits: a LIGHT's or a BUZZ's
 * duration is up to 65535 ms, past what 16-bit serial arithmetic orders). */
uint32_t clock_ms_now(void);

/* True once now has reached t (serial arithmetic). */
static inline uint8_t clock_ms_due(uint32_t now, uint32_t t) {
        return (int32_t) (now - t) >= 0;
}

#endif
