/* daemon/fdlimit.h — the open-file limit arbiterd runs with.
 *
 * Every HTTP connection is a file descriptor, and [http] max_connections
 * (4096 by default) is far above the soft limit most systems start a
 * process with (1024).  At start arbiterd raises its soft RLIMIT_NOFILE to
 * the hard one — the soft limit is the process's own to raise, the hard
 * one is the administrator's (the unit's LimitNOFILE=) — logs what it has,
 * and warns when that is below what the configuration needs.  A limit too
 * low is not fatal: accept() then fails for the connections over it, and
 * libmicrohttpd logs that.
 */
#ifndef ARBITER_DAEMON_FDLIMIT_H
#define ARBITER_DAEMON_FDLIMIT_H

/* Descriptors besides HTTP connections: stdio, the listening socket, the
 * epoll sets of libevent and libmicrohttpd, signal and timer descriptors,
 * D-Bus, PostgreSQL, the journal, the spool and the serial ports — about
 * twenty in all, with room to spare. */
#define FDLIMIT_DAEMON_FDS 64

/* Raises the soft limit to the hard one and logs the outcome against
 * need (max_connections + FDLIMIT_DAEMON_FDS).  Returns the soft limit now
 * in force. */
unsigned long fdlimit_raise(unsigned long need);

#endif
