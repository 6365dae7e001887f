/* bus/matches.h — one D-Bus object per live match (docs/dbus.md).
 *
 * /org/arbiter/Arbiter1/match/<id> (id: the match id in decimal) carries two
 * interfaces:
 *   - org.arbiter.Arbiter1.Match, the same for every game: typed properties
 *     (Id, Game, Seats, State, Window, GamePause) and View, the public view
 *     as a{sv} (as REST's GET /v1/matches/{id} shows it), read from the live
 *     engine on every Get; and the signals of the framework's events
 *     (MatchStarted, Paused, Resumed, MatchFinished, InputsVoided,
 *     ResultConfirmed);
 *   - org.arbiter.Arbiter1.<Game> (CrashPilot, …), named after the game:
 *     the signals of the game's public events.
 * A signal is an event's name in CamelCase; its arguments are the seat the
 * event concerns (1-based, 0 for none) and then the event's public fields in
 * order, each typed as bus_match_signature() says.  D-Bus is readable by
 * everyone: seat-private and referee-only fields and events never go
 * there.
 *
 * Order.  An input's signals are sent at once, once it is stored, in the
 * order the engine produced them.  Its new property values are marked on
 * the bus (bus/bus.h, "Coalesced PropertiesChanged") and go out in one
 * PropertiesChanged per match and turn, after that turn's signals, however
 * many inputs the turn stored; a client that reads a property when a
 * signal arrives already reads the new value, since every Get reads the
 * live match.  A match that leaves (InterfacesRemoved) sends its pending
 * PropertiesChanged first.
 *
 * Properties.  Id is a field of struct match and uses a typed getter
 * (bus/property.h); the others are computed from the match, its game and
 * its engine state by getters of their own.
 *
 * Ownership.  The match runtime (match/) owns the matches; this module
 * follows them as one of its observers.  Fallback vtables and a node
 * enumerator serve every match, as bus/pads.c does for pads: nothing is
 * registered per match.  struct bus_matches owns the vtables it builds (one
 * for the Match interface, one per game, their signals made from the
 * games' tables); the bus and the registry are borrowed.  The registry and
 * the connection's slots point at it: it is detached before the registry
 * is freed and freed after the bus.
 */
#ifndef ARBITER_BUS_MATCHES_H
#define ARBITER_BUS_MATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

struct bus;
struct bus_matches;
struct matches;

#define BUS_MATCH_PREFIX "/org/arbiter/Arbiter1/match"
#define BUS_MATCH_IFACE  "org.arbiter.Arbiter1.Match"
/* A game's interface is this, a dot, and its name in CamelCase. */
#define BUS_MATCH_GAME_IFACE_PREFIX "org.arbiter.Arbiter1"
/* Games one daemon may register (engine/registry.c lists far fewer). */
#define BUS_MATCH_MAX_GAMES 16

/* Exports reg's matches on b and follows them as an observer of the
 * runtime (b may be NULL: nothing is exported, nothing observed).  0 or
 * -errno; *ret is set whenever the struct was made, also when a later step
 * failed (the bus or the registry may already point at it): the caller
 * frees it as on success. */
int bus_matches_new(struct bus *b, struct matches *reg, struct bus_matches **ret);
/* Before the registry is freed (matches_free() tells no observer): sends
 * the pending changes while the matches can still be read, and looks no
 * match up from then on.  Accepts NULL. */
void bus_matches_detach(struct bus_matches *bm);
/* After bus_free(): the connection's slots point at bm.  Accepts NULL. */
void bus_matches_free(struct bus_matches *bm);

/* "card_revealed" → "CardRevealed", "crash-pilot" → "CrashPilot": 0, or
 * -EINVAL for a name that is not letters, digits, '_' and '-'. */
int bus_match_camel(const char *name, char *buf, size_t len);
/* The interface of g's signals, "org.arbiter.Arbiter1.CrashPilot". */
int bus_match_game_iface(const struct eng_game *g, char *buf, size_t len);
/* The D-Bus signature of d's signal ("y" for the seat, then each public
 * field: INT and TIME x, SEQ t, BOOL b, ENUM, CALL and HANDLE s (a call by
 * name), SEAT y (1-based, 0 none), SEATS and BITS ay, CARD a{sv} (handle and
 * face), PLACES a(yu); a list is an array of its type) and, when names is
 * not NULL, its argument names as sd-bus wants them (NUL-separated, an
 * empty one last).  0 or -ENAMETOOLONG. */
int bus_match_signature(const struct eng_event_def *d, char *sig, size_t sig_len, char *names, size_t names_len);

#endif
