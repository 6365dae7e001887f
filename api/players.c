/* api/players.c — /v1/players: the club's players (name, club, optional
 * external id, active).  A player is never deleted: results and ratings
 * refer to it; an organiser sets active false instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

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

/* Optional text member key: absent or null (NULL), or 1..64 bytes. */
static bool opt_text(struct api_request *req, const char *key, const char **ret) {
        json_t *v = json_object_get(req->body, key);

        *ret = NULL;
        if (!v || json_is_null(v))
                return true;
        if (!json_is_string(v) || json_string_length(v) < 1 || json_string_length(v) > TOUR_NAME_MAX) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s: must be text of 1 to %d bytes, or null", key,
                                  TOUR_NAME_MAX);
                return false;
        }
        *ret = json_string_value(v);
        return true;
}

static void on_player(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;

        if (!res && error && strstr(error, "players_external_id_key")) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "external_id: another player has this external id");
                return;
        }
        tour_reply_row(req, strcmp(req->method, "POST") == 0 ? MHD_HTTP_CREATED : MHD_HTTP_OK, res, error, "player");
}

void handle_players_create(struct api_request *req) {
        const char *name, *club, *external_id;
        int r;

        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"name\": \"Ana\", \"club\": \"Northside\", \"external_id\": null}");
                return;
        }
        if (!opt_text(req, "name", &name) || !opt_text(req, "club", &club) ||
            !opt_text(req, "external_id", &external_id))
                return;
        if (!name) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "name: required, 1 to %d bytes", TOUR_NAME_MAX);
                return;
        }
        const char *p[] = { name, club, external_id };
        r = store_query(req->deps->store,
                        "WITH p AS (INSERT INTO players (name, club, external_id) VALUES ($1, $2, $3) RETURNING *) "
                        "SELECT " PLAYER_JSON("p") " FROM p", 3, p, on_player, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* PATCH: name, club, external_id, active; members absent stay as they are. */
void handle_player_update(struct api_request *req) {
        const char *name, *club, *external_id;
        json_t *active = json_object_get(req->body, "active");
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (!json_is_object(req->body) || json_object_size(req->body) == 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object with what changes: {\"active\": false}");
                return;
        }
        if (!opt_text(req, "name", &name) || !opt_text(req, "club", &club) ||
            !opt_text(req, "external_id", &external_id))
                return;
        if (json_object_get(req->body, "name") && !name) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "name: cannot be null");
                return;
        }
        if (active && !json_is_boolean(active)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "active: must be true or false");
                return;
        }
        const char *p[] = {
                route_param(&req->match, "id"), name,
                json_object_get(req->body, "club") ? "t" : "f", club,
                json_object_get(req->body, "external_id") ? "t" : "f", external_id,
                active ? (json_is_true(active) ? "t" : "f") : NULL,
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

/* The rating history: one row per rated match, oldest first, with the
 * rating before and after (rating_history, rewritten by every recompute). */
void handle_player_ratings(struct api_request *req) {
        const char *game = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "game"),
                   *system = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "system");
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (system && strcmp(system, "openskill") != 0 && strcmp(system, "glicko2") != 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "system: must be openskill or glicko2");
                return;
        }
        if (game && (strlen(game) < 1 || strlen(game) > TOUR_NAME_MAX)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "game: must name a game, as in GET /v1/games");
                return;
        }
        const char *p[] = { route_param(&req->match, "id"), game, system };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM players WHERE id = $1) THEN "
                        "  jsonb_build_object('items', (SELECT coalesce(jsonb_agg(jsonb_build_object('game', h.game, "
                        "    'system', h.system, 'match', h.stage_match_id, 'tournament', s.tournament_id, "
                        "    'before', h.before, 'after', h.after, 'at', " TOUR_TIME("h.at") ") "
                        "    ORDER BY h.at, h.stage_match_id, h.system), '[]'::jsonb) "
                        "    FROM rating_history h JOIN stage_matches m ON m.id = h.stage_match_id "
                        "    JOIN stages s ON s.id = m.stage_id WHERE h.player_id = $1 "
                        "    AND ($2::text IS NULL OR h.game = $2) AND ($3::text IS NULL OR h.system = $3))) END",
                        3, p, on_player, req);
        if (r < 0)
                reply_store_error(req, r);
}
