/* engine/hash.h: FNV-1a 64 against the reference vectors, and the
 * canonical integer encoding that makes a state hash the same on every
 * platform. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "engine/hash.h"

/* draft-eastlake-fnv's test vectors for FNV-1a 64. */
static void fnv1a64_matches_the_reference_vectors(void **state) {
        (void) state;
        assert_true(eng_fnv1a64("", 0) == UINT64_C(0xcbf29ce484222325));
        assert_true(eng_fnv1a64("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
        assert_true(eng_fnv1a64("foobar", 6) == UINT64_C(0x85944171f73967e8));
}

/* Integers are hashed little-endian at their width, whatever the host. */
static void integers_are_hashed_little_endian_at_fixed_width(void **state) {
        static const uint8_t le[] = {
                0x04, 0x03, 0x02, 0x01,                                 /* u32 */
                0xff, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,         /* i64 −257 */
                0x34, 0x12,                                             /* u16 */
                0x01, 0x00,                                             /* bool, u8 */
                0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,         /* u64 */
        };
        struct eng_hash h;

        (void) state;
        eng_hash_init(&h);
        eng_hash_u32(&h, 0x01020304);
        eng_hash_i64(&h, -257);
        eng_hash_u16(&h, 0x1234);
        eng_hash_bool(&h, true);
        eng_hash_u8(&h, 0);
        eng_hash_u64(&h, UINT64_C(0x0102030405060708));
        assert_true(eng_hash_value(&h) == eng_fnv1a64(le, sizeof le));
}

/* Field boundaries matter only through the widths: bytes fed in pieces hash
 * as bytes fed at once. */
static void hashing_in_pieces_equals_hashing_at_once(void **state) {
        struct eng_hash h;

        (void) state;
        eng_hash_init(&h);
        eng_hash_bytes(&h, "foo", 3);
        eng_hash_bytes(&h, "bar", 3);
        assert_true(eng_hash_value(&h) == eng_fnv1a64("foobar", 6));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(fnv1a64_matches_the_reference_vectors),
                cmocka_unit_test(integers_are_hashed_little_endian_at_fixed_width),
                cmocka_unit_test(hashing_in_pieces_equals_hashing_at_once),
        };

        return cmocka_run_group_tests_name("engine_hash", tests, NULL, NULL);
}
