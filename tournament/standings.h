/* tournament/standings.h — standings and tie-breaks, recomputed from the
 * results every time (docs/tournaments.md, "Standings" and "Tie-breaks").
 *
 * Standings are a pure function of (entrants, results, byes, points config,
 * tie-break list): there is no running state to corrupt, so correcting a
 * result, a late drop or a replay is one more call.  The order of results
 * within a round does not matter (the test suite checks it); neither does the
 * order of rounds in the list, since every result carries its round.
 *
 * Ordering.  Rows are sorted by points, then by each tie-break in the
 * organiser's order, each in its own direction (tour_standings_tb_higher_is_better).
 * Values are compared at a resolution of 1e-9 (TOUR_STANDINGS_RESOLUTION), so
 * values that are equal on paper but differ in the last bit of a double are
 * equal.  Rows equal on points and on every tie-break share a rank
 * (competition ranking: 1, 1, 3); among them the listing order is the entrant
 * index, which is a deterministic last resort and never changes a rank.
 *
 * Unplayed rounds.  The Buchholz family (buchholz, cut1, median, median1,
 * median2) treats byes, forfeits and the rounds a dropped entrant missed as
 * FIDE's tie-break regulations do (Handbook C.07, 2024, article 16), and
 * modified_median as US Chess rule 34E1 does: docs/tournaments.md,
 * "Unplayed rounds", says exactly how, table sizes above two included.
 *
 * Pure: libc only; scratch memory is malloc'd and freed inside the call.
 * Ownership: the caller owns the input arrays and ret_rows; nothing is kept
 * after the call returns. */
#ifndef ARBITER_TOURNAMENT_STANDINGS_H
#define ARBITER_TOURNAMENT_STANDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/points.h"
#include "tournament/types.h"

/* Largest stage: memory is O(n + seats played), so this is a sanity bound on
 * a corrupt n, not a capacity limit. */
#define TOUR_STANDINGS_MAX_ENTRANTS     100000
/* Longest tie-break list (there are 14 kinds; a repeat is allowed, useless). */
#define TOUR_STANDINGS_MAX_TIEBREAKS    12
/* Values closer than this are equal when sorting and ranking. */
#define TOUR_STANDINGS_RESOLUTION       1e-9
/* Magic Tournament Rules, Appendix C: MW%, OMW%, GW%, OGW% never go below
 * 0.33 ("to limit the effect low performances have"). */
#define TOUR_STANDINGS_MTG_FLOOR        0.33
/* The MTG family's own match and game points (MTR Appendix C), whatever the
 * stage's points config says. */
#define TOUR_STANDINGS_MTG_WIN          3.0
#define TOUR_STANDINGS_MTG_DRAW         1.0
/* MTR Appendix C: a bye counts as a match won 2–0 in games. */
#define TOUR_STANDINGS_BYE_GAMES        2
/* Placement average of an entrant who sat at no table: worse than any place. */
#define TOUR_STANDINGS_NO_PLACEMENT     ((double) (TOUR_MAX_SEATS + 1))

/* Every tie-break, defined exactly in docs/tournaments.md.  Direction: all
 * are "higher is better" except PLACEMENT_AVG and DIRECT_ENCOUNTER (whose
 * value is a position among the tied entrants).  New kinds are added at the
 * end: the values never change. */
enum tour_standings_tb {
        TOUR_TB_BUCHHOLZ = 1,   /* FIDE BH */
        TOUR_TB_CUT1,           /* FIDE BH Cut-1: the lowest value cut */
        TOUR_TB_MEDIAN,         /* the name median1 had first: the same values */
        TOUR_TB_SONNEBORN_BERGER,
        TOUR_TB_CUMULATIVE,
        TOUR_TB_DIRECT_ENCOUNTER,
        TOUR_TB_OMW,            /* opponents' match-win % */
        TOUR_TB_GW,             /* game-win % */
        TOUR_TB_OGW,            /* opponents' game-win % */
        TOUR_TB_PLACEMENT_AVG,
        TOUR_TB_SEAT_ADJUSTED,
        TOUR_TB_MEDIAN1,        /* FIDE BH Median-1: the lowest and the highest cut */
        TOUR_TB_MEDIAN2,        /* FIDE BH Median-2: the two lowest and the two highest cut */
        TOUR_TB_MODIFIED_MEDIAN,        /* US Chess rule 34E1 */
};
#define TOUR_TB_LAST TOUR_TB_MODIFIED_MEDIAN

/* The stable name of a tie-break ("buchholz", "cut1", "median",
 * "sonneborn_berger", "cumulative", "direct_encounter", "omw", "gw", "ogw",
 * "placement_avg", "seat_adjusted", "median1", "median2",
 * "modified_median"): what configuration files and the API use.  "median"
 * and "median1" compute the same values; each keeps its own name, so a
 * configuration reads back as it was written.  NULL for an unknown value. */
const char *tour_standings_tb_name(enum tour_standings_tb tb);

/* The tie-break called name, or -EINVAL. */
int tour_standings_tb_from_name(const char *name, enum tour_standings_tb *ret_tb);

/* 1 if a higher value ranks first, 0 if a lower one does, -EINVAL for an
 * unknown value. */
int tour_standings_tb_higher_is_better(enum tour_standings_tb tb);

struct tour_standings_input {
        int                             n;              /* entrants 0..n−1, 1..MAX_ENTRANTS */
        /* n flags, or NULL for nobody: a dropped entrant keeps its results
         * and stays in the standings; pairing simply stops seeing it. */
        const bool                      *dropped;
        const struct tour_result        *results;      /* NULL only if n_results is 0 */
        size_t                          n_results;
        const struct tour_bye           *byes;         /* NULL only if n_byes is 0 */
        size_t                          n_byes;
        const struct tour_points_config *points;
        const enum tour_standings_tb    *tiebreaks;    /* in the organiser's order */
        size_t                          n_tiebreaks;   /* 0..MAX_TIEBREAKS */
};

struct tour_standings_row {
        int32_t entrant;
        int     rank;                   /* 1-based, shared by equal rows */
        bool    dropped;
        double  points;                 /* matches + byes + forfeits */
        /* Tables sat at (forfeits included, byes not), and their outcome
         * (tournament/points.h: sole first = won, shared first = drawn). */
        int     played, won, drawn, lost;
        int     byes;
        double  game_win_pct;           /* GW%, floored at 0.33 as the tie-break */
        double  tb[TOUR_STANDINGS_MAX_TIEBREAKS];       /* tb[k]: in->tiebreaks[k] */
};

/* Computes the standings into ret_rows[0..n), best first, and returns n.
 * ret_rows must hold in->n rows.
 * -EINVAL (with *ret_err, may be NULL: the field names the input, e.g.
 * "results[3].entrant[1]") for: a NULL argument; n out of range; a points
 * config that does not validate; a result that does not check
 * (tour_points_check_result) or names an entrant >= n; a bye with round < 1
 * or an entrant out of range; an entrant twice in one round (two tables, or
 * a table and a bye); an unknown tie-break or too many.  -ENOMEM if scratch
 * memory runs out.  On error ret_rows is unspecified. */
int tour_standings_compute(const struct tour_standings_input *in, struct tour_standings_row *ret_rows,
                           struct tour_points_error *ret_err);

#endif
