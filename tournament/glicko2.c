/* tournament/glicko2.c — Glickman's Glicko-2, steps 1-8 of "Example of the
 * Glicko-2 system"; see glicko2.h and docs/ratings.md. */
#include <errno.h>
#include <limits.h>
#include <math.h>

#include "tournament/glicko2.h"

/* Bound on the Illinois iterations.  Regula falsi with the Illinois
 * modification converges superlinearly and the bracket is valid from the
 * start, so real inputs finish in well under 100 steps; the cap only makes
 * termination obvious for a pathological input, which then fails with
 * -ERANGE instead of spinning. */
#define GLICKO2_MAX_ITERATIONS  1000
/* Step 2: mu = (r - 1500) / 173.7178.  This 1500 is where the scale is
 * centred, fixed by the paper, whatever rating params give a newcomer. */
#define GLICKO2_CENTER          1500.0

void tour_glicko2_params_default(struct tour_glicko2_params *ret_params) {
        if (!ret_params)
                return;
        *ret_params = (struct tour_glicko2_params) {
                .rating = TOUR_GLICKO2_DEFAULT_RATING,
                .rd = TOUR_GLICKO2_DEFAULT_RD,
                .vol = TOUR_GLICKO2_DEFAULT_VOL,
                .tau = TOUR_GLICKO2_DEFAULT_TAU,
                .provisional_games = TOUR_GLICKO2_PROVISIONAL_GAMES,
                .provisional_rd = TOUR_GLICKO2_PROVISIONAL_RD,
        };
}

int tour_glicko2_params_check(const struct tour_glicko2_params *p) {
        if (!p)
                return -EINVAL;
        if (!isfinite(p->rating) || !isfinite(p->rd) || !isfinite(p->vol) || !isfinite(p->tau) ||
            !isfinite(p->provisional_rd))
                return -EINVAL;
        if (p->rd <= 0 || p->vol <= 0)
                return -EINVAL;
        if (p->tau < TOUR_GLICKO2_TAU_MIN || p->tau > TOUR_GLICKO2_TAU_MAX)
                return -EINVAL;
        if (p->provisional_games < 0 || p->provisional_rd < 0)
                return -EINVAL;
        return 0;
}

int tour_glicko2_rating_init(const struct tour_glicko2_params *params,
                             struct tour_glicko2_rating *ret_rating) {
        int r;

        if (!ret_rating)
                return -EINVAL;
        r = tour_glicko2_params_check(params);
        if (r < 0)
                return r;
        *ret_rating = (struct tour_glicko2_rating) {
                .rating = params->rating, .rd = params->rd, .vol = params->vol,
        };
        return 0;
}

bool tour_glicko2_provisional(const struct tour_glicko2_params *params,
                              const struct tour_glicko2_rating *rating, unsigned games) {
        if (!params || !rating)
                return true;
        if (params->provisional_games > 0 && games < (unsigned) params->provisional_games)
                return true;
        if (params->provisional_rd > 0 && !(rating->rd < params->provisional_rd))
                return true;
        return false;
}

static bool glicko2_rating_valid(const struct tour_glicko2_rating *r) {
        return isfinite(r->rating) && isfinite(r->rd) && isfinite(r->vol) && r->rd > 0 && r->vol > 0;
}

/* Step 3's g(phi): how much an opponent's uncertainty damps the impact of
 * the game. */
static double glicko2_g(double phi) {
        return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* Step 5.2's f(x), whose root x = ln(sigma'^2) is the new volatility. */
static double glicko2_f(double x, double delta2, double phi2, double v, double a, double tau2) {
        double ex = exp(x);
        double d = phi2 + v + ex;

        return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / tau2;
}

/* Steps 2-8 on the internal scale; writes *ret only on success. */
static int glicko2_update(double tau, const struct tour_glicko2_rating *in,
                          const struct tour_glicko2_game *games, size_t m,
                          struct tour_glicko2_rating *ret) {
        double mu = (in->rating - GLICKO2_CENTER) / TOUR_GLICKO2_SCALE;
        double phi = in->rd / TOUR_GLICKO2_SCALE;
        double sigma = in->vol;
        double v_inv = 0, dsum = 0, v, delta, a, A, B, fA, fB, tau2 = tau * tau;
        double sigma_new, phi_star, phi_new, mu_new;
        struct tour_glicko2_rating out;
        int k;

        if (m == 0) {
                /* step 6 alone: an idle period only widens the uncertainty */
                out = *in;
                out.rd = sqrt(phi * phi + sigma * sigma) * TOUR_GLICKO2_SCALE;
                if (!glicko2_rating_valid(&out))
                        return -ERANGE;
                *ret = out;
                return 0;
        }

        /* steps 3 and 4: estimated variance v and improvement delta */
        for (size_t j = 0; j < m; j++) {
                double mu_j = (games[j].opp_rating - GLICKO2_CENTER) / TOUR_GLICKO2_SCALE;
                double g = glicko2_g(games[j].opp_rd / TOUR_GLICKO2_SCALE);
                double e = 1.0 / (1.0 + exp(-g * (mu - mu_j)));

                v_inv += g * g * e * (1.0 - e);
                dsum += g * (games[j].score - e);
        }
        v = 1.0 / v_inv;
        delta = v * dsum;

        /* step 5: the new volatility, Illinois iteration on f */
        a = log(sigma * sigma);
        A = a;
        if (delta * delta > phi * phi + v) {
                B = log(delta * delta - phi * phi - v);
        } else {
                k = 1;
                while (glicko2_f(a - k * tau, delta * delta, phi * phi, v, a, tau2) < 0) {
                        if (++k > GLICKO2_MAX_ITERATIONS)
                                return -ERANGE;
                }
                B = a - k * tau;
        }
        fA = glicko2_f(A, delta * delta, phi * phi, v, a, tau2);
        fB = glicko2_f(B, delta * delta, phi * phi, v, a, tau2);
        for (k = 0; fabs(B - A) > TOUR_GLICKO2_EPSILON; k++) {
                double C, fC;

                if (k >= GLICKO2_MAX_ITERATIONS || !isfinite(fA) || !isfinite(fB) || fB == fA)
                        return -ERANGE;
                C = A + (A - B) * fA / (fB - fA);
                fC = glicko2_f(C, delta * delta, phi * phi, v, a, tau2);
                /* the 2022 edition says "<= 0"; the 2013 one "< 0": they
                 * differ only when f(C) is exactly 0, where A <- B is the
                 * step that ends the loop */
                if (fC * fB <= 0) {
                        A = B;
                        fA = fB;
                } else {
                        fA /= 2.0;
                }
                B = C;
                fB = fC;
        }
        sigma_new = exp(A / 2.0);

        /* steps 6 and 7: pre-period RD, then the new phi and mu */
        phi_star = sqrt(phi * phi + sigma_new * sigma_new);
        phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
        mu_new = mu + phi_new * phi_new * dsum;

        /* step 8: back to the public scale */
        out.rating = GLICKO2_CENTER + TOUR_GLICKO2_SCALE * mu_new;
        out.rd = TOUR_GLICKO2_SCALE * phi_new;
        out.vol = sigma_new;
        if (!glicko2_rating_valid(&out))
                return -ERANGE;
        *ret = out;
        return 0;
}

static bool glicko2_game_valid(const struct tour_glicko2_game *g) {
        return isfinite(g->opp_rating) && isfinite(g->opp_rd) && g->opp_rd > 0 &&
               isfinite(g->score) && g->score >= 0 && g->score <= 1;
}

int tour_glicko2_rate_period(const struct tour_glicko2_params *params,
                             struct tour_glicko2_rating *player,
                             const struct tour_glicko2_game *games, size_t m) {
        int r = tour_glicko2_params_check(params);

        if (r < 0)
                return r;
        if (!player || !glicko2_rating_valid(player) || m > TOUR_GLICKO2_MAX_GAMES ||
            (m > 0 && !games))
                return -EINVAL;
        for (size_t j = 0; j < m; j++)
                if (!glicko2_game_valid(&games[j]))
                        return -EINVAL;
        return glicko2_update(params->tau, player, games, m, player);
}

int tour_glicko2_rate_duel(const struct tour_glicko2_params *params, struct tour_glicko2_rating *a,
                           struct tour_glicko2_rating *b, double score_a) {
        struct tour_glicko2_game ga, gb;
        struct tour_glicko2_rating na, nb;
        int r = tour_glicko2_params_check(params);

        if (r < 0)
                return r;
        if (!a || !b || a == b || !glicko2_rating_valid(a) || !glicko2_rating_valid(b) ||
            !isfinite(score_a) || score_a < 0 || score_a > 1)
                return -EINVAL;
        ga = (struct tour_glicko2_game) { .opp_rating = b->rating, .opp_rd = b->rd, .score = score_a };
        gb = (struct tour_glicko2_game) { .opp_rating = a->rating, .opp_rd = a->rd, .score = 1.0 - score_a };
        r = glicko2_update(params->tau, a, &ga, 1, &na);
        if (r < 0)
                return r;
        r = glicko2_update(params->tau, b, &gb, 1, &nb);
        if (r < 0)
                return r;
        *a = na;
        *b = nb;
        return 0;
}

int tour_glicko2_apply(const struct tour_glicko2_params *params,
                       const struct tour_rating_match *match, size_t match_index, size_t n_players,
                       struct tour_glicko2_rating *ratings, unsigned *games,
                       tour_glicko2_history_fn history, void *userdata) {
        const struct tour_result *res;
        struct tour_glicko2_rating *pa, *pb, before_a, before_b;
        struct tour_glicko2_history row;
        double score_a;
        int r;

        if (!ratings || !match || !match->r || n_players > (size_t) INT32_MAX + 1)
                return -EINVAL;
        res = match->r;
        if (res->n != 2)
                return -EINVAL;
        if (res->entrant[0] < 0 || (uint64_t) res->entrant[0] >= n_players ||
            res->entrant[1] < 0 || (uint64_t) res->entrant[1] >= n_players ||
            res->entrant[0] == res->entrant[1])
                return -EINVAL;
        /* a forfeit is not a game played (docs/ratings.md) */
        if (res->forfeit[0] || res->forfeit[1])
                return 0;
        if (res->rank[0] < 1 || res->rank[1] < 1)
                return -EINVAL;
        if (match->team && (match->team[0] < 0 || match->team[1] < 0 || match->team[0] == match->team[1]))
                return -EINVAL;
        score_a = res->rank[0] < res->rank[1] ? 1.0 : res->rank[0] == res->rank[1] ? 0.5 : 0.0;

        pa = &ratings[res->entrant[0]];
        pb = &ratings[res->entrant[1]];
        before_a = *pa;
        before_b = *pb;
        r = tour_glicko2_rate_duel(params, pa, pb, score_a);
        if (r < 0)
                return r;
        if (games) {
                games[res->entrant[0]]++;
                games[res->entrant[1]]++;
        }
        if (history) {
                row = (struct tour_glicko2_history) {
                        .player = res->entrant[0], .match = match_index, .before = before_a, .after = *pa,
                };
                r = history(&row, userdata);
                if (r < 0)
                        return r;
                row = (struct tour_glicko2_history) {
                        .player = res->entrant[1], .match = match_index, .before = before_b, .after = *pb,
                };
                r = history(&row, userdata);
                if (r < 0)
                        return r;
        }
        return 1;
}

int tour_glicko2_recompute(const struct tour_glicko2_params *params,
                           const struct tour_rating_match *matches, size_t n_matches,
                           size_t n_players, struct tour_glicko2_rating *ret_ratings,
                           unsigned *ret_games, tour_glicko2_history_fn history, void *userdata) {
        int rated = 0, r;

        r = tour_glicko2_params_check(params);
        if (r < 0)
                return r;
        if (!ret_ratings || (!matches && n_matches > 0) || n_matches > INT_MAX ||
            n_players > (size_t) INT32_MAX + 1)
                return -EINVAL;
        for (size_t p = 0; p < n_players; p++) {
                ret_ratings[p] = (struct tour_glicko2_rating) {
                        .rating = params->rating, .rd = params->rd, .vol = params->vol,
                };
                if (ret_games)
                        ret_games[p] = 0;
        }
        for (size_t m = 0; m < n_matches; m++) {
                r = tour_glicko2_apply(params, &matches[m], m, n_players, ret_ratings, ret_games,
                                       history, userdata);
                if (r < 0)
                        return r;
                rated += r;
        }
        return rated;
}
