/* tools/arbiterctl/cmd_tournaments.c — a tournament and what hangs off it
 * before and between its matches: `tournaments`, `registrations`,
 * `stages`, `rounds` and `standings` (/v1/tournaments/...; the walk
 * through is docs/running-a-tournament.md). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"

#define TOURNAMENT_STATES "draft registration check_in running finished"
#define STAGE_FORMATS \
        "single_elimination double_elimination round_robin swiss pod_swiss league heats race groups"
/* A stage's table_size and rounds ranges (docs/openapi.yaml, StageConfig). */
#define TABLE_SIZE_MIN 2
#define TABLE_SIZE_MAX 16
#define ROUNDS_MAX 1000
/* A stage's advance, a player's seed (docs/openapi.yaml). */
#define ADVANCE_MIN 2
#define SEED_MAX 100000

static void current_cell(const json_t *t, char *buf, size_t size) {
        const json_t *cur = json_object_get(t, "current");

        if (json_is_object(cur))
                snprintf(buf, size, "%lld/%lld", (long long) json_integer_value(json_object_get(cur, "stage")),
                         (long long) json_integer_value(json_object_get(cur, "round")));
        else
                snprintf(buf, size, "-");
}

static const struct column tournament_cols[] = {
        { "ID", "id", NULL, true },
        { "NAME", "name", NULL, false },
        { "GAME", "game", NULL, false },
        { "STATE", "state", NULL, false },
        { "REGISTERED", "registrations", NULL, true },
        { "CHECKED_IN", "checked_in", NULL, true },
        { "STAGE/ROUND", NULL, current_cell, false },
        { "TABLES", "tables", NULL, false },
};

static const struct column stage_cols[] = {
        { "STAGE", "number", NULL, true },
        { "FORMAT", "format", NULL, false },
        { "STATE", "state", NULL, false },
        { "ENTRANTS", "entrants", NULL, true },
        { "ROUNDS", "rounds", NULL, true },
        { "ADVANCE", "advance", NULL, true },
        { "CONFIRM", "confirm", NULL, false },
        { "CONFIG", "config", NULL, false },
};

static void players_cell(const json_t *m, char *buf, size_t size) {
        out_names(json_object_get(m, "participants"), buf, size);
}

static const struct column queue_cols[] = {
        { "TABLE", "table", NULL, true },
        { "MATCH", "id", NULL, true },
        { "STAGE", "stage", NULL, true },
        { "ROUND", "round", NULL, true },
        { "STATE", "state", NULL, false },
        { "RUNTIME", "match", NULL, true },
        { "PLAYERS", NULL, players_cell, false },
};

static const struct column paired_cols[] = {
        { "MATCH", "id", NULL, true },
        { "TABLE_NO", "table_no", NULL, true },
        { "TABLE", "table", NULL, true },
        { "PLAYERS", NULL, players_cell, false },
};

static const struct column registration_cols[] = {
        { "PLAYER", "player", NULL, true },
        { "NAME", "name", NULL, false },
        { "CLUB", "club", NULL, false },
        { "SEED", "seed", NULL, true },
        { "CHECKED_IN", "checked_in", NULL, false },
        { "STATUS", "status", NULL, false },
        { "LATE", "late", NULL, false },
};

static void slots_cell(const json_t *m, char *buf, size_t size) {
        const json_t *slots = json_object_get(m, "slots"), *s;
        size_t i;

        buf[0] = '\0';
        json_array_foreach(slots, i, s) {
                const json_t *e = json_object_get(s, "entrant"), *src = json_object_get(s, "source");
                const char *name = json_string_value(json_object_get(e, "name"));
                const char *from = json_string_value(json_object_get(src, "from"));
                if (i)
                        out_append(buf, size, " v ");
                if (name)
                        out_append(buf, size, "%s", name);
                else if (from && strcmp(from, "empty") != 0)
                        out_append(buf, size, "(%s %lld)", from, (long long) json_integer_value(json_object_get(src, "ref")));
                else
                        out_append(buf, size, "-");
        }
}

static const struct column bracket_cols[] = {
        { "ID", "id", NULL, true },
        { "PART", "part", NULL, false },
        { "ROUND", "round", NULL, true },
        { "LABEL", "label", NULL, false },
        { "STATUS", "status", NULL, false },
        { "PLAYERS", NULL, slots_cell, false },
        { "WINNER", "winner.name", NULL, false },
        { "MATCH", "stored_match", NULL, true },
};

static const struct column placement_cols[] = {
        { "PLACE", "place", NULL, true },
        { "PLAYER", "entrant.player", NULL, true },
        { "NAME", "entrant.name", NULL, false },
};

/* --- tournaments --- */

static void show_tournament(const json_t *t) {
        static const char *const skip[] = { "stages", NULL };
        json_t *stages = json_object_get(t, "stages");

        out_fields(t, skip);
        if (json_array_size(stages) > 0) {
                printf("\n");
                out_table(stage_cols, N_COLS(stage_cols), stages);
        }
}

static int tournament_path(char *path, const struct args *a, const char *tail) {
        int64_t id;

        if (args_pos_id(a, 0, "TOURNAMENT", &id) < 0)
                return -EINVAL;
        return http_path(path, "/v1/tournaments/%lld%s", (long long) id, tail);
}

static int tournaments_list(struct ctl *c, const struct args *a) {
        long long limit, after;
        json_t *items;
        int st;

        if (cmd_page(a, &limit, &after) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_all(c, "/v1/tournaments", limit, after, &items);
        return st ? st : cmd_print_list(c, items, tournament_cols, N_COLS(tournament_cols));
}

static int tournaments_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *t;
        int st;

        if (tournament_path(path, a, "") < 0)
                return CTL_EXIT_USAGE;
        st = http_get_json(c, path, &t);
        return st ? st : cmd_print(c, t, show_tournament);
}

/* "1,2,3" as a JSON list of ids. */
static json_t *id_list(const char *text, const char *what) {
        json_t *list = json_array();
        char buf[1024], *save = NULL;

        if (!list)
                return NULL;
        if (snprintf(buf, sizeof buf, "%s", text) >= (int) sizeof buf) {
                json_decref(list);
                ctl_fail(CTL_EXIT_USAGE, "%s: too long", what);
                return NULL;
        }
        for (char *p = strtok_r(buf, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
                int64_t id;
                if (args_parse_id(p, what, &id) < 0) {
                        json_decref(list);
                        return NULL;
                }
                json_array_append_new(list, json_integer(id));
        }
        return list;
}

static int tournaments_create(struct ctl *c, const struct args *a) {
        const char *game = args_get(a, "game"), *tables = args_get(a, "tables"), *mc = args_get(a, "match-config");
        json_t *body, *t, *v;
        int64_t seed;
        int st;

        if (args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        json_object_set_new(body, "name", json_string(a->pos[0]));
        if (game)
                json_object_set_new(body, "game", json_string(game));
        if (!json_object_get(body, "game")) {
                json_decref(body);
                return ctl_fail(CTL_EXIT_USAGE, "tournaments create: which game? --game GAME (arbiterctl games list)");
        }
        if (args_get(a, "seed")) {
                if (args_parse_int(args_get(a, "seed"), "--seed", 0, INT64_MAX, &seed) < 0)
                        goto usage;
                json_object_set_new(body, "seed", json_integer(seed));
        }
        if (args_flag(a, "non-competitive"))
                json_object_set_new(body, "competitive", json_false());
        if (tables) {
                if (!(v = id_list(tables, "--tables")))
                        goto usage;
                json_object_set_new(body, "tables", v);
        }
        if (mc) {
                if (args_load_json(mc, "--match-config", &v) < 0)
                        goto usage;
                json_object_set_new(body, "match_config", v);
        }
        st = http_send_json(c, "POST", "/v1/tournaments", body, &t);
        json_decref(body);
        return st ? st : cmd_print(c, t, show_tournament);
usage:
        json_decref(body);
        return CTL_EXIT_USAGE;
}

static int tournaments_state(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *body, *t;
        int st;

        if (tournament_path(path, a, "/state") < 0)
                return CTL_EXIT_USAGE;
        body = json_pack("{s:s}", "state", a->pos[1]);
        st = http_send_json(c, "POST", path, body, &t);
        json_decref(body);
        return st ? st : cmd_print(c, t, show_tournament);
}

/* The queue's tables flattened: one row per match, with its table. */
static int tournaments_queue(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *tables, *rows, *t, *m;
        size_t i, k;
        int st;

        if (tournament_path(path, a, "/queue") < 0)
                return CTL_EXIT_USAGE;
        st = cmd_get_items(c, path, "tables", &tables);
        if (st)
                return st;
        if (c->json) {
                json_t *o = json_pack("{s:o}", "tables", tables);
                return cmd_print(c, o, NULL);
        }
        rows = json_array();
        json_array_foreach(tables, i, t) {
                json_array_foreach(json_object_get(t, "matches"), k, m) {
                        json_t *row = json_deep_copy(m);
                        json_object_set(row, "table", json_object_get(t, "table"));
                        json_array_append_new(rows, row);
                }
        }
        json_decref(tables);
        return cmd_print_list(c, rows, queue_cols, N_COLS(queue_cols));
}

static void show_bracket(const json_t *b) {
        json_t *placements = json_object_get(b, "placements");

        printf("stage %lld, %s, size %lld\n\n", (long long) json_integer_value(json_object_get(b, "stage")),
               json_string_value(json_object_get(b, "format")) ? json_string_value(json_object_get(b, "format")) : "?",
               (long long) json_integer_value(json_object_get(b, "size")));
        out_table(bracket_cols, N_COLS(bracket_cols), json_object_get(b, "matches"));
        if (json_array_size(placements) > 0) {
                printf("\n");
                out_table(placement_cols, N_COLS(placement_cols), placements);
        }
}

static int tournaments_bracket(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t stage;
        json_t *b;
        int st;

        if (tournament_path(path, a, "/bracket") < 0 || args_opt_id(a, "stage", &stage) < 0)
                return CTL_EXIT_USAGE;
        if (http_query(path, "stage", args_get(a, "stage")) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_json(c, path, &b);
        return st ? st : cmd_print(c, b, show_bracket);
}

static void show_detail(const json_t *r) {
        const char *d = json_string_value(json_object_get(r, "detail"));
        printf("%s\n", d ? d : "done");
}

static int tournaments_recompute(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *r;
        int st;

        if (tournament_path(path, a, "/recompute") < 0)
                return CTL_EXIT_USAGE;
        st = http_send_json(c, "POST", path, NULL, &r);
        return st ? st : cmd_print(c, r, show_detail);
}

/* --- registrations --- */

static int registrations_list(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *items;
        int st;

        if (cmd_tpath(path, a, "/registrations") < 0)
                return CTL_EXIT_USAGE;
        st = cmd_get_items(c, path, "items", &items);
        return st ? st : cmd_print_list(c, items, registration_cols, N_COLS(registration_cols));
}

/* POSTs to each player's path in turn; stops at the first failure, after
 * printing what was done. */
static int registrations_each(struct ctl *c, const struct args *a, const char *action, bool add) {
        char path[HTTP_PATH_MAX];
        json_t *done = json_array(), *r;
        int64_t player, seed = 0;
        int st = CTL_EXIT_OK;

        if (!done)
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        if (add && args_get(a, "seed")) {
                if (a->n_pos != 1) {
                        json_decref(done);
                        return ctl_fail(CTL_EXIT_USAGE, "--seed: for one player at a time");
                }
                if (args_parse_int(args_get(a, "seed"), "--seed", 1, SEED_MAX, &seed) < 0) {
                        json_decref(done);
                        return CTL_EXIT_USAGE;
                }
        }
        for (int i = 0; i < a->n_pos && st == CTL_EXIT_OK; i++) {
                json_t *body = NULL;
                if (args_pos_id(a, i, "PLAYER", &player) < 0) {
                        st = CTL_EXIT_USAGE;
                        break;
                }
                if (add) {
                        if (cmd_tpath(path, a, "/registrations") < 0) {
                                st = CTL_EXIT_USAGE;
                                break;
                        }
                        body = seed ? json_pack("{s:I, s:I}", "player", (json_int_t) player, "seed", (json_int_t) seed)
                                    : json_pack("{s:I}", "player", (json_int_t) player);
                } else {
                        char sub[HTTP_PATH_MAX];
                        snprintf(sub, sizeof sub, "/registrations/%lld/%s", (long long) player, action);
                        if (cmd_tpath(path, a, sub) < 0) {
                                st = CTL_EXIT_USAGE;
                                break;
                        }
                }
                st = http_send_json(c, "POST", path, body, &r);
                json_decref(body);
                if (st == CTL_EXIT_OK)
                        json_array_append_new(done, r);
        }
        if (json_array_size(done) > 0 || st == CTL_EXIT_OK) {
                int p = cmd_print_list(c, done, registration_cols, N_COLS(registration_cols));
                return st ? st : p;
        }
        json_decref(done);
        return st;
}

static int registrations_add(struct ctl *c, const struct args *a) {
        return registrations_each(c, a, NULL, true);
}

static int registrations_check_in(struct ctl *c, const struct args *a) {
        return registrations_each(c, a, "check-in", false);
}

static int registrations_drop(struct ctl *c, const struct args *a) {
        return registrations_each(c, a, "drop", false);
}

static int registrations_disqualify(struct ctl *c, const struct args *a) {
        return registrations_each(c, a, "disqualify", false);
}

/* --- stages --- */

static int stages_list(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *items;
        int st;

        if (cmd_tpath(path, a, "") < 0)
                return CTL_EXIT_USAGE;
        st = cmd_get_items(c, path, "stages", &items);
        return st ? st : cmd_print_list(c, items, stage_cols, N_COLS(stage_cols));
}

static int stages_add(struct ctl *c, const struct args *a) {
        const char *cfg = args_get(a, "config"), *confirm = args_get(a, "confirm");
        json_t *body, *config, *v, *s;
        int64_t n;
        int st;

        if (args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        json_object_set_new(body, "format", json_string(a->pos[0]));
        config = json_object_get(body, "config");
        if (cfg) {
                if (args_load_json(cfg, "--config", &v) < 0)
                        goto usage;
                if (!json_is_object(v)) {
                        json_decref(v);
                        ctl_fail(CTL_EXIT_USAGE, "--config: must be a JSON object");
                        goto usage;
                }
                json_object_set_new(body, "config", v);
                config = v;
        }
        if (!json_is_object(config)) {
                config = json_object();
                json_object_set_new(body, "config", config);
        }
        if (args_get(a, "rounds")) {
                if (args_parse_int(args_get(a, "rounds"), "--rounds", 0, ROUNDS_MAX, &n) < 0)
                        goto usage;
                json_object_set_new(config, "rounds", json_integer(n));
        }
        if (args_get(a, "table-size")) {
                if (args_parse_int(args_get(a, "table-size"), "--table-size", TABLE_SIZE_MIN, TABLE_SIZE_MAX, &n) < 0)
                        goto usage;
                json_object_set_new(config, "table_size", json_integer(n));
        }
        if (json_object_size(config) == 0)
                json_object_del(body, "config");
        if (args_get(a, "advance")) {
                if (args_parse_int(args_get(a, "advance"), "--advance", ADVANCE_MIN, INT32_MAX, &n) < 0)
                        goto usage;
                json_object_set_new(body, "advance", json_integer(n));
        }
        if (confirm) {
                if (!(v = cmd_confirm(confirm)))
                        goto usage;
                json_object_set_new(body, "confirm", v);
        }
        char path[HTTP_PATH_MAX];
        if (cmd_tpath(path, a, "/stages") < 0)
                goto usage;
        st = http_send_json(c, "POST", path, body, &s);
        json_decref(body);
        return st ? st : cmd_print(c, s, NULL);
usage:
        json_decref(body);
        return CTL_EXIT_USAGE;
}

/* --- rounds --- */

static void show_round(const json_t *r) {
        json_t *matches = json_object_get(r, "matches"), *byes = json_object_get(r, "byes");
        char names[OUT_CELL_MAX];

        printf("stage %lld, round %lld: %zu matches", (long long) json_integer_value(json_object_get(r, "stage")),
               (long long) json_integer_value(json_object_get(r, "round")), json_array_size(matches));
        if (json_integer_value(json_object_get(r, "repeats")) > 0)
                printf(", %lld repeats", (long long) json_integer_value(json_object_get(r, "repeats")));
        printf("\n\n");
        out_table(paired_cols, N_COLS(paired_cols), matches);
        if (json_array_size(byes) > 0) {
                out_names(byes, names, sizeof names);
                printf("\nbyes: %s\n", names);
        }
}

static int rounds_next(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *r;
        int st;

        if (cmd_tpath(path, a, "/rounds") < 0)
                return CTL_EXIT_USAGE;
        st = http_send_json(c, "POST", path, NULL, &r);
        return st ? st : cmd_print(c, r, show_round);
}

/* --- standings --- */

static bool any_nonzero(const json_t *rows, const char *key) {
        size_t i;
        const json_t *r;

        json_array_foreach(rows, i, r) {
                const json_t *v = json_object_get(r, key);
                if (v && !json_is_null(v) && json_integer_value(v) != 0)
                        return true;
        }
        return false;
}

static void dropped_cell(const json_t *r, char *buf, size_t size) {
        snprintf(buf, size, "%s", json_is_true(json_object_get(r, "dropped")) ? "dropped" : "");
}

/* The columns: the fixed ones, place and group when the format has them,
 * then one per tie-break in the order applied. */
static void show_standings(const json_t *s) {
        static const struct column fixed[] = {
                { "RANK", "rank", NULL, true },   { "PLAYER", "player", NULL, true },
                { "NAME", "name", NULL, false },  { "POINTS", "points", NULL, true },
                { "PLAYED", "played", NULL, true }, { "WON", "won", NULL, true },
                { "DRAWN", "drawn", NULL, true }, { "LOST", "lost", NULL, true },
                { "BYES", "byes", NULL, true },
        };
        const json_t *rows = json_object_get(s, "rows"), *tb = json_object_get(s, "tiebreaks"), *t;
        size_t n_tb = json_array_size(tb), n = 0, i;
        struct column *cols = calloc(N_COLS(fixed) + 3 + n_tb, sizeof *cols);
        char (*paths)[64] = calloc(n_tb ? n_tb : 1, sizeof *paths);
        char (*headers)[64] = calloc(n_tb ? n_tb : 1, sizeof *headers);

        if (!cols || !paths || !headers) {
                free(cols);
                free(paths);
                free(headers);
                return;
        }
        printf("stage %lld (%s)\n\n", (long long) json_integer_value(json_object_get(s, "stage")),
               json_string_value(json_object_get(s, "format")) ? json_string_value(json_object_get(s, "format")) : "?");
        for (i = 0; i < N_COLS(fixed); i++)
                cols[n++] = fixed[i];
        if (any_nonzero(rows, "place"))
                cols[n++] = (struct column) { "PLACE", "place", NULL, true };
        if (any_nonzero(rows, "group"))
                cols[n++] = (struct column) { "GROUP", "group", NULL, true };
        json_array_foreach(tb, i, t) {
                const char *name = json_string_value(t) ? json_string_value(t) : "?";
                snprintf(paths[i], sizeof paths[i], "tiebreaks.%s", name);
                snprintf(headers[i], sizeof headers[i], "%s", name);
                for (char *h = headers[i]; *h; h++)
                        *h = (char) toupper((unsigned char) *h);
                cols[n++] = (struct column) { headers[i], paths[i], NULL, true };
        }
        cols[n++] = (struct column) { "", NULL, dropped_cell, false };
        out_table(cols, n, rows);
        free(cols);
        free(paths);
        free(headers);
}

static int standings_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t stage;
        json_t *s;
        int st;

        if (cmd_tpath(path, a, "/standings") < 0 || args_opt_id(a, "stage", &stage) < 0)
                return CTL_EXIT_USAGE;
        if (http_query(path, "stage", args_get(a, "stage")) < 0 ||
            http_query(path, "recompute", args_flag(a, "recompute") ? "true" : NULL) < 0)
                return CTL_EXIT_USAGE;
        if (args_flag(a, "csv")) {
                http_query(path, "format", "csv");
                return cmd_get_raw(c, path);
        }
        st = http_get_json(c, path, &s);
        return st ? st : cmd_print(c, s, show_standings);
}

/* --- the tables --- */

static const struct opt list_opts[] = { OPT_LIMIT, OPT_AFTER, { NULL } };
static const struct opt create_opts[] = {
        { "game", 'g', OPT_VALUE, "GAME", "the game (arbiterctl games list)", NULL },
        { "non-competitive", 0, OPT_FLAG, NULL, "a practice or test tournament: its draws and decks follow from its seed", NULL },
        { "seed", 0, OPT_VALUE, "N", "with --non-competitive: the seed of the draws and decks (default: random)", NULL },
        { "tables", 0, OPT_VALUE, "ID,ID...", "the venue tables its matches go to, in turn", NULL },
        { "match-config", 0, OPT_VALUE, "JSON", "the config of its matches: '{...}', @FILE or -", NULL },
        OPT_DATA,
        { NULL },
};
static const struct opt stage_opt[] = {
        { "stage", 's', OPT_VALUE, "N", "the stage (default: the current one)", NULL },
        { NULL },
};

static const struct verb tournament_verbs[] = {
        { "list", "[--limit N [--after ID]]", 0, 0, NULL, "list the tournaments", "GET /v1/tournaments (display)",
          NULL, list_opts, tournaments_list },
        { "show", "TOURNAMENT", 1, 1, NULL, "show a tournament and its stages", "GET /v1/tournaments/{id} (display)",
          NULL, NULL, tournaments_show },
        { "create", "NAME --game GAME [--non-competitive [--seed N]] [--tables ID,...] [--match-config JSON]", 1, 1, NULL,
          "create a tournament (in draft)", "POST /v1/tournaments (admin)",
          "Then add its stages (arbiterctl stages add) and open registration\n"
          "(arbiterctl tournaments state ID registration).\n",
          create_opts, tournaments_create },
        { "state", "TOURNAMENT STATE", 2, 2, TOURNAMENT_STATES, "move a tournament to another state",
          "POST /v1/tournaments/{id}/state (admin)",
          "draft -> registration -> check_in -> running -> finished; a move the current\n"
          "state does not allow is a conflict (exit 4) naming the moves it allows.\n",
          NULL, tournaments_state, 1 },
        { "queue", "TOURNAMENT", 1, 1, NULL, "up next, per venue table", "GET /v1/tournaments/{id}/queue (display)",
          NULL, NULL, tournaments_queue },
        { "bracket", "TOURNAMENT [--stage N]", 1, 1, NULL, "an elimination stage's bracket",
          "GET /v1/tournaments/{id}/bracket (display)", NULL, stage_opt, tournaments_bracket },
        { "recompute", "TOURNAMENT", 1, 1, NULL, "rebuild the cached standings and ratings from the results",
          "POST /v1/tournaments/{id}/recompute (admin)", NULL, NULL, tournaments_recompute },
        { NULL },
};

static const struct opt t_opt[] = { OPT_TOURNAMENT, { NULL } };
static const struct opt reg_add_opts[] = {
        OPT_TOURNAMENT,
        { "seed", 0, OPT_VALUE, "N", "the organiser's seed, 1 the best (one player only)", NULL },
        { NULL },
};

static const struct verb registration_verbs[] = {
        { "list", "[-t TOURNAMENT]", 0, 0, NULL, "who is registered", "GET /v1/tournaments/{id}/registrations (display)",
          NULL, t_opt, registrations_list },
        { "add", "[-t TOURNAMENT] [--seed N] PLAYER...", 1, -1, NULL, "register players",
          "POST /v1/tournaments/{id}/registrations (admin)",
          "While the tournament runs, a registration is a late entry, checked in at once.\n", reg_add_opts,
          registrations_add },
        { "check-in", "[-t TOURNAMENT] PLAYER...", 1, -1, NULL, "check players in",
          "POST /v1/tournaments/{id}/registrations/{player}/check-in (admin)", NULL, t_opt, registrations_check_in },
        { "drop", "[-t TOURNAMENT] PLAYER...", 1, -1, NULL, "drop players: never paired again, results kept",
          "POST /v1/tournaments/{id}/registrations/{player}/drop (admin)", NULL, t_opt, registrations_drop },
        { "disqualify", "[-t TOURNAMENT] PLAYER...", 1, -1, NULL, "disqualify players",
          "POST /v1/tournaments/{id}/registrations/{player}/disqualify (admin)", NULL, t_opt,
          registrations_disqualify },
        { NULL },
};

static const struct opt stage_add_opts[] = {
        OPT_TOURNAMENT,
        { "rounds", 0, OPT_VALUE, "N", "rounds to play (swiss, pod_swiss, league, race; 0: the format's own)", NULL },
        { "table-size", 0, OPT_VALUE, "N", "seats per table (pod formats, heats, race)", NULL },
        { "advance", 0, OPT_VALUE, "N", "how many of the previous stage's standings go on (a top cut)", NULL },
        { "confirm", 0, OPT_VALUE, "HOW", "auto, referee or referee:SECONDS: results wait for a referee", "auto referee" },
        { "config", 0, OPT_VALUE, "JSON", "the whole stage config (docs/formats/stages.md): '{...}', @FILE or -", NULL },
        OPT_DATA,
        { NULL },
};

static const struct verb stage_verbs[] = {
        { "list", "[-t TOURNAMENT]", 0, 0, NULL, "a tournament's stages", "GET /v1/tournaments/{id} (display)", NULL,
          t_opt, stages_list },
        { "add", "[-t TOURNAMENT] FORMAT [--rounds N] [--table-size N] [--advance N] [--config JSON]", 1, 1,
          STAGE_FORMATS, "add a stage", "POST /v1/tournaments/{id}/stages (admin)",
          "FORMAT is one of: " STAGE_FORMATS ".\n"
          "--rounds and --table-size set members of the stage's config, on top of --config.\n",
          stage_add_opts, stages_add },
        { NULL },
};

static const struct verb round_verbs[] = {
        { "next", "[-t TOURNAMENT]", 0, 0, NULL, "pair the next round (or start the next stage)",
          "POST /v1/tournaments/{id}/rounds (admin)",
          "A conflict (exit 4) while matches of the round are still to be played lists them.\n", t_opt,
          rounds_next },
        { NULL },
};

static const struct opt standings_opts[] = {
        OPT_TOURNAMENT,
        { "stage", 's', OPT_VALUE, "N", "the stage (default: the current one)", NULL },
        { "recompute", 0, OPT_FLAG, NULL, "compute them from the results instead of the cache", NULL },
        { "csv", 0, OPT_FLAG, NULL, "the server's CSV export", NULL },
        { NULL },
};

static const struct verb standings_verbs[] = {
        { "show", "[-t TOURNAMENT] [--stage N] [--recompute] [--csv]", 0, 0, NULL,
          "a stage's standings with its tie-breaks", "GET /v1/tournaments/{id}/standings (display)", NULL,
          standings_opts, standings_show },
        { NULL },
};

const struct noun noun_tournaments = { "tournaments", "Tournaments: create, move through their states, follow",
                                       tournament_verbs };
const struct noun noun_registrations = { "registrations", "Who plays in a tournament: register, check in, drop",
                                         registration_verbs };
const struct noun noun_stages = { "stages", "A tournament's stages: Swiss, pods, brackets, heats...", stage_verbs };
const struct noun noun_rounds = { "rounds", "Pairing a tournament's next round", round_verbs };
const struct noun noun_standings = { "standings", "A tournament's standings", standings_verbs };
