/* api/matches.c — /v1/matches: creating matches and reading them (the
 * stored row, the live views, the log and the live events).
 *
 * Seats in request bodies and paths are 1-based.  A seat the match does
 * not have is 404 (the seat is a resource of the match, as on
 * /seats/{n}), with a problem naming "seat".
 */
#include <sys/random.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/league.h"
#include "api/problem.h"
#include "match/json.h"
#include "match/match.h"
#include "store/matches.h"

#define NUM_MAX                 24

#define MATCH_SEAT_MAX  8               /* engine/engine.h ENG_MAX_SEATS */

/* The runtime, or a 503 when this daemon runs without one. */
static struct matches *runtime(struct api_request *req) {
        if (!req->deps->matches)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return req->deps->matches;
}

/* ---- creation ---------------------------------------------------------- */

/* A creation in flight: for POST /v1/matches (done NULL: reply), or for
 * another resource (done gets the match). */
struct create_ctx {
        struct api_request *req;
        json_t *spec;
        api_match_created_fn done;
        void *userdata;
};

static void on_created(void *userdata, struct match *m, json_t *stored, const char *error) {
        struct create_ctx *c = userdata;
        struct api_request *req = c->req;

        /* m NULL with a row: stored at another venue's table, whose daemon
         * adopts and runs it when it hears of it (api/league.h); the
         * table's followers hear of it from here, where it was made (the
         * adopting daemon announces no match it did not make) */
        if (!m && stored) {
                json_int_t id = json_integer_value(json_object_get(stored, "id"));
                json_t *table = json_object_get(stored, "table");
                char topic[MATCH_TOPIC_MAX];

                if (json_is_integer(table)) {
                        snprintf(topic, sizeof topic, "table/%" JSON_INTEGER_FORMAT, json_integer_value(table));
                        api_publish_shared(req->deps->events, req->deps->league, topic, "match_created",
                                           json_pack("{s:s, s:I, s:O, s:O, s:O}", "kind", "match_created", "match",
                                                     id, "table", table, "game", json_object_get(stored, "game"),
                                                     "venue", json_object_get(stored, "venue")));
                }
                api_league_match_assigned(req->deps->league, id, json_string_value(json_object_get(stored, "venue")));
        }
        if (!stored) {
                /* called from the runtime's store callback: its error is there */
                api_reply_query_failed(req, matches_store(req->deps->matches), "storing the match", error);
                if (c->done)
                        c->done(c->userdata, NULL);
        } else if (c->done) {
                /* m NULL: stored at another venue's table, whose daemon runs
                 * it; the resource's venue says which (state ready) */
                json_t *j = api_match_resource(req->deps->matches, stored);
                c->done(c->userdata, j);
                json_decref(j);
        } else {
                api_reply_json(req, MHD_HTTP_CREATED, api_match_resource(req->deps->matches, stored));
        }
        json_decref(c->spec);
        free(c);
}

/* Creates the match spec describes; every problem is replied to req. */
static int create_from(struct matches *reg, struct api_request *req, json_t *spec, api_match_created_fn done,
                       void *userdata) {
        struct body_match b;
        struct match_spec ms;
        struct create_ctx *c;
        json_t *problem;
        uint64_t seed_v;
        int r;

        if (body_match(spec, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return -EINVAL;
        }
        if (b.has_seed) {
                seed_v = b.seed;
        } else if (getrandom(&seed_v, sizeof seed_v, 0) != (ssize_t) sizeof seed_v) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "no random seed: %s", strerror(errno));
                json_decref(b.seats);
                return -EIO;
        } else {
                seed_v &= (uint64_t) INT64_MAX;         /* matches.seed is a bigint */
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                json_decref(b.seats);
                return -ENOMEM;
        }
        *c = (struct create_ctx) { .req = req, .spec = json_incref(spec), .done = done, .userdata = userdata };
        ms = (struct match_spec) {
                .game = b.game,
                .cfg = &b.cfg,
                .data = &b.data,
                .n_seats = b.n_seats,
                .seed = seed_v,
                .seats = b.seats,
                .table_id = b.table_id,
                .confirm = b.confirm,
                .confirm_timeout_s = b.confirm_timeout_s,
        };
        r = matches_create(reg, &ms, req->token_name, on_created, c);
        json_decref(b.seats);
        if (r < 0) {
                json_decref(c->spec);
                free(c);
                api_match_store_failed(req, r);
        }
        return r;
}

void handle_matches_create(struct api_request *req) {
        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"game\": \"crash-pilot\", \"players\": [\"Ana\", \"Ben\"]}");
                return;
        }
        if (runtime(req))
                create_from(req->deps->matches, req, req->body, NULL, NULL);
}

int api_match_create_for(struct api_request *req, json_t *spec, api_match_created_fn done, void *userdata) {
        return create_from(req->deps->matches, req, spec, done, userdata);
}

/* ---- reads ------------------------------------------------------------- */

/* A read waiting for the database. */
struct read_ctx {
        struct matches *reg;
        struct api_request *req;
        int64_t id;
};

static struct read_ctx *read_ctx_new(struct api_request *req, int64_t id) {
        struct read_ctx *c = calloc(1, sizeof *c);

        if (!c)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        else
                *c = (struct read_ctx) { .reg = req->deps->matches, .req = req, .id = id };
        return c;
}

static void on_list(void *userdata, const PGresult *res, const char *error) {
        struct read_ctx *c = userdata;
        json_t *items;
        json_int_t last = 0;

        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "listing matches failed: %s", error);
                free(c);
                return;
        }
        items = json_array();
        for (int i = 0; i < PQntuples(res); i++) {
                json_t *row = json_loads(PQgetvalue(res, i, 0), 0, NULL);
                if (row) {
                        last = json_integer_value(json_object_get(row, "id"));
                        json_array_append_new(items, api_match_resource(c->reg, row));
                        json_decref(row);
                }
        }
        api_reply_json(c->req, MHD_HTTP_OK, json_pack("{s:o, s:o}", "items", items, "next",
                                                      last ? json_integer(last) : json_null()));
        free(c);
}

void handle_matches_list(struct api_request *req) {
        struct api_query q = api_request_query(req);
        char limit_s[NUM_MAX], after_s[NUM_MAX];
        const char *state, *order;
        struct query_matches qm;
        long long limit, after;
        struct read_ctx *c;
        json_t *problem;
        int r;

        struct store *store = api_read_store(req);

        if (!page_params(req, &limit, &after))
                return;
        if (query_matches(&q, &qm, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        state = qm.state;
        order = qm.order;
        if (!runtime(req) || !(c = read_ctx_new(req, 0)))
                return;
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        r = match_store_list(store, state, limit_s, after_s, order && strcmp(order, "desc") == 0,
                             on_list, c);
        if (r < 0) {
                free(c);
                api_match_store_failed(req, r);
        }
}

void handle_match_get(struct api_request *req) {
        long long id;

        if (!id_param(req, "id", &id) || !runtime(req))
                return;
        /* A seat token reads its own match's public side (names, state) */
        if (req->role == AUTH_ROLE_SEAT && !api_match_own(req, id)) {
                api_reply_problem(req, MHD_HTTP_FORBIDDEN, "token \"%s\" is a seat's: it reads only its own match",
                                  req->token_name);
                return;
        }
        api_match_read(req->deps->matches, req, id);
}

/* A match's events go on "match/<id>" (api/match_events.c). */
static void stream_of(struct api_request *req, int64_t id) {
        char topic[MATCH_TOPIC_MAX];

        snprintf(topic, sizeof topic, "match/%" PRId64, id);
        api_events_stream(req, topic, NULL);
}

static void on_events_row(void *userdata, const PGresult *res, const char *error) {
        struct read_ctx *c = userdata;

        if (!res)
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the match failed: %s", error);
        else if (PQntuples(res) == 0)
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "there is no match %s", route_param(&c->req->match, "id"));
        else
                stream_of(c->req, c->id);
        free(c);
}

/* A live match streams at once (the database may be away); any other is
 * looked up so that an unknown id is a 404, not a stream that stays quiet. */
void handle_match_events(struct api_request *req) {
        char id_s[NUM_MAX];
        struct read_ctx *c;
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !runtime(req))
                return;
        if (matches_find(req->deps->matches, id)) {
                stream_of(req, id);
                return;
        }
        if (!(c = read_ctx_new(req, id)))
                return;
        snprintf(id_s, sizeof id_s, "%lld", id);
        r = match_store_get(c->req->deps->store, id_s, on_events_row, c);
        if (r < 0) {
                free(c);
                api_match_store_failed(req, r);
        }
}

/* The seat of the request's path, checked: 1..8; replies 404 and returns
 * false otherwise. */
static bool seat_param(struct api_request *req, long long *ret) {
        if (!id_param(req, "seat", ret))
                return false;
        if (*ret > MATCH_SEAT_MAX) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: there is no seat %lld; seats are 1 to %d",
                                  *ret, MATCH_SEAT_MAX);
                return false;
        }
        return true;
}

/* A live match and one of its seats, for a seat route: the token must be
 * that seat's (or a referee's).  NULL after replying. */
static struct match *live_seat(struct api_request *req, long long *ret_seat) {
        struct match *m;
        long long id;

        if (!id_param(req, "id", &id) || !seat_param(req, ret_seat))
                return NULL;
        if (!api_match_may_see_seat(req, id, (int) *ret_seat) || !runtime(req))
                return NULL;
        m = api_match_live(req->deps->matches, req, id);
        if (m && *ret_seat > m->n_seats) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: match %lld has seats 1 to %u", id, m->n_seats);
                return NULL;
        }
        return m;
}

void handle_match_seat(struct api_request *req) {
        struct match *m;
        long long seat;
        json_t *v;

        if (!(m = live_seat(req, &seat)))
                return;
        v = match_json_view(m->game, m->state, ENG_VIEW_SEAT, (int) seat - 1);
        if (!v)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the engine could not show seat %lld", seat);
        else
                api_reply_json(req, MHD_HTTP_OK, v);
}

/* A seat's stream: the match's events, with the seat's private fields. */
void handle_match_seat_events(struct api_request *req) {
        char topic[MATCH_TOPIC_MAX], scope[MATCH_TOPIC_MAX];
        struct match *m;
        long long seat;

        if (!(m = live_seat(req, &seat)))
                return;
        api_match_topic(m->id, topic);
        api_match_scope(m->id, (int) seat - 1, scope);
        api_events_stream(req, topic, scope);
}

void handle_match_referee(struct api_request *req) {
        struct match *m;
        long long id;
        json_t *v;

        if (!id_param(req, "id", &id) || !runtime(req) || !(m = api_match_live(req->deps->matches, req, id)))
                return;
        v = match_json_view(m->game, m->state, ENG_VIEW_REFEREE, -1);
        if (!v)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the engine could not show the referee's view");
        else
                api_reply_json(req, MHD_HTTP_OK, json_pack("{s:s, s:o}", "state", match_state_name(m), "view", v));
}

/* The referee's stream: every event with every field. */
void handle_match_referee_events(struct api_request *req) {
        char topic[MATCH_TOPIC_MAX], scope[MATCH_TOPIC_MAX];
        struct match *m;
        long long id;

        if (!id_param(req, "id", &id) || !runtime(req) || !(m = api_match_live(req->deps->matches, req, id)))
                return;
        api_match_topic(m->id, topic);
        api_match_scope(m->id, ENG_SEAT_TABLE, scope);
        api_events_stream(req, topic, scope);
}

struct token_ctx {
        struct api_request *req;
        int64_t match;
        int seat;
};

static void on_seat_token(void *userdata, enum api_token_outcome outcome, const char *token, json_t *resource,
                          const char *error) {
        struct token_ctx *c = userdata;
        struct api_request *req = c->req;
        struct auth_entry e = { .role = AUTH_ROLE_SEAT, .match_id = c->match, .seat = c->seat };
        char path[MATCH_TOPIC_MAX * 2];

        free(c);
        (void) outcome;
        if (!resource) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the seat token was not created: %s", error);
                return;
        }
        /* Usable at once, before the reload its NOTIFY brings. */
        e.id = json_integer_value(json_object_get(resource, "id"));
        e.name = (char *) json_string_value(json_object_get(resource, "name"));
        auth_token_hash(token, e.hash);
        auth_add(req->deps->auth, &e);
        json_object_set_new(resource, "token", json_string(token));
        snprintf(path, sizeof path, "/v1/matches/%lld/seats/%d", (long long) e.match_id, e.seat);
        json_object_set_new(resource, "view_url", json_sprintf("%s?access_token=%s", path, token));
        json_object_set_new(resource, "events_url", json_sprintf("%s/events?access_token=%s", path, token));
        api_reply_json(req, MHD_HTTP_CREATED, json_incref(resource));
}

/* POST /v1/matches/{id}/seats/{seat}/token: a token for one seat's station
 * (its view, its stream, its own inputs), replacing the seat's last one. */
void handle_match_seat_token(struct api_request *req) {
        struct token_ctx *c;
        struct match *m;
        long long id, seat;
        int r;

        if (!id_param(req, "id", &id) || !seat_param(req, &seat) || !runtime(req) ||
            !(m = api_match_live(req->deps->matches, req, id)))
                return;
        if (seat > m->n_seats) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: match %lld has seats 1 to %u", id, m->n_seats);
                return;
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct token_ctx) { .req = req, .match = id, .seat = (int) seat };
        r = api_seat_token_create(req->deps->store, id, 0, (int) seat, req->token_name, on_seat_token, c);
        if (r < 0) {
                free(c);
                api_match_store_failed(req, r);
        }
}

static void on_referee_token(void *userdata, enum api_token_outcome outcome, const char *token, json_t *resource,
                             const char *error) {
        struct token_ctx *c = userdata;
        struct api_request *req = c->req;
        struct auth_entry e = { .role = AUTH_ROLE_REFEREE, .match_id = c->match };
        char path[MATCH_TOPIC_MAX * 2];

        free(c);
        (void) outcome;
        if (!resource) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the referee token was not created: %s", error);
                return;
        }
        /* Usable at once, before the reload its NOTIFY brings. */
        e.id = json_integer_value(json_object_get(resource, "id"));
        e.name = (char *) json_string_value(json_object_get(resource, "name"));
        auth_token_hash(token, e.hash);
        auth_add(req->deps->auth, &e);
        json_object_set_new(resource, "token", json_string(token));
        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) e.match_id);
        json_object_set_new(resource, "view_url", json_sprintf("%s?access_token=%s", path, token));
        json_object_set_new(resource, "events_url", json_sprintf("%s/events?access_token=%s", path, token));
        api_reply_json(req, MHD_HTTP_CREATED, json_incref(resource));
}

/* POST /v1/matches/{id}/referee-token: a referee token limited to this
 * live match (players reporting their own turns on a tablet). */
void handle_match_referee_token(struct api_request *req) {
        struct token_ctx *c;
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !runtime(req) || !api_match_live(req->deps->matches, req, id))
                return;
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct token_ctx) { .req = req, .match = id };
        r = api_match_referee_token_create(req->deps->store, id, req->token_name, on_referee_token, c);
        if (r < 0) {
                free(c);
                api_match_store_failed(req, r);
        }
}

static void on_log(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        json_t *items, *last;

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the log failed: %s", error);
                return;
        }
        if (strcmp(PQgetvalue(res, 0, 0), "t") != 0) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no match %s", route_param(&req->match, "id"));
                return;
        }
        items = json_loads(PQgetvalue(res, 0, 1), 0, NULL);
        if (!items)
                items = json_array();
        last = json_array_get(items, json_array_size(items) - 1);
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o, s:o}", "items", items, "next",
                                                   last ? json_deep_copy(json_object_get(last, "seq")) : json_null()));
}

void handle_match_log(struct api_request *req) {
        char id_s[NUM_MAX], limit_s[NUM_MAX], after_s[NUM_MAX];
        long long id, limit, after;
        struct store *store = api_read_store(req);
        int r;

        if (!id_param(req, "id", &id) || !page_params(req, &limit, &after) || !runtime(req))
                return;
        snprintf(id_s, sizeof id_s, "%lld", id);
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        r = match_store_log(store, id_s, limit_s, after_s, on_log, req);
        if (r < 0)
                api_match_store_failed(req, r);
}
