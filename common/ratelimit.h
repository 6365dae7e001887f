/* common/ratelimit.h — at most a burst of something per interval, and how
 * many were held back, for log lines a client can provoke (a flood of
 * refused tokens must not flood the journal).  The scheme of systemd's
 * ratelimit_below() (src/basic/ratelimit.h): a window opens at the first
 * event; within it the first `burst` events pass; the window closes
 * `interval` after it opened.
 *
 * Pure: the time comes in as an argument (CLOCK_MONOTONIC µs).  Zero-fill
 * a struct ratelimit and set interval_usec and burst to use it.
 */
#ifndef ARBITER_COMMON_RATELIMIT_H
#define ARBITER_COMMON_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct ratelimit {
        int64_t interval_usec;
        unsigned burst;
        /* state */
        int64_t begin_usec;             /* the window's start; 0: none open */
        unsigned passed;                /* events passed in this window */
        uint64_t held;                  /* events held back since the last one passed */
};

/* Whether an event at now passes.  When it does, *ret_held (may be NULL)
 * is how many were held back before it (to say so in the line), and the
 * count starts again. */
bool ratelimit_below(struct ratelimit *rl, int64_t now, uint64_t *ret_held);

#endif
