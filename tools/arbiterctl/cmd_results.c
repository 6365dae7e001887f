/* tools/arbiterctl/cmd_results.c — what matches led to: `results` (entered
 * by hand or recorded by a runtime match), `corrections` of them, and the
 * season's `leaderboards`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"

/* A rank is 1..n for a match of n (a heat seats at most 16); a game score
 * stays within what a person types. */
#define RANK_MAX 16
/* docs/openapi.yaml: a correction's reason is 1 to 500 bytes. */
#define REASON_MAX 500

static void result_cell(const json_t *m, char *buf, size_t size) {
        out_result(json_object_get(m, "result"), buf, size);
}

static const struct column results_cols[] = {
        { "MATCH", "id", NULL, true },
        { "STAGE", "stage", NULL, true },
        { "ROUND", "round", NULL, true },
        { "TABLE_NO", "table_no", NULL, true },
        { "RUNTIME", "match", NULL, true },
        { "RESULT", NULL, result_cell, false },
        { "RECORDED_BY", "recorded_by", NULL, false },
        { "RECORDED_AT", "recorded_at", NULL, false },
};

static const struct column entry_cols[] = {
        { "PLAYER", "player", NULL, true },
        { "NAME", "name", NULL, false },
        { "RANK", "rank", NULL, true },
        { "SCORE", "score", NULL, true },
        { "FORFEIT", "forfeit", NULL, false },
};

static void before_cell(const json_t *c, char *buf, size_t size) {
        out_result(json_object_get(c, "before"), buf, size);
}

static void after_cell(const json_t *c, char *buf, size_t size) {
        out_result(json_object_get(c, "after"), buf, size);
}

static const struct column correction_cols[] = {
        { "ID", "id", NULL, true },
        { "MATCH", "match", NULL, true },
        { "WHO", "who", NULL, false },
        { "AT", "at", NULL, false },
        { "REASON", "reason", NULL, false },
        { "BEFORE", NULL, before_cell, false },
        { "AFTER", NULL, after_cell, false },
        { "RESET", "reset", NULL, false },
};

/* The stage match with its new result. */
static void show_result(const json_t *m) {
        const json_t *reset = json_object_get(m, "reset");
        char list[OUT_CELL_MAX];

        printf("match %lld (stage %lld round %lld): %s", (long long) json_integer_value(json_object_get(m, "id")),
               (long long) json_integer_value(json_object_get(m, "stage")),
               (long long) json_integer_value(json_object_get(m, "round")),
               json_string_value(json_object_get(m, "state")) ? json_string_value(json_object_get(m, "state")) : "?");
        if (json_is_integer(json_object_get(m, "correction")))
                printf(", correction %lld", (long long) json_integer_value(json_object_get(m, "correction")));
        printf("\n\n");
        out_table(entry_cols, N_COLS(entry_cols), json_object_get(m, "result"));
        if (json_array_size(reset) > 0) {
                out_value(reset, list, sizeof list);
                printf("\nmatches deleted, to be paired again: %s\n", list);
        }
}

/* The entry of player in results, added when it is not there yet. */
static json_t *entry(json_t *results, int64_t player) {
        size_t i;
        json_t *e;

        json_array_foreach(results, i, e) if (json_integer_value(json_object_get(e, "player")) == player) return e;
        e = json_pack("{s:I}", "player", (json_int_t) player);
        json_array_append_new(results, e);
        return e;
}

/* PLAYER=RANK arguments from index first, --score PLAYER=SCORE and
 * --forfeit PLAYER into body's "results" (on top of --data's). */
static int build_results(const struct args *a, int first, json_t *body) {
        json_t *results = json_object_get(body, "results");
        char buf[128];
        const char *k, *v, *s;
        int64_t player, rank;

        if (!json_is_array(results)) {
                results = json_array();
                json_object_set_new(body, "results", results);
        }
        for (int i = first; i < a->n_pos; i++) {
                if (args_split(a->pos[i], buf, sizeof buf, &k, &v) < 0) {
                        ctl_fail(CTL_EXIT_USAGE, "\"%s\" is not PLAYER=RANK", a->pos[i]);
                        return -EINVAL;
                }
                if (args_parse_id(k, "PLAYER", &player) < 0 || args_parse_int(v, "RANK", 1, RANK_MAX, &rank) < 0)
                        return -EINVAL;
                json_object_set_new(entry(results, player), "rank", json_integer(rank));
        }
        for (int i = 0; (s = args_nth(a, "score", i)); i++) {
                char *end;
                if (args_split(s, buf, sizeof buf, &k, &v) < 0 || args_parse_id(k, "--score PLAYER", &player) < 0) {
                        ctl_fail(CTL_EXIT_USAGE, "--score: \"%s\" is not PLAYER=SCORE", s);
                        return -EINVAL;
                }
                double score = strtod(v, &end);
                if (!*v || *end) {
                        ctl_fail(CTL_EXIT_USAGE, "--score: \"%s\" is not a number", v);
                        return -EINVAL;
                }
                json_object_set_new(entry(results, player), "score", json_real(score));
        }
        for (int i = 0; (s = args_nth(a, "forfeit", i)); i++) {
                if (args_parse_id(s, "--forfeit", &player) < 0)
                        return -EINVAL;
                json_object_set_new(entry(results, player), "forfeit", json_true());
        }
        if (json_array_size(results) == 0) {
                ctl_fail(CTL_EXIT_USAGE, "no results: give PLAYER=RANK for each player (or --data)");
                return -EINVAL;
        }
        return 0;
}

static int post_result(struct ctl *c, const struct args *a, const char *route, bool correction) {
        char path[HTTP_PATH_MAX], sub[HTTP_PATH_MAX];
        const char *reason = args_get(a, "reason");
        int64_t match;
        json_t *body, *m;
        int st;

        if (args_pos_id(a, 0, "MATCH", &match) < 0 || args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        if (build_results(a, 1, body) < 0)
                goto usage;
        if (correction) {
                if (reason) {
                        if (strlen(reason) > REASON_MAX) {
                                ctl_fail(CTL_EXIT_USAGE, "--reason: at most %d bytes", REASON_MAX);
                                goto usage;
                        }
                        json_object_set_new(body, "reason", json_string(reason));
                }
                if (!json_object_get(body, "reason")) {
                        ctl_fail(CTL_EXIT_USAGE, "corrections add: why? --reason TEXT is kept with it");
                        goto usage;
                }
                if (args_flag(a, "reset"))
                        json_object_set_new(body, "reset", json_true());
        }
        snprintf(sub, sizeof sub, "/matches/%lld/%s", (long long) match, route);
        if (cmd_tpath(path, a, sub) < 0)
                goto usage;
        st = http_send_json(c, "POST", path, body, &m);
        json_decref(body);
        return st ? st : cmd_print(c, m, show_result);
usage:
        json_decref(body);
        return CTL_EXIT_USAGE;
}

static int results_enter(struct ctl *c, const struct args *a) {
        return post_result(c, a, "result", false);
}

static int results_list(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *items;
        int st;

        if (cmd_tpath(path, a, args_flag(a, "csv") ? "/results?format=csv" : "/results") < 0)
                return CTL_EXIT_USAGE;
        if (args_flag(a, "csv"))
                return cmd_get_raw(c, path);
        st = cmd_get_items(c, path, "items", &items);
        return st ? st : cmd_print_list(c, items, results_cols, N_COLS(results_cols));
}

static int corrections_add(struct ctl *c, const struct args *a) {
        return post_result(c, a, "corrections", true);
}

static int corrections_list(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *items;
        int st;

        if (cmd_tpath(path, a, "/corrections") < 0)
                return CTL_EXIT_USAGE;
        st = cmd_get_items(c, path, "items", &items);
        return st ? st : cmd_print_list(c, items, correction_cols, N_COLS(correction_cols));
}

/* --- leaderboards --- */

static const struct column openskill_cols[] = {
        { "RANK", "rank", NULL, true },
        { "PLAYER", "player", NULL, true },
        { "NAME", "name", NULL, false },
        { "CLUB", "club", NULL, false },
        { "ORDINAL", "rating.ordinal", NULL, true },
        { "MU", "rating.mu", NULL, true },
        { "SIGMA", "rating.sigma", NULL, true },
        { "GAMES", "games", NULL, true },
        { "PROVISIONAL", "provisional", NULL, false },
};

static const struct column glicko2_cols[] = {
        { "RANK", "rank", NULL, true },
        { "PLAYER", "player", NULL, true },
        { "NAME", "name", NULL, false },
        { "CLUB", "club", NULL, false },
        { "RATING", "rating.rating", NULL, true },
        { "RD", "rating.rd", NULL, true },
        { "VOLATILITY", "rating.volatility", NULL, true },
        { "GAMES", "games", NULL, true },
        { "PROVISIONAL", "provisional", NULL, false },
};

static void show_leaderboard(const json_t *l) {
        const char *system = json_string_value(json_object_get(l, "system"));
        bool glicko = system && strcmp(system, "glicko2") == 0;

        printf("%s, %s\n\n", json_string_value(json_object_get(l, "game")) ? json_string_value(json_object_get(l, "game")) : "?",
               system ? system : "?");
        if (glicko)
                out_table(glicko2_cols, N_COLS(glicko2_cols), json_object_get(l, "items"));
        else
                out_table(openskill_cols, N_COLS(openskill_cols), json_object_get(l, "items"));
}

static int leaderboards_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        char *game = http_escape(a->pos[0]);
        json_t *l;
        int st;

        if (!game)
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        st = http_path(path, "/v1/leaderboards/%s", game);
        free(game);
        if (st < 0 || http_query(path, "system", args_get(a, "system")) < 0 ||
            http_query(path, "from", args_get(a, "from")) < 0 || http_query(path, "to", args_get(a, "to")) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "the arguments are too long");
        st = http_get_json(c, path, &l);
        return st ? st : cmd_print(c, l, show_leaderboard);
}

static const struct opt enter_opts[] = {
        OPT_TOURNAMENT,
        { "score", 0, OPT_LIST, "PLAYER=SCORE", "a player's game score (games won in a best-of)", NULL },
        { "forfeit", 0, OPT_LIST, "PLAYER", "the player did not play (ranks below everyone who did)", NULL },
        OPT_DATA,
        { NULL },
};

static const struct opt correct_opts[] = {
        OPT_TOURNAMENT,
        { "reason", 0, OPT_VALUE, "TEXT", "why (required; kept with who and when)", NULL },
        { "reset", 0, OPT_FLAG, NULL, "also delete later matches paired from the old result (admin)", NULL },
        { "score", 0, OPT_LIST, "PLAYER=SCORE", "a player's game score", NULL },
        { "forfeit", 0, OPT_LIST, "PLAYER", "the player did not play", NULL },
        OPT_DATA,
        { NULL },
};

static const struct opt list_opts[] = {
        OPT_TOURNAMENT,
        { "csv", 0, OPT_FLAG, NULL, "the server's CSV export, one line per seat", NULL },
        { NULL },
};

static const struct opt t_opt[] = { OPT_TOURNAMENT, { NULL } };

static const struct opt board_opts[] = {
        { "system", 0, OPT_VALUE, "SYSTEM", "openskill (every match, the default) or glicko2 (duels)", "openskill glicko2" },
        { "from", 0, OPT_VALUE, "YYYY-MM-DD", "a season: results recorded on or after this day", NULL },
        { "to", 0, OPT_VALUE, "YYYY-MM-DD", "and before this day", NULL },
        { NULL },
};

#define RESULT_DETAILS \
        "MATCH is the stage match (arbiterctl matches list -t T).  Ranks: 1 is first,\n" \
        "equal ranks tie (1 1 3).  Example: results enter -t 7 32 1=1 4=2 --forfeit 4\n"

static const struct verb result_verbs[] = {
        { "enter", "[-t TOURNAMENT] MATCH PLAYER=RANK... [--score PLAYER=SCORE] [--forfeit PLAYER]", 1, -1, NULL,
          "enter a match's result by hand (a forfeit, a no-show, a game scored on paper)",
          "POST /v1/tournaments/{id}/matches/{match}/result (referee)", RESULT_DETAILS, enter_opts, results_enter },
        { "list", "[-t TOURNAMENT] [--csv]", 0, 0, NULL, "every result of a tournament",
          "GET /v1/tournaments/{id}/results (display)", NULL, list_opts, results_list },
        { NULL },
};

static const struct verb correction_verbs[] = {
        { "add", "[-t TOURNAMENT] MATCH PLAYER=RANK... --reason TEXT [--reset]", 1, -1, NULL,
          "correct a match's result", "POST /v1/tournaments/{id}/matches/{match}/corrections (referee; admin with --reset)",
          "If later matches were paired from the old result and have been played or\n"
          "called, the answer is a conflict (exit 4) listing them; --reset deletes them.\n",
          correct_opts, corrections_add },
        { "list", "[-t TOURNAMENT]", 0, 0, NULL, "every correction, with who, when and why",
          "GET /v1/tournaments/{id}/corrections (display)", NULL, t_opt, corrections_list },
        { NULL },
};

static const struct verb leaderboard_verbs[] = {
        { "show", "GAME [--system SYSTEM] [--from DAY] [--to DAY]", 1, 1, NULL, "a game's players by rating",
          "GET /v1/leaderboards/{game} (display)", NULL, board_opts, leaderboards_show },
        { NULL },
};

const struct noun noun_results = { "results", "Match results: enter by hand, list, export", result_verbs };
const struct noun noun_corrections = { "corrections", "Corrections of results, with who, when and why",
                                       correction_verbs };
const struct noun noun_leaderboards = { "leaderboards", "Ratings by game, all time or for a season",
                                        leaderboard_verbs };
