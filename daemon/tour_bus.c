/* daemon/tour_bus.c — see tour_bus.h. */
#include "daemon/tour_bus.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <libpq-fe.h>

#include "bus/tournaments.h"
#include "common/log.h"
#include "store/store.h"

struct tour_bus {
        struct bus *bus;                        /* borrowed; NULL: nothing to do */
        struct store *store;                    /* borrowed */
        struct bus_tournaments *objects;        /* owned */
};

/* One row per tournament: what its D-Bus object shows. */
#define SUMMARY_SQL \
        "SELECT t.id, t.name, t.game, t.state, coalesce(c.number, 0), coalesce(c.round, 0) FROM tournaments t " \
        "LEFT JOIN LATERAL (SELECT s.number, (SELECT coalesce(max(m.round), 0) FROM stage_matches m " \
        "                   WHERE m.stage_id = s.id) AS round FROM stages s WHERE s.tournament_id = t.id " \
        "                   AND s.state <> 'pending' ORDER BY s.number DESC LIMIT 1) c ON true "

static void on_summary(void *userdata, const PGresult *res, const char *error) {
        struct tour_bus *tb = userdata;

        if (!res) {
                log_warning("the tournaments could not be read for D-Bus: %s", error);
                return;
        }
        for (int i = 0; i < PQntuples(res); i++)
                bus_tournaments_update(tb->objects, strtoll(PQgetvalue(res, i, 0), NULL, 10), PQgetvalue(res, i, 1),
                                       PQgetvalue(res, i, 2), PQgetvalue(res, i, 3),
                                       (uint32_t) strtoul(PQgetvalue(res, i, 4), NULL, 10),
                                       (uint32_t) strtoul(PQgetvalue(res, i, 5), NULL, 10));
}

int tour_bus_new(struct bus *bus, struct store *store, struct tour_bus **ret) {
        struct tour_bus *tb = calloc(1, sizeof *tb);
        int r;

        if (!tb)
                return -ENOMEM;
        *tb = (struct tour_bus) { .bus = bus, .store = store };
        if (bus) {
                r = bus_tournaments_new(bus, &tb->objects);
                if (r < 0) {
                        free(tb);
                        return r;
                }
        }
        *ret = tb;
        return 0;
}

void tour_bus_load(struct tour_bus *tb) {
        if (tb && tb->bus && store_query(tb->store, SUMMARY_SQL "ORDER BY t.id", 0, NULL, on_summary, tb) < 0)
                log_warning("the tournaments could not be loaded for D-Bus");
}

void tour_bus_event(struct tour_bus *tb, int64_t id, const char *event, json_t *data) {
        char id_s[24];

        if (!tb || !tb->bus)
                return;
        bus_tournaments_event(tb->objects, id, event, data);
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        if (store_query(tb->store, SUMMARY_SQL "WHERE t.id = $1", 1, p, on_summary, tb) < 0)
                log_debug("tournament %" PRId64 " could not be refreshed on D-Bus", id);
}

void tour_bus_free(struct tour_bus *tb) {
        if (!tb)
                return;
        bus_tournaments_free(tb->objects);
        free(tb);
}
