/* tournament/glicko2.h — Glicko-2 ratings for 1v1 ladders (pure: libc only).
 *
 * Mark E. Glickman, "Example of the Glicko-2 system" (glicko.net, 2013 and
 * 2022 editions): steps 1-8, the volatility found by the Illinois variant
 * of regula falsi with convergence tolerance epsilon = 1e-6.  docs/ratings.md
 * writes out the formulas as implemented; tests/unit/test_glicko2.c
 * reproduces the paper's worked example.
 *
 * Ratings are kept on the public ("Glicko-1") scale: rating around 1500,
 * RD in rating points, volatility as in the paper.  Conversion to the
 * internal scale (mu = (r - 1500) / 173.7178, phi = RD / 173.7178) happens
 * inside each call.
 *
 * Rating periods: the paper rates all of a player's games of one period
 * against the opponents' ratings at the start of the period.  arbiter makes
 * every final result its own period for its two players, both rated from
 * their pre-match ratings (tour_glicko2_rate_duel, tour_glicko2_recompute):
 * incremental and deterministic, at the cost that RD only grows when a
 * player plays (docs/ratings.md, "Rating periods").  tour_glicko2_rate_period
 * is the paper's general step for callers that group games otherwise.
 *
 * Ownership: nothing here allocates or keeps a pointer past the call.  All
 * functions are pure; a call that fails changes no rating.
 * Errors: -EINVAL for bad arguments, -ERANGE if a result is not finite.
 */
#ifndef ARBITER_TOURNAMENT_GLICKO2_H
#define ARBITER_TOURNAMENT_GLICKO2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/types.h"

/* Glickman's example, step 1: a new player is 1500 / 350 / 0.06. */
#define TOUR_GLICKO2_DEFAULT_RATING     1500.0
#define TOUR_GLICKO2_DEFAULT_RD         350.0
#define TOUR_GLICKO2_DEFAULT_VOL        0.06
/* tau constrains the change of volatility; "reasonable choices are between
 * 0.3 and 1.2", the example uses 0.5.  We refuse values outside that range. */
#define TOUR_GLICKO2_DEFAULT_TAU        0.5
#define TOUR_GLICKO2_TAU_MIN            0.3
#define TOUR_GLICKO2_TAU_MAX            1.2
/* Step 2: the Glicko-2 scale is the Glicko scale divided by 173.7178
 * (= 400 / ln 10). */
#define TOUR_GLICKO2_SCALE              173.7178
/* Step 5: convergence tolerance of the volatility iteration. */
#define TOUR_GLICKO2_EPSILON            1e-6
/* Provisional: fewer than 5 rated games (our choice, as OpenSkill), or an
 * RD of 110 or more: lichess's provisional threshold (lila,
 * modules/rating/src/main/Glicko.scala, provisionalDeviation = 110). */
#define TOUR_GLICKO2_PROVISIONAL_GAMES  5
#define TOUR_GLICKO2_PROVISIONAL_RD     110.0
/* Most games tour_glicko2_rate_period takes in one period. */
#define TOUR_GLICKO2_MAX_GAMES          4096

struct tour_glicko2_params {
        double  rating;         /* a new player's rating */
        double  rd;             /* a new player's RD, > 0 */
        double  vol;            /* a new player's volatility, > 0 */
        double  tau;            /* TOUR_GLICKO2_TAU_MIN..TOUR_GLICKO2_TAU_MAX */
        int     provisional_games;      /* provisional below this many rated games */
        double  provisional_rd;         /* ... or at or above this RD; 0 = no RD rule */
};

struct tour_glicko2_rating {
        double  rating;
        double  rd;             /* > 0 */
        double  vol;            /* > 0 */
};

/* One game of a rating period, seen from the rated player. */
struct tour_glicko2_game {
        double  opp_rating;
        double  opp_rd;         /* > 0 */
        double  score;          /* 1 win, 0.5 draw, 0 loss (any value in [0, 1] is accepted) */
};

/* Fills *ret_params with the defaults above. */
void tour_glicko2_params_default(struct tour_glicko2_params *ret_params);

/* 0 or -EINVAL (NULL, non-finite, rd or vol not > 0, tau out of range,
 * negative thresholds). */
int tour_glicko2_params_check(const struct tour_glicko2_params *params);

/* A new player's rating. */
int tour_glicko2_rating_init(const struct tour_glicko2_params *params,
                             struct tour_glicko2_rating *ret_rating);

/* Fewer than params->provisional_games rated games, or RD at or above
 * params->provisional_rd when that is set.  NULL arguments read as
 * provisional. */
bool tour_glicko2_provisional(const struct tour_glicko2_params *params,
                              const struct tour_glicko2_rating *rating, unsigned games);

/* The paper's steps 2-8 for one player and one rating period of m games
 * (0 <= m <= TOUR_GLICKO2_MAX_GAMES; games may be NULL when m is 0).  With
 * no games only RD grows: phi' = sqrt(phi^2 + sigma^2).  Updates *player
 * in place; returns 0, -EINVAL or -ERANGE. */
int tour_glicko2_rate_period(const struct tour_glicko2_params *params,
                             struct tour_glicko2_rating *player,
                             const struct tour_glicko2_game *games, size_t m);

/* One game as its own rating period for both players, each rated against
 * the other's pre-match rating.  score_a is a's score (1, 0.5 or 0; b
 * scores 1 - score_a).  a and b must be distinct.  Nothing is written
 * unless both updates succeed. */
int tour_glicko2_rate_duel(const struct tour_glicko2_params *params, struct tour_glicko2_rating *a,
                           struct tour_glicko2_rating *b, double score_a);

/* One row of rating history: a player's rating before and after result
 * number `match` (the index into the recompute's array). */
struct tour_glicko2_history {
        int32_t player;
        size_t  match;
        struct tour_glicko2_rating before;
        struct tour_glicko2_rating after;
};

/* Receives history rows in match order, seat 1 before seat 2.  A negative
 * return stops the recompute, which returns that value. */
typedef int (*tour_glicko2_history_fn)(const struct tour_glicko2_history *row, void *userdata);

/* Applies one final result to ratings[0..n_players) in place, as one duel
 * (tour_glicko2_rate_duel): what the daemon calls when a result becomes
 * final.  games (NULL allowed) has both players' counts incremented;
 * history (NULL allowed) gets a row for seat 1, then seat 2, tagged
 * match_index.  Returns 1 if rated, 0 if skipped (a forfeit), -EINVAL or
 * -ERANGE with nothing changed, or history's negative return, passed back
 * after the result was applied.  The skip and rejection rules are those of
 * tour_glicko2_recompute below. */
int tour_glicko2_apply(const struct tour_glicko2_params *params,
                       const struct tour_rating_match *match, size_t match_index, size_t n_players,
                       struct tour_glicko2_rating *ratings, unsigned *games,
                       tour_glicko2_history_fn history, void *userdata);

/* Computes every player's rating from scratch: ret_ratings[0..n_players)
 * start at the initial rating, then matches[0..n_matches) are applied in
 * array order, each as one duel (tour_glicko2_rate_duel).  The score comes
 * from the ranks: the lower rank scores 1, equal ranks 0.5 each.
 * ret_games (NULL allowed) receives each player's count of rated games;
 * history (NULL allowed) one row per player per rated game.
 *
 * A result where anybody forfeited is skipped (no change, no game counted).
 * A result without exactly two participants, naming a player outside
 * 0..n_players-1 or twice, with a rank < 1, or whose team array puts both
 * on one team fails the whole call with -EINVAL; the output arrays then
 * hold the state before that result.  Returns the number of rated games. */
int tour_glicko2_recompute(const struct tour_glicko2_params *params,
                           const struct tour_rating_match *matches, size_t n_matches,
                           size_t n_players, struct tour_glicko2_rating *ret_ratings,
                           unsigned *ret_games, tour_glicko2_history_fn history, void *userdata);

#endif
