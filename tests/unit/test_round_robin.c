/* Round robin by the FIDE Berger tables (tournament/round_robin.h,
 * docs/formats/brackets.md "Round robin").
 *
 * The published tables of 6 and 8 verbatim, then properties for every n
 * from 2 to 300: each pair meets once per cycle (seats swapped in the
 * second), one game or bye per entrant per round, byes spread one per
 * entrant, colours balanced and never three alike in a row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/round_robin.h"

#define MAX_N 300

/* FIDE Handbook C.05 Annex 1, Berger tables: "white-black" by Berger
 * number, table 1 first. */
static const int berger6[5][3][2] = {
        { { 1, 6 }, { 2, 5 }, { 3, 4 } },
        { { 6, 4 }, { 5, 3 }, { 1, 2 } },
        { { 2, 6 }, { 3, 1 }, { 4, 5 } },
        { { 6, 5 }, { 1, 4 }, { 2, 3 } },
        { { 3, 6 }, { 4, 2 }, { 5, 1 } },
};

static const int berger8[7][4][2] = {
        { { 1, 8 }, { 2, 7 }, { 3, 6 }, { 4, 5 } },
        { { 8, 5 }, { 6, 4 }, { 7, 3 }, { 1, 2 } },
        { { 2, 8 }, { 3, 1 }, { 4, 7 }, { 5, 6 } },
        { { 8, 6 }, { 7, 5 }, { 1, 4 }, { 2, 3 } },
        { { 3, 8 }, { 4, 2 }, { 5, 1 }, { 6, 7 } },
        { { 8, 7 }, { 1, 6 }, { 2, 5 }, { 3, 4 } },
        { { 4, 8 }, { 5, 3 }, { 6, 2 }, { 7, 1 } },
};

static void the_fide_berger_tables_for_6_and_8_are_reproduced(void **state) {
        struct tour_pairing p[4];
        struct tour_bye bye;
        (void) state;

        for (int r = 0; r < 5; r++) {
                assert_int_equal(tour_round_robin_round(6, 1, r + 1, p, &bye), 3);
                assert_int_equal(bye.entrant, TOUR_NONE);
                for (int t = 0; t < 3; t++) {
                        assert_int_equal(p[t].round, r + 1);
                        assert_int_equal(p[t].table, t + 1);
                        assert_int_equal(p[t].n, 2);
                        assert_int_equal(p[t].entrant[0] + 1, berger6[r][t][0]);
                        assert_int_equal(p[t].entrant[1] + 1, berger6[r][t][1]);
                }
        }
        for (int r = 0; r < 7; r++) {
                assert_int_equal(tour_round_robin_round(8, 1, r + 1, p, NULL), 4);
                for (int t = 0; t < 4; t++) {
                        assert_int_equal(p[t].entrant[0] + 1, berger8[r][t][0]);
                        assert_int_equal(p[t].entrant[1] + 1, berger8[r][t][1]);
                }
        }
}

static void five_play_the_table_of_six_with_the_dummy_as_bye(void **state) {
        struct tour_pairing p[3];
        struct tour_bye bye;
        (void) state;

        /* n = 5: Berger number 6 is the dummy.  Round 1 of the table of 6 is
         * 1-6 2-5 3-4: entrant 1 has the bye, 2-5 is table 1, 3-4 table 2. */
        assert_int_equal(tour_round_robin_rounds(5, 1), 5);
        assert_int_equal(tour_round_robin_round(5, 1, 1, p, &bye), 2);
        assert_int_equal(bye.round, 1);
        assert_int_equal(bye.entrant, 0);
        assert_int_equal(p[0].table, 1);
        assert_int_equal(p[0].entrant[0], 1);
        assert_int_equal(p[0].entrant[1], 4);
        assert_int_equal(p[1].table, 2);
        /* round 2 is 6-4 5-3 1-2: entrant 4 sits out */
        assert_int_equal(tour_round_robin_round(5, 1, 2, p, &bye), 2);
        assert_int_equal(bye.entrant, 3);
}

/* Plays the whole schedule into a meeting count matrix and checks the
 * per-round and per-entrant invariants on the way. */
static void check_schedule(int n, int cycles) {
        int rounds = tour_round_robin_rounds(n, cycles), per = n % 2 ? n : n - 1;
        int games = rounds * (n / 2);
        struct tour_pairing *p = calloc((size_t) games, sizeof *p);
        struct tour_bye *byes = calloc((size_t) rounds, sizeof *byes);
        int *white = calloc((size_t) n * n, sizeof *white);     /* white[a*n+b]: a had white against b */
        int *seen = calloc((size_t) n, sizeof *seen);
        int *byes_of = calloc((size_t) n, sizeof *byes_of);
        int *whites = calloc((size_t) n, sizeof *whites), *blacks = calloc((size_t) n, sizeof *blacks);
        int *last = calloc((size_t) n, sizeof *last), *run = calloc((size_t) n, sizeof *run);
        assert_non_null(p);

        assert_int_equal(rounds, cycles * per);
        assert_int_equal(tour_round_robin_schedule(n, cycles, p, byes), games);
        for (int r = 1, k = 0; r <= rounds; r++) {
                for (int e = 0; e < n; e++)
                        seen[e] = 0;
                for (int t = 0; t < n / 2; t++, k++) {
                        int a = p[k].entrant[0], b = p[k].entrant[1];
                        assert_int_equal(p[k].round, r);
                        assert_int_equal(p[k].table, t + 1);
                        assert_true(a >= 0 && a < n && b >= 0 && b < n && a != b);
                        seen[a]++;
                        seen[b]++;
                        white[a * n + b]++;
                        whites[a]++;
                        blacks[b]++;
                        /* never three alike in a row, byes not counted */
                        run[a] = last[a] == 1 ? run[a] + 1 : 1;
                        last[a] = 1;
                        run[b] = last[b] == -1 ? run[b] + 1 : 1;
                        last[b] = -1;
                        assert_true(run[a] <= 2 && run[b] <= 2);
                }
                if (n % 2) {
                        assert_int_equal(byes[r - 1].round, r);
                        assert_true(byes[r - 1].entrant >= 0 && byes[r - 1].entrant < n);
                        seen[byes[r - 1].entrant]++;
                        byes_of[byes[r - 1].entrant]++;
                }
                for (int e = 0; e < n; e++)
                        assert_int_equal(seen[e], 1);
                /* a bye per entrant per cycle: at the end of each cycle */
                if (n % 2 && r % per == 0)
                        for (int e = 0; e < n; e++)
                                assert_int_equal(byes_of[e], r / per);
        }
        for (int a = 0; a < n; a++) {
                for (int b = a + 1; b < n; b++) {
                        if (cycles == 1)
                                assert_int_equal(white[a * n + b] + white[b * n + a], 1);
                        else {
                                /* twice, each with white once */
                                assert_int_equal(white[a * n + b], 1);
                                assert_int_equal(white[b * n + a], 1);
                        }
                }
                /* colours as even as an odd number of games allows */
                assert_true(abs(whites[a] - blacks[a]) <= (cycles == 1 ? 1 : 0) + (n % 2 ? 1 : 0));
        }
        free(p);
        free(byes);
        free(white);
        free(seen);
        free(byes_of);
        free(whites);
        free(blacks);
        free(last);
        free(run);
}

static void every_pair_meets_once_in_n_minus_1_or_n_rounds(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n++)
                check_schedule(n, 1);
}

static void a_double_round_robin_plays_every_pair_twice_with_seats_swapped(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n++)
                check_schedule(n, 2);
}

static void the_double_round_robin_swaps_the_last_two_rounds_of_the_first_cycle(void **state) {
        struct tour_pairing a[4], b[4];
        (void) state;

        /* n = 8, 14 rounds: rounds 6 and 7 of the first cycle are Berger
         * rounds 7 and 6; the second cycle is Berger 1..7 reversed */
        assert_int_equal(tour_round_robin_rounds(8, 2), 14);
        assert_int_equal(tour_round_robin_round(8, 2, 6, a, NULL), 4);
        assert_int_equal(a[0].entrant[0] + 1, berger8[6][0][0]);
        assert_int_equal(a[0].entrant[1] + 1, berger8[6][0][1]);
        assert_int_equal(tour_round_robin_round(8, 2, 7, a, NULL), 4);
        assert_int_equal(a[3].entrant[0] + 1, berger8[5][3][0]);
        for (int r = 1; r <= 7; r++) {
                assert_int_equal(tour_round_robin_round(8, 1, r, a, NULL), 4);
                assert_int_equal(tour_round_robin_round(8, 2, 7 + r, b, NULL), 4);
                for (int t = 0; t < 4; t++) {
                        assert_int_equal(b[t].round, 7 + r);
                        assert_int_equal(b[t].entrant[0], a[t].entrant[1]);
                        assert_int_equal(b[t].entrant[1], a[t].entrant[0]);
                }
        }
}

static void rounds_are_computed_alike_alone_and_in_the_schedule(void **state) {
        static struct tour_pairing all[299 * 2 * 150], one[150];
        static struct tour_bye byes[600];
        struct tour_bye bye;
        (void) state;

        int g = tour_round_robin_schedule(299, 2, all, byes);
        assert_int_equal(g, 598 * 149);
        for (int r = 1, k = 0; r <= 598; r++) {
                int c = tour_round_robin_round(299, 2, r, one, &bye);
                assert_int_equal(c, 149);
                assert_memory_equal(one, all + k, (size_t) c * sizeof one[0]);
                assert_int_equal(bye.entrant, byes[r - 1].entrant);
                k += c;
        }
}

static void bad_input_is_rejected(void **state) {
        struct tour_pairing p[4];
        struct tour_bye b[8];
        (void) state;

        assert_int_equal(tour_round_robin_rounds(1, 1), -EINVAL);
        assert_int_equal(tour_round_robin_rounds(TOUR_ROUND_ROBIN_MAX_ENTRANTS + 1, 1), -EINVAL);
        assert_int_equal(tour_round_robin_rounds(8, 0), -EINVAL);
        assert_int_equal(tour_round_robin_rounds(8, 3), -EINVAL);
        assert_int_equal(tour_round_robin_round(8, 1, 0, p, NULL), -EINVAL);
        assert_int_equal(tour_round_robin_round(8, 1, 8, p, NULL), -EINVAL);
        assert_int_equal(tour_round_robin_round(8, 1, 1, NULL, NULL), -EINVAL);
        assert_int_equal(tour_round_robin_schedule(7, 1, p, NULL), -EINVAL);   /* odd n needs byes */
        assert_int_equal(tour_round_robin_schedule(8, 1, NULL, b), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_fide_berger_tables_for_6_and_8_are_reproduced),
                cmocka_unit_test(five_play_the_table_of_six_with_the_dummy_as_bye),
                cmocka_unit_test(every_pair_meets_once_in_n_minus_1_or_n_rounds),
                cmocka_unit_test(a_double_round_robin_plays_every_pair_twice_with_seats_swapped),
                cmocka_unit_test(the_double_round_robin_swaps_the_last_two_rounds_of_the_first_cycle),
                cmocka_unit_test(rounds_are_computed_alike_alone_and_in_the_schedule),
                cmocka_unit_test(bad_input_is_rejected),
        };
        return cmocka_run_group_tests_name("round_robin", tests, NULL, NULL);
}
