/* daemon/match_api.c — the REST side of the match runtime: struct
 * api_match_ops for api/matches.c.
 *
 * validate → apply → store → publish → reply (DESIGN.md section 8): a
 * request that changes a match is answered only once its input is stored.
 * Reads of a match come from the database row, with the live engine's view
 * and provisional result added while the match is live.
 *
 * Seats in request bodies and paths are 1-based.  A seat the match does
 * not have is 404 (the seat is a resource of the match, as on
 * /seats/{n}), with a problem naming "seat".
 */
#include "daemon/match_api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <microhttpd.h>

#include "api/api.h"
#include "api/problem.h"
#include "daemon/match_json.h"
#include "daemon/match_store.h"
#include "daemon/matches.h"

#define NUM_MAX                 24
/* Calls are small game-defined numbers; names are looked up among these. */
#define CALL_SEARCH_MAX         64

/* What to do about each refusal, for the 409's detail. */
static const char *refusal_text(enum eng_refusal r) {
        switch (r) {
        case ENG_REFUSED_STATE:       return "the match is not in a state that allows it (not started, already started, paused, …)";
        case ENG_REFUSED_TOO_LATE:    return "it answers a card whose window has closed";
        case ENG_REFUSED_NOT_ALLOWED: return "this seat may not act now (out, or not in the tiebreak)";
        case ENG_REFUSED_INVALID:     return "the engine finds it malformed (no such call, op or seat, or a press time outside the open window)";
        case ENG_REFUSED_FINISHED:    return "the match is over";
        case ENG_REFUSED_NOT_DUE:     return "nothing is due yet";
        case ENG_REFUSED_UNSUPPORTED: return "this game has no use for this kind of input";
        default:                      return "the engine refused it";
        }
}

static void reply_store_failed(struct api_request *req, int r) {
        if (r == -ENOTCONN)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE,
                                  "the database is not reachable right now, and inputs are stored before they "
                                  "count; see /v1/health and try again shortly");
        else
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the match could not take it: %s",
                                  strerror(-r));
}

/* The stored row, plus the live engine's view while the match is live. */
static json_t *resource(struct matches *reg, json_t *row) {
        json_t *j = json_deep_copy(row);
        struct match *m = matches_find(reg, json_integer_value(json_object_get(row, "id")));
        struct eng_result res;

        if (!j)
                return NULL;
        if (m && !m->stale) {
                json_object_set_new(j, "state", json_string(match_state_name(m)));
                json_object_set_new(j, "view", match_json_view(m->game, m->state, ENG_VIEW_PUBLIC, -1));
                json_object_set_new(j, "ignored_presses", json_integer((json_int_t) m->ignored_presses));
                if (!m->aborted && m->game->result(m->state, &res) == 0)
                        json_object_set_new(j, "result", match_json_result(m->game, &res));
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

static void on_row(void *userdata, const PGresult *res, const char *error) {
        struct get_ctx *c = userdata;
        json_t *row;

        if (!res)
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the match failed: %s", error);
        else if (PQntuples(res) == 0)
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "there is no match %s", route_param(&c->req->match, "id"));
        else if (!(row = json_loads(PQgetvalue(res, 0, 0), 0, NULL)))
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the database returned a match that is not JSON");
        else {
                api_reply_json(c->req, c->status, resource(c->reg, row));
                json_decref(row);
        }
        free(c);
}

/* Replies with the stored match (404 when there is none). */
static void reply_match(struct matches *reg, struct api_request *req, int64_t id, unsigned status) {
        struct get_ctx *c = calloc(1, sizeof *c);
        char id_s[NUM_MAX];
        int r;

        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct get_ctx) { .reg = reg, .req = req, .status = status };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = match_store_get(matches_store(reg), id_s, on_row, c);
        if (r < 0) {
                free(c);
                reply_store_failed(req, r);
        }
}

/* A match that is not live: 404 when unknown, 409 saying why it takes no
 * more inputs otherwise. */
static void on_not_live(void *userdata, const PGresult *res, const char *error) {
        struct get_ctx *c = userdata;
        json_t *row;

        if (!res)
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the match failed: %s", error);
        else if (PQntuples(res) == 0)
                api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "there is no match %s", route_param(&c->req->match, "id"));
        else if ((row = json_loads(PQgetvalue(res, 0, 0), 0, NULL))) {
                const char *why = json_string_value(json_object_get(row, "needs_referee"));
                if (why)
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
static struct match *live_match(struct matches *reg, struct api_request *req, int64_t id) {
        struct match *m = matches_find(reg, id);
        char id_s[NUM_MAX];
        struct get_ctx *c;
        int r;

        if (m && !m->stale && !m->aborted)
                return m;
        if (m && m->stale) {
                reply_store_failed(req, -ENOTCONN);
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
        r = match_store_get(matches_store(reg), id_s, on_not_live, c);
        if (r < 0) {
                free(c);
                reply_store_failed(req, r);
        }
        return NULL;
}

/* ---- games ------------------------------------------------------------- */

static void games_list(void *userdata, struct api_request *req) {
        json_t *items = json_array();

        (void) userdata;
        for (size_t i = 0; eng_games[i]; i++)
                json_array_append_new(items, match_json_game(eng_games[i]));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

static void game_get(void *userdata, struct api_request *req, const char *name) {
        const struct eng_game *g = eng_game_find(name);

        (void) userdata;
        if (!g) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no game \"%.64s\"; GET /v1/games lists them", name);
                return;
        }
        api_reply_json(req, MHD_HTTP_OK, match_json_game(g));
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
                json_t *j = resource(m->reg, stored);
                c->done(c->userdata, j);
                json_decref(j);
        } else {
                api_reply_json(req, MHD_HTTP_CREATED, resource(m->reg, stored));
        }
        json_decref(c->spec);
        free(c);
}

/* Creates the match spec describes; every problem is replied to req. */
static int create_from(struct matches *reg, struct api_request *req, json_t *spec, api_match_created_fn done,
                       void *userdata) {
        json_t *game = json_object_get(spec, "game"), *table = json_object_get(spec, "table"),
               *seed = json_object_get(spec, "seed"), *seats;
        const struct eng_game *g = eng_game_find(json_string_value(game));
        struct create_ctx *c;
        struct eng_config cfg;
        struct eng_error err;
        uint64_t seed_v;
        int r;

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
        seats = parse_seats(req, spec, g);
        if (!seats)
                return -EINVAL;
        if (match_json_config_from(g, json_object_get(spec, "config"), (unsigned) json_array_size(seats),
                                   &cfg, &err) < 0) {
                json_t *p = problem_new(MHD_HTTP_BAD_REQUEST, "%s", err.message);
                problem_set(p, "field", json_string(err.field));
                api_reply_problem_json(req, p);
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
        r = matches_create(reg, g, &cfg, (unsigned) json_array_size(seats), seed_v, seats,
                           json_is_integer(table) ? json_integer_value(table) : 0, req->token_name, on_created, c);
        json_decref(seats);
        if (r < 0) {
                json_decref(c->spec);
                free(c);
                reply_store_failed(req, r);
        }
        return r;
}

static void create(void *userdata, struct api_request *req) {
        create_from(userdata, req, req->body, NULL, NULL);
}

static int create_for(void *userdata, struct api_request *req, json_t *spec, api_match_created_fn done,
                      void *done_userdata) {
        return create_from(userdata, req, spec, done, done_userdata);
}

static int check_config(void *userdata, const char *game, json_t *config, char *err, size_t len) {
        const struct eng_game *g = eng_game_find(game);
        struct eng_config cfg;
        struct eng_error e;

        (void) userdata;
        if (!g) {
                snprintf(err, len, "game: there is no such game; GET /v1/games lists the games");
                return -EINVAL;
        }
        if (match_json_config_from(g, config, g->min_seats, &cfg, &e) < 0) {
                snprintf(err, len, "match_config.%s", e.message);
                return -EINVAL;
        }
        return 0;
}

/* ---- reads ------------------------------------------------------------- */

static void on_list(void *userdata, const PGresult *res, const char *error) {
        struct get_ctx *c = userdata;
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
                        json_array_append_new(items, resource(c->reg, row));
                        json_decref(row);
                }
        }
        api_reply_json(c->req, MHD_HTTP_OK, json_pack("{s:o, s:o}", "items", items, "next",
                                                      last ? json_integer(last) : json_null()));
        free(c);
}

static void list(void *userdata, struct api_request *req, const char *state, long long limit, long long after) {
        struct get_ctx *c = calloc(1, sizeof *c);
        char limit_s[NUM_MAX], after_s[NUM_MAX];
        int r;

        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct get_ctx) { .reg = userdata, .req = req };
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        r = match_store_list(matches_store(c->reg), state, limit_s, after_s, on_list, c);
        if (r < 0) {
                free(c);
                reply_store_failed(req, r);
        }
}

static void get(void *userdata, struct api_request *req, int64_t id) {
        reply_match(userdata, req, id, MHD_HTTP_OK);
}

/* A match's events go on "match/<id>" (matches.c publish). */
static void stream_of(struct api_request *req, int64_t id) {
        char topic[MATCH_TOPIC_MAX];

        snprintf(topic, sizeof topic, "match/%" PRId64, id);
        api_events_stream(req, topic);
}

static void on_events_row(void *userdata, const PGresult *res, const char *error) {
        struct get_ctx *c = userdata;

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
static void events(void *userdata, struct api_request *req, int64_t id) {
        struct matches *reg = userdata;
        char id_s[NUM_MAX];
        struct get_ctx *c;
        int r;

        if (matches_find(reg, id)) {
                stream_of(req, id);
                return;
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct get_ctx) { .reg = reg, .req = req, .id = id };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = match_store_get(matches_store(reg), id_s, on_events_row, c);
        if (r < 0) {
                free(c);
                reply_store_failed(req, r);
        }
}

static void seat_view(void *userdata, struct api_request *req, int64_t id, long long seat) {
        struct match *m = live_match(userdata, req, id);

        if (!m)
                return;
        if (seat > m->n_seats) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: match %" PRId64 " has seats 1 to %u", id, m->n_seats);
                return;
        }
        json_t *v = match_json_view(m->game, m->state, ENG_VIEW_SEAT, (int) seat - 1);
        if (!v)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the engine could not show seat %lld", seat);
        else
                api_reply_json(req, MHD_HTTP_OK, v);
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

static void log_page(void *userdata, struct api_request *req, int64_t id, long long limit, long long after) {
        struct matches *reg = userdata;
        char id_s[NUM_MAX], limit_s[NUM_MAX], after_s[NUM_MAX];
        int r;

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        r = match_store_log(matches_store(reg), id_s, limit_s, after_s, on_log, req);
        if (r < 0)
                reply_store_failed(req, r);
}

/* ---- inputs ------------------------------------------------------------ */

static json_t *refusal_problem(const struct eng_input *in, enum eng_refusal refusal) {
        json_t *p = problem_new(MHD_HTTP_CONFLICT, "refused (%s): %s; the input is logged as seq %" PRIu64,
                                eng_refusal_name(refusal), refusal_text(refusal), in->seq);
        problem_set(p, "refusal", json_string(eng_refusal_name(refusal)));
        problem_set(p, "seq", json_integer((json_int_t) in->seq));
        return p;
}

static void on_control_done(void *userdata, struct match *m, int r, const struct eng_input *in,
                            const struct eng_out *out, const char *error) {
        struct api_request *req = userdata;

        if (r < 0)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the input could not be stored: %s", error);
        else if (out->refusal != ENG_ACCEPTED)
                api_reply_problem_json(req, refusal_problem(in, out->refusal));
        else
                reply_match(m->reg, req, m->id, MHD_HTTP_OK);
}

static void on_abort_done(void *userdata, struct match *m, const char *error) {
        struct api_request *req = userdata;

        if (error)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the abort could not be stored: %s", error);
        else
                reply_match(m->reg, req, m->id, MHD_HTTP_OK);
}

static void control(void *userdata, struct api_request *req, int64_t id, const char *action) {
        struct matches *reg = userdata;
        struct match *m = live_match(reg, req, id);
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        int r;

        if (!m)
                return;
        if (strcmp(action, "abort") == 0) {
                r = match_abort(m, req->token_name, on_abort_done, req);
                if (r == -EALREADY)
                        api_reply_problem(req, MHD_HTTP_CONFLICT, "match %" PRId64 " is %s; only a match that has "
                                          "not finished can be aborted", id, match_state_name(m));
                else if (r < 0)
                        reply_store_failed(req, r);
                return;
        }
        in.kind = strcmp(action, "start") == 0 ? ENG_IN_START : strcmp(action, "pause") == 0 ? ENG_IN_PAUSE : ENG_IN_RESUME;
        r = match_submit(m, &in, MATCH_SOURCE_REFEREE, req->token_name, on_control_done, req);
        if (r < 0)
                reply_store_failed(req, r);
}

static void on_input_done(void *userdata, struct match *m, int r, const struct eng_input *in,
                          const struct eng_out *out, const char *error) {
        struct api_request *req = userdata;
        json_t *events;

        if (r < 0) {
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the input could not be stored: %s", error);
                return;
        }
        if (out->refusal != ENG_ACCEPTED) {
                api_reply_problem_json(req, refusal_problem(in, out->refusal));
                return;
        }
        events = json_array();
        for (size_t i = 0; i < out->n; i++)
                if (out->v[i].kind < ENG_REQ_WINDOW_OPEN)
                        json_array_append_new(events, match_json_output(m->game, &out->v[i], NULL));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:I, s:s, s:o, s:o}", "seq", (json_int_t) in->seq,
                                                   "state", match_state_name(m), "events", events,
                                                   "view", match_json_view(m->game, m->state, ENG_VIEW_PUBLIC, -1)));
}

/* A seat of this match from its 1-based JSON number; replies 404 naming
 * "seat" when the match has no such seat, 400 when it is not a number. */
static bool seat_of(struct api_request *req, const struct match *m, json_t *j, const char *field, int *ret) {
        if (!json_is_integer(j)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s: must be a seat number 1 to %u", field, m->n_seats);
                return false;
        }
        if (json_integer_value(j) < 1 || json_integer_value(j) > m->n_seats) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "%s: match %" PRId64 " has no seat %lld; its seats are 1 to %u",
                                  field, m->id, (long long) json_integer_value(j), m->n_seats);
                return false;
        }
        *ret = (int) json_integer_value(j) - 1;
        return true;
}

static bool press_of(struct api_request *req, const struct match *m, int64_t *ret) {
        json_t *p = json_object_get(req->body, "press_us");

        if (!p || json_is_null(p)) {
                *ret = match_now(m);
                return true;
        }
        if (!json_is_integer(p)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "press_us: must be a match time in µs");
                return false;
        }
        *ret = json_integer_value(p);
        return true;
}

static bool call_of(struct api_request *req, const struct match *m, int *ret) {
        json_t *c = json_object_get(req->body, "call");

        if (json_is_integer(c) && json_integer_value(c) >= 0 && json_integer_value(c) < CALL_SEARCH_MAX) {
                *ret = (int) json_integer_value(c);
                return true;
        }
        for (int i = 0; json_is_string(c) && i < CALL_SEARCH_MAX; i++) {
                const char *name = m->game->call_name(i);
                if (name && strcmp(name, json_string_value(c)) == 0) {
                        *ret = i;
                        return true;
                }
        }
        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "call: must be a call number or name, as in GET /v1/games/%s",
                          m->game->name);
        return false;
}

static void input(void *userdata, struct api_request *req, int64_t id) {
        struct match *m = live_match(userdata, req, id);
        const char *kind = json_string_value(json_object_get(req->body, "kind"));
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        json_t *it;
        size_t i;
        int r;

        if (!m)
                return;
        if (kind && strcmp(kind, "call") == 0) {
                in.kind = ENG_IN_CALL;
                in.call.window = m->window;
                if (!seat_of(req, m, json_object_get(req->body, "seat"), "seat", &in.seat) ||
                    !call_of(req, m, &in.call.call) || !press_of(req, m, &in.call.press_us))
                        return;
        } else if (kind && strcmp(kind, "tie") == 0) {
                json_t *seats = json_object_get(req->body, "seats");
                in.kind = ENG_IN_TIE;
                in.tie.window = m->window;
                if (!json_is_array(seats) || json_array_size(seats) < 2) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats: must list the tied seats, at least two");
                        return;
                }
                json_array_foreach(seats, i, it) {
                        int s;
                        if (!seat_of(req, m, it, "seats", &s))
                                return;
                        in.tie.seats |= 1u << s;
                }
                if (!press_of(req, m, &in.tie.press_us))
                        return;
        } else if (kind && strcmp(kind, "referee") == 0) {
                json_t *op = json_object_get(req->body, "op"), *args = json_object_get(req->body, "args");
                in.kind = ENG_IN_REFEREE;
                if (!json_is_integer(op) || json_integer_value(op) < 0) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "op: must be the game's operation number");
                        return;
                }
                in.referee.op = (unsigned) json_integer_value(op);
                if (args && (!json_is_array(args) || json_array_size(args) > ENG_REFEREE_ARGS)) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "args: must be a list of at most %d whole numbers",
                                          ENG_REFEREE_ARGS);
                        return;
                }
                json_array_foreach(args, i, it) {
                        if (!json_is_integer(it)) {
                                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "args[%zu]: must be a whole number", i);
                                return;
                        }
                        in.referee.arg[i] = json_integer_value(it);
                }
        } else {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "kind: must be \"call\", \"tie\" or \"referee\"");
                return;
        }
        r = match_submit(m, &in, MATCH_SOURCE_REFEREE, req->token_name, on_input_done, req);
        if (r < 0)
                reply_store_failed(req, r);
}

static const struct api_match_ops ops = {
        .games_list = games_list,
        .game_get = game_get,
        .create = create,
        .list = list,
        .get = get,
        .seat_view = seat_view,
        .log = log_page,
        .control = control,
        .input = input,
        .events = events,
        .create_for = create_for,
        .check_config = check_config,
};

const struct api_match_ops *match_api_ops(void) {
        return &ops;
}
