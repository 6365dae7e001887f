/* Stations: a seat token for one seat of one table, good for that seat of
 * every match played there, and the table's stream that says when a match
 * comes and goes — how a tablet at a seat follows the table all night.
 * Against the test daemon (Reflex Duel, whose seats may concede). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

static struct daemon_proc daemon_;
static char *admin_token, *referee_token;

static int setup(void **state) {
        (void) state;
        setenv("ARBITER_TEST_DAEMON", harness_env("ARBITER_TEST_DAEMON_GAMES"), 1);
        daemon_start(&daemon_, NULL, NULL, true);
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

/* POSTs and checks the status; returns the reply's JSON (a new reference). */
static json_t *post(const char *path, const char *token, const char *body, long status) {
        struct http_reply r;
        json_t *j;

        http_post_json(&daemon_, path, token, body, &r);
        if (r.status != status)
                fail_msg("POST %s: expected %ld, got %ld: %s", path, status, r.status, r.body);
        j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *get(const char *path, const char *token, long status) {
        struct http_reply r;
        json_t *j;

        http_get(&daemon_, path, token, &r);
        if (r.status != status)
                fail_msg("GET %s: expected %ld, got %ld: %s", path, status, r.status, r.body);
        j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_int_t new_table(int seats) {
        char body[256];
        json_t *t;
        json_int_t id;

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1}%s%s]}", unique_name("table"),
                 seats > 1 ? ", {\"seat\": 2}" : "", seats > 2 ? ", {\"seat\": 3}" : "");
        t = post("/v1/tables", admin_token, body, 201);
        id = json_integer_value(json_object_get(t, "id"));
        assert_true(json_is_null(json_object_get(t, "match")));
        json_decref(t);
        return id;
}

static json_int_t new_match(json_int_t table) {
        char body[256];
        json_t *m;
        json_int_t id;

        if (table)
                snprintf(body, sizeof body, "{\"game\": \"reflex\", \"table\": %lld, \"players\": [\"Ana\", "
                         "\"Ben\"]}", (long long) table);
        else
                snprintf(body, sizeof body, "{\"game\": \"reflex\", \"players\": [\"Ana\", \"Ben\"]}");
        m = post("/v1/matches", referee_token, body, 201);
        id = json_integer_value(json_object_get(m, "id"));
        json_decref(m);
        return id;
}

/* A station token for seat of table: its secret. */
static char *station_token(json_int_t table, int seat) {
        char path[128], want[128];
        json_t *t;
        char *token;

        snprintf(path, sizeof path, "/v1/tables/%lld/seats/%d/token", (long long) table, seat);
        t = post(path, referee_token, "{}", 201);
        assert_string_equal(json_string_value(json_object_get(t, "role")), "seat");
        assert_int_equal(json_integer_value(json_object_get(t, "table")), table);
        assert_int_equal(json_integer_value(json_object_get(t, "seat")), seat);
        assert_null(json_object_get(t, "match"));
        token = strdup(json_string_value(json_object_get(t, "token")));
        snprintf(want, sizeof want, "/station?table=%lld&seat=%d&access_token=", (long long) table, seat);
        assert_true(strncmp(json_string_value(json_object_get(t, "station_url")), want, strlen(want)) == 0);
        json_decref(t);
        return token;
}

static void a_station_follows_its_seat_from_match_to_match(void **state) {
        json_int_t table = new_table(2), other = new_table(2), m1, m2;
        char *station = station_token(table, 1), path[256];
        struct stream st;
        size_t at;
        json_t *j;
        (void) state;

        /* the table's stream, read with the station's own token */
        snprintf(path, sizeof path, "/v1/tables/%lld/events?access_token=%s", (long long) table, station);
        stream_open(&st, daemon_.url, path, NULL);

        m1 = new_match(table);
        at = wait_event(&st, 0, "match_created", NULL);
        assert_int_equal(json_integer_value(json_object_get(st.events[at].data, "match")), m1);
        assert_string_equal(data_str(&st.events[at], "game"), "reflex");
        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) table);
        j = get(path, station, 200);
        assert_int_equal(json_integer_value(json_object_get(j, "match")), m1);
        json_decref(j);

        /* its seat of the table's match, and nothing else */
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1", (long long) m1);
        json_decref(get(path, station, 200));
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/2", (long long) m1);
        json_decref(get(path, station, 403));
        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) other);
        json_decref(get(path, station, 403));
        snprintf(path, sizeof path, "/v1/tables/%lld/events", (long long) other);
        json_decref(get(path, station, 403));
        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) m1);
        json_decref(get(path, station, 403));
        /* a match at another table is not its own */
        json_int_t elsewhere = new_match(other);
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1", (long long) elsewhere);
        json_decref(get(path, station, 403));
        /* the match itself (names, state) is readable by its station, no other */
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) m1);
        json_decref(get(path, station, 200));
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) elsewhere);
        json_decref(get(path, station, 403));

        /* it acts for its seat: seat 1 concedes and the match is over */
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) m1);
        json_decref(post(path, referee_token, "{}", 200));
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) m1);
        json_decref(post(path, station, "{\"kind\": \"concede\", \"seat\": 2}", 403));
        json_decref(post(path, station, "{\"kind\": \"end\"}", 403));
        j = post(path, station, "{\"kind\": \"concede\"}", 200);
        json_decref(j);
        at = wait_event(&st, at + 1, "match_ended", NULL);
        assert_int_equal(json_integer_value(json_object_get(st.events[at].data, "match")), m1);
        assert_string_equal(data_str(&st.events[at], "state"), "finished");
        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) table);
        j = get(path, station, 200);
        assert_true(json_is_null(json_object_get(j, "match")));
        json_decref(j);

        /* the next match at the table is the station's too, without a new link */
        m2 = new_match(table);
        at = wait_event(&st, at + 1, "match_created", NULL);
        assert_int_equal(json_integer_value(json_object_get(st.events[at].data, "match")), m2);
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1", (long long) m2);
        json_decref(get(path, station, 200));
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) m2);
        json_decref(post(path, referee_token, "{}", 200));
        at = wait_event(&st, at + 1, "match_ended", NULL);
        assert_string_equal(data_str(&st.events[at], "state"), "aborted");
        stream_close(&st);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) elsewhere);
        json_decref(post(path, referee_token, "{}", 200));
        free(station);
}

static void a_new_station_link_replaces_the_old_and_bad_requests_change_nothing(void **state) {
        json_int_t table = new_table(2);
        char *first = station_token(table, 2), *second, path[128], auth[128];
        struct http_reply r;
        (void) state;

        second = station_token(table, 2);
        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) table);
        /* the first was revoked: unknown once the cache reloads (NOTIFY) */
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;; usleep(20000)) {
                http_get(&daemon_, path, first, &r);
                long status = r.status;
                http_reply_done(&r);
                if (status == 401)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the replaced station token still works");
        }
        json_decref(get(path, second, 200));

        snprintf(path, sizeof path, "/v1/tables/%lld/seats/3/token", (long long) table);
        json_decref(post(path, referee_token, "{}", 404));
        json_decref(post("/v1/tables/987654321/seats/1/token", referee_token, "{}", 404));
        snprintf(path, sizeof path, "/v1/tables/%lld/seats/9/token", (long long) table);
        json_decref(post(path, referee_token, "{}", 404));
        snprintf(path, sizeof path, "/v1/tables/%lld/seats/1/token", (long long) table);
        json_decref(post(path, second, "{}", 403));
        json_decref(post(path, NULL, "{}", 401));
        json_decref(get("/v1/tables/987654321/events", referee_token, 404));
        /* the tokens list shows the one live station of seat 2 */
        snprintf(auth, sizeof auth, "\"table %lld seat 2 #", (long long) table);
        http_get(&daemon_, "/v1/tokens?limit=1000", admin_token, &r);
        assert_non_null(strstr(r.body, auth));
        http_reply_done(&r);
        free(first);
        free(second);
}

/* A new table is announced, so that an open scoreboard shows it; match
 * lists can be filtered by any state and read newest first. */
static void tables_are_announced_and_matches_listed_newest_first(void **state) {
        struct stream st;
        json_int_t table, m1, m2;
        json_t *j;
        size_t at;
        (void) state;

        stream_open(&st, daemon_.url, "/v1/events?topic=table", NULL);
        table = new_table(1);
        at = wait_event(&st, 0, "table_created", NULL);
        assert_int_equal(json_integer_value(json_object_get(st.events[at].data, "table")), table);
        stream_close(&st);

        m1 = new_match(0);
        m2 = new_match(0);
        j = get("/v1/matches?order=desc&limit=2", NULL, 200);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "items"), 0), "id")), m2);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "items"), 1), "id")), m1);
        json_decref(j);
        char path[128];
        snprintf(path, sizeof path, "/v1/matches?order=desc&limit=1&after=%lld", (long long) m2);
        j = get(path, NULL, 200);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "items"), 0), "id")), m1);
        json_decref(j);
        json_decref(get("/v1/matches?state=provisional", NULL, 200));
        json_decref(get("/v1/matches?order=sideways", NULL, 400));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_station_follows_its_seat_from_match_to_match),
                cmocka_unit_test(a_new_station_link_replaces_the_old_and_bad_requests_change_nothing),
                cmocka_unit_test(tables_are_announced_and_matches_listed_newest_first),
        };
        return cmocka_run_group_tests_name("stations", tests, setup, teardown);
}
