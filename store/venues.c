/* store/venues.c — the venues' SQL.  See venues.h. */
#include "store/venues.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/rows.h"

/* The venue in v, in struct store_venue_row's order: its tables counted,
 * and whether a session holds its daemon's lock on this database (pg_locks
 * lists every database's locks; one on two int4 keys as classid, objid,
 * objsubid 2). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define VENUE_COLUMNS \
        "v.id, v.name, v.number, " STORE_TIME("v.created_at") ", " \
        "(SELECT count(*) FROM tables t WHERE t.venue = v.id), " \
        "EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted " \
        "          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) " \
        "          AND l.classid = " STR(STORE_VENUE_LOCK_CLASS) " AND l.objid = v.number AND l.objsubid = 2)"

struct call {
        struct store *store;
        store_venues_fn cb;
        void *userdata;
};

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_error e;
        struct store_venue_row *rows;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_venue_row) {
                        .id = PQgetvalue(res, i, 0),
                        .name = PQgetvalue(res, i, 1),
                        .number = store_int64(res, i, 2),
                        .created_at = PQgetvalue(res, i, 3),
                        .tables = store_int64(res, i, 4),
                        .online = store_bool(res, i, 5),
                };
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params, store_venues_fn cb,
                 void *userdata) {
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

int store_venues_list(struct store *s, const char *id, store_venues_fn cb, void *userdata) {
        const char *p[] = { id };

        return query(s, "SELECT " VENUE_COLUMNS " FROM venues v WHERE $1::text IS NULL OR v.id = $1 ORDER BY v.number",
                     1, p, cb, userdata);
}

int store_venues_insert(struct store *s, const char *id, const char *name, store_venues_fn cb, void *userdata) {
        const char *p[] = { id, name };

        return query(s, "WITH v AS (INSERT INTO venues (id, name) VALUES ($1, $2) RETURNING *) "
                        "SELECT " VENUE_COLUMNS " FROM v",
                     2, p, cb, userdata);
}
