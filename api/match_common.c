/* api/match_common.c — what the match resources share: the stored match
 * with the live engine's view added, the live match of a request, and how a
 * failed database write is answered.
 *
 * Reads of a match come from the database row, with the live engine's view
 * and provisional result added while the match is live here; a match
 * another venue's daemon runs gets the newest view that daemon sent as a
 * league event (api/league.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/league.h"
#include "api/problem.h"
#include "match/json.h"
#include "match/match.h"
#include "store/matches.h"

#define NUM_MAX                 24

void api_match_store_failed(struct api_request *req, int r) {
        if (r == -ENOTCONN)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE,
                                  "the database is not reachable right now, and inputs are stored before they "
                                  "count; see /v1/health and try again shortly");
        else
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the match could not take it: %s",
                                  strerror(-r));
}

bool api_match_own(struct api_request *req, int64_t id) {
        const struct match *m;

        if (req->role != AUTH_ROLE_SEAT)
                return false;
        if (req->token_match)
                return req->token_match == id;
        m = req->token_table && req->deps->matches ? matches_find(req->deps->matches, id) : NULL;
        return m && m->table_id == req->token_table;
}

bool api_match_may_act(struct api_request *req, int64_t id) {
        if (req->role >= AUTH_ROLE_REFEREE || api_match_own(req, id))
                return true;
        if (req->role == AUTH_ROLE_NONE)
                api_reply_problem(req, MHD_HTTP_UNAUTHORIZED, "this needs a referee's token, or the seat token of "
                                  "a seat of match %" PRId64 " (POST /v1/matches/%" PRId64 "/seats/{seat}/token) "
                                  "or of its table (POST /v1/tables/{id}/seats/{seat}/token)", id, id);
        else
                api_reply_problem(req, MHD_HTTP_FORBIDDEN, "token \"%s\" may not act on match %" PRId64
                                  ": it needs a referee's token or one of its seats'", req->token_name, id);
        return false;
}

bool api_match_may_see_seat(struct api_request *req, int64_t id, int seat) {
        if (req->role >= AUTH_ROLE_REFEREE || (api_match_own(req, id) && req->token_seat == seat))
                return true;
        if (req->role == AUTH_ROLE_NONE)
                api_reply_problem(req, MHD_HTTP_UNAUTHORIZED, "a seat's view is private: it needs that seat's token "
                                  "(POST /v1/matches/%" PRId64 "/seats/%d/token, or its table's station token) "
                                  "or a referee's", id, seat);
        else
                api_reply_problem(req, MHD_HTTP_FORBIDDEN, "token \"%s\" may not see seat %d of match %" PRId64
                                  "; only that seat's token or a referee's may", req->token_name, seat, id);
        return false;
}

/* {refusal: count} of the live match's refused inputs; {} when none. */
static json_t *refused_json(const struct match *m) {
        json_t *j = json_object();

        for (size_t k = 0; j && k < sizeof m->refused / sizeof m->refused[0]; k++)
                if (m->refused[k])
                        json_object_set_new(j, eng_refusal_name((enum eng_refusal) k),
                                            json_integer((json_int_t) m->refused[k]));
        return j;
}

/* The stored row, plus the live engine's view while the match is live. */
json_t *api_match_resource(struct matches *reg, json_t *row) {
        json_t *j = json_deep_copy(row);
        struct match *m = matches_find(reg, json_integer_value(json_object_get(row, "id")));
        struct eng_result res;

        if (!j)
                return NULL;
        if (m && !m->stale) {
                json_object_set_new(j, "state", json_string(match_state_name(m)));
                json_object_set_new(j, "view", match_json_view(m->game, m->state, ENG_VIEW_PUBLIC, -1));
                json_object_set_new(j, "game_pause", m->game->game_pause && m->game->game_pause(m->state)
                                                     ? json_string(m->game->game_pause(m->state)) : json_null());
                json_object_set_new(j, "ignored_presses", json_integer((json_int_t) m->ignored_presses));
                json_object_set_new(j, "unrouted_presses", json_integer((json_int_t) m->unrouted_presses));
                json_object_set_new(j, "refused_inputs", refused_json(m));
                if (!m->aborted && m->game->result(m->state, &res) == 0)
                        json_object_set_new(j, "result", match_json_result(m->game, m->state, &res));
        } else {
                json_object_set_new(j, "view", json_null());
        }
        return j;
}

struct get_ctx {
        struct matches *reg;
        struct api_request *req;
        unsigned status;
        int64_t id;
};

static json_t *live_resource(struct matches *reg, const struct match *m);

/* A remote match's newest view, read from the league's events. */
static void on_remote_view(void *userdata, json_t *resource) {
        struct get_ctx *c = userdata;

        api_reply_json(c->req, c->status, resource);
        free(c);
}

static void on_row(void *userdata, const PGresult *res, const char *error) {
        struct get_ctx *c = userdata;
        const struct match *m = c->reg ? matches_find(c->reg, c->id) : NULL;
        struct api_league *league = c->req->deps->league;
        json_t *row, *j;

        if (!res && m && !m->stale)
                api_reply_json(c->req, c->status, live_resource(c->reg, m));
        else if (!res)
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the match failed: %s", error);
        else if (PQntuples(res) == 0)
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "there is no match %s", route_param(&c->req->match, "id"));
        else if (!(row = json_loads(PQgetvalue(res, 0, 0), 0, NULL)))
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the database returned a match that is not JSON");
        else {
                j = api_match_resource(c->reg, row);
                json_decref(row);
                /* a match of another venue: its view is the newest its
                 * daemon sent (api/league.h), from memory or the database */
                if (j && league && !api_league_view(league, j) &&
                    api_league_view_read(league, j, on_remote_view, c) == 0)
                        return;
                api_reply_json(c->req, c->status, j);
        }
        free(c);
}

/* The match as this daemon holds it, for when the database cannot be read:
 * an input that was spooled is answered with what it did, not a 503 a
 * client would retry (it would then act twice).  "stored" says where the
 * newest input is; the stored row's other members (players, times) come
 * back with the database. */
static json_t *live_resource(struct matches *reg, const struct match *m) {
        json_t *row = json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t) m->id, "game", m->game->name,
                                "state", match_state_name(m), "stored", "spool");
        json_t *j;

        if (!row)
                return NULL;
        json_object_set_new(row, "table", m->table_id ? json_integer((json_int_t) m->table_id) : json_null());
        j = api_match_resource(reg, row);
        json_decref(row);
        return j;
}

/* Replies with the stored match (404 when there is none). */
static void reply_from(struct store *store, struct matches *reg, struct api_request *req, int64_t id,
                       unsigned status) {
        struct get_ctx *c = calloc(1, sizeof *c);
        char id_s[NUM_MAX];
        int r;

        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct get_ctx) { .reg = reg, .req = req, .status = status, .id = id };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = match_store_get(store, id_s, on_row, c);
        if (r < 0) {
                const struct match *m = matches_find(reg, id);

                free(c);
                if (r == -ENOTCONN && m && !m->stale)
                        api_reply_json(req, status, live_resource(reg, m));
                else
                        api_match_store_failed(req, r);
        }
}

void api_match_reply(struct matches *reg, struct api_request *req, int64_t id, unsigned status) {
        /* On the runtime's own connection: the answer to an input must not
         * wait behind a slow report. */
        reply_from(matches_store(reg), reg, req, id, status);
}

void api_match_read(struct matches *reg, struct api_request *req, int64_t id) {
        /* On the REST connection: a read must not queue on the input lane
         * in front of the matches' inputs (docs/architecture.md, "Two
         * database connections on the loop"). */
        reply_from(req->deps->store, reg, req, id, MHD_HTTP_OK);
}

/* A match that is not live: 404 when unknown, 409 saying why it takes no
 * more inputs otherwise (another venue's daemon runs it, a referee must
 * look at it, or it is over). */
static void on_not_live(void *userdata, const PGresult *res, const char *error) {
        struct get_ctx *c = userdata;
        json_t *row;

        if (!res)
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the match failed: %s", error);
        else if (PQntuples(res) == 0)
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "there is no match %s", route_param(&c->req->match, "id"));
        else if ((row = json_loads(PQgetvalue(res, 0, 0), 0, NULL))) {
                const char *why = json_string_value(json_object_get(row, "needs_referee"));
                const char *venue = json_string_value(json_object_get(row, "venue"));
                const char *state = json_string_value(json_object_get(row, "state"));
                bool over = state && (strcmp(state, "finished") == 0 || strcmp(state, "aborted") == 0);

                if (venue && c->req->deps->venue && strcmp(venue, c->req->deps->venue) != 0 && !over)
                        api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %s is at venue %s: its daemon runs it; "
                                          "send its inputs there", route_param(&c->req->match, "id"), venue);
                else if (why)
                        api_reply_problem(c->req, MHD_HTTP_CONFLICT,
                                          "match %s needs a referee and is not run: %s", route_param(&c->req->match, "id"), why);
                else
                        api_reply_problem(c->req, MHD_HTTP_CONFLICT, "match %s is %s; it takes no more inputs",
                                          route_param(&c->req->match, "id"),
                                          json_string_value(json_object_get(row, "state")));
                json_decref(row);
        } else
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the database returned a match that is not JSON");
        free(c);
}

/* The live match with id, or NULL after replying (503 while matches are
 * being rebuilt, else 404 or 409 from the database). */
struct match *api_match_live(struct matches *reg, struct api_request *req, int64_t id) {
        struct match *m = matches_find(reg, id);
        char id_s[NUM_MAX];
        struct get_ctx *c;
        int r;

        if (m && !m->stale && !m->aborted)
                return m;
        if (m && m->stale) {
                api_match_store_failed(req, -ENOTCONN);
                return NULL;
        }
        if (matches_loading(reg)) {
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE,
                                  "unfinished matches are being rebuilt after a start; try again in a moment");
                return NULL;
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return NULL;
        }
        *c = (struct get_ctx) { .reg = reg, .req = req };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = match_store_get(req->deps->store, id_s, on_not_live, c);
        if (r < 0) {
                free(c);
                api_match_store_failed(req, r);
        }
        return NULL;
}
