/* tournament/openskill.c — Weng-Lin Plackett-Luce (Algorithm 4), see
 * openskill.h and docs/ratings.md. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "tournament/openskill.h"

void tour_os_params_default(struct tour_os_params *ret_params) {
        if (!ret_params)
                return;
        *ret_params = (struct tour_os_params) {
                .mu = TOUR_OS_DEFAULT_MU,
                .sigma = TOUR_OS_DEFAULT_SIGMA,
                .beta = TOUR_OS_DEFAULT_BETA,
                .kappa = TOUR_OS_DEFAULT_KAPPA,
                .tau = TOUR_OS_DEFAULT_TAU,
                .gamma = TOUR_OS_GAMMA_SIGMA_OVER_C,
                .limit_sigma = false,
                .provisional_games = TOUR_OS_PROVISIONAL_GAMES,
                .provisional_sigma = 0.0,
        };
}

int tour_os_params_check(const struct tour_os_params *p) {
        if (!p)
                return -EINVAL;
        if (!isfinite(p->mu) || !isfinite(p->sigma) || !isfinite(p->beta) || !isfinite(p->kappa) ||
            !isfinite(p->tau) || !isfinite(p->provisional_sigma))
                return -EINVAL;
        if (p->sigma <= 0 || p->beta <= 0 || p->kappa <= 0 || p->tau < 0)
                return -EINVAL;
        if (p->gamma != TOUR_OS_GAMMA_SIGMA_OVER_C && p->gamma != TOUR_OS_GAMMA_ONE_OVER_K)
                return -EINVAL;
        if (p->provisional_games < 0 || p->provisional_sigma < 0)
                return -EINVAL;
        return 0;
}

int tour_os_rating_init(const struct tour_os_params *params, struct tour_os_rating *ret_rating) {
        int r;

        if (!ret_rating)
                return -EINVAL;
        r = tour_os_params_check(params);
        if (r < 0)
                return r;
        *ret_rating = (struct tour_os_rating) { .mu = params->mu, .sigma = params->sigma };
        return 0;
}

double tour_os_ordinal(const struct tour_os_rating *rating) {
        if (!rating)
                return NAN;
        return rating->mu - TOUR_OS_ORDINAL_Z * rating->sigma;
}

bool tour_os_provisional(const struct tour_os_params *params, const struct tour_os_rating *rating,
                         unsigned games) {
        if (!params || !rating)
                return true;
        if (params->provisional_games > 0 && games < (unsigned) params->provisional_games)
                return true;
        /* a NaN sigma is no evidence of an established rating either */
        if (params->provisional_sigma > 0 && !(rating->sigma <= params->provisional_sigma))
                return true;
        return false;
}

static bool os_rating_valid(const struct tour_os_rating *r) {
        return isfinite(r->mu) && isfinite(r->sigma) && r->sigma > 0;
}

/* The update is written with the paper's names (Weng and Lin 2011,
 * Algorithm 4; openskill.py _compute):
 *
 *   sigma_j^2 += tau^2                    (dynamics, before anything else)
 *   mu_q = sum of the team's mu_j,  s_q = sum of the team's sigma_j^2
 *   c = sqrt(sum_q (s_q + beta^2))
 *   C_q = sum over teams i ranked no better than q of exp(mu_i / c)
 *   A_q = number of teams tied with q
 *   for team i, over the teams q placed at or above it (r(q) <= r(i)):
 *       p = exp(mu_i / c) / C_q
 *       Omega += ([q == i] - p) / A_q,   Delta += p (1 - p) / A_q
 *   Omega *= s_i / c,  Delta *= gamma_i s_i / c^2
 *   mu_j += sigma_j^2 / s_i * Omega
 *   sigma_j *= sqrt(max(1 - sigma_j^2 / s_i * Delta, kappa))
 *
 * exp(mu / c) overflows a double once mu / c passes ~709, which a club
 * ladder never reaches but a hostile or corrupt row could; every exponent
 * is shifted by the largest one, which cancels in each ratio p. */
int tour_os_rate(const struct tour_os_params *params, struct tour_os_rating *const *players,
                 const size_t *team_sizes, const int *ranks, size_t n_teams) {
        double team_mu[TOUR_OS_MAX_TEAMS], team_s2[TOUR_OS_MAX_TEAMS], e[TOUR_OS_MAX_TEAMS];
        double sum_q[TOUR_OS_MAX_TEAMS], a[TOUR_OS_MAX_TEAMS];
        int rank[TOUR_OS_MAX_TEAMS];
        struct tour_os_rating out[TOUR_OS_MAX_PLAYERS];
        double c2 = 0, c, shift = -INFINITY, tau2;
        size_t n_players = 0;
        int r;

        r = tour_os_params_check(params);
        if (r < 0)
                return r;
        if (!players || !team_sizes || n_teams < 2 || n_teams > TOUR_OS_MAX_TEAMS)
                return -EINVAL;
        for (size_t t = 0; t < n_teams; t++) {
                if (team_sizes[t] < 1 || team_sizes[t] > TOUR_OS_MAX_PLAYERS - n_players)
                        return -EINVAL;
                n_players += team_sizes[t];
                rank[t] = ranks ? ranks[t] : (int) t;
        }
        for (size_t j = 0; j < n_players; j++) {
                if (!players[j] || !os_rating_valid(players[j]))
                        return -EINVAL;
                /* rated simultaneously: one player on two seats has no
                 * meaning and would make the write-back order matter */
                for (size_t k = 0; k < j; k++)
                        if (players[k] == players[j])
                                return -EINVAL;
        }

        tau2 = params->tau * params->tau;
        for (size_t t = 0, j = 0; t < n_teams; t++) {
                team_mu[t] = 0;
                team_s2[t] = 0;
                for (size_t end = j + team_sizes[t]; j < end; j++) {
                        team_mu[t] += players[j]->mu;
                        team_s2[t] += players[j]->sigma * players[j]->sigma + tau2;
                }
                c2 += team_s2[t] + params->beta * params->beta;
        }
        c = sqrt(c2);
        for (size_t t = 0; t < n_teams; t++)
                if (team_mu[t] / c > shift)
                        shift = team_mu[t] / c;
        for (size_t t = 0; t < n_teams; t++)
                e[t] = exp(team_mu[t] / c - shift);
        for (size_t q = 0; q < n_teams; q++) {
                sum_q[q] = 0;
                a[q] = 0;
                for (size_t i = 0; i < n_teams; i++) {
                        if (rank[i] >= rank[q])
                                sum_q[q] += e[i];
                        if (rank[i] == rank[q])
                                a[q] += 1;
                }
        }

        for (size_t i = 0, j = 0; i < n_teams; i++) {
                double omega = 0, delta = 0, gamma;

                for (size_t q = 0; q < n_teams; q++) {
                        double p;

                        if (rank[q] > rank[i])
                                continue;
                        p = e[i] / sum_q[q];
                        delta += p * (1 - p) / a[q];
                        omega += ((q == i ? 1.0 : 0.0) - p) / a[q];
                }
                gamma = params->gamma == TOUR_OS_GAMMA_ONE_OVER_K ? 1.0 / (double) n_teams
                                                                  : sqrt(team_s2[i]) / c;
                omega *= team_s2[i] / c;
                delta *= gamma * team_s2[i] / c2;

                for (size_t end = j + team_sizes[i]; j < end; j++) {
                        const struct tour_os_rating *old = players[j];
                        double s2 = old->sigma * old->sigma + tau2;
                        double share = s2 / team_s2[i];

                        out[j].mu = old->mu + share * omega;
                        out[j].sigma = sqrt(s2) * sqrt(fmax(1 - share * delta, params->kappa));
                        if (params->limit_sigma && out[j].sigma > old->sigma)
                                out[j].sigma = old->sigma;
                        if (!os_rating_valid(&out[j]))
                                return -ERANGE;
                }
        }

        for (size_t j = 0; j < n_players; j++)
                *players[j] = out[j];
        return 0;
}

/* Checks one result against n_players and, unless it is to be skipped,
 * groups its participants into teams: seats[] lists the seat numbers team
 * by team (teams in order of first appearance), sizes[] and ranks[] per
 * team.  Returns the number of teams (0 = skip: a forfeit), or -EINVAL. */
static int os_match_teams(const struct tour_rating_match *m, size_t n_players, int *seats,
                          size_t *sizes, int *ranks) {
        const struct tour_result *res;
        int team_of_seat[TOUR_MAX_SEATS];
        int n_teams = 0, k = 0;
        bool forfeit = false;

        if (!m || !m->r)
                return -EINVAL;
        res = m->r;
        if (res->n < 1 || res->n > TOUR_MAX_SEATS)
                return -EINVAL;
        for (int i = 0; i < res->n; i++) {
                if (res->entrant[i] < 0 || (uint64_t) res->entrant[i] >= n_players)
                        return -EINVAL;
                for (int j = 0; j < i; j++)
                        if (res->entrant[j] == res->entrant[i])
                                return -EINVAL;
                forfeit |= res->forfeit[i];
        }
        /* a forfeit is not a game played: like chess federations we rate
         * none of it, whatever its ranks say (docs/ratings.md) */
        if (forfeit)
                return 0;

        for (int i = 0; i < res->n; i++) {
                int t = -1;

                if (res->rank[i] < 1 || (m->team && m->team[i] < 0))
                        return -EINVAL;
                for (int j = 0; j < i && m->team; j++)
                        if (m->team[j] == m->team[i]) {
                                t = team_of_seat[j];
                                break;
                        }
                if (t < 0) {
                        t = n_teams++;
                        sizes[t] = 0;
                        ranks[t] = res->rank[i];
                } else if (ranks[t] != res->rank[i]) {
                        return -EINVAL;
                }
                team_of_seat[i] = t;
                sizes[t]++;
        }
        for (int t = 0; t < n_teams; t++)
                for (int i = 0; i < res->n; i++)
                        if (team_of_seat[i] == t)
                                seats[k++] = i;
        return n_teams;
}

int tour_os_apply(const struct tour_os_params *params, const struct tour_rating_match *match,
                  size_t match_index, size_t n_players, struct tour_os_rating *ratings,
                  unsigned *games, tour_os_history_fn history, void *userdata) {
        struct tour_os_rating *ptr[TOUR_MAX_SEATS];
        struct tour_os_rating before[TOUR_MAX_SEATS];
        size_t sizes[TOUR_MAX_SEATS];
        int seats[TOUR_MAX_SEATS], ranks[TOUR_MAX_SEATS];
        const struct tour_result *res;
        int n_teams, r;

        if (!ratings || n_players > (size_t) INT32_MAX + 1)
                return -EINVAL;
        n_teams = os_match_teams(match, n_players, seats, sizes, ranks);
        if (n_teams < 0)
                return n_teams;
        if (n_teams < 2)
                return 0;
        res = match->r;
        for (int i = 0; i < res->n; i++) {
                ptr[i] = &ratings[res->entrant[seats[i]]];
                before[i] = *ptr[i];
        }
        r = tour_os_rate(params, ptr, sizes, ranks, (size_t) n_teams);
        if (r < 0)
                return r;
        for (int s = 0; games && s < res->n; s++)
                games[res->entrant[s]]++;
        /* rows in seat order, the order a reader of the result expects */
        for (int s = 0; history && s < res->n; s++) {
                struct tour_os_history row;
                int i = 0;

                while (seats[i] != s)
                        i++;
                row = (struct tour_os_history) {
                        .player = res->entrant[s],
                        .match = match_index,
                        .before = before[i],
                        .after = *ptr[i],
                };
                r = history(&row, userdata);
                if (r < 0)
                        return r;
        }
        return 1;
}

int tour_os_recompute(const struct tour_os_params *params, const struct tour_rating_match *matches,
                      size_t n_matches, size_t n_players, struct tour_os_rating *ret_ratings,
                      unsigned *ret_games, tour_os_history_fn history, void *userdata) {
        int rated = 0, r;

        r = tour_os_params_check(params);
        if (r < 0)
                return r;
        if (!ret_ratings || (!matches && n_matches > 0) || n_matches > INT_MAX ||
            n_players > (size_t) INT32_MAX + 1)
                return -EINVAL;
        for (size_t p = 0; p < n_players; p++) {
                ret_ratings[p] = (struct tour_os_rating) { .mu = params->mu, .sigma = params->sigma };
                if (ret_games)
                        ret_games[p] = 0;
        }
        for (size_t m = 0; m < n_matches; m++) {
                r = tour_os_apply(params, &matches[m], m, n_players, ret_ratings, ret_games, history,
                                  userdata);
                if (r < 0)
                        return r;
                rated += r;
        }
        return rated;
}
