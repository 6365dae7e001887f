/* api/match_inputs.c — the inputs to a live match over REST: start,
 * pause, resume, abort, POST /v1/matches/{id}/inputs and its preview.
 *
 * validate → authorize → apply → store → publish → reply: a request that
 * changes a match is answered only once its input is stored.  An input is
 * named by its kind (the game's vocabulary, GET /v1/games/{game}) and its
 * fields are checked against the game's table: 400 names the field.  Who
 * may send it is the input's own rule (engine.h, ENG_FROM_*): a referee
 * token sends the referee's inputs, a seat token (POST
 * /v1/matches/{id}/seats/{n}/token) its own seat's, for its match only.
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
#include "match/json.h"
#include "match/match.h"

/* A referee's reason for an input (a void), stored with it. */
#define REASON_MAX              MATCH_REASON_MAX

/* The runtime, or a 503 when this daemon runs without one. */
static struct matches *runtime(struct api_request *req) {
        if (!req->deps->matches)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return req->deps->matches;
}

/* What to do about each refusal, for the 409's detail. */
static const char *refusal_text(enum eng_refusal r) {
        switch (r) {
        case ENG_REFUSED_STATE:       return "the match is not in a state that allows it (not started, already started, paused, provisional, nothing to confirm, …)";
        case ENG_REFUSED_TOO_LATE:    return "it answers a card whose window has closed";
        case ENG_REFUSED_NOT_ALLOWED: return "this seat may not act now";
        case ENG_REFUSED_INVALID:     return "the engine finds it malformed (no such call, card, seat or input to void, or a press time outside the open window)";
        case ENG_REFUSED_FINISHED:    return "the match is over, or its result is final";
        case ENG_REFUSED_NOT_DUE:     return "nothing is due yet";
        case ENG_REFUSED_UNSUPPORTED: return "this game has no use for this kind of input";
        default:                      return "the engine refused it";
        }
}

/* The 409 of a refused input: the engine's own words when it gave them
 * ("ship: is not on the board"), else the refusal's. */
static json_t *refusal_problem(const struct eng_input *in, const struct eng_out *out, bool preview) {
        enum eng_refusal refusal = out->refusal;
        char why[256];
        json_t *p;

        if (out->refusal_why)
                snprintf(why, sizeof why, "%s%s%s", out->refusal_field ? out->refusal_field : "",
                         out->refusal_field ? ": " : "", out->refusal_why);
        else
                snprintf(why, sizeof why, "%s", refusal_text(refusal));
        p = preview ? problem_new(MHD_HTTP_CONFLICT, "it would be refused (%s): %s; nothing was stored",
                                  eng_refusal_name(refusal), why)
                    : problem_new(MHD_HTTP_CONFLICT, "refused (%s): %s; the input is logged as seq %" PRIu64,
                                  eng_refusal_name(refusal), why, in->seq);
        problem_set(p, "refusal", json_string(eng_refusal_name(refusal)));
        problem_set(p, "seq", json_integer((json_int_t) in->seq));
        if (out->refusal_field)
                problem_set(p, "field", json_string(out->refusal_field));
        return p;
}

/* Who reads what a request gets back: its token's audience. */
static struct match_reader reader_of(const struct api_request *req) {
        if (req->role == AUTH_ROLE_SEAT)
                return (struct match_reader) { .audience = ENG_VIEW_SEAT, .seat = req->token_seat - 1 };
        return match_referee;
}

static json_t *view_for(const struct match *m, const void *state, const struct match_reader *reader) {
        return match_json_view(m->game, state, reader->audience, reader->seat);
}

/* ---- start, pause, resume, abort ---------------------------------------- */

static void on_control_done(void *userdata, struct match *m, int r, const struct eng_input *in,
                            const struct eng_out *out, const char *error) {
        struct api_request *req = userdata;

        if (r < 0)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the input could not be stored: %s", error);
        else if (out->refusal != ENG_ACCEPTED)
                api_reply_problem_json(req, refusal_problem(in, out, false));
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

static void control(struct api_request *req, enum eng_input_kind kind) {
        struct eng_input in = { .seat = ENG_SEAT_TABLE, .kind = kind };
        struct match *m;
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !runtime(req) || !(m = api_match_live(req->deps->matches, req, id)))
                return;
        r = match_submit(m, &in, MATCH_SOURCE_REFEREE, req->token_name, NULL, on_control_done, req);
        if (r < 0)
                api_match_store_failed(req, r);
}

void handle_match_start(struct api_request *req) { control(req, ENG_IN_START); }
void handle_match_pause(struct api_request *req) { control(req, ENG_IN_PAUSE); }
void handle_match_resume(struct api_request *req) { control(req, ENG_IN_RESUME); }

void handle_match_abort(struct api_request *req) {
        struct match *m;
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !runtime(req) || !(m = api_match_live(req->deps->matches, req, id)))
                return;
        r = match_abort(m, req->token_name, on_abort_done, req);
        if (r == -EALREADY)
                api_reply_problem(req, MHD_HTTP_CONFLICT, "match %lld is %s; only a match whose result is not final "
                                  "can be aborted", id, match_state_name(m));
        else if (r < 0)
                api_match_store_failed(req, r);
}

/* ---- inputs ---------------------------------------------------------------- */

/* The inputs an accepted void voided, as the log shows them, for re-entry. */
static json_t *voided_json(const struct match *m, uint64_t seq) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < m->n_log; i++)
                if (m->log[i].voided_by == seq)
                        json_array_append_new(a, match_json_input_to(m->game, &m->log[i].in));
        return a;
}

struct input_ctx {
        struct api_request *req;
        struct match_reader reader;
};

static void on_input_done(void *userdata, struct match *m, int r, const struct eng_input *in,
                          const struct eng_out *out, const char *error) {
        struct input_ctx *c = userdata;
        struct api_request *req = c->req;
        json_t *body;

        if (r < 0) {
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "the input could not be stored: %s", error);
        } else if (out->refusal != ENG_ACCEPTED) {
                api_reply_problem_json(req, refusal_problem(in, out, false));
        } else {
                body = json_pack("{s:I, s:s, s:o, s:o}", "seq", (json_int_t) in->seq, "state", match_state_name(m),
                                 "events", match_json_outputs(m->game, m->state, out, &c->reader),
                                 "view", view_for(m, m->state, &c->reader));
                if (body && c->reader.audience == ENG_VIEW_REFEREE)
                        json_object_set_new(body, "explanation", match_json_explain(m->game, m->state, out));
                if (body && in->kind == ENG_IN_VOID)
                        json_object_set_new(body, "voided", voided_json(m, in->seq));
                api_reply_json(req, MHD_HTTP_OK, body);
        }
        free(c);
}

/* Parses and authorizes the request's input for m (api/bodies.h): 0 with
 * *ret, or -EINVAL after replying. */
static int input_of(struct api_request *req, struct match *m, struct eng_input *ret, char reason[static REASON_MAX]) {
        const struct body_input_ctx c = {
                .game = m->game, .n_seats = m->n_seats, .match_id = m->id,
                .role = req->role, .token_seat = req->token_seat, .token_name = req->token_name,
        };
        json_t *problem;

        if (body_input(&c, req->body, ret, reason, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return -EINVAL;
        }
        return 0;
}

/* The live match of the request, checked for the token: a seat token only
 * for its own match, a referee's for any.  NULL after replying. */
static struct match *match_for_input(struct api_request *req) {
        long long id;

        if (!id_param(req, "id", &id))
                return NULL;
        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"kind\": \"call\", \"seat\": 2, \"call\": \"row 3\"}; "
                                  "GET /v1/games/{game} lists the inputs");
                return NULL;
        }
        if (!api_match_may_act(req, id))
                return NULL;
        if (!runtime(req))
                return NULL;
        return api_match_live(req->deps->matches, req, id);
}

void handle_match_input(struct api_request *req) {
        char reason[REASON_MAX];
        struct input_ctx *c;
        struct eng_input in;
        struct match *m;
        int r;

        if (!(m = match_for_input(req)) || input_of(req, m, &in, reason) < 0)
                return;
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct input_ctx) { .req = req, .reader = reader_of(req) };
        r = match_submit(m, &in, req->role == AUTH_ROLE_SEAT ? MATCH_SOURCE_SEAT : MATCH_SOURCE_REFEREE,
                         req->token_name, reason[0] ? reason : NULL, on_input_done, c);
        if (r < 0) {
                free(c);
                api_match_store_failed(req, r);
        }
}

/* POST /v1/matches/{id}/preview: the input applied to a copy of the match
 * and shown, stored nowhere (the referee's "what would this do?"). */
void handle_match_preview(struct api_request *req) {
        char reason[REASON_MAX];
        struct eng_result res;
        struct eng_out *out;
        struct eng_input in;
        struct match *m;
        void *state;
        json_t *body;
        int r;

        if (!(m = match_for_input(req)) || input_of(req, m, &in, reason) < 0)
                return;
        out = malloc(sizeof *out);
        state = malloc(m->game->state_size);
        if (!out || !state) {
                free(out);
                free(state);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        r = match_preview(m, &in, out, state);
        if (r < 0) {
                api_match_store_failed(req, r);
        } else if (out->refusal != ENG_ACCEPTED) {
                api_reply_problem_json(req, refusal_problem(&in, out, true));
        } else {
                body = json_pack("{s:b, s:I, s:o, s:o, s:o}", "preview", 1, "seq", (json_int_t) in.seq,
                                 "events", match_json_outputs(m->game, state, out, &match_referee),
                                 "explanation", match_json_explain(m->game, state, out),
                                 "view", match_json_view(m->game, state, ENG_VIEW_REFEREE, -1));
                if (body && m->game->result(state, &res) == 0)
                        json_object_set_new(body, "result", match_json_result(m->game, state, &res));
                api_reply_json(req, MHD_HTTP_OK, body);
        }
        free(out);
        free(state);
}
