/* tests/integration/league.h — the stage of the league tests (issue 17;
 * test_league.c, test_failover.c): several venues' daemons on one
 * PostgreSQL primary of the test's own, with a streaming replica.
 *
 *   primary     tools/pgcluster DIR/primary (Unix socket only; as the
 *               postgres user when the tests run as root)
 *   replica     tools/pgcluster DIR/replica replica DIR/primary: a hot
 *               standby streaming from the primary (application_name
 *               "replica"); with opt.synchronous, the primary's
 *               synchronous_standby_names names it, so that a commit the
 *               primary acknowledged is on the replica too
 *   venues      north, south, east (the first n): each its own arbiterd of
 *               the test build (the test game reflex among the games) with
 *               its own port, spool and [venue] id; D-Bus on the suite's
 *               session bus for the first, ARBITER_BUS=none for the others;
 *               with opt.pads, an arbiter-padsim of LEAGUE_PADS pads on a pty
 *               of its own as its [pads] ports; with opt.relays, its DSN
 *               through a relay of its own (tests/fault/pgrelay.c) in front
 *               of the primary's socket: the venue's link, which the test
 *               cuts and restores; with opt.replica_reads, the replica as
 *               its [database] replica_dsn; with opt.failover_dsn, a DSN
 *               that lists the primary's and the replica's socket
 *               directories with target_session_attrs=read-write
 *               (docs/operations.md), so that it follows a promotion.
 *
 * Tokens (admin, referee, display) are made on the primary before any
 * daemon starts, so that every daemon's first load has them.
 *
 * Ownership and faults: league_init() fills a struct league; league_done()
 * (also fit for a cmocka teardown after a failed test, and safe twice)
 * stops the daemons, padsims and relays by their pids, then the clusters.
 * Should the test program exit without it (an abort), an atexit handler
 * kills the daemons, padsims and relays (harness.h, pgrelay_proc.h) and
 * sends each cluster's postmaster (its pid from postmaster.pid) an
 * immediate shutdown.  Every wait is for a state the daemons or the
 * servers show, with HARNESS_WAIT_MS as a hang guard, never a time. */
#ifndef ARBITER_TESTS_LEAGUE_H
#define ARBITER_TESTS_LEAGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "tests/integration/harness.h"
#include "tests/integration/pgrelay_proc.h"

#define LEAGUE_MAX_VENUES       3
/* Pads per venue with opt.pads: one two-seat table's. */
#define LEAGUE_PADS             2
#define LEAGUE_MAX_ENV          12

struct league_options {
        unsigned venues;                /* 1..LEAGUE_MAX_VENUES */
        bool replica;                   /* a streaming replica */
        bool synchronous;               /* ... which the primary waits for */
        bool relays;                    /* each venue's link through a relay */
        bool pads;                      /* arbiter-padsim per venue */
        bool replica_reads;             /* [database] replica_dsn = the replica */
        bool failover_dsn;              /* dsn = primary,replica, read-write */
};

struct league_venue {
        const char *id;                 /* "north", "south", "east" */
        struct league *league;
        struct daemon_proc d;
        bool running;
        struct pgrelay_proc relay;
        struct padsim_proc sim;
        char *dsn;                      /* what the daemon connects to */
        char *spool, *link, *config_path;
        char pad_ids[LEAGUE_PADS][17];  /* as /v1/pads names them */
        char *env[LEAGUE_MAX_ENV + 1];  /* "NAME=value", owned; NULL-terminated */
        size_t n_env;
};

struct league {
        struct league_options opt;
        char *dir;                      /* ARBITER_TEST_TMP/<name> */
        char *primary_dir, *replica_dir;
        char *dsn;                      /* the primary's, direct */
        char *replica_dsn;              /* NULL without a replica */
        char *admin, *referee, *display;
        unsigned n;
        struct league_venue v[LEAGUE_MAX_VENUES];
};

/* Sets the stage up (above) and starts every venue's daemon, waiting for
 * each to be READY with its tokens loaded (and, with pads, every pad
 * connected).  Fails the test on error. */
void league_init(struct league *l, const char *name, const struct league_options *opt);
/* Stops everything (above); safe twice, and on a league never set up. */
void league_done(struct league *l);

/* Starts venue i's daemon again (the same DSN, spool, pads and port
 * settings; a new HTTP port) and waits until it is READY. */
void league_start(struct league *l, unsigned i);
/* SIGTERM and its exit status. */
int league_stop(struct league *l, unsigned i);
/* SIGKILL, reaped. */
void league_kill(struct league *l, unsigned i);

/* tools/pgcluster DIR what for the primary or the replica ("start",
 * "stop", "promote"); fails the test when it fails. */
void league_pg(struct league *l, bool replica, const char *what);
/* An immediate shutdown of the primary (its postmaster gets SIGQUIT, and is
 * waited for): a server that fails, not one that stops. */
void league_crash_primary(struct league *l);

/* One number from dsn (psql -tA), e.g. the primary's l->dsn; fails the
 * test when psql does. */
long long league_sql(const char *dsn, const char *sql);
/* Waits until sql on dsn counts at least one row (a true or a positive
 * number); fails the test, saying what, after HARNESS_WAIT_MS. */
void league_wait_sql(const char *dsn, const char *sql, const char *what);

/* One request to venue i: the reply (status, body, JSON) and, when
 * read_from is not NULL, its Arbiter-Read-From header ("" when none). */
void league_request(struct league *l, unsigned i, const char *method, const char *path, const char *token,
                    const char *body, struct http_reply *ret, char *read_from, size_t read_from_size);
/* The same, failing the test unless the status is status; the JSON reply
 * (a new reference; NULL when the body is not JSON). */
json_t *league_call(struct league *l, unsigned i, const char *method, const char *path, const char *token,
                    const char *body, long status);

/* Venue i's /v1/health database.state is state (waits for it). */
void league_wait_database(struct league *l, unsigned i, const char *state);
/* Waits until every one of venue i's pads is connected. */
void league_wait_pads(struct league *l, unsigned i);

/* A table of venue i (made through venue `at`'s daemon, with "venue") of
 * seats seats, its seats the venue's pads when with_pads (seats <=
 * LEAGUE_PADS); its id. */
json_int_t league_table(struct league *l, unsigned at, unsigned i, unsigned seats, bool with_pads);

#endif
