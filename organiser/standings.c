/* organiser/standings.c — the standings' cache and reads, brackets, and
 * adding a stage.  See standings.h. */
#include "organiser/standings.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "organiser/ratings.h"
#include "store/stages.h"
#include "tournament/play.h"

/* Times a stage is added again after the tournament changed under the
 * first attempt (a move, another stage) before the call gives up. */
#define STAGE_ADD_TRIES 4

static enum tour_stage_state state_of(enum store_stage_state s) {
        return s == STORE_STAGE_FINISHED ? TOUR_STAGE_FINISHED
               : s == STORE_STAGE_RUNNING ? TOUR_STAGE_RUNNING : TOUR_STAGE_PENDING;
}

/* The stage of t numbered number, or the current one (number 0): NULL when
 * there is none. */
static const struct store_stage_row *pick(const struct store_stages_row *t, int number) {
        enum tour_stage_state *states;
        int at;

        if (number > 0) {
                for (size_t i = 0; i < t->n_stages; i++)
                        if (t->stages[i].number == number)
                                return &t->stages[i];
                return NULL;
        }
        if (!(states = calloc(t->n_stages + 1, sizeof *states)))
                return NULL;
        for (size_t i = 0; i < t->n_stages; i++)
                states[i] = state_of(t->stages[i].state);
        at = tour_play_current_stage(states, t->n_stages);
        free(states);
        return at < 0 ? NULL : &t->stages[at];
}

/* ---- the refresh -------------------------------------------------------------- */

struct refresh {
        struct store *store;
        int64_t tournament;
        org_standings_changed_fn changed;
        void *userdata;
        int *numbers;                   /* the started stages, in number order */
        size_t n, next;
};

static void refresh_free(struct refresh *c) {
        free(c->numbers);
        free(c);
}

static void refresh_next(struct refresh *c);

static void on_written(void *userdata, const struct store_stages_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct refresh *c = userdata;

        if (failure)
                log_warning("the standings of tournament %" PRId64 " could not be written: %s", c->tournament, error);
        else if (n == 1 && rows[0].n_stages == 1 && c->changed)
                c->changed(c->userdata, c->tournament, rows[0].stages[0].number);
        refresh_next(c);
}

static void on_stage(void *userdata, const struct org_result *result, struct org_stage *d) {
        struct refresh *c = userdata;
        char err[ORG_DETAIL_MAX], *text = NULL;
        json_t *st = NULL;
        int r = -EINVAL;

        if (result->outcome != ORG_DONE) {
                log_warning("the standings of tournament %" PRId64 " could not be refreshed: %s", c->tournament,
                            result->detail ? result->detail : result->error ? result->error : "no stage");
                refresh_next(c);
                return;
        }
        st = org_stage_standings_json(d, err, sizeof err);
        if (!st)
                log_warning("the standings of tournament %" PRId64 " stage %d: %s", c->tournament, d->number, err);
        else if ((text = json_dumps(st, JSON_COMPACT)))
                r = store_stages_set_standings(c->store, d->stage, text, on_written, c);
        free(text);
        json_decref(st);
        org_stage_free(d);
        if (r < 0)
                refresh_next(c);
}

static void refresh_next(struct refresh *c) {
        while (c->next < c->n) {
                int number = c->numbers[c->next++];
                if (org_stage_load(c->store, c->tournament, number, on_stage, c) >= 0)
                        return;
        }
        refresh_free(c);
}

struct refresh_start {
        struct refresh *c;
        struct org_ratings *ratings;
};

static void on_stages_to_refresh(void *userdata, const struct store_stages_row *rows, size_t n,
                                 const struct store_error *failure, const char *error) {
        struct refresh_start *rs = userdata;
        struct refresh *c = rs->c;
        struct org_ratings *ratings = rs->ratings;

        free(rs);
        if (failure || n == 0) {
                log_warning("tournament %" PRId64 " could not be refreshed: %s", c->tournament,
                            failure ? error : "no such tournament");
                refresh_free(c);
                return;
        }
        /* the worker hears of every result itself (the database's trigger):
         * only a recompute is asked of it */
        if (ratings && rows[0].game[0])
                org_ratings_recompute(ratings, rows[0].game);
        c->numbers = calloc(rows[0].n_stages + 1, sizeof *c->numbers);
        if (!c->numbers) {
                refresh_free(c);
                return;
        }
        for (size_t i = 0; i < rows[0].n_stages; i++)
                if (rows[0].stages[i].state != STORE_STAGE_PENDING)
                        c->numbers[c->n++] = rows[0].stages[i].number;
        refresh_next(c);
}

int org_standings_refresh(struct store *s, struct org_ratings *ratings, int64_t tournament,
                          org_standings_changed_fn changed, void *userdata) {
        struct refresh *c = calloc(1, sizeof *c);
        struct refresh_start *rs = calloc(1, sizeof *rs);
        int r;

        if (!c || !rs) {
                free(c);
                free(rs);
                return -ENOMEM;
        }
        *c = (struct refresh) { .store = s, .tournament = tournament, .changed = changed, .userdata = userdata };
        *rs = (struct refresh_start) { .c = c, .ratings = ratings };
        r = store_stages_of(s, tournament, false, on_stages_to_refresh, rs);
        if (r < 0) {
                free(rs);
                refresh_free(c);
        }
        return r;
}

/* ---- reads ---------------------------------------------------------------------- */

struct read {
        struct store *store;
        int64_t tournament;
        int stage;
        bool recompute, bracket;
        union {
                org_standings_fn standings;
                org_bracket_fn bracket;
        } cb;
        void *userdata;
};

static void read_end(struct read *c, const struct org_result *r) {
        if (c->bracket)
                c->cb.bracket(c->userdata, r, NULL, NULL);
        else
                c->cb.standings(c->userdata, r, NULL);
        free(c);
}

__attribute__((format(printf, 3, 4)))
static void read_end_with(struct read *c, enum org_outcome outcome, const char *fmt, ...) {
        char detail[ORG_DETAIL_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        read_end(c, &(struct org_result) { .outcome = outcome, .detail = detail });
}

static void read_unqueued(struct read *c, int r) {
        struct store_error e;
        struct org_result res = org_result_unqueued(r, &e);

        read_end(c, &res);
}

static void no_such_stage(struct read *c) {
        read_end_with(c, ORG_NOT_FOUND, "tournament %" PRId64 " has no such stage", c->tournament);
}

static void on_bracket_stage(struct read *c, struct org_stage *d) {
        struct tour_stage_bracket_view v = { 0 };
        struct tour_stage_error e = { "" };

        if (!tour_format_bracket(d->cfg.format)) {
                read_end_with(c, ORG_CONFLICT, "stage %d is %s: only elimination stages have a bracket; see "
                              ".../standings", d->number, tour_format_name(d->cfg.format));
        } else if (d->state == TOUR_STAGE_PENDING) {
                read_end_with(c, ORG_CONFLICT, "stage %d has not started: its bracket is drawn when it starts",
                              d->number);
        } else if (tour_stage_bracket(&d->in, &v, &e) < 0) {
                read_end_with(c, ORG_INTERNAL, "the bracket cannot be resolved: %s", e.text);
        } else {
                c->cb.bracket(c->userdata, &(struct org_result) { .outcome = ORG_DONE }, d, &v);
                free(c);
        }
        tour_stage_bracket_free(&v);
        org_stage_free(d);
}

static void on_read_stage(void *userdata, const struct org_result *result, struct org_stage *d) {
        struct read *c = userdata;
        char err[ORG_DETAIL_MAX - 40];
        json_t *st;

        if (result->outcome == ORG_NOT_FOUND) {
                no_such_stage(c);
                return;
        }
        if (result->outcome != ORG_DONE) {
                read_end(c, result);
                return;
        }
        if (c->bracket) {
                on_bracket_stage(c, d);
                return;
        }
        st = org_stage_standings_json(d, err, sizeof err);
        org_stage_free(d);
        if (!st) {
                read_end_with(c, ORG_INTERNAL, "the standings cannot be computed: %s", err);
                return;
        }
        c->cb.standings(c->userdata, &(struct org_result) { .outcome = ORG_DONE }, st);
        json_decref(st);
        free(c);
}

static void on_read_stages(void *userdata, const struct store_stages_row *rows, size_t n,
                           const struct store_error *failure, const char *error) {
        struct read *c = userdata;
        const struct store_stage_row *s;
        json_t *cached;
        int r;

        if (failure) {
                read_end(c, &(struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure,
                                                   .error = error });
                return;
        }
        if (n == 0 || !(s = pick(&rows[0], c->stage))) {
                no_such_stage(c);
                return;
        }
        cached = !c->bracket && !c->recompute && s->standings ? json_loads(s->standings, 0, NULL) : NULL;
        if (json_is_object(cached)) {
                c->cb.standings(c->userdata, &(struct org_result) { .outcome = ORG_DONE }, cached);
                json_decref(cached);
                free(c);
                return;
        }
        json_decref(cached);
        r = org_stage_load(c->store, c->tournament, s->number, on_read_stage, c);
        if (r < 0)
                read_unqueued(c, r);
}

static int read_start(struct read *c) {
        int r = store_stages_of(c->store, c->tournament, !c->bracket, on_read_stages, c);

        if (r < 0)
                free(c);
        return r;
}

int org_standings_get(struct store *s, int64_t tournament, int stage, bool recompute, org_standings_fn cb,
                      void *userdata) {
        struct read *c = calloc(1, sizeof *c);

        if (!c)
                return -ENOMEM;
        *c = (struct read) { .store = s, .tournament = tournament, .stage = stage, .recompute = recompute,
                             .cb.standings = cb, .userdata = userdata };
        return read_start(c);
}

int org_bracket_get(struct store *s, int64_t tournament, int stage, org_bracket_fn cb, void *userdata) {
        struct read *c = calloc(1, sizeof *c);

        if (!c)
                return -ENOMEM;
        *c = (struct read) { .store = s, .tournament = tournament, .stage = stage, .bracket = true,
                             .cb.bracket = cb, .userdata = userdata };
        return read_start(c);
}

/* ---- adding a stage --------------------------------------------------------------- */

struct add {
        struct store *store;
        int64_t tournament;
        struct store_stage_new stage;
        char *format, *config, *confirm;
        bool has_seed;
        int tries;
        org_stage_added_fn cb;
        void *userdata;
};

static void add_free(struct add *c) {
        free(c->format);
        free(c->config);
        free(c->confirm);
        free(c);
}

static void add_end(struct add *c, const struct org_result *r, const struct store_stage_row *stage) {
        c->cb(c->userdata, r, stage);
        add_free(c);
}

static int add_try(struct add *c);

static void on_added(void *userdata, const struct store_stages_row *rows, size_t n,
                     const struct store_error *failure, const char *error) {
        struct add *c = userdata;
        struct store_error e;
        struct org_result r;
        int q;

        if (failure) {
                add_end(c, &(struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error },
                        NULL);
                return;
        }
        if (n == 1 && rows[0].n_stages == 1) {
                add_end(c, &(struct org_result) { .outcome = ORG_DONE }, &rows[0].stages[0]);
                return;
        }
        /* the tournament moved between the facts and the insert: judge again */
        if (++c->tries >= STAGE_ADD_TRIES) {
                add_end(c, &(struct org_result) { .outcome = ORG_CONFLICT,
                                                  .detail = "the tournament changed meanwhile; try again" }, NULL);
                return;
        }
        if ((q = add_try(c)) < 0) {
                r = org_result_unqueued(q, &e);
                add_end(c, &r, NULL);
        }
}

static void on_add_facts(void *userdata, const struct store_stages_row *rows, size_t n,
                         const struct store_error *failure, const char *error) {
        struct add *c = userdata;
        char detail[ORG_DETAIL_MAX];
        enum tour_state state;
        struct store_error e;
        struct org_result r;
        int q;

        if (failure) {
                add_end(c, &(struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error },
                        NULL);
                return;
        }
        if (n == 0) {
                snprintf(detail, sizeof detail, "there is no tournament %" PRId64, c->tournament);
                add_end(c, &(struct org_result) { .outcome = ORG_NOT_FOUND, .detail = detail }, NULL);
                return;
        }
        if (tour_state_from_name(rows[0].state, &state) < 0) {
                add_end(c, &(struct org_result) { .outcome = ORG_INTERNAL,
                                                  .detail = "the tournament's state is unknown" }, NULL);
                return;
        }
        switch (tour_play_stage_add(state, rows[0].competitive, c->has_seed)) {
        case TOUR_STAGE_ADD_SEED_CHOSEN:
                add_end(c, &(struct org_result) { .outcome = ORG_CONFLICT,
                                                  .detail = "config.seed: a competitive tournament's draws come "
                                                            "from its secret, so that nobody can choose them; "
                                                            "leave the seed out (docs/fairness.md)" }, NULL);
                return;
        case TOUR_STAGE_ADD_FINISHED:
                add_end(c, &(struct org_result) { .outcome = ORG_CONFLICT,
                                                  .detail = "the tournament is finished: reopen it (state "
                                                            "running) to add a stage" }, NULL);
                return;
        case TOUR_STAGE_ADD_ALLOWED:
                break;
        }
        q = store_stages_insert(c->store, c->tournament, rows[0].state, rows[0].competitive, &c->stage, on_added, c);
        if (q < 0) {
                r = org_result_unqueued(q, &e);
                add_end(c, &r, NULL);
        }
}

static int add_try(struct add *c) {
        return store_stages_of(c->store, c->tournament, false, on_add_facts, c);
}

int org_stage_add(struct store *s, int64_t tournament, const struct org_stage_new *stage, org_stage_added_fn cb,
                  void *userdata) {
        struct add *c;
        int r;

        if (!stage->format || !stage->config || stage->advance < 0)
                return -EINVAL;
        if (!(c = calloc(1, sizeof *c)))
                return -ENOMEM;
        *c = (struct add) { .store = s, .tournament = tournament, .has_seed = stage->config_has_seed, .cb = cb,
                            .userdata = userdata };
        c->format = strdup(stage->format);
        c->config = strdup(stage->config);
        c->confirm = stage->confirm ? strdup(stage->confirm) : NULL;
        if (!c->format || !c->config || (stage->confirm && !c->confirm)) {
                add_free(c);
                return -ENOMEM;
        }
        c->stage = (struct store_stage_new) { .format = c->format, .config = c->config, .advance = stage->advance,
                                              .confirm = c->confirm };
        r = add_try(c);
        if (r < 0)
                add_free(c);
        return r;
}
