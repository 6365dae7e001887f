/* tools/arbiter-padsim/rng.c — see rng.h. */
#include "tools/arbiter-padsim/rng.h"

#include <math.h>

/* The mixing constant splitmix64 steps by (the golden ratio in 64 bits). */
#define SPLITMIX_GAMMA UINT64_C(0x9e3779b97f4a7c15)

uint64_t rng_splitmix64(uint64_t *state) {
        uint64_t z = (*state += SPLITMIX_GAMMA);

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Streams are separated by mixing the stream number into the seed before
 * expanding it, so neighbouring streams share no state words. */
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream) {
        uint64_t st = seed ^ (stream * SPLITMIX_GAMMA);

        for (int i = 0; i < 4; i++)
                r->s[i] = rng_splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r) {
        uint64_t *s = r->s;
        uint64_t result = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;

        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
}

double rng_uniform(struct rng *r) {
        return (double) (rng_next(r) >> 11) * 0x1.0p-53;
}

/* Lemire's multiply-shift would be faster; a modulo's bias of n / 2^64 is
 * far below anything a simulation run could notice. */
uint64_t rng_below(struct rng *r, uint64_t n) {
        return n ? rng_next(r) % n : 0;
}

int rng_chance(struct rng *r, double p) {
        if (p <= 0)
                return 0;
        return rng_uniform(r) < p;
}

double rng_normal(struct rng *r) {
        double u1 = 1.0 - rng_uniform(r);       /* (0, 1]: log() stays finite */
        double u2 = rng_uniform(r);

        return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double rng_lognormal(struct rng *r, double median, double sigma) {
        return median * exp(sigma * rng_normal(r));
}

double rng_exponential(struct rng *r, double mean) {
        return -mean * log(1.0 - rng_uniform(r));
}
