/* bus/pads.c — see pads.h. */
#define _GNU_SOURCE
#include "bus/pads.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus/bus.h"
#include "bus/property.h"
#include "common/log.h"
#include "common/time.h"

/* Room for "major.minor" of two uint8_t. */
#define FIRMWARE_MAX 8

struct bus_pads {
        struct bus *bus;                /* borrowed; NULL: not exported */
        struct padbus *pads;            /* borrowed */
};

/* A pad id is 16 lowercase hex digits, already a valid path element, so
 * the path needs no escaping (sd_bus_path_encode would escape a leading
 * digit): /org/arbiter/Arbiter1/pad/0000000000001000. */
static char *pad_path(const struct pad *pad) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s", BUS_PAD_PREFIX, pad->id) < 0)
                return NULL;
        return path;
}

/* The fallback's find: userdata is the struct bus_pads, the object found
 * is the struct pad the vtable's offsets are into. */
static int find_pad(sd_bus *bus, const char *path, const char *interface, void *userdata,
                    void **ret_found, sd_bus_error *ret_error) {
        struct bus_pads *bp = userdata;
        const char *id;
        const struct pad *pad;

        (void) bus, (void) interface, (void) ret_error;
        if (strncmp(path, BUS_PAD_PREFIX "/", strlen(BUS_PAD_PREFIX) + 1) != 0)
                return 0;
        id = path + strlen(BUS_PAD_PREFIX) + 1;
        if (strlen(id) != PAD_ID_LEN || strspn(id, "0123456789abcdef") != PAD_ID_LEN)
                return 0;
        pad = padbus_find(bp->pads, id);
        if (!pad)
                return 0;
        *ret_found = (void *) pad;
        return 1;
}

static int enumerate_pads(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes,
                          sd_bus_error *ret_error) {
        struct bus_pads *bp = userdata;
        size_t n = padbus_n_pads(bp->pads);
        char **nodes = calloc(n + 1, sizeof *nodes);

        (void) bus, (void) prefix, (void) ret_error;
        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                nodes[i] = pad_path(padbus_pad(bp->pads, i));
                if (!nodes[i]) {
                        for (size_t k = 0; k < i; k++)
                                free(nodes[k]);
                        free(nodes);
                        return -ENOMEM;
                }
        }
        *ret_nodes = nodes;
        return 0;
}

/* ---- computed properties (userdata: the struct pad) ---------------------- */

#define GETTER(fn)                                                                                     \
        static int fn(sd_bus *bus, const char *path, const char *interface, const char *property,     \
                      sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
#define UNUSED_GETTER_ARGS() (void) bus, (void) path, (void) interface, (void) property, (void) ret_error

GETTER(get_kind) {
        const struct pad *p = userdata;

        UNUSED_GETTER_ARGS();
        return sd_bus_message_append(reply, "s", pad_kind_to_string(p->kind));
}

GETTER(get_firmware) {
        const struct pad *p = userdata;
        char fw[FIRMWARE_MAX];

        UNUSED_GETTER_ARGS();
        snprintf(fw, sizeof fw, "%u.%u", p->fw_major, p->fw_minor);
        return sd_bus_message_append(reply, "s", fw);
}

GETTER(get_port) {
        const struct pad *p = userdata;

        UNUSED_GETTER_ARGS();
        return sd_bus_message_append(reply, "s", p->port ? p->port->path : "");
}

GETTER(get_clock_synced) {
        const struct pad *p = userdata;

        UNUSED_GETTER_ARGS();
        return sd_bus_message_append(reply, "b", clock_model_synced(&p->clock));
}

GETTER(get_clock_offset) {
        const struct pad *p = userdata;

        UNUSED_GETTER_ARGS();
        return sd_bus_message_append(reply, "x", clock_model_offset_us(&p->clock));
}

GETTER(get_clock_drift) {
        const struct pad *p = userdata;

        UNUSED_GETTER_ARGS();
        return sd_bus_message_append(reply, "d", clock_model_drift_ppm(&p->clock));
}

GETTER(get_clock_uncertainty) {
        const struct pad *p = userdata;

        UNUSED_GETTER_ARGS();
        return sd_bus_message_append(reply, "x", clock_model_uncertainty_us(&p->clock, now_usec()));
}

/* The ports of the pad's contesting devices (refused false; the pad's own
 * first, in a conflict only) or of its refused ones (refused true). */
static int append_ports(sd_bus_message *reply, const struct pad *p, bool refused) {
        const struct pad_identity *id = &p->identity;
        int r = sd_bus_message_open_container(reply, 'a', "s");

        if (r < 0)
                return r;
        if (!refused && id->conflict && (r = sd_bus_message_append(reply, "s", p->port ? p->port->path : "")) < 0)
                return r;
        for (unsigned i = 0; i < id->n_rivals; i++)
                if (id->rivals[i].refused == refused && (refused || id->conflict) &&
                    (r = sd_bus_message_append(reply, "s", id->rivals[i].port->path)) < 0)
                        return r;
        return sd_bus_message_close_container(reply);
}

GETTER(get_conflict_ports) {
        UNUSED_GETTER_ARGS();
        return append_ports(reply, userdata, false);
}

GETTER(get_refused_ports) {
        UNUSED_GETTER_ARGS();
        return append_ports(reply, userdata, true);
}

#define EMITS_CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define COMPUTED(name, sig, get, flags) SD_BUS_PROPERTY(name, sig, get, 0, flags)

/* Connected, the pad's place and what it says it is, and the identity are
 * announced; the rest changes too often (LastSeen, counters, the clock
 * estimate) and is read when wanted. */
static const sd_bus_vtable pad_vtable[] = {
        SD_BUS_VTABLE_START(0),
        BUS_PROPERTY_CHARS("Id", struct pad, id, SD_BUS_VTABLE_PROPERTY_CONST),
        COMPUTED("Kind", "s", get_kind, EMITS_CHANGE),
        BUS_PROPERTY_U8("Buttons", struct pad, n_buttons, EMITS_CHANGE),
        COMPUTED("Firmware", "s", get_firmware, EMITS_CHANGE),
        COMPUTED("Port", "s", get_port, EMITS_CHANGE),
        BUS_PROPERTY_U8("Address", struct pad, address, EMITS_CHANGE),
        BUS_PROPERTY_BOOL("Connected", struct pad, connected, EMITS_CHANGE),
        BUS_PROPERTY_I64_T("LastSeen", struct pad, last_seen_wall_usec, 0),
        COMPUTED("ClockSynced", "b", get_clock_synced, 0),
        COMPUTED("ClockOffset", "x", get_clock_offset, 0),
        COMPUTED("ClockDrift", "d", get_clock_drift, 0),
        COMPUTED("ClockUncertainty", "x", get_clock_uncertainty, 0),
        BUS_PROPERTY_U64("Frames", struct pad, counters.frames, 0),
        BUS_PROPERTY_U64("Presses", struct pad, counters.presses, 0),
        BUS_PROPERTY_U64("Duplicates", struct pad, counters.duplicates, 0),
        BUS_PROPERTY_U64("LatePresses", struct pad, counters.late_presses, 0),
        BUS_PROPERTY_U64("Reconnects", struct pad, counters.reconnects, 0),
        BUS_PROPERTY_BOOL("Conflict", struct pad, identity.conflict, EMITS_CHANGE),
        COMPUTED("ConflictPorts", "as", get_conflict_ports, EMITS_CHANGE),
        COMPUTED("RefusedPorts", "as", get_refused_ports, EMITS_CHANGE),
        BUS_PROPERTY_U64("ConflictPresses", struct pad, counters.conflict_presses, 0),
        SD_BUS_SIGNAL_WITH_NAMES("Pressed", "yttxtbb",
                                 SD_BUS_PARAM(button) SD_BUS_PARAM(seq) SD_BUS_PARAM(time)
                                 SD_BUS_PARAM(uncertainty) SD_BUS_PARAM(received)
                                 SD_BUS_PARAM(late) SD_BUS_PARAM(clock_fallback), 0),
        SD_BUS_VTABLE_END
};

static int register_pads(void *userdata, sd_bus *bus) {
        int r;

        r = sd_bus_add_fallback_vtable(bus, NULL, BUS_PAD_PREFIX, BUS_PAD_IFACE, pad_vtable, find_pad, userdata);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, BUS_PAD_PREFIX, enumerate_pads, userdata);
}

int bus_pads_new(struct bus *b, struct padbus *pads, struct bus_pads **ret) {
        struct bus_pads *bp = calloc(1, sizeof *bp);
        int r;

        if (!bp)
                return -ENOMEM;
        *bp = (struct bus_pads) { .bus = b, .pads = pads };
        r = bus_add_extension(b, register_pads, bp);
        if (r < 0) {
                free(bp);
                return r;
        }
        *ret = bp;
        return 0;
}

void bus_pads_free(struct bus_pads *bp) {
        free(bp);
}

/* ---- announcements ------------------------------------------------------- */

/* Emission failures (the bus is away) are not worth more than a debug line:
 * the object manager tells a reconnecting listener the whole state. */
void bus_pads_added(struct bus_pads *bp, const struct pad *pad, bool first_time) {
        char *path;

        if (!bp || !bus_get_sd_bus(bp->bus) || !(path = pad_path(pad)))
                return;
        if (first_time)
                (void) bus_emit_object_added(bp->bus, path);
        else
                (void) bus_properties_changed(bp->bus, path, BUS_PAD_IFACE, "Connected", "Port", "Address", NULL);
        if (sd_bus_emit_signal(bus_get_sd_bus(bp->bus), BUS_ROOT_PATH, BUS_MANAGER_IFACE, "PadAdded", "so",
                               pad->id, path) < 0)
                log_debug("could not emit PadAdded for %s", pad->id);
        free(path);
}

void bus_pads_removed(struct bus_pads *bp, const struct pad *pad) {
        char *path;

        if (!bp || !bus_get_sd_bus(bp->bus) || !(path = pad_path(pad)))
                return;
        (void) bus_properties_changed(bp->bus, path, BUS_PAD_IFACE, "Connected", NULL);
        if (sd_bus_emit_signal(bus_get_sd_bus(bp->bus), BUS_ROOT_PATH, BUS_MANAGER_IFACE, "PadRemoved", "so",
                               pad->id, path) < 0)
                log_debug("could not emit PadRemoved for %s", pad->id);
        free(path);
}

/* A conflict began, grew or was decided; a refused device went away.  An
 * operator's decision may have made another device the pad: its place
 * and what it said it is are announced with the rest. */
void bus_pads_identity(struct bus_pads *bp, const struct pad *pad) {
        char *path;

        if (!bp || !bus_get_sd_bus(bp->bus) || !(path = pad_path(pad)))
                return;
        (void) bus_properties_changed(bp->bus, path, BUS_PAD_IFACE, "Conflict", "ConflictPorts", "RefusedPorts",
                                      "Port", "Address", "Connected", "Kind", "Buttons", "Firmware", NULL);
        free(path);
}

void bus_pads_pressed(struct bus_pads *bp, const struct pad_press *press) {
        sd_bus *bus = bp ? bus_get_sd_bus(bp->bus) : NULL;
        char *path;

        if (!bus || !(path = pad_path(press->pad)))
                return;
        if (sd_bus_emit_signal(bus, path, BUS_PAD_IFACE, "Pressed", "yttxtbb", press->button, press->seq,
                               (uint64_t) press->time_usec, (int64_t) press->uncertainty_usec,
                               (uint64_t) press->received_usec, press->late, press->clock_fallback) < 0)
                log_debug("could not emit Pressed for %s", press->pad->id);
        free(path);
}
