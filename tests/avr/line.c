/* tests/avr/line.c — the line between the host (a pty) and the pads: each
 * byte on the wire for its 10 bit times, handed to its receivers at the
 * end of its stop bit; on an RS-485 bus, the drivers, their collisions and
 * the receivers a driver enable turns off; frames lost on purpose (`drop`).
 * See tests/avr/avrpad.c.
 *
 * The wire is one queue of bytes, sorted by the end of their stop bit:
 * each with its driver (the host or a pad), its start and end in line time
 * (wall ns), the value driven and the value heard (the AND of every byte
 * it overlapped), the pads that still have to get it and whether the host
 * (the pty) still has to.  A byte leaves the queue when nobody is left to
 * get it.  Full-duplex (one pad without --rs485): the host's bytes go to
 * the pad and the pad's to the host, on two wires that never collide. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "tests/avr/avrpad.h"

/* Bytes on the wire or waiting for it: a host's burst of frames fits. */
#define WIRE_MAX                2048
/* A delivery may go ahead of a byte that could still overlap it by this
 * much: the rounding of line time to a receiver's cycle. */
#define OVERLAP_SLACK_NS        100
#define HOST                    (-1)

struct wire_byte {
        int64_t start, end;
        int driver;                     /* HOST or a pad's index */
        uint8_t value, heard;
        uint8_t lost;                   /* `drop out`: nobody gets it */
        uint8_t frame_start;            /* the host's: first byte of a frame */
        uint8_t collided;
        uint8_t to_host;                /* still to be written to the pty */
        uint32_t pending;               /* pads still to get it, a bit each */
};

static struct {
        int master, slave;
        char pty[256];
        const char *link;

        struct wire_byte q[WIRE_MAX];
        size_t n;

        int64_t host_free_ns;           /* the host's transmitter */
        int host_prev_zero;
        struct frame_acc host_frame;    /* --trace */

        /* collisions: one per pair of drivers until their bytes stop
         * overlapping; [driver + 1][driver + 1] */
        int64_t pair_end[MAX_PADS + 1][MAX_PADS + 1];
        uint64_t collisions, collided_bytes, host_bytes, pty_lost;
        int64_t pty_late_max_ns;        /* a byte written after its stop bit */
} L = { .host_prev_zero = 1 };

static int64_t max64(int64_t a, int64_t b) {
        return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b) {
        return a < b ? a : b;
}

/* ---- frames, for --trace and the drop messages ---- */

static void acc_push(struct frame_acc *a, uint8_t b) {
        if (b != 0 && a->len < sizeof a->buf)
                a->buf[a->len++] = b;
}

void frame_summary(const uint8_t *buf, size_t len, char *out, size_t size) {
        uint8_t f[64];
        size_t i = 0, o = 0;

        while (i < len) {
                uint8_t code = buf[i++];
                for (uint8_t k = 1; k < code && i < len; k++)
                        f[o++] = buf[i++];
                if (code != 0xff && i < len)
                        f[o++] = 0;
        }
        if (o < 7) {
                snprintf(out, size, "%zu bytes, too short", o);
                return;
        }
        char hex[3 * 64 + 1] = "";
        for (size_t k = 5; k < o - 2; k++)
                sprintf(hex + 3 * (k - 5), " %02x", f[k]);
        snprintf(out, size, "addr %u seq %u type 0x%02x%s", f[1], f[2] | f[3] << 8, f[4], hex);
}

/* --trace: each frame on the line, COBS-decoded, as one line: direction,
 * address, seq, type and payload in hex (no CRC check: the firmware and
 * arbiterd count faults). */
static void trace_frame(const struct pad *p, int host, struct frame_acc *a) {
        char s[256];

        if (!h.trace || a->len == 0)
                return;
        frame_summary(a->buf, a->len, s, sizeof s);
        if (host)
                say_line(p, "host> %s", s);
        else
                say(p, "pad>  %s", s);
}

/* ---- the pty ---- */

static int make_raw(int fd) {
        struct termios t;

        if (tcgetattr(fd, &t) < 0)
                return -errno;
        cfmakeraw(&t);
        t.c_cflag |= CLOCAL | CREAD;
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        return tcsetattr(fd, TCSANOW, &t) < 0 ? -errno : 0;
}

static int link_update(const char *link, const char *path) {
        char tmp[PATH_MAX];

        if (snprintf(tmp, sizeof tmp, "%s.avrpad-%d", link, (int) getpid()) >= (int) sizeof tmp)
                return -ENAMETOOLONG;
        (void) unlink(tmp);
        if (symlink(path, tmp) < 0)
                return -errno;
        if (rename(tmp, link) < 0) {
                int r = -errno;
                (void) unlink(tmp);
                return r;
        }
        return 0;
}

/* A raw pty; we hold the slave open too, so that the master does not
 * report a hang-up each time arbiterd closes it (arbiter-padsim's line.c
 * does the same, for the same reason). */
int line_open(const char *link) {
        int r;

        L.master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (L.master < 0)
                return -errno;
        if (grantpt(L.master) < 0 || unlockpt(L.master) < 0 || ptsname_r(L.master, L.pty, sizeof L.pty) != 0)
                return -errno;
        L.slave = open(L.pty, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (L.slave < 0)
                return -errno;
        if ((r = make_raw(L.slave)) < 0)
                return r;
        if (link && (r = link_update(link, L.pty)) < 0)
                return r;
        L.link = link;
        return 0;
}

const char *line_pty(void) {
        return L.pty;
}

int line_fd(void) {
        return L.master;
}

int line_can_read(void) {
        return L.n < WIRE_MAX;
}

void line_close(void) {
        char target[PATH_MAX];
        ssize_t n;

        if (!L.link)
                return;
        n = readlink(L.link, target, sizeof target - 1);
        if (n < 0)
                return;
        target[n] = '\0';
        if (strcmp(target, L.pty) == 0)
                (void) unlink(L.link);
}

/* ---- the wire ---- */

static void next_rx(struct pad *p) {
        uint32_t bit = 1u << p->index;

        p->next_rx = NO_CYCLE;
        for (size_t i = 0; i < L.n; i++)
                if (L.q[i].pending & bit) {
                        p->next_rx = pad_cycle_at(p, L.q[i].end);
                        return;
                }
}

static void compact(void) {
        size_t o = 0;

        for (size_t i = 0; i < L.n; i++)
                if (L.q[i].pending || L.q[i].to_host)
                        L.q[o++] = L.q[i];
        L.n = o;
}

static const char *driver_name(int d, char *buf, size_t size) {
        if (d == HOST)
                return "the host";
        snprintf(buf, size, "pad %d", d);
        return buf;
}

/* Two drivers at once on the bus: each hears the AND of both (a 0 bit
 * wins on RS-485's idle-high pair, near enough), so frames fail their CRC.
 * One collision is counted and printed per pair of drivers until their
 * bytes stop overlapping (for more than two byte times). */
static void collide(struct wire_byte *b) {
        for (size_t i = 0; i < L.n; i++) {
                struct wire_byte *e = &L.q[i];

                if (e->driver == b->driver || e->start >= b->end || b->start >= e->end)
                        continue;
                e->heard &= b->value;
                b->heard &= e->value;
                L.collided_bytes += !e->collided + !b->collided;
                e->collided = b->collided = 1;

                int64_t *pe = &L.pair_end[e->driver + 1][b->driver + 1];
                int64_t *pb = &L.pair_end[b->driver + 1][e->driver + 1];
                int64_t from = max64(e->start, b->start);

                if (*pe + 2 * (b->end - b->start) < from) {
                        char n1[16], n2[16];
                        const char *first = driver_name(b->driver == HOST ? e->driver : b->driver, n1, sizeof n1);
                        const char *second = driver_name(b->driver == HOST ? HOST : e->driver, n2, sizeof n2);

                        L.collisions++;
                        if (h.n_pads > 1)
                                say_line(&h.pads[0], "collision %s with %s host_us %" PRId64, first, second,
                                         from / 1000);
                        else
                                say(&h.pads[0], "collision with the host host_us %" PRId64, from / 1000);
                }
                *pe = *pb = max64(*pe, min64(e->end, b->end));
        }
}

static int insert(struct wire_byte *b) {
        size_t i = L.n;

        if (L.n == WIRE_MAX)
                return -1;
        if (h.rs485)
                collide(b);
        while (i > 0 && L.q[i - 1].end > b->end)
                i--;
        memmove(&L.q[i + 1], &L.q[i], (L.n - i) * sizeof L.q[0]);
        L.q[i] = *b;
        L.n++;
        for (int k = 0; k < h.n_pads; k++) {
                struct pad *p = &h.pads[k];
                avr_cycle_count_t c;

                if ((b->pending & (1u << k)) && (c = pad_cycle_at(p, b->end)) < p->next_rx)
                        p->next_rx = c;
        }
        return 0;
}

static uint32_t all_pads_but(int k) {
        uint32_t m = (h.n_pads >= 32 ? ~0u : (1u << h.n_pads) - 1);

        return k >= 0 ? m & ~(1u << k) : m;
}

void line_pad_byte(struct pad *p, uint8_t b) {
        int64_t start = max64(pad_now_ns(p), p->tx_free_ns);
        struct wire_byte w = {
                .start = start, .end = start + p->byte_ns, .driver = p->index, .value = b, .heard = b,
        };

        p->tx_free_ns = w.end;
        p->bytes_out++;
        acc_push(&p->out_frame, b);
        if (b == 0)
                trace_frame(p, 0, &p->out_frame);
        if (h.rs485 && !p->de) {
                p->de_violations++;
                say(p, "DE violation: byte 0x%02x sent with the driver disabled", b);
                if (b == 0)
                        p->out_frame.len = 0;
                return;
        }
        /* `drop out`: from a frame's first byte to its 0x00 (a lone 0x00,
         * such as the one before each RS-485 transmission, is no frame). */
        if (b != 0 && !p->out_in_frame) {
                p->out_in_frame = 1;
                if (p->drop_out) {
                        p->drop_out--;
                        p->out_dropping = 1;
                }
        }
        w.lost = (uint8_t) p->out_dropping;
        if (b == 0) {
                if (p->out_dropping) {
                        char s[256];

                        frame_summary(p->out_frame.buf, p->out_frame.len, s, sizeof s);
                        p->dropped_out++;
                        say(p, "dropped out frame %s", s);
                }
                p->out_in_frame = p->out_dropping = 0;
                p->out_frame.len = 0;
        }
        p->tx_last_end_ns = w.end;
        w.to_host = !w.lost;
        w.pending = h.rs485 && !w.lost ? all_pads_but(p->index) : 0;
        if (insert(&w) < 0)
                say(p, "line: more than %d bytes on the wire, byte lost", WIRE_MAX);
        p->yield = 1;
}

void line_host_read(void) {
        uint8_t buf[512];
        size_t room = WIRE_MAX - L.n;
        ssize_t n = read(L.master, buf, room < sizeof buf ? room : sizeof buf);
        int64_t now = mono_ns();

        for (ssize_t i = 0; i < n; i++) {
                int64_t start = max64(now, L.host_free_ns);
                struct wire_byte w = {
                        .start = start, .end = start + h.pads[0].byte_ns, .driver = HOST, .value = buf[i],
                        .heard = buf[i], .frame_start = buf[i] != 0 && L.host_prev_zero,
                        .pending = all_pads_but(HOST),
                };

                L.host_free_ns = w.end;
                L.host_prev_zero = buf[i] == 0;
                L.host_bytes++;
                (void) insert(&w);
        }
}

/* One byte at the end of its stop bit, to one pad. */
static void give(struct pad *p, const struct wire_byte *e) {
        if (e->driver == HOST) {
                if (p->index == 0) {
                        acc_push(&L.host_frame, e->value);
                        if (e->value == 0) {
                                trace_frame(p, 1, &L.host_frame);
                                L.host_frame.len = 0;
                        }
                }
                /* `drop in`: the host's frames, from their first byte to
                 * their 0x00, never reach this pad's UART. */
                if (e->frame_start && p->drop_in) {
                        p->drop_in--;
                        p->in_dropping = 1;
                        p->in_frame.len = 0;
                }
                if (p->in_dropping) {
                        acc_push(&p->in_frame, e->value);
                        if (e->value == 0) {
                                char s[256];

                                frame_summary(p->in_frame.buf, p->in_frame.len, s, sizeof s);
                                p->in_dropping = 0;
                                p->dropped_in++;
                                say(p, "dropped in frame %s", s);
                        }
                        return;
                }
        }
        /* DE and /RE are tied (firmware/board.h): driving, it hears nothing. */
        if (h.rs485 && p->de) {
                p->rx_missed_driving++;
                return;
        }
        pad_receive(p, e->heard);
}

int line_deliver(struct pad *p) {
        uint32_t bit = 1u << p->index;
        int64_t safe = NEVER;
        int held = 0;

        /* Nobody may start a byte that would overlap one before we hand it
         * over: every other pad's next byte starts at its pad_eot() or
         * later; the host's, at the wall clock's now or later, which no
         * pad has passed. */
        if (h.rs485)
                for (int k = 0; k < h.n_pads; k++)
                        if (k != p->index)
                                safe = min64(safe, pad_eot(&h.pads[k]));
        for (size_t i = 0; i < L.n; i++) {
                struct wire_byte *e = &L.q[i];

                if (!(e->pending & bit))
                        continue;
                if (pad_cycle_at(p, e->end) > p->avr->cycle)
                        break;
                if (safe != NEVER && e->end > safe + OVERLAP_SLACK_NS) {
                        held = 1;
                        break;
                }
                e->pending &= ~bit;
                give(p, e);
        }
        next_rx(p);
        if (L.n && !L.q[0].pending && !L.q[0].to_host)
                compact();
        return !held;
}

int64_t line_next_flush_ns(void) {
        for (size_t i = 0; i < L.n; i++)
                if (L.q[i].to_host)
                        return L.q[i].end;
        return NEVER;
}

void line_flush(void) {
        int64_t now = mono_ns(), bound = now;
        uint8_t out[512];
        size_t n = 0;

        if (h.rs485)
                for (int k = 0; k < h.n_pads; k++)
                        bound = min64(bound, pad_eot(&h.pads[k]));
        for (size_t i = 0; i < L.n && n < sizeof out; i++) {
                struct wire_byte *e = &L.q[i];

                if (!e->to_host)
                        continue;
                if (e->end > bound)
                        break;
                if (now - e->end > L.pty_late_max_ns)
                        L.pty_late_max_ns = now - e->end;
                out[n++] = e->heard;
                e->to_host = 0;
        }
        if (!n)
                return;
        /* A full pty (nobody reading) loses the bytes, as a line would. */
        ssize_t w = write(L.master, out, n);
        if (w < 0 && errno != EAGAIN)
                say_line(&h.pads[0], "pty write: %s", strerror(errno));
        L.pty_lost += w < 0 ? n : n - (size_t) w;
        compact();
}

int64_t line_lookahead_ns(void) {
        int64_t la = NEVER;

        for (int k = 0; k < h.n_pads; k++)
                la = min64(la, h.pads[k].byte_ns);
        return la;
}

void line_pad_reset(struct pad *p) {
        int64_t now = pad_now_ns(p);
        size_t o = 0;

        /* The byte in the shift register finishes (near enough: the chip's
         * pin lets go and the line idles high); the one waiting in UDR0
         * never starts. */
        p->tx_free_ns = now;
        for (size_t i = 0; i < L.n; i++) {
                struct wire_byte *e = &L.q[i];

                if (e->driver == p->index && e->start > now)
                        continue;
                if (e->driver == p->index)
                        p->tx_free_ns = max64(p->tx_free_ns, e->end);
                L.q[o++] = *e;
        }
        L.n = o;
        p->out_in_frame = p->out_dropping = 0;
        p->out_frame.len = 0;
        p->de_on_ns = NEVER;            /* DE lets go now: no fault of the firmware's */
        for (int k = 0; k < h.n_pads; k++)
                next_rx(&h.pads[k]);
}

void line_pad_de(struct pad *p, int on) {
        int64_t now = pad_now_ns(p);

        if (on) {
                p->de_on_ns = now;
                return;
        }
        if (p->tx_last_end_ns <= p->de_on_ns)
                return;                 /* nothing sent while it was high */
        if (now < p->tx_last_end_ns) {
                p->de_violations++;
                say(p, "DE violation: driver disabled %.1f µs before the stop bit of its last byte",
                    (double) (p->tx_last_end_ns - now) / 1000);
        } else if (now - p->tx_last_end_ns > p->de_tail_max_ns) {
                p->de_tail_max_ns = now - p->tx_last_end_ns;
        }
}

void line_stats(void) {
        say_line(&h.pads[0], "  line: %s, collisions %" PRIu64 " (%" PRIu64 " bytes), host bytes %" PRIu64
                             ", bytes the pty did not take %" PRIu64 ", written to the pty late by up to %.1f µs",
                 h.rs485 ? "RS-485 bus" : "full-duplex", L.collisions, L.collided_bytes, L.host_bytes, L.pty_lost,
                 (double) L.pty_late_max_ns / 1000);
}
