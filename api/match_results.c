/* api/match_results.c — one stage match: calling it to a table as a live
 * match, entering its result, correcting it.
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

#include "api/bodies.h"
#include "api/handlers.h"
#include "api/problem.h"
#include "api/stage_request.h"
#include "common/log.h"

/* The snapshot of the stage holding c->match, then the index of the match
 * in it, or -1 after replying 404. */
static int match_index(struct stage_req *c, const PGresult *res, const char *error) {
        char none[96];
        int i;

        snprintf(none, sizeof none, "tournament %" PRId64 " has no match %" PRId64, c->id, c->match);
        if (!stage_req_snapshot(c, res, error, none))
                return -1;
        i = stage_data_match(&c->d, c->match);
        if (i < 0) {
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "%s", none);
                stage_req_free(c);
        }
        return i;
}

static void on_match_row(void *userdata, const PGresult *res, const char *error, const char *event) {
        struct stage_req *c = userdata;
        json_t *j;

        if (!res || PQntuples(res) == 0) {
                if (res)
                        api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the match changed meanwhile; GET it and retry");
                else
                        api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "updating the match failed: %s",
                                          error);
                stage_req_free(c);
                return;
        }
        j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        if (!j) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the match is not JSON");
                stage_req_free(c);
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
                tour_refresh(c->req->deps, c->id, false);
        api_reply_json(c->req, MHD_HTTP_OK, j);
        stage_req_free(c);
}

static void on_called(void *userdata, const PGresult *res, const char *error) {
        on_match_row(userdata, res, error, "match_called");
}

static void on_runtime_created(void *userdata, json_t *match) {
        struct stage_req *c = userdata;
        char id_s[24], match_s[24], table_s[24];

        if (!match) {                   /* the request has its answer */
                stage_req_free(c);
                return;
        }
        snprintf(id_s, sizeof id_s, "%" PRId64, c->match);
        snprintf(match_s, sizeof match_s, "%" PRId64, (int64_t) json_integer_value(json_object_get(match, "id")));
        snprintf(table_s, sizeof table_s, "%" PRId64, (int64_t) json_integer_value(json_object_get(match, "table")));
        char tournament_s[24], attempt_s[16], epoch_s[16];
        snprintf(tournament_s, sizeof tournament_s, "%" PRId64, c->id);
        snprintf(attempt_s, sizeof attempt_s, "%d", c->attempt);
        snprintf(epoch_s, sizeof epoch_s, "%d", c->epoch);
        const char *p[] = { id_s, match_s, json_is_integer(json_object_get(match, "table")) ? table_s : NULL,
                            tournament_s, attempt_s, epoch_s };
        /* the call goes on record with the identity its seed came from */
        stage_req_query(c,
              "WITH m AS (UPDATE stage_matches SET match_id = $2::bigint, table_id = coalesce($3::bigint, table_id), "
              "             state = 'called' WHERE id = $1 AND state = 'pending' RETURNING *), "
              "     c AS (INSERT INTO match_calls (match_id, tournament_id, stage_match_id, attempt, epoch) "
              "           SELECT $2::bigint, $4::bigint, m.id, $5::int, $6::int FROM m) "
              "SELECT " STAGE_MATCH_JSON("m") " FROM m JOIN stages s ON s.id = m.stage_id",
              6, p, on_called);
}

/* Whether the runtime is there to call matches into (else a 503). */
static bool req_has_matches(struct api_request *req) {
        if (req->deps->matches)
                return true;
        api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return false;
}

static void on_call_identity(void *userdata, const PGresult *res, const char *error);

static void on_call_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;
        int i = match_index(c, res, error);

        if (i < 0)
                return;
        if (strcmp(c->d.tournament_state, "running") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament is %s: matches are called while it "
                                  "is running", c->d.tournament_state);
                stage_req_free(c);
                return;
        }
        if (strcmp(c->d.match_states[i], "pending") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %" PRId64 " is %s already", c->match,
                                  c->d.match_states[i]);
                stage_req_free(c);
                return;
        }
        if (!req_has_matches(c->req)) {
                stage_req_free(c);
                return;
        }
        char id_s[24], match_s[24];
        snprintf(id_s, sizeof id_s, "%" PRId64, c->id);
        snprintf(match_s, sizeof match_s, "%" PRId64, c->match);
        const char *p[] = { id_s, match_s };
        stage_req_query(c, tour_next_call_sql, 2, p, on_call_identity);
}

/* The call's seed, from the tournament's current secret and the call's
 * identity (tournaments.h, "Fair draws"); then the live match. */
static void on_call_identity(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;
        json_t *table = json_object_get(c->req->body, "table"), *players, *spec;
        int i = stage_data_match(&c->d, c->match);
        uint64_t seed;

        if (!res || PQntuples(res) != 1 || i < 0) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the tournament's secret failed: %s",
                                  res ? "the tournament is gone" : error);
                stage_req_free(c);
                return;
        }
        c->epoch = atoi(PQgetvalue(res, 0, 1));
        c->attempt = atoi(PQgetvalue(res, 0, 2));
        if (tour_call_seed(PQgetvalue(res, 0, 0), c->id, c->match, c->attempt, &seed) < 0) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the tournament's secret is damaged");
                stage_req_free(c);
                return;
        }
        players = json_array();
        for (int k = 0; k < c->d.matches[i].n; k++)
                json_array_append_new(players, json_string(c->d.names[c->d.matches[i].entrant[k]]));
        spec = json_pack("{s:s, s:o, s:o, s:I, s:O, s:O?}", "game", c->d.game, "table",
                         json_is_integer(table) ? json_incref(table)
                         : c->d.match_tables[i] ? json_integer(c->d.match_tables[i]) : json_null(),
                         "players", players, "seed", (json_int_t) seed, "config", c->d.match_config,
                         "confirm", c->d.confirm);
        if (!spec) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                stage_req_free(c);
                return;
        }
        int r = api_match_create_for(c->req, spec, on_runtime_created, c);
        json_decref(spec);
        if (r < 0)
                stage_req_free(c);
}

static bool parse_ids(struct api_request *req, long long *ret_id, long long *ret_match) {
        return id_param(req, "id", ret_id) && id_param(req, "match", ret_match);
}

void handle_tournament_match_call(struct api_request *req) {
        struct stage_req *c;
        long long id, mid;
        json_t *problem;
        int64_t table;

        if (!parse_ids(req, &id, &mid))
                return;
        /* the table is read again from the body when the call is made */
        if (body_call(req->body, &table, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if ((c = stage_req_new(req, id, mid)))
                stage_req_load(c, 0, on_call_snapshot);
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
static char *result_text(struct stage_req *c, int i) {
        struct tour_result r;
        json_t *problem;
        char *text;

        if (body_results(&c->d, (size_t) i, json_object_get(c->req->body, "results"), &r, &problem) < 0) {
                api_reply_problem_json(c->req, problem);
                stage_req_free(c);
                return NULL;
        }
        json_t *j = stage_data_result_json(&c->d, &r);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                stage_req_free(c);
        }
        return text;
}

static void on_result_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;
        char id_s[24], *text;
        int i = match_index(c, res, error);

        if (i < 0)
                return;
        if (c->d.matches[i].done) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %" PRId64 " has its result; change it with "
                                  "POST .../matches/%" PRId64 "/corrections and a reason", c->match, c->match);
                stage_req_free(c);
                return;
        }
        if (strcmp(c->d.tournament_state, "running") != 0) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament is %s: results are entered while it "
                                  "is running", c->d.tournament_state);
                stage_req_free(c);
                return;
        }
        if (c->d.runtime[i]) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %" PRId64 " is being played as live match %"
                                  PRId64 ": its result comes from there (abort that match first to enter one by "
                                  "hand)", c->match, c->d.runtime[i]);
                stage_req_free(c);
                return;
        }
        if (!(text = result_text(c, i)))
                return;
        snprintf(id_s, sizeof id_s, "%" PRId64, c->match);
        const char *p[] = { id_s, text, c->req->token_name };
        stage_req_query(c,
              "WITH m AS (UPDATE stage_matches SET result = $2::jsonb, state = 'done', recorded_at = now(), "
              "             recorded_by = $3 WHERE id = $1 AND state <> 'done' RETURNING *) "
              "SELECT " STAGE_MATCH_JSON("m") " FROM m JOIN stages s ON s.id = m.stage_id",
              3, p, on_result_stored);
        free(text);
}

void handle_tournament_match_result(struct api_request *req) {
        struct stage_req *c;
        long long id, mid;
        json_t *problem;

        if (!parse_ids(req, &id, &mid))
                return;
        if (body_result(req->body, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if ((c = stage_req_new(req, id, mid)))
                stage_req_load(c, 0, on_result_snapshot);
}

static void on_correction_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct stage_req *c = userdata;
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
                stage_req_free(c);
                return;
        }
        if (c->d.next_started) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "stage %d has started from the standings of stage %d: "
                                  "its results can no longer change", c->d.number + 1, c->d.number);
                stage_req_free(c);
                return;
        }
        size_t *deps = calloc(c->d.n_matches + 1, sizeof *deps);
        if (!deps) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                stage_req_free(c);
                return;
        }
        json_t *blocking = json_array(), *all = json_array();
        n_done = tour_stage_dependents(&c->d.in, (size_t) i, false, deps, c->d.n_matches, &e);
        for (int k = 0; k < n_done; k++) {
                json_array_append_new(blocking, json_integer(c->d.match_ids[deps[k]]));
                json_array_append_new(all, json_integer(c->d.match_ids[deps[k]]));
        }
        n_pending = n_done < 0 ? n_done : tour_stage_dependents(&c->d.in, (size_t) i, true, deps, c->d.n_matches, &e);
        int64_t live = 0, live_runtime = 0;
        for (int k = 0; k < n_pending; k++) {
                /* a called match is being played: as good as played, and
                 * a reset may not pull it from under its players */
                if (strcmp(c->d.match_states[deps[k]], "called") == 0) {
                        json_array_append_new(blocking, json_integer(c->d.match_ids[deps[k]]));
                        live = c->d.match_ids[deps[k]];
                        live_runtime = c->d.runtime[deps[k]];
                }
                json_array_append_new(all, json_integer(c->d.match_ids[deps[k]]));
        }
        free(deps);
        if (live && reset) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "match %" PRId64 ", which depends on this result, is "
                                  "being played as live match %" PRId64 ": abort it (POST /v1/matches/%" PRId64
                                  "/abort) before resetting it", live, live_runtime, live_runtime);
                goto fail;
        }
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
        snprintf(round_s, sizeof round_s, "%d", tour_format_round_based(c->d.cfg.format) ? c->d.matches[i].round
                                                                                          : 1 << 30);
        const char *p[] = { id_s, text, json_string_value(json_object_get(req->body, "reason")), reset_text,
                            req->token_name, stage_s, round_s };
        stage_req_query(c,
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
        stage_req_free(c);
}

void handle_tournament_match_correct(struct api_request *req) {
        struct body_correction b;
        struct stage_req *c;
        long long id, mid;
        json_t *problem;

        if (!parse_ids(req, &id, &mid))
                return;
        if (body_correction(req->body, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if ((c = stage_req_new(req, id, mid)))
                stage_req_load(c, 0, on_correction_snapshot);
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
