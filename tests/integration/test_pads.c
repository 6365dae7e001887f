/* The pad bus end to end: arbiter-padsim on a real pty, the daemon's
 * driver, REST and D-Bus.  Pads appear and sync; presses come out in
 * pad-time order even when their frames arrive the other way round; an
 * unplug and replug keeps each pad's identity and counters; garbage on the
 * line does not disturb the pads. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"

/* The settle window is generous: the tests delay frames by up to 8 ms on
 * purpose, and a sanitizer build is slow. */
static const char config_text[] =
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
static char *link_path, *config_path, *referee_token;

static int setup(void **state) {
        int st;
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("pads")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        const char *sim_args[] = { "--pads", "2", "--link", link_path, "--seed", "7", "--uid-base", "4096",
                                   "--offset-us", "15000,-32000", "--drift-ppm", "40,-60", NULL };
        padsim_start(&sim, sim_args);

        char *env_pads, *arg;
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
        (void) st;
        referee_token = create_token("referee", unique_name("ref"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

static json_t *get_pads(void) {
        struct http_reply r;
        http_get(&daemon_, "/v1/pads", NULL, &r);
        assert_int_equal(r.status, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

/* Polls GET /v1/pads until pred holds. */
static bool wait_pads(bool (*pred)(json_t *pads, void *arg), void *arg) {
        for (int i = 0; i < HARNESS_WAIT_MS / 50; i++) {
                json_t *j = get_pads();
                bool ok = pred(j, arg);
                json_decref(j);
                if (ok)
                        return true;
                usleep(50000);
        }
        return false;
}

static bool n_connected_synced(json_t *j, void *arg) {
        int want = *(int *) arg, n = 0;
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(j, "items"), i, p)
                n += json_is_true(json_object_get(p, "connected")) &&
                     json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        return n == want;
}

static bool none_connected(json_t *j, void *arg) {
        (void) arg;
        return json_integer_value(json_object_get(j, "connected")) == 0;
}

static const char *pad_id(json_t *j, size_t i) {
        return json_string_value(json_object_get(json_array_get(json_object_get(j, "items"), i), "id"));
}

static void pads_appear_with_identity_and_synced_clocks(void **state) {
        int two = 2;
        (void) state;

        assert_true(wait_pads(n_connected_synced, &two));
        json_t *j = get_pads();
        json_t *items = json_object_get(j, "items");
        assert_int_equal(json_array_size(items), 2);
        size_t i;
        json_t *p;
        json_array_foreach(items, i, p) {
                assert_string_equal(json_string_value(json_object_get(p, "kind")), "buttons");
                assert_int_equal(json_integer_value(json_object_get(p, "buttons")), 7);
                assert_string_equal(json_string_value(json_object_get(p, "port")), link_path);
                assert_int_equal(strlen(json_string_value(json_object_get(p, "id"))), 16);
                assert_true(json_integer_value(json_object_get(p, "address")) >= 1);
        }
        /* the model found the simulated offsets (+15 ms, −32 ms, 47 ms apart; drift moves them a little) */
        json_t *offsets[2] = { json_object_get(json_object_get(json_array_get(items, 0), "clock"), "offset_us"),
                               json_object_get(json_object_get(json_array_get(items, 1), "clock"), "offset_us") };
        long long a = json_integer_value(offsets[0]), b = json_integer_value(offsets[1]);
        assert_true(llabs(llabs(a - b) - 47000) < 3000);
        json_t *port = json_array_get(json_object_get(j, "ports"), 0);
        assert_true(json_is_true(json_object_get(port, "open")));
        assert_true(json_is_true(json_object_get(port, "pseudo_terminal")));
        assert_true(json_is_false(json_object_get(port, "wire_time")));        /* [pads] pty_wire_time = no */
        json_decref(j);

        struct http_reply r;
        http_get(&daemon_, "/v1/health", NULL, &r);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(r.json, "pads"), "connected")), 2);
        http_reply_done(&r);
}

/* Reads presses after seq until n have arrived. */
static json_t *wait_presses(json_int_t after, size_t n) {
        char path[64];
        snprintf(path, sizeof path, "/v1/presses?after=%lld", (long long) after);
        for (int i = 0; i < HARNESS_WAIT_MS / 50; i++) {
                struct http_reply r;
                http_get(&daemon_, path, NULL, &r);
                assert_int_equal(r.status, 200);
                json_t *items = json_incref(json_object_get(r.json, "items"));
                http_reply_done(&r);
                if (json_array_size(items) >= n)
                        return items;
                json_decref(items);
                usleep(50000);
        }
        fail_msg("%zu presses did not arrive", n);
        return NULL;
}

static json_int_t last_seq(void) {
        struct http_reply r;
        http_get(&daemon_, "/v1/presses?limit=1000", NULL, &r);
        json_int_t seq = json_integer_value(json_object_get(r.json, "next"));
        http_reply_done(&r);
        return seq;
}

/* Pad 0 presses 2 ms before pad 1, but its frame is held back 8 ms in
 * transit: pad 1's frame arrives first.  The stream still has pad 0 first. */
static void presses_come_out_in_pad_time_order(void **state) {
        (void) state;
        const char *first = PAD0, *second = PAD1;
        json_int_t after = last_seq();

        for (int round = 0; round < 5; round++) {
                padsim_send(&sim, "{\"in_us\":1000,\"pad\":0,\"button\":2,\"press\":true,\"delay_us\":8000}");
                padsim_send(&sim, "{\"in_us\":3000,\"pad\":1,\"button\":5,\"press\":true,\"delay_us\":0}");
                json_t *items = wait_presses(after, 2);
                json_t *a = json_array_get(items, 0), *b = json_array_get(items, 1);
                assert_string_equal(json_string_value(json_object_get(a, "pad")), first);
                assert_string_equal(json_string_value(json_object_get(b, "pad")), second);
                assert_int_equal(json_integer_value(json_object_get(a, "button")), 2);
                assert_int_equal(json_integer_value(json_object_get(b, "button")), 5);
                /* arrival was the other way round */
                assert_true(json_integer_value(json_object_get(a, "received_us")) >
                            json_integer_value(json_object_get(b, "received_us")));
                assert_true(json_integer_value(json_object_get(a, "time_us")) <
                            json_integer_value(json_object_get(b, "time_us")));
                assert_false(json_is_true(json_object_get(a, "late")));
                assert_false(json_is_true(json_object_get(a, "clock_fallback")));
                after = json_integer_value(json_object_get(b, "seq"));
                json_decref(items);
        }
}

static bool reconnected(json_t *j, void *arg) {
        (void) arg;
        size_t i;
        json_t *p;
        int n = 0;
        json_array_foreach(json_object_get(j, "items"), i, p)
                n += json_is_true(json_object_get(p, "connected")) &&
                     json_integer_value(json_object_get(json_object_get(p, "counters"), "reconnects")) >= 1;
        return n == 2;
}

static void unplug_and_replug_keeps_identity_and_counters(void **state) {
        (void) state;
        json_t *before = get_pads();
        json_int_t presses0 = json_integer_value(json_object_get(json_object_get(
                json_array_get(json_object_get(before, "items"), 0), "counters"), "presses"));

        padsim_send(&sim, "{\"unplug_ms\":1000}");
        assert_true(wait_pads(none_connected, NULL));
        assert_true(wait_pads(reconnected, NULL));

        json_t *after = get_pads();
        assert_int_equal(json_array_size(json_object_get(after, "items")), 2);
        for (size_t i = 0; i < 2; i++)
                assert_string_equal(pad_id(after, i), pad_id(before, i));
        json_t *port = json_array_get(json_object_get(after, "ports"), 0);
        assert_true(json_integer_value(json_object_get(port, "opens")) >= 2);
        json_int_t presses1 = json_integer_value(json_object_get(json_object_get(
                json_array_get(json_object_get(after, "items"), 0), "counters"), "presses"));
        assert_true(presses1 >= presses0);
        json_decref(before);
        json_decref(after);

        /* and presses flow again */
        json_int_t seq = last_seq();
        padsim_send(&sim, "{\"pad\":0,\"button\":1,\"press\":true}");
        json_t *items = wait_presses(seq, 1);
        json_decref(items);
}

static void garbage_on_the_line_does_not_disturb_the_pads(void **state) {
        (void) state;
        json_t *j = get_pads();
        json_t *faults = json_object_get(json_array_get(json_object_get(j, "ports"), 0), "faults");
        json_int_t bad_before = json_integer_value(json_object_get(faults, "crc")) +
                                json_integer_value(json_object_get(faults, "cobs")) +
                                json_integer_value(json_object_get(faults, "short")) +
                                json_integer_value(json_object_get(faults, "overlong"));
        json_decref(j);
        json_int_t seq = last_seq();

        for (int i = 0; i < 5; i++) {
                padsim_send(&sim, "{\"garbage\":120}");
                padsim_send(&sim, "{\"pad\":%d,\"button\":%d,\"press\":true}", i % 2, i);
        }
        json_t *items = wait_presses(seq, 5);
        assert_int_equal(json_array_size(items), 5);
        json_decref(items);

        j = get_pads();
        faults = json_object_get(json_array_get(json_object_get(j, "ports"), 0), "faults");
        json_int_t bad_after = json_integer_value(json_object_get(faults, "crc")) +
                               json_integer_value(json_object_get(faults, "cobs")) +
                               json_integer_value(json_object_get(faults, "short")) +
                               json_integer_value(json_object_get(faults, "overlong"));
        assert_true(bad_after > bad_before);
        assert_int_equal(json_integer_value(json_object_get(j, "connected")), 2);
        json_decref(j);
}

static void identify_blinks_the_pad(void **state) {
        struct http_reply r;
        char path[128];
        (void) state;

        snprintf(path, sizeof path, "%s/v1/pads/%s/identify", daemon_.url, PAD1);
        http_request("POST", path, NULL, NULL, NULL, 0, &r);
        assert_int_equal(r.status, 401);
        http_reply_done(&r);
        http_request("POST", path, referee_token, NULL, NULL, 0, &r);
        assert_int_equal(r.status, 200);
        http_reply_done(&r);
        bool seen = false;
        for (int i = 0; i < HARNESS_WAIT_MS / 50 && !seen; i++) {
                seen = padsim_log_contains(&sim, "blink");
                if (!seen)
                        usleep(50000);
        }
        assert_true(seen);

        http_get(&daemon_, "/v1/pads/0123456789abcdef", NULL, &r);
        assert_int_equal(r.status, 404);
        assert_string_equal(r.content_type, "application/problem+json");
        http_reply_done(&r);
}

static void pads_are_objects_on_dbus(void **state) {
        int st;
        (void) state;

        const char *id = PAD0;
        char *out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 "
                                     "/org/arbiter/Arbiter1/pad/%s org.arbiter.Arbiter1.Pad Connected Id 2>&1", id);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "b true"));
        assert_non_null(strstr(out, id));
        free(out);
        out = run_capture(&st, "busctl --user call org.arbiter.Arbiter1 /org/arbiter/Arbiter1 "
                               "org.freedesktop.DBus.ObjectManager GetManagedObjects 2>&1");
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, id));
        free(out);

        char *path;
        assert_true(asprintf(&path, "/org/arbiter/Arbiter1/pad/%s", id) > 0);
        assert_dbus_doc_matches(path, "org.arbiter.Arbiter1.Pad");
        free(path);

        /* a press is a Pressed signal on the pad's object */
        char *mon;
        assert_true(asprintf(&mon, "%s/%s.monitor", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        pid_t mon_pid = harness_dbus_monitor("org.arbiter.Arbiter1.Pad", mon);
        padsim_send(&sim, "{\"pad\":0,\"button\":4,\"press\":true}");
        bool seen = false;
        for (int i = 0; i < HARNESS_WAIT_MS / 50 && !seen; i++) {
                char *text = run_capture(&st, "cat '%s'", mon);
                seen = strstr(text, "Member=Pressed") != NULL;
                free(text);
                if (!seen)
                        usleep(50000);
        }
        kill(mon_pid, SIGTERM);
        assert_true(seen);
        free(mon);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(pads_appear_with_identity_and_synced_clocks),
                cmocka_unit_test(presses_come_out_in_pad_time_order),
                cmocka_unit_test(garbage_on_the_line_does_not_disturb_the_pads),
                cmocka_unit_test(identify_blinks_the_pad),
                cmocka_unit_test(pads_are_objects_on_dbus),
                cmocka_unit_test(unplug_and_replug_keeps_identity_and_counters),
        };
        return cmocka_run_group_tests_name("pads", tests, setup, teardown);
}
