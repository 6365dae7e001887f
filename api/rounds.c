/* api/rounds.c — pairing a tournament's rounds, and the lists of what was
 * paired (the stages' matches, the queue per table).
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
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/failures.h"
#include "api/handlers.h"
#include "api/problem.h"
#include "api/stage_request.h"

/* Rounds a request may walk through finished stages before giving up. */
#define MAX_STAGE_HOPS 64
/* Unfinished matches listed in a 409. */
#define MAX_LISTED 64

/* ---- POST /v1/tournaments/{id}/rounds -------------------------------------- */

static void on_current(void *userdata, const PGresult *res, const char *error);

static void on_round_stored(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;
        json_t *out;

        if (!res) {
                api_reply_query_failed(c->req, c->req->deps->store, "storing the round", error);
                stage_req_free(c);
                return;
        }
        out = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        if (!out) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stored round is not JSON");
                stage_req_free(c);
                return;
        }
        bool bracket = tour_format_bracket(c->d.cfg.format);
        tour_event(c->req->deps, c->id, bracket ? "bracket_advanced" : "round_started",
                   json_pack("{s:i, s:O, s:O}", "stage", c->d.number, "round", json_object_get(out, "round"),
                             "matches", json_object_get(out, "matches")));
        tour_event(c->req->deps, c->id, "tournament_changed",
                   json_pack("{s:s, s:{s:i, s:O}}", "state", c->d.tournament_state, "current", "stage", c->d.number,
                             "round", json_object_get(out, "round")));
        api_reply_json(c->req, MHD_HTTP_CREATED, out);
        stage_req_free(c);
}

static void store_round(struct stage_req *c, const struct tour_stage_next *next) {
        json_t *rows = json_array(), *byes = json_array();
        char stage_s[24], *rows_text, *byes_text;
        bool bracket = tour_format_bracket(c->d.cfg.format);
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
                stage_req_query(c,
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
                stage_req_free(c);
        }
        free(rows_text);
        free(byes_text);
}

static void on_stage_marked(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;

        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "updating the stage failed: %s", error);
                stage_req_free(c);
                return;
        }
        if (++c->hops > MAX_STAGE_HOPS) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stages did not settle");
                stage_req_free(c);
                return;
        }
        stage_req_load(c, 0, on_current);
}

/* Stage 1 starts with the checked-in active players: by the organiser's
 * seed, then rating, then registration order. */
static void start_first_stage(struct stage_req *c) {
        char stage_s[24];

        snprintf(stage_s, sizeof stage_s, "%" PRId64, c->d.stage);
        const char *p[] = { stage_s };
        stage_req_query(c,
              "UPDATE stages s SET state = 'running', entrants = coalesce((SELECT array_agg(r.player_id "
              "    ORDER BY r.seed NULLS LAST, coalesce(rt.mu - 3 * rt.sigma, 0) DESC, r.registered_at, r.player_id) "
              "    FROM registrations r JOIN tournaments t ON t.id = r.tournament_id "
              "    LEFT JOIN ratings rt ON rt.game = t.game AND rt.player_id = r.player_id "
              "    WHERE r.tournament_id = s.tournament_id AND r.checked_in AND r.status = 'active'), '{}') "
              "WHERE s.id = $1 AND s.state = 'pending'",
              1, p, on_stage_marked);
}

static void on_previous(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;
        int64_t stage = c->starting;
        struct tour_stage_error e = { "" };
        int count, r;

        if (!stage_req_snapshot(c, res, error, "the previous stage is gone"))
                return;
        /* everyone still active goes on unless the stage says how many */
        count = 0;
        for (int i = 0; i < c->d.n; i++)
                count += c->d.entrants[i].active;
        int advance = c->advance > 0 && c->advance < count ? c->advance : count;
        int32_t *top = calloc((size_t) advance + 1, sizeof *top);
        if (!top) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                stage_req_free(c);
                return;
        }
        r = tour_stage_advance(&c->d.in, advance, c->next_format, top, &e);
        if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the top %d of stage %d cannot go on: %s", advance,
                                  c->d.number, e.text[0] ? e.text : strerror(-r));
                free(top);
                stage_req_free(c);
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
                stage_req_query(c,
                      "UPDATE stages SET state = 'running', "
                      "  entrants = array(SELECT jsonb_array_elements_text($2::jsonb)::bigint) "
                      "WHERE id = $1 AND state = 'pending'", 2, p, on_stage_marked);
        else {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                stage_req_free(c);
        }
        free(ids_text);
}

static void mark_finished(struct stage_req *c) {
        char stage_s[24];

        snprintf(stage_s, sizeof stage_s, "%" PRId64, c->d.stage);
        const char *p[] = { stage_s };
        stage_req_query(c, "UPDATE stages SET state = 'finished' WHERE id = $1 AND state = 'running'", 1, p, on_stage_marked);
}

/* The matches of the latest round still to be played, for a 409. */
static void reply_busy(struct stage_req *c) {
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
        struct stage_req *c = userdata;
        struct tour_stage_next next;
        struct tour_stage_error e = { "" };
        int r;

        if (!stage_req_snapshot(c, res, error, "every stage of this tournament is finished (or it has none): add a "
                                          "stage (POST .../stages) or finish the tournament"))
                return;
        if (strcmp(c->d.state, "finished") == 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "every stage of this tournament is finished: add a "
                                  "stage (POST .../stages) or finish the tournament");
                stage_req_free(c);
                return;
        }
        if (strcmp(c->d.tournament_state, "running") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament is %s; rounds are paired while it is "
                                  "running (POST /v1/tournaments/%" PRId64 "/state)", c->d.tournament_state, c->id);
                stage_req_free(c);
                return;
        }
        if (strcmp(c->d.state, "pending") == 0) {
                if (c->d.number == 1) {
                        start_first_stage(c);
                } else {
                        c->starting = c->d.stage;
                        c->advance = c->d.advance;
                        c->next_format = c->d.cfg.format;
                        stage_req_load(c, c->d.number - 1, on_previous);
                }
                return;
        }
        r = tour_stage_next(&c->d.in, &next, &e);
        if (r == -EBUSY) {
                reply_busy(c);
                stage_req_free(c);
        } else if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "stage %d cannot be paired: %s", c->d.number,
                                  e.text[0] ? e.text : strerror(-r));
                stage_req_free(c);
        } else if (next.finished) {
                mark_finished(c);
        } else if (next.n_pairings == 0) {
                reply_busy(c);
                stage_req_free(c);
        } else {
                store_round(c, &next);
        }
        tour_stage_next_free(&next);
}

static void on_exists(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;

        if (!res || PQntuples(res) == 0) {
                tour_reply_row(c->req, MHD_HTTP_OK, res, error, "tournament");
                stage_req_free(c);
                return;
        }
        stage_req_load(c, 0, on_current);
}

void handle_rounds_create(struct api_request *req) {
        struct stage_req *c;
        long long id;

        if (!id_param(req, "id", &id) || !(c = stage_req_new(req, id, 0)))
                return;
        /* a tournament that does not exist has no stage either: tell them apart */
        const char *p[] = { route_param(&req->match, "id") };
        stage_req_query(c, "SELECT 1 FROM tournaments WHERE id = $1", 1, p, on_exists);
}

/* ---- lists ------------------------------------------------------------------- */

void handle_tournament_matches(struct api_request *req) {
        struct api_query q = api_request_query(req);
        struct query_stage_matches qm;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (query_stage_matches(&q, &qm, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        const char *p[] = { route_param(&req->match, "id"), qm.stage, qm.round, qm.state };
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

