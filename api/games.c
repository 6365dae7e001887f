/* api/games.c — GET /v1/games and GET /v1/games/{name}: the games this
 * daemon runs, as match/json.h describes them. */
#include <microhttpd.h>

#include "api/handlers.h"
#include "engine/engine.h"
#include "match/json.h"

void handle_games_list(struct api_request *req) {
        json_t *items = json_array();

        for (size_t i = 0; eng_games[i]; i++)
                json_array_append_new(items, match_json_game(eng_games[i]));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

void handle_game_get(struct api_request *req) {
        const char *name = route_param(&req->match, "name");
        const struct eng_game *g = eng_game_find(name);

        if (!g) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no game \"%.64s\"; GET /v1/games lists them", name);
                return;
        }
        api_reply_json(req, MHD_HTTP_OK, match_json_game(g));
}
