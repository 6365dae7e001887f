/* common/ratelimit.c: a burst per interval passes, the rest is held back
 * and counted, and the count is handed to the next event that passes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/ratelimit.h"

#define SEC INT64_C(1000000)

static void a_burst_passes_per_interval_and_the_rest_is_counted(void **state) {
        struct ratelimit rl = { .interval_usec = 10 * SEC, .burst = 3 };
        uint64_t held = 99;
        (void) state;

        for (int i = 0; i < 3; i++) {
                assert_true(ratelimit_below(&rl, 5 * SEC + i, &held));
                assert_int_equal(held, 0);
        }
        for (int i = 0; i < 5; i++)
                assert_false(ratelimit_below(&rl, 6 * SEC + i, &held));
        assert_false(ratelimit_below(&rl, 15 * SEC - 1, NULL));
        /* the window closes 10 s after it opened: the next passes, with the count */
        assert_true(ratelimit_below(&rl, 15 * SEC, &held));
        assert_int_equal(held, 6);
        assert_true(ratelimit_below(&rl, 15 * SEC + 1, &held));
        assert_int_equal(held, 0);
}

static void time_zero_is_a_time_like_any_other(void **state) {
        struct ratelimit rl = { .interval_usec = SEC, .burst = 1 };
        (void) state;

        assert_true(ratelimit_below(&rl, 0, NULL));
        assert_false(ratelimit_below(&rl, 1, NULL));
        assert_true(ratelimit_below(&rl, SEC + 1, NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_burst_passes_per_interval_and_the_rest_is_counted),
                cmocka_unit_test(time_zero_is_a_time_like_any_other),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
