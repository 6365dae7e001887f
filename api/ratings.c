/* api/ratings.c — ratings, leaderboards and the caches a result refreshes.
 *
 * Every player has, per game, an OpenSkill (Weng-Lin Plackett-Luce) rating
 * from every tournament match, and a Glicko-2 rating from the duels
 * (docs/ratings.md).  Both are a deterministic recompute over the game's
 * results in the order they were first recorded (a correction changes a
 * result, not its place in that order).  The ratings and rating_history
 * tables are that recompute's cache, rewritten whenever a result of the game
 * is recorded or corrected; GET /v1/leaderboards/{game} recomputes over the
 * results of a season (from, to) or of all time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/sse.h"
#include "api/stage_data.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "engine/engine.h"
#include "store/store.h"
#include "tournament/glicko2.h"
#include "tournament/openskill.h"

/* The done results of game $1 recorded in [$2, $3) (NULL: open), in the
 * order they were recorded, with every player's name and club. */
static const char results_sql[] =
        "SELECT jsonb_build_object('results', (SELECT coalesce(jsonb_agg(jsonb_build_object('m', m.id, "
        "    'at', " TOUR_TIME("m.recorded_at") ", 'result', m.result) ORDER BY m.recorded_at, m.id), '[]'::jsonb) "
        "    FROM stage_matches m JOIN stages s ON s.id = m.stage_id JOIN tournaments t ON t.id = s.tournament_id "
        "    WHERE t.game = $1 AND m.state = 'done' "
        "    AND ($2::date IS NULL OR m.recorded_at >= $2::date::timestamp AT TIME ZONE 'UTC') "
        "    AND ($3::date IS NULL OR m.recorded_at < $3::date::timestamp AT TIME ZONE 'UTC')), "
        "  'players', (SELECT coalesce(jsonb_object_agg(p.id, jsonb_build_object('name', p.name, 'club', p.club, "
        "    'active', p.active)), '{}'::jsonb) FROM players p))";

/* Everyone's ratings after a recompute; players[i] is dense index i. */
struct rated {
        size_t n;
        int64_t *players;
        struct tour_os_rating *os;
        unsigned *os_games;
        struct tour_glicko2_rating *g2;
        unsigned *g2_games;
        json_t *history;                /* [{player, m, system, before, after, at}] or NULL */
        /* for the history callbacks */
        json_t *results;
        const size_t *os_match, *g2_match;      /* recompute index → results index */
};

static void rated_free(struct rated *r) {
        free(r->players);
        free(r->os);
        free(r->os_games);
        free(r->g2);
        free(r->g2_games);
        json_decref(r->history);
        memset(r, 0, sizeof *r);
}

static size_t dense(struct rated *r, int64_t player) {
        for (size_t i = 0; i < r->n; i++)
                if (r->players[i] == player)
                        return i;
        r->players[r->n] = player;
        return r->n++;
}

static json_t *os_json(const struct tour_os_rating *x) {
        return json_pack("{s:f, s:f, s:f}", "mu", x->mu, "sigma", x->sigma, "ordinal", tour_os_ordinal(x));
}

static json_t *g2_json(const struct tour_glicko2_rating *x) {
        return json_pack("{s:f, s:f, s:f}", "rating", x->rating, "rd", x->rd, "volatility", x->vol);
}

static int os_history(const struct tour_os_history *row, void *userdata) {
        struct rated *r = userdata;
        json_t *res = json_array_get(r->results, r->os_match[row->match]);

        json_array_append_new(r->history, json_pack("{s:I, s:O, s:s, s:o, s:o, s:O}", "player",
                                                    (json_int_t) r->players[row->player], "m",
                                                    json_object_get(res, "m"), "system", "openskill", "before",
                                                    os_json(&row->before), "after", os_json(&row->after), "at",
                                                    json_object_get(res, "at")));
        return 0;
}

static int g2_history(const struct tour_glicko2_history *row, void *userdata) {
        struct rated *r = userdata;
        json_t *res = json_array_get(r->results, r->g2_match[row->match]);

        json_array_append_new(r->history, json_pack("{s:I, s:O, s:s, s:o, s:o, s:O}", "player",
                                                    (json_int_t) r->players[row->player], "m",
                                                    json_object_get(res, "m"), "system", "glicko2", "before",
                                                    g2_json(&row->before), "after", g2_json(&row->after), "at",
                                                    json_object_get(res, "at")));
        return 0;
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

/* Recomputes both systems over results ([{m, at, result}]).  0 or -errno
 * with err. */
static int recompute(const struct api_deps *deps, json_t *results, bool want_history, struct rated *ret, char *err,
                     size_t len) {
        size_t n = json_array_size(results), n_duels = 0, i, k;
        struct tour_result *rs = calloc(n + 1, sizeof *rs);
        struct tour_rating_match *all = calloc(n + 1, sizeof *all), *duels = calloc(n + 1, sizeof *duels);
        size_t *os_match = calloc(n + 1, sizeof *os_match), *g2_match = calloc(n + 1, sizeof *g2_match);
        struct tour_os_params osp;
        struct tour_glicko2_params g2p;
        json_t *it, *p;
        int r = -ENOMEM;

        memset(ret, 0, sizeof *ret);
        ret->players = calloc(n * TOUR_MAX_SEATS + 1, sizeof *ret->players);
        if (!rs || !all || !duels || !os_match || !g2_match || !ret->players)
                goto done;
        json_array_foreach(results, i, it) {
                json_t *result = json_object_get(it, "result");
                struct tour_result *x = &rs[i];

                x->round = 1;
                x->n = (int) json_array_size(result);
                if (x->n < 1 || x->n > TOUR_MAX_SEATS) {
                        snprintf(err, len, "stage match %lld has a malformed result",
                                 (long long) json_integer_value(json_object_get(it, "m")));
                        r = -EINVAL;
                        goto done;
                }
                json_array_foreach(result, k, p) {
                        x->entrant[k] = (int32_t) dense(ret, json_integer_value(json_object_get(p, "player")));
                        x->rank[k] = (int) json_integer_value(json_object_get(p, "rank"));
                        x->forfeit[k] = json_is_true(json_object_get(p, "forfeit"));
                }
                all[i] = (struct tour_rating_match) { .r = x };
                os_match[i] = i;
                if (x->n == 2) {
                        g2_match[n_duels] = i;
                        duels[n_duels++] = (struct tour_rating_match) { .r = x };
                }
        }
        ret->os = calloc(ret->n + 1, sizeof *ret->os);
        ret->os_games = calloc(ret->n + 1, sizeof *ret->os_games);
        ret->g2 = calloc(ret->n + 1, sizeof *ret->g2);
        ret->g2_games = calloc(ret->n + 1, sizeof *ret->g2_games);
        ret->history = want_history ? json_array() : NULL;
        if (!ret->os || !ret->os_games || !ret->g2 || !ret->g2_games || (want_history && !ret->history))
                goto done;
        ret->results = results;
        ret->os_match = os_match;
        ret->g2_match = g2_match;
        params_of(deps, &osp, &g2p);
        r = tour_os_recompute(&osp, all, n, ret->n, ret->os, ret->os_games, want_history ? os_history : NULL, ret);
        if (r >= 0)
                r = tour_glicko2_recompute(&g2p, duels, n_duels, ret->n, ret->g2, ret->g2_games,
                                           want_history ? g2_history : NULL, ret);
        if (r < 0)
                snprintf(err, len, "the ratings cannot be computed: %s", strerror(-r));
        else
                r = 0;
done:
        if (r == -ENOMEM)
                snprintf(err, len, "out of memory");
        ret->results = NULL;
        ret->os_match = ret->g2_match = NULL;
        free(rs);
        free(all);
        free(duels);
        free(os_match);
        free(g2_match);
        return r;
}

/* ---- the caches -------------------------------------------------------------- */

struct refresh_ctx {
        const struct api_deps *deps;
        int64_t id;
        char game[64];
        json_t *stages;                 /* numbers still to refresh */
        size_t next;
        bool ratings;                   /* the game's ratings too (a result changed) */
};

static void refresh_free(struct refresh_ctx *c) {
        json_decref(c->stages);
        free(c);
}

static void refresh_next_stage(struct refresh_ctx *c);

static void on_cache_written(void *userdata, const PGresult *res, const char *error) {
        (void) userdata;
        if (!res)
                log_warning("a tournament cache could not be written: %s", error);
}

/* A game's ratings were written: "ratings_changed" on topic
 * "ratings/<game>", once the cache a reader would read is there (a read
 * sent after standings_changed could still come before this write). */
struct ratings_written {
        const struct api_deps *deps;
        char game[64];
};

static void on_ratings_written(void *userdata, const PGresult *res, const char *error) {
        struct ratings_written *w = userdata;
        char topic[80];

        if (!res)
                log_warning("the ratings of %s could not be written: %s", w->game, error);
        else if (w->deps->events) {
                snprintf(topic, sizeof topic, "ratings/%s", w->game);
                if (sse_publish(w->deps->events, topic, "ratings_changed",
                                json_pack("{s:s, s:s}", "kind", "ratings_changed", "game", w->game)) < 0)
                        log_warning("the ratings of %s: cannot publish ratings_changed", w->game);
        }
        free(w);
}

static void on_ratings_results(void *userdata, const PGresult *res, const char *error) {
        struct refresh_ctx *c = userdata;
        struct rated rt;
        char err[256];
        json_t *j = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;

        if (!j) {
                log_warning("the ratings of %s could not be read: %s", c->game, error ? error : "not JSON");
                refresh_free(c);
                return;
        }
        if (recompute(c->deps, json_object_get(j, "results"), true, &rt, err, sizeof err) < 0) {
                log_warning("the ratings of %s: %s", c->game, err);
                json_decref(j);
                refresh_free(c);
                return;
        }
        json_t *rows = json_array();
        for (size_t i = 0; i < rt.n; i++)
                json_array_append_new(rows, json_pack("{s:I, s:f, s:f, s:i, s:f, s:f, s:f, s:i}", "player",
                                                      (json_int_t) rt.players[i], "mu", rt.os[i].mu, "sigma",
                                                      rt.os[i].sigma, "games", (int) rt.os_games[i], "g2_rating",
                                                      rt.g2[i].rating, "g2_rd", rt.g2[i].rd, "g2_volatility",
                                                      rt.g2[i].vol, "g2_games", (int) rt.g2_games[i]));
        char *rows_text = json_dumps(rows, JSON_COMPACT), *hist_text = json_dumps(rt.history, JSON_COMPACT);
        json_decref(rows);
        const char *p[] = { c->game, rows_text, hist_text };
        struct ratings_written *w = calloc(1, sizeof *w);

        if (w) {
                w->deps = c->deps;
                snprintf(w->game, sizeof w->game, "%s", c->game);
        }
        int r = rows_text && hist_text && w
                ? store_query(c->deps->store,
                        "WITH x AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(player bigint, mu float8, "
                        "             sigma float8, games int, g2_rating float8, g2_rd float8, g2_volatility float8, "
                        "             g2_games int)), "
                        "     h AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS h(player bigint, m bigint, "
                        "             system text, before jsonb, after jsonb, at timestamptz)), "
                        "     d AS (DELETE FROM ratings WHERE game = $1 AND player_id NOT IN (SELECT player FROM x)), "
                        "     dh AS (DELETE FROM rating_history r WHERE game = $1 AND NOT EXISTS (SELECT 1 FROM h "
                        "            WHERE h.player = r.player_id AND h.m = r.stage_match_id AND h.system = r.system)), "
                        "     i AS (INSERT INTO ratings SELECT $1, player, mu, sigma, games, g2_rating, g2_rd, "
                        "             g2_volatility, g2_games FROM x ON CONFLICT (game, player_id) DO UPDATE SET "
                        "             mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
                        "             g2_rating = excluded.g2_rating, g2_rd = excluded.g2_rd, "
                        "             g2_volatility = excluded.g2_volatility, g2_games = excluded.g2_games) "
                        "INSERT INTO rating_history SELECT $1, player, m, system, before, after, at FROM h "
                        "ON CONFLICT (game, system, player_id, stage_match_id) DO UPDATE SET "
                        "  before = excluded.before, after = excluded.after, at = excluded.at",
                        3, p, on_ratings_written, w)
                : -ENOMEM;
        if (r < 0) {
                log_warning("the ratings of %s could not be written: %s", c->game, strerror(-r));
                free(w);
        }
        free(rows_text);
        free(hist_text);
        rated_free(&rt);
        json_decref(j);
        refresh_free(c);
}

static void refresh_ratings(struct refresh_ctx *c) {
        const char *p[] = { c->game, NULL, NULL };
        int r = store_query(c->deps->store, results_sql, 3, p, on_ratings_results, c);

        if (r < 0) {
                log_warning("the ratings of %s could not be refreshed: %s", c->game, strerror(-r));
                refresh_free(c);
        }
}

static void on_stage_snapshot(void *userdata, const PGresult *res, const char *error) {
        struct refresh_ctx *c = userdata;
        struct stage_data d;
        char err[256];
        json_t *snap = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;

        if (!snap || stage_data_parse(snap, &d, err, sizeof err) < 0) {
                log_warning("the standings of tournament %" PRId64 " could not be refreshed: %s", c->id,
                            snap ? err : error ? error : "no stage");
                json_decref(snap);
                stage_data_free(&d);
                refresh_next_stage(c);
                return;
        }
        json_decref(snap);
        json_t *st = stage_data_standings(&d, err, sizeof err);
        if (st) {
                char *text = json_dumps(st, JSON_COMPACT), stage_s[24];
                snprintf(stage_s, sizeof stage_s, "%" PRId64, d.stage);
                const char *p[] = { stage_s, text };
                if (text && store_query(c->deps->store, "UPDATE stages SET standings = $2::jsonb WHERE id = $1", 2,
                                        p, on_cache_written, NULL) >= 0)
                        tour_event(c->deps, c->id, "standings_changed", json_pack("{s:i}", "stage", d.number));
                free(text);
                json_decref(st);
        } else {
                log_warning("the standings of tournament %" PRId64 " stage %d: %s", c->id, d.number, err);
        }
        if (!c->game[0])
                snprintf(c->game, sizeof c->game, "%s", d.game);
        stage_data_free(&d);
        refresh_next_stage(c);
}

static void refresh_next_stage(struct refresh_ctx *c) {
        char id_s[24], num_s[24];

        if (c->next >= json_array_size(c->stages)) {
                if (c->ratings && c->game[0])
                        refresh_ratings(c);
                else
                        refresh_free(c);
                return;
        }
        snprintf(id_s, sizeof id_s, "%" PRId64, c->id);
        snprintf(num_s, sizeof num_s, "%lld", (long long) json_integer_value(json_array_get(c->stages, c->next++)));
        const char *p[] = { id_s, num_s, NULL };
        if (store_query(c->deps->store, stage_data_sql, 3, p, on_stage_snapshot, c) < 0)
                refresh_free(c);
}

static void on_stage_list(void *userdata, const PGresult *res, const char *error) {
        struct refresh_ctx *c = userdata;

        c->stages = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;
        if (!c->stages) {
                log_warning("tournament %" PRId64 " could not be refreshed: %s", c->id, error ? error : "no stages");
                refresh_free(c);
                return;
        }
        refresh_next_stage(c);
}

void tour_refresh(const struct api_deps *deps, int64_t id, bool ratings) {
        struct refresh_ctx *c = calloc(1, sizeof *c);
        char id_s[24];

        if (!c)
                return;
        c->deps = deps;
        c->id = id;
        c->ratings = ratings;
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        const char *p[] = { id_s };
        if (store_query(deps->store,
                        "SELECT coalesce(jsonb_agg(number ORDER BY number), '[]'::jsonb) FROM stages "
                        "WHERE tournament_id = $1 AND state <> 'pending'", 1, p, on_stage_list, c) < 0)
                free(c);
}

/* ---- results the database records itself --------------------------------------- */

struct watch_ctx {
        const struct api_deps *deps;
};

static void on_finished_row(void *userdata, const PGresult *res, const char *error) {
        const struct api_deps *deps = userdata;
        json_t *j = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;

        if (!j) {
                log_warning("a result recorded by a finished match could not be read: %s", error ? error : "gone");
                return;
        }
        int64_t id = json_integer_value(json_object_get(j, "tournament"));
        tour_event(deps, id, "result_recorded", json_incref(j));
        tour_refresh(deps, id, true);
        json_decref(j);
}

static void on_result_notify(void *userdata, const char *channel, const char *payload) {
        const struct api_deps *deps = userdata;
        const char *p[] = { payload };

        (void) channel;
        if (store_query(deps->store,
                        "SELECT jsonb_build_object('tournament', s.tournament_id, 'match', m.id, 'stage', s.number, "
                        "  'round', m.round, 'result', m.result, 'correction', false, 'runtime_match', m.match_id) "
                        "FROM stage_matches m JOIN stages s ON s.id = m.stage_id WHERE m.id = $1::bigint",
                        1, p, on_finished_row, (void *) deps) < 0)
                log_warning("the result of stage match %s could not be published", payload);
}

int api_tournaments_watch(const struct api_deps *deps) {
        return store_listen(deps->store, "arbiter_results", on_result_notify, (void *) deps);
}

/* ---- GET /v1/leaderboards/{game} ------------------------------------------------ */

struct board_ctx {
        struct api_request *req;
        bool glicko2;
};

static int cmp_desc(double a, double b) {
        return a < b ? 1 : a > b ? -1 : 0;
}

static struct board_sort {
        const struct rated *r;
        bool glicko2;
} sort_ctx;

static int by_rating(const void *a, const void *b) {
        size_t i = *(const size_t *) a, j = *(const size_t *) b;
        const struct rated *r = sort_ctx.r;
        int c = sort_ctx.glicko2 ? cmp_desc(r->g2[i].rating, r->g2[j].rating)
                                 : cmp_desc(tour_os_ordinal(&r->os[i]), tour_os_ordinal(&r->os[j]));

        return c ? c : (r->players[i] > r->players[j]) - (r->players[i] < r->players[j]);
}

static void on_board(void *userdata, const PGresult *res, const char *error) {
        struct board_ctx *c = userdata;
        struct tour_os_params osp;
        struct tour_glicko2_params g2p;
        struct rated rt;
        char err[256];
        json_t *j = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;

        if (!j) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the results failed: %s",
                                  error ? error : "not JSON");
                free(c);
                return;
        }
        if (recompute(c->req->deps, json_object_get(j, "results"), false, &rt, err, sizeof err) < 0) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err);
                json_decref(j);
                free(c);
                return;
        }
        params_of(c->req->deps, &osp, &g2p);
        size_t *order = calloc(rt.n + 1, sizeof *order), n = 0;
        for (size_t i = 0; order && i < rt.n; i++)
                if (!c->glicko2 || rt.g2_games[i] > 0)
                        order[n++] = i;
        sort_ctx = (struct board_sort) { .r = &rt, .glicko2 = c->glicko2 };
        if (order)
                qsort(order, n, sizeof *order, by_rating);
        json_t *items = json_array(), *players = json_object_get(j, "players");
        for (size_t k = 0; order && k < n; k++) {
                size_t i = order[k];
                char key[24];
                snprintf(key, sizeof key, "%" PRId64, rt.players[i]);
                json_t *p = json_object_get(players, key);
                bool provisional = c->glicko2 ? tour_glicko2_provisional(&g2p, &rt.g2[i], rt.g2_games[i])
                                              : tour_os_provisional(&osp, &rt.os[i], rt.os_games[i]);
                json_array_append_new(items, json_pack("{s:i, s:I, s:O?, s:O?, s:o, s:i, s:b}", "rank", (int) k + 1,
                                                       "player", (json_int_t) rt.players[i], "name",
                                                       json_object_get(p, "name"), "club", json_object_get(p, "club"),
                                                       "rating", c->glicko2 ? g2_json(&rt.g2[i]) : os_json(&rt.os[i]),
                                                       "games", (int) (c->glicko2 ? rt.g2_games[i] : rt.os_games[i]),
                                                       "provisional", provisional));
        }
        free(order);
        api_reply_json(c->req, MHD_HTTP_OK,
                       json_pack("{s:s, s:s, s:o}", "game", route_param(&c->req->match, "game"), "system",
                                 c->glicko2 ? "glicko2" : "openskill", "items", items));
        rated_free(&rt);
        json_decref(j);
        free(c);
}

void handle_leaderboard(struct api_request *req) {
        const char *game = route_param(&req->match, "game");
        struct api_query q = api_request_query(req);
        struct query_leaderboard ql;
        struct board_ctx *c;
        json_t *problem;
        int r;

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
        c->glicko2 = ql.glicko2;
        const char *p[] = { game, ql.from, ql.to };
        r = store_query(req->deps->store, results_sql, 3, p, on_board, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}
