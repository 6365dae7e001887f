/* tournament/swiss.h — Swiss pairing for two-player matches, and the
 * pairing snapshot every pairing module of this family reads (pods.h and
 * heats.h include this header for it).
 *
 * Pure: libc only, no clock, no I/O, no global state.  A pairing module does
 * not compute standings: the standings module hands it a snapshot (score,
 * rating, byes, the last two rounds' floats, active flag per entrant), a
 * meetings matrix and a seat history, and gets back the round's tables and
 * byes.  The same snapshot and
 * seed always give the same pairings, bit for bit.
 *
 * Ownership: every input is borrowed for the duration of the call and never
 * kept; every output array is the caller's, written from index 0.  Nothing
 * here allocates memory that outlives a call.
 *
 * Rules and guarantees in prose: docs/formats/swiss-and-pods.md.
 */
#ifndef ARBITER_TOURNAMENT_SWISS_H
#define ARBITER_TOURNAMENT_SWISS_H

#include <stdbool.h>
#include <stdint.h>

#include "tournament/types.h"

/* Largest field a pairing call accepts.  A meetings matrix of 8192² uint16_t
 * is 128 MiB, already beyond any club event; the bound only keeps n*n
 * products far from overflow. */
#define TOUR_PAIR_MAX_N 8192

/* The float a player received in a round (FIDE C.04.3, 1.4): DOWN for
 * the higher-ranked of two players with different scores who met, for a
 * pairing-allocated bye and for a player who scored more than a loss
 * without playing; UP for the lower-ranked of the two; NONE otherwise. */
enum tour_float {
        TOUR_FLOAT_NONE = 0,
        TOUR_FLOAT_DOWN = 1,
        TOUR_FLOAT_UP   = 2,
};

/* One entrant as the standings module sees it before the round.
 * Invariant: entrants[i].entrant == i (the snapshot is indexed by entrant). */
struct tour_pair_entrant {
        int32_t entrant;        /* 0..n-1, seeding order */
        double  score;          /* standings points; equal doubles form a score group */
        double  rating;         /* higher is stronger; breaks score ties for the order */
        int     byes;           /* byes received so far in this stage, >= 0 */
        int     last_seat;      /* seat held in the previous round: 1-based, 0 = none */
        bool    active;         /* false: dropped; never paired, history kept */
        int8_t  floated[2];     /* enum tour_float received one round ago ([0]) and
                                 * two rounds ago ([1]); zero = none (no history) */
};

/* The snapshot a pairing call reads.
 *
 *   meetings   n*n row-major, symmetric: meetings[i*n+j] is how often i and j
 *              already shared a match (any size of match).  NULL: nobody met.
 *   seats      n*TOUR_MAX_SEATS row-major: seats[i*TOUR_MAX_SEATS+s] is how
 *              often i sat in seat s+1.  NULL: no history.  Swiss reads seats
 *              1 and 2 as the colour history.
 *   round      1-based round being paired.
 *   seed       the stage's stored seed; every random choice is drawn from it
 *              (mixed with the round number), nothing else. */
struct tour_pair_input {
        int                              n;
        int                              round;
        uint64_t                         seed;
        const struct tour_pair_entrant  *entrants;
        const uint16_t                  *meetings;
        const uint16_t                  *seats;
};

/* Checks a snapshot: 1 <= n <= TOUR_PAIR_MAX_N, round >= 1, entrants
 * indexed by entrant, byes >= 0, scores and ratings finite, last_seat in
 * 0..TOUR_MAX_SEATS, floated[] values of enum tour_float, meetings
 * symmetric.  Returns the number of active entrants, or -EINVAL. */
int tour_pair_input_check(const struct tour_pair_input *in);

/* What a Swiss round had to give up, for the operator to see. */
struct tour_swiss_info {
        int rematches;          /* pairs that met before: 0 unless no rematch-free pairing exists */
        int floats;             /* pairs whose two players have different scores */
        int byes;               /* 0 or 1 */
        int searched;           /* brackets settled by the weighted search (no perfect candidate) */
};

/* The recommended number of Swiss rounds for n active players:
 * ceil(log2 n), at least 1 (enough rounds to separate one unbeaten player
 * in a field of 2^r).  The organiser may configure any other number; the
 * pairing function pairs one round at a time and does not enforce it.
 * Returns the count, or -EINVAL for n < 1. */
int tour_swiss_rounds_default(int n);

/* Pairs one Swiss round of two-player matches among the active entrants,
 * by the FIDE Dutch system (Handbook C.04.3, the text in force since
 * 1 February 2026) without its colour criteria: these games have no
 * colours.  docs/formats/swiss-and-pods.md states every criterion.
 *
 * Guarantees:
 *   - every active entrant is in exactly one pairing or is the bye;
 *     inactive entrants appear nowhere;
 *   - absolute: the bye goes to an active entrant with the fewest byes (no
 *     second bye while anyone has none), and the round has the fewest
 *     rematches any such pairing allows (none whenever one exists);
 *   - then, bracket by bracket from the top score group (its own players
 *     plus those floated down to it), the bracket's choice is the best under
 *     these criteria in this order: the rest of the round can still be
 *     completed (C4), the bye to the lowest score possible (C5), the fewest
 *     downfloaters (C6), their scores as low as possible (C7), the next
 *     bracket as good as possible by C6 and C7 (C8), the float-repeat
 *     criteria (C14–C21); ties go to the first candidate in the Dutch order
 *     of transpositions and exchanges (C.04.3 article 4);
 *   - seat 1 (white) goes to the player with more seat-2 than seat-1 games,
 *     then to the one who sat in seat 2 last round, then alternates;
 *   - tables in the order of their higher-ranked player.
 *
 * ret_pairings must have room for n/2 entries, ret_byes for 1.  ret_nbyes
 * and ret_info may be NULL.  Returns the number of pairings, -EINVAL for a
 * bad snapshot or NULL outputs, -ENOMEM. */
int tour_swiss_pair(const struct tour_pair_input *in,
                    struct tour_pairing *ret_pairings,
                    struct tour_bye *ret_byes, int *ret_nbyes,
                    struct tour_swiss_info *ret_info);

#endif
