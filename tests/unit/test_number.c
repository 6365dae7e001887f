/* common/number.h: strict numbers from a command line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/number.h"

static void whole_numbers_in_range_and_nothing_else(void **state) {
        static const char *const bad[] = { "", "-1", " -1", "\t-1", "1x", "0x", "12 ", "abc", "+", "99999999999999999999" };
        uint64_t v = 7;

        (void) state;
        assert_int_equal(number_parse_u64("42", 0, 100, &v), 0);
        assert_int_equal(v, 42);
        assert_int_equal(number_parse_u64("0xff", 0, 1000, &v), 0);
        assert_int_equal(v, 255);
        assert_int_equal(number_parse_u64(" 5", 0, 10, &v), 0);
        assert_int_equal(v, 5);
        assert_int_equal(number_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
        assert_true(v == UINT64_MAX);
        v = 7;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                assert_int_equal(number_parse_u64(bad[i], 0, UINT64_MAX, &v), -EINVAL);
        assert_int_equal(number_parse_u64("11", 0, 10, &v), -EINVAL);
        assert_int_equal(number_parse_u64("4", 5, 10, &v), -EINVAL);
        assert_int_equal(number_parse_u64(NULL, 0, 10, &v), -EINVAL);
        assert_int_equal(v, 7);         /* unchanged on every error */
}

static void finite_numbers_in_range_and_nothing_else(void **state) {
        static const char *const bad[] = { "", "nan", "inf", "-inf", "1e999", "1.5x", "1.5 ", "." };
        double v = 7;

        (void) state;
        assert_int_equal(number_parse_double("-800", -1e6, 1e6, &v), 0);
        assert_true(v == -800);
        assert_int_equal(number_parse_double(" 0.35", 0, 1, &v), 0);
        assert_true(v == 0.35);
        v = 7;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                assert_int_equal(number_parse_double(bad[i], -1e308, 1e308, &v), -EINVAL);
        assert_int_equal(number_parse_double("2", 0, 1, &v), -EINVAL);
        assert_int_equal(number_parse_double(NULL, 0, 1, &v), -EINVAL);
        assert_true(v == 7);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(whole_numbers_in_range_and_nothing_else),
                cmocka_unit_test(finite_numbers_in_range_and_nothing_else),
        };
        return cmocka_run_group_tests_name("number", tests, NULL, NULL);
}
