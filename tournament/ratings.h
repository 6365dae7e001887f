/* tournament/ratings.h — one step of a game's ratings: the same function
 * for the update a new result makes and for a recompute (pure: libc only).
 *
 * A game's ratings are its results applied one at a time in one order
 * (docs/ratings.md, "The order").  Each result is one step, and a step is
 * tour_ratings_step(): OpenSkill Plackett-Luce for every result
 * (tour_os_apply) and Glicko-2 for a duel (tour_glicko2_apply), applied to
 * the states of that result's participants and nobody else's.  The daemon's
 * update after a new result calls it with the stored states of that
 * result's players; its recompute calls it for each result in turn over
 * states it holds in memory.  Both call this one function with the same
 * numbers (a double goes to the database and back unchanged), so both give
 * the same table to the last bit: tests/unit/test_ratings_step.c checks it
 * over random results, against tour_os_recompute and
 * tour_glicko2_recompute too.
 *
 * Rules: those of tour_os_recompute and tour_glicko2_recompute.  A result
 * where anybody forfeited, or with one participant, changes nothing and
 * counts for nobody; Glicko-2 rates duels only.  A result those modules
 * reject (a rank < 1, a player twice) changes nothing either: the step
 * returns -EINVAL and the caller skips the result (and logs it) instead of
 * stopping the game's ratings there.
 *
 * Ownership: nothing here allocates or keeps a pointer past a call.
 */
#ifndef ARBITER_TOURNAMENT_RATINGS_H
#define ARBITER_TOURNAMENT_RATINGS_H

#include <stdbool.h>

#include "tournament/glicko2.h"
#include "tournament/openskill.h"
#include "tournament/types.h"

/* One player's standing in a game, in both systems. */
struct tour_rating_state {
        struct tour_os_rating os;
        unsigned os_games;              /* rated OpenSkill results */
        struct tour_glicko2_rating g2;
        unsigned g2_games;              /* rated duels */
};

/* Which systems a step rated. */
#define TOUR_RATED_OPENSKILL    1u
#define TOUR_RATED_GLICKO2      2u

/* What a step did, for the history: each participant's state before it,
 * in seat order (the state after it is where the caller's pointer points). */
struct tour_rating_step {
        int n;
        unsigned rated;                 /* TOUR_RATED_* bits; 0: the result was skipped */
        struct tour_rating_state before[TOUR_MAX_SEATS];
};

/* 0 if both parameter sets are usable, else -EINVAL. */
int tour_ratings_params_check(const struct tour_os_params *os, const struct tour_glicko2_params *g2);

/* A new player's state: both initial ratings, no games. */
void tour_rating_state_init(const struct tour_os_params *os, const struct tour_glicko2_params *g2,
                            struct tour_rating_state *ret);

/* Applies result res to its participants: players[k] is the state of the
 * participant in seat k (res->entrant is not read), k < res->n.  Returns 0
 * (rated, or skipped: ret_step->rated says which), or -EINVAL (bad
 * parameters, n out of 1..TOUR_MAX_SEATS, a NULL or repeated pointer, a
 * result the systems reject) or -ERANGE, with every state unchanged. */
int tour_ratings_step(const struct tour_os_params *os, const struct tour_glicko2_params *g2,
                      const struct tour_result *res, struct tour_rating_state *const *players,
                      struct tour_rating_step *ret_step);

#endif
