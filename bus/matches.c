/* bus/matches.c — see matches.h. */
#define _GNU_SOURCE
#include "bus/matches.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <systemd/sd-bus.h>

#include "bus/bus.h"
#include "bus/property.h"
#include "common/log.h"
#include "match/json.h"
#include "match/match.h"

/* A D-Bus signature of one signal, or an interface or member name. */
#define SIG_MAX                 128
#define NAME_MAX_DBUS           256
/* Nesting of a JSON value turned into variants (a view's depth). */
#define VARIANT_MAX_DEPTH       16

/* One interface of the match objects, served by one fallback vtable whose
 * userdata it is: the find callback reaches the registry through it. */
struct match_iface {
        struct bus_matches *bm;
        const struct eng_game *game;    /* NULL: the Match interface, every game's matches */
        char *name;                     /* owned */
        sd_bus_vtable *vtable;          /* owned, with the strings of its signals */
};

struct bus_matches {
        struct bus *bus;                /* borrowed; NULL: not exported */
        struct matches *reg;            /* borrowed; NULL once detached */
        struct match_iface match;       /* org.arbiter.Arbiter1.Match */
        struct match_iface games[BUS_MATCH_MAX_GAMES];  /* per game in eng_games, in order */
        size_t n_games;
};

/* A match id in decimal is already a valid path element. */
static char *match_path(int64_t id) {
        char *path = NULL;

        if (asprintf(&path, "%s/%" PRId64, BUS_MATCH_PREFIX, id) < 0)
                return NULL;
        return path;
}

/* The id named by path, or 0 when path is no match object's. */
static int64_t id_of_path(const char *path) {
        const char *digits;
        char *end;
        long long id;

        if (strncmp(path, BUS_MATCH_PREFIX "/", strlen(BUS_MATCH_PREFIX) + 1) != 0)
                return 0;
        digits = path + strlen(BUS_MATCH_PREFIX) + 1;
        if (*digits < '1' || *digits > '9')
                return 0;
        errno = 0;
        id = strtoll(digits, &end, 10);
        if (errno != 0 || *end != '\0')
                return 0;
        return (int64_t) id;
}

/* ---- names and signatures (matches.h) ------------------------------------ */

int bus_match_camel(const char *name, char *buf, size_t len) {
        size_t at = 0;
        bool up = true;

        for (const char *p = name; *p; p++) {
                if (*p == '_' || *p == '-') {
                        up = true;
                        continue;
                }
                if (at + 1 >= len || !isalnum((unsigned char) *p))
                        return -EINVAL;
                buf[at++] = up ? (char) toupper((unsigned char) *p) : *p;
                up = false;
        }
        if (at == 0)
                return -EINVAL;
        buf[at] = '\0';
        return 0;
}

int bus_match_game_iface(const struct eng_game *g, char *buf, size_t len) {
        char camel[NAME_MAX_DBUS];
        int n;

        if (bus_match_camel(g->name, camel, sizeof camel) < 0)
                return -EINVAL;
        n = snprintf(buf, len, "%s.%s", BUS_MATCH_GAME_IFACE_PREFIX, camel);
        return n < 0 || (size_t) n >= len ? -ENAMETOOLONG : 0;
}

static const char *type_sig(enum eng_type t) {
        switch (t) {
        case ENG_T_BOOL:   return "b";
        case ENG_T_SEAT:   return "y";
        case ENG_T_SEATS:  return "ay";
        case ENG_T_BITS:   return "ay";
        case ENG_T_SEQ:    return "t";
        case ENG_T_ENUM:
        case ENG_T_CALL:
        case ENG_T_HANDLE: return "s";
        case ENG_T_CARD:   return "a{sv}";
        case ENG_T_PLACES: return "a(yu)";
        case ENG_T_INT:
        case ENG_T_TIME:
        default:           return "x";
        }
}

static bool public_field(const struct eng_field *f) {
        return f->audience == ENG_VIEW_PUBLIC;
}

int bus_match_signature(const struct eng_event_def *d, char *sig, size_t sig_len, char *names, size_t names_len) {
        size_t s = 0, n = 0;
        int k;

        /* Every signal begins with the seat the event concerns (0: none). */
        k = snprintf(sig, sig_len, "y");
        if (k < 0 || (size_t) k >= sig_len)
                return -ENAMETOOLONG;
        s = (size_t) k;
        if (names) {
                k = snprintf(names, names_len, "seat");
                if (k < 0 || (size_t) k + 1 >= names_len)
                        return -ENAMETOOLONG;
                n = (size_t) k + 1;
        }
        for (size_t i = 0; i < d->n_fields; i++) {
                const struct eng_field *f = &d->fields[i];

                if (!public_field(f))
                        continue;
                k = snprintf(sig + s, sig_len - s, "%s%s", f->max_count ? "a" : "", type_sig(f->type));
                if (k < 0 || (size_t) k >= sig_len - s)
                        return -ENAMETOOLONG;
                s += (size_t) k;
                if (names) {
                        k = snprintf(names + n, names_len - n, "%s", f->name);
                        if (k < 0 || (size_t) k + 1 >= names_len - n)
                                return -ENAMETOOLONG;
                        n += (size_t) k + 1;
                }
        }
        if (names)
                names[n] = '\0';        /* the list ends with an empty name */
        return 0;
}

/* ---- JSON as variants ------------------------------------------------------ */

static int append_json(sd_bus_message *m, json_t *v, int depth);

/* A JSON object as a{sv}; null members are left out (D-Bus has no null). */
static int append_dict(sd_bus_message *m, json_t *obj, int depth) {
        const char *key;
        json_t *v;
        int r = sd_bus_message_open_container(m, 'a', "{sv}");

        json_object_foreach(obj, key, v) {
                if (r < 0)
                        break;
                if (json_is_null(v))
                        continue;
                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", key);
                if (r >= 0)
                        r = append_json(m, v, depth + 1);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        return r < 0 ? r : sd_bus_message_close_container(m);
}

/* Any JSON value as a variant: objects a{sv}, arrays av, numbers x or d,
 * booleans b, strings s; null, inside a list, an empty a{sv}. */
static int append_json(sd_bus_message *m, json_t *v, int depth) {
        int r;

        if (depth > VARIANT_MAX_DEPTH)
                return -E2BIG;
        switch (json_typeof(v)) {
        case JSON_OBJECT:
                r = sd_bus_message_open_container(m, 'v', "a{sv}");
                if (r >= 0)
                        r = append_dict(m, v, depth);
                break;
        case JSON_ARRAY: {
                json_t *it;
                size_t i;

                r = sd_bus_message_open_container(m, 'v', "av");
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'a', "v");
                json_array_foreach(v, i, it) {
                        if (r < 0)
                                break;
                        r = json_is_null(it) ? sd_bus_message_append(m, "v", "a{sv}", 0)
                                             : append_json(m, it, depth + 1);
                }
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                break;
        }
        case JSON_INTEGER:
                return sd_bus_message_append(m, "v", "x", (int64_t) json_integer_value(v));
        case JSON_REAL:
                return sd_bus_message_append(m, "v", "d", json_real_value(v));
        case JSON_TRUE:
        case JSON_FALSE:
                return sd_bus_message_append(m, "v", "b", (int) json_is_true(v));
        case JSON_STRING:
                return sd_bus_message_append(m, "v", "s", json_string_value(v));
        case JSON_NULL:
        default:
                return sd_bus_message_append(m, "v", "a{sv}", 0);
        }
        return r < 0 ? r : sd_bus_message_close_container(m);
}

/* ---- properties ------------------------------------------------------------
 *
 * Id is a field of struct match (a typed getter, bus/property.h).  The others
 * are computed, each by a getter of its own: State from the abort flag, the
 * log's phase and the engine's status (match_state_name()); Window is the
 * open window's id but 0 while none is open, though the struct keeps the
 * last one; Game, Seats, GamePause and View come from the game and the
 * engine's state. */

/* The fallbacks' find: userdata is the interface's struct match_iface, the
 * object found is the struct match the vtable's offsets are into.  A game's
 * interface is only on that game's matches. */
static int find_match(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                      sd_bus_error *ret_error) {
        const struct match_iface *mi = userdata;
        int64_t id = id_of_path(path);
        struct match *m;

        (void) bus, (void) interface, (void) ret_error;
        m = id > 0 && mi->bm->reg ? matches_find(mi->bm->reg, id) : NULL;
        if (!m || (mi->game && m->game != mi->game))
                return 0;
        *ret_found = m;
        return 1;
}

static int get_game(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                    void *userdata, sd_bus_error *ret_error) {
        const struct match *m = userdata;

        (void) bus, (void) path, (void) iface, (void) prop, (void) ret_error;
        return sd_bus_message_append(reply, "s", m->game->name);
}

static int get_state(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                     void *userdata, sd_bus_error *ret_error) {
        const struct match *m = userdata;

        (void) bus, (void) path, (void) iface, (void) prop, (void) ret_error;
        return sd_bus_message_append(reply, "s", match_state_name(m));
}

/* Seats: (seat 1-based, name, [(pad, role)]). */
static int get_seats(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                     void *userdata, sd_bus_error *ret_error) {
        const struct match *m = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "(ysa(ss))");

        (void) bus, (void) path, (void) iface, (void) prop, (void) ret_error;
        for (unsigned s = 0; r >= 0 && s < m->n_seats; s++) {
                const struct match_seat *ms = &m->seats[s];

                r = sd_bus_message_open_container(reply, 'r', "ysa(ss)");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "ys", (uint8_t) (s + 1), ms->name);
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'a', "(ss)");
                for (unsigned k = 0; r >= 0 && k < ms->n_pads; k++)
                        r = sd_bus_message_append(reply, "(ss)", ms->pads[k].id, eng_role_name(ms->pads[k].role));
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int get_window(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                      void *userdata, sd_bus_error *ret_error) {
        const struct match *m = userdata;

        (void) bus, (void) path, (void) iface, (void) prop, (void) ret_error;
        return sd_bus_message_append(reply, "u", m->window_open ? m->window : 0);
}

static int get_game_pause(sd_bus *bus, const char *path, const char *iface, const char *prop,
                          sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const struct match *m = userdata;
        const char *pause = m->game->game_pause ? m->game->game_pause(m->state) : NULL;

        (void) bus, (void) path, (void) iface, (void) prop, (void) ret_error;
        return sd_bus_message_append(reply, "s", pause ? pause : "");
}

/* The public view, as REST's GET /v1/matches/{id} shows it. */
static int get_view(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                    void *userdata, sd_bus_error *ret_error) {
        const struct match *m = userdata;
        json_t *view = match_json_view(m->game, m->state, ENG_VIEW_PUBLIC, -1);
        int r;

        (void) bus, (void) path, (void) iface, (void) prop;
        if (!view)
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_FAILED, "the engine could not show the view");
        r = append_dict(reply, view, 0);
        json_decref(view);
        return r;
}

#define PROPERTY(name, sig, get, flags) SD_BUS_PROPERTY(name, sig, get, 0, flags)

static const sd_bus_vtable match_properties[] = {
        BUS_PROPERTY_I64_T("Id", struct match, id, SD_BUS_VTABLE_PROPERTY_CONST),
        PROPERTY("Game", "s", get_game, SD_BUS_VTABLE_PROPERTY_CONST),
        PROPERTY("Seats", "a(ysa(ss))", get_seats, SD_BUS_VTABLE_PROPERTY_CONST),
        PROPERTY("State", "s", get_state, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROPERTY("Window", "u", get_window, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROPERTY("GamePause", "s", get_game_pause, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROPERTY("View", "a{sv}", get_view, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
};

static void vtable_free(sd_bus_vtable *v) {
        for (size_t i = 1; v && v[i].type != _SD_BUS_VTABLE_END; i++)
                if (v[i].type == _SD_BUS_VTABLE_SIGNAL) {
                        free((char *) v[i].x.signal.member);
                        free((char *) v[i].x.signal.signature);
                        free((char *) v[i].x.signal.names);
                }
        free(v);
}

/* A vtable of props[0..n_props) and a signal for each public event of
 * events[0..n): the signals' names and signatures come from the events'
 * tables (bus_match_signature), as docs/dbus.md lists them. */
static sd_bus_vtable *signals_vtable(const sd_bus_vtable *props, size_t n_props,
                                     const struct eng_event_def *const *events, size_t n) {
        sd_bus_vtable *v = calloc(n_props + n + 2, sizeof *v);
        size_t at = 0;

        if (!v)
                return NULL;
        v[at++] = (sd_bus_vtable) SD_BUS_VTABLE_START(0);
        for (size_t i = 0; i < n_props; i++)
                v[at++] = props[i];
        v[at] = (sd_bus_vtable) SD_BUS_VTABLE_END;
        for (size_t i = 0; i < n; i++) {
                const struct eng_event_def *d = events[i];
                char member[NAME_MAX_DBUS], sig[SIG_MAX], names[NAME_MAX_DBUS];
                char *m, *sg, *nm;

                if (d->audience != ENG_VIEW_PUBLIC)
                        continue;
                if (bus_match_camel(d->name, member, sizeof member) < 0 ||
                    bus_match_signature(d, sig, sizeof sig, names, sizeof names) < 0) {
                        vtable_free(v);
                        return NULL;
                }
                /* The strings live as long as the vtable. */
                m = strdup(member);
                sg = strdup(sig);
                nm = malloc(sizeof names);
                if (nm)
                        memcpy(nm, names, sizeof names);
                v[at++] = (sd_bus_vtable) SD_BUS_SIGNAL_WITH_NAMES(m, sg, nm, 0);
                v[at] = (sd_bus_vtable) SD_BUS_VTABLE_END;
                if (!m || !sg || !nm) {
                        vtable_free(v);
                        return NULL;
                }
        }
        return v;
}

static int enumerate_matches(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes,
                             sd_bus_error *ret_error) {
        struct bus_matches *bm = userdata;
        size_t n = bm->reg ? matches_ids(bm->reg, NULL, 0) : 0, got;
        int64_t *ids = calloc(n + 1, sizeof *ids);
        char **nodes = calloc(n + 1, sizeof *nodes);

        (void) bus, (void) prefix, (void) ret_error;
        if (!ids || !nodes)
                goto oom;
        got = bm->reg ? matches_ids(bm->reg, ids, n) : 0;
        for (size_t i = 0; i < got && i < n; i++) {
                nodes[i] = match_path(ids[i]);
                if (!nodes[i])
                        goto oom;
        }
        free(ids);
        *ret_nodes = nodes;
        return 0;
oom:
        for (size_t i = 0; nodes && nodes[i]; i++)
                free(nodes[i]);
        free(nodes);
        free(ids);
        return -ENOMEM;
}

static int register_matches(void *userdata, sd_bus *bus) {
        struct bus_matches *bm = userdata;
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, BUS_MATCH_PREFIX, bm->match.name, bm->match.vtable, find_match,
                                       &bm->match);
        for (size_t i = 0; r >= 0 && i < bm->n_games; i++)
                r = sd_bus_add_fallback_vtable(bus, NULL, BUS_MATCH_PREFIX, bm->games[i].name, bm->games[i].vtable,
                                               find_match, &bm->games[i]);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, BUS_MATCH_PREFIX, enumerate_matches, bm);
}

/* ---- announcements ----------------------------------------------------- */

/* Emission failures (the bus is away) are not worth more than a debug line:
 * the object manager tells a reconnecting listener the whole state. */

static void on_added(void *userdata, struct match *m, bool created) {
        struct bus_matches *bm = userdata;
        char *path;

        (void) created;         /* either way a new object on the bus */

        if (!bus_get_sd_bus(bm->bus) || !(path = match_path(m->id)))
                return;
        if (bus_emit_object_added(bm->bus, path) < 0)
                log_debug("could not announce match %" PRId64 " on D-Bus", m->id);
        free(path);
}

/* Its pending PropertiesChanged goes first (bus_emit_object_removed()): a
 * finished match's last State is announced before it leaves. */
static void on_removed(void *userdata, struct match *m) {
        struct bus_matches *bm = userdata;
        char *path;

        if (!bus_get_sd_bus(bm->bus) || !(path = match_path(m->id)))
                return;
        if (bus_emit_object_removed(bm->bus, path) < 0)
                log_debug("could not announce the end of match %" PRId64 " on D-Bus", m->id);
        free(path);
}

/* Every emits-change property, changed or not (docs/dbus.md), coalesced
 * with the rest of the turn's. */
static void mark_changed(struct bus_matches *bm, const char *path) {
        (void) bus_properties_changed(bm->bus, path, BUS_MATCH_IFACE, "State", "Window", "GamePause", "View",
                                      NULL);
}

static void on_aborted(void *userdata, struct match *m) {
        struct bus_matches *bm = userdata;
        char *path;

        if (!bus_get_sd_bus(bm->bus) || !(path = match_path(m->id)))
                return;
        mark_changed(bm, path);
        free(path);
}

/* One field's value (from the public JSON of the event) as its signature
 * says. */
static int append_field(sd_bus_message *msg, const struct eng_game *g, const struct eng_field *f, json_t *v);

static int append_one(sd_bus_message *msg, const struct eng_game *g, const struct eng_field *f, json_t *v) {
        switch (f->type) {
        case ENG_T_BOOL:
                return sd_bus_message_append(msg, "b", (int) json_is_true(v));
        case ENG_T_SEAT:
                return sd_bus_message_append(msg, "y", (uint8_t) (json_is_integer(v) ? json_integer_value(v) : 0));
        case ENG_T_SEATS:
        case ENG_T_BITS: {
                json_t *it;
                size_t i;
                int r = sd_bus_message_open_container(msg, 'a', "y");

                json_array_foreach(v, i, it)
                        if (r >= 0)
                                r = sd_bus_message_append(msg, "y", (uint8_t) json_integer_value(it));
                return r < 0 ? r : sd_bus_message_close_container(msg);
        }
        case ENG_T_SEQ:
                return sd_bus_message_append(msg, "t", (uint64_t) json_integer_value(v));
        case ENG_T_CALL: {
                const char *name = eng_call_name(g, json_integer_value(v));

                return sd_bus_message_append(msg, "s", name ? name : "");
        }
        case ENG_T_ENUM:
        case ENG_T_HANDLE:
                return sd_bus_message_append(msg, "s", json_is_string(v) ? json_string_value(v) : "");
        case ENG_T_CARD:
                return append_dict(msg, json_is_object(v) ? v : json_object(), 0);
        case ENG_T_PLACES: {
                json_t *it;
                size_t i;
                int r = sd_bus_message_open_container(msg, 'a', "(yu)");

                json_array_foreach(v, i, it)
                        if (r >= 0)
                                r = sd_bus_message_append(msg, "(yu)",
                                                          (uint8_t) json_integer_value(json_object_get(it, "seat")),
                                                          (uint32_t) json_integer_value(json_object_get(it, "place")));
                return r < 0 ? r : sd_bus_message_close_container(msg);
        }
        case ENG_T_INT:
        case ENG_T_TIME:
        default:
                return sd_bus_message_append(msg, "x", (int64_t) json_integer_value(v));
        }
}

static int append_field(sd_bus_message *msg, const struct eng_game *g, const struct eng_field *f, json_t *v) {
        char inner[SIG_MAX];
        json_t *it;
        size_t i;
        int r;

        if (!f->max_count)
                return append_one(msg, g, f, v);
        snprintf(inner, sizeof inner, "%s", type_sig(f->type));
        r = sd_bus_message_open_container(msg, 'a', inner);
        json_array_foreach(v, i, it)
                if (r >= 0)
                        r = append_one(msg, g, f, it);
        return r < 0 ? r : sd_bus_message_close_container(msg);
}

/* The signal of one public event: on the Match interface for the
 * framework's, on the game's for its own. */
static int emit_output(sd_bus *bus, const char *path, const struct match *m, const struct eng_output *o,
                       const char *game_iface) {
        bool framework = false;
        char member[NAME_MAX_DBUS];
        sd_bus_message *msg = NULL;
        json_t *j;
        int r;

        for (size_t i = 0; eng_framework_events[i]; i++)
                framework |= eng_framework_events[i] == o->def;
        if (o->def->audience != ENG_VIEW_PUBLIC || bus_match_camel(o->def->name, member, sizeof member) < 0)
                return 0;
        j = match_json_output(m->game, m->state, o, &match_public, NULL);
        if (!j)
                return -ENOMEM;
        r = sd_bus_message_new_signal(bus, &msg, path, framework ? BUS_MATCH_IFACE : game_iface, member);
        if (r >= 0)
                r = sd_bus_message_append(msg, "y", (uint8_t) (o->seat >= 0 ? o->seat + 1 : 0));
        for (size_t i = 0; r >= 0 && i < o->def->n_fields; i++)
                if (public_field(&o->def->fields[i]))
                        r = append_field(msg, m->game, &o->def->fields[i],
                                         json_object_get(j, o->def->fields[i].name));
        if (r >= 0)
                r = sd_bus_send(bus, msg, NULL);
        sd_bus_message_unref(msg);
        json_decref(j);
        return r;
}

/* The input's signals at once, in the engine's order; its new values in
 * the turn's coalesced PropertiesChanged, after them. */
static void on_published(void *userdata, struct match *m, const struct eng_input *in, const struct eng_out *out) {
        struct bus_matches *bm = userdata;
        sd_bus *bus = bus_get_sd_bus(bm->bus);
        char iface[NAME_MAX_DBUS];
        char *path;

        (void) in;
        /* A refused input changed nothing: no events, no new values. */
        if (!bus || out->refusal != ENG_ACCEPTED || bus_match_game_iface(m->game, iface, sizeof iface) < 0 ||
            !(path = match_path(m->id)))
                return;
        for (size_t i = 0; i < out->n; i++)
                if (!eng_output_is_request(&out->v[i]) && emit_output(bus, path, m, &out->v[i], iface) < 0)
                        log_debug("could not emit %s for match %" PRId64 " on D-Bus", out->v[i].def->name, m->id);
        mark_changed(bm, path);
        free(path);
}

/* The interfaces and their vtables: the Match interface's from its
 * properties and the framework's events, each game's from its events. */
static int build_ifaces(struct bus_matches *bm) {
        char iface[NAME_MAX_DBUS];
        size_t n_framework = 0;
        int r;

        while (eng_framework_events[n_framework])
                n_framework++;
        bm->match = (struct match_iface) {
                .bm = bm,
                .name = strdup(BUS_MATCH_IFACE),
                .vtable = signals_vtable(match_properties, sizeof match_properties / sizeof match_properties[0],
                                         eng_framework_events, n_framework),
        };
        if (!bm->match.name || !bm->match.vtable)
                return -ENOMEM;
        for (size_t i = 0; eng_games[i]; i++) {
                if (i >= BUS_MATCH_MAX_GAMES)
                        return -E2BIG;
                r = bus_match_game_iface(eng_games[i], iface, sizeof iface);
                if (r < 0)
                        return r;
                struct match_iface *gi = &bm->games[i];
                bm->n_games = i + 1;
                *gi = (struct match_iface) {
                        .bm = bm,
                        .game = eng_games[i],
                        .name = strdup(iface),
                        .vtable = signals_vtable(NULL, 0, eng_games[i]->events, eng_games[i]->n_events),
                };
                if (!gi->name || !gi->vtable)
                        return -ENOMEM;
        }
        return 0;
}

int bus_matches_new(struct bus *b, struct matches *reg, struct bus_matches **ret) {
        struct bus_matches *bm = calloc(1, sizeof *bm);
        int r;

        if (!bm)
                return -ENOMEM;
        bm->bus = b;
        bm->reg = reg;
        /* Once registered, the bus and the registry point at bm, and neither
         * can forget it: so the caller owns it from here, failure or not. */
        *ret = bm;
        if (!b)
                return 0;
        r = build_ifaces(bm);
        if (r < 0)
                return r;
        r = bus_add_extension(b, register_matches, bm);
        if (r < 0)
                return r;
        return matches_observe(reg, &(struct match_observer) {
                .added = on_added,
                .removed = on_removed,
                .aborted = on_aborted,
                .published = on_published,
                .userdata = bm,
        });
}

void bus_matches_detach(struct bus_matches *bm) {
        if (!bm)
                return;
        bus_flush_changes(bm->bus);
        bm->reg = NULL;
}

static void match_iface_done(struct match_iface *mi) {
        vtable_free(mi->vtable);
        free(mi->name);
}

void bus_matches_free(struct bus_matches *bm) {
        if (!bm)
                return;
        match_iface_done(&bm->match);
        for (size_t i = 0; i < bm->n_games; i++)
                match_iface_done(&bm->games[i]);
        free(bm);
}
