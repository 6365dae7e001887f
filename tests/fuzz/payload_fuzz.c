/* libFuzzer target: the payloads of the pad messages the host reads
 * (hardware/frame.c's unpack functions): HELLO, PRESS and RELEASE (an
 * event), SYNC_REPLY, and HEARTBEAT, with any type, any claimed length
 * (0..255) and any bytes — what frame_fuzz.c cannot reach, since the
 * decoder delivers only frames whose length fits their type — and what the
 * pad bus makes of them (hardware/padbus.c): a HELLO's clock rate starts a
 * clock model, a SYNC_REPLY's stamps feed it, an event's stamp is mapped
 * by it.
 *
 * Input: byte 0 the type, byte 1 the length the frame claims, byte 2 its
 * address, then up to PROTO_MAX_PAYLOAD payload bytes (missing ones are
 * 0), then the host times of a SYNC exchange (two u32).
 *
 * Invariants:
 *   - each unpack succeeds exactly for its own type(s) with its length
 *     (protocol.h), and then gives the fields at the offsets protocol.h
 *     documents, little-endian; packing them again gives the same payload,
 *     its unused tail zeroed, and the right type, length and version;
 *   - a frame of that type, length and payload, encoded, is delivered by
 *     the stream decoder exactly when the type is known and the length is
 *     its length (else counted as an unknown type or a bad length), and
 *     then equals what was encoded;
 *   - any HELLO rate starts a clock model; a SYNC_REPLY's stamps give a
 *     verdict (or -EINVAL, -EOPNOTSUPP as clock.h says); an event's stamp
 *     is mapped, or refused for the receive-time fallback.
 *
 * tests/unit/test_fuzz_payload.c replays tests/fuzz/corpus/payload/
 * through payload_fuzz_check().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/clock.h"
#include "hardware/frame.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t payload_fuzz_le(const uint8_t *p, int n) {
        uint64_t v = 0;

        for (int i = n - 1; i >= 0; i--)
                v = v << 8 | p[i];
        return v;
}

/* g is f's message packed again: the same bytes, the tail zeroed. */
static void payload_fuzz_repacked(const struct frame *f, const struct frame *g) {
        FUZZ_ASSERT(g->version == PROTO_VERSION && g->type == f->type && g->len == f->len);
        FUZZ_ASSERT(memcmp(g->payload, f->payload, f->len) == 0);
        for (size_t i = f->len; i < sizeof g->payload; i++)
                FUZZ_ASSERT(g->payload[i] == 0);
}

struct payload_fuzz_decoded {
        unsigned count;
        struct frame frame;
};

static void payload_fuzz_keep(void *userdata, const struct frame *f) {
        struct payload_fuzz_decoded *d = userdata;

        d->count++;
        d->frame = *f;
}

static void payload_fuzz_wire(const struct frame *f) {
        uint8_t wire[PROTO_MAX_ENCODED];
        struct payload_fuzz_decoded got = { 0 };
        struct frame_decoder dec;
        int expected = proto_payload_len(f->type);
        int n = frame_encode(f, wire, sizeof wire);

        if (f->len > PROTO_MAX_PAYLOAD) {
                FUZZ_ASSERT(n == -EINVAL);
                return;
        }
        FUZZ_ASSERT(n > 0 && (size_t) n <= sizeof wire);
        frame_decoder_init(&dec);
        frame_decoder_feed(&dec, wire, (size_t) n, payload_fuzz_keep, &got);
        if (expected >= 0 && expected == f->len) {
                FUZZ_ASSERT(got.count == 1 && dec.faults.frames == 1);
                FUZZ_ASSERT(got.frame.type == f->type && got.frame.len == f->len && got.frame.address == f->address &&
                            got.frame.seq == f->seq && memcmp(got.frame.payload, f->payload, f->len) == 0);
        } else {
                FUZZ_ASSERT(got.count == 0);
                FUZZ_ASSERT(expected < 0 ? dec.faults.unknown_type == 1 : dec.faults.bad_length == 1);
        }
}

static void payload_fuzz_check(const uint8_t *data, size_t size) {
        struct frame f = { .version = PROTO_VERSION }, g;
        struct proto_hello h;
        struct proto_event e;
        struct proto_sync_reply s;
        struct proto_heartbeat hb;
        struct clock_model m;
        size_t n;
        int r;

        if (size < 3)
                return;
        f.type = data[0];
        f.len = data[1];
        f.address = data[2];
        f.seq = (uint16_t) (data[0] << 8 | data[2]);
        n = size - 3 < PROTO_MAX_PAYLOAD ? size - 3 : PROTO_MAX_PAYLOAD;
        memcpy(f.payload, data + 3, n);

        r = proto_unpack_hello(&f, &h);
        FUZZ_ASSERT((r == 0) == (f.type == PROTO_HELLO && f.len == 16));
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        if (r == 0) {
                FUZZ_ASSERT(h.uid == payload_fuzz_le(f.payload, 8) && h.kind == f.payload[8] &&
                            h.n_buttons == f.payload[9] && h.fw_major == f.payload[10] && h.fw_minor == f.payload[11] &&
                            h.clock_hz == payload_fuzz_le(f.payload + 12, 4));
                proto_pack_hello(&g, &h);
                payload_fuzz_repacked(&f, &g);
                /* the pad bus starts the pad's clock at its announced rate */
                FUZZ_ASSERT(clock_model_init(&m, h.clock_hz, NULL) == 0);
                FUZZ_ASSERT(!clock_model_synced(&m));
        }

        r = proto_unpack_event(&f, &e);
        FUZZ_ASSERT((r == 0) == ((f.type == PROTO_PRESS || f.type == PROTO_RELEASE) && f.len == 7));
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        if (r == 0) {
                int64_t t = 0, u = 0;

                FUZZ_ASSERT(e.event_no == payload_fuzz_le(f.payload, 2) && e.button == f.payload[2] &&
                            e.pad_time == payload_fuzz_le(f.payload + 3, 4));
                proto_pack_event(&g, f.type, &e);
                payload_fuzz_repacked(&f, &g);
                /* a fresh model cannot map it: the receive-time fallback */
                FUZZ_ASSERT(clock_model_init(&m, f.address ? 1000000 : 0, NULL) == 0);
                r = clock_model_to_host(&m, e.pad_time, &t, &u);
                FUZZ_ASSERT(r == (f.address ? -EAGAIN : -EOPNOTSUPP));
                FUZZ_ASSERT(clock_model_receive_time(&m, 1000000, &t, &u) == 0 && t == 1000000 - 1000 && u == 2000);
        }

        r = proto_unpack_sync_reply(&f, &s);
        FUZZ_ASSERT((r == 0) == (f.type == PROTO_SYNC_REPLY && f.len == 10));
        FUZZ_ASSERT(r == 0 || r == -EBADMSG);
        if (r == 0) {
                const uint8_t *times = data + 3 + PROTO_MAX_PAYLOAD;
                bool given = size >= 3 + PROTO_MAX_PAYLOAD + 8;
                int64_t t1 = given ? (int64_t) payload_fuzz_le(times, 4) : 1000000,
                        t4 = given ? (int64_t) payload_fuzz_le(times + 4, 4) : 1002000;

                FUZZ_ASSERT(s.sync_id == payload_fuzz_le(f.payload, 2) &&
                            s.rx_time == payload_fuzz_le(f.payload + 2, 4) &&
                            s.tx_time == payload_fuzz_le(f.payload + 6, 4));
                proto_pack_sync_reply(&g, &s);
                payload_fuzz_repacked(&f, &g);
                FUZZ_ASSERT(clock_model_init(&m, f.address ? 1000000 : 0, NULL) == 0);
                r = clock_model_add_sync(&m, t1, t4, s.rx_time, s.tx_time);
                if (!f.address)
                        FUZZ_ASSERT(r == -EOPNOTSUPP);
                else if (t4 < t1)
                        FUZZ_ASSERT(r == -EINVAL);
                else
                        FUZZ_ASSERT(r >= CLOCK_ACCEPTED && r <= CLOCK_RESTARTED);
        }

        r = proto_unpack_heartbeat(&f, &hb);
        FUZZ_ASSERT((r == 0) == (f.type == PROTO_HEARTBEAT && f.len == 8));
        if (r == 0) {
                FUZZ_ASSERT(hb.pad_time == payload_fuzz_le(f.payload, 4) &&
                            hb.pending_events == payload_fuzz_le(f.payload + 4, 2) &&
                            hb.rx_errors == payload_fuzz_le(f.payload + 6, 2));
                proto_pack_heartbeat(&g, &hb);
                payload_fuzz_repacked(&f, &g);
        }

        payload_fuzz_wire(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        payload_fuzz_check(data, size);
        return 0;
}
