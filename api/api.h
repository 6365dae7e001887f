/* api/api.h — arbiterd's REST server (docs/architecture.md, "The event loop"
 * and "Outside interfaces").
 *
 * libmicrohttpd runs inside the daemon's loop in external epoll mode
 * (MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, no thread of its own): a
 * libevent watch on MHD's epoll fd and a timer from MHD_get_timeout(),
 * re-armed by a before-sleep hook that also calls MHD_run() after a resume.
 *
 * A request goes through, in this order:
 *   route (404; 405 with Allow) → auth (401, 403) → Content-Type (415) →
 *   body size (413) → JSON syntax (400) → the route's handler.
 * A handler replies at once or later (after a database query): until it
 * replies the connection is suspended.  Errors are problem+json.
 *
 * Handlers see struct api_request (below) and reply exactly once with
 * api_reply_json() or api_reply_problem().
 */
#ifndef ARBITER_API_API_H
#define ARBITER_API_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/auth.h"
#include "api/router.h"

struct loop;
struct matches;
struct pad;
struct pad_press;
struct padbus;
struct sse_hub;
struct store;
struct store_replica;
struct api_server;
struct MHD_Connection;
struct MHD_Response;

struct api_config {
        const char *address;            /* numeric IPv4 or IPv6 address */
        uint16_t port;
        int listen_fd;                  /* >= 0: a socket from systemd, used instead */
        size_t body_limit;              /* bytes; larger bodies get 413 */
        /* Connections (api/pool.h): libmicrohttpd holds at most
         * max_connections; all but reserved_connections may be used by
         * anything, those are kept for priority requests (GET /v1/health,
         * referee and admin tokens). */
        unsigned max_connections;
        unsigned reserved_connections;
        unsigned max_connections_per_ip;        /* requests and streams from one address */
        unsigned pending_per_ip;        /* connections of one address not yet sending a request */
        unsigned request_timeout_s;     /* a request's headers and body, in total */
        unsigned connection_timeout_s;  /* idle, while a reply is sent (libmicrohttpd's) */
        size_t connection_memory;
        unsigned queue_limit;           /* queries waiting for the database (deps->store) beyond
                                         * which a request that is not a priority one gets 503 */
        bool open_reads;                /* GET/HEAD need no token */
        const char *web_root;           /* the web pages (api/web.h); NULL or missing: a
                                         * warning, and every page a 404 saying why */
};

/* How much GET /v1/health and GET /v1/status show.  Where the daemon's
 * database is (socket path, database name, user) and what its server says
 * is for admins only: with open_reads on, /v1/status answers anyone on the
 * network. */
enum api_health_view {
        API_HEALTH_BRIEF,               /* /v1/health: the few members a health check needs */
        API_HEALTH_STATUS,              /* /v1/status: every counter, no internals */
        API_HEALTH_INTERNALS,           /* /v1/status with an admin token: the internals too */
};

/* What the handlers reach of the rest of the daemon.  The daemon owns all
 * of it; the server only borrows. */
struct api_deps {
        /* The venue this daemon runs ([venue] id and its name): the default
         * venue of a new table, and what /v1/status, /v1/health and
         * /v1/venues say is "this" one. */
        const char *venue;
        const char *venue_name;
        struct store *store;
        struct auth *auth;
        struct padbus *pads;
        struct sse_hub *events;         /* live events (api/sse.h); outlives the server */
        /* The league's events (api/league.h): what this daemon publishes
         * first-hand for the other venues' daemons, and theirs; NULL: none. */
        struct api_league *league;
        /* Fills the daemon-wide members of GET /v1/health or GET /v1/status,
         * as much as view allows (enum api_health_view). */
        void (*health)(void *userdata, json_t *health, enum api_health_view view);
        void *userdata;
        struct matches *matches;        /* the match runtime; NULL: the match routes answer 503 */
        /* A tournament changed (api/tournaments.h, "Events"): the daemon
         * passes it on to D-Bus.  May be NULL. */
        void (*tournament_event)(void *userdata, int64_t tournament, const char *event, json_t *data);
        /* Rating parameters ([ratings]); NULL: the published defaults. */
        const struct tour_os_params *rating_os;
        const struct tour_glicko2_params *rating_g2;
        /* The rating worker (organiser/ratings.h): recomputes, seasons.
         * NULL: POST .../recompute rebuilds the standings only, and a
         * season's leaderboard answers 503. */
        struct org_ratings *ratings;
        /* The read replica ([database] replica_dsn; store/replica.h), for
         * the reads that may lag (api_read_store()); NULL: none. */
        struct store_replica *replica;
};

struct tour_os_params;
struct tour_glicko2_params;
struct org_ratings;
struct api_league;

struct api_request {
        struct api_server *server;
        const struct api_deps *deps;
        struct MHD_Connection *connection;
        const char *method;
        const char *path;
        struct route_match match;
        enum auth_role role;             /* of the token presented; AUTH_ROLE_NONE without one */
        int64_t token_id;                /* 0 without a token */
        int64_t token_match;             /* a seat token's match, a match referee's, or 0 ... */
        int64_t token_table;             /* ... its table (a station's); else 0 */
        int token_seat;                  /* a seat token's seat, 1-based; else 0 */
        char token_name[64];             /* for audit trails ("who") */
        json_t *body;                    /* parsed JSON body, or NULL when there was none */
        /* A route whose reads may lag (api_read_store()): the store it
         * reads from, decided once per request, and the Arbiter-Read-From
         * header every reply to it carries; NULL and "" elsewhere. */
        struct store *read_store;
        char read_from[64];
};

int api_server_new(struct loop *loop, const struct api_config *cfg, const struct api_deps *deps,
                   struct api_server **ret);
void api_server_free(struct api_server *s);  /* accepts NULL; drops open connections */

/* The address actually bound ("127.0.0.1:8080"), for logs and STATUS=. */
const char *api_server_address(const struct api_server *s);

/* Applies the reloadable settings (body_limit, open_reads). */
void api_server_reconfigure(struct api_server *s, const struct api_config *cfg);

/* Stops accepting connections (graceful shutdown); requests in flight go
 * on.  Event streams end at once: they are not work in flight, and a
 * display reconnects to the next start by itself. */
void api_server_quiesce(struct api_server *s);
/* Requests received and not yet completed.  Event streams are not counted,
 * except for a short grace after quiesce while they send their last chunk. */
unsigned api_server_active(const struct api_server *s);
/* Event streams open. */
unsigned api_server_streams(const struct api_server *s);
/* The "http" member of GET /v1/status: requests, streams, connections by
 * class, what was refused or closed and why, and the failed requests
 * (401, 403, 413) counted. */
json_t *api_server_status(const struct api_server *s);
/* The loop the server runs on, for what a handler must watch there. */
struct loop *api_server_loop(const struct api_server *s);
/* Makes the server call MHD_run() before the loop sleeps again: for code
 * outside the server that resumes a connection (MHD_resume_connection() only
 * marks it). */
void api_server_run_soon(struct api_server *s);

/* Reply to req (the server takes body).  Status 2xx/3xx: JSON; callers use
 * api_reply_problem for errors.  Safe to call later from a store callback. */
void api_reply_json(struct api_request *req, unsigned status, json_t *body);
void api_reply_problem(struct api_request *req, unsigned status, const char *detail_fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Replies with text (taken, malloc'd) of that content type: CSV exports. */
void api_reply_text(struct api_request *req, unsigned status, char *text, const char *content_type);
/* Replies with an already built problem (taken). */
void api_reply_problem_json(struct api_request *req, json_t *problem);
/* Replies 503 with Retry-After, and closes the connection after it: the
 * server has no room for this request now (connections, streams). */
void api_reply_busy(struct api_request *req, const char *detail_fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Replies 503 with Retry-After: retry_after_s: what was asked for is being
 * made (a season's ratings); the connection stays open. */
void api_reply_unavailable(struct api_request *req, unsigned retry_after_s, const char *detail_fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Replies 200 with a streaming response (taken) whose content reader
 * suspends the connection when it has nothing to send and whose owner
 * resumes it (then api_server_run_soon()).  The request counts as a stream,
 * not as work in flight. */
void api_reply_stream(struct api_request *req, struct MHD_Response *response);

/* Live events of the pad bus on topic "pads" (api/events.c): "pad_added",
 * "pad_removed" and "pad_identity" (an identity conflict began, grew or was
 * decided: hardware/padbus.h, "Identity") with the pad, "pressed" with the
 * press.  Failures are
 * logged; hub may be NULL. */
/* Replies with a Server-Sent Events stream of topic (a topic or prefix;
 * NULL or "": everything) in scope (api/sse.h "Scopes"; NULL: the public,
 * the only one a client names itself), resumed after the request's
 * Last-Event-ID. */
void api_events_stream(struct api_request *req, const char *topic, const char *scope);
void api_events_pad(struct sse_hub *hub, const char *event, const struct pad *pad);
void api_events_press(struct sse_hub *hub, const struct pad_press *press);

/* Publishes the live matches' events on deps->events (api/match_events.c):
 * topic "match/<id>"; a table's ("table/<id>") go to deps->league's events
 * too (NULL: none).  deps (read at each event) must outlive reg.  0, or
 * -ENOSPC. */
int api_match_events_observe(struct matches *reg, const struct api_deps *deps);

/* Publishes "ratings_changed" {game} on topic "ratings/<game>" (the rating
 * worker wrote the game's tables: organiser/ratings.h), and to the
 * league's events (league may be NULL).  hub may be NULL. */
void api_ratings_changed(struct sse_hub *hub, struct api_league *league, const char *game);

/* LISTENs for results the database records by itself (a runtime match of
 * this venue that finished, migrations/0004_tournaments.sql and 0010) on
 * the input lane (deps->matches' store), and refreshes and publishes them
 * as result_recorded on the REST connection; one that finds it away waits
 * for api_tournaments_store_ready() (api/match_results.c).  deps must
 * outlive both stores; free the watch after them. */
struct api_results;
int api_tournaments_watch(const struct api_deps *deps, struct api_results **ret);
/* The REST connection (deps->store) became READY: the hand-offs that
 * waited for it go. */
void api_tournaments_store_ready(struct api_results *w);
void api_tournaments_unwatch(struct api_results *w);        /* accepts NULL */

/* The token cache (api/tokens.c).  api_tokens_reload() loads the live
 * tokens into auth; call it whenever the store becomes ready.
 * api_tokens_watch() LISTENs on the channel the api_tokens table notifies,
 * so the cache follows tokens created by `arbiterd --create-token` or
 * revoked through the API. */
int api_tokens_reload(struct store *store, struct auth *auth);
int api_tokens_watch(struct store *store, struct auth *auth);

/* Creates a token named name with role; cb gets the outcome, and the
 * secret (shown once) and the stored resource, or an error line a person
 * can read.  Used by POST /v1/tokens and by `arbiterd --create-token`.
 * Returns -EINVAL (bad name), -ENOTCONN. */
enum api_token_outcome {
        API_TOKEN_CREATED,
        API_TOKEN_NAME_TAKEN,           /* a live token has this name */
        API_TOKEN_NO_SUCH_SEAT,         /* the table has no such seat (a station's token) */
        API_TOKEN_FAILED,               /* the database's error */
};
typedef void (*api_token_created_fn)(void *userdata, enum api_token_outcome outcome, const char *token,
                                     json_t *resource, const char *error);
int api_tokens_create(struct store *store, const char *name, enum auth_role role,
                      const char *created_by, api_token_created_fn cb, void *userdata);
/* Creates a seat token for seat (1-based) of a match (match_id) or of a
 * table (table_id: a station's, good for every match at the table), the
 * other id 0, revoking that seat's previous one; cb as api_tokens_create's
 * (API_TOKEN_NO_SUCH_SEAT when the table has no such seat).  -EINVAL,
 * -ENOTCONN. */
int api_seat_token_create(struct store *store, int64_t match_id, int64_t table_id, int seat,
                          const char *created_by, api_token_created_fn cb, void *userdata);
/* Creates a referee token limited to match match_id (docs/matches.md,
 * "Match referee tokens"): a referee on that match's routes, a display
 * token elsewhere.  cb as api_tokens_create's.  -EINVAL, -ENOTCONN. */
int api_match_referee_token_create(struct store *store, int64_t match_id, const char *created_by,
                                   api_token_created_fn cb, void *userdata);
/* NULL when name is acceptable for a token or a table (1 to 64 bytes, no
 * control characters), otherwise why not. */
const char *api_name_problem(const char *name);

/* Route tables of each resource, joined by api/routes.c. */
extern const struct route api_routes[];
extern const size_t api_n_routes;

#endif
