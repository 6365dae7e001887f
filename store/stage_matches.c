/* store/stage_matches.c — the stage matches' SQL.  See stage_matches.h;
 * the rows' layout is stage_rows.h's. */
#include "store/stage_matches.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows.h"
#include "store/stage_rows.h"

static const char *const match_states[] = {
        [STORE_MATCH_PENDING] = "pending",
        [STORE_MATCH_CALLED] = "called",
        [STORE_MATCH_DONE] = "done",
};

const char *store_match_state_name(enum store_match_state state) {
        if ((unsigned) state >= sizeof match_states / sizeof match_states[0])
                return NULL;
        return match_states[state];
}

int stage_rows_match_state(const char *name, enum store_match_state *ret) {
        for (size_t i = 0; name && i < sizeof match_states / sizeof match_states[0]; i++)
                if (strcmp(name, match_states[i]) == 0) {
                        *ret = (enum store_match_state) i;
                        return 0;
                }
        return -EINVAL;
}

/* ---- folding rows (stage_rows.h) -------------------------------------------- */

struct id_index {
        int64_t id;
        size_t index;
};

static int by_id(const void *a, const void *b) {
        const struct id_index *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

int stage_rows_matches(const PGresult *res, struct store_stage_match_row **ret_rows, size_t *ret_n,
                       struct store_stage_participant **ret_seats) {
        int n = PQntuples(res);
        size_t nm = 0, ns = 0, k;
        struct store_stage_match_row *rows;
        struct store_stage_participant *seats;
        struct id_index *index;
        size_t *fill;

        for (int i = 0; i < n; i++) {
                int kind = store_int(res, i, COL_KIND);
                nm += kind == STAGE_ROW_MATCH;
                ns += kind == STAGE_ROW_SEAT;
        }
        rows = calloc(nm + 1, sizeof *rows);
        seats = calloc(ns + 1, sizeof *seats);
        index = calloc(nm + 1, sizeof *index);
        fill = calloc(nm + 1, sizeof *fill);
        *ret_rows = rows;
        *ret_seats = seats;
        *ret_n = 0;
        if (!rows || !seats || !index || !fill) {
                free(index);
                free(fill);
                return -ENOMEM;
        }
        k = 0;
        for (int i = 0; i < n; i++) {
                if (store_int(res, i, COL_KIND) != STAGE_ROW_MATCH)
                        continue;
                struct store_stage_match_row *m = &rows[k];
                *m = (struct store_stage_match_row) {
                        .id = store_int64(res, i, COL_A),
                        .tournament = store_int64(res, i, COL_H),
                        .stage = store_int(res, i, COL_B),
                        .round = store_int(res, i, COL_C),
                        .table_no = store_int(res, i, COL_D),
                        .bracket_id = PQgetisnull(res, i, COL_E) ? -1 : store_int(res, i, COL_E),
                        .table = store_int64(res, i, COL_F),
                        .match = store_int64(res, i, COL_G),
                        .result = store_text(res, i, COL_T2),
                        .recorded_at = store_text(res, i, COL_T3),
                        .recorded_by = store_text(res, i, COL_T4),
                };
                if (stage_rows_match_state(store_text(res, i, COL_T1), &m->state) < 0)
                        m->state = STORE_MATCH_PENDING;
                index[k] = (struct id_index) { m->id, k };
                k++;
        }
        qsort(index, nm, sizeof *index, by_id);
        /* each match's players are one run of seats[], in seat order */
        for (int i = 0; i < n; i++) {
                struct id_index key = { store_int64(res, i, COL_A), 0 }, *hit;
                if (store_int(res, i, COL_KIND) == STAGE_ROW_SEAT &&
                    (hit = bsearch(&key, index, nm, sizeof *index, by_id)))
                        rows[hit->index].n_participants++;
        }
        for (size_t j = 0, at = 0; j < nm; j++) {
                rows[j].participants = &seats[at];
                fill[j] = at;
                at += rows[j].n_participants;
        }
        for (int i = 0; i < n; i++) {
                struct id_index key = { store_int64(res, i, COL_A), 0 }, *hit;
                if (store_int(res, i, COL_KIND) != STAGE_ROW_SEAT ||
                    !(hit = bsearch(&key, index, nm, sizeof *index, by_id)))
                        continue;
                struct store_stage_participant p = {
                        .seat = store_int(res, i, COL_B),
                        .player = store_int64(res, i, COL_C),
                        .name = PQgetvalue(res, i, COL_T1),
                };
                /* insertion keeps the run in seat order whatever the rows' order */
                size_t start = hit->index, lo = (size_t) (rows[start].participants - seats), at = fill[start]++;
                while (at > lo && seats[at - 1].seat > p.seat) {
                        seats[at] = seats[at - 1];
                        at--;
                }
                seats[at] = p;
        }
        free(index);
        free(fill);
        *ret_n = nm;
        return 0;
}

int stage_rows_byes(const PGresult *res, struct store_stage_bye **ret, size_t *ret_n) {
        int n = PQntuples(res);
        size_t nb = 0;

        for (int i = 0; i < n; i++)
                nb += store_int(res, i, COL_KIND) == STAGE_ROW_BYE;
        *ret = calloc(nb + 1, sizeof **ret);
        *ret_n = 0;
        if (!*ret)
                return -ENOMEM;
        for (int i = 0; i < n; i++)
                if (store_int(res, i, COL_KIND) == STAGE_ROW_BYE)
                        (*ret)[(*ret_n)++] = (struct store_stage_bye) {
                                .round = store_int(res, i, COL_A),
                                .player = store_int64(res, i, COL_B),
                                .name = store_text(res, i, COL_T1),
                        };
        return 0;
}

int stage_rows_int64_array(const char *text, int64_t **ret, size_t *ret_n) {
        size_t n = 0, len;
        const char *p;

        *ret = NULL;
        *ret_n = 0;
        if (!text || (len = strlen(text)) < 2 || text[0] != '{' || text[len - 1] != '}')
                return -EINVAL;
        for (p = text + 1; *p; p++)
                n += *p == ',';
        n += len > 2;
        *ret = calloc(n + 1, sizeof **ret);
        if (!*ret)
                return -ENOMEM;
        p = text + 1;
        for (size_t i = 0; i < n; i++) {
                char *end;
                (*ret)[i] = strtoll(p, &end, 10);
                if (end == p || (*end != ',' && *end != '}')) {
                        free(*ret);
                        *ret = NULL;
                        return -EINVAL;
                }
                p = end + 1;
        }
        *ret_n = n;
        return 0;
}

char *stage_rows_int64_literal(const int64_t *v, size_t n) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return NULL;
        fputc('{', f);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%" PRId64, i ? "," : "", v[i]);
        fputc('}', f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

/* ---- calls -------------------------------------------------------------------- */

/* A statement in flight and whom to tell. */
struct call {
        struct store *store;
        union {
                store_stage_matches_fn matches;
                store_stage_matches_of_fn matches_of;
                store_round_fn round;
                store_corrected_fn corrected;
                store_corrections_fn corrections;
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

/* Whether res has a HEADER row (the tournament a list is of exists). */
static bool has_header(const PGresult *res) {
        for (int i = 0; i < PQntuples(res); i++)
                if (store_int(res, i, COL_KIND) == STAGE_ROW_HEADER)
                        return true;
        return false;
}

static void on_matches(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stage_match_row *rows = NULL;
        struct store_stage_participant *seats = NULL;
        struct store_error e;
        size_t n;

        if (!res)
                c->cb.matches(c->userdata, NULL, 0, store_failure_of(c->store, &e), error);
        else if (stage_rows_matches(res, &rows, &n, &seats) < 0)
                c->cb.matches(c->userdata, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
        else
                c->cb.matches(c->userdata, rows, n, NULL, NULL);
        free(rows);
        free(seats);
        free(c);
}

static void on_matches_of(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stage_match_row *rows = NULL;
        struct store_stage_participant *seats = NULL;
        struct store_error e;
        size_t n;

        if (!res)
                c->cb.matches_of(c->userdata, false, NULL, 0, store_failure_of(c->store, &e), error);
        else if (!has_header(res))
                c->cb.matches_of(c->userdata, false, NULL, 0, NULL, NULL);
        else if (stage_rows_matches(res, &rows, &n, &seats) < 0)
                c->cb.matches_of(c->userdata, false, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
        else
                c->cb.matches_of(c->userdata, true, rows, n, NULL, NULL);
        free(rows);
        free(seats);
        free(c);
}

/* The stages of the matches in CTE m, for STAGE_MATCH_ROWS. */
#define STAGES_OF_M "st AS (SELECT id, number, tournament_id FROM stages WHERE id IN (SELECT stage_id FROM m)) "

int store_stage_matches_get(struct store *s, int64_t tournament, int64_t id, store_stage_matches_fn cb,
                            void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT], id_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.matches = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { tournament ? t_s : NULL, id_s };
        return send_call(c,
                    "WITH m AS (SELECT m.* FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                    "           WHERE m.id = $2 AND ($1::bigint IS NULL OR s.tournament_id = $1)), "
                    STAGES_OF_M STAGE_MATCH_ROWS,
                    2, p, on_matches);
}

/* The tournament $1 as a HEADER row, if it exists. */
#define TOURNAMENT_HEADER \
        STAGE_ROW(0, "t.id", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", \
                  "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL") \
        "FROM tournaments t WHERE t.id = $1 "

int store_stage_matches_list(struct store *s, int64_t tournament, int stage, int round,
                             const enum store_match_state *state, store_stage_matches_of_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT], stage_s[16], round_s[16];
        struct call *c;

        if (stage < 0 || round < 0 || (state && !store_match_state_name(*state)))
                return -EINVAL;
        if ((c = call_new(s, userdata)))
                c->cb.matches_of = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        snprintf(stage_s, sizeof stage_s, "%d", stage);
        snprintf(round_s, sizeof round_s, "%d", round);
        const char *p[] = { t_s, stage ? stage_s : NULL, round ? round_s : NULL,
                            state ? store_match_state_name(*state) : NULL };
        return send_call(c,
                    "WITH st AS (SELECT id, number, tournament_id FROM stages WHERE tournament_id = $1 "
                    "            AND ($2::int IS NULL OR number = $2::int)), "
                    "     m AS (SELECT m.* FROM stage_matches m JOIN st ON st.id = m.stage_id "
                    "           WHERE ($3::int IS NULL OR m.round = $3::int) AND ($4::text IS NULL OR m.state = $4)) "
                    TOURNAMENT_HEADER "UNION ALL " STAGE_MATCH_ROWS "ORDER BY kind, b, c, d, a",
                    4, p, on_matches_of);
}

int store_stage_matches_queue(struct store *s, int64_t tournament, store_stage_matches_of_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.matches_of = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        const char *p[] = { t_s };
        return send_call(c,
                    "WITH st AS (SELECT id, number, tournament_id FROM stages WHERE tournament_id = $1), "
                    "     m AS (SELECT m.* FROM stage_matches m JOIN st ON st.id = m.stage_id "
                    "           WHERE m.state <> 'done') "
                    TOURNAMENT_HEADER "UNION ALL " STAGE_MATCH_ROWS "ORDER BY kind, f NULLS LAST, b, c, d, a",
                    1, p, on_matches_of);
}

/* ---- a round ------------------------------------------------------------------ */

static void on_round(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stage_match_row *rows = NULL;
        struct store_stage_participant *seats = NULL;
        struct store_stage_bye *byes = NULL;
        struct store_error e;
        size_t n, nb;

        if (!res)
                c->cb.round(c->userdata, NULL, 0, NULL, 0, store_failure_of(c->store, &e), error);
        else if (stage_rows_matches(res, &rows, &n, &seats) < 0 || stage_rows_byes(res, &byes, &nb) < 0)
                c->cb.round(c->userdata, NULL, 0, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
        else
                c->cb.round(c->userdata, rows, n, byes, nb, NULL, NULL);
        free(rows);
        free(seats);
        free(byes);
        free(c);
}

/* Arrays of the round's columns as PostgreSQL array literals. */
struct literal {
        FILE *f;
        char *text;
        size_t len, n;
};

static int literal_open(struct literal *l) {
        *l = (struct literal) { 0 };
        l->f = open_memstream(&l->text, &l->len);
        if (!l->f)
                return -ENOMEM;
        fputc('{', l->f);
        return 0;
}

/* An element, or NULL when null. */
static void literal_int(struct literal *l, int64_t v, bool null) {
        fputs(l->n++ ? "," : "", l->f);
        if (null)
                fputs("NULL", l->f);
        else
                fprintf(l->f, "%" PRId64, v);
}

/* A bigint[] as one quoted element of a text[]: "{1,2,3}". */
static void literal_ids(struct literal *l, const int64_t *v, size_t n) {
        fputs(l->n++ ? ",\"{" : "\"{", l->f);
        for (size_t i = 0; i < n; i++)
                fprintf(l->f, "%s%" PRId64, i ? "," : "", v[i]);
        fputs("}\"", l->f);
}

static int literal_close(struct literal *l) {
        fputc('}', l->f);
        if (fclose(l->f) != 0 || !l->text) {
                free(l->text);
                l->text = NULL;
                return -ENOMEM;
        }
        return 0;
}

enum { LIT_ROUND, LIT_TABLE_NO, LIT_BRACKET, LIT_PARTICIPANTS, LIT_TABLE, LIT_BYE_ROUND, LIT_BYE_PLAYER, LIT_N };

int store_stage_matches_insert_round(struct store *s, int64_t stage, const struct store_new_stage_match *matches,
                                     size_t n, const struct store_new_bye *byes, size_t n_byes, store_round_fn cb,
                                     void *userdata) {
        struct literal l[LIT_N];
        char stage_s[STAGE_ROWS_INT64_TEXT];
        int r = 0, opened = 0;
        struct call *c;

        for (size_t i = 0; i < n; i++)
                if (matches[i].round < 1 || matches[i].table_no < 1 || matches[i].n_participants < 1)
                        return -EINVAL;
        for (; opened < LIT_N; opened++)
                if ((r = literal_open(&l[opened])) < 0)
                        break;
        if (r == 0) {
                for (size_t i = 0; i < n; i++) {
                        literal_int(&l[LIT_ROUND], matches[i].round, false);
                        literal_int(&l[LIT_TABLE_NO], matches[i].table_no, false);
                        literal_int(&l[LIT_BRACKET], matches[i].bracket_id, matches[i].bracket_id < 0);
                        literal_ids(&l[LIT_PARTICIPANTS], matches[i].participants, matches[i].n_participants);
                        literal_int(&l[LIT_TABLE], matches[i].table, matches[i].table == 0);
                }
                for (size_t i = 0; i < n_byes; i++) {
                        literal_int(&l[LIT_BYE_ROUND], byes[i].round, false);
                        literal_int(&l[LIT_BYE_PLAYER], byes[i].player, false);
                }
        }
        for (int i = 0; i < opened; i++)
                if (literal_close(&l[i]) < 0)
                        r = -ENOMEM;
        if (r == 0 && (c = call_new(s, userdata))) {
                c->cb.round = cb;
                snprintf(stage_s, sizeof stage_s, "%" PRId64, stage);
                const char *p[] = { stage_s, l[LIT_ROUND].text, l[LIT_TABLE_NO].text, l[LIT_BRACKET].text,
                                    l[LIT_PARTICIPANTS].text, l[LIT_TABLE].text, l[LIT_BYE_ROUND].text,
                                    l[LIT_BYE_PLAYER].text };
                /* the byes come back in the order given, from the input:
                 * every one is inserted or the statement fails */
                r = send_call(c,
                         "WITH st AS (SELECT id, number, tournament_id FROM stages WHERE id = $1), "
                         "     m AS (INSERT INTO stage_matches (stage_id, round, table_no, bracket_id, participants, "
                         "                                      table_id) "
                         "           SELECT st.id, x.round, x.table_no, x.bracket_id, x.participants::bigint[], "
                         "                  x.table_id "
                         "           FROM st, unnest($2::int[], $3::int[], $4::int[], $5::text[], $6::bigint[]) "
                         "                AS x(round, table_no, bracket_id, participants, table_id) "
                         "           RETURNING *), "
                         "     b AS (INSERT INTO stage_byes (stage_id, round, player_id) "
                         "           SELECT st.id, x.round, x.player FROM st, unnest($7::int[], $8::bigint[]) "
                         "                AS x(round, player) RETURNING stage_id) "
                         STAGE_MATCH_ROWS "UNION ALL "
                         STAGE_ROW(4, "x.round", "x.player", "x.ord", "NULL", "NULL", "NULL", "NULL", "NULL", "p.name",
                                   "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL")
                         "FROM st, unnest($7::int[], $8::bigint[]) WITH ORDINALITY AS x(round, player, ord) "
                         "JOIN players p ON p.id = x.player "
                         "ORDER BY kind, d, c, a",
                         8, p, on_round);
        } else if (r == 0) {
                r = -ENOMEM;
        }
        for (int i = 0; i < opened; i++)
                free(l[i].text);
        return r;
}

/* ---- calls to a table ------------------------------------------------------------ */

int store_stage_matches_call(struct store *s, int64_t id, int64_t runtime_match, int64_t table,
                             int64_t tournament, int attempt, int epoch, store_stage_matches_fn cb,
                             void *userdata) {
        char id_s[STAGE_ROWS_INT64_TEXT], match_s[STAGE_ROWS_INT64_TEXT], table_s[STAGE_ROWS_INT64_TEXT],
                t_s[STAGE_ROWS_INT64_TEXT], attempt_s[16], epoch_s[16];
        struct call *c;

        if (runtime_match < 1 || table < 0 || attempt < 1 || epoch < 1)
                return -EINVAL;
        if ((c = call_new(s, userdata)))
                c->cb.matches = cb;
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        snprintf(match_s, sizeof match_s, "%" PRId64, runtime_match);
        snprintf(table_s, sizeof table_s, "%" PRId64, table);
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        snprintf(attempt_s, sizeof attempt_s, "%d", attempt);
        snprintf(epoch_s, sizeof epoch_s, "%d", epoch);
        const char *p[] = { id_s, match_s, table ? table_s : NULL, t_s, attempt_s, epoch_s };
        /* the call goes on record with the identity its seed came from */
        return send_call(c,
                    "WITH m AS (UPDATE stage_matches SET match_id = $2::bigint, "
                    "             table_id = coalesce($3::bigint, table_id), state = 'called' "
                    "           WHERE id = $1 AND state = 'pending' RETURNING *), "
                    "     c AS (INSERT INTO match_calls (match_id, tournament_id, stage_match_id, attempt, epoch) "
                    "           SELECT $2::bigint, $4::bigint, m.id, $5::int, $6::int FROM m), "
                    STAGES_OF_M STAGE_MATCH_ROWS,
                    6, p, on_matches);
}

/* ---- results ------------------------------------------------------------------- */

int store_stage_matches_record(struct store *s, int64_t id, enum store_match_state seen, const char *result,
                               const char *who, store_stage_matches_fn cb, void *userdata) {
        char id_s[STAGE_ROWS_INT64_TEXT];
        struct call *c;

        if (!store_match_state_name(seen) || !result || !who)
                return -EINVAL;
        if ((c = call_new(s, userdata)))
                c->cb.matches = cb;
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s, store_match_state_name(seen), result, who };
        return send_call(c,
                    "WITH m AS (UPDATE stage_matches SET result = $3::jsonb, state = 'done', recorded_at = now(), "
                    "             recorded_by = $4 WHERE id = $1 AND state = $2 RETURNING *), "
                    STAGES_OF_M STAGE_MATCH_ROWS,
                    4, p, on_matches);
}

static void on_corrected(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_stage_match_row *rows = NULL;
        struct store_stage_participant *seats = NULL;
        struct store_error e;
        int64_t correction = 0;
        size_t n;

        if (!res) {
                c->cb.corrected(c->userdata, NULL, 0, 0, store_failure_of(c->store, &e), error);
        } else if (stage_rows_matches(res, &rows, &n, &seats) < 0) {
                c->cb.corrected(c->userdata, NULL, 0, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
        } else {
                for (int i = 0; i < PQntuples(res); i++)
                        if (store_int(res, i, COL_KIND) == STAGE_ROW_HEADER)
                                correction = store_int64(res, i, COL_A);
                c->cb.corrected(c->userdata, rows, n, correction, NULL, NULL);
        }
        free(rows);
        free(seats);
        free(c);
}

int store_stage_matches_correct(struct store *s, const struct store_correction_new *k, store_corrected_fn cb,
                                void *userdata) {
        char id_s[STAGE_ROWS_INT64_TEXT], stage_s[STAGE_ROWS_INT64_TEXT], byes_s[16], *deleted;
        struct call *c;
        int r;

        if (!k->after || !k->reason || !k->who || (k->n_deleted && !k->deleted))
                return -EINVAL;
        deleted = stage_rows_int64_literal(k->deleted, k->n_deleted);
        if (!deleted || !(c = call_new(s, userdata))) {
                free(deleted);
                return -ENOMEM;
        }
        c->cb.corrected = cb;
        snprintf(id_s, sizeof id_s, "%" PRId64, k->match);
        snprintf(stage_s, sizeof stage_s, "%" PRId64, k->stage);
        snprintf(byes_s, sizeof byes_s, "%d", k->byes_after);
        const char *p[] = { id_s, k->after, k->reason, deleted, k->who, stage_s, k->byes_after >= 0 ? byes_s : NULL,
                            k->reopen ? "true" : "false" };
        r = send_call(c,
                 "WITH c AS (INSERT INTO corrections (stage_match_id, tournament_id, before, after, reason, reset, who) "
                 "           SELECT m.id, s.tournament_id, m.result, $2::jsonb, $3, $4::bigint[], $5 "
                 "           FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                 "           WHERE m.id = $1 AND m.stage_id = $6 AND m.state = 'done' RETURNING id), "
                 "     d AS (DELETE FROM stage_matches WHERE id = ANY ($4::bigint[]) AND EXISTS (SELECT 1 FROM c) "
                 "           RETURNING id), "
                 "     b AS (DELETE FROM stage_byes WHERE stage_id = $6 AND $7::int IS NOT NULL AND round > $7::int "
                 "           AND EXISTS (SELECT 1 FROM c) RETURNING round), "
                 "     sr AS (UPDATE stages SET state = 'running' WHERE id = $6 AND state = 'finished' "
                 "            AND $8::boolean AND EXISTS (SELECT 1 FROM c) RETURNING id), "
                 "     m AS (UPDATE stage_matches SET result = $2::jsonb "
                 "           WHERE id = $1 AND EXISTS (SELECT 1 FROM c) RETURNING *), "
                 STAGES_OF_M STAGE_MATCH_ROWS "UNION ALL "
                 STAGE_ROW(0, "c.id", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
                           "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL")
                 "FROM c",
                 8, p, on_corrected);
        free(deleted);
        return r;
}

enum { CORR_KIND, CORR_ID, CORR_MATCH, CORR_BEFORE, CORR_AFTER, CORR_REASON, CORR_RESET, CORR_WHO, CORR_AT };

static void on_corrections(void *userdata, const PGresult *res, const char *error) {
        struct call *c = userdata;
        struct store_correction_row *rows = NULL;
        int64_t **resets = NULL;
        struct store_error e;
        size_t n = 0;
        int nr;

        if (!res) {
                c->cb.corrections(c->userdata, false, NULL, 0, store_failure_of(c->store, &e), error);
                free(c);
                return;
        }
        nr = PQntuples(res);
        rows = calloc((size_t) nr + 1, sizeof *rows);
        resets = calloc((size_t) nr + 1, sizeof *resets);
        if (!rows || !resets) {
                c->cb.corrections(c->userdata, false, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
                goto out;
        }
        for (int i = 0; i < nr; i++) {
                if (store_int(res, i, CORR_KIND) != 1)
                        continue;
                struct store_correction_row *k = &rows[n];
                *k = (struct store_correction_row) {
                        .id = store_int64(res, i, CORR_ID),
                        .match = store_int64(res, i, CORR_MATCH),
                        .before = store_text(res, i, CORR_BEFORE),
                        .after = PQgetvalue(res, i, CORR_AFTER),
                        .reason = PQgetvalue(res, i, CORR_REASON),
                        .who = PQgetvalue(res, i, CORR_WHO),
                        .at = PQgetvalue(res, i, CORR_AT),
                };
                if (stage_rows_int64_array(PQgetvalue(res, i, CORR_RESET), &resets[n], &k->n_reset) == -ENOMEM) {
                        c->cb.corrections(c->userdata, false, NULL, 0, out_of_memory(&e), STORE_OUT_OF_MEMORY);
                        goto out;
                }
                k->reset = resets[n++];
        }
        c->cb.corrections(c->userdata, nr > 0, rows, n, NULL, NULL);
out:
        for (size_t i = 0; resets && i < (size_t) nr; i++)
                free(resets[i]);
        free(resets);
        free(rows);
        free(c);
}

int store_corrections_list(struct store *s, int64_t tournament, store_corrections_fn cb, void *userdata) {
        char t_s[STAGE_ROWS_INT64_TEXT];
        struct call *c = call_new(s, userdata);

        if (c)
                c->cb.corrections = cb;
        snprintf(t_s, sizeof t_s, "%" PRId64, tournament);
        const char *p[] = { t_s };
        return send_call(c,
                    "SELECT 0 AS kind, t.id, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text, "
                    "       NULL::text, NULL::text FROM tournaments t WHERE t.id = $1 "
                    "UNION ALL "
                    "SELECT 1, c.id, c.stage_match_id, c.before::text, c.after::text, c.reason, c.reset::text, c.who, "
                    "       " STORE_TIME("c.at") " FROM corrections c WHERE c.tournament_id = $1 "
                    "ORDER BY 1, 2",
                    1, p, on_corrections);
}
