/* engine/rng.h — the engines' seeded pseudo-random number generator.
 *
 * xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 2021; reference code at prng.di.unimi.it), seeded
 * by running splitmix64 (Steele, Lea and Flood, OOPSLA 2014) from one 64-bit
 * seed, the seeding the authors recommend.  Why this generator: 256 bits of
 * state give a period of 2^256 − 1, far beyond the ~10^40 orders of a
 * 32-card shuffle; it passes BigCrush and PractRand; its output is fixed by a
 * published reference, so a match replays bit for bit on any platform and
 * any later version of the daemon (tests/unit/test_engine_rng.c checks both
 * reference vectors).  It is not cryptographic: a seed is a secret only in
 * the sense that the runtime must not show it before the match is over.
 *
 * Pure: no I/O, no clock, no allocation.  struct eng_rng is plain data:
 * copying it forks the sequence, which is what a state copy relies on.
 */
#ifndef ARBITER_ENGINE_RNG_H
#define ARBITER_ENGINE_RNG_H

#include <stddef.h>
#include <stdint.h>

struct eng_rng {
        uint64_t s[4];
};

/* One splitmix64 step: advances *state and returns the next output. */
uint64_t eng_splitmix64(uint64_t *state);

/* Seeds from one 64-bit value: s[0..3] are four successive splitmix64
 * outputs from seed.  Every seed, 0 included, gives a valid (non-zero)
 * state: splitmix64 is a bijection of its counter, so four outputs are
 * never all zero. */
void eng_rng_seed(struct eng_rng *rng, uint64_t seed);

/* The next 64 bits of xoshiro256**. */
uint64_t eng_rng_next(struct eng_rng *rng);

/* Uniform in [0, bound), without modulo bias.  A bound of 0 or 1 returns 0
 * and consumes nothing. */
uint64_t eng_rng_below(struct eng_rng *rng, uint64_t bound);

/* Fisher–Yates (Durstenfeld) shuffle of a[0..n): every permutation equally
 * likely, n − 1 draws for n >= 2. */
void eng_rng_shuffle_u8(struct eng_rng *rng, uint8_t *a, size_t n);

#endif
