/* common/seed.h: HMAC-SHA256 against RFC 4231's published vectors, and the
 * derivations of docs/fairness.md against its worked examples (computed
 * independently, with Python's hmac and hashlib). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/seed.h"

/* Lowercase hex of the first n bytes of d. */
static void assert_hex(const uint8_t *d, size_t n, const char *want) {
        char hex[2 * SEED_SHA256_LEN + 1];

        seed_hex(d, n, hex);
        assert_string_equal(hex, want);
}

/* RFC 4231, section 4: test cases 1 to 7, HMAC-SHA-256.  Case 5's output
 * is published truncated to 128 bits. */
static void hmac_sha256_gives_the_rfc_4231_vectors(void **state) {
        static const char *const long_key_data =
                "This is a test using a larger than block-size key and a larger than block-size data. "
                "The key needs to be hashed before being used by the HMAC algorithm.";
        uint8_t k1[20], k3[20], d3[50], k4[25], d4[50], k5[20], k6[131], mac[SEED_SHA256_LEN];
        struct {
                const void *key;
                size_t key_len;
                const void *data;
                size_t data_len;
                size_t out_len;
                const char *want;
        } cases[7];
        (void) state;

        memset(k1, 0x0b, sizeof k1);
        memset(k3, 0xaa, sizeof k3);
        memset(d3, 0xdd, sizeof d3);
        for (size_t i = 0; i < sizeof k4; i++)
                k4[i] = (uint8_t) (i + 1);
        memset(d4, 0xcd, sizeof d4);
        memset(k5, 0x0c, sizeof k5);
        memset(k6, 0xaa, sizeof k6);
        cases[0] = (typeof(cases[0])) { k1, sizeof k1, "Hi There", 8, 32,
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" };
        cases[1] = (typeof(cases[0])) { "Jefe", 4, "what do ya want for nothing?", 28, 32,
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" };
        cases[2] = (typeof(cases[0])) { k3, sizeof k3, d3, sizeof d3, 32,
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" };
        cases[3] = (typeof(cases[0])) { k4, sizeof k4, d4, sizeof d4, 32,
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" };
        cases[4] = (typeof(cases[0])) { k5, sizeof k5, "Test With Truncation", 20, 16,
                "a3b6167473100ee06e0c796c2955552b" };
        cases[5] = (typeof(cases[0])) { k6, sizeof k6, "Test Using Larger Than Block-Size Key - Hash Key First",
                54, 32, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" };
        cases[6] = (typeof(cases[0])) { k6, sizeof k6, long_key_data, strlen(long_key_data), 32,
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                assert_int_equal(seed_hmac_sha256(cases[i].key, cases[i].key_len, cases[i].data, cases[i].data_len,
                                                  mac), 0);
                assert_hex(mac, cases[i].out_len, cases[i].want);
        }
}

/* FIPS 180-4's example "abc" (NIST's SHA256.pdf), and the empty string. */
static void sha256_gives_the_published_vectors(void **state) {
        uint8_t d[SEED_SHA256_LEN];
        (void) state;

        assert_int_equal(seed_sha256("abc", 3, d), 0);
        assert_hex(d, sizeof d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_int_equal(seed_sha256("", 0, d), 0);
        assert_hex(d, sizeof d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* docs/fairness.md, "A worked example": the secret 00 01 … 1f. */
static void match_seeds_are_the_documented_ones(void **state) {
        uint8_t secret[SEED_SECRET_LEN], c[SEED_SHA256_LEN];
        uint64_t s1, s2, other, t;
        (void) state;

        for (size_t i = 0; i < sizeof secret; i++)
                secret[i] = (uint8_t) i;
        assert_int_equal(seed_commitment(secret, c), 0);
        assert_hex(c, sizeof c, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
        assert_int_equal(seed_match(secret, 7, 42, 1, &s1), 0);
        assert_true(s1 == UINT64_C(3992563784555866112));
        /* called again after an abort: another deck */
        assert_int_equal(seed_match(secret, 7, 42, 2, &s2), 0);
        assert_true(s2 == UINT64_C(2601482229892588919));
        assert_int_equal(seed_match(secret, 7, 43, 1, &other), 0);
        assert_true(other != s1 && other != s2);
        assert_int_equal(seed_tournament(secret, &t), 0);
        assert_true(t == UINT64_C(9103989414899290658));
        /* every seed fits a bigint */
        assert_true(s1 <= INT64_MAX && s2 <= INT64_MAX && other <= INT64_MAX && t <= INT64_MAX);
        assert_int_equal(seed_match(secret, 0, 42, 1, &s1), -EINVAL);
        assert_int_equal(seed_match(secret, 7, 0, 1, &s1), -EINVAL);
        assert_int_equal(seed_match(secret, 7, 42, 0, &s1), -EINVAL);
}

/* A non-competitive tournament's secret follows from its seed and epoch. */
static void a_chosen_seed_gives_the_documented_secret(void **state) {
        uint8_t secret[SEED_SECRET_LEN], again[SEED_SECRET_LEN], c[SEED_SHA256_LEN];
        uint64_t s;
        (void) state;

        assert_int_equal(seed_secret_of_seed(2026, 1, secret), 0);
        assert_hex(secret, sizeof secret, "6ed3d79f686269bfc7de4d0e13dfce69af8f842fbb8fe5b8b05626f29938bf39");
        assert_int_equal(seed_commitment(secret, c), 0);
        assert_hex(c, sizeof c, "01c47449869841dd2371ded69291669d414b89c203b40c1b38170a7537c8bf03");
        assert_int_equal(seed_match(secret, 1, 1, 1, &s), 0);
        assert_true(s == UINT64_C(7526011909662010254));
        assert_int_equal(seed_secret_of_seed(2026, 2, again), 0);
        assert_memory_not_equal(secret, again, sizeof secret);
        assert_int_equal(seed_secret_of_seed(2026, 0, again), -EINVAL);
}

static void random_secrets_differ(void **state) {
        uint8_t a[SEED_SECRET_LEN], b[SEED_SECRET_LEN];
        (void) state;

        assert_int_equal(seed_secret_random(a), 0);
        assert_int_equal(seed_secret_random(b), 0);
        assert_memory_not_equal(a, b, sizeof a);
}

static void hex_round_trips_and_refuses_the_rest(void **state) {
        uint8_t b[4], back[4] = { 0 };
        char hex[9];
        (void) state;

        memcpy(b, "\x00\x9f\xa0\xff", 4);
        seed_hex(b, sizeof b, hex);
        assert_string_equal(hex, "009fa0ff");
        assert_int_equal(seed_unhex("009FA0ff", back, sizeof back), 0);
        assert_memory_equal(b, back, sizeof b);
        assert_int_equal(seed_unhex("009fa0f", back, sizeof back), -EINVAL);
        assert_int_equal(seed_unhex("009fa0fff0", back, sizeof back), -EINVAL);
        assert_int_equal(seed_unhex("009fa0fg", back, sizeof back), -EINVAL);
        assert_int_equal(seed_unhex(NULL, back, sizeof back), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(hmac_sha256_gives_the_rfc_4231_vectors),
                cmocka_unit_test(sha256_gives_the_published_vectors),
                cmocka_unit_test(match_seeds_are_the_documented_ones),
                cmocka_unit_test(a_chosen_seed_gives_the_documented_secret),
                cmocka_unit_test(random_secrets_differ),
                cmocka_unit_test(hex_round_trips_and_refuses_the_rest),
        };
        return cmocka_run_group_tests_name("seed", tests, NULL, NULL);
}
