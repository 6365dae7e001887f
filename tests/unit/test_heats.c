/* Free-for-all heats (tournament/heats.h, docs/formats/swiss-and-pods.md).
 *
 * Plans worked out by hand, the snake split, the cut line (ties, forfeits),
 * the next round's seeding, bad results, and a property run: random fields
 * of 2..300 played to the final follow their plan round by round. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/heats.h"

static uint64_t rng_next(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* A result for a heat in seat order with the given ranks and scores. */
static struct tour_result result(const struct tour_pairing *p, const int *rank, const double *score) {
        struct tour_result r = { .round = p->round, .n = p->n };
        for (int i = 0; i < p->n; i++) {
                r.entrant[i] = p->entrant[i];
                r.rank[i] = rank[i];
                r.score[i] = score ? score[i] : 0;
        }
        return r;
}

static void sixty_four_players_in_heats_of_four_with_two_advancing_take_five_rounds(void **state) {
        (void) state;
        struct tour_heats_stage st[16];

        /* 64 → 16 heats → 32 → 8 heats → 16 → 4 heats → 8 → 2 heats → 4,
         * the final: 5 rounds. */
        assert_int_equal(tour_heats_plan(64, 4, 2, st, 16), 5);
        int entrants[] = { 64, 32, 16, 8, 4 }, heats[] = { 16, 8, 4, 2, 1 };
        for (int r = 0; r < 5; r++) {
                assert_int_equal(st[r].entrants, entrants[r]);
                assert_int_equal(st[r].heats, heats[r]);
                assert_int_equal(st[r].min_size, 4);
                assert_int_equal(st[r].max_size, 4);
                assert_int_equal(st[r].advance, r < 4 ? entrants[r + 1] : 0);
        }
        assert_int_equal(tour_heats_plan(64, 4, 2, NULL, 0), 5);
        assert_int_equal(tour_heats_plan(64, 4, 2, st, 4), -ERANGE);
}

static void a_field_no_larger_than_a_heat_is_the_final(void **state) {
        (void) state;
        struct tour_heats_stage st[4];

        assert_int_equal(tour_heats_plan(6, 6, 3, st, 4), 1);
        assert_int_equal(st[0].heats, 1);
        assert_int_equal(st[0].advance, 0);
        assert_int_equal(tour_heats_plan(1, 4, 1, st, 4), 1);
}

static void a_small_heat_always_loses_at_least_one(void **state) {
        (void) state;
        struct tour_heats_stage st[4];

        /* 5 at heats of 4, q = 2: 2 heats of 3 and 2; they advance
         * min(2, 3−1) + min(2, 2−1) = 2 + 1 = 3, the final has 3. */
        assert_int_equal(tour_heats_plan(5, 4, 2, st, 4), 2);
        assert_int_equal(st[0].min_size, 2);
        assert_int_equal(st[0].max_size, 3);
        assert_int_equal(st[0].advance, 3);
        assert_int_equal(st[1].entrants, 3);
}

static void heats_are_dealt_in_a_snake_by_seed(void **state) {
        (void) state;
        int32_t field[10];
        struct tour_pairing p[4];

        /* 10 seeds over ceil(10/4) = 3 heats: 0 1 2 | 5 4 3 | 6 7 8 | 9 →
         * heat 1 = 0 5 6, heat 2 = 1 4 7, heat 3 = 2 3 8 9 (sizes 3, 3, 4;
         * seed sums 11, 12, 22 − the snake evens the first rows). */
        for (int i = 0; i < 10; i++)
                field[i] = 100 + i;
        assert_int_equal(tour_heats_round(1, field, 10, 4, p), 3);
        int want[3][4] = { { 0, 5, 6, -1 }, { 1, 4, 7, -1 }, { 2, 3, 8, 9 } };
        for (int h = 0; h < 3; h++) {
                assert_int_equal(p[h].table, h + 1);
                for (int s = 0; s < 4; s++)
                        assert_int_equal(p[h].entrant[s], want[h][s] < 0 ? TOUR_NONE : 100 + want[h][s]);
        }
        assert_int_equal(p[0].n + p[1].n + p[2].n, 10);
}

static void a_tie_at_the_cut_goes_to_the_better_heat_score_then_the_better_seed(void **state) {
        (void) state;
        int32_t field[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, next[8];
        struct tour_pairing p[2];
        struct tour_result res[2];

        /* Heats 0 3 4 7 and 1 2 5 6, q = 2.  Heat 1: 7 wins, 3 and 4 tie
         * for second with scores 10 and 12 → 4 advances.  Heat 2: 5 wins, 1
         * and 6 tie for second on equal score → the better seed, 1. */
        assert_int_equal(tour_heats_round(1, field, 8, 4, p), 2);
        int r1[4] = { 4, 2, 2, 1 };
        double s1[4] = { 0, 10, 12, 20 };
        int r2[4] = { 2, 4, 1, 2 };
        double s2[4] = { 5, 0, 9, 5 };
        res[0] = result(&p[0], r1, s1);
        res[1] = result(&p[1], r2, s2);
        /* Next field: winners by seed (5, 7), then seconds by seed (1, 4). */
        assert_int_equal(tour_heats_advance(field, 8, 2, res, 2, next), 4);
        int want[4] = { 5, 7, 1, 4 };
        for (int i = 0; i < 4; i++)
                assert_int_equal(next[i], want[i]);
}

static void a_forfeiting_entrant_never_advances(void **state) {
        (void) state;
        int32_t field[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, next[8];
        struct tour_pairing p[2];
        struct tour_result res[2];

        /* Heat 1 (0 3 4 7): 0 forfeits although ranked 1; 3 and 4 are the
         * top two who played.  Heat 2 (1 2 5 6): three forfeit, only 1
         * played: 1 alone advances. */
        tour_heats_round(1, field, 8, 4, p);
        int r1[4] = { 1, 2, 3, 4 }, r2[4] = { 1, 2, 2, 2 };
        res[0] = result(&p[0], r1, NULL);
        res[0].forfeit[0] = true;
        res[1] = result(&p[1], r2, NULL);
        res[1].forfeit[1] = res[1].forfeit[2] = res[1].forfeit[3] = true;
        assert_int_equal(tour_heats_advance(field, 8, 2, res, 2, next), 3);
        assert_int_equal(next[0], 1);
        assert_int_equal(next[1], 3);
        assert_int_equal(next[2], 4);
}

static void the_final_advances_nobody(void **state) {
        (void) state;
        int32_t field[4] = { 9, 8, 7, 6 }, next[4];
        struct tour_pairing p[1];
        struct tour_result res[1];
        int rk[4] = { 1, 2, 3, 4 };

        assert_int_equal(tour_heats_round(5, field, 4, 4, p), 1);
        assert_int_equal(p[0].round, 5);
        res[0] = result(&p[0], rk, NULL);
        assert_int_equal(tour_heats_advance(field, 4, 2, res, 1, next), 0);
}

static void results_that_miss_or_repeat_an_entrant_are_rejected(void **state) {
        (void) state;
        int32_t field[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, next[8];
        struct tour_pairing p[2];
        struct tour_result res[2];
        int rk[4] = { 1, 2, 3, 4 };

        tour_heats_round(1, field, 8, 4, p);
        res[0] = result(&p[0], rk, NULL);
        res[1] = result(&p[1], rk, NULL);
        assert_int_equal(tour_heats_advance(field, 8, 2, res, 1, next), -EINVAL); /* heat 2 missing */
        res[1].entrant[0] = 0;                                                    /* 0 twice */
        assert_int_equal(tour_heats_advance(field, 8, 2, res, 2, next), -EINVAL);
        res[1].entrant[0] = 42;                                                   /* not in the field */
        assert_int_equal(tour_heats_advance(field, 8, 2, res, 2, next), -EINVAL);
        res[1] = result(&p[1], rk, NULL);
        res[1].rank[2] = 0;                                                       /* ranks start at 1 */
        assert_int_equal(tour_heats_advance(field, 8, 2, res, 2, next), -EINVAL);
        field[3] = 0;                                                             /* field repeats 0 */
        assert_int_equal(tour_heats_round(1, field, 8, 4, p), -EINVAL);
        assert_int_equal(tour_heats_plan(8, 4, 4, NULL, 0), -EINVAL);             /* q must be < k */
        assert_int_equal(tour_heats_plan(8, 1, 1, NULL, 0), -EINVAL);
        assert_int_equal(tour_heats_plan(0, 4, 2, NULL, 0), -EINVAL);
        assert_int_equal(tour_heats_round(1, NULL, 8, 4, p), -EINVAL);
}

static void random_fields_played_to_the_final_follow_their_plan(void **state) {
        (void) state;
        uint64_t rng = 31;
        static struct tour_heats_stage st[512];
        static int32_t field[300], next[300];
        static struct tour_pairing p[300];
        static struct tour_result res[300];

        /* 200 events, n 2..300, k 2..8, q 1..k−1, random ranks with ties,
         * no forfeits: every round has exactly the planned heats, sizes
         * and advancing count, and the last round is one heat. */
        for (int ev = 0; ev < 200; ev++) {
                int n = 2 + (int) (rng_next(&rng) % 299);
                int k = 2 + (int) (rng_next(&rng) % 7);
                int q = 1 + (int) (rng_next(&rng) % (uint64_t) (k - 1));
                int rounds = tour_heats_plan(n, k, q, st, 512);
                assert_true(rounds >= 1);
                int m = n;
                for (int i = 0; i < n; i++)
                        field[i] = i;
                for (int r = 0; r < rounds; r++) {
                        assert_int_equal(m, st[r].entrants);
                        int h = tour_heats_round(r + 1, field, m, k, p);
                        assert_int_equal(h, st[r].heats);
                        for (int i = 0; i < h; i++) {
                                assert_true(p[i].n >= st[r].min_size && p[i].n <= st[r].max_size);
                                int rk[TOUR_MAX_SEATS];
                                for (int s = 0; s < p[i].n; s++)
                                        rk[s] = 1 + (int) (rng_next(&rng) % (uint64_t) p[i].n);
                                res[i] = result(&p[i], rk, NULL);
                        }
                        int a = tour_heats_advance(field, m, q, res, h, next);
                        assert_int_equal(a, st[r].advance);
                        memcpy(field, next, (size_t) a * sizeof *field);
                        m = a;
                }
                assert_int_equal(st[rounds - 1].heats, 1);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(sixty_four_players_in_heats_of_four_with_two_advancing_take_five_rounds),
                cmocka_unit_test(a_field_no_larger_than_a_heat_is_the_final),
                cmocka_unit_test(a_small_heat_always_loses_at_least_one),
                cmocka_unit_test(heats_are_dealt_in_a_snake_by_seed),
                cmocka_unit_test(a_tie_at_the_cut_goes_to_the_better_heat_score_then_the_better_seed),
                cmocka_unit_test(a_forfeiting_entrant_never_advances),
                cmocka_unit_test(the_final_advances_nobody),
                cmocka_unit_test(results_that_miss_or_repeat_an_entrant_are_rejected),
                cmocka_unit_test(random_fields_played_to_the_final_follow_their_plan),
        };
        return cmocka_run_group_tests_name("heats", tests, NULL, NULL);
}
