/* What a venue network can do to the HTTP server, one thing at a time
 * (issue 11; api/pool.h): a request that trickles in is closed at its
 * deadline, not kept by an idle timeout it keeps resetting; a slow host
 * behind a NAT does not lock its neighbours out; when streams fill the
 * pool, health checks, referees and admins are still answered and the rest
 * is refused at once with 503 and Retry-After; refused tokens and bodies
 * (401, 403, 413) are counted in /v1/status and logged, with who, which
 * route and which token, never more than a burst a minute.
 *
 * The first daemon runs with the defaults (request_timeout 10 s,
 * pending_per_ip 32); the pool test starts one of its own with a small
 * pool.  Slow clients are raw sockets bound to other loopback addresses
 * (tests/integration/raw_http.h), streams come from the load generator. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/loadgen_proc.h"
#include "tests/integration/raw_http.h"
#include "tests/integration/sse_client.h"

/* [http] request_timeout's default, and how long a test lets a slow
 * request trickle before it calls the server's patience a failure. */
#define REQUEST_TIMEOUT_S 10
#define TRICKLE_GUARD_S (2 * REQUEST_TIMEOUT_S + 5)
/* [http] pending_per_ip's default, and the slow connections one host opens
 * in the NAT test: more than the old per-address limit of 64. */
#define PENDING_PER_IP 32
#define NAT_SLOW 70
/* The small pool: 96 connections, 64 of them reserved (the default), so 32
 * streams fill what everyone shares; the generator asks for 40. */
static const char small_pool_conf[] =
        "[http]\n"
        "max_connections = 96\n"
        "max_connections_per_ip = 1024\n"
        "sse_max_streams = 200\n";
#define SMALL_POOL_SHARED 32
#define SMALL_POOL_ASKED 40
/* common/ratelimit.h in api/server.c: refused requests logged per minute. */
#define AUTH_LOG_BURST 10

static struct daemon_proc daemon_;
static char *admin_token, *display_token, *referee_token;
static char display_name[64];

static int setup(void **state) {
        (void) state;
        curl_global_init(CURL_GLOBAL_DEFAULT);
        admin_token = create_token("admin", unique_name("admin"));
        snprintf(display_name, sizeof display_name, "%s", unique_name("display"));
        display_token = create_token("display", display_name);
        referee_token = create_token("referee", unique_name("referee"));
        daemon_start(&daemon_, NULL, NULL, true);
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_.pid > 0 ? daemon_stop(&daemon_, SIGTERM, NULL) : 0;
        free(admin_token);
        free(display_token);
        free(referee_token);
        curl_global_cleanup();
        return st == 0 ? 0 : -1;
}

/* http.A.B of /v1/status; -1 when it has no such member (a test reads
 * counters before it acts and checks them after what it checks first). */
static json_int_t status_count(const struct daemon_proc *d, const char *token, const char *a, const char *b) {
        struct http_reply r;

        http_get(d, "/v1/status", token, &r);
        if (r.status != 200)
                fail_msg("GET /v1/status: HTTP %ld: %s", r.status, r.body);
        json_t *v = json_object_get(json_object_get(json_object_get(r.json, "http"), a), b);
        json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
        http_reply_done(&r);
        return n;
}

static json_int_t status_int(const struct daemon_proc *d, const char *token, const char *a, const char *b) {
        json_int_t n = status_count(d, token, a, b);

        if (n < 0)
                fail_msg("/v1/status has no http.%s.%s", a, b);
        return n;
}

/* Two requests trickle in — headers one line a second, and a body one byte
 * a second after whole headers — each well within any idle timeout: both
 * are closed once request_timeout has passed since they began. */
static void a_request_that_trickles_in_is_closed_at_its_deadline(void **state) {
        (void) state;
        json_int_t before = status_count(&daemon_, NULL, "closed", "request_timeout");
        int headers = raw_connect("127.0.0.2", daemon_.port);
        int body = raw_connect("127.0.0.3", daemon_.port);
        bool headers_open = true, body_open = true;
        int64_t start = mono_ms();

        assert_true(raw_send(headers, "GET /v1/health HTTP/1.1\r\nHost: arbiter\r\n"));
        assert_true(raw_send(body, "POST /v1/tokens HTTP/1.1\r\nHost: arbiter\r\nContent-Type: application/json\r\n"
                                   "Authorization: Bearer "));
        assert_true(raw_send(body, admin_token));
        assert_true(raw_send(body, "\r\nContent-Length: 64\r\n\r\n{"));
        for (int s = 0; s < TRICKLE_GUARD_S && (headers_open || body_open); s++) {
                char line[64];

                snprintf(line, sizeof line, "X-Line-%d: more\r\n", s);
                headers_open = headers_open && raw_send(headers, line) && !raw_closed(headers, 0);
                body_open = body_open && raw_send(body, " ") && !raw_closed(body, 0);
                usleep(1000 * 1000);            /* the pace of the trickle, not a wait for an outcome */
        }
        int64_t took = mono_ms() - start;
        close(headers);
        close(body);
        if (headers_open || body_open)
                fail_msg("after %d s of trickling, the server still holds the %s", TRICKLE_GUARD_S,
                         headers_open ? "request whose headers trickle" : "request whose body trickles");
        print_message("# both trickling requests closed after %lld ms (request_timeout %d s)\n", (long long) took,
                      REQUEST_TIMEOUT_S);
        /* not before their deadline, either */
        assert_true(took >= (REQUEST_TIMEOUT_S - 1) * 1000);
        assert_true(status_int(&daemon_, NULL, "closed", "request_timeout") >= before + 2);
}

/* One host behind a NAT opens more slow connections than the old
 * per-address limit: its neighbour at the same address still gets in, and
 * the slow host keeps no more than pending_per_ip of them. */
static void a_slow_host_behind_a_nat_does_not_lock_out_its_neighbours(void **state) {
        int slow[NAT_SLOW];
        char head[1024];
        (void) state;

        json_int_t before = status_count(&daemon_, NULL, "closed", "evicted_address");
        for (int i = 0; i < NAT_SLOW; i++) {
                slow[i] = raw_connect("127.0.0.4", daemon_.port);
                assert_true(raw_send(slow[i], "GET /v1/health HTTP/1.1\r\n"));
        }
        long st = raw_request("127.0.0.4", daemon_.port, "GET", "/v1/health", NULL, head, sizeof head);
        if (st != 200)
                fail_msg("GET /v1/health from the slow host's address: %ld (%s)", st, head);
        st = raw_request("127.0.0.4", daemon_.port, "GET", "/v1", NULL, head, sizeof head);
        if (st != 200)
                fail_msg("GET /v1 from the slow host's address: %ld (%s)", st, head);

        /* the slow host's oldest connections went to make room */
        unsigned closed = 0;
        for (int i = 0; i < NAT_SLOW; i++) {
                closed += raw_closed(slow[i], i < NAT_SLOW - PENDING_PER_IP ? 1000 : 0);
                close(slow[i]);
        }
        print_message("# %u of the slow host's %d connections closed to make room\n", closed, NAT_SLOW);
        assert_true(closed >= NAT_SLOW - PENDING_PER_IP);
        assert_true(status_int(&daemon_, NULL, "closed", "evicted_address") >= before + NAT_SLOW - PENDING_PER_IP);
}

/* Streams fill what everyone shares: a stream or a request beyond it is
 * refused at once (503, Retry-After), while health, referee and admin
 * requests — a referee's stream too — are answered. */
static void health_referees_and_admins_find_room_when_the_pool_is_full(void **state) {
        struct daemon_proc small;
        struct loadgen_proc gen;
        struct loadgen_status ready, now;
        struct stream referee_stream;
        struct http_reply r;
        char *conf, *arg, head[2048], count[16];
        (void) state;

        assert_true(asprintf(&conf, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("pool")) > 0);
        FILE *f = fopen(conf, "w");
        assert_non_null(f);
        fputs(small_pool_conf, f);
        fclose(f);
        assert_true(asprintf(&arg, "--config=%s", conf) > 0);
        const char *args[] = { arg, NULL };
        const char *env[] = { "ARBITER_BUS=none", NULL };     /* the first daemon owns the name */
        daemon_start(&small, env, args, true);
        assert_true(wait_tokens_loaded(&small, HARNESS_WAIT_MS));

        snprintf(count, sizeof count, "%d", SMALL_POOL_ASKED);
        /* one after the other, so that each finds the pool as the last one left it */
        const char *gen_args[] = { "--streams", count, "--stream-from", "127.0.2.1-127.0.2.4", "--opening", "1",
                                   NULL };
        loadgen_start(&gen, small.port, gen_args, HARNESS_WAIT_MS, &ready);
        assert_int_equal(ready.streams, SMALL_POOL_SHARED);
        assert_int_equal(ready.refused, SMALL_POOL_ASKED - SMALL_POOL_SHARED);
        loadgen_ask(&gen, "status", "STATUS", HARNESS_WAIT_MS, &now);
        assert_int_equal(now.retry_after, SMALL_POOL_ASKED - SMALL_POOL_SHARED);

        /* anyone else's request: refused at once, told when to retry */
        assert_int_equal(raw_request("127.0.0.1", small.port, "GET", "/v1/matches", NULL, head, sizeof head), 503);
        assert_non_null(strcasestr(head, "\r\nRetry-After: "));
        assert_int_equal(raw_request("127.0.0.1", small.port, "GET", "/v1/matches", display_token, head,
                                     sizeof head), 503);

        /* health, a referee, an admin: answered */
        for (int i = 0; i < 3; i++) {
                http_get(&small, "/v1/health", NULL, &r);
                assert_int_equal(r.status, 200);
                http_reply_done(&r);
        }
        http_get(&small, "/v1/matches", referee_token, &r);
        assert_int_equal(r.status, 200);
        http_reply_done(&r);
        http_get(&small, "/v1/tokens", admin_token, &r);
        assert_int_equal(r.status, 200);
        http_reply_done(&r);
        char path[160];
        snprintf(path, sizeof path, "/v1/events?topic=pads&access_token=%s", referee_token);
        stream_open(&referee_stream, small.url, path, NULL);
        stream_close(&referee_stream);

        assert_true(status_int(&small, admin_token, "refused", "full") >= 2);
        assert_int_equal(status_int(&small, admin_token, "connections", "streams"), SMALL_POOL_SHARED);

        loadgen_stop(&gen);
        assert_int_equal(daemon_stop(&small, SIGTERM, NULL), 0);
        free(arg);
        free(conf);
}

static size_t log_count(const struct daemon_proc *d, const char *needle) {
        char *log = daemon_log(d);
        size_t n = 0;

        for (const char *at = log; (at = strstr(at, needle)); at += strlen(needle))
                n++;
        free(log);
        return n;
}

/* 401, 403 and 413 are counted and logged: who (the address), which route,
 * which token when it is known; a flood of them is logged as a burst. */
static void refused_requests_are_counted_and_logged(void **state) {
        struct http_reply r;
        char url[128], needle[256];
        (void) state;

        json_int_t unauthorized = status_count(&daemon_, NULL, "failed", "unauthorized");
        json_int_t forbidden = status_count(&daemon_, NULL, "failed", "forbidden");
        json_int_t too_large = status_count(&daemon_, NULL, "failed", "too_large");

        http_get(&daemon_, "/v1/tokens", NULL, &r);
        assert_int_equal(r.status, 401);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tokens", display_token, &r);
        assert_int_equal(r.status, 403);
        http_reply_done(&r);
        size_t n = 2u << 20;
        char *big = malloc(n + 1);
        assert_non_null(big);
        memset(big, ' ', n);
        big[0] = '{';
        big[n - 1] = '}';
        big[n] = '\0';
        snprintf(url, sizeof url, "%s/v1/tokens", daemon_.url);
        harness_expect_continue = true;
        http_request("POST", url, admin_token, "application/json", big, n, &r);
        harness_expect_continue = false;
        assert_int_equal(r.status, 413);
        http_reply_done(&r);
        free(big);

        assert_int_equal(status_int(&daemon_, NULL, "failed", "unauthorized"), unauthorized + 1);
        assert_int_equal(status_int(&daemon_, NULL, "failed", "forbidden"), forbidden + 1);
        assert_int_equal(status_int(&daemon_, NULL, "failed", "too_large"), too_large + 1);
        assert_true(daemon_wait_log(&daemon_, "HTTP 401 to GET /v1/tokens from 127.0.0.1", HARNESS_WAIT_MS));
        /* the token's name, never the token */
        char *log = daemon_log(&daemon_);
        assert_null(strstr(log, display_token));
        assert_null(strstr(log, admin_token));
        free(log);
        snprintf(needle, sizeof needle, "HTTP 403 to GET /v1/tokens from 127.0.0.1 with token \"%s\"", display_name);
        assert_true(daemon_wait_log(&daemon_, needle, HARNESS_WAIT_MS));
        assert_true(daemon_wait_log(&daemon_, "HTTP 413 to POST /v1/tokens from 127.0.0.1 with token",
                                    HARNESS_WAIT_MS));

        /* a flood: every one counted, a burst logged */
        size_t lines = log_count(&daemon_, "HTTP 401 to ");
        for (int k = 0; k < 3 * AUTH_LOG_BURST; k++) {
                http_get(&daemon_, "/v1/tokens", "arb_notAtokenAtAllnotAtokenAtAllnotAtokenAtAll1", &r);
                assert_int_equal(r.status, 401);
                http_reply_done(&r);
        }
        assert_int_equal(status_int(&daemon_, NULL, "failed", "unauthorized"), unauthorized + 1 + 3 * AUTH_LOG_BURST);
        size_t logged = log_count(&daemon_, "HTTP 401 to ") - lines;
        print_message("# %d refused tokens, %zu logged\n", 3 * AUTH_LOG_BURST, logged);
        assert_true(logged < AUTH_LOG_BURST);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_request_that_trickles_in_is_closed_at_its_deadline),
                cmocka_unit_test(a_slow_host_behind_a_nat_does_not_lock_out_its_neighbours),
                cmocka_unit_test(health_referees_and_admins_find_room_when_the_pool_is_full),
                cmocka_unit_test(refused_requests_are_counted_and_logged),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
