/* Fair draws through REST (issue 11; docs/fairness.md): a competitive
 * tournament's decks come from a secret arbiterd draws itself, which no
 * reply, event or log line shows before the tournament is finished; each
 * call of a stage match (an aborted one called again too) is a new deck,
 * whose seed is HMAC-SHA256 of the secret and the call's identity; the
 * commitment published from the start is the secret's SHA-256; reopening
 * the tournament draws a new secret.  A seed the organiser chooses is for
 * a tournament marked non-competitive, whose secret follows from the seed.
 * A tournament made before migration 0007 keeps working, not competitive,
 * with the secret its seed gives. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/seed.h"
#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define N_PLAYERS 4

static struct daemon_proc daemon_;
static char *admin, *referee;
/* Every reply body this test got, to look for the secret in. */
static char *replies;
static size_t replies_len;
static FILE *replies_f;

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_t *keep(struct http_reply *r, long status) {
        expect(r, status);
        fprintf(replies_f, "%s\n", r->body ? r->body : "");
        fflush(replies_f);
        json_t *j = json_incref(r->json);
        http_reply_done(r);
        return j;
}

static json_t *post(const char *path, const char *token, const char *body, long status) {
        struct http_reply r;

        http_post_json(&daemon_, path, token, body, &r);
        return keep(&r, status);
}

static json_t *get(const char *path, long status) {
        struct http_reply r;

        http_get(&daemon_, path, admin, &r);
        return keep(&r, status);
}

static json_int_t jint(json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

static int setup(void **state) {
        (void) state;
        replies_f = open_memstream(&replies, &replies_len);
        assert_non_null(replies_f);
        daemon_start(&daemon_, NULL, NULL, true);
        admin = create_token("admin", unique_name("organiser"));
        referee = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin);
        free(referee);
        fclose(replies_f);
        free(replies);
        return st == 0 ? 0 : -1;
}

/* What the database holds: secret of epoch of tournament tid, hex. */
static char *db_secret(json_int_t tid, int epoch) {
        int st;
        char *out = run_capture(&st, "psql '%s' -X -tA -c 'SELECT encode(secrets[%d], '\\''hex'\\'') FROM tournaments "
                                     "WHERE id = %lld'", harness_env("ARBITER_TEST_DSN"), epoch, (long long) tid);
        assert_int_equal(st, 0);
        out[strcspn(out, "\n")] = '\0';
        assert_int_equal(strlen(out), SEED_HEX_LEN);
        return out;
}

static uint64_t expected_seed(const char *secret_hex, json_int_t tid, json_int_t stage_match, int attempt) {
        uint8_t secret[SEED_SECRET_LEN];
        uint64_t seed;

        assert_int_equal(seed_unhex(secret_hex, secret, sizeof secret), 0);
        assert_int_equal(seed_match(secret, tid, stage_match, (uint32_t) attempt, &seed), 0);
        return seed;
}

static void assert_commitment(json_t *entry, const char *secret_hex) {
        uint8_t secret[SEED_SECRET_LEN], c[SEED_SHA256_LEN];
        char hex[SEED_HEX_LEN + 1];

        assert_int_equal(seed_unhex(secret_hex, secret, sizeof secret), 0);
        assert_int_equal(seed_commitment(secret, c), 0);
        seed_hex(c, sizeof c, hex);
        assert_string_equal(json_string_value(json_object_get(entry, "commitment")), hex);
}

/* The secret, in lowercase or uppercase hex, is nowhere in text. */
static void assert_not_in(const char *text, const char *secret_hex, const char *where) {
        char upper[SEED_HEX_LEN + 1];

        for (size_t i = 0; i <= SEED_HEX_LEN; i++)
                upper[i] = (char) (secret_hex[i] >= 'a' && secret_hex[i] <= 'f' ? secret_hex[i] - 32 : secret_hex[i]);
        if (strstr(text, secret_hex) || strstr(text, upper))
                fail_msg("the secret shows in %s before the tournament is finished", where);
}

/* Plays runtime match mid to its end, seat 1 calling right every time. */
static void play_runtime_match(json_int_t mid) {
        char path[96], body[128];

        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) mid);
        json_decref(post(path, referee, "{}", 200));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                snprintf(path, sizeof path, "/v1/matches/%lld", (long long) mid);
                json_t *m = get(path, 200), *v = json_object_get(m, "view");
                if (strcmp(json_string_value(json_object_get(m, "state")), "finished") == 0) {
                        json_decref(m);
                        return;
                }
                if (mono_ms() > deadline)
                        fail_msg("runtime match %lld did not finish", (long long) mid);
                if (json_is_object(json_object_get(v, "window"))) {
                        snprintf(body, sizeof body, "{\"seat\": 1, \"kind\": \"call\", \"call\": %d}",
                                 cp_pick_call(v, false));
                        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) mid);
                        json_decref(post(path, referee, body, 200));
                } else {
                        usleep(20000);
                }
                json_decref(m);
        }
}

/* Waits until stage match smid of tid is in state. */
static void wait_stage_match(json_int_t tid, json_int_t smid, const char *state) {
        char path[128];

        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld", (long long) tid, (long long) smid);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *sm = get(path, 200);
                bool there = strcmp(json_string_value(json_object_get(sm, "state")), state) == 0;
                json_decref(sm);
                if (there)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("stage match %lld never became %s", (long long) smid, state);
                usleep(20000);
        }
}

/* n new players, registered and checked in to tid, which then runs. */
static void register_and_start(json_int_t tid, int n) {
        char path[128], body[160];

        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"registration\"}", 200));
        json_int_t ids[N_PLAYERS];
        for (int i = 0; i < n; i++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\"}", unique_name("fair"));
                json_t *p = post("/v1/players", admin, body, 201);
                ids[i] = jint(p, "id");
                json_decref(p);
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
                snprintf(body, sizeof body, "{\"player\": %lld}", (long long) ids[i]);
                json_decref(post(path, admin, body, 201));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"check_in\"}", 200));
        for (int i = 0; i < n; i++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) tid,
                         (long long) ids[i]);
                json_decref(post(path, admin, "{}", 200));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_t *t = post(path, admin, "{\"state\": \"running\"}", 200);
        json_decref(t);
}

/* The call of runtime match mid in GET .../calls (borrowed from calls). */
static json_t *call_of(json_t *calls, json_int_t mid) {
        size_t i;
        json_t *c;

        json_array_foreach(json_object_get(calls, "items"), i, c)
                if (jint(c, "match") == mid)
                        return c;
        fail_msg("runtime match %lld is not among the tournament's calls", (long long) mid);
        return NULL;
}

static void a_competitive_draw_is_secret_until_the_end_and_checkable_after(void **state) {
        char path[160], body[256], *events = NULL;
        (void) state;

        /* every event the daemon publishes, from before the tournament exists */
        char *events_path;
        assert_true(asprintf(&events_path, "%s/%s.sse", harness_env("ARBITER_TEST_TMP"), unique_name("fair")) > 0);
        char *pid_s = run_capture(NULL, "curl -sN -H 'Authorization: Bearer %s' '%s/v1/events' > '%s' 2>/dev/null "
                                        "& echo $!", admin, daemon_.url, events_path);
        pid_t curl_pid = (pid_t) atoi(pid_s);
        free(pid_s);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {     /* its stream is open */
                char *head = run_capture(NULL, "head -c 64 '%s'", events_path);
                bool open = strstr(head, "retry:") != NULL;
                free(head);
                if (open)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the event stream did not open");
                usleep(20000);
        }

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}]}",
                 unique_name("fair_table"));
        json_t *tab = post("/v1/tables", admin, body, 201);
        snprintf(body, sizeof body, "{\"name\": \"Fair cup\", \"game\": \"crash-pilot\", \"tables\": [%lld], "
                 "\"match_config\": {\"reveal\": {\"pause_ms\": 0}}}", (long long) jint(tab, "id"));
        json_decref(tab);
        json_t *t = post("/v1/tournaments", admin, body, 201);
        json_int_t tid = jint(t, "id");
        /* competitive by default; the seed hidden, the commitment shown */
        assert_true(json_is_true(json_object_get(t, "competitive")));
        assert_true(json_is_null(json_object_get(t, "seed")));
        json_t *secrets = json_object_get(t, "secrets");
        assert_int_equal(json_array_size(secrets), 1);
        assert_int_equal(jint(json_array_get(secrets, 0), "epoch"), 1);
        assert_true(json_is_null(json_object_get(json_array_get(secrets, 0), "secret")));
        char *secret = db_secret(tid, 1);
        assert_commitment(json_array_get(secrets, 0), secret);
        json_decref(t);

        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        /* nor may anyone choose its stages' draws */
        struct http_reply hr;
        http_post_json(&daemon_, path, admin, "{\"format\": \"swiss\", \"config\": {\"rounds\": 1, \"seed\": 5}}",
                       &hr);
        expect(&hr, 409);
        assert_non_null(strstr(json_string_value(json_object_get(hr.json, "detail")), "config.seed"));
        http_reply_done(&hr);
        json_decref(post(path, admin, "{\"format\": \"swiss\", \"config\": {\"rounds\": 1}}", 201));
        register_and_start(tid, N_PLAYERS);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        json_t *round = post(path, admin, "{}", 201);
        json_t *matches = json_object_get(round, "matches");
        assert_int_equal(json_array_size(matches), 2);
        json_int_t a = jint(json_array_get(matches, 0), "id"), b = jint(json_array_get(matches, 1), "id");

        /* match A called, aborted: its seed shows, and is the derived one */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) tid, (long long) a);
        json_t *called = post(path, referee, "{}", 200);
        json_int_t first = jint(called, "match");
        json_decref(called);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/calls", (long long) tid);
        json_t *calls = get(path, 200);
        json_t *c = call_of(calls, first);
        assert_int_equal(jint(c, "stage_match"), a);
        assert_int_equal(jint(c, "attempt"), 1);
        assert_int_equal(jint(c, "epoch"), 1);
        assert_true(json_is_null(json_object_get(c, "seed")));              /* not over: hidden */
        json_decref(calls);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) first);
        json_decref(post(path, referee, "{}", 200));
        wait_stage_match(tid, a, "pending");
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) first);
        json_t *m = get(path, 200);
        uint64_t seed1 = (uint64_t) jint(m, "seed");
        json_decref(m);
        assert_true(seed1 == expected_seed(secret, tid, a, 1));

        /* called again: a new deck, not the one the abort showed */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) tid, (long long) a);
        called = post(path, referee, "{}", 200);
        json_int_t second = jint(called, "match");
        json_decref(called);
        play_runtime_match(second);
        wait_stage_match(tid, a, "done");
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) second);
        m = get(path, 200);
        uint64_t seed2 = (uint64_t) jint(m, "seed");
        json_decref(m);
        assert_true(seed2 != seed1);
        assert_true(seed2 == expected_seed(secret, tid, a, 2));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/calls", (long long) tid);
        calls = get(path, 200);
        assert_int_equal(json_array_size(json_object_get(calls, "items")), 2);
        c = call_of(calls, second);
        assert_int_equal(jint(c, "attempt"), 2);
        assert_true((uint64_t) jint(c, "seed") == seed2);
        assert_true((uint64_t) jint(call_of(calls, first), "seed") == seed1);
        json_decref(calls);

        /* match B by hand; the stage and the tournament end */
        json_t *parts = json_object_get(json_array_get(matches, 1), "participants");
        snprintf(body, sizeof body, "{\"results\": [{\"player\": %lld, \"rank\": 1}, {\"player\": %lld, \"rank\": 2}]}",
                 (long long) jint(json_array_get(parts, 0), "player"),
                 (long long) jint(json_array_get(parts, 1), "player"));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid, (long long) b);
        json_decref(post(path, referee, body, 200));
        json_decref(round);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        json_decref(post(path, admin, "{}", 409));                          /* everything is played */

        /* before the end: in no reply, no event, no log line */
        fflush(replies_f);
        assert_not_in(replies, secret, "a reply");
        events = run_capture(NULL, "cat '%s'", events_path);
        assert_non_null(strstr(events, "tournament_changed"));
        assert_not_in(events, secret, "an event");
        free(events);
        char *log = daemon_log(&daemon_);
        assert_not_in(log, secret, "the daemon's log");
        free(log);

        /* the end reveals it: the secret, and the seed of the stages' draws */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        t = post(path, admin, "{\"state\": \"finished\"}", 200);
        json_t *e1 = json_array_get(json_object_get(t, "secrets"), 0);
        assert_string_equal(json_string_value(json_object_get(e1, "secret")), secret);
        assert_commitment(e1, secret);
        uint8_t raw[SEED_SECRET_LEN];
        uint64_t tseed;
        assert_int_equal(seed_unhex(secret, raw, sizeof raw), 0);
        assert_int_equal(seed_tournament(raw, &tseed), 0);
        assert_true((uint64_t) jint(t, "seed") == tseed);
        json_decref(t);
        /* ... and the event that says so carries it */
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                events = run_capture(NULL, "cat '%s'", events_path);
                bool told = strstr(events, secret) != NULL;
                free(events);
                if (told)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("no event revealed the secret at the end");
                usleep(20000);
        }

        /* reopened: the old secret stays shown, a new one is drawn for what
         * comes next, and a call of the new stage's draws from it */
        t = post(path, admin, "{\"state\": \"running\"}", 200);
        secrets = json_object_get(t, "secrets");
        assert_int_equal(json_array_size(secrets), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(secrets, 0), "secret")), secret);
        assert_true(json_is_null(json_object_get(json_array_get(secrets, 1), "secret")));
        char *secret2 = db_secret(tid, 2);
        assert_string_not_equal(secret2, secret);
        assert_commitment(json_array_get(secrets, 1), secret2);
        json_decref(t);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"swiss\", \"config\": {\"rounds\": 1}}", 201));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        round = post(path, admin, "{}", 201);
        json_int_t next = jint(json_array_get(json_object_get(round, "matches"), 0), "id");
        json_decref(round);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) tid, (long long) next);
        called = post(path, referee, "{}", 200);
        json_int_t third = jint(called, "match");
        json_decref(called);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) third);
        json_decref(post(path, referee, "{}", 200));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/calls", (long long) tid);
        calls = get(path, 200);
        c = call_of(calls, third);
        assert_int_equal(jint(c, "epoch"), 2);
        assert_true((uint64_t) jint(c, "seed") == expected_seed(secret2, tid, next, 1));
        json_decref(calls);
        fflush(replies_f);
        assert_not_in(replies, secret2, "a reply");
        log = daemon_log(&daemon_);
        assert_not_in(log, secret2, "the daemon's log");
        free(log);

        kill(curl_pid, SIGTERM);
        free(events_path);
        free(secret);
        free(secret2);
}

static void a_chosen_seed_makes_a_non_competitive_tournament(void **state) {
        uint8_t secret[SEED_SECRET_LEN];
        char hex[SEED_HEX_LEN + 1], path[96];
        (void) state;

        /* refused unless marked, and the 400 says why */
        struct http_reply r;
        http_post_json(&daemon_, "/v1/tournaments", admin,
                       "{\"name\": \"Practice\", \"game\": \"crash-pilot\", \"seed\": 2026}", &r);
        expect(&r, 400);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "\"competitive\": false"));
        http_reply_done(&r);

        json_t *t = post("/v1/tournaments", admin, "{\"name\": \"Practice\", \"game\": \"crash-pilot\", \"seed\": 2026, "
                         "\"competitive\": false}", 201);
        json_int_t tid = jint(t, "id");
        assert_true(json_is_false(json_object_get(t, "competitive")));
        /* the secret follows from the seed (docs/fairness.md) */
        assert_int_equal(seed_secret_of_seed(2026, 1, secret), 0);
        seed_hex(secret, sizeof secret, hex);
        assert_commitment(json_array_get(json_object_get(t, "secrets"), 0), hex);
        json_decref(t);
        char *db = db_secret(tid, 1);
        assert_string_equal(db, hex);
        free(db);
        /* its stages' draws may have a seed of their own too */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"swiss\", \"config\": {\"rounds\": 1, \"seed\": 5}}", 201));
        /* marked in every reply: one, and the list */
        snprintf(path, sizeof path, "/v1/tournaments/%lld", (long long) tid);
        t = get(path, 200);
        assert_true(json_is_false(json_object_get(t, "competitive")));
        json_decref(t);
        json_t *list = get("/v1/tournaments?limit=1000", 200), *it;
        size_t i;
        bool found = false;
        json_array_foreach(json_object_get(list, "items"), i, it)
                if (jint(it, "id") == tid)
                        found = json_is_false(json_object_get(it, "competitive"));
        assert_true(found);
        json_decref(list);
}

/* A database at 0006 with a tournament in it, then this build's
 * migrations: the tournament is not competitive, and its secret is the one
 * its seed gives (the SQL of 0007 computes what common/seed.c does). */
static void a_tournament_made_before_0007_keeps_working(void **state) {
        const char *root = harness_env("ARBITER_TEST_ROOT"), *tmp = harness_env("ARBITER_TEST_TMP");
        char *name = strdup(unique_name("legacy")), *dsn = create_database(name), *old, *env_dsn, path[96];
        uint8_t secret[SEED_SECRET_LEN];
        char hex[SEED_HEX_LEN + 1];
        struct daemon_proc d;
        (void) state;

        assert_true(asprintf(&old, "%s/%s-migrations", tmp, name) > 0);
        assert_int_equal(run_cmd("mkdir -p '%s' && cp '%s'/migrations/000[1-6]_*.sql '%s'/", old, root, old), 0);
        assert_int_equal(run_cmd("ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s' ARBITER_BUS=none '%s' --migrate-only "
                                 ">/dev/null 2>&1", dsn, old, harness_env("ARBITER_TEST_DAEMON")), 0);
        assert_int_equal(run_cmd("psql '%s' -X -q -c \"INSERT INTO tournaments (name, game, seed, created_by) "
                                 "VALUES ('Old night', 'crash-pilot', 2026, 'test')\"", dsn), 0);

        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        const char *env[] = { env_dsn, "ARBITER_BUS=none", NULL };     /* the suite's daemon has the name */
        daemon_start(&d, env, NULL, true);
        assert_true(wait_database_state(&d, "ready", HARNESS_WAIT_MS));
        struct http_reply r;
        snprintf(path, sizeof path, "/v1/tournaments/1");
        http_get(&d, path, NULL, &r);
        expect(&r, 200);
        assert_true(json_is_false(json_object_get(r.json, "competitive")));
        assert_int_equal(seed_secret_of_seed(2026, 1, secret), 0);
        seed_hex(secret, sizeof secret, hex);
        assert_commitment(json_array_get(json_object_get(r.json, "secrets"), 0), hex);
        http_reply_done(&r);
        assert_int_equal(daemon_stop(&d, SIGTERM, NULL), 0);
        free(env_dsn);
        free(old);
        free(dsn);
        free(name);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_competitive_draw_is_secret_until_the_end_and_checkable_after),
                cmocka_unit_test(a_chosen_seed_makes_a_non_competitive_tournament),
                cmocka_unit_test(a_tournament_made_before_0007_keeps_working),
        };
        return cmocka_run_group_tests_name("fairness", tests, setup, teardown);
}
