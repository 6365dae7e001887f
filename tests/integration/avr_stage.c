/* tests/integration/avr_stage.c — see avr_stage.h. */
#define _GNU_SOURCE
#include "tests/integration/avr_stage.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/sse_client.h"

static int64_t mono_us(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static bool all_synced(struct avr_stage *s) {
        struct http_reply r;
        size_t i;
        unsigned n = 0;
        json_t *p;

        http_get(&s->daemon, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                for (unsigned k = 0; k < s->n_pads; k++)
                        n += strcmp(json_string_value(json_object_get(p, "id")), s->ids[k]) == 0 &&
                             json_is_true(json_object_get(p, "connected")) &&
                             json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        http_reply_done(&r);
        return n == s->n_pads;
}

void avr_stage_start(struct avr_stage *s, unsigned n, uint64_t uid_base, const int *ppm, const char *const *pad_args,
                     const char *config) {
        char *ports = NULL, *env_pads, *arg;
        size_t ports_len = 0;
        FILE *f;

        assert_true(n >= 1 && n <= AVR_STAGE_MAX_PADS);
        memset(s, 0, sizeof *s);
        s->n_pads = n;
        f = open_memstream(&ports, &ports_len);
        assert_non_null(f);
        for (unsigned i = 0; i < n; i++) {
                char uid[32], crystal[16];
                const char *args[32] = { "--uid", uid, "--ppm", crystal };
                int k = 4;

                snprintf(uid, sizeof uid, "0x%" PRIx64, uid_base + i);
                snprintf(crystal, sizeof crystal, "%d", ppm[i]);
                snprintf(s->ids[i], sizeof s->ids[i], "%016" PRIx64, uid_base + i);
                for (const char *const *a = pad_args; a && *a && k < 31; a++)
                        args[k++] = *a;
                avrpad_start(&s->pads[i], args);
                fprintf(f, "%s%s", i ? " " : "", s->pads[i].pty);
        }
        fclose(f);

        assert_true(asprintf(&s->config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("avr")) > 0);
        f = fopen(s->config_path, "w");
        assert_non_null(f);
        fputs(config, f);
        fclose(f);
        s->admin_token = create_token("admin", unique_name("admin"));
        s->referee_token = create_token("referee", unique_name("referee"));
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", ports) > 0);
        assert_true(asprintf(&arg, "--config=%s", s->config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&s->daemon, env, args, true);
        free(env_pads);
        free(arg);
        free(ports);
        assert_true(wait_tokens_loaded(&s->daemon, HARNESS_WAIT_MS));
        avr_stage_wait_synced(s);
}

void avr_stage_wait_synced(struct avr_stage *s) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced(s);) {
                if (mono_ms() > deadline)
                        fail_msg("the %u emulated pads did not all connect and sync (see %s and the pads' "
                                 "output, %s …)", s->n_pads, s->daemon.log_path, s->pads[0].out_path);
                usleep(50000);
        }
}

void avr_stage_stop(struct avr_stage *s) {
        int st = daemon_stop(&s->daemon, SIGTERM, NULL);
        bool bad = false;

        for (unsigned i = 0; i < s->n_pads; i++) {
                struct avrpad_proc *p = &s->pads[i];

                if (p->pid <= 0)
                        continue;
                /* a command that came after its time ("is past") is the
                 * loaded machine's, and the caller's to retry */
                if (avrpad_count(p, 0, "] error: ") > avrpad_count(p, 0, " is past (now ") ||
                    avrpad_count(p, 0, "the chip stopped")) {
                        print_message("# pad %u (%s) printed an error or stopped: see %s\n", i, s->ids[i],
                                      p->out_path);
                        bad = true;
                }
                avrpad_stop(p);
        }
        free(s->config_path);
        free(s->admin_token);
        free(s->referee_token);
        s->config_path = s->admin_token = s->referee_token = NULL;
        if (st != 0)
                fail_msg("the daemon exited with %d (see %s)", st, s->daemon.log_path);
        if (bad)
                fail_msg("an emulated pad printed an error or its chip stopped");
}

json_t *avr_stage_pad(struct avr_stage *s, unsigned i) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/pads/%s", s->ids[i]);
        http_get(&s->daemon, path, NULL, &r);
        if (r.status != 200)
                fail_msg("GET %s: %ld %s", path, r.status, r.body);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

json_int_t avr_stage_counter(struct avr_stage *s, unsigned i, const char *name) {
        json_t *p = avr_stage_pad(s, i), *c = json_object_get(json_object_get(p, "counters"), name);

        if (!json_is_integer(c))
                fail_msg("/v1/pads/%s has no counter %s", s->ids[i], name);
        json_int_t v = json_integer_value(c);
        json_decref(p);
        return v;
}

json_int_t avr_stage_press_seq(struct avr_stage *s) {
        struct http_reply r;

        http_get(&s->daemon, "/v1/presses?limit=1000", NULL, &r);
        assert_int_equal(r.status, 200);
        json_int_t seq = json_integer_value(json_object_get(r.json, "next"));
        http_reply_done(&r);
        return seq;
}

json_t *avr_stage_presses(struct avr_stage *s, json_int_t after, size_t n) {
        char path[64];

        snprintf(path, sizeof path, "/v1/presses?after=%lld", (long long) after);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                struct http_reply r;

                http_get(&s->daemon, path, NULL, &r);
                assert_int_equal(r.status, 200);
                json_t *items = json_incref(json_object_get(r.json, "items"));
                http_reply_done(&r);
                if (json_array_size(items) >= n)
                        return items;
                if (mono_ms() > deadline)
                        fail_msg("%zu presses after seq %lld did not come (%zu did)", n, (long long) after,
                                 json_array_size(items));
                json_decref(items);
                usleep(50000);
        }
}

json_t *avr_stage_press_of(struct avr_stage *s, json_t *items, unsigned i, json_int_t event_no) {
        size_t k;
        json_t *p;

        json_array_foreach(items, k, p)
                if (strcmp(json_string_value(json_object_get(p, "pad")), s->ids[i]) == 0 &&
                    json_integer_value(json_object_get(p, "event_no")) == event_no)
                        return p;
        return NULL;
}

int64_t avr_stage_soon(void) {
        return mono_us() + AVR_STAGE_LEAD_US;
}

void avr_stage_schedule(struct avr_stage *s, unsigned i, unsigned button, int64_t host_us, int64_t hold_us,
                        size_t *mark) {
        *mark = avrpad_mark(&s->pads[i]);
        /* hNNN: host µs, which the pad turns into its own emulated time
         * through its crystal */
        avrpad_send(&s->pads[i], "press %u h%" PRId64, button, host_us);
        avrpad_send(&s->pads[i], "release %u h%" PRId64, button, host_us + hold_us);
}

int64_t avr_stage_pressed(struct avr_stage *s, unsigned i, unsigned button, size_t *mark) {
        char line[256], pressed[48];
        const char *const needles[] = { pressed, "] error: ", NULL };

        snprintf(pressed, sizeof pressed, "] button %u pressed host_us ", button);
        int k = avrpad_wait_any(&s->pads[i], mark, needles, HARNESS_WAIT_MS, line, sizeof line);
        if (k < 0)
                fail_msg("pad %u (%s) did not press button %u (see %s)", i, s->ids[i], button, s->pads[i].out_path);
        if (k == 1) {
                if (!strstr(line, "is past"))
                        fail_msg("pad %u (%s): %s", i, s->ids[i], line);
                print_message("# pad %u came too late to a press: %s\n", i, line);
                return -1;
        }
        return avrpad_field(line, "host_us");
}

int64_t avr_stage_press(struct avr_stage *s, unsigned i, unsigned button, int64_t host_us) {
        size_t mark;
        int64_t at;

        avr_stage_schedule(s, i, button, host_us, 50000, &mark);
        at = avr_stage_pressed(s, i, button, &mark);
        if (at < 0)
                fail_msg("pad %u could not press at host µs %lld", i, (long long) host_us);
        return at;
}

int64_t avr_stage_tap(struct avr_stage *s, unsigned i, unsigned button) {
        char line[256], pressed[48], released[48];
        const char *const needles[] = { released, " is past (now ", NULL };
        size_t mark = avrpad_mark(&s->pads[i]);

        snprintf(pressed, sizeof pressed, "] button %u pressed host_us ", button);
        snprintf(released, sizeof released, "] button %u released host_us ", button);
        avrpad_send(&s->pads[i], "press %u", button);
        avrpad_expect(&s->pads[i], &mark, pressed, line, sizeof line);
        int64_t at = avrpad_field(line, "host_us");
        /* a release sent now could be taken in the same emulated cycle as
         * the press, which no pin-change interrupt would see: it is timed
         * from the press, or made at once if that time has passed */
        avrpad_send(&s->pads[i], "release %u %.1f", button, avrpad_emu_us(line) + 30000);
        if (avrpad_wait_any(&s->pads[i], &mark, needles, HARNESS_WAIT_MS, line, sizeof line) == 1)
                avrpad_send(&s->pads[i], "release %u", button);
        return at;
}
