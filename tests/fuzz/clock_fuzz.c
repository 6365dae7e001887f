/* libFuzzer target: the pad clock model (hardware/clock.c) fed hostile
 * samples.
 *
 * Input: a header, then operations of OP_BYTES each.  The header gives
 * the pad's clock_hz as a HELLO would (none, 1 MHz, 16 MHz, 32768 Hz or
 * any 32-bit rate), the model's parameters (the defaults, or any, which
 * clock_model_init must refuse when out of range), the host's start time,
 * and the true pad clock (offset and drift) that "honest" exchanges
 * follow, so that the model gets synced and hostile samples meet a fit.
 * An operation advances host time (up to 2^31 µs: long pauses) and does
 * one of: an honest SYNC exchange (the pad's stamps from the true clock,
 * the round trip and its asymmetry from the input), a hostile one (any
 * rx, tx and round trip, t4 before t1 included, counters wrapped), a
 * press mapped to host time, clock_model_reset(), or a new HELLO rate.
 * Host times stay below 2^52 µs (a monotonic clock after a century).
 *
 * Invariants (hardware/clock.h):
 *   - clock_model_add_sync: -EOPNOTSUPP exactly without a clock, -EINVAL
 *     exactly when t4 < t1, else a verdict, counted by exactly its counter
 *     (a restart also counts as accepted); counters never go down;
 *   - a rejected exchange leaves the fit and the extension reference as
 *     they were (only the RTT history, the counters and, for an
 *     inconsistent one, the run of inconsistent points change);
 *   - the extension reference only moves forward between restarts, and an
 *     extension is the raw value modulo 2^32, within 2^31 ticks of it;
 *   - synced means at least min_samples points and a clock;
 *     clock_model_to_host answers -EOPNOTSUPP without a clock, -EAGAIN
 *     unsynced, else a time with an uncertainty of at least 1 µs; while
 *     the fitted rate is positive, later pad times never map to earlier
 *     host times;
 *   - clock_model_uncertainty_us is >= 1 when synced, the transport
 *     jitter when not; the drift is a finite number; the least RTT is -1
 *     exactly before any exchange counted in the window.
 *
 * tests/unit/test_fuzz_clock.c replays tests/fuzz/corpus/clock/ through
 * clock_fuzz_check().
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/clock.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CLOCK_FUZZ_HEADER       32
#define CLOCK_FUZZ_OP_BYTES     12
#define CLOCK_FUZZ_HOST_MAX     (INT64_C(1) << 52)

enum clock_fuzz_op {
        OP_HONEST,              /* 0..3: most operations, so the model syncs */
        OP_HOSTILE = 4,
        OP_PRESS = 5,
        OP_RESET = 6,
        OP_HELLO = 7,
};

static uint32_t clock_fuzz_u32(const uint8_t *b) {
        return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

static uint16_t clock_fuzz_u16(const uint8_t *b) {
        return (uint16_t) (b[0] | b[1] << 8);
}

/* The true pad clock: ticks at host time h (µs), wrapped to 32 bits. */
struct clock_fuzz_truth {
        uint32_t hz;
        int64_t host0;
        uint32_t pad0;
        double drift;                   /* rate error, e.g. 100e-6 */
};

static uint32_t clock_fuzz_true_ticks(const struct clock_fuzz_truth *t, int64_t host) {
        double ticks = (double) (host - t->host0) * 1e-6 * t->hz * (1 + t->drift);
        /* fmod keeps it exact enough and in range before the conversion */
        double wrapped = fmod(ticks, 4294967296.0);

        if (wrapped < 0)
                wrapped += 4294967296.0;
        return t->pad0 + (uint32_t) wrapped;
}

/* The parts of a model that a rejected exchange must leave alone. */
static bool clock_fuzz_same_fit(const struct clock_model *a, const struct clock_model *b) {
        return a->have_ref == b->have_ref && a->ref_ticks == b->ref_ticks && a->n_fit == b->n_fit &&
               a->anchor_ticks == b->anchor_ticks && a->anchor_host_us == b->anchor_host_us &&
               memcmp(&a->last_x, &b->last_x, sizeof a->last_x) == 0 &&
               memcmp(&a->last_y, &b->last_y, sizeof a->last_y) == 0 &&
               memcmp(&a->last_bound, &b->last_bound, sizeof a->last_bound) == 0 &&
               memcmp(a->recent, b->recent, sizeof a->recent) == 0 && a->n_recent == b->n_recent &&
               a->recent_next == b->recent_next && memcmp(&a->w, &b->w, sizeof a->w) == 0 &&
               memcmp(&a->v, &b->v, sizeof a->v) == 0 && memcmp(&a->mx, &b->mx, sizeof a->mx) == 0 &&
               memcmp(&a->my, &b->my, sizeof a->my) == 0 && memcmp(&a->sxx, &b->sxx, sizeof a->sxx) == 0 &&
               memcmp(&a->sxy, &b->sxy, sizeof a->sxy) == 0 && memcmp(&a->syy, &b->syy, sizeof a->syy) == 0 &&
               memcmp(&a->bound_mean, &b->bound_mean, sizeof a->bound_mean) == 0;
}

static bool clock_fuzz_same_rtt(const struct clock_model *a, const struct clock_model *b) {
        return memcmp(a->rtt_ring, b->rtt_ring, sizeof a->rtt_ring) == 0 && a->rtt_n == b->rtt_n &&
               a->rtt_next == b->rtt_next;
}

static bool clock_fuzz_counters_grew(const struct clock_counters *was, const struct clock_counters *now) {
        return now->accepted >= was->accepted && now->rejected_rtt >= was->rejected_rtt &&
               now->rejected_outlier >= was->rejected_outlier && now->rejected_invalid >= was->rejected_invalid &&
               now->rejected_inconsistent >= was->rejected_inconsistent && now->restarts >= was->restarts;
}

/* What every state of the model must satisfy. */
static void clock_fuzz_state(const struct clock_model *m, int64_t host) {
        int64_t unc;

        FUZZ_ASSERT(!clock_model_synced(m) || (m->clock_hz && m->n_fit >= m->params.min_samples));
        FUZZ_ASSERT(isfinite(clock_model_drift_ppm(m)));
        unc = clock_model_uncertainty_us(m, host);
        FUZZ_ASSERT(clock_model_synced(m) ? unc >= 1 : unc == m->params.transport_jitter_us);
        FUZZ_ASSERT((clock_model_min_rtt_us(m) == -1) == (m->rtt_n == 0));
        FUZZ_ASSERT(clock_model_min_rtt_us(m) >= -1);
        FUZZ_ASSERT(clock_model_samples(m) == m->counters.accepted);
}

static void clock_fuzz_sync(struct clock_model *m, int64_t t1, int64_t t4, uint32_t rx, uint32_t tx) {
        struct clock_model was = *m;
        const struct clock_counters *c = &m->counters, *w = &was.counters;
        int r = clock_model_add_sync(m, t1, t4, rx, tx);

        FUZZ_ASSERT(clock_fuzz_counters_grew(w, c));
        if (!m->clock_hz || t4 < t1) {
                FUZZ_ASSERT(r == (m->clock_hz ? -EINVAL : -EOPNOTSUPP));
                FUZZ_ASSERT(clock_fuzz_same_fit(&was, m) && clock_fuzz_same_rtt(&was, m));
                FUZZ_ASSERT(memcmp(c, w, sizeof *c) == 0 && m->inconsistent_run == was.inconsistent_run);
                return;
        }
        FUZZ_ASSERT(r >= CLOCK_ACCEPTED && r <= CLOCK_RESTARTED);
        FUZZ_ASSERT(c->accepted - w->accepted == (r == CLOCK_ACCEPTED || r == CLOCK_RESTARTED));
        FUZZ_ASSERT(c->restarts - w->restarts == (r == CLOCK_RESTARTED));
        FUZZ_ASSERT(c->rejected_rtt - w->rejected_rtt == (r == CLOCK_REJECTED_RTT));
        FUZZ_ASSERT(c->rejected_outlier - w->rejected_outlier == (r == CLOCK_REJECTED_OUTLIER));
        FUZZ_ASSERT(c->rejected_invalid - w->rejected_invalid == (r == CLOCK_REJECTED_INVALID));
        FUZZ_ASSERT(c->rejected_inconsistent - w->rejected_inconsistent == (r == CLOCK_REJECTED_INCONSISTENT));
        if (r != CLOCK_ACCEPTED && r != CLOCK_RESTARTED)
                FUZZ_ASSERT(clock_fuzz_same_fit(&was, m));
        if (r == CLOCK_REJECTED_INVALID)
                FUZZ_ASSERT(clock_fuzz_same_rtt(&was, m));
        if (r != CLOCK_ACCEPTED && r != CLOCK_RESTARTED && r != CLOCK_REJECTED_INCONSISTENT)
                FUZZ_ASSERT(m->inconsistent_run == was.inconsistent_run);
        if (r == CLOCK_ACCEPTED && was.have_ref)
                FUZZ_ASSERT(m->ref_ticks >= was.ref_ticks);
        if (r == CLOCK_ACCEPTED || r == CLOCK_RESTARTED)
                FUZZ_ASSERT(m->have_ref && m->n_fit >= 1 && m->w > 0 && m->v > 0);
}

/* A press stamped raw, and one stamped later, mapped. */
static void clock_fuzz_press(const struct clock_model *m, uint32_t raw, uint16_t later) {
        int64_t h1 = 0, u1 = 0, h2 = 0, u2 = 0, ext;
        int r = clock_model_to_host(m, raw, &h1, &u1);

        ext = clock_model_extend(m, raw);
        FUZZ_ASSERT((uint32_t) ext == raw);
        FUZZ_ASSERT(!m->have_ref ? ext == raw : ext - m->ref_ticks >= INT32_MIN && ext - m->ref_ticks <= INT32_MAX);
        if (!m->clock_hz) {
                FUZZ_ASSERT(r == -EOPNOTSUPP);
                return;
        }
        if (!clock_model_synced(m)) {
                FUZZ_ASSERT(r == -EAGAIN);
                return;
        }
        FUZZ_ASSERT(r == 0 && u1 >= 1);
        /* a later stamp, within the extension's reach of the same reference */
        if (ext + later - m->ref_ticks > INT32_MAX)
                return;
        FUZZ_ASSERT(clock_model_to_host(m, raw + later, &h2, &u2) == 0 && u2 >= 1);
        if (m->sxx > 0 && 1 + m->sxy / m->sxx > 0)
                FUZZ_ASSERT(h2 >= h1);
}

static void clock_fuzz_params(const uint8_t *b, struct clock_params *p) {
        clock_params_default(p);
        /* each field pushed around its default, out of range included */
        p->half_life_s = (double) (int8_t) b[0];
        p->max_rtt_us = (int64_t) (int16_t) clock_fuzz_u16(b + 1) * 4;
        p->rtt_outlier_factor = b[3] / 16.0;
        p->rtt_outlier_slack_us = (int64_t) (int8_t) b[4] * 100;
        p->min_samples = b[5] % 24;
        p->drift_wander_ppm = (int8_t) b[6] / 4.0;
        p->max_drift_ppm = (int16_t) clock_fuzz_u16(b + 7);
        p->transport_delay_us = (int64_t) (int8_t) b[9] * 100;
        p->transport_jitter_us = (int64_t) (int8_t) b[10] * 100;
}

static void clock_fuzz_check(const uint8_t *data, size_t size) {
        static const uint32_t rates[] = { 0, 1000000, 16000000, 32768 };
        struct clock_fuzz_truth truth;
        struct clock_params params;
        struct clock_model m;
        int64_t host;
        uint32_t hz;
        int r;

        if (size < CLOCK_FUZZ_HEADER)
                return;
        hz = data[0] < 4 * 60 ? rates[data[0] % 4] : clock_fuzz_u32(data + 1);
        if (data[5] & 1) {
                clock_fuzz_params(data + 6, &params);
                r = clock_model_init(&m, hz, &params);
                FUZZ_ASSERT(r == 0 || r == -EINVAL);
                if (r < 0) {
                        const struct clock_params d = CLOCK_PARAMS_DEFAULT, *p = &m.params;

                        /* field by field: the padding of a struct copied by value is anyone's */
                        FUZZ_ASSERT(p->half_life_s == d.half_life_s && p->max_rtt_us == d.max_rtt_us &&
                                    p->rtt_outlier_factor == d.rtt_outlier_factor &&
                                    p->rtt_outlier_slack_us == d.rtt_outlier_slack_us &&
                                    p->min_samples == d.min_samples && p->drift_wander_ppm == d.drift_wander_ppm &&
                                    p->max_drift_ppm == d.max_drift_ppm &&
                                    p->transport_delay_us == d.transport_delay_us &&
                                    p->transport_jitter_us == d.transport_jitter_us);
                }
        } else {
                FUZZ_ASSERT(clock_model_init(&m, hz, NULL) == 0);
        }
        host = (int64_t) clock_fuzz_u32(data + 17) << 16;
        truth = (struct clock_fuzz_truth) {
                .hz = hz ? hz : 1000000,
                .host0 = host - (int64_t) clock_fuzz_u16(data + 21),
                .pad0 = clock_fuzz_u32(data + 23),
                .drift = (int8_t) data[27] * 2e-6,
        };
        clock_fuzz_state(&m, host);

        for (size_t at = CLOCK_FUZZ_HEADER; at + CLOCK_FUZZ_OP_BYTES <= size; at += CLOCK_FUZZ_OP_BYTES) {
                const uint8_t *op = data + at;
                int64_t dt = (int64_t) (op[1] | op[2] << 8 | op[3] << 16) << ((op[0] >> 3) & 7);
                uint16_t delay = clock_fuzz_u16(op + 4);
                uint32_t raw = clock_fuzz_u32(op + 6);
                uint16_t extra = clock_fuzz_u16(op + 10);
                struct clock_counters before = m.counters;

                if (host + dt + 2 * (int64_t) UINT16_MAX >= CLOCK_FUZZ_HOST_MAX)
                        break;
                host += dt;
                switch (op[0] & 7) {
                case OP_HOSTILE:
                        /* delay's top bit: a reply read before its SYNC left */
                        clock_fuzz_sync(&m, host, delay & 0x8000 ? host - (delay & 0x7fff) : host + delay, raw,
                                        raw + extra);
                        break;
                case OP_PRESS:
                        clock_fuzz_press(&m, raw, extra);
                        break;
                case OP_RESET:
                        clock_model_reset(&m);
                        FUZZ_ASSERT(m.counters.restarts == before.restarts + 1 && !m.have_ref && m.n_fit == 0);
                        break;
                case OP_HELLO:
                        hz = raw & 1 ? rates[(raw >> 1) % 4] : raw;
                        FUZZ_ASSERT(clock_model_init(&m, hz, NULL) == 0);
                        truth.hz = hz ? hz : 1000000;
                        break;
                default: {
                        /* honest: the SYNC's delimiter reaches the pad after the
                         * forward delay, the reply leaves after the turnaround,
                         * both stamped by the true clock */
                        int64_t fwd = delay % 2000, back = (delay >> 4) % 2000 + (raw & 7), turn = extra % 500;
                        uint32_t rx = clock_fuzz_true_ticks(&truth, host + fwd),
                                 tx = clock_fuzz_true_ticks(&truth, host + fwd + turn);

                        clock_fuzz_sync(&m, host, host + fwd + turn + back, rx, tx);
                        break;
                }
                }
                clock_fuzz_state(&m, host);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        clock_fuzz_check(data, size);
        return 0;
}
