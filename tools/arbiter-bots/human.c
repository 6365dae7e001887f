/* tools/arbiter-bots/human.c — see human.h. */
#include "tools/arbiter-bots/human.h"

#include <math.h>
#include <sys/time.h>

#include "common/time.h"

/* 53 random bits make a double in [0, 1). */
#define MANTISSA_BITS           53

void human_defaults(struct human_model *ret) {
        *ret = (struct human_model) {
                .median_us = HUMAN_MEDIAN_MS * USEC_PER_MSEC,
                .sigma = HUMAN_SIGMA,
                .min_us = HUMAN_MIN_MS * USEC_PER_MSEC,
                .max_us = HUMAN_MAX_MS * USEC_PER_MSEC,
                .error_pct = HUMAN_ERROR_PCT,
        };
}

void human_slap_defaults(struct human_model *ret) {
        *ret = (struct human_model) {
                .median_us = HUMAN_SLAP_MEDIAN_MS * USEC_PER_MSEC,
                .sigma = HUMAN_SLAP_SIGMA,
                .min_us = HUMAN_SLAP_MIN_MS * USEC_PER_MSEC,
                .max_us = HUMAN_SLAP_MAX_MS * USEC_PER_MSEC,
        };
}

/* Uniform in (0, 1]: never 0, so its logarithm is finite. */
static double uniform_open(struct eng_rng *rng) {
        return ((double) (eng_rng_next(rng) >> (64 - MANTISSA_BITS)) + 1.0) / (double) (UINT64_C(1) << MANTISSA_BITS);
}

/* A standard normal draw (Box–Muller, one of the pair). */
static double normal(struct eng_rng *rng) {
        double u = uniform_open(rng), v = uniform_open(rng);

        return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

int64_t human_reaction_us(const struct human_model *m, struct eng_rng *rng) {
        double t = (double) m->median_us * exp(m->sigma * normal(rng));

        if (t < (double) m->min_us)
                return m->min_us;
        if (t > (double) m->max_us)
                return m->max_us;
        return (int64_t) t;
}
