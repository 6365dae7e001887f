/* api/draws.c — a tournament's fair draws (docs/fairness.md): the secret of
 * each epoch, the seed of each call of a stage match, and
 * GET /v1/tournaments/{id}/calls.  The derivations are common/seed.h's;
 * api/tournaments.h says what the other tournament files use. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/tournaments.h"
#include "store/store.h"

const char tour_next_call_sql[] =
        "SELECT encode(t.secrets[cardinality(t.secrets)], 'hex'), cardinality(t.secrets), "
        "       (SELECT coalesce(max(c.attempt), 0) + 1 FROM match_calls c WHERE c.stage_match_id = $2) "
        "FROM tournaments t WHERE t.id = $1";

int tour_secret_new(bool competitive, uint64_t seed, uint32_t epoch, char ret_hex[SEED_HEX_LEN + 1]) {
        uint8_t secret[SEED_SECRET_LEN];
        int r = competitive ? seed_secret_random(secret) : seed_secret_of_seed(seed, epoch, secret);

        if (r == 0)
                seed_hex(secret, sizeof secret, ret_hex);
        explicit_bzero(secret, sizeof secret);
        return r;
}

int tour_tournament_seed(const char *secret_hex, uint64_t *ret) {
        uint8_t secret[SEED_SECRET_LEN];
        int r = seed_unhex(secret_hex, secret, sizeof secret);

        if (r == 0)
                r = seed_tournament(secret, ret);
        explicit_bzero(secret, sizeof secret);
        return r;
}

int tour_call_seed(const char *secret_hex, int64_t tournament, int64_t stage_match, int attempt, uint64_t *ret) {
        uint8_t secret[SEED_SECRET_LEN];
        int r = attempt < 1 ? -EINVAL : seed_unhex(secret_hex, secret, sizeof secret);

        if (r == 0)
                r = seed_match(secret, tournament, stage_match, (uint32_t) attempt, ret);
        explicit_bzero(secret, sizeof secret);
        return r;
}

/* Every call the tournament made, oldest first, with the identity its seed
 * came from; a seed shows once its match is over, as on the match. */
void handle_tournament_calls(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM tournaments WHERE id = $1) THEN "
                        "  jsonb_build_object('items', (SELECT coalesce(jsonb_agg(jsonb_build_object("
                        "    'match', c.match_id, 'stage_match', c.stage_match_id, 'attempt', c.attempt, "
                        "    'epoch', c.epoch, 'called_at', " TOUR_TIME("c.called_at") ", 'state', m.state, "
                        "    'seed', CASE WHEN m.state IN ('finished', 'aborted') THEN m.seed END) "
                        "    ORDER BY c.match_id), '[]'::jsonb) "
                        "    FROM match_calls c JOIN matches m ON m.id = c.match_id WHERE c.tournament_id = $1)) END",
                        1, p, tour_on_row, req);
        if (r < 0)
                reply_store_error(req, r);
}
