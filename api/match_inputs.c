/* api/match_inputs.c — the inputs to a live match over REST: start,
 * pause, resume, abort and POST /v1/matches/{id}/inputs.
 *
 * validate → apply → store → publish → reply (DESIGN.md section 8): a
 * request that changes a match is answered only once its input is stored.
 */
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
/* The runtime, or a 503 when this daemon runs without one. */
static struct matches *runtime(struct api_request *req) {
        if (!req->deps->matches)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return req->deps->matches;
}

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
                api_match_reply(m->reg, req, m->id, MHD_HTTP_OK);
}

static void on_abort_done(void *userdata, struct match *m, const char *error) {
        struct api_request *req = userdata;

        if (error)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the abort could not be stored: %s", error);
        else
                api_match_reply(m->reg, req, m->id, MHD_HTTP_OK);
}

static void control(struct api_request *req, const char *action) {
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        struct match *m;
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !runtime(req) || !(m = api_match_live(req->deps->matches, req, id)))
                return;
        if (strcmp(action, "abort") == 0) {
                r = match_abort(m, req->token_name, on_abort_done, req);
                if (r == -EALREADY)
                        api_reply_problem(req, MHD_HTTP_CONFLICT, "match %lld is %s; only a match that has "
                                          "not finished can be aborted", id, match_state_name(m));
                else if (r < 0)
                        api_match_store_failed(req, r);
                return;
        }
        in.kind = strcmp(action, "start") == 0 ? ENG_IN_START : strcmp(action, "pause") == 0 ? ENG_IN_PAUSE : ENG_IN_RESUME;
        r = match_submit(m, &in, MATCH_SOURCE_REFEREE, req->token_name, on_control_done, req);
        if (r < 0)
                api_match_store_failed(req, r);
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

void handle_match_input(struct api_request *req) {
        const char *kind = json_string_value(json_object_get(req->body, "kind"));
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        struct match *m;
        long long id;
        json_t *it;
        size_t i;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"seat\": 2, \"kind\": \"call\", \"call\": 3}");
                return;
        }
        if (!runtime(req) || !(m = api_match_live(req->deps->matches, req, id)))
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
                api_match_store_failed(req, r);
}

void handle_match_start(struct api_request *req) { control(req, "start"); }
void handle_match_pause(struct api_request *req) { control(req, "pause"); }
void handle_match_resume(struct api_request *req) { control(req, "resume"); }
void handle_match_abort(struct api_request *req) { control(req, "abort"); }
