/* tournament/pods.c — pod-Swiss, league and race tables.
 *
 * One engine, three orders:
 *   order     who is next to whom before the cut (ranking, or seeded random);
 *   cut       consecutive runs of the order, largest pods first;
 *   improve   swaps that lower Σ meetings² (adjacent pods only for
 *             pod-Swiss, so score groups stay together; any two pods for
 *             league and race, where scores play no part);
 *   seats     seat 1 to a pod-mate with the fewest seat-1 games, the other
 *             seats by the permutation with the least Σ (seat count)².
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/pods.h"

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014): one 64-bit state is
 * enough for the few hundred draws of a round, and its output is fixed by
 * the paper, so stored seeds replay on any platform. */
static uint64_t pods_rng_next(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound >= 1, by rejection: no modulo bias. */
static uint64_t pods_rng_below(uint64_t *state, uint64_t bound) {
        uint64_t limit = UINT64_MAX - UINT64_MAX % bound, x;

        do
                x = pods_rng_next(state);
        while (x >= limit);
        return x % bound;
}

enum pods_mode { PODS_SWISS, PODS_LEAGUE, PODS_RACE };

/* Standard split into k and k−1: P = ceil(n/k) pods, t = P·k − n of them
 * one short, possible while t <= P. */
static bool pods_standard(int n, int k, int *ret_sizes, int *ret_count) {
        int p = (n + k - 1) / k, t = p * k - n;

        if (n == 0) {
                *ret_count = 0;
                return true;
        }
        if (t > p)
                return false;
        for (int i = 0; i < p; i++)
                ret_sizes[i] = i < p - t ? k : k - 1;
        *ret_count = p;
        return true;
}

int tour_pods_sizes(int n, int k, enum tour_pods_policy policy, int *ret_sizes, int *ret_nbyes) {
        int count = 0;

        if (k < TOUR_PODS_MIN_K || k > TOUR_PODS_MAX_K || n < 0 || !ret_sizes ||
            (policy != TOUR_PODS_BYE && policy != TOUR_PODS_BIG_POD && policy != TOUR_PODS_SMALL_PODS))
                return -EINVAL;
        if (ret_nbyes)
                *ret_nbyes = 0;
        if (pods_standard(n, k, ret_sizes, &count))
                return count;
        switch (policy) {
        case TOUR_PODS_BYE:
                for (int b = 1; b <= n; b++) {
                        if (n - b < k - 1)
                                break;
                        if (pods_standard(n - b, k, ret_sizes, &count)) {
                                if (ret_nbyes)
                                        *ret_nbyes = b;
                                return count;
                        }
                }
                return -ERANGE;
        case TOUR_PODS_BIG_POD:
                if (k + 1 > TOUR_MAX_SEATS)
                        return -ERANGE;
                for (int b = 1; b * (k + 1) <= n; b++) {
                        int rest = 0;
                        if (pods_standard(n - b * (k + 1), k, ret_sizes + b, &rest)) {
                                for (int i = 0; i < b; i++)
                                        ret_sizes[i] = k + 1;
                                return b + rest;
                        }
                }
                return -ERANGE;
        case TOUR_PODS_SMALL_PODS: {
                int p = (n + k - 1) / k, t = p * k - n;
                if (k - 2 < 2 || t > 2 * p)
                        return -ERANGE;
                /* t pods lose one seat, the bottom ones lose a second while
                 * t exceeds p: sizes stay within k−2..k, largest first. */
                for (int i = 0; i < p; i++)
                        ret_sizes[i] = k;
                for (int i = 0; i < t; i++)
                        ret_sizes[p - 1 - (i % p)]--;
                return p;
        }
        }
        return -EINVAL;
}

struct pods_ctx {
        const struct tour_pair_input *in;
        enum pods_mode mode;
        int *order;             /* players in table order after the cut */
        int *start;             /* pod i is order[start[i] .. start[i+1]) */
        uint64_t *key;          /* seeded random key per entrant */
        int npods;
};

static long pods_meet(const struct pods_ctx *c, int a, int b) {
        const struct tour_pair_input *in = c->in;
        long m = in->meetings ? in->meetings[(size_t) a * (size_t) in->n + (size_t) b] : 0;
        return m * m;
}

static double pods_spread(const struct pods_ctx *c, int a, int b) {
        double d = c->in->entrants[a].score - c->in->entrants[b].score;
        return c->mode == PODS_SWISS ? (d < 0 ? -d : d) : 0;
}

/* qsort comparator needs the snapshot: sort indices into a local array of
 * records instead of reaching for global state. */
struct pods_rec {
        double  score, rating;
        uint64_t key;
        int     byes;
        int32_t e;
};

static int pods_cmp_rank(const void *x, const void *y) {
        const struct pods_rec *a = x, *b = y;

        if (a->score != b->score)
                return a->score > b->score ? -1 : 1;
        if (a->rating != b->rating)
                return a->rating > b->rating ? -1 : 1;
        if (a->key != b->key)
                return a->key < b->key ? -1 : 1;
        return a->e < b->e ? -1 : a->e > b->e;
}

/* Swap x (position i) with y (position j) in pods pa and pb: the change in
 * repeat cost and in score spread. */
static void pods_delta(const struct pods_ctx *c, int pa, int i, int pb, int j, long *ret_meet,
                       double *ret_spread) {
        int x = c->order[i], y = c->order[j];
        long dm = 0;
        double ds = 0;

        for (int k = c->start[pa]; k < c->start[pa + 1]; k++) {
                int a = c->order[k];
                if (k == i)
                        continue;
                dm += pods_meet(c, y, a) - pods_meet(c, x, a);
                ds += pods_spread(c, y, a) - pods_spread(c, x, a);
        }
        for (int k = c->start[pb]; k < c->start[pb + 1]; k++) {
                int b = c->order[k];
                if (k == j)
                        continue;
                dm += pods_meet(c, x, b) - pods_meet(c, y, b);
                ds += pods_spread(c, x, b) - pods_spread(c, y, b);
        }
        *ret_meet = dm;
        *ret_spread = ds;
}

/* The best swap between two pods, applied if it lowers the repeat cost;
 * ties go to the smaller score spread, then to the first pair in order. */
static bool pods_improve_pair(struct pods_ctx *c, int pa, int pb) {
        long best = 0;
        double best_s = 0;
        int bi = -1, bj = -1;

        for (int i = c->start[pa]; i < c->start[pa + 1]; i++)
                for (int j = c->start[pb]; j < c->start[pb + 1]; j++) {
                        long dm;
                        double ds;
                        pods_delta(c, pa, i, pb, j, &dm, &ds);
                        if (dm < best || (dm == best && bi >= 0 && ds < best_s)) {
                                best = dm;
                                best_s = ds;
                                bi = i;
                                bj = j;
                        }
                }
        if (bi < 0)
                return false;
        int t = c->order[bi];
        c->order[bi] = c->order[bj];
        c->order[bj] = t;
        return true;
}

static int pods_improve(struct pods_ctx *c) {
        int swaps = 0;

        for (int pass = 0; pass < TOUR_PODS_MAX_PASSES; pass++) {
                int before = swaps;
                for (int a = 0; a + 1 < c->npods; a++) {
                        int last = c->mode == PODS_SWISS ? a + 1 : c->npods - 1;
                        for (int b = a + 1; b <= last; b++)
                                swaps += pods_improve_pair(c, a, b);
                }
                if (swaps == before)
                        break;
        }
        return swaps;
}

static long pods_cost(const struct pods_ctx *c) {
        long cost = 0;

        for (int p = 0; p < c->npods; p++)
                for (int i = c->start[p]; i < c->start[p + 1]; i++)
                        for (int j = i + 1; j < c->start[p + 1]; j++)
                                cost += pods_meet(c, c->order[i], c->order[j]);
        return cost;
}

/* League and race orders are random anyway, so a local optimum can be
 * escaped by starting again from another seeded order and keeping the
 * cheapest.  The number of starts shrinks with the field so a round stays
 * O(TOUR_PODS_RESTART_WORK) pair evaluations: 16 starts for a club night,
 * one for 2,048 players. */
static int pods_restarts(int m) {
        long r = TOUR_PODS_RESTART_WORK / ((long) m * m + 1);
        return r < 1 ? 1 : r > TOUR_PODS_MAX_RESTARTS ? TOUR_PODS_MAX_RESTARTS : (int) r;
}

static long pods_seat_count(const struct pods_ctx *c, int e, int s) {
        return c->in->seats ? c->in->seats[(size_t) e * TOUR_MAX_SEATS + (size_t) s] : 0;
}

struct pods_seat_search {
        const struct pods_ctx *c;
        int     m;                      /* players in the pod */
        int     who[TOUR_MAX_SEATS];    /* players; who[0] already holds seat 1 */
        int     cur[TOUR_MAX_SEATS], best[TOUR_MAX_SEATS];
        bool    taken[TOUR_MAX_SEATS];
        long    best_cost;
};

/* Depth-first over seats 2..m, pruned by cost; the players are tried in
 * seeded-key order so the first optimum found is the deterministic one. */
static void pods_seat_dfs(struct pods_seat_search *s, int seat, long cost) {
        if (cost >= s->best_cost)
                return;
        if (seat == s->m) {
                s->best_cost = cost;
                memcpy(s->best, s->cur, sizeof s->best);
                return;
        }
        for (int i = 1; i < s->m; i++) {
                if (s->taken[i])
                        continue;
                long h = pods_seat_count(s->c, s->who[i], seat);
                s->taken[i] = true;
                s->cur[seat] = s->who[i];
                pods_seat_dfs(s, seat + 1, cost + h * h);
                s->taken[i] = false;
        }
}

/* Seats one pod: seat 1 (24.7% wins against 14.6% for seat 4 in
 * EDH_matchmaker's data) to the pod-mate with the fewest seat-1 games, ties
 * to the smallest seeded key; seats 2..m by the
 * permutation minimising Σ (times in that seat)². */
static void pods_seat(const struct pods_ctx *c, const int *players, int m, int32_t *ret) {
        struct pods_seat_search s = { .c = c, .m = m, .best_cost = -1 };
        int first = 0;
        int idx[TOUR_MAX_SEATS] = { 0 };

        for (int i = 0; i < m; i++)
                idx[i] = players[i];
        /* players in seeded-key order */
        for (int i = 1; i < m; i++)
                for (int j = i; j > 0 && c->key[idx[j]] < c->key[idx[j - 1]]; j--) {
                        int t = idx[j];
                        idx[j] = idx[j - 1];
                        idx[j - 1] = t;
                }
        for (int i = 1; i < m; i++) {
                long a = pods_seat_count(c, idx[i], 0), b = pods_seat_count(c, idx[first], 0);
                if (a < b)
                        first = i;
        }
        s.who[0] = idx[first];
        for (int i = 0, w = 1; i < m; i++)
                if (i != first)
                        s.who[w++] = idx[i];
        s.cur[0] = s.who[0];
        s.best_cost = INT64_MAX >> 1;
        pods_seat_dfs(&s, 1, 0);
        s.best[0] = s.who[0];
        for (int i = 0; i < m; i++)
                ret[i] = s.best[i];
}

static int pods_run(const struct tour_pair_input *in, int k, enum tour_pods_policy policy,
                    enum pods_mode mode, struct tour_pairing *ret_pairings, struct tour_bye *ret_byes,
                    int *ret_nbyes, struct tour_pods_info *ret_info) {
        struct pods_ctx c = { .in = in, .mode = mode };
        struct pods_rec *rec = NULL;
        int *sizes = NULL, active, nbyes = 0, npods, r = -ENOMEM, swaps = 0;
        uint64_t rng;

        active = tour_pair_input_check(in);
        if (active < 0)
                return active;
        if (!ret_pairings)
                return -EINVAL;
        sizes = calloc((size_t) in->n + 1, sizeof(int));
        if (!sizes)
                return -ENOMEM;
        if (mode == PODS_RACE) {
                if (k < 1 || k > TOUR_MAX_SEATS) {
                        free(sizes);
                        return -EINVAL;
                }
                int p = (active + k - 1) / k;
                for (int i = 0; i < p; i++)
                        sizes[i] = active / p + (i < active % p);
                npods = p;
        } else {
                npods = tour_pods_sizes(active, k, policy, sizes, &nbyes);
                if (npods < 0) {
                        free(sizes);
                        return npods;
                }
                if (nbyes > 0 && !ret_byes) {
                        free(sizes);
                        return -EINVAL;
                }
        }
        rec = calloc((size_t) in->n, sizeof *rec);
        c.order = calloc((size_t) in->n, sizeof(int));
        c.start = calloc((size_t) npods + 1, sizeof(int));
        c.key = calloc((size_t) in->n, sizeof(uint64_t));
        if (!rec || !c.order || !c.start || !c.key)
                goto out;

        /* The round's stream: the stored seed, then the round number, so
         * each round of a stage draws differently from the same seed. */
        rng = in->seed ^ pods_rng_next(&(uint64_t) { (uint64_t) in->round });
        for (int i = 0; i < in->n; i++)
                c.key[i] = pods_rng_next(&rng);
        int m = 0;
        for (int i = 0; i < in->n; i++) {
                const struct tour_pair_entrant *e = &in->entrants[i];
                if (!e->active)
                        continue;
                bool by_score = mode == PODS_SWISS && in->round > 1;
                rec[m] = (struct pods_rec) { .score = by_score ? e->score : 0,
                                             .rating = by_score ? e->rating : 0,
                                             .key = c.key[i], .byes = e->byes, .e = i };
                m++;
        }
        qsort(rec, (size_t) m, sizeof *rec, pods_cmp_rank);
        /* Byes: the fewest byes so far, lowest in the order first. */
        for (int b = 0; b < nbyes; b++) {
                int pick = -1;
                for (int i = m - 1; i >= 0; i--)
                        if (pick < 0 || rec[i].byes < rec[pick].byes)
                                pick = i;
                ret_byes[b] = (struct tour_bye) { .round = in->round, .entrant = rec[pick].e };
                memmove(&rec[pick], &rec[pick + 1], (size_t) (m - pick - 1) * sizeof *rec);
                m--;
        }
        for (int i = 0; i < m; i++)
                c.order[i] = rec[i].e;
        c.npods = npods;
        for (int i = 0; i < npods; i++)
                c.start[i + 1] = c.start[i] + sizes[i];
        swaps = pods_improve(&c);
        if (mode != PODS_SWISS && pods_cost(&c) > 0) {
                int *best = malloc((size_t) (m ? m : 1) * sizeof(int));
                if (!best)
                        goto out;
                long best_cost = pods_cost(&c);
                int best_swaps = swaps;
                memcpy(best, c.order, (size_t) m * sizeof(int));
                for (int t = 1; t < pods_restarts(m) && best_cost > 0; t++) {
                        for (int i = m - 1; i > 0; i--) {
                                int j = (int) pods_rng_below(&rng, (uint64_t) i + 1), x = c.order[i];
                                c.order[i] = c.order[j];
                                c.order[j] = x;
                        }
                        int sw = pods_improve(&c);
                        long cost = pods_cost(&c);
                        if (cost < best_cost) {
                                best_cost = cost;
                                best_swaps = sw;
                                memcpy(best, c.order, (size_t) m * sizeof(int));
                        }
                }
                memcpy(c.order, best, (size_t) m * sizeof(int));
                swaps = best_swaps;
                free(best);
        }

        int repeats = 0;
        long cost = 0;
        for (int p = 0; p < npods; p++) {
                struct tour_pairing *t = &ret_pairings[p];
                int len = c.start[p + 1] - c.start[p];
                memset(t, 0, sizeof *t);
                t->round = in->round;
                t->table = p + 1;
                t->n = len;
                for (int s = 0; s < TOUR_MAX_SEATS; s++)
                        t->entrant[s] = TOUR_NONE;
                pods_seat(&c, &c.order[c.start[p]], len, t->entrant);
                for (int i = c.start[p]; i < c.start[p + 1]; i++)
                        for (int j = i + 1; j < c.start[p + 1]; j++) {
                                long w = pods_meet(&c, c.order[i], c.order[j]);
                                repeats += w > 0;
                                cost += w;
                        }
        }
        if (ret_nbyes)
                *ret_nbyes = nbyes;
        if (ret_info)
                *ret_info = (struct tour_pods_info) { .pods = npods, .byes = nbyes, .repeats = repeats,
                                                      .repeat_cost = cost, .swaps = swaps };
        r = npods;
out:
        free(sizes);
        free(rec);
        free(c.order);
        free(c.start);
        free(c.key);
        return r;
}

int tour_pods_pair(const struct tour_pair_input *in, int k, enum tour_pods_policy policy,
                   struct tour_pairing *ret_pairings, struct tour_bye *ret_byes, int *ret_nbyes,
                   struct tour_pods_info *ret_info) {
        return pods_run(in, k, policy, PODS_SWISS, ret_pairings, ret_byes, ret_nbyes, ret_info);
}

int tour_pods_league(const struct tour_pair_input *in, int k, enum tour_pods_policy policy,
                     struct tour_pairing *ret_pairings, struct tour_bye *ret_byes, int *ret_nbyes,
                     struct tour_pods_info *ret_info) {
        return pods_run(in, k, policy, PODS_LEAGUE, ret_pairings, ret_byes, ret_nbyes, ret_info);
}

int tour_pods_race(const struct tour_pair_input *in, int k, struct tour_pairing *ret_pairings,
                   struct tour_pods_info *ret_info) {
        return pods_run(in, k, TOUR_PODS_BYE, PODS_RACE, ret_pairings, NULL, NULL, ret_info);
}
