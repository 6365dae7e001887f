/* daemon/tour_bus.h — keeps the D-Bus tournament objects (bus/tournaments.h)
 * in step with the database: every tournament is loaded when the store is
 * ready, and each event of api/tournaments.h goes out as its signal, then
 * refreshes the object it names (PropertiesChanged follows the signal). */
#ifndef ARBITER_DAEMON_TOUR_BUS_H
#define ARBITER_DAEMON_TOUR_BUS_H

#include <stdint.h>
#include <jansson.h>

struct bus;
struct store;

/* bus and store are borrowed for the daemon's life. */
int tour_bus_setup(struct bus *bus, struct store *store);
/* The store became ready: (re)load every tournament. */
void tour_bus_load(void);
/* api_deps.tournament_event. */
void tour_bus_event(void *userdata, int64_t id, const char *event, json_t *data);
void tour_bus_free(void);

#endif
