/* bus/tournaments.h — one D-Bus object per tournament (docs/dbus.md).
 *
 * /org/arbiter/Arbiter1/tournament/<id> carries org.arbiter.Arbiter1.Tournament:
 * properties Id, Name, Game, State, CurrentStage and CurrentRound (changes
 * announced with PropertiesChanged), and the signals RoundStarted,
 * MatchCalled, ResultRecorded, BracketAdvanced and StandingsChanged.
 *
 * The tournaments live in the database; this module keeps the few fields
 * its properties show, as the daemon last told it (bus_tournaments_update),
 * so that a Get never waits for the database.
 */
#ifndef ARBITER_BUS_TOURNAMENTS_H
#define ARBITER_BUS_TOURNAMENTS_H

#include <stdint.h>
#include <jansson.h>

struct bus;

#define BUS_TOURNAMENT_PREFIX "/org/arbiter/Arbiter1/tournament"
#define BUS_TOURNAMENT_IFACE  "org.arbiter.Arbiter1.Tournament"

int bus_tournaments_setup(struct bus *b);
void bus_tournaments_free(void);

/* What a tournament shows now: added (InterfacesAdded) when new, else
 * PropertiesChanged for what differs.  stage and round 0: none yet. */
void bus_tournaments_update(struct bus *b, int64_t id, const char *name, const char *game, const char *state,
                            uint32_t stage, uint32_t round);

/* An event of api/tournaments.h ("Events") as its signal: round_started,
 * match_called, result_recorded, bracket_advanced, standings_changed (data
 * borrowed).  Other events have no signal. */
void bus_tournaments_event(struct bus *b, int64_t id, const char *event, json_t *data);

#endif
