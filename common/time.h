/* common/time.h — the daemon's clock: CLOCK_MONOTONIC in microseconds
 * (docs/architecture.md, "Time and fairness").  Wall time is read only for
 * display and storage. */
#ifndef ARBITER_COMMON_TIME_H
#define ARBITER_COMMON_TIME_H

#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC  INT64_C(1000000)
#define USEC_PER_MSEC INT64_C(1000)

static inline int64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

static inline struct timeval usec_to_timeval(int64_t usec) {
        struct timeval tv = { .tv_sec = usec / USEC_PER_SEC, .tv_usec = usec % USEC_PER_SEC };
        return tv;
}

#endif
