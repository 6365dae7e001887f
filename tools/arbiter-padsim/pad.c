/* tools/arbiter-padsim/pad.c — see pad.h. */
#include "tools/arbiter-padsim/pad.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <event2/event.h>

#include "common/time.h"
#include "tools/arbiter-padsim/line.h"
#include "tools/arbiter-padsim/plog.h"
#include "tools/arbiter-padsim/rng.h"

/* Protocol timings (hardware/protocol.h, docs/protocol.md). */
#define PAD_HELLO_US            (250 * USEC_PER_MSEC)
/* Each HELLO period is varied by up to ± this, so two pads whose first
 * HELLOs happened to fall close together drift apart instead of colliding
 * on every round, as they would on a real multi-drop bus. */
#define PAD_HELLO_JITTER_US     (10 * USEC_PER_MSEC)
#define PAD_HEARTBEAT_US        (500 * USEC_PER_MSEC)
#define PAD_RETX_FIRST_US       (20 * USEC_PER_MSEC)
#define PAD_RETX_MAX_US         (200 * USEC_PER_MSEC)
/* Broadcast SYNC: reply after address × slot, the slot in units of this. */
#define PAD_SYNC_SLOT_UNIT_US   100
/* The clock rate a pad with a clock announces: it counts microseconds. */
#define PAD_CLOCK_HZ            1000000u
#define PAD_FW_MAJOR            1
#define PAD_FW_MINOR            0
/* Events a pad can hold unacknowledged: a small MCU's ring buffer.  A pad
 * that fills it is talking to a host that is not there; further presses
 * are lost, as they would be. */
#define PAD_MAX_PENDING         64
#define PAD_LIGHT_ALL           0xff

struct pending {
        uint16_t event_no;
        uint8_t type;                   /* PROTO_PRESS or PROTO_RELEASE */
        uint8_t button;
        uint32_t pad_time;
        int64_t first_us;               /* first sent (for the log) */
        int64_t next_us;                /* next retransmission */
        int64_t interval_us;
        unsigned sends;
};

/* The timer that lets go of a button after a press's hold time. */
struct release_timer {
        struct pad *pad;
        unsigned button;
        int64_t due_us;
        struct event *ev;
};

struct pad_stats {
        uint64_t presses, releases;
        uint64_t sends, retransmits, acks, duplicate_acks;
        uint64_t syncs;
        uint64_t locked, ignored;
};

struct pad {
        struct sim *sim;
        unsigned index;
        struct pad_config cfg;
        struct rng rng;

        uint8_t address;                /* PROTO_ADDR_UNASSIGNED until ASSIGN */
        uint16_t seq;                   /* frames sent */
        uint16_t next_event;
        struct pending pending[PAD_MAX_PENDING];        /* in event order */
        unsigned n_pending;

        uint16_t down;                  /* buttons held */
        uint16_t reported;              /* held buttons whose PRESS went out: a RELEASE follows */
        uint16_t locked;                /* LOCKOUT mask */
        struct release_timer release[PROTO_MAX_BUTTONS];

        uint16_t bsync_id;              /* a broadcast SYNC waiting for our slot */
        int64_t bsync_rx_us;

        struct event *hello_ev, *beat_ev, *retx_ev, *bsync_ev;
        struct pad_stats stats;
};

/* pad_time = (host − start) × (1 + drift) + offset + clock_start, modulo
 * 2^32.  Computed in 64 bits so that a negative offset or a start near 2^32
 * wraps the way a free-running counter does. */
uint32_t pad_clock(const struct pad *p, int64_t host_us) {
        int64_t elapsed = host_us - p->sim->start_us;
        int64_t t;

        if (!p->cfg.has_clock)
                return 0;
        t = elapsed + (int64_t) llround((double) elapsed * p->cfg.drift_ppm * 1e-6);
        t += p->cfg.offset_us + (int64_t) p->cfg.clock_start;
        return (uint32_t) (uint64_t) t;
}

bool pad_assigned(const struct pad *p) {
        return p->address != PROTO_ADDR_UNASSIGNED;
}

uint8_t pad_kind(const struct pad *p) {
        return p->cfg.kind;
}

unsigned pad_buttons(const struct pad *p) {
        return p->cfg.n_buttons;
}

static void pad_send(struct pad *p, struct frame *f, int64_t delay_us) {
        f->version = PROTO_VERSION;
        f->address = p->address;
        f->seq = p->seq++;
        p->stats.sends++;
        line_send(p->sim->line, p->index, f, now_usec(), delay_us);
}

static void pad_send_hello(struct pad *p) {
        struct proto_hello m = {
                .uid = p->cfg.uid,
                .kind = p->cfg.kind,
                .n_buttons = p->cfg.n_buttons,
                .fw_major = PAD_FW_MAJOR,
                .fw_minor = PAD_FW_MINOR,
                .clock_hz = p->cfg.has_clock ? PAD_CLOCK_HZ : 0,
        };
        struct frame f = { 0 };

        proto_pack_hello(&f, &m);
        pad_send(p, &f, -1);
}

static void pad_send_heartbeat(struct pad *p) {
        struct proto_heartbeat m = {
                .pad_time = pad_clock(p, now_usec()),
                .pending_events = (uint16_t) p->n_pending,
                .rx_errors = (uint16_t) line_rx_errors(p->sim->line),    /* wraps, like any u16 counter */
        };
        struct frame f = { 0 };

        proto_pack_heartbeat(&f, &m);
        pad_send(p, &f, -1);
}

static void pad_send_event(struct pad *p, struct pending *e, int64_t delay_us) {
        struct proto_event m = { .event_no = e->event_no, .button = e->button, .pad_time = e->pad_time };
        struct frame f = { 0 };

        proto_pack_event(&f, e->type, &m);
        pad_send(p, &f, delay_us);
        e->sends++;
}

/* The SYNC_REPLY's tx_time is stamped as the pad hands the frame to its
 * UART; the transport delay after that (USB latency, the bus) is invisible
 * to the pad and shows up in the host's round-trip time, as it would. */
static void pad_send_sync_reply(struct pad *p, uint16_t sync_id, int64_t rx_us) {
        struct proto_sync_reply m = {
                .sync_id = sync_id,
                .rx_time = pad_clock(p, rx_us),
                .tx_time = pad_clock(p, now_usec()),
        };
        struct frame f = { 0 };

        proto_pack_sync_reply(&f, &m);
        pad_send(p, &f, -1);
        p->stats.syncs++;
}

static void pad_arm_retx(struct pad *p) {
        int64_t next = INT64_MAX;

        event_del(p->retx_ev);
        if (!pad_assigned(p))
                return;
        for (unsigned i = 0; i < p->n_pending; i++)
                if (p->pending[i].next_us < next)
                        next = p->pending[i].next_us;
        if (next != INT64_MAX)
                sim_timer_at(p->retx_ev, next);
}

/* Each pending event backs off on its own schedule: 20, 40, 80, 160, then
 * every 200 ms, from when it was last sent. */
static void pad_retx_cb(evutil_socket_t fd, short what, void *userdata) {
        struct pad *p = userdata;
        int64_t now = now_usec();

        (void) fd;
        (void) what;
        for (unsigned i = 0; i < p->n_pending; i++) {
                struct pending *e = &p->pending[i];
                if (e->next_us > now)
                        continue;
                pad_send_event(p, e, -1);
                p->stats.retransmits++;
                e->interval_us = e->interval_us * 2 > PAD_RETX_MAX_US ? PAD_RETX_MAX_US : e->interval_us * 2;
                e->next_us = now + e->interval_us;
                plog(PLOG_FRAME, "pad %u: retransmitting event %u (send %u)", p->index, e->event_no, e->sends);
        }
        pad_arm_retx(p);
}

/* Sends every pending event again at once, with a fresh back-off: after an
 * ASSIGN the host is known to be listening. */
static void pad_resend_pending(struct pad *p) {
        int64_t now = now_usec();

        for (unsigned i = 0; i < p->n_pending; i++) {
                struct pending *e = &p->pending[i];
                pad_send_event(p, e, -1);
                e->interval_us = PAD_RETX_FIRST_US;
                e->next_us = now + e->interval_us;
        }
        if (p->n_pending > 0)
                plog(PLOG_INFO, "pad %u: resending %u unacknowledged event%s", p->index, p->n_pending,
                     p->n_pending == 1 ? "" : "s");
        pad_arm_retx(p);
}

/* Queues a new event and sends it.  Returns -ENOBUFS when the ring is full. */
static int pad_new_event(struct pad *p, uint8_t type, unsigned button, int64_t at_us, int64_t delay_us) {
        struct pending *e;
        int64_t now = now_usec();

        if (p->n_pending >= PAD_MAX_PENDING)
                return -ENOBUFS;
        e = &p->pending[p->n_pending++];
        *e = (struct pending) {
                .event_no = p->next_event++,
                .type = type,
                .button = (uint8_t) button,
                .pad_time = pad_clock(p, at_us),
                .first_us = now,
                .next_us = now + PAD_RETX_FIRST_US,
                .interval_us = PAD_RETX_FIRST_US,
        };
        /* sent_us: when the event is made and its frame written (unless
         * delayed): after host_us by the simulator's own timer lag. */
        plog_record(true, "%s pad=%u uid=0x%016" PRIx64 " addr=%u button=%u event=%u pad_time=%" PRIu32
                    " host_us=%" PRId64 " sent_us=%" PRId64, type == PROTO_PRESS ? "PRESS" : "RELEASE", p->index,
                    p->cfg.uid, p->address, button, e->event_no, e->pad_time, at_us, now);
        if (pad_assigned(p))
                pad_send_event(p, e, delay_us);
        pad_arm_retx(p);
        return 0;
}

int pad_press(struct pad *p, unsigned button, int64_t press_us, int64_t delay_us, int64_t hold_us) {
        uint16_t bit;
        int r;

        if (button >= p->cfg.n_buttons)
                return -EINVAL;
        bit = (uint16_t) (1u << button);
        if (p->down & bit) {
                /* A script or a key asked for a press while the button is still
                 * held from the last one: the finger came up in between. */
                int64_t up = press_us;
                if (evtimer_pending(p->release[button].ev, NULL) && p->release[button].due_us < up)
                        up = p->release[button].due_us;
                plog(PLOG_FRAME, "pad %u: button %u still down: released first", p->index, button);
                pad_release(p, button, up);
        }
        if (!pad_assigned(p)) {
                p->stats.ignored++;
                plog(PLOG_INFO, "pad %u: button %u pressed before the host assigned an address: ignored",
                     p->index, button);
                return 0;
        }
        p->down |= bit;
        if (hold_us > 0) {
                p->release[button].due_us = press_us + hold_us;
                sim_timer_at(p->release[button].ev, press_us + hold_us);
        }
        /* A locked-out button still reports: the host judges what a press
         * during lockout means (docs/protocol.md, LOCKOUT). */
        if (p->locked & bit) {
                p->stats.locked++;
                plog(PLOG_INFO, "pad %u: button %u pressed while locked out", p->index, button);
        }
        r = pad_new_event(p, PROTO_PRESS, button, press_us, delay_us);
        if (r < 0) {
                plog(PLOG_WARN, "pad %u: %u events unacknowledged: press of button %u lost", p->index,
                     p->n_pending, button);
                return 0;
        }
        p->reported |= bit;
        p->stats.presses++;
        plog(PLOG_INFO, "pad %u: press button %u (event %u, pad time %" PRIu32 ")", p->index, button,
             p->pending[p->n_pending - 1].event_no, p->pending[p->n_pending - 1].pad_time);
        return 0;
}

int pad_release(struct pad *p, unsigned button, int64_t release_us) {
        uint16_t bit;

        if (button >= p->cfg.n_buttons)
                return -EINVAL;
        bit = (uint16_t) (1u << button);
        event_del(p->release[button].ev);
        if (!(p->down & bit))
                return 0;
        p->down &= (uint16_t) ~bit;
        if (!(p->reported & bit))
                return 0;
        p->reported &= (uint16_t) ~bit;
        if (pad_new_event(p, PROTO_RELEASE, button, release_us, -1) < 0) {
                plog(PLOG_WARN, "pad %u: %u events unacknowledged: release of button %u lost", p->index,
                     p->n_pending, button);
                return 0;
        }
        p->stats.releases++;
        plog(PLOG_FRAME, "pad %u: release button %u", p->index, button);
        return 0;
}

static void pad_release_cb(evutil_socket_t fd, short what, void *userdata) {
        struct release_timer *rt = userdata;

        (void) fd;
        (void) what;
        pad_release(rt->pad, rt->button, rt->due_us);
}

static void pad_arm_hello(struct pad *p, bool random_phase) {
        int64_t wait;

        if (random_phase)
                wait = (int64_t) rng_below(&p->rng, PAD_HELLO_US);
        else
                wait = PAD_HELLO_US - PAD_HELLO_JITTER_US +
                       (int64_t) rng_below(&p->rng, 2 * PAD_HELLO_JITTER_US + 1);
        sim_timer_at(p->hello_ev, now_usec() + wait);
}

static void pad_hello_cb(evutil_socket_t fd, short what, void *userdata) {
        struct pad *p = userdata;

        (void) fd;
        (void) what;
        if (pad_assigned(p))
                return;
        pad_send_hello(p);
        pad_arm_hello(p, false);
}

static void pad_beat_cb(evutil_socket_t fd, short what, void *userdata) {
        struct pad *p = userdata;

        (void) fd;
        (void) what;
        if (!pad_assigned(p))
                return;
        pad_send_heartbeat(p);
        sim_timer_at(p->beat_ev, now_usec() + PAD_HEARTBEAT_US);
}

static void pad_bsync_cb(evutil_socket_t fd, short what, void *userdata) {
        struct pad *p = userdata;

        (void) fd;
        (void) what;
        if (pad_assigned(p))
                pad_send_sync_reply(p, p->bsync_id, p->bsync_rx_us);
}

void pad_start(struct pad *p) {
        pad_arm_hello(p, true);
}

/* ASSIGN is matched by uid whatever the frame's address: an unassigned pad
 * has no address to be reached at.  A new address is confirmed with a HELLO
 * from it, an ASSIGN of the address the pad has already with a HEARTBEAT
 * (docs/protocol.md section 5): either way the host hears the pad from its
 * address at once. */
static void pad_on_assign(struct pad *p, const struct frame *f) {
        struct proto_assign m;

        if (proto_unpack_assign(f, &m) < 0 || m.uid != p->cfg.uid)
                return;
        if (m.address == PROTO_ADDR_UNASSIGNED || m.address > PROTO_ADDR_MAX) {
                plog(PLOG_WARN, "pad %u: ASSIGN to address %u, which is not a pad address: ignored", p->index,
                     m.address);
                return;
        }
        bool again = m.address == p->address;
        if (again) {
                plog(PLOG_FRAME, "pad %u: address %u assigned again", p->index, m.address);
        } else {
                plog(PLOG_INFO, "pad %u: assigned address %u (uid 0x%016" PRIx64 ")", p->index, m.address,
                     p->cfg.uid);
                plog_record(true, "ASSIGN pad=%u uid=0x%016" PRIx64 " addr=%u", p->index, p->cfg.uid, m.address);
        }
        p->address = m.address;
        event_del(p->hello_ev);
        event_del(p->beat_ev);
        if (again)
                pad_send_heartbeat(p);
        else
                pad_send_hello(p);
        sim_timer_at(p->beat_ev, now_usec() + PAD_HEARTBEAT_US);
        pad_resend_pending(p);
}

static void pad_on_ack(struct pad *p, const struct frame *f) {
        struct proto_ack m;

        if (proto_unpack_ack(f, &m) < 0)
                return;
        for (unsigned i = 0; i < p->n_pending; i++) {
                struct pending *e = &p->pending[i];
                if (e->event_no != m.event_no)
                        continue;
                p->stats.acks++;
                plog(PLOG_FRAME, "pad %u: event %u acknowledged after %u send%s, %.1f ms", p->index, e->event_no,
                     e->sends, e->sends == 1 ? "" : "s", (double) (now_usec() - e->first_us) / USEC_PER_MSEC);
                plog_record(true, "ACK pad=%u event=%u sends=%u", p->index, e->event_no, e->sends);
                memmove(e, e + 1, (p->n_pending - i - 1) * sizeof *e);
                p->n_pending--;
                pad_arm_retx(p);
                return;
        }
        p->stats.duplicate_acks++;
        plog(PLOG_FRAME, "pad %u: ACK for event %u, which is not pending", p->index, m.event_no);
}

/* Unicast: reply at once.  Broadcast: every pad replies in its own slot,
 * address × slot after the SYNC, so replies do not collide on the bus; a
 * pad without a clock has nothing to report and stays silent. */
static void pad_on_sync(struct pad *p, const struct frame *f, int64_t rx_us) {
        struct proto_sync m;

        if (proto_unpack_sync(f, &m) < 0)
                return;
        if (!p->cfg.has_clock) {
                plog(PLOG_FRAME, "pad %u: SYNC ignored: no clock", p->index);
                return;
        }
        if (f->address != PROTO_ADDR_BROADCAST) {
                pad_send_sync_reply(p, m.sync_id, rx_us);
                return;
        }
        p->bsync_id = m.sync_id;
        p->bsync_rx_us = rx_us;
        sim_timer_at(p->bsync_ev, rx_us + (int64_t) p->address * m.slot_us_x100 * PAD_SYNC_SLOT_UNIT_US);
}

static void pad_on_light(struct pad *p, const struct frame *f) {
        static const char *const modes[] = {
                [PROTO_LIGHT_OFF] = "off", [PROTO_LIGHT_ON] = "on", [PROTO_LIGHT_BLINK] = "blink",
        };
        struct proto_light m;
        char which[32], dur[32] = "";

        if (proto_unpack_light(f, &m) < 0)
                return;
        if (m.button != PAD_LIGHT_ALL && m.button >= p->cfg.n_buttons) {
                plog(PLOG_WARN, "pad %u: LIGHT for button %u, which it does not have", p->index, m.button);
                return;
        }
        if (m.mode > PROTO_LIGHT_BLINK) {
                plog(PLOG_WARN, "pad %u: LIGHT with unknown mode %u", p->index, m.mode);
                return;
        }
        if (m.button == PAD_LIGHT_ALL)
                snprintf(which, sizeof which, "all buttons");
        else
                snprintf(which, sizeof which, "button %u", m.button);
        if (m.duration_ms && m.mode != PROTO_LIGHT_OFF)
                snprintf(dur, sizeof dur, " %u ms", m.duration_ms);
        plog(PLOG_INFO, "pad %u: light %s %s%s", p->index, which, modes[m.mode], dur);
}

static void pad_on_buzz(struct pad *p, const struct frame *f) {
        static const char *const patterns[] = { "steady", "short beeps", "long-short" };
        struct proto_buzz m;

        if (proto_unpack_buzz(f, &m) < 0)
                return;
        if (m.pattern < sizeof patterns / sizeof patterns[0])
                plog(PLOG_INFO, "pad %u: buzz %u ms %s", p->index, m.duration_ms, patterns[m.pattern]);
        else
                plog(PLOG_INFO, "pad %u: buzz %u ms pattern %u", p->index, m.duration_ms, m.pattern);
}

static void pad_on_lockout(struct pad *p, const struct frame *f) {
        struct proto_lockout m;
        char list[PROTO_MAX_BUTTONS * 4] = "";
        size_t n = 0;

        if (proto_unpack_lockout(f, &m) < 0)
                return;
        p->locked = m.button_mask;
        if (!m.button_mask) {
                plog(PLOG_INFO, "pad %u: lockout off", p->index);
                return;
        }
        for (unsigned b = 0; b < PROTO_MAX_BUTTONS; b++)
                if (m.button_mask & (1u << b))
                        n += (size_t) snprintf(list + n, sizeof list - n, "%s%u", n ? "," : "", b);
        plog(PLOG_INFO, "pad %u: lockout buttons %s", p->index, list);
}

/* RESET is a restart (docs/protocol.md): the pad forgets its address,
 * pending events, lights and lockout, numbers events from 0 again, and
 * starts the HELLOs (with a fresh random phase: a broadcast RESET must not
 * make every pad HELLO at the same instant).  The host clears what it
 * remembers of the pad's event numbers when the HELLO from address 0
 * arrives. */
static void pad_on_reset(struct pad *p) {
        plog(PLOG_INFO, "pad %u: reset (was address %u, %u events dropped)", p->index, p->address,
             p->n_pending);
        plog_record(true, "RESET pad=%u", p->index);
        p->address = PROTO_ADDR_UNASSIGNED;
        p->locked = 0;
        p->n_pending = 0;
        p->next_event = 0;
        event_del(p->beat_ev);
        event_del(p->retx_ev);
        event_del(p->bsync_ev);
        pad_arm_hello(p, true);
}

void pad_receive(struct pad *p, const struct frame *f, int64_t rx_us) {
        if (f->type == PROTO_ASSIGN) {
                pad_on_assign(p, f);
                return;
        }
        if (!pad_assigned(p))
                return;
        if (f->address != p->address && f->address != PROTO_ADDR_BROADCAST)
                return;
        switch (f->type) {
        case PROTO_ACK:
                if (f->address == p->address)
                        pad_on_ack(p, f);
                break;
        case PROTO_SYNC:
                pad_on_sync(p, f, rx_us);
                break;
        case PROTO_LIGHT:
                pad_on_light(p, f);
                break;
        case PROTO_BUZZ:
                pad_on_buzz(p, f);
                break;
        case PROTO_LOCKOUT:
                pad_on_lockout(p, f);
                break;
        case PROTO_RESET:
                pad_on_reset(p);
                break;
        case PROTO_HOST_BEAT:
        default:
                break;
        }
}

void pad_log_stats(const struct pad *p) {
        const struct pad_stats *s = &p->stats;

        plog(PLOG_INFO, "pad %u: address %u, %" PRIu64 " presses, %" PRIu64 " releases, %" PRIu64 " frames sent (%"
             PRIu64 " retransmissions), %" PRIu64 " acks, %u pending, %" PRIu64 " sync replies, %" PRIu64
             " locked out, %" PRIu64 " ignored unassigned", p->index, p->address, s->presses, s->releases,
             s->sends, s->retransmits, s->acks, p->n_pending, s->syncs, s->locked, s->ignored);
}

int pad_new(struct sim *sim, unsigned index, const struct pad_config *cfg, struct pad **ret) {
        struct pad *p = calloc(1, sizeof *p);

        if (!p)
                return -ENOMEM;
        p->sim = sim;
        p->index = index;
        p->cfg = *cfg;
        p->next_event = 0;
        rng_seed(&p->rng, sim->opt->seed, RNG_STREAM_PAD0 + index);
        p->hello_ev = evtimer_new(sim->base, pad_hello_cb, p);
        p->beat_ev = evtimer_new(sim->base, pad_beat_cb, p);
        p->retx_ev = evtimer_new(sim->base, pad_retx_cb, p);
        p->bsync_ev = evtimer_new(sim->base, pad_bsync_cb, p);
        if (!p->hello_ev || !p->beat_ev || !p->retx_ev || !p->bsync_ev) {
                pad_free(p);
                return -ENOMEM;
        }
        for (unsigned b = 0; b < cfg->n_buttons; b++) {
                p->release[b] = (struct release_timer) { .pad = p, .button = b };
                p->release[b].ev = evtimer_new(sim->base, pad_release_cb, &p->release[b]);
                if (!p->release[b].ev) {
                        pad_free(p);
                        return -ENOMEM;
                }
        }
        *ret = p;
        return 0;
}

void pad_free(struct pad *p) {
        if (!p)
                return;
        if (p->hello_ev)
                event_free(p->hello_ev);
        if (p->beat_ev)
                event_free(p->beat_ev);
        if (p->retx_ev)
                event_free(p->retx_ev);
        if (p->bsync_ev)
                event_free(p->bsync_ev);
        for (unsigned b = 0; b < PROTO_MAX_BUTTONS; b++)
                if (p->release[b].ev)
                        event_free(p->release[b].ev);
        free(p);
}
