/* common/ratelimit.c — see ratelimit.h. */
#include "common/ratelimit.h"

bool ratelimit_below(struct ratelimit *rl, int64_t now, uint64_t *ret_held) {
        if (rl->begin_usec == 0 || now - rl->begin_usec >= rl->interval_usec) {
                rl->begin_usec = now ? now : 1;
                rl->passed = 0;
        }
        if (rl->passed >= rl->burst) {
                rl->held++;
                return false;
        }
        rl->passed++;
        if (ret_held)
                *ret_held = rl->held;
        rl->held = 0;
        return true;
}
