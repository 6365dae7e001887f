/* api/server.c — libmicrohttpd inside the daemon's libevent loop.
 *
 * Life of a request (one struct req per request, MHD's *con_cls):
 *
 *   first call      headers only: route, auth, Content-Type, Content-Length.
 *                   An early refusal is queued right away (MHD then closes
 *                   the connection instead of reading an unwanted body).
 *   upload calls    body bytes appended up to body_limit; past it they are
 *                   counted and dropped, and the request ends in 413.
 *   final call      JSON parsed (400), handler called.  A handler that has
 *                   not replied on return is waiting for something (the
 *                   database): the connection is suspended.
 *   reply           api_reply_*() builds the response; if the connection
 *                   was suspended it is resumed, MHD calls us once more and
 *                   the response is queued then.
 *   completed       MHD_OPTION_NOTIFY_COMPLETED frees the req.
 *
 * Invariant: a suspended connection always has a handler that will reply
 * (every store callback fires exactly once, also on shutdown), so MHD's lack
 * of timeouts for suspended connections cannot leak one.
 *
 * Connections (api/pool.h).  libmicrohttpd tells us of every connection it
 * accepts and drops (MHD_OPTION_NOTIFY_CONNECTION); the pool keeps its
 * record as the connection's socket context and follows it through its
 * requests: PENDING until a request's headers are in, then classified —
 * priority (GET /v1/health, a referee or admin token) or not — and admitted
 * or answered 503 at once; its deadline (headers and body) ends when the
 * request is in.  A connection the pool closes (deadline, eviction) has its
 * socket shut down: libmicrohttpd sees the hang-up in its next run and
 * drops it, and the pool forgets it when libmicrohttpd says so.
 * libmicrohttpd's own per-address limit is off: the pool counts addresses.
 *
 * Event streams (api/events.c) reply at once with a content reader that
 * suspends the connection whenever it has nothing to send; their hub wakes
 * them for an event, for the end, and at least every heartbeat, so a
 * suspended stream is never forgotten either; a client that hangs up is
 * noticed at once by its stream's watch on the socket (api/events.c), one
 * that vanished by the heartbeat's failing write.  Streams are not work in
 * flight: graceful shutdown ends them through sse_hub_close() and waits for
 * them only STREAM_END_GRACE_USEC, long enough for their last chunk.  None is
 * suspended when MHD stops: closing the hub wakes every waiting stream, and
 * api_server_free() closes it before MHD_stop_daemon().
 */
#include "api/api.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/event.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/handlers.h"
#include "api/json.h"
#include "api/pool.h"
#include "api/problem.h"
#include "api/sse.h"
#include "api/web.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/ratelimit.h"
#include "common/time.h"
#include "store/store.h"

#define JSON_CONTENT_TYPE "application/json"
/* Listen backlog: a hall of displays reconnects at once after a network
 * blip or a restart, and libmicrohttpd accepts ten connections per run; a
 * full backlog drops SYNs, which clients resend only after a second.  The
 * kernel caps it at net.core.somaxconn (4096 by default since Linux 5.4). */
#define LISTEN_BACKLOG 1024
/* Retry-After of a 503 for want of room: about the time a display's
 * EventSource waits before reconnecting (SSE_RETRY_MS), so a client that
 * honours it comes back as soon as a display would. */
#define BUSY_RETRY_AFTER_S "2"
/* Retry-After of a 503 for a full database queue: it drains in well under
 * a second. */
#define QUEUE_RETRY_AFTER_S "1"
/* Failed requests (401, 403, 413) are logged at most this many per minute:
 * enough to see who and what, never a flood a client can drive. */
#define AUTH_LOG_BURST 10
#define AUTH_LOG_INTERVAL_USEC (60 * USEC_PER_SEC)
/* After quiesce, how long ended event streams may take to send their last
 * chunk before graceful shutdown stops waiting for them: a LAN round trip is
 * about a millisecond, so a client that cannot take five bytes in this time
 * is stuck, and SIGTERM still exits well within a second. */
#define STREAM_END_GRACE_USEC (250 * USEC_PER_MSEC)
/* Where a read that may lag came from (api/read_store.c). */
#define READ_FROM_HEADER "Arbiter-Read-From"
/* Everything under it is the REST API; every other path is a web page. */
#define API_PREFIX "/v1"
#define PAGE_METHODS_TEXT "405 Method Not Allowed: the pages take GET and HEAD; the API is at /v1.\n"

struct api_server {
        struct loop *loop;
        struct MHD_Daemon *mhd;
        struct event *ev_epoll;
        struct event *ev_timer;
        struct event *ev_grace;         /* wakes the loop when the streams' grace is over */
        int64_t grace_end_usec;         /* 0 until quiesce */
        int hook_id;
        bool need_run;                  /* a connection was resumed */
        struct api_config cfg;
        const struct api_deps *deps;
        struct web *web;                /* the pages outside /v1 */
        char address[INET6_ADDRSTRLEN + 16];
        unsigned active;                /* requests not completed, streams included */
        unsigned streams;               /* of which event streams */
        struct pool *pool;              /* every connection's class and deadline */
        struct event *ev_deadline;      /* the pool's earliest deadline */
        int64_t armed_deadline;         /* what ev_deadline is armed for; 0: not armed */
        uint64_t unauthorized, forbidden, too_large;    /* 401, 403, 413 answered */
        uint64_t queue_full;            /* 503 for a full database queue */
        struct ratelimit auth_log;
};

struct req {
        struct api_request pub;         /* first: handlers get &req->pub */
        struct pool_conn *conn;         /* its connection's record in the pool */
        char *buf;
        size_t len, cap;
        bool too_large;
        bool handled;
        bool suspended;
        bool stream;
        unsigned status;
        struct MHD_Response *response;
};

static void req_set_mhd_response(struct req *r, unsigned status, struct MHD_Response *response);

static struct req *req_of(struct api_request *pub) {
        return (struct req *) pub;
}

/* The client's address as text ("192.0.2.7", "2001:db8::1"), for logs. */
static const char *client_address(struct MHD_Connection *connection, char buf[static INET6_ADDRSTRLEN]) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(connection,
                                                                     MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *sa = ci ? ci->client_addr : NULL;

        snprintf(buf, INET6_ADDRSTRLEN, "?");
        if (sa && sa->sa_family == AF_INET)
                inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, buf, INET6_ADDRSTRLEN);
        else if (sa && sa->sa_family == AF_INET6)
                inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, buf, INET6_ADDRSTRLEN);
        return buf;
}

/* A request refused for who sent it or what it sent (401, 403, 413) is
 * counted, and logged with who, which route and which token, at most
 * AUTH_LOG_BURST lines a minute. */
static void note_refusal(struct api_server *s, const struct api_request *q, unsigned status) {
        char addr[INET6_ADDRSTRLEN], token[sizeof q->token_name + 16] = "", held_text[96] = "";
        uint64_t held;

        switch (status) {
        case MHD_HTTP_UNAUTHORIZED:
                s->unauthorized++;
                break;
        case MHD_HTTP_FORBIDDEN:
                s->forbidden++;
                break;
        case MHD_HTTP_CONTENT_TOO_LARGE:
                s->too_large++;
                break;
        default:
                return;
        }
        if (!ratelimit_below(&s->auth_log, now_usec(), &held))
                return;
        if (q->token_name[0])
                snprintf(token, sizeof token, " with token \"%s\"", q->token_name);
        if (held)
                snprintf(held_text, sizeof held_text, " (and %llu more 401, 403 and 413 not logged before this one)",
                         (unsigned long long) held);
        /* The route's pattern, not the path: a path is the client's text. */
        log_warning("HTTP %u to %s %s from %s%s%s", status, q->method,
                    q->match.route ? q->match.route->pattern : "(no route)", client_address(q->connection, addr),
                    token, held_text);
}

static void req_free(struct req *r) {
        if (!r)
                return;
        json_decref(r->pub.body);
        if (r->response)
                MHD_destroy_response(r->response);
        free(r->buf);
        free(r);
}

/* Sets the pending reply; resumes the connection when the handler had
 * returned without replying. */
static void req_set_response(struct req *r, unsigned status, char *text, const char *content_type) {
        struct MHD_Response *response;

        if (r->response) {
                log_error("bug: second reply (%u) to %s %s ignored", status, r->pub.method, r->pub.path);
                free(text);
                return;
        }
        response = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
        if (!response) {
                free(text);
                log_error("out of memory building the response to %s %s", r->pub.method, r->pub.path);
        } else {
                MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
                MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        }
        req_set_mhd_response(r, status, response);
}

/* Takes response (NULL: out of memory, the connection is dropped). */
static void req_set_mhd_response(struct req *r, unsigned status, struct MHD_Response *response) {
        struct api_server *s = r->pub.server;

        note_refusal(s, &r->pub, status);
        r->response = response;
        r->status = status;
        if (r->suspended) {
                r->suspended = false;
                MHD_resume_connection(r->pub.connection);
                s->need_run = true;
        }
}

void api_reply_json(struct api_request *req, unsigned status, json_t *body) {
        char *text = json_dumps(body, API_JSON_DUMP_FLAGS);
        json_decref(body);
        if (!text) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory encoding the reply");
                return;
        }
        req_set_response(req_of(req), status, text, JSON_CONTENT_TYPE);
}

void api_reply_text(struct api_request *req, unsigned status, char *text, const char *content_type) {
        req_set_response(req_of(req), status, text, content_type);
}

void api_reply_problem_json(struct api_request *req, json_t *problem) {
        json_t *st = json_object_get(problem, "status");
        unsigned status = json_is_integer(st) ? (unsigned) json_integer_value(st)
                                              : MHD_HTTP_INTERNAL_SERVER_ERROR;
        char *text = json_dumps(problem, API_JSON_DUMP_FLAGS);
        json_decref(problem);
        if (!text)
                text = strdup("{\"title\":\"Internal Server Error\",\"status\":500}");
        if (text)
                req_set_response(req_of(req), status, text, PROBLEM_CONTENT_TYPE);
}

void api_reply_stream(struct api_request *req, struct MHD_Response *response) {
        struct req *r = req_of(req);

        if (r->response) {
                log_error("bug: second reply (stream) to %s %s ignored", req->method, req->path);
                MHD_destroy_response(response);
                return;
        }
        r->stream = true;
        req->server->streams++;
        if (r->conn)
                pool_stream(req->server->pool, r->conn);
        req_set_mhd_response(r, MHD_HTTP_OK, response);
}

void api_reply_busy(struct api_request *req, const char *detail_fmt, ...) {
        struct req *r = req_of(req);
        char detail[1024];
        va_list ap;

        va_start(ap, detail_fmt);
        vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);
        api_reply_problem_json(req, problem_new(MHD_HTTP_SERVICE_UNAVAILABLE, "%s", detail));
        if (r->response) {
                MHD_add_response_header(r->response, MHD_HTTP_HEADER_RETRY_AFTER, BUSY_RETRY_AFTER_S);
                /* the connection is what it has no room for */
                MHD_add_response_header(r->response, MHD_HTTP_HEADER_CONNECTION, "close");
        }
}

void api_reply_unavailable(struct api_request *req, unsigned retry_after_s, const char *detail_fmt, ...) {
        struct req *r = req_of(req);
        char detail[1024], retry[16];
        va_list ap;

        va_start(ap, detail_fmt);
        vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);
        api_reply_problem_json(req, problem_new(MHD_HTTP_SERVICE_UNAVAILABLE, "%s", detail));
        snprintf(retry, sizeof retry, "%u", retry_after_s);
        if (r->response)
                MHD_add_response_header(r->response, MHD_HTTP_HEADER_RETRY_AFTER, retry);
}

void api_reply_problem(struct api_request *req, unsigned status, const char *detail_fmt, ...) {
        char detail[1024];
        va_list ap;

        va_start(ap, detail_fmt);
        vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);
        api_reply_problem_json(req, problem_new(status, "%s", detail));
}

static enum MHD_Result queue_reply(struct req *r) {
        enum MHD_Result ret;

        if (!r->response)
                return MHD_NO;          /* out of memory earlier: drop the connection */
        if (r->pub.read_from[0])
                MHD_add_response_header(r->response, READ_FROM_HEADER, r->pub.read_from);
        ret = MHD_queue_response(r->pub.connection, r->status, r->response);
        MHD_destroy_response(r->response);
        r->response = NULL;
        return ret;
}

static bool is_read(const char *method) {
        return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
}

/* "application/json" or "application/json; charset=utf-8", any case. */
static bool content_type_is_json(const char *ct) {
        size_t n = strlen(JSON_CONTENT_TYPE);

        if (!ct)
                return false;
        ct += strspn(ct, " \t");
        if (strncasecmp(ct, JSON_CONTENT_TYPE, n) != 0)
                return false;
        ct += n;
        ct += strspn(ct, " \t");
        return *ct == '\0' || *ct == ';';
}

/* Whether the request's route is one of match id's own:
 * /v1/matches/{id} and the routes below it, for that id. */
static bool route_of_match(const struct api_request *q, int64_t id) {
        static const char prefix[] = "/v1/matches/{id}";
        const char *pattern = q->match.route->pattern, *v = route_param(&q->match, "id");
        char *end;

        if (strncmp(pattern, prefix, sizeof prefix - 1) != 0 ||
            (pattern[sizeof prefix - 1] != '\0' && pattern[sizeof prefix - 1] != '/') || !v)
                return false;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        return errno == 0 && end != v && *end == '\0' && n == id;
}

/* Authenticates the request against the route's role.  Replies (and returns
 * false) when it may not go on. */
static bool check_auth(struct api_server *s, struct req *r) {
        struct api_request *q = &r->pub;
        const char *header = MHD_lookup_connection_value(q->connection, MHD_HEADER_KIND,
                                                         MHD_HTTP_HEADER_AUTHORIZATION);
        enum auth_role need = q->match.route->min_role;
        const char *query_token = is_read(q->method) ? MHD_lookup_connection_value(q->connection,
                                                                                   MHD_GET_ARGUMENT_KIND,
                                                                                   "access_token")
                                                     : NULL;

        if (is_read(q->method) && s->cfg.open_reads && need <= AUTH_ROLE_DISPLAY)
                need = AUTH_ROLE_NONE;

        /* A browser's EventSource cannot send headers: a read may carry its
         * token as ?access_token= (RFC 6750, section 2.3), a station's
         * link does. */
        if (header || query_token) {
                const char *token = header ? auth_bearer(header) : query_token;
                const struct auth_entry *e;

                if (!token) {
                        api_reply_problem(q, MHD_HTTP_UNAUTHORIZED,
                                          "the Authorization header must be \"Bearer <token>\"");
                        return false;
                }
                e = auth_lookup(s->deps->auth, token);
                if (!e && !auth_loaded(s->deps->auth)) {
                        api_reply_problem(q, MHD_HTTP_SERVICE_UNAVAILABLE,
                                          "tokens cannot be checked yet: the database has not been "
                                          "reachable since arbiterd started; see /v1/health and retry");
                        return false;
                }
                if (!e) {
                        api_reply_problem(q, MHD_HTTP_UNAUTHORIZED,
                                          "this token is not known (mistyped or revoked); "
                                          "create one with `arbiterd --create-token ROLE NAME`");
                        return false;
                }
                q->role = e->role;
                q->token_id = e->id;
                q->token_match = e->match_id;
                q->token_table = e->table_id;
                q->token_seat = e->seat;
                snprintf(q->token_name, sizeof q->token_name, "%s", e->name);
                /* A referee token limited to a match referees that match's
                 * routes and is a display token everywhere else. */
                if (e->role == AUTH_ROLE_REFEREE && e->match_id > 0 && !route_of_match(q, e->match_id)) {
                        q->role = AUTH_ROLE_DISPLAY;
                        if (need > AUTH_ROLE_DISPLAY) {
                                api_reply_problem(q, MHD_HTTP_FORBIDDEN,
                                                  "token \"%s\" referees match %lld only; %s %s needs role %s",
                                                  q->token_name, (long long) e->match_id, q->method,
                                                  q->match.route->pattern, auth_role_to_string(need));
                                return false;
                        }
                }
        }

        if (q->role >= need)
                return true;
        if (q->role == AUTH_ROLE_NONE)
                api_reply_problem(q, MHD_HTTP_UNAUTHORIZED,
                                  "%s %s needs a token with role %s or higher: send "
                                  "\"Authorization: Bearer <token>\" (create one with "
                                  "`arbiterd --create-token %s NAME`)",
                                  q->method, q->match.route->pattern, auth_role_to_string(need),
                                  auth_role_to_string(need));
        else
                api_reply_problem(q, MHD_HTTP_FORBIDDEN,
                                  "token \"%s\" has role %s; %s %s needs role %s or higher",
                                  q->token_name, auth_role_to_string(q->role), q->method,
                                  q->match.route->pattern, auth_role_to_string(need));
        return false;
}

/* Everything that can be judged from the request line and headers. Replies
 * and returns false when the request ends here. */
/* "/v1" or below it: the API; anything else is a page. */
static bool is_api_path(const char *path) {
        return strncmp(path, API_PREFIX, strlen(API_PREFIX)) == 0 &&
               (path[strlen(API_PREFIX)] == '\0' || path[strlen(API_PREFIX)] == '/');
}

/* A page (api/web.h): GET and HEAD only; no token, no body. */
static void serve_page(struct api_server *s, struct req *r) {
        struct api_request *q = &r->pub;
        struct MHD_Response *response;
        unsigned status;

        if (!is_read(q->method)) {
                response = MHD_create_response_from_buffer(strlen(PAGE_METHODS_TEXT), (void *) PAGE_METHODS_TEXT,
                                                           MHD_RESPMEM_PERSISTENT);
                if (response) {
                        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
                        MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
                }
                req_set_mhd_response(r, MHD_HTTP_METHOD_NOT_ALLOWED, response);
                return;
        }
        response = web_respond(s->web, q->connection, q->path, &status);
        req_set_mhd_response(r, status, response);
}

static bool check_headers(struct api_server *s, struct req *r) {
        struct api_request *q = &r->pub;
        const char *cl, *te;
        bool has_body;

        if (!is_api_path(q->path)) {
                serve_page(s, r);
                return false;
        }
        switch (router_match(api_routes, api_n_routes, q->method, q->path, &q->match)) {
        case ROUTER_NOT_FOUND:
                api_reply_problem(q, MHD_HTTP_NOT_FOUND,
                                  "there is no resource at %.200s; GET /v1 lists the API's routes",
                                  q->path);
                return false;
        case ROUTER_METHOD_NOT_ALLOWED: {
                json_t *p = problem_new(MHD_HTTP_METHOD_NOT_ALLOWED, "%s is not allowed on %.200s; allowed: %s",
                                        q->method, q->path, q->match.allow);
                api_reply_problem_json(q, p);
                if (r->response)
                        MHD_add_response_header(r->response, MHD_HTTP_HEADER_ALLOW, q->match.allow);
                return false;
        }
        case ROUTER_FOUND:
                break;
        }

        if (!check_auth(s, r))
                return false;

        cl = MHD_lookup_connection_value(q->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        te = MHD_lookup_connection_value(q->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
        has_body = te || (cl && strtoull(cl, NULL, 10) > 0);
        if (!has_body)
                return true;

        if (!content_type_is_json(MHD_lookup_connection_value(q->connection, MHD_HEADER_KIND,
                                                              MHD_HTTP_HEADER_CONTENT_TYPE))) {
                api_reply_problem(q, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
                                  "send the request body as %s", JSON_CONTENT_TYPE);
                return false;
        }
        if (cl && strtoull(cl, NULL, 10) > s->cfg.body_limit) {
                api_reply_problem(q, MHD_HTTP_CONTENT_TOO_LARGE,
                                  "the body is %s bytes; this server accepts at most %zu ([http] body_limit)",
                                  cl, s->cfg.body_limit);
                return false;
        }
        return true;
}

static void append_body(struct api_server *s, struct req *r, const char *data, size_t n) {
        if (r->too_large)
                return;
        if (r->len + n > s->cfg.body_limit) {
                r->too_large = true;
                free(r->buf);
                r->buf = NULL;
                r->len = r->cap = 0;
                return;
        }
        if (r->len + n + 1 > r->cap) {
                size_t cap = r->cap ? r->cap : 1024;
                while (cap < r->len + n + 1)
                        cap *= 2;
                char *b = realloc(r->buf, cap);
                if (!b) {
                        r->too_large = true;    /* answered as 413: we could not hold it */
                        return;
                }
                r->buf = b;
                r->cap = cap;
        }
        memcpy(r->buf + r->len, data, n);
        r->len += n;
        r->buf[r->len] = '\0';
}

/* The route's members rule (api/bodies.h): replies 400 naming the first
 * member the route does not take, and returns false. */
static bool check_members(struct api_request *q) {
        json_t *problem;

        if (body_members(q->match.route, q->method, q->body, &problem) == 0)
                return true;
        api_reply_problem_json(q, problem);
        return false;
}

static bool is_priority(const struct api_request *q);

/* The database's queue (one connection, one query at a time) is bounded
 * for requests that are not a priority: past queue_limit they get 503 with
 * Retry-After rather than a wait that grows with the crowd.  Counted in
 * /v1/status (refused.queue_full). */
static bool room_in_queue(struct api_server *s, struct api_request *q) {
        struct req *r = req_of(q);
        unsigned pending = s->deps->store ? store_pending(s->deps->store) : 0;

        if (s->cfg.queue_limit == 0 || pending < s->cfg.queue_limit)
                return true;
        api_reply_problem_json(q, problem_new(MHD_HTTP_SERVICE_UNAVAILABLE,
                               "the database has %u queries waiting, as many as arbiterd queues ([database] "
                               "queue_limit); retry in a second", pending));
        if (r->response)
                MHD_add_response_header(r->response, MHD_HTTP_HEADER_RETRY_AFTER, QUEUE_RETRY_AFTER_S);
        s->queue_full++;
        return false;
}

/* The body is complete: parse it and hand the request to its handler. */
static void dispatch(struct api_server *s, struct req *r) {
        struct api_request *q = &r->pub;

        if (r->too_large) {
                api_reply_problem(q, MHD_HTTP_CONTENT_TOO_LARGE,
                                  "the body is larger than the %zu bytes this server accepts ([http] body_limit)",
                                  s->cfg.body_limit);
                return;
        }
        if (r->len > 0) {
                json_error_t jerr;
                q->body = json_loadb(r->buf, r->len, JSON_REJECT_DUPLICATES, &jerr);
                if (!q->body) {
                        api_reply_problem(q, MHD_HTTP_BAD_REQUEST,
                                          "the body is not valid JSON: %s (line %d, column %d)",
                                          jerr.text, jerr.line, jerr.column);
                        return;
                }
        }
        if (!check_members(q))
                return;
        if (!is_priority(q) && !room_in_queue(s, q))
                return;
        r->handled = true;
        q->match.route->handler(q);
}

/* GET /v1/health, and anything a referee or admin token asks: what must get
 * through when every other connection is taken (api/pool.h). */
static bool is_priority(const struct api_request *q) {
        return q->match.route->handler == handle_health || q->role >= AUTH_ROLE_REFEREE;
}

/* Rules 2 and 3 of api/pool.h for a request that passed its checks:
 * replies 503 and returns false when there is no room for it. */
static bool admit(struct api_server *s, struct req *r) {
        if (!r->conn)
                return true;            /* out of memory when it was accepted: no record */
        switch (pool_classify(s->pool, r->conn, is_priority(&r->pub))) {
        case POOL_ADMITTED:
                break;
        case POOL_FULL:
                api_reply_busy(&r->pub, "arbiterd has no room for more requests now: its connections are "
                               "taken ([http] max_connections, of which %u are kept for health checks, "
                               "referees and admins); retry in a few seconds",
                               s->cfg.reserved_connections);
                return false;
        case POOL_ADDRESS_FULL:
                api_reply_busy(&r->pub, "this address already has %u requests and event streams open, as many "
                               "as arbiterd takes from one address ([http] max_connections_per_ip); close "
                               "some, or retry in a few seconds", s->cfg.max_connections_per_ip);
                return false;
        }
        return true;
}

/* The request no longer waits for its client: its deadline ends. */
static void request_in(struct api_server *s, struct req *r) {
        if (r->conn)
                pool_request_in(s->pool, r->conn);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
        struct api_server *s = cls;
        struct req *r = *con_cls;

        (void) version;
        if (!r) {
                const union MHD_ConnectionInfo *ci;

                r = calloc(1, sizeof *r);
                if (!r)
                        return MHD_NO;
                *con_cls = r;
                s->active++;
                r->pub.server = s;
                r->pub.deps = s->deps;
                r->pub.connection = connection;
                r->pub.method = method;
                r->pub.path = url;
                ci = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
                r->conn = ci ? ci->socket_context : NULL;
                /* Answered from its headers (a page, 404, 401, …) as cheaply
                 * as a 503 would be, it stays unclassified (PENDING: to the
                 * pool, as good as idle); otherwise it needs room. */
                if (!check_headers(s, r) || !admit(s, r)) {
                        request_in(s, r);
                        return queue_reply(r);
                }
                return MHD_YES;
        }

        if (*upload_data_size > 0) {
                append_body(s, r, upload_data, *upload_data_size);
                *upload_data_size = 0;
                return MHD_YES;
        }

        request_in(s, r);
        if (!r->handled && !r->response)
                dispatch(s, r);
        if (r->response)
                return queue_reply(r);
        if (!r->suspended) {
                r->suspended = true;
                MHD_suspend_connection(connection);
        }
        return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
        struct api_server *s = cls;
        struct req *r = *con_cls;

        (void) connection;
        if (!r)
                return;
        /* A stream ends when its client leaves: nothing to report. */
        if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && toe != MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN &&
            !r->stream)
                log_debug("request %s %s ended early (MHD code %d)", r->pub.method, r->pub.path, (int) toe);
        s->active--;
        if (r->stream)
                s->streams--;
        /* Kept alive: ready for its next request.  Otherwise it closes. */
        if (r->conn && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
                pool_done(s->pool, r->conn, now_usec());
        else if (r->conn)
                pool_closing(s->pool, r->conn);
        req_free(r);
        *con_cls = NULL;
}

static void pool_addr_of(const struct sockaddr *sa, struct pool_addr *ret) {
        memset(ret, 0, sizeof *ret);
        if (sa && sa->sa_family == AF_INET) {
                ret->family = 4;
                memcpy(ret->bytes, &((const struct sockaddr_in *) sa)->sin_addr, sizeof(struct in_addr));
        } else if (sa && sa->sa_family == AF_INET6) {
                ret->family = 6;
                memcpy(ret->bytes, &((const struct sockaddr_in6 *) sa)->sin6_addr, sizeof(struct in6_addr));
        }
}

/* Shuts the socket down; libmicrohttpd, seeing the hang-up, drops the
 * connection in its next run (its fd stays libmicrohttpd's to close). */
static void shut_connection(struct MHD_Connection *connection) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(connection,
                                                                     MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci)
                shutdown(ci->connect_fd, SHUT_RDWR);
}

/* The pool closes a connection (api/pool.h): counted there. */
static void on_pool_close(void *userdata, void *conn_userdata, enum pool_reason why) {
        (void) userdata, (void) why;
        shut_connection(conn_userdata);
}

/* Every connection libmicrohttpd accepts and drops: the pool's record is
 * its socket context. */
static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
        struct api_server *s = cls;
        const union MHD_ConnectionInfo *ci;
        struct pool_conn *pc;
        struct pool_addr addr;

        if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
                pool_close(s->pool, *socket_context);
                *socket_context = NULL;
                return;
        }
        ci = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        pool_addr_of(ci ? ci->client_addr : NULL, &addr);
        if (pool_open(s->pool, &addr, now_usec(), connection, &pc) < 0) {
                log_error("out of memory accounting for a new connection; closing it");
                shut_connection(connection);
                pc = NULL;
        }
        *socket_context = pc;
}

static void on_deadline(evutil_socket_t fd, short what, void *userdata) {
        struct api_server *s = userdata;

        (void) fd, (void) what;
        s->armed_deadline = 0;
        pool_expire(s->pool, now_usec());
}

/* Arms ev_deadline for the pool's earliest deadline, when it moved. */
static void arm_deadline(struct api_server *s) {
        int64_t d = pool_next_deadline(s->pool), now;
        struct timeval tv;

        if (d == s->armed_deadline)
                return;
        if (d == INT64_MAX) {
                evtimer_del(s->ev_deadline);
                s->armed_deadline = 0;
                return;
        }
        now = now_usec();
        tv = usec_to_timeval(d > now ? d - now : 0);
        evtimer_add(s->ev_deadline, &tv);
        s->armed_deadline = d;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) {
        char msg[512];

        (void) cls;
        vsnprintf(msg, sizeof msg, fmt, ap);
        msg[strcspn(msg, "\n")] = '\0';
        log_debug("libmicrohttpd: %s", msg);
}

static void on_epoll_ready(evutil_socket_t fd, short what, void *userdata) {
        struct api_server *s = userdata;

        (void) fd, (void) what;
        MHD_run(s->mhd);
}

static void on_timer(evutil_socket_t fd, short what, void *userdata) {
        on_epoll_ready(fd, what, userdata);
}

/* Once per loop turn: run MHD after resumes (MHD_resume_connection only
 * marks the connection; MHD_run must follow) and re-arm its timer. */
static void before_sleep(void *userdata) {
        struct api_server *s = userdata;
        MHD_UNSIGNED_LONG_LONG ms;

        if (s->need_run) {
                s->need_run = false;
                MHD_run(s->mhd);
        }
        if (s->need_run) {
                /* resumed during that run (a handler published an event) */
                static const struct timeval now = { 0, 0 };
                evtimer_add(s->ev_timer, &now);
        } else if (MHD_get_timeout(s->mhd, &ms) == MHD_YES) {
                struct timeval tv = { .tv_sec = (time_t) (ms / 1000), .tv_usec = (suseconds_t) (ms % 1000) * 1000 };
                evtimer_add(s->ev_timer, &tv);
        } else {
                evtimer_del(s->ev_timer);
        }
        arm_deadline(s);
}

/* Parses cfg's numeric address into a sockaddr for MHD_OPTION_SOCK_ADDR. */
static int make_sockaddr(const struct api_config *cfg, struct sockaddr_storage *ss) {
        struct sockaddr_in *in4 = (struct sockaddr_in *) ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;

        memset(ss, 0, sizeof *ss);
        if (inet_pton(AF_INET, cfg->address, &in4->sin_addr) == 1) {
                in4->sin_family = AF_INET;
                in4->sin_port = htons(cfg->port);
                return AF_INET;
        }
        if (inet_pton(AF_INET6, cfg->address, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(cfg->port);
                return AF_INET6;
        }
        return -EINVAL;
}

/* "127.0.0.1:8080" or "[::1]:8080" for a socket systemd passed us. */
static void describe_socket(int fd, char *buf, size_t len) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        char host[INET6_ADDRSTRLEN] = "?";
        unsigned port = 0;

        if (getsockname(fd, (struct sockaddr *) &ss, &sl) == 0) {
                if (ss.ss_family == AF_INET) {
                        struct sockaddr_in *in4 = (struct sockaddr_in *) &ss;
                        inet_ntop(AF_INET, &in4->sin_addr, host, sizeof host);
                        port = ntohs(in4->sin_port);
                } else if (ss.ss_family == AF_INET6) {
                        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;
                        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
                        port = ntohs(in6->sin6_port);
                }
        }
        snprintf(buf, len, "%s%s%s:%u", ss.ss_family == AF_INET6 ? "[" : "", host,
                 ss.ss_family == AF_INET6 ? "]" : "", port);
}

int api_server_new(struct loop *loop, const struct api_config *cfg, const struct api_deps *deps,
                   struct api_server **ret) {
        struct sockaddr_storage ss;
        unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
        const union MHD_DaemonInfo *info;
        struct api_server *s;
        int family = AF_INET, r;

        if (cfg->listen_fd < 0) {
                family = make_sockaddr(cfg, &ss);
                if (family < 0)
                        return log_error_errno(EINVAL, "listen address \"%s\" is not a numeric IPv4 or IPv6 address",
                                               cfg->address);
                if (family == AF_INET6)
                        flags |= MHD_USE_IPv6;
        }

        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->loop = loop;
        s->cfg = *cfg;
        s->cfg.address = NULL;
        s->cfg.web_root = NULL;
        s->deps = deps;
        s->hook_id = -1;
        s->auth_log = (struct ratelimit) { .interval_usec = AUTH_LOG_INTERVAL_USEC, .burst = AUTH_LOG_BURST };
        struct pool_limits limits = {
                .budget = cfg->max_connections > cfg->reserved_connections
                                  ? cfg->max_connections - cfg->reserved_connections : 1,
                .per_address = cfg->max_connections_per_ip,
                .pending_per_address = cfg->pending_per_ip,
                .request_timeout_usec = (int64_t) cfg->request_timeout_s * USEC_PER_SEC,
        };
        uint64_t seed;
        if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t) sizeof seed)
                seed = (uint64_t) now_usec() ^ (uint64_t) getpid() << 32;
        r = pool_new(&limits, seed, on_pool_close, s, &s->pool);
        if (r < 0) {
                free(s);
                return r == -ENOMEM ? r : log_error_errno(-r, "[http] connection limits out of range");
        }
        r = web_open(cfg->web_root, &s->web);
        if (r == -ENOMEM) {
                pool_free(s->pool);
                free(s);
                return -ENOMEM;
        }
        if (r < 0)
                log_warning("web_root \"%s\": %s; the web pages (/, /scoreboard, …) answer 404 until it names "
                            "the directory of the pages ([http] web_root, or ARBITER_WEB)",
                            cfg->web_root ? cfg->web_root : "", strerror(-r));

        /* Where to listen: systemd's socket, or our own bound to cfg. */
        struct MHD_OptionItem where[] = {
                cfg->listen_fd >= 0
                        ? (struct MHD_OptionItem) { MHD_OPTION_LISTEN_SOCKET, cfg->listen_fd, NULL }
                        : (struct MHD_OptionItem) { MHD_OPTION_SOCK_ADDR, 0, &ss },
                cfg->listen_fd >= 0
                        ? (struct MHD_OptionItem) { MHD_OPTION_END, 0, NULL }
                        : (struct MHD_OptionItem) { MHD_OPTION_LISTEN_BACKLOG_SIZE, LISTEN_BACKLOG, NULL },
                { MHD_OPTION_END, 0, NULL },
        };
        /* No MHD_OPTION_PER_IP_CONNECTION_LIMIT: the pool counts addresses,
         * by what their connections do (api/pool.h, rule 3). */
        s->mhd = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_request, s,
                                  MHD_OPTION_ARRAY, where,
                                  MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections,
                                  MHD_OPTION_CONNECTION_TIMEOUT, cfg->connection_timeout_s,
                                  MHD_OPTION_CONNECTION_MEMORY_LIMIT, cfg->connection_memory,
                                  MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                  MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                  MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
                                  MHD_OPTION_END);
        if (!s->mhd) {
                int err = errno ? errno : EADDRINUSE;
                pool_free(s->pool);
                web_free(s->web);
                free(s);
                if (cfg->listen_fd >= 0)
                        return log_error_errno(err, "cannot serve HTTP on the socket systemd passed (fd %d): %s",
                                               cfg->listen_fd, strerror(err));
                return log_error_errno(err, "cannot listen on %s%s%s:%u: %s; stop whatever holds that "
                                       "port or set [http] listen (or ARBITER_LISTEN) to another",
                                       family == AF_INET6 ? "[" : "", cfg->address,
                                       family == AF_INET6 ? "]" : "", cfg->port, strerror(err));
        }

        info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);
        s->ev_epoll = event_new(loop_base(loop), info->epoll_fd, EV_READ | EV_PERSIST, on_epoll_ready, s);
        s->ev_timer = evtimer_new(loop_base(loop), on_timer, s);
        s->ev_deadline = evtimer_new(loop_base(loop), on_deadline, s);
        if (!s->ev_epoll || !s->ev_timer || !s->ev_deadline || event_add(s->ev_epoll, NULL) < 0) {
                api_server_free(s);
                return -ENOMEM;
        }
        s->hook_id = loop_add_before_sleep(loop, before_sleep, s);
        if (s->hook_id < 0) {
                api_server_free(s);
                return -ENOMEM;
        }

        if (cfg->listen_fd >= 0)
                describe_socket(cfg->listen_fd, s->address, sizeof s->address);
        else {
                info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
                snprintf(s->address, sizeof s->address, "%s%s%s:%u", family == AF_INET6 ? "[" : "",
                         cfg->address, family == AF_INET6 ? "]" : "",
                         info ? info->port : cfg->port);
        }
        *ret = s;
        return 0;
}

void api_server_free(struct api_server *s) {
        if (!s)
                return;
        /* MHD must not stop with suspended connections: wake every stream. */
        if (s->deps)
                sse_hub_close(s->deps->events);
        if (s->hook_id >= 0)
                loop_remove_before_sleep(s->loop, s->hook_id);
        if (s->ev_epoll)
                event_free(s->ev_epoll);
        if (s->ev_timer)
                event_free(s->ev_timer);
        if (s->ev_grace)
                event_free(s->ev_grace);
        if (s->ev_deadline)
                event_free(s->ev_deadline);
        if (s->mhd)
                MHD_stop_daemon(s->mhd);        /* drops every connection: the pool forgets them */
        pool_free(s->pool);
        web_free(s->web);
        free(s);
}

const char *api_server_address(const struct api_server *s) {
        return s->address;
}

void api_server_reconfigure(struct api_server *s, const struct api_config *cfg) {
        s->cfg.body_limit = cfg->body_limit;
        s->cfg.open_reads = cfg->open_reads;
}

/* Nothing to do: waking the loop makes the daemon look at
 * api_server_active() again. */
static void on_grace_over(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what, (void) userdata;
}

void api_server_quiesce(struct api_server *s) {
        MHD_socket fd = MHD_quiesce_daemon(s->mhd);

        /* A socket from systemd stays systemd's: it hands it to the next start. */
        if (fd != MHD_INVALID_SOCKET && s->cfg.listen_fd < 0)
                close(fd);
        /* Streams end now; they count as work in flight for a short grace,
         * so that their last chunk goes out before the process does. */
        sse_hub_close(s->deps->events);
        s->need_run = true;
        s->grace_end_usec = now_usec() + STREAM_END_GRACE_USEC;
        if (!s->ev_grace)
                s->ev_grace = evtimer_new(loop_base(s->loop), on_grace_over, s);
        if (s->ev_grace) {
                struct timeval tv = usec_to_timeval(STREAM_END_GRACE_USEC);
                evtimer_add(s->ev_grace, &tv);
        }
}

unsigned api_server_active(const struct api_server *s) {
        if (s->grace_end_usec && now_usec() < s->grace_end_usec)
                return s->active;
        return s->active - s->streams;
}

unsigned api_server_streams(const struct api_server *s) {
        return s->streams;
}

json_t *api_server_status(const struct api_server *s) {
        struct pool_stats st;

        pool_stats(s->pool, &st);
        return json_pack("{s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I},"
                         " s:{s:I, s:I, s:I}}",
                         "active_requests", (json_int_t) api_server_active(s),
                         "streams", (json_int_t) s->streams,
                         "connections",
                         "open", (json_int_t) (st.state[POOL_PENDING] + st.state[POOL_GENERAL] +
                                               st.state[POOL_PRIORITY] + st.state[POOL_STREAM] +
                                               st.state[POOL_CLOSING]),
                         "pending", (json_int_t) st.state[POOL_PENDING],
                         "requests", (json_int_t) st.state[POOL_GENERAL],
                         "priority", (json_int_t) st.state[POOL_PRIORITY],
                         "streams", (json_int_t) st.state[POOL_STREAM],
                         "addresses", (json_int_t) st.addresses,
                         "limit", (json_int_t) s->cfg.max_connections,
                         "reserved", (json_int_t) s->cfg.reserved_connections,
                         "refused",
                         "full", (json_int_t) st.refused_full,
                         "address_full", (json_int_t) st.refused_address,
                         "queue_full", (json_int_t) s->queue_full,
                         "closed",
                         "request_timeout", (json_int_t) st.closed[POOL_TIMED_OUT],
                         "evicted", (json_int_t) st.closed[POOL_EVICTED],
                         "evicted_address", (json_int_t) st.closed[POOL_EVICTED_ADDRESS],
                         "failed",
                         "unauthorized", (json_int_t) s->unauthorized,
                         "forbidden", (json_int_t) s->forbidden,
                         "too_large", (json_int_t) s->too_large);
}

struct loop *api_server_loop(const struct api_server *s) {
        return s->loop;
}

void api_server_run_soon(struct api_server *s) {
        static const struct timeval now = { 0, 0 };

        /* The flag serves a resume made before this turn's before-sleep
         * hook; the zero timer one made after it (another module's hook). */
        s->need_run = true;
        evtimer_add(s->ev_timer, &now);
}

static const char *query_value(void *userdata, const char *key) {
        return MHD_lookup_connection_value(userdata, MHD_GET_ARGUMENT_KIND, key);
}

struct api_query api_request_query(const struct api_request *req) {
        return (struct api_query) { .get = query_value, .userdata = req->connection };
}
