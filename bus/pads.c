/* bus/pads.c — see pads.h. */
#define _GNU_SOURCE
#include "bus/pads.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus/bus.h"
#include "common/log.h"
#include "common/time.h"

/* One daemon, one bus, one driver: the fallback callbacks find them here. */
static struct {
        struct bus *bus;
        struct padbus *pads;
} ctx;

/* A pad id is 16 lowercase hex digits, already a valid path element, so
 * the path needs no escaping (sd_bus_path_encode would escape a leading
 * digit): /org/arbiter/Arbiter1/pad/0000000000001000. */
static char *pad_path(const struct pad *pad) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s", BUS_PAD_PREFIX, pad->id) < 0)
                return NULL;
        return path;
}

static int find_pad(sd_bus *bus, const char *path, const char *interface, void *userdata,
                    void **ret_found, sd_bus_error *ret_error) {
        const char *id;
        const struct pad *pad;

        (void) bus, (void) interface, (void) userdata, (void) ret_error;
        if (strncmp(path, BUS_PAD_PREFIX "/", strlen(BUS_PAD_PREFIX) + 1) != 0)
                return 0;
        id = path + strlen(BUS_PAD_PREFIX) + 1;
        if (strlen(id) != PAD_ID_LEN || strspn(id, "0123456789abcdef") != PAD_ID_LEN)
                return 0;
        pad = padbus_find(ctx.pads, id);
        if (!pad)
                return 0;
        *ret_found = (void *) pad;
        return 1;
}

static int enumerate_pads(sd_bus *bus, const char *prefix, void *userdata, char ***ret_nodes,
                          sd_bus_error *ret_error) {
        size_t n = padbus_n_pads(ctx.pads);
        char **nodes = calloc(n + 1, sizeof *nodes);

        (void) bus, (void) prefix, (void) userdata, (void) ret_error;
        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                nodes[i] = pad_path(padbus_pad(ctx.pads, i));
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

/* Every Pad property comes from the registry at the time of the Get. */
static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        const struct pad *p = userdata;
        char fw[16];

        (void) bus, (void) path, (void) interface, (void) ret_error;
        if (strcmp(property, "Id") == 0)
                return sd_bus_message_append(reply, "s", p->id);
        if (strcmp(property, "Kind") == 0)
                return sd_bus_message_append(reply, "s", pad_kind_to_string(p->kind));
        if (strcmp(property, "Buttons") == 0)
                return sd_bus_message_append(reply, "y", p->n_buttons);
        if (strcmp(property, "Firmware") == 0) {
                snprintf(fw, sizeof fw, "%u.%u", p->fw_major, p->fw_minor);
                return sd_bus_message_append(reply, "s", fw);
        }
        if (strcmp(property, "Port") == 0)
                return sd_bus_message_append(reply, "s", p->port ? p->port->path : "");
        if (strcmp(property, "Address") == 0)
                return sd_bus_message_append(reply, "y", p->address);
        if (strcmp(property, "Connected") == 0)
                return sd_bus_message_append(reply, "b", p->connected);
        if (strcmp(property, "LastSeen") == 0)
                return sd_bus_message_append(reply, "t", (uint64_t) p->last_seen_wall_usec);
        if (strcmp(property, "ClockSynced") == 0)
                return sd_bus_message_append(reply, "b", clock_model_synced(&p->clock));
        if (strcmp(property, "ClockOffset") == 0)
                return sd_bus_message_append(reply, "x", clock_model_offset_us(&p->clock));
        if (strcmp(property, "ClockDrift") == 0)
                return sd_bus_message_append(reply, "d", clock_model_drift_ppm(&p->clock));
        if (strcmp(property, "ClockUncertainty") == 0)
                return sd_bus_message_append(reply, "x",
                                             clock_model_uncertainty_us(&p->clock, now_usec()));
        if (strcmp(property, "Presses") == 0)
                return sd_bus_message_append(reply, "t", p->counters.presses);
        if (strcmp(property, "Frames") == 0)
                return sd_bus_message_append(reply, "t", p->counters.frames);
        if (strcmp(property, "Duplicates") == 0)
                return sd_bus_message_append(reply, "t", p->counters.duplicates);
        if (strcmp(property, "LatePresses") == 0)
                return sd_bus_message_append(reply, "t", p->counters.late_presses);
        if (strcmp(property, "Reconnects") == 0)
                return sd_bus_message_append(reply, "t", p->counters.reconnects);
        if (strcmp(property, "Conflict") == 0)
                return sd_bus_message_append(reply, "b", p->identity.conflict);
        if (strcmp(property, "ConflictPorts") == 0)
                return append_ports(reply, p, false);
        if (strcmp(property, "RefusedPorts") == 0)
                return append_ports(reply, p, true);
        if (strcmp(property, "ConflictPresses") == 0)
                return sd_bus_message_append(reply, "t", p->counters.conflict_presses);
        return -EINVAL;
}

#define PAD_PROPERTY(name, sig, flags) SD_BUS_PROPERTY(name, sig, get_property, 0, flags)

/* Connected and the identity are announced; the rest changes too often
 * (LastSeen, counters, the clock estimate) and is read when wanted. */
static const sd_bus_vtable pad_vtable[] = {
        SD_BUS_VTABLE_START(0),
        PAD_PROPERTY("Id", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PAD_PROPERTY("Kind", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("Buttons", "y", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("Firmware", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("Port", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("Address", "y", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("Connected", "b", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("LastSeen", "t", 0),
        PAD_PROPERTY("ClockSynced", "b", 0),
        PAD_PROPERTY("ClockOffset", "x", 0),
        PAD_PROPERTY("ClockDrift", "d", 0),
        PAD_PROPERTY("ClockUncertainty", "x", 0),
        PAD_PROPERTY("Frames", "t", 0),
        PAD_PROPERTY("Presses", "t", 0),
        PAD_PROPERTY("Duplicates", "t", 0),
        PAD_PROPERTY("LatePresses", "t", 0),
        PAD_PROPERTY("Reconnects", "t", 0),
        PAD_PROPERTY("Conflict", "b", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("ConflictPorts", "as", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("RefusedPorts", "as", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PAD_PROPERTY("ConflictPresses", "t", 0),
        SD_BUS_SIGNAL_WITH_NAMES("Pressed", "yttxtbb",
                                 SD_BUS_PARAM(button) SD_BUS_PARAM(seq) SD_BUS_PARAM(time)
                                 SD_BUS_PARAM(uncertainty) SD_BUS_PARAM(received)
                                 SD_BUS_PARAM(late) SD_BUS_PARAM(clock_fallback), 0),
        SD_BUS_VTABLE_END
};

static int register_pads(void *userdata, sd_bus *bus) {
        int r;

        (void) userdata;
        r = sd_bus_add_fallback_vtable(bus, NULL, BUS_PAD_PREFIX, BUS_PAD_IFACE, pad_vtable, find_pad, NULL);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(bus, NULL, BUS_PAD_PREFIX, enumerate_pads, NULL);
}

int bus_pads_setup(struct bus *b, struct padbus *pads) {
        ctx.bus = b;
        ctx.pads = pads;
        return bus_add_extension(b, register_pads, NULL);
}

/* Emission failures (the bus is away) are not worth more than a debug line:
 * the object manager tells a reconnecting listener the whole state. */
void bus_pads_added(struct bus *b, const struct pad *pad, bool first_time) {
        sd_bus *bus = bus_get_sd_bus(b);
        char *path;

        if (!bus || !(path = pad_path(pad)))
                return;
        if (first_time)
                sd_bus_emit_object_added(bus, path);
        else
                sd_bus_emit_properties_changed(bus, path, BUS_PAD_IFACE, "Connected", "Port", "Address", NULL);
        if (sd_bus_emit_signal(bus, BUS_ROOT_PATH, BUS_MANAGER_IFACE, "PadAdded", "so", pad->id, path) < 0)
                log_debug("could not emit PadAdded for %s", pad->id);
        free(path);
}

void bus_pads_removed(struct bus *b, const struct pad *pad) {
        sd_bus *bus = bus_get_sd_bus(b);
        char *path;

        if (!bus || !(path = pad_path(pad)))
                return;
        sd_bus_emit_properties_changed(bus, path, BUS_PAD_IFACE, "Connected", NULL);
        if (sd_bus_emit_signal(bus, BUS_ROOT_PATH, BUS_MANAGER_IFACE, "PadRemoved", "so", pad->id, path) < 0)
                log_debug("could not emit PadRemoved for %s", pad->id);
        free(path);
}

/* A conflict began, grew or was decided; a refused device went away.  An
 * operator's decision may have made another device the pad: its place
 * and what it said it is are announced with the rest. */
void bus_pads_identity(struct bus *b, const struct pad *pad) {
        sd_bus *bus = bus_get_sd_bus(b);
        char *path;

        if (!bus || !(path = pad_path(pad)))
                return;
        if (sd_bus_emit_properties_changed(bus, path, BUS_PAD_IFACE, "Conflict", "ConflictPorts", "RefusedPorts",
                                           "Port", "Address", "Connected", "Kind", "Buttons", "Firmware", NULL) < 0)
                log_debug("could not announce the identity of pad %s", pad->id);
        free(path);
}

void bus_pads_pressed(struct bus *b, const struct pad_press *press) {
        sd_bus *bus = bus_get_sd_bus(b);
        char *path;

        if (!bus || !(path = pad_path(press->pad)))
                return;
        if (sd_bus_emit_signal(bus, path, BUS_PAD_IFACE, "Pressed", "yttxtbb", press->button, press->seq,
                               (uint64_t) press->time_usec, (int64_t) press->uncertainty_usec,
                               (uint64_t) press->received_usec, press->late, press->clock_fallback) < 0)
                log_debug("could not emit Pressed for %s", press->pad->id);
        free(path);
}
