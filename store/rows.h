/* store/rows.h — what the repositories of store/ share (internal to store/;
 * docs/architecture.md, "Persistence"): reading a column of a PGresult into
 * a C type, the text of a timestamp, and the failure a repository hands
 * its caller.
 *
 * A repository (store/tokens.h, store/tables.h, ...) sends its statements
 * with store_query(), reads each row into a struct of C types and calls its
 * caller back with the rows.  Text columns point into the PGresult, which
 * the store frees when its callback returns: so do the rows, and the
 * caller copies what it keeps.
 */
#ifndef ARBITER_STORE_ROWS_H
#define ARBITER_STORE_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <libpq-fe.h>

#include "store/store.h"

/* A timestamptz as RFC 3339 UTC text with microseconds,
 * "2026-03-01T18:04:05.123456Z": what every reply shows. */
#define STORE_TIME(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* The text of column c of row i, NULL when it is SQL NULL. */
static inline const char *store_text(const PGresult *res, int i, int c) {
        return PQgetisnull(res, i, c) ? NULL : PQgetvalue(res, i, c);
}

/* An integer column (bigint, integer), 0 when NULL: a repository says in
 * its header where 0 stands for "none" (no id is 0). */
static inline int64_t store_int64(const PGresult *res, int i, int c) {
        return PQgetisnull(res, i, c) ? 0 : strtoll(PQgetvalue(res, i, c), NULL, 10);
}

static inline int store_int(const PGresult *res, int i, int c) {
        return (int) store_int64(res, i, c);
}

/* A boolean column as PostgreSQL prints it ("t"/"f"); NULL is false. */
static inline bool store_bool(const PGresult *res, int i, int c) {
        return !PQgetisnull(res, i, c) && PQgetvalue(res, i, c)[0] == 't';
}

/* A double precision column.  PostgreSQL prints a double with the fewest
 * digits that read back as the same double (extra_float_digits 1, its
 * default since version 12), so strtod gives back the stored bits. */
static inline double store_double(const PGresult *res, int i, int c) {
        return strtod(PQgetvalue(res, i, c), NULL);
}

/* Inside a store callback whose res is NULL: the failure to hand on, in
 * *e (the server's SQLSTATE and constraint, store_error()).  Should the
 * store have none to give, the failure is an internal one. */
static inline const struct store_error *store_failure_of(const struct store *s, struct store_error *e) {
        if (!store_error(s, e))
                *e = (struct store_error) { .failure = STORE_FAILURE_INTERNAL };
        return e;
}

/* The failure of a repository that could not allocate its rows. */
#define STORE_OUT_OF_MEMORY "out of memory reading the rows"

/* The start of a repository's callback that reads its rows into an array:
 * a zeroed array of PQntuples(res) + 1 elements of size, their number in
 * *ret_n; or NULL when there is nothing to read, with the failure to hand
 * on in *e and its words in *error (the query's own, or out of memory). */
static inline void *store_rows_new(const struct store *s, const PGresult *res, size_t size, int *ret_n,
                                   struct store_error *e, const char **error) {
        void *rows;

        if (!res) {
                store_failure_of(s, e);
                return NULL;
        }
        *ret_n = PQntuples(res);
        rows = calloc((size_t) *ret_n + 1, size);
        if (!rows) {
                *e = (struct store_error) { .failure = STORE_FAILURE_INTERNAL };
                *error = STORE_OUT_OF_MEMORY;
        }
        return rows;
}

#endif
