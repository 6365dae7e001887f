/* store/ratings.c — see ratings.h: the rating worker's blocking
 * connection.  The loop's reads are in store/rating_reads.c.
 *
 * Reads that carry many numbers (results, players' rows) ask for binary
 * results, and writes of many rows go as binary COPY into temporary tables
 * of the session, merged by one statement each: a recompute of a million
 * results moves hundreds of megabytes, and text would spend most of its
 * time printing and parsing doubles.  A double crosses unchanged either
 * way, which the bit-for-bit promise of tournament/ratings.h needs.
 */
#include "store/ratings.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>

/* PostgreSQL's binary timestamptz counts microseconds from 2000-01-01 UTC,
 * 946,684,800 s after the Unix epoch (src/include/datatype/timestamp.h,
 * POSTGRES_EPOCH_JDATE). */
#define PG_EPOCH_US             INT64_C(946684800000000)
/* Type OIDs in the binary array format (src/include/catalog/pg_type.dat). */
#define OID_BOOL                16
#define OID_INT8                20
#define OID_INT4                23
#define OID_FLOAT8              701
#define OID_TIMESTAMPTZ         1184
/* COPY data is handed to libpq in pieces of about this size. */
#define COPY_CHUNK              (1u << 20)
/* Seconds a connection attempt of the worker may take, unless the DSN
 * says otherwise. */
#define STORE_RATINGS_CONNECT_TIMEOUT_S "10"
/* Microseconds in a day, for season ends (dates, UTC). */
#define USEC_PER_DAY            INT64_C(86400000000)

/* A parameter in microseconds since the Unix epoch, as a timestamptz. */
#define AT(p) "(timestamptz 'epoch' + " p "::bigint * interval '1 microsecond')"
/* A timestamptz as microseconds since the Unix epoch (extract gives a
 * numeric: exact). */
#define US(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

/* The done results of a game with their place and the typed arrays of
 * migrations/0008. */
#define RESULTS_FROM \
        " FROM stage_matches m JOIN stages s ON s.id = m.stage_id JOIN tournaments t ON t.id = s.tournament_id " \
        "WHERE t.game = $1 AND m.state = 'done' AND m.recorded_at IS NOT NULL "
#define RESULT_COLUMNS "m.id, m.recorded_at, m.rated_players, m.rated_ranks, m.rated_forfeits"
/* $2, $3: after this key (NULL: from the start); $4, $5: the window's ends
 * in microseconds (NULL: open). */
#define RESULTS_WINDOW \
        "AND ($2::bigint IS NULL OR (m.recorded_at, m.id) > (" AT("$2") ", $3::bigint)) " \
        "AND ($4::bigint IS NULL OR m.recorded_at >= " AT("$4") ") " \
        "AND ($5::bigint IS NULL OR m.recorded_at < " AT("$5") ") "

struct store_ratings {
        PGconn *conn;
        PGcancel *cancel;
        char error[1024];
};

int store_rating_key_cmp(const struct store_rating_key *a, const struct store_rating_key *b) {
        if (a->at_us != b->at_us)
                return a->at_us < b->at_us ? -1 : 1;
        return a->id < b->id ? -1 : a->id > b->id;
}

const char *store_ratings_error(const struct store_ratings *c) {
        return c ? c->error : "no connection";
}

/* Records why res (or the connection) failed; frees res.  -ENOTCONN when
 * the connection is gone, else -EIO. */
static int failed(struct store_ratings *c, PGresult *res, const char *what) {
        const char *msg = res ? PQresultErrorMessage(res) : "";

        if (!msg || !*msg)
                msg = PQerrorMessage(c->conn);
        snprintf(c->error, sizeof c->error, "%s: %s", what, msg && *msg ? msg : "no answer");
        c->error[strcspn(c->error, "\n")] = '\0';
        PQclear(res);
        return PQstatus(c->conn) == CONNECTION_OK ? -EIO : -ENOTCONN;
}

/* Runs one statement; *ret_res (when not NULL) gets a result of status
 * want, else it is cleared. */
static int run(struct store_ratings *c, const char *what, const char *sql, int n, const char *const *params,
               bool binary, ExecStatusType want, PGresult **ret_res) {
        PGresult *res = PQexecParams(c->conn, sql, n, NULL, params, NULL, NULL, binary ? 1 : 0);

        if (!res || PQresultStatus(res) != want)
                return failed(c, res, what);
        if (ret_res)
                *ret_res = res;
        else
                PQclear(res);
        return 0;
}

static int command(struct store_ratings *c, const char *what, const char *sql, int n, const char *const *params) {
        return run(c, what, sql, n, params, false, PGRES_COMMAND_OK, NULL);
}

/* ---- binary values ----------------------------------------------------------- */

static int64_t get64(const char *p) {
        uint64_t v;

        memcpy(&v, p, sizeof v);
        return (int64_t) be64toh(v);
}

static int32_t get32(const char *p) {
        uint32_t v;

        memcpy(&v, p, sizeof v);
        return (int32_t) be32toh(v);
}

static double getf64(const char *p) {
        uint64_t v = (uint64_t) get64(p);
        double d;

        memcpy(&d, &v, sizeof d);
        return d;
}

/* A one-dimensional array of elem-byte elements without NULLs (the binary
 * array format: ndim, has-null flag, element type, then per dimension its
 * length and lower bound, then each element as length and bytes).  Returns
 * the element count and points *ret_first at the first element's bytes
 * (each is 4 + elem bytes after the previous), or -1. */
static int bin_array(const char *v, int len, uint32_t oid, int elem, const char **ret_first) {
        int ndim, n;

        if (len < 12)
                return -1;
        ndim = get32(v);
        if (ndim == 0) {
                *ret_first = NULL;
                return 0;
        }
        if (ndim != 1 || len < 20 || get32(v + 4) != 0 || (uint32_t) get32(v + 8) != oid)
                return -1;
        n = get32(v + 12);
        if (n < 0 || (size_t) len != 20 + (size_t) n * (4 + (size_t) elem))
                return -1;
        for (int i = 0; i < n; i++)
                if (get32(v + 20 + (size_t) i * (4 + (size_t) elem)) != elem)
                        return -1;
        *ret_first = v + 24;
        return n;
}

/* Row i of a binary result of RESULT_COLUMNS. */
static void parse_result(const PGresult *res, int i, struct store_rated_result *ret) {
        const char *pl = NULL, *rk = NULL, *ff = NULL;
        int n_pl, n_rk, n_ff;

        memset(ret, 0, sizeof *ret);
        ret->key.id = get64(PQgetvalue(res, i, 0));
        ret->key.at_us = get64(PQgetvalue(res, i, 1)) + PG_EPOCH_US;
        ret->n = -1;
        if (PQgetisnull(res, i, 2) || PQgetisnull(res, i, 3) || PQgetisnull(res, i, 4))
                return;
        n_pl = bin_array(PQgetvalue(res, i, 2), PQgetlength(res, i, 2), OID_INT8, 8, &pl);
        n_rk = bin_array(PQgetvalue(res, i, 3), PQgetlength(res, i, 3), OID_INT4, 4, &rk);
        n_ff = bin_array(PQgetvalue(res, i, 4), PQgetlength(res, i, 4), OID_BOOL, 1, &ff);
        if (n_pl < 1 || n_pl > STORE_RATING_SEATS || n_rk != n_pl || n_ff != n_pl)
                return;
        for (int k = 0; k < n_pl; k++) {
                ret->player[k] = get64(pl + (size_t) k * 12);
                ret->rank[k] = get32(rk + (size_t) k * 8);
                ret->forfeit[k] = ff[(size_t) k * 5] != 0;
        }
        ret->n = n_pl;
}

/* ---- binary COPY ---------------------------------------------------------------- */

struct copy {
        struct store_ratings *c;
        char *buf;
        size_t len, cap;
        int r;
};

static void put(struct copy *w, const void *data, size_t n) {
        if (w->r < 0)
                return;
        if (w->len + n > w->cap) {
                size_t cap = w->cap ? w->cap : COPY_CHUNK + 4096;
                while (cap < w->len + n)
                        cap *= 2;
                char *b = realloc(w->buf, cap);
                if (!b) {
                        w->r = -ENOMEM;
                        return;
                }
                w->buf = b;
                w->cap = cap;
        }
        memcpy(w->buf + w->len, data, n);
        w->len += n;
}

static void put16(struct copy *w, int16_t v) {
        uint16_t b = htobe16((uint16_t) v);
        put(w, &b, sizeof b);
}

static void put32(struct copy *w, int32_t v) {
        uint32_t b = htobe32((uint32_t) v);
        put(w, &b, sizeof b);
}

static void put64(struct copy *w, int64_t v) {
        uint64_t b = htobe64((uint64_t) v);
        put(w, &b, sizeof b);
}

static void putf64(struct copy *w, double d) {
        uint64_t v;

        memcpy(&v, &d, sizeof v);
        put64(w, (int64_t) v);
}

/* Hands what is buffered to libpq once it passes COPY_CHUNK (or always). */
static void flush(struct copy *w, bool all) {
        if (w->r < 0 || w->len == 0 || (!all && w->len < COPY_CHUNK))
                return;
        if (PQputCopyData(w->c->conn, w->buf, (int) w->len) != 1)
                w->r = failed(w->c, NULL, "sending COPY data");
        w->len = 0;
}

static int copy_begin(struct copy *w, struct store_ratings *c, const char *sql) {
        static const char header[] = "PGCOPY\n\377\r\n";        /* 11 bytes with its NUL */
        PGresult *res = NULL;

        *w = (struct copy) { .c = c };
        res = PQexec(c->conn, sql);
        if (!res || PQresultStatus(res) != PGRES_COPY_IN)
                return failed(c, res, "starting a COPY");
        PQclear(res);
        put(w, header, sizeof header);
        put32(w, 0);            /* flags */
        put32(w, 0);            /* header extension length */
        return w->r;
}

static int copy_end(struct copy *w) {
        PGresult *res = NULL;
        int r;

        put16(w, -1);           /* the trailer */
        flush(w, true);
        free(w->buf);
        w->buf = NULL;
        if (PQputCopyEnd(w->c->conn, w->r < 0 ? "the writer failed" : NULL) != 1 && w->r >= 0)
                w->r = failed(w->c, NULL, "ending a COPY");
        r = w->r;
        while ((res = PQgetResult(w->c->conn))) {
                if (PQresultStatus(res) != PGRES_COMMAND_OK && r >= 0)
                        r = failed(w->c, res, "COPY");
                else
                        PQclear(res);
        }
        return r;
}

/* A row of nfields fields follows. */
static void put_row(struct copy *w, int16_t nfields) {
        flush(w, false);
        put16(w, nfields);
}

static void put_int8(struct copy *w, int64_t v) {
        put32(w, 8);
        put64(w, v);
}

static void put_int4(struct copy *w, int32_t v) {
        put32(w, 4);
        put32(w, v);
}

static void put_float8(struct copy *w, double v) {
        put32(w, 8);
        putf64(w, v);
}

/* An array field of n eight-byte elements: the values at base + i * stride
 * + offset, doubles (float8), integers (int8) or Unix microseconds
 * (timestamptz). */
enum elem_kind { ELEM_INT8, ELEM_FLOAT8, ELEM_TIMESTAMPTZ };

static void put_array(struct copy *w, enum elem_kind kind, const void *base, size_t stride, size_t offset,
                      size_t n) {
        static const int32_t oid[] = { [ELEM_INT8] = OID_INT8, [ELEM_FLOAT8] = OID_FLOAT8,
                                       [ELEM_TIMESTAMPTZ] = OID_TIMESTAMPTZ };

        put32(w, (int32_t) (20 + n * 12));
        put32(w, 1);                    /* dimensions */
        put32(w, 0);                    /* no NULLs */
        put32(w, oid[kind]);
        put32(w, (int32_t) n);
        put32(w, 1);                    /* lower bound */
        for (size_t i = 0; i < n; i++) {
                const char *p = (const char *) base + i * stride + offset;

                put32(w, 8);
                if (kind == ELEM_FLOAT8) {
                        double d;
                        memcpy(&d, p, sizeof d);
                        putf64(w, d);
                } else {
                        int64_t v;
                        memcpy(&v, p, sizeof v);
                        put64(w, kind == ELEM_TIMESTAMPTZ ? v - PG_EPOCH_US : v);
                }
        }
}

/* ---- the connection ------------------------------------------------------------- */

/* The session's scratch tables: what a write sends, before one statement
 * merges it into the real ones. */
static const char session_sql[] =
        "CREATE TEMP TABLE rating_rows_in (player_id bigint, mu float8, sigma float8, games int, g2_rating float8, "
        "  g2_rd float8, g2_volatility float8, g2_games int); "
        "CREATE TEMP TABLE rating_os_in (player_id bigint, stage_match_ids bigint[], ats timestamptz[], "
        "  mu_before float8[], sigma_before float8[], mu float8[], sigma float8[]); "
        "CREATE TEMP TABLE rating_g2_in (player_id bigint, stage_match_ids bigint[], ats timestamptz[], "
        "  rating_before float8[], rd_before float8[], volatility_before float8[], rating float8[], rd float8[], "
        "  volatility float8[])";

int store_ratings_open(const char *dsn, unsigned statement_timeout_ms, struct store_ratings **ret, char *err,
                       size_t len) {
        /* connect_timeout before dbname, so that the DSN's own wins: a
         * server that does not answer must not hold a shutdown for the
         * kernel's TCP timeout (the daemon's store bounds its attempts the
         * same: store.c, STORE_CONNECT_TIMEOUT_DEFAULT_S) */
        static const char *const keywords[] = { "connect_timeout", "dbname", "fallback_application_name",
                                                "client_encoding", NULL };
        const char *values[] = { STORE_RATINGS_CONNECT_TIMEOUT_S, dsn, "arbiterd ratings", "UTF8", NULL };
        struct store_ratings *c = calloc(1, sizeof *c);
        char sql[96];
        PGresult *res = NULL;

        *ret = NULL;
        if (!c) {
                snprintf(err, len, "out of memory");
                return -ENOMEM;
        }
        c->conn = PQconnectdbParams(keywords, values, 1);
        if (!c->conn || PQstatus(c->conn) != CONNECTION_OK) {
                snprintf(err, len, "%s", c->conn ? PQerrorMessage(c->conn) : "out of memory");
                err[strcspn(err, "\n")] = '\0';
                store_ratings_close(c);
                return -ENOTCONN;
        }
        /* A commit need not wait for the disk: every table is one
         * transaction, derived from the results, and one lost in a crash is
         * done again (its marks go in the same transaction, and a step's
         * results follow the table's key). */
        snprintf(sql, sizeof sql, "SET statement_timeout = %u; SET synchronous_commit = off", statement_timeout_ms);
        res = PQexec(c->conn, sql);
        if (PQresultStatus(res) == PGRES_COMMAND_OK) {
                PQclear(res);
                res = PQexec(c->conn, session_sql);
        }
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                int r = failed(c, res, "setting up the session");
                snprintf(err, len, "%s", c->error);
                store_ratings_close(c);
                return r;
        }
        PQclear(res);
        c->cancel = PQgetCancel(c->conn);
        *ret = c;
        return 0;
}

void store_ratings_close(struct store_ratings *c) {
        if (!c)
                return;
        if (c->cancel)
                PQfreeCancel(c->cancel);
        PQfinish(c->conn);
        free(c);
}

void store_ratings_cancel(struct store_ratings *c) {
        char err[256];

        if (c && c->cancel)
                (void) PQcancel(c->cancel, err, sizeof err);
}

/* Key of the worker's session advisory lock: the bytes "arbiterw" read as
 * a big-endian int64, beside the migration lock's "arbiter1" (store.c). */
#define STORE_RATINGS_LOCK_KEY INT64_C(0x6172626974657277)

static int try_lock(struct store_ratings *c, const char *key, int *ret_pid) {
        const char *p[] = { key };
        PGresult *res = NULL;
        int r = run(c, "taking the rating worker's lock", "SELECT pg_try_advisory_lock($1::bigint), pg_backend_pid()",
                    1, p, false, PGRES_TUPLES_OK, &res);

        if (r < 0)
                return r;
        r = PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';
        *ret_pid = PQntuples(res) == 1 ? atoi(PQgetvalue(res, 0, 1)) : 0;
        PQclear(res);
        return r;
}

int store_ratings_try_lock(struct store_ratings *c, int previous_pid, int *ret_pid) {
        char key[24], pid[16], wait_ms[16];
        PGresult *res = NULL;
        bool ended;
        int r;

        snprintf(key, sizeof key, "%" PRId64, STORE_RATINGS_LOCK_KEY);
        r = try_lock(c, key, ret_pid);
        if (r != 0 || previous_pid <= 0 || previous_pid == *ret_pid)
                return r;
        /* a one-bigint advisory key shows in pg_locks as classid (its high
         * half), objid (its low half) and objsubid 1 (PostgreSQL's manual,
         * "pg_locks") */
        snprintf(pid, sizeof pid, "%d", previous_pid);
        snprintf(wait_ms, sizeof wait_ms, "%d", STORE_RATINGS_TERMINATE_MS);
        const char *p[] = { key, pid, wait_ms };
        r = run(c, "ending this daemon's earlier session of the rating worker",
                "SELECT pg_terminate_backend(pid, $3::bigint) FROM pg_locks "
                " WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = $2::int "
                "   AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid",
                3, p, false, PGRES_TUPLES_OK, &res);
        if (r < 0)
                return r;
        ended = PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';
        PQclear(res);
        return ended ? try_lock(c, key, ret_pid) : 0;
}

int store_ratings_ask(struct store_ratings *c, const char *payload) {
        const char *p[] = { payload };

        return run(c, "asking the active rating worker", "SELECT pg_notify('" STORE_RATINGS_CHANNEL "', $1)", 1, p,
                   false, PGRES_TUPLES_OK, NULL);
}

int store_ratings_begin(struct store_ratings *c) {
        return command(c, "BEGIN", "BEGIN", 0, NULL);
}

int store_ratings_commit(struct store_ratings *c) {
        return command(c, "COMMIT", "COMMIT", 0, NULL);
}

void store_ratings_rollback(struct store_ratings *c) {
        if (PQstatus(c->conn) == CONNECTION_OK)
                PQclear(PQexec(c->conn, "ROLLBACK"));
}

/* The first column of every row, as a malloc'd array of malloc'd strings. */
static int strings(struct store_ratings *c, PGresult *res, char ***ret) {
        int n = PQntuples(res);
        char **v = calloc((size_t) n + 1, sizeof *v);

        for (int i = 0; v && i < n; i++)
                if (!(v[i] = strdup(PQgetvalue(res, i, 0)))) {
                        for (int k = 0; k < i; k++)
                                free(v[k]);
                        free(v);
                        v = NULL;
                }
        PQclear(res);
        if (!v) {
                snprintf(c->error, sizeof c->error, "out of memory");
                return -ENOMEM;
        }
        *ret = v;
        return n;
}

int store_ratings_games(struct store_ratings *c, char ***ret_games) {
        PGresult *res = NULL;
        int r = run(c, "listing the games",
                    "SELECT t.game FROM tournaments t WHERE EXISTS (SELECT 1 FROM stages s JOIN stage_matches m "
                    "  ON m.stage_id = s.id WHERE s.tournament_id = t.id AND m.state = 'done') "
                    "UNION SELECT game FROM rating_tables ORDER BY 1",
                    0, NULL, false, PGRES_TUPLES_OK, &res);

        return r < 0 ? r : strings(c, res, ret_games);
}

int store_ratings_tables(struct store_ratings *c, const char *game, struct store_rating_table **ret) {
        const char *p[] = { game };
        PGresult *res = NULL;
        int r = run(c, "reading the rating tables",
                    "SELECT id, game, season_from IS NOT NULL, coalesce(to_char(season_from, 'YYYY-MM-DD'), ''), "
                    "  coalesce((season_from - date '1970-01-01')::bigint, 0), season_to IS NOT NULL, "
                    "  coalesce(to_char(season_to, 'YYYY-MM-DD'), ''), coalesce((season_to - date '1970-01-01')::bigint, 0), "
                    "  params, through_at IS NOT NULL, coalesce(" US("through_at") ", 0), coalesce(through_id, 0), "
                    "  results, ready "
                    "FROM rating_tables WHERE game = $1 "
                    "ORDER BY season_from IS NOT NULL OR season_to IS NOT NULL, created_at, id FOR UPDATE",
                    1, p, false, PGRES_TUPLES_OK, &res);
        int n;

        if (r < 0)
                return r;
        n = PQntuples(res);
        struct store_rating_table *t = calloc((size_t) n + 1, sizeof *t);
        if (!t) {
                PQclear(res);
                snprintf(c->error, sizeof c->error, "out of memory");
                return -ENOMEM;
        }
        for (int i = 0; i < n; i++) {
                t[i].id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
                snprintf(t[i].game, sizeof t[i].game, "%s", PQgetvalue(res, i, 1));
                t[i].has_from = PQgetvalue(res, i, 2)[0] == 't';
                snprintf(t[i].from, sizeof t[i].from, "%s", PQgetvalue(res, i, 3));
                t[i].from_us = strtoll(PQgetvalue(res, i, 4), NULL, 10) * USEC_PER_DAY;
                t[i].has_to = PQgetvalue(res, i, 5)[0] == 't';
                snprintf(t[i].to, sizeof t[i].to, "%s", PQgetvalue(res, i, 6));
                t[i].to_us = strtoll(PQgetvalue(res, i, 7), NULL, 10) * USEC_PER_DAY;
                t[i].season = t[i].has_from || t[i].has_to;
                snprintf(t[i].params, sizeof t[i].params, "%s", PQgetvalue(res, i, 8));
                t[i].has_through = PQgetvalue(res, i, 9)[0] == 't';
                t[i].through.at_us = strtoll(PQgetvalue(res, i, 10), NULL, 10);
                t[i].through.id = strtoll(PQgetvalue(res, i, 11), NULL, 10);
                t[i].results = strtoll(PQgetvalue(res, i, 12), NULL, 10);
                t[i].ready = PQgetvalue(res, i, 13)[0] == 't';
        }
        PQclear(res);
        *ret = t;
        return n;
}

int store_ratings_table_add(struct store_ratings *c, const char *game, const char *from, const char *to,
                            const char *params) {
        const char *p[] = { game, from, to, params };
        PGresult *res = NULL;
        int r = run(c, "adding a rating table",
                    "INSERT INTO rating_tables (game, season_from, season_to, params) "
                    "VALUES ($1, $2::date, $3::date, $4) ON CONFLICT DO NOTHING",
                    4, p, false, PGRES_COMMAND_OK, &res);

        if (r < 0)
                return r;
        r = atoi(PQcmdTuples(res));
        PQclear(res);
        return r;
}

int store_ratings_seasons_trim(struct store_ratings *c, const char *game, unsigned keep) {
        char keep_s[16];
        const char *p[] = { game, keep_s };
        PGresult *res = NULL;
        int r;

        snprintf(keep_s, sizeof keep_s, "%u", keep);
        r = run(c, "trimming the seasons",
                "DELETE FROM rating_tables WHERE id IN (SELECT id FROM rating_tables WHERE game = $1 "
                "  AND (season_from IS NOT NULL OR season_to IS NOT NULL) "
                "  ORDER BY created_at DESC, id DESC OFFSET $2::int)",
                2, p, false, PGRES_COMMAND_OK, &res);
        if (r < 0)
                return r;
        r = atoi(PQcmdTuples(res));
        PQclear(res);
        return r;
}

int store_ratings_dirty(struct store_ratings *c, const char *game, bool *ret_any, bool *ret_from_start,
                        struct store_rating_key *ret_from, char **ret_ids) {
        const char *p[] = { game };
        PGresult *res = NULL;
        int r = run(c, "reading the stale marks",
                    "SELECT d.at IS NULL, coalesce(" US("d.at") ", 0), d.stage_match_id, "
                    "  (SELECT array_agg(id) FROM rating_dirty WHERE game = $1) "
                    "FROM rating_dirty d WHERE d.game = $1 ORDER BY d.at NULLS FIRST, d.stage_match_id LIMIT 1",
                    1, p, false, PGRES_TUPLES_OK, &res);

        if (r < 0)
                return r;
        *ret_any = PQntuples(res) == 1;
        *ret_from_start = false;
        *ret_ids = NULL;
        if (*ret_any) {
                *ret_from_start = PQgetvalue(res, 0, 0)[0] == 't';
                ret_from->at_us = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
                ret_from->id = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
                *ret_ids = strdup(PQgetvalue(res, 0, 3));
                if (!*ret_ids) {
                        PQclear(res);
                        snprintf(c->error, sizeof c->error, "out of memory");
                        return -ENOMEM;
                }
        }
        PQclear(res);
        return 0;
}

int store_ratings_dirty_unknown(struct store_ratings *c, char ***ret_games) {
        PGresult *res = NULL;
        int r = run(c, "spreading the marks of unknown games",
                    "WITH n AS (DELETE FROM rating_dirty WHERE game IS NULL RETURNING stage_match_id), "
                    "     g AS (SELECT DISTINCT game FROM rating_tables), "
                    "     i AS (INSERT INTO rating_dirty (game, at, stage_match_id) "
                    "           SELECT g.game, NULL, n.stage_match_id FROM n, g RETURNING game) "
                    "SELECT DISTINCT game FROM i",
                    0, NULL, false, PGRES_TUPLES_OK, &res);

        return r < 0 ? r : strings(c, res, ret_games);
}

int store_ratings_dirty_clear(struct store_ratings *c, const char *ids) {
        const char *p[] = { ids };

        return command(c, "clearing the stale marks", "DELETE FROM rating_dirty WHERE id = ANY ($1::bigint[])", 1, p);
}

int store_ratings_result(struct store_ratings *c, const char *game, int64_t id, struct store_rated_result *ret) {
        char id_s[24];
        const char *p[] = { game, id_s };
        PGresult *res = NULL;
        int r;

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = run(c, "reading a result", "SELECT " RESULT_COLUMNS RESULTS_FROM "AND m.id = $2::bigint", 2, p, true,
                PGRES_TUPLES_OK, &res);
        if (r < 0)
                return r;
        r = PQntuples(res) == 1;
        if (r)
                parse_result(res, 0, ret);
        PQclear(res);
        return r;
}

/* The window parameters of table t: $4, $5 of RESULTS_WINDOW. */
static void window_params(const struct store_rating_table *t, char *from_s, char *to_s, const char **ret_from,
                          const char **ret_to) {
        snprintf(from_s, 24, "%" PRId64, t->from_us);
        snprintf(to_s, 24, "%" PRId64, t->to_us);
        *ret_from = t->has_from ? from_s : NULL;
        *ret_to = t->has_to ? to_s : NULL;
}

int64_t store_ratings_count(struct store_ratings *c, const struct store_rating_table *t,
                            const struct store_rating_key *through) {
        char at_s[24], id_s[24], from_s[24], to_s[24];
        const char *p[7] = { t->game, NULL, NULL, NULL, NULL, at_s, id_s };
        PGresult *res = NULL;
        int64_t n;
        int r;

        if (!through)
                return 0;
        window_params(t, from_s, to_s, &p[3], &p[4]);
        snprintf(at_s, sizeof at_s, "%" PRId64, through->at_us);
        snprintf(id_s, sizeof id_s, "%" PRId64, through->id);
        r = run(c, "counting results",
                "SELECT count(*)" RESULTS_FROM RESULTS_WINDOW
                "AND (m.recorded_at, m.id) <= (" AT("$6") ", $7::bigint)",
                7, p, false, PGRES_TUPLES_OK, &res);
        if (r < 0)
                return r;
        n = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        PQclear(res);
        return n;
}

int store_ratings_results_open(struct store_ratings *c, const struct store_rating_table *t,
                               const struct store_rating_key *after) {
        char at_s[24], id_s[24], from_s[24], to_s[24];
        const char *p[5] = { t->game };

        snprintf(at_s, sizeof at_s, "%" PRId64, after ? after->at_us : 0);
        snprintf(id_s, sizeof id_s, "%" PRId64, after ? after->id : 0);
        p[1] = after ? at_s : NULL;
        p[2] = after ? id_s : NULL;
        window_params(t, from_s, to_s, &p[3], &p[4]);
        return command(c, "reading the results",
                       "DECLARE rating_results NO SCROLL CURSOR FOR SELECT " RESULT_COLUMNS RESULTS_FROM
                       RESULTS_WINDOW "ORDER BY m.recorded_at, m.id",
                       5, p);
}

int store_ratings_results_next(struct store_ratings *c, struct store_rated_result *buf, size_t cap) {
        char sql[64];
        PGresult *res = NULL;
        int r, n;

        snprintf(sql, sizeof sql, "FETCH %zu FROM rating_results", cap);
        r = run(c, "reading the results", sql, 0, NULL, true, PGRES_TUPLES_OK, &res);
        if (r < 0)
                return r;
        n = PQntuples(res);
        for (int i = 0; i < n; i++)
                parse_result(res, i, &buf[i]);
        PQclear(res);
        return n;
}

int store_ratings_results_close(struct store_ratings *c) {
        return command(c, "closing the results", "CLOSE rating_results", 0, NULL);
}

int store_ratings_in_history(struct store_ratings *c, const char *game, int64_t player, int64_t id) {
        char player_s[24], id_s[24];
        const char *p[] = { game, player_s, id_s };
        PGresult *res = NULL;
        int r;

        snprintf(player_s, sizeof player_s, "%" PRId64, player);
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = run(c, "reading a history",
                "SELECT EXISTS (SELECT 1 FROM rating_history_openskill WHERE game = $1 AND player_id = $2::bigint "
                "  AND $3::bigint = ANY (stage_match_ids))",
                3, p, false, PGRES_TUPLES_OK, &res);
        if (r < 0)
                return r;
        r = PQgetvalue(res, 0, 0)[0] == 't';
        PQclear(res);
        return r;
}

/* "{1,2,3}" of players[0..n), malloc'd. */
static char *id_array(const int64_t *players, size_t n) {
        size_t cap = 3 + n * 21;
        char *s = malloc(cap), *p = s;

        if (!s)
                return NULL;
        *p++ = '{';
        for (size_t i = 0; i < n; i++)
                p += snprintf(p, cap - (size_t) (p - s), "%s%" PRId64, i ? "," : "", players[i]);
        *p++ = '}';
        *p = '\0';
        return s;
}

int store_ratings_rows(struct store_ratings *c, const struct store_rating_table *t, const int64_t *players,
                       size_t n, struct store_rating_row *ret, bool *found) {
        char table_s[24], *ids = id_array(players, n);
        const char *p[] = { t->season ? table_s : t->game, ids };
        PGresult *res = NULL;
        int r, got = 0;

        if (!ids) {
                snprintf(c->error, sizeof c->error, "out of memory");
                return -ENOMEM;
        }
        snprintf(table_s, sizeof table_s, "%" PRId64, t->id);
        r = run(c, "reading ratings",
                t->season ? "SELECT player_id, mu, sigma, games, g2_rating, g2_rd, g2_volatility, g2_games "
                            "FROM season_ratings WHERE table_id = $1::bigint AND player_id = ANY ($2::bigint[])"
                          : "SELECT player_id, mu, sigma, games, g2_rating, g2_rd, g2_volatility, g2_games "
                            "FROM ratings WHERE game = $1 AND player_id = ANY ($2::bigint[])",
                2, p, true, PGRES_TUPLES_OK, &res);
        free(ids);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                found[i] = false;
        for (int k = 0; k < PQntuples(res); k++) {
                struct store_rating_row row = {
                        .player = get64(PQgetvalue(res, k, 0)),
                        .mu = getf64(PQgetvalue(res, k, 1)),
                        .sigma = getf64(PQgetvalue(res, k, 2)),
                        .games = get32(PQgetvalue(res, k, 3)),
                        .g2_rating = getf64(PQgetvalue(res, k, 4)),
                        .g2_rd = getf64(PQgetvalue(res, k, 5)),
                        .g2_volatility = getf64(PQgetvalue(res, k, 6)),
                        .g2_games = get32(PQgetvalue(res, k, 7)),
                };
                for (size_t i = 0; i < n; i++)
                        if (players[i] == row.player && !found[i]) {
                                ret[i] = row;
                                found[i] = true;
                                got++;
                        }
        }
        PQclear(res);
        return got;
}

int store_ratings_rows_write(struct store_ratings *c, const struct store_rating_table *t,
                             const struct store_rating_row *rows, size_t n, bool replace) {
        char table_s[24];
        const char *p[] = { t->season ? table_s : t->game };
        struct copy w;
        int r;

        snprintf(table_s, sizeof table_s, "%" PRId64, t->id);
        r = copy_begin(&w, c, "COPY rating_rows_in FROM STDIN (FORMAT binary)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                put_row(&w, 8);
                put_int8(&w, rows[i].player);
                put_float8(&w, rows[i].mu);
                put_float8(&w, rows[i].sigma);
                put_int4(&w, rows[i].games);
                put_float8(&w, rows[i].g2_rating);
                put_float8(&w, rows[i].g2_rd);
                put_float8(&w, rows[i].g2_volatility);
                put_int4(&w, rows[i].g2_games);
        }
        if (r >= 0)
                r = copy_end(&w);
        else
                free(w.buf);
        if (r >= 0 && replace)
                r = command(c, "replacing ratings", t->season ? "DELETE FROM season_ratings WHERE table_id = $1::bigint"
                                                              : "DELETE FROM ratings WHERE game = $1", 1, p);
        if (r >= 0)
                r = command(c, "writing ratings",
                            t->season
                            ? "INSERT INTO season_ratings AS r (table_id, player_id, mu, sigma, games, g2_rating, g2_rd, "
                              "  g2_volatility, g2_games) SELECT $1::bigint, i.* FROM rating_rows_in i "
                              "ON CONFLICT (table_id, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                              "  games = excluded.games, g2_rating = excluded.g2_rating, g2_rd = excluded.g2_rd, "
                              "  g2_volatility = excluded.g2_volatility, g2_games = excluded.g2_games"
                            : "INSERT INTO ratings AS r (game, player_id, mu, sigma, games, g2_rating, g2_rd, "
                              "  g2_volatility, g2_games) SELECT $1, i.* FROM rating_rows_in i "
                              "ON CONFLICT (game, player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                              "  games = excluded.games, g2_rating = excluded.g2_rating, g2_rd = excluded.g2_rd, "
                              "  g2_volatility = excluded.g2_volatility, g2_games = excluded.g2_games",
                            1, p);
        if (r >= 0)
                r = command(c, "clearing the scratch table", "DELETE FROM rating_rows_in", 0, NULL);
        return r;
}

/* The statements that cut one system's history from a place on: the
 * entries before it stay (the arrays are in the order key's order, so
 * they are a prefix), a row left with none goes. */
#define HISTORY_CUT(table, arrays_cut) \
        "WITH c AS (SELECT h.player_id, (SELECT count(*) FROM unnest(h.ats, h.stage_match_ids) AS u(a, i) " \
        "             WHERE (u.a, u.i) < (" AT("$2") ", $3::bigint))::int AS keep " \
        "           FROM " table " h WHERE h.game = $1 AND (h.last_at, h.last_id) >= (" AT("$2") ", $3::bigint)) " \
        "UPDATE " table " h SET " arrays_cut ", last_at = h.ats[c.keep], last_id = h.stage_match_ids[c.keep] " \
        "FROM c WHERE h.game = $1 AND h.player_id = c.player_id AND c.keep > 0"
#define HISTORY_DROP(table) \
        "DELETE FROM " table " WHERE game = $1 AND (last_at, last_id) >= (" AT("$2") ", $3::bigint)"
#define CUT(col) col " = h." col "[1:c.keep]"

int store_ratings_history_cut(struct store_ratings *c, const char *game, const struct store_rating_key *from) {
        char at_s[24], id_s[24];
        const char *p[] = { game, at_s, id_s };
        int r;

        if (!from) {
                r = command(c, "deleting the history", "DELETE FROM rating_history_openskill WHERE game = $1", 1, p);
                return r < 0 ? r : command(c, "deleting the history",
                                           "DELETE FROM rating_history_glicko2 WHERE game = $1", 1, p);
        }
        snprintf(at_s, sizeof at_s, "%" PRId64, from->at_us);
        snprintf(id_s, sizeof id_s, "%" PRId64, from->id);
        r = command(c, "cutting the history",
                    HISTORY_CUT("rating_history_openskill", CUT("stage_match_ids") ", " CUT("ats") ", "
                                CUT("mu_before") ", " CUT("sigma_before") ", " CUT("mu") ", " CUT("sigma")),
                    3, p);
        if (r >= 0)
                r = command(c, "cutting the history", HISTORY_DROP("rating_history_openskill"), 3, p);
        if (r >= 0)
                r = command(c, "cutting the history",
                            HISTORY_CUT("rating_history_glicko2", CUT("stage_match_ids") ", " CUT("ats") ", "
                                        CUT("rating_before") ", " CUT("rd_before") ", " CUT("volatility_before") ", "
                                        CUT("rating") ", " CUT("rd") ", " CUT("volatility")),
                            3, p);
        if (r >= 0)
                r = command(c, "cutting the history", HISTORY_DROP("rating_history_glicko2"), 3, p);
        return r;
}

#define APPEND(col) col " = h." col " || excluded." col

static void put_text(struct copy *w, const char *text) {
        size_t n = strlen(text);

        put32(w, (int32_t) n);
        put(w, text, n);
}

static void put_timestamptz(struct copy *w, int64_t unix_us) {
        put32(w, 8);
        put64(w, unix_us - PG_EPOCH_US);
}

/* One player's OpenSkill entries as a row: with game (fresh: straight into
 * the real table, with the last entry's key) or without (the scratch
 * table's columns). */
static void put_os_row(struct copy *w, const char *game, const struct store_player_history *h) {
        const struct store_history_os *e = h->os;
        size_t k = h->n_os, z = sizeof *e;

        put_row(w, game ? 10 : 7);
        if (game)
                put_text(w, game);
        put_int8(w, h->player);
        put_array(w, ELEM_INT8, e, z, offsetof(struct store_history_os, match), k);
        put_array(w, ELEM_TIMESTAMPTZ, e, z, offsetof(struct store_history_os, at_us), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_os, mu_before), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_os, sigma_before), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_os, mu), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_os, sigma), k);
        if (game) {
                put_timestamptz(w, e[k - 1].at_us);
                put_int8(w, e[k - 1].match);
        }
}

static void put_g2_row(struct copy *w, const char *game, const struct store_player_history *h) {
        const struct store_history_g2 *e = h->g2;
        size_t k = h->n_g2, z = sizeof *e;

        put_row(w, game ? 12 : 9);
        if (game)
                put_text(w, game);
        put_int8(w, h->player);
        put_array(w, ELEM_INT8, e, z, offsetof(struct store_history_g2, match), k);
        put_array(w, ELEM_TIMESTAMPTZ, e, z, offsetof(struct store_history_g2, at_us), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_g2, rating_before), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_g2, rd_before), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_g2, volatility_before), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_g2, rating), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_g2, rd), k);
        put_array(w, ELEM_FLOAT8, e, z, offsetof(struct store_history_g2, volatility), k);
        if (game) {
                put_timestamptz(w, e[k - 1].at_us);
                put_int8(w, e[k - 1].match);
        }
}

/* One system's entries: COPY (into the real table when fresh, else into
 * the scratch table, then merged). */
static int append_system(struct store_ratings *c, const char *game, const struct store_player_history *h, size_t n,
                         bool fresh, bool g2) {
        const char *p[] = { game };
        struct copy w;
        int r;

        r = copy_begin(&w, c, g2 ? (fresh ? "COPY rating_history_glicko2 FROM STDIN (FORMAT binary)"
                                          : "COPY rating_g2_in FROM STDIN (FORMAT binary)")
                                 : (fresh ? "COPY rating_history_openskill FROM STDIN (FORMAT binary)"
                                          : "COPY rating_os_in FROM STDIN (FORMAT binary)"));
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (g2 ? h[i].n_g2 == 0 : h[i].n_os == 0)
                        continue;
                if (g2)
                        put_g2_row(&w, fresh ? game : NULL, &h[i]);
                else
                        put_os_row(&w, fresh ? game : NULL, &h[i]);
        }
        if (r >= 0)
                r = copy_end(&w);
        else
                free(w.buf);
        if (r < 0 || fresh)
                return r;
        r = command(c, "appending to the history",
                    g2 ? "INSERT INTO rating_history_glicko2 AS h (game, player_id, stage_match_ids, ats, "
                         "  rating_before, rd_before, volatility_before, rating, rd, volatility, last_at, last_id) "
                         "SELECT $1, i.*, i.ats[cardinality(i.ats)], i.stage_match_ids[cardinality(i.stage_match_ids)] "
                         "FROM rating_g2_in i "
                         "ON CONFLICT (game, player_id) DO UPDATE SET " APPEND("stage_match_ids") ", " APPEND("ats")
                         ", " APPEND("rating_before") ", " APPEND("rd_before") ", " APPEND("volatility_before") ", "
                         APPEND("rating") ", " APPEND("rd") ", " APPEND("volatility")
                         ", last_at = excluded.last_at, last_id = excluded.last_id"
                       : "INSERT INTO rating_history_openskill AS h (game, player_id, stage_match_ids, ats, mu_before, "
                         "  sigma_before, mu, sigma, last_at, last_id) "
                         "SELECT $1, i.*, i.ats[cardinality(i.ats)], i.stage_match_ids[cardinality(i.stage_match_ids)] "
                         "FROM rating_os_in i "
                         "ON CONFLICT (game, player_id) DO UPDATE SET " APPEND("stage_match_ids") ", " APPEND("ats")
                         ", " APPEND("mu_before") ", " APPEND("sigma_before") ", " APPEND("mu") ", " APPEND("sigma")
                         ", last_at = excluded.last_at, last_id = excluded.last_id",
                    1, p);
        if (r >= 0)
                r = command(c, "clearing the scratch table", g2 ? "DELETE FROM rating_g2_in" : "DELETE FROM rating_os_in",
                            0, NULL);
        return r;
}

int store_ratings_history_append(struct store_ratings *c, const char *game, const struct store_player_history *h,
                                 size_t n, bool fresh) {
        int r = append_system(c, game, h, n, fresh, false);

        return r < 0 ? r : append_system(c, game, h, n, fresh, true);
}

int store_ratings_table_done(struct store_ratings *c, const struct store_rating_table *t, const char *params,
                             const struct store_rating_key *through, int64_t results) {
        char id_s[24], at_s[24], mid_s[24], n_s[24];
        const char *p[] = { id_s, params, through ? at_s : NULL, through ? mid_s : NULL, n_s };

        snprintf(id_s, sizeof id_s, "%" PRId64, t->id);
        snprintf(at_s, sizeof at_s, "%" PRId64, through ? through->at_us : 0);
        snprintf(mid_s, sizeof mid_s, "%" PRId64, through ? through->id : 0);
        snprintf(n_s, sizeof n_s, "%" PRId64, results);
        return command(c, "recording the table",
                       "UPDATE rating_tables SET params = $2, through_at = CASE WHEN $3::bigint IS NULL THEN NULL "
                       "  ELSE " AT("$3") " END, through_id = $4::bigint, results = $5::bigint, ready = true, "
                       "  computed_at = now() WHERE id = $1::bigint",
                       5, p);
}
