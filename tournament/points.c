/* tournament/points.c — the points configuration and the award of one result
 * (tournament/points.h, docs/tournaments.md "Points"). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tournament/points.h"

static int points_fail(struct tour_points_error *ret_err, const char *message, const char *field_fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Fills *ret_err (when given) and returns -EINVAL, so every refusal is one
 * line at its check. */
static int points_fail(struct tour_points_error *ret_err, const char *message, const char *field_fmt, ...) {
        va_list ap;

        if (ret_err) {
                va_start(ap, field_fmt);
                vsnprintf(ret_err->field, sizeof ret_err->field, field_fmt, ap);
                va_end(ap);
                snprintf(ret_err->message, sizeof ret_err->message, "%s", message);
        }
        return -EINVAL;
}

static bool points_value_ok(double v) {
        return isfinite(v) && fabs(v) <= TOUR_POINTS_MAX_ABS;
}

static void points_defaults_common(struct tour_points_config *ret_cfg) {
        memset(ret_cfg, 0, sizeof *ret_cfg);
        ret_cfg->rule = TOUR_POINTS_N_MINUS_RANK;
        ret_cfg->forfeit_loss = 0.0;
}

void tour_points_defaults_wdl(struct tour_points_config *ret_cfg) {
        if (!ret_cfg)
                return;
        points_defaults_common(ret_cfg);
        ret_cfg->mode = TOUR_POINTS_WDL;
        ret_cfg->win = TOUR_POINTS_MTG_WIN;
        ret_cfg->draw = TOUR_POINTS_MTG_DRAW;
        ret_cfg->loss = TOUR_POINTS_MTG_LOSS;
        ret_cfg->bye = ret_cfg->win;
}

void tour_points_defaults_chess(struct tour_points_config *ret_cfg) {
        if (!ret_cfg)
                return;
        points_defaults_common(ret_cfg);
        ret_cfg->mode = TOUR_POINTS_WDL;
        ret_cfg->win = TOUR_POINTS_CHESS_WIN;
        ret_cfg->draw = TOUR_POINTS_CHESS_DRAW;
        ret_cfg->loss = TOUR_POINTS_CHESS_LOSS;
        ret_cfg->bye = ret_cfg->win;
}

void tour_points_defaults_placement(struct tour_points_config *ret_cfg) {
        if (!ret_cfg)
                return;
        points_defaults_common(ret_cfg);
        ret_cfg->mode = TOUR_POINTS_PLACEMENT;
        /* a duel won under n − rank */
        ret_cfg->bye = 1.0;
}

int tour_points_validate(const struct tour_points_config *cfg, struct tour_points_error *ret_err) {
        if (!cfg)
                return points_fail(ret_err, "is NULL", "config");
        if (!points_value_ok(cfg->bye))
                return points_fail(ret_err, "must be finite and within ±1e6", "bye");
        if (!points_value_ok(cfg->forfeit_loss))
                return points_fail(ret_err, "must be finite and within ±1e6", "forfeit_loss");

        switch (cfg->mode) {
        case TOUR_POINTS_WDL:
                if (!points_value_ok(cfg->win))
                        return points_fail(ret_err, "must be finite and within ±1e6", "win");
                if (!points_value_ok(cfg->draw))
                        return points_fail(ret_err, "must be finite and within ±1e6", "draw");
                if (!points_value_ok(cfg->loss))
                        return points_fail(ret_err, "must be finite and within ±1e6", "loss");
                if (cfg->win < cfg->draw)
                        return points_fail(ret_err, "must not exceed the points of a win", "draw");
                if (cfg->draw < cfg->loss)
                        return points_fail(ret_err, "must not exceed the points of a draw", "loss");
                return 0;
        case TOUR_POINTS_PLACEMENT:
                if (cfg->rule == TOUR_POINTS_N_MINUS_RANK)
                        return 0;
                if (cfg->rule != TOUR_POINTS_TABLE)
                        return points_fail(ret_err, "must be n_minus_rank or table", "placement.rule");
                for (int n = 1; n <= TOUR_MAX_SEATS; n++) {
                        if (!cfg->table_set[n])
                                continue;
                        for (int p = 0; p < n; p++) {
                                if (!points_value_ok(cfg->table[n][p]))
                                        return points_fail(ret_err, "must be finite and within ±1e6",
                                                           "placement.table[%d][%d]", n, p + 1);
                                if (p > 0 && cfg->table[n][p] > cfg->table[n][p - 1])
                                        return points_fail(ret_err, "must not exceed the points of the place above",
                                                           "placement.table[%d][%d]", n, p + 1);
                        }
                }
                return 0;
        }
        return points_fail(ret_err, "must be wdl or placement", "mode");
}

int tour_points_check_result(const struct tour_result *res, struct tour_points_error *ret_err) {
        int n_forfeit = 0, worst_played = 0, best_forfeit = TOUR_MAX_SEATS + 1;

        if (!res)
                return points_fail(ret_err, "is NULL", "result");
        if (res->n < 1 || res->n > TOUR_MAX_SEATS)
                return points_fail(ret_err, "must be 1..16", "n");
        if (res->round < 1)
                return points_fail(ret_err, "must be 1 or more", "round");
        for (int i = 0; i < res->n; i++) {
                int better = 0;

                if (res->entrant[i] < 0)
                        return points_fail(ret_err, "must be an entrant (0 or more)", "entrant[%d]", i);
                for (int j = 0; j < i; j++)
                        if (res->entrant[j] == res->entrant[i])
                                return points_fail(ret_err, "sits twice at the table", "entrant[%d]", i);
                if (!isfinite(res->score[i]))
                        return points_fail(ret_err, "must be finite", "score[%d]", i);
                if (res->rank[i] < 1 || res->rank[i] > res->n)
                        return points_fail(ret_err, "must be 1..n", "rank[%d]", i);
                for (int j = 0; j < res->n; j++)
                        better += res->rank[j] < res->rank[i];
                /* competition ranking: a rank is one more than the count above it */
                if (better != res->rank[i] - 1)
                        return points_fail(ret_err, "is not a competition ranking (1, 1, 3, ...)",
                                           "rank[%d]", i);
                if (res->forfeit[i]) {
                        n_forfeit++;
                        if (res->rank[i] < best_forfeit)
                                best_forfeit = res->rank[i];
                } else if (res->rank[i] > worst_played) {
                        worst_played = res->rank[i];
                }
        }
        /* a forfeit is a loss: it cannot share a place with, or beat, a player
         * who played (a double forfeit has no player to compare with) */
        if (n_forfeit > 0 && n_forfeit < res->n && best_forfeit <= worst_played)
                return points_fail(ret_err, "a forfeiting participant must rank below every one who played",
                                   "forfeit");
        return 0;
}

int tour_points_outcome(const struct tour_result *res, int i) {
        int firsts = 0;

        if (!res || i < 0 || i >= res->n || res->n > TOUR_MAX_SEATS)
                return -EINVAL;
        if (res->forfeit[i] || res->rank[i] != 1)
                return TOUR_POINTS_LOST;
        for (int j = 0; j < res->n; j++)
                firsts += res->rank[j] == 1 && !res->forfeit[j];
        return firsts == 1 ? TOUR_POINTS_WON : TOUR_POINTS_DREW;
}

/* The points of place p (1-based) at a table of n under a validated
 * PLACEMENT config whose table for n exists. */
static double points_of_place(const struct tour_points_config *cfg, int n, int p) {
        if (cfg->rule == TOUR_POINTS_N_MINUS_RANK)
                return (double) (n - p);
        return cfg->table[n][p - 1];
}

int tour_points_award(const struct tour_points_config *cfg, const struct tour_result *res,
                      double *ret_points, struct tour_points_error *ret_err) {
        int r;

        if (!ret_points)
                return points_fail(ret_err, "is NULL", "ret_points");
        if ((r = tour_points_validate(cfg, ret_err)) < 0)
                return r;
        if ((r = tour_points_check_result(res, ret_err)) < 0)
                return r;
        if (cfg->mode == TOUR_POINTS_PLACEMENT && cfg->rule == TOUR_POINTS_TABLE && !cfg->table_set[res->n])
                return points_fail(ret_err, "has no table for this many players", "placement.table[%d]", res->n);

        for (int i = 0; i < res->n; i++) {
                int tied = 0;
                double sum = 0.0;

                if (res->forfeit[i]) {
                        ret_points[i] = cfg->forfeit_loss;
                        continue;
                }
                if (cfg->mode == TOUR_POINTS_WDL) {
                        switch (tour_points_outcome(res, i)) {
                        case TOUR_POINTS_WON:
                                ret_points[i] = cfg->win;
                                break;
                        case TOUR_POINTS_DREW:
                                ret_points[i] = cfg->draw;
                                break;
                        default:
                                ret_points[i] = cfg->loss;
                                break;
                        }
                        continue;
                }
                for (int j = 0; j < res->n; j++)
                        tied += res->rank[j] == res->rank[i];
                /* the checked ranking guarantees places rank..rank+tied−1 <= n */
                for (int p = res->rank[i]; p < res->rank[i] + tied; p++)
                        sum += points_of_place(cfg, res->n, p);
                ret_points[i] = sum / tied;
        }
        return res->n;
}
