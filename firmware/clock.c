/* firmware/clock.c — see clock.h. */
#include "firmware/clock.h"

#include <avr/interrupt.h>
#include <util/atomic.h>

volatile uint16_t clock_hi;
volatile uint32_t clock_ms;

void clock_init(void) {
        TCCR1A = 0;                     /* normal mode: counts 0..0xffff */
        TCCR1B = _BV(CS11);             /* clk/8 */
        TCNT1 = 0;
        OCR1A = CLOCK_TICKS_PER_MS;
        TIFR1 = _BV(TOV1) | _BV(OCF1A);
        TIMSK1 = _BV(TOIE1) | _BV(OCIE1A);
}

ISR(TIMER1_OVF_vect) {
        clock_hi++;
}

ISR(TIMER1_COMPA_vect) {
        OCR1A += CLOCK_TICKS_PER_MS;
        clock_ms++;
}

uint32_t clock_now(void) {
        uint32_t t;

        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                t = clock_read_isr();
        }
        return t;
}

uint32_t clock_ms_now(void) {
        uint32_t ms;

        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                ms = clock_ms;
        }
        return ms;
}
