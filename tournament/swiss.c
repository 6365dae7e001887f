/* tournament/swiss.c — Swiss pairing for two-player matches.
 *
 * The method (docs/formats/swiss-and-pods.md has the proofs):
 *
 *   1. Rank the active players by score, rating, entrant number.
 *   2. Odd count: choose the bye (fewest byes, lowest rank first).
 *   3. Compute a maximum matching of the "may meet" graph G (an edge for
 *      every pair that never met) with Edmonds' blossom algorithm.  Its
 *      deficit d = n/2 − |M| is the least number of rematches any pairing
 *      needs: the players a maximum matching leaves over are pairwise
 *      adjacent in no G edge, and any pairing with r rematches contains a G
 *      matching of n/2 − r edges.
 *   4. Pair greedily from the top: the highest unpaired player p tries
 *      partners in preference order and takes the first q such that the rest
 *      of the field still has a pairing with the remaining rematch budget.
 *      Feasibility is exact: removing p and q from a maximum matching and
 *      augmenting from their former mates gives the new maximum (Berge; an
 *      augmenting path must end at a vertex that lost its mate).  So the
 *      invariant "the rest can be completed with <= budget rematches" holds
 *      before every choice, and the loop cannot get stuck.
 *   5. A second matching, restricted to p's score group, keeps the group
 *      together when it can be: while the group alone can pair all but its
 *      parity leftover, a partner is first looked for among choices that
 *      keep that true.
 *
 * Cost: each feasibility test is at most two augmenting-path searches,
 * O(n²) each in the worst case; on a field that still has a perfect
 * matching a short path (one edge, or three over a matched edge) closes
 * the gap in one row scan and the counting bound proves it maximum, so a
 * round of 2,048 costs tens of milliseconds (tests/bench/bench_pairing.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/swiss.h"

/* ---- snapshot check (shared with pods.c and heats.c through swiss.h) ---- */

int tour_pair_input_check(const struct tour_pair_input *in) {
        int active = 0;

        if (!in || !in->entrants || in->n < 1 || in->n > TOUR_PAIR_MAX_N || in->round < 1)
                return -EINVAL;
        for (int i = 0; i < in->n; i++) {
                const struct tour_pair_entrant *e = &in->entrants[i];
                if (e->entrant != i || e->byes < 0 || !isfinite(e->score) || !isfinite(e->rating) ||
                    e->last_seat < 0 || e->last_seat > TOUR_MAX_SEATS)
                        return -EINVAL;
                active += e->active;
        }
        if (in->meetings) {
                size_t n = (size_t) in->n;
                for (size_t i = 0; i < n; i++)
                        for (size_t j = i + 1; j < n; j++)
                                if (in->meetings[i * n + j] != in->meetings[j * n + i])
                                        return -EINVAL;
        }
        return active;
}

int tour_swiss_rounds_default(int n) {
        int r = 0;

        if (n < 1)
                return -EINVAL;
        while (r < 31 && (1L << r) < n)
                r++;
        return r < 1 ? 1 : r;
}

/* ---- Edmonds' blossom algorithm on a vertex subset ----
 *
 * struct swiss_mm holds a maximum matching of the graph induced by the
 * alive vertices of vs[], edges = pairs that never met.  The arrays are
 * indexed by entrant; vs[] keeps insertion (rank) order so the searches
 * are deterministic.  Dead vertices stay in vs[] and are skipped. */
struct swiss_mm {
        int              n;             /* entrants in the snapshot */
        int              nv;            /* entries in vs */
        int              size;          /* edges in the matching */
        int              nalive;        /* alive vertices */
        const uint16_t  *meet;
        int             *vs, *mate, *par, *base, *queue, *mark, *saved;
        bool            *alive, *used, *blossom;
        unsigned         stamp;
};

static bool swiss_may_meet(const struct swiss_mm *m, int a, int b) {
        return a != b && (!m->meet || m->meet[(size_t) a * (size_t) m->n + (size_t) b] == 0);
}

static void swiss_mm_free(struct swiss_mm *m) {
        free(m->vs);
        free(m->mate);
        free(m->par);
        free(m->base);
        free(m->queue);
        free(m->mark);
        free(m->saved);
        free(m->alive);
        free(m->used);
        free(m->blossom);
}

static int swiss_mm_alloc(struct swiss_mm *m, int n, const uint16_t *meet) {
        size_t z = (size_t) n;

        memset(m, 0, sizeof *m);
        m->n = n;
        m->meet = meet;
        m->vs = calloc(z, sizeof(int));
        m->mate = calloc(z, sizeof(int));
        m->par = calloc(z, sizeof(int));
        m->base = calloc(z, sizeof(int));
        m->queue = calloc(z, sizeof(int));
        m->mark = calloc(z, sizeof(int));
        m->saved = calloc(z, sizeof(int));
        m->alive = calloc(z, sizeof(bool));
        m->used = calloc(z, sizeof(bool));
        m->blossom = calloc(z, sizeof(bool));
        if (!m->vs || !m->mate || !m->par || !m->base || !m->queue || !m->mark || !m->saved ||
            !m->alive || !m->used || !m->blossom) {
                swiss_mm_free(m);
                return -ENOMEM;
        }
        for (int i = 0; i < n; i++)
                m->mate[i] = -1;
        return 0;
}

static int swiss_mm_lca(struct swiss_mm *m, int a, int b) {
        m->stamp++;
        for (;;) {
                a = m->base[a];
                m->mark[a] = (int) m->stamp;
                if (m->mate[a] < 0)
                        break;
                a = m->par[m->mate[a]];
        }
        for (;;) {
                b = m->base[b];
                if (m->mark[b] == (int) m->stamp)
                        return b;
                b = m->par[m->mate[b]];
        }
}

static void swiss_mm_mark_path(struct swiss_mm *m, int v, int b, int child) {
        while (m->base[v] != b) {
                m->blossom[m->base[v]] = true;
                m->blossom[m->base[m->mate[v]]] = true;
                m->par[v] = child;
                child = m->mate[v];
                v = m->par[m->mate[v]];
        }
}

/* One search for an augmenting path from the exposed vertex root; returns
 * its other end or -1.  Classic BFS with blossom contraction by base[]. */
static int swiss_mm_find(struct swiss_mm *m, int root) {
        int qh = 0, qt = 0;

        for (int k = 0; k < m->nv; k++) {
                int u = m->vs[k];
                m->used[u] = false;
                m->par[u] = -1;
                m->base[u] = u;
        }
        m->used[root] = true;
        m->queue[qt++] = root;
        while (qh < qt) {
                int v = m->queue[qh++];
                for (int k = 0; k < m->nv; k++) {
                        int to = m->vs[k];
                        if (!m->alive[to] || !swiss_may_meet(m, v, to))
                                continue;
                        if (m->base[v] == m->base[to] || m->mate[v] == to)
                                continue;
                        if (to == root || (m->mate[to] >= 0 && m->par[m->mate[to]] >= 0)) {
                                int cb = swiss_mm_lca(m, v, to);
                                for (int j = 0; j < m->nv; j++)
                                        m->blossom[m->vs[j]] = false;
                                swiss_mm_mark_path(m, v, cb, to);
                                swiss_mm_mark_path(m, to, cb, v);
                                for (int j = 0; j < m->nv; j++) {
                                        int i = m->vs[j];
                                        if (!m->alive[i] || !m->blossom[m->base[i]])
                                                continue;
                                        m->base[i] = cb;
                                        if (!m->used[i]) {
                                                m->used[i] = true;
                                                m->queue[qt++] = i;
                                        }
                                }
                        } else if (m->par[to] < 0) {
                                m->par[to] = v;
                                if (m->mate[to] < 0)
                                        return to;
                                m->used[m->mate[to]] = true;
                                m->queue[qt++] = m->mate[to];
                        }
                }
        }
        return -1;
}

static void swiss_mm_augment(struct swiss_mm *m, int root) {
        int t = swiss_mm_find(m, root);

        if (t < 0)
                return;
        while (t >= 0) {
                int pv = m->par[t], ppv = m->mate[pv];
                m->mate[t] = pv;
                m->mate[pv] = t;
                t = ppv;
        }
        m->size++;
}

/* Rebuilds a maximum matching on the given members from nothing: greedy in
 * member order, then one search from every exposed vertex (a vertex with
 * no augmenting path never gets one later, so one pass suffices). */
static void swiss_mm_build(struct swiss_mm *m, const int *members, int count) {
        for (int k = 0; k < m->nv; k++) {
                m->alive[m->vs[k]] = false;
                m->mate[m->vs[k]] = -1;
        }
        m->nv = count;
        m->nalive = count;
        m->size = 0;
        memcpy(m->vs, members, (size_t) count * sizeof(int));
        for (int k = 0; k < count; k++) {
                m->alive[members[k]] = true;
                m->mate[members[k]] = -1;
        }
        for (int a = 0; a < count; a++) {
                int u = members[a];
                if (m->mate[u] >= 0)
                        continue;
                for (int b = a + 1; b < count; b++) {
                        int v = members[b];
                        if (m->mate[v] < 0 && swiss_may_meet(m, u, v)) {
                                m->mate[u] = v;
                                m->mate[v] = u;
                                m->size++;
                                break;
                        }
                }
        }
        for (int a = 0; a < count; a++)
                if (m->mate[members[a]] < 0)
                        swiss_mm_augment(m, members[a]);
}

/* Short augmenting paths between two exposed vertices a and b: the edge
 * a-b, or a-x=y-b over a matched edge x=y.  On a dense field one of them
 * almost always exists, and it costs one row scan instead of a blossom
 * search (where every triangle is a blossom to contract). */
static bool swiss_mm_quick(struct swiss_mm *m, int a, int b) {
        if (swiss_may_meet(m, a, b)) {
                m->mate[a] = b;
                m->mate[b] = a;
                m->size++;
                return true;
        }
        for (int k = 0; k < m->nv; k++) {
                int x = m->vs[k], y = m->mate[x];
                if (!m->alive[x] || y < 0 || !swiss_may_meet(m, a, x) || !swiss_may_meet(m, y, b))
                        continue;
                m->mate[a] = x;
                m->mate[x] = a;
                m->mate[y] = b;
                m->mate[b] = y;
                m->size++;
                return true;
        }
        return false;
}

/* Removes the alive vertices among p and q (q may be outside the member
 * set) and restores maximality; returns the new matching size.  With keep
 * false everything is put back as it was, so the call is a pure test.
 *
 * Why the shortcuts are exact: a matching of size floor(alive/2) is
 * maximum by counting.  If the matching was that large before the removal,
 * the new maximum is at most floor((alive−2)/2) or floor((alive−1)/2), so
 * one short augmenting path that reaches that bound needs no search;
 * otherwise (a field that already needs rematches) every former mate gets
 * a full search, as Berge's theorem requires. */
static int swiss_mm_remove(struct swiss_mm *m, int p, int q, bool keep) {
        int gone[2] = { p, q }, loose[2] = { -1, -1 }, nloose = 0, size0 = m->size, alive0 = m->nalive;
        bool was[2] = { m->alive[p], m->alive[q] };
        bool full = m->size == m->nalive / 2;

        if (!keep)
                for (int k = 0; k < m->nv; k++)
                        m->saved[m->vs[k]] = m->mate[m->vs[k]];
        for (int k = 0; k < 2; k++) {
                int v = gone[k];
                if (!m->alive[v])
                        continue;
                m->alive[v] = false;
                m->nalive--;
                if (m->mate[v] >= 0) {
                        int w = m->mate[v];
                        m->mate[w] = -1;
                        m->mate[v] = -1;
                        m->size--;
                        if (w != p && w != q)
                                loose[nloose++] = w;
                }
        }
        if (m->size < m->nalive / 2 && full) {
                int a = loose[0], b = nloose == 2 ? loose[1] : -1;
                if (a >= 0 && b < 0)
                        for (int k = 0; k < m->nv && b < 0; k++) {
                                int u = m->vs[k];
                                if (m->alive[u] && m->mate[u] < 0 && u != a)
                                        b = u;
                        }
                if (a >= 0 && b >= 0)
                        swiss_mm_quick(m, a, b);
        }
        for (int k = 0; k < nloose && m->size < m->nalive / 2; k++)
                if (m->mate[loose[k]] < 0)
                        swiss_mm_augment(m, loose[k]);
        int size = m->size;
        if (!keep) {
                m->alive[p] = was[0];
                m->alive[q] = was[1];
                m->nalive = alive0;
                for (int k = 0; k < m->nv; k++)
                        m->mate[m->vs[k]] = m->saved[m->vs[k]];
                m->size = size0;
        }
        return size;
}

/* ---- ranking ---- */

struct swiss_ctx {
        const struct tour_pair_input *in;
        int *order;             /* active, non-bye players in rank order */
        bool *paired;
};

static int swiss_cmp_rank(const struct tour_pair_entrant *a, const struct tour_pair_entrant *b) {
        if (a->score != b->score)
                return a->score > b->score ? -1 : 1;
        if (a->rating != b->rating)
                return a->rating > b->rating ? -1 : 1;
        return a->entrant < b->entrant ? -1 : a->entrant > b->entrant;
}

/* qsort has no context argument: the snapshot entries sort by value. */
static int swiss_qsort_rank(const void *x, const void *y) {
        return swiss_cmp_rank(x, y);
}

static int swiss_seat_count(const struct tour_pair_input *in, int e, int seat) {
        return in->seats ? in->seats[(size_t) e * TOUR_MAX_SEATS + (size_t) seat] : 0;
}

/* Seat 1 (white) to whoever is owed it: more seat-2 than seat-1 games, then
 * seat 2 last round, then alternate by round so neither rank is favoured. */
static void swiss_seat(const struct tour_pair_input *in, int hi, int lo, int32_t *ret_first,
                       int32_t *ret_second) {
        int dh = swiss_seat_count(in, hi, 0) - swiss_seat_count(in, hi, 1);
        int dl = swiss_seat_count(in, lo, 0) - swiss_seat_count(in, lo, 1);
        int lh = in->entrants[hi].last_seat, ll = in->entrants[lo].last_seat;
        bool hi_first;

        if (dh != dl)
                hi_first = dh < dl;
        else if ((lh == 2) != (ll == 2))
                hi_first = lh == 2;
        else
                hi_first = in->round % 2 == 1;
        *ret_first = hi_first ? hi : lo;
        *ret_second = hi_first ? lo : hi;
}

/* Would pairing p with q leave a field that can still be completed with
 * at most `budget` rematches (left players before the pair, even)?  With
 * strict, also: can p's score group still pair all but its parity
 * leftover internally (group_left residents before the pair)? */
static bool swiss_try(struct swiss_mm *g, struct swiss_mm *b, bool strict, int p, int q, int left,
                      int budget, int group_left) {
        bool ok = swiss_mm_remove(g, p, q, false) >= (left - 2) / 2 - budget;

        if (ok && strict) {
                int gone = b->alive[p] + b->alive[q];
                ok = swiss_mm_remove(b, p, q, false) >= (group_left - gone) / 2;
        }
        return ok;
}

static void swiss_commit(struct swiss_mm *g, struct swiss_mm *b, int p, int q) {
        swiss_mm_remove(g, p, q, true);
        swiss_mm_remove(b, p, q, true);
}

/* Preference list for the top unpaired player p in its score group: the
 * group's residents were split at the group's start into S1 (top half) and
 * S2 (bottom half); S1[i] prefers S2[i], S2[i+1], ..., then S2[i-1], ...
 * (the Dutch system's first transposition order), then the rest of the
 * group in rank order, then everyone lower in rank order.  Writes the
 * candidates into ret and returns how many. */
static int swiss_candidates(const struct swiss_ctx *c, int pos, int g0, int g1, int half, int *ret) {
        int n = 0, gsize = g1 - g0;

        if (pos - g0 < half) {
                int i = pos - g0;
                for (int k = i; k < gsize - half; k++)
                        if (!c->paired[c->order[g0 + half + k]])
                                ret[n++] = c->order[g0 + half + k];
                for (int k = i - 1; k >= 0; k--)
                        if (!c->paired[c->order[g0 + half + k]])
                                ret[n++] = c->order[g0 + half + k];
                for (int k = pos + 1; k < g0 + half; k++)
                        if (!c->paired[c->order[k]])
                                ret[n++] = c->order[k];
        } else {
                for (int k = pos + 1; k < g1; k++)
                        if (!c->paired[c->order[k]])
                                ret[n++] = c->order[k];
        }
        return n;
}

int tour_swiss_pair(const struct tour_pair_input *in, struct tour_pairing *ret_pairings,
                    struct tour_bye *ret_byes, int *ret_nbyes, struct tour_swiss_info *ret_info) {
        struct tour_pair_entrant *sorted = NULL;
        struct swiss_mm g, b;
        struct swiss_ctx c = { .in = in };
        int *cand = NULL, *members = NULL;
        int active, pool = 0, bye = -1, npair = 0, rematches = 0, floats = 0, r;

        active = tour_pair_input_check(in);
        if (active < 0)
                return active;
        if (!ret_pairings || (active % 2 == 1 && !ret_byes))
                return -EINVAL;
        int n = in->n;
        if (swiss_mm_alloc(&g, n, in->meetings) < 0)
                return -ENOMEM;
        if (swiss_mm_alloc(&b, n, in->meetings) < 0) {
                swiss_mm_free(&g);
                return -ENOMEM;
        }
        sorted = calloc((size_t) n, sizeof *sorted);
        c.order = calloc((size_t) n, sizeof(int));
        c.paired = calloc((size_t) n, sizeof(bool));
        cand = calloc((size_t) n, sizeof(int));
        members = calloc((size_t) n, sizeof(int));
        r = -ENOMEM;
        if (!sorted || !c.order || !c.paired || !cand || !members)
                goto out;

        for (int i = 0; i < n; i++)
                if (in->entrants[i].active)
                        sorted[pool++] = in->entrants[i];
        qsort(sorted, (size_t) pool, sizeof *sorted, swiss_qsort_rank);
        for (int i = 0; i < pool; i++)
                c.order[i] = sorted[i].entrant;

        if (pool % 2 == 1) {
                /* Fewest byes first, lowest rank first among them. */
                int minb = INT32_MAX, tries = 0, first = -1;
                for (int i = 0; i < pool; i++)
                        if (sorted[i].byes < minb)
                                minb = sorted[i].byes;
                for (int i = pool - 1; i >= 0 && tries < TOUR_SWISS_BYE_TRIES; i--) {
                        if (sorted[i].byes != minb)
                                continue;
                        int x = c.order[i], m = 0;
                        if (first < 0)
                                first = x;
                        tries++;
                        for (int k = 0; k < pool; k++)
                                if (c.order[k] != x)
                                        members[m++] = c.order[k];
                        swiss_mm_build(&g, members, m);
                        if (g.size == m / 2) {
                                bye = x;
                                break;
                        }
                }
                if (bye < 0)
                        bye = first;
                int m = 0;
                for (int k = 0; k < pool; k++)
                        if (c.order[k] != bye)
                                c.order[m++] = c.order[k];
                pool = m;
        }
        swiss_mm_build(&g, c.order, pool);
        int budget = pool / 2 - g.size;
        int left = pool;

        for (int pos = 0; pos < pool;) {
                /* A new score group starts at pos: its unpaired residents. */
                double s = in->entrants[c.order[pos]].score;
                int g1 = pos, m = 0;
                while (g1 < pool && in->entrants[c.order[g1]].score == s)
                        g1++;
                int g0 = pos;
                for (int k = g0; k < g1; k++)
                        if (!c.paired[c.order[k]])
                                members[m++] = c.order[k];
                /* Compact the group's unpaired residents to the front of its
                 * slice (rank order kept) so S1/S2 split who is actually
                 * left; the ones already taken as floaters' partners go
                 * behind and are never read again. */
                int w = m;
                for (int k = g0; k < g1; k++)
                        if (c.paired[c.order[k]])
                                members[w++] = c.order[k];
                memcpy(&c.order[g0], members, (size_t) (g1 - g0) * sizeof(int));
                swiss_mm_build(&b, members, m);
                int half = m / 2;
                int gend = g0 + m;

                for (int k = g0; k < gend; k++) {
                        int p = c.order[k];
                        if (c.paired[p])
                                continue;
                        int group_left = 0;
                        for (int j = k; j < gend; j++)
                                group_left += !c.paired[c.order[j]];
                        bool strict = b.size == group_left / 2;
                        int nc = swiss_candidates(&c, k, g0, gend, half, cand);
                        int q = -1;
                        /* pass 1: inside the group, no rematch, group stays whole */
                        for (int j = 0; strict && j < nc && q < 0; j++)
                                if (swiss_may_meet(&g, p, cand[j]) &&
                                    swiss_try(&g, &b, true, p, cand[j], left, budget, group_left))
                                        q = cand[j];
                        /* pass 2: group then lower players, no rematch */
                        int nl = nc;
                        for (int j = g1; j < pool; j++)
                                if (!c.paired[c.order[j]])
                                        cand[nl++] = c.order[j];
                        for (int j = 0; j < nl && q < 0; j++)
                                if (swiss_may_meet(&g, p, cand[j]) &&
                                    swiss_try(&g, &b, false, p, cand[j], left, budget, group_left))
                                        q = cand[j];
                        /* pass 3: a rematch, only within the proven minimum */
                        for (int j = 0; j < nl && q < 0 && budget > 0; j++)
                                if (!swiss_may_meet(&g, p, cand[j]) &&
                                    swiss_try(&g, &b, false, p, cand[j], left, budget - 1, group_left))
                                        q = cand[j];
                        if (q < 0) {
                                r = -EINVAL; /* unreachable: the invariant guarantees a partner */
                                goto out;
                        }
                        if (!swiss_may_meet(&g, p, q)) {
                                budget--;
                                rematches++;
                        }
                        if (in->entrants[q].score != in->entrants[p].score)
                                floats++;
                        swiss_commit(&g, &b, p, q);
                        c.paired[p] = c.paired[q] = true;
                        left -= 2;
                        struct tour_pairing *t = &ret_pairings[npair];
                        memset(t, 0, sizeof *t);
                        t->round = in->round;
                        t->table = npair + 1;
                        t->n = 2;
                        for (int j = 2; j < TOUR_MAX_SEATS; j++)
                                t->entrant[j] = TOUR_NONE;
                        swiss_seat(in, p, q, &t->entrant[0], &t->entrant[1]);
                        npair++;
                }
                pos = g1;
        }
        if (ret_nbyes)
                *ret_nbyes = bye >= 0;
        if (bye >= 0) {
                ret_byes[0].round = in->round;
                ret_byes[0].entrant = bye;
        }
        if (ret_info) {
                ret_info->rematches = rematches;
                ret_info->floats = floats;
                ret_info->byes = bye >= 0;
        }
        r = npair;
out:
        swiss_mm_free(&g);
        swiss_mm_free(&b);
        free(sorted);
        free(c.order);
        free(c.paired);
        free(cand);
        free(members);
        return r;
}
