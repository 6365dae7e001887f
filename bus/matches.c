/* bus/matches.c — see matches.h. */
#define _GNU_SOURCE
#include "bus/matches.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus/bus.h"
#include "common/log.h"
#include "engine/crash_pilot.h"
#include "match/match.h"

/* "object/colour", or a card id in decimal, and its NUL. */
#define CARD_NAME_MAX           32
/* CardRevealed's source for the same card shown again (a resume, a void);
 * 0 is the neutral deck and 1.. a seat's own stack. */
#define SOURCE_AGAIN            (-1)
#define SOURCE_NEUTRAL          0

/* One daemon, one bus, one runtime: the fallback callbacks find them here. */
static struct {
        struct bus *bus;
        struct matches *reg;
} ctx;

/* The live match id as the bus shows it: 0, or -ENOENT. */
static int lookup(int64_t id, struct bus_match_info *ret) {
        struct match *m = matches_find(ctx.reg, id);

        if (!m)
                return -ENOENT;
        *ret = (struct bus_match_info) {
                .id = m->id,
                .game = m->game,
                .state = m->state,
                .state_name = match_state_name(m),
                .n_seats = m->n_seats,
                .window = m->window_open ? m->window : 0,
        };
        for (unsigned s = 0; s < m->n_seats && s < ENG_MAX_SEATS; s++) {
                ret->names[s] = m->names[s];
                ret->pads[s] = m->pads[s];
        }
        return 0;
}

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

static int find_match(sd_bus *bus, const char *path, const char *interface, void *userdata,
                      void **ret_found, sd_bus_error *ret_error) {
        struct bus_match_info info;
        int64_t id = id_of_path(path);

        (void) bus, (void) interface, (void) userdata, (void) ret_error;
        if (id <= 0 || lookup(id, &info) < 0)
                return 0;
        *ret_found = &ctx;
        return 1;
}

static int enumerate_matches(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes,
                             sd_bus_error *ret_error) {
        size_t n = matches_ids(ctx.reg, NULL, 0), got;
        int64_t *ids = calloc(n + 1, sizeof *ids);
        char **nodes = calloc(n + 1, sizeof *nodes);

        (void) bus, (void) prefix, (void) userdata, (void) ret_error;
        if (!ids || !nodes)
                goto oom;
        got = matches_ids(ctx.reg, ids, n);
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

/* ---- cards by name, for any game: a card is shown by the fields its
 * game's card_visit gives (Crash Pilot: object and colour). */

struct card_fields {
        int64_t id, object, colour;
        bool has_id, has_object, has_colour;
};

static int card_key(void *c, const char *key) {
        (void) c, (void) key;
        return 0;
}

static int card_end(void *c) {
        (void) c;
        return 0;
}

static int card_integer(void *c, const char *key, int64_t value) {
        struct card_fields *f = c;

        if (!key)
                return 0;
        if (strcmp(key, "object") == 0)
                f->object = value, f->has_object = true;
        else if (strcmp(key, "colour") == 0)
                f->colour = value, f->has_colour = true;
        else if (strcmp(key, "id") == 0)
                f->id = value, f->has_id = true;
        return 0;
}

static int card_boolean(void *c, const char *key, bool value) {
        (void) c, (void) key, (void) value;
        return 0;
}

static int card_string(void *c, const char *key, const char *value) {
        (void) c, (void) key, (void) value;
        return 0;
}

static const struct eng_visitor card_visitor = {
        .object_begin = card_key, .object_end = card_end,
        .array_begin = card_key, .array_end = card_end,
        .integer = card_integer, .boolean = card_boolean, .string = card_string, .null = card_key,
};

/* "object/colour" as the REST view numbers them, or the card's id when its
 * game has no such fields. */
static void card_name(const struct eng_game *g, uint32_t card, char buf[static CARD_NAME_MAX]) {
        struct card_fields f = { 0 };

        if (g->card_visit && g->card_visit(card, &card_visitor, &f) >= 0 && f.has_object && f.has_colour)
                snprintf(buf, CARD_NAME_MAX, "%" PRId64 "/%" PRId64, f.object, f.colour);
        else
                snprintf(buf, CARD_NAME_MAX, "%" PRIu32, card);
}

/* ---- properties -------------------------------------------------------- */

/* The public scoreboard of a Crash Pilot match; false for any other game,
 * whose scoreboard properties are then empty. */
static bool cp_public_view(const struct bus_match_info *m, struct cp_view *ret) {
        return m->game == &cp_game && cp_view(m->state, ENG_VIEW_PUBLIC, ENG_SEAT_TABLE, ret) == 0;
}

static int append_seats(sd_bus_message *reply, const struct bus_match_info *m) {
        int r = sd_bus_message_open_container(reply, 'a', "(yss)");

        for (unsigned s = 0; r >= 0 && s < m->n_seats; s++)
                r = sd_bus_message_append(reply, "(yss)", (uint8_t) (s + 1), m->names[s], m->pads[s]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Chips or StackSizes: seat (1-based) → count. */
static int append_per_seat(sd_bus_message *reply, const struct bus_match_info *m, bool chips) {
        struct cp_view cv;
        int r = sd_bus_message_open_container(reply, 'a', "{yu}");

        if (r >= 0 && cp_public_view(m, &cv))
                for (unsigned s = 0; r >= 0 && s < cv.n_seats; s++)
                        r = sd_bus_message_append(reply, "{yu}", (uint8_t) (s + 1),
                                                  (uint32_t) (chips ? cv.seats[s].chips : cv.seats[s].cards_left));
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int append_rows(sd_bus_message *reply, const struct bus_match_info *m) {
        char name[CARD_NAME_MAX];
        struct cp_view cv;
        int r = sd_bus_message_open_container(reply, 'a', "as");

        if (r >= 0 && cp_public_view(m, &cv))
                for (unsigned row = 0; r >= 0 && row < CP_ROWS; row++) {
                        r = sd_bus_message_open_container(reply, 'a', "s");
                        for (unsigned i = 0; r >= 0 && i < cv.row_len[row]; i++) {
                                card_name(m->game, cv.rows[row][i], name);
                                r = sd_bus_message_append(reply, "s", name);
                        }
                        if (r >= 0)
                                r = sd_bus_message_close_container(reply);
                }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int append_face_up(sd_bus_message *reply, const struct bus_match_info *m) {
        char name[CARD_NAME_MAX] = "";
        struct cp_view cv;

        if (cp_public_view(m, &cv) && cv.face_up_shown)
                card_name(m->game, cv.face_up, name);
        return sd_bus_message_append(reply, "s", name);
}

/* Every property comes from the runtime at the time of the Get. */
static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        struct bus_match_info m;
        int64_t id = id_of_path(path);

        (void) bus, (void) interface, (void) userdata;
        if (id <= 0 || lookup(id, &m) < 0)
                return sd_bus_error_setf(ret_error, SD_BUS_ERROR_UNKNOWN_OBJECT, "no live match at %s", path);
        if (strcmp(property, "Id") == 0)
                return sd_bus_message_append(reply, "t", (uint64_t) m.id);
        if (strcmp(property, "Game") == 0)
                return sd_bus_message_append(reply, "s", m.game->name);
        if (strcmp(property, "Seats") == 0)
                return append_seats(reply, &m);
        if (strcmp(property, "State") == 0)
                return sd_bus_message_append(reply, "s", m.state_name);
        if (strcmp(property, "Chips") == 0)
                return append_per_seat(reply, &m, true);
        if (strcmp(property, "StackSizes") == 0)
                return append_per_seat(reply, &m, false);
        if (strcmp(property, "Rows") == 0)
                return append_rows(reply, &m);
        if (strcmp(property, "FaceUpCard") == 0)
                return append_face_up(reply, &m);
        if (strcmp(property, "Window") == 0)
                return sd_bus_message_append(reply, "u", m.window);
        return -EINVAL;
}

#define MATCH_PROPERTY(name, sig, flags) SD_BUS_PROPERTY(name, sig, get_property, 0, flags)

static const sd_bus_vtable match_vtable[] = {
        SD_BUS_VTABLE_START(0),
        MATCH_PROPERTY("Id", "t", SD_BUS_VTABLE_PROPERTY_CONST),
        MATCH_PROPERTY("Game", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        MATCH_PROPERTY("Seats", "a(yss)", SD_BUS_VTABLE_PROPERTY_CONST),
        MATCH_PROPERTY("State", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        MATCH_PROPERTY("Chips", "a{yu}", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        MATCH_PROPERTY("StackSizes", "a{yu}", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        MATCH_PROPERTY("Rows", "aas", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        MATCH_PROPERTY("FaceUpCard", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        MATCH_PROPERTY("Window", "u", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_SIGNAL_WITH_NAMES("CardRevealed", "siu",
                                 SD_BUS_PARAM(card) SD_BUS_PARAM(source) SD_BUS_PARAM(window), 0),
        SD_BUS_SIGNAL_WITH_NAMES("CallJudged", "yssx",
                                 SD_BUS_PARAM(seat) SD_BUS_PARAM(call) SD_BUS_PARAM(verdict)
                                 SD_BUS_PARAM(reaction_us), 0),
        SD_BUS_SIGNAL_WITH_NAMES("TiebreakStarted", "ay", SD_BUS_PARAM(seats), 0),
        SD_BUS_SIGNAL_WITH_NAMES("PlayerEliminated", "yu", SD_BUS_PARAM(seat) SD_BUS_PARAM(order), 0),
        SD_BUS_SIGNAL_WITH_NAMES("MatchFinished", "a(yu)", SD_BUS_PARAM(placements), 0),
        SD_BUS_VTABLE_END
};

static int register_matches(void *userdata, sd_bus *bus) {
        int r;

        (void) userdata;
        r = sd_bus_add_fallback_vtable(bus, NULL, BUS_MATCH_PREFIX, BUS_MATCH_IFACE, match_vtable, find_match,
                                       NULL);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, BUS_MATCH_PREFIX, enumerate_matches, NULL);
}

static void on_added(void *userdata, struct match *m);
static void on_removed(void *userdata, struct match *m);
static void on_aborted(void *userdata, struct match *m);
static void on_published(void *userdata, struct match *m, const struct eng_input *in, const struct eng_out *out);

int bus_matches_setup(struct bus *b, struct matches *reg) {
        const struct match_observer obs = {
                .added = on_added,
                .removed = on_removed,
                .aborted = on_aborted,
                .published = on_published,
                .userdata = b,
        };
        int r;

        ctx.bus = b;
        ctx.reg = reg;
        if (!b)
                return 0;
        r = matches_observe(reg, &obs);
        if (r < 0)
                return r;
        return bus_add_extension(b, register_matches, NULL);
}

/* ---- announcements ----------------------------------------------------- */

/* Emission failures (the bus is away) are not worth more than a debug line:
 * the object manager tells a reconnecting listener the whole state. */

static void on_added(void *userdata, struct match *m) {
        sd_bus *bus = bus_get_sd_bus(userdata);
        int64_t id = m->id;
        char *path;

        if (!bus || !(path = match_path(id)))
                return;
        if (sd_bus_emit_object_added(bus, path) < 0)
                log_debug("could not announce match %" PRId64 " on D-Bus", id);
        free(path);
}

static void on_removed(void *userdata, struct match *m) {
        sd_bus *bus = bus_get_sd_bus(userdata);
        int64_t id = m->id;
        char *path;

        if (!bus || !(path = match_path(id)))
                return;
        if (sd_bus_emit_object_removed(bus, path) < 0)
                log_debug("could not announce the end of match %" PRId64 " on D-Bus", id);
        free(path);
}

static void emit_changed(sd_bus *bus, const char *path, int64_t id) {
        if (sd_bus_emit_properties_changed(bus, path, BUS_MATCH_IFACE, "State", "Chips", "StackSizes", "Rows",
                                           "FaceUpCard", "Window", NULL) < 0)
                log_debug("could not emit PropertiesChanged for match %" PRId64, id);
}

static void on_aborted(void *userdata, struct match *m) {
        sd_bus *bus = bus_get_sd_bus(userdata);
        int64_t id = m->id;
        char *path;

        if (!bus || !(path = match_path(id)))
                return;
        emit_changed(bus, path, id);
        free(path);
}

/* The window a reveal opens: the window request that follows it among the
 * same input's outputs, 0 when none does (a paused match). */
static uint32_t window_after(const struct eng_out *out, size_t i) {
        for (size_t k = i + 1; k < out->n; k++)
                if (out->v[k].kind == ENG_REQ_WINDOW_OPEN)
                        return out->v[k].window.window;
        return 0;
}

static int32_t source_of(int source) {
        if (source == ENG_SOURCE_NEUTRAL)
                return SOURCE_NEUTRAL;
        if (source == ENG_SOURCE_AGAIN || source < 0)
                return SOURCE_AGAIN;
        return source + 1;
}

/* Signals with an array argument are built by hand. */
static int emit_tiebreak(sd_bus *bus, const char *path, uint32_t seats) {
        sd_bus_message *msg = NULL;
        int r = sd_bus_message_new_signal(bus, &msg, path, BUS_MATCH_IFACE, "TiebreakStarted");

        if (r >= 0)
                r = sd_bus_message_open_container(msg, 'a', "y");
        for (unsigned s = 0; r >= 0 && s < ENG_MAX_SEATS; s++)
                if (seats & (1u << s))
                        r = sd_bus_message_append(msg, "y", (uint8_t) (s + 1));
        if (r >= 0)
                r = sd_bus_message_close_container(msg);
        if (r >= 0)
                r = sd_bus_send(bus, msg, NULL);
        sd_bus_message_unref(msg);
        return r;
}

/* Placements best first; seats that share a place in seat order. */
static int emit_finished(sd_bus *bus, const char *path, const struct eng_output *o) {
        sd_bus_message *msg = NULL;
        unsigned n = o->finished.n_seats < ENG_MAX_SEATS ? o->finished.n_seats : ENG_MAX_SEATS;
        int r = sd_bus_message_new_signal(bus, &msg, path, BUS_MATCH_IFACE, "MatchFinished");

        if (r >= 0)
                r = sd_bus_message_open_container(msg, 'a', "(yu)");
        for (unsigned place = 1; r >= 0 && place <= n; place++)
                for (unsigned s = 0; r >= 0 && s < n; s++)
                        if (o->finished.place[s] == place)
                                r = sd_bus_message_append(msg, "(yu)", (uint8_t) (s + 1), (uint32_t) place);
        if (r >= 0)
                r = sd_bus_message_close_container(msg);
        if (r >= 0)
                r = sd_bus_send(bus, msg, NULL);
        sd_bus_message_unref(msg);
        return r;
}

static int emit_output(sd_bus *bus, const char *path, const struct eng_game *g, const struct eng_out *out,
                       size_t i) {
        const struct eng_output *o = &out->v[i];
        char card[CARD_NAME_MAX];
        const char *call, *verdict;

        switch (o->kind) {
        case ENG_EV_CARD_REVEALED:
                card_name(g, o->revealed.card, card);
                return sd_bus_emit_signal(bus, path, BUS_MATCH_IFACE, "CardRevealed", "siu", card,
                                          source_of(o->revealed.source), window_after(out, i));
        case ENG_EV_CALL_JUDGED:
                call = g->call_name ? g->call_name(o->judged.call) : NULL;
                verdict = eng_verdict_name(o->judged.verdict);
                return sd_bus_emit_signal(bus, path, BUS_MATCH_IFACE, "CallJudged", "yssx", (uint8_t) (o->seat + 1),
                                          call ? call : "", verdict, o->judged.reaction_us);
        case ENG_EV_TIEBREAK_STARTED:
                return emit_tiebreak(bus, path, o->tiebreak.seats);
        case ENG_EV_PLAYER_ELIMINATED:
                return sd_bus_emit_signal(bus, path, BUS_MATCH_IFACE, "PlayerEliminated", "yu",
                                          (uint8_t) (o->seat + 1), (uint32_t) o->eliminated.order);
        case ENG_EV_MATCH_FINISHED:
                return emit_finished(bus, path, o);
        default:
                return 0;
        }
}

static void on_published(void *userdata, struct match *m, const struct eng_input *in, const struct eng_out *out) {
        sd_bus *bus = bus_get_sd_bus(userdata);
        const struct eng_game *g = m->game;
        int64_t id = m->id;
        char *path;

        (void) in;

        /* A refused input changed nothing: no events, no new values. */
        if (!bus || out->refusal != ENG_ACCEPTED || !(path = match_path(id)))
                return;
        for (size_t i = 0; i < out->n; i++)
                if (emit_output(bus, path, g, out, i) < 0)
                        log_debug("could not emit %s for match %" PRId64 " on D-Bus",
                                  eng_output_kind_name(out->v[i].kind), id);
        emit_changed(bus, path, id);
        free(path);
}
