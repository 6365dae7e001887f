/* tools/arbiter-padsim/line.c — see line.h. */
#define _GNU_SOURCE
#include "tools/arbiter-padsim/line.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <termios.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/time.h"
#include "tools/arbiter-padsim/plog.h"
#include "tools/arbiter-padsim/rng.h"
#include "tools/arbiter-padsim/sim.h"

/* A garbage burst is 1..this many bytes (the brief for the noise model). */
#define GARBAGE_MAX_BURST       40
/* A port that vanished (--port) is tried again this often, like the
 * daemon's own reopen loop. */
#define LINE_REOPEN_US          (1 * USEC_PER_SEC)
/* Frames waiting for their transport delay; past this the line is hopelessly
 * behind and new frames are dropped rather than queued without bound. */
#define LINE_MAX_QUEUED         4096
#define LINE_READ_CHUNK         4096

struct tx {
        struct tx *next;
        int64_t due_us;
        uint64_t order;                 /* ties keep send order */
        unsigned pad;
        struct frame frame;             /* for the log */
        size_t len;
        uint8_t bytes[PROTO_MAX_ENCODED];
};

struct line_stats {
        uint64_t frames_written;
        uint64_t frames_dropped;        /* --drop */
        uint64_t frames_flipped;        /* --bitflip */
        uint64_t frames_unplugged;      /* sent while unplugged: lost */
        uint64_t frames_overrun;        /* the pty buffer was full: the host is not reading */
        uint64_t frames_overflow;       /* LINE_MAX_QUEUED reached */
        uint64_t garbage_bursts;
        uint64_t garbage_bytes;
        uint64_t frames_received;
        uint64_t unplugs;
};

struct line {
        struct event_base *base;
        struct line_config cfg;
        line_rx_fn rx_fn;
        void *rx_userdata;

        int fd;                         /* pty master or the port; -1 while unplugged */
        int slave_fd;                   /* our own hold on the pty slave, or -1 */
        char path[256];                 /* the pty slave or the port */
        struct event *read_ev;

        struct frame_decoder decoder;
        uint64_t rx_errors_before;      /* errors of decoders replaced at replug */
        int64_t rx_us;                  /* read time of the bytes being fed */

        struct tx *queue;               /* sorted by (due_us, order) */
        size_t n_queued;
        uint64_t next_order;
        int64_t *last_due;              /* per pad: its frames stay in order */
        struct event *write_ev;

        struct event *replug_ev;
        struct event *garbage_ev;
        struct rng rng;
        struct line_stats stats;
};

static void line_read_cb(evutil_socket_t fd, short what, void *userdata);
static void line_arm_writer(struct line *l);

/* The payload decoded for a person reading --verbose output; a payload that
 * does not unpack is shown as such, since the pads will drop it too. */
void line_describe(const struct frame *f, char *buf, size_t size) {
        const char *name = proto_type_name(f->type);
        union {
                struct proto_hello hello;
                struct proto_event event;
                struct proto_sync_reply sync_reply;
                struct proto_heartbeat heartbeat;
                struct proto_assign assign;
                struct proto_ack ack;
                struct proto_sync sync;
                struct proto_light light;
                struct proto_buzz buzz;
                struct proto_lockout lockout;
        } m;
        int r = 0;

        switch (f->type) {
        case PROTO_HELLO:
                if ((r = proto_unpack_hello(f, &m.hello)) == 0)
                        snprintf(buf, size, "%s uid 0x%016" PRIx64 " kind %s buttons %u fw %u.%u clock %" PRIu32 " Hz",
                                 name, m.hello.uid, sim_kind_name(m.hello.kind), m.hello.n_buttons,
                                 m.hello.fw_major, m.hello.fw_minor, m.hello.clock_hz);
                break;
        case PROTO_PRESS:
        case PROTO_RELEASE:
                if ((r = proto_unpack_event(f, &m.event)) == 0)
                        snprintf(buf, size, "%s event %u button %u time %" PRIu32,
                                 name, m.event.event_no, m.event.button, m.event.pad_time);
                break;
        case PROTO_SYNC_REPLY:
                if ((r = proto_unpack_sync_reply(f, &m.sync_reply)) == 0)
                        snprintf(buf, size, "%s id %u rx %" PRIu32 " tx %" PRIu32,
                                 name, m.sync_reply.sync_id, m.sync_reply.rx_time, m.sync_reply.tx_time);
                break;
        case PROTO_HEARTBEAT:
                if ((r = proto_unpack_heartbeat(f, &m.heartbeat)) == 0)
                        snprintf(buf, size, "%s time %" PRIu32 " pending %u rx_errors %u",
                                 name, m.heartbeat.pad_time, m.heartbeat.pending_events, m.heartbeat.rx_errors);
                break;
        case PROTO_ASSIGN:
                if ((r = proto_unpack_assign(f, &m.assign)) == 0)
                        snprintf(buf, size, "%s uid 0x%016" PRIx64 " address %u", name, m.assign.uid, m.assign.address);
                break;
        case PROTO_ACK:
                if ((r = proto_unpack_ack(f, &m.ack)) == 0)
                        snprintf(buf, size, "%s event %u", name, m.ack.event_no);
                break;
        case PROTO_SYNC:
                if ((r = proto_unpack_sync(f, &m.sync)) == 0)
                        snprintf(buf, size, "%s id %u slot %u µs", name, m.sync.sync_id,
                                 m.sync.slot_us_x100 * 100u);
                break;
        case PROTO_LIGHT:
                if ((r = proto_unpack_light(f, &m.light)) == 0)
                        snprintf(buf, size, "%s button %u mode %u duration %u ms", name, m.light.button,
                                 m.light.mode, m.light.duration_ms);
                break;
        case PROTO_BUZZ:
                if ((r = proto_unpack_buzz(f, &m.buzz)) == 0)
                        snprintf(buf, size, "%s %u ms pattern %u", name, m.buzz.duration_ms, m.buzz.pattern);
                break;
        case PROTO_LOCKOUT:
                if ((r = proto_unpack_lockout(f, &m.lockout)) == 0)
                        snprintf(buf, size, "%s mask 0x%04x", name, m.lockout.button_mask);
                break;
        default:
                snprintf(buf, size, "%s (%u bytes)", name, f->len);
                break;
        }
        if (r < 0)
                snprintf(buf, size, "%s with a bad payload (%u bytes)", name, f->len);
}

/* cfmakeraw() on a tty we opened; ENOTTY (a FIFO, a file) is fine. */
static int make_raw(int fd) {
        struct termios t;

        if (tcgetattr(fd, &t) < 0)
                return errno == ENOTTY || errno == EINVAL ? 0 : -errno;
        cfmakeraw(&t);
        t.c_cflag |= CLOCAL | CREAD;
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        if (tcsetattr(fd, TCSANOW, &t) < 0)
                return -errno;
        return 0;
}

/* Points the link at path atomically: a symlink under a temporary name,
 * then rename() over the old one, so the daemon never finds the path missing
 * or half made while we replace it. */
static int link_update(const char *link, const char *path) {
        char tmp[PATH_MAX];

        if (snprintf(tmp, sizeof tmp, "%s.padsim-%d", link, (int) getpid()) >= (int) sizeof tmp)
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

/* Removes the link only while it still points at path: another simulator
 * (or udev) may have taken the name since. */
static void link_remove(const char *link, const char *path) {
        char target[PATH_MAX];
        ssize_t n = readlink(link, target, sizeof target - 1);

        if (n < 0)
                return;
        target[n] = '\0';
        if (strcmp(target, path) == 0)
                (void) unlink(link);
}

/* A new pty, raw, with the master non-blocking.  We keep the slave open
 * ourselves: a pty master whose slave was opened and closed again reports a
 * hang-up on every poll until someone opens the slave, which would spin the
 * loop before the daemon arrives and after it leaves; our hold also keeps
 * the raw settings in place between the daemon's opens. */
static int open_pty(struct line *l) {
        int master, slave, r;

        master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (master < 0)
                return -errno;
        if (grantpt(master) < 0 || unlockpt(master) < 0 || ptsname_r(master, l->path, sizeof l->path) != 0) {
                r = -errno;
                close(master);
                return r;
        }
        slave = open(l->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (slave < 0) {
                r = -errno;
                close(master);
                return r;
        }
        r = make_raw(slave);
        if (r < 0) {
                close(slave);
                close(master);
                return r;
        }
        l->fd = master;
        l->slave_fd = slave;
        return 0;
}

static int open_port(struct line *l) {
        int fd, r;

        fd = open(l->cfg.port, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = make_raw(fd);
        if (r < 0) {
                close(fd);
                return r;
        }
        snprintf(l->path, sizeof l->path, "%s", l->cfg.port);
        l->fd = fd;
        return 0;
}

/* Brings the line up: the fd, its read event, the link, and the record on
 * stdout that tells a test or a person where to point the daemon. */
static int line_open(struct line *l) {
        int r;

        r = l->cfg.port ? open_port(l) : open_pty(l);
        if (r < 0)
                return r;
        l->read_ev = event_new(l->base, l->fd, EV_READ | EV_PERSIST, line_read_cb, l);
        if (!l->read_ev || event_add(l->read_ev, NULL) < 0) {
                r = l->read_ev ? -EIO : -ENOMEM;
                event_free(l->read_ev);
                l->read_ev = NULL;
                close(l->fd);
                l->fd = -1;
                if (l->slave_fd >= 0)
                        close(l->slave_fd);
                l->slave_fd = -1;
                return r;
        }
        if (l->cfg.link) {
                r = link_update(l->cfg.link, l->path);
                if (r < 0)
                        plog(PLOG_WARN, "cannot point %s at %s: %s", l->cfg.link, l->path, strerror(-r));
        }
        plog_record(false, "%s %s", l->cfg.port ? "PORT" : "PTY", l->path);
        return 0;
}

/* Closes the fd and our slave hold: with both gone the daemon's read sees
 * the hang-up of an unplugged adapter.  The link goes first, so a daemon
 * that reopens by path at once finds nothing rather than a dead pty.  The
 * decoder's half-read candidate is lost; its error counts are kept. */
static void line_close(struct line *l) {
        struct frame_faults *ft = &l->decoder.faults;

        if (l->fd < 0)
                return;
        if (l->cfg.link)
                link_remove(l->cfg.link, l->path);
        event_free(l->read_ev);
        l->read_ev = NULL;
        close(l->fd);
        l->fd = -1;
        if (l->slave_fd >= 0)
                close(l->slave_fd);
        l->slave_fd = -1;
        l->rx_errors_before += ft->overlong + ft->cobs + ft->short_frame + ft->crc + ft->version +
                               ft->unknown_type + ft->bad_length;
        frame_decoder_init(&l->decoder);
}

static void line_drop_queue(struct line *l, uint64_t *counter) {
        while (l->queue) {
                struct tx *t = l->queue;
                l->queue = t->next;
                free(t);
                (*counter)++;
        }
        l->n_queued = 0;
        if (l->last_due)
                memset(l->last_due, 0, l->cfg.n_pads * sizeof *l->last_due);
}

static void line_replug_cb(evutil_socket_t fd, short what, void *userdata) {
        (void) fd;
        (void) what;
        line_replug(userdata);
}

void line_unplug(struct line *l, int64_t duration_us) {
        if (l->fd >= 0) {
                line_close(l);
                line_drop_queue(l, &l->stats.frames_unplugged);
                l->stats.unplugs++;
                if (duration_us >= 0)
                        plog(PLOG_INFO, "line: unplugged for %lld ms", (long long) (duration_us / USEC_PER_MSEC));
                else
                        plog(PLOG_INFO, "line: unplugged");
                plog_record(true, "UNPLUG");
        }
        event_del(l->replug_ev);
        if (duration_us >= 0)
                sim_timer_at(l->replug_ev, now_usec() + duration_us);
}

void line_replug(struct line *l) {
        int r;

        event_del(l->replug_ev);
        if (l->fd >= 0)
                return;
        r = line_open(l);
        if (r < 0) {
                plog(PLOG_WARN, "line: cannot reopen %s: %s; trying again in %lld ms",
                     l->cfg.port ? l->cfg.port : "a pty", strerror(-r),
                     (long long) (LINE_REOPEN_US / USEC_PER_MSEC));
                sim_timer_at(l->replug_ev, now_usec() + LINE_REOPEN_US);
                return;
        }
        plog(PLOG_INFO, "line: plugged in again as %s", l->path);
}

bool line_plugged(const struct line *l) {
        return l->fd >= 0;
}

static void rx_frame(void *userdata, const struct frame *f) {
        struct line *l = userdata;

        l->stats.frames_received++;
        if (plog_enabled(PLOG_FRAME)) {
                char desc[160];
                line_describe(f, desc, sizeof desc);
                plog(PLOG_FRAME, "host -> addr %u seq %u %s", f->address, f->seq, desc);
        }
        l->rx_fn(l->rx_userdata, f, l->rx_us);
}

/* Reads until the pty is empty.  Every byte goes through the one decoder,
 * stamped with the time of the read that returned it: that is "when the
 * delimiter arrived" as closely as a process can tell.  End of file or EIO
 * means the far end of a --port went away; we close and retry it like an
 * unplugged adapter. */
static void line_read_cb(evutil_socket_t fd, short what, void *userdata) {
        struct line *l = userdata;
        uint8_t buf[LINE_READ_CHUNK];

        (void) what;
        for (;;) {
                ssize_t n = read(fd, buf, sizeof buf);
                if (n > 0) {
                        l->rx_us = now_usec();
                        frame_decoder_feed(&l->decoder, buf, (size_t) n, rx_frame, l);
                        if (l->fd != fd)
                                return;         /* a frame's handler unplugged us */
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        return;
                plog(PLOG_WARN, "line: %s %s; reopening", l->path,
                     n == 0 ? "closed" : strerror(errno));
                line_close(l);
                line_drop_queue(l, &l->stats.frames_unplugged);
                sim_timer_at(l->replug_ev, now_usec() + LINE_REOPEN_US);
                return;
        }
}

/* One write per frame, so frames of different pads never interleave on the
 * line (the bus arbitration a real multi-drop bus needs is not simulated).
 * A full pty buffer means the host is not reading: a real line would lose
 * those bytes too. */
static void line_write(struct line *l, struct tx *t) {
        char desc[160] = "";
        bool flipped = false;
        ssize_t n;

        if (l->fd < 0) {
                l->stats.frames_unplugged++;
                return;
        }
        if (rng_chance(&l->rng, l->cfg.bitflip)) {
                uint64_t bit = rng_below(&l->rng, (uint64_t) t->len * 8);
                t->bytes[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                l->stats.frames_flipped++;
                flipped = true;
        }
        if (plog_enabled(PLOG_FRAME))
                line_describe(&t->frame, desc, sizeof desc);
        n = write(l->fd, t->bytes, t->len);
        if (n != (ssize_t) t->len) {
                l->stats.frames_overrun++;
                plog(PLOG_FRAME, "pad %u -> line: %s not written (%s)", t->pad, desc,
                     n < 0 ? strerror(errno) : "line full");
                return;
        }
        l->stats.frames_written++;
        plog(PLOG_FRAME, "pad %u -> addr %u seq %u %s%s", t->pad, t->frame.address, t->frame.seq, desc,
             flipped ? " (one bit flipped)" : "");
}

static void line_flush_due(struct line *l) {
        int64_t now = now_usec();

        while (l->queue && l->queue->due_us <= now) {
                struct tx *t = l->queue;
                l->queue = t->next;
                l->n_queued--;
                line_write(l, t);
                free(t);
        }
        line_arm_writer(l);
}

static void line_write_cb(evutil_socket_t fd, short what, void *userdata) {
        (void) fd;
        (void) what;
        line_flush_due(userdata);
}

static void line_arm_writer(struct line *l) {
        event_del(l->write_ev);
        if (l->queue)
                sim_timer_at(l->write_ev, l->queue->due_us);
}

/* The transport: due = send + delay + uniform(0, jitter), but never before
 * this pad's previous frame.  A frame already due is written at once rather
 * than on the next loop turn, so an undelayed SYNC_REPLY leaves with no
 * more latency than the pad itself adds. */
void line_send(struct line *l, unsigned pad, const struct frame *f, int64_t send_us, int64_t delay_us) {
        struct tx *t, **p;
        int n;

        if (l->fd < 0) {
                l->stats.frames_unplugged++;
                return;
        }
        if (rng_chance(&l->rng, l->cfg.drop)) {
                l->stats.frames_dropped++;
                if (plog_enabled(PLOG_FRAME)) {
                        char desc[160];
                        line_describe(f, desc, sizeof desc);
                        plog(PLOG_FRAME, "pad %u -> line: %s dropped", pad, desc);
                }
                return;
        }
        if (l->n_queued >= LINE_MAX_QUEUED) {
                l->stats.frames_overflow++;
                return;
        }
        t = calloc(1, sizeof *t);
        if (!t) {
                l->stats.frames_overflow++;
                return;
        }
        n = frame_encode(f, t->bytes, sizeof t->bytes);
        if (n < 0) {
                plog(PLOG_WARN, "pad %u: cannot encode a %s frame: %s", pad, proto_type_name(f->type), strerror(-n));
                free(t);
                return;
        }
        t->len = (size_t) n;
        t->frame = *f;
        t->pad = pad;
        t->order = l->next_order++;
        if (delay_us < 0) {
                delay_us = l->cfg.delay_us;
                if (l->cfg.jitter_us > 0)
                        delay_us += (int64_t) rng_below(&l->rng, (uint64_t) l->cfg.jitter_us + 1);
        }
        t->due_us = send_us + delay_us;
        if (pad < l->cfg.n_pads) {
                if (t->due_us < l->last_due[pad])
                        t->due_us = l->last_due[pad];
                l->last_due[pad] = t->due_us;
        }
        for (p = &l->queue; *p && (*p)->due_us <= t->due_us; p = &(*p)->next)
                ;
        t->next = *p;
        *p = t;
        l->n_queued++;
        line_flush_due(l);
}

void line_write_garbage(struct line *l, size_t n) {
        uint8_t buf[LINE_READ_CHUNK];
        ssize_t w;

        if (l->fd < 0)
                return;
        if (n > sizeof buf)
                n = sizeof buf;
        for (size_t i = 0; i < n; i++)
                buf[i] = (uint8_t) rng_next(&l->rng);
        w = write(l->fd, buf, n);
        l->stats.garbage_bursts++;
        l->stats.garbage_bytes += w > 0 ? (uint64_t) w : 0;
        plog(PLOG_FRAME, "line: %zu bytes of garbage", n);
}

/* Bursts arrive as a Poisson process of --garbage bursts per second on
 * average, each 1..GARBAGE_MAX_BURST bytes. */
static void line_arm_garbage(struct line *l) {
        double mean_us = (double) USEC_PER_SEC / l->cfg.garbage_rate;

        sim_timer_at(l->garbage_ev, now_usec() + (int64_t) rng_exponential(&l->rng, mean_us));
}

static void line_garbage_cb(evutil_socket_t fd, short what, void *userdata) {
        struct line *l = userdata;

        (void) fd;
        (void) what;
        line_write_garbage(l, 1 + (size_t) rng_below(&l->rng, GARBAGE_MAX_BURST));
        line_arm_garbage(l);
}

uint64_t line_rx_errors(const struct line *l) {
        const struct frame_faults *ft = &l->decoder.faults;

        return l->rx_errors_before + ft->overlong + ft->cobs + ft->short_frame + ft->crc + ft->version +
               ft->unknown_type + ft->bad_length;
}

void line_log_stats(const struct line *l) {
        const struct line_stats *s = &l->stats;

        plog(PLOG_INFO, "line: %" PRIu64 " frames written, %" PRIu64 " dropped, %" PRIu64 " bit-flipped, %"
             PRIu64 " lost unplugged, %" PRIu64 " not read by the host; %" PRIu64 " garbage bursts (%" PRIu64
             " bytes); %" PRIu64 " frames received, %" PRIu64 " rejected; %" PRIu64 " unplugs",
             s->frames_written, s->frames_dropped, s->frames_flipped, s->frames_unplugged,
             s->frames_overrun + s->frames_overflow, s->garbage_bursts, s->garbage_bytes,
             s->frames_received, line_rx_errors(l), s->unplugs);
}

/* A --link that exists and is not a symlink is somebody's file: refuse
 * rather than rename over it. */
static int check_link(const char *link) {
        struct stat st;

        if (lstat(link, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        return S_ISLNK(st.st_mode) ? 0 : -EEXIST;
}

int line_new(struct event_base *base, const struct line_config *cfg, line_rx_fn fn, void *userdata,
             struct line **ret) {
        struct line *l;
        int r;

        if (cfg->link) {
                r = check_link(cfg->link);
                if (r < 0) {
                        plog(PLOG_WARN, "--link %s: %s", cfg->link,
                             r == -EEXIST ? "exists and is not a symlink" : strerror(-r));
                        return r;
                }
        }
        l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        l->base = base;
        l->cfg = *cfg;
        l->rx_fn = fn;
        l->rx_userdata = userdata;
        l->fd = l->slave_fd = -1;
        frame_decoder_init(&l->decoder);
        rng_seed(&l->rng, cfg->seed, RNG_STREAM_LINE);
        l->last_due = calloc(cfg->n_pads ? cfg->n_pads : 1, sizeof *l->last_due);
        l->write_ev = evtimer_new(base, line_write_cb, l);
        l->replug_ev = evtimer_new(base, line_replug_cb, l);
        l->garbage_ev = evtimer_new(base, line_garbage_cb, l);
        if (!l->last_due || !l->write_ev || !l->replug_ev || !l->garbage_ev) {
                line_free(l);
                return -ENOMEM;
        }
        r = line_open(l);
        if (r < 0) {
                plog(PLOG_WARN, "cannot open %s: %s", cfg->port ? cfg->port : "a pty", strerror(-r));
                line_free(l);
                return r;
        }
        if (cfg->garbage_rate > 0)
                line_arm_garbage(l);
        *ret = l;
        return 0;
}

void line_free(struct line *l) {
        uint64_t dropped = 0;

        if (!l)
                return;
        line_close(l);
        line_drop_queue(l, &dropped);
        if (l->write_ev)
                event_free(l->write_ev);
        if (l->replug_ev)
                event_free(l->replug_ev);
        if (l->garbage_ev)
                event_free(l->garbage_ev);
        free(l->last_due);
        free(l);
}
