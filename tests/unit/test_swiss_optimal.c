/* The Swiss pairing against exhaustive search (tournament/swiss.h,
 * docs/formats/swiss-and-pods.md, "The criteria").
 *
 * Thousands of seeded random events of 2 to 12 players and 1 to 6 rounds,
 * with draws, drops and byes, are played round by round with
 * tour_swiss_pair.  After each call the round is cut back into its
 * brackets (every pair belongs to the bracket of its lower-scored player,
 * where the other one must have arrived as a floater), and each bracket's
 * choice is compared with every candidate of that bracket:
 *
 *   - every matching of the bracket (resident with resident, floater with
 *     resident), its unpaired players floating on, is scored by the
 *     criteria written out here from their definitions, completion and the
 *     next bracket found by exhaustive search over the players below (a
 *     bitmask dynamic programme over at most 13 vertices);
 *   - the implementation's choice must be feasible and score exactly the
 *     optimum (no bracket above it);
 *   - and it must be the first optimal candidate in the Dutch order, found
 *     by enumerating C.04.3's candidates literally: MDP sets, then
 *     transpositions of S2 for the MDPs, then the remainder's exchanges in
 *     the order of article 4.3, each with its transpositions in
 *     lexicographic order.
 *
 * Nothing here calls into the implementation but tour_swiss_pair: the
 * ranking, the bye rule, the criteria and the order are computed again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/swiss.h"

#define MAXN    12
#define MAXV    (MAXN + 1)      /* the pool and Z */
#define INF     1000000
#define VLEN    96
#define EVENTS  6000

static uint64_t rng_next(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* ---- the event, as the standings module would keep it ---- */

struct event {
        int                      n;
        struct tour_pair_entrant e[MAXN];
        uint16_t                 meet[MAXN * MAXN];
        uint16_t                 seats[MAXN * TOUR_MAX_SEATS];
};

/* ---- one round's exhaustive model, players by rank ---- */

struct model {
        int             P, Z;           /* Z = P when the pool is odd, else -1 */
        int             ent[MAXN];      /* rank -> entrant */
        double          sc[MAXN];
        int             grp[MAXN];      /* rank -> score group */
        int             ng, gstart[MAXN + 1];
        bool            elig[MAXN];
        int8_t          f1[MAXN], f2[MAXN];
        bool            met[MAXN][MAXN];
        double          zmax;           /* Z joins elig players of score <= zmax */
        int             d;              /* fewest rematches of the round */
        /* the DP */
        unsigned        forbid;
        int             memo[1 << MAXV];
        unsigned        stamp[1 << MAXV], cur;
};

/* Cost of pairing vertices a and b: 0, 1 for a rematch, INF when not allowed. */
static int m_cost(const struct model *m, int a, int b) {
        if (a == m->Z || b == m->Z) {
                int x = a == m->Z ? b : a;
                return m->elig[x] && m->sc[x] <= m->zmax ? 0 : INF;
        }
        return m->met[a][b] ? 1 : 0;
}

/* Fewest rematches over the perfect matchings of mask that pair no two
 * vertices of m->forbid with each other (INF when there is none). */
static int m_dp(struct model *m, unsigned mask) {
        if (!mask)
                return 0;
        if (m->stamp[mask] == m->cur)
                return m->memo[mask];
        int i = __builtin_ctz(mask), best = INF;
        unsigned rest = mask & ~(1u << i);
        for (unsigned t = rest; t; t &= t - 1) {
                int j = __builtin_ctz(t);
                if ((m->forbid >> i & 1) && (m->forbid >> j & 1))
                        continue;
                int c = m_cost(m, i, j);
                if (c >= INF)
                        continue;
                int s = m_dp(m, rest & ~(1u << j));
                if (s < INF && c + s < best)
                        best = c + s;
        }
        m->stamp[mask] = m->cur;
        m->memo[mask] = best;
        return best;
}

static int m_minrem(struct model *m, unsigned mask, unsigned forbid) {
        m->forbid = forbid;
        m->cur++;
        return m_dp(m, mask);
}

static int cmp_rank(const void *x, const void *y) {
        const struct tour_pair_entrant *a = x, *b = y;
        if (a->score != b->score)
                return a->score > b->score ? -1 : 1;
        if (a->rating != b->rating)
                return a->rating > b->rating ? -1 : 1;
        return a->entrant - b->entrant;
}

static void model_build(struct model *m, const struct event *ev) {
        struct tour_pair_entrant s[MAXN];
        int minb = INF;

        m->P = 0;
        for (int i = 0; i < ev->n; i++)
                if (ev->e[i].active)
                        s[m->P++] = ev->e[i];
        qsort(s, (size_t) m->P, sizeof *s, cmp_rank);
        m->ng = 0;
        for (int x = 0; x < m->P; x++) {
                m->ent[x] = s[x].entrant;
                m->sc[x] = s[x].score;
                m->f1[x] = s[x].floated[0];
                m->f2[x] = s[x].floated[1];
                if (s[x].byes < minb)
                        minb = s[x].byes;
                if (x == 0 || s[x].score != s[x - 1].score)
                        m->gstart[m->ng++] = x;
                m->grp[x] = m->ng - 1;
        }
        m->gstart[m->ng] = m->P;
        for (int x = 0; x < m->P; x++) {
                m->elig[x] = s[x].byes == minb;
                for (int y = 0; y < m->P; y++)
                        m->met[x][y] = ev->meet[m->ent[x] * ev->n + m->ent[y]] > 0;
        }
        m->Z = m->P % 2 ? m->P : -1;
        unsigned all = (1u << (m->P + (m->Z >= 0))) - 1;
        /* the fewest rematches (C1 as far as it goes, C2), then the lowest
         * bye score keeping them (C5) */
        m->zmax = 1e300;
        m->d = m_minrem(m, all, 0);
        if (m->Z >= 0)
                for (int x = m->P - 1; x >= 0; x--) {
                        if (!m->elig[x])
                                continue;
                        m->zmax = m->sc[x];
                        if (m_minrem(m, all, 0) == m->d)
                                break;
                }
}

/* ---- a bracket and its candidates ---- */

struct bracket {
        struct model    *m;
        int             k;
        unsigned        M, R, N, T;     /* MDPs, residents, next group, the rest (Z included) */
        int             budget;         /* rematches this bracket and the rest may use */
        bool            last;
        /* caches, by the mask of the floaters; valid when stamped gen */
        unsigned        gen;
        int             rest[1 << MAXN];
        unsigned        rest_ok[1 << MAXN];
        int             c8[1 << MAXN][MAXN + 1][MAXN + 2];
        unsigned        c8_ok[1 << MAXN][MAXN + 1];
};

/* a candidate: partner within the bracket (-1: floats) */
struct cand {
        int     partner[MAXN];
};

static int popc(unsigned x) {
        return __builtin_popcount(x);
}

static unsigned b_floaters(const struct bracket *b, const struct cand *c) {
        unsigned D = 0;
        for (unsigned t = b->M | b->R; t; t &= t - 1) {
                int x = __builtin_ctz(t);
                if (c->partner[x] < 0)
                        D |= 1u << x;
        }
        return D;
}

static int b_rest(struct bracket *b, unsigned D) {
        if (b->rest_ok[D] != b->gen) {
                b->rest[D] = m_minrem(b->m, D | b->N | b->T, D);
                b->rest_ok[D] = b->gen;
        }
        return b->rest[D];
}

/* C8: the next bracket's best (floaters, floater count per score group,
 * highest first) over its pairings of D and the next group that keep the
 * round completable with the rematch budget left after `used`. */
struct c8_search {
        struct bracket  *b;
        unsigned        D, all;
        int             used;
        int             best[MAXN + 2];
        bool            found;
};

static void c8_rec(struct c8_search *s, unsigned left, unsigned floating, int rem) {
        struct bracket *b = s->b;
        struct model *m = b->m;

        if (!left) {
                int r = m_minrem(m, floating | b->T, floating);
                if (r >= INF || s->used + rem + r != b->budget)
                        return;
                int v[MAXN + 2] = { 0 };
                v[0] = popc(floating);
                for (unsigned t = floating; t; t &= t - 1)
                        v[1 + m->grp[__builtin_ctz(t)]]++;
                int ng = m->ng;
                bool better = !s->found;
                for (int i = 0; i <= ng && !better; i++) {
                        if (v[i] != s->best[i]) {
                                better = v[i] < s->best[i];
                                break;
                        }
                }
                if (better) {
                        memcpy(s->best, v, sizeof v);
                        s->found = true;
                }
                return;
        }
        int i = __builtin_ctz(left);
        unsigned rest = left & ~(1u << i);
        c8_rec(s, rest, floating | 1u << i, rem);
        for (unsigned t = rest; t; t &= t - 1) {
                int j = __builtin_ctz(t);
                if ((s->D >> i & 1) && (s->D >> j & 1))
                        continue;
                c8_rec(s, rest & ~(1u << j), floating, rem + m->met[i][j]);
        }
}

static const int *b_c8(struct bracket *b, unsigned D, int used) {
        if (b->c8_ok[D][used] != b->gen) {
                struct c8_search s = { .b = b, .D = D, .used = used };
                c8_rec(&s, D | b->N, 0, 0);
                memcpy(b->c8[D][used], s.best, sizeof s.best);
                b->c8_ok[D][used] = b->gen;
        }
        return b->c8[D][used];
}

/* The criteria vector of a candidate (smaller is better, compared
 * lexicographically); false when it is not feasible. */
static bool b_score(struct bracket *b, const struct cand *c, int *v) {
        struct model *m = b->m;
        int ng = m->ng, r = 0, o = 0;
        unsigned D = b_floaters(b, c);

        memset(v, 0, VLEN * sizeof *v);
        for (unsigned t = b->M | b->R; t; t &= t - 1) {
                int x = __builtin_ctz(t), y = c->partner[x];
                if (y > x)
                        r += m->met[x][y];
        }
        int rest = b_rest(b, D);
        if (rest >= INF || r + rest != b->budget)
                return false; /* C1 (fewest rematches) and C4, C5 with the bye at s* */
        v[o++] = r;
        v[o++] = popc(D);                                       /* C6 */
        for (unsigned t = D; t; t &= t - 1)                     /* C7 */
                v[o + m->grp[__builtin_ctz(t)]]++;
        o += ng;
        if (!b->last) {                                         /* C8 */
                const int *c8 = b_c8(b, D, r);
                for (int i = 0; i <= ng; i++)
                        v[o + i] = c8[i];
        }
        o += ng + 1;
        int c14 = o, c15 = o + 1, c16 = o + 2, c17 = o + 3;
        int c18 = o + 4, c19 = c18 + ng, c20 = c19 + ng, c21 = c20 + ng;
        for (unsigned t = D & b->R; t; t &= t - 1) {
                int x = __builtin_ctz(t);
                v[c14] += m->f1[x] == TOUR_FLOAT_DOWN;
                v[c16] += m->f2[x] == TOUR_FLOAT_DOWN;
        }
        for (unsigned t = b->M; t; t &= t - 1) {
                int x = __builtin_ctz(t), y = c->partner[x], g = m->grp[x];
                if (y < 0) {
                        v[c18 + g] += m->f1[x] == TOUR_FLOAT_DOWN;
                        v[c20 + g] += m->f2[x] == TOUR_FLOAT_DOWN;
                        continue;
                }
                if (m->f1[y] == TOUR_FLOAT_UP) {
                        v[c15]++;
                        v[c19 + g]++;
                }
                if (m->f2[y] == TOUR_FLOAT_UP) {
                        v[c17]++;
                        v[c21 + g]++;
                }
        }
        return true;
}

static int vcmp(const int *a, const int *b) {
        for (int i = 0; i < VLEN; i++)
                if (a[i] != b[i])
                        return a[i] < b[i] ? -1 : 1;
        return 0;
}

/* ---- every candidate ---- */

struct all_search {
        struct bracket  *b;
        struct cand     c;
        int             best[VLEN];
        bool            found;
        int             maxfloat;
};

static void all_rec(struct all_search *s, unsigned left, int floating) {
        struct bracket *b = s->b;

        if (!left) {
                int v[VLEN];
                if (b_score(b, &s->c, v) && (!s->found || vcmp(v, s->best) < 0)) {
                        memcpy(s->best, v, sizeof v);
                        s->found = true;
                }
                return;
        }
        int i = __builtin_ctz(left);
        unsigned rest = left & ~(1u << i);
        if (floating < s->maxfloat) {
                s->c.partner[i] = -1;
                all_rec(s, rest, floating + 1);
        }
        for (unsigned t = rest; t; t &= t - 1) {
                int j = __builtin_ctz(t);
                if ((b->M >> i & 1) && (b->M >> j & 1))
                        continue; /* two floaters never meet */
                if (b->m->met[i][j] && b->budget == 0)
                        continue;
                s->c.partner[i] = j;
                s->c.partner[j] = i;
                all_rec(s, rest & ~(1u << j), floating);
                s->c.partner[j] = -1;
        }
        s->c.partner[i] = -1;
}

/* ---- the Dutch order, literally ---- */

struct order {
        struct bracket  *b;
        const int       *opt;
        struct cand     c;
        bool            found;
        struct cand     first;
};

static bool order_try(struct order *o) {
        int v[VLEN];
        if (b_score(o->b, &o->c, v) && vcmp(v, o->opt) == 0) {
                o->first = o->c;
                o->found = true;
        }
        return o->found;
}

/* Transpositions: S1[i] takes S2's players in lexicographic order. */
static bool order_transpose(struct order *o, const int *s1, int n1, const int *s2, int n2, int i, unsigned used,
                            bool (*then)(struct order *)) {
        if (i == n1)
                return then(o);
        for (int j = 0; j < n2; j++) {
                if (used >> j & 1)
                        continue;
                int a = s1[i], y = s2[j];
                if (o->b->m->met[a][y] && o->b->budget == 0)
                        continue; /* every candidate with this prefix breaks C1 */
                o->c.partner[a] = y;
                o->c.partner[y] = a;
                if (order_transpose(o, s1, n1, s2, n2, i + 1, used | 1u << j, then))
                        return true;
                o->c.partner[a] = -1;
                o->c.partner[y] = -1;
        }
        return false;
}

static bool order_done(struct order *o) {
        return order_try(o);
}

struct exch {
        unsigned a, bs;         /* bit i: R[i] moved */
        int      k, sum;
};

static int exch_cmp(const void *x, const void *y) {
        const struct exch *p = x, *q = y;
        if (p->k != q->k)
                return p->k - q->k;
        if (p->sum != q->sum)
                return p->sum - q->sum;
        if (p->a != q->a) { /* the largest differing BSN moved from S1 to S2 first */
                unsigned dif = p->a ^ q->a;
                int top = 31 - __builtin_clz(dif);
                return (p->a >> top & 1) ? -1 : 1;
        }
        if (p->bs != q->bs) { /* the smallest differing BSN moved from S2 to S1 first */
                unsigned dif = p->bs ^ q->bs;
                int low = __builtin_ctz(dif);
                return (p->bs >> low & 1) ? -1 : 1;
        }
        return 0;
}

/* A homogeneous bracket or remainder R (BSN = index) with `half` pairs:
 * exchanges in order, each with its transpositions. */
static bool order_homogeneous(struct order *o, const int *R, int nr, int half) {
        static struct exch ex[1 << 12];
        int nex = 0;
        unsigned s1 = (1u << half) - 1, s2 = ((1u << nr) - 1) & ~s1;

        for (unsigned a = s1;; a = (a - 1) & s1) {
                for (unsigned bs = s2;; bs = (bs - 1) & s2) {
                        if (popc(a) == popc(bs)) {
                                int sum = 0;
                                for (unsigned t = bs; t; t &= t - 1)
                                        sum += __builtin_ctz(t);
                                for (unsigned t = a; t; t &= t - 1)
                                        sum -= __builtin_ctz(t);
                                ex[nex++] = (struct exch) { .a = a, .bs = bs, .k = popc(a), .sum = sum };
                        }
                        if (!bs)
                                break;
                }
                if (!a)
                        break;
        }
        qsort(ex, (size_t) nex, sizeof *ex, exch_cmp);
        for (int e = 0; e < nex; e++) {
                unsigned in1 = (s1 & ~ex[e].a) | ex[e].bs;
                int S1[MAXN], S2[MAXN], n1 = 0, n2 = 0;
                for (int i = 0; i < nr; i++) {
                        if (in1 >> i & 1)
                                S1[n1++] = R[i];
                        else
                                S2[n2++] = R[i];
                }
                if (order_transpose(o, S1, n1, S2, n2, 0, 0, order_done))
                        return true;
        }
        return false;
}

static int g_remainder_pairs;

static bool order_remainder(struct order *o) {
        struct bracket *b = o->b;
        int R[MAXN], nr = 0;
        for (unsigned t = b->R; t; t &= t - 1) {
                int x = __builtin_ctz(t);
                if (o->c.partner[x] < 0)
                        R[nr++] = x;
        }
        return order_homogeneous(o, R, nr, g_remainder_pairs);
}

/* The first optimal candidate in the Dutch order: MDP sets (smallest
 * differing BSN first), S2 transpositions for them, the remainder. */
static bool order_first(struct order *o, int m1, int rpairs) {
        struct bracket *b = o->b;
        int mdp[MAXN], nm = 0, res[MAXN], nres = 0;

        for (int i = 0; i < MAXN; i++)
                o->c.partner[i] = -1;
        for (unsigned t = b->M; t; t &= t - 1)
                mdp[nm++] = __builtin_ctz(t);
        for (unsigned t = b->R; t; t &= t - 1)
                res[nres++] = __builtin_ctz(t);
        g_remainder_pairs = rpairs;
        if (nm == 0)
                return order_homogeneous(o, res, nres, rpairs);
        /* m1-subsets of the MDPs in lexicographic order of their BSNs */
        int idx[MAXN];
        for (int i = 0; i < m1; i++)
                idx[i] = i;
        for (;;) {
                int s1[MAXN];
                for (int i = 0; i < m1; i++)
                        s1[i] = mdp[idx[i]];
                if (order_transpose(o, s1, m1, res, nres, 0, 0, order_remainder))
                        return true;
                int i = m1 - 1;
                while (i >= 0 && idx[i] == nm - m1 + i)
                        i--;
                if (i < 0)
                        break;
                idx[i]++;
                for (int j = i + 1; j < m1; j++)
                        idx[j] = idx[j - 1] + 1;
        }
        return false;
}

/* ---- one round ---- */

static char g_where[256];

static void check_round(struct event *ev, const struct tour_pairing *p, int np, const struct tour_bye *bye,
                        int nbye) {
        static struct model m;
        static struct bracket b;
        int rank_of[MAXN] = { 0 }, partner[MAXN];

        model_build(&m, ev);
        for (int x = 0; x < m.P; x++) {
                rank_of[m.ent[x]] = x;
                partner[x] = -1;
        }
        for (int t = 0; t < np; t++) {
                int a = rank_of[p[t].entrant[0]], c = rank_of[p[t].entrant[1]];
                partner[a] = c;
                partner[c] = a;
        }
        int byer = nbye ? rank_of[bye[0].entrant] : -1;
        if (nbye && m.Z < 0)
                fail_msg("%s: a bye with an even pool", g_where);

        unsigned M = 0;
        int used = 0;
        for (int k = 0; k < m.ng; k++) {
                b.gen++;
                b.m = &m;
                b.k = k;
                b.M = M;
                b.R = b.N = b.T = 0;
                for (int x = m.gstart[k]; x < m.gstart[k + 1]; x++)
                        b.R |= 1u << x;
                if (k + 1 < m.ng)
                        for (int x = m.gstart[k + 1]; x < m.gstart[k + 2]; x++)
                                b.N |= 1u << x;
                for (int x = k + 2 < m.ng ? m.gstart[k + 2] : m.P; x < m.P; x++)
                        b.T |= 1u << x;
                if (m.Z >= 0)
                        b.T |= 1u << m.Z;
                b.budget = m.d - used;
                b.last = k == m.ng - 1;

                /* the implementation's choice for this bracket */
                struct cand mine;
                int m1 = 0, rpairs = 0;
                for (int i = 0; i < MAXN; i++)
                        mine.partner[i] = -1;
                for (unsigned t = b.M | b.R; t; t &= t - 1) {
                        int x = __builtin_ctz(t), y = partner[x];
                        if (y < 0)
                                continue;
                        if ((b.M | b.R) >> y & 1) {
                                if ((b.M >> x & 1) && (b.M >> y & 1))
                                        fail_msg("%s: bracket %d: two floaters paired", g_where, k);
                                mine.partner[x] = y;
                        } else if (m.sc[y] >= m.sc[x]) {
                                fail_msg("%s: bracket %d: rank %d paired with %d from above who did not float",
                                         g_where, k, x, y);
                        } /* else y is below: x floats on */
                }
                for (unsigned t = b.M | b.R; t; t &= t - 1) {
                        int x = __builtin_ctz(t), y = mine.partner[x];
                        if (y > x) {
                                used += m.met[x][y];
                                if ((b.M >> x & 1) || (b.M >> y & 1))
                                        m1++;
                                else
                                        rpairs++;
                        }
                }
                unsigned D = b_floaters(&b, &mine);
                if (b.last && D != (byer >= 0 ? 1u << byer : 0u))
                        fail_msg("%s: the last bracket's floater is not the bye", g_where);

                int vm[VLEN];
                if (!b_score(&b, &mine, vm))
                        fail_msg("%s: bracket %d: the choice is not feasible (C1/C4/C5)", g_where, k);

                struct all_search *s = calloc(1, sizeof *s);
                assert_non_null(s);
                s->b = &b;
                s->maxfloat = popc(b.N | b.T);
                for (int i = 0; i < MAXN; i++)
                        s->c.partner[i] = -1;
                all_rec(s, b.M | b.R, 0);
                assert_true(s->found);
                if (vcmp(vm, s->best) != 0) {
                        int i = 0;
                        while (vm[i] == s->best[i])
                                i++;
                        fail_msg("%s: bracket %d scores above the optimum at component %d (%d > %d)", g_where, k,
                                 i, vm[i], s->best[i]);
                }
                struct order *o = calloc(1, sizeof *o);
                assert_non_null(o);
                o->b = &b;
                o->opt = s->best;
                if (!order_first(o, m1, rpairs))
                        fail_msg("%s: bracket %d: no candidate of the Dutch order reaches the optimum", g_where, k);
                for (unsigned t = b.M | b.R; t; t &= t - 1) {
                        int x = __builtin_ctz(t);
                        if (o->first.partner[x] != mine.partner[x])
                                fail_msg("%s: bracket %d: rank %d has partner %d, the Dutch order's first optimal "
                                         "candidate gives %d", g_where, k, x, mine.partner[x],
                                         o->first.partner[x]);
                }
                free(o);
                free(s);
                M = D;
        }
}

/* ---- playing the events ---- */

static void play(struct event *ev, const struct tour_pairing *p, int np, const struct tour_bye *bye, int nbye,
                 uint64_t *rng) {
        int8_t now[MAXN] = { 0 };
        double before[MAXN];

        for (int i = 0; i < ev->n; i++)
                before[i] = ev->e[i].score;
        for (int t = 0; t < np; t++) {
                int a = p[t].entrant[0], c = p[t].entrant[1];
                ev->meet[a * ev->n + c]++;
                ev->meet[c * ev->n + a]++;
                ev->seats[a * TOUR_MAX_SEATS + 0]++;
                ev->seats[c * TOUR_MAX_SEATS + 1]++;
                ev->e[a].last_seat = 1;
                ev->e[c].last_seat = 2;
                if (before[a] != before[c]) {
                        int hi = before[a] > before[c] ? a : c, lo = hi == a ? c : a;
                        now[hi] = TOUR_FLOAT_DOWN;
                        now[lo] = TOUR_FLOAT_UP;
                }
                uint64_t x = rng_next(rng) % 5;
                if (x == 0) {
                        ev->e[a].score += 0.5;
                        ev->e[c].score += 0.5;
                } else {
                        ev->e[x % 2 ? a : c].score += 1;
                }
        }
        if (nbye) {
                int x = bye[0].entrant;
                ev->e[x].byes++;
                ev->e[x].score += 1;
                ev->e[x].last_seat = 0;
                now[x] = TOUR_FLOAT_DOWN;
        }
        for (int i = 0; i < ev->n; i++) {
                ev->e[i].floated[1] = ev->e[i].floated[0];
                ev->e[i].floated[0] = now[i];
        }
}

static void every_bracket_is_optimal_and_first_in_the_dutch_order(void **state) {
        (void) state;
        uint64_t master = 20260201;
        int brackets = 0, rounds = 0;
        struct tour_swiss_info info;

        for (int evn = 0; evn < EVENTS; evn++) {
                uint64_t seed = rng_next(&master), rng = seed;
                static struct event ev;
                memset(&ev, 0, sizeof ev);
                ev.n = 2 + (int) (rng_next(&rng) % (MAXN - 1));
                int nrounds = 1 + (int) (rng_next(&rng) % 6);
                for (int i = 0; i < ev.n; i++)
                        ev.e[i] = (struct tour_pair_entrant) {
                                .entrant = i, .rating = 1500 + (double) (rng_next(&rng) % 6) * 100, .active = true };
                for (int r = 1; r <= nrounds; r++) {
                        if (rng_next(&rng) % 6 == 0) /* a drop */
                                ev.e[rng_next(&rng) % (uint64_t) ev.n].active = false;
                        int active = 0;
                        for (int i = 0; i < ev.n; i++)
                                active += ev.e[i].active;
                        if (active == 0)
                                break;
                        struct tour_pairing p[MAXN];
                        struct tour_bye bye[1];
                        int nb = 0;
                        struct tour_pair_input in = { .n = ev.n, .round = r, .seed = seed, .entrants = ev.e,
                                                      .meetings = ev.meet, .seats = ev.seats };
                        int np = tour_swiss_pair(&in, p, bye, &nb, &info);
                        snprintf(g_where, sizeof g_where, "event seed %llu (n %d), round %d",
                                 (unsigned long long) seed, ev.n, r);
                        if (np < 0)
                                fail_msg("%s: tour_swiss_pair returned %d", g_where, np);
                        check_round(&ev, p, np, bye, nb);
                        brackets += info.searched;
                        rounds++;
                        play(&ev, p, np, bye, nb, &rng);
                }
        }
        print_message("%d events, %d rounds checked; %d brackets went to the weighted search\n", EVENTS, rounds,
                      brackets);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_bracket_is_optimal_and_first_in_the_dutch_order),
        };
        return cmocka_run_group_tests_name("swiss_optimal", tests, NULL, NULL);
}
