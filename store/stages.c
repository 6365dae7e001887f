/* store/stages.c — the stages' SQL.  See stages.h; the snapshot's rows
 * are in stage_rows.h's layout. */
#include "store/stages.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows.h"
#include "store/stage_rows.h"

static const char *const stage_states[] = {
        [STORE_STAGE_PENDING] = "pending",
        [STORE_STAGE_RUNNING] = "running",
        [STORE_STAGE_FINISHED] = "finished",
};

const char *store_stage_state_name(enum store_stage_state state) {
        if ((unsigned) state >= sizeof stage_states / sizeof stage_states[0])
                return NULL;
        return stage_states[state];
}

int stage_rows_stage_state(const char *name, enum store_stage_state *ret) {
        for (size_t i = 0; name && i < sizeof stage_states / sizeof stage_states[0]; i++)
                if (strcmp(name, stage_states[i]) == 0) {
                        *ret = (enum store_stage_state) i;
                        return 0;
                }
        return -EINVAL;
}

struct call {
        struct store *store;
        union {
                store_stages_fn stages;
                store_stage_candidates_fn candidates;
                store_stage_snapshot_fn snapshot;
        } cb;
        void *userdata;
};

static struct call *call_new(struct store *s, void *userdata) {
        struct call *c = calloc(1, sizeof *c);

        if (c)
                *c = (struct call) { .store = s, .userdata = userdata };
        return c;
}

static int send_call(struct call *c, const char *sql, int n, const char *const *p, store_result_fn fn) {
        int r = c ? store_query(c->store, sql, n, p, fn, c) : -ENOMEM;

        if (r < 0)
                free(c);
        return r;
}

static const struct store_error *out_of_memory(struct store_error *e) {
        *e = (struct store_error) { .failure = STORE_FAILURE_INTERNAL };
        return e;
}

/* ---- a tournament's stages ---------------------------------------------------- */

/* The rows of the tournament in CTE t and of its stages in CTE s: the
 * tournament first (kind 0), then its stages by number (kind 1).
 * standings: the expression of the standings column. */
#define STAGES_ROWS(standings) \
        "SELECT 0 AS kind, t.id, NULL::int AS number, t.game AS t1, t.state AS t2, NULL::int AS advance, " \
        "       NULL::text AS t3, NULL::text AS t4, NULL::text AS t5, t.competitive FROM t " \
        "UNION ALL " \
        "SELECT 1, s.id, s.number, s.format, s.config::text, s.advance, s.state, s.confirm::text, " standings ", " \
        "       NULL FROM s " \
        "ORDER BY 1, 3"

enum { SC_KIND, SC_ID, SC_NUMBER, SC_T1, SC_T2, SC_ADVANCE, SC_T3, SC_T4, SC_T5, SC_COMPETITIVE };

static void on_stages(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stages_row t = { 0 };
        struct store_stage_row *stages;
        struct store_error e;
        bool found = false;
        int n;

        if (!res) {
                c->cb.stages(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
                free(c);
                return;
        }
        n = PQntuples(res);
        stages = calloc((size_t) n + 1, sizeof *stages);
        if (!stages) {
                c->cb.stages(c->userdata, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
                free(c);
                return;
        }
        t.stages = stages;
        for (int i = 0; i < n; i++) {
                if (store_int(res, i, SC_KIND) == 0) {
                        found = true;
                        t.tournament = store_int64(res, i, SC_ID);
                        t.game = PQgetvalue(res, i, SC_T1);
                        t.state = PQgetvalue(res, i, SC_T2);
                        t.competitive = store_bool(res, i, SC_COMPETITIVE);
                        continue;
                }
                struct store_stage_row *s = &stages[t.n_stages++];
                *s = (struct store_stage_row) {
                        .id = store_int64(res, i, SC_ID),
                        .number = store_int(res, i, SC_NUMBER),
                        .format = PQgetvalue(res, i, SC_T1),
                        .config = PQgetvalue(res, i, SC_T2),
                        .advance = store_int(res, i, SC_ADVANCE),
                        .confirm = store_text(res, i, SC_T4),
                        .standings = store_text(res, i, SC_T5),
                };
                if (stage_rows_stage_state(PQgetvalue(res, i, SC_T3), &s->state) < 0)
                        s->state = STORE_STAGE_PENDING;
        }
        c->cb.stages(c->userdata, found ? &t : NULL, found, NULL, NULL);
        free(stages);
        free(c);
}

int store_stages_of(struct store *s, int64_t tournament, bool standings, store_stages_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.stages = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        const char *p[] = { t_s, standings ? "true" : "false" };
        return send_call(c,
                         "WITH t AS (SELECT id, game, state, competitive FROM tournaments WHERE id = $1), "
                         "     s AS (SELECT s.* FROM stages s JOIN t ON t.id = s.tournament_id) "
                         STAGES_ROWS("CASE WHEN $2::boolean THEN s.standings::text END"),
                         2, p, on_stages);
}

/* The tournament of the stage rows in CTE s. */
#define TOURNAMENT_OF_S \
        "t AS (SELECT id, game, state, competitive FROM tournaments WHERE id IN (SELECT tournament_id FROM s)) "

int store_stages_insert(struct store *s, int64_t tournament, const char *seen_state, bool competitive,
                        const struct store_stage_new *stage, store_stages_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT], advance_s[16];
        struct call *c;

        if (!seen_state || !stage || !stage->format || !stage->config || stage->advance < 0)
                return -EINVAL;
        if ((c = call_new(s, userdata)))
                c->cb.stages = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        snprintf(advance_s, sizeof advance_s, "%d", stage->advance);
        const char *p[] = { t_s, seen_state, competitive ? "true" : "false", stage->format, stage->config,
                            stage->advance ? advance_s : NULL, stage->confirm };
        /* the tournament's row is locked: two stages added at once take
         * their numbers one after the other */
        return send_call(c,
                         "WITH o AS (SELECT id FROM tournaments WHERE id = $1 AND state = $2 "
                         "           AND competitive = $3::boolean FOR UPDATE), "
                         "     s AS (INSERT INTO stages (tournament_id, number, format, config, advance, confirm) "
                         "           SELECT o.id, coalesce((SELECT max(number) FROM stages WHERE tournament_id = o.id), "
                         "                  0) + 1, $4, $5::jsonb, $6::int, $7::jsonb FROM o RETURNING *), "
                         TOURNAMENT_OF_S STAGES_ROWS("NULL::text"),
                         7, p, on_stages);
}

int store_stages_start(struct store *s, int64_t stage, const int64_t *entrants, size_t n, bool checked_in,
                       store_stages_fn cb, void *userdata) {
        char stage_s[STAGE_ROWS_INT64_TEXT], *ids;
        struct call *c;
        int r;

        if (n && !entrants)
                return -EINVAL;
        ids = stage_rows_int64_literal(entrants, n);
        if (!ids || !(c = call_new(s, userdata))) {
                free(ids);
                return -ENOMEM;
        }
        c->cb.stages = cb;
        snprintf(stage_s, sizeof stage_s, "%" PRId64, stage);
        const char *p[] = { stage_s, ids, checked_in ? "true" : "false" };
        r = send_call(c,
                      "WITH s AS (UPDATE stages s SET state = 'running', entrants = $2::bigint[] "
                      "           WHERE s.id = $1 AND s.state = 'pending' AND (NOT $3::boolean OR "
                      "             (SELECT coalesce(array_agg(r.player_id ORDER BY r.player_id), '{}') "
                      "              FROM registrations r WHERE r.tournament_id = s.tournament_id "
                      "              AND r.checked_in AND r.status = 'active') "
                      "             = (SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM unnest($2::bigint[]) x)) "
                      "           RETURNING s.*), "
                      TOURNAMENT_OF_S STAGES_ROWS("NULL::text"),
                      3, p, on_stages);
        free(ids);
        return r;
}

int store_stages_finish(struct store *s, int64_t stage, store_stages_fn cb, void *userdata) {
        char stage_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.stages = cb;
        snprintf(stage_s, sizeof stage_s, "%" PRId64, stage);
        const char *p[] = { stage_s };
        return send_call(c,
                         "WITH s AS (UPDATE stages SET state = 'finished' WHERE id = $1 AND state = 'running' "
                         "           RETURNING *), "
                         TOURNAMENT_OF_S STAGES_ROWS("NULL::text"),
                         1, p, on_stages);
}

int store_stages_set_standings(struct store *s, int64_t stage, const char *standings, store_stages_fn cb,
                               void *userdata) {
        char stage_s[STAGE_ROWS_INT64_TEXT];
        struct call *c;

        if (!standings)
                return -EINVAL;
        if ((c = call_new(s, userdata)))
                c->cb.stages = cb;
        snprintf(stage_s, sizeof stage_s, "%" PRId64, stage);
        const char *p[] = { stage_s, standings };
        return send_call(c,
                         "WITH s AS (UPDATE stages SET standings = $2::jsonb WHERE id = $1 RETURNING *), "
                         TOURNAMENT_OF_S STAGES_ROWS("NULL::text"),
                         2, p, on_stages);
}

/* ---- who may enter the first stage ---------------------------------------------- */

static void on_candidates(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stage_candidate *rows;
        struct store_error e;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb.candidates(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_stage_candidate) {
                        .player = store_int64(res, i, 0),
                        .seed = store_int(res, i, 1),
                        .rated = !PQgetisnull(res, i, 2),
                        .mu = PQgetisnull(res, i, 2) ? 0 : store_double(res, i, 2),
                        .sigma = PQgetisnull(res, i, 3) ? 0 : store_double(res, i, 3),
                };
        c->cb.candidates(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

int store_stages_candidates(struct store *s, int64_t tournament, store_stage_candidates_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.candidates = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        const char *p[] = { t_s };
        return send_call(c,
                         "SELECT r.player_id, r.seed, rt.mu, rt.sigma FROM registrations r "
                         "JOIN tournaments t ON t.id = r.tournament_id "
                         "LEFT JOIN ratings rt ON rt.game = t.game AND rt.player_id = r.player_id "
                         "WHERE r.tournament_id = $1 AND r.checked_in AND r.status = 'active' "
                         "ORDER BY r.registered_at, r.player_id",
                         1, p, on_candidates);
}

/* ---- the snapshot ------------------------------------------------------------ */

/* The snapshot of the stage in CTE s (one row of stages). */
#define SNAPSHOT_OF_S \
        "t AS (SELECT t.* FROM tournaments t JOIN s ON t.id = s.tournament_id), " \
        "st AS (SELECT id, number, tournament_id FROM s), " \
        "m AS (SELECT m.* FROM stage_matches m JOIN s ON m.stage_id = s.id) " \
        STAGE_ROW(0, "t.id", "t.seed", "s.id", "s.number", "s.advance", \
                  "(EXISTS (SELECT 1 FROM stages s2 WHERE s2.tournament_id = t.id AND s2.number > s.number " \
                  "         AND s2.state <> 'pending'))::int", \
                  "t.competitive::int", "NULL", "t.game", "t.state", "t.tables", "t.match_config", "s.format", \
                  "s.config", "s.state", "s.confirm", "NULL", "NULL") \
        "FROM t CROSS JOIN s " \
        "UNION ALL " \
        STAGE_ROW(1, "e.ord", "e.pid", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "p.name", \
                  "coalesce(r.status, 'active')", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "rt.mu", \
                  "rt.sigma") \
        "FROM t CROSS JOIN s CROSS JOIN LATERAL unnest(s.entrants) WITH ORDINALITY e(pid, ord) " \
        "JOIN players p ON p.id = e.pid " \
        "LEFT JOIN registrations r ON r.tournament_id = t.id AND r.player_id = e.pid " \
        "LEFT JOIN ratings rt ON rt.game = t.game AND rt.player_id = e.pid " \
        "UNION ALL " STAGE_MATCH_ROWS "UNION ALL " \
        STAGE_ROW(4, "b.round", "b.player_id", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "p.name", "NULL", \
                  "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL") \
        "FROM stage_byes b JOIN s ON b.stage_id = s.id JOIN players p ON p.id = b.player_id " \
        "ORDER BY kind, a, b"

static void on_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stage_snapshot snap = { 0 };
        struct store_stage_match_row *matches = NULL;
        struct store_stage_participant *seats = NULL;
        struct store_stage_entrant *entrants = NULL;
        struct store_stage_bye *byes = NULL;
        int64_t *tables = NULL;
        struct store_error e;
        bool found = false;
        int n;

        if (!res) {
                c->cb.snapshot(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
                free(c);
                return;
        }
        n = PQntuples(res);
        entrants = calloc((size_t) n + 1, sizeof *entrants);
        if (!entrants || stage_rows_matches(res, &matches, &snap.n_matches, &seats) < 0 ||
            stage_rows_byes(res, &byes, &snap.n_byes) < 0)
                goto oom;
        for (int i = 0; i < n; i++) {
                switch (store_int(res, i, COL_KIND)) {
                case STAGE_ROW_HEADER:
                        found = true;
                        snap.tournament = store_int64(res, i, COL_A);
                        snap.seed = store_int64(res, i, COL_B);
                        snap.next_started = store_int(res, i, COL_F) != 0;
                        snap.competitive = store_int(res, i, COL_G) != 0;
                        snap.game = PQgetvalue(res, i, COL_T1);
                        snap.tournament_state = PQgetvalue(res, i, COL_T2);
                        snap.match_config = PQgetvalue(res, i, COL_T4);
                        snap.stage = (struct store_stage_row) {
                                .id = store_int64(res, i, COL_C),
                                .number = store_int(res, i, COL_D),
                                .advance = store_int(res, i, COL_E),
                                .format = PQgetvalue(res, i, COL_T5),
                                .config = PQgetvalue(res, i, COL_T6),
                                .confirm = store_text(res, i, COL_T8),
                        };
                        if (stage_rows_stage_state(PQgetvalue(res, i, COL_T7), &snap.stage.state) < 0)
                                snap.stage.state = STORE_STAGE_PENDING;
                        if (stage_rows_int64_array(PQgetvalue(res, i, COL_T3), &tables, &snap.n_tables) == -ENOMEM)
                                goto oom;
                        break;
                case STAGE_ROW_ENTRANT:
                        entrants[snap.n_entrants++] = (struct store_stage_entrant) {
                                .player = store_int64(res, i, COL_B),
                                .name = PQgetvalue(res, i, COL_T1),
                                .status = PQgetvalue(res, i, COL_T2),
                                .rated = !PQgetisnull(res, i, COL_X1),
                                .mu = PQgetisnull(res, i, COL_X1) ? 0 : store_double(res, i, COL_X1),
                                .sigma = PQgetisnull(res, i, COL_X2) ? 0 : store_double(res, i, COL_X2),
                        };
                        break;
                }
        }
        snap.tables = tables;
        snap.entrants = entrants;
        snap.matches = matches;
        snap.byes = byes;
        c->cb.snapshot(c->userdata, found ? &snap : NULL, found, NULL, NULL);
        goto out;
oom:
        c->cb.snapshot(c->userdata, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
out:
        free(tables);
        free(entrants);
        free(matches);
        free(seats);
        free(byes);
        free(c);
}

int store_stages_snapshot(struct store *s, int64_t tournament, int number, store_stage_snapshot_fn cb,
                          void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT], number_s[16];
        struct call *c;

        if (number < 1)
                return -EINVAL;
        if ((c = call_new(s, userdata)))
                c->cb.snapshot = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        snprintf(number_s, sizeof number_s, "%d", number);
        const char *p[] = { t_s, number_s };
        return send_call(c,
                         "WITH s AS (SELECT * FROM stages WHERE tournament_id = $1 AND number = $2::int), "
                         SNAPSHOT_OF_S,
                         2, p, on_snapshot);
}

int store_stages_snapshot_of_match(struct store *s, int64_t tournament, int64_t stage_match,
                                   store_stage_snapshot_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT], m_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.snapshot = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        snprintf(m_s, sizeof m_s, "%" PRId64, stage_match);
        const char *p[] = { t_s, m_s };
        return send_call(c,
                         "WITH s AS (SELECT * FROM stages WHERE tournament_id = $1 "
                         "           AND id = (SELECT stage_id FROM stage_matches WHERE id = $2)), "
                         SNAPSHOT_OF_S,
                         2, p, on_snapshot);
}
