/* hardware/poller.c — see poller.h. */
#include "hardware/poller.h"

#include <errno.h>
#include <string.h>

/* Start, stop and 8 data bits per byte on an 8N1 line. */
#define BITS_PER_BYTE           10
#define USEC_PER_SEC            1000000
/* Not a turn: a broadcast that asks no answer. */
#define NO_TURN                 PROTO_ADDR_BROADCAST
/* A HELLO's wire bytes (docs/protocol.md section 2: 9 + 16) and, on
 * RS-485, the 0x00 every transmission starts with (section 4). */
#define HELLO_WIRE_BYTES        25
#define LEADING_ZERO_BYTES      1
/* The longest frame the host sends: an ASSIGN's 9-byte payload. */
#define LONGEST_HOST_PAYLOAD    9
/* The shortest answer to a turn: a PRESS or RELEASE, 16 wire bytes
 * (section 2), without the leading 0x00 a pad should but need not send. */
#define SHORTEST_ANSWER_BYTES   16

int64_t poller_air_usec(unsigned baud, size_t n) {
        return baud ? (int64_t) n * BITS_PER_BYTE * USEC_PER_SEC / baud : 0;
}

size_t poller_wire_bytes(size_t len) {
        /* header, payload and CRC; COBS adds one byte to a frame this short */
        return LEADING_ZERO_BYTES + PROTO_HEADER_LEN + len + PROTO_CRC_LEN + 1 + 1;
}

/* How long a turn's frame of payload len keeps the line, at most: its own
 * air time, then the longest answer (a HELLO: a pad whose host came back
 * says it first) and the margin. */
static int64_t turn_usec(unsigned baud, unsigned margin_us, size_t len) {
        return poller_air_usec(baud, poller_wire_bytes(len)) +
               poller_air_usec(baud, LEADING_ZERO_BYTES + HELLO_WIRE_BYTES) + margin_us;
}

int64_t poller_discovery_usec(unsigned baud, unsigned margin_us) {
        int64_t slot = poller_air_usec(baud, HELLO_WIRE_BYTES) + POLLER_DISCOVERY_GUARD_USEC;

        /* A pad's slots start at the HOST_BEAT's delimiter; the last slot's
         * HELLO, with its leading 0x00, ends within the 16th slot plus a
         * byte time. */
        return poller_air_usec(baud, poller_wire_bytes(0)) + POLLER_DISCOVERY_SLOTS * slot +
               poller_air_usec(baud, LEADING_ZERO_BYTES) + margin_us;
}

int64_t poller_cycle_usec(unsigned baud, unsigned margin_us, unsigned n_connected) {
        /* From a device's turn to its next: the rest of its round and the
         * next one up to it, n - 1 other connected devices' turns, the
         * device's own, and a disconnected device's in each round; a
         * discovery and the wait for the round's minimum in between. */
        return (int64_t) (n_connected + 2) * turn_usec(baud, margin_us, LONGEST_HOST_PAYLOAD) +
               poller_discovery_usec(baud, margin_us) + POLLER_ROUND_MIN_USEC;
}

void poller_init(struct poller *pl, unsigned baud, unsigned margin_us, poller_devices_fn devices, void *userdata) {
        memset(pl, 0, sizeof *pl);
        pl->baud = baud;
        pl->margin_us = margin_us;
        pl->devices = devices;
        pl->userdata = userdata;
}

void poller_start(struct poller *pl, int64_t now, bool wire_time) {
        pl->wire_time = wire_time;
        pl->state = POLLER_FREE;
        pl->free_at_usec = now;
        pl->n_queued = 0;
        pl->n_round = pl->pos = 0;
        pl->round_start_usec = INT64_MIN / 2;
        pl->garbled = false;
        pl->discovery_retries = 0;
        pl->next_discovery_usec = now;
}

/* The device whose turn carries f: an ASSIGN's is the address it gives. */
static uint8_t turn_of(const struct frame *f) {
        struct proto_assign a;

        if (f->type == PROTO_ASSIGN && proto_unpack_assign(f, &a) == 0)
                return a.address;
        return f->address;
}

int poller_queue(struct poller *pl, const struct frame *f) {
        struct poller_entry e = { .f = *f, .turn = turn_of(f) };

        if (f->type == PROTO_ASSIGN) {
                /* An ASSIGN re-sent before the last one went: one is enough.
                 * The uid is the payload's first 8 bytes. */
                for (size_t i = 0; i < pl->n_queued; i++)
                        if (pl->queue[i].f.type == PROTO_ASSIGN && memcmp(pl->queue[i].f.payload, f->payload, 8) == 0) {
                                pl->queue[i] = e;
                                return 0;
                        }
        }
        if (pl->n_queued == POLLER_QUEUE_MAX) {
                pl->counters.dropped++;
                return -ENOBUFS;
        }
        pl->queue[pl->n_queued++] = e;
        return 0;
}

void poller_heard(struct poller *pl, int64_t now, uint8_t address) {
        if (pl->state != POLLER_REPLY || (address != pl->awaited[0] && address != pl->awaited[1]))
                return;
        /* Sooner than the turn's frame and the shortest answer take on the
         * line, it is not this turn's answer: the answer to the last one,
         * late (past its deadline), and the pad has this one still to
         * answer. */
        if (now < pl->earliest_usec)
                return;
        /* The answer: the pad drops its driver enable within a byte time. */
        pl->state = POLLER_FREE;
        pl->free_at_usec = now + poller_air_usec(pl->baud, 1);
}

void poller_garbled(struct poller *pl, int64_t now) {
        (void) now;
        if (pl->state == POLLER_SILENT)
                pl->garbled = true;
}

/* Takes the oldest queued entry with this turn into *ret. */
static bool dequeue(struct poller *pl, uint8_t turn, struct frame *ret) {
        for (size_t i = 0; i < pl->n_queued; i++)
                if (pl->queue[i].turn == turn) {
                        *ret = pl->queue[i].f;
                        memmove(&pl->queue[i], &pl->queue[i + 1], (pl->n_queued - i - 1) * sizeof pl->queue[0]);
                        pl->n_queued--;
                        return true;
                }
        return false;
}

static bool in_round(const struct poller *pl, uint8_t address) {
        for (size_t i = 0; i < pl->n_round; i++)
                if (pl->round[i] == address)
                        return true;
        return false;
}

/* The next round: connected devices in address order, at most one
 * disconnected device due a poll, then the turns of queued frames for
 * addresses that are no device. */
static void new_round(struct poller *pl, int64_t now) {
        struct poller_device d[POLLER_DEVICES_MAX];
        bool connected[256] = { false }, gone[256] = { false };
        size_t n = pl->devices ? pl->devices(pl->userdata, d) : 0;
        int oldest = -1;

        for (size_t i = 0; i < n; i++) {
                if (d[i].address == PROTO_ADDR_UNASSIGNED || d[i].address > PROTO_ADDR_MAX)
                        continue;
                if (d[i].connected)
                        connected[d[i].address] = true;
                else
                        gone[d[i].address] = true;
        }
        pl->n_round = pl->pos = 0;
        for (unsigned a = 1; a <= PROTO_ADDR_MAX; a++) {
                if (connected[a]) {
                        pl->round[pl->n_round++] = (uint8_t) a;
                } else if (gone[a] && now - pl->last_poll_usec[a] >= POLLER_GONE_POLL_USEC &&
                           (oldest < 0 || pl->last_poll_usec[a] < pl->last_poll_usec[oldest])) {
                        oldest = (int) a;
                }
        }
        if (oldest >= 0)
                pl->round[pl->n_round++] = (uint8_t) oldest;
        for (size_t i = 0; i < pl->n_queued && pl->n_round < sizeof pl->round; i++) {
                uint8_t t = pl->queue[i].turn;
                if (t != NO_TURN && !in_round(pl, t))
                        pl->round[pl->n_round++] = t;
        }
}

/* f goes out now as address's turn: the line is the pads' until its answer. */
static void give_turn(struct poller *pl, int64_t now, uint8_t address, const struct frame *f) {
        pl->state = POLLER_REPLY;
        pl->until_usec = now + turn_usec(pl->baud, pl->margin_us, f->len);
        pl->earliest_usec = !pl->wire_time ? now
                                           : now + poller_air_usec(pl->baud, poller_wire_bytes(f->len)) +
                                                     poller_air_usec(pl->baud, SHORTEST_ANSWER_BYTES);
        pl->awaited[0] = pl->awaited[1] = address;
        if (f->type == PROTO_RESET)
                pl->awaited[1] = PROTO_ADDR_UNASSIGNED;         /* it answers with a HELLO from 0 */
        pl->last_poll_usec[address] = now;
        pl->counters.polls++;
}

bool poller_next(struct poller *pl, int64_t now, struct frame *ret, int64_t *ret_wake) {
        for (;;) {
                switch (pl->state) {
                case POLLER_REPLY:
                        if (now < pl->until_usec) {
                                *ret_wake = pl->until_usec;
                                return false;
                        }
                        pl->counters.poll_timeouts++;
                        pl->state = POLLER_FREE;
                        pl->free_at_usec = now;
                        continue;
                case POLLER_SILENT:
                        if (now < pl->until_usec) {
                                *ret_wake = pl->until_usec;
                                return false;
                        }
                        pl->state = POLLER_FREE;
                        pl->free_at_usec = now;
                        if (pl->garbled && pl->discovery_retries < POLLER_DISCOVERY_RETRIES) {
                                pl->discovery_retries++;
                                pl->next_discovery_usec = now;  /* again after the next round */
                        } else {
                                pl->discovery_retries = 0;
                        }
                        /* A round at once (with the ASSIGNs for the pads
                         * found), before a discovery retried may run. */
                        pl->round_start_usec = now;
                        new_round(pl, now);
                        continue;
                case POLLER_FREE:
                        break;
                }
                if (now < pl->free_at_usec) {
                        *ret_wake = poller_wake(pl);    /* what is next, once the line is free */
                        return false;
                }
                if (pl->pos < pl->n_round) {
                        uint8_t a = pl->round[pl->pos++];
                        if (!dequeue(pl, a, ret)) {
                                proto_pack_empty(ret, PROTO_HOST_BEAT);
                                ret->address = a;
                        }
                        give_turn(pl, now, a, ret);
                        return true;
                }
                /* The end of a round. */
                if (dequeue(pl, NO_TURN, ret)) {
                        pl->free_at_usec = now + poller_air_usec(pl->baud, poller_wire_bytes(ret->len));
                        return true;
                }
                if (now >= pl->next_discovery_usec) {
                        proto_pack_empty(ret, PROTO_HOST_BEAT);
                        ret->address = PROTO_ADDR_UNASSIGNED;
                        pl->state = POLLER_SILENT;
                        pl->until_usec = now + poller_discovery_usec(pl->baud, pl->margin_us);
                        pl->garbled = false;
                        pl->next_discovery_usec = now + POLLER_DISCOVERY_INTERVAL_USEC;
                        pl->counters.discoveries++;
                        return true;
                }
                if (!pl->n_round && !pl->n_queued) {
                        /* Idle: the last round found no device.  Until a
                         * frame is queued (an ASSIGN for a pad a discovery
                         * found) or the next discovery. */
                        *ret_wake = pl->next_discovery_usec;
                        return false;
                }
                if (now < pl->round_start_usec + POLLER_ROUND_MIN_USEC) {
                        *ret_wake = pl->round_start_usec + POLLER_ROUND_MIN_USEC;
                        if (pl->next_discovery_usec < *ret_wake)
                                *ret_wake = pl->next_discovery_usec;
                        return false;
                }
                pl->round_start_usec = now;
                new_round(pl, now);
                if (pl->n_round == 0) {
                        *ret_wake = pl->next_discovery_usec;
                        return false;
                }
        }
}

int64_t poller_wake(const struct poller *pl) {
        switch (pl->state) {
        case POLLER_REPLY:
        case POLLER_SILENT:
                return pl->until_usec;
        case POLLER_FREE:
                break;
        }
        if (pl->pos < pl->n_round)
                return pl->free_at_usec;        /* the round goes on */
        for (size_t i = 0; i < pl->n_queued; i++)
                if (pl->queue[i].turn == NO_TURN)
                        return pl->free_at_usec;        /* a broadcast at the round's end */
        int64_t t = pl->next_discovery_usec;
        /* The next round, unless the last one found no device and nothing
         * is queued (idle, as poller_next() says). */
        if ((pl->n_round || pl->n_queued) && pl->round_start_usec + POLLER_ROUND_MIN_USEC < t)
                t = pl->round_start_usec + POLLER_ROUND_MIN_USEC;
        return t > pl->free_at_usec ? t : pl->free_at_usec;
}
