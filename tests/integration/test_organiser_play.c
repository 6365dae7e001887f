/* The tournament service's play (organiser/rounds.h, organiser/results.h,
 * organiser/standings.h) driven as plain C, without HTTP: a loop, the
 * daemon's store on a database of the test's own, and the service's calls,
 * with what they hold beyond one statement:
 *   - rounds: the first stage starts with the checked-in active players in
 *     seeding order (the organiser's seed, then rating, then registration),
 *     each match at its venue table in turn; a round is paired only once
 *     the last one is played (the refusal lists what is left); a stage with
 *     nothing left is finished and the next one started from its top;
 *   - a match called to its table: its seed is the call's (the current
 *     secret and the call's identity), the call goes on record once, and
 *     the live match's placements come back into the stage by the
 *     database's trigger, in the transaction that finished the match, told
 *     by NOTIFY;
 *   - results: refused for a match that has one, that a live match plays,
 *     or that does not fit the match; entered once;
 *   - corrections: unplayed dependents deleted with the later byes, played
 *     ones listed until a reset that only an admin may make — in a heats
 *     stage as in a Swiss one, heats being round-based;
 *   - the standings' cache: written for every started stage, equal to a
 *     recomputation;
 *   - adding a stage: refused in a finished tournament, and with a seed of
 *     the organiser's in a competitive one.
 * Tournaments, players and registrations are made with plain SQL here:
 * making them is organiser/tournaments.h's, tested in test_organiser.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "common/log.h"
#include "common/loop.h"
#include "organiser/draws.h"
#include "organiser/results.h"
#include "organiser/rounds.h"
#include "organiser/standings.h"
#include "store/stage_matches.h"
#include "store/store.h"
#include "tests/integration/harness.h"
#include "tests/integration/own_store.h"

static int setup(void **state) {
        (void) state;
        own_store_open("play");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        own_store_close();
        return 0;
}

/* ---- what a call reported, copied ---------------------------------------------- */

#define MAX_ROWS 16

struct match_copy {
        int64_t id, table, match;
        int round, table_no, stage;
        enum store_match_state state;
        size_t n;
        int64_t players[8];
        char result[512];
};

struct got {
        struct own_wait w;
        enum org_outcome outcome;
        char detail[ORG_DETAIL_MAX];
        /* matches made or changed */
        size_t n;
        struct match_copy m[MAX_ROWS];
        size_t n_byes;
        int64_t byes[MAX_ROWS];
        int stage, round;
        /* refusals' and corrections' lists */
        size_t n_list;
        int64_t list[MAX_ROWS];
        enum tour_correction_verdict verdict;
        int64_t correction;
        /* a call */
        uint64_t seed;
        int attempt, epoch;
        size_t n_players;
        char players[8][64];
        /* standings */
        json_t *doc;
};

static void got_result(struct got *g, const struct org_result *r) {
        g->w.done = true;
        g->outcome = r->outcome;
        if (r->detail)
                snprintf(g->detail, sizeof g->detail, "%s", r->detail);
        else if (r->error)
                snprintf(g->detail, sizeof g->detail, "%s", r->error);
}

static void copy_match(struct match_copy *c, const struct store_stage_match_row *m) {
        *c = (struct match_copy) { .id = m->id, .table = m->table, .match = m->match, .round = m->round,
                                   .table_no = m->table_no, .stage = m->stage, .state = m->state,
                                   .n = m->n_participants };
        for (size_t i = 0; i < m->n_participants && i < 8; i++) {
                assert_int_equal(m->participants[i].seat, (int) i + 1);
                c->players[i] = m->participants[i].player;
        }
        if (m->result)
                snprintf(c->result, sizeof c->result, "%s", m->result);
}

static void on_round(void *userdata, const struct org_result *r, const struct org_round *round) {
        struct got *g = userdata;

        got_result(g, r);
        g->stage = round->stage;
        g->round = round->round;
        for (size_t i = 0; i < round->n_matches && g->n < MAX_ROWS; i++)
                copy_match(&g->m[g->n++], &round->matches[i]);
        for (size_t i = 0; i < round->n_byes && g->n_byes < MAX_ROWS; i++)
                g->byes[g->n_byes++] = round->byes[i].player;
        for (size_t i = 0; i < round->n_unfinished && g->n_list < MAX_ROWS; i++)
                g->list[g->n_list++] = round->unfinished[i];
}

static void on_match(void *userdata, const struct org_result *r, const struct store_stage_match_row *m) {
        struct got *g = userdata;

        got_result(g, r);
        if (m)
                copy_match(&g->m[g->n++], m);
}

static void on_call(void *userdata, const struct org_result *r, const struct org_call *call) {
        struct got *g = userdata;

        got_result(g, r);
        if (!call)
                return;
        g->seed = call->seed;
        g->attempt = call->attempt;
        g->epoch = call->epoch;
        g->n_players = call->n_players;
        for (size_t i = 0; i < call->n_players; i++)
                snprintf(g->players[i], sizeof g->players[i], "%s", call->players[i]);
}

static void on_corrected(void *userdata, const struct org_result *r, const struct org_corrected *k) {
        struct got *g = userdata;

        got_result(g, r);
        g->verdict = k->verdict;
        g->correction = k->correction;
        if (k->match)
                copy_match(&g->m[g->n++], k->match);
        for (size_t i = 0; i < k->n_blocking && g->n_list < MAX_ROWS; i++)
                g->list[g->n_list++] = k->blocking[i];
        for (size_t i = 0; i < k->n_deleted && g->n_byes < MAX_ROWS; i++)
                g->byes[g->n_byes++] = k->deleted[i];  /* the deleted ones, in byes[] */
}

static void on_standings(void *userdata, const struct org_result *r, json_t *doc) {
        struct got *g = userdata;

        got_result(g, r);
        g->doc = doc ? json_incref(doc) : NULL;
}

static void on_added(void *userdata, const struct org_result *r, const struct store_stage_row *stage) {
        struct got *g = userdata;

        got_result(g, r);
        g->stage = stage ? stage->number : 0;
}

static void on_bracket(void *userdata, const struct org_result *r, const struct org_stage *stage,
                       const struct tour_stage_bracket_view *v) {
        struct got *g = userdata;

        got_result(g, r);
        g->n = stage && v ? (size_t) v->bracket->n_matches : 0;
}

/* ---- driving ------------------------------------------------------------------- */

static void next_round(int64_t t, struct got *g) {
        memset(g, 0, sizeof *g);
        assert_int_equal(org_round_next(own_store, t, on_round, g), 0);
        own_wait_for(&g->w, "the next round");
}

static void enter(int64_t t, const struct match_copy *m, int winner_seat, struct got *g) {
        struct org_result_entry e[8];

        for (size_t i = 0; i < m->n; i++)
                e[i] = (struct org_result_entry) { .player = m->players[i],
                                                   .rank = (int) i == winner_seat ? 1 : (int) i < winner_seat
                                                                                        ? (int) i + 2 : (int) i + 1 };
        memset(g, 0, sizeof *g);
        assert_int_equal(org_result_enter(own_store, t, m->id, e, m->n, "referee", on_match, g), 0);
        own_wait_for(&g->w, "a result entered");
}

static void correct(int64_t t, const struct match_copy *m, int winner_seat, bool reset, bool admin, struct got *g) {
        struct org_result_entry e[8];

        for (size_t i = 0; i < m->n; i++)
                e[i] = (struct org_result_entry) { .player = m->players[i],
                                                   .rank = (int) i == winner_seat ? 1 : (int) i < winner_seat
                                                                                        ? (int) i + 2 : (int) i + 1 };
        struct org_correction k = { .tournament = t, .stage_match = m->id, .entries = e, .n_entries = m->n,
                                    .reason = "sheet misread", .reset = reset, .may_delete_played = admin,
                                    .who = admin ? "admin" : "referee" };
        memset(g, 0, sizeof *g);
        assert_int_equal(org_result_correct(own_store, &k, on_corrected, g), 0);
        own_wait_for(&g->w, "a correction");
}

/* A running tournament of n players of its own, all checked in, player
 * ids into players[]; stages as given (format, config), pending. */
static int64_t tournament(int n, int64_t *players, const char *stages_sql) {
        int64_t t = own_sql_int64("INSERT INTO tournaments (name, game, seed, state, created_by, competitive, secrets, "
                              "tables) VALUES ('%s', 'crash-pilot', 11, 'running', 'test', false, "
                              "ARRAY[sha256('play')], '{}') RETURNING id", unique_name("t"));

        for (int i = 0; i < n; i++) {
                players[i] = own_sql_int64("INSERT INTO players (name) VALUES ('%s') RETURNING id", unique_name("p"));
                own_sql("INSERT INTO registrations (tournament_id, player_id, checked_in, changed_by) "
                    "VALUES (%" PRId64 ", %" PRId64 ", true, 'test')", t, players[i]);
        }
        own_sql("INSERT INTO stages (tournament_id, number, format, config) SELECT %" PRId64 ", n, f, c::jsonb "
            "FROM (VALUES %s) AS x(n, f, c)", t, stages_sql);
        return t;
}

/* ---- the tests ----------------------------------------------------------------- */

static void a_swiss_is_paired_played_called_handed_over_and_corrected(void **state) {
        int64_t p[5], venue[2];
        struct got g, h;
        (void) state;

        int64_t t = tournament(5, p, "(1, 'swiss', '{\"rounds\": 2}')");
        for (int i = 0; i < 2; i++)
                venue[i] = own_sql_int64("INSERT INTO tables (venue, name, created_by) VALUES ('main', '%s', 'test') RETURNING id",
                                     unique_name("venue"));
        own_sql("UPDATE tournaments SET tables = ARRAY[%" PRId64 ", %" PRId64 "] WHERE id = %" PRId64, venue[0],
            venue[1], t);
        /* the organiser's seed comes first; then registration order (nobody is rated) */
        own_sql("UPDATE registrations SET seed = 1 WHERE player_id = %" PRId64, p[4]);
        /* a player registered but not checked in does not enter */
        int64_t absent = own_sql_int64("INSERT INTO players (name) VALUES ('absent') RETURNING id");
        own_sql("INSERT INTO registrations (tournament_id, player_id, changed_by) VALUES (%" PRId64 ", %" PRId64
            ", 'test')", t, absent);

        /* no such tournament */
        next_round(987654321, &g);
        assert_int_equal(g.outcome, ORG_NOT_FOUND);

        /* round 1: 5 players, two tables and a bye; stage 1 started */
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.stage, 1);
        assert_int_equal(g.round, 1);
        assert_int_equal(g.n, 2);
        assert_int_equal(g.n_byes, 1);
        char *entrants = own_sql_text("SELECT entrants::text FROM stages WHERE tournament_id = %" PRId64, t);
        char want[256];
        snprintf(want, sizeof want, "{%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "}", p[4], p[0], p[1],
                 p[2], p[3]);
        assert_string_equal(entrants, want);
        free(entrants);
        /* at the venue's tables in turn */
        assert_int_equal(g.m[0].table, venue[0]);
        assert_int_equal(g.m[1].table, venue[1]);
        struct match_copy r1[2] = { g.m[0], g.m[1] };

        /* not again before round 1 is played: what is left is listed */
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_int_equal(g.n_list, 2);
        assert_non_null(strstr(g.detail, "round 1 is not finished"));

        /* a result that does not fit the match */
        struct org_result_entry bad[2] = { { .player = absent, .rank = 1 }, { .player = r1[0].players[1], .rank = 2 } };
        memset(&g, 0, sizeof g);
        assert_int_equal(org_result_enter(own_store, t, r1[0].id, bad, 2, "referee", on_match, &g), 0);
        own_wait_for(&g.w, "a bad result");
        assert_int_equal(g.outcome, ORG_INVALID);
        assert_string_equal(g.detail, "results[0].player: is not in this match");
        enter(t, &r1[0], 0, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.m[0].state, STORE_MATCH_DONE);
        enter(t, &r1[0], 1, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "has its result"));

        /* the other match is called: its seed is the call's */
        memset(&g, 0, sizeof g);
        assert_int_equal(org_call_prepare(own_store, t, r1[1].id, on_call, &g), 0);
        own_wait_for(&g.w, "a call prepared");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.attempt, 1);
        assert_int_equal(g.epoch, 1);
        assert_int_equal(g.n_players, 2);
        char *secret = own_sql_text("SELECT encode(secrets[1], 'hex') FROM tournaments WHERE id = %" PRId64, t);
        uint64_t seed;
        assert_int_equal(org_call_seed(secret, t, r1[1].id, 1, &seed), 0);
        assert_true(seed == g.seed);
        free(secret);
        int64_t live = own_sql_int64("INSERT INTO matches (venue, game, seed, config, seats, created_by) "
                                 "VALUES ('main', 'crash-pilot', 1, '{}', '[]', 'test') RETURNING id");
        struct org_call_made made = { .tournament = t, .stage_match = r1[1].id, .runtime_match = live,
                                      .attempt = g.attempt, .epoch = g.epoch };
        memset(&g, 0, sizeof g);
        assert_int_equal(org_call_record(own_store, &made, on_match, &g), 0);
        own_wait_for(&g.w, "a call recorded");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.m[0].state, STORE_MATCH_CALLED);
        assert_int_equal(g.m[0].match, live);
        assert_int_equal(g.m[0].table, venue[1]);       /* its own table */
        memset(&h, 0, sizeof h);
        assert_int_equal(org_call_record(own_store, &made, on_match, &h), 0);
        own_wait_for(&h.w, "a call recorded twice");
        assert_int_equal(h.outcome, ORG_CONFLICT);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM match_calls WHERE stage_match_id = %" PRId64, r1[1].id), 1);
        /* called: its result comes from the live match */
        enter(t, &r1[1], 0, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "is being played as live match"));

        /* the live match finishes: its placements are the stage match's, in
         * the same transaction (the trigger), and a NOTIFY tells of it */
        own_sql("UPDATE matches SET state = 'finished', result = '{\"placements\": [{\"seat\": 1, \"place\": 2}, "
            "{\"seat\": 2, \"place\": 1, \"score\": {\"total\": 3}}]}' WHERE id = %" PRId64, live);
        char payload[48];
        /* the payload names the match's venue: another's is not ours to publish */
        snprintf(payload, sizeof payload, "%" PRId64 " south", r1[1].id);
        assert_int_equal(org_result_handed_over(own_store, payload, "main", on_match, &g), 1);
        snprintf(payload, sizeof payload, "%" PRId64 " main", r1[1].id);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_result_handed_over(own_store, payload, "main", on_match, &g), 0);
        own_wait_for(&g.w, "the hand-off");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.m[0].state, STORE_MATCH_DONE);
        json_t *res = json_loads(g.m[0].result, 0, NULL);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(res, 1), "rank")), 1);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(res, 1), "score")), 3);
        json_decref(res);
        assert_int_equal(org_result_handed_over(own_store, "x", "main", on_match, &g), -EINVAL);

        /* round 2, then a round-1 result corrected: round 2 is deleted with
         * its bye, and paired again */
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.round, 2);
        struct match_copy r2[2] = { g.m[0], g.m[1] };
        correct(t, &r1[0], 1, false, false, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_byes, 2);                  /* the deleted */
        assert_true(g.correction > 0);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM stage_matches WHERE id IN (%" PRId64 ", %" PRId64 ")",
                                   r2[0].id, r2[1].id), 0);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM stage_byes b JOIN stages s ON s.id = b.stage_id "
                                   "WHERE s.tournament_id = %" PRId64 " AND b.round = 2", t), 0);
        assert_int_equal(own_sql_int64("SELECT cardinality(reset) FROM corrections WHERE id = %" PRId64, g.correction), 2);
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.round, 2);
        r2[0] = g.m[0];
        r2[1] = g.m[1];

        /* round 2 played: a round-1 correction needs a reset, which needs an admin */
        enter(t, &r2[0], 0, &g);
        enter(t, &r2[1], 0, &g);
        correct(t, &r1[0], 0, false, true, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_int_equal(g.verdict, TOUR_CORRECTION_NEEDS_RESET);
        assert_int_equal(g.n_list, 2);
        correct(t, &r1[0], 0, true, false, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_int_equal(g.verdict, TOUR_CORRECTION_NOT_ALLOWED);
        /* a round-2 correction invalidates nothing */
        correct(t, &r2[0], 1, false, false, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_byes, 0);

        /* both rounds played: the stage is finished, and nothing is left */
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "every stage of this tournament is finished"));
        char *st = own_sql_text("SELECT state FROM stages WHERE tournament_id = %" PRId64, t);
        assert_string_equal(st, "finished");
        free(st);
        /* a reset reopens it */
        correct(t, &r1[0], 0, true, true, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        st = own_sql_text("SELECT state FROM stages WHERE tournament_id = %" PRId64, t);
        assert_string_equal(st, "running");
        free(st);
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.round, 2);
}

/* Heats are round-based (tour_format_round_based): a round's advancers
 * are the next round's field, so a changed result of round 1 invalidates
 * the final — the case where two copies of the rule once disagreed. */
static void a_heats_correction_takes_the_final_it_seated(void **state) {
        int64_t p[8];
        struct got g;
        (void) state;

        int64_t t = tournament(8, p, "(1, 'heats', '{\"table_size\": 4, \"advance\": 2}')");
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n, 2);
        struct match_copy heat[2] = { g.m[0], g.m[1] };
        enter(t, &heat[0], 0, &g);
        enter(t, &heat[1], 0, &g);
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n, 1);
        struct match_copy final = g.m[0];

        /* heat 1's last seat takes first place: the final, unplayed, goes */
        correct(t, &heat[0], 3, false, false, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_byes, 1);
        assert_int_equal(g.byes[0], final.id);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM stage_matches WHERE id = %" PRId64, final.id), 0);
        /* and is seated again, with the new advancer */
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n, 1);
        bool seated = false;
        for (size_t i = 0; i < g.m[0].n; i++)
                seated |= g.m[0].players[i] == heat[0].players[3];
        assert_true(seated);
        final = g.m[0];
        /* played, the final blocks a heat's correction */
        enter(t, &final, 0, &g);
        correct(t, &heat[1], 2, false, true, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_int_equal(g.verdict, TOUR_CORRECTION_NEEDS_RESET);
        assert_int_equal(g.n_list, 1);
        assert_int_equal(g.list[0], final.id);
}

/* What a refresh said it rewrote. */
struct changed {
        struct own_wait w;
        int64_t tournament;
        int stages[4];
        int n;
};

static void on_changed(void *userdata, int64_t tournament, int stage) {
        struct changed *c = userdata;

        assert_int_equal(tournament, c->tournament);
        assert_true(c->n < 4);
        c->stages[c->n++] = stage;
        c->w.done = c->n == 2;
}

static void the_standings_cache_is_written_and_equals_a_recompute(void **state) {
        int64_t p[4];
        struct got g, h;
        (void) state;

        int64_t t = tournament(4, p, "(1, 'round_robin', '{}'), (2, 'single_elimination', '{}')");
        /* a stage that has not started has nobody in its standings */
        memset(&g, 0, sizeof g);
        assert_int_equal(org_standings_get(own_store, t, 1, true, on_standings, &g), 0);
        own_wait_for(&g.w, "the standings of a stage not started");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(json_array_size(json_object_get(g.doc, "rows")), 0);
        json_decref(g.doc);
        /* a round robin of 4: three rounds, then the stage finishes and the
         * bracket starts from its top 2 (everyone still in: the 4) */
        for (int round = 1; round <= 3; round++) {
                next_round(t, &g);
                assert_int_equal(g.outcome, ORG_DONE);
                struct match_copy m[2] = { g.m[0], g.m[1] };
                enter(t, &m[0], 0, &h);
                enter(t, &m[1], 1, &h);
        }
        /* the bracket is not stage 1's: a round robin has none */
        memset(&g, 0, sizeof g);
        assert_int_equal(org_bracket_get(own_store, t, 1, on_bracket, &g), 0);
        own_wait_for(&g.w, "a round robin's bracket");
        assert_int_equal(g.outcome, ORG_CONFLICT);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_bracket_get(own_store, t, 2, on_bracket, &g), 0);
        own_wait_for(&g.w, "a bracket not started");
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "has not started"));
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.stage, 2);
        assert_int_equal(g.n, 2);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_bracket_get(own_store, t, 0, on_bracket, &g), 0);
        own_wait_for(&g.w, "the current stage's bracket");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n, 3);                       /* two semi-finals and the final */

        /* the refresh writes both started stages' caches */
        struct changed ch = { .tournament = t };
        assert_int_equal(org_standings_refresh(own_store, NULL, t, on_changed, &ch), 0);
        own_wait_for(&ch.w, "the refresh");
        assert_int_equal(ch.stages[0], 1);
        assert_int_equal(ch.stages[1], 2);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_standings_get(own_store, t, 1, false, on_standings, &g), 0);
        own_wait_for(&g.w, "the cached standings");
        memset(&h, 0, sizeof h);
        assert_int_equal(org_standings_get(own_store, t, 1, true, on_standings, &h), 0);
        own_wait_for(&h.w, "the recomputed standings");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(json_array_size(json_object_get(g.doc, "rows")), 4);
        assert_true(json_equal(g.doc, h.doc));
        json_decref(g.doc);
        json_decref(h.doc);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_standings_get(own_store, t, 3, false, on_standings, &g), 0);
        own_wait_for(&g.w, "a stage that is not there");
        assert_int_equal(g.outcome, ORG_NOT_FOUND);
}

static void a_stage_is_added_as_the_rules_allow(void **state) {
        int64_t p[2];
        struct got g;
        (void) state;

        int64_t t = tournament(2, p, "(1, 'swiss', '{}')");
        struct org_stage_new with_seed = { .format = "swiss", .config = "{\"seed\": 5}", .config_has_seed = true };
        struct org_stage_new plain = { .format = "single_elimination", .config = "{}", .advance = 2,
                                       .confirm = "\"referee\"" };

        memset(&g, 0, sizeof g);
        assert_int_equal(org_stage_add(own_store, t, &plain, on_added, &g), 0);
        own_wait_for(&g.w, "a stage added");
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.stage, 2);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_stage_add(own_store, 987654321, &plain, on_added, &g), 0);
        own_wait_for(&g.w, "a stage of nobody");
        assert_int_equal(g.outcome, ORG_NOT_FOUND);
        /* a competitive tournament's draws are its secret's */
        own_sql("UPDATE tournaments SET competitive = true WHERE id = %" PRId64, t);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_stage_add(own_store, t, &with_seed, on_added, &g), 0);
        own_wait_for(&g.w, "a chosen seed");
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "config.seed"));
        own_sql("UPDATE tournaments SET state = 'finished' WHERE id = %" PRId64, t);
        memset(&g, 0, sizeof g);
        assert_int_equal(org_stage_add(own_store, t, &plain, on_added, &g), 0);
        own_wait_for(&g.w, "a stage of a finished tournament");
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "is finished"));
        /* and no round is paired in it */
        next_round(t, &g);
        assert_int_equal(g.outcome, ORG_CONFLICT);
        assert_non_null(strstr(g.detail, "the tournament is finished"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_swiss_is_paired_played_called_handed_over_and_corrected),
                cmocka_unit_test(a_heats_correction_takes_the_final_it_seated),
                cmocka_unit_test(the_standings_cache_is_written_and_equals_a_recompute),
                cmocka_unit_test(a_stage_is_added_as_the_rules_allow),
        };
        return cmocka_run_group_tests_name("organiser_play", tests, setup, teardown);
}
