/* One step of a game's ratings (tournament/ratings.h, docs/ratings.md "How
 * the tables are kept").
 *
 * The daemon updates ratings a result at a time from the stored states of
 * that result's players, and recomputes them over all results in memory;
 * both must give the same table to the last bit.  Here the stored table is
 * text, as the database gives it back ("%.17g" is exact, as PostgreSQL's
 * shortest-exact float8 output is), and random results go through both
 * ways.  The step must also equal today's recompute drivers
 * (tour_os_recompute, tour_glicko2_recompute) bit for bit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/ratings.h"

#define PLAYERS 40
#define RESULTS 6000

/* splitmix64 (Steele, Lea and Flood 2014) for the seeded property tests */
static uint64_t step_test_next(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Random results: 1 to 4 seats (mostly 2 to 4), distinct players, ranks a
 * competition ranking with ties now and then, a forfeit in one of thirty,
 * and a malformed one (rank 0) in one of a hundred when bad is set. */
static void random_results(struct tour_result *res, size_t n, uint64_t seed, bool bad) {
        for (size_t i = 0; i < n; i++) {
                uint64_t roll = step_test_next(&seed) % 100;
                int seats = roll < 3 ? 1 : 2 + (int) (step_test_next(&seed) % 3);

                res[i] = (struct tour_result) { .round = 1, .n = seats };
                for (int s = 0; s < seats; s++) {
                        bool seen;

                        do {
                                res[i].entrant[s] = (int32_t) (step_test_next(&seed) % PLAYERS);
                                seen = false;
                                for (int k = 0; k < s; k++)
                                        seen |= res[i].entrant[k] == res[i].entrant[s];
                        } while (seen);
                        res[i].rank[s] = 1 + (int) (step_test_next(&seed) % (uint64_t) seats);
                }
                if (step_test_next(&seed) % 30 == 0)
                        res[i].forfeit[step_test_next(&seed) % (uint64_t) seats] = true;
                if (bad && step_test_next(&seed) % 100 == 0)
                        res[i].rank[0] = 0;
        }
}

static void params(struct tour_os_params *os, struct tour_glicko2_params *g2) {
        tour_os_params_default(os);
        tour_glicko2_params_default(g2);
}

/* Bit for bit, field by field (the struct has padding). */
static bool same_state(const struct tour_rating_state *a, const struct tour_rating_state *b) {
        return memcmp(&a->os.mu, &b->os.mu, sizeof(double)) == 0 &&
               memcmp(&a->os.sigma, &b->os.sigma, sizeof(double)) == 0 &&
               memcmp(&a->g2.rating, &b->g2.rating, sizeof(double)) == 0 &&
               memcmp(&a->g2.rd, &b->g2.rd, sizeof(double)) == 0 &&
               memcmp(&a->g2.vol, &b->g2.vol, sizeof(double)) == 0 && a->os_games == b->os_games &&
               a->g2_games == b->g2_games;
}

/* ---- the stored table, as text ---------------------------------------------- */

struct text_table {
        char row[PLAYERS][256];         /* "" until the player is first rated */
};

static void text_store(struct text_table *t, int player, const struct tour_rating_state *s) {
        snprintf(t->row[player], sizeof t->row[player], "%.17g %.17g %u %.17g %.17g %.17g %u", s->os.mu,
                 s->os.sigma, s->os_games, s->g2.rating, s->g2.rd, s->g2.vol, s->g2_games);
}

static void text_load(const struct text_table *t, int player, const struct tour_os_params *os,
                      const struct tour_glicko2_params *g2, struct tour_rating_state *ret) {
        char *end;

        if (!t->row[player][0]) {
                tour_rating_state_init(os, g2, ret);
                return;
        }
        const char *p = t->row[player];
        ret->os.mu = strtod(p, &end);
        ret->os.sigma = strtod(end, &end);
        ret->os_games = (unsigned) strtoul(end, &end, 10);
        ret->g2.rating = strtod(end, &end);
        ret->g2.rd = strtod(end, &end);
        ret->g2.vol = strtod(end, &end);
        ret->g2_games = (unsigned) strtoul(end, &end, 10);
}

static void incremental_steps_through_a_stored_table_equal_the_recompute(void **state) {
        static struct tour_result res[RESULTS];
        static struct tour_rating_state full[PLAYERS];
        static struct text_table stored;
        struct tour_os_params os;
        struct tour_glicko2_params g2;
        size_t rejected = 0, skipped = 0;

        (void) state;
        params(&os, &g2);
        random_results(res, RESULTS, 12, true);

        /* the recompute: every state in memory, the results in order */
        for (int p = 0; p < PLAYERS; p++)
                tour_rating_state_init(&os, &g2, &full[p]);
        for (size_t i = 0; i < RESULTS; i++) {
                struct tour_rating_state *ptr[TOUR_MAX_SEATS];
                struct tour_rating_step step;

                for (int k = 0; k < res[i].n; k++)
                        ptr[k] = &full[res[i].entrant[k]];
                int r = tour_ratings_step(&os, &g2, &res[i], ptr, &step);
                if (r == -EINVAL)
                        rejected++;
                else
                        assert_int_equal(r, 0);
                if (r == 0 && step.rated == 0)
                        skipped++;
        }
        assert_true(rejected > 0);
        assert_true(skipped > 0);

        /* the update: for each result, its players' rows read, one step,
         * their rows written back; nobody else's row is touched */
        memset(&stored, 0, sizeof stored);
        for (size_t i = 0; i < RESULTS; i++) {
                struct tour_rating_state mine[TOUR_MAX_SEATS], *ptr[TOUR_MAX_SEATS];
                struct tour_rating_step step;

                for (int k = 0; k < res[i].n; k++) {
                        text_load(&stored, res[i].entrant[k], &os, &g2, &mine[k]);
                        ptr[k] = &mine[k];
                }
                if (tour_ratings_step(&os, &g2, &res[i], ptr, &step) < 0 || step.rated == 0)
                        continue;
                for (int k = 0; k < res[i].n; k++)
                        text_store(&stored, res[i].entrant[k], &mine[k]);
        }

        for (int p = 0; p < PLAYERS; p++) {
                struct tour_rating_state back;

                text_load(&stored, p, &os, &g2, &back);
                if (!same_state(&back, &full[p]))
                        fail_msg("player %d: the update gives mu %.17g sigma %.17g rating %.17g, the recompute "
                                 "%.17g %.17g %.17g", p, back.os.mu, back.os.sigma, back.g2.rating, full[p].os.mu,
                                 full[p].os.sigma, full[p].g2.rating);
        }
}

static void the_step_equals_the_recompute_drivers_bit_for_bit(void **state) {
        static struct tour_result res[RESULTS];
        static struct tour_rating_match all[RESULTS], duels[RESULTS];
        static struct tour_rating_state st[PLAYERS];
        struct tour_os_rating os_want[PLAYERS];
        struct tour_glicko2_rating g2_want[PLAYERS];
        unsigned os_games[PLAYERS], g2_games[PLAYERS];
        struct tour_os_params os;
        struct tour_glicko2_params g2;
        size_t n_duels = 0;

        (void) state;
        params(&os, &g2);
        random_results(res, RESULTS, 2026, false);
        for (size_t i = 0; i < RESULTS; i++) {
                all[i] = (struct tour_rating_match) { &res[i], NULL };
                if (res[i].n == 2)
                        duels[n_duels++] = all[i];
        }
        assert_true(tour_os_recompute(&os, all, RESULTS, PLAYERS, os_want, os_games, NULL, NULL) > 0);
        assert_true(tour_glicko2_recompute(&g2, duels, n_duels, PLAYERS, g2_want, g2_games, NULL, NULL) > 0);

        for (int p = 0; p < PLAYERS; p++)
                tour_rating_state_init(&os, &g2, &st[p]);
        for (size_t i = 0; i < RESULTS; i++) {
                struct tour_rating_state *ptr[TOUR_MAX_SEATS];
                struct tour_rating_step step;

                for (int k = 0; k < res[i].n; k++)
                        ptr[k] = &st[res[i].entrant[k]];
                assert_int_equal(tour_ratings_step(&os, &g2, &res[i], ptr, &step), 0);
        }
        for (int p = 0; p < PLAYERS; p++) {
                assert_memory_equal(&st[p].os, &os_want[p], sizeof os_want[p]);
                assert_memory_equal(&st[p].g2, &g2_want[p], sizeof g2_want[p]);
                assert_int_equal(st[p].os_games, os_games[p]);
                assert_int_equal(st[p].g2_games, g2_games[p]);
        }
}

static void a_step_rates_what_it_should_and_says_so(void **state) {
        struct tour_os_params os;
        struct tour_glicko2_params g2;
        struct tour_rating_state a, b, c, *ptr[3] = { &a, &b, &c };
        struct tour_rating_step step;
        struct tour_result duel = { .round = 1, .n = 2, .rank = { 1, 2 } };
        struct tour_result table = { .round = 1, .n = 3, .rank = { 2, 1, 3 } };
        struct tour_result forfeit = { .round = 1, .n = 2, .rank = { 1, 2 }, .forfeit = { false, true } };
        struct tour_result alone = { .round = 1, .n = 1, .rank = { 1 } };

        (void) state;
        params(&os, &g2);
        tour_rating_state_init(&os, &g2, &a);
        tour_rating_state_init(&os, &g2, &b);
        tour_rating_state_init(&os, &g2, &c);

        assert_int_equal(tour_ratings_step(&os, &g2, &duel, ptr, &step), 0);
        assert_int_equal(step.rated, TOUR_RATED_OPENSKILL | TOUR_RATED_GLICKO2);
        assert_int_equal(step.n, 2);
        assert_true(step.before[0].os.mu == os.mu && step.before[0].g2.rating == g2.rating);
        assert_true(a.os.mu > os.mu && b.os.mu < os.mu && a.g2.rating > g2.rating && b.g2.rating < g2.rating);
        assert_int_equal(a.os_games, 1);
        assert_int_equal(a.g2_games, 1);

        /* three seats: OpenSkill only */
        struct tour_rating_state was = b;
        assert_int_equal(tour_ratings_step(&os, &g2, &table, ptr, &step), 0);
        assert_int_equal(step.rated, TOUR_RATED_OPENSKILL);
        assert_true(same_state(&step.before[1], &was));
        assert_true(b.os.mu > was.os.mu);
        assert_memory_equal(&b.g2, &was.g2, sizeof was.g2);
        assert_int_equal(b.g2_games, 1);
        assert_int_equal(b.os_games, 2);

        /* a forfeit and a lone seat rate nobody */
        struct tour_rating_state a0 = a, b0 = b;
        assert_int_equal(tour_ratings_step(&os, &g2, &forfeit, ptr, &step), 0);
        assert_int_equal(step.rated, 0);
        assert_int_equal(tour_ratings_step(&os, &g2, &alone, ptr, &step), 0);
        assert_int_equal(step.rated, 0);
        assert_true(same_state(&a, &a0));
        assert_true(same_state(&b, &b0));
}

static void a_rejected_result_changes_nothing(void **state) {
        struct tour_os_params os;
        struct tour_glicko2_params g2;
        struct tour_rating_state a, b, *ptr[2] = { &a, &b }, *twice[2] = { &a, &a };
        struct tour_rating_step step;
        struct tour_result rank0 = { .round = 1, .n = 2, .rank = { 0, 1 } };
        struct tour_result ok = { .round = 1, .n = 2, .rank = { 1, 2 } };
        struct tour_result none = { .round = 1, .n = 0 };
        struct tour_result many = { .round = 1, .n = TOUR_MAX_SEATS + 1 };

        (void) state;
        params(&os, &g2);
        tour_rating_state_init(&os, &g2, &a);
        tour_rating_state_init(&os, &g2, &b);
        struct tour_rating_state a0 = a, b0 = b;

        assert_int_equal(tour_ratings_step(&os, &g2, &rank0, ptr, &step), -EINVAL);
        assert_int_equal(tour_ratings_step(&os, &g2, &ok, twice, &step), -EINVAL);
        assert_int_equal(tour_ratings_step(&os, &g2, &none, ptr, &step), -EINVAL);
        assert_int_equal(tour_ratings_step(&os, &g2, &many, ptr, &step), -EINVAL);
        assert_int_equal(tour_ratings_step(&os, &g2, NULL, ptr, &step), -EINVAL);
        assert_int_equal(tour_ratings_step(&os, &g2, &ok, ptr, NULL), -EINVAL);
        os.sigma = 0;
        assert_int_equal(tour_ratings_step(&os, &g2, &ok, ptr, &step), -EINVAL);
        params(&os, &g2);
        g2.tau = 5;
        assert_int_equal(tour_ratings_step(&os, &g2, &ok, ptr, &step), -EINVAL);
        assert_true(same_state(&a, &a0));
        assert_true(same_state(&b, &b0));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(incremental_steps_through_a_stored_table_equal_the_recompute),
                cmocka_unit_test(the_step_equals_the_recompute_drivers_bit_for_bit),
                cmocka_unit_test(a_step_rates_what_it_should_and_says_so),
                cmocka_unit_test(a_rejected_result_changes_nothing),
        };

        return cmocka_run_group_tests_name("ratings_step", tests, NULL, NULL);
}
