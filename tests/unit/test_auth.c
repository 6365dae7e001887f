/* API tokens: generation, shape, hashing, the cache, roles, Bearer parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "api/auth.h"

static void generated_tokens_are_well_formed_and_distinct(void **state) {
        char a[AUTH_TOKEN_LEN + 1], b[AUTH_TOKEN_LEN + 1];
        (void) state;

        assert_int_equal(auth_token_generate(a), 0);
        assert_int_equal(auth_token_generate(b), 0);
        assert_int_equal(strlen(a), AUTH_TOKEN_LEN);
        assert_true(auth_token_well_formed(a));
        assert_true(auth_token_well_formed(b));
        assert_string_not_equal(a, b);
        assert_memory_equal(a, "arb_", 4);
}

static void malformed_tokens_are_rejected(void **state) {
        static const char *const bad[] = {
                "", "arb_", "arb_short", "xyz_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                "arb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",    /* padding is not base64url */
                "arb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",   /* one too long */
                "arb_AAAAAAAAAAAAAAAAAAAAA AAAAAAAAAAAAAAAAAAAAA",
        };
        (void) state;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                if (auth_token_well_formed(bad[i]))
                        fail_msg("accepted \"%s\"", bad[i]);
        assert_true(auth_token_well_formed("arb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-"));
}

/* SHA-256("abc") from FIPS 180-2, appendix B.1. */
static void hash_is_sha256_hex(void **state) {
        char h[AUTH_HASH_HEX_LEN + 1];
        (void) state;

        auth_token_hash("abc", h);
        assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void cache_finds_live_tokens_only(void **state) {
        char t1[AUTH_TOKEN_LEN + 1], t2[AUTH_TOKEN_LEN + 1], t3[AUTH_TOKEN_LEN + 1];
        struct auth_entry e[2] = { { .id = 1, .name = "board", .role = AUTH_ROLE_DISPLAY },
                                   { .id = 2, .name = "ref", .role = AUTH_ROLE_REFEREE } };
        struct auth *a;
        (void) state;

        assert_int_equal(auth_new(&a), 0);
        assert_false(auth_loaded(a));
        auth_token_generate(t1);
        auth_token_generate(t2);
        auth_token_generate(t3);
        auth_token_hash(t1, e[0].hash);
        auth_token_hash(t2, e[1].hash);
        assert_null(auth_lookup(a, t1));
        assert_int_equal(auth_replace(a, e, 2), 0);
        assert_true(auth_loaded(a));
        assert_int_equal(auth_count(a), 2);

        const struct auth_entry *f = auth_lookup(a, t2);
        assert_non_null(f);
        assert_int_equal(f->id, 2);
        assert_string_equal(f->name, "ref");
        assert_int_equal(f->role, AUTH_ROLE_REFEREE);
        assert_null(auth_lookup(a, t3));
        assert_null(auth_lookup(a, NULL));
        assert_null(auth_lookup(a, e[0].hash));     /* the hash itself is not a token */

        /* a reload without t1 revokes it */
        assert_int_equal(auth_replace(a, &e[1], 1), 0);
        assert_null(auth_lookup(a, t1));
        assert_non_null(auth_lookup(a, t2));
        assert_int_equal(auth_replace(a, NULL, 0), 0);
        assert_null(auth_lookup(a, t2));
        auth_free(a);
        auth_free(NULL);
}

static void bearer_header_parsing(void **state) {
        (void) state;
        assert_string_equal(auth_bearer("Bearer abc"), "abc");
        assert_string_equal(auth_bearer("bearer   abc"), "abc");
        assert_string_equal(auth_bearer("  BEARER\tabc"), "abc");
        assert_null(auth_bearer("Basic abc"));
        assert_null(auth_bearer("Bearerabc"));
        assert_null(auth_bearer("Bearer "));
        assert_null(auth_bearer(""));
        assert_null(auth_bearer(NULL));
}

static void roles_are_ordered_and_named(void **state) {
        (void) state;
        assert_true(AUTH_ROLE_DISPLAY < AUTH_ROLE_REFEREE && AUTH_ROLE_REFEREE < AUTH_ROLE_ADMIN);
        assert_int_equal(auth_role_from_string("admin"), AUTH_ROLE_ADMIN);
        assert_int_equal(auth_role_from_string("referee"), AUTH_ROLE_REFEREE);
        assert_int_equal(auth_role_from_string("display"), AUTH_ROLE_DISPLAY);
        assert_true(auth_role_from_string("none") < 0);
        assert_true(auth_role_from_string("Admin") < 0);
        assert_true(auth_role_from_string(NULL) < 0);
        assert_string_equal(auth_role_to_string(AUTH_ROLE_REFEREE), "referee");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(generated_tokens_are_well_formed_and_distinct),
                cmocka_unit_test(malformed_tokens_are_rejected),
                cmocka_unit_test(hash_is_sha256_hex),
                cmocka_unit_test(cache_finds_live_tokens_only),
                cmocka_unit_test(bearer_header_parsing),
                cmocka_unit_test(roles_are_ordered_and_named),
        };
        return cmocka_run_group_tests_name("auth", tests, NULL, NULL);
}
