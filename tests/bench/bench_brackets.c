/* bench_brackets — bracket generation and resolution at 4,096 entrants.
 *
 *   - single and double elimination for 4,096 entrants: generating the
 *     graph, resolving it with a full set of random outcomes (what every
 *     result entry or correction costs: resolution is recomputed from
 *     scratch), and listing what a round-1 correction would invalidate;
 *   - the whole double round robin schedule of 300 entrants (598 rounds,
 *     89,700 pairings);
 *   - seeding a 64-group x 4 bracket from group standings.
 *
 * Reference in the same run: a naive O(n) fill of an array of the same
 * size as the output (one struct tour_bracket_state per match, one
 * struct tour_pairing per pairing), the floor of merely writing the answer;
 * for the seeding, a qsort of the qualifiers by (place in group, group),
 * the naive seeding.
 *
 * Each figure is also a row of `make bench`'s report (report.h), with its
 * goal as a ratio to the reference.  The goals are set so that a change of
 * complexity shows (at 4,096 entrants a quadratic step would be thousands of
 * times the fill), not the noise of a run; the reason is next to each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tournament/bracket.h"
#include "tournament/groups.h"
#include "tournament/round_robin.h"

#include "report.h"

#define ENTRANTS        4096
#define RR_ENTRANTS     300
#define REPS            200

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

/* A full random set of outcomes: resolve, record a coin flip for every
 * READY match, repeat.  Only used to prepare the input. */
static int play(const struct tour_bracket *b, int8_t *o, struct tour_bracket_state *st, uint64_t *seed) {
        memset(o, TOUR_BRACKET_UNPLAYED, (size_t) b->n_matches);
        for (;;) {
                int ready = tour_bracket_resolve(b, o, st, NULL);
                if (ready <= 0)
                        return ready;
                for (int i = 0; i < b->n_matches; i++)
                        if (st[i].status == TOUR_MATCH_READY)
                                o[i] = (int8_t) (rnd(seed) & 1);
        }
}

struct qualifier {
        int32_t entrant;
        int group, place;
};

static int by_place(const void *x, const void *y) {
        const struct qualifier *a = x, *b = y;

        return a->place != b->place ? a->place - b->place : a->group - b->group;
}

static double fill_reference(struct tour_bracket_state *st, int n) {
        double t0 = now_s();
        for (int r = 0; r < REPS; r++) {
                for (int i = 0; i < n; i++) {
                        st[i].status = TOUR_MATCH_DONE;
                        st[i].occupant[0] = i;
                        st[i].occupant[1] = i + 1;
                        st[i].winner = i;
                        st[i].loser = i + 1;
                }
                __asm__ volatile("" ::: "memory");
        }
        return (now_s() - t0) / REPS * 1e6;
}

static int bench_format(const char *name, const char *id, bool dbl) {
        struct tour_bracket_options opt = { .third_place = !dbl, .grand_final = TOUR_GRAND_FINAL_DOUBLE };
        struct tour_bracket *b = NULL;
        uint64_t seed = 12345;
        double t0, gen_us, res_us, dep_us, ref_us;
        int r;

        t0 = now_s();
        for (int i = 0; i < REPS; i++) {
                tour_bracket_free(b);
                b = NULL;
                r = dbl ? tour_double_elim_new(ENTRANTS, &opt, &b) : tour_single_elim_new(ENTRANTS, &opt, &b);
                if (r < 0)
                        return 1;
        }
        gen_us = (now_s() - t0) / REPS * 1e6;

        int8_t *o = malloc((size_t) b->n_matches);
        struct tour_bracket_state *st = malloc((size_t) b->n_matches * sizeof *st);
        int *place = malloc(ENTRANTS * sizeof *place), *ids = malloc((size_t) b->n_matches * sizeof *ids);
        if (!o || !st || !place || !ids || play(b, o, st, &seed) < 0)
                return 1;
        t0 = now_s();
        for (int i = 0; i < REPS; i++)
                if (tour_bracket_resolve(b, o, st, place) < 0)
                        return 1;
        res_us = (now_s() - t0) / REPS * 1e6;
        int deps = 0;
        t0 = now_s();
        for (int i = 0; i < REPS; i++)
                if ((deps = tour_bracket_dependents(b, o, i % (ENTRANTS / 2), true, ids)) < 0)
                        return 1;
        dep_us = (now_s() - t0) / REPS * 1e6;
        ref_us = fill_reference(st, b->n_matches);
        printf("%s, %d entrants (%d matches, %d played): generate %.1f us, resolve with all %s outcomes "
               "%.1f us, correction of a round-1 match %.1f us (%d played matches invalidated); "
               "reference: naive fill of %d states %.1f us\n",
               name, ENTRANTS, b->n_matches, b->n_played, gen_us, "random", res_us, dep_us, deps,
               b->n_matches, ref_us);
        char rid[96], fig[160];
        const char *ref_name = "naive fill of the states";

        /* Generation runs once per stage and builds the whole graph (feeders,
         * seeds, the losers' routes, allocations): linear, so a few hundred
         * times the fill; 1,000x would mean it stopped being linear. */
        snprintf(rid, sizeof rid, "brackets.%s.generate_us", id);
        snprintf(fig, sizeof fig, "%s of %d: generate the bracket", name, ENTRANTS);
        bench_report(rid, fig, "µs", gen_us, ref_us, ref_name, BENCH_GOAL_RATIO_MAX, 1000);
        /* Resolution is recomputed from scratch on every result entered: one
         * pass over the matches, a few lookups each; within 50x of merely
         * writing its output. */
        snprintf(rid, sizeof rid, "brackets.%s.resolve_us", id);
        snprintf(fig, sizeof fig, "%s of %d: resolve with every outcome", name, ENTRANTS);
        bench_report(rid, fig, "µs", res_us, ref_us, ref_name, BENCH_GOAL_RATIO_MAX, 50);
        /* A correction is a resolve plus the walk of what depends on the
         * match: within 100x of the fill. */
        snprintf(rid, sizeof rid, "brackets.%s.correction_us", id);
        snprintf(fig, sizeof fig, "%s of %d: what a round-1 correction invalidates", name, ENTRANTS);
        bench_report(rid, fig, "µs", dep_us, ref_us, ref_name, BENCH_GOAL_RATIO_MAX, 100);
        free(o);
        free(st);
        free(place);
        free(ids);
        tour_bracket_free(b);
        return 0;
}

int main(void) {
        if (bench_format("single elimination + 3rd place", "single_elim", false) ||
            bench_format("double elimination, reset", "double_elim", true))
                return 1;

        int games = tour_round_robin_rounds(RR_ENTRANTS, 2) * (RR_ENTRANTS / 2);
        struct tour_pairing *p = malloc((size_t) games * sizeof *p);
        struct tour_bye byes[2 * RR_ENTRANTS];
        if (!p)
                return 1;
        double t0 = now_s();
        for (int r = 0; r < 20; r++)
                if (tour_round_robin_schedule(RR_ENTRANTS, 2, p, byes) != games)
                        return 1;
        double rr_ms = (now_s() - t0) / 20 * 1e3;
        t0 = now_s();
        for (int r = 0; r < 20; r++) {
                for (int i = 0; i < games; i++) {
                        p[i].round = i;
                        p[i].table = i;
                        p[i].n = 2;
                        for (int s = 0; s < TOUR_MAX_SEATS; s++)
                                p[i].entrant[s] = s;
                }
                __asm__ volatile("" ::: "memory");
        }
        double ref_ms = (now_s() - t0) / 20 * 1e3;
        printf("double round robin of %d: %d pairings in %.2f ms (%.1f ns per pairing); "
               "reference: naive fill of %d pairings %.2f ms\n",
               RR_ENTRANTS, games, rr_ms, rr_ms * 1e6 / games, games, ref_ms);
        /* The circle method writes each pairing once with a little
         * arithmetic: within 5x of writing the pairings. */
        bench_report("brackets.round_robin.schedule_ms", "double round robin of 300: the whole schedule", "ms", rr_ms,
                     ref_ms, "naive fill of the pairings", BENCH_GOAL_RATIO_MAX, 5);
        free(p);

        /* 64 groups, top 4 advance: a 256-entrant bracket */
        enum { G = 64, Q = 4 };
        int32_t standings[G * Q], seeds[G * Q];
        for (int i = 0; i < G * Q; i++)
                standings[i] = i;
        t0 = now_s();
        for (int r = 0; r < 20; r++)
                if (tour_groups_seed_bracket(G * Q, G, Q, standings, seeds) < 0)
                        return 1;
        double seed_ms = (now_s() - t0) / 20 * 1e3;
        /* the naive seeding: the qualifiers sorted by place in group, then group */
        struct qualifier q[G * Q];
        t0 = now_s();
        for (int r = 0; r < 20; r++) {
                for (int i = 0; i < G * Q; i++)
                        q[i] = (struct qualifier) { .entrant = standings[i], .group = i / Q, .place = i % Q };
                qsort(q, G * Q, sizeof q[0], by_place);
                __asm__ volatile("" ::: "memory");
        }
        double sort_ms = (now_s() - t0) / 20 * 1e3;
        printf("seeding a bracket from %d groups x top %d: %.2f ms; reference: qsort by place and group %.3f ms\n",
               G, Q, seed_ms, sort_ms);
        /* No goal: the seeding solves a g x g assignment per place (O(g^3)
         * each, tournament/groups.h) to keep group mates apart, which the
         * sort does not try; once per stage, reported for scale. */
        bench_report("brackets.seed_from_groups.ms", "seeding a bracket from 64 groups x top 4", "ms", seed_ms,
                     sort_ms, "qsort by place and group", BENCH_GOAL_NONE, 0);
        return 0;
}
