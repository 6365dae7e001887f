/* store/registrations.c — the registrations' SQL.  See registrations.h. */
#include "store/registrations.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/rows.h"

/* The columns of a registration r with its player p, in struct
 * store_registration_row's order. */
#define REGISTRATION_COLUMNS(r, p) \
        r ".player_id, " p ".name, " p ".club, " r ".seed, " r ".checked_in, " r ".status, " r ".late, " \
        STORE_TIME(r ".registered_at")

/* The tournament $1 locked and still in state $s (CTE t), and ok, its one
 * row when its running stage is still $stage: what every write checks
 * first.  Locking the tournament orders the writes of one tournament, as
 * its moves are (store/tournaments.h). */
#define EXPECT_CTES(s, stage) \
        "t AS (SELECT id FROM tournaments WHERE id = $1 AND state = " s " FOR UPDATE), " \
        "ok AS (SELECT t.id FROM t WHERE coalesce((SELECT s.id FROM stages s WHERE s.tournament_id = t.id " \
        "        AND s.state = 'running' ORDER BY s.number DESC LIMIT 1), 0) = " stage "::bigint) "

/* Appends the player of the registration in CTE `reg` to stage $stage when
 * $join is true (and he is not in it yet). */
#define JOIN_STAGE_CTE(reg, stage, join) \
        "st AS (UPDATE stages s SET entrants = array_append(s.entrants, " reg ".player_id) FROM " reg " " \
        "       WHERE " join "::boolean AND s.id = " stage "::bigint " \
        "         AND NOT (" reg ".player_id = ANY (coalesce(s.entrants, '{}'))) RETURNING s.id) "

/* Room for an int64_t in decimal, sign and NUL included. */
#define INT64_TEXT 24

struct call {
        struct store *store;
        store_registrations_fn cb;
        void *userdata;
};

static void on_rows(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_registration_row *rows;
        struct store_error e;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++)
                rows[i] = (struct store_registration_row) {
                        .player_id = store_int64(res, i, 0),
                        .name = PQgetvalue(res, i, 1),
                        .club = store_text(res, i, 2),
                        .seed = store_int(res, i, 3),
                        .checked_in = store_bool(res, i, 4),
                        .status = PQgetvalue(res, i, 5),
                        .late = store_bool(res, i, 6),
                        .registered_at = PQgetvalue(res, i, 7),
                };
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

static int query(struct store *s, const char *sql, int n_params, const char *const *params,
                 store_registrations_fn cb, void *userdata) {
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

int store_registrations_list(struct store *s, int64_t tournament, store_registrations_fn cb, void *userdata) {
        char id_s[INT64_TEXT];

        snprintf(id_s, sizeof id_s, "%" PRId64, tournament);
        const char *p[] = { id_s };
        return query(s,
                     "SELECT " REGISTRATION_COLUMNS("r", "p") " FROM registrations r JOIN players p ON p.id = r.player_id "
                     "WHERE r.tournament_id = $1 ORDER BY r.seed NULLS LAST, r.registered_at, r.player_id",
                     1, p, cb, userdata);
}

/* ---- facts --------------------------------------------------------------------- */

struct facts_call {
        struct store *store;
        store_registration_facts_fn cb;
        void *userdata;
};

static void on_facts(void *userdata, const PGresult *res, const char *error) {
        struct facts_call *c = userdata;
        struct store_registration_facts f;
        struct store_error e;

        if (!res) {
                c->cb(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
        } else if (PQntuples(res) == 0) {
                c->cb(c->userdata, NULL, 0, NULL, NULL);
        } else {
                f = (struct store_registration_facts) {
                        .state = PQgetvalue(res, 0, 0),
                        .running_stage = store_int64(res, 0, 1),
                        .running_format = store_text(res, 0, 2),
                        .player_exists = store_bool(res, 0, 3),
                        .player_active = store_bool(res, 0, 4),
                        .registered = store_bool(res, 0, 5),
                        .status = store_text(res, 0, 6),
                        .checked_in = store_bool(res, 0, 7),
                        .in_running_stage = store_bool(res, 0, 8),
                };
                c->cb(c->userdata, &f, 1, NULL, NULL);
        }
        free(c);
}

int store_registrations_facts(struct store *s, int64_t tournament, int64_t player, store_registration_facts_fn cb,
                              void *userdata) {
        struct facts_call *c = calloc(1, sizeof *c);
        char id_s[INT64_TEXT], player_s[INT64_TEXT];
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct facts_call) { .store = s, .cb = cb, .userdata = userdata };
        snprintf(id_s, sizeof id_s, "%" PRId64, tournament);
        snprintf(player_s, sizeof player_s, "%" PRId64, player);
        const char *p[] = { id_s, player_s };
        r = store_query(s,
                        "SELECT t.state, coalesce(cur.id, 0), cur.format, p.id IS NOT NULL, coalesce(p.active, false), "
                        "       r.player_id IS NOT NULL, r.status, coalesce(r.checked_in, false), "
                        "       coalesce($2::bigint = ANY (cur.entrants), false) "
                        "FROM tournaments t "
                        "LEFT JOIN LATERAL (SELECT s.id, s.format, s.entrants FROM stages s "
                        "                   WHERE s.tournament_id = t.id AND s.state = 'running' "
                        "                   ORDER BY s.number DESC LIMIT 1) cur ON true "
                        "LEFT JOIN players p ON p.id = $2::bigint "
                        "LEFT JOIN registrations r ON r.tournament_id = t.id AND r.player_id = $2::bigint "
                        "WHERE t.id = $1",
                        2, p, on_facts, c);
        if (r < 0)
                free(c);
        return r;
}

/* ---- writes ------------------------------------------------------------------- */

int store_registrations_insert(struct store *s, const struct store_registration_new *r,
                               const struct store_registration_expect *expect, store_registrations_fn cb,
                               void *userdata) {
        char id_s[INT64_TEXT], player_s[INT64_TEXT], seed_s[INT64_TEXT], stage_s[INT64_TEXT];

        if (r->seed < 0 || !expect->state || (r->join_stage && expect->running_stage < 1))
                return -EINVAL;
        snprintf(id_s, sizeof id_s, "%" PRId64, r->tournament);
        snprintf(player_s, sizeof player_s, "%" PRId64, r->player);
        snprintf(seed_s, sizeof seed_s, "%d", r->seed);
        snprintf(stage_s, sizeof stage_s, "%" PRId64, expect->running_stage);
        const char *p[] = { id_s, player_s, r->seed ? seed_s : NULL, r->checked_in ? "true" : "false",
                            r->late ? "true" : "false", r->who, expect->state, stage_s,
                            r->join_stage ? "true" : "false" };
        return query(s,
                     "WITH " EXPECT_CTES("$7", "$8") ", "
                     "ins AS (INSERT INTO registrations (tournament_id, player_id, seed, checked_in, late, changed_by) "
                     "        SELECT ok.id, $2::bigint, $3::int, $4::boolean, $5::boolean, $6 FROM ok "
                     "        WHERE EXISTS (SELECT 1 FROM players WHERE id = $2::bigint AND active) "
                     "        RETURNING *), "
                     JOIN_STAGE_CTE("ins", "$8", "$9")
                     "SELECT " REGISTRATION_COLUMNS("ins", "p") " FROM ins JOIN players p ON p.id = ins.player_id",
                     9, p, cb, userdata);
}

int store_registrations_check_in(struct store *s, int64_t tournament, int64_t player, bool was_checked_in,
                                 bool join_stage, const struct store_registration_expect *expect, const char *who,
                                 store_registrations_fn cb, void *userdata) {
        char id_s[INT64_TEXT], player_s[INT64_TEXT], stage_s[INT64_TEXT];

        if (!expect->state || (join_stage && expect->running_stage < 1))
                return -EINVAL;
        snprintf(id_s, sizeof id_s, "%" PRId64, tournament);
        snprintf(player_s, sizeof player_s, "%" PRId64, player);
        snprintf(stage_s, sizeof stage_s, "%" PRId64, expect->running_stage);
        const char *p[] = { id_s, player_s, expect->state, stage_s, was_checked_in ? "true" : "false",
                            join_stage ? "true" : "false", who };
        return query(s,
                     "WITH " EXPECT_CTES("$3", "$4") ", "
                     "up AS (UPDATE registrations r SET checked_in = true, late = r.late OR $6::boolean, changed_by = $7 "
                     "       FROM ok WHERE r.tournament_id = ok.id AND r.player_id = $2::bigint "
                     "         AND r.status = 'active' AND r.checked_in = $5::boolean RETURNING r.*), "
                     JOIN_STAGE_CTE("up", "$4", "$6")
                     "SELECT " REGISTRATION_COLUMNS("up", "p") " FROM up JOIN players p ON p.id = up.player_id",
                     7, p, cb, userdata);
}

int store_registrations_set_status(struct store *s, int64_t tournament, int64_t player, const char *status,
                                   const char *state, const char *who, store_registrations_fn cb, void *userdata) {
        char id_s[INT64_TEXT], player_s[INT64_TEXT];

        if (!status || !state)
                return -EINVAL;
        snprintf(id_s, sizeof id_s, "%" PRId64, tournament);
        snprintf(player_s, sizeof player_s, "%" PRId64, player);
        const char *p[] = { id_s, player_s, state, status, who };
        return query(s,
                     "WITH ok AS (SELECT id FROM tournaments WHERE id = $1 AND state = $3 FOR UPDATE), "
                     "up AS (UPDATE registrations r SET status = $4, changed_by = $5 "
                     "       FROM ok WHERE r.tournament_id = ok.id AND r.player_id = $2::bigint "
                     "         AND r.status = 'active' RETURNING r.*) "
                     "SELECT " REGISTRATION_COLUMNS("up", "p") " FROM up JOIN players p ON p.id = up.player_id",
                     5, p, cb, userdata);
}
