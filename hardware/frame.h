/* hardware/frame.h — the pad bus frame codec (pure: no I/O).
 *
 * Encoding: frame_encode() builds header + payload + CRC, COBS-encodes it
 * and appends the 0x00 delimiter.  Message helpers pack and unpack the
 * payload of each type (protocol.h) with explicit little-endian fields.
 *
 * Decoding is a byte-stream lexer in the spirit of gpsd's packet.c: it is fed
 * whatever read() returned — split frames, several frames, leading garbage,
 * line noise — and calls back once per valid frame.  Everything between two
 * delimiters is one candidate; a candidate that is too long, does not
 * COBS-decode, is too short, fails the CRC, or carries an unknown version or
 * type is dropped and counted, and the lexer resynchronises on the next
 * delimiter.  It never allocates, never blocks, and holds at most one
 * candidate (PROTO_MAX_ENCODED bytes).
 */
#ifndef ARBITER_HARDWARE_FRAME_H
#define ARBITER_HARDWARE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "hardware/protocol.h"

struct frame {
        uint8_t version;
        uint8_t address;
        uint16_t seq;
        uint8_t type;                   /* enum proto_type */
        uint8_t len;                    /* payload bytes */
        uint8_t payload[PROTO_MAX_PAYLOAD];
};

/* Every way a candidate can fail, counted per port and per pad. */
struct frame_faults {
        uint64_t bytes;                 /* bytes fed */
        uint64_t frames;                /* valid frames delivered */
        uint64_t empty;                 /* delimiters with nothing before them (idle line) */
        uint64_t overlong;              /* candidate longer than PROTO_MAX_ENCODED */
        uint64_t cobs;                  /* not valid COBS */
        uint64_t short_frame;           /* decoded shorter than header + CRC */
        uint64_t crc;                   /* CRC mismatch */
        uint64_t version;               /* unknown protocol version */
        uint64_t unknown_type;          /* unknown message type */
        uint64_t bad_length;            /* payload length wrong for its type */
};

typedef void (*frame_fn)(void *userdata, const struct frame *f);

struct frame_decoder {
        uint8_t buf[PROTO_MAX_ENCODED];
        size_t len;
        int overflow;                   /* discarding until the next delimiter */
        struct frame_faults faults;
};

void frame_decoder_init(struct frame_decoder *d);
/* Feeds n bytes; calls fn for each valid frame, in order. */
void frame_decoder_feed(struct frame_decoder *d, const uint8_t *data, size_t n, frame_fn fn, void *userdata);

/* Encodes f into out (cap >= PROTO_MAX_ENCODED); returns the byte count
 * including the delimiter, or -EINVAL for a payload longer than the max. */
int frame_encode(const struct frame *f, uint8_t *out, size_t cap);

/* CRC-16, polynomial 0x5935 (0xac9a Koopman), init 0xffff; check value 0x772b. */
uint16_t frame_crc16(const uint8_t *data, size_t n);

/* COBS, exposed for tests: return the output length or -EINVAL. */
int cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
int cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/* Payload length each type must have; -1 for an unknown type. */
int proto_payload_len(uint8_t type);
const char *proto_type_name(uint8_t type);

/* Message helpers: *_pack fill f (version, type, len, payload with its unused
 * tail zeroed; the caller sets address and seq); *_unpack return 0 or
 * -EBADMSG on a wrong type/length. */
void proto_pack_hello(struct frame *f, const struct proto_hello *m);
int proto_unpack_hello(const struct frame *f, struct proto_hello *m);
void proto_pack_event(struct frame *f, uint8_t type, const struct proto_event *m);
int proto_unpack_event(const struct frame *f, struct proto_event *m);
void proto_pack_sync_reply(struct frame *f, const struct proto_sync_reply *m);
int proto_unpack_sync_reply(const struct frame *f, struct proto_sync_reply *m);
void proto_pack_heartbeat(struct frame *f, const struct proto_heartbeat *m);
int proto_unpack_heartbeat(const struct frame *f, struct proto_heartbeat *m);
void proto_pack_assign(struct frame *f, const struct proto_assign *m);
int proto_unpack_assign(const struct frame *f, struct proto_assign *m);
void proto_pack_ack(struct frame *f, const struct proto_ack *m);
int proto_unpack_ack(const struct frame *f, struct proto_ack *m);
void proto_pack_sync(struct frame *f, const struct proto_sync *m);
int proto_unpack_sync(const struct frame *f, struct proto_sync *m);
void proto_pack_light(struct frame *f, const struct proto_light *m);
int proto_unpack_light(const struct frame *f, struct proto_light *m);
void proto_pack_buzz(struct frame *f, const struct proto_buzz *m);
int proto_unpack_buzz(const struct frame *f, struct proto_buzz *m);
void proto_pack_lockout(struct frame *f, const struct proto_lockout *m);
int proto_unpack_lockout(const struct frame *f, struct proto_lockout *m);
/* RESET and HOST_BEAT carry no payload. */
void proto_pack_empty(struct frame *f, uint8_t type);

#endif
