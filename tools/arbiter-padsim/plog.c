/* tools/arbiter-padsim/plog.c — see plog.h. */
#include "tools/arbiter-padsim/plog.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "common/time.h"

/* Records a slow reader has not taken yet.  Beyond this the reader is not
 * reading at all, and records are dropped rather than memory exhausted. */
#define RECORD_BACKLOG_MAX      (8 * 1024 * 1024)
/* How long the last records may take to drain at exit. */
#define RECORD_DRAIN_MS         1000

static int max_level = PLOG_INFO;
static int64_t origin_us;
static bool events_enabled;

static struct evbuffer *records;        /* not yet written to stdout */
static struct event *stdout_ev;         /* EV_WRITE on stdout, when it can be polled */
static bool stdout_broken;
static uint64_t records_dropped;

void plog_setup(int level, int64_t start_us, bool events) {
        max_level = level;
        origin_us = start_us;
        events_enabled = events;
}

bool plog_enabled(int level) {
        return level <= max_level;
}

void plog(int level, const char *fmt, ...) {
        int64_t t = now_usec() - origin_us;
        char msg[1024];
        va_list ap;

        if (level > max_level)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        fprintf(stderr, "[%lld.%03lld] %s\n", (long long) (t / USEC_PER_SEC),
                (long long) (t % USEC_PER_SEC / USEC_PER_MSEC), msg);
}

/* Writes what stdout takes without blocking.  stdout stays a blocking fd
 * (its file description may be a shell's); a pipe that polls writable has
 * room for at least PIPE_BUF bytes, so writes of at most that never block. */
static void records_flush(void) {
        struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

        while (evbuffer_get_length(records) > 0 && !stdout_broken) {
                if (stdout_ev && (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT)))
                        break;
                if (evbuffer_write_atmost(records, STDOUT_FILENO, PIPE_BUF) < 0 && errno != EINTR)
                        stdout_broken = true;           /* the reader is gone: nobody to tell */
        }
        if (stdout_broken)
                evbuffer_drain(records, evbuffer_get_length(records));
        if (stdout_ev && evbuffer_get_length(records) > 0)
                event_add(stdout_ev, NULL);
        else if (stdout_ev)
                event_del(stdout_ev);
}

static void stdout_cb(evutil_socket_t fd, short what, void *userdata) {
        (void) fd;
        (void) what;
        (void) userdata;
        records_flush();
}

/* Records go through a buffer drained as stdout becomes writable, so a test
 * that reads the PTY line and then ignores stdout stalls nothing.  A regular
 * file or /dev/null cannot be polled and never blocks: written at once. */
int plog_attach(struct event_base *base) {
        struct stat st;

        records = evbuffer_new();
        if (!records)
                return -ENOMEM;
        if (fstat(STDOUT_FILENO, &st) < 0 || !plog_pollable(STDOUT_FILENO, &st))
                return 0;
        stdout_ev = event_new(base, STDOUT_FILENO, EV_WRITE, stdout_cb, NULL);
        return stdout_ev ? 0 : -ENOMEM;
}

/* epoll refuses regular files and most character devices (/dev/null), and
 * libevent complains on stderr when asked; pipes, sockets and terminals are
 * what a reader or a writer at the other end makes stdin and stdout. */
bool plog_pollable(int fd, const struct stat *st) {
        return S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) || (S_ISCHR(st->st_mode) && isatty(fd));
}

void plog_detach(void) {
        int64_t deadline = now_usec() + RECORD_DRAIN_MS * USEC_PER_MSEC;
        struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

        if (!records)
                return;
        while (evbuffer_get_length(records) > 0 && !stdout_broken && now_usec() < deadline) {
                if (poll(&pfd, 1, (int) ((deadline - now_usec()) / USEC_PER_MSEC) + 1) == 1)
                        records_flush();
        }
        if (records_dropped || evbuffer_get_length(records) > 0)
                plog(PLOG_WARN, "stdout was not being read: %llu records dropped, %zu bytes never written",
                     (unsigned long long) records_dropped, evbuffer_get_length(records));
        if (stdout_ev)
                event_free(stdout_ev);
        stdout_ev = NULL;
        evbuffer_free(records);
        records = NULL;
}

void plog_record(bool is_event, const char *fmt, ...) {
        va_list ap;

        if (is_event && !events_enabled)
                return;
        if (!records) {
                va_start(ap, fmt);
                vfprintf(stdout, fmt, ap);
                va_end(ap);
                fputc('\n', stdout);
                fflush(stdout);
                return;
        }
        if (evbuffer_get_length(records) > RECORD_BACKLOG_MAX) {
                records_dropped++;
                return;
        }
        va_start(ap, fmt);
        evbuffer_add_vprintf(records, fmt, ap);
        va_end(ap);
        evbuffer_add(records, "\n", 1);
        records_flush();
}
