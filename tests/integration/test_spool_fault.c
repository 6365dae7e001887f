/* The spool on a slow or failing disk (store/spool_writer.h): with the
 * fsync shim of tests/fault/ preloaded into the daemon, during an outage,
 *   - an fdatasync that hangs holds the input it makes durable (not
 *     answered yet), and nothing else: /v1/health answers meanwhile, and
 *     the input is answered once the fdatasync returns;
 *   - an fdatasync that fails is never acknowledged: the input gets an
 *     error, the daemon stops, and after a restart the log holds every
 *     input that was acknowledged and not the one that failed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/async_post.h"
#include "tests/integration/harness.h"
#include "tests/integration/outage.h"
#include "tests/integration/sse_client.h"

static struct outage o;
static int gate_fd = -1;

static int teardown(void **state) {
        (void) state;
        if (gate_fd >= 0)
                close(gate_fd);
        gate_fd = -1;
        outage_done(&o);
        return 0;
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

/* The shim in the daemon, for the spool's file. */
static void preload_shim(void) {
        const char *asan = getenv("ASAN_OPTIONS");

        outage_env(&o, "LD_PRELOAD=%s/tests/libfsync_fault.so", harness_env("ARBITER_TEST_BUILD"));
        outage_env(&o, "ARBITER_FAULT_PATH=%s", o.spool);
        /* An ASan daemon takes a preloaded library that is not ASan's own
         * only when told to. */
        outage_env(&o, "ASAN_OPTIONS=%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
}

static off_t file_size(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 ? st.st_size : 0;
}

static void an_fsync_that_hangs_holds_only_its_input(void **state) {
        struct http_reply r;
        struct async_post q;
        char *gate;
        json_int_t window = 0;
        (void) state;

        outage_init(&o, "slowsync");
        assert_true(asprintf(&gate, "%s/gate", o.dir) > 0);
        assert_int_equal(mkfifo(gate, 0600), 0);
        preload_shim();
        outage_env(&o, "ARBITER_FAULT_GATE=%s", gate);
        outage_start(&o, true);
        json_int_t id = outage_match(&o, 11);
        char *body = outage_call_body(&o, id, 1, &window);

        outage_pg(&o, "stop");
        assert_true(wait_database_state(&o.d, "disconnected", HARNESS_WAIT_MS));
        char path[64];
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        async_post_start(&q, o.d.url, path, o.referee, body);

        /* The record is written; its fdatasync waits at the gate. */
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; file_size(o.spool) == 0;) {
                if (mono_ms() > deadline)
                        fail_msg("the call was never written to the spool");
                usleep(10000);
        }
        http_get(&o.d, "/v1/health", NULL, &r);
        expect(&r, 200);
        http_reply_done(&r);
        /* Not durable yet, so not answered yet. */
        assert_false(atomic_load(&q.done));

        gate_fd = open(gate, O_WRONLY | O_CLOEXEC);
        assert_true(gate_fd >= 0);
        async_post_join(&q);
        if (q.status != 200 || !strstr(q.reply, "call_judged"))
                fail_msg("the call was answered %ld: %s", q.status, q.reply);

        outage_pg(&o, "start");
        assert_true(daemon_wait_log(&o.d, "spool flushed", HARNESS_WAIT_MS));
        /* the REST connection reconnects on its own: reads wait for it */
        assert_true(wait_database_state(&o.d, "ready", HARNESS_WAIT_MS));
        json_t *items = outage_log(&o, id);
        json_t *stored;
        bool found = false;
        size_t i;
        json_array_foreach(items, i, stored)
                found |= strcmp(json_string_value(json_object_get(stored, "kind")), "call") == 0;
        assert_true(found);
        json_decref(items);
        free(body);
        free(gate);
}

/* Calls in the stored log after seq. */
static size_t calls_after(json_t *items, json_int_t seq) {
        size_t i, n = 0;
        json_t *it;

        json_array_foreach(items, i, it)
                n += json_integer_value(json_object_get(it, "seq")) > seq &&
                     strcmp(json_string_value(json_object_get(it, "kind")), "call") == 0;
        return n;
}

static void a_failed_fsync_is_never_acknowledged(void **state) {
        struct http_reply r;
        json_int_t window = 0;
        char *flag, *body;
        (void) state;

        outage_init(&o, "failsync");
        assert_true(asprintf(&flag, "%s/fail", o.dir) > 0);
        preload_shim();
        outage_env(&o, "ARBITER_FAULT_FAIL_IF=%s", flag);
        outage_start(&o, true);
        json_int_t id = outage_match(&o, 12);

        outage_pg(&o, "stop");
        assert_true(wait_database_state(&o.d, "disconnected", HARNESS_WAIT_MS));
        body = outage_call_body(&o, id, 1, &window);
        outage_post_input(&o, id, body, &r);
        expect(&r, 200);
        json_int_t acked = json_integer_value(json_object_get(r.json, "seq"));
        http_reply_done(&r);
        free(body);

        /* The disk starts failing fsyncs. */
        assert_int_equal(run_cmd("touch '%s'", flag), 0);
        body = outage_call_body(&o, id, 2, &window);
        outage_post_input(&o, id, body, &r);
        if (r.status == 200)
                fail_msg("a call whose fsync failed was acknowledged: %s", r.body);
        http_reply_done(&r);
        free(body);
        assert_int_equal(daemon_wait_exit(&o.d), 1);
        o.running = false;
        assert_true(daemon_log_contains(&o.d, "the spool failed"));

        /* The disk is replaced, the database is back: what was acknowledged
         * is stored, what was not is not. */
        assert_int_equal(unlink(flag), 0);
        outage_pg(&o, "start");
        outage_start(&o, true);
        assert_true(daemon_wait_log(&o.d, "rebuilt from the input log", HARNESS_WAIT_MS));
        json_t *items = outage_log(&o, id);
        if (json_array_size(items) < (size_t) acked)
                fail_msg("the acknowledged call (seq %lld) is not stored", (long long) acked);
        if (calls_after(items, acked) != 0)
                fail_msg("a call that was never acknowledged is stored: %s", json_dumps(items, 0));
        json_decref(items);
        assert_int_equal(daemon_stop(&o.d, SIGTERM, NULL), 0);
        o.running = false;
        free(flag);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(an_fsync_that_hangs_holds_only_its_input, teardown),
                cmocka_unit_test_teardown(a_failed_fsync_is_never_acknowledged, teardown),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
