/* A pad's identity taken (docs/protocol.md section 5, "One uid, two
 * devices"): arbiter-padsim processes on real ptys, three ports.
 *
 * A second device says HELLO with the uid of a pad that is connected on
 * another port: the conflict shows in /v1/pads, /v1/status, the log, the
 * pad_identity event and on D-Bus; presses from both devices are ACKed and
 * dropped (not in /v1/presses, not judged by the match the pad's seat
 * plays); bad trust requests change nothing; trusting the first port makes its presses count
 * again and refuses the other device until it goes away.  A pad that went
 * away and comes back on another port has moved: no conflict.  Two devices
 * with one uid on one line are found out by their two replies to one SYNC.
 * What one decision changes on a pad's D-Bus object goes out as one
 * PropertiesChanged. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"
#include "tests/integration/crash_pilot_view.h"

/* As test_pads.c: a generous settle window for a sanitizer build. */
static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* The first padsim: pad 0 is uid 0x6100 (PAD), pad 1 is 0x6101 (OTHER). */
#define UID_BASE        "0x6100"
#define PAD             "0000000000006100"
#define OTHER           "0000000000006101"
#define MOVER_UID       "0x6200"
#define MOVER           "0000000000006200"
#define TWIN_UIDS       "0x6300,0x6300"
#define TWIN            "0000000000006300"
#define BURST_UID       "0x6400"
#define BURST           "0000000000006400"

enum { L1, L2, L3, N_LINKS };

static struct daemon_proc daemon_;
static struct padsim_proc sim, thief, mover, twins, owner, newcomer;
static char *links[N_LINKS], *config_path, *admin_token, *referee_token;
static json_int_t table_id;

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_t *get_json(const char *path) {
        struct http_reply r;
        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *get_pad(const char *id) {
        char path[64];
        snprintf(path, sizeof path, "/v1/pads/%s", id);
        return get_json(path);
}

static json_int_t counter(json_t *pad, const char *name) {
        json_t *n = json_object_get(json_object_get(pad, "counters"), name);
        if (!json_is_integer(n))
                fail_msg("pad has no counter %s", name);
        return json_integer_value(n);
}

static json_int_t status_pads(const char *name) {
        json_t *s = get_json("/v1/status");
        json_t *n = json_object_get(json_object_get(s, "pads"), name);
        if (!json_is_integer(n))
                fail_msg("/v1/status has no pads.%s", name);
        json_int_t v = json_integer_value(n);
        json_decref(s);
        return v;
}

/* Polls GET /v1/pads/{id} until pred holds (a hang guard, not a timing
 * assertion); fails with what and the last reply. */
static void wait_pad(const char *id, bool (*pred)(json_t *pad, const void *arg), const void *arg, const char *what) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                struct http_reply r;
                char path[64];
                snprintf(path, sizeof path, "/v1/pads/%s", id);
                http_get(&daemon_, path, NULL, &r);
                if (r.status != 200 && r.status != 404)
                        expect(&r, 200);
                bool ok = r.status == 200 && pred(r.json, arg);  /* 404: not seen yet */
                char *text = ok ? NULL : strdup(r.body ? r.body : "");
                http_reply_done(&r);
                if (ok)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("pad %s: %s did not happen; last: %s", id, what, text);
                free(text);
                usleep(50000);
        }
}

static bool is_connected_synced(json_t *p, const void *arg) {
        (void) arg;
        return json_is_true(json_object_get(p, "connected")) &&
               json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
}

static bool is_connected(json_t *p, const void *arg) {
        (void) arg;
        return json_is_true(json_object_get(p, "connected"));
}

static bool is_disconnected(json_t *p, const void *arg) {
        (void) arg;
        return json_is_false(json_object_get(p, "connected"));
}

/* In conflict, with every port of the NULL-terminated list arg, in order. */
static bool in_conflict_on(json_t *p, const void *arg) {
        const char *const *want = arg;
        json_t *ports = json_object_get(json_object_get(p, "conflict"), "ports");
        size_t n = 0;

        for (; want[n]; n++)
                if (!json_is_string(json_array_get(ports, n)) ||
                    strcmp(json_string_value(json_array_get(ports, n)), want[n]) != 0)
                        return false;
        return json_array_size(ports) == n;
}

static bool conflict_presses_at_least(json_t *p, const void *arg) {
        return counter(p, "conflict_presses") >= *(const json_int_t *) arg;
}

static bool no_refused(json_t *p, const void *arg) {
        (void) arg;
        return json_array_size(json_object_get(p, "refused")) == 0;
}

static bool refused_frames_at_least(json_t *p, const void *arg) {
        return counter(p, "refused_frames") >= *(const json_int_t *) arg;
}

static void padsim_wait_log(struct padsim_proc *p, const char *needle) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !padsim_log_contains(p, needle);) {
                if (mono_ms() > deadline)
                        fail_msg("padsim never logged \"%s\" (%s)", needle, p->log_path);
                usleep(50000);
        }
}

/* The presses after seq after, as GET /v1/presses gives them. */
static json_t *presses_after(json_int_t after) {
        char path[64];
        snprintf(path, sizeof path, "/v1/presses?after=%lld&limit=1000", (long long) after);
        json_t *r = get_json(path);
        json_t *items = json_incref(json_object_get(r, "items"));
        json_decref(r);
        return items;
}

static json_int_t last_seq(void) {
        json_t *r = get_json("/v1/presses?limit=1000");
        json_int_t seq = json_integer_value(json_object_get(r, "next"));
        json_decref(r);
        return seq;
}

/* Waits until a press of pad id is in the stream after seq; returns its seq. */
static json_int_t wait_press_of(json_int_t after, const char *id) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *items = presses_after(after);
                size_t i;
                json_t *it;
                json_array_foreach(items, i, it)
                        if (strcmp(json_string_value(json_object_get(it, "pad")), id) == 0) {
                                json_int_t seq = json_integer_value(json_object_get(it, "seq"));
                                json_decref(items);
                                return seq;
                        }
                json_decref(items);
                if (mono_ms() > deadline)
                        fail_msg("no press of pad %s arrived after seq %lld", id, (long long) after);
                usleep(50000);
        }
}

static size_t presses_of(json_t *items, const char *id) {
        size_t i, n = 0;
        json_t *it;
        json_array_foreach(items, i, it)
                n += strcmp(json_string_value(json_object_get(it, "pad")), id) == 0;
        return n;
}

static void start_padsim(struct padsim_proc *p, const char *link, const char *uid_option, const char *uids,
                         const char *n_pads) {
        /* -v: padsim logs every ACK */
        const char *args[] = { "--pads", n_pads, "--link", link, "--seed", "5", uid_option, uids, "-v", NULL };
        padsim_start(p, args);
}

static int setup(void **state) {
        struct http_reply r;
        char body[512];
        (void) state;

        for (int i = 0; i < N_LINKS; i++)
                assert_true(asprintf(&links[i], "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("ids")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        start_padsim(&sim, links[L1], "--uid-base", UID_BASE, "2");

        char *env_pads, *arg;
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s %s %s", links[L1], links[L2], links[L3]) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        wait_pad(PAD, is_connected_synced, NULL, "connect and sync");
        wait_pad(OTHER, is_connected_synced, NULL, "connect and sync");

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pad\": \"%s\"}, "
                 "{\"seat\": 2, \"pad\": \"%s\"}]}", unique_name("idtable"), PAD, OTHER);
        http_post_json(&daemon_, "/v1/tables", admin_token, body, &r);
        expect(&r, 201);
        table_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        padsim_stop(&thief);
        padsim_stop(&mover);
        padsim_stop(&twins);
        padsim_stop(&owner);
        padsim_stop(&newcomer);
        for (int i = 0; i < N_LINKS; i++)
                free(links[i]);
        free(config_path);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

static void a_second_device_with_a_connected_pads_uid_is_a_conflict(void **state) {
        const char *const both[] = { links[L1], links[L2], NULL };
        (void) state;

        json_t *before = get_json("/v1/status");
        json_int_t conflicts = json_integer_value(json_object_get(json_object_get(before, "pads"), "conflicts"));
        json_decref(before);

        struct stream events;
        stream_open(&events, daemon_.url, "/v1/events?topic=pads", NULL);

        /* the thief says it is PAD, on L2, while PAD is connected on L1 */
        start_padsim(&thief, links[L2], "--uid-base", UID_BASE, "1");
        wait_pad(PAD, in_conflict_on, both, "a conflict between L1 and L2");
        size_t k = wait_event(&events, 0, "pad_identity", PAD);
        json_t *ports = json_object_get(json_object_get(events.events[k].data, "conflict"), "ports");
        assert_int_equal(json_array_size(ports), 2);
        assert_string_equal(json_string_value(json_array_get(ports, 1)), links[L2]);
        stream_close(&events);
        assert_true(daemon_wait_log(&daemon_, "pad " PAD ": identity conflict", HARNESS_WAIT_MS));
        assert_int_equal(status_pads("in_conflict"), 1);
        assert_int_equal(status_pads("conflicts"), conflicts + 1);

        json_t *p = get_pad(PAD);
        json_t *devices = json_object_get(json_object_get(p, "conflict"), "devices");
        assert_int_equal(json_array_size(devices), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(devices, 1), "port")), links[L2]);
        assert_true(json_integer_value(json_object_get(json_array_get(devices, 1), "address")) >= 1);
        assert_true(json_is_string(json_object_get(json_object_get(p, "conflict"), "since")));
        assert_int_equal(counter(p, "conflicts"), 1);
        /* the pad's record stays where it was */
        assert_string_equal(json_string_value(json_object_get(p, "port")), links[L1]);
        json_decref(p);

        /* the list says so too, and the other pad is not in conflict */
        json_t *list = get_json("/v1/pads");
        size_t i;
        json_t *it;
        int seen = 0;
        json_array_foreach(json_object_get(list, "items"), i, it) {
                const char *id = json_string_value(json_object_get(it, "id"));
                if (strcmp(id, PAD) == 0)
                        seen += !json_is_null(json_object_get(it, "conflict"));
                if (strcmp(id, OTHER) == 0)
                        seen += json_is_null(json_object_get(it, "conflict"));
        }
        assert_int_equal(seen, 2);
        json_decref(list);

        /* on D-Bus */
        int st;
        char *out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 "
                                     "/org/arbiter/Arbiter1/pad/%s org.arbiter.Arbiter1.Pad Conflict ConflictPorts 2>&1",
                                PAD);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "b true"));
        assert_non_null(strstr(out, links[L2]));
        free(out);
        char *path;
        assert_true(asprintf(&path, "/org/arbiter/Arbiter1/pad/%s", PAD) > 0);
        assert_dbus_doc_matches(path, "org.arbiter.Arbiter1.Pad");
        free(path);
}

static void presses_from_both_devices_are_acked_and_dropped(void **state) {
        (void) state;
        json_int_t seq = last_seq();
        json_t *p = get_pad(PAD);
        json_int_t dropped = counter(p, "conflict_presses");
        json_int_t presses = counter(p, "presses");
        json_decref(p);
        json_int_t total = status_pads("conflict_presses");

        padsim_send(&sim, "{\"pad\":0,\"button\":1,\"press\":true}");
        padsim_send(&thief, "{\"pad\":0,\"button\":2,\"press\":true}");
        json_int_t want = dropped + 2;
        wait_pad(PAD, conflict_presses_at_least, &want, "two presses dropped");
        /* ACKed: the thief's only event is not sent again and again */
        padsim_wait_log(&thief, "pad 0: event 0 acknowledged");

        /* a later press of the other pad comes through; nothing of PAD's
         * before it (the stream is in time order) */
        padsim_send(&sim, "{\"pad\":1,\"button\":3,\"press\":true}");
        wait_press_of(seq, OTHER);
        json_t *items = presses_after(seq);
        assert_int_equal(presses_of(items, PAD), 0);
        json_decref(items);
        p = get_pad(PAD);
        assert_int_equal(counter(p, "presses"), presses);
        assert_int_equal(counter(p, "conflict_presses"), dropped + 2);
        json_t *devices = json_object_get(json_object_get(p, "conflict"), "devices");
        assert_true(json_integer_value(json_object_get(json_array_get(devices, 0), "presses_dropped")) >= 1);
        assert_true(json_integer_value(json_object_get(json_array_get(devices, 1), "presses_dropped")) >= 1);
        json_decref(p);
        assert_true(status_pads("conflict_presses") >= total + 2);
        assert_true(daemon_wait_log(&daemon_, "dropped: the pad is in an identity conflict", HARNESS_WAIT_MS));
}

static json_int_t match_id;

static json_t *public_view(json_int_t id) {
        char path[64];
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        json_t *m = get_json(path), *v = json_incref(json_object_get(m, "view"));
        json_decref(m);
        return v;
}

static size_t calls_in_log(json_int_t id) {
        struct http_reply r;
        char path[64];
        size_t i, n = 0;
        json_t *it;

        snprintf(path, sizeof path, "/v1/matches/%lld/log", (long long) id);
        http_get(&daemon_, path, referee_token, &r);
        expect(&r, 200);
        json_array_foreach(json_object_get(r.json, "items"), i, it)
                n += strcmp(json_string_value(json_object_get(it, "kind")), "call") == 0;
        http_reply_done(&r);
        return n;
}

/* A Crash Pilot button for a legal call on the face-up card. */
static int right_button(json_t *view) {
        int c = cp_pick_call(view, false);
        return c == CP_DOESNT_FIT_CALL ? 6 : c - 1;
}

static void a_match_does_not_judge_a_pad_in_conflict(void **state) {
        struct http_reply r;
        char path[96], body[256];
        (void) state;

        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\"], "
                 "\"seed\": 7, \"config\": {\"reveal\": {\"pause_ms\": 300, \"timeout_ms\": 60000}}}",
                 (long long) table_id);
        http_post_json(&daemon_, "/v1/matches", referee_token, body, &r);
        expect(&r, 201);
        match_id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) match_id);
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);

        json_t *v = cp_wait_window(public_view, match_id, 0);
        int b = right_button(v);
        json_t *p = get_pad(PAD);
        json_int_t want = counter(p, "conflict_presses") + 2;
        json_decref(p);
        /* seat 1's pad, from both devices, with the right call */
        padsim_send(&sim, "{\"pad\":0,\"button\":%d,\"press\":true}", b);
        padsim_send(&thief, "{\"pad\":0,\"button\":%d,\"press\":true}", b);
        wait_pad(PAD, conflict_presses_at_least, &want, "the seat's presses dropped");
        assert_int_equal(calls_in_log(match_id), 0);
        json_t *v2 = public_view(match_id);
        assert_true(json_equal(v, v2));
        json_decref(v2);
        json_decref(v);

        struct http_reply h;
        http_get(&daemon_, "/v1/health", NULL, &h);
        expect(&h, 200);
        http_reply_done(&h);
}

static void trust(const char *id, const char *token, const char *body, long status, const char *detail) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/pads/%s/trust", id);
        http_post_json(&daemon_, path, token, body, &r);
        expect(&r, status);
        if (detail && !strstr(r.body, detail))
                fail_msg("POST %s: \"%s\" is not in %s", path, detail, r.body);
        http_reply_done(&r);
}

static void bad_trust_requests_change_nothing(void **state) {
        const char *const both[] = { links[L1], links[L2], NULL };
        char body[512];
        (void) state;

        trust(PAD, NULL, "{\"port\": \"x\"}", 401, NULL);
        trust("0123456789abcdef", referee_token, "{\"port\": \"x\"}", 404, "no pad");
        trust(PAD, referee_token, "{}", 400, "port");
        trust(PAD, referee_token, "{\"port\": 3}", 400, "port");
        trust(PAD, referee_token, "{\"port\": \"/dev/nothing\"}", 400, "[pads] ports");
        trust(PAD, referee_token, "{\"port\": \"/dev/nothing\", \"pad\": 1}", 400, "pad");
        snprintf(body, sizeof body, "{\"port\": \"%s\"}", links[L3]);
        trust(PAD, referee_token, body, 409, "no device");
        /* a pad that is not in conflict */
        snprintf(body, sizeof body, "{\"port\": \"%s\"}", links[L1]);
        trust(OTHER, referee_token, body, 409, "not in an identity conflict");

        json_t *p = get_pad(PAD);
        assert_true(in_conflict_on(p, both));
        assert_true(json_is_null(json_object_get(p, "trusted")));
        json_decref(p);
        assert_int_equal(status_pads("in_conflict"), 1);
}

static void trusting_the_first_port_ends_the_conflict_and_refuses_the_other(void **state) {
        static const char *const judged[] = { "call_judged", NULL };
        char body[512];
        (void) state;

        json_int_t seq = last_seq();
        snprintf(body, sizeof body, "{\"port\": \"%s\"}", links[L1]);
        trust(PAD, referee_token, body, 200, "\"conflict\":null");
        assert_true(daemon_wait_log(&daemon_, "trusts the device on", HARNESS_WAIT_MS));

        json_t *p = get_pad(PAD);
        assert_true(json_is_null(json_object_get(p, "conflict")));
        assert_string_equal(json_string_value(json_object_get(p, "port")), links[L1]);
        assert_string_equal(json_string_value(json_object_get(json_object_get(p, "trusted"), "port")), links[L1]);
        json_t *refused = json_object_get(p, "refused");
        assert_int_equal(json_array_size(refused), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(refused, 0), "port")), links[L2]);
        json_int_t refused_frames = counter(p, "refused_frames");
        json_decref(p);
        assert_int_equal(status_pads("in_conflict"), 0);
        assert_int_equal(status_pads("refused_devices"), 1);

        /* the refused device is RESET; its HELLOs are refused and counted */
        padsim_wait_log(&thief, "pad 0: reset");
        json_int_t want = refused_frames + 2;
        wait_pad(PAD, refused_frames_at_least, &want, "the refused device's HELLOs counted");

        int st;
        char *out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 "
                                     "/org/arbiter/Arbiter1/pad/%s org.arbiter.Arbiter1.Pad Conflict RefusedPorts 2>&1",
                                PAD);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "b false"));
        assert_non_null(strstr(out, links[L2]));
        free(out);

        /* the pad on L1 counts again: in the press stream, and in the match */
        struct stream ev;
        char path[96];
        size_t at = 0;
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) match_id);
        stream_open(&ev, daemon_.url, path, NULL);
        json_t *v = cp_wait_window(public_view, match_id, 0);
        padsim_send(&sim, "{\"pad\":0,\"button\":%d,\"press\":true}", right_button(v));
        json_decref(v);
        wait_press_of(seq, PAD);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;; pump(&ev, 50)) {
                for (; at < ev.n_events; at++)
                        if (strcmp(ev.events[at].name, judged[0]) == 0)
                                break;
                if (at < ev.n_events)
                        break;
                if (ev.done || mono_ms() > deadline)
                        fail_msg("no call_judged after the conflict ended (%s)", ev.buf);
        }
        assert_int_equal(json_integer_value(json_object_get(ev.events[at].data, "seat")), 1);
        assert_string_equal(json_string_value(json_object_get(ev.events[at].data, "verdict")), "correct");
        stream_close(&ev);
        assert_int_equal(calls_in_log(match_id), 1);

        /* the refused device's presses go nowhere: unassigned, it does not send them */
        padsim_send(&thief, "{\"pad\":0,\"button\":1,\"press\":true}");
        padsim_wait_log(&thief, "before the host assigned an address: ignored");

        /* arbiterctl says the same decision again (it changes nothing) */
        char *ctl;
        assert_true(asprintf(&ctl, "%s/arbiterctl --url %s --token %s pads trust %s %s", harness_env("ARBITER_TEST_BUILD"),
                             daemon_.url, referee_token, PAD, links[L1]) > 0);
        out = run_capture(&st, "%s 2>&1", ctl);
        free(ctl);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "is the pad"));
        assert_non_null(strstr(out, links[L2]));
        free(out);

        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) match_id);
        struct http_reply r;
        http_post_json(&daemon_, path, referee_token, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
}

static void a_refused_device_that_goes_away_is_forgotten(void **state) {
        (void) state;
        padsim_stop(&thief);
        wait_pad(PAD, no_refused, NULL, "the refused device forgotten");
        assert_int_equal(status_pads("refused_devices"), 0);
        json_t *p = get_pad(PAD);
        assert_true(json_is_true(json_object_get(p, "connected")));
        assert_true(json_is_null(json_object_get(p, "conflict")));
        json_decref(p);
}

static void a_pad_that_comes_back_on_another_port_has_moved(void **state) {
        (void) state;
        json_int_t conflicts = status_pads("conflicts");

        start_padsim(&mover, links[L3], "--uid-base", MOVER_UID, "1");
        wait_pad(MOVER, is_connected, NULL, "connect on L3");
        padsim_stop(&mover);            /* its port closes: gone */
        wait_pad(MOVER, is_disconnected, NULL, "disconnect");
        start_padsim(&mover, links[L2], "--uid-base", MOVER_UID, "1");
        wait_pad(MOVER, is_connected, NULL, "connect on L2");

        json_t *p = get_pad(MOVER);
        assert_string_equal(json_string_value(json_object_get(p, "port")), links[L2]);
        assert_true(json_is_null(json_object_get(p, "conflict")));
        assert_int_equal(counter(p, "moves"), 1);
        assert_int_equal(counter(p, "conflicts"), 0);
        json_decref(p);
        assert_int_equal(status_pads("conflicts"), conflicts);
        assert_int_equal(status_pads("in_conflict"), 0);

        /* and its presses count */
        json_int_t seq = last_seq();
        padsim_send(&mover, "{\"pad\":0,\"button\":0,\"press\":true}");
        wait_press_of(seq, MOVER);
        padsim_stop(&mover);
}

static void two_devices_with_one_uid_on_one_line_are_a_conflict(void **state) {
        const char *const twice[] = { links[L3], links[L3], NULL };
        (void) state;

        start_padsim(&twins, links[L3], "--uids", TWIN_UIDS, "2");
        wait_pad(TWIN, in_conflict_on, twice, "a conflict on one line");
        json_t *p = get_pad(TWIN);
        json_t *second = json_array_get(json_object_get(json_object_get(p, "conflict"), "devices"), 1);
        assert_true(json_is_true(json_object_get(second, "same_line")));
        json_int_t want = counter(p, "conflict_presses") + 1;
        json_decref(p);
        json_int_t seq = last_seq();
        padsim_send(&twins, "{\"pad\":0,\"button\":0,\"press\":true}");
        wait_pad(TWIN, conflict_presses_at_least, &want, "a twin's press dropped");
        /* trusting the line while both are still on it: they say so again */
        char body[512];
        snprintf(body, sizeof body, "{\"port\": \"%s\"}", links[L3]);
        json_int_t conflicts = status_pads("conflicts");
        trust(TWIN, referee_token, body, 200, NULL);
        wait_pad(TWIN, in_conflict_on, twice, "the conflict found again");
        assert_true(status_pads("conflicts") > conflicts);
        json_t *items = presses_after(seq);
        assert_int_equal(presses_of(items, TWIN), 0);
        json_decref(items);
        padsim_stop(&twins);
}

/* What a client of the pad's object saw: every PropertiesChanged, with the
 * properties it named and the values this test looks at. */
struct changes {
        int signals;
        int pad_signals;                /* of org.arbiter.Arbiter1.Pad */
        char names[512];                /* the last one's properties, space-separated */
        int connected, conflict;        /* -1: not in the last one */
        char port[256];
};

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct changes *c = userdata;
        const char *iface, *name;
        int r;

        (void) ret_error;
        c->signals++;
        assert_true(sd_bus_message_read(m, "s", &iface) >= 0);
        if (strcmp(iface, "org.arbiter.Arbiter1.Pad") != 0)
                return 0;
        c->pad_signals++;
        c->names[0] = c->port[0] = '\0';
        c->connected = c->conflict = -1;
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") >= 0);
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                assert_true(sd_bus_message_read(m, "s", &name) >= 0);
                size_t used = strlen(c->names);
                snprintf(c->names + used, sizeof c->names - used, "%s%s", used ? " " : "", name);
                if (strcmp(name, "Connected") == 0 || strcmp(name, "Conflict") == 0) {
                        int b;
                        assert_true(sd_bus_message_read(m, "v", "b", &b) >= 0);
                        *(strcmp(name, "Connected") == 0 ? &c->connected : &c->conflict) = b;
                } else if (strcmp(name, "Port") == 0) {
                        const char *port;
                        assert_true(sd_bus_message_read(m, "v", "s", &port) >= 0);
                        snprintf(c->port, sizeof c->port, "%s", port);
                } else {
                        assert_true(sd_bus_message_skip(m, "v") >= 0);
                }
                assert_true(sd_bus_message_exit_container(m) >= 0);
        }
        assert_true(r >= 0);
        return 0;
}

/* A barrier on the daemon's connection: its reply to a Ping comes after
 * every signal it sent before it, and the broker keeps one sender's order.
 * Then every message that arrived before the reply is dispatched. */
static void dbus_barrier(sd_bus *bus) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, "org.arbiter.Arbiter1", "/org/arbiter/Arbiter1", "org.freedesktop.DBus.Peer",
                               "Ping", &error, &reply, "");
        if (r < 0)
                fail_msg("Ping: %s", error.message ? error.message : strerror(-r));
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        while ((r = sd_bus_process(bus, NULL)) > 0)
                ;
        assert_true(r >= 0);
}

static bool has_name(const char *names, const char *name) {
        size_t n = strlen(name);
        for (const char *p = names; (p = strstr(p, name)); p += n)
                if ((p == names || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
                        return true;
        return false;
}

/* docs/dbus.md, "How changes are announced": what one event changes on an
 * object goes out as one PropertiesChanged per object and interface, sent
 * before the daemon waits again, not one per change.  Trusting the
 * newcomer of a pad whose own device went away changes the pad three
 * times in one call: it connects again on the newcomer's port, the old
 * device is refused, then forgotten, since it is silent.  A client sees
 * one PropertiesChanged with the new values of all of them. */
static void one_decisions_changes_to_a_pad_are_one_properties_changed(void **state) {
        const char *const both[] = { links[L2], links[L3], NULL };
        struct changes c = { 0 };
        sd_bus_slot *slot = NULL;
        sd_bus *bus = NULL;
        char body[512];
        (void) state;

        start_padsim(&owner, links[L2], "--uid-base", BURST_UID, "1");
        wait_pad(BURST, is_connected, NULL, "connect on L2");
        start_padsim(&newcomer, links[L3], "--uid-base", BURST_UID, "1");
        wait_pad(BURST, in_conflict_on, both, "a conflict between L2 and L3");
        padsim_stop(&owner);            /* its port closes: the pad is gone, the conflict stays */
        wait_pad(BURST, is_disconnected, NULL, "the pad's own device gone");
        wait_pad(BURST, in_conflict_on, both, "the conflict still on");

        assert_true(sd_bus_open_user(&bus) >= 0);
        /* sd_bus_match_signal() returns once the broker has the match */
        assert_true(sd_bus_match_signal(bus, &slot, NULL, "/org/arbiter/Arbiter1/pad/" BURST,
                                        "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                        on_properties_changed, &c) >= 0);
        dbus_barrier(bus);              /* whatever the pad's going away sent is behind us */
        c = (struct changes) { 0 };

        snprintf(body, sizeof body, "{\"port\": \"%s\"}", links[L3]);
        trust(BURST, referee_token, body, 200, "\"conflict\":null");
        dbus_barrier(bus);

        if (c.signals != 1)
                fail_msg("%d PropertiesChanged for one decision, want 1 (the last named: %s)", c.signals, c.names);
        assert_int_equal(c.pad_signals, 1);
        static const char *const want[] = { "Connected", "Port", "Address", "Conflict", "ConflictPorts",
                                            "RefusedPorts", "Kind", "Buttons", "Firmware" };
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
                if (!has_name(c.names, want[i]))
                        fail_msg("PropertiesChanged does not name %s: %s", want[i], c.names);
        assert_int_equal(c.connected, 1);
        assert_int_equal(c.conflict, 0);
        assert_string_equal(c.port, links[L3]);

        /* and a read after the signal sees the same */
        int st;
        char *out = run_capture(&st, "busctl --user get-property org.arbiter.Arbiter1 "
                                     "/org/arbiter/Arbiter1/pad/%s org.arbiter.Arbiter1.Pad Connected Conflict "
                                     "RefusedPorts 2>&1", BURST);
        assert_int_equal(st, 0);
        assert_non_null(strstr(out, "b true\nb false\nas 0"));
        free(out);

        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        padsim_stop(&newcomer);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_second_device_with_a_connected_pads_uid_is_a_conflict),
                cmocka_unit_test(presses_from_both_devices_are_acked_and_dropped),
                cmocka_unit_test(a_match_does_not_judge_a_pad_in_conflict),
                cmocka_unit_test(bad_trust_requests_change_nothing),
                cmocka_unit_test(trusting_the_first_port_ends_the_conflict_and_refuses_the_other),
                cmocka_unit_test(a_refused_device_that_goes_away_is_forgotten),
                cmocka_unit_test(a_pad_that_comes_back_on_another_port_has_moved),
                cmocka_unit_test(two_devices_with_one_uid_on_one_line_are_a_conflict),
                cmocka_unit_test(one_decisions_changes_to_a_pad_are_one_properties_changed),
        };
        return cmocka_run_group_tests_name("pad identity", tests, setup, teardown);
}
