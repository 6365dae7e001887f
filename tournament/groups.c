/* tournament/groups.c — group splits and stage-to-bracket seeding. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/bracket.h"
#include "tournament/groups.h"

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014): one 64-bit state, a
 * published reference output, enough for dealing pots.  Local so that
 * tournament/ depends on nothing but libc and itself. */
static uint64_t groups_splitmix64(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        return z ^ (z >> 31);
}

/* Uniform in [0, bound) by rejection: no modulo bias, so a draw is as fair
 * as the generator. */
static uint32_t groups_below(uint64_t *state, uint32_t bound) {
        uint64_t limit = UINT64_MAX - UINT64_MAX % bound, v;

        do
                v = groups_splitmix64(state);
        while (v >= limit);
        return (uint32_t) (v % bound);
}

static bool groups_args_ok(int n, int g, const int *ret_group) {
        return ret_group && n >= 1 && n <= TOUR_GROUPS_MAX_ENTRANTS && g >= 1 && g <= n;
}

int tour_groups_snake(int n, int g, int *ret_group) {
        if (!groups_args_ok(n, g, ret_group))
                return -EINVAL;
        for (int e = 0; e < n; e++) {
                int row = e / g, col = e % g;
                ret_group[e] = row % 2 ? g - 1 - col : col;
        }
        return 0;
}

int tour_groups_draw(int n, int g, uint64_t seed, int *ret_group) {
        uint64_t st = seed;
        int *perm;

        if (!groups_args_ok(n, g, ret_group))
                return -EINVAL;
        perm = malloc((size_t) g * sizeof *perm);
        if (!perm)
                return -ENOMEM;
        for (int first = 0; first < n; first += g) {
                int in_pot = n - first < g ? n - first : g;
                for (int i = 0; i < g; i++)
                        perm[i] = i;
                /* Fisher–Yates; a partial pot takes the first in_pot groups
                 * of the shuffled order: distinct and uniformly chosen */
                for (int i = g - 1; i > 0; i--) {
                        int j = (int) groups_below(&st, (uint32_t) i + 1);
                        int t = perm[i];
                        perm[i] = perm[j];
                        perm[j] = t;
                }
                for (int i = 0; i < in_pot; i++)
                        ret_group[first + i] = perm[i];
        }
        free(perm);
        return 0;
}

int tour_groups_members(int n, const int *group, int which, int32_t *ret_members) {
        int k = 0;

        if (!group || !ret_members || n < 1 || n > TOUR_GROUPS_MAX_ENTRANTS || which < 0)
                return -EINVAL;
        for (int e = 0; e < n; e++)
                if (group[e] == which)
                        ret_members[k++] = e;
        return k;
}

/* Entrants in 0..n-1 and pairwise distinct. */
static int groups_check_entrants(int n, const int32_t *e, int k) {
        uint8_t *seen;

        if (n < 1 || n > TOUR_GROUPS_MAX_ENTRANTS || k < 1 || k > n)
                return -EINVAL;
        seen = calloc((size_t) n, 1);
        if (!seen)
                return -ENOMEM;
        for (int i = 0; i < k; i++) {
                if (e[i] < 0 || e[i] >= n || seen[e[i]]) {
                        free(seen);
                        return -EINVAL;
                }
                seen[e[i]] = 1;
        }
        free(seen);
        return 0;
}

/* The round in which leaves a and b of a bracket can first meet: they
 * share a subtree of 2^r leaves from round r on. */
static int groups_meet_round(int a, int b) {
        int x = a ^ b, r = 0;

        while (x) {
                r++;
                x >>= 1;
        }
        return r;
}

/* Work space of groups_assign(): potentials, matching and the scan state
 * of the Hungarian method for a g x g matrix (1-based as in the method's
 * usual statement, index 0 is the virtual start column). */
struct groups_hungarian {
        int64_t *u, *v, *minv;
        int *p, *way;
        bool *used;
};

/* Minimum-cost perfect assignment of rows (seeds of a tier) to columns
 * (groups): the Hungarian method with potentials (Kuhn 1955, Munkres 1957;
 * the O(g^3) shortest-augmenting-path form).  An exact optimum rather than a
 * local search: pairwise exchanges get stuck on 3-cycles, which is how a
 * group ends up with two members in one quarter.  Deterministic: the same
 * matrix always gives the same assignment. */
static void groups_assign(int g, const uint64_t *cost, int *perm, struct groups_hungarian *h) {
        const int64_t inf = INT64_MAX / 4;

        for (int j = 0; j <= g; j++) {
                h->u[j] = h->v[j] = 0;
                h->p[j] = h->way[j] = 0;
        }
        for (int i = 1; i <= g; i++) {
                int j0 = 0;
                h->p[0] = i;
                for (int j = 0; j <= g; j++) {
                        h->minv[j] = inf;
                        h->used[j] = false;
                }
                do {
                        int i0 = h->p[j0], j1 = 0;
                        int64_t delta = inf;
                        h->used[j0] = true;
                        for (int j = 1; j <= g; j++) {
                                if (h->used[j])
                                        continue;
                                int64_t cur = (int64_t) cost[(size_t) (i0 - 1) * g + (j - 1)] - h->u[i0] - h->v[j];
                                if (cur < h->minv[j]) {
                                        h->minv[j] = cur;
                                        h->way[j] = j0;
                                }
                                if (h->minv[j] < delta) {
                                        delta = h->minv[j];
                                        j1 = j;
                                }
                        }
                        for (int j = 0; j <= g; j++) {
                                if (h->used[j]) {
                                        h->u[h->p[j]] += delta;
                                        h->v[j] -= delta;
                                } else
                                        h->minv[j] -= delta;
                        }
                        j0 = j1;
                } while (h->p[j0] != 0);
                do {
                        int j1 = h->way[j0];
                        h->p[j0] = h->p[j1];
                        j0 = j1;
                } while (j0);
        }
        for (int j = 1; j <= g; j++)
                perm[h->p[j] - 1] = j - 1;
}

int tour_groups_seed_bracket(int n, int g, int q, const int32_t *standings, int32_t *ret_seeds) {
        int k, P, R = 0, Q = 0, r;
        int *seed_at = NULL, *leaf = NULL, *perm = NULL, *placed = NULL;
        uint64_t *cost = NULL;
        struct groups_hungarian h = { 0 }, *hw = &h;

        if (!standings || !ret_seeds || g < 1 || q < 1 || g > TOUR_GROUPS_MAX_GROUPS ||
            q > TOUR_GROUPS_MAX_SEEDED / g)
                return -EINVAL;
        k = g * q;
        if (k < 2)
                return -EINVAL;
        r = groups_check_entrants(n, standings, k);
        if (r < 0)
                return r;
        P = tour_bracket_size(k);
        if (P < 0)
                return P;
        while ((1 << R) < P)
                R++;
        seed_at = malloc((size_t) P * sizeof *seed_at);
        leaf = malloc((size_t) P * sizeof *leaf);
        perm = malloc((size_t) g * sizeof *perm);
        placed = malloc((size_t) k * sizeof *placed);
        cost = malloc((size_t) g * (size_t) g * sizeof *cost);
        hw->u = malloc((size_t) (g + 1) * sizeof *hw->u);
        hw->v = malloc((size_t) (g + 1) * sizeof *hw->v);
        hw->minv = malloc((size_t) (g + 1) * sizeof *hw->minv);
        hw->p = malloc((size_t) (g + 1) * sizeof *hw->p);
        hw->way = malloc((size_t) (g + 1) * sizeof *hw->way);
        hw->used = malloc((size_t) (g + 1) * sizeof *hw->used);
        if (!seed_at || !leaf || !perm || !placed || !cost || !hw->u || !hw->v || !hw->minv || !hw->p ||
            !hw->way || !hw->used) {
                r = -ENOMEM;
                goto out;
        }
        r = tour_bracket_seed_order(P, seed_at);
        if (r < 0)
                goto out;
        for (int i = 0; i < P; i++)
                leaf[seed_at[i] - 1] = i;

        while ((1 << Q) < q)
                Q++;
        for (int t = 0; t < q; t++) {
                /* The target: the Q top bits of the group winner's leaf say
                 * which of the 2^Q sub-brackets of P/2^Q it is in; member t
                 * aims at that sub-bracket XOR the bit reversal of t (t = 1:
                 * the other half, t = 2: the other quarter of the same half,
                 * ...).  For g and q powers of two that gives every group one
                 * member per sub-bracket and each sub-bracket g/q members of
                 * each tier, so the design exists; it breaks the ties of the
                 * meeting cost, which alone cannot see that a choice made for
                 * tier 1 may leave no room for tier 2. */
                int flip = 0;
                for (int bit = 0; bit < Q; bit++)
                        if ((t % (1 << Q)) & (1 << bit))
                                flip |= 1 << (Q - 1 - bit);
                /* cost[i * g + grp]: group grp's tier-t entrant at seed t*g+i,
                 * against its group-mates already placed.  A meeting in round
                 * m costs 4^(R-m): one meeting a round earlier weighs as much
                 * as four a round later, so the assignment pushes the
                 * earliest meetings back first (a weight, not a strict
                 * order, once more than four group-mates are placed).  Scaled
                 * by g+1, the target misses (at most g, 0 or 1 each) only
                 * break ties. */
                for (int i = 0; i < g; i++)
                        for (int grp = 0; grp < g; grp++) {
                                uint64_t c = 0;
                                int here = leaf[t * g + i] >> (R - Q);
                                for (int u = 0; u < t; u++) {
                                        int m = groups_meet_round(leaf[t * g + i], placed[grp * q + u]);
                                        c += UINT64_C(1) << (2 * (R - m));
                                }
                                c *= (uint64_t) g + 1;
                                if (t > 0 && here != ((placed[grp * q] >> (R - Q)) ^ flip))
                                        c++;
                                cost[(size_t) i * g + grp] = c;
                        }
                if (t == 0)
                        for (int i = 0; i < g; i++)
                                perm[i] = i;
                else
                        groups_assign(g, cost, perm, hw);
                for (int i = 0; i < g; i++) {
                        ret_seeds[t * g + i] = standings[perm[i] * q + t];
                        placed[perm[i] * q + t] = leaf[t * g + i];
                }
        }
        r = 0;
out:
        free(seed_at);
        free(leaf);
        free(perm);
        free(placed);
        free(cost);
        free(hw->u);
        free(hw->v);
        free(hw->minv);
        free(hw->p);
        free(hw->way);
        free(hw->used);
        return r;
}

static bool groups_met(const uint8_t *met, int n, int32_t a, int32_t b) {
        return met && met[(size_t) a * n + b];
}

int tour_groups_top_cut(int n, const int32_t *standings, int cut, const uint8_t *met, int32_t *ret_seeds) {
        int P, byes, left = 0, r;

        if (!standings || !ret_seeds || cut < 2 || cut > n)
                return -EINVAL;
        r = groups_check_entrants(n, standings, n);
        if (r < 0)
                return r;
        P = tour_bracket_size(cut);
        if (P < 0)
                return P;
        byes = P - cut;
        memcpy(ret_seeds, standings, (size_t) cut * sizeof *ret_seeds);
        /* Seeds are 1-based below; seed s plays seed P+1-s in round 1 when
         * both exist, i.e. for s in byes+1..P/2.  Pairs are settled from the
         * top, so once pair (s, t) is looked at, seeds <= s and >= t are
         * settled and only seeds strictly between may move: the conflicting
         * lower seed t trades places with t-1, else t-2, ... (the smallest
         * swap that leaves settled pairs and byes alone). */
        for (int s = byes + 1; s <= P / 2; s++) {
                int t = P + 1 - s, u;
                if (!groups_met(met, n, ret_seeds[s - 1], ret_seeds[t - 1]))
                        continue;
                for (u = t - 1; u > s; u--)
                        if (!groups_met(met, n, ret_seeds[s - 1], ret_seeds[u - 1]))
                                break;
                if (u > s) {
                        int32_t x = ret_seeds[t - 1];
                        ret_seeds[t - 1] = ret_seeds[u - 1];
                        ret_seeds[u - 1] = x;
                } else
                        left++;
        }
        return left;
}
