/* GET /v1/events end to end: a real libcurl client reading the stream as
 * it arrives, arbiter-padsim on a real pty producing the pad events.  The
 * stream opens at once with SSE headers; pads and presses arrive with ids;
 * a client that reconnects with Last-Event-ID gets exactly what it missed;
 * ids of another run get a reset; idle streams get heartbeats and a client
 * that leaves is noticed; streams beyond the limit get 503; SIGTERM ends
 * the streams and the daemon exits at once. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

/* A short heartbeat so that the tests see several and a departed client is
 * noticed quickly; three streams so that the fourth is refused. */
#define HEARTBEAT_MS 300
#define MAX_STREAMS  3
static const char config_text[] =
        "[http]\n"
        "sse_heartbeat = 300\n"
        "sse_max_streams = 3\n"
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 4096: pad 0 is uid 0x1000, pad 1 is 0x1001 */
#define PAD0 "0000000000001000"
#define PAD1 "0000000000001001"

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path;

static json_int_t health_int(const char *object, const char *key) {
        struct http_reply r;
        http_get(&daemon_, "/v1/status", NULL, &r);
        assert_int_equal(r.status, 200);
        json_int_t v = json_integer_value(json_object_get(json_object_get(r.json, object), key));
        http_reply_done(&r);
        return v;
}

static char *health_last_id(void) {
        struct http_reply r;
        http_get(&daemon_, "/v1/status", NULL, &r);
        char *id = strdup(json_string_value(json_object_get(json_object_get(r.json, "events"), "last_id")));
        http_reply_done(&r);
        return id;
}

static bool wait_streams(json_int_t n) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; mono_ms() < deadline; usleep(20000))
                if (health_int("http", "streams") == n)
                        return true;
        return false;
}

static json_t *wait_presses(json_int_t after, size_t n) {
        char path[64];
        snprintf(path, sizeof path, "/v1/presses?after=%lld", (long long) after);
        for (int i = 0; i < HARNESS_WAIT_MS / 50; i++) {
                struct http_reply r;
                http_get(&daemon_, path, NULL, &r);
                json_t *items = json_incref(json_object_get(r.json, "items"));
                http_reply_done(&r);
                if (json_array_size(items) >= n)
                        return items;
                json_decref(items);
                usleep(50000);
        }
        fail_msg("%zu presses after %lld did not arrive", n, (long long) after);
        return NULL;
}

static int setup(void **state) {
        (void) state;
        curl_global_init(CURL_GLOBAL_DEFAULT);
        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("events")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        /* The daemon starts before the pads exist (it retries the port), so
         * that a stream can be open when they appear. */
        char *env_pads, *arg;
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_.pid > 0 ? daemon_stop(&daemon_, SIGTERM, NULL) : 0;
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        curl_global_cleanup();
        return st == 0 ? 0 : -1;
}

static void a_stream_opens_at_once_and_a_departed_client_is_noticed(void **state) {
        struct stream st;
        (void) state;

        stream_open(&st, daemon_.url, "/v1/events?topic=pads", NULL);
        long status = 0;
        curl_easy_getinfo(st.easy, CURLINFO_RESPONSE_CODE, &status);
        assert_int_equal(status, 200);
        assert_string_equal(st.content_type, "text/event-stream");
        assert_string_equal(st.cache_control, "no-store");
        assert_string_equal(st.accel_buffering, "no");
        assert_true(strncmp(st.buf, "retry: 2000\n:", 13) == 0);
        assert_int_equal(st.n_events, 0);
        assert_int_equal(health_int("http", "streams"), 1);
        /* a stream is not work in flight: only the health request is */
        assert_int_equal(health_int("http", "active_requests"), 1);

        stream_close(&st);
        /* suspended connections notice nothing: the next heartbeat's write does */
        assert_true(wait_streams(0));
}

/* A client that hangs up frees its stream's slot within one heartbeat
 * (api/events.c, "A client that hangs up"), although the first write after
 * its FIN would still succeed.  A witness stream, idle, counts the hub's
 * heartbeats; right after one, a second stream's client reads what it was
 * sent and closes cleanly, and its slot must be free before the witness's
 * next heartbeat. */
static void a_departed_clients_slot_is_free_within_one_heartbeat(void **state) {
        struct stream witness, leaving;
        unsigned beats;
        (void) state;

        assert_true(wait_streams(0));
        stream_open(&witness, daemon_.url, "/v1/events?topic=quiet", NULL);
        stream_open(&leaving, daemon_.url, "/v1/events?topic=quiet", NULL);
        assert_int_equal(health_int("http", "streams"), 2);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS, from = witness.heartbeats;
             witness.heartbeats == (unsigned) from && mono_ms() < deadline;)
                pump(&witness, 10);
        beats = witness.heartbeats;
        pump(&leaving, 20);             /* its heartbeat read: it closes with a FIN, not a reset */
        stream_close(&leaving);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; health_int("http", "streams") != 1;) {
                pump(&witness, 5);
                if (witness.heartbeats > beats)
                        fail_msg("a heartbeat went by and the departed client's stream still holds its slot");
                if (mono_ms() > deadline)
                        fail_msg("the departed client's stream was never freed");
        }
        stream_close(&witness);
        assert_true(wait_streams(0));
}

static void idle_streams_get_heartbeats(void **state) {
        struct stream st;
        (void) state;

        stream_open(&st, daemon_.url, "/v1/events", NULL);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; st.heartbeats < 3 && mono_ms() < deadline;)
                pump(&st, 50);
        assert_true(st.heartbeats >= 3);
        assert_false(st.done);
        stream_close(&st);
}

static void pads_and_presses_stream_and_a_reconnect_gets_exactly_what_it_missed(void **state) {
        struct stream st;
        (void) state;

        stream_open(&st, daemon_.url, "/v1/events?topic=pads", NULL);
        const char *sim_args[] = { "--pads", "2", "--link", link_path, "--seed", "7", "--uid-base", "4096", NULL };
        padsim_start(&sim, sim_args);

        const char *pads[] = { PAD0, PAD1 };
        for (size_t i = 0; i < 2; i++) {
                struct event *ev = &st.events[wait_event(&st, 0, "pad_added", pads[i])];
                assert_string_equal(data_str(ev, "kind"), "buttons");
                assert_string_equal(data_str(ev, "port"), link_path);
                assert_true(json_integer_value(json_object_get(ev->data, "address")) >= 1);
                assert_int_equal(json_integer_value(json_object_get(ev->data, "buttons")), 7);
                unsigned epoch;
                unsigned long long n;
                char rest;
                if (sscanf(ev->id, "%8x-%llu%c", &epoch, &n, &rest) != 2)
                        fail_msg("event id \"%s\" is not <boot>-<n>", ev->id);
        }

        padsim_send(&sim, "{\"pad\":0,\"button\":2,\"press\":true}");
        size_t k = wait_event(&st, 0, "pressed", PAD0);
        struct event *first = &st.events[k];
        assert_int_equal(json_integer_value(json_object_get(first->data, "button")), 2);
        const char *fields[] = { "seq", "time_us", "uncertainty_us", "received_us" };
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
                assert_true(json_is_integer(json_object_get(first->data, fields[i])));
        assert_true(json_is_boolean(json_object_get(first->data, "late")));
        assert_true(json_is_boolean(json_object_get(first->data, "clock_fallback")));
        char first_id[48];
        snprintf(first_id, sizeof first_id, "%s", first->id);
        json_int_t first_seq = json_integer_value(json_object_get(first->data, "seq"));
        stream_close(&st);

        /* pressed while nobody listens */
        padsim_send(&sim, "{\"pad\":1,\"button\":5,\"press\":true}");
        json_decref(wait_presses(first_seq, 1));

        /* by header, then by query parameter: the missed press, once, and nothing else */
        for (int how = 0; how < 2; how++) {
                char path[128];
                snprintf(path, sizeof path, "/v1/events?topic=pads%s%s", how ? "&last_event_id=" : "",
                         how ? first_id : "");
                stream_open(&st, daemon_.url, path, how ? NULL : first_id);
                size_t m = wait_event(&st, 0, "pressed", PAD1);
                assert_int_equal(json_integer_value(json_object_get(st.events[m].data, "button")), 5);
                assert_int_equal(json_integer_value(json_object_get(st.events[m].data, "seq")), first_seq + 1);
                assert_true(strcmp(st.events[m].id, first_id) != 0);
                /* two heartbeats later nothing else has come */
                unsigned hb = st.heartbeats;
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; st.heartbeats < hb + 2 && mono_ms() < deadline;)
                        pump(&st, 50);
                assert_int_equal(st.n_events, 1);
                stream_close(&st);
        }

        /* and live presses follow a resume, with growing ids */
        stream_open(&st, daemon_.url, "/v1/events?topic=pads", first_id);
        wait_event(&st, 0, "pressed", PAD1);
        padsim_send(&sim, "{\"pad\":0,\"button\":3,\"press\":true}");
        size_t live = wait_event(&st, 1, "pressed", PAD0);
        unsigned long long n0, n1;
        assert_int_equal(sscanf(strchr(st.events[0].id, '-') + 1, "%llu", &n0), 1);
        assert_int_equal(sscanf(strchr(st.events[live].id, '-') + 1, "%llu", &n1), 1);
        assert_true(n1 > n0);
        stream_close(&st);
}

static void ids_of_another_run_get_a_reset_and_0_replays_the_run(void **state) {
        struct stream st;
        (void) state;

        assert_true(wait_streams(0));   /* the last test's clients are noticed gone */
        char *last = health_last_id();
        char other[48];
        snprintf(other, sizeof other, "%s", last);
        other[0] = other[0] == '0' ? '1' : '0';         /* another boot's epoch */
        stream_open(&st, daemon_.url, "/v1/events", other);
        size_t k = wait_event(&st, 0, "reset", NULL);
        assert_int_equal(k, 0);
        assert_string_equal(data_str(&st.events[0], "reason"), "restarted");
        assert_string_equal(st.events[0].id, last);
        stream_close(&st);

        /* "0": everything since start, beginning with the pads appearing */
        stream_open(&st, daemon_.url, "/v1/events?topic=pads", "0");
        wait_event(&st, 0, "pressed", NULL);
        assert_string_equal(st.events[0].name, "pad_added");
        stream_close(&st);
        free(last);
}

static void streams_beyond_the_limit_get_503(void **state) {
        struct stream st[MAX_STREAMS];
        struct http_reply r;
        (void) state;

        assert_true(wait_streams(0));
        for (int i = 0; i < MAX_STREAMS; i++)
                stream_open(&st[i], daemon_.url, "/v1/events", NULL);
        http_get(&daemon_, "/v1/events", NULL, &r);
        if (r.status != 503)
                fail_msg("stream %d: HTTP %ld, expected 503", MAX_STREAMS + 1, r.status);
        assert_string_equal(r.content_type, "application/problem+json");
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "sse_max_streams"));
        http_reply_done(&r);
        assert_int_equal(health_int("events", "refused"), 1);

        http_get(&daemon_, "/v1/events?topic=a%20b", NULL, &r);
        assert_int_equal(r.status, 400);
        http_reply_done(&r);

        for (int i = 0; i < MAX_STREAMS; i++)
                stream_close(&st[i]);
        assert_true(wait_streams(0));
}

static void sigterm_ends_the_streams_and_the_daemon_exits(void **state) {
        struct stream st[2];
        int64_t elapsed;
        (void) state;

        stream_open(&st[0], daemon_.url, "/v1/events", NULL);
        stream_open(&st[1], daemon_.url, "/v1/events?topic=pads", NULL);
        int status = daemon_stop(&daemon_, SIGTERM, &elapsed);
        printf("# SIGTERM with 2 open streams to exit: %lld ms\n", (long long) elapsed / 1000);
        assert_int_equal(status, 0);
        assert_true(elapsed < 3 * 1000000);
        for (int i = 0; i < 2; i++) {
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !st[i].done && mono_ms() < deadline;)
                        pump(&st[i], 50);
                assert_true(st[i].done);
                /* a clean end: the last chunk, not a cut connection */
                if (st[i].result != CURLE_OK)
                        fail_msg("stream %d ended with: %s", i, curl_easy_strerror(st[i].result));
                stream_close(&st[i]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_stream_opens_at_once_and_a_departed_client_is_noticed),
                cmocka_unit_test(a_departed_clients_slot_is_free_within_one_heartbeat),
                cmocka_unit_test(idle_streams_get_heartbeats),
                cmocka_unit_test(pads_and_presses_stream_and_a_reconnect_gets_exactly_what_it_missed),
                cmocka_unit_test(ids_of_another_run_get_a_reset_and_0_replays_the_run),
                cmocka_unit_test(streams_beyond_the_limit_get_503),
                cmocka_unit_test(sigterm_ends_the_streams_and_the_daemon_exits),
        };
        return cmocka_run_group_tests_name("events", tests, setup, teardown);
}
