/* tools/arbiterctl/cmd_matches.c — `matches`: the runtime matches played
 * at the tables (/v1/matches/...; docs/matches.md) and, with -t, a
 * tournament's stage matches (/v1/tournaments/{id}/matches/...), which
 * `call` turns into runtime matches.
 *
 * Two kinds of id: a stage match's (what `rounds next` pairs, what
 * results are entered for) and a runtime match's (what is started,
 * paused, sent inputs).  A verb says which it takes; `matches show -t`
 * shows a stage match with the runtime match that plays it ("RUNTIME").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/describe.h"
#include "tools/arbiterctl/http.h"

#define MATCH_STATES "ready running paused provisional finished aborted"
#define STAGE_MATCH_STATES "pending called done"
/* Seats of a match (docs/openapi.yaml, Seat: 1..8; a heat up to 16). */
#define SEAT_MAX 16

static void seats_cell(const json_t *m, char *buf, size_t size) {
        out_names(json_object_get(m, "seats"), buf, size);
}

static void players_cell(const json_t *m, char *buf, size_t size) {
        out_names(json_object_get(m, "participants"), buf, size);
}

static void result_cell(const json_t *m, char *buf, size_t size) {
        out_result(json_object_get(m, "result"), buf, size);
}

static const struct column match_cols[] = {
        { "ID", "id", NULL, true },
        { "GAME", "game", NULL, false },
        { "TABLE", "table", NULL, true },
        { "STATE", "state", NULL, false },
        { "PLAYERS", NULL, seats_cell, false },
        { "STARTED", "started_at", NULL, false },
        { "FINISHED", "finished_at", NULL, false },
};

static const struct column stage_match_cols[] = {
        { "ID", "id", NULL, true },
        { "STAGE", "stage", NULL, true },
        { "ROUND", "round", NULL, true },
        { "TABLE_NO", "table_no", NULL, true },
        { "TABLE", "table", NULL, true },
        { "STATE", "state", NULL, false },
        { "RUNTIME", "match", NULL, true },
        { "PLAYERS", NULL, players_cell, false },
        { "RESULT", NULL, result_cell, false },
};

static void input_cell(const json_t *row, char *buf, size_t size) {
        static const char *const skip[] = { "seq", "kind", "seat", "time_us", NULL };
        const json_t *in = json_object_get(row, "input");
        const char *key;
        json_t *v;

        buf[0] = '\0';
        json_object_foreach((json_t *) in, key, v) {
                bool skipped = json_is_null(v);
                for (const char *const *s = skip; *s; s++)
                        skipped = skipped || strcmp(*s, key) == 0;
                if (skipped)
                        continue;
                char value[OUT_CELL_MAX];
                out_value(v, value, sizeof value);
                out_append(buf, size, "%s%s=%s", buf[0] ? " " : "", key, value);
        }
}

static const struct column log_cols[] = {
        { "SEQ", "seq", NULL, true },
        { "TIME_US", "time_us", NULL, true },
        { "KIND", "kind", NULL, false },
        { "SEAT", "seat", NULL, true },
        { "SOURCE", "source", NULL, false },
        { "WHO", "who", NULL, false },
        { "REFUSAL", "refusal", NULL, false },
        { "VOIDED_BY", "voided_by", NULL, true },
        { "REASON", "reason", NULL, false },
        { "INPUT", NULL, input_cell, false },
};

/* A placement with its seat's name, for the table under a match. */
static void placement_name(const json_t *p, char *buf, size_t size) {
        const char *n = json_string_value(json_object_get(p, "name"));
        snprintf(buf, size, "%s", n ? n : "-");
}

static const struct column placement_cols[] = {
        { "PLACE", "place", NULL, true },
        { "SEAT", "seat", NULL, true },
        { "NAME", NULL, placement_name, false },
        { "SCORE", "score.total", NULL, true },
};

static const struct column seat_cols[] = {
        { "SEAT", "seat", NULL, true },
        { "NAME", "name", NULL, false },
        { "PADS", "pads", NULL, false },
};

/* --- showing --- */

static void show_match(const json_t *m) {
        static const char *const skip[] = { "view", "result", "seats", "table_pads", "config", "data", NULL };
        const json_t *result = json_object_get(m, "result"), *placements = json_object_get(result, "placements"), *p;
        size_t i;

        out_fields(m, skip);
        printf("\n");
        out_table(seat_cols, N_COLS(seat_cols), json_object_get(m, "seats"));
        if (json_array_size(placements) > 0) {
                json_t *rows = json_deep_copy(placements);
                json_array_foreach(rows, i, p) {
                        json_int_t seat = json_integer_value(json_object_get(p, "seat"));
                        const json_t *s, *seats = json_object_get(m, "seats");
                        size_t k;
                        json_array_foreach(seats, k, s) if (json_integer_value(json_object_get(s, "seat")) == seat)
                                json_object_set((json_t *) p, "name", json_object_get(s, "name"));
                }
                const char *state = json_string_value(json_object_get(m, "state"));
                /* provisional: finished, waiting for a referee's confirm */
                printf("\n%s:\n", state && strcmp(state, "provisional") == 0 ? "provisional result (to confirm)"
                                   : json_is_true(json_object_get(result, "finished")) ? "result"
                                                                                      : "standing so far");
                out_table(placement_cols, N_COLS(placement_cols), rows);
                json_decref(rows);
        }
}

static void show_match_state(const json_t *m) {
        printf("match %lld: %s\n", (long long) json_integer_value(json_object_get(m, "id")),
               json_string_value(json_object_get(m, "state")) ? json_string_value(json_object_get(m, "state")) : "?");
}

/* A stage match's participants with their results, in seat order. */
static void show_stage_match(const json_t *m) {
        static const char *const skip[] = { "participants", "result", NULL };
        static const struct column cols[] = {
                { "SEAT", "seat", NULL, true },     { "PLAYER", "player", NULL, true },
                { "NAME", "name", NULL, false },    { "RANK", "rank", NULL, true },
                { "SCORE", "score", NULL, true },   { "FORFEIT", "forfeit", NULL, false },
        };
        json_t *rows = json_deep_copy(json_object_get(m, "participants")), *p, *e;
        size_t i, k;

        out_fields(m, skip);
        json_array_foreach(rows, i, p) {
                json_array_foreach(json_object_get(m, "result"), k, e) {
                        if (json_integer_value(json_object_get(e, "player")) ==
                            json_integer_value(json_object_get(p, "player"))) {
                                json_object_set(p, "rank", json_object_get(e, "rank"));
                                json_object_set(p, "score", json_object_get(e, "score"));
                                json_object_set(p, "forfeit", json_object_get(e, "forfeit"));
                        }
                }
        }
        printf("\n");
        out_table(cols, N_COLS(cols), rows);
        json_decref(rows);
}

static void show_called(const json_t *m) {
        printf("stage match %lld called: runtime match %lld", (long long) json_integer_value(json_object_get(m, "id")),
               (long long) json_integer_value(json_object_get(m, "match")));
        if (json_is_integer(json_object_get(m, "table")))
                printf(" at table %lld", (long long) json_integer_value(json_object_get(m, "table")));
        printf("\n");
}

/* An input's reply: its seq and the state, then the referee's explanation
 * (or the events in words), and what a void voided. */
static void show_input(const json_t *r) {
        const json_t *expl = json_object_get(r, "explanation"), *events = json_object_get(r, "events"), *e;
        const json_t *voided = json_object_get(r, "voided");
        size_t i;

        if (json_is_true(json_object_get(r, "preview")))
                printf("preview (nothing stored): ");
        printf("seq %lld, state %s\n", (long long) json_integer_value(json_object_get(r, "seq")),
               json_string_value(json_object_get(r, "state")) ? json_string_value(json_object_get(r, "state"))
                                                             : "unchanged");
        if (json_array_size(expl) > 0) {
                json_array_foreach(expl, i, e) printf("  %s\n", json_string_value(e) ? json_string_value(e) : "");
        } else {
                json_array_foreach(events, i, e) {
                        char text[OUT_CELL_MAX];
                        const char *kind = json_string_value(json_object_get(e, "kind"));
                        describe_event(kind ? kind : "?", e, text, sizeof text);
                        printf("  %s %s\n", kind ? kind : "?", text);
                }
        }
        if (json_array_size(voided) > 0) {
                printf("voided (enter again what should stand):\n");
                out_table(log_cols, N_COLS(log_cols), voided);
        }
}

/* --- verbs --- */

static int match_path(char *path, const struct args *a, const char *tail) {
        int64_t id;

        if (args_pos_id(a, 0, "MATCH", &id) < 0)
                return -EINVAL;
        return http_path(path, "/v1/matches/%lld%s", (long long) id, tail);
}

/* The stage-match path of -t TOURNAMENT and argument 0. */
static int stage_match_path(char *path, const struct args *a, const char *tail) {
        char sub[HTTP_PATH_MAX];
        int64_t id;

        if (args_pos_id(a, 0, "MATCH", &id) < 0)
                return -EINVAL;
        snprintf(sub, sizeof sub, "/matches/%lld%s", (long long) id, tail);
        return cmd_tpath(path, a, sub);
}

static int matches_list(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        long long limit, after;
        int64_t n;
        json_t *items;
        int st;

        if (args_get(a, "tournament")) {
                if (cmd_tpath(path, a, "/matches") < 0 || args_opt_id(a, "stage", &n) < 0 ||
                    args_opt_id(a, "round", &n) < 0)
                        return CTL_EXIT_USAGE;
                if (http_query(path, "stage", args_get(a, "stage")) < 0 ||
                    http_query(path, "round", args_get(a, "round")) < 0 ||
                    http_query(path, "state", args_get(a, "state")) < 0)
                        return CTL_EXIT_USAGE;
                st = cmd_get_items(c, path, "items", &items);
                return st ? st : cmd_print_list(c, items, stage_match_cols, N_COLS(stage_match_cols));
        }
        if (args_get(a, "stage") || args_get(a, "round"))
                return ctl_fail(CTL_EXIT_USAGE, "--stage and --round go with -t TOURNAMENT");
        if (cmd_page(a, &limit, &after) < 0)
                return CTL_EXIT_USAGE;
        snprintf(path, sizeof path, "/v1/matches");
        if (http_query(path, "state", args_get(a, "state")) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_all(c, path, limit, after, &items);
        return st ? st : cmd_print_list(c, items, match_cols, N_COLS(match_cols));
}

static int matches_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        bool stage = args_get(a, "tournament") != NULL;
        json_t *m;
        int st;

        if ((stage ? stage_match_path(path, a, "") : match_path(path, a, "")) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_json(c, path, &m);
        return st ? st : cmd_print(c, m, stage ? show_stage_match : show_match);
}

static int matches_create(struct ctl *c, const struct args *a) {
        const char *config = args_get(a, "config"), *confirm = args_get(a, "confirm");
        json_t *body, *players = json_array(), *v, *m;
        int64_t n;
        int st;

        if (!players || args_body(a, &body) < 0) {
                json_decref(players);
                return CTL_EXIT_USAGE;
        }
        json_object_set_new(body, "game", json_string(a->pos[0]));
        for (int i = 1; i < a->n_pos; i++)
                json_array_append_new(players, json_string(a->pos[i]));
        json_object_set_new(body, "players", players);
        if (args_get(a, "table")) {
                if (args_opt_id(a, "table", &n) < 0)
                        goto usage;
                json_object_set_new(body, "table", json_integer(n));
        }
        if (args_get(a, "seed")) {
                if (args_parse_int(args_get(a, "seed"), "--seed", 0, INT64_MAX, &n) < 0)
                        goto usage;
                json_object_set_new(body, "seed", json_integer(n));
        }
        if (config) {
                if (args_load_json(config, "--config", &v) < 0)
                        goto usage;
                json_object_set_new(body, "config", v);
        }
        if (confirm) {
                if (!(v = cmd_confirm(confirm)))
                        goto usage;
                json_object_set_new(body, "confirm", v);
        }
        st = http_send_json(c, "POST", "/v1/matches", body, &m);
        json_decref(body);
        return st ? st : cmd_print(c, m, show_match);
usage:
        json_decref(body);
        return CTL_EXIT_USAGE;
}

static int matches_call(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *body, *m;
        int64_t table = 0;
        int st;

        if (stage_match_path(path, a, "/call") < 0 || args_opt_id(a, "table", &table) < 0)
                return CTL_EXIT_USAGE;
        body = table ? json_pack("{s:I}", "table", (json_int_t) table) : json_object();
        st = http_send_json(c, "POST", path, body, &m);
        json_decref(body);
        return st ? st : cmd_print(c, m, show_called);
}

static int operate(struct ctl *c, const struct args *a, const char *what) {
        char path[HTTP_PATH_MAX], tail[32];
        json_t *m;
        int st;

        snprintf(tail, sizeof tail, "/%s", what);
        if (match_path(path, a, tail) < 0)
                return CTL_EXIT_USAGE;
        st = http_send_json(c, "POST", path, NULL, &m);
        return st ? st : cmd_print(c, m, show_match_state);
}

static int matches_start(struct ctl *c, const struct args *a) {
        return operate(c, a, "start");
}

static int matches_pause(struct ctl *c, const struct args *a) {
        return operate(c, a, "pause");
}

static int matches_resume(struct ctl *c, const struct args *a) {
        return operate(c, a, "resume");
}

static int matches_abort(struct ctl *c, const struct args *a) {
        return operate(c, a, "abort");
}

/* POSTs body (taken) to the match's inputs or preview. */
static int send_input(struct ctl *c, const struct args *a, json_t *body, const char *route) {
        char path[HTTP_PATH_MAX];
        const char *reason = args_get(a, "reason");
        json_t *r;
        int64_t seat;
        int st;

        if (args_get(a, "seat")) {
                if (args_parse_int(args_get(a, "seat"), "--seat", 1, SEAT_MAX, &seat) < 0) {
                        json_decref(body);
                        return CTL_EXIT_USAGE;
                }
                json_object_set_new(body, "seat", json_integer(seat));
        }
        if (reason)
                json_object_set_new(body, "reason", json_string(reason));
        if (match_path(path, a, route) < 0) {
                json_decref(body);
                return CTL_EXIT_USAGE;
        }
        st = http_send_json(c, "POST", path, body, &r);
        json_decref(body);
        return st ? st : cmd_print(c, r, show_input);
}

/* matches input|preview MATCH KIND [FIELD=VALUE...] */
static int input_body(const struct args *a, json_t **ret) {
        json_t *body;

        if (args_body(a, &body) < 0)
                return -EINVAL;
        json_object_set_new(body, "kind", json_string(a->pos[1]));
        for (int i = 2; i < a->n_pos; i++)
                if (args_set_kv(body, a->pos[i], "FIELD=VALUE") < 0) {
                        json_decref(body);
                        return -EINVAL;
                }
        *ret = body;
        return 0;
}

static int matches_input(struct ctl *c, const struct args *a) {
        json_t *body;

        if (input_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        return send_input(c, a, body, "/inputs");
}

static int matches_preview(struct ctl *c, const struct args *a) {
        json_t *body;

        if (input_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        return send_input(c, a, body, "/preview");
}

static int matches_void(struct ctl *c, const struct args *a) {
        int64_t seq;

        if (args_parse_id(a->pos[1], "SEQ", &seq) < 0)
                return CTL_EXIT_USAGE;
        return send_input(c, a, json_pack("{s:s, s:I}", "kind", "void", "target", (json_int_t) seq), "/inputs");
}

static int matches_confirm(struct ctl *c, const struct args *a) {
        return send_input(c, a, json_pack("{s:s}", "kind", "confirm"), "/inputs");
}

static int matches_log(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        long long limit, after;
        json_t *items;
        int st;

        if (match_path(path, a, "/log") < 0 || cmd_page(a, &limit, &after) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_all(c, path, limit, after, &items);
        return st ? st : cmd_print_list(c, items, log_cols, N_COLS(log_cols));
}

/* A view is the game's own object: shown as JSON, whatever the mode. */
static int matches_view(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX], tail[64] = "";
        const char *seat_text = args_get(a, "seat");
        bool referee = args_flag(a, "referee");
        int64_t seat;
        json_t *r, *view;
        int st;

        if (seat_text && referee)
                return ctl_fail(CTL_EXIT_USAGE, "--seat or --referee, not both");
        if (seat_text) {
                if (args_parse_int(seat_text, "--seat", 1, SEAT_MAX, &seat) < 0)
                        return CTL_EXIT_USAGE;
                snprintf(tail, sizeof tail, "/seats/%lld", (long long) seat);
        } else if (referee) {
                snprintf(tail, sizeof tail, "/referee");
        }
        if (match_path(path, a, tail) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_json(c, path, &r);
        if (st)
                return st;
        /* the match and the referee's reply wrap it; a seat's is the view */
        view = seat_text ? r : json_object_get(r, "view");
        if (!c->json && json_is_null(view)) {
                printf("match %s has no view: it is not live in this daemon (%s)\n", a->pos[0],
                       json_string_value(json_object_get(r, "state")) ? json_string_value(json_object_get(r, "state"))
                                                                     : "?");
                json_decref(r);
                return CTL_EXIT_OK;
        }
        st = out_json(c->json || !view ? r : view);
        json_decref(r);
        return st < 0 ? ctl_fail(CTL_EXIT_ERROR, "cannot print the view") : CTL_EXIT_OK;
}

static void show_token(const json_t *t) {
        out_fields(t, NULL);
        printf("\nThe token is shown only this once: give it to the station now.\n");
}

static int matches_seat_token(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX], tail[64];
        int64_t seat;
        json_t *t;
        int st;

        if (args_parse_int(a->pos[1], "SEAT", 1, SEAT_MAX, &seat) < 0)
                return CTL_EXIT_USAGE;
        snprintf(tail, sizeof tail, "/seats/%lld/token", (long long) seat);
        if (match_path(path, a, tail) < 0)
                return CTL_EXIT_USAGE;
        st = http_send_json(c, "POST", path, NULL, &t);
        return st ? st : cmd_print(c, t, show_token);
}

static const struct opt list_opts[] = {
        { "tournament", 't', OPT_VALUE, "ID", "the tournament's stage matches instead of the runtime matches", NULL },
        { "stage", 's', OPT_VALUE, "N", "with -t: only this stage", NULL },
        { "round", 'r', OPT_VALUE, "N", "with -t: only this round", NULL },
        { "state", 0, OPT_VALUE, "STATE", "only matches in this state (" MATCH_STATES "; with -t: " STAGE_MATCH_STATES ")",
          MATCH_STATES " " STAGE_MATCH_STATES },
        OPT_LIMIT,
        OPT_AFTER,
        { NULL },
};
static const struct opt show_opts[] = {
        { "tournament", 't', OPT_VALUE, "ID", "MATCH is a stage match of this tournament", NULL },
        { NULL },
};
static const struct opt create_opts[] = {
        { "table", 0, OPT_VALUE, "ID", "the venue table whose pads the seats get", NULL },
        { "seed", 0, OPT_VALUE, "N", "the deck's seed (default: random, hidden until the end)", NULL },
        { "config", 0, OPT_VALUE, "JSON", "the game's settings: '{...}', @FILE or -", NULL },
        { "confirm", 0, OPT_VALUE, "HOW", "auto, referee or referee:SECONDS", "auto referee" },
        OPT_DATA,
        { NULL },
};
static const struct opt call_opts[] = {
        OPT_TOURNAMENT,
        { "table", 0, OPT_VALUE, "ID", "this venue table instead of the one the match was given", NULL },
        { NULL },
};
static const struct opt input_opts[] = {
        { "seat", 0, OPT_VALUE, "N", "the seat the input acts for (seated inputs)", NULL },
        { "reason", 0, OPT_VALUE, "TEXT", "why, kept in the match's log", NULL },
        OPT_DATA,
        { NULL },
};
static const struct opt reason_opt[] = {
        { "reason", 0, OPT_VALUE, "TEXT", "why, kept in the match's log", NULL },
        { NULL },
};
static const struct opt log_opts[] = { OPT_LIMIT, OPT_AFTER, { NULL } };
static const struct opt view_opts[] = {
        { "seat", 0, OPT_VALUE, "N", "that seat's view, with its private fields (referee or seat token)", NULL },
        { "referee", 0, OPT_FLAG, NULL, "the referee's view (referee token)", NULL },
        { NULL },
};

#define INPUT_DETAILS \
        "KIND is one of the game's inputs (arbiterctl games show GAME); each FIELD=VALUE\n" \
        "sets a field: VALUE is taken as JSON when it is JSON (3, true, [1,3]), else as\n" \
        "text (call=\"row 3\").  A refused input is a conflict (exit 4) naming the refusal.\n"

static const struct verb verbs[] = {
        { "list", "[-t TOURNAMENT [--stage N] [--round N]] [--state STATE]", 0, 0, NULL,
          "list runtime matches, or a tournament's stage matches",
          "GET /v1/matches, GET /v1/tournaments/{id}/matches (display)",
          "$ARBITER_TOURNAMENT does not apply: without -t the runtime matches are listed.\n", list_opts,
          matches_list },
        { "show", "[-t TOURNAMENT] MATCH", 1, 1, NULL, "show a runtime match, or with -t a stage match",
          "GET /v1/matches/{id}, GET /v1/tournaments/{id}/matches/{match} (display)",
          "The game's view is left out of the table: arbiterctl matches view MATCH.\n", show_opts, matches_show },
        { "create", "GAME PLAYER... [--table ID] [--seed N] [--config JSON] [--confirm HOW]", 2, -1, NULL,
          "create a match outside any tournament", "POST /v1/matches (referee)", NULL, create_opts, matches_create },
        { "call", "[-t TOURNAMENT] MATCH [--table ID]", 1, 1, NULL, "call a stage match to its table: a runtime match",
          "POST /v1/tournaments/{id}/matches/{match}/call (referee)",
          "MATCH is the stage match; the reply names the runtime match that plays it.\n", call_opts,
          matches_call },
        { "start", "MATCH", 1, 1, NULL, "start a ready runtime match", "POST /v1/matches/{id}/start (referee)", NULL,
          NULL, matches_start },
        { "pause", "MATCH", 1, 1, NULL, "pause a running match (the operator's pause)",
          "POST /v1/matches/{id}/pause (referee)", NULL, NULL, matches_pause },
        { "resume", "MATCH", 1, 1, NULL, "resume a paused match", "POST /v1/matches/{id}/resume (referee)", NULL, NULL,
          matches_resume },
        { "abort", "MATCH", 1, 1, NULL, "abandon a match that has not finished",
          "POST /v1/matches/{id}/abort (referee)",
          "A tournament's match that is aborted is pending again, to be called anew.\n", NULL, matches_abort },
        { "input", "MATCH KIND [FIELD=VALUE...] [--seat N] [--reason TEXT]", 2, -1, NULL, "send an input by name",
          "POST /v1/matches/{id}/inputs (referee, or the seat's token)", INPUT_DETAILS, input_opts, matches_input },
        { "preview", "MATCH KIND [FIELD=VALUE...] [--seat N]", 2, -1, NULL,
          "what an input would do, stored nowhere", "POST /v1/matches/{id}/preview (referee)", INPUT_DETAILS,
          input_opts, matches_preview },
        { "void", "MATCH SEQ [--reason TEXT]", 2, 2, NULL, "undo input SEQ and everything after it",
          "POST /v1/matches/{id}/inputs {\"kind\": \"void\"} (referee)",
          "The reply lists the inputs voided, to enter again what should stand.\n", reason_opt, matches_void },
        { "confirm", "MATCH [--reason TEXT]", 1, 1, NULL, "make a provisional result final",
          "POST /v1/matches/{id}/inputs {\"kind\": \"confirm\"} (referee)", NULL, reason_opt, matches_confirm },
        { "log", "MATCH [--limit N [--after SEQ]]", 1, 1, NULL, "the stored input log",
          "GET /v1/matches/{id}/log (referee)", NULL, log_opts, matches_log },
        { "view", "MATCH [--seat N | --referee]", 1, 1, NULL, "the game's view of a live match, as JSON",
          "GET /v1/matches/{id} (display), .../seats/{seat} (seat), .../referee (referee)", NULL, view_opts,
          matches_view },
        { "seat-token", "MATCH SEAT", 2, 2, NULL, "a token for one seat's station",
          "POST /v1/matches/{id}/seats/{seat}/token (referee)",
          "Revokes the seat's previous token.  The token is shown once.\n", NULL, matches_seat_token },
        { NULL },
};

const struct noun noun_matches = { "matches", "Matches: call, start, pause, inputs, undo, confirm, the log", verbs };
