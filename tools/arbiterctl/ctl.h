/* tools/arbiterctl/ctl.h — what every part of arbiterctl shares: the exit
 * statuses, the connection settings of one run (struct ctl) and the one way
 * to report an error.
 *
 * Exit statuses.  They are the tool's interface to scripts: stable, and
 * documented in docs/man/arbiterctl.1 ("EXIT STATUS").  A command returns
 * one of them (not -errno: what it returns is what the process exits with);
 * the helpers below it return 0 or -errno as everywhere else in arbiter.
 *
 *   0  done
 *   1  any other error: a request the server refused (400, 413, 415, 5xx),
 *      a reply that is not what arbiterctl expected, out of memory; for
 *      verify, a check that failed or could not be made
 *   2  usage: an unknown noun, verb or option, a missing or malformed
 *      argument, an unreadable --token-file or --data file, a bad --url
 *   3  not found: the server answered 404
 *   4  conflict: the server answered 409
 *   5  auth: the server answered 401 (no token, an unknown or revoked one)
 *      or 403 (a token whose role is too low)
 *   6  connection: nothing answers at the URL, the name does not resolve,
 *      the connection broke or a request timed out
 *
 * Ownership: struct ctl lives in main() for the whole run; token points
 * into argv, the environment or a buffer main() owns (tokfile_buf).
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_CTL_H
#define ARBITER_TOOLS_ARBITERCTL_CTL_H

#include <stdbool.h>
#include <stdio.h>

enum ctl_exit {
        CTL_EXIT_OK = 0,
        CTL_EXIT_ERROR = 1,
        CTL_EXIT_USAGE = 2,
        CTL_EXIT_NOT_FOUND = 3,
        CTL_EXIT_CONFLICT = 4,
        CTL_EXIT_AUTH = 5,
        CTL_EXIT_CONNECTION = 6,
};

#define CTL_PROGRAM "arbiterctl"
/* The address `make run` and the default configuration listen on
 * (docs/arbiterd.conf.example, [http] listen). */
#define CTL_DEFAULT_URL "http://127.0.0.1:8080"
/* A request that has not been answered after this long has hung: the
 * daemon answers every request within its database statement_timeout
 * (docs/arbiterd.conf.example, [database], 5 s by default) or with a 503.
 * --timeout changes it. */
#define CTL_DEFAULT_TIMEOUT_S 30
/* Connecting takes a round trip on a LAN; this long means nobody is there. */
#define CTL_CONNECT_TIMEOUT_MS 5000
/* Longest --url accepted (the paths arbiterctl adds come on top). */
#define CTL_URL_MAX 1024

struct ctl {
        char url[CTL_URL_MAX];          /* without a trailing '/' */
        const char *token;              /* NULL: send no Authorization header */
        bool json;                      /* --json: machine output */
        long timeout_s;                 /* per request; watch's stream has none */
        char *tokfile_buf;              /* the --token-file's contents, owned */
};

/* Prints "arbiterctl: <message>" and a newline on stderr; returns status,
 * so that a command can `return ctl_fail(CTL_EXIT_USAGE, "…")`. */
int ctl_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
