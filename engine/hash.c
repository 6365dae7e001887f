/* engine/hash.c — FNV-1a 64 with fixed-width little-endian integers; see
 * hash.h for why. */
#include "engine/hash.h"

void eng_hash_bytes(struct eng_hash *hs, const void *p, size_t n) {
        const uint8_t *b = p;
        uint64_t h = hs->h;

        for (size_t i = 0; i < n; i++) {
                h ^= b[i];
                h *= ENG_FNV64_PRIME;
        }
        hs->h = h;
}

/* Integers are written byte by byte, least significant first, so the
 * result does not depend on the host's byte order. */
static void hash_le(struct eng_hash *hs, uint64_t v, int width) {
        uint8_t b[8];

        for (int i = 0; i < width; i++)
                b[i] = (uint8_t) (v >> (8 * i));
        eng_hash_bytes(hs, b, (size_t) width);
}

void eng_hash_u8(struct eng_hash *hs, uint8_t v) {
        hash_le(hs, v, 1);
}

void eng_hash_u16(struct eng_hash *hs, uint16_t v) {
        hash_le(hs, v, 2);
}

void eng_hash_u32(struct eng_hash *hs, uint32_t v) {
        hash_le(hs, v, 4);
}

void eng_hash_u64(struct eng_hash *hs, uint64_t v) {
        hash_le(hs, v, 8);
}

/* Two's complement, as every int64_t is (C11 7.20.1.1). */
void eng_hash_i64(struct eng_hash *hs, int64_t v) {
        hash_le(hs, (uint64_t) v, 8);
}

void eng_hash_bool(struct eng_hash *hs, bool v) {
        hash_le(hs, v ? 1 : 0, 1);
}

uint64_t eng_fnv1a64(const void *p, size_t n) {
        struct eng_hash hs;

        eng_hash_init(&hs);
        eng_hash_bytes(&hs, p, n);
        return hs.h;
}
