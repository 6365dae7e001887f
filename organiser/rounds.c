/* organiser/rounds.c — pairing the next round.  See rounds.h.
 *
 * The call is a walk: the tournament's stages (store_stages_of), the
 * current one's snapshot (org_stage_load), then either the round stored,
 * or the stage started or finished and the walk taken again from the
 * stages.  A write that found its stage changed meanwhile (another
 * organiser started or finished it, a player checked in) changes nothing,
 * and the walk goes on from what is now stored.
 */
#include "organiser/rounds.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "organiser/stage.h"
#include "store/stages.h"
#include "tournament/openskill.h"
#include "tournament/play.h"

/* Turns of the walk before giving up: every turn starts or finishes a
 * stage, or finds another organiser did, so a tournament has at most two
 * a stage; this is far above any real one. */
#define MAX_STAGE_HOPS 64

struct next {
        struct store *store;
        int64_t tournament;
        org_round_fn cb;
        void *userdata;
        int hops;
        enum tour_stage_state picked;   /* the current stage's state in the list */
        struct org_stage *d;            /* the current stage */
        /* starting a later stage: its id, how many go on and its format,
         * which decides how the stage before seeds it (tour_stage_advance) */
        int64_t starting;
        int advance;
        enum tour_format next_format;
        int round, repeats;
};

static void list_stages(struct next *c);

static void finish(struct next *c, const struct org_result *r, const struct org_round *made) {
        struct org_round none = { 0 };

        if (!made) {
                none.stage = c->d ? c->d->number : 0;
                none.bracket = c->d && tour_format_bracket(c->d->cfg.format);
                none.tournament_state = c->d ? c->d->tournament_state : 0;
                made = &none;
        }
        c->cb(c->userdata, r, made);
        org_stage_free(c->d);
        free(c);
}

static void finish_with(struct next *c, enum org_outcome outcome, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void finish_with(struct next *c, enum org_outcome outcome, const char *fmt, ...) {
        char detail[ORG_DETAIL_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        finish(c, &(struct org_result) { .outcome = outcome, .detail = detail }, NULL);
}

static void finish_failed(struct next *c, const struct store_error *failure, const char *error) {
        finish(c, &(struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error }, NULL);
}

/* A statement that could not be queued after the first. */
static void finish_unqueued(struct next *c, int r) {
        struct store_error e;
        struct org_result res = org_result_unqueued(r, &e);

        finish(c, &res, NULL);
}

/* ---- the round ------------------------------------------------------------------ */

static void on_round_stored(void *userdata, const struct store_stage_match_row *rows, size_t n,
                            const struct store_stage_bye *byes, size_t n_byes, const struct store_error *failure,
                            const char *error) {
        struct next *c = userdata;

        if (failure) {
                finish_failed(c, failure, error);
                return;
        }
        struct org_round made = {
                .stage = c->d->number, .round = c->round, .repeats = c->repeats,
                .bracket = tour_format_bracket(c->d->cfg.format), .tournament_state = c->d->tournament_state,
                .matches = rows, .n_matches = n, .byes = byes, .n_byes = n_byes,
        };
        finish(c, &(struct org_result) { .outcome = ORG_DONE }, &made);
}

static void store_round(struct next *c, const struct tour_stage_next *next) {
        struct store_new_stage_match *rows = calloc((size_t) next->n_pairings + 1, sizeof *rows);
        int64_t *players = calloc((size_t) next->n_pairings * TOUR_MAX_SEATS + 1, sizeof *players);
        struct store_new_bye *byes = calloc((size_t) next->n_byes + 1, sizeof *byes);
        bool bracket = tour_format_bracket(c->d->cfg.format);
        int r;

        if (!rows || !players || !byes) {
                free(rows), free(players), free(byes);
                finish_with(c, ORG_INTERNAL, "out of memory");
                return;
        }
        c->round = next->round;
        c->repeats = next->repeats;
        for (int i = 0; i < next->n_pairings; i++) {
                const struct tour_stage_pairing *sp = &next->pairings[i];
                int64_t *seats = &players[(size_t) i * TOUR_MAX_SEATS];
                /* a bracket's matches are unique by their graph id */
                int table_no = bracket ? sp->bracket_id + 1 : sp->pairing.table;

                for (int k = 0; k < sp->pairing.n; k++)
                        seats[k] = c->d->players[sp->pairing.entrant[k]];
                rows[i] = (struct store_new_stage_match) {
                        .round = sp->pairing.round,
                        .table_no = table_no,
                        .bracket_id = bracket ? sp->bracket_id : -1,
                        .participants = seats,
                        .n_participants = (size_t) sp->pairing.n,
                        .table = tour_play_table(c->d->tables, c->d->n_tables, table_no),
                };
                if (sp->pairing.round > c->round)
                        c->round = sp->pairing.round;
        }
        for (int i = 0; i < next->n_byes; i++)
                byes[i] = (struct store_new_bye) { next->byes[i].round, c->d->players[next->byes[i].entrant] };
        r = store_stage_matches_insert_round(c->store, c->d->stage, rows, (size_t) next->n_pairings, byes,
                                             (size_t) next->n_byes, on_round_stored, c);
        free(rows);
        free(players);
        free(byes);
        if (r < 0)
                finish_unqueued(c, r);
}

/* The last round is not played: its matches still to be played. */
static void refuse_unfinished(struct next *c) {
        int64_t open[ORG_ROUND_LISTED];
        size_t n = 0;
        int round = 0;
        char detail[ORG_DETAIL_MAX];

        for (size_t i = 0; i < c->d->n_matches; i++)
                if (c->d->matches[i].round > round)
                        round = c->d->matches[i].round;
        for (size_t i = 0; i < c->d->n_matches && n < ORG_ROUND_LISTED; i++)
                if (!c->d->matches[i].done)
                        open[n++] = c->d->match_ids[i];
        snprintf(detail, sizeof detail, "stage %d round %d is not finished: the matches listed are still to be played",
                 c->d->number, round);
        struct org_round made = {
                .stage = c->d->number, .bracket = tour_format_bracket(c->d->cfg.format),
                .tournament_state = c->d->tournament_state, .unfinished = open, .n_unfinished = n,
        };
        finish(c, &(struct org_result) { .outcome = ORG_CONFLICT, .detail = detail }, &made);
}

/* ---- starting and finishing stages ------------------------------------------- */

static void on_marked(void *userdata, const struct store_stages_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct next *c = userdata;

        (void) rows, (void) n;
        if (failure) {
                finish_failed(c, failure, error);
                return;
        }
        /* started or finished now, or by someone else meanwhile: look again */
        if (++c->hops > MAX_STAGE_HOPS) {
                finish_with(c, ORG_INTERNAL, "the stages did not settle");
                return;
        }
        org_stage_free(c->d);
        c->d = NULL;
        list_stages(c);
}

static void on_candidates(void *userdata, const struct store_stage_candidate *rows, size_t n,
                          const struct store_error *failure, const char *error) {
        struct next *c = userdata;
        struct tour_play_candidate *cand;
        size_t *order;
        int64_t *ids;
        int r;

        if (failure) {
                finish_failed(c, failure, error);
                return;
        }
        cand = calloc(n + 1, sizeof *cand);
        order = calloc(n + 1, sizeof *order);
        ids = calloc(n + 1, sizeof *ids);
        if (!cand || !order || !ids) {
                free(cand), free(order), free(ids);
                finish_with(c, ORG_INTERNAL, "out of memory");
                return;
        }
        for (size_t i = 0; i < n; i++) {
                struct tour_os_rating os = { rows[i].mu, rows[i].sigma };
                cand[i] = (struct tour_play_candidate) { .seed = rows[i].seed,
                                                         .rating = rows[i].rated ? tour_os_ordinal(&os) : 0 };
        }
        r = tour_play_first_stage_order(cand, n, order);
        for (size_t i = 0; r == 0 && i < n; i++)
                ids[i] = rows[order[i]].player;
        if (r == 0)
                r = store_stages_start(c->store, c->d->stage, ids, n, true, on_marked, c);
        free(cand), free(order), free(ids);
        if (r < 0)
                finish_unqueued(c, r);
}

static void on_previous(void *userdata, const struct org_result *result, struct org_stage *prev) {
        struct next *c = userdata;
        struct tour_stage_error e = { "" };
        int count = 0, advance, r;
        int32_t *top;
        int64_t *ids;

        if (result->outcome != ORG_DONE) {
                if (result->outcome == ORG_NOT_FOUND)
                        finish_with(c, ORG_CONFLICT, "the previous stage is gone");
                else
                        finish(c, result, NULL);
                return;
        }
        /* everyone still active goes on unless the stage says how many */
        for (int i = 0; i < prev->n; i++)
                count += prev->entrants[i].active;
        advance = c->advance > 0 && c->advance < count ? c->advance : count;
        top = calloc((size_t) advance + 1, sizeof *top);
        ids = calloc((size_t) advance + 1, sizeof *ids);
        if (!top || !ids) {
                free(top), free(ids);
                org_stage_free(prev);
                finish_with(c, ORG_INTERNAL, "out of memory");
                return;
        }
        r = tour_stage_advance(&prev->in, advance, c->next_format, top, &e);
        if (r < 0) {
                int number = prev->number;
                free(top), free(ids);
                org_stage_free(prev);
                finish_with(c, ORG_CONFLICT, "the top %d of stage %d cannot go on: %s", advance, number,
                            e.text[0] ? e.text : strerror(-r));
                return;
        }
        for (int i = 0; i < advance; i++)
                ids[i] = prev->players[top[i]];
        org_stage_free(prev);
        r = store_stages_start(c->store, c->starting, ids, (size_t) advance, false, on_marked, c);
        free(top), free(ids);
        if (r < 0)
                finish_unqueued(c, r);
}

/* ---- the current stage ----------------------------------------------------------- */

static void on_current(void *userdata, const struct org_result *result, struct org_stage *d) {
        struct next *c = userdata;
        struct tour_stage_next next;
        struct tour_stage_error e = { "" };
        int r;

        if (result->outcome != ORG_DONE) {
                /* the stage went between the two statements: look again */
                if (result->outcome == ORG_NOT_FOUND && ++c->hops <= MAX_STAGE_HOPS)
                        list_stages(c);
                else
                        finish(c, result, NULL);
                return;
        }
        c->d = d;
        if (d->state == TOUR_STAGE_FINISHED) {
                if (c->picked != TOUR_STAGE_FINISHED && ++c->hops <= MAX_STAGE_HOPS) {
                        /* finished meanwhile: the next one is current now */
                        org_stage_free(c->d);
                        c->d = NULL;
                        list_stages(c);
                        return;
                }
                finish_with(c, ORG_CONFLICT, "every stage of this tournament is finished: add a stage (POST "
                            ".../stages) or finish the tournament");
                return;
        }
        if (!tour_state_plays(d->tournament_state)) {
                finish_with(c, ORG_CONFLICT, "the tournament is %s; rounds are paired while it is running (POST "
                            "/v1/tournaments/%" PRId64 "/state)", tour_state_name(d->tournament_state),
                            c->tournament);
                return;
        }
        if (d->state == TOUR_STAGE_PENDING) {
                if (d->number == 1) {
                        r = store_stages_candidates(c->store, c->tournament, on_candidates, c);
                } else {
                        c->starting = d->stage;
                        c->advance = d->advance;
                        c->next_format = d->cfg.format;
                        r = org_stage_load(c->store, c->tournament, d->number - 1, on_previous, c);
                }
                if (r < 0)
                        finish_unqueued(c, r);
                return;
        }
        r = tour_stage_next(&d->in, &next, &e);
        if (r == -EBUSY) {
                refuse_unfinished(c);
        } else if (r < 0) {
                finish_with(c, ORG_CONFLICT, "stage %d cannot be paired: %s", d->number,
                            e.text[0] ? e.text : strerror(-r));
        } else if (next.finished) {
                r = store_stages_finish(c->store, d->stage, on_marked, c);
                if (r < 0)
                        finish_unqueued(c, r);
        } else if (next.n_pairings == 0) {
                refuse_unfinished(c);
        } else {
                store_round(c, &next);
        }
        tour_stage_next_free(&next);
}

static enum tour_stage_state state_of(enum store_stage_state s) {
        return s == STORE_STAGE_FINISHED ? TOUR_STAGE_FINISHED
               : s == STORE_STAGE_RUNNING ? TOUR_STAGE_RUNNING : TOUR_STAGE_PENDING;
}

static void on_stages(void *userdata, const struct store_stages_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct next *c = userdata;
        enum tour_stage_state *states;
        int at, r;

        if (failure) {
                finish_failed(c, failure, error);
                return;
        }
        if (n == 0) {
                finish_with(c, ORG_NOT_FOUND, "there is no tournament %" PRId64, c->tournament);
                return;
        }
        states = calloc(rows[0].n_stages + 1, sizeof *states);
        if (!states) {
                finish_with(c, ORG_INTERNAL, "out of memory");
                return;
        }
        for (size_t i = 0; i < rows[0].n_stages; i++)
                states[i] = state_of(rows[0].stages[i].state);
        at = tour_play_current_stage(states, rows[0].n_stages);
        free(states);
        if (at < 0) {
                finish_with(c, ORG_CONFLICT, "every stage of this tournament is finished (or it has none): add a "
                            "stage (POST .../stages) or finish the tournament");
                return;
        }
        c->picked = state_of(rows[0].stages[at].state);
        r = org_stage_load(c->store, c->tournament, rows[0].stages[at].number, on_current, c);
        if (r < 0)
                finish_unqueued(c, r);
}

static void list_stages(struct next *c) {
        int r = store_stages_of(c->store, c->tournament, false, on_stages, c);

        if (r < 0)
                finish_unqueued(c, r);
}

int org_round_next(struct store *s, int64_t tournament, org_round_fn cb, void *userdata) {
        struct next *c = calloc(1, sizeof *c);
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct next) { .store = s, .tournament = tournament, .cb = cb, .userdata = userdata };
        r = store_stages_of(s, tournament, false, on_stages, c);
        if (r < 0)
                free(c);
        return r;
}
