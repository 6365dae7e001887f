/* hardware/claim.c — see claim.h. */
#include "hardware/claim.h"

#include <errno.h>

/* Whether a frame from address on port is from device d: its exact place,
 * or (exact false) a HELLO from 0 on its line, a restart. */
static bool is_device(const struct claim_device *d, int port, uint8_t address, bool exact) {
        if (d->port != port)
                return false;
        return exact ? address != 0 && address == d->address : address == 0;
}

enum claim_kind claim_hello(const struct claim_pad *pad, int port, uint8_t address, size_t *ret_index) {
        for (int exact = 1; exact >= 0; exact--) {
                if (is_device(&pad->pad, port, address, exact)) {
                        *ret_index = CLAIM_THE_PAD;
                        return CLAIM_PAD;
                }
                for (size_t i = 0; i < pad->n_rivals; i++)
                        if (is_device(&pad->rivals[i], port, address, exact)) {
                                *ret_index = i;
                                return pad->rivals[i].refused ? CLAIM_REFUSED : CLAIM_RIVAL;
                        }
        }
        *ret_index = pad->n_rivals;
        return pad->conflict || pad->pad.live ? CLAIM_NEW_RIVAL : CLAIM_MOVE;
}

int claim_trust(const struct claim_pad *pad, int port, size_t *ret_index) {
        bool refused = false;
        size_t first = SIZE_MAX;

        for (size_t i = 0; i < pad->n_rivals; i++)
                refused |= pad->rivals[i].refused;
        if (!pad->conflict && !refused)
                return -EALREADY;
        if (pad->pad.port == port) {
                *ret_index = CLAIM_THE_PAD;
                return 0;
        }
        for (size_t i = 0; i < pad->n_rivals; i++) {
                if (pad->rivals[i].port != port)
                        continue;
                if (pad->rivals[i].live) {
                        *ret_index = i;
                        return 0;
                }
                if (first == SIZE_MAX)
                        first = i;
        }
        if (first == SIZE_MAX)
                return -ESRCH;
        *ret_index = first;
        return 0;
}

const char *claim_kind_to_string(enum claim_kind kind) {
        switch (kind) {
        case CLAIM_PAD:       return "pad";
        case CLAIM_RIVAL:     return "rival";
        case CLAIM_REFUSED:   return "refused";
        case CLAIM_MOVE:      return "move";
        case CLAIM_NEW_RIVAL: return "new rival";
        }
        return "?";
}
