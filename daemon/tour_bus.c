/* daemon/tour_bus.c — see tour_bus.h. */
#include "daemon/tour_bus.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <libpq-fe.h>

#include "bus/tournaments.h"
#include "common/log.h"
#include "store/store.h"

static struct {
        struct bus *bus;
        struct store *store;
} ctx;

/* One row per tournament: what its D-Bus object shows. */
#define SUMMARY_SQL \
        "SELECT t.id, t.name, t.game, t.state, coalesce(c.number, 0), coalesce(c.round, 0) FROM tournaments t " \
        "LEFT JOIN LATERAL (SELECT s.number, (SELECT coalesce(max(m.round), 0) FROM stage_matches m " \
        "                   WHERE m.stage_id = s.id) AS round FROM stages s WHERE s.tournament_id = t.id " \
        "                   AND s.state <> 'pending' ORDER BY s.number DESC LIMIT 1) c ON true "

static void on_summary(void *userdata, const PGresult *res, const char *error) {
        (void) userdata;
        if (!res) {
                log_warning("the tournaments could not be read for D-Bus: %s", error);
                return;
        }
        for (int i = 0; i < PQntuples(res); i++)
                bus_tournaments_update(ctx.bus, strtoll(PQgetvalue(res, i, 0), NULL, 10), PQgetvalue(res, i, 1),
                                       PQgetvalue(res, i, 2), PQgetvalue(res, i, 3),
                                       (uint32_t) strtoul(PQgetvalue(res, i, 4), NULL, 10),
                                       (uint32_t) strtoul(PQgetvalue(res, i, 5), NULL, 10));
}

int tour_bus_setup(struct bus *bus, struct store *store) {
        ctx.bus = bus;
        ctx.store = store;
        return bus ? bus_tournaments_setup(bus) : 0;
}

void tour_bus_load(void) {
        if (ctx.bus && store_query(ctx.store, SUMMARY_SQL "ORDER BY t.id", 0, NULL, on_summary, NULL) < 0)
                log_warning("the tournaments could not be loaded for D-Bus");
}

void tour_bus_event(void *userdata, int64_t id, const char *event, json_t *data) {
        char id_s[24];

        (void) userdata;
        if (!ctx.bus)
                return;
        bus_tournaments_event(ctx.bus, id, event, data);
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        if (store_query(ctx.store, SUMMARY_SQL "WHERE t.id = $1", 1, p, on_summary, NULL) < 0)
                log_debug("tournament %" PRId64 " could not be refreshed on D-Bus", id);
}

void tour_bus_free(void) {
        bus_tournaments_free();
}
