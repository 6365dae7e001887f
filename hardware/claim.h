/* hardware/claim.h — who may speak as a pad: the rule that tells a pad that
 * moved from a second device taking its identity (docs/protocol.md section
 * 5, "One uid, two devices").
 *
 * A pad is known by its uid, and a uid is only a number a device says in
 * HELLO: nothing stops a second device (a cloned firmware, a swapped board,
 * a player's own box) from saying the same.  The driver knows a device by
 * where it speaks from: its line (port) and its address on that line.  A
 * HELLO is from
 *
 *   - the pad's own device when it comes from the pad's port and from the
 *     pad's address or from address 0 (a pad that restarted says HELLO from
 *     0: protocol section 5);
 *   - a rival already known (a device that claimed the uid before, while
 *     the pad was there), by the same rule;
 *   - otherwise a new device.  A new device while the pad is connected
 *     (heard within the heartbeat timeout on an open port), or while the
 *     pad is in conflict, is a rival: a conflict begins (or gets one more
 *     claimant), and no device is trusted until an operator decides.  A new
 *     device while the pad is gone (silent past the heartbeat timeout, or
 *     its port closed) and not in conflict is the pad having moved: it is
 *     the pad from now on.
 *
 * Two devices with one uid on one line cannot be told apart this way: the
 * host's ASSIGN names the uid, so both take the same address, and their
 * frames look like one pad's.  The driver sees them otherwise (two replies
 * to one SYNC, hardware/padbus.c) and records the second as a rival on the
 * same port and address.
 *
 * An operator ends a conflict by trusting the device on one port
 * (claim_trust): the others are refused until they go away (silent past
 * the heartbeat timeout) or an operator decides again.
 *
 * Pure: no I/O, no clock, no allocation; ports are indices.
 */
#ifndef ARBITER_HARDWARE_CLAIM_H
#define ARBITER_HARDWARE_CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A device speaking as a pad. */
struct claim_device {
        int port;                       /* index of its port */
        uint8_t address;                /* its address there; 0: none yet */
        bool live;                      /* heard within the heartbeat timeout, on an open port */
        bool refused;                   /* a rival an operator did not trust */
};

/* What the driver knows of one uid. */
struct claim_pad {
        struct claim_device pad;        /* the device the pad is (refused: ignored) */
        bool conflict;                  /* devices contest the uid; none is trusted */
        const struct claim_device *rivals;
        size_t n_rivals;
};

enum claim_kind {
        CLAIM_PAD,                      /* the pad's own device */
        CLAIM_RIVAL,                    /* rival *ret_index, contesting the uid */
        CLAIM_REFUSED,                  /* rival *ret_index, refused by an operator */
        CLAIM_MOVE,                     /* a new device while the pad is gone: the pad moved there */
        CLAIM_NEW_RIVAL,                /* a new device while the pad is there or in conflict */
};

/* Which device a HELLO naming the pad's uid, from address on port, is.
 * An exact (port, address) match wins over a HELLO from address 0 on the
 * same port; the pad's own device wins over a rival. */
enum claim_kind claim_hello(const struct claim_pad *pad, int port, uint8_t address, size_t *ret_index);

#define CLAIM_THE_PAD SIZE_MAX

/* An operator trusts the device on port: 0 and *ret_index, CLAIM_THE_PAD
 * for the pad's own device or the index of the rival (the first live one
 * on that port, else the first); -EALREADY: nothing to decide (no conflict
 * and no refused rival); -ESRCH: no device on that port claims the uid. */
int claim_trust(const struct claim_pad *pad, int port, size_t *ret_index);

const char *claim_kind_to_string(enum claim_kind kind);

#endif
