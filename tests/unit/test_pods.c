/* Pod-Swiss, league and race tables (tournament/pods.h,
 * docs/formats/swiss-and-pods.md).
 *
 * Size rules are checked against the formula for every n; the policies on
 * the fields that cannot be split; the swap search on a field whose best
 * cost is worked out by hand; seat rotation against its two rules; then
 * random fields of 2..300 players over several rounds for the invariants
 * (sizes k and k−1 only, each active entrant seated once or the bye,
 * nobody inactive, determinism). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/pods.h"

#define MAXN 300

struct field {
        int                      n, round;
        uint64_t                 seed;
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
        f->seed = 99;
        for (int i = 0; i < n; i++)
                f->e[i] = (struct tour_pair_entrant) { .entrant = i, .rating = 2000 - i, .active = true };
        return f;
}

static struct tour_pair_input field_input(struct field *f) {
        return (struct tour_pair_input) { .n = f->n, .round = f->round, .seed = f->seed,
                                          .entrants = f->e, .meetings = f->meet, .seats = f->seats };
}

static int met(const struct field *f, int a, int b) {
        return f->meet[a * f->n + b];
}

enum which { POD_SWISS, LEAGUE, RACE };

/* One round, with the promises every round keeps: each active entrant in
 * exactly one table or bye, nobody inactive, tables numbered, seats packed,
 * the info agrees with the output. */
static int tables(struct field *f, enum which w, int k, enum tour_pods_policy pol, struct tour_pairing *p,
                  struct tour_bye *b, int *nb, struct tour_pods_info *info) {
        struct tour_pair_input in = field_input(f);
        int np = w == POD_SWISS ? tour_pods_pair(&in, k, pol, p, b, nb, info)
                 : w == LEAGUE  ? tour_pods_league(&in, k, pol, p, b, nb, info)
                                : tour_pods_race(&in, k, p, info);
        int seen[MAXN] = { 0 }, repeats = 0;
        long cost = 0;

        if (w == RACE)
                *nb = 0;
        if (np < 0)
                return np;
        assert_int_equal(info->pods, np);
        assert_int_equal(info->byes, *nb);
        for (int t = 0; t < np; t++) {
                assert_int_equal(p[t].table, t + 1);
                assert_int_equal(p[t].round, f->round);
                assert_true(p[t].n >= 1 && p[t].n <= TOUR_MAX_SEATS);
                for (int s = 0; s < TOUR_MAX_SEATS; s++) {
                        int x = p[t].entrant[s];
                        if (s >= p[t].n) {
                                assert_int_equal(x, TOUR_NONE);
                                continue;
                        }
                        assert_true(x >= 0 && x < f->n && f->e[x].active);
                        seen[x]++;
                        for (int u = s + 1; u < p[t].n; u++) {
                                int m = met(f, x, p[t].entrant[u]);
                                repeats += m > 0;
                                cost += (long) m * m;
                        }
                }
        }
        for (int i = 0; i < *nb; i++) {
                assert_true(f->e[b[i].entrant].active);
                seen[b[i].entrant]++;
        }
        for (int i = 0; i < f->n; i++)
                assert_int_equal(seen[i], f->e[i].active ? 1 : 0);
        assert_int_equal(info->repeats, repeats);
        assert_int_equal(info->repeat_cost, cost);
        return np;
}

/* Books the round: meetings, seats, byes; placement points 3/2/1/0 by
 * a random finishing order, the points table being the standings'. */
static void play(struct field *f, const struct tour_pairing *p, int np, const struct tour_bye *b, int nb,
                 uint64_t *rng) {
        for (int t = 0; t < np; t++) {
                for (int s = 0; s < p[t].n; s++) {
                        int x = p[t].entrant[s];
                        f->seats[x * TOUR_MAX_SEATS + s]++;
                        f->e[x].last_seat = s + 1;
                        f->e[x].score += (double) (rng_next(rng) % 4);
                        for (int u = s + 1; u < p[t].n; u++) {
                                int y = p[t].entrant[u];
                                f->meet[x * f->n + y]++;
                                f->meet[y * f->n + x]++;
                        }
                }
        }
        for (int i = 0; i < nb; i++) {
                f->e[b[i].entrant].byes++;
                f->e[b[i].entrant].last_seat = 0;
        }
        f->round++;
}

static void pods_of_four_use_t_three_player_pods(void **state) {
        (void) state;
        int sizes[400], nb;

        /* t = (4 − n mod 4) mod 4 three-player pods, the rest of four,
         * largest first: n = 10 → P = ceil(10/4) = 3 pods, t = 12 − 10 = 2:
         * 4 + 3 + 3; n = 9 → t = 3: 3 + 3 + 3.  Every n from 3 to 400 but
         * 5 splits this way. */
        for (int n = 3; n <= 400; n++) {
                if (n == 5)
                        continue;
                int np = tour_pods_sizes(n, 4, TOUR_PODS_BYE, sizes, &nb);
                int t = (4 - n % 4) % 4, threes = 0, sum = 0;
                assert_true(np > 0);
                assert_int_equal(nb, 0);
                for (int i = 0; i < np; i++) {
                        assert_true(sizes[i] == 4 || sizes[i] == 3);
                        assert_true(i == 0 || sizes[i] <= sizes[i - 1]);
                        threes += sizes[i] == 3;
                        sum += sizes[i];
                }
                assert_int_equal(threes, t);
                assert_int_equal(sum, n);
        }
}

static void five_players_at_tables_of_four_follow_the_policy(void **state) {
        (void) state;
        int s[8], nb;

        /* 5 = 4 + 1 cannot be cut into 4s and 3s. */
        assert_int_equal(tour_pods_sizes(5, 4, TOUR_PODS_BYE, s, &nb), 1);
        assert_int_equal(s[0], 4);
        assert_int_equal(nb, 1);
        assert_int_equal(tour_pods_sizes(5, 4, TOUR_PODS_BIG_POD, s, &nb), 1);
        assert_int_equal(s[0], 5);
        assert_int_equal(nb, 0);
        assert_int_equal(tour_pods_sizes(5, 4, TOUR_PODS_SMALL_PODS, s, &nb), 2);
        assert_int_equal(s[0], 3);
        assert_int_equal(s[1], 2);
        /* k = 5, n = 11: P = 3, t = 4 > 3; BIG_POD gives 6 + 5. */
        assert_int_equal(tour_pods_sizes(11, 5, TOUR_PODS_BIG_POD, s, &nb), 2);
        assert_int_equal(s[0], 6);
        assert_int_equal(s[1], 5);
}

static void a_split_the_policy_cannot_make_is_an_error(void **state) {
        (void) state;
        int s[8], nb;

        /* 2 players at k = 4: no pod of 3 after byes, no pod of 5, and 2 is
         * k − 2 = 2 so SMALL_PODS seats them together. */
        assert_int_equal(tour_pods_sizes(2, 4, TOUR_PODS_BYE, s, &nb), -ERANGE);
        assert_int_equal(tour_pods_sizes(2, 4, TOUR_PODS_BIG_POD, s, &nb), -ERANGE);
        assert_int_equal(tour_pods_sizes(2, 4, TOUR_PODS_SMALL_PODS, s, &nb), 1);
        /* k = 3 would need pods of 1 for SMALL_PODS. */
        assert_int_equal(tour_pods_sizes(1, 3, TOUR_PODS_SMALL_PODS, s, &nb), -ERANGE);
        assert_int_equal(tour_pods_sizes(5, 2, TOUR_PODS_BYE, s, &nb), -EINVAL);
        assert_int_equal(tour_pods_sizes(5, 7, TOUR_PODS_BYE, s, &nb), -EINVAL);
        assert_int_equal(tour_pods_sizes(5, 4, (enum tour_pods_policy) 0, s, &nb), -EINVAL);
}

static void the_pod_bye_goes_to_the_lowest_ranked_without_one(void **state) {
        (void) state;
        struct field *f = field_new(5);
        struct tour_pairing p[8];
        struct tour_bye b[8];
        struct tour_pods_info info;
        int nb;

        /* Round 2, scores 4,3,2,1,0 for players 0..4; 4 had a bye: 3 sits
         * out, 0,1,2,4 form the pod. */
        f->round = 2;
        for (int i = 0; i < 5; i++)
                f->e[i].score = 4 - i;
        f->e[4].byes = 1;
        assert_int_equal(tables(f, POD_SWISS, 4, TOUR_PODS_BYE, p, b, &nb, &info), 1);
        assert_int_equal(nb, 1);
        assert_int_equal(b[0].entrant, 3);
        free(f);
}

static void swaps_split_last_rounds_pods_as_far_as_possible(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye b[8];
        struct tour_pods_info info;
        int nb;

        /* Round 1 pods were {0,1,2,3} and {4,5,6,7}; everyone is on 0
         * points in round 2, so the cut by rating would repeat both pods:
         * cost 2 × 6 = 12.  A new pod with a players from the first old pod
         * and 4 − a from the second has C(a,2) + C(4−a,2) repeated pairs,
         * least at a = 2: 1 + 1 = 2 per pod, 4 in all (each met once, so
         * cost = repeats = 4). */
        for (int a = 0; a < 8; a++)
                for (int c = 0; c < 8; c++)
                        if (a != c && a / 4 == c / 4)
                                f->meet[a * 8 + c] = 1;
        f->round = 2;
        assert_int_equal(tables(f, POD_SWISS, 4, TOUR_PODS_BYE, p, b, &nb, &info), 2);
        assert_int_equal(info.repeat_cost, 4);
        assert_int_equal(info.repeats, 4);
        free(f);
}

static void swaps_keep_score_groups_together_when_repeats_tie(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye b[8];
        struct tour_pods_info info;
        int nb;

        /* Nobody met; 0..3 on 6 points, 4..7 on 0: no swap lowers the
         * repeat cost (it is 0), so the pods are the score groups. */
        for (int i = 0; i < 4; i++)
                f->e[i].score = 6;
        f->round = 2;
        assert_int_equal(tables(f, POD_SWISS, 4, TOUR_PODS_BYE, p, b, &nb, &info), 2);
        assert_int_equal(info.swaps, 0);
        for (int s = 0; s < 4; s++) {
                assert_true(p[0].entrant[s] < 4);
                assert_true(p[1].entrant[s] >= 4);
        }
        free(f);
}

static void seat_one_never_goes_to_the_pod_mate_with_most_seat_one_games(void **state) {
        (void) state;
        struct field *f = field_new(4);
        struct tour_pairing p[8];
        struct tour_bye b[8];
        struct tour_pods_info info;
        int nb;

        /* Seat-1 games: 0 → 3, 1 → 1, 2 → 0, 3 → 2.  Seat 1 goes to 2 (the
         * fewest).  Seat 2 games: 0 → 0, 1 → 2, 3 → 2 otherwise empty; the
         * cheapest completion puts 0 in seat 2 (cost 0 + 0 + 0). */
        f->seats[0 * TOUR_MAX_SEATS + 0] = 3;
        f->seats[1 * TOUR_MAX_SEATS + 0] = 1;
        f->seats[3 * TOUR_MAX_SEATS + 0] = 2;
        f->seats[1 * TOUR_MAX_SEATS + 1] = 2;
        f->seats[3 * TOUR_MAX_SEATS + 1] = 2;
        f->round = 5;
        assert_int_equal(tables(f, POD_SWISS, 4, TOUR_PODS_BYE, p, b, &nb, &info), 1);
        assert_int_equal(p[0].entrant[0], 2);
        assert_int_equal(p[0].entrant[1], 0);
        free(f);
}

static void a_league_rotates_seats_evenly(void **state) {
        (void) state;
        struct field *f = field_new(16);
        struct tour_pairing p[16];
        struct tour_bye b[16];
        struct tour_pods_info info;
        uint64_t rng = 1;
        int nb;

        /* 16 players, tables of 4, 8 rounds: 2 visits per seat on average.
         * Seat 1 always goes to a pod-mate with the fewest seat-1 games, so
         * no one sits in seat 1 more than 3 times; every player has sat in
         * every seat at least once (the Σ count² rule). */
        for (int r = 0; r < 8; r++) {
                int np = tables(f, LEAGUE, 4, TOUR_PODS_BYE, p, b, &nb, &info);
                play(f, p, np, b, nb, &rng);
        }
        for (int i = 0; i < 16; i++) {
                assert_true(f->seats[i * TOUR_MAX_SEATS + 0] <= 3);
                for (int s = 0; s < 4; s++)
                        assert_true(f->seats[i * TOUR_MAX_SEATS + s] >= 1);
        }
        free(f);
}

static void a_league_of_sixteen_needs_no_repeat_in_round_two(void **state) {
        (void) state;
        struct field *f = field_new(16);
        struct tour_pairing p[16];
        struct tour_bye b[16];
        struct tour_pods_info info;
        uint64_t rng = 1;
        int nb;

        /* After any first round of four pods of 4, a second round without a
         * repeat exists (one player from each old pod per new pod, 4 × 4
         * Latin transversal); the swap search must find a repeat-free one. */
        int np = tables(f, LEAGUE, 4, TOUR_PODS_BYE, p, b, &nb, &info);
        play(f, p, np, b, nb, &rng);
        tables(f, LEAGUE, 4, TOUR_PODS_BYE, p, b, &nb, &info);
        assert_int_equal(info.repeats, 0);
        free(f);
}

static void race_tables_are_balanced_and_nobody_sits_out(void **state) {
        (void) state;
        struct field *f = field_new(MAXN);
        static struct tour_pairing p[MAXN];
        struct tour_bye b[1];
        struct tour_pods_info info;
        uint64_t rng = 8;
        int nb;

        /* n active over tables of at most k: ceil(n/k) tables, sizes
         * floor/ceil of n / tables (e.g. 10 at k = 4: 3 tables, 4 + 3 + 3). */
        for (int n = 1; n <= 60; n++) {
                f->n = n;
                memset(f->meet, 0, sizeof f->meet);
                for (int k = 1; k <= 8; k++) {
                        int np = tables(f, RACE, k, TOUR_PODS_BYE, p, b, &nb, &info);
                        assert_int_equal(np, (n + k - 1) / k);
                        for (int t = 0; t < np; t++) {
                                assert_true(p[t].n <= k);
                                assert_true(p[t].n == n / np || p[t].n == n / np + 1);
                        }
                }
        }
        /* Rotation, 12 racers at tables of 4.  Round 2: each table seats 4
         * racers out of round 1's 3 tables, so by pigeonhole at least one
         * pair per table raced together before: 3 repeats at least, and 3
         * is reachable (2 + 1 + 1 per table).  A fixed split would repeat
         * all 18 pairs. */
        f->n = 12;
        memset(f->meet, 0, sizeof f->meet);
        int np = tables(f, RACE, 4, TOUR_PODS_BYE, p, b, &nb, &info);
        assert_int_equal(info.repeats, 0);
        play(f, p, np, b, 0, &rng);
        tables(f, RACE, 4, TOUR_PODS_BYE, p, b, &nb, &info);
        assert_int_equal(info.repeats, 3);
        assert_int_equal(info.repeat_cost, 3);
        free(f);
}

static void random_fields_of_2_to_300_keep_sizes_and_byes(void **state) {
        (void) state;
        static struct tour_pairing p[MAXN];
        static struct tour_bye b[MAXN];
        struct tour_pods_info info;
        uint64_t rng = 77;
        int nb;

        /* 30 events, n 2..300, k 3..6, a random policy, 6 rounds, random
         * drops: tables() checks each active entrant seated once or the bye;
         * here sizes are k or k−1 whenever the standard split exists, and
         * sum of sizes = active − byes. */
        for (int ev = 0; ev < 30; ev++) {
                int n = ev == 0 ? 2 : ev == 1 ? 300 : 2 + (int) (rng_next(&rng) % 299);
                int k = 3 + (int) (rng_next(&rng) % 4);
                enum tour_pods_policy pol = (enum tour_pods_policy) (1 + rng_next(&rng) % 3);
                struct field *f = field_new(n);
                f->seed = rng_next(&rng);
                for (int r = 0; r < 6; r++) {
                        if (n > 6 && rng_next(&rng) % 3 == 0)
                                f->e[rng_next(&rng) % (uint64_t) n].active = false;
                        int active = 0, sizes[MAXN], sb;
                        for (int i = 0; i < n; i++)
                                active += f->e[i].active;
                        int want = tour_pods_sizes(active, k, pol, sizes, &sb);
                        int np = tables(f, POD_SWISS, k, pol, p, b, &nb, &info);
                        assert_int_equal(np, want);
                        if (np < 0)
                                break;
                        int sum = 0;
                        bool standard = active >= ((active + k - 1) / k) * (k - 1);
                        for (int t = 0; t < np; t++) {
                                assert_int_equal(p[t].n, sizes[t]);
                                if (standard)
                                        assert_true(p[t].n == k || p[t].n == k - 1);
                                sum += p[t].n;
                        }
                        assert_int_equal(sum, active - nb);
                        play(f, p, np, b, nb, &rng);
                }
                free(f);
        }
}

static void the_same_snapshot_and_seed_give_the_same_tables(void **state) {
        (void) state;
        struct field *f = field_new(50);
        static struct tour_pairing p[64], q[64];
        struct tour_bye b[64], c[64];
        struct tour_pods_info info;
        uint64_t rng = 4;
        int n1, n2;

        for (int r = 0; r < 3; r++) {
                int np = tables(f, POD_SWISS, 4, TOUR_PODS_BYE, p, b, &n1, &info);
                play(f, p, np, b, n1, &rng);
        }
        struct tour_pair_input in = field_input(f);
        int x = tour_pods_pair(&in, 4, TOUR_PODS_BYE, p, b, &n1, NULL);
        int y = tour_pods_pair(&in, 4, TOUR_PODS_BYE, q, c, &n2, NULL);
        assert_int_equal(x, y);
        assert_memory_equal(p, q, (size_t) x * sizeof *p);
        /* Round 1 is a seeded random order: another seed, other pods. */
        struct field *g = field_new(50);
        in = field_input(g);
        x = tour_pods_pair(&in, 4, TOUR_PODS_BYE, p, b, &n1, NULL);
        in.seed++;
        y = tour_pods_pair(&in, 4, TOUR_PODS_BYE, q, c, &n2, NULL);
        assert_int_equal(x, y);
        assert_memory_not_equal(p, q, (size_t) x * sizeof *p);
        free(f);
        free(g);
}

static void bad_pod_snapshots_are_rejected(void **state) {
        (void) state;
        struct field *f = field_new(8);
        struct tour_pairing p[8];
        struct tour_bye b[8];
        int nb;
        struct tour_pair_input in = field_input(f);

        assert_int_equal(tour_pods_pair(NULL, 4, TOUR_PODS_BYE, p, b, &nb, NULL), -EINVAL);
        assert_int_equal(tour_pods_pair(&in, 4, TOUR_PODS_BYE, NULL, b, &nb, NULL), -EINVAL);
        assert_int_equal(tour_pods_pair(&in, 9, TOUR_PODS_BYE, p, b, &nb, NULL), -EINVAL);
        assert_int_equal(tour_pods_race(&in, 0, p, NULL), -EINVAL);
        assert_int_equal(tour_pods_race(&in, TOUR_MAX_SEATS + 1, p, NULL), -EINVAL);
        f->meet[1] = 3; /* asymmetric */
        assert_int_equal(tour_pods_league(&in, 4, TOUR_PODS_BYE, p, b, &nb, NULL), -EINVAL);
        f->meet[1] = 0;
        f->e[5].last_seat = TOUR_MAX_SEATS + 1;
        assert_int_equal(tour_pods_league(&in, 4, TOUR_PODS_BYE, p, b, &nb, NULL), -EINVAL);
        f->e[5].last_seat = 0;
        f->n = 5; /* 5 at k = 4 under BYE needs somewhere to write the bye */
        in = field_input(f);
        assert_int_equal(tour_pods_pair(&in, 4, TOUR_PODS_BYE, p, NULL, &nb, NULL), -EINVAL);
        free(f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(pods_of_four_use_t_three_player_pods),
                cmocka_unit_test(five_players_at_tables_of_four_follow_the_policy),
                cmocka_unit_test(a_split_the_policy_cannot_make_is_an_error),
                cmocka_unit_test(the_pod_bye_goes_to_the_lowest_ranked_without_one),
                cmocka_unit_test(swaps_split_last_rounds_pods_as_far_as_possible),
                cmocka_unit_test(swaps_keep_score_groups_together_when_repeats_tie),
                cmocka_unit_test(seat_one_never_goes_to_the_pod_mate_with_most_seat_one_games),
                cmocka_unit_test(a_league_rotates_seats_evenly),
                cmocka_unit_test(a_league_of_sixteen_needs_no_repeat_in_round_two),
                cmocka_unit_test(race_tables_are_balanced_and_nobody_sits_out),
                cmocka_unit_test(random_fields_of_2_to_300_keep_sizes_and_byes),
                cmocka_unit_test(the_same_snapshot_and_seed_give_the_same_tables),
                cmocka_unit_test(bad_pod_snapshots_are_rejected),
        };
        return cmocka_run_group_tests_name("pods", tests, NULL, NULL);
}
