/* engine/rng.c — xoshiro256** seeded by splitmix64; see rng.h. */
#include "engine/rng.h"

/* splitmix64's increment (2^64 / golden ratio) and multipliers: the
 * constants of Vigna's splitmix64.c, which the reference vector checks. */
#define SPLITMIX_GAMMA  UINT64_C(0x9e3779b97f4a7c15)
#define SPLITMIX_MUL1   UINT64_C(0xbf58476d1ce4e5b9)
#define SPLITMIX_MUL2   UINT64_C(0x94d049bb133111eb)

static inline uint64_t rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

uint64_t eng_splitmix64(uint64_t *state) {
        uint64_t z = (*state += SPLITMIX_GAMMA);

        z = (z ^ (z >> 30)) * SPLITMIX_MUL1;
        z = (z ^ (z >> 27)) * SPLITMIX_MUL2;
        return z ^ (z >> 31);
}

void eng_rng_seed(struct eng_rng *rng, uint64_t seed) {
        for (int i = 0; i < 4; i++)
                rng->s[i] = eng_splitmix64(&seed);
}

/* xoshiro256starstar.c, next(), as published. */
uint64_t eng_rng_next(struct eng_rng *rng) {
        uint64_t *s = rng->s;
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

/* Rejection sampling as in OpenBSD's arc4random_uniform: outputs below
 * 2^64 mod bound are thrown away so that every residue is hit by exactly
 * floor(2^64 / bound) outputs.  The loop runs more than once with
 * probability below bound / 2^64, and deterministically for a given state,
 * which replay needs. */
uint64_t eng_rng_below(struct eng_rng *rng, uint64_t bound) {
        uint64_t min, r;

        if (bound < 2)
                return 0;
        min = -bound % bound;
        do
                r = eng_rng_next(rng);
        while (r < min);
        return r % bound;
}

void eng_rng_shuffle_u8(struct eng_rng *rng, uint8_t *a, size_t n) {
        for (size_t i = n; i > 1; i--) {
                size_t j = (size_t) eng_rng_below(rng, i);
                uint8_t t = a[i - 1];

                a[i - 1] = a[j];
                a[j] = t;
        }
}
