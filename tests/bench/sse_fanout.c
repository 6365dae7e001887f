/* tests/bench/sse_fanout.c — the client of the live fan-out benchmark
 * (tests/bench/fanout.sh, issue 15): N Server-Sent Events streams and the
 * publisher in one process, one thread, epoll, so that one clock times an
 * event from its publication to the moment the last of the N streams has it.
 *
 *   sse_fanout --port PORT --clients N --sub PATH --pub PATH --kind arbiterd|nchan
 *              [--from A-B] [--token TOKEN] [--data-bytes N] [--timeout-ms MS]
 *
 * The streams.  Each is "GET PATH" with Accept: text/event-stream from a
 * source address of --from (round-robin over the range, e.g.
 * "127.0.1.1-127.0.1.40": arbiterd bounds one address's connections, and
 * every address has its own ephemeral ports), at most OPENING at a time so
 * that a burst does not overflow the server's listen backlog.  A stream is
 * open on "HTTP/1.1 200"; its body is decoded (chunked or not) and parsed as
 * an event stream: comments and fields other than data and event are
 * skipped, an event is dispatched at its blank line.
 *
 * The publisher.  One kept-alive connection from 127.0.0.1, one request in
 * flight.  For nchan a POST to --pub whose body is
 * {"kind":"bench","seq":S,"pad":"xx…"}, padded to --data-bytes (so that
 * nchan's event is as long as arbiterd's); for arbiterd a POST to --pub/pause and
 * --pub/resume in turn (an operator's pause or resume of a running match,
 * each one input that makes exactly one public event, "paused" or
 * "resumed", stored before it is published) with "Authorization: Bearer
 * --token".  The time of a publication is taken just before its request is
 * written.
 *
 * Matching.  Every event on these streams carries the input's "seq" in its
 * data (arbiterd: the match input's seq; nchan: the publisher's own), and
 * nothing else publishes on the stream's topic or channel during a run.  The
 * first event of a run seen by any stream fixes the run's first seq; each
 * stream must then get seq first, first+1, … in order.  An event out of that
 * order, an "overflow" or "reset" event, or a stream that ends, is counted
 * (bad, disconnected); an event some stream never got by the end of the
 * wait is counted as missed.  A run with any of them is broken: its figures
 * are printed, and the caller must not report them.
 *
 * Commands, one per line on stdin; answers, one line each on stdout:
 *   (at start)   READY clients=N failed=N
 *                once every stream has its status line (failed: not 200)
 *   run NAME K INTERVAL_US
 *                publishes K events, one every INTERVAL_US (0: each as soon
 *                as the previous one is answered — a burst), waits until
 *                every stream has every event or --timeout-ms after the
 *                last publication, then:
 *                RESULT NAME events=K clients=N p50_ms=… p99_ms=… max_ms=…
 *                  first_p50_ms=… first_p99_ms=… pub_p50_ms=… pub_p99_ms=…
 *                  missed=N bad=N disconnected=N pub_failed=N data_bytes=N
 *                (p50/p99/max: publication → the last stream received it,
 *                first_*: → the first stream; pub_*: publication → its
 *                reply; data_bytes: the mean length of an event's data line)
 *   status       STATUS open=N disconnected=N bad=N
 *   quit, EOF    exits 0
 * A wrong command line exits 64, a failure at start 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#define OPENING 64              /* streams being opened at once */
#define HEAD_MAX 2048           /* a reply's header */
#define LINE_KEEP 512           /* what is kept of one event-stream line */
#define READ_SIZE 65536
#define EVENTS_MAX 512
#define CMD_MAX 256
#define PUB_MAX 8192            /* a publication's request or reply */
#define TIMEOUT_MS_DEFAULT 10000
#define K_MAX 100000
#define NSEC_PER_SEC INT64_C(1000000000)
#define STDIN_TAG UINT64_MAX
#define PUB_TAG (UINT64_MAX - 1)

enum sub_state { SUB_CONNECTING, SUB_HEAD, SUB_OPEN, SUB_DOWN };
enum chunk_state { CH_SIZE, CH_DATA, CH_DATA_END };

struct sub {
        enum sub_state state;
        int fd;
        char head[HEAD_MAX];
        size_t head_len;
        bool chunked;
        enum chunk_state ch;
        uint64_t ch_left;
        char line[LINE_KEEP];
        size_t line_len;
        bool line_long;
        bool has_seq, bad_event;
        int64_t seq;
        uint64_t got;           /* events of this run */
};

static struct {
        struct in_addr target;
        unsigned port, clients, data_bytes;
        const char *sub_path, *pub_path, *token;
        bool arbiterd;
        int64_t timeout_ns;
        uint32_t from_first, from_last;

        int ep;
        struct sub *subs;
        unsigned opening, next_to_open, answered, open, failed, disconnected, bad;
        /* the publisher */
        int pub_fd;
        char pub_in[PUB_MAX];
        size_t pub_in_len;
        bool pub_busy;
        unsigned pub_count;     /* publications over the whole life (pause/resume parity) */
        int64_t pub_seq;        /* nchan: the next seq */
        /* the run */
        bool running, eof;
        unsigned k, sent, answered_pubs, pub_failed;
        int64_t interval_ns, next_due, last_sent_at;
        int64_t first_seq;
        int64_t *t_sent, *t_reply, *t_first, *t_last;
        unsigned *count;
        uint64_t data_seen, data_lines;
        char name[64];
} g;

static int64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
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
        fprintf(stderr, "sse_fanout: %s: %s\n", what, strerror(errno));
        exit(1);
}

static void watch(int fd, uint32_t events, uint64_t tag, int op) {
        struct epoll_event ev = { .events = events, .data.u64 = tag };

        if (epoll_ctl(g.ep, op, fd, &ev) < 0)
                die("epoll_ctl");
}

static int parse_range(const char *s) {
        char first[INET_ADDRSTRLEN], *dash = strchr(s, '-');
        struct in_addr a, b;

        if (!dash || (size_t) (dash - s) >= sizeof first)
                return -EINVAL;
        memcpy(first, s, (size_t) (dash - s));
        first[dash - s] = '\0';
        if (inet_pton(AF_INET, first, &a) != 1 || inet_pton(AF_INET, dash + 1, &b) != 1)
                return -EINVAL;
        g.from_first = ntohl(a.s_addr);
        g.from_last = ntohl(b.s_addr);
        return g.from_first <= g.from_last ? 0 : -EINVAL;
}

static int connect_from(uint32_t from) {
        struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(from) };
        struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr = g.target, .sin_port = htons(g.port) };
        int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

        if (fd < 0)
                die("socket");
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (bind(fd, (struct sockaddr *) &src, sizeof src) < 0)
                die("bind");
        if (connect(fd, (struct sockaddr *) &dst, sizeof dst) < 0 && errno != EINPROGRESS)
                die("connect");
        return fd;
}

/* ---- the streams ------------------------------------------------------------ */

static void sub_down(struct sub *s, bool was_open) {
        if (s->fd >= 0)
                close(s->fd);
        s->fd = -1;
        if (was_open) {
                g.open--;
                g.disconnected++;
                fprintf(stderr, "sse_fanout: stream %zu ended\n", (size_t) (s - g.subs));
        }
        s->state = SUB_DOWN;
}

static void open_more(void) {
        while (g.opening < OPENING && g.next_to_open < g.clients) {
                struct sub *s = &g.subs[g.next_to_open];
                uint32_t span = g.from_last - g.from_first + 1;

                s->fd = connect_from(g.from_first + g.next_to_open % span);
                s->state = SUB_CONNECTING;
                watch(s->fd, EPOLLOUT, g.next_to_open, EPOLL_CTL_ADD);
                g.next_to_open++;
                g.opening++;
        }
}

static void sub_answered(struct sub *s, bool ok) {
        g.opening--;
        g.answered++;
        if (ok) {
                g.open++;
        } else {
                g.failed++;
                sub_down(s, false);
        }
        open_more();
}

static void sub_send_request(struct sub *s) {
        char req[1024];
        int n = snprintf(req, sizeof req,
                         "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAccept: text/event-stream\r\n"
                         "Cache-Control: no-cache\r\n\r\n",
                         g.sub_path, g.port);
        int err = 0;
        socklen_t len = sizeof err;

        if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err ||
            write(s->fd, req, (size_t) n) != n) {
                fprintf(stderr, "sse_fanout: stream %zu: connect: %s\n", (size_t) (s - g.subs),
                        strerror(err ? err : errno));
                sub_answered(s, false);
                return;
        }
        s->state = SUB_HEAD;
        watch(s->fd, EPOLLIN | EPOLLRDHUP, (uint64_t) (s - g.subs), EPOLL_CTL_MOD);
}

/* One event of the stream is complete. */
static void sub_event(struct sub *s, int64_t now) {
        int64_t k;

        if (s->bad_event) {
                g.bad++;
                fprintf(stderr, "sse_fanout: stream %zu: an overflow or reset event\n", (size_t) (s - g.subs));
        }
        if (!s->has_seq)
                return;
        if (!g.running) {
                g.bad++;
                fprintf(stderr, "sse_fanout: stream %zu: an event outside a run\n", (size_t) (s - g.subs));
                return;
        }
        if (g.first_seq < 0)
                g.first_seq = s->seq;
        k = s->seq - g.first_seq;
        if (k != (int64_t) s->got || k >= (int64_t) g.k) {
                g.bad++;
                fprintf(stderr, "sse_fanout: stream %zu: seq %" PRId64 " where %" PRId64 " was due\n",
                        (size_t) (s - g.subs), s->seq, g.first_seq + (int64_t) s->got);
                s->got++;
                return;
        }
        s->got++;
        if (g.count[k]++ == 0)
                g.t_first[k] = now;
        g.t_last[k] = now;
}

static void sub_line(struct sub *s, int64_t now) {
        const char *l = s->line;

        if (s->line_len == 0) {
                sub_event(s, now);
                s->has_seq = s->bad_event = false;
                return;
        }
        if (strncmp(l, "data:", 5) == 0) {
                const char *p = strstr(l, "\"seq\":");
                g.data_seen += s->line_len - 5 - (l[5] == ' ');
                g.data_lines++;
                if (p) {
                        s->seq = strtoll(p + 6, NULL, 10);
                        s->has_seq = true;
                }
        } else if (strncmp(l, "event:", 6) == 0) {
                if (strstr(l + 6, "overflow") || strstr(l + 6, "reset"))
                        s->bad_event = true;
        }
}

/* Bytes of the event stream itself (the chunk framing removed). */
static void sub_stream_bytes(struct sub *s, const char *p, size_t n, int64_t now) {
        for (size_t i = 0; i < n; i++) {
                char c = p[i];

                if (c == '\n') {
                        if (s->line_len > 0 && s->line[s->line_len - 1] == '\r')
                                s->line_len--;
                        s->line[s->line_len] = '\0';
                        sub_line(s, now);
                        s->line_len = 0;
                } else if (s->line_len < LINE_KEEP - 1) {
                        s->line[s->line_len++] = c;
                }
        }
}

static void sub_body(struct sub *s, const char *p, size_t n, int64_t now) {
        if (!s->chunked) {
                sub_stream_bytes(s, p, n, now);
                return;
        }
        while (n > 0) {
                switch (s->ch) {
                case CH_SIZE:
                        if (*p == '\n') {
                                s->ch = s->ch_left ? CH_DATA : CH_SIZE;
                        } else if (*p >= '0' && *p <= '9') {
                                s->ch_left = s->ch_left * 16 + (uint64_t) (*p - '0');
                        } else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f') {
                                s->ch_left = s->ch_left * 16 + (uint64_t) ((*p | 0x20) - 'a' + 10);
                        }
                        p++, n--;
                        break;
                case CH_DATA: {
                        size_t k = n < s->ch_left ? n : (size_t) s->ch_left;
                        sub_stream_bytes(s, p, k, now);
                        p += k, n -= k;
                        s->ch_left -= k;
                        if (!s->ch_left)
                                s->ch = CH_DATA_END;
                        break;
                }
                case CH_DATA_END:
                        if (*p == '\n')
                                s->ch = CH_SIZE;
                        p++, n--;
                        break;
                }
        }
}

static void sub_readable(struct sub *s, uint32_t events) {
        static char buf[READ_SIZE];
        int64_t now;
        ssize_t n;

        for (;;) {
                n = read(s->fd, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        break;
                if (n <= 0) {
                        if (s->state == SUB_HEAD) {
                                fprintf(stderr, "sse_fanout: stream %zu: closed before its status line\n",
                                        (size_t) (s - g.subs));
                                sub_answered(s, false);
                        } else {
                                sub_down(s, true);
                        }
                        return;
                }
                now = now_ns();
                if (s->state == SUB_HEAD) {
                        size_t take = (size_t) n < HEAD_MAX - 1 - s->head_len ? (size_t) n : HEAD_MAX - 1 - s->head_len;
                        char *end;

                        memcpy(s->head + s->head_len, buf, take);
                        s->head_len += take;
                        s->head[s->head_len] = '\0';
                        end = strstr(s->head, "\r\n\r\n");
                        if (!end) {
                                if (s->head_len == HEAD_MAX - 1) {
                                        fprintf(stderr, "sse_fanout: stream %zu: header too long\n",
                                                (size_t) (s - g.subs));
                                        sub_answered(s, false);
                                        return;
                                }
                                continue;
                        }
                        if (strncmp(s->head, "HTTP/1.1 200", 12) != 0) {
                                fprintf(stderr, "sse_fanout: stream %zu: %.*s\n", (size_t) (s - g.subs),
                                        (int) strcspn(s->head, "\r"), s->head);
                                sub_answered(s, false);
                                return;
                        }
                        s->chunked = strcasestr(s->head, "\r\nTransfer-Encoding: chunked") != NULL;
                        s->state = SUB_OPEN;
                        sub_answered(s, true);
                        {
                                size_t head_bytes = (size_t) (end + 4 - s->head);
                                size_t consumed_before = s->head_len - take;
                                size_t off = head_bytes - consumed_before;
                                sub_body(s, buf + off, (size_t) n - off, now);
                        }
                        continue;
                }
                sub_body(s, buf, (size_t) n, now);
        }
        if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
                /* the data before the hang-up was read above */
                if (s->state == SUB_HEAD)
                        sub_answered(s, false);
                else if (s->state == SUB_OPEN)
                        sub_down(s, true);
        }
}

/* ---- the publisher ---------------------------------------------------------- */

static void pub_connect(void) {
        int err = 0;
        socklen_t len = sizeof err;

        g.pub_fd = connect_from(ntohl(inet_addr("127.0.0.1")));
        /* wait for the connection, blocking: it is made once */
        for (int i = 0; i < 5000; i++) {
                struct epoll_event ev;
                int ep = epoll_create1(EPOLL_CLOEXEC);
                struct epoll_event want = { .events = EPOLLOUT };
                epoll_ctl(ep, EPOLL_CTL_ADD, g.pub_fd, &want);
                int r = epoll_wait(ep, &ev, 1, 1000);
                close(ep);
                if (r == 1)
                        break;
        }
        if (getsockopt(g.pub_fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
                errno = err;
                die("the publisher's connect");
        }
        watch(g.pub_fd, EPOLLIN | EPOLLRDHUP, PUB_TAG, EPOLL_CTL_ADD);
}

static void pub_send(int64_t now) {
        char req[PUB_MAX], body[PUB_MAX / 2];
        int n, blen = 0;
        ssize_t w;

        if (g.arbiterd) {
                n = snprintf(req, sizeof req,
                             "POST %s/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAuthorization: Bearer %s\r\n"
                             "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
                             g.pub_path, g.pub_count % 2 ? "resume" : "pause", g.port, g.token ? g.token : "");
        } else {
                blen = snprintf(body, sizeof body, "{\"kind\":\"bench\",\"seq\":%" PRId64 ",\"pad\":\"", g.pub_seq);
                while (blen + 2 < (int) g.data_bytes && blen < (int) sizeof body - 3)
                        body[blen++] = 'x';
                blen += snprintf(body + blen, sizeof body - (size_t) blen, "\"}");
                n = snprintf(req, sizeof req,
                             "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                             "Content-Length: %d\r\n\r\n%s",
                             g.pub_path, g.port, blen, body);
        }
        g.t_sent[g.sent] = now;
        w = write(g.pub_fd, req, (size_t) n);
        if (w != n)
                die("the publisher's write");
        g.pub_busy = true;
        g.pub_count++;
        g.pub_seq++;
        g.sent++;
        g.last_sent_at = now;
}

static void pub_readable(void) {
        for (;;) {
                ssize_t n = read(g.pub_fd, g.pub_in + g.pub_in_len, sizeof g.pub_in - 1 - g.pub_in_len);
                char *end, *cl;
                size_t need;

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        fprintf(stderr, "sse_fanout: the server closed the publisher's connection\n");
                        exit(1);
                }
                g.pub_in_len += (size_t) n;
                g.pub_in[g.pub_in_len] = '\0';
                end = strstr(g.pub_in, "\r\n\r\n");
                if (!end)
                        continue;
                cl = strcasestr(g.pub_in, "\r\nContent-Length:");
                need = (size_t) (end + 4 - g.pub_in) + (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
                if (g.pub_in_len < need)
                        continue;
                if (!g.pub_busy) {
                        fprintf(stderr, "sse_fanout: a reply nobody asked for\n");
                        exit(1);
                }
                if (strncmp(g.pub_in, "HTTP/1.1 2", 10) != 0) {
                        g.pub_failed++;
                        fprintf(stderr, "sse_fanout: publication %u: %.*s\n", g.answered_pubs,
                                (int) strcspn(g.pub_in, "\r"), g.pub_in);
                }
                if (g.running && g.answered_pubs < g.k)
                        g.t_reply[g.answered_pubs] = now_ns();
                g.answered_pubs++;
                g.pub_busy = false;
                memmove(g.pub_in, g.pub_in + need, g.pub_in_len - need);
                g.pub_in_len -= need;
        }
}

/* ---- a run ------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

/* Nearest rank, as tests/bench/lib.sh's scripts compute theirs. */
static double pct_ms(int64_t *v, size_t n, double p) {
        size_t i;

        if (n == 0)
                return NAN;
        qsort(v, n, sizeof *v, cmp_i64);
        i = (size_t) (p * (double) n + 0.999);
        if (i < 1)
                i = 1;
        if (i > n)
                i = n;
        return (double) v[i - 1] / 1e6;
}

static bool run_complete(void) {
        if (g.sent < g.k || g.pub_busy)
                return false;
        for (unsigned k = 0; k < g.k; k++)
                if (g.count[k] < g.open)
                        return false;
        return true;
}

static void run_start(const char *name, unsigned k, int64_t interval_us) {
        snprintf(g.name, sizeof g.name, "%s", name);
        g.k = k;
        g.interval_ns = interval_us * 1000;
        g.sent = g.answered_pubs = g.pub_failed = 0;
        g.first_seq = -1;
        g.data_seen = g.data_lines = 0;
        free(g.t_sent), free(g.t_reply), free(g.t_first), free(g.t_last), free(g.count);
        g.t_sent = calloc(k, sizeof *g.t_sent);
        g.t_reply = calloc(k, sizeof *g.t_reply);
        g.t_first = calloc(k, sizeof *g.t_first);
        g.t_last = calloc(k, sizeof *g.t_last);
        g.count = calloc(k, sizeof *g.count);
        if (!g.t_sent || !g.t_reply || !g.t_first || !g.t_last || !g.count)
                die("out of memory");
        for (unsigned i = 0; i < g.clients; i++)
                g.subs[i].got = 0;
        g.running = true;
        g.next_due = now_ns();
}

static void run_end(void) {
        int64_t *last = calloc(g.k, sizeof *last), *first = calloc(g.k, sizeof *first);
        int64_t *pub = calloc(g.k, sizeof *pub), max = 0;
        size_t n = 0, np = 0;
        unsigned missed = 0;

        if (!last || !first || !pub)
                die("out of memory");
        for (unsigned k = 0; k < g.k; k++) {
                if (k < g.answered_pubs)
                        pub[np++] = g.t_reply[k] - g.t_sent[k];
                if (k >= g.sent || g.count[k] < g.clients) {
                        missed += g.clients - (k < g.sent ? g.count[k] : 0);
                        continue;
                }
                last[n] = g.t_last[k] - g.t_sent[k];
                first[n] = g.t_first[k] - g.t_sent[k];
                if (last[n] > max)
                        max = last[n];
                n++;
        }
        say("RESULT %s events=%u clients=%u p50_ms=%.3f p99_ms=%.3f max_ms=%.3f first_p50_ms=%.3f "
            "first_p99_ms=%.3f pub_p50_ms=%.3f pub_p99_ms=%.3f missed=%u bad=%u disconnected=%u pub_failed=%u "
            "data_bytes=%.0f",
            g.name, g.k, g.clients, pct_ms(last, n, 0.50), pct_ms(last, n, 0.99), (double) max / 1e6,
            pct_ms(first, n, 0.50), pct_ms(first, n, 0.99), pct_ms(pub, np, 0.50), pct_ms(pub, np, 0.99), missed,
            g.bad, g.disconnected, g.pub_failed,
            g.data_lines ? (double) g.data_seen / (double) g.data_lines : 0.0);
        free(last), free(first), free(pub);
        g.running = false;
}

/* ---- the loop --------------------------------------------------------------- */

static void command(char *line) {
        char name[64];
        unsigned k;
        long long interval;

        line[strcspn(line, "\r\n")] = '\0';
        if (sscanf(line, "run %63s %u %lld", name, &k, &interval) == 3 && k > 0 && k <= K_MAX && interval >= 0) {
                if (g.pub_busy) {
                        fprintf(stderr, "sse_fanout: a publication is still unanswered\n");
                        exit(1);
                }
                run_start(name, k, interval);
        } else if (strcmp(line, "status") == 0) {
                say("STATUS open=%u disconnected=%u bad=%u", g.open, g.disconnected, g.bad);
        } else if (strcmp(line, "quit") == 0) {
                exit(0);
        } else {
                fprintf(stderr, "sse_fanout: unknown command '%s'\n", line);
        }
}

static char cmd_buf[CMD_MAX];
static size_t cmd_len;

/* The commands read so far, up to the first run. */
static void commands(void) {
        char *buf = cmd_buf, *nl;
        size_t len = cmd_len;

        while (!g.running && (nl = memchr(buf, '\n', len))) {
                *nl = '\0';
                command(buf);
                len -= (size_t) (nl + 1 - buf);
                memmove(buf, nl + 1, len);
                buf[len] = '\0';
        }
        cmd_len = len;
        if (cmd_len == sizeof cmd_buf - 1)
                cmd_len = 0;    /* a line too long: dropped */
}

static void stdin_readable(void) {
        ssize_t n = read(STDIN_FILENO, cmd_buf + cmd_len, sizeof cmd_buf - 1 - cmd_len);

        if (n == 0) {
                if (!g.running)
                        exit(0);
                g.eof = true;   /* quits after the run */
                epoll_ctl(g.ep, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
        }
        if (n > 0) {
                cmd_len += (size_t) n;
                cmd_buf[cmd_len] = '\0';
        }
        commands();
}

static void usage(void) {
        fprintf(stderr, "usage: sse_fanout --port PORT --clients N --sub PATH --pub PATH --kind arbiterd|nchan\n"
                        "                  [--from A-B] [--token TOKEN] [--data-bytes N] [--timeout-ms MS]\n");
        exit(EXIT_USAGE);
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "port", required_argument, NULL, 'p' },     { "clients", required_argument, NULL, 'n' },
                { "sub", required_argument, NULL, 's' },      { "pub", required_argument, NULL, 'P' },
                { "kind", required_argument, NULL, 'k' },     { "from", required_argument, NULL, 'f' },
                { "token", required_argument, NULL, 't' },    { "data-bytes", required_argument, NULL, 'd' },
                { "timeout-ms", required_argument, NULL, 'T' }, { NULL, 0, NULL, 0 },
        };
        struct epoll_event evs[EVENTS_MAX];
        struct rlimit rl;
        const char *kind = NULL;
        bool ready = false;
        int c;

        g.timeout_ns = (int64_t) TIMEOUT_MS_DEFAULT * 1000000;
        inet_pton(AF_INET, "127.0.0.1", &g.target);
        parse_range("127.0.0.1-127.0.0.1");
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'p': g.port = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'n': g.clients = (unsigned) strtoul(optarg, NULL, 10); break;
                case 's': g.sub_path = optarg; break;
                case 'P': g.pub_path = optarg; break;
                case 'k': kind = optarg; break;
                case 'f': if (parse_range(optarg) < 0) usage(); break;
                case 't': g.token = optarg; break;
                case 'd': g.data_bytes = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'T': g.timeout_ns = (int64_t) strtoll(optarg, NULL, 10) * 1000000; break;
                default: usage();
                }
        }
        if (!g.port || !g.clients || !g.sub_path || !g.pub_path || !kind ||
            (strcmp(kind, "arbiterd") != 0 && strcmp(kind, "nchan") != 0))
                usage();
        g.arbiterd = strcmp(kind, "arbiterd") == 0;
        if (g.arbiterd && !g.token)
                usage();

        /* one descriptor a stream, and a few */
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                setrlimit(RLIMIT_NOFILE, &rl);
        }
        g.ep = epoll_create1(EPOLL_CLOEXEC);
        if (g.ep < 0)
                die("epoll_create1");
        g.subs = calloc(g.clients, sizeof *g.subs);
        if (!g.subs)
                die("out of memory");
        for (unsigned i = 0; i < g.clients; i++)
                g.subs[i].fd = -1;
        pub_connect();
        open_more();

        for (;;) {
                int timeout = -1, n;
                int64_t now = now_ns();

                if (!ready && g.answered == g.clients) {
                        ready = true;
                        say("READY clients=%u failed=%u", g.open, g.failed);
                        fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
                        watch(STDIN_FILENO, EPOLLIN, STDIN_TAG, EPOLL_CTL_ADD);
                }
                if (g.running) {
                        if (g.sent < g.k && !g.pub_busy && now >= g.next_due) {
                                pub_send(now);
                                g.next_due += g.interval_ns;
                                if (g.next_due < now)
                                        g.next_due = now;       /* a late reply: the next one at once */
                        }
                        if (run_complete() || (g.sent == g.k && !g.pub_busy && now - g.last_sent_at > g.timeout_ns)) {
                                run_end();
                                if (g.eof)
                                        exit(0);
                                commands();     /* one queued behind the run */
                                continue;
                        }
                        if (g.sent < g.k && !g.pub_busy)
                                timeout = (int) ((g.next_due - now + 999999) / 1000000);
                        else
                                timeout = 100;
                        if (timeout < 0)
                                timeout = 0;
                }
                n = epoll_wait(g.ep, evs, EVENTS_MAX, timeout);
                if (n < 0 && errno != EINTR)
                        die("epoll_wait");
                for (int i = 0; i < n; i++) {
                        uint64_t tag = evs[i].data.u64;

                        if (tag == STDIN_TAG) {
                                stdin_readable();
                        } else if (tag == PUB_TAG) {
                                pub_readable();
                        } else {
                                struct sub *s = &g.subs[tag];
                                if (s->state == SUB_CONNECTING)
                                        sub_send_request(s);
                                else if (s->state != SUB_DOWN)
                                        sub_readable(s, evs[i].events);
                        }
                }
        }
}
