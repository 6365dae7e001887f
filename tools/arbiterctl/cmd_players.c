/* tools/arbiterctl/cmd_players.c — `players`: the club's players (GET,
 * POST /v1/players, GET and PATCH /v1/players/{id}, its rating history). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"

static const struct column player_cols[] = {
        { "ID", "id", NULL, true },
        { "NAME", "name", NULL, false },
        { "CLUB", "club", NULL, false },
        { "EXTERNAL_ID", "external_id", NULL, false },
        { "ACTIVE", "active", NULL, false },
};

static const struct column rating_cols[] = {
        { "GAME", "game", NULL, false },
        { "ORDINAL", "ordinal", NULL, true },
        { "MU", "mu", NULL, true },
        { "SIGMA", "sigma", NULL, true },
        { "GAMES", "games", NULL, true },
        { "GLICKO2", "glicko2.rating", NULL, true },
        { "RD", "glicko2.rd", NULL, true },
};

/* A rating as its system sorts by it: OpenSkill's ordinal, Glicko-2's rating. */
static void rating_cell(const json_t *r, const char *side, char *buf, size_t size) {
        const json_t *v = json_object_get(r, side);
        const json_t *n = json_object_get(v, "ordinal");
        char a[64], b[64];

        if (n) {
                out_value(n, a, sizeof a);
                out_value(json_object_get(v, "mu"), b, sizeof b);
                snprintf(buf, size, "%s (mu %s)", a, b);
        } else {
                out_value(json_object_get(v, "rating"), a, sizeof a);
                out_value(json_object_get(v, "rd"), b, sizeof b);
                snprintf(buf, size, "%s (rd %s)", a, b);
        }
}

static void before_cell(const json_t *r, char *buf, size_t size) {
        rating_cell(r, "before", buf, size);
}

static void after_cell(const json_t *r, char *buf, size_t size) {
        rating_cell(r, "after", buf, size);
}

static const struct column history_cols[] = {
        { "AT", "at", NULL, false },
        { "GAME", "game", NULL, false },
        { "SYSTEM", "system", NULL, false },
        { "TOURNAMENT", "tournament", NULL, true },
        { "MATCH", "match", NULL, true },
        { "BEFORE", NULL, before_cell, false },
        { "AFTER", NULL, after_cell, false },
};

static void show_player(const json_t *p) {
        static const char *const skip[] = { "ratings", NULL };
        json_t *ratings = json_object_get(p, "ratings");

        out_fields(p, skip);
        if (json_array_size(ratings) > 0) {
                printf("\n");
                out_table(rating_cols, N_COLS(rating_cols), ratings);
        }
}

static int players_list(struct ctl *c, const struct args *a) {
        long long limit, after;
        json_t *items;
        int st;

        if (cmd_page(a, &limit, &after) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_all(c, "/v1/players", limit, after, &items);
        return st ? st : cmd_print_list(c, items, player_cols, N_COLS(player_cols));
}

static int players_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t id;
        json_t *p;
        int st;

        CMD_ID(a, 0, "PLAYER", &id);
        http_path(path, "/v1/players/%lld", (long long) id);
        st = http_get_json(c, path, &p);
        return st ? st : cmd_print(c, p, show_player);
}

/* Sets member key from option name: "" clears it (null), when nullable. */
static int set_text(json_t *body, const struct args *a, const char *name, const char *key, bool nullable) {
        const char *v = args_get(a, name);

        if (!v)
                return 0;
        if (!*v && nullable)
                return json_object_set_new(body, key, json_null());
        return json_object_set_new(body, key, json_string(v));
}

static int players_add(struct ctl *c, const struct args *a) {
        json_t *body, *p;
        int st;

        if (args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        json_object_set_new(body, "name", json_string(a->pos[0]));
        if (set_text(body, a, "club", "club", true) < 0 || set_text(body, a, "external-id", "external_id", true) < 0) {
                json_decref(body);
                return ctl_fail(CTL_EXIT_USAGE, "a value is not valid UTF-8");
        }
        st = http_send_json(c, "POST", "/v1/players", body, &p);
        json_decref(body);
        return st ? st : cmd_print(c, p, show_player);
}

static int patch(struct ctl *c, int64_t id, json_t *body) {
        char path[HTTP_PATH_MAX];
        json_t *p;
        int st;

        http_path(path, "/v1/players/%lld", (long long) id);
        st = http_send_json(c, "PATCH", path, body, &p);
        json_decref(body);
        return st ? st : cmd_print(c, p, show_player);
}

static int players_update(struct ctl *c, const struct args *a) {
        const char *active = args_get(a, "active");
        int64_t id;
        json_t *body;

        CMD_ID(a, 0, "PLAYER", &id);
        if (args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        if (set_text(body, a, "name", "name", false) < 0 || set_text(body, a, "club", "club", true) < 0 ||
            set_text(body, a, "external-id", "external_id", true) < 0) {
                json_decref(body);
                return ctl_fail(CTL_EXIT_USAGE, "a value is not valid UTF-8");
        }
        if (active) {
                if (strcmp(active, "yes") != 0 && strcmp(active, "no") != 0) {
                        json_decref(body);
                        return ctl_fail(CTL_EXIT_USAGE, "--active: yes or no, not \"%s\"", active);
                }
                json_object_set_new(body, "active", json_boolean(strcmp(active, "yes") == 0));
        }
        if (json_object_size(body) == 0) {
                json_decref(body);
                return ctl_fail(CTL_EXIT_USAGE, "players update: nothing to change (--name, --club, "
                                                "--external-id, --active or --data)");
        }
        return patch(c, id, body);
}

static int players_retire(struct ctl *c, const struct args *a) {
        int64_t id;

        CMD_ID(a, 0, "PLAYER", &id);
        return patch(c, id, json_pack("{s:b}", "active", 0));
}

static int players_ratings(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t id;
        json_t *items;
        int st;

        CMD_ID(a, 0, "PLAYER", &id);
        http_path(path, "/v1/players/%lld/ratings", (long long) id);
        if (http_query(path, "game", args_get(a, "game")) < 0 || http_query(path, "system", args_get(a, "system")) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "--game: too long");
        st = cmd_get_items(c, path, "items", &items);
        return st ? st : cmd_print_list(c, items, history_cols, N_COLS(history_cols));
}

static const struct opt add_opts[] = {
        { "club", 0, OPT_VALUE, "CLUB", "the player's club", NULL },
        { "external-id", 0, OPT_VALUE, "ID", "a federation or membership number (unique)", NULL },
        OPT_DATA,
        { NULL },
};

static const struct opt update_opts[] = {
        { "name", 0, OPT_VALUE, "NAME", "a new name", NULL },
        { "club", 0, OPT_VALUE, "CLUB", "a new club; '' clears it", NULL },
        { "external-id", 0, OPT_VALUE, "ID", "a new external id; '' clears it", NULL },
        { "active", 0, OPT_VALUE, "yes|no", "retire (no) or reinstate (yes)", "yes no" },
        OPT_DATA,
        { NULL },
};

static const struct opt list_opts[] = { OPT_LIMIT, OPT_AFTER, { NULL } };

static const struct opt ratings_opts[] = {
        { "game", 0, OPT_VALUE, "GAME", "only this game (e.g. crash-pilot)", NULL },
        { "system", 0, OPT_VALUE, "SYSTEM", "only this rating system", "openskill glicko2" },
        { NULL },
};

static const struct verb verbs[] = {
        { "list", "[--limit N [--after ID]]", 0, 0, NULL, "list the club's players", "GET /v1/players (display)",
          NULL, list_opts, players_list },
        { "show", "PLAYER", 1, 1, NULL, "show a player with the cached ratings", "GET /v1/players/{id} (display)",
          NULL, NULL, players_show },
        { "add", "NAME [--club CLUB] [--external-id ID]", 1, 1, NULL, "add a player",
          "POST /v1/players (admin)", NULL, add_opts, players_add },
        { "update", "PLAYER [--name NAME] [--club CLUB] [--external-id ID] [--active yes|no]", 1, 1, NULL,
          "change a player", "PATCH /v1/players/{id} (admin)",
          "Only what is given changes.  Players are never deleted: retire them.\n", update_opts, players_update },
        { "retire", "PLAYER", 1, 1, NULL, "retire a player: kept with the results, cannot register again",
          "PATCH /v1/players/{id} {\"active\": false} (admin)", NULL, NULL, players_retire },
        { "ratings", "PLAYER [--game GAME] [--system SYSTEM]", 1, 1, NULL, "a player's rating history",
          "GET /v1/players/{id}/ratings (display)", NULL, ratings_opts, players_ratings },
        { NULL },
};

const struct noun noun_players = { "players", "The club's players", verbs };
