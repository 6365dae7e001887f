/* store/tokens.c — the API tokens' SQL.  See tokens.h. */
#include "store/tokens.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/rows.h"

/* The columns every statement returns, in struct store_token_row's order;
 * store_tokens_live adds the hash. */
#define TOKEN_COLUMNS \
        "id, name, role, created_by, " STORE_TIME("created_at") ", " STORE_TIME("revoked_at") ", " \
        "match_id, table_id, seat"
#define TOKEN_N_COLUMNS 9

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

struct call {
        struct store *store;
        store_tokens_fn cb;
        void *userdata;
};

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_error e;
        struct store_token_row *rows;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_token_row) {
                        .id = store_int64(res, i, 0),
                        .name = PQgetvalue(res, i, 1),
                        .role = PQgetvalue(res, i, 2),
                        .created_by = PQgetvalue(res, i, 3),
                        .created_at = PQgetvalue(res, i, 4),
                        .revoked_at = store_text(res, i, 5),
                        .match_id = store_int64(res, i, 6),
                        .table_id = store_int64(res, i, 7),
                        .seat = store_int(res, i, 8),
                        .hash = PQnfields(res) > TOKEN_N_COLUMNS ? store_text(res, i, TOKEN_N_COLUMNS) : NULL,
                };
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params, store_tokens_fn cb,
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

int store_tokens_list(struct store *s, int64_t after, int64_t limit, store_tokens_fn cb, void *userdata) {
        char after_s[INT64_TEXT], limit_s[INT64_TEXT];

        if (limit < 0)
                return -EINVAL;
        snprintf(after_s, sizeof after_s, "%" PRId64, after);
        snprintf(limit_s, sizeof limit_s, "%" PRId64, limit);
        const char *p[] = { after_s, limit_s };
        return query(s, "SELECT " TOKEN_COLUMNS " FROM api_tokens WHERE id > $1 ORDER BY id LIMIT $2", 2, p, cb,
                     userdata);
}

int store_tokens_get(struct store *s, int64_t id, store_tokens_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        return query(s, "SELECT " TOKEN_COLUMNS " FROM api_tokens WHERE id = $1", 1, p, cb, userdata);
}

int store_tokens_revoke(struct store *s, int64_t id, store_tokens_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        return query(s,
                     "UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL "
                     "RETURNING " TOKEN_COLUMNS,
                     1, p, cb, userdata);
}

int store_tokens_insert(struct store *s, const char *name, const char *role, const char *hash,
                        const char *created_by, store_tokens_fn cb, void *userdata) {
        const char *p[] = { name, role, hash, created_by };

        return query(s,
                     "INSERT INTO api_tokens (name, role, token_hash, created_by) "
                     "VALUES ($1, $2, $3, $4) RETURNING " TOKEN_COLUMNS,
                     4, p, cb, userdata);
}

int store_tokens_insert_match_referee(struct store *s, const char *name, const char *hash, const char *created_by,
                                      int64_t match_id, store_tokens_fn cb, void *userdata) {
        char match_s[INT64_TEXT];

        if (match_id < 1)
                return -EINVAL;
        snprintf(match_s, sizeof match_s, "%" PRId64, match_id);
        const char *p[] = { name, hash, created_by, match_s };
        return query(s,
                     "INSERT INTO api_tokens (name, role, token_hash, created_by, match_id) "
                     "VALUES ($1, 'referee', $2, $3, $4) RETURNING " TOKEN_COLUMNS,
                     4, p, cb, userdata);
}

int store_tokens_insert_seat(struct store *s, const char *name, const char *hash, const char *created_by,
                             int64_t match_id, int64_t table_id, int seat, store_tokens_fn cb, void *userdata) {
        char match_s[INT64_TEXT], table_s[INT64_TEXT], seat_s[INT64_TEXT];

        if ((match_id > 0) == (table_id > 0) || match_id < 0 || table_id < 0 || seat < 1)
                return -EINVAL;
        snprintf(match_s, sizeof match_s, "%" PRId64, match_id);
        snprintf(table_s, sizeof table_s, "%" PRId64, table_id);
        snprintf(seat_s, sizeof seat_s, "%d", seat);
        /* ok: the seat exists (a match's seat is checked by its caller, who
         * holds the live match); old: the seat's live token, revoked in the
         * same statement as the new one is stored. */
        const char *p[] = { name, hash, created_by, match_s, seat_s, table_s };
        return query(s,
                     "WITH ok AS (SELECT 1 WHERE $6::bigint = 0 OR EXISTS "
                     "              (SELECT 1 FROM table_seats WHERE table_id = $6 AND seat = $5)), "
                     "old AS (UPDATE api_tokens SET revoked_at = now() "
                     "        WHERE seat = $5 AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM ok) "
                     "          AND (match_id = nullif($4::bigint, 0) OR table_id = nullif($6::bigint, 0)) "
                     "        RETURNING id) "
                     "INSERT INTO api_tokens (name, role, token_hash, created_by, match_id, seat, table_id) "
                     "SELECT $1, 'seat', $2, $3, nullif($4::bigint, 0), $5, nullif($6::bigint, 0) "
                     "FROM ok, (SELECT count(*) FROM old) o "
                     "RETURNING " TOKEN_COLUMNS,
                     6, p, cb, userdata);
}

int store_tokens_live(struct store *s, store_tokens_fn cb, void *userdata) {
        return query(s, "SELECT " TOKEN_COLUMNS ", token_hash FROM api_tokens WHERE revoked_at IS NULL", 0, NULL, cb,
                     userdata);
}

int store_tokens_watch(struct store *s, store_notify_fn fn, void *userdata) {
        return store_listen(s, STORE_TOKENS_CHANNEL, fn, userdata);
}
