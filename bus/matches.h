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
 * there.  Signals are emitted from the outputs of each input once it is
 * stored, then one PropertiesChanged.
 *
 * The match runtime (match/) owns the matches; this module follows them as
 * one of its observers.  Fallback vtables and a node enumerator serve every
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
/* A game's interface is this, a dot, and its name in CamelCase. */
#define BUS_MATCH_GAME_IFACE_PREFIX "org.arbiter.Arbiter1"
/* Games one daemon may register (engine/registry.c lists far fewer). */
#define BUS_MATCH_MAX_GAMES 16

/* Exports reg's matches on b and follows them as an observer of the
 * runtime (b may be NULL: nothing is exported).  0 or -errno. */
int bus_matches_setup(struct bus *b, struct matches *reg);
/* Frees what setup built; after the bus is gone. */
void bus_matches_free(void);

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
