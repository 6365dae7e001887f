/* tests/load/loadgen.c — the load a venue network can bring, for the chaos
 * test (tests/integration/test_load.c), `make bench` and `make soak`
 * (tests/bench/load.sh): thousands of Server-Sent Events streams spread over
 * many source addresses, and slow clients that send a request one header
 * line at a time.  One thread, epoll, non-blocking sockets, a few hundred
 * bytes per connection, so 2,000 streams cost the test nothing.
 *
 *   loadgen --port PORT [--target ADDR]
 *           [--streams N --stream-from A-B [--stream-path PATH] [--opening N]]
 *           [--slow N --slow-from A-B [--slow-interval MS] [--slow-reconnect MS]]
 *
 * A-B is a range of IPv4 source addresses ("127.0.1.1-127.0.1.40"); streams
 * go round-robin over it, and each address of --slow-from holds N slow
 * connections.  Every connection binds its source address, so the server
 * sees as many clients as the ranges have addresses (all of 127.0.0.0/8 is
 * the loopback on Linux).
 *
 * A stream is "GET PATH" with Accept: text/event-stream; it counts as open
 * on "HTTP/1.1 200", refused on 503 (and whether it carried Retry-After);
 * it is then read and discarded.  The server ending an open stream is
 * counted (ended).  A slow connection sends "GET /v1/health HTTP/1.1" and
 * then one header line every --slow-interval, never the blank line; when
 * the server closes it, it is counted and replaced after --slow-reconnect
 * (a slow client that means it comes back).  At most --opening streams
 * (OPENING_DEFAULT) are being opened at a time, so that a burst does not
 * overflow the server's listen backlog (dropped SYNs are resent only after
 * a second); --opening 1 opens them one after the other.
 *
 * Commands, one per line on stdin; answers, one line each on stdout:
 *   (at start)  READY streams=N refused=N failed=N slow=N
 *               once every stream asked for has been answered and every
 *               slow connection has connected
 *   status      STATUS streams=N refused=N retry_after=N failed=N ended=N
 *                      slow=N slow_closed=N opening=N
 *               (opening: streams sent and not answered yet)
 *   close N     closes N open streams (the client hangs up): CLOSED N
 *   open N [M]  opens N more streams, M at a time (default: --opening);
 *               once all are answered: OPENED ok=N refused=N failed=N
 *   quit, EOF   exits 0
 * A wrong command line exits 64, a failure at start 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 64
/* Streams being connected or waiting for their status line at once: a
 * fraction of the server's listen backlog (api/server.c, 1024). */
#define OPENING_DEFAULT 64
/* What is kept of a reply until its header ends: the status line and
 * Retry-After come first, and a problem's headers are a few hundred bytes. */
#define HEAD_MAX 1024
/* Reads of an open stream are thrown away through this buffer. */
#define DISCARD_SIZE 65536
#define EVENTS_MAX 256
#define LINE_MAX_LEN 256
#define SLOW_INTERVAL_MS_DEFAULT 10000
#define SLOW_RECONNECT_MS_DEFAULT 1000
#define MSEC_PER_SEC 1000
#define NSEC_PER_MSEC 1000000
/* epoll_wait's longest sleep when no slow connection is due: stdin and the
 * sockets wake it anyway. */
#define IDLE_WAIT_MS 1000

enum kind { STREAM, SLOW };

enum state {
        CONNECTING,
        WAITING,                /* request sent (stream) or started (slow) */
        OPEN,                   /* a stream the server accepted */
        DOWN,                   /* closed; a slow one waits to reconnect */
};

struct conn {
        enum kind kind;
        enum state state;
        int fd;
        struct in_addr from;
        char head[HEAD_MAX];
        size_t head_len;
        bool batch;             /* counted in the current "open N" batch */
        bool connected_once;    /* slow: has connected at least once */
        int64_t due_ms;         /* slow: next header line, or reconnect */
        unsigned lines;
};

struct range {
        uint32_t first, last;   /* host order */
};

static struct {
        struct in_addr target;
        unsigned port;
        const char *stream_path;
        unsigned slow_per_address;
        int64_t slow_interval_ms, slow_reconnect_ms;
        struct range stream_from, slow_from;

        int ep;
        struct conn *conns;
        size_t n_conns, cap;
        size_t next_stream_from;
        unsigned opening_max, batch_opening_max;
        unsigned to_open;       /* streams asked for, not yet started */
        unsigned opening;       /* connecting or waiting for their status */
        bool ready_sent, batch_active;
        /* counters */
        unsigned streams, refused, retry_after, failed, ended, slow_open, slow_closed;
        unsigned batch_ok, batch_refused, batch_failed, batch_left;
        unsigned slow_total, slow_connected;
} g = {
        .stream_path = "/v1/events",
        .slow_interval_ms = SLOW_INTERVAL_MS_DEFAULT,
        .slow_reconnect_ms = SLOW_RECONNECT_MS_DEFAULT,
        .opening_max = OPENING_DEFAULT,
};

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * MSEC_PER_SEC + ts.tv_nsec / NSEC_PER_MSEC;
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

static void die(const char *what) {
        fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
        exit(1);
}

static int parse_range(const char *s, struct range *r) {
        char first[INET_ADDRSTRLEN], *dash = strchr(s, '-');
        struct in_addr a, b;

        if (!dash || (size_t) (dash - s) >= sizeof first)
                return -EINVAL;
        memcpy(first, s, (size_t) (dash - s));
        first[dash - s] = '\0';
        if (inet_pton(AF_INET, first, &a) != 1 || inet_pton(AF_INET, dash + 1, &b) != 1)
                return -EINVAL;
        r->first = ntohl(a.s_addr);
        r->last = ntohl(b.s_addr);
        return r->first <= r->last ? 0 : -EINVAL;
}

static struct conn *new_conn(enum kind kind, struct in_addr from) {
        struct conn *c;

        if (g.n_conns == g.cap) {
                /* conns[] is indexed by epoll's data: grown, never shrunk */
                size_t cap = g.cap ? 2 * g.cap : 1024;
                struct conn *n = realloc(g.conns, cap * sizeof *n);
                if (!n)
                        die("out of memory");
                g.conns = n;
                g.cap = cap;
        }
        c = &g.conns[g.n_conns++];
        memset(c, 0, sizeof *c);
        c->kind = kind;
        c->from = from;
        c->fd = -1;
        c->state = DOWN;
        return c;
}

static void watch(struct conn *c, uint32_t events, int op) {
        struct epoll_event ev = { .events = events, .data.u64 = (uint64_t) (c - g.conns) };

        if (epoll_ctl(g.ep, op, c->fd, &ev) < 0)
                die("epoll_ctl");
}

/* Starts a non-blocking connect from c->from; false when it failed at once. */
static bool start_connect(struct conn *c) {
        struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = c->from };
        struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr = g.target, .sin_port = htons(g.port) };

        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (c->fd < 0)
                die("socket (raise the open-file limit?)");
        if (bind(c->fd, (struct sockaddr *) &src, sizeof src) < 0 ||
            (connect(c->fd, (struct sockaddr *) &dst, sizeof dst) < 0 && errno != EINPROGRESS)) {
                close(c->fd);
                c->fd = -1;
                return false;
        }
        c->state = CONNECTING;
        c->head_len = 0;
        c->lines = 0;
        watch(c, EPOLLOUT | EPOLLIN | EPOLLRDHUP, EPOLL_CTL_ADD);
        return true;
}

static void batch_count(struct conn *c, unsigned *counter) {
        if (!c->batch)
                return;
        c->batch = false;
        (*counter)++;
        g.batch_left--;
}

/* A stream that will not open (refused, failed): its connection ends. */
static void stream_settled(struct conn *c) {
        if (c->fd >= 0)
                close(c->fd);
        c->fd = -1;
        c->state = DOWN;
        g.opening--;
}

static void stream_failed(struct conn *c) {
        g.failed++;
        batch_count(c, &g.batch_failed);
        stream_settled(c);
}

static void slow_down(struct conn *c, int64_t now) {
        if (c->state != DOWN && c->state != CONNECTING)
                g.slow_open--;
        if (c->state != DOWN)
                g.slow_closed++;
        if (c->fd >= 0)
                close(c->fd);
        c->fd = -1;
        c->state = DOWN;
        c->due_ms = now + g.slow_reconnect_ms;
}

static bool send_all(int fd, const char *s) {
        size_t len = strlen(s);
        /* A request is a few dozen bytes on a fresh connection: the socket
         * buffer takes it whole, or the connection is in trouble. */
        return send(fd, s, len, MSG_NOSIGNAL) == (ssize_t) len;
}

static void connected(struct conn *c, int64_t now) {
        char req[LINE_MAX_LEN + 128];
        int err = 0;
        socklen_t len = sizeof err;

        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (c->kind == STREAM) {
                snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: arbiter\r\nAccept: text/event-stream\r\n\r\n",
                         g.stream_path);
                if (err || !send_all(c->fd, req)) {
                        stream_failed(c);
                        return;
                }
                c->state = WAITING;
                watch(c, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD);
                return;
        }
        if (err || !send_all(c->fd, "GET /v1/health HTTP/1.1\r\nHost: arbiter\r\n")) {
                slow_down(c, now);
                return;
        }
        c->state = WAITING;
        g.slow_open++;
        if (!c->connected_once)
                g.slow_connected++;
        c->connected_once = true;
        c->due_ms = now + g.slow_interval_ms;
        watch(c, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD);
}

/* The status line and headers of a stream's reply, as they come. */
static void stream_head(struct conn *c) {
        char *end;
        int status;

        c->head[c->head_len] = '\0';
        end = strstr(c->head, "\r\n\r\n");
        if (!end && c->head_len < sizeof c->head - 1)
                return;
        if (sscanf(c->head, "HTTP/1.%*d %d", &status) != 1) {
                stream_failed(c);
                return;
        }
        if (status == 200) {
                c->state = OPEN;
                g.streams++;
                g.opening--;
                batch_count(c, &g.batch_ok);
                return;
        }
        if (status == 503) {
                g.refused++;
                if (strcasestr(c->head, "\r\nRetry-After:"))
                        g.retry_after++;
                batch_count(c, &g.batch_refused);
                stream_settled(c);
                return;
        }
        stream_failed(c);
}

static void readable(struct conn *c, int64_t now) {
        static char discard[DISCARD_SIZE];
        ssize_t n;

        if (c->kind == SLOW) {
                /* The server answers a slow request only by closing it. */
                n = recv(c->fd, discard, sizeof discard, 0);
                if (n <= 0 && !(n < 0 && errno == EAGAIN))
                        slow_down(c, now);
                return;
        }
        for (;;) {
                if (c->state == WAITING)
                        n = recv(c->fd, c->head + c->head_len, sizeof c->head - 1 - c->head_len, 0);
                else
                        n = recv(c->fd, discard, sizeof discard, 0);
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        if (c->state == OPEN) {
                                g.ended++;
                                g.streams--;
                                close(c->fd);
                                c->fd = -1;
                                c->state = DOWN;
                        } else {
                                stream_failed(c);
                        }
                        return;
                }
                if (c->state == WAITING) {
                        c->head_len += (size_t) n;
                        stream_head(c);
                        if (c->state != OPEN)
                                return;
                }
        }
}

static struct in_addr next_stream_address(void) {
        uint32_t span = g.stream_from.last - g.stream_from.first + 1;
        struct in_addr a = { .s_addr = htonl(g.stream_from.first + (uint32_t) (g.next_stream_from++ % span)) };
        return a;
}

/* Starts as many of the streams asked for as --opening allows. */
static void open_more(void) {
        unsigned at_once = g.batch_active && g.batch_opening_max ? g.batch_opening_max : g.opening_max;

        while (g.to_open > 0 && g.opening < at_once) {
                struct conn *c = new_conn(STREAM, next_stream_address());

                g.to_open--;
                g.opening++;
                c->batch = g.batch_active;
                if (!start_connect(c))
                        stream_failed(c);
        }
}

static void slow_tick(int64_t now) {
        char line[LINE_MAX_LEN];

        for (size_t i = 0; i < g.n_conns; i++) {
                struct conn *c = &g.conns[i];

                if (c->kind != SLOW || c->due_ms > now)
                        continue;
                if (c->state == DOWN) {
                        if (!start_connect(c))
                                c->due_ms = now + g.slow_reconnect_ms;
                } else if (c->state == WAITING) {
                        snprintf(line, sizeof line, "X-Slow-%u: still typing\r\n", c->lines++);
                        if (!send_all(c->fd, line))
                                slow_down(c, now);
                        else
                                c->due_ms = now + g.slow_interval_ms;
                }
        }
}

static int wait_ms(int64_t now) {
        int64_t next = now + IDLE_WAIT_MS;

        for (size_t i = 0; i < g.n_conns; i++)
                if (g.conns[i].kind == SLOW && g.conns[i].state != CONNECTING && g.conns[i].due_ms < next)
                        next = g.conns[i].due_ms;
        return next > now ? (int) (next - now) : 0;
}

static void close_streams(unsigned n) {
        unsigned done = 0;

        for (size_t i = g.n_conns; i-- > 0 && done < n;) {
                struct conn *c = &g.conns[i];

                if (c->kind != STREAM || c->state != OPEN)
                        continue;
                close(c->fd);
                c->fd = -1;
                c->state = DOWN;
                g.streams--;
                done++;
        }
        say("CLOSED %u", done);
}

/* Returns false on quit or end of input. */
static bool command(char *line) {
        unsigned n, m = 0;

        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "quit") == 0)
                return false;
        if (strcmp(line, "status") == 0)
                say("STATUS streams=%u refused=%u retry_after=%u failed=%u ended=%u slow=%u slow_closed=%u opening=%u",
                    g.streams, g.refused, g.retry_after, g.failed, g.ended, g.slow_open, g.slow_closed,
                    g.opening);
        else if (sscanf(line, "close %u", &n) == 1)
                close_streams(n);
        else if (sscanf(line, "open %u %u", &n, &m) >= 1 && !g.batch_active) {
                g.batch_active = true;
                g.batch_opening_max = m;
                g.batch_ok = g.batch_refused = g.batch_failed = 0;
                g.batch_left = n;
                g.to_open += n;
        } else
                say("ERROR unknown command: %s", line);
        return true;
}

static bool read_commands(void) {
        static char buf[LINE_MAX_LEN];
        static size_t len;
        ssize_t n = read(STDIN_FILENO, buf + len, sizeof buf - 1 - len);
        char *nl;

        if (n <= 0)
                return n < 0 && errno == EAGAIN;
        len += (size_t) n;
        buf[len] = '\0';
        while ((nl = strchr(buf, '\n'))) {
                *nl = '\0';
                if (!command(buf))
                        return false;
                len -= (size_t) (nl + 1 - buf);
                memmove(buf, nl + 1, len + 1);
        }
        if (len == sizeof buf - 1)
                len = 0;        /* a line too long to be a command */
        return true;
}

static void report_progress(void) {
        if (!g.ready_sent && g.to_open == 0 && g.opening == 0 && g.slow_connected == g.slow_total) {
                g.ready_sent = true;
                say("READY streams=%u refused=%u failed=%u slow=%u", g.streams, g.refused, g.failed, g.slow_open);
        }
        if (g.batch_active && g.batch_left == 0 && g.to_open == 0) {
                g.batch_active = false;
                say("OPENED ok=%u refused=%u failed=%u", g.batch_ok, g.batch_refused, g.batch_failed);
        }
}

static void raise_nofile(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                setrlimit(RLIMIT_NOFILE, &rl);
        }
}

static void usage(void) {
        fprintf(stderr, "usage: loadgen --port PORT [--target ADDR] [--streams N --stream-from A-B "
                        "[--stream-path PATH] [--opening N]] [--slow N --slow-from A-B [--slow-interval MS] "
                        "[--slow-reconnect MS]]\n");
        exit(EXIT_USAGE);
}

int main(int argc, char **argv) {
        enum { O_TARGET = 0x100, O_STREAMS, O_STREAM_FROM, O_STREAM_PATH, O_SLOW, O_SLOW_FROM, O_SLOW_INTERVAL,
               O_SLOW_RECONNECT, O_PORT, O_OPENING };
        static const struct option options[] = {
                { "port", required_argument, NULL, O_PORT },
                { "target", required_argument, NULL, O_TARGET },
                { "streams", required_argument, NULL, O_STREAMS },
                { "stream-from", required_argument, NULL, O_STREAM_FROM },
                { "stream-path", required_argument, NULL, O_STREAM_PATH },
                { "opening", required_argument, NULL, O_OPENING },
                { "slow", required_argument, NULL, O_SLOW },
                { "slow-from", required_argument, NULL, O_SLOW_FROM },
                { "slow-interval", required_argument, NULL, O_SLOW_INTERVAL },
                { "slow-reconnect", required_argument, NULL, O_SLOW_RECONNECT },
                {}
        };
        struct epoll_event events[EVENTS_MAX];
        unsigned streams = 0;
        bool have_stream_from = false, have_slow_from = false;
        int opt;

        inet_pton(AF_INET, "127.0.0.1", &g.target);
        while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
                switch (opt) {
                case O_PORT:
                        g.port = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case O_TARGET:
                        if (inet_pton(AF_INET, optarg, &g.target) != 1)
                                usage();
                        break;
                case O_STREAMS:
                        streams = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case O_STREAM_FROM:
                        if (parse_range(optarg, &g.stream_from) < 0)
                                usage();
                        have_stream_from = true;
                        break;
                case O_STREAM_PATH:
                        g.stream_path = optarg;
                        break;
                case O_OPENING:
                        g.opening_max = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case O_SLOW:
                        g.slow_per_address = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case O_SLOW_FROM:
                        if (parse_range(optarg, &g.slow_from) < 0)
                                usage();
                        have_slow_from = true;
                        break;
                case O_SLOW_INTERVAL:
                        g.slow_interval_ms = strtoll(optarg, NULL, 10);
                        break;
                case O_SLOW_RECONNECT:
                        g.slow_reconnect_ms = strtoll(optarg, NULL, 10);
                        break;
                default:
                        usage();
                }
        }
        if (optind < argc || g.port == 0 || g.port > UINT16_MAX || (streams && !have_stream_from) ||
            (g.slow_per_address && !have_slow_from) || g.slow_interval_ms <= 0 || g.slow_reconnect_ms <= 0 ||
            g.opening_max == 0)
                usage();
        if (!have_stream_from)
                parse_range("127.0.0.1-127.0.0.1", &g.stream_from);

        raise_nofile();
        g.ep = epoll_create1(EPOLL_CLOEXEC);
        if (g.ep < 0)
                die("epoll_create1");
        fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
        struct epoll_event in = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
        if (epoll_ctl(g.ep, EPOLL_CTL_ADD, STDIN_FILENO, &in) < 0)
                die("epoll_ctl (stdin)");

        if (g.slow_per_address)
                for (uint32_t a = g.slow_from.first; a <= g.slow_from.last; a++)
                        for (unsigned i = 0; i < g.slow_per_address; i++) {
                                struct in_addr from = { .s_addr = htonl(a) };
                                new_conn(SLOW, from)->due_ms = 0;       /* connects at the first tick */
                                g.slow_total++;
                        }
        g.to_open = streams;

        for (;;) {
                int64_t now = now_ms();
                int n;

                slow_tick(now);
                open_more();
                report_progress();
                n = epoll_wait(g.ep, events, EVENTS_MAX, wait_ms(now_ms()));
                if (n < 0 && errno != EINTR)
                        die("epoll_wait");
                now = now_ms();
                for (int i = 0; i < n; i++) {
                        struct conn *c;

                        if (events[i].data.u64 == UINT64_MAX) {
                                if (!read_commands())
                                        return 0;
                                continue;
                        }
                        c = &g.conns[events[i].data.u64];
                        if (c->fd < 0)
                                continue;       /* closed by an earlier event of this batch */
                        if (c->state == CONNECTING) {
                                if (c->kind == STREAM && (events[i].events & (EPOLLERR | EPOLLHUP)))
                                        stream_failed(c);
                                else if (c->kind == SLOW && (events[i].events & (EPOLLERR | EPOLLHUP)))
                                        slow_down(c, now);
                                else
                                        connected(c, now);
                                continue;
                        }
                        readable(c, now);
                }
        }
}
