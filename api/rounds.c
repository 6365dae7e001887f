/* api/rounds.c — POST /v1/tournaments/{id}/rounds (the tournament
 * service's org_round_next, organiser/rounds.h), and the lists of what was
 * paired: the stages' matches, the queue per table (store/stage_matches.h).
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
#include "api/stage_json.h"
#include "api/tournaments.h"
#include "organiser/rounds.h"
#include "store/stage_matches.h"

/* ---- POST /v1/tournaments/{id}/rounds -------------------------------------- */

struct round_ctx {
        struct api_request *req;
        int64_t id;
};

static void on_round(void *userdata, const struct org_result *result, const struct org_round *r) {
        struct round_ctx *c = userdata;
        struct api_request *req = c->req;
        json_t *out, *ids;

        if (result->outcome == ORG_CONFLICT && r->n_unfinished > 0) {
                /* the matches still to be played, listed */
                json_t *p = problem_new(MHD_HTTP_CONFLICT, "%s", result->detail);
                ids = json_array();
                for (size_t i = 0; i < r->n_unfinished; i++)
                        json_array_append_new(ids, json_integer((json_int_t) r->unfinished[i]));
                problem_set(p, "matches", ids);
                api_reply_problem_json(req, p);
                free(c);
                return;
        }
        if (tour_reply_outcome(req, result, "storing the round")) {
                free(c);
                return;
        }
        out = json_pack("{s:o, s:i, s:i, s:o, s:i}", "byes", stage_byes_json(r->byes, r->n_byes), "round", r->round,
                        "stage", r->stage, "matches", stage_matches_json(r->matches, r->n_matches), "repeats",
                        r->repeats);
        if (!out) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                free(c);
                return;
        }
        tour_event(req->deps, c->id, r->bracket ? "bracket_advanced" : "round_started",
                   json_pack("{s:i, s:i, s:O}", "stage", r->stage, "round", r->round, "matches",
                             json_object_get(out, "matches")));
        tour_event(req->deps, c->id, "tournament_changed",
                   json_pack("{s:s, s:{s:i, s:i}}", "state", tour_state_name(r->tournament_state), "current",
                             "stage", r->stage, "round", r->round));
        api_reply_json(req, MHD_HTTP_CREATED, out);
        free(c);
}

void handle_rounds_create(struct api_request *req) {
        struct round_ctx *c;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (!(c = calloc(1, sizeof *c))) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct round_ctx) { .req = req, .id = id };
        r = org_round_next(req->deps->store, id, on_round, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}

/* ---- lists ------------------------------------------------------------------- */

static void no_tournament(struct api_request *req) {
        api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s", route_param(&req->match, "id"));
}

static void on_matches(void *userdata, bool found, const struct store_stage_match_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;

        if (failure)
                api_reply_store_failed(req, failure, "the tournament's matches", error);
        else if (!found)
                no_tournament(req);
        else
                api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", stage_matches_json(rows, n)));
}

void handle_tournament_matches(struct api_request *req) {
        struct api_query q = api_request_query(req);
        struct query_stage_matches qm;
        enum store_match_state state = STORE_MATCH_PENDING;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (query_stage_matches(&q, &qm, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        /* the decoder let through only what these read: a plain number, a state's name */
        if (qm.state) {
                state = strcmp(qm.state, "called") == 0 ? STORE_MATCH_CALLED
                        : strcmp(qm.state, "done") == 0 ? STORE_MATCH_DONE : STORE_MATCH_PENDING;
        }
        r = store_stage_matches_list(req->deps->store, id, qm.stage ? atoi(qm.stage) : 0,
                                     qm.round ? atoi(qm.round) : 0, qm.state ? &state : NULL, on_matches, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* "Up next" per table: the matches not yet done, in the order they were
 * made, under the table each was given (null: no table assigned). */
static void on_queue(void *userdata, bool found, const struct store_stage_match_row *rows, size_t n,
                     const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        json_t *tables, *group = NULL;

        if (failure) {
                api_reply_store_failed(req, failure, "the tournament's queue", error);
                return;
        }
        if (!found) {
                no_tournament(req);
                return;
        }
        /* the rows come by table: each run of one table is a group */
        tables = json_array();
        for (size_t i = 0; i < n; i++) {
                if (!group || rows[i].table != rows[i - 1].table) {
                        group = json_pack("{s:o, s:[]}", "table",
                                          rows[i].table ? json_integer((json_int_t) rows[i].table) : json_null(),
                                          "matches");
                        json_array_append_new(tables, group);
                }
                json_array_append_new(json_object_get(group, "matches"), stage_match_json(&rows[i]));
        }
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "tables", tables));
}

void handle_tournament_queue(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_stage_matches_queue(req->deps->store, id, on_queue, req);
        if (r < 0)
                reply_store_error(req, r);
}
