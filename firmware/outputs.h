/* firmware/outputs.h — the button lights, the status light and the buzzer:
 * what LIGHT, BUZZ and LOCKOUT set (docs/protocol.md section 6), and what
 * the pad shows of its own state.  Main loop only; outputs_tick() recomputes
 * every pin from the state and the millisecond clock, once a millisecond.
 *
 * Lights, in order of precedence:
 *   - host gone (section 9): every button light blinks slowly, 1 Hz;
 *   - a locked-out button's light is off while the button is held;
 *   - else what the last LIGHT for the button said, until its duration ran
 *     out (then off); blink is 125 ms on, 125 ms off.
 * The status light (PB5): on while assigned and the host is heard; a short
 * flash every second while unassigned; the slow blink while the host is
 * gone; 8 Hz flicker when the pad has no uid (it then stays silent).
 *
 * The buzzer is Timer2 toggling OC2A: 2 kHz for BUZZ, 1 kHz for the short
 * low beep of a locked-out press.
 */
#ifndef ARBITER_FIRMWARE_OUTPUTS_H
#define ARBITER_FIRMWARE_OUTPUTS_H

#include <stdint.h>

enum status_show {
        STATUS_NO_UID,
        STATUS_UNASSIGNED,
        STATUS_ASSIGNED,
        STATUS_HOST_GONE,
};

void outputs_init(uint8_t n_buttons);
/* Everything off: lights, buzzer, lockout (RESET, power-on). */
void outputs_clear(void);
void outputs_light(uint8_t button, uint8_t mode, uint16_t duration_ms, uint32_t now_ms);
void outputs_buzz(uint16_t duration_ms, uint8_t pattern, uint32_t now_ms);
void outputs_lockout(uint16_t mask);
/* A press of a locked-out button: the short low beep. */
void outputs_locked_press(uint32_t now_ms);
uint8_t outputs_locked(uint8_t button);
void outputs_tick(uint32_t now_ms, enum status_show status, uint8_t held);

#endif
