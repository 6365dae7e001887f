/* engine/hash.h — the 64-bit state hash: FNV-1a over a canonical
 * serialisation.
 *
 * What the hash is for: the runtime stores it with every input, and after a
 * restart it replays the log and compares (docs/architecture.md,
 * "Persistence").  It has to catch divergence caused by bugs — a changed
 * rule, a platform difference, a corrupted or reordered log — not an
 * adversary.  So it needs to be stable (defined byte for byte, no key, no
 * platform dependence), fast, and small; it does not need to be keyed or
 * collision resistant.
 *
 * Why FNV-1a 64 (Fowler, Noll, Vo; draft-eastlake-fnv): public reference
 * vectors, six lines of code, and one multiply per byte, which is nothing
 * next to the few hundred bytes of a game state.  SipHash would add a key
 * that buys nothing here (its point is to stop an attacker from choosing
 * colliding inputs, but anyone who can write the input log can already
 * change the match); a cryptographic hash (SHA-256) would prove integrity
 * against tampering, which the database's own access control is for, at
 * twenty times the cost.  A 64-bit hash lets two diverged states collide
 * with probability about 2^-64 per comparison.
 *
 * Canonical serialisation: engines feed their state field by field through
 * the typed functions below, which write integers little-endian at fixed
 * widths, so the bytes hashed are the same on every platform and never
 * include struct padding or dead array slots.  Each engine documents its
 * field order next to its hash function and versions it.
 */
#ifndef ARBITER_ENGINE_HASH_H
#define ARBITER_ENGINE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64 offset basis and prime (draft-eastlake-fnv, section 5). */
#define ENG_FNV64_OFFSET        UINT64_C(0xcbf29ce484222325)
#define ENG_FNV64_PRIME         UINT64_C(0x00000100000001b3)

struct eng_hash {
        uint64_t h;
};

static inline void eng_hash_init(struct eng_hash *hs) {
        hs->h = ENG_FNV64_OFFSET;
}

void eng_hash_bytes(struct eng_hash *hs, const void *p, size_t n);
void eng_hash_u8(struct eng_hash *hs, uint8_t v);
void eng_hash_u16(struct eng_hash *hs, uint16_t v);
void eng_hash_u32(struct eng_hash *hs, uint32_t v);
void eng_hash_u64(struct eng_hash *hs, uint64_t v);
void eng_hash_i64(struct eng_hash *hs, int64_t v);
void eng_hash_bool(struct eng_hash *hs, bool v);

static inline uint64_t eng_hash_value(const struct eng_hash *hs) {
        return hs->h;
}

/* FNV-1a 64 of p[0..n), for the reference vectors and one-off uses. */
uint64_t eng_fnv1a64(const void *p, size_t n);

#endif
