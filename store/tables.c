/* store/tables.c — the venue tables' SQL.  See tables.h.
 *
 * A table comes back as rows of three kinds in one result, so that one
 * statement reads (or writes and returns) it whole: its own row (kind 0),
 * one row per seat (kind 1: seat, button map) and one per pad (kind 2:
 * seat or NULL, pad id, role), ordered by table, kind, seat (the table's
 * own pads first) and pad id.  on_rows() folds them into the rows of
 * tables.h.
 */
#include "store/tables.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows.h"

/* The rows of the tables in t, their seats in s and their pads in p (CTEs
 * of the statement that uses it).  A table's row carries its venue and its
 * newest match not over (matches_live_by_table). */
#define TABLE_ROWS \
        "SELECT 0 AS kind, t.id, t.name, t.created_by, " STORE_TIME("t.created_at") " AS created_at, " \
        "       NULL::int AS seat, NULL::text AS text, NULL::text AS role, t.venue, " \
        "       (SELECT max(m.id) FROM matches m WHERE m.table_id = t.id " \
        "          AND m.state IN ('ready', 'running', 'paused', 'provisional')) AS live_match FROM t " \
        "UNION ALL SELECT 1, s.table_id, NULL, NULL, NULL, s.seat, s.button_map::text, NULL, NULL, NULL FROM s " \
        "UNION ALL SELECT 2, p.table_id, NULL, NULL, NULL, p.seat, p.pad_id, p.role, NULL, NULL FROM p " \
        "ORDER BY 2, 1, 6 NULLS FIRST, 7"

/* The seats and pads of the tables in t. */
#define SEATS_AND_PADS \
        "s AS (SELECT s.table_id, s.seat, s.button_map FROM table_seats s JOIN t ON t.id = s.table_id), " \
        "p AS (SELECT p.table_id, p.seat, p.pad_id, p.role FROM table_pads p JOIN t ON t.id = p.table_id) "

enum { KIND_TABLE, KIND_SEAT, KIND_PAD };
enum { COL_KIND, COL_ID, COL_NAME, COL_CREATED_BY, COL_CREATED_AT, COL_SEAT, COL_TEXT, COL_ROLE, COL_VENUE,
       COL_LIVE_MATCH };

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

struct call {
        struct store *store;
        store_tables_fn cb;
        void *userdata;
};

static struct store_table_seat *seat_of(struct store_table_seat *seats, size_t n, int seat) {
        for (size_t i = 0; i < n; i++)
                if (seats[i].seat == seat)
                        return &seats[i];
        return NULL;
}

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_error e;
        struct store_table_row *tables;
        struct store_table_seat *seats;
        struct store_table_pad *pads;
        size_t counts[3] = { 0 }, nt = 0, ns = 0, np = 0;
        int n;

        if (!res) {
                c->cb(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
                free(c);
                return;
        }
        n = PQntuples(res);
        for (int i = 0; i < n; i++) {
                int kind = store_int(res, i, COL_KIND);
                if (kind >= KIND_TABLE && kind <= KIND_PAD)
                        counts[kind]++;
        }
        tables = calloc(counts[KIND_TABLE] + 1, sizeof *tables);
        seats = calloc(counts[KIND_SEAT] + 1, sizeof *seats);
        pads = calloc(counts[KIND_PAD] + 1, sizeof *pads);
        if (!tables || !seats || !pads) {
                e = (struct store_error) { .failure = STORE_FAILURE_INTERNAL };
                c->cb(c->userdata, NULL, 0, &e, STORE_OUT_OF_MEMORY);
                goto out;
        }
        for (int i = 0; i < n; i++) {
                struct store_table_row *t = nt > 0 ? &tables[nt - 1] : NULL;
                int64_t id = store_int64(res, i, COL_ID);

                switch (store_int(res, i, COL_KIND)) {
                case KIND_TABLE:
                        tables[nt++] = (struct store_table_row) {
                                .id = id,
                                .venue = PQgetvalue(res, i, COL_VENUE),
                                .name = PQgetvalue(res, i, COL_NAME),
                                .created_by = PQgetvalue(res, i, COL_CREATED_BY),
                                .created_at = PQgetvalue(res, i, COL_CREATED_AT),
                                .seats = &seats[ns],
                                .pads = &pads[np],
                                .live_match = PQgetisnull(res, i, COL_LIVE_MATCH) ? 0
                                                                                   : store_int64(res, i, COL_LIVE_MATCH),
                        };
                        break;
                case KIND_SEAT:
                        if (!t || t->id != id)
                                break;
                        seats[ns++] = (struct store_table_seat) {
                                .seat = store_int(res, i, COL_SEAT),
                                .buttons = store_text(res, i, COL_TEXT),
                                .pads = &pads[np],
                        };
                        t->n_seats++;
                        break;
                case KIND_PAD: {
                        struct store_table_pad pad = { PQgetvalue(res, i, COL_TEXT), PQgetvalue(res, i, COL_ROLE) };
                        struct store_table_seat *s;

                        if (!t || t->id != id)
                                break;
                        /* The table's own pads come first, then each seat's
                         * together, so every list is a run of pads[]. */
                        if (PQgetisnull(res, i, COL_SEAT)) {
                                pads[np++] = pad;
                                t->n_pads++;
                        } else if ((s = seat_of((struct store_table_seat *) t->seats, t->n_seats,
                                                store_int(res, i, COL_SEAT)))) {
                                if (s->n_pads == 0)
                                        s->pads = &pads[np];
                                pads[np++] = pad;
                                s->n_pads++;
                        }
                        break;
                }
                }
        }
        c->cb(c->userdata, tables, nt, NULL, NULL);
out:
        free(tables);
        free(seats);
        free(pads);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params, store_tables_fn cb,
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

int store_tables_list(struct store *s, const char *venue, int64_t after, int64_t limit, store_tables_fn cb,
                      void *userdata) {
        char after_s[INT64_TEXT], limit_s[INT64_TEXT];

        if (limit < 0)
                return -EINVAL;
        snprintf(after_s, sizeof after_s, "%" PRId64, after);
        snprintf(limit_s, sizeof limit_s, "%" PRId64, limit);
        const char *p[] = { after_s, limit_s, venue };
        return query(s,
                     "WITH t AS (SELECT id, venue, name, created_by, created_at FROM tables "
                     "           WHERE id > $1 AND ($3::text IS NULL OR venue = $3) ORDER BY id LIMIT $2), "
                     SEATS_AND_PADS TABLE_ROWS,
                     3, p, cb, userdata);
}

int store_tables_get(struct store *s, int64_t id, store_tables_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        return query(s,
                     "WITH t AS (SELECT id, venue, name, created_by, created_at FROM tables WHERE id = $1), "
                     SEATS_AND_PADS TABLE_ROWS,
                     1, p, cb, userdata);
}

/* ---- array parameters ------------------------------------------------------ */

/* An SQL array literal (PostgreSQL, "Array Value Input") being written. */
struct array {
        FILE *f;
        char *text;
        size_t len;
        size_t n;
};

static int array_open(struct array *a) {
        *a = (struct array) { 0 };
        a->f = open_memstream(&a->text, &a->len);
        if (!a->f)
                return -ENOMEM;
        fputc('{', a->f);
        return 0;
}

static void array_int(struct array *a, int v) {
        fprintf(a->f, "%s%d", a->n++ ? "," : "", v);
}

/* An element in double quotes, with \ and " escaped; NULL as NULL. */
static void array_text(struct array *a, const char *v) {
        fputs(a->n++ ? "," : "", a->f);
        if (!v) {
                fputs("NULL", a->f);
                return;
        }
        fputc('"', a->f);
        for (; *v; v++) {
                if (*v == '"' || *v == '\\')
                        fputc('\\', a->f);
                fputc(*v, a->f);
        }
        fputc('"', a->f);
}

/* Ends the literal: 0, or -ENOMEM (a->text freed). */
static int array_close(struct array *a) {
        fputc('}', a->f);
        if (fclose(a->f) != 0 || !a->text) {
                free(a->text);
                a->text = NULL;
                return -ENOMEM;
        }
        return 0;
}

int store_tables_insert(struct store *s, const char *venue, const char *name, const char *created_by,
                        const struct store_table_new_seat *seats, size_t n_seats,
                        const struct store_table_new_pad *pads, size_t n_pads, store_tables_fn cb, void *userdata) {
        struct array a[5];
        int r = 0, opened = 0;

        for (; opened < 5; opened++)
                if ((r = array_open(&a[opened])) < 0)
                        break;
        if (r == 0) {
                for (size_t i = 0; i < n_seats; i++) {
                        array_int(&a[0], seats[i].seat);
                        array_text(&a[1], seats[i].buttons);
                }
                for (size_t i = 0; i < n_pads; i++) {
                        array_int(&a[2], pads[i].seat);
                        array_text(&a[3], pads[i].pad);
                        array_text(&a[4], pads[i].role);
                }
        }
        for (int i = 0; i < opened; i++)
                if (array_close(&a[i]) < 0)
                        r = -ENOMEM;
        if (r == 0) {
                const char *p[] = { name, created_by, a[0].text, a[1].text, a[2].text, a[3].text, a[4].text,
                                    venue };
                r = query(s,
                          "WITH t AS (INSERT INTO tables (venue, name, created_by) VALUES ($8, $1, $2) "
                          "           RETURNING id, venue, name, created_by, created_at), "
                          "     s AS (INSERT INTO table_seats (table_id, seat, button_map) "
                          "           SELECT t.id, x.seat, x.buttons::jsonb FROM t, "
                          "                  unnest($3::int[], $4::text[]) AS x(seat, buttons) "
                          "           RETURNING table_id, seat, button_map), "
                          "     p AS (INSERT INTO table_pads (table_id, seat, pad_id, role) "
                          "           SELECT t.id, nullif(x.seat, 0), x.pad, x.role FROM t, "
                          "                  unnest($5::int[], $6::text[], $7::text[]) AS x(seat, pad, role) "
                          "           RETURNING table_id, seat, pad_id, role) "
                          TABLE_ROWS,
                          8, p, cb, userdata);
        }
        for (int i = 0; i < opened; i++)
                free(a[i].text);
        return r;
}
