/* tournament/groups.h — splitting a field into groups, and seeding the next
 * stage (a bracket) from the standings of the previous one
 * (docs/formats/brackets.md "Groups and multi-stage seeding").
 *
 * Entrants are the previous stage's numbers 0..n-1 (its seeding order for
 * the split; whatever numbering its standings use for the seeding
 * functions).  The output of a seeding function is ret_seeds[k] = the
 * previous-stage entrant who becomes entrant k (seed k+1) of the new stage;
 * tour_single_elim_new(k, ...) then places them by standard placement.
 *
 * Pure: no clock, no I/O, no global state; the random draw takes its seed
 * as an argument and the same seed always gives the same draw.  Nothing is
 * allocated that outlives a call; callers own every array. */
#ifndef ARBITER_TOURNAMENT_GROUPS_H
#define ARBITER_TOURNAMENT_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "tournament/types.h"

/* Matches bracket.h: a seeding never feeds more than one bracket holds. */
#define TOUR_GROUPS_MAX_ENTRANTS        65536
/* tour_groups_seed_bracket() solves one g x g assignment per tier, O(g^3)
 * each, k * g^2 in all: 256 groups and 4,096 seeded entrants bound that
 * at about 3 * 10^8 steps (well under a second).  A club event has at most
 * a few dozen groups. */
#define TOUR_GROUPS_MAX_GROUPS          256
#define TOUR_GROUPS_MAX_SEEDED          4096

/* Snake seeding: seeds 1..g go to groups 1..g, seeds g+1..2g to groups
 * g..1, and so on, so the sum of seeds is as even as it can be.
 * ret_group[e] = group of entrant e (0-based).  Group sizes differ by at
 * most one.  Returns 0, or -EINVAL for n outside 1..MAX, g outside 1..n,
 * NULL ret_group. */
int tour_groups_snake(int n, int g, int *ret_group);

/* A seeded draw with pots: pot p holds seeds p*g+1..p*g+g; each full pot is
 * dealt one entrant per group in a random order, the last partial pot to
 * distinct random groups.  So every group gets one entrant of each pot and
 * sizes differ by at most one, as with the snake.  Same seed, same draw.
 * Returns as tour_groups_snake(). */
int tour_groups_draw(int n, int g, uint64_t seed, int *ret_group);

/* The members of group `which`, in seeding (entrant) order.  ret_members
 * has room for n.  Returns the count or -EINVAL. */
int tour_groups_members(int n, const int *group, int which, int32_t *ret_members);

/* Seeds a bracket from group standings.  standings[grp * q + place] is the
 * entrant finishing place+1 in group grp; the top q of each of the g groups
 * advance (k = g*q entrants; g <= TOUR_GROUPS_MAX_GROUPS, k <=
 * TOUR_GROUPS_MAX_SEEDED).  Tier t (the (t+1)-th placed of every group)
 * takes seeds t*g+1..t*g+g, winners first, so a group winner meets a
 * runner-up in round 1 (when k is a power of two; otherwise byes go to the
 * top seeds, i.e. to group winners).  Within a tier the groups are ordered
 * to keep entrants of one group as far apart in the bracket as possible:
 * with g a power of two, winner and runner-up of a group are in opposite
 * halves and can only meet in the final; generally each pair of group-mates
 * is placed so that the earliest round they can meet is as late as an exact
 * assignment per tier can make it (docs/formats/brackets.md).  Group
 * winners keep the caller's group order (group 0's winner is seed 1); the
 * order within later tiers is the assignment's.  n is the previous stage's entrant count, used to
 * check that the entrants are in 0..n-1 and distinct.  Returns 0 or
 * -EINVAL, -ENOMEM. */
int tour_groups_seed_bracket(int n, int g, int q, const int32_t *standings, int32_t *ret_seeds);

/* Seeds a top cut of `cut` entrants from an overall standings list
 * (standings[0] first; n entries, entrants 0..n-1 distinct) and a
 * previous-meetings matrix met[a * n + b] (non-zero: a and b have met; may
 * be NULL).  The seeds follow the standings, except that a first-round
 * rematch (seed s against P+1-s, standard placement) is removed by the
 * smallest swap: the lower seed of the pair is exchanged with the nearest
 * seed (distance 1, 2, ..., the lower one first) that also plays in round 1
 * and whose exchange creates no rematch among the pairs already settled.
 * Byes are never moved.  ret_seeds has room for `cut`.  Returns the number
 * of first-round rematches that could not be avoided (0 normally), or
 * -EINVAL (cut outside 2..n, bad entrants), -ENOMEM. */
int tour_groups_top_cut(int n, const int32_t *standings, int cut, const uint8_t *met, int32_t *ret_seeds);

#endif
