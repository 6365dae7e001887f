/* Standings and tie-breaks (tournament/standings.h, docs/tournaments.md).
 *
 * The worked examples are small stages whose every figure is computed by
 * hand in the comments; the property test then checks over random stages
 * (2–300 entrants, seeded) that standings are a pure function of the
 * results, that points are conserved and that ranks follow the order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/standings.h"

#define EPS 1e-9
#define ELEMENTSOF(a) (sizeof (a) / sizeof (a)[0])

/* A duel in seat order a, b: ra, rb are the ranks (1/2 a win, 1/1 a draw). */
#define DUEL(r, a, b, ra, rb) \
        { .round = (r), .n = 2, .entrant = { (a), (b) }, .rank = { (ra), (rb) } }
#define WIN(r, a, b)    DUEL(r, a, b, 1, 2)
#define DRAW(r, a, b)   DUEL(r, a, b, 1, 1)
#define POD4(r, a, b, c, d, ra, rb, rc, rd) \
        { .round = (r), .n = 4, .entrant = { (a), (b), (c), (d) }, .rank = { (ra), (rb), (rc), (rd) } }

static struct tour_standings_row rows[512];

/* The row of entrant e in rows[0..n). */
static const struct tour_standings_row *row_of(int n, int e) {
        for (int p = 0; p < n; p++)
                if (rows[p].entrant == e)
                        return &rows[p];
        fail_msg("entrant %d missing from the standings", e);
        return NULL;
}

static int compute(int n, const struct tour_result *res, size_t n_res, const struct tour_bye *byes, size_t n_byes,
                   const struct tour_points_config *pc, const enum tour_standings_tb *tb, size_t n_tb,
                   const bool *dropped) {
        struct tour_standings_input in = {
                .n = n, .dropped = dropped, .results = res, .n_results = n_res, .byes = byes, .n_byes = n_byes,
                .points = pc, .tiebreaks = tb, .n_tiebreaks = n_tb,
        };
        struct tour_points_error err = { "", "" };
        int r = tour_standings_compute(&in, rows, &err);

        if (r < 0)
                fail_msg("standings refused: %s: %s", err.field, err.message);
        return r;
}

static void expect_order(int n, const int *entrants, const int *ranks) {
        for (int p = 0; p < n; p++) {
                assert_int_equal(rows[p].entrant, entrants[p]);
                assert_int_equal(rows[p].rank, ranks[p]);
        }
}

/* ---- A Swiss of 5 players, 3 rounds, chess points 1 / ½ / 0, bye = 1.
 *
 *   R1: 0–3 1-0      1–4 ½-½     bye 2
 *   R2: 2–0 1-0      1–3 1-0     bye 4
 *   R3: 2–1 ½-½      0–4 1-0     bye 3
 *
 * Points: 0: 1+0+1 = 2      1: ½+1+½ = 2     2: 1+1+½ = 2.5
 *         3: 0+0+1 = 1      4: ½+1+0 = 1.5   (sum 9 = 6 games + 3 byes)
 * A bye is a won meeting with a virtual opponent holding the entrant's own
 * points. */
static const struct tour_result swiss[] = {
        WIN(1, 0, 3), DRAW(1, 1, 4),
        WIN(2, 2, 0), WIN(2, 1, 3),
        DRAW(3, 2, 1), WIN(3, 0, 4),
};
static const struct tour_bye swiss_byes[] = { { 1, 2 }, { 2, 4 }, { 3, 3 } };

static void a_swiss_with_a_bye_and_a_draw_has_the_hand_computed_tiebreaks(void **state) {
        static const enum tour_standings_tb tb[] = {
                TOUR_TB_BUCHHOLZ, TOUR_TB_CUT1, TOUR_TB_MEDIAN, TOUR_TB_SONNEBORN_BERGER,
                TOUR_TB_CUMULATIVE, TOUR_TB_DIRECT_ENCOUNTER, TOUR_TB_SEAT_ADJUSTED,
        };
        /* Opponents' points, a bye standing for the entrant itself:
         *   0: 3 (1), 2 (2.5), 4 (1.5)       1: 4 (1.5), 3 (1), 2 (2.5)
         *   2: bye (2.5), 0 (2), 1 (2)        3: 0 (2), 1 (2), bye (1)
         *   4: 1 (2), bye (1.5), 0 (2)
         * Buchholz  0: 5    1: 5    2: 6.5   3: 5     4: 5.5
         * Cut-1     0: 5−1 = 4      1: 4     2: 6.5−2 = 4.5   3: 5−1 = 4   4: 5.5−1.5 = 4
         * Median    0: 5−1−2.5 = 1.5   1: 1.5   2: 6.5−2−2.5 = 2   3: 5−1−2 = 2
         *           4: 5.5−1.5−2 = 2
         * SB        0: 1·1 + 0·2.5 + 1·1.5 = 2.5      1: ½·1.5 + 1·1 + ½·2.5 = 3
         *           2: 1·2.5 + 1·2 + ½·2 = 5.5        3: 0 + 0 + 1·1 = 1
         *           4: ½·2 + 1·1.5 + 0 = 2.5
         * Cumulative (running score after each round)
         *           0: 1+1+2 = 4   1: ½+1½+2 = 4   2: 1+2+2½ = 5.5   3: 0+0+1 = 1
         *           4: ½+1½+1½ = 3.5
         * Direct encounter: 0 and 1 never met: both 0 among themselves, position 1.
         * Seat averages (seat 1 listed first): seat 1 took 1, ½, 1, 1, ½, 1 = 5/6
         * a game, seat 2 took 1/6.  A bye's expected value is its own point.
         *   0: seats 1, 2, 1: 2 − (5/6 + 1/6 + 5/6) = 1/6
         *   1: seats 1, 1, 2: 2 − 11/6 = 1/6
         *   2: bye, 1, 1: 2.5 − (1 + 10/6) = −1/6
         *   3: 2, 2, bye: 1 − (2/6 + 1) = −1/3
         *   4: 2, bye, 2: 1.5 − (2/6 + 1) = 1/6
         * Every tie-break here ties 0 and 1 except Sonneborn-Berger (1 ahead). */
        static const double want[5][7] = {
                { 5, 4, 1.5, 2.5, 4, 1, 1.0 / 6 },
                { 5, 4, 1.5, 3, 4, 1, 1.0 / 6 },
                { 6.5, 4.5, 2, 5.5, 5.5, 1, -1.0 / 6 },
                { 5, 4, 2, 1, 1, 1, -1.0 / 3 },
                { 5.5, 4, 2, 2.5, 3.5, 1, 1.0 / 6 },
        };
        struct tour_points_config pc;

        (void) state;
        tour_points_defaults_chess(&pc);
        assert_int_equal(compute(5, swiss, 6, swiss_byes, 3, &pc, tb, 7, NULL), 5);
        /* 2 (2.5); 0 and 1 (2) equal until SB puts 1 first; 4 (1.5); 3 (1) */
        expect_order(5, (int[]) { 2, 1, 0, 4, 3 }, (int[]) { 1, 2, 3, 4, 5 });
        for (int e = 0; e < 5; e++) {
                const struct tour_standings_row *r = row_of(5, e);

                for (int k = 0; k < 7; k++)
                        if (fabs(r->tb[k] - want[e][k]) > EPS)
                                fail_msg("entrant %d tie-break %s: %g, want %g", e,
                                         tour_standings_tb_name(tb[k]), r->tb[k], want[e][k]);
        }
        assert_float_equal(row_of(5, 2)->points, 2.5, EPS);
        assert_float_equal(row_of(5, 4)->points, 1.5, EPS);
        /* 2: a win, a draw, a bye */
        assert_int_equal(row_of(5, 2)->played, 2);
        assert_int_equal(row_of(5, 2)->won, 1);
        assert_int_equal(row_of(5, 2)->drawn, 1);
        assert_int_equal(row_of(5, 2)->byes, 1);
        /* 1: W1 D2; no game scores, so each match is one game worth 3 / 1 / 0:
         * (3 + 1 + 1) / (3 · 3) = 5/9 */
        assert_int_equal(row_of(5, 1)->won, 1);
        assert_int_equal(row_of(5, 1)->drawn, 2);
        assert_float_equal(row_of(5, 1)->game_win_pct, 5.0 / 9, EPS);
}

static void rows_equal_on_everything_share_a_rank_listed_by_entrant_index(void **state) {
        static const enum tour_standings_tb tb[] = {
                TOUR_TB_BUCHHOLZ, TOUR_TB_CUT1, TOUR_TB_MEDIAN, TOUR_TB_CUMULATIVE, TOUR_TB_OMW,
        };
        struct tour_points_config pc;

        (void) state;
        tour_points_defaults_chess(&pc);
        /* 0 and 1 tie on every one of these (see the Swiss above; OMW%:
         * both met 2, 3 and 4: (7/9 + 3/9 + 4/9) / 3 = 14/27), so they share
         * rank 2, 0 listed first; the next row is rank 4, not 3 */
        assert_int_equal(compute(5, swiss, 6, swiss_byes, 3, &pc, tb, 5, NULL), 5);
        expect_order(5, (int[]) { 2, 0, 1, 4, 3 }, (int[]) { 1, 2, 2, 4, 5 });
        assert_float_equal(rows[1].tb[4], 14.0 / 27, EPS);
        assert_float_equal(rows[2].tb[4], 14.0 / 27, EPS);
        /* the result order within a round changes nothing */
        {
                const struct tour_result shuffled[] = {
                        swiss[5], swiss[3], swiss[1], swiss[4], swiss[0], swiss[2],
                };
                const struct tour_bye byes[] = { swiss_byes[2], swiss_byes[0], swiss_byes[1] };

                assert_int_equal(compute(5, shuffled, 6, byes, 3, &pc, tb, 5, NULL), 5);
                expect_order(5, (int[]) { 2, 0, 1, 4, 3 }, (int[]) { 1, 2, 2, 4, 5 });
        }
}

/* ---- A pod league: 4 players at one table of 4 for 3 rounds, seats
 * rotating, points by placement n − rank (3/2/1/0).
 *
 *   R1 seats 0 1 2 3, ranks 1 2 3 4:   0: 3   1: 2   2: 1   3: 0
 *   R2 seats 1 2 3 0, ranks 1 1 3 4:   1 and 2 share places 1–2: (3+2)/2 = 2.5
 *                                       3: 1   0: 0
 *   R3 seats 2 3 0 1, ranks 3 1 2 4:   2: 1   3: 3   0: 2   1: 0
 *
 * Points: 0: 3+0+2 = 5   1: 2+2.5+0 = 4.5   2: 1+2.5+1 = 4.5   3: 0+1+3 = 4
 * (sum 18 = 3 tables × (3+2+1+0)). */
static const struct tour_result league[] = {
        POD4(1, 0, 1, 2, 3, 1, 2, 3, 4),
        POD4(2, 1, 2, 3, 0, 1, 1, 3, 4),
        POD4(3, 2, 3, 0, 1, 3, 1, 2, 4),
};

static void a_pod_league_is_ordered_by_placement_points_then_seat_adjusted_score(void **state) {
        static const enum tour_standings_tb tb[] = {
                TOUR_TB_PLACEMENT_AVG, TOUR_TB_SONNEBORN_BERGER, TOUR_TB_DIRECT_ENCOUNTER,
                TOUR_TB_BUCHHOLZ, TOUR_TB_SEAT_ADJUSTED, TOUR_TB_CUMULATIVE,
        };
        /* Placement average: 0: (1+4+2)/3 = 7/3   1: (2+1+4)/3 = 7/3
         *                    2: (3+1+3)/3 = 7/3   3: (4+3+1)/3 = 8/3
         * Sonneborn-Berger (1 above, ½ tied, 0 below, × the other's points):
         *   1: R1 above 2 and 3: 4.5 + 4 = 8.5; R2 tied with 2, above 3 and 0:
         *      2.25 + 4 + 5 = 11.25; R3 last: 0.            SB = 19.75
         *   2: R1 above 3: 4; R2 tied with 1, above 3 and 0: 11.25;
         *      R3 above 1: 4.5.                              SB = 19.75
         * Direct encounter between 1 and 2: R1 1 above (1–0), R2 tied (½–½),
         *   R3 2 above (0–1): 1.5 each, still tied: both position 1.
         * Buchholz: everybody meets everybody each round: 3 × (18 − own),
         *   so 1 and 2 have 40.5 each.
         * Seat averages (tables of 4): seat 1 took 3, 2.5, 1 → 6.5/3;
         *   seat 2: 2, 2.5, 3 → 2.5; seat 3: 1, 1, 2 → 4/3; seat 4: 0.
         *   0: seats 1, 4, 3: 5 − (6.5/3 + 0 + 4/3) = 5 − 3.5 = 1.5
         *   1: seats 2, 1, 4: 4.5 − (2.5 + 6.5/3 + 0) = 4.5 − 14/3 = −1/6
         *   2: seats 3, 2, 1: 4.5 − (4/3 + 2.5 + 6.5/3) = 4.5 − 6 = −1.5
         *   3: seats 4, 3, 2: 4 − (0 + 4/3 + 2.5) = 1/6
         *   Seat-adjusted separates 1 (−1/6) from 2 (−1.5).
         * Cumulative: 1: 2 + 4.5 + 4.5 = 11   2: 1 + 3.5 + 4.5 = 9 */
        struct tour_points_config pc;
        const struct tour_standings_row *r1, *r2;

        (void) state;
        tour_points_defaults_placement(&pc);
        assert_int_equal(compute(4, league, 3, NULL, 0, &pc, tb, 6, NULL), 4);
        expect_order(4, (int[]) { 0, 1, 2, 3 }, (int[]) { 1, 2, 3, 4 });
        r1 = row_of(4, 1);
        r2 = row_of(4, 2);
        assert_float_equal(r1->points, 4.5, EPS);
        assert_float_equal(r2->points, 4.5, EPS);
        assert_float_equal(r1->tb[0], 7.0 / 3, EPS);
        assert_float_equal(r2->tb[0], 7.0 / 3, EPS);
        assert_float_equal(row_of(4, 3)->tb[0], 8.0 / 3, EPS);
        assert_float_equal(r1->tb[1], 19.75, EPS);
        assert_float_equal(r2->tb[1], 19.75, EPS);
        assert_float_equal(r1->tb[2], 1, EPS);
        assert_float_equal(r2->tb[2], 1, EPS);
        assert_float_equal(r1->tb[3], 40.5, EPS);
        assert_float_equal(r2->tb[3], 40.5, EPS);
        assert_float_equal(r1->tb[4], -1.0 / 6, EPS);
        assert_float_equal(r2->tb[4], -1.5, EPS);
        assert_float_equal(row_of(4, 0)->tb[4], 1.5, EPS);
        assert_float_equal(row_of(4, 3)->tb[4], 1.0 / 6, EPS);
        assert_float_equal(r1->tb[5], 11, EPS);
        assert_float_equal(r2->tb[5], 9, EPS);
        /* W/D/L at a pod: sole first wins, shared first draws */
        assert_int_equal(r1->won, 0);
        assert_int_equal(r1->drawn, 1);
        assert_int_equal(r1->lost, 2);
        assert_int_equal(row_of(4, 0)->won, 1);
        assert_int_equal(row_of(4, 3)->won, 1);

        /* Buchholz alone leaves 1 and 2 sharing second; 3 is fourth */
        assert_int_equal(compute(4, league, 3, NULL, 0, &pc, (enum tour_standings_tb[]) { TOUR_TB_BUCHHOLZ }, 1,
                                 NULL), 4);
        expect_order(4, (int[]) { 0, 1, 2, 3 }, (int[]) { 1, 2, 2, 4 });
}

/* ---- Direct encounter among three tied players needs the second pass.
 * A double round robin of 4 (chess points), A = 0, B = 1, C = 2, D = 3:
 *
 *   R1: A–B 1-0   C–D 1-0        R4: A–B ½-½   C–D ½-½
 *   R2: A–C 1-0   B–D 0-1        R5: A–C 0-1   B–D 0-1
 *   R3: A–D 0-1   B–C 1-0        R6: A–D 0-1   B–C 1-0
 *
 * Points: A 1+1+0+½+0+0 = 2.5   B 0+0+1+½+0+1 = 2.5   C 1+0+0+½+1+0 = 2.5
 *         D 0+1+1+½+1+1 = 4.5
 * Among A, B, C: A 1.5 (vs B) + 1 (vs C) = 2.5, B ½ + 2 = 2.5, C 1 + 0 = 1.
 * C is third; A and B are still tied, so they are scored again between
 * themselves only: A 1.5, B ½.  Positions: A 1, B 2, C 3. */
static void a_three_way_tie_is_broken_by_direct_encounter_applied_again_to_the_still_tied(void **state) {
        static const struct tour_result rr[] = {
                WIN(1, 0, 1), WIN(1, 2, 3),
                WIN(2, 0, 2), DUEL(2, 1, 3, 2, 1),
                DUEL(3, 0, 3, 2, 1), WIN(3, 1, 2),
                DRAW(4, 0, 1), DRAW(4, 2, 3),
                DUEL(5, 0, 2, 2, 1), DUEL(5, 1, 3, 2, 1),
                DUEL(6, 0, 3, 2, 1), WIN(6, 1, 2),
        };
        static const enum tour_standings_tb tb[] = { TOUR_TB_DIRECT_ENCOUNTER };
        struct tour_points_config pc;

        (void) state;
        tour_points_defaults_chess(&pc);
        assert_int_equal(compute(4, rr, 12, NULL, 0, &pc, tb, 1, NULL), 4);
        expect_order(4, (int[]) { 3, 0, 1, 2 }, (int[]) { 1, 2, 3, 4 });
        assert_float_equal(row_of(4, 0)->points, 2.5, EPS);
        assert_float_equal(row_of(4, 1)->points, 2.5, EPS);
        assert_float_equal(row_of(4, 2)->points, 2.5, EPS);
        assert_float_equal(row_of(4, 0)->tb[0], 1, EPS);
        assert_float_equal(row_of(4, 1)->tb[0], 2, EPS);
        assert_float_equal(row_of(4, 2)->tb[0], 3, EPS);
        assert_float_equal(row_of(4, 3)->tb[0], 1, EPS);        /* alone on 4.5 */
}

/* ---- MTG tie-breaks with the 0.33 floor, best-of-3 game scores, MTG points.
 *
 *   R1: 0–1 2-1      2–3 2-0
 *   R2: 0–2 2-1      1–3 2-0
 *
 * MW% (match points / 3 per round): 0: 6/6 = 1   1: 3/6 = ½   2: ½
 *   3: 0/6 = 0, floored to 0.33.
 * OMW%: 1 met 0 and 3: (1 + 0.33) / 2 = 0.665 (0.5 without the floor).
 *       2 met 3 and 0: 0.665.   0 met 1 and 2: ½.   3 met 2 and 1: ½.
 * GW% (games won / games played): 0: 4/6   1: (1 + 2)/5 = 0.6   2: 0.6
 *   3: 0/4 = 0, floored to 0.33.
 * OGW%: 1 met 0 and 3: (2/3 + 0.33) / 2 = 0.498333...
 * 1 and 2 are equal on all three: shared rank 2. */
static void omw_and_gw_floor_every_percentage_at_a_third(void **state) {
        struct tour_result r[] = {
                WIN(1, 0, 1), WIN(1, 2, 3),
                WIN(2, 0, 2), WIN(2, 1, 3),
        };
        static const enum tour_standings_tb tb[] = { TOUR_TB_OMW, TOUR_TB_GW, TOUR_TB_OGW };
        struct tour_points_config pc;

        (void) state;
        r[0].score[0] = 2, r[0].score[1] = 1;
        r[1].score[0] = 2, r[1].score[1] = 0;
        r[2].score[0] = 2, r[2].score[1] = 1;
        r[3].score[0] = 2, r[3].score[1] = 0;
        tour_points_defaults_wdl(&pc);
        assert_int_equal(compute(4, r, 4, NULL, 0, &pc, tb, 3, NULL), 4);
        expect_order(4, (int[]) { 0, 1, 2, 3 }, (int[]) { 1, 2, 2, 4 });
        assert_float_equal(row_of(4, 1)->tb[0], 0.665, EPS);
        assert_float_equal(row_of(4, 2)->tb[0], 0.665, EPS);
        assert_float_equal(row_of(4, 0)->tb[0], 0.5, EPS);
        assert_float_equal(row_of(4, 3)->tb[0], 0.5, EPS);
        assert_float_equal(row_of(4, 0)->tb[1], 4.0 / 6, EPS);
        assert_float_equal(row_of(4, 1)->tb[1], 0.6, EPS);
        assert_float_equal(row_of(4, 3)->tb[1], 0.33, EPS);
        assert_float_equal(row_of(4, 3)->game_win_pct, 0.33, EPS);
        assert_float_equal(row_of(4, 1)->tb[2], (4.0 / 6 + 0.33) / 2, EPS);
}

static void an_entrant_who_met_nobody_has_the_floor_for_opponents_percentages(void **state) {
        static const struct tour_bye byes[] = { { 1, 0 } };
        static const enum tour_standings_tb tb[] = { TOUR_TB_OMW, TOUR_TB_OGW, TOUR_TB_GW, TOUR_TB_PLACEMENT_AVG };
        struct tour_points_config pc;

        (void) state;
        tour_points_defaults_wdl(&pc);
        /* a bye is a 2–0 match win: GW% 6 / (3 · 2) = 1; no opponents: 0.33;
         * no table sat at: placement average 17, worse than any place */
        assert_int_equal(compute(1, NULL, 0, byes, 1, &pc, tb, 4, NULL), 1);
        assert_float_equal(rows[0].points, 3, EPS);
        assert_float_equal(rows[0].tb[0], 0.33, EPS);
        assert_float_equal(rows[0].tb[1], 0.33, EPS);
        assert_float_equal(rows[0].tb[2], 1, EPS);
        assert_float_equal(rows[0].tb[3], TOUR_STANDINGS_NO_PLACEMENT, EPS);
        assert_int_equal(rows[0].played, 0);
        assert_int_equal(rows[0].byes, 1);
}

/* ---- Forfeits.  MTG points, 4 players, one round:
 *   0–1 double forfeit: both lose, 0 points each, placed last (2nd of 2)
 *   2–3: 3 did not show: 2 wins by forfeit (3 points), 3 gets 0 */
static void a_double_forfeit_is_a_loss_for_both_and_scores_nobody(void **state) {
        struct tour_result r[] = { DRAW(1, 0, 1), DUEL(1, 2, 3, 1, 2) };
        static const enum tour_standings_tb tb[] = { TOUR_TB_PLACEMENT_AVG, TOUR_TB_SONNEBORN_BERGER };
        struct tour_points_config pc;
        double total = 0;

        (void) state;
        r[0].forfeit[0] = r[0].forfeit[1] = true;
        r[1].forfeit[1] = true;
        tour_points_defaults_wdl(&pc);
        assert_int_equal(compute(4, r, 2, NULL, 0, &pc, tb, 2, NULL), 4);
        for (int e = 0; e < 2; e++) {
                const struct tour_standings_row *x = row_of(4, e);

                assert_float_equal(x->points, 0, EPS);
                assert_int_equal(x->played, 1);
                assert_int_equal(x->lost, 1);
                assert_int_equal(x->drawn, 0);
                assert_float_equal(x->tb[0], 2, EPS);   /* a forfeit places last */
                assert_float_equal(x->tb[1], 0, EPS);   /* nobody beat anybody */
        }
        assert_float_equal(row_of(4, 2)->points, 3, EPS);
        assert_int_equal(row_of(4, 2)->won, 1);
        assert_int_equal(row_of(4, 3)->lost, 1);
        for (int p = 0; p < 4; p++)
                total += rows[p].points;
        assert_float_equal(total, 3, EPS);
        /* 2 first; 0, 1, 3 level on points and placement 2 and SB 0 */
        expect_order(4, (int[]) { 2, 0, 1, 3 }, (int[]) { 1, 2, 2, 2 });
}

/* ---- A dropped player keeps what it played.  Chess points, 4 players:
 *   R1: 0–1 1-0   2–3 0-1
 *   R2: 0–3 1-0   bye 1 (2 dropped after round 1 and is paired no more)
 * Points: 0: 2   1: 1   2: 0   3: 1.  2 stays in the standings, flagged.
 * Buchholz of 3 counts 2 with its 0 points and the round 2 missed after
 * dropping as a draw (FIDE C.07 art. 16.3): met 2 (0 + ½) and 0 (2) = 2.5.
 * Buchholz of 1: met 0 (2) and a bye (its own 1) = 3. */
static void a_dropped_player_keeps_its_results_and_its_place(void **state) {
        static const struct tour_result r[] = { WIN(1, 0, 1), DUEL(1, 2, 3, 2, 1), WIN(2, 0, 3) };
        static const struct tour_bye byes[] = { { 2, 1 } };
        static const enum tour_standings_tb tb[] = { TOUR_TB_BUCHHOLZ };
        static const bool dropped[4] = { false, false, true, false };
        struct tour_points_config pc;

        (void) state;
        tour_points_defaults_chess(&pc);
        assert_int_equal(compute(4, r, 3, byes, 1, &pc, tb, 1, dropped), 4);
        expect_order(4, (int[]) { 0, 1, 3, 2 }, (int[]) { 1, 2, 3, 4 });
        assert_true(row_of(4, 2)->dropped);
        assert_false(row_of(4, 3)->dropped);
        assert_int_equal(row_of(4, 2)->played, 1);
        assert_int_equal(row_of(4, 2)->lost, 1);
        assert_float_equal(row_of(4, 3)->tb[0], 2.5, EPS);
        assert_float_equal(row_of(4, 1)->tb[0], 3, EPS);
}

/* ---- The Buchholz family and unplayed rounds (FIDE C.07, 2024, art. 16).
 * Chess points 1 / ½ / 0, a bye worth 1, a forfeit loss 0; 8 entrants,
 * 6 rounds; 3 drops out after round 3.
 *
 *   R1: 0–1 1-0   2–7 1-0   3–6 1-0
 *   R2: 0–2 ½-½   1–6 1-0   3–7 1-0
 *   R3: 0–3 0-1   2–6 1-0
 *   R4: bye 0
 *   R5: 0–4, 4 does not come: 0 wins by forfeit
 *   R6: 0–5, 0 does not come: 5 wins by forfeit
 *
 * Points: 0: 1 + ½ + 0 + 1 + 1 + 0 = 3.5   1: 1   2: 2.5   3: 3 (dropped)
 *         4: 0   5: 1   6: 0   7: 0.
 * Opponents count with their adjusted score (art. 16.3): their points, and
 * a draw (½) for every round a dropped entrant missed after its last: 3
 * missed rounds 4–6, so 3 counts 3 + 3 × ½ = 4.5.  An unplayed round of
 * the entrant itself — a bye, a forfeit won or lost, a round missed after
 * dropping — is a dummy opponent holding the entrant's own points
 * (art. 16); those it chose not to play (its forfeits, the rounds it
 * missed) are cut first. */
static const struct tour_result unplayed[] = {
        WIN(1, 0, 1), WIN(1, 2, 7), WIN(1, 3, 6),
        DRAW(2, 0, 2), WIN(2, 1, 6), WIN(2, 3, 7),
        DUEL(3, 0, 3, 2, 1), WIN(3, 2, 6),
        DUEL(5, 0, 4, 1, 2),            /* forfeit[1]: 4 */
        DUEL(6, 0, 5, 2, 1),            /* forfeit[0]: 0 */
};
static const struct tour_bye unplayed_byes[] = { { 4, 0 } };
static const bool unplayed_dropped[8] = { [3] = true };

static void compute_unplayed(const enum tour_standings_tb *tb, size_t n_tb) {
        struct tour_result r[ELEMENTSOF(unplayed)];
        struct tour_points_config pc;

        memcpy(r, unplayed, sizeof r);
        r[8].forfeit[1] = true;
        r[9].forfeit[0] = true;
        tour_points_defaults_chess(&pc);
        assert_int_equal(compute(8, r, ELEMENTSOF(r), unplayed_byes, 1, &pc, tb, n_tb, unplayed_dropped), 8);
        assert_float_equal(row_of(8, 0)->points, 3.5, EPS);
        assert_float_equal(row_of(8, 3)->points, 3, EPS);
}

static void buchholz_counts_a_dummy_for_byes_and_forfeits_and_draws_for_a_dropped_opponents_missed_rounds(
        void **state) {
        static const enum tour_standings_tb tb[] = { TOUR_TB_BUCHHOLZ };

        (void) state;
        compute_unplayed(tb, 1);
        /* 0: 1 (1) + 2 (2.5) + 3 (4.5, adjusted) + its bye, the forfeit it
         * won and the forfeit it lost, each a dummy of its own 3.5:
         * 1 + 2.5 + 4.5 + 3 × 3.5 = 18.5 */
        assert_float_equal(row_of(8, 0)->tb[0], 18.5, EPS);
        /* 3: 6 (0) + 7 (0) + 0 (3.5) + the rounds 4–6 it missed, each a
         * dummy of its own 3: 12.5 */
        assert_float_equal(row_of(8, 3)->tb[0], 12.5, EPS);
        /* 1: 0 (3.5) + 6 (0) = 3.5;  4: its forfeit, a dummy of its 0;
         * 5: the forfeit it won, a dummy of its 1 */
        assert_float_equal(row_of(8, 1)->tb[0], 3.5, EPS);
        assert_float_equal(row_of(8, 4)->tb[0], 0, EPS);
        assert_float_equal(row_of(8, 5)->tb[0], 1, EPS);
}

static void cut1_cuts_a_round_the_entrant_chose_not_to_play_before_its_lowest_opponent(void **state) {
        static const enum tour_standings_tb tb[] = { TOUR_TB_CUT1 };

        (void) state;
        compute_unplayed(tb, 1);
        /* 0: its values 1, 2.5, 4.5, 3.5 (bye), 3.5 (forfeit won),
         * 3.5 (forfeit lost, its choice).  The cut takes the forfeit it
         * lost, not the 1: 18.5 − 3.5 = 15 */
        assert_float_equal(row_of(8, 0)->tb[0], 15, EPS);
        /* 3: 0, 0, 3.5 and three missed rounds of 3: one of those goes,
         * not a 0: 12.5 − 3 = 9.5 */
        assert_float_equal(row_of(8, 3)->tb[0], 9.5, EPS);
        /* 1: 3.5 and 0, nothing unplayed: the lowest goes: 3.5 */
        assert_float_equal(row_of(8, 1)->tb[0], 3.5, EPS);
        /* 5: one value, the forfeit it won (not its choice): 0 */
        assert_float_equal(row_of(8, 5)->tb[0], 0, EPS);
}

static void median1_cuts_the_lowest_and_the_highest_and_median_is_its_old_name(void **state) {
        static const enum tour_standings_tb tb[] = { TOUR_TB_MEDIAN1, TOUR_TB_MEDIAN };

        (void) state;
        compute_unplayed(tb, 2);
        /* 0: low cut the forfeit it lost (3.5), high cut 3 (4.5):
         * 18.5 − 3.5 − 4.5 = 10.5 */
        assert_float_equal(row_of(8, 0)->tb[0], 10.5, EPS);
        /* 3: low cut a missed round (3), high cut 0 (3.5): 12.5 − 6.5 = 6 */
        assert_float_equal(row_of(8, 3)->tb[0], 6, EPS);
        /* 1: two values, both cut: 0 */
        assert_float_equal(row_of(8, 1)->tb[0], 0, EPS);
        for (int p = 0; p < 8; p++)
                assert_true(rows[p].tb[0] == rows[p].tb[1]);
}

static void median2_cuts_the_two_lowest_and_the_two_highest(void **state) {
        static const enum tour_standings_tb tb[] = { TOUR_TB_MEDIAN2 };

        (void) state;
        compute_unplayed(tb, 1);
        /* 0: low cuts the forfeit it lost (3.5), then the lowest, 1 (1);
         * high cuts 3 (4.5), then a 3.5.  Left: 2.5 + 3.5 = 6 */
        assert_float_equal(row_of(8, 0)->tb[0], 6, EPS);
        /* 3: low cuts two missed rounds (3, 3); high cuts 0 (3.5), then the
         * last missed round (3).  Left: 6 and 7, 0 each */
        assert_float_equal(row_of(8, 3)->tb[0], 0, EPS);
}

/* One entrant, 0, against opponents 1..rounds, opponent k in round k:
 * 0 scores xs[k − 1] against it (1, ½ or 0) and opponent k beats
 * wins[k − 1] entrants of its own (fresh ones, one each) in the first
 * rounds other than k.  So opponent k ends on wins + 1 − xs points, with
 * every round it sat in played.  Chess points; returns the entrants. */
static int one_against_many(int rounds, const double *xs, const int *wins, const enum tour_standings_tb *tb,
                            size_t n_tb) {
        struct tour_result r[9 + 9 * 8];
        struct tour_points_config pc;
        int n = 1 + rounds;
        size_t k = 0;

        for (int o = 1; o <= rounds; o++) {
                int rank0 = xs[o - 1] == 1 ? 1 : xs[o - 1] == 0 ? 2 : 1,
                    ranko = xs[o - 1] == 1 ? 2 : 1;

                r[k++] = (struct tour_result) DUEL(o, 0, o, rank0, ranko);
                for (int w = 0, round = 1; w < wins[o - 1]; round++) {
                        if (round == o)
                                continue;
                        r[k++] = (struct tour_result) WIN(round, o, n);
                        n++;
                        w++;
                }
        }
        tour_points_defaults_chess(&pc);
        return compute(n, r, k, NULL, 0, &pc, tb, n_tb, NULL);
}

static void modified_median_from_nine_rounds_cuts_two_as_the_score_says(void **state) {
        static const enum tour_standings_tb tb[] = {
                TOUR_TB_MODIFIED_MEDIAN, TOUR_TB_BUCHHOLZ, TOUR_TB_CUT1, TOUR_TB_MEDIAN1, TOUR_TB_MEDIAN2,
        };
        static const int wins[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
        static const double all_won[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
        static const double even[9] = { 1, 1, 1, 1, 0.5, 0, 0, 0, 0 };
        static const double all_lost[9] = { 0 };
        int n;

        (void) state;
        /* 0 wins all 9: a plus score (9 > 9 / 2).  Its opponents end on
         * 0, 1, …, 8 (Σ 36).  Modified median: the two lowest go (0, 1):
         * 35.  FIDE, for comparison: Buchholz 36, Cut-1 36 − 0 = 36,
         * Median-1 36 − 0 − 8 = 28, Median-2 36 − 0 − 1 − 8 − 7 = 20. */
        n = one_against_many(9, all_won, wins, tb, 5);
        assert_float_equal(row_of(n, 0)->points, 9, EPS);
        assert_float_equal(row_of(n, 0)->tb[0], 35, EPS);
        assert_float_equal(row_of(n, 0)->tb[1], 36, EPS);
        assert_float_equal(row_of(n, 0)->tb[2], 36, EPS);
        assert_float_equal(row_of(n, 0)->tb[3], 28, EPS);
        assert_float_equal(row_of(n, 0)->tb[4], 20, EPS);
        /* 4 wins, a draw, 4 losses: 4.5, an even score.  Opponents:
         * 0, 1, 2, 3 (beaten), 4 + ½ (the draw), 5 + 1, 6 + 1, 7 + 1, 8 + 1,
         * i.e. 0, 1, 2, 3, 4.5, 6, 7, 8, 9.  The two lowest and the two
         * highest go: 2 + 3 + 4.5 + 6 + 7 = 22.5 */
        n = one_against_many(9, even, wins, tb, 1);
        assert_float_equal(row_of(n, 0)->points, 4.5, EPS);
        assert_float_equal(row_of(n, 0)->tb[0], 22.5, EPS);
        /* all lost: 0, a minus score.  Opponents 1, 2, …, 9 (Σ 45); the two
         * highest go: 45 − 9 − 8 = 28 */
        n = one_against_many(9, all_lost, wins, tb, 1);
        assert_float_equal(row_of(n, 0)->points, 0, EPS);
        assert_float_equal(row_of(n, 0)->tb[0], 28, EPS);
        /* eight rounds, all won: opponents 0..7 (Σ 28); under nine rounds
         * only the lowest goes: 28 */
        n = one_against_many(8, all_won, wins, tb, 1);
        assert_float_equal(row_of(n, 0)->tb[0], 28, EPS);
}

/* ---- US Chess's modified median (rule 34E1) on a Swiss of 4 rounds, chess
 * points, a bye worth 1.  Entrants 0 (A), 1 (B), 2 (C) meet 3, 4, 5, 6 in
 * turn; 7 plays the others' spare rounds.
 *
 *   R1: 0–3 1-0   1–4 1-0   2–5 0-1   6–7: 6 does not come (7 wins by forfeit)
 *   R2: 0–4 1-0   1–5 0-1   2–6 0-1   bye 3          (7 not paired)
 *   R3: 0–5 1-0   1–6 ½-½   2–3 ½-½   4–7: 7 does not come (4 wins by forfeit)
 *   R4: 0–6 0-1   1–3 ½-½   2–4 0-1   5–7 ½-½
 *
 * Points: 0: 3   1: 2   2: ½   3: 2   4: 2   5: 2.5   6: 2.5   7: 1.5.
 * Half the most 4 rounds give is 2: 0 has a plus score, 1 an even one,
 * 2 a minus one.  Opponents count with their adjusted score (34E): every
 * round they did not play is a draw, ½ — 3's bye (1): 2 − 1 + ½ = 1.5;
 * 4's forfeit won (1): 1.5; 6's forfeit lost (0): 3; 7's forfeit won and
 * forfeit lost: 1.5 − 1 + 1 = 1.5.  The entrant's own unplayed rounds are
 * opponents worth 0.  Under nine rounds one value goes. */
static void modified_median_cuts_by_the_score_and_adjusts_unplayed_rounds_to_draws(void **state) {
        struct tour_result r[] = {
                WIN(1, 0, 3), WIN(1, 1, 4), DUEL(1, 2, 5, 2, 1), DUEL(1, 6, 7, 2, 1),
                WIN(2, 0, 4), DUEL(2, 1, 5, 2, 1), DUEL(2, 2, 6, 2, 1),
                WIN(3, 0, 5), DRAW(3, 1, 6), DRAW(3, 2, 3), DUEL(3, 4, 7, 1, 2),
                DUEL(4, 0, 6, 2, 1), DRAW(4, 1, 3), DUEL(4, 2, 4, 2, 1), DRAW(4, 5, 7),
        };
        static const struct tour_bye byes[] = { { 2, 3 } };
        static const enum tour_standings_tb tb[] = { TOUR_TB_MODIFIED_MEDIAN, TOUR_TB_BUCHHOLZ };
        /* 0 (plus): 3 (1.5), 4 (1.5), 5 (2.5), 6 (3); the lowest goes: 7
         * 1 (even): 4 (1.5), 5 (2.5), 6 (3), 3 (1.5); lowest and highest: 4
         * 2 (minus): 5 (2.5), 6 (3), 3 (1.5), 4 (1.5); the highest goes: 5.5
         * 3 (even): 0 (3), its bye (0), 2 (½), 1 (2): 2.5
         * 4 (even): 1 (2), 0 (3), the forfeit it won (0), 2 (½): 2.5
         * 5 (plus): 2 (½), 1 (2), 0 (3), 7 (1.5): 6.5
         * 6 (plus): its forfeit (0), 2 (½), 1 (2), 0 (3): 5.5
         * 7 (minus): 6's forfeit (0), its forfeit (0), 5 (2.5): 0
         * FIDE's Buchholz counts points as they are, and the forfeits and
         * the bye as dummies of the entrant's own points: 0, 1 and 2 all met
         * 3, 4, 5, 6 (2 + 2 + 2.5 + 2.5 = 9). */
        static const double want[8] = { 7, 4, 5.5, 2.5, 2.5, 6.5, 5.5, 0 };
        static const double points[8] = { 3, 2, 0.5, 2, 2, 2.5, 2.5, 1.5 };
        struct tour_points_config pc;

        (void) state;
        r[3].forfeit[0] = true;
        r[10].forfeit[1] = true;
        tour_points_defaults_chess(&pc);
        assert_int_equal(compute(8, r, ELEMENTSOF(r), byes, 1, &pc, tb, 2, NULL), 8);
        for (int e = 0; e < 8; e++) {
                assert_float_equal(row_of(8, e)->points, points[e], EPS);
                if (fabs(row_of(8, e)->tb[0] - want[e]) > EPS)
                        fail_msg("entrant %d: modified median %g, want %g", e, row_of(8, e)->tb[0], want[e]);
        }
        for (int e = 0; e < 3; e++)
                assert_float_equal(row_of(8, e)->tb[1], 9, EPS);
}

/* ---- Bad input. */

static void expect_refused(const struct tour_standings_input *in, const char *field) {
        struct tour_points_error err;

        memset(&err, 0, sizeof err);
        assert_int_equal(tour_standings_compute(in, rows, &err), -EINVAL);
        if (field)
                assert_string_equal(err.field, field);
        assert_true(err.message[0] != '\0');
}

static void bad_input_is_refused_and_names_the_field(void **state) {
        struct tour_points_config pc, bad;
        struct tour_result r[2] = { WIN(1, 0, 1), WIN(1, 2, 3) };
        struct tour_bye b[1] = { { 1, 0 } };
        enum tour_standings_tb tb[TOUR_STANDINGS_MAX_TIEBREAKS + 1];
        struct tour_standings_input ok, in;

        (void) state;
        tour_points_defaults_wdl(&pc);
        for (size_t k = 0; k < TOUR_STANDINGS_MAX_TIEBREAKS + 1; k++)
                tb[k] = TOUR_TB_BUCHHOLZ;
        ok = (struct tour_standings_input) { .n = 4, .results = r, .n_results = 2, .points = &pc,
                                              .tiebreaks = tb, .n_tiebreaks = 1 };
        assert_int_equal(tour_standings_compute(&ok, rows, NULL), 4);
        assert_int_equal(tour_standings_compute(NULL, rows, NULL), -EINVAL);
        assert_int_equal(tour_standings_compute(&ok, NULL, NULL), -EINVAL);

        in = ok, in.n = 0;
        expect_refused(&in, "n");
        in = ok, in.n = TOUR_STANDINGS_MAX_ENTRANTS + 1;
        expect_refused(&in, "n");
        in = ok, in.points = NULL;
        expect_refused(&in, "points");
        bad = pc, bad.draw = 5;
        in = ok, in.points = &bad;
        expect_refused(&in, "draw");
        in = ok, in.results = NULL;
        expect_refused(&in, "results");
        in = ok, in.n_byes = 1;
        expect_refused(&in, "byes");
        in = ok, in.n_tiebreaks = TOUR_STANDINGS_MAX_TIEBREAKS + 1;
        expect_refused(&in, "tiebreaks");
        tb[0] = 99;
        expect_refused(&ok, "tiebreaks[0]");
        tb[0] = TOUR_TB_BUCHHOLZ;
        in = ok, in.n = 3;                      /* entrant 3 is outside 0..2 */
        expect_refused(&in, "results[1].entrant[1]");
        r[1].rank[1] = 3;
        expect_refused(&ok, "results[1].rank[1]");
        r[1].rank[1] = 2;
        r[1].entrant[1] = 1;                    /* 1 at two tables in round 1 */
        expect_refused(&ok, "entrant 1, round 1");
        r[1].entrant[1] = 3;
        in = ok, in.byes = b, in.n_byes = 1;    /* 0 both plays and has a bye */
        expect_refused(&in, "entrant 0, round 1");
        b[0] = (struct tour_bye) { 0, 0 };
        expect_refused(&in, "byes[0].round");
        b[0] = (struct tour_bye) { 2, 4 };
        expect_refused(&in, "byes[0].entrant");
        b[0] = (struct tour_bye) { 2, 0 };
        assert_int_equal(tour_standings_compute(&in, rows, NULL), 4);
        bad = pc;
        bad.mode = TOUR_POINTS_PLACEMENT, bad.rule = TOUR_POINTS_TABLE;
        in = ok, in.points = &bad;              /* no table for duels */
        expect_refused(&in, "results[0].placement.table[2]");
}

static void tiebreaks_have_names_and_directions(void **state) {
        enum tour_standings_tb t;

        (void) state;
        for (int k = TOUR_TB_BUCHHOLZ; k <= TOUR_TB_LAST; k++) {
                const char *name = tour_standings_tb_name(k);

                assert_non_null(name);
                assert_int_equal(tour_standings_tb_from_name(name, &t), 0);
                assert_int_equal(t, k);
        }
        assert_null(tour_standings_tb_name(0));
        assert_null(tour_standings_tb_name(TOUR_TB_LAST + 1));
        /* the old name keeps its own value, so configurations read back as
         * they were written */
        assert_string_equal(tour_standings_tb_name(TOUR_TB_MEDIAN), "median");
        assert_string_equal(tour_standings_tb_name(TOUR_TB_MEDIAN1), "median1");
        assert_string_equal(tour_standings_tb_name(TOUR_TB_MEDIAN2), "median2");
        assert_string_equal(tour_standings_tb_name(TOUR_TB_MODIFIED_MEDIAN), "modified_median");
        assert_int_equal(tour_standings_tb_higher_is_better(TOUR_TB_MODIFIED_MEDIAN), 1);
        assert_int_equal(tour_standings_tb_higher_is_better(TOUR_TB_MEDIAN2), 1);
        assert_int_equal(tour_standings_tb_from_name("tiebreak", &t), -EINVAL);
        assert_int_equal(tour_standings_tb_higher_is_better(TOUR_TB_BUCHHOLZ), 1);
        assert_int_equal(tour_standings_tb_higher_is_better(TOUR_TB_PLACEMENT_AVG), 0);
        assert_int_equal(tour_standings_tb_higher_is_better(TOUR_TB_DIRECT_ENCOUNTER), 0);
        assert_int_equal(tour_standings_tb_higher_is_better(0), -EINVAL);
}

/* ---- Random stages. */

static uint64_t rng_next(uint64_t *s) {
        /* splitmix64 (Steele, Lea and Flood, OOPSLA 2014) */
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static int rng_below(uint64_t *s, int bound) {
        return (int) (rng_next(s) % (uint64_t) bound);
}

static void shuffle_ints(uint64_t *s, int *a, int n) {
        for (int i = n - 1; i > 0; i--) {
                int j = rng_below(s, i + 1), t = a[i];

                a[i] = a[j];
                a[j] = t;
        }
}

#define FIELDS          300
#define MAX_N           300
#define MAX_ROUNDS      7
#define MAX_RES         (MAX_N * MAX_ROUNDS)

struct field {
        int n, rounds;
        struct tour_result res[MAX_RES];
        size_t n_res;
        struct tour_bye byes[MAX_N * MAX_ROUNDS];
        size_t n_byes;
        bool dropped[MAX_N];
        struct tour_points_config pc;
        enum tour_standings_tb tb[TOUR_STANDINGS_MAX_TIEBREAKS];
        size_t n_tb;
};

static void random_field(uint64_t *s, struct field *f) {
        int order[MAX_N], drop_after[MAX_N], max_table = 2 + rng_below(s, 3);

        memset(f, 0, sizeof *f);
        f->n = 2 + rng_below(s, MAX_N - 1);
        f->rounds = 1 + rng_below(s, MAX_ROUNDS);
        switch (rng_below(s, 4)) {
        case 0:
                tour_points_defaults_wdl(&f->pc);
                break;
        case 1:
                tour_points_defaults_chess(&f->pc);
                break;
        case 2:
                tour_points_defaults_placement(&f->pc);
                break;
        default:
                /* thirds that do not add up exactly in binary */
                tour_points_defaults_placement(&f->pc);
                f->pc.rule = TOUR_POINTS_TABLE;
                f->pc.bye = 7.0 / 3;
                for (int k = 1; k <= 4; k++) {
                        f->pc.table_set[k] = true;
                        for (int p = 0; p < k; p++)
                                f->pc.table[k][p] = (k - p) * 10.0 / 3;
                }
                break;
        }
        f->n_tb = (size_t) rng_below(s, TOUR_STANDINGS_MAX_TIEBREAKS + 1);
        for (size_t k = 0; k < f->n_tb; k++)
                f->tb[k] = (enum tour_standings_tb) (1 + rng_below(s, TOUR_TB_LAST));
        for (int e = 0; e < f->n; e++)
                drop_after[e] = rng_below(s, 8) == 0 ? 1 + rng_below(s, f->rounds) : f->rounds + 1;

        for (int round = 1; round <= f->rounds; round++) {
                int m = 0;

                for (int e = 0; e < f->n; e++)
                        if (drop_after[e] >= round)
                                order[m++] = e;
                shuffle_ints(s, order, m);
                for (int i = 0; i < m;) {
                        int k = 2 + rng_below(s, max_table - 1), perf[TOUR_MAX_SEATS];
                        struct tour_result *r;

                        if (m - i < k)
                                k = m - i;
                        if (k == 1) {
                                f->byes[f->n_byes++] = (struct tour_bye) { round, order[i++] };
                                continue;
                        }
                        r = &f->res[f->n_res++];
                        r->round = round;
                        r->n = k;
                        for (int j = 0; j < k; j++) {
                                r->entrant[j] = order[i + j];
                                r->forfeit[j] = rng_below(s, 20) == 0;
                                /* few distinct performances: plenty of ties */
                                perf[j] = r->forfeit[j] ? -1 : rng_below(s, 3);
                                r->score[j] = rng_below(s, 2) ? rng_below(s, 3) : 0;
                        }
                        for (int j = 0; j < k; j++) {
                                r->rank[j] = 1;
                                for (int q = 0; q < k; q++)
                                        r->rank[j] += perf[q] > perf[j];
                        }
                        i += k;
                }
        }
        for (int e = 0; e < f->n; e++)
                f->dropped[e] = drop_after[e] <= f->rounds;
}

/* The same field with the results and byes of every round listed in
 * another order (rounds stay in order, as the caller keeps them). */
static void shuffle_within_rounds(uint64_t *s, struct field *f) {
        for (size_t a = 0; a < f->n_res;) {
                size_t b = a;

                while (b < f->n_res && f->res[b].round == f->res[a].round)
                        b++;
                for (size_t i = b - a - 1; i > 0; i--) {
                        size_t j = (size_t) rng_below(s, (int) i + 1);
                        struct tour_result t = f->res[a + i];

                        f->res[a + i] = f->res[a + j];
                        f->res[a + j] = t;
                }
                a = b;
        }
        for (size_t i = f->n_byes; i > 1; i--) {
                size_t j = (size_t) rng_below(s, (int) i);
                struct tour_bye t = f->byes[i - 1];

                f->byes[i - 1] = f->byes[j];
                f->byes[j] = t;
        }
}

static int compute_field(const struct field *f, struct tour_standings_row *out) {
        struct tour_standings_input in = {
                .n = f->n, .dropped = f->dropped, .results = f->res, .n_results = f->n_res,
                .byes = f->byes, .n_byes = f->n_byes, .points = &f->pc, .tiebreaks = f->tb,
                .n_tiebreaks = f->n_tb,
        };
        struct tour_points_error err = { "", "" };
        int r = tour_standings_compute(&in, out, &err);

        if (r < 0)
                fail_msg("random field refused: %s: %s", err.field, err.message);
        return r;
}

/* -1 if row a must come before row b on key k (−1 points), 1 after, 0 equal. */
static int key_cmp(const struct field *f, const struct tour_standings_row *a, const struct tour_standings_row *b,
                   int k) {
        double va = k < 0 ? a->points : a->tb[k], vb = k < 0 ? b->points : b->tb[k];
        bool higher = k < 0 || tour_standings_tb_higher_is_better(f->tb[k]) == 1;

        if (fabs(va - vb) <= TOUR_STANDINGS_RESOLUTION)
                return 0;
        return (va > vb) == higher ? -1 : 1;
}

static void standings_are_a_pure_function_of_the_results_in_any_order_within_a_round(void **state) {
        static struct field f;
        static struct tour_standings_row a[MAX_N], b[MAX_N];
        uint64_t seed = UINT64_C(20261129);

        (void) state;
        for (int t = 0; t < FIELDS; t++) {
                double awarded = 0, listed = 0;

                random_field(&seed, &f);
                assert_int_equal(compute_field(&f, a), f.n);

                /* points conserved: what the results and byes award is what
                 * the rows hold */
                for (size_t i = 0; i < f.n_res; i++) {
                        double p[TOUR_MAX_SEATS];

                        assert_int_equal(tour_points_award(&f.pc, &f.res[i], p, NULL), f.res[i].n);
                        for (int j = 0; j < f.res[i].n; j++)
                                awarded += p[j];
                }
                awarded += f.pc.bye * (double) f.n_byes;
                for (int p = 0; p < f.n; p++)
                        listed += a[p].points;
                assert_float_equal(listed, awarded, 1e-6);

                /* ranks 1..n, shared exactly by rows equal on every key,
                 * which are listed by entrant index */
                {
                        bool seen[MAX_N] = { false };

                        for (int p = 0; p < f.n; p++) {
                                assert_false(seen[a[p].entrant]);
                                seen[a[p].entrant] = true;
                                assert_int_equal(a[p].dropped, f.dropped[a[p].entrant]);
                        }
                }
                assert_int_equal(a[0].rank, 1);
                for (int p = 1; p < f.n; p++) {
                        int c = 0;

                        for (int k = -1; k < (int) f.n_tb && c == 0; k++)
                                c = key_cmp(&f, &a[p - 1], &a[p], k);
                        assert_true(c <= 0);
                        if (c == 0) {
                                assert_int_equal(a[p].rank, a[p - 1].rank);
                                assert_true(a[p - 1].entrant < a[p].entrant);
                        } else {
                                assert_int_equal(a[p].rank, p + 1);
                        }
                }

                /* the same field, listed differently: the same standings */
                shuffle_within_rounds(&seed, &f);
                assert_int_equal(compute_field(&f, b), f.n);
                for (int p = 0; p < f.n; p++) {
                        assert_int_equal(a[p].entrant, b[p].entrant);
                        assert_int_equal(a[p].rank, b[p].rank);
                        assert_true(a[p].points == b[p].points);
                        assert_int_equal(a[p].won, b[p].won);
                        assert_int_equal(a[p].drawn, b[p].drawn);
                        assert_int_equal(a[p].lost, b[p].lost);
                        assert_int_equal(a[p].byes, b[p].byes);
                        assert_true(a[p].game_win_pct == b[p].game_win_pct);
                        for (size_t k = 0; k < f.n_tb; k++)
                                assert_true(a[p].tb[k] == b[p].tb[k]);
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_swiss_with_a_bye_and_a_draw_has_the_hand_computed_tiebreaks),
                cmocka_unit_test(rows_equal_on_everything_share_a_rank_listed_by_entrant_index),
                cmocka_unit_test(a_pod_league_is_ordered_by_placement_points_then_seat_adjusted_score),
                cmocka_unit_test(a_three_way_tie_is_broken_by_direct_encounter_applied_again_to_the_still_tied),
                cmocka_unit_test(omw_and_gw_floor_every_percentage_at_a_third),
                cmocka_unit_test(an_entrant_who_met_nobody_has_the_floor_for_opponents_percentages),
                cmocka_unit_test(a_double_forfeit_is_a_loss_for_both_and_scores_nobody),
                cmocka_unit_test(a_dropped_player_keeps_its_results_and_its_place),
                cmocka_unit_test(buchholz_counts_a_dummy_for_byes_and_forfeits_and_draws_for_a_dropped_opponents_missed_rounds),
                cmocka_unit_test(cut1_cuts_a_round_the_entrant_chose_not_to_play_before_its_lowest_opponent),
                cmocka_unit_test(median1_cuts_the_lowest_and_the_highest_and_median_is_its_old_name),
                cmocka_unit_test(median2_cuts_the_two_lowest_and_the_two_highest),
                cmocka_unit_test(modified_median_from_nine_rounds_cuts_two_as_the_score_says),
                cmocka_unit_test(modified_median_cuts_by_the_score_and_adjusts_unplayed_rounds_to_draws),
                cmocka_unit_test(bad_input_is_refused_and_names_the_field),
                cmocka_unit_test(tiebreaks_have_names_and_directions),
                cmocka_unit_test(standings_are_a_pure_function_of_the_results_in_any_order_within_a_round),
        };
        return cmocka_run_group_tests_name("standings", tests, NULL, NULL);
}
