/* tournament/double_elim.c — double elimination (docs/formats/brackets.md
 * "Double elimination"; the grand-final choices none / simple / double are
 * those of brackets-manager.js).
 *
 * Layout for P = 2^k slots (k >= 2):
 *   ids 0..P-2          the winners bracket, exactly as single elimination;
 *   losers round 1      P/4 matches: the losers of W1 matches 2i and 2i+1;
 *   losers round 2j     P/2^(j+1) matches (j = 1..k-1): the winner of losers
 *                       round 2j-1 match i (slot 0) against the loser of
 *                       winners round j+1 match i XOR mask(j) (slot 1);
 *   losers round 2j+1   P/2^(j+2) matches (j = 1..k-2): winners of losers
 *                       round 2j matches 2i and 2i+1;
 *   grand final         winners-bracket winner (slot 0) against losers-bracket
 *                       winner (slot 1), then the reset with the same sides.
 * For P = 2 there is no losers bracket: the grand final is a rematch of the
 * only match, its loser against its winner.
 *
 * Every source names an earlier id, so the bracket resolves in one pass;
 * byes need nothing special here: the loser of a bye is empty by
 * construction (tour_bracket_finish), so its losers-bracket opponent gets a
 * bye in turn. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tournament/bracket.h"

/* Which winners-round-(j+1) match's loser lands in losers round 2j, match
 * i of m (m a power of two): match i XOR mask(j), mask(j) = the low
 * log2(m) bits of j written in reverse order (bit reversal).
 *
 * Why: in losers round 2j, match i, the losers-bracket side can only be
 * someone who lost in the winners bracket in round l+1 (l < j) in the
 * winners subtree "i XOR mask(l)" seen at level j, or in round 1 inside
 * subtree i.  The dropper has met players of his own subtree only.
 * A rematch is possible in round 2j exactly when two of the values 0,
 * mask(1)..mask(j), cut to the bits that are still distinct at that level,
 * coincide, and in round 2j+1 when two coincide after dropping one more bit
 * (docs/formats/brackets.md, "Routing", has the derivation).  Bit-reversed
 * counters make the top L bits of mask(l) equal l mod 2^L reversed, so the
 * j+1 values stay distinct for as long as 2^L >= j+1 leaves room for
 * them: no ordering can keep rematches out longer.  The masks are the
 * classic orders in disguise: mask(1) swaps halves (half shift), an
 * all-ones mask reverses, mask 1 flips pairs. */
static int drop_source(int j, int m, int i) {
        int bits = 0, mask = 0;

        while ((1 << bits) < m)
                bits++;
        for (int b = 0; b < bits; b++)
                if (j & (1 << b))
                        mask |= 1 << (bits - 1 - b);
        return i ^ mask;
}

static void set_slot(struct tour_bracket_match *x, int s, enum tour_slot_source src, int ref) {
        x->slot[s].source = src;
        x->slot[s].ref = ref;
}

int tour_double_elim_new(int n, const struct tour_bracket_options *opt,
                         struct tour_bracket **ret_bracket) {
        struct tour_bracket_options o = { .grand_final = TOUR_GRAND_FINAL_SIMPLE };
        struct tour_bracket *b;
        int P, k, lb_rounds, lb_matches = 0, gf, total, id, r, wf, lf;

        if (!ret_bracket || n < 2 || n > TOUR_BRACKET_MAX_ENTRANTS)
                return -EINVAL;
        if (opt)
                o = *opt;
        if (o.grand_final != TOUR_GRAND_FINAL_NONE && o.grand_final != TOUR_GRAND_FINAL_SIMPLE &&
            o.grand_final != TOUR_GRAND_FINAL_DOUBLE)
                return -EINVAL;
        o.third_place = false;
        P = tour_bracket_size(n);
        for (k = 0; (1 << k) < P; k++)
                ;
        lb_rounds = 2 * (k - 1);
        if (k >= 2)
                lb_matches = P - 2;     /* P/4 + sum over j of (P/2^(j+1) + P/2^(j+2)) */
        gf = o.grand_final == TOUR_GRAND_FINAL_NONE ? 0 : o.grand_final == TOUR_GRAND_FINAL_SIMPLE ? 1 : 2;
        /* with P = 2 and no grand final the winners final is everything */
        total = P - 1 + lb_matches + gf;
        b = tour_bracket_alloc(total);
        if (!b)
                return -ENOMEM;
        b->format = TOUR_BRACKET_DOUBLE;
        b->options = o;
        b->n = n;
        b->size = P;
        r = tour_bracket_fill_winners(b);
        if (r < 0)
                goto fail;
        wf = P - 2;
        for (int i = 0; i < P - 1; i++) {
                struct tour_bracket_match *x = &b->match[i];
                snprintf(x->label, sizeof x->label, "W%d-%d", x->round, x->index + 1);
                /* losers drop, nobody leaves the winners bracket placed */
                x->loser_place = 0;
        }
        snprintf(b->match[wf].label, sizeof b->match[wf].label, "WF");

        /* the losers bracket, round by round */
        id = P - 1;
        {
                int prev_first = -1;
                for (int lr = 1; lr <= lb_rounds; lr++) {
                        int m, first = id;
                        if (lr == 1)
                                m = P / 4;
                        else if (lr % 2 == 0)
                                m = P >> (lr / 2 + 1);
                        else
                                m = P >> ((lr - 1) / 2 + 2);
                        for (int i = 0; i < m; i++, id++) {
                                struct tour_bracket_match *x = &b->match[id];
                                x->part = TOUR_PART_LOSERS;
                                x->round = lr;
                                x->index = i;
                                snprintf(x->label, sizeof x->label, "L%d-%d", lr, i + 1);
                                if (lr == 1) {
                                        set_slot(x, 0, TOUR_SRC_LOSER, 2 * i);
                                        set_slot(x, 1, TOUR_SRC_LOSER, 2 * i + 1);
                                } else if (lr % 2 == 0) {
                                        int j = lr / 2;
                                        int wround_first = P - (P >> j);  /* winners round j+1 */
                                        set_slot(x, 0, TOUR_SRC_WINNER, prev_first + i);
                                        set_slot(x, 1, TOUR_SRC_LOSER, wround_first + drop_source(j, m, i));
                                } else {
                                        set_slot(x, 0, TOUR_SRC_WINNER, prev_first + 2 * i);
                                        set_slot(x, 1, TOUR_SRC_WINNER, prev_first + 2 * i + 1);
                                }
                        }
                        prev_first = first;
                }
        }
        lf = lb_rounds ? id - 1 : -1;
        b->rounds[TOUR_PART_LOSERS] = lb_rounds;

        /* Placements of losers-bracket losers: everyone eliminated later,
         * plus the champion and the runner-up, finishes ahead of them. */
        {
                int later = 0;
                for (int i = id - 1; i >= P - 1; ) {
                        int lr = b->match[i].round, cnt = 0;
                        for (; i >= P - 1 && b->match[i].round == lr; i--)
                                cnt++;
                        for (int t = i + 1; t < i + 1 + cnt; t++)
                                b->match[t].loser_place = 3 + later;
                        later += cnt;
                }
        }

        if (gf == 0) {
                b->match[wf].winner_place = 1;
                if (lf >= 0)
                        b->match[lf].winner_place = 2;
                else
                        b->match[wf].loser_place = 2;
        } else {
                for (int g = 0; g < gf; g++, id++) {
                        struct tour_bracket_match *x = &b->match[id];
                        x->part = g == 0 ? TOUR_PART_GRAND_FINAL : TOUR_PART_GRAND_FINAL_RESET;
                        x->round = 1;
                        snprintf(x->label, sizeof x->label, "%s", g == 0 ? "GF" : "GF2");
                        set_slot(x, 0, TOUR_SRC_WINNER, wf);
                        if (lf >= 0)
                                set_slot(x, 1, TOUR_SRC_WINNER, lf);
                        else
                                set_slot(x, 1, TOUR_SRC_LOSER, wf);
                        x->winner_place = 1;
                        x->loser_place = 2;
                }
                b->rounds[TOUR_PART_GRAND_FINAL] = 1;
                b->rounds[TOUR_PART_GRAND_FINAL_RESET] = gf == 2 ? 1 : 0;
        }
        if (id != total) {
                r = -EINVAL;
                goto fail;
        }
        r = tour_bracket_finish(b);
        if (r < 0)
                goto fail;
        *ret_bracket = b;
        return 0;
fail:
        tour_bracket_free(b);
        return r;
}
