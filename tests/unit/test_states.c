/* A tournament's states and what they open (tournament/states.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/states.h"

static void every_state_has_the_name_the_api_and_the_database_use(void **state) {
        static const char *const names[] = { "draft", "registration", "check_in", "running", "finished" };
        enum tour_state s;

        (void) state;
        for (int k = TOUR_STATE_DRAFT; k <= TOUR_STATE_LAST; k++) {
                assert_string_equal(tour_state_name((enum tour_state) k), names[k - TOUR_STATE_DRAFT]);
                assert_int_equal(tour_state_from_name(names[k - TOUR_STATE_DRAFT], &s), 0);
                assert_int_equal(s, k);
        }
        assert_null(tour_state_name((enum tour_state) 0));
        assert_null(tour_state_name((enum tour_state) (TOUR_STATE_LAST + 1)));
        assert_int_equal(tour_state_from_name("check-in", &s), -EINVAL);
        assert_int_equal(tour_state_from_name(NULL, &s), -EINVAL);
        assert_int_equal(tour_state_from_name("draft", NULL), -EINVAL);
}

/* The door opens on the day (check_in) and stays open while the tournament
 * runs; signing up (registration) is not being in the room. */
static void check_in_opens_with_the_check_in_state_and_stays_open_while_running(void **state) {
        (void) state;
        assert_false(tour_state_check_in_open(TOUR_STATE_DRAFT));
        assert_false(tour_state_check_in_open(TOUR_STATE_REGISTRATION));
        assert_true(tour_state_check_in_open(TOUR_STATE_CHECK_IN));
        assert_true(tour_state_check_in_open(TOUR_STATE_RUNNING));
        assert_false(tour_state_check_in_open(TOUR_STATE_FINISHED));
        assert_false(tour_state_check_in_open((enum tour_state) 0));
        assert_false(tour_state_check_in_open((enum tour_state) (TOUR_STATE_LAST + 1)));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_state_has_the_name_the_api_and_the_database_use),
                cmocka_unit_test(check_in_opens_with_the_check_in_state_and_stays_open_while_running),
        };
        return cmocka_run_group_tests_name("states", tests, NULL, NULL);
}
