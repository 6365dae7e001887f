/* organiser/rating_worker.c — see rating_worker.h.
 *
 * Players are kept in memory by id (an open-addressing table) with their
 * state; a recompute keeps each player's new history entries too, in
 * vectors of their own, since the history is stored a row per player.
 */
#include "organiser/rating_worker.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "organiser/ratings.h"

/* Results read per round trip: a few hundred kilobytes, small next to a
 * recompute's time and memory. */
#define RW_FETCH                4096

_Static_assert(STORE_RATING_SEATS == TOUR_MAX_SEATS, "a stored result has the seats a match may have");

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

void rw_params_text(const struct tour_os_params *os, const struct tour_glicko2_params *g2, char *buf, size_t len) {
        snprintf(buf, len,
                 "openskill mu=%.17g sigma=%.17g beta=%.17g kappa=%.17g tau=%.17g gamma=%d limit_sigma=%d; "
                 "glicko2 rating=%.17g rd=%.17g volatility=%.17g tau=%.17g",
                 os->mu, os->sigma, os->beta, os->kappa, os->tau, (int) os->gamma, (int) os->limit_sigma, g2->rating,
                 g2->rd, g2->vol, g2->tau);
}

/* ---- players in memory ----------------------------------------------------------- */

struct vec_os {
        struct store_history_os *v;
        size_t n, cap;
};

struct vec_g2 {
        struct store_history_g2 *v;
        size_t n, cap;
};

struct players {
        size_t n, cap;                  /* dense: players 0..n-1 */
        int64_t *id;
        struct tour_rating_state *st;
        bool *touched;                  /* changed by this job */
        struct vec_os *hos;             /* new history entries, when kept */
        struct vec_g2 *hg2;
        size_t slots;                   /* the index: a power of two, at most half full */
        int64_t *slot_id;               /* 0: empty (player ids are >= 1) */
        uint32_t *slot_of;
};

static void players_free(struct players *p) {
        for (size_t i = 0; p->hos && i < p->n; i++)
                free(p->hos[i].v);
        for (size_t i = 0; p->hg2 && i < p->n; i++)
                free(p->hg2[i].v);
        free(p->id);
        free(p->st);
        free(p->touched);
        free(p->hos);
        free(p->hg2);
        free(p->slot_id);
        free(p->slot_of);
        memset(p, 0, sizeof *p);
}

static size_t slot_hash(int64_t id, size_t slots) {
        /* Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4): ids are dense and
         * sequential, the multiplier spreads them */
        return (size_t) (((uint64_t) id * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (slots - 1);
}

static int players_find(const struct players *p, int64_t id) {
        if (!p->slots)
                return -1;
        for (size_t s = slot_hash(id, p->slots);; s = (s + 1) & (p->slots - 1)) {
                if (p->slot_id[s] == id)
                        return (int) p->slot_of[s];
                if (p->slot_id[s] == 0)
                        return -1;
        }
}

static int players_reindex(struct players *p, size_t slots) {
        int64_t *ids = calloc(slots, sizeof *ids);
        uint32_t *of = calloc(slots, sizeof *of);

        if (!ids || !of) {
                free(ids);
                free(of);
                return -ENOMEM;
        }
        free(p->slot_id);
        free(p->slot_of);
        p->slot_id = ids;
        p->slot_of = of;
        p->slots = slots;
        for (size_t i = 0; i < p->n; i++) {
                size_t s = slot_hash(p->id[i], slots);
                while (ids[s])
                        s = (s + 1) & (slots - 1);
                ids[s] = p->id[i];
                of[s] = (uint32_t) i;
        }
        return 0;
}

#define GROW(ptr, cap) do { \
                void *g_ = realloc((ptr), (cap) * sizeof *(ptr)); \
                if (!g_) \
                        return -ENOMEM; \
                (ptr) = g_; \
        } while (0)

/* The dense index of player id, added with a new player's state if new. */
static int players_get(struct players *p, int64_t id, const struct rw_context *ctx, bool history) {
        int i = players_find(p, id);

        if (i >= 0)
                return i;
        if (p->n == p->cap) {
                size_t cap = p->cap ? 2 * p->cap : 256;
                GROW(p->id, cap);
                GROW(p->st, cap);
                GROW(p->touched, cap);
                if (history) {
                        GROW(p->hos, cap);
                        GROW(p->hg2, cap);
                }
                p->cap = cap;
        }
        if (2 * (p->n + 1) > p->slots && players_reindex(p, p->slots ? 2 * p->slots : 1024) < 0)
                return -ENOMEM;
        i = (int) p->n++;
        p->id[i] = id;
        tour_rating_state_init(&ctx->os, &ctx->g2, &p->st[i]);
        p->touched[i] = false;
        if (history) {
                p->hos[i] = (struct vec_os) { 0 };
                p->hg2[i] = (struct vec_g2) { 0 };
        }
        size_t s = slot_hash(id, p->slots);
        while (p->slot_id[s])
                s = (s + 1) & (p->slots - 1);
        p->slot_id[s] = id;
        p->slot_of[s] = (uint32_t) i;
        return i;
}

static int push_os(struct vec_os *v, const struct store_history_os *e) {
        if (v->n == v->cap) {
                size_t cap = v->cap ? 2 * v->cap : 16;
                GROW(v->v, cap);
                v->cap = cap;
        }
        v->v[v->n++] = *e;
        return 0;
}

static int push_g2(struct vec_g2 *v, const struct store_history_g2 *e) {
        if (v->n == v->cap) {
                size_t cap = v->cap ? 2 * v->cap : 16;
                GROW(v->v, cap);
                v->cap = cap;
        }
        v->v[v->n++] = *e;
        return 0;
}

static struct tour_rating_state state_of_row(const struct store_rating_row *row) {
        return (struct tour_rating_state) {
                .os = { .mu = row->mu, .sigma = row->sigma },
                .os_games = (unsigned) row->games,
                .g2 = { .rating = row->g2_rating, .rd = row->g2_rd, .vol = row->g2_volatility },
                .g2_games = (unsigned) row->g2_games,
        };
}

static struct store_rating_row row_of_state(int64_t player, const struct tour_rating_state *s) {
        return (struct store_rating_row) {
                .player = player,
                .mu = s->os.mu,
                .sigma = s->os.sigma,
                .games = (int32_t) s->os_games,
                .g2_rating = s->g2.rating,
                .g2_rd = s->g2.rd,
                .g2_volatility = s->g2.vol,
                .g2_games = (int32_t) s->g2_games,
        };
}

/* ---- one table --------------------------------------------------------------------- */

/* A result whose players the table takes: one seat or more, every player
 * an id.  Its players are in the table (a row each, a new player's rating
 * when nothing rated them) even when the systems skip or refuse it, in the
 * step and in the recompute alike. */
static bool has_players(const struct store_rated_result *res) {
        if (res->n < 1)
                return false;
        for (int k = 0; k < res->n; k++)
                if (res->player[k] < 1)
                        return false;
        return true;
}

/* What reading a table's results gave. */
struct pass {
        uint64_t read;                  /* results read */
        uint64_t rejected;              /* malformed or refused by the systems, skipped */
        int64_t first_rejected;
        bool has_last;
        struct store_rating_key last;
};

/* Applies result res to the players in p (all present), keeping history
 * entries when keep (a recompute from a place: entries from it on). */
static int apply(struct players *p, const struct rw_context *ctx, const struct store_rated_result *res,
                 bool keep, struct pass *pass) {
        struct tour_rating_state *ptr[TOUR_MAX_SEATS];
        int idx[TOUR_MAX_SEATS];
        struct tour_result tr = { .round = 1 };
        struct tour_rating_step step;
        int r;

        pass->read++;
        pass->has_last = true;
        pass->last = res->key;
        if (!has_players(res))
                goto rejected;
        tr.n = res->n;
        for (int k = 0; k < res->n; k++) {
                idx[k] = players_find(p, res->player[k]);
                p->touched[idx[k]] = true;
                tr.rank[k] = res->rank[k];
                tr.forfeit[k] = res->forfeit[k];
        }
        for (int k = 0; k < res->n; k++)
                ptr[k] = &p->st[idx[k]];
        r = tour_ratings_step(&ctx->os, &ctx->g2, &tr, ptr, &step);
        if (r < 0)
                goto rejected;
        if (!step.rated)
                return 0;
        for (int k = 0; k < res->n; k++) {
                int i = idx[k];
                if (!keep)
                        continue;
                if (step.rated & TOUR_RATED_OPENSKILL) {
                        struct store_history_os e = {
                                .match = res->key.id, .at_us = res->key.at_us,
                                .mu_before = step.before[k].os.mu, .sigma_before = step.before[k].os.sigma,
                                .mu = p->st[i].os.mu, .sigma = p->st[i].os.sigma,
                        };
                        if (push_os(&p->hos[i], &e) < 0)
                                return -ENOMEM;
                }
                if (step.rated & TOUR_RATED_GLICKO2) {
                        struct store_history_g2 e = {
                                .match = res->key.id, .at_us = res->key.at_us,
                                .rating_before = step.before[k].g2.rating, .rd_before = step.before[k].g2.rd,
                                .volatility_before = step.before[k].g2.vol,
                                .rating = p->st[i].g2.rating, .rd = p->st[i].g2.rd, .volatility = p->st[i].g2.vol,
                        };
                        if (push_g2(&p->hg2[i], &e) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
rejected:
        if (pass->rejected++ == 0)
                pass->first_rejected = res->key.id;
        return 0;
}

/* Every player's state as rows (only the touched ones when touched_only). */
static int write_rows(struct rw_context *ctx, const struct store_rating_table *t, const struct players *p,
                      bool touched_only) {
        struct store_rating_row *rows = calloc(p->n + 1, sizeof *rows);
        size_t n = 0;
        int r;

        if (!rows)
                return -ENOMEM;
        for (size_t i = 0; i < p->n; i++)
                if (!touched_only || p->touched[i])
                        rows[n++] = row_of_state(p->id[i], &p->st[i]);
        r = touched_only && n == 0 ? 0 : store_ratings_rows_write(ctx->conn, t, rows, n, !touched_only);
        free(rows);
        return r;
}

static int write_history(struct rw_context *ctx, const char *game, const struct players *p, bool fresh) {
        struct store_player_history *h = calloc(p->n + 1, sizeof *h);
        size_t n = 0;
        int r;

        if (!h)
                return -ENOMEM;
        for (size_t i = 0; i < p->n; i++)
                if (p->hos[i].n || p->hg2[i].n)
                        h[n++] = (struct store_player_history) {
                                .player = p->id[i], .n_os = p->hos[i].n, .os = p->hos[i].v,
                                .n_g2 = p->hg2[i].n, .g2 = p->hg2[i].v,
                        };
        r = n ? store_ratings_history_append(ctx->conn, game, h, n, fresh) : 0;
        free(h);
        return r;
}

/* Adds every player of buf[0..n) to p; with load, the ones p did not know
 * get their stored row of t (a new player's state when there is none). */
static int gather(struct rw_context *ctx, const struct store_rating_table *t, struct players *p,
                  const struct store_rated_result *buf, size_t n, bool load, bool history) {
        int64_t *want = NULL;
        size_t n_want = 0;
        int r = 0;

        if (load && !(want = calloc(n * TOUR_MAX_SEATS + 1, sizeof *want)))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                for (int k = 0; has_players(&buf[i]) && k < buf[i].n; k++) {
                        if (players_find(p, buf[i].player[k]) >= 0)
                                continue;
                        if (players_get(p, buf[i].player[k], ctx, history) < 0) {
                                free(want);
                                return -ENOMEM;
                        }
                        if (load)
                                want[n_want++] = buf[i].player[k];
                }
        if (n_want) {
                struct store_rating_row *rows = calloc(n_want, sizeof *rows);
                bool *found = calloc(n_want, sizeof *found);

                r = rows && found ? store_ratings_rows(ctx->conn, t, want, n_want, rows, found) : -ENOMEM;
                for (size_t k = 0; r >= 0 && k < n_want; k++)
                        if (found[k])
                                p->st[players_find(p, want[k])] = state_of_row(&rows[k]);
                free(rows);
                free(found);
        }
        free(want);
        return r < 0 ? r : 0;
}

/* Reads t's results after after (NULL: all) and applies them: a recompute
 * (all, p empty, from: where history entries start, NULL: everywhere) or a
 * catch-up (load: players from their stored rows). */
static int pass_results(struct rw_context *ctx, const struct store_rating_table *t, struct players *p,
                        const struct store_rating_key *after, bool load, bool history,
                        const struct store_rating_key *from, struct pass *pass) {
        struct store_rated_result *buf = malloc(RW_FETCH * sizeof *buf);
        int r, n;

        memset(pass, 0, sizeof *pass);
        if (!buf)
                return -ENOMEM;
        r = store_ratings_results_open(ctx->conn, t, after);
        while (r >= 0 && (n = r = store_ratings_results_next(ctx->conn, buf, RW_FETCH)) > 0) {
                r = gather(ctx, t, p, buf, (size_t) n, load, history);
                for (int i = 0; r >= 0 && i < n; i++)
                        r = apply(p, ctx, &buf[i], history && (!from || store_rating_key_cmp(&buf[i].key, from) >= 0),
                                  pass);
                if (n < RW_FETCH)
                        break;          /* that was the last: no round trip for an empty one */
        }
        if (r >= 0)
                r = store_ratings_results_close(ctx->conn);
        free(buf);
        return r;
}

static void note(struct rw_outcome *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct rw_outcome *out, const char *fmt, ...) {
        size_t used = strlen(out->message);
        va_list ap;

        if (used + 3 >= sizeof out->message)
                return;
        if (used)
                used += (size_t) snprintf(out->message + used, sizeof out->message - used, "; ");
        va_start(ap, fmt);
        vsnprintf(out->message + used, sizeof out->message - used, fmt, ap);
        va_end(ap);
}

static void note_rejected(struct rw_outcome *out, const struct store_rating_table *t, const struct pass *pass) {
        if (pass->rejected)
                note(out, "%s%s%s%s: %" PRIu64 " result(s) could not be rated and were skipped (the first: stage "
                     "match %" PRId64 "; docs/ratings.md, \"Rules\")", t->game, t->season ? " season " : "",
                     t->season ? t->from : "", t->season ? (t->has_to ? t->to : "…") : "", pass->rejected,
                     pass->first_rejected);
}

/* Recomputes table t: every result replayed from the start; for the
 * all-time table the history is rewritten from place from on (NULL: all of
 * it).  0 or -errno. */
static int recompute(struct rw_context *ctx, const struct store_rating_table *t, const struct store_rating_key *from,
                     struct rw_outcome *out) {
        struct players p = { 0 };
        struct pass pass;
        bool history = !t->season;
        double t0 = now_s();
        int r;

        r = pass_results(ctx, t, &p, NULL, false, history, from, &pass);
        if (r >= 0 && history)
                r = store_ratings_history_cut(ctx->conn, t->game, from);
        double t1 = now_s();
        if (r >= 0 && history)
                r = write_history(ctx, t->game, &p, !from);
        double t2 = now_s();
        if (r >= 0)
                r = write_rows(ctx, t, &p, false);
        if (r >= 0)
                r = store_ratings_table_done(ctx->conn, t, ctx->params, pass.has_last ? &pass.last : NULL,
                                             (int64_t) pass.read);
        players_free(&p);
        if (r < 0)
                return r;
        note_rejected(out, t, &pass);
        out->recomputes++;
        out->results = pass.read;
        out->seconds = now_s() - t0;
        out->changed = true;
        char season[48] = "";
        if (t->season)
                snprintf(season, sizeof season, " (season %s to %s)", t->has_from ? t->from : "the start",
                         t->has_to ? t->to : "now");
        snprintf(out->detail, sizeof out->detail, "the ratings of %s%s recomputed%s: %" PRIu64 " results in %.2f s "
                 "(read, rated and the old history cut %.2f s, history written %.2f s, rows %.2f s)", t->game, season,
                 from ? " from a changed result's place" : "", pass.read, out->seconds, t1 - t0, t2 - t1,
                 now_s() - t2);
        return 0;
}

/* Takes t's results after its place, a step each, from the stored rows of
 * their players. */
static int catch_up(struct rw_context *ctx, const struct store_rating_table *t, struct rw_outcome *out) {
        struct players p = { 0 };
        struct pass pass;
        bool history = !t->season;
        int r;

        r = pass_results(ctx, t, &p, t->has_through ? &t->through : NULL, true, history, NULL, &pass);
        if (r >= 0 && pass.read > 0) {
                if (history)
                        r = write_history(ctx, t->game, &p, false);
                if (r >= 0)
                        r = write_rows(ctx, t, &p, true);
                if (r >= 0)
                        r = store_ratings_table_done(ctx->conn, t, ctx->params, &pass.last,
                                                     t->results + (int64_t) pass.read);
                if (r >= 0) {
                        note_rejected(out, t, &pass);
                        out->steps++;
                        out->changed = true;
                }
        }
        players_free(&p);
        return r;
}

/* Whether result id, heard of, came in behind the all-time table's place
 * without being taken: a result recorded in the same instant as another
 * on a second connection, committed after it.  Only a result that rates
 * somebody can tell (it is in its first player's history once taken); one
 * that rates nobody changes no rating anyway, and the count check of the
 * next start sets the count right. */
static int came_in_behind(struct rw_context *ctx, const struct store_rating_table *all, int64_t id,
                          struct store_rating_key *ret_key) {
        struct store_rated_result res;
        struct tour_rating_state st[TOUR_MAX_SEATS], *ptr[TOUR_MAX_SEATS];
        struct tour_result tr = { .round = 1 };
        struct tour_rating_step step;
        int r = store_ratings_result(ctx->conn, all->game, id, &res);

        if (r <= 0)
                return r;
        if (!all->has_through || store_rating_key_cmp(&res.key, &all->through) > 0 || res.n < 1)
                return 0;
        tr.n = res.n;
        for (int k = 0; k < res.n; k++) {
                tour_rating_state_init(&ctx->os, &ctx->g2, &st[k]);
                ptr[k] = &st[k];
                tr.rank[k] = res.rank[k];
                tr.forfeit[k] = res.forfeit[k];
                if (res.player[k] < 1)
                        return 0;
        }
        if (tour_ratings_step(&ctx->os, &ctx->g2, &tr, ptr, &step) < 0 || !(step.rated & TOUR_RATED_OPENSKILL))
                return 0;
        r = store_ratings_in_history(ctx->conn, all->game, res.player[0], id);
        if (r != 0)
                return r < 0 ? r : 0;
        *ret_key = res.key;
        return 1;
}

static bool season_matches(const struct store_rating_table *t, const struct rw_season *s) {
        return t->season && strcmp(t->from, s->from) == 0 && strcmp(t->to, s->to) == 0;
}

/* Whether a change at place from (NULL: the start) reaches table t: it
 * holds a result from that place on. */
static bool reaches(const struct store_rating_table *t, const struct store_rating_key *from) {
        return !from || !t->has_to || from->at_us < t->to_us;
}

/* The tables of the game, with the all-time one created when missing:
 * *ret_all points into *ret. */
static int tables(struct rw_context *ctx, const char *game, struct store_rating_table **ret,
                  struct store_rating_table **ret_all) {
        int n = store_ratings_tables(ctx->conn, game, ret);

        if (n >= 0 && (n == 0 || (*ret)[0].season)) {
                free(*ret);
                *ret = NULL;
                n = store_ratings_table_add(ctx->conn, game, NULL, NULL, ctx->params);
                if (n >= 0)
                        n = store_ratings_tables(ctx->conn, game, ret);
        }
        if (n > 0 && !(*ret)[0].season)
                *ret_all = &(*ret)[0];
        else if (n >= 0) {
                free(*ret);
                *ret = NULL;
                return -EIO;
        }
        return n;
}

/* Whether table t still holds the count of results it read. */
static int count_holds(struct rw_context *ctx, const struct store_rating_table *t) {
        int64_t n = store_ratings_count(ctx->conn, t, t->has_through ? &t->through : NULL);

        return n < 0 ? (int) n : n == t->results;
}

/* The game's tables, in one transaction: the all-time one and the seasons
 * already asked for. */
static int process_tables(struct rw_context *ctx, const struct rw_job *job, struct rw_outcome *out) {
        struct store_rating_table *t = NULL, *all = NULL;
        struct store_rating_key mark = { 0 }, from = { 0 };
        bool any_mark, mark_start, stale = false, from_start = false;
        char *ids = NULL;
        int n, r;

        n = r = tables(ctx, job->game, &t, &all);
        if (r >= 0)
                r = store_ratings_dirty(ctx->conn, job->game, &any_mark, &mark_start, &mark, &ids);
        if (r < 0)
                goto done;
        /* where the all-time table is stale from */
        if (job->full || !all->ready || strcmp(all->params, ctx->params) != 0 || (any_mark && mark_start)) {
                stale = from_start = true;
        } else {
                if (any_mark) {
                        stale = true;
                        from = mark;
                }
                for (size_t i = 0; i < job->n_verify; i++) {
                        struct store_rating_key k;
                        r = came_in_behind(ctx, all, job->verify[i], &k);
                        if (r < 0)
                                goto done;
                        if (r > 0 && (!stale || store_rating_key_cmp(&k, &from) < 0)) {
                                note(out, "%s: stage match %" PRId64 " came in behind the ratings' place in the "
                                     "order: recomputed from it", job->game, job->verify[i]);
                                stale = true;
                                from = k;
                        }
                }
                if (!stale && job->verify_counts) {
                        r = count_holds(ctx, all);
                        if (r < 0)
                                goto done;
                        if (r == 0) {
                                note(out, "%s: the results up to the ratings' place are not the ones they read: "
                                     "recomputed", job->game);
                                stale = from_start = true;
                        }
                }
        }
        for (int i = 0; i < n; i++) {
                struct store_rating_table *x = &t[i];
                bool redo = !x->season ? stale
                                       : job->full || !x->ready || strcmp(x->params, ctx->params) != 0 ||
                                         (stale && reaches(x, from_start ? NULL : &from));
                /* a season not computed yet is process_season()'s, for
                 * the request that asked for it */
                if (x->season && !x->ready)
                        continue;
                if (!redo && x->season && job->verify_counts) {
                        r = count_holds(ctx, x);
                        if (r < 0)
                                goto done;
                        redo = r == 0;
                }
                if (redo)
                        r = recompute(ctx, x, x->season || from_start ? NULL : &from, out);
                else
                        r = catch_up(ctx, x, out);
                if (r < 0)
                        goto done;
        }
        if (any_mark)
                r = store_ratings_dirty_clear(ctx->conn, ids);
done:
        free(ids);
        free(t);
        return r;
}

/* The season asked for, computed in a transaction of its own (so that a
 * long one does not hold back the all-time table). */
static int process_season(struct rw_context *ctx, const struct rw_job *job, struct rw_outcome *out) {
        struct store_rating_table *t = NULL, *all = NULL;
        const struct rw_season *s = &job->season;
        int n = 0, r;

        r = store_ratings_table_add(ctx->conn, job->game, s->from[0] ? s->from : NULL, s->to[0] ? s->to : NULL,
                                    ctx->params);
        if (r > 0)
                r = store_ratings_seasons_trim(ctx->conn, job->game, ORG_RATINGS_SEASONS);
        if (r >= 0)
                r = n = tables(ctx, job->game, &t, &all);
        for (int i = 0; r >= 0 && i < n; i++) {
                if (!season_matches(&t[i], s))
                        continue;
                if (!t[i].ready || strcmp(t[i].params, ctx->params) != 0)
                        r = recompute(ctx, &t[i], NULL, out);
                if (r >= 0) {
                        out->season_ready = true;
                        out->season_table = t[i].id;
                }
        }
        free(t);
        return r;
}

static void failed(struct rw_context *ctx, int r, const char *game, struct rw_outcome *out) {
        out->changed = false;
        out->season_ready = false;
        if (r == -ENOTCONN) {
                out->retry = true;
                note(out, "the ratings of %s wait for the database: %s", game, store_ratings_error(ctx->conn));
        } else {
                out->failed = true;
                note(out, "the ratings of %s could not be written: %s", game,
                     r == -ENOMEM ? "out of memory" : store_ratings_error(ctx->conn));
        }
}

void rw_process(struct rw_context *ctx, const struct rw_job *job, struct rw_outcome *out) {
        int r;

        memset(out, 0, sizeof *out);
        if (job->check || job->full || job->n_verify || job->verify_counts) {
                r = store_ratings_begin(ctx->conn);
                if (r >= 0)
                        r = process_tables(ctx, job, out);
                if (r >= 0)
                        r = store_ratings_commit(ctx->conn);
                if (r < 0) {
                        store_ratings_rollback(ctx->conn);
                        failed(ctx, r, job->game, out);
                        return;
                }
        }
        if (job->want_season) {
                bool changed = out->changed;
                r = store_ratings_begin(ctx->conn);
                if (r >= 0)
                        r = process_season(ctx, job, out);
                if (r >= 0)
                        r = store_ratings_commit(ctx->conn);
                if (r < 0) {
                        store_ratings_rollback(ctx->conn);
                        failed(ctx, r, job->game, out);
                        out->changed = changed;
                }
        }
}

int rw_all_games(struct rw_context *ctx, char ***ret_games, struct rw_outcome *out) {
        char **unknown = NULL;
        int r;

        memset(out, 0, sizeof *out);
        r = store_ratings_dirty_unknown(ctx->conn, &unknown);
        if (r >= 0) {
                for (int i = 0; i < r; i++)
                        free(unknown[i]);
                free(unknown);
                r = store_ratings_games(ctx->conn, ret_games);
        }
        if (r < 0)
                failed(ctx, r, "every game", out);
        return r;
}
