/* Routing: which handler a method and path reach, 404 vs 405, Allow, params. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "api/router.h"

static void h_a(struct api_request *r) { (void) r; }
static void h_b(struct api_request *r) { (void) r; }
static void h_c(struct api_request *r) { (void) r; }
static void h_d(struct api_request *r) { (void) r; }

static const struct route routes[] = {
        { "GET",    "/v1/health",                 h_a, AUTH_ROLE_NONE,  "" },
        { "GET",    "/v1/tokens",                 h_b, AUTH_ROLE_ADMIN, "" },
        { "POST",   "/v1/tokens",                 h_c, AUTH_ROLE_ADMIN, "" },
        { "DELETE", "/v1/tokens/{id}",            h_d, AUTH_ROLE_ADMIN, "" },
        { "GET",    "/v1/matches/{id}/seats/{n}", h_a, AUTH_ROLE_DISPLAY, "" },
};
#define N (sizeof routes / sizeof routes[0])

struct row {
        const char *method, *path;
        enum router_result result;
        api_handler_fn handler;
        const char *allow;
};

static void table_of_matches(void **state) {
        static const struct row rows[] = {
                { "GET",    "/v1/health",            ROUTER_FOUND,              h_a, "" },
                { "HEAD",   "/v1/health",            ROUTER_FOUND,              h_a, "" },
                { "POST",   "/v1/health",            ROUTER_METHOD_NOT_ALLOWED, NULL, "GET, HEAD" },
                { "GET",    "/v1/tokens",            ROUTER_FOUND,              h_b, "" },
                { "POST",   "/v1/tokens",            ROUTER_FOUND,              h_c, "" },
                { "PUT",    "/v1/tokens",            ROUTER_METHOD_NOT_ALLOWED, NULL, "GET, HEAD, POST" },
                { "DELETE", "/v1/tokens/7",          ROUTER_FOUND,              h_d, "" },
                { "GET",    "/v1/tokens/7",          ROUTER_METHOD_NOT_ALLOWED, NULL, "DELETE" },
                { "GET",    "/v1/health/",           ROUTER_NOT_FOUND,          NULL, "" },
                { "GET",    "//v1/health",           ROUTER_NOT_FOUND,          NULL, "" },
                { "GET",    "/v1/healthz",           ROUTER_NOT_FOUND,          NULL, "" },
                { "GET",    "/v1",                   ROUTER_NOT_FOUND,          NULL, "" },
                { "GET",    "",                      ROUTER_NOT_FOUND,          NULL, "" },
                { "GET",    "v1/health",             ROUTER_NOT_FOUND,          NULL, "" },
                { "DELETE", "/v1/tokens/",           ROUTER_NOT_FOUND,          NULL, "" },
                { "DELETE", "/v1/tokens/7/x",        ROUTER_NOT_FOUND,          NULL, "" },
                { "GET",    "/v1/matches/3/seats/2", ROUTER_FOUND,              h_a, "" },
        };
        (void) state;

        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                struct route_match m;
                enum router_result r = router_match(routes, N, rows[i].method, rows[i].path, &m);
                if (r != rows[i].result)
                        fail_msg("%s %s: result %d, expected %d", rows[i].method, rows[i].path, r,
                                 rows[i].result);
                if (r == ROUTER_FOUND)
                        assert_ptr_equal(m.route->handler, rows[i].handler);
                else
                        assert_null(m.route);
                assert_string_equal(m.allow, rows[i].allow);
        }
}

static void path_parameters_are_extracted(void **state) {
        struct route_match m;
        (void) state;

        assert_int_equal(router_match(routes, N, "GET", "/v1/matches/42/seats/3", &m), ROUTER_FOUND);
        assert_int_equal(m.n_params, 2);
        assert_string_equal(route_param(&m, "id"), "42");
        assert_string_equal(route_param(&m, "n"), "3");
        assert_null(route_param(&m, "i"));
        assert_null(route_param(&m, "idx"));
}

static void overlong_parameters_match_nothing(void **state) {
        char path[64 + ROUTER_MAX_PARAM];
        struct route_match m;
        (void) state;

        strcpy(path, "/v1/tokens/");
        memset(path + strlen(path), '7', ROUTER_MAX_PARAM);
        path[11 + ROUTER_MAX_PARAM] = '\0';
        assert_int_equal(router_match(routes, N, "DELETE", path, &m), ROUTER_NOT_FOUND);
        path[11 + ROUTER_MAX_PARAM - 1] = '\0';
        assert_int_equal(router_match(routes, N, "DELETE", path, &m), ROUTER_FOUND);
        assert_int_equal(strlen(route_param(&m, "id")), ROUTER_MAX_PARAM - 1);
}

static void overlong_and_null_paths_are_not_found(void **state) {
        char path[ROUTER_MAX_PATH + 10];
        struct route_match m;
        (void) state;

        memset(path, 'a', sizeof path);
        path[0] = '/';
        path[sizeof path - 1] = '\0';
        assert_int_equal(router_match(routes, N, "GET", path, &m), ROUTER_NOT_FOUND);
        assert_int_equal(router_match(routes, N, "GET", NULL, &m), ROUTER_NOT_FOUND);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(table_of_matches),
                cmocka_unit_test(path_parameters_are_extracted),
                cmocka_unit_test(overlong_and_null_paths_are_not_found),
                cmocka_unit_test(overlong_parameters_match_nothing),
        };
        return cmocka_run_group_tests_name("router", tests, NULL, NULL);
}
