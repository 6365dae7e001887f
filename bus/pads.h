/* bus/pads.h — one D-Bus object per pad (docs/dbus.md).
 *
 * /org/arbiter/Arbiter1/pad/<id> (id: the pad's uid in 16 hex digits)
 * carries org.arbiter.Arbiter1.Pad with the pad's properties, read from the
 * driver's registry on every Get (a fallback vtable: nothing to register per
 * pad), and the signal Pressed.  The Manager at the root announces PadAdded
 * and PadRemoved; the object manager lists every pad ever seen this run.
 * An identity conflict (hardware/padbus.h, "Identity") shows in Conflict,
 * ConflictPorts and RefusedPorts, announced with PropertiesChanged.
 */
#ifndef ARBITER_BUS_PADS_H
#define ARBITER_BUS_PADS_H

#include "hardware/padbus.h"

struct bus;

#define BUS_PAD_PREFIX "/org/arbiter/Arbiter1/pad"
#define BUS_PAD_IFACE  "org.arbiter.Arbiter1.Pad"

/* Exports the pads of padbus on b (both borrowed; b may be NULL). */
int bus_pads_setup(struct bus *b, struct padbus *pads);

/* Announcements, called from the driver's events. */
void bus_pads_added(struct bus *b, const struct pad *pad, bool first_time);
void bus_pads_removed(struct bus *b, const struct pad *pad);
void bus_pads_pressed(struct bus *b, const struct pad_press *press);
void bus_pads_identity(struct bus *b, const struct pad *pad);

#endif
