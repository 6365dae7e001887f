/* tools/arbiterctl/sse.h — a Server-Sent Events parser: bytes in, events
 * out, as the HTML Standard's "Server-sent events" section says to
 * interpret an event stream (lines ended by LF, CRLF or CR; "field: value";
 * a blank line dispatches; comment lines start with ':').  Pure: no I/O.
 *
 * The last event id survives events and reconnects (it is what a client
 * sends as Last-Event-ID); a partial event does not survive a reconnect
 * (sse_parser_restart).  Ownership: the parser owns its buffers until
 * sse_parser_free(); an event's strings live until the callback returns.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_SSE_H
#define ARBITER_TOOLS_ARBITERCTL_SSE_H

#include <stdbool.h>
#include <stddef.h>

/* arbiterd's events are a few hundred bytes (api/sse.h); a line this long
 * is not an event stream. */
#define SSE_LINE_MAX (1024u * 1024)
/* api/sse.h: SSE_EVENT_NAME_MAX and SSE_ID_MAX, with room to spare. */
#define SSE_NAME_MAX 128
#define SSE_ID_MAX 128

struct sse_event {
        const char *id;                 /* the last event id ("" before any) */
        const char *name;               /* "message" when the event named none */
        const char *data;               /* data lines joined by '\n' */
};

/* Returns 0 to go on, anything else to stop the feed (returned by it). */
typedef int (*sse_event_fn)(const struct sse_event *ev, void *userdata);

struct sse_parser {
        char *line, *data;
        size_t line_len, line_cap, data_len, data_cap;
        bool data_seen;                 /* a data field arrived (it may be empty) */
        bool after_cr;                  /* the last byte was CR: a LF next ends nothing */
        char name[SSE_NAME_MAX];
        char id[SSE_ID_MAX];
        long retry_ms;                  /* the last "retry:", or -1 */
};

void sse_parser_init(struct sse_parser *p);
/* Forgets a partial line and event (a new connection); keeps id and retry. */
void sse_parser_restart(struct sse_parser *p);
void sse_parser_free(struct sse_parser *p);
/* Feeds n bytes; calls fn for each event completed.  Returns 0, what fn
 * returned when it stopped the feed, or -E2BIG / -ENOMEM. */
int sse_feed(struct sse_parser *p, const char *buf, size_t n, sse_event_fn fn, void *userdata);

#endif
