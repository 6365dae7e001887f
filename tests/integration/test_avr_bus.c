/* The emulated pads' checks (avr_checks.h) on one RS-485 bus: three
 * ATmega328P pads running the real firmware in RS-485 mode in one avrpad
 * (--pads 3 --rs485: one pty, a half-duplex line each pad drives only
 * while its DE is high), in the daemon's [pads] rs485_ports, so that it
 * takes turns on the bus (docs/protocol.md section 10): discovery by
 * HOST_BEAT to address 0 and slotted HELLOs, then one turn a pad.
 *
 * The same checks as test_avr_pads.c and test_avr_match.c: discovery and
 * addresses (each pad its own on the bus), reported press times within
 * their uncertainty, never out of order, a lost frame resent and
 * delivered once; at a three-seat table the judge's order and ties, the
 * lamps and the buzzer, a pad reset mid-match, a whole match.  No pad
 * ever drives the bus with DE low (avr_stage_stop checks). */
#define _GNU_SOURCE
#include <stdint.h>
#include <curl/curl.h>

#include "tests/integration/avr_checks.h"
#include "tests/integration/avr_stage.h"
#include "tests/integration/harness.h"

/* uids no other test uses ("AVR" and a serial) */
#define UID_BASE        UINT64_C(0x4156520000000030)
static const int crystal_ppm[] = { 30, -40, 10 };

static struct avr_stage stage;

static int setup(void **state) {
        const char *const args[] = { "--trace", NULL };
        (void) state;

        avr_stage_start(&stage, AVR_LINE_BUS, 3, UID_BASE, crystal_ppm, args);
        avr_table_make(&stage);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        avr_stage_stop(&stage);
        return 0;
}

static void the_pads_on_the_bus_are_discovered_and_addressed(void **state) {
        (void) state;
        avr_check_discovery(&stage);
}

static void press_times_agree_with_the_injected_ones(void **state) {
        (void) state;
        avr_check_press_times(&stage, 9);
}

static void presses_on_two_pads_are_never_out_of_order(void **state) {
        (void) state;
        avr_check_order(&stage, 0, 2);
}

static void a_lost_frame_is_resent_and_delivered_once(void **state) {
        (void) state;
        avr_check_lost_frames(&stage);
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
                cmocka_unit_test(the_pads_on_the_bus_are_discovered_and_addressed),
                cmocka_unit_test(press_times_agree_with_the_injected_ones),
                cmocka_unit_test(presses_on_two_pads_are_never_out_of_order),
                cmocka_unit_test(a_lost_frame_is_resent_and_delivered_once),
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
