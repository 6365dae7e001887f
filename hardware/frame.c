/* hardware/frame.c — see frame.h.  Pure: libc only, no I/O, no allocation.
 *
 * The decoder's state machine, one candidate at a time:
 *
 *     COLLECTING --byte != 0, fits----------> COLLECTING  (byte appended)
 *     COLLECTING --byte != 0, would not fit--> DISCARDING (overlong counted once)
 *     COLLECTING --0x00----------------------> candidate judged, COLLECTING
 *     DISCARDING --byte != 0-----------------> DISCARDING (byte dropped)
 *     DISCARDING --0x00----------------------> COLLECTING
 *
 * Invariants: d->len <= FRAME_CANDIDATE_MAX; d->overflow implies d->len == 0;
 * every delimiter ends exactly one candidate and every candidate lands in
 * exactly one of the outcome counters (frames, empty, overlong, cobs,
 * short_frame, crc, version, unknown_type, bad_length), the overlong one
 * when it overflows rather than at its delimiter.  So
 *
 *     sum of outcome counters == delimiters fed + (d->overflow ? 1 : 0)
 *
 * which the unit tests and the fuzz target check.
 */
#include "hardware/frame.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* The CRC (protocol.h; docs/protocol.md section 3): Koopman's 0xac9a,
 * x^16 + x^14 + x^12 + x^11 + x^8 + x^5 + x^4 + x^2 + 1, written here in the
 * "normal" MSB-first notation without the x^16 term.  Koopman's table of good
 * HD=5 polynomials gives it HD=5 up to 241 data bits (30 bytes), so every
 * version 1 frame (at most 21 covered bytes, a HELLO) has all errors of up
 * to 4 bits detected.  Init all ones so that leading zero bytes count; no
 * reflection and no final xor.  The check value that pins this variant:
 * frame_crc16("123456789", 9) == 0x772b (tests/unit/test_frame.c). */
#define FRAME_CRC_POLY          0x5935
#define FRAME_CRC_INIT          0xffff

/* The longest candidate (bytes between delimiters) a valid frame can be:
 * the COBS encoding of PROTO_MAX_FRAME bytes, i.e. PROTO_MAX_ENCODED less the
 * delimiter.  Anything longer is overlong without looking at it. */
#define FRAME_CANDIDATE_MAX     (PROTO_MAX_ENCODED - 1)

/* COBS: a code byte c announces c - 1 data bytes, then a zero unless c is
 * the maximal 0xff (Cheshire and Baker, "Consistent Overhead Byte Stuffing",
 * IEEE/ACM ToN 1999). */
#define COBS_MAX_CODE           0xff

_Static_assert(FRAME_CANDIDATE_MAX <= sizeof(((struct frame_decoder *) 0)->buf),
               "the decoder buffer holds the longest valid candidate");
_Static_assert(PROTO_MAX_FRAME < COBS_MAX_CODE,
               "a frame encodes in one COBS block: at most one byte of overhead");

/* The CRC table is computed by the compiler from the polynomial, so it can
 * never disagree with FRAME_CRC_POLY.  CRC_BYTE(b) is the register after
 * shifting byte b through an all-zero register, bit by bit; the CRC is
 * linear over GF(2), so entry b is the xor of the entries of b's set bits,
 * which keeps the macro expansion small. */
#define CRC_STEP(c)     ((((c) << 1) ^ (FRAME_CRC_POLY & -(((c) >> 15) & 1))) & 0xffff)
#define CRC_BYTE(b)     CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP( \
                        CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP((b) << 8))))))))

enum {
        CRC_BIT0 = CRC_BYTE(0x01), CRC_BIT1 = CRC_BYTE(0x02),
        CRC_BIT2 = CRC_BYTE(0x04), CRC_BIT3 = CRC_BYTE(0x08),
        CRC_BIT4 = CRC_BYTE(0x10), CRC_BIT5 = CRC_BYTE(0x20),
        CRC_BIT6 = CRC_BYTE(0x40), CRC_BIT7 = CRC_BYTE(0x80),
};

#define CRC_ENTRY(b)    (((b) & 0x01 ? CRC_BIT0 : 0) ^ ((b) & 0x02 ? CRC_BIT1 : 0) ^ \
                         ((b) & 0x04 ? CRC_BIT2 : 0) ^ ((b) & 0x08 ? CRC_BIT3 : 0) ^ \
                         ((b) & 0x10 ? CRC_BIT4 : 0) ^ ((b) & 0x20 ? CRC_BIT5 : 0) ^ \
                         ((b) & 0x40 ? CRC_BIT6 : 0) ^ ((b) & 0x80 ? CRC_BIT7 : 0))
#define CRC_ROW4(b)     CRC_ENTRY(b), CRC_ENTRY((b) + 1), CRC_ENTRY((b) + 2), CRC_ENTRY((b) + 3)
#define CRC_ROW16(b)    CRC_ROW4(b), CRC_ROW4((b) + 4), CRC_ROW4((b) + 8), CRC_ROW4((b) + 12)
#define CRC_ROW64(b)    CRC_ROW16(b), CRC_ROW16((b) + 16), CRC_ROW16((b) + 32), CRC_ROW16((b) + 48)

static const uint16_t crc_table[256] = {
        CRC_ROW64(0), CRC_ROW64(64), CRC_ROW64(128), CRC_ROW64(192),
};

uint16_t frame_crc16(const uint8_t *data, size_t n) {
        uint16_t crc = FRAME_CRC_INIT;

        for (size_t i = 0; i < n; i++)
                crc = (uint16_t) ((crc << 8) ^ crc_table[((crc >> 8) ^ data[i]) & 0xff]);
        return crc;
}

/* Little-endian field access (protocol.h: every multi-byte field is LE).
 * Byte by byte rather than memcpy of a struct, so that neither the host's
 * byte order nor the compiler's struct padding reaches the wire. */
static void put_le16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v) {
        put_le16(p, (uint16_t) v);
        put_le16(p + 2, (uint16_t) (v >> 16));
}

static void put_le64(uint8_t *p, uint64_t v) {
        put_le32(p, (uint32_t) v);
        put_le32(p + 4, (uint32_t) (v >> 32));
}

static uint16_t get_le16(const uint8_t *p) {
        return (uint16_t) (p[0] | p[1] << 8);
}

static uint32_t get_le32(const uint8_t *p) {
        return (uint32_t) get_le16(p) | (uint32_t) get_le16(p + 2) << 16;
}

static uint64_t get_le64(const uint8_t *p) {
        return (uint64_t) get_le32(p) | (uint64_t) get_le32(p + 4) << 32;
}

/* Standard COBS.  A run of 254 non-zero bytes fills a block (code 0xff, no
 * implied zero); when the input ends right there no further code byte is
 * written, so the output is n + ceil(n / 254) bytes at most (1 for n == 0)
 * and never contains 0x00.  Bounds are checked on every write: the caller's
 * cap may be exactly the encoded size. */
int cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
        size_t code_at = 0, o = 1;
        unsigned code = 1;

        if (!out || cap < 1 || (n > 0 && !in))
                return -EINVAL;
        if (cap > INT_MAX)
                cap = INT_MAX;          /* the length must fit the return value */
        for (size_t i = 0; i < n; i++) {
                if (in[i] != 0) {
                        if (o >= cap)
                                return -EINVAL;
                        out[o++] = in[i];
                        if (++code < COBS_MAX_CODE || i + 1 == n)
                                continue;
                }
                /* A zero, or a full block with more input to come. */
                if (o >= cap)
                        return -EINVAL;
                out[code_at] = (uint8_t) code;
                code_at = o++;
                code = 1;
        }
        out[code_at] = (uint8_t) code;
        return (int) o;
}

/* The inverse, strict about what cannot be COBS: a 0x00 inside the input, a
 * code byte announcing more bytes than remain, an empty input (the shortest
 * encoding is the single byte 0x01).  It accepts a redundant trailing 0x01
 * after a full block, which decodes to the same bytes; the CRC, not COBS,
 * is what vouches for the content. */
int cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
        size_t i = 0, o = 0;

        if (n == 0 || !in || (cap > 0 && !out))
                return -EINVAL;
        if (cap > INT_MAX)
                cap = INT_MAX;          /* the length must fit the return value */
        while (i < n) {
                unsigned code = in[i++];
                size_t run = code - 1;

                if (code == 0 || run > n - i || run > cap - o)
                        return -EINVAL;
                for (size_t k = 0; k < run; k++) {
                        if (in[i] == 0)
                                return -EINVAL;
                        out[o++] = in[i++];
                }
                if (code != COBS_MAX_CODE && i < n) {
                        if (o >= cap)
                                return -EINVAL;
                        out[o++] = 0;
                }
        }
        return (int) o;
}

/* The frame is assembled in a local buffer so that the CRC covers exactly
 * the bytes that are COBS-encoded.  Version and type are sent as given, not
 * checked: tests and simulators craft frames a receiver must refuse. */
int frame_encode(const struct frame *f, uint8_t *out, size_t cap) {
        uint8_t raw[PROTO_MAX_FRAME];
        size_t n;
        int r;

        if (!f || !out || f->len > PROTO_MAX_PAYLOAD)
                return -EINVAL;
        raw[0] = f->version;
        raw[1] = f->address;
        put_le16(raw + 2, f->seq);
        raw[4] = f->type;
        memcpy(raw + PROTO_HEADER_LEN, f->payload, f->len);
        n = PROTO_HEADER_LEN + f->len;
        put_le16(raw + n, frame_crc16(raw, n));
        n += PROTO_CRC_LEN;

        r = cobs_encode(raw, n, out, cap);
        if (r < 0)
                return r;
        if ((size_t) r >= cap)
                return -EINVAL;
        out[r] = 0;
        return r + 1;
}

/* The payload sizes of protocol.h's messages as laid out on the wire
 * (docs/protocol.md section 6): the one place they are written down. */
int proto_payload_len(uint8_t type) {
        switch (type) {
        case PROTO_HELLO:       return 16;
        case PROTO_PRESS:       return 7;
        case PROTO_RELEASE:     return 7;
        case PROTO_SYNC_REPLY:  return 10;
        case PROTO_HEARTBEAT:   return 8;
        case PROTO_ASSIGN:      return 9;
        case PROTO_ACK:         return 2;
        case PROTO_SYNC:        return 3;
        case PROTO_LIGHT:       return 4;
        case PROTO_BUZZ:        return 3;
        case PROTO_LOCKOUT:     return 2;
        case PROTO_RESET:       return 0;
        case PROTO_HOST_BEAT:   return 0;
        default:                return -1;
        }
}

const char *proto_type_name(uint8_t type) {
        switch (type) {
        case PROTO_HELLO:       return "HELLO";
        case PROTO_PRESS:       return "PRESS";
        case PROTO_RELEASE:     return "RELEASE";
        case PROTO_SYNC_REPLY:  return "SYNC_REPLY";
        case PROTO_HEARTBEAT:   return "HEARTBEAT";
        case PROTO_ASSIGN:      return "ASSIGN";
        case PROTO_ACK:         return "ACK";
        case PROTO_SYNC:        return "SYNC";
        case PROTO_LIGHT:       return "LIGHT";
        case PROTO_BUZZ:        return "BUZZ";
        case PROTO_LOCKOUT:     return "LOCKOUT";
        case PROTO_RESET:       return "RESET";
        case PROTO_HOST_BEAT:   return "HOST_BEAT";
        default:                return "UNKNOWN";
        }
}

void frame_decoder_init(struct frame_decoder *d) {
        memset(d, 0, sizeof *d);
}

/* Judges one complete candidate.  The checks run in the order that makes
 * each counter mean one thing: COBS and length first (framing), then the
 * CRC (line noise), and only for a frame that arrived intact the version
 * and type, so that `version` and `unknown_type` count frames a pad really
 * sent (a firmware speaking another version, a type this host lacks) and
 * never noise.  A future version must therefore keep the version byte first
 * and the CRC last (docs/protocol.md section 12). */
static void judge_candidate(struct frame_decoder *d, frame_fn fn, void *userdata) {
        uint8_t raw[PROTO_MAX_FRAME];
        struct frame f;
        int n, expect;

        if (d->len == 0) {
                d->faults.empty++;
                return;
        }
        n = cobs_decode(d->buf, d->len, raw, sizeof raw);
        d->len = 0;
        if (n < 0) {
                d->faults.cobs++;
                return;
        }
        if (n < PROTO_HEADER_LEN + PROTO_CRC_LEN) {
                d->faults.short_frame++;
                return;
        }
        n -= PROTO_CRC_LEN;
        if (frame_crc16(raw, (size_t) n) != get_le16(raw + n)) {
                d->faults.crc++;
                return;
        }
        if (raw[0] != PROTO_VERSION) {
                d->faults.version++;
                return;
        }
        expect = proto_payload_len(raw[4]);
        if (expect < 0) {
                d->faults.unknown_type++;
                return;
        }
        if (n - PROTO_HEADER_LEN != expect) {
                d->faults.bad_length++;
                return;
        }

        memset(&f, 0, sizeof f);
        f.version = raw[0];
        f.address = raw[1];
        f.seq = get_le16(raw + 2);
        f.type = raw[4];
        f.len = (uint8_t) expect;
        memcpy(f.payload, raw + PROTO_HEADER_LEN, f.len);
        d->faults.frames++;
        if (fn)
                fn(userdata, &f);
}

/* Copies each run between delimiters with one memchr and one memcpy rather
 * than byte by byte: the decoder's cost is then dominated by the COBS and
 * CRC passes over complete candidates.  fn runs with the decoder between
 * candidates and must not feed the same decoder. */
void frame_decoder_feed(struct frame_decoder *d, const uint8_t *data, size_t n,
                        frame_fn fn, void *userdata) {
        d->faults.bytes += n;
        while (n > 0) {
                const uint8_t *z = memchr(data, 0, n);
                size_t run = z ? (size_t) (z - data) : n;

                if (!d->overflow) {
                        if (run <= FRAME_CANDIDATE_MAX - d->len) {
                                memcpy(d->buf + d->len, data, run);
                                d->len += run;
                        } else {
                                d->overflow = 1;
                                d->len = 0;
                                d->faults.overlong++;
                        }
                }
                if (!z)
                        return;
                if (d->overflow)
                        d->overflow = 0;
                else
                        judge_candidate(d, fn, userdata);
                data += run + 1;
                n -= run + 1;
        }
}

/* Writes every field the codec owns: the version (so a packed frame is
 * valid without its caller knowing the version) and the unused payload tail
 * (so frames compare byte for byte).  Address and seq are the caller's. */
void proto_pack_empty(struct frame *f, uint8_t type) {
        f->version = PROTO_VERSION;
        f->type = type;
        f->len = 0;
        memset(f->payload, 0, sizeof f->payload);
}

/* Starts a payload of the given type: header fields the codec owns, a
 * zeroed payload, the type's length.  Returns the payload to fill. */
static uint8_t *pack_start(struct frame *f, uint8_t type) {
        proto_pack_empty(f, type);
        f->len = (uint8_t) proto_payload_len(type);
        return f->payload;
}

/* A frame carries a message of one of the given types only with exactly
 * that type's length; anything else is not that message. */
static int unpack_check(const struct frame *f, uint8_t type) {
        if (!f || f->type != type || f->len != proto_payload_len(type))
                return -EBADMSG;
        return 0;
}

void proto_pack_hello(struct frame *f, const struct proto_hello *m) {
        uint8_t *p = pack_start(f, PROTO_HELLO);

        put_le64(p, m->uid);
        p[8] = m->kind;
        p[9] = m->n_buttons;
        p[10] = m->fw_major;
        p[11] = m->fw_minor;
        put_le32(p + 12, m->clock_hz);
}

int proto_unpack_hello(const struct frame *f, struct proto_hello *m) {
        const uint8_t *p = f ? f->payload : NULL;
        int r = unpack_check(f, PROTO_HELLO);

        if (r < 0)
                return r;
        m->uid = get_le64(p);
        m->kind = p[8];
        m->n_buttons = p[9];
        m->fw_major = p[10];
        m->fw_minor = p[11];
        m->clock_hz = get_le32(p + 12);
        return 0;
}

/* PRESS and RELEASE share one layout; the type says which.  A type other
 * than those two is the caller's bug; it is packed as given so that the
 * receiver, not the sender, is where it shows (as bad_length or
 * unknown_type). */
void proto_pack_event(struct frame *f, uint8_t type, const struct proto_event *m) {
        uint8_t *p;

        proto_pack_empty(f, type);
        f->len = (uint8_t) proto_payload_len(PROTO_PRESS);
        p = f->payload;
        put_le16(p, m->event_no);
        p[2] = m->button;
        put_le32(p + 3, m->pad_time);
}

int proto_unpack_event(const struct frame *f, struct proto_event *m) {
        const uint8_t *p;

        if (!f || (unpack_check(f, PROTO_PRESS) < 0 && unpack_check(f, PROTO_RELEASE) < 0))
                return -EBADMSG;
        p = f->payload;
        m->event_no = get_le16(p);
        m->button = p[2];
        m->pad_time = get_le32(p + 3);
        return 0;
}

void proto_pack_sync_reply(struct frame *f, const struct proto_sync_reply *m) {
        uint8_t *p = pack_start(f, PROTO_SYNC_REPLY);

        put_le16(p, m->sync_id);
        put_le32(p + 2, m->rx_time);
        put_le32(p + 6, m->tx_time);
}

int proto_unpack_sync_reply(const struct frame *f, struct proto_sync_reply *m) {
        int r = unpack_check(f, PROTO_SYNC_REPLY);

        if (r < 0)
                return r;
        m->sync_id = get_le16(f->payload);
        m->rx_time = get_le32(f->payload + 2);
        m->tx_time = get_le32(f->payload + 6);
        return 0;
}

void proto_pack_heartbeat(struct frame *f, const struct proto_heartbeat *m) {
        uint8_t *p = pack_start(f, PROTO_HEARTBEAT);

        put_le32(p, m->pad_time);
        put_le16(p + 4, m->pending_events);
        put_le16(p + 6, m->rx_errors);
}

int proto_unpack_heartbeat(const struct frame *f, struct proto_heartbeat *m) {
        int r = unpack_check(f, PROTO_HEARTBEAT);

        if (r < 0)
                return r;
        m->pad_time = get_le32(f->payload);
        m->pending_events = get_le16(f->payload + 4);
        m->rx_errors = get_le16(f->payload + 6);
        return 0;
}

void proto_pack_assign(struct frame *f, const struct proto_assign *m) {
        uint8_t *p = pack_start(f, PROTO_ASSIGN);

        put_le64(p, m->uid);
        p[8] = m->address;
}

int proto_unpack_assign(const struct frame *f, struct proto_assign *m) {
        int r = unpack_check(f, PROTO_ASSIGN);

        if (r < 0)
                return r;
        m->uid = get_le64(f->payload);
        m->address = f->payload[8];
        return 0;
}

void proto_pack_ack(struct frame *f, const struct proto_ack *m) {
        uint8_t *p = pack_start(f, PROTO_ACK);

        put_le16(p, m->event_no);
}

int proto_unpack_ack(const struct frame *f, struct proto_ack *m) {
        int r = unpack_check(f, PROTO_ACK);

        if (r < 0)
                return r;
        m->event_no = get_le16(f->payload);
        return 0;
}

void proto_pack_sync(struct frame *f, const struct proto_sync *m) {
        uint8_t *p = pack_start(f, PROTO_SYNC);

        put_le16(p, m->sync_id);
        p[2] = m->slot_us_x100;
}

int proto_unpack_sync(const struct frame *f, struct proto_sync *m) {
        int r = unpack_check(f, PROTO_SYNC);

        if (r < 0)
                return r;
        m->sync_id = get_le16(f->payload);
        m->slot_us_x100 = f->payload[2];
        return 0;
}

void proto_pack_light(struct frame *f, const struct proto_light *m) {
        uint8_t *p = pack_start(f, PROTO_LIGHT);

        p[0] = m->button;
        p[1] = m->mode;
        put_le16(p + 2, m->duration_ms);
}

int proto_unpack_light(const struct frame *f, struct proto_light *m) {
        int r = unpack_check(f, PROTO_LIGHT);

        if (r < 0)
                return r;
        m->button = f->payload[0];
        m->mode = f->payload[1];
        m->duration_ms = get_le16(f->payload + 2);
        return 0;
}

void proto_pack_buzz(struct frame *f, const struct proto_buzz *m) {
        uint8_t *p = pack_start(f, PROTO_BUZZ);

        put_le16(p, m->duration_ms);
        p[2] = m->pattern;
}

int proto_unpack_buzz(const struct frame *f, struct proto_buzz *m) {
        int r = unpack_check(f, PROTO_BUZZ);

        if (r < 0)
                return r;
        m->duration_ms = get_le16(f->payload);
        m->pattern = f->payload[2];
        return 0;
}

void proto_pack_lockout(struct frame *f, const struct proto_lockout *m) {
        uint8_t *p = pack_start(f, PROTO_LOCKOUT);

        put_le16(p, m->button_mask);
}

int proto_unpack_lockout(const struct frame *f, struct proto_lockout *m) {
        int r = unpack_check(f, PROTO_LOCKOUT);

        if (r < 0)
                return r;
        m->button_mask = get_le16(f->payload);
        return 0;
}
