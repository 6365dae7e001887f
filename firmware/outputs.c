/* firmware/outputs.c — see outputs.h. */
#include "firmware/outputs.h"

#include <avr/io.h>

#include "firmware/board.h"
#include "firmware/proto.h"

/* Timer2 at clk/32 = 500 kHz toggling OC2A: f = 500 kHz / (2 (OCR2A + 1)). */
#define BUZZ_OCR_2KHZ           124
#define BUZZ_OCR_1KHZ           249
#define LOCKED_BEEP_MS          60      /* "a short low beep" */
#define HOST_GONE_HALF_MS       500     /* slow blink: 1 Hz */
#define UNASSIGNED_PERIOD_MS    1000
#define UNASSIGNED_FLASH_MS     100
#define NO_UID_HALF_MS          62      /* about 8 Hz */

/* BUZZ patterns (docs/protocol.md, BUZZ): on/off steps in ms, repeated. */
static const uint16_t pattern_beeps[] = { 100, 100 };
static const uint16_t pattern_long_short[] = { 300, 100, 100, 100 };

struct light {
        uint8_t mode;
        uint8_t timed;
        uint32_t until_ms;
};

static uint8_t n_lights;
static struct light light[BOARD_BUTTONS_MAX];
static uint16_t lockout;

static uint8_t buzz_on, buzz_pattern;
static uint32_t buzz_until_ms;
static uint8_t beep_on;
static uint32_t beep_until_ms;
static uint8_t tone_now;                /* 0 off, else the OCR2A value sounding */

/* Phase counters, moved on by the milliseconds since the last tick: the
 * tick runs every millisecond, and 32-bit divisions (about 600 cycles each
 * on this core) every millisecond would cost more than everything else. */
struct phase {
        uint16_t t, period;
};

static void phase_advance(struct phase *p, uint32_t delta) {
        if (delta >= p->period)
                delta %= p->period;
        p->t = (uint16_t) (p->t + delta);
        if (p->t >= p->period)
                p->t = (uint16_t) (p->t - p->period);
}

static struct phase ph_blink = { 0, 2 * PROTO_BLINK_HALF_MS };
static struct phase ph_slow = { 0, 2 * HOST_GONE_HALF_MS };
static struct phase ph_flash = { 0, UNASSIGNED_PERIOD_MS };
static struct phase ph_flicker = { 0, 2 * NO_UID_HALF_MS };
static struct phase ph_buzz = { 0, 1 };
static uint32_t last_tick_ms;

void outputs_init(uint8_t n_buttons) {
        n_lights = n_buttons;
        TCCR2A = _BV(WGM21);            /* CTC, OC2A disconnected, stopped */
        TCCR2B = 0;
        outputs_clear();
}

void outputs_clear(void) {
        for (uint8_t i = 0; i < BOARD_BUTTONS_MAX; i++)
                light[i].mode = PROTO_LIGHT_OFF;
        lockout = 0;
        buzz_on = 0;
        beep_on = 0;
}

void outputs_light(uint8_t button, uint8_t mode, uint16_t duration_ms, uint32_t now_ms) {
        uint8_t from = button, to = button;

        if (mode > PROTO_LIGHT_BLINK)
                return;                 /* an unknown mode: ignored */
        if (button == PROTO_BUTTON_ALL) {
                from = 0;
                to = (uint8_t) (n_lights - 1);
        } else if (button >= n_lights) {
                return;
        }
        if (mode == PROTO_LIGHT_BLINK)
                ph_blink.t = 0;         /* on at once: an identify is seen now */
        for (uint8_t i = from; i <= to; i++) {
                light[i].mode = mode;
                light[i].timed = duration_ms != 0;
                light[i].until_ms = now_ms + duration_ms;
        }
}

void outputs_buzz(uint16_t duration_ms, uint8_t pattern, uint32_t now_ms) {
        if (duration_ms == 0) {
                buzz_on = 0;
                return;
        }
        if (pattern > 2)
                return;
        buzz_on = 1;
        buzz_pattern = pattern;
        ph_buzz.t = 0;
        ph_buzz.period = pattern == 1 ? 200 : pattern == 2 ? 600 : 1;
        buzz_until_ms = now_ms + duration_ms;
}

void outputs_lockout(uint16_t mask) {
        lockout = mask;
}

uint8_t outputs_locked(uint8_t button) {
        return (lockout >> button) & 1;
}

void outputs_locked_press(uint32_t now_ms) {
        beep_on = 1;
        beep_until_ms = now_ms + LOCKED_BEEP_MS;
}

/* Whether a pattern of steps (on, off, on, off ...) is on at phase t,
 * 0 <= t < its period. */
static uint8_t pattern_on(const uint16_t *steps, uint8_t n, uint16_t t) {
        for (uint8_t i = 0; i < n; i++) {
                if (t < steps[i])
                        return !(i & 1);
                t -= steps[i];
        }
        return 0;
}


static void tone(uint8_t ocr) {
        if (ocr == tone_now)
                return;
        tone_now = ocr;
        if (!ocr) {
                /* Stopped while silent: a timer counting for nothing
                 * costs power, and the emulator a cycle timer. */
                TCCR2B = 0;
                TCCR2A = _BV(WGM21);
                PORTB &= (uint8_t) ~_BV(PB3);
                return;
        }
        OCR2A = ocr;
        TCNT2 = 0;
        TCCR2A = _BV(WGM21) | _BV(COM2A0);  /* toggle OC2A on match */
        TCCR2B = _BV(CS21) | _BV(CS20);     /* clk/32 */
}

void outputs_tick(uint32_t now_ms, enum status_show status, uint8_t held) {
        uint8_t mask = 0;
        uint32_t delta = now_ms - last_tick_ms;

        if (!delta)
                return;
        last_tick_ms = now_ms;
        phase_advance(&ph_blink, delta);
        phase_advance(&ph_slow, delta);
        phase_advance(&ph_flash, delta);
        phase_advance(&ph_flicker, delta);
        phase_advance(&ph_buzz, delta);

        uint8_t blink = ph_blink.t < PROTO_BLINK_HALF_MS;
        uint8_t slow = ph_slow.t < HOST_GONE_HALF_MS;

        for (uint8_t i = 0; i < n_lights; i++) {
                struct light *l = &light[i];

                if (l->timed && (int32_t) (now_ms - l->until_ms) >= 0)
                        l->mode = PROTO_LIGHT_OFF;
                if (l->mode == PROTO_LIGHT_ON || (l->mode == PROTO_LIGHT_BLINK && blink))
                        mask |= (uint8_t) (1u << i);
        }
        mask &= (uint8_t) ~(lockout & held);
        if (status == STATUS_HOST_GONE)
                mask = slow ? (uint8_t) ((1u << n_lights) - 1) : 0;
        board_lights(mask);

        switch (status) {
        case STATUS_NO_UID:
                if (ph_flicker.t < NO_UID_HALF_MS)
                        BOARD_STATUS_ON();
                else
                        BOARD_STATUS_OFF();
                break;
        case STATUS_UNASSIGNED:
                if (ph_flash.t < UNASSIGNED_FLASH_MS)
                        BOARD_STATUS_ON();
                else
                        BOARD_STATUS_OFF();
                break;
        case STATUS_ASSIGNED:
                BOARD_STATUS_ON();
                break;
        case STATUS_HOST_GONE:
                if (slow)
                        BOARD_STATUS_ON();
                else
                        BOARD_STATUS_OFF();
                break;
        }

        if (buzz_on && (int32_t) (now_ms - buzz_until_ms) >= 0)
                buzz_on = 0;
        if (beep_on && (int32_t) (now_ms - beep_until_ms) >= 0)
                beep_on = 0;
        if (buzz_on) {
                uint8_t on = buzz_pattern == 0 ? 1
                           : buzz_pattern == 1 ? pattern_on(pattern_beeps, 2, ph_buzz.t)
                           : pattern_on(pattern_long_short, 4, ph_buzz.t);
                tone(on ? BUZZ_OCR_2KHZ : 0);
        } else {
                tone(beep_on ? BUZZ_OCR_1KHZ : 0);
        }
}
