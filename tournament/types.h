/* tournament/types.h — the N-ary match model every format, standings and
 * rating module shares (pure: libc only).
 *
 * A stage works on entrants numbered 0..n-1 (its own seeding order: entrant 0
 * is the first seed).  The stage layer in daemon/ maps them to players.  A
 * match has 1..TOUR_MAX_SEATS participants in seat order (seat 1 first), which
 * fits duels and free-for-all tables alike, as Toornament's match model (an
 * "opponents" array of number, position, result, rank, forfeit, score)
 * does. */
#ifndef ARBITER_TOURNAMENT_TYPES_H
#define ARBITER_TOURNAMENT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define TOUR_MAX_SEATS 16
#define TOUR_NONE     (-1)        /* no entrant: an empty slot, a bye, not yet known */

/* One match to be played: who sits where. */
struct tour_pairing {
        int     round;                      /* 1-based round of the stage */
        int     table;                      /* 1-based position within the round */
        int     n;                          /* participants, 1..TOUR_MAX_SEATS */
        int32_t entrant[TOUR_MAX_SEATS];       /* seat order; entrant[0] sits in seat 1 */
};

/* A played (or forfeited) match.  rank[i] is entrant[i]'s placement: 1 is
 * first, equal ranks are a tie (a drawn duel is rank 1 and 1).  A participant
 * with forfeit[i] did not play and lost by forfeit; a double forfeit is every
 * participant forfeiting (nobody scores).  score[i] is the game score the
 * match produced (cards left, victory points, games won in a best-of); 0 when
 * the game has none. */
struct tour_result {
        int     round;
        int     n;
        int32_t entrant[TOUR_MAX_SEATS];
        int     rank[TOUR_MAX_SEATS];
        double  score[TOUR_MAX_SEATS];
        bool    forfeit[TOUR_MAX_SEATS];
};

/* A bye: the entrant sat the round out and is credited as the stage's points
 * configuration says. */
struct tour_bye {
        int     round;
        int32_t entrant;
};

/* One final result as the rating drivers (openskill.h, glicko2.h) read it.
 * r->entrant[i] is a player number 0..P-1 (the caller maps stage entrants
 * to players); team NULL means every participant is their own team, else
 * team[i] >= 0 is participant i's team number: participants with the same
 * number play as one team and must share one rank. */
struct tour_rating_match {
        const struct tour_result *r;
        const int *team;
};

#endif
