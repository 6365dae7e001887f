/* The engine framework, end to end, with the game that exists only to prove
 * it general: "reflex" (tests/games/), which the test build of the daemon
 * (build/tests/arbiterd-test) registers and nothing else in daemon/, match/,
 * api/, bus/ or store/ knows.  Everything goes through the real daemon, a
 * real PostgreSQL, a real dbus-daemon and arbiter-padsim on a real pty:
 *
 *   - GET /v1/games/reflex: its whole vocabulary from its tables;
 *   - a match with custom data and list settings, and the errors that
 *     name the field;
 *   - seat tokens: private views and streams, inputs a seat may send;
 *   - inputs by name, a referee's preview (with its explanation), undo by
 *     void (listed for re-entry, audited, replayed across kill -9);
 *   - referee confirmation of a result: provisional, undone, confirmed;
 *     by timeout; in a tournament stage that asks for it;
 *   - the game's own pause beside the operator's;
 *   - pad routes: a timed press, a slap pad's game pause, a referee
 *     keypad's named input, and a press no route takes;
 *   - D-Bus: the game's own interface, its signals, and the public View. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

/* A generous settle window for a sanitizer build, as test_match_pads.c. */
static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7500 --kinds buttons,slap,buttons,referee: seat 1
 * has a button pad and a slap pad, seat 2 a button pad, the table a
 * referee keypad. */
#define UID_BASE        "29952"
#define N_PADS          4
static const char *const pad_ids[N_PADS] = {
        "0000000000007500", "0000000000007501", "0000000000007502", "0000000000007503",
};
enum { PAD_SEAT1_BUTTONS, PAD_SEAT1_SLAP, PAD_SEAT2_BUTTONS, PAD_KEYPAD };
/* docs/protocol.md section 7: a referee keypad's Enter. */
#define KEYPAD_ENTER    10

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *admin_token, *referee_token;
static json_int_t table_id;

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

/* A 400/403/404/409 whose detail starts with (or, with field NULL, just
 * is) a problem. */
static void expect_problem(const struct http_reply *r, long status, const char *field) {
        const char *detail = json_string_value(json_object_get(r->json, "detail"));

        expect(r, status);
        if (field && (!detail || strncmp(detail, field, strlen(field)) != 0))
                fail_msg("the problem should name %s: %s", field, r->body);
}

static void post(const char *path, const char *token, const char *body, struct http_reply *r) {
        http_post_json(&daemon_, path, token, body, r);
}

static json_t *get_json(const char *path, const char *token) {
        struct http_reply r;

        http_get(&daemon_, path, token, &r);
        expect(&r, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_int_t create(const char *extra) {
        struct http_reply r;
        char body[1024];

        snprintf(body, sizeof body, "{\"game\": \"reflex\", \"players\": [\"Ana\", \"Ben\"], \"seed\": 5%s%s}",
                 extra && *extra ? ", " : "", extra ? extra : "");
        post("/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return id;
}

/* POSTs an input (as token) and returns the reply, checked for status. */
static json_t *input_as(json_int_t id, const char *token, const char *body, long status) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        post(path, token, body, &r);
        expect(&r, status);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *input(json_int_t id, const char *body) {
        return input_as(id, referee_token, body, 200);
}

static void control(json_int_t id, const char *action, long status) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/%s", (long long) id, action);
        post(path, referee_token, "{}", &r);
        expect(&r, status);
        http_reply_done(&r);
}

static json_t *match_of(json_int_t id) {
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        return get_json(path, referee_token);
}

static const char *state_of(json_t *m) {
        return json_string_value(json_object_get(m, "state"));
}

static json_t *event_named(json_t *events, const char *kind) {
        size_t i;
        json_t *e;

        json_array_foreach(events, i, e)
                if (strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0)
                        return e;
        return NULL;
}

/* The total score of seat (1-based) in a match's result. */
static json_int_t score_of(json_t *m, int seat) {
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(json_object_get(m, "result"), "placements"), i, p)
                if (json_integer_value(json_object_get(p, "seat")) == seat)
                        return json_integer_value(json_object_get(json_object_get(p, "score"), "total"));
        fail_msg("seat %d has no placement", seat);
        return 0;
}

static bool all_synced(void) {
        struct http_reply r;
        size_t i, n = 0;
        json_t *p;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                n += json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        http_reply_done(&r);
        return n == N_PADS;
}

static void start_daemon(void) {
        char *env_pads, *arg;

        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
}

static int setup(void **state) {
        struct http_reply r;
        char body[1024];
        (void) state;

        /* The test build's daemon: the production games and reflex. */
        setenv("ARBITER_TEST_DAEMON", harness_env("ARBITER_TEST_DAEMON_GAMES"), 1);
        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("fw")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);
        const char *sim_args[] = { "--kinds", "buttons,slap,buttons,referee", "--buttons", "2", "--link", link_path,
                                   "--seed", "13", "--uid-base", UID_BASE, NULL };
        padsim_start(&sim, sim_args);
        start_daemon();
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d simulated pads did not all connect and sync", N_PADS);
                usleep(50000);
        }
        snprintf(body, sizeof body,
                 "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pads\": [{\"pad\": \"%s\"}, "
                 "{\"pad\": \"%s\", \"role\": \"slap\"}]}, {\"seat\": 2, \"pad\": \"%s\"}], "
                 "\"pads\": [{\"pad\": \"%s\", \"role\": \"keypad\"}]}",
                 unique_name("fwtable"), pad_ids[PAD_SEAT1_BUTTONS], pad_ids[PAD_SEAT1_SLAP],
                 pad_ids[PAD_SEAT2_BUTTONS], pad_ids[PAD_KEYPAD]);
        post("/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        table_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

static void press(int pad, int button, int in_us) {
        padsim_send(&sim, "{\"in_us\":%d,\"pad\":%d,\"button\":%d,\"press\":true}", in_us, pad, button);
}

/* Waits until the match's state is want (an SSE-free condition: every read
 * is a real request; a hang guard bounds it). */
static void wait_state(json_int_t id, const char *want) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *m = match_of(id);
                bool done = strcmp(state_of(m), want) == 0;

                json_decref(m);
                if (done)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("match %lld never became %s", (long long) id, want);
                usleep(20000);
        }
}

/* ---- the tests ---------------------------------------------------------- */

/* GET /v1/games/reflex gives everything a client needs, from the game's
 * tables alone. */
static void the_game_describes_its_vocabulary(void **state) {
        (void) state;
        json_t *g = get_json("/v1/games/reflex", NULL), *it, *f;
        size_t i, k;
        bool award = false, concede = false, hit = false, slap = false, keypad = false;

        assert_string_equal(json_string_value(json_object_get(g, "display_name")), "Reflex Duel");
        assert_non_null(json_string_value(json_object_get(g, "description")));
        assert_int_equal(json_integer_value(json_object_get(g, "min_seats")), 1);
        assert_int_equal(json_array_size(json_object_get(g, "data")), 1);
        json_array_foreach(json_object_get(g, "inputs"), i, it) {
                const char *name = json_string_value(json_object_get(it, "name"));
                const char *from = json_dumps(json_object_get(it, "from"), JSON_COMPACT);

                if (strcmp(name, "award") == 0) {
                        award = strcmp(from, "[\"referee\"]") == 0;
                        json_array_foreach(json_object_get(it, "fields"), k, f)
                                if (strcmp(json_string_value(json_object_get(f, "name")), "to") == 0)
                                        assert_int_equal(json_integer_value(json_object_get(f, "max_count")), 3);
                }
                if (strcmp(name, "concede") == 0)
                        concede = strcmp(from, "[\"seat\",\"referee\"]") == 0 &&
                                  json_is_true(json_object_get(it, "seated"));
                free((char *) from);
        }
        json_array_foreach(json_object_get(g, "events"), i, it)
                if (strcmp(json_string_value(json_object_get(it, "name")), "hit") == 0)
                        json_array_foreach(json_object_get(it, "fields"), k, f) {
                                const char *n = json_string_value(json_object_get(f, "name")),
                                           *aud = json_string_value(json_object_get(f, "audience"));

                                if (strcmp(n, "margin_us") == 0)
                                        hit = strcmp(aud, "seat") == 0;
                                if (strcmp(n, "window") == 0)
                                        assert_string_equal(aud, "referee");
                        }
        json_array_foreach(json_object_get(g, "routes"), i, it) {
                const char *role = json_string_value(json_object_get(it, "role")),
                           *kind = json_string_value(json_object_get(it, "kind"));

                slap |= strcmp(role, "slap") == 0 && strcmp(kind, "press") == 0;
                keypad |= strcmp(role, "keypad") == 0 && strcmp(kind, "input") == 0;
        }
        assert_true(award && concede && hit && slap && keypad);
        assert_true(json_array_size(json_object_get(g, "terms")) >= 3);
        json_decref(g);
}

/* Custom data files and list settings are taken, stored and shown; every
 * mistake names its field. */
static void a_match_takes_custom_data_and_lists(void **state) {
        static const struct { const char *extra, *field; } bad[] = {
                { "\"data\": {\"prompts\": \"alpha\\n\\u0007bad\\n\"}", "data.prompts line 2" },
                { "\"data\": {\"cards\": \"x\"}", "data.cards" },
                { "\"data\": {\"prompts\": 7}", "data.prompts" },
                { "\"config\": {\"bonus\": [1, 2, 3, 4, 5, 6, 7, 8, 9]}", "bonus" },
                { "\"config\": {\"bonus\": [1, 9]}", "bonus[1]" },
                { "\"config\": {\"mode\": \"slow\"}", "mode" },
                { "\"config\": {\"go\": {\"delay_min_ms\": 900, \"delay_max_ms\": 100}}", "go." },
                { "\"confirm\": \"maybe\"", "confirm" },
                { "\"confirm\": {\"by\": \"auto\", \"timeout_s\": 5}", "confirm.timeout_s" },
                { "\"colour\": 1", "colour" },
        };
        struct http_reply r;
        char body[1024];
        (void) state;

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                snprintf(body, sizeof body, "{\"game\": \"reflex\", \"players\": [\"Ana\"], %s}", bad[i].extra);
                post("/v1/matches", referee_token, body, &r);
                expect_problem(&r, 400, bad[i].field);
                http_reply_done(&r);
        }
        json_int_t id = create("\"config\": {\"bonus\": [2, -1], \"points\": {\"target\": 4}}, "
                               "\"data\": {\"prompts\": \"# two words\\nalpha\\n\\nbeta\\n\"}");
        json_t *m = match_of(id);
        char *bonus = json_dumps(json_object_get(json_object_get(m, "config"), "bonus"), JSON_COMPACT);

        assert_string_equal(bonus, "[2,-1]");
        free(bonus);
        assert_string_equal(json_string_value(json_object_get(json_object_get(m, "data"), "prompts")),
                            "# two words\nalpha\n\nbeta\n");
        assert_true(json_is_null(json_object_get(m, "seed")));          /* hidden while live */
        json_decref(m);
        control(id, "abort", 200);
}

/* A seat token opens its own seat and nothing else; the public sees no
 * private member. */
static void seat_tokens_open_one_seat_only(void **state) {
        struct http_reply r;
        char path[160], *token1;
        (void) state;

        json_int_t id = create(NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1/token", (long long) id);
        post(path, NULL, "{}", &r);
        expect(&r, 401);
        http_reply_done(&r);
        post(path, referee_token, "{}", &r);
        expect(&r, 201);
        token1 = strdup(json_string_value(json_object_get(r.json, "token")));
        assert_int_equal(json_integer_value(json_object_get(r.json, "seat")), 1);
        assert_string_equal(json_string_value(json_object_get(r.json, "role")), "seat");
        char *view_url = strdup(json_string_value(json_object_get(r.json, "view_url")));
        http_reply_done(&r);
        assert_non_null(strstr(view_url, "access_token="));
        json_decref(get_json(view_url, NULL));
        free(view_url);

        /* its own seat: the private "you"; by header or by query */
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1", (long long) id);
        json_t *v = get_json(path, token1);
        assert_true(json_integer_value(json_object_get(json_object_get(v, "you"), "lucky")) >= 1);
        assert_null(json_object_get(v, "audit"));
        json_decref(v);
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1?access_token=%s", (long long) id, token1);
        json_decref(get_json(path, NULL));
        /* another seat, another match, no token: refused */
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/2", (long long) id);
        http_get(&daemon_, path, token1, &r);
        expect(&r, 403);
        http_reply_done(&r);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 401);
        http_reply_done(&r);
        /* a referee sees any seat, and the referee's view has the audit */
        json_decref(get_json(path, referee_token));
        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) id);
        v = get_json(path, referee_token);
        assert_non_null(json_object_get(json_object_get(v, "view"), "audit"));
        json_decref(v);
        http_get(&daemon_, path, token1, &r);
        expect(&r, 403);
        http_reply_done(&r);
        /* the public view has neither */
        json_t *m = match_of(id);
        assert_null(json_object_get(json_object_get(m, "view"), "you"));
        assert_null(json_object_get(json_object_get(m, "view"), "audit"));
        json_decref(m);

        /* a seat sends its own seat's inputs whose "from" has seat */
        control(id, "start", 200);
        json_decref(input_as(id, token1, "{\"kind\": \"award\", \"to\": [1], \"points\": 1, \"category\": \"bonus\"}",
                             403));
        json_decref(input_as(id, token1, "{\"kind\": \"concede\", \"seat\": 2}", 403));
        json_decref(input_as(id, referee_token, "{\"kind\": \"concede\"}", 400));       /* names no seat */
        json_t *reply = input_as(id, token1, "{\"kind\": \"concede\"}", 200);
        assert_string_equal(json_string_value(json_object_get(reply, "state")), "finished");
        /* a seat's reply shows the seat's view, without the referee's explanation */
        assert_non_null(json_object_get(json_object_get(reply, "view"), "you"));
        assert_null(json_object_get(reply, "explanation"));
        json_decref(reply);
        free(token1);
}

/* Inputs go by name, checked against the game's table; a preview shows
 * what an input would do, in words, and stores nothing. */
static void inputs_by_name_and_the_referees_preview(void **state) {
        static const struct { const char *body; const char *field; long status; } bad[] = {
                { "{\"kind\": \"jump\"}", "kind", 400 },
                { "{\"kind\": \"timer\"}", "kind", 400 },
                { "{\"kind\": \"award\", \"to\": [1, 1], \"points\": 1, \"category\": \"bonus\"}", NULL, 409 },
                { "{\"kind\": \"award\", \"to\": [1, 9], \"points\": 1, \"category\": \"bonus\"}", "to[1]", 400 },
                { "{\"kind\": \"award\", \"to\": [3], \"points\": 1, \"category\": \"bonus\"}", NULL, 409 },
                { "{\"kind\": \"award\", \"to\": [1], \"points\": 9, \"category\": \"bonus\"}", "points", 400 },
                { "{\"kind\": \"award\", \"to\": [1], \"points\": 1, \"category\": \"luck\"}", "category", 400 },
                { "{\"kind\": \"award\", \"to\": [1], \"points\": 1}", "category", 400 },
                { "{\"kind\": \"award\", \"to\": [1], \"points\": 1, \"category\": \"bonus\", \"x\": 1}", "x", 400 },
                { "{\"kind\": \"end\", \"reason\": 5}", "reason", 400 },
        };
        char path[96];
        struct http_reply r;
        (void) state;

        json_int_t id = create(NULL);
        control(id, "start", 200);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
                post(path, referee_token, bad[i].body, &r);
                expect_problem(&r, bad[i].status, bad[i].field);
                http_reply_done(&r);
        }
        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        json_t *log = get_json(path, referee_token);
        size_t logged = json_array_size(json_object_get(log, "items"));
        json_decref(log);

        /* the preview: the events and their explanation, nothing stored */
        snprintf(path, sizeof path, "/v1/matches/%lld/preview", (long long) id);
        post(path, referee_token, "{\"kind\": \"award\", \"to\": [2], \"points\": 2, \"category\": \"penalty\"}", &r);
        expect(&r, 200);
        assert_true(json_is_true(json_object_get(r.json, "preview")));
        assert_non_null(event_named(json_object_get(r.json, "events"), "awarded"));
        const char *said = json_string_value(json_array_get(json_object_get(r.json, "explanation"), 0));
        assert_non_null(said);
        assert_non_null(strstr(said, "seat 2"));
        assert_int_equal(score_of(r.json, 2), 2);
        http_reply_done(&r);
        post(path, NULL, "{\"kind\": \"end\"}", &r);
        expect(&r, 401);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        log = get_json(path, referee_token);
        assert_int_equal(json_array_size(json_object_get(log, "items")), logged);
        json_decref(log);
        json_t *m = match_of(id);
        assert_int_equal(score_of(m, 2), 0);
        /* the two inputs the engine refused (409) are logged and counted */
        assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "refused_inputs"), "invalid")), 2);
        assert_int_equal(json_object_size(json_object_get(m, "refused_inputs")), 1);
        json_decref(m);

        /* confirmed: stored, published, explained */
        json_t *reply = input(id, "{\"kind\": \"award\", \"to\": [2], \"points\": 2, \"category\": \"penalty\"}");
        assert_non_null(event_named(json_object_get(reply, "events"), "awarded"));
        assert_true(json_array_size(json_object_get(reply, "explanation")) >= 1);
        json_decref(reply);
        m = match_of(id);
        assert_int_equal(score_of(m, 2), 2);
        json_decref(m);
        control(id, "abort", 200);
}

/* A void rewinds to just before an input: what it undid is listed for
 * re-entry, audited with who and why, and the rewind survives kill -9. */
static void a_void_rewinds_and_survives_a_restart(void **state) {
        char path[96], body[256];
        (void) state;

        json_int_t id = create("\"config\": {\"points\": {\"target\": 9}}");
        control(id, "start", 200);
        json_t *a = input(id, "{\"kind\": \"award\", \"to\": [1], \"points\": 3, \"category\": \"bonus\"}");
        json_int_t first = json_integer_value(json_object_get(a, "seq"));
        json_decref(a);
        json_decref(input(id, "{\"kind\": \"award\", \"to\": [2], \"points\": 1, \"category\": \"bonus\"}"));
        json_decref(input(id, "{\"kind\": \"award\", \"to\": [1, 2], \"points\": 2, \"category\": \"correction\"}"));
        json_t *m = match_of(id);
        assert_int_equal(score_of(m, 1), 5);
        json_decref(m);

        snprintf(body, sizeof body, "{\"kind\": \"void\", \"target\": %lld, \"reason\": \"wrong seat\"}",
                 (long long) first);
        json_t *v = input(id, body);
        assert_non_null(event_named(json_object_get(v, "events"), "inputs_voided"));
        json_t *voided = json_object_get(v, "voided");
        assert_int_equal(json_array_size(voided), 3);
        assert_string_equal(json_string_value(json_object_get(json_array_get(voided, 0), "kind")), "award");
        json_int_t void_seq = json_integer_value(json_object_get(v, "seq"));
        json_decref(v);
        m = match_of(id);
        assert_int_equal(score_of(m, 1), 0);
        assert_int_equal(score_of(m, 2), 0);
        json_decref(m);
        /* the same target again: not in effect any more; a void of a void */
        json_decref(input_as(id, referee_token, body, 409));
        snprintf(body, sizeof body, "{\"kind\": \"void\", \"target\": %lld}", (long long) void_seq);
        json_decref(input_as(id, referee_token, body, 409));
        /* re-entered, correctly this time */
        json_decref(input(id, "{\"kind\": \"award\", \"to\": [2], \"points\": 3, \"category\": \"bonus\"}"));

        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        json_t *log = get_json(path, referee_token), *it;
        size_t i, marked = 0;
        json_array_foreach(json_object_get(log, "items"), i, it) {
                if (json_integer_value(json_object_get(it, "voided_by")) == void_seq)
                        marked++;
                if (json_integer_value(json_object_get(it, "seq")) == void_seq) {
                        assert_string_equal(json_string_value(json_object_get(it, "reason")), "wrong seat");
                        assert_string_equal(json_string_value(json_object_get(it, "source")), "referee");
                }
        }
        assert_int_equal(marked, 3);
        json_decref(log);

        /* kill -9: the replay applies the void and ends where the match was */
        json_t *before = match_of(id);
        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);
        start_daemon();
        assert_true(daemon_wait_log(&daemon_, "rebuilt from the input log", HARNESS_WAIT_MS));
        /* the REST connection and the token cache come up on their own */
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        json_t *after = match_of(id);
        assert_true(json_equal(json_object_get(before, "view"), json_object_get(after, "view")));
        assert_int_equal(score_of(after, 2), 3);
        json_decref(before);
        json_decref(after);
        control(id, "abort", 200);
}

/* A result that waits for a referee: provisional, undone, confirmed; and
 * confirmed by the runtime at its timeout. */
static void a_result_waits_for_the_referees_confirm(void **state) {
        char body[256];
        (void) state;

        json_int_t id = create("\"config\": {\"points\": {\"target\": 2}}, \"confirm\": \"referee\"");
        json_decref(input_as(id, referee_token, "{\"kind\": \"confirm\"}", 409));      /* nothing to confirm */
        control(id, "start", 200);
        json_t *fin = input(id, "{\"kind\": \"award\", \"to\": [1], \"points\": 2, \"category\": \"bonus\"}");
        json_int_t last = json_integer_value(json_object_get(fin, "seq"));
        assert_string_equal(json_string_value(json_object_get(fin, "state")), "provisional");
        assert_non_null(event_named(json_object_get(fin, "events"), "match_finished"));
        json_decref(fin);
        json_t *m = match_of(id);
        assert_string_equal(state_of(m), "provisional");
        assert_true(json_is_null(json_object_get(m, "seed")));
        assert_non_null(json_object_get(m, "result"));
        json_decref(m);
        /* nothing but a void or a confirm now */
        json_decref(input_as(id, referee_token, "{\"kind\": \"end\"}", 409));
        /* undo the input that ended it: running again */
        snprintf(body, sizeof body, "{\"kind\": \"void\", \"target\": %lld}", (long long) last);
        json_decref(input(id, body));
        wait_state(id, "running");
        json_decref(input(id, "{\"kind\": \"award\", \"to\": [2], \"points\": 2, \"category\": \"bonus\"}"));
        wait_state(id, "provisional");
        json_t *c = input(id, "{\"kind\": \"confirm\"}");
        assert_string_equal(json_string_value(json_object_get(c, "state")), "finished");
        assert_non_null(event_named(json_object_get(c, "events"), "result_confirmed"));
        json_decref(c);
        m = match_of(id);
        assert_string_equal(state_of(m), "finished");
        assert_false(json_is_null(json_object_get(m, "seed")));
        assert_int_equal(score_of(m, 2), 2);
        json_decref(m);
        json_decref(input_as(id, referee_token, "{\"kind\": \"confirm\"}", 409));

        /* by the runtime at the timeout, announced on the match's stream */
        struct stream st;
        char path[96];
        id = create("\"config\": {\"points\": {\"target\": 1}}, \"confirm\": {\"by\": \"referee\", \"timeout_s\": 1}");
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(&st, daemon_.url, path, NULL);
        control(id, "start", 200);
        json_decref(input(id, "{\"kind\": \"end\"}"));
        size_t at = wait_event(&st, 0, "match_finished", NULL);
        wait_event(&st, at, "result_confirmed", NULL);
        stream_close(&st);
        wait_state(id, "finished");
        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        json_t *log = get_json(path, referee_token);
        json_t *items = json_object_get(log, "items"), *lastrow = json_array_get(items, json_array_size(items) - 1);
        assert_string_equal(json_string_value(json_object_get(lastrow, "kind")), "confirm");
        assert_string_equal(json_string_value(json_object_get(lastrow, "source")), "timer");
        json_decref(log);
}

/* A tournament stage that asks for confirmation: the result flows to the
 * stage match only once a referee confirms it. */
static void a_stage_can_ask_for_confirmation(void **state) {
        struct http_reply r;
        char path[160], body[512];
        json_int_t players[2];
        (void) state;

        for (int i = 0; i < 2; i++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\"}", unique_name("rxplayer"));
                post("/v1/players", admin_token, body, &r);
                expect(&r, 201);
                players[i] = json_integer_value(json_object_get(r.json, "id"));
                http_reply_done(&r);
        }
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"game\": \"reflex\", \"match_config\": "
                 "{\"points\": {\"target\": 1}}}", unique_name("rxcup"));
        post("/v1/tournaments", admin_token, body, &r);
        expect(&r, 201);
        json_int_t t = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) t);
        post(path, admin_token, "{\"format\": \"round_robin\", \"confirm\": \"sometimes\"}", &r);
        expect_problem(&r, 400, "confirm");
        http_reply_done(&r);
        post(path, admin_token, "{\"format\": \"round_robin\", \"confirm\": \"referee\"}", &r);
        expect(&r, 201);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) t);
        post(path, admin_token, "{\"state\": \"registration\"}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) t);
        for (int i = 0; i < 2; i++) {
                snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[i]);
                post(path, admin_token, body, &r);
                expect(&r, 201);
                http_reply_done(&r);
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) t);
        post(path, admin_token, "{\"state\": \"check_in\"}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        for (int i = 0; i < 2; i++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) t,
                         (long long) players[i]);
                post(path, admin_token, "{}", &r);
                expect(&r, 200);
                http_reply_done(&r);
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) t);
        post(path, admin_token, "{\"state\": \"running\"}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) t);
        post(path, admin_token, "{}", &r);
        expect(&r, 201);
        json_int_t sm = json_integer_value(json_object_get(json_array_get(json_object_get(r.json, "matches"), 0), "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) t, (long long) sm);
        post(path, referee_token, "{}", &r);
        expect(&r, 200);
        json_int_t id = json_integer_value(json_object_get(r.json, "match"));
        http_reply_done(&r);
        json_t *m = match_of(id);
        assert_string_equal(json_string_value(json_object_get(json_object_get(m, "confirm"), "by")), "referee");
        json_decref(m);

        control(id, "start", 200);
        json_decref(input(id, "{\"kind\": \"end\"}"));
        wait_state(id, "provisional");
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld", (long long) t, (long long) sm);
        json_t *s = get_json(path, NULL);
        assert_string_equal(json_string_value(json_object_get(s, "state")), "called");
        json_decref(s);
        json_decref(input(id, "{\"kind\": \"confirm\"}"));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                s = get_json(path, NULL);
                bool done = strcmp(json_string_value(json_object_get(s, "state")), "done") == 0;
                json_decref(s);
                if (done)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the confirmed result never reached stage match %lld", (long long) sm);
                usleep(20000);
        }
}

/* The next event of st named name (from *at on), whose data's seat is
 * seat (0: any). */
static json_t *next_named(struct stream *st, size_t *at, const char *name, int seat) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                for (size_t i = *at; i < st->n_events; i++)
                        if (strcmp(st->events[i].name, name) == 0 &&
                            (!seat || json_integer_value(json_object_get(st->events[i].data, "seat")) == seat)) {
                                *at = i + 1;
                                return st->events[i].data;
                        }
                if (st->done || mono_ms() > deadline)
                        fail_msg("no %s event arrived after #%zu", name, *at);
                pump(st, 50);
        }
}

static json_t *game_pause_of(json_int_t id) {
        json_t *m = match_of(id), *p = json_incref(json_object_get(m, "game_pause"));

        json_decref(m);
        return p;
}

static json_int_t counter_of(json_int_t id, const char *name) {
        json_t *m = match_of(id);
        json_int_t n = json_integer_value(json_object_get(m, name));

        json_decref(m);
        return n;
}

/* A judged hit from the pads reaches every stream with what each may see;
 * the game's own pause (a slap on the slap pad) and the operator's are
 * independent; the table's keypad sends its named input; a press no route
 * takes is counted; D-Bus has all of it on the game's own interface. */
static void pads_pauses_and_dbus(void **state) {
        struct stream pub, seat1, seat2, ref;
        size_t a_pub = 0, a_s1 = 0, a_s2 = 0, a_ref = 0;
        char path[256], body[256], *mon, *out, *tokens[2] = { NULL, NULL };
        struct http_reply r;
        int st;
        (void) state;

        snprintf(body, sizeof body, "\"table\": %lld, \"config\": {\"points\": {\"target\": 9}, "
                 "\"go\": {\"delay_min_ms\": 0, \"delay_max_ms\": 20}}", (long long) table_id);
        json_int_t id = create(body);
        for (int s = 1; s <= 2; s++) {
                snprintf(path, sizeof path, "/v1/matches/%lld/seats/%d/token", (long long) id, s);
                post(path, referee_token, "{}", &r);
                expect(&r, 201);
                tokens[s - 1] = strdup(json_string_value(json_object_get(r.json, "token")));
                http_reply_done(&r);
        }
        const char *t1 = tokens[0], *t2 = tokens[1];
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(&pub, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1/events?access_token=%s", (long long) id, t1);
        stream_open(&seat1, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/2/events?access_token=%s", (long long) id, t2);
        stream_open(&seat2, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/referee/events?access_token=%s", (long long) id, referee_token);
        stream_open(&ref, daemon_.url, path, NULL);
        /* a seat token opens no other seat's stream */
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/2/events?access_token=%s", (long long) id, t1);
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 403);
        http_reply_done(&r);

        char *obj;
        assert_true(asprintf(&obj, "/org/arbiter/Arbiter1/match/%lld", (long long) id) > 0);
        assert_true(asprintf(&mon, "%s/%s.monitor", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        pid_t mon_pid = harness_dbus_monitor("org.arbiter.Arbiter1.Reflex", mon);
        assert_dbus_doc_matches(obj, "org.arbiter.Arbiter1.Match");
        assert_dbus_doc_matches(obj, "org.arbiter.Arbiter1.Reflex");

        /* a judged hit: seat 1's button pad, after the go */
        control(id, "start", 200);
        next_named(&pub, &a_pub, "go", 0);
        press(PAD_SEAT1_BUTTONS, 0, 0);
        json_t *hit = next_named(&pub, &a_pub, "hit", 1);
        assert_non_null(json_object_get(hit, "reaction_us"));
        assert_null(json_object_get(hit, "margin_us"));         /* seat 1's own */
        assert_null(json_object_get(hit, "window"));            /* the referee's */
        hit = next_named(&seat1, &a_s1, "hit", 1);
        assert_non_null(json_object_get(hit, "margin_us"));
        assert_null(json_object_get(hit, "window"));
        hit = next_named(&seat2, &a_s2, "hit", 1);
        assert_null(json_object_get(hit, "margin_us"));         /* not seat 2's */
        hit = next_named(&ref, &a_ref, "hit", 1);
        assert_non_null(json_object_get(hit, "margin_us"));
        assert_non_null(json_object_get(hit, "window"));
        json_t *m = match_of(id);
        assert_int_equal(score_of(m, 1), 1);
        json_decref(m);

        /* the game's own pause: seat 1 slaps; then the operator's on top */
        press(PAD_SEAT1_SLAP, 0, 0);
        next_named(&pub, &a_pub, "timeout_called", 1);
        json_t *p = game_pause_of(id);
        assert_string_equal(json_string_value(p), "timeout");
        json_decref(p);
        out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 '%s' org.arbiter.Arbiter1.Match "
                               "GamePause State 2>&1", obj);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "s \"timeout\""));
        free(out);
        control(id, "pause", 200);
        wait_state(id, "paused");
        control(id, "resume", 200);             /* lifts the operator's pause only */
        wait_state(id, "running");
        p = game_pause_of(id);
        assert_string_equal(json_string_value(p), "timeout");
        json_decref(p);
        press(PAD_SEAT1_SLAP, 0, 0);            /* the same seat lifts its own */
        next_named(&pub, &a_pub, "play_resumed", 1);
        p = game_pause_of(id);
        assert_true(json_is_null(p));
        json_decref(p);

        /* seat 2's button pad button 1 is a timed press: this match is
         * judged, so the engine refuses it, logged as a pad's press with
         * its clock's uncertainty and receive time */
        press(PAD_SEAT2_BUTTONS, 1, 0);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
                json_t *log = get_json(path, referee_token), *it;
                size_t i;
                bool seen = false;

                json_array_foreach(json_object_get(log, "items"), i, it) {
                        json_t *in = json_object_get(it, "input");

                        /* the slaps were presses too: of the slap pad */
                        if (strcmp(json_string_value(json_object_get(it, "kind")), "press") != 0 ||
                            strcmp(json_string_value(json_object_get(in, "role")), "buttons") != 0)
                                continue;
                        seen = true;
                        assert_int_equal(json_integer_value(json_object_get(in, "seat")), 2);
                        assert_string_equal(json_string_value(json_object_get(in, "role")), "buttons");
                        assert_int_equal(json_integer_value(json_object_get(in, "button")), 1);
                        assert_true(json_integer_value(json_object_get(in, "received_us")) >=
                                    json_integer_value(json_object_get(in, "press_us")));
                        assert_true(json_is_integer(json_object_get(in, "uncertainty_us")));
                        assert_string_equal(json_string_value(json_object_get(it, "source")), "pad");
                        assert_string_equal(json_string_value(json_object_get(it, "refusal")),
                                            "not used by this game");
                }
                json_decref(log);
                if (seen)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the timed press never reached the log");
                usleep(20000);
        }

        /* a keypad key no route takes is counted; Enter ends the match */
        press(PAD_KEYPAD, 5, 0);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; counter_of(id, "unrouted_presses") < 1;) {
                if (mono_ms() > deadline)
                        fail_msg("the keypad's unrouted press was not counted");
                usleep(20000);
        }
        press(PAD_KEYPAD, KEYPAD_ENTER, 0);
        next_named(&pub, &a_pub, "match_finished", 0);
        wait_state(id, "finished");

        /* D-Bus: the game's signals, public fields only */
        static const char *const want[] = { "Member=Go", "Member=Hit", "Member=TimeoutCalled", "Member=PlayResumed" };
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                char *text = run_capture(&st, "cat '%s'", mon);
                bool all = true;

                for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
                        all &= strstr(text, want[i]) != NULL;
                free(text);
                if (all)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("busctl monitor did not see every Reflex signal");
                usleep(50000);
        }
        kill(mon_pid, SIGTERM);
        stream_close(&pub);
        stream_close(&seat1);
        stream_close(&seat2);
        stream_close(&ref);
        free(mon);
        free(obj);
        free(tokens[0]);
        free(tokens[1]);
}

/* A timed game: every press is an input in press order; the first after
 * the go wins the round, one before it is a false start. */
static void a_timed_game_takes_presses_in_order(void **state) {
        struct stream pub;
        size_t at = 0;
        char body[256], path[96];
        (void) state;

        snprintf(body, sizeof body, "\"table\": %lld, \"config\": {\"mode\": \"timed\", \"points\": {\"target\": 1}, "
                 "\"go\": {\"delay_min_ms\": 3000, \"delay_max_ms\": 3000}}", (long long) table_id);
        json_int_t id = create(body);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(&pub, daemon_.url, path, NULL);
        control(id, "start", 200);
        /* before the go (3 s away): a false start */
        press(PAD_SEAT2_BUTTONS, 1, 0);
        next_named(&pub, &at, "false_start", 2);
        next_named(&pub, &at, "go", 0);
        press(PAD_SEAT1_BUTTONS, 1, 0);
        json_t *hit = next_named(&pub, &at, "hit", 1);
        assert_true(json_integer_value(json_object_get(hit, "reaction_us")) >= 0);
        next_named(&pub, &at, "match_finished", 0);
        json_t *m = match_of(id);
        assert_int_equal(score_of(m, 1), 1);
        assert_int_equal(score_of(m, 2), -1);
        json_decref(m);
        stream_close(&pub);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_game_describes_its_vocabulary),
                cmocka_unit_test(a_match_takes_custom_data_and_lists),
                cmocka_unit_test(seat_tokens_open_one_seat_only),
                cmocka_unit_test(inputs_by_name_and_the_referees_preview),
                cmocka_unit_test(a_void_rewinds_and_survives_a_restart),
                cmocka_unit_test(a_result_waits_for_the_referees_confirm),
                cmocka_unit_test(a_stage_can_ask_for_confirmation),
                cmocka_unit_test(pads_pauses_and_dbus),
                cmocka_unit_test(a_timed_game_takes_presses_in_order),
        };

        return cmocka_run_group_tests_name("framework", tests, setup, teardown);
}
