/* HELLO as docs/protocol.md section 5 has it.  The test is the device: it
 * holds a pty's master, the daemon opens its slave as a pad port, and the
 * frames are encoded and decoded with the daemon's own codec.
 *
 * A HELLO that no pad can send (section 11): uid 0, an unknown kind, no
 * buttons or more than the protocol's 16.  Each bad HELLO makes no pad and
 * is counted on the port (bad_hellos); a good one after them makes its pad,
 * so the line was read all along.
 *
 * A pad that confirms its ASSIGN with a HELLO from the new address, as the
 * page asks: the host re-sends the ASSIGN until then (the test says HELLO
 * from 0 once, and sees more ASSIGNs), and takes that HELLO as the
 * confirmation — SYNCs from then on, and no ASSIGN after the first SYNC,
 * though the test answers every ASSIGN with one more HELLO from the address
 * (issue 16: arbiterd answered every HELLO with an ASSIGN and a SYNC, and
 * such a pad looped).
 *
 * The host's seq: one counter per destination address, 0xff included, from
 * 0 when it opens the port (section 5), so a pad counting gaps per
 * destination sees none when nothing is lost (issue 16: arbiterd had one
 * counter per port, and every HOST_BEAT looked like lost frames). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
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

static void send_hello_from(uint8_t address, uint16_t seq, uint64_t uid, uint8_t kind, uint8_t n_buttons) {
        struct frame f = { .version = PROTO_VERSION, .address = address, .seq = seq };
        struct proto_hello h = { .uid = uid, .kind = kind, .n_buttons = n_buttons, .fw_major = 1,
                                 .clock_hz = 1000000 };
        uint8_t out[PROTO_MAX_ENCODED];
        int n;

        proto_pack_hello(&f, &h);
        n = frame_encode(&f, out, sizeof out);
        assert_true(n > 0);
        assert_int_equal(write(master, out, (size_t) n), n);
}

static void send_hello(uint64_t uid, uint8_t kind, uint8_t n_buttons) {
        send_hello_from(PROTO_ADDR_UNASSIGNED, 0, uid, kind, n_buttons);
}

/* Host frames read from the master, oldest first. */
static struct frame rx[64];
static size_t rx_head, rx_len;
static struct frame_decoder dec;

static void on_host_frame(void *userdata, const struct frame *f) {
        (void) userdata;
        assert_true(rx_len < sizeof rx / sizeof rx[0]);
        rx[(rx_head + rx_len++) % (sizeof rx / sizeof rx[0])] = *f;
}

/* The next frame the host writes (failing after HARNESS_WAIT_MS). */
static struct frame next_host_frame(void) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;

        while (rx_len == 0) {
                struct pollfd pfd = { .fd = master, .events = POLLIN };
                int64_t left = deadline - mono_ms();
                if (left <= 0)
                        fail_msg("the host wrote no frame for %d ms", HARNESS_WAIT_MS);
                if (poll(&pfd, 1, (int) left) <= 0)
                        continue;
                uint8_t buf[512];
                ssize_t n = read(master, buf, sizeof buf);
                assert_true(n > 0);
                frame_decoder_feed(&dec, buf, (size_t) n, on_host_frame, NULL);
        }
        struct frame f = rx[rx_head];
        rx_head = (rx_head + 1) % (sizeof rx / sizeof rx[0]);
        rx_len--;
        return f;
}

/* Opens a pty, starts the daemon on its slave, waits for the port to be open. */
static void start_on_pty(void) {
        char env[256];

        master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        assert_true(master >= 0);
        assert_int_equal(grantpt(master), 0);
        assert_int_equal(unlockpt(master), 0);
        frame_decoder_init(&dec);
        rx_head = rx_len = 0;
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
        json_int_t bad;
        size_t pads;
        (void) state;

        start_on_pty();

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

#define CONFIRMING_UID 0x1616u

/* Whether f is an ASSIGN for CONFIRMING_UID; its address in *ret. */
static bool assign_for_us(const struct frame *f, uint8_t *ret) {
        struct proto_assign a;

        if (f->type != PROTO_ASSIGN)
                return false;
        assert_int_equal(f->address, PROTO_ADDR_BROADCAST);
        assert_int_equal(proto_unpack_assign(f, &a), 0);
        if (a.uid != CONFIRMING_UID)
                return false;
        *ret = a.address;
        return true;
}

static void a_pad_confirming_with_hello_is_assigned_once(void **state) {
        uint8_t address = 0, a;
        unsigned assigns = 0, syncs = 0;
        (void) state;

        start_on_pty();
        send_hello(CONFIRMING_UID, PROTO_KIND_BUTTONS, 4);
        /* One HELLO, three ASSIGNs: the host re-sends it, and addresses
         * nothing else to the pad, until the pad confirms. */
        while (assigns < 3) {
                struct frame f = next_host_frame();
                assert_int_not_equal(f.type, PROTO_SYNC);
                if (!assign_for_us(&f, &a))
                        continue;
                assert_true(a >= 1 && a <= PROTO_ADDR_MAX);
                if (assigns++ == 0)
                        address = a;
                assert_int_equal(a, address);
        }
        uint16_t seq = 1;
        send_hello_from(address, seq++, CONFIRMING_UID, PROTO_KIND_BUTTONS, 4);
        /* An ASSIGN re-sent before the host read the HELLO may cross it (the
         * test confirms it with a HELLO too, as a pad reading only "confirms
         * with a HELLO" would); none comes after the first SYNC, which the
         * confirmation let go. */
        while (syncs < 4) {
                struct frame f = next_host_frame();
                if (assign_for_us(&f, &a)) {
                        if (syncs > 0)
                                fail_msg("ASSIGN after %u SYNCs: the confirming HELLO was answered with an ASSIGN",
                                         syncs);
                        assert_int_equal(a, address);
                        send_hello_from(address, seq++, CONFIRMING_UID, PROTO_KIND_BUTTONS, 4);
                }
                if (f.type == PROTO_SYNC) {
                        assert_int_equal(f.address, address);
                        syncs++;
                }
        }

        struct http_reply r;
        http_get(&daemon_, "/v1/pads", NULL, &r);
        assert_int_equal(r.status, 200);
        json_t *pad = json_array_get(json_object_get(r.json, "items"), 0);
        assert_non_null(pad);
        assert_true(json_is_true(json_object_get(pad, "connected")));
        assert_int_equal(json_integer_value(json_object_get(pad, "address")), address);
        http_reply_done(&r);
}

/* Host frames after the port opened: to each destination, seq 0, 1, 2, …
 * with broadcasts counted apart from the frames to the pad. */
static void host_seq_counts_per_destination(void **state) {
        int expect[256];
        uint8_t address = 0;
        unsigned unicast = 0, broadcast_after = 0, broadcast = 0;
        (void) state;

        for (size_t i = 0; i < 256; i++)
                expect[i] = -1;
        start_on_pty();
        send_hello(CONFIRMING_UID, PROTO_KIND_BUTTONS, 4);
        /* until four frames went to the pad, and two broadcasts after the
         * first of them (HOST_BEATs, a second a piece) */
        while (unicast < 4 || broadcast_after < 2) {
                struct frame f = next_host_frame();
                uint8_t a;
                if (expect[f.address] < 0) {
                        /* the first broadcast is the RESET the host sends at open */
                        if (f.address == PROTO_ADDR_BROADCAST)
                                assert_int_equal(f.type, PROTO_RESET);
                        expect[f.address] = 0;
                }
                if (f.seq != expect[f.address])
                        fail_msg("host frame type 0x%02x to address %u has seq %u, not %d", f.type, f.address,
                                 f.seq, expect[f.address]);
                expect[f.address]++;
                if (f.address == PROTO_ADDR_BROADCAST) {
                        broadcast++;
                        broadcast_after += unicast > 0;
                } else {
                        assert_int_equal(f.address, address);
                        unicast++;
                }
                if (!address && assign_for_us(&f, &a)) {
                        address = a;
                        send_hello_from(address, 1, CONFIRMING_UID, PROTO_KIND_BUTTONS, 4);
                }
        }
        assert_true(broadcast >= 4);    /* RESET, ASSIGN, two HOST_BEATs */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(a_hello_no_pad_can_send_makes_no_pad, teardown),
                cmocka_unit_test_teardown(a_pad_confirming_with_hello_is_assigned_once, teardown),
                cmocka_unit_test_teardown(host_seq_counts_per_destination, teardown),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
