/* tests/integration/avrpad_proc.h — the emulated pad (tests/avr/avrpad: the
 * real firmware, $ARBITER_TEST_BUILD/firmware/pad.elf, on simavr, its UART
 * on a pty) as a child of a test.
 *
 * Started with its arguments (the firmware's path is added last); its
 * stdout is read by a thread of the test, all the time, into one buffer (so
 * that the emulator never blocks on a full pipe, whatever the test is
 * doing) and copied into a file under $ARBITER_TEST_TMP that a failure
 * names; its stderr goes to another.  A test sends command lines and waits
 * for an output line containing a needle: on the pipe (a condition the
 * reader signals), never a sleep.  Each pad is stopped by its pid (quit,
 * then SIGKILL after a while), and a cmocka teardown or, should the test
 * program abort, an atexit handler kills every one still running.
 *
 * Offsets ("marks") are byte offsets into everything the pad printed, so a
 * test waits for what comes after a command: take a mark, send, wait from
 * the mark. */
#ifndef ARBITER_TESTS_AVRPAD_PROC_H
#define ARBITER_TESTS_AVRPAD_PROC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct avrpad_proc {
        pid_t pid;
        int in_fd;                      /* its stdin: commands */
        int out_fd;                     /* its stdout, read by the thread */
        char pty[128];                  /* the line, from its "PTY" line */
        char log_path[256];             /* its stderr */
        char out_path[256];             /* a copy of its stdout */

        pthread_t reader;
        bool reading;
        pthread_mutex_t lock;
        pthread_cond_t grew;
        char *out;                      /* everything it printed, NUL-terminated */
        size_t len, cap;
        bool eof;
};

/* Starts $ARBITER_TEST_BUILD/tests/avr/avrpad with args (NULL-terminated)
 * and the firmware; waits for its "PTY <path>" line and fails the test
 * when it does not come. */
void avrpad_start(struct avrpad_proc *p, const char *const *args);
/* Sends one command line (a newline is added). */
void avrpad_send(struct avrpad_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The end of what it printed so far: a mark to wait from. */
size_t avrpad_mark(struct avrpad_proc *p);
/* The first complete line at or after *from that contains needle, copied
 * into line (size bytes; may be NULL); *from moves past it.  Waits up to
 * timeout_ms; false when no such line came (or the pad exited). */
bool avrpad_wait(struct avrpad_proc *p, size_t *from, const char *needle, int timeout_ms, char *line,
                 size_t size);
/* The same for the first line that contains any of needles
 * (NULL-terminated): the index of the needle it contains (the first that
 * it does), -1 when none came within timeout_ms. */
int avrpad_wait_any(struct avrpad_proc *p, size_t *from, const char *const *needles, int timeout_ms, char *line,
                    size_t size);
/* avrpad_wait with HARNESS_WAIT_MS that fails the test, naming the pad's
 * output file, when the line does not come. */
void avrpad_expect(struct avrpad_proc *p, size_t *from, const char *needle, char *line, size_t size);
/* How many complete lines at or after from contain needle (no waiting). */
unsigned avrpad_count(struct avrpad_proc *p, size_t from, const char *needle);

/* The number after "key " in line (e.g. "host_us"); fails the test when
 * there is none. */
int64_t avrpad_field(const char *line, const char *key);
/* The emulated µs at the start of an output line ("[1500000.1] ..."). */
double avrpad_emu_us(const char *line);

/* Stops it: quit, then SIGKILL when it has not exited within a few
 * seconds; reaps it and its reader.  Returns its exit status (128 + signal
 * when killed), -1 when it was not running.  Safe to call twice. */
int avrpad_stop(struct avrpad_proc *p);
/* A cmocka teardown that kills (SIGKILL) every avrpad still running. */
int harness_kill_avrpads(void **state);

#endif
