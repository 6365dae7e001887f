/* tournament/openskill.h — OpenSkill (Weng-Lin) Plackett-Luce ratings for
 * multi-player and team matches (pure: libc only).
 *
 * The model is Algorithm 4 of Weng and Lin, "A Bayesian Approximation
 * Method for Online Ranking", JMLR 12 (2011), as the reference
 * implementations openskill.py (vivekjoshy/openskill.py,
 * openskill/models/weng_lin/plackett_luce.py) and openskill.js
 * (philihp/openskill.js, src/models/plackett-luce.ts) compute it; the
 * formulas as implemented are written out in docs/ratings.md and
 * tests/unit/test_openskill.c reproduces both projects' published vectors.
 *
 * A rating is a Gaussian belief N(mu, sigma^2) about a player's skill.
 * What a scoreboard shows is the ordinal mu - 3 sigma: a skill the player
 * very probably has at least, so a newcomer starts at 0 and climbs.
 *
 * Ownership: nothing here allocates.  Every function works on memory the
 * caller owns and keeps; no pointer is retained after a call returns.
 * Every function is a pure function of its arguments (no globals, no
 * clock), so a recompute over the same results gives the same bits.
 *
 * Errors: -EINVAL for bad arguments (NULL where not allowed, a count out of
 * range, a non-finite or non-positive sigma, an inconsistent result),
 * -ERANGE when an update would leave the finite numbers.  A call that fails
 * changes no rating.
 */
#ifndef ARBITER_TOURNAMENT_OPENSKILL_H
#define ARBITER_TOURNAMENT_OPENSKILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/types.h"

/* Defaults of openskill.py and openskill.js:
 * mu = 25, sigma = mu/3, beta = sigma/2, kappa = 1e-4, tau = mu/300. */
#define TOUR_OS_DEFAULT_MU      25.0
#define TOUR_OS_DEFAULT_SIGMA   (25.0 / 3.0)
#define TOUR_OS_DEFAULT_BETA    (25.0 / 6.0)
#define TOUR_OS_DEFAULT_KAPPA   1e-4
#define TOUR_OS_DEFAULT_TAU     (25.0 / 300.0)
/* Standard deviations the ordinal subtracts: openskill's z = 3. */
#define TOUR_OS_ORDINAL_Z       3.0
/* A player is provisional before this many rated matches (our choice, the
 * same count tour_glicko2_provisional uses; docs/ratings.md). */
#define TOUR_OS_PROVISIONAL_GAMES 5

/* Bounds of one tour_os_rate call: the scratch space lives on the stack.
 * A tournament match has at most TOUR_MAX_SEATS participants; these leave
 * room for larger ad-hoc calls. */
#define TOUR_OS_MAX_TEAMS       64
#define TOUR_OS_MAX_PLAYERS     256

/* How much a team's variance may shrink in one match: the gamma_q of
 * Weng-Lin.  openskill.py and openskill.js both default to sigma_q / c
 * (the team's standard deviation over the match's c); 1/k (k = number of
 * teams) is the other choice the paper discusses. */
enum tour_os_gamma {
        TOUR_OS_GAMMA_SIGMA_OVER_C = 0,         /* openskill default */
        TOUR_OS_GAMMA_ONE_OVER_K,
};

struct tour_os_params {
        double  mu;             /* a new player's mu */
        double  sigma;          /* a new player's sigma, > 0 */
        double  beta;           /* performance noise per player, > 0 */
        double  kappa;          /* floor of the variance shrink factor, > 0 */
        double  tau;            /* dynamics: sigma^2 + tau^2 before each match, >= 0 */
        enum tour_os_gamma gamma;
        bool    limit_sigma;    /* never let a match raise sigma (openskill's limit_sigma) */
        int     provisional_games;      /* provisional below this many rated matches */
        double  provisional_sigma;      /* ... or above this sigma; 0 = no sigma rule */
};

struct tour_os_rating {
        double  mu;
        double  sigma;          /* > 0 and finite */
};

/* Fills *ret_params with the defaults above (openskill's gamma, no sigma
 * limit, provisional below TOUR_OS_PROVISIONAL_GAMES matches). */
void tour_os_params_default(struct tour_os_params *ret_params);

/* 0 if params are usable, else -EINVAL (NULL, non-finite, sigma, beta or
 * kappa not > 0, tau < 0, unknown gamma, negative thresholds). */
int tour_os_params_check(const struct tour_os_params *params);

/* A new player's rating: {params->mu, params->sigma}. */
int tour_os_rating_init(const struct tour_os_params *params, struct tour_os_rating *ret_rating);

/* mu - 3 sigma: the number to sort a scoreboard by. */
double tour_os_ordinal(const struct tour_os_rating *rating);

/* Whether a rating is still provisional after `games` rated matches: fewer
 * than params->provisional_games, or sigma above params->provisional_sigma
 * when that is set.  NULL arguments read as provisional. */
bool tour_os_provisional(const struct tour_os_params *params, const struct tour_os_rating *rating,
                         unsigned games);

/* Rates one match in place.
 *
 * players holds the rating pointers team by team: team 0's team_sizes[0]
 * players first, then team 1's, and so on; n_teams teams.  ranks[t] is
 * team t's placement, lower is better, equal values are a tie; only the
 * order matters (ranks 1,2,2 and 10,20,20 rate alike).  ranks NULL means
 * the teams finished in the order given.
 *
 * Every new value is computed from the pre-match values of everybody
 * (teams are rated simultaneously), then all are written; on any error
 * nothing is written.  Requirements: 2 <= n_teams <= TOUR_OS_MAX_TEAMS,
 * every team size >= 1, at most TOUR_OS_MAX_PLAYERS players in all, no
 * pointer twice, every mu finite and every sigma finite and > 0.
 * Returns 0, -EINVAL or -ERANGE. */
int tour_os_rate(const struct tour_os_params *params, struct tour_os_rating *const *players,
                 const size_t *team_sizes, const int *ranks, size_t n_teams);


/* One row of rating history: player's rating before and after match
 * number `match` (the index into the recompute's array). */
struct tour_os_history {
        int32_t player;
        size_t  match;
        struct tour_os_rating before;
        struct tour_os_rating after;
};

/* Receives history rows in match order, then seat order within a match.
 * A negative return stops the recompute, which returns that value. */
typedef int (*tour_os_history_fn)(const struct tour_os_history *row, void *userdata);

/* Applies one final result to ratings[0..n_players) in place: what the
 * daemon calls when a result becomes final.  games (NULL allowed) has each
 * rated participant's count incremented; history (NULL allowed) gets one
 * row per participant, tagged match_index.  Returns 1 if the result was
 * rated, 0 if it was skipped (a forfeit, fewer than two teams), -EINVAL or
 * -ERANGE with nothing changed, or history's negative return, passed back
 * after the result was applied (ratings and counts already updated).  The
 * skip and rejection rules are those of tour_os_recompute below. */
int tour_os_apply(const struct tour_os_params *params, const struct tour_rating_match *match,
                  size_t match_index, size_t n_players, struct tour_os_rating *ratings,
                  unsigned *games, tour_os_history_fn history, void *userdata);

/* Computes every player's rating from scratch: ret_ratings[0..n_players)
 * are set to the initial rating, then matches[0..n_matches) are applied in
 * array order.  ret_games (NULL allowed) receives each player's count of
 * rated matches, for tour_os_provisional.  history (NULL allowed) gets one
 * row per rated participant.
 *
 * A match is skipped (changes nothing, counts for nobody) when any
 * participant forfeited or when it has fewer than two teams.  A match that
 * names a player outside 0..n_players-1, a player twice, a rank < 1, a
 * negative team number or teammates with different ranks makes the whole
 * call fail with -EINVAL; the output arrays then hold the state before that
 * match.  Returns the number of rated matches. */
int tour_os_recompute(const struct tour_os_params *params, const struct tour_rating_match *matches,
                      size_t n_matches, size_t n_players, struct tour_os_rating *ret_ratings,
                      unsigned *ret_games, tour_os_history_fn history, void *userdata);

#endif
