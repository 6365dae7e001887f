/* The pure parts of the match runtime (match/match.h): the replay check
 * that decides whether a rebuilt match may run, and the stored hash form. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "match/match.h"

#define HASH      UINT64_C(0x0123456789abcdef)
#define HASH_TEXT "0123456789abcdef"

static void hash_is_sixteen_lowercase_hex_digits(void **state) {
        char buf[17];
        (void) state;

        match_hash_format(buf, HASH);
        assert_string_equal(buf, HASH_TEXT);
        match_hash_format(buf, 1);
        assert_string_equal(buf, "0000000000000001");
}

static void replay_equal_to_the_log_passes(void **state) {
        char why[128] = "";
        (void) state;

        assert_int_equal(match_replay_compare(3, ENG_ACCEPTED, NULL, HASH, HASH_TEXT, why, sizeof why), 0);
        assert_int_equal(match_replay_compare(4, ENG_REFUSED_STATE, eng_refusal_name(ENG_REFUSED_STATE), HASH, HASH_TEXT, why, sizeof why), 0);
}

static void accepted_live_but_refused_on_replay_needs_a_referee(void **state) {
        char why[128];
        (void) state;

        assert_int_equal(match_replay_compare(5, ENG_REFUSED_TOO_LATE, NULL, HASH, HASH_TEXT, why, sizeof why),
                         -EBADMSG);
        assert_non_null(strstr(why, "input 5"));
        assert_non_null(strstr(why, eng_refusal_name(ENG_REFUSED_TOO_LATE)));
}

static void refused_live_but_accepted_on_replay_needs_a_referee(void **state) {
        char why[128];
        (void) state;

        assert_int_equal(match_replay_compare(6, ENG_ACCEPTED, eng_refusal_name(ENG_REFUSED_NOT_ALLOWED), HASH, HASH_TEXT, why, sizeof why),
                         -EBADMSG);
        assert_non_null(strstr(why, "accepted on replay"));
}

static void a_different_hash_needs_a_referee(void **state) {
        char why[128];
        (void) state;

        assert_int_equal(match_replay_compare(7, ENG_ACCEPTED, NULL, HASH + 1, HASH_TEXT, why, sizeof why), -EBADMSG);
        assert_non_null(strstr(why, HASH_TEXT));
        assert_int_equal(match_replay_compare(7, ENG_ACCEPTED, NULL, HASH, NULL, why, sizeof why), -EBADMSG);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(hash_is_sixteen_lowercase_hex_digits),
                cmocka_unit_test(replay_equal_to_the_log_passes),
                cmocka_unit_test(accepted_live_but_refused_on_replay_needs_a_referee),
                cmocka_unit_test(refused_live_but_accepted_on_replay_needs_a_referee),
                cmocka_unit_test(a_different_hash_needs_a_referee),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
