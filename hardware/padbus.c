/* hardware/padbus.c — see padbus.h.
 *
 * One timer drives everything that is not a read: SYNCs, heartbeat
 * expiry, host beats and the release of settled presses.  The before-sleep
 * hook re-arms it for the earliest of those deadlines, so an idle bus costs
 * no wake-ups beyond its SYNC schedule.
 */
#include "hardware/padbus.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/ratelimit.h"
#include "common/time.h"
#include "hardware/claim.h"
#include "hardware/serial.h"

/* Kernel device majors of UNIX98 pty slaves (Documentation/admin-guide/devices.txt). */
#define PTY_SLAVE_MAJOR_FIRST 136
#define PTY_SLAVE_MAJOR_LAST  143
/* Start, stop and 8 data bits per byte on an 8N1 line. */
#define BITS_PER_BYTE 10
/* A fresh pad is synced this often until its model has enough samples. */
#define SYNC_FAST_INTERVAL_USEC (100 * USEC_PER_MSEC)
#define SYNC_FAST_SAMPLES 8
/* An ASSIGN not yet confirmed (no frame from the pad's new address) is
 * sent again this often (docs/protocol.md section 5). */
#define ASSIGN_RESEND_USEC (150 * USEC_PER_MSEC)
/* A SYNC unanswered this long is given up (pads answer at once). */
#define SYNC_TIMEOUT_USEC (100 * USEC_PER_MSEC)
/* The host beats this often so pads can tell the host went away. */
#define HOST_BEAT_USEC (1000 * USEC_PER_MSEC)
/* How many recent event numbers per pad are remembered to spot duplicates:
 * a pad has at most a few unacknowledged events in flight. */
#define EVENT_MEMORY 32
/* Presses per pad whose ACK a consumer holds until they are durable: the
 * judge keeps a few per window, and a pad queues 16 (docs/protocol.md). */
#define HELD_MAX 16
/* Presses waiting out the settle window, across all pads. */
#define PENDING_MAX 256
/* A PRESS frame: header, 7-byte payload, CRC, COBS overhead, delimiter. */
#define PRESS_FRAME_BYTES (PROTO_HEADER_LEN + 7 + PROTO_CRC_LEN + 1 + 1)
/* Full-speed USB serial adapters hand bytes over once per 1 ms frame. */
#define USB_POLL_USEC 1000
/* Identify: blink this long and beep this long. */
#define IDENTIFY_BLINK_MS 3000
#define IDENTIFY_BUZZ_MS 300
/* Identity conflicts, and the presses and frames they make the driver
 * drop, are logged at most this often: a refused device says HELLO every
 * 500 ms, and a hostile one as often as it likes.  The figures of the
 * HTTP server's log of failed requests (api/server.c). */
#define IDENTITY_LOG_BURST 10
#define IDENTITY_LOG_INTERVAL_USEC (60 * USEC_PER_SEC)

struct port;

/* Event numbers accepted from one device, oldest first. */
struct event_window {
        uint16_t no[EVENT_MEMORY];
        unsigned n;
};

/* What the driver keeps of a rival beyond its public view. */
struct rival_state {
        struct port *port;
        struct proto_hello hello;       /* what it said it is */
        struct event_window events;     /* so that a retransmission is not counted twice */
};

/* Lights the host remembers per pad: LIGHT's button is a byte, but a pad
 * has at most 16 buttons (LOCKOUT's mask). */
#define OUTPUT_BUTTONS 16

struct pad_state {
        struct pad pub;                 /* first: &state->pub is the public view */
        struct port *port;
        struct event_window events;
        uint16_t held[HELD_MAX];        /* accepted, not yet ACKed: a consumer holds the ACK */
        unsigned n_held;
        int64_t assign_resend_usec;     /* its ASSIGN is not confirmed: send it again then; 0: confirmed */
        int64_t next_sync_usec;
        uint16_t sync_id;
        int64_t sync_sent_usec;         /* t1 of the outstanding SYNC; 0: none */
        bool sync_answered;             /* the SYNC sync_id was answered: a second answer is a second device */
        unsigned syncs_ok;
        struct rival_state rivals[PAD_RIVALS_MAX];      /* parallel to pub.identity.rivals */
        /* What the host last asked the pad to show, sent again when its
         * rx_errors go up (docs/protocol.md section 6): each light's mode
         * and when it goes off (0: until changed), and the lockout. */
        struct { bool set; uint8_t mode; int64_t off_usec; } lights[OUTPUT_BUTTONS];
        bool lockout_set;
        uint16_t lockout_mask;
        bool have_rx_errors;            /* a HEARTBEAT was heard from it: rx_errors is its count */
        uint16_t rx_errors;
};

/* A device a frame comes from: a pad's own (rival < 0) or one of its
 * rivals; s NULL: none. */
struct device {
        struct pad_state *s;
        int rival;
};

struct port {
        struct padbus_port pub;
        struct padbus *bus;
        int fd;
        struct event *ev;
        struct frame_decoder dec;
        uint16_t tx_seq[256];           /* per destination address, 0xff included (docs/protocol.md
                                         * section 5): from 0 at each open */
        int64_t reopen_at_usec;         /* 0: not waiting */
        int64_t next_beat_usec;
        int64_t tx_idle_usec;           /* the earliest the last byte written can have left the
                                         * line: a frame written before then waits for the ones
                                         * ahead; counted from before each write() (port_write) */
        struct poller poll;             /* pub.rs485: the turns; every frame goes through it */
};

struct padbus {
        struct loop *loop;
        struct padbus_config cfg;
        struct padbus_events events;
        struct port *ports;
        size_t n_ports;
        struct pad_state **pads;        /* never shrinks: pads keep their identity */
        size_t n_pads, cap_pads;
        struct event *timer;
        int hook_id;

        struct pad_press pending[PENDING_MAX];  /* held for the settle window, unsorted */
        size_t n_pending;
        int64_t last_released_usec;     /* time of the newest delivered press */
        uint64_t next_seq;
        uint64_t next_received_no;
        struct pad_press history[PADBUS_HISTORY];       /* ring of delivered presses */
        size_t history_head, history_len;
        struct ratelimit conflict_log;  /* conflicts begun, devices joining one */
        struct ratelimit drop_log;      /* presses dropped and frames refused */
};

const char *pad_kind_to_string(uint8_t kind) {
        switch (kind) {
        case PROTO_KIND_BUTTONS: return "buttons";
        case PROTO_KIND_SLAP:    return "slap";
        case PROTO_KIND_REFEREE: return "referee";
        default:                 return "unknown";
        }
}

static int64_t wall_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* Time a frame of n encoded bytes spends on the wire: none on a pty
 * unless [pads] pty_wire_time says it stands for a line. */
static int64_t wire_usec(const struct port *p, size_t n) {
        if (!p->pub.wire_time)
                return 0;
        return (int64_t) n * BITS_PER_BYTE * USEC_PER_SEC / p->bus->cfg.baud;
}

int64_t padbus_settle_us(int64_t configured_us, unsigned baud, bool wire_time, unsigned rs485_margin_us,
                         unsigned n_pads) {
        int64_t need;

        if (baud == 0 || n_pads == 0)
                return configured_us;
        if (rs485_margin_us)
                need = poller_cycle_usec(baud, rs485_margin_us, n_pads) + USB_POLL_USEC;
        else if (wire_time)
                need = (int64_t) n_pads * PRESS_FRAME_BYTES * BITS_PER_BYTE * USEC_PER_SEC / baud + USB_POLL_USEC;
        else
                return configured_us;
        return need > configured_us ? need : configured_us;
}

/* The widest settle window any open port needs now. */
static int64_t effective_settle(const struct padbus *b);

/* ---- sending ------------------------------------------------------------ */

static void frame_written(struct port *p, const struct frame *f);

/* Writes one frame to f->address now (on RS-485 after the 0x00 every
 * transmission starts with: docs/protocol.md section 4); frames are tiny,
 * so a full kernel buffer means the device is stuck: drop and count.
 * Returns the bytes written or -errno. */
static int port_write(struct port *p, struct frame *f) {
        uint8_t buf[1 + PROTO_MAX_ENCODED];
        size_t lead = p->pub.rs485;
        int n;

        if (p->fd < 0)
                return -ENOTCONN;
        f->version = PROTO_VERSION;
        f->seq = p->tx_seq[f->address]++;
        buf[0] = 0;
        n = frame_encode(f, buf + lead, sizeof buf - lead);
        if (n < 0)
                return n;
        n += (int) lead;
        /* Read before write(), not after: the device may have the bytes
         * before the call returns (a pad on the other CPU reads them while
         * this thread is preempted on its way out of the kernel), and a
         * SYNC's t0 must be no later than the pad's rx_time, or the sample
         * claims a round trip shorter than it was and an error bound its
         * error exceeds (hardware/clock.h, THE MODEL). */
        int64_t handed = now_usec();
        if (write(p->fd, buf, (size_t) n) != n) {
                p->pub.tx_dropped++;
                return -errno ? -errno : -EIO;
        }
        p->tx_idle_usec = (p->tx_idle_usec > handed ? p->tx_idle_usec : handed) + wire_usec(p, (size_t) n);
        p->pub.tx_frames++;
        frame_written(p, f);
        return n;
}

/* Sends one frame to address: at once on a full-duplex line; on an RS-485
 * bus it waits in the poller's queue for that device's turn (port_pump()).
 * Returns the bytes written, 0 when queued, or -errno. */
static int port_send(struct port *p, uint8_t address, struct frame *f) {
        if (p->fd < 0)
                return -ENOTCONN;
        f->address = address;
        if (!p->pub.rs485)
                return port_write(p, f);
        int r = poller_queue(&p->poll, f);
        p->pub.polling = p->poll.counters;
        if (r < 0)
                p->pub.tx_dropped++;
        return r;
}

/* Writes whatever the bus's turns want now. */
static void port_pump(struct port *p, int64_t now) {
        struct frame f;
        int64_t wake;

        while (p->fd >= 0 && poller_next(&p->poll, now, &f, &wake))
                port_write(p, &f);
        p->pub.polling = p->poll.counters;
}

static void send_ack_to(struct port *p, uint8_t address, uint16_t event_no) {
        struct frame f;
        proto_pack_ack(&f, &(struct proto_ack) { .event_no = event_no });
        port_send(p, address, &f);
}

static void send_ack(struct pad_state *s, uint16_t event_no) {
        send_ack_to(s->port, s->pub.address, event_no);
}

static void send_reset(struct port *p, uint8_t address) {
        struct frame f;
        proto_pack_empty(&f, PROTO_RESET);
        port_send(p, address, &f);
}

static void send_sync(struct padbus *b, struct pad_state *s, int64_t now) {
        struct frame f;
        int n;

        s->sync_id++;
        s->sync_answered = false;
        proto_pack_sync(&f, &(struct proto_sync) { .sync_id = s->sync_id });
        n = port_send(s->port, s->pub.address, &f);
        if (n < 0)
                return;
        s->pub.counters.syncs_sent++;   /* t0 is set when it is written: frame_written() */
        s->next_sync_usec = now + (s->syncs_ok < SYNC_FAST_SAMPLES
                                           ? SYNC_FAST_INTERVAL_USEC
                                           : (int64_t) b->cfg.sync_interval_ms * USEC_PER_MSEC);
}

/* ---- the registry ------------------------------------------------------- */

static const struct device NO_DEVICE = { NULL, -1 };

static struct pad_state *find_by_uid(struct padbus *b, uint64_t uid) {
        for (size_t i = 0; i < b->n_pads; i++)
                if (b->pads[i]->pub.uid == uid)
                        return b->pads[i];
        return NULL;
}

/* The device at address on port p: a pad's own before any rival (a rival
 * on the same line shares its pad's address, and is never found here). */
static struct device find_device(struct padbus *b, const struct port *p, uint8_t address) {
        for (size_t i = 0; i < b->n_pads; i++)
                if (b->pads[i]->port == p && b->pads[i]->pub.address == address)
                        return (struct device) { b->pads[i], -1 };
        for (size_t i = 0; i < b->n_pads; i++) {
                struct pad_state *s = b->pads[i];
                for (unsigned k = 0; k < s->pub.identity.n_rivals; k++)
                        if (s->rivals[k].port == p && s->pub.identity.rivals[k].address == address)
                                return (struct device) { s, (int) k };
        }
        return NO_DEVICE;
}

/* A frame has just been written to the line.  A SYNC's t0 is the earliest
 * its delimiter, the byte the pad stamps, can have left: after whatever was
 * written before it (docs/protocol.md section 8). */
static void frame_written(struct port *p, const struct frame *f) {
        if (f->type != PROTO_SYNC)
                return;
        struct device d = find_device(p->bus, p, f->address);
        if (d.s && d.rival < 0)
                d.s->sync_sent_usec = p->tx_idle_usec;
}

/* The devices on an RS-485 bus the poller gives turns to: every pad and
 * every contesting rival with an address there (poller_devices_fn).  A
 * refused device was told to forget its address; a rival on its pad's
 * own line shares the pad's. */
static size_t port_devices(void *userdata, struct poller_device out[POLLER_DEVICES_MAX]) {
        const struct port *p = userdata;
        const struct padbus *b = p->bus;
        size_t n = 0;

        for (size_t i = 0; i < b->n_pads; i++) {
                const struct pad_state *s = b->pads[i];
                if (s->port == p && s->pub.address && n < POLLER_DEVICES_MAX)
                        out[n++] = (struct poller_device) { s->pub.address, s->pub.connected };
                for (unsigned k = 0; k < s->pub.identity.n_rivals; k++) {
                        const struct pad_rival *r = &s->pub.identity.rivals[k];
                        if (s->rivals[k].port == p && r->address && !r->refused && !r->same_line &&
                            n < POLLER_DEVICES_MAX)
                                out[n++] = (struct poller_device) { r->address, r->connected };
                }
        }
        return n;
}

static uint8_t free_address(struct padbus *b, const struct port *p, uint8_t wanted) {
        if (wanted >= 1 && wanted <= PROTO_ADDR_MAX && !find_device(b, p, wanted).s)
                return wanted;
        for (unsigned a = 1; a <= PROTO_ADDR_MAX; a++)
                if (!find_device(b, p, (uint8_t) a).s)
                        return (uint8_t) a;
        return 0;
}

static void set_connected(struct padbus *b, struct pad_state *s, bool connected) {
        if (s->pub.connected == connected)
                return;
        s->pub.connected = connected;
        if (connected) {
                log_info("pad %s (%s, %u buttons) on %s at address %u", s->pub.id,
                         pad_kind_to_string(s->pub.kind), s->pub.n_buttons, s->port->pub.path,
                         s->pub.address);
                if (b->events.added)
                        b->events.added(b->events.userdata, &s->pub);
        } else {
                log_info("pad %s disconnected", s->pub.id);
                if (b->events.removed)
                        b->events.removed(b->events.userdata, &s->pub);
        }
}

static struct pad_state *pad_new(struct padbus *b, const struct proto_hello *h) {
        struct pad_state *s;

        if (b->n_pads == b->cap_pads) {
                size_t cap = b->cap_pads ? 2 * b->cap_pads : 16;
                struct pad_state **pads = realloc(b->pads, cap * sizeof *pads);
                if (!pads)
                        return NULL;
                b->pads = pads;
                b->cap_pads = cap;
        }
        s = calloc(1, sizeof *s);
        if (!s)
                return NULL;
        s->pub.uid = h->uid;
        snprintf(s->pub.id, sizeof s->pub.id, "%016llx", (unsigned long long) h->uid);
        clock_model_init(&s->pub.clock, h->clock_hz, NULL);
        b->pads[b->n_pads++] = s;
        return s;
}

/* What the pad's own device said it is, as a HELLO. */
static struct proto_hello hello_of(const struct pad_state *s) {
        return (struct proto_hello) { .uid = s->pub.uid, .kind = s->pub.kind, .n_buttons = s->pub.n_buttons,
                                      .fw_major = s->pub.fw_major, .fw_minor = s->pub.fw_minor,
                                      .clock_hz = s->pub.clock_hz };
}

static void send_assign(struct port *p, uint64_t uid, uint8_t address) {
        struct frame a;
        proto_pack_assign(&a, &(struct proto_assign) { .uid = uid, .address = address });
        port_send(p, PROTO_ADDR_BROADCAST, &a);
}

/* The pad's own device said HELLO: (re)assign its address on this port,
 * unless the HELLO comes from the address the pad has there: that is the
 * pad confirming its ASSIGN (docs/protocol.md section 5), and on_frame()
 * takes it as such, as it takes any frame from that address. */
static struct device pad_hello(struct port *p, struct pad_state *s, const struct frame *f,
                               const struct proto_hello *h, int64_t now) {
        struct padbus *b = p->bus;
        bool confirming = f->address != PROTO_ADDR_UNASSIGNED && s->port == p && f->address == s->pub.address;

        if (f->address == PROTO_ADDR_UNASSIGNED || s->pub.clock_hz != h->clock_hz) {
                /* It powered up or was RESET: its event numbers and its
                 * clock start again (docs/protocol.md, "Events"). */
                clock_model_init(&s->pub.clock, h->clock_hz, NULL);
                s->events.n = s->n_held = 0;
                s->syncs_ok = 0;
                s->sync_sent_usec = 0;
                s->sync_answered = false;
        }
        if (!confirming) {
                uint8_t wanted = s->port == p ? s->pub.address : 0;
                s->port = p;
                s->pub.address = 0;     /* not counted by free_address() */
                s->pub.address = free_address(b, p, wanted ? wanted : f->address);
                if (!s->pub.address) {
                        log_error("no free address on %s for pad %s: more than %d pads on one bus",
                                  p->pub.path, s->pub.id, PROTO_ADDR_MAX);
                        s->assign_resend_usec = 0;
                        return (struct device) { s, -1 };
                }
        }
        s->pub.kind = h->kind;
        s->pub.n_buttons = h->n_buttons;
        s->pub.fw_major = h->fw_major;
        s->pub.fw_minor = h->fw_minor;
        s->pub.clock_hz = h->clock_hz;
        s->pub.port = &p->pub;
        if (confirming)
                return (struct device) { s, -1 };

        /* Sent again until the pad is heard from its new address; SYNCs
         * wait for that (tick()). */
        send_assign(p, h->uid, s->pub.address);
        s->assign_resend_usec = now + ASSIGN_RESEND_USEC;
        return (struct device) { s, -1 };
}

/* ---- event numbers ------------------------------------------------------ */

static bool is_held(const struct pad_state *s, uint16_t event_no) {
        for (unsigned i = 0; i < s->n_held; i++)
                if (s->held[i] == event_no)
                        return true;
        return false;
}

/* Whether event_no was held; it is not any more. */
static bool held_remove(struct pad_state *s, uint16_t event_no) {
        for (unsigned i = 0; i < s->n_held; i++)
                if (s->held[i] == event_no) {
                        s->held[i] = s->held[--s->n_held];
                        return true;
                }
        return false;
}

/* Forgets an accepted event number, so that its retransmission is taken
 * as new. */
static void event_forget(struct event_window *w, uint16_t event_no) {
        for (unsigned i = 0; i < w->n; i++)
                if (w->no[i] == event_no) {
                        memmove(&w->no[i], &w->no[i + 1], (w->n - i - 1) * sizeof w->no[0]);
                        w->n--;
                        return;
                }
}

/* Whether the event number was accepted already; remembers it if not.
 * The window is oldest first; the oldest is forgotten when it is full. */
static bool event_seen(struct event_window *w, uint16_t event_no) {
        for (unsigned i = 0; i < w->n; i++)
                if (w->no[i] == event_no)
                        return true;
        if (w->n == EVENT_MEMORY) {
                memmove(&w->no[0], &w->no[1], (EVENT_MEMORY - 1) * sizeof w->no[0]);
                w->n--;
        }
        w->no[w->n++] = event_no;
        return false;
}

/* ---- identity (claim.h) ------------------------------------------------- */

static void log_limited(struct ratelimit *rl, int64_t now, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_limited(struct ratelimit *rl, int64_t now, const char *fmt, ...) {
        char line[512];
        uint64_t held;
        va_list ap;

        if (!ratelimit_below(rl, now, &held))
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        if (held)
                log_warning("%s (%llu more such lines were not logged)", line, (unsigned long long) held);
        else
                log_warning("%s", line);
}

static int port_index(const struct padbus *b, const struct port *p) {
        return p ? (int) (p - b->ports) : -1;
}

static const char *port_name(const struct port *p) {
        return p ? p->pub.path : "no port";
}

/* Heard within the heartbeat timeout, on an open port. */
static bool heard(const struct padbus *b, const struct port *p, int64_t last_seen_usec, int64_t now) {
        return p && p->pub.open && last_seen_usec &&
               now - last_seen_usec <= (int64_t) b->cfg.heartbeat_timeout_ms * USEC_PER_MSEC;
}

static bool pad_live(const struct padbus *b, const struct pad_state *s, int64_t now) {
        return s->pub.connected && heard(b, s->port, s->pub.last_seen_usec, now);
}

static void claim_view(const struct padbus *b, const struct pad_state *s, int64_t now,
                       struct claim_device rivals[PAD_RIVALS_MAX], struct claim_pad *ret) {
        const struct pad_identity *id = &s->pub.identity;

        for (unsigned i = 0; i < id->n_rivals; i++)
                rivals[i] = (struct claim_device) {
                        .port = port_index(b, s->rivals[i].port),
                        .address = id->rivals[i].address,
                        .live = heard(b, s->rivals[i].port, id->rivals[i].last_seen_usec, now),
                        .refused = id->rivals[i].refused,
                };
        *ret = (struct claim_pad) {
                .pad = { .port = port_index(b, s->port), .address = s->pub.address, .live = pad_live(b, s, now) },
                .conflict = id->conflict,
                .rivals = rivals,
                .n_rivals = id->n_rivals,
        };
}

static void identity_changed(struct padbus *b, struct pad_state *s) {
        if (b->events.identity)
                b->events.identity(b->events.userdata, &s->pub);
}

/* Rival slot for a device on p; -ENOSPC when PAD_RIVALS_MAX claim already. */
static int rival_add(struct pad_state *s, struct port *p, const struct proto_hello *h, bool same_line,
                     int64_t now) {
        struct pad_identity *id = &s->pub.identity;
        unsigned i = id->n_rivals;

        if (i == PAD_RIVALS_MAX)
                return -ENOSPC;
        id->rivals[i] = (struct pad_rival) {
                .port = &p->pub,
                .address = same_line ? s->pub.address : 0,
                .connected = true,
                .same_line = same_line,
                .last_seen_usec = now,
                .last_seen_wall_usec = wall_usec(),
        };
        s->rivals[i] = (struct rival_state) { .port = p, .hello = *h };
        id->n_rivals++;
        return (int) i;
}

static void rival_remove(struct pad_state *s, unsigned i) {
        struct pad_identity *id = &s->pub.identity;
        size_t after = id->n_rivals - i - 1;

        memmove(&id->rivals[i], &id->rivals[i + 1], after * sizeof id->rivals[0]);
        memmove(&s->rivals[i], &s->rivals[i + 1], after * sizeof s->rivals[0]);
        id->n_rivals--;
}

/* Rival i made s's uid contested: nothing from it is trusted now. */
static void conflict_begin(struct padbus *b, struct pad_state *s, unsigned i, int64_t now, const char *how) {
        struct pad_identity *id = &s->pub.identity;

        id->conflict = true;
        id->since_usec = now;
        id->since_wall_usec = wall_usec();
        s->pub.counters.conflicts++;
        log_limited(&b->conflict_log, now,
                    "pad %s: identity conflict: %s (on %s at address %u; the pad is on %s at address %u); "
                    "no device is trusted and their presses are dropped until an operator trusts one "
                    "(arbiterctl pads trust %s PORT)",
                    s->pub.id, how, port_name(s->rivals[i].port), id->rivals[i].address, port_name(s->port),
                    s->pub.address, s->pub.id);
}

/* One more device joined s's conflict, or made one. */
static void rival_joined(struct padbus *b, struct pad_state *s, unsigned i, int64_t now, const char *how) {
        struct pad_identity *id = &s->pub.identity;

        if (!id->conflict)
                conflict_begin(b, s, i, now, how);
        else
                log_limited(&b->conflict_log, now,
                            "pad %s: identity conflict: %s (on %s at address %u); %u devices contest it now",
                            s->pub.id, how, port_name(s->rivals[i].port), id->rivals[i].address, id->n_rivals + 1);
        identity_changed(b, s);
}

/* A HELLO from rival i, or from a new device (i == n_rivals) while the
 * pad is there or in conflict: it gets an address, not trust. */
static struct device rival_hello(struct port *p, struct pad_state *s, size_t i, const struct frame *f,
                                 const struct proto_hello *h, int64_t now) {
        struct padbus *b = p->bus;
        struct pad_identity *id = &s->pub.identity;
        bool joined = i == id->n_rivals;

        if (joined) {
                int r = rival_add(s, p, h, false, now);
                if (r < 0) {
                        s->pub.counters.refused_frames++;
                        log_limited(&b->drop_log, now,
                                    "pad %s: more than %d other devices claim it; the one on %s is not assigned",
                                    s->pub.id, PAD_RIVALS_MAX, p->pub.path);
                        return NO_DEVICE;
                }
                i = (size_t) r;
        } else {
                if (f->address == PROTO_ADDR_UNASSIGNED)
                        s->rivals[i].events.n = 0;      /* it restarted */
                s->rivals[i].hello = *h;
        }
        struct pad_rival *r = &id->rivals[i];
        if (!joined && f->address != PROTO_ADDR_UNASSIGNED && f->address == r->address)
                return (struct device) { s, (int) i };  /* it confirms its ASSIGN: not assigned again */
        uint8_t wanted = r->address ? r->address : f->address;
        r->address = 0;                 /* not counted by free_address() */
        r->address = free_address(b, p, wanted);
        if (r->address) {
                send_assign(p, h->uid, r->address);
        } else {
                log_error("no free address on %s for a device claiming pad %s: more than %d devices on one bus",
                          p->pub.path, s->pub.id, PROTO_ADDR_MAX);
        }
        if (joined)
                rival_joined(b, s, (unsigned) i, now, "another device says it is this pad");
        return (struct device) { s, (int) i };
}

/* Which device a HELLO is from (claim.h), and what it gets. */
static struct device on_hello(struct port *p, const struct frame *f, int64_t now) {
        struct padbus *b = p->bus;
        struct claim_device rivals[PAD_RIVALS_MAX];
        struct claim_pad view;
        struct proto_hello h;
        struct pad_state *s;
        size_t i;

        if (proto_unpack_hello(f, &h) < 0)
                return NO_DEVICE;
        if (h.uid == 0 || h.kind < PROTO_KIND_BUTTONS || h.kind > PROTO_KIND_REFEREE || h.n_buttons < 1 ||
            h.n_buttons > PROTO_MAX_BUTTONS) {
                /* docs/protocol.md section 11: no pad is made of it */
                p->pub.bad_hellos++;
                log_limited(&b->drop_log, now, "%s: a HELLO with uid %016llx, kind %u and %u buttons is ignored: "
                            "a pad has a uid other than 0, kind 1 to 3 and 1 to %d buttons (firmware bug?)",
                            port_name(p), (unsigned long long) h.uid, h.kind, h.n_buttons, PROTO_MAX_BUTTONS);
                return NO_DEVICE;
        }
        s = find_by_uid(b, h.uid);
        if (!s) {
                s = pad_new(b, &h);
                if (!s) {
                        log_error("out of memory registering pad %016llx", (unsigned long long) h.uid);
                        return NO_DEVICE;
                }
                return pad_hello(p, s, f, &h, now);
        }
        claim_view(b, s, now, rivals, &view);
        switch (claim_hello(&view, port_index(b, p), f->address, &i)) {
        case CLAIM_PAD:
                return pad_hello(p, s, f, &h, now);
        case CLAIM_MOVE:
                set_connected(b, s, false);     /* gone, if the timer has not said so yet: added again below */
                s->pub.counters.moves++;
                log_info("pad %s moved: gone from %s (address %u) for %lld ms, it says HELLO on %s", s->pub.id,
                         port_name(s->port), s->pub.address,
                         (long long) ((now - s->pub.last_seen_usec) / USEC_PER_MSEC), p->pub.path);
                return pad_hello(p, s, f, &h, now);
        case CLAIM_REFUSED:
                return (struct device) { s, (int) i };  /* on_rival_frame() refuses it */
        case CLAIM_RIVAL:
        case CLAIM_NEW_RIVAL:
                return rival_hello(p, s, i, f, &h, now);
        }
        return NO_DEVICE;
}

/* A press the pad's own device or a rival made while the pad is in
 * conflict: ACKed by the caller, never delivered. */
static void press_dropped(struct padbus *b, struct pad_state *s, const struct port *p, uint8_t address,
                          uint8_t button, int64_t now) {
        s->pub.counters.conflict_presses++;
        log_limited(&b->drop_log, now,
                    "pad %s: press of button %u from the device on %s (address %u) dropped: "
                    "the pad is in an identity conflict", s->pub.id, button, port_name(p), address);
}

/* A frame from rival i of s: contesting, it is watched and its presses
 * dropped; refused, it is told to forget its address. */
static void on_rival_frame(struct padbus *b, struct pad_state *s, unsigned i, const struct frame *f, int64_t now) {
        struct pad_rival *r = &s->pub.identity.rivals[i];
        struct rival_state *rs = &s->rivals[i];
        struct proto_event e;

        r->last_seen_usec = now;
        r->last_seen_wall_usec = wall_usec();
        r->connected = true;
        if (r->refused) {
                r->refused_frames++;
                s->pub.counters.refused_frames++;
                log_limited(&b->drop_log, now,
                            "pad %s: refused a frame from the device on %s (address %u): an operator trusts "
                            "the one on %s", s->pub.id, port_name(rs->port), f->address, port_name(s->port));
                if (f->address != PROTO_ADDR_UNASSIGNED)
                        send_reset(rs->port, f->address);       /* back to HELLO, which is refused */
                return;
        }
        if ((f->type != PROTO_PRESS && f->type != PROTO_RELEASE) || proto_unpack_event(f, &e) < 0)
                return;         /* a heartbeat, a SYNC reply: it is there, nothing more */
        bool seen = event_seen(&rs->events, e.event_no);
        if (f->type == PROTO_PRESS && !seen) {
                r->presses_dropped++;
                press_dropped(b, s, rs->port, r->address, e.button, now);
        }
        send_ack_to(rs->port, r->address, e.event_no);
}

/* Two replies to one SYNC: a second device answers at the pad's address on
 * its line (claim.h).  It is recorded as a rival at the same place. */
static void twin_seen(struct padbus *b, struct pad_state *s, int64_t now) {
        struct pad_identity *id = &s->pub.identity;
        struct proto_hello h = hello_of(s);

        for (unsigned i = 0; i < id->n_rivals; i++)
                if (id->rivals[i].same_line && s->rivals[i].port == s->port) {
                        id->rivals[i].last_seen_usec = now;
                        id->rivals[i].last_seen_wall_usec = wall_usec();
                        id->rivals[i].connected = true;
                        return;
                }
        int r = rival_add(s, s->port, &h, true, now);
        if (r < 0) {
                log_limited(&b->drop_log, now, "pad %s: more than %d other devices claim it; "
                            "one more answers at its address on %s", s->pub.id, PAD_RIVALS_MAX, port_name(s->port));
                return;
        }
        rival_joined(b, s, (unsigned) r, now, "two devices answer one SYNC at the pad's address");
}

/* Rival i of s becomes the pad's own device, and the pad's device rival i. */
static void promote(struct padbus *b, struct pad_state *s, unsigned i, int64_t now) {
        struct pad_identity *id = &s->pub.identity;
        struct pad_rival r = id->rivals[i];
        struct rival_state rs = s->rivals[i];

        id->rivals[i] = (struct pad_rival) {
                .port = &s->port->pub,
                .address = s->pub.address,
                .connected = pad_live(b, s, now),
                .last_seen_usec = s->pub.last_seen_usec,
                .last_seen_wall_usec = s->pub.last_seen_wall_usec,
                .presses_dropped = id->presses_dropped,
        };
        s->rivals[i] = (struct rival_state) { .port = s->port, .hello = hello_of(s), .events = s->events };

        s->port = rs.port;
        s->pub.port = &rs.port->pub;
        s->pub.address = r.address;
        s->pub.kind = rs.hello.kind;
        s->pub.n_buttons = rs.hello.n_buttons;
        s->pub.fw_major = rs.hello.fw_major;
        s->pub.fw_minor = rs.hello.fw_minor;
        s->pub.clock_hz = rs.hello.clock_hz;
        s->pub.last_seen_usec = r.last_seen_usec;
        s->pub.last_seen_wall_usec = r.last_seen_wall_usec;
        id->presses_dropped = r.presses_dropped;
        /* Another device: its own event numbers and clock.  An ACK a
         * consumer still holds was for the other one: padbus_ack() then
         * sends nothing. */
        clock_model_init(&s->pub.clock, rs.hello.clock_hz, NULL);
        s->events = rs.events;
        s->n_held = 0;
        s->syncs_ok = 0;
        s->sync_sent_usec = 0;
        s->sync_answered = false;
        s->assign_resend_usec = 0;      /* it was heard from its address */
        s->next_sync_usec = 0;
}

/* Refused rivals that went silent past the heartbeat timeout are
 * forgotten; the others' connected is brought up to date. */
static void rivals_expire(struct padbus *b, struct pad_state *s, int64_t now) {
        struct pad_identity *id = &s->pub.identity;
        bool changed = false;

        for (unsigned k = id->n_rivals; k-- > 0;) {
                struct pad_rival *r = &id->rivals[k];
                r->connected = heard(b, s->rivals[k].port, r->last_seen_usec, now);
                if (r->connected || !r->refused)
                        continue;
                log_info("pad %s: the refused device on %s (address %u) went away", s->pub.id,
                         port_name(s->rivals[k].port), r->address);
                rival_remove(s, k);
                changed = true;
        }
        if (changed)
                identity_changed(b, s);
}

/* ---- presses ------------------------------------------------------------ */

static void history_add(struct padbus *b, const struct pad_press *p) {
        b->history[b->history_head] = *p;
        b->history_head = (b->history_head + 1) % PADBUS_HISTORY;
        if (b->history_len < PADBUS_HISTORY)
                b->history_len++;
}

static void deliver(struct padbus *b, struct pad_press *p) {
        p->seq = ++b->next_seq;
        if (p->time_usec < b->last_released_usec) {
                p->late = true;
                ((struct pad_state *) p->pad)->pub.counters.late_presses++;
                log_warning("press on pad %s button %u arrived %lld µs after the settle window; "
                            "delivered out of order (raise [pads] settle_window?)",
                            p->pad->id, p->button,
                            (long long) (b->last_released_usec - p->time_usec));
        } else {
                b->last_released_usec = p->time_usec;
        }
        ((struct pad_state *) p->pad)->pub.counters.presses++;
        history_add(b, p);
        if (b->events.pressed)
                b->events.pressed(b->events.userdata, p);
}

static int64_t effective_settle(const struct padbus *b) {
        int64_t settle = b->cfg.settle_us;

        for (size_t i = 0; i < b->n_ports; i++) {
                const struct port *p = &b->ports[i];
                unsigned n = 0;
                if (!p->pub.open)
                        continue;
                if (p->pub.rs485) {
                        struct poller_device d[POLLER_DEVICES_MAX];
                        size_t m = port_devices((void *) p, d);
                        for (size_t k = 0; k < m; k++)
                                n += d[k].connected;
                } else {
                        for (size_t k = 0; k < b->n_pads; k++)
                                n += b->pads[k]->port == p && b->pads[k]->pub.connected;
                }
                int64_t s = padbus_settle_us(b->cfg.settle_us, b->cfg.baud, p->pub.wire_time,
                                             p->pub.rs485 ? b->cfg.rs485_reply_margin_us : 0, n);
                if (s > settle)
                        settle = s;
        }
        return settle;
}

/* Delivers, oldest first, every pending press whose settle window is over. */
static void release_settled(struct padbus *b, int64_t now) {
        int64_t settle = effective_settle(b);

        for (;;) {
                size_t best = b->n_pending;
                for (size_t i = 0; i < b->n_pending; i++)
                        if (best == b->n_pending || b->pending[i].time_usec < b->pending[best].time_usec)
                                best = i;
                if (best == b->n_pending || b->pending[best].time_usec + settle > now)
                        return;
                struct pad_press p = b->pending[best];
                b->pending[best] = b->pending[--b->n_pending];
                deliver(b, &p);
        }
}

static void on_event(struct pad_state *s, const struct frame *f, int64_t now) {
        struct padbus *b = s->port->bus;
        struct proto_event e;
        struct pad_press p = { .pad = &s->pub };
        int r;

        if (proto_unpack_event(f, &e) < 0)
                return;
        if (event_seen(&s->events, e.event_no)) {
                /* Our ACK was lost, or the event is not durable yet: then
                 * the consumer's ACK is still to come. */
                s->pub.counters.duplicates++;
                if (!is_held(s, e.event_no))
                        send_ack(s, e.event_no);
                return;
        }
        if (f->type == PROTO_RELEASE) {
                s->pub.counters.releases++;
                send_ack(s, e.event_no);
                return;
        }
        if (e.button >= s->pub.n_buttons) {
                send_ack(s, e.event_no);
                s->pub.counters.bad_buttons++;
                log_warning("pad %s reported button %u but announced %u buttons; ignored (firmware bug?)",
                            s->pub.id, e.button, s->pub.n_buttons);
                return;
        }
        if (s->pub.identity.conflict) {
                /* ACKed and dropped (padbus.h, "Identity") */
                s->pub.identity.presses_dropped++;
                press_dropped(b, s, s->port, s->pub.address, e.button, now);
                send_ack(s, e.event_no);
                return;
        }

        p.button = e.button;
        p.event_no = e.event_no;
        p.received_usec = now;
        r = clock_model_to_host(&s->pub.clock, e.pad_time, &p.time_usec, &p.uncertainty_usec);
        if (r < 0) {
                /* no clock, or not synced yet: the model subtracts the
                 * transport's typical delay and widens the bound to its jitter */
                clock_model_receive_time(&s->pub.clock, now, &p.time_usec, &p.uncertainty_usec);
                p.clock_fallback = true;
        } else {
                /* The stamp came up to PROTO_STAMP_LATENCY_US after the edge,
                 * and the SYNCs' rx stamps as late: the press is at most that
                 * much earlier than its stamp maps to, and the model's offset
                 * at most half of it later. */
                p.uncertainty_usec += PROTO_STAMP_LATENCY_US;
        }
        p.received_no = ++b->next_received_no;
        /* Held before the consumer sees it: the consumer may make the press
         * durable, and call padbus_ack(), before it returns. */
        bool room = s->n_held < HELD_MAX;
        if (room)
                s->held[s->n_held++] = e.event_no;
        bool hold = b->events.received && b->events.received(b->events.userdata, &p);
        if (!room || (!hold && held_remove(s, e.event_no)))
                send_ack(s, e.event_no);
        if (b->n_pending == PENDING_MAX) {
                release_settled(b, INT64_MAX);  /* cannot hold more: deliver what we have */
        }
        b->pending[b->n_pending++] = p;
}

static void on_sync_reply(struct pad_state *s, const struct frame *f, int64_t now) {
        struct proto_sync_reply m;

        if (proto_unpack_sync_reply(f, &m) < 0)
                return;
        if (!s->sync_sent_usec && s->sync_answered && m.sync_id == s->sync_id) {
                /* A pad answers a SYNC once: this is a second device. */
                twin_seen(s->port->bus, s, now);
                return;
        }
        if (!s->sync_sent_usec || m.sync_id != s->sync_id)
                return;         /* late reply to a SYNC given up on */
        /* The reply's delimiter arrives a wire time after its first byte left. */
        int64_t t4 = now - wire_usec(s->port, PROTO_HEADER_LEN + 10 + PROTO_CRC_LEN + 2);
        int v = clock_model_add_sync(&s->pub.clock, s->sync_sent_usec, t4, m.rx_time, m.tx_time);
        if (v == CLOCK_ACCEPTED)
                s->syncs_ok++;
        else if (v == CLOCK_RESTARTED)
                s->syncs_ok = 1;        /* sync fast again until the new fit is synced */
        s->sync_sent_usec = 0;
        s->sync_answered = true;
        s->pub.counters.syncs_answered++;
}

/* Whether lights a and b of a pad say the same. */
static bool same_light(const struct pad_state *s, unsigned a, unsigned b) {
        return s->lights[a].set == s->lights[b].set && s->lights[a].mode == s->lights[b].mode &&
               s->lights[a].off_usec == s->lights[b].off_usec;
}

/* The pad dropped frames from the host (its rx_errors went up): its lockout
 * and lights may not be what the host asked for, so they are sent again —
 * each light still meant to be shown, with what is left of its duration;
 * lights asked to go off, or to stay until changed, as they were asked.
 * Lights all alike (the usual case: LIGHT 0xff) go as one frame, which on
 * an RS-485 bus is one turn, not one per button. */
static void outputs_resend(struct pad_state *s, int64_t now) {
        unsigned n = s->pub.n_buttons < OUTPUT_BUTTONS ? s->pub.n_buttons : OUTPUT_BUTTONS;
        bool alike = n > 0;
        struct frame f;

        if (s->lockout_set) {
                proto_pack_lockout(&f, &(struct proto_lockout) { .button_mask = s->lockout_mask });
                port_send(s->port, s->pub.address, &f);
        }
        for (unsigned i = 1; i < n; i++)
                alike &= same_light(s, 0, i);
        for (unsigned i = 0; i < (alike ? 1 : n); i++) {
                int64_t left = s->lights[i].off_usec - now;

                if (!s->lights[i].set || (s->lights[i].off_usec && left < USEC_PER_MSEC))
                        continue;
                proto_pack_light(&f, &(struct proto_light) {
                        .button = alike ? 0xff : (uint8_t) i, .mode = s->lights[i].mode,
                        .duration_ms = s->lights[i].off_usec ? (uint16_t) (left / USEC_PER_MSEC) : 0 });
                port_send(s->port, s->pub.address, &f);
        }
}

static void on_frame(void *userdata, const struct frame *f) {
        struct port *p = userdata;
        struct padbus *b = p->bus;
        int64_t now = now_usec();
        struct device d;
        struct pad_state *s;

        if (f->type >= 0x80)
                return;         /* our own frames echoed by an RS-485 transceiver */
        if (p->pub.rs485)
                poller_heard(&p->poll, now, f->address);        /* the answer to its turn, maybe */
        if (f->type == PROTO_HELLO) {
                d = on_hello(p, f, now);
        } else {
                d = find_device(b, p, f->address);
                if (!d.s) {
                        /* A pad we lost track of (we restarted, it kept its
                         * address): ask it to introduce itself again. */
                        send_reset(p, f->address);
                        return;
                }
        }
        if (!d.s)
                return;
        if (d.rival >= 0) {
                on_rival_frame(b, d.s, (unsigned) d.rival, f, now);
                return;
        }
        s = d.s;
        s->pub.counters.frames++;
        s->pub.last_seen_usec = now;
        s->pub.last_seen_wall_usec = wall_usec();
        if (s->pub.connected == false && s->pub.address) {
                if (s->pub.counters.frames > 1)
                        s->pub.counters.reconnects++;
                set_connected(b, s, true);
        }
        if (s->assign_resend_usec && f->address != PROTO_ADDR_UNASSIGNED && f->address == s->pub.address &&
            s->port == p) {
                /* Any frame from its new address confirms the ASSIGN
                 * (docs/protocol.md section 5): the first SYNC follows. */
                s->assign_resend_usec = 0;
                s->next_sync_usec = 0;
        }

        switch (f->type) {
        case PROTO_PRESS:
        case PROTO_RELEASE:
                on_event(s, f, now);
                break;
        case PROTO_SYNC_REPLY:
                on_sync_reply(s, f, now);
                break;
        case PROTO_HEARTBEAT: {
                struct proto_heartbeat h;
                if (proto_unpack_heartbeat(f, &h) == 0) {
                        s->pub.counters.pad_rx_errors = h.rx_errors;
                        if (s->have_rx_errors && h.rx_errors != s->rx_errors)
                                outputs_resend(s, now);
                        s->have_rx_errors = true;
                        s->rx_errors = h.rx_errors;
                }
                break;
        }
        default:
                break;          /* host-bound types only; the decoder checked the rest */
        }
}

/* ---- ports -------------------------------------------------------------- */

static void port_close(struct port *p, const char *why) {
        struct padbus *b = p->bus;

        if (p->ev) {
                event_free(p->ev);
                p->ev = NULL;
        }
        if (p->fd >= 0) {
                close(p->fd);
                p->fd = -1;
                log_warning("pad port %s closed: %s; trying again every %u ms", p->pub.path, why,
                            b->cfg.reopen_ms);
        }
        p->pub.open = false;
        snprintf(p->pub.last_error, sizeof p->pub.last_error, "%s", why);
        p->reopen_at_usec = now_usec() + (int64_t) b->cfg.reopen_ms * USEC_PER_MSEC;
        for (size_t i = 0; i < b->n_pads; i++) {
                if (b->pads[i]->port == p) {
                        b->pads[i]->sync_sent_usec = 0;
                        set_connected(b, b->pads[i], false);
                }
                rivals_expire(b, b->pads[i], now_usec());       /* its devices on p are gone */
        }
}

/* Candidates that ended on the line but did not decode: noise, or two
 * pads' frames on top of each other. */
static uint64_t faults_garbled(const struct frame_faults *f) {
        return f->overlong + f->cobs + f->short_frame + f->crc + f->version + f->unknown_type + f->bad_length;
}

/* Reads and handles what the port has; false when it closed. */
static bool port_read(struct port *p) {
        uint8_t buf[4096];

        for (;;) {
                ssize_t n = read(p->fd, buf, sizeof buf);
                if (n > 0) {
                        uint64_t bad = faults_garbled(&p->dec.faults);
                        frame_decoder_feed(&p->dec, buf, (size_t) n, on_frame, p);
                        p->pub.faults = p->dec.faults;
                        if (p->pub.rs485 && faults_garbled(&p->dec.faults) != bad)
                                poller_garbled(&p->poll, now_usec());
                        if ((size_t) n < sizeof buf)
                                return true;
                        continue;
                }
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        return true;
                /* 0: the other end hung up; EIO: a pty whose master closed or
                 * a USB adapter that was pulled */
                port_close(p, n == 0 ? "hung up" : strerror(errno));
                return false;
        }
}

static void on_readable(evutil_socket_t fd, short what, void *userdata) {
        struct port *p = userdata;

        (void) fd, (void) what;
        if (port_read(p) && p->pub.rs485)
                port_pump(p, now_usec());       /* the answer came: the next turn */
}

static bool path_is_pty(int fd) {
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
                return false;
        unsigned maj = major(st.st_rdev);
        return maj >= PTY_SLAVE_MAJOR_FIRST && maj <= PTY_SLAVE_MAJOR_LAST;
}

static void port_open(struct port *p) {
        struct padbus *b = p->bus;
        bool low_latency = false;
        int fd = serial_open(p->pub.path, b->cfg.baud, &low_latency);

        if (fd < 0) {
                if (p->pub.opens == 0 && !p->pub.last_error[0])
                        log_warning("cannot open pad port %s: %s; trying again every %u ms", p->pub.path,
                                    strerror(-fd), b->cfg.reopen_ms);
                snprintf(p->pub.last_error, sizeof p->pub.last_error, "%s", strerror(-fd));
                p->reopen_at_usec = now_usec() + (int64_t) b->cfg.reopen_ms * USEC_PER_MSEC;
                return;
        }
        p->ev = event_new(loop_base(b->loop), fd, EV_READ | EV_PERSIST, on_readable, p);
        if (p->ev)
                loop_set_urgent(p->ev);
        if (!p->ev || event_add(p->ev, NULL) < 0) {
                close(fd);
                log_error("out of memory watching pad port %s", p->pub.path);
                return;
        }
        p->fd = fd;
        p->pub.open = true;
        p->pub.low_latency = low_latency;
        p->pub.is_pty = path_is_pty(fd);
        p->pub.wire_time = !p->pub.is_pty || b->cfg.pty_wire_time;
        p->pub.opens++;
        p->tx_idle_usec = 0;
        p->pub.last_error[0] = '\0';
        p->reopen_at_usec = 0;
        frame_decoder_init(&p->dec);
        p->dec.faults = p->pub.faults;  /* counters run across reopens */
        memset(p->tx_seq, 0, sizeof p->tx_seq);
        if (p->pub.rs485)
                poller_start(&p->poll, now_usec(), p->pub.wire_time);   /* nothing queued while closed */
        log_info("pad port %s open at %u baud%s%s%s", p->pub.path, b->cfg.baud,
                 !p->pub.is_pty ? "" : p->pub.wire_time ? " (a pseudo-terminal, with the line's wire time)"
                                                        : " (a pseudo-terminal)",
                 low_latency ? ", low latency" : "", p->pub.rs485 ? ", an RS-485 bus: polled" : "");
        /* Pads that kept their address may not HELLO again: ask them to. */
        struct frame r;
        proto_pack_empty(&r, PROTO_RESET);
        if (p->pub.opens == 1)
                port_send(p, PROTO_ADDR_BROADCAST, &r);
}

/* ---- the timer ---------------------------------------------------------- */

static void tick(struct padbus *b, int64_t now) {
        int64_t timeout = (int64_t) b->cfg.heartbeat_timeout_ms * USEC_PER_MSEC;

        for (size_t i = 0; i < b->n_ports; i++) {
                struct port *p = &b->ports[i];
                if (!p->pub.open && p->reopen_at_usec && now >= p->reopen_at_usec)
                        port_open(p);
                /* On a bus the polls are the host's beats (docs/protocol.md section 9). */
                if (p->pub.open && !p->pub.rs485 && now >= p->next_beat_usec) {
                        struct frame f;
                        proto_pack_empty(&f, PROTO_HOST_BEAT);
                        port_send(p, PROTO_ADDR_BROADCAST, &f);
                        p->next_beat_usec = now + HOST_BEAT_USEC;
                }
        }
        for (size_t i = 0; i < b->n_pads; i++) {
                struct pad_state *s = b->pads[i];
                if (s->pub.identity.n_rivals)
                        rivals_expire(b, s, now);
                if (!s->pub.connected)
                        continue;
                if (now - s->pub.last_seen_usec > timeout) {
                        set_connected(b, s, false);
                        continue;
                }
                if (s->sync_sent_usec && now - s->sync_sent_usec > SYNC_TIMEOUT_USEC) {
                        s->sync_sent_usec = 0;
                        s->pub.counters.sync_timeouts++;
                }
                if (s->assign_resend_usec) {
                        if (now >= s->assign_resend_usec) {
                                send_assign(s->port, s->pub.uid, s->pub.address);
                                s->assign_resend_usec = now + ASSIGN_RESEND_USEC;
                        }
                        continue;       /* no SYNC before the pad has its address */
                }
                if (!s->sync_sent_usec && now >= s->next_sync_usec && s->pub.clock_hz)
                        send_sync(b, s, now);
        }
        /* A bus's next turn, once what it has said is read: an answer
         * that came while the loop was busy ends its turn, rather than
         * the turn's deadline writing over it. */
        for (size_t i = 0; i < b->n_ports; i++) {
                struct port *p = &b->ports[i];
                int avail = 0;
                if (!p->pub.open || !p->pub.rs485)
                        continue;
                /* Only when there are bytes: a raw tty's read() returns 0
                 * when there are none, which on_readable takes for a hang-up. */
                if (ioctl(p->fd, FIONREAD, &avail) == 0 && avail > 0 && !port_read(p))
                        continue;
                port_pump(p, now_usec());
        }
        release_settled(b, now);
}

static void on_timer(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        struct padbus *b = userdata;
        tick(b, now_usec());
}

static int64_t next_deadline(const struct padbus *b, int64_t now) {
        int64_t next = INT64_MAX;
#define EARLIER(t) do { if ((t) < next) next = (t); } while (0)
        for (size_t i = 0; i < b->n_ports; i++) {
                const struct port *p = &b->ports[i];
                if (!p->pub.open && p->reopen_at_usec)
                        EARLIER(p->reopen_at_usec);
                if (p->pub.open && p->pub.rs485)
                        EARLIER(poller_wake(&p->poll));
                else if (p->pub.open)
                        EARLIER(p->next_beat_usec);
        }
        for (size_t i = 0; i < b->n_pads; i++) {
                const struct pad_state *s = b->pads[i];
                for (unsigned k = 0; k < s->pub.identity.n_rivals; k++)
                        if (s->pub.identity.rivals[k].connected)
                                EARLIER(s->pub.identity.rivals[k].last_seen_usec +
                                        (int64_t) b->cfg.heartbeat_timeout_ms * USEC_PER_MSEC + 1);
                if (!s->pub.connected)
                        continue;
                EARLIER(s->pub.last_seen_usec + (int64_t) b->cfg.heartbeat_timeout_ms * USEC_PER_MSEC + 1);
                if (s->assign_resend_usec)
                        EARLIER(s->assign_resend_usec);
                else if (s->sync_sent_usec)
                        EARLIER(s->sync_sent_usec + SYNC_TIMEOUT_USEC + 1);
                else if (s->pub.clock_hz)
                        EARLIER(s->next_sync_usec);
        }
        int64_t settle = b->n_pending ? effective_settle(b) : 0;
        for (size_t i = 0; i < b->n_pending; i++)
                EARLIER(b->pending[i].time_usec + settle);
#undef EARLIER
        return next < now ? now : next;
}

static void before_sleep(void *userdata) {
        struct padbus *b = userdata;
        int64_t now = now_usec(), next = next_deadline(b, now);

        if (next == INT64_MAX) {
                evtimer_del(b->timer);
                return;
        }
        struct timeval tv = usec_to_timeval(next - now);
        evtimer_add(b->timer, &tv);
}

/* ---- life --------------------------------------------------------------- */

static int parse_ports(struct padbus *b, const char *list) {
        const char *s = list ? list : "";

        while (*s) {
                s += strspn(s, " \t");
                size_t n = strcspn(s, " \t");
                if (n == 0)
                        break;
                struct port *ports = realloc(b->ports, (b->n_ports + 1) * sizeof *ports);
                if (!ports)
                        return -ENOMEM;
                b->ports = ports;
                struct port *p = &b->ports[b->n_ports];
                memset(p, 0, sizeof *p);
                p->fd = -1;
                p->pub.path = strndup(s, n);
                if (!p->pub.path)
                        return -ENOMEM;
                b->n_ports++;
                s += n;
        }
        for (size_t i = 0; i < b->n_ports; i++)
                b->ports[i].bus = b;    /* after the last realloc */
        return 0;
}

/* Marks the ports named in list as RS-485 buses; -EINVAL when one is not
 * among the ports. */
static int parse_rs485(struct padbus *b, const char *list) {
        const char *s = list ? list : "";

        while (*s) {
                s += strspn(s, " \t");
                size_t n = strcspn(s, " \t"), i;
                if (n == 0)
                        break;
                for (i = 0; i < b->n_ports; i++)
                        if (strlen(b->ports[i].pub.path) == n && strncmp(b->ports[i].pub.path, s, n) == 0)
                                break;
                if (i == b->n_ports)
                        return log_error_errno(EINVAL, "[pads] rs485_ports names %.*s, which is not in [pads] ports",
                                               (int) n, s);
                b->ports[i].pub.rs485 = true;
                s += n;
        }
        for (size_t i = 0; i < b->n_ports; i++)
                poller_init(&b->ports[i].poll, b->cfg.baud, b->cfg.rs485_reply_margin_us, port_devices, &b->ports[i]);
        return 0;
}

int padbus_new(struct loop *loop, const struct padbus_config *cfg, const struct padbus_events *events,
               struct padbus **ret) {
        struct padbus *b;
        int r;

        if (!serial_speed(cfg->baud))
                return log_error_errno(EINVAL, "[pads] baud %u is not a speed the kernel offers "
                                       "(115200, 230400, 460800, 921600, 1000000, 2000000, 3000000 …)",
                                       cfg->baud);
        b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        b->loop = loop;
        b->cfg = *cfg;
        b->cfg.ports = NULL;
        b->cfg.rs485_ports = NULL;
        if (!b->cfg.rs485_reply_margin_us)
                b->cfg.rs485_reply_margin_us = POLLER_REPLY_MARGIN_DEFAULT_USEC;
        if (events)
                b->events = *events;
        b->hook_id = -1;
        b->conflict_log = (struct ratelimit) { .interval_usec = IDENTITY_LOG_INTERVAL_USEC, .burst = IDENTITY_LOG_BURST };
        b->drop_log = b->conflict_log;
        r = parse_ports(b, cfg->ports);
        if (r == 0)
                r = parse_rs485(b, cfg->rs485_ports);
        if (r < 0) {
                padbus_free(b);
                return r;
        }
        b->timer = evtimer_new(loop_base(loop), on_timer, b);
        b->hook_id = loop_add_before_sleep(loop, before_sleep, b);
        if (!b->timer || b->hook_id < 0) {
                padbus_free(b);
                return -ENOMEM;
        }
        for (size_t i = 0; i < b->n_ports; i++)
                port_open(&b->ports[i]);
        *ret = b;
        return 0;
}

void padbus_free(struct padbus *b) {
        if (!b)
                return;
        if (b->hook_id >= 0)
                loop_remove_before_sleep(b->loop, b->hook_id);
        if (b->timer)
                event_free(b->timer);
        for (size_t i = 0; i < b->n_ports; i++) {
                if (b->ports[i].ev)
                        event_free(b->ports[i].ev);
                if (b->ports[i].fd >= 0)
                        close(b->ports[i].fd);
                free(b->ports[i].pub.path);
        }
        free(b->ports);
        for (size_t i = 0; i < b->n_pads; i++)
                free(b->pads[i]);
        free(b->pads);
        free(b);
}

size_t padbus_n_pads(const struct padbus *b) {
        return b ? b->n_pads : 0;
}

const struct pad *padbus_pad(const struct padbus *b, size_t i) {
        return i < b->n_pads ? &b->pads[i]->pub : NULL;
}

const struct pad *padbus_find(const struct padbus *b, const char *id) {
        for (size_t i = 0; b && i < b->n_pads; i++)
                if (strcmp(b->pads[i]->pub.id, id) == 0)
                        return &b->pads[i]->pub;
        return NULL;
}

unsigned padbus_connected(const struct padbus *b) {
        unsigned n = 0;
        for (size_t i = 0; b && i < b->n_pads; i++)
                n += b->pads[i]->pub.connected;
        return n;
}

size_t padbus_n_ports(const struct padbus *b) {
        return b ? b->n_ports : 0;
}

const struct padbus_port *padbus_port(const struct padbus *b, size_t i) {
        return i < b->n_ports ? &b->ports[i].pub : NULL;
}

/* The connected pad called id: 0 with *ret, -ENOENT or -ENOTCONN. */
static int connected_pad(struct padbus *b, const char *id, struct pad_state **ret) {
        for (size_t i = 0; i < b->n_pads; i++)
                if (strcmp(b->pads[i]->pub.id, id) == 0) {
                        if (!b->pads[i]->pub.connected)
                                return -ENOTCONN;
                        *ret = b->pads[i];
                        return 0;
                }
        return -ENOENT;
}

int padbus_ack(struct padbus *b, const struct pad *pad, uint16_t event_no, bool durable) {
        struct pad_state *s = (struct pad_state *) pad;

        (void) b;
        if (!held_remove(s, event_no))
                return -ENOENT;         /* the pad restarted since: its numbers mean other events */
        if (durable)
                send_ack(s, event_no);
        else
                event_forget(&s->events, event_no);
        return 0;
}

int padbus_trust(struct padbus *b, const char *id, const char *port_path, const char *who) {
        struct claim_device rivals[PAD_RIVALS_MAX];
        struct claim_pad view;
        struct pad_state *s = NULL;
        struct port *p = NULL;
        int64_t now = now_usec();
        char refused[256] = "";
        size_t i;
        int r;

        for (size_t k = 0; k < b->n_pads && !s; k++)
                if (strcmp(b->pads[k]->pub.id, id) == 0)
                        s = b->pads[k];
        if (!s)
                return -ENOENT;
        for (size_t k = 0; k < b->n_ports && !p; k++)
                if (strcmp(b->ports[k].pub.path, port_path) == 0)
                        p = &b->ports[k];
        if (!p)
                return -ENODEV;
        claim_view(b, s, now, rivals, &view);
        r = claim_trust(&view, port_index(b, p), &i);
        if (r < 0)
                return r;
        if (i != CLAIM_THE_PAD)
                promote(b, s, (unsigned) i, now);

        struct pad_identity *idn = &s->pub.identity;
        for (unsigned k = idn->n_rivals; k-- > 0;) {
                struct pad_rival *rv = &idn->rivals[k];
                struct port *rp = s->rivals[k].port;
                if (rp == p) {
                        /* On the trusted device's own line: the host cannot
                         * tell it from that device (claim.h).  If two are
                         * still there, their SYNC replies say so again. */
                        rival_remove(s, k);
                        continue;
                }
                if (!rv->refused) {
                        rv->refused = true;
                        rv->refused_frames = 0;
                        if (rv->address && rp->pub.open)
                                send_reset(rp, rv->address);    /* forget the address: HELLOs are refused */
                }
                size_t used = strlen(refused);
                snprintf(refused + used, sizeof refused - used, "%s%s (address %u)", used ? ", " : "",
                         rp->pub.path, rv->address);
        }
        idn->conflict = false;
        idn->trusted_port = &p->pub;
        idn->trusted_wall_usec = wall_usec();
        log_notice("pad %s: %s trusts the device on %s (address %u)%s%s", s->pub.id,
                   who && *who ? who : "an operator", p->pub.path, s->pub.address,
                   refused[0] ? "; refused: " : "", refused);
        set_connected(b, s, s->pub.address && heard(b, s->port, s->pub.last_seen_usec, now));
        rivals_expire(b, s, now);
        identity_changed(b, s);
        return 0;
}

void padbus_stats(const struct padbus *b, struct padbus_stats *ret) {
        *ret = (struct padbus_stats) { 0 };
        for (size_t i = 0; b && i < b->n_pads; i++) {
                const struct pad *p = &b->pads[i]->pub;
                ret->in_conflict += p->identity.conflict;
                for (unsigned k = 0; k < p->identity.n_rivals; k++)
                        ret->refused_devices += p->identity.rivals[k].refused;
                ret->conflicts += p->counters.conflicts;
                ret->conflict_presses += p->counters.conflict_presses;
                ret->refused_frames += p->counters.refused_frames;
                ret->moves += p->counters.moves;
        }
}

int padbus_identify(struct padbus *b, const char *id) {
        struct pad_state *s;
        struct frame f;
        int r = connected_pad(b, id, &s);

        if (r < 0)
                return r;
        proto_pack_light(&f, &(struct proto_light) { .button = 0xff, .mode = PROTO_LIGHT_BLINK,
                                                     .duration_ms = IDENTIFY_BLINK_MS });
        port_send(s->port, s->pub.address, &f);
        proto_pack_buzz(&f, &(struct proto_buzz) { .duration_ms = IDENTIFY_BUZZ_MS });
        port_send(s->port, s->pub.address, &f);
        return 0;
}

int padbus_light(struct padbus *b, const char *id, uint8_t button, uint8_t mode, uint16_t duration_ms) {
        struct pad_state *s;
        struct frame f;
        int r = connected_pad(b, id, &s);

        if (r < 0)
                return r;
        proto_pack_light(&f, &(struct proto_light) { .button = button, .mode = mode, .duration_ms = duration_ms });
        r = port_send(s->port, s->pub.address, &f);
        int64_t off = duration_ms ? now_usec() + (int64_t) duration_ms * USEC_PER_MSEC : 0;
        for (unsigned i = 0; i < OUTPUT_BUTTONS; i++)
                if (button == 0xff || button == i) {
                        s->lights[i].set = true;
                        s->lights[i].mode = mode;
                        s->lights[i].off_usec = off;
                }
        return r < 0 ? r : 0;
}

int padbus_buzz(struct padbus *b, const char *id, uint8_t pattern, uint16_t duration_ms) {
        struct pad_state *s;
        struct frame f;
        int r = connected_pad(b, id, &s);

        if (r < 0)
                return r;
        proto_pack_buzz(&f, &(struct proto_buzz) { .duration_ms = duration_ms, .pattern = pattern });
        r = port_send(s->port, s->pub.address, &f);
        return r < 0 ? r : 0;
}

int padbus_lockout(struct padbus *b, const char *id, uint16_t button_mask) {
        struct pad_state *s;
        struct frame f;
        int r = connected_pad(b, id, &s);

        if (r < 0)
                return r;
        proto_pack_lockout(&f, &(struct proto_lockout) { .button_mask = button_mask });
        r = port_send(s->port, s->pub.address, &f);
        s->lockout_set = true;
        s->lockout_mask = button_mask;
        return r < 0 ? r : 0;
}

int64_t padbus_effective_settle_us(const struct padbus *b) {
        return effective_settle(b);
}

size_t padbus_presses_since(const struct padbus *b, uint64_t after, struct pad_press *out, size_t max) {
        size_t n = 0;
        size_t start = (b->history_head + PADBUS_HISTORY - b->history_len) % PADBUS_HISTORY;

        for (size_t i = 0; i < b->history_len && n < max; i++) {
                const struct pad_press *p = &b->history[(start + i) % PADBUS_HISTORY];
                if (p->seq > after)
                        out[n++] = *p;
        }
        return n;
}
