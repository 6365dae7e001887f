/* The REST API of a running arbiterd, over real HTTP, with a real database
 * and a real session bus: health, routing errors, auth, body checks, tokens,
 * and the D-Bus root object. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"

static struct daemon_proc daemon_;
static char *admin_token, *display_token, *referee_token;

static int setup(void **state) {
        (void) state;
        admin_token = create_token("admin", unique_name("admin"));
        display_token = create_token("display", unique_name("display"));
        referee_token = create_token("referee", unique_name("referee"));
        daemon_start(&daemon_, NULL, NULL, true);
        /* tokens load once the database is ready */
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin_token);
        free(display_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

static void assert_problem(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
        assert_string_equal(r->content_type, "application/problem+json");
        assert_non_null(r->json);
        assert_int_equal(json_integer_value(json_object_get(r->json, "status")), status);
        assert_non_null(json_string_value(json_object_get(r->json, "title")));
        const char *detail = json_string_value(json_object_get(r->json, "detail"));
        assert_non_null(detail);
        assert_true(strlen(detail) > 10);
}

static void ready_was_notified_with_status(void **state) {
        (void) state;
        assert_non_null(strstr(daemon_.notified, "READY=1"));
        assert_non_null(strstr(daemon_.notified, "STATUS="));
}

static void health_reports_version_database_and_bus(void **state) {
        struct http_reply r;
        (void) state;

        http_get(&daemon_, "/v1/health", NULL, &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.content_type, "application/json");
        assert_string_equal(json_string_value(json_object_get(r.json, "version")), ARBITER_VERSION);
        assert_string_equal(json_string_value(json_object_get(r.json, "status")), "ok");
        assert_true(json_is_integer(json_object_get(r.json, "uptime_s")));
        assert_string_equal(json_string_value(json_object_get(json_object_get(r.json, "database"), "state")),
                            "ready");
        assert_string_equal(json_string_value(json_object_get(json_object_get(r.json, "bus"), "state")),
                            "owned");
        assert_true(json_is_integer(json_object_get(json_object_get(r.json, "pads"), "connected")));
        http_reply_done(&r);
}

static void unknown_path_is_404_problem(void **state) {
        struct http_reply r;
        (void) state;

        http_get(&daemon_, "/v1/no-such-thing", NULL, &r);
        assert_problem(&r, 404);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "/v1/no-such-thing"));
        http_reply_done(&r);
}

static void wrong_method_is_405_with_allow(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/health", admin_token, "{}", &r);
        assert_problem(&r, 405);
        assert_string_equal(r.allow, "GET, HEAD");
        http_reply_done(&r);
}

static void write_without_token_is_401(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/tokens", NULL, "{\"name\":\"x\",\"role\":\"display\"}", &r);
        assert_problem(&r, 401);
        http_reply_done(&r);
}

static void write_with_unknown_token_is_401(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/tokens", "arb_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                       "{\"name\":\"x\",\"role\":\"display\"}", &r);
        assert_problem(&r, 401);
        http_reply_done(&r);
}

static void write_with_display_token_is_403(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/tokens", display_token, "{\"name\":\"x\",\"role\":\"display\"}", &r);
        assert_problem(&r, 403);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "display"));
        http_reply_done(&r);
}

static void write_with_referee_token_is_403_for_admin_route(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/tokens", referee_token, "{\"name\":\"x\",\"role\":\"display\"}", &r);
        assert_problem(&r, 403);
        http_reply_done(&r);
}

static void malformed_json_is_400(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/tokens", admin_token, "{\"name\": \"x\",", &r);
        assert_problem(&r, 400);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "JSON"));
        http_reply_done(&r);
}

static void wrong_content_type_is_415(void **state) {
        struct http_reply r;
        char url[128];
        const char body[] = "name=x&role=display";
        (void) state;

        snprintf(url, sizeof url, "%s/v1/tokens", daemon_.url);
        http_request("POST", url, admin_token, "application/x-www-form-urlencoded", body, strlen(body), &r);
        assert_problem(&r, 415);
        http_reply_done(&r);
}

/* The default body_limit is 1 MiB: a 2 MiB body is refused from its
 * Content-Length, before it is sent (Expect: 100-continue, as curl and
 * browsers do for large bodies; without it the refusal and the upload race
 * and the client may see its send fail instead of the 413). */
static void oversized_body_is_413(void **state) {
        size_t n = 2u << 20;
        char *big = malloc(n + 1);
        struct http_reply r;
        char url[128];
        (void) state;

        memset(big, ' ', n);
        big[0] = '[';
        big[n - 1] = ']';
        big[n] = '\0';
        snprintf(url, sizeof url, "%s/v1/tokens", daemon_.url);
        harness_expect_continue = true;
        http_request("POST", url, admin_token, "application/json", big, n, &r);
        harness_expect_continue = false;
        assert_problem(&r, 413);
        http_reply_done(&r);

        /* the daemon still answers afterwards */
        http_get(&daemon_, "/v1/health", NULL, &r);
        assert_int_equal(r.status, 200);
        http_reply_done(&r);
        free(big);
}

static void token_lifecycle_over_the_api(void **state) {
        struct http_reply r;
        char body[256], path[160];
        (void) state;

        snprintf(body, sizeof body, "{\"name\":\"%s\",\"role\":\"referee\"}", unique_name("api"));
        http_post_json(&daemon_, "/v1/tokens", admin_token, body, &r);
        if (r.status != 201)
                fail_msg("POST /v1/tokens: %ld %s", r.status, r.body);
        char *token = strdup(json_string_value(json_object_get(r.json, "token")));
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        assert_string_equal(json_string_value(json_object_get(r.json, "role")), "referee");
        assert_true(json_is_null(json_object_get(r.json, "revoked_at")));
        http_reply_done(&r);

        /* a duplicate live name is a conflict */
        http_post_json(&daemon_, "/v1/tokens", admin_token, body, &r);
        assert_problem(&r, 409);
        http_reply_done(&r);

        /* the new token is live as soon as the cache reloads (NOTIFY): a
         * referee may not create tokens, so 403 proves it was recognised */
        for (int i = 0; i < 200; i++) {
                http_post_json(&daemon_, "/v1/tokens", token, "{\"name\":\"y\",\"role\":\"display\"}", &r);
                long st = r.status;
                http_reply_done(&r);
                if (st == 403)
                        break;
                assert_int_equal(st, 401);
                usleep(10000);
        }
        http_post_json(&daemon_, "/v1/tokens", token, "{\"name\":\"y\",\"role\":\"display\"}", &r);
        assert_problem(&r, 403);
        http_reply_done(&r);

        /* listing shows it, without any secret */
        http_get(&daemon_, "/v1/tokens?limit=1000", admin_token, &r);
        assert_int_equal(r.status, 200);
        assert_null(strstr(r.body, token));
        assert_null(strstr(r.body, "hash"));
        assert_true(json_array_size(json_object_get(r.json, "items")) >= 4);
        http_reply_done(&r);

        /* revoke; a second revoke finds nothing live */
        snprintf(path, sizeof path, "%s/v1/tokens/%lld", daemon_.url, (long long) id);
        http_request("DELETE", path, admin_token, NULL, NULL, 0, &r);
        assert_int_equal(r.status, 200);
        assert_false(json_is_null(json_object_get(r.json, "revoked_at")));
        http_reply_done(&r);
        http_request("DELETE", path, admin_token, NULL, NULL, 0, &r);
        assert_problem(&r, 404);
        http_reply_done(&r);

        /* and the revoked token stops working */
        for (int i = 0; i < 200; i++) {
                http_post_json(&daemon_, "/v1/tokens", token, "{\"name\":\"y\",\"role\":\"display\"}", &r);
                long st = r.status;
                http_reply_done(&r);
                if (st == 401)
                        break;
                usleep(10000);
        }
        http_post_json(&daemon_, "/v1/tokens", token, "{\"name\":\"y\",\"role\":\"display\"}", &r);
        assert_problem(&r, 401);
        http_reply_done(&r);
        free(token);
}

static void bad_token_requests_are_400(void **state) {
        struct http_reply r;
        (void) state;

        http_post_json(&daemon_, "/v1/tokens", admin_token, "{\"name\":\"\",\"role\":\"display\"}", &r);
        assert_problem(&r, 400);
        http_reply_done(&r);
        http_post_json(&daemon_, "/v1/tokens", admin_token, "{\"name\":\"ok\",\"role\":\"king\"}", &r);
        assert_problem(&r, 400);
        http_reply_done(&r);
        http_post_json(&daemon_, "/v1/tokens", admin_token, "[1,2]", &r);
        assert_problem(&r, 400);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tokens/abc", admin_token, &r);
        assert_problem(&r, 404);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tokens?limit=0", admin_token, &r);
        assert_problem(&r, 400);
        http_reply_done(&r);
}

/* The id of a new player, a marker: anything made after it has a larger id. */
static json_int_t new_player(const char *name) {
        char body[128];
        struct http_reply r;
        json_int_t id;

        snprintf(body, sizeof body, "{\"name\": \"%s\"}", name);
        http_post_json(&daemon_, "/v1/players", admin_token, body, &r);
        assert_int_equal(r.status, 201);
        id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return id;
}

/* Every route says which members its body may have; any other is a 400
 * that names it, and nothing changes. */
static void unknown_members_are_400_naming_the_member(void **state) {
        static const struct {
                const char *method, *path, *body, *field;
        } cases[] = {
                { "POST", "/v1/players", "{\"name\": \"Ana\", \"clb\": \"Northside\"}", "clb" },
                { "PATCH", "/v1/players/%lld", "{\"name\": \"Ben\", \"actve\": true}", "actve" },
                { "POST", "/v1/tokens", "{\"name\": \"station\", \"role\": \"display\", \"seat\": 1}", "seat" },
                { "POST", "/v1/tournaments", "{\"name\": \"Friday\", \"game\": \"crash-pilot\", \"rounds\": 3}",
                  "rounds" },
        };
        char marker[64], path[128], url[512];
        struct http_reply r;
        json_int_t id;
        (void) state;

        snprintf(marker, sizeof marker, "%s", unique_name("marker"));
        id = new_player(marker);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                snprintf(path, sizeof path, cases[i].path, (long long) id);
                snprintf(url, sizeof url, "%s%s", daemon_.url, path);
                http_request(cases[i].method, url, admin_token, "application/json", cases[i].body,
                             strlen(cases[i].body), &r);
                assert_problem(&r, 400);
                assert_string_equal(json_string_value(json_object_get(r.json, "field")), cases[i].field);
                assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), cases[i].field));
                http_reply_done(&r);
        }
        /* nothing was made or changed: no player after the marker, which
         * kept its name; no token named "station", no tournament "Friday" */
        snprintf(path, sizeof path, "/v1/players?after=%lld", (long long) id);
        http_get(&daemon_, path, admin_token, &r);
        assert_int_equal(json_array_size(json_object_get(r.json, "items")), 0);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/players/%lld", (long long) id);
        http_get(&daemon_, path, admin_token, &r);
        assert_string_equal(json_string_value(json_object_get(r.json, "name")), marker);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tokens?limit=1000", admin_token, &r);
        assert_null(strstr(r.body, "\"station\""));
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tournaments?limit=1000", admin_token, &r);
        assert_null(strstr(r.body, "\"Friday\""));
        http_reply_done(&r);

        /* a route that takes no body takes {} but nothing in it */
        http_post_json(&daemon_, "/v1/tournaments/999999/rounds", admin_token, "{}", &r);
        assert_int_equal(r.status, 404);
        http_reply_done(&r);
        http_post_json(&daemon_, "/v1/tournaments/999999/rounds", admin_token, "{\"force\": true}", &r);
        assert_problem(&r, 400);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "takes no body"));
        http_reply_done(&r);
}

static void reads_of_admin_resources_need_a_token(void **state) {
        struct http_reply r;
        (void) state;

        http_get(&daemon_, "/v1/tokens", NULL, &r);
        assert_problem(&r, 401);
        http_reply_done(&r);
        http_get(&daemon_, "/v1", NULL, &r);
        assert_int_equal(r.status, 200);
        assert_true(json_array_size(json_object_get(r.json, "routes")) >= 2);
        http_reply_done(&r);
}

/* With open_reads on, /v1/status answers anyone on the network: where the
 * database is (its socket directory, name and user: the detail line) is
 * shown to admin tokens only (issue 11). */
static void status_shows_the_database_internals_to_admins_only(void **state) {
        const char *dsn = harness_env("ARBITER_TEST_DSN");
        const char *tokens[] = { NULL, display_token, referee_token };
        char socket_dir[256] = "";
        struct http_reply r;
        (void) state;

        /* "host=DIR ...": DIR is the database's socket directory */
        assert_int_equal(sscanf(dsn, "host=%255s", socket_dir), 1);
        for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
                http_get(&daemon_, "/v1/status", tokens[i], &r);
                assert_int_equal(r.status, 200);
                json_t *db = json_object_get(r.json, "database");
                assert_string_equal(json_string_value(json_object_get(db, "state")), "ready");
                if (json_object_get(db, "detail") || strstr(r.body, socket_dir))
                        fail_msg("/v1/status with %s shows the database's internals: %s",
                                 tokens[i] ? "a non-admin token" : "no token", r.body);
                http_reply_done(&r);
        }
        http_get(&daemon_, "/v1/status", admin_token, &r);
        assert_int_equal(r.status, 200);
        const char *detail = json_string_value(json_object_get(json_object_get(r.json, "database"), "detail"));
        assert_non_null(detail);
        assert_non_null(strstr(detail, socket_dir));
        http_reply_done(&r);
}

static void dbus_root_object_has_manager_and_version(void **state) {
        int st;
        (void) state;

        char *out = run_capture(&st, "busctl --user introspect org.arbiter.Arbiter1 /org/arbiter/Arbiter1 2>&1");
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "org.arbiter.Arbiter1.Manager"));
        assert_non_null(strstr(out, "org.freedesktop.DBus.ObjectManager"));
        assert_non_null(strstr(out, ".Version"));
        free(out);

        out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 /org/arbiter/Arbiter1 "
                               "org.arbiter.Arbiter1.Manager Version 2>&1");
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "\"" ARBITER_VERSION "\""));
        free(out);

        out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 /org/arbiter/Arbiter1 "
                               "org.arbiter.Arbiter1.Manager Status 2>&1");
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "Serving"));
        free(out);
}

static void dbus_doc_matches_live_introspection(void **state) {
        (void) state;
        assert_dbus_doc_matches("/org/arbiter/Arbiter1", "org.arbiter.Arbiter1.Manager");
}

static void tables_are_created_listed_and_validated(void **state) {
        struct http_reply r;
        char body[512], path[160];
        const char *name = unique_name("table");
        (void) state;

        unsigned base = (unsigned) getpid() & 0xfffff;
        snprintf(body, sizeof body,
                 "{\"name\":\"%s\",\"seats\":[{\"seat\":1,\"pad\":\"00000000000%05x\"},"
                 "{\"seat\":2,\"pads\":[{\"pad\":\"00000000000%05x\"},{\"pad\":\"00000000001%05x\",\"role\":\"slap\"}],"
                 "\"buttons\":{\"0\":\"row-1\",\"6\":\"doesnt-fit\"}},"
                 "{\"seat\":3,\"pad\":null}],\"pads\":[{\"pad\":\"00000000002%05x\"}]}",
                 name, base, base ^ 0x80000, base, base);
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        if (r.status != 201)
                fail_msg("POST /v1/tables: %ld %s", r.status, r.body);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        json_t *seats = json_object_get(r.json, "seats");
        assert_int_equal(json_array_size(seats), 3);
        assert_string_equal(json_string_value(json_object_get(
                json_object_get(json_array_get(seats, 1), "buttons"), "6")), "doesnt-fit");
        /* each seat lists its pads with their roles; the table its keypad */
        json_t *pads = json_object_get(json_array_get(seats, 0), "pads");
        assert_int_equal(json_array_size(pads), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(pads, 0), "role")), "buttons");
        pads = json_object_get(json_array_get(seats, 1), "pads");
        assert_int_equal(json_array_size(pads), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(pads, 0), "role")), "buttons");
        assert_string_equal(json_string_value(json_object_get(json_array_get(pads, 1), "role")), "slap");
        assert_int_equal(json_array_size(json_object_get(json_array_get(seats, 2), "pads")), 0);
        pads = json_object_get(r.json, "pads");
        assert_int_equal(json_array_size(pads), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(pads, 0), "role")), "keypad");
        http_reply_done(&r);

        /* the same name again, or the same pads at another table: conflicts */
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        assert_problem(&r, 409);
        http_reply_done(&r);

        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(json_string_value(json_object_get(r.json, "name")), name);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tables/999999999", NULL, &r);
        assert_problem(&r, 404);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tables?limit=1000", NULL, &r);
        assert_int_equal(r.status, 200);
        assert_true(json_array_size(json_object_get(r.json, "items")) >= 1);
        http_reply_done(&r);

        /* every bad field is named, and nothing is stored */
        static const struct { const char *body, *field; } bad[] = {
                { "{\"seats\":[{\"seat\":1}]}", "name" },
                { "{\"name\":\"x\"}", "seats" },
                { "{\"name\":\"x\",\"seats\":[]}", "seats" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":9}]}", "seats[0].seat" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1},{\"seat\":1}]}", "seats[1].seat" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"pad\":\"XYZ\"}]}", "seats[0].pad" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"buttons\":{\"17\":\"a\"}}]}", "seats[0].buttons" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"buttons\":{\"1\":7}}]}", "seats[0].buttons.1" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"pads\":[{\"pad\":\"0000000000000001\",\"role\":\"foot\"}]}]}",
                  "seats[0].pads[0].role" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"pads\":[{\"pad\":\"0000000000000001\",\"role\":\"keypad\"}]}]}",
                  "seats[0].pads[0].role" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"pad\":\"0000000000000001\",\"pads\":[]}]}", "seats[0]" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1,\"pad\":\"0000000000000001\"},"
                  "{\"seat\":2,\"pad\":\"0000000000000001\"}]}", "seats[1].pad" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1}],\"pads\":[{\"pad\":\"0000000000000002\",\"role\":\"slap\"}]}",
                  "pads[0].role" },
                { "{\"name\":\"x\",\"seats\":[{\"seat\":1}],\"colour\":\"red\"}", "colour" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                http_post_json(&daemon_, "/v1/tables", admin_token, bad[i].body, &r);
                assert_problem(&r, 400);
                const char *detail = json_string_value(json_object_get(r.json, "detail"));
                if (strncmp(detail, bad[i].field, strlen(bad[i].field)) != 0)
                        fail_msg("%s: detail \"%s\" should name %s", bad[i].body, detail, bad[i].field);
                http_reply_done(&r);
        }
        http_post_json(&daemon_, "/v1/tables", display_token, body, &r);
        assert_problem(&r, 403);
        http_reply_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(ready_was_notified_with_status),
                cmocka_unit_test(health_reports_version_database_and_bus),
                cmocka_unit_test(unknown_path_is_404_problem),
                cmocka_unit_test(wrong_method_is_405_with_allow),
                cmocka_unit_test(write_without_token_is_401),
                cmocka_unit_test(write_with_unknown_token_is_401),
                cmocka_unit_test(write_with_display_token_is_403),
                cmocka_unit_test(write_with_referee_token_is_403_for_admin_route),
                cmocka_unit_test(malformed_json_is_400),
                cmocka_unit_test(wrong_content_type_is_415),
                cmocka_unit_test(oversized_body_is_413),
                cmocka_unit_test(token_lifecycle_over_the_api),
                cmocka_unit_test(bad_token_requests_are_400),
                cmocka_unit_test(unknown_members_are_400_naming_the_member),
                cmocka_unit_test(reads_of_admin_resources_need_a_token),
                cmocka_unit_test(status_shows_the_database_internals_to_admins_only),
                cmocka_unit_test(dbus_root_object_has_manager_and_version),
                cmocka_unit_test(dbus_doc_matches_live_introspection),
                cmocka_unit_test(tables_are_created_listed_and_validated),
        };
        return cmocka_run_group_tests_name("http", tests, setup, teardown);
}
