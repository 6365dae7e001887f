/* organiser/draws.c — see draws.h. */
#include "organiser/draws.h"

#include <errno.h>
#include <string.h>

int org_secret_new(bool competitive, uint64_t seed, uint32_t epoch, char ret_hex[SEED_HEX_LEN + 1]) {
        uint8_t secret[SEED_SECRET_LEN];
        int r = competitive ? seed_secret_random(secret) : seed_secret_of_seed(seed, epoch, secret);

        if (r == 0)
                seed_hex(secret, sizeof secret, ret_hex);
        explicit_bzero(secret, sizeof secret);
        return r;
}

int org_tournament_seed(const char *secret_hex, uint64_t *ret) {
        uint8_t secret[SEED_SECRET_LEN];
        int r = seed_unhex(secret_hex, secret, sizeof secret);

        if (r == 0)
                r = seed_tournament(secret, ret);
        explicit_bzero(secret, sizeof secret);
        return r;
}

int org_call_seed(const char *secret_hex, int64_t tournament, int64_t stage_match, int attempt, uint64_t *ret) {
        uint8_t secret[SEED_SECRET_LEN];
        int r = attempt < 1 ? -EINVAL : seed_unhex(secret_hex, secret, sizeof secret);

        if (r == 0)
                r = seed_match(secret, tournament, stage_match, (uint32_t) attempt, ret);
        explicit_bzero(secret, sizeof secret);
        return r;
}
