/* The match runtime end to end over real HTTP and a real database: a
 * three-seat Crash Pilot match created, started and played by referee
 * inputs (a correct call, a wrong call, a tie and its tiebreak, an
 * elimination), its events over SSE, its stored log with state hashes, the
 * reveal timer, bad inputs, and a kill -9 mid-match after which the
 * rebuilt match shows the same view and hash and takes the next call; and
 * the live match as an object on D-Bus with its properties and signals. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"
#include "tests/integration/crash_pilot_view.h"

static struct daemon_proc daemon_;
static char *admin_token, *referee_token;
static json_int_t table_id;

static void post(const char *path, const char *body, struct http_reply *r) {
        http_post_json(&daemon_, path, referee_token, body, r);
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

/* A problem whose detail names field. */
static void expect_problem(const struct http_reply *r, long status, const char *field) {
        expect(r, status);
        assert_string_equal(r->content_type, "application/problem+json");
        const char *detail = json_string_value(json_object_get(r->json, "detail"));
        if (!detail || !strstr(detail, field))
                fail_msg("the problem does not name \"%s\": %s", field, r->body);
}

static json_int_t create_match(const char *config) {
        struct http_reply r;
        char body[512];

        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, "
                 "\"players\": [\"Ana\", \"Ben\", \"Cy\"], \"seed\": 7, \"config\": %s}", (long long) table_id, config);
        post("/v1/matches", body, &r);
        expect(&r, 201);
        assert_string_equal(json_string_value(json_object_get(r.json, "state")), "ready");
        assert_int_equal(json_array_size(json_object_get(r.json, "seats")), 3);
        assert_true(json_is_null(json_object_get(r.json, "seed")));
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return id;
}

/* The public view (a new reference). */
static json_t *view_of(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        json_t *v = json_incref(json_object_get(r.json, "view"));
        http_reply_done(&r);
        return v;
}

/* Posts a call; returns the reply's events (a new reference). */
static json_t *call(json_int_t id, int seat, int c, long status) {
        struct http_reply r;
        char path[64], body[128];

        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        snprintf(body, sizeof body, "{\"seat\": %d, \"kind\": \"call\", \"call\": %d}", seat, c);
        post(path, body, &r);
        expect(&r, status);
        json_t *ev = json_incref(json_object_get(r.json, "events"));
        http_reply_done(&r);
        return ev;
}

static json_t *event_named(json_t *events, const char *kind) {
        size_t i;
        json_t *e;

        json_array_foreach(events, i, e)
                if (strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0)
                        return e;
        fail_msg("no %s event among %s", kind, json_dumps(events, 0));
        return NULL;
}

static void control(json_int_t id, const char *action, long status) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld/%s", (long long) id, action);
        post(path, "{}", &r);
        expect(&r, status);
        if (status == 409)
                assert_string_equal(r.content_type, "application/problem+json");
        http_reply_done(&r);
}

static int setup(void **state) {
        struct http_reply r;
        char body[256];
        (void) state;

        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        daemon_start(&daemon_, NULL, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}, {\"seat\": 3}]}",
                 unique_name("table"));
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        table_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

static void games_are_listed(void **state) {
        struct http_reply r;
        (void) state;

        http_get(&daemon_, "/v1/games", NULL, &r);
        expect(&r, 200);
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(r.json, "items"), 0), "name")),
                            "crash-pilot");
        http_reply_done(&r);
        http_get(&daemon_, "/v1/games/crash-pilot", NULL, &r);
        expect(&r, 200);
        assert_int_equal(json_integer_value(json_object_get(r.json, "max_seats")), 5);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/games/chess", NULL, &r);
        expect(&r, 404);
        http_reply_done(&r);
}

static void bad_creations_name_the_field(void **state) {
        struct http_reply r;
        (void) state;

        post("/v1/matches", "{\"game\": \"chess\", \"players\": [\"A\", \"B\"]}", &r);
        expect_problem(&r, 400, "game");
        http_reply_done(&r);
        post("/v1/matches", "{\"game\": \"crash-pilot\", \"players\": [\"A\"]}", &r);
        expect_problem(&r, 400, "players");
        http_reply_done(&r);
        post("/v1/matches", "{\"game\": \"crash-pilot\", \"players\": [\"A\", \"B\"], \"config\": {\"reveal\": {\"pause_ms\": -5}}}", &r);
        expect_problem(&r, 400, "reveal.pause_ms");
        http_reply_done(&r);
        post("/v1/matches", "{\"game\": \"crash-pilot\", \"players\": [\"A\", \"B\"], \"config\": {\"deck.copiez\": 1}}", &r);
        expect_problem(&r, 400, "deck.copiez");
        http_reply_done(&r);
        post("/v1/matches", "{\"game\": \"crash-pilot\", \"players\": [\"A\", \"B\"], \"table\": 999999999}", &r);
        expect_problem(&r, 400, "table");
        http_reply_done(&r);
        http_post_json(&daemon_, "/v1/matches", NULL, "{\"game\": \"crash-pilot\", \"players\": [\"A\", \"B\"]}", &r);
        expect(&r, 401);
        http_reply_done(&r);
}

static void unknown_match_and_seat_are_404(void **state) {
        struct http_reply r;
        (void) state;

        http_get(&daemon_, "/v1/matches/999999999", NULL, &r);
        expect(&r, 404);
        http_reply_done(&r);
        control(999999999, "start", 404);
        post("/v1/matches/999999999/inputs", "{\"seat\": 1, \"kind\": \"call\", \"call\": 1}", &r);
        expect(&r, 404);
        http_reply_done(&r);

        json_int_t id = create_match("{}");
        char path[96];
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/4", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect_problem(&r, 404, "seat");
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        post(path, "{\"seat\": 4, \"kind\": \"call\", \"call\": 1}", &r);
        expect_problem(&r, 404, "seat");
        http_reply_done(&r);
        control(id, "pause", 409);              /* not started */
        control(id, "abort", 200);
        control(id, "abort", 409);
        control(id, "start", 409);
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        assert_string_equal(json_string_value(json_object_get(r.json, "state")), "aborted");
        assert_int_equal(json_integer_value(json_object_get(r.json, "seed")), 7);       /* revealed */
        http_reply_done(&r);
}

static void an_uncalled_reveal_expires_by_the_timer(void **state) {
        struct http_reply r;
        char path[96];
        (void) state;

        json_int_t id = create_match("{\"reveal\": {\"pause_ms\": 0, \"timeout_ms\": 1000}}");
        control(id, "start", 200);
        json_t *v = cp_wait_window(view_of, id, 0);
        json_t *next = cp_wait_window(view_of, id, cp_window_id(v));          /* expired after 1 s, a new card */
        json_decref(v);
        json_decref(next);
        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        bool timer = false;
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(r.json, "items"), i, it)
                timer |= strcmp(json_string_value(json_object_get(it, "source")), "timer") == 0;
        assert_true(timer);
        http_reply_done(&r);
        control(id, "abort", 200);
}

/* Polls the text of file until it holds every one of want[0..n). */
static bool wait_file_has(const char *file, const char *const *want, size_t n) {
        int st;

        for (int i = 0; i < HARNESS_WAIT_MS / 50; i++) {
                char *text = run_capture(&st, "cat '%s'", file);
                size_t found = 0;
                for (size_t k = 0; k < n; k++)
                        found += strstr(text, want[k]) != NULL;
                free(text);
                if (found == n)
                        return true;
                usleep(50000);
        }
        return false;
}

static void a_live_match_is_an_object_on_dbus(void **state) {
        char *out, *path, *mon;
        int st;
        (void) state;

        json_int_t id = create_match("{\"reveal\": {\"pause_ms\": 0}}");
        assert_true(asprintf(&path, "/org/arbiter/Arbiter1/match/%lld", (long long) id) > 0);
        out = run_capture(&st, "busctl --user call org.arbiter.Arbiter1 /org/arbiter/Arbiter1 "
                               "org.freedesktop.DBus.ObjectManager GetManagedObjects 2>&1");
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, path));
        free(out);

        control(id, "start", 200);
        json_t *v = cp_wait_window(view_of, id, 0);
        out = run_capture(&st, "busctl --user introspect org.arbiter.Arbiter1 '%s' 2>&1", path);
        assert_int_equal(st, 0);
        free(out);
        assert_dbus_doc_matches(path, "org.arbiter.Arbiter1.Match");
        assert_dbus_doc_matches(path, "org.arbiter.Arbiter1.CrashPilot");
        out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 '%s' org.arbiter.Arbiter1.Match "
                               "State Seats Window GamePause 2>&1", path);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "s \"running\""));
        assert_non_null(strstr(out, "a(ysa(ss)) 3 1 \"Ana\""));
        char window[32];
        snprintf(window, sizeof window, "u %lld", (long long) cp_window_id(v));
        assert_non_null(strstr(out, window));
        assert_non_null(strstr(out, "s \"\""));                    /* no game pause */
        free(out);
        /* the public view, as REST shows it: chips, rows, the face-up card */
        out = run_capture(&st, "busctl --user --json=short get-property org.arbiter.Arbiter1 '%s' "
                               "org.arbiter.Arbiter1.Match View 2>&1", path);
        assert_int_equal(st, 0);
        json_t *dv = json_loads(out, 0, NULL);
        assert_non_null(dv);
        json_t *data = json_object_get(dv, "data");
        assert_string_equal(json_string_value(json_object_get(json_object_get(data, "audience"), "data")), "public");
        assert_int_equal(json_array_size(json_object_get(json_object_get(data, "rows"), "data")), 6);
        assert_non_null(json_object_get(json_object_get(json_object_get(data, "face_up"), "data"), "handle"));
        assert_null(json_object_get(data, "you"));
        assert_null(json_object_get(data, "can_void"));
        json_decref(dv);
        free(out);

        /* a call posted over REST is judged on D-Bus, and the next card follows */
        assert_true(asprintf(&mon, "%s/%s.monitor", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        pid_t mon_pid = harness_dbus_monitor("org.arbiter.Arbiter1.CrashPilot", mon);
        json_decref(call(id, 1, cp_pick_call(v, false), 200));
        static const char *const want[] = { "Member=CallJudged", "STRING \"correct\"", "Member=CardRevealed" };
        bool seen = wait_file_has(mon, want, sizeof want / sizeof want[0]);
        kill(mon_pid, SIGTERM);
        assert_true(seen);
        free(mon);
        json_decref(v);

        control(id, "abort", 200);
        out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 '%s' org.arbiter.Arbiter1.Match "
                               "State 2>&1", path);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "s \"aborted\""));
        free(out);
        free(path);
}

static void a_match_is_played_logged_streamed_and_survives_kill_9(void **state) {
        struct stream st;
        struct http_reply r;
        char path[96];
        json_t *v, *ev;
        (void) state;

        json_int_t id = create_match("{\"reveal\": {\"pause_ms\": 0}}");
        snprintf(path, sizeof path, "/v1/events?topic=match/%lld", (long long) id);
        stream_open(&st, daemon_.url, path, NULL);

        control(id, "start", 200);
        control(id, "start", 409);

        /* a correct call places the card */
        v = cp_wait_window(view_of, id, 0);
        ev = call(id, 1, cp_pick_call(v, false), 200);
        assert_string_equal(json_string_value(json_object_get(event_named(ev, "call_judged"), "verdict")), "correct");
        json_int_t w = cp_window_id(v);
        json_decref(v);
        json_decref(ev);

        /* a wrong call gives a chip */
        v = cp_wait_window(view_of, id, w);
        ev = call(id, 2, cp_pick_call(v, true), 200);
        assert_string_equal(json_string_value(json_object_get(event_named(ev, "call_judged"), "verdict")), "wrong");
        assert_int_equal(json_integer_value(json_object_get(event_named(ev, "chip_given"), "chips")), 1);
        w = cp_window_id(v);
        json_decref(v);
        json_decref(ev);

        /* a tie, then the tiebreak resolved by one of the tied seats */
        v = cp_wait_window(view_of, id, w);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        post(path, "{\"kind\": \"tie\", \"seats\": [1, 3]}", &r);
        expect(&r, 200);
        event_named(json_object_get(r.json, "events"), "tiebreak_started");
        http_reply_done(&r);
        w = cp_window_id(v);
        json_decref(v);
        v = cp_wait_window(view_of, id, w);
        json_decref(call(id, 2, 1, 409));                       /* not in the tiebreak */
        ev = call(id, 3, cp_pick_call(v, false), 200);
        event_named(ev, "call_judged");
        w = cp_window_id(v);
        json_decref(v);
        json_decref(ev);

        /* two more wrong calls: three chips, seat 2 is out */
        for (int i = 0; i < 2; i++) {
                v = cp_wait_window(view_of, id, w);
                ev = call(id, 2, cp_pick_call(v, true), 200);
                w = cp_window_id(v);
                json_decref(v);
                if (i == 1)
                        event_named(ev, "player_eliminated");
                json_decref(ev);
        }
        v = cp_wait_window(view_of, id, w);
        w = cp_window_id(v);
        json_decref(v);

        /* the stream saw it all, with ids */
        size_t k = wait_event(&st, 0, "call_judged", NULL);
        assert_true(strlen(st.events[k].id) > 2);
        assert_int_equal(json_integer_value(json_object_get(st.events[k].data, "match")), id);
        wait_event(&st, 0, "tiebreak_started", NULL);
        wait_event(&st, 0, "player_eliminated", NULL);
        stream_close(&st);

        /* the log holds every input with its hash */
        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        json_t *items = json_object_get(r.json, "items"), *it;
        size_t i, n = json_array_size(items);
        assert_true(n >= 9);
        json_array_foreach(items, i, it) {
                assert_int_equal(json_integer_value(json_object_get(it, "seq")), (json_int_t) i + 1);
                assert_int_equal(strlen(json_string_value(json_object_get(it, "state_hash"))), 16);
        }
        char *hash = strdup(json_string_value(json_object_get(json_array_get(items, n - 1), "state_hash")));
        http_reply_done(&r);
        json_t *before = view_of(id);

        /* kill -9 and start again on the same database */
        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);
        daemon_start(&daemon_, NULL, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        assert_true(daemon_wait_log(&daemon_, "rebuilt from the input log", HARNESS_WAIT_MS));
        json_t *after = view_of(id);
        if (!json_equal(before, after))
                fail_msg("the view changed across the restart:\n%s\n%s", json_dumps(before, 0), json_dumps(after, 0));
        http_get(&daemon_, path, referee_token, &r);
        items = json_object_get(r.json, "items");
        assert_int_equal(json_array_size(items), n);
        assert_string_equal(json_string_value(json_object_get(json_array_get(items, n - 1), "state_hash")), hash);
        http_reply_done(&r);

        /* and it takes the next call */
        ev = call(id, 1, cp_pick_call(after, false), 200);
        event_named(ev, "call_judged");
        json_decref(ev);
        json_decref(before);
        json_decref(after);
        free(hash);
}

static json_int_t seat_chips(json_t *view, int seat) {
        json_t *p = json_array_get(json_object_get(view, "players"), (size_t) seat - 1);
        assert_true(json_is_object(p));
        return json_integer_value(json_object_get(p, "chips"));
}

/* A referee pauses and resumes a match over REST, voids a wrong call (the
 * chip goes back), and GET /v1/matches?state= finds the match by its state.
 * Then the stored log is changed behind the daemon's back: after a restart
 * the replay no longer reproduces it, so the match is held for a referee,
 * says why, and takes no input. */
static void a_referee_pauses_voids_and_a_tampered_log_is_held(void **state) {
        struct http_reply r;
        char path[128], body[128];
        json_t *v, *ev;
        (void) state;

        json_int_t id = create_match("{\"reveal\": {\"pause_ms\": 0}}");
        control(id, "start", 200);

        http_get(&daemon_, "/v1/matches?state=running&limit=1000", NULL, &r);
        expect(&r, 200);
        bool listed = false;
        size_t i;
        json_t *m;
        json_array_foreach(json_object_get(r.json, "items"), i, m) {
                listed |= json_integer_value(json_object_get(m, "id")) == id;
                assert_string_equal(json_string_value(json_object_get(m, "state")), "running");
        }
        assert_true(listed);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/matches?state=sleeping", NULL, &r);
        expect_problem(&r, 400, "state");
        http_reply_done(&r);

        /* pause and resume */
        v = cp_wait_window(view_of, id, 0);
        json_int_t w = cp_window_id(v);
        control(id, "pause", 200);
        control(id, "pause", 409);
        json_decref(call(id, 1, cp_pick_call(v, false), 409));    /* no call while paused */
        json_decref(v);
        control(id, "resume", 200);
        control(id, "resume", 409);

        /* a wrong call, voided by the referee: the chip goes back */
        v = cp_wait_window(view_of, id, w);
        w = cp_window_id(v);
        json_decref(call(id, 2, cp_pick_call(v, true), 200));
        json_decref(v);
        v = view_of(id);
        assert_int_equal(seat_chips(v, 2), 1);
        json_decref(v);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        snprintf(body, sizeof body, "{\"kind\": \"void_call\"}");
        post(path, body, &r);
        expect(&r, 200);
        ev = json_object_get(r.json, "events");
        bool voided = false;
        json_array_foreach(ev, i, m)
                voided |= strcmp(json_string_value(json_object_get(m, "kind")), "call_voided") == 0;
        assert_true(voided);
        http_reply_done(&r);
        v = cp_wait_window(view_of, id, w);
        assert_int_equal(seat_chips(v, 2), 0);
        json_decref(v);
        post(path, body, &r);                                       /* one level deep */
        expect(&r, 409);
        http_reply_done(&r);

        /* the log is changed behind the daemon's back, then it restarts */
        assert_int_equal(run_cmd("psql '%s' -q -c \"UPDATE match_inputs SET state_hash = '0000000000000000' "
                                 "WHERE match_id = %lld AND seq = 2\"", harness_env("ARBITER_TEST_DSN"),
                                 (long long) id), 0);
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        assert_int_equal(st, 0);
        daemon_start(&daemon_, NULL, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        char needle[96];
        snprintf(needle, sizeof needle, "match %lld needs a referee and is not run", (long long) id);
        assert_true(daemon_wait_log(&daemon_, needle, HARNESS_WAIT_MS));
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        const char *why = json_string_value(json_object_get(r.json, "needs_referee"));
        assert_non_null(why);
        assert_non_null(strstr(why, "hash"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        post(path, "{\"seat\": 1, \"kind\": \"call\", \"call\": 1}", &r);
        expect(&r, 409);
        assert_non_null(strstr(r.body, "needs a referee"));
        http_reply_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(games_are_listed),
                cmocka_unit_test(bad_creations_name_the_field),
                cmocka_unit_test(unknown_match_and_seat_are_404),
                cmocka_unit_test(an_uncalled_reveal_expires_by_the_timer),
                cmocka_unit_test(a_live_match_is_an_object_on_dbus),
                cmocka_unit_test(a_match_is_played_logged_streamed_and_survives_kill_9),
                cmocka_unit_test(a_referee_pauses_voids_and_a_tampered_log_is_held),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
