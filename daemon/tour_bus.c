/* daemon/tour_bus.c — see tour_bus.h. */
#include "daemon/tour_bus.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "bus/tournaments.h"
#include "common/log.h"
#include "store/tournaments_summary.h"

struct tour_bus {
        struct bus *bus;                        /* borrowed; NULL: nothing to do */
        struct store *store;                    /* borrowed */
        struct bus_tournaments *objects;        /* owned */
};

static void on_summary(void *userdata, const struct store_tournament_summary *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct tour_bus *tb = userdata;

        if (failure) {
                log_warning("the tournaments could not be read for D-Bus: %s", error);
                return;
        }
        for (size_t i = 0; i < n; i++)
                bus_tournaments_update(tb->objects, rows[i].id, rows[i].name, rows[i].game, rows[i].state,
                                       rows[i].stage, rows[i].round);
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
        if (tb && tb->bus && store_tournaments_summary_all(tb->store, on_summary, tb) < 0)
                log_warning("the tournaments could not be loaded for D-Bus");
}

void tour_bus_event(struct tour_bus *tb, int64_t id, const char *event, json_t *data) {
        if (!tb || !tb->bus)
                return;
        bus_tournaments_event(tb->objects, id, event, data);
        if (store_tournaments_summary_get(tb->store, id, on_summary, tb) < 0)
                log_debug("tournament %" PRId64 " could not be refreshed on D-Bus", id);
}

void tour_bus_free(struct tour_bus *tb) {
        if (!tb)
                return;
        bus_tournaments_free(tb->objects);
        free(tb);
}
