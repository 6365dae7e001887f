/* The pad clock model against simulated pads: convergence, honest bounds,
 * wrap-around, outlier rejection, warm-up, clock jumps, the clockless
 * fallback, and days of uptime.
 *
 * The simulator knows the truth: a pad whose counter reads pad_start
 * offset_us after host_start and runs drift_ppm fast, a link with fixed
 * and uniformly jittered one-way delays plus the frames' wire times at the
 * given baud rate (12-byte SYNC, 19-byte SYNC_REPLY on the wire), a pad
 * turnaround of 40–200 µs, and occasional hiccups added to one leg: 10–50
 * ms (over the 10 ms RTT limit) or 6.0–6.5 ms (under it, but more than 3×
 * the best RTT at every link here).  Hiccups start after the first 20
 * exchanges so that the recent minimum is known, which makes the expected
 * rejection counts exact.  Everything random comes from a seeded
 * splitmix64, so every run is the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hardware/clock.h"

#define SYNC_WIRE_BYTES         12      /* SYNC: 5 header + 3 payload + 2 CRC, COBS +1, delimiter */
#define REPLY_WIRE_BYTES        19      /* SYNC_REPLY: 5 + 10 + 2, COBS +1, delimiter */
#define BITS_PER_BYTE           10      /* 8N1 */
#define SYNC_INTERVAL_US        1000000 /* the driver's steady sync period */
#define SCHEDULE_JITTER_US      20000   /* the loop does not fire SYNCs on the dot */
#define TURNAROUND_MIN_US       40
#define TURNAROUND_MAX_US       200
#define QUIET_EXCHANGES         20      /* no hiccups before the RTT minimum is known */
#define BIG_HICCUP_P            0.04
#define MODERATE_HICCUP_P       0.04
#define PRESSES_PER_SYNC        8

/* Converged: 30 s in, the fit has ~30 effective points.  Its own noise with
 * ±300 µs of uniform jitter per leg is σ ≈ 61 µs per point, ≈ 11 µs at the
 * centroid and as much again from the slope 30 s away; 100 µs is over 5σ
 * and half the 200 µs spacing the ordering benchmark must resolve.  The
 * error is measured against the delay asymmetry, which no exchange can
 * reveal (it is what the half-RTT term of the uncertainty is for). */
#define CONVERGED_AFTER         30
#define CONVERGED_ERROR_US      100.0
#define CONVERGED_DRIFT_PPM     3.0
/* …and the uncertainty is then useful, not just honest: the statistical and
 * wander part stays below this on top of half the mean RTT and the quanta,
 * up to 5 s past the last sync (≈ 1.6 ppm × 33 s ≈ 55 µs expected). */
#define CONVERGED_EXTRA_US      150.0

/* ---- a seeded PRNG: splitmix64 ---- */

struct rng {
        uint64_t s;
};

static uint64_t rng_next(struct rng *r) {
        uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static double rng_unit(struct rng *r) {
        return (double) (rng_next(r) >> 11) * 0x1p-53;
}

static double rng_range(struct rng *r, double lo, double hi) {
        return lo + (hi - lo) * rng_unit(r);
}

/* ---- the simulated pad and link ---- */

struct pad_spec {
        const char *name;
        uint32_t hz;
        double offset_us;               /* the counter reads pad_start this long after host_start */
        double drift_ppm;               /* the pad's counter runs this much fast */
        int64_t pad_start;              /* ticks */
        unsigned baud;                  /* 0: a pty, no wire time */
        bool narrowed;                  /* t1, t4 narrowed by the wire times, as hardware/padbus does */
        double fwd_base_us, fwd_jitter_us;
        double back_base_us, back_jitter_us;
        bool moderate_hiccups;
};

enum hiccup { HICCUP_NONE, HICCUP_BIG, HICCUP_MODERATE };

struct sim {
        const struct pad_spec *spec;
        struct rng rng;
        int64_t host_start;
        double offset_us, drift_ppm;
        int64_t pad_start;
};

struct exchange {
        int64_t t1, t4;
        uint32_t rx, tx;
        int64_t rx_ticks;               /* the true, unwrapped counter */
};

static void sim_init(struct sim *s, const struct pad_spec *spec, uint64_t seed, int64_t host_start) {
        *s = (struct sim) {
                .spec = spec, .rng = { seed }, .host_start = host_start,
                .offset_us = spec->offset_us, .drift_ppm = spec->drift_ppm, .pad_start = spec->pad_start,
        };
}

static double sim_ticks(const struct sim *s, double host_us) {
        return (double) s->pad_start +
               (host_us - (double) s->host_start - s->offset_us) * (1 + s->drift_ppm * 1e-6) * s->spec->hz / 1e6;
}

static int64_t sim_tick_floor(const struct sim *s, double host_us) {
        return (int64_t) floor(sim_ticks(s, host_us));
}

static uint32_t sim_raw(const struct sim *s, double host_us) {
        return (uint32_t) (uint64_t) sim_tick_floor(s, host_us);
}

static double sim_host_of_ticks(const struct sim *s, double ticks) {
        return (double) s->host_start + s->offset_us +
               (ticks - (double) s->pad_start) * 1e6 / s->spec->hz / (1 + s->drift_ppm * 1e-6);
}

static double wire_us(const struct pad_spec *spec, unsigned bytes) {
        return spec->baud ? (double) bytes * BITS_PER_BYTE * 1e6 / spec->baud : 0;
}

/* The error a point's midpoint carries on average: half the difference of
 * the delays the model sees on the two legs. */
static double expected_bias(const struct pad_spec *spec) {
        double fwd = spec->fwd_base_us + spec->fwd_jitter_us / 2;
        double back = spec->back_base_us + spec->back_jitter_us / 2;

        if (!spec->narrowed) {
                fwd += wire_us(spec, SYNC_WIRE_BYTES);
                back += wire_us(spec, REPLY_WIRE_BYTES);
        }
        return (back - fwd) / 2;
}

static double expected_mean_rtt(const struct pad_spec *spec) {
        double rtt = spec->fwd_base_us + spec->fwd_jitter_us / 2 + spec->back_base_us + spec->back_jitter_us / 2;

        if (!spec->narrowed)
                rtt += wire_us(spec, SYNC_WIRE_BYTES) + wire_us(spec, REPLY_WIRE_BYTES);
        return rtt;
}

/* One SYNC leaving at host t1, as the driver would report it. */
static void sim_exchange(struct sim *s, int64_t t1, enum hiccup hiccup, struct exchange *ret) {
        const struct pad_spec *spec = s->spec;
        double wire_fwd = wire_us(spec, SYNC_WIRE_BYTES), wire_back = wire_us(spec, REPLY_WIRE_BYTES);
        double d1 = wire_fwd + spec->fwd_base_us + rng_range(&s->rng, 0, spec->fwd_jitter_us);
        double d2 = wire_back + spec->back_base_us + rng_range(&s->rng, 0, spec->back_jitter_us);
        double t_rx, t_tx, t4;

        if (hiccup != HICCUP_NONE) {
                double extra = hiccup == HICCUP_BIG ? rng_range(&s->rng, 10000, 50000)
                                                    : rng_range(&s->rng, 6000, 6500);
                if (rng_next(&s->rng) & 1)
                        d1 += extra;
                else
                        d2 += extra;
        }
        t_rx = (double) t1 + d1;
        t_tx = t_rx + rng_range(&s->rng, TURNAROUND_MIN_US, TURNAROUND_MAX_US);
        t4 = t_tx + d2;

        ret->rx_ticks = sim_tick_floor(s, t_rx);
        ret->rx = sim_raw(s, t_rx);
        ret->tx = sim_raw(s, t_tx);
        ret->t1 = t1 + (spec->narrowed ? (int64_t) wire_fwd : 0);
        ret->t4 = (int64_t) floor(t4) - (spec->narrowed ? (int64_t) wire_back : 0);
}

static int sim_sync(struct sim *s, struct clock_model *m, int64_t t1, enum hiccup hiccup, struct exchange *ret) {
        sim_exchange(s, t1, hiccup, ret);
        return clock_model_add_sync(m, ret->t1, ret->t4, ret->rx, ret->tx);
}

/* ---- checking presses ---- */

struct stats {
        double worst_ratio;             /* max |error| / uncertainty */
        double max_error;
        double max_converged_error;     /* max |error − expected bias| once converged */
        double max_converged_extra;     /* max uncertainty − (mean rtt / 2 + quanta) once converged */
        double sum_unc;
        uint64_t presses;
        uint64_t hash;                  /* every answer, for the determinism test */
};

static void stats_init(struct stats *st) {
        *st = (struct stats) { .hash = UINT64_C(14695981039346656037) };
}

static void hash_in(struct stats *st, int64_t v) {
        st->hash = (st->hash ^ (uint64_t) v) * UINT64_C(1099511628211);
}

/* A press at true host time h: the model's answer must bound its error. */
static void check_press(const struct sim *s, const struct clock_model *m, double h, bool converged, struct stats *st) {
        const struct pad_spec *spec = s->spec;
        int64_t host, unc;
        double err, quanta = 3 * 1e6 / spec->hz + 3;

        assert_int_equal(clock_model_to_host(m, sim_raw(s, h), &host, &unc), 0);
        err = (double) host - h;
        assert_true(unc >= 1);
        if (fabs(err) > (double) unc)
                fail_msg("%s: press at %.1f: error %.1f µs, uncertainty %" PRId64 " µs",
                         spec->name, h, err, unc);
        st->worst_ratio = fmax(st->worst_ratio, fabs(err) / (double) unc);
        st->max_error = fmax(st->max_error, fabs(err));
        st->sum_unc += (double) unc;
        st->presses++;
        hash_in(st, host);
        hash_in(st, unc);
        if (converged) {
                /* The fit weights quiet exchanges more (clock.c, rtt_weight), so
                 * it does at least as well as the link's mean asymmetry allows. */
                double off = fabs(err) - fabs(expected_bias(spec));
                double extra = (double) unc - expected_mean_rtt(spec) / 2 - quanta;

                if (off > CONVERGED_ERROR_US)
                        fail_msg("%s: converged error %.1f µs, worse than the expected bias %.1f allows",
                                 spec->name, err, expected_bias(spec));
                if (extra > CONVERGED_EXTRA_US)
                        fail_msg("%s: uncertainty %" PRId64 " µs, %.1f above half the mean RTT",
                                 spec->name, unc, extra);
                st->max_converged_error = fmax(st->max_converged_error, off);
                st->max_converged_extra = fmax(st->max_converged_extra, extra);
        }
}

/* The model's offset is host − pad µs at the newest accepted exchange's
 * rx: check it against the truth there, within the model's own bound. */
static void check_offset(const struct sim *s, const struct clock_model *m, int64_t rx_ticks, double host_now) {
        uint32_t hz = s->spec->hz;
        int64_t ext = clock_model_extend(m, (uint32_t) (uint64_t) rx_ticks);
        double truth = sim_host_of_ticks(s, (double) rx_ticks) - (double) ext * 1e6 / hz;
        int64_t unc = clock_model_uncertainty_us(m, (int64_t) host_now);

        /* rx_ticks is the anchor: the bound there, a tick for which instant
         * "reads rx" means, and the µs rounding of both sides */
        assert_true(fabs((double) clock_model_offset_us(m) - truth) <= (double) unc + 1e6 / hz + 2);
        assert_int_equal((ext - rx_ticks) % (INT64_C(1) << 32), 0);
}

struct run_opts {
        unsigned steps;                 /* syncs, one a second */
        unsigned press_every;           /* check presses after every n-th sync */
        int64_t host_start;
};

/* A whole pad life: the sync schedule with presses checked as they would be
 * converted (right after the newest sync), then presses from a minute before
 * to 5 s after the last sync, then the estimates and the counters. */
static void run_pad(const struct pad_spec *spec, uint64_t seed, const struct run_opts *o, struct stats *st) {
        struct clock_model m;
        struct sim s;
        struct exchange ex;
        uint64_t big = 0, moderate = 0;
        int64_t last_t4 = 0, last_rx_ticks = 0;

        stats_init(st);
        sim_init(&s, spec, seed, o->host_start);
        assert_int_equal(clock_model_init(&m, spec->hz, NULL), 0);

        for (unsigned k = 0; k < o->steps; k++) {
                int64_t t1 = o->host_start + (int64_t) k * SYNC_INTERVAL_US +
                             llround(rng_range(&s.rng, -SCHEDULE_JITTER_US, SCHEDULE_JITTER_US));
                enum hiccup hiccup = HICCUP_NONE;
                double u = rng_unit(&s.rng);
                int r;

                if (k >= QUIET_EXCHANGES && u < BIG_HICCUP_P)
                        hiccup = HICCUP_BIG;
                else if (k >= QUIET_EXCHANGES && spec->moderate_hiccups && u < BIG_HICCUP_P + MODERATE_HICCUP_P)
                        hiccup = HICCUP_MODERATE;
                r = sim_sync(&s, &m, t1, hiccup, &ex);
                switch (hiccup) {
                case HICCUP_BIG:
                        big++;
                        assert_int_equal(r, CLOCK_REJECTED_RTT);
                        continue;
                case HICCUP_MODERATE:
                        moderate++;
                        assert_int_equal(r, CLOCK_REJECTED_OUTLIER);
                        continue;
                case HICCUP_NONE:
                        assert_int_equal(r, CLOCK_ACCEPTED);
                }
                last_t4 = ex.t4;
                last_rx_ticks = ex.rx_ticks;

                if (clock_model_samples(&m) < m.params.min_samples) {
                        int64_t host, unc;
                        assert_false(clock_model_synced(&m));
                        assert_int_equal(clock_model_to_host(&m, ex.rx, &host, &unc), -EAGAIN);
                        assert_int_equal(clock_model_uncertainty_us(&m, ex.t4), m.params.transport_jitter_us);
                        continue;
                }
                assert_true(clock_model_synced(&m));
                if (k % o->press_every)
                        continue;
                for (unsigned i = 0; i < PRESSES_PER_SYNC; i++)
                        check_press(&s, &m, (double) ex.t4 + rng_range(&s.rng, -500000, 1500000),
                                    k >= CONVERGED_AFTER, st);
        }

        for (unsigned i = 0; i < 200; i++)
                check_press(&s, &m, (double) last_t4 + rng_range(&s.rng, -60e6, 5e6), true, st);

        if (fabs(clock_model_drift_ppm(&m) - spec->drift_ppm) > CONVERGED_DRIFT_PPM)
                fail_msg("%s: drift %.3f ppm, truly %.3f", spec->name, clock_model_drift_ppm(&m), spec->drift_ppm);
        check_offset(&s, &m, last_rx_ticks, (double) last_t4);

        const struct clock_counters *c = clock_model_counters(&m);
        assert_int_equal(c->rejected_rtt, big);
        assert_int_equal(c->rejected_outlier, moderate);
        assert_int_equal(c->rejected_invalid, 0);
        assert_int_equal(c->rejected_inconsistent, 0);
        assert_int_equal(c->restarts, 0);
        assert_int_equal(c->accepted, o->steps - big - moderate);
        assert_int_equal(clock_model_rejected(&m), big + moderate);
        hash_in(st, clock_model_offset_us(&m));
        hash_in(st, llround(clock_model_drift_ppm(&m) * 1e6));
}

#define MBAUD           1000000
#define HOST_START      INT64_C(500000000000)   /* 5.8 days after boot */
#define WRAP            (INT64_C(1) << 32)

/* Offsets and drifts to the ±50 ms / ±100 ppm corners and zero, three clock
 * rates, both wire speeds, narrowed or not, a pty, and the delay
 * asymmetry pushed all onto one leg (where the half-RTT term is tight). */
static const struct pad_spec pads[] = {
        { "zero", 1000000, 0, 0, 0, MBAUD, false, 50, 300, 50, 300, true },
        { "+50ms +100ppm", 1000000, 50000, 100, 0, MBAUD, false, 50, 300, 50, 300, true },
        { "-50ms -100ppm", 1000000, -50000, -100, 0, MBAUD, false, 50, 300, 50, 300, true },
        { "+50ms -100ppm", 1000000, 50000, -100, 0, MBAUD, false, 50, 300, 50, 300, true },
        { "-50ms +100ppm", 1000000, -50000, 100, 0, MBAUD, false, 50, 300, 50, 300, true },
        { "+12ms +37ppm", 1000000, 12345, 37.5, 0x12345678, MBAUD, false, 50, 300, 50, 300, true },
        { "wraps at 30 s", 1000000, -3000, -100, WRAP - 30000000, MBAUD, false, 50, 300, 50, 300, true },
        { "16 MHz, wraps", 16000000, 20000, 73, WRAP - 16000000LL * 40, MBAUD, false, 50, 300, 50, 300, true },
        { "32768 Hz", 32768, -41000, -55, 0, MBAUD, false, 50, 300, 50, 300, true },
        { "115200 baud", 1000000, 30000, 100, 0, 115200, false, 50, 300, 50, 300, false },
        { "115200 narrowed", 1000000, -30000, -100, 0, 115200, true, 50, 300, 50, 300, true },
        { "pty", 1000000, 7000, 100, 0, 0, false, 5, 50, 5, 50, true },
        { "all jitter back", 1000000, 50000, 100, 0, MBAUD, true, 0, 0, 0, 600, true },
        { "all jitter forth", 1000000, -50000, -100, 0, MBAUD, true, 0, 600, 0, 0, true },
};

static void synthetic_pads_converge_and_stay_bounded(void **state) {
        const struct run_opts o = { .steps = 120, .press_every = 1, .host_start = HOST_START };
        double worst = 0;
        const char *worst_name = "";
        (void) state;

        for (size_t i = 0; i < sizeof pads / sizeof pads[0]; i++) {
                struct stats st;

                run_pad(&pads[i], 1000 + i, &o, &st);
                print_message("%-18s %5" PRIu64 " presses: worst |err|/unc %.3f, max |err| %6.1f µs, "
                              "converged |err-bias| <= %5.1f µs, mean unc %6.1f µs\n",
                              pads[i].name, st.presses, st.worst_ratio, st.max_error,
                              st.max_converged_error, st.sum_unc / (double) st.presses);
                if (st.worst_ratio > worst) {
                        worst = st.worst_ratio;
                        worst_name = pads[i].name;
                }
        }
        print_message("worst |error| / uncertainty: %.3f (%s)\n", worst, worst_name);
}

/* Many seeds of the hardest corners: the bound is not a lucky draw. */
static void bound_holds_across_seeds(void **state) {
        const struct run_opts o = { .steps = 120, .press_every = 3, .host_start = HOST_START };
        static const size_t rows[] = { 1, 2, 8, 9, 12, 13 };
        double worst = 0;
        (void) state;

        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
                for (uint64_t seed = 1; seed <= 25; seed++) {
                        struct stats st;

                        run_pad(&pads[rows[r]], seed * 7919, &o, &st);
                        worst = fmax(worst, st.worst_ratio);
                }
        print_message("worst |error| / uncertainty over 150 runs: %.3f\n", worst);
}

/* Three days of syncs from more than a year of uptime: the re-anchored,
 * centred sums keep their precision, and the counter wraps ~60 times at 1
 * MHz (~970 times at 16 MHz) without losing its epoch. */
static void days_of_uptime_keep_precision(void **state) {
        static const struct pad_spec days[] = {
                { "3 days 1 MHz", 1000000, -31000, 87, WRAP - 5000000, MBAUD, false, 50, 300, 50, 300, true },
                { "3 days 16 MHz", 16000000, 44000, -64, 0, MBAUD, false, 50, 300, 50, 300, true },
        };
        const struct run_opts o = { .steps = 3 * 86400, .press_every = 600, .host_start = INT64_C(1) << 45 };
        (void) state;

        for (size_t i = 0; i < sizeof days / sizeof days[0]; i++) {
                struct stats st;

                run_pad(&days[i], 77 + i, &o, &st);
                print_message("%-18s %5" PRIu64 " presses: worst |err|/unc %.3f, converged |err-bias| <= %.1f µs\n",
                              days[i].name, st.presses, st.worst_ratio, st.max_converged_error);
        }
}

static void same_seed_same_answers(void **state) {
        const struct run_opts o = { .steps = 120, .press_every = 1, .host_start = HOST_START };
        struct stats a, b, c;
        (void) state;

        run_pad(&pads[1], 42, &o, &a);
        run_pad(&pads[1], 42, &o, &b);
        run_pad(&pads[1], 43, &o, &c);
        assert_int_equal(a.hash, b.hash);
        assert_int_equal(a.presses, b.presses);
        assert_true(a.worst_ratio == b.worst_ratio);
        assert_int_not_equal(a.hash, c.hash);
}

/* ---- hand-made exchanges ---- */

/* A quiet pad: 1 MHz, no drift, 100 µs each way, 50 µs turnaround; its
 * counter reads pad_at_zero at host time zero. */
static int quiet_sync(struct clock_model *m, int64_t t1, int64_t pad_at_zero) {
        uint32_t rx = (uint32_t) (uint64_t) (pad_at_zero + t1 + 100);

        return clock_model_add_sync(m, t1, t1 + 250, rx, rx + 50);
}

static void not_synced_before_min_samples(void **state) {
        struct clock_model m;
        int64_t host, unc;
        (void) state;

        assert_int_equal(clock_model_init(&m, 1000000, NULL), 0);
        assert_int_equal(clock_model_to_host(&m, 1234, &host, &unc), -EAGAIN);
        assert_int_equal(clock_model_offset_us(&m), 0);
        assert_true(clock_model_drift_ppm(&m) == 0);
        assert_int_equal(clock_model_min_rtt_us(&m), -1);
        for (int64_t k = 0; k < 8; k++) {
                assert_false(clock_model_synced(&m));
                assert_int_equal(clock_model_to_host(&m, 1234, &host, &unc), -EAGAIN);
                assert_int_equal(clock_model_uncertainty_us(&m, k * 1000000), 2000);
                assert_int_equal(quiet_sync(&m, 1000000000 + k * 1000000, 777), CLOCK_ACCEPTED);
        }
        assert_true(clock_model_synced(&m));
        assert_int_equal(clock_model_min_rtt_us(&m), 200);
        assert_int_equal(clock_model_to_host(&m, (uint32_t) (777 + 1008000000), &host, &unc), 0);
        assert_true(llabs(host - 1008000000) <= unc);
        assert_true(unc < 200);
        assert_int_equal(clock_model_offset_us(&m), -777);
        assert_true(fabs(clock_model_drift_ppm(&m)) < 0.5);

        /* the documented fallback, also for a clocked pad */
        assert_int_equal(clock_model_receive_time(&m, 5000000, &host, &unc), 0);
        assert_int_equal(host, 5000000 - 1000);
        assert_int_equal(unc, 2000);
}

static void smaller_min_samples_syncs_sooner(void **state) {
        struct clock_params p;
        struct clock_model m;
        (void) state;

        clock_params_default(&p);
        p.min_samples = 6;
        assert_int_equal(clock_model_init(&m, 1000000, &p), 0);
        for (int64_t k = 0; k < 6; k++) {
                assert_false(clock_model_synced(&m));
                quiet_sync(&m, 1000000000 + k * 1000000, 5);
        }
        assert_true(clock_model_synced(&m));
}

static void bad_parameters_are_refused(void **state) {
        static const struct { const char *what; struct clock_params p; } rows[] = {
                { "half-life 0", { 0, 10000, 3, 1000, 8, 1, 1000, 1000, 2000 } },
                { "half-life NaN", { NAN, 10000, 3, 1000, 8, 1, 1000, 1000, 2000 } },
                { "max rtt 0", { 20, 0, 3, 1000, 8, 1, 1000, 1000, 2000 } },
                { "factor < 1", { 20, 10000, 0.5, 1000, 8, 1, 1000, 1000, 2000 } },
                { "negative slack", { 20, 10000, 3, -1, 8, 1, 1000, 1000, 2000 } },
                { "5 samples", { 20, 10000, 3, 1000, 5, 1, 1000, 1000, 2000 } },
                { "negative wander", { 20, 10000, 3, 1000, 8, -1, 1000, 1000, 2000 } },
                { "max drift 0", { 20, 10000, 3, 1000, 8, 1, 0, 1000, 2000 } },
                { "negative delay", { 20, 10000, 3, 1000, 8, 1, 1000, -1, 2000 } },
                { "negative jitter", { 20, 10000, 3, 1000, 8, 1, 1000, 1000, -1 } },
        };
        struct clock_model m;
        struct clock_params d;
        (void) state;

        clock_params_default(&d);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                if (clock_model_init(&m, 1000000, &rows[i].p) != -EINVAL)
                        fail_msg("%s accepted", rows[i].what);
                /* field by field: padding bytes are not part of the value */
                assert_true(m.params.half_life_s == d.half_life_s);
                assert_int_equal(m.params.max_rtt_us, d.max_rtt_us);
                assert_true(m.params.rtt_outlier_factor == d.rtt_outlier_factor);
                assert_int_equal(m.params.rtt_outlier_slack_us, d.rtt_outlier_slack_us);
                assert_int_equal(m.params.min_samples, d.min_samples);
                assert_true(m.params.drift_wander_ppm == d.drift_wander_ppm);
                assert_true(m.params.max_drift_ppm == d.max_drift_ppm);
                assert_int_equal(m.params.transport_delay_us, d.transport_delay_us);
                assert_int_equal(m.params.transport_jitter_us, d.transport_jitter_us);
        }
        assert_int_equal(clock_model_init(&m, 1000000, &d), 0);
}

/* One of each rejection, counted and reported. */
static void rejections_are_counted(void **state) {
        struct clock_model m;
        const struct clock_counters *c;
        const int64_t t0 = 1000000000;
        (void) state;

        clock_model_init(&m, 1000000, NULL);
        c = clock_model_counters(&m);
        for (int64_t k = 0; k < 10; k++)
                assert_int_equal(quiet_sync(&m, t0 + k * 1000000, 0), CLOCK_ACCEPTED);
        /* RTT 12 ms: over the limit */
        assert_int_equal(clock_model_add_sync(&m, t0 + 10000000, t0 + 10012050, t0 + 10000100, t0 + 10000150),
                         CLOCK_REJECTED_RTT);
        /* RTT 1.3 ms: under the limit, over min + 1 ms (min 200 µs) */
        assert_int_equal(clock_model_add_sync(&m, t0 + 11000000, t0 + 11001350, t0 + 11000100, t0 + 11000150),
                         CLOCK_REJECTED_OUTLIER);
        /* RTT 1.1 ms: 5.5× the best but within the 1 ms slack: accepted */
        assert_int_equal(clock_model_add_sync(&m, t0 + 12000000, t0 + 12001150, t0 + 12000550, t0 + 12000600),
                         CLOCK_ACCEPTED);
        /* the pad claims a 300 µs turnaround inside a 250 µs exchange */
        assert_int_equal(clock_model_add_sync(&m, t0 + 13000000, t0 + 13000250, t0 + 13000000, t0 + 13000300),
                         CLOCK_REJECTED_INVALID);
        assert_int_equal(clock_model_add_sync(&m, t0 + 14000000, t0 + 13999999, 0, 0), -EINVAL);
        assert_int_equal(c->accepted, 11);
        assert_int_equal(c->rejected_rtt, 1);
        assert_int_equal(c->rejected_outlier, 1);
        assert_int_equal(c->rejected_invalid, 1);
        assert_int_equal(clock_model_samples(&m), 11);
        assert_int_equal(clock_model_rejected(&m), 3);
        assert_int_equal(clock_model_min_rtt_us(&m), 200);
        assert_true(clock_model_synced(&m));
}

/* The link gets slower for good (another hub): after a window of slow
 * exchanges, the recent minimum has moved and they are accepted again. */
static void slower_link_is_learnt(void **state) {
        struct clock_model m;
        const int64_t t0 = 1000000000;
        int r, accepted_after = -1;
        (void) state;

        clock_model_init(&m, 1000000, NULL);
        for (int64_t k = 0; k < 10; k++)
                quiet_sync(&m, t0 + k * 1000000, 0);
        for (int k = 10; k < 40; k++) {
                int64_t t1 = t0 + (int64_t) k * 1000000;
                r = clock_model_add_sync(&m, t1, t1 + 1650, (uint32_t) (t1 + 800), (uint32_t) (t1 + 850));
                if (r == CLOCK_ACCEPTED && accepted_after < 0)
                        accepted_after = k - 10;
                if (accepted_after < 0)
                        assert_int_equal(r, CLOCK_REJECTED_OUTLIER);
        }
        assert_int_equal(accepted_after, CLOCK_RTT_WINDOW);
        assert_int_equal(clock_model_min_rtt_us(&m), 1600);
}

static void clockless_pads_use_receive_time(void **state) {
        struct clock_params p;
        struct clock_model m;
        struct rng rng = { 99 };
        int64_t host, unc;
        (void) state;

        assert_int_equal(clock_model_init(&m, 0, NULL), 0);
        assert_int_equal(clock_model_add_sync(&m, 0, 100, 1, 2), -EOPNOTSUPP);
        assert_int_equal(clock_model_to_host(&m, 1, &host, &unc), -EOPNOTSUPP);
        assert_false(clock_model_synced(&m));
        assert_int_equal(clock_model_offset_us(&m), 0);
        assert_true(clock_model_drift_ppm(&m) == 0);
        assert_int_equal(clock_model_uncertainty_us(&m, 123456789), 2000);

        /* a 1 Mbaud bus: 120 µs press frame plus 0–600 µs of USB and scheduling */
        clock_params_default(&p);
        p.transport_delay_us = 420;
        p.transport_jitter_us = 301;
        assert_int_equal(clock_model_init(&m, 0, &p), 0);
        for (int i = 0; i < 10000; i++) {
                double pressed = 1e9 + rng_range(&rng, 0, 1e9);
                int64_t rx = (int64_t) ceil(pressed + 120 + rng_range(&rng, 0, 600));

                assert_int_equal(clock_model_receive_time(&m, rx, &host, &unc), 0);
                assert_int_equal(unc, 301);
                assert_true(fabs((double) host - pressed) <= (double) unc);
        }
}

/* Extension around one exchange whose tx is the reference: raw values within
 * 2^31 ticks either side land in the right epoch. */
static void extension_is_nearest_epoch(void **state) {
        static const struct { uint32_t rx; uint32_t raw; int64_t want; } rows[] = {
                { 1000, 1000, 1000 },
                { 1000, 900, 900 },                                             /* older */
                { 0xffffff00u, 0x00000010u, WRAP + 0x10 },                      /* just after a wrap */
                { 0x00000010u, 0xffffff00u, -0x100 },                           /* just before one */
                { 0xfffffff0u, 0xffffff00u, 0xffffff00 },
                { 0x7fffffceu, 0xffffffffu, 0xffffffff },                       /* 2^31 − 1 ahead of tx */
                { 0x7fffffceu, 0x00000000u, 0 },                                /* 2^31 either way: behind */
                { 0x7fffffceu, 0x00000001u, 1 },                                /* 2^31 − 1 behind */
        };
        (void) state;

        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                struct clock_model m;

                clock_model_init(&m, 1000000, NULL);
                assert_int_equal(clock_model_extend(&m, rows[i].raw), rows[i].raw);
                assert_int_equal(clock_model_add_sync(&m, 1000000, 1000250, rows[i].rx, rows[i].rx + 50),
                                 CLOCK_ACCEPTED);
                if (clock_model_extend(&m, rows[i].raw) != rows[i].want)
                        fail_msg("row %zu: %" PRId64 " for %" PRId64, i, clock_model_extend(&m, rows[i].raw),
                                 rows[i].want);
        }
}

/* A pad synced before its counter wraps; a press stamped just before the
 * wrap, converted after syncs that saw the wrap, lands before them. */
static void press_older_than_sync_across_wrap(void **state) {
        const int64_t t0 = 1000000000, pad_at_zero = WRAP - t0 - 9500000;     /* wraps at t0 + 9.5 s */
        struct clock_model m;
        int64_t host, unc;
        (void) state;

        clock_model_init(&m, 1000000, NULL);
        for (int64_t k = 0; k <= 10; k++)
                assert_int_equal(quiet_sync(&m, t0 + k * 1000000, pad_at_zero), CLOCK_ACCEPTED);
        assert_int_equal(clock_model_extend(&m, 0xffffff00u), 0xffffff00);
        assert_int_equal(clock_model_extend(&m, 0x100u), WRAP + 0x100);
        assert_int_equal(clock_model_to_host(&m, 0xffffff00u, &host, &unc), 0);
        assert_true(llabs(host - (t0 + 9500000 - 256)) <= unc);
        assert_int_equal(clock_model_to_host(&m, 0x100u, &host, &unc), 0);
        assert_true(llabs(host - (t0 + 9500000 + 256)) <= unc);
}

/* The pad reboots at 60.5 s: its counter starts again from 0.  The first
 * exchange after is rejected, the second restarts the model, which is
 * unsynced for min_samples exchanges and then bounded again. */
static void clock_jump_restarts_the_model(void **state) {
        const struct pad_spec *spec = &pads[1];
        const int64_t t0 = HOST_START;
        struct clock_model m;
        struct sim s;
        struct exchange ex;
        struct stats st;
        int64_t host, unc;
        unsigned accepted_since = 0;
        (void) state;

        stats_init(&st);
        sim_init(&s, spec, 5, t0);
        clock_model_init(&m, spec->hz, NULL);
        for (int64_t k = 0; k < 60; k++)
                assert_int_equal(sim_sync(&s, &m, t0 + k * SYNC_INTERVAL_US, HICCUP_NONE, &ex), CLOCK_ACCEPTED);
        assert_true(clock_model_synced(&m));

        s.host_start = t0 + 60500000;
        s.offset_us = 0;
        s.pad_start = 0;
        s.drift_ppm = -20;
        assert_int_equal(sim_sync(&s, &m, t0 + 60 * SYNC_INTERVAL_US, HICCUP_NONE, &ex),
                         CLOCK_REJECTED_INCONSISTENT);
        assert_true(clock_model_synced(&m));
        assert_int_equal(sim_sync(&s, &m, t0 + 61 * SYNC_INTERVAL_US, HICCUP_NONE, &ex), CLOCK_RESTARTED);
        assert_int_equal(clock_model_counters(&m)->restarts, 1);
        assert_int_equal(clock_model_counters(&m)->rejected_inconsistent, 1);
        accepted_since = 1;
        for (int64_t k = 62; k < 120; k++) {
                assert_int_equal(sim_sync(&s, &m, t0 + k * SYNC_INTERVAL_US, HICCUP_NONE, &ex), CLOCK_ACCEPTED);
                accepted_since++;
                if (accepted_since < m.params.min_samples) {
                        assert_false(clock_model_synced(&m));
                        assert_int_equal(clock_model_to_host(&m, ex.rx, &host, &unc), -EAGAIN);
                        continue;
                }
                for (int i = 0; i < PRESSES_PER_SYNC; i++)
                        check_press(&s, &m, (double) ex.t4 + rng_range(&s.rng, -500000, 1500000), false, &st);
        }
        assert_int_equal(clock_model_counters(&m)->restarts, 1);
        assert_true(fabs(clock_model_drift_ppm(&m) - -20) < CONVERGED_DRIFT_PPM);
        assert_true(st.presses > 300);
}

/* One exchange with both stamps 5 ms late (the pad's interrupt was held
 * off): rejected, not a restart; so is a second one after a good one. */
static void single_glitch_is_rejected(void **state) {
        const struct pad_spec *spec = &pads[3];
        const int64_t t0 = HOST_START;
        struct clock_model m;
        struct sim s;
        struct exchange ex;
        (void) state;

        sim_init(&s, spec, 6, t0);
        clock_model_init(&m, spec->hz, NULL);
        for (int64_t k = 0; k < 40; k++) {
                int64_t t1 = t0 + k * SYNC_INTERVAL_US;
                int want = CLOCK_ACCEPTED;

                sim_exchange(&s, t1, HICCUP_NONE, &ex);
                if (k == 30 || k == 32) {
                        ex.rx += 5000;
                        ex.tx += 5000;
                        want = CLOCK_REJECTED_INCONSISTENT;
                }
                assert_int_equal(clock_model_add_sync(&m, ex.t1, ex.t4, ex.rx, ex.tx), want);
        }
        assert_int_equal(clock_model_counters(&m)->rejected_inconsistent, 2);
        assert_int_equal(clock_model_counters(&m)->restarts, 0);
        assert_true(clock_model_synced(&m));
}

/* A jump during warm-up restarts at once: nothing to lose yet. */
static void jump_during_warm_up_restarts_at_once(void **state) {
        struct clock_model m;
        const int64_t t0 = 1000000000;
        (void) state;

        clock_model_init(&m, 1000000, NULL);
        for (int64_t k = 0; k < 3; k++)
                assert_int_equal(quiet_sync(&m, t0 + k * 1000000, 0), CLOCK_ACCEPTED);
        assert_int_equal(quiet_sync(&m, t0 + 3000000, 123456789), CLOCK_RESTARTED);
        for (int64_t k = 4; k < 11; k++) {
                assert_false(clock_model_synced(&m));
                assert_int_equal(quiet_sync(&m, t0 + k * 1000000, 123456789), CLOCK_ACCEPTED);
        }
        assert_true(clock_model_synced(&m));
        assert_int_equal(clock_model_offset_us(&m), -123456789);
        assert_int_equal(clock_model_counters(&m)->restarts, 1);
}

static void reset_forgets_the_fit(void **state) {
        struct clock_model m;
        int64_t host, unc;
        (void) state;

        clock_model_init(&m, 1000000, NULL);
        for (int64_t k = 0; k < 10; k++)
                quiet_sync(&m, 1000000000 + k * 1000000, WRAP - 1000000000);
        assert_true(clock_model_synced(&m));
        clock_model_reset(&m);
        assert_false(clock_model_synced(&m));
        assert_int_equal(clock_model_to_host(&m, 5, &host, &unc), -EAGAIN);
        assert_int_equal(clock_model_extend(&m, 5), 5);
        assert_int_equal(clock_model_min_rtt_us(&m), -1);
        assert_int_equal(clock_model_counters(&m)->restarts, 1);
        assert_int_equal(clock_model_samples(&m), 10);
}

/* Syncs stop for a minute: the uncertainty of a press grows with the time
 * since the last good exchange, and still bounds the error. */
static void uncertainty_grows_without_syncs(void **state) {
        const struct pad_spec *spec = &pads[4];
        struct clock_model m;
        struct sim s;
        struct exchange ex;
        struct stats st;
        int64_t prev = 0;
        (void) state;

        stats_init(&st);
        sim_init(&s, spec, 8, HOST_START);
        clock_model_init(&m, spec->hz, NULL);
        for (int64_t k = 0; k < 60; k++)
                sim_sync(&s, &m, HOST_START + k * SYNC_INTERVAL_US, HICCUP_NONE, &ex);
        for (int64_t later = 0; later <= 600; later += 10) {
                int64_t unc = clock_model_uncertainty_us(&m, ex.t4 + later * 1000000);

                assert_true(unc >= prev);
                prev = unc;
                check_press(&s, &m, (double) ex.t4 + (double) later * 1e6, false, &st);
        }
        print_message("uncertainty 10 min after the last sync: %" PRId64 " µs (worst |err|/unc %.3f)\n",
                      prev, st.worst_ratio);
        assert_true(prev > clock_model_uncertainty_us(&m, ex.t4) + 500);
}

/* Syncs pause for 3 minutes (9 half-lives): until the pause ends presses
 * keep the old fit; the first exchange after it outweighs all the old ones,
 * so the model is unsynced until enough fresh ones are in. */
static void long_pause_needs_fresh_points(void **state) {
        const struct pad_spec *spec = &pads[2];
        const int64_t t0 = HOST_START, resume = t0 + 240 * SYNC_INTERVAL_US;
        struct clock_model m;
        struct sim s;
        struct exchange ex;
        struct stats st;
        int64_t k;
        (void) state;

        stats_init(&st);
        sim_init(&s, spec, 9, t0);
        clock_model_init(&m, spec->hz, NULL);
        for (k = 0; k < 60; k++)
                sim_sync(&s, &m, t0 + k * SYNC_INTERVAL_US, HICCUP_NONE, &ex);
        check_press(&s, &m, (double) resume - 1000, false, &st);
        assert_int_equal(sim_sync(&s, &m, resume, HICCUP_NONE, &ex), CLOCK_ACCEPTED);
        for (k = 1; !clock_model_synced(&m); k++) {
                int64_t host, unc;

                assert_int_equal(clock_model_to_host(&m, ex.rx, &host, &unc), -EAGAIN);
                assert_int_equal(sim_sync(&s, &m, resume + k * SYNC_INTERVAL_US, HICCUP_NONE, &ex),
                                 CLOCK_ACCEPTED);
        }
        assert_true(k >= 4 && k <= 6);
        for (int i = 0; i < 50; i++)
                check_press(&s, &m, (double) ex.t4 + rng_range(&s.rng, -500000, 1500000), false, &st);
        assert_int_equal(clock_model_counters(&m)->restarts, 0);
}

/* Stamps that only a hostile pad sends: eight exchanges in the same host
 * microsecond, each a microsecond later on the pad, all with no round
 * trip.  Every point agrees with the last within its quanta, and the line
 * through them has b = -1 (the pad's clock infinitely fast): that is no
 * clock, so the model is not synced, maps nothing, and shows no drift
 * (once a drift of infinity, which no JSON carries, and an uncertainty
 * of a NaN cast to an integer).  Found by tests/fuzz/clock_fuzz.c. */
static void a_fit_that_is_no_clock_is_not_synced(void **state) {
        struct clock_model m;
        int64_t host = 0, unc = 0;
        (void) state;

        clock_model_init(&m, 1000000, NULL);
        for (uint32_t k = 0; k < 12; k++)
                assert_int_equal(clock_model_add_sync(&m, HOST_START, HOST_START, 1000 + k, 1000 + k), CLOCK_ACCEPTED);
        assert_true(m.n_fit >= m.params.min_samples);
        assert_false(clock_model_synced(&m));
        assert_int_equal(clock_model_to_host(&m, 1005, &host, &unc), -EAGAIN);
        assert_true(clock_model_drift_ppm(&m) == 0);
        assert_int_equal(clock_model_uncertainty_us(&m, HOST_START), m.params.transport_jitter_us);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(synthetic_pads_converge_and_stay_bounded),
                cmocka_unit_test(bound_holds_across_seeds),
                cmocka_unit_test(days_of_uptime_keep_precision),
                cmocka_unit_test(same_seed_same_answers),
                cmocka_unit_test(not_synced_before_min_samples),
                cmocka_unit_test(smaller_min_samples_syncs_sooner),
                cmocka_unit_test(bad_parameters_are_refused),
                cmocka_unit_test(rejections_are_counted),
                cmocka_unit_test(slower_link_is_learnt),
                cmocka_unit_test(clockless_pads_use_receive_time),
                cmocka_unit_test(extension_is_nearest_epoch),
                cmocka_unit_test(press_older_than_sync_across_wrap),
                cmocka_unit_test(clock_jump_restarts_the_model),
                cmocka_unit_test(single_glitch_is_rejected),
                cmocka_unit_test(jump_during_warm_up_restarts_at_once),
                cmocka_unit_test(reset_forgets_the_fit),
                cmocka_unit_test(uncertainty_grows_without_syncs),
                cmocka_unit_test(long_pause_needs_fresh_points),
                cmocka_unit_test(a_fit_that_is_no_clock_is_not_synced),
        };
        return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
