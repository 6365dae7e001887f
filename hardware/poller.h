/* hardware/poller.h — the host's turns on an RS-485 multi-drop line
 * (docs/protocol.md section 10).
 *
 * On a half-duplex bus one device drives the pair at a time.  The host is
 * the only one that speaks unasked, and a pad answers each frame addressed
 * to it (or an ASSIGN naming its uid) with exactly one frame, at once; an
 * unassigned pad answers a HOST_BEAT to address 0 (discovery) with a HELLO
 * in a random one of 16 slots.  A poller owns one such line's schedule: the
 * frames the pad bus has for the devices on it wait in its queue, and it
 * hands them back one at a time, each when the line is the host's, then
 * leaves the line to the pads for the answer.
 *
 * Pure: no clock, no I/O, no allocation.  The pad bus (hardware/padbus.c)
 * gives it the time, the frames, the devices on the line and what it hears,
 * and writes each frame poller_next() hands back at once.
 *
 * The line:
 *
 *                  poller_next(): a frame that is a turn
 *        +------> FREE ---------------------------------> REPLY
 *        |         |  ^  ^                                  |
 *        |         |  |  +-- a frame from the awaited ------+  (one byte time
 *        |         |  |      address (not sooner than the      of turnaround
 *        |         |  |      shortest answer could come),      before the next)
 *        |         |  |      or the deadline (a poll timeout)
 *        |         |  |
 *        |         |  +-- a broadcast that asks no answer (a RESET):
 *        |         |      free again when its last byte has left
 *        |         |
 *        |         | discovery due, at the end of a round:
 *        |         v HOST_BEAT to address 0
 *        +------ SILENT (16 slots of A(HELLO) + 100 µs, and the margin)
 *
 * Rounds.  At the end of each round the poller asks the pad bus which
 * devices are on the line (poller_devices_fn) and goes round them in
 * address order: every connected device each round, and of the
 * disconnected ones at most one a round that was not polled for
 * POLLER_GONE_POLL_USEC (the oldest first), so that a pad unplugged from a
 * bus that kept its address is heard again when it returns, while a
 * device gone for good costs one poll timeout a second, not one a round.
 * A device's turn carries the oldest frame queued for it (ACK, LIGHT, BUZZ,
 * LOCKOUT, SYNC, RESET; an ASSIGN is queued for the address it gives), or
 * else a HOST_BEAT.  A frame queued for an address that is no device on the
 * line (a RESET to a pad the host does not know) gets a turn of its own in
 * the next round.  A broadcast that asks no answer goes at the end of a
 * round.  Discovery runs at the end of a round about once a second; when a
 * silence heard a garbled candidate (two HELLOs collided: a CRC or COBS
 * fault), the next round's end runs it again, up to
 * POLLER_DISCOVERY_RETRIES times in a row.
 *
 * Invariants:
 * - nothing is handed back while the line is the pads' (REPLY, SILENT), nor
 *   within one byte time of the frame that ended a REPLY: the host never
 *   speaks over a pad, and a pad has that long to drop its driver enable;
 * - one frame a turn, and a turn's frame is the only one the host sends
 *   until its answer came or its wait ran out: a pad never has two frames
 *   to answer;
 * - frames to one address leave in the order they were queued (their seq
 *   is given when written), except that a re-queued ASSIGN of the same uid
 *   replaces the one still waiting;
 * - the longest time between two turns of a connected device is
 *   poller_cycle_usec() of the connected devices on the line.
 *
 * Times are CLOCK_MONOTONIC µs; air times are counted at the line's baud
 * whatever the port is (a pseudo-terminal standing for a bus takes its
 * turns as a real bus would).
 */
#ifndef ARBITER_HARDWARE_POLLER_H
#define ARBITER_HARDWARE_POLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hardware/frame.h"

/* Frames waiting for their turn on one line: a few per pad (an ACK, a
 * LIGHT, a SYNC) for a bus's worth of pads.  A frame that finds the queue
 * full is dropped and counted, as a full kernel buffer's is. */
#define POLLER_QUEUE_MAX        64
/* Addresses on one line (docs/protocol.md section 5). */
#define POLLER_DEVICES_MAX      PROTO_ADDR_MAX
/* Section 10: the host waits for a reply its air time plus a margin: the
 * pad's 500 µs to start, and what the host's own adapter adds.  A USB
 * serial adapter hands bytes over in 1 ms frames both ways and holds what
 * it received for its latency timer (1 ms in low-latency mode, FTDI's
 * AN232B-04): about 3 ms in all.  [pads] rs485_reply_margin. */
#define POLLER_REPLY_MARGIN_DEFAULT_USEC        3000
#define POLLER_REPLY_MARGIN_MIN_USEC            500
/* Section 10: discovery's HELLO slots, A(HELLO) + 100 µs wide. */
#define POLLER_DISCOVERY_SLOTS          16
#define POLLER_DISCOVERY_GUARD_USEC     100
/* Section 10: discovery about once a second. */
#define POLLER_DISCOVERY_INTERVAL_USEC  1000000
/* A silence that heard a collision is followed by another at the end of
 * the next round, this many times in a row at most (then once a second
 * again: a noisy line must not take every other round). */
#define POLLER_DISCOVERY_RETRIES        3
/* A disconnected device is polled about this often. */
#define POLLER_GONE_POLL_USEC           1000000
/* Rounds start at most this often: a bus with one pad is polled 500 times
 * a second, not as fast as it answers (a turn costs the daemon's loop a
 * few wake-ups: on the emulated pad, about 20 % of a core at 1,700 turns
 * a second), while six pads at 1 Mbaud take longer than this for a round
 * anyway (section 10: about 2 ms). */
#define POLLER_ROUND_MIN_USEC           2000

struct poller_device {
        uint8_t address;                /* 1 .. PROTO_ADDR_MAX */
        bool connected;                 /* heard lately: polled every round */
};

/* The devices on the line now, in any order; returns how many. */
typedef size_t (*poller_devices_fn)(void *userdata, struct poller_device out[POLLER_DEVICES_MAX]);

struct poller_counters {
        uint64_t polls;                 /* turns given: frames that asked a device for its answer */
        uint64_t poll_timeouts;         /* turns that ended without a frame from the device */
        uint64_t discoveries;           /* discovery silences (HOST_BEAT to address 0) */
        uint64_t dropped;               /* frames the queue had no room for */
};

enum poller_state {
        POLLER_FREE,                    /* the host's: the next frame may go at free_at_usec */
        POLLER_REPLY,                   /* a turn's: until the answer or until_usec */
        POLLER_SILENT,                  /* discovery's: until until_usec */
};

struct poller_entry {
        struct frame f;                 /* f.address: its destination */
        uint8_t turn;                   /* the device whose turn carries it; 0xff: none */
};

struct poller {
        unsigned baud;
        unsigned margin_us;             /* beyond the air times, for an answer to come */
        bool wire_time;                 /* answers take their air time (poller_start) */
        poller_devices_fn devices;
        void *userdata;

        enum poller_state state;
        int64_t until_usec;             /* REPLY, SILENT: when the wait ends */
        int64_t earliest_usec;          /* REPLY: no answer can be complete before then */
        int64_t free_at_usec;           /* FREE: not before then (turnaround, a broadcast's air time) */
        uint8_t awaited[2];             /* REPLY: addresses whose frame ends the wait */
        bool garbled;                   /* SILENT: a bad candidate was heard */
        unsigned discovery_retries;
        int64_t next_discovery_usec;

        struct poller_entry queue[POLLER_QUEUE_MAX];    /* oldest first */
        size_t n_queued;

        uint8_t round[POLLER_DEVICES_MAX + 1];          /* addresses, in the order polled */
        size_t n_round, pos;
        int64_t round_start_usec;
        int64_t last_poll_usec[256];    /* per address; 0: never */

        struct poller_counters counters;
};

/* margin_us: how long past the air times an answer may take to be heard
 * (POLLER_REPLY_MARGIN_DEFAULT_USEC). */
void poller_init(struct poller *pl, unsigned baud, unsigned margin_us, poller_devices_fn devices, void *userdata);

/* The port (re)opened: nothing queued, the line free, a discovery first
 * (after any broadcast queued from now on).  wire_time: frames take their
 * air time on it (a serial port, a pty standing for a line); false: a pty
 * whose answers may come at once, sooner than a line could carry them. */
void poller_start(struct poller *pl, int64_t now, bool wire_time);

/* Queues a frame (f->address its destination; version and seq are the
 * writer's) for its turn.  0, or -ENOBUFS (counted in dropped). */
int poller_queue(struct poller *pl, const struct frame *f);

/* The line carried a valid frame from a pad at address.  It ends a turn
 * given to that address (a unicast RESET's: or to 0), unless it came
 * sooner than the turn's frame and the shortest answer (a PRESS, 16 bytes)
 * can take: then it is the late answer to that device's turn before, which
 * timed out, and the pad still has this one to answer.  (On a line
 * without wire time, a pty, any frame from the address ends the turn.) */
void poller_heard(struct poller *pl, int64_t now, uint8_t address);

/* The line carried a candidate that did not decode (noise, a collision). */
void poller_garbled(struct poller *pl, int64_t now);

/* What the line wants at now.  True: write *ret now (ret->address is its
 * destination), and call again.  False: nothing to write before *ret_wake
 * (INT64_MAX: nothing until a frame is queued). */
bool poller_next(struct poller *pl, int64_t now, struct frame *ret, int64_t *ret_wake);

/* When poller_next() has something to do, without doing it: the earliest
 * of the wait's end, the turnaround, the next discovery; now or earlier
 * when a frame may go at once. */
int64_t poller_wake(const struct poller *pl);

/* Air time of n bytes at baud, µs. */
int64_t poller_air_usec(unsigned baud, size_t n);

/* Wire bytes of a frame the host sends on RS-485 with a payload of len:
 * its leading 0x00, COBS and the delimiter (docs/protocol.md sections 2, 4). */
size_t poller_wire_bytes(size_t len);

/* The longest a discovery keeps the line: the HOST_BEAT, 16 slots and the
 * margin. */
int64_t poller_discovery_usec(unsigned baud, unsigned margin_us);

/* The longest time between two turns of one of n connected devices: the
 * others' turns and a disconnected device's in each of two rounds, each up
 * to its wait's end, one discovery and a round's minimum.  At 1 Mbaud with
 * the default margin (a turn up to 3.45 ms, a discovery 8.7 ms), one pad:
 * 3 × 3.45 + 8.7 + 2 ≈ 21 ms; six: 8 × 3.45 + 8.7 + 2 ≈ 38 ms.  (A round
 * where every pad answers at once, without a USB adapter's delays, takes
 * about 0.45 ms a pad.) */
int64_t poller_cycle_usec(unsigned baud, unsigned margin_us, unsigned n_connected);

#endif
