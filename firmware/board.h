/* firmware/board.h — the pad's board: an ATmega328P at 16 MHz (Arduino Uno,
 * Nano and their clones), its pin map and the build's defaults.
 *
 * Pin map (docs/hardware.md draws it):
 *
 *     PD0 RXD   PD1 TXD     the UART: the board's USB serial chip on a
 *                           full-duplex line, or a MAX485's RO and DI
 *     PD2 (D2)              RS-485 driver enable: the MAX485's DE and /RE
 *                           tied together, high while the pad transmits
 *     PC0..PC5 (A0..A5)     buttons 0..5, to ground, internal pull-ups
 *                           (PCINT8..13, one vector); a slap pad's plate
 *                           is button 0
 *     PD3 (D3)              button 6, "Doesn't fit" (PCINT19)
 *     PD4..PD7 (D4..D7)     lights of buttons 0..3, active high
 *     PB0..PB2 (D8..D10)    lights of buttons 4..6, active high
 *     PB3 (D11, OC2A)       buzzer (Timer2 toggles it: a passive buzzer
 *                           or a small speaker through a transistor)
 *     PB5 (D13)             the status light (the board's own "L" LED)
 *     PB4 (D12)             spare
 *
 * That is 17 pins with the UART, every digital pin of a Nano (A6 and A7
 * are analog inputs only, without pin-change interrupts): seven buttons
 * with their lights is what a 328P wires directly.  A 16-key referee keypad
 * would take a 4x4 matrix (8 pins, rows on pin-change interrupts and a
 * scan to tell the column after the stamped edge), without lights; this
 * firmware does not build one.
 */
#ifndef ARBITER_FIRMWARE_BOARD_H
#define ARBITER_FIRMWARE_BOARD_H

#include <avr/io.h>
#include <stdint.h>

#ifndef F_CPU
#error "F_CPU must be set by the build (16000000 on an Uno or a Nano)"
#endif

/* The build's defaults, used when the EEPROM does not say (firmware/config.h):
 * a Crash Pilot button pad on a full-duplex line at 1 Mbaud. */
#ifndef PAD_KIND
#define PAD_KIND        1       /* docs/protocol.md section 7: 1 buttons, 2 slap */
#endif
#ifndef PAD_BUTTONS
#define PAD_BUTTONS     7       /* Crash Pilot: rows 1-6 and "Doesn't fit" */
#endif
#ifndef PAD_RS485
#define PAD_RS485       0       /* 1: RS-485 turn-taking (section 10) */
#endif
#ifndef PAD_BAUD
#define PAD_BAUD        1000000UL
#endif

#define PAD_FW_MAJOR    1
#define PAD_FW_MINOR    0

/* The most buttons this board wires (above). */
#define BOARD_BUTTONS_MAX       7
#define BOARD_BUTTONS_MASK      0x7f

/* Reads the seven button inputs as bits 0..6, 1 = pressed (they are active
 * low).  Cheap enough for an interrupt: three loads and a few shifts. */
static inline uint8_t board_buttons_read(void) {
        uint8_t raw = (uint8_t) ((PINC & 0x3f) | ((PIND & _BV(PD3)) << 3));
        return (uint8_t) (~raw & BOARD_BUTTONS_MASK);
}

#define BOARD_DE_HIGH()         (PORTD |= _BV(PD2))     /* one sbi: atomic */
#define BOARD_DE_LOW()          (PORTD &= (uint8_t) ~_BV(PD2))
#define BOARD_STATUS_ON()       (PORTB |= _BV(PB5))
#define BOARD_STATUS_OFF()      (PORTB &= (uint8_t) ~_BV(PB5))

void board_init(void);
/* Sets the seven button lights (bit i: light of button i). */
void board_lights(uint8_t mask);

#endif
