/* store/league.c — the league events' SQL.  See league.h. */
#include "store/league.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows.h"

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

/* The columns of a read, in struct store_league_row's order, then oldest. */
#define LEAGUE_COLUMNS "id, venue, topic, event, data::text"

/* ---- appends ---------------------------------------------------------------- */

struct append_call {
        struct store *store;
        store_league_appended_fn cb;
        void *userdata;
};

static void on_appended(void *userdata, const PGresult *res, const char *error) {
        struct append_call *c = userdata;
        struct store_error e;

        if (!res)
                c->cb(c->userdata, 0, store_failure_of(c->store, &e), error);
        else
                c->cb(c->userdata, PQntuples(res) ? store_int64(res, 0, 0) : 0, NULL, NULL);
        free(c);
}

/* A PostgreSQL array literal of text (its manual, "Arrays", "Array Value
 * Input"): every element double-quoted, with '"' and '\' escaped by a
 * backslash, so that no element is read as NULL or split.  malloc'd, or
 * NULL when out of memory. */
static char *text_array(const struct store_league_new *ev, size_t n, size_t field) {
        size_t len = 3, k = 0;
        char *out;

        for (size_t i = 0; i < n; i++) {
                const char *v = field == 0 ? ev[i].topic : field == 1 ? ev[i].event : ev[i].data;
                for (const char *p = v; *p; p++)
                        len += (*p == '"' || *p == '\\') ? 2 : 1;
                len += 3;       /* two quotes and a comma */
        }
        out = malloc(len);
        if (!out)
                return NULL;
        out[k++] = '{';
        for (size_t i = 0; i < n; i++) {
                const char *v = field == 0 ? ev[i].topic : field == 1 ? ev[i].event : ev[i].data;
                if (i)
                        out[k++] = ',';
                out[k++] = '"';
                for (const char *p = v; *p; p++) {
                        if (*p == '"' || *p == '\\')
                                out[k++] = '\\';
                        out[k++] = *p;
                }
                out[k++] = '"';
        }
        out[k++] = '}';
        out[k] = '\0';
        return out;
}

static bool name_ok(const char *s) {
        size_t n = s ? strlen(s) : 0;
        return n >= 1 && n <= STORE_LEAGUE_NAME_MAX;
}

int store_league_append(struct store *s, const char *venue, const struct store_league_new *ev, size_t n,
                        store_league_appended_fn cb, void *userdata) {
        char key_s[INT64_TEXT], *arrays[3] = { NULL, NULL, NULL };
        struct append_call *c;
        int r = -ENOMEM;

        if (!venue || n < 1 || n > STORE_LEAGUE_BATCH_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!name_ok(ev[i].topic) || !name_ok(ev[i].event) || !ev[i].data)
                        return -EINVAL;
        c = calloc(1, sizeof *c);
        for (size_t f = 0; f < 3; f++)
                arrays[f] = text_array(ev, n, f);
        if (c && arrays[0] && arrays[1] && arrays[2]) {
                *c = (struct append_call) { .store = s, .cb = cb, .userdata = userdata };
                snprintf(key_s, sizeof key_s, "%" PRId64, STORE_LEAGUE_LOCK_KEY);
                const char *p[] = { key_s, venue, arrays[0], arrays[1], arrays[2] };
                /* The lock is taken while the rows are read for the sort;
                 * the identity's nextval, volatile, is evaluated above the
                 * sort (PostgreSQL postpones volatile target expressions
                 * past a sort), so in the order given and only once the
                 * lock is held.  The NOTIFY goes out at the commit. */
                r = store_query(s,
                                "WITH ins AS ("
                                "  INSERT INTO league_events (venue, topic, event, data) "
                                "  SELECT $2, u.t, u.e, u.d::jsonb "
                                "    FROM (SELECT pg_advisory_xact_lock($1::bigint)) AS lk, "
                                "         unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(t, e, d, o) "
                                "   ORDER BY u.o "
                                "  RETURNING id) "
                                "SELECT m, pg_notify('" STORE_LEAGUE_CHANNEL "', m::text) "
                                "  FROM (SELECT max(id) AS m FROM ins) AS x",
                                5, p, on_appended, c);
                if (r == 0)
                        c = NULL;
        }
        free(c);
        for (size_t f = 0; f < 3; f++)
                free(arrays[f]);
        return r;
}

/* ---- reads -------------------------------------------------------------------- */

struct rows_call {
        struct store *store;
        store_league_rows_fn cb;
        void *userdata;
};

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct rows_call *c = userdata;
        struct store_error e;
        struct store_league_row *rows;
        int64_t oldest = 0;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++) {
                rows[i] = (struct store_league_row) {
                        .id = store_int64(res, i, 0),
                        .venue = PQgetvalue(res, i, 1),
                        .topic = PQgetvalue(res, i, 2),
                        .event = PQgetvalue(res, i, 3),
                        .data = PQgetvalue(res, i, 4),
                };
                oldest = store_int64(res, i, 5);
        }
        c->cb(c->userdata, rows, (size_t) n, oldest, NULL, NULL);
        free(rows);
        free(c);
}

static int read_rows(struct store *s, const char *sql, int n_params, const char *const *params,
                     store_league_rows_fn cb, void *userdata) {
        struct rows_call *c = calloc(1, sizeof *c);
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct rows_call) { .store = s, .cb = cb, .userdata = userdata };
        r = store_query(s, sql, n_params, params, on_rows, c);
        if (r < 0)
                free(c);
        return r;
}

int store_league_since(struct store *s, int64_t after, unsigned limit, store_league_rows_fn cb, void *userdata) {
        char after_s[INT64_TEXT], limit_s[INT64_TEXT];

        if (after < 0 || limit < 1 || limit > STORE_LEAGUE_BATCH_MAX)
                return -EINVAL;
        snprintf(after_s, sizeof after_s, "%" PRId64, after);
        snprintf(limit_s, sizeof limit_s, "%u", limit);
        const char *p[] = { after_s, limit_s };
        return read_rows(s,
                         "SELECT " LEAGUE_COLUMNS ", (SELECT min(id) FROM league_events) "
                         "  FROM league_events WHERE id > $1 ORDER BY id LIMIT $2",
                         2, p, cb, userdata);
}

int store_league_newest_view(struct store *s, int64_t match, store_league_rows_fn cb, void *userdata) {
        char topic[INT64_TEXT + 8];

        if (match < 1)
                return -EINVAL;
        snprintf(topic, sizeof topic, "match/%" PRId64, match);
        const char *p[] = { topic };
        return read_rows(s,
                         "SELECT " LEAGUE_COLUMNS ", 0 FROM league_events "
                         " WHERE topic = $1 AND event = 'match_view' ORDER BY id DESC LIMIT 1",
                         1, p, cb, userdata);
}

/* ---- counts ------------------------------------------------------------------- */

struct count_call {
        struct store *store;
        store_league_count_fn cb;
        void *userdata;
};

static void on_count(void *userdata, const PGresult *res, const char *error) {
        struct count_call *c = userdata;
        struct store_error e;

        if (!res)
                c->cb(c->userdata, 0, store_failure_of(c->store, &e), error);
        else
                c->cb(c->userdata, PQntuples(res) ? store_int64(res, 0, 0) : 0, NULL, NULL);
        free(c);
}

static int count(struct store *s, const char *sql, int n_params, const char *const *params,
                 store_league_count_fn cb, void *userdata) {
        struct count_call *c = calloc(1, sizeof *c);
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct count_call) { .store = s, .cb = cb, .userdata = userdata };
        r = store_query(s, sql, n_params, params, on_count, c);
        if (r < 0)
                free(c);
        return r;
}

int store_league_last_id(struct store *s, store_league_count_fn cb, void *userdata) {
        return count(s, "SELECT coalesce(max(id), 0) FROM league_events", 0, NULL, cb, userdata);
}

int store_league_prune(struct store *s, unsigned keep_s, store_league_count_fn cb, void *userdata) {
        char keep[INT64_TEXT];

        snprintf(keep, sizeof keep, "%u", keep_s);
        const char *p[] = { keep };
        return count(s,
                     "WITH d AS (DELETE FROM league_events WHERE at < now() - make_interval(secs => $1::int) "
                     "           RETURNING 1) "
                     "SELECT count(*) FROM d",
                     1, p, cb, userdata);
}

int store_league_watch(struct store *s, store_notify_fn fn, void *userdata) {
        return store_listen(s, STORE_LEAGUE_CHANNEL, fn, userdata);
}
