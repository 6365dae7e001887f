/* bench_standings — recomputing standings from the results, on one core.
 *
 *   - a Swiss of 300 players over 9 rounds of duels (1,350 results), every
 *     tie-break in the list (11 of them);
 *   - a pod league of 2,000 players over 12 rounds of tables of 4 (6,000
 *     results), the same list;
 *   - a worst case for direct encounter: 2,000 players who all draw every
 *     round, tied on everything, with direct encounter first.
 *
 * Reference in the same run: the naive standings (award points, sum them per
 * entrant, qsort by points), so the figure reads as a multiple of the
 * least any standings computation must do.
 *
 * Rows of `make bench`'s report (report.h): standings.FIELD.recompute_ms
 * against the naive standings, goal a ratio of at most 50.  Why: each
 * tie-break is a pass over the results like the naive one (Buchholz and
 * its cuts, Sonneborn-Berger, the opponents' percentages, direct encounter
 * within tied groups), then a sort on a dozen keys: about a dozen naive
 * passes and a dearer sort; 50 allows that and catches a quadratic step
 * (2,000 entrants would make it a thousand times).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tournament/standings.h"

#include "report.h"

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static uint64_t bench_rng(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

struct naive { int e; double p; };

static int naive_cmp(const void *a, const void *b) {
        const struct naive *x = a, *y = b;

        if (x->p != y->p)
                return x->p > y->p ? -1 : 1;
        return x->e - y->e;
}

static double naive(const struct tour_standings_input *in, struct naive *nv) {
        double p[TOUR_MAX_SEATS];

        for (int e = 0; e < in->n; e++)
                nv[e] = (struct naive) { e, 0 };
        for (size_t i = 0; i < in->n_results; i++) {
                tour_points_award(in->points, &in->results[i], p, NULL);
                for (int j = 0; j < in->results[i].n; j++)
                        nv[in->results[i].entrant[j]].p += p[j];
        }
        qsort(nv, (size_t) in->n, sizeof *nv, naive_cmp);
        return nv[0].p;
}

static void field(const char *name, const char *id, int n, int rounds, int k, bool all_draw, bool de_first) {
        static const enum tour_standings_tb all[] = {
                TOUR_TB_BUCHHOLZ, TOUR_TB_CUT1, TOUR_TB_MEDIAN, TOUR_TB_SONNEBORN_BERGER, TOUR_TB_CUMULATIVE,
                TOUR_TB_DIRECT_ENCOUNTER, TOUR_TB_OMW, TOUR_TB_GW, TOUR_TB_OGW, TOUR_TB_PLACEMENT_AVG,
                TOUR_TB_SEAT_ADJUSTED,
        };
        static const enum tour_standings_tb de[] = { TOUR_TB_DIRECT_ENCOUNTER, TOUR_TB_BUCHHOLZ };
        size_t cap = (size_t) n * rounds, nr = 0;
        struct tour_result *res = calloc(cap, sizeof *res);
        struct tour_standings_row *rows = calloc((size_t) n, sizeof *rows);
        struct naive *nv = calloc((size_t) n, sizeof *nv);
        int *ord = malloc((size_t) n * sizeof *ord);
        struct tour_points_config pc;
        uint64_t s = 42;
        double t0, t_full, t_naive, sink = 0;
        int reps = 0;

        if (k == 2)
                tour_points_defaults_wdl(&pc);
        else
                tour_points_defaults_placement(&pc);
        for (int r = 1; r <= rounds; r++) {
                for (int i = 0; i < n; i++)
                        ord[i] = i;
                for (int i = n - 1; i > 0; i--) {
                        int j = (int) (bench_rng(&s) % (uint64_t) (i + 1)), t = ord[i];
                        ord[i] = ord[j], ord[j] = t;
                }
                for (int i = 0; i + k <= n; i += k) {
                        struct tour_result *x = &res[nr++];
                        int perm[TOUR_MAX_SEATS];

                        x->round = r, x->n = k;
                        for (int j = 0; j < k; j++)
                                perm[j] = j;
                        for (int j = k - 1; j > 0; j--) {
                                int q = (int) (bench_rng(&s) % (uint64_t) (j + 1)), t = perm[j];
                                perm[j] = perm[q], perm[q] = t;
                        }
                        for (int j = 0; j < k; j++) {
                                x->entrant[j] = ord[i + j];
                                x->rank[j] = all_draw ? 1 : perm[j] + 1;
                        }
                }
        }
        struct tour_standings_input in = {
                .n = n, .results = res, .n_results = nr, .points = &pc,
                .tiebreaks = de_first ? de : all, .n_tiebreaks = de_first ? 2 : 11,
        };
        t0 = now_s();
        do {
                if (tour_standings_compute(&in, rows, NULL) != n) {
                        fprintf(stderr, "%s: refused\n", name);
                        exit(1);
                }
                reps++;
        } while (now_s() - t0 < 0.5);
        t_full = (now_s() - t0) / reps;
        reps = 0;
        t0 = now_s();
        do {
                sink += naive(&in, nv);
                reps++;
        } while (now_s() - t0 < 0.5);
        t_naive = (now_s() - t0) / reps;
        printf("%-44s %5d entrants %6zu results: %8.3f ms per recompute; "
               "naive points-only reference %7.3f ms (x%.1f)%s\n",
               name, n, nr, t_full * 1e3, t_naive * 1e3, t_full / t_naive, sink < 0 ? "!" : "");
        char rid[64], fig[128];
        snprintf(rid, sizeof rid, "standings.%s.recompute_ms", id);
        snprintf(fig, sizeof fig, "standings, %s: %d entrants, %zu results", name, n, nr);
        bench_report(rid, fig, "ms", t_full * 1e3, t_naive * 1e3, "naive points-only standings", BENCH_GOAL_RATIO_MAX,
                     50);
        free(res), free(rows), free(nv), free(ord);
}

int main(void) {
        field("swiss 9 rounds, all 11 tie-breaks", "swiss", 300, 9, 2, false, false);
        field("pod league 12 rounds of 4, all 11 tie-breaks", "pod_league", 2000, 12, 4, false, false);
        field("all drawn, direct encounter first", "all_drawn", 2000, 12, 2, true, true);
        return 0;
}
