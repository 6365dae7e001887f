/* daemon/tour_bus.h — keeps the D-Bus tournament objects (bus/tournaments.h)
 * in step with the database: every tournament is loaded when the store is
 * ready, and each event of api/tournaments.h goes out as its signal, then
 * refreshes the object it names (PropertiesChanged follows the signal, once
 * the tournament has been read again).
 *
 * struct tour_bus owns the objects (struct bus_tournaments); the bus and the
 * store are borrowed.  The store's callbacks and the connection's slots point
 * into it: it is freed after the store and after the bus.
 */
#ifndef ARBITER_DAEMON_TOUR_BUS_H
#define ARBITER_DAEMON_TOUR_BUS_H

#include <stdint.h>
#include <jansson.h>

struct bus;
struct store;
struct tour_bus;

/* bus NULL (no D-Bus): loads and events do nothing.  0 or -errno. */
int tour_bus_new(struct bus *bus, struct store *store, struct tour_bus **ret);
void tour_bus_free(struct tour_bus *tb);        /* accepts NULL */
/* The store became ready: (re)load every tournament. */
void tour_bus_load(struct tour_bus *tb);
/* A tournament's event (api_deps.tournament_event): its signal, then a
 * refresh of its object. */
void tour_bus_event(struct tour_bus *tb, int64_t id, const char *event, json_t *data);

#endif
