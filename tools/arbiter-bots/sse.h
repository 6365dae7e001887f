/* tools/arbiter-bots/sse.h — reading a Server-Sent Events stream of arbiterd
 * (GET /v1/events, GET /v1/matches/{id}/events).
 *
 * A struct sse owns one libcurl multi handle with the stream's request and
 * the bytes received and not yet parsed.  sse_next() waits, up to a
 * timeout, for the next event: the caller's loop can keep its own timers
 * without threads.  The format is the WHATWG one arbiterd writes (api/sse.h):
 * "id:", "event:" and "data:" lines, a blank line ending each event; comment
 * lines (":") and "retry:" are skipped.  A stream that stays silent for
 * SSE_STALL_S is given up: arbiterd writes a comment every 15 s, so the
 * peer is gone.
 */
#ifndef ARBITER_BOTS_SSE_H
#define ARBITER_BOTS_SSE_H

#include <stddef.h>

struct sse;

struct sse_event {
        const char *id;                 /* "" when the event had none */
        const char *name;               /* "message" when it had no "event:" line */
        const char *data;               /* the data lines joined with '\n' */
};

/* Starts GET url with the token (NULL: none).  Nothing is sent or read
 * before the first sse_next().  0, or -ENOMEM. */
int sse_open(const char *url, const char *token, struct sse **ret);
void sse_free(struct sse *s);           /* accepts NULL; closes the stream */

/* Waits up to timeout_ms (>= 0) until the daemon has answered the request
 * with 200: from then on the stream has every event published.  0, or
 * -ETIMEDOUT, or as sse_next(). */
int sse_wait_open(struct sse *s, int timeout_ms);

/* Waits up to timeout_ms (>= 0) for the next event.  1 with *ret (valid
 * until the next call), 0 when the time ran out first, -EPIPE when the
 * stream ended, -ECONNREFUSED, -EPROTO for an HTTP error status, -EIO. */
int sse_next(struct sse *s, int timeout_ms, struct sse_event *ret);

/* Waits up to timeout_ms (>= 0) until one of the n streams (NULL entries
 * are skipped) may have an event to read or has ended: its index, for
 * sse_next(v[i], 0, ...) — which may still answer 0 (what arrived was a
 * keep-alive comment) — or -ETIMEDOUT, or -EIO.  One loop can so follow
 * several streams without threads. */
int sse_wait_any(struct sse *const *v, size_t n, int timeout_ms);

#endif
