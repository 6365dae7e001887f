/* bus/matches.h — one D-Bus object per live match (docs/dbus.md).
 *
 * /org/arbiter/Arbiter1/match/<id> (id: the match id in decimal) carries
 * org.arbiter.Arbiter1.Match: the match's identity and seats, and the public
 * scoreboard (state, chips, stack sizes, rows, face-up card, window) read
 * from the live engine state on every Get, and the domain signals
 * CardRevealed, CallJudged, TiebreakStarted, PlayerEliminated and
 * MatchFinished, emitted from the outputs of each input once it is stored.
 * Seats are 1-based here, as in the REST API.
 *
 * The match runtime (daemon/) owns the matches; this module knows them only
 * through struct bus_match_ops, so that bus/ does not depend on daemon/
 * (DESIGN.md section 2).  A fallback vtable and a node enumerator serve every
 * match, as bus/pads.c does for pads: nothing is registered per match.
 */
#ifndef ARBITER_BUS_MATCHES_H
#define ARBITER_BUS_MATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

struct bus;

#define BUS_MATCH_PREFIX "/org/arbiter/Arbiter1/match"
#define BUS_MATCH_IFACE  "org.arbiter.Arbiter1.Match"

/* A live match as the bus shows it; every pointer is borrowed from the
 * runtime and valid until it next runs. */
struct bus_match_info {
        int64_t id;
        const struct eng_game *game;
        const void *state;              /* the engine state */
        const char *state_name;         /* "ready", "running", …, "aborted" */
        unsigned n_seats;
        const char *names[ENG_MAX_SEATS];       /* per engine seat; "" when unknown */
        const char *pads[ENG_MAX_SEATS];        /* per engine seat; "" for none */
        uint32_t window;                /* the open window's id, 0 when none */
};

struct bus_match_ops {
        /* Fills *ret for the live match id: 0, or -ENOENT. */
        int (*lookup)(void *userdata, int64_t id, struct bus_match_info *ret);
        /* Writes up to cap live match ids to ids and returns how many there
         * are in all (may exceed cap: ask again with more room). */
        size_t (*list)(void *userdata, int64_t *ids, size_t cap);
};

/* Exports the runtime's matches on b (b may be NULL; ops and userdata are
 * borrowed for the daemon's life). */
int bus_matches_setup(struct bus *b, const struct bus_match_ops *ops, void *userdata);

/* The match became live (created or rebuilt): InterfacesAdded. */
void bus_matches_added(struct bus *b, int64_t id);
/* The match is about to leave the runtime: InterfacesRemoved.  Called
 * while lookup still finds it, for sd-bus reads its interfaces. */
void bus_matches_removed(struct bus *b, int64_t id);
/* Its state changed outside an input (an abort): PropertiesChanged. */
void bus_matches_changed(struct bus *b, int64_t id);
/* An input is stored: a signal for each of its events, then one
 * PropertiesChanged with the scoreboard as it now is. */
void bus_matches_published(struct bus *b, int64_t id, const struct eng_game *g, const struct eng_out *out);

#endif
