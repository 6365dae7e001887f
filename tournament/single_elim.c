/* tournament/single_elim.c — single elimination with standard placement
 * (the "inner_outer" seed ordering of brackets-manager.js;
 * docs/formats/brackets.md "Single elimination").  The tree itself is
 * tour_bracket_fill_winners(): seed s meets seed P+1-s in round 1, byes
 * are seeds n+1..P.  What is left here is the final's placements and the
 * optional third-place match. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tournament/bracket.h"

int tour_single_elim_new(int n, const struct tour_bracket_options *opt,
                         struct tour_bracket **ret_bracket) {
        struct tour_bracket_options o = { 0 };
        struct tour_bracket *b;
        int P, rounds, r, final_id;
        bool third;

        if (!ret_bracket || n < 2 || n > TOUR_BRACKET_MAX_ENTRANTS)
                return -EINVAL;
        if (opt)
                o = *opt;
        o.grand_final = TOUR_GRAND_FINAL_NONE;
        P = tour_bracket_size(n);
        /* a third-place match needs two semi-finals: P >= 4, i.e. n >= 3 */
        third = o.third_place && n >= 3;
        o.third_place = third;
        b = tour_bracket_alloc(P - 1 + (third ? 1 : 0));
        if (!b)
                return -ENOMEM;
        b->format = TOUR_BRACKET_SINGLE;
        b->options = o;
        b->n = n;
        b->size = P;
        rounds = tour_bracket_fill_winners(b);
        if (rounds < 0) {
                tour_bracket_free(b);
                return rounds;
        }
        final_id = P - 2;
        snprintf(b->match[final_id].label, sizeof b->match[final_id].label, "Final");
        b->match[final_id].winner_place = 1;
        if (third) {
                struct tour_bracket_match *t = &b->match[P - 1];
                /* the semi-finals are the two matches before the final */
                for (int s = 0; s < 2; s++) {
                        b->match[P - 4 + s].loser_place = 0;
                        t->slot[s].source = TOUR_SRC_LOSER;
                        t->slot[s].ref = P - 4 + s;
                }
                t->part = TOUR_PART_THIRD_PLACE;
                t->round = 1;
                t->index = 0;
                snprintf(t->label, sizeof t->label, "3rd place");
                t->winner_place = 3;
                t->loser_place = 4;
                b->rounds[TOUR_PART_THIRD_PLACE] = 1;
        }
        r = tour_bracket_finish(b);
        if (r < 0) {
                tour_bracket_free(b);
                return r;
        }
        *ret_bracket = b;
        return 0;
}
