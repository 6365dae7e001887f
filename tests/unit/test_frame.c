/* tests/unit/test_frame.c — hardware/frame.c: the CRC (check value, table,
 * the error-detection guarantee docs/protocol.md promises), COBS, the wire
 * layout of every message type, every class of corrupt candidate counted
 * exactly once, split reads, the recorded streams in tests/data/frames/
 * against their golden output, and the fuzz corpus as regression inputs.
 *
 * Run from the repository root (tests/data/ and tests/fuzz/corpus/ are found
 * relative to it).
 *
 * The recordings tests/data/frames/{clean_session,noisy_line,
 * overlong_resync,bad_classes}.bin and their .golden files are written by
 * the generators at the end of this file:
 *
 *     ARBITER_REGENERATE_GOLDEN=1 build/tests/unit/test_frame
 *
 * rewrites them (deterministic: a fixed seed per stream) and checks, as it
 * writes, that the decoder delivered exactly the frames the generator left
 * intact.  Review the diff of the .golden files before committing one.  Any
 * other NAME.bin dropped into that directory (a capture from a real line or
 * from arbiter-padsim) is replayed too once it has a NAME.golden.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hardware/frame.h"

/* The fuzz target's invariants, applied to the corpus files below. */
#define FUZZ_ASSERT(cond) assert_true(cond)
#include "tests/fuzz/frame_fuzz.c"

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* The CRC parameters frame.c implements (protocol.h): Koopman 0xac9a. */
#define CRC_POLY        0x5935
#define CRC_INIT        0xffff
#define CRC_CHECK       0x772b          /* over the ASCII "123456789" */

/* The shortest frame: header and CRC, no payload. */
#define MIN_FRAME       (PROTO_HEADER_LEN + PROTO_CRC_LEN)

#define FRAMES_DIR      "tests/data/frames"
#define CORPUS_DIR      "tests/fuzz/corpus/frame"
#define REGEN_ENV       "ARBITER_REGENERATE_GOLDEN"

/* ---- helpers ----------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): tiny, seedable, good enough to
 * pick noise, and the same sequence on every machine. */
static uint64_t rng_next(uint64_t *s) {
        uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static unsigned rng_below(uint64_t *s, unsigned n) {
        return (unsigned) (rng_next(s) % n);
}

/* A growable byte buffer: the wire being built, or a transcript. */
struct buf {
        uint8_t *data;
        size_t len, cap;
};

static void buf_put(struct buf *b, const void *p, size_t n) {
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 256;

                while (b->len + n + 1 > cap)
                        cap *= 2;
                b->data = realloc(b->data, cap);
                assert_non_null(b->data);
                b->cap = cap;
        }
        if (n)
                memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = 0;            /* a transcript is always a C string */
}

static void buf_byte(struct buf *b, uint8_t c) {
        buf_put(b, &c, 1);
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...) {
        char line[512];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        assert_true(n >= 0 && (size_t) n < sizeof line);
        buf_put(b, line, (size_t) n);
}

static void buf_free(struct buf *b) {
        free(b->data);
        memset(b, 0, sizeof *b);
}

/* One line per delivered frame, the golden files' format: the header, then
 * the message's fields as the unpack helpers read them. */
static void format_frame(struct buf *out, const struct frame *f) {
        buf_printf(out, "addr=%u seq=%u type=%s len=%u", f->address, f->seq,
                   proto_type_name(f->type), f->len);
        switch (f->type) {
        case PROTO_HELLO: {
                struct proto_hello m;
                assert_int_equal(proto_unpack_hello(f, &m), 0);
                buf_printf(out, " uid=0x%016" PRIx64 " kind=%u buttons=%u fw=%u.%u clock_hz=%" PRIu32,
                           m.uid, m.kind, m.n_buttons, m.fw_major, m.fw_minor, m.clock_hz);
                break;
        }
        case PROTO_PRESS:
        case PROTO_RELEASE: {
                struct proto_event m;
                assert_int_equal(proto_unpack_event(f, &m), 0);
                buf_printf(out, " event_no=%u button=%u pad_time=%" PRIu32, m.event_no, m.button,
                           m.pad_time);
                break;
        }
        case PROTO_SYNC_REPLY: {
                struct proto_sync_reply m;
                assert_int_equal(proto_unpack_sync_reply(f, &m), 0);
                buf_printf(out, " sync_id=%u rx_time=%" PRIu32 " tx_time=%" PRIu32, m.sync_id,
                           m.rx_time, m.tx_time);
                break;
        }
        case PROTO_HEARTBEAT: {
                struct proto_heartbeat m;
                assert_int_equal(proto_unpack_heartbeat(f, &m), 0);
                buf_printf(out, " pad_time=%" PRIu32 " pending_events=%u rx_errors=%u", m.pad_time,
                           m.pending_events, m.rx_errors);
                break;
        }
        case PROTO_ASSIGN: {
                struct proto_assign m;
                assert_int_equal(proto_unpack_assign(f, &m), 0);
                buf_printf(out, " uid=0x%016" PRIx64 " address=%u", m.uid, m.address);
                break;
        }
        case PROTO_ACK: {
                struct proto_ack m;
                assert_int_equal(proto_unpack_ack(f, &m), 0);
                buf_printf(out, " event_no=%u", m.event_no);
                break;
        }
        case PROTO_SYNC: {
                struct proto_sync m;
                assert_int_equal(proto_unpack_sync(f, &m), 0);
                buf_printf(out, " sync_id=%u slot_us_x100=%u", m.sync_id, m.slot_us_x100);
                break;
        }
        case PROTO_LIGHT: {
                struct proto_light m;
                assert_int_equal(proto_unpack_light(f, &m), 0);
                buf_printf(out, " button=%u mode=%u duration_ms=%u", m.button, m.mode, m.duration_ms);
                break;
        }
        case PROTO_BUZZ: {
                struct proto_buzz m;
                assert_int_equal(proto_unpack_buzz(f, &m), 0);
                buf_printf(out, " duration_ms=%u pattern=%u", m.duration_ms, m.pattern);
                break;
        }
        case PROTO_LOCKOUT: {
                struct proto_lockout m;
                assert_int_equal(proto_unpack_lockout(f, &m), 0);
                buf_printf(out, " button_mask=0x%04x", m.button_mask);
                break;
        }
        default:
                break;
        }
        buf_printf(out, "\n");
}

static void format_faults(struct buf *out, const struct frame_faults *c) {
        buf_printf(out,
                   "faults: bytes=%" PRIu64 " frames=%" PRIu64 " empty=%" PRIu64 " overlong=%" PRIu64
                   " cobs=%" PRIu64 " short=%" PRIu64 " crc=%" PRIu64 " version=%" PRIu64
                   " unknown_type=%" PRIu64 " bad_length=%" PRIu64 "\n",
                   c->bytes, c->frames, c->empty, c->overlong, c->cobs, c->short_frame, c->crc,
                   c->version, c->unknown_type, c->bad_length);
}

static void transcribe(void *userdata, const struct frame *f) {
        format_frame(userdata, f);
}

/* Decodes a whole stream into its transcript.  read_max 0 feeds it in one
 * call; otherwise in reads of 1..read_max bytes drawn from seed. */
static void decode_stream(const uint8_t *data, size_t n, unsigned read_max, uint64_t seed,
                          struct buf *out) {
        struct frame_decoder d;
        size_t at = 0;

        frame_decoder_init(&d);
        while (at < n) {
                size_t want = read_max ? 1 + rng_below(&seed, read_max) : n;

                if (want > n - at)
                        want = n - at;
                frame_decoder_feed(&d, data + at, want, transcribe, out);
                at += want;
        }
        format_faults(out, &d.faults);
}

/* Frames delivered by one feed, kept whole. */
struct catch {
        struct frame frames[8];
        size_t n;
};

static void catch_frame(void *userdata, const struct frame *f) {
        struct catch *c = userdata;

        assert_true(c->n < ELEMENTSOF(c->frames));
        c->frames[c->n++] = *f;
}

static void assert_frame_equal(const struct frame *a, const struct frame *b) {
        assert_int_equal(a->version, b->version);
        assert_int_equal(a->address, b->address);
        assert_int_equal(a->seq, b->seq);
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->len, b->len);
        assert_memory_equal(a->payload, b->payload, sizeof a->payload);
}

/* The bytes before COBS: header, payload, CRC (little-endian). */
static size_t raw_frame(uint8_t *raw, uint8_t version, uint8_t address, uint16_t seq, uint8_t type,
                        const uint8_t *payload, size_t len) {
        uint16_t crc;

        assert_true(PROTO_HEADER_LEN + len + PROTO_CRC_LEN <= 256);
        raw[0] = version;
        raw[1] = address;
        raw[2] = (uint8_t) seq;
        raw[3] = (uint8_t) (seq >> 8);
        raw[4] = type;
        if (len)
                memcpy(raw + PROTO_HEADER_LEN, payload, len);
        crc = frame_crc16(raw, PROTO_HEADER_LEN + len);
        raw[PROTO_HEADER_LEN + len] = (uint8_t) crc;
        raw[PROTO_HEADER_LEN + len + 1] = (uint8_t) (crc >> 8);
        return PROTO_HEADER_LEN + len + PROTO_CRC_LEN;
}

/* Appends raw bytes as one candidate: COBS, then the delimiter. */
static void put_candidate(struct buf *w, const uint8_t *raw, size_t n) {
        uint8_t enc[512];
        int m = cobs_encode(raw, n, enc, sizeof enc);

        assert_true(m > 0);
        buf_put(w, enc, (size_t) m);
        buf_byte(w, 0);
}

static void put_frame(struct buf *w, const struct frame *f) {
        uint8_t enc[PROTO_MAX_ENCODED];
        int n = frame_encode(f, enc, sizeof enc);

        assert_true(n > 0);
        buf_put(w, enc, (size_t) n);
}

static struct frame sample_press(uint8_t address, uint16_t seq, uint16_t event_no, uint8_t button,
                                 uint32_t pad_time) {
        struct proto_event e = { .event_no = event_no, .button = button, .pad_time = pad_time };
        struct frame f;

        proto_pack_event(&f, PROTO_PRESS, &e);
        f.address = address;
        f.seq = seq;
        return f;
}

static bool read_file(const char *path, struct buf *out) {
        FILE *fp = fopen(path, "rb");
        uint8_t chunk[4096];
        size_t n;

        if (!fp)
                return false;
        while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
                buf_put(out, chunk, n);
        fclose(fp);
        return true;
}

static void write_file(const char *path, const void *data, size_t n) {
        FILE *fp = fopen(path, "wb");

        assert_non_null(fp);
        assert_int_equal(fwrite(data, 1, n, fp), n);
        assert_int_equal(fclose(fp), 0);
}

/* ---- CRC --------------------------------------------------------------- */

static uint16_t crc_bitwise(const uint8_t *p, size_t n) {
        uint16_t crc = CRC_INIT;

        for (size_t i = 0; i < n; i++) {
                crc ^= (uint16_t) (p[i] << 8);
                for (int b = 0; b < 8; b++)
                        crc = (uint16_t) (crc & 0x8000 ? (crc << 1) ^ CRC_POLY : crc << 1);
        }
        return crc;
}

static void crc_check_value_is_0x772b(void **state) {
        (void) state;
        assert_int_equal(frame_crc16((const uint8_t *) "123456789", 9), CRC_CHECK);
}

static void crc_of_nothing_is_the_initial_value(void **state) {
        (void) state;
        assert_int_equal(frame_crc16(NULL, 0), CRC_INIT);
}

static void crc_table_agrees_with_the_bitwise_definition(void **state) {
        uint64_t seed = 1;
        uint8_t data[64];
        (void) state;

        for (unsigned b = 0; b < 256; b++) {
                data[0] = (uint8_t) b;
                assert_int_equal(frame_crc16(data, 1), crc_bitwise(data, 1));
        }
        for (int round = 0; round < 1000; round++) {
                size_t n = rng_below(&seed, sizeof data + 1);

                for (size_t i = 0; i < n; i++)
                        data[i] = (uint8_t) rng_next(&seed);
                assert_int_equal(frame_crc16(data, n), crc_bitwise(data, n));
        }
}

/* The guarantee docs/protocol.md makes: in every frame version 1 can carry,
 * every error of 1 to 4 bits is detected (Hamming distance 5).  An error
 * pattern E escapes iff the generator G divides E (the CRC is linear; the
 * initial value cancels, the byte order of the stored CRC only permutes bit
 * positions), i.e. iff the residues x^i mod G of its bit positions xor to 0.
 * With r_i distinct (no 2-bit escape), no r_a ^ r_b equal to an r_c (no
 * 3-bit escape) and all r_a ^ r_b distinct (no 4-bit escape) it is proved. */
static void crc_detects_every_error_of_up_to_4_bits_in_every_v1_frame(void **state) {
        static uint8_t residue_seen[1 << 16], pair_seen[1 << 16];
        uint16_t residue[8 * (MIN_FRAME + PROTO_MAX_PAYLOAD)];
        int types = 0;
        (void) state;

        for (unsigned type = 0; type < 256; type++) {
                int len = proto_payload_len((uint8_t) type);
                size_t bits;
                uint32_t r = 1;

                if (len < 0)
                        continue;
                types++;
                bits = 8 * (size_t) (MIN_FRAME + len);
                memset(residue_seen, 0, sizeof residue_seen);
                memset(pair_seen, 0, sizeof pair_seen);
                for (size_t i = 0; i < bits; i++) {
                        residue[i] = (uint16_t) r;
                        r = ((r << 1) & 0xffff) ^ (r & 0x8000 ? CRC_POLY : 0);
                        assert_int_equal(residue_seen[residue[i]], 0);
                        residue_seen[residue[i]] = 1;
                }
                for (size_t a = 0; a < bits; a++)
                        for (size_t b = a + 1; b < bits; b++) {
                                uint16_t x = residue[a] ^ residue[b];

                                assert_int_equal(residue_seen[x], 0);
                                assert_int_equal(pair_seen[x], 0);
                                pair_seen[x] = 1;
                        }
        }
        assert_int_equal(types, 13);
}

/* Flips the bits at pos[0..k) of a copy of raw and checks the CRC sees it. */
static void assert_flips_detected(const uint8_t *raw, size_t n, const size_t *pos, size_t k) {
        uint8_t bad[PROTO_MAX_FRAME];
        size_t body = n - PROTO_CRC_LEN;

        memcpy(bad, raw, n);
        for (size_t i = 0; i < k; i++)
                bad[pos[i] / 8] ^= (uint8_t) (1u << (pos[i] % 8));
        if (frame_crc16(bad, body) == (bad[body] | bad[body + 1] << 8))
                fail_msg("%zu-bit error at bits %zu %zu %zu undetected", k, pos[0],
                         k > 1 ? pos[1] : 0, k > 2 ? pos[2] : 0);
}

/* The same guarantee, exercised through the frame's own CRC check: every
 * 1-, 2- and 3-bit corruption of a PRESS frame (before COBS) is seen. */
static void crc_rejects_every_1_2_and_3_bit_error_of_a_press_frame(void **state) {
        struct frame f = sample_press(3, 17, 5, 2, 123456);
        uint8_t raw[PROTO_MAX_FRAME];
        size_t n, bits, pos[3];
        (void) state;

        n = raw_frame(raw, f.version, f.address, f.seq, f.type, f.payload, f.len);
        bits = 8 * n;
        for (pos[0] = 0; pos[0] < bits; pos[0]++) {
                assert_flips_detected(raw, n, pos, 1);
                for (pos[1] = pos[0] + 1; pos[1] < bits; pos[1]++) {
                        assert_flips_detected(raw, n, pos, 2);
                        for (pos[2] = pos[1] + 1; pos[2] < bits; pos[2]++)
                                assert_flips_detected(raw, n, pos, 3);
                }
        }
}

/* ---- COBS -------------------------------------------------------------- */

/* The examples in the COBS article on Wikipedia, which follow Cheshire and
 * Baker: short blocks, and the 254-byte boundary cases. */
static void cobs_matches_the_published_examples(void **state) {
        static const struct {
                uint8_t in[8];
                size_t n;
                uint8_t out[8];
                size_t m;
        } rows[] = {
                { { 0x00 }, 1, { 0x01, 0x01 }, 2 },
                { { 0x00, 0x00 }, 2, { 0x01, 0x01, 0x01 }, 3 },
                { { 0x00, 0x11, 0x00 }, 3, { 0x01, 0x02, 0x11, 0x01 }, 4 },
                { { 0x11, 0x22, 0x00, 0x33 }, 4, { 0x03, 0x11, 0x22, 0x02, 0x33 }, 5 },
                { { 0x11, 0x22, 0x33, 0x44 }, 4, { 0x05, 0x11, 0x22, 0x33, 0x44 }, 5 },
                { { 0x11, 0x00, 0x00, 0x00 }, 4, { 0x02, 0x11, 0x01, 0x01, 0x01 }, 5 },
                { { 0 }, 0, { 0x01 }, 1 },
        };
        uint8_t in[300], out[310], expect[310];
        int n;
        (void) state;

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                n = cobs_encode(rows[i].in, rows[i].n, out, sizeof out);
                assert_int_equal(n, rows[i].m);
                assert_memory_equal(out, rows[i].out, rows[i].m);
        }

        /* 01 02 .. FE (254 bytes) -> FF 01 .. FE: a full block, no trailer */
        for (int i = 0; i < 254; i++)
                in[i] = (uint8_t) (i + 1);
        expect[0] = 0xff;
        memcpy(expect + 1, in, 254);
        assert_int_equal(cobs_encode(in, 254, out, sizeof out), 255);
        assert_memory_equal(out, expect, 255);

        /* 00 01 .. FE (255 bytes) -> 01 FF 01 .. FE */
        in[0] = 0;
        for (int i = 1; i < 255; i++)
                in[i] = (uint8_t) i;
        expect[0] = 0x01;
        expect[1] = 0xff;
        memcpy(expect + 2, in + 1, 254);
        assert_int_equal(cobs_encode(in, 255, out, sizeof out), 256);
        assert_memory_equal(out, expect, 256);

        /* 01 02 .. FF (255 bytes) -> FF 01 .. FE 02 FF */
        for (int i = 0; i < 255; i++)
                in[i] = (uint8_t) (i + 1);
        expect[0] = 0xff;
        memcpy(expect + 1, in, 254);
        expect[255] = 0x02;
        expect[256] = 0xff;
        assert_int_equal(cobs_encode(in, 255, out, sizeof out), 257);
        assert_memory_equal(out, expect, 257);

        /* 02 03 .. FF 00 (255 bytes) -> FF 02 .. FF 01 01 */
        for (int i = 0; i < 254; i++)
                in[i] = (uint8_t) (i + 2);
        in[254] = 0;
        expect[0] = 0xff;
        memcpy(expect + 1, in, 254);
        expect[255] = 0x01;
        expect[256] = 0x01;
        assert_int_equal(cobs_encode(in, 255, out, sizeof out), 257);
        assert_memory_equal(out, expect, 257);

        /* 03 04 .. FF 00 01 (255 bytes) -> FE 03 .. FF 02 01 */
        for (int i = 0; i < 253; i++)
                in[i] = (uint8_t) (i + 3);
        in[253] = 0;
        in[254] = 1;
        expect[0] = 0xfe;
        memcpy(expect + 1, in, 253);
        expect[254] = 0x02;
        expect[255] = 0x01;
        assert_int_equal(cobs_encode(in, 255, out, sizeof out), 256);
        assert_memory_equal(out, expect, 256);
}

enum fill { FILL_ZEROS, FILL_NONZERO, FILL_RANDOM, FILL_SPARSE_ZEROS, FILL_ZERO_EVERY_254 };

/* Round trips around every block boundary and with 0x00-heavy content:
 * the encoding never holds a zero, stays within n + n/254 + 1 bytes, and
 * decodes to the input. */
static void cobs_round_trips_every_shape(void **state) {
        static const size_t sizes[] = { 0, 1, 2, 3, 7, 38, 39, 40, 252, 253, 254, 255, 256, 257,
                                        507, 508, 509, 510, 511, 1000, 4096 };
        static const enum fill fills[] = { FILL_ZEROS, FILL_NONZERO, FILL_RANDOM,
                                           FILL_SPARSE_ZEROS, FILL_ZERO_EVERY_254 };
        static uint8_t in[4096], enc[4096 + 4096 / 254 + 1], dec[4096];
        uint64_t seed = 7;
        (void) state;

        for (size_t s = 0; s < ELEMENTSOF(sizes); s++)
                for (size_t k = 0; k < ELEMENTSOF(fills); k++) {
                        size_t n = sizes[s], bound = n + n / 254 + 1;
                        int m, back;

                        for (size_t i = 0; i < n; i++) {
                                uint8_t v = (uint8_t) (1 + rng_below(&seed, 255));

                                switch (fills[k]) {
                                case FILL_ZEROS:          v = 0; break;
                                case FILL_NONZERO:        break;
                                case FILL_RANDOM:         v = (uint8_t) rng_next(&seed); break;
                                case FILL_SPARSE_ZEROS:   if (rng_below(&seed, 50) == 0) v = 0; break;
                                case FILL_ZERO_EVERY_254: if (i % 255 == 254) v = 0; break;
                                }
                                in[i] = v;
                        }
                        m = cobs_encode(in, n, enc, sizeof enc);
                        assert_true(m > 0);
                        assert_true((size_t) m <= bound);
                        assert_null(memchr(enc, 0, (size_t) m));
                        back = cobs_decode(enc, (size_t) m, dec, sizeof dec);
                        assert_int_equal(back, n);
                        if (n)
                                assert_memory_equal(dec, in, n);
                        /* an exact-size buffer is enough, one byte less is not */
                        assert_int_equal(cobs_encode(in, n, enc, (size_t) m), m);
                        assert_int_equal(cobs_encode(in, n, enc, (size_t) m - 1), -EINVAL);
                        if (n)
                                assert_int_equal(cobs_decode(enc, (size_t) m, dec, n - 1), -EINVAL);
                }
}

static void cobs_decode_rejects_what_is_not_cobs(void **state) {
        static const struct {
                const char *why;
                uint8_t in[8];
                size_t n;
        } rows[] = {
                { "empty input", { 0 }, 0 },
                { "a zero where a code byte belongs", { 0x00 }, 1 },
                { "a zero inside a block", { 0x03, 0x11, 0x00 }, 3 },
                { "a zero after a block", { 0x02, 0x11, 0x00, 0x01 }, 4 },
                { "a code reaching past the end", { 0x05, 0x11, 0x22 }, 3 },
                { "a second code reaching past the end", { 0x02, 0x11, 0x03, 0x22 }, 4 },
                { "a full block announced, nothing follows", { 0xff }, 1 },
        };
        uint8_t out[64];
        (void) state;

        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (cobs_decode(rows[i].in, rows[i].n, out, sizeof out) != -EINVAL)
                        fail_msg("accepted %s", rows[i].why);
}

/* Some encoders close a full block with a code 0x01 even at the end; it
 * decodes to the same bytes, and the CRC, not COBS, vouches for them. */
static void cobs_decode_accepts_a_redundant_code_after_a_full_block(void **state) {
        uint8_t in[256], out[254];
        (void) state;

        in[0] = 0xff;
        memset(in + 1, 0x5a, 254);
        in[255] = 0x01;
        assert_int_equal(cobs_decode(in, 255, out, sizeof out), 254);
        assert_int_equal(cobs_decode(in, 256, out, sizeof out), 254);
        for (size_t i = 0; i < sizeof out; i++)
                assert_int_equal(out[i], 0x5a);
}

/* ---- frames and messages ---------------------------------------------- */

/* The worked example in docs/protocol.md, byte for byte. */
static void frame_encode_matches_the_worked_example(void **state) {
        static const uint8_t expect[] = {
                0x04, 0x01, 0x03, 0x11, 0x03, 0x02, 0x05, 0x05, 0x02, 0x40, 0xe2, 0x01, 0x03,
                0x87, 0x45, 0x00,
        };
        struct frame f = sample_press(3, 17, 5, 2, 123456);
        uint8_t out[PROTO_MAX_ENCODED];
        (void) state;

        assert_int_equal(frame_encode(&f, out, sizeof out), sizeof expect);
        assert_memory_equal(out, expect, sizeof expect);
}

static void frame_encode_refuses_an_oversized_payload_or_a_small_buffer(void **state) {
        struct frame f = sample_press(3, 17, 5, 2, 123456);
        uint8_t out[PROTO_MAX_ENCODED];
        int n;
        (void) state;

        n = frame_encode(&f, out, sizeof out);
        assert_true(n > 0);
        assert_int_equal(frame_encode(&f, out, (size_t) n), n);
        assert_int_equal(frame_encode(&f, out, (size_t) n - 1), -EINVAL);
        assert_int_equal(frame_encode(&f, out, 0), -EINVAL);
        f.len = PROTO_MAX_PAYLOAD + 1;
        assert_int_equal(frame_encode(&f, out, sizeof out), -EINVAL);

        /* the largest payload the layout allows fits PROTO_MAX_ENCODED */
        f.len = PROTO_MAX_PAYLOAD;
        memset(f.payload, 0x5a, sizeof f.payload);
        n = frame_encode(&f, out, sizeof out);
        assert_true(n > 0 && n <= PROTO_MAX_ENCODED);
}

static void payload_lengths_and_names_cover_every_type(void **state) {
        static const struct {
                uint8_t type;
                int len;
                const char *name;
        } rows[] = {
                { PROTO_HELLO, 16, "HELLO" },           { PROTO_PRESS, 7, "PRESS" },
                { PROTO_RELEASE, 7, "RELEASE" },        { PROTO_SYNC_REPLY, 10, "SYNC_REPLY" },
                { PROTO_HEARTBEAT, 8, "HEARTBEAT" },    { PROTO_ASSIGN, 9, "ASSIGN" },
                { PROTO_ACK, 2, "ACK" },                { PROTO_SYNC, 3, "SYNC" },
                { PROTO_LIGHT, 4, "LIGHT" },            { PROTO_BUZZ, 3, "BUZZ" },
                { PROTO_LOCKOUT, 2, "LOCKOUT" },        { PROTO_RESET, 0, "RESET" },
                { PROTO_HOST_BEAT, 0, "HOST_BEAT" },
        };
        int known = 0;
        (void) state;

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                assert_int_equal(proto_payload_len(rows[i].type), rows[i].len);
                assert_string_equal(proto_type_name(rows[i].type), rows[i].name);
                assert_true(rows[i].len <= PROTO_MAX_PAYLOAD);
        }
        for (unsigned t = 0; t < 256; t++) {
                if (proto_payload_len((uint8_t) t) >= 0) {
                        known++;
                        assert_string_not_equal(proto_type_name((uint8_t) t), "UNKNOWN");
                } else {
                        assert_string_equal(proto_type_name((uint8_t) t), "UNKNOWN");
                }
        }
        assert_int_equal(known, (int) ELEMENTSOF(rows));
}

/* One row per message type: the message packed, and the payload bytes the
 * protocol says it is (docs/protocol.md, "Messages"). */
#define MESSAGE_ROWS 16

struct message_row {
        const char *name;
        struct frame packed;
        uint8_t payload[PROTO_MAX_PAYLOAD];
        size_t len;
};

static size_t message_rows(struct message_row rows[MESSAGE_ROWS]) {
        size_t n = 0;

        memset(rows, 0, MESSAGE_ROWS * sizeof *rows);
#define ROW(NAME, PACK, ...) do { \
                rows[n].name = NAME; \
                PACK; \
                static const uint8_t bytes_[] = { __VA_ARGS__ }; \
                memcpy(rows[n].payload, bytes_, sizeof bytes_); \
                rows[n].len = sizeof bytes_; \
                n++; \
        } while (0)

        ROW("HELLO", proto_pack_hello(&rows[n].packed, &(struct proto_hello) {
                        .uid = 0x0102030405060708ULL, .kind = PROTO_KIND_BUTTONS, .n_buttons = 7,
                        .fw_major = 1, .fw_minor = 2, .clock_hz = 1000000 }),
            0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x01, 0x07, 0x01, 0x02,
            0x40, 0x42, 0x0f, 0x00);
        ROW("PRESS", proto_pack_event(&rows[n].packed, PROTO_PRESS, &(struct proto_event) {
                        .event_no = 0x0102, .button = 6, .pad_time = 0xfffffffe }),
            0x02, 0x01, 0x06, 0xfe, 0xff, 0xff, 0xff);
        ROW("RELEASE", proto_pack_event(&rows[n].packed, PROTO_RELEASE, &(struct proto_event) {
                        .event_no = 0xffff, .button = 0, .pad_time = 0 }),
            0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00);
        ROW("SYNC_REPLY", proto_pack_sync_reply(&rows[n].packed, &(struct proto_sync_reply) {
                        .sync_id = 0x1234, .rx_time = 0x0a0b0c0d, .tx_time = 0x0a0b0d0e }),
            0x34, 0x12, 0x0d, 0x0c, 0x0b, 0x0a, 0x0e, 0x0d, 0x0b, 0x0a);
        ROW("HEARTBEAT", proto_pack_heartbeat(&rows[n].packed, &(struct proto_heartbeat) {
                        .pad_time = 0x80000000, .pending_events = 3, .rx_errors = 0x0100 }),
            0x00, 0x00, 0x00, 0x80, 0x03, 0x00, 0x00, 0x01);
        ROW("ASSIGN", proto_pack_assign(&rows[n].packed, &(struct proto_assign) {
                        .uid = 0xfedcba9876543210ULL, .address = PROTO_ADDR_MAX }),
            0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0xf7);
        ROW("ACK", proto_pack_ack(&rows[n].packed, &(struct proto_ack) { .event_no = 0x0100 }),
            0x00, 0x01);
        ROW("SYNC", proto_pack_sync(&rows[n].packed, &(struct proto_sync) {
                        .sync_id = 0xbeef, .slot_us_x100 = 3 }),
            0xef, 0xbe, 0x03);
        ROW("LIGHT", proto_pack_light(&rows[n].packed, &(struct proto_light) {
                        .button = 0xff, .mode = PROTO_LIGHT_BLINK, .duration_ms = 3000 }),
            0xff, 0x02, 0xb8, 0x0b);
        ROW("BUZZ", proto_pack_buzz(&rows[n].packed, &(struct proto_buzz) {
                        .duration_ms = 250, .pattern = 2 }),
            0xfa, 0x00, 0x02);
        ROW("LOCKOUT", proto_pack_lockout(&rows[n].packed, &(struct proto_lockout) {
                        .button_mask = 0x8041 }),
            0x41, 0x80);
#undef ROW
        rows[n].name = "RESET";
        proto_pack_empty(&rows[n].packed, PROTO_RESET);
        rows[n].len = 0;
        n++;
        rows[n].name = "HOST_BEAT";
        proto_pack_empty(&rows[n].packed, PROTO_HOST_BEAT);
        rows[n].len = 0;
        n++;
        return n;
}

static void every_message_type_has_its_documented_payload_layout(void **state) {
        struct message_row rows[MESSAGE_ROWS];
        size_t n = message_rows(rows);
        (void) state;

        assert_int_equal(n, 13);
        for (size_t i = 0; i < n; i++) {
                const struct frame *f = &rows[i].packed;

                assert_string_equal(proto_type_name(f->type), rows[i].name);
                assert_int_equal(f->version, PROTO_VERSION);
                assert_int_equal(f->len, rows[i].len);
                assert_int_equal(proto_payload_len(f->type), (int) rows[i].len);
                if (rows[i].len)
                        assert_memory_equal(f->payload, rows[i].payload, rows[i].len);
                for (size_t k = f->len; k < PROTO_MAX_PAYLOAD; k++)
                        assert_int_equal(f->payload[k], 0);
        }
}

/* Pack, encode, decode, unpack, pack again: the same frame each time, for
 * every type, from every address class and with seq at its extremes. */
static void every_message_type_round_trips_through_the_wire(void **state) {
        static const uint8_t addresses[] = { PROTO_ADDR_UNASSIGNED, 1, PROTO_ADDR_MAX,
                                             PROTO_ADDR_BROADCAST };
        static const uint16_t seqs[] = { 0, 1, 0x00ff, 0x0100, 0xffff };
        struct message_row rows[MESSAGE_ROWS];
        size_t n = message_rows(rows);
        (void) state;

        for (size_t i = 0; i < n; i++)
                for (size_t a = 0; a < ELEMENTSOF(addresses); a++)
                        for (size_t s = 0; s < ELEMENTSOF(seqs); s++) {
                                struct frame f = rows[i].packed;
                                struct frame_decoder d;
                                struct catch got = { .n = 0 };
                                uint8_t wire[PROTO_MAX_ENCODED];
                                int m;

                                f.address = addresses[a];
                                f.seq = seqs[s];
                                m = frame_encode(&f, wire, sizeof wire);
                                assert_true(m > 0);
                                assert_int_equal(wire[m - 1], 0);
                                assert_null(memchr(wire, 0, (size_t) m - 1));
                                frame_decoder_init(&d);
                                frame_decoder_feed(&d, wire, (size_t) m, catch_frame, &got);
                                assert_int_equal(got.n, 1);
                                assert_int_equal(d.faults.frames, 1);
                                assert_frame_equal(&got.frames[0], &f);
                                /* the unpack helpers read back what was packed */
                                frame_fuzz_check(wire, (size_t) m);
                        }
}

static void unpack_refuses_a_wrong_type_or_length(void **state) {
        struct message_row rows[MESSAGE_ROWS];
        size_t n = message_rows(rows);
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
        (void) state;

        for (size_t i = 0; i < n; i++)
                for (int delta = -1; delta <= 1; delta++) {
                        struct frame f = rows[i].packed;
                        bool right_len = delta == 0;
                        int want;

                        if (f.len == 0 && delta < 0)
                                continue;
                        f.len = (uint8_t) (f.len + delta);
#define EXPECT(T) (f.type == (T) && right_len ? 0 : -EBADMSG)
                        want = EXPECT(PROTO_HELLO);
                        assert_int_equal(proto_unpack_hello(&f, &hello), want);
                        want = (f.type == PROTO_PRESS || f.type == PROTO_RELEASE) && right_len ? 0 : -EBADMSG;
                        assert_int_equal(proto_unpack_event(&f, &event), want);
                        assert_int_equal(proto_unpack_sync_reply(&f, &sync_reply), EXPECT(PROTO_SYNC_REPLY));
                        assert_int_equal(proto_unpack_heartbeat(&f, &heartbeat), EXPECT(PROTO_HEARTBEAT));
                        assert_int_equal(proto_unpack_assign(&f, &assign), EXPECT(PROTO_ASSIGN));
                        assert_int_equal(proto_unpack_ack(&f, &ack), EXPECT(PROTO_ACK));
                        assert_int_equal(proto_unpack_sync(&f, &sync), EXPECT(PROTO_SYNC));
                        assert_int_equal(proto_unpack_light(&f, &light), EXPECT(PROTO_LIGHT));
                        assert_int_equal(proto_unpack_buzz(&f, &buzz), EXPECT(PROTO_BUZZ));
                        assert_int_equal(proto_unpack_lockout(&f, &lockout), EXPECT(PROTO_LOCKOUT));
#undef EXPECT
                }
}

#define PROTOCOL_MD     "docs/protocol.md"

/* docs/protocol.md's table of message types agrees with the codec: every
 * row "| 0xNN | NAME | direction | LEN | ..." names a known type with its
 * payload length, and every known type has a row. */
static void protocol_md_lists_every_type_with_its_length(void **state) {
        struct buf doc = { 0 };
        bool listed[256] = { false };
        int rows = 0;
        (void) state;

        assert_true(read_file(PROTOCOL_MD, &doc));
        for (char *line = (char *) doc.data; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                unsigned type, len;
                char name[32], direction[32];

                if (sscanf(line, "| 0x%2x | %31[A-Z_] | %31[^|] | %u |", &type, name, direction, &len) != 4)
                        continue;
                assert_string_equal(proto_type_name((uint8_t) type), name);
                assert_int_equal(proto_payload_len((uint8_t) type), (int) len);
                assert_true(strstr(direction, type < 0x80 ? "pad → host" : "host → pad") != NULL);
                listed[type] = true;
                rows++;
        }
        for (unsigned t = 0; t < 256; t++)
                if (proto_payload_len((uint8_t) t) >= 0 && !listed[t])
                        fail_msg("type 0x%02x (%s) is missing from " PROTOCOL_MD, t,
                                 proto_type_name((uint8_t) t));
        assert_int_equal(rows, 13);
        buf_free(&doc);
}

/* Each payload table in docs/protocol.md ("### NAME (0xNN) ... N bytes"
 * followed by rows "| offset | size | field | meaning |") has contiguous
 * fields that add up to the type's payload length. */
static void protocol_md_payload_tables_add_up(void **state) {
        struct buf doc = { 0 };
        int tables = 0, type = -1;
        unsigned next_offset = 0, stated = 0;
        (void) state;

        assert_true(read_file(PROTOCOL_MD, &doc));
        for (char *line = (char *) doc.data; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                unsigned offset, size, t;
                char *paren = strstr(line, " (0x");

                if (strncmp(line, "#", 1) == 0) {
                        if (type >= 0 && next_offset > 0) {
                                assert_int_equal(next_offset, proto_payload_len((uint8_t) type));
                                assert_int_equal(stated, next_offset);
                                tables++;
                        }
                        type = -1;
                        if (strncmp(line, "### ", 4) == 0 && paren && sscanf(paren, " (0x%2x)", &t) == 1) {
                                char *bytes = strstr(line, " bytes");

                                type = (int) t;
                                next_offset = 0;
                                stated = 0;
                                while (bytes && bytes > line && bytes[-1] >= '0' && bytes[-1] <= '9')
                                        bytes--;
                                if (bytes)
                                        stated = (unsigned) atoi(bytes);
                        }
                        continue;
                }
                if (type >= 0 && sscanf(line, "| %u | %u |", &offset, &size) == 2) {
                        if (offset != next_offset)
                                fail_msg("%s: field at offset %u, expected %u", proto_type_name((uint8_t) type),
                                         offset, next_offset);
                        next_offset += size;
                }
        }
        assert_int_equal(tables, 10);   /* every type with a payload; PRESS and RELEASE share one */
        buf_free(&doc);
}

/* The worked example's wire bytes in docs/protocol.md are what
 * frame_encode produces (the hex pairs at the start of each line of the
 * "on the wire" block). */
static void protocol_md_worked_example_is_what_the_encoder_sends(void **state) {
        struct frame f = sample_press(3, 17, 5, 2, 123456);
        uint8_t want[PROTO_MAX_ENCODED], doc_bytes[PROTO_MAX_ENCODED];
        struct buf doc = { 0 };
        size_t n = 0;
        char *at;
        int m;
        (void) state;

        assert_true(read_file(PROTOCOL_MD, &doc));
        at = strstr((char *) doc.data, "on the wire (");
        assert_non_null(at);
        at = strchr(at, '\n') + 1;
        while (at[0] == ' ' && at[1] == ' ') {
                char line[128], *save = NULL;
                size_t len = strcspn(at, "\n");

                assert_true(len < sizeof line);
                memcpy(line, at, len);
                line[len] = 0;
                for (char *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                        unsigned byte;
                        int used;

                        if (strlen(tok) != 2 || sscanf(tok, "%2x%n", &byte, &used) != 1 || used != 2)
                                break;
                        assert_true(n < sizeof doc_bytes);
                        doc_bytes[n++] = (uint8_t) byte;
                }
                at += len + (at[len] == '\n');
        }
        m = frame_encode(&f, want, sizeof want);
        assert_int_equal(n, m);
        assert_memory_equal(doc_bytes, want, n);
        buf_free(&doc);
}

/* ---- the decoder: corruption classes ----------------------------------- */

/* A corrupt candidate, built into w, and the one counter it must bump.
 * Every row is followed by a valid frame, which must still arrive. */
struct corruption_row {
        const char *name;
        void (*build)(struct buf *w);
        size_t field;                   /* offsetof the counter in frame_faults */
        uint64_t count;
};

static void build_empty_delimiters(struct buf *w) {
        buf_put(w, "\0\0\0", 3);
}

static void build_code_past_end(struct buf *w) {
        buf_put(w, "\x05\x11\x22\0", 4);
}

static void build_garbage_before_a_delimiter(struct buf *w) {
        buf_put(w, "\xab\xcd\xef\0", 4);
}

static void build_decodes_to_nothing(struct buf *w) {
        buf_put(w, "\x01\0", 2);
}

static void build_header_without_crc(struct buf *w) {
        static const uint8_t raw[] = { 1, 3, 0, 0, PROTO_HEARTBEAT, 0x12 };

        put_candidate(w, raw, sizeof raw);
}

static void build_payload_bit_flipped(struct buf *w) {
        struct frame f = sample_press(3, 17, 5, 2, 123456);
        uint8_t raw[PROTO_MAX_FRAME];
        size_t n = raw_frame(raw, f.version, f.address, f.seq, f.type, f.payload, f.len);

        raw[7] ^= 0x04;
        put_candidate(w, raw, n);
}

static void build_crc_big_endian(struct buf *w) {
        struct frame f = sample_press(3, 17, 5, 2, 123456);
        uint8_t raw[PROTO_MAX_FRAME], t;
        size_t n = raw_frame(raw, f.version, f.address, f.seq, f.type, f.payload, f.len);

        t = raw[n - 1];
        raw[n - 1] = raw[n - 2];
        raw[n - 2] = t;
        put_candidate(w, raw, n);
}

static void build_garbage_glued_to_a_frame(struct buf *w) {
        struct frame f = sample_press(3, 17, 5, 2, 123456);

        buf_put(w, "\x02\xff", 2);
        put_frame(w, &f);
}

static void put_valid_crc(struct buf *w, uint8_t version, uint8_t type, size_t len) {
        uint8_t payload[PROTO_MAX_PAYLOAD], raw[PROTO_MAX_FRAME];

        memset(payload, 0x5a, sizeof payload);
        put_candidate(w, raw, raw_frame(raw, version, 3, 9, type, payload, len));
}

static void build_version_0(struct buf *w) { put_valid_crc(w, 0, PROTO_ACK, 2); }
static void build_version_2(struct buf *w) { put_valid_crc(w, 2, PROTO_ACK, 2); }
static void build_version_255(struct buf *w) { put_valid_crc(w, 255, PROTO_ACK, 2); }
static void build_type_0x00(struct buf *w) { put_valid_crc(w, 1, 0x00, 2); }
static void build_type_0x06(struct buf *w) { put_valid_crc(w, 1, 0x06, 2); }
static void build_type_0x7f(struct buf *w) { put_valid_crc(w, 1, 0x7f, 0); }
static void build_type_0x80(struct buf *w) { put_valid_crc(w, 1, 0x80, 0); }
static void build_type_0x89(struct buf *w) { put_valid_crc(w, 1, 0x89, 4); }
static void build_type_0xff(struct buf *w) { put_valid_crc(w, 1, 0xff, 32); }
static void build_press_len_6(struct buf *w) { put_valid_crc(w, 1, PROTO_PRESS, 6); }
static void build_press_len_8(struct buf *w) { put_valid_crc(w, 1, PROTO_PRESS, 8); }
static void build_hello_len_15(struct buf *w) { put_valid_crc(w, 1, PROTO_HELLO, 15); }
static void build_ack_len_0(struct buf *w) { put_valid_crc(w, 1, PROTO_ACK, 0); }
static void build_reset_len_1(struct buf *w) { put_valid_crc(w, 1, PROTO_RESET, 1); }

/* The longest candidate a valid frame can be (a 32-byte payload:
 * PROTO_MAX_ENCODED bytes with its delimiter) is judged, not dropped as
 * overlong: here it fails on length, since no type has 32 bytes. */
static void build_longest_candidate(struct buf *w) {
        size_t before = w->len;

        put_valid_crc(w, 1, PROTO_HOST_BEAT, PROTO_MAX_PAYLOAD);
        assert_int_equal(w->len - before, PROTO_MAX_ENCODED);
}

static void build_one_byte_too_long(struct buf *w) {
        for (int i = 0; i < PROTO_MAX_ENCODED; i++)
                buf_byte(w, 0x41);
        buf_byte(w, 0);
}

static void build_very_long_run(struct buf *w) {
        for (int i = 0; i < 5000; i++)
                buf_byte(w, (uint8_t) (1 + i % 255));
        buf_byte(w, 0);
}

static void corruption_classes_are_counted_once_each(void **state) {
#define F(field) offsetof(struct frame_faults, field)
        static const struct corruption_row rows[] = {
                { "three delimiters on an idle line", build_empty_delimiters, F(empty), 3 },
                { "a code byte reaching past the end", build_code_past_end, F(cobs), 1 },
                { "garbage before a delimiter", build_garbage_before_a_delimiter, F(cobs), 1 },
                { "a candidate that decodes to nothing", build_decodes_to_nothing, F(short_frame), 1 },
                { "a header without its CRC", build_header_without_crc, F(short_frame), 1 },
                { "a payload bit flipped", build_payload_bit_flipped, F(crc), 1 },
                { "the CRC sent big-endian", build_crc_big_endian, F(crc), 1 },
                { "garbage glued to the front of a frame", build_garbage_glued_to_a_frame, F(crc), 1 },
                { "version 0", build_version_0, F(version), 1 },
                { "version 2", build_version_2, F(version), 1 },
                { "version 255", build_version_255, F(version), 1 },
                { "type 0x00", build_type_0x00, F(unknown_type), 1 },
                { "type 0x06", build_type_0x06, F(unknown_type), 1 },
                { "type 0x7f", build_type_0x7f, F(unknown_type), 1 },
                { "type 0x80", build_type_0x80, F(unknown_type), 1 },
                { "type 0x89", build_type_0x89, F(unknown_type), 1 },
                { "type 0xff", build_type_0xff, F(unknown_type), 1 },
                { "PRESS with 6 bytes", build_press_len_6, F(bad_length), 1 },
                { "PRESS with 8 bytes", build_press_len_8, F(bad_length), 1 },
                { "HELLO with 15 bytes", build_hello_len_15, F(bad_length), 1 },
                { "ACK with no payload", build_ack_len_0, F(bad_length), 1 },
                { "RESET with a payload byte", build_reset_len_1, F(bad_length), 1 },
                { "the longest candidate is judged", build_longest_candidate, F(bad_length), 1 },
                { "one byte longer than any frame", build_one_byte_too_long, F(overlong), 1 },
                { "5000 bytes without a delimiter", build_very_long_run, F(overlong), 1 },
        };
#undef F
        struct frame good = sample_press(4, 99, 7, 1, 42);
        (void) state;

        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                for (unsigned read_max = 0; read_max <= 3; read_max++) {
                        struct frame_faults expect = { .frames = 1 };
                        struct frame_decoder d;
                        struct catch got = { .n = 0 };
                        struct buf w = { 0 };
                        uint64_t seed = i;
                        size_t at = 0;

                        rows[i].build(&w);
                        put_frame(&w, &good);
                        *(uint64_t *) ((char *) &expect + rows[i].field) += rows[i].count;
                        expect.bytes = w.len;

                        frame_decoder_init(&d);
                        while (at < w.len) {
                                size_t want = read_max ? 1 + rng_below(&seed, read_max) : w.len;

                                if (want > w.len - at)
                                        want = w.len - at;
                                frame_decoder_feed(&d, w.data + at, want, catch_frame, &got);
                                at += want;
                        }
                        if (memcmp(&d.faults, &expect, sizeof expect) != 0 || got.n != 1) {
                                struct buf want = { 0 }, have = { 0 };

                                format_faults(&want, &expect);
                                format_faults(&have, &d.faults);
                                fail_msg("%s (reads up to %u bytes): expected %sgot %s", rows[i].name,
                                         read_max, (char *) want.data, (char *) have.data);
                        }
                        assert_frame_equal(&got.frames[0], &good);
                        assert_int_equal(d.len, 0);
                        assert_int_equal(d.overflow, 0);
                        buf_free(&w);
                }
}

/* Any single bit of a frame flipped before framing (where a line's noise
 * lands once COBS is undone) is a CRC fault, never another class: the CRC
 * is checked before the version, type and length are believed. */
static void a_flipped_bit_in_any_field_is_a_crc_fault(void **state) {
        struct message_row rows[MESSAGE_ROWS];
        size_t n = message_rows(rows);
        (void) state;

        for (size_t i = 0; i < n; i++) {
                const struct frame *f = &rows[i].packed;
                uint8_t raw[PROTO_MAX_FRAME];
                size_t len = raw_frame(raw, f->version, 3, 17, f->type, f->payload, f->len);

                for (size_t bit = 0; bit < 8 * len; bit++) {
                        struct frame_decoder d;
                        struct buf w = { 0 };

                        raw[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                        put_candidate(&w, raw, len);
                        raw[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                        frame_decoder_init(&d);
                        frame_decoder_feed(&d, w.data, w.len, NULL, NULL);
                        assert_int_equal(d.faults.crc, 1);
                        assert_int_equal(d.faults.frames + d.faults.cobs + d.faults.short_frame +
                                         d.faults.version + d.faults.unknown_type +
                                         d.faults.bad_length + d.faults.overlong + d.faults.empty, 0);
                        buf_free(&w);
                }
        }
}

/* Noise on the wire itself can hit a COBS code byte or make a 0x00 and so
 * split the candidate; whatever it does, no frame comes out and every
 * candidate it makes is counted once. */
static void a_flipped_bit_anywhere_on_the_wire_delivers_nothing(void **state) {
        struct message_row rows[MESSAGE_ROWS];
        size_t n = message_rows(rows);
        (void) state;

        for (size_t i = 0; i < n; i++) {
                struct frame f = rows[i].packed;
                uint8_t wire[PROTO_MAX_ENCODED];
                int m;

                f.address = 3;
                f.seq = 0x0100;         /* a zero byte in the header: a real COBS code in the middle */
                m = frame_encode(&f, wire, sizeof wire);
                assert_true(m > 0);
                for (size_t bit = 0; bit < 8 * (size_t) (m - 1); bit++) {
                        struct frame_decoder d;

                        wire[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                        frame_decoder_init(&d);
                        frame_decoder_feed(&d, wire, (size_t) m, NULL, NULL);
                        check_outcomes(&d, wire, (size_t) m);
                        wire[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                        assert_int_equal(d.faults.frames, 0);
                }
        }
}

static void an_overlong_run_is_counted_once_however_it_is_read(void **state) {
        struct frame good = sample_press(4, 99, 7, 1, 42);
        struct buf w = { 0 };
        (void) state;

        for (int i = 0; i < 3000; i++)
                buf_byte(&w, 0x7e);
        put_frame(&w, &good);   /* glued on: lost with the run */
        put_frame(&w, &good);   /* after a delimiter: delivered */

        for (size_t read = 1; read <= 70; read++) {
                struct frame_decoder d;
                struct catch got = { .n = 0 };

                frame_decoder_init(&d);
                for (size_t at = 0; at < w.len; at += read)
                        frame_decoder_feed(&d, w.data + at, at + read <= w.len ? read : w.len - at,
                                           catch_frame, &got);
                assert_int_equal(d.faults.overlong, 1);
                assert_int_equal(d.faults.frames, 1);
                assert_int_equal(got.n, 1);
                assert_frame_equal(&got.frames[0], &good);
                assert_int_equal(d.faults.bytes, w.len);
        }

        /* still open at the end: counted already, and nothing in the buffer */
        {
                struct frame_decoder d;

                frame_decoder_init(&d);
                frame_decoder_feed(&d, w.data, 3000, NULL, NULL);
                assert_int_equal(d.faults.overlong, 1);
                assert_int_equal(d.overflow, 1);
                assert_int_equal(d.len, 0);
                check_outcomes(&d, w.data, 3000);
        }
        buf_free(&w);
}

/* ---- the decoder: split reads ------------------------------------------ */

/* A short stream that exercises every path: leading garbage, empty
 * delimiters, a corrupt frame, an overlong run, several frame types. */
static void build_mixed_stream(struct buf *w) {
        struct message_row rows[MESSAGE_ROWS];
        size_t n = message_rows(rows);

        buf_put(w, "\x13\x37", 2);
        buf_byte(w, 0);
        buf_byte(w, 0);
        for (size_t i = 0; i < n; i++) {
                struct frame f = rows[i].packed;

                f.address = (uint8_t) (i + 1);
                f.seq = (uint16_t) (i * 0x80);
                put_frame(w, &f);
                if (i == 4)
                        build_payload_bit_flipped(w);
                if (i == 8)
                        build_one_byte_too_long(w);
        }
}

static void splitting_a_stream_anywhere_changes_nothing(void **state) {
        struct buf w = { 0 }, whole = { 0 };
        size_t n;
        (void) state;

        build_mixed_stream(&w);
        n = w.len;
        decode_stream(w.data, n, 0, 0, &whole);

        /* every two-way split */
        for (size_t k = 0; k <= n; k++) {
                struct frame_decoder d;
                struct buf t = { 0 };

                frame_decoder_init(&d);
                frame_decoder_feed(&d, w.data, k, transcribe, &t);
                frame_decoder_feed(&d, w.data + k, n - k, transcribe, &t);
                format_faults(&t, &d.faults);
                assert_string_equal((char *) t.data, (char *) whole.data);
                buf_free(&t);
        }
        /* every three-way split */
        for (size_t j = 0; j <= n; j++)
                for (size_t k = j; k <= n; k++) {
                        struct frame_decoder d;
                        struct buf t = { 0 };

                        frame_decoder_init(&d);
                        frame_decoder_feed(&d, w.data, j, transcribe, &t);
                        frame_decoder_feed(&d, w.data + j, k - j, transcribe, &t);
                        frame_decoder_feed(&d, w.data + k, n - k, transcribe, &t);
                        format_faults(&t, &d.faults);
                        if (strcmp((char *) t.data, (char *) whole.data) != 0)
                                fail_msg("split at %zu and %zu differs", j, k);
                        buf_free(&t);
                }
        /* byte by byte, and in random reads of up to 64 bytes */
        for (unsigned read_max = 1; read_max <= 64; read_max *= 2) {
                struct buf t = { 0 };

                decode_stream(w.data, n, read_max, read_max, &t);
                assert_string_equal((char *) t.data, (char *) whole.data);
                buf_free(&t);
        }
        buf_free(&w);
        buf_free(&whole);
}

/* ---- recorded streams -------------------------------------------------- */

/* A stream being generated: its bytes, the frames it carries intact, and
 * whether the line is at a frame boundary (last byte a delimiter), which
 * is what decides whether the next frame survives. */
struct gen {
        struct buf wire;
        struct frame intact[512];
        size_t n_intact;
        bool at_boundary;
        uint64_t seed;
        unsigned flip_per_mille, garbage_per_mille;
        uint16_t host_seq[256];         /* host -> pad, per destination address */
};

static void gen_init(struct gen *g, uint64_t seed) {
        memset(g, 0, sizeof *g);
        g->at_boundary = true;
        g->seed = seed;
}

static void gen_raw(struct gen *g, const void *p, size_t n) {
        buf_put(&g->wire, p, n);
        if (n)
                g->at_boundary = ((const uint8_t *) p)[n - 1] == 0;
}

/* A garbage burst as a line produces it: random bytes, zeros included,
 * sometimes ending on a delimiter and sometimes not. */
static void gen_garbage(struct gen *g) {
        unsigned n = 1 + rng_below(&g->seed, 24);

        for (unsigned i = 0; i < n; i++) {
                uint8_t b = (uint8_t) rng_next(&g->seed);

                gen_raw(g, &b, 1);
        }
}

/* Puts one frame on the line with the configured chance of noise before it
 * and of a bit flipped inside it.  seq is the sender's counter: a pad's
 * own, or for a host frame (address taken as the destination) the host's
 * per destination when seq is NULL. */
static void gen_send_seq(struct gen *g, struct frame f, uint8_t address, uint16_t *seq) {
        uint8_t wire[PROTO_MAX_ENCODED];
        bool flipped = false, survives;
        int n;

        f.address = address;
        f.seq = seq ? (*seq)++ : g->host_seq[address]++;
        if (g->garbage_per_mille && rng_below(&g->seed, 1000) < g->garbage_per_mille)
                gen_garbage(g);
        n = frame_encode(&f, wire, sizeof wire);
        assert_true(n > 0);
        if (g->flip_per_mille && rng_below(&g->seed, 1000) < g->flip_per_mille) {
                size_t bit = rng_below(&g->seed, (unsigned) (8 * n));

                wire[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                flipped = true;
        }
        survives = g->at_boundary && !flipped;
        gen_raw(g, wire, (size_t) n);
        if (survives) {
                assert_true(g->n_intact < ELEMENTSOF(g->intact));
                g->intact[g->n_intact++] = f;
        }
}

static void gen_send(struct gen *g, struct frame f, uint8_t address) {
        gen_send_seq(g, f, address, NULL);
}

static struct frame msg_hello(uint64_t uid, uint8_t kind, uint8_t buttons, uint32_t clock_hz) {
        struct frame f;

        proto_pack_hello(&f, &(struct proto_hello) { .uid = uid, .kind = kind, .n_buttons = buttons,
                                                     .fw_major = 1, .fw_minor = 4, .clock_hz = clock_hz });
        return f;
}

static struct frame msg_event(uint8_t type, uint16_t event_no, uint8_t button, uint32_t t) {
        struct frame f;

        proto_pack_event(&f, type, &(struct proto_event) { .event_no = event_no, .button = button,
                                                          .pad_time = t });
        return f;
}

static struct frame msg_assign(uint64_t uid, uint8_t address) {
        struct frame f;

        proto_pack_assign(&f, &(struct proto_assign) { .uid = uid, .address = address });
        return f;
}

static struct frame msg_ack(uint16_t event_no) {
        struct frame f;

        proto_pack_ack(&f, &(struct proto_ack) { .event_no = event_no });
        return f;
}

static struct frame msg_sync(uint16_t id, uint8_t slot) {
        struct frame f;

        proto_pack_sync(&f, &(struct proto_sync) { .sync_id = id, .slot_us_x100 = slot });
        return f;
}

static struct frame msg_sync_reply(uint16_t id, uint32_t rx, uint32_t tx) {
        struct frame f;

        proto_pack_sync_reply(&f, &(struct proto_sync_reply) { .sync_id = id, .rx_time = rx,
                                                              .tx_time = tx });
        return f;
}

static struct frame msg_heartbeat(uint32_t t, uint16_t pending, uint16_t rx_errors) {
        struct frame f;

        proto_pack_heartbeat(&f, &(struct proto_heartbeat) { .pad_time = t,
                                                            .pending_events = pending,
                                                            .rx_errors = rx_errors });
        return f;
}

static struct frame msg_light(uint8_t button, uint8_t mode, uint16_t ms) {
        struct frame f;

        proto_pack_light(&f, &(struct proto_light) { .button = button, .mode = mode,
                                                    .duration_ms = ms });
        return f;
}

static struct frame msg_buzz(uint16_t ms, uint8_t pattern) {
        struct frame f;

        proto_pack_buzz(&f, &(struct proto_buzz) { .duration_ms = ms, .pattern = pattern });
        return f;
}

static struct frame msg_lockout(uint16_t mask) {
        struct frame f;

        proto_pack_lockout(&f, &(struct proto_lockout) { .button_mask = mask });
        return f;
}

static struct frame msg_empty(uint8_t type) {
        struct frame f;

        proto_pack_empty(&f, type);
        return f;
}

#define UID_TABLE1      0x00a1b2c3d4e5f601ULL
#define UID_SLAP        0x00a1b2c3d4e5f602ULL
#define UID_REFEREE     0x00a1b2c3d4e5f603ULL

/* A session as a sniffer on the line sees it, both directions: two pads
 * and a referee keypad start, are assigned, synchronised (unicast and
 * broadcast), press and release with ACKs (one retransmission), beat, and
 * are driven (light, buzz, lockout); the slap pad's clock wraps; a RESET
 * sends one back to HELLO.  Pad times are µs; the slap pad's clock starts
 * just before the 32-bit wrap. */
static void gen_session(struct gen *g, int rounds) {
        uint32_t t1 = 5000000, t2 = 0xfff00000u;
        uint16_t ev1 = 0, ev2 = 0, ev3 = 0, sync_id = 1;
        uint16_t seq[4] = { 0 };        /* each pad numbers its own frames; index: its address */

#define PAD(addr, msg)          gen_send_seq(g, msg, addr, &seq[addr])
#define NEW_PAD(addr, msg)      gen_send_seq(g, msg, PROTO_ADDR_UNASSIGNED, &seq[addr])
#define HOST(addr, msg)         gen_send(g, msg, addr)
        gen_raw(g, "\0", 1);
        NEW_PAD(1, msg_hello(UID_TABLE1, PROTO_KIND_BUTTONS, 7, 1000000));
        NEW_PAD(2, msg_hello(UID_SLAP, PROTO_KIND_SLAP, 1, 1000000));
        NEW_PAD(3, msg_hello(UID_REFEREE, PROTO_KIND_REFEREE, 16, 0));
        HOST(PROTO_ADDR_BROADCAST, msg_assign(UID_TABLE1, 1));
        PAD(1, msg_hello(UID_TABLE1, PROTO_KIND_BUTTONS, 7, 1000000));
        HOST(PROTO_ADDR_BROADCAST, msg_assign(UID_SLAP, 2));
        PAD(2, msg_hello(UID_SLAP, PROTO_KIND_SLAP, 1, 1000000));
        HOST(PROTO_ADDR_BROADCAST, msg_assign(UID_REFEREE, 3));
        PAD(3, msg_hello(UID_REFEREE, PROTO_KIND_REFEREE, 16, 0));
        HOST(PROTO_ADDR_BROADCAST, msg_lockout(0));
        HOST(PROTO_ADDR_BROADCAST, msg_light(0xff, PROTO_LIGHT_OFF, 0));

        for (int r = 0; r < rounds; r++) {
                /* unicast SYNC to each clocked pad */
                HOST(1, msg_sync(sync_id, 0));
                PAD(1, msg_sync_reply(sync_id++, t1 + 180, t1 + 215));
                HOST(2, msg_sync(sync_id, 0));
                PAD(2, msg_sync_reply(sync_id++, t2 + 175, t2 + 209));
                /* a broadcast SYNC: replies in address order, 300 µs slots */
                HOST(PROTO_ADDR_BROADCAST, msg_sync(sync_id, 3));
                PAD(1, msg_sync_reply(sync_id, t1 + 2000, t1 + 2300));
                PAD(2, msg_sync_reply(sync_id++, t2 + 2001, t2 + 2601));

                /* table 1 calls row 3 (button 2); the slap pad is slapped */
                PAD(1, msg_event(PROTO_PRESS, ev1, 2, t1 + 412345));
                PAD(2, msg_event(PROTO_PRESS, ev2, 0, t2 + 412500));
                HOST(1, msg_ack(ev1++));
                PAD(2, msg_event(PROTO_PRESS, ev2, 0, t2 + 412500));   /* no ACK yet: again */
                HOST(2, msg_ack(ev2++));
                HOST(1, msg_light(2, PROTO_LIGHT_BLINK, 2000));
                HOST(1, msg_buzz(150, 1));
                HOST(1, msg_lockout(0x007f));
                PAD(1, msg_event(PROTO_RELEASE, ev1, 2, t1 + 530000));
                PAD(2, msg_event(PROTO_RELEASE, ev2, 0, t2 + 498000));
                HOST(1, msg_ack(ev1++));
                HOST(2, msg_ack(ev2++));
                /* the referee confirms (button 10, "enter"); no clock: time 0 */
                PAD(3, msg_event(PROTO_PRESS, ev3, 10, 0));
                HOST(3, msg_ack(ev3++));
                HOST(1, msg_lockout(0));

                /* heartbeats, 500 ms apart on the pads' clocks */
                t1 += 500000;
                t2 += 500000;
                PAD(1, msg_heartbeat(t1, 0, 0));
                PAD(2, msg_heartbeat(t2, 0, (uint16_t) r));
                PAD(3, msg_heartbeat(0, 0, 0));
                HOST(PROTO_ADDR_BROADCAST, msg_empty(PROTO_HOST_BEAT));
                t1 += 500000;
                t2 += 500000;
        }
        /* RESET: the slap pad forgets everything, its numbering too */
        HOST(2, msg_empty(PROTO_RESET));
        seq[2] = 0;
        NEW_PAD(2, msg_hello(UID_SLAP, PROTO_KIND_SLAP, 1, 1000000));
#undef PAD
#undef NEW_PAD
#undef HOST
}

static void gen_clean_session(struct gen *g) {
        gen_init(g, 1);
        gen_session(g, 3);
}

static void gen_noisy_line(struct gen *g) {
        gen_init(g, 0x6e6f697379ULL);
        g->flip_per_mille = 120;
        g->garbage_per_mille = 150;
        gen_session(g, 6);
}

static void gen_overlong_resync(struct gen *g) {
        uint8_t run[600];

        gen_init(g, 3);
        gen_session(g, 1);
        /* a pad stuck sending a non-zero byte, then a delimiter */
        memset(run, 0xaa, sizeof run);
        gen_raw(g, run, sizeof run);
        gen_raw(g, "\0", 1);
        gen_send(g, msg_heartbeat(123, 0, 0), 1);
        /* a long run glued to a frame: the frame goes with it */
        gen_raw(g, run, 100);
        gen_send(g, msg_event(PROTO_PRESS, 40, 1, 777), 1);
        gen_send(g, msg_event(PROTO_PRESS, 40, 1, 777), 1);
        /* exactly one byte over the longest candidate */
        gen_raw(g, run, PROTO_MAX_ENCODED);
        gen_raw(g, "\0", 1);
        gen_send(g, msg_ack(40), 1);
        /* a run spanning several reads of any size */
        for (int i = 0; i < 8; i++)
                gen_raw(g, run, sizeof run);
        gen_raw(g, "\0\0", 2);
        gen_send(g, msg_heartbeat(500123, 0, 0), 1);
}

static void gen_bad_frame(struct gen *g, uint8_t version, uint8_t type, size_t len) {
        uint8_t payload[PROTO_MAX_PAYLOAD], raw[PROTO_MAX_FRAME], enc[PROTO_MAX_ENCODED];
        size_t n;
        int m;

        for (size_t i = 0; i < sizeof payload; i++)
                payload[i] = (uint8_t) (0x30 + i);
        n = raw_frame(raw, version, 5, 1234, type, payload, len);
        m = cobs_encode(raw, n, enc, sizeof enc);
        assert_true(m > 0);
        gen_raw(g, enc, (size_t) m);
        gen_raw(g, "\0", 1);
}

/* One of each bad class (docs/protocol.md "Errors"), each followed by a
 * good HEARTBEAT so the golden output shows the decoder back in step. */
static void gen_bad_classes(struct gen *g) {
        static const uint8_t unknown_types[] = { 0x00, 0x06, 0x40, 0x7f, 0x80, 0x89, 0xc0, 0xff };
        static const struct { uint8_t type; size_t len; } bad_lengths[] = {
                { PROTO_HELLO, 15 }, { PROTO_HELLO, 17 }, { PROTO_PRESS, 6 },
                { PROTO_RELEASE, 8 }, { PROTO_SYNC_REPLY, 9 }, { PROTO_HEARTBEAT, 0 },
                { PROTO_ASSIGN, 8 }, { PROTO_ACK, 3 }, { PROTO_SYNC, 2 }, { PROTO_LIGHT, 5 },
                { PROTO_BUZZ, 4 }, { PROTO_LOCKOUT, 1 }, { PROTO_RESET, 1 },
                { PROTO_HOST_BEAT, PROTO_MAX_PAYLOAD },
        };
        uint32_t t = 1000;
        uint8_t raw[PROTO_MAX_FRAME], enc[PROTO_MAX_ENCODED];
        struct frame f;
        size_t n;
        int m;

        gen_init(g, 4);
#define GOOD() gen_send(g, msg_heartbeat(t += 500000, 0, 0), 5)
        gen_raw(g, "\x13\x37\xc0\xde", 4);              /* leading garbage, no delimiter yet */
        gen_raw(g, "\0", 1);
        GOOD();
        gen_raw(g, "\0\0\0\0", 4);                      /* idle delimiters */
        GOOD();
        gen_raw(g, "\x05\x11\x22\0", 4);                /* COBS: code past the end */
        GOOD();
        gen_raw(g, "\x01\0", 2);                        /* short: nothing */
        GOOD();
        raw[0] = 1;                                     /* short: a header without CRC */
        raw[1] = 5;
        raw[2] = raw[3] = 0;
        raw[4] = PROTO_HOST_BEAT;
        raw[5] = 0x42;
        m = cobs_encode(raw, 6, enc, sizeof enc);
        assert_true(m > 0);
        gen_raw(g, enc, (size_t) m);
        gen_raw(g, "\0", 1);
        GOOD();
        f = msg_heartbeat(99, 1, 2);                    /* CRC: a payload bit flipped */
        n = raw_frame(raw, 1, 5, 77, f.type, f.payload, f.len);
        raw[6] ^= 0x10;
        m = cobs_encode(raw, n, enc, sizeof enc);
        assert_true(m > 0);
        gen_raw(g, enc, (size_t) m);
        gen_raw(g, "\0", 1);
        GOOD();
        gen_bad_frame(g, 0, PROTO_HEARTBEAT, 8);        /* versions */
        gen_bad_frame(g, 2, PROTO_HEARTBEAT, 8);
        gen_bad_frame(g, 0xff, PROTO_HEARTBEAT, 8);
        GOOD();
        for (size_t i = 0; i < ELEMENTSOF(unknown_types); i++)
                gen_bad_frame(g, 1, unknown_types[i], 4);
        GOOD();
        for (size_t i = 0; i < ELEMENTSOF(bad_lengths); i++)
                gen_bad_frame(g, 1, bad_lengths[i].type, bad_lengths[i].len);
        GOOD();
        for (int i = 0; i < PROTO_MAX_ENCODED; i++)     /* overlong by one */
                gen_raw(g, "\x55", 1);
        gen_raw(g, "\0", 1);
        GOOD();
        /* the codec does not judge addresses or field values: these arrive */
        gen_send(g, msg_event(PROTO_PRESS, 1, 200, 5), 0xfe);
        gen_send(g, msg_hello(0, 99, 0, 0), PROTO_ADDR_BROADCAST);
        GOOD();
        gen_raw(g, "\x7e\x7e", 2);                      /* trailing garbage, no delimiter */
#undef GOOD
}

static const struct {
        const char *name;
        void (*generate)(struct gen *g);
} recordings[] = {
        { "clean_session", gen_clean_session },
        { "noisy_line", gen_noisy_line },
        { "overlong_resync", gen_overlong_resync },
        { "bad_classes", gen_bad_classes },
};

struct intact_check {
        const struct gen *g;
        size_t next;
};

static void expect_intact(void *userdata, const struct frame *f) {
        struct intact_check *c = userdata;

        assert_true(c->next < c->g->n_intact);
        assert_frame_equal(f, &c->g->intact[c->next]);
        c->next++;
}

/* Writes every recording and its golden output; the decoder must deliver
 * exactly the frames the generator left intact, in order. */
static void regenerate_recordings(void) {
        mkdir("tests/data", 0755);
        mkdir(FRAMES_DIR, 0755);
        for (size_t i = 0; i < ELEMENTSOF(recordings); i++) {
                static struct gen g;
                struct intact_check check = { .g = &g };
                struct frame_decoder d;
                struct buf golden = { 0 };
                char path[256];

                recordings[i].generate(&g);
                frame_decoder_init(&d);
                frame_decoder_feed(&d, g.wire.data, g.wire.len, expect_intact, &check);
                assert_int_equal(check.next, g.n_intact);

                decode_stream(g.wire.data, g.wire.len, 0, 0, &golden);
                snprintf(path, sizeof path, FRAMES_DIR "/%s.bin", recordings[i].name);
                write_file(path, g.wire.data, g.wire.len);
                snprintf(path, sizeof path, FRAMES_DIR "/%s.golden", recordings[i].name);
                write_file(path, golden.data, golden.len);
                print_message("wrote %s: %zu bytes, %zu frames\n", recordings[i].name, g.wire.len,
                              g.n_intact);
                buf_free(&golden);
                buf_free(&g.wire);
        }
}

static void recorded_streams_decode_to_their_golden_output(void **state) {
        glob_t gl;
        size_t replayed = 0;
        (void) state;

        if (getenv(REGEN_ENV) && strcmp(getenv(REGEN_ENV), "1") == 0)
                regenerate_recordings();

        assert_int_equal(glob(FRAMES_DIR "/*.bin", 0, NULL, &gl), 0);
        for (size_t i = 0; i < gl.gl_pathc; i++) {
                struct buf bin = { 0 }, golden = { 0 };
                char path[512];
                size_t base = strlen(gl.gl_pathv[i]) - strlen(".bin");

                snprintf(path, sizeof path, "%.*s.golden", (int) base, gl.gl_pathv[i]);
                assert_true(read_file(gl.gl_pathv[i], &bin));
                if (!read_file(path, &golden))
                        fail_msg("%s has no %s", gl.gl_pathv[i], path);

                /* in one read, and in reads of 1..N bytes as a port returns them */
                for (unsigned read_max = 0; read_max <= 64; read_max = read_max ? read_max * 4 : 1) {
                        struct buf got = { 0 };

                        decode_stream(bin.data, bin.len, read_max, 0x5eed + read_max, &got);
                        if (got.len != golden.len || memcmp(got.data, golden.data, got.len) != 0)
                                fail_msg("%s (reads up to %u bytes) differs from %s:\n%s", gl.gl_pathv[i],
                                         read_max, path, (char *) got.data);
                        buf_free(&got);
                }
                frame_fuzz_check(bin.data, bin.len);
                replayed++;
                buf_free(&bin);
                buf_free(&golden);
        }
        globfree(&gl);
        assert_true(replayed >= ELEMENTSOF(recordings));
}

/* Inputs kept in the fuzz corpus, crash-* ones above all, hold the fuzz
 * target's invariants here too. */
static void fuzz_corpus_inputs_keep_the_invariants(void **state) {
        glob_t gl;
        (void) state;

        if (glob(CORPUS_DIR "/*", 0, NULL, &gl) != 0)
                fail_msg("no seed corpus in " CORPUS_DIR);
        for (size_t i = 0; i < gl.gl_pathc; i++) {
                struct buf in = { 0 };

                assert_true(read_file(gl.gl_pathv[i], &in));
                frame_fuzz_check(in.data, in.len);
                buf_free(&in);
        }
        globfree(&gl);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(crc_check_value_is_0x772b),
                cmocka_unit_test(crc_of_nothing_is_the_initial_value),
                cmocka_unit_test(crc_table_agrees_with_the_bitwise_definition),
                cmocka_unit_test(crc_detects_every_error_of_up_to_4_bits_in_every_v1_frame),
                cmocka_unit_test(crc_rejects_every_1_2_and_3_bit_error_of_a_press_frame),
                cmocka_unit_test(cobs_matches_the_published_examples),
                cmocka_unit_test(cobs_round_trips_every_shape),
                cmocka_unit_test(cobs_decode_rejects_what_is_not_cobs),
                cmocka_unit_test(cobs_decode_accepts_a_redundant_code_after_a_full_block),
                cmocka_unit_test(frame_encode_matches_the_worked_example),
                cmocka_unit_test(frame_encode_refuses_an_oversized_payload_or_a_small_buffer),
                cmocka_unit_test(payload_lengths_and_names_cover_every_type),
                cmocka_unit_test(every_message_type_has_its_documented_payload_layout),
                cmocka_unit_test(every_message_type_round_trips_through_the_wire),
                cmocka_unit_test(unpack_refuses_a_wrong_type_or_length),
                cmocka_unit_test(protocol_md_lists_every_type_with_its_length),
                cmocka_unit_test(protocol_md_payload_tables_add_up),
                cmocka_unit_test(protocol_md_worked_example_is_what_the_encoder_sends),
                cmocka_unit_test(corruption_classes_are_counted_once_each),
                cmocka_unit_test(a_flipped_bit_in_any_field_is_a_crc_fault),
                cmocka_unit_test(a_flipped_bit_anywhere_on_the_wire_delivers_nothing),
                cmocka_unit_test(an_overlong_run_is_counted_once_however_it_is_read),
                cmocka_unit_test(splitting_a_stream_anywhere_changes_nothing),
                cmocka_unit_test(recorded_streams_decode_to_their_golden_output),
                cmocka_unit_test(fuzz_corpus_inputs_keep_the_invariants),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
