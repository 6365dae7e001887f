/* daemon/config.h — arbiterd's configuration.
 *
 * An INI-style file (docs/arbiterd.conf.example documents every key):
 *
 *     # comment            ; comment
 *     [section]
 *     key = value          (whitespace around key and value is ignored;
 *                           a value may be "double quoted" to keep spaces)
 *
 * Unknown sections or keys, a line that is neither, a value of the wrong
 * type or out of range, and a key given twice in one section are errors,
 * reported as "FILE:LINE: message".  After the file, a few environment
 * variables override it (for tests and `make run`):
 *
 *     ARBITER_DSN         database.dsn
 *     ARBITER_REPLICA_DSN database.replica_dsn
 *     ARBITER_LISTEN      http.listen        (ADDRESS:PORT)
 *     ARBITER_BUS         dbus.bus           (system | session | none)
 *     ARBITER_MIGRATIONS  database.migrations
 *     ARBITER_SPOOL       database.spool
 *     ARBITER_WEB         http.web_root
 *     ARBITER_LOG_LEVEL   log.level
 *     ARBITER_PADS        pads.ports
 *     ARBITER_VENUE       venue.id
 *
 * an error there is reported as "NAME: message".
 *
 * Ownership: config_load() fills a struct config that owns its strings;
 * config_done() frees them (safe on a zeroed or half-filled struct).
 */
#ifndef ARBITER_DAEMON_CONFIG_H
#define ARBITER_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum config_bus {
        CONFIG_BUS_NONE,
        CONFIG_BUS_SESSION,
        CONFIG_BUS_SYSTEM,
};

struct config {
        /* [http] */
        char *listen_address;           /* listen = 127.0.0.1:8080 → "127.0.0.1"; [::1]:80 → "::1" */
        uint16_t listen_port;           /*                          → 8080 */
        size_t body_limit;              /* body_limit = 1M   (bytes; K/M suffixes, 1..64M) */
        unsigned max_connections;       /* max_connections = 4096 (2..65536): every connection, streams too */
        unsigned reserved_connections;  /* reserved_connections = 64 (1..65535, below max_connections):
                                         * kept for health checks, referees and admins */
        unsigned max_connections_per_ip;/* max_connections_per_ip = 1024 (1..65536): requests and streams */
        unsigned pending_per_ip;        /* pending_per_ip = 32 (1..65536): connections before their request */
        unsigned request_timeout_s;     /* request_timeout = 10 (seconds, 1..3600): headers and body, in total */
        unsigned connection_timeout_s;  /* connection_timeout = 30 (seconds, 1..3600) */
        size_t connection_memory;       /* connection_memory = 8K (bytes, 8K..16M) */
        bool open_reads;                /* open_reads = yes: GETs need no token */
        char *web_root;                 /* web_root = ARBITER_DATADIR/web */
        unsigned sse_heartbeat_ms;      /* sse_heartbeat = 15000 (ms, 100..300000): comment on idle event streams */
        unsigned sse_max_streams;       /* sse_max_streams = 3072 (1..65536): event streams open at once */

        /* [database] */
        char *dsn;                      /* dsn = "dbname=arbiter" (libpq conninfo or URI) */
        unsigned statement_timeout_ms;  /* statement_timeout = 5000 (ms, 100..600000) */
        unsigned reconnect_max_s;       /* reconnect_max = 2 (s, 1..3600): back-off ceiling */
        unsigned queue_limit;           /* queue_limit = 256 (1..65535): REST queries waiting */
        char *migrations_dir;           /* migrations = ARBITER_DATADIR/migrations */
        char *spool_path;               /* spool = /var/lib/arbiter/spool: inputs while the database is away */
        char *replica_dsn;              /* replica_dsn = "" (none): a streaming replica for reads that may lag */
        unsigned replica_max_lag_ms;    /* replica_max_lag = 5000 (ms, 0..3600000): further behind, the primary */

        /* [venue] (docs/operations.md, "Several venues") */
        char *venue_id;                 /* id = main: ^[a-z0-9][a-z0-9_-]{0,31}$, the venue this daemon runs */
        char *venue_name;               /* name = (1..64 characters; "": the id) — config_venue_name() */

        /* [dbus] */
        enum config_bus bus;            /* bus = system | session | none */

        /* [log] */
        int log_level;                  /* level = error|warning|notice|info|debug (LOG_*) */

        /* [pads] */
        char *pad_ports;                /* ports = /dev/serial/by-id/a /dev/ttyUSB1 (spaces between; "" none) */
        char *pad_rs485_ports;          /* rs485_ports = those of ports that are RS-485 buses ("" none) */
        unsigned pad_rs485_reply_margin_us; /* rs485_reply_margin = 3000 (µs, 500..100000): a turn's
                                             * answer may come this long past the air times */
        unsigned pad_baud;              /* baud = 115200 (9600..4000000; a termios speed) */
        unsigned pad_heartbeat_timeout_ms; /* heartbeat_timeout = 3000 (ms, 100..60000): silent pad → gone */
        unsigned pad_sync_interval_ms;  /* sync_interval = 1000 (ms, 50..60000): SYNC per pad */
        unsigned pad_settle_us;         /* settle_window = 2000 (µs, 0..1000000): press reordering */
        unsigned pad_reopen_ms;         /* reopen_interval = 2000 (ms, 100..60000): vanished port retry */
        bool pad_pty_wire_time;         /* pty_wire_time = no: a pty counts baud's air time (an emulated line) */

        /* [ratings]: NAN for the authors' published value (docs/ratings.md) */
        double rating_os_mu;            /* openskill_mu = (25) */
        double rating_os_sigma;         /* openskill_sigma = (25/3) */
        double rating_os_beta;          /* openskill_beta = (25/6) */
        double rating_os_tau;           /* openskill_tau = (25/300) */
        double rating_g2_rating;        /* glicko2_rating = (1500) */
        double rating_g2_rd;            /* glicko2_rd = (350) */
        double rating_g2_volatility;    /* glicko2_volatility = (0.06) */
        double rating_g2_tau;           /* glicko2_tau = (0.5; 0.3..1.2) */
        unsigned rating_provisional_games;      /* provisional_games = 5: provisional below this many */

        /* [daemon] */
        unsigned housekeeping_ms;       /* housekeeping_interval = 1000 (ms, 10..60000) */
        unsigned shutdown_timeout_s;    /* shutdown_timeout = 10 (s, 1..300): graceful stop bound */
};

/* Fills *cfg with the built-in defaults (owned strings). */
int config_defaults(struct config *cfg);

/* Defaults, then the file (when path is not NULL), then the environment.
 * On failure returns -EINVAL (or -ENOENT/-EACCES/-ENOMEM) and writes a
 * one-line message ("FILE:LINE: …" or "NAME: …") into err; *cfg is then
 * left zeroed.  *cfg must not own strings on entry (it is overwritten). */
int config_load(struct config *cfg, const char *path, char *err, size_t errlen);

/* Defaults, then the file's text (no environment); name is used in
 * messages.  Same failure contract as config_load().  For tests. */
int config_parse_string(struct config *cfg, const char *name, const char *text,
                        char *err, size_t errlen);

/* Applies the ARBITER_* environment overrides. */
int config_apply_env(struct config *cfg, char *err, size_t errlen);

void config_done(struct config *cfg);

/* The keys SIGHUP may change without a restart: log.level, http.open_reads,
 * http.body_limit, database.statement_timeout.  Copies them from src into
 * dst and returns how many changed; *ret_restart_needed is set when any
 * other key differs (the caller logs that a restart is needed). */
int config_reload_into(struct config *dst, const struct config *src, bool *ret_restart_needed);

const char *config_bus_to_string(enum config_bus b);

/* The venue's name: [venue] name, or its id when that is empty. */
const char *config_venue_name(const struct config *cfg);

#endif
