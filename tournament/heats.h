/* tournament/heats.h — free-for-all heats: heats of up to k, the top q of
 * each heat advance, round after round, until one final heat.
 *
 * Pure: libc only, no clock, no I/O, no global state, no randomness (the
 * split is a snake by seed, so nothing needs a seed).  Entrants are the
 * stage's numbers (types.h); a round's "field" is the list of entrants
 * still in, best seed first.
 *
 * Ownership: inputs are borrowed for the call; outputs are caller arrays
 * written from index 0.  Rules: docs/formats/swiss-and-pods.md. */
#ifndef ARBITER_TOURNAMENT_HEATS_H
#define ARBITER_TOURNAMENT_HEATS_H

#include <stdint.h>

#include "tournament/types.h"

/* Largest field: the same bound as the pairing snapshot (swiss.h). */
#define TOUR_HEATS_MAX_N 8192

/* One round of the plan. */
struct tour_heats_stage {
        int entrants;           /* in the round */
        int heats;              /* ceil(entrants / k); 1 for the final */
        int min_size, max_size; /* heat sizes; they differ by at most one */
        int advance;            /* entrants advancing out of the round; 0 for the final */
};

/* The nominal plan for n entrants, heats of at most k (2..TOUR_MAX_SEATS),
 * q advancing per heat (1..k−1).  A heat of s advances min(q, s−1), so at
 * least one entrant per heat is out and the plan always ends; a field of at
 * most k is the final.  Nominal: forfeits (which never advance) can only
 * make later rounds smaller.  ret_stages may be NULL to count only;
 * otherwise it needs room for cap entries.  Returns the number of rounds,
 * -EINVAL for bad n, k, q, -ERANGE if cap is too small. */
int tour_heats_plan(int n, int k, int q, struct tour_heats_stage *ret_stages, int cap);

/* The heats of one round: field[0..m) in seeding order is dealt in a snake
 * (1, 2, …, H, H, …, 2, 1, 1, 2, …) over H = ceil(m/k) heats (1 if m <= k),
 * so heat strengths balance and sizes differ by at most one; within a heat
 * seat order is seed order.  round is the 1-based round written into the
 * pairings.  ret_pairings needs room for ceil(m/k) entries.  Returns the
 * number of heats, -EINVAL for bad arguments or a repeated entrant. */
int tour_heats_round(int round, const int32_t *field, int m, int k, struct tour_pairing *ret_pairings);

/* Who advances from a played round.  results[0..nresults) are the heats'
 * results; together they must hold every field entrant exactly once (else
 * -EINVAL).  In each heat of s entrants the best min(q, s−1) advance,
 * best meaning: did not forfeit, lower rank, higher heat score, better seed
 * (earlier in field) — so a tie at the cut line goes to the better heat
 * score, then to the better seed.  A forfeiting entrant never advances.
 * ret_next (room for m) gets the next round's field: heat winners first,
 * then second places, …, each place in seed order.  A round of one heat is
 * the final: nobody advances, 0 is returned.  Returns how many advance. */
int tour_heats_advance(const int32_t *field, int m, int q, const struct tour_result *results,
                       int nresults, int32_t *ret_next);

#endif
