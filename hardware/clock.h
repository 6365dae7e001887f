/* hardware/clock.h — one pad's clock, mapped onto the host's
 * (docs/architecture.md, "Time and fairness").  Pure: libc and libm only,
 * no I/O, no allocation, no clock reads; every input carries its time.
 *
 * THE MODEL
 *
 * A pad stamps presses with a free-running 32-bit counter of clock_hz ticks
 * per second.  Over the minutes that matter the pad's clock is a straight
 * line against host CLOCK_MONOTONIC:
 *
 *     host_us = host_0 + (pad_us - pad_0) * (1 + b)
 *
 * with pad_us the extended counter in nominal microseconds and b a small rate
 * error.  A one-off offset is not enough: two ±50 ppm crystals can run
 * 100 ppm apart, and 50 ppm alone is 500 µs in 10 s (50e-6 × 10 s; ±50 ppm is a
 * common tolerance of the quartz crystals pads run on).  So the model fits
 * the line, as Klipper's clocksync.py does, by a least-squares regression
 * over the last CLOCK_FIT_WINDOW SYNC exchanges, each weighted by its age (a
 * half-life in host time) and by its round trip (min / rtt against the recent
 * minimum: the quiet exchange is the one that tells the truth, NTP's
 * minimum-delay filter), the weights recomputed from the window at every
 * exchange:
 *
 *     host t1: the SYNC started to leave   (no later than the pad's rx)
 *     pad rx:  the SYNC's delimiter arrived, on the pad's clock
 *     pad tx:  the reply's first byte left, on the pad's clock
 *     host t4: the reply had been read     (no earlier than the pad's tx)
 *
 * The caller may narrow t1 and t4 by the frames' wire times (hardware/padbus
 * does) as long as they still bracket rx..tx in true host time: that is the
 * one thing the model assumes of them, and no filter here can see it
 * broken.  So t1 is read before the call that writes the SYNC, never after
 * it returns: the pad may have the bytes by then (the writing thread
 * preempted on its way out of the kernel), and a t1 after the pad's rx
 * shrinks the exchange's rtt below its error — the sample looks like the
 * quietest of all, weighs most and bounds tightest, and presses mapped
 * through it fall outside their uncertainty (issue 16: on a loaded host,
 * arbiter-padsim's presses reported 29–32 µs late, ± 22–27 µs).  A late
 * t4 only widens the bound.  Each exchange gives one point
 *
 *     x = (rx + tx) / 2 on the pad,   y = (t1 + t4) / 2 on the host,
 *
 * the midpoints because the pad's instant (rx + tx) / 2 truly happened at
 * (T_rx + T_tx) / 2 on the host, and y misses that by (d_back - d_fwd) / 2,
 * half the difference of the two one-way delays.  Whatever the asymmetry,
 * |y - truth| <= rtt / 2 with rtt = (t4 - t1) - (tx - rx): the exchange's
 * time on the wire and in the host, the pad's own turnaround excluded.
 * (Using rx alone against t1, or tx against t4, would give a one-sided
 * error as large as the whole one-way delay.)
 *
 * SAMPLE FILTERING (PX4 Timesync, Klipper)
 *
 *   - rtt > max_rtt_us: rejected; such a sample can be off by rtt / 2.
 *   - rtt > max(rtt_outlier_factor * recent_min, recent_min +
 *     rtt_outlier_slack_us), recent_min being the least rtt of the last
 *     CLOCK_RTT_WINDOW exchanges (rejected ones too, so a slower link is
 *     learnt within a window): rejected as a scheduling or bus hiccup.
 *   - turnaround (tx - rx) longer than t4 - t1: impossible, rejected.
 *   - a point the fitted line cannot explain — off by more than
 *     CLOCK_RESET_FACTOR times (the model's bound there + the point's own
 *     rtt / 2) — is rejected; CLOCK_RESET_CONFIRM such points in a row mean
 *     the pad's clock jumped (it rebooted, was reflashed, its counter
 *     glitched) and the model restarts from the last of them.  Before the
 *     model is synced the test is against the previous point, allowing
 *     max_drift_ppm, and one failure restarts (a warm-up has nothing to
 *     lose).  Jumps smaller than these tolerances are absorbed as noise: the
 *     scatter grows and the uncertainty with it.  Presses stamped by the old
 *     clock and mapped after a restart are mapped wrongly: the driver should
 *     also call clock_model_reset() when a known pad says HELLO again.
 *
 * THE UNCERTAINTY, and why it bounds the error
 *
 * The fitted line passes through the weighted centroid (x̄, ȳ) of its
 * points, and ȳ is the weighted mean of the points' y: so at x̄ the error
 * is the weighted mean of the points' errors, at most the weighted mean of
 * their rtt / 2 — a hard bound, needing only the straight-line assumption
 * (which is why this uses the mean of the accepted points' half-RTTs rather
 * than the best one: the best bounds only its own point).  A common delay
 * asymmetry moves every point alike, so it sits in that term and nowhere
 * else.  Away from x̄ the slope's error adds, and that part is statistical:
 * its standard error from the residual scatter, times CLOCK_SIGMAS (widened
 * like Student's t while few points are in), plus drift_wander_ppm for the
 * rate changing under the fit (temperature, NTP slewing the host clock):
 *
 *     U(x) = mean(rtt_i / 2) + quanta
 *            + (t · se(slope) + drift_wander_ppm) · |x - x̄|
 *
 * x̄ trails the newest point by about one decay time constant, so U grows
 * with the time since the last good sample, at a rate set by how well the
 * drift is known.  The same argument holds at each recent point k: the line
 * misses the truth there by at most |line(x_k) − y_k| + rtt_k / 2, and the
 * bound at x is the least of these, each grown by the slope term over
 * |x − x_k|; a quiet exchange a second ago pins the line better than the
 * centroid half a minute back.  The quanta are one tick and one microsecond for the
 * sync stamps' truncation and again for the press's own stamp and rounding.
 *
 * NUMERICS
 *
 * Host times are around 10^12 µs after days of uptime; their squares are
 * far beyond a double's 53 bits, and a naive
 * regression of host against pad (sums of x², x·y; a slope of 1 + 10^-4)
 * cancels away every digit that matters.  So:
 *   - the fit is of Y = (host - anchor_host) - X against
 *     X = (pad - anchor_pad) in µs: Y is the deviation from the nominal
 *     rate, its slope is b (~10^-4) and its values stay within a few ms;
 *   - the anchors are exact integers (host µs, pad ticks) moved to each
 *     newly accepted point, so X and Y stay within the decay window (about
 *     10^8 µs) however long the daemon runs, and moving them shifts only the
 *     means (exactly: the centred sums do not change);
 *   - the sums are recomputed from the window's points at every exchange,
 *     centred in two passes, so no rounding error outlives the window.
 *
 * 32 → 64 BITS
 *
 * Pad times are extended relative to the pad time of the newest good SYNC
 * exchange (the reference moves only forward, and only on exchanges whose
 * stamps are trusted): a raw value within 2^31 ticks either side of it —
 * 35 minutes at 1 MHz, 134 s at 16 MHz — is placed correctly across any
 * number of wraps, so a press stamped shortly before the last SYNC (or just
 * before a wrap that the SYNC saw after) extends to an earlier time, not to
 * the next epoch.  Syncs come every second, so that covers any press still
 * in flight; a press older than 2^31 ticks is mapped to the wrong epoch.
 *
 * DEFAULTS (CLOCK_PARAMS_DEFAULT), and where they come from
 *
 *   half_life_s 20          Klipper decays its regression by 1/30 per ~1 s
 *                           query: a half-life of about 21 s, ~58 effective
 *                           points — averaging enough jitter away while a
 *                           crystal warming up (tenths of a ppm a minute)
 *                           lags the fit by well under 1 µs.  Decay is by
 *                           host time, not by count, so irregular sync
 *                           schedules (a fast burst at HELLO) weigh right;
 *                           after a pause of more than ~4 half-lives the
 *                           old points weigh next to nothing and the model
 *                           is unsynced until about CLOCK_MIN_EFFECTIVE
 *                           fresh ones are in (until then, presses keep the
 *                           old fit with its widening bound).
 *   max_rtt_us 10000        PX4 Timesync's MAX_RTT_SAMPLE (10 ms).  The
 *                           driver's SYNC at 115200 baud spends ~2.7 ms on
 *                           the wire unnarrowed; a USB serial adapter left at
 *                           its 16 ms latency timer fails this, which is why
 *                           the driver sets low latency.
 *   rtt_outlier_factor 3,   a sample at most 3× the recent best, or one
 *   rtt_outlier_slack_us    USB full-speed frame (1 ms) above it, whichever
 *     1000                  is larger: an exchange that lost a USB frame or
 *                           a scheduler slice is normal, one that lost more
 *                           mostly waited on one leg, which is exactly what
 *                           the midpoint cannot see.
 *   min_samples 8           Klipper's eight connect-time clock queries; and
 *                           over five degrees of freedom for the scatter.
 *   drift_wander_ppm 1      an uncompensated crystal moves ~0.034 ppm/°C²
 *                           off its turnover point: about 1 ppm for a pad
 *                           warming 5 °C, more than the fit lags by.
 *   max_drift_ppm 1000      warm-up plausibility only: two ±50 ppm crystals
 *                           (100 ppm) plus NTP slewing CLOCK_MONOTONIC by up
 *                           to the kernel's 500 ppm, with room to spare.
 *   transport_delay_us 1000 clockless pads: a press frame, 16 bytes on the
 *                           wire, takes 1.39 ms at 115200 baud (the slowest
 *                           supported) and 0.16 ms at 1 Mbaud: 1 ms is near
 *                           the middle, and the jitter below covers both;
 *   transport_jitter_us     ±2 ms covers a USB frame (1 ms) and one other
 *     2000                  pad's frame ahead on a multi-drop bus.  The
 *                           driver should set both from its baud rate.
 *
 * The caller schedules SYNCs (every second: a second of 100 ppm drift is
 * 100 µs, and the fit's slope keeps extrapolation well below that).
 *
 * INVARIANTS
 *   - clock_hz == 0 (no clock): no fit ever; only receive time is offered.
 *   - n_fit == 0 ⇔ no point in the fit; the anchors are the newest accepted
 *     point whenever n_fit > 0; w, v > 0 whenever n_fit > 0.
 *   - synced ⇔ n_fit >= min_samples, sxx > 0, the effective number of
 *     points (w² / v) is at least CLOCK_MIN_EFFECTIVE, and the fitted rate
 *     is a clock's (1 + b > 0: host time goes forward with pad time).
 *   - have_ref ⇒ ref_ticks is the largest extended tx of a trusted exchange
 *     since the last restart.
 *   - counters only grow (clock_model_init zeroes them).
 *
 * Ownership: struct clock_model is plain data, caller-allocated, copyable;
 * nothing to free.
 */
#ifndef ARBITER_HARDWARE_CLOCK_H
#define ARBITER_HARDWARE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* "Recent" for the RTT minimum: 16 exchanges, 16 s at one SYNC a second —
 * long enough that a burst of slow exchanges cannot raise the minimum,
 * short enough to learn a slower link (another hub) within a quarter minute. */
#define CLOCK_RTT_WINDOW        16
/* The fit uses the last 64 accepted exchanges (64 s at one SYNC a second):
 * with the 20 s half-life the oldest weighs a tenth of the newest, and
 * refitting 64 points per exchange costs nothing next to a frame. */
#define CLOCK_FIT_WINDOW        64

/* Standard errors in the statistical part of the bound: 99.7 % for a
 * normal error, on top of the hard half-RTT part that dominates it. */
#define CLOCK_SIGMAS            3.0

/* A point off by more than twice what model and point together allow
 * contradicts the model; two in a row mean a new clock (PX4 resets its
 * filter after consecutive high deviations too, but after five: here the
 * tolerance is a bound, not a guess, so two suffice to rule out one
 * corrupted stamp). */
#define CLOCK_RESET_FACTOR      2.0
#define CLOCK_RESET_CONFIRM     2

/* Fewer effective points (Kish: (Σw)² / Σw²) than this and the scatter
 * about the line is too poorly known to scale: the residuals have N − 2
 * degrees of freedom, and from 3 up the approximation used for Student's
 * t (clock.c, t_quantile) is above the exact quantile by at most 16 %.
 * Decay makes N a little less than the count of points, so min_samples
 * must exceed this; it is checked against CLOCK_MIN_SAMPLES. */
#define CLOCK_MIN_EFFECTIVE     5.0
#define CLOCK_MIN_SAMPLES       6

struct clock_params {
        double half_life_s;             /* weight of a point halves in this much host time */
        int64_t max_rtt_us;             /* absolute RTT limit */
        double rtt_outlier_factor;      /* reject above factor × recent minimum … */
        int64_t rtt_outlier_slack_us;   /* … and above recent minimum + slack */
        unsigned min_samples;           /* accepted points before synced (>= CLOCK_MIN_SAMPLES) */
        double drift_wander_ppm;        /* unmodelled rate change, grows the bound away from the fit */
        double max_drift_ppm;           /* plausible |rate error| during warm-up */
        int64_t transport_delay_us;     /* receive time − press time, mean (clockless fallback) */
        int64_t transport_jitter_us;    /* … its half-width: the fallback's uncertainty */
};

#define CLOCK_PARAMS_DEFAULT { \
        .half_life_s = 20.0, \
        .max_rtt_us = 10000, \
        .rtt_outlier_factor = 3.0, \
        .rtt_outlier_slack_us = 1000, \
        .min_samples = 8, \
        .drift_wander_ppm = 1.0, \
        .max_drift_ppm = 1000.0, \
        .transport_delay_us = 1000, \
        .transport_jitter_us = 2000, \
}

/* What clock_model_add_sync() made of an exchange. */
enum clock_verdict {
        CLOCK_ACCEPTED = 0,
        CLOCK_REJECTED_RTT,             /* rtt above max_rtt_us */
        CLOCK_REJECTED_OUTLIER,         /* rtt far above the recent minimum */
        CLOCK_REJECTED_INVALID,         /* pad turnaround longer than the exchange */
        CLOCK_REJECTED_INCONSISTENT,    /* contradicts the fit; not (yet) a restart */
        CLOCK_RESTARTED,                /* the pad's clock jumped: fit restarted from this point */
};

struct clock_counters {
        uint64_t accepted;              /* points fed to the fit (restart seeds included) */
        uint64_t rejected_rtt;
        uint64_t rejected_outlier;
        uint64_t rejected_invalid;
        uint64_t rejected_inconsistent;
        uint64_t restarts;              /* clock jumps detected, and clock_model_reset() calls */
};

/* Fields are private to hardware/clock.c; read them through the accessors. */
struct clock_model {
        struct clock_params params;
        uint32_t clock_hz;
        double us_per_tick;             /* 1e6 / clock_hz; 0 without a clock */

        bool have_ref;
        int64_t ref_ticks;              /* extension reference, extended pad ticks */

        int64_t rtt_ring[CLOCK_RTT_WINDOW];
        unsigned rtt_n, rtt_next;

        unsigned n_fit;                 /* points accepted since the last restart */
        unsigned inconsistent_run;      /* consecutive contradicting points */
        int64_t anchor_ticks;           /* newest point's extended rx */
        int64_t anchor_host_us;         /* newest point's t1 */
        double last_x, last_y;          /* newest point, in anchor coordinates */
        double last_bound;              /* newest point's rtt / 2 */
        struct {                        /* the fit's points, anchor coordinates */
                double x, y, bound, rtt;
                int64_t host_us;        /* t1, for the point's age */
        } recent[CLOCK_FIT_WINDOW];
        unsigned n_recent, recent_next;
        double w, v;                    /* Σw, Σw² */
        double mx, my;                  /* weighted means of X, Y */
        double sxx, sxy, syy;           /* centred weighted sums */
        double a1, a2;                  /* Σw²(X − mx), Σw²(X − mx)²: for the slope's error */
        double bound_mean;              /* weighted mean of rtt_i / 2 */

        struct clock_counters counters;
};

/* Fills *ret with CLOCK_PARAMS_DEFAULT. */
void clock_params_default(struct clock_params *ret);

/* Starts a model for a pad ticking clock_hz times a second (0: no clock);
 * params NULL means the defaults.  -EINVAL for parameters out of range
 * (the model is then left initialised with the defaults). */
int clock_model_init(struct clock_model *m, uint32_t clock_hz, const struct clock_params *params);

/* Forgets the fit, the 32-bit extension reference and the RTT history (the
 * pad rebooted, or moved to another port); keeps the counters and counts a
 * restart. */
void clock_model_reset(struct clock_model *m);

/* Feeds one SYNC exchange (see THE MODEL for what t1 and t4 must bound).
 * Returns the enum clock_verdict (0: accepted), -EINVAL if t4 < t1,
 * -EOPNOTSUPP for a pad without a clock. */
int clock_model_add_sync(struct clock_model *m, int64_t host_t1_us, int64_t host_t4_us,
                         uint32_t pad_rx_raw, uint32_t pad_tx_raw);

/* Maps a pad timestamp to host µs, with an uncertainty (µs, >= 1) that
 * bounds the true error (see THE UNCERTAINTY).  -EAGAIN while not synced,
 * -EOPNOTSUPP without a clock: the fallback for both is
 * clock_model_receive_time() on the press frame's receive time. */
int clock_model_to_host(const struct clock_model *m, uint32_t pad_raw,
                        int64_t *ret_host_us, int64_t *ret_uncertainty_us);

/* The fallback: when a press happened, from when its frame was received:
 * host_rx_us − transport_delay_us, ± transport_jitter_us.  The caller passes
 * the first reception of an event, not a retransmission's.  Always 0. */
int clock_model_receive_time(const struct clock_model *m, int64_t host_rx_us,
                             int64_t *ret_host_us, int64_t *ret_uncertainty_us);

/* The 64-bit extension of a raw pad time (see 32 → 64 BITS), in ticks; the
 * raw value itself before the first exchange. */
int64_t clock_model_extend(const struct clock_model *m, uint32_t pad_raw);

bool clock_model_synced(const struct clock_model *m);

/* host_us − pad_us at the newest accepted point (pad_us: the extended
 * counter in µs); 0 before the first. */
int64_t clock_model_offset_us(const struct clock_model *m);

/* How fast the pad's clock runs against the host's, in ppm (positive: the
 * pad's counter runs fast); 0 until the fit has a slope, and while its
 * slope is no clock rate at all (the pad's counter running infinitely fast
 * or backwards against the host's, which only hostile stamps can make):
 * always a finite number. */
double clock_model_drift_ppm(const struct clock_model *m);

/* The uncertainty a press happening at host_now_us would get: the model's
 * bound there when synced, else the fallback's transport_jitter_us. */
int64_t clock_model_uncertainty_us(const struct clock_model *m, int64_t host_now_us);

/* The least RTT in the recent window; -1 before any exchange. */
int64_t clock_model_min_rtt_us(const struct clock_model *m);

const struct clock_counters *clock_model_counters(const struct clock_model *m);
uint64_t clock_model_samples(const struct clock_model *m);      /* accepted */
uint64_t clock_model_rejected(const struct clock_model *m);     /* every kind */

#endif
