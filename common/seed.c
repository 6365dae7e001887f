/* common/seed.c — a tournament's secrets and seeds.  See seed.h. */
#include "common/seed.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/* The longest message: the match label and its identity. */
#define MSG_MAX (sizeof SEED_LABEL_MATCH - 1 + 8 + 8 + 4)
/* The top bit of a seed is cleared: seeds are a PostgreSQL bigint. */
#define SEED_MASK UINT64_C(0x7fffffffffffffff)

static size_t put_be(uint8_t *p, uint64_t v, size_t n) {
        for (size_t i = 0; i < n; i++)
                p[i] = (uint8_t) (v >> (8 * (n - 1 - i)));
        return n;
}

static uint64_t get_be64(const uint8_t *p) {
        uint64_t v = 0;

        for (size_t i = 0; i < 8; i++)
                v = v << 8 | p[i];
        return v;
}

static size_t put_label(uint8_t *p, const char *label) {
        size_t n = strlen(label);

        memcpy(p, label, n);
        return n;
}

int seed_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                     uint8_t ret[SEED_SHA256_LEN]) {
        unsigned len = 0;

        if (key_len > INT32_MAX || (!key && key_len) || (!msg && msg_len))
                return -EINVAL;
        if (!HMAC(EVP_sha256(), key, (int) key_len, msg, msg_len, ret, &len) || len != SEED_SHA256_LEN)
                return -EIO;
        return 0;
}

int seed_sha256(const void *data, size_t len, uint8_t ret[SEED_SHA256_LEN]) {
        unsigned out = 0;

        if (!data && len)
                return -EINVAL;
        if (!EVP_Digest(data, len, ret, &out, EVP_sha256(), NULL) || out != SEED_SHA256_LEN)
                return -EIO;
        return 0;
}

int seed_secret_random(uint8_t ret[SEED_SECRET_LEN]) {
        size_t got = 0;

        while (got < SEED_SECRET_LEN) {
                ssize_t n = getrandom(ret + got, SEED_SECRET_LEN - got, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                got += (size_t) n;
        }
        return 0;
}

int seed_secret_of_seed(uint64_t seed, uint32_t epoch, uint8_t ret[SEED_SECRET_LEN]) {
        uint8_t msg[sizeof SEED_LABEL_SECRET - 1 + 8 + 4];
        size_t n = put_label(msg, SEED_LABEL_SECRET);

        if (epoch < 1)
                return -EINVAL;
        n += put_be(msg + n, seed, 8);
        n += put_be(msg + n, epoch, 4);
        return seed_sha256(msg, n, ret);
}

int seed_commitment(const uint8_t secret[SEED_SECRET_LEN], uint8_t ret[SEED_SHA256_LEN]) {
        return seed_sha256(secret, SEED_SECRET_LEN, ret);
}

/* The seed of message msg under secret. */
static int seed_of(const uint8_t secret[SEED_SECRET_LEN], const uint8_t *msg, size_t len, uint64_t *ret) {
        uint8_t mac[SEED_SHA256_LEN];
        int r = seed_hmac_sha256(secret, SEED_SECRET_LEN, msg, len, mac);

        if (r < 0)
                return r;
        *ret = get_be64(mac) & SEED_MASK;
        return 0;
}

int seed_match(const uint8_t secret[SEED_SECRET_LEN], int64_t tournament, int64_t stage_match, uint32_t attempt,
               uint64_t *ret) {
        uint8_t msg[MSG_MAX];
        size_t n = put_label(msg, SEED_LABEL_MATCH);

        if (tournament < 1 || stage_match < 1 || attempt < 1)
                return -EINVAL;
        n += put_be(msg + n, (uint64_t) tournament, 8);
        n += put_be(msg + n, (uint64_t) stage_match, 8);
        n += put_be(msg + n, attempt, 4);
        return seed_of(secret, msg, n, ret);
}

int seed_tournament(const uint8_t secret[SEED_SECRET_LEN], uint64_t *ret) {
        uint8_t msg[sizeof SEED_LABEL_TOURNAMENT - 1];

        return seed_of(secret, msg, put_label(msg, SEED_LABEL_TOURNAMENT), ret);
}

void seed_hex(const uint8_t *bytes, size_t n, char *ret) {
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < n; i++) {
                ret[2 * i] = digits[bytes[i] >> 4];
                ret[2 * i + 1] = digits[bytes[i] & 0xf];
        }
        ret[2 * n] = '\0';
}

static int nibble(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int seed_unhex(const char *hex, uint8_t *ret, size_t n) {
        if (!hex || strlen(hex) != 2 * n)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return -EINVAL;
                ret[i] = (uint8_t) (hi << 4 | lo);
        }
        return 0;
}
