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
 * The match runtime (match/) owns the matches; this module follows them as
 * one of its observers.  A fallback vtable and a node enumerator serve every
 * match, as bus/pads.c does for pads: nothing is registered per match.
 */
#ifndef ARBITER_BUS_MATCHES_H
#define ARBITER_BUS_MATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

struct bus;
struct matches;

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

/* Exports reg's matches on b and follows them as an observer of the
 * runtime (b may be NULL: nothing is exported).  0 or -errno. */
int bus_matches_setup(struct bus *b, struct matches *reg);

#endif
