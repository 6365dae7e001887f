/* tools/arbiter-padsim/rng.h — reproducible random numbers.
 *
 * xoshiro256** seeded through splitmix64 (Vigna's reference generators).
 * Every source of chance in the simulator owns one stream derived from
 * --seed and a fixed stream number, so the draws of one pad do not depend on
 * how its timers interleave with another pad's: the same seed gives each pad
 * the same HELLO phase, reaction times and noise, whatever the scheduling.
 */
#ifndef ARBITER_PADSIM_RNG_H
#define ARBITER_PADSIM_RNG_H

#include <stdint.h>

struct rng {
        uint64_t s[4];
};

/* Stream numbers: each consumer of chance has its own. */
enum {
        RNG_STREAM_LINE   = 1,          /* drops, bit flips, garbage */
        RNG_STREAM_BOTS   = 2,          /* stimulus times */
        RNG_STREAM_UID    = 3,          /* the default --uid-base */
        RNG_STREAM_PAD0   = 16,         /* pad i uses RNG_STREAM_PAD0 + i */
};

uint64_t rng_splitmix64(uint64_t *state);
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1). */
double rng_uniform(struct rng *r);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* True with probability p. */
int rng_chance(struct rng *r, double p);
/* Standard normal (Box–Muller). */
double rng_normal(struct rng *r);
/* Log-normal with the given median and standard deviation of the log. */
double rng_lognormal(struct rng *r, double median, double sigma);
/* Exponential with the given mean. */
double rng_exponential(struct rng *r, double mean);

#endif
