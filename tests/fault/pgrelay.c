/* tests/fault/pgrelay.c — a venue's link to the league's PostgreSQL, which a
 * test can cut and restore: a relay of Unix-socket connections.
 *
 *   pgrelay RELAY_DIR SERVER_DIR
 *
 * Listens as RELAY_DIR/.s.PGSQL.5432 (so "host=RELAY_DIR" in a DSN reaches
 * it) and forwards every connection it accepts, byte for byte both ways, to
 * a new connection to SERVER_DIR/.s.PGSQL.5432 (the primary's socket
 * directory, tools/pgcluster's DIR/run).  The server sees the relay's own
 * credentials (SO_PEERCRED), so peer authentication works through it as it
 * would for whoever runs the relay.
 *
 * Commands, one per line on stdin; each is acknowledged by one line on
 * stdout once done, which is what a test waits for (never a time):
 *   (at start)  LISTENING RELAY_DIR/.s.PGSQL.5432
 *   cut         closes every relayed connection (both ends, at once, as a
 *               link that goes down) and from then on refuses new ones:
 *               each is accepted and closed before a byte is read, so a
 *               client learns at once that the server is unreachable
 *               ("server closed the connection unexpectedly"):  CUT n
 *               (n: the connections it closed)
 *   restore     relays new connections again:  RESTORED
 *   count       CONNECTIONS n (relayed connections open now) ACCEPTED n
 *               (relayed since start) REFUSED n (refused while cut)
 *   quit, EOF   removes the socket and exits 0
 * A wrong command is answered "ERROR unknown command: ..." and ignored.
 * SIGTERM and SIGINT also remove the socket and exit 0; a failure at start
 * exits 1 with a message on stderr.
 *
 * One thread, poll(), non-blocking sockets, a buffer each way per
 * connection; a side that ends its writing (EOF) has what it sent
 * delivered, then the other side's writing is shut down; the pair is
 * closed when both have ended or either fails.  Built by the Makefile as
 * $(BUILD)/tests/pgrelay; libc only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SOCKET_NAME     ".s.PGSQL.5432"
#define MAX_PAIRS       256             /* a few daemons' connections, with room */
#define BUF_SIZE        65536           /* per direction */
#define BACKLOG         64
#define LINE_MAX_LEN    256

/* One direction of a relayed connection: bytes read from `from`, not yet
 * written to `to`. */
struct pipe_dir {
        char buf[BUF_SIZE];
        size_t len;
        bool eof;                       /* `from` ended its writing */
        bool shut;                      /* `to`'s writing shut down after eof */
};

struct pair {
        int fd[2];                      /* 0: the client's side, 1: the server's */
        struct pipe_dir dir[2];         /* dir[i]: from fd[i] to fd[1 - i] */
        bool used;
};

static struct pair pairs[MAX_PAIRS];
static char listen_path[sizeof ((struct sockaddr_un *) 0)->sun_path];
static char server_path[sizeof ((struct sockaddr_un *) 0)->sun_path];
static volatile sig_atomic_t stop;
static bool cut;
static unsigned long accepted, refused;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static void set_nonblock(int fd) {
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static bool fill_path(char *dst, size_t size, const char *dir) {
        int n = snprintf(dst, size, "%s/%s", dir, SOCKET_NAME);
        return n > 0 && (size_t) n < size;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        fflush(stdout);
}

static void close_pair(struct pair *p) {
        close(p->fd[0]);
        close(p->fd[1]);
        p->used = false;
}

static unsigned open_pairs(void) {
        unsigned n = 0;

        for (size_t i = 0; i < MAX_PAIRS; i++)
                n += pairs[i].used;
        return n;
}

static unsigned cut_all(void) {
        unsigned n = 0;

        for (size_t i = 0; i < MAX_PAIRS; i++)
                if (pairs[i].used) {
                        /* An abortive close: no FIN handshake for a link
                         * that is gone (on a Unix socket the peer reads
                         * EOF or ECONNRESET alike). */
                        close_pair(&pairs[i]);
                        n++;
                }
        return n;
}

static int connect_server(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -1;
        memcpy(sa.sun_path, server_path, strlen(server_path) + 1);
        /* A local socket connects at once or not at all: blocking is fine
         * here, and keeps the relay from reading a client before its
         * server is there. */
        if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                close(fd);
                return -1;
        }
        set_nonblock(fd);
        return fd;
}

static void on_accept(int lfd) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

        if (c < 0)
                return;
        if (cut) {
                refused++;
                close(c);
                return;
        }
        struct pair *p = NULL;
        for (size_t i = 0; i < MAX_PAIRS && !p; i++)
                if (!pairs[i].used)
                        p = &pairs[i];
        int s = p ? connect_server() : -1;
        if (s < 0) {
                fprintf(stderr, "pgrelay: %s: %s\n", p ? server_path : "too many connections",
                        p ? strerror(errno) : "closing the new one");
                close(c);
                return;
        }
        memset(p, 0, sizeof *p);
        p->fd[0] = c;
        p->fd[1] = s;
        p->used = true;
        accepted++;
}

/* Moves what can move in direction i of p; false when the pair is done. */
static bool pump(struct pair *p, int i, short rev_from, short rev_to) {
        struct pipe_dir *d = &p->dir[i];
        int from = p->fd[i], to = p->fd[1 - i];

        if ((rev_from & (POLLIN | POLLHUP)) && !d->eof && d->len < BUF_SIZE) {
                ssize_t n = read(from, d->buf + d->len, BUF_SIZE - d->len);
                if (n > 0)
                        d->len += (size_t) n;
                else if (n == 0)
                        d->eof = true;
                else if (errno != EAGAIN && errno != EINTR)
                        return false;
        }
        if (rev_from & POLLERR)
                return false;
        if (d->len > 0 && (rev_to & POLLOUT)) {
                ssize_t n = write(to, d->buf, d->len);
                if (n > 0) {
                        memmove(d->buf, d->buf + n, d->len - (size_t) n);
                        d->len -= (size_t) n;
                } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                        return false;
                }
        }
        if (d->eof && d->len == 0 && !d->shut) {
                shutdown(to, SHUT_WR);
                d->shut = true;
        }
        return !(p->dir[0].shut && p->dir[1].shut);
}

/* A side that hung up altogether (POLLHUP: both directions shut, which
 * stays set and would wake poll() for ever) once what it sent is
 * delivered: nothing more can go either way through it. */
static bool gone(const struct pair *p, int i, short rev) {
        return (rev & POLLHUP) && p->dir[i].eof && p->dir[i].len == 0;
}

/* One command line; false on quit. */
static bool command(const char *line) {
        if (strcmp(line, "cut") == 0) {
                cut = true;
                say("CUT %u", cut_all());
        } else if (strcmp(line, "restore") == 0) {
                cut = false;
                say("RESTORED");
        } else if (strcmp(line, "count") == 0) {
                say("CONNECTIONS %u ACCEPTED %lu REFUSED %lu", open_pairs(), accepted, refused);
        } else if (strcmp(line, "quit") == 0) {
                return false;
        } else if (*line) {
                say("ERROR unknown command: %s", line);
        }
        return true;
}

/* Reads what stdin has; runs each complete line.  False on quit or EOF. */
static bool on_stdin(void) {
        static char line[LINE_MAX_LEN];
        static size_t len;
        char buf[LINE_MAX_LEN];
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);

        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                return false;
        for (ssize_t k = 0; k < n; k++) {
                if (buf[k] == '\n') {
                        line[len] = '\0';
                        len = 0;
                        if (!command(line))
                                return false;
                } else if (len + 1 < sizeof line) {
                        line[len++] = buf[k];
                }
        }
        return true;
}

static int listen_on(const char *relay_dir) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (!fill_path(listen_path, sizeof listen_path, relay_dir)) {
                fprintf(stderr, "pgrelay: %s/%s is too long for a Unix socket\n", relay_dir, SOCKET_NAME);
                return -1;
        }
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -1;
        memcpy(sa.sun_path, listen_path, strlen(listen_path) + 1);
        unlink(listen_path);
        if (bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0 || listen(fd, BACKLOG) < 0) {
                fprintf(stderr, "pgrelay: cannot listen on %s: %s\n", listen_path, strerror(errno));
                close(fd);
                listen_path[0] = '\0';
                return -1;
        }
        return fd;
}

int main(int argc, char **argv) {
        static struct pollfd fds[2 + 2 * MAX_PAIRS];
        static size_t slot[2 + 2 * MAX_PAIRS];
        struct sigaction sa = { .sa_handler = on_signal };
        int lfd;

        if (argc != 3) {
                fprintf(stderr, "usage: pgrelay RELAY_DIR SERVER_DIR\n");
                return 64;
        }
        if (!fill_path(server_path, sizeof server_path, argv[2])) {
                fprintf(stderr, "pgrelay: %s/%s is too long for a Unix socket\n", argv[2], SOCKET_NAME);
                return 1;
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        lfd = listen_on(argv[1]);
        if (lfd < 0)
                return 1;
        set_nonblock(STDIN_FILENO);
        say("LISTENING %s", listen_path);

        while (!stop) {
                size_t n = 0;

                fds[n++] = (struct pollfd) { .fd = STDIN_FILENO, .events = POLLIN };
                fds[n++] = (struct pollfd) { .fd = lfd, .events = POLLIN };
                for (size_t i = 0; i < MAX_PAIRS; i++) {
                        struct pair *p = &pairs[i];
                        if (!p->used)
                                continue;
                        for (int k = 0; k < 2; k++) {
                                short ev = 0;
                                if (!p->dir[k].eof && p->dir[k].len < BUF_SIZE)
                                        ev |= POLLIN;
                                if (p->dir[1 - k].len > 0)
                                        ev |= POLLOUT;
                                slot[n] = i;
                                fds[n++] = (struct pollfd) { .fd = p->fd[k], .events = ev };
                        }
                }
                if (poll(fds, n, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        perror("pgrelay: poll");
                        break;
                }
                if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) && !on_stdin())
                        break;
                for (size_t k = 2; k < n; k += 2) {
                        struct pair *p = &pairs[slot[k]];
                        if (!p->used)
                                continue;       /* cut by the command above */
                        short r0 = fds[k].revents, r1 = fds[k + 1].revents;
                        if (!pump(p, 0, r0, r1) || !pump(p, 1, r1, r0) || gone(p, 0, r0) || gone(p, 1, r1))
                                close_pair(p);
                }
                if (fds[1].revents & POLLIN)
                        on_accept(lfd);
        }
        cut_all();
        close(lfd);
        unlink(listen_path);
        return 0;
}
