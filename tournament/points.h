/* tournament/points.h — what one result is worth: the points configuration of
 * a stage and the award of points to the participants of one match
 * (docs/tournaments.md, "Points").
 *
 * Pure: libc only, no allocation, no global state.  Everything here is a
 * function of its arguments, so standings can always be recomputed from the
 * results (tournament/standings.h does exactly that).
 *
 * Ownership: struct tour_points_config is plain data owned by the caller;
 * nothing here keeps a pointer to it past the call.
 *
 * Outcome of a participant (used by both modes and by the MTG tie-breaks):
 *   - a participant with forfeit[i] has LOST, whatever its rank says;
 *   - otherwise rank 1 held alone is a WIN, rank 1 shared is a DRAW, any
 *     other rank is a LOSS.  A drawn duel is rank 1 and 1.
 * A double forfeit (every participant forfeits) is therefore a loss for all,
 * and every one of them gets the forfeit-loss points: nobody scores. */
#ifndef ARBITER_TOURNAMENT_POINTS_H
#define ARBITER_TOURNAMENT_POINTS_H

#include <stdbool.h>

#include "tournament/types.h"

/* Largest |points| value a configuration may hold.  It keeps every sum the
 * standings make (points × rounds × opponents) far inside the 2^53 range in
 * which doubles count exactly at the 1e-9 resolution standings compare at. */
#define TOUR_POINTS_MAX_ABS     1e6

/* Field and message of the first thing a validation refused, e.g.
 * field "placement.table[4][2]", message "must not exceed the points of the
 * place above".  Plain data; both strings are always NUL-terminated. */
#define TOUR_POINTS_FIELD_MAX   48
#define TOUR_POINTS_MESSAGE_MAX 96
struct tour_points_error {
        char field[TOUR_POINTS_FIELD_MAX];
        char message[TOUR_POINTS_MESSAGE_MAX];
};

enum tour_points_mode {
        TOUR_POINTS_WDL = 1,            /* win / draw / loss points */
        TOUR_POINTS_PLACEMENT,          /* points by place at the table */
};

enum tour_points_rule {
        /* points = n − rank: 4 players 3/2/1/0, a duel 1/0 */
        TOUR_POINTS_N_MINUS_RANK = 1,
        /* the organiser's table[n][place − 1] for every size n that occurs */
        TOUR_POINTS_TABLE,
};

/* Defaults: MTG's 3/1/0 (Magic Tournament Rules, Appendix C) and chess's
 * 1/½/0 (FIDE Handbook C.04). */
#define TOUR_POINTS_MTG_WIN     3.0
#define TOUR_POINTS_MTG_DRAW    1.0
#define TOUR_POINTS_MTG_LOSS    0.0
#define TOUR_POINTS_CHESS_WIN   1.0
#define TOUR_POINTS_CHESS_DRAW  0.5
#define TOUR_POINTS_CHESS_LOSS  0.0

/* One stage's points.  Invariants checked by tour_points_validate:
 *   - every number is finite and within ±TOUR_POINTS_MAX_ABS;
 *   - WDL: win >= draw >= loss;
 *   - PLACEMENT with TABLE: for every n with table_set[n] (1..TOUR_MAX_SEATS),
 *     table[n][0..n) never increases with the place; table[n][n..) is unread;
 *   - forfeit_loss is what every forfeiting participant gets (single or
 *     double forfeit alike), and bye what an entrant on a bye gets. */
struct tour_points_config {
        enum tour_points_mode mode;
        double win, draw, loss;                         /* WDL */
        enum tour_points_rule rule;                     /* PLACEMENT */
        bool table_set[TOUR_MAX_SEATS + 1];             /* PLACEMENT, TABLE: index n */
        double table[TOUR_MAX_SEATS + 1][TOUR_MAX_SEATS];
        double bye;
        double forfeit_loss;
};

/* WDL 3/1/0, a bye worth a win (3), a forfeit loss worth 0. */
void tour_points_defaults_wdl(struct tour_points_config *ret_cfg);

/* WDL 1/½/0, a bye worth a win (1), a forfeit loss worth 0. */
void tour_points_defaults_chess(struct tour_points_config *ret_cfg);

/* PLACEMENT by n − rank, a bye worth 1 (a duel win under that rule: set it
 * to the value the club wants for its table size), a forfeit loss worth 0. */
void tour_points_defaults_placement(struct tour_points_config *ret_cfg);

/* 0, or -EINVAL with *ret_err (may be NULL) naming the first bad field. */
int tour_points_validate(const struct tour_points_config *cfg, struct tour_points_error *ret_err);

/* Checks one result for consistency on its own: 1 <= n <= TOUR_MAX_SEATS,
 * round >= 1, distinct non-negative entrants, finite scores, ranks forming a
 * competition ranking ("1224": a rank r held by k participants means exactly
 * r − 1 participants rank better, so the tied ones cover places r..r+k−1),
 * every forfeiting participant ranked strictly below every one that played.
 * Entrants are not checked against a stage size here (standings do that).
 * 0, or -EINVAL with *ret_err (may be NULL); the field names the member,
 * e.g. "rank[2]". */
int tour_points_check_result(const struct tour_result *res, struct tour_points_error *ret_err);

/* The points each participant of *res earns: ret_points[i] for entrant[i].
 * WDL: win / draw / loss by the outcome above.  PLACEMENT: a participant
 * with rank r shared by k participants gets the mean of the points of places
 * r..r+k−1 at a table of n (tied ranks share the places they cover: at
 * 3/2/1/0, two players tied first get (3 + 2) / 2 = 2.5 each).  Forfeiting
 * participants get forfeit_loss; the places they would have covered are
 * simply not awarded.
 * Returns res->n, or -EINVAL (with *ret_err, may be NULL) for a NULL
 * argument, a config that does not validate, a result that does not check,
 * or a PLACEMENT TABLE config with no table for this n (field
 * "placement.table[n]").  ret_points must hold res->n values. */
int tour_points_award(const struct tour_points_config *cfg, const struct tour_result *res,
                      double *ret_points, struct tour_points_error *ret_err);

enum tour_points_outcome {
        TOUR_POINTS_LOST = 0,
        TOUR_POINTS_DREW,
        TOUR_POINTS_WON,
};

/* The outcome (enum tour_points_outcome, the rule at the top of this header)
 * of participant i of *res, or -EINVAL for a NULL res or i outside 0..n−1.
 * It reads only ranks and forfeits: call it on results that check. */
int tour_points_outcome(const struct tour_result *res, int i);

#endif
