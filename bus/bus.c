/* bus/bus.c — arbiterd on D-Bus through sd-bus, driven by the daemon's
 * libevent loop (see bus.h, and docs/architecture.md, "The event loop").
 *
 * States (bus.h's enum bus_state) and what moves between them:
 *
 *     DISABLED                         kind NONE; never leaves
 *
 *     CONNECTING --Hello answered--> REQUESTING --RequestName ok--> OWNED
 *       ^    |                         |     ^     (or NameAcquired)   |
 *       |    |                         |     |                         |
 *       |    | open failed             +-----+ name taken / denied:    | NameLost:
 *       |    v                          retry timer with back-off      | back to
 *       |  retry timer                                                 | REQUESTING
 *       |                                                              |
 *       +------- connection lost in any state: drop it, retry timer ---+
 *
 * Invariants:
 *   - b->bus is NULL exactly when no connection is open (DISABLED, or
 *     CONNECTING while the retry timer waits).  A new connection gets the
 *     object manager, the vtable and the matches again: sd-bus keeps them per
 *     connection, as floating slots that die with it.
 *   - At most one RequestName is in flight (b->request_slot).
 *   - sd_bus_process() is called only from bus_dispatch(), which runs from
 *     libevent callbacks, never from inside an sd-bus callback.  Callbacks
 *     that need the connection dropped set b->lost; bus_dispatch() drops it
 *     after sd_bus_process() returns.
 *   - Two back-offs: connect_backoff for reconnecting, reset when a connection
 *     is up (Hello answered); name_backoff for asking for a taken name again,
 *     reset when the name is ours and on every new connection.  A standby
 *     instance that waited long for the name still reconnects quickly.
 *
 * Coalesced PropertiesChanged (bus.h).  Every module's property changes are
 * marked here, keyed by (object path, interface), and sent by the
 * before-sleep hook, one PropertiesChanged per key.  Invariants:
 *   - changes[0..n_changes) are the keys marked since the last flush, in the
 *     order first marked; an entry's names are distinct, and an entry with
 *     no names has been sent already (bus_emit_object_removed() sends one
 *     object's early) and is skipped.
 *   - index is an open-addressing table (linear probing) over changes:
 *     index_cap is 0 or a power of two at least four times cap_changes, a
 *     slot holds 0 (empty) or an entry's position + 1.  Entries are never
 *     removed one by one, only all at once by a flush, so probing needs no
 *     tombstones.
 *   - Only a connection that is up has entries: bus_drop_connection() drops
 *     them (a new connection's listeners read everything afresh).
 *   - The hook flushes before it re-arms the watch, so a PropertiesChanged
 *     queued by the flush is written in the same turn.
 */
#include "bus/bus.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <systemd/sd-bus.h>

#include "bus/property.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"

#ifndef _cleanup_
#define _cleanup_(f) __attribute__((cleanup(f)))
#endif

/* Reconnect and name-retry back-off: the first retry after 1 s, doubling up
 * to 30 s (bus.h; the same ceiling as database.reconnect_max's default). */
#define BUS_RETRY_MIN_USEC (1 * USEC_PER_SEC)
#define BUS_RETRY_MAX_USEC (30 * USEC_PER_SEC)

/* RequestName's reply codes (D-Bus specification, "org.freedesktop.DBus.
 * RequestName"). */
#define DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER 1
#define DBUS_REQUEST_NAME_REPLY_IN_QUEUE      2
#define DBUS_REQUEST_NAME_REPLY_EXISTS        3
#define DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER 4

#define DBUS_SERVICE   "org.freedesktop.DBus"
#define DBUS_PATH      "/org/freedesktop/DBus"
#define DBUS_INTERFACE "org.freedesktop.DBus"
#define DBUS_LOCAL_SERVICE   "org.freedesktop.DBus.Local"
#define DBUS_LOCAL_PATH      "/org/freedesktop/DBus/Local"
#define DBUS_LOCAL_INTERFACE "org.freedesktop.DBus.Local"

/* Only our name's NameOwnerChanged: the broker filters on arg0. */
#define NAME_OWNER_CHANGED_MATCH                                                \
        "type='signal',sender='" DBUS_SERVICE "',path='" DBUS_PATH "',"         \
        "interface='" DBUS_INTERFACE "',member='NameOwnerChanged',"             \
        "arg0='" BUS_NAME "'"

/* A detail line is one sentence for the log, /v1/health and STATUS=. */
#define BUS_DETAIL_MAX 512

/* Room for /proc/<pid>/comm: TASK_COMM_LEN is 16 including the NUL. */
#define COMM_MAX 16

/* The most properties one pending PropertiesChanged names (bus.h): an entry
 * that would overflow is sent at once and begun again, so this bounds
 * memory, not correctness. */
#define BUS_CHANGE_MAX_NAMES BUS_PROPERTIES_CHANGED_MAX
/* The first allocation of pending changes; doubled as needed. */
#define BUS_CHANGES_MIN 16
/* index_cap = BUS_INDEX_SPREAD * cap_changes: the table stays at most a
 * quarter full, so a probe sequence stays short. */
#define BUS_INDEX_SPREAD 4
/* FNV-1a 64 offset basis and prime (Fowler, Noll, Vo; draft-eastlake-fnv,
 * section 5), as engine/hash.h: a fast hash for the index, nothing more. */
#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME  0x100000001b3ULL

/* One object and interface with properties changed this turn. */
struct bus_change {
        char *path;                                     /* owned */
        const char *iface;                              /* borrowed: outlives the bus (bus.h) */
        uint64_t hash;                                  /* of path and iface */
        const char *names[BUS_CHANGE_MAX_NAMES + 1];    /* borrowed, NULL-terminated when sent */
        size_t n_names;                                 /* 0: sent already */
};

struct bus {
        struct loop *loop;
        enum bus_kind kind;
        enum bus_state state;
        char *detail;                   /* last detail given to state_fn */
        bus_state_fn state_fn;
        void *userdata;
        int hook_id;                    /* before-sleep hook, -1 when none */

        sd_bus *bus;                    /* NULL while not connected (see invariants) */
        bool lost;                      /* Disconnected seen inside sd_bus_process() */
        sd_bus_slot *request_slot;      /* RequestName in flight; holds a ref on bus */

        struct event *io_ev;            /* on io_fd for io_what; NULL when not watched */
        int io_fd;
        short io_what;
        struct event *timeout_ev;       /* sd_bus_get_timeout() */
        struct event *retry_ev;         /* reconnect or re-request the name */
        int64_t connect_backoff_usec;   /* the next reconnect delay */
        int64_t name_backoff_usec;      /* the next delay before asking for the name again */
        int64_t retry_usec;             /* the delay just scheduled (for the log) */
        char *other_owner;              /* unique name of whoever holds BUS_NAME */

        /* Exported properties, read through the vtable's typed getters
         * (bus/property.h): strings are never NULL. */
        char *version;
        char *venue;                    /* [venue] id: the venue this daemon runs */
        char *status;
        char *database;
        uint64_t started_at;

        /* Pending PropertiesChanged of every module (see the invariants). */
        struct bus_change *changes;
        size_t n_changes, cap_changes;
        uint32_t *index;
        size_t index_cap;

        /* Other modules' objects, registered again on every connection. */
        struct {
                bus_register_fn fn;
                void *userdata;
        } extensions[BUS_MAX_EXTENSIONS];
        size_t n_extensions;
};

static const char *bus_kind_to_string(enum bus_kind k) {
        return k == BUS_KIND_SYSTEM ? "system" : "session";
}

const char *bus_state_to_string(enum bus_state s) {
        switch (s) {
        case BUS_STATE_DISABLED:
                return "disabled";
        case BUS_STATE_CONNECTING:
                return "connecting";
        case BUS_STATE_REQUESTING:
                return "requesting";
        case BUS_STATE_OWNED:
                return "owned";
        }
        return "unknown";
}

/* The Manager interface.  Const, with typed getters reading the fields of
 * struct bus, so nothing here can fail or allocate per call.  Version,
 * Venue and StartedAt never change (EmitsChangedSignal=const in the
 * introspection); Status and Database announce their changes. */
static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        BUS_PROPERTY_STRING("Version", struct bus, version, SD_BUS_VTABLE_PROPERTY_CONST),
        BUS_PROPERTY_STRING("Venue", struct bus, venue, SD_BUS_VTABLE_PROPERTY_CONST),
        BUS_PROPERTY_STRING("Status", struct bus, status, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        BUS_PROPERTY_STRING("Database", struct bus, database, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        BUS_PROPERTY_U64("StartedAt", struct bus, started_at, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_SIGNAL_WITH_NAMES("PadAdded", "so", SD_BUS_PARAM(id) SD_BUS_PARAM(path), 0),
        SD_BUS_SIGNAL_WITH_NAMES("PadRemoved", "so", SD_BUS_PARAM(id) SD_BUS_PARAM(path), 0),
        SD_BUS_VTABLE_END
};

static int64_t realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* Logs detail at level and tells state_fn when the state or the detail
 * changed: a retry with a new delay or a new owner is news for /v1/health
 * and STATUS=, a repeat of the same line is not. */
static void bus_set_state(struct bus *b, int level, enum bus_state state, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void bus_set_state(struct bus *b, int level, enum bus_state state, const char *fmt, ...) {
        char detail[BUS_DETAIL_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);

        log_full_errno(level, 0, "%s", detail);

        if (state == b->state && b->detail && strcmp(detail, b->detail) == 0)
                return;
        b->state = state;
        char *copy = strdup(detail);
        if (copy) {
                free(b->detail);
                b->detail = copy;
        }
        if (b->state_fn)
                b->state_fn(b->userdata, state, detail);
}

/* Returns the delay for the next retry of one kind and doubles the one after
 * it, up to the ceiling. */
static int64_t bus_take_backoff(struct bus *b, int64_t *backoff) {
        int64_t d = *backoff;

        *backoff = d >= BUS_RETRY_MAX_USEC / 2 ? BUS_RETRY_MAX_USEC : 2 * d;
        b->retry_usec = d;
        return d;
}

static void bus_arm_retry(struct bus *b, int64_t delay_usec) {
        struct timeval tv = usec_to_timeval(delay_usec);

        /* evtimer_add on a pending timer reschedules it: one retry at a time. */
        if (evtimer_add(b->retry_ev, &tv) < 0)
                log_error("cannot schedule the D-Bus retry timer; D-Bus stays down");
}

static void bus_changes_clear(struct bus *b);

/* Forgets the connection: no callback of it runs again, and no change
 * waits for it.  Used when it was lost and from bus_free(); never from
 * inside an sd-bus callback. */
static void bus_drop_connection(struct bus *b) {
        bus_changes_clear(b);
        if (b->io_ev) {
                event_free(b->io_ev);
                b->io_ev = NULL;
        }
        b->io_fd = -1;
        b->io_what = 0;
        if (b->timeout_ev)
                evtimer_del(b->timeout_ev);
        b->request_slot = sd_bus_slot_unref(b->request_slot);
        b->bus = sd_bus_close_unref(b->bus);
        b->lost = false;
        free(b->other_owner);
        b->other_owner = NULL;
}

/* The connection failed (err < 0) or ended (err 0: sd-bus said Disconnected
 * and keeps the cause to itself — a broker that went away, a refused or timed
 * out authentication): drop it and come back after the back-off.  Everything
 * we exported lives on the connection, so the next one registers it again. */
static void bus_connection_lost(struct bus *b, int err) {
        int64_t delay;

        bus_drop_connection(b);
        delay = bus_take_backoff(b, &b->connect_backoff_usec);
        bus_set_state(b, LOG_WARNING, BUS_STATE_CONNECTING,
                      "lost the connection to the %s bus%s%s; reconnecting in %" PRId64 " s",
                      bus_kind_to_string(b->kind), err < 0 ? ": " : "", err < 0 ? strerror(-err) : "",
                      delay / USEC_PER_SEC);
        bus_arm_retry(b, delay);
}

static void bus_check_ready(struct bus *b);

/* Drives sd-bus until it has nothing left to do, as sd_bus_process(3) asks.
 * Runs only from libevent callbacks (readiness, sd-bus's own timeout), so it
 * is never nested in an sd-bus callback. */
static void bus_dispatch(struct bus *b) {
        while (b->bus) {
                int r = sd_bus_process(b->bus, NULL);
                if (r < 0 || b->lost) {
                        /* -ECONNRESET only repeats that it closed. */
                        bus_connection_lost(b, r < 0 && r != -ECONNRESET ? r : 0);
                        return;
                }
                if (r == 0)
                        break;
        }
        bus_check_ready(b);
}

static void on_bus_io(evutil_socket_t fd, short what, void *userdata) {
        (void) fd;
        (void) what;
        bus_dispatch(userdata);
}

static void on_bus_timeout(evutil_socket_t fd, short what, void *userdata) {
        (void) fd;
        (void) what;
        bus_dispatch(userdata);
}

/* Points the libevent watches at what sd-bus wants now: the fd for the
 * events of sd_bus_get_events(), a timer for sd_bus_get_timeout() (absolute
 * CLOCK_MONOTONIC µs, UINT64_MAX for none).  The fd event is replaced only
 * when the fd or the events change; the timer is re-added every turn. */
static int bus_arm(struct bus *b) {
        uint64_t until;
        int fd, events, r;
        short what;

        fd = sd_bus_get_fd(b->bus);
        if (fd < 0)
                return fd;
        events = sd_bus_get_events(b->bus);
        if (events < 0)
                return events;
        what = (short) (((events & POLLIN) ? EV_READ : 0) | ((events & POLLOUT) ? EV_WRITE : 0));

        if (fd != b->io_fd || what != b->io_what) {
                if (b->io_ev) {
                        event_free(b->io_ev);
                        b->io_ev = NULL;
                }
                b->io_fd = fd;
                b->io_what = what;
                if (what != 0) {
                        b->io_ev = event_new(loop_base(b->loop), fd, what | EV_PERSIST, on_bus_io, b);
                        if (b->io_ev)
                                loop_set_urgent(b->io_ev);
                        if (!b->io_ev)
                                return -ENOMEM;
                        if (event_add(b->io_ev, NULL) < 0)
                                return -EIO;
                }
        }

        r = sd_bus_get_timeout(b->bus, &until);
        if (r < 0)
                return r;
        if (until == UINT64_MAX)
                evtimer_del(b->timeout_ev);
        else {
                int64_t now = now_usec();
                int64_t rel = until <= (uint64_t) now ? 0 : (int64_t) (until - (uint64_t) now);
                struct timeval tv = usec_to_timeval(rel);

                if (evtimer_add(b->timeout_ev, &tv) < 0)
                        return -EIO;
        }
        return 0;
}

/* ---- coalesced PropertiesChanged (bus.h; the invariants above) ---------- */

static uint64_t change_hash(const char *path, const char *iface) {
        uint64_t h = FNV64_OFFSET;

        for (const char *p = path; *p; p++)
                h = (h ^ (uint8_t) *p) * FNV64_PRIME;
        h *= FNV64_PRIME;               /* the NUL between them: ("/a", "b.c") is not ("/ab", ".c") */
        for (const char *p = iface; *p; p++)
                h = (h ^ (uint8_t) *p) * FNV64_PRIME;
        return h;
}

/* The entry of (path, iface), or NULL.  The probe ends: the table is never
 * more than a quarter full. */
static struct bus_change *change_find(struct bus *b, const char *path, const char *iface, uint64_t hash) {
        size_t mask;

        if (b->index_cap == 0)
                return NULL;
        mask = b->index_cap - 1;
        for (size_t i = (size_t) hash & mask;; i = (i + 1) & mask) {
                struct bus_change *c;

                if (b->index[i] == 0)
                        return NULL;
                c = &b->changes[b->index[i] - 1];
                if (c->hash == hash && strcmp(c->iface, iface) == 0 && strcmp(c->path, path) == 0)
                        return c;
        }
}

static void index_put(struct bus *b, size_t at) {
        size_t mask = b->index_cap - 1;
        size_t i = (size_t) b->changes[at].hash & mask;

        while (b->index[i] != 0)
                i = (i + 1) & mask;
        b->index[i] = (uint32_t) (at + 1);
}

/* Doubles the room for entries and rebuilds the index for it. */
static int changes_grow(struct bus *b) {
        size_t cap = b->cap_changes ? 2 * b->cap_changes : BUS_CHANGES_MIN;
        struct bus_change *changes;
        uint32_t *index;

        if (cap > UINT32_MAX / BUS_INDEX_SPREAD)
                return -ENOMEM;
        changes = realloc(b->changes, cap * sizeof *changes);
        if (!changes)
                return -ENOMEM;
        b->changes = changes;
        index = calloc(cap * BUS_INDEX_SPREAD, sizeof *index);
        if (!index)
                return -ENOMEM;
        free(b->index);
        b->index = index;
        b->index_cap = cap * BUS_INDEX_SPREAD;
        b->cap_changes = cap;
        for (size_t i = 0; i < b->n_changes; i++)
                index_put(b, i);
        return 0;
}

static void change_emit(struct bus *b, const char *path, const char *iface, const char **names) {
        int r = sd_bus_emit_properties_changed_strv(b->bus, path, iface, (char **) names);

        /* The object manager tells a reconnecting listener the whole state:
         * a change lost with the connection is not worth more than this. */
        if (r < 0)
                log_full_errno(r == -ENOMEM ? LOG_WARNING : LOG_DEBUG, r,
                               "cannot announce changed properties of %s (%s) on D-Bus: %s", path, iface,
                               strerror(-r));
}

/* Sends entry c now, if it has anything left to send. */
static void change_send(struct bus *b, struct bus_change *c) {
        if (c->n_names == 0)
                return;
        c->names[c->n_names] = NULL;
        c->n_names = 0;
        if (b->bus && sd_bus_is_ready(b->bus) > 0)
                change_emit(b, c->path, c->iface, c->names);
}

static void bus_changes_clear(struct bus *b) {
        if (b->n_changes == 0)
                return;
        for (size_t i = 0; i < b->n_changes; i++)
                free(b->changes[i].path);
        b->n_changes = 0;
        memset(b->index, 0, b->index_cap * sizeof *b->index);
}

void bus_flush_changes(struct bus *b) {
        if (!b)
                return;
        for (size_t i = 0; i < b->n_changes; i++)
                change_send(b, &b->changes[i]);
        bus_changes_clear(b);
}

int bus_properties_changed_strv(struct bus *b, const char *path, const char *iface, const char *const *names) {
        struct bus_change *c;
        uint64_t hash;
        size_t n = 0;

        /* Not connected: nobody holds an old value, and the next connection's
         * listeners read everything afresh. */
        if (!bus_get_sd_bus(b) || !path || !iface || !names)
                return 0;
        while (names[n])
                if (++n > BUS_CHANGE_MAX_NAMES)
                        return -E2BIG;
        if (n == 0)
                return 0;

        hash = change_hash(path, iface);
        c = change_find(b, path, iface, hash);
        if (!c) {
                char *copy = NULL;

                if ((b->n_changes == b->cap_changes && changes_grow(b) < 0) || !(copy = strdup(path))) {
                        /* No room to wait: say it now, uncoalesced but true. */
                        change_emit(b, path, iface, (const char **) names);
                        return 0;
                }
                c = &b->changes[b->n_changes];
                *c = (struct bus_change) { .path = copy, .iface = iface, .hash = hash };
                index_put(b, b->n_changes++);
        }
        for (size_t i = 0; i < n; i++) {
                bool known = false;

                for (size_t k = 0; k < c->n_names && !known; k++)
                        known = strcmp(c->names[k], names[i]) == 0;
                if (known)
                        continue;
                if (c->n_names == BUS_CHANGE_MAX_NAMES)
                        change_send(b, c);
                c->names[c->n_names++] = names[i];
        }
        return 0;
}

int bus_properties_changed(struct bus *b, const char *path, const char *iface, ...) {
        const char *names[BUS_CHANGE_MAX_NAMES + 1];
        const char *name;
        size_t n = 0;
        va_list ap;

        va_start(ap, iface);
        while ((name = va_arg(ap, const char *))) {
                if (n == BUS_CHANGE_MAX_NAMES) {
                        va_end(ap);
                        return -E2BIG;
                }
                names[n++] = name;
        }
        va_end(ap);
        names[n] = NULL;
        return bus_properties_changed_strv(b, path, iface, names);
}

int bus_emit_object_added(struct bus *b, const char *path) {
        sd_bus *bus = bus_get_sd_bus(b);

        return bus ? sd_bus_emit_object_added(bus, path) : 0;
}

int bus_emit_object_removed(struct bus *b, const char *path) {
        sd_bus *bus = bus_get_sd_bus(b);

        if (!bus)
                return 0;
        /* Its last values first, while the object can still be read. */
        for (size_t i = 0; i < b->n_changes; i++)
                if (strcmp(b->changes[i].path, path) == 0)
                        change_send(b, &b->changes[i]);
        return sd_bus_emit_object_removed(bus, path);
}

/* The loop's before-sleep step: flush coalesced property changes (that may
 * queue a message), then re-arm the watches for what sd-bus now wants. */
static void bus_before_sleep(void *userdata) {
        struct bus *b = userdata;
        int r;

        bus_flush_changes(b);
        if (!b->bus)
                return;
        r = bus_arm(b);
        if (r < 0)
                bus_connection_lost(b, r);
}

/* Describes whoever holds BUS_NAME, as far as we learned it, and says when
 * we try again.  An operator who sees this wants to find and stop the other
 * process, so a unique name alone is not enough: add its pid, command (when
 * /proc shows it to us) and uid. */
static void bus_report_taken(struct bus *b, uint32_t pid, uint32_t uid, bool have_creds) {
        char who[BUS_DETAIL_MAX / 2] = "another connection";
        char comm[COMM_MAX] = "";

        if (have_creds && pid > 0) {
                char path[64];
                FILE *f;

                snprintf(path, sizeof path, "/proc/%" PRIu32 "/comm", pid);
                f = fopen(path, "re");
                if (f) {
                        if (fgets(comm, sizeof comm, f))
                                comm[strcspn(comm, "\n")] = '\0';
                        fclose(f);
                }
        }
        if (b->other_owner && have_creds)
                snprintf(who, sizeof who, "%s (pid %" PRIu32 "%s%s%s, uid %" PRIu32 ")",
                         b->other_owner, pid, comm[0] ? " \"" : "", comm, comm[0] ? "\"" : "", uid);
        else if (b->other_owner)
                snprintf(who, sizeof who, "%s", b->other_owner);

        bus_set_state(b, LOG_ERR, BUS_STATE_REQUESTING,
                      "cannot own %s on the %s bus: it is already owned by %s; retrying in %" PRId64 " s",
                      BUS_NAME, bus_kind_to_string(b->kind), who, b->retry_usec / USEC_PER_SEC);
}

/* GetConnectionCredentials(other owner) answered: pid and uid, then report. */
static int on_owner_creds(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;
        uint32_t pid = 0, uid = 0;
        bool ok = false;
        int r;

        (void) ret_error;
        if (sd_bus_is_ready(sd_bus_message_get_bus(m)) <= 0)
                return 0;               /* connection going down; bus_dispatch() handles it */
        if (sd_bus_message_is_method_error(m, NULL))
                goto report;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                goto report;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        goto report;
                if (strcmp(key, "ProcessID") == 0)
                        r = sd_bus_message_read(m, "v", "u", &pid);
                else if (strcmp(key, "UnixUserID") == 0)
                        r = sd_bus_message_read(m, "v", "u", &uid);
                else
                        r = sd_bus_message_skip(m, "v");
                if (r < 0)
                        goto report;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        goto report;
        }
        ok = r == 0;
report:
        bus_report_taken(b, pid, uid, ok);
        return 0;
}

/* GetNameOwner(BUS_NAME) answered: remember the unique name and ask the
 * broker who that is.  Failing anywhere still reports, with less detail. */
static int on_owner_name(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;
        sd_bus *bus = sd_bus_message_get_bus(m);
        const char *owner;
        int r;

        (void) ret_error;
        if (sd_bus_is_ready(bus) <= 0)
                return 0;
        if (sd_bus_message_is_method_error(m, NULL) || sd_bus_message_read(m, "s", &owner) < 0) {
                bus_report_taken(b, 0, 0, false);
                return 0;
        }
        free(b->other_owner);
        b->other_owner = strdup(owner);

        r = sd_bus_call_method_async(bus, NULL, DBUS_SERVICE, DBUS_PATH, DBUS_INTERFACE,
                                     "GetConnectionCredentials", on_owner_creds, b, "s", owner);
        if (r < 0)
                bus_report_taken(b, 0, 0, false);
        return 0;
}

static void bus_name_owned(struct bus *b) {
        if (b->state == BUS_STATE_OWNED)
                return;
        b->name_backoff_usec = BUS_RETRY_MIN_USEC;
        bus_set_state(b, LOG_NOTICE, BUS_STATE_OWNED, "owner of %s on the %s bus",
                      BUS_NAME, bus_kind_to_string(b->kind));
}

/* RequestName answered.  We never queue: if the name is taken we find out
 * by whom, log it, and ask again after the back-off (or at once when the
 * owner lets go, see on_name_owner_changed()), so two live instances are
 * loud and a standby one takes over when the first stops. */
static int on_request_name(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;
        sd_bus *bus = sd_bus_message_get_bus(m);
        const sd_bus_error *e;
        uint32_t reply;
        int64_t delay;
        int r;

        (void) ret_error;
        b->request_slot = sd_bus_slot_unref(b->request_slot);
        if (sd_bus_is_ready(bus) <= 0)
                return 0;

        e = sd_bus_message_get_error(m);
        if (e) {
                delay = bus_take_backoff(b, &b->name_backoff_usec);
                bus_set_state(b, LOG_ERR, BUS_STATE_REQUESTING,
                              "cannot own %s on the %s bus: %s; retrying in %" PRId64 " s",
                              BUS_NAME, bus_kind_to_string(b->kind), e->message ?: e->name,
                              delay / USEC_PER_SEC);
                bus_arm_retry(b, delay);
                return 0;
        }
        r = sd_bus_message_read(m, "u", &reply);
        if (r < 0)
                reply = 0;

        switch (reply) {
        case DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER:
        case DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER:
                bus_name_owned(b);
                return 0;
        case DBUS_REQUEST_NAME_REPLY_EXISTS:
                bus_arm_retry(b, bus_take_backoff(b, &b->name_backoff_usec));
                free(b->other_owner);           /* the owner may have changed since */
                b->other_owner = NULL;
                r = sd_bus_call_method_async(bus, NULL, DBUS_SERVICE, DBUS_PATH, DBUS_INTERFACE,
                                             "GetNameOwner", on_owner_name, b, "s", BUS_NAME);
                if (r < 0)
                        bus_report_taken(b, 0, 0, false);
                return 0;
        default:
                /* IN_QUEUE cannot happen without SD_BUS_NAME_QUEUE. */
                delay = bus_take_backoff(b, &b->name_backoff_usec);
                bus_set_state(b, LOG_ERR, BUS_STATE_REQUESTING,
                              "unexpected RequestName reply %" PRIu32 " for %s; retrying in %" PRId64 " s",
                              reply, BUS_NAME, delay / USEC_PER_SEC);
                bus_arm_retry(b, delay);
                return 0;
        }
}

/* Sends RequestName unless one is in flight.  Flags 0: no queueing and no
 * replacement either way — a second arbiterd must not silently take over
 * the displays of the first. */
static void bus_request_name(struct bus *b) {
        int64_t delay;
        int r;

        if (b->request_slot)
                return;
        r = sd_bus_request_name_async(b->bus, &b->request_slot, BUS_NAME, 0, on_request_name, b);
        if (r < 0 && sd_bus_is_ready(b->bus) <= 0)
                return;         /* the connection is going: bus_dispatch() reconnects */
        if (r < 0) {
                delay = bus_take_backoff(b, &b->name_backoff_usec);
                bus_set_state(b, LOG_ERR, BUS_STATE_REQUESTING,
                              "cannot request %s on the %s bus: %s; retrying in %" PRId64 " s",
                              BUS_NAME, bus_kind_to_string(b->kind), strerror(-r),
                              delay / USEC_PER_SEC);
                bus_arm_retry(b, delay);
        }
}

/* CONNECTING becomes REQUESTING once sd-bus says the Hello was answered;
 * only then is the unique name known and the name request meaningful. */
static void bus_check_ready(struct bus *b) {
        const char *unique = NULL;

        if (!b->bus || b->state != BUS_STATE_CONNECTING || sd_bus_is_ready(b->bus) <= 0)
                return;
        b->connect_backoff_usec = BUS_RETRY_MIN_USEC;
        b->name_backoff_usec = BUS_RETRY_MIN_USEC;
        (void) sd_bus_get_unique_name(b->bus, &unique);
        bus_set_state(b, LOG_INFO, BUS_STATE_REQUESTING, "connected to the %s bus as %s; requesting %s",
                      bus_kind_to_string(b->kind), unique ?: "?", BUS_NAME);
        bus_request_name(b);
}

static int on_name_acquired(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;
        const char *name;

        (void) ret_error;
        if (sd_bus_message_read(m, "s", &name) >= 0 && strcmp(name, BUS_NAME) == 0)
                bus_name_owned(b);
        return 0;
}

/* Without ALLOW_REPLACEMENT nobody can take the name from us, so NameLost
 * means the broker changed its mind (a policy reload, say): say so and ask
 * again after the back-off. */
static int on_name_lost(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;
        const char *name;
        int64_t delay;

        (void) ret_error;
        if (sd_bus_message_read(m, "s", &name) < 0 || strcmp(name, BUS_NAME) != 0)
                return 0;
        if (b->state != BUS_STATE_OWNED)
                return 0;
        delay = bus_take_backoff(b, &b->name_backoff_usec);
        bus_set_state(b, LOG_WARNING, BUS_STATE_REQUESTING,
                      "lost %s on the %s bus; requesting it again in %" PRId64 " s",
                      BUS_NAME, bus_kind_to_string(b->kind), delay / USEC_PER_SEC);
        bus_arm_retry(b, delay);
        return 0;
}

/* Whoever held the name let it go: ask at once rather than at the end of
 * the back-off, so a standby instance takes over within a round trip. */
static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;
        const char *name, *old_owner, *new_owner;

        (void) ret_error;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (strcmp(name, BUS_NAME) == 0 && new_owner[0] == '\0' &&
            b->state == BUS_STATE_REQUESTING) {
                log_info("%s was released by %s; requesting it now", BUS_NAME, old_owner);
                bus_request_name(b);
        }
        return 0;
}

/* sd-bus synthesizes Disconnected when the connection ends; we may not drop
 * it from inside sd_bus_process(), so mark it for bus_dispatch(). */
static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct bus *b = userdata;

        (void) m;
        (void) ret_error;
        b->lost = true;
        return 0;
}

/* sd-bus's default for a failed AddMatch closes the connection; the name
 * signals reach us without the broker-side match anyway, so only warn. */
static int on_match_installed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(m);

        (void) userdata;
        (void) ret_error;
        if (e && sd_bus_is_ready(sd_bus_message_get_bus(m)) > 0)
                log_warning("cannot install a D-Bus match rule: %s", e->message ?: e->name);
        return 0;
}

/* Everything that lives on a connection: the object manager and the Manager
 * vtable at the root path, the name signals (ours, and our name's owner
 * changing), Disconnected.  All slots float,
 * so they die with the connection and the next one starts clean. */
static int bus_register(struct bus *b, sd_bus *bus) {
        int r;

        r = sd_bus_add_object_manager(bus, NULL, BUS_ROOT_PATH);
        if (r < 0)
                return r;
        r = sd_bus_add_object_vtable(bus, NULL, BUS_ROOT_PATH, BUS_MANAGER_IFACE, manager_vtable, b);
        if (r < 0)
                return r;
        for (size_t i = 0; i < b->n_extensions; i++) {
                r = b->extensions[i].fn(b->extensions[i].userdata, bus);
                if (r < 0)
                        return r;
        }
        r = sd_bus_match_signal_async(bus, NULL, DBUS_SERVICE, DBUS_PATH, DBUS_INTERFACE,
                                      "NameAcquired", on_name_acquired, on_match_installed, b);
        if (r < 0)
                return r;
        r = sd_bus_match_signal_async(bus, NULL, DBUS_SERVICE, DBUS_PATH, DBUS_INTERFACE,
                                      "NameLost", on_name_lost, on_match_installed, b);
        if (r < 0)
                return r;
        r = sd_bus_add_match_async(bus, NULL, NAME_OWNER_CHANGED_MATCH, on_name_owner_changed,
                                   on_match_installed, b);
        if (r < 0)
                return r;
        /* A local match: sd-bus does not send it to the broker. */
        return sd_bus_match_signal_async(bus, NULL, DBUS_LOCAL_SERVICE, DBUS_LOCAL_PATH,
                                         DBUS_LOCAL_INTERFACE, "Disconnected", on_disconnected,
                                         NULL, b);
}

/* Opens a connection and registers our objects on it.  sd_bus_open_*()
 * only starts connecting (authentication and Hello happen in
 * sd_bus_process()), so this does not block; a missing or refusing socket
 * fails here and is retried after the back-off. */
static void bus_connect(struct bus *b) {
        _cleanup_(sd_bus_close_unrefp) sd_bus *bus = NULL;
        int64_t delay;
        int r;

        if (b->kind == BUS_KIND_SYSTEM)
                r = sd_bus_open_system_with_description(&bus, "arbiterd");
        else
                r = sd_bus_open_user_with_description(&bus, "arbiterd");
        if (r >= 0)
                r = bus_register(b, bus);
        if (r < 0) {
                delay = bus_take_backoff(b, &b->connect_backoff_usec);
                bus_set_state(b, LOG_WARNING, BUS_STATE_CONNECTING,
                              "cannot connect to the %s bus: %s; retrying in %" PRId64 " s",
                              bus_kind_to_string(b->kind), strerror(-r), delay / USEC_PER_SEC);
                bus_arm_retry(b, delay);
                return;
        }
        b->bus = bus;
        bus = NULL;
        b->lost = false;
        /* Progress, not news: state_fn hears again when Hello is answered or
         * the attempt fails. */
        log_debug("connecting to the %s bus", bus_kind_to_string(b->kind));
}

/* The retry timer: reconnect when there is no connection, ask for the name
 * again when there is one that is up but does not own it. */
static void on_retry(evutil_socket_t fd, short what, void *userdata) {
        struct bus *b = userdata;

        (void) fd;
        (void) what;
        if (!b->bus)
                bus_connect(b);
        else if (b->state == BUS_STATE_REQUESTING)
                bus_request_name(b);
}

int bus_new(struct loop *loop, enum bus_kind kind, const char *version,
            bus_state_fn state_fn, void *userdata, struct bus **ret) {
        struct bus *b;
        int r;

        if (!loop || !ret || (kind != BUS_KIND_NONE && kind != BUS_KIND_SESSION &&
                              kind != BUS_KIND_SYSTEM))
                return -EINVAL;

        b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        *b = (struct bus) {
                .loop = loop,
                .kind = kind,
                .state = kind == BUS_KIND_NONE ? BUS_STATE_DISABLED : BUS_STATE_CONNECTING,
                .state_fn = state_fn,
                .userdata = userdata,
                .hook_id = -1,
                .io_fd = -1,
                .connect_backoff_usec = BUS_RETRY_MIN_USEC,
                .name_backoff_usec = BUS_RETRY_MIN_USEC,
                .version = strdup(version ?: ""),
                .venue = strdup("main"),
                .status = strdup("starting"),
                .database = strdup("unknown"),
                .started_at = (uint64_t) realtime_usec(),
        };
        b->detail = strdup(kind == BUS_KIND_NONE ? "D-Bus is disabled (bus = none)"
                                                 : "not connected yet");
        if (!b->version || !b->venue || !b->status || !b->database || !b->detail) {
                r = -ENOMEM;
                goto fail;
        }
        if (kind == BUS_KIND_NONE) {
                *ret = b;
                return 0;
        }

        b->timeout_ev = evtimer_new(loop_base(loop), on_bus_timeout, b);
        b->retry_ev = evtimer_new(loop_base(loop), on_retry, b);
        if (!b->timeout_ev || !b->retry_ev) {
                r = -ENOMEM;
                goto fail;
        }
        r = loop_add_before_sleep(loop, bus_before_sleep, b);
        if (r < 0)
                goto fail;
        b->hook_id = r;

        /* The first attempt runs from the loop, so that even its failure
         * reaches state_fn like every later one. */
        bus_arm_retry(b, 0);
        *ret = b;
        return 0;

fail:
        bus_free(b);
        return r;
}

/* Says goodbye properly when the connection is up: pending property changes,
 * then ReleaseName, flushed before closing, so a successor can take the name
 * at once and displays see the last Status.  A connection still being set up
 * is just closed (sd_bus_flush() would block until it is running). */
void bus_free(struct bus *b) {
        if (!b)
                return;
        if (b->hook_id >= 0)
                loop_remove_before_sleep(b->loop, b->hook_id);

        if (b->bus && sd_bus_is_ready(b->bus) > 0) {
                bus_flush_changes(b);
                if (b->state == BUS_STATE_OWNED)
                        (void) sd_bus_release_name_async(b->bus, NULL, BUS_NAME, NULL, NULL);
                (void) sd_bus_flush(b->bus);
        }
        bus_drop_connection(b);
        if (b->timeout_ev)
                event_free(b->timeout_ev);
        if (b->retry_ev)
                event_free(b->retry_ev);
        free(b->changes);
        free(b->index);
        free(b->detail);
        free(b->version);
        free(b->venue);
        free(b->status);
        free(b->database);
        free(b);
}

enum bus_state bus_get_state(const struct bus *b) {
        return b ? b->state : BUS_STATE_DISABLED;
}

const char *bus_get_detail(const struct bus *b) {
        return b && b->detail ? b->detail : "";
}

/* Replaces *field with a copy of value and reports whether it changed; on
 * allocation failure the old value stays (a stale Status beats none). */
static bool bus_update_string(char **field, const char *value) {
        char *copy;

        if (!value)
                value = "";
        if (strcmp(*field, value) == 0)
                return false;
        copy = strdup(value);
        if (!copy) {
                log_error("out of memory updating a D-Bus property");
                return false;
        }
        free(*field);
        *field = copy;
        return true;
}

int bus_set_venue(struct bus *b, const char *venue) {
        char *copy = strdup(venue ? venue : "");

        if (!copy)
                return -ENOMEM;
        free(b->venue);
        b->venue = copy;
        return 0;
}

void bus_set_status(struct bus *b, const char *status) {
        if (b && bus_update_string(&b->status, status))
                (void) bus_properties_changed(b, BUS_ROOT_PATH, BUS_MANAGER_IFACE, "Status", NULL);
}

void bus_set_database(struct bus *b, const char *database_state) {
        if (b && bus_update_string(&b->database, database_state))
                (void) bus_properties_changed(b, BUS_ROOT_PATH, BUS_MANAGER_IFACE, "Database", NULL);
}

int bus_add_extension(struct bus *b, bus_register_fn fn, void *userdata) {
        if (!b)
                return 0;
        if (b->n_extensions == BUS_MAX_EXTENSIONS)
                return -ENOSPC;
        b->extensions[b->n_extensions].fn = fn;
        b->extensions[b->n_extensions].userdata = userdata;
        b->n_extensions++;
        /* Already connected: register on this connection now. */
        if (b->bus)
                return fn(userdata, b->bus);
        return 0;
}

struct sd_bus *bus_get_sd_bus(struct bus *b) {
        if (!b || (b->state != BUS_STATE_REQUESTING && b->state != BUS_STATE_OWNED))
                return NULL;
        return b->bus;
}
