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
#include "common/log.h"

/* Names as the schema allows them (tournaments.name, 128 bytes). */
#define NAME_MAX_BYTES 129
#define GAME_MAX_BYTES 64
#define STATE_MAX_BYTES 16

struct tournament {
        int64_t id;
        char name[NAME_MAX_BYTES], game[GAME_MAX_BYTES], state[STATE_MAX_BYTES];
        uint32_t stage, round;
};

static struct {
        struct tournament *v;
        size_t n, cap;
} known;

static char *path_of(int64_t id) {
        char *path = NULL;
        if (asprintf(&path, "%s/%" PRId64, BUS_TOURNAMENT_PREFIX, id) < 0)
                return NULL;
        return path;
}

static struct tournament *find(int64_t id) {
        for (size_t i = 0; i < known.n; i++)
                if (known.v[i].id == id)
                        return &known.v[i];
        return NULL;
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

static int find_object(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                       sd_bus_error *ret_error) {
        struct tournament *t = find(id_of_path(path));

        (void) bus, (void) interface, (void) userdata, (void) ret_error;
        if (!t)
                return 0;
        *ret_found = t;
        return 1;
}

static int enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes, sd_bus_error *ret_error) {
        char **nodes = calloc(known.n + 1, sizeof *nodes);

        (void) bus, (void) prefix, (void) userdata, (void) ret_error;
        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < known.n; i++)
                if (!(nodes[i] = path_of(known.v[i].id))) {
                        for (size_t k = 0; k < i; k++)
                                free(nodes[k]);
                        free(nodes);
                        return -ENOMEM;
                }
        *ret_nodes = nodes;
        return 0;
}

/* The object is found again by id on each Get: the array may have moved. */
static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct tournament *t = find(id_of_path(path));

        (void) bus, (void) interface, (void) userdata, (void) ret_error;
        if (!t)
                return -ENOENT;
        if (strcmp(property, "Id") == 0)
                return sd_bus_message_append(reply, "t", (uint64_t) t->id);
        if (strcmp(property, "Name") == 0)
                return sd_bus_message_append(reply, "s", t->name);
        if (strcmp(property, "Game") == 0)
                return sd_bus_message_append(reply, "s", t->game);
        if (strcmp(property, "State") == 0)
                return sd_bus_message_append(reply, "s", t->state);
        if (strcmp(property, "CurrentStage") == 0)
                return sd_bus_message_append(reply, "u", t->stage);
        if (strcmp(property, "CurrentRound") == 0)
                return sd_bus_message_append(reply, "u", t->round);
        return -EINVAL;
}

#define PROPERTY(name, sig, flags) SD_BUS_PROPERTY(name, sig, get_property, 0, flags)

static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        PROPERTY("Id", "t", SD_BUS_VTABLE_PROPERTY_CONST),
        PROPERTY("Name", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROPERTY("Game", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROPERTY("State", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROPERTY("CurrentStage", "u", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROPERTY("CurrentRound", "u", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
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

        (void) userdata;
        r = sd_bus_add_fallback_vtable(bus, NULL, BUS_TOURNAMENT_PREFIX, BUS_TOURNAMENT_IFACE, vtable, find_object,
                                       NULL);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, BUS_TOURNAMENT_PREFIX, enumerate, NULL);
}

int bus_tournaments_setup(struct bus *b) {
        return bus_add_extension(b, register_objects, NULL);
}

void bus_tournaments_free(void) {
        free(known.v);
        memset(&known, 0, sizeof known);
}

void bus_tournaments_update(struct bus *b, int64_t id, const char *name, const char *game, const char *state,
                            uint32_t stage, uint32_t round) {
        struct tournament *t = find(id);
        sd_bus *bus = bus_get_sd_bus(b);
        bool added = !t, changed;
        char *path;

        if (!t) {
                if (known.n == known.cap) {
                        size_t cap = known.cap ? known.cap * 2 : 16;
                        struct tournament *v = realloc(known.v, cap * sizeof *v);
                        if (!v)
                                return;
                        known.v = v;
                        known.cap = cap;
                }
                t = &known.v[known.n++];
                memset(t, 0, sizeof *t);
                t->id = id;
        }
        changed = strcmp(t->state, state ?: "") != 0 || t->stage != stage || t->round != round;
        snprintf(t->name, sizeof t->name, "%s", name ?: "");
        snprintf(t->game, sizeof t->game, "%s", game ?: "");
        snprintf(t->state, sizeof t->state, "%s", state ?: "");
        t->stage = stage;
        t->round = round;
        if (!bus || !(path = path_of(id)))
                return;
        if (added) {
                if (sd_bus_emit_object_added(bus, path) < 0)
                        log_debug("could not announce tournament %" PRId64 " on D-Bus", id);
        } else if (changed &&
                   sd_bus_emit_properties_changed(bus, path, BUS_TOURNAMENT_IFACE, "State", "CurrentStage",
                                                  "CurrentRound", NULL) < 0) {
                log_debug("could not emit PropertiesChanged for tournament %" PRId64, id);
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

void bus_tournaments_event(struct bus *b, int64_t id, const char *event, json_t *data) {
        sd_bus *bus = bus_get_sd_bus(b);
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
