/* store/rating_reads.c — see ratings.h: what the loop thread reads of the
 * stored rating tables, through the daemon's asynchronous store.  Nothing
 * here computes a rating: a read sees the last table a worker committed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/ratings.h"
#include "store/rows.h"

/* A timestamptz as RFC 3339 UTC text (api/tournaments.h's TOUR_TIME). */
#define RFC3339(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

#define BOARD_COLUMNS \
        "r.player_id, p.name, p.club, r.mu, r.sigma, r.games, r.g2_rating, r.g2_rd, r.g2_volatility, r.g2_games"

int store_ratings_board(struct store *s, const char *game, const char *table_id, bool glicko2, store_result_fn cb,
                        void *userdata) {
        const char *p[] = { table_id ? table_id : game, glicko2 ? "true" : "false" };

        return store_query(s,
                           table_id ? "SELECT " BOARD_COLUMNS " FROM season_ratings r JOIN players p ON p.id = r.player_id "
                                      "WHERE r.table_id = $1::bigint AND (NOT $2::boolean OR r.g2_games > 0)"
                                    : "SELECT " BOARD_COLUMNS " FROM ratings r JOIN players p ON p.id = r.player_id "
                                      "WHERE r.game = $1 AND (NOT $2::boolean OR r.g2_games > 0)",
                           2, p, cb, userdata);
}

void store_ratings_board_row(const PGresult *res, int i, struct store_rating_row *ret) {
        /* PostgreSQL prints a double with the fewest digits that read back
         * as the same double (extra_float_digits 1, its default since 12),
         * so strtod gives back the stored bits. */
        *ret = (struct store_rating_row) {
                .player = strtoll(PQgetvalue(res, i, 0), NULL, 10),
                .mu = strtod(PQgetvalue(res, i, 3), NULL),
                .sigma = strtod(PQgetvalue(res, i, 4), NULL),
                .games = (int32_t) strtol(PQgetvalue(res, i, 5), NULL, 10),
                .g2_rating = strtod(PQgetvalue(res, i, 6), NULL),
                .g2_rd = strtod(PQgetvalue(res, i, 7), NULL),
                .g2_volatility = strtod(PQgetvalue(res, i, 8), NULL),
                .g2_games = (int32_t) strtol(PQgetvalue(res, i, 9), NULL, 10),
        };
}

int store_ratings_season(struct store *s, const char *game, const char *from, const char *to, store_result_fn cb,
                         void *userdata) {
        const char *p[] = { game, from, to };

        return store_query(s,
                           "SELECT id, ready FROM rating_tables WHERE game = $1 "
                           "AND season_from IS NOT DISTINCT FROM $2::date AND season_to IS NOT DISTINCT FROM $3::date",
                           3, p, cb, userdata);
}

/* One system's entries of player p, with the tournament of each match
 * (an entry whose match is gone, until the recompute that follows its
 * deletion, is not shown). */
#define HISTORY_OF(table, system, cols, names, b3, a3) \
        "SELECT h.game, '" system "'::text AS system, u.m AS match, s.tournament_id, u.at, u.b1, u.b2, " b3 " AS b3, " \
        "       u.a1, u.a2, " a3 " AS a3 " \
        "FROM " table " h CROSS JOIN LATERAL unnest(" cols ") AS u(" names ") " \
        "JOIN stage_matches m ON m.id = u.m JOIN stages s ON s.id = m.stage_id " \
        "WHERE h.player_id = p.id AND ($2::text IS NULL OR h.game = $2) AND ($3::text IS NULL OR $3 = '" system "')"

int store_ratings_history(struct store *s, const char *player, const char *game, const char *system,
                          store_result_fn cb, void *userdata) {
        const char *p[] = { player, game, system };

        return store_query(s,
                           "SELECT x.game, x.system, x.match, x.tournament_id, " RFC3339("x.at") ", "
                           "       x.b1, x.b2, x.b3, x.a1, x.a2, x.a3 "
                           "FROM players p LEFT JOIN LATERAL ("
                           HISTORY_OF("rating_history_openskill", "openskill",
                                      "h.stage_match_ids, h.ats, h.mu_before, h.sigma_before, h.mu, h.sigma",
                                      "m, at, b1, b2, a1, a2", "NULL::float8", "NULL::float8")
                           " UNION ALL "
                           HISTORY_OF("rating_history_glicko2", "glicko2",
                                      "h.stage_match_ids, h.ats, h.rating_before, h.rd_before, h.volatility_before, "
                                      "h.rating, h.rd, h.volatility",
                                      "m, at, b1, b2, b3, a1, a2, a3", "u.b3", "u.a3")
                           ") x ON true WHERE p.id = $1::bigint ORDER BY x.at, x.match, x.system",
                           3, p, cb, userdata);
}

/* ---- a player's ratings (store_ratings_of_players) -------------------------- */

struct of_players {
        struct store *store;
        store_player_ratings_fn cb;
        void *userdata;
};

static void on_of_players(void *userdata, const PGresult *res, const char *error) {
        struct of_players *c = userdata;
        struct store_player_rating *rows;
        struct store_error e;
        int n;

        rows = store_rows_new(c->store, res, sizeof *rows, &n, &e, &error);
        if (!rows) {
                c->cb(c->userdata, NULL, 0, &e, error);
                free(c);
                return;
        }
        for (int i = 0; i < n; i++) {
                rows[i].game = PQgetvalue(res, i, 1);
                store_ratings_board_row(res, i, &rows[i].rating);       /* player in column 0, the rest from 3 */
        }
        c->cb(c->userdata, rows, (size_t) n, NULL, NULL);
        free(rows);
        free(c);
}

int store_ratings_of_players(struct store *s, const int64_t *players, size_t n, store_player_ratings_fn cb,
                             void *userdata) {
        /* "{1,2,3}": each id at most 20 digits and a comma, then the braces */
        char *ids = malloc(n * 21 + 3), *w = ids;
        struct of_players *c = calloc(1, sizeof *c);
        int r = -ENOMEM;

        if (ids && c) {
                *w++ = '{';
                for (size_t i = 0; i < n; i++)
                        w += sprintf(w, "%s%" PRId64, i ? "," : "", players[i]);
                strcpy(w, "}");
                *c = (struct of_players) { .store = s, .cb = cb, .userdata = userdata };
                const char *p[] = { ids };
                /* The columns of a board (store_ratings_board_row), the
                 * game in the place of the name. */
                r = store_query(s,
                                "SELECT r.player_id, r.game, NULL, r.mu, r.sigma, r.games, r.g2_rating, r.g2_rd, "
                                "       r.g2_volatility, r.g2_games "
                                "FROM ratings r WHERE r.player_id = ANY ($1::bigint[]) ORDER BY r.player_id, r.game",
                                1, p, on_of_players, c);
        }
        if (r < 0)
                free(c);
        free(ids);
        return r;
}
