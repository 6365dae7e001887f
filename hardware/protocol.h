/* hardware/protocol.h — the pad bus protocol, version 1 (docs/protocol.md
 * is the full description for firmware authors; this header is its C form).
 *
 * A frame, before framing, is
 *
 *     0        1        2..3      4      5 .. 5+len-1    last 2
 *     version  address  seq (LE)  type   payload         CRC-16 (LE)
 *
 * and goes on the wire COBS-encoded, followed by one 0x00 delimiter.  The
 * CRC covers version..payload: polynomial 0xac9a in Koopman notation (0x5935
 * in the usual "normal" notation), init 0xffff, no reflection, no final xor,
 * check value 0x772b.  A version 1 frame covers at most 21 bytes (a HELLO),
 * within the 241 bits up to which Koopman's CRC tables give it HD=5: every
 * error of up to 4 bits is detected, where CRC-16/CCITT guarantees 3.
 * (0xd175 keeps HD=6 only up to 93 bits, short of a PRESS frame's 96, and is
 * HD=4 beyond; docs/protocol.md section 3 compares them.)
 *
 * Addresses: 0 is "not yet assigned" (a pad's HELLO before ASSIGN); 1..247
 * are pads; 0xff is broadcast from the host.  seq counts frames per sender
 * and direction (wrapping); it lets either side spot a lost frame.
 *
 * All multi-byte fields are little-endian.  Pad times are the pad's own
 * free-running counter in microseconds (32 bits: it wraps every 71.6 min;
 * the host extends it to 64 bits).  The pad retransmits a PRESS/RELEASE
 * until the host ACKs its event number; the host discards duplicates.
 *
 * Pure: no I/O.  hardware/frame.h encodes, decodes and frames these.
 */
#ifndef ARBITER_HARDWARE_PROTOCOL_H
#define ARBITER_HARDWARE_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>

#define PROTO_VERSION           1
#define PROTO_ADDR_UNASSIGNED   0x00
#define PROTO_ADDR_MAX          247
#define PROTO_ADDR_BROADCAST    0xff
#define PROTO_HEADER_LEN        5       /* version, address, seq (2), type */
/* A pad with a clock stamps an edge, and a received delimiter, at most this
 * long after it happened (its interrupt latency: docs/protocol.md section 7);
 * the host widens every press's uncertainty by it. */
#define PROTO_STAMP_LATENCY_US  32
#define PROTO_CRC_LEN           2
#define PROTO_MAX_PAYLOAD       32
#define PROTO_MAX_FRAME         (PROTO_HEADER_LEN + PROTO_MAX_PAYLOAD + PROTO_CRC_LEN)
/* COBS adds at most one byte per 254 plus one; then the delimiter. */
#define PROTO_MAX_ENCODED       (PROTO_MAX_FRAME + PROTO_MAX_FRAME / 254 + 1 + 1)
#define PROTO_MAX_BUTTONS       16

/* Message types.  Pad → host below 0x80, host → pad from 0x80. */
enum proto_type {
        PROTO_HELLO        = 0x01,  /* a pad announces itself */
        PROTO_PRESS        = 0x02,  /* a button went down */
        PROTO_RELEASE      = 0x03,  /* a button went up */
        PROTO_SYNC_REPLY   = 0x04,  /* the pad's clock at a SYNC */
        PROTO_HEARTBEAT    = 0x05,  /* pad → host: still here, with status */

        PROTO_ASSIGN       = 0x81,  /* host: this uid takes this address */
        PROTO_ACK          = 0x82,  /* host: event number received (durable) */
        PROTO_SYNC         = 0x83,  /* host: report your clock now */
        PROTO_LIGHT        = 0x84,  /* host: light / blink / clear a button */
        PROTO_BUZZ         = 0x85,  /* host: sound the buzzer */
        PROTO_LOCKOUT      = 0x86,  /* host: buttons that may not press */
        PROTO_RESET        = 0x87,  /* host: forget state, send HELLO again */
        PROTO_HOST_BEAT    = 0x88,  /* host → pad: still here */
};

enum proto_pad_kind {
        PROTO_KIND_BUTTONS = 1,     /* N buttons: rows 1–6 + "doesn't fit", or five directions */
        PROTO_KIND_SLAP    = 2,     /* one large slap surface */
        PROTO_KIND_REFEREE = 3,     /* referee keypad */
};

enum proto_light_mode {
        PROTO_LIGHT_OFF   = 0,
        PROTO_LIGHT_ON    = 1,
        PROTO_LIGHT_BLINK = 2,
};

/* HELLO flags */
#define PROTO_HELLO_HAS_CLOCK   0x01    /* stamps events with its own clock */

struct proto_hello {                /* 16 bytes */
        uint64_t uid;               /* unique id, burnt in at manufacture */
        uint8_t kind;               /* enum proto_pad_kind */
        uint8_t n_buttons;          /* 1..PROTO_MAX_BUTTONS */
        uint8_t fw_major, fw_minor;
        uint32_t clock_hz;          /* nominal tick rate (1000000 for µs); 0 without a clock */
};

struct proto_event {                /* PRESS, RELEASE: 7 bytes */
        uint16_t event_no;          /* per pad, wrapping; retransmitted until ACKed */
        uint8_t button;             /* 0..n_buttons-1 */
        uint32_t pad_time;          /* pad clock when the contact closed/opened */
};

struct proto_sync_reply {           /* 10 bytes */
        uint16_t sync_id;           /* from the SYNC */
        uint32_t rx_time;           /* pad clock when the SYNC's delimiter arrived */
        uint32_t tx_time;           /* pad clock when this reply's first byte left */
};

struct proto_heartbeat {            /* 8 bytes */
        uint32_t pad_time;
        uint16_t pending_events;    /* events waiting for an ACK */
        uint16_t rx_errors;         /* frames the pad dropped (CRC, COBS) */
};

struct proto_assign {               /* 9 bytes */
        uint64_t uid;
        uint8_t address;
};

struct proto_ack {                  /* 2 bytes */
        uint16_t event_no;
};

struct proto_sync {                 /* 3 bytes */
        uint16_t sync_id;
        uint8_t slot_us_x100;       /* broadcast: reply after address × this × 100 µs */
};

struct proto_light {                /* 4 bytes */
        uint8_t button;             /* 0xff: every button */
        uint8_t mode;               /* enum proto_light_mode */
        uint16_t duration_ms;       /* 0: until changed */
};

struct proto_buzz {                 /* 3 bytes */
        uint16_t duration_ms;
        uint8_t pattern;            /* 0 steady, 1 short beeps, 2 long-short */
};

struct proto_lockout {              /* 2 bytes */
        uint16_t button_mask;       /* bit i set: button i locked */
};

#endif
