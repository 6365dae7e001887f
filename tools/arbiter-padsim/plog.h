/* tools/arbiter-padsim/plog.h — the simulator's stderr log and stdout records.
 *
 * stderr gets one line per thing a person watching would want to see,
 * prefixed with seconds since the simulator started: "[3.250] pad 1: light
 * button 3 blink 500 ms".  --quiet keeps only warnings, --verbose adds every
 * frame in both directions.
 *
 * stdout is for programs: a "PTY /dev/pts/N" (or "PORT PATH") line each time
 * the line comes up; with --events also one record per press, release,
 * acknowledgement, assignment, reset and unplug (docs/padsim.md lists them).
 * Nothing else is ever written there.  Records are written as soon as
 * stdout takes them and buffered (up to a bound) when it does not, so a
 * reader that stops reading never stalls the simulated pads.
 */
#ifndef ARBITER_PADSIM_PLOG_H
#define ARBITER_PADSIM_PLOG_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;

enum plog_level {
        PLOG_WARN    = 0,       /* always shown */
        PLOG_INFO    = 1,       /* the default */
        PLOG_FRAME   = 2,       /* --verbose: every frame */
};

void plog_setup(int level, int64_t start_us, bool events);
bool plog_enabled(int level);
void plog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Routes records through a buffer drained by the loop; plog_detach()
 * drains what is left (for up to a second) and frees it. */
int plog_attach(struct event_base *base);
void plog_detach(void);

/* Whether fd (with its fstat st) can be watched by the loop. */
struct stat;
bool plog_pollable(int fd, const struct stat *st);

/* A record on stdout: always for "PTY"/"PORT" lines, only with --events for
 * the rest (is_event).  Written in order. */
void plog_record(bool is_event, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
