/* api/match_results.c — one stage match: calling it to a table as a live
 * match, entering its result, correcting it (the tournament service's
 * organiser/results.h), reading it and the corrections
 * (store/stage_matches.h), and the results the database records itself
 * when a live match finishes.
 *
 * A correction (POST .../matches/{mid}/corrections) of a result that later
 * matches were paired from: 409 listing those already played (or called)
 * unless the request says reset: true (admin only: 403 otherwise); then
 * they and every other match made from the old result are deleted and
 * paired again by the next POST .../rounds.  Unplayed dependents are
 * deleted silently.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/problem.h"
#include "api/stage_json.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "match/match.h"
#include "organiser/results.h"
#include "store/stage_matches.h"

/* A request about one stage match. */
struct match_ctx {
        struct api_request *req;
        int64_t id, match;
        struct org_call_made made;      /* a call: its identity, then its runtime match */
};

static struct match_ctx *match_ctx_new(struct api_request *req, int64_t id, int64_t match) {
        struct match_ctx *c = calloc(1, sizeof *c);

        if (!c)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        else
                *c = (struct match_ctx) { .req = req, .id = id, .match = match };
        return c;
}

static bool parse_ids(struct api_request *req, long long *ret_id, long long *ret_match) {
        return id_param(req, "id", ret_id) && id_param(req, "match", ret_match);
}

/* result_recorded for stage match m (and the standings refreshed). */
static void publish_result(const struct api_deps *deps, const struct store_stage_match_row *m, bool correction) {
        tour_event(deps, m->tournament, "result_recorded",
                   json_pack("{s:I, s:i, s:i, s:o, s:b}", "match", (json_int_t) m->id, "stage", m->stage, "round",
                             m->round, "result", stage_stored_json(m->result), "correction", correction));
        tour_refresh(deps, m->tournament, false);
}

/* ---- calling ------------------------------------------------------------------ */

static void on_called(void *userdata, const struct org_result *result, const struct store_stage_match_row *m) {
        struct match_ctx *c = userdata;
        json_t *j;

        if (tour_reply_outcome(c->req, result, "recording the call")) {
                free(c);
                return;
        }
        j = stage_match_json(m);
        tour_event(c->req->deps, c->id, "match_called",
                   json_pack("{s:O, s:O, s:O, s:O}", "match", json_object_get(j, "id"), "table",
                             json_object_get(j, "table"), "participants", json_object_get(j, "participants"),
                             "runtime_match", json_object_get(j, "match")));
        api_reply_json(c->req, MHD_HTTP_OK, j);
        free(c);
}

static void on_runtime_created(void *userdata, json_t *match) {
        struct match_ctx *c = userdata;
        json_t *table = json_object_get(match, "table");
        int r;

        if (!match) {                   /* the request has its answer */
                free(c);
                return;
        }
        c->made.runtime_match = json_integer_value(json_object_get(match, "id"));
        c->made.table = json_is_integer(table) ? json_integer_value(table) : 0;
        r = org_call_record(c->req->deps->store, &c->made, on_called, c);
        if (r < 0) {
                reply_store_error(c->req, r);
                free(c);
        }
}

/* Whether the runtime is there to call matches into (else a 503). */
static bool req_has_matches(struct api_request *req) {
        if (req->deps->matches)
                return true;
        api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return false;
}

/* The call may be made: the live match, from what the service says it is
 * made of. */
static void on_call_prepared(void *userdata, const struct org_result *result, const struct org_call *call) {
        struct match_ctx *c = userdata;
        json_t *table = json_object_get(c->req->body, "table"), *players, *spec;
        int r;

        if (tour_reply_outcome(c->req, result, "reading the tournament's secret") || !req_has_matches(c->req)) {
                free(c);
                return;
        }
        c->made = (struct org_call_made) { .tournament = c->id, .stage_match = c->match, .attempt = call->attempt,
                                           .epoch = call->epoch };
        players = json_array();
        for (size_t k = 0; k < call->n_players; k++)
                json_array_append_new(players, json_string(call->players[k]));
        spec = json_pack("{s:s, s:o, s:o, s:I, s:O, s:O?}", "game", call->game, "table",
                         json_is_integer(table) ? json_incref(table)
                         : call->table ? json_integer((json_int_t) call->table) : json_null(),
                         "players", players, "seed", (json_int_t) call->seed, "config", call->config,
                         "confirm", call->confirm);
        if (!spec) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                free(c);
                return;
        }
        r = api_match_create_for(c->req, spec, on_runtime_created, c);
        json_decref(spec);
        if (r < 0)
                free(c);
}

void handle_tournament_match_call(struct api_request *req) {
        struct match_ctx *c;
        long long id, mid;
        json_t *problem;
        int64_t table;
        int r;

        if (!parse_ids(req, &id, &mid))
                return;
        /* the table is read again from the body when the call is made */
        if (body_call(req->body, &table, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (!(c = match_ctx_new(req, id, mid)))
                return;
        r = org_call_prepare(req->deps->store, id, mid, on_call_prepared, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}

/* ---- reading ----------------------------------------------------------------- */

static void on_match(void *userdata, const struct store_stage_match_row *rows, size_t n,
                     const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;

        if (failure)
                api_reply_store_failed(req, failure, "the match", error);
        else if (n == 0)
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s",
                                  route_param(&req->match, "id"));
        else
                api_reply_json(req, MHD_HTTP_OK, stage_match_json(&rows[0]));
}

void handle_tournament_match_get(struct api_request *req) {
        long long id, mid;
        int r;

        if (!parse_ids(req, &id, &mid))
                return;
        r = store_stage_matches_get(req->deps->store, id, mid, on_match, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- results -------------------------------------------------------------------- */

static void on_result(void *userdata, const struct org_result *result, const struct store_stage_match_row *m) {
        struct match_ctx *c = userdata;

        if (!tour_reply_outcome(c->req, result, "recording the result")) {
                publish_result(c->req->deps, m, false);
                api_reply_json(c->req, MHD_HTTP_OK, stage_match_json(m));
        }
        free(c);
}

void handle_tournament_match_result(struct api_request *req) {
        struct org_result_entry entries[TOUR_MAX_SEATS];
        struct match_ctx *c;
        long long id, mid;
        json_t *problem;
        size_t n;
        int r;

        if (!parse_ids(req, &id, &mid))
                return;
        if (body_result(req->body, &problem) < 0 ||
            body_results(json_object_get(req->body, "results"), entries, TOUR_MAX_SEATS, &n, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (!(c = match_ctx_new(req, id, mid)))
                return;
        r = org_result_enter(req->deps->store, id, mid, entries, n, req->token_name, on_result, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}

static json_t *ids_json(const int64_t *ids, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_integer((json_int_t) ids[i]));
        return a;
}

static void on_corrected(void *userdata, const struct org_result *result, const struct org_corrected *k) {
        struct match_ctx *c = userdata;
        struct api_request *req = c->req;
        json_t *j;

        if (result->outcome == ORG_CONFLICT && k->verdict == TOUR_CORRECTION_NEEDS_RESET) {
                json_t *p = problem_new(MHD_HTTP_CONFLICT, "%s", result->detail);
                problem_set(p, "matches", ids_json(k->blocking, k->n_blocking));
                api_reply_problem_json(req, p);
        } else if (result->outcome == ORG_CONFLICT && k->verdict == TOUR_CORRECTION_NOT_ALLOWED) {
                api_reply_problem(req, MHD_HTTP_FORBIDDEN, "%s", result->detail);
        } else if (!tour_reply_outcome(req, result, "recording the correction")) {
                publish_result(req->deps, k->match, true);
                j = stage_match_json(k->match);
                /* the correction's members where the database's jsonb put them */
                json_t *out = json_object();
                const char *key;
                json_t *v;
                json_object_foreach(j, key, v) {
                        if (strcmp(key, "round") == 0)
                                json_object_set_new(out, "reset", ids_json(k->deleted, k->n_deleted));
                        if (strcmp(key, "recorded_at") == 0)
                                json_object_set_new(out, "correction", json_integer((json_int_t) k->correction));
                        json_object_set(out, key, v);
                }
                json_decref(j);
                api_reply_json(req, MHD_HTTP_OK, out);
        }
        free(c);
}

void handle_tournament_match_correct(struct api_request *req) {
        struct org_result_entry entries[TOUR_MAX_SEATS];
        struct body_correction b;
        struct match_ctx *c;
        long long id, mid;
        json_t *problem;
        size_t n;
        int r;

        if (!parse_ids(req, &id, &mid))
                return;
        if (body_correction(req->body, &b, &problem) < 0 ||
            body_results(json_object_get(req->body, "results"), entries, TOUR_MAX_SEATS, &n, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (!(c = match_ctx_new(req, id, mid)))
                return;
        struct org_correction k = {
                .tournament = id, .stage_match = mid, .entries = entries, .n_entries = n, .reason = b.reason,
                .reset = b.reset, .may_delete_played = req->role >= AUTH_ROLE_ADMIN, .who = req->token_name,
        };
        r = org_result_correct(req->deps->store, &k, on_corrected, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}

static void on_corrections(void *userdata, bool found, const struct store_correction_row *rows, size_t n,
                           const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        json_t *items;

        if (failure) {
                api_reply_store_failed(req, failure, "the corrections", error);
                return;
        }
        if (!found) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s",
                                  route_param(&req->match, "id"));
                return;
        }
        items = json_array();
        for (size_t i = 0; i < n; i++) {
                const struct store_correction_row *k = &rows[i];
                json_array_append_new(items, json_pack("{s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:s}", "at", k->at, "id",
                                                       (json_int_t) k->id, "who", k->who, "after",
                                                       stage_stored_json(k->after), "match",
                                                       k->match ? json_integer((json_int_t) k->match) : json_null(),
                                                       "reset", ids_json(k->reset, k->n_reset), "before",
                                                       stage_stored_json(k->before), "reason", k->reason));
        }
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

void handle_tournament_corrections(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_corrections_list(req->deps->store, id, on_corrections, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- results the database records itself --------------------------------------- */

/* The trigger's NOTIFY (STORE_RESULTS_CHANNEL, "<stage match id> <venue>")
 * is heard on the input lane (the runtime's store): every input of this
 * venue's matches commits there, straight or flushed from the spool, a
 * session hears its own NOTIFYs, and the lane LISTENs again at every
 * reconnect before its READY, so before the spool's flush — none of ours
 * is missed.  (On the REST connection, one that came back after the lane
 * would miss the result of a flushed match.)  The stage match is read and
 * the standings refreshed on the REST connection: a hand-off that finds it
 * away, or loses it, waits and goes at its next READY. */
struct api_results {
        const struct api_deps *deps;
        char **pending;                 /* payloads waiting for the REST connection */
        size_t n_pending;
};

/* Hand-offs kept while the REST connection is away: every table of a
 * venue finishing a few matches in an outage, with room. */
#define RESULTS_PENDING_MAX 1024

struct handed {
        struct api_results *w;
        char *payload;
};

static void pend(struct api_results *w, char *payload) {
        if (w->n_pending == RESULTS_PENDING_MAX) {
                log_warning("the result of stage match %s is not published: %d others wait for the database "
                            "already (its standings follow the next result)", payload, RESULTS_PENDING_MAX);
                free(payload);
                return;
        }
        w->pending[w->n_pending++] = payload;
}

static void hand_over(struct api_results *w, char *payload);

static void on_handed_over(void *userdata, const struct org_result *result, const struct store_stage_match_row *m) {
        struct handed *h = userdata;
        const struct api_deps *deps = h->w->deps;

        if (result->outcome == ORG_STORE_FAILED && result->failure &&
            result->failure->failure == STORE_FAILURE_UNAVAILABLE) {
                pend(h->w, h->payload);         /* read again at the next READY */
                free(h);
                return;
        }
        free(h->payload);
        free(h);
        if (result->outcome != ORG_DONE) {
                log_warning("a result recorded by a finished match could not be read: %s",
                            result->detail ? result->detail : result->error ? result->error : "failed");
                return;
        }
        tour_event(deps, m->tournament, "result_recorded",
                   json_pack("{s:I, s:i, s:i, s:o, s:b, s:I, s:o}", "match", (json_int_t) m->id, "round", m->round,
                             "stage", m->stage, "result", stage_stored_json(m->result), "correction", false,
                             "tournament", (json_int_t) m->tournament, "runtime_match",
                             m->match ? json_integer((json_int_t) m->match) : json_null()));
        tour_refresh(deps, m->tournament, false);
}

/* Takes payload. */
static void hand_over(struct api_results *w, char *payload) {
        struct handed *h = calloc(1, sizeof *h);
        int r;

        if (!h) {
                log_warning("the result of stage match %s could not be published: out of memory", payload);
                free(payload);
                return;
        }
        *h = (struct handed) { .w = w, .payload = payload };
        r = org_result_handed_over(w->deps->store, payload, w->deps->venue, on_handed_over, h);
        if (r == 0)
                return;
        free(h);
        if (r == -ENOTCONN) {
                pend(w, payload);
                return;
        }
        /* 1: another venue's daemon ran it and publishes it */
        if (r < 0)
                log_warning("the result of stage match %s could not be published: %s", payload, strerror(-r));
        free(payload);
}

static void on_result_notify(void *userdata, const char *channel, const char *payload) {
        struct api_results *w = userdata;
        char *p = strdup(payload);

        (void) channel;
        if (!p)
                log_warning("the result of stage match %s could not be published: out of memory", payload);
        else
                hand_over(w, p);
}

void api_tournaments_store_ready(struct api_results *w) {
        size_t n;
        char **pending;

        if (!w || w->n_pending == 0)
                return;
        /* each goes once; one that fails again comes back to the list */
        n = w->n_pending;
        pending = malloc(n * sizeof *pending);
        if (!pending)
                return;         /* the next READY tries again */
        memcpy(pending, w->pending, n * sizeof *pending);
        w->n_pending = 0;
        for (size_t i = 0; i < n; i++)
                hand_over(w, pending[i]);
        free(pending);
}

int api_tournaments_watch(const struct api_deps *deps, struct api_results **ret) {
        struct api_results *w = calloc(1, sizeof *w);
        int r;

        if (!w || !(w->pending = calloc(RESULTS_PENDING_MAX, sizeof *w->pending))) {
                free(w);
                return -ENOMEM;
        }
        w->deps = deps;
        r = store_listen(deps->matches ? matches_store(deps->matches) : deps->store, STORE_RESULTS_CHANNEL,
                         on_result_notify, w);
        if (r < 0) {
                api_tournaments_unwatch(w);
                return r;
        }
        *ret = w;
        return 0;
}

void api_tournaments_unwatch(struct api_results *w) {
        if (!w)
                return;
        for (size_t i = 0; i < w->n_pending; i++)
                free(w->pending[i]);
        free(w->pending);
        free(w);
}
