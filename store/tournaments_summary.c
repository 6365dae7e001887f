/* store/tournaments_summary.c — see tournaments_summary.h. */
#include "store/tournaments_summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/rows.h"

/* One row per tournament: its last stage that is not pending, and the
 * highest round of that stage's matches. */
#define SUMMARY_SQL \
        "SELECT t.id, t.name, t.game, t.state, coalesce(c.number, 0), coalesce(c.round, 0) FROM tournaments t " \
        "LEFT JOIN LATERAL (SELECT s.number, (SELECT coalesce(max(m.round), 0) FROM stage_matches m " \
        "                   WHERE m.stage_id = s.id) AS round FROM stages s WHERE s.tournament_id = t.id " \
        "                   AND s.state <> 'pending' ORDER BY s.number DESC LIMIT 1) c ON true "

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

struct call {
        struct store *store;
        store_tournaments_summary_fn cb;
        void *userdata;
};

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_tournament_summary *rows;
        struct store_error e;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_tournament_summary) {
                        .id = store_int64(res, i, 0),
                        .name = PQgetvalue(res, i, 1),
                        .game = PQgetvalue(res, i, 2),
                        .state = PQgetvalue(res, i, 3),
                        .stage = (uint32_t) store_int64(res, i, 4),
                        .round = (uint32_t) store_int64(res, i, 5),
                };
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params,
                 store_tournaments_summary_fn cb, void *userdata) {
        struct call *c = calloc(1, sizeof *c);
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct call) { .store = s, .cb = cb, .userdata = userdata };
        r = store_query(s, sql, n_params, params, on_rows, c);
        if (r < 0)
                free(c);
        return r;
}

int store_tournaments_summary_all(struct store *s, store_tournaments_summary_fn cb, void *userdata) {
        return query(s, SUMMARY_SQL "ORDER BY t.id", 0, NULL, cb, userdata);
}

int store_tournaments_summary_get(struct store *s, int64_t id, store_tournaments_summary_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        return query(s, SUMMARY_SQL "WHERE t.id = $1", 1, p, cb, userdata);
}
