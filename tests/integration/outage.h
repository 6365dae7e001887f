/* tests/integration/outage.h — a PostgreSQL cluster of a test's own, which
 * the test stops and starts, a daemon on it with a spool of its own, and a
 * Crash Pilot match played by a referee's calls: the stage of the outage,
 * spool and fault tests.
 *
 * Everything lives under ARBITER_TEST_TMP/<name>; outage_done() (also fit
 * for a teardown after a failed test) kills the daemon and stops the
 * cluster by their pids.
 */
#ifndef ARBITER_TESTS_OUTAGE_H
#define ARBITER_TESTS_OUTAGE_H

#include <stdbool.h>
#include <sys/types.h>
#include <jansson.h>

#include "tests/integration/harness.h"

#define OUTAGE_MAX_ENV 8

struct outage {
        char *dir;                      /* ARBITER_TEST_TMP/<name> */
        char *pg_dir;
        char *dsn;
        char *spool;                    /* dir/spool */
        char *admin, *referee;          /* tokens of its database */
        struct daemon_proc d;
        bool running;
        char *env[OUTAGE_MAX_ENV + 1];  /* "NAME=value", owned; NULL-terminated */
        size_t n_env;
};

/* Makes the directory, initialises and starts the cluster, creates the
 * tokens.  Fails the test on error. */
void outage_init(struct outage *o, const char *name);
/* tools/pgcluster start or stop (fast shutdown: sessions are cut). */
void outage_pg(struct outage *o, const char *what);
/* Adds an environment variable for the daemons started after. */
void outage_env(struct outage *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts the daemon on the cluster with the spool and the extra env. */
void outage_start(struct outage *o, bool wait_ready);
/* SIGKILL, and waits. */
void outage_kill(struct outage *o);
/* Kills the daemon if it runs, stops the cluster, frees; safe twice. */
void outage_done(struct outage *o);

/* A table of three seats and a Crash Pilot match at it (seed given, no
 * reveal pause), started: its id. */
json_int_t outage_match(struct outage *o, int seed);
/* Seat 1's view of the live match, served also while the database is down. */
json_t *outage_view(struct outage *o, json_int_t id);
/* The body of a correct call from seat for the next window after
 * *window (waits for it; updates *window). */
char *outage_call_body(struct outage *o, json_int_t id, int seat, json_int_t *window);
/* POSTs body to the match's inputs: the reply in *ret. */
void outage_post_input(struct outage *o, json_int_t id, const char *body, struct http_reply *ret);
/* The stored log (a new reference), checked for seq 1..n without a gap. */
json_t *outage_log(struct outage *o, json_int_t id);

/* One value from the cluster (psql -tA); fails the test if psql does. */
long long outage_sql_number(struct outage *o, const char *sql);
/* Waits until sql counts at least one row; fails the test with what after
 * HARNESS_WAIT_MS. */
void outage_wait_sql(struct outage *o, const char *sql, const char *what);
/* A session of the test's, application name "locker", that runs sql (which
 * takes a lock and sleeps) until outage_release(); returns once check
 * counts a row (the lock is held).  Its pid. */
pid_t outage_hold(struct outage *o, const char *sql, const char *check);
/* Ends a session of outage_hold (SIGTERM, reaped) and sets *pid to -1;
 * nothing when *pid <= 0. */
void outage_release(pid_t *pid);

#endif
