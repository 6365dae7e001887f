/* tests/integration/avr_stage.c — see avr_stage.h. */
#define _GNU_SOURCE
#include "tests/integration/avr_stage.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/sse_client.h"

/* The daemon's [pads]: the firmware's speed, counted on the ptys as on a
 * real line; a generous settle window, since an emulated pad on a loaded
 * machine can hand its frame to the pty late; SYNCs every 200 ms. */
static const char config_text[] =
        "[pads]\n"
        "baud = 1000000\n"
        "pty_wire_time = yes\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";
/* A bus's three chips keep an emulator near a core busy (every pad takes
 * every byte of the turns), so on a loaded machine they lag further: their
 * answers may come well past a real adapter's margin, and their presses'
 * frames later. */
static const char own_lines_text[] = "settle_window = 50000\n";
static const char bus_text[] =
        "settle_window = 150000\n"
        "rs485_reply_margin = 20000\n";

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

/* Starts one avrpad with uid, the crystals of ppm[0..n), args and
 * pad_args. */
static void start_proc(struct avrpad_proc *p, uint64_t uid, const int *ppm, unsigned n, const char *const *args,
                       const char *const *pad_args) {
        char uid_text[32], crystals[16 * AVR_STAGE_MAX_PADS] = "";
        const char *argv[40] = { "--uid", uid_text, "--ppm", crystals };
        int k = 4;

        snprintf(uid_text, sizeof uid_text, "0x%" PRIx64, uid);
        for (unsigned i = 0; i < n; i++)
                snprintf(crystals + strlen(crystals), sizeof crystals - strlen(crystals), "%s%d", i ? "," : "",
                         ppm[i]);
        for (const char *const *a = args; a && *a && k < 38; a++)
                argv[k++] = *a;
        for (const char *const *a = pad_args; a && *a && k < 38; a++)
                argv[k++] = *a;
        avrpad_start(p, argv);
}

void avr_stage_start(struct avr_stage *s, enum avr_line line, unsigned n, uint64_t uid_base, const int *ppm,
                     const char *const *pad_args) {
        char *ports = NULL, *env_pads, *arg;
        size_t ports_len = 0;
        FILE *f;

        assert_true(n >= 1 && n <= AVR_STAGE_MAX_PADS);
        memset(s, 0, sizeof *s);
        s->line = line;
        s->n_pads = n;
        for (unsigned i = 0; i < n; i++) {
                snprintf(s->ids[i], sizeof s->ids[i], "%016" PRIx64, uid_base + i);
                if (line == AVR_LINE_BUS) {
                        snprintf(s->tag[i], sizeof s->tag[i], "] pad %u ", i);
                        snprintf(s->at[i], sizeof s->at[i], "@%u ", i);
                } else {
                        snprintf(s->tag[i], sizeof s->tag[i], "] ");
                }
        }
        f = open_memstream(&ports, &ports_len);
        assert_non_null(f);
        if (line == AVR_LINE_BUS) {
                char count[8];
                const char *const args[] = { "--pads", count, "--rs485", NULL };

                snprintf(count, sizeof count, "%u", n);
                start_proc(&s->procs[0], uid_base, ppm, n, args, pad_args);
                s->n_procs = 1;
                fputs(s->procs[0].pty, f);
        } else {
                for (unsigned i = 0; i < n; i++) {
                        start_proc(&s->procs[i], uid_base + i, &ppm[i], 1, NULL, pad_args);
                        s->proc_of[i] = i;
                        fprintf(f, "%s%s", i ? " " : "", s->procs[i].pty);
                }
                s->n_procs = n;
        }
        fclose(f);

        assert_true(asprintf(&s->config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("avr")) > 0);
        f = fopen(s->config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fputs(line == AVR_LINE_BUS ? bus_text : own_lines_text, f);
        if (line == AVR_LINE_BUS)
                fprintf(f, "rs485_ports = %s\n", ports);
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
                                 "output, %s …)", s->n_pads, s->daemon.log_path, s->procs[0].out_path);
                usleep(50000);
        }
}

void avr_stage_stop(struct avr_stage *s) {
        int st = daemon_stop(&s->daemon, SIGTERM, NULL);
        bool bad = false;

        for (unsigned i = 0; i < s->n_procs; i++) {
                struct avrpad_proc *p = &s->procs[i];

                if (p->pid <= 0)
                        continue;
                /* a command that came after its time ("is past") is the
                 * loaded machine's, and the caller's to retry */
                if (avrpad_count(p, 0, " error: ") > avrpad_count(p, 0, " is past (now ") ||
                    avrpad_count(p, 0, " DE violation") || avrpad_count(p, 0, "the chip stopped")) {
                        print_message("# avrpad %u printed an error, a DE violation or a stopped chip: see %s\n", i,
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
                fail_msg("an emulated pad printed an error, drove its line with DE low, or its chip stopped");
}

struct avrpad_proc *avr_stage_proc(struct avr_stage *s, unsigned i) {
        return &s->procs[s->proc_of[i]];
}

size_t avr_stage_mark(struct avr_stage *s, unsigned i) {
        return avrpad_mark(avr_stage_proc(s, i));
}

void avr_stage_send(struct avr_stage *s, unsigned i, const char *fmt, ...) {
        char *command;
        va_list ap;

        va_start(ap, fmt);
        assert_true(vasprintf(&command, fmt, ap) > 0);
        va_end(ap);
        avrpad_send(avr_stage_proc(s, i), "%s%s", s->at[i], command);
        free(command);
}

void avr_stage_expect(struct avr_stage *s, unsigned i, size_t *mark, const char *what, char *line, size_t size) {
        char needle[128];

        snprintf(needle, sizeof needle, "%s%s", s->tag[i], what);
        avrpad_expect(avr_stage_proc(s, i), mark, needle, line, size);
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

int64_t avr_stage_soon(void) {
        return mono_us() + AVR_STAGE_LEAD_US;
}

void avr_stage_schedule(struct avr_stage *s, unsigned i, unsigned button, int64_t host_us, int64_t hold_us,
                        size_t *mark) {
        *mark = avr_stage_mark(s, i);
        /* hNNN: host µs, which the pad turns into its own emulated time
         * through its crystal */
        avr_stage_send(s, i, "press %u h%" PRId64, button, host_us);
        avr_stage_send(s, i, "release %u h%" PRId64, button, host_us + hold_us);
}

int64_t avr_stage_pressed(struct avr_stage *s, unsigned i, unsigned button, size_t *mark) {
        char line[256], pressed[64], error[32];
        const char *const needles[] = { pressed, error, NULL };
        struct avrpad_proc *p = avr_stage_proc(s, i);

        snprintf(pressed, sizeof pressed, "%sbutton %u pressed host_us ", s->tag[i], button);
        snprintf(error, sizeof error, "%serror: ", s->tag[i]);
        int k = avrpad_wait_any(p, mark, needles, HARNESS_WAIT_MS, line, sizeof line);
        if (k < 0)
                fail_msg("pad %u (%s) did not press button %u (see %s)", i, s->ids[i], button, p->out_path);
        if (k == 1) {
                if (!strstr(line, " is past (now "))
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
        /* Never "now": an emulation that lags the wall clock would stamp
         * the press in its past, before what the test just saw happen (a
         * card revealed): a false start.  A moment ahead instead, and again
         * should the pad get the command after that moment. */
        for (int tries = 0; tries < AVR_STAGE_TRIES; tries++) {
                size_t mark;
                int64_t at;

                avr_stage_schedule(s, i, button, mono_us() + AVR_STAGE_TAP_LEAD_US, 30000, &mark);
                if ((at = avr_stage_pressed(s, i, button, &mark)) >= 0)
                        return at;
        }
        fail_msg("pad %u got each of %d presses after its time (see %s)", i, AVR_STAGE_TRIES,
                 avr_stage_proc(s, i)->out_path);
        return -1;
}
