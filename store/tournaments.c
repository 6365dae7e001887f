/* store/tournaments.c — the tournaments' SQL.  See tournaments.h.
 *
 * A tournament comes back as rows of three kinds in one result, so that
 * one statement reads (or writes and returns) it whole: its own row (kind
 * 0), one row per secret (kind 1) and one per stage (kind 2), ordered by
 * tournament, kind, then epoch or stage number.  on_rows() folds them into
 * the rows of tournaments.h.  Every kind has the same columns (bigint a..e,
 * text t1..t7), NULL where it has nothing:
 *
 *   kind        a       b              c           d        e            t1..t7
 *   TOURNAMENT  seed    registrations  checked_in           competitive  name, game, state, match_config,
 *                                                                        tables, created_by, created_at
 *   SECRET      epoch                                                    commitment, secret
 *   STAGE       number  entrants       rounds      advance  id           format, config, state, confirm
 */
#include "store/tournaments.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows.h"

enum { KIND_TOURNAMENT, KIND_SECRET, KIND_STAGE, N_KINDS };
enum { COL_KIND, COL_TID, COL_A, COL_B, COL_C, COL_D, COL_E, COL_T1, COL_T2, COL_T3, COL_T4, COL_T5, COL_T6, COL_T7 };

/* The rows of the tournaments in CTE t (columns of tournaments). */
#define TOURNAMENT_ROWS \
        "SELECT 0 AS kind, t.id AS tid, t.seed AS a, " \
        "       (SELECT count(*) FROM registrations r WHERE r.tournament_id = t.id) AS b, " \
        "       (SELECT count(*) FROM registrations r WHERE r.tournament_id = t.id " \
        "        AND r.checked_in AND r.status = 'active') AS c, " \
        "       NULL::bigint AS d, t.competitive::int::bigint AS e, " \
        "       t.name AS t1, t.game AS t2, t.state AS t3, t.match_config::text AS t4, t.tables::text AS t5, " \
        "       t.created_by AS t6, " STORE_TIME("t.created_at") " AS t7 FROM t " \
        "UNION ALL SELECT 1, t.id, sec.n, NULL, NULL, NULL, NULL, encode(sha256(sec.s), 'hex'), " \
        "       encode(sec.s, 'hex'), NULL, NULL, NULL, NULL, NULL " \
        "FROM t, unnest(t.secrets) WITH ORDINALITY sec(s, n) " \
        "UNION ALL SELECT 2, t.id, s.number, coalesce(cardinality(s.entrants), 0), " \
        "       (SELECT coalesce(max(m.round), 0) FROM stage_matches m WHERE m.stage_id = s.id), s.advance, s.id, " \
        "       s.format, s.config::text, s.state, s.confirm::text, NULL, NULL, NULL " \
        "FROM t JOIN stages s ON s.tournament_id = t.id " \
        "ORDER BY 2, 1, 3"

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

/* The elements of a bigint[] as PostgreSQL prints it: "{}", "{3,1,2}". */
static size_t array_count(const char *text) {
        size_t n = 0;

        if (!text || strcmp(text, "{}") == 0)
                return 0;
        for (n = 1; *text; text++)
                n += *text == ',';
        return n;
}

static size_t array_read(const char *text, int64_t *out) {
        size_t n = 0;
        char *end;

        if (!text || strcmp(text, "{}") == 0)
                return 0;
        for (const char *p = text + 1; *p && *p != '}'; p = *end == ',' ? end + 1 : end) {
                out[n++] = strtoll(p, &end, 10);
                if (end == p)
                        break;
        }
        return n;
}

struct call {
        struct store *store;
        store_tournaments_fn cb;
        void *userdata;
};

static void fail_oom(struct call *c) {
        struct store_error e = { .failure = STORE_FAILURE_INTERNAL };

        c->cb(c->userdata, NULL, 0, &e, STORE_OUT_OF_MEMORY);
}

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_tournament_row *rows = NULL, *t = NULL;
        struct store_tournament_secret *secrets = NULL;
        struct store_tournament_stage *stages = NULL;
        int64_t *tables = NULL;
        size_t counts[N_KINDS] = { 0 }, n_tables = 0, nt = 0, ns = 0, nst = 0, ntab = 0;
        struct store_error e;
        int n;

        if (!res) {
                c->cb(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
                free(c);
                return;
        }
        n = PQntuples(res);
        for (int i = 0; i < n; i++) {
                int kind = store_int(res, i, COL_KIND);
                if (kind >= 0 && kind < N_KINDS)
                        counts[kind]++;
                if (kind == KIND_TOURNAMENT)
                        n_tables += array_count(store_text(res, i, COL_T5));
        }
        rows = calloc(counts[KIND_TOURNAMENT] + 1, sizeof *rows);
        secrets = calloc(counts[KIND_SECRET] + 1, sizeof *secrets);
        stages = calloc(counts[KIND_STAGE] + 1, sizeof *stages);
        tables = calloc(n_tables + 1, sizeof *tables);
        if (!rows || !secrets || !stages || !tables) {
                fail_oom(c);
                goto out;
        }
        /* rows come tournament by tournament, its own row first */
        for (int i = 0; i < n; i++) {
                int kind = store_int(res, i, COL_KIND);

                if (kind == KIND_TOURNAMENT) {
                        t = &rows[nt++];
                        *t = (struct store_tournament_row) {
                                .id = store_int64(res, i, COL_TID),
                                .seed = store_int64(res, i, COL_A),
                                .registrations = store_int64(res, i, COL_B),
                                .checked_in = store_int64(res, i, COL_C),
                                .competitive = store_int64(res, i, COL_E) != 0,
                                .name = PQgetvalue(res, i, COL_T1),
                                .game = PQgetvalue(res, i, COL_T2),
                                .state = PQgetvalue(res, i, COL_T3),
                                .match_config = PQgetvalue(res, i, COL_T4),
                                .tables = &tables[ntab],
                                .created_by = PQgetvalue(res, i, COL_T6),
                                .created_at = PQgetvalue(res, i, COL_T7),
                                .secrets = &secrets[ns],
                                .stages = &stages[nst],
                        };
                        t->n_tables = array_read(store_text(res, i, COL_T5), &tables[ntab]);
                        ntab += t->n_tables;
                } else if (!t || t->id != store_int64(res, i, COL_TID)) {
                        continue;               /* cannot happen: ordered by tournament, then kind */
                } else if (kind == KIND_SECRET) {
                        secrets[ns++] = (struct store_tournament_secret) {
                                .epoch = store_int(res, i, COL_A),
                                .commitment = PQgetvalue(res, i, COL_T1),
                                .secret = PQgetvalue(res, i, COL_T2),
                        };
                        t->n_secrets++;
                } else if (kind == KIND_STAGE) {
                        stages[nst++] = (struct store_tournament_stage) {
                                .id = store_int64(res, i, COL_E),
                                .number = store_int(res, i, COL_A),
                                .entrants = store_int(res, i, COL_B),
                                .rounds = store_int(res, i, COL_C),
                                .advance = store_int(res, i, COL_D),
                                .format = PQgetvalue(res, i, COL_T1),
                                .config = PQgetvalue(res, i, COL_T2),
                                .state = PQgetvalue(res, i, COL_T3),
                                .confirm = store_text(res, i, COL_T4),
                        };
                        t->n_stages++;
                }
        }
        c->cb(c->userdata, rows, nt, NULL, NULL);
out:
        free(rows);
        free(secrets);
        free(stages);
        free(tables);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params, store_tournaments_fn cb,
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

int store_tournaments_list(struct store *s, int64_t after, int64_t limit, store_tournaments_fn cb, void *userdata) {
        char after_s[INT64_TEXT], limit_s[INT64_TEXT];

        if (limit < 0)
                return -EINVAL;
        snprintf(after_s, sizeof after_s, "%" PRId64, after);
        snprintf(limit_s, sizeof limit_s, "%" PRId64, limit);
        const char *p[] = { after_s, limit_s };
        return query(s, "WITH t AS (SELECT * FROM tournaments WHERE id > $1 ORDER BY id LIMIT $2) " TOURNAMENT_ROWS,
                     2, p, cb, userdata);
}

int store_tournaments_get(struct store *s, int64_t id, store_tournaments_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        return query(s, "WITH t AS (SELECT * FROM tournaments WHERE id = $1) " TOURNAMENT_ROWS, 1, p, cb, userdata);
}

int store_tournaments_insert(struct store *s, const struct store_tournament_new *t, store_tournaments_fn cb,
                             void *userdata) {
        char seed_s[INT64_TEXT], *tables;
        size_t k = 0, len;
        int r;

        if (t->seed < 0)
                return -EINVAL;
        /* the ids as a bigint[] literal: "{1,2}" */
        len = 3 + t->n_tables * INT64_TEXT;
        tables = malloc(len);
        if (!tables)
                return -ENOMEM;
        k += (size_t) snprintf(tables + k, len - k, "{");
        for (size_t i = 0; i < t->n_tables; i++) {
                if (t->tables[i] < 1) {
                        free(tables);
                        return -EINVAL;
                }
                k += (size_t) snprintf(tables + k, len - k, "%s%" PRId64, i ? "," : "", t->tables[i]);
        }
        snprintf(tables + k, len - k, "}");
        snprintf(seed_s, sizeof seed_s, "%" PRId64, t->seed);
        const char *p[] = { t->name, t->game, seed_s, t->match_config, tables, t->created_by,
                            t->competitive ? "true" : "false", t->secret };
        /* an array holds no foreign key: a table that does not exist leaves
         * the insert without a row */
        r = query(s,
                  "WITH t AS (INSERT INTO tournaments (name, game, seed, match_config, tables, created_by, "
                  "                                    competitive, secrets) "
                  "           SELECT $1, $2, $3::bigint, $4::jsonb, $5::bigint[], $6, $7::boolean, "
                  "                  ARRAY[decode($8, 'hex')] "
                  "           WHERE NOT EXISTS (SELECT 1 FROM unnest($5::bigint[]) x(id) "
                  "                             WHERE x.id NOT IN (SELECT id FROM tables)) "
                  "           RETURNING *) " TOURNAMENT_ROWS,
                  8, p, cb, userdata);
        free(tables);
        return r;
}

int store_tournaments_move(struct store *s, int64_t id, const char *from, const char *to, int epochs,
                           const char *secret, store_tournaments_fn cb, void *userdata) {
        char id_s[INT64_TEXT], epochs_s[INT64_TEXT];

        if (!from || !to || epochs < 1)
                return -EINVAL;
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        snprintf(epochs_s, sizeof epochs_s, "%d", epochs);
        const char *p[] = { id_s, to, from, secret, epochs_s };
        return query(s,
                     "WITH t AS (UPDATE tournaments SET state = $2, "
                     "             secrets = CASE WHEN $4::text IS NULL THEN secrets "
                     "                            ELSE secrets || decode($4, 'hex') END "
                     "           WHERE id = $1 AND state = $3 AND cardinality(secrets) = $5::int "
                     "           RETURNING *) " TOURNAMENT_ROWS,
                     5, p, cb, userdata);
}

/* ---- facts --------------------------------------------------------------------- */

struct facts_call {
        struct store *store;
        store_tournament_facts_fn cb;
        void *userdata;
};

static void on_facts(void *userdata, const PGresult *res, const char *error) {
        struct facts_call *c = userdata;
        struct store_tournament_facts f;
        struct store_error e;

        if (!res) {
                c->cb(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
        } else if (PQntuples(res) == 0) {
                c->cb(c->userdata, NULL, 0, NULL, NULL);
        } else {
                f = (struct store_tournament_facts) {
                        .id = store_int64(res, 0, 0),
                        .state = PQgetvalue(res, 0, 1),
                        .competitive = store_bool(res, 0, 2),
                        .seed = store_int64(res, 0, 3),
                        .epochs = store_int(res, 0, 4),
                        .registrations = store_int64(res, 0, 5),
                        .checked_in = store_int64(res, 0, 6),
                        .stages = store_int64(res, 0, 7),
                        .open_stages = store_int64(res, 0, 8),
                        .matches_made = store_int64(res, 0, 9),
                        .running_stage = store_int64(res, 0, 10),
                        .running_stage_number = store_int(res, 0, 11),
                        .running_format = store_text(res, 0, 12),
                };
                c->cb(c->userdata, &f, 1, NULL, NULL);
        }
        free(c);
}

int store_tournaments_facts(struct store *s, int64_t id, store_tournament_facts_fn cb, void *userdata) {
        struct facts_call *c = calloc(1, sizeof *c);
        char id_s[INT64_TEXT];
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct facts_call) { .store = s, .cb = cb, .userdata = userdata };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        r = store_query(s,
                        "SELECT t.id, t.state, t.competitive, t.seed, cardinality(t.secrets), "
                        "  (SELECT count(*) FROM registrations r WHERE r.tournament_id = t.id), "
                        "  (SELECT count(*) FROM registrations r WHERE r.tournament_id = t.id "
                        "   AND r.checked_in AND r.status = 'active'), "
                        "  (SELECT count(*) FROM stages s WHERE s.tournament_id = t.id), "
                        "  (SELECT count(*) FROM stages s WHERE s.tournament_id = t.id AND s.state <> 'finished'), "
                        "  (SELECT count(*) FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                        "   WHERE s.tournament_id = t.id), "
                        "  coalesce(cur.id, 0), coalesce(cur.number, 0), cur.format "
                        "FROM tournaments t "
                        "LEFT JOIN LATERAL (SELECT s.id, s.number, s.format FROM stages s "
                        "                   WHERE s.tournament_id = t.id AND s.state = 'running' "
                        "                   ORDER BY s.number DESC LIMIT 1) cur ON true "
                        "WHERE t.id = $1",
                        1, p, on_facts, c);
        if (r < 0)
                free(c);
        return r;
}

/* ---- calls (match_calls) ------------------------------------------------------------ */

struct calls_call {
        struct store *store;
        store_calls_fn cb;
        void *userdata;
};

static void on_calls(void *userdata, const PGresult *res, const char *error) {
        struct calls_call *c = userdata;
        struct store_call_row *rows;
        struct store_error e;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_call_row) {
                        .match_id = store_int64(res, i, 0),
                        .stage_match_id = store_int64(res, i, 1),
                        .attempt = store_int(res, i, 2),
                        .epoch = store_int(res, i, 3),
                        .called_at = PQgetvalue(res, i, 4),
                        .state = PQgetvalue(res, i, 5),
                        .has_seed = !PQgetisnull(res, i, 6),
                        .seed = store_int64(res, i, 6),
                };
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

int store_tournaments_calls(struct store *s, int64_t id, store_calls_fn cb, void *userdata) {
        struct calls_call *c = calloc(1, sizeof *c);
        char id_s[INT64_TEXT];
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct calls_call) { .store = s, .cb = cb, .userdata = userdata };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        /* the seed stays secret while the match can still be played, as the
         * match's own reads keep it (store/matches.c) */
        r = store_query(s,
                        "SELECT c.match_id, c.stage_match_id, c.attempt, c.epoch, " STORE_TIME("c.called_at") ", "
                        "       m.state, CASE WHEN m.state IN ('finished', 'aborted') THEN m.seed END "
                        "FROM match_calls c JOIN matches m ON m.id = c.match_id WHERE c.tournament_id = $1 "
                        "ORDER BY c.match_id",
                        1, p, on_calls, c);
        if (r < 0)
                free(c);
        return r;
}

struct next_call_call {
        struct store *store;
        store_next_call_fn cb;
        void *userdata;
};

static void on_next_call(void *userdata, const PGresult *res, const char *error) {
        struct next_call_call *c = userdata;
        struct store_next_call row;
        struct store_error e;

        if (!res) {
                c->cb(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
        } else if (PQntuples(res) == 0) {
                c->cb(c->userdata, NULL, 0, NULL, NULL);
        } else {
                row = (struct store_next_call) {
                        .secret = PQgetvalue(res, 0, 0),
                        .epoch = store_int(res, 0, 1),
                        .attempt = store_int(res, 0, 2),
                };
                c->cb(c->userdata, &row, 1, NULL, NULL);
        }
        free(c);
}

int store_tournaments_next_call(struct store *s, int64_t id, int64_t stage_match, store_next_call_fn cb,
                                void *userdata) {
        struct next_call_call *c = calloc(1, sizeof *c);
        char id_s[INT64_TEXT], match_s[INT64_TEXT];
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct next_call_call) { .store = s, .cb = cb, .userdata = userdata };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        snprintf(match_s, sizeof match_s, "%" PRId64, stage_match);
        const char *p[] = { id_s, match_s };
        r = store_query(s,
                        "SELECT encode(t.secrets[cardinality(t.secrets)], 'hex'), cardinality(t.secrets), "
                        "       (SELECT coalesce(max(c.attempt), 0) + 1 FROM match_calls c "
                        "        WHERE c.stage_match_id = $2) "
                        "FROM tournaments t WHERE t.id = $1",
                        2, p, on_next_call, c);
        if (r < 0)
                free(c);
        return r;
}
