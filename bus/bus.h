/* bus/bus.h — arbiterd on D-Bus (docs/architecture.md, "Outside interfaces";
 * the reference is docs/dbus.md).
 *
 * Connects to the system or session bus (or to none), driven by the daemon's
 * loop: before each wait the before-sleep hook reads sd_bus_get_fd/_events/
 * _timeout and re-arms one libevent fd watch and one timer; on readiness it
 * loops sd_bus_process() until it returns 0.
 *
 * Owns the well-known name org.arbiter.Arbiter1 (requested asynchronously,
 * without queueing behind another owner; asked for again after the back-off,
 * or at once when the other owner releases it).  Exports at /org/arbiter/Arbiter1
 * an org.freedesktop.DBus.ObjectManager and the interface
 * org.arbiter.Arbiter1.Manager with read-only properties
 *
 *     Version  s   arbiterd's version
 *     Status   s   one line: what the daemon is doing (same as STATUS=)
 *     Database s   "ready", "connecting", "disconnected", … (store state)
 *     StartedAt t  CLOCK_REALTIME µs when the daemon started
 *
 * Changes to Status and Database are announced with PropertiesChanged,
 * coalesced like every other module's (below).  Losing the name (NameLost)
 * or the connection is logged and retried with back-off (1 s doubling to
 * 30 s) without disturbing the rest of the daemon.
 *
 * Coalesced PropertiesChanged.  The bus/ modules (pads.h, matches.h,
 * tournaments.h) export their objects through bus_add_extension() and
 * announce property changes through bus_properties_changed(): a change is
 * marked, keyed by object path and interface, and the loop's before-sleep
 * hook sends one PropertiesChanged per object and interface with every
 * property marked since the previous turn.  So a burst of changes in one
 * turn costs one signal per object, and it carries only the latest values
 * (getters read them when the signal is built).  The hook sends them before
 * it re-arms the connection's watch, so they go out before the loop sleeps.
 *
 * Signals other than PropertiesChanged (Pressed, CallJudged, RoundStarted,
 * InterfacesAdded, …) are sent at once, in the order they happen, so a
 * turn's signals precede its PropertiesChanged.  A client that reads a
 * property when a signal arrives still sees the new value: properties are
 * read live from their module's structs at every Get, never from a copy
 * that waits for the flush.  An object that goes away
 * (bus_emit_object_removed) sends its pending changes first, so its last
 * values are announced before InterfacesRemoved.
 *
 * Owns the connection, its slots (floating: they die with it), the
 * Manager's property values and the pending changes; the extensions'
 * objects stay their modules'.
 */
#ifndef ARBITER_BUS_BUS_H
#define ARBITER_BUS_BUS_H

#include <stdbool.h>
#include <stdint.h>

struct loop;
struct bus;
struct sd_bus;

#define BUS_NAME         "org.arbiter.Arbiter1"
#define BUS_ROOT_PATH    "/org/arbiter/Arbiter1"
#define BUS_MANAGER_IFACE "org.arbiter.Arbiter1.Manager"

enum bus_kind { BUS_KIND_NONE, BUS_KIND_SESSION, BUS_KIND_SYSTEM };

enum bus_state {
        BUS_STATE_DISABLED,     /* bus = none */
        BUS_STATE_CONNECTING,   /* connecting or waiting to retry */
        BUS_STATE_REQUESTING,   /* connected, name requested */
        BUS_STATE_OWNED,        /* connected and the name is ours */
};

/* Called on every state change with a detail line for health and STATUS=,
 * and again when the detail changes within a state (a retry with a new delay,
 * a new owner of the name).  bus.c has already logged the line at the right
 * level, so state_fn need not log it.  Never called from bus_new(); may be
 * called from inside sd_bus_process(), so it must not call bus_free(). */
typedef void (*bus_state_fn)(void *userdata, enum bus_state state, const char *detail);

int bus_new(struct loop *loop, enum bus_kind kind, const char *version,
            bus_state_fn state_fn, void *userdata, struct bus **ret);
void bus_free(struct bus *b);       /* accepts NULL; releases the name */

enum bus_state bus_get_state(const struct bus *b);
const char *bus_state_to_string(enum bus_state s);
/* The last detail line (for /v1/health and STATUS=); never NULL. */
const char *bus_get_detail(const struct bus *b);

/* The Venue property ("main" until set): const, so set it right after
 * bus_new(), before the loop first runs.  0, or -ENOMEM. */
int bus_set_venue(struct bus *b, const char *venue);

/* Property setters; copy the string, announce on change. */
void bus_set_status(struct bus *b, const char *status);
void bus_set_database(struct bus *b, const char *database_state);

/* Another module's objects: fn registers them (vtables, fallbacks, node
 * enumerators; floating slots) on a connection.  It is called now if the
 * daemon is connected, and again on every new connection after a
 * reconnect. */
#define BUS_MAX_EXTENSIONS 8
typedef int (*bus_register_fn)(void *userdata, struct sd_bus *bus);
int bus_add_extension(struct bus *b, bus_register_fn fn, void *userdata);

/* The current connection for emitting signals; NULL when not connected.
 * Objects are registered through bus_add_extension(), which re-adds them
 * after a reconnect. */
struct sd_bus *bus_get_sd_bus(struct bus *b);

/* Every emits-change property of our largest interface (org.arbiter.
 * Arbiter1.Pad has nine, docs/dbus.md), with room to spare. */
#define BUS_PROPERTIES_CHANGED_MAX 16

/* Marks properties of the object at path, interface iface, as changed, for
 * the next PropertiesChanged of that object and interface (see "Coalesced
 * PropertiesChanged" above).  names: NULL-terminated, each an emits-change
 * property of iface, at most BUS_PROPERTIES_CHANGED_MAX.  path is copied;
 * iface and the names are not, and must outlive the bus (the vtables'
 * literals).  Nothing is marked while the bus is not connected: the next
 * connection's listeners read everything afresh.  0, or -E2BIG for too many
 * names; when there is no memory to wait, the signal is sent at once. */
int bus_properties_changed_strv(struct bus *b, const char *path, const char *iface, const char *const *names);
int bus_properties_changed(struct bus *b, const char *path, const char *iface, ...)
        __attribute__((sentinel));
/* Sends every pending change now, as the before-sleep hook does each turn:
 * for a module whose objects are about to go without InterfacesRemoved (the
 * daemon stopping). */
void bus_flush_changes(struct bus *b);

/* InterfacesAdded and InterfacesRemoved of the object at path (an object
 * below BUS_ROOT_PATH, the object manager).  Removal sends the object's
 * pending changes first.  0 (also when not connected) or -errno. */
int bus_emit_object_added(struct bus *b, const char *path);
int bus_emit_object_removed(struct bus *b, const char *path);

#endif
