/* tournament/swiss.c — Swiss pairing for two-player matches: the FIDE Dutch
 * system (Handbook C.04.3, in force since 1 February 2026) without its
 * colour criteria.  docs/formats/swiss-and-pods.md states the criteria and
 * proves the method; this comment is the map.
 *
 *   1. Rank the active players (score, rating, entrant number); equal
 *      scores form score groups.  The bye is for a player with the fewest
 *      byes (C2).
 *   2. Whole-round look-ahead, once: a maximum matching (Edmonds) of the
 *      "may meet" graph plus a vertex Z standing for the bye, joined to the
 *      bye candidates of score <= s, gives the least number of rematches d
 *      any pairing needs (0 unless none avoids them) and the lowest bye
 *      score s* that keeps it (C5).
 *   3. Brackets from the top: a bracket is the score group's residents plus
 *      the players floated down to it (MDPs).  Its pairs are resident with
 *      resident or MDP with resident; whoever it leaves unpaired floats to
 *      the next bracket.  Two ways to pair one:
 *
 *      fast   When a candidate meets every criterion's lower bound (all
 *             MDPs paired, the parity leftover only, floating no one with a
 *             recent downfloat, pairing no MDP with a recent upfloater, the
 *             next bracket able to pair the floater, the rest completable)
 *             and the plain S1/S2 split of the remainder allows it, the
 *             first such candidate in the Dutch order is built greedily:
 *             each MDP, then each S1 player, takes the first partner for
 *             which a maximum matching of what is left stays perfect.  A
 *             perfect candidate is optimal, and the greedy order is the
 *             order of transpositions, so this is C.04.3's own answer.
 *      search Otherwise, a maximum-weight matching (tournament/matching.h)
 *             over the bracket and the next score group, whose weights are
 *             vectors holding the criteria in priority order, then the
 *             Dutch order (MDP set, MDP partners, exchanges, transpositions)
 *             as lower components; first for the MDPs, then for the
 *             remainder.  The rest of the field is left out and the
 *             optimum checked for completion (C4); when it fails, the
 *             search runs again with everyone below and Z in the graph,
 *             where completion is the weight's top component.
 *
 * Cost: the fast path is a few maximum matchings per bracket, repaired by
 * short augmenting paths; 2,048 players take milliseconds
 * (tests/bench/bench_pairing.c).  The search is O(V³·k) for V players in
 * the graph and k weight components; it runs only when a bracket has no
 * perfect candidate, which in large fields is rare and in small ones cheap.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/matching.h"
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
                for (int f = 0; f < 2; f++)
                        if (e->floated[f] < TOUR_FLOAT_NONE || e->floated[f] > TOUR_FLOAT_UP)
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

/* ---- the round's state ----
 *
 * Players are numbered by rank 0..P-1 (the pool: active players sorted);
 * vertex P is Z (the bye's slot), P+1 is W (the slot of a bracket's or the
 * next group's leftover in the fast path's gadgets). */

enum dutch_mode {
        MODE_POOL,      /* may meet; Z joined to bye candidates of score <= zscore */
        MODE_BRACKET,   /* the fast path's bracket graph, W = a good floater */
        MODE_SPLIT,     /* S1 x S2 of the remainder, W = a good floater in S2 */
        MODE_NEXT,      /* the next score group, W = a good exit to the tail */
        MODE_TAIL,      /* completion check: every edge touches the tail or Z */
};

enum dutch_role {
        ROLE_NONE = 0,
        ROLE_MDP,       /* floated down into the bracket */
        ROLE_RES,       /* resident of the bracket's score group */
        ROLE_NXT,       /* resident of the next score group */
        ROLE_TAIL,      /* everyone below the next score group */
        ROLE_Z,
        ROLE_S1,        /* the remainder's S1 (fast path) */
        ROLE_S2,
        ROLE_LEFT,      /* left over by a relaxed search (completion check) */
};

struct dutch {
        const struct tour_pair_input *in;
        int             P, Z, W;
        int             *ent;           /* rank -> entrant */
        double          *score;
        int8_t          *f1, *f2;       /* floats one and two rounds ago */
        bool            *elig;          /* may take the bye (fewest byes) */
        int             ng, *gstart;    /* score group k: ranks gstart[k] .. gstart[k+1]-1 */
        bool            odd;
        double          zscore;         /* Z's neighbours: elig with score <= zscore */
        bool            degenerate;     /* no rematch-free pairing: budget > 0 */
        int             budget;         /* rematches the rest of the round may still use */

        enum dutch_mode mode;
        uint8_t         *role;          /* per vertex id */
        bool            *good;          /* per vertex id: W's neighbours */

        int             *partner;       /* rank -> rank or -1 */
        int             *mdp, nmdp;     /* the current bracket's MDPs, rank order */
        int             *list, *list2;  /* scratch, P + 2 */
        bool            *flag;          /* scratch, P + 2 */
        int             *pairs, npairs; /* the bracket's pairs, (higher, lower) */
        int             *down, ndown;   /* the bracket's downfloaters */
        struct tour_cmatch cm;
        int             searched;
};

static bool dutch_met(const struct dutch *d, int a, int b) {
        const uint16_t *m = d->in->meetings;
        return m && m[(size_t) d->ent[a] * (size_t) d->in->n + (size_t) d->ent[b]] > 0;
}

static bool dutch_fdown(const struct dutch *d, int x) {
        return d->f1[x] == TOUR_FLOAT_DOWN || d->f2[x] == TOUR_FLOAT_DOWN;
}

static bool dutch_fup(const struct dutch *d, int x) {
        return d->f1[x] == TOUR_FLOAT_UP || d->f2[x] == TOUR_FLOAT_UP;
}

/* May x take the bye (the edge x–Z)? */
static bool dutch_z_ok(const struct dutch *d, int x) {
        return d->elig[x] && d->score[x] <= d->zscore;
}

/* May the vertices a and b be paired, ignoring roles? */
static bool dutch_ok(const struct dutch *d, int a, int b) {
        if (a == b || a == d->W || b == d->W)
                return false;
        if (a == d->Z)
                return dutch_z_ok(d, b);
        if (b == d->Z)
                return dutch_z_ok(d, a);
        return !dutch_met(d, a, b);
}

static bool dutch_edge(const void *ctx, int a, int b) {
        const struct dutch *d = ctx;
        int ra = d->role[a], rb = d->role[b];

        switch (d->mode) {
        case MODE_POOL:
                return dutch_ok(d, a, b);
        case MODE_BRACKET:
                if (a == d->W || b == d->W)
                        return d->good[a == d->W ? b : a] && (ra == ROLE_RES || rb == ROLE_RES);
                if (ra == ROLE_MDP && rb == ROLE_MDP)
                        return false;
                if (ra == ROLE_MDP || rb == ROLE_MDP) /* no MDP with a recent upfloater (C15, C17) */
                        return dutch_ok(d, a, b) && !dutch_fup(d, ra == ROLE_MDP ? b : a);
                return dutch_ok(d, a, b);
        case MODE_SPLIT:
                if (a == d->W || b == d->W)
                        return d->good[a == d->W ? b : a] && (ra == ROLE_S2 || rb == ROLE_S2);
                return ((ra == ROLE_S1 && rb == ROLE_S2) || (ra == ROLE_S2 && rb == ROLE_S1)) &&
                       dutch_ok(d, a, b);
        case MODE_NEXT:
                if (a == d->W || b == d->W)
                        return d->good[a == d->W ? b : a];
                return dutch_ok(d, a, b);
        case MODE_TAIL:
                if (ra != ROLE_TAIL && ra != ROLE_Z && rb != ROLE_TAIL && rb != ROLE_Z)
                        return false;
                return dutch_ok(d, a, b);
        }
        return false;
}

/* Members of suffix(j) — every rank from score group j down — plus Z. */
static int dutch_suffix(const struct dutch *d, int j, int *ret) {
        int c = 0;
        for (int x = j < d->ng ? d->gstart[j] : d->P; x < d->P; x++)
                ret[c++] = x;
        if (d->odd)
                ret[c++] = d->Z;
        return c;
}

/* ---- whole-round look-ahead: d and s* ---- */

static int dutch_lookahead(struct dutch *d) {
        int c = dutch_suffix(d, 0, d->list);

        d->mode = MODE_POOL;
        if (!d->odd) {
                tour_cmatch_build(&d->cm, d->list, c);
                d->budget = tour_cmatch_exposed(&d->cm) / 2;
                d->zscore = -INFINITY;
                d->degenerate = d->budget > 0;
                return 0;
        }
        /* candidate bye scores, lowest first: the scores of eligible players */
        int best = -1, nsig = 0;
        double *sig = malloc((size_t) d->P * sizeof *sig);
        if (!sig)
                return -ENOMEM;
        for (int x = d->P - 1; x >= 0; x--)
                        if (d->elig[x] && (nsig == 0 || sig[nsig - 1] != d->score[x]))
                                sig[nsig++] = d->score[x];
        /* the fewest rematches: Z joined to every eligible player */
        d->zscore = INFINITY;
        tour_cmatch_build(&d->cm, d->list, c);
        int dmin = tour_cmatch_exposed(&d->cm) / 2;
        for (int i = 0; i < nsig && best < 0; i++) {
                d->zscore = sig[i];
                tour_cmatch_build(&d->cm, d->list, c);
                if (tour_cmatch_exposed(&d->cm) / 2 == dmin)
                        best = i;
        }
        d->zscore = best >= 0 ? sig[best] : INFINITY; /* best < 0 is unreachable: the last is dmin's */
        free(sig);
        d->budget = dmin;
        d->degenerate = dmin > 0;
        return 0;
}

/* ---- the fast path ---- */

/* Does suffix(j) + Z have a perfect matching? */
static bool dutch_suffix_perfect(struct dutch *d, int j) {
        int c = dutch_suffix(d, j, d->list);
        d->mode = MODE_POOL;
        tour_cmatch_build(&d->cm, d->list, c);
        return tour_cmatch_exposed(&d->cm) == 0;
}

/* good[x] for the residents x of score group k, when the bracket leaves
 * exactly one of them over: x has no recent downfloat (C14, C16) and the
 * next bracket can pair x and leave only its own parity leftover, the
 * rest still completable (C8 at its bound, C4).  Returns how many. */
static int dutch_good_floaters(struct dutch *d, int k) {
        int g0 = d->gstart[k], g1 = d->gstart[k + 1], count = 0;

        for (int x = g0; x < g1; x++)
                d->good[x] = false;
        if (k == d->ng - 1) {
                for (int x = g0; x < g1; x++)
                        count += d->good[x] = !dutch_fdown(d, x) && d->odd && dutch_z_ok(d, x);
                return count;
        }
        int n0 = d->gstart[k + 1], n1 = d->gstart[k + 2];
        int c = dutch_suffix(d, k + 2, d->list);
        bool *outer = d->flag;
        int nlist2 = 0;

        /* the next group's exits: players y whose leaving for the tail still
         * lets the tail complete */
        for (int y = n0; y < n1; y++)
                d->good[y] = false;
        d->good[d->W] = false;
        d->mode = MODE_POOL;
        tour_cmatch_build(&d->cm, d->list, c);
        if (c % 2 == 0) {
                if (tour_cmatch_exposed(&d->cm) != 0)
                        return 0; /* the tail cannot complete on its own */
        } else {
                for (int i = 0; i < c; i++)
                        outer[d->list[i]] = false;
                if (tour_cmatch_outer(&d->cm, outer) == 0)
                        return 0;
                for (int y = n0; y < n1; y++)
                        for (int i = 0; i < c && !d->good[y]; i++)
                                if (outer[d->list[i]] && dutch_ok(d, y, d->list[i]))
                                        d->good[y] = true;
                d->list2[nlist2++] = d->W;
        }
        for (int y = n0; y < n1; y++)
                d->list2[nlist2++] = y;
        d->mode = MODE_NEXT;
        tour_cmatch_build(&d->cm, d->list2, nlist2);
        for (int i = 0; i < nlist2; i++)
                outer[d->list2[i]] = false;
        if (tour_cmatch_outer(&d->cm, outer) == 0)
                return 0;
        for (int x = g0; x < g1; x++) {
                if (dutch_fdown(d, x))
                        continue;
                for (int y = n0; y < n1 && !d->good[x]; y++)
                        if (outer[y] && dutch_ok(d, x, y))
                                d->good[x] = true;
                count += d->good[x];
        }
        return count;
}

/* Pairs bracket k (d->mdp + score group k) when a perfect candidate exists
 * and needs no exchange; fills d->pairs and d->down.  Returns 1 when done,
 * 0 when the search must decide. */
static int dutch_fast(struct dutch *d, int k) {
        int g0 = d->gstart[k], g1 = d->gstart[k + 1], m = d->nmdp, r = g1 - g0, p = (m + r) % 2;
        int nb = 0;

        if (d->degenerate || m > r)
                return 0;
        if (p == 0) {
                if (k < d->ng - 1 && !dutch_suffix_perfect(d, k + 1))
                        return 0;
        } else if (dutch_good_floaters(d, k) == 0) {
                return 0;
        }
        d->npairs = 0;
        d->ndown = 0;
        bool *taken = d->flag;
        for (int x = g0; x < g1; x++)
                taken[x] = false;

        /* the MDPs, each to the first resident that keeps a perfect candidate */
        if (m > 0) {
                for (int i = 0; i < m; i++) {
                        d->role[d->mdp[i]] = ROLE_MDP;
                        d->list[nb++] = d->mdp[i];
                }
                for (int x = g0; x < g1; x++) {
                        d->role[x] = ROLE_RES;
                        d->list[nb++] = x;
                }
                if (p) {
                        d->role[d->W] = ROLE_NONE;
                        d->list[nb++] = d->W;
                }
                d->mode = MODE_BRACKET;
                tour_cmatch_build(&d->cm, d->list, nb);
                if (tour_cmatch_exposed(&d->cm) != 0)
                        return 0;
                for (int i = 0; i < m; i++) {
                        int a = d->mdp[i], q = -1;
                        for (int y = g0; y < g1 && q < 0; y++)
                                if (!taken[y] && dutch_edge(d, a, y) && tour_cmatch_remove(&d->cm, a, y, false) == 0)
                                        q = y;
                        if (q < 0)
                                return 0; /* unreachable: a perfect matching pairs a */
                        tour_cmatch_remove(&d->cm, a, q, true);
                        taken[q] = true;
                        d->pairs[2 * d->npairs] = a;
                        d->pairs[2 * d->npairs + 1] = q;
                        d->npairs++;
                }
        }

        /* the remainder: S1 the first half, S2 the rest, no exchange */
        int nr = 0;
        for (int x = g0; x < g1; x++)
                if (!taken[x])
                        d->list2[nr++] = x;
        int half = (nr - p) / 2;
        nb = 0;
        for (int i = 0; i < nr; i++) {
                d->role[d->list2[i]] = i < half ? ROLE_S1 : ROLE_S2;
                d->list[nb++] = d->list2[i];
        }
        if (p)
                d->list[nb++] = d->W;
        d->mode = MODE_SPLIT;
        tour_cmatch_build(&d->cm, d->list, nb);
        if (tour_cmatch_exposed(&d->cm) != 0)
                return 0;
        for (int i = 0; i < half; i++) {
                int a = d->list2[i], q = -1;
                for (int j = half; j < nr && q < 0; j++) {
                        int y = d->list2[j];
                        if (!taken[y] && dutch_edge(d, a, y) && tour_cmatch_remove(&d->cm, a, y, false) == 0)
                                q = y;
                }
                if (q < 0)
                        return 0; /* unreachable, as above */
                tour_cmatch_remove(&d->cm, a, q, true);
                taken[q] = true;
                d->pairs[2 * d->npairs] = a;
                d->pairs[2 * d->npairs + 1] = q;
                d->npairs++;
        }
        if (p)
                d->down[d->ndown++] = d->cm.mate[d->W];
        return 1;
}

/* ---- the search ---- */

/* The weight layout: component offsets, in priority order. */
struct layout {
        int k;
        int comp, rtot, rcur;           /* -1 when absent */
        int c6, c7, c8a, c8b, c14, c15, c16, c17, c18, c19, c20, c21;
        int mset, mtr;                  /* MDP order (solve A), -1 when absent */
        int x1, x2, x3, x4, tr;         /* remainder order (solve B), -1 when absent */
};

struct search {
        struct dutch    *d;
        int             k, g0, g1, m;
        bool            full;
        bool            remainder;      /* solve B: the MDPs' pairs are fixed */
        int             nv;             /* vertices in the graph */
        int             *vtx;           /* local -> vertex id */
        uint8_t         *lrole;         /* local -> role */
        int             *local;         /* vertex id -> local or -1 */
        int             L;              /* distinct MDP scores */
        double          *lev;           /* their values, highest first */
        int             *mdpidx;        /* vertex id -> index among the MDPs */
        bool            *fixed;         /* vertex id: paired already (solve B) */
        int             *rpos;          /* vertex id -> position among the remainder (solve B) */
        int             half, nrem;     /* solve B: |S1R|, |remainder| */
        struct layout   lay;
        int             ne, cap;
        int             *ea, *eb;
        int64_t         *w;
        int             *mate;          /* local */
};

static int search_level(const struct search *s, int x) {
        for (int i = 0; i < s->L; i++)
                if (s->d->score[x] == s->lev[i])
                        return i;
        return s->L; /* a resident */
}

static void search_layout(struct search *s) {
        struct layout *l = &s->lay;
        int k = 0, L = s->L;
        bool order_a = !s->remainder, order_b = s->remainder;

        l->comp = s->full ? k++ : -1;
        l->rtot = s->d->degenerate ? k++ : -1;
        l->rcur = s->d->degenerate ? k++ : -1;
        l->c6 = k++;
        l->c7 = k;
        k += L;
        l->c8a = k++;
        l->c8b = k;
        k += L + 1;
        l->c14 = k++;
        l->c15 = k++;
        l->c16 = k++;
        l->c17 = k++;
        l->c18 = k;
        k += L;
        l->c19 = k;
        k += L;
        l->c20 = k;
        k += L;
        l->c21 = k;
        k += L;
        l->mset = l->mtr = l->x1 = l->x2 = l->x3 = l->x4 = l->tr = -1;
        if (order_a && s->m > 0) {
                l->mset = k;
                k += s->m;
                l->mtr = k;
                k += s->m;
        }
        if (order_b) {
                l->x1 = k++;
                l->x2 = k++;
                l->x3 = k;
                k += s->half;
                l->x4 = k;
                k += s->nrem - s->half;
                l->tr = k;
                k += s->nrem;
        }
        l->k = k;
}

static bool role_in_bracket(int r) {
        return r == ROLE_MDP || r == ROLE_RES;
}

/* The weight of the edge between local vertices a and b, or false for no
 * edge. */
static bool search_weight(const struct search *s, int la, int lb, int64_t *w) {
        const struct dutch *d = s->d;
        const struct layout *l = &s->lay;
        int u = s->vtx[la], v = s->vtx[lb], ru = s->lrole[la], rv = s->lrole[lb];
        bool cur = role_in_bracket(ru) && role_in_bracket(rv);
        bool real = u != d->Z && v != d->Z;

        if (s->fixed[u] || s->fixed[v])
                return false;
        if (ru == ROLE_MDP && rv == ROLE_MDP)
                return false; /* two floaters never meet later: not realisable */
        if (cur && s->remainder && (ru == ROLE_MDP || rv == ROLE_MDP))
                return false; /* solve B: the MDPs' pairs are fixed, the rest are in Limbo */
        if (real ? (dutch_met(d, u, v) && !d->degenerate) : !dutch_ok(d, u, v))
                return false;
        memset(w, 0, (size_t) l->k * sizeof *w);
        if (l->comp >= 0)
                w[l->comp] = 1;
        if (real && d->degenerate && dutch_met(d, u, v)) {
                w[l->rtot] = -1;
                if (cur)
                        w[l->rcur] = -1;
        }
        if (cur) {
                w[l->c6] = 1;
                int md = ru == ROLE_MDP ? u : rv == ROLE_MDP ? v : -1;
                if (md >= 0) {
                        int res = md == u ? v : u, lv = search_level(s, md);
                        w[l->c7 + lv] = 1;
                        w[l->c18 + lv] = d->f1[md] == TOUR_FLOAT_DOWN;
                        w[l->c20 + lv] = d->f2[md] == TOUR_FLOAT_DOWN;
                        if (d->f1[res] == TOUR_FLOAT_UP) {
                                w[l->c15] = -1;
                                w[l->c19 + lv] = -1;
                        }
                        if (d->f2[res] == TOUR_FLOAT_UP) {
                                w[l->c17] = -1;
                                w[l->c21 + lv] = -1;
                        }
                        if (l->mset >= 0) {
                                w[l->mset + s->mdpidx[md]] = 1;
                                w[l->mtr + s->mdpidx[md]] = -(int64_t) (res - s->g0 + 1);
                        }
                } else if (l->x1 >= 0) {
                        int a = s->rpos[u] < s->rpos[v] ? u : v, b = a == u ? v : u;
                        int pa = s->rpos[a], pb = s->rpos[b];
                        bool s2 = pa >= s->half;
                        w[l->x1] = -(int64_t) s2;
                        w[l->x2] = -(int64_t) pa;
                        if (!s2)
                                w[l->x3 + (s->half - 1 - pa)] = -1;
                        else
                                w[l->x4 + (pa - s->half)] = 1;
                        w[l->tr + pa] = -(int64_t) pb;
                }
                if (ru == ROLE_RES) {
                        w[l->c14] += d->f1[u] == TOUR_FLOAT_DOWN;
                        w[l->c16] += d->f2[u] == TOUR_FLOAT_DOWN;
                }
                if (rv == ROLE_RES) {
                        w[l->c14] += d->f1[v] == TOUR_FLOAT_DOWN;
                        w[l->c16] += d->f2[v] == TOUR_FLOAT_DOWN;
                }
        } else if ((role_in_bracket(ru) && rv == ROLE_NXT) || (role_in_bracket(rv) && ru == ROLE_NXT) ||
                   (ru == ROLE_NXT && rv == ROLE_NXT)) {
                w[l->c8a] = 1;
                if (role_in_bracket(ru) || role_in_bracket(rv)) {
                        int x = role_in_bracket(ru) ? u : v;
                        w[l->c8b + search_level(s, x)] = 1;
                }
        }
        return true;
}

/* Builds the graph: the bracket, the next score group and, in full mode,
 * everyone below and Z. */
static void search_vertices(struct search *s) {
        struct dutch *d = s->d;
        int k = s->k;

        s->nv = 0;
        for (int i = 0; i < s->m; i++) {
                s->vtx[s->nv] = d->mdp[i];
                s->lrole[s->nv++] = ROLE_MDP;
        }
        for (int x = s->g0; x < s->g1; x++) {
                s->vtx[s->nv] = x;
                s->lrole[s->nv++] = ROLE_RES;
        }
        if (k + 1 < d->ng)
                for (int x = d->gstart[k + 1]; x < d->gstart[k + 2]; x++) {
                        s->vtx[s->nv] = x;
                        s->lrole[s->nv++] = ROLE_NXT;
                }
        if (s->full) {
                for (int x = k + 2 < d->ng ? d->gstart[k + 2] : d->P; x < d->P; x++) {
                        s->vtx[s->nv] = x;
                        s->lrole[s->nv++] = ROLE_TAIL;
                }
                if (d->odd) {
                        s->vtx[s->nv] = d->Z;
                        s->lrole[s->nv++] = ROLE_Z;
                }
        }
        for (int i = 0; i < d->P + 2; i++)
                s->local[i] = -1;
        for (int i = 0; i < s->nv; i++)
                s->local[s->vtx[i]] = i;
}

static int search_solve(struct search *s) {
        int K = s->lay.k;
        size_t need = (size_t) s->nv * (size_t) (s->nv > 0 ? s->nv - 1 : 0) / 2;

        if (need > (size_t) s->cap) {
                free(s->ea);
                free(s->eb);
                free(s->w);
                s->ea = malloc(need * sizeof(int));
                s->eb = malloc(need * sizeof(int));
                s->w = NULL;
                s->cap = (int) need;
                if (!s->ea || !s->eb)
                        return -ENOMEM;
        }
        free(s->w);
        s->w = malloc((need > 0 ? need : 1) * (size_t) K * sizeof(int64_t));
        if (!s->w)
                return -ENOMEM;
        s->ne = 0;
        for (int a = 0; a < s->nv; a++)
                for (int b = a + 1; b < s->nv; b++)
                        if (search_weight(s, a, b, &s->w[(size_t) s->ne * (size_t) K])) {
                                s->ea[s->ne] = a;
                                s->eb[s->ne] = b;
                                s->ne++;
                        }
        struct tour_wgraph g = { .n = s->nv, .ne = s->ne, .k = K, .ea = s->ea, .eb = s->eb, .w = s->w };
        return tour_wmatch(&g, s->mate);
}

/* In a relaxed search (no tail in the graph): can what the matching left
 * over, with everyone below and Z, still be paired completely? */
static bool search_completes(struct search *s) {
        struct dutch *d = s->d;
        int c = 0;

        for (int i = 0; i < s->nv; i++)
                if (s->mate[i] < 0 && !s->fixed[s->vtx[i]]) {
                        d->role[s->vtx[i]] = ROLE_LEFT;
                        d->list[c++] = s->vtx[i];
                }
        for (int x = s->k + 2 < d->ng ? d->gstart[s->k + 2] : d->P; x < d->P; x++) {
                d->role[x] = ROLE_TAIL;
                d->list[c++] = x;
        }
        if (d->odd) {
                d->role[d->Z] = ROLE_Z;
                d->list[c++] = d->Z;
        }
        d->mode = MODE_TAIL;
        tour_cmatch_build(&d->cm, d->list, c);
        return tour_cmatch_exposed(&d->cm) == 0;
}

static void search_free(struct search *s) {
        free(s->vtx);
        free(s->lrole);
        free(s->local);
        free(s->lev);
        free(s->mdpidx);
        free(s->fixed);
        free(s->rpos);
        free(s->ea);
        free(s->eb);
        free(s->w);
        free(s->mate);
}

/* Solves with the current layout, first relaxed, then in full when the
 * relaxed optimum does not complete (or always in full once it is set). */
static int search_run(struct search *s) {
        for (;;) {
                search_vertices(s);
                search_layout(s);
                int r = search_solve(s);
                if (r < 0)
                        return r;
                if (s->full || search_completes(s))
                        return 0;
                s->full = true;
        }
}

static int dutch_search(struct dutch *d, int k) {
        struct search s = { .d = d, .k = k, .g0 = d->gstart[k], .g1 = d->gstart[k + 1], .m = d->nmdp };
        size_t nvx = (size_t) d->P + 2;
        int r = -ENOMEM;

        d->searched++;
        s.full = d->degenerate;
        s.vtx = malloc(nvx * sizeof(int));
        s.lrole = malloc(nvx);
        s.local = malloc(nvx * sizeof(int));
        s.lev = malloc((size_t) (s.m + 1) * sizeof(double));
        s.mdpidx = calloc(nvx, sizeof(int));
        s.fixed = calloc(nvx, sizeof(bool));
        s.mate = malloc(nvx * sizeof(int));
        if (!s.vtx || !s.lrole || !s.local || !s.lev || !s.mdpidx || !s.fixed || !s.mate)
                goto out;
        for (int i = 0; i < s.m; i++) {
                int x = d->mdp[i];
                s.mdpidx[x] = i;
                if (s.L == 0 || s.lev[s.L - 1] != d->score[x])
                        s.lev[s.L++] = d->score[x];
        }

        /* solve A: the criteria, then the MDP set and the MDPs' partners */
        r = search_run(&s);
        if (r < 0)
                goto out;
        d->npairs = 0;
        d->ndown = 0;
        for (int i = 0; i < s.m; i++) {
                int x = d->mdp[i], lm = s.mate[s.local[x]];
                if (lm >= 0 && s.lrole[lm] == ROLE_RES) {
                        int y = s.vtx[lm];
                        d->pairs[2 * d->npairs] = x;
                        d->pairs[2 * d->npairs + 1] = y;
                        d->npairs++;
                        s.fixed[x] = s.fixed[y] = true;
                } else {
                        d->down[d->ndown++] = x;
                }
        }

        /* solve B: the remainder, with its exchanges and transpositions */
        s.rpos = malloc(nvx * sizeof(int));
        if (!s.rpos) {
                r = -ENOMEM;
                goto out;
        }
        s.nrem = 0;
        int rr = 0;
        for (int x = s.g0; x < s.g1; x++) {
                s.rpos[x] = -1;
                if (!s.fixed[x])
                        s.rpos[x] = s.nrem++;
        }
        for (int x = s.g0; x < s.g1; x++) {
                int lm = s.mate[s.local[x]];
                if (!s.fixed[x] && lm >= 0 && s.lrole[lm] == ROLE_RES)
                        rr++;
        }
        s.half = rr / 2; /* rr counted each resident pair from both ends */
        s.remainder = true;
        r = search_run(&s);
        if (r < 0)
                goto out;
        for (int x = s.g0; x < s.g1; x++) {
                if (s.fixed[x])
                        continue;
                int lm = s.mate[s.local[x]];
                if (lm >= 0 && s.lrole[lm] == ROLE_RES) {
                        if (x < s.vtx[lm]) {
                                d->pairs[2 * d->npairs] = x;
                                d->pairs[2 * d->npairs + 1] = s.vtx[lm];
                                d->npairs++;
                        }
                } else {
                        d->down[d->ndown++] = x;
                }
        }
        r = 0;
out:
        search_free(&s);
        return r;
}

/* ---- output ---- */

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

static int swiss_cmp_int(const void *x, const void *y) {
        int a = *(const int *) x, b = *(const int *) y;
        return (a > b) - (a < b);
}

static void dutch_free(struct dutch *d) {
        free(d->ent);
        free(d->score);
        free(d->f1);
        free(d->f2);
        free(d->elig);
        free(d->gstart);
        free(d->role);
        free(d->good);
        free(d->partner);
        free(d->mdp);
        free(d->list);
        free(d->list2);
        free(d->flag);
        free(d->pairs);
        free(d->down);
        tour_cmatch_free(&d->cm);
}

int tour_swiss_pair(const struct tour_pair_input *in, struct tour_pairing *ret_pairings,
                    struct tour_bye *ret_byes, int *ret_nbyes, struct tour_swiss_info *ret_info) {
        struct dutch d = { .in = in };
        struct tour_pair_entrant *sorted = NULL;
        int active, r, npair = 0, rematches = 0, floats = 0, bye = -1;

        active = tour_pair_input_check(in);
        if (active < 0)
                return active;
        if (!ret_pairings || (active % 2 == 1 && !ret_byes))
                return -EINVAL;
        int P = active;
        size_t nz = (size_t) P + 2;
        d.P = P;
        d.Z = P;
        d.W = P + 1;
        sorted = calloc((size_t) (P > 0 ? P : 1), sizeof *sorted);
        d.ent = calloc(nz, sizeof(int));
        d.score = calloc(nz, sizeof(double));
        d.f1 = calloc(nz, 1);
        d.f2 = calloc(nz, 1);
        d.elig = calloc(nz, sizeof(bool));
        d.gstart = calloc(nz + 1, sizeof(int));
        d.role = calloc(nz, 1);
        d.good = calloc(nz, sizeof(bool));
        d.partner = calloc(nz, sizeof(int));
        d.mdp = calloc(nz, sizeof(int));
        d.list = calloc(nz, sizeof(int));
        d.list2 = calloc(nz, sizeof(int));
        d.flag = calloc(nz, sizeof(bool));
        d.pairs = calloc(nz, sizeof(int));
        d.down = calloc(nz, sizeof(int));
        r = -ENOMEM;
        if (!sorted || !d.ent || !d.score || !d.f1 || !d.f2 || !d.elig || !d.gstart || !d.role || !d.good ||
            !d.partner || !d.mdp || !d.list || !d.list2 || !d.flag || !d.pairs || !d.down ||
            tour_cmatch_init(&d.cm, (int) nz, dutch_edge, &d) < 0)
                goto out;

        int c = 0;
        for (int i = 0; i < in->n; i++)
                if (in->entrants[i].active)
                        sorted[c++] = in->entrants[i];
        qsort(sorted, (size_t) P, sizeof *sorted, swiss_qsort_rank);
        int minbyes = INT32_MAX;
        for (int x = 0; x < P; x++) {
                d.ent[x] = sorted[x].entrant;
                d.score[x] = sorted[x].score;
                d.f1[x] = sorted[x].floated[0];
                d.f2[x] = sorted[x].floated[1];
                d.partner[x] = -1;
                if (sorted[x].byes < minbyes)
                        minbyes = sorted[x].byes;
                if (x == 0 || sorted[x].score != sorted[x - 1].score)
                        d.gstart[d.ng++] = x;
        }
        d.gstart[d.ng] = P;
        for (int x = 0; x < P; x++)
                d.elig[x] = sorted[x].byes == minbyes;
        d.odd = P % 2 == 1;

        if (P > 0 && (r = dutch_lookahead(&d)) < 0)
                goto out;
        d.nmdp = 0;
        for (int k = 0; k < d.ng; k++) {
                r = dutch_fast(&d, k);
                if (r == 0)
                        r = dutch_search(&d, k);
                else
                        r = 0;
                if (r < 0)
                        goto out;
                for (int i = 0; i < d.npairs; i++) {
                        int a = d.pairs[2 * i], b = d.pairs[2 * i + 1];
                        d.partner[a] = b;
                        d.partner[b] = a;
                        if (dutch_met(&d, a, b))
                                d.budget--;
                }
                qsort(d.down, (size_t) d.ndown, sizeof(int), swiss_cmp_int);
                memcpy(d.mdp, d.down, (size_t) d.ndown * sizeof(int));
                d.nmdp = d.ndown;
        }
        r = -EINVAL; /* unreachable: the look-ahead proved a complete pairing exists */
        if (d.nmdp != (d.odd ? 1 : 0))
                goto out;
        if (d.odd)
                bye = d.mdp[0];

        for (int a = 0; a < P; a++) {
                int b = d.partner[a];
                if (b < a)
                        continue;
                struct tour_pairing *t = &ret_pairings[npair];
                memset(t, 0, sizeof *t);
                t->round = in->round;
                t->table = npair + 1;
                t->n = 2;
                for (int j = 2; j < TOUR_MAX_SEATS; j++)
                        t->entrant[j] = TOUR_NONE;
                swiss_seat(in, d.ent[a], d.ent[b], &t->entrant[0], &t->entrant[1]);
                rematches += dutch_met(&d, a, b);
                floats += d.score[a] != d.score[b];
                npair++;
        }
        if (ret_nbyes)
                *ret_nbyes = bye >= 0;
        if (bye >= 0) {
                ret_byes[0].round = in->round;
                ret_byes[0].entrant = d.ent[bye];
        }
        if (ret_info) {
                ret_info->rematches = rematches;
                ret_info->floats = floats;
                ret_info->byes = bye >= 0;
                ret_info->searched = d.searched;
        }
        r = npair;
out:
        dutch_free(&d);
        free(sorted);
        return r;
}
