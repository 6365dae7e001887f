/* The pad bus against the real firmware: two emulated ATmega328P pads
 * (tests/avr/avrpad, firmware/pad.elf), each on its own pty (a USB pad's
 * line) with its own crystal error, and the daemon reading them as it
 * reads real pads (avr_stage.h).
 *
 * The pads are discovered and addressed as docs/protocol.md section 5 has
 * it; the press times the daemon reports agree with the host times the
 * presses were injected at, within the uncertainty it reports with each;
 * presses on two pads, from 3 ms apart down to the same microsecond, are
 * never reported in the wrong order beyond that uncertainty, and GET
 * /v1/presses lists them in pad-time order; a frame lost either way is
 * resent and the press delivered once (avr_checks.h says each check;
 * test_avr_bus.c runs the same on one RS-485 bus). */
#define _GNU_SOURCE
#include <stdint.h>
#include <curl/curl.h>

#include "tests/integration/avr_checks.h"
#include "tests/integration/avr_stage.h"
#include "tests/integration/harness.h"

/* uids no other test uses ("AVR" and a serial) */
#define UID_BASE        UINT64_C(0x4156520000000010)
static const int crystal_ppm[] = { 40, -35 };

static struct avr_stage stage;

static int setup(void **state) {
        const char *const args[] = { "--trace", NULL };
        (void) state;

        avr_stage_start(&stage, AVR_LINES_OWN, 2, UID_BASE, crystal_ppm, args);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        avr_stage_stop(&stage);
        return 0;
}

static void the_pads_are_discovered_and_addressed(void **state) {
        (void) state;
        avr_check_discovery(&stage);
}

static void press_times_agree_with_the_injected_ones(void **state) {
        (void) state;
        avr_check_press_times(&stage, 12);
}

static void presses_on_two_pads_are_never_out_of_order(void **state) {
        (void) state;
        avr_check_order(&stage, 0, 1);
}

static void a_lost_frame_is_resent_and_delivered_once(void **state) {
        (void) state;
        avr_check_lost_frames(&stage);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_pads_are_discovered_and_addressed),
                cmocka_unit_test(press_times_agree_with_the_injected_ones),
                cmocka_unit_test(presses_on_two_pads_are_never_out_of_order),
                cmocka_unit_test(a_lost_frame_is_resent_and_delivered_once),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
