/* store/players.c — the players' SQL.  See players.h. */
#include "store/players.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/rows.h"

/* The columns every statement returns, in struct store_player_row's order. */
#define PLAYER_COLUMNS "id, name, club, external_id, active, " STORE_TIME("created_at")

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

struct call {
        struct store *store;
        store_players_fn cb;
        void *userdata;
};

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_error e;
        struct store_player_row *rows;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_player_row) {
                        .id = store_int64(res, i, 0),
                        .name = PQgetvalue(res, i, 1),
                        .club = store_text(res, i, 2),
                        .external_id = store_text(res, i, 3),
                        .active = store_bool(res, i, 4),
                        .created_at = PQgetvalue(res, i, 5),
                };
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params, store_players_fn cb,
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

int store_players_list(struct store *s, int64_t after, int64_t limit, store_players_fn cb, void *userdata) {
        char after_s[INT64_TEXT], limit_s[INT64_TEXT];

        if (limit < 0)
                return -EINVAL;
        snprintf(after_s, sizeof after_s, "%" PRId64, after);
        snprintf(limit_s, sizeof limit_s, "%" PRId64, limit);
        const char *p[] = { after_s, limit_s };
        return query(s, "SELECT " PLAYER_COLUMNS " FROM players WHERE id > $1 ORDER BY id LIMIT $2", 2, p, cb,
                     userdata);
}

int store_players_get(struct store *s, int64_t id, store_players_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        return query(s, "SELECT " PLAYER_COLUMNS " FROM players WHERE id = $1", 1, p, cb, userdata);
}

int store_players_insert(struct store *s, const char *name, const char *club, const char *external_id,
                         store_players_fn cb, void *userdata) {
        const char *p[] = { name, club, external_id };

        return query(s, "INSERT INTO players (name, club, external_id) VALUES ($1, $2, $3) RETURNING " PLAYER_COLUMNS,
                     3, p, cb, userdata);
}

int store_players_update(struct store *s, int64_t id, const struct store_player_change *change,
                         store_players_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        if (change->active < -1 || change->active > 1)
                return -EINVAL;
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = {
                id_s, change->name,
                change->club_given ? "t" : "f", change->club,
                change->external_id_given ? "t" : "f", change->external_id,
                change->active < 0 ? NULL : change->active ? "t" : "f",
        };
        return query(s,
                     "UPDATE players SET name = coalesce($2, name), "
                     "       club = CASE WHEN $3::bool THEN $4 ELSE club END, "
                     "       external_id = CASE WHEN $5::bool THEN $6 ELSE external_id END, "
                     "       active = coalesce($7::bool, active) "
                     "WHERE id = $1 RETURNING " PLAYER_COLUMNS,
                     7, p, cb, userdata);
}
