/* Ratings kept by the rating worker (organiser/ratings.h; docs/ratings.md,
 * "How the tables are kept"), through a real daemon on a database of its
 * own:
 *   - results entered through the API update the ratings a step at a time
 *     (GET /v1/status: ratings.steps, no recompute), each announced by
 *     ratings_changed on ratings/crash-pilot, and the table equals, to the
 *     last bit, the one POST .../recompute then makes from the results;
 *   - a correction of an early result recomputes from it, and the table is
 *     again the one a recompute from scratch makes;
 *   - a result changed in the database while no daemon runs is recomputed
 *     when one starts; a result that comes in behind the table's place in
 *     the order is taken;
 *   - a season's leaderboard is computed when first asked for, then kept
 *     a step at a time like the all-time one;
 *   - with 100,000 stored results, GET /v1/leaderboards keeps answering,
 *     with the last complete table, while a correction's recompute runs.
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define N_PLAYERS 6
/* The stored results of the last test: enough that a recompute takes a
 * while on any machine (about a second here), few enough to insert in a
 * few seconds. */
#define BULK_RESULTS 100000
#define BULK_PLAYERS 500

static struct daemon_proc daemon_;
static char *dsn, *env_dsn, *admin, *referee;
static json_int_t players[N_PLAYERS];
static json_int_t tid;                  /* the round robin, through the API */
static json_int_t side_stage;           /* results made in the database */
static json_int_t first_match;          /* the first result recorded */
static json_t *first_participants;

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_t *post(const char *path, const char *token, const char *body, long status) {
        struct http_reply r;

        http_post_json(&daemon_, path, token, body, &r);
        expect(&r, status);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *get(const char *path, long status) {
        struct http_reply r;

        http_get(&daemon_, path, admin, &r);
        expect(&r, status);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_int_t jint(json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

/* Runs sql on the test's database; the result (the caller clears it). */
static PGresult *sql(const char *q) {
        PGconn *c = PQconnectdb(dsn);
        PGresult *res;

        if (PQstatus(c) != CONNECTION_OK)
                fail_msg("cannot connect to %s: %s", dsn, PQerrorMessage(c));
        res = PQexec(c, q);
        if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
                fail_msg("%s: %s", q, PQresultErrorMessage(res));
        PQfinish(c);
        return res;
}

static char *token(const char *role) {
        int st;
        char *out = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                     "'%s' --create-token %s '%s' 2>/dev/null",
                                dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"), role,
                                unique_name(role));
        if (st != 0)
                fail_msg("arbiterd --create-token %s exited %d", role, st);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

static void start_daemon(void) {
        const char *env[] = { env_dsn, NULL };

        daemon_start(&daemon_, env, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
}

static int setup(void **state) {
        char *name = strdup(unique_name("ratings"));
        (void) state;

        dsn = create_database(name);
        free(name);
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        /* the schema first, so that the tokens can be made */
        int st;
        free(run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none '%s' "
                              "--migrate-only 2>&1", dsn, harness_env("ARBITER_TEST_ROOT"),
                         harness_env("ARBITER_TEST_DAEMON")));
        assert_int_equal(st, 0);
        admin = token("admin");
        referee = token("referee");
        start_daemon();
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        json_decref(first_participants);
        free(admin);
        free(referee);
        free(env_dsn);
        free(dsn);
        return st == 0 ? 0 : -1;
}

/* ---- what the worker has done ------------------------------------------------------ */

struct counts {
        json_int_t steps, recomputes, failures;
};

static struct counts counts(void) {
        json_t *s = get("/v1/status", 200), *r = json_object_get(s, "ratings");
        struct counts c = { jint(r, "steps"), jint(r, "recomputes"), jint(r, "failures") };

        json_decref(s);
        return c;
}

/* Waits until the worker is idle with at least these counts. */
static struct counts wait_counts(json_int_t steps, json_int_t recomputes) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *s = get("/v1/status", 200), *r = json_object_get(s, "ratings");
                struct counts c = { jint(r, "steps"), jint(r, "recomputes"), jint(r, "failures") };
                bool busy = json_is_true(json_object_get(r, "busy"));

                json_decref(s);
                if (!busy && c.steps >= steps && c.recomputes >= recomputes)
                        return c;
                if (mono_ms() > deadline)
                        fail_msg("the rating worker never reached %lld steps and %lld recomputes (it has %lld and "
                                 "%lld)", (long long) steps, (long long) recomputes, (long long) c.steps,
                                 (long long) c.recomputes);
                usleep(20000);
        }
}

/* The leaderboard of a system (and a season query, or ""). */
static json_t *board(const char *system, const char *season) {
        char path[160];

        snprintf(path, sizeof path, "/v1/leaderboards/crash-pilot?system=%s%s", system, season);
        json_t *j = get(path, 200), *items = json_incref(json_object_get(j, "items"));
        json_decref(j);
        return items;
}

/* Two boards hold the same players with the same ratings, to the last bit. */
static bool same_board(json_t *a, json_t *b, char *why, size_t len) {
        size_t i;
        json_t *x;

        if (json_array_size(a) != json_array_size(b)) {
                snprintf(why, len, "%zu players, then %zu", json_array_size(a), json_array_size(b));
                return false;
        }
        json_array_foreach(a, i, x) {
                json_t *y = json_array_get(b, i), *rx = json_object_get(x, "rating"), *ry = json_object_get(y, "rating");
                const char *key;
                json_t *v;

                if (jint(x, "player") != jint(y, "player") || jint(x, "games") != jint(y, "games")) {
                        snprintf(why, len, "rank %zu: player %lld (%lld games), then %lld (%lld games)", i + 1,
                                 (long long) jint(x, "player"), (long long) jint(x, "games"),
                                 (long long) jint(y, "player"), (long long) jint(y, "games"));
                        return false;
                }
                json_object_foreach(rx, key, v)
                        if (json_number_value(v) != json_number_value(json_object_get(ry, key))) {
                                snprintf(why, len, "player %lld: %s %.17g, then %.17g", (long long) jint(x, "player"),
                                         key, json_number_value(v), json_number_value(json_object_get(ry, key)));
                                return false;
                        }
        }
        return true;
}

static void assert_same_board(json_t *a, json_t *b, const char *what) {
        char why[256];

        if (!same_board(a, b, why, sizeof why))
                fail_msg("%s: %s", what, why);
}

/* POST .../recompute of the tournament, and the table it makes. */
static void recompute_now(json_int_t tournament) {
        char path[96];
        struct counts before = counts();

        snprintf(path, sizeof path, "/v1/tournaments/%lld/recompute", (long long) tournament);
        json_decref(post(path, admin, "{}", 202));
        wait_counts(before.steps, before.recomputes + 1);
}

/* ---- the tournament ------------------------------------------------------------------- */

/* A round robin of N_PLAYERS over crash-pilot, running. */
static void make_tournament(void) {
        char path[128], body[256];
        json_t *j;

        for (int n = 0; n < N_PLAYERS; n++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\"}", unique_name("rated"));
                j = post("/v1/players", admin, body, 201);
                players[n] = jint(j, "id");
                json_decref(j);
        }
        j = post("/v1/tournaments", admin, "{\"name\": \"ladder\", \"game\": \"crash-pilot\", \"seed\": 7, "
                 "\"competitive\": false}", 201);
        tid = jint(j, "id");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"registration\"}", 200));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
        for (int n = 0; n < N_PLAYERS; n++) {
                snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[n]);
                json_decref(post(path, admin, body, 201));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"round_robin\"}", 201));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"check_in\"}", 200));
        for (int n = 0; n < N_PLAYERS; n++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) tid,
                         (long long) players[n]);
                json_decref(post(path, admin, "{}", 200));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"running\"}", 200));
}

/* The result body of duel m won by seat winner (1 or 2). */
static void result_body(json_t *m, int winner, char *buf, size_t len) {
        json_t *p = json_object_get(m, "participants");

        snprintf(buf, len, "{\"results\": [{\"player\": %lld, \"rank\": %d}, {\"player\": %lld, \"rank\": %d}]",
                 (long long) jint(json_array_get(p, 0), "player"), winner == 1 ? 1 : 2,
                 (long long) jint(json_array_get(p, 1), "player"), winner == 1 ? 2 : 1);
}

/* A duel of players a and b (a won) recorded in the database at when (an
 * SQL time), in a tournament of the game made there: the way a result
 * reaches the worker (the trigger) without the API. */
static void side_result(json_int_t a, json_int_t b, const char *when) {
        static int round;
        char q[640];

        if (!side_stage) {
                PGresult *res = sql("WITH t AS (INSERT INTO tournaments (name, game, seed, state, created_by, "
                                    "  competitive, secrets) VALUES ('side', 'crash-pilot', 1, 'finished', 'test', "
                                    "  false, ARRAY['\\x00'::bytea]) RETURNING id) "
                                    "INSERT INTO stages (tournament_id, number, format, config, state) "
                                    "SELECT id, 1, 'swiss', '{}', 'finished' FROM t RETURNING id");
                side_stage = atoll(PQgetvalue(res, 0, 0));
                PQclear(res);
        }
        snprintf(q, sizeof q, "INSERT INTO stage_matches (stage_id, round, table_no, participants) "
                 "VALUES (%lld, %d, 1, ARRAY[%lld, %lld]) RETURNING id", (long long) side_stage, ++round,
                 (long long) a, (long long) b);
        PGresult *res = sql(q);
        long long id = atoll(PQgetvalue(res, 0, 0));
        PQclear(res);
        snprintf(q, sizeof q, "UPDATE stage_matches SET state = 'done', recorded_at = %s, recorded_by = 'test', "
                 "result = jsonb_build_array(jsonb_build_object('player', %lld, 'rank', 1, 'forfeit', false), "
                 "jsonb_build_object('player', %lld, 'rank', 2, 'forfeit', false)) WHERE id = %lld",
                 when, (long long) a, (long long) b, id);
        PQclear(sql(q));
}

/* ---- the tests ---------------------------------------------------------------------------- */


static void results_are_rated_a_step_at_a_time_and_equal_a_recompute(void **state) {
        char path[128], body[256];
        struct stream st;
        size_t seen = 0;
        (void) state;

        make_tournament();
        stream_open(&st, daemon_.url, "/v1/events?topic=ratings/crash-pilot", NULL);
        struct counts c0 = wait_counts(0, 0);
        int played = 0;
        for (int round = 1; round < N_PLAYERS; round++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
                json_t *r = post(path, admin, "{}", 201), *m;
                size_t i;

                json_array_foreach(json_object_get(r, "matches"), i, m) {
                        if (!first_match) {
                                first_match = jint(m, "id");
                                first_participants = json_incref(json_object_get(m, "participants"));
                        }
                        result_body(m, 1 + (int) ((round + i) % 2), body, sizeof body - 1);
                        strcat(body, "}");
                        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                                 (long long) jint(m, "id"));
                        json_decref(post(path, referee, body, 200));
                        played++;
                        /* its step, announced */
                        seen = wait_event(&st, seen, "ratings_changed", NULL) + 1;
                        assert_string_equal(data_str(&st.events[seen - 1], "game"), "crash-pilot");
                }
                json_decref(r);
        }
        struct counts c1 = wait_counts(c0.steps + 1, 0);
        /* every result was a step, but the first, which made the game's
         * table (a recompute of one result) */
        assert_true(c1.recomputes - c0.recomputes <= 1);
        assert_int_equal(c1.steps - c0.steps + c1.recomputes - c0.recomputes, played);
        assert_int_equal(c1.failures, 0);

        json_t *os = board("openskill", ""), *g2 = board("glicko2", "");
        assert_int_equal(json_array_size(os), N_PLAYERS);
        assert_int_equal(json_array_size(g2), N_PLAYERS);
        assert_int_equal(jint(json_array_get(os, 0), "games"), N_PLAYERS - 1);
        /* the history: one entry a match, the last where the board stands */
        snprintf(path, sizeof path, "/v1/players/%lld/ratings?game=crash-pilot&system=glicko2",
                 (long long) jint(json_array_get(g2, 0), "player"));
        json_t *h = get(path, 200), *items = json_object_get(h, "items");
        assert_int_equal(json_array_size(items), N_PLAYERS - 1);
        assert_true(json_number_value(json_object_get(json_object_get(json_array_get(items, N_PLAYERS - 2), "after"),
                                                      "rating")) ==
                    json_number_value(json_object_get(json_object_get(json_array_get(g2, 0), "rating"), "rating")));
        json_decref(h);

        /* the same results recomputed from scratch give the same table */
        recompute_now(tid);
        seen = wait_event(&st, seen, "ratings_changed", NULL) + 1;
        json_t *os2 = board("openskill", ""), *g22 = board("glicko2", "");
        assert_same_board(os, os2, "OpenSkill, step by step then recomputed");
        assert_same_board(g2, g22, "Glicko-2, step by step then recomputed");
        json_decref(os);
        json_decref(g2);
        json_decref(os2);
        json_decref(g22);
        stream_close(&st);
}

static void a_correction_of_an_early_result_recomputes_from_it(void **state) {
        char path[160], body[320];
        (void) state;

        assert_true(first_match > 0);
        json_t *before = board("openskill", "");
        struct counts c0 = counts();
        /* the first result the other way round */
        json_t *m = json_pack("{s:O}", "participants", first_participants), *row;
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld", (long long) tid, (long long) first_match);
        row = get(path, 200);
        int winner_was = jint(json_array_get(json_object_get(row, "result"), 0), "rank") == 1 ? 1 : 2;
        json_decref(row);
        result_body(m, 3 - winner_was, body, sizeof body);
        strcat(body, ", \"reason\": \"the sheet was read the wrong way\"}");
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/corrections", (long long) tid,
                 (long long) first_match);
        json_decref(post(path, referee, body, 200));
        json_decref(m);
        struct counts c1 = wait_counts(c0.steps, c0.recomputes + 1);
        assert_int_equal(c1.failures, 0);
        json_t *after = board("openskill", "");
        char why[256];
        assert_false(same_board(before, after, why, sizeof why));

        /* and what it made is what a recompute from scratch makes */
        recompute_now(tid);
        json_t *again = board("openskill", "");
        assert_same_board(after, again, "recomputed from the correction, then from scratch");
        json_decref(before);
        json_decref(after);
        json_decref(again);
}

static void a_change_made_while_no_daemon_runs_is_recomputed_at_the_start(void **state) {
        char q[256];
        (void) state;

        json_t *before = board("glicko2", "");
        assert_int_equal(daemon_stop(&daemon_, SIGTERM, NULL), 0);
        /* the first result back the way it was, by hand */
        snprintf(q, sizeof q, "UPDATE stage_matches SET result = (SELECT jsonb_agg(jsonb_set(e, '{rank}', "
                 "to_jsonb(3 - (e ->> 'rank')::int))) FROM jsonb_array_elements(result) e) WHERE id = %lld",
                 (long long) first_match);
        PQclear(sql(q));
        PGresult *res = sql("SELECT count(*) FROM rating_dirty");
        assert_string_equal(PQgetvalue(res, 0, 0), "1");
        PQclear(res);
        start_daemon();
        wait_counts(0, 1);
        res = sql("SELECT count(*) FROM rating_dirty");
        assert_string_equal(PQgetvalue(res, 0, 0), "0");
        PQclear(res);
        json_t *after = board("glicko2", "");
        char why[256];
        assert_false(same_board(before, after, why, sizeof why));
        recompute_now(tid);
        json_t *again = board("glicko2", "");
        assert_same_board(after, again, "recomputed at the start, then from scratch");
        json_decref(before);
        json_decref(after);
        json_decref(again);
}

static void a_result_that_comes_in_behind_the_tables_place_is_taken(void **state) {
        (void) state;

        /* a result with a time before every other's, as if its transaction
         * had begun first and committed last */
        struct counts c0 = counts();
        side_result(players[0], players[1], "now() - interval '1 day'");
        wait_counts(c0.steps, c0.recomputes + 1);
        json_t *after = board("openskill", ""), *p0 = NULL, *x;
        size_t i;
        json_array_foreach(after, i, x)
                if (jint(x, "player") == players[0])
                        p0 = x;
        assert_non_null(p0);
        assert_int_equal(jint(p0, "games"), N_PLAYERS);         /* the round robin's five, and this one */
        recompute_now(tid);
        json_t *again = board("openskill", "");
        assert_same_board(after, again, "a result behind the place, then from scratch");
        json_decref(after);
        json_decref(again);
}

static void a_season_is_computed_when_first_asked_for_then_kept(void **state) {
        char season[96], path[160], day[16], next[16];
        time_t now = time(NULL), tomorrow = now + 86400;
        struct tm tm;
        json_t *s = NULL, *x;
        size_t i;
        (void) state;

        strftime(day, sizeof day, "%Y-%m-%d", gmtime_r(&now, &tm));
        strftime(next, sizeof next, "%Y-%m-%d", gmtime_r(&tomorrow, &tm));
        /* today's season, until tomorrow: every result but yesterday's,
         * asked for until it is computed (503 meanwhile) */
        snprintf(season, sizeof season, "&from=%s&to=%s", day, next);
        snprintf(path, sizeof path, "/v1/leaderboards/crash-pilot?system=openskill%s", season);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !s;) {
                struct http_reply r;
                http_get(&daemon_, path, NULL, &r);
                if (r.status == 200)
                        s = json_incref(json_object_get(r.json, "items"));
                else if (r.status != 503)
                        fail_msg("a season's board: HTTP %ld: %s", r.status, r.body);
                http_reply_done(&r);
                if (!s && mono_ms() > deadline)
                        fail_msg("the season's board was never computed");
                if (!s)
                        usleep(100000);
        }
        assert_int_equal(json_array_size(s), N_PLAYERS);
        json_array_foreach(s, i, x)
                assert_int_equal(jint(x, "games"), N_PLAYERS - 1);
        json_decref(s);

        /* a new result: a step for the all-time table and for the season */
        struct counts c0 = counts();
        side_result(players[3], players[2], "now()");
        wait_counts(c0.steps + 2, c0.recomputes);
        json_t *season_board = board("openskill", season), *all = board("openskill", "");
        json_t *p3_season = NULL, *p3_all = NULL;
        json_array_foreach(season_board, i, x)
                if (jint(x, "player") == players[3])
                        p3_season = x;
        json_array_foreach(all, i, x)
                if (jint(x, "player") == players[3])
                        p3_all = x;
        assert_non_null(p3_season);
        assert_non_null(p3_all);
        assert_int_equal(jint(p3_season, "games"), N_PLAYERS);
        assert_int_equal(jint(p3_all, "games"), N_PLAYERS);
        json_decref(season_board);
        json_decref(all);
        /* kept a step at a time: recomputed from scratch, it is what it was */
        season_board = board("glicko2", season);
        recompute_now(tid);
        json_t *again = board("glicko2", season);
        assert_same_board(season_board, again, "a season kept a step at a time, then recomputed");
        json_decref(season_board);
        json_decref(again);
}

static void reads_keep_answering_with_the_last_table_while_a_recompute_runs(void **state) {
        char q[2048];
        (void) state;

        /* BULK_RESULTS duels of a finished tournament of the game, two days ago */
        snprintf(q, sizeof q,
                 "WITH p AS (INSERT INTO players (name) SELECT 'bulk ' || g FROM generate_series(1, %d) g RETURNING id), "
                 "     ids AS (SELECT array_agg(id ORDER BY id) a FROM p), "
                 "     t AS (INSERT INTO tournaments (name, game, seed, state, created_by, competitive, secrets) "
                 "           VALUES ('bulk', 'crash-pilot', 1, 'finished', 'test', false, ARRAY['\\x00'::bytea]) RETURNING id), "
                 "     s AS (INSERT INTO stages (tournament_id, number, format, config, state) "
                 "           SELECT id, 1, 'swiss', '{}', 'finished' FROM t RETURNING id) "
                 "INSERT INTO stage_matches (stage_id, round, table_no, participants, state, result, recorded_at, recorded_by) "
                 "SELECT s.id, g / 1000 + 1, g %% 1000 + 1, ARRAY[a[1 + g %% %d], a[1 + (g * 7 + 1) %% %d]], 'done', "
                 "  jsonb_build_array(jsonb_build_object('player', a[1 + g %% %d], 'rank', 1 + g %% 2), "
                 "                    jsonb_build_object('player', a[1 + (g * 7 + 1) %% %d], 'rank', 2 - g %% 2)), "
                 "  now() - interval '2 days' + g * interval '1 millisecond', 'test' "
                 "FROM s, ids, generate_series(0, %d) g WHERE g %% %d <> (g * 7 + 1) %% %d",
                 BULK_PLAYERS, BULK_PLAYERS, BULK_PLAYERS, BULK_PLAYERS, BULK_PLAYERS, BULK_RESULTS - 1, BULK_PLAYERS,
                 BULK_PLAYERS);
        PQclear(sql(q));
        PGresult *res = sql("SELECT t.id FROM tournaments t WHERE t.name = 'bulk'");
        json_int_t bulk = atoll(PQgetvalue(res, 0, 0));
        PQclear(res);
        /* inserted, not recorded: the worker has not heard of them (the
         * game is recomputed through the round robin, whose standings are
         * quick to refresh) */
        recompute_now(tid);
        json_t *before = board("openskill", "");

        /* an early result corrected in the database: a recompute from it */
        struct counts c0 = counts();
        snprintf(q, sizeof q, "UPDATE stage_matches SET result = (SELECT jsonb_agg(jsonb_set(e, '{rank}', "
                 "to_jsonb(3 - (e ->> 'rank')::int))) FROM jsonb_array_elements(result) e) "
                 "WHERE id = (SELECT min(m.id) FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                 "WHERE s.tournament_id = %lld)", (long long) bulk);
        PQclear(sql(q));
        /* every read answers, with a whole table: the one before the
         * recompute or the one after it, never a mix; and some were
         * answered with the one before while the worker was at it */
        json_t *seen = json_array();
        unsigned old_while_busy = 0;
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *s = get("/v1/status", 200), *r = json_object_get(s, "ratings");
                bool busy = json_is_true(json_object_get(r, "busy"));
                json_int_t recomputes = jint(r, "recomputes");
                json_decref(s);
                json_t *b = board("openskill", "");
                char why[256];
                if (busy && same_board(before, b, why, sizeof why))
                        old_while_busy++;
                json_array_append_new(seen, b);
                if (!busy && recomputes > c0.recomputes)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the recompute never ended");
        }
        json_t *after = board("openskill", ""), *b;
        char why[256], why2[256];
        size_t i;
        assert_false(same_board(before, after, why, sizeof why));
        json_array_foreach(seen, i, b)
                if (!same_board(before, b, why, sizeof why) && !same_board(after, b, why2, sizeof why2))
                        fail_msg("read %zu was neither the table before the recompute (%s) nor the one after (%s)", i,
                                 why, why2);
        print_message("%zu reads while the recompute ran, %u of them the table before it while the worker was "
                      "busy\n", json_array_size(seen), old_while_busy);
        assert_true(old_while_busy > 0);
        json_decref(seen);
        json_decref(before);
        json_decref(after);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(results_are_rated_a_step_at_a_time_and_equal_a_recompute),
                cmocka_unit_test(a_correction_of_an_early_result_recomputes_from_it),
                cmocka_unit_test(a_change_made_while_no_daemon_runs_is_recomputed_at_the_start),
                cmocka_unit_test(a_result_that_comes_in_behind_the_tables_place_is_taken),
                cmocka_unit_test(a_season_is_computed_when_first_asked_for_then_kept),
                cmocka_unit_test(reads_keep_answering_with_the_last_table_while_a_recompute_runs),
        };

        return cmocka_run_group_tests_name("ratings", tests, setup, teardown);
}
