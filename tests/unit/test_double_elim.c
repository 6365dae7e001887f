/* Double elimination (tournament/bracket.h, docs/formats/brackets.md
 * "Double elimination").
 *
 * Worked brackets (8 entrants with favourites winning, 5 with byes, 2 with
 * only a rematch left, the reset), the routing table of 8 and 16, then
 * properties over every field size from 2 to 300 with seeded random
 * outcomes, and the rematch guarantee for powers of two. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/bracket.h"

#define MAX_N 300

static uint64_t rnd(uint64_t *s) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

static struct tour_bracket *dbl(int n, enum tour_grand_final gf) {
        struct tour_bracket *b = NULL;
        struct tour_bracket_options o = { .grand_final = gf };
        assert_int_equal(tour_double_elim_new(n, &o, &b), 0);
        assert_non_null(b);
        return b;
}

static int find(const struct tour_bracket *b, const char *label) {
        for (int i = 0; i < b->n_matches; i++)
                if (!strcmp(b->match[i].label, label))
                        return i;
        fail_msg("no match %s", label);
        return 0;       /* not reached: fail_msg() leaves the test */
}

static void play_all(const struct tour_bracket *b, int8_t *o, struct tour_bracket_state *st,
                     int (*pick)(int32_t, int32_t, uint64_t *), uint64_t *seed) {
        memset(o, TOUR_BRACKET_UNPLAYED, (size_t) b->n_matches);
        for (;;) {
                int ready = tour_bracket_resolve(b, o, st, NULL);
                assert_true(ready >= 0);
                if (ready == 0)
                        return;
                for (int i = 0; i < b->n_matches; i++)
                        if (st[i].status == TOUR_MATCH_READY)
                                o[i] = (int8_t) pick(st[i].occupant[0], st[i].occupant[1], seed);
        }
}

static int favourite(int32_t a, int32_t b, uint64_t *seed) {
        (void) seed;
        return a < b ? 0 : 1;
}

static int coin(int32_t a, int32_t b, uint64_t *seed) {
        (void) a;
        (void) b;
        return (int) (rnd(seed) & 1);
}

static void counts_are_2n_minus_2_and_2n_minus_1_with_the_reset(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n++) {
                struct tour_bracket *b = dbl(n, TOUR_GRAND_FINAL_SIMPLE);
                assert_int_equal(b->n_played, 2 * n - 2);
                tour_bracket_free(b);
                b = dbl(n, TOUR_GRAND_FINAL_DOUBLE);
                assert_int_equal(b->n_played, 2 * n - 1);      /* the reset counted */
                tour_bracket_free(b);
                b = dbl(n, TOUR_GRAND_FINAL_NONE);
                assert_int_equal(b->n_played, 2 * n - 3);
                tour_bracket_free(b);
        }
}

static void the_losers_bracket_has_2_log2_P_minus_2_rounds(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n++) {
                struct tour_bracket *b = dbl(n, TOUR_GRAND_FINAL_DOUBLE);
                int k = b->rounds[TOUR_PART_WINNERS];
                assert_int_equal(1 << k, b->size);
                assert_int_equal(b->rounds[TOUR_PART_LOSERS], 2 * k - 2);
                assert_int_equal(b->rounds[TOUR_PART_GRAND_FINAL], 1);
                assert_int_equal(b->rounds[TOUR_PART_GRAND_FINAL_RESET], 1);
                /* ids are a topological order: sources always come first */
                for (int i = 0; i < b->n_matches; i++)
                        for (int s = 0; s < 2; s++)
                                if (b->match[i].slot[s].source >= TOUR_SRC_WINNER)
                                        assert_true(b->match[i].slot[s].ref < i);
                tour_bracket_free(b);
        }
}

static void routing_of_8_and_16_sends_losers_crosswise(void **state) {
        struct tour_bracket *b = dbl(8, TOUR_GRAND_FINAL_SIMPLE);
        const struct tour_bracket_match *x;
        (void) state;

        /* L1: losers of W1-1/W1-2 and W1-3/W1-4 (natural).  L2 (mask
         * bitrev1(1) = 1): L2-1 takes W2-2's loser, L2-2 W2-1's.  L4, the
         * losers final, takes the winners final's loser. */
        x = &b->match[find(b, "L1-1")];
        assert_int_equal(x->slot[0].source, TOUR_SRC_LOSER);
        assert_int_equal(x->slot[0].ref, find(b, "W1-1"));
        assert_int_equal(x->slot[1].ref, find(b, "W1-2"));
        x = &b->match[find(b, "L2-1")];
        assert_int_equal(x->slot[0].source, TOUR_SRC_WINNER);
        assert_int_equal(x->slot[0].ref, find(b, "L1-1"));
        assert_int_equal(x->slot[1].source, TOUR_SRC_LOSER);
        assert_int_equal(x->slot[1].ref, find(b, "W2-2"));
        assert_int_equal(b->match[find(b, "L2-2")].slot[1].ref, find(b, "W2-1"));
        assert_int_equal(b->match[find(b, "L4-1")].slot[1].ref, find(b, "WF"));
        tour_bracket_free(b);

        /* 16: W2 losers (4) with mask bitrev2(1) = 2: half shift, 1->3 2->4
         * 3->1 4->2; W3 losers (2) with mask bitrev1(2 mod 2) = 0: natural */
        b = dbl(16, TOUR_GRAND_FINAL_SIMPLE);
        static const char *w2[4] = { "W2-3", "W2-4", "W2-1", "W2-2" };
        static const char *l2[4] = { "L2-1", "L2-2", "L2-3", "L2-4" };
        for (int i = 0; i < 4; i++)
                assert_int_equal(b->match[find(b, l2[i])].slot[1].ref, find(b, w2[i]));
        assert_int_equal(b->match[find(b, "L4-1")].slot[1].ref, find(b, "W3-1"));
        assert_int_equal(b->match[find(b, "L4-2")].slot[1].ref, find(b, "W3-2"));
        tour_bracket_free(b);
}

static void favourites_winning_in_8_place_1_2_3_4_5_5_7_7(void **state) {
        struct tour_bracket_state st[16];
        int8_t o[16];
        int place[8];
        struct tour_bracket *b = dbl(8, TOUR_GRAND_FINAL_DOUBLE);
        (void) state;

        /* W1: 1v8 4v5 2v7 3v6, favourites win; L1: 8v5 -> 5, 7v6 -> 6.
         * W2: 1v4 2v3.  L2-1: 5 v loser of W2-2 (3) -> 3; L2-2: 6 v 4 -> 4.
         * L3: 3v4 -> 3.  WF: 1v2.  L4: 3 v 2 -> 2.  GF: 1 v 2 -> 1, no reset.
         * Places: losers final 3rd, L3 4th, L2 losers 5th (3+2), L1 losers
         * 7th (3+2+1+1). */
        play_all(b, o, st, favourite, NULL);
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        assert_int_equal(st[find(b, "L2-1")].occupant[0], 4);
        assert_int_equal(st[find(b, "L2-1")].occupant[1], 2);
        assert_int_equal(st[find(b, "GF2")].status, TOUR_MATCH_NOT_NEEDED);
        static const int want[8] = { 1, 2, 3, 4, 5, 5, 7, 7 };
        assert_memory_equal(place, want, sizeof want);
        tour_bracket_free(b);
}

static void a_bye_in_round_one_gives_the_losers_bracket_opponent_a_bye(void **state) {
        struct tour_bracket_state st[16];
        int8_t o[16];
        struct tour_bracket *b = dbl(5, TOUR_GRAND_FINAL_SIMPLE);
        (void) state;

        /* 5 in 8: W1-1 (1 v bye), W1-3 (2 v bye), W1-4 (3 v bye) are byes:
         * their "losers" are nobody.  L1-1 = nobody v loser of 4v5: a bye;
         * L1-2 = nobody v nobody: void.  L2-2 = (winner of void) v loser of
         * W2-1: a bye again.  8 matches are played: 2*5 - 2. */
        assert_int_equal(b->n_played, 8);
        memset(o, TOUR_BRACKET_UNPLAYED, sizeof o);
        o[find(b, "W1-2")] = 1;         /* seed 5 beats seed 4 */
        assert_true(tour_bracket_resolve(b, o, st, NULL) >= 0);
        assert_int_equal(st[find(b, "L1-1")].status, TOUR_MATCH_BYE);
        assert_int_equal(st[find(b, "L1-1")].winner, 3);
        assert_int_equal(st[find(b, "L1-2")].status, TOUR_MATCH_VOID);
        assert_int_equal(st[find(b, "L2-2")].status, TOUR_MATCH_BYE);
        /* seed 4 waits in L2-1 for the loser of W2-2 (seed 2 v seed 3) */
        assert_int_equal(st[find(b, "L2-1")].occupant[0], 3);
        assert_int_equal(st[find(b, "L2-1")].status, TOUR_MATCH_WAITING);
        play_all(b, o, st, favourite, NULL);
        int place[5];
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        /* 1 2 3 4, and seed 5 (lost W1 to 4, then L2-1) 5th */
        static const int want[5] = { 1, 2, 3, 4, 5 };
        assert_memory_equal(place, want, sizeof want);
        tour_bracket_free(b);
}

static void the_reset_is_played_only_when_the_losers_finalist_wins_the_grand_final(void **state) {
        struct tour_bracket_state st[16];
        int8_t o[16];
        int place[4];
        struct tour_bracket *b = dbl(4, TOUR_GRAND_FINAL_DOUBLE);
        int gf = find(b, "GF"), reset = find(b, "GF2");
        (void) state;

        /* 4: W1 1v4 2v3, WF 1v2; L1 4v3; L2 (losers final) 3 v 2 */
        memset(o, TOUR_BRACKET_UNPLAYED, sizeof o);
        o[find(b, "W1-1")] = 0;
        o[find(b, "W1-2")] = 0;
        o[find(b, "WF")] = 0;
        o[find(b, "L1-1")] = 1;
        o[find(b, "L2-1")] = 1;         /* seed 2 wins the losers bracket */
        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), 1);
        assert_int_equal(st[reset].status, TOUR_MATCH_WAITING);
        o[gf] = 1;                      /* ... and the first grand final */
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 1);
        assert_int_equal(st[reset].status, TOUR_MATCH_READY);
        assert_int_equal(st[reset].occupant[0], 0);
        assert_int_equal(st[reset].occupant[1], 1);
        assert_int_equal(place[0], 0);  /* both have one loss: nobody placed */
        assert_int_equal(place[1], 0);
        o[reset] = 0;
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        assert_int_equal(place[0], 1);
        assert_int_equal(place[1], 2);
        /* had seed 1 won the first, the reset would not be needed, and a
         * result recorded for it is refused */
        o[gf] = 0;
        assert_int_equal(tour_bracket_resolve(b, o, st, place), -EINVAL);
        o[reset] = TOUR_BRACKET_UNPLAYED;
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        assert_int_equal(st[reset].status, TOUR_MATCH_NOT_NEEDED);
        assert_int_equal(place[0], 1);
        assert_int_equal(place[1], 2);
        tour_bracket_free(b);
}

static void without_a_grand_final_the_winners_bracket_winner_is_first(void **state) {
        struct tour_bracket_state st[16];
        int8_t o[16];
        int place[4];
        struct tour_bracket *b = dbl(4, TOUR_GRAND_FINAL_NONE);
        (void) state;

        /* favourites: WF 1 beats 2 -> 1st at once; L2 (losers final) 2 v 3,
         * 2 wins -> 2nd, 3 is 3rd, 4 (out in L1) 4th */
        assert_int_equal(b->n_matches, 5);
        play_all(b, o, st, favourite, NULL);
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        static const int want[4] = { 1, 2, 3, 4 };
        assert_memory_equal(place, want, sizeof want);
        tour_bracket_free(b);
}

static void two_entrants_play_a_final_and_a_rematch_as_grand_final(void **state) {
        struct tour_bracket_state st[4];
        int8_t o[4] = { 1, 1, 0, TOUR_BRACKET_UNPLAYED };
        int place[2];
        struct tour_bracket *b = dbl(2, TOUR_GRAND_FINAL_DOUBLE);
        (void) state;

        /* seed 2 beats seed 1 (WF), seed 1 takes the grand final, then the
         * reset: 2n-1 = 3 matches */
        assert_int_equal(b->n_matches, 3);
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        assert_int_equal(st[1].occupant[0], 1);
        assert_int_equal(st[1].occupant[1], 0);
        assert_int_equal(place[1], 1);
        assert_int_equal(place[0], 2);
        tour_bracket_free(b);
}

static void random_fields_of_2_to_300_eliminate_everyone_after_two_losses(void **state) {
        static int8_t o[2048];
        static struct tour_bracket_state st[2048];
        int place[MAX_N], losses[MAX_N];
        uint64_t seed = 0xd0b1e;
        (void) state;

        for (int n = 2; n <= MAX_N; n++)
                for (int gf = TOUR_GRAND_FINAL_NONE; gf <= TOUR_GRAND_FINAL_DOUBLE; gf++) {
                        struct tour_bracket *b = dbl(n, gf);
                        int played = 0, firsts = 0, seconds = 0;
                        play_all(b, o, st, coin, &seed);
                        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
                        memset(losses, 0, sizeof losses);
                        for (int i = 0; i < b->n_matches; i++)
                                if (st[i].status == TOUR_MATCH_DONE) {
                                        played++;
                                        losses[st[i].loser]++;
                                }
                        /* the reset is the one match that may not be played */
                        assert_true(played == b->n_played ||
                                    (gf == TOUR_GRAND_FINAL_DOUBLE && played == b->n_played - 1));
                        for (int e = 0; e < n; e++) {
                                assert_true(place[e] >= 1 && place[e] <= n);
                                firsts += place[e] == 1;
                                seconds += place[e] == 2;
                                if (place[e] == 1)
                                        assert_true(losses[e] <= 1);
                                else if (gf == TOUR_GRAND_FINAL_DOUBLE)
                                        assert_int_equal(losses[e], 2);
                                else if (place[e] == 2)
                                        assert_true(losses[e] >= 1 && losses[e] <= 2);
                                else
                                        assert_int_equal(losses[e], 2);
                        }
                        assert_int_equal(firsts, 1);
                        assert_int_equal(seconds, 1);
                        tour_bracket_free(b);
                }
}

/* The earliest losers-bracket round in which a rematch cannot be ruled out
 * for P = 2^(K+1) slots: in round 2j, j+1 earlier drop-ins must fit in
 * 2^(K-j) subtrees, in round 2j+1 in 2^(K-j-1) (docs/formats/brackets.md,
 * "Routing").  P=8: 3, 16: 4, 32: 5, 64: 7, 128: 8, 256: 9. */
static int earliest_unavoidable(int P) {
        int K = -1;
        while ((1 << (K + 1)) < P)
                K++;
        for (int j = 1; j <= K; j++) {
                if (j + 1 > 1 << (K - j))
                        return 2 * j;
                if (j + 1 > 1 << (K - j - 1))
                        return 2 * j + 1;
        }
        return 2 * K;
}

static void no_losers_bracket_rematch_before_it_is_unavoidable_for_powers_of_two(void **state) {
        static int8_t o[1024];
        static struct tour_bracket_state st[1024];
        static unsigned met[256 * 256];
        uint64_t seed = 0x4e3a7c;
        (void) state;

        assert_int_equal(earliest_unavoidable(4), 2);
        assert_int_equal(earliest_unavoidable(8), 3);
        assert_int_equal(earliest_unavoidable(64), 7);
        assert_int_equal(earliest_unavoidable(256), 9);
        /* What is tested: for P = 4..256, over T random outcome sets, no
         * losers-bracket match before round E(P) pairs two entrants who
         * met before (in either bracket), and for P <= 64 some outcome set
         * does produce a rematch in round E(P): the bound is the real one,
         * not a weak one. */
        for (int P = 4; P <= 256; P *= 2) {
                struct tour_bracket *b = dbl(P, TOUR_GRAND_FINAL_SIMPLE);
                int E = earliest_unavoidable(P), first = 1 << 30;
                int trials = P <= 64 ? 3000 : 400;
                memset(met, 0, sizeof met);
                for (int t = 1; t <= trials; t++) {
                        for (int i = 0; i < b->n_matches; i++)
                                o[i] = (int8_t) (rnd(&seed) & 1);
                        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), 0);
                        for (int i = 0; i < b->n_matches; i++) {
                                int a = st[i].occupant[0], c = st[i].occupant[1];
                                if (met[a * P + c] == (unsigned) t && b->match[i].part == TOUR_PART_LOSERS &&
                                    b->match[i].round < first)
                                        first = b->match[i].round;
                                met[a * P + c] = met[c * P + a] = (unsigned) t;
                        }
                }
                assert_true(first >= E);
                if (P <= 64)
                        assert_int_equal(first, E);
                tour_bracket_free(b);
        }
}

static void a_correction_in_the_winners_bracket_lists_the_losers_matches_it_fed(void **state) {
        struct tour_bracket_state st[16];
        int8_t o[16];
        int ids[16];
        struct tour_bracket *b = dbl(4, TOUR_GRAND_FINAL_DOUBLE);
        (void) state;

        /* favourites throughout: W1-1 (1v4) decides who is in the WF and in
         * L1; through them everything after it: WF, L1, L2, GF (the reset
         * was not needed and would still not be listed as played) */
        play_all(b, o, st, favourite, NULL);
        int n = tour_bracket_dependents(b, o, find(b, "W1-1"), true, ids);
        assert_int_equal(n, 4);
        assert_int_equal(ids[0], find(b, "WF"));
        assert_int_equal(ids[1], find(b, "L1-1"));
        assert_int_equal(ids[2], find(b, "L2-1"));
        assert_int_equal(ids[3], find(b, "GF"));
        /* all matches, played or not: the reset too */
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "W1-1"), false, ids), 5);
        /* a losers-bracket first round only reaches the losers final and GF */
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "L1-1"), true, ids), 2);
        /* flipping the grand final makes the reset needed */
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "GF"), false, ids), 1);
        assert_int_equal(ids[0], find(b, "GF2"));
        tour_bracket_free(b);
}

static void generation_and_resolution_are_deterministic(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n += 11) {
                struct tour_bracket *a = dbl(n, TOUR_GRAND_FINAL_DOUBLE), *b = dbl(n, TOUR_GRAND_FINAL_DOUBLE);
                assert_memory_equal(a, b, sizeof *a + (size_t) a->n_matches * sizeof a->match[0]);
                static struct tour_bracket_state s1[1200], s2[1200];
                static int8_t o[1200];
                uint64_t seed = (uint64_t) n * 31 + 1;
                play_all(a, o, s1, coin, &seed);
                assert_int_equal(tour_bracket_resolve(a, o, s1, NULL), 0);
                assert_int_equal(tour_bracket_resolve(b, o, s2, NULL), 0);
                assert_memory_equal(s1, s2, (size_t) a->n_matches * sizeof s1[0]);
                tour_bracket_free(a);
                tour_bracket_free(b);
        }
}

static void bad_input_is_rejected(void **state) {
        struct tour_bracket *b = NULL;
        struct tour_bracket_options bad = { .grand_final = (enum tour_grand_final) 7 };
        struct tour_bracket_state st[16];
        int8_t o[16];
        (void) state;

        assert_int_equal(tour_double_elim_new(1, NULL, &b), -EINVAL);
        assert_int_equal(tour_double_elim_new(TOUR_BRACKET_MAX_ENTRANTS + 1, NULL, &b), -EINVAL);
        assert_int_equal(tour_double_elim_new(8, &bad, &b), -EINVAL);
        assert_int_equal(tour_double_elim_new(8, NULL, NULL), -EINVAL);
        assert_null(b);
        /* NULL options: a simple grand final */
        assert_int_equal(tour_double_elim_new(8, NULL, &b), 0);
        assert_int_equal(b->n_played, 14);
        memset(o, TOUR_BRACKET_UNPLAYED, sizeof o);
        o[find(b, "L1-1")] = 0;         /* before its players are known */
        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), -EINVAL);
        tour_bracket_free(b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(counts_are_2n_minus_2_and_2n_minus_1_with_the_reset),
                cmocka_unit_test(the_losers_bracket_has_2_log2_P_minus_2_rounds),
                cmocka_unit_test(routing_of_8_and_16_sends_losers_crosswise),
                cmocka_unit_test(favourites_winning_in_8_place_1_2_3_4_5_5_7_7),
                cmocka_unit_test(a_bye_in_round_one_gives_the_losers_bracket_opponent_a_bye),
                cmocka_unit_test(the_reset_is_played_only_when_the_losers_finalist_wins_the_grand_final),
                cmocka_unit_test(without_a_grand_final_the_winners_bracket_winner_is_first),
                cmocka_unit_test(two_entrants_play_a_final_and_a_rematch_as_grand_final),
                cmocka_unit_test(random_fields_of_2_to_300_eliminate_everyone_after_two_losses),
                cmocka_unit_test(no_losers_bracket_rematch_before_it_is_unavoidable_for_powers_of_two),
                cmocka_unit_test(a_correction_in_the_winners_bracket_lists_the_losers_matches_it_fed),
                cmocka_unit_test(generation_and_resolution_are_deterministic),
                cmocka_unit_test(bad_input_is_rejected),
        };
        return cmocka_run_group_tests_name("double_elim", tests, NULL, NULL);
}
