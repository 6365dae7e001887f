/* store/ratings.h — the SQL of the ratings (migrations/0004 and 0008;
 * docs/ratings.md, "How the tables are kept").
 *
 * Two callers, two kinds of functions.
 *
 * The rating worker (organiser/ratings.h) runs on a thread of its own with
 * a blocking connection of its own, struct store_ratings: it reads results
 * in the order key's order and the stored states of players, and writes a
 * table (its rows, its history, its place in the order) in one transaction
 * that it opens and ends itself.  Nothing of it runs on the loop thread,
 * and nothing on the loop thread touches it but store_ratings_cancel().
 *
 * The loop thread reads the stored tables through the daemon's asynchronous
 * store (store_query): a leaderboard's rows, a season table's state, a
 * player's history.  Those never compute anything; a reader sees the last
 * table a worker's transaction committed.
 *
 * The order key.  A result's place is (recorded_at, id): when it was first
 * recorded, then its stage match id.  A correction changes a result, not
 * its place.  Times cross this interface as microseconds since the Unix
 * epoch (UTC), exactly as PostgreSQL keeps timestamptz.
 *
 * Errors of the worker's functions: 0 or a count on success; -ENOTCONN when
 * the connection is lost (open a new one), -EIO when the server refused a
 * statement, -ENOMEM; the words are in store_ratings_error() until the next
 * call.  After any failure inside a transaction, roll it back.
 */
#ifndef ARBITER_STORE_RATINGS_H
#define ARBITER_STORE_RATINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* A result with more seats than a match may have (TOUR_MAX_SEATS) reads as
 * malformed. */
#define STORE_RATING_SEATS      16
/* Room for the canonical text of the rating parameters. */
#define STORE_RATING_PARAMS_MAX 512
/* Room for a game's name (engine names are short identifiers). */
#define STORE_RATING_GAME_MAX   64

struct store_rating_key {
        int64_t at_us;                  /* recorded_at */
        int64_t id;                     /* stage match id */
};

/* -1, 0, 1 in the order's order. */
int store_rating_key_cmp(const struct store_rating_key *a, const struct store_rating_key *b);

/* One result as the ratings read it, in seat order. */
struct store_rated_result {
        struct store_rating_key key;
        int n;                          /* seats; -1: malformed (an entry that is not a player, a rank
                                         * and a forfeit flag; more than STORE_RATING_SEATS) */
        int64_t player[STORE_RATING_SEATS];
        int32_t rank[STORE_RATING_SEATS];
        bool forfeit[STORE_RATING_SEATS];
};

/* A player's stored state in one table. */
struct store_rating_row {
        int64_t player;
        double mu, sigma;
        int32_t games;
        double g2_rating, g2_rd, g2_volatility;
        int32_t g2_games;
};

/* One row of rating_tables: a game's all-time table, or a season's. */
struct store_rating_table {
        int64_t id;
        char game[STORE_RATING_GAME_MAX];
        bool season;                    /* false: the all-time table */
        bool has_from, has_to;          /* a season's ends (UTC days); absent: open */
        char from[11], to[11];          /* YYYY-MM-DD, or "" */
        int64_t from_us, to_us;         /* the same ends as times, when present */
        char params[STORE_RATING_PARAMS_MAX];
        bool has_through;               /* false: no result taken yet */
        struct store_rating_key through;
        int64_t results;                /* results read up to through (rated or skipped) */
        bool ready;
};

/* What one result did to one player, for the history. */
struct store_history_os {
        int64_t match, at_us;
        double mu_before, sigma_before, mu, sigma;
};
struct store_history_g2 {
        int64_t match, at_us;
        double rating_before, rd_before, volatility_before, rating, rd, volatility;
};
/* A player's new history entries, in the order key's order. */
struct store_player_history {
        int64_t player;
        size_t n_os, n_g2;
        const struct store_history_os *os;
        const struct store_history_g2 *g2;
};

/* ---- the worker's connection ------------------------------------------------ */

struct store_ratings;

/* Connects (blocking) with dsn; every statement may run statement_timeout_ms
 * (0: no limit).  On failure *ret is NULL and err says why. */
int store_ratings_open(const char *dsn, unsigned statement_timeout_ms, struct store_ratings **ret, char *err,
                       size_t len);
void store_ratings_close(struct store_ratings *c);      /* accepts NULL */
/* Any thread: asks the server to cancel the statement running now, so that
 * a shutdown need not wait for a long recompute.  Accepts NULL. */
void store_ratings_cancel(struct store_ratings *c);
const char *store_ratings_error(const struct store_ratings *c);

int store_ratings_begin(struct store_ratings *c);
int store_ratings_commit(struct store_ratings *c);
void store_ratings_rollback(struct store_ratings *c);

/* The channel of the results' trigger (migrations/0008), which the worker
 * LISTENs on through the daemon's store: "<game> <stage match id>"; and of
 * what a standing-by worker asks of the active one (organiser/ratings.h,
 * "One active worker"): "<game> full", "<game> season <from> <to>". */
#define STORE_RATINGS_CHANNEL "arbiter_ratings"

/* The worker's lock: a session advisory lock, so that one worker at a time
 * rates the database's games, whichever daemons share it (organiser/
 * ratings.h, "One active worker").  1 when this connection has taken it, 0
 * when another session holds it; the connection's end lets it go.
 * *ret_pid is this connection's server pid.  previous_pid (0: none) is the
 * server pid of the caller's own earlier connection: should that session
 * still hold the lock (a link cut that the server has not noticed yet), it
 * is ended first (pg_terminate_backend, waiting up to
 * STORE_RATINGS_TERMINATE_MS) and the lock tried again. */
#define STORE_RATINGS_TERMINATE_MS 5000
int store_ratings_try_lock(struct store_ratings *c, int previous_pid, int *ret_pid);
/* NOTIFY STORE_RATINGS_CHANNEL with payload (committed at once, outside
 * any transaction): a request for the active worker. */
int store_ratings_ask(struct store_ratings *c, const char *payload);

/* The games that have a result or a table: *ret_games a malloc'd array of
 * malloc'd names (free both).  Returns the count. */
int store_ratings_games(struct store_ratings *c, char ***ret_games);

/* The tables of game, locked until the transaction ends (rows of other
 * callers wait; there are none but a second worker by mistake), all-time
 * first then seasons oldest first: *ret malloc'd.  Returns the count. */
int store_ratings_tables(struct store_ratings *c, const char *game, struct store_rating_table **ret);
/* Creates the table of game for a season (from, to: YYYY-MM-DD or NULL;
 * both NULL: all time) unless it exists, not ready, with params.  1 if it
 * was created, 0 if it existed. */
int store_ratings_table_add(struct store_ratings *c, const char *game, const char *from, const char *to,
                            const char *params);
/* Deletes the oldest seasons of game beyond keep (the all-time table
 * stays).  Returns how many went. */
int store_ratings_seasons_trim(struct store_ratings *c, const char *game, unsigned keep);

/* The marks (rating_dirty) of game: *ret_any whether there are any, then
 * the earliest place they make stale (*ret_from_start when one says from
 * the start, else *ret_from) and *ret_ids the marks read (malloc'd text),
 * for store_ratings_dirty_clear, which deletes those and no mark written
 * since.
 * store_ratings_dirty_unknown turns each mark of a result whose game is
 * unknown (its tournament deleted with it) into a mark "from the start" for
 * every game that has a table, and returns those games (as
 * store_ratings_games). */
int store_ratings_dirty(struct store_ratings *c, const char *game, bool *ret_any, bool *ret_from_start,
                        struct store_rating_key *ret_from, char **ret_ids);
int store_ratings_dirty_unknown(struct store_ratings *c, char ***ret_games);
int store_ratings_dirty_clear(struct store_ratings *c, const char *ids);

/* One result by stage match id: 1 and *ret when it is a done result of
 * game, else 0. */
int store_ratings_result(struct store_ratings *c, const char *game, int64_t id, struct store_rated_result *ret);
/* How many done results of table t's game (and window) the order has up
 * to through, included (NULL: 0), or -errno. */
int64_t store_ratings_count(struct store_ratings *c, const struct store_rating_table *t,
                            const struct store_rating_key *through);

/* Reads the done results of table t's game (and window) after key after
 * (NULL: all), in the order: open, then next until it gives 0, then close.
 * next fills buf[0..cap) and returns the count. */
int store_ratings_results_open(struct store_ratings *c, const struct store_rating_table *t,
                               const struct store_rating_key *after);
int store_ratings_results_next(struct store_ratings *c, struct store_rated_result *buf, size_t cap);
int store_ratings_results_close(struct store_ratings *c);

/* Whether result id is in the OpenSkill history of player in game: 1 or 0. */
int store_ratings_in_history(struct store_ratings *c, const char *game, int64_t player, int64_t id);

/* The stored rows of players[0..n) in table t: ret[i] for players[i],
 * found[i] false where there is none (a new player).  Returns how many were
 * found. */
int store_ratings_rows(struct store_ratings *c, const struct store_rating_table *t, const int64_t *players,
                       size_t n, struct store_rating_row *ret, bool *found);
/* Writes rows[0..n) of table t: replace deletes the table's other rows
 * first, else each row is inserted or updated. */
int store_ratings_rows_write(struct store_ratings *c, const struct store_rating_table *t,
                             const struct store_rating_row *rows, size_t n, bool replace);

/* Cuts game's history (both systems) from place from on (NULL: all of it). */
int store_ratings_history_cut(struct store_ratings *c, const char *game, const struct store_rating_key *from);
/* Appends each player's entries to their history in game; fresh: the
 * game's history was just cut whole, and the rows go straight in. */
int store_ratings_history_append(struct store_ratings *c, const char *game, const struct store_player_history *h,
                                 size_t n, bool fresh);

/* Records what table t now holds: params, the last result taken (NULL:
 * none), how many results up to there, ready. */
int store_ratings_table_done(struct store_ratings *c, const struct store_rating_table *t, const char *params,
                             const struct store_rating_key *through, int64_t results);

/* ---- the loop's reads (asynchronous, store_query) ------------------------------
 *
 * Parameters are text; results come to cb as store_query's do (0,
 * -ENOTCONN, -ENOMEM). */

/* One row per player of a table: player, name, club (NULL), mu, sigma,
 * games, g2_rating, g2_rd, g2_volatility, g2_games, in no order.  table_id
 * NULL: the all-time table of game; glicko2: only players with a duel. */
int store_ratings_board(struct store *s, const char *game, const char *table_id, bool glicko2, store_result_fn cb,
                        void *userdata);
/* Parses column 3.. of row i of a board's result. */
void store_ratings_board_row(const PGresult *res, int i, struct store_rating_row *ret);

/* The season table of game from..to (NULL: open): one row (id, ready) or
 * none. */
int store_ratings_season(struct store *s, const char *game, const char *from, const char *to, store_result_fn cb,
                         void *userdata);

/* A player's history: no row when there is no such player; else one row
 * per rated result and system, ordered by the order key then system
 * ("glicko2" before "openskill"), or one row of NULLs when there is none:
 * game, system, match, tournament, at (RFC 3339 UTC), then before and after
 * (mu, sigma, NULL or rating, rd, volatility) as b1, b2, b3, a1, a2, a3.
 * game and system NULL: all. */
int store_ratings_history(struct store *s, const char *player, const char *game, const char *system,
                          store_result_fn cb, void *userdata);

/* The all-time rows of players: what a player's resource shows as its
 * "ratings" (api/players.c; the players' own rows are store/players.h's).
 * Owned by the ratings work, as the rest of this file: what a player shows
 * of its ratings follows the rating tables.  game points into the query's
 * result: valid only during the callback. */
struct store_player_rating {
        const char *game;
        struct store_rating_row rating;         /* rating.player: whose */
};
/* rows[0..n), ordered by player id then game, on success (failure NULL);
 * on failure rows NULL, n 0, failure the server's SQLSTATE and constraint
 * and error the store's words. */
typedef void (*store_player_ratings_fn)(void *userdata, const struct store_player_rating *rows, size_t n,
                                        const struct store_error *failure, const char *error);
/* The rows of players[0..n) in every game's all-time table; a player
 * without any has none.  Returns 0 (cb follows, also for n 0), -ENOTCONN,
 * -ENOMEM. */
int store_ratings_of_players(struct store *s, const int64_t *players, size_t n, store_player_ratings_fn cb,
                             void *userdata);

#endif
