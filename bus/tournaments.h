/* bus/tournaments.h — one D-Bus object per tournament (docs/dbus.md).
 *
 * /org/arbiter/Arbiter1/tournament/<id> carries org.arbiter.Arbiter1.Tournament:
 * properties Id, Name, Game, State, CurrentStage and CurrentRound (changes
 * announced with PropertiesChanged), and the signals RoundStarted,
 * MatchCalled, ResultRecorded, BracketAdvanced and StandingsChanged.
 *
 * The tournaments live in the database; struct bus_tournaments keeps the few
 * fields their properties show, as the daemon last told it
 * (bus_tournaments_update), so that a Get never waits for the database.
 * Every property is a field of that copy, read by the typed getters of
 * bus/property.h.
 *
 * Order.  Signals go out at once (bus_tournaments_event), in the order the
 * daemon hands the events over.  A change of State, CurrentStage or
 * CurrentRound is marked on the bus and goes out in the turn's coalesced
 * PropertiesChanged (bus/bus.h): one per tournament and turn, with all
 * three.  A Get reads the copy as it is now, so a client that reads on a
 * signal sees what the daemon last read from the database — which, for the
 * change the signal announces, may be a moment behind: the daemon reads the
 * tournament again after each event (daemon/tour_bus.h) and announces the
 * new values with PropertiesChanged once it has.
 *
 * Owns its copy of the tournaments; the bus is borrowed.  The connection's
 * slots point at it: it is freed after the bus.
 */
#ifndef ARBITER_BUS_TOURNAMENTS_H
#define ARBITER_BUS_TOURNAMENTS_H

#include <stdint.h>
#include <jansson.h>

struct bus;
struct bus_tournaments;

#define BUS_TOURNAMENT_PREFIX "/org/arbiter/Arbiter1/tournament"
#define BUS_TOURNAMENT_IFACE  "org.arbiter.Arbiter1.Tournament"

/* Exports the tournaments on b (b may be NULL: nothing is exported).  0 or
 * -errno. */
int bus_tournaments_new(struct bus *b, struct bus_tournaments **ret);
void bus_tournaments_free(struct bus_tournaments *bt);  /* accepts NULL */

/* What a tournament shows now: added (InterfacesAdded) when new, else
 * PropertiesChanged when State, CurrentStage or CurrentRound differs.
 * stage and round 0: none yet. */
void bus_tournaments_update(struct bus_tournaments *bt, int64_t id, const char *name, const char *game,
                            const char *state, uint32_t stage, uint32_t round);

/* An event of api/tournaments.h ("Events") as its signal: round_started,
 * match_called, result_recorded, bracket_advanced, standings_changed (data
 * borrowed).  Other events have no signal. */
void bus_tournaments_event(struct bus_tournaments *bt, int64_t id, const char *event, json_t *data);

#endif
