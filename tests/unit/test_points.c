/* Points of one result (tournament/points.h, docs/tournaments.md "Points").
 *
 * Every expected value is worked out by hand in a comment next to it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/points.h"

#define EPS 1e-12

/* A result of n participants: entrants e, ranks r, no forfeit, no score. */
static struct tour_result result(int n, const int32_t *e, const int *r) {
        struct tour_result res = { .round = 1, .n = n };

        for (int i = 0; i < n; i++) {
                res.entrant[i] = e[i];
                res.rank[i] = r[i];
        }
        return res;
}

static void wdl_defaults_are_three_one_zero_and_a_bye_is_a_win(void **state) {
        struct tour_points_config c;

        (void) state;
        tour_points_defaults_wdl(&c);
        assert_int_equal(c.mode, TOUR_POINTS_WDL);
        assert_float_equal(c.win, 3.0, EPS);
        assert_float_equal(c.draw, 1.0, EPS);
        assert_float_equal(c.loss, 0.0, EPS);
        assert_float_equal(c.bye, 3.0, EPS);
        assert_float_equal(c.forfeit_loss, 0.0, EPS);
        assert_int_equal(tour_points_validate(&c, NULL), 0);
}

static void chess_defaults_are_one_half_zero(void **state) {
        struct tour_points_config c;

        (void) state;
        tour_points_defaults_chess(&c);
        assert_float_equal(c.win, 1.0, EPS);
        assert_float_equal(c.draw, 0.5, EPS);
        assert_float_equal(c.loss, 0.0, EPS);
        assert_float_equal(c.bye, 1.0, EPS);
        assert_int_equal(tour_points_validate(&c, NULL), 0);
}

static void a_duel_win_and_a_draw_score_by_wdl(void **state) {
        struct tour_points_config c;
        struct tour_result won = result(2, (int32_t[]) { 7, 3 }, (int[]) { 2, 1 });
        struct tour_result drawn = result(2, (int32_t[]) { 7, 3 }, (int[]) { 1, 1 });
        double p[2];

        (void) state;
        tour_points_defaults_wdl(&c);
        assert_int_equal(tour_points_award(&c, &won, p, NULL), 2);
        /* seat 2 (entrant 3) is first: 3 points, seat 1 nothing */
        assert_float_equal(p[0], 0.0, EPS);
        assert_float_equal(p[1], 3.0, EPS);
        assert_int_equal(tour_points_outcome(&won, 0), TOUR_POINTS_LOST);
        assert_int_equal(tour_points_outcome(&won, 1), TOUR_POINTS_WON);
        assert_int_equal(tour_points_award(&c, &drawn, p, NULL), 2);
        assert_float_equal(p[0], 1.0, EPS);
        assert_float_equal(p[1], 1.0, EPS);
        assert_int_equal(tour_points_outcome(&drawn, 0), TOUR_POINTS_DREW);
}

static void a_pod_in_wdl_mode_gives_the_win_to_the_sole_first_and_draws_to_shared_firsts(void **state) {
        struct tour_points_config c;
        struct tour_result sole = result(4, (int32_t[]) { 0, 1, 2, 3 }, (int[]) { 3, 1, 2, 4 });
        struct tour_result shared = result(4, (int32_t[]) { 0, 1, 2, 3 }, (int[]) { 1, 3, 1, 4 });
        double p[4];

        (void) state;
        tour_points_defaults_wdl(&c);
        assert_int_equal(tour_points_award(&c, &sole, p, NULL), 4);
        /* only rank 1 wins; second, third and fourth are all losses */
        assert_float_equal(p[0], 0.0, EPS);
        assert_float_equal(p[1], 3.0, EPS);
        assert_float_equal(p[2], 0.0, EPS);
        assert_float_equal(p[3], 0.0, EPS);
        assert_int_equal(tour_points_award(&c, &shared, p, NULL), 4);
        assert_float_equal(p[0], 1.0, EPS);
        assert_float_equal(p[1], 0.0, EPS);
        assert_float_equal(p[2], 1.0, EPS);
        assert_float_equal(p[3], 0.0, EPS);
}

static void placement_by_n_minus_rank_gives_three_two_one_zero_at_four_and_one_zero_in_a_duel(void **state) {
        struct tour_points_config c;
        struct tour_result pod = result(4, (int32_t[]) { 0, 1, 2, 3 }, (int[]) { 2, 4, 1, 3 });
        struct tour_result duel = result(2, (int32_t[]) { 5, 6 }, (int[]) { 1, 2 });
        double p[4];

        (void) state;
        tour_points_defaults_placement(&c);
        assert_int_equal(tour_points_validate(&c, NULL), 0);
        assert_int_equal(tour_points_award(&c, &pod, p, NULL), 4);
        assert_float_equal(p[0], 2.0, EPS);     /* 4 − 2 */
        assert_float_equal(p[1], 0.0, EPS);     /* 4 − 4 */
        assert_float_equal(p[2], 3.0, EPS);     /* 4 − 1 */
        assert_float_equal(p[3], 1.0, EPS);     /* 4 − 3 */
        assert_int_equal(tour_points_award(&c, &duel, p, NULL), 2);
        assert_float_equal(p[0], 1.0, EPS);
        assert_float_equal(p[1], 0.0, EPS);
}

static void tied_places_share_the_average_of_the_places_they_cover(void **state) {
        struct tour_points_config c;
        struct tour_result second = result(4, (int32_t[]) { 0, 1, 2, 3 }, (int[]) { 1, 2, 2, 4 });
        struct tour_result three_first = result(4, (int32_t[]) { 0, 1, 2, 3 }, (int[]) { 1, 1, 1, 4 });
        double p[4];

        (void) state;
        tour_points_defaults_placement(&c);
        c.rule = TOUR_POINTS_TABLE;
        c.table_set[4] = true;
        memcpy(c.table[4], (double[]) { 5, 3, 2, 1 }, 4 * sizeof(double));
        assert_int_equal(tour_points_validate(&c, NULL), 0);

        assert_int_equal(tour_points_award(&c, &second, p, NULL), 4);
        assert_float_equal(p[0], 5.0, EPS);
        assert_float_equal(p[1], 2.5, EPS);     /* places 2 and 3: (3 + 2) / 2 */
        assert_float_equal(p[2], 2.5, EPS);
        assert_float_equal(p[3], 1.0, EPS);
        assert_int_equal(tour_points_award(&c, &three_first, p, NULL), 4);
        assert_float_equal(p[0], 10.0 / 3, EPS);        /* places 1..3: (5 + 3 + 2) / 3 */
        assert_float_equal(p[1], 10.0 / 3, EPS);
        assert_float_equal(p[2], 10.0 / 3, EPS);
        assert_float_equal(p[3], 1.0, EPS);
}

static void a_forfeit_gets_the_forfeit_loss_and_counts_as_a_loss(void **state) {
        struct tour_points_config c;
        struct tour_result duel = result(2, (int32_t[]) { 0, 1 }, (int[]) { 2, 1 });
        struct tour_result pod = result(4, (int32_t[]) { 0, 1, 2, 3 }, (int[]) { 1, 4, 2, 3 });
        double p[4];

        (void) state;
        tour_points_defaults_wdl(&c);
        c.forfeit_loss = -1.0;          /* a club that fines no-shows */
        duel.forfeit[0] = true;
        assert_int_equal(tour_points_award(&c, &duel, p, NULL), 2);
        assert_float_equal(p[0], -1.0, EPS);
        assert_float_equal(p[1], 3.0, EPS);
        assert_int_equal(tour_points_outcome(&duel, 0), TOUR_POINTS_LOST);
        assert_int_equal(tour_points_outcome(&duel, 1), TOUR_POINTS_WON);

        /* a no-show at a pod of 4 under n − rank: the three who played keep
         * the points of a table of 4 for places 1..3 (3, 2, 1) */
        tour_points_defaults_placement(&c);
        pod.forfeit[1] = true;
        assert_int_equal(tour_points_award(&c, &pod, p, NULL), 4);
        assert_float_equal(p[0], 3.0, EPS);
        assert_float_equal(p[1], 0.0, EPS);
        assert_float_equal(p[2], 2.0, EPS);
        assert_float_equal(p[3], 1.0, EPS);
}

static void a_double_forfeit_scores_nobody_and_is_a_loss_for_both(void **state) {
        struct tour_points_config c;
        struct tour_result duel = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 1 });
        double p[2];

        (void) state;
        tour_points_defaults_wdl(&c);
        duel.forfeit[0] = duel.forfeit[1] = true;
        assert_int_equal(tour_points_award(&c, &duel, p, NULL), 2);
        /* ranks 1 and 1 would be a draw worth 1 each; forfeits make it 0 and 0 */
        assert_float_equal(p[0], 0.0, EPS);
        assert_float_equal(p[1], 0.0, EPS);
        assert_int_equal(tour_points_outcome(&duel, 0), TOUR_POINTS_LOST);
        assert_int_equal(tour_points_outcome(&duel, 1), TOUR_POINTS_LOST);
}

static void a_size_without_a_table_is_refused_with_its_field(void **state) {
        struct tour_points_config c;
        struct tour_points_error err;
        struct tour_result trio = result(3, (int32_t[]) { 0, 1, 2 }, (int[]) { 1, 2, 3 });
        double p[3];

        (void) state;
        tour_points_defaults_placement(&c);
        c.rule = TOUR_POINTS_TABLE;
        c.table_set[4] = true;
        memcpy(c.table[4], (double[]) { 3, 2, 1, 0 }, 4 * sizeof(double));
        assert_int_equal(tour_points_award(&c, &trio, p, &err), -EINVAL);
        assert_string_equal(err.field, "placement.table[3]");
}

static void expect_config_refused(const struct tour_points_config *c, const char *field) {
        struct tour_points_error err;

        memset(&err, 0, sizeof err);
        assert_int_equal(tour_points_validate(c, &err), -EINVAL);
        assert_string_equal(err.field, field);
        assert_true(err.message[0] != '\0');
}

static void bad_configs_are_refused_with_the_field_named(void **state) {
        struct tour_points_config c;

        (void) state;
        assert_int_equal(tour_points_validate(NULL, NULL), -EINVAL);
        tour_points_defaults_wdl(&c);
        c.draw = 4;
        expect_config_refused(&c, "draw");
        tour_points_defaults_wdl(&c);
        c.loss = 2;
        expect_config_refused(&c, "loss");
        tour_points_defaults_wdl(&c);
        c.win = NAN;
        expect_config_refused(&c, "win");
        tour_points_defaults_wdl(&c);
        c.bye = INFINITY;
        expect_config_refused(&c, "bye");
        tour_points_defaults_wdl(&c);
        c.forfeit_loss = -2e6;
        expect_config_refused(&c, "forfeit_loss");
        tour_points_defaults_wdl(&c);
        c.mode = 0;
        expect_config_refused(&c, "mode");
        tour_points_defaults_placement(&c);
        c.rule = 7;
        expect_config_refused(&c, "placement.rule");
        tour_points_defaults_placement(&c);
        c.rule = TOUR_POINTS_TABLE;
        c.table_set[4] = true;
        memcpy(c.table[4], (double[]) { 3, 1, 2, 0 }, 4 * sizeof(double));
        expect_config_refused(&c, "placement.table[4][3]");
}

static void expect_result_refused(const struct tour_result *res, const char *field) {
        struct tour_points_config c;
        struct tour_points_error err;
        double p[TOUR_MAX_SEATS];

        tour_points_defaults_wdl(&c);
        memset(&err, 0, sizeof err);
        assert_int_equal(tour_points_check_result(res, &err), -EINVAL);
        assert_string_equal(err.field, field);
        assert_int_equal(tour_points_award(&c, res, p, NULL), -EINVAL);
}

static void inconsistent_results_are_refused(void **state) {
        struct tour_result r;

        (void) state;
        assert_int_equal(tour_points_check_result(NULL, NULL), -EINVAL);
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 2 });
        r.n = 0;
        expect_result_refused(&r, "n");
        r.n = TOUR_MAX_SEATS + 1;
        expect_result_refused(&r, "n");
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 2 });
        r.round = 0;
        expect_result_refused(&r, "round");
        r = result(2, (int32_t[]) { 0, 0 }, (int[]) { 1, 2 });
        expect_result_refused(&r, "entrant[1]");
        r = result(2, (int32_t[]) { -1, 0 }, (int[]) { 1, 2 });
        expect_result_refused(&r, "entrant[0]");
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 0, 1 });
        expect_result_refused(&r, "rank[0]");
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 2, 2 });
        expect_result_refused(&r, "rank[0]");         /* two seconds and no first */
        r = result(3, (int32_t[]) { 0, 1, 2 }, (int[]) { 1, 1, 2 });
        expect_result_refused(&r, "rank[2]");         /* after two firsts comes third */
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 2 });
        r.score[1] = NAN;
        expect_result_refused(&r, "score[1]");
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 2 });
        r.forfeit[0] = true;                          /* forfeited, yet first */
        expect_result_refused(&r, "forfeit");
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 1 });
        r.forfeit[0] = true;                          /* forfeited, yet tied with a player */
        expect_result_refused(&r, "forfeit");
        assert_int_equal(tour_points_outcome(NULL, 0), -EINVAL);
        r = result(2, (int32_t[]) { 0, 1 }, (int[]) { 1, 2 });
        assert_int_equal(tour_points_outcome(&r, 2), -EINVAL);
        assert_int_equal(tour_points_award(NULL, &r, (double[2]) { 0 }, NULL), -EINVAL);
        assert_int_equal(tour_points_award(&(struct tour_points_config) { .mode = TOUR_POINTS_WDL }, &r, NULL, NULL),
                         -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(wdl_defaults_are_three_one_zero_and_a_bye_is_a_win),
                cmocka_unit_test(chess_defaults_are_one_half_zero),
                cmocka_unit_test(a_duel_win_and_a_draw_score_by_wdl),
                cmocka_unit_test(a_pod_in_wdl_mode_gives_the_win_to_the_sole_first_and_draws_to_shared_firsts),
                cmocka_unit_test(placement_by_n_minus_rank_gives_three_two_one_zero_at_four_and_one_zero_in_a_duel),
                cmocka_unit_test(tied_places_share_the_average_of_the_places_they_cover),
                cmocka_unit_test(a_forfeit_gets_the_forfeit_loss_and_counts_as_a_loss),
                cmocka_unit_test(a_double_forfeit_scores_nobody_and_is_a_loss_for_both),
                cmocka_unit_test(a_size_without_a_table_is_refused_with_its_field),
                cmocka_unit_test(bad_configs_are_refused_with_the_field_named),
                cmocka_unit_test(inconsistent_results_are_refused),
        };
        return cmocka_run_group_tests_name("points", tests, NULL, NULL);
}
