/* tournament/standings.c — standings and tie-breaks from the results
 * (tournament/standings.h; every definition is in docs/tournaments.md).
 *
 * Shape of a computation:
 *   1. validate, and build one "event" per (entrant, round): a seat at a
 *      table or a bye.  Sorting the events by (entrant, round) finds an
 *      entrant twice in one round and gives every entrant its history in a
 *      canonical order, so every sum below adds the same numbers in the same
 *      order whatever order the caller listed the results of a round in;
 *   2. per entrant, the figures that need only its own history (points,
 *      W/D/L, cumulative, games, placements);
 *   3. per entrant, the adjusted scores its opponents count in the Buchholz
 *      family (FIDE) and in the modified median (US Chess), then the
 *      figures that read its opponents' totals (Buchholz family, modified
 *      median, Sonneborn-Berger, OMW%, OGW%) and the seat-adjusted score;
 *   4. the ordering, one key at a time: sort by points, then within every
 *      group still equal sort by the next tie-break.  Direct encounter is
 *      computed there, because its value depends on who is still tied. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/standings.h"

/* Longest list of results or byes: every index, times the seats of a
 * table, fits an int32_t. */
#define ST_MAX_LIST ((size_t) INT32_MAX / TOUR_MAX_SEATS)

/* An entrant's appearance in one round. */
struct st_event {
        int     round;
        int32_t entrant;
        int32_t result;         /* index into results, or -1 for a bye */
        int     seat;           /* 0-based seat at that table */
};

/* Per-entrant figures. */
struct st_acc {
        double  points;
        int     played, won, drawn, lost, byes;
        double  cumulative;
        double  game_points;    /* MTG game points: 3 a game won, 1 a game drawn */
        double  games;
        double  place_sum;
        int     place_n;
        double  expected;       /* the seat averages of the tables sat at, + byes */
        double  mw, gw;         /* floored */
        int     last_round;     /* of its last table or bye; 0 if none */
        /* rounds not played: byes, and tables where it forfeited or every
         * other participant did; and the points they gave it */
        int     unplayed;
        double  unplayed_points;
        int     missed;         /* dropped: its rounds after last_round, up to the stage's last */
        double  abh;            /* FIDE's adjusted score (C.07 art. 16.3): P + draw × missed */
        double  usa;            /* US Chess's adjusted score (34E): unplayed rounds count as draws */
};

/* Values of the Buchholz family or the modified median: a meeting with an
 * opponent, or an unplayed round standing for one (docs/tournaments.md,
 * "The Buchholz family and unplayed rounds"), `count` times: the rounds a
 * dropped entrant missed are one entry, however many. */
struct st_bval {
        double  fide;           /* the opponent's abh, or the entrant's own points */
        double  usa;            /* the opponent's usa, or 0 */
        bool    vur;            /* an unplayed round the entrant chose: cut first (C.07 art. 16) */
        int     count;          /* 1, or the rounds missed */
        int     cut;            /* how many of them are cut (scratch) */
};

struct st_ctx {
        const struct tour_standings_input *in;
        const double    *award;         /* results × TOUR_MAX_SEATS */
        struct st_acc   *acc;
        double          *tbv;           /* n × TOUR_STANDINGS_MAX_TIEBREAKS */
        const struct st_event *ev;
        const size_t    *first;         /* n + 1 offsets into ev */
        int             *mark;          /* direct encounter: group stamp per entrant */
        int             stamp;
        double          *de_points;     /* direct encounter: points within the group */
        int             key;            /* the sort key: −1 points, else a tie-break index */
        int             last_round;     /* R: the stage's last round so far */
        double          draw;           /* a draw's points (docs: "Unplayed rounds") */
        double          best;           /* the most one table gives one participant */
        struct st_bval  *bv;            /* scratch: one entrant's values */
};

static int st_fail(struct tour_points_error *ret_err, int r, const char *message, const char *field_fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Fills *ret_err (when given) and returns r. */
static int st_fail(struct tour_points_error *ret_err, int r, const char *message, const char *field_fmt, ...) {
        va_list ap;

        if (ret_err) {
                va_start(ap, field_fmt);
                vsnprintf(ret_err->field, sizeof ret_err->field, field_fmt, ap);
                va_end(ap);
                snprintf(ret_err->message, sizeof ret_err->message, "%s", message);
        }
        return r;
}

static const char *const st_tb_names[] = {
        [TOUR_TB_BUCHHOLZ]              = "buchholz",
        [TOUR_TB_CUT1]                  = "cut1",
        [TOUR_TB_MEDIAN]                = "median",
        [TOUR_TB_SONNEBORN_BERGER]      = "sonneborn_berger",
        [TOUR_TB_CUMULATIVE]            = "cumulative",
        [TOUR_TB_DIRECT_ENCOUNTER]      = "direct_encounter",
        [TOUR_TB_OMW]                   = "omw",
        [TOUR_TB_GW]                    = "gw",
        [TOUR_TB_OGW]                   = "ogw",
        [TOUR_TB_PLACEMENT_AVG]         = "placement_avg",
        [TOUR_TB_SEAT_ADJUSTED]         = "seat_adjusted",
        [TOUR_TB_MEDIAN1]               = "median1",
        [TOUR_TB_MEDIAN2]               = "median2",
        [TOUR_TB_MODIFIED_MEDIAN]       = "modified_median",
};
#define ST_TB_COUNT ((int) (sizeof st_tb_names / sizeof st_tb_names[0]))

const char *tour_standings_tb_name(enum tour_standings_tb tb) {
        if ((int) tb < 1 || (int) tb >= ST_TB_COUNT)
                return NULL;
        return st_tb_names[tb];
}

int tour_standings_tb_from_name(const char *name, enum tour_standings_tb *ret_tb) {
        if (!name || !ret_tb)
                return -EINVAL;
        for (int t = 1; t < ST_TB_COUNT; t++)
                if (strcmp(name, st_tb_names[t]) == 0) {
                        *ret_tb = (enum tour_standings_tb) t;
                        return 0;
                }
        return -EINVAL;
}

int tour_standings_tb_higher_is_better(enum tour_standings_tb tb) {
        if (!tour_standings_tb_name(tb))
                return -EINVAL;
        return tb != TOUR_TB_PLACEMENT_AVG && tb != TOUR_TB_DIRECT_ENCOUNTER;
}

/* ---- A stable merge sort of int indices with a context: qsort has no
 * context argument in C11 and is not stable. */

typedef int (*st_cmp_fn)(const struct st_ctx *ctx, int a, int b);

static void st_sort(int *a, int *tmp, size_t n, st_cmp_fn cmp, const struct st_ctx *ctx) {
        size_t h, i, j, k;

        if (n < 2)
                return;
        h = n / 2;
        st_sort(a, tmp, h, cmp, ctx);
        st_sort(a + h, tmp, n - h, cmp, ctx);
        for (i = 0, j = h, k = 0; i < h && j < n;)
                tmp[k++] = cmp(ctx, a[j], a[i]) < 0 ? a[j++] : a[i++];
        while (i < h)
                tmp[k++] = a[i++];
        while (j < n)
                tmp[k++] = a[j++];
        memcpy(a, tmp, n * sizeof *a);
}

static int st_event_cmp(const void *pa, const void *pb) {
        const struct st_event *a = pa, *b = pb;

        if (a->entrant != b->entrant)
                return a->entrant < b->entrant ? -1 : 1;
        if (a->round != b->round)
                return a->round < b->round ? -1 : 1;
        return 0;
}

/* The value on the comparison grid: equal on paper means equal here. */
static double st_q(double v) {
        return nearbyint(v / TOUR_STANDINGS_RESOLUTION);
}

/* Participant a's result against participant b of the same table: 1 ranked
 * above, ½ tied, 0 below; a forfeit loses to everyone who played and a double
 * forfeit is a loss for both. */
static double st_pairwise(const struct tour_result *r, int a, int b) {
        if (r->forfeit[a])
                return 0.0;
        if (r->forfeit[b])
                return 1.0;
        if (r->rank[a] == r->rank[b])
                return 0.5;
        return r->rank[a] < r->rank[b] ? 1.0 : 0.0;
}

static double st_key(const struct st_ctx *ctx, int e, int key) {
        return key < 0 ? ctx->acc[e].points : ctx->tbv[(size_t) e * TOUR_STANDINGS_MAX_TIEBREAKS + key];
}

static bool st_higher_first(const struct st_ctx *ctx, int key) {
        return key < 0 || tour_standings_tb_higher_is_better(ctx->in->tiebreaks[key]) == 1;
}

/* Better first on ctx->key, then entrant index: the documented last resort. */
static int st_cmp_key(const struct st_ctx *ctx, int a, int b) {
        double qa = st_q(st_key(ctx, a, ctx->key)), qb = st_q(st_key(ctx, b, ctx->key));

        if (qa != qb) {
                bool a_first = st_higher_first(ctx, ctx->key) ? qa > qb : qa < qb;
                return a_first ? -1 : 1;
        }
        return a < b ? -1 : a > b;
}

/* Results by (round, entrant in seat 1): unique per round once nobody sits
 * twice, so sums over results do not depend on the caller's listing order. */
static int st_cmp_result(const struct st_ctx *ctx, int a, int b) {
        const struct tour_result *ra = &ctx->in->results[a], *rb = &ctx->in->results[b];

        if (ra->round != rb->round)
                return ra->round < rb->round ? -1 : 1;
        if (ra->entrant[0] != rb->entrant[0])
                return ra->entrant[0] < rb->entrant[0] ? -1 : 1;
        return 0;
}

static int st_cmp_de_points(const struct st_ctx *ctx, int a, int b) {
        double qa = st_q(ctx->de_points[a]), qb = st_q(ctx->de_points[b]);

        if (qa != qb)
                return qa > qb ? -1 : 1;
        return a < b ? -1 : a > b;
}

/* ---- Validation and events. */

static int st_validate(const struct tour_standings_input *in, struct tour_points_error *ret_err) {
        struct tour_points_error inner;
        int r;

        if (in->n < 1 || in->n > TOUR_STANDINGS_MAX_ENTRANTS)
                return st_fail(ret_err, -EINVAL, "must be 1..100000", "n");
        if (!in->points)
                return st_fail(ret_err, -EINVAL, "is NULL", "points");
        if ((r = tour_points_validate(in->points, ret_err)) < 0)
                return r;
        /* indices into results and events are int32_t */
        if (in->n_results > ST_MAX_LIST || in->n_byes > ST_MAX_LIST)
                return st_fail(ret_err, -EINVAL, "too many", "%s", in->n_byes > ST_MAX_LIST ? "byes" : "results");
        if (in->n_results > 0 && !in->results)
                return st_fail(ret_err, -EINVAL, "is NULL", "results");
        if (in->n_byes > 0 && !in->byes)
                return st_fail(ret_err, -EINVAL, "is NULL", "byes");
        if (in->n_tiebreaks > TOUR_STANDINGS_MAX_TIEBREAKS)
                return st_fail(ret_err, -EINVAL, "at most 12", "tiebreaks");
        if (in->n_tiebreaks > 0 && !in->tiebreaks)
                return st_fail(ret_err, -EINVAL, "is NULL", "tiebreaks");
        for (size_t k = 0; k < in->n_tiebreaks; k++)
                if (!tour_standings_tb_name(in->tiebreaks[k])) {
                        return st_fail(ret_err, -EINVAL, "unknown tie-break", "tiebreaks[%zu]", k);
                }
        for (size_t i = 0; i < in->n_results; i++) {
                const struct tour_result *res = &in->results[i];

                if ((r = tour_points_check_result(res, &inner)) < 0) {
                        return st_fail(ret_err, r, inner.message, "results[%zu].%s", i, inner.field);
                }
                for (int j = 0; j < res->n; j++)
                        if (res->entrant[j] >= in->n) {
                                return st_fail(ret_err, -EINVAL, "is not an entrant of the stage",
                                               "results[%zu].entrant[%d]", i, j);
                        }
        }
        for (size_t i = 0; i < in->n_byes; i++) {
                if (in->byes[i].round < 1) {
                        return st_fail(ret_err, -EINVAL, "must be 1 or more", "byes[%zu].round", i);
                }
                if (in->byes[i].entrant < 0 || in->byes[i].entrant >= in->n) {
                        return st_fail(ret_err, -EINVAL, "is not an entrant of the stage", "byes[%zu].entrant", i);
                }
        }
        return 0;
}

/* ---- Step 2: an entrant's own history. */

static void st_own(struct st_ctx *ctx, int e, int last_round) {
        const struct tour_standings_input *in = ctx->in;
        struct st_acc *a = &ctx->acc[e];

        for (size_t x = ctx->first[e]; x < ctx->first[e + 1]; x++) {
                const struct st_event *ev = &ctx->ev[x];
                double pts;

                a->last_round = ev->round;
                if (ev->result < 0) {
                        pts = in->points->bye;
                        a->byes++;
                        a->unplayed++;
                        a->unplayed_points += pts;
                        a->games += TOUR_STANDINGS_BYE_GAMES;
                        a->game_points += TOUR_STANDINGS_MTG_WIN * TOUR_STANDINGS_BYE_GAMES;
                        a->expected += pts;
                } else {
                        const struct tour_result *r = &in->results[ev->result];
                        int outcome = tour_points_outcome(r, ev->seat);
                        double sum = 0.0;
                        bool scored = true, met = false;

                        pts = ctx->award[(size_t) ev->result * TOUR_MAX_SEATS + ev->seat];
                        for (int j = 0; j < r->n; j++)
                                met |= j != ev->seat && !r->forfeit[j];
                        if (r->forfeit[ev->seat] || !met) {
                                a->unplayed++;
                                a->unplayed_points += pts;
                        }
                        a->played++;
                        a->won += outcome == TOUR_POINTS_WON;
                        a->drawn += outcome == TOUR_POINTS_DREW;
                        a->lost += outcome == TOUR_POINTS_LOST;
                        a->place_sum += r->forfeit[ev->seat] ? r->n : r->rank[ev->seat];
                        a->place_n++;
                        for (int j = 0; j < r->n; j++) {
                                scored &= r->score[j] >= 0.0;
                                sum += r->score[j];
                        }
                        if (scored && sum > 0.0) {
                                /* a best-of: score[] counts the games each won */
                                a->games += sum;
                                a->game_points += TOUR_STANDINGS_MTG_WIN * r->score[ev->seat];
                        } else {
                                /* no game score: the match itself is the one game */
                                a->games += 1.0;
                                a->game_points += outcome == TOUR_POINTS_WON ? TOUR_STANDINGS_MTG_WIN
                                                : outcome == TOUR_POINTS_DREW ? TOUR_STANDINGS_MTG_DRAW : 0.0;
                        }
                }
                a->points += pts;
                a->cumulative += pts * (double) (last_round - ev->round + 1);
        }
        {
                int rounds = a->played + a->byes;
                double mp = TOUR_STANDINGS_MTG_WIN * (a->won + a->byes) + TOUR_STANDINGS_MTG_DRAW * a->drawn;

                a->mw = rounds > 0 ? fmax(TOUR_STANDINGS_MTG_FLOOR, mp / (TOUR_STANDINGS_MTG_WIN * rounds))
                                   : TOUR_STANDINGS_MTG_FLOOR;
                a->gw = a->games > 0.0
                        ? fmax(TOUR_STANDINGS_MTG_FLOOR, a->game_points / (TOUR_STANDINGS_MTG_WIN * a->games))
                        : TOUR_STANDINGS_MTG_FLOOR;
        }
}

/* ---- Step 3: what the opponents bring. */

/* The draw and the best of one table (ctx->draw, ctx->best), at the largest
 * table size of the stage (a duel when there is no result): what each
 * participant gets when the whole table ties, and what its sole winner
 * gets.  WDL: draw and win at any size; PLACEMENT: the mean of the places
 * and first place.  Both 0 when the configuration has no table for that
 * size (PLACEMENT TABLE without results). */
static void st_draw_and_best(struct st_ctx *ctx) {
        const struct tour_standings_input *in = ctx->in;
        struct tour_result t = { .round = 1, .n = 2 };
        double pts[TOUR_MAX_SEATS];

        for (size_t i = 0; i < in->n_results; i++)
                if (in->results[i].n > t.n)
                        t.n = in->results[i].n;
        for (int j = 0; j < t.n; j++) {
                t.entrant[j] = j;
                t.rank[j] = 1;
        }
        ctx->draw = tour_points_award(in->points, &t, pts, NULL) > 0 ? pts[0] : 0.0;
        for (int j = 0; j < t.n; j++)
                t.rank[j] = j + 1;
        ctx->best = tour_points_award(in->points, &t, pts, NULL) > 0 ? pts[0] : 0.0;
}

/* The adjusted scores entrant e brings to its opponents' values.  FIDE
 * (C.07 art. 16.3): the rounds a dropped entrant missed after its last
 * count as draws.  US Chess (34E): every unplayed round counts as a draw —
 * byes, forfeits won or lost, the rounds missed after dropping. */
static void st_adjusted(struct st_ctx *ctx, int e) {
        struct st_acc *a = &ctx->acc[e];

        a->missed = ctx->in->dropped && ctx->in->dropped[e] && a->last_round < ctx->last_round
                    ? ctx->last_round - a->last_round : 0;
        a->abh = a->points + ctx->draw * a->missed;
        a->usa = a->points - a->unplayed_points + ctx->draw * (a->unplayed + a->missed);
}

/* How many entries entrant e's values take: one per other participant at
 * every table, one per bye, one for all the rounds missed after dropping. */
static size_t st_bvals_count(const struct st_ctx *ctx, int e) {
        size_t m = ctx->acc[e].missed > 0;

        for (size_t x = ctx->first[e]; x < ctx->first[e + 1]; x++)
                m += ctx->ev[x].result < 0 ? 1 : (size_t) ctx->in->results[ctx->ev[x].result].n - 1;
        return m;
}

/* Fills ctx->bv with entrant e's values in its canonical order (rounds,
 * then seats, then the rounds missed) and returns how many. */
static size_t st_bvals(struct st_ctx *ctx, int e) {
        const struct tour_standings_input *in = ctx->in;
        const struct st_acc *a = &ctx->acc[e];
        size_t m = 0;

        for (size_t x = ctx->first[e]; x < ctx->first[e + 1]; x++) {
                const struct st_event *ev = &ctx->ev[x];
                const struct tour_result *r;

                if (ev->result < 0) {
                        /* a bye: a dummy opponent holding the entrant's own points */
                        ctx->bv[m++] = (struct st_bval) { .fide = a->points, .usa = 0.0, .vur = false, .count = 1 };
                        continue;
                }
                r = &in->results[ev->result];
                for (int j = 0; j < r->n; j++) {
                        const struct st_acc *o = &ctx->acc[r->entrant[j]];

                        if (j == ev->seat)
                                continue;
                        if (r->forfeit[ev->seat] || r->forfeit[j])
                                /* not played: the dummy again; the entrant's own
                                 * forfeit is a round it chose not to play */
                                ctx->bv[m++] = (struct st_bval) { .fide = a->points, .usa = 0.0,
                                                                  .vur = r->forfeit[ev->seat], .count = 1 };
                        else
                                ctx->bv[m++] = (struct st_bval) { .fide = o->abh, .usa = o->usa, .vur = false,
                                                                  .count = 1 };
                }
        }
        if (a->missed > 0)
                ctx->bv[m++] = (struct st_bval) { .fide = a->points, .usa = 0.0, .vur = true, .count = a->missed };
        return m;
}

/* The sum of the values in v[0..m) (fide or usa) without `low` low values
 * and `high` high ones.  With vur_first, the low cuts take the entrant's
 * own unplayed rounds first (C.07 art. 16).  Fewer values than cuts: the
 * low cuts come first and the sum is 0.  Among equal values the first is
 * cut; the sum adds the rest in order, so it is the same bits for the same
 * input. */
static double st_cut(struct st_bval *v, size_t m, bool usa, int low, int high, bool vur_first) {
        double sum = 0.0;

        for (size_t i = 0; i < m; i++)
                v[i].cut = 0;
        for (int k = 0; k < low + high; k++) {
                bool want_low = k < low;
                size_t best = m;

                for (int pass = want_low && vur_first ? 0 : 1; pass < 2 && best == m; pass++)
                        for (size_t i = 0; i < m; i++) {
                                double x, y;

                                if (v[i].cut == v[i].count || (pass == 0 && !v[i].vur))
                                        continue;
                                if (best == m) {
                                        best = i;
                                        continue;
                                }
                                x = usa ? v[i].usa : v[i].fide;
                                y = usa ? v[best].usa : v[best].fide;
                                if (want_low ? x < y : x > y)
                                        best = i;
                        }
                if (best == m)
                        break;          /* nothing left */
                v[best].cut++;
        }
        for (size_t i = 0; i < m; i++)
                if (v[i].cut < v[i].count)
                        sum += (double) (v[i].count - v[i].cut) * (usa ? v[i].usa : v[i].fide);
        return sum;
}

/* US Chess rule 34E1: a plus score cuts the lowest, an even score (exactly
 * half the most the stage's rounds could give) the lowest and the highest,
 * a minus score the highest; two of each from nine rounds on. */
static double st_modified_median(struct st_ctx *ctx, int e, size_t m) {
        int k = ctx->last_round >= 9 ? 2 : 1;
        double own = st_q(ctx->acc[e].points), half = st_q(ctx->last_round * ctx->best / 2.0);

        if (own > half)
                return st_cut(ctx->bv, m, true, k, 0, false);
        if (own < half)
                return st_cut(ctx->bv, m, true, 0, k, false);
        return st_cut(ctx->bv, m, true, k, k, false);
}

static void st_opponents(struct st_ctx *ctx, int e) {
        const struct tour_standings_input *in = ctx->in;
        const struct st_acc *a = &ctx->acc[e];
        double sb = 0.0, omw = 0.0, ogw = 0.0;
        size_t m = st_bvals(ctx, e);
        int opps = 0;

        for (size_t x = ctx->first[e]; x < ctx->first[e + 1]; x++) {
                const struct st_event *ev = &ctx->ev[x];

                if (ev->result < 0) {
                        /* Sonneborn-Berger: a bye is a won meeting with a
                         * virtual opponent whose points are the entrant's own */
                        sb += a->points;
                        continue;
                }
                const struct tour_result *r = &in->results[ev->result];
                for (int j = 0; j < r->n; j++) {
                        const struct st_acc *o;

                        if (j == ev->seat)
                                continue;
                        o = &ctx->acc[r->entrant[j]];
                        sb += st_pairwise(r, ev->seat, j) * o->points;
                        omw += o->mw;
                        ogw += o->gw;
                        opps++;
                }
        }

        for (size_t k = 0; k < in->n_tiebreaks; k++) {
                double v = 0.0;

                switch (in->tiebreaks[k]) {
                case TOUR_TB_BUCHHOLZ:
                        v = st_cut(ctx->bv, m, false, 0, 0, true);
                        break;
                case TOUR_TB_CUT1:
                        v = st_cut(ctx->bv, m, false, 1, 0, true);
                        break;
                case TOUR_TB_MEDIAN:
                case TOUR_TB_MEDIAN1:
                        v = st_cut(ctx->bv, m, false, 1, 1, true);
                        break;
                case TOUR_TB_MEDIAN2:
                        v = st_cut(ctx->bv, m, false, 2, 2, true);
                        break;
                case TOUR_TB_MODIFIED_MEDIAN:
                        v = st_modified_median(ctx, e, m);
                        break;
                case TOUR_TB_SONNEBORN_BERGER:
                        v = sb;
                        break;
                case TOUR_TB_CUMULATIVE:
                        v = a->cumulative;
                        break;
                case TOUR_TB_DIRECT_ENCOUNTER:
                        v = 1.0;        /* set during the ordering */
                        break;
                case TOUR_TB_OMW:
                        v = opps > 0 ? omw / opps : TOUR_STANDINGS_MTG_FLOOR;
                        break;
                case TOUR_TB_GW:
                        v = a->gw;
                        break;
                case TOUR_TB_OGW:
                        v = opps > 0 ? ogw / opps : TOUR_STANDINGS_MTG_FLOOR;
                        break;
                case TOUR_TB_PLACEMENT_AVG:
                        v = a->place_n > 0 ? a->place_sum / a->place_n : TOUR_STANDINGS_NO_PLACEMENT;
                        break;
                case TOUR_TB_SEAT_ADJUSTED:
                        v = a->points - a->expected;
                        break;
                }
                ctx->tbv[(size_t) e * TOUR_STANDINGS_MAX_TIEBREAKS + k] = v;
        }
}

/* ---- Step 4: direct encounter among the entrants of group[0..len).
 *
 * Each member's points are its pairwise results (st_pairwise) against the
 * other members at every table they shared.  Members with different points
 * are separated; every subset still tied (but smaller than the group it came
 * from) is scored again among itself only, until nothing changes.  The value
 * stored is the position this gives within the group (1 = best, shared when
 * still tied).  An explicit stack instead of recursion: a group of 10^5 can
 * be split one entrant at a time. */

struct st_de_item {
        size_t  start, len, base;
};

static void st_direct_encounter(struct st_ctx *ctx, int *group, size_t len, size_t key, int *tmp,
                                struct st_de_item *stack) {
        size_t top = 0;

        stack[top++] = (struct st_de_item) { .start = 0, .len = len, .base = 0 };
        while (top > 0) {
                struct st_de_item it = stack[--top];
                int *m = group + it.start;
                size_t a;

                if (it.len == 1) {
                        ctx->tbv[(size_t) m[0] * TOUR_STANDINGS_MAX_TIEBREAKS + key] = (double) (it.base + 1);
                        continue;
                }
                ctx->stamp++;
                for (size_t i = 0; i < it.len; i++) {
                        ctx->mark[m[i]] = ctx->stamp;
                        ctx->de_points[m[i]] = 0.0;
                }
                for (size_t i = 0; i < it.len; i++)
                        for (size_t x = ctx->first[m[i]]; x < ctx->first[m[i] + 1]; x++) {
                                const struct st_event *ev = &ctx->ev[x];
                                const struct tour_result *r;

                                if (ev->result < 0)
                                        continue;
                                r = &ctx->in->results[ev->result];
                                for (int j = 0; j < r->n; j++)
                                        if (j != ev->seat && ctx->mark[r->entrant[j]] == ctx->stamp)
                                                ctx->de_points[m[i]] += st_pairwise(r, ev->seat, j);
                        }
                st_sort(m, tmp, it.len, st_cmp_de_points, ctx);
                if (st_q(ctx->de_points[m[0]]) == st_q(ctx->de_points[m[it.len - 1]])) {
                        for (size_t i = 0; i < it.len; i++)
                                ctx->tbv[(size_t) m[i] * TOUR_STANDINGS_MAX_TIEBREAKS + key] =
                                        (double) (it.base + 1);
                        continue;
                }
                for (a = 0; a < it.len;) {
                        size_t b = a + 1;

                        while (b < it.len && st_q(ctx->de_points[m[b]]) == st_q(ctx->de_points[m[a]]))
                                b++;
                        stack[top++] = (struct st_de_item) {
                                .start = it.start + a, .len = b - a, .base = it.base + a };
                        a = b;
                }
        }
}

/* Sorts order[] (best first) and sets brk[p] when order[p] is not equal to
 * order[p − 1] on every key: those are the rank boundaries. */
static int st_order(struct st_ctx *ctx, int *order, bool *brk) {
        const struct tour_standings_input *in = ctx->in;
        size_t n = (size_t) in->n;
        int *tmp = malloc(n * sizeof *tmp), *group = malloc(n * sizeof *group);
        struct st_de_item *stack = malloc(n * sizeof *stack);
        int r = -ENOMEM;

        if (!tmp || !group || !stack)
                goto out;
        for (size_t p = 0; p < n; p++)
                order[p] = (int) p;
        ctx->key = -1;
        st_sort(order, tmp, n, st_cmp_key, ctx);
        brk[0] = true;
        for (size_t p = 1; p < n; p++)
                brk[p] = st_q(st_key(ctx, order[p], -1)) != st_q(st_key(ctx, order[p - 1], -1));

        for (size_t k = 0; k < in->n_tiebreaks; k++) {
                bool de = in->tiebreaks[k] == TOUR_TB_DIRECT_ENCOUNTER;

                ctx->key = (int) k;
                for (size_t s = 0; s < n;) {
                        size_t e = s + 1;

                        while (e < n && !brk[e])
                                e++;
                        if (de) {
                                memcpy(group, order + s, (e - s) * sizeof *group);
                                st_direct_encounter(ctx, group, e - s, k, tmp, stack);
                        }
                        st_sort(order + s, tmp, e - s, st_cmp_key, ctx);
                        for (size_t p = s + 1; p < e; p++)
                                brk[p] = st_q(st_key(ctx, order[p], ctx->key))
                                         != st_q(st_key(ctx, order[p - 1], ctx->key));
                        s = e;
                }
        }
        r = 0;
out:
        free(tmp);
        free(group);
        free(stack);
        return r;
}

int tour_standings_compute(const struct tour_standings_input *in, struct tour_standings_row *ret_rows,
                           struct tour_points_error *ret_err) {
        struct st_ctx ctx = { .in = in };
        struct st_event *ev = NULL;
        size_t *first = NULL, n_ev = 0, n, max_bvals = 0;
        double *award = NULL, (*seat_sum)[TOUR_MAX_SEATS] = NULL;
        int (*seat_cnt)[TOUR_MAX_SEATS] = NULL;
        int *order = NULL, *by_round = NULL, *res_tmp = NULL, last_round = 0, r;
        bool *brk = NULL;
        struct tour_points_error inner;

        if (!in || !ret_rows)
                return st_fail(ret_err, -EINVAL, "is NULL", "%s", in ? "ret_rows" : "input");
        if ((r = st_validate(in, ret_err)) < 0)
                return r;
        n = (size_t) in->n;

        for (size_t i = 0; i < in->n_results; i++)
                n_ev += (size_t) in->results[i].n;
        n_ev += in->n_byes;

        r = -ENOMEM;
        ev = malloc((n_ev ? n_ev : 1) * sizeof *ev);
        first = calloc(n + 1, sizeof *first);
        award = malloc((in->n_results ? in->n_results : 1) * TOUR_MAX_SEATS * sizeof *award);
        ctx.acc = calloc(n, sizeof *ctx.acc);
        ctx.tbv = calloc(n * TOUR_STANDINGS_MAX_TIEBREAKS, sizeof *ctx.tbv);
        ctx.mark = calloc(n, sizeof *ctx.mark);
        ctx.de_points = calloc(n, sizeof *ctx.de_points);
        seat_sum = calloc(TOUR_MAX_SEATS + 1, sizeof *seat_sum);
        seat_cnt = calloc(TOUR_MAX_SEATS + 1, sizeof *seat_cnt);
        order = malloc(n * sizeof *order);
        brk = malloc(n * sizeof *brk);
        by_round = malloc((in->n_results ? in->n_results : 1) * sizeof *by_round);
        res_tmp = malloc((in->n_results ? in->n_results : 1) * sizeof *res_tmp);
        if (!res_tmp || !ev || !first || !award || !ctx.acc || !ctx.tbv || !ctx.mark || !ctx.de_points || !seat_sum ||
            !seat_cnt || !order || !brk || !by_round) {
                st_fail(ret_err, r, "out of memory", "memory");
                goto out;
        }

        /* 1. events, awards, one appearance per entrant and round */
        n_ev = 0;
        for (size_t i = 0; i < in->n_results; i++) {
                const struct tour_result *res = &in->results[i];

                if ((r = tour_points_award(in->points, res, award + i * TOUR_MAX_SEATS, &inner)) < 0) {
                        st_fail(ret_err, r, inner.message, "results[%zu].%s", i, inner.field);
                        goto out;
                }
                for (int j = 0; j < res->n; j++)
                        ev[n_ev++] = (struct st_event) { .round = res->round, .entrant = res->entrant[j],
                                                         .result = (int32_t) i, .seat = j };
                if (res->round > last_round)
                        last_round = res->round;
        }
        for (size_t i = 0; i < in->n_byes; i++) {
                ev[n_ev++] = (struct st_event) { .round = in->byes[i].round, .entrant = in->byes[i].entrant,
                                                 .result = -1 };
                if (in->byes[i].round > last_round)
                        last_round = in->byes[i].round;
        }
        qsort(ev, n_ev, sizeof *ev, st_event_cmp);
        for (size_t x = 0; x < n_ev; x++) {
                if (x > 0 && st_event_cmp(&ev[x - 1], &ev[x]) == 0) {
                        r = st_fail(ret_err, -EINVAL, "sits twice in one round (two tables, or a table and a bye)",
                                    "entrant %d, round %d", ev[x].entrant, ev[x].round);
                        goto out;
                }
                first[ev[x].entrant + 1]++;
        }
        for (size_t e = 0; e < n; e++)
                first[e + 1] += first[e];
        ctx.ev = ev;
        ctx.first = first;
        ctx.award = award;

        /* 2. own figures, then the stage-wide seat averages */
        for (size_t e = 0; e < n; e++)
                st_own(&ctx, (int) e, last_round);
        for (size_t i = 0; i < in->n_results; i++)
                by_round[i] = (int) i;
        st_sort(by_round, res_tmp, in->n_results, st_cmp_result, &ctx);
        for (size_t i = 0; i < in->n_results; i++) {
                const struct tour_result *res = &in->results[by_round[i]];

                for (int j = 0; j < res->n; j++) {
                        seat_sum[res->n][j] += award[(size_t) by_round[i] * TOUR_MAX_SEATS + j];
                        seat_cnt[res->n][j]++;
                }
        }
        for (size_t x = 0; x < n_ev; x++)
                if (ev[x].result >= 0) {
                        int size = in->results[ev[x].result].n, seat = ev[x].seat;

                        ctx.acc[ev[x].entrant].expected += seat_sum[size][seat] / seat_cnt[size][seat];
                }

        /* 3. the adjusted scores, then what opponents bring */
        ctx.last_round = last_round;
        st_draw_and_best(&ctx);
        for (size_t e = 0; e < n; e++) {
                size_t m;

                st_adjusted(&ctx, (int) e);
                m = st_bvals_count(&ctx, (int) e);
                max_bvals = m > max_bvals ? m : max_bvals;
        }
        ctx.bv = malloc((max_bvals ? max_bvals : 1) * sizeof *ctx.bv);
        if (!ctx.bv) {
                r = st_fail(ret_err, -ENOMEM, "out of memory", "memory");
                goto out;
        }
        for (size_t e = 0; e < n; e++)
                st_opponents(&ctx, (int) e);

        /* 4. the order and the ranks */
        if ((r = st_order(&ctx, order, brk)) < 0) {
                st_fail(ret_err, r, "out of memory", "memory");
                goto out;
        }
        for (size_t p = 0; p < n; p++) {
                const struct st_acc *a = &ctx.acc[order[p]];
                struct tour_standings_row *row = &ret_rows[p];

                memset(row, 0, sizeof *row);
                row->entrant = order[p];
                row->rank = brk[p] ? (int) p + 1 : ret_rows[p - 1].rank;
                row->dropped = in->dropped && in->dropped[order[p]];
                row->points = a->points;
                row->played = a->played;
                row->won = a->won;
                row->drawn = a->drawn;
                row->lost = a->lost;
                row->byes = a->byes;
                row->game_win_pct = a->gw;
                for (size_t k = 0; k < in->n_tiebreaks; k++)
                        row->tb[k] = ctx.tbv[(size_t) order[p] * TOUR_STANDINGS_MAX_TIEBREAKS + k];
        }
        r = (int) n;
out:
        free(ev);
        free(first);
        free(award);
        free(ctx.acc);
        free(ctx.tbv);
        free(ctx.mark);
        free(ctx.de_points);
        free(seat_sum);
        free(seat_cnt);
        free(order);
        free(brk);
        free(by_round);
        free(res_tmp);
        free(ctx.bv);
        return r;
}
