/* Single elimination (tournament/bracket.h, docs/formats/brackets.md
 * "Single elimination").
 *
 * Worked brackets first (placement of 8, byes of 5, a full 4-player event
 * with and without a third-place match, a correction), then properties
 * over every field size from 2 to 300 with seeded random outcomes: counts,
 * byes, one loss per eliminated entrant, placements, determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/bracket.h"

#define MAX_N 300

/* xorshift64: the tests' own outcome source, fixed seeds, so every run
 * plays the same random brackets. */
static uint64_t rnd(uint64_t *s) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

static struct tour_bracket *single(int n, bool third) {
        struct tour_bracket *b = NULL;
        struct tour_bracket_options o = { .third_place = third };
        assert_int_equal(tour_single_elim_new(n, &o, &b), 0);
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

/* Plays the bracket to the end; pick(a, b) returns the winning slot.
 * Checks on the way that exactly the READY matches can be played. */
static void play_all(const struct tour_bracket *b, int8_t *o, struct tour_bracket_state *st,
                     int (*pick)(int32_t, int32_t, uint64_t *), uint64_t *seed) {
        memset(o, TOUR_BRACKET_UNPLAYED, (size_t) b->n_matches);
        for (;;) {
                int ready = tour_bracket_resolve(b, o, st, NULL), played = 0;
                assert_true(ready >= 0);
                if (ready == 0)
                        return;
                for (int i = 0; i < b->n_matches; i++)
                        if (st[i].status == TOUR_MATCH_READY) {
                                o[i] = (int8_t) pick(st[i].occupant[0], st[i].occupant[1], seed);
                                played++;
                        }
                assert_int_equal(played, ready);
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

static void standard_placement_of_8_pairs_1v8_4v5_2v7_3v6(void **state) {
        /* pos(2) = [1,2]; pos(4) = [1,4,2,3]; pos(8) = [1,8,4,5,2,7,3,6] */
        static const int want[8] = { 1, 8, 4, 5, 2, 7, 3, 6 };
        int seed_at[8];
        struct tour_bracket *b = single(8, false);
        (void) state;

        assert_int_equal(tour_bracket_seed_order(8, seed_at), 0);
        assert_memory_equal(seed_at, want, sizeof want);
        for (int i = 0; i < 4; i++) {
                assert_int_equal(b->match[i].slot[0].source, TOUR_SRC_SEED);
                assert_int_equal(b->match[i].slot[0].ref, want[2 * i] - 1);
                assert_int_equal(b->match[i].slot[1].ref, want[2 * i + 1] - 1);
        }
        /* semi-finals: winner of 1v8 against winner of 4v5 */
        assert_int_equal(b->match[4].slot[0].source, TOUR_SRC_WINNER);
        assert_int_equal(b->match[4].slot[0].ref, 0);
        assert_int_equal(b->match[4].slot[1].ref, 1);
        assert_string_equal(b->match[6].label, "Final");
        tour_bracket_free(b);
}

static void byes_go_to_the_top_seeds(void **state) {
        struct tour_bracket_state st[8];
        struct tour_bracket *b = single(5, false);
        (void) state;

        /* P = 8, byes are seeds 6, 7, 8: seeds 1, 2, 3 advance unplayed and
         * the only round-1 match is seed 4 against seed 5 */
        assert_int_equal(b->size, 8);
        assert_int_equal(tour_bracket_resolve(b, NULL, st, NULL), 2);
        assert_int_equal(st[0].status, TOUR_MATCH_BYE);
        assert_int_equal(st[0].winner, 0);
        assert_int_equal(st[1].status, TOUR_MATCH_READY);
        assert_int_equal(st[1].occupant[0], 3);
        assert_int_equal(st[1].occupant[1], 4);
        assert_int_equal(st[2].status, TOUR_MATCH_BYE);
        assert_int_equal(st[2].winner, 1);
        assert_int_equal(st[3].status, TOUR_MATCH_BYE);
        assert_int_equal(st[3].winner, 2);
        /* semi-final 2 (seeds 2 and 3) is ready at once, semi-final 1 waits */
        assert_int_equal(st[5].status, TOUR_MATCH_READY);
        assert_int_equal(st[4].status, TOUR_MATCH_WAITING);
        assert_int_equal(b->n_played, 4);
        tour_bracket_free(b);

        /* every size: P-n byes, all with seeds 1..P-n */
        for (int n = 2; n <= MAX_N; n++) {
                b = single(n, false);
                int byes = 0;
                for (int i = 0; i < b->n_matches; i++) {
                        const struct tour_bracket_match *x = &b->match[i];
                        if (x->empty[0] || x->empty[1]) {
                                assert_int_equal(x->round, 1);
                                assert_false(x->empty[0]);
                                assert_true(x->slot[0].ref < b->size - n);
                                byes++;
                        }
                }
                assert_int_equal(byes, b->size - n);
                tour_bracket_free(b);
        }
}

static void a_bracket_of_n_has_n_minus_1_played_matches_in_log2_P_rounds(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n++) {
                int rounds = 0;
                while ((1 << rounds) < n)
                        rounds++;
                struct tour_bracket *b = single(n, false);
                assert_int_equal(b->n_played, n - 1);
                assert_int_equal(b->n_matches, b->size - 1);
                assert_int_equal(b->rounds[TOUR_PART_WINNERS], rounds);
                tour_bracket_free(b);
                b = single(n, true);
                assert_int_equal(b->n_played, n - 1 + (n >= 4));   /* n = 3: the 3rd-place match is a bye */
                assert_int_equal(b->n_matches, b->size - 1 + (n >= 3));
                tour_bracket_free(b);
        }
}

static void four_players_finish_1_2_3_3(void **state) {
        struct tour_bracket_state st[3];
        int8_t o[3];
        int place[4];
        struct tour_bracket *b = single(4, false);
        (void) state;

        /* R1-1: seed 1 v seed 4, seed 4 wins; R1-2: seed 2 v seed 3, seed 2
         * wins; final seed 4 v seed 2, seed 2 wins.  Losers of the semi-
         * finals share 3rd (P/2^1 + 1 = 3), the final's loser is 2nd. */
        o[0] = 1;
        o[1] = 0;
        o[2] = 1;
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        assert_int_equal(st[2].occupant[0], 3);
        assert_int_equal(st[2].occupant[1], 1);
        assert_int_equal(place[1], 1);
        assert_int_equal(place[3], 2);
        assert_int_equal(place[0], 3);
        assert_int_equal(place[2], 3);
        tour_bracket_free(b);
}

static void the_third_place_match_decides_3rd_and_4th(void **state) {
        struct tour_bracket_state st[4];
        int8_t o[4] = { 0, 0, TOUR_BRACKET_UNPLAYED, TOUR_BRACKET_UNPLAYED };
        int place[4];
        struct tour_bracket *b = single(4, true);
        int third = find(b, "3rd place");
        (void) state;

        /* seeds 1 and 2 win their semi-finals: 4 and 3 meet for 3rd place,
         * and nobody is placed 3rd before it is played */
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 2);
        assert_int_equal(st[third].occupant[0], 3);
        assert_int_equal(st[third].occupant[1], 2);
        assert_int_equal(place[2], 0);
        assert_int_equal(place[3], 0);
        o[third] = 1;           /* seed 3 wins it */
        o[2] = 0;               /* seed 1 wins the final */
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        assert_int_equal(place[0], 1);
        assert_int_equal(place[1], 2);
        assert_int_equal(place[2], 3);
        assert_int_equal(place[3], 4);
        tour_bracket_free(b);

        /* with 3 entrants the semi-final of seed 1 is a bye: the other
         * semi-final's loser is 3rd without playing */
        b = single(3, true);
        struct tour_bracket_state st3[4];
        int8_t o3[4] = { TOUR_BRACKET_UNPLAYED, 0, 0, TOUR_BRACKET_UNPLAYED };
        int place3[3];
        assert_int_equal(tour_bracket_resolve(b, o3, st3, place3), 0);
        assert_int_equal(st3[3].status, TOUR_MATCH_BYE);
        assert_int_equal(place3[0], 1);
        assert_int_equal(place3[1], 2);
        assert_int_equal(place3[2], 3);
        tour_bracket_free(b);
}

static void favourites_winning_gives_1v4_and_2v3_semis_and_places_by_seed_band(void **state) {
        struct tour_bracket_state st[16];
        int8_t o[16];
        int place[16];
        struct tour_bracket *b = single(16, false);
        (void) state;

        play_all(b, o, st, favourite, NULL);
        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
        int sf1 = find(b, "R3-1"), sf2 = find(b, "R3-2");
        assert_int_equal(st[sf1].occupant[0], 0);
        assert_int_equal(st[sf1].occupant[1], 3);
        assert_int_equal(st[sf2].occupant[0], 1);
        assert_int_equal(st[sf2].occupant[1], 2);
        /* 16 slots: 1, 2, 3-4 share 3rd, 5-8 share 5th, 9-16 share 9th */
        static const int want[16] = { 1, 2, 3, 3, 5, 5, 5, 5, 9, 9, 9, 9, 9, 9, 9, 9 };
        assert_memory_equal(place, want, sizeof want);
        tour_bracket_free(b);
}

static void random_fields_of_2_to_300_end_with_one_champion_and_one_loss_each(void **state) {
        static int8_t o[2 * 512];
        static struct tour_bracket_state st[2 * 512];
        int place[MAX_N], losses[MAX_N];
        uint64_t seed = 0x5eed0001;
        (void) state;

        for (int n = 2; n <= MAX_N; n++)
                for (int third = 0; third <= 1; third++) {
                        struct tour_bracket *b = single(n, third);
                        int played = 0, band[MAX_N + 2] = { 0 };
                        play_all(b, o, st, coin, &seed);
                        assert_int_equal(tour_bracket_resolve(b, o, st, place), 0);
                        memset(losses, 0, sizeof losses);
                        for (int i = 0; i < b->n_matches; i++) {
                                if (st[i].status == TOUR_MATCH_DONE) {
                                        played++;
                                        losses[st[i].loser]++;
                                        /* an entrant never meets itself */
                                        assert_int_not_equal(st[i].occupant[0], st[i].occupant[1]);
                                } else
                                        assert_int_equal(st[i].status, TOUR_MATCH_BYE);
                        }
                        assert_int_equal(played, b->n_played);
                        for (int e = 0; e < n; e++) {
                                assert_true(place[e] >= 1 && place[e] <= (b->size > 4 ? b->size / 2 + 1 : 4));
                                band[place[e]]++;
                                /* the champion never lost; the 3rd-place
                                 * match's loser lost twice; others once */
                                if (place[e] == 1)
                                        assert_int_equal(losses[e], 0);
                                else if (place[e] == 4)
                                        assert_int_equal(losses[e], 2);
                                else if (third && n >= 4 && place[e] == 3)
                                        assert_true(losses[e] == 1 || losses[e] == 2);
                                else
                                        assert_int_equal(losses[e], 1);
                        }
                        assert_int_equal(band[1], 1);
                        assert_int_equal(band[2], 1);
                        /* standard competition ranking: place p is shared
                         * by at most p-1 entrants, and exactly by
                         * P/2^r losers of a full round r */
                        for (int p = 2; p <= n; p++)
                                assert_true(band[p] <= p - 1 || p == 2);
                        tour_bracket_free(b);
                }
}

static void generation_and_resolution_are_deterministic(void **state) {
        (void) state;
        for (int n = 2; n <= MAX_N; n += 7) {
                struct tour_bracket *a = single(n, true), *b = single(n, true);
                size_t sz = sizeof *a + (size_t) a->n_matches * sizeof a->match[0];
                assert_memory_equal(a, b, sz);
                struct tour_bracket_state s1[512], s2[512];
                int8_t o[512];
                uint64_t seed = (uint64_t) n * 977;
                play_all(a, o, s1, coin, &seed);
                assert_int_equal(tour_bracket_resolve(a, o, s1, NULL), 0);
                assert_int_equal(tour_bracket_resolve(b, o, s2, NULL), 0);
                assert_memory_equal(s1, s2, (size_t) a->n_matches * sizeof s1[0]);
                tour_bracket_free(a);
                tour_bracket_free(b);
        }
}

static void a_correction_lists_the_played_matches_it_invalidates(void **state) {
        struct tour_bracket_state st[8];
        int8_t o[8];
        int ids[8];
        struct tour_bracket *b = single(8, true);
        (void) state;

        play_all(b, o, st, favourite, NULL);
        /* R1-1 (1 v 8) feeds R2-1, which feeds the final and the 3rd-place
         * match: all three were played and must be replayed if 8 had won */
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "R1-1"), true, ids), 3);
        assert_int_equal(ids[0], find(b, "R2-1"));
        assert_int_equal(ids[1], find(b, "Final"));
        assert_int_equal(ids[2], find(b, "3rd place"));
        /* a semi-final decides who is in the final and the 3rd-place match */
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "R2-2"), true, ids), 2);
        /* the final and the 3rd-place match feed nothing */
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "Final"), true, ids), 0);
        assert_int_equal(tour_bracket_dependents(b, o, find(b, "3rd place"), false, ids), 0);

        /* applying it: flip R1-1, clear what it invalidates, resolve again:
         * seed 8 now waits in the semi-final, nothing is inconsistent */
        int n = tour_bracket_dependents(b, o, 0, true, ids);
        o[0] = 1;
        for (int i = 0; i < n; i++)
                o[ids[i]] = TOUR_BRACKET_UNPLAYED;
        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), 1);
        assert_int_equal(st[find(b, "R2-1")].occupant[0], 7);
        assert_int_equal(st[find(b, "R2-1")].status, TOUR_MATCH_READY);
        /* leaving them in place is refused only where the sides are no
         * longer known: here the slots still resolve, so it is accepted,
         * which is why the caller must ask dependents() first */
        tour_bracket_free(b);
}

static void an_unplayed_match_lists_what_its_result_will_decide(void **state) {
        int ids[8];
        struct tour_bracket *b = single(8, false);
        (void) state;

        /* nothing played: R1-1's result would fill one side of R2-1 */
        assert_int_equal(tour_bracket_dependents(b, NULL, 0, false, ids), 1);
        assert_int_equal(ids[0], 4);
        assert_int_equal(tour_bracket_dependents(b, NULL, 0, true, ids), 0);
        tour_bracket_free(b);
}

static void ready_matches_come_out_as_two_seat_pairings(void **state) {
        struct tour_bracket_state st[8];
        struct tour_pairing p[8];
        struct tour_bracket *b = single(6, false);
        (void) state;

        /* 6 of 8: seeds 1 and 2 have byes; 4 v 5 and 3 v 6 are ready */
        assert_int_equal(tour_bracket_resolve(b, NULL, st, NULL), 2);
        assert_int_equal(tour_bracket_ready_pairings(b, st, p), 2);
        assert_int_equal(p[0].n, 2);
        assert_int_equal(p[0].round, 1);
        assert_int_equal(p[0].table, 1);
        assert_int_equal(p[0].entrant[0], 3);
        assert_int_equal(p[0].entrant[1], 4);
        assert_int_equal(p[1].entrant[0], 2);
        assert_int_equal(p[1].entrant[1], 5);
        assert_int_equal(p[1].table, 2);
        tour_bracket_free(b);
}

static void bad_input_is_rejected(void **state) {
        struct tour_bracket *b = NULL;
        struct tour_bracket_state st[8];
        int8_t o[8];
        int ids[8], seed_at[8];
        (void) state;

        assert_int_equal(tour_single_elim_new(1, NULL, &b), -EINVAL);
        assert_int_equal(tour_single_elim_new(0, NULL, &b), -EINVAL);
        assert_int_equal(tour_single_elim_new(-3, NULL, &b), -EINVAL);
        assert_int_equal(tour_single_elim_new(TOUR_BRACKET_MAX_ENTRANTS + 1, NULL, &b), -EINVAL);
        assert_int_equal(tour_single_elim_new(8, NULL, NULL), -EINVAL);
        assert_null(b);
        assert_int_equal(tour_bracket_seed_order(6, seed_at), -EINVAL);
        assert_int_equal(tour_bracket_seed_order(8, NULL), -EINVAL);
        assert_int_equal(tour_bracket_size(0), -EINVAL);
        tour_bracket_free(NULL);

        b = single(5, false);
        assert_int_equal(tour_bracket_resolve(NULL, NULL, st, NULL), -EINVAL);
        assert_int_equal(tour_bracket_resolve(b, NULL, NULL, NULL), -EINVAL);
        memset(o, TOUR_BRACKET_UNPLAYED, sizeof o);
        o[0] = 0;               /* a bye is never played */
        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), -EINVAL);
        o[0] = TOUR_BRACKET_UNPLAYED;
        o[6] = 1;               /* the final before anyone reached it */
        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), -EINVAL);
        o[6] = TOUR_BRACKET_UNPLAYED;
        o[1] = 2;               /* there is no slot 2 */
        assert_int_equal(tour_bracket_resolve(b, o, st, NULL), -EINVAL);
        o[1] = TOUR_BRACKET_UNPLAYED;
        assert_int_equal(tour_bracket_dependents(b, o, 7, false, ids), -EINVAL);
        assert_int_equal(tour_bracket_dependents(b, o, -1, false, ids), -EINVAL);
        assert_int_equal(tour_bracket_dependents(b, o, 0, false, NULL), -EINVAL);
        assert_int_equal(tour_bracket_ready_pairings(b, NULL, NULL), -EINVAL);
        tour_bracket_free(b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(standard_placement_of_8_pairs_1v8_4v5_2v7_3v6),
                cmocka_unit_test(byes_go_to_the_top_seeds),
                cmocka_unit_test(a_bracket_of_n_has_n_minus_1_played_matches_in_log2_P_rounds),
                cmocka_unit_test(four_players_finish_1_2_3_3),
                cmocka_unit_test(the_third_place_match_decides_3rd_and_4th),
                cmocka_unit_test(favourites_winning_gives_1v4_and_2v3_semis_and_places_by_seed_band),
                cmocka_unit_test(random_fields_of_2_to_300_end_with_one_champion_and_one_loss_each),
                cmocka_unit_test(generation_and_resolution_are_deterministic),
                cmocka_unit_test(a_correction_lists_the_played_matches_it_invalidates),
                cmocka_unit_test(an_unplayed_match_lists_what_its_result_will_decide),
                cmocka_unit_test(ready_matches_come_out_as_two_seat_pairings),
                cmocka_unit_test(bad_input_is_rejected),
        };
        return cmocka_run_group_tests_name("single_elim", tests, NULL, NULL);
}
