/* match/json.c — engine values as JSON and back (json.h).
 *
 * Two directions with different duties.  Building JSON trusts the engine
 * but not blindly: a value JSON cannot carry, or an engine walk that is not
 * well formed, gives NULL rather than a document that reads back wrong.
 * Parsing JSON trusts nothing: every member is checked for presence, type
 * and range, and the first fault is reported by its field name so that the
 * REST layer can answer 400 with it as it is.
 */
#include "match/json.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hardware/protocol.h"

/* The longest dotted path a config member can have and still be a
 * setting: far above any key a game declares ("reveal.timeout_ms"); a
 * longer path is reported as unknown, by its first ENG_FIELD_MAX bytes. */
#define CONFIG_PATH_MAX         128
/* Nesting of a view's walk: root, a list of seats, a seat's object, a card
 * in it, its fields.  16 leaves room for any game and bounds a bad walk. */
#define VIEW_MAX_DEPTH          16
/* The "every button" LIGHT target (docs/protocol.md, LIGHT). */
#define LIGHT_EVERY_BUTTON      ENG_BUTTON_ALL
/* Fields of an ENG_EV_GAME output (engine.h, output.game.arg). */
#define GAME_EVENT_ARGS         4

#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))

/* ---- Names. */

static const char *const kind_names[] = {
        [ENG_IN_START] = "start",
        [ENG_IN_CALL] = "call",
        [ENG_IN_TIE] = "tie",
        [ENG_IN_PRESS] = "press",
        [ENG_IN_TIMER] = "timer",
        [ENG_IN_PAUSE] = "pause",
        [ENG_IN_RESUME] = "resume",
        [ENG_IN_REFEREE] = "referee",
};

static const char *const verdict_names[] = {
        [ENG_VERDICT_CORRECT] = "correct",
        [ENG_VERDICT_WRONG] = "wrong",
        [ENG_VERDICT_TOO_LATE] = "too_late",
        [ENG_VERDICT_NOT_ALLOWED] = "not_allowed",
};

static const char *const status_names[] = {
        [ENG_STATUS_READY] = "ready",
        [ENG_STATUS_RUNNING] = "running",
        [ENG_STATUS_PAUSED] = "paused",
        [ENG_STATUS_FINISHED] = "finished",
};

static const char *const cause_names[] = {
        [ENG_CAUSE_WRONG_CALL] = "wrong_call",
        [ENG_CAUSE_DOESNT_FIT] = "doesnt_fit",
        [ENG_CAUSE_TIE] = "tie",
        [ENG_CAUSE_EXPIRED] = "expired",
};

static const char *const light_names[] = {
        [ENG_LIGHT_OFF] = "off",
        [ENG_LIGHT_ON] = "on",
        [ENG_LIGHT_BLINK] = "blink",
};

static const char *const buzz_names[] = {
        [ENG_BUZZ_STEADY] = "steady",
        [ENG_BUZZ_SHORT] = "short",
        [ENG_BUZZ_LONG_SHORT] = "long_short",
};


static const char *name_of(const char *const *names, size_t n, long i) {
        return i >= 0 && (size_t) i < n ? names[i] : NULL;
}

static int name_find(const char *const *names, size_t n, const char *name) {
        if (!name)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (names[i] && strcmp(names[i], name) == 0)
                        return (int) i;
        return -EINVAL;
}

const char *match_json_kind_name(enum eng_input_kind kind) {
        return name_of(kind_names, ELEMENTSOF(kind_names), (long) kind);
}

int match_json_kind_from_name(const char *name) {
        return name_find(kind_names, ELEMENTSOF(kind_names), name);
}

const char *match_json_verdict_name(enum eng_verdict verdict) {
        return name_of(verdict_names, ELEMENTSOF(verdict_names), (long) verdict);
}

int match_json_verdict_from_name(const char *name) {
        return name_find(verdict_names, ELEMENTSOF(verdict_names), name);
}

const char *match_json_status_name(enum eng_status status) {
        return name_of(status_names, ELEMENTSOF(status_names), (long) status);
}

int match_json_status_from_name(const char *name) {
        return name_find(status_names, ELEMENTSOF(status_names), name);
}

/* The engine's names, except ENG_EV_GAME: "game_event" says what it is in
 * an SSE stream that also carries other resources' events. */
const char *match_json_output_name(enum eng_output_kind kind) {
        const char *name = eng_output_kind_name(kind);

        if (kind == ENG_EV_GAME)
                return "game_event";
        return strcmp(name, "unknown") == 0 ? NULL : name;     /* NULL: not a kind */
}

/* ---- Small builders.  Each json_object_set_new/json_array_append_new
 * steals its value even when it fails, so a NULL from a constructor only
 * has to be seen once: set() and append() fold every failure into one
 * -ENOMEM the caller checks at the end. */

static int set(json_t *obj, const char *key, json_t *v) {
        return v && json_object_set_new(obj, key, v) == 0 ? 0 : -ENOMEM;
}

static int append(json_t *arr, json_t *v) {
        return v && json_array_append_new(arr, v) == 0 ? 0 : -ENOMEM;
}

static json_t *string_or_null(const char *s) {
        return s ? json_string(s) : json_null();
}

/* An engine seat as JSON: 1-based, null for the table. */
static json_t *seat_json(int seat) {
        return seat >= 0 ? json_integer((json_int_t) seat + 1) : json_null();
}

/* A seat mask as the list of 1-based seats, in order. */
static json_t *seats_json(uint32_t mask) {
        json_t *a = json_array();
        int r = 0;

        if (!a)
                return NULL;
        for (int s = 0; s < ENG_MAX_SEATS; s++)
                if (mask & (UINT32_C(1) << s))
                        r |= append(a, json_integer(s + 1));
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* ---- The visitor builder: turns any eng_visitor walk (a view, a card)
 * into jansson values.
 *
 * Invariant: stack[0 .. depth) are the open containers, stack[0] the root
 * object, each owned by its parent (the root by the caller); a value goes
 * into stack[depth − 1], with a key in an object and without one in an
 * array.  seat_list[i] says that the array at stack[i] lists seats.
 *
 * Seats in walks.  The engine's walk carries engine seats, and a visitor
 * cannot know which integer is a seat but by its key.  The convention
 * (docs/matches.md, "Seats in views"): an integer member named "seat",
 * "winner", or ending in "_seat", and every integer of an array named
 * "seats", "tiebreak" or ending in "_seats", is a seat number, shown
 * 1-based; a negative one (ENG_SEAT_TABLE, "no one yet") is null.  Only
 * integers: "winner": true in a player's object, or "seats": 4 (a count),
 * are left as they are. */

struct builder {
        json_t *stack[VIEW_MAX_DEPTH];
        bool seat_list[VIEW_MAX_DEPTH];
        size_t depth;
};

static bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_seat_key(const char *key) {
        return key && (strcmp(key, "seat") == 0 || strcmp(key, "winner") == 0 ||
                       ends_with(key, "_seat"));
}

static bool is_seat_list_key(const char *key) {
        return key && (strcmp(key, "seats") == 0 || strcmp(key, "tiebreak") == 0 ||
                       ends_with(key, "_seats"));
}

/* Puts v (stolen) where the walk is: the key must be there in an object
 * and absent in an array, and a key may not repeat. */
static int builder_add(struct builder *b, const char *key, json_t *v) {
        json_t *top;

        if (!v)
                return -ENOMEM;
        if (b->depth == 0) {
                json_decref(v);
                return -EINVAL;
        }
        top = b->stack[b->depth - 1];
        if (json_is_object(top)) {
                if (!key || json_object_get(top, key)) {
                        json_decref(v);
                        return -EINVAL;
                }
                return json_object_set_new(top, key, v) == 0 ? 0 : -ENOMEM;
        }
        if (key) {
                json_decref(v);
                return -EINVAL;
        }
        return json_array_append_new(top, v) == 0 ? 0 : -ENOMEM;
}

static int builder_push(struct builder *b, const char *key, json_t *container, bool seat_list) {
        int r;

        if (!container)
                return -ENOMEM;
        if (b->depth >= VIEW_MAX_DEPTH) {
                json_decref(container);
                return -E2BIG;
        }
        r = builder_add(b, key, container);
        if (r < 0)
                return r;
        b->stack[b->depth] = container;
        b->seat_list[b->depth] = seat_list;
        b->depth++;
        return 0;
}

static int builder_pop(struct builder *b, bool object) {
        /* The root is closed by the caller, not by the walk. */
        if (b->depth < 2 || json_is_object(b->stack[b->depth - 1]) != object)
                return -EINVAL;
        b->depth--;
        return 0;
}

static int v_object_begin(void *ctx, const char *key) {
        return builder_push(ctx, key, json_object(), false);
}

static int v_object_end(void *ctx) {
        return builder_pop(ctx, true);
}

static int v_array_begin(void *ctx, const char *key) {
        return builder_push(ctx, key, json_array(), is_seat_list_key(key));
}

static int v_array_end(void *ctx) {
        return builder_pop(ctx, false);
}

static int v_integer(void *ctx, const char *key, int64_t value) {
        struct builder *b = ctx;
        bool seat = key ? is_seat_key(key) : b->depth > 0 && b->seat_list[b->depth - 1];

        if (seat)
                return builder_add(b, key, value >= 0 && value < INT_MAX ? seat_json((int) value)
                                                                          : json_null());
        return builder_add(b, key, json_integer((json_int_t) value));
}

static int v_boolean(void *ctx, const char *key, bool value) {
        return builder_add(ctx, key, json_boolean(value));
}

static int v_string(void *ctx, const char *key, const char *value) {
        return builder_add(ctx, key, value ? json_string(value) : json_null());
}

static int v_null(void *ctx, const char *key) {
        return builder_add(ctx, key, json_null());
}

static const struct eng_visitor builder_visitor = {
        .object_begin = v_object_begin,
        .object_end = v_object_end,
        .array_begin = v_array_begin,
        .array_end = v_array_end,
        .integer = v_integer,
        .boolean = v_boolean,
        .string = v_string,
        .null = v_null,
};

static void builder_init(struct builder *b, json_t *root) {
        memset(b, 0, sizeof *b);
        b->stack[0] = root;
        b->depth = 1;
}

/* A card as the object g->card_visit fills, with its id added when the
 * game leaves it out, so that a log reader can follow one physical card. */
static json_t *card_json(const struct eng_game *g, uint32_t card) {
        struct builder b;
        json_t *o = json_object();
        int r;

        if (!o)
                return NULL;
        builder_init(&b, o);
        r = g->card_visit(card, &builder_visitor, &b);
        if (r >= 0 && b.depth != 1)
                r = -EINVAL;
        if (r >= 0 && !json_object_get(o, "id"))
                r = set(o, "id", json_integer(card));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *match_json_view(const struct eng_game *g, const void *state, enum eng_audience a,
                        int seat) {
        struct builder b;
        json_t *o;

        if (!g || !state)
                return NULL;
        o = json_object();
        if (!o)
                return NULL;
        builder_init(&b, o);
        if (g->view(state, a, seat, &builder_visitor, &b) < 0 || b.depth != 1) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- The game. */

static const char *param_type_name(enum eng_param_type t) {
        switch (t) {
        case ENG_PARAM_INT:
                return "int";
        case ENG_PARAM_BOOL:
                return "bool";
        case ENG_PARAM_ENUM:
                return "enum";
        }
        return NULL;
}

/* A param's value as its JSON type: a number, true/false, or the choice's
 * name (the number when the choice has none: a config that never
 * validated, shown as it is rather than hidden). */
static json_t *param_value_json(const struct eng_param *p, int64_t v) {
        switch (p->type) {
        case ENG_PARAM_BOOL:
                return json_boolean(v != 0);
        case ENG_PARAM_ENUM:
                if (p->choices && v >= p->min && v <= p->max)
                        return json_string(p->choices[v]);
                return json_integer(v);
        case ENG_PARAM_INT:
        default:
                return json_integer(v);
        }
}

static json_t *param_json(const struct eng_param *p) {
        json_t *o = json_object(), *choices;
        int r;

        if (!o)
                return NULL;
        r = set(o, "key", json_string(p->key));
        r |= set(o, "type", string_or_null(param_type_name(p->type)));
        if (p->type == ENG_PARAM_INT) {
                r |= set(o, "min", json_integer(p->min));
                r |= set(o, "max", json_integer(p->max));
        }
        if (p->type == ENG_PARAM_ENUM) {
                choices = json_array();
                for (int64_t c = p->min; choices && p->choices && c <= p->max; c++)
                        r |= append(choices, json_string(p->choices[c]));
                r |= set(o, "choices", choices);
        }
        r |= set(o, "default", param_value_json(p, p->def));
        r |= set(o, "unit", string_or_null(p->unit));
        r |= set(o, "doc", string_or_null(p->doc));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* The pad buttons the game uses, so that a table's button map can be
 * checked and a screen can label the buttons. */
static json_t *calls_json(const struct eng_game *g) {
        json_t *a = json_array();
        int r = 0;

        if (!a)
                return NULL;
        for (unsigned b = 0; b < PROTO_MAX_BUTTONS && g->call_of_button; b++) {
                json_t *c;
                int call;

                if (g->call_of_button(b, &call) < 0)
                        continue;
                c = json_object();
                r |= append(a, c);
                if (!c)
                        break;
                r |= set(c, "button", json_integer(b));
                r |= set(c, "call", json_integer(call));
                r |= set(c, "name", string_or_null(g->call_name(call)));
        }
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

json_t *match_json_game(const struct eng_game *g) {
        struct eng_config defaults;
        json_t *o, *params;
        int r;

        if (!g)
                return NULL;
        o = json_object();
        if (!o)
                return NULL;
        r = set(o, "name", json_string(g->name));
        r |= set(o, "display_name", json_string(g->display_name));
        r |= set(o, "min_seats", json_integer(g->min_seats));
        r |= set(o, "max_seats", json_integer(g->max_seats));
        params = json_array();
        for (size_t i = 0; params && i < g->n_params; i++)
                r |= append(params, param_json(&g->params[i]));
        r |= set(o, "params", params);
        eng_config_defaults(g, &defaults);
        r |= set(o, "defaults", match_json_config_to(g, &defaults));
        r |= set(o, "calls", calls_json(g));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- Config. */

/* Is path a group of settings: some key continues it after a dot? */
static bool is_group(const struct eng_game *g, const char *path) {
        size_t n = strlen(path);

        for (size_t i = 0; i < g->n_params; i++)
                if (strncmp(g->params[i].key, path, n) == 0 && g->params[i].key[n] == '.')
                        return true;
        return false;
}

/* One setting's JSON value into cfg, checked for type and range;
 * *given (a bit per param) catches the same setting given twice, nested
 * and dotted. */
static int config_set_one(const struct eng_game *g, const char *path, json_t *v,
                          struct eng_config *cfg, uint32_t *given, struct eng_error *ret_err) {
        const struct eng_param *p;
        int i = eng_param_find(g, path);

        if (i < 0) {
                if (is_group(g, path))
                        return eng_error_set(ret_err, path, "must be an object of settings");
                return eng_error_set(ret_err, path, "no such setting");
        }
        p = &g->params[i];
        if (*given & (UINT32_C(1) << i))
                return eng_error_set(ret_err, p->key, "is given twice");
        *given |= UINT32_C(1) << i;

        switch (p->type) {
        case ENG_PARAM_BOOL:
                if (!json_is_boolean(v))
                        return eng_error_set(ret_err, p->key, "must be true or false");
                cfg->v[i] = json_is_true(v);
                return 0;
        case ENG_PARAM_ENUM:
                /* A non-string is no choice: eng_config_set_choice lists them. */
                if (eng_config_set_choice(g, cfg, p->key, json_string_value(v), ret_err) < 0)
                        return -EINVAL;
                return 0;
        case ENG_PARAM_INT:
        default:
                if (!json_is_integer(v))
                        return eng_error_set(ret_err, p->key, "must be a whole number %lld..%lld",
                                             (long long) p->min, (long long) p->max);
                if (eng_config_set(g, cfg, p->key, json_integer_value(v), ret_err) < 0)
                        return -EINVAL;
                return 0;
        }
}

/* Walks obj's members with prefix as the dotted path so far: a member
 * that names a group is descended into, anything else must be a setting.
 * The depth is bounded by the dots of the game's keys. */
static int config_walk(const struct eng_game *g, const char *prefix, json_t *obj,
                       struct eng_config *cfg, uint32_t *given, struct eng_error *ret_err) {
        const char *key;
        json_t *v;

        json_object_foreach(obj, key, v) {
                char path[CONFIG_PATH_MAX];
                int n, r;

                n = prefix ? snprintf(path, sizeof path, "%s.%s", prefix, key)
                           : snprintf(path, sizeof path, "%s", key);
                if (n < 0 || (size_t) n >= sizeof path)
                        return eng_error_set(ret_err, path, "no such setting");
                if (json_is_object(v) && eng_param_find(g, path) < 0 && is_group(g, path))
                        r = config_walk(g, path, v, cfg, given, ret_err);
                else
                        r = config_set_one(g, path, v, cfg, given, ret_err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int match_json_config_from(const struct eng_game *g, json_t *obj, unsigned n_seats,
                           struct eng_config *ret, struct eng_error *ret_err) {
        uint32_t given = 0;
        int r;

        if (!g || !ret)
                return -EINVAL;
        eng_config_defaults(g, ret);
        if (obj && !json_is_null(obj)) {
                if (!json_is_object(obj))
                        return eng_error_set(ret_err, "config", "must be an object of settings");
                r = config_walk(g, NULL, obj, ret, &given, ret_err);
                if (r < 0)
                        return r;
        }
        return eng_config_validate(g, ret, n_seats, ret_err) < 0 ? -EINVAL : 0;
}

/* Sets key's value in root, creating the objects along its dots. */
static int config_put(json_t *root, const char *key, json_t *v) {
        json_t *at = root;
        const char *seg = key, *dot;

        while ((dot = strchr(seg, '.'))) {
                char name[CONFIG_PATH_MAX];
                json_t *next;
                size_t n = (size_t) (dot - seg);

                if (n >= sizeof name) {
                        json_decref(v);
                        return -ENAMETOOLONG;
                }
                memcpy(name, seg, n);
                name[n] = '\0';
                next = json_object_get(at, name);
                if (!next) {
                        next = json_object();
                        if (set(at, name, next) < 0) {
                                json_decref(v);
                                return -ENOMEM;
                        }
                } else if (!json_is_object(next)) {
                        json_decref(v);
                        return -EEXIST;
                }
                at = next;
                seg = dot + 1;
        }
        if (json_object_get(at, seg)) {
                json_decref(v);
                return -EEXIST;
        }
        return set(at, seg, v);
}

json_t *match_json_config_to(const struct eng_game *g, const struct eng_config *cfg) {
        json_t *o;

        if (!g || !cfg)
                return NULL;
        o = json_object();
        if (!o)
                return NULL;
        for (size_t i = 0; i < g->n_params; i++) {
                const struct eng_param *p = &g->params[i];

                if (config_put(o, p->key, param_value_json(p, cfg->v[i])) < 0) {
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

/* ---- Inputs. */

/* The log carries any seat a table can have, not only the game's range:
 * a refused input naming a seat the match does not have is still logged
 * (and refused again on replay), so it must still read back. */
static bool seat_ok(int seat) {
        return seat == ENG_SEAT_TABLE || (seat >= 0 && seat < ENG_MAX_SEATS);
}

static bool mask_ok(uint32_t mask) {
        return (mask >> ENG_MAX_SEATS) == 0;
}

json_t *match_json_input_to(const struct eng_game *g, const struct eng_input *in) {
        const char *kind;
        json_t *o, *args;
        int r;

        if (!g || !in)
                return NULL;
        kind = match_json_kind_name(in->kind);
        if (!kind || in->seq > (uint64_t) INT64_MAX || !seat_ok(in->seat))
                return NULL;
        if (in->kind == ENG_IN_TIE && !mask_ok(in->tie.seats))
                return NULL;
        o = json_object();
        if (!o)
                return NULL;
        r = set(o, "seq", json_integer((json_int_t) in->seq));
        r |= set(o, "time_us", json_integer(in->time_us));
        r |= set(o, "seat", seat_json(in->seat));
        r |= set(o, "kind", json_string(kind));
        switch (in->kind) {
        case ENG_IN_CALL:
                r |= set(o, "window", json_integer(in->call.window));
                r |= set(o, "call", json_integer(in->call.call));
                r |= set(o, "call_name", string_or_null(g->call_name(in->call.call)));
                r |= set(o, "press_us", json_integer(in->call.press_us));
                break;
        case ENG_IN_TIE:
                r |= set(o, "window", json_integer(in->tie.window));
                r |= set(o, "seats", seats_json(in->tie.seats));
                r |= set(o, "press_us", json_integer(in->tie.press_us));
                break;
        case ENG_IN_PRESS:
                r |= set(o, "button", json_integer(in->press.button));
                r |= set(o, "press_us", json_integer(in->press.press_us));
                break;
        case ENG_IN_REFEREE:
                r |= set(o, "op", json_integer(in->referee.op));
                args = json_array();
                for (size_t i = 0; args && i < ENG_REFEREE_ARGS; i++)
                        r |= append(args, json_integer(in->referee.arg[i]));
                r |= set(o, "args", args);
                break;
        default:
                break;
        }
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* The members each kind has besides seq, time_us, seat and kind;
 * call_name is read by people only. */
static const char *const *kind_members(enum eng_input_kind kind) {
        static const char *const none[] = { NULL };
        static const char *const call[] = { "window", "call", "call_name", "press_us", NULL };
        static const char *const tie[] = { "window", "seats", "press_us", NULL };
        static const char *const press[] = { "button", "press_us", NULL };
        static const char *const referee[] = { "op", "args", NULL };

        switch (kind) {
        case ENG_IN_CALL:
                return call;
        case ENG_IN_TIE:
                return tie;
        case ENG_IN_PRESS:
                return press;
        case ENG_IN_REFEREE:
                return referee;
        default:
                return none;
        }
}

static bool in_list(const char *const *list, const char *key) {
        for (; *list; list++)
                if (strcmp(*list, key) == 0)
                        return true;
        return false;
}

/* A whole number in [min, max]; "must be a whole number" says what is
 * wrong when the type is, the range when that is. */
static int check_int(json_t *v, const char *field, int64_t min, int64_t max, int64_t *ret,
                     struct eng_error *ret_err) {
        if (!v)
                return eng_error_set(ret_err, field, "is missing");
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
                if (min == INT64_MIN && max == INT64_MAX)
                        return eng_error_set(ret_err, field, "must be a whole number");
                return eng_error_set(ret_err, field, "must be a whole number %lld..%lld",
                                     (long long) min, (long long) max);
        }
        *ret = json_integer_value(v);
        return 0;
}

static int get_int(json_t *j, const char *field, int64_t min, int64_t max, int64_t *ret,
                   struct eng_error *ret_err) {
        return check_int(json_object_get(j, field), field, min, max, ret, ret_err);
}

/* A 1-based seat or null into an engine seat. */
static int get_seat(json_t *j, int *ret, struct eng_error *ret_err) {
        json_t *v = json_object_get(j, "seat");

        if (!v)
                return eng_error_set(ret_err, "seat", "is missing");
        if (json_is_null(v)) {
                *ret = ENG_SEAT_TABLE;
                return 0;
        }
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > ENG_MAX_SEATS)
                return eng_error_set(ret_err, "seat", "must be 1..%d or null (the table)",
                                     ENG_MAX_SEATS);
        *ret = (int) json_integer_value(v) - 1;
        return 0;
}

/* A list of distinct 1-based seats into a mask. */
static int get_seats(json_t *j, uint32_t *ret, struct eng_error *ret_err) {
        json_t *a = json_object_get(j, "seats"), *v;
        uint32_t mask = 0;
        size_t i;

        if (!a)
                return eng_error_set(ret_err, "seats", "is missing");
        if (!json_is_array(a))
                return eng_error_set(ret_err, "seats", "must be a list of seats 1..%d",
                                     ENG_MAX_SEATS);
        json_array_foreach(a, i, v) {
                char field[ENG_FIELD_MAX];
                int64_t s;

                snprintf(field, sizeof field, "seats[%zu]", i);
                if (check_int(v, field, 1, ENG_MAX_SEATS, &s, ret_err) < 0)
                        return -EINVAL;
                if (mask & (UINT32_C(1) << (s - 1)))
                        return eng_error_set(ret_err, field, "seat %lld is listed twice",
                                             (long long) s);
                mask |= UINT32_C(1) << (s - 1);
        }
        *ret = mask;
        return 0;
}

static int get_args(json_t *j, int64_t ret[ENG_REFEREE_ARGS], struct eng_error *ret_err) {
        json_t *a = json_object_get(j, "args"), *v;
        size_t i;

        if (!a)
                return eng_error_set(ret_err, "args", "is missing");
        if (!json_is_array(a) || json_array_size(a) > ENG_REFEREE_ARGS)
                return eng_error_set(ret_err, "args", "must be a list of at most %d whole numbers",
                                     ENG_REFEREE_ARGS);
        json_array_foreach(a, i, v) {
                char field[ENG_FIELD_MAX];

                snprintf(field, sizeof field, "args[%zu]", i);
                if (check_int(v, field, INT64_MIN, INT64_MAX, &ret[i], ret_err) < 0)
                        return -EINVAL;
        }
        return 0;
}

/* The kind comes first so that an unknown member can be told from a
 * member of another kind; then the common members, then the kind's. */
int match_json_input_from(const struct eng_game *g, json_t *j, struct eng_input *ret,
                          struct eng_error *ret_err) {
        static const char *const common[] = { "seq", "time_us", "seat", "kind", NULL };
        const char *const *members;
        struct eng_input in;
        const char *key;
        int64_t x;
        json_t *v;
        int kind;

        if (!g || !ret)
                return -EINVAL;
        if (!json_is_object(j))
                return eng_error_set(ret_err, "input", "must be an object");
        memset(&in, 0, sizeof in);

        v = json_object_get(j, "kind");
        if (!v)
                return eng_error_set(ret_err, "kind", "is missing");
        kind = match_json_kind_from_name(json_string_value(v));
        if (kind < 0)
                return eng_error_set(ret_err, "kind", "must be one of start, call, tie, press, "
                                     "timer, pause, resume, referee");
        in.kind = (enum eng_input_kind) kind;
        members = kind_members(in.kind);
        json_object_foreach(j, key, v)
                if (!in_list(common, key) && !in_list(members, key))
                        return eng_error_set(ret_err, key, "is not a member of a %s input",
                                             kind_names[kind]);

        if (get_int(j, "seq", 0, INT64_MAX, &x, ret_err) < 0)
                return -EINVAL;
        in.seq = (uint64_t) x;
        if (get_int(j, "time_us", INT64_MIN, INT64_MAX, &in.time_us, ret_err) < 0)
                return -EINVAL;
        if (get_seat(j, &in.seat, ret_err) < 0)
                return -EINVAL;

        switch (in.kind) {
        case ENG_IN_CALL:
                if (get_int(j, "window", 0, UINT32_MAX, &x, ret_err) < 0)
                        return -EINVAL;
                in.call.window = (uint32_t) x;
                if (get_int(j, "call", INT_MIN, INT_MAX, &x, ret_err) < 0)
                        return -EINVAL;
                in.call.call = (int) x;
                if (get_int(j, "press_us", INT64_MIN, INT64_MAX, &in.call.press_us, ret_err) < 0)
                        return -EINVAL;
                break;
        case ENG_IN_TIE:
                if (get_int(j, "window", 0, UINT32_MAX, &x, ret_err) < 0)
                        return -EINVAL;
                in.tie.window = (uint32_t) x;
                if (get_seats(j, &in.tie.seats, ret_err) < 0)
                        return -EINVAL;
                if (get_int(j, "press_us", INT64_MIN, INT64_MAX, &in.tie.press_us, ret_err) < 0)
                        return -EINVAL;
                break;
        case ENG_IN_PRESS:
                if (get_int(j, "button", 0, UINT_MAX, &x, ret_err) < 0)
                        return -EINVAL;
                in.press.button = (unsigned) x;
                if (get_int(j, "press_us", INT64_MIN, INT64_MAX, &in.press.press_us, ret_err) < 0)
                        return -EINVAL;
                break;
        case ENG_IN_REFEREE:
                if (get_int(j, "op", 0, UINT_MAX, &x, ret_err) < 0)
                        return -EINVAL;
                in.referee.op = (unsigned) x;
                if (get_args(j, in.referee.arg, ret_err) < 0)
                        return -EINVAL;
                break;
        default:
                break;
        }
        *ret = in;
        return 0;
}

/* ---- Outputs. */

/* placements as [{"seat", "place"}] best first, equal places in seat
 * order, from a per-seat place table. */
static json_t *placements_json(const unsigned *place, unsigned n_seats) {
        json_t *a = json_array();
        unsigned done = 0;
        int r = 0;

        if (!a)
                return NULL;
        if (n_seats > ENG_MAX_SEATS)
                n_seats = ENG_MAX_SEATS;
        /* Places are 1..n_seats; a selection by place keeps it O(n²) on
         * at most ENG_MAX_SEATS seats. */
        for (unsigned p = 1; p <= n_seats && done < n_seats; p++)
                for (unsigned s = 0; s < n_seats; s++) {
                        json_t *e;

                        if (place[s] != p)
                                continue;
                        e = json_object();
                        r |= append(a, e);
                        if (!e)
                                break;
                        r |= set(e, "seat", seat_json((int) s));
                        r |= set(e, "place", json_integer(p));
                        done++;
                }
        if (r < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static json_t *source_json(int source) {
        switch (source) {
        case ENG_SOURCE_NEUTRAL:
                return json_string("neutral");
        case ENG_SOURCE_AGAIN:
                return json_string("again");
        default:
                return json_string("stack");
        }
}

/* One switch over every kind, so that the runtime, api/ and bus/ never
 * decode the union themselves. */
static int output_fields(const struct eng_game *g, const struct eng_output *o, json_t *j) {
        int r = 0;

        switch (o->kind) {
        case ENG_EV_CARD_REVEALED:
                r |= set(j, "card", card_json(g, o->revealed.card));
                r |= set(j, "source", source_json(o->revealed.source));
                r |= set(j, "source_seat", seat_json(o->revealed.source >= 0 ? o->revealed.source
                                                                              : ENG_SEAT_TABLE));
                r |= set(j, "reveal", json_integer(o->revealed.reveal));
                break;
        case ENG_EV_CALL_JUDGED:
                r |= set(j, "call", json_integer(o->judged.call));
                r |= set(j, "call_name", string_or_null(g->call_name(o->judged.call)));
                r |= set(j, "verdict", string_or_null(match_json_verdict_name(o->judged.verdict)));
                r |= set(j, "reaction_us", json_integer(o->judged.reaction_us));
                r |= set(j, "window", json_integer(o->judged.window));
                r |= set(j, "card", card_json(g, o->judged.card));
                break;
        case ENG_EV_TIEBREAK_STARTED:
                r |= set(j, "seats", seats_json(o->tiebreak.seats));
                break;
        case ENG_EV_CARD_PLACED:
                r |= set(j, "card", card_json(g, o->placed.card));
                r |= set(j, "row", json_integer(o->placed.row));
                break;
        case ENG_EV_CARD_TUCKED:
                r |= set(j, "card", card_json(g, o->tucked.card));
                r |= set(j, "cause", string_or_null(name_of(cause_names, ELEMENTSOF(cause_names),
                                                            (long) o->tucked.cause)));
                break;
        case ENG_EV_CHIP_GIVEN:
                r |= set(j, "chips", json_integer(o->chip.chips));
                break;
        case ENG_EV_PLAYER_ELIMINATED:
                r |= set(j, "order", json_integer(o->eliminated.order));
                break;
        case ENG_EV_REVEAL_EXPIRED:
                r |= set(j, "card", card_json(g, o->expired.card));
                break;
        case ENG_EV_CALL_VOIDED:
                if (o->voided.seq > (uint64_t) INT64_MAX)
                        return -ERANGE;
                r |= set(j, "voided_seq", json_integer((json_int_t) o->voided.seq));
                break;
        case ENG_EV_SCORE_CHANGED:
                r |= set(j, "delta", json_integer(o->score.delta));
                r |= set(j, "total", json_integer(o->score.total));
                break;
        case ENG_EV_GAME: {
                json_t *args = json_array();

                r |= set(j, "code", json_integer(o->game.code));
                for (size_t i = 0; args && i < GAME_EVENT_ARGS; i++)
                        r |= append(args, json_integer(o->game.arg[i]));
                r |= set(j, "args", args);
                break;
        }
        case ENG_EV_MATCH_FINISHED:
                r |= set(j, "winner", seat_json(o->finished.winner));
                r |= set(j, "placements", placements_json(o->finished.place, o->finished.n_seats));
                break;
        case ENG_REQ_WINDOW_OPEN:
                r |= set(j, "window", json_integer(o->window.window));
                r |= set(j, "seats", seats_json(o->window.seats));
                break;
        case ENG_REQ_WINDOW_CLOSE:
                r |= set(j, "window", json_integer(o->window.window));
                break;
        case ENG_REQ_PAD_LIGHT:
                r |= set(j, "button", o->light.button == LIGHT_EVERY_BUTTON
                                              ? json_null() : json_integer(o->light.button));
                r |= set(j, "mode", string_or_null(name_of(light_names, ELEMENTSOF(light_names),
                                                           (long) o->light.mode)));
                r |= set(j, "duration_ms", json_integer(o->light.duration_ms));
                break;
        case ENG_REQ_PAD_BUZZ:
                r |= set(j, "pattern", string_or_null(name_of(buzz_names, ELEMENTSOF(buzz_names),
                                                              (long) o->buzz.pattern)));
                r |= set(j, "duration_ms", json_integer(o->buzz.duration_ms));
                break;
        case ENG_REQ_PAD_LOCKOUT: {
                json_t *buttons = json_array();

                for (unsigned b = 0; buttons && b < PROTO_MAX_BUTTONS; b++)
                        if (o->lockout.buttons & (UINT32_C(1) << b))
                                r |= append(buttons, json_integer(b));
                r |= set(j, "buttons", buttons);
                break;
        }
        case ENG_EV_MATCH_STARTED:
        case ENG_EV_PAUSED:
        case ENG_EV_RESUMED:
        default:
                break;
        }
        return r;
}

json_t *match_json_output(const struct eng_game *g, const struct eng_output *o,
                          const char **ret_event_name) {
        const char *name;
        json_t *j;
        int r;

        name = o ? match_json_output_name(o->kind) : NULL;
        if (ret_event_name)
                *ret_event_name = name ? name : "unknown";
        if (!g || !name)
                return NULL;
        j = json_object();
        if (!j)
                return NULL;
        r = set(j, "kind", json_string(name));
        r |= set(j, "seat", seat_json(o->seat));
        r |= set(j, "at_us", json_integer(o->at_us));
        if (r < 0 || output_fields(g, o, j) < 0) {
                json_decref(j);
                return NULL;
        }
        return j;
}

/* ---- Result. */

/* "No average yet" and "not out" are null, as the views show them, rather
 * than a 0 a screen would print as a time or a place. */
static json_t *stats_json(const struct eng_seat_stats *s) {
        json_t *o = json_object();
        int r;

        if (!o)
                return NULL;
        r = set(o, "calls", json_integer(s->calls));
        r |= set(o, "correct", json_integer(s->correct));
        r |= set(o, "wrong", json_integer(s->wrong));
        r |= set(o, "ties", json_integer(s->ties));
        r |= set(o, "reaction_sum_us", json_integer(s->reaction_sum_us));
        r |= set(o, "reaction_avg_us", s->calls ? json_integer(s->reaction_avg_us) : json_null());
        r |= set(o, "chips", json_integer(s->chips));
        r |= set(o, "cards_left", json_integer(s->cards_left));
        r |= set(o, "eliminated", json_boolean(s->eliminated));
        r |= set(o, "eliminated_order", s->eliminated_order ? json_integer(s->eliminated_order)
                                                             : json_null());
        r |= set(o, "score", json_integer(s->score));
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *match_json_result(const struct eng_game *g, const struct eng_result *r) {
        json_t *o, *placements;
        unsigned n;
        int e;

        if (!g || !r)
                return NULL;
        n = r->n_seats < ENG_MAX_SEATS ? r->n_seats : ENG_MAX_SEATS;
        o = json_object();
        if (!o)
                return NULL;
        e = set(o, "finished", json_boolean(r->finished));
        e |= set(o, "winner", seat_json(r->winner));
        placements = json_array();
        for (unsigned i = 0; placements && i < n; i++) {
                int s = r->order[i];

                if (s < 0 || (unsigned) s >= n)
                        continue;
                json_t *p = json_object();

                e |= append(placements, p);
                if (!p)
                        break;
                e |= set(p, "seat", seat_json(s));
                e |= set(p, "place", json_integer(r->place[s]));
                e |= set(p, "stats", stats_json(&r->stats[s]));
        }
        e |= set(o, "placements", placements);
        if (e < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}
