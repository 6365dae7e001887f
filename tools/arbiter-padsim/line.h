/* tools/arbiter-padsim/line.h — the serial line the simulated pads share.
 *
 * A line is either a pseudo-terminal the simulator creates (the daemon opens
 * its slave side; we keep the master) or a serial device opened by path
 * (--port).  It owns
 *
 *   - the fd and its read event: bytes from the host go through one frame
 *     decoder, as every pad on a multi-drop bus hears every byte, and each
 *     valid frame is handed to the rx callback with the time it was read;
 *   - the transport: a frame a pad sends at time t is written at
 *     t + delay + uniform(0, jitter), in due order, except that one pad's
 *     frames never overtake each other (a pad has one UART);
 *   - noise: dropped frames, flipped bits, bursts of garbage;
 *   - unplug and replug: the fd closed (the daemon sees a hang-up), the
 *     --link symlink removed, and later a new pty with the link re-pointed.
 *
 * Ownership: the line owns its fds, events and queued frames; frames handed
 * to line_send() are copied.
 */
#ifndef ARBITER_PADSIM_LINE_H
#define ARBITER_PADSIM_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hardware/frame.h"

struct event_base;
struct line;

typedef void (*line_rx_fn)(void *userdata, const struct frame *f, int64_t rx_us);

struct line_config {
        const char *port;               /* NULL: create a pty */
        const char *link;               /* NULL: no symlink */
        unsigned n_pads;
        int64_t delay_us, jitter_us;
        double bitflip, garbage_rate, drop;
        uint64_t seed;
};

/* Opens the line (creating the pty and the link) and prints its "PTY" or
 * "PORT" record.  Logs what failed and returns -errno. */
int line_new(struct event_base *base, const struct line_config *cfg, line_rx_fn fn, void *userdata,
             struct line **ret);
/* Closes the line and removes the link if it still points at our pty.
 * Accepts NULL. */
void line_free(struct line *l);

/* Queues f from pad (an index) as sent at send_us; it reaches the line after
 * the transport delay, or after delay_us when that is >= 0 (a script's
 * per-frame override).  May be dropped by --drop or while unplugged. */
void line_send(struct line *l, unsigned pad, const struct frame *f, int64_t send_us, int64_t delay_us);

/* Unplugs for duration_us, or until line_replug() when it is negative. */
void line_unplug(struct line *l, int64_t duration_us);
void line_replug(struct line *l);
bool line_plugged(const struct line *l);

/* Writes n random bytes now (a script's "garbage"). */
void line_write_garbage(struct line *l, size_t n);

/* Frames from the host dropped as damaged or unknown, since start (what a
 * pad reports as rx_errors: every pad on the bus hears the same bytes). */
uint64_t line_rx_errors(const struct line *l);

/* One line of counters, at exit. */
void line_log_stats(const struct line *l);

/* "PRESS event 4 button 3 time 123" and the like, for logs. */
void line_describe(const struct frame *f, char *buf, size_t size);

#endif
