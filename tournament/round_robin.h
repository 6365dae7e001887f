/* tournament/round_robin.h — round robin by the FIDE Berger tables (FIDE
 * Handbook C.05, Annex 1; docs/formats/brackets.md "Round robin").
 *
 * Entrant e (0..n-1, the stage's seeding order) holds Berger number e+1.
 * With n odd a dummy number n+1 is added: its opponent has the bye.  A
 * cycle has N-1 rounds, N = n rounded up to even; every pair meets exactly
 * once per cycle and every entrant has at most one bye per cycle.  Double
 * round robin (cycles = 2) reverses the colours in the second cycle and, as
 * the FIDE text recommends, plays the last two rounds of the first cycle in
 * swapped order so nobody gets the same colour three times running across
 * the join.  Seat 1 (entrant[0]) is white.
 *
 * Pure and allocation-free: everything is computed into the caller's
 * arrays, one round in O(n). */
#ifndef ARBITER_TOURNAMENT_ROUND_ROBIN_H
#define ARBITER_TOURNAMENT_ROUND_ROBIN_H

#include <stddef.h>

#include "tournament/types.h"

/* 4,096 entrants: a full double schedule is then 16.8 M pairings (over 1 GB
 * of struct tour_pairing); nobody plays that, and the bound keeps
 * rounds * games within an int. */
#define TOUR_ROUND_ROBIN_MAX_ENTRANTS   4096
#define TOUR_ROUND_ROBIN_MAX_CYCLES     2

/* Rounds of the whole schedule: cycles * (n even ? n-1 : n).
 * -EINVAL for n outside 2..MAX or cycles outside 1..2. */
int tour_round_robin_rounds(int n, int cycles);

/* One round (1-based, up to tour_round_robin_rounds()).  ret_pairings
 * receives n/2 (rounded down) duels, 2 seats each, tables 1.. in Berger
 * table order with the bye's table left out; ret_bye (may be NULL) receives
 * the bye, or entrant TOUR_NONE when n is even.  Returns the number of
 * pairings or -EINVAL. */
int tour_round_robin_round(int n, int cycles, int round,
                           struct tour_pairing *ret_pairings, struct tour_bye *ret_bye);

/* The whole schedule, round after round: ret_pairings has room for
 * rounds * (n/2) entries, ret_byes (may be NULL when n is even; required
 * when n is odd) for one per round.  Returns the number of pairings or
 * -EINVAL. */
int tour_round_robin_schedule(int n, int cycles,
                              struct tour_pairing *ret_pairings, struct tour_bye *ret_byes);

#endif
