/* Groups and multi-stage seeding (tournament/groups.h,
 * docs/formats/brackets.md "Groups and multi-stage seeding").
 *
 * Worked splits (snake of 8 into 2 and 10 into 4), a seeded pot draw, group
 * standings into a bracket with group-mates kept apart (checked by playing
 * the real bracket), and a top cut that moves the smallest number of seeds
 * to avoid first-round rematches. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/bracket.h"
#include "tournament/groups.h"

#define MAX_N 300

static uint64_t rnd(uint64_t *s) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

static void snake_seeding_deals_1_to_g_then_g_to_1(void **state) {
        int grp[10];
        int32_t m[10];
        (void) state;

        /* 8 into 2: A B | B A | A B | B A: group A holds seeds 1 4 5 8 (sum
         * 18), B holds 2 3 6 7 (sum 18) */
        assert_int_equal(tour_groups_snake(8, 2, grp), 0);
        static const int want8[8] = { 0, 1, 1, 0, 0, 1, 1, 0 };
        assert_memory_equal(grp, want8, sizeof want8);
        assert_int_equal(tour_groups_members(8, grp, 0, m), 4);
        assert_int_equal(m[0], 0);
        assert_int_equal(m[1], 3);
        assert_int_equal(m[2], 4);
        assert_int_equal(m[3], 7);
        /* 10 into 4: A B C D | D C B A | A B: A and B have 3, C and D 2 */
        assert_int_equal(tour_groups_snake(10, 4, grp), 0);
        static const int want10[10] = { 0, 1, 2, 3, 3, 2, 1, 0, 0, 1 };
        assert_memory_equal(grp, want10, sizeof want10);
}

static void group_sizes_differ_by_at_most_one_for_snake_and_draw(void **state) {
        int grp[MAX_N], size[MAX_N];
        (void) state;

        for (int n = 2; n <= MAX_N; n += 3)
                for (int g = 1; g <= n / 2; g += 1 + g / 4)
                        for (int how = 0; how < 2; how++) {
                                if (how == 0)
                                        assert_int_equal(tour_groups_snake(n, g, grp), 0);
                                else
                                        assert_int_equal(tour_groups_draw(n, g, (uint64_t) n * 1000 + g, grp), 0);
                                memset(size, 0, sizeof size);
                                for (int e = 0; e < n; e++) {
                                        assert_true(grp[e] >= 0 && grp[e] < g);
                                        size[grp[e]]++;
                                }
                                for (int i = 0; i < g; i++)
                                        assert_true(size[i] == n / g || size[i] == n / g + 1);
                        }
}

static void a_draw_puts_one_entrant_of_each_pot_in_every_group(void **state) {
        int grp[64];
        (void) state;

        /* 64 into 8 groups: pots are seeds 1-8, 9-16, ...; each group gets
         * exactly one entrant of each pot */
        for (uint64_t seed = 0; seed < 50; seed++) {
                assert_int_equal(tour_groups_draw(64, 8, seed, grp), 0);
                for (int pot = 0; pot < 8; pot++) {
                        int hit[8] = { 0 };
                        for (int e = pot * 8; e < pot * 8 + 8; e++)
                                hit[grp[e]]++;
                        for (int g = 0; g < 8; g++)
                                assert_int_equal(hit[g], 1);
                }
        }
}

static void the_same_seed_gives_the_same_draw_and_others_differ(void **state) {
        int a[64], b[64];
        int differ = 0, top_in_group0 = 0;
        (void) state;

        assert_int_equal(tour_groups_draw(64, 8, 42, a), 0);
        assert_int_equal(tour_groups_draw(64, 8, 42, b), 0);
        assert_memory_equal(a, b, sizeof a);
        for (uint64_t s = 1000; s < 1800; s++) {
                assert_int_equal(tour_groups_draw(64, 8, s, b), 0);
                differ += memcmp(a, b, sizeof a) != 0;
                top_in_group0 += b[0] == 0;
        }
        assert_int_equal(differ, 800);
        /* the top seed lands in group 0 about 1/8 of the time: 100 expected,
         * 3.5 standard deviations each side */
        assert_true(top_in_group0 > 65 && top_in_group0 < 135);
}

/* Meeting round of two bracket seeds (1-based) in a bracket of size P. */
static int meet_round(const int *leaf, int a, int b) {
        int x = leaf[a - 1] ^ leaf[b - 1], r = 0;
        while (x) {
                r++;
                x >>= 1;
        }
        return r;
}

static void group_winners_meet_runners_up_of_other_groups_in_round_one(void **state) {
        int32_t standings[8], seeds[8];
        struct tour_bracket *b = NULL;
        struct tour_bracket_state st[8];
        int8_t o[8];
        (void) state;

        /* 4 groups A-D, top 2 advance.  Group g's winner is entrant 10+g,
         * its runner-up 20+g.  Winners take seeds 1-4 in group order; the
         * runners-up take seeds 5-8 so that each is in the other half from
         * its winner: standard placement pairs 1v8 4v5 | 2v7 3v6, halves
         * {1,8,4,5} and {2,7,3,6}. */
        for (int g = 0; g < 4; g++) {
                standings[g * 2] = 10 + g;
                standings[g * 2 + 1] = 20 + g;
        }
        assert_int_equal(tour_groups_seed_bracket(30, 4, 2, standings, seeds), 0);
        static const int32_t want[8] = { 10, 11, 12, 13, 21, 20, 23, 22 };
        assert_memory_equal(seeds, want, sizeof want);

        /* played for real: favourites (lower bracket seed) win, group-mates
         * meet in the final at the earliest */
        assert_int_equal(tour_single_elim_new(8, NULL, &b), 0);
        for (int i = 0; i < 7; i++)
                o[i] = TOUR_BRACKET_UNPLAYED;
        for (int played = 0; played < 7; played++) {
                assert_true(tour_bracket_resolve(b, o, st, NULL) >= 0);
                for (int i = 0; i < 7; i++)
                        if (st[i].status == TOUR_MATCH_READY) {
                                int32_t x = seeds[st[i].occupant[0]], y = seeds[st[i].occupant[1]];
                                if (b->match[i].round == 1)
                                        assert_true(x < 20 && y >= 20);
                                if (b->match[i].round < 3)
                                        assert_int_not_equal(x % 10, y % 10);
                                o[i] = 0;
                        }
        }
        tour_bracket_free(b);
}

static void group_mates_meet_as_late_as_the_bracket_allows(void **state) {
        static int32_t standings[512], seeds[512];
        static int seed_at[512], leaf[512], group_of[512];
        (void) state;

        /* g groups (power of two), q advancing (power of two, q <= g): the
         * q group-mates can be in q different sub-brackets of P/q, so they
         * cannot meet before round log2(P) - log2(q) + 1 */
        for (int g = 2; g <= 64; g *= 2)
                for (int q = 1; q <= 8 && q <= g; q *= 2) {
                        int k = g * q, P = k, R = 0, Q = 0;
                        while ((1 << R) < P)
                                R++;
                        while ((1 << Q) < q)
                                Q++;
                        for (int i = 0; i < k; i++)
                                standings[i] = i;       /* group i/q, place i%q */
                        assert_int_equal(tour_groups_seed_bracket(k, g, q, standings, seeds), 0);
                        assert_int_equal(tour_bracket_seed_order(P, seed_at), 0);
                        for (int i = 0; i < P; i++)
                                leaf[seed_at[i] - 1] = i;
                        for (int s = 0; s < k; s++)
                                group_of[s] = seeds[s] / q;
                        for (int a = 1; a <= k; a++)
                                for (int c = a + 1; c <= k; c++)
                                        if (group_of[a - 1] == group_of[c - 1])
                                                if (meet_round(leaf, a, c) < R - Q + 1) fail_msg("g=%d q=%d seeds %d %d meet in %d", g, q, a, c, meet_round(leaf, a, c));
                        /* the tiers stay in order: tier t holds seeds t*g+1.. */
                        for (int s = 0; s < k; s++)
                                assert_int_equal(seeds[s] % q, s / g);
                }
}

static void uneven_groups_still_keep_first_round_group_mates_apart(void **state) {
        static int32_t standings[600], seeds[600];
        static int seed_at[1024], leaf[1024];
        (void) state;

        /* any g from 2 to 40 with 2 advancing: no group-mates in round 1,
         * and every seed appears once */
        for (int g = 2; g <= 40; g++) {
                int k = 2 * g, P = tour_bracket_size(k);
                for (int i = 0; i < k; i++)
                        standings[i] = i;
                assert_int_equal(tour_groups_seed_bracket(k, g, 2, standings, seeds), 0);
                assert_int_equal(tour_bracket_seed_order(P, seed_at), 0);
                for (int i = 0; i < P; i++)
                        leaf[seed_at[i] - 1] = i;
                int seen[600] = { 0 };
                for (int s = 0; s < k; s++)
                        seen[seeds[s]]++;
                for (int s = 0; s < k; s++)
                        assert_int_equal(seen[s], 1);
                for (int a = 1; a <= k; a++)
                        for (int c = a + 1; c <= k; c++)
                                if (seeds[a - 1] / 2 == seeds[c - 1] / 2)
                                        assert_true(meet_round(leaf, a, c) >= 2);
        }
}

static void a_top_cut_without_previous_meetings_follows_the_standings(void **state) {
        int32_t standings[10] = { 9, 3, 5, 0, 1, 2, 4, 6, 7, 8 }, seeds[8];
        (void) state;

        assert_int_equal(tour_groups_top_cut(10, standings, 8, NULL, seeds), 0);
        assert_memory_equal(seeds, standings, sizeof seeds);
}

static void a_top_cut_swaps_the_adjacent_seed_to_avoid_a_first_round_rematch(void **state) {
        int32_t standings[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, seeds[8];
        uint8_t met[64] = { 0 };
        (void) state;

        /* 1 met 8 in the Swiss: 8 trades places with 7, so round 1 is
         * 1v7 2v8 3v6 4v5 (2 and 8 have not met) */
        met[0 * 8 + 7] = met[7 * 8 + 0] = 1;
        assert_int_equal(tour_groups_top_cut(8, standings, 8, met, seeds), 0);
        static const int32_t want[8] = { 0, 1, 2, 3, 4, 5, 7, 6 };
        assert_memory_equal(seeds, want, sizeof want);

        /* 1 met 8 and 7: the nearest free opponent is 6 */
        met[0 * 8 + 6] = met[6 * 8 + 0] = 1;
        assert_int_equal(tour_groups_top_cut(8, standings, 8, met, seeds), 0);
        static const int32_t want2[8] = { 0, 1, 2, 3, 4, 7, 6, 5 };
        assert_memory_equal(seeds, want2, sizeof want2);

        /* 6 of 8: seeds 1 and 2 have byes and are never moved; 3 met 6:
         * 6 trades with 5 -> 3v5, 4v6 */
        uint8_t met6[36] = { 0 };
        met6[2 * 6 + 5] = met6[5 * 6 + 2] = 1;
        int32_t st6[6] = { 0, 1, 2, 3, 4, 5 }, s6[6];
        assert_int_equal(tour_groups_top_cut(6, st6, 6, met6, s6), 0);
        static const int32_t want6[6] = { 0, 1, 2, 3, 5, 4 };
        assert_memory_equal(s6, want6, sizeof want6);
}

static void a_top_cut_reports_a_rematch_it_cannot_avoid(void **state) {
        int32_t standings[4] = { 0, 1, 2, 3 }, seeds[4];
        uint8_t met[16];
        (void) state;

        /* a 4-player round robin: everybody met everybody */
        memset(met, 1, sizeof met);
        assert_int_equal(tour_groups_top_cut(4, standings, 4, met, seeds), 2);
        assert_memory_equal(seeds, standings, sizeof seeds);
}

static void random_top_cuts_avoid_avoidable_rematches(void **state) {
        static uint8_t met[MAX_N * MAX_N];
        static int32_t standings[MAX_N], seeds[MAX_N];
        uint64_t rs = 0x70c0;
        (void) state;

        /* Swiss-like: each of n entrants met 5 random others; cuts of 4..64 */
        for (int trial = 0; trial < 200; trial++) {
                int n = 16 + (int) (rnd(&rs) % (MAX_N - 16)), cut = 4 << (rnd(&rs) % 5);
                if (cut > n)
                        cut = n;
                memset(met, 0, (size_t) n * n);
                for (int e = 0; e < n; e++) {
                        standings[e] = e;
                        for (int k = 0; k < 5; k++) {
                                int o = (int) (rnd(&rs) % n);
                                if (o != e)
                                        met[e * n + o] = met[o * n + e] = 1;
                        }
                }
                for (int i = n - 1; i > 0; i--) {
                        int j = (int) (rnd(&rs) % (i + 1));
                        int32_t t = standings[i];
                        standings[i] = standings[j];
                        standings[j] = t;
                }
                int left = tour_groups_top_cut(n, standings, cut, met, seeds);
                assert_true(left >= 0);
                int P = tour_bracket_size(cut), rematches = 0, moved = 0;
                for (int s = P - cut + 1; s <= P / 2; s++)
                        rematches += met[seeds[s - 1] * n + seeds[P - s]] != 0;
                assert_int_equal(rematches, left);
                /* the same entrants, byes untouched, few seeds moved */
                for (int s = 0; s < cut; s++) {
                        bool found = false;
                        for (int t = 0; t < cut; t++)
                                found |= seeds[t] == standings[s];
                        assert_true(found);
                        moved += seeds[s] != standings[s];
                }
                for (int s = 0; s < P - cut; s++)
                        assert_int_equal(seeds[s], standings[s]);
                assert_true(moved <= 2 * (cut / 2));
        }
}

static void bad_input_is_rejected(void **state) {
        int grp[8];
        int32_t st[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, out[8];
        (void) state;

        assert_int_equal(tour_groups_snake(0, 1, grp), -EINVAL);
        assert_int_equal(tour_groups_snake(8, 0, grp), -EINVAL);
        assert_int_equal(tour_groups_snake(8, 9, grp), -EINVAL);
        assert_int_equal(tour_groups_snake(8, 2, NULL), -EINVAL);
        assert_int_equal(tour_groups_draw(8, 9, 1, grp), -EINVAL);
        assert_int_equal(tour_groups_members(8, NULL, 0, out), -EINVAL);
        assert_int_equal(tour_groups_seed_bracket(8, 4, 2, NULL, out), -EINVAL);
        assert_int_equal(tour_groups_seed_bracket(8, 1, 1, st, out), -EINVAL);  /* a bracket of 1 */
        st[3] = 2;              /* an entrant twice */
        assert_int_equal(tour_groups_seed_bracket(8, 4, 2, st, out), -EINVAL);
        assert_int_equal(tour_groups_top_cut(8, st, 4, NULL, out), -EINVAL);
        st[3] = 8;              /* out of range */
        assert_int_equal(tour_groups_seed_bracket(8, 4, 2, st, out), -EINVAL);
        st[3] = 3;
        assert_int_equal(tour_groups_top_cut(8, st, 9, NULL, out), -EINVAL);
        assert_int_equal(tour_groups_top_cut(8, st, 1, NULL, out), -EINVAL);
        assert_int_equal(tour_groups_top_cut(8, st, 4, NULL, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(snake_seeding_deals_1_to_g_then_g_to_1),
                cmocka_unit_test(group_sizes_differ_by_at_most_one_for_snake_and_draw),
                cmocka_unit_test(a_draw_puts_one_entrant_of_each_pot_in_every_group),
                cmocka_unit_test(the_same_seed_gives_the_same_draw_and_others_differ),
                cmocka_unit_test(group_winners_meet_runners_up_of_other_groups_in_round_one),
                cmocka_unit_test(group_mates_meet_as_late_as_the_bracket_allows),
                cmocka_unit_test(uneven_groups_still_keep_first_round_group_mates_apart),
                cmocka_unit_test(a_top_cut_without_previous_meetings_follows_the_standings),
                cmocka_unit_test(a_top_cut_swaps_the_adjacent_seed_to_avoid_a_first_round_rematch),
                cmocka_unit_test(a_top_cut_reports_a_rematch_it_cannot_avoid),
                cmocka_unit_test(random_top_cuts_avoid_avoidable_rematches),
                cmocka_unit_test(bad_input_is_rejected),
        };
        return cmocka_run_group_tests_name("groups", tests, NULL, NULL);
}
