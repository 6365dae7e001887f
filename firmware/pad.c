/* firmware/pad.c — the pad: docs/protocol.md from the pad's side, and the
 * main loop.
 *
 * Everything here runs in the main loop; the interrupts (firmware/clock.c,
 * uart.c, buttons.c) only stamp, store and count.  The loop drains received
 * candidates, turns button edges into events, sends at most one frame at a
 * time, drives the outputs, and sleeps (idle: the timers and the UART keep
 * running) until the next interrupt, at least once a millisecond.
 *
 * The pad's states (section 5):
 *
 *     no uid ........................ silent, status light flickers
 *     unassigned (address 0) --ASSIGN with our uid--> assigned (1..247)
 *        ^                                                 |
 *        +------------- RESET (unicast or broadcast) ------+
 *     assigned: host heard within 3 s <--> host gone (lights blink;
 *               on the host's return, HELLO from our address first)
 *
 * What it sends, full-duplex line: HELLO every 500 ms while unassigned;
 * once assigned the confirming HELLO, then HEARTBEAT every 500 ms, each
 * event at once and again after 20, 40, 80, 160, 200, 200 ... ms until its
 * ACK, SYNC_REPLY to each SYNC.  RS-485 (section 10): exactly one frame when
 * given the turn, never otherwise.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <string.h>
#include <util/atomic.h>

#include "firmware/board.h"
#include "firmware/buttons.h"
#include "firmware/clock.h"
#include "firmware/codec.h"
#include "firmware/config.h"
#include "firmware/outputs.h"
#include "firmware/proto.h"
#include "firmware/uart.h"

#if PAD_BUTTONS < 1 || PAD_BUTTONS > BOARD_BUTTONS_MAX
#error "PAD_BUTTONS must be 1..7 on this board (firmware/board.h)"
#endif

/* docs/protocol.md section 7 suggests 16 or more. */
#define PENDING_MAX             16
/* A SYNC_REPLY's tx_time is stamped this far ahead of its first byte: the
 * frame is finished (the CRC of its last 4 bytes, COBS of 17) in between,
 * with interrupts enabled, and the first byte is written when the clock
 * reaches the stamp.  Finishing takes about 560 cycles (35 µs, 70 ticks:
 * firmware/crcbench.c) when no interrupt comes in between; one that delays
 * it past the stamp makes the pad finish again with a new stamp. */
#define SYNC_LEAD_TICKS         128
/* The last stretch before the first byte, spun with interrupts masked. */
#define SYNC_SPIN_TICKS         8
#define SYNC_RETRIES            4
/* A send timed to the tick (a SYNC_REPLY in its slot, a discovery HELLO)
 * due within this many ticks keeps the loop awake: the millisecond wake-up
 * would be up to 1 ms late, past a 300 µs slot. */
#define TIMED_AWAKE_TICKS       (2 * CLOCK_TICKS_PER_MS)
/* A forward gap in the host's seq larger than this is a restart of the
 * host's counters (it reopened the port), not lost frames. */
#define SEQ_GAP_MAX             1024
/* FNV-1a, 32 bits (the discovery slots' seed, main()). */
#define FNV_OFFSET_BASIS        2166136261UL
#define FNV_PRIME               16777619UL

struct pending {
        uint16_t event_no;
        uint8_t type;                   /* PROTO_PRESS or PROTO_RELEASE */
        uint8_t button;
        uint32_t time;
        uint32_t due_ms;                /* next (re)send */
        uint8_t interval_ms;            /* the wait after the next send */
        uint8_t acked;
};

enum turn {
        TURN_NONE,
        TURN_ANSWER,                    /* oldest due event, else HEARTBEAT */
        TURN_HELLO,                     /* at once */
        TURN_HELLO_SLOT,                /* discovery: at turn_due (ticks) */
};

static struct pad_config cfg;
static uint8_t address;
static uint16_t tx_seq;
static uint16_t next_event_no;
static uint16_t rx_errors;
static uint8_t uart_overflows_seen;

static struct {
        uint8_t seen;
        uint16_t last;
} host_seq[2];                          /* [0] to our address, [1] broadcast */

static uint32_t last_host_ms;
static uint32_t last_turn_ms;           /* RS-485: the host last gave us a turn */
static uint8_t host_gone;
static uint8_t hello_due_now;           /* confirm ASSIGN, or greet a returned host */
static uint32_t next_hello_ms, next_heartbeat_ms;

static struct pending pending[PENDING_MAX];
static uint8_t pending_head, pending_count;     /* a ring in event order */

static struct {
        uint8_t armed;
        uint16_t id;
        uint32_t rx_time;
        uint32_t due;                   /* pad ticks */
} sync_reply;

static enum turn turn;
static uint32_t turn_due;
static uint32_t rng_state;

static uint8_t frame[PROTO_FRAME_MAX];

static uint16_t le16(const uint8_t *p) {
        return (uint16_t) (p[0] | (uint16_t) p[1] << 8);
}

static void put_le16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v) {
        put_le16(p, (uint16_t) v);
        put_le16(p + 2, (uint16_t) (v >> 16));
}

/* xorshift32 (G. Marsaglia, "Xorshift RNGs", 2003): the discovery slot. */
static uint8_t rng_next(void) {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 17;
        rng_state ^= rng_state << 5;
        return (uint8_t) rng_state;
}

static uint8_t header(uint8_t from, uint8_t type) {
        frame[0] = PROTO_VERSION;
        frame[1] = from;
        put_le16(frame + 2, tx_seq++);
        frame[4] = type;
        return PROTO_HEADER_LEN;
}

/* CRC and COBS of frame[0 .. n-1] into uart_tx_buf, with the leading 0x00
 * every RS-485 transmission should start with; returns the wire length. */
static uint8_t finish(uint8_t n, uint16_t crc_so_far, uint8_t crc_from) {
        uint16_t crc = crc16_update(crc_so_far, frame + crc_from, (uint8_t) (n - crc_from));
        uint8_t o = 0;

        put_le16(frame + n, crc);
        n += PROTO_CRC_LEN;
        if (cfg.rs485)
                uart_tx_buf[o++] = 0;
        o += cobs_encode(frame, n, uart_tx_buf + o);
        uart_tx_buf[o++] = 0;
        return o;
}

static void send(uint8_t n) {
        uart_tx_start(finish(n, CRC16_INIT, 0));
}

static void send_hello(void) {
        uint8_t n = header(address, PROTO_HELLO);

        memcpy(frame + n, cfg.uid, 8);
        frame[n + 8] = cfg.kind;
        frame[n + 9] = cfg.n_buttons;
        frame[n + 10] = PAD_FW_MAJOR;
        frame[n + 11] = PAD_FW_MINOR;
        put_le32(frame + n + 12, CLOCK_HZ);
        send(n + PROTO_LEN_HELLO);
}

static void send_heartbeat(void) {
        uint8_t n = header(address, PROTO_HEARTBEAT);
        uint8_t waiting = 0;

        for (uint8_t i = 0; i < pending_count; i++)
                waiting += !pending[(pending_head + i) % PENDING_MAX].acked;
        put_le32(frame + n, clock_now());
        put_le16(frame + n + 4, waiting);
        put_le16(frame + n + 6, rx_errors);
        send(n + PROTO_LEN_HEARTBEAT);
}

static void send_event(struct pending *e, uint32_t now_ms) {
        uint8_t n = header(address, e->type);

        put_le16(frame + n, e->event_no);
        frame[n + 2] = e->button;
        put_le32(frame + n + 3, e->time);
        send(n + PROTO_LEN_EVENT);
        e->due_ms = now_ms + e->interval_ms;
        e->interval_ms = e->interval_ms >= PROTO_RESEND_MAX_MS / 2 ? PROTO_RESEND_MAX_MS
                                                                    : (uint8_t) (e->interval_ms * 2);
}

/* The SYNC_REPLY: tx_time is the pad time at which its first byte goes to
 * the UART (with the RS-485 leading 0x00, one byte time later: the byte the
 * host counts as the reply's first).  The stamp is taken ahead, the frame
 * finished with interrupts enabled, and the first byte written, interrupts
 * masked, on the tick of the stamp. */
static void send_sync_reply(void) {
        uint8_t n = header(address, PROTO_SYNC_REPLY);
        uint16_t crc;
        uint8_t len = 0;
        uint32_t at = 0;

        put_le16(frame + n, sync_reply.id);
        put_le32(frame + n + 2, sync_reply.rx_time);
        crc = crc16_update(CRC16_INIT, frame, n + 6);
        for (uint8_t tries = 0; ; tries++) {
                at = clock_now() + SYNC_LEAD_TICKS;
                put_le32(frame + n + 6, cfg.rs485 ? at + uart_byte_ticks : at);
                len = finish(n + PROTO_LEN_SYNC_REPLY, crc, n + 6);
                /* Up to the last SYNC_SPIN_TICKS with interrupts enabled
                 * (masked for 64 µs, the UART's two-byte receive FIFO would
                 * overrun at 1 Mbaud), the rest masked. */
                while ((int32_t) (at - clock_now()) > SYNC_SPIN_TICKS)
                        ;
                cli();
                if ((int32_t) (clock_read_isr() - at) <= 0 || tries == SYNC_RETRIES)
                        break;
                sei();                  /* an interrupt took us past the stamp */
        }
        while ((int32_t) (clock_read_isr() - at) < 0)
                ;
        uart_tx_start(len);
        sei();
        sync_reply.armed = 0;
}

static void pending_clear(void) {
        pending_head = pending_count = 0;
}

static void pending_ack(uint16_t event_no) {
        for (uint8_t i = 0; i < pending_count; i++) {
                struct pending *e = &pending[(pending_head + i) % PENDING_MAX];

                if (e->event_no == event_no)
                        e->acked = 1;
        }
        while (pending_count && pending[pending_head].acked) {
                pending_head = (uint8_t) ((pending_head + 1) % PENDING_MAX);
                pending_count--;
        }
}

/* The oldest unACKed event whose (re)send is due. */
static struct pending *pending_due(uint32_t now_ms) {
        for (uint8_t i = 0; i < pending_count; i++) {
                struct pending *e = &pending[(pending_head + i) % PENDING_MAX];

                if (!e->acked && clock_ms_due(now_ms, e->due_ms))
                        return e;
        }
        return 0;
}

/* After power-on and RESET: address 0, nothing pending, outputs off,
 * counters from 0 (section 6, RESET). */
static void start_over(uint32_t now_ms) {
        address = PROTO_ADDR_UNASSIGNED;
        tx_seq = 0;
        next_event_no = 0;
        pending_clear();
        outputs_clear();
        host_seq[0].seen = host_seq[1].seen = 0;
        sync_reply.armed = 0;
        hello_due_now = 0;
        host_gone = 0;
        turn = TURN_NONE;
        next_hello_ms = now_ms;
}

static void count_seq(uint8_t broadcast, uint16_t seq) {
        uint16_t gap = (uint16_t) (seq - host_seq[broadcast].last - 1);

        if (host_seq[broadcast].seen && gap && gap <= SEQ_GAP_MAX)
                rx_errors += gap;
        host_seq[broadcast].seen = 1;
        host_seq[broadcast].last = seq;
}

static uint8_t payload_len(uint8_t type) {
        switch (type) {
        case PROTO_HELLO: return PROTO_LEN_HELLO;
        case PROTO_PRESS: case PROTO_RELEASE: return PROTO_LEN_EVENT;
        case PROTO_SYNC_REPLY: return PROTO_LEN_SYNC_REPLY;
        case PROTO_HEARTBEAT: return PROTO_LEN_HEARTBEAT;
        case PROTO_ASSIGN: return PROTO_LEN_ASSIGN;
        case PROTO_ACK: return PROTO_LEN_ACK;
        case PROTO_SYNC: return PROTO_LEN_SYNC;
        case PROTO_LIGHT: return PROTO_LEN_LIGHT;
        case PROTO_BUZZ: return PROTO_LEN_BUZZ;
        case PROTO_LOCKOUT: return PROTO_LEN_LOCKOUT;
        case PROTO_RESET: case PROTO_HOST_BEAT: return 0;
        default: return 0xff;
        }
}

/* One candidate: the checks of section 11 in their order, then the
 * message. */
static void receive(struct uart_candidate *c, uint32_t now_ms) {
        if (c->flags) {
                rx_errors++;
                return;
        }
        int8_t n = cobs_decode(c->buf, c->len);
        uint8_t *f = c->buf;

        if (n < 0 || n < PROTO_HEADER_LEN + PROTO_CRC_LEN
            || crc16_update(CRC16_INIT, f, (uint8_t) (n - PROTO_CRC_LEN)) != le16(f + n - PROTO_CRC_LEN)
            || f[0] != PROTO_VERSION) {
                rx_errors++;
                return;
        }
        uint8_t type = f[4], to = f[1];
        uint8_t len = payload_len(type);
        const uint8_t *p = f + PROTO_HEADER_LEN;

        if (len == 0xff || n != PROTO_HEADER_LEN + len + PROTO_CRC_LEN) {
                rx_errors++;
                return;
        }
        if (type < 0x80)
                return;                 /* another pad's frame on a shared line */

        /* Any host frame says the host is alive (section 9). */
        last_host_ms = now_ms;
        if (host_gone) {
                host_gone = 0;
                last_turn_ms = now_ms;  /* it has PROTO_HOST_TIMEOUT_MS to poll us again */
                if (address != PROTO_ADDR_UNASSIGNED)
                        hello_due_now = 1;
        }
        if (to != PROTO_ADDR_BROADCAST && to != address)
                return;
        uint8_t unicast = to != PROTO_ADDR_BROADCAST;

        if (unicast)
                last_turn_ms = now_ms;

        count_seq(!unicast, le16(f + 2));
        switch (type) {
        case PROTO_ASSIGN:
                if (memcmp(p, cfg.uid, 8) != 0 || p[8] < 1 || p[8] > PROTO_ADDR_MAX)
                        return;
                /* A new address is confirmed with a HELLO from it (section
                 * 5).  The same address again is an ASSIGN re-sent that
                 * crossed our HELLO: any frame from the address confirms
                 * it, and another HELLO would only ask for another ASSIGN;
                 * a HEARTBEAT at once on a full-duplex line, the turn's
                 * answer (an event that is due, or a HEARTBEAT) on RS-485. */
                last_turn_ms = now_ms;
                if (address != p[8]) {
                        host_seq[0].seen = 0;
                        address = p[8];
                        hello_due_now = 1;
                        next_heartbeat_ms = now_ms + PROTO_HEARTBEAT_INTERVAL_MS;
                } else {
                        next_heartbeat_ms = now_ms;
                }
                if (cfg.rs485)
                        turn = hello_due_now ? TURN_HELLO : TURN_ANSWER;
                return;
        case PROTO_RESET:
                start_over(now_ms);
                if (cfg.rs485 && unicast)
                        turn = TURN_HELLO;
                return;
        case PROTO_HOST_BEAT:
                if (address == PROTO_ADDR_UNASSIGNED) {
                        /* Discovery (RS-485): a HELLO in a random slot of
                         * A(HELLO) + 100 µs. */
                        if (cfg.rs485 && to == PROTO_ADDR_UNASSIGNED) {
                                uint32_t slot = PROTO_HELLO_WIRE_BYTES * (uint32_t) uart_byte_ticks
                                              + PROTO_DISCOVERY_GUARD_US * CLOCK_TICKS_PER_US;

                                turn = TURN_HELLO_SLOT;
                                turn_due = c->rx_time + (rng_next() % PROTO_DISCOVERY_SLOTS) * slot;
                        }
                        return;
                }
                break;
        case PROTO_SYNC:
                if (address == PROTO_ADDR_UNASSIGNED)
                        return;
                sync_reply.armed = 1;
                sync_reply.id = le16(p);
                sync_reply.rx_time = c->rx_time;
                sync_reply.due = c->rx_time;
                if (!unicast)
                        sync_reply.due += (uint32_t) address * p[2] * PROTO_SYNC_SLOT_UNIT_US * CLOCK_TICKS_PER_US;
                return;                 /* the reply is the turn's answer */
        case PROTO_ACK:
                if (unicast)
                        pending_ack(le16(p));
                break;
        case PROTO_LIGHT:
                outputs_light(p[0], p[1], le16(p + 2), now_ms);
                break;
        case PROTO_BUZZ:
                outputs_buzz(le16(p), p[2], now_ms);
                break;
        case PROTO_LOCKOUT:
                outputs_lockout(le16(p));
                break;
        default:
                return;
        }
        if (address != PROTO_ADDR_UNASSIGNED && cfg.rs485 && unicast)
                turn = TURN_ANSWER;
}

/* Button edges become events, numbered in order; an unassigned pad records
 * none (section 7), a full queue loses the new ones. */
static void take_edges(uint32_t now_ms) {
        struct button_edge e;

        while (buttons_next(&e)) {
                if (e.pressed && outputs_locked(e.button))
                        outputs_locked_press(now_ms);
                if (address == PROTO_ADDR_UNASSIGNED || pending_count == PENDING_MAX)
                        continue;
                struct pending *p = &pending[(pending_head + pending_count) % PENDING_MAX];

                *p = (struct pending) {
                        .event_no = next_event_no++,
                        .type = e.pressed ? PROTO_PRESS : PROTO_RELEASE,
                        .button = e.button,
                        .time = e.time,
                        .due_ms = now_ms,
                        .interval_ms = PROTO_RESEND_FIRST_MS,
                };
                pending_count++;
        }
}

/* Full-duplex: the next frame that is due, if any. */
static void send_duplex(uint32_t now_ms) {
        struct pending *e;

        if (address == PROTO_ADDR_UNASSIGNED) {
                if (clock_ms_due(now_ms, next_hello_ms)) {
                        next_hello_ms = now_ms + PROTO_HELLO_INTERVAL_MS;
                        send_hello();
                }
                return;
        }
        if (hello_due_now) {
                hello_due_now = 0;
                send_hello();
        } else if (clock_ms_due(now_ms, next_heartbeat_ms)) {
                next_heartbeat_ms = now_ms + PROTO_HEARTBEAT_INTERVAL_MS;
                send_heartbeat();
        } else if ((e = pending_due(now_ms))) {
                send_event(e, now_ms);
        }
}

/* RS-485: the one frame the turn asks for. */
static void send_turn(uint32_t now_ms) {
        struct pending *e;

        switch (turn) {
        case TURN_NONE:
                return;
        case TURN_HELLO_SLOT:
                if ((int32_t) (clock_now() - turn_due) < 0)
                        return;
                /* fall through */
        case TURN_HELLO:
                hello_due_now = 0;
                send_hello();
                break;
        case TURN_ANSWER:
                if (hello_due_now) {
                        hello_due_now = 0;
                        send_hello();
                } else if ((e = pending_due(now_ms))) {
                        send_event(e, now_ms);
                } else {
                        send_heartbeat();
                }
                break;
        }
        turn = TURN_NONE;
}

/* Whether a timed send is due within TIMED_AWAKE_TICKS (interrupts
 * masked). */
static uint8_t timed_soon(void) {
        uint32_t now = clock_read_isr();

        if (sync_reply.armed && (int32_t) (sync_reply.due - now) < (int32_t) TIMED_AWAKE_TICKS)
                return 1;
        return turn == TURN_HELLO_SLOT && (int32_t) (turn_due - now) < (int32_t) TIMED_AWAKE_TICKS;
}

static enum status_show status(void) {
        if (!cfg.has_uid)
                return STATUS_NO_UID;
        if (address == PROTO_ADDR_UNASSIGNED)
                return STATUS_UNASSIGNED;
        return host_gone ? STATUS_HOST_GONE : STATUS_ASSIGNED;
}

int main(void) {
        MCUSR = 0;
        wdt_disable();
        board_init();
        config_load(&cfg);
        clock_init();
        uart_init(cfg.rs485);
        buttons_init(cfg.n_buttons);
        outputs_init(cfg.n_buttons);
        /* The discovery slots' seed: FNV-1a (Fowler, Noll, Vo; 32 bits:
         * offset basis 2166136261, prime 16777619) of the uid, which spreads
         * every byte over every bit, so that pads with consecutive uids
         * (serials on one bus) pick different first slots: a seed of the
         * bytes alone left their difference where xorshift's low byte
         * never saw it, and they collided in their first discovery. */
        rng_state = FNV_OFFSET_BASIS;
        for (uint8_t i = 0; i < 8; i++)
                rng_state = (rng_state ^ cfg.uid[i]) * FNV_PRIME;
        rng_state |= 1;
        set_sleep_mode(SLEEP_MODE_IDLE);
        sei();

        uint32_t now_ms = clock_ms_now();

        start_over(now_ms);
        last_host_ms = now_ms;
        /* Section 4: one 0x00 after power-on, so that a partial candidate
         * the host holds does not swallow our first frame. */
        uart_tx_buf[0] = 0;
        uart_tx_start(1);

        for (;;) {
                struct uart_candidate *c;

                now_ms = clock_ms_now();
                while ((c = uart_rx_peek())) {
                        receive(c, now_ms);
                        uart_rx_done();
                }
                if (uart_rx_overflows != uart_overflows_seen) {
                        rx_errors += (uint8_t) (uart_rx_overflows - uart_overflows_seen);
                        uart_overflows_seen = uart_rx_overflows;
                }
                buttons_poll();
                take_edges(now_ms);
                if (address != PROTO_ADDR_UNASSIGNED && !host_gone
                    && clock_ms_due(now_ms, last_host_ms + PROTO_HOST_TIMEOUT_MS))
                        host_gone = 1;
                /* RS-485: a host that talks but has given us no turn for as
                 * long does not know our address (it restarted and its
                 * RESET was lost, or it refused us): start over, and the
                 * next discovery finds us (section 10). */
                if (cfg.rs485 && address != PROTO_ADDR_UNASSIGNED && !host_gone
                    && clock_ms_due(now_ms, last_turn_ms + PROTO_HOST_TIMEOUT_MS))
                        start_over(now_ms);

                if (cfg.has_uid && !uart_tx_busy) {
                        if (sync_reply.armed && (int32_t) (clock_now() - sync_reply.due) >= 0)
                                send_sync_reply();
                        else if (cfg.rs485)
                                send_turn(now_ms);
                        else
                                send_duplex(now_ms);
                }
                outputs_tick(now_ms, status(), buttons_held());

                /* Sleep until the next interrupt, unless one already left
                 * work: the check and the sleep with interrupts masked, and
                 * sei right before sleep (its next instruction runs first),
                 * so no wake-up is lost in between. */
                cli();
                if (!uart_rx_peek() && !buttons_pending() && !timed_soon()) {
                        sleep_enable();
                        sei();
                        sleep_cpu();
                        sleep_disable();
                }
                sei();
        }
}
