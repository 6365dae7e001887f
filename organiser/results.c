/* organiser/results.c — calling a stage match, entering its result,
 * correcting it.  See results.h.
 *
 * Each call reads the snapshot of the match's stage (org_stage_load_of_match),
 * judges by the rules of tournament/ and writes one statement guarded by
 * the state it saw: a match that changed in between is not written, and
 * the call ends ORG_CONFLICT.
 */
#include "organiser/results.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "organiser/draws.h"
#include "store/tournaments.h"
#include "tournament/states.h"

#define CHANGED_MEANWHILE "the match changed meanwhile; GET it and retry"

/* One call in flight: the request, and what it has read so far. */
struct op {
        struct store *store;
        int64_t tournament, match;
        union {
                org_call_fn call;
                org_match_fn match;
                org_corrected_fn corrected;
        } cb;
        void *userdata;
        struct org_stage *d;
        int i;                          /* the match's index in d */
        struct org_result_entry entries[TOUR_MAX_SEATS];
        size_t n_entries;
        char *who, *reason;
        bool reset, may_delete_played;
};

static struct op *op_new(struct store *s, int64_t tournament, int64_t match, void *userdata) {
        struct op *c = calloc(1, sizeof *c);

        if (c)
                *c = (struct op) { .store = s, .tournament = tournament, .match = match, .userdata = userdata,
                                   .i = -1 };
        return c;
}

static void op_free(struct op *c) {
        if (!c)
                return;
        org_stage_free(c->d);
        free(c->who);
        free(c->reason);
        free(c);
}

/* A result in words: its detail is formatted into buf. */
__attribute__((format(printf, 4, 5)))
static struct org_result said(enum org_outcome outcome, char *buf, size_t len, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, len, fmt, ap);
        va_end(ap);
        return (struct org_result) { .outcome = outcome, .detail = buf };
}

static struct org_result failed(const struct store_error *failure, const char *error) {
        return (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };
}

/* The snapshot a load brought, with the match found in it: true, or false
 * with *ret the result to end with (detail in buf). */
static bool found(struct op *c, const struct org_result *result, struct org_stage *d, struct org_result *ret,
                  char *buf, size_t len) {
        c->d = d;
        if (result->outcome == ORG_DONE && (c->i = org_stage_match(d, c->match)) >= 0)
                return true;
        if (result->outcome == ORG_DONE || result->outcome == ORG_NOT_FOUND)
                *ret = said(ORG_NOT_FOUND, buf, len, "tournament %" PRId64 " has no match %" PRId64, c->tournament,
                            c->match);
        else
                *ret = *result;
        return false;
}

/* ---- calling ------------------------------------------------------------------ */

static void call_end(struct op *c, const struct org_result *r, const struct org_call *call) {
        c->cb.call(c->userdata, r, call);
        op_free(c);
}

static void on_next_call(void *userdata, const struct store_next_call *rows, size_t n,
                         const struct store_error *failure, const char *error) {
        struct op *c = userdata;
        const struct tour_stage_match *m = &c->d->matches[c->i];
        const char *players[TOUR_MAX_SEATS];
        char buf[ORG_DETAIL_MAX];
        struct org_result r;
        uint64_t seed;

        if (failure) {
                r = failed(failure, error);
                call_end(c, &r, NULL);
                return;
        }
        if (n == 0) {
                r = said(ORG_INTERNAL, buf, sizeof buf, "reading the tournament's secret failed: the tournament "
                         "is gone");
                call_end(c, &r, NULL);
                return;
        }
        if (org_call_seed(rows[0].secret, c->tournament, c->match, rows[0].attempt, &seed) < 0) {
                r = said(ORG_INTERNAL, buf, sizeof buf, "the tournament's secret is damaged");
                call_end(c, &r, NULL);
                return;
        }
        for (int k = 0; k < m->n; k++)
                players[k] = c->d->names[m->entrant[k]];
        struct org_call call = {
                .tournament = c->tournament, .stage_match = c->match, .game = c->d->game,
                .table = c->d->match_tables[c->i], .players = players, .n_players = (size_t) m->n, .seed = seed,
                .config = c->d->match_config, .confirm = c->d->confirm, .attempt = rows[0].attempt,
                .epoch = rows[0].epoch,
        };
        call_end(c, &(struct org_result) { .outcome = ORG_DONE }, &call);
}

static void on_call_stage(void *userdata, const struct org_result *result, struct org_stage *d) {
        struct op *c = userdata;
        char buf[ORG_DETAIL_MAX];
        struct org_result r;
        int q;

        if (!found(c, result, d, &r, buf, sizeof buf)) {
                call_end(c, &r, NULL);
                return;
        }
        if (!tour_state_plays(d->tournament_state)) {
                r = said(ORG_CONFLICT, buf, sizeof buf, "the tournament is %s: matches are called while it is "
                         "running", tour_state_name(d->tournament_state));
                call_end(c, &r, NULL);
                return;
        }
        if (d->match_states[c->i] != STORE_MATCH_PENDING) {
                r = said(ORG_CONFLICT, buf, sizeof buf, "match %" PRId64 " is %s already", c->match,
                         store_match_state_name(d->match_states[c->i]));
                call_end(c, &r, NULL);
                return;
        }
        /* the call's seed: the tournament's current secret and the call's
         * identity (docs/fairness.md) */
        q = store_tournaments_next_call(c->store, c->tournament, c->match, on_next_call, c);
        if (q < 0) {
                struct store_error e;
                r = org_result_unqueued(q, &e);
                call_end(c, &r, NULL);
        }
}

int org_call_prepare(struct store *s, int64_t tournament, int64_t stage_match, org_call_fn cb, void *userdata) {
        struct op *c = op_new(s, tournament, stage_match, userdata);
        int r;

        if (!c)
                return -ENOMEM;
        c->cb.call = cb;
        r = org_stage_load_of_match(s, tournament, stage_match, on_call_stage, c);
        if (r < 0)
                op_free(c);
        return r;
}

/* A write guarded by the state seen: its one row, or none when the match
 * changed meanwhile. */
static void on_written(void *userdata, const struct store_stage_match_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct op *c = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                r = failed(failure, error);
        else if (n == 0)
                r = (struct org_result) { .outcome = ORG_CONFLICT, .detail = CHANGED_MEANWHILE };
        c->cb.match(c->userdata, &r, r.outcome == ORG_DONE ? &rows[0] : NULL);
        op_free(c);
}

int org_call_record(struct store *s, const struct org_call_made *made, org_match_fn cb, void *userdata) {
        struct op *c = op_new(s, made->tournament, made->stage_match, userdata);
        int r;

        if (!c)
                return -ENOMEM;
        c->cb.match = cb;
        r = store_stage_matches_call(s, made->stage_match, made->runtime_match, made->table, made->tournament,
                                     made->attempt, made->epoch, on_written, c);
        if (r < 0)
                op_free(c);
        return r;
}

/* ---- results ------------------------------------------------------------------- */

/* The entries as match i's result, as stored JSON text (malloc'd): NULL
 * with *ret ORG_INVALID (the entries' fault, in buf) or ORG_INTERNAL. */
static char *result_text(struct op *c, struct org_result *ret, char *buf, size_t len) {
        struct tour_result tr;
        json_t *j;
        char *text;

        if (org_stage_result_check(c->d, (size_t) c->i, c->entries, c->n_entries, &tr, buf, len) < 0) {
                *ret = (struct org_result) { .outcome = ORG_INVALID, .detail = buf };
                return NULL;
        }
        j = org_stage_result_json(c->d, &tr);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text)
                *ret = (struct org_result) { .outcome = ORG_INTERNAL, .detail = "out of memory" };
        return text;
}

static void match_end(struct op *c, const struct org_result *r) {
        c->cb.match(c->userdata, r, NULL);
        op_free(c);
}

static void on_result_stage(void *userdata, const struct org_result *result, struct org_stage *d) {
        struct op *c = userdata;
        char buf[ORG_DETAIL_MAX], *text;
        struct org_result r;
        int q;

        if (!found(c, result, d, &r, buf, sizeof buf)) {
                match_end(c, &r);
                return;
        }
        if (d->matches[c->i].done) {
                r = said(ORG_CONFLICT, buf, sizeof buf, "match %" PRId64 " has its result; change it with POST "
                         ".../matches/%" PRId64 "/corrections and a reason", c->match, c->match);
                match_end(c, &r);
                return;
        }
        if (!tour_state_plays(d->tournament_state)) {
                r = said(ORG_CONFLICT, buf, sizeof buf, "the tournament is %s: results are entered while it is "
                         "running", tour_state_name(d->tournament_state));
                match_end(c, &r);
                return;
        }
        if (d->runtime[c->i]) {
                r = said(ORG_CONFLICT, buf, sizeof buf, "match %" PRId64 " is being played as live match %" PRId64
                         ": its result comes from there (abort that match first to enter one by hand)", c->match,
                         d->runtime[c->i]);
                match_end(c, &r);
                return;
        }
        if (!(text = result_text(c, &r, buf, sizeof buf))) {
                match_end(c, &r);
                return;
        }
        q = store_stage_matches_record(c->store, c->match, d->match_states[c->i], text, c->who, on_written, c);
        free(text);
        if (q < 0) {
                struct store_error e;
                r = org_result_unqueued(q, &e);
                match_end(c, &r);
        }
}

/* Copies what a call takes beyond itself. */
static int take_entries(struct op *c, const struct org_result_entry *entries, size_t n, const char *who) {
        if (n > TOUR_MAX_SEATS || (n && !entries) || !who)
                return -EINVAL;
        memcpy(c->entries, entries, n * sizeof *entries);
        c->n_entries = n;
        c->who = strdup(who);
        return c->who ? 0 : -ENOMEM;
}

int org_result_enter(struct store *s, int64_t tournament, int64_t stage_match, const struct org_result_entry *entries,
                     size_t n, const char *who, org_match_fn cb, void *userdata) {
        struct op *c = op_new(s, tournament, stage_match, userdata);
        int r;

        if (!c)
                return -ENOMEM;
        c->cb.match = cb;
        r = take_entries(c, entries, n, who);
        if (r == 0)
                r = org_stage_load_of_match(s, tournament, stage_match, on_result_stage, c);
        if (r < 0)
                op_free(c);
        return r;
}

/* ---- corrections ----------------------------------------------------------------- */

struct correcting {
        struct op *op;
        int64_t *deleted;
        size_t n_deleted;
};

static void corrected_end(struct op *c, const struct org_result *r, const struct org_corrected *k) {
        struct org_corrected none = { .verdict = TOUR_CORRECTION_ALLOWED };

        c->cb.corrected(c->userdata, r, k ? k : &none);
        op_free(c);
}

static void on_corrected(void *userdata, const struct store_stage_match_row *rows, size_t n, int64_t correction,
                         const struct store_error *failure, const char *error) {
        struct correcting *k = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                r = failed(failure, error);
        else if (n == 0)
                r = (struct org_result) { .outcome = ORG_CONFLICT, .detail = CHANGED_MEANWHILE };
        struct org_corrected done = {
                .verdict = TOUR_CORRECTION_ALLOWED,
                .match = r.outcome == ORG_DONE ? &rows[0] : NULL,
                .correction = correction,
                .deleted = k->deleted,
                .n_deleted = k->n_deleted,
        };
        corrected_end(k->op, &r, &done);
        free(k->deleted);
        free(k);
}

/* What the verdict refuses, in words; the lists for it in *k. */
static struct org_result refusal(struct op *c, const struct tour_correction *plan, struct org_corrected *k,
                                 char *buf, size_t len) {
        int64_t live = plan->in_play >= 0 ? c->d->match_ids[plan->in_play] : 0,
                live_runtime = plan->in_play >= 0 ? c->d->runtime[plan->in_play] : 0;

        k->in_play = live;
        k->in_play_runtime = live_runtime;
        switch (plan->verdict) {
        case TOUR_CORRECTION_NO_RESULT:
                return said(ORG_CONFLICT, buf, len, "match %" PRId64 " has no result yet: POST .../matches/%" PRId64
                            "/result", c->match, c->match);
        case TOUR_CORRECTION_STAGE_CLOSED:
                return said(ORG_CONFLICT, buf, len, "stage %d has started from the standings of stage %d: its "
                            "results can no longer change", c->d->number + 1, c->d->number);
        case TOUR_CORRECTION_IN_PLAY:
                return said(ORG_CONFLICT, buf, len, "match %" PRId64 ", which depends on this result, is being "
                            "played as live match %" PRId64 ": abort it (POST /v1/matches/%" PRId64 "/abort) "
                            "before resetting it", live, live_runtime, live_runtime);
        case TOUR_CORRECTION_NEEDS_RESET:
                return said(ORG_CONFLICT, buf, len, "later matches were paired from this result and have been "
                            "played or called (listed); send \"reset\": true to delete them and pair them again");
        case TOUR_CORRECTION_NOT_ALLOWED:
                return said(ORG_CONFLICT, buf, len, "reset: deleting played matches needs an admin token");
        case TOUR_CORRECTION_ALLOWED:
                break;
        }
        return (struct org_result) { .outcome = ORG_DONE };
}

static void on_correction_stage(void *userdata, const struct org_result *result, struct org_stage *d) {
        struct op *c = userdata;
        struct tour_correction plan;
        struct tour_stage_error e = { "" };
        struct org_corrected k = { .verdict = TOUR_CORRECTION_ALLOWED };
        struct correcting *w = NULL;
        char buf[ORG_DETAIL_MAX], *text = NULL;
        struct org_result r;
        int64_t *blocking = NULL;
        bool *in_play = NULL;
        int q;

        memset(&plan, 0, sizeof plan);
        if (!found(c, result, d, &r, buf, sizeof buf)) {
                corrected_end(c, &r, NULL);
                return;
        }
        in_play = calloc(d->n_matches + 1, sizeof *in_play);
        blocking = calloc(d->n_matches + 1, sizeof *blocking);
        if (!in_play || !blocking) {
                r = (struct org_result) { .outcome = ORG_INTERNAL, .detail = "out of memory" };
                goto end;
        }
        /* a called match is being played: as good as played */
        for (size_t i = 0; i < d->n_matches; i++)
                in_play[i] = d->match_states[i] == STORE_MATCH_CALLED;
        struct tour_correction_input ci = {
                .stage = &d->in, .match = (size_t) c->i, .in_play = in_play,
                .next_stage_started = d->next_started, .reset = c->reset,
                .may_delete_played = c->may_delete_played,
        };
        q = tour_correction_plan(&ci, &plan, &e);
        if (q < 0) {
                r = said(ORG_INTERNAL, buf, sizeof buf, "the stage cannot say what depends on match %" PRId64 ": %s",
                         c->match, e.text[0] ? e.text : strerror(-q));
                goto end;
        }
        k.verdict = plan.verdict;
        for (size_t j = 0; j < plan.n_blocking; j++)
                blocking[j] = d->match_ids[plan.blocking[j]];
        k.blocking = blocking;
        k.n_blocking = plan.n_blocking;
        if (plan.verdict != TOUR_CORRECTION_ALLOWED) {
                r = refusal(c, &plan, &k, buf, sizeof buf);
                goto end;
        }
        if (!(text = result_text(c, &r, buf, sizeof buf)))
                goto end;
        w = calloc(1, sizeof *w);
        if (w)
                w->deleted = calloc(plan.n_deleted + 1, sizeof *w->deleted);
        if (!w || !w->deleted) {
                r = (struct org_result) { .outcome = ORG_INTERNAL, .detail = "out of memory" };
                goto end;
        }
        w->op = c;
        for (size_t j = 0; j < plan.n_deleted; j++)
                w->deleted[w->n_deleted++] = d->match_ids[plan.deleted[j]];
        struct store_correction_new sc = {
                .match = c->match, .stage = d->stage, .after = text, .reason = c->reason, .who = c->who,
                .deleted = w->deleted, .n_deleted = w->n_deleted, .byes_after = plan.byes_after,
                .reopen = plan.reopen,
        };
        q = store_stage_matches_correct(c->store, &sc, on_corrected, w);
        if (q < 0) {
                struct store_error se;
                r = org_result_unqueued(q, &se);
                goto end;
        }
        free(text);
        free(in_play);
        free(blocking);
        tour_correction_free(&plan);
        return;
end:
        corrected_end(c, &r, &k);
        if (w)
                free(w->deleted);
        free(w);
        free(text);
        free(in_play);
        free(blocking);
        tour_correction_free(&plan);
}

int org_result_correct(struct store *s, const struct org_correction *k, org_corrected_fn cb, void *userdata) {
        struct op *c;
        int r;

        if (!k->reason)
                return -EINVAL;
        if (!(c = op_new(s, k->tournament, k->stage_match, userdata)))
                return -ENOMEM;
        c->cb.corrected = cb;
        c->reset = k->reset;
        c->may_delete_played = k->may_delete_played;
        r = take_entries(c, k->entries, k->n_entries, k->who);
        if (r == 0 && !(c->reason = strdup(k->reason)))
                r = -ENOMEM;
        if (r == 0)
                r = org_stage_load_of_match(s, k->tournament, k->stage_match, on_correction_stage, c);
        if (r < 0)
                op_free(c);
        return r;
}

/* ---- the hand-off ----------------------------------------------------------------- */

struct handed {
        org_match_fn cb;
        void *userdata;
};

static void on_handed(void *userdata, const struct store_stage_match_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct handed *h = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                r = failed(failure, error);
        else if (n == 0)
                r = (struct org_result) { .outcome = ORG_NOT_FOUND, .detail = "the stage match is gone" };
        h->cb(h->userdata, &r, r.outcome == ORG_DONE ? &rows[0] : NULL);
        free(h);
}

int org_result_handed_over(struct store *s, const char *payload, const char *venue, org_match_fn cb,
                           void *userdata) {
        struct handed *h;
        char *end;
        long long id;
        int r;

        errno = 0;
        id = payload ? strtoll(payload, &end, 10) : 0;
        if (!payload || errno || end == payload || (*end && *end != ' ') || id < 1)
                return -EINVAL;
        /* "<id> <venue>" (migrations/0010): another venue's daemon ran the
         * match and publishes its result */
        if (*end == ' ' && venue && strcmp(end + 1, venue) != 0)
                return 1;
        if (!(h = calloc(1, sizeof *h)))
                return -ENOMEM;
        *h = (struct handed) { .cb = cb, .userdata = userdata };
        r = store_stage_matches_get(s, 0, (int64_t) id, on_handed, h);
        if (r < 0)
                free(h);
        return r;
}
