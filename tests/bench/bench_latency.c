/* bench_latency — from the last relevant frame's arrival to the judge's
 * decision, six pads pressing at once.
 *
 * Six pads share one line and press within 100 µs of each other; their
 * PRESS frames (real bytes from frame_encode) go out one after another as
 * the line frees up, at 1 Mbaud and at 115200 baud.  The bytes are fed to
 * the real stream decoder, each decoded press to the real judge at its
 * frame's arrival time, and the judge is polled at every arrival and at the
 * wake-up time it asks for.  The latency of a trial is the judge's decision
 * time minus the last frame's arrival (virtual time: the line is simulated),
 * plus the CPU time the decoder and judge really spent on the trial.
 *
 * The settle window is what the driver uses for that line
 * (padbus_settle_us: the configured window, widened to cover six press
 * frames back to back plus one USB polling interval).  Reference, same
 * run: the time the six frames take on the wire, the floor below which no
 * decision can know every press.  Target (issue 3): p99 within the settle
 * window + 1 ms.
 *
 * Rows of `make bench`'s report (report.h): latency.p99_us.1000000 and
 * latency.p99_us.115200, the p99 against the settle window of that line,
 * computed in the same run by the driver's own padbus_settle_us (the wait
 * that is there by design: the decision may not come before it), goal a
 * difference of at most 1,000 µs: issue 3's target exactly.  The wire time
 * is in the figure's text; subtracting it as well would loosen the target
 * by 8 ms at 115200 baud.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/judge.h"
#include "hardware/frame.h"
#include "hardware/padbus.h"

#include "report.h"

#define PADS            6
#define TRIALS          5000
#define SPREAD_US       100             /* the six presses fall within this */
#define CONFIGURED_SETTLE_US 2000       /* [pads] settle_window default */

static uint64_t rng_state = 42;

static uint64_t rng(void) {
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

static int64_t cpu_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

struct ctx {
        struct judge *j;
        int64_t now;                    /* virtual µs: the frame being fed has arrived */
        int64_t press_time[PADS];
        unsigned fed;
};

static void on_frame(void *userdata, const struct frame *f) {
        struct ctx *c = userdata;
        struct proto_event e;
        enum judge_reason reason;

        if (proto_unpack_event(f, &e) < 0)
                return;
        struct judge_press p = {
                .id = f->address, .seat = (uint8_t) (f->address - 1), .button = e.button,
                .time_us = c->press_time[f->address - 1], .uncertainty_us = 20, .received_us = c->now,
        };
        judge_press(c->j, &p, &reason);
        c->fed++;
}

static void run(unsigned baud) {
        uint8_t wire[PADS][PROTO_MAX_ENCODED];
        int len[PADS];
        int64_t lat[TRIALS], cpu[TRIALS];
        unsigned too_late = 0, undecided = 0;
        struct frame_decoder dec;
        struct judge j;
        struct judge_config cfg;
        int64_t settle = padbus_settle_us(CONFIGURED_SETTLE_US, baud, true, 0, PADS);
        int64_t wire_all = 0;

        for (int i = 0; i < PADS; i++) {
                struct frame f;
                proto_pack_event(&f, PROTO_PRESS, &(struct proto_event) { .event_no = 1, .button = 2 });
                f.version = PROTO_VERSION;
                f.address = (uint8_t) (i + 1);
                f.seq = 7;
                len[i] = frame_encode(&f, wire[i], sizeof wire[i]);
                wire_all += (int64_t) len[i] * 10 * 1000000 / baud;
        }
        judge_config_init(&cfg);
        cfg.settle_us = settle;

        for (unsigned t = 0; t < TRIALS; t++) {
                struct ctx c = { .j = &j };
                int64_t T = 10000000 + (int64_t) t * 1000000;
                int64_t arrive[PADS], line_free = 0;
                int order[PADS];

                judge_init(&j, &cfg);
                judge_open(&j, T - 500000, JUDGE_ALL_SEATS);
                frame_decoder_init(&dec);
                for (int i = 0; i < PADS; i++) {
                        c.press_time[i] = T + (int64_t) (rng() % SPREAD_US);
                        order[i] = i;
                }
                /* the line sends frames in press order, one at a time */
                for (int a = 0; a < PADS; a++)
                        for (int b = a + 1; b < PADS; b++)
                                if (c.press_time[order[b]] < c.press_time[order[a]]) {
                                        int x = order[a];
                                        order[a] = order[b];
                                        order[b] = x;
                                }
                for (int k = 0; k < PADS; k++) {
                        int i = order[k];
                        int64_t start = c.press_time[i] > line_free ? c.press_time[i] : line_free;
                        arrive[k] = start + (int64_t) len[i] * 10 * 1000000 / baud;
                        line_free = arrive[k];
                }

                int64_t t0 = cpu_ns(), wake = 0, decided = -1;
                struct judge_result res;
                for (int k = 0; k < PADS && decided < 0; k++) {
                        /* a decision due before this frame arrives comes first */
                        if (judge_poll(&j, arrive[k] - 1, &wake, &res) == JUDGE_DECIDED) {
                                decided = res.decided_us;
                                break;
                        }
                        c.now = arrive[k];
                        frame_decoder_feed(&dec, wire[order[k]], (size_t) len[order[k]], on_frame, &c);
                        if (judge_poll(&j, c.now, &wake, &res) == JUDGE_DECIDED)
                                decided = res.decided_us;
                }
                if (decided < 0 && judge_poll(&j, wake, &wake, &res) == JUDGE_DECIDED)
                        decided = res.decided_us;
                cpu[t] = cpu_ns() - t0;
                if (decided < 0) {
                        undecided++;
                        lat[t] = 0;
                        continue;
                }
                too_late += (unsigned) (PADS - res.n_counted);
                lat[t] = decided - arrive[PADS - 1] + cpu[t] / 1000;
        }

        qsort(lat, TRIALS, sizeof lat[0], cmp64);
        qsort(cpu, TRIALS, sizeof cpu[0], cmp64);
        printf("%7u baud  settle %5lld µs  wire(6 frames) %5lld µs  latency p50 %5lld  p99 %5lld  max %5lld µs"
               "  target p99 <= %lld µs %s\n",
               baud, (long long) settle, (long long) wire_all, (long long) lat[TRIALS / 2],
               (long long) lat[TRIALS * 99 / 100], (long long) lat[TRIALS - 1], (long long) (settle + 1000),
               lat[TRIALS * 99 / 100] <= settle + 1000 ? "met" : "NOT met");
        printf("%13s decoder + judge CPU per trial: p50 %lld ns, p99 %lld ns; presses missed (too late): %u; "
               "undecided: %u\n", "", (long long) cpu[TRIALS / 2], (long long) cpu[TRIALS * 99 / 100], too_late,
               undecided);
        char id[64], fig[160];
        snprintf(id, sizeof id, "latency.p99_us.%u", baud);
        snprintf(fig, sizeof fig, "six pads at %u baud: last frame → decision, p99 (the frames %lld µs on the wire)",
                 baud, (long long) wire_all);
        bench_report(id, fig, "µs", undecided ? NAN : (double) lat[TRIALS * 99 / 100], (double) settle,
                     "settle window (padbus_settle_us)", BENCH_GOAL_DIFF_MAX, 1000);
}

int main(void) {
        printf("six pads pressing within %d µs, %d trials per speed\n", SPREAD_US, TRIALS);
        run(1000000);
        run(115200);
        return 0;
}
