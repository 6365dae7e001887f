/* api/draws.c — a tournament's fair draws (docs/fairness.md):
 * GET /v1/tournaments/{id}/calls, every call of a stage match with the
 * identity its seed came from.  A tournament holds one secret per epoch;
 * replies show each secret's SHA-256 from the start and the secret once
 * revealed (tour_secret_revealed, tournament/states.h); the secrets are
 * drawn and the seeds derived by organiser/draws.h, the calls read by
 * store/tournaments.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/tournaments.h"
#include "organiser/tournaments.h"

static void on_calls(void *userdata, const struct org_result *result, const struct store_call_row *rows, size_t n) {
        struct api_request *req = userdata;
        json_t *items;

        if (tour_reply_outcome(req, result, "the tournament query"))
                return;
        items = json_array();
        for (size_t i = 0; i < n; i++) {
                const struct store_call_row *c = &rows[i];
                json_array_append_new(items, json_pack("{s:I, s:I, s:i, s:i, s:s, s:s, s:o}",
                                                       "match", (json_int_t) c->match_id,
                                                       "stage_match", (json_int_t) c->stage_match_id,
                                                       "attempt", c->attempt, "epoch", c->epoch,
                                                       "called_at", c->called_at, "state", c->state,
                                                       "seed", c->has_seed ? json_integer((json_int_t) c->seed)
                                                                           : json_null()));
        }
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

/* Every call the tournament made, oldest first, with the identity its seed
 * came from; a seed shows once its match is over, as on the match. */
void handle_tournament_calls(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = org_tournament_calls(req->deps->store, id, on_calls, req);
        if (r < 0)
                reply_store_error(req, r);
}
