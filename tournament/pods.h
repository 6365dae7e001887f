/* tournament/pods.h — multi-player tables: pod-Swiss, points-by-placement
 * league rounds and Pitch Fleet race rounds.
 *
 * All three read the pairing snapshot of swiss.h (scores, ratings, byes,
 * active flags, meetings, seat history, round, seed) and return one round of
 * tables as struct tour_pairing (seat order: entrant[0] sits in seat 1) plus
 * the byes.  Pure: libc only, no clock, no I/O, no global state; the same
 * snapshot gives the same tables, every random choice is drawn from
 * in->seed mixed with in->round.
 *
 * Ownership: inputs are borrowed for the call; outputs are caller arrays
 * written from index 0.  ret_pairings needs room for n entries and ret_byes
 * for n entries (n = in->n always suffices).
 *
 * The exact rules are in docs/formats/swiss-and-pods.md. */
#ifndef ARBITER_TOURNAMENT_PODS_H
#define ARBITER_TOURNAMENT_PODS_H

#include "tournament/swiss.h"

/* Table sizes the pod formats accept: EDH_matchmaker
 * (github.com/eVen-gits/EDH_matchmaker) and the issue ask for k = 3..6; race
 * rounds allow any table up to the model's seat limit. */
#define TOUR_PODS_MIN_K 3
#define TOUR_PODS_MAX_K 6

/* Bound on improvement passes: each accepted swap strictly lowers the
 * repeat cost, so the search ends anyway; the bound caps its time on
 * pathological histories.  8 passes were enough in every test field (the
 * bench prints how many a 2,048-player round used). */
#define TOUR_PODS_MAX_PASSES 8

/* League and race rounds restart the swap search from other seeded orders
 * while the field is small: at most TOUR_PODS_MAX_RESTARTS starts, fewer as
 * m² grows so that starts × m² stays near TOUR_PODS_RESTART_WORK (a club
 * night of 12..40 gets all 16 starts, 2,048 players one). */
#define TOUR_PODS_MAX_RESTARTS  16
#define TOUR_PODS_RESTART_WORK  (1L << 16)

/* What to do when the active count cannot be cut into pods of k and k−1
 * (for k = 4: n = 1, 2, 5).  Chosen by the organiser; applied only then. */
enum tour_pods_policy {
        TOUR_PODS_BYE = 1,      /* the lowest-ranked with the fewest byes sit out, as few as needed */
        TOUR_PODS_BIG_POD,      /* as few pods of k+1 as needed */
        TOUR_PODS_SMALL_PODS,   /* pods of k−1 and k−2 (k−2 >= 2) */
};

struct tour_pods_info {
        int  pods;              /* tables in the round */
        int  byes;              /* entrants sitting out */
        int  repeats;           /* pod-mate pairs that had met before */
        long repeat_cost;       /* Σ over pod-mate pairs of meetings², what the swaps minimise */
        int  swaps;             /* improving swaps made */
};

/* Table sizes for n active entrants and pods of k, largest first, and how
 * many sit out.  ret_sizes needs room for n entries.  Returns the number of
 * pods; -EINVAL for k outside TOUR_PODS_MIN_K..TOUR_PODS_MAX_K, n < 0 or a
 * bad policy; -ERANGE when n cannot be split and the policy cannot apply
 * (BYE with n < k−1, BIG_POD or SMALL_PODS with no fitting split). */
int tour_pods_sizes(int n, int k, enum tour_pods_policy policy, int *ret_sizes, int *ret_nbyes);

/* One pod-Swiss round: active entrants ordered by score, rating, then a
 * seeded random key (round 1: a seeded random order), byes taken from the
 * bottom if the policy says so, cut into pods top-down (large pods first),
 * improved by swaps between adjacent pods that lower the repeat cost
 * Σ meetings² (ties: the swap that mixes scores least), seats rotated.
 * Returns the number of pods, or an error as tour_pods_sizes, -EINVAL for
 * a bad snapshot or NULL output, -ENOMEM. */
int tour_pods_pair(const struct tour_pair_input *in, int k, enum tour_pods_policy policy,
                   struct tour_pairing *ret_pairings, struct tour_bye *ret_byes, int *ret_nbyes,
                   struct tour_pods_info *ret_info);

/* One round of a points-by-placement league: as tour_pods_pair with every
 * score ignored (a seeded random order each round) and swaps allowed
 * between any two pods, so meetings spread as evenly as the local search
 * finds.  Called once per round with the meetings so far, it schedules the
 * league.  Same returns. */
int tour_pods_league(const struct tour_pair_input *in, int k, enum tour_pods_policy policy,
                     struct tour_pairing *ret_pairings, struct tour_bye *ret_byes, int *ret_nbyes,
                     struct tour_pods_info *ret_info);

/* One Pitch Fleet race round: every active entrant races, nobody sits out.
 * ceil(n/k) tables whose sizes differ by at most one (largest first), filled
 * as a league round (who shares a table rotates), seats rotated.  k is
 * 1..TOUR_MAX_SEATS.  Returns the number of tables, -EINVAL, -ENOMEM. */
int tour_pods_race(const struct tour_pair_input *in, int k, struct tour_pairing *ret_pairings,
                   struct tour_pods_info *ret_info);

#endif
