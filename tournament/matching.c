/* tournament/matching.c — maximum matchings for the pairing modules.
 *
 * Two algorithms (tournament/matching.h has the contracts):
 *
 *   - tour_cmatch: Edmonds' blossom algorithm for a maximum matching, on an
 *     adjacency predicate, with removal of a pair repaired by augmenting
 *     from the two former mates (Berge: a new augmenting path must end at
 *     a vertex that lost its mate).  A removal from a perfect or
 *     near-perfect matching is usually repaired by a path of one or three
 *     edges found in one row scan, and counting proves it maximum.
 *
 *   - tour_wmatch: Galil's primal-dual method for a maximum-weight matching
 *     (blossoms with dual variables, four kinds of dual adjustment per
 *     step, O(V³) overall), with weights that are vectors of int64_t
 *     compared lexicographically.  Everything is kept in doubled units so
 *     that the duals stay integers: all vertex duals start equal, S and T
 *     vertices move by the same delta, so the slack of an edge between two
 *     S vertices is always even and can be halved exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/matching.h"

/* ======================================================================
 * Maximum matching (cardinality)
 * ====================================================================== */

static bool cm_edge(const struct tour_cmatch *m, int a, int b) {
        return a != b && m->edge(m->ctx, a, b);
}

void tour_cmatch_free(struct tour_cmatch *m) {
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
        memset(m, 0, sizeof *m);
}

int tour_cmatch_init(struct tour_cmatch *m, int n, tour_edge_fn edge, const void *ctx) {
        size_t z = (size_t) (n > 0 ? n : 1);

        memset(m, 0, sizeof *m);
        m->n = n;
        m->edge = edge;
        m->ctx = ctx;
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
                tour_cmatch_free(m);
                return -ENOMEM;
        }
        for (int i = 0; i < n; i++)
                m->mate[i] = -1;
        return 0;
}

static int cm_lca(struct tour_cmatch *m, int a, int b) {
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

static void cm_mark_path(struct tour_cmatch *m, int v, int b, int child) {
        while (m->base[v] != b) {
                m->blossom[m->base[v]] = true;
                m->blossom[m->base[m->mate[v]]] = true;
                m->par[v] = child;
                child = m->mate[v];
                v = m->par[m->mate[v]];
        }
}

/* One search for an augmenting path from the exposed vertex root; returns
 * its other end or -1.  Breadth first, blossoms contracted through base[].
 * On failure used[] marks the outer vertices of the tree. */
static int cm_find(struct tour_cmatch *m, int root) {
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
                        if (!m->alive[to] || m->base[v] == m->base[to] || m->mate[v] == to ||
                            !cm_edge(m, v, to))
                                continue;
                        if (to == root || (m->mate[to] >= 0 && m->par[m->mate[to]] >= 0)) {
                                int cb = cm_lca(m, v, to);
                                for (int j = 0; j < m->nv; j++)
                                        m->blossom[m->vs[j]] = false;
                                cm_mark_path(m, v, cb, to);
                                cm_mark_path(m, to, cb, v);
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

static bool cm_augment(struct tour_cmatch *m, int root) {
        int t = cm_find(m, root);

        if (t < 0)
                return false;
        while (t >= 0) {
                int pv = m->par[t], ppv = m->mate[pv];
                m->mate[t] = pv;
                m->mate[pv] = t;
                t = ppv;
        }
        m->size++;
        return true;
}

/* Greedy pass over the exposed vertices, then one search from each exposed
 * vertex: a vertex with no augmenting path never gets one later in the same
 * graph, so one pass leaves the matching maximum. */
static void cm_complete(struct tour_cmatch *m) {
        for (int a = 0; a < m->nv; a++) {
                int u = m->vs[a];
                if (!m->alive[u] || m->mate[u] >= 0)
                        continue;
                for (int b = a + 1; b < m->nv; b++) {
                        int v = m->vs[b];
                        if (m->alive[v] && m->mate[v] < 0 && cm_edge(m, u, v)) {
                                m->mate[u] = v;
                                m->mate[v] = u;
                                m->size++;
                                break;
                        }
                }
        }
        for (int a = 0; a < m->nv && tour_cmatch_exposed(m) > 1; a++) {
                int u = m->vs[a];
                if (m->alive[u] && m->mate[u] < 0)
                        cm_augment(m, u);
        }
}

void tour_cmatch_build(struct tour_cmatch *m, const int *members, int count) {
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
        cm_complete(m);
}

void tour_cmatch_add(struct tour_cmatch *m, int v) {
        m->vs[m->nv++] = v;
        m->alive[v] = true;
        m->mate[v] = -1;
        m->nalive++;
        cm_complete(m);
}

/* Short augmenting paths between two exposed vertices a and b: the edge
 * a-b, or a-x=y-b over a matched edge x=y (one row scan, no blossom
 * search, where every triangle of a dense graph is a blossom). */
static bool cm_quick(struct tour_cmatch *m, int a, int b) {
        if (cm_edge(m, a, b)) {
                m->mate[a] = b;
                m->mate[b] = a;
                m->size++;
                return true;
        }
        for (int k = 0; k < m->nv; k++) {
                int x = m->vs[k], y = m->mate[x];
                if (!m->alive[x] || y < 0 || !cm_edge(m, a, x) || !cm_edge(m, y, b))
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

/* Why the shortcuts are exact: a matching of floor(alive/2) edges is
 * maximum by counting.  If the matching was that large before the removal,
 * the new maximum is at most floor((alive-2)/2) or floor((alive-1)/2), so
 * one short augmenting path that reaches that bound needs no search;
 * otherwise every former mate gets a full search, as Berge's theorem
 * requires. */
int tour_cmatch_remove(struct tour_cmatch *m, int p, int q, bool commit) {
        int gone[2] = { p, q }, loose[2] = { -1, -1 }, nloose = 0, size0 = m->size, alive0 = m->nalive;
        bool was[2] = { p >= 0 && m->alive[p], q >= 0 && m->alive[q] };
        bool full = m->size == m->nalive / 2;

        if (!commit)
                for (int k = 0; k < m->nv; k++)
                        m->saved[m->vs[k]] = m->mate[m->vs[k]];
        for (int k = 0; k < 2; k++) {
                int v = gone[k];
                if (v < 0 || !m->alive[v])
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
                        cm_quick(m, a, b);
        }
        for (int k = 0; k < nloose && m->size < m->nalive / 2; k++)
                if (m->mate[loose[k]] < 0)
                        cm_augment(m, loose[k]);
        int exposed = tour_cmatch_exposed(m);
        if (!commit) {
                if (p >= 0)
                        m->alive[p] = was[0];
                if (q >= 0)
                        m->alive[q] = was[1];
                m->nalive = alive0;
                for (int k = 0; k < m->nv; k++)
                        m->mate[m->vs[k]] = m->saved[m->vs[k]];
                m->size = size0;
        }
        return exposed;
}

int tour_cmatch_outer(struct tour_cmatch *m, bool *ret_outer) {
        int root = -1, count = 0;

        if (tour_cmatch_exposed(m) != 1)
                return 0;
        for (int k = 0; k < m->nv && root < 0; k++)
                if (m->alive[m->vs[k]] && m->mate[m->vs[k]] < 0)
                        root = m->vs[k];
        if (cm_find(m, root) >= 0)
                return 0; /* unreachable: root is the only exposed vertex */
        for (int k = 0; k < m->nv; k++) {
                int v = m->vs[k];
                if (!m->alive[v])
                        continue;
                ret_outer[v] = m->used[v];
                count += m->used[v];
        }
        return count;
}

/* ======================================================================
 * Maximum-weight matching, lexicographic vector weights
 * ======================================================================
 *
 * Vertices 0..n-1; blossoms n..2n-1.  Edge e has endpoints 2e (ea[e]) and
 * 2e+1 (eb[e]); "endpoint p" names a vertex and the edge it sits on, and
 * p^1 is the other end of the same edge.  mate[v] is the endpoint of v's
 * partner (so endpoint[mate[v]] is the partner), or -1.
 *
 * Labels of top-level blossoms during a stage: 0 free, 1 S (outer),
 * 2 T (inner); bit 4 marks blossoms on the path being traced by scan().
 * labelend[b] is the endpoint through which b got its label (-1 for a
 * root).  For a non-trivial blossom b: childs[b] is the cycle of
 * sub-blossoms starting at the one holding the base, endps[b][i] the
 * endpoint of the edge from childs[b][i] to childs[b][i+1]. */

struct wm {
        int             n, ne, k;
        const int64_t   *w;
        int             *endpoint;      /* 2ne */
        int             *nbstart, *nb;  /* remote endpoints of each vertex's edges */
        int             *mate;          /* n */
        int             *label, *labelend, *parent, *base, *bestedge;   /* 2n */
        int             *inblossom;     /* n */
        int             **childs, **endps, *nchilds;                    /* 2n */
        int             **bbe, *nbbe;   /* least-slack edges to other S-blossoms */
        int             *unused, nunused;
        int64_t         *dual;          /* 2n * k */
        bool            *allow;         /* ne */
        int             *queue, nqueue;
        int             *leaves;        /* scratch: n */
        int             *bestto;        /* scratch: 2n */
        int64_t         *t0, *t1, *delta;
};

#define WD(wm, v) (&(wm)->dual[(size_t) (v) * (size_t) (wm)->k])

static int vcmp(const int64_t *a, const int64_t *b, int k) {
        for (int i = 0; i < k; i++)
                if (a[i] != b[i])
                        return a[i] < b[i] ? -1 : 1;
        return 0;
}

static bool vzero(const int64_t *a, int k) {
        for (int i = 0; i < k; i++)
                if (a[i])
                        return false;
        return true;
}

/* ret = dual[i] + dual[j] - 2 w[e] */
static void wm_slack(const struct wm *m, int e, int64_t *ret) {
        const int64_t *di = WD(m, m->endpoint[2 * e]), *dj = WD(m, m->endpoint[2 * e + 1]);
        const int64_t *we = &m->w[(size_t) e * (size_t) m->k];

        for (int i = 0; i < m->k; i++)
                ret[i] = di[i] + dj[i] - 2 * we[i];
}

/* slack(a) < slack(b)? */
static bool wm_less_slack(struct wm *m, int a, int b) {
        wm_slack(m, a, m->t0);
        wm_slack(m, b, m->t1);
        return vcmp(m->t0, m->t1, m->k) < 0;
}

/* Leaves of blossom b into m->leaves; returns how many. */
static int wm_leaves_into(const struct wm *m, int b, int *out, int count) {
        if (b < m->n) {
                out[count++] = b;
                return count;
        }
        for (int i = 0; i < m->nchilds[b]; i++)
                count = wm_leaves_into(m, m->childs[b][i], out, count);
        return count;
}

static int wm_child_index(const struct wm *m, int b, int child) {
        for (int i = 0; i < m->nchilds[b]; i++)
                if (m->childs[b][i] == child)
                        return i;
        return -1;
}

/* Python-style index into a cycle: j may be negative. */
static int wm_mod(int j, int len) {
        j %= len;
        return j < 0 ? j + len : j;
}

static void wm_assign_label(struct wm *m, int w, int t, int p) {
        int b = m->inblossom[w];

        m->label[w] = m->label[b] = t;
        m->labelend[w] = m->labelend[b] = p;
        m->bestedge[w] = m->bestedge[b] = -1;
        if (t == 1) {
                int c = wm_leaves_into(m, b, m->leaves, 0);
                for (int i = 0; i < c; i++)
                        m->queue[m->nqueue++] = m->leaves[i];
        } else if (t == 2) {
                int base = m->base[b];
                wm_assign_label(m, m->endpoint[m->mate[base]], 1, m->mate[base] ^ 1);
        }
}

/* Traces back from v and w to the roots: returns the base of a new
 * blossom, or -1 when the two trees differ (an augmenting path). */
static int wm_scan(struct wm *m, int v, int w) {
        int *path = m->bestto, npath = 0, base = -1; /* bestto is free here */

        while (v != -1 || w != -1) {
                int b = m->inblossom[v];
                if (m->label[b] & 4) {
                        base = m->base[b];
                        break;
                }
                path[npath++] = b;
                m->label[b] = 5;
                if (m->labelend[b] == -1) {
                        v = -1;
                } else {
                        v = m->endpoint[m->labelend[b]];
                        b = m->inblossom[v];
                        v = m->endpoint[m->labelend[b]];
                }
                if (w != -1) {
                        int t = v;
                        v = w;
                        w = t;
                }
        }
        for (int i = 0; i < npath; i++)
                m->label[path[i]] = 1;
        return base;
}

static int wm_add_blossom(struct wm *m, int base, int e) {
        int v = m->endpoint[2 * e], w = m->endpoint[2 * e + 1];
        int bb = m->inblossom[base], bv = m->inblossom[v], bw = m->inblossom[w];
        int b = m->unused[--m->nunused];
        int *ch = malloc((size_t) m->n * sizeof(int)), *ep = malloc((size_t) m->n * sizeof(int));
        int nc = 0;

        if (!ch || !ep) {
                free(ch);
                free(ep);
                return -ENOMEM;
        }
        m->base[b] = base;
        m->parent[b] = -1;
        m->parent[bb] = b;
        /* from v's side back to the base, then reversed */
        while (bv != bb) {
                m->parent[bv] = b;
                ch[nc] = bv;
                ep[nc] = m->labelend[bv];
                nc++;
                v = m->endpoint[m->labelend[bv]];
                bv = m->inblossom[v];
        }
        ch[nc] = bb;
        nc++;
        for (int i = 0, j = nc - 1; i < j; i++, j--) {
                int t = ch[i];
                ch[i] = ch[j];
                ch[j] = t;
        }
        for (int i = 0, j = nc - 2; i < j; i++, j--) {
                int t = ep[i];
                ep[i] = ep[j];
                ep[j] = t;
        }
        ep[nc - 1] = 2 * e;
        while (bw != bb) {
                m->parent[bw] = b;
                ch[nc] = bw;
                ep[nc] = m->labelend[bw] ^ 1;
                nc++;
                w = m->endpoint[m->labelend[bw]];
                bw = m->inblossom[w];
        }
        m->childs[b] = ch;
        m->endps[b] = ep;
        m->nchilds[b] = nc;
        m->label[b] = 1;
        m->labelend[b] = m->labelend[bb];
        memset(WD(m, b), 0, (size_t) m->k * sizeof(int64_t));
        int c = wm_leaves_into(m, b, m->leaves, 0);
        for (int i = 0; i < c; i++) {
                int x = m->leaves[i];
                if (m->label[m->inblossom[x]] == 2)
                        m->queue[m->nqueue++] = x;
                m->inblossom[x] = b;
        }
        /* least-slack edges from the new blossom to each other S-blossom */
        int *bestto = m->bestto;
        for (int i = 0; i < 2 * m->n; i++)
                bestto[i] = -1;
        for (int ci = 0; ci < nc; ci++) {
                int sub = ch[ci];
                int *list, nlist;
                if (m->bbe[sub]) {
                        list = m->bbe[sub];
                        nlist = m->nbbe[sub];
                        for (int li = 0; li < nlist; li++) {
                                int f = list[li];
                                int i = m->endpoint[2 * f], j = m->endpoint[2 * f + 1];
                                if (m->inblossom[j] == b) {
                                        int t = i;
                                        i = j;
                                        j = t;
                                }
                                (void) i;
                                int bj = m->inblossom[j];
                                if (bj != b && m->label[bj] == 1 &&
                                    (bestto[bj] == -1 || wm_less_slack(m, f, bestto[bj])))
                                        bestto[bj] = f;
                        }
                } else {
                        int cl = wm_leaves_into(m, sub, m->leaves, 0);
                        for (int li = 0; li < cl; li++) {
                                int x = m->leaves[li];
                                for (int q = m->nbstart[x]; q < m->nbstart[x + 1]; q++) {
                                        int f = m->nb[q] / 2;
                                        int j = m->endpoint[m->nb[q]];
                                        int bj = m->inblossom[j];
                                        if (bj != b && m->label[bj] == 1 &&
                                            (bestto[bj] == -1 || wm_less_slack(m, f, bestto[bj])))
                                                bestto[bj] = f;
                                }
                        }
                }
                free(m->bbe[sub]);
                m->bbe[sub] = NULL;
                m->nbbe[sub] = 0;
                m->bestedge[sub] = -1;
        }
        int cnt = 0;
        for (int i = 0; i < 2 * m->n; i++)
                cnt += bestto[i] != -1;
        int *list = malloc((size_t) (cnt > 0 ? cnt : 1) * sizeof(int));
        if (!list)
                return -ENOMEM;
        cnt = 0;
        for (int i = 0; i < 2 * m->n; i++)
                if (bestto[i] != -1)
                        list[cnt++] = bestto[i];
        m->bbe[b] = list;
        m->nbbe[b] = cnt;
        m->bestedge[b] = -1;
        for (int i = 0; i < cnt; i++)
                if (m->bestedge[b] == -1 || wm_less_slack(m, list[i], m->bestedge[b]))
                        m->bestedge[b] = list[i];
        return 0;
}

static void wm_expand(struct wm *m, int b, bool endstage) {
        int nc = m->nchilds[b];

        for (int i = 0; i < nc; i++) {
                int s = m->childs[b][i];
                m->parent[s] = -1;
                if (s < m->n) {
                        m->inblossom[s] = s;
                } else if (endstage && vzero(WD(m, s), m->k)) {
                        wm_expand(m, s, endstage);
                } else {
                        int c = wm_leaves_into(m, s, m->leaves, 0);
                        for (int li = 0; li < c; li++)
                                m->inblossom[m->leaves[li]] = s;
                }
        }
        if (!endstage && m->label[b] == 2) {
                /* The T-blossom b is expanded mid-stage: relabel the
                 * sub-blossoms on the even-length path from the entry
                 * child to the base, and give the others a chance to be
                 * reached again. */
                int entry = m->inblossom[m->endpoint[m->labelend[b] ^ 1]];
                int j = wm_child_index(m, b, entry), jstep, trick;
                if (j & 1) {
                        j -= nc;
                        jstep = 1;
                        trick = 0;
                } else {
                        jstep = -1;
                        trick = 1;
                }
                int p = m->labelend[b];
                while (j != 0) {
                        m->label[m->endpoint[p ^ 1]] = 0;
                        m->label[m->endpoint[m->endps[b][wm_mod(j - trick, nc)] ^ trick ^ 1]] = 0;
                        wm_assign_label(m, m->endpoint[p ^ 1], 2, p);
                        m->allow[m->endps[b][wm_mod(j - trick, nc)] / 2] = true;
                        j += jstep;
                        p = m->endps[b][wm_mod(j - trick, nc)] ^ trick;
                        m->allow[p / 2] = true;
                        j += jstep;
                }
                int bv = m->childs[b][wm_mod(j, nc)];
                m->label[m->endpoint[p ^ 1]] = m->label[bv] = 2;
                m->labelend[m->endpoint[p ^ 1]] = m->labelend[bv] = p;
                m->bestedge[bv] = -1;
                j += jstep;
                while (m->childs[b][wm_mod(j, nc)] != entry) {
                        bv = m->childs[b][wm_mod(j, nc)];
                        if (m->label[bv] == 1) {
                                j += jstep;
                                continue;
                        }
                        int c = wm_leaves_into(m, bv, m->leaves, 0), v = -1;
                        for (int li = 0; li < c; li++)
                                if (m->label[m->leaves[li]] != 0) {
                                        v = m->leaves[li];
                                        break;
                                }
                        if (v >= 0) {
                                m->label[v] = 0;
                                m->label[m->endpoint[m->mate[m->base[bv]]]] = 0;
                                wm_assign_label(m, v, 2, m->labelend[v]);
                        }
                        j += jstep;
                }
        }
        m->label[b] = m->labelend[b] = -1;
        free(m->childs[b]);
        free(m->endps[b]);
        m->childs[b] = m->endps[b] = NULL;
        m->nchilds[b] = 0;
        m->base[b] = -1;
        free(m->bbe[b]);
        m->bbe[b] = NULL;
        m->nbbe[b] = 0;
        m->bestedge[b] = -1;
        m->unused[m->nunused++] = b;
}

/* Swaps matched and unmatched edges along the even path through blossom b
 * from vertex v to its base, and makes v the new base. */
static void wm_augment_blossom(struct wm *m, int b, int v) {
        int t = v, nc = m->nchilds[b];

        while (m->parent[t] != b)
                t = m->parent[t];
        if (t >= m->n)
                wm_augment_blossom(m, t, v);
        int i = wm_child_index(m, b, t), j = i, jstep, trick;
        if (i & 1) {
                j -= nc;
                jstep = 1;
                trick = 0;
        } else {
                jstep = -1;
                trick = 1;
        }
        while (j != 0) {
                j += jstep;
                t = m->childs[b][wm_mod(j, nc)];
                int p = m->endps[b][wm_mod(j - trick, nc)] ^ trick;
                if (t >= m->n)
                        wm_augment_blossom(m, t, m->endpoint[p]);
                j += jstep;
                t = m->childs[b][wm_mod(j, nc)];
                if (t >= m->n)
                        wm_augment_blossom(m, t, m->endpoint[p ^ 1]);
                m->mate[m->endpoint[p]] = p ^ 1;
                m->mate[m->endpoint[p ^ 1]] = p;
        }
        /* rotate so that the sub-blossom holding v comes first */
        int *tmp = m->leaves; /* n >= nc */
        for (int q = 0; q < nc; q++)
                tmp[q] = m->childs[b][(q + i) % nc];
        memcpy(m->childs[b], tmp, (size_t) nc * sizeof(int));
        for (int q = 0; q < nc; q++)
                tmp[q] = m->endps[b][(q + i) % nc];
        memcpy(m->endps[b], tmp, (size_t) nc * sizeof(int));
        m->base[b] = m->base[m->childs[b][0]];
}

static void wm_augment_matching(struct wm *m, int e) {
        int ends[2][2] = { { m->endpoint[2 * e], 2 * e + 1 }, { m->endpoint[2 * e + 1], 2 * e } };

        for (int side = 0; side < 2; side++) {
                int s = ends[side][0], p = ends[side][1];
                for (;;) {
                        int bs = m->inblossom[s];
                        if (bs >= m->n)
                                wm_augment_blossom(m, bs, s);
                        m->mate[s] = p;
                        if (m->labelend[bs] == -1)
                                break;
                        int t = m->endpoint[m->labelend[bs]];
                        int bt = m->inblossom[t];
                        s = m->endpoint[m->labelend[bt]];
                        int j = m->endpoint[m->labelend[bt] ^ 1];
                        if (bt >= m->n)
                                wm_augment_blossom(m, bt, j);
                        m->mate[j] = m->labelend[bt];
                        p = m->labelend[bt] ^ 1;
                }
        }
}

static void wm_free(struct wm *m) {
        if (m->childs)
                for (int b = 0; b < 2 * m->n; b++) {
                        free(m->childs[b]);
                        free(m->endps[b]);
                        free(m->bbe[b]);
                }
        free(m->endpoint);
        free(m->nbstart);
        free(m->nb);
        free(m->mate);
        free(m->label);
        free(m->labelend);
        free(m->parent);
        free(m->base);
        free(m->bestedge);
        free(m->inblossom);
        free(m->childs);
        free(m->endps);
        free(m->nchilds);
        free(m->bbe);
        free(m->nbbe);
        free(m->unused);
        free(m->dual);
        free(m->allow);
        free(m->queue);
        free(m->leaves);
        free(m->bestto);
        free(m->t0);
        free(m->t1);
        free(m->delta);
}

static int wm_alloc(struct wm *m, const struct tour_wgraph *g) {
        size_t n = (size_t) g->n, n2 = 2 * n, ne = (size_t) (g->ne > 0 ? g->ne : 1), k = (size_t) g->k;

        memset(m, 0, sizeof *m);
        m->n = g->n;
        m->ne = g->ne;
        m->k = g->k;
        m->w = g->w;
        m->endpoint = malloc(2 * ne * sizeof(int));
        m->nbstart = calloc(n + 1, sizeof(int));
        m->nb = malloc(2 * ne * sizeof(int));
        m->mate = malloc(n * sizeof(int));
        m->label = malloc(n2 * sizeof(int));
        m->labelend = malloc(n2 * sizeof(int));
        m->parent = malloc(n2 * sizeof(int));
        m->base = malloc(n2 * sizeof(int));
        m->bestedge = malloc(n2 * sizeof(int));
        m->inblossom = malloc(n * sizeof(int));
        m->childs = calloc(n2, sizeof(int *));
        m->endps = calloc(n2, sizeof(int *));
        m->nchilds = calloc(n2, sizeof(int));
        m->bbe = calloc(n2, sizeof(int *));
        m->nbbe = calloc(n2, sizeof(int));
        m->unused = malloc(n * sizeof(int));
        m->dual = calloc(n2 * k, sizeof(int64_t));
        m->allow = malloc(ne * sizeof(bool));
        m->queue = malloc((n2 + 2) * sizeof(int)); /* each vertex turns S once a stage, +1 rescan */
        m->leaves = malloc(n * sizeof(int));
        m->bestto = malloc(n2 * sizeof(int));
        m->t0 = malloc(k * sizeof(int64_t));
        m->t1 = malloc(k * sizeof(int64_t));
        m->delta = malloc(k * sizeof(int64_t));
        if (!m->endpoint || !m->nbstart || !m->nb || !m->mate || !m->label || !m->labelend || !m->parent ||
            !m->base || !m->bestedge || !m->inblossom || !m->childs || !m->endps || !m->nchilds || !m->bbe ||
            !m->nbbe || !m->unused || !m->dual || !m->allow || !m->queue || !m->leaves || !m->bestto ||
            !m->t0 || !m->t1 || !m->delta)
                return -ENOMEM;
        return 0;
}

int tour_wmatch(const struct tour_wgraph *g, int *ret_mate) {
        struct wm wm, *m = &wm;
        int r;

        if (!g || !ret_mate || g->n < 0 || g->ne < 0 || g->k < 1 || (g->ne > 0 && (!g->ea || !g->eb || !g->w)))
                return -EINVAL;
        for (int e = 0; e < g->ne; e++)
                if (g->ea[e] < 0 || g->ea[e] >= g->n || g->eb[e] < 0 || g->eb[e] >= g->n || g->ea[e] == g->eb[e])
                        return -EINVAL;
        for (int v = 0; v < g->n; v++)
                ret_mate[v] = -1;
        if (g->n == 0 || g->ne == 0)
                return 0;
        r = wm_alloc(m, g);
        if (r < 0)
                goto out;
        int n = g->n, k = g->k;
        size_t kz = (size_t) k;

        for (int e = 0; e < g->ne; e++) {
                m->endpoint[2 * e] = g->ea[e];
                m->endpoint[2 * e + 1] = g->eb[e];
                m->nbstart[g->ea[e] + 1]++;
                m->nbstart[g->eb[e] + 1]++;
        }
        for (int v = 0; v < n; v++)
                m->nbstart[v + 1] += m->nbstart[v];
        {
                int *fill = m->bestto; /* 2n >= n + 1 */
                memcpy(fill, m->nbstart, (size_t) n * sizeof(int));
                for (int e = 0; e < g->ne; e++) {
                        m->nb[fill[g->ea[e]]++] = 2 * e + 1;
                        m->nb[fill[g->eb[e]]++] = 2 * e;
                }
        }
        /* vertex duals start at the largest weight (at least zero) */
        int64_t *maxw = m->delta;
        memset(maxw, 0, kz * sizeof(int64_t));
        for (int e = 0; e < g->ne; e++)
                if (vcmp(&g->w[(size_t) e * kz], maxw, k) > 0)
                        memcpy(maxw, &g->w[(size_t) e * kz], kz * sizeof(int64_t));
        for (int v = 0; v < n; v++)
                memcpy(WD(m, v), maxw, kz * sizeof(int64_t));
        for (int v = 0; v < n; v++) {
                m->mate[v] = -1;
                m->inblossom[v] = v;
        }
        for (int b = 0; b < 2 * n; b++) {
                m->parent[b] = -1;
                m->base[b] = b < n ? b : -1;
                m->labelend[b] = -1;
                m->label[b] = 0;
        }
        m->nunused = 0;
        for (int b = 2 * n - 1; b >= n; b--)
                m->unused[m->nunused++] = b;

        for (int stage = 0; stage < n; stage++) {
                bool augmented = false;

                for (int b = 0; b < 2 * n; b++) {
                        m->label[b] = 0;
                        m->bestedge[b] = -1;
                        if (b >= n) {
                                free(m->bbe[b]);
                                m->bbe[b] = NULL;
                                m->nbbe[b] = 0;
                        }
                }
                memset(m->allow, 0, (size_t) g->ne * sizeof(bool));
                m->nqueue = 0;
                for (int v = 0; v < n; v++)
                        if (m->mate[v] == -1 && m->label[m->inblossom[v]] == 0)
                                wm_assign_label(m, v, 1, -1);

                for (;;) {
                        while (m->nqueue > 0 && !augmented) {
                                int v = m->queue[--m->nqueue];
                                for (int q = m->nbstart[v]; q < m->nbstart[v + 1]; q++) {
                                        int p = m->nb[q], e = p / 2, w = m->endpoint[p];
                                        if (m->inblossom[v] == m->inblossom[w])
                                                continue;
                                        int64_t *ks = m->t1;
                                        if (!m->allow[e]) {
                                                wm_slack(m, e, ks);
                                                bool nonpos = true;
                                                for (int i = 0; i < k; i++)
                                                        if (ks[i] != 0) {
                                                                nonpos = ks[i] < 0;
                                                                break;
                                                        }
                                                if (nonpos)
                                                        m->allow[e] = true;
                                        }
                                        if (m->allow[e]) {
                                                int bw = m->inblossom[w];
                                                if (m->label[bw] == 0) {
                                                        wm_assign_label(m, w, 2, p ^ 1);
                                                } else if (m->label[bw] == 1) {
                                                        int base = wm_scan(m, v, w);
                                                        if (base >= 0) {
                                                                r = wm_add_blossom(m, base, e);
                                                                if (r < 0)
                                                                        goto out;
                                                        } else {
                                                                wm_augment_matching(m, e);
                                                                augmented = true;
                                                                break;
                                                        }
                                                } else if (m->label[w] == 0) {
                                                        m->label[w] = 2;
                                                        m->labelend[w] = p ^ 1;
                                                }
                                        } else if (m->label[m->inblossom[w]] == 1) {
                                                int b = m->inblossom[v];
                                                if (m->bestedge[b] == -1 || wm_less_slack(m, e, m->bestedge[b]))
                                                        m->bestedge[b] = e;
                                        } else if (m->label[w] == 0) {
                                                if (m->bestedge[w] == -1 || wm_less_slack(m, e, m->bestedge[w]))
                                                        m->bestedge[w] = e;
                                        }
                                }
                        }
                        if (augmented)
                                break;

                        /* the dual adjustment: the smallest of the four deltas */
                        int64_t *delta = m->delta;
                        int dtype = 1, dedge = -1, dblossom = -1;
                        memcpy(delta, WD(m, 0), kz * sizeof(int64_t));
                        for (int v = 1; v < n; v++)
                                if (vcmp(WD(m, v), delta, k) < 0)
                                        memcpy(delta, WD(m, v), kz * sizeof(int64_t));
                        for (int v = 0; v < n; v++)
                                if (m->label[m->inblossom[v]] == 0 && m->bestedge[v] != -1) {
                                        wm_slack(m, m->bestedge[v], m->t0);
                                        if (vcmp(m->t0, delta, k) < 0) {
                                                memcpy(delta, m->t0, kz * sizeof(int64_t));
                                                dtype = 2;
                                                dedge = m->bestedge[v];
                                        }
                                }
                        for (int b = 0; b < 2 * n; b++)
                                if (m->parent[b] == -1 && m->label[b] == 1 && m->bestedge[b] != -1 &&
                                    (b < n || m->base[b] >= 0)) {
                                        wm_slack(m, m->bestedge[b], m->t0);
                                        for (int i = 0; i < k; i++)
                                                m->t0[i] /= 2; /* even: see the top of the file */
                                        if (vcmp(m->t0, delta, k) < 0) {
                                                memcpy(delta, m->t0, kz * sizeof(int64_t));
                                                dtype = 3;
                                                dedge = m->bestedge[b];
                                        }
                                }
                        for (int b = n; b < 2 * n; b++)
                                if (m->base[b] >= 0 && m->parent[b] == -1 && m->label[b] == 2 &&
                                    vcmp(WD(m, b), delta, k) < 0) {
                                        memcpy(delta, WD(m, b), kz * sizeof(int64_t));
                                        dtype = 4;
                                        dblossom = b;
                                }
                        for (int v = 0; v < n; v++) {
                                int l = m->label[m->inblossom[v]];
                                int64_t *d = WD(m, v);
                                if (l == 1)
                                        for (int i = 0; i < k; i++)
                                                d[i] -= delta[i];
                                else if (l == 2)
                                        for (int i = 0; i < k; i++)
                                                d[i] += delta[i];
                        }
                        for (int b = n; b < 2 * n; b++)
                                if (m->base[b] >= 0 && m->parent[b] == -1) {
                                        int64_t *d = WD(m, b);
                                        if (m->label[b] == 1)
                                                for (int i = 0; i < k; i++)
                                                        d[i] += delta[i];
                                        else if (m->label[b] == 2)
                                                for (int i = 0; i < k; i++)
                                                        d[i] -= delta[i];
                                }
                        if (dtype == 1) {
                                break;
                        } else if (dtype == 2 || dtype == 3) {
                                m->allow[dedge] = true;
                                int i = m->endpoint[2 * dedge], j = m->endpoint[2 * dedge + 1];
                                if (dtype == 2 && m->label[m->inblossom[i]] == 0)
                                        i = j;
                                m->queue[m->nqueue++] = i;
                        } else {
                                wm_expand(m, dblossom, false);
                        }
                }
                if (!augmented)
                        break;
                for (int b = n; b < 2 * n; b++)
                        if (m->parent[b] == -1 && m->base[b] >= 0 && m->label[b] == 1 && vzero(WD(m, b), k))
                                wm_expand(m, b, true);
        }
        for (int v = 0; v < n; v++)
                ret_mate[v] = m->mate[v] >= 0 ? m->endpoint[m->mate[v]] : -1;
        r = 0;
out:
        wm_free(m);
        return r;
}
