/* api/sse.h — the live event hub behind the Server-Sent Events streams
 * (docs/architecture.md, "Outside interfaces").
 *
 * Publishers (the daemon's wiring) put events on topics ("pads", later
 * "match/42", "tournament/7"); every open stream whose topic filter matches
 * gets them, in publication order, formatted as
 *
 *     id: 3f9a1c2b-17
 *     event: pressed
 *     data: {"seq":4,"pad":"0000000000001000",…}
 *     <blank line>
 *
 * Ids.  "<epoch>-<n>": epoch is 8 hex digits drawn at random when the hub is
 * created (once per daemon start), n counts events from 1, over all topics.
 * Nothing is persisted, so an id means something only to the boot that
 * issued it.  "0" names the start of the current boot.
 *
 * Resume.  The hub keeps the most recent events in a ring (SSE_RING_EVENTS,
 * SSE_RING_BYTES, SSE_RING_AGE_USEC, whichever bound is hit first).  A
 * subscriber that brings a Last-Event-ID gets every retained event after it
 * that matches its filter, then live events.  When that is impossible it
 * gets one "reset" event instead — the id is from another boot ("restarted"),
 * older than the ring ("expired"), or not one this hub issued ("unknown") —
 * whose id is the newest id at that moment: the client refetches its state
 * over REST and carries on from there with live events.  Gap detection is by
 * id over all topics, so a filtered subscriber may be told "expired" although
 * none of the evicted events matched its filter; the other way round never
 * happens.
 *
 * Topics.  A filter matches a topic equal to it or beginning with it
 * followed by "/": "match" matches "match/42", "match/4" does not match
 * "match/42".  An empty filter matches every topic.
 *
 * Scopes.  An event may carry renderings for scopes besides the public
 * one: "match/42/seat/2" sees a seat's private fields, "match/42/referee"
 * the referee's.  A subscriber has one scope (none: the public); for each
 * event its filter matches it gets its scope's rendering if the event has
 * one, else the public rendering, else nothing (an event without a public
 * rendering is private).  The id is the event's, the same for every
 * rendering, so resuming works alike in every scope.  Nothing but the
 * subscription decides a scope: a topic filter never reaches a scope.
 *
 * Backpressure.  Subscribers do not copy events: each keeps a cursor into
 * the shared ring, so memory is bounded by the ring whatever the number of
 * streams.  A subscriber falls behind when more than SSE_BACKLOG_LIMIT bytes
 * of matching events published since it subscribed have not been taken by
 * its connection (the kernel's socket buffer comes on top of that), or when
 * the ring drops a matching event it has not sent yet; it then gets a last
 * "overflow" event (no id: its Last-Event-ID stays at the last event it
 * really got, so a reconnect resumes or resets correctly) and its stream
 * ends.  Nothing a subscriber does can block the loop or grow memory.
 *
 * Heartbeat.  Every heartbeat_ms a stream that sent nothing since the last
 * tick gets the comment ":\n\n", so that proxies keep the connection open
 * and a client that vanished without a word is found by a failing write
 * (one that hangs up is found at once by its stream, api/events.c).
 *
 * The hub knows nothing of HTTP: a stream (api/events.c) pulls bytes with
 * sse_sub_fill() and, when it returns 0, waits until the hub calls its wake
 * function.  Single-threaded: everything runs on the daemon's loop.
 *
 * Ownership: the daemon owns the hub and frees it after the HTTP server; a
 * stream owns its subscriber (sse_sub_free()).  sse_publish() takes data.
 */
#ifndef ARBITER_API_SSE_H
#define ARBITER_API_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

struct loop;
struct sse_hub;
struct sse_sub;

/* The HTML Standard's advice for event streams ("Server-sent events",
 * authoring notes): a comment line every 15 seconds or so keeps legacy
 * proxies from dropping the connection.  It is also how a client that
 * vanished without closing is found: libmicrohttpd never times out a
 * suspended connection (its manual, MHD_suspend_connection).  Well inside
 * the 60 s idle timeout of nginx and common load balancers. */
#define SSE_HEARTBEAT_MS_DEFAULT  15000
/* [http] sse_max_streams' default: a venue's scoreboards, table displays and
 * spectators' phones, with room to spare (issue 11 asks for 2,000 on one
 * daemon); [http] max_connections' default (4096) leaves the rest to
 * requests.  A stream costs about 11 KiB of the daemon's memory, most of
 * it libmicrohttpd's buffer ([http] connection_memory, 8K, which it zeroes
 * whole; docs/operations.md, "Connections and load"). */
#define SSE_MAX_STREAMS_DEFAULT   3072
/* The "retry:" every stream starts with: how long EventSource waits before
 * reconnecting (browsers default to about 3 s; a display should be back
 * sooner). */
#define SSE_RETRY_MS              2000
/* Resume window: ten minutes of a busy venue (a press is ~250 bytes; four
 * tables of five players rarely exceed a few events a second). */
#define SSE_RING_EVENTS           4096
#define SSE_RING_BYTES            (4u * 1024 * 1024)
#define SSE_RING_AGE_USEC         (INT64_C(10) * 60 * 1000000)
/* Unsent bytes a live subscriber may have before it is cut off: a second of
 * a LAN link, and hours of normal traffic for one display. */
#define SSE_BACKLOG_LIMIT         (256u * 1024)
/* Longest topic, topic filter and event name accepted. */
#define SSE_TOPIC_MAX             128
#define SSE_EVENT_NAME_MAX        64
/* "ffffffff-18446744073709551615" and its NUL. */
#define SSE_ID_MAX                32

struct sse_config {
        unsigned heartbeat_ms;          /* 0: SSE_HEARTBEAT_MS_DEFAULT */
        unsigned max_streams;           /* 0: SSE_MAX_STREAMS_DEFAULT */
        size_t ring_events;             /* 0: SSE_RING_EVENTS */
        size_t ring_bytes;              /* 0: SSE_RING_BYTES */
        int64_t ring_age_usec;          /* 0: SSE_RING_AGE_USEC */
        size_t backlog_limit;           /* 0: SSE_BACKLOG_LIMIT */
        uint32_t epoch;                 /* 0: random (tests fix it) */
};

struct sse_stats {
        unsigned streams;               /* subscribers alive */
        uint64_t published;             /* events so far = n of the newest id */
        size_t retained;                /* events in the ring */
        size_t retained_bytes;
        uint64_t overflowed;            /* subscribers cut off for falling behind */
        uint64_t refused;               /* subscribe attempts over max_streams */
        char last_id[SSE_ID_MAX];       /* the newest id ("<epoch>-0" before any) */
};

/* loop may be NULL (unit tests): no heartbeat timer then; call
 * sse_hub_heartbeat() by hand. */
int sse_hub_new(struct loop *loop, const struct sse_config *cfg, struct sse_hub **ret);
/* Accepts NULL.  Subscribers still open are detached (they end at their
 * next fill) and stay their streams' to free. */
void sse_hub_free(struct sse_hub *hub);

/* Publishes event on topic with data (taken, also on failure; NULL is
 * sent as null).  Returns 0, -EINVAL (a topic or name that is empty, too
 * long or not printable ASCII), -ESHUTDOWN (after sse_hub_close), -ENOMEM. */
int sse_publish(struct sse_hub *hub, const char *topic, const char *event, json_t *data);

/* A rendering of an event for one scope (see "Scopes"). */
struct sse_variant {
        const char *scope;
        json_t *data;                   /* taken */
};
/* As sse_publish, with data (NULL: no public rendering) and v[0..n) the
 * scoped renderings (each data taken, also on failure). */
int sse_publish_scoped(struct sse_hub *hub, const char *topic, const char *event, json_t *data,
                       const struct sse_variant *v, size_t n);

/* Ends every stream (they send nothing more) and refuses new ones: for the
 * graceful stop.  Idempotent. */
void sse_hub_close(struct sse_hub *hub);

/* One heartbeat tick (the hub's timer calls it): heartbeats for idle
 * streams, and age-based eviction from the ring. */
void sse_hub_heartbeat(struct sse_hub *hub);

void sse_hub_stats(const struct sse_hub *hub, struct sse_stats *ret);

/* Called (once per wait) when a subscriber whose fill returned 0 has
 * something to send or must end.  Never called from inside sse_sub_fill. */
typedef void (*sse_wake_fn)(void *userdata);

/* A new subscriber for filter (NULL or "" for all topics) in scope (NULL
 * or "" for the public) resuming after last_event_id (NULL for live events
 * only).  A priority subscriber (a referee's or admin's stream) is not
 * held to max_streams, so a referee's console finds room when displays
 * have taken every stream; it counts among the streams all the same.
 * Returns 0, -EINVAL (a filter or scope that is too long or not printable
 * ASCII), -EBUSY (max_streams open), -ESHUTDOWN (closed), -ENOMEM. */
int sse_subscribe(struct sse_hub *hub, const char *filter, const char *scope, const char *last_event_id,
                  bool priority, sse_wake_fn wake, void *userdata, struct sse_sub **ret);
/* Accepts NULL. */
void sse_sub_free(struct sse_sub *sub);

/* Copies the next bytes of the stream into buf (at most max, max > 0).
 * Returns how many (> 0); 0 when there is nothing to send now (the
 * subscriber is then waiting: wake will be called); -EPIPE when the stream
 * is over (closed, detached, or after the overflow event). */
ssize_t sse_sub_fill(struct sse_sub *sub, char *buf, size_t max);

/* The pure parts, for tests. */
void sse_id_format(char buf[static SSE_ID_MAX], uint32_t epoch, uint64_t n);
/* "<8 hex digits>-<decimal>" → 0, or -EINVAL. */
int sse_id_parse(const char *s, uint32_t *ret_epoch, uint64_t *ret_n);
bool sse_topic_matches(const char *filter, const char *topic);
/* A non-empty topic or filter of printable ASCII without blanks, at most
 * SSE_TOPIC_MAX bytes (event names: SSE_EVENT_NAME_MAX). */
bool sse_name_valid(const char *s, size_t max);

#endif
