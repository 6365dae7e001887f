/* bus/pads.h — one D-Bus object per pad (docs/dbus.md).
 *
 * /org/arbiter/Arbiter1/pad/<id> (id: the pad's uid in 16 hex digits)
 * carries org.arbiter.Arbiter1.Pad with the pad's properties, read from the
 * driver's registry on every Get (a fallback vtable: nothing to register per
 * pad), and the signal Pressed.  The Manager at the root announces PadAdded
 * and PadRemoved; the object manager lists every pad ever seen this run.
 * An identity conflict (hardware/padbus.h, "Identity") shows in Conflict,
 * ConflictPorts and RefusedPorts.
 *
 * Properties that are fields of struct pad (Id, Buttons, Address,
 * Connected, LastSeen, the counters, Conflict) use the typed getters of
 * bus/property.h; the others (Kind, Firmware, Port, the clock estimate, the
 * conflict's ports) are computed by getters of their own.
 *
 * Announcements: Pressed, PadAdded and PadRemoved go out at once, in the
 * driver's order.  Property changes (Connected, the pad's place and what it
 * says it is, its identity) are marked on the bus and go out coalesced,
 * one PropertiesChanged per pad and turn (bus/bus.h), after that turn's
 * signals; a client that reads a property on PadAdded already reads the new
 * value, since every Get reads the registry.
 *
 * struct bus_pads owns nothing but itself: the bus and the driver are
 * borrowed.  The connection's slots point at it, so it is freed after the
 * bus (bus_free()), and the driver after it.
 */
#ifndef ARBITER_BUS_PADS_H
#define ARBITER_BUS_PADS_H

#include <stdbool.h>

#include "hardware/padbus.h"

struct bus;
struct bus_pads;

#define BUS_PAD_PREFIX "/org/arbiter/Arbiter1/pad"
#define BUS_PAD_IFACE  "org.arbiter.Arbiter1.Pad"

/* Exports the pads of pads on b (b may be NULL: nothing is exported and
 * the announcements do nothing).  0 or -errno. */
int bus_pads_new(struct bus *b, struct padbus *pads, struct bus_pads **ret);
void bus_pads_free(struct bus_pads *bp);        /* accepts NULL */

/* Announcements, called from the driver's events (bp NULL: nothing). */
void bus_pads_added(struct bus_pads *bp, const struct pad *pad, bool first_time);
void bus_pads_removed(struct bus_pads *bp, const struct pad *pad);
void bus_pads_pressed(struct bus_pads *bp, const struct pad_press *press);
void bus_pads_identity(struct bus_pads *bp, const struct pad *pad);

#endif
