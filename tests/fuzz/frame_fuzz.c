/* libFuzzer target: the pad bus frame codec (hardware/frame.c).
 *
 * Arbitrary bytes are fed to the stream decoder whole, in reads of
 * arbitrary sizes (1..64 bytes, chosen from the input), and byte by byte.
 * Invariants:
 *   - the three feedings deliver the same frames and the same counters;
 *   - a delivered frame has version 1, a known type and that type's
 *     payload length, unpacks, and re-encodes to bytes that decode to the
 *     same frame;
 *   - every delimiter ends exactly one candidate and every candidate lands
 *     in exactly one counter (frame.c states this invariant);
 *   - COBS: decode then encode then decode is stable, encode then decode is
 *     the identity, and an encoding never holds a 0x00.
 *
 * tests/unit/test_frame.c includes this file and replays
 * tests/fuzz/corpus/frame/ through frame_fuzz_check() with FUZZ_ASSERT
 * mapped to cmocka, so an input kept there is a regression test.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/frame.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

/* Reads a real serial port returns: up to the 64 bytes of a full-speed USB
 * packet, the largest one read usually brings from a USB serial adapter. */
#define FUZZ_MAX_READ   64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one feeding of the input produced, summarised: the number of frames
 * and an FNV-1a hash over their canonical encodings, in order. */
struct fuzz_run {
        uint64_t frames;
        uint64_t hash;
};

#define FNV_OFFSET      0xcbf29ce484222325ULL   /* FNV-1a 64-bit parameters */
#define FNV_PRIME       0x100000001b3ULL

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
        const uint8_t *b = p;

        for (size_t i = 0; i < n; i++)
                h = (h ^ b[i]) * FNV_PRIME;
        return h;
}

static bool frames_equal(const struct frame *a, const struct frame *b) {
        return a->version == b->version && a->address == b->address && a->seq == b->seq &&
               a->type == b->type && a->len == b->len &&
               memcmp(a->payload, b->payload, sizeof a->payload) == 0;
}

struct kept {
        struct frame frame;
        unsigned count;
};

static void keep_frame(void *userdata, const struct frame *f) {
        struct kept *k = userdata;

        k->frame = *f;
        k->count++;
}

/* Unpacks f with the helper for its type and packs the message again: the
 * payload must come back byte for byte. */
static void check_unpack_repack(const struct frame *f) {
        struct frame g = { 0 };

        switch (f->type) {
        case PROTO_HELLO: {
                struct proto_hello m;
                FUZZ_ASSERT(proto_unpack_hello(f, &m) == 0);
                proto_pack_hello(&g, &m);
                break;
        }
        case PROTO_PRESS:
        case PROTO_RELEASE: {
                struct proto_event m;
                FUZZ_ASSERT(proto_unpack_event(f, &m) == 0);
                proto_pack_event(&g, f->type, &m);
                break;
        }
        case PROTO_SYNC_REPLY: {
                struct proto_sync_reply m;
                FUZZ_ASSERT(proto_unpack_sync_reply(f, &m) == 0);
                proto_pack_sync_reply(&g, &m);
                break;
        }
        case PROTO_HEARTBEAT: {
                struct proto_heartbeat m;
                FUZZ_ASSERT(proto_unpack_heartbeat(f, &m) == 0);
                proto_pack_heartbeat(&g, &m);
                break;
        }
        case PROTO_ASSIGN: {
                struct proto_assign m;
                FUZZ_ASSERT(proto_unpack_assign(f, &m) == 0);
                proto_pack_assign(&g, &m);
                break;
        }
        case PROTO_ACK: {
                struct proto_ack m;
                FUZZ_ASSERT(proto_unpack_ack(f, &m) == 0);
                proto_pack_ack(&g, &m);
                break;
        }
        case PROTO_SYNC: {
                struct proto_sync m;
                FUZZ_ASSERT(proto_unpack_sync(f, &m) == 0);
                proto_pack_sync(&g, &m);
                break;
        }
        case PROTO_LIGHT: {
                struct proto_light m;
                FUZZ_ASSERT(proto_unpack_light(f, &m) == 0);
                proto_pack_light(&g, &m);
                break;
        }
        case PROTO_BUZZ: {
                struct proto_buzz m;
                FUZZ_ASSERT(proto_unpack_buzz(f, &m) == 0);
                proto_pack_buzz(&g, &m);
                break;
        }
        case PROTO_LOCKOUT: {
                struct proto_lockout m;
                FUZZ_ASSERT(proto_unpack_lockout(f, &m) == 0);
                proto_pack_lockout(&g, &m);
                break;
        }
        case PROTO_RESET:
        case PROTO_HOST_BEAT:
                proto_pack_empty(&g, f->type);
                break;
        default:
                FUZZ_ASSERT(!"a delivered frame has a known type");
        }
        g.address = f->address;
        g.seq = f->seq;
        FUZZ_ASSERT(frames_equal(f, &g));
}

static void check_frame(void *userdata, const struct frame *f) {
        struct fuzz_run *run = userdata;
        uint8_t wire[PROTO_MAX_ENCODED];
        struct frame_decoder again;
        struct kept back = { .count = 0 };
        int n;

        FUZZ_ASSERT(f->version == PROTO_VERSION);
        FUZZ_ASSERT(f->len <= PROTO_MAX_PAYLOAD);
        FUZZ_ASSERT(proto_payload_len(f->type) == f->len);
        for (size_t i = f->len; i < sizeof f->payload; i++)
                FUZZ_ASSERT(f->payload[i] == 0);
        check_unpack_repack(f);

        n = frame_encode(f, wire, sizeof wire);
        FUZZ_ASSERT(n > 0 && (size_t) n <= sizeof wire);
        FUZZ_ASSERT(wire[n - 1] == 0 && memchr(wire, 0, (size_t) n - 1) == NULL);
        frame_decoder_init(&again);
        frame_decoder_feed(&again, wire, (size_t) n, keep_frame, &back);
        FUZZ_ASSERT(again.faults.frames == 1 && back.count == 1);
        FUZZ_ASSERT(frames_equal(f, &back.frame));

        run->frames++;
        run->hash = fnv1a(run->hash, wire, (size_t) n);
}

/* Every delimiter closes one candidate; an overlong candidate is counted
 * when it overflows, so one still open at the end is already counted. */
static void check_outcomes(const struct frame_decoder *d, const uint8_t *data, size_t size) {
        const struct frame_faults *c = &d->faults;
        uint64_t delimiters = 0, outcomes;

        for (size_t i = 0; i < size; i++)
                delimiters += data[i] == 0;
        outcomes = c->frames + c->empty + c->overlong + c->cobs + c->short_frame + c->crc +
                   c->version + c->unknown_type + c->bad_length;
        FUZZ_ASSERT(c->bytes == size);
        FUZZ_ASSERT(outcomes == delimiters + (d->overflow ? 1 : 0));
        FUZZ_ASSERT(d->len < PROTO_MAX_ENCODED);
        FUZZ_ASSERT(!d->overflow || d->len == 0);
}

/* Feeds data in reads whose sizes come from a small LCG (Numerical Recipes
 * constants) seeded from the input, so each input explores its own splits. */
static void feed(const uint8_t *data, size_t size, size_t fixed_read, struct frame_decoder *d,
                 struct fuzz_run *run) {
        uint32_t lcg = (uint32_t) size * 2654435761u ^ (size ? data[0] : 0);
        size_t at = 0;

        frame_decoder_init(d);
        run->frames = 0;
        run->hash = FNV_OFFSET;
        while (at < size) {
                size_t want = fixed_read;

                if (want == 0) {
                        lcg = lcg * 1664525u + 1013904223u;
                        want = 1 + (lcg >> 16) % FUZZ_MAX_READ;
                }
                if (want > size - at)
                        want = size - at;
                frame_decoder_feed(d, data + at, want, check_frame, run);
                at += want;
        }
        check_outcomes(d, data, size);
}

static void check_cobs(const uint8_t *data, size_t size) {
        size_t cap = size + size / 254 + 1;
        uint8_t *enc = malloc(cap), *dec = malloc(cap), *again = malloc(cap);
        int n, m;

        if (!enc || !dec || !again)
                goto out;
        n = cobs_encode(data, size, enc, cap);
        FUZZ_ASSERT(n > 0 && (size_t) n <= cap);
        FUZZ_ASSERT(memchr(enc, 0, (size_t) n) == NULL);
        m = cobs_decode(enc, (size_t) n, dec, cap);
        FUZZ_ASSERT(m >= 0 && (size_t) m == size);
        FUZZ_ASSERT(size == 0 || memcmp(dec, data, size) == 0);

        n = cobs_decode(data, size, dec, cap);
        if (n >= 0) {
                FUZZ_ASSERT((size_t) n < size);
                m = cobs_encode(dec, (size_t) n, enc, cap);
                FUZZ_ASSERT(m > 0 && (size_t) m <= size);
                m = cobs_decode(enc, (size_t) m, again, cap);
                FUZZ_ASSERT(m == n && memcmp(again, dec, (size_t) n) == 0);
        }
out:
        free(enc);
        free(dec);
        free(again);
}

static void frame_fuzz_check(const uint8_t *data, size_t size) {
        struct frame_decoder whole, split, bytewise;
        struct fuzz_run a, b, c;

        feed(data, size, size ? size : 1, &whole, &a);
        feed(data, size, 0, &split, &b);
        feed(data, size, 1, &bytewise, &c);
        FUZZ_ASSERT(a.frames == b.frames && a.hash == b.hash);
        FUZZ_ASSERT(a.frames == c.frames && a.hash == c.hash);
        FUZZ_ASSERT(memcmp(&whole.faults, &split.faults, sizeof whole.faults) == 0);
        FUZZ_ASSERT(memcmp(&whole.faults, &bytewise.faults, sizeof whole.faults) == 0);
        FUZZ_ASSERT(a.frames == whole.faults.frames);
        check_cobs(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        frame_fuzz_check(data, size);
        return 0;
}
