/* common/loop.c — see loop.h. */
#include "common/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <event2/event.h>

/* The thresholds of a long turn: 1 ms is what a press's path can spare
 * (docs/architecture.md, "Priorities"), 5 ms the target of issue 12 for a
 * result's rating, 20 and 100 ms what a person starts to notice. */
const unsigned loop_stall_ms[LOOP_STALL_BUCKETS] = { 1, 5, 20, 100 };

struct hook {
        loop_hook_fn fn;
        void *userdata;
};

struct deferred {
        loop_free_fn fn;
        void *ptr;
};

struct loop {
        struct event_base *base;
        struct hook *hooks;             /* fn == NULL marks a removed slot */
        int n_hooks;
        struct deferred *deferred;
        size_t n_deferred, cap_deferred;
        bool exiting;
        struct loop_stats stats;
};

int loop_new(struct loop **ret) {
        struct loop *l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        /* Precise timers (a timerfd under epoll): the judge's settle window
         * and the pad bus's reorder buffer are a few milliseconds, and
         * epoll_wait's millisecond timeouts, rounded up, would add up to a
         * millisecond to each wait (issue 4's end-to-end benchmark). */
        struct event_config *cfg = event_config_new();
        if (!cfg) {
                free(l);
                return -ENOMEM;
        }
        event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
        l->base = event_base_new_with_config(cfg);
        event_config_free(cfg);
        if (!l->base || event_base_priority_init(l->base, LOOP_PRIORITIES) < 0) {
                if (l->base)
                        event_base_free(l->base);
                free(l);
                return -ENOMEM;
        }
        *ret = l;
        return 0;
}

int loop_set_urgent(struct event *ev) {
        return event_priority_set(ev, LOOP_PRIORITY_URGENT) < 0 ? -EINVAL : 0;
}

static void run_deferred(struct loop *l) {
        /* A free may defer another free: take the batch first. */
        while (l->n_deferred > 0) {
                size_t n = l->n_deferred;
                struct deferred *batch = l->deferred;
                l->deferred = NULL;
                l->n_deferred = l->cap_deferred = 0;
                for (size_t i = 0; i < n; i++)
                        batch[i].fn(batch[i].ptr);
                free(batch);
        }
}

void loop_free(struct loop *l) {
        if (!l)
                return;
        run_deferred(l);
        event_base_free(l->base);
        free(l->hooks);
        free(l);
}

struct event_base *loop_base(struct loop *l) {
        return l->base;
}

int loop_add_before_sleep(struct loop *l, loop_hook_fn fn, void *userdata) {
        for (int i = 0; i < l->n_hooks; i++)
                if (!l->hooks[i].fn) {
                        l->hooks[i] = (struct hook) { fn, userdata };
                        return i;
                }
        struct hook *h = realloc(l->hooks, (size_t) (l->n_hooks + 1) * sizeof *h);
        if (!h)
                return -ENOMEM;
        l->hooks = h;
        l->hooks[l->n_hooks] = (struct hook) { fn, userdata };
        return l->n_hooks++;
}

void loop_remove_before_sleep(struct loop *l, int id) {
        if (l && id >= 0 && id < l->n_hooks)
                l->hooks[id].fn = NULL;
}

int loop_defer_free(struct loop *l, loop_free_fn fn, void *ptr) {
        if (!ptr)
                return 0;
        if (l->n_deferred == l->cap_deferred) {
                size_t cap = l->cap_deferred ? 2 * l->cap_deferred : 16;
                struct deferred *d = realloc(l->deferred, cap * sizeof *d);
                if (!d)
                        return -ENOMEM;
                l->deferred = d;
                l->cap_deferred = cap;
        }
        l->deferred[l->n_deferred++] = (struct deferred) { fn, ptr };
        return 0;
}

static int64_t cpu_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void count_turn(struct loop *l, int64_t us) {
        l->stats.turns++;
        if (us > l->stats.longest_us)
                l->stats.longest_us = us;
        for (int i = 0; i < LOOP_STALL_BUCKETS; i++)
                if (us >= (int64_t) loop_stall_ms[i] * 1000)
                        l->stats.over[i]++;
}

void loop_stats(const struct loop *l, struct loop_stats *ret) {
        *ret = l->stats;
}

static int run(struct loop *l, const bool *done) {
        while (!l->exiting && !(done && *done)) {
                int64_t start = cpu_usec();

                for (int i = 0; i < l->n_hooks; i++)
                        if (l->hooks[i].fn)
                                l->hooks[i].fn(l->hooks[i].userdata);
                run_deferred(l);
                if (l->exiting || (done && *done))
                        break;
                /* EVLOOP_ONCE blocks until something is ready, dispatches
                 * all of it, and returns; 1 means no events are registered. */
                int r = event_base_loop(l->base, EVLOOP_ONCE);
                count_turn(l, cpu_usec() - start);
                if (r < 0)
                        return -EIO;
                if (r == 1)
                        break;          /* nothing left to wait for: no spinning */
        }
        run_deferred(l);
        return 0;
}

int loop_run(struct loop *l) {
        return run(l, NULL);
}

int loop_run_until(struct loop *l, const bool *done) {
        return run(l, done);
}

void loop_exit(struct loop *l) {
        l->exiting = true;
        event_base_loopbreak(l->base);
}

bool loop_exiting(const struct loop *l) {
        return l->exiting;
}
