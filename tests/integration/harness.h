/* tests/integration/harness.h — drive the real arbiterd from cmocka tests.
 *
 * tests/run.sh starts a PostgreSQL cluster and a session dbus-daemon and
 * exports where they are (ARBITER_TEST_DSN, ARBITER_TEST_PGDIR,
 * DBUS_SESSION_BUS_ADDRESS, ARBITER_TEST_DAEMON, ARBITER_TEST_TMP,
 * ARBITER_TEST_ROOT).  The harness starts daemons as child processes on a
 * free port with a NOTIFY_SOCKET it binds itself, talks HTTP with libcurl,
 * and stops every daemon it started — by pid, at teardown and, should a test
 * abort, from an atexit handler.
 */
#ifndef ARBITER_TESTS_HARNESS_H
#define ARBITER_TESTS_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <sys/types.h>
#include <cmocka.h>
#include <jansson.h>

/* How long the harness waits for something that should take milliseconds
 * before calling it hung.  Generous: sanitizer builds are slow.  These are
 * hang guards, not timing assertions. */
#define HARNESS_WAIT_MS 30000

struct daemon_proc {
        pid_t pid;
        int port;
        int notify_fd;
        char notify_path[256];
        char log_path[256];
        char url[64];                   /* "http://127.0.0.1:PORT" */
        char notified[4096];            /* every notify message received, '\n'-separated */
};

/* Environment the suite runs in; aborts the test program with a clear
 * message when tests/run.sh did not set it up. */
const char *harness_env(const char *name);

/* Starts arbiterd with the suite's database and bus plus extra_env
 * ("NAME=value" strings, NULL-terminated; may be NULL) and extra args.
 * When wait_ready, waits for READY=1 and fails the test otherwise. */
void daemon_start(struct daemon_proc *d, const char *const *extra_env, const char *const *args,
                  bool wait_ready);
/* A cmocka teardown: kills (SIGKILL) every daemon a failed test left running. */
int harness_kill_daemons(void **state);
/* Starts arbiterd under systemd-socket-activate listening on d->url: the
 * daemon is exec'd (same pid) on the first connection and must serve HTTP
 * on the socket it inherits. */
void daemon_start_socket_activated(struct daemon_proc *d, const char *const *extra_env);
/* Sends sig and waits for exit; returns the exit status (or 128+signal),
 * and the time it took in µs. */
int daemon_stop(struct daemon_proc *d, int sig, int64_t *ret_elapsed_usec);
/* Waits until the daemon exits on its own; returns its exit status. */
int daemon_wait_exit(struct daemon_proc *d);
/* Waits for a notify message containing needle (e.g. "READY=1"). */
bool daemon_wait_notify(struct daemon_proc *d, const char *needle, int timeout_ms);
/* Contents of the daemon's stderr so far (malloc'd). */
char *daemon_log(const struct daemon_proc *d);
bool daemon_log_contains(const struct daemon_proc *d, const char *needle);
/* Waits for the log to contain needle. */
bool daemon_wait_log(const struct daemon_proc *d, const char *needle, int timeout_ms);

struct http_reply {
        long status;
        char *body;
        json_t *json;                   /* parsed body, NULL if not JSON */
        char content_type[128];
        char allow[128];
        char read_from[128];            /* Arbiter-Read-From (api/read_store.c), or "" */
};

/* One HTTP request with libcurl.  token and content_type may be NULL.
 * Bodies go without "Expect: 100-continue" unless harness_expect_continue
 * is set (a test of an early refusal sets it, so that curl waits for the
 * answer instead of racing the server's close with its upload). */
extern bool harness_expect_continue;
void http_request(const char *method, const char *url, const char *token, const char *content_type,
                  const char *body, size_t body_len, struct http_reply *ret);
void http_get(const struct daemon_proc *d, const char *path, const char *token, struct http_reply *ret);
void http_post_json(const struct daemon_proc *d, const char *path, const char *token, const char *json,
                    struct http_reply *ret);
void http_reply_done(struct http_reply *r);

/* Runs a shell command; returns its exit status. Output goes to the test log. */
int run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs a shell command and returns its stdout (malloc'd), status in *ret_status. */
char *run_capture(int *ret_status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* `busctl --user monitor` on the suite's bus, writing the signals of
 * INTERFACE to FILE (busctl's text format: "Member=Name" lines), started in
 * the background; returns its pid once it listens — until FILE shows it, a
 * signal "Probe" of INTERFACE on /org/arbiter/test/probe is emitted every
 * 50 ms — or fails the test.  Stop it with kill(pid, SIGTERM). */
pid_t harness_dbus_monitor(const char *interface, const char *file);

/* `arbiterd --create-token ROLE NAME` against the suite's database; returns
 * the token (malloc'd) or fails the test. */
char *create_token(const char *role, const char *name);

/* Polls GET /v1/health until json "database.state" equals state. */
bool wait_database_state(const struct daemon_proc *d, const char *state, int timeout_ms);

/* Polls GET /v1/health until "tokens.loaded" is true (the cache loads just
 * after the database becomes ready). */
bool wait_tokens_loaded(const struct daemon_proc *d, int timeout_ms);

/* arbiter-padsim as a child: its stdin is a pipe for script lines, its
 * stderr goes to log_path, and the pty it made is read from its stdout. */
struct padsim_proc {
        pid_t pid;
        int script_fd;                  /* write JSON lines here */
        char pty[128];
        char log_path[256];
};

/* Starts build/arbiter-padsim with args (NULL-terminated) plus
 * "--script -"; waits for its "PTY <path>" line. */
void padsim_start(struct padsim_proc *p, const char *const *args);
/* Sends one script line (a newline is added). */
void padsim_send(struct padsim_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Stops it (SIGTERM, then waits); safe to call twice. */
void padsim_stop(struct padsim_proc *p);
bool padsim_log_contains(const struct padsim_proc *p, const char *needle);
/* A cmocka teardown that stops every padsim still running. */
int harness_kill_padsims(void **state);

/* docs/dbus.md is the D-Bus reference: the members its "### IFACE" table
 * lists are exactly the live members of IFACE at path, with the same kind
 * and signature. */
void assert_dbus_doc_matches(const char *path, const char *iface);

/* A unique name for this process ("t<pid>_<n>"), for databases and tokens. */
const char *unique_name(const char *prefix);

/* A fresh database in the suite's cluster; returns its DSN (malloc'd). */
char *create_database(const char *name);

#endif
