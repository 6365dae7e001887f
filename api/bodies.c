/* api/bodies.c — see bodies.h. */
#include "api/bodies.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/api.h"
#include "api/problem.h"
#include "common/venue.h"
#include "hardware/padbus.h"
#include "match/json.h"

/* A button a seat's map may name: protocol.h's buttons, numbered from 0. */
#define BUTTON_MAX              (PROTO_MAX_BUTTONS - 1)
/* A route's members as a sentence: the longest list is a few dozen bytes. */
#define MEMBERS_TEXT_MAX        256
/* Room for a formatted detail: api/problem.c's limit. */
#define DETAIL_MAX              1024

/* Sets *ret_problem to a new problem (status, detail) and returns -EINVAL. */
static int __attribute__((format(printf, 3, 4))) fail(json_t **ret_problem, unsigned status, const char *fmt, ...) {
        char detail[DETAIL_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        *ret_problem = problem_new(status, "%s", detail);
        return -EINVAL;
}

/* The same, naming field. */
static int fail_field(json_t **ret_problem, unsigned status, const char *field, const char *detail) {
        *ret_problem = problem_new(status, "%s", detail);
        if (*ret_problem)
                problem_set(*ret_problem, "field", json_string(field));
        return -EINVAL;
}

/* ---- members ---------------------------------------------------------------- */

/* Whether name is one of the space-separated members. */
static bool member_listed(const char *members, const char *name) {
        size_t n = strlen(name);

        for (const char *m = members; *m;) {
                size_t len = strcspn(m, " ");

                if (len == n && strncmp(m, name, n) == 0)
                        return true;
                m += len;
                m += strspn(m, " ");
        }
        return false;
}

int body_members(const struct route *route, const char *method, json_t *body, json_t **ret_problem) {
        const char *members = route->members, *key;
        json_t *v, *p;

        *ret_problem = NULL;
        if (!body || (members && strcmp(members, "*") == 0))
                return 0;
        if (!members) {
                if (json_is_object(body) && json_object_size(body) == 0)
                        return 0;
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s %s takes no body: send none, or {}", method,
                            route->pattern);
        }
        if (!json_is_object(body))
                return 0;               /* the handler says what it expects */
        json_object_foreach(body, key, v) {
                char list[MEMBERS_TEXT_MAX];
                size_t at = 0;

                if (member_listed(members, key))
                        continue;
                /* "name club" as "name, club" */
                for (const char *m = members; *m && at + 3 < sizeof list; m++) {
                        if (*m == ' ')
                                list[at++] = ',';
                        list[at++] = *m;
                }
                list[at] = '\0';
                p = problem_new(MHD_HTTP_BAD_REQUEST, "%.64s: no such member for %s %s (it takes %s)", key,
                                method, route->pattern, list);
                if (p)
                        problem_set(p, "field", json_string(key));
                *ret_problem = p;
                return -EINVAL;
        }
        return 0;
}

/* ---- tokens ----------------------------------------------------------------- */

int body_token(json_t *body, struct body_token *ret, json_t **ret_problem) {
        const char *name, *role_s, *problem;
        int role;

        *ret_problem = NULL;
        if (!json_is_object(body))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                            "send a JSON object: {\"name\": \"scoreboard-hall-a\", \"role\": \"display\"}");
        name = json_string_value(json_object_get(body, "name"));
        role_s = json_string_value(json_object_get(body, "role"));
        problem = api_name_problem(name);
        if (problem)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "name: %s", problem);
        role = auth_role_from_string(role_s);
        if (role == AUTH_ROLE_SEAT)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                            "role: a seat token is for one seat of one match: POST "
                            "/v1/matches/{id}/seats/{seat}/token makes one");
        if (role < 0)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                            "role must be one of \"admin\", \"referee\", \"display\"");
        ret->name = name;
        ret->role = (enum auth_role) role;
        return 0;
}

/* ---- tables ----------------------------------------------------------------- */

/* Tables serve every game: a button may name a call of any of them. */
static bool is_call_name(const char *name) {
        int call;

        for (size_t g = 0; eng_games[g]; g++)
                if (eng_call_by_name(eng_games[g], name, &call) == 0)
                        return true;
        return false;
}

static bool is_pad_id(const char *s) {
        return s && strlen(s) == PAD_ID_LEN && strspn(s, "0123456789abcdef") == PAD_ID_LEN;
}

/* One pad {pad, role} (role defaults to the seat's "buttons", the table's
 * "keypad").  Adds it to pads as the database takes it, with seat (0 for
 * the table). */
static int check_pad(const char *field, json_t *p, json_int_t seat, json_t *pads, json_t **ret_problem) {
        const char *id = json_string_value(json_object_get(p, "pad"));
        json_t *role = json_object_get(p, "role");
        const char *key;
        json_t *v;
        int r = seat ? ENG_ROLE_BUTTONS : ENG_ROLE_KEYPAD;

        if (!json_is_object(p))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s: must be an object {\"pad\": \"…\", \"role\": "
                            "\"buttons\"}", field);
        json_object_foreach(p, key, v)
                if (strcmp(key, "pad") != 0 && strcmp(key, "role") != 0)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s.%.32s: no such member (pad, role)", field,
                                    key);
        if (!is_pad_id(id))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s.pad: must be a pad id, 16 lowercase hex digits "
                            "as in GET /v1/pads", field);
        if (role && !json_is_null(role) && (r = eng_role_from_name(json_string_value(role))) < 0)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s.role: must be \"buttons\", \"slap\" or "
                            "\"keypad\"", field);
        if ((r == ENG_ROLE_KEYPAD) != (seat == 0))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s.role: %s", field,
                            seat ? "a seat's pads are its \"buttons\" and \"slap\" pads; the table's "
                                   "referee keypad goes in the table's \"pads\""
                                 : "the table's own pads are referee keypads (\"keypad\")");
        for (size_t i = 0; i < json_array_size(pads); i++)
                if (strcmp(json_string_value(json_object_get(json_array_get(pads, i), "pad")), id) == 0)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s.pad: pad %s is listed twice", field, id);
        json_array_append_new(pads, json_pack("{s:I, s:s, s:s}", "seat", seat, "pad", id, "role",
                                              eng_role_name((enum eng_pad_role) r)));
        return 0;
}

/* One seat's button map {"0": "row-1", …}. */
static int check_buttons(size_t i, json_t *buttons, json_t **ret_problem) {
        const char *key;
        json_t *v;

        if (!json_is_object(buttons))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                            "seats[%zu].buttons: must map button numbers to calls, e.g. "
                            "{\"0\": \"row-1\", \"6\": \"doesnt-fit\"}", i);
        json_object_foreach(buttons, key, v) {
                char *end;
                long b = strtol(key, &end, 10);
                size_t len = json_string_length(v);

                if (!*key || *end || b < 0 || b > BUTTON_MAX || !isdigit((unsigned char) key[0]))
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                                    "seats[%zu].buttons: \"%.20s\" is not a button number 0 to %d", i, key,
                                    BUTTON_MAX);
                if (!json_is_string(v) || len == 0 || len > BODY_CALL_NAME_MAX)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                                    "seats[%zu].buttons.%s: must be a call name of 1 to %d characters", i, key,
                                    BODY_CALL_NAME_MAX);
                if (!is_call_name(json_string_value(v)))
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                                    "seats[%zu].buttons.%s: \"%.32s\" is no call of any game "
                                    "(Crash Pilot: \"row 1\" to \"row 6\", \"doesn't fit\")",
                                    i, key, json_string_value(v));
        }
        return 0;
}

/* Checks one seat object; its pads go to pads. */
static int check_seat(size_t i, json_t *seat, uint32_t *seen_seats, json_t *pads, json_t **ret_problem) {
        json_t *n = json_object_get(seat, "seat"), *pad = json_object_get(seat, "pad"),
               *list = json_object_get(seat, "pads"), *buttons = json_object_get(seat, "buttons"), *v;
        char field[64];
        const char *key;
        size_t k;

        if (!json_is_object(seat))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu]: must be an object {\"seat\": 1, "
                            "\"pads\": […]}", i);
        json_object_foreach(seat, key, v)
                if (strcmp(key, "seat") != 0 && strcmp(key, "pad") != 0 && strcmp(key, "pads") != 0 &&
                    strcmp(key, "buttons") != 0)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu].%.32s: no such member (seat, "
                                    "pads, pad, buttons)", i, key);
        if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > BODY_TABLE_MAX_SEATS)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu].seat: must be a whole number from 1 "
                            "to %d", i, BODY_TABLE_MAX_SEATS);
        uint32_t bit = 1u << json_integer_value(n);
        if (*seen_seats & bit)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu].seat: seat %lld is listed twice", i,
                            (long long) json_integer_value(n));
        *seen_seats |= bit;
        if (pad && !json_is_null(pad) && list)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu]: give \"pad\" (its button pad) or "
                            "\"pads\" (each with its role), not both", i);
        if (pad && !json_is_null(pad)) {
                json_t *one = json_pack("{s:O}", "pad", pad);
                int r;

                snprintf(field, sizeof field, "seats[%zu]", i);
                r = check_pad(field, one, json_integer_value(n), pads, ret_problem);
                json_decref(one);
                if (r < 0)
                        return r;
        }
        if (list && !json_is_null(list)) {
                if (!json_is_array(list))
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu].pads: must be a list of "
                                    "{\"pad\", \"role\"}", i);
                json_array_foreach(list, k, v) {
                        snprintf(field, sizeof field, "seats[%zu].pads[%zu]", i, k);
                        if (check_pad(field, v, json_integer_value(n), pads, ret_problem) < 0)
                                return -EINVAL;
                }
        }
        if (buttons && !json_is_null(buttons))
                return check_buttons(i, buttons, ret_problem);
        return 0;
}

int body_table(json_t *body, struct body_table *ret, json_t **ret_problem) {
        json_t *seats = json_object_get(body, "seats"), *table_pads = json_object_get(body, "pads");
        const char *name = json_string_value(json_object_get(body, "name")), *problem;
        json_t *pads, *seat, *v;
        uint32_t seen = 0;
        const char *key;
        char field[32];
        size_t i;

        *ret_problem = NULL;
        if (!json_is_object(body))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send a JSON object: {\"name\": \"table-a\", "
                            "\"seats\": [{\"seat\": 1, \"pad\": \"…\"}]}");
        problem = api_name_problem(name);
        if (problem)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "name: %s", problem);
        json_object_foreach(body, key, v)
                if (strcmp(key, "name") != 0 && strcmp(key, "seats") != 0 && strcmp(key, "pads") != 0 &&
                    strcmp(key, "venue") != 0)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%.32s: no such member of a table (venue, "
                                    "name, seats, pads)", key);
        v = json_object_get(body, "venue");
        if (v && !json_is_null(v) && !venue_id_valid(json_string_value(v)))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "venue: must be a venue's id (" VENUE_ID_RULE
                            "), as GET /v1/venues lists them");
        if (!json_is_array(seats) || json_array_size(seats) < 1 || json_array_size(seats) > BODY_TABLE_MAX_SEATS)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats: must be a list of 1 to %d seats",
                            BODY_TABLE_MAX_SEATS);
        if (table_pads && !json_is_null(table_pads) && !json_is_array(table_pads))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "pads: must be a list of the table's own pads, "
                            "[{\"pad\": \"…\", \"role\": \"keypad\"}]");
        pads = json_array();
        json_array_foreach(seats, i, seat)
                if (check_seat(i, seat, &seen, pads, ret_problem) < 0) {
                        json_decref(pads);
                        return -EINVAL;
                }
        json_array_foreach(table_pads, i, v) {
                snprintf(field, sizeof field, "pads[%zu]", i);
                if (check_pad(field, v, 0, pads, ret_problem) < 0) {
                        json_decref(pads);
                        return -EINVAL;
                }
        }
        ret->venue = json_string_value(json_object_get(body, "venue"));
        ret->name = name;
        ret->seats = seats;
        ret->pads = pads;
        return 0;
}

/* ---- matches ---------------------------------------------------------------- */

/* "confirm" of a match or a stage: 0 with the values, or -EINVAL with a
 * message naming the member in err. */
static int confirm_from(json_t *v, bool *ret_confirm, int64_t *ret_timeout_s, char *err, size_t len) {
        json_t *by = json_is_object(v) ? json_object_get(v, "by") : v, *timeout = json_object_get(v, "timeout_s");
        const char *key;
        json_t *m;

        *ret_confirm = false;
        *ret_timeout_s = 0;
        if (!v || json_is_null(v))
                return 0;
        if (json_is_object(v))
                json_object_foreach(v, key, m)
                        if (strcmp(key, "by") != 0 && strcmp(key, "timeout_s") != 0) {
                                snprintf(err, len, "confirm.%.32s: no such member (by, timeout_s)", key);
                                return -EINVAL;
                        }
        if (!json_is_string(by) || (strcmp(json_string_value(by), "auto") != 0 &&
                                    strcmp(json_string_value(by), "referee") != 0)) {
                snprintf(err, len, "confirm: must be \"auto\", \"referee\" or {\"by\": \"referee\", \"timeout_s\": 600}");
                return -EINVAL;
        }
        *ret_confirm = strcmp(json_string_value(by), "referee") == 0;
        if (timeout && !json_is_null(timeout)) {
                if (!*ret_confirm || !json_is_integer(timeout) || json_integer_value(timeout) < 1 ||
                    json_integer_value(timeout) > MATCH_CONFIRM_TIMEOUT_MAX_S) {
                        snprintf(err, len, "confirm.timeout_s: must be 1 to %d seconds, with \"by\": \"referee\"",
                                 MATCH_CONFIRM_TIMEOUT_MAX_S);
                        return -EINVAL;
                }
                *ret_timeout_s = json_integer_value(timeout);
        }
        return 0;
}

/* Whether config is a valid match config of game: 0, or -EINVAL with a
 * message naming the field ("match_config.reveal...") in err. */
static int check_config(const char *game, json_t *config, char *err, size_t len) {
        const struct eng_game *g = eng_game_find(game);
        struct eng_config cfg;
        struct eng_error e;

        if (!g) {
                snprintf(err, len, "game: there is no such game; GET /v1/games lists the games");
                return -EINVAL;
        }
        if (match_json_config_from(g, config, NULL, g->min_seats, &cfg, &e) < 0) {
                snprintf(err, len, "match_config.%s", e.message);
                return -EINVAL;
        }
        return 0;
}

/* The seats [{seat, name}] from "players" or "seats", numbered 1..n. */
static int parse_seats(json_t *spec, const struct eng_game *g, json_t **ret, json_t **ret_problem) {
        json_t *players = json_object_get(spec, "players"), *seats = json_object_get(spec, "seats");
        json_t *out, *it;
        size_t i, n;
        uint32_t seen = 0;

        if ((players != NULL) == (seats != NULL))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "players: give either \"players\": [\"Ana\", "
                            "\"Ben\"] or \"seats\": [{\"seat\": 1, \"name\": \"Ana\"}]");
        json_t *list = players ? players : seats;
        const char *field = players ? "players" : "seats";
        n = json_array_size(list);
        if (!json_is_array(list) || n < g->min_seats || n > g->max_seats)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s: %s seats %u to %u players; give a list of "
                            "that many", field, g->display_name, g->min_seats, g->max_seats);
        out = json_array();
        for (i = 0; i < n; i++)
                json_array_append_new(out, json_null());
        json_array_foreach(list, i, it) {
                json_t *name = players ? it : json_object_get(it, "name");
                json_int_t seat = players ? (json_int_t) i + 1 : json_integer_value(json_object_get(it, "seat"));
                const char *problem = api_name_problem(json_string_value(name));

                if (!players && (!json_is_integer(json_object_get(it, "seat")) || seat < 1 || seat > (json_int_t) n ||
                                 (seen & (1u << seat)))) {
                        json_decref(out);
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seats[%zu].seat: must be 1 to %zu, each "
                                    "seat once", i, n);
                }
                seen |= 1u << seat;
                if (problem) {
                        json_decref(out);
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s[%zu]%s: %s", field, i,
                                    players ? "" : ".name", problem);
                }
                json_array_set_new(out, (size_t) seat - 1, json_pack("{s:I, s:O}", "seat", seat, "name", name));
        }
        *ret = out;
        return 0;
}

int body_match(json_t *spec, struct body_match *ret, json_t **ret_problem) {
        static const char *const members[] = { "game", "table", "players", "seats", "seed", "config", "data",
                                               "confirm", NULL };
        json_t *game = json_object_get(spec, "game"), *table = json_object_get(spec, "table"),
               *seed = json_object_get(spec, "seed"), *seats = NULL, *v;
        const struct eng_game *g = eng_game_find(json_string_value(game));
        char why[ENG_ERROR_MAX];
        struct eng_error err;
        const char *key;

        *ret_problem = NULL;
        json_object_foreach(spec, key, v) {
                size_t i;

                for (i = 0; members[i] && strcmp(members[i], key) != 0; i++)
                        ;
                if (!members[i])
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%.32s: no such member of a match (game, "
                                    "table, players or seats, seed, config, data, confirm)", key);
        }
        if (!g)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "game: %s; GET /v1/games lists the games",
                            json_is_string(game) ? "there is no such game" : "must name a game, e.g. \"crash-pilot\"");
        if (table && !json_is_null(table) && (!json_is_integer(table) || json_integer_value(table) < 1))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "table: must be a table id, as in GET /v1/tables");
        if (seed && !json_is_null(seed) && (!json_is_integer(seed) || json_integer_value(seed) < 0))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seed: must be a whole number 0 to 2^63 - 1");
        *ret = (struct body_match) { .game = g };
        if (confirm_from(json_object_get(spec, "confirm"), &ret->confirm, &ret->confirm_timeout_s, why,
                         sizeof why) < 0)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s", why);
        if (match_json_data_from(g, json_object_get(spec, "data"), &ret->data, &err) < 0)
                return fail_field(ret_problem, MHD_HTTP_BAD_REQUEST, err.field, err.message);
        if (parse_seats(spec, g, &seats, ret_problem) < 0)
                return -EINVAL;
        if (match_json_config_from(g, json_object_get(spec, "config"), &ret->data, (unsigned) json_array_size(seats),
                                   &ret->cfg, &err) < 0) {
                json_decref(seats);
                return fail_field(ret_problem, MHD_HTTP_BAD_REQUEST, err.field, err.message);
        }
        ret->table_id = json_is_integer(table) ? json_integer_value(table) : 0;
        ret->has_seed = json_is_integer(seed);
        ret->seed = ret->has_seed ? (uint64_t) json_integer_value(seed) : 0;
        ret->n_seats = (unsigned) json_array_size(seats);
        ret->seats = seats;
        return 0;
}

/* ---- inputs ----------------------------------------------------------------- */

int body_input(const struct body_input_ctx *c, json_t *body, struct eng_input *ret,
               char reason[static MATCH_REASON_MAX], json_t **ret_problem) {
        json_t *copy = json_deep_copy(body), *why;
        int seat_fixed = c->role == AUTH_ROLE_SEAT ? c->token_seat - 1 : -1;
        const struct eng_input_def *def;
        struct eng_error err;
        int r;

        *ret_problem = NULL;
        reason[0] = '\0';
        if (!copy)
                return fail(ret_problem, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        /* "reason" is the request's, for the audit trail, not a field. */
        why = json_object_get(copy, "reason");
        if (why && !json_is_null(why) &&
            (!json_is_string(why) || json_string_length(why) == 0 || json_string_length(why) >= MATCH_REASON_MAX)) {
                json_decref(copy);
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "reason: must be a sentence of 1 to %d bytes",
                            MATCH_REASON_MAX - 1);
        }
        if (json_is_string(why))
                snprintf(reason, MATCH_REASON_MAX, "%s", json_string_value(why));
        json_object_del(copy, "reason");
        /* Another seat than the token's is not for it to speak for. */
        if (seat_fixed >= 0 && json_is_integer(json_object_get(copy, "seat")) &&
            json_integer_value(json_object_get(copy, "seat")) != seat_fixed + 1) {
                json_decref(copy);
                return fail(ret_problem, MHD_HTTP_FORBIDDEN, "token \"%s\" speaks for seat %d only", c->token_name,
                            seat_fixed + 1);
        }
        r = match_json_input_request(c->game, copy, seat_fixed, ret, &err);
        json_decref(copy);
        if (r < 0)
                return fail_field(ret_problem, MHD_HTTP_BAD_REQUEST, err.field, err.message);
        if (ret->seat >= 0 && (unsigned) ret->seat >= c->n_seats)
                return fail(ret_problem, MHD_HTTP_NOT_FOUND, "seat: match %" PRId64 " has no seat %d; its seats "
                            "are 1 to %u", c->match_id, ret->seat + 1, c->n_seats);
        def = eng_input_def_of(c->game, ret);
        if (c->role == AUTH_ROLE_SEAT && !(def->from & ENG_FROM_SEAT))
                return fail(ret_problem, MHD_HTTP_FORBIDDEN, "a seat's token cannot send %s inputs; a referee does",
                            def->name);
        if (c->role >= AUTH_ROLE_REFEREE && !(def->from & ENG_FROM_REFEREE))
                return fail(ret_problem, MHD_HTTP_FORBIDDEN, "%s inputs come from the seat itself (its pads or its "
                            "station's token), not from a referee", def->name);
        return 0;
}

/* ---- players ---------------------------------------------------------------- */

/* Optional text member key: absent or null (NULL), or 1..64 bytes. */
static int opt_text(json_t *body, const char *key, const char **ret, json_t **ret_problem) {
        json_t *v = json_object_get(body, key);

        *ret = NULL;
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_string(v) || json_string_length(v) < 1 || json_string_length(v) > BODY_TEXT_MAX)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s: must be text of 1 to %d bytes, or null", key,
                            BODY_TEXT_MAX);
        *ret = json_string_value(v);
        return 0;
}

int body_player(json_t *body, bool update, struct body_player *ret, json_t **ret_problem) {
        json_t *active = json_object_get(body, "active");

        *ret_problem = NULL;
        if (!update && !json_is_object(body))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send a JSON object: {\"name\": \"Ana\", \"club\": "
                            "\"Northside\", \"external_id\": null}");
        if (update && (!json_is_object(body) || json_object_size(body) == 0))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send a JSON object with what changes: "
                            "{\"active\": false}");
        *ret = (struct body_player) { .active = -1 };
        if (opt_text(body, "name", &ret->name, ret_problem) < 0 ||
            opt_text(body, "club", &ret->club, ret_problem) < 0 ||
            opt_text(body, "external_id", &ret->external_id, ret_problem) < 0)
                return -EINVAL;
        if (!update) {
                if (!ret->name)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "name: required, 1 to %d bytes",
                                    BODY_TEXT_MAX);
                return 0;
        }
        if (json_object_get(body, "name") && !ret->name)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "name: cannot be null");
        if (active && !json_is_boolean(active))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "active: must be true or false");
        ret->club_given = json_object_get(body, "club") != NULL;
        ret->external_id_given = json_object_get(body, "external_id") != NULL;
        ret->active = active ? json_is_true(active) : -1;
        return 0;
}

/* ---- venues ----------------------------------------------------------------- */

int body_venue(json_t *body, struct body_venue *ret, json_t **ret_problem) {
        json_t *id = json_object_get(body, "id"), *name = json_object_get(body, "name");
        size_t chars;

        *ret_problem = NULL;
        if (!json_is_object(body))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send a JSON object: {\"id\": \"north\", \"name\": "
                            "\"North Hall\"}");
        if (!venue_id_valid(json_string_value(id)))
                return fail_field(ret_problem, MHD_HTTP_BAD_REQUEST, "id",
                                  "id: required, a venue's id: " VENUE_ID_RULE " (the daemon's [venue] id)");
        if (name && !json_is_null(name) &&
            (!json_is_string(name) || (chars = venue_name_chars(json_string_value(name))) < 1 ||
             chars > VENUE_NAME_MAX))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "name: must be 1 to %d characters, or left out for "
                            "the id", VENUE_NAME_MAX);
        ret->id = json_string_value(id);
        ret->name = json_is_string(name) ? json_string_value(name) : ret->id;
        return 0;
}

/* ---- tournaments ------------------------------------------------------------ */

int body_tournament(json_t *body, bool check, struct body_tournament *ret, json_t **ret_problem) {
        json_t *name = json_object_get(body, "name"), *game = json_object_get(body, "game"),
               *seed = json_object_get(body, "seed"), *config = json_object_get(body, "match_config"),
               *tables = json_object_get(body, "tables"), *competitive = json_object_get(body, "competitive"), *it;
        char err[256];
        size_t i;

        *ret_problem = NULL;
        if (!json_is_object(body))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send a JSON object: {\"name\": \"Friday night\", "
                            "\"game\": \"crash-pilot\"}");
        if (!json_is_string(name) || json_string_length(name) < 1 ||
            json_string_length(name) > BODY_TOURNAMENT_NAME_MAX)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "name: required, 1 to %d bytes",
                            BODY_TOURNAMENT_NAME_MAX);
        if (!json_is_string(game) || !eng_game_find(json_string_value(game)))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "game: %s; GET /v1/games lists the games",
                            json_is_string(game) ? "there is no such game" : "required, e.g. \"crash-pilot\"");
        if (competitive && !json_is_null(competitive) && !json_is_boolean(competitive))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "competitive: must be true (the default) or false");
        ret->competitive = !json_is_false(competitive);
        if (seed && !json_is_null(seed) && (!json_is_integer(seed) || json_integer_value(seed) < 0))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seed: must be a whole number 0 to 2^63 - 1");
        /* whoever chooses the seed can try seeds until the decks suit him */
        if (json_is_integer(seed) && ret->competitive)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                            "seed: a competitive tournament's decks come from a secret arbiterd draws itself, "
                            "so that nobody can choose or foresee them; leave the seed out, or send "
                            "\"competitive\": false with it for a practice or test tournament whose decks "
                            "follow from the seed (docs/fairness.md)");
        if (config && !json_is_null(config) && !json_is_object(config))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "match_config: must be an object, as the config of "
                            "POST /v1/matches");
        if (config && json_is_object(config) && check &&
            check_config(json_string_value(game), config, err, sizeof err) < 0)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s", err);
        if (tables && !json_is_null(tables)) {
                if (!json_is_array(tables) || json_array_size(tables) > BODY_TOURNAMENT_TABLES_MAX)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "tables: must be a list of at most %d table "
                                    "ids", BODY_TOURNAMENT_TABLES_MAX);
                json_array_foreach(tables, i, it)
                        if (!json_is_integer(it) || json_integer_value(it) < 1)
                                return fail(ret_problem, MHD_HTTP_BAD_REQUEST,
                                            "tables[%zu]: must be a table id, as in GET /v1/tables", i);
        }
        ret->name = json_string_value(name);
        ret->game = json_string_value(game);
        ret->has_seed = json_is_integer(seed);
        ret->seed = ret->has_seed ? (uint64_t) json_integer_value(seed) : 0;
        ret->config = json_is_object(config) ? config : NULL;
        ret->tables = json_is_array(tables) ? tables : NULL;
        return 0;
}

int body_tournament_state(json_t *body, const char **ret_state, json_t **ret_problem) {
        static const char *const states[] = { "draft", "registration", "check_in", "running", "finished" };
        const char *to = json_string_value(json_object_get(body, "state"));

        *ret_problem = NULL;
        for (size_t i = 0; to && i < sizeof states / sizeof states[0]; i++)
                if (strcmp(to, states[i]) == 0) {
                        *ret_state = states[i];
                        return 0;
                }
        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "state: must be draft, registration, check_in, running or "
                    "finished");
}

int body_registration(json_t *body, struct body_registration *ret, json_t **ret_problem) {
        json_t *player = json_object_get(body, "player"), *seed = json_object_get(body, "seed");

        *ret_problem = NULL;
        if (!json_is_integer(player) || json_integer_value(player) < 1)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "player: required, a player id as in GET "
                            "/v1/players");
        if (seed && !json_is_null(seed) && (!json_is_integer(seed) || json_integer_value(seed) < 1 ||
                                            json_integer_value(seed) > BODY_REGISTRATION_SEED_MAX))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "seed: must be 1 (the best) to %d, or null",
                            BODY_REGISTRATION_SEED_MAX);
        ret->player = json_integer_value(player);
        ret->has_seed = json_is_integer(seed);
        ret->seed = ret->has_seed ? (int) json_integer_value(seed) : 0;
        return 0;
}

int body_stage(json_t *body, struct body_stage *ret, json_t **ret_problem) {
        json_t *format = json_object_get(body, "format"), *config = json_object_get(body, "config"),
               *advance = json_object_get(body, "advance"), *confirm = json_object_get(body, "confirm");
        struct tour_stage_error e = { "" };
        char err[256];

        *ret_problem = NULL;
        if (!json_is_object(body) || !json_is_string(format))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send {\"format\": \"pod_swiss\", \"config\": "
                            "{\"rounds\": 3, \"table_size\": 4}, \"advance\": null}");
        if (org_stage_config_from_json(json_string_value(format), config, &ret->cfg, err, sizeof err) < 0)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s", err);
        if (tour_stage_config_check(&ret->cfg, BODY_STAGE_CHECK_FIELD, &e) < 0 && !strstr(e.text, "n_entrants"))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "config.%s", e.text);
        if (advance && !json_is_null(advance) && (!json_is_integer(advance) || json_integer_value(advance) < 2 ||
                                                  json_integer_value(advance) > BODY_STAGE_ADVANCE_MAX))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "advance: must be how many of the previous stage "
                            "go on (2 or more), or null for everyone still in");
        if (confirm_from(confirm, &ret->confirm_by_referee, &ret->confirm_timeout_s, err, sizeof err) < 0)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "%s", err);
        ret->format = json_string_value(format);
        ret->config = config;
        ret->has_advance = json_is_integer(advance);
        ret->advance = ret->has_advance ? (int) json_integer_value(advance) : 0;
        ret->confirm = confirm && !json_is_null(confirm) ? confirm : NULL;
        return 0;
}

/* ---- stage matches ---------------------------------------------------------- */

int body_call(json_t *body, int64_t *ret_table, json_t **ret_problem) {
        json_t *table = json_object_get(body, "table");

        *ret_problem = NULL;
        if (body && !json_is_object(body))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send {} or {\"table\": 3}");
        if (table && !json_is_null(table) && (!json_is_integer(table) || json_integer_value(table) < 1))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "table: must be a table id, as in GET /v1/tables");
        *ret_table = json_is_integer(table) ? json_integer_value(table) : 0;
        return 0;
}

int body_result(json_t *body, json_t **ret_problem) {
        *ret_problem = NULL;
        if (!json_is_array(json_object_get(body, "results")))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send {\"results\": [{\"player\": 4, \"rank\": 1}, "
                            "{\"player\": 9, \"rank\": 2, \"forfeit\": false, \"score\": 0}]}");
        return 0;
}

int body_correction(json_t *body, struct body_correction *ret, json_t **ret_problem) {
        json_t *reason = json_object_get(body, "reason"), *reset = json_object_get(body, "reset");

        *ret_problem = NULL;
        if (!json_is_array(json_object_get(body, "results")))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "send {\"results\": [...], \"reason\": \"score "
                            "sheet misread\"} (\"reset\": true to re-pair later matches)");
        if (!json_is_string(reason) || json_string_length(reason) < 1 || json_string_length(reason) > BODY_REASON_MAX)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "reason: required, 1 to %d bytes: why the result "
                            "changes", BODY_REASON_MAX);
        if (reset && !json_is_boolean(reset))
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "reset: must be true or false");
        ret->reason = json_string_value(reason);
        ret->reset = json_is_true(reset);
        return 0;
}

int body_results(json_t *results, struct org_result_entry *ret, size_t cap, size_t *ret_n, json_t **ret_problem) {
        json_t *it;
        size_t k;

        *ret_problem = NULL;
        *ret_n = 0;
        if (!json_is_array(results) || json_array_size(results) > cap)
                return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "results: must list each of the match's players once");
        json_array_foreach(results, k, it) {
                json_t *player = json_object_get(it, "player"), *rank = json_object_get(it, "rank"),
                       *score = json_object_get(it, "score"), *forfeit = json_object_get(it, "forfeit");

                if (json_is_object(it)) {
                        const char *key;
                        json_t *v;

                        json_object_foreach(it, key, v)
                                if (strcmp(key, "player") != 0 && strcmp(key, "rank") != 0 &&
                                    strcmp(key, "score") != 0 && strcmp(key, "forfeit") != 0)
                                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "results[%zu].%.32s: no such "
                                                    "member (player, rank, score, forfeit)", k, key);
                }
                if (!json_is_object(it) || !json_is_integer(player))
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "results[%zu].player: must be a player id "
                                    "of the match", k);
                if (!json_is_integer(rank) || json_integer_value(rank) < 1 || json_integer_value(rank) > TOUR_MAX_SEATS)
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "results[%zu].rank: must be 1 (first) to the "
                                    "number of players", k);
                if (score && !json_is_null(score) && (!json_is_number(score) || !isfinite(json_number_value(score))))
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "results[%zu].score: must be a number", k);
                if (forfeit && !json_is_boolean(forfeit))
                        return fail(ret_problem, MHD_HTTP_BAD_REQUEST, "results[%zu].forfeit: must be true or false",
                                    k);
                ret[k] = (struct org_result_entry) {
                        .player = json_integer_value(player),
                        .rank = (int) json_integer_value(rank),
                        .score = json_is_number(score) ? json_number_value(score) : 0,
                        .forfeit = json_is_true(forfeit),
                };
        }
        *ret_n = json_array_size(results);
        return 0;
}
