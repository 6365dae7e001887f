/* store/store.h — arbiterd's PostgreSQL connection (docs/architecture.md,
 * "The event loop" and "Persistence").
 *
 * One asynchronous libpq connection driven by the daemon's loop:
 * PQconnectStartParams/PQconnectPoll to connect, non-blocking
 * PQsendQueryParams/PQflush/PQconsumeInput/PQisBusy/PQgetResult to query.
 * Every session sets statement_timeout (libpq 15 has no non-blocking cancel).
 *
 * States:
 *
 *     DISCONNECTED --connect--> CONNECTING --ok--> MIGRATING --ok--> READY
 *          ^                        |                  |               |
 *          +------ back-off <-------+------------------+---------------+
 *                                  (failure / connection lost)
 *     MIGRATING --fatal (changed or unknown migration)--> FAILED (stays)
 *
 * The daemon's lock.  With hold_lock, every (re)connect takes a session
 * advisory lock after the migrations and before READY, so that only one
 * daemon at a time runs a venue's matches on a database (cfg.venue; the
 * daemons of other venues run beside it); the connection keeps it until it
 * ends, and a reconnect takes it again before any query of the caller's
 * (the spool's flush among them) is sent.  The lock's key is the venue's
 * number (venues.number, migrations/0010_venues.sql): the venue's row is
 * inserted first if it is not there (INSERT ... ON CONFLICT DO NOTHING),
 * and its name set to cfg.venue_name once the lock is held, so that only
 * the venue's own daemon renames it.  Held by another
 * session at the first connect (and still after 5 s of retrying: a daemon
 * that has just stopped needs a moment to let go), it is FAILED, with a
 * detail line naming the venue and the holder (its application name,
 * server pid and address, when the server shows them).  After a reconnect
 * it is retried instead (DISCONNECTED, with the holder named): our own
 * previous session may still hold it on the server after a network cut,
 * so the attempt first ends that session (the pid of the last READY
 * session, if it holds the lock).
 *
 * FAILED is for what no retry cures: a refused migration plan, an SQL error
 * inside a migration (the file is rolled back), an invalid DSN, an
 * unreadable migrations directory.  Everything else (refused connections,
 * a lost server, the migration lock wait cut by statement_timeout) retries.
 * statement_timeout applies to the migration run too.
 *
 * Back-off doubles from 250 ms up to reconnect_max_s (2 s by default, so
 * that a database that is back is used within 3 s), reset by a success.
 * On every (re)connect the migration runner (store/migrate.h) applies what is
 * pending before any application query is sent, then LISTENs again on the
 * channels registered with store_listen().
 *
 * Reporting a state change is state_fn's owner's job (the store logs them
 * only at debug level); the store logs each applied migration at notice.
 *
 * libpq resolves a host name with a blocking getaddrinfo() inside
 * PQconnectPoll (libpq docs): for a remote server give hostaddr= or a Unix
 * socket directory so that the loop never waits on DNS.
 *
 * Queries are queued in order and sent one at a time.  store_query() refuses
 * with -ENOTCONN unless the state is READY; a query in flight when the
 * connection is lost completes with an error.  Every callback is called
 * exactly once, from the loop (never from inside store_query()).
 *
 * Pipeline mode (cfg.pipeline; the match runtime's input lane).  Once
 * READY, the connection enters libpq's pipeline mode and queued queries
 * are sent without waiting for the ones before them, up to 32 in flight
 * (more wait in the queue): queries queued within the same loop turns
 * share round trips.  Each is sent with a sync point of its own
 * (PQsendQueryParams then PQpipelineSync), so each is its own implicit
 * transaction: one that fails rolls back itself alone, and the ones after
 * it run and commit as if it had succeeded.  Callbacks still come in the
 * order queued, each only when its own sync's answer has arrived, i.e.
 * once its transaction has committed (synchronous_commit as the server
 * has it: on, by default, so durable).  A lost connection fails every
 * query in flight, then every queued one, each exactly once, in order;
 * the server may have committed some of those in flight before it went
 * (the same as for the one query in flight without pipeline mode), so a
 * caller retries only idempotent writes.  Queries are not ordered after
 * one another's outcome: a caller that must not send B unless A succeeded
 * (one match's inputs: match/match.h, "Write, then publish") queues B only
 * from A's callback.  Session changes (statement_timeout, LISTEN) wait
 * until nothing is in flight, leave pipeline mode for their simple query,
 * and the next queries enter it again.
 * store_free() may be called from inside any of the store's callbacks.
 *
 * Ownership: the PGresult passed to a callback is freed by the store after
 * the callback returns; copy what you keep.
 */
#ifndef ARBITER_STORE_STORE_H
#define ARBITER_STORE_STORE_H

#include <stdbool.h>
#include <libpq-fe.h>

struct loop;
struct store;

enum store_state {
        STORE_DISCONNECTED,
        STORE_CONNECTING,
        STORE_MIGRATING,
        STORE_READY,
        STORE_FAILED,
};

struct store_config {
        const char *dsn;                  /* libpq conninfo string or URI */
        unsigned statement_timeout_ms;
        unsigned reconnect_max_s;
        const char *migrations_dir;       /* NULL: run no migrations */
        bool hold_lock;                   /* take the daemon's lock on every connect */
        const char *venue;                /* whose lock (venues.id); NULL: "main" */
        const char *venue_name;           /* set once the lock is held; NULL: the venue's id */
        bool pipeline;                    /* pipeline mode once READY (see above) */
        /* Where the DSN comes from, for the messages about it: the key and
         * its environment variable; NULL: "database.dsn", "ARBITER_DSN".
         * Not copied: literals. */
        const char *dsn_key, *dsn_env;
};

/* res is NULL when the query failed (error says why, in words a person can
 * act on); otherwise its status is PGRES_COMMAND_OK or PGRES_TUPLES_OK.
 * error is NULL on success. */
typedef void (*store_result_fn)(void *userdata, const PGresult *res, const char *error);
typedef void (*store_state_fn)(void *userdata, enum store_state state, const char *detail);
typedef void (*store_notify_fn)(void *userdata, const char *channel, const char *payload);

/* Copies cfg, reads the migrations directory (once: the set belongs to the
 * build) and starts connecting on the first loop turn.  state_fn is called,
 * from the loop, on every state change and whenever the detail changes
 * (each retry has its own), with a detail line ("connected to …",
 * "connection refused: …; retrying in 2 s", "migration 0002_x.sql was
 * changed after it was applied …"). */
int store_new(struct loop *loop, const struct store_config *cfg,
              store_state_fn state_fn, void *userdata, struct store **ret);
void store_free(struct store *s);         /* accepts NULL; in-flight callbacks get an error */

enum store_state store_get_state(const struct store *s);
const char *store_state_to_string(enum store_state state);
/* The last detail line (for /v1/health and STATUS=). */
const char *store_get_detail(const struct store *s);
/* cfg.venue as given ("main" when it was NULL). */
const char *store_get_venue(const struct store *s);

/* The venue of a database that has never been told of venues: every row
 * made before migrations/0010_venues.sql is at it. */
#define STORE_VENUE_DEFAULT "main"
/* The daemon's lock is pg_try_advisory_lock(STORE_VENUE_LOCK_CLASS, the
 * venue's number): "arbd" as a big-endian int32 (positive, as int4 needs).
 * pg_locks lists it as classid = class, objid = number, objsubid = 2
 * (store/venues.h reads it there). */
#define STORE_VENUE_LOCK_CLASS 1634886244

/* Changes the statement timeout for new sessions and the current one. */
void store_set_statement_timeout(struct store *s, unsigned ms);

/* Queues a parameterised query (text parameters, text results).
 * Returns 0, -ENOTCONN (not READY), or -ENOMEM. */
int store_query(struct store *s, const char *sql, int n_params, const char *const *params,
                store_result_fn fn, void *userdata);

/* LISTENs on channel now (if READY) and after every reconnect; fn gets each
 * NOTIFY.  channel must be a plain identifier: lowercase letters, digits
 * and '_', not starting with a digit, at most 63 bytes (else -EINVAL). */
int store_listen(struct store *s, const char *channel, store_notify_fn fn, void *userdata);

/* Why a query failed, for the repositories of store/ (so that no caller
 * classifies an error by searching its text): inside a failed query's
 * callback (res NULL), store_error() fills *ret with the server's SQLSTATE
 * and constraint name (both NULL when no server answered: the connection
 * was lost, the store closed) and their class, and returns true; anywhere
 * else it returns false.  The strings live as long as the callback. */
enum store_failure {
        STORE_FAILURE_UNAVAILABLE,      /* no answer, or one worth retrying: 08xxx, 40001, 40P01, 57014, 55P03 */
        STORE_FAILURE_CONFLICT,         /* 23505 unique, 23P01 exclusion: constraint names which */
        STORE_FAILURE_INVALID,          /* 23503 foreign key, 23514 check, 23502 not null, 22xxx data */
        STORE_FAILURE_INTERNAL,         /* anything else: a bug of ours */
};

struct store_error {
        enum store_failure failure;
        const char *sqlstate;           /* "23505", or NULL */
        const char *constraint;         /* "players_name_key", or NULL */
};

bool store_error(const struct store *s, struct store_error *ret);
const char *store_failure_to_string(enum store_failure f);

/* Queries queued or in flight (graceful shutdown waits for 0). */
unsigned store_pending(const struct store *s);

#endif
