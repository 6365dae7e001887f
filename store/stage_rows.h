/* store/stage_rows.h — what the stage repositories share (internal to
 * store/stages.c and store/stage_matches.c): the one layout of their
 * statements' rows and the folding of those rows into the typed rows of
 * store/stages.h and store/stage_matches.h.
 *
 * A statement of a stage repository returns rows of several kinds in one
 * result, so that one statement (one snapshot of the database) reads a
 * whole stage, or a list of stage matches with their players:
 *
 *   kind    a         b          c          d          e            f         g
 *   HEADER  tourn.id  seed       stage id   number     advance      next_started (0/1)  competitive (0/1)
 *   ENTRANT ord       player
 *   MATCH   id        number     round      table_no   bracket_id   table_id  match_id
 *   SEAT    match id  seat       player
 *   BYE     round     player
 *
 *   kind    h          t1      t2        t3          t4            t5      t6      t7     t8       x1  x2
 *   HEADER             game    t.state   t.tables    match_config  format  config  state  confirm
 *   ENTRANT            name    status                                                            mu  sigma (NULL: unrated)
 *   MATCH   tourn.id   state   result    recorded_at recorded_by
 *   SEAT               name
 *   BYE                name
 *
 * Every column is typed the same in every kind (bigint a..h, text t1..t8,
 * double precision x1, x2), NULL where a kind has nothing.  A MATCH row's
 * players are the SEAT rows that name its id, in any order of rows; their
 * seats order them.
 */
#ifndef ARBITER_STORE_STAGE_ROWS_H
#define ARBITER_STORE_STAGE_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "store/stage_matches.h"
#include "store/stages.h"

enum { STAGE_ROW_HEADER, STAGE_ROW_ENTRANT, STAGE_ROW_MATCH, STAGE_ROW_SEAT, STAGE_ROW_BYE };
enum {
        COL_KIND, COL_A, COL_B, COL_C, COL_D, COL_E, COL_F, COL_G, COL_H,
        COL_T1, COL_T2, COL_T3, COL_T4, COL_T5, COL_T6, COL_T7, COL_T8, COL_X1, COL_X2,
};

/* The columns of one row in that layout: the expressions of a..h, t1..t8,
 * x1, x2 (NULL where there is none). */
#define STAGE_ROW(kind, a, b, c, d, e, f, g, h, t1, t2, t3, t4, t5, t6, t7, t8, x1, x2) \
        "SELECT " #kind "::int AS kind, (" a ")::bigint AS a, (" b ")::bigint AS b, (" c ")::bigint AS c, " \
        "(" d ")::bigint AS d, (" e ")::bigint AS e, (" f ")::bigint AS f, (" g ")::bigint AS g, " \
        "(" h ")::bigint AS h, (" t1 ")::text AS t1, (" t2 ")::text AS t2, (" t3 ")::text AS t3, " \
        "(" t4 ")::text AS t4, (" t5 ")::text AS t5, (" t6 ")::text AS t6, (" t7 ")::text AS t7, " \
        "(" t8 ")::text AS t8, (" x1 ")::double precision AS x1, (" x2 ")::double precision AS x2 "

/* The MATCH rows of the stage matches in CTE m (columns of stage_matches)
 * and the SEAT rows of their players; "st" is a CTE of their stages (id,
 * number, tournament_id). */
#define STAGE_MATCH_ROWS \
        STAGE_ROW(2, "m.id", "st.number", "m.round", "m.table_no", "m.bracket_id", "m.table_id", "m.match_id", \
                  "st.tournament_id", "m.state", "m.result", STORE_TIME("m.recorded_at"), "m.recorded_by", \
                  "NULL", "NULL", "NULL", "NULL", "NULL", "NULL") \
        "FROM m JOIN st ON st.id = m.stage_id " \
        "UNION ALL " \
        STAGE_ROW(3, "m.id", "x.ord", "x.pid", "NULL", "NULL", "NULL", "NULL", "NULL", "p.name", "NULL", "NULL", \
                  "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL") \
        "FROM m, unnest(m.participants) WITH ORDINALITY x(pid, ord) JOIN players p ON p.id = x.pid "

/* The match state called name: 0, or -EINVAL. */
int stage_rows_match_state(const char *name, enum store_match_state *ret);
/* The stage state called name: 0, or -EINVAL. */
int stage_rows_stage_state(const char *name, enum store_stage_state *ret);

/* The stage matches of res (its MATCH rows, in their order, with their
 * SEAT rows), allocated in *ret_rows and *ret_seats (free both; either may
 * be set even when there are none).  0 or -ENOMEM. */
int stage_rows_matches(const PGresult *res, struct store_stage_match_row **ret_rows, size_t *ret_n,
                       struct store_stage_participant **ret_seats);

/* The BYE rows of res, in their order, into *ret (free it).  0 or -ENOMEM. */
int stage_rows_byes(const PGresult *res, struct store_stage_bye **ret, size_t *ret_n);

/* The elements of a bigint[] as PostgreSQL prints it ("{1,2,3}"), into
 * *ret (free it).  0, -ENOMEM, or -EINVAL for text that is no such array. */
int stage_rows_int64_array(const char *text, int64_t **ret, size_t *ret_n);

/* An int64_t array as a PostgreSQL array literal, malloc'd; NULL without
 * memory. */
char *stage_rows_int64_literal(const int64_t *v, size_t n);

/* Room for an int64_t in decimal, sign and NUL included. */
#define STAGE_ROWS_INT64_TEXT 24

#endif
