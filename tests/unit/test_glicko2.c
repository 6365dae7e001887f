/* Glicko-2 (tournament/glicko2.h, docs/ratings.md).
 *
 * The paper's worked example is reproduced first (Glickman, "Example of the
 * Glicko-2 system", glicko.net/glicko/glicko2.pdf), then the period rule
 * arbiter chose (one result = one period for its two players), the
 * behaviour a ladder player notices, bad input, and the recompute driver. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/glicko2.h"

static void assert_close(double got, double want, double tol) {
        if (!(fabs(got - want) <= tol))
                fail_msg("got %.15g, want %.15g (tolerance %g)", got, want, tol);
}

/* splitmix64 (Steele, Lea and Flood 2014) for the seeded property tests */
static uint64_t g2_test_next(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static double g2_test_uniform(uint64_t *s, double lo, double hi) {
        return lo + (hi - lo) * (double) (g2_test_next(s) >> 11) * 0x1.0p-53;
}

static void glickmans_worked_example_is_reproduced(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating player = { 1500, 200, 0.06 };
        const struct tour_glicko2_game games[] = {
                { 1400, 30, 1 }, { 1550, 100, 0 }, { 1700, 300, 0 },
        };

        (void) state;
        tour_glicko2_params_default(&p);        /* tau = 0.5, as the example */
        assert_int_equal(tour_glicko2_rate_period(&p, &player, games, 3), 0);
        /* The paper, steps 2-8:
         *   mu = 0, phi = 200/173.7178 = 1.1513; opponents mu_j = -0.5756,
         *   0.2878, 1.1513, phi_j = 0.1727, 0.5756, 1.7269;
         *   g(phi_j) = 0.9955, 0.9531, 0.7242;  E = 0.639, 0.432, 0.303
         *   v = [sum g^2 E (1-E)]^-1 = 1.7785
         *   sum g (s - E) = -0.2717,  Delta = v * -0.2717 = -0.4834
         *   Illinois from A = ln(0.06^2) = -5.62682 ends at A = -5.62696,
         *   sigma' = e^(A/2) = 0.05999(6)
         *   phi* = sqrt(1.1513^2 + 0.05999^2) = 1.152854
         *   phi' = 1 / sqrt(1/phi*^2 + 1/v) = 0.8722
         *   mu' = 0 + phi'^2 * -0.2717 = -0.2069
         *   r' = 173.7178 * -0.2069 + 1500 = 1464.06,  RD' = 173.7178 * 0.8722 = 151.52
         * The paper rounds mu' to -0.2069 before scaling back; unrounded it is
         * -0.206943, r' = 1464.0507, so the printed 1464.06 is met to 0.01. */
        assert_close(player.rating, 1464.06, 0.01);
        assert_close(player.rd, 151.52, 0.005);
        assert_close(player.vol, 0.05999, 1e-5);
        assert_close((player.rating - 1500) / TOUR_GLICKO2_SCALE, -0.2069, 5e-5);
        assert_close(player.rd / TOUR_GLICKO2_SCALE, 0.8722, 5e-5);
        assert_close(log(player.vol * player.vol), -5.62696, 5e-6);
}

static void a_player_who_sits_out_a_period_only_gains_rd(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating r = { 1500, 200, 0.06 };

        (void) state;
        tour_glicko2_params_default(&p);
        assert_int_equal(tour_glicko2_rate_period(&p, &r, NULL, 0), 0);
        /* step 6 alone: phi' = sqrt(1.151292^2 + 0.06^2) = 1.152854,
         * RD' = 173.7178 * 1.152854 = 200.2714 */
        assert_close(r.rd, 173.7178 * sqrt(pow(200 / 173.7178, 2) + 0.06 * 0.06), 1e-9);
        assert_close(r.rd, 200.2714, 1e-4);
        assert_true(r.rating == 1500 && r.vol == 0.06);
}

static void a_win_between_newcomers_moves_both_by_the_same_amount(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating a, b;

        (void) state;
        tour_glicko2_params_default(&p);
        tour_glicko2_rating_init(&p, &a);
        tour_glicko2_rating_init(&p, &b);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &b, 1), 0);
        /* phi = 350/173.7178 = 2.014761, g(phi) = 1/sqrt(1 + 3 phi^2/pi^2) = 0.669080,
         * E = 0.5: v = 1 / (g^2 / 4) = 8.935, sum g (s - E) = 0.334540;
         * phi* = sqrt(phi^2 + 0.06^2) (sigma' ~ 0.06) = 2.015654,
         * phi' = 1/sqrt(1/phi*^2 + 1/v) = 1.671...;  mu' = phi'^2 * 0.334540 = 0.9343
         * r' = 1500 + 173.7178 * 0.9343 = 1662.3 */
        assert_close(a.rating, 1662.31, 0.01);
        assert_close(b.rating, 1337.69, 0.01);
        assert_close(a.rating - 1500, 1500 - b.rating, 1e-9);
        assert_true(a.rd == b.rd && a.rd < 350);
        assert_close(a.rd, 290.32, 0.01);
}

static void a_draw_between_equals_changes_no_rating(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating a = { 1620, 80, 0.06 }, b = { 1620, 80, 0.06 };

        (void) state;
        tour_glicko2_params_default(&p);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &b, 0.5), 0);
        assert_close(a.rating, 1620, 1e-9);
        assert_close(b.rating, 1620, 1e-9);
        assert_true(a.rd < 80);
}

static void a_duel_is_a_one_game_period_for_each_player(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating a = { 1700, 90, 0.05 }, b = { 1450, 220, 0.07 };
        struct tour_glicko2_rating ea = a, eb = b;
        const struct tour_glicko2_game ga = { 1450, 220, 0 }, gb = { 1700, 90, 1 };

        (void) state;
        tour_glicko2_params_default(&p);
        /* both from the pre-match ratings: b's period sees a's old 1700/90 */
        assert_int_equal(tour_glicko2_rate_period(&p, &ea, &ga, 1), 0);
        assert_int_equal(tour_glicko2_rate_period(&p, &eb, &gb, 1), 0);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &b, 0), 0);
        assert_memory_equal(&a, &ea, sizeof a);
        assert_memory_equal(&b, &eb, sizeof b);
        assert_true(b.rating > 1450 && a.rating < 1700);
}

static void an_upset_raises_volatility_and_more_so_with_a_larger_tau(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating low, high, calm;
        const struct tour_glicko2_game upset = { 1200, 50, 0 };  /* a 1900 loses to a 1200 */

        (void) state;
        tour_glicko2_params_default(&p);
        low = high = (struct tour_glicko2_rating) { 1900, 50, 0.06 };
        p.tau = TOUR_GLICKO2_TAU_MIN;
        assert_int_equal(tour_glicko2_rate_period(&p, &low, &upset, 1), 0);
        p.tau = TOUR_GLICKO2_TAU_MAX;
        assert_int_equal(tour_glicko2_rate_period(&p, &high, &upset, 1), 0);
        assert_true(low.vol > 0.06);
        assert_true(high.vol > low.vol);

        /* an expected win is no surprise: volatility drifts down */
        calm = (struct tour_glicko2_rating) { 1900, 50, 0.06 };
        p.tau = TOUR_GLICKO2_DEFAULT_TAU;
        assert_int_equal(tour_glicko2_rate_period(&p, &calm, &(struct tour_glicko2_game) { 1200, 50, 1 }, 1), 0);
        assert_true(calm.vol < 0.06);
}

static void winners_rise_losers_fall_over_random_duels(void **state) {
        struct tour_glicko2_params p;
        uint64_t seed = 424242;

        (void) state;
        tour_glicko2_params_default(&p);
        for (int i = 0; i < 5000; i++) {
                struct tour_glicko2_rating a = {
                        g2_test_uniform(&seed, 800, 2600), g2_test_uniform(&seed, 30, 350),
                        g2_test_uniform(&seed, 0.03, 0.1),
                };
                struct tour_glicko2_rating b = {
                        g2_test_uniform(&seed, 800, 2600), g2_test_uniform(&seed, 30, 350),
                        g2_test_uniform(&seed, 0.03, 0.1),
                };
                struct tour_glicko2_rating a0 = a, b0 = b;

                p.tau = g2_test_uniform(&seed, TOUR_GLICKO2_TAU_MIN, TOUR_GLICKO2_TAU_MAX);
                assert_int_equal(tour_glicko2_rate_duel(&p, &a, &b, 1), 0);
                assert_true(a.rating > a0.rating);
                assert_true(b.rating < b0.rating);
                /* a game is information: RD ends below the RD widened by
                 * the (new) volatility, sqrt(phi^2 + sigma'^2) */
                assert_true(a.rd < TOUR_GLICKO2_SCALE * sqrt(pow(a0.rd / TOUR_GLICKO2_SCALE, 2) + a.vol * a.vol));
                assert_true(b.rd < TOUR_GLICKO2_SCALE * sqrt(pow(b0.rd / TOUR_GLICKO2_SCALE, 2) + b.vol * b.vol));
                assert_true(a.vol > 0 && b.vol > 0);
        }
}

static void provisional_until_five_games_and_rd_below_110(void **state) {
        struct tour_glicko2_params p;
        struct tour_glicko2_rating x, y;
        int games = 0;

        (void) state;
        tour_glicko2_params_default(&p);
        tour_glicko2_rating_init(&p, &x);
        tour_glicko2_rating_init(&p, &y);
        assert_true(tour_glicko2_provisional(&p, &x, 0));
        /* two newcomers trading wins: RD 350, 290.3, 260.5, ... 116.6, 111.7,
         * 107.4 after 14 games; the RD rule, not the game count, decides */
        while (tour_glicko2_provisional(&p, &x, (unsigned) games)) {
                assert_int_equal(tour_glicko2_rate_duel(&p, &x, &y, games % 2), 0);
                games++;
                assert_true(games < 100);
        }
        assert_int_equal(games, 14);
        assert_true(x.rd < 110);
        x.rd = 50;
        assert_true(tour_glicko2_provisional(&p, &x, 4));
        assert_false(tour_glicko2_provisional(&p, &x, 5));
        x.rd = 110;
        assert_true(tour_glicko2_provisional(&p, &x, 500));
        p.provisional_rd = 0;
        assert_false(tour_glicko2_provisional(&p, &x, 500));
        assert_true(tour_glicko2_provisional(NULL, &x, 500));
}

static void bad_calls_are_refused_and_change_nothing(void **state) {
        struct tour_glicko2_params p, bad;
        struct tour_glicko2_rating a = { 1500, 200, 0.06 }, b = { 1500, 200, 0.06 };
        struct tour_glicko2_rating zero_rd = { 1500, 0, 0.06 }, nan_r = { NAN, 200, 0.06 };
        const struct tour_glicko2_game ok = { 1500, 100, 1 }, no_rd = { 1500, 0, 1 },
                                       score2 = { 1500, 100, 2 }, nan_s = { 1500, 100, NAN };

        (void) state;
        tour_glicko2_params_default(&p);
        bad = p;
        bad.tau = 0.2;
        assert_int_equal(tour_glicko2_rate_duel(&bad, &a, &b, 1), -EINVAL);
        bad.tau = 1.3;
        assert_int_equal(tour_glicko2_params_check(&bad), -EINVAL);
        bad = p;
        bad.vol = 0;
        assert_int_equal(tour_glicko2_params_check(&bad), -EINVAL);
        bad = p;
        bad.rd = NAN;
        assert_int_equal(tour_glicko2_rating_init(&bad, &a), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(NULL, &a, &b, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &a, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, NULL, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &zero_rd, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &nan_r, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &b, 1.5), -EINVAL);
        assert_int_equal(tour_glicko2_rate_duel(&p, &a, &b, NAN), -EINVAL);
        assert_int_equal(tour_glicko2_rate_period(&p, &a, NULL, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_period(&p, NULL, &ok, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_period(&p, &a, &no_rd, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_period(&p, &a, &score2, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_period(&p, &a, &nan_s, 1), -EINVAL);
        assert_int_equal(tour_glicko2_rate_period(&p, &a, &ok, TOUR_GLICKO2_MAX_GAMES + 1), -EINVAL);
        assert_true(a.rating == 1500 && a.rd == 200 && a.vol == 0.06);
        assert_true(b.rating == 1500 && b.rd == 200 && b.vol == 0.06);
}

/* ---- recompute ---------------------------------------------------------- */

static struct tour_result duel(int32_t a, int32_t b, int rank_a, int rank_b) {
        return (struct tour_result) {
                .round = 1, .n = 2, .entrant = { a, b }, .rank = { rank_a, rank_b },
        };
}

static void recompute_equals_the_same_duels_rated_by_hand(void **state) {
        struct tour_glicko2_params p;
        struct tour_result res[4] = { duel(0, 1, 1, 2), duel(2, 0, 1, 1), duel(1, 2, 2, 1), duel(2, 1, 3, 3) };
        struct tour_rating_match m[4] = { { &res[0], NULL }, { &res[1], NULL }, { &res[2], NULL }, { &res[3], NULL } };
        struct tour_glicko2_rating got[3], want[3];
        unsigned games[3];

        (void) state;
        tour_glicko2_params_default(&p);
        for (int i = 0; i < 3; i++)
                tour_glicko2_rating_init(&p, &want[i]);
        /* the ranks give the score: lower rank 1, equal ranks 0.5 each */
        assert_int_equal(tour_glicko2_rate_duel(&p, &want[0], &want[1], 1), 0);
        assert_int_equal(tour_glicko2_rate_duel(&p, &want[2], &want[0], 0.5), 0);
        assert_int_equal(tour_glicko2_rate_duel(&p, &want[1], &want[2], 0), 0);
        assert_int_equal(tour_glicko2_rate_duel(&p, &want[2], &want[1], 0.5), 0);
        assert_int_equal(tour_glicko2_recompute(&p, m, 4, 3, got, games, NULL, NULL), 4);
        assert_memory_equal(got, want, sizeof got);
        assert_int_equal(games[0], 2);
        assert_int_equal(games[1], 3);
        assert_int_equal(games[2], 3);
}

static void forfeited_duels_change_no_rating(void **state) {
        struct tour_glicko2_params p;
        struct tour_result res[2] = { duel(0, 1, 1, 2), duel(1, 0, 0, 0) };
        struct tour_rating_match m[2] = { { &res[0], NULL }, { &res[1], NULL } };
        struct tour_glicko2_rating got[2];
        unsigned games[2];

        (void) state;
        tour_glicko2_params_default(&p);
        res[0].forfeit[1] = true;
        res[1].forfeit[0] = res[1].forfeit[1] = true;   /* double forfeit, no ranks */
        assert_int_equal(tour_glicko2_recompute(&p, m, 2, 2, got, games, NULL, NULL), 0);
        for (int i = 0; i < 2; i++) {
                assert_true(got[i].rating == 1500 && got[i].rd == 350 && got[i].vol == 0.06);
                assert_int_equal(games[i], 0);
        }
}

static void results_that_are_not_duels_fail_the_recompute(void **state) {
        struct tour_glicko2_params p;
        struct tour_result three = { .n = 3, .entrant = { 0, 1, 2 }, .rank = { 1, 2, 3 } };
        struct tour_result one = { .n = 1, .entrant = { 0 }, .rank = { 1 } };
        struct tour_result out_of_range = duel(0, 3, 1, 2), twice = duel(2, 2, 1, 2),
                           rank_zero = duel(0, 1, 0, 1), fine = duel(0, 1, 1, 2);
        const int same_team[] = { 4, 4 };
        struct tour_rating_match cases[] = {
                { &three, NULL }, { &one, NULL }, { &out_of_range, NULL }, { &twice, NULL },
                { &rank_zero, NULL }, { &fine, same_team }, { NULL, NULL },
        };
        struct tour_glicko2_rating got[3];

        (void) state;
        tour_glicko2_params_default(&p);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct tour_rating_match m[2] = { { &fine, NULL }, cases[i] };

                assert_int_equal(tour_glicko2_recompute(&p, m, 2, 3, got, NULL, NULL, NULL), -EINVAL);
                assert_true(got[0].rating > 1500);      /* the state before the bad result */
        }
        assert_int_equal(tour_glicko2_recompute(&p, NULL, 1, 3, got, NULL, NULL, NULL), -EINVAL);
        assert_int_equal(tour_glicko2_recompute(&p, NULL, 0, 3, NULL, NULL, NULL, NULL), -EINVAL);
}

struct rows {
        struct tour_glicko2_history row[8];
        int n, stop_at;
};

static int collect(const struct tour_glicko2_history *row, void *userdata) {
        struct rows *rows = userdata;

        if (rows->n == rows->stop_at)
                return -ECANCELED;
        rows->row[rows->n++] = *row;
        return 0;
}

static void history_rows_give_before_and_after_for_both_seats(void **state) {
        struct tour_glicko2_params p;
        struct tour_result res[2] = { duel(3, 1, 2, 1), duel(1, 0, 1, 2) };
        struct tour_rating_match m[2] = { { &res[0], NULL }, { &res[1], NULL } };
        struct tour_glicko2_rating got[4];
        struct rows rows = { .stop_at = -1 };

        (void) state;
        tour_glicko2_params_default(&p);
        assert_int_equal(tour_glicko2_recompute(&p, m, 2, 4, got, NULL, collect, &rows), 2);
        assert_int_equal(rows.n, 4);
        assert_int_equal(rows.row[0].player, 3);
        assert_int_equal(rows.row[1].player, 1);
        assert_int_equal(rows.row[2].player, 1);
        assert_int_equal(rows.row[3].player, 0);
        assert_int_equal((int) rows.row[3].match, 1);
        assert_true(rows.row[0].before.rating == 1500 && rows.row[0].after.rating < 1500);
        assert_memory_equal(&rows.row[2].before, &rows.row[1].after, sizeof rows.row[2].before);
        assert_memory_equal(&rows.row[2].after, &got[1], sizeof got[1]);
        assert_true(got[2].rating == 1500 && got[2].rd == 350);   /* never played */

        rows = (struct rows) { .stop_at = 3 };
        assert_int_equal(tour_glicko2_recompute(&p, m, 2, 4, got, NULL, collect, &rows), -ECANCELED);
}

static void results_applied_one_by_one_as_they_become_final_equal_the_recompute(void **state) {
        struct tour_glicko2_params p;
        struct tour_result res[3] = { duel(0, 1, 1, 2), duel(2, 1, 1, 1), duel(0, 2, 2, 1) };
        struct tour_rating_match m[3] = { { &res[0], NULL }, { &res[1], NULL }, { &res[2], NULL } };
        struct tour_result forfeit = duel(0, 1, 1, 2), bad = duel(0, 1, 1, 0);
        struct tour_glicko2_rating live[3], again[3], snapshot[3];
        unsigned games_live[3] = { 0 }, games_again[3];

        (void) state;
        tour_glicko2_params_default(&p);
        for (int i = 0; i < 3; i++)
                tour_glicko2_rating_init(&p, &live[i]);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(tour_glicko2_apply(&p, &m[i], i, 3, live, games_live, NULL, NULL), 1);
        assert_int_equal(tour_glicko2_recompute(&p, m, 3, 3, again, games_again, NULL, NULL), 3);
        assert_memory_equal(live, again, sizeof live);
        assert_memory_equal(games_live, games_again, sizeof games_live);

        memcpy(snapshot, live, sizeof live);
        forfeit.forfeit[1] = true;
        assert_int_equal(tour_glicko2_apply(&p, &(struct tour_rating_match) { &forfeit, NULL }, 3, 3, live,
                                            NULL, NULL, NULL), 0);
        assert_int_equal(tour_glicko2_apply(&p, &(struct tour_rating_match) { &bad, NULL }, 4, 3, live,
                                            NULL, NULL, NULL), -EINVAL);
        assert_int_equal(tour_glicko2_apply(&p, &m[0], 5, 3, NULL, NULL, NULL, NULL), -EINVAL);
        assert_memory_equal(live, snapshot, sizeof live);
}

static void recompute_gives_the_same_bits_every_time(void **state) {
        enum { PLAYERS = 40, MATCHES = 4000 };
        static struct tour_result res[MATCHES];
        static struct tour_rating_match m[MATCHES];
        static struct tour_glicko2_rating a[PLAYERS], b[PLAYERS];
        struct tour_glicko2_params p;
        uint64_t seed = 99;

        (void) state;
        tour_glicko2_params_default(&p);
        for (int i = 0; i < MATCHES; i++) {
                int32_t x = (int32_t) (g2_test_next(&seed) % PLAYERS);
                int32_t y = (int32_t) ((x + 1 + g2_test_next(&seed) % (PLAYERS - 1)) % PLAYERS);
                int outcome = (int) (g2_test_next(&seed) % 3);  /* x wins, draw, y wins */

                res[i] = duel(x, y, outcome == 0 ? 1 : 2, outcome == 2 ? 1 : 2);
                m[i] = (struct tour_rating_match) { &res[i], NULL };
        }
        assert_int_equal(tour_glicko2_recompute(&p, m, MATCHES, PLAYERS, a, NULL, NULL, NULL), MATCHES);
        assert_int_equal(tour_glicko2_recompute(&p, m, MATCHES, PLAYERS, b, NULL, NULL, NULL), MATCHES);
        assert_memory_equal(a, b, sizeof a);
        for (int i = 0; i < PLAYERS; i++)
                assert_true(isfinite(a[i].rating) && a[i].rd > 0 && a[i].rd < 350 && a[i].vol > 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(glickmans_worked_example_is_reproduced),
                cmocka_unit_test(a_player_who_sits_out_a_period_only_gains_rd),
                cmocka_unit_test(a_win_between_newcomers_moves_both_by_the_same_amount),
                cmocka_unit_test(a_draw_between_equals_changes_no_rating),
                cmocka_unit_test(a_duel_is_a_one_game_period_for_each_player),
                cmocka_unit_test(an_upset_raises_volatility_and_more_so_with_a_larger_tau),
                cmocka_unit_test(winners_rise_losers_fall_over_random_duels),
                cmocka_unit_test(provisional_until_five_games_and_rd_below_110),
                cmocka_unit_test(bad_calls_are_refused_and_change_nothing),
                cmocka_unit_test(recompute_equals_the_same_duels_rated_by_hand),
                cmocka_unit_test(forfeited_duels_change_no_rating),
                cmocka_unit_test(results_that_are_not_duels_fail_the_recompute),
                cmocka_unit_test(history_rows_give_before_and_after_for_both_seats),
                cmocka_unit_test(results_applied_one_by_one_as_they_become_final_equal_the_recompute),
                cmocka_unit_test(recompute_gives_the_same_bits_every_time),
        };

        return cmocka_run_group_tests_name("glicko2", tests, NULL, NULL);
}
