/* Crash Pilot on the real firmware: a two-seat table whose seats are two
 * emulated ATmega328P pads (tests/avr/avrpad, firmware/pad.elf), each on
 * its own pty with its own crystal error (avr_stage.h).
 *
 * The first-press judge (docs/judge.md) takes the presses as the pads
 * stamped them: of two presses 3 ms apart the earlier wins, whichever pad
 * makes it; two pads pressing in the same microsecond are a tie and start
 * a tiebreak, and every call or tie agrees with the times and
 * uncertainties GET /v1/presses reports ("The tie set").  The verdicts come
 * back to the pins: a correct call lights the button that made it, a wrong
 * one sounds the buzzer, a tie blinks the tied pads' lamps.  A pad whose
 * chip is reset mid-match comes back as itself and plays on.  And a whole
 * match is played to its end on the pads (avr_checks.h says each check;
 * test_avr_bus.c runs the same on one RS-485 bus). */
#define _GNU_SOURCE
#include <stdint.h>
#include <curl/curl.h>

#include "tests/integration/avr_checks.h"
#include "tests/integration/avr_stage.h"
#include "tests/integration/harness.h"

/* uids no other test uses ("AVR" and a serial) */
#define UID_BASE        UINT64_C(0x4156520000000020)
static const int crystal_ppm[] = { -45, 25 };

static struct avr_stage stage;

static int setup(void **state) {
        const char *const args[] = { "--trace", NULL };
        (void) state;

        avr_stage_start(&stage, AVR_LINES_OWN, 2, UID_BASE, crystal_ppm, args);
        avr_table_make(&stage);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        avr_stage_stop(&stage);
        return 0;
}

static void the_judge_orders_what_it_can_and_ties_the_rest(void **state) {
        (void) state;
        avr_check_judge(&stage);
}

static void lights_and_buzzer_reach_the_pins(void **state) {
        (void) state;
        avr_check_lights_and_buzzer(&stage);
}

static void a_pad_reset_mid_match_keeps_its_identity(void **state) {
        (void) state;
        avr_check_reset_mid_match(&stage);
}

static void a_whole_match_is_played_on_the_pads(void **state) {
        (void) state;
        avr_check_whole_match(&stage);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_judge_orders_what_it_can_and_ties_the_rest),
                cmocka_unit_test(lights_and_buzzer_reach_the_pins),
                cmocka_unit_test(a_pad_reset_mid_match_keeps_its_identity),
                cmocka_unit_test(a_whole_match_is_played_on_the_pads),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
