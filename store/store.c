/* store/store.c — see store.h.
 *
 * Invariants:
 *   - conn != NULL exactly in CONNECTING, MIGRATING and READY.
 *   - io watches PQsocket(conn) whenever conn != NULL: for what PQconnectPoll
 *     asked while CONNECTING, afterwards for reading always (notifications
 *     and a server that goes away arrive unasked) plus writing while a
 *     PQflush() left data unsent.
 *   - timer is pending in DISCONNECTED (the next attempt) and in CONNECTING
 *     (the attempt's deadline), and nowhere else.
 *   - Ops in flight form a FIFO (inflight, inflight_tail, n_inflight); only
 *     its head collects results.  Without cfg.pipeline at most one op is in
 *     flight.  Internal ops (session setup, migrations, SET, LISTEN) are
 *     sent by the step that precedes them, or by the before-sleep hook when
 *     nothing is in flight, always alone and outside pipeline mode; a
 *     caller's op is sent only in READY, by the before-sleep hook.  So a
 *     caller's callback never runs inside store_query().
 *   - Pipeline mode (cfg.pipeline): the connection is in libpq's pipeline
 *     mode exactly while caller ops may be in flight: entered by the hook
 *     when READY and nothing is in flight, left by it (nothing in flight)
 *     before an internal simple query.  Each caller op is sent as
 *     PQsendQueryParams + PQpipelineSync, so it is its own implicit
 *     transaction, and completes at its PGRES_PIPELINE_SYNC (the commit),
 *     never at its command result.  head_synced says the head's results
 *     have ended (its NULL came) and its sync is what comes next.  At most
 *     STORE_PIPELINE_MAX ops are in flight.
 *   - Every caller's op is in exactly one place (queue or inflight) until
 *     its callback has been called, and is freed right after.
 *   - busy counts callbacks of ours on the stack.  store_free() from inside
 *     one closes everything at once but leaves the struct to the loop's
 *     deferred free, so the code that called out may still read s->closed.
 */
#include "store/store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"
#include "store/migrate.h"

/* The first retry waits this long, then the wait doubles (store.h). */
#define STORE_BACKOFF_INITIAL_USEC (250 * USEC_PER_MSEC)

/* libpq ignores connect_timeout under PQconnectPoll (libpq docs,
 * "PQconnectStartParams"), so the store bounds each attempt itself: the
 * DSN's connect_timeout when it has one, else this, long enough for a TLS
 * handshake over a slow venue uplink. */
#define STORE_CONNECT_TIMEOUT_DEFAULT_S 10

/* Key of the session advisory lock held during the migration run: the
 * bytes "arbiter1" read as a big-endian int64.  Any value works as long as
 * every arbiterd uses the same one and nothing else on the database does. */
#define STORE_MIGRATION_LOCK_KEY INT64_C(0x6172626974657231)

/* Class key of the session advisory lock a store with hold_lock keeps for
 * as long as its connection lives (STORE_VENUE_LOCK_CLASS in store.h: "arbd"
 * as a big-endian int32).  One daemon per venue (store.h, "The daemon's
 * lock"). */
#define STORE_DAEMON_LOCK_CLASS STORE_VENUE_LOCK_CLASS
_Static_assert(STORE_VENUE_LOCK_CLASS == 0x61726264, "the class key is \"arbd\"");
/* At start, the daemon's lock refused for this long is FAILED: a daemon
 * that has just stopped (a restart) leaves its session a few moments to
 * end on the server. */
#define STORE_LOCK_GRACE_USEC (5 * USEC_PER_SEC)

/* Pipeline mode (cfg.pipeline): at most this many caller queries in flight.
 * Enough for every table of a venue to have its judged call in one round
 * trip; past it, queries wait in the queue, in order. */
#define STORE_PIPELINE_MAX 32

/* Room for a plan refusal (two file names, two checksums, advice) or a
 * server error with its detail and hint. */
#define STORE_DETAIL_MAX 1024

/* NAMEDATALEN - 1 in PostgreSQL: longer identifiers are truncated. */
#define STORE_CHANNEL_MAX 63

struct store;

typedef void (*step_done_fn)(struct store *s, const PGresult *res, const PGresult *err_res,
                             const char *error);

struct op {
        struct op *next;
        char *sql;
        char **params;
        int n_params;
        bool simple;            /* PQsendQuery: may hold several statements, no parameters */
        store_result_fn fn;     /* a caller's query ... */
        void *userdata;
        step_done_fn done;      /* ... or an internal one */
};

struct listener {
        char *channel;
        store_notify_fn fn;
        void *userdata;
};

/* The session set-up run after every connect, in this order. */
enum step {
        STEP_TIMEOUT,
        STEP_LOCK,
        STEP_TABLE,
        STEP_APPLIED,
        STEP_APPLY,
        STEP_UNLOCK,
        STEP_HOLD,
        STEP_LISTEN,
};

/* What a failing step was doing, for the detail line. */
static const char *const step_what[] = {
        [STEP_TIMEOUT] = "setting statement_timeout",
        [STEP_LOCK] = "taking the migration lock (another arbiterd may be migrating this database)",
        [STEP_TABLE] = "creating schema_migrations",
        [STEP_APPLIED] = "reading schema_migrations",
        [STEP_APPLY] = "applying a migration",
        [STEP_UNLOCK] = "releasing the migration lock",
        [STEP_HOLD] = "taking the daemon's lock",
        [STEP_LISTEN] = "subscribing to notifications (LISTEN)",
};

struct store {
        struct loop *loop;
        struct event_base *base;
        struct store_config cfg;        /* strings owned */
        store_state_fn state_fn;
        void *userdata;
        int hook_id;

        enum store_state state;
        char detail[STORE_DETAIL_MAX];
        char fatal[STORE_DETAIL_MAX];   /* set by store_new: fail on the first turn */

        PGconn *conn;
        struct event *io;
        int io_fd;
        short io_what;
        bool flushing;
        struct event *timer;
        int64_t backoff_usec;

        struct migration_list files;
        struct migration_list applied;
        size_t next_migration;
        enum step step;

        struct op *inflight;            /* the head of the ops in flight, in the order sent */
        struct op **inflight_tail;
        unsigned n_inflight;
        bool head_synced;               /* pipeline: the head's results ended, its sync is next */
        PGresult *inflight_res;         /* last successful result of the head */
        PGresult *inflight_err;         /* first error result of the head */
        struct op *queue_head, **queue_tail;
        unsigned n_queued;

        bool timeout_dirty;
        struct listener *listeners;
        size_t n_listeners, n_listened, n_listen_sent;

        int backend_pid;                /* of the last session that was READY; 0 before */
        int64_t lock_refused_usec;      /* first refusal of the daemon's lock at start; 0 none */

        const PGresult *callback_err;   /* the server's error, inside a failed query's callback */
        bool callback_failed;           /* inside a failed query's callback */

        unsigned busy;
        bool closed;
};

static void step_send(struct store *s);
static void store_destroy(void *p);

static const char *const state_names[] = {
        [STORE_DISCONNECTED] = "disconnected",
        [STORE_CONNECTING] = "connecting",
        [STORE_MIGRATING] = "migrating",
        [STORE_READY] = "ready",
        [STORE_FAILED] = "failed",
};

const char *store_state_to_string(enum store_state state) {
        if ((unsigned) state >= sizeof state_names / sizeof state_names[0])
                return "unknown";
        return state_names[state];
}

/* libpq's messages are multi-line ("...failed: No such file or
 * directory\n\tIs the server running locally...?\n"), with a tab-indented
 * line either continuing the sentence or starting a new one.  A detail line
 * must be one line for STATUS= and JSON: a continuation becomes a space, a
 * new sentence "; ", and runs of blanks one space. */
static void oneline(char *dst, size_t n, const char *src) {
        size_t o = 0;

        if (n == 0)
                return;
        for (const char *p = src ? src : ""; *p && o + 1 < n; p++) {
                if (*p == '\n' || *p == '\r') {
                        bool indented = false;
                        while (p[1] == '\n' || p[1] == '\r' || p[1] == '\t' || p[1] == ' ') {
                                indented |= p[1] == '\t' || p[1] == ' ';
                                p++;
                        }
                        if (!p[1] || o == 0)
                                continue;
                        bool continues = (indented && p[1] >= 'a' && p[1] <= 'z') ||
                                         strchr(".?!:;,", dst[o - 1]);
                        if (!continues && o + 2 < n)
                                dst[o++] = ';';
                        if (dst[o - 1] != ' ')
                                dst[o++] = ' ';
                        continue;
                }
                if ((*p == ' ' || *p == '\t') && o > 0 && dst[o - 1] == ' ')
                        continue;
                dst[o++] = *p == '\t' ? ' ' : *p;
        }
        while (o > 0 && dst[o - 1] == ' ')
                o--;
        dst[o] = '\0';
}

static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...) {
        size_t used = strnlen(buf, n);
        va_list ap;

        if (used + 1 >= n)
                return;
        va_start(ap, fmt);
        vsnprintf(buf + used, n - used, fmt, ap);
        va_end(ap);
}

/* A server error as one line a person can act on: the primary message, the
 * SQLSTATE (searchable, and what a script matches), then detail and hint. */
static char *format_pg_error(const PGresult *res) {
        const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
        const char *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);
        char buf[STORE_DETAIL_MAX] = "", line[STORE_DETAIL_MAX];

        if (PQresultStatus(res) == PGRES_EMPTY_QUERY)
                return strdup("the query string is empty");
        if (!primary) {
                oneline(buf, sizeof buf, PQresultErrorMessage(res));
                return strdup(buf[0] ? buf : PQresStatus(PQresultStatus(res)));
        }
        oneline(line, sizeof line, primary);
        append(buf, sizeof buf, "%s", line);
        if (state)
                append(buf, sizeof buf, " (SQLSTATE %s)", state);
        if (detail) {
                oneline(line, sizeof line, detail);
                append(buf, sizeof buf, "; detail: %s", line);
        }
        if (hint) {
                oneline(line, sizeof line, hint);
                append(buf, sizeof buf, "; hint: %s", line);
        }
        return strdup(buf);
}

static void fmt_delay(char *buf, size_t n, int64_t usec) {
        if (usec % USEC_PER_SEC == 0)
                snprintf(buf, n, "%lld s", (long long) (usec / USEC_PER_SEC));
        else
                snprintf(buf, n, "%lld ms", (long long) (usec / USEC_PER_MSEC));
}

/* Records the state and its detail and tells the owner when either
 * changed (each retry has a new detail).  The owner's callback may free
 * the store: callers check s->closed afterwards. */
static void set_state(struct store *s, enum store_state state, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void set_state(struct store *s, enum store_state state, const char *fmt, ...) {
        char detail[STORE_DETAIL_MAX];
        bool changed;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        changed = s->state != state || strcmp(s->detail, detail) != 0;
        memcpy(s->detail, detail, sizeof detail);
        s->state = state;
        log_debug("database %s: %s", state_names[state], s->detail);
        if (changed && s->state_fn) {
                s->busy++;
                s->state_fn(s->userdata, state, s->detail);
                s->busy--;
        }
}

static void op_free(struct op *op) {
        if (!op)
                return;
        for (int i = 0; i < op->n_params; i++)
                free(op->params[i]);
        free(op->params);
        free(op->sql);
        free(op);
}

static struct op *op_new_internal(char *sql, step_done_fn done) {
        struct op *op;

        if (!sql)
                return NULL;
        op = calloc(1, sizeof *op);
        if (!op) {
                free(sql);
                return NULL;
        }
        op->sql = sql;
        op->simple = true;
        op->done = done;
        return op;
}

/* Hands op its outcome and frees it.  error overrides what the results
 * said (used when the connection went away under it). */
static void op_complete(struct store *s, struct op *op, PGresult *res, PGresult *err_res,
                        const char *error) {
        char *formatted = NULL;

        if (!error && err_res)
                error = formatted = format_pg_error(err_res);
        if (!error && !res)
                error = "the server sent no result";
        if (op->fn) {
                const PGresult *outer = s->callback_err;

                s->busy++;
                s->callback_err = error ? err_res : NULL;
                s->callback_failed = error != NULL;
                op->fn(op->userdata, error ? NULL : res, error);
                s->callback_err = outer;
                s->callback_failed = false;
                s->busy--;
        } else if (op->done) {
                op->done(s, error ? NULL : res, err_res, error);
        }
        free(formatted);
        PQclear(res);
        PQclear(err_res);
        op_free(op);
}

/* Takes the head off the ops in flight, with what it collected. */
static struct op *pop_inflight(struct store *s, PGresult **res, PGresult **err_res) {
        struct op *op = s->inflight;

        if (!op)
                return NULL;
        s->inflight = op->next;
        if (!s->inflight)
                s->inflight_tail = &s->inflight;
        s->n_inflight--;
        op->next = NULL;
        *res = s->inflight_res;
        *err_res = s->inflight_err;
        s->inflight_res = s->inflight_err = NULL;
        s->head_synced = false;
        return op;
}

/* Completes the head of the ops in flight. */
static void finish_inflight(struct store *s, const char *error) {
        PGresult *res, *err_res;
        struct op *op = pop_inflight(s, &res, &err_res);

        if (op)
                op_complete(s, op, res, err_res, error);
}

/* Every caller's query queued or in flight gets error, exactly once.  Each
 * op leaves the queue before its callback runs, so a callback that queues
 * (refused: we are no longer READY) or frees the store cannot disturb it. */
static void fail_ops(struct store *s, const char *error) {
        struct op *op;

        /* In flight first, in the order sent, then the queue: each caller
         * sees its error in the order it queued. */
        while (s->inflight) {
                if (s->inflight->fn)
                        finish_inflight(s, error);
                else {
                        PGresult *res, *err_res;

                        op_free(pop_inflight(s, &res, &err_res));
                        PQclear(res);
                        PQclear(err_res);
                }
        }
        while ((op = s->queue_head)) {
                s->queue_head = op->next;
                if (!s->queue_head)
                        s->queue_tail = &s->queue_head;
                s->n_queued--;
                op_complete(s, op, NULL, NULL, error);
        }
}

static void drop_watch(struct store *s) {
        if (s->io) {
                event_free(s->io);
                s->io = NULL;
        }
        s->io_fd = -1;
        s->io_what = 0;
}

static void on_io(evutil_socket_t fd, short what, void *userdata);

/* The watch is re-created rather than kept when the socket number is the
 * same: while connecting, libpq may close a socket and open the next one
 * (another host, or a retry without SSL/GSS) under the same number, and the
 * kernel forgets a closed descriptor's epoll registration.  force says so. */
static int watch_conn(struct store *s, short what, bool force) {
        int fd = PQsocket(s->conn);

        if (fd < 0)
                return -EBADF;
        if (!force && s->io && fd == s->io_fd && what == s->io_what)
                return 0;
        drop_watch(s);
        s->io = event_new(s->base, fd, what | EV_PERSIST, on_io, s);
        if (s->io)
                loop_set_urgent(s->io);
        if (!s->io || event_add(s->io, NULL) < 0) {
                drop_watch(s);
                return -ENOMEM;
        }
        s->io_fd = fd;
        s->io_what = what;
        return 0;
}

static void close_conn(struct store *s) {
        drop_watch(s);
        if (s->conn) {
                PQfinish(s->conn);
                s->conn = NULL;
        }
        s->flushing = false;
        s->head_synced = false;
        migration_list_done(&s->applied);
}

/* A failure that a later attempt may not have: close, wait, try again.
 * The wait doubles each time, up to reconnect_max_s; becoming READY
 * resets it. */
static void lose(struct store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lose(struct store *s, const char *fmt, ...) {
        int64_t max = (int64_t) s->cfg.reconnect_max_s * USEC_PER_SEC;
        int64_t wait = s->backoff_usec < max ? s->backoff_usec : max;
        char why[STORE_DETAIL_MAX], delay[32], error[STORE_DETAIL_MAX + 64];
        struct timeval tv;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);

        close_conn(s);
        s->backoff_usec = wait * 2 > max ? max : wait * 2;
        tv = usec_to_timeval(wait);
        event_del(s->timer);
        event_add(s->timer, &tv);
        fmt_delay(delay, sizeof delay, wait);

        set_state(s, STORE_DISCONNECTED, "%s; retrying in %s", why, delay);
        if (s->closed)
                return;
        snprintf(error, sizeof error, "the query did not complete: %s", why);
        fail_ops(s, error);
}

/* A failure no retry will cure (a refused plan, a broken migration, an
 * invalid DSN): close and stay FAILED until the daemon is restarted. */
static void fail(struct store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct store *s, const char *fmt, ...) {
        char why[STORE_DETAIL_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);

        close_conn(s);
        event_del(s->timer);
        set_state(s, STORE_FAILED, "%s", why);
        if (s->closed)
                return;
        fail_ops(s, "the database is unusable until arbiterd is fixed and restarted");
}

/* The connection went bad under a query or a read: say what libpq saw. */
static void lose_conn_error(struct store *s, const char *what) {
        char msg[STORE_DETAIL_MAX];

        oneline(msg, sizeof msg, s->conn ? PQerrorMessage(s->conn) : "");
        lose(s, "%s: %s", what, msg[0] ? msg : "the connection broke");
}

/* Server notices go to our log instead of libpq's default, stderr.
 * "relation already exists, skipping" and the like are debug chatter; a
 * WARNING or an error the server sends while we are idle (for instance
 * "terminating connection due to administrator command") is worth a
 * warning. */
static void on_notice(void *userdata, const PGresult *res) {
        const char *severity = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
        char msg[STORE_DETAIL_MAX];
        int level = LOG_DEBUG;

        (void) userdata;
        if (severity && (strcmp(severity, "WARNING") == 0 || strcmp(severity, "ERROR") == 0 ||
                         strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0))
                level = LOG_WARNING;
        oneline(msg, sizeof msg, PQresultErrorMessage(res));
        log_full_errno(level, 0, "database server says: %s", msg);
}

static bool pipelined(const struct store *s) {
        return s->conn && PQpipelineStatus(s->conn) != PQ_PIPELINE_OFF;
}

/* Sends op and puts it last among the ops in flight.  A send that fails
 * leaves the op to finish_inflight/lose, so its callback still runs
 * exactly once; in pipeline mode any such failure ends the connection, so
 * that the ops sent before it still complete first, in order. */
static void send_op(struct store *s, struct op *op) {
        int ok, r;

        op->next = NULL;
        *s->inflight_tail = op;
        s->inflight_tail = &op->next;
        s->n_inflight++;
        if (op->simple)
                ok = PQsendQuery(s->conn, op->sql);
        else
                ok = PQsendQueryParams(s->conn, op->sql, op->n_params, NULL,
                                       (const char *const *) op->params, NULL, NULL, 0);
        /* The sync point after each query: its own implicit transaction,
         * committed (and answered) on its own. */
        if (ok && pipelined(s))
                ok = PQpipelineSync(s->conn);
        if (!ok) {
                char msg[STORE_DETAIL_MAX];

                if (PQstatus(s->conn) == CONNECTION_BAD || pipelined(s)) {
                        lose_conn_error(s, "sending a query failed");
                        return;
                }
                oneline(msg, sizeof msg, PQerrorMessage(s->conn));
                finish_inflight(s, msg);
                return;
        }

        /* In non-blocking mode the query may sit in libpq's buffer: until
         * PQflush() says 0, watch for writing too (libpq docs, "Asynchronous
         * Command Processing"). */
        r = PQflush(s->conn);
        if (r < 0) {
                lose_conn_error(s, "sending a query failed");
                return;
        }
        s->flushing = r > 0;
        if (watch_conn(s, EV_READ | (s->flushing ? EV_WRITE : 0), false) < 0)
                lose(s, "cannot watch the database socket: out of memory");
}

/* libpq parses NOTIFY messages while it reads for anything else, so this
 * runs after every read, whether or not a query was in flight. */
static void deliver_notifies(struct store *s) {
        PGnotify *n;

        while (s->conn && (n = PQnotifies(s->conn))) {
                /* A callback may add listeners (realloc): index, not pointer. */
                for (size_t i = 0; i < s->n_listeners && !s->closed; i++) {
                        if (strcmp(s->listeners[i].channel, n->relname) != 0)
                                continue;
                        s->busy++;
                        s->listeners[i].fn(s->listeners[i].userdata, n->relname, n->extra);
                        s->busy--;
                }
                PQfreemem(n);
                if (s->closed)
                        return;
        }
}

/* Collects the results of the op in flight as far as they have arrived.
 * A simple query with several statements yields one result per statement:
 * the op keeps the last good one and the first error, and completes at the
 * NULL that ends them. */
static void drain_results(struct store *s) {
        while (s->inflight && s->conn && !PQisBusy(s->conn)) {
                PGresult *res = PQgetResult(s->conn);

                if (!res) {
                        if (PQstatus(s->conn) == CONNECTION_BAD) {
                                lose_conn_error(s, "the database connection was lost");
                                return;
                        }
                        if (pipelined(s)) {
                                /* The head's results have ended; it is
                                 * durable only at its sync.  A NULL while
                                 * waiting for the sync: nothing more yet. */
                                if (s->head_synced)
                                        return;
                                s->head_synced = true;
                                continue;
                        }
                        finish_inflight(s, NULL);
                        if (s->closed)
                                return;
                        continue;
                }
                switch (PQresultStatus(res)) {
                case PGRES_PIPELINE_SYNC:
                        /* The head's sync point: its implicit transaction
                         * has committed (or was rolled back: then it kept
                         * its error). */
                        PQclear(res);
                        finish_inflight(s, NULL);
                        if (s->closed)
                                return;
                        continue;
                case PGRES_PIPELINE_ABORTED:
                        /* Skipped because an earlier query of its batch
                         * failed; with a sync after every query, not seen. */
                        if (!s->inflight_err)
                                s->inflight_err = res;
                        else
                                PQclear(res);
                        break;
                case PGRES_COMMAND_OK:
                case PGRES_TUPLES_OK:
                        PQclear(s->inflight_res);
                        s->inflight_res = res;
                        break;
                case PGRES_EMPTY_QUERY:
                case PGRES_FATAL_ERROR:
                case PGRES_NONFATAL_ERROR:
                case PGRES_BAD_RESPONSE:
                        if (!s->inflight_err)
                                s->inflight_err = res;
                        else
                                PQclear(res);
                        break;
                default: {
                        /* COPY results would leave libpq in a mode the
                         * store never drives: start afresh. */
                        ExecStatusType st = PQresultStatus(res);
                        PQclear(res);
                        lose(s, "the server answered with %s, which arbiterd does not use "
                             "(is there a COPY in a migration or query?)", PQresStatus(st));
                        return;
                }
                }
        }
}

/* Readiness of an established connection, in the order the libpq docs
 * give for non-blocking use: read what arrived (which may also unblock a
 * pending flush), flush again if we were flushing, then take every result
 * and notification libpq can hand over without blocking. */
static void io_ready(struct store *s, short what) {
        if (what & EV_READ) {
                if (!PQconsumeInput(s->conn)) {
                        lose_conn_error(s, "the database connection was lost");
                        return;
                }
        }
        if (s->flushing) {
                int r = PQflush(s->conn);
                if (r < 0) {
                        lose_conn_error(s, "sending a query failed");
                        return;
                }
                s->flushing = r > 0;
                if (watch_conn(s, EV_READ | (s->flushing ? EV_WRITE : 0), false) < 0) {
                        lose(s, "cannot watch the database socket: out of memory");
                        return;
                }
        }
        drain_results(s);
        if (s->closed || !s->conn)
                return;
        deliver_notifies(s);
}

/* libpq's own non-blocking send mode only makes sense once connected; the
 * session set-up begins here and must finish before any caller's query. */
static void connected(struct store *s) {
        event_del(s->timer);
        if (PQsetnonblocking(s->conn, 1) != 0) {
                lose_conn_error(s, "cannot switch the connection to non-blocking mode");
                return;
        }
        if (watch_conn(s, EV_READ, true) < 0) {
                lose(s, "cannot watch the database socket: out of memory");
                return;
        }
        set_state(s, STORE_MIGRATING, "connected to database %s on %s as %s (PostgreSQL %d.%d); %s",
                  PQdb(s->conn), PQhost(s->conn), PQuser(s->conn),
                  PQserverVersion(s->conn) / 10000, PQserverVersion(s->conn) % 10000,
                  s->cfg.migrations_dir ? "checking migrations" : "preparing the session");
        if (s->closed)
                return;
        s->step = STEP_TIMEOUT;
        step_send(s);
}

/* One PQconnectPoll step.  The socket may differ from the last one (see
 * watch_conn), so the watch is re-created every time. */
static void connect_poll(struct store *s) {
        switch (PQconnectPoll(s->conn)) {
        case PGRES_POLLING_READING:
                if (watch_conn(s, EV_READ, true) < 0)
                        lose(s, "cannot watch the database socket while connecting");
                return;
        case PGRES_POLLING_WRITING:
                if (watch_conn(s, EV_WRITE, true) < 0)
                        lose(s, "cannot watch the database socket while connecting");
                return;
        case PGRES_POLLING_OK:
                connected(s);
                return;
        default:
                lose_conn_error(s, "could not connect to the database");
                return;
        }
}

static void on_io(evutil_socket_t fd, short what, void *userdata) {
        struct store *s = userdata;

        (void) fd;
        if (!s->conn)
                return;
        if (s->state == STORE_CONNECTING)
                connect_poll(s);
        else
                io_ready(s, what);
}

/* The DSN is parsed before each attempt, without connecting, so that a
 * typo is a FAILED state with libpq's explanation rather than a retry loop.
 * Its connect_timeout, if any, becomes the attempt's deadline. */
static int parse_dsn(const char *dsn, unsigned *ret_timeout_s, char *err, size_t errlen) {
        unsigned timeout = STORE_CONNECT_TIMEOUT_DEFAULT_S;
        PQconninfoOption *opts;
        char *errmsg = NULL;

        opts = PQconninfoParse(dsn, &errmsg);
        if (!opts) {
                if (!errmsg)
                        return -ENOMEM;
                oneline(err, errlen, errmsg);
                PQfreemem(errmsg);
                return -EINVAL;
        }
        for (PQconninfoOption *o = opts; o->keyword; o++)
                if (strcmp(o->keyword, "connect_timeout") == 0 && o->val && atoi(o->val) > 0)
                        timeout = (unsigned) atoi(o->val);
        PQconninfoFree(opts);
        *ret_timeout_s = timeout;
        return 0;
}

/* The setting the DSN comes from, for messages. */
static const char *dsn_key(const struct store *s) {
        return s->cfg.dsn_key ? s->cfg.dsn_key : "database.dsn";
}

/* Starts an attempt.  expand_dbname lets the DSN be a full conninfo string
 * or URI; client_encoding is forced because everything the daemon sends
 * and receives (JSON, D-Bus strings) is UTF-8. */
static void start_connect(struct store *s) {
        static const char *const keywords[] = {
                "dbname", "fallback_application_name", "client_encoding", NULL,
        };
        const char *values[] = { s->cfg.dsn, "arbiterd", "UTF8", NULL };
        char err[STORE_DETAIL_MAX];
        unsigned timeout_s;
        struct timeval tv;
        int r;

        r = parse_dsn(s->cfg.dsn, &timeout_s, err, sizeof err);
        if (r == -ENOMEM) {
                lose(s, "cannot parse %s: out of memory", dsn_key(s));
                return;
        }
        if (r < 0) {
                fail(s, "%s is not a valid libpq connection string or URI: %s: fix it in "
                     "the configuration (or %s)", dsn_key(s), err, s->cfg.dsn_env ? s->cfg.dsn_env : "ARBITER_DSN");
                return;
        }
        s->conn = PQconnectStartParams(keywords, values, 1);
        if (!s->conn) {
                lose(s, "cannot start a database connection: out of memory");
                return;
        }
        if (PQstatus(s->conn) == CONNECTION_BAD) {
                lose_conn_error(s, "could not connect to the database");
                return;
        }
        PQsetNoticeReceiver(s->conn, on_notice, s);
        if (watch_conn(s, EV_WRITE, true) < 0) {
                lose(s, "cannot watch the database socket while connecting");
                return;
        }
        tv = usec_to_timeval((int64_t) timeout_s * USEC_PER_SEC);
        event_add(s->timer, &tv);
        set_state(s, STORE_CONNECTING, "connecting to database %s on %s",
                  PQdb(s->conn), PQhost(s->conn));
}

/* One timer, two meanings (see the invariants at the top): the back-off
 * wait in DISCONNECTED, the attempt's deadline in CONNECTING.  store_new
 * also fires it at once, to report a fatal set-up error from the loop. */
static void on_timer(evutil_socket_t fd, short what, void *userdata) {
        struct store *s = userdata;

        (void) fd;
        (void) what;
        if (s->fatal[0]) {
                fail(s, "%s", s->fatal);
                return;
        }
        if (s->state == STORE_DISCONNECTED)
                start_connect(s);
        else if (s->state == STORE_CONNECTING)
                lose(s, "no answer from the database on %s within the connect timeout (set "
                     "connect_timeout in %s to wait longer)", PQhost(s->conn), dsn_key(s));
}

/* PostgreSQL reports an error's position in characters (not bytes) from 1
 * of the query string; this turns it into a line of the migration file, or
 * 0 when it points past the file (into the schema_migrations INSERT). */
static unsigned line_of_position(const char *sql, const char *pos_field) {
        long pos = pos_field ? strtol(pos_field, NULL, 10) : 0;
        unsigned line = 1;
        long chars = 0;

        if (pos <= 0)
                return 0;
        for (const unsigned char *p = (const unsigned char *) sql; *p; p++) {
                if ((*p & 0xC0) != 0x80 && ++chars == pos)
                        return line;
                if (*p == '\n')
                        line++;
        }
        return 0;
}

static void step_advance(struct store *s);

static void become_ready(struct store *s) {
        int version = s->files.n ? s->files.items[s->files.n - 1].version : 0;

        s->backoff_usec = STORE_BACKOFF_INITIAL_USEC;
        s->backend_pid = PQbackendPID(s->conn);
        s->lock_refused_usec = 0;
        if (s->cfg.migrations_dir)
                set_state(s, STORE_READY, "connected to database %s on %s as %s (PostgreSQL %d.%d), "
                          "schema at version %04d",
                          PQdb(s->conn), PQhost(s->conn), PQuser(s->conn),
                          PQserverVersion(s->conn) / 10000, PQserverVersion(s->conn) % 10000, version);
        else
                set_state(s, STORE_READY, "connected to database %s on %s as %s (PostgreSQL %d.%d)",
                          PQdb(s->conn), PQhost(s->conn), PQuser(s->conn),
                          PQserverVersion(s->conn) / 10000, PQserverVersion(s->conn) % 10000);
}

/* The result of the daemon's lock (hold_sql): taken, and who holds it. */
static bool held(const PGresult *res) {
        return PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
}

static const char *holder(const PGresult *res) {
        return PQntuples(res) == 1 && !PQgetisnull(res, 0, 1) ? PQgetvalue(res, 0, 1) : "it holds the lock";
}

static int read_applied(struct store *s, const PGresult *res) {
        int n = PQntuples(res);

        migration_list_done(&s->applied);
        if (n == 0)
                return 0;
        s->applied.items = calloc((size_t) n, sizeof *s->applied.items);
        if (!s->applied.items)
                return -ENOMEM;
        for (int i = 0; i < n; i++) {
                struct migration *m = &s->applied.items[i];

                m->version = atoi(PQgetvalue(res, i, 0));
                m->name = strdup(PQgetvalue(res, i, 1));
                if (!m->name)
                        return -ENOMEM;
                snprintf(m->checksum, sizeof m->checksum, "%s", PQgetvalue(res, i, 2));
                s->applied.n++;
        }
        return 0;
}

/* Completion of every set-up step.  Only a migration's own SQL error or a
 * refused plan is final; a failing housekeeping statement (the lock wait
 * cut by statement_timeout, a permission being fixed) is retried. */
static void on_step_done(struct store *s, const PGresult *res, const PGresult *err_res,
                         const char *error) {
        char err[STORE_DETAIL_MAX];
        size_t first;
        int r;

        if (error && s->step == STEP_APPLY) {
                const struct migration *m = &s->files.items[s->next_migration];
                const char *state = err_res ? PQresultErrorField(err_res, PG_DIAG_SQLSTATE) : NULL;
                unsigned line = err_res ? line_of_position(m->sql,
                                PQresultErrorField(err_res, PG_DIAG_STATEMENT_POSITION)) : 0;
                char where[32] = "";

                if (line > 0)
                        snprintf(where, sizeof where, " at line %u", line);
                if (state && strcmp(state, "57014") == 0)
                        fail(s, "migration %s was cancelled by statement_timeout (%u ms) and rolled back; "
                             "raise database.statement_timeout and restart arbiterd",
                             m->name, s->cfg.statement_timeout_ms);
                else
                        fail(s, "migration %s failed%s and was rolled back; fix the file (it was never "
                             "applied, so it may still be edited) and restart arbiterd. The server said: %s",
                             m->name, where, error);
                return;
        }
        if (error) {
                lose(s, "%s failed: %s", step_what[s->step], error);
                return;
        }

        switch (s->step) {
        case STEP_APPLIED:
                r = read_applied(s, res);
                if (r < 0) {
                        lose(s, "reading schema_migrations failed: out of memory");
                        return;
                }
                r = migrate_plan(&s->files, &s->applied, &first, err, sizeof err);
                if (r < 0) {
                        fail(s, "%s", err);
                        return;
                }
                s->next_migration = first;
                if (first + 1 == s->files.n)
                        log_info("database: 1 migration to apply: %s", s->files.items[first].name);
                else if (first < s->files.n)
                        log_info("database: %zu migrations to apply, %s to %s",
                                 s->files.n - first, s->files.items[first].name,
                                 s->files.items[s->files.n - 1].name);
                break;
        case STEP_APPLY:
                log_notice("database: applied migration %s", s->files.items[s->next_migration].name);
                s->next_migration++;
                break;
        case STEP_HOLD:
                if (!held(res) && !s->backend_pid) {
                        int64_t now = now_usec();

                        if (!s->lock_refused_usec)
                                s->lock_refused_usec = now;
                        if (now - s->lock_refused_usec >= STORE_LOCK_GRACE_USEC) {
                                fail(s, "another arbiterd runs venue %s on this database (%s): one daemon per "
                                     "venue runs its matches; stop the other one, or give this one another "
                                     "venue ([venue] id)", s->cfg.venue, holder(res));
                                return;
                        }
                        lose(s, "another arbiterd holds venue %s's lock on this database (%s); trying again, "
                             "since a daemon that has just stopped releases it within moments",
                             s->cfg.venue, holder(res));
                        return;
                }
                if (!held(res)) {
                        lose(s, "another arbiterd took venue %s on this database while the connection was down "
                             "(%s); nothing is written to it until the lock is ours again", s->cfg.venue,
                             holder(res));
                        return;
                }
                break;
        case STEP_LISTEN:
                s->n_listened = s->n_listen_sent;
                break;
        default:
                break;
        }
        step_advance(s);
}

/* The set-up sequence:
 *
 *     TIMEOUT -> LOCK -> TABLE -> APPLIED -> APPLY... -> UNLOCK -> HOLD -> LISTEN -> READY
 *     TIMEOUT -> HOLD -> LISTEN -> READY                        (no migrations_dir)
 *
 * HOLD is skipped without hold_lock; refused, it is FAILED (store.h).
 *
 * The lock is a session lock, so a connection lost halfway releases it,
 * and a file that failed is rolled back with its row. */
static void step_advance(struct store *s) {
        switch (s->step) {
        case STEP_TIMEOUT:
                s->step = s->cfg.migrations_dir ? STEP_LOCK : STEP_HOLD;
                break;
        case STEP_LOCK:
                s->step = STEP_TABLE;
                break;
        case STEP_TABLE:
                s->step = STEP_APPLIED;
                break;
        case STEP_APPLIED:
        case STEP_APPLY:
                s->step = s->next_migration < s->files.n ? STEP_APPLY : STEP_UNLOCK;
                break;
        case STEP_UNLOCK:
                s->step = STEP_HOLD;
                break;
        case STEP_HOLD:
                s->step = STEP_LISTEN;
                break;
        case STEP_LISTEN:
                become_ready(s);
                return;
        }
        if (s->step == STEP_HOLD && !s->cfg.hold_lock) {
                step_advance(s);
                return;
        }
        step_send(s);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...) {
        va_list ap;
        char *p;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0 || !(p = malloc((size_t) n + 1)))
                return NULL;
        va_start(ap, fmt);
        vsnprintf(p, (size_t) n + 1, fmt, ap);
        va_end(ap);
        return p;
}

/* "LISTEN "a";LISTEN "b";..." for listeners [from, n).  Channels were
 * checked to be plain lowercase identifiers, so quoting cannot break. */
static char *listen_sql(const struct store *s, size_t from) {
        size_t len = 1;
        char *sql, *p;

        for (size_t i = from; i < s->n_listeners; i++)
                len += strlen(s->listeners[i].channel) + sizeof "LISTEN \"\";";
        sql = malloc(len);
        if (!sql)
                return NULL;
        p = sql;
        *p = '\0';
        for (size_t i = from; i < s->n_listeners; i++)
                p += sprintf(p, "LISTEN \"%s\";", s->listeners[i].channel);
        return sql;
}

/* The file, then its row, as one simple query: PostgreSQL runs a
 * multi-statement simple query as one implicit transaction, so a failure
 * anywhere rolls back the file and the row together.  The "\n;\n" ends a
 * last statement that lacks its semicolon or a trailing "--" comment. */
static char *migration_sql(struct store *s, const struct migration *m) {
        char *name, *checksum, *sql = NULL;

        name = PQescapeLiteral(s->conn, m->name, strlen(m->name));
        checksum = PQescapeLiteral(s->conn, m->checksum, strlen(m->checksum));
        if (name && checksum)
                sql = xasprintf("%s\n;\nINSERT INTO schema_migrations (version, name, checksum) "
                                "VALUES (%d, %s, %s)", m->sql, m->version, name, checksum);
        PQfreemem(name);
        PQfreemem(checksum);
        return sql;
}

/* The daemon's lock, and who holds it when it is taken: the venue's row
 * first (a venue's daemon may start before anyone told the database of
 * it), then the lock on (class, the venue's number), which pg_locks lists
 * as classid, objid, objsubid 2; the venue's name is set only once the
 * lock is ours.  Another role's session shows no address or name unless
 * ours may read all statistics: then the pid is what there is.  One simple
 * query: one implicit transaction, so the row's insert commits with the
 * rest. */
static char *hold_sql(struct store *s) {
        const char *venue = s->cfg.venue, *name = s->cfg.venue_name ? s->cfg.venue_name : s->cfg.venue;
        char *id = PQescapeLiteral(s->conn, venue, strlen(venue));
        char *nm = PQescapeLiteral(s->conn, name, strlen(name));
        char *sql = NULL;

        /* Our previous session may outlive a network cut on the server (until
         * its TCP keepalive gives up, hours by default) and keep the lock:
         * end it first, waiting up to a second, if it still holds the lock. */
        if (id && nm)
                sql = xasprintf("INSERT INTO venues (id, name) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING; "
                                "SELECT pg_terminate_backend(l.pid, 1000) FROM pg_locks l "
                                " WHERE l.pid = %d AND l.locktype = 'advisory' AND l.classid = %ld "
                                "   AND l.objid = (SELECT number FROM venues WHERE id = %s) AND l.objsubid = 2; "
                                "WITH v AS (SELECT number FROM venues WHERE id = %s), "
                                "     l AS MATERIALIZED (SELECT pg_try_advisory_lock(%ld, v.number) AS held, v.number "
                                "                          FROM v), "
                                "     n AS (UPDATE venues SET name = %s WHERE id = %s AND name <> %s "
                                "             AND (SELECT held FROM l)) "
                                "SELECT l.held, "
                                "(SELECT string_agg(format('%%s, server pid %%s%%s', "
                                "   coalesce(nullif(a.application_name, ''), 'a session'), k.pid, "
                                "   coalesce(' from ' || host(a.client_addr), coalesce(' on ' || a.client_hostname, ''))), "
                                "   '; ') "
                                " FROM pg_locks k LEFT JOIN pg_stat_activity a ON a.pid = k.pid "
                                " WHERE k.locktype = 'advisory' AND k.granted AND k.classid = %ld AND k.objid = l.number "
                                "   AND k.objsubid = 2 AND k.pid <> pg_backend_pid() "
                                "   AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())) "
                                "FROM l",
                                id, nm, s->backend_pid, (long) STORE_DAEMON_LOCK_CLASS, id, id,
                                (long) STORE_DAEMON_LOCK_CLASS, nm, id, nm, (long) STORE_DAEMON_LOCK_CLASS);
        PQfreemem(id);
        PQfreemem(nm);
        return sql;
}

/* Sends the statement of the current step.  All are simple queries: they
 * take no parameters, and a migration needs several statements in one. */
static void step_send(struct store *s) {
        char *sql = NULL;
        struct op *op;

        switch (s->step) {
        case STEP_TIMEOUT:
                s->timeout_dirty = false;
                sql = xasprintf("SET statement_timeout = %u", s->cfg.statement_timeout_ms);
                break;
        case STEP_LOCK:
                sql = xasprintf("SELECT pg_advisory_lock(%lld)", (long long) STORE_MIGRATION_LOCK_KEY);
                break;
        case STEP_TABLE:
                sql = strdup("CREATE TABLE IF NOT EXISTS schema_migrations ("
                             "version int PRIMARY KEY, "
                             "name text NOT NULL, "
                             "checksum text NOT NULL, "
                             "applied_at timestamptz NOT NULL DEFAULT now())");
                break;
        case STEP_APPLIED:
                sql = strdup("SELECT version, name, checksum FROM schema_migrations ORDER BY version");
                break;
        case STEP_APPLY:
                sql = migration_sql(s, &s->files.items[s->next_migration]);
                break;
        case STEP_UNLOCK:
                sql = xasprintf("SELECT pg_advisory_unlock(%lld)", (long long) STORE_MIGRATION_LOCK_KEY);
                break;
        case STEP_HOLD:
                sql = hold_sql(s);
                break;
        case STEP_LISTEN:
                if (s->n_listeners == 0) {
                        s->n_listened = 0;
                        become_ready(s);
                        return;
                }
                s->n_listen_sent = s->n_listeners;
                sql = listen_sql(s, 0);
                break;
        }
        op = op_new_internal(sql, on_step_done);
        if (!op) {
                lose(s, "%s failed: out of memory", step_what[s->step]);
                return;
        }
        send_op(s, op);
}

static void on_timeout_set(struct store *s, const PGresult *res, const PGresult *err_res,
                           const char *error) {
        (void) s;
        (void) res;
        (void) err_res;
        if (error)
                log_warning("database: changing statement_timeout failed: %s", error);
}

static void on_listened(struct store *s, const PGresult *res, const PGresult *err_res,
                        const char *error) {
        (void) res;
        (void) err_res;
        if (error)
                log_warning("database: LISTEN failed: %s; notifications on the new channels "
                            "will be missed until the next reconnect", error);
        s->n_listened = s->n_listen_sent;
}

/* Takes the first caller's op off the queue. */
static struct op *dequeue(struct store *s) {
        struct op *op = s->queue_head;

        s->queue_head = op->next;
        if (!s->queue_head)
                s->queue_tail = &s->queue_head;
        s->n_queued--;
        op->next = NULL;
        return op;
}

/* Runs once per loop turn, before the loop sleeps: when READY, send what
 * is due, session changes (statement_timeout, new LISTENs) before the
 * callers' queries.  A session change waits until nothing is in flight and
 * is sent alone, outside pipeline mode (PQsendQuery is refused inside it);
 * callers' queries go one at a time, or, with cfg.pipeline, in pipeline
 * mode up to STORE_PIPELINE_MAX in flight. */
static void on_before_sleep(void *userdata) {
        struct store *s = userdata;
        struct op *op = NULL;

        if (s->closed || s->state != STORE_READY || !s->conn)
                return;
        if (s->timeout_dirty || s->n_listened < s->n_listeners) {
                if (s->inflight)
                        return;
                if (pipelined(s) && !PQexitPipelineMode(s->conn)) {
                        lose_conn_error(s, "leaving pipeline mode failed");
                        return;
                }
                if (s->timeout_dirty) {
                        op = op_new_internal(xasprintf("SET statement_timeout = %u", s->cfg.statement_timeout_ms),
                                             on_timeout_set);
                        s->timeout_dirty = !op;
                } else {
                        s->n_listen_sent = s->n_listeners;
                        op = op_new_internal(listen_sql(s, s->n_listened), on_listened);
                }
                if (!op) {
                        log_warning("database: out of memory preparing a session statement; trying again next turn");
                        return;
                }
                send_op(s, op);
                return;
        }
        if (!s->queue_head)
                return;
        if (!s->cfg.pipeline) {
                if (!s->inflight)
                        send_op(s, dequeue(s));
                return;
        }
        if (!pipelined(s)) {
                if (s->inflight)
                        return;         /* an internal op, alone */
                if (!PQenterPipelineMode(s->conn)) {
                        lose_conn_error(s, "entering pipeline mode failed");
                        return;
                }
        }
        while (s->queue_head && s->n_inflight < STORE_PIPELINE_MAX) {
                send_op(s, dequeue(s));
                if (s->closed || !s->conn || s->state != STORE_READY)
                        return;
        }
}

int store_new(struct loop *loop, const struct store_config *cfg,
              store_state_fn state_fn, void *userdata, struct store **ret) {
        struct store *s;
        int r;

        if (!loop || !cfg || !ret)
                return -EINVAL;
        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->loop = loop;
        s->base = loop_base(loop);
        s->state_fn = state_fn;
        s->userdata = userdata;
        s->hook_id = -1;
        s->io_fd = -1;
        s->queue_tail = &s->queue_head;
        s->inflight_tail = &s->inflight;
        s->backoff_usec = STORE_BACKOFF_INITIAL_USEC;
        s->state = STORE_DISCONNECTED;
        snprintf(s->detail, sizeof s->detail, "not connected yet");

        s->cfg = *cfg;
        if (s->cfg.reconnect_max_s == 0)
                s->cfg.reconnect_max_s = 1;
        s->cfg.dsn = strdup(cfg->dsn ? cfg->dsn : "");
        s->cfg.migrations_dir = cfg->migrations_dir ? strdup(cfg->migrations_dir) : NULL;
        s->cfg.venue = strdup(cfg->venue ? cfg->venue : STORE_VENUE_DEFAULT);
        s->cfg.venue_name = cfg->venue_name ? strdup(cfg->venue_name) : NULL;
        if (!s->cfg.dsn || (cfg->migrations_dir && !s->cfg.migrations_dir) || !s->cfg.venue ||
            (cfg->venue_name && !s->cfg.venue_name)) {
                r = -ENOMEM;
                goto error;
        }

        s->timer = evtimer_new(s->base, on_timer, s);
        if (!s->timer) {
                r = -ENOMEM;
                goto error;
        }
        r = loop_add_before_sleep(loop, on_before_sleep, s);
        if (r < 0)
                goto error;
        s->hook_id = r;

        /* The migration set is part of the build: read once, so a package
         * upgrade under a running daemon cannot feed it files its code does
         * not know.  A bad set is reported as FAILED on the first turn. */
        if (s->cfg.migrations_dir) {
                r = migrate_scan_dir(s->cfg.migrations_dir, &s->files, s->fatal, sizeof s->fatal);
                if (r == -ENOMEM)
                        goto error;
                if (r < 0 && !s->fatal[0])
                        snprintf(s->fatal, sizeof s->fatal, "cannot read the migrations in %s: %s",
                                 s->cfg.migrations_dir, strerror(-r));
        }

        /* Connect on the first loop turn, so that state_fn runs from the
         * loop and after the caller has *ret. */
        event_add(s->timer, &(struct timeval) { 0, 0 });
        *ret = s;
        return 0;

error:
        if (s->hook_id >= 0)
                loop_remove_before_sleep(loop, s->hook_id);
        store_destroy(s);
        return r;
}

static void store_destroy(void *p) {
        struct store *s = p;

        if (s->timer)
                event_free(s->timer);
        for (size_t i = 0; i < s->n_listeners; i++)
                free(s->listeners[i].channel);
        free(s->listeners);
        migration_list_done(&s->files);
        migration_list_done(&s->applied);
        free((char *) s->cfg.dsn);
        free((char *) s->cfg.migrations_dir);
        free((char *) s->cfg.venue);
        free((char *) s->cfg.venue_name);
        free(s);
}

/* Closes at once, so that no callback can run after store_free returns
 * except those it calls itself (queued and in-flight queries, with an
 * error); only the struct's memory may outlive it, when a callback of ours
 * is still on the stack. */
void store_free(struct store *s) {
        if (!s || s->closed)
                return;
        s->closed = true;
        close_conn(s);
        event_del(s->timer);
        if (s->hook_id >= 0)
                loop_remove_before_sleep(s->loop, s->hook_id);
        s->hook_id = -1;
        s->busy++;
        fail_ops(s, "the database connection was closed (arbiterd is shutting down) before the "
                    "query completed");
        s->busy--;
        if (s->busy > 0 && loop_defer_free(s->loop, store_destroy, s) >= 0)
                return;
        if (s->busy > 0)
                return;         /* leaked rather than freed under a caller's feet */
        store_destroy(s);
}

enum store_state store_get_state(const struct store *s) {
        return s->state;
}

const char *store_get_detail(const struct store *s) {
        return s->detail;
}

const char *store_get_venue(const struct store *s) {
        return s->cfg.venue;
}

void store_set_statement_timeout(struct store *s, unsigned ms) {
        s->cfg.statement_timeout_ms = ms;
        s->timeout_dirty = true;
}

int store_query(struct store *s, const char *sql, int n_params, const char *const *params,
                store_result_fn fn, void *userdata) {
        struct op *op;

        if (!s || !sql || !fn || n_params < 0 || (n_params > 0 && !params))
                return -EINVAL;
        if (s->closed || s->state != STORE_READY)
                return -ENOTCONN;

        op = calloc(1, sizeof *op);
        if (!op)
                return -ENOMEM;
        op->sql = strdup(sql);
        if (!op->sql)
                goto oom;
        if (n_params > 0) {
                op->params = calloc((size_t) n_params, sizeof *op->params);
                if (!op->params)
                        goto oom;
                op->n_params = n_params;
                for (int i = 0; i < n_params; i++)
                        if (params[i] && !(op->params[i] = strdup(params[i])))
                                goto oom;
        }
        op->fn = fn;
        op->userdata = userdata;
        *s->queue_tail = op;
        s->queue_tail = &op->next;
        s->n_queued++;
        return 0;

oom:
        op_free(op);
        return -ENOMEM;
}

static bool channel_is_plain(const char *c) {
        size_t n = c ? strlen(c) : 0;

        if (n == 0 || n > STORE_CHANNEL_MAX || (c[0] >= '0' && c[0] <= '9'))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '0' && c[i] <= '9') || c[i] == '_'))
                        return false;
        return true;
}

int store_listen(struct store *s, const char *channel, store_notify_fn fn, void *userdata) {
        struct listener *l;
        char *copy;

        if (!s || !fn || !channel_is_plain(channel))
                return -EINVAL;
        if (s->closed)
                return -ENOTCONN;
        copy = strdup(channel);
        if (!copy)
                return -ENOMEM;
        l = realloc(s->listeners, (s->n_listeners + 1) * sizeof *l);
        if (!l) {
                free(copy);
                return -ENOMEM;
        }
        s->listeners = l;
        s->listeners[s->n_listeners++] = (struct listener) { copy, fn, userdata };
        return 0;
}

/* SQLSTATE classes and codes (PostgreSQL, Appendix A). */
static enum store_failure failure_of(const char *sqlstate) {
        if (!sqlstate)
                return STORE_FAILURE_UNAVAILABLE;
        if (strcmp(sqlstate, "23505") == 0 || strcmp(sqlstate, "23P01") == 0)
                return STORE_FAILURE_CONFLICT;          /* unique, exclusion */
        if (strcmp(sqlstate, "23503") == 0 || strcmp(sqlstate, "23514") == 0 || strcmp(sqlstate, "23502") == 0 ||
            strncmp(sqlstate, "22", 2) == 0)
                return STORE_FAILURE_INVALID;           /* foreign key, check, not null, data */
        if (strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "40P01") == 0 || strcmp(sqlstate, "57014") == 0 ||
            strcmp(sqlstate, "55P03") == 0 || strncmp(sqlstate, "08", 2) == 0 || strcmp(sqlstate, "57P01") == 0)
                return STORE_FAILURE_UNAVAILABLE;       /* retry: serialization, deadlock, timeout, lock, gone */
        return STORE_FAILURE_INTERNAL;
}

bool store_error(const struct store *s, struct store_error *ret) {
        const PGresult *e = s->callback_err;

        memset(ret, 0, sizeof *ret);
        if (!s->callback_failed)
                return false;
        if (e) {
                ret->sqlstate = PQresultErrorField(e, PG_DIAG_SQLSTATE);
                ret->constraint = PQresultErrorField(e, PG_DIAG_CONSTRAINT_NAME);
        }
        ret->failure = failure_of(ret->sqlstate);
        return true;
}

const char *store_failure_to_string(enum store_failure f) {
        switch (f) {
        case STORE_FAILURE_UNAVAILABLE: return "unavailable";
        case STORE_FAILURE_CONFLICT:    return "conflict";
        case STORE_FAILURE_INVALID:     return "invalid";
        case STORE_FAILURE_INTERNAL:    return "internal";
        }
        return "internal";
}

unsigned store_pending(const struct store *s) {
        unsigned n = s->n_queued;

        for (const struct op *op = s->inflight; op; op = op->next)
                n += op->fn != NULL;
        return n;
}
