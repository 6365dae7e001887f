/* common/seed.h — a tournament's secrets and the seeds derived from them
 * (docs/fairness.md, which a third party reimplements from).
 *
 * A tournament's matches are dealt from seeds nobody can work out before
 * they are played and anybody can check after: each match's seed is a
 * keyed function (HMAC-SHA256, RFC 2104 with FIPS 180-4's SHA-256) of the
 * tournament's secret and the match's own identity, its attempt included,
 * so that a match called again after an abort is a new deck.  The daemon
 * publishes SHA-256 of the secret (the commitment) from the start and the
 * secret itself once the tournament is finished.
 *
 * Byte strings, exactly (‖ is concatenation, u64be/u32be an unsigned
 * integer in 8 or 4 bytes, most significant first; labels are their ASCII
 * bytes, no terminating NUL):
 *
 *   secret       a competitive tournament: 32 bytes from getrandom(2);
 *                a non-competitive one (the organiser chose its seed S):
 *                SHA-256("arbiter-secret-of-seed-v1" ‖ u64be(S) ‖ u32be(epoch))
 *   commitment   SHA-256(secret)
 *   match seed   HMAC-SHA256(key = secret,
 *                            "arbiter-match-seed-v1" ‖ u64be(tournament id)
 *                            ‖ u64be(stage match id) ‖ u32be(attempt))
 *   stage draws  a competitive tournament's seed (its stages' draws come from
 *                it): HMAC-SHA256(key = secret of epoch 1, "arbiter-tournament-seed-v1")
 *
 * A seed is the first 8 bytes of the HMAC read as u64be, with the top bit
 * cleared (seeds are stored in a PostgreSQL bigint and shown as 0..2^63-1).
 * An epoch is one stretch between the start and the end of a tournament:
 * 1, then one more at each reopening (finished → running), since the end
 * revealed the secret before.
 *
 * Pure functions of their arguments except seed_secret_random(); libcrypto
 * for the hashes.  Functions return 0 or -errno.
 */
#ifndef ARBITER_COMMON_SEED_H
#define ARBITER_COMMON_SEED_H

#include <stddef.h>
#include <stdint.h>

/* A secret: 256 bits, HMAC-SHA256's block of security (RFC 2104, section 3:
 * a key shorter than the hash's output weakens it). */
#define SEED_SECRET_LEN 32
/* SHA-256's and HMAC-SHA256's output (FIPS 180-4). */
#define SEED_SHA256_LEN 32
/* Lowercase hex of a secret or a digest, without the NUL. */
#define SEED_HEX_LEN (2 * SEED_SHA256_LEN)

#define SEED_LABEL_SECRET "arbiter-secret-of-seed-v1"
#define SEED_LABEL_MATCH "arbiter-match-seed-v1"
#define SEED_LABEL_TOURNAMENT "arbiter-tournament-seed-v1"

/* HMAC-SHA256 of msg under key (RFC 4231's vectors test it). */
int seed_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                     uint8_t ret[SEED_SHA256_LEN]);
int seed_sha256(const void *data, size_t len, uint8_t ret[SEED_SHA256_LEN]);

/* A competitive tournament's secret, from the kernel's generator. */
int seed_secret_random(uint8_t ret[SEED_SECRET_LEN]);
/* A non-competitive tournament's secret of epoch (>= 1), from its seed. */
int seed_secret_of_seed(uint64_t seed, uint32_t epoch, uint8_t ret[SEED_SECRET_LEN]);
/* SHA-256(secret). */
int seed_commitment(const uint8_t secret[SEED_SECRET_LEN], uint8_t ret[SEED_SHA256_LEN]);

/* The deck seed of attempt (>= 1) of stage match stage_match of
 * tournament (both >= 1). */
int seed_match(const uint8_t secret[SEED_SECRET_LEN], int64_t tournament, int64_t stage_match, uint32_t attempt,
               uint64_t *ret);
/* A competitive tournament's own seed (its stages' draws). */
int seed_tournament(const uint8_t secret[SEED_SECRET_LEN], uint64_t *ret);

/* n bytes as 2n lowercase hex digits and a NUL. */
void seed_hex(const uint8_t *bytes, size_t n, char *ret);
/* Exactly 2n hex digits (either case) into n bytes; -EINVAL otherwise. */
int seed_unhex(const char *hex, uint8_t *ret, size_t n);

#endif
