/* firmware/board.c — see board.h. */
#include "firmware/board.h"

#include <util/atomic.h>

void board_init(void) {
        /* Buttons: inputs with pull-ups; RXD pulled up too, so that a
         * MAX485 whose receiver is off while we drive (its /RE tied to DE)
         * leaves the line idle, not floating. */
        DDRC &= (uint8_t) ~0x3f;
        PORTC |= 0x3f;
        DDRD &= (uint8_t) ~(_BV(PD3) | _BV(PD0));
        PORTD |= _BV(PD3) | _BV(PD0);
        /* Outputs, low: DE, lights, buzzer, status. */
        PORTD &= (uint8_t) ~(_BV(PD2) | 0xf0);
        DDRD |= _BV(PD2) | 0xf0;
        PORTB &= (uint8_t) ~(_BV(PB0) | _BV(PB1) | _BV(PB2) | _BV(PB3) | _BV(PB5));
        DDRB |= _BV(PB0) | _BV(PB1) | _BV(PB2) | _BV(PB3) | _BV(PB5);
        /* The spare pin: input with pull-up, not floating. */
        PORTB |= _BV(PB4);
}

void board_lights(uint8_t mask) {
        /* PORTD also holds DE, which the UART's interrupts drive: the
         * read-modify-write must not interleave with them. */
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                PORTD = (uint8_t) ((PORTD & 0x0f) | (uint8_t) (mask << 4));
                PORTB = (uint8_t) ((PORTB & (uint8_t) ~0x07) | ((mask >> 4) & 0x07));
        }
}
