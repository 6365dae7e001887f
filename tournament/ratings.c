/* tournament/ratings.c — see ratings.h.
 *
 * The step copies the participants' states into arrays indexed by seat,
 * rates a copy of the result whose entrants are the seats 0..n-1 with the
 * systems' own apply functions, and writes the states back only when both
 * succeeded.  Whoever calls it, the arithmetic is the same. */
#include <errno.h>
#include <string.h>

#include "tournament/ratings.h"

int tour_ratings_params_check(const struct tour_os_params *os, const struct tour_glicko2_params *g2) {
        int r = tour_os_params_check(os);

        return r < 0 ? r : tour_glicko2_params_check(g2);
}

void tour_rating_state_init(const struct tour_os_params *os, const struct tour_glicko2_params *g2,
                            struct tour_rating_state *ret) {
        if (!ret)
                return;
        *ret = (struct tour_rating_state) {
                .os = { .mu = os ? os->mu : TOUR_OS_DEFAULT_MU, .sigma = os ? os->sigma : TOUR_OS_DEFAULT_SIGMA },
                .g2 = {
                        .rating = g2 ? g2->rating : TOUR_GLICKO2_DEFAULT_RATING,
                        .rd = g2 ? g2->rd : TOUR_GLICKO2_DEFAULT_RD,
                        .vol = g2 ? g2->vol : TOUR_GLICKO2_DEFAULT_VOL,
                },
        };
}

int tour_ratings_step(const struct tour_os_params *os, const struct tour_glicko2_params *g2,
                      const struct tour_result *res, struct tour_rating_state *const *players,
                      struct tour_rating_step *ret_step) {
        struct tour_os_rating osr[TOUR_MAX_SEATS];
        struct tour_glicko2_rating g2r[TOUR_MAX_SEATS];
        unsigned os_games[TOUR_MAX_SEATS], g2_games[TOUR_MAX_SEATS];
        struct tour_result local;
        struct tour_rating_match m = { .r = &local, .team = NULL };
        unsigned rated = 0;
        int n, r;

        r = tour_ratings_params_check(os, g2);
        if (r < 0)
                return r;
        if (!res || !players || !ret_step || res->n < 1 || res->n > TOUR_MAX_SEATS)
                return -EINVAL;
        n = res->n;
        for (int k = 0; k < n; k++) {
                if (!players[k])
                        return -EINVAL;
                for (int j = 0; j < k; j++)
                        if (players[j] == players[k])
                                return -EINVAL;
        }
        local = *res;
        for (int k = 0; k < n; k++) {
                local.entrant[k] = k;
                osr[k] = players[k]->os;
                os_games[k] = players[k]->os_games;
                g2r[k] = players[k]->g2;
                g2_games[k] = players[k]->g2_games;
        }

        r = tour_os_apply(os, &m, 0, (size_t) n, osr, os_games, NULL, NULL);
        if (r < 0)
                return r;
        if (r > 0)
                rated |= TOUR_RATED_OPENSKILL;
        if (n == 2) {
                r = tour_glicko2_apply(g2, &m, 0, 2, g2r, g2_games, NULL, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        rated |= TOUR_RATED_GLICKO2;
        }

        memset(ret_step, 0, sizeof *ret_step);
        ret_step->n = n;
        ret_step->rated = rated;
        for (int k = 0; k < n; k++) {
                ret_step->before[k] = *players[k];
                players[k]->os = osr[k];
                players[k]->os_games = os_games[k];
                players[k]->g2 = g2r[k];
                players[k]->g2_games = g2_games[k];
        }
        return 0;
}
