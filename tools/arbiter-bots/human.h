/* tools/arbiter-bots/human.h — how fast and how often wrong a simulated
 * player is.
 *
 * Reaction times are log-normal, the usual simple fit for human reaction
 * times (right-skewed, never below a floor), clamped to [min, max].  The
 * defaults are assumptions for a plausible demo, not measurements
 * (docs/bots.md says why these numbers).  A call is wrong with probability
 * error_pct / 100 — which wrong call, and which right one, is the game's
 * play's choice (Crash Pilot: cp_bot_call() in engine/crash_pilot.h;
 * Crazy Pilot: crazy.h, from cz_scene_answer()).
 *
 * Pure: the draws come from the caller's generator (engine/rng.h), so a
 * seed reproduces them.
 */
#ifndef ARBITER_BOTS_HUMAN_H
#define ARBITER_BOTS_HUMAN_H

#include <stdint.h>

#include "engine/rng.h"

struct human_model {
        int64_t median_us;              /* the median reaction time */
        double sigma;                   /* standard deviation of its logarithm */
        int64_t min_us, max_us;         /* the clamp */
        unsigned error_pct;             /* calls that are wrong, in percent */
};

#define HUMAN_MEDIAN_MS         1000
#define HUMAN_SIGMA             0.35
#define HUMAN_MIN_MS            300
#define HUMAN_MAX_MS            6000
#define HUMAN_ERROR_PCT         10
/* A slap in a race is a simple reaction to a shout (a sound, a movement),
 * no choice to make: well under a decision's time, and never much below
 * about 150 ms. */
#define HUMAN_SLAP_MEDIAN_MS    450
#define HUMAN_SLAP_SIGMA        0.25
#define HUMAN_SLAP_MIN_MS       150
#define HUMAN_SLAP_MAX_MS       3000
#define HUMAN_FALSE_SHOUT_PCT   3

void human_defaults(struct human_model *ret);
/* The slap model's defaults (error_pct unused). */
void human_slap_defaults(struct human_model *ret);

/* One reaction time, in µs. */
int64_t human_reaction_us(const struct human_model *m, struct eng_rng *rng);

#endif
