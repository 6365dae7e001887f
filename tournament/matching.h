/* tournament/matching.h — matchings in general graphs, for the pairing
 * modules: a maximum matching (Edmonds' blossom algorithm) kept up to date
 * as pairs are taken out of it, and a maximum-weight matching whose weights
 * are vectors compared lexicographically (Galil's O(V³) primal-dual blossom
 * algorithm, "Efficient algorithms for finding maximum matching in graphs",
 * ACM Computing Surveys 1986).
 *
 * Pure: libc only, no clock, no I/O, no global state.  Working memory is
 * allocated inside each call (or inside a struct tour_cmatch between its
 * init and free) and never kept; the caller's arrays are borrowed.
 *
 * Vertices are 0..n-1.  A graph is given by a predicate (cardinality) or an
 * edge list (weighted); the predicate must be symmetric and answer false for
 * a == b. */
#ifndef ARBITER_TOURNAMENT_MATCHING_H
#define ARBITER_TOURNAMENT_MATCHING_H

#include <stdbool.h>
#include <stdint.h>

/* ---- maximum matching, kept as pairs are taken out ---------------------
 *
 * The matching lives on the alive vertices of a member list (insertion
 * order is kept, so every search is deterministic).  Invariant between
 * calls: the matching is maximum on the alive vertices. */

typedef bool (*tour_edge_fn)(const void *ctx, int a, int b);

struct tour_cmatch {
        int             n;              /* vertex ids are 0..n-1 */
        int             nv;             /* entries in vs */
        int             size;           /* edges in the matching */
        int             nalive;
        tour_edge_fn    edge;
        const void      *ctx;
        int             *vs, *mate, *par, *base, *queue, *mark, *saved;
        bool            *alive, *used, *blossom;
        unsigned        stamp;
};

/* Allocates for vertex ids 0..n-1.  Returns 0 or -ENOMEM. */
int tour_cmatch_init(struct tour_cmatch *m, int n, tour_edge_fn edge, const void *ctx);
void tour_cmatch_free(struct tour_cmatch *m);

/* A maximum matching on members[0..count) (distinct ids), from nothing. */
void tour_cmatch_build(struct tour_cmatch *m, const int *members, int count);

/* Adds vertex v (not yet a member) and restores maximality. */
void tour_cmatch_add(struct tour_cmatch *m, int v);

/* Exposed alive vertices (those the matching leaves over). */
static inline int tour_cmatch_exposed(const struct tour_cmatch *m) {
        return m->nalive - 2 * m->size;
}

/* Takes p and q out (q may be -1) and restores maximality.  Returns the
 * number of exposed alive vertices afterwards.  With commit false the
 * structure is left exactly as it was: the call is a test. */
int tour_cmatch_remove(struct tour_cmatch *m, int p, int q, bool commit);

/* With exactly one exposed vertex u: marks in ret_outer[v] (indexed by
 * vertex id, for the alive members; others untouched) the vertices v such
 * that the alive vertices without v have a perfect matching — the outer
 * vertices of the alternating tree grown from u, u included (the
 * Gallai–Edmonds set D).  Returns how many, or 0 when the matching does
 * not leave exactly one vertex over. */
int tour_cmatch_outer(struct tour_cmatch *m, bool *ret_outer);

/* ---- maximum-weight matching, lexicographic vector weights -------------
 *
 * Edge e joins ea[e] and eb[e] (distinct, each pair at most once) with
 * weight w[e*k .. e*k+k), a vector of k integers compared lexicographically
 * (component 0 first).  Vectors with the lexicographic order form an
 * ordered group, which is all the primal-dual method needs, so a criterion
 * of higher priority is a component of lower index and no criterion can
 * overflow into another.  Components must stay within ±2^40 so that the
 * doubled duals fit in an int64_t.
 *
 * ret_mate[v] receives v's partner or -1.  The matching returned has the
 * greatest total weight (not necessarily the most edges: an edge whose
 * weight is not positive is never worth taking for itself).  Returns 0,
 * -EINVAL for bad arguments, -ENOMEM. */
struct tour_wgraph {
        int             n;              /* vertices */
        int             ne;             /* edges */
        int             k;              /* components per weight, >= 1 */
        const int       *ea, *eb;
        const int64_t   *w;
};

int tour_wmatch(const struct tour_wgraph *g, int *ret_mate);

#endif
