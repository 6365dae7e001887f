/* Matchings for the pairing modules (tournament/matching.h), against
 * exhaustive search on small random graphs: the maximum matching's size,
 * its repair after a pair is taken out, the Gallai–Edmonds outer set, and
 * the maximum-weight matching with lexicographic vector weights (its total
 * must equal the best total over every matching of the graph). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/matching.h"

#define MAXV 12
#define MAXK 4

static uint64_t rng_next(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

struct graph {
        int     n;
        bool    adj[MAXV][MAXV];
};

static bool graph_edge(const void *ctx, int a, int b) {
        const struct graph *g = ctx;
        return g->adj[a][b];
}

/* Largest matching among the vertices in mask, by exhaustion. */
static int brute_max(const struct graph *g, unsigned mask) {
        if (!mask)
                return 0;
        int v = __builtin_ctz(mask);
        unsigned rest = mask & ~(1u << v);
        int best = brute_max(g, rest);
        for (int u = 0; u < g->n; u++)
                if ((rest >> u & 1) && g->adj[v][u]) {
                        int c = 1 + brute_max(g, rest & ~(1u << u));
                        if (c > best)
                                best = c;
                }
        return best;
}

static void random_graph(struct graph *g, uint64_t *rng, int n, int density) {
        memset(g, 0, sizeof *g);
        g->n = n;
        for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++)
                        if ((int) (rng_next(rng) % 100) < density)
                                g->adj[a][b] = g->adj[b][a] = true;
}

static void maximum_matchings_have_the_exhaustive_size_and_survive_removals(void **state) {
        (void) state;
        uint64_t rng = 31;

        for (int t = 0; t < 3000; t++) {
                struct graph g;
                int n = 1 + (int) (rng_next(&rng) % MAXV);
                random_graph(&g, &rng, n, 10 + (int) (rng_next(&rng) % 80));
                struct tour_cmatch m;
                int members[MAXV];
                for (int i = 0; i < n; i++)
                        members[i] = i;
                assert_int_equal(tour_cmatch_init(&m, n, graph_edge, &g), 0);
                tour_cmatch_build(&m, members, n);
                unsigned all = (1u << n) - 1;
                assert_int_equal(m.size, brute_max(&g, all));
                /* the matching is a matching of the graph */
                for (int v = 0; v < n; v++)
                        if (m.mate[v] >= 0) {
                                assert_true(g.adj[v][m.mate[v]]);
                                assert_int_equal(m.mate[m.mate[v]], v);
                        }
                /* outer set: exactly the v with a perfect matching of the rest */
                if (n % 2 == 1 && tour_cmatch_exposed(&m) == 1) {
                        bool outer[MAXV] = { false };
                        int c = tour_cmatch_outer(&m, outer);
                        int want = 0;
                        for (int v = 0; v < n; v++) {
                                bool d = brute_max(&g, all & ~(1u << v)) == (n - 1) / 2;
                                assert_int_equal(outer[v], d);
                                want += d;
                        }
                        assert_int_equal(c, want);
                }
                /* a test removal changes nothing; a committed one gives the new maximum */
                int p = (int) (rng_next(&rng) % (uint64_t) n), q = (int) (rng_next(&rng) % (uint64_t) n);
                if (q == p)
                        q = -1;
                int size0 = m.size, mate0[MAXV];
                memcpy(mate0, m.mate, sizeof(int) * (size_t) n);
                unsigned left = all & ~(1u << p) & (q >= 0 ? ~(1u << q) : all);
                int want = __builtin_popcount(left) - 2 * brute_max(&g, left);
                assert_int_equal(tour_cmatch_remove(&m, p, q, false), want);
                assert_int_equal(m.size, size0);
                assert_memory_equal(m.mate, mate0, sizeof(int) * (size_t) n);
                assert_int_equal(tour_cmatch_remove(&m, p, q, true), want);
                tour_cmatch_free(&m);
        }
}

/* Weighted: k components in [-3, 6]; the best total by exhaustion. */
struct wcase {
        int     n, k, ne;
        int     ea[MAXV * MAXV], eb[MAXV * MAXV];
        int64_t w[MAXV * MAXV * MAXK];
        int     id[MAXV][MAXV];
};

static int vcmp(const int64_t *a, const int64_t *b, int k) {
        for (int i = 0; i < k; i++)
                if (a[i] != b[i])
                        return a[i] < b[i] ? -1 : 1;
        return 0;
}

static void brute_best(const struct wcase *c, unsigned mask, int64_t *ret) {
        memset(ret, 0, sizeof(int64_t) * (size_t) c->k);
        if (!mask)
                return;
        int v = __builtin_ctz(mask);
        unsigned rest = mask & ~(1u << v);
        brute_best(c, rest, ret);
        for (int u = 0; u < c->n; u++)
                if ((rest >> u & 1) && c->id[v][u] >= 0) {
                        int64_t sub[MAXK];
                        brute_best(c, rest & ~(1u << u), sub);
                        for (int i = 0; i < c->k; i++)
                                sub[i] += c->w[c->id[v][u] * c->k + i];
                        if (vcmp(sub, ret, c->k) > 0)
                                memcpy(ret, sub, sizeof(int64_t) * (size_t) c->k);
                }
}

static void weighted_matchings_reach_the_exhaustive_lexicographic_optimum(void **state) {
        (void) state;
        uint64_t rng = 77;
        static struct wcase c;

        for (int t = 0; t < 4000; t++) {
                c.n = 1 + (int) (rng_next(&rng) % 11);
                c.k = 1 + (int) (rng_next(&rng) % MAXK);
                c.ne = 0;
                int density = 20 + (int) (rng_next(&rng) % 81);
                memset(c.id, -1, sizeof c.id);
                for (int a = 0; a < c.n; a++)
                        for (int b = a + 1; b < c.n; b++) {
                                if ((int) (rng_next(&rng) % 100) >= density)
                                        continue;
                                c.ea[c.ne] = a;
                                c.eb[c.ne] = b;
                                for (int i = 0; i < c.k; i++)
                                        c.w[c.ne * c.k + i] = (int64_t) (rng_next(&rng) % 10) - 3;
                                /* a bias towards positive leading components, as the pairing uses */
                                if (rng_next(&rng) % 2)
                                        c.w[c.ne * c.k] = (int64_t) (rng_next(&rng) % 3) + 1;
                                c.id[a][b] = c.id[b][a] = c.ne;
                                c.ne++;
                        }
                struct tour_wgraph g = { .n = c.n, .ne = c.ne, .k = c.k, .ea = c.ea, .eb = c.eb, .w = c.w };
                int mate[MAXV];
                assert_int_equal(tour_wmatch(&g, mate), 0);
                int64_t got[MAXK] = { 0 }, want[MAXK];
                for (int v = 0; v < c.n; v++) {
                        if (mate[v] < 0)
                                continue;
                        assert_true(mate[v] < c.n && mate[mate[v]] == v);
                        assert_true(c.id[v][mate[v]] >= 0);
                        if (v < mate[v])
                                for (int i = 0; i < c.k; i++)
                                        got[i] += c.w[c.id[v][mate[v]] * c.k + i];
                }
                brute_best(&c, (1u << c.n) - 1, want);
                if (vcmp(got, want, c.k) != 0)
                        fail_msg("case %d (n %d, k %d): total differs from the optimum", t, c.n, c.k);
        }
}

static void weighted_matching_rejects_bad_graphs(void **state) {
        (void) state;
        int ea[1] = { 0 }, eb[1] = { 0 }, mate[2];
        int64_t w[1] = { 1 };
        struct tour_wgraph g = { .n = 2, .ne = 1, .k = 1, .ea = ea, .eb = eb, .w = w };

        assert_int_equal(tour_wmatch(&g, mate), -EINVAL); /* a loop */
        eb[0] = 2;
        assert_int_equal(tour_wmatch(&g, mate), -EINVAL); /* out of range */
        eb[0] = 1;
        g.k = 0;
        assert_int_equal(tour_wmatch(&g, mate), -EINVAL);
        g.k = 1;
        assert_int_equal(tour_wmatch(&g, mate), 0);
        assert_int_equal(mate[0], 1);
        assert_int_equal(mate[1], 0);
        assert_int_equal(tour_wmatch(NULL, mate), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(maximum_matchings_have_the_exhaustive_size_and_survive_removals),
                cmocka_unit_test(weighted_matchings_reach_the_exhaustive_lexicographic_optimum),
                cmocka_unit_test(weighted_matching_rejects_bad_graphs),
        };
        return cmocka_run_group_tests_name("matching", tests, NULL, NULL);
}
