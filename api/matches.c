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

#include "api/handlers.h"
#include "api/problem.h"
#include "match/json.h"
#include "match/match.h"
#include "store/matches.h"

#define NUM_MAX                 24

#define MATCH_SEAT_MAX  8               /* engine/engine.h ENG_MAX_SEATS */

static const char *const match_states[] = { "ready", "running", "paused", "provisional", "finished", "aborted" };

/* The runtime, or a 503 when this daemon runs without one. */
static struct matches *runtime(struct api_request *req) {
        if (!req->deps->matches)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return req->deps->matches;
}

/* ---- creation ---------------------------------------------------------- */

/* The seats [{seat, name}] from "players" or "seats", numbered 1..n.
 * Replies 400 and returns NULL on a mistake. */
static json_t *parse_seats(struct api_request *req, json_t *spec, const struct eng_game *g) {
        json_t *players = json_object_get(spec, "players"), *seats = json_object_get(spec, "seats");
        json_t *out, *it;
        size_t i, n;
        uint32_t seen = 0;

        if ((players != NULL) == (seats != NULL)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "players: give either \"players\": [\"Ana\", \"Ben\"] or \"seats\": [{\"seat\": 1, \"name\": \"Ana\"}]");
                return NULL;
        }
        json_t *list = players ? players : seats;
        const char *field = players ? "players" : "seats";
        n = json_array_size(list);
        if (!json_is_array(list) || n < g->min_seats || n > g->max_seats) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s: %s seats %u to %u players; give a list of that many",
                                  field, g->display_name, g->min_seats, g->max_seats);
                return NULL;
        }
        out = json_array();
        for (i = 0; i < n; i++)
                json_array_append_new(out, json_null());
        json_array_foreach(list, i, it) {
                json_t *name = players ? it : json_object_get(it, "name");
                json_int_t seat = players ? (json_int_t) i + 1 : json_integer_value(json_object_get(it, "seat"));
                const char *problem = api_name_problem(json_string_value(name));

                if (!players && (!json_is_integer(json_object_get(it, "seat")) || seat < 1 || seat > (json_int_t) n ||
                                 (seen & (1u << seat)))) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                          "seats[%zu].seat: must be 1 to %zu, each seat once", i, n);
                        json_decref(out);
                        return NULL;
                }
                seen |= 1u << seat;
                if (problem) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s[%zu]%s: %s", field, i,
                                          players ? "" : ".name", problem);
                        json_decref(out);
                        return NULL;
                }
                json_array_set_new(out, (size_t) seat - 1, json_pack("{s:I, s:O}", "seat", seat, "name", name));
        }
        return out;
}

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

        if (!m) {
                if (error && strstr(error, "matches_table_id_fkey"))
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "table: there is no table with id %lld",
                                          (long long) json_integer_value(json_object_get(c->spec, "table")));
                else
                        api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "storing the match failed: %s", error);
                if (c->done)
                        c->done(c->userdata, NULL);
        } else if (c->done) {
                json_t *j = api_match_resource(m->reg, stored);
                c->done(c->userdata, j);
                json_decref(j);
        } else {
                api_reply_json(req, MHD_HTTP_CREATED, api_match_resource(m->reg, stored));
        }
        json_decref(c->spec);
        free(c);
}

/* A problem naming err's field, as 400. */
static void reply_field_problem(struct api_request *req, const struct eng_error *err) {
        json_t *p = problem_new(MHD_HTTP_BAD_REQUEST, "%s", err->message);

        problem_set(p, "field", json_string(err->field));
        api_reply_problem_json(req, p);
}

/* "confirm": "auto" (the default: a finished match's result flows on), or
 * "referee", or {"by": "referee", "timeout_s": n} (confirmed by the runtime
 * after n seconds if no referee has).  0 with the values, or -EINVAL with a
 * message naming the member in err. */
int api_match_confirm_from(json_t *v, bool *ret_confirm, int64_t *ret_timeout_s, char *err, size_t len) {
        json_t *by = json_is_object(v) ? json_object_get(v, "by") : v, *timeout = json_object_get(v, "timeout_s");
        const char *key;
        json_t *m;

        *ret_confirm = false;
        *ret_timeout_s = 0;
        if (!v || json_is_null(v))
                return 0;
        if (json_is_object(v))
                json_object_foreach(v, key, m)
                        if (strcmp(key, "by") != 0 && strcmp(key, "timeout_s") != 0) {
                                snprintf(err, len, "confirm.%.32s: no such member (by, timeout_s)", key);
                                return -EINVAL;
                        }
        if (!json_is_string(by) || (strcmp(json_string_value(by), "auto") != 0 &&
                                    strcmp(json_string_value(by), "referee") != 0)) {
                snprintf(err, len, "confirm: must be \"auto\", \"referee\" or {\"by\": \"referee\", \"timeout_s\": 600}");
                return -EINVAL;
        }
        *ret_confirm = strcmp(json_string_value(by), "referee") == 0;
        if (timeout && !json_is_null(timeout)) {
                if (!*ret_confirm || !json_is_integer(timeout) || json_integer_value(timeout) < 1 ||
                    json_integer_value(timeout) > MATCH_CONFIRM_TIMEOUT_MAX_S) {
                        snprintf(err, len, "confirm.timeout_s: must be 1 to %d seconds, with \"by\": \"referee\"",
                                 MATCH_CONFIRM_TIMEOUT_MAX_S);
                        return -EINVAL;
                }
                *ret_timeout_s = json_integer_value(timeout);
        }
        return 0;
}

/* Creates the match spec describes; every problem is replied to req. */
static int create_from(struct matches *reg, struct api_request *req, json_t *spec, api_match_created_fn done,
                       void *userdata) {
        static const char *const members[] = { "game", "table", "players", "seats", "seed", "config", "data",
                                               "confirm", NULL };
        json_t *game = json_object_get(spec, "game"), *table = json_object_get(spec, "table"),
               *seed = json_object_get(spec, "seed"), *seats, *v;
        const struct eng_game *g = eng_game_find(json_string_value(game));
        struct match_spec ms = { .game = g };
        struct create_ctx *c;
        struct eng_config cfg;
        struct eng_data data;
        struct eng_error err;
        uint64_t seed_v;
        const char *key;
        int r;

        json_object_foreach(spec, key, v) {
                size_t i;

                for (i = 0; members[i] && strcmp(members[i], key) != 0; i++)
                        ;
                if (!members[i]) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%.32s: no such member of a match (game, "
                                          "table, players or seats, seed, config, data, confirm)", key);
                        return -EINVAL;
                }
        }
        if (!g) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "game: %s; GET /v1/games lists the games",
                                  json_is_string(game) ? "there is no such game" : "must name a game, e.g. \"crash-pilot\"");
                return -EINVAL;
        }
        if (table && !json_is_null(table) && (!json_is_integer(table) || json_integer_value(table) < 1)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "table: must be a table id, as in GET /v1/tables");
                return -EINVAL;
        }
        if (seed && !json_is_null(seed) && (!json_is_integer(seed) || json_integer_value(seed) < 0)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seed: must be a whole number 0 to 2^63 - 1");
                return -EINVAL;
        }
        char why[ENG_ERROR_MAX];
        if (api_match_confirm_from(json_object_get(spec, "confirm"), &ms.confirm, &ms.confirm_timeout_s, why,
                                   sizeof why) < 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s", why);
                return -EINVAL;
        }
        if (match_json_data_from(g, json_object_get(spec, "data"), &data, &err) < 0) {
                reply_field_problem(req, &err);
                return -EINVAL;
        }
        seats = parse_seats(req, spec, g);
        if (!seats)
                return -EINVAL;
        if (match_json_config_from(g, json_object_get(spec, "config"), &data, (unsigned) json_array_size(seats),
                                   &cfg, &err) < 0) {
                reply_field_problem(req, &err);
                json_decref(seats);
                return -EINVAL;
        }
        if (json_is_integer(seed)) {
                seed_v = (uint64_t) json_integer_value(seed);
        } else if (getrandom(&seed_v, sizeof seed_v, 0) != (ssize_t) sizeof seed_v) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "no random seed: %s", strerror(errno));
                json_decref(seats);
                return -EIO;
        } else {
                seed_v &= (uint64_t) INT64_MAX;         /* matches.seed is a bigint */
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                json_decref(seats);
                return -ENOMEM;
        }
        *c = (struct create_ctx) { .req = req, .spec = json_incref(spec), .done = done, .userdata = userdata };
        ms.cfg = &cfg;
        ms.data = &data;
        ms.n_seats = (unsigned) json_array_size(seats);
        ms.seed = seed_v;
        ms.seats = seats;
        ms.table_id = json_is_integer(table) ? json_integer_value(table) : 0;
        r = matches_create(reg, &ms, req->token_name, on_created, c);
        json_decref(seats);
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

int api_match_check_config(const char *game, json_t *config, char *err, size_t len) {
        const struct eng_game *g = eng_game_find(game);
        struct eng_config cfg;
        struct eng_error e;

        if (!g) {
                snprintf(err, len, "game: there is no such game; GET /v1/games lists the games");
                return -EINVAL;
        }
        if (match_json_config_from(g, config, NULL, g->min_seats, &cfg, &e) < 0) {
                snprintf(err, len, "match_config.%s", e.message);
                return -EINVAL;
        }
        return 0;
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
        const char *state = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "state"),
                   *order = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "order");
        char limit_s[NUM_MAX], after_s[NUM_MAX];
        long long limit, after;
        bool known = !state;
        struct read_ctx *c;
        int r;

        if (!page_params(req, &limit, &after))
                return;
        for (size_t i = 0; state && i < sizeof match_states / sizeof match_states[0]; i++)
                known |= strcmp(state, match_states[i]) == 0;
        if (!known) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "state: must be ready, running, paused, provisional, finished or aborted");
                return;
        }
        if (order && strcmp(order, "asc") != 0 && strcmp(order, "desc") != 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "order: must be asc (oldest first, the default) or "
                                  "desc (newest first)");
                return;
        }
        if (!runtime(req) || !(c = read_ctx_new(req, 0)))
                return;
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        r = match_store_list(c->req->deps->store, state, limit_s, after_s, order && strcmp(order, "desc") == 0,
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
        api_match_reply(req->deps->matches, req, id, MHD_HTTP_OK);
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

static void on_seat_token(void *userdata, const char *token, json_t *resource, const char *error) {
        struct token_ctx *c = userdata;
        struct api_request *req = c->req;
        struct auth_entry e = { .role = AUTH_ROLE_SEAT, .match_id = c->match, .seat = c->seat };
        char path[MATCH_TOPIC_MAX * 2];

        free(c);
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
        int r;

        if (!id_param(req, "id", &id) || !page_params(req, &limit, &after) || !runtime(req))
                return;
        snprintf(id_s, sizeof id_s, "%lld", id);
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        r = match_store_log(req->deps->store, id_s, limit_s, after_s, on_log, req);
        if (r < 0)
                api_match_store_failed(req, r);
}
