/* daemon/config.c — see config.h.
 *
 * Every key lives in one table (keys[] below): its section, name, type,
 * where it is stored, its range, its default written in the file's own
 * syntax, its environment override and whether SIGHUP may apply it.  The
 * defaults, the file parser, the environment and config_reload_into() all
 * walk that table, so adding a key is adding one entry.
 *
 * The parser is strict on purpose: a typo in a key or a value stops the
 * daemon with "FILE:LINE: what is wrong (what is allowed)" instead of
 * running with a setting the operator did not ask for.  It never trusts
 * its input: lines are bounded, NUL bytes and control characters are
 * refused, and any user text quoted in a message is escaped and cut short.
 *
 * Syntax details the header leaves open:
 *   - comments ("#" or ";") take a whole line; there are no trailing
 *     comments, since "#" is legal inside a DSN or a path;
 *   - a value in double quotes may contain \" and \\ and nothing else
 *     after a backslash; after the closing quote only blanks may follow;
 *   - lines end in LF or CRLF; a UTF-8 byte-order mark at the start is skipped;
 *   - booleans, buses and log levels are matched case-insensitively;
 *   - an environment variable that is set but empty counts as unset.
 */
#include "daemon/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <sys/socket.h>

#include "common/errbuf.h"
#include "common/venue.h"

#ifndef ARBITER_DATADIR
#define ARBITER_DATADIR "/usr/local/share/arbiter"
#endif

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#define KIB UINT64_C(1024)
#define MIB (1024 * KIB)

/* The longest line accepted, line terminator not counted: far above any
 * real "key = value", and small enough for a stack buffer.  Environment
 * values get the same bound. */
#define CONFIG_LINE_MAX 4096

/* A configuration file is a few kilobytes; anything past this is the wrong
 * file (a log, a device), and refusing it bounds what config_load() reads. */
#define CONFIG_FILE_MAX (1 * MIB)

/* How many bytes of an offending value a message shows, and the buffer that
 * holds them after escaping: two quotes, up to four bytes ("\xNN") per
 * byte shown, "..." and the NUL. */
#define QUOTE_SHOWN 48
#define QUOTE_BUF (2 + 4 * QUOTE_SHOWN + 3 + 1)

/* One message before "FILE:LINE: " is put in front of it. */
#define MSG_MAX 768

/* Longest text inet_pton() is given; INET6_ADDRSTRLEN covers both families. */
#define ADDRESS_MAX INET6_ADDRSTRLEN

#define PORT_MIN 1
#define PORT_MAX 65535

static const char utf8_bom[] = "\xEF\xBB\xBF";

enum key_type {
        KEY_LISTEN,             /* char *listen_address + uint16_t listen_port */
        KEY_STRING,             /* char *, owned */
        KEY_SIZE,               /* size_t: bytes, or a K/M suffix (binary) */
        KEY_UINT,               /* unsigned */
        KEY_BOOL,               /* bool */
        KEY_BUS,                /* enum config_bus */
        KEY_LOG_LEVEL,          /* int, LOG_* */
        KEY_DOUBLE,             /* double; "" (when allowed) is NAN: the built-in value */
};

struct choice {
        const char *name;
        int value;
};

struct key {
        const char *section;
        const char *name;
        enum key_type type;
        size_t offset;                  /* into struct config */
        uint64_t min, max;              /* KEY_SIZE, KEY_UINT */
        double dmin, dmax;              /* KEY_DOUBLE, inclusive */
        const char *what;               /* KEY_UINT: unit; KEY_STRING: what the text is */
        const struct choice *choices;   /* KEY_BUS, KEY_LOG_LEVEL */
        size_t n_choices;
        const char *def;                /* default, in the file's syntax */
        const char *env;                /* ARBITER_* override, or NULL */
        bool reload;                    /* SIGHUP applies it without a restart */
        bool allow_empty;               /* KEY_STRING: "" means something */
};

static const struct choice bus_choices[] = {
        { "system", CONFIG_BUS_SYSTEM },
        { "session", CONFIG_BUS_SESSION },
        { "none", CONFIG_BUS_NONE },
};

static const struct choice level_choices[] = {
        { "error", LOG_ERR },
        { "warning", LOG_WARNING },
        { "notice", LOG_NOTICE },
        { "info", LOG_INFO },
        { "debug", LOG_DEBUG },
};

#define KEY(sec, key, t, member) \
        .section = (sec), .name = (key), .type = (t), .offset = offsetof(struct config, member)
#define CHOICES(c) .choices = (c), .n_choices = ELEMENTSOF(c)

/* Ranges and defaults are the ones config.h documents; docs/arbiterd.conf.example
 * repeats them and a unit test checks that the example parses to these defaults.
 * An empty DSN is allowed because libpq then takes everything from PG*. */
static const struct key keys[] = {
        { KEY("http", "listen", KEY_LISTEN, listen_address),
          .def = "127.0.0.1:8080", .env = "ARBITER_LISTEN" },
        { KEY("http", "body_limit", KEY_SIZE, body_limit),
          .min = 1, .max = 64 * MIB, .def = "1M", .reload = true },
        /* The connection defaults (docs/operations.md, "Connections and
         * load"): 3072 event streams and room for requests beside them,
         * 64 kept for priority requests, a quarter of the pool per address. */
        { KEY("http", "max_connections", KEY_UINT, max_connections),
          .min = 2, .max = 65536, .def = "4096" },
        { KEY("http", "reserved_connections", KEY_UINT, reserved_connections),
          .min = 1, .max = 65535, .def = "64" },
        { KEY("http", "max_connections_per_ip", KEY_UINT, max_connections_per_ip),
          .min = 1, .max = 65536, .def = "1024" },
        { KEY("http", "pending_per_ip", KEY_UINT, pending_per_ip),
          .min = 1, .max = 65536, .def = "32" },
        { KEY("http", "request_timeout", KEY_UINT, request_timeout_s),
          .min = 1, .max = 3600, .what = "seconds", .def = "10" },
        { KEY("http", "connection_timeout", KEY_UINT, connection_timeout_s),
          .min = 1, .max = 3600, .what = "seconds", .def = "30" },
        { KEY("http", "connection_memory", KEY_SIZE, connection_memory),
          .min = 8 * KIB, .max = 16 * MIB, .def = "8K" },
        { KEY("http", "open_reads", KEY_BOOL, open_reads),
          .def = "yes", .reload = true },
        { KEY("http", "web_root", KEY_STRING, web_root),
          .what = "a directory path", .def = ARBITER_DATADIR "/web", .env = "ARBITER_WEB" },
        { KEY("http", "sse_heartbeat", KEY_UINT, sse_heartbeat_ms),
          .min = 100, .max = 300000, .what = "milliseconds", .def = "15000" },
        { KEY("http", "sse_max_streams", KEY_UINT, sse_max_streams),
          .min = 1, .max = 65536, .def = "3072" },
        { KEY("database", "dsn", KEY_STRING, dsn),
          .what = "a libpq connection string or URI", .allow_empty = true,
          .def = "dbname=arbiter", .env = "ARBITER_DSN" },
        { KEY("database", "statement_timeout", KEY_UINT, statement_timeout_ms),
          .min = 100, .max = 600000, .what = "milliseconds", .def = "5000", .reload = true },
        /* 2 s: a database that is back is used within 3 s (issue 11),
         * at the cost of one refused connection every 2 s meanwhile. */
        { KEY("database", "reconnect_max", KEY_UINT, reconnect_max_s),
          .min = 1, .max = 3600, .what = "seconds", .def = "2" },
        /* REST queries waiting for the database: at a few hundred µs each,
         * 256 are under 100 ms of waiting; referees, admins and the match
         * runtime (a connection of its own) are never refused. */
        { KEY("database", "queue_limit", KEY_UINT, queue_limit),
          .min = 1, .max = 65535, .def = "256" },
        /* A streaming replica for the reads that may lag (docs/operations.md,
         * "A read replica"); one further behind than replica_max_lag is
         * skipped for the primary.  An hour at most: past that a replica is
         * not a display's source but a stale copy. */
        { KEY("database", "replica_dsn", KEY_STRING, replica_dsn),
          .what = "a libpq connection string or URI (empty: no replica)", .allow_empty = true,
          .def = "", .env = "ARBITER_REPLICA_DSN" },
        { KEY("database", "replica_max_lag", KEY_UINT, replica_max_lag_ms),
          .min = 0, .max = 3600000, .what = "milliseconds", .def = "5000" },
        { KEY("database", "migrations", KEY_STRING, migrations_dir),
          .what = "a directory path",
          .def = ARBITER_DATADIR "/migrations", .env = "ARBITER_MIGRATIONS" },
        /* /var/lib/arbiter is the unit's StateDirectory= (systemd/arbiterd.service). */
        { KEY("database", "spool", KEY_STRING, spool_path),
          .what = "a file path",
          .def = "/var/lib/arbiter/spool", .env = "ARBITER_SPOOL" },
        /* The venue this daemon runs (docs/operations.md, "Several venues"):
         * its lock, its tables and matches; checked in check_together(). */
        { KEY("venue", "id", KEY_STRING, venue_id),
          .what = "a venue id: " VENUE_ID_RULE,
          .def = "main", .env = "ARBITER_VENUE" },
        { KEY("venue", "name", KEY_STRING, venue_name),
          .what = "the venue's name, 1 to 64 characters (empty: the id)", .allow_empty = true,
          .def = "" },
        { KEY("dbus", "bus", KEY_BUS, bus),
          CHOICES(bus_choices), .what = "a bus", .def = "system", .env = "ARBITER_BUS" },
        { KEY("log", "level", KEY_LOG_LEVEL, log_level),
          CHOICES(level_choices), .what = "a log level",
          .def = "info", .env = "ARBITER_LOG_LEVEL", .reload = true },
        { KEY("pads", "ports", KEY_STRING, pad_ports),
          .what = "serial port paths separated by spaces", .allow_empty = true,
          .def = "", .env = "ARBITER_PADS" },
        { KEY("pads", "rs485_ports", KEY_STRING, pad_rs485_ports),
          .what = "serial port paths separated by spaces, each also in ports", .allow_empty = true,
          .def = "" },
        /* hardware/poller.h: the pad's 500 µs to start and a USB adapter's
         * frames and latency timer. */
        { KEY("pads", "rs485_reply_margin", KEY_UINT, pad_rs485_reply_margin_us),
          .min = 500, .max = 100000, .what = "microseconds", .def = "3000" },
        { KEY("pads", "baud", KEY_UINT, pad_baud),
          .min = 9600, .max = 4000000, .what = "bits per second", .def = "115200" },
        { KEY("pads", "heartbeat_timeout", KEY_UINT, pad_heartbeat_timeout_ms),
          .min = 100, .max = 60000, .what = "milliseconds", .def = "3000" },
        { KEY("pads", "sync_interval", KEY_UINT, pad_sync_interval_ms),
          .min = 50, .max = 60000, .what = "milliseconds", .def = "1000" },
        { KEY("pads", "settle_window", KEY_UINT, pad_settle_us),
          .min = 0, .max = 1000000, .what = "microseconds", .def = "2000" },
        { KEY("pads", "reopen_interval", KEY_UINT, pad_reopen_ms),
          .min = 100, .max = 60000, .what = "milliseconds", .def = "2000" },
        { KEY("pads", "pty_wire_time", KEY_BOOL, pad_pty_wire_time),
          .def = "no" },
        /* Empty: the value the rating system's authors publish (docs/ratings.md). */
        { KEY("ratings", "openskill_mu", KEY_DOUBLE, rating_os_mu),
          .dmin = -1e4, .dmax = 1e4, .allow_empty = true, .def = "" },
        { KEY("ratings", "openskill_sigma", KEY_DOUBLE, rating_os_sigma),
          .dmin = 1e-6, .dmax = 1e4, .allow_empty = true, .def = "" },
        { KEY("ratings", "openskill_beta", KEY_DOUBLE, rating_os_beta),
          .dmin = 1e-6, .dmax = 1e4, .allow_empty = true, .def = "" },
        { KEY("ratings", "openskill_tau", KEY_DOUBLE, rating_os_tau),
          .dmin = 0, .dmax = 1e3, .allow_empty = true, .def = "" },
        { KEY("ratings", "glicko2_rating", KEY_DOUBLE, rating_g2_rating),
          .dmin = 0, .dmax = 1e5, .allow_empty = true, .def = "" },
        { KEY("ratings", "glicko2_rd", KEY_DOUBLE, rating_g2_rd),
          .dmin = 1, .dmax = 1e4, .allow_empty = true, .def = "" },
        { KEY("ratings", "glicko2_volatility", KEY_DOUBLE, rating_g2_volatility),
          .dmin = 1e-6, .dmax = 1, .allow_empty = true, .def = "" },
        { KEY("ratings", "glicko2_tau", KEY_DOUBLE, rating_g2_tau),
          .dmin = 0.3, .dmax = 1.2, .allow_empty = true, .def = "" },
        { KEY("ratings", "provisional_games", KEY_UINT, rating_provisional_games),
          .min = 0, .max = 1000, .def = "5" },
        { KEY("daemon", "housekeeping_interval", KEY_UINT, housekeeping_ms),
          .min = 10, .max = 60000, .what = "milliseconds", .def = "1000" },
        { KEY("daemon", "shutdown_timeout", KEY_UINT, shutdown_timeout_s),
          .min = 1, .max = 300, .what = "seconds", .def = "10" },
};

#define N_KEYS ELEMENTSOF(keys)

static void *field(struct config *cfg, const struct key *k) {
        return (char *) cfg + k->offset;
}

static const void *cfield(const struct config *cfg, const struct key *k) {
        return (const char *) cfg + k->offset;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

static bool is_control(unsigned char c) {
        return c < 0x20 || c == 0x7f;
}

static char *skip_blank(char *s) {
        while (is_blank(*s))
                s++;
        return s;
}

static char *strip(char *s) {
        char *end;

        s = skip_blank(s);
        end = s + strlen(s);
        while (end > s && is_blank(end[-1]))
                end--;
        *end = '\0';
        return s;
}


/* Puts user text into a message in double quotes, with control bytes,
 * quotes and backslashes escaped and the text cut after QUOTE_SHOWN bytes,
 * so that a message stays one short printable line whatever the input. */
static const char *quote(char buf[static QUOTE_BUF], const char *s) {
        static const char hex[] = "0123456789abcdef";
        size_t o = 0, i;

        buf[o++] = '"';
        for (i = 0; i < QUOTE_SHOWN && s[i]; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c == '"' || c == '\\') {
                        buf[o++] = '\\';
                        buf[o++] = (char) c;
                } else if (is_control(c)) {
                        buf[o++] = '\\';
                        buf[o++] = 'x';
                        buf[o++] = hex[c >> 4];
                        buf[o++] = hex[c & 0xf];
                } else
                        buf[o++] = (char) c;
        }
        if (s[i]) {
                memcpy(buf + o, "...", 3);
                o += 3;
        }
        buf[o++] = '"';
        buf[o] = '\0';
        return buf;
}

/* "64M", "8K" or a plain count: ranges read back in the units they are written in. */
static const char *format_size(char *buf, size_t size, uint64_t v) {
        if (v >= MIB && v % MIB == 0)
                snprintf(buf, size, "%" PRIu64 "M", v / MIB);
        else if (v >= KIB && v % KIB == 0)
                snprintf(buf, size, "%" PRIu64 "K", v / KIB);
        else
                snprintf(buf, size, "%" PRIu64, v);
        return buf;
}

static void join_choices(char *buf, size_t size, const struct choice *c, size_t n) {
        size_t o = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n && o < size; i++)
                o += (size_t) snprintf(buf + o, size - o, "%s%s",
                                       i == 0 ? "" : i + 1 == n ? " or " : ", ", c[i].name);
}

/* What a key accepts, in the words every message about it ends with. */
static const char *describe(char *buf, size_t size, const struct key *k) {
        char lo[32], hi[32];

        switch (k->type) {
        case KEY_LISTEN:
                snprintf(buf, size, "IPv4:PORT or [IPv6]:PORT, port %d to %d", PORT_MIN, PORT_MAX);
                break;
        case KEY_STRING:
                snprintf(buf, size, "%s", k->what);
                break;
        case KEY_SIZE:
                snprintf(buf, size, "bytes or a K/M suffix, %s to %s",
                         format_size(lo, sizeof lo, k->min), format_size(hi, sizeof hi, k->max));
                break;
        case KEY_UINT:
                snprintf(buf, size, "a whole number%s%s, %" PRIu64 " to %" PRIu64,
                         k->what ? " of " : "", k->what ? k->what : "", k->min, k->max);
                break;
        case KEY_BOOL:
                snprintf(buf, size, "yes/no, true/false, on/off or 1/0");
                break;
        case KEY_DOUBLE:
                snprintf(buf, size, "a number %g to %g%s", k->dmin, k->dmax,
                         k->allow_empty ? ", or nothing for the built-in value" : "");
                break;
        case KEY_BUS:
        case KEY_LOG_LEVEL:
                join_choices(buf, size, k->choices, k->n_choices);
                break;
        }
        return buf;
}

/* Reads the decimal digits at *s.  The value saturates at UINT64_MAX
 * instead of wrapping, so "99999999999999999999" is reported as out of
 * range rather than accepted as whatever it wrapped to. */
static int parse_digits(const char **s, uint64_t *ret_value) {
        const char *p = *s;
        uint64_t v = 0;

        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                unsigned d = (unsigned) (*p - '0');
                v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
        }
        *s = p;
        *ret_value = v;
        return 0;
}

static int parse_size(const char *v, uint64_t *ret_value) {
        uint64_t n, mult = 1;

        if (parse_digits(&v, &n) < 0)
                return -EINVAL;
        if (*v == 'K' || *v == 'k')
                mult = KIB, v++;
        else if (*v == 'M' || *v == 'm')
                mult = MIB, v++;
        if (*v != '\0')
                return -EINVAL;
        *ret_value = n > UINT64_MAX / mult ? UINT64_MAX : n * mult;
        return 0;
}

static int parse_uint(const char *v, uint64_t *ret_value) {
        if (parse_digits(&v, ret_value) < 0 || *v != '\0')
                return -EINVAL;
        return 0;
}

static int parse_bool(const char *v, bool *ret_value) {
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(v, yes[i]) == 0) {
                        *ret_value = true;
                        return 0;
                }
                if (strcasecmp(v, no[i]) == 0) {
                        *ret_value = false;
                        return 0;
                }
        }
        return -EINVAL;
}

static int parse_choice(const struct key *k, const char *v, int *ret_value) {
        for (size_t i = 0; i < k->n_choices; i++)
                if (strcasecmp(v, k->choices[i].name) == 0) {
                        *ret_value = k->choices[i].value;
                        return 0;
                }
        return -EINVAL;
}

/* "IPv4:PORT" or "[IPv6]:PORT".  The address is checked with inet_pton()
 * here, so a typo is a config error with a line number rather than a bind
 * failure later; it is stored without brackets, ready for inet_pton(). */
static int parse_listen(const char *v, char ret_address[static ADDRESS_MAX], uint16_t *ret_port,
                        char *msg, size_t msglen, const char *allowed) {
        char q[QUOTE_BUF], addr[ADDRESS_MAX];
        unsigned char bin[sizeof(struct in6_addr)];
        const char *a, *a_end, *port;
        uint64_t p;
        int family;

        if (v[0] == '[') {
                family = AF_INET6;
                a = v + 1;
                a_end = strchr(a, ']');
                if (!a_end || a_end[1] != ':') {
                        snprintf(msg, msglen, "%s is not [IPv6]:PORT (use %s)",
                                 quote(q, v), allowed);
                        return -EINVAL;
                }
                port = a_end + 2;
        } else {
                family = AF_INET;
                a = v;
                a_end = strrchr(v, ':');
                if (!a_end) {
                        snprintf(msg, msglen, "%s has no :PORT (use %s)", quote(q, v), allowed);
                        return -EINVAL;
                }
                if (memchr(v, ':', (size_t) (a_end - v))) {
                        snprintf(msg, msglen,
                                 "%s is not ADDRESS:PORT (use %s; an IPv6 address needs brackets)",
                                 quote(q, v), allowed);
                        return -EINVAL;
                }
                port = a_end + 1;
        }

        if ((size_t) (a_end - a) >= sizeof addr) {
                snprintf(msg, msglen, "%s is not an %s address (use %s)", quote(q, v),
                         family == AF_INET ? "IPv4" : "IPv6", allowed);
                return -EINVAL;
        }
        memcpy(addr, a, (size_t) (a_end - a));
        addr[a_end - a] = '\0';
        if (inet_pton(family, addr, bin) != 1) {
                snprintf(msg, msglen, "%s is not an %s address (use %s)", quote(q, addr),
                         family == AF_INET ? "IPv4" : "IPv6", allowed);
                return -EINVAL;
        }

        if (parse_uint(port, &p) < 0) {
                snprintf(msg, msglen, "port %s is not a number (use %s)", quote(q, port), allowed);
                return -EINVAL;
        }
        if (p < PORT_MIN || p > PORT_MAX) {
                snprintf(msg, msglen, "port %s is out of range (use %s)", quote(q, port), allowed);
                return -EINVAL;
        }

        strcpy(ret_address, addr);
        *ret_port = (uint16_t) p;
        return 0;
}

static int replace_string(char **slot, const char *v) {
        char *copy = strdup(v);

        if (!copy)
                return -ENOMEM;
        free(*slot);
        *slot = copy;
        return 0;
}

/* Checks v against what k allows and stores it in cfg; cfg is left as it
 * was on failure.  The message (without "FILE:LINE: key: ") goes to msg. */
static int set_value(struct config *cfg, const struct key *k, const char *v,
                     char *msg, size_t msglen) {
        char q[QUOTE_BUF], allowed[256];
        uint64_t n;
        bool b;
        int c, r;

        describe(allowed, sizeof allowed, k);

        if (*v == '\0' && !k->allow_empty) {
                snprintf(msg, msglen, "empty value (use %s)", allowed);
                return -EINVAL;
        }
        for (const char *p = v; *p; p++)
                if (is_control((unsigned char) *p)) {
                        snprintf(msg, msglen, "%s contains a control character (use %s)",
                                 quote(q, v), allowed);
                        return -EINVAL;
                }

        switch (k->type) {
        case KEY_LISTEN: {
                char addr[ADDRESS_MAX];
                uint16_t port;

                r = parse_listen(v, addr, &port, msg, msglen, allowed);
                if (r < 0)
                        return r;
                r = replace_string(&cfg->listen_address, addr);
                if (r < 0)
                        break;
                cfg->listen_port = port;
                return 0;
        }
        case KEY_STRING:
                r = replace_string(field(cfg, k), v);
                if (r < 0)
                        break;
                return 0;
        case KEY_SIZE:
        case KEY_UINT:
                r = k->type == KEY_SIZE ? parse_size(v, &n) : parse_uint(v, &n);
                if (r < 0) {
                        snprintf(msg, msglen, "%s is not %s (use %s)", quote(q, v),
                                 k->type == KEY_SIZE ? "a size" : "a whole number", allowed);
                        return r;
                }
                if (n < k->min || n > k->max) {
                        snprintf(msg, msglen, "%s is out of range (use %s)", quote(q, v), allowed);
                        return -EINVAL;
                }
                if (k->type == KEY_SIZE)
                        *(size_t *) field(cfg, k) = (size_t) n;
                else
                        *(unsigned *) field(cfg, k) = (unsigned) n;
                return 0;
        case KEY_DOUBLE: {
                char *end;
                double d;

                if (*v == '\0') {
                        *(double *) field(cfg, k) = NAN;
                        return 0;
                }
                errno = 0;
                d = strtod(v, &end);
                if (errno || *end || end == v || !isfinite(d)) {
                        snprintf(msg, msglen, "%s is not a number (use %s)", quote(q, v), allowed);
                        return -EINVAL;
                }
                if (d < k->dmin || d > k->dmax) {
                        snprintf(msg, msglen, "%s is out of range (use %s)", quote(q, v), allowed);
                        return -EINVAL;
                }
                *(double *) field(cfg, k) = d;
                return 0;
        }
        case KEY_BOOL:
                if (parse_bool(v, &b) < 0) {
                        snprintf(msg, msglen, "%s is not a boolean (use %s)", quote(q, v), allowed);
                        return -EINVAL;
                }
                *(bool *) field(cfg, k) = b;
                return 0;
        case KEY_BUS:
        case KEY_LOG_LEVEL:
                if (parse_choice(k, v, &c) < 0) {
                        snprintf(msg, msglen, "%s is not %s (use %s)",
                                 quote(q, v), k->what, allowed);
                        return -EINVAL;
                }
                if (k->type == KEY_BUS)
                        *(enum config_bus *) field(cfg, k) = (enum config_bus) c;
                else
                        *(int *) field(cfg, k) = c;
                return 0;
        }

        snprintf(msg, msglen, "out of memory");
        return -ENOMEM;
}

/* Returns the table's own spelling of the section, so the parser can keep
 * a pointer to it after the line buffer is reused. */
static const char *find_section(const char *name) {
        for (size_t i = 0; i < N_KEYS; i++)
                if (strcmp(keys[i].section, name) == 0)
                        return keys[i].section;
        return NULL;
}

/* section NULL finds the key in whichever section has it. */
static const struct key *find_key(const char *section, const char *name) {
        for (size_t i = 0; i < N_KEYS; i++)
                if ((!section || strcmp(keys[i].section, section) == 0) &&
                    strcmp(keys[i].name, name) == 0)
                        return &keys[i];
        return NULL;
}

static const char *list_sections(char *buf, size_t size) {
        size_t o = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < N_KEYS && o < size; i++) {
                if (i > 0 && strcmp(keys[i - 1].section, keys[i].section) == 0)
                        continue;
                o += (size_t) snprintf(buf + o, size - o, "%s[%s]",
                                       o == 0 ? "" : ", ", keys[i].section);
        }
        return buf;
}

static const char *list_keys(char *buf, size_t size, const char *section) {
        size_t o = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < N_KEYS && o < size; i++)
                if (strcmp(keys[i].section, section) == 0)
                        o += (size_t) snprintf(buf + o, size - o, "%s%s",
                                               o == 0 ? "" : ", ", keys[i].name);
        return buf;
}

struct parser {
        struct config *cfg;
        const char *name;
        unsigned line;
        const char *section;            /* NULL before the first "[section]" */
        unsigned set_on[N_KEYS];        /* line each key was set on; 0: not yet */
        char *err;
        size_t errlen;
};

static int parse_error(struct parser *p, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static int parse_error(struct parser *p, const char *fmt, ...) {
        char msg[MSG_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        errbuf_set(p->err, p->errlen, "%s:%u: %s", p->name, p->line, msg);
        return -EINVAL;
}

static int parse_section(struct parser *p, char *s) {
        char q[QUOTE_BUF], known[128];
        char *close = strchr(s, ']'), *name;
        const char *sec;

        if (!close)
                return parse_error(p, "unterminated section header (use \"[section]\")");
        if (*skip_blank(close + 1) != '\0')
                return parse_error(p, "text after \"]\" in a section header "
                                      "(use \"[section]\" on a line of its own)");
        *close = '\0';
        name = strip(s + 1);
        sec = find_section(name);
        if (!sec)
                return parse_error(p, "unknown section %s (known: %s)", quote(q, name),
                                   list_sections(known, sizeof known));
        p->section = sec;
        return 0;
}

/* Takes the text after an opening double quote up to the closing one,
 * unescaping \" and \\ in place (the result is never longer). */
static int bad_escape(struct parser *p, unsigned char c) {
        if (c > ' ' && c < 0x7f)
                return parse_error(p, "unknown escape \"\\%c\" in a quoted value (use \\\" or \\\\)", c);
        return parse_error(p, "backslash before byte 0x%02x in a quoted value (use \\\" or \\\\)", c);
}

static int unquote(struct parser *p, char *s, char **ret_value) {
        char *in = s + 1, *out = s;

        for (;;) {
                if (*in == '\0' || (in[0] == '\\' && in[1] == '\0'))
                        return parse_error(p, "unterminated quoted value (end it with '\"')");
                if (*in == '"')
                        break;
                if (*in == '\\') {
                        if (in[1] != '"' && in[1] != '\\')
                                return bad_escape(p, (unsigned char) in[1]);
                        in++;
                }
                *out++ = *in++;
        }
        if (*skip_blank(in + 1) != '\0')
                return parse_error(p, "text after the closing quote (comments take a line of their own)");
        *out = '\0';
        *ret_value = s;
        return 0;
}

/* Key checks come before the value is looked at, so the message names the
 * real mistake: a key in the wrong section says where it belongs, and a
 * repeated key is reported as such even when its second value is also bad. */
static int parse_assignment(struct parser *p, char *s) {
        char q[QUOTE_BUF], known[256], msg[MSG_MAX];
        char *eq = strchr(s, '='), *key, *value;
        const struct key *k, *elsewhere;
        int r;

        if (!eq)
                return parse_error(p, "line is neither \"[section]\" nor \"key = value\"");
        *eq = '\0';
        key = strip(s);
        value = strip(eq + 1);
        if (*key == '\0')
                return parse_error(p, "\"=\" without a key (use \"key = value\")");

        elsewhere = find_key(NULL, key);
        if (!p->section) {
                if (elsewhere)
                        return parse_error(p, "key %s is outside any section (it belongs in [%s])",
                                           quote(q, key), elsewhere->section);
                return parse_error(p, "key %s is outside any section (known sections: %s)",
                                   quote(q, key), list_sections(known, sizeof known));
        }
        k = find_key(p->section, key);
        if (!k) {
                if (elsewhere)
                        return parse_error(p, "unknown key %s in [%s] (it belongs in [%s])",
                                           quote(q, key), p->section, elsewhere->section);
                return parse_error(p, "unknown key %s in [%s] (known: %s)", quote(q, key), p->section,
                                   list_keys(known, sizeof known, p->section));
        }
        if (p->set_on[k - keys] != 0)
                return parse_error(p, "duplicate key \"%s\" in [%s] (first set on line %u)",
                                   k->name, k->section, p->set_on[k - keys]);

        if (*value == '"') {
                r = unquote(p, value, &value);
                if (r < 0)
                        return r;
        }
        r = set_value(p->cfg, k, value, msg, sizeof msg);
        if (r < 0) {
                parse_error(p, "%s: %s", k->name, msg);
                return r;
        }
        p->set_on[k - keys] = p->line;
        return 0;
}

static int parse_line(struct parser *p, char *s) {
        s = strip(s);
        if (*s == '\0' || *s == '#' || *s == ';')
                return 0;
        if (*s == '[')
                return parse_section(p, s);
        return parse_assignment(p, s);
}

/* Walks text line by line with an explicit length, so that a NUL byte
 * read from a file is reported instead of silently ending the file. */
static int parse_text(struct config *cfg, const char *name, const char *text, size_t len,
                      char *err, size_t errlen) {
        struct parser p = { .cfg = cfg, .name = name, .err = err, .errlen = errlen };
        char buf[CONFIG_LINE_MAX + 1];
        size_t pos = 0;
        int r;

        if (len >= sizeof utf8_bom - 1 && memcmp(text, utf8_bom, sizeof utf8_bom - 1) == 0)
                pos = sizeof utf8_bom - 1;

        while (pos < len) {
                const char *start = text + pos;
                const char *nl = memchr(start, '\n', len - pos);
                size_t n = nl ? (size_t) (nl - start) : len - pos;

                pos += n + (nl ? 1 : 0);
                p.line++;
                if (n > 0 && start[n - 1] == '\r')
                        n--;
                if (n > CONFIG_LINE_MAX)
                        return parse_error(&p, "line is longer than %d bytes", CONFIG_LINE_MAX);
                if (memchr(start, '\0', n))
                        return parse_error(&p, "line contains a NUL byte (is this a text file?)");
                memcpy(buf, start, n);
                buf[n] = '\0';
                r = parse_line(&p, buf);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Reads the whole file (at most CONFIG_FILE_MAX bytes) so that the parser
 * sees an explicit length and can report NUL bytes. */
static int read_file(const char *path, char **ret_text, size_t *ret_len, char *err, size_t errlen) {
        char *text = NULL;
        size_t len = 0, cap = 0;
        FILE *f;
        int r = 0;

        f = fopen(path, "re");
        if (!f) {
                r = -errno;
                errbuf_set(err, errlen, "%s: cannot open: %s", path, strerror(-r));
                return r;
        }
        while (r == 0) {
                size_t got;

                if (len == cap) {
                        size_t ncap = cap == 0 ? 4 * KIB : 2 * cap;
                        char *n;

                        if (cap > CONFIG_FILE_MAX) {
                                r = -EFBIG;
                                break;
                        }
                        n = realloc(text, ncap);
                        if (!n) {
                                r = -ENOMEM;
                                break;
                        }
                        text = n;
                        cap = ncap;
                }
                got = fread(text + len, 1, cap - len, f);
                len += got;
                if (got == 0) {
                        if (ferror(f))
                                r = errno > 0 ? -errno : -EIO;
                        break;
                }
        }
        if (r == 0 && len > CONFIG_FILE_MAX)
                r = -EFBIG;
        fclose(f);

        if (r < 0) {
                free(text);
                if (r == -EFBIG)
                        errbuf_set(err, errlen, "%s: larger than %" PRIu64 " bytes; not a configuration file?",
                                  path, CONFIG_FILE_MAX);
                else
                        errbuf_set(err, errlen, "%s: cannot read: %s", path, strerror(-r));
                return r;
        }
        *ret_text = text;
        *ret_len = len;
        return 0;
}

/* Defaults go through the same setter as the file, so a default that its
 * own key would reject cannot slip in (test_defaults would fail). */
int config_defaults(struct config *cfg) {
        char msg[MSG_MAX];
        int r;

        memset(cfg, 0, sizeof *cfg);
        for (size_t i = 0; i < N_KEYS; i++) {
                r = set_value(cfg, &keys[i], keys[i].def, msg, sizeof msg);
                if (r < 0) {
                        config_done(cfg);
                        return r;
                }
        }
        return 0;
}

/* A set-but-empty variable counts as unset, so that scripts can pass
 * ARBITER_X="${X:-}" through without overriding the file. */
int config_apply_env(struct config *cfg, char *err, size_t errlen) {
        char msg[MSG_MAX];
        int r;

        for (size_t i = 0; i < N_KEYS; i++) {
                const struct key *k = &keys[i];
                const char *v;

                if (!k->env)
                        continue;
                v = getenv(k->env);
                if (!v || *v == '\0')
                        continue;
                if (strlen(v) > CONFIG_LINE_MAX) {
                        errbuf_set(err, errlen, "%s: value is longer than %d bytes",
                                  k->env, CONFIG_LINE_MAX);
                        return -EINVAL;
                }
                r = set_value(cfg, k, v, msg, sizeof msg);
                if (r < 0) {
                        errbuf_set(err, errlen, "%s: %s", k->env, msg);
                        return r;
                }
        }
        return 0;
}

/* Whether the blank-separated list holds the word w[0 .. n-1]. */
static bool word_in(const char *list, const char *w, size_t n) {
        for (const char *s = list ? list : ""; *s;) {
                s += strspn(s, " \t");
                size_t m = strcspn(s, " \t");
                if (m == 0)
                        break;
                if (m == n && strncmp(s, w, n) == 0)
                        return true;
                s += m;
        }
        return false;
}

/* Keys that bound each other, once every source is in; reported as
 * "NAME: message", since the two may come from different lines or from the
 * defaults. */
static int check_together(const struct config *cfg, const char *name, char *err, size_t errlen) {
        char q[QUOTE_BUF];

        if (!venue_id_valid(cfg->venue_id)) {
                errbuf_set(err, errlen, "%s: [venue] id %s is not a venue id (use " VENUE_ID_RULE
                           ", as \"north\")", name, quote(q, cfg->venue_id));
                return -EINVAL;
        }
        if (venue_name_chars(cfg->venue_name) > VENUE_NAME_MAX) {
                errbuf_set(err, errlen, "%s: [venue] name %s is longer than %d characters", name,
                           quote(q, cfg->venue_name), VENUE_NAME_MAX);
                return -EINVAL;
        }
        if (cfg->reserved_connections >= cfg->max_connections) {
                errbuf_set(err, errlen, "%s: [http] reserved_connections (%u) must be below max_connections (%u): "
                           "the difference is what every request and event stream shares",
                           name, cfg->reserved_connections, cfg->max_connections);
                return -EINVAL;
        }
        /* Every RS-485 bus is one of the ports. */
        for (const char *s = cfg->pad_rs485_ports ? cfg->pad_rs485_ports : ""; *s;) {
                s += strspn(s, " \t");
                size_t n = strcspn(s, " \t");
                if (n == 0)
                        break;
                if (!word_in(cfg->pad_ports, s, n)) {
                        char path[CONFIG_LINE_MAX + 1];
                        snprintf(path, sizeof path, "%.*s", (int) n, s);
                        errbuf_set(err, errlen, "%s: [pads] rs485_ports names %s, which is not in [pads] ports "
                                   "(an RS-485 bus is one of the ports: list it in both)", name, quote(q, path));
                        return -EINVAL;
                }
                s += n;
        }
        return 0;
}

/* Both entry points build into a private struct and hand it over only when
 * everything parsed, so a failed load leaves *cfg zeroed (config_done()
 * on it is a no-op) rather than half from the file and half defaults. */
static int load_text(struct config *cfg, const char *name, const char *text, size_t len,
                     bool env, char *err, size_t errlen) {
        struct config tmp;
        int r;

        memset(cfg, 0, sizeof *cfg);
        r = config_defaults(&tmp);
        if (r < 0) {
                errbuf_set(err, errlen, "%s: out of memory", name ? name : "defaults");
                return r;
        }
        if (text) {
                r = parse_text(&tmp, name, text, len, err, errlen);
                if (r < 0)
                        goto fail;
        }
        if (env) {
                r = config_apply_env(&tmp, err, errlen);
                if (r < 0)
                        goto fail;
        }
        r = check_together(&tmp, name ? name : "configuration", err, errlen);
        if (r < 0)
                goto fail;
        *cfg = tmp;
        return 0;

fail:
        config_done(&tmp);
        return r;
}

int config_load(struct config *cfg, const char *path, char *err, size_t errlen) {
        char *text = NULL;
        size_t len = 0;
        int r;

        if (path) {
                r = read_file(path, &text, &len, err, errlen);
                if (r < 0) {
                        memset(cfg, 0, sizeof *cfg);
                        return r;
                }
        }
        r = load_text(cfg, path, text ? text : "", len, true, err, errlen);
        free(text);
        return r;
}

int config_parse_string(struct config *cfg, const char *name, const char *text,
                        char *err, size_t errlen) {
        if (!text) {
                memset(cfg, 0, sizeof *cfg);
                errbuf_set(err, errlen, "%s: no text", name ? name : "(string)");
                return -EINVAL;
        }
        return load_text(cfg, name ? name : "(string)", text, strlen(text), false, err, errlen);
}

/* Leaves the struct zeroed, so a second config_done() is harmless. */
void config_done(struct config *cfg) {
        if (!cfg)
                return;
        for (size_t i = 0; i < N_KEYS; i++)
                if (keys[i].type == KEY_STRING || keys[i].type == KEY_LISTEN)
                        free(*(char **) field(cfg, &keys[i]));
        memset(cfg, 0, sizeof *cfg);
}

static bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

static bool key_equal(const struct key *k, const struct config *a, const struct config *b) {
        switch (k->type) {
        case KEY_LISTEN:
                return streq_ptr(a->listen_address, b->listen_address) &&
                       a->listen_port == b->listen_port;
        case KEY_STRING:
                return streq_ptr(*(char *const *) cfield(a, k), *(char *const *) cfield(b, k));
        case KEY_SIZE:
                return *(const size_t *) cfield(a, k) == *(const size_t *) cfield(b, k);
        case KEY_UINT:
                return *(const unsigned *) cfield(a, k) == *(const unsigned *) cfield(b, k);
        case KEY_BOOL:
                return *(const bool *) cfield(a, k) == *(const bool *) cfield(b, k);
        case KEY_DOUBLE: {
                double x = *(const double *) cfield(a, k), y = *(const double *) cfield(b, k);
                return x == y || (isnan(x) && isnan(y));
        }
        case KEY_BUS:
                return *(const enum config_bus *) cfield(a, k) ==
                       *(const enum config_bus *) cfield(b, k);
        case KEY_LOG_LEVEL:
                return *(const int *) cfield(a, k) == *(const int *) cfield(b, k);
        }
        return false;
}

static int key_copy(const struct key *k, struct config *dst, const struct config *src) {
        int r;

        switch (k->type) {
        case KEY_LISTEN:
                r = replace_string(&dst->listen_address, src->listen_address);
                if (r < 0)
                        return r;
                dst->listen_port = src->listen_port;
                return 0;
        case KEY_STRING:
                return replace_string(field(dst, k), *(char *const *) cfield(src, k));
        case KEY_SIZE:
                *(size_t *) field(dst, k) = *(const size_t *) cfield(src, k);
                return 0;
        case KEY_UINT:
                *(unsigned *) field(dst, k) = *(const unsigned *) cfield(src, k);
                return 0;
        case KEY_BOOL:
                *(bool *) field(dst, k) = *(const bool *) cfield(src, k);
                return 0;
        case KEY_DOUBLE:
                *(double *) field(dst, k) = *(const double *) cfield(src, k);
                return 0;
        case KEY_BUS:
                *(enum config_bus *) field(dst, k) = *(const enum config_bus *) cfield(src, k);
                return 0;
        case KEY_LOG_LEVEL:
                *(int *) field(dst, k) = *(const int *) cfield(src, k);
                return 0;
        }
        return -EINVAL;
}

/* The reload flag in keys[] is the one list of what SIGHUP may change;
 * everything else only takes effect after a restart, which the caller is
 * told about rather than half-applying (a new listen address would need
 * the socket re-bound, a new DSN a reconnect with in-flight queries). */
int config_reload_into(struct config *dst, const struct config *src, bool *ret_restart_needed) {
        bool restart = false;
        int changed = 0, r;

        for (size_t i = 0; i < N_KEYS; i++) {
                const struct key *k = &keys[i];

                if (key_equal(k, dst, src))
                        continue;
                if (!k->reload) {
                        restart = true;
                        continue;
                }
                r = key_copy(k, dst, src);
                if (r < 0)
                        return r;
                changed++;
        }
        if (ret_restart_needed)
                *ret_restart_needed = restart;
        return changed;
}

const char *config_bus_to_string(enum config_bus b) {
        for (size_t i = 0; i < ELEMENTSOF(bus_choices); i++)
                if (bus_choices[i].value == (int) b)
                        return bus_choices[i].name;
        return "unknown";
}

const char *config_venue_name(const struct config *cfg) {
        return cfg->venue_name && *cfg->venue_name ? cfg->venue_name : cfg->venue_id;
}
