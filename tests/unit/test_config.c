/* tests/unit/test_config.c — daemon/config.c: defaults, the file syntax,
 * every class of error with its "FILE:LINE: " prefix, ranges, sizes,
 * listen addresses, environment overrides, reload, and the shipped example.
 *
 * Run from the repository root (the example file is found relative to it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/config.h"

#ifndef ARBITER_DATADIR
#define ARBITER_DATADIR "/usr/local/share/arbiter"
#endif

#ifndef ARBITER_EXAMPLE_CONF
#define ARBITER_EXAMPLE_CONF "docs/arbiterd.conf.example"
#endif

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* The parser's documented line limit (config.c CONFIG_LINE_MAX). */
#define LINE_MAX_BYTES 4096

#define ERR_MAX 1024

static const char *const env_names[] = {
        "ARBITER_DSN", "ARBITER_LISTEN", "ARBITER_BUS",
        "ARBITER_MIGRATIONS", "ARBITER_WEB", "ARBITER_LOG_LEVEL",
        "ARBITER_SPOOL", "ARBITER_REPLICA_DSN", "ARBITER_VENUE",
};

/* The developer's shell (or `make run`) may export ARBITER_*; every test
 * starts without them. */
static int clear_env(void **state) {
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(env_names); i++)
                unsetenv(env_names[i]);
        return 0;
}

static void assert_zeroed(const struct config *cfg) {
        static const struct config zero;
        assert_memory_equal(cfg, &zero, sizeof zero);
}

static void assert_config_equal(const struct config *a, const struct config *b) {
        assert_string_equal(a->listen_address, b->listen_address);
        assert_int_equal(a->listen_port, b->listen_port);
        assert_int_equal(a->body_limit, b->body_limit);
        assert_int_equal(a->max_connections, b->max_connections);
        assert_int_equal(a->reserved_connections, b->reserved_connections);
        assert_int_equal(a->max_connections_per_ip, b->max_connections_per_ip);
        assert_int_equal(a->pending_per_ip, b->pending_per_ip);
        assert_int_equal(a->request_timeout_s, b->request_timeout_s);
        assert_int_equal(a->connection_timeout_s, b->connection_timeout_s);
        assert_int_equal(a->connection_memory, b->connection_memory);
        assert_int_equal(a->open_reads, b->open_reads);
        assert_string_equal(a->web_root, b->web_root);
        assert_int_equal(a->sse_heartbeat_ms, b->sse_heartbeat_ms);
        assert_int_equal(a->sse_max_streams, b->sse_max_streams);
        assert_string_equal(a->dsn, b->dsn);
        assert_int_equal(a->statement_timeout_ms, b->statement_timeout_ms);
        assert_int_equal(a->reconnect_max_s, b->reconnect_max_s);
        assert_string_equal(a->migrations_dir, b->migrations_dir);
        assert_string_equal(a->spool_path, b->spool_path);
        assert_string_equal(a->replica_dsn, b->replica_dsn);
        assert_int_equal(a->replica_max_lag_ms, b->replica_max_lag_ms);
        assert_string_equal(a->venue_id, b->venue_id);
        assert_string_equal(a->venue_name, b->venue_name);
        assert_int_equal(a->bus, b->bus);
        assert_int_equal(a->log_level, b->log_level);
        assert_string_equal(a->pad_ports, b->pad_ports);
        assert_int_equal(a->pad_baud, b->pad_baud);
        assert_int_equal(a->pad_heartbeat_timeout_ms, b->pad_heartbeat_timeout_ms);
        assert_int_equal(a->pad_sync_interval_ms, b->pad_sync_interval_ms);
        assert_int_equal(a->pad_settle_us, b->pad_settle_us);
        assert_int_equal(a->pad_reopen_ms, b->pad_reopen_ms);
        assert_int_equal(a->pad_pty_wire_time, b->pad_pty_wire_time);
        assert_string_equal(a->pad_rs485_ports, b->pad_rs485_ports);
        assert_int_equal(a->pad_rs485_reply_margin_us, b->pad_rs485_reply_margin_us);
        assert_int_equal(a->housekeeping_ms, b->housekeeping_ms);
        assert_int_equal(a->shutdown_timeout_s, b->shutdown_timeout_s);
}

static void parse_ok(struct config *cfg, const char *text) {
        char err[ERR_MAX] = "";
        int r = config_parse_string(cfg, "t.conf", text, err, sizeof err);

        if (r != 0)
                fail_msg("parse of %s failed (%d): %s", text, r, err);
}

/* The error must start with prefix ("t.conf:LINE: " or "NAME: ") and
 * contain phrase; a failure prints the whole message. */
static void assert_error(const char *err, const char *prefix, const char *phrase) {
        if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, phrase))
                fail_msg("expected prefix \"%s\" and phrase \"%s\", got \"%s\"", prefix, phrase, err);
}

static void parse_fails(const char *text, const char *prefix, const char *phrase) {
        struct config cfg;
        char err[ERR_MAX] = "";
        int r = config_parse_string(&cfg, "t.conf", text, err, sizeof err);

        if (r != -EINVAL)
                fail_msg("parse of \"%s\" returned %d, expected -EINVAL (err \"%s\")", text, r, err);
        assert_error(err, prefix, phrase);
        assert_zeroed(&cfg);
        config_done(&cfg);
}

static char *write_temp(const void *data, size_t len) {
        char *path = strdup("/tmp/test_config.XXXXXX");
        int fd;

        assert_non_null(path);
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t) len);
        close(fd);
        return path;
}

static void test_defaults(void **state) {
        struct config cfg, loaded;
        char err[ERR_MAX] = "";

        (void) state;
        assert_int_equal(config_defaults(&cfg), 0);
        assert_string_equal(cfg.listen_address, "127.0.0.1");
        assert_int_equal(cfg.listen_port, 8080);
        assert_int_equal(cfg.body_limit, 1024 * 1024);
        assert_int_equal(cfg.max_connections, 4096);
        assert_int_equal(cfg.reserved_connections, 64);
        assert_int_equal(cfg.max_connections_per_ip, 1024);
        assert_int_equal(cfg.pending_per_ip, 32);
        assert_int_equal(cfg.request_timeout_s, 10);
        assert_int_equal(cfg.connection_timeout_s, 30);
        assert_int_equal(cfg.connection_memory, 8 * 1024);
        assert_true(cfg.open_reads);
        assert_string_equal(cfg.web_root, ARBITER_DATADIR "/web");
        assert_int_equal(cfg.sse_heartbeat_ms, 15000);
        assert_int_equal(cfg.sse_max_streams, 3072);
        assert_string_equal(cfg.dsn, "dbname=arbiter");
        assert_int_equal(cfg.statement_timeout_ms, 5000);
        assert_int_equal(cfg.reconnect_max_s, 2);
        assert_string_equal(cfg.migrations_dir, ARBITER_DATADIR "/migrations");
        assert_string_equal(cfg.spool_path, "/var/lib/arbiter/spool");
        assert_string_equal(cfg.replica_dsn, "");
        assert_int_equal(cfg.replica_max_lag_ms, 5000);
        assert_int_equal(cfg.bus, CONFIG_BUS_SYSTEM);
        assert_int_equal(cfg.log_level, LOG_INFO);
        assert_int_equal(cfg.housekeeping_ms, 1000);
        assert_int_equal(cfg.shutdown_timeout_s, 10);

        /* No file, no environment: the same. */
        assert_int_equal(config_load(&loaded, NULL, err, sizeof err), 0);
        assert_config_equal(&cfg, &loaded);
        config_done(&loaded);

        /* An empty file too. */
        parse_ok(&loaded, "");
        assert_config_equal(&cfg, &loaded);
        config_done(&loaded);

        config_done(&cfg);
        assert_zeroed(&cfg);
        config_done(&cfg);
        config_done(NULL);
}

static void test_full_file(void **state) {
        struct config cfg;

        (void) state;
        parse_ok(&cfg,
                 "[http]\n"
                 "listen = 192.168.1.10:9090\n"
                 "body_limit = 2M\n"
                 "max_connections = 1000\n"
                 "max_connections_per_ip = 8\n"
                 "connection_timeout = 120\n"
                 "connection_memory = 128K\n"
                 "open_reads = no\n"
                 "web_root = /srv/arbiter/web\n"
                 "sse_heartbeat = 500\n"
                 "sse_max_streams = 16\n"
                 "[database]\n"
                 "dsn = host=db.local dbname=t user=arbiter\n"
                 "statement_timeout = 250\n"
                 "reconnect_max = 60\n"
                 "migrations = /srv/arbiter/migrations\n"
                 "spool = /srv/arbiter/spool\n"
                 "replica_dsn = host=replica.local dbname=t user=arbiter\n"
                 "replica_max_lag = 250\n"
                 "[dbus]\n"
                 "bus = session\n"
                 "[log]\n"
                 "level = debug\n"
                 "[daemon]\n"
                 "housekeeping_interval = 50\n"
                 "shutdown_timeout = 20\n");
        assert_string_equal(cfg.listen_address, "192.168.1.10");
        assert_int_equal(cfg.listen_port, 9090);
        assert_int_equal(cfg.body_limit, 2 * 1024 * 1024);
        assert_int_equal(cfg.max_connections, 1000);
        assert_int_equal(cfg.max_connections_per_ip, 8);
        assert_int_equal(cfg.connection_timeout_s, 120);
        assert_int_equal(cfg.connection_memory, 128 * 1024);
        assert_false(cfg.open_reads);
        assert_string_equal(cfg.web_root, "/srv/arbiter/web");
        assert_int_equal(cfg.sse_heartbeat_ms, 500);
        assert_int_equal(cfg.sse_max_streams, 16);
        assert_string_equal(cfg.dsn, "host=db.local dbname=t user=arbiter");
        assert_int_equal(cfg.statement_timeout_ms, 250);
        assert_int_equal(cfg.reconnect_max_s, 60);
        assert_string_equal(cfg.migrations_dir, "/srv/arbiter/migrations");
        assert_string_equal(cfg.spool_path, "/srv/arbiter/spool");
        assert_string_equal(cfg.replica_dsn, "host=replica.local dbname=t user=arbiter");
        assert_int_equal(cfg.replica_max_lag_ms, 250);
        assert_int_equal(cfg.bus, CONFIG_BUS_SESSION);
        assert_int_equal(cfg.log_level, LOG_DEBUG);
        assert_int_equal(cfg.housekeeping_ms, 50);
        assert_int_equal(cfg.shutdown_timeout_s, 20);
        config_done(&cfg);
}

static void test_comments_and_blanks(void **state) {
        struct config cfg;

        (void) state;
        parse_ok(&cfg,
                 "\xEF\xBB\xBF# a byte-order mark, then a comment\n"
                 "; another comment\n"
                 "\n"
                 "   \t \n"
                 "   # indented comment\n"
                 "[ http ]\n"
                 "\tlisten=10.0.0.1:81\n"
                 "   body_limit   =   4K   \n"
                 "[log]\n"
                 "# the same section twice is fine, the same key twice is not\n"
                 "[http]\n"
                 "open_reads\t=\toff\n"
                 "[log]\n"
                 "level = Warning\n");
        assert_string_equal(cfg.listen_address, "10.0.0.1");
        assert_int_equal(cfg.listen_port, 81);
        assert_int_equal(cfg.body_limit, 4096);
        assert_false(cfg.open_reads);
        assert_int_equal(cfg.log_level, LOG_WARNING);
        assert_int_equal(cfg.max_connections, 4096);
        config_done(&cfg);
}

static void test_quoted_values(void **state) {
        static const struct {
                const char *line;
                const char *dsn;
        } cases[] = {
                { "dsn = \"host=a  dbname=b\"", "host=a  dbname=b" },
                { "dsn = \"  padded  \"", "  padded  " },
                { "dsn = \"\"", "" },
                { "dsn =", "" },
                { "dsn = \"a\\\"b\"", "a\"b" },
                { "dsn = \"a\\\\b\"", "a\\b" },
                { "dsn = \"x\" \t ", "x" },
                { "dsn = \"has # hash ; and semicolon\"", "has # hash ; and semicolon" },
                { "dsn = pass#word", "pass#word" },
                { "dsn = a \"b\" c", "a \"b\" c" },
                { "dsn = postgresql://u@h/db?sslmode=require", "postgresql://u@h/db?sslmode=require" },
                { "dsn = \"\xc3\xa9t\xc3\xa9\"", "\xc3\xa9t\xc3\xa9" },
        };
        struct config cfg;
        char text[256];

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(text, sizeof text, "[database]\n%s\n", cases[i].line);
                parse_ok(&cfg, text);
                assert_string_equal(cfg.dsn, cases[i].dsn);
                config_done(&cfg);
        }

        parse_ok(&cfg, "[http]\nbody_limit = \"2M\"\nopen_reads = \"no\"\n");
        assert_int_equal(cfg.body_limit, 2 * 1024 * 1024);
        assert_false(cfg.open_reads);
        config_done(&cfg);
}

static void test_crlf(void **state) {
        struct config cfg;

        (void) state;
        parse_ok(&cfg, "[http]\r\nlisten = 10.0.0.1:80\r\n\r\n# c\r\n[database]\r\n"
                       "dsn = \"a b\"\r\n[log]\r\nlevel = debug\r\n");
        assert_string_equal(cfg.listen_address, "10.0.0.1");
        assert_int_equal(cfg.listen_port, 80);
        assert_string_equal(cfg.dsn, "a b");
        assert_int_equal(cfg.log_level, LOG_DEBUG);
        config_done(&cfg);

        parse_ok(&cfg, "[log]\r\nlevel = debug");
        assert_int_equal(cfg.log_level, LOG_DEBUG);
        config_done(&cfg);

        parse_ok(&cfg, "[log]\nlevel = notice\r");
        assert_int_equal(cfg.log_level, LOG_NOTICE);
        config_done(&cfg);

        /* Line numbers count CRLF lines like LF lines. */
        parse_fails("[http]\r\n\r\nbodylimit = 1\r\n", "t.conf:3: ", "unknown key \"bodylimit\"");
        /* A lone CR inside a line is not a line end. */
        parse_fails("[http]\nweb_root = /a\rb\n", "t.conf:2: ", "control character");
}

static const struct bad_case {
        const char *text;
        const char *prefix;
        const char *phrase;
} bad_cases[] = {
        /* unknown key, with the known ones listed */
        { "[http]\nlisten = 127.0.0.1:1\nbodylimit = 1M\n", "t.conf:3: ",
          "unknown key \"bodylimit\" in [http] (known: listen, body_limit, max_connections, "
          "reserved_connections, max_connections_per_ip, pending_per_ip, request_timeout, "
          "connection_timeout, connection_memory, open_reads, web_root, sse_heartbeat, sse_max_streams)" },
        { "[http]\ndsn = x\n", "t.conf:2: ", "unknown key \"dsn\" in [http] (it belongs in [database])" },
        { "[log]\nLevel = info\n", "t.conf:2: ", "unknown key \"Level\" in [log] (known: level)" },
        { "[http]\n\x01key = 1\n", "t.conf:2: ", "unknown key \"\\x01key\"" },
        /* unknown or malformed section */
        { "[htp]\n", "t.conf:1: ",
          "unknown section \"htp\" (known: [http], [database], [venue], [dbus], [log], [pads], [ratings], [daemon])" },
        { "[]\n", "t.conf:1: ", "unknown section \"\"" },
        { "[[http]]\n", "t.conf:1: ", "text after \"]\"" },
        { "[http\n", "t.conf:1: ", "unterminated section header" },
        { "[http] # comment\n", "t.conf:1: ", "text after \"]\" in a section header" },
        /* neither a section nor an assignment */
        { "# c\n[http]\nlisten\n", "t.conf:3: ", "line is neither \"[section]\" nor \"key = value\"" },
        { "[http]\n= 5\n", "t.conf:2: ", "\"=\" without a key" },
        /* duplicate, also across two blocks of one section */
        { "[http]\nlisten = 127.0.0.1:1\n[log]\nlevel = info\n[http]\nlisten = 127.0.0.1:2\n",
          "t.conf:6: ", "duplicate key \"listen\" in [http] (first set on line 2)" },
        { "[log]\nlevel = info\nlevel = info\n", "t.conf:3: ", "duplicate key \"level\" in [log] (first set on line 2)" },
        /* quoting */
        { "[database]\ndsn = \"abc\n", "t.conf:2: ", "unterminated quoted value" },
        { "[database]\ndsn = \"abc\\\n", "t.conf:2: ", "unterminated quoted value" },
        { "[database]\ndsn = \"\n", "t.conf:2: ", "unterminated quoted value" },
        { "[database]\ndsn = \"a\\nb\"\n", "t.conf:2: ",
          "unknown escape \"\\n\" in a quoted value (use \\\" or \\\\)" },
        { "[database]\ndsn = \"a\\ b\"\n", "t.conf:2: ", "backslash before byte 0x20" },
        { "[database]\ndsn = \"a\\\tb\"\n", "t.conf:2: ", "backslash before byte 0x09" },
        { "[database]\ndsn = \"a\" b\n", "t.conf:2: ", "text after the closing quote" },
        { "[database]\ndsn = \"a\" # c\n", "t.conf:2: ", "text after the closing quote" },
        /* outside any section */
        { "listen = 1.2.3.4:5\n", "t.conf:1: ", "key \"listen\" is outside any section (it belongs in [http])" },
        { "\n\nfoo = 1\n", "t.conf:3: ", "key \"foo\" is outside any section (known sections: [http]" },
        /* empty values */
        { "[http]\nweb_root =\n", "t.conf:2: ", "web_root: empty value (use a directory path)" },
        { "[http]\nweb_root = \"\"\n", "t.conf:2: ", "web_root: empty value" },
        { "[http]\nmax_connections = \n", "t.conf:2: ",
          "max_connections: empty value (use a whole number, 2 to 65536)" },
        /* keys that bound each other */
        { "[http]\nmax_connections = 100\nreserved_connections = 100\n", "t.conf: ",
          "reserved_connections (100) must be below max_connections (100)" },
        { "[http]\nlisten =\n", "t.conf:2: ", "listen: empty value (use IPv4:PORT or [IPv6]:PORT" },
        { "[dbus]\nbus =\n", "t.conf:2: ", "bus: empty value (use system, session or none)" },
        /* wrong type */
        { "# c\n[http]\nbody_limit = 12Q\n", "t.conf:3: ",
          "body_limit: \"12Q\" is not a size (use bytes or a K/M suffix, 1 to 64M)" },
        { "[http]\nopen_reads = maybe\n", "t.conf:2: ",
          "open_reads: \"maybe\" is not a boolean (use yes/no, true/false, on/off or 1/0)" },
        { "[dbus]\nbus = sys\n", "t.conf:2: ", "bus: \"sys\" is not a bus (use system, session or none)" },
        { "[log]\nlevel = warn\n", "t.conf:2: ",
          "level: \"warn\" is not a log level (use error, warning, notice, info or debug)" },
        { "[log]\nlevel = crit\n", "t.conf:2: ", "is not a log level" },
        { "[daemon]\nshutdown_timeout = 10s\n", "t.conf:2: ",
          "shutdown_timeout: \"10s\" is not a whole number (use a whole number of seconds, 1 to 300)" },
        { "[daemon]\nhousekeeping_interval = -5\n", "t.conf:2: ",
          "housekeeping_interval: \"-5\" is not a whole number (use a whole number of milliseconds, 10 to 60000)" },
        { "[http]\nweb_root = /a\x01" "b\n", "t.conf:2: ", "web_root: \"/a\\x01b\" contains a control character" },
        { "[http]\nweb_root = /a\x7f" "b\n", "t.conf:2: ", "contains a control character" },
        /* trailing comments are part of the value, and then wrong */
        { "[http]\nbody_limit = 1M # one megabyte\n", "t.conf:2: ", "\"1M # one megabyte\" is not a size" },
        /* long values are cut short in messages */
        { "[http]\nbody_limit = 0123456789012345678901234567890123456789012345678901234567890123456789x\n",
          "t.conf:2: ", "body_limit: \"012345678901234567890123456789012345678901234567...\" is not a size" },
        /* the first error wins */
        { "[http]\nbodylimit = 1\nfoo = 2\n", "t.conf:2: ", "unknown key \"bodylimit\"" },
};

static void test_bad_lines(void **state) {
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad_cases); i++)
                parse_fails(bad_cases[i].text, bad_cases[i].prefix, bad_cases[i].phrase);
}

/* Builds "[http]\nweb_root = /aaa…" whose second line is exactly n bytes,
 * followed by terminator. */
static char *long_line(size_t n, const char *terminator) {
        static const char head[] = "[http]\nweb_root = /";
        size_t fill = n - (sizeof head - 1 - strlen("[http]\n"));
        size_t len = sizeof head - 1 + fill + strlen(terminator);
        char *s = malloc(len + 1);

        assert_non_null(s);
        memcpy(s, head, sizeof head - 1);
        memset(s + sizeof head - 1, 'a', fill);
        strcpy(s + sizeof head - 1 + fill, terminator);
        return s;
}

static void test_line_length(void **state) {
        struct config cfg;
        char *s;

        (void) state;
        s = long_line(LINE_MAX_BYTES, "\n");
        parse_ok(&cfg, s);
        assert_int_equal(strlen(cfg.web_root), LINE_MAX_BYTES - strlen("web_root = "));
        config_done(&cfg);
        free(s);

        /* The CR of CRLF is not counted, nor is a missing final newline. */
        s = long_line(LINE_MAX_BYTES, "\r\n");
        parse_ok(&cfg, s);
        config_done(&cfg);
        free(s);
        s = long_line(LINE_MAX_BYTES, "");
        parse_ok(&cfg, s);
        config_done(&cfg);
        free(s);

        s = long_line(LINE_MAX_BYTES + 1, "\n");
        parse_fails(s, "t.conf:2: ", "line is longer than 4096 bytes");
        free(s);

        s = long_line(1024 * 1024, "");
        parse_fails(s, "t.conf:2: ", "line is longer than 4096 bytes");
        free(s);
}

static const struct range_case {
        const char *section;
        const char *key;
        const char *value;
        bool ok;
        uint64_t want;
} range_cases[] = {
        { "http", "body_limit", "1", true, 1 },
        { "http", "body_limit", "64M", true, 64 * 1024 * 1024 },
        { "http", "body_limit", "67108864", true, 64 * 1024 * 1024 },
        { "http", "body_limit", "0", false, 0 },
        { "http", "body_limit", "0K", false, 0 },
        { "http", "body_limit", "67108865", false, 0 },
        { "http", "body_limit", "65M", false, 0 },
        { "http", "body_limit", "99999999999999999999999M", false, 0 },
        { "http", "body_limit", "17592186044416M", false, 0 },  /* 2^44 M = 2^64 bytes */
        /* the smallest above the default reserved_connections (64) */
        { "http", "max_connections", "65", true, 65 },
        { "http", "max_connections", "65536", true, 65536 },
        { "http", "max_connections", "1", false, 0 },
        { "http", "max_connections", "0", false, 0 },
        { "http", "max_connections", "65537", false, 0 },
        { "http", "max_connections", "4294967297", false, 0 },  /* 2^32 + 1 must not wrap to 1 */
        { "http", "max_connections", "18446744073709551617", false, 0 },
        { "http", "max_connections", "0100", true, 100 },
        /* below the default max_connections (4096) */
        { "http", "reserved_connections", "1", true, 1 },
        { "http", "reserved_connections", "4095", true, 4095 },
        { "http", "reserved_connections", "0", false, 0 },
        { "http", "reserved_connections", "65536", false, 0 },
        { "http", "max_connections_per_ip", "1", true, 1 },
        { "http", "max_connections_per_ip", "65536", true, 65536 },
        { "http", "max_connections_per_ip", "0", false, 0 },
        { "http", "max_connections_per_ip", "65537", false, 0 },
        { "http", "pending_per_ip", "1", true, 1 },
        { "http", "pending_per_ip", "65536", true, 65536 },
        { "http", "pending_per_ip", "0", false, 0 },
        { "http", "pending_per_ip", "65537", false, 0 },
        { "http", "request_timeout", "1", true, 1 },
        { "http", "request_timeout", "3600", true, 3600 },
        { "http", "request_timeout", "0", false, 0 },
        { "http", "request_timeout", "3601", false, 0 },
        { "http", "connection_timeout", "1", true, 1 },
        { "http", "connection_timeout", "3600", true, 3600 },
        { "http", "connection_timeout", "0", false, 0 },
        { "http", "connection_timeout", "3601", false, 0 },
        { "http", "connection_memory", "8K", true, 8192 },
        { "http", "connection_memory", "8192", true, 8192 },
        { "http", "connection_memory", "16M", true, 16 * 1024 * 1024 },
        { "http", "connection_memory", "8191", false, 0 },
        { "http", "connection_memory", "7K", false, 0 },
        { "http", "connection_memory", "16777217", false, 0 },
        { "http", "connection_memory", "17M", false, 0 },
        { "http", "sse_heartbeat", "100", true, 100 },
        { "http", "sse_heartbeat", "300000", true, 300000 },
        { "http", "sse_heartbeat", "99", false, 0 },
        { "http", "sse_heartbeat", "300001", false, 0 },
        { "http", "sse_max_streams", "1", true, 1 },
        { "http", "sse_max_streams", "65536", true, 65536 },
        { "http", "sse_max_streams", "0", false, 0 },
        { "http", "sse_max_streams", "65537", false, 0 },
        { "database", "statement_timeout", "100", true, 100 },
        { "database", "statement_timeout", "600000", true, 600000 },
        { "database", "statement_timeout", "99", false, 0 },
        { "database", "statement_timeout", "600001", false, 0 },
        { "database", "reconnect_max", "1", true, 1 },
        { "database", "reconnect_max", "3600", true, 3600 },
        { "database", "reconnect_max", "0", false, 0 },
        { "database", "reconnect_max", "3601", false, 0 },
        { "database", "replica_max_lag", "0", true, 0 },
        { "database", "replica_max_lag", "3600000", true, 3600000 },
        { "database", "replica_max_lag", "3600001", false, 0 },
        { "daemon", "housekeeping_interval", "10", true, 10 },
        { "daemon", "housekeeping_interval", "60000", true, 60000 },
        { "daemon", "housekeeping_interval", "9", false, 0 },
        { "daemon", "housekeeping_interval", "60001", false, 0 },
        { "daemon", "shutdown_timeout", "1", true, 1 },
        { "daemon", "shutdown_timeout", "300", true, 300 },
        { "daemon", "shutdown_timeout", "0", false, 0 },
        { "daemon", "shutdown_timeout", "301", false, 0 },
};

static uint64_t number_of(const struct config *cfg, const char *key) {
        static const struct {
                const char *key;
                size_t offset;
                bool is_size;
        } fields[] = {
                { "body_limit", offsetof(struct config, body_limit), true },
                { "max_connections", offsetof(struct config, max_connections), false },
                { "reserved_connections", offsetof(struct config, reserved_connections), false },
                { "max_connections_per_ip", offsetof(struct config, max_connections_per_ip), false },
                { "pending_per_ip", offsetof(struct config, pending_per_ip), false },
                { "request_timeout", offsetof(struct config, request_timeout_s), false },
                { "connection_timeout", offsetof(struct config, connection_timeout_s), false },
                { "connection_memory", offsetof(struct config, connection_memory), true },
                { "sse_heartbeat", offsetof(struct config, sse_heartbeat_ms), false },
                { "sse_max_streams", offsetof(struct config, sse_max_streams), false },
                { "statement_timeout", offsetof(struct config, statement_timeout_ms), false },
                { "reconnect_max", offsetof(struct config, reconnect_max_s), false },
                { "replica_max_lag", offsetof(struct config, replica_max_lag_ms), false },
                { "housekeeping_interval", offsetof(struct config, housekeeping_ms), false },
                { "shutdown_timeout", offsetof(struct config, shutdown_timeout_s), false },
        };
        const char *base = (const char *) cfg;

        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                if (strcmp(fields[i].key, key) == 0)
                        return fields[i].is_size ? *(const size_t *) (base + fields[i].offset)
                                                 : *(const unsigned *) (base + fields[i].offset);
        fail_msg("no field for %s", key);
        return 0;
}

static void test_ranges(void **state) {
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(range_cases); i++) {
                const struct range_case *c = &range_cases[i];
                struct config cfg;
                char text[256], phrase[128];

                snprintf(text, sizeof text, "[%s]\n%s = %s\n", c->section, c->key, c->value);
                if (c->ok) {
                        parse_ok(&cfg, text);
                        assert_int_equal(number_of(&cfg, c->key), c->want);
                        config_done(&cfg);
                } else {
                        snprintf(phrase, sizeof phrase, "%s: \"%s\" is out of range (use ", c->key, c->value);
                        parse_fails(text, "t.conf:2: ", phrase);
                }
        }
}

/* [ratings]: a number in range, or nothing for the published value. */
static void test_rating_parameters(void **state) {
        struct config cfg;
        (void) state;

        parse_ok(&cfg, "[ratings]\nopenskill_mu = 1500\nglicko2_tau = 0.75\nopenskill_sigma =\n");
        assert_true(cfg.rating_os_mu == 1500.0);
        assert_true(cfg.rating_g2_tau == 0.75);
        assert_true(isnan(cfg.rating_os_sigma));
        assert_true(isnan(cfg.rating_g2_rd));
        assert_int_equal(cfg.rating_provisional_games, 5);
        config_done(&cfg);
        parse_fails("[ratings]\nglicko2_tau = 2\n", "t.conf:2: ", "glicko2_tau: \"2\" is out of range (use a number 0.3 to 1.2");
        parse_fails("[ratings]\nopenskill_beta = much\n", "t.conf:2: ", "openskill_beta: \"much\" is not a number");
        parse_fails("[ratings]\nopenskill_sigma = nan\n", "t.conf:2: ", "openskill_sigma: \"nan\" is not a number");
}

static void test_sizes(void **state) {
        static const struct {
                const char *value;
                size_t want;            /* 0: "is not a size" */
        } cases[] = {
                { "1024", 1024 },
                { "1K", 1024 },
                { "1k", 1024 },
                { "512K", 512 * 1024 },
                { "2m", 2 * 1024 * 1024 },
                { "64M", 64 * 1024 * 1024 },
                { "1G", 0 },
                { "1KB", 0 },
                { "1MM", 0 },
                { "K", 0 },
                { "-1", 0 },
                { "+1", 0 },
                { "1.5M", 0 },
                { "1 K", 0 },
                { "0x10", 0 },
                { "1e3", 0 },
        };
        char text[128], phrase[128];
        struct config cfg;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(text, sizeof text, "[http]\nbody_limit = %s\n", cases[i].value);
                if (cases[i].want) {
                        parse_ok(&cfg, text);
                        assert_int_equal(cfg.body_limit, cases[i].want);
                        config_done(&cfg);
                } else {
                        snprintf(phrase, sizeof phrase, "body_limit: \"%s\" is not a size", cases[i].value);
                        parse_fails(text, "t.conf:2: ", phrase);
                }
        }
}

static void test_booleans(void **state) {
        static const struct {
                const char *value;
                bool want;
        } cases[] = {
                { "yes", true }, { "no", false }, { "true", true }, { "false", false },
                { "on", true }, { "off", false }, { "1", true }, { "0", false },
                { "YES", true }, { "Off", false },
        };
        char text[128];
        struct config cfg;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(text, sizeof text, "[http]\nopen_reads = %s\n", cases[i].value);
                parse_ok(&cfg, text);
                assert_int_equal(cfg.open_reads, cases[i].want);
                config_done(&cfg);
        }
        parse_fails("[http]\nopen_reads = 2\n", "t.conf:2: ", "is not a boolean");
        parse_fails("[http]\nopen_reads = y\n", "t.conf:2: ", "is not a boolean");
}

static void test_listen(void **state) {
        static const struct {
                const char *value;
                const char *address;    /* NULL: must fail with phrase */
                unsigned port;
                const char *phrase;
        } cases[] = {
                { "127.0.0.1:8080", "127.0.0.1", 8080, NULL },
                { "0.0.0.0:1", "0.0.0.0", 1, NULL },
                { "10.1.2.3:65535", "10.1.2.3", 65535, NULL },
                { "[::1]:8080", "::1", 8080, NULL },
                { "[::]:80", "::", 80, NULL },
                { "[2001:db8::1]:443", "2001:db8::1", 443, NULL },
                { "[::ffff:192.0.2.1]:80", "::ffff:192.0.2.1", 80, NULL },
                { "\"[::1]:9\"", "::1", 9, NULL },
                { "localhost:80", NULL, 0, "\"localhost\" is not an IPv4 address" },
                { "256.1.1.1:80", NULL, 0, "\"256.1.1.1\" is not an IPv4 address" },
                { ":80", NULL, 0, "\"\" is not an IPv4 address" },
                { "127.0.0.1", NULL, 0, "\"127.0.0.1\" has no :PORT" },
                { "127.0.0.1:", NULL, 0, "port \"\" is not a number" },
                { "127.0.0.1:http", NULL, 0, "port \"http\" is not a number" },
                { "1.2.3.4:+80", NULL, 0, "port \"+80\" is not a number" },
                { "1.2.3.4:8o", NULL, 0, "port \"8o\" is not a number" },
                { "127.0.0.1:0", NULL, 0, "port \"0\" is out of range (use IPv4:PORT or [IPv6]:PORT, port 1 to 65535)" },
                { "127.0.0.1:65536", NULL, 0, "port \"65536\" is out of range" },
                { "127.0.0.1:99999999999999999999", NULL, 0, "is out of range" },
                { "::1:80", NULL, 0, "an IPv6 address needs brackets" },
                { "1.2.3.4:80:90", NULL, 0, "is not ADDRESS:PORT" },
                { "[::1]80", NULL, 0, "\"[::1]80\" is not [IPv6]:PORT" },
                { "[::1]", NULL, 0, "is not [IPv6]:PORT" },
                { "[::1", NULL, 0, "is not [IPv6]:PORT" },
                { "[::1]:", NULL, 0, "port \"\" is not a number" },
                { "[127.0.0.1]:80", NULL, 0, "\"127.0.0.1\" is not an IPv6 address" },
                { "[fe80::1%eth0]:80", NULL, 0, "is not an IPv6 address" },
                { "[]:80", NULL, 0, "\"\" is not an IPv6 address" },
                { "[0000:0000:0000:0000:0000:0000:0000:0000:0000:0000]:80", NULL, 0, "is not an IPv6 address" },
        };
        char text[256];
        struct config cfg;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(text, sizeof text, "[http]\nlisten = %s\n", cases[i].value);
                if (cases[i].address) {
                        parse_ok(&cfg, text);
                        assert_string_equal(cfg.listen_address, cases[i].address);
                        assert_int_equal(cfg.listen_port, cases[i].port);
                        config_done(&cfg);
                } else {
                        parse_fails(text, "t.conf:2: listen: ", cases[i].phrase);
                }
        }
}

static void test_env_good(void **state) {
        struct config cfg;
        char err[ERR_MAX] = "";
        char *path;
        static const char file[] = "[http]\nlisten = 10.0.0.1:1\n[log]\nlevel = notice\n";

        (void) state;
        setenv("ARBITER_DSN", "host=/tmp dbname=test", 1);
        setenv("ARBITER_LISTEN", "[::1]:18080", 1);
        setenv("ARBITER_BUS", "session", 1);
        setenv("ARBITER_MIGRATIONS", "./migrations", 1);
        setenv("ARBITER_WEB", "./web", 1);
        setenv("ARBITER_LOG_LEVEL", "debug", 1);
        setenv("ARBITER_SPOOL", "./var/spool", 1);
        setenv("ARBITER_REPLICA_DSN", "host=/run/replica dbname=test", 1);
        assert_int_equal(config_load(&cfg, NULL, err, sizeof err), 0);
        assert_string_equal(cfg.spool_path, "./var/spool");
        assert_string_equal(cfg.replica_dsn, "host=/run/replica dbname=test");
        assert_string_equal(cfg.dsn, "host=/tmp dbname=test");
        assert_string_equal(cfg.listen_address, "::1");
        assert_int_equal(cfg.listen_port, 18080);
        assert_int_equal(cfg.bus, CONFIG_BUS_SESSION);
        assert_string_equal(cfg.migrations_dir, "./migrations");
        assert_string_equal(cfg.web_root, "./web");
        assert_int_equal(cfg.log_level, LOG_DEBUG);
        config_done(&cfg);
        clear_env(NULL);

        /* The environment wins over the file; what it does not name stays. */
        path = write_temp(file, sizeof file - 1);
        setenv("ARBITER_LISTEN", "127.0.0.2:2", 1);
        setenv("ARBITER_BUS", "none", 1);
        assert_int_equal(config_load(&cfg, path, err, sizeof err), 0);
        assert_string_equal(cfg.listen_address, "127.0.0.2");
        assert_int_equal(cfg.listen_port, 2);
        assert_int_equal(cfg.bus, CONFIG_BUS_NONE);
        assert_int_equal(cfg.log_level, LOG_NOTICE);
        config_done(&cfg);
        clear_env(NULL);

        /* config_parse_string() does not read the environment. */
        setenv("ARBITER_LOG_LEVEL", "debug", 1);
        parse_ok(&cfg, file);
        assert_int_equal(cfg.log_level, LOG_NOTICE);
        config_done(&cfg);

        /* Set but empty counts as unset. */
        setenv("ARBITER_LOG_LEVEL", "", 1);
        setenv("ARBITER_DSN", "", 1);
        assert_int_equal(config_load(&cfg, NULL, err, sizeof err), 0);
        assert_int_equal(cfg.log_level, LOG_INFO);
        assert_string_equal(cfg.dsn, "dbname=arbiter");
        config_done(&cfg);
        clear_env(NULL);

        /* config_apply_env() on its own replaces owned strings in place. */
        assert_int_equal(config_defaults(&cfg), 0);
        setenv("ARBITER_WEB", "/w", 1);
        assert_int_equal(config_apply_env(&cfg, err, sizeof err), 0);
        assert_string_equal(cfg.web_root, "/w");
        config_done(&cfg);

        unlink(path);
        free(path);
}

/* [venue]: an id as the venues table takes it, a name of 1 to 64
 * characters that defaults to the id, ARBITER_VENUE. */
static void test_venue(void **state) {
        struct config cfg;
        char err[ERR_MAX] = "";
        char name[4 * 65 + 32];

        (void) state;
        assert_int_equal(config_defaults(&cfg), 0);
        assert_string_equal(cfg.venue_id, "main");
        assert_string_equal(cfg.venue_name, "");
        assert_string_equal(config_venue_name(&cfg), "main");
        config_done(&cfg);

        parse_ok(&cfg, "[venue]\nid = north-2_a\n");
        assert_string_equal(cfg.venue_id, "north-2_a");
        assert_string_equal(config_venue_name(&cfg), "north-2_a");
        config_done(&cfg);
        /* 64 characters of two bytes each */
        strcpy(name, "[venue]\nid = 0\nname = \"");
        for (int i = 0; i < 64; i++)
                strcat(name, "\xc3\xa9");
        strcat(name, "\"\n");
        parse_ok(&cfg, name);
        assert_string_equal(cfg.venue_id, "0");
        assert_int_equal(strlen(config_venue_name(&cfg)), 128);
        config_done(&cfg);

        parse_fails("[venue]\nid = North\n", "t.conf: ", "[venue] id \"North\" is not a venue id (use 1 to 32 of "
                    "a-z, 0-9, '_' and '-', starting with a letter or digit");
        parse_fails("[venue]\nid = -north\n", "t.conf: ", "is not a venue id");
        parse_fails("[venue]\nid = a23456789012345678901234567890123\n", "t.conf: ", "is not a venue id");
        parse_fails("[venue]\nid =\n", "t.conf:2: ", "empty value");
        strcpy(name, "[venue]\nname = \"");
        for (int i = 0; i < 65; i++)
                strcat(name, "x");
        strcat(name, "\"\n");
        parse_fails(name, "t.conf: ", "[venue] name \"xxxx");

        setenv("ARBITER_VENUE", "south", 1);
        assert_int_equal(config_load(&cfg, NULL, err, sizeof err), 0);
        assert_string_equal(cfg.venue_id, "south");
        config_done(&cfg);
        setenv("ARBITER_VENUE", "So uth", 1);
        assert_int_equal(config_load(&cfg, NULL, err, sizeof err), -EINVAL);
        assert_error(err, "configuration: ", "[venue] id \"So uth\" is not a venue id");
        clear_env(NULL);
}

static void test_env_bad(void **state) {
        static const struct {
                const char *name;
                const char *value;
                const char *phrase;
        } cases[] = {
                { "ARBITER_LISTEN", "nope", "ARBITER_LISTEN: \"nope\" has no :PORT (use IPv4:PORT or [IPv6]:PORT" },
                { "ARBITER_LISTEN", "[::1]:0", "ARBITER_LISTEN: port \"0\" is out of range" },
                { "ARBITER_LISTEN", " 127.0.0.1:80", "ARBITER_LISTEN: \" 127.0.0.1\" is not an IPv4 address" },
                { "ARBITER_BUS", "bogus", "ARBITER_BUS: \"bogus\" is not a bus (use system, session or none)" },
                { "ARBITER_LOG_LEVEL", "loud", "ARBITER_LOG_LEVEL: \"loud\" is not a log level" },
                { "ARBITER_WEB", "/a\x1b[31m", "ARBITER_WEB: \"/a\\x1b[31m\" contains a control character" },
                { "ARBITER_MIGRATIONS", "a\nb", "ARBITER_MIGRATIONS: \"a\\x0ab\" contains a control character" },
        };
        struct config cfg;
        char err[ERR_MAX];
        char *big;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                clear_env(NULL);
                setenv(cases[i].name, cases[i].value, 1);
                err[0] = '\0';
                assert_int_equal(config_load(&cfg, NULL, err, sizeof err), -EINVAL);
                assert_error(err, cases[i].name, cases[i].phrase);
                assert_zeroed(&cfg);
                config_done(&cfg);
        }
        clear_env(NULL);

        big = malloc(LINE_MAX_BYTES + 2);
        assert_non_null(big);
        memset(big, 'x', LINE_MAX_BYTES + 1);
        big[LINE_MAX_BYTES + 1] = '\0';
        setenv("ARBITER_DSN", big, 1);
        assert_int_equal(config_load(&cfg, NULL, err, sizeof err), -EINVAL);
        assert_error(err, "ARBITER_DSN: ", "longer than 4096 bytes");
        free(big);
        clear_env(NULL);

        /* A bad variable leaves what config_apply_env() was given usable. */
        assert_int_equal(config_defaults(&cfg), 0);
        setenv("ARBITER_BUS", "bogus", 1);
        assert_int_equal(config_apply_env(&cfg, err, sizeof err), -EINVAL);
        assert_int_equal(cfg.bus, CONFIG_BUS_SYSTEM);
        assert_string_equal(cfg.listen_address, "127.0.0.1");
        config_done(&cfg);
}

static void test_files(void **state) {
        static const char good[] = "[log]\nlevel = error\n";
        static const char with_nul[] = "[http]\nlisten = 1.2.3.4:5\n[log]\nle\0vel = info\n";
        struct config cfg;
        char err[ERR_MAX], want[512];
        char *path, *big;
        size_t big_len = 2 * 1024 * 1024;

        (void) state;
        err[0] = '\0';
        assert_int_equal(config_load(&cfg, "tests/no-such-dir/arbiterd.conf", err, sizeof err), -ENOENT);
        assert_string_equal(err, "tests/no-such-dir/arbiterd.conf: cannot open: No such file or directory");
        assert_zeroed(&cfg);
        config_done(&cfg);

        assert_int_equal(config_load(&cfg, "/", err, sizeof err), -EISDIR);
        assert_string_equal(err, "/: cannot read: Is a directory");
        config_done(&cfg);

        path = write_temp(good, sizeof good - 1);
        assert_int_equal(config_load(&cfg, path, err, sizeof err), 0);
        assert_int_equal(cfg.log_level, LOG_ERR);
        config_done(&cfg);
        unlink(path);
        free(path);

        /* Messages name the path as given; a NUL byte is an error, not an end. */
        path = write_temp(with_nul, sizeof with_nul - 1);
        assert_int_equal(config_load(&cfg, path, err, sizeof err), -EINVAL);
        snprintf(want, sizeof want, "%s:4: ", path);
        assert_error(err, want, "NUL byte");
        config_done(&cfg);
        unlink(path);
        free(path);

        big = malloc(big_len);
        assert_non_null(big);
        memset(big, '#', big_len);
        path = write_temp(big, big_len);
        assert_int_equal(config_load(&cfg, path, err, sizeof err), -EFBIG);
        snprintf(want, sizeof want, "%s: ", path);
        assert_error(err, want, "larger than");
        config_done(&cfg);
        unlink(path);
        free(path);
        free(big);
}

static void test_error_buffer(void **state) {
        struct config cfg;
        char small[8];

        (void) state;
        memset(small, 'x', sizeof small);
        assert_int_equal(config_parse_string(&cfg, "t.conf", "[nope]\n", small, sizeof small), -EINVAL);
        assert_string_equal(small, "t.conf:");
        assert_int_equal(config_parse_string(&cfg, "t.conf", "[nope]\n", NULL, 0), -EINVAL);
        assert_int_equal(config_parse_string(&cfg, NULL, "[nope]\n", small, sizeof small), -EINVAL);
        assert_int_equal(config_parse_string(&cfg, "t.conf", NULL, small, sizeof small), -EINVAL);
        config_done(&cfg);
}

static void test_reload(void **state) {
        struct config cur, next;
        bool restart;

        (void) state;

        /* Only reloadable keys differ: all applied, no restart. */
        assert_int_equal(config_defaults(&cur), 0);
        parse_ok(&next, "[log]\nlevel = debug\n[http]\nopen_reads = no\nbody_limit = 2M\n"
                        "[database]\nstatement_timeout = 100\n");
        restart = true;
        assert_int_equal(config_reload_into(&cur, &next, &restart), 4);
        assert_false(restart);
        assert_int_equal(cur.log_level, LOG_DEBUG);
        assert_false(cur.open_reads);
        assert_int_equal(cur.body_limit, 2 * 1024 * 1024);
        assert_int_equal(cur.statement_timeout_ms, 100);
        /* Again: nothing changes. */
        assert_int_equal(config_reload_into(&cur, &next, &restart), 0);
        assert_false(restart);
        config_done(&next);
        config_done(&cur);

        /* Only restart keys differ: nothing applied, restart needed. */
        static const char *const restart_only[] = {
                "[http]\nlisten = 127.0.0.1:8081\n",
                "[http]\nlisten = 127.0.0.2:8080\n",
                "[http]\nmax_connections = 100\n",
                "[http]\nreserved_connections = 1\n",
                "[http]\nmax_connections_per_ip = 1\n",
                "[http]\npending_per_ip = 1\n",
                "[http]\nrequest_timeout = 1\n",
                "[http]\nconnection_timeout = 1\n",
                "[http]\nconnection_memory = 16K\n",
                "[http]\nweb_root = /elsewhere\n",
                "[database]\ndsn = dbname=other\n",
                "[database]\nreconnect_max = 1\n",
                "[database]\nmigrations = /elsewhere\n",
                "[database]\nspool = /elsewhere\n",
                "[dbus]\nbus = none\n",
                "[daemon]\nhousekeeping_interval = 10\n",
                "[daemon]\nshutdown_timeout = 1\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(restart_only); i++) {
                struct config before;

                assert_int_equal(config_defaults(&cur), 0);
                assert_int_equal(config_defaults(&before), 0);
                parse_ok(&next, restart_only[i]);
                restart = false;
                assert_int_equal(config_reload_into(&cur, &next, &restart), 0);
                if (!restart)
                        fail_msg("no restart asked for %s", restart_only[i]);
                assert_config_equal(&cur, &before);
                config_done(&before);
                config_done(&next);
                config_done(&cur);
        }

        /* Both: the reloadable one is applied, the other waits. */
        assert_int_equal(config_defaults(&cur), 0);
        parse_ok(&next, "[log]\nlevel = error\n[dbus]\nbus = session\n");
        assert_int_equal(config_reload_into(&cur, &next, &restart), 1);
        assert_true(restart);
        assert_int_equal(cur.log_level, LOG_ERR);
        assert_int_equal(cur.bus, CONFIG_BUS_SYSTEM);
        /* ret_restart_needed may be NULL. */
        assert_int_equal(config_reload_into(&cur, &next, NULL), 0);
        config_done(&next);
        config_done(&cur);
}

/* The shipped example must parse and change nothing: every value in it is
 * the default (web_root and migrations are commented out there because
 * their defaults depend on the install prefix). */
static void test_example_file(void **state) {
        struct config example, defaults;
        char err[ERR_MAX] = "";
        int r;

        (void) state;
        r = config_load(&example, ARBITER_EXAMPLE_CONF, err, sizeof err);
        if (r != 0)
                fail_msg("%s: %s", ARBITER_EXAMPLE_CONF, err);
        assert_int_equal(config_defaults(&defaults), 0);
        assert_config_equal(&example, &defaults);
        config_done(&example);
        config_done(&defaults);
}

/* [pads]: how each line is driven. */
static void test_pad_lines(void **state) {
        struct config cfg;

        (void) state;
        assert_int_equal(config_defaults(&cfg), 0);
        assert_false(cfg.pad_pty_wire_time);
        config_done(&cfg);
        parse_ok(&cfg, "[pads]\nports = /dev/pts/7 /dev/ttyUSB0\nbaud = 1000000\npty_wire_time = yes\n");
        assert_string_equal(cfg.pad_ports, "/dev/pts/7 /dev/ttyUSB0");
        assert_int_equal(cfg.pad_baud, 1000000);
        assert_true(cfg.pad_pty_wire_time);
        config_done(&cfg);
        parse_fails("[pads]\npty_wire_time = sometimes\n", "t.conf:2: ", "pty_wire_time: \"sometimes\" is not a boolean");

        /* RS-485 buses: each one of the ports */
        assert_int_equal(config_defaults(&cfg), 0);
        assert_string_equal(cfg.pad_rs485_ports, "");
        assert_int_equal(cfg.pad_rs485_reply_margin_us, 3000);
        config_done(&cfg);
        parse_ok(&cfg, "[pads]\nrs485_reply_margin = 1000\n");
        assert_int_equal(cfg.pad_rs485_reply_margin_us, 1000);
        config_done(&cfg);
        parse_fails("[pads]\nrs485_reply_margin = 100\n", "t.conf:2: ", "rs485_reply_margin");
        parse_ok(&cfg, "[pads]\nports = /dev/ttyUSB0 /dev/ttyUSB1  /dev/ttyUSB2\nrs485_ports = /dev/ttyUSB2 /dev/ttyUSB0\n");
        assert_string_equal(cfg.pad_rs485_ports, "/dev/ttyUSB2 /dev/ttyUSB0");
        config_done(&cfg);
        parse_ok(&cfg, "[pads]\nrs485_ports =\n");
        config_done(&cfg);
        parse_fails("[pads]\nports = /dev/ttyUSB0 /dev/ttyUSB1\nrs485_ports = /dev/ttyUSB1 /dev/ttyUSB\n", "t.conf: ",
                    "[pads] rs485_ports names \"/dev/ttyUSB\", which is not in [pads] ports");
        parse_fails("[pads]\nrs485_ports = /dev/ttyUSB0\n", "t.conf: ", "which is not in [pads] ports");
}

static void test_bus_to_string(void **state) {
        (void) state;
        assert_string_equal(config_bus_to_string(CONFIG_BUS_SYSTEM), "system");
        assert_string_equal(config_bus_to_string(CONFIG_BUS_SESSION), "session");
        assert_string_equal(config_bus_to_string(CONFIG_BUS_NONE), "none");
        assert_string_equal(config_bus_to_string((enum config_bus) 42), "unknown");
}

/* Inputs that once broke a parser somewhere, and fuzzer finds: each must
 * give 0 or -EINVAL with a "t.conf:" message, never a crash. */
static void test_hostile_inputs(void **state) {
        static const char *const inputs[] = {
                "", "\n", "\r", "\r\n\r\n", "[", "]", "=", "\"", "\\", "[]", "[ ]", "[http]]",
                "[http]\n=", "[http]\n==", "[http]\nlisten=\"", "[http]\nlisten = \"\\",
                "[http]\nlisten = [", "[http]\nlisten = []:", "[http]\nlisten = [:]:1",
                "[http]\nlisten = :", "[http]\nlisten = ]:1", "[http]\nlisten = \"\"",
                "\xEF\xBB\xBF", "\xEF\xBB", "\xEF\xBB\xBF[", "#\x01\x02\x03", ";\xff\xfe",
                "[http]\nweb_root = \"\\\\\"", "[http]\nweb_root = \"\\\"\"",
                "[\xff]", "[http]\n\xff = 1", "[database]\ndsn = \"\\\\\\\"",
                "[http]\nbody_limit = 18446744073709551615K",
                "[http]\nbody_limit = 18446744073709551616",
                "[http]\r[log]\r", "\n\n\n\n\n\n\n\n[",
        };
        struct config cfg;
        char err[ERR_MAX];

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(inputs); i++) {
                int r;

                err[0] = '\0';
                r = config_parse_string(&cfg, "t.conf", inputs[i], err, sizeof err);
                if (r != 0 && (r != -EINVAL || strncmp(err, "t.conf:", 7) != 0))
                        fail_msg("input %zu: r=%d err=\"%s\"", i, r, err);
                config_done(&cfg);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_defaults, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_full_file, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_comments_and_blanks, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_quoted_values, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_crlf, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_bad_lines, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_line_length, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_ranges, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_sizes, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_rating_parameters, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_booleans, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_listen, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_env_good, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_env_bad, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_files, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_error_buffer, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_reload, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_example_file, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_venue, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_pad_lines, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_bus_to_string, clear_env, clear_env),
                cmocka_unit_test_setup_teardown(test_hostile_inputs, clear_env, clear_env),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
