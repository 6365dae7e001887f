/* tests/bench/league_drive.c — the league benchmark's driver
 * (tests/bench/league.sh, `make bench`; not a benchmark by itself): plays a
 * Swiss tournament of Reflex across three venues' daemons as fast as their
 * answers come, and measures what a league costs.
 *
 *   league_drive --ports NORTH,SOUTH,EAST --admin TOKEN --referee TOKEN
 *                --dsn PRIMARY_DSN [--tables-per-venue N] [--players N]
 *                [--rounds N] [--inputs-per-table N] [--pids N,S,E,POSTMASTER]
 *                [--samples FILE]
 *
 * Set-up, at north: N tables at each venue (two seats, no pads), the
 * players, a tournament of Reflex (first to one point, judged, the go as
 * late as Reflex allows: the referee's award is the one input of a match)
 * with every table, the players registered and checked in, a Swiss stage.
 * Then each venue's GET /v1/tournaments/{id}/events is read by a thread of
 * its own, which stamps every result_recorded as it arrives.
 *
 * Each round: paired at north; then every table plays its matches of the
 * round, one after the other, by a thread of its own talking only to its
 * venue's daemon, as the venue's referee would: call the match to the
 * table (POST .../matches/{m}/call), start it, and award seat 1 the point
 * that finishes it; the award's answer (2xx: stored, and the result in the
 * tournament, by the trigger in the same transaction) is when the result
 * was recorded.  The next round is paired once every table is done.
 *
 * Measured, all on CLOCK_MONOTONIC:
 *   results/s     stage matches finished ÷ the time from the first call to
 *                 the last award answered (round pairings included);
 *   latency       result_recorded's arrival on a venue's stream − the
 *                 finishing award's answer: on the stream of the venue
 *                 that ran the match (single venue) and of the two others
 *                 (cross venue, through league_events and NOTIFY), p50/p99;
 *   replica lag   every 200 ms during play: the daemons' probe (/v1/status
 *                 database.replica.lag_ms at east) and the primary's
 *                 pg_stat_replication replay_lag, p50/p99/max;
 *   load          on the primary over the play: statements the clients sent
 *                 (pg_stat_statements' calls, top-level, when league.sh
 *                 loaded it; the bench's own left out), writing transactions
 *                 (transaction ids assigned: pg_current_snapshot's xmax),
 *                 WAL bytes (pg_current_wal_lsn), NOTIFYs delivered to one
 *                 listener of arbiter_league, arbiter_results and
 *                 arbiter_ratings; with --pids (the daemons' and the
 *                 primary's postmaster's), the CPU time of the daemons and
 *                 of the primary (its postmaster, its reaped children and
 *                 its children now: the daemons' sessions last the run).
 *
 * Then the inputs of long matches, apart: every table plays a match of its
 * own (made and started at its venue, Reflex to 20, never reached) with
 * --inputs-per-table referee awards, +1 and −1 in turn, as fast as the
 * answers come; the same load counters over that phase, per stored input
 * (match_inputs rows: the starts, awards and aborts), and inputs/s.  A
 * real match is mostly inputs (a Crash Pilot match takes tens), each with
 * its public view sent to the league (match_view): what a venue costs
 * while it plays comes from these.
 *
 * Output: one "key value" line per figure on stdout (league.sh reads them),
 * progress on stderr; with --samples, every latency sample as
 * "own|cross MS" lines.  Exit 0 when it ran, 1 when it could not.
 *
 * HTTP/1.1 keep-alive over plain sockets, one connection per thread and
 * venue; the event streams ask HTTP/1.0, so that they come unchunked.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include <libpq-fe.h>

#define VENUES                  3
#define MAX_TABLES_PER_VENUE    16
#define MAX_TABLES              (VENUES * MAX_TABLES_PER_VENUE)
#define MAX_MATCHES             4096
#define MAX_BODY                (4 << 20)
/* Reflex's latest go (tests/games/reflex.h, RX_DELAY_MAX_MS): no timer
 * input comes before the award. */
#define GO_DELAY_MS             10000
#define SAMPLE_INTERVAL_US      200000
/* How long the streams may take to show the last results. */
#define DRAIN_TIMEOUT_US        (30 * 1000000LL)
#define IO_TIMEOUT_S            30

static const char *const venue_ids[VENUES] = { "north", "south", "east" };

static int ports[VENUES];
static const char *admin, *referee, *dsn, *samples_path;
static int tables_per_venue = 4, n_players = 96, n_rounds = 4, inputs_per_table = 100;
static int daemon_pids[VENUES], postmaster_pid;

static int64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
        va_list ap;

        fputs("league_drive: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(1);
}

/* ---- HTTP ------------------------------------------------------------------ */

struct conn {
        int port;
        int fd;
        char *buf;                      /* what was read and not used yet */
        size_t len;
};

static int dial(int port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
        int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                die("socket: %s", strerror(errno));
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                die("connect to port %d: %s", port, strerror(errno));
        return fd;
}

static bool fill(struct conn *c) {
        char chunk[65536];
        ssize_t n = read(c->fd, chunk, sizeof chunk);

        if (n <= 0)
                return false;
        c->buf = realloc(c->buf, c->len + (size_t) n + 1);
        memcpy(c->buf + c->len, chunk, (size_t) n);
        c->len += (size_t) n;
        c->buf[c->len] = '\0';
        return true;
}

static void consume(struct conn *c, size_t n) {
        memmove(c->buf, c->buf + n, c->len - n);
        c->len -= n;
        c->buf[c->len] = '\0';
}

/* One request on c (reconnected when the server closed it); the status,
 * and the body (malloc'd) in *ret_body. */
static long request(struct conn *c, const char *method, const char *path, const char *token, const char *body,
                    char **ret_body) {
        char head[1024];
        int n;

        for (int attempt = 0;; attempt++) {
                if (c->fd < 0) {
                        c->fd = dial(c->port);
                        c->len = 0;
                }
                n = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%s%s%zu\r\n\r\n",
                             method, path, token ? "Authorization: Bearer " : "", token ? token : "",
                             token ? "\r\n" : "", "Content-Type: application/json\r\nContent-Length: ",
                             body ? strlen(body) : 0);
                bool sent = write(c->fd, head, (size_t) n) == n &&
                            (!body || write(c->fd, body, strlen(body)) == (ssize_t) strlen(body));
                char *end = NULL;
                while (sent && !(c->buf && (end = strstr(c->buf, "\r\n\r\n"))))
                        if (!fill(c))
                                break;
                if (!end) {
                        close(c->fd);
                        c->fd = -1;
                        if (attempt < 1)
                                continue;       /* a keep-alive the server had closed */
                        die("no answer to %s %s on port %d", method, path, c->port);
                }
                long status = strtol(c->buf + 9, NULL, 10);
                size_t head_len = (size_t) (end + 4 - c->buf);
                *end = '\0';
                const char *cl = strcasestr(c->buf, "\r\nContent-Length:");
                bool chunked = strcasestr(c->buf, "\r\nTransfer-Encoding: chunked") != NULL;
                bool closes = strcasestr(c->buf, "\r\nConnection: close") != NULL;
                char *out = NULL;
                if (cl) {
                        size_t len = strtoul(cl + 17, NULL, 10);
                        consume(c, head_len);
                        while (c->len < len)
                                if (!fill(c))
                                        die("short body from port %d", c->port);
                        out = strndup(c->buf, len);
                        consume(c, len);
                } else if (chunked) {
                        size_t used = 0;
                        consume(c, head_len);
                        out = calloc(1, 1);
                        for (;;) {
                                char *eol;
                                while (!(eol = strstr(c->buf ? c->buf : "", "\r\n")))
                                        if (!fill(c))
                                                die("short chunk from port %d", c->port);
                                size_t len = strtoul(c->buf, NULL, 16);
                                size_t at = (size_t) (eol + 2 - c->buf);
                                while (c->len < at + len + 2)
                                        if (!fill(c))
                                                die("short chunk from port %d", c->port);
                                out = realloc(out, used + len + 1);
                                memcpy(out + used, c->buf + at, len);
                                used += len;
                                out[used] = '\0';
                                consume(c, at + len + 2);
                                if (len == 0)
                                        break;
                        }
                } else {
                        consume(c, head_len);
                        while (fill(c))
                                ;
                        out = strndup(c->buf ? c->buf : "", c->len);
                        c->len = 0;
                        closes = true;
                }
                if (closes) {
                        close(c->fd);
                        c->fd = -1;
                }
                *ret_body = out;
                return status;
        }
}

/* A request that must answer want; its JSON (a new reference). */
static json_t *call_json(struct conn *c, const char *method, const char *path, const char *token, const char *body,
                         long want) {
        char *out;
        long status = request(c, method, path, token, body, &out);

        if (status != want)
                die("%s %s on port %d: HTTP %ld, not %ld: %s", method, path, c->port, status, want, out);
        json_t *j = json_loads(out, 0, NULL);
        free(out);
        return j;
}

static json_int_t jint(json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

/* ---- the tournament --------------------------------------------------------- */

struct stage_match {
        json_int_t id;
        int table;                      /* index into tables */
        int venue;
        int64_t answered_us;            /* the finishing award answered */
        int64_t seen_us[VENUES];        /* result_recorded on each venue's stream; 0: not yet */
};

static json_int_t tid, tables[MAX_TABLES];
static int n_tables;
static struct stage_match matches[MAX_MATCHES];
static int n_matches;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int table_venue(int t) {
        return t / tables_per_venue;
}

static void set_up(void) {
        struct conn c = { .port = ports[0], .fd = -1 };
        char body[1024], path[160];
        json_int_t *players = calloc((size_t) n_players, sizeof *players);

        for (int v = 0; v < VENUES; v++)
                for (int k = 0; k < tables_per_venue; k++) {
                        snprintf(body, sizeof body, "{\"name\": \"%s-%d\", \"venue\": \"%s\", \"seats\": "
                                 "[{\"seat\": 1}, {\"seat\": 2}]}", venue_ids[v], k + 1, venue_ids[v]);
                        json_t *t = call_json(&c, "POST", "/v1/tables", admin, body, 201);
                        tables[n_tables++] = jint(t, "id");
                        json_decref(t);
                }
        for (int p = 0; p < n_players; p++) {
                snprintf(body, sizeof body, "{\"name\": \"Player %d\", \"club\": \"League\"}", p + 1);
                json_t *j = call_json(&c, "POST", "/v1/players", admin, body, 201);
                players[p] = jint(j, "id");
                json_decref(j);
        }
        int n = snprintf(body, sizeof body, "{\"name\": \"League bench\", \"game\": \"reflex\", \"competitive\": false, "
                         "\"match_config\": {\"mode\": \"judged\", \"points\": {\"target\": 1}, "
                         "\"go\": {\"delay_min_ms\": %d, \"delay_max_ms\": %d}}, \"tables\": [", GO_DELAY_MS,
                         GO_DELAY_MS);
        for (int t = 0; t < n_tables; t++)
                n += snprintf(body + n, sizeof body - (size_t) n, "%s%lld", t ? ", " : "", (long long) tables[t]);
        snprintf(body + n, sizeof body - (size_t) n, "]}");
        json_t *t = call_json(&c, "POST", "/v1/tournaments", admin, body, 201);
        tid = jint(t, "id");
        json_decref(t);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(call_json(&c, "POST", path, admin, "{\"state\": \"registration\"}", 200));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
        for (int p = 0; p < n_players; p++) {
                snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[p]);
                json_decref(call_json(&c, "POST", path, admin, body, 201));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        snprintf(body, sizeof body, "{\"format\": \"swiss\", \"config\": {\"rounds\": %d}}", n_rounds);
        json_decref(call_json(&c, "POST", path, admin, body, 201));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(call_json(&c, "POST", path, admin, "{\"state\": \"check_in\"}", 200));
        for (int p = 0; p < n_players; p++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) tid,
                         (long long) players[p]);
                json_decref(call_json(&c, "POST", path, admin, "{}", 200));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(call_json(&c, "POST", path, admin, "{\"state\": \"running\"}", 200));
        free(players);
        free(c.buf);
        close(c.fd);
}

/* ---- the event streams ------------------------------------------------------- */

struct streamer {
        int venue;
        pthread_t thread;
        bool open;                      /* its first bytes came */
        unsigned long results;
};

static struct streamer streamers[VENUES];
static volatile bool stop_streams;

static struct stage_match *find_match(json_int_t id) {
        for (int k = 0; k < n_matches; k++)
                if (matches[k].id == id)
                        return &matches[k];
        return NULL;
}

static void *stream_main(void *arg) {
        struct streamer *s = arg;
        struct conn c = { .port = ports[s->venue], .fd = dial(ports[s->venue]) };
        char head[256];
        struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
        bool is_result = false;

        setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        int n = snprintf(head, sizeof head, "GET /v1/tournaments/%lld/events HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                         "Accept: text/event-stream\r\n\r\n", (long long) tid);
        if (write(c.fd, head, (size_t) n) != n)
                die("the %s stream: write failed", venue_ids[s->venue]);
        while (!stop_streams) {
                char chunk[65536];
                ssize_t got = read(c.fd, chunk, sizeof chunk);
                int64_t t = now_us();
                if (got == 0)
                        die("the %s stream ended", venue_ids[s->venue]);
                if (got < 0)
                        continue;       /* the timeout: look at stop_streams */
                __atomic_store_n(&s->open, true, __ATOMIC_RELEASE);
                c.buf = realloc(c.buf, c.len + (size_t) got + 1);
                memcpy(c.buf + c.len, chunk, (size_t) got);
                c.len += (size_t) got;
                c.buf[c.len] = '\0';
                char *nl;
                while ((nl = strchr(c.buf, '\n'))) {
                        *nl = '\0';
                        if (strncmp(c.buf, "event: ", 7) == 0)
                                is_result = strcmp(c.buf + 7, "result_recorded") == 0;
                        else if (is_result && strncmp(c.buf, "data: ", 6) == 0) {
                                json_t *d = json_loads(c.buf + 6, 0, NULL);
                                json_int_t id = jint(d, "match");
                                json_decref(d);
                                pthread_mutex_lock(&lock);
                                struct stage_match *m = find_match(id);
                                if (m && !m->seen_us[s->venue])
                                        m->seen_us[s->venue] = t;
                                s->results++;
                                pthread_mutex_unlock(&lock);
                                is_result = false;
                        } else if (!*c.buf)
                                is_result = false;
                        consume(&c, (size_t) (nl + 1 - c.buf));
                }
        }
        close(c.fd);
        free(c.buf);
        return NULL;
}

/* ---- the tables ----------------------------------------------------------------- */

struct table_worker {
        int table;
        pthread_t thread;
        int first, count;               /* its matches this round: matches[first ..] with .table == table */
};

static void *table_main(void *arg) {
        struct table_worker *w = arg;
        int venue = table_venue(w->table);
        struct conn c = { .port = ports[venue], .fd = -1 };
        char path[160];

        for (int k = w->first; k < w->first + w->count; k++) {
                struct stage_match *m = &matches[k];
                if (m->table != w->table)
                        continue;
                snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) tid,
                         (long long) m->id);
                json_t *called = call_json(&c, "POST", path, referee, "{}", 200);
                json_int_t runtime = jint(called, "match");
                json_decref(called);
                snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) runtime);
                json_decref(call_json(&c, "POST", path, referee, "{}", 200));
                snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) runtime);
                json_t *in = call_json(&c, "POST", path, referee, "{\"kind\": \"award\", \"to\": [1], \"points\": 1, "
                                       "\"category\": \"bonus\"}", 200);
                int64_t t = now_us();
                json_decref(in);
                pthread_mutex_lock(&lock);
                m->answered_us = t;
                pthread_mutex_unlock(&lock);
        }
        close(c.fd);
        free(c.buf);
        return NULL;
}

/* Pairs the next round at north and plays it at every table. */
static void play_round(struct conn *north) {
        char path[96];
        json_t *m;
        size_t k;
        int first = n_matches;

        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        json_t *r = call_json(north, "POST", path, admin, "{}", 201);
        pthread_mutex_lock(&lock);
        json_array_foreach(json_object_get(r, "matches"), k, m) {
                if (n_matches >= MAX_MATCHES)
                        die("more than %d matches", MAX_MATCHES);
                struct stage_match *sm = &matches[n_matches++];
                memset(sm, 0, sizeof *sm);
                sm->id = jint(m, "id");
                sm->table = -1;
                for (int t = 0; t < n_tables; t++)
                        if (tables[t] == jint(m, "table"))
                                sm->table = t;
                if (sm->table < 0)
                        die("round match %lld has no table of ours", (long long) sm->id);
                sm->venue = table_venue(sm->table);
        }
        pthread_mutex_unlock(&lock);
        json_decref(r);

        struct table_worker workers[MAX_TABLES];
        for (int t = 0; t < n_tables; t++) {
                workers[t] = (struct table_worker) { .table = t, .first = first, .count = n_matches - first };
                if (pthread_create(&workers[t].thread, NULL, table_main, &workers[t]) != 0)
                        die("pthread_create failed");
        }
        for (int t = 0; t < n_tables; t++)
                pthread_join(workers[t].thread, NULL);
}

/* ---- the samples ------------------------------------------------------------------ */

#define MAX_SAMPLES 4096

struct series {
        double v[MAX_SAMPLES];
        int n;
};

static void add(struct series *s, double v) {
        if (s->n < MAX_SAMPLES)
                s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

/* The q-quantile (nearest rank) of s, sorted here; -1 when empty. */
static double quantile(struct series *s, double q) {
        if (s->n == 0)
                return -1;
        qsort(s->v, (size_t) s->n, sizeof s->v[0], cmp_double);
        int i = (int) (q * s->n + 0.999999) - 1;
        return s->v[i < 0 ? 0 : i >= s->n ? s->n - 1 : i];
}

static struct series probe_lag, replay_lag;
static volatile bool stop_sampling;

static PGconn *db_connect(void) {
        PGconn *pg = PQconnectdb(dsn);

        if (PQstatus(pg) != CONNECTION_OK)
                die("cannot connect to %s: %s", dsn, PQerrorMessage(pg));
        return pg;
}

static double db_number(PGconn *pg, const char *sql) {
        PGresult *r = PQexec(pg, sql);

        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
                die("%s: %s", sql, PQerrorMessage(pg));
        double v = PQgetisnull(r, 0, 0) ? -1 : strtod(PQgetvalue(r, 0, 0), NULL);
        PQclear(r);
        return v;
}

static void *sampler_main(void *arg) {
        struct conn east = { .port = ports[2], .fd = -1 };
        PGconn *pg = db_connect();
        (void) arg;

        while (!stop_sampling) {
                char *out;
                if (request(&east, "GET", "/v1/status", admin, NULL, &out) == 200) {
                        json_t *j = json_loads(out, 0, NULL);
                        json_t *lag = json_object_get(json_object_get(json_object_get(j, "database"), "replica"),
                                                      "lag_ms");
                        if (json_is_integer(lag))
                                add(&probe_lag, (double) json_integer_value(lag));
                        json_decref(j);
                }
                free(out);
                double ms = db_number(pg, "SELECT coalesce(max(extract(epoch FROM replay_lag) * 1000), 0) "
                                          "FROM pg_stat_replication");
                if (ms >= 0)
                        add(&replay_lag, ms);
                usleep(SAMPLE_INTERVAL_US);
        }
        PQfinish(pg);
        close(east.fd);
        free(east.buf);
        return NULL;
}

static unsigned long notifies;
static volatile bool stop_listening;

static void *listener_main(void *arg) {
        PGconn *pg = db_connect();
        (void) arg;

        PQclear(PQexec(pg, "LISTEN arbiter_league; LISTEN arbiter_results; LISTEN arbiter_ratings"));
        while (!stop_listening) {
                fd_set fds;
                struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
                int sock = PQsocket(pg);
                FD_ZERO(&fds);
                FD_SET(sock, &fds);
                if (select(sock + 1, &fds, NULL, NULL, &tv) > 0) {
                        PQconsumeInput(pg);
                        PGnotify *n;
                        while ((n = PQnotifies(pg))) {
                                __atomic_add_fetch(&notifies, 1, __ATOMIC_RELAXED);
                                PQfreemem(n);
                        }
                }
        }
        PQfinish(pg);
        return NULL;
}

/* ---- the inputs of long matches --------------------------------------------------------- */

static void *inputs_main(void *arg) {
        int t = (int) (intptr_t) arg;
        int venue = table_venue(t);
        struct conn c = { .port = ports[venue], .fd = -1 };
        char path[96], body[512];

        snprintf(body, sizeof body, "{\"game\": \"reflex\", \"table\": %lld, \"players\": [\"Ann\", \"Bo\"], "
                 "\"seed\": %d, \"config\": {\"mode\": \"judged\", \"points\": {\"target\": 20}, "
                 "\"go\": {\"delay_min_ms\": %d, \"delay_max_ms\": %d}}}", (long long) tables[t], t + 1, GO_DELAY_MS,
                 GO_DELAY_MS);
        json_t *m = call_json(&c, "POST", "/v1/matches", referee, body, 201);
        json_int_t id = jint(m, "id");
        json_decref(m);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        json_decref(call_json(&c, "POST", path, referee, "{}", 200));
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        for (int k = 0; k < inputs_per_table; k++)
                json_decref(call_json(&c, "POST", path, referee, k % 2 == 0
                                      ? "{\"kind\": \"award\", \"to\": [1], \"points\": 1, \"category\": \"bonus\"}"
                                      : "{\"kind\": \"award\", \"to\": [1], \"points\": -1, \"category\": \"penalty\"}",
                                      200));
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        json_decref(call_json(&c, "POST", path, referee, "{}", 200));
        close(c.fd);
        free(c.buf);
        return NULL;
}

/* ---- main -------------------------------------------------------------------------- */

/* utime + stime of pid (with its reaped children's when children), in
 * clock ticks; 0 when it is gone. */
static double proc_ticks(int pid, bool children) {
        char path[64], line[1024];
        double t = 0;

        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
                return 0;
        if (fgets(line, sizeof line, f)) {
                /* after the command's ")" : state is field 3, utime 14 */
                char *p = strrchr(line, ')');
                unsigned long long v[15] = { 0 };
                int ppid;
                if (p && sscanf(p + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &ppid, &v[0],
                                &v[1], &v[2], &v[3]) == 5)
                        t = (double) (v[0] + v[1] + (children ? v[2] + v[3] : 0));
        }
        fclose(f);
        return t;
}

/* The parent of pid, 0 when unknown. */
static int proc_parent(int pid) {
        char path[64], line[1024];
        int ppid = 0;

        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
                return 0;
        if (fgets(line, sizeof line, f)) {
                char *p = strrchr(line, ')');
                if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1)
                        ppid = 0;
        }
        fclose(f);
        return ppid;
}

static double daemons_ticks(void) {
        double t = 0;

        for (int v = 0; v < VENUES; v++)
                if (daemon_pids[v] > 0)
                        t += proc_ticks(daemon_pids[v], false);
        return t;
}

static double primary_ticks(void) {
        DIR *d;
        struct dirent *e;
        double t;

        if (postmaster_pid <= 0 || !(d = opendir("/proc")))
                return 0;
        t = proc_ticks(postmaster_pid, true);
        while ((e = readdir(d)))
                if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && proc_parent(atoi(e->d_name)) == postmaster_pid)
                        t += proc_ticks(atoi(e->d_name), false);
        closedir(d);
        return t;
}

/* The primary's counters of the load. */
struct counters {
        double daemons_cpu, primary_cpu;        /* clock ticks */
        double lsn, xid, calls, inputs;
        unsigned long notifies;
        int64_t at_us;
};

static bool have_statements;

static struct counters counters_now(PGconn *pg) {
        struct counters c = {
                .lsn = db_number(pg, "SELECT pg_current_wal_lsn() - '0/0'"),
                .xid = db_number(pg, "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint"),
                .inputs = db_number(pg, "SELECT count(*) FROM match_inputs"),
                /* every statement but the bench's own sessions' */
                .calls = have_statements ? db_number(pg, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s "
                                                         "JOIN pg_database d ON d.oid = s.dbid "
                                                         "WHERE d.datname = current_database() AND s.query NOT LIKE "
                                                         "'%pg_stat_replication%' AND s.query NOT LIKE 'LISTEN%' "
                                                         "AND s.query NOT LIKE '%pg_stat_statements%' "
                                                         "AND s.query NOT LIKE '%pg_current_snapshot%' "
                                                         "AND s.query NOT LIKE '%pg_current_wal_lsn%' "
                                                         "AND s.query NOT LIKE '%FROM match_inputs'") : -1,
                .notifies = __atomic_load_n(&notifies, __ATOMIC_RELAXED),
                .daemons_cpu = daemons_ticks(),
                .primary_cpu = primary_ticks(),
                .at_us = now_us(),
        };
        return c;
}

/* The load between a and b, per n of what the phase made (prefix_). */
static void print_load(const char *prefix, const char *per, const struct counters *a, const struct counters *b,
                       double n) {
        double secs = (double) (b->at_us - a->at_us) / 1e6;

        printf("%swal_bytes_per_%s %.0f\n", prefix, per, (b->lsn - a->lsn) / n);
        printf("%swrite_xacts_per_s %.1f\n%swrite_xacts_per_%s %.2f\n", prefix, (b->xid - a->xid) / secs, prefix, per,
               (b->xid - a->xid) / n);
        if (have_statements)
                printf("%sstatements_per_s %.1f\n%sstatements_per_%s %.2f\n", prefix, (b->calls - a->calls) / secs,
                       prefix, per, (b->calls - a->calls) / n);
        printf("%snotifies_per_%s %.2f\n", prefix, per, (double) (b->notifies - a->notifies) / n);
        if (postmaster_pid > 0) {
                double ms_per_tick = 1000.0 / (double) sysconf(_SC_CLK_TCK);
                printf("%sdaemons_cpu_ms_per_%s %.3f\n%sprimary_cpu_ms_per_%s %.3f\n", prefix, per,
                       (b->daemons_cpu - a->daemons_cpu) * ms_per_tick / n, prefix, per,
                       (b->primary_cpu - a->primary_cpu) * ms_per_tick / n);
        }
}

static void usage(void) {
        die("usage: league_drive --ports N,S,E --admin TOKEN --referee TOKEN --dsn DSN "
            "[--tables-per-venue N] [--players N] [--rounds N] [--inputs-per-table N] [--pids N,S,E,POSTMASTER] "
            "[--samples FILE]");
}

int main(int argc, char **argv) {
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
                if (!v)
                        usage();
                if (strcmp(a, "--ports") == 0 && sscanf(v, "%d,%d,%d", &ports[0], &ports[1], &ports[2]) == 3)
                        ;
                else if (strcmp(a, "--admin") == 0)
                        admin = v;
                else if (strcmp(a, "--referee") == 0)
                        referee = v;
                else if (strcmp(a, "--dsn") == 0)
                        dsn = v;
                else if (strcmp(a, "--tables-per-venue") == 0)
                        tables_per_venue = atoi(v);
                else if (strcmp(a, "--players") == 0)
                        n_players = atoi(v);
                else if (strcmp(a, "--rounds") == 0)
                        n_rounds = atoi(v);
                else if (strcmp(a, "--pids") == 0 &&
                         sscanf(v, "%d,%d,%d,%d", &daemon_pids[0], &daemon_pids[1], &daemon_pids[2], &postmaster_pid) == 4)
                        ;
                else if (strcmp(a, "--inputs-per-table") == 0)
                        inputs_per_table = atoi(v);
                else if (strcmp(a, "--samples") == 0)
                        samples_path = v;
                else
                        usage();
                i++;
        }
        if (!ports[0] || !admin || !referee || !dsn || tables_per_venue < 1 ||
            tables_per_venue > MAX_TABLES_PER_VENUE || n_players < 2 || n_rounds < 1)
                usage();

        fprintf(stderr, "league_drive: %d tables a venue, %d players, %d rounds\n", tables_per_venue, n_players,
                n_rounds);
        set_up();
        for (int v = 0; v < VENUES; v++) {
                streamers[v].venue = v;
                if (pthread_create(&streamers[v].thread, NULL, stream_main, &streamers[v]) != 0)
                        die("pthread_create failed");
        }
        for (int v = 0; v < VENUES; v++)
                for (int64_t deadline = now_us() + IO_TIMEOUT_S * 1000000LL;
                     !__atomic_load_n(&streamers[v].open, __ATOMIC_ACQUIRE); usleep(1000))
                        if (now_us() > deadline)
                                die("the %s stream did not open", venue_ids[v]);

        PGconn *pg = db_connect();
        pthread_t sampler, listener;
        have_statements = db_number(pg, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'") > 0;
        if (pthread_create(&sampler, NULL, sampler_main, NULL) != 0 ||
            pthread_create(&listener, NULL, listener_main, NULL) != 0)
                die("pthread_create failed");
        /* the listener listens before the play counts */
        for (int64_t deadline = now_us() + IO_TIMEOUT_S * 1000000LL;
             db_number(pg, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN arbiter_league%'") < 1;
             usleep(1000))
                if (now_us() > deadline)
                        die("the NOTIFY listener did not start");
        struct counters c0 = counters_now(pg);

        struct conn north = { .port = ports[0], .fd = -1 };
        int64_t t0 = now_us();
        for (int r = 0; r < n_rounds; r++) {
                play_round(&north);
                fprintf(stderr, "league_drive: round %d played (%d matches)\n", r + 1, n_matches);
        }
        int64_t t1 = now_us();

        /* every result on every stream */
        for (int64_t deadline = now_us() + DRAIN_TIMEOUT_US;; usleep(10000)) {
                int missing = 0;
                pthread_mutex_lock(&lock);
                for (int k = 0; k < n_matches; k++)
                        for (int v = 0; v < VENUES; v++)
                                missing += !matches[k].seen_us[v];
                pthread_mutex_unlock(&lock);
                if (!missing)
                        break;
                if (now_us() > deadline) {
                        fprintf(stderr, "league_drive: %d results never reached a stream\n", missing);
                        break;
                }
        }
        struct counters c1 = counters_now(pg);
        stop_sampling = true;
        pthread_join(sampler, NULL);
        stop_streams = true;
        for (int v = 0; v < VENUES; v++)
                pthread_join(streamers[v].thread, NULL);

        /* the inputs of long matches */
        struct counters c2 = counters_now(pg);
        pthread_t inputters[MAX_TABLES];
        for (int t = 0; t < n_tables && inputs_per_table > 0; t++)
                if (pthread_create(&inputters[t], NULL, inputs_main, (void *) (intptr_t) t) != 0)
                        die("pthread_create failed");
        for (int t = 0; t < n_tables && inputs_per_table > 0; t++)
                pthread_join(inputters[t], NULL);
        struct counters c3 = counters_now(pg);
        stop_listening = true;
        pthread_join(listener, NULL);
        c3.notifies = notifies;         /* what came in the listener's last turn */

        struct series own = { 0 }, cross = { 0 };
        FILE *f = samples_path ? fopen(samples_path, "w") : NULL;
        int unseen = 0;
        for (int k = 0; k < n_matches; k++) {
                struct stage_match *m = &matches[k];
                for (int v = 0; v < VENUES; v++) {
                        if (!m->seen_us[v]) {
                                unseen++;
                                continue;
                        }
                        double ms = (double) (m->seen_us[v] - m->answered_us) / 1000.0;
                        add(v == m->venue ? &own : &cross, ms);
                        if (f)
                                fprintf(f, "%s %.3f\n", v == m->venue ? "own" : "cross", ms);
                }
        }
        if (f)
                fclose(f);
        double secs = (double) (t1 - t0) / 1e6;
        printf("results %d\n", n_matches);
        printf("seconds %.3f\n", secs);
        printf("results_per_s %.1f\n", n_matches / secs);
        printf("unseen %d\n", unseen);
        printf("own_n %d\nown_p50_ms %.3f\nown_p99_ms %.3f\n", own.n, quantile(&own, 0.5), quantile(&own, 0.99));
        printf("cross_n %d\ncross_p50_ms %.3f\ncross_p99_ms %.3f\n", cross.n, quantile(&cross, 0.5),
               quantile(&cross, 0.99));
        printf("probe_lag_n %d\nprobe_lag_p50_ms %.0f\nprobe_lag_p99_ms %.0f\nprobe_lag_max_ms %.0f\n", probe_lag.n,
               quantile(&probe_lag, 0.5), quantile(&probe_lag, 0.99), quantile(&probe_lag, 1.0));
        printf("replay_lag_n %d\nreplay_lag_p50_ms %.3f\nreplay_lag_p99_ms %.3f\nreplay_lag_max_ms %.3f\n",
               replay_lag.n, quantile(&replay_lag, 0.5), quantile(&replay_lag, 0.99), quantile(&replay_lag, 1.0));
        /* the results' phase: its counters to the last result seen on a
         * stream (the rates over the play alone) */
        c1.at_us = c0.at_us + (t1 - t0);
        print_load("", "result", &c0, &c1, n_matches);
        double inputs = c3.inputs - c2.inputs;
        if (inputs > 0) {
                printf("inputs %.0f\ninput_seconds %.3f\ninputs_per_s %.1f\n", inputs,
                       (double) (c3.at_us - c2.at_us) / 1e6, inputs / ((double) (c3.at_us - c2.at_us) / 1e6));
                print_load("input_", "input", &c2, &c3, inputs);
        }
        PQfinish(pg);
        close(north.fd);
        free(north.buf);
        return 0;
}
