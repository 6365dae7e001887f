/* api/ratings.c — ratings and leaderboards.
 *
 * Every player has, per game, an OpenSkill (Weng-Lin Plackett-Luce) rating
 * from every tournament match, and a Glicko-2 rating from the duels
 * (docs/ratings.md).  The rating worker keeps the stored tables
 * (organiser/ratings.h): the game's all-time table and history, and the
 * seasons asked for.  A read here only reads them (store/ratings.h), and
 * never computes a rating: GET /v1/leaderboards/{game} and a player's
 * history answer from the last table the worker committed.  A season's
 * table that is not computed yet is asked of the worker; the request waits
 * for it up to RATINGS_SEASON_WAIT_MS, and is then answered 503 with
 * Retry-After while the worker goes on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/league.h"
#include "api/sse.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "engine/engine.h"
#include "organiser/ratings.h"
#include "store/ratings.h"
#include "store/store.h"
#include "tournament/glicko2.h"
#include "tournament/openskill.h"

/* How long a season's first reader waits for its table: a season of a
 * club's results is computed in well under this; one of a million results
 * takes a few seconds (make bench), and its reader is told to come back. */
#define RATINGS_SEASON_WAIT_MS          2000u
/* Retry-After of a season still being computed, in seconds. */
#define RATINGS_SEASON_RETRY_S          2u

static json_t *os_json(const struct tour_os_rating *x) {
        return json_pack("{s:f, s:f, s:f}", "mu", x->mu, "sigma", x->sigma, "ordinal", tour_os_ordinal(x));
}

static json_t *g2_json(const struct tour_glicko2_rating *x) {
        return json_pack("{s:f, s:f, s:f}", "rating", x->rating, "rd", x->rd, "volatility", x->vol);
}

static void params_of(const struct api_deps *deps, struct tour_os_params *os, struct tour_glicko2_params *g2) {
        if (deps->rating_os)
                *os = *deps->rating_os;
        else
                tour_os_params_default(os);
        if (deps->rating_g2)
                *g2 = *deps->rating_g2;
        else
                tour_glicko2_params_default(g2);
}

void api_ratings_changed(struct sse_hub *hub, struct api_league *league, const char *game) {
        char topic[80];

        snprintf(topic, sizeof topic, "ratings/%s", game);
        api_publish_shared(hub, league, topic, "ratings_changed",
                           json_pack("{s:s, s:s}", "kind", "ratings_changed", "game", game));
}

/* ---- GET /v1/players/{id}/ratings ------------------------------------------------ */

/* The rating history: one item per rated match and system, oldest first,
 * with the rating before and after (the worker's history rows). */
static void on_history(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        json_t *items;

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the rating history failed: %s",
                                  error);
                return;
        }
        if (PQntuples(res) == 0) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no player %s", route_param(&req->match, "id"));
                return;
        }
        items = json_array();
        for (int i = 0; i < PQntuples(res); i++) {
                double v[6];
                json_t *before, *after;

                if (PQgetisnull(res, i, 0))
                        continue;       /* a player without a rated match */
                for (int k = 0; k < 6; k++)
                        v[k] = PQgetisnull(res, i, 5 + k) ? 0 : strtod(PQgetvalue(res, i, 5 + k), NULL);
                if (strcmp(PQgetvalue(res, i, 1), "openskill") == 0) {
                        before = os_json(&(struct tour_os_rating) { v[0], v[1] });
                        after = os_json(&(struct tour_os_rating) { v[3], v[4] });
                } else {
                        before = g2_json(&(struct tour_glicko2_rating) { v[0], v[1], v[2] });
                        after = g2_json(&(struct tour_glicko2_rating) { v[3], v[4], v[5] });
                }
                json_array_append_new(items, json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:s}", "game",
                                                       PQgetvalue(res, i, 0), "system", PQgetvalue(res, i, 1),
                                                       "match", (json_int_t) strtoll(PQgetvalue(res, i, 2), NULL, 10),
                                                       "tournament",
                                                       (json_int_t) strtoll(PQgetvalue(res, i, 3), NULL, 10),
                                                       "before", before, "after", after, "at", PQgetvalue(res, i, 4)));
        }
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

void handle_player_ratings(struct api_request *req) {
        struct api_query q = api_request_query(req);
        struct query_ratings qr;
        json_t *problem;
        long long id;
        int r;

        struct store *store = api_read_store(req);

        if (!id_param(req, "id", &id))
                return;
        if (query_ratings(&q, &qr, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        r = store_ratings_history(store, route_param(&req->match, "id"), qr.game, qr.system, on_history,
                                  req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- GET /v1/leaderboards/{game} ------------------------------------------------ */

struct board_ctx {
        struct api_request *req;
        char game[STORE_RATING_GAME_MAX];
        bool glicko2;
        const char *from, *to;          /* the request's, while it lives */
};

/* The order of the board: rating, best first, then player id. */
static struct board_sort {
        const struct store_rating_row *rows;
        bool glicko2;
} sort_ctx;

static int cmp_desc(double a, double b) {
        return a < b ? 1 : a > b ? -1 : 0;
}

static int by_rating(const void *a, const void *b) {
        const struct store_rating_row *x = &sort_ctx.rows[*(const int *) a], *y = &sort_ctx.rows[*(const int *) b];
        struct tour_os_rating ox = { x->mu, x->sigma }, oy = { y->mu, y->sigma };
        int c = sort_ctx.glicko2 ? cmp_desc(x->g2_rating, y->g2_rating)
                                 : cmp_desc(tour_os_ordinal(&ox), tour_os_ordinal(&oy));

        return c ? c : (x->player > y->player) - (x->player < y->player);
}

static void reply_board(struct board_ctx *c, json_t *items) {
        api_reply_json(c->req, MHD_HTTP_OK, json_pack("{s:s, s:s, s:o}", "game", c->game, "system",
                                                      c->glicko2 ? "glicko2" : "openskill", "items", items));
        free(c);
}

static void on_board(void *userdata, const PGresult *res, const char *error) {
        struct board_ctx *c = userdata;
        struct tour_os_params osp;
        struct tour_glicko2_params g2p;
        int n = res ? PQntuples(res) : 0;

        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the ratings failed: %s", error);
                free(c);
                return;
        }
        struct store_rating_row *rows = calloc((size_t) n + 1, sizeof *rows);
        int *order = calloc((size_t) n + 1, sizeof *order);
        if (!rows || !order) {
                free(rows);
                free(order);
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                free(c);
                return;
        }
        for (int i = 0; i < n; i++) {
                store_ratings_board_row(res, i, &rows[i]);
                order[i] = i;
        }
        sort_ctx = (struct board_sort) { .rows = rows, .glicko2 = c->glicko2 };
        qsort(order, (size_t) n, sizeof *order, by_rating);
        params_of(c->req->deps, &osp, &g2p);
        json_t *items = json_array();
        for (int k = 0; k < n; k++) {
                const struct store_rating_row *r = &rows[order[k]];
                struct tour_os_rating os = { r->mu, r->sigma };
                struct tour_glicko2_rating g2 = { r->g2_rating, r->g2_rd, r->g2_volatility };
                bool provisional = c->glicko2 ? tour_glicko2_provisional(&g2p, &g2, (unsigned) r->g2_games)
                                              : tour_os_provisional(&osp, &os, (unsigned) r->games);
                int i = order[k];

                json_array_append_new(items, json_pack("{s:i, s:I, s:s, s:s?, s:o, s:i, s:b}", "rank", k + 1, "player",
                                                       (json_int_t) r->player, "name", PQgetvalue(res, i, 1), "club",
                                                       PQgetisnull(res, i, 2) ? NULL : PQgetvalue(res, i, 2),
                                                       "rating", c->glicko2 ? g2_json(&g2) : os_json(&os), "games",
                                                       c->glicko2 ? r->g2_games : r->games, "provisional",
                                                       provisional));
        }
        free(rows);
        free(order);
        reply_board(c, items);
}

static void read_board(struct board_ctx *c, const char *table) {
        int r = store_ratings_board(api_read_store(c->req), c->game, table, c->glicko2, on_board, c);

        if (r < 0) {
                reply_store_error(c->req, r);
                free(c);
        }
}

static void on_season_state(void *userdata, enum org_season_state state, int64_t table) {
        struct board_ctx *c = userdata;
        char table_s[24];

        switch (state) {
        case ORG_SEASON_READY:
                /* the worker has just written it, on the primary */
                api_read_primary(c->req);
                snprintf(table_s, sizeof table_s, "%" PRId64, table);
                read_board(c, table_s);
                return;
        case ORG_SEASON_BUSY:
        case ORG_SEASON_GONE:
                api_reply_unavailable(c->req, RATINGS_SEASON_RETRY_S, "the ratings of this season are being "
                                      "computed from its results; ask again in a few seconds");
                break;
        case ORG_SEASON_FAILED:
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the ratings of this season could not "
                                  "be computed (the daemon's log says why)");
                break;
        }
        free(c);
}

static void on_season_row(void *userdata, const PGresult *res, const char *error) {
        struct board_ctx *c = userdata;
        int r;

        if (!res) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the ratings failed: %s", error);
                free(c);
                return;
        }
        if (PQntuples(res) == 1 && PQgetvalue(res, 0, 1)[0] == 't') {
                read_board(c, PQgetvalue(res, 0, 0));
                return;
        }
        if (!c->req->deps->ratings) {
                api_reply_unavailable(c->req, RATINGS_SEASON_RETRY_S, "this daemon keeps no season ratings");
                free(c);
                return;
        }
        r = org_ratings_season(c->req->deps->ratings, c->game, c->from, c->to, RATINGS_SEASON_WAIT_MS,
                               on_season_state, c);
        if (r < 0) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the season's ratings cannot be asked "
                                  "for: %s", strerror(-r));
                free(c);
        }
}

void handle_leaderboard(struct api_request *req) {
        const char *game = route_param(&req->match, "game");
        struct api_query q = api_request_query(req);
        struct query_leaderboard ql;
        struct board_ctx *c;
        json_t *problem;
        int r;

        struct store *store = api_read_store(req);

        if (!eng_game_find(game)) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no game %s; GET /v1/games lists them", game);
                return;
        }
        if (query_leaderboard(&q, &ql, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        c->req = req;
        snprintf(c->game, sizeof c->game, "%s", game);
        c->glicko2 = ql.glicko2;
        c->from = ql.from;
        c->to = ql.to;
        if (!ql.from && !ql.to) {
                read_board(c, NULL);
                return;
        }
        /* an empty window (dates are YYYY-MM-DD: their text sorts as they do) */
        if (ql.from && ql.to && strcmp(ql.from, ql.to) >= 0) {
                reply_board(c, json_array());
                return;
        }
        r = store_ratings_season(store, game, ql.from, ql.to, on_season_row, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}
