/* api/pool.h — arbiterd's own account of its HTTP connections: what each is
 * doing, which must be let in and which must let go (docs/architecture.md,
 * "Outside interfaces"; docs/operations.md, "Connections and load").
 *
 * libmicrohttpd accepts a connection before anything is known about it and
 * counts every connection, an event stream suspended for hours included,
 * against one limit.  A venue network brings more than that limit can hold
 * by itself: thousands of scoreboards, and now and then a client that sends
 * its request one header line every few seconds.  The pool classifies each
 * connection by what it is doing and decides, so that the requests that must
 * always get through — GET /v1/health and requests carrying a referee or
 * admin token, "priority" — find room, and the rest are refused or closed
 * early and cheaply.  It only decides: the server (api/server.c) closes what
 * the pool names, through the close function it gave.
 *
 * A connection, from accept to close:
 *
 *     accepted ─> PENDING ──headers in──> GENERAL or PRIORITY ──stream──> STREAM
 *                  │  ^                       │ (uploading until pool_request_in)
 *                  │  └──pool_done (keep-alive: ready for the next request)
 *                  │                          │
 *                  └──deadline, eviction──────┴──> CLOSING ──pool_close──> gone
 *
 * PENDING: no request headers yet (just accepted, or idle between two
 * requests of a kept-alive connection): it could turn out to be anything.
 *
 * The rules, with "used" = PENDING + GENERAL + STREAM (priority requests
 * and streams opened by them are not counted):
 *
 *  1. Deadline.  From the moment a connection is ready for a request
 *     (accepted, or its previous request completed) the request's headers
 *     and body must be in within request_timeout; otherwise the connection
 *     is closed.  A total, not an idle timeout: a byte every few seconds
 *     does not keep a connection.  Once the body is in (pool_request_in)
 *     the request is the handler's, and libmicrohttpd's idle timeout
 *     watches the reply.
 *  2. Budget.  used may reach budget (the server's max_connections minus
 *     the connections reserved for priority requests).  Whenever used is
 *     over it — a connection was accepted, or a request's headers came —
 *     the oldest PENDING connections other than the one at hand are closed
 *     until it is not: the connection that has sent nothing for longest is
 *     the one least likely to be a client waiting for an answer (a slow
 *     client, or an idle kept-alive one, which reconnects when it needs
 *     to).  A non-priority request whose headers find used still over the
 *     budget is refused (the server answers 503).
 *  3. Address.  One client address may have at most pending_per_address
 *     PENDING connections — over it, its own oldest PENDING one is closed,
 *     so one host behind a NAT cannot hold the address's room for everyone
 *     else behind it — and at most per_address GENERAL + STREAM (the next
 *     request is refused).
 *
 * Invariants: every connection is in exactly one state; a PENDING one is in
 * the pending lists (the pool's and its address's) and the deadline list; a
 * GENERAL or PRIORITY one is in the deadline list until its request is in;
 * the lists are in the order the connections became ready, which is their
 * deadlines' order (request_timeout is one for all); counts equal the
 * lists' and states' populations.  A CLOSING connection is in no list and
 * counts nowhere: the server has closed its socket and libmicrohttpd drops
 * it on its next run.
 *
 * Pure: no clock (times come in as arguments), no I/O, no library; single
 * threaded.  Ownership: the pool owns its connection records; the server
 * owns the connections they stand for (userdata) and must call pool_close
 * for each when libmicrohttpd drops it.
 */
#ifndef ARBITER_API_POOL_H
#define ARBITER_API_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pool;
struct pool_conn;

/* A client address: family and the address bytes (4 or 16). */
#define POOL_ADDR_MAX 16
struct pool_addr {
        uint8_t family;                 /* 4 or 6 */
        uint8_t bytes[POOL_ADDR_MAX];   /* unused bytes zero */
};

enum pool_state {
        POOL_PENDING,
        POOL_GENERAL,
        POOL_PRIORITY,
        POOL_STREAM,
        POOL_CLOSING,
        POOL_N_STATES,
};

/* Why the pool closes a connection. */
enum pool_reason {
        POOL_TIMED_OUT,                 /* rule 1 */
        POOL_EVICTED,                   /* rule 2 */
        POOL_EVICTED_ADDRESS,           /* rule 3 */
        POOL_N_REASONS,
};

/* What pool_classify decided. */
enum pool_admit {
        POOL_ADMITTED,
        POOL_FULL,                      /* rule 2: used over the budget */
        POOL_ADDRESS_FULL,              /* rule 3: the address's requests and streams */
};

/* Closes the connection (the server shuts its socket down); the record stays
 * until pool_close.  Called from inside the pool's functions. */
typedef void (*pool_close_fn)(void *userdata, void *conn_userdata, enum pool_reason why);

struct pool_limits {
        unsigned budget;                /* rule 2, >= 1 */
        unsigned per_address;           /* rule 3, requests and streams, >= 1 */
        unsigned pending_per_address;   /* rule 3, PENDING, >= 1 */
        int64_t request_timeout_usec;   /* rule 1, > 0 */
};

struct pool_stats {
        unsigned state[POOL_N_STATES];  /* connections in each state now */
        unsigned streams;               /* STREAM, and priority requests that became streams */
        unsigned addresses;             /* distinct client addresses now */
        uint64_t closed[POOL_N_REASONS];
        uint64_t refused_full, refused_address;
};

/* seed keys the address table's hash (0: a fixed key, for tests). */
int pool_new(const struct pool_limits *limits, uint64_t seed, pool_close_fn close_fn, void *userdata,
             struct pool **ret);
/* Accepts NULL.  Every connection must have been pool_close'd. */
void pool_free(struct pool *p);

/* A connection accepted at now: PENDING.  May close others (rules 2, 3).
 * Returns 0 or -ENOMEM. */
int pool_open(struct pool *p, const struct pool_addr *addr, int64_t now, void *conn_userdata,
              struct pool_conn **ret);
/* Its request's headers are in (c is PENDING): priority or not.  May close
 * PENDING others (rule 2).  A refused request is counted as GENERAL until
 * its connection closes. */
enum pool_admit pool_classify(struct pool *p, struct pool_conn *c, bool priority);
/* Its request no longer waits for the client: the body is in, or a reply
 * was queued.  The deadline stops.  Idempotent. */
void pool_request_in(struct pool *p, struct pool_conn *c);
/* Its request's reply is an event stream. */
void pool_stream(struct pool *p, struct pool_conn *c);
/* Its request completed and the connection stays open for another: PENDING
 * again, ready since now. */
void pool_done(struct pool *p, struct pool_conn *c, int64_t now);
/* libmicrohttpd is closing it for its own reasons: CLOSING, without a call
 * to the close function. */
void pool_closing(struct pool *p, struct pool_conn *c);
/* It is gone: the record is freed.  Accepts NULL. */
void pool_close(struct pool *p, struct pool_conn *c);

/* Closes every connection whose request is past its deadline at now. */
void pool_expire(struct pool *p, int64_t now);
/* The earliest deadline (CLOCK_MONOTONIC µs), or INT64_MAX when none. */
int64_t pool_next_deadline(const struct pool *p);

enum pool_state pool_conn_state(const struct pool_conn *c);
void pool_stats(const struct pool *p, struct pool_stats *ret);

#endif
