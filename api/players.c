/* api/players.c — /v1/players: the club's players (name, club, optional
 * external id, active).  A player is never deleted: results and ratings
 * refer to it; an organiser sets active false instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/tournaments.h"
#include "store/store.h"

#define PLAYER_JSON(p) \
        "jsonb_build_object('id', " p ".id, 'name', " p ".name, 'club', " p ".club, " \
        "'external_id', " p ".external_id, 'active', " p ".active, 'created_at', " TOUR_TIME(p ".created_at") ", " \
        "'ratings', (SELECT coalesce(jsonb_agg(jsonb_build_object('game', r.game, 'mu', r.mu, 'sigma', r.sigma, " \
        "  'ordinal', r.mu - 3 * r.sigma, 'games', r.games, 'glicko2', jsonb_build_object('rating', r.g2_rating, " \
        "  'rd', r.g2_rd, 'volatility', r.g2_volatility, 'games', r.g2_games)) ORDER BY r.game), '[]'::jsonb) " \
        "  FROM ratings r WHERE r.player_id = " p ".id))"

static void on_player(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;

        if (!res) {
                api_reply_query_failed(req, req->deps->store, "the player query", error);
                return;
        }
        tour_reply_row(req, strcmp(req->method, "POST") == 0 ? MHD_HTTP_CREATED : MHD_HTTP_OK, res, error, "player");
}

void handle_players_create(struct api_request *req) {
        struct body_player b;
        json_t *problem;
        int r;

        if (body_player(req->body, false, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        const char *p[] = { b.name, b.club, b.external_id };
        r = store_query(req->deps->store,
                        "WITH p AS (INSERT INTO players (name, club, external_id) VALUES ($1, $2, $3) RETURNING *) "
                        "SELECT " PLAYER_JSON("p") " FROM p", 3, p, on_player, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* PATCH: name, club, external_id, active; members absent stay as they are. */
void handle_player_update(struct api_request *req) {
        struct body_player b;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (body_player(req->body, true, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        const char *p[] = {
                route_param(&req->match, "id"), b.name,
                b.club_given ? "t" : "f", b.club,
                b.external_id_given ? "t" : "f", b.external_id,
                b.active < 0 ? NULL : b.active ? "t" : "f",
        };
        r = store_query(req->deps->store,
                        "WITH p AS (UPDATE players SET name = coalesce($2, name), "
                        "             club = CASE WHEN $3::bool THEN $4 ELSE club END, "
                        "             external_id = CASE WHEN $5::bool THEN $6 ELSE external_id END, "
                        "             active = coalesce($7::bool, active) "
                        "           WHERE id = $1 RETURNING *) "
                        "SELECT " PLAYER_JSON("p") " FROM p", 7, p, on_player, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_player_get(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store, "SELECT " PLAYER_JSON("p") " FROM players p WHERE p.id = $1", 1, p,
                        on_player, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_players_list(struct api_request *req) {
        reply_list_page(req, "SELECT " PLAYER_JSON("p") " FROM players p WHERE p.id > $1 ORDER BY p.id LIMIT $2");
}
