/* tests/integration/pgrelay_proc.h — a venue's link to the league's
 * PostgreSQL (tests/fault/pgrelay.c, $ARBITER_TEST_BUILD/tests/pgrelay) as
 * a child of a test: a Unix-socket relay listening in a directory of its
 * own in front of a cluster's socket directory, which the test cuts and
 * restores.  Each command waits for the relay's acknowledgement line, not
 * for a time; a relay is stopped by its pid, and a cmocka teardown or,
 * should the test program abort, an atexit handler kills every one still
 * running. */
#ifndef ARBITER_TESTS_PGRELAY_PROC_H
#define ARBITER_TESTS_PGRELAY_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pgrelay_proc {
        pid_t pid;
        int in_fd;                      /* its stdin: commands */
        int out_fd;                     /* its stdout: one line per command */
        char buf[512];
        size_t len;
        char dir[256];                  /* where it listens: "host=<dir>" reaches it */
        char log_path[256];             /* its stderr */
};

/* Counters of a COUNT answer. */
struct pgrelay_count {
        unsigned connections;           /* relayed connections open now */
        unsigned long accepted;         /* relayed since start */
        unsigned long refused;          /* refused while cut */
};

/* Makes dir (mode 0700) and starts a relay listening there in front of
 * server_dir (a cluster's socket directory, tools/pgcluster's DIR/run);
 * returns once it listens, or fails the test. */
void pgrelay_start(struct pgrelay_proc *r, const char *dir, const char *server_dir);
/* Cuts the link: every relayed connection closed, new ones refused.  The
 * number of connections it closed. */
unsigned pgrelay_cut(struct pgrelay_proc *r);
/* Relays new connections again. */
void pgrelay_restore(struct pgrelay_proc *r);
/* What it counts now. */
struct pgrelay_count pgrelay_count(struct pgrelay_proc *r);
/* The DSN of the cluster's database through the relay: dsn (a
 * tools/pgcluster DSN, "host=<run> dbname=… user=…") with its host
 * replaced by the relay's directory (malloc'd). */
char *pgrelay_dsn(const struct pgrelay_proc *r, const char *dsn);
/* Quits it (SIGKILL after a while) and reaps it; safe to call twice. */
void pgrelay_stop(struct pgrelay_proc *r);
/* A cmocka teardown that kills every relay still running. */
int harness_kill_pgrelays(void **state);

#endif
