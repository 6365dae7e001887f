/* The poller (hardware/poller.h) against the reference firmware on an
 * RS-485 bus: three emulated ATmega328P pads (tests/avr/avrpad --pads 3
 * --rs485, firmware/pad.elf) on one half-duplex line, a pty the daemon has
 * in [pads] ports and rs485_ports and times at 1 Mbaud as a real line
 * (pty_wire_time).  What the pads do on such a bus — presses, their times
 * and order, lost frames, a match — is test_avr_bus.c's; here, what the
 * turns themselves are:
 *
 * - discovery finds the three (their HELLOs in random slots, colliding now
 *   and then and retried), each answers from its own address, and the
 *   port counts its turns and discoveries;
 * - the host speaks over a pad only after a turn ran out (the emulation
 *   lagging the wall clock past the reply margin, on a loaded machine):
 *   the line's collisions with the host are never more than the turns the
 *   daemon counted as timed out, and no pad drives the line with its
 *   driver disabled;
 * - a pad that missed the RESET of a daemon that started anew (so kept an
 *   address the new daemon does not know) starts over after 3 s without a
 *   turn, and the next discovery finds it (docs/protocol.md section 10).
 *
 * Timing goes through signals only (a line the emulator prints, a state
 * the daemon shows), never how long anything took. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/avrpad_proc.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define N_PADS          3
/* uids no other test uses ("AVRB" and a serial); pad K has UID_BASE + K */
#define UID_BASE        UINT64_C(0x4156524200000020)

static struct avrpad_proc bus;
static struct daemon_proc daemon_;
static char ids[N_PADS][17];
static char *config_arg;

static json_int_t jint(json_t *o, const char *key) {
        json_t *v = json_object_get(o, key);

        if (!json_is_integer(v))
                fail_msg("no integer member %s", key);
        return json_integer_value(v);
}

/* GET /v1/pads (a new reference to the whole reply). */
static json_t *pads_json(void) {
        struct http_reply r;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        assert_int_equal(r.status, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *pad_of(json_t *pads, unsigned k) {
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(pads, "items"), i, p)
                if (strcmp(json_string_value(json_object_get(p, "id")), ids[k]) == 0)
                        return p;
        return NULL;
}

static bool all_synced(void) {
        json_t *pads = pads_json();
        unsigned n = 0;

        for (unsigned k = 0; k < N_PADS; k++) {
                json_t *p = pad_of(pads, k);
                n += p && json_is_true(json_object_get(p, "connected")) &&
                     json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        }
        json_decref(pads);
        return n == N_PADS;
}

/* Starts the daemon on the bus and waits until every pad is connected and
 * synced. */
static void start_daemon(void) {
        const char *const args[] = { config_arg, NULL };

        daemon_start(&daemon_, NULL, args, true);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d emulated pads on the bus did not all connect and sync (see %s and %s)",
                                 N_PADS, daemon_.log_path, bus.out_path);
                usleep(50000);
        }
}

static int setup(void **state) {
        char uid[32], *path;
        (void) state;

        snprintf(uid, sizeof uid, "0x%" PRIx64, UID_BASE);
        for (unsigned k = 0; k < N_PADS; k++)
                snprintf(ids[k], sizeof ids[k], "%016" PRIx64, UID_BASE + k);
        const char *const args[] = { "--rs485", "--pads", "3", "--uid", uid, "--ppm", "35,-20,10", "--trace", NULL };
        avrpad_start(&bus, args);

        /* A generous settle window: an emulated pad on a loaded machine can
         * answer late. */
        assert_true(asprintf(&path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("avr485")) > 0);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "[pads]\nports = %s\nrs485_ports = %s\nbaud = 1000000\npty_wire_time = yes\n"
                   "settle_window = 100000\nsync_interval = 200\nheartbeat_timeout = 1500\n",
                bus.pty, bus.pty);
        fclose(f);
        assert_true(asprintf(&config_arg, "--config=%s", path) > 0);
        free(path);
        start_daemon();
        return 0;
}

static int teardown(void **state) {
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        bool bad = avrpad_count(&bus, 0, "] error: ") || avrpad_count(&bus, 0, "the chip stopped");
        (void) state;

        avrpad_stop(&bus);
        free(config_arg);
        config_arg = NULL;
        if (bad)
                fail_msg("the emulated bus printed an error or a chip stopped: see %s", bus.out_path);
        if (st != 0)
                fail_msg("the daemon exited with %d (see %s)", st, daemon_.log_path);
        return 0;
}

/* Three pads on one line, each at its own address, synced, answering from
 * it; the port is a polled bus. */
static void the_pads_on_a_bus_are_discovered_and_addressed(void **state) {
        json_int_t address[N_PADS];
        (void) state;

        json_t *pads = pads_json();
        json_t *port = json_array_get(json_object_get(pads, "ports"), 0);
        assert_true(json_is_true(json_object_get(port, "rs485")));
        assert_true(json_is_true(json_object_get(port, "wire_time")));
        json_t *polling = json_object_get(port, "polling");
        assert_true(jint(polling, "polls") > 0);
        assert_true(jint(polling, "discoveries") >= 1);
        for (unsigned k = 0; k < N_PADS; k++) {
                json_t *p = pad_of(pads, k);
                assert_non_null(p);
                assert_string_equal(json_string_value(json_object_get(p, "port")), bus.pty);
                assert_int_equal(jint(json_object_get(p, "clock"), "hz"), 2000000);
                address[k] = jint(p, "address");
                assert_true(address[k] >= 1 && address[k] <= 247);
                for (unsigned j = 0; j < k; j++)
                        assert_int_not_equal(address[j], address[k]);
        }
        json_decref(pads);

        /* --trace: each pad's HELLO from 0, then its frames from its address */
        for (unsigned k = 0; k < N_PADS; k++) {
                char needle[64], line[256];
                size_t at = 0;
                snprintf(needle, sizeof needle, "pad %u pad>  addr 0 seq 0 type 0x01 ", k);
                avrpad_expect(&bus, &at, needle, line, sizeof line);
                snprintf(needle, sizeof needle, "pad %u pad>  addr %lld ", k, (long long) address[k]);
                avrpad_expect(&bus, &at, needle, line, sizeof line);
        }
}

/* Lines of the bus's output before offset end that contain needle. */
static unsigned count_before(size_t end, const char *needle) {
        unsigned n = 0;

        pthread_mutex_lock(&bus.lock);
        for (const char *s = bus.out; s && (s = strstr(s, needle)) && (size_t) (s - bus.out) < end; s++)
                n++;
        pthread_mutex_unlock(&bus.lock);
        return n;
}

/* The host spoke over a pad only where a turn of its had run out, and no
 * pad drove the line without its driver. */
static void the_host_speaks_over_a_pad_only_after_a_turn_ran_out(void **state) {
        (void) state;

        /* The collisions printed before the answer to `time` came from
         * frames the host wrote before it, after turns it had counted as
         * timed out: all of them in the counters read after it. */
        char line[256];
        size_t at = avrpad_mark(&bus);
        avrpad_send(&bus, "time");
        avrpad_expect(&bus, &at, "pad 2 time host_us ", line, sizeof line);      /* the last pad's */
        json_t *pads = pads_json();
        json_t *polling = json_object_get(json_array_get(json_object_get(pads, "ports"), 0), "polling");
        json_int_t timeouts = jint(polling, "poll_timeouts"), polls = jint(polling, "polls");
        json_decref(pads);
        unsigned collisions = count_before(at, " with the host ");
        print_message("%lld turns, %lld ran out; %u collisions with the host\n", (long long) polls,
                      (long long) timeouts, collisions);
        assert_true(collisions <= timeouts);
        assert_int_equal(avrpad_count(&bus, 0, "DE violation"), 0);
}

/* The daemon stops and starts again; its RESET at open never reaches pad
 * 1, which keeps the address the first daemon gave it.  The new daemon
 * gives turns only to the pads it found; pad 1 hears it, gets none, and
 * after 3 s starts over: HELLO from address 0 in a discovery, assigned,
 * synced like the others. */
static void a_pad_the_host_does_not_know_starts_over(void **state) {
        char line[256];
        (void) state;

        assert_int_equal(daemon_stop(&daemon_, SIGTERM, NULL), 0);
        size_t at = avrpad_mark(&bus);
        avrpad_send(&bus, "@1 drop in 1 RESET");
        start_daemon();
        avrpad_expect(&bus, &at, "pad 1 dropped in frame ", line, sizeof line);
        assert_non_null(strstr(line, "type 0x87"));
        /* the other two took the RESET and said HELLO from 0 again; pad 1
         * did too, but only after going without a turn */
        avrpad_expect(&bus, &at, "pad 1 pad>  addr 0 seq 0 type 0x01 ", line, sizeof line);
        json_t *pads = pads_json();
        for (unsigned k = 0; k < N_PADS; k++) {
                json_t *p = pad_of(pads, k);
                assert_non_null(p);
                assert_true(json_is_true(json_object_get(p, "connected")));
        }
        json_decref(pads);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_pads_on_a_bus_are_discovered_and_addressed),
                cmocka_unit_test(the_host_speaks_over_a_pad_only_after_a_turn_ran_out),
                cmocka_unit_test(a_pad_the_host_does_not_know_starts_over),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
