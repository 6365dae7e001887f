/* tournament/play.c — see play.h. */
#include "tournament/play.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tour_play_current_stage(const enum tour_stage_state *states, size_t n) {
        if (!states)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (states[i] != TOUR_STAGE_FINISHED)
                        return (int) i;
        for (size_t i = n; i-- > 0;)
                if (states[i] != TOUR_STAGE_PENDING)
                        return (int) i;
        return -1;
}

/* Whether candidate a is seeded before candidate b (a < b in the order of
 * registration). */
static bool seeded_before(const struct tour_play_candidate *c, size_t a, size_t b) {
        if ((c[a].seed > 0) != (c[b].seed > 0))
                return c[a].seed > 0;
        if (c[a].seed != c[b].seed)
                return c[a].seed < c[b].seed;
        if (c[a].rating != c[b].rating)
                return c[a].rating > c[b].rating;
        return a < b;
}

int tour_play_first_stage_order(const struct tour_play_candidate *candidates, size_t n, size_t *ret_order) {
        size_t *tmp;

        if (n && (!candidates || !ret_order))
                return -EINVAL;
        if (n == 0)
                return 0;
        tmp = malloc(n * sizeof *tmp);
        if (!tmp)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                ret_order[i] = i;
        /* a merge sort, bottom up: the order is total (registration breaks
         * every tie), so any correct sort gives the same answer */
        for (size_t width = 1; width < n; width *= 2) {
                for (size_t lo = 0; lo < n; lo += 2 * width) {
                        size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
                        size_t i = lo, j = mid, k = lo;

                        while (i < mid && j < hi)
                                tmp[k++] = seeded_before(candidates, ret_order[j], ret_order[i]) ? ret_order[j++]
                                                                                                 : ret_order[i++];
                        while (i < mid)
                                tmp[k++] = ret_order[i++];
                        while (j < hi)
                                tmp[k++] = ret_order[j++];
                }
                memcpy(ret_order, tmp, n * sizeof *tmp);
        }
        free(tmp);
        return 0;
}

int64_t tour_play_table(const int64_t *tables, size_t n, int table_no) {
        if (!tables || n == 0 || table_no < 1)
                return 0;
        return tables[(size_t) (table_no - 1) % n];
}

enum tour_stage_add tour_play_stage_add(enum tour_state state, bool competitive, bool config_has_seed) {
        if (competitive && config_has_seed)
                return TOUR_STAGE_ADD_SEED_CHOSEN;
        if (!tour_state_takes_stages(state))
                return TOUR_STAGE_ADD_FINISHED;
        return TOUR_STAGE_ADD_ALLOWED;
}

/* ---- corrections --------------------------------------------------------------- */

void tour_correction_free(struct tour_correction *c) {
        if (!c)
                return;
        free(c->blocking);
        free(c->deleted);
        memset(c, 0, sizeof *c);
        c->in_play = -1;
        c->byes_after = -1;
}

int tour_correction_plan(const struct tour_correction_input *in, struct tour_correction *ret,
                         struct tour_stage_error *ret_err) {
        const struct tour_stage_input *st;
        size_t *deps = NULL, cap;
        int n_done, n_pending, r = 0;

        if (ret) {
                memset(ret, 0, sizeof *ret);
                ret->in_play = -1;
                ret->byes_after = -1;
        }
        if (ret_err)
                ret_err->text[0] = '\0';
        if (!in || !ret || !in->stage || !in->stage->cfg || in->match >= in->stage->n_matches) {
                if (ret_err)
                        snprintf(ret_err->text, sizeof ret_err->text, "match: not a stored match of the stage");
                return -EINVAL;
        }
        st = in->stage;
        if (!st->matches[in->match].done) {
                ret->verdict = TOUR_CORRECTION_NO_RESULT;
                return 0;
        }
        if (in->next_stage_started) {
                ret->verdict = TOUR_CORRECTION_STAGE_CLOSED;
                return 0;
        }
        cap = st->n_matches;
        deps = malloc((cap + 1) * sizeof *deps);
        ret->blocking = malloc((cap + 1) * sizeof *ret->blocking);
        ret->deleted = malloc((cap + 1) * sizeof *ret->deleted);
        if (!deps || !ret->blocking || !ret->deleted) {
                r = -ENOMEM;
                goto out;
        }
        n_done = tour_stage_dependents(st, in->match, false, deps, cap, ret_err);
        if (n_done < 0) {
                r = n_done;
                goto out;
        }
        for (int k = 0; k < n_done; k++) {
                ret->blocking[ret->n_blocking++] = deps[k];
                ret->deleted[ret->n_deleted++] = deps[k];
        }
        n_pending = tour_stage_dependents(st, in->match, true, deps, cap, ret_err);
        if (n_pending < 0) {
                r = n_pending;
                goto out;
        }
        for (int k = 0; k < n_pending; k++) {
                if (in->in_play && in->in_play[deps[k]]) {
                        ret->blocking[ret->n_blocking++] = deps[k];
                        ret->in_play = (long) deps[k];
                }
                ret->deleted[ret->n_deleted++] = deps[k];
        }
        ret->byes_after = tour_format_round_based(st->cfg->format) ? st->matches[in->match].round : -1;
        ret->reopen = ret->n_deleted > 0;
        if (ret->in_play >= 0 && in->reset)
                ret->verdict = TOUR_CORRECTION_IN_PLAY;
        else if (ret->n_blocking > 0 && !in->reset)
                ret->verdict = TOUR_CORRECTION_NEEDS_RESET;
        else if (ret->n_blocking > 0 && !in->may_delete_played)
                ret->verdict = TOUR_CORRECTION_NOT_ALLOWED;
        else
                ret->verdict = TOUR_CORRECTION_ALLOWED;
out:
        free(deps);
        return r;
}
