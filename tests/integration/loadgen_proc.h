/* tests/integration/loadgen_proc.h — the load generator (tests/load/loadgen.c)
 * as a child of a test: started with its arguments, driven by its stdin
 * commands, its one-line answers read back, and stopped by pid — also from
 * an atexit handler should the test abort. */
#ifndef ARBITER_TESTS_LOADGEN_PROC_H
#define ARBITER_TESTS_LOADGEN_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct loadgen_proc {
        pid_t pid;
        int in_fd;                      /* its stdin */
        int out_fd;                     /* its stdout */
        char buf[4096];
        size_t len;
        char log_path[256];             /* its stderr */
};

/* Counters of a STATUS, READY or OPENED line. */
struct loadgen_status {
        unsigned streams, refused, retry_after, failed, ended, slow, slow_closed, ok;
};

/* Starts $ARBITER_TEST_BUILD/tests/load/loadgen --port port with args
 * (NULL-terminated) and waits for its READY line (within timeout_ms,
 * generous: thousands of connections under a sanitizer); fails the test
 * otherwise.  ret_ready may be NULL. */
void loadgen_start(struct loadgen_proc *l, int port, const char *const *args, int timeout_ms,
                   struct loadgen_status *ret_ready);
/* Sends a command line and returns its answer's counters; the answer must
 * start with expect ("STATUS", "CLOSED", "OPENED").  Fails the test when it
 * does not come within timeout_ms. */
void loadgen_ask(struct loadgen_proc *l, const char *command, const char *expect, int timeout_ms,
                 struct loadgen_status *ret);
/* Sends quit and waits for it to exit (SIGKILL after a while).  Safe to
 * call twice. */
void loadgen_stop(struct loadgen_proc *l);

#endif
