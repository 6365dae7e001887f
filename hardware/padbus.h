/* hardware/padbus.h — the pad bus driver: ports, the pad registry, clock
 * sync and the ordered press stream (docs/architecture.md, "Time and
 * fairness"; docs/protocol.md).
 *
 * Ports are opened by path (a stable /dev/serial/by-id/... name) and read on
 * readiness in the daemon's loop.  A port that is missing or vanishes (USB
 * unplug: read() returns 0 or EIO) is closed and tried again every
 * reopen_ms until it returns.
 *
 * Pads are known by their uid, for as long as the daemon runs: a pad that
 * goes silent (no frame for heartbeat_timeout_ms) or whose port vanishes is
 * "disconnected" but keeps its record — identity, address, counters, clock
 * model — and is "connected" again when it is heard from.  A HELLO gets an
 * ASSIGN (the pad's previous address on that port when it is free), sent
 * again every 150 ms until any frame from that address confirms it; a HELLO
 * from the address a pad was given on that port is that confirmation, not
 * a request for another ASSIGN (docs/protocol.md section 5).  SYNCs start
 * once the ASSIGN is confirmed.
 *
 * Identity (hardware/claim.h; docs/protocol.md section 5, "One uid, two
 * devices").  A device is known by its port and its address there.  A HELLO
 * naming a uid that is connected on another port (heard within
 * heartbeat_timeout_ms) is a second device claiming that pad: an identity
 * conflict.  A pad that was gone (silent past the timeout, or its port
 * closed) and says HELLO on another port has moved: no conflict, it is the
 * pad there from now on (counted in moves).  Two devices with one uid on
 * one line take the same address (ASSIGN names the uid); two replies to
 * one SYNC give them away, and the second is recorded as a rival on the
 * same port and address.
 *
 *            a HELLO from another port while connected,
 *            or two replies to one SYNC                    one more device:
 *   NORMAL ----------------------------------> CONFLICT <- one more rival
 *     ^                                         |    ^
 *     |                     padbus_trust(port)  |    | a new device while
 *     |                                         v    | connected
 *     +--- every refused device went away --- RESOLVED (the others refused;
 *                                                       padbus_trust again
 *                                                       changes the decision)
 *
 * In a conflict no device is trusted: the rivals are assigned addresses (so
 * that they can be watched, and an operator can press a button on one and
 * see which port it is on), their presses and the pad's own are ACKed and
 * dropped — never delivered to either callback — and counted.  ACKed: a
 * press the host refuses is ACKed, as one for a button the pad does not
 * have is (docs/protocol.md section 7); left unACKed, both devices would
 * retransmit every 200 ms, fill their queues, and hand the trusted one's
 * queued presses, minutes old, to the judge the moment the conflict ends.
 * The conflict lasts, whatever the devices do, until an operator trusts
 * the device on one port (padbus_trust): it is the pad from then on; every
 * other device is refused — RESET, never assigned again, its HELLOs and
 * frames counted — until it goes silent past the heartbeat timeout (then
 * it is forgotten: if it returns while the pad is connected, that is a new
 * conflict) or an operator trusts it instead.  Conflicts, dropped presses
 * and refused frames are logged, at most 10 lines a minute of each kind.
 *
 * Lines.  A port is a full-duplex line unless [pads] rs485_ports names it:
 * then it is an RS-485 multi-drop bus, where the host speaks only in turns
 * (docs/protocol.md section 10): every frame for a pad on it — ACK, LIGHT,
 * BUZZ, LOCKOUT, SYNC, RESET, an ASSIGN — waits in the line's poller
 * (hardware/poller.h) for that pad's turn, a pad with nothing waiting is
 * polled with a HOST_BEAT, and a discovery (HOST_BEAT to address 0, then
 * 16 HELLO slots of silence) finds new pads about once a second; no
 * broadcast HOST_BEAT.  Its counters are the port's polling.  A
 * pseudo-terminal has no wire time unless pty_wire_time says it stands for
 * a line (an emulated pad); a bus's turns are timed at baud either way.
 *
 * Presses: a PRESS is ACKed once it is durable (docs/protocol.md section
 * 5): at once, unless the events.received consumer takes the ACK over and
 * calls padbus_ack() when what the press made is stored.  Presses are
 * de-duplicated by event number (a retransmission of a press whose ACK is
 * held is not ACKed, nor delivered again), mapped from
 * pad time to host time with the pad's clock model (or receive time minus
 * wire time, flagged, for a pad without a clock or not yet synced), and
 * held for settle_us so that a press stamped earlier on another pad but
 * arriving later is delivered first.  The press stream is therefore in
 * order of host time; a press that arrives after later-stamped presses were
 * already delivered is delivered anyway, marked late, and counted.
 *
 * Two callbacks see each press.  events.received sees it at once, as soon
 * as its frame is decoded and its time mapped, before the settle window
 * (order of arrival; seq is 0 there, received_no numbers them): for a
 * consumer that orders presses by time itself, such as the first-press
 * judge, which then need not wait the settle window twice.
 * events.pressed sees it settle_us later, in the ordered stream, with its
 * seq (the stream of /v1/presses, SSE "pressed" and D-Bus Pressed).
 *
 * Ownership: the driver owns every struct pad and struct padbus_port; the
 * pointers handed to callbacks and returned by the accessors stay valid
 * until padbus_free() (pads are never freed while the daemon runs).
 */
#ifndef ARBITER_HARDWARE_PADBUS_H
#define ARBITER_HARDWARE_PADBUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hardware/clock.h"
#include "hardware/frame.h"
#include "hardware/poller.h"

struct loop;
struct padbus;

#define PAD_ID_LEN 16                   /* uid as 16 lowercase hex digits */

struct padbus_config {
        const char *ports;              /* paths separated by blanks; NULL or "" for none */
        const char *rs485_ports;        /* those of ports that are RS-485 buses; NULL or "" for none */
        unsigned rs485_reply_margin_us; /* how long past the air times a turn's answer may take
                                         * (hardware/poller.h); 0: POLLER_REPLY_MARGIN_DEFAULT_USEC */
        unsigned baud;
        unsigned heartbeat_timeout_ms;
        unsigned sync_interval_ms;
        unsigned settle_us;
        unsigned reopen_ms;
        /* A pseudo-terminal counts the air time of baud as a real line
         * would (wire_time below): for an emulated line that paces its
         * bytes at the baud rate (tests/avr/avrpad).  False: a pty has no
         * line, its bytes arrive at once (arbiter-padsim). */
        bool pty_wire_time;
};

/* What a pad did that the protocol lets us attribute to it. */
struct pad_counters {
        uint64_t frames;                /* valid frames from it */
        uint64_t presses;               /* distinct presses delivered */
        uint64_t releases;
        uint64_t duplicates;            /* retransmitted events already seen (our ACK was lost) */
        uint64_t late_presses;          /* arrived after the settle window */
        uint64_t bad_buttons;           /* events for a button it does not have: ignored */
        uint64_t syncs_sent, syncs_answered, sync_timeouts;
        uint64_t pad_rx_errors;         /* frames the pad dropped, from its heartbeat */
        uint64_t reconnects;            /* connected again after being gone */
        uint64_t moves;                 /* came back on another port while gone */
        uint64_t conflicts;             /* identity conflicts begun over its uid */
        uint64_t conflict_presses;      /* presses ACKed and dropped in a conflict, any device's */
        uint64_t refused_frames;        /* HELLOs and frames from devices an operator refused */
};

/* A device other than the pad's own that says it is the pad. */
#define PAD_RIVALS_MAX 4

struct padbus_port;

struct pad_rival {
        const struct padbus_port *port;
        uint8_t address;                /* its address on that port; 0: none free */
        bool connected;                 /* heard within heartbeat_timeout_ms on an open port */
        bool refused;                   /* an operator trusted another device */
        bool same_line;                 /* a second reply to one SYNC: shares the pad's port and address */
        int64_t last_seen_usec;         /* CLOCK_MONOTONIC */
        int64_t last_seen_wall_usec;
        uint64_t presses_dropped;       /* its presses dropped in a conflict */
        uint64_t refused_frames;        /* its frames refused since it was refused */
};

struct pad_identity {
        bool conflict;                  /* devices contest the uid: none is trusted */
        int64_t since_usec;             /* when the conflict began (CLOCK_MONOTONIC) */
        int64_t since_wall_usec;
        uint64_t presses_dropped;       /* the pad's own device's presses dropped in conflicts */
        struct pad_rival rivals[PAD_RIVALS_MAX];        /* contesting, then refused */
        unsigned n_rivals;
        const struct padbus_port *trusted_port;         /* the operator's last decision; NULL: none */
        int64_t trusted_wall_usec;
};

struct pad {
        uint64_t uid;
        char id[PAD_ID_LEN + 1];
        uint8_t kind;                   /* enum proto_pad_kind */
        uint8_t n_buttons;
        uint8_t fw_major, fw_minor;
        uint32_t clock_hz;
        uint8_t address;
        const struct padbus_port *port; /* where it was last heard */
        bool connected;
        int64_t last_seen_usec;         /* CLOCK_MONOTONIC */
        int64_t last_seen_wall_usec;    /* CLOCK_REALTIME, for display */
        struct clock_model clock;
        struct pad_counters counters;
        struct pad_identity identity;
};

struct padbus_port {
        char *path;
        bool open;
        bool low_latency;               /* ASYNC_LOW_LATENCY set */
        bool is_pty;                    /* a pseudo-terminal */
        bool wire_time;                 /* a frame takes its air time at baud: a real line,
                                         * or a pty with pty_wire_time; false: none (a pty) */
        unsigned opens;                 /* successful opens so far */
        char last_error[128];           /* why it is closed, for health and the API */
        struct frame_faults faults;     /* every frame fault seen on this port */
        uint64_t tx_frames, tx_dropped; /* dropped: the kernel buffer was full */
        uint64_t bad_hellos;            /* HELLOs with uid 0, an unknown kind or a bad button count: ignored */
        bool rs485;                     /* a multi-drop bus: the host takes turns (hardware/poller.h) */
        struct poller_counters polling; /* rs485: turns given, turns unanswered, discoveries */
};

struct pad_press {
        uint64_t seq;                   /* 1, 2, …: the daemon's press stream order;
                                         * 0 in events.received (not yet in the stream) */
        uint64_t received_no;           /* 1, 2, …: order of arrival, set in both callbacks */
        const struct pad *pad;
        uint8_t button;
        int64_t time_usec;              /* host CLOCK_MONOTONIC of the press */
        int64_t uncertainty_usec;
        int64_t received_usec;          /* when its frame arrived */
        uint16_t event_no;
        bool clock_fallback;            /* time is receive time, not the pad's clock */
        bool late;                      /* delivered after a later-stamped press */
};

struct padbus_events {
        void (*added)(void *userdata, const struct pad *pad);     /* connected (again) */
        void (*removed)(void *userdata, const struct pad *pad);   /* disconnected */
        /* A new press, at once (not a duplicate, not a bad button, not from
         * a pad in an identity conflict): seq 0,
         * late false.  Returns true to hold its ACK: the consumer then
         * calls padbus_ack(press->pad, press->event_no) exactly once.
         * False: the driver ACKs it now.  May be NULL. */
        bool (*received)(void *userdata, const struct pad_press *press);
        /* The same press settle_us later, in the ordered stream.  May be NULL. */
        void (*pressed)(void *userdata, const struct pad_press *press);
        /* Its identity changed: a conflict began or one more device joined
         * it, an operator decided, a refused device went away.  (A pad that
         * moved is added again, with its new port.)  May be NULL. */
        void (*identity)(void *userdata, const struct pad *pad);
        void *userdata;
};

int padbus_new(struct loop *loop, const struct padbus_config *cfg, const struct padbus_events *events,
               struct padbus **ret);
void padbus_free(struct padbus *b);     /* accepts NULL */

size_t padbus_n_pads(const struct padbus *b);
const struct pad *padbus_pad(const struct padbus *b, size_t i);
const struct pad *padbus_find(const struct padbus *b, const char *id);
unsigned padbus_connected(const struct padbus *b);

size_t padbus_n_ports(const struct padbus *b);
const struct padbus_port *padbus_port(const struct padbus *b, size_t i);

/* Ends a held ACK (events.received returned true).  durable: the press's
 * effect is stored, ACK it.  Not durable: forget it, so that the pad's
 * retransmission is delivered as a new press.  -ENOENT when the pad has
 * restarted since (its event numbers started over): nothing is sent. */
int padbus_ack(struct padbus *b, const struct pad *pad, uint16_t event_no, bool durable);

/* An operator ends an identity conflict (or changes an earlier decision):
 * the device on port_path (one of [pads] ports) is the pad; every other
 * device claiming its uid is refused.  who (may be NULL) goes in the log.
 * 0; -ENOENT unknown id; -ENODEV no such port; -EALREADY nothing to decide
 * (no conflict, no refused device); -ESRCH no device on that port claims
 * the uid. */
int padbus_trust(struct padbus *b, const char *id, const char *port_path, const char *who);

/* Totals over every pad, for /v1/status. */
struct padbus_stats {
        unsigned in_conflict;           /* pads in an identity conflict now */
        unsigned refused_devices;       /* devices refused now */
        uint64_t conflicts, conflict_presses, refused_frames, moves;    /* since start */
};
void padbus_stats(const struct padbus *b, struct padbus_stats *ret);

/* Blinks every button of the pad for a few seconds and sounds its buzzer.
 * -ENOENT unknown id, -ENOTCONN not connected. */
int padbus_identify(struct padbus *b, const char *id);

/* Pad feedback (docs/protocol.md section 6), sent at once (on an RS-485
 * bus: at the pad's next turn).  The driver remembers each pad's lockout
 * and lights and sends them again — each light with what is left of its
 * duration — when the pad's HEARTBEAT says its rx_errors went up: a frame
 * of the host's was lost on its way.  LIGHT a button
 * (0xff: every button) with a proto_light_mode for duration_ms (0: until
 * changed), BUZZ with a pattern (0 steady, 1 short beeps, 2 long-short),
 * LOCKOUT the buttons in the mask (0: none).  0, -ENOENT unknown id,
 * -ENOTCONN not connected, or the port's write error. */
int padbus_light(struct padbus *b, const char *id, uint8_t button, uint8_t mode, uint16_t duration_ms);
int padbus_buzz(struct padbus *b, const char *id, uint8_t pattern, uint16_t duration_ms);
int padbus_lockout(struct padbus *b, const char *id, uint16_t button_mask);

/* The settle window the driver holds presses for now: the widest any open
 * port needs (padbus_settle_us over its connected pads).  Every press whose
 * host time is more than this before now has been delivered. */
int64_t padbus_effective_settle_us(const struct padbus *b);

/* Copies up to max presses with seq > after, oldest first, from the recent
 * history (the last PADBUS_HISTORY presses); returns how many. */
#define PADBUS_HISTORY 1024
size_t padbus_presses_since(const struct padbus *b, uint64_t after, struct pad_press *out, size_t max);

/* The settle window the driver really uses on a line with n_pads connected
 * pads: the configured one, widened so that a press made on one pad just
 * after its last frame left still arrives inside it, plus one USB polling
 * interval.  A full-duplex line: n_pads PRESS frames sent back to back
 * (everyone pressed at once on a shared line); without wire_time (a
 * pseudo-terminal without pty_wire_time) frames take no time.  At 115200
 * baud six pads need 6 × 1.39 ms + 1 ms ≈ 9.3 ms; at 1 Mbaud 2 ms.  An
 * RS-485 bus (rs485_margin_us its reply margin; 0: a full-duplex line):
 * the longest time between two turns of a pad (poller_cycle_usec: the
 * other pads' turns, one discovery and a round's minimum; counted at baud,
 * pty or not): at 1 Mbaud and the default 3 ms margin 22 ms for one pad,
 * 39 ms for six. */
int64_t padbus_settle_us(int64_t configured_us, unsigned baud, bool wire_time, unsigned rs485_margin_us,
                         unsigned n_pads);

const char *pad_kind_to_string(uint8_t kind);

#endif
