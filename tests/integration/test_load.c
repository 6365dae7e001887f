/* The chaos test of issue 11, "Load that a venue network can bring": a
 * Crash Pilot match is played on arbiter-padsim pads while 2,000 scoreboards
 * (event streams of the match, from 40 loopback addresses 127.0.1.x) and
 * four slow hosts (127.0.0.2–5, 64 connections each, a header line a second,
 * back a second after each close) take more connections than the pool has
 * (tests/load/loadgen.c drives them all).  It checks what a venue sees, not
 * how fast: health, referee and admin requests are answered; the excess is
 * refused with 503 and Retry-After; the match goes on being judged through
 * the pads; slow clients hold no more than their share; and a stream whose
 * client hangs up is freed before the next heartbeat.
 *
 * The pool: 2,100 connections, 64 of them reserved, so 2,036 for everyone
 * else; 2,002 streams at most (the test has two of its own).  The slow
 * hosts would need 256 more. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/loadgen_proc.h"
#include "tests/integration/sse_client.h"

#define STREAMS         2000
#define STREAM_FROM     "127.0.1.1-127.0.1.40"
#define SLOW_PER_HOST   "64"
#define SLOW_FROM       "127.0.0.2-127.0.0.5"
#define SLOW_HOSTS      4
/* [http] pending_per_ip's default: what one slow host may keep. */
#define PENDING_PER_IP  32
/* A heartbeat short enough to see a few in the test, long enough that a
 * loaded daemon on a slow machine keeps to it. */
#define HEARTBEAT_MS    2000
/* Keys an older arbiterd knows too, so that the test can be run against
 * one; pending_per_ip and request_timeout keep their defaults.  The
 * streams: the generator's 2,000 and the test's own two (judged, witness). */
static const char config_text[] =
        "[http]\n"
        "max_connections = 2100\n"
        "max_connections_per_ip = 64\n"
        "sse_max_streams = 2002\n"
        "sse_heartbeat = 2000\n"
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";
/* Streams asked for beyond the limit, and streams whose clients hang up. */
#define EXCESS          50
#define HANG_UPS        100
/* Judged calls the test makes while the venue is loaded. */
#define CALLS           3
/* Health requests while the slow hosts churn, spread over a few of their
 * one-second cycles. */
#define HEALTH_CHECKS   20
#define HEALTH_PACE_MS  250
/* A stream per 40 addresses, thousands of them under a sanitizer: the
 * generator's READY may take a while. */
#define LOAD_READY_MS   (4 * HARNESS_WAIT_MS)

/* padsim --uid-base 0x7700: pads no other test binds to a table. */
#define UID_BASE        "30464"
#define N_PADS          3
static const char *const pad_ids[N_PADS] = { "0000000000007700", "0000000000007701", "0000000000007702" };
#define DOESNT_FIT_BUTTON 6

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static struct loadgen_proc gen;
static struct stream judged, witness;
static char *link_path, *config_path, *admin_token, *referee_token;
static json_int_t match_id;
static size_t judged_at;

static json_t *status_http(void) {
        struct http_reply r;

        http_get(&daemon_, "/v1/status", admin_token, &r);
        if (r.status != 200)
                fail_msg("GET /v1/status: HTTP %ld: %s", r.status, r.body);
        json_t *h = json_incref(json_object_get(r.json, "http"));
        http_reply_done(&r);
        return h;
}

static json_int_t http_count(const char *a, const char *b) {
        json_t *h = status_http();
        json_t *v = b ? json_object_get(json_object_get(h, a), b) : json_object_get(h, a);
        if (!json_is_integer(v))
                fail_msg("/v1/status has no http.%s%s%s", a, b ? "." : "", b ? b : "");
        json_int_t n = json_integer_value(v);
        json_decref(h);
        return n;
}

static json_t *public_view(json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&daemon_, path, NULL, &r);
        if (r.status != 200)
                fail_msg("GET %s: HTTP %ld: %s", path, r.status, r.body);
        json_t *v = json_incref(json_object_get(r.json, "view"));
        http_reply_done(&r);
        return v;
}

static bool all_synced(void) {
        struct http_reply r;
        size_t i, n = 0;
        json_t *p;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                n += json_is_true(json_object_get(p, "connected")) &&
                     json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        http_reply_done(&r);
        return n == N_PADS;
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static int setup(void **state) {
        struct http_reply r;
        char body[512], path[96], count[16];
        (void) state;

        curl_global_init(CURL_GLOBAL_ALL);
        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("load")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);
        const char *sim_args[] = { "--pads", "3", "--link", link_path, "--seed", "17", "--uid-base", UID_BASE, NULL };
        padsim_start(&sim, sim_args);

        char *env_pads, *arg;
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d simulated pads did not all connect and sync", N_PADS);
                usleep(50000);
        }

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\"}, "
                 "{\"seat\": 2, \"pad\": \"%s\"}, {\"seat\": 3, \"pad\": \"%s\"}]}",
                 unique_name("loadtable"), pad_ids[0], pad_ids[1], pad_ids[2]);
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        json_int_t table = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        /* the next card 300 ms after each verdict: longer than the judge's
         * 250 ms cooldown, so a seat's next press always counts */
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\", "
                 "\"Cy\"], \"seed\": 7, \"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 60000}}}",
                 (long long) table);
        http_post_json(&daemon_, "/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        match_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) match_id);
        stream_open(&judged, daemon_.url, path, NULL);
        stream_open(&witness, daemon_.url, "/v1/events?topic=quiet", NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) match_id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);

        /* the venue: 2,000 scoreboards on the match, four slow hosts */
        snprintf(count, sizeof count, "%d", STREAMS);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) match_id);
        const char *gen_args[] = { "--streams", count, "--stream-from", STREAM_FROM, "--stream-path", path,
                                   "--slow", SLOW_PER_HOST, "--slow-from", SLOW_FROM, "--slow-interval", "1000",
                                   "--slow-reconnect", "1000", NULL };
        struct loadgen_status ready;
        int64_t t0 = mono_ms();
        loadgen_start(&gen, daemon_.port, gen_args, LOAD_READY_MS, &ready);
        print_message("# %u streams open in %lld ms\n", ready.streams, (long long) (mono_ms() - t0));
        if (ready.streams != STREAMS)
                fail_msg("%u of %d streams opened (%u refused, %u failed)", ready.streams, STREAMS, ready.refused,
                         ready.failed);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        loadgen_stop(&gen);
        stream_close(&judged);
        stream_close(&witness);
        int st = daemon_.pid > 0 ? daemon_stop(&daemon_, SIGTERM, NULL) : 0;
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(admin_token);
        free(referee_token);
        curl_global_cleanup();
        return st == 0 ? 0 : -1;
}

/* Health checks, a referee and an admin get their answers while the slow
 * hosts keep coming back for more than the pool has. */
static void health_referee_and_admin_requests_are_answered(void **state) {
        struct http_reply r;
        char path[96];
        (void) state;

        for (int i = 0; i < HEALTH_CHECKS; i++) {
                http_get(&daemon_, "/v1/health", NULL, &r);
                expect(&r, 200);
                http_reply_done(&r);
                usleep(HEALTH_PACE_MS * 1000);          /* a health checker's pace */
        }
        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) match_id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tokens", admin_token, &r);
        expect(&r, 200);
        http_reply_done(&r);
        /* and a scoreboard's read too: it takes the room of a slow client */
        json_decref(public_view(match_id));
        assert_true(http_count("connections", "streams") >= STREAMS);
}

/* Streams beyond the limit are refused at once, with Retry-After.  (They
 * come one after the other: in a burst into a full pool, some would be
 * closed unanswered instead, to make room — refused just as quickly.) */
static void the_excess_gets_503(void **state) {
        struct loadgen_status before, batch, after;
        char command[32];
        (void) state;

        loadgen_ask(&gen, "status", "STATUS", HARNESS_WAIT_MS, &before);
        snprintf(command, sizeof command, "open %d 1", EXCESS);
        loadgen_ask(&gen, command, "OPENED", HARNESS_WAIT_MS, &batch);
        assert_int_equal(batch.ok, 0);
        assert_int_equal(batch.refused, EXCESS);
        loadgen_ask(&gen, "status", "STATUS", HARNESS_WAIT_MS, &after);
        assert_int_equal(after.retry_after - before.retry_after, EXCESS);
        assert_int_equal(after.streams, STREAMS);
}

/* Slow hosts keep no more than pending_per_ip each: the rest are closed
 * (their oldest to make room, or at their deadline) and come back. */
static void slow_clients_hold_no_more_than_their_share(void **state) {
        struct loadgen_status st;
        (void) state;

        json_t *h = status_http();
        json_t *conns = json_object_get(h, "connections"), *closed = json_object_get(h, "closed");
        json_int_t pending = json_integer_value(json_object_get(conns, "pending"));
        json_int_t evictions = json_integer_value(json_object_get(closed, "evicted")) +
                               json_integer_value(json_object_get(closed, "evicted_address")) +
                               json_integer_value(json_object_get(closed, "request_timeout"));
        print_message("# pending %lld, closed so far %lld\n", (long long) pending, (long long) evictions);
        assert_true(pending <= SLOW_HOSTS * PENDING_PER_IP + HEALTH_CHECKS);
        assert_true(evictions > 0);
        json_decref(h);
        loadgen_ask(&gen, "status", "STATUS", HARNESS_WAIT_MS, &st);
        assert_true(st.slow_closed > 0);
}

/* Calls made on the pads are judged and published while it all goes on. */
static void the_match_keeps_being_judged(void **state) {
        json_int_t w = 0;
        (void) state;

        for (int i = 0; i < CALLS; i++) {
                json_t *v = cp_wait_window(public_view, match_id, w);
                int call = cp_pick_call(v, false);
                w = cp_window_id(v);
                json_decref(v);
                int pad = i % N_PADS;
                padsim_send(&sim, "{\"in_us\":1000,\"pad\":%d,\"button\":%d,\"press\":true}", pad,
                            call == CP_DOESNT_FIT_CALL ? DOESNT_FIT_BUTTON : call - 1);
                size_t k = wait_event(&judged, judged_at, "call_judged", NULL);
                judged_at = k + 1;
                assert_int_equal(json_integer_value(json_object_get(judged.events[k].data, "seat")), pad + 1);
                assert_string_equal(data_str(&judged.events[k], "verdict"), "correct");
        }
}

/* Right after a heartbeat, a hundred scoreboards hang up: their slots are
 * free before the next one. */
static void a_closed_streams_slot_is_free_within_one_heartbeat(void **state) {
        struct loadgen_status closed;
        char command[32];
        (void) state;

        /* what it was sent while nobody read it, then a fresh heartbeat */
        pump(&witness, 100);
        for (unsigned from = witness.heartbeats; witness.heartbeats == from;)
                pump(&witness, 10);
        unsigned beats = witness.heartbeats;
        json_int_t streams = http_count("streams", NULL);
        snprintf(command, sizeof command, "close %d", HANG_UPS);
        loadgen_ask(&gen, command, "CLOSED", HARNESS_WAIT_MS, &closed);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; http_count("streams", NULL) > streams - HANG_UPS;) {
                pump(&witness, 5);
                if (witness.heartbeats > beats)
                        fail_msg("a heartbeat (%d ms) went by and %lld of %d departed streams still hold their slots",
                                 HEARTBEAT_MS, (long long) (http_count("streams", NULL) - (streams - HANG_UPS)),
                                 HANG_UPS);
                if (mono_ms() > deadline)
                        fail_msg("the departed streams were never freed");
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(health_referee_and_admin_requests_are_answered),
                cmocka_unit_test(the_excess_gets_503),
                cmocka_unit_test(slow_clients_hold_no_more_than_their_share),
                cmocka_unit_test(the_match_keeps_being_judged),
                cmocka_unit_test(a_closed_streams_slot_is_free_within_one_heartbeat),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
