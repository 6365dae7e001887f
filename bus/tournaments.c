/* bus/tournaments.c — see tournaments.h. */
#define _GNU_SOURCE
#include "bus/tournaments.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus/bus.h"
#include "bus/property.h"
#include "common/log.h"

/* Names as the schema allows them (tournaments.name, 128 bytes). */
#define NAME_MAX_BYTES 129
#define GAME_MAX_BYTES 64
#define STATE_MAX_BYTES 16
/* The first allocation of objects; doubled as needed. */
#define TOURNAMENTS_MIN 16

/* One tournament's object: the fields its properties show. */
struct bus_tournament {
        int64_t id;
        char name[NAME_MAX_BYTES], game[GAME_MAX_BYTES], state[STATE_MAX_BYTES];
        uint32_t stage, round;
};

/* v[0..n) sorted by id, ids distinct.  An object is found by id on every
 * call (find_object), never kept: an insert may move the array. */
struct bus_tournaments {
        struct bus *bus;                /* borrowed; NULL: not exported */
        struct bus_tournament *v;
        size_t n, cap;
};

static char *path_of(int64_t id) {
        char *path = NULL;
        if (asprintf(&path, "%s/%" PRId64, BUS_TOURNAMENT_PREFIX, id) < 0)
                return NULL;
        return path;
}

/* The position of id in bt->v, or where it would go (*ret_found false). */
static size_t position(const struct bus_tournaments *bt, int64_t id, bool *ret_found) {
        size_t lo = 0, hi = bt->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (bt->v[mid].id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_found = lo < bt->n && bt->v[lo].id == id;
        return lo;
}

static struct bus_tournament *find(struct bus_tournaments *bt, int64_t id) {
        bool found;
        size_t at = position(bt, id, &found);

        return found ? &bt->v[at] : NULL;
}

/* A new object for id, in its place; NULL without memory. */
static struct bus_tournament *insert(struct bus_tournaments *bt, int64_t id) {
        bool found;
        size_t at = position(bt, id, &found);

        if (found)
                return &bt->v[at];
        if (bt->n == bt->cap) {
                size_t cap = bt->cap ? bt->cap * 2 : TOURNAMENTS_MIN;
                struct bus_tournament *v = realloc(bt->v, cap * sizeof *v);
                if (!v)
                        return NULL;
                bt->v = v;
                bt->cap = cap;
        }
        memmove(&bt->v[at + 1], &bt->v[at], (bt->n - at) * sizeof *bt->v);
        bt->n++;
        bt->v[at] = (struct bus_tournament) { .id = id };
        return &bt->v[at];
}

static int64_t id_of_path(const char *path) {
        const char *digits;
        char *end;
        long long id;

        if (strncmp(path, BUS_TOURNAMENT_PREFIX "/", strlen(BUS_TOURNAMENT_PREFIX) + 1) != 0)
                return 0;
        digits = path + strlen(BUS_TOURNAMENT_PREFIX) + 1;
        if (*digits < '1' || *digits > '9')
                return 0;
        errno = 0;
        id = strtoll(digits, &end, 10);
        return errno || *end ? 0 : (int64_t) id;
}

/* The fallback's find: userdata is the struct bus_tournaments, the object
 * found is the struct bus_tournament the vtable's offsets are into. */
static int find_object(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                       sd_bus_error *ret_error) {
        struct bus_tournament *t = find(userdata, id_of_path(path));

        (void) bus, (void) interface, (void) ret_error;
        if (!t)
                return 0;
        *ret_found = t;
        return 1;
}

static int enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *ret_error) {
        const struct bus_tournaments *bt = userdata;
        char **nodes = calloc(bt->n + 1, sizeof *nodes);

        (void) bus, (void) prefix, (void) ret_error;
        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < bt->n; i++)
                if (!(nodes[i] = path_of(bt->v[i].id))) {
                        for (size_t k = 0; k < i; k++)
                                free(nodes[k]);
                        free(nodes);
                        return -ENOMEM;
                }
        *ret_nodes = nodes;
        return 0;
}

#define EMITS_CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

/* Every property is a field of struct bus_tournament (bus/property.h). */
static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        BUS_PROPERTY_I64_T("Id", struct bus_tournament, id, SD_BUS_VTABLE_PROPERTY_CONST),
        BUS_PROPERTY_CHARS("Name", struct bus_tournament, name, SD_BUS_VTABLE_PROPERTY_CONST),
        BUS_PROPERTY_CHARS("Game", struct bus_tournament, game, SD_BUS_VTABLE_PROPERTY_CONST),
        BUS_PROPERTY_CHARS("State", struct bus_tournament, state, EMITS_CHANGE),
        BUS_PROPERTY_U32("CurrentStage", struct bus_tournament, stage, EMITS_CHANGE),
        BUS_PROPERTY_U32("CurrentRound", struct bus_tournament, round, EMITS_CHANGE),
        SD_BUS_SIGNAL_WITH_NAMES("RoundStarted", "uu", SD_BUS_PARAM(stage) SD_BUS_PARAM(round), 0),
        SD_BUS_SIGNAL_WITH_NAMES("MatchCalled", "tta(ts)",
                                 SD_BUS_PARAM(match) SD_BUS_PARAM(table) SD_BUS_PARAM(participants), 0),
        SD_BUS_SIGNAL_WITH_NAMES("ResultRecorded", "ta(tu)b",
                                 SD_BUS_PARAM(match) SD_BUS_PARAM(ranks) SD_BUS_PARAM(correction), 0),
        SD_BUS_SIGNAL_WITH_NAMES("BracketAdvanced", "u", SD_BUS_PARAM(stage), 0),
        SD_BUS_SIGNAL_WITH_NAMES("StandingsChanged", "u", SD_BUS_PARAM(stage), 0),
        SD_BUS_VTABLE_END
};

static int register_objects(void *userdata, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, BUS_TOURNAMENT_PREFIX, BUS_TOURNAMENT_IFACE, vtable, find_object,
                                       userdata);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, BUS_TOURNAMENT_PREFIX, enumerate, userdata);
}

int bus_tournaments_new(struct bus *b, struct bus_tournaments **ret) {
        struct bus_tournaments *bt = calloc(1, sizeof *bt);
        int r;

        if (!bt)
                return -ENOMEM;
        bt->bus = b;
        r = bus_add_extension(b, register_objects, bt);
        if (r < 0) {
                free(bt);
                return r;
        }
        *ret = bt;
        return 0;
}

void bus_tournaments_free(struct bus_tournaments *bt) {
        if (!bt)
                return;
        free(bt->v);
        free(bt);
}

void bus_tournaments_update(struct bus_tournaments *bt, int64_t id, const char *name, const char *game,
                            const char *state, uint32_t stage, uint32_t round) {
        struct bus_tournament *t;
        bool added, changed;
        char *path;

        if (!bt || id <= 0)
                return;
        t = find(bt, id);
        added = !t;
        if (!t && !(t = insert(bt, id)))
                return;
        changed = strcmp(t->state, state ?: "") != 0 || t->stage != stage || t->round != round;
        snprintf(t->name, sizeof t->name, "%s", name ?: "");
        snprintf(t->game, sizeof t->game, "%s", game ?: "");
        snprintf(t->state, sizeof t->state, "%s", state ?: "");
        t->stage = stage;
        t->round = round;
        if (!bus_get_sd_bus(bt->bus) || (!added && !changed) || !(path = path_of(id)))
                return;
        if (added) {
                if (bus_emit_object_added(bt->bus, path) < 0)
                        log_debug("could not announce tournament %" PRId64 " on D-Bus", id);
        } else {
                (void) bus_properties_changed(bt->bus, path, BUS_TOURNAMENT_IFACE, "State", "CurrentStage",
                                              "CurrentRound", NULL);
        }
        free(path);
}

static uint32_t u32(json_t *data, const char *key) {
        json_int_t v = json_integer_value(json_object_get(data, key));
        return v > 0 && v <= UINT32_MAX ? (uint32_t) v : 0;
}

static int emit_match_called(sd_bus *bus, const char *path, json_t *data) {
        sd_bus_message *m = NULL;
        json_t *p;
        size_t i;
        int r;

        r = sd_bus_message_new_signal(bus, &m, path, BUS_TOURNAMENT_IFACE, "MatchCalled");
        if (r >= 0)
                r = sd_bus_message_append(m, "tt", (uint64_t) json_integer_value(json_object_get(data, "match")),
                                          (uint64_t) json_integer_value(json_object_get(data, "table")));
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(ts)");
        json_array_foreach(json_object_get(data, "participants"), i, p)
                if (r >= 0)
                        r = sd_bus_message_append(m, "(ts)", (uint64_t) json_integer_value(json_object_get(p, "player")),
                                                  json_string_value(json_object_get(p, "name")) ?: "");
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_send(bus, m, NULL);
        sd_bus_message_unref(m);
        return r;
}

static int emit_result(sd_bus *bus, const char *path, json_t *data) {
        sd_bus_message *m = NULL;
        json_t *p;
        size_t i;
        int r;

        r = sd_bus_message_new_signal(bus, &m, path, BUS_TOURNAMENT_IFACE, "ResultRecorded");
        if (r >= 0)
                r = sd_bus_message_append(m, "t", (uint64_t) json_integer_value(json_object_get(data, "match")));
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(tu)");
        json_array_foreach(json_object_get(data, "result"), i, p)
                if (r >= 0)
                        r = sd_bus_message_append(m, "(tu)", (uint64_t) json_integer_value(json_object_get(p, "player")),
                                                  u32(p, "rank"));
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "b", json_is_true(json_object_get(data, "correction")));
        if (r >= 0)
                r = sd_bus_send(bus, m, NULL);
        sd_bus_message_unref(m);
        return r;
}

void bus_tournaments_event(struct bus_tournaments *bt, int64_t id, const char *event, json_t *data) {
        sd_bus *bus = bt ? bus_get_sd_bus(bt->bus) : NULL;
        char *path;
        int r = 0;

        if (!bus || !(path = path_of(id)))
                return;
        if (strcmp(event, "round_started") == 0)
                r = sd_bus_emit_signal(bus, path, BUS_TOURNAMENT_IFACE, "RoundStarted", "uu", u32(data, "stage"),
                                       u32(data, "round"));
        else if (strcmp(event, "bracket_advanced") == 0)
                r = sd_bus_emit_signal(bus, path, BUS_TOURNAMENT_IFACE, "BracketAdvanced", "u", u32(data, "stage"));
        else if (strcmp(event, "standings_changed") == 0)
                r = sd_bus_emit_signal(bus, path, BUS_TOURNAMENT_IFACE, "StandingsChanged", "u", u32(data, "stage"));
        else if (strcmp(event, "match_called") == 0)
                r = emit_match_called(bus, path, data);
        else if (strcmp(event, "result_recorded") == 0)
                r = emit_result(bus, path, data);
        if (r < 0)
                log_debug("could not emit %s of tournament %" PRId64 " on D-Bus: %s", event, id, strerror(-r));
        free(path);
}
