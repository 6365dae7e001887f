/* bench_pairing — one round of pairing for 2,048 players (the issue's
 * target: under 1 s for a Swiss or a pod-Swiss round).
 *
 *   - Swiss round 6 after 5 rounds of random results, with its rematches
 *     and floats;
 *   - Swiss on 2,047 players with draws (a bye every round, odd score
 *     groups, floaters and their history): the slowest of 11 rounds, and
 *     how many brackets needed the weighted search;
 *   - pod-Swiss round 6 (k = 4) after 5 pod rounds, with its repeat pairs;
 *   - league and race rounds of the same field, for scale.
 *
 * References in the same run: a plain qsort of the 2,048 players by score
 * and rating (the floor any pairing pays), and a naive greedy top-down
 * pairing (each top unpaired player takes the next one he has not met:
 * fast, but it guarantees neither minimal rematches nor a completable
 * round), and for pods the same greedy by tables of four.  A bench
 * reports; it never fails on a figure.
 *
 * Rows of `make bench`'s report (report.h), each against the naive greedy
 * of the same field in the same run.  The goal, a ratio of at most 1,000,
 * is generous on purpose: the greedy is not a pairing arbiter could use
 * (it neither minimises rematches nor guarantees a completable round, and
 * knows no floats or seat history), so the real pairing is rightly two
 * orders of magnitude dearer; 1,000x keeps the "under 1 s for 2,048
 * players" with a margin of five at today's speed of the greedy, and shows
 * a change of complexity.  League and race rounds optimise a whole
 * schedule's repeats: reported against the greedy for scale, no goal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tournament/pods.h"
#include "tournament/swiss.h"

#include "report.h"

#define N       2048
#define ROUNDS  5
#define REPS    5

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

static int by_score(const void *x, const void *y) {
        const struct tour_pair_entrant *a = x, *b = y;
        if (a->score != b->score)
                return a->score > b->score ? -1 : 1;
        return a->rating > b->rating ? -1 : a->rating < b->rating;
}

struct world {
        struct tour_pair_entrant e[N];
        uint16_t *meet, *seats;
        int round;
};

static void world_init(struct world *w) {
        memset(w->e, 0, sizeof w->e);
        for (int i = 0; i < N; i++)
                w->e[i] = (struct tour_pair_entrant) { .entrant = i, .rating = 2400 - i / 2.0, .active = true };
        memset(w->meet, 0, (size_t) N * N * sizeof *w->meet);
        memset(w->seats, 0, (size_t) N * TOUR_MAX_SEATS * sizeof *w->seats);
        w->round = 1;
}

static struct tour_pair_input world_input(struct world *w) {
        return (struct tour_pair_input) { .n = N, .round = w->round, .seed = 2026, .entrants = w->e,
                                          .meetings = w->meet, .seats = w->seats };
}

static void world_play(struct world *w, const struct tour_pairing *p, int np, uint64_t *rng) {
        for (int t = 0; t < np; t++) {
                for (int s = 0; s < p[t].n; s++) {
                        int x = p[t].entrant[s];
                        w->seats[x * TOUR_MAX_SEATS + s]++;
                        w->e[x].last_seat = s + 1;
                        for (int u = s + 1; u < p[t].n; u++) {
                                int y = p[t].entrant[u];
                                w->meet[x * N + y]++;
                                w->meet[y * N + x]++;
                        }
                }
                /* a random winner takes 3 (pods) or 1 (duels) */
                int win = p[t].entrant[bench_rng(rng) % (uint64_t) p[t].n];
                w->e[win].score += p[t].n == 2 ? 1 : 3;
        }
        w->round++;
}

/* Naive reference: the top unpaired player takes the next unpaired one he
 * has not met, or the next one at all. */
static int greedy_pair(const struct world *w, int *order, char *used) {
        struct tour_pair_entrant s[N];
        int pairs = 0;

        memcpy(s, w->e, sizeof s);
        qsort(s, N, sizeof *s, by_score);
        for (int i = 0; i < N; i++) {
                order[i] = s[i].entrant;
                used[i] = 0;
        }
        for (int i = 0; i < N; i++) {
                if (used[i])
                        continue;
                int pick = -1;
                for (int j = i + 1; j < N && pick < 0; j++)
                        if (!used[j] && w->meet[order[i] * N + order[j]] == 0)
                                pick = j;
                for (int j = i + 1; j < N && pick < 0; j++)
                        if (!used[j])
                                pick = j;
                if (pick < 0)
                        break;
                used[i] = used[pick] = 1;
                pairs++;
        }
        return pairs;
}

/* Naive reference for pods: the top unseated player takes the next k - 1
 * who have met none of the table yet, or the next ones at all. */
static int greedy_pods(const struct world *w, int k, int *order, char *used) {
        struct tour_pair_entrant s[N];
        int tables = 0;

        memcpy(s, w->e, sizeof s);
        qsort(s, N, sizeof *s, by_score);
        for (int i = 0; i < N; i++) {
                order[i] = s[i].entrant;
                used[i] = 0;
        }
        for (int i = 0; i < N; i++) {
                int table[TOUR_MAX_SEATS], n = 1;

                if (used[i])
                        continue;
                table[0] = i;
                used[i] = 1;
                for (int pass = 0; pass < 2 && n < k; pass++)
                        for (int j = i + 1; j < N && n < k; j++) {
                                bool met = false;

                                if (used[j])
                                        continue;
                                for (int t = 0; t < n && pass == 0; t++)
                                        met |= w->meet[order[table[t]] * N + order[j]] != 0;
                                if (!met) {
                                        table[n++] = j;
                                        used[j] = 1;
                                }
                        }
                tables++;
        }
        return tables;
}

/* 2,047 players, results with draws (one in five), the bye and the floats
 * booked as the stage layer books them (FIDE C.04.3 1.4). */
static void swiss_with_draws(struct world *w, uint64_t *rng, double sort_ms) {
        static struct tour_pairing p[N];
        static struct tour_bye b[N];
        const int n = N - 1, rounds = 11;
        double worst = 0, total = 0;
        int worst_round = 0, searched = 0, floats = 0, nb = 0;
        static int order[N];
        static char used[N];
        double greedy_worst = 0;
        struct tour_swiss_info si;

        world_init(w);
        w->e[N - 1].active = false;
        for (int r = 1; r <= rounds; r++) {
                struct tour_pair_input in = world_input(w);
                double t0 = now_s();
                int np = tour_swiss_pair(&in, p, b, &nb, &si);
                double dt = now_s() - t0;
                if (np < 0)
                        exit(1);
                total += dt;
                if (dt > worst) {
                        double g0 = now_s();

                        greedy_pair(w, order, used);
                        greedy_worst = now_s() - g0;
                        worst = dt;
                        worst_round = r;
                }
                searched += si.searched;
                floats += si.floats;
                double before[N];
                int8_t now[N] = { 0 };
                for (int i = 0; i < n; i++)
                        before[i] = w->e[i].score;
                for (int t = 0; t < np; t++) {
                        int a = p[t].entrant[0], c = p[t].entrant[1];
                        w->meet[a * N + c]++;
                        w->meet[c * N + a]++;
                        if (before[a] != before[c]) {
                                int hi = before[a] > before[c] ? a : c;
                                now[hi] = TOUR_FLOAT_DOWN;
                                now[hi == a ? c : a] = TOUR_FLOAT_UP;
                        }
                        uint64_t x = bench_rng(rng) % 5;
                        if (x == 0) {
                                w->e[a].score += 0.5;
                                w->e[c].score += 0.5;
                        } else {
                                w->e[x % 2 ? a : c].score += 1;
                        }
                }
                for (int i = 0; i < nb; i++) {
                        w->e[b[i].entrant].score += 1;
                        w->e[b[i].entrant].byes++;
                        now[b[i].entrant] = TOUR_FLOAT_DOWN;
                }
                for (int i = 0; i < n; i++) {
                        w->e[i].floated[1] = w->e[i].floated[0];
                        w->e[i].floated[0] = now[i];
                }
                w->round++;
        }
        printf("swiss with draws, %d players, %d rounds: slowest round %d %.2f ms (target < 1 s), mean %.2f ms; "
               "%d pairs across score groups, %d brackets by weighted search; reference qsort by score %.3f ms\n",
               n, rounds, worst_round, worst * 1e3, total / rounds * 1e3, floats, searched, sort_ms);
        printf("    reference: naive greedy pairing of the slowest round's field %.2f ms\n", greedy_worst * 1e3);
        bench_report("pairing.swiss_draws.slowest_round_ms", "Swiss with draws, 2,047 players: the slowest of 11 rounds",
                     "ms", worst * 1e3, greedy_worst * 1e3, "naive greedy pairing", BENCH_GOAL_RATIO_MAX, 1000);
}

int main(void) {
        static struct world w;
        static struct tour_pairing p[N];
        static struct tour_bye b[N];
        static int order[N];
        static char used[N];
        struct tour_swiss_info si;
        struct tour_pods_info pi;
        uint64_t rng = 1;
        int nb, np = 0;
        double t0;

        w.meet = calloc((size_t) N * N, sizeof *w.meet);
        w.seats = calloc((size_t) N * TOUR_MAX_SEATS, sizeof *w.seats);
        if (!w.meet || !w.seats)
                return 1;

        /* reference: sorting the field */
        struct tour_pair_entrant s[N];
        t0 = now_s();
        for (int r = 0; r < 100; r++) {
                memcpy(s, w.e, sizeof s);
                qsort(s, N, sizeof *s, by_score);
        }
        double sort_ms = (now_s() - t0) / 100 * 1e3;

        /* Swiss */
        world_init(&w);
        for (int r = 0; r < ROUNDS; r++) {
                struct tour_pair_input in = world_input(&w);
                np = tour_swiss_pair(&in, p, b, &nb, &si);
                if (np < 0)
                        return 1;
                world_play(&w, p, np, &rng);
        }
        struct tour_pair_input in = world_input(&w);
        t0 = now_s();
        for (int r = 0; r < REPS; r++)
                np = tour_swiss_pair(&in, p, b, &nb, &si);
        double swiss_ms = (now_s() - t0) / REPS * 1e3;
        t0 = now_s();
        int gp = 0;
        for (int r = 0; r < REPS; r++)
                gp = greedy_pair(&w, order, used);
        double greedy_ms = (now_s() - t0) / REPS * 1e3;
        printf("swiss round %d, %d players: %.2f ms per round (target < 1 s), %d pairs, %d rematches, "
               "%d floats; reference qsort by score %.3f ms, naive greedy pairing %.2f ms (%d pairs)\n",
               w.round, N, swiss_ms, np, si.rematches, si.floats, sort_ms, greedy_ms, gp);
        bench_report("pairing.swiss.round6_ms", "Swiss round 6, 2,048 players", "ms", swiss_ms, greedy_ms,
                     "naive greedy pairing", BENCH_GOAL_RATIO_MAX, 1000);

        /* round 1 of a Swiss (one score group of 2,048) */
        world_init(&w);
        in = world_input(&w);
        t0 = now_s();
        for (int r = 0; r < REPS; r++)
                np = tour_swiss_pair(&in, p, b, &nb, &si);
        double round1_ms = (now_s() - t0) / REPS * 1e3;
        t0 = now_s();
        for (int r = 0; r < REPS; r++)
                greedy_pair(&w, order, used);
        greedy_ms = (now_s() - t0) / REPS * 1e3;
        printf("swiss round 1, %d players: %.2f ms per round; reference naive greedy pairing %.2f ms\n", N,
               round1_ms, greedy_ms);
        bench_report("pairing.swiss.round1_ms", "Swiss round 1, 2,048 players (one score group)", "ms", round1_ms,
                     greedy_ms, "naive greedy pairing", BENCH_GOAL_RATIO_MAX, 1000);

        swiss_with_draws(&w, &rng, sort_ms);

        /* pod-Swiss, k = 4 */
        world_init(&w);
        for (int r = 0; r < ROUNDS; r++) {
                in = world_input(&w);
                np = tour_pods_pair(&in, 4, TOUR_PODS_BYE, p, b, &nb, &pi);
                if (np < 0)
                        return 1;
                world_play(&w, p, np, &rng);
        }
        in = world_input(&w);
        t0 = now_s();
        for (int r = 0; r < REPS; r++)
                np = tour_pods_pair(&in, 4, TOUR_PODS_BYE, p, b, &nb, &pi);
        double pods_ms = (now_s() - t0) / REPS * 1e3;
        t0 = now_s();
        for (int r = 0; r < REPS; r++)
                greedy_pods(&w, 4, order, used);
        double greedy_pods_ms = (now_s() - t0) / REPS * 1e3;
        printf("pod-swiss round %d (k=4), %d players: %.2f ms per round (target < 1 s), %d pods, "
               "%d repeat pairs, %d swaps; reference qsort by score %.3f ms, naive greedy pods %.2f ms\n",
               w.round, N, pods_ms, np, pi.repeats, pi.swaps, sort_ms, greedy_pods_ms);
        bench_report("pairing.pod_swiss.round6_ms", "pod-Swiss round 6 (k=4), 2,048 players", "ms", pods_ms,
                     greedy_pods_ms, "naive greedy pods", BENCH_GOAL_RATIO_MAX, 1000);

        /* league and race on the same history */
        t0 = now_s();
        np = tour_pods_league(&in, 4, TOUR_PODS_BYE, p, b, &nb, &pi);
        double league_ms = (now_s() - t0) * 1e3;
        printf("league round %d (k=4), %d players: %.2f ms, %d repeat pairs, %d swaps\n", w.round, N,
               league_ms, pi.repeats, pi.swaps);
        bench_report("pairing.league.round6_ms", "league round 6 (k=4), 2,048 players", "ms", league_ms,
                     greedy_pods_ms, "naive greedy pods", BENCH_GOAL_NONE, 0);
        t0 = now_s();
        np = tour_pods_race(&in, 6, p, &pi);
        double race_ms = (now_s() - t0) * 1e3;
        t0 = now_s();
        greedy_pods(&w, 6, order, used);
        double greedy6_ms = (now_s() - t0) * 1e3;
        printf("race round %d (k=6), %d players: %.2f ms, %d tables, %d repeat pairs; "
               "reference naive greedy tables of 6 %.2f ms\n", w.round, N, race_ms, np, pi.repeats, greedy6_ms);
        bench_report("pairing.race.round6_ms", "race round 6 (k=6), 2,048 players", "ms", race_ms, greedy6_ms,
                     "naive greedy tables of 6", BENCH_GOAL_NONE, 0);
        free(w.meet);
        free(w.seats);
        return 0;
}
