/* tournament/bracket.c — the bracket graph's shared parts: allocation, the
 * standard placement, the derived "empty by construction" flags, the
 * resolver and the correction analysis.  See bracket.h for the model and
 * docs/formats/brackets.md for the rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/bracket.h"

int tour_bracket_size(int n) {
        int p = 1;

        if (n < 1 || n > TOUR_BRACKET_MAX_ENTRANTS)
                return -EINVAL;
        while (p < n)
                p *= 2;
        return p;
}

/* pos(2k) is built from pos(k) in place, back to front, so that no scratch
 * array is needed: entry j of pos(k) becomes entries 2j and 2j+1. */
int tour_bracket_seed_order(int size, int *ret_seed_at) {
        if (!ret_seed_at || size < 2 || size > 2 * TOUR_BRACKET_MAX_ENTRANTS || (size & (size - 1)))
                return -EINVAL;
        ret_seed_at[0] = 1;
        for (int k = 1; k < size; k *= 2)
                for (int j = k - 1; j >= 0; j--) {
                        int p = ret_seed_at[j];
                        ret_seed_at[2 * j] = p;
                        ret_seed_at[2 * j + 1] = 2 * k + 1 - p;
                }
        return 0;
}

struct tour_bracket *tour_bracket_alloc(int n_matches) {
        struct tour_bracket *b;

        if (n_matches < 1)
                return NULL;
        b = calloc(1, sizeof *b + (size_t) n_matches * sizeof b->match[0]);
        if (!b)
                return NULL;
        b->n_matches = n_matches;
        for (int i = 0; i < n_matches; i++)
                b->match[i].id = i;
        return b;
}

void tour_bracket_free(struct tour_bracket *b) {
        free(b);
}

int tour_bracket_fill_winners(struct tour_bracket *b) {
        int P = b->size, rounds = 0, id = 0;
        int *seed_at = malloc((size_t) P * sizeof *seed_at);

        if (!seed_at)
                return -ENOMEM;
        if (tour_bracket_seed_order(P, seed_at) < 0) {
                free(seed_at);
                return -EINVAL;
        }
        for (int m = P / 2, r = 1; m >= 1; m /= 2, r++) {
                int prev = id - 2 * m;          /* first id of round r-1 */
                rounds = r;
                for (int i = 0; i < m; i++, id++) {
                        struct tour_bracket_match *x = &b->match[id];
                        x->part = TOUR_PART_WINNERS;
                        x->round = r;
                        x->index = i;
                        snprintf(x->label, sizeof x->label, "R%d-%d", r, i + 1);
                        for (int s = 0; s < 2; s++) {
                                if (r == 1) {
                                        int seed = seed_at[2 * i + s];
                                        /* byes are seeds n+1..P */
                                        x->slot[s].source = seed <= b->n ? TOUR_SRC_SEED : TOUR_SRC_EMPTY;
                                        x->slot[s].ref = seed <= b->n ? seed - 1 : TOUR_NONE;
                                } else {
                                        x->slot[s].source = TOUR_SRC_WINNER;
                                        x->slot[s].ref = prev + 2 * i + s;
                                }
                        }
                        /* losers of round r: everyone in the other P/2^r
                         * winners' subtrees is still ahead of them */
                        x->loser_place = (P >> r) + 1;
                }
        }
        free(seed_at);
        b->rounds[TOUR_PART_WINNERS] = rounds;
        return rounds;
}

/* Derives empty[] and n_played, and checks the generator's invariants (a
 * failure here is a bug in a generator, reported as -EINVAL rather than
 * trusted). */
int tour_bracket_finish(struct tour_bracket *b) {
        int M = b->n_matches;
        uint8_t *used = calloc((size_t) M, 1);  /* bit 0: winner fed, bit 1: loser fed */

        if (!used)
                return -ENOMEM;
        b->n_played = 0;
        for (int i = 0; i < M; i++) {
                struct tour_bracket_match *x = &b->match[i];
                bool reset = x->part == TOUR_PART_GRAND_FINAL_RESET;
                for (int s = 0; s < 2; s++) {
                        const struct tour_bracket_slot *sl = &x->slot[s];
                        const struct tour_bracket_match *src;
                        switch (sl->source) {
                        case TOUR_SRC_EMPTY:
                                x->empty[s] = true;
                                break;
                        case TOUR_SRC_SEED:
                                if (sl->ref < 0 || sl->ref >= b->n)
                                        goto bad;
                                x->empty[s] = false;
                                break;
                        case TOUR_SRC_WINNER:
                        case TOUR_SRC_LOSER:
                                if (sl->ref < 0 || sl->ref >= i)
                                        goto bad;
                                src = &b->match[sl->ref];
                                {
                                        uint8_t bit = sl->source == TOUR_SRC_WINNER ? 1 : 2;
                                        /* the reset replays the grand final's
                                         * pairing: it reads the same winners */
                                        if (!reset && (used[sl->ref] & bit))
                                                goto bad;
                                        if (!reset)
                                                used[sl->ref] |= bit;
                                }
                                if (sl->source == TOUR_SRC_WINNER)
                                        x->empty[s] = src->empty[0] && src->empty[1];
                                else
                                        x->empty[s] = src->empty[0] || src->empty[1];
                                break;
                        default:
                                goto bad;
                        }
                }
                if (!x->empty[0] && !x->empty[1])
                        b->n_played++;
        }
        free(used);
        return 0;
bad:
        free(used);
        return -EINVAL;
}

static int32_t slot_occupant(const struct tour_bracket_slot *sl, const struct tour_bracket_state *st) {
        switch (sl->source) {
        case TOUR_SRC_SEED:
                return sl->ref;
        case TOUR_SRC_WINNER:
                return st[sl->ref].winner;
        case TOUR_SRC_LOSER:
                return st[sl->ref].loser;
        default:
                return TOUR_NONE;
        }
}

static bool has_reset(const struct tour_bracket *b) {
        return b->rounds[TOUR_PART_GRAND_FINAL_RESET] > 0;
}

/* The grand final that a reset replays: the source match of its slot 0's
 * winner is the winners-bracket final, the grand final is the match just
 * before the reset (the generator puts it there). */
static int reset_of_grand_final(const struct tour_bracket *b, int id) {
        return id - 1 >= 0 && b->match[id - 1].part == TOUR_PART_GRAND_FINAL ? id - 1 : -1;
}

/* One topological pass.  Strict mode (orig == NULL): any inconsistent
 * outcome is -EINVAL.  Analysis mode: a match whose occupants differ from
 * orig[] is flagged in changed[] and its outcome ignored (it would have to
 * be replayed), and an outcome that no longer fits is ignored likewise. */
static int resolve_core(const struct tour_bracket *b, const int8_t *outcomes,
                        struct tour_bracket_state *st,
                        const struct tour_bracket_state *orig, bool *changed) {
        int ready = 0;

        for (int i = 0; i < b->n_matches; i++) {
                const struct tour_bracket_match *x = &b->match[i];
                struct tour_bracket_state *s = &st[i];
                int8_t o = outcomes ? outcomes[i] : TOUR_BRACKET_UNPLAYED;
                bool known;

                if (o != TOUR_BRACKET_UNPLAYED && o != 0 && o != 1)
                        return -EINVAL;
                s->occupant[0] = slot_occupant(&x->slot[0], st);
                s->occupant[1] = slot_occupant(&x->slot[1], st);
                s->winner = s->loser = TOUR_NONE;
                known = s->occupant[0] != TOUR_NONE && s->occupant[1] != TOUR_NONE;

                if (x->empty[0] && x->empty[1])
                        s->status = TOUR_MATCH_VOID;
                else if (x->empty[0] || x->empty[1]) {
                        s->status = TOUR_MATCH_BYE;
                        s->winner = s->occupant[x->empty[0] ? 1 : 0];
                } else if (x->part == TOUR_PART_GRAND_FINAL_RESET) {
                        int gf = reset_of_grand_final(b, i);
                        if (gf < 0)
                                return -EINVAL;
                        if (st[gf].status != TOUR_MATCH_DONE)
                                s->status = TOUR_MATCH_WAITING;
                        else if (st[gf].winner == st[gf].occupant[0])
                                s->status = TOUR_MATCH_NOT_NEEDED;
                        else
                                s->status = TOUR_MATCH_READY;
                } else
                        s->status = known ? TOUR_MATCH_READY : TOUR_MATCH_WAITING;

                if (orig) {
                        bool diff = s->occupant[0] != orig[i].occupant[0] ||
                                    s->occupant[1] != orig[i].occupant[1] ||
                                    (s->status == TOUR_MATCH_NOT_NEEDED) !=
                                    (orig[i].status == TOUR_MATCH_NOT_NEEDED);
                        if (diff) {
                                changed[i] = true;
                                o = TOUR_BRACKET_UNPLAYED;
                        }
                        if (s->status != TOUR_MATCH_READY)
                                o = TOUR_BRACKET_UNPLAYED;
                }
                if (o != TOUR_BRACKET_UNPLAYED) {
                        if (s->status != TOUR_MATCH_READY)
                                return -EINVAL;
                        s->status = TOUR_MATCH_DONE;
                        s->winner = s->occupant[o];
                        s->loser = s->occupant[1 - o];
                } else if (s->status == TOUR_MATCH_READY)
                        ready++;
        }
        return ready;
}

static void place_entrants(const struct tour_bracket *b, const struct tour_bracket_state *st, int *place) {
        memset(place, 0, (size_t) b->n * sizeof *place);
        for (int i = 0; i < b->n_matches; i++) {
                const struct tour_bracket_match *x = &b->match[i];
                const struct tour_bracket_state *s = &st[i];
                if (s->status == TOUR_MATCH_BYE) {
                        if (x->winner_place && s->winner != TOUR_NONE)
                                place[s->winner] = x->winner_place;
                        continue;
                }
                if (s->status != TOUR_MATCH_DONE)
                        continue;
                /* a grand final lost by the winners-bracket finalist goes to
                 * the reset: nobody is placed yet */
                if (x->part == TOUR_PART_GRAND_FINAL && has_reset(b) && s->winner == s->occupant[1])
                        continue;
                if (x->loser_place)
                        place[s->loser] = x->loser_place;
                if (x->winner_place)
                        place[s->winner] = x->winner_place;
        }
}

int tour_bracket_resolve(const struct tour_bracket *b, const int8_t *outcomes,
                         struct tour_bracket_state *ret_states, int *ret_place) {
        int r;

        if (!b || !ret_states)
                return -EINVAL;
        r = resolve_core(b, outcomes, ret_states, NULL, NULL);
        if (r < 0)
                return r;
        if (ret_place)
                place_entrants(b, ret_states, ret_place);
        return r;
}

int tour_bracket_dependents(const struct tour_bracket *b, const int8_t *outcomes, int match_id,
                            bool played_only, int *ret_ids) {
        struct tour_bracket_state *orig = NULL, *alt = NULL;
        int8_t *o = NULL;
        bool *changed = NULL;
        int r, n = 0, M;

        if (!b || !ret_ids || match_id < 0 || match_id >= b->n_matches)
                return -EINVAL;
        M = b->n_matches;
        orig = malloc((size_t) M * sizeof *orig);
        alt = malloc((size_t) M * sizeof *alt);
        o = malloc((size_t) M);
        changed = calloc((size_t) M, sizeof *changed);
        if (!orig || !alt || !o || !changed) {
                r = -ENOMEM;
                goto out;
        }
        r = resolve_core(b, outcomes, orig, NULL, NULL);
        if (r < 0)
                goto out;
        if (outcomes)
                memcpy(o, outcomes, (size_t) M);
        else
                memset(o, TOUR_BRACKET_UNPLAYED, (size_t) M);
        /* A played match is flipped; an unplayed one is tried both ways
         * (only when it could be played at all: otherwise nothing moves). */
        for (int8_t v = 0; v <= 1; v++) {
                if (o[match_id] != TOUR_BRACKET_UNPLAYED && v == 1)
                        break;
                int8_t saved = o[match_id];
                if (saved != TOUR_BRACKET_UNPLAYED)
                        o[match_id] = (int8_t) (1 - saved);
                else if (orig[match_id].status == TOUR_MATCH_READY)
                        o[match_id] = v;
                else
                        break;
                r = resolve_core(b, o, alt, orig, changed);
                o[match_id] = saved;
                if (r < 0)
                        goto out;
        }
        changed[match_id] = false;
        for (int i = 0; i < M; i++)
                if (changed[i] && (!played_only || (outcomes && outcomes[i] != TOUR_BRACKET_UNPLAYED)))
                        ret_ids[n++] = i;
        r = n;
out:
        free(orig);
        free(alt);
        free(o);
        free(changed);
        return r;
}

int tour_bracket_ready_pairings(const struct tour_bracket *b, const struct tour_bracket_state *states,
                                struct tour_pairing *ret_pairings) {
        int n = 0;

        if (!b || !states || !ret_pairings)
                return -EINVAL;
        for (int i = 0; i < b->n_matches; i++) {
                if (states[i].status != TOUR_MATCH_READY)
                        continue;
                struct tour_pairing *p = &ret_pairings[n++];
                memset(p, 0, sizeof *p);
                p->round = b->match[i].round;
                p->table = n;
                p->n = 2;
                p->entrant[0] = states[i].occupant[0];
                p->entrant[1] = states[i].occupant[1];
                for (int s = 2; s < TOUR_MAX_SEATS; s++)
                        p->entrant[s] = TOUR_NONE;
        }
        return n;
}
