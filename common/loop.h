/* common/loop.h — the daemon's one event loop (docs/architecture.md, "The
 * event loop").
 *
 * A thin owner of a libevent base that adds what libevent 2.1 lacks: a
 * "before sleep" step.  loop_run() repeats
 *
 *     run every before-sleep hook, in registration order;
 *     run deferred frees;
 *     event_base_loop(EVLOOP_ONCE)   -- wait, then dispatch what is ready
 *
 * so a hook runs exactly once per loop turn, after every callback of the
 * previous turn and before the process sleeps.  Hooks flush coalesced
 * D-Bus PropertiesChanged, drive MHD after resumes, and re-arm the sd-bus
 * and libpq watches.  Objects released from inside a callback that may still
 * be on the stack are handed to loop_defer_free() instead of freed at once.
 *
 * Ownership: the loop owns the event_base; hooks and deferred pointers stay
 * the caller's until the hook is removed or the free has run.
 */
#ifndef ARBITER_COMMON_LOOP_H
#define ARBITER_COMMON_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;
struct loop;

typedef void (*loop_hook_fn)(void *userdata);
typedef void (*loop_free_fn)(void *ptr);

/* Two priorities.  When several events are ready at once the urgent ones
 * run first: the pad bus's reads, the judge's and the engine's timers, the
 * database and D-Bus sockets — the path from a press to its published call.
 * Everything else (HTTP, housekeeping) takes the default, which is the
 * lower one, so a busy REST API cannot delay a judged call by a whole pass
 * over its connections (issue 4's end-to-end target). */
#define LOOP_PRIORITIES         2
#define LOOP_PRIORITY_URGENT    0

struct event;

int loop_new(struct loop **ret);
/* Makes ev (not yet added, or not pending) urgent: 0 or -EINVAL. */
int loop_set_urgent(struct event *ev);
void loop_free(struct loop *l);            /* accepts NULL */
struct event_base *loop_base(struct loop *l);

/* Returns a hook id (>= 0) for loop_remove_before_sleep(), or -ENOMEM. */
int loop_add_before_sleep(struct loop *l, loop_hook_fn fn, void *userdata);
void loop_remove_before_sleep(struct loop *l, int id);

/* Frees ptr with fn at the start of the next loop turn. */
int loop_defer_free(struct loop *l, loop_free_fn fn, void *ptr);

/* What the loop measures of itself, since it was made (GET /v1/status
 * "loop"): its turns, the longest, and how many kept the thread busy at
 * least loop_stall_ms[i] milliseconds.  A turn's time is the CPU time of the
 * loop thread (CLOCK_THREAD_CPUTIME_ID) from the before-sleep hooks to the
 * end of the dispatch that follows: the work of hooks, deferred frees and
 * callbacks, whatever else the machine runs meanwhile; the wait for events
 * costs none.  A call that blocked without using the CPU would not show:
 * the loop makes none by design.  Two clock reads a turn. */
#define LOOP_STALL_BUCKETS      4
extern const unsigned loop_stall_ms[LOOP_STALL_BUCKETS];        /* 1, 5, 20, 100 */

struct loop_stats {
        uint64_t turns;
        uint64_t over[LOOP_STALL_BUCKETS];      /* turns of at least loop_stall_ms[i] */
        int64_t longest_us;
};
void loop_stats(const struct loop *l, struct loop_stats *ret);

/* Runs until loop_exit(); returns 0, or -EIO if libevent failed. */
int loop_run(struct loop *l);
/* Runs turns as loop_run() does until *done is true (a callback sets it),
 * loop_exit() is called or nothing is left to wait for, and may be called
 * again afterwards: for a program that waits for one callback at a time (a
 * test driving a repository of store/ as plain C).  0 or -EIO. */
int loop_run_until(struct loop *l, const bool *done);
void loop_exit(struct loop *l);
bool loop_exiting(const struct loop *l);

#endif
