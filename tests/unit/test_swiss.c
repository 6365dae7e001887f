/* Swiss pairing for two-player matches (tournament/swiss.h,
 * docs/formats/swiss-and-pods.md).
 *
 * Worked examples first (each with its arithmetic in a comment), then
 * properties over seeded random tournaments: every active player in exactly
 * one pairing or the bye, byes spread, rematches exactly the minimum (brute
 * force for n <= 10, Dirac's theorem for larger fields), determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/swiss.h"

#define MAXN 300

/* A field and its history, as the standings module would hand it over. */
struct field {
        int                      n, round;
        struct tour_pair_entrant e[MAXN];
        uint16_t                 meet[MAXN * MAXN];
        uint16_t                 seats[MAXN * TOUR_MAX_SEATS];
};

static uint64_t rng_next(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static struct field *field_new(int n) {
        struct field *f = calloc(1, sizeof *f);
        assert_non_null(f);
        f->n = n;
        f->round = 1;
        for (int i = 0; i < n; i++)
                f->e[i] = (struct tour_pair_entrant) { .entrant = i, .rating = 2000 - i, .active = true };
        return f;
}

static struct tour_pair_input field_input(struct field *f) {
        return (struct tour_pair_input) { .n = f->n, .round = f->round, .seed = 42,
                                          .entrants = f->e, .meetings = f->meet, .seats = f->seats };
}

static void meet(struct field *f, int a, int b) {
        f->meet[a * f->n + b]++;
        f->meet[b * f->n + a]++;
}

static int met(const struct field *f, int a, int b) {
        return f->meet[a * f->n + b];
}

/* Pairs a round and checks the promises that hold for every round:
 * each active entrant exactly once (pairing or bye), nobody inactive, two
 * seats per table, the info counts agree with the output. */
static int pair_round(struct field *f, struct tour_pairing *p, struct tour_bye *bye, int *nbyes,
                      struct tour_swiss_info *info) {
        struct tour_pair_input in = field_input(f);
        int np = tour_swiss_pair(&in, p, bye, nbyes, info);
        int seen[MAXN] = { 0 }, active = 0, rematches = 0, floats = 0;

        assert_true(np >= 0);
        for (int i = 0; i < f->n; i++)
                active += f->e[i].active;
        for (int t = 0; t < np; t++) {
                assert_int_equal(p[t].n, 2);
                assert_int_equal(p[t].round, f->round);
                assert_int_equal(p[t].table, t + 1);
                for (int s = 0; s < 2; s++) {
                        int x = p[t].entrant[s];
                        assert_true(x >= 0 && x < f->n && f->e[x].active);
                        seen[x]++;
                }
                rematches += met(f, p[t].entrant[0], p[t].entrant[1]) > 0;
                floats += f->e[p[t].entrant[0]].score != f->e[p[t].entrant[1]].score;
        }
        assert_int_equal(*nbyes, active % 2);
        if (*nbyes) {
                assert_true(f->e[bye[0].entrant].active);
                assert_int_equal(bye[0].round, f->round);
                seen[bye[0].entrant]++;
        }
        for (int i = 0; i < f->n; i++)
                assert_int_equal(seen[i], f->e[i].active ? 1 : 0);
        assert_int_equal(info->rematches, rematches);
        assert_int_equal(info->floats, floats);
        assert_int_equal(info->byes, *nbyes);
        return np;
}

/* Plays the round with random results (win 1, draw ½ one time in five)
 * and books meetings, seats and byes as the standings module would. */
static void play_round(struct field *f, const struct tour_pairing *p, int np, const struct tour_bye *bye,
                       int nbyes, uint64_t *rng) {
        for (int t = 0; t < np; t++) {
                int a = p[t].entrant[0], b = p[t].entrant[1];
                uint64_t x = rng_next(rng) % 5;
                meet(f, a, b);
                f->seats[a * TOUR_MAX_SEATS + 0]++;
                f->seats[b * TOUR_MAX_SEATS + 1]++;
                f->e[a].last_seat = 1;
                f->e[b].last_seat = 2;
                if (x == 0) {
                        f->e[a].score += 0.5;
                        f->e[b].score += 0.5;
                } else {
                        f->e[x % 2 ? a : b].score += 1;
                }
        }
        if (nbyes) {
                f->e[bye[0].entrant].byes++;
                f->e[bye[0].entrant].score += 1;
                f->e[bye[0].entrant].last_seat = 0;
        }
        f->round++;
}

/* Least rematches over all perfect pairings of the players in set[0..m),
 * by exhaustive search (m <= 10: 945 pairings at most). */
static int brute_min_rematches(const struct field *f, int *set, int m) {
        if (m == 0)
                return 0;
        int best = 1 << 20;
        for (int j = 1; j < m; j++) {
                int rest[MAXN], r = 0;
                for (int k = 1; k < m; k++)
                        if (k != j)
                                rest[r++] = set[k];
                int c = (met(f, set[0], set[j]) > 0) + brute_min_rematches(f, rest, r);
                if (c < best)
                        best = c;
        }
        return best;
}

static void round_one_pairs_the_top_half_against_the_bottom_half(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 8 players, all on 0 points, rated 2000 down to 1993: S1 = seeds
         * 0..3, S2 = 4..7, so 0-4, 1-5, 2-6, 3-7 (boards in rank order). */
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 4);
        for (int t = 0; t < 4; t++) {
                int a = p[t].entrant[0], b = p[t].entrant[1];
                int lo = a < b ? a : b, hi = a < b ? b : a;
                assert_int_equal(lo, t);
                assert_int_equal(hi, t + 4);
        }
        assert_int_equal(info.floats, 0);
        free(f);
}

static void winners_meet_winners_in_round_two(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* Round 1 was 0-4, 1-5, 2-6, 3-7 and the bottom half won all four:
         * the 1-point group is 4,5,6,7 (ratings 1996..1993), S1 = {4,5},
         * S2 = {6,7}: 4-6, 5-7; the 0-point group 0,1,2,3: 0-2, 1-3. */
        for (int t = 0; t < 4; t++) {
                meet(f, t, t + 4);
                f->e[t + 4].score = 1;
        }
        f->round = 2;
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 4);
        int want[4][2] = { { 4, 6 }, { 5, 7 }, { 0, 2 }, { 1, 3 } };
        for (int t = 0; t < 4; t++) {
                int a = p[t].entrant[0], b = p[t].entrant[1];
                assert_int_equal(a < b ? a : b, want[t][0]);
                assert_int_equal(a < b ? b : a, want[t][1]);
        }
        assert_int_equal(info.floats, 0);
        assert_int_equal(info.rematches, 0);
        free(f);
}

static void an_odd_score_group_floats_its_lowest_player_to_the_top_of_the_next(void **state) {
        (void) state;
        struct field *f = field_new(6);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* Scores 1,1,1,0,0,0 (players 0..5), nobody met: group {0,1,2} has
         * S1 = {0}, S2 = {1,2}: 0-1; 2 floats and meets the top of the
         * 0-point group, 3; then 4-5.  One float. */
        f->e[0].score = f->e[1].score = f->e[2].score = 1;
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 3);
        int want[3][2] = { { 0, 1 }, { 2, 3 }, { 4, 5 } };
        for (int t = 0; t < 3; t++) {
                int a = p[t].entrant[0], b = p[t].entrant[1];
                assert_int_equal(a < b ? a : b, want[t][0]);
                assert_int_equal(a < b ? b : a, want[t][1]);
        }
        assert_int_equal(info.floats, 1);
        free(f);
}

static void a_group_stays_whole_by_transposing_around_a_rematch(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* Group {0,1,2,3} on 1 point, {4..7} on 0.  0 and 2 already met.
         * 0 prefers 2 (S2[0]): a rematch; next 3.  Then 1-2.  The group
         * pairs inside itself: no float. */
        for (int i = 0; i < 4; i++)
                f->e[i].score = 1;
        meet(f, 0, 2);
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 4);
        int a = p[0].entrant[0], b = p[0].entrant[1];
        assert_int_equal(a + b, 0 + 3);
        a = p[1].entrant[0], b = p[1].entrant[1];
        assert_int_equal(a + b, 1 + 2);
        assert_int_equal(info.floats, 0);
        assert_int_equal(info.rematches, 0);
        free(f);
}

static void a_partner_that_would_split_the_group_is_passed_over(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* Group {0,1,2,3} on 1 point; 1 and 3 met.  0's first choice, 2,
         * would leave 1 and 3, who cannot meet: both would float into the
         * 0-point group (2 floats).  0 takes 3 instead, then 1-2: 0 floats. */
        for (int i = 0; i < 4; i++)
                f->e[i].score = 1;
        meet(f, 1, 3);
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 4);
        int a = p[0].entrant[0], b = p[0].entrant[1];
        assert_int_equal(a + b, 0 + 3);
        a = p[1].entrant[0], b = p[1].entrant[1];
        assert_int_equal(a + b, 1 + 2);
        assert_int_equal(info.floats, 0);
        free(f);
}

/* Asserts the round's pairs as unordered pairs, in table order. */
static void assert_pairs(const struct tour_pairing *p, int np, const int (*want)[2], int nwant) {
        assert_int_equal(np, nwant);
        for (int t = 0; t < np; t++) {
                int a = p[t].entrant[0], b = p[t].entrant[1];
                int lo = a < b ? a : b, hi = a < b ? b : a;
                if (lo != want[t][0] || hi != want[t][1])
                        fail_msg("table %d: %d-%d, want %d-%d", t + 1, lo, hi, want[t][0], want[t][1]);
        }
}

static void both_floaters_find_partners_where_the_old_greedy_floated_two_more(void **state) {
        (void) state;
        struct field *f = field_new(6);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* Round 3.  0 and 2 on 1.5 met each other: both float (C6 can do
         * no better).  The 1.0 bracket is MDPs 0, 2 and residents 1, 5:
         * 2 met 5, so 2 can only have 1, and 0 takes 5: every MDP paired
         * (C6, C7).  The 0.5 bracket is 3-4.  The greedy this replaced gave
         * 0 its first choice, 1, then floated 2 and 5 on: 0-1, 2-4, 5-3,
         * three pairs across score groups instead of two. */
        f->e[0].score = f->e[2].score = 1.5;
        f->e[1].score = f->e[5].score = 1.0;
        f->e[3].score = f->e[4].score = 0.5;
        meet(f, 0, 2);
        meet(f, 0, 3);
        meet(f, 1, 3);
        meet(f, 1, 4);
        meet(f, 2, 5);
        meet(f, 4, 5);
        f->round = 3;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 0, 5 }, { 1, 2 }, { 3, 4 } };
        assert_pairs(p, np, want, 3);
        assert_int_equal(info.floats, 2);
        assert_int_equal(info.rematches, 0);
        free(f);
}

static void the_bye_goes_where_the_top_group_stays_whole(void **state) {
        (void) state;
        struct field *f = field_new(5);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* Round 3 of 5.  0 and 4 on 1.5, 1, 2 and 3 on 1.0; 3 and 4 had
         * byes.  The bye goes to a player without one on the lowest score
         * (C2, C5): 1 or 2.  The 1.5 bracket pairs 0-4, floating no one
         * (C6), because the rest still completes: 2-3 and the bye to 1 (1
         * met 3).  The greedy this replaced chose the bye first, to 2 (the
         * lowest candidate), and had to float two: 0-3, 4-1. */
        f->e[0].score = f->e[4].score = 1.5;
        f->e[1].score = f->e[2].score = f->e[3].score = 1.0;
        f->e[3].byes = f->e[4].byes = 1;
        meet(f, 0, 1);
        meet(f, 0, 2);
        meet(f, 1, 3);
        meet(f, 2, 4);
        f->round = 3;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 0, 4 }, { 2, 3 } };
        assert_pairs(p, np, want, 2);
        assert_int_equal(bye[0].entrant, 1);
        assert_int_equal(info.floats, 0);
        free(f);
}

static void the_bye_goes_to_the_lowest_score_even_at_the_price_of_a_float(void **state) {
        (void) state;
        struct field *f = field_new(5);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 0, 1, 2 on 1 point, 3 and 4 on 0, and 3 met 4.  A bye to a
         * 1-point player would keep both groups whole, but C5 (the bye to
         * the lowest score possible) comes before C6: the bye goes to a
         * 0-point player, so one 1-point player floats.  Bracket 1: 0-1, 2
         * floats (S1 {0}, S2 {1, 2}).  Last bracket: MDP 2 takes 3, the
         * first resident; 4 is left: the bye. */
        f->e[0].score = f->e[1].score = f->e[2].score = 1;
        meet(f, 3, 4);
        f->round = 2;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 0, 1 }, { 2, 3 } };
        assert_pairs(p, np, want, 2);
        assert_int_equal(bye[0].entrant, 4);
        assert_int_equal(info.floats, 1);
        free(f);
}

static void a_player_who_downfloated_last_round_does_not_float_again_when_another_can(void **state) {
        (void) state;
        struct field *f = field_new(6);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 0, 1, 2 on 1 point, 3, 4, 5 on 0, nobody met.  The Dutch order
         * alone pairs 0-1 and floats 2 (S1 {0}, S2 {1, 2}). */
        for (int i = 0; i < 3; i++)
                f->e[i].score = 1;
        f->round = 3;
        int np = pair_round(f, p, bye, &nb, &info);
        const int plain[][2] = { { 0, 1 }, { 2, 3 }, { 4, 5 } };
        assert_pairs(p, np, plain, 3);
        /* 2 downfloated last round: C14 floats 1 instead (0-2, 1-3) */
        f->e[2].floated[0] = TOUR_FLOAT_DOWN;
        np = pair_round(f, p, bye, &nb, &info);
        const int not2[][2] = { { 0, 2 }, { 1, 3 }, { 4, 5 } };
        assert_pairs(p, np, not2, 3);
        /* 1 too: the one who did not, 0, floats (1-2), though he is the
         * top of the group */
        f->e[1].floated[0] = TOUR_FLOAT_DOWN;
        np = pair_round(f, p, bye, &nb, &info);
        const int not12[][2] = { { 0, 3 }, { 1, 2 }, { 4, 5 } };
        assert_pairs(p, np, not12, 3);
        /* all three: C14 ties, and so does C16 (nobody two rounds ago):
         * the Dutch order's own choice, 2, floats */
        f->e[0].floated[0] = TOUR_FLOAT_DOWN;
        np = pair_round(f, p, bye, &nb, &info);
        assert_pairs(p, np, plain, 3);
        /* 2 downfloated two rounds ago as well: C16 floats 1 */
        f->e[2].floated[1] = TOUR_FLOAT_DOWN;
        np = pair_round(f, p, bye, &nb, &info);
        assert_pairs(p, np, not2, 3);
        free(f);
}

static void a_floater_is_not_paired_with_a_player_who_upfloated_last_round(void **state) {
        (void) state;
        struct field *f = field_new(4);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 0 alone on 2 points floats into 1, 2, 3 on 1 point.  The MDP
         * takes the first resident, 1, and 2-3 remain; but 1 upfloated last
         * round, and C15 prefers an MDP opponent who did not: 0-2, 1-3. */
        f->e[0].score = 2;
        f->e[1].score = f->e[2].score = f->e[3].score = 1;
        f->round = 3;
        int np = pair_round(f, p, bye, &nb, &info);
        const int plain[][2] = { { 0, 1 }, { 2, 3 } };
        assert_pairs(p, np, plain, 2);
        f->e[1].floated[0] = TOUR_FLOAT_UP;
        np = pair_round(f, p, bye, &nb, &info);
        const int c15[][2] = { { 0, 2 }, { 1, 3 } };
        assert_pairs(p, np, c15, 2);
        free(f);
}

static void of_two_floaters_for_one_place_the_higher_scored_is_paired(void **state) {
        (void) state;
        struct field *f = field_new(4);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 1 (3 points) and 0 (2 points) met, so 1 floats through 0's
         * bracket and 0 floats too; in 2's bracket (1 point) both may have
         * 2: C7 (the floaters' scores as low as possible) gives 2 to 1 and
         * floats 0 to 3, although 0 is rated higher. */
        f->e[1].score = 3;
        f->e[0].score = 2;
        f->e[2].score = 1;
        meet(f, 0, 1);
        f->round = 4;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 1, 2 }, { 0, 3 } };
        assert_pairs(p, np, want, 2);
        free(f);
}

static void the_floater_is_chosen_so_that_the_next_bracket_can_pair_it(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 0, 1, 2 on 2 points, 3, 4, 5 on 1, 6, 7 on 0.  2 met 3, 4 and 5.
         * The Dutch order alone floats 2 (0-1), who could meet nobody in
         * the next bracket.  C8 floats 1 instead (0-2): the next bracket
         * pairs 1-3, 4-5 and leaves no one over.  Both complete the round,
         * so it is C8 that decides, not C4. */
        for (int i = 0; i < 3; i++)
                f->e[i].score = 2;
        for (int i = 3; i < 6; i++)
                f->e[i].score = 1;
        meet(f, 2, 3);
        meet(f, 2, 4);
        meet(f, 2, 5);
        f->round = 4;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 0, 2 }, { 1, 3 }, { 4, 5 }, { 6, 7 } };
        assert_pairs(p, np, want, 4);
        assert_int_equal(info.floats, 1);
        free(f);
}

static void the_floater_is_chosen_so_that_the_next_bracket_leaves_no_one_over(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 0 and 1 on 2 points met: both float to 2 (1.5), who can take
         * either; the other floats on to 3, 4, 5 (1 point), where 3 met 4
         * and 5.  Floating 1 (the Dutch order's choice: 0 is the first MDP)
         * leaves 3 over whichever of 4, 5 the floater takes, since 1 met 3:
         * two downfloaters there.  Floating 0 lets the next bracket pair
         * 0-3 and 4-5, nobody over: C8 chooses it.  6-7 below completes
         * either way, so C4 does not decide. */
        f->e[0].score = f->e[1].score = 2;
        f->e[2].score = 1.5;
        f->e[3].score = f->e[4].score = f->e[5].score = 1;
        meet(f, 0, 1);
        meet(f, 1, 3);
        meet(f, 3, 4);
        meet(f, 3, 5);
        f->round = 4;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 0, 3 }, { 1, 2 }, { 4, 5 }, { 6, 7 } };
        assert_pairs(p, np, want, 4);
        free(f);
}

static void a_bracket_no_transposition_can_pair_takes_the_first_exchange(void **state) {
        (void) state;
        struct field *f = field_new(6);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* One bracket of 6: S1 {0, 1, 2}, S2 {3, 4, 5}; 0 met all of S2,
         * so no transposition pairs it.  The first exchange (one player,
         * the smallest BSN difference: 2 for 3) gives S1 {0, 1, 3} and
         * S2 {2, 4, 5}, and its first transposition pairs 0-2, 1-4, 3-5. */
        meet(f, 0, 3);
        meet(f, 0, 4);
        meet(f, 0, 5);
        f->round = 4;
        int np = pair_round(f, p, bye, &nb, &info);
        const int want[][2] = { { 0, 2 }, { 1, 4 }, { 3, 5 } };
        assert_pairs(p, np, want, 3);
        assert_int_equal(info.searched, 1);
        free(f);
}

static void the_bye_goes_to_the_lowest_ranked_player_without_one(void **state) {
        (void) state;
        struct field *f = field_new(5);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 5 players on 0 points: rank order 0..4; 4 already had a bye, so
         * the lowest without one is 3. */
        f->e[4].byes = 1;
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 2);
        assert_int_equal(nb, 1);
        assert_int_equal(bye[0].entrant, 3);
        free(f);
}

static void the_bye_moves_up_when_the_lowest_would_force_a_rematch(void **state) {
        (void) state;
        struct field *f = field_new(5);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 3 has met 0, 1 and 2.  Bye to 4 (the lowest) would leave 3 with
         * only rematches; bye to 3 leaves 0, 1, 2, 4, who can all meet new
         * opponents.  Nobody had a bye, so 3 is a lawful candidate. */
        meet(f, 3, 0);
        meet(f, 3, 1);
        meet(f, 3, 2);
        pair_round(f, p, bye, &nb, &info);
        assert_int_equal(bye[0].entrant, 3);
        assert_int_equal(info.rematches, 0);
        free(f);
}

static void nobody_gets_a_second_bye_while_others_have_none(void **state) {
        (void) state;
        struct field *f = field_new(7);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        uint64_t rng = 7;
        int nb;

        /* 7 players, 7 rounds: every round the bye goes to someone with the
         * fewest byes, so after round r the counts differ by at most one
         * and after 7 rounds everyone had exactly one. */
        for (int r = 0; r < 7; r++) {
                int np = pair_round(f, p, bye, &nb, &info);
                int minb = 99;
                for (int i = 0; i < 7; i++)
                        if (f->e[i].byes < minb)
                                minb = f->e[i].byes;
                assert_int_equal(f->e[bye[0].entrant].byes, minb);
                play_round(f, p, np, bye, nb, &rng);
        }
        for (int i = 0; i < 7; i++)
                assert_int_equal(f->e[i].byes, 1);
        free(f);
}

static void dropped_players_keep_their_history_and_are_never_paired(void **state) {
        (void) state;
        struct field *f = field_new(10);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        uint64_t rng = 3;
        int nb;

        /* pair_round already asserts inactive players appear nowhere; 9
         * active players also means exactly one bye. */
        int np = pair_round(f, p, bye, &nb, &info);
        play_round(f, p, np, bye, nb, &rng);
        f->e[2].active = false;
        double kept = f->e[2].score;
        np = pair_round(f, p, bye, &nb, &info);
        assert_int_equal(np, 4);
        assert_int_equal(nb, 1);
        assert_true(f->e[2].score == kept);
        free(f);
}

static void seat_one_goes_to_the_player_owed_it(void **state) {
        (void) state;
        struct field *f = field_new(2);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 0 had seat 1 twice, 1 had seat 2 twice: 1 is owed seat 1. */
        f->seats[0 * TOUR_MAX_SEATS + 0] = 2;
        f->seats[1 * TOUR_MAX_SEATS + 1] = 2;
        f->round = 3;
        pair_round(f, p, bye, &nb, &info);
        assert_int_equal(p[0].entrant[0], 1);
        /* Equal balance: whoever sat in seat 2 last round gets seat 1. */
        memset(f->seats, 0, sizeof f->seats);
        f->e[0].last_seat = 2;
        f->e[1].last_seat = 1;
        pair_round(f, p, bye, &nb, &info);
        assert_int_equal(p[0].entrant[0], 0);
        free(f);
}

static void rematches_are_exactly_the_brute_force_minimum_for_small_fields(void **state) {
        (void) state;
        uint64_t rng = 11;
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 400 random histories of 2..10 players with dense meetings (each
         * pair met with probability 1/2), random scores; the pool after the
         * bye is brute-forced.  When the minimum is 0 this is "no rematch
         * whenever a rematch-free pairing exists". */
        for (int trial = 0; trial < 400; trial++) {
                int n = 2 + (int) (rng_next(&rng) % 9);
                struct field *f = field_new(n);
                for (int i = 0; i < n; i++) {
                        f->e[i].score = (double) (rng_next(&rng) % 3);
                        for (int j = i + 1; j < n; j++)
                                if (rng_next(&rng) % 2)
                                        meet(f, i, j);
                }
                f->round = 4;
                pair_round(f, p, bye, &nb, &info);
                int set[MAXN], m = 0;
                for (int i = 0; i < n; i++)
                        if (!nb || i != bye[0].entrant)
                                set[m++] = i;
                assert_int_equal(info.rematches, brute_min_rematches(f, set, m));
                free(f);
        }
}

static void everyone_met_everyone_so_every_pair_is_a_rematch(void **state) {
        (void) state;
        struct field *f = field_new(4);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* After a full round robin of 4, any pairing repeats both games. */
        for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++)
                        meet(f, i, j);
        f->round = 4;
        assert_int_equal(pair_round(f, p, bye, &nb, &info), 2);
        assert_int_equal(info.rematches, 2);
        free(f);
}

static void random_tournaments_of_2_to_300_keep_every_promise(void **state) {
        (void) state;
        uint64_t rng = 2026;
        static struct tour_pairing p[MAXN];
        struct tour_bye bye[1];
        struct tour_swiss_info info;
        int nb;

        /* 40 tournaments, n from 2 to 300, ceil(log2 n) + 2 rounds, random
         * results, a drop now and then.  Dirac: when each pool player has
         * met at most r others and pool − 1 − r >= pool / 2, the never-met
         * graph has minimum degree >= pool/2, hence a Hamiltonian cycle
         * (pool >= 3), hence a perfect matching (pool even): the pairing
         * must then have no rematch. */
        for (int t = 0; t < 40; t++) {
                int n = t == 0 ? 2 : t == 1 ? 300 : 2 + (int) (rng_next(&rng) % 299);
                struct field *f = field_new(n);
                for (int i = 0; i < n; i++)
                        f->e[i].rating = (double) (rng_next(&rng) % 800) + 1200;
                int rounds = tour_swiss_rounds_default(n) + 2;
                for (int r = 0; r < rounds; r++) {
                        if (n > 4 && rng_next(&rng) % 4 == 0)
                                f->e[rng_next(&rng) % (uint64_t) n].active = false;
                        int active = 0;
                        for (int i = 0; i < n; i++)
                                active += f->e[i].active;
                        int np = pair_round(f, p, bye, &nb, &info);
                        int pool = active - nb;
                        if (pool >= 2 && pool - 1 - r >= (pool + 1) / 2)
                                assert_int_equal(info.rematches, 0);
                        assert_int_equal(np, pool / 2);
                        play_round(f, p, np, bye, nb, &rng);
                }
                free(f);
        }
}

static void the_same_snapshot_gives_the_same_pairings(void **state) {
        (void) state;
        struct field *f = field_new(61);
        static struct tour_pairing p[64], q[64];
        struct tour_bye b1[1], b2[1];
        struct tour_swiss_info info;
        uint64_t rng = 5;
        int n1, n2;

        for (int r = 0; r < 4; r++) {
                int np = pair_round(f, p, b1, &n1, &info);
                play_round(f, p, np, b1, n1, &rng);
        }
        struct tour_pair_input in = field_input(f);
        int a = tour_swiss_pair(&in, p, b1, &n1, NULL);
        int b = tour_swiss_pair(&in, q, b2, &n2, NULL);
        assert_int_equal(a, b);
        assert_memory_equal(p, q, (size_t) a * sizeof *p);
        assert_int_equal(b1[0].entrant, b2[0].entrant);
        free(f);
}

static void recommended_rounds_are_ceil_log2_n(void **state) {
        (void) state;
        /* 2^3 = 8 >= 8; 9 needs 2^4 = 16; at least one round. */
        assert_int_equal(tour_swiss_rounds_default(1), 1);
        assert_int_equal(tour_swiss_rounds_default(2), 1);
        assert_int_equal(tour_swiss_rounds_default(8), 3);
        assert_int_equal(tour_swiss_rounds_default(9), 4);
        assert_int_equal(tour_swiss_rounds_default(2048), 11);
        assert_int_equal(tour_swiss_rounds_default(0), -EINVAL);
}

static void bad_snapshots_are_rejected(void **state) {
        (void) state;
        struct field *f = field_new(4);
        struct tour_pairing p[8];
        struct tour_bye bye[1];
        int nb;
        struct tour_pair_input in = field_input(f);

        assert_int_equal(tour_swiss_pair(NULL, p, bye, &nb, NULL), -EINVAL);
        assert_int_equal(tour_swiss_pair(&in, NULL, bye, &nb, NULL), -EINVAL);
        in.n = 0;
        assert_int_equal(tour_swiss_pair(&in, p, bye, &nb, NULL), -EINVAL);
        in.n = TOUR_PAIR_MAX_N + 1;
        assert_int_equal(tour_swiss_pair(&in, p, bye, &nb, NULL), -EINVAL);
        in = field_input(f);
        in.round = 0;
        assert_int_equal(tour_swiss_pair(&in, p, bye, &nb, NULL), -EINVAL);
        in = field_input(f);
        f->meet[0 * 4 + 1] = 1; /* 0 met 1 but 1 never met 0 */
        assert_int_equal(tour_swiss_pair(&in, p, bye, &nb, NULL), -EINVAL);
        f->meet[0 * 4 + 1] = 0;
        f->e[2].entrant = 3;
        assert_int_equal(tour_swiss_pair(&in, p, bye, &nb, NULL), -EINVAL);
        f->e[2].entrant = 2;
        f->e[1].byes = -1;
        assert_int_equal(tour_swiss_pair(&in, p, bye, &nb, NULL), -EINVAL);
        f->e[1].byes = 0;
        f->e[1].active = false; /* 3 active: a bye is needed but has nowhere to go */
        assert_int_equal(tour_swiss_pair(&in, p, NULL, &nb, NULL), -EINVAL);
        free(f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(round_one_pairs_the_top_half_against_the_bottom_half),
                cmocka_unit_test(winners_meet_winners_in_round_two),
                cmocka_unit_test(an_odd_score_group_floats_its_lowest_player_to_the_top_of_the_next),
                cmocka_unit_test(a_group_stays_whole_by_transposing_around_a_rematch),
                cmocka_unit_test(a_partner_that_would_split_the_group_is_passed_over),
                cmocka_unit_test(both_floaters_find_partners_where_the_old_greedy_floated_two_more),
                cmocka_unit_test(the_bye_goes_where_the_top_group_stays_whole),
                cmocka_unit_test(the_bye_goes_to_the_lowest_score_even_at_the_price_of_a_float),
                cmocka_unit_test(a_player_who_downfloated_last_round_does_not_float_again_when_another_can),
                cmocka_unit_test(a_floater_is_not_paired_with_a_player_who_upfloated_last_round),
                cmocka_unit_test(of_two_floaters_for_one_place_the_higher_scored_is_paired),
                cmocka_unit_test(the_floater_is_chosen_so_that_the_next_bracket_can_pair_it),
                cmocka_unit_test(the_floater_is_chosen_so_that_the_next_bracket_leaves_no_one_over),
                cmocka_unit_test(a_bracket_no_transposition_can_pair_takes_the_first_exchange),
                cmocka_unit_test(the_bye_goes_to_the_lowest_ranked_player_without_one),
                cmocka_unit_test(the_bye_moves_up_when_the_lowest_would_force_a_rematch),
                cmocka_unit_test(nobody_gets_a_second_bye_while_others_have_none),
                cmocka_unit_test(dropped_players_keep_their_history_and_are_never_paired),
                cmocka_unit_test(seat_one_goes_to_the_player_owed_it),
                cmocka_unit_test(rematches_are_exactly_the_brute_force_minimum_for_small_fields),
                cmocka_unit_test(everyone_met_everyone_so_every_pair_is_a_rematch),
                cmocka_unit_test(random_tournaments_of_2_to_300_keep_every_promise),
                cmocka_unit_test(the_same_snapshot_gives_the_same_pairings),
                cmocka_unit_test(recommended_rounds_are_ceil_log2_n),
                cmocka_unit_test(bad_snapshots_are_rejected),
        };
        return cmocka_run_group_tests_name("swiss", tests, NULL, NULL);
}
