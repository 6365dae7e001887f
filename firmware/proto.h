/* firmware/proto.h — the pad bus protocol, version 1, as the pad sees it.
 *
 * Written again from docs/protocol.md, the contract, and not copied from the
 * host (hardware/): the firmware is the protocol's second, independent
 * implementation.  Section numbers below are docs/protocol.md's.
 *
 * A frame before framing (section 2), little-endian fields:
 *
 *     0        1        2..3   4      5 .. 5+len-1   last 2
 *     version  address  seq    type   payload        CRC-16 (low byte first)
 *
 * On the wire: its COBS encoding, then one 0x00 (section 4).
 */
#ifndef ARBITER_FIRMWARE_PROTO_H
#define ARBITER_FIRMWARE_PROTO_H

#include <stdint.h>

#define PROTO_VERSION           1
#define PROTO_ADDR_UNASSIGNED   0x00
#define PROTO_ADDR_MAX          247
#define PROTO_ADDR_BROADCAST    0xff

#define PROTO_HEADER_LEN        5       /* version, address, seq (2), type */
#define PROTO_CRC_LEN           2
/* Version 1's longest payload is a HELLO's 16 bytes (section 6); the
 * layout allows 32, but a pad only needs room for what version 1 sends and
 * accepts, so its buffers are sized for 16 and anything longer is a fault. */
#define PROTO_PAYLOAD_MAX       16
#define PROTO_FRAME_MAX         (PROTO_HEADER_LEN + PROTO_PAYLOAD_MAX + PROTO_CRC_LEN)
/* A candidate longer than this is dropped without decoding (section 4). */
#define PROTO_CANDIDATE_MAX     40
/* COBS adds one byte to a frame shorter than 254; then the delimiter, and
 * the optional leading 0x00. */
#define PROTO_WIRE_MAX          (1 + PROTO_FRAME_MAX + 1 + 1)

/* Message types and their payload lengths (section 6). */
#define PROTO_HELLO             0x01
#define PROTO_PRESS             0x02
#define PROTO_RELEASE           0x03
#define PROTO_SYNC_REPLY        0x04
#define PROTO_HEARTBEAT         0x05
#define PROTO_ASSIGN            0x81
#define PROTO_ACK               0x82
#define PROTO_SYNC              0x83
#define PROTO_LIGHT             0x84
#define PROTO_BUZZ              0x85
#define PROTO_LOCKOUT           0x86
#define PROTO_RESET             0x87
#define PROTO_HOST_BEAT         0x88

#define PROTO_LEN_HELLO         16
#define PROTO_LEN_EVENT         7
#define PROTO_LEN_SYNC_REPLY    10
#define PROTO_LEN_HEARTBEAT     8
#define PROTO_LEN_ASSIGN        9
#define PROTO_LEN_ACK           2
#define PROTO_LEN_SYNC          3
#define PROTO_LEN_LIGHT         4
#define PROTO_LEN_BUZZ          3
#define PROTO_LEN_LOCKOUT       2

/* Section 7. */
#define PROTO_KIND_BUTTONS      1
#define PROTO_KIND_SLAP         2
#define PROTO_KIND_REFEREE      3
#define PROTO_LIGHT_OFF         0
#define PROTO_LIGHT_ON          1
#define PROTO_LIGHT_BLINK       2
#define PROTO_BUTTON_ALL        0xff

/* Timing the pad keeps (sections 5, 7, 9, 10), in ms unless said. */
#define PROTO_HELLO_INTERVAL_MS         500     /* unassigned, full-duplex */
#define PROTO_HEARTBEAT_INTERVAL_MS     500     /* full-duplex */
#define PROTO_HOST_TIMEOUT_MS           3000    /* no host frame: host gone */
#define PROTO_RESEND_FIRST_MS           20      /* then doubling ... */
#define PROTO_RESEND_MAX_MS             200     /* ... to at most this */
#define PROTO_BLINK_HALF_MS             125     /* LIGHT blink: 4 Hz */
#define PROTO_DISCOVERY_SLOTS           16      /* HELLO in a random slot 0..15 */
#define PROTO_DISCOVERY_GUARD_US        100     /* slot = A(HELLO) + this */
#define PROTO_HELLO_WIRE_BYTES          25      /* 9 + 16 (section 2) */
#define PROTO_SYNC_SLOT_UNIT_US         100     /* slot_us_x100 */

#endif
