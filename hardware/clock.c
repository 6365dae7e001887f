/* hardware/clock.c — the pad clock model; hardware/clock.h explains it. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "hardware/clock.h"

#define USEC_PER_SEC_F  1e6
#define PPM             1e-6

/* Host stamps are whole microseconds, truncated: t4 may read up to 1 µs
 * before the reply really arrived. */
#define HOST_QUANTUM_US 1.0
/* Round trips below this all weigh the same: a few µs are scheduling noise,
 * not information about the link. */
#define RTT_WEIGHT_FLOOR_US 10.0
#define RTT_WEIGHT_MIN      0.3     /* with 8 points in [0.3, 1], Kish n_eff >= 5.9 > CLOCK_MIN_EFFECTIVE */

void clock_params_default(struct clock_params *ret) {
        *ret = (struct clock_params) CLOCK_PARAMS_DEFAULT;
}

static bool params_valid(const struct clock_params *p) {
        return isfinite(p->half_life_s) && p->half_life_s > 0 &&
               p->max_rtt_us > 0 &&
               isfinite(p->rtt_outlier_factor) && p->rtt_outlier_factor >= 1.0 &&
               p->rtt_outlier_slack_us >= 0 &&
               p->min_samples >= CLOCK_MIN_SAMPLES &&
               isfinite(p->drift_wander_ppm) && p->drift_wander_ppm >= 0 &&
               isfinite(p->max_drift_ppm) && p->max_drift_ppm > 0 &&
               p->transport_delay_us >= 0 && p->transport_jitter_us >= 0;
}

static void fit_clear(struct clock_model *m) {
        m->n_fit = 0;
        m->inconsistent_run = 0;
        m->anchor_ticks = m->anchor_host_us = 0;
        m->last_x = m->last_y = m->last_bound = 0;
        m->w = m->v = 0;
        m->mx = m->my = 0;
        m->sxx = m->sxy = m->syy = 0;
        m->a1 = m->a2 = 0;
        m->bound_mean = 0;
        m->n_recent = m->recent_next = 0;
}

int clock_model_init(struct clock_model *m, uint32_t clock_hz, const struct clock_params *params) {
        struct clock_params defaults = CLOCK_PARAMS_DEFAULT;
        int r = 0;

        if (params && !params_valid(params)) {
                r = -EINVAL;
                params = NULL;
        }
        memset(m, 0, sizeof *m);
        m->params = params ? *params : defaults;
        m->clock_hz = clock_hz;
        m->us_per_tick = clock_hz ? USEC_PER_SEC_F / clock_hz : 0;
        fit_clear(m);
        return r;
}

void clock_model_reset(struct clock_model *m) {
        fit_clear(m);
        m->have_ref = false;
        m->ref_ticks = 0;
        m->rtt_n = m->rtt_next = 0;
        m->counters.restarts++;
}

/* Places raw within 2^31 ticks of the reference: the signed 32-bit
 * difference is the distance the shorter way round the counter. */
static int64_t extend(bool have_ref, int64_t ref, uint32_t raw) {
        if (!have_ref)
                return raw;
        return ref + (int32_t) (raw - (uint32_t) ref);
}

int64_t clock_model_extend(const struct clock_model *m, uint32_t pad_raw) {
        return extend(m->have_ref, m->ref_ticks, pad_raw);
}

/* Extended ticks to whole µs without overflowing for fast clocks: ticks ×
 * 10^6 leaves int64 after 2^63 / 10^12 s at 1 MHz but after hours at tens
 * of MHz. */
static int64_t ticks_to_us(uint32_t hz, int64_t ticks) {
        int64_t q = ticks / hz, r = ticks % hz;

        return q * 1000000 + r * 1000000 / hz;
}

/* The fitted line must also be a clock: host time going forward with pad
 * time (1 + b > 0).  Points a hair apart in pad time, which only hostile
 * stamps bring, can fit a line with b <= -1, which maps nothing. */
static bool fit_synced(const struct clock_model *m) {
        return m->n_fit >= m->params.min_samples && m->sxx > 0 &&
               m->w * m->w / m->v >= CLOCK_MIN_EFFECTIVE && 1 + m->sxy / m->sxx > 0;
}

static double fit_slope(const struct clock_model *m) {
        return m->sxx > 0 ? m->sxy / m->sxx : 0;
}

static double fit_predict(const struct clock_model *m, double x) {
        return m->my + fit_slope(m) * (x - m->mx);
}

/* Student's t quantile for CLOCK_SIGMAS-equivalent confidence at nu
 * degrees of freedom: the four-term Cornish–Fisher expansion about the
 * normal quantile, evaluated at nu − 1/2.  The plain expansion falls short
 * of the exact quantile at few degrees of freedom (8.5 for 9.2 at 3); the
 * half-degree shift puts it above the exact value everywhere from 2.5 up
 * (by 16 % at 3, 4 % at 6, 0.3 % at 20), which is the side to err on. */
static double t_quantile(double nu) {
        const double z = CLOCK_SIGMAS, z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2;

        nu -= 0.5;
        return z + (z3 + z) / (4 * nu) + (5 * z5 + 16 * z3 + 3 * z) / (96 * nu * nu) +
               (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * nu * nu * nu);
}

/* The growth rate of the bound away from the centroid, in µs per µs: the
 * slope's standard error (weighted least squares with weights that are
 * not inverse variances: Var(b) = σ² Σw²(x − x̄)² / Sxx²), at a t
 * quantile, plus the unmodelled wander.  Meaningful only when synced. */
static double fit_bound_rate(const struct clock_model *m) {
        double n_eff = m->w * m->w / m->v;
        double ssr = m->syy - m->sxy * m->sxy / m->sxx;
        double sigma2 = fmax(ssr, 0) / (m->w - 2 * m->v / m->w);
        double se_slope = sqrt(sigma2 * fmax(m->a2, 0)) / m->sxx;

        return t_quantile(n_eff - 2) * se_slope + m->params.drift_wander_ppm * PPM;
}

/* The bound on the fitted line's error at x (anchor coordinates): hard at
 * the centroid, growing linearly away from it (clock.h, THE UNCERTAINTY). */
static double fit_bound(const struct clock_model *m, double x) {
        double rate = fit_bound_rate(m);
        double best = m->bound_mean + rate * fabs(x - m->mx);

        /* The centroid trails the newest point by about a half-life; a
         * recent quiet exchange may pin the line more tightly near x.  The
         * truth passes within bound of point k, so the line misses it at x
         * by at most |line(x_k) − y_k| + bound_k + rate·|x − x_k|. */
        for (unsigned i = 0; i < m->n_recent; i++) {
                double xk = m->recent[i].x;
                double b = fabs(fit_predict(m, xk) - m->recent[i].y) + m->recent[i].bound + rate * fabs(x - xk);
                if (b < best)
                        best = b;
        }
        return best + m->us_per_tick + HOST_QUANTUM_US;
}

static void recent_push(struct clock_model *m, double x, double y, double bound, double rtt, int64_t host_us) {
        m->recent[m->recent_next].x = x;
        m->recent[m->recent_next].y = y;
        m->recent[m->recent_next].bound = bound;
        m->recent[m->recent_next].rtt = rtt;
        m->recent[m->recent_next].host_us = host_us;
        m->recent_next = (m->recent_next + 1) % CLOCK_FIT_WINDOW;
        if (m->n_recent < CLOCK_FIT_WINDOW)
                m->n_recent++;
}

static double rtt_weight(double rtt, int64_t rtt_min);
static int64_t rtt_recent_min(const struct clock_model *m);

/* Recomputes the weighted least-squares sums from the window's points.
 * Each point weighs decay(age) × rtt_weight(rtt, the recent minimum), with
 * the minimum as it is now: an exchange that looked quiet while the window
 * was young loses its weight once quieter ones show what quiet is (a host
 * hiccup in the first few exchanges would otherwise weigh fully for
 * minutes).  Two passes, centred, so precision holds. */
static void fit_refit(struct clock_model *m, int64_t host_now_us) {
        int64_t rtt_min = rtt_recent_min(m);
        double wts[CLOCK_FIT_WINDOW];
        double W = 0, V = 0, sx = 0, sy = 0, sb = 0;

        for (unsigned i = 0; i < m->n_recent; i++) {
                double age = (double) (host_now_us - m->recent[i].host_us);
                double decay = age > 0 ? exp2(-age / (m->params.half_life_s * USEC_PER_SEC_F)) : 1;
                double w = decay * rtt_weight(m->recent[i].rtt, rtt_min < 0 ? llround(m->recent[i].rtt) : rtt_min);
                wts[i] = w;
                W += w;
                V += w * w;
                sx += w * m->recent[i].x;
                sy += w * m->recent[i].y;
                sb += w * m->recent[i].bound;
        }
        m->w = W;
        m->v = V;
        m->mx = sx / W;
        m->my = sy / W;
        m->bound_mean = sb / W;
        m->sxx = m->sxy = m->syy = m->a1 = m->a2 = 0;
        for (unsigned i = 0; i < m->n_recent; i++) {
                double w = wts[i], dx = m->recent[i].x - m->mx, dy = m->recent[i].y - m->my;
                m->sxx += w * dx * dx;
                m->sxy += w * dx * dy;
                m->syy += w * dy * dy;
                m->a1 += w * w * dx;
                m->a2 += w * w * dx * dx;
        }
}

/* How much an exchange counts in the fit: fully when its round trip is
 * the recent minimum, less as it grows, min / rtt, but never below
 * RTT_WEIGHT_MIN so that a run of noisy exchanges still makes enough
 * effective points (Kish) to call the model synced.  The error of a point
 * is at most its half round trip, and a quiet exchange is the one that
 * tells the truth (NTP's minimum-delay filter, Klipper's and PX4's RTT
 * preference); weighting keeps the noisier ones instead of dropping them.
 * The bound at the centroid is the weighted mean of the points' bounds
 * whatever the weights, so it stays a proven bound. */
static double rtt_weight(double rtt, int64_t rtt_min) {
        double floor_us = fmax((double) rtt_min, RTT_WEIGHT_FLOOR_US);
        if (rtt <= floor_us)
                return 1;
        return fmax(floor_us / rtt, RTT_WEIGHT_MIN);
}

/* Moves the anchors to the newest point by whole ticks and µs: X and Y
 * shift by constants, so only the means and the newest point move. */
static void reanchor(struct clock_model *m, int64_t pad_ticks, int64_t host_us) {
        double dp = (double) (pad_ticks - m->anchor_ticks) * m->us_per_tick;
        double dh = (double) (host_us - m->anchor_host_us);

        m->mx -= dp;
        m->my += dp - dh;
        m->last_x -= dp;
        m->last_y += dp - dh;
        for (unsigned i = 0; i < m->n_recent; i++) {
                m->recent[i].x -= dp;
                m->recent[i].y += dp - dh;
        }
        m->anchor_ticks = pad_ticks;
        m->anchor_host_us = host_us;
}

/* Starts the fit afresh from one exchange, which becomes the anchor. */
static void fit_seed(struct clock_model *m, int64_t ext_rx, int64_t ext_tx, int64_t t1, int64_t t4,
                     double turnaround_us, double bound) {
        double x = turnaround_us / 2, y = (double) (t4 - t1) / 2 - x;

        fit_clear(m);
        m->anchor_ticks = ext_rx;
        m->anchor_host_us = t1;
        recent_push(m, x, y, bound, fmax((double) (t4 - t1) - turnaround_us, 0), t1);
        fit_refit(m, t1);
        m->last_x = x;
        m->last_y = y;
        m->last_bound = bound;
        m->n_fit = 1;
        m->have_ref = true;
        m->ref_ticks = ext_tx;
        m->counters.accepted++;
}

static int64_t rtt_recent_min(const struct clock_model *m) {
        int64_t min = -1;

        for (unsigned i = 0; i < m->rtt_n; i++)
                if (min < 0 || m->rtt_ring[i] < min)
                        min = m->rtt_ring[i];
        return min;
}

int64_t clock_model_min_rtt_us(const struct clock_model *m) {
        return rtt_recent_min(m);
}

static void rtt_push(struct clock_model *m, int64_t rtt) {
        m->rtt_ring[m->rtt_next] = rtt;
        m->rtt_next = (m->rtt_next + 1) % CLOCK_RTT_WINDOW;
        if (m->rtt_n < CLOCK_RTT_WINDOW)
                m->rtt_n++;
}

/* Filters an exchange by RTT, then by consistency with what the model
 * already knows (clock.h, SAMPLE FILTERING), and only then lets it move the
 * fit and the extension reference: a rejected exchange leaves the model as
 * it was, apart from the RTT history and the counters. */
int clock_model_add_sync(struct clock_model *m, int64_t host_t1_us, int64_t host_t4_us,
                         uint32_t pad_rx_raw, uint32_t pad_tx_raw) {
        const struct clock_params *p = &m->params;
        double quantum = m->us_per_tick + HOST_QUANTUM_US;
        int64_t ext_rx, ext_tx, rtt_min;
        double turnaround, rtt, bound, x, y, tol;

        if (!m->clock_hz)
                return -EOPNOTSUPP;
        if (host_t4_us < host_t1_us)
                return -EINVAL;

        ext_rx = extend(m->have_ref, m->ref_ticks, pad_rx_raw);
        ext_tx = ext_rx + (uint32_t) (pad_tx_raw - pad_rx_raw);
        turnaround = (double) (ext_tx - ext_rx) * m->us_per_tick;
        rtt = (double) (host_t4_us - host_t1_us) - turnaround;
        if (rtt < -quantum) {
                m->counters.rejected_invalid++;
                return CLOCK_REJECTED_INVALID;
        }
        rtt = fmax(rtt, 0);

        rtt_min = rtt_recent_min(m);
        rtt_push(m, llround(rtt));
        if (rtt > (double) p->max_rtt_us) {
                m->counters.rejected_rtt++;
                return CLOCK_REJECTED_RTT;
        }
        if (rtt_min >= 0 && rtt > fmax(p->rtt_outlier_factor * (double) rtt_min,
                                       (double) (rtt_min + p->rtt_outlier_slack_us))) {
                m->counters.rejected_outlier++;
                return CLOCK_REJECTED_OUTLIER;
        }

        /* |y − truth| <= rtt / 2, plus the turnaround measured at the
         * pad's rate rather than the host's. */
        bound = rtt / 2 + turnaround * p->max_drift_ppm * PPM / 2;

        if (m->n_fit == 0) {
                fit_seed(m, ext_rx, ext_tx, host_t1_us, host_t4_us, turnaround, bound);
                return CLOCK_ACCEPTED;
        }

        x = (double) (ext_rx - m->anchor_ticks) * m->us_per_tick + turnaround / 2;
        y = (double) (host_t1_us - m->anchor_host_us) + (double) (host_t4_us - host_t1_us) / 2 - x;

        if (fit_synced(m)) {
                tol = CLOCK_RESET_FACTOR * (fit_bound(m, x) + bound + quantum);
                if (fabs(y - fit_predict(m, x)) > tol) {
                        if (++m->inconsistent_run < CLOCK_RESET_CONFIRM) {
                                m->counters.rejected_inconsistent++;
                                return CLOCK_REJECTED_INCONSISTENT;
                        }
                        m->counters.restarts++;
                        fit_seed(m, ext_rx, ext_tx, host_t1_us, host_t4_us, turnaround, bound);
                        return CLOCK_RESTARTED;
                }
        } else {
                tol = m->last_bound + bound + 2 * quantum + p->max_drift_ppm * PPM * fabs(x - m->last_x);
                if (fabs(y - m->last_y) > tol) {
                        m->counters.restarts++;
                        fit_seed(m, ext_rx, ext_tx, host_t1_us, host_t4_us, turnaround, bound);
                        return CLOCK_RESTARTED;
                }
        }

        m->inconsistent_run = 0;
        recent_push(m, x, y, bound, rtt, host_t1_us);
        fit_refit(m, host_t1_us);
        m->last_x = x;
        m->last_y = y;
        m->last_bound = bound;
        reanchor(m, ext_rx, host_t1_us);
        if (m->n_fit < UINT_MAX)
                m->n_fit++;
        if (ext_tx > m->ref_ticks)
                m->ref_ticks = ext_tx;
        m->counters.accepted++;
        return CLOCK_ACCEPTED;
}

/* The press's stamp is truncated (the contact closed up to one tick after
 * it) and the answer is rounded to whole µs: both widen the fit's bound. */
static void map_point(const struct clock_model *m, double x, int64_t *ret_host_us, int64_t *ret_uncertainty_us) {
        double dh = x + fit_predict(m, x);

        *ret_host_us = m->anchor_host_us + llround(dh);
        *ret_uncertainty_us = (int64_t) ceil(fit_bound(m, x) + m->us_per_tick + 0.5);
}

int clock_model_to_host(const struct clock_model *m, uint32_t pad_raw,
                        int64_t *ret_host_us, int64_t *ret_uncertainty_us) {
        int64_t ext;

        if (!m->clock_hz)
                return -EOPNOTSUPP;
        if (!fit_synced(m))
                return -EAGAIN;
        ext = extend(m->have_ref, m->ref_ticks, pad_raw);
        map_point(m, (double) (ext - m->anchor_ticks) * m->us_per_tick, ret_host_us, ret_uncertainty_us);
        return 0;
}

int clock_model_receive_time(const struct clock_model *m, int64_t host_rx_us,
                             int64_t *ret_host_us, int64_t *ret_uncertainty_us) {
        *ret_host_us = host_rx_us - m->params.transport_delay_us;
        *ret_uncertainty_us = m->params.transport_jitter_us;
        return 0;
}

bool clock_model_synced(const struct clock_model *m) {
        return m->clock_hz && fit_synced(m);
}

int64_t clock_model_offset_us(const struct clock_model *m) {
        if (!m->clock_hz || m->n_fit == 0)
                return 0;
        return m->anchor_host_us + llround(fit_predict(m, 0)) - ticks_to_us(m->clock_hz, m->anchor_ticks);
}

double clock_model_drift_ppm(const struct clock_model *m) {
        double b;

        if (!m->clock_hz || m->n_fit < 2 || m->sxx <= 0)
                return 0;
        b = fit_slope(m);
        /* A fit on points a hair apart can say the pad's clock runs
         * infinitely fast (b = -1) or backwards: no rate to show. */
        if (!(1 + b > 0))
                return 0;
        return -b / (1 + b) / PPM;
}

/* Inverts the fitted line to find the pad time that corresponds to
 * host_now_us: host − anchor = X + my + b (X − mx). */
int64_t clock_model_uncertainty_us(const struct clock_model *m, int64_t host_now_us) {
        int64_t host, unc;
        double b, x;

        if (!clock_model_synced(m))
                return m->params.transport_jitter_us;
        b = fit_slope(m);
        x = ((double) (host_now_us - m->anchor_host_us) - m->my + b * m->mx) / (1 + b);
        map_point(m, x, &host, &unc);
        return unc;
}

const struct clock_counters *clock_model_counters(const struct clock_model *m) {
        return &m->counters;
}

uint64_t clock_model_samples(const struct clock_model *m) {
        return m->counters.accepted;
}

uint64_t clock_model_rejected(const struct clock_model *m) {
        const struct clock_counters *c = &m->counters;

        return c->rejected_rtt + c->rejected_outlier + c->rejected_invalid + c->rejected_inconsistent;
}
