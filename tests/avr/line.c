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
        uint8_t held;                   /* `drop out TYPE`: not to the pty until its frame's type is known */
        uint8_t frame_start;            /* the host's: first byte of a frame */
        uint32_t frame;                 /* its driver's frame count */
        uint8_t collided;
        uint8_t absorbed;               /* into an overlapping byte that started first */
        uint8_t to_host;                /* still to be written to the pty */
        uint32_t pending;               /* pads still to get it, a bit each */
};

static struct {
        int master, slave;
        char pty[256];
        const char *link;

        struct wire_byte q[WIRE_MAX];   /* q[lo .. hi-1] */
        size_t lo, hi;
        size_t n_to_host;

        int64_t host_free_ns;           /* the host's transmitter */
        int host_prev_zero;
        uint32_t host_frame_no;
        struct frame_acc host_reading;  /* the host's frame being read */
        int16_t host_type[256];         /* by host_frame_no % 256; -1: not yet known */
        struct frame_acc host_frame;    /* --trace */

        /* collisions: one per pair of drivers until their bytes stop
         * overlapping; [driver + 1][driver + 1] */
        int64_t pair_end[MAX_PADS + 1][MAX_PADS + 1];
        uint64_t collisions, collided_bytes, host_bytes, pty_lost;
        int64_t pty_late_max_ns;        /* a delimiter written after its stop bit */
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

/* The type of a frame from the first of its COBS bytes, or -1 when they
 * do not reach it yet. */
static int frame_type(const struct frame_acc *a) {
        size_t i = 0, o = 0;

        while (i < a->len) {
                uint8_t code = a->buf[i++];

                for (uint8_t k = 1; k < code; k++, o++) {
                        if (i >= a->len)
                                return -1;
                        if (o == 4)
                                return a->buf[i];
                        i++;
                }
                if (code != 0xff && o == 4)
                        return i < a->len ? 0 : -1;
                o += code != 0xff;
        }
        return -1;
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
        return L.hi - L.lo < WIRE_MAX;
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
        for (size_t i = L.lo; i < L.hi; i++)
                if (L.q[i].pending & bit) {
                        p->next_rx = pad_cycle_at(p, L.q[i].end);
                        return;
                }
}

/* Drops the bytes at the front that nobody is left to get. */
static void compact(void) {
        while (L.lo < L.hi && !L.q[L.lo].pending && !L.q[L.lo].to_host)
                L.lo++;
        if (L.lo == L.hi)
                L.lo = L.hi = 0;
}

static const char *driver_name(int d, char *buf, size_t size) {
        if (d == HOST)
                return "the host";
        snprintf(buf, size, "pad %d", d);
        return buf;
}

/* Two drivers at once on the bus: a receiver hears one byte where they
 * overlap, the AND of both (a 0 bit wins on RS-485's idle-high pair, near
 * enough), so frames fail their CRC: the byte that started second is
 * absorbed into the first (else a receiver would get two bytes in one
 * byte time).  One collision is counted and printed per pair of drivers
 * until their bytes stop overlapping (for more than two byte times). */
static void collide(struct wire_byte *b) {
        /* The bytes that end after b starts are the queue's tail. */
        for (size_t i = L.hi; i-- > L.lo && L.q[i].end > b->start;) {
                struct wire_byte *e = &L.q[i];

                if (e->driver == b->driver || e->start >= b->end)
                        continue;
                e->heard &= b->value;
                b->heard &= e->value;
                if (!e->absorbed && !b->absorbed) {
                        struct wire_byte *second = e->start <= b->start ? b : e;

                        second->absorbed = 1;
                        second->pending = 0;
                        if (second == e && e->to_host)
                                L.n_to_host--;
                        second->to_host = 0;
                }
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
        size_t i;

        if (L.hi == WIRE_MAX) {
                if (L.lo == 0)
                        return -1;
                memmove(&L.q[0], &L.q[L.lo], (L.hi - L.lo) * sizeof L.q[0]);
                L.hi -= L.lo;
                L.lo = 0;
        }
        if (h.rs485)
                collide(b);
        for (i = L.hi; i > L.lo && L.q[i - 1].end > b->end; i--)
                ;
        memmove(&L.q[i + 1], &L.q[i], (L.hi - i) * sizeof L.q[0]);
        L.q[i] = *b;
        L.hi++;
        L.n_to_host += b->to_host;
        for (int k = 0; k < h.n_pads; k++)
                next_rx(&h.pads[k]);
        return 0;
}

static uint32_t all_pads_but(int k) {
        uint32_t m = (h.n_pads >= 32 ? ~0u : (1u << h.n_pads) - 1);

        return k >= 0 ? m & ~(1u << k) : m;
}

/* `drop out TYPE` has decided about frame `frame` of pad k: its bytes on
 * the wire go to the pty, or (lose) not. */
static void hold(int k, uint32_t frame, int lose) {
        for (size_t i = L.lo; i < L.hi; i++) {
                struct wire_byte *e = &L.q[i];

                if (e->driver != k || e->frame != frame || !e->held)
                        continue;
                e->held = 0;
                if (lose && e->to_host) {
                        e->to_host = 0;
                        L.n_to_host--;
                }
        }
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
         * such as the one before each RS-485 transmission, is no frame).
         * With a type, the frame's first bytes are held from the pty until
         * its type byte has been written; one of that type is lost to the
         * host (the other pads on a bus, which ignore a pad's frames, hear
         * it: cut short it would spoil the next frame they get). */
        if (b != 0 && !p->out_in_frame) {
                p->out_in_frame = 1;
                p->out_frame_no++;
                if (p->drop_out && p->drop_out_type < 0) {
                        p->drop_out--;
                        p->out_dropping = 1;
                } else if (p->drop_out) {
                        p->out_deciding = 1;
                }
        }
        w.frame = p->out_frame_no;
        if (p->out_deciding) {
                int type = frame_type(&p->out_frame);

                if (type >= 0 || b == 0) {
                        p->out_deciding = 0;
                        if (type == p->drop_out_type) {
                                p->drop_out--;
                                p->out_dropping = 2;
                        }
                        hold(p->index, w.frame, p->out_dropping == 2);
                } else {
                        w.held = 1;
                }
        }
        w.lost = p->out_dropping == 1;
        w.to_host = !p->out_dropping;
        w.pending = h.rs485 && !w.lost ? all_pads_but(p->index) : 0;
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
        if (insert(&w) < 0)
                say(p, "line: more than %d bytes on the wire, byte lost", WIRE_MAX);
        p->yield = 1;
}

void line_host_read(void) {
        uint8_t buf[512];
        size_t room = WIRE_MAX - (L.hi - L.lo);
        ssize_t n = read(L.master, buf, room < sizeof buf ? room : sizeof buf);
        int64_t now = mono_ns();

        for (ssize_t i = 0; i < n; i++) {
                int64_t start = max64(now, L.host_free_ns);
                struct wire_byte w = {
                        .start = start, .end = start + h.pads[0].byte_ns, .driver = HOST, .value = buf[i],
                        .heard = buf[i], .frame_start = buf[i] != 0 && L.host_prev_zero,
                        .pending = all_pads_but(HOST),
                };

                /* Its frame's type, for `drop in TYPE`, once read. */
                if (w.frame_start) {
                        L.host_frame_no++;
                        L.host_reading.len = 0;
                        L.host_type[L.host_frame_no % 256] = -1;
                }
                w.frame = L.host_frame_no;
                acc_push(&L.host_reading, buf[i]);
                if (L.host_type[w.frame % 256] < 0)
                        L.host_type[w.frame % 256] = (int16_t) frame_type(&L.host_reading);
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
                 * their 0x00, never reach this pad's UART (with a type,
                 * known when the frame was read: arbiterd writes a frame
                 * at once). */
                if (e->frame_start && p->drop_in
                    && (p->drop_in_type < 0 || L.host_type[e->frame % 256] == p->drop_in_type)) {
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

int line_deliver(struct pad *p, int *given) {
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
        for (size_t i = L.lo; i < L.hi; i++) {
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
                *given = 1;
        }
        next_rx(p);
        compact();
        return !held;
}

int64_t line_next_flush_ns(int64_t batch_ns) {
        int64_t first = NEVER;

        if (!L.n_to_host)
                return NEVER;
        for (size_t i = L.lo; i < L.hi; i++) {
                if (!L.q[i].to_host)
                        continue;
                if (first == NEVER)
                        first = L.q[i].end;
                if (L.q[i].heard == 0 || L.q[i].end >= first + batch_ns)
                        return L.q[i].end;
        }
        return first == NEVER ? NEVER : first + batch_ns;
}

void line_flush(void) {
        int64_t now = mono_ns(), bound = now;
        uint8_t out[512];
        size_t n = 0;

        if (h.rs485)
                for (int k = 0; k < h.n_pads; k++)
                        bound = min64(bound, pad_eot(&h.pads[k]));
        if (!L.n_to_host)
                return;
        for (size_t i = L.lo; i < L.hi && n < sizeof out; i++) {
                struct wire_byte *e = &L.q[i];

                if (!e->to_host)
                        continue;
                if (e->end > bound || e->held)
                        break;
                if (e->heard == 0 && now - e->end > L.pty_late_max_ns)
                        L.pty_late_max_ns = now - e->end;
                out[n++] = e->heard;
                e->to_host = 0;
                L.n_to_host--;
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
        for (size_t i = L.lo; i < L.hi; i++) {
                struct wire_byte *e = &L.q[i];

                if (e->driver == p->index && e->start > now) {
                        L.n_to_host -= e->to_host;
                        continue;
                }
                if (e->driver == p->index)
                        p->tx_free_ns = max64(p->tx_free_ns, e->end);
                L.q[L.lo + o++] = *e;
        }
        L.hi = L.lo + o;
        if (p->out_deciding)
                hold(p->index, p->out_frame_no, 0);
        p->out_in_frame = p->out_dropping = p->out_deciding = 0;
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
                             ", bytes the pty did not take %" PRIu64 ", delimiters written to the pty late by up to %.1f µs",
                 h.rs485 ? "RS-485 bus" : "full-duplex", L.collisions, L.collided_bytes, L.host_bytes, L.pty_lost,
                 (double) L.pty_late_max_ns / 1000);
}
