/* api/rounds.c — playing a tournament: pairing the next round, calling a
 * match to a table, recording and correcting results.
 *
 * POST /v1/tournaments/{id}/rounds reads the first stage that is not
 * finished, starts it when it is pending (its entrants: stage 1 the
 * checked-in players by seed, then rating; a later stage the `advance`
 * the stage before sends on, seeded for this stage's format by
 * tour_stage_advance: a bracket's first round without rematches, a
 * bracket after groups with winners against other groups' runners-up), and asks
 * tournament/stage.h for the next matches; a stage with nothing left is
 * marked finished and the next one is tried.  What is made is stored in one
 * statement (unique (stage, round, table): two organisers pressing at once
 * get one round and a 409).
 *
 * A correction (POST .../matches/{mid}/corrections) of a result that later
 * matches were paired from: 409 listing those already played (or called)
 * unless the request says reset: true (admin only); then they and every
 * other match made from the old result are deleted and paired again by the
 * next POST .../rounds.  Unplayed dependents are deleted silently.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/problem.h"
#include "api/stage_data.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "store/store.h"

#define STAGE_MATCH_JSON(m) \
        "jsonb_build_object('id', " m ".id, 'stage', s.number, 'round', " m ".round, 'table_no', " m ".table_no, " \
        "'bracket_id', " m ".bracket_id, 'state', " m ".state, 'table', " m ".table_id, 'match', " m ".match_id, " \
        "'participants', (SELECT jsonb_agg(jsonb_build_object('seat', x.ord, 'player', x.pid, 'name', p.name) " \
        "                 ORDER BY x.ord) FROM unnest(" m ".participants) WITH ORDINALITY x(pid, ord) " \
        "                 JOIN players p ON p.id = x.pid), " \
        "'result', " m ".result, 'recorded_at', " TOUR_TIME(m ".recorded_at") ", 'recorded_by', " m ".recorded_by)"

/* Rounds a request may walk through finished stages before giving up. */
#define MAX_STAGE_HOPS 64
/* Dependents listed in a 409. */
#define MAX_LISTED 64

struct round_ctx {
        struct api_request *req;
        int64_t id;                     /* tournament */
        int64_t match;                  /* stage match, for call/result/correction */
        struct stage_data d;
        json_t *body;                   /* for result and correction: the parsed request */
        int hops;
        /* Starting a later stage: its id, how many go on, its format (which
         * decides how the previous stage seeds it: tour_stage_advance). */
        int64_t starting;
        int advance;
        enum tour_format next_format;
};

static void ctx_free(struct round_ctx *c) {
        if (!c)
                return;
        stage_data_free(&c->d);
        free(c);
}

static struct round_ctx *ctx_new(struct api_request *req, int64_t id, int64_t match) {
        struct round_ctx *c = calloc(1, sizeof *c);

        if (!c)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        else
                *c = (struct round_ctx) { .req = req, .id = id, .match = match };
        return c;
}

/* Queries or replies the store error and frees c. */
static void query(struct round_ctx *c, const char *sql, int n, const char *const *p, store_result_fn fn) {
        int r = store_query(c->req->deps->store, sql, n, p, fn, c);
        if (r < 0) {
                reply_store_error(c->req, r);
                ctx_free(c);
        }
}

/* Loads the snapshot of stage number (0: as stage_data_sql's rules) into
 * c->d, then calls next. */
static void load_stage(struct round_ctx *c, int number, store_result_fn next) {
        char id_s[24], num_s[24], match_s[24];

        snprintf(id_s, sizeof id_s, "%" PRId64, c->id);
        snprintf(num_s, sizeof num_s, "%d", number);
        snprintf(match_s, sizeof match_s, "%" PRId64, c->match);
        const char *p[] = { id_s, number ? num_s : NULL, c->match ? match_s : NULL };
        query(c, stage_data_sql, 3, p, next);
}

/* Parses the snapshot a store callback got into c->d; replies and frees c
 * (returning false) when there is none or it does not parse. */
static bool take_snapshot(struct round_ctx *c, const PGresult *res, const char *error, const char *none) {
        char err[256];
        json_t *j;

        stage_data_free(&c->d);
        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the stage failed: %s", error);
                ctx_free(c);
                return false;
        }
        if (PQntuples(res) == 0) {
                api_reply_problem(c->req, c->match ? MHD_HTTP_NOT_FOUND : MHD_HTTP_CONFLICT, "%s", none);
                ctx_free(c);
                return false;
        }
        j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        int r = j ? stage_data_parse(j, &c->d, err, sizeof err) : -EINVAL;
        json_decref(j);
        if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stored stage is inconsistent: %s",
                                  j ? err : "not JSON");
                ctx_free(c);
                return false;
        }
        return true;
}

/* ---- POST /v1/tournaments/{id}/rounds -------------------------------------- */

static void on_current(void *userdata, const PGresult *res, const char *error);

static void on_round_stored(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;
        json_t *out;

        if (!res) {
                if (error && strstr(error, "stage_matches_stage_id_round_table_no_key"))
                        api_reply_problem(c->req, MHD_HTTP_CONFLICT,
                                          "this round was paired by another request meanwhile; GET "
                                          "/v1/tournaments/%" PRId64 "/matches", c->id);
                else
                        api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "storing the round failed: %s",
                                          error);
                ctx_free(c);
                return;
        }
        out = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        if (!out) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stored round is not JSON");
                ctx_free(c);
                return;
        }
        bool bracket = c->d.cfg.format == TOUR_FORMAT_SINGLE_ELIM || c->d.cfg.format == TOUR_FORMAT_DOUBLE_ELIM;
        tour_event(c->req->deps, c->id, bracket ? "bracket_advanced" : "round_started",
                   json_pack("{s:i, s:O, s:O}", "stage", c->d.number, "round", json_object_get(out, "round"),
                             "matches", json_object_get(out, "matches")));
        tour_event(c->req->deps, c->id, "tournament_changed",
                   json_pack("{s:s, s:{s:i, s:O}}", "state", c->d.tournament_state, "current", "stage", c->d.number,
                             "round", json_object_get(out, "round")));
        api_reply_json(c->req, MHD_HTTP_CREATED, out);
        ctx_free(c);
}

static void store_round(struct round_ctx *c, const struct tour_stage_next *next) {
        json_t *rows = json_array(), *byes = json_array();
        char stage_s[24], *rows_text, *byes_text;
        bool bracket = c->d.cfg.format == TOUR_FORMAT_SINGLE_ELIM || c->d.cfg.format == TOUR_FORMAT_DOUBLE_ELIM;
        int round = next->round;

        for (int i = 0; i < next->n_pairings; i++) {
                const struct tour_stage_pairing *sp = &next->pairings[i];
                json_t *parts = json_array();

                for (int k = 0; k < sp->pairing.n; k++)
                        json_array_append_new(parts, json_integer(c->d.players[sp->pairing.entrant[k]]));
                /* a bracket's matches are unique by their graph id */
                json_array_append_new(rows, json_pack("{s:i, s:i, s:o, s:o}", "round",
                                                      sp->pairing.round,
                                                      "table_no", bracket ? sp->bracket_id + 1 : sp->pairing.table,
                                                      "bracket_id", bracket ? json_integer(sp->bracket_id) : json_null(),
                                                      "participants", parts));
                if (sp->pairing.round > round)
                        round = sp->pairing.round;
        }
        for (int i = 0; i < next->n_byes; i++)
                json_array_append_new(byes, json_pack("{s:i, s:I}", "round", next->byes[i].round, "player",
                                                      (json_int_t) c->d.players[next->byes[i].entrant]));
        rows_text = json_dumps(rows, JSON_COMPACT);
        byes_text = json_dumps(byes, JSON_COMPACT);
        json_decref(rows);
        json_decref(byes);
        snprintf(stage_s, sizeof stage_s, "%" PRId64, c->d.stage);
        char round_s[24], repeats_s[24];
        snprintf(round_s, sizeof round_s, "%d", round);
        snprintf(repeats_s, sizeof repeats_s, "%d", next->repeats);
        const char *p[] = { stage_s, rows_text, byes_text, round_s, repeats_s };
        if (rows_text && byes_text)
                query(c,
                      "WITH s AS (SELECT * FROM stages WHERE id = $1), "
                      "     t AS (SELECT t.* FROM tournaments t, s WHERE t.id = s.tournament_id), "
                      "     ins AS (INSERT INTO stage_matches (stage_id, round, table_no, bracket_id, participants, "
                      "                                        table_id) "
                      "             SELECT s.id, x.round, x.table_no, x.bracket_id, "
                      "                    array(SELECT jsonb_array_elements_text(x.participants)::bigint), "
                      "                    CASE WHEN cardinality(t.tables) > 0 "
                      "                         THEN t.tables[((x.table_no - 1) % cardinality(t.tables)) + 1] END "
                      "             FROM s, t, jsonb_to_recordset($2::jsonb) "
                      "                  AS x(round int, table_no int, bracket_id int, participants jsonb) "
                      "             RETURNING *), "
                      "     b AS (INSERT INTO stage_byes (stage_id, round, player_id) "
                      "           SELECT s.id, x.round, x.player FROM s, jsonb_to_recordset($3::jsonb) "
                      "                AS x(round int, player bigint) RETURNING *) "
                      "SELECT jsonb_build_object('stage', s.number, 'round', $4::int, 'repeats', $5::int, "
                      "  'matches', (SELECT coalesce(jsonb_agg(" STAGE_MATCH_JSON("m") " ORDER BY m.table_no), "
                      "              '[]'::jsonb) FROM ins m), "
                      "  'byes', (SELECT coalesce(jsonb_agg(jsonb_build_object('player', b.player_id, 'name', p.name)), "
                      "           '[]'::jsonb) FROM b JOIN players p ON p.id = b.player_id)) FROM s",
                      5, p, on_round_stored);
        else {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                ctx_free(c);
        }
        free(rows_text);
        free(byes_text);
}

static void on_stage_marked(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;

        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "updating the stage failed: %s", error);
                ctx_free(c);
                return;
        }
        if (++c->hops > MAX_STAGE_HOPS) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stages did not settle");
                ctx_free(c);
                return;
        }
        load_stage(c, 0, on_current);
}

/* Stage 1 starts with the checked-in active players: by the organiser's
 * seed, then rating, then registration order. */
static void start_first_stage(struct round_ctx *c) {
        char stage_s[24];

        snprintf(stage_s, sizeof stage_s, "%" PRId64, c->d.stage);
        const char *p[] = { stage_s };
        query(c,
              "UPDATE stages s SET state = 'running', entrants = coalesce((SELECT array_agg(r.player_id "
              "    ORDER BY r.seed NULLS LAST, coalesce(rt.mu - 3 * rt.sigma, 0) DESC, r.registered_at, r.player_id) "
              "    FROM registrations r JOIN tournaments t ON t.id = r.tournament_id "
              "    LEFT JOIN ratings rt ON rt.game = t.game AND rt.player_id = r.player_id "
              "    WHERE r.tournament_id = s.tournament_id AND r.checked_in AND r.status = 'active'), '{}') "
              "WHERE s.id = $1 AND s.state = 'pending'",
              1, p, on_stage_marked);
}

static void on_previous(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;
        int64_t stage = c->starting;
        struct tour_stage_error e = { "" };
        int count, r;

        if (!take_snapshot(c, res, error, "the previous stage is gone"))
                return;
        /* everyone still active goes on unless the stage says how many */
        count = 0;
        for (int i = 0; i < c->d.n; i++)
                count += c->d.entrants[i].active;
        int advance = c->advance > 0 && c->advance < count ? c->advance : count;
        int32_t *top = calloc((size_t) advance + 1, sizeof *top);
        if (!top) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                ctx_free(c);
                return;
        }
        r = tour_stage_advance(&c->d.in, advance, c->next_format, top, &e);
        if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the top %d of stage %d cannot go on: %s", advance,
                                  c->d.number, e.text[0] ? e.text : strerror(-r));
                free(top);
                ctx_free(c);
                return;
        }
        json_t *ids = json_array();
        for (int i = 0; i < advance; i++)
                json_array_append_new(ids, json_integer(c->d.players[top[i]]));
        free(top);
        char *ids_text = json_dumps(ids, JSON_COMPACT), stage_s[24];
        json_decref(ids);
        snprintf(stage_s, sizeof stage_s, "%" PRId64, stage);
        const char *p[] = { stage_s, ids_text };
        if (ids_text)
                query(c,
                      "UPDATE stages SET state = 'running', "
                      "  entrants = array(SELECT jsonb_array_elements_text($2::jsonb)::bigint) "
                      "WHERE id = $1 AND state = 'pending'", 2, p, on_stage_marked);
        else {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                ctx_free(c);
        }
        free(ids_text);
}

static void mark_finished(struct round_ctx *c) {
        char stage_s[24];

        snprintf(stage_s, sizeof stage_s, "%" PRId64, c->d.stage);
        const char *p[] = { stage_s };
        query(c, "UPDATE stages SET state = 'finished' WHERE id = $1 AND state = 'running'", 1, p, on_stage_marked);
}

/* The matches of the latest round still to be played, for a 409. */
static void reply_busy(struct round_ctx *c) {
        json_t *open = json_array();
        int round = 0;

        for (size_t i = 0; i < c->d.n_matches; i++)
                if (c->d.matches[i].round > round)
                        round = c->d.matches[i].round;
        for (size_t i = 0; i < c->d.n_matches && json_array_size(open) < MAX_LISTED; i++)
                if (!c->d.matches[i].done)
                        json_array_append_new(open, json_integer(c->d.match_ids[i]));
        json_t *p = problem_new(MHD_HTTP_CONFLICT, "stage %d round %d is not finished: the matches listed are still "
                                "to be played", c->d.number, round);
        problem_set(p, "matches", open);
        api_reply_problem_json(c->req, p);
}

static void on_current(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;
        struct tour_stage_next next;
        struct tour_stage_error e = { "" };
        int r;

        if (!take_snapshot(c, res, error, "every stage of this tournament is finished (or it has none): add a "
                                          "stage (POST .../stages) or finish the tournament"))
                return;
        if (strcmp(c->d.state, "finished") == 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "every stage of this tournament is finished: add a "
                                  "stage (POST .../stages) or finish the tournament");
                ctx_free(c);
                return;
        }
        if (strcmp(c->d.tournament_state, "running") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament is %s; rounds are paired while it is "
                                  "running (POST /v1/tournaments/%" PRId64 "/state)", c->d.tournament_state, c->id);
                ctx_free(c);
                return;
        }
        if (strcmp(c->d.state, "pending") == 0) {
                if (c->d.number == 1) {
                        start_first_stage(c);
                } else {
                        c->starting = c->d.stage;
                        c->advance = c->d.advance;
                        c->next_format = c->d.cfg.format;
                        load_stage(c, c->d.number - 1, on_previous);
                }
                return;
        }
        r = tour_stage_next(&c->d.in, &next, &e);
        if (r == -EBUSY) {
                reply_busy(c);
                ctx_free(c);
        } else if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "stage %d cannot be paired: %s", c->d.number,
                                  e.text[0] ? e.text : strerror(-r));
                ctx_free(c);
        } else if (next.finished) {
                mark_finished(c);
        } else if (next.n_pairings == 0) {
                reply_busy(c);
                ctx_free(c);
        } else {
                store_round(c, &next);
        }
        tour_stage_next_free(&next);
}

static void on_exists(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;

        if (!res || PQntuples(res) == 0) {
                tour_reply_row(c->req, MHD_HTTP_OK, res, error, "tournament");
                ctx_free(c);
                return;
        }
        load_stage(c, 0, on_current);
}

void handle_rounds_create(struct api_request *req) {
        struct round_ctx *c;
        long long id;

        if (!id_param(req, "id", &id) || !(c = ctx_new(req, id, 0)))
                return;
        /* a tournament that does not exist has no stage either: tell them apart */
        const char *p[] = { route_param(&req->match, "id") };
        query(c, "SELECT 1 FROM tournaments WHERE id = $1", 1, p, on_exists);
}

/* ---- lists ------------------------------------------------------------------- */

/* NULL, or a whole number 1..10^6 written plainly. */
static bool positive_or_null(const char *s) {
        char *end;
        long v;

        if (!s)
                return true;
        v = strtol(s, &end, 10);
        return *s >= '1' && *s <= '9' && !*end && v <= 1000000;
}

void handle_tournament_matches(struct api_request *req) {
        const char *stage = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "stage"),
                   *round = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "round"),
                   *state = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "state");
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (!positive_or_null(stage) || !positive_or_null(round)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "stage and round: must be whole numbers from 1");
                return;
        }
        if (state && strcmp(state, "pending") != 0 && strcmp(state, "called") != 0 && strcmp(state, "done") != 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "state: must be pending, called or done");
                return;
        }
        const char *p[] = { route_param(&req->match, "id"), stage, round, state };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM tournaments WHERE id = $1) THEN "
                        "  jsonb_build_object('items', (SELECT coalesce(jsonb_agg(" STAGE_MATCH_JSON("m")
                        "    ORDER BY s.number, m.round, m.table_no), '[]'::jsonb) "
                        "    FROM stage_matches m JOIN stages s ON s.id = m.stage_id WHERE s.tournament_id = $1 "
                        "    AND ($2::int IS NULL OR s.number = $2::int) AND ($3::int IS NULL OR m.round = $3::int) "
                        "    AND ($4::text IS NULL OR m.state = $4))) END",
                        4, p, tour_on_row, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* "Up next" per table: the matches not yet done, in the order they were
 * made, under the table each was given (null: no table assigned). */
void handle_tournament_queue(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM tournaments WHERE id = $1) THEN "
                        "  jsonb_build_object('tables', (SELECT coalesce(jsonb_agg(q ORDER BY (q->>'table')::bigint NULLS LAST), "
                        "  '[]'::jsonb) FROM (SELECT jsonb_build_object('table', m.table_id, 'matches', "
                        "      jsonb_agg(" STAGE_MATCH_JSON("m") " ORDER BY s.number, m.round, m.table_no)) q "
                        "    FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                        "    WHERE s.tournament_id = $1 AND m.state <> 'done' GROUP BY m.table_id) x)) END",
                        1, p, tour_on_row, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- one stage match: call, result, correction --------------------------------- */

/* The snapshot of the stage holding c->match, then the index of the match
 * in it, or -1 after replying 404. */
static int match_index(struct round_ctx *c, const PGresult *res, const char *error) {
        char none[96];
        int i;

        snprintf(none, sizeof none, "tournament %" PRId64 " has no match %" PRId64, c->id, c->match);
        if (!take_snapshot(c, res, error, none))
                return -1;
        i = stage_data_match(&c->d, c->match);
        if (i < 0) {
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "%s", none);
                ctx_free(c);
        }
        return i;
}

static void on_match_row(void *userdata, const PGresult *res, const char *error, const char *event) {
        struct round_ctx *c = userdata;
        json_t *j;

        if (!res || PQntuples(res) == 0) {
                if (res)
                        api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the match changed meanwhile; GET it and retry");
                else
                        api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "updating the match failed: %s",
                                          error);
                ctx_free(c);
                return;
        }
        j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        if (!j) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the match is not JSON");
                ctx_free(c);
                return;
        }
        if (strcmp(event, "match_called") == 0)
                tour_event(c->req->deps, c->id, event,
                           json_pack("{s:O, s:O, s:O, s:O}", "match", json_object_get(j, "id"), "table",
                                     json_object_get(j, "table"), "participants", json_object_get(j, "participants"),
                                     "runtime_match", json_object_get(j, "match")));
        else
                tour_event(c->req->deps, c->id, "result_recorded",
                           json_pack("{s:O, s:O, s:O, s:O, s:b}", "match", json_object_get(j, "id"), "stage",
                                     json_object_get(j, "stage"), "round", json_object_get(j, "round"), "result",
                                     json_object_get(j, "result"), "correction", strcmp(event, "correction") == 0));
        if (strcmp(event, "match_called") != 0)
                tour_refresh(c->req->deps, c->id);
        api_reply_json(c->req, MHD_HTTP_OK, j);
        ctx_free(c);
}

static void on_called(void *userdata, const PGresult *res, const char *error) {
        on_match_row(userdata, res, error, "match_called");
}

static void on_runtime_created(void *userdata, json_t *match) {
        struct round_ctx *c = userdata;
        char id_s[24], match_s[24], table_s[24];

        if (!match) {                   /* the request has its answer */
                ctx_free(c);
                return;
        }
        snprintf(id_s, sizeof id_s, "%" PRId64, c->match);
        snprintf(match_s, sizeof match_s, "%" PRId64, (int64_t) json_integer_value(json_object_get(match, "id")));
        snprintf(table_s, sizeof table_s, "%" PRId64, (int64_t) json_integer_value(json_object_get(match, "table")));
        const char *p[] = { id_s, match_s, json_is_integer(json_object_get(match, "table")) ? table_s : NULL };
        query(c,
              "WITH m AS (UPDATE stage_matches SET match_id = $2::bigint, table_id = coalesce($3::bigint, table_id), "
              "             state = 'called' WHERE id = $1 AND state = 'pending' RETURNING *) "
              "SELECT " STAGE_MATCH_JSON("m") " FROM m JOIN stages s ON s.id = m.stage_id",
              3, p, on_called);
}

/* Whether the runtime is there to call matches into (else a 503). */
static bool req_has_matches(struct api_request *req) {
        if (req->deps->matches)
                return true;
        api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return false;
}

static void on_call_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;
        json_t *table = json_object_get(c->req->body, "table"), *players, *spec;
        int i = match_index(c, res, error);

        if (i < 0)
                return;
        if (strcmp(c->d.tournament_state, "running") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament is %s: matches are called while it "
                                  "is running", c->d.tournament_state);
                ctx_free(c);
                return;
        }
        if (strcmp(c->d.match_states[i], "pending") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %" PRId64 " is %s already", c->match,
                                  c->d.match_states[i]);
                ctx_free(c);
                return;
        }
        if (!req_has_matches(c->req)) {
                ctx_free(c);
                return;
        }
        players = json_array();
        for (int k = 0; k < c->d.matches[i].n; k++)
                json_array_append_new(players, json_string(c->d.names[c->d.matches[i].entrant[k]]));
        /* the match's seed follows from the tournament's: same event, same cards */
        uint64_t seed = (c->d.seed ^ ((uint64_t) c->match * UINT64_C(0x9e3779b97f4a7c15))) & (uint64_t) INT64_MAX;
        spec = json_pack("{s:s, s:o, s:o, s:I, s:O}", "game", c->d.game, "table",
                         json_is_integer(table) ? json_incref(table)
                         : c->d.match_tables[i] ? json_integer(c->d.match_tables[i]) : json_null(),
                         "players", players, "seed", (json_int_t) seed, "config", c->d.match_config);
        if (!spec) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                ctx_free(c);
                return;
        }
        int r = c->req->deps->matches->create_for(c->req->deps->matches_userdata, c->req, spec, on_runtime_created,
                                                  c);
        json_decref(spec);
        if (r < 0)
                ctx_free(c);
}

static bool parse_ids(struct api_request *req, long long *ret_id, long long *ret_match) {
        return id_param(req, "id", ret_id) && id_param(req, "match", ret_match);
}

void handle_tournament_match_call(struct api_request *req) {
        json_t *table = json_object_get(req->body, "table");
        struct round_ctx *c;
        long long id, mid;

        if (!parse_ids(req, &id, &mid))
                return;
        if (req->body && !json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "send {} or {\"table\": 3}");
                return;
        }
        if (table && !json_is_null(table) && (!json_is_integer(table) || json_integer_value(table) < 1)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "table: must be a table id, as in GET /v1/tables");
                return;
        }
        if ((c = ctx_new(req, id, mid)))
                load_stage(c, 0, on_call_snapshot);
}

void handle_tournament_match_get(struct api_request *req) {
        long long id, mid;
        int r;

        if (!parse_ids(req, &id, &mid))
                return;
        const char *p[] = { route_param(&req->match, "id"), route_param(&req->match, "match") };
        r = store_query(req->deps->store,
                        "SELECT " STAGE_MATCH_JSON("m") " FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                        "WHERE s.tournament_id = $1 AND m.id = $2", 2, p, tour_on_row, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_result_stored(void *userdata, const PGresult *res, const char *error) {
        on_match_row(userdata, res, error, "result");
}

static void on_correction_stored(void *userdata, const PGresult *res, const char *error) {
        on_match_row(userdata, res, error, "correction");
}

/* The results member as a stored result of match i; replies 400 and frees
 * c on error. */
static char *result_text(struct round_ctx *c, int i) {
        struct tour_result r;
        char err[256], *text;

        if (stage_data_result_from_json(&c->d, (size_t) i, json_object_get(c->req->body, "results"), &r, err,
                                        sizeof err) < 0) {
                api_reply_problem(c->req, MHD_HTTP_BAD_REQUEST, "%s", err);
                ctx_free(c);
                return NULL;
        }
        json_t *j = stage_data_result_json(&c->d, &r);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                ctx_free(c);
        }
        return text;
}

static void on_result_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;
        char id_s[24], *text;
        int i = match_index(c, res, error);

        if (i < 0)
                return;
        if (c->d.matches[i].done) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %" PRId64 " has its result; change it with "
                                  "POST .../matches/%" PRId64 "/corrections and a reason", c->match, c->match);
                ctx_free(c);
                return;
        }
        if (strcmp(c->d.tournament_state, "running") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament is %s: results are entered while it "
                                  "is running", c->d.tournament_state);
                ctx_free(c);
                return;
        }
        if (c->d.runtime[i]) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %" PRId64 " is being played as live match %"
                                  PRId64 ": its result comes from there (abort that match first to enter one by "
                                  "hand)", c->match, c->d.runtime[i]);
                ctx_free(c);
                return;
        }
        if (!(text = result_text(c, i)))
                return;
        snprintf(id_s, sizeof id_s, "%" PRId64, c->match);
        const char *p[] = { id_s, text, c->req->token_name };
        query(c,
              "WITH m AS (UPDATE stage_matches SET result = $2::jsonb, state = 'done', recorded_at = now(), "
              "             recorded_by = $3 WHERE id = $1 AND state <> 'done' RETURNING *) "
              "SELECT " STAGE_MATCH_JSON("m") " FROM m JOIN stages s ON s.id = m.stage_id",
              3, p, on_result_stored);
        free(text);
}

void handle_tournament_match_result(struct api_request *req) {
        struct round_ctx *c;
        long long id, mid;

        if (!parse_ids(req, &id, &mid))
                return;
        if (!json_is_array(json_object_get(req->body, "results"))) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "send {\"results\": [{\"player\": 4, \"rank\": 1}, "
                                  "{\"player\": 9, \"rank\": 2, \"forfeit\": false, \"score\": 0}]}");
                return;
        }
        if ((c = ctx_new(req, id, mid)))
                load_stage(c, 0, on_result_snapshot);
}

static void on_correction_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct round_ctx *c = userdata;
        struct api_request *req = c->req;
        bool reset = json_is_true(json_object_get(req->body, "reset"));
        struct tour_stage_error e = { "" };
        char id_s[24], stage_s[24], round_s[24], *text, *reset_text;
        int i = match_index(c, res, error), n_done, n_pending;

        if (i < 0)
                return;
        if (!c->d.matches[i].done) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "match %" PRId64 " has no result yet: POST "
                                  ".../matches/%" PRId64 "/result", c->match, c->match);
                ctx_free(c);
                return;
        }
        if (c->d.next_started) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "stage %d has started from the standings of stage %d: "
                                  "its results can no longer change", c->d.number + 1, c->d.number);
                ctx_free(c);
                return;
        }
        size_t *deps = calloc(c->d.n_matches + 1, sizeof *deps);
        if (!deps) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                ctx_free(c);
                return;
        }
        json_t *blocking = json_array(), *all = json_array();
        n_done = tour_stage_dependents(&c->d.in, (size_t) i, false, deps, c->d.n_matches, &e);
        for (int k = 0; k < n_done; k++) {
                json_array_append_new(blocking, json_integer(c->d.match_ids[deps[k]]));
                json_array_append_new(all, json_integer(c->d.match_ids[deps[k]]));
        }
        n_pending = n_done < 0 ? n_done : tour_stage_dependents(&c->d.in, (size_t) i, true, deps, c->d.n_matches, &e);
        for (int k = 0; k < n_pending; k++) {
                /* a called match is being played: as good as played */
                if (strcmp(c->d.match_states[deps[k]], "called") == 0)
                        json_array_append_new(blocking, json_integer(c->d.match_ids[deps[k]]));
                json_array_append_new(all, json_integer(c->d.match_ids[deps[k]]));
        }
        free(deps);
        if (n_done < 0 || n_pending < 0) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stage cannot say what depends on "
                                  "match %" PRId64 ": %s", c->match, e.text);
                goto fail;
        }
        if (json_array_size(blocking) > 0 && !reset) {
                json_t *p = problem_new(MHD_HTTP_CONFLICT, "later matches were paired from this result and have "
                                        "been played or called (listed); send \"reset\": true to delete them and "
                                        "pair them again");
                problem_set(p, "matches", json_incref(blocking));
                api_reply_problem_json(req, p);
                goto fail;
        }
        if (json_array_size(blocking) > 0 && req->role < AUTH_ROLE_ADMIN) {
                api_reply_problem(req, MHD_HTTP_FORBIDDEN, "reset: deleting played matches needs an admin token");
                goto fail;
        }
        if (!(text = result_text(c, i))) {
                json_decref(blocking);
                json_decref(all);
                return;
        }
        reset_text = json_dumps(all, JSON_COMPACT);
        snprintf(id_s, sizeof id_s, "%" PRId64, c->match);
        snprintf(stage_s, sizeof stage_s, "%" PRId64, c->d.stage);
        /* round formats pair every later round from the standings: their
         * byes go with their matches */
        bool rounds = c->d.cfg.format != TOUR_FORMAT_SINGLE_ELIM && c->d.cfg.format != TOUR_FORMAT_DOUBLE_ELIM &&
                      c->d.cfg.format != TOUR_FORMAT_ROUND_ROBIN && c->d.cfg.format != TOUR_FORMAT_GROUPS;
        snprintf(round_s, sizeof round_s, "%d", rounds ? c->d.matches[i].round : 1 << 30);
        const char *p[] = { id_s, text, json_string_value(json_object_get(req->body, "reason")), reset_text,
                            req->token_name, stage_s, round_s };
        query(c,
              "WITH c AS (INSERT INTO corrections (stage_match_id, tournament_id, before, after, reason, reset, who) "
              "           SELECT m.id, (SELECT tournament_id FROM stages WHERE id = $6), m.result, $2::jsonb, $3, "
              "                  array(SELECT jsonb_array_elements_text($4::jsonb)::bigint), $5 "
              "           FROM stage_matches m WHERE m.id = $1 AND m.state = 'done' RETURNING *), "
              "     d AS (DELETE FROM stage_matches WHERE id IN (SELECT jsonb_array_elements_text($4::jsonb)::bigint) "
              "           AND EXISTS (SELECT 1 FROM c) RETURNING id), "
              "     b AS (DELETE FROM stage_byes WHERE stage_id = $6 AND round > $7::int AND EXISTS (SELECT 1 FROM c) "
              "           RETURNING round), "
              "     st AS (UPDATE stages SET state = 'running' WHERE id = $6 AND state = 'finished' "
              "            AND jsonb_array_length($4::jsonb) > 0 AND EXISTS (SELECT 1 FROM c) RETURNING id), "
              "     m AS (UPDATE stage_matches SET result = $2::jsonb "
              "           WHERE id = $1 AND EXISTS (SELECT 1 FROM c) RETURNING *) "
              "SELECT " STAGE_MATCH_JSON("m") " || jsonb_build_object('correction', (SELECT c.id FROM c), "
              "       'reset', $4::jsonb) FROM m JOIN stages s ON s.id = m.stage_id",
              7, p, on_correction_stored);
        free(text);
        free(reset_text);
        json_decref(blocking);
        json_decref(all);
        return;
fail:
        json_decref(blocking);
        json_decref(all);
        ctx_free(c);
}

void handle_tournament_match_correct(struct api_request *req) {
        json_t *reason = json_object_get(req->body, "reason"), *reset = json_object_get(req->body, "reset");
        struct round_ctx *c;
        long long id, mid;

        if (!parse_ids(req, &id, &mid))
                return;
        if (!json_is_array(json_object_get(req->body, "results"))) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "send {\"results\": [...], \"reason\": \"score sheet "
                                  "misread\"} (\"reset\": true to re-pair later matches)");
                return;
        }
        if (!json_is_string(reason) || json_string_length(reason) < 1 || json_string_length(reason) > 500) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "reason: required, 1 to 500 bytes: why the result "
                                  "changes");
                return;
        }
        if (reset && !json_is_boolean(reset)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "reset: must be true or false");
                return;
        }
        if ((c = ctx_new(req, id, mid)))
                load_stage(c, 0, on_correction_snapshot);
}

void handle_tournament_corrections(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM tournaments WHERE id = $1) THEN "
                        "  jsonb_build_object('items', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', c.id, "
                        "    'match', c.stage_match_id, 'before', c.before, 'after', c.after, 'reason', c.reason, "
                        "    'reset', to_jsonb(c.reset), 'who', c.who, 'at', " TOUR_TIME("c.at") ") ORDER BY c.id), "
                        "    '[]'::jsonb) FROM corrections c WHERE c.tournament_id = $1)) END",
                        1, p, tour_on_row, req);
        if (r < 0)
                reply_store_error(req, r);
}
