/* api/matches.c — /v1/games and /v1/matches: thin handlers over the match
 * runtime (struct api_match_ops, filled by the daemon).
 *
 * What can be checked without knowing a game is checked here (ids, seat
 * numbers, pagination, the ?state= filter); everything else is the
 * runtime's, which replies itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"

#define MATCH_SEAT_MAX  8               /* engine/engine.h ENG_MAX_SEATS */

static const char *const match_states[] = { "ready", "running", "paused", "finished", "aborted" };

/* The runtime, or a 503 when this daemon runs without one. */
static const struct api_match_ops *ops(struct api_request *req) {
        if (!req->deps->matches)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "this daemon runs no matches");
        return req->deps->matches;
}

void handle_games_list(struct api_request *req) {
        if (ops(req))
                req->deps->matches->games_list(req->deps->matches_userdata, req);
}

void handle_game_get(struct api_request *req) {
        if (ops(req))
                req->deps->matches->game_get(req->deps->matches_userdata, req, route_param(&req->match, "name"));
}

void handle_matches_create(struct api_request *req) {
        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"game\": \"crash-pilot\", \"players\": [\"Ana\", \"Ben\"]}");
                return;
        }
        if (ops(req))
                req->deps->matches->create(req->deps->matches_userdata, req);
}

void handle_matches_list(struct api_request *req) {
        const char *state = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "state");
        long long limit, after;
        bool known = !state;

        if (!page_params(req, &limit, &after))
                return;
        for (size_t i = 0; state && i < sizeof match_states / sizeof match_states[0]; i++)
                known |= strcmp(state, match_states[i]) == 0;
        if (!known) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "state: must be ready, running, paused, finished or aborted");
                return;
        }
        if (ops(req))
                req->deps->matches->list(req->deps->matches_userdata, req, state, limit, after);
}

void handle_match_get(struct api_request *req) {
        long long id;

        if (id_param(req, "id", &id) && ops(req))
                req->deps->matches->get(req->deps->matches_userdata, req, id);
}

void handle_match_seat(struct api_request *req) {
        long long id, seat;

        if (!id_param(req, "id", &id))
                return;
        if (!id_param(req, "seat", &seat))
                return;
        if (seat > MATCH_SEAT_MAX) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: there is no seat %lld; seats are 1 to %d",
                                  seat, MATCH_SEAT_MAX);
                return;
        }
        if (ops(req))
                req->deps->matches->seat_view(req->deps->matches_userdata, req, id, seat);
}

void handle_match_log(struct api_request *req) {
        long long id, limit, after;

        if (id_param(req, "id", &id) && page_params(req, &limit, &after) && ops(req))
                req->deps->matches->log(req->deps->matches_userdata, req, id, limit, after);
}

void handle_match_events(struct api_request *req) {
        long long id;

        if (id_param(req, "id", &id) && ops(req))
                req->deps->matches->events(req->deps->matches_userdata, req, id);
}

static void control(struct api_request *req, const char *action) {
        long long id;

        if (id_param(req, "id", &id) && ops(req))
                req->deps->matches->control(req->deps->matches_userdata, req, id, action);
}

void handle_match_start(struct api_request *req) { control(req, "start"); }
void handle_match_pause(struct api_request *req) { control(req, "pause"); }
void handle_match_resume(struct api_request *req) { control(req, "resume"); }
void handle_match_abort(struct api_request *req) { control(req, "abort"); }

void handle_match_input(struct api_request *req) {
        long long id;

        if (!id_param(req, "id", &id))
                return;
        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"seat\": 2, \"kind\": \"call\", \"call\": 3}");
                return;
        }
        if (ops(req))
                req->deps->matches->input(req->deps->matches_userdata, req, id);
}
