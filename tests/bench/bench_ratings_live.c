/* bench_ratings_live — the helper of tests/bench/ratings.sh (`make bench`,
 * issue 12): ratings at a million stored results, against a running
 * arbiterd and, for today's figures, the code that ran before.
 *
 *   bench_ratings_live before DSN GAME
 *       The way before issue 12, timed on the same stored results: every
 *       result of the game read as one JSON document (that code's query),
 *       parsed, recomputed with every history row and the rows and history
 *       serialised, all of which ran on the loop thread after each result
 *       (its functions are copied below from api/ratings.c at aa82639,
 *       unchanged but for the parameters, which are the defaults); then its
 *       write, against a table like the old rating_history, in a
 *       transaction rolled back, unless BENCH_BEFORE_WRITE=0 or the old
 *       query already failed: at a million results its one parameter of
 *       3.7 million history rows passes jsonb's limit too, after taking
 *       more than 13 GB of the server's memory (the bench machine's
 *       out-of-memory killer ended it once).
 *   bench_ratings_live idle PORT MS
 *       The longest GET /v1/health answer over MS milliseconds of an idle
 *       daemon, polled every millisecond: the floor of the stalls below.
 *   bench_ratings_live result PORT TOKEN TOURNAMENT MATCH PLAYER BODY
 *       Records the result BODY of stage match MATCH through the API, then
 *       measures the time until PLAYER's rating shows it (GET
 *       /v1/players/{id}: the game's "games" grows) and the loop's longest
 *       stall meanwhile.
 *   bench_ratings_live recompute PORT TOKEN TOURNAMENT
 *       POST .../recompute, then the time until GET /v1/status says the
 *       worker is done, the worker's own time for it, and the loop's longest
 *       stall meanwhile.
 *
 * The loop's stall is measured twice.  From inside: the daemon counts its
 * loop's turns by the CPU time each took (GET /v1/status "loop",
 * common/loop.h), read before and after.  From outside: a thread of its own
 * GETs /v1/health every millisecond on a connection of its own (a priority
 * request: api/pool.h) and reports the answers' p50, p99 and longest; a
 * callback that holds the loop for d milliseconds makes an answer take at
 * least d, and the figure includes the request's own time and whatever
 * else the machine runs (the idle floor says how much).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "tournament/glicko2.h"
#include "tournament/openskill.h"

#define TOUR_TIME(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
/* The health poll's period. */
#define POLL_PERIOD_NS          1000000L
/* The longest the bench waits for a rating to show or a recompute to end. */
#define WAIT_S                  600.0

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        fputs("bench_ratings_live: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        exit(1);
}

/* ---- before: the code of api/ratings.c at aa82639 ---------------------------------------- */

/* The done results of game $1 recorded in [$2, $3) (NULL: open), in the
 * order they were recorded, with every player's name and club. */
static const char results_sql[] =
        "SELECT jsonb_build_object('results', (SELECT coalesce(jsonb_agg(jsonb_build_object('m', m.id, "
        "    'at', " TOUR_TIME("m.recorded_at") ", 'result', m.result) ORDER BY m.recorded_at, m.id), '[]'::jsonb) "
        "    FROM stage_matches m JOIN stages s ON s.id = m.stage_id JOIN tournaments t ON t.id = s.tournament_id "
        "    WHERE t.game = $1 AND m.state = 'done' "
        "    AND ($2::date IS NULL OR m.recorded_at >= $2::date::timestamp AT TIME ZONE 'UTC') "
        "    AND ($3::date IS NULL OR m.recorded_at < $3::date::timestamp AT TIME ZONE 'UTC')), "
        "  'players', (SELECT coalesce(jsonb_object_agg(p.id, jsonb_build_object('name', p.name, 'club', p.club, "
        "    'active', p.active)), '{}'::jsonb) FROM players p))";

/* Everyone's ratings after a recompute; players[i] is dense index i. */
struct rated {
        size_t n;
        int64_t *players;
        struct tour_os_rating *os;
        unsigned *os_games;
        struct tour_glicko2_rating *g2;
        unsigned *g2_games;
        json_t *history;                /* [{player, m, system, before, after, at}] or NULL */
        /* for the history callbacks */
        json_t *results;
        const size_t *os_match, *g2_match;      /* recompute index → results index */
};

static void rated_free(struct rated *r) {
        free(r->players);
        free(r->os);
        free(r->os_games);
        free(r->g2);
        free(r->g2_games);
        json_decref(r->history);
        memset(r, 0, sizeof *r);
}

static size_t dense(struct rated *r, int64_t player) {
        for (size_t i = 0; i < r->n; i++)
                if (r->players[i] == player)
                        return i;
        r->players[r->n] = player;
        return r->n++;
}

static json_t *os_json(const struct tour_os_rating *x) {
        return json_pack("{s:f, s:f, s:f}", "mu", x->mu, "sigma", x->sigma, "ordinal", tour_os_ordinal(x));
}

static json_t *g2_json(const struct tour_glicko2_rating *x) {
        return json_pack("{s:f, s:f, s:f}", "rating", x->rating, "rd", x->rd, "volatility", x->vol);
}

static int os_history(const struct tour_os_history *row, void *userdata) {
        struct rated *r = userdata;
        json_t *res = json_array_get(r->results, r->os_match[row->match]);

        json_array_append_new(r->history, json_pack("{s:I, s:O, s:s, s:o, s:o, s:O}", "player",
                                                    (json_int_t) r->players[row->player], "m",
                                                    json_object_get(res, "m"), "system", "openskill", "before",
                                                    os_json(&row->before), "after", os_json(&row->after), "at",
                                                    json_object_get(res, "at")));
        return 0;
}

static int g2_history(const struct tour_glicko2_history *row, void *userdata) {
        struct rated *r = userdata;
        json_t *res = json_array_get(r->results, r->g2_match[row->match]);

        json_array_append_new(r->history, json_pack("{s:I, s:O, s:s, s:o, s:o, s:O}", "player",
                                                    (json_int_t) r->players[row->player], "m",
                                                    json_object_get(res, "m"), "system", "glicko2", "before",
                                                    g2_json(&row->before), "after", g2_json(&row->after), "at",
                                                    json_object_get(res, "at")));
        return 0;
}


/* Recomputes both systems over results ([{m, at, result}]).  0 or -errno
 * with err. */
static int recompute(json_t *results, bool want_history, struct rated *ret, char *err,
                     size_t len) {
        size_t n = json_array_size(results), n_duels = 0, i, k;
        struct tour_result *rs = calloc(n + 1, sizeof *rs);
        struct tour_rating_match *all = calloc(n + 1, sizeof *all), *duels = calloc(n + 1, sizeof *duels);
        size_t *os_match = calloc(n + 1, sizeof *os_match), *g2_match = calloc(n + 1, sizeof *g2_match);
        struct tour_os_params osp;
        struct tour_glicko2_params g2p;
        json_t *it, *p;
        int r = -ENOMEM;

        memset(ret, 0, sizeof *ret);
        ret->players = calloc(n * TOUR_MAX_SEATS + 1, sizeof *ret->players);
        if (!rs || !all || !duels || !os_match || !g2_match || !ret->players)
                goto done;
        json_array_foreach(results, i, it) {
                json_t *result = json_object_get(it, "result");
                struct tour_result *x = &rs[i];

                x->round = 1;
                x->n = (int) json_array_size(result);
                if (x->n < 1 || x->n > TOUR_MAX_SEATS) {
                        snprintf(err, len, "stage match %lld has a malformed result",
                                 (long long) json_integer_value(json_object_get(it, "m")));
                        r = -EINVAL;
                        goto done;
                }
                json_array_foreach(result, k, p) {
                        x->entrant[k] = (int32_t) dense(ret, json_integer_value(json_object_get(p, "player")));
                        x->rank[k] = (int) json_integer_value(json_object_get(p, "rank"));
                        x->forfeit[k] = json_is_true(json_object_get(p, "forfeit"));
                }
                all[i] = (struct tour_rating_match) { .r = x };
                os_match[i] = i;
                if (x->n == 2) {
                        g2_match[n_duels] = i;
                        duels[n_duels++] = (struct tour_rating_match) { .r = x };
                }
        }
        ret->os = calloc(ret->n + 1, sizeof *ret->os);
        ret->os_games = calloc(ret->n + 1, sizeof *ret->os_games);
        ret->g2 = calloc(ret->n + 1, sizeof *ret->g2);
        ret->g2_games = calloc(ret->n + 1, sizeof *ret->g2_games);
        ret->history = want_history ? json_array() : NULL;
        if (!ret->os || !ret->os_games || !ret->g2 || !ret->g2_games || (want_history && !ret->history))
                goto done;
        ret->results = results;
        ret->os_match = os_match;
        ret->g2_match = g2_match;
        tour_os_params_default(&osp);
        tour_glicko2_params_default(&g2p);
        r = tour_os_recompute(&osp, all, n, ret->n, ret->os, ret->os_games, want_history ? os_history : NULL, ret);
        if (r >= 0)
                r = tour_glicko2_recompute(&g2p, duels, n_duels, ret->n, ret->g2, ret->g2_games,
                                           want_history ? g2_history : NULL, ret);
        if (r < 0)
                snprintf(err, len, "the ratings cannot be computed: %s", strerror(-r));
        else
                r = 0;
done:
        if (r == -ENOMEM)
                snprintf(err, len, "out of memory");
        ret->results = NULL;
        ret->os_match = ret->g2_match = NULL;
        free(rs);
        free(all);
        free(duels);
        free(os_match);
        free(g2_match);
        return r;
}


/* Its write, after each result (on_ratings_results). */
static const char before_write_sql[] =
        "WITH x AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(player bigint, mu float8, "
        "             sigma float8, games int, g2_rating float8, g2_rd float8, g2_volatility float8, "
        "             g2_games int)), "
        "     h AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS h(player bigint, m bigint, "
        "             system text, before jsonb, after jsonb, at timestamptz)), "
        "     d AS (DELETE FROM ratings WHERE game = $1 AND player_id NOT IN (SELECT player FROM x)), "
        "     dh AS (DELETE FROM rating_history r WHERE game = $1 AND NOT EXISTS (SELECT 1 FROM h "
        "            WHERE h.player = r.player_id AND h.m = r.stage_match_id AND h.system = r.system)), "
        "     i AS (INSERT INTO ratings SELECT $1, player, mu, sigma, games, g2_rating, g2_rd, "
        "             g2_volatility, g2_games FROM x ON CONFLICT (game, player_id) DO UPDATE SET "
        "             mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
        "             g2_rating = excluded.g2_rating, g2_rd = excluded.g2_rd, "
        "             g2_volatility = excluded.g2_volatility, g2_games = excluded.g2_games) "
        "INSERT INTO rating_history SELECT $1, player, m, system, before, after, at FROM h "
        "ON CONFLICT (game, system, player_id, stage_match_id) DO UPDATE SET "
        "  before = excluded.before, after = excluded.after, at = excluded.at";

static void before(const char *dsn, const char *game) {
        PGconn *c = PQconnectdb(dsn);
        const char *p[] = { game, NULL, NULL };
        struct rated rt;
        char err[256];
        double t0, t_query, t_parse, t_rate, t_dump, t_write = -1;

        if (PQstatus(c) != CONNECTION_OK)
                die("cannot connect: %s", PQerrorMessage(c));
        PQclear(PQexec(c, "SET statement_timeout = 0"));
        bool query_failed = false;
        t0 = now_s();
        PGresult *res = PQexecParams(c, results_sql, 3, NULL, p, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
                query_failed = true;
                /* past a few hundred thousand results the one jsonb
                 * document passes PostgreSQL's limit for a jsonb array
                 * (256 MB): the old code then never rated again, and
                 * its leaderboard answered 500.  The rest of it is timed
                 * with the document built as json (1 GB limit). */
                char *sql = strdup(results_sql), *at;
                printf("before: the old query fails on these results: %s", PQresultErrorMessage(res));
                printf("    (so the old code rated nothing more, and its leaderboard failed); timed below with "
                       "json in place of jsonb in that query\n");
                PQclear(res);
                while ((at = strstr(sql, "jsonb")))
                        memmove(at + 4, at + 5, strlen(at + 5) + 1);
                t0 = now_s();
                res = PQexecParams(c, sql, 3, NULL, p, NULL, NULL, 0);
                free(sql);
                if (PQresultStatus(res) != PGRES_TUPLES_OK)
                        die("the old query, with json: %s", PQresultErrorMessage(res));
        }
        t_query = now_s() - t0;
        size_t bytes = (size_t) PQgetlength(res, 0, 0);

        /* from here on, what ran on the loop thread */
        t0 = now_s();
        json_t *j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        PQclear(res);
        if (!j)
                die("the old query's answer is not JSON");
        t_parse = now_s() - t0;
        size_t n = json_array_size(json_object_get(j, "results"));
        t0 = now_s();
        if (recompute(json_object_get(j, "results"), true, &rt, err, sizeof err) < 0)
                die("the old recompute: %s", err);
        t_rate = now_s() - t0;
        t0 = now_s();
        json_t *rows = json_array();
        for (size_t i = 0; i < rt.n; i++)
                json_array_append_new(rows, json_pack("{s:I, s:f, s:f, s:i, s:f, s:f, s:f, s:i}", "player",
                                                      (json_int_t) rt.players[i], "mu", rt.os[i].mu, "sigma",
                                                      rt.os[i].sigma, "games", (int) rt.os_games[i], "g2_rating",
                                                      rt.g2[i].rating, "g2_rd", rt.g2[i].rd, "g2_volatility",
                                                      rt.g2[i].vol, "g2_games", (int) rt.g2_games[i]));
        char *rows_text = json_dumps(rows, JSON_COMPACT), *hist_text = json_dumps(rt.history, JSON_COMPACT);
        json_decref(rows);
        size_t hist_rows = json_array_size(rt.history);
        rated_free(&rt);
        json_decref(j);
        t_dump = now_s() - t0;
        if (!rows_text || !hist_text)
                die("out of memory");

        const char *w = getenv("BENCH_BEFORE_WRITE");
        if (!query_failed && (!w || strcmp(w, "0") != 0)) {
                const char *wp[] = { game, rows_text, hist_text };
                PQclear(PQexec(c, "BEGIN"));
                /* the tables as migrations/0004 made them, in a schema of their
                 * own that the rollback takes away */
                res = PQexec(c, "CREATE SCHEMA before_12; SET LOCAL search_path = before_12, public; "
                                "CREATE TABLE before_12.rating_history (game text NOT NULL, player_id bigint NOT NULL "
                                "REFERENCES public.players (id), stage_match_id bigint NOT NULL "
                                "REFERENCES public.stage_matches (id) ON DELETE CASCADE, "
                                "system text NOT NULL CHECK (system IN ('openskill', 'glicko2')), "
                                "before jsonb NOT NULL, after jsonb NOT NULL, at timestamptz NOT NULL, "
                                "PRIMARY KEY (game, system, player_id, stage_match_id)); "
                                "CREATE TABLE before_12.ratings (LIKE public.ratings INCLUDING ALL, "
                                "FOREIGN KEY (player_id) REFERENCES public.players (id))");
                if (PQresultStatus(res) != PGRES_COMMAND_OK)
                        die("the old tables: %s", PQresultErrorMessage(res));
                PQclear(res);
                t0 = now_s();
                res = PQexecParams(c, before_write_sql, 3, NULL, wp, NULL, NULL, 0);
                t_write = now_s() - t0;
                if (PQresultStatus(res) != PGRES_COMMAND_OK) {
                        printf("before: the old write fails on these results after %.2f s: %s", t_write,
                               PQresultErrorMessage(res));
                        t_write = -2;
                }
                PQclear(res);
                PQclear(PQexec(c, "ROLLBACK"));
        }
        free(rows_text);
        free(hist_text);
        PQfinish(c);

        double loop = t_parse + t_rate + t_dump;
        printf("before (the code of aa82639), %zu results, %zu history rows:\n", n, hist_rows);
        printf("    the query (one JSON document of %.0f MB): %.2f s, off the loop\n", (double) bytes / 1e6, t_query);
        printf("    on the loop thread: parse %.2f s + recompute %.2f s + serialise %.2f s = a stall of %.2f s\n",
               t_parse, t_rate, t_dump, loop);
        if (t_write >= 0)
                printf("    the write: %.2f s; a result's rating visible after %.2f s in all\n", t_write,
                       t_query + loop + t_write);
        else if (t_write == -2)
                printf("    the write failed (above): no result's rating ever visible\n");
        else if (query_failed)
                printf("    the write: not run (the query failed before it; its 3.7 million rows in one jsonb "
                       "parameter fail too)\n");
        else
                printf("    the write: not run (BENCH_BEFORE_WRITE=0)\n");
        printf("    (GET /v1/leaderboards/{game} did the query, the parse and the recompute on every request)\n");
}

/* ---- HTTP, just enough ------------------------------------------------------------------- */

struct conn {
        int fd, port;
        char *buf;
        size_t len, cap;
};

static void conn_open(struct conn *c, int port) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        int one = 1;

        c->port = port;
        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        if (c->fd < 0 || connect(c->fd, (struct sockaddr *) &a, sizeof a) < 0)
                die("cannot connect to 127.0.0.1:%d: %s", port, strerror(errno));
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!c->buf) {
                c->cap = 1 << 20;
                c->buf = malloc(c->cap);
        }
        c->len = 0;
}

/* One request; returns the status, *ret_body points into the connection's
 * buffer (valid until the next request).  Reconnects once if the server
 * closed the connection. */
static int http(struct conn *c, const char *method, const char *path, const char *token, const char *body,
                const char **ret_body) {
        char req[4096], length[96] = "";

        if (body)
                snprintf(length, sizeof length, "Content-Type: application/json\r\nContent-Length: %zu\r\n",
                         strlen(body));
        int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%s%s\r\n%s", method, path,
                         token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "", length,
                         body ? body : "");
        if (n < 0 || (size_t) n >= sizeof req)
                die("%s %s: the request is too long", method, path);
        for (int attempt = 0; attempt < 2; attempt++) {
                size_t head = 0, need = 0;
                c->len = 0;
                if (write(c->fd, req, (size_t) n) != n)
                        goto again;
                for (;;) {
                        if (c->len + 65536 > c->cap) {
                                c->cap *= 2;
                                c->buf = realloc(c->buf, c->cap);
                        }
                        ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
                        if (r <= 0)
                                goto again;
                        c->len += (size_t) r;
                        c->buf[c->len] = '\0';
                        if (!head) {
                                char *end = strstr(c->buf, "\r\n\r\n");
                                if (!end)
                                        continue;
                                head = (size_t) (end - c->buf) + 4;
                                char *cl = strcasestr(c->buf, "\r\ncontent-length:");
                                need = head + (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
                        }
                        if (c->len >= need)
                                break;
                }
                *ret_body = c->buf + head;
                return atoi(c->buf + 9);
again:
                close(c->fd);
                conn_open(c, c->port);
        }
        die("%s %s: the connection failed", method, path);
}

/* ---- the stall poller ---------------------------------------------------------------------- */

struct poller {
        pthread_t thread;
        int port;
        atomic_bool stop;
        double *t;                      /* each answer's time, seconds */
        unsigned long polls, cap;
};

static void *poll_health(void *userdata) {
        struct poller *p = userdata;
        struct conn c = { 0 };
        struct timespec next;
        const char *body;

        conn_open(&c, p->port);
        clock_gettime(CLOCK_MONOTONIC, &next);
        while (!atomic_load(&p->stop)) {
                double t0 = now_s();
                int st = http(&c, "GET", "/v1/health", NULL, NULL, &body);
                double t = now_s() - t0;
                if (st != 200)
                        die("GET /v1/health: HTTP %d", st);
                if (p->polls == p->cap) {
                        p->cap = p->cap ? 2 * p->cap : 4096;
                        p->t = realloc(p->t, p->cap * sizeof *p->t);
                        if (!p->t)
                                die("out of memory");
                }
                p->t[p->polls++] = t;
                next.tv_nsec += POLL_PERIOD_NS;
                if (next.tv_nsec >= 1000000000L) {
                        next.tv_sec++;
                        next.tv_nsec -= 1000000000L;
                }
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        }
        close(c.fd);
        free(c.buf);
        return NULL;
}

static void poller_start(struct poller *p, int port) {
        memset(p, 0, sizeof *p);
        p->port = port;
        if (pthread_create(&p->thread, NULL, poll_health, p) != 0)
                die("cannot start the poller");
}

static int by_time(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* Stops the poller; "p50 p99 longest (n)" in milliseconds, in buf. */
static const char *poller_stop(struct poller *p, char *buf, size_t len) {
        atomic_store(&p->stop, true);
        pthread_join(p->thread, NULL);
        if (!p->polls) {
                snprintf(buf, len, "no answer");
                return buf;
        }
        qsort(p->t, p->polls, sizeof *p->t, by_time);
        snprintf(buf, len, "p50 %.2f ms, p99 %.2f ms, longest %.2f ms (%lu answers)", p->t[p->polls / 2] * 1e3,
                 p->t[p->polls * 99 / 100] * 1e3, p->t[p->polls - 1] * 1e3, p->polls);
        free(p->t);
        p->t = NULL;
        return buf;
}

static json_t *get_json(struct conn *c, const char *path, const char *token) {
        const char *body;
        int st = http(c, "GET", path, token, NULL, &body);
        json_t *j = json_loads(body, 0, NULL);

        if (st != 200 || !j)
                die("GET %s: HTTP %d: %.200s", path, st, body);
        return j;
}

/* The games of player in game, as GET /v1/players/{id} shows them. */
static long games_of(struct conn *c, const char *token, const char *player, const char *game) {
        char path[96];
        size_t i;
        json_t *r, *j;
        long games = 0;

        snprintf(path, sizeof path, "/v1/players/%s", player);
        j = get_json(c, path, token);
        json_array_foreach(json_object_get(j, "ratings"), i, r)
                if (strcmp(json_string_value(json_object_get(r, "game")) ?: "", game) == 0)
                        games = (long) json_integer_value(json_object_get(r, "games"));
        json_decref(j);
        return games;
}

/* The loop's own count of long turns (GET /v1/status "loop"). */
struct turns {
        long long turns, over[4];
        double longest_ms;
};

static struct turns turns_now(struct conn *c, const char *token) {
        static const char *const keys[] = { "1", "5", "20", "100" };
        json_t *s = get_json(c, "/v1/status", token), *l = json_object_get(s, "loop");
        struct turns t = { .turns = (long long) json_integer_value(json_object_get(l, "turns")),
                           .longest_ms = json_number_value(json_object_get(l, "longest_turn_ms")) };

        for (int i = 0; i < 4; i++)
                t.over[i] = (long long) json_integer_value(json_object_get(json_object_get(l, "turns_over_ms"),
                                                                           keys[i]));
        json_decref(s);
        return t;
}

/* "turns over 1, 5, 20, 100 ms" between two counts, in buf. */
static const char *turns_between(const struct turns *a, const struct turns *b, char *buf, size_t len) {
        snprintf(buf, len, "%lld loop turns, of which %lld took 1 ms of CPU or more, %lld 5 ms or more, %lld 20 ms, "
                 "%lld 100 ms", b->turns - a->turns, b->over[0] - a->over[0], b->over[1] - a->over[1],
                 b->over[2] - a->over[2], b->over[3] - a->over[3]);
        return buf;
}

static void idle(int port, int ms) {
        struct poller p;
        struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };

        char figures[160];

        poller_start(&p, port);
        nanosleep(&d, NULL);
        printf("idle, %d ms: GET /v1/health every millisecond: %s\n", ms, poller_stop(&p, figures, sizeof figures));
}

static void result(int port, const char *token, const char *tournament, const char *match, const char *player,
                   const char *body) {
        struct conn c = { 0 };
        struct poller p;
        char path[128];
        const char *reply;
        double t0, t;
        long before_games;

        conn_open(&c, port);
        before_games = games_of(&c, token, player, "crash-pilot");
        struct turns t_before = turns_now(&c, token);
        poller_start(&p, port);
        snprintf(path, sizeof path, "/v1/tournaments/%s/matches/%s/result", tournament, match);
        t0 = now_s();
        int st = http(&c, "POST", path, token, body, &reply);
        if (st != 200)
                die("POST %s: HTTP %d: %.300s", path, st, reply);
        double t_reply = now_s() - t0;
        for (;;) {
                if (games_of(&c, token, player, "crash-pilot") > before_games)
                        break;
                if (now_s() - t0 > WAIT_S)
                        die("the rating of player %s never showed the result", player);
        }
        t = now_s() - t0;
        char figures[160], turns[200];
        struct turns t_after = turns_now(&c, token);
        printf("after: a new result recorded (answered in %.1f ms); its rating visible after %.1f ms "
               "(GET /v1/players/{id});\n    meanwhile %s;\n    GET /v1/health meanwhile: %s\n", t_reply * 1e3,
               t * 1e3, turns_between(&t_before, &t_after, turns, sizeof turns),
               poller_stop(&p, figures, sizeof figures));
        close(c.fd);
        free(c.buf);
}

static void recompute_live(int port, const char *token, const char *tournament) {
        struct conn c = { 0 };
        struct poller p;
        char path[96];
        const char *reply;
        double t0, t;

        conn_open(&c, port);
        json_t *s = get_json(&c, "/v1/status", token);
        json_int_t before = json_integer_value(json_object_get(json_object_get(s, "ratings"), "recomputes"));
        json_decref(s);
        struct turns t_before = turns_now(&c, token);
        poller_start(&p, port);
        snprintf(path, sizeof path, "/v1/tournaments/%s/recompute", tournament);
        t0 = now_s();
        int st = http(&c, "POST", path, token, "{}", &reply);
        if (st != 202)
                die("POST %s: HTTP %d: %.300s", path, st, reply);
        for (;;) {
                struct timespec ten = { .tv_nsec = 10000000L };
                s = get_json(&c, "/v1/status", token);
                json_t *r = json_object_get(s, "ratings");
                if (json_integer_value(json_object_get(r, "recomputes")) > before &&
                    json_is_false(json_object_get(r, "busy")))
                        break;
                json_decref(s);
                if (now_s() - t0 > WAIT_S)
                        die("the recompute never ended");
                nanosleep(&ten, NULL);
        }
        t = now_s() - t0;
        char figures[160], turns[200];
        json_t *last = json_object_get(json_object_get(s, "ratings"), "last_recompute");
        struct turns t_after = turns_now(&c, token);
        printf("after: a full recompute of %lld results (POST .../recompute) done in %.2f s, the worker's own "
               "%.2f s, off the loop;\n    meanwhile %s;\n    GET /v1/health meanwhile: %s\n",
               (long long) json_integer_value(json_object_get(last, "results")), t,
               json_number_value(json_object_get(last, "seconds")),
               turns_between(&t_before, &t_after, turns, sizeof turns), poller_stop(&p, figures, sizeof figures));
        json_decref(s);
        close(c.fd);
        free(c.buf);
}

int main(int argc, char **argv) {
        if (argc == 4 && strcmp(argv[1], "before") == 0)
                before(argv[2], argv[3]);
        else if (argc == 4 && strcmp(argv[1], "idle") == 0)
                idle(atoi(argv[2]), atoi(argv[3]));
        else if (argc == 8 && strcmp(argv[1], "result") == 0)
                result(atoi(argv[2]), argv[3], argv[4], argv[5], argv[6], argv[7]);
        else if (argc == 5 && strcmp(argv[1], "recompute") == 0)
                recompute_live(atoi(argv[2]), argv[3], argv[4]);
        else
                die("usage: before DSN GAME | idle PORT MS | result PORT TOKEN TOURNAMENT MATCH PLAYER BODY | "
                    "recompute PORT TOKEN TOURNAMENT");
        return 0;
}
