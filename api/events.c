/* api/events.c — GET /v1/events: the live event stream (Server-Sent
 * Events, api/sse.h), and the events the pad bus publishes.
 *
 * One stream is one HTTP response of unknown length (chunked) whose
 * content reader pulls bytes from its hub subscriber.  When the subscriber
 * has nothing to send the reader suspends the connection and returns 0 —
 * MHD would otherwise call it again at once, a busy loop — and the hub's
 * wake resumes it.  The subscriber lives as long as the response: MHD
 * destroys the response when the connection ends for any reason (done,
 * client gone, write error, daemon stop), and its free callback frees it.
 *
 * A client that hangs up.  libmicrohttpd does not watch a suspended
 * connection, and the first write after a client's FIN succeeds (the
 * client's kernel answers it with a reset), so the heartbeat alone finds a
 * departed client only at its second tick.  Each stream therefore watches
 * its socket on the daemon's loop for the hang-up (EV_CLOSED, the kernel's
 * EPOLLRDHUP), an error, or bytes — an EventSource says nothing after its
 * request, so anything it sends ends the stream too — and ends at once:
 * its slot is free within milliseconds, well within one heartbeat.  The
 * watch fires once (not persistent), so it never spins on a socket that
 * stays readable.
 *
 * Resumes: the hub wakes a waiting stream once per wait, and the watch may
 * wake it too; `suspended` makes sure the connection is resumed once per
 * suspension (libmicrohttpd's resume of a connection that is not
 * suspended would make its next suspension a no-op).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/json.h"
#include "api/sse.h"
#include "common/log.h"
#include "common/loop.h"
#include "hardware/padbus.h"

#define SSE_CONTENT_TYPE "text/event-stream"
/* The block size libmicrohttpd is given for a stream's response.  For a
 * chunked reply it fills its own write buffer (the connection's memory
 * pool) and never uses a response buffer of this size, which it allocates
 * with each response all the same; so it is kept small, to spare a few
 * KiB per stream. */
#define STREAM_BLOCK_SIZE 256

struct stream {
        struct api_server *server;
        struct MHD_Connection *connection;
        struct sse_sub *sub;
        struct event *ev_gone;          /* the client hung up, failed or spoke */
        bool suspended;
        bool gone;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
        struct stream *st = cls;
        ssize_t n;

        (void) pos;
        if (st->gone)
                return MHD_CONTENT_READER_END_WITH_ERROR;
        n = sse_sub_fill(st->sub, buf, max);
        if (n > 0)
                return n;
        if (n < 0)
                return MHD_CONTENT_READER_END_OF_STREAM;
        st->suspended = true;
        MHD_suspend_connection(st->connection);
        return 0;
}

static void stream_resume(struct stream *st) {
        if (!st->suspended)
                return;
        st->suspended = false;
        MHD_resume_connection(st->connection);
        api_server_run_soon(st->server);
}

/* The hub calls this only for a subscriber whose fill returned 0, i.e.
 * whose connection stream_read suspended (unless the watch resumed it). */
static void stream_wake(void *userdata) {
        stream_resume(userdata);
}

static void on_gone(evutil_socket_t fd, short what, void *userdata) {
        struct stream *st = userdata;

        (void) fd, (void) what;
        st->gone = true;
        stream_resume(st);
}

static void stream_free(void *cls) {
        struct stream *st = cls;

        if (st->ev_gone)
                event_free(st->ev_gone);
        sse_sub_free(st->sub);
        free(st);
}

void handle_events(struct api_request *req) {
        api_events_stream(req, MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "topic"), NULL);
}

void api_events_stream(struct api_request *req, const char *topic, const char *scope) {
        const char *last = MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, "Last-Event-ID");
        const union MHD_ConnectionInfo *ci;
        struct MHD_Response *response;
        struct sse_stats stats;
        struct stream *st;
        json_t *problem;
        int r;

        /* EventSource sends the header on reconnect; polyfills that cannot
         * set headers use the query parameter. */
        if (!last)
                last = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "last_event_id");
        if (!req->deps->events) {
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE, "live events are not available in this process");
                return;
        }
        if (query_topic(topic, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        st = calloc(1, sizeof *st);
        if (!st) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        st->server = req->server;
        st->connection = req->connection;
        r = sse_subscribe(req->deps->events, topic, scope, last, req->role >= AUTH_ROLE_REFEREE, stream_wake, st,
                          &st->sub);
        if (r < 0) {
                free(st);
                sse_hub_stats(req->deps->events, &stats);
                if (r == -EBUSY)
                        api_reply_busy(req, "all %u event streams this server allows are open ([http] "
                                       "sse_max_streams); close one or raise the limit, then retry",
                                       stats.streams);
                else if (r == -ESHUTDOWN)
                        api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE,
                                          "arbiterd is stopping; reconnect in a few seconds");
                else
                        api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot open the stream: %s",
                                          strerror(-r));
                return;
        }
        ci = MHD_get_connection_info(req->connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci)
                st->ev_gone = event_new(loop_base(api_server_loop(req->server)), ci->connect_fd,
                                        EV_READ | EV_CLOSED, on_gone, st);
        if (!st->ev_gone || event_add(st->ev_gone, NULL) < 0) {
                stream_free(st);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_BLOCK_SIZE, stream_read, st,
                                                     stream_free);
        if (!response) {
                stream_free(st);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, SSE_CONTENT_TYPE);
        MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        /* nginx buffers proxied responses unless told not to. */
        MHD_add_response_header(response, "X-Accel-Buffering", "no");
        api_reply_stream(req, response);
}

static json_t *pad_event_json(const struct pad *pad) {
        return json_pack("{s:s, s:s, s:i, s:s?, s:i, s:o}", "id", pad->id, "kind", pad_kind_to_string(pad->kind),
                         "buttons", (int) pad->n_buttons, "port", pad->port ? pad->port->path : NULL,
                         "address", (int) pad->address, "conflict", api_pad_conflict_json(pad));
}

void api_events_pad(struct sse_hub *hub, const char *event, const struct pad *pad) {
        int r;

        if (!hub)
                return;
        r = sse_publish(hub, "pads", event, pad_event_json(pad));
        if (r < 0 && r != -ESHUTDOWN)
                log_warning("cannot publish %s of pad %s: %s", event, pad->id, strerror(-r));
}

void api_events_press(struct sse_hub *hub, const struct pad_press *press) {
        int r;

        if (!hub)
                return;
        r = sse_publish(hub, "pads", "pressed", api_press_json(press));
        if (r < 0 && r != -ESHUTDOWN)
                log_warning("cannot publish press %llu: %s", (unsigned long long) press->seq, strerror(-r));
}
