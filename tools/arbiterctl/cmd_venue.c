/* tools/arbiterctl/cmd_venue.c — the room and the daemon: the league's `venues`, `tables` (which
 * pad sits at which seat), `pads`, the `games` arbiterd runs, and the
 * `server`'s health, counters and routes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/complete.h"
#include "tools/arbiterctl/http.h"

/* docs/openapi.yaml, Seat: 1..8 seats at a table. */
#define TABLE_SEATS_MAX 8

/* A table's pads by seat: "1:0000000000001001 2:0000000000001003 k:…". */
static void table_pads_cell(const json_t *t, char *buf, size_t size) {
        const json_t *seat, *p;
        size_t i, k;

        buf[0] = '\0';
        json_array_foreach(json_object_get(t, "seats"), i, seat) {
                json_array_foreach(json_object_get(seat, "pads"), k, p) {
                        const char *role = json_string_value(json_object_get(p, "role"));
                        out_append(buf, size, "%s%lld:%s%s%s", buf[0] ? " " : "",
                                   (long long) json_integer_value(json_object_get(seat, "seat")),
                                   json_string_value(json_object_get(p, "pad")) ? json_string_value(json_object_get(p, "pad")) : "?",
                                   role && strcmp(role, "buttons") != 0 ? "/" : "", role && strcmp(role, "buttons") != 0 ? role : "");
                }
        }
        json_array_foreach(json_object_get(t, "pads"), k, p)
                out_append(buf, size, "%skeypad:%s", buf[0] ? " " : "",
                           json_string_value(json_object_get(p, "pad")) ? json_string_value(json_object_get(p, "pad")) : "?");
        if (!buf[0])
                snprintf(buf, size, "-");
}

static void seat_count_cell(const json_t *t, char *buf, size_t size) {
        snprintf(buf, size, "%zu", json_array_size(json_object_get(t, "seats")));
}

static const struct column table_cols[] = {
        { "ID", "id", NULL, true },
        { "NAME", "name", NULL, false },
        { "VENUE", "venue", NULL, false },
        { "SEATS", NULL, seat_count_cell, true },
        { "PADS", NULL, table_pads_cell, false },
};

/* "0000000000002001, 0000000000002002 (slap)": a role shown unless buttons. */
static void pads_cell(const json_t *seat, char *buf, size_t size) {
        const json_t *p;
        size_t i;

        buf[0] = '\0';
        json_array_foreach(json_object_get(seat, "pads"), i, p) {
                const char *id = json_string_value(json_object_get(p, "pad"));
                const char *role = json_string_value(json_object_get(p, "role"));
                out_append(buf, size, "%s%s", i ? ", " : "", id ? id : "?");
                if (role && strcmp(role, "buttons") != 0)
                        out_append(buf, size, " (%s)", role);
        }
        if (!buf[0])
                snprintf(buf, size, "-");
}

static const struct column seat_cols[] = {
        { "SEAT", "seat", NULL, true },
        { "PADS", NULL, pads_cell, false },
        { "BUTTONS", "buttons", NULL, false },
};

/* "-" or the ports of the devices contesting the pad's uid. */
static void conflict_cell(const json_t *pad, char *buf, size_t size) {
        const json_t *port;
        size_t i;

        buf[0] = '\0';
        json_array_foreach(json_object_get(json_object_get(pad, "conflict"), "ports"), i, port)
                out_append(buf, size, "%s%s", i ? " " : "", json_string_value(port) ? json_string_value(port) : "?");
        if (!buf[0])
                snprintf(buf, size, "-");
}

static const struct column pad_cols[] = {
        { "ID", "id", NULL, false },
        { "KIND", "kind", NULL, false },
        { "BUTTONS", "buttons", NULL, true },
        { "CONNECTED", "connected", NULL, false },
        { "PORT", "port", NULL, false },
        { "ADDRESS", "address", NULL, true },
        { "SYNCED", "clock.synced", NULL, false },
        { "PRESSES", "counters.presses", NULL, true },
        { "LAST_SEEN_AGO_MS", "last_seen_ago_ms", NULL, true },
        { "CONFLICT", NULL, conflict_cell, false },
};

static const struct column port_cols[] = {
        { "PORT", "path", NULL, false },
        { "OPEN", "open", NULL, false },
        { "OPENS", "opens", NULL, true },
        { "FRAMES", "faults.frames", NULL, true },
        { "CRC", "faults.crc", NULL, true },
        { "COBS", "faults.cobs", NULL, true },
        { "ERROR", "error", NULL, false },
};

static const struct column game_cols[] = {
        { "NAME", "name", NULL, false },
        { "DISPLAY_NAME", "display_name", NULL, false },
        { "MIN_SEATS", "min_seats", NULL, true },
        { "MAX_SEATS", "max_seats", NULL, true },
};

static void from_cell(const json_t *in, char *buf, size_t size) {
        out_value(json_object_get(in, "from"), buf, size);
}

static void fields_cell(const json_t *in, char *buf, size_t size) {
        const json_t *f;
        size_t i;

        buf[0] = '\0';
        json_array_foreach(json_object_get(in, "fields"), i, f) {
                out_append(buf, size, "%s%s%s", i ? " " : "",
                           json_string_value(json_object_get(f, "name")) ? json_string_value(json_object_get(f, "name")) : "?",
                           json_is_true(json_object_get(f, "optional")) ? "?" : "");
        }
        if (!buf[0])
                snprintf(buf, size, "-");
}

static const struct column param_cols[] = {
        { "SETTING", "name", NULL, false },
        { "TYPE", "type", NULL, false },
        { "DEFAULT", "default", NULL, true },
        { "MIN", "min", NULL, true },
        { "MAX", "max", NULL, true },
        { "UNIT", "unit", NULL, false },
};

static const struct column input_cols[] = {
        { "INPUT", "name", NULL, false },
        { "FROM", NULL, from_cell, false },
        { "SEATED", "seated", NULL, false },
        { "FIELDS", NULL, fields_cell, false },
};

static const struct column call_cols[] = {
        { "CALL", "call", NULL, true },
        { "NAME", "name", NULL, false },
        { "BUTTON", "button", NULL, true },
};

static const struct column route_cols[] = {
        { "METHOD", "method", NULL, false },
        { "PATH", "path", NULL, false },
        { "ROLE", "role", NULL, false },
        { "SUMMARY", "summary", NULL, false },
};

/* --- tables --- */

static void show_table(const json_t *t) {
        static const char *const skip[] = { "seats", "pads", NULL };
        char pads[OUT_CELL_MAX];

        out_fields(t, skip);
        printf("\n");
        out_table(seat_cols, N_COLS(seat_cols), json_object_get(t, "seats"));
        if (json_array_size(json_object_get(t, "pads")) > 0) {
                pads_cell(t, pads, sizeof pads);
                printf("\ntable pads: %s\n", pads);
        }
}

static int tables_list(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX] = "/v1/tables";
        long long limit, after;
        json_t *items;
        int st;

        if (cmd_page(a, &limit, &after) < 0 || http_query(path, "venue", args_get(a, "venue")) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_all(c, path, limit, after, &items);
        return st ? st : cmd_print_list(c, items, table_cols, N_COLS(table_cols));
}

static int tables_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t id;
        json_t *t;
        int st;

        CMD_ID(a, 0, "TABLE", &id);
        http_path(path, "/v1/tables/%lld", (long long) id);
        st = http_get_json(c, path, &t);
        return st ? st : cmd_print(c, t, show_table);
}

/* --pad SEAT=PAD[:ROLE] into the seat's pads. */
static int add_pad(json_t *seats, const char *spec) {
        char buf[128], *colon;
        const char *k, *v;
        int64_t seat;
        json_t *s, *pads;
        size_t i;

        if (args_split(spec, buf, sizeof buf, &k, &v) < 0 ||
            args_parse_int(k, "--pad SEAT", 1, TABLE_SEATS_MAX, &seat) < 0) {
                ctl_fail(CTL_EXIT_USAGE, "--pad: \"%s\" is not SEAT=PAD[:ROLE]", spec);
                return -EINVAL;
        }
        colon = strchr(v, ':');
        if (colon)
                *colon = '\0';
        json_array_foreach(seats, i, s) {
                if (json_integer_value(json_object_get(s, "seat")) != seat)
                        continue;
                pads = json_object_get(s, "pads");
                if (!json_is_array(pads)) {
                        pads = json_array();
                        json_object_set_new(s, "pads", pads);
                }
                return json_array_append_new(pads, json_pack("{s:s, s:s}", "pad", v, "role", colon ? colon + 1 : "buttons"));
        }
        ctl_fail(CTL_EXIT_USAGE, "--pad: the table has no seat %lld (--seats)", (long long) seat);
        return -EINVAL;
}

static int tables_add(struct ctl *c, const struct args *a) {
        const char *spec;
        json_t *body, *seats, *t;
        int64_t n;
        int st;

        if (args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        json_object_set_new(body, "name", json_string(a->pos[0]));
        if (args_get(a, "venue"))
                json_object_set_new(body, "venue", json_string(args_get(a, "venue")));
        if (args_get(a, "seats")) {
                if (args_parse_int(args_get(a, "seats"), "--seats", 1, TABLE_SEATS_MAX, &n) < 0)
                        goto usage;
                seats = json_array();
                for (int64_t i = 1; i <= n; i++)
                        json_array_append_new(seats, json_pack("{s:I}", "seat", (json_int_t) i));
                json_object_set_new(body, "seats", seats);
        }
        seats = json_object_get(body, "seats");
        if (!json_is_array(seats)) {
                ctl_fail(CTL_EXIT_USAGE, "tables add: how many seats? --seats N");
                goto usage;
        }
        for (int i = 0; (spec = args_nth(a, "pad", i)); i++)
                if (add_pad(seats, spec) < 0)
                        goto usage;
        for (int i = 0; (spec = args_nth(a, "keypad", i)); i++) {
                json_t *pads = json_object_get(body, "pads");
                if (!json_is_array(pads)) {
                        pads = json_array();
                        json_object_set_new(body, "pads", pads);
                }
                json_array_append_new(pads, json_pack("{s:s, s:s}", "pad", spec, "role", "keypad"));
        }
        st = http_send_json(c, "POST", "/v1/tables", body, &t);
        json_decref(body);
        return st ? st : cmd_print(c, t, show_table);
usage:
        json_decref(body);
        return CTL_EXIT_USAGE;
}

/* --- venues --- */

static const struct column venue_cols[] = {
        { "ID", "id", NULL, false },
        { "NAME", "name", NULL, false },
        { "DAEMON", "daemon", NULL, false },
        { "TABLES", "tables", NULL, true },
        { "THIS", "this", NULL, false },
};

static void show_venue(const json_t *v) {
        out_fields(v, NULL);
}

static int venues_list(struct ctl *c, const struct args *a) {
        json_t *items;
        int st;

        (void) a;
        st = cmd_get_items(c, "/v1/venues", "items", &items);
        return st ? st : cmd_print_list(c, items, venue_cols, N_COLS(venue_cols));
}

static int venues_add(struct ctl *c, const struct args *a) {
        json_t *body, *v;
        int st;

        if (args_body(a, &body) < 0)
                return CTL_EXIT_USAGE;
        json_object_set_new(body, "id", json_string(a->pos[0]));
        json_object_set_new(body, "name", json_string(args_get(a, "name") ? args_get(a, "name") : a->pos[0]));
        st = http_send_json(c, "POST", "/v1/venues", body, &v);
        json_decref(body);
        return st ? st : cmd_print(c, v, show_venue);
}

/* --- pads --- */

static void show_pads(const json_t *r) {
        out_table(pad_cols, N_COLS(pad_cols), json_object_get(r, "items"));
        if (json_array_size(json_object_get(r, "ports")) > 0) {
                printf("\n");
                out_table(port_cols, N_COLS(port_cols), json_object_get(r, "ports"));
        }
}

static int pads_list(struct ctl *c, const struct args *a) {
        json_t *r;
        int st;

        (void) a;
        st = http_get_json(c, "/v1/pads", &r);
        return st ? st : cmd_print(c, r, show_pads);
}

static int pad_path(char *path, const struct args *a, const char *tail) {
        char *id = http_escape(a->pos[0]);
        int r;

        if (!id)
                return -ENOMEM;
        r = http_path(path, "/v1/pads/%s%s", id, tail);
        free(id);
        return r;
}

static int pads_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *p;
        int st;

        if (pad_path(path, a, "") < 0)
                return ctl_fail(CTL_EXIT_USAGE, "PAD: too long");
        st = http_get_json(c, path, &p);
        return st ? st : cmd_print(c, p, NULL);
}

static void show_identified(const json_t *p) {
        printf("pad %s: blinking and beeping\n",
               json_string_value(json_object_get(p, "id")) ? json_string_value(json_object_get(p, "id")) : "?");
}

static int pads_identify(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *p;
        int st;

        if (pad_path(path, a, "/identify") < 0)
                return ctl_fail(CTL_EXIT_USAGE, "PAD: too long");
        st = http_send_json(c, "POST", path, NULL, &p);
        return st ? st : cmd_print(c, p, show_identified);
}

static void show_trusted(const json_t *p) {
        const json_t *refused = json_object_get(p, "refused"), *d;
        size_t i;

        printf("pad %s: the device on %s is the pad\n",
               json_string_value(json_object_get(p, "id")) ? json_string_value(json_object_get(p, "id")) : "?",
               json_string_value(json_object_get(p, "port")) ? json_string_value(json_object_get(p, "port")) : "?");
        json_array_foreach(refused, i, d)
                printf("refused: the device on %s\n",
                       json_string_value(json_object_get(d, "port")) ? json_string_value(json_object_get(d, "port")) : "?");
}

static int pads_trust(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        json_t *body, *p;
        int st;

        if (pad_path(path, a, "/trust") < 0)
                return ctl_fail(CTL_EXIT_USAGE, "PAD: too long");
        body = json_pack("{s:s}", "port", a->pos[1]);
        if (!body)
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        st = http_send_json(c, "POST", path, body, &p);
        json_decref(body);
        return st ? st : cmd_print(c, p, show_trusted);
}

/* --- games --- */

static int games_list(struct ctl *c, const struct args *a) {
        json_t *items;
        int st;

        (void) a;
        st = cmd_get_items(c, "/v1/games", "items", &items);
        return st ? st : cmd_print_list(c, items, game_cols, N_COLS(game_cols));
}

static void show_game(const json_t *g) {
        static const char *const keep[] = { "name", "display_name", "min_seats", "max_seats", "description" };
        json_t *head = json_object();

        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
                json_object_set(head, keep[i], json_object_get(g, keep[i]));
        out_fields(head, NULL);
        json_decref(head);
        printf("\n");
        out_table(param_cols, N_COLS(param_cols), json_object_get(g, "params"));
        printf("\n");
        out_table(input_cols, N_COLS(input_cols), json_object_get(g, "inputs"));
        if (json_array_size(json_object_get(g, "calls")) > 0) {
                printf("\n");
                out_table(call_cols, N_COLS(call_cols), json_object_get(g, "calls"));
        }
}

static int games_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        char *name = http_escape(a->pos[0]);
        json_t *g;
        int st;

        if (!name)
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        st = http_path(path, "/v1/games/%s", name);
        free(name);
        if (st < 0)
                return ctl_fail(CTL_EXIT_USAGE, "GAME: too long");
        st = http_get_json(c, path, &g);
        return st ? st : cmd_print(c, g, show_game);
}

/* --- server --- */

static int server_get(struct ctl *c, const char *path) {
        json_t *r;
        int st = http_get_json(c, path, &r);

        return st ? st : cmd_print(c, r, NULL);
}

static int server_health(struct ctl *c, const struct args *a) {
        (void) a;
        return server_get(c, "/v1/health");
}

static int server_status(struct ctl *c, const struct args *a) {
        (void) a;
        return server_get(c, "/v1/status");
}

static int server_routes(struct ctl *c, const struct args *a) {
        json_t *items;
        int st;

        (void) a;
        st = cmd_get_items(c, "/v1", "routes", &items);
        return st ? st : cmd_print_list(c, items, route_cols, N_COLS(route_cols));
}

static const struct opt table_list_opts[] = {
        OPT_LIMIT, OPT_AFTER,
        { "venue", 0, OPT_VALUE, "VENUE", "only this venue's tables (every venue's by default)", NULL },
        { NULL },
};
static const struct opt table_add_opts[] = {
        { "seats", 0, OPT_VALUE, "N", "the number of seats, 1..8", NULL },
        { "venue", 0, OPT_VALUE, "VENUE", "the venue it stands at (default: the daemon's own)", NULL },
        { "pad", 0, OPT_LIST, "SEAT=PAD[:ROLE]", "a pad (16 hex digits) at a seat; ROLE buttons (default) or slap", NULL },
        { "keypad", 0, OPT_LIST, "PAD", "the table's referee keypad", NULL },
        OPT_DATA,
        { NULL },
};

static const struct verb table_verbs[] = {
        { "list", "[--venue VENUE] [--limit N [--after ID]]", 0, 0, NULL,
          "the tables of every venue (or one) and their pads", "GET /v1/tables (display)", NULL, table_list_opts,
          tables_list },
        { "show", "TABLE", 1, 1, NULL, "one table, seat by seat", "GET /v1/tables/{id} (display)", NULL, NULL,
          tables_show },
        { "add", "NAME --seats N [--venue VENUE] [--pad SEAT=PAD[:ROLE]]... [--keypad PAD]", 1, 1, NULL,
          "add a table",
          "POST /v1/tables (admin)",
          "Button maps (a seat's \"buttons\") go in --data, e.g.\n"
          "--data '{\"seats\": [{\"seat\": 1, \"pad\": \"0000000000001001\", \"buttons\": {\"0\": \"row 1\"}}]}'.\n",
          table_add_opts, tables_add },
        { NULL },
};

static const struct opt venue_add_opts[] = {
        { "name", 0, OPT_VALUE, "NAME", "what the league's pages call it (default: its id)", NULL },
        OPT_DATA,
        { NULL },
};

static const struct verb venue_verbs[] = {
        { "list", "", 0, 0, NULL, "the league's venues: whose arbiterd runs, how many tables",
          "GET /v1/venues (display)", NULL, NULL, venues_list },
        { "add", "ID [--name NAME]", 1, 1, NULL, "add a venue, to set up its tables before its arbiterd first starts",
          "POST /v1/venues (admin)",
          "A venue's arbiterd adds its venue itself when it starts ([venue] id).\n", venue_add_opts, venues_add },
        { NULL },
};

static const struct verb pad_verbs[] = {
        { "list", "", 0, 0, NULL, "every pad seen since arbiterd started, and the serial ports",
          "GET /v1/pads (display)", NULL, NULL, pads_list },
        { "show", "PAD", 1, 1, NULL, "one pad: clock, counters", "GET /v1/pads/{id} (display)", NULL, NULL, pads_show },
        { "identify", "PAD", 1, 1, NULL, "blink and beep a pad, to find it on the table",
          "POST /v1/pads/{id}/identify (referee)", NULL, NULL, pads_identify },
        { "trust", "PAD PORT", 2, 2, COMPLETE_FILES, "end an identity conflict: the device on PORT is the pad",
          "POST /v1/pads/{id}/trust (referee)",
          "When two devices claim one pad (its CONFLICT column lists their ports), none is\n"
          "trusted and their presses are dropped.  PORT, as [pads] ports names it, is the\n"
          "line of the real pad; the other devices are refused until they are unplugged.\n",
          NULL, pads_trust, 1 },
        { NULL },
};

static const struct verb game_verbs[] = {
        { "list", "", 0, 0, NULL, "the games arbiterd runs", "GET /v1/games (display)", NULL, NULL, games_list },
        { "show", "GAME", 1, 1, NULL, "a game's settings, inputs and calls", "GET /v1/games/{name} (display)", NULL,
          NULL, games_show },
        { NULL },
};

static const struct verb server_verbs[] = {
        { "health", "", 0, 0, NULL, "version, uptime, database, D-Bus and pads", "GET /v1/health (open)", NULL, NULL,
          server_health },
        { "status", "", 0, 0, NULL, "health and every counter", "GET /v1/status (display)", NULL, NULL, server_status },
        { "routes", "", 0, 0, NULL, "every route of the REST API with its least role", "GET /v1 (display)", NULL,
          NULL, server_routes },
        { NULL },
};

const struct noun noun_venues = { "venues", "The league's venues, each run by its own arbiterd", venue_verbs };
const struct noun noun_tables = { "tables", "Every venue's tables: which pad sits at which seat", table_verbs };
const struct noun noun_pads = { "pads", "The pads on the serial lines", pad_verbs };
const struct noun noun_games = { "games", "The games arbiterd runs", game_verbs };
const struct noun noun_server = { "server", "arbiterd itself: health, counters, routes", server_verbs };
