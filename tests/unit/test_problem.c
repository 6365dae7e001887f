/* problem+json bodies: members, reason phrases, extension members. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "api/problem.h"

static void has_rfc9457_members(void **state) {
        json_t *p = problem_new(404, "no resource at %s", "/v1/x");
        (void) state;

        assert_non_null(p);
        assert_string_equal(json_string_value(json_object_get(p, "type")), "about:blank");
        assert_string_equal(json_string_value(json_object_get(p, "title")), "Not Found");
        assert_int_equal(json_integer_value(json_object_get(p, "status")), 404);
        assert_string_equal(json_string_value(json_object_get(p, "detail")), "no resource at /v1/x");
        json_decref(p);
}

static void titles_follow_the_status(void **state) {
        static const struct { unsigned status; const char *title; } rows[] = {
                { 400, "Bad Request" }, { 401, "Unauthorized" }, { 403, "Forbidden" },
                { 405, "Method Not Allowed" }, { 409, "Conflict" }, { 413, "Content Too Large" },
                { 415, "Unsupported Media Type" }, { 503, "Service Unavailable" }, { 799, "Unknown" },
        };
        (void) state;

        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                json_t *p = problem_new(rows[i].status, "x");
                assert_string_equal(json_string_value(json_object_get(p, "title")), rows[i].title);
                json_decref(p);
        }
}

static void extension_members_and_long_details(void **state) {
        char longer[4000];
        (void) state;

        memset(longer, 'x', sizeof longer - 1);
        longer[sizeof longer - 1] = '\0';
        json_t *p = problem_new(409, "%s", longer);
        assert_true(strlen(json_string_value(json_object_get(p, "detail"))) < sizeof longer);
        assert_int_equal(problem_set(p, "conflicts", json_pack("[i,i]", 3, 4)), 0);
        assert_int_equal(json_array_size(json_object_get(p, "conflicts")), 2);
        json_decref(p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(has_rfc9457_members),
                cmocka_unit_test(titles_follow_the_status),
                cmocka_unit_test(extension_members_and_long_details),
        };
        return cmocka_run_group_tests_name("problem", tests, NULL, NULL);
}
