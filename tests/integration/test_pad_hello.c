/* A HELLO that no pad can send (docs/protocol.md section 11): uid 0, an
 * unknown kind, no buttons or more than the protocol's 16.  The test is the
 * device: it holds a pty's master, the daemon opens its slave as a pad
 * port, and the frames are encoded with the daemon's own codec.  Each bad
 * HELLO makes no pad and is counted on the port (bad_hellos); a good one
 * after them makes its pad, so the line was read all along. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "hardware/frame.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

static struct daemon_proc daemon_;
static int master = -1;

static int teardown(void **state) {
        (void) state;
        if (master >= 0)
                close(master);
        master = -1;
        return harness_kill_daemons(state);
}

static void send_hello(uint64_t uid, uint8_t kind, uint8_t n_buttons) {
        struct frame f = { .version = PROTO_VERSION, .address = PROTO_ADDR_UNASSIGNED };
        struct proto_hello h = { .uid = uid, .kind = kind, .n_buttons = n_buttons, .fw_major = 1,
                                 .clock_hz = 1000000 };
        uint8_t out[PROTO_MAX_ENCODED];
        int n;

        proto_pack_hello(&f, &h);
        n = frame_encode(&f, out, sizeof out);
        assert_true(n > 0);
        assert_int_equal(write(master, out, (size_t) n), n);
}

/* GET /v1/pads: the port's bad_hellos and the number of pads. */
static void pads_state(json_int_t *ret_bad, size_t *ret_pads) {
        struct http_reply r;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        assert_int_equal(r.status, 200);
        json_t *ports = json_object_get(r.json, "ports");
        *ret_bad = json_integer_value(json_object_get(json_array_get(ports, 0), "bad_hellos"));
        *ret_pads = json_array_size(json_object_get(r.json, "items"));
        http_reply_done(&r);
}

static void wait_bad_hellos(json_int_t n) {
        json_int_t bad;
        size_t pads;

        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                pads_state(&bad, &pads);
                assert_int_equal(pads, 0);
                if (bad >= n)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("bad_hellos stayed at %lld, not %lld", (long long) bad, (long long) n);
        }
}

static void a_hello_no_pad_can_send_makes_no_pad(void **state) {
        char env[256];
        json_int_t bad;
        size_t pads;
        (void) state;

        master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        assert_true(master >= 0);
        assert_int_equal(grantpt(master), 0);
        assert_int_equal(unlockpt(master), 0);
        snprintf(env, sizeof env, "ARBITER_PADS=%s", ptsname(master));
        const char *const envs[] = { env, "ARBITER_BUS=none", NULL };
        daemon_start(&daemon_, envs, NULL, true);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                struct http_reply r;
                http_get(&daemon_, "/v1/pads", NULL, &r);
                bool open = json_is_true(json_object_get(json_array_get(json_object_get(r.json, "ports"), 0), "open"));
                http_reply_done(&r);
                if (open)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the daemon never opened the pty");
        }

        send_hello(0, PROTO_KIND_BUTTONS, 4);                   /* uid 0 */
        wait_bad_hellos(1);
        send_hello(0x77, 9, 4);                                 /* no such kind */
        wait_bad_hellos(2);
        send_hello(0x77, PROTO_KIND_BUTTONS, 0);                /* no buttons */
        wait_bad_hellos(3);
        send_hello(0x77, PROTO_KIND_SLAP, PROTO_MAX_BUTTONS + 1);
        wait_bad_hellos(4);

        send_hello(0x77, PROTO_KIND_BUTTONS, 4);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                pads_state(&bad, &pads);
                if (pads == 1)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the good HELLO made no pad");
        }
        assert_int_equal(bad, 4);
        assert_true(daemon_log_contains(&daemon_, "is ignored"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(a_hello_no_pad_can_send_makes_no_pad, teardown),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
