/* A request that runs into one of the schema's constraints gets that
 * constraint's answer (api/failures.c: the SQLSTATE and the constraint's
 * name, never the text of the server's message), and nothing changes:
 *   - a second player with an external id already taken: 409 naming it;
 *   - a second table with a name already taken: 409;
 *   - a pad at two tables: 409;
 *   - a second live token with the same name: 409;
 *   - a match at a table that does not exist: 400 naming "table";
 *   - a registration of a player that does not exist: 400 naming "player";
 *     the same player twice: 409. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"

static struct daemon_proc daemon_;
static char *admin, *referee;

static int setup(void **state) {
        (void) state;
        daemon_start(&daemon_, NULL, NULL, true);
        admin = create_token("admin", unique_name("c_admin"));
        referee = create_token("referee", unique_name("c_referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin);
        free(referee);
        return st == 0 ? 0 : -1;
}

/* POSTs body; expects status, and detail containing needle. */
static json_t *post(const char *path, const char *token, const char *body, long status, const char *needle) {
        struct http_reply r;
        json_t *j;

        http_post_json(&daemon_, path, token, body, &r);
        if (r.status != status)
                fail_msg("POST %s %s: expected %ld, got %ld: %s", path, body, status, r.status, r.body);
        if (needle && !strstr(r.body, needle))
                fail_msg("POST %s: \"%s\" not in %s", path, needle, r.body);
        j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static long long id_of(json_t *j) {
        long long id = json_integer_value(json_object_get(j, "id"));
        json_decref(j);
        return id;
}

static void a_taken_external_id_is_a_conflict(void **state) {
        char body[256];
        (void) state;

        snprintf(body, sizeof body, "{\"name\": \"Ana\", \"external_id\": \"%s\"}", unique_name("ext"));
        id_of(post("/v1/players", admin, body, 201, NULL));
        json_decref(post("/v1/players", admin, body, 409, "external_id"));
}

static void a_taken_table_name_or_pad_is_a_conflict(void **state) {
        char body[512];
        const char *name = unique_name("tbl");
        (void) state;

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pads\": [{\"pad\": \"00000000000c0001\", \"role\": \"buttons\"}]}, "
                 "{\"seat\": 2}]}", name);
        id_of(post("/v1/tables", admin, body, 201, NULL));
        json_decref(post("/v1/tables", admin, body, 409, "a table with this name exists already"));
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pads\": [{\"pad\": \"00000000000c0001\", \"role\": \"buttons\"}]}, "
                 "{\"seat\": 2}]}", unique_name("tbl"));
        json_decref(post("/v1/tables", admin, body, 409, "already sits at another table"));
}

static void a_taken_token_name_is_a_conflict(void **state) {
        char body[256];
        (void) state;

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"role\": \"display\"}", unique_name("tok"));
        id_of(post("/v1/tokens", admin, body, 201, NULL));
        json_decref(post("/v1/tokens", admin, body, 409, "a live token with this name exists already"));
}

static void a_match_at_no_table_is_a_bad_request(void **state) {
        (void) state;
        json_decref(post("/v1/matches", referee, "{\"game\": \"crash-pilot\", \"table\": 999999999, "
                         "\"players\": [\"Ana\", \"Ben\"]}", 400, "table"));
}

static void registrations_of_no_player_or_twice(void **state) {
        char body[256], path[96];
        (void) state;

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"game\": \"crash-pilot\"}", unique_name("cup"));
        long long tid = id_of(post("/v1/tournaments", admin, body, 201, NULL));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", tid);
        json_decref(post(path, admin, "{\"state\": \"registration\"}", 200, NULL));
        long long player = id_of(post("/v1/players", admin, "{\"name\": \"Cy\"}", 201, NULL));

        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", tid);
        json_decref(post(path, admin, "{\"player\": 999999999}", 400, "player"));
        snprintf(body, sizeof body, "{\"player\": %lld}", player);
        json_decref(post(path, admin, body, 201, NULL));
        json_decref(post(path, admin, body, 409, "already registered"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_taken_external_id_is_a_conflict),
                cmocka_unit_test(a_taken_table_name_or_pad_is_a_conflict),
                cmocka_unit_test(a_taken_token_name_is_a_conflict),
                cmocka_unit_test(a_match_at_no_table_is_a_bad_request),
                cmocka_unit_test(registrations_of_no_player_or_twice),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
