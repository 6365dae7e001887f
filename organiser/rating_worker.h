/* organiser/rating_worker.h — what one job of the rating worker does, on
 * the worker's thread (internal to organiser/ratings.c; the design is in
 * organiser/ratings.h).
 *
 * A job is the work waiting for one game; rw_process() does it on the
 * worker's connection and says what happened.  It reads and writes the
 * database and memory of its own only: it touches nothing of the loop's,
 * and logs nothing (the loop logs the outcome's message).
 */
#ifndef ARBITER_ORGANISER_RATING_WORKER_H
#define ARBITER_ORGANISER_RATING_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/ratings.h"
#include "tournament/ratings.h"

/* A season's ends: YYYY-MM-DD, "" for an open end. */
struct rw_season {
        char from[11], to[11];
};

struct rw_job {
        char game[STORE_RATING_GAME_MAX];
        bool check;                     /* new results, marks */
        bool verify_counts;             /* and whether each table's count still holds (check_all) */
        bool full;                      /* every table from the start */
        int64_t *verify;                /* results heard of: did they come in behind a table's place? */
        size_t n_verify, cap_verify;
        bool want_season;               /* a season asked for */
        struct rw_season season;
        /* asked at this daemon (a recompute, a season's reader), not heard
         * from another's: what a standing-by worker passes on to the
         * active one (organiser/ratings.h, "One active worker") */
        bool here_full, here_season;
};

struct rw_outcome {
        bool changed;                   /* a table was written (committed) */
        bool retry;                     /* the connection failed: keep the job, reconnect */
        bool failed;                    /* the database refused it: the job is dropped */
        bool season_ready;              /* the season asked for is computed ... */
        int64_t season_table;           /* ... and this is its table */
        unsigned steps, recomputes;     /* tables taken a step at a time, recomputed */
        uint64_t results;               /* results the last recompute read ... */
        double seconds;                 /* ... and its time */
        char message[512];              /* for the log (a notice, or a warning when it failed), or "" */
        char detail[256];               /* for the log at info: the last recompute's times, or "" */
};

/* The worker's context, owned by its thread. */
struct rw_context {
        struct store_ratings *conn;     /* NULL: to be opened */
        struct tour_os_params os;
        struct tour_glicko2_params g2;
        char params[STORE_RATING_PARAMS_MAX];   /* their canonical text */
};

/* The canonical text of the parameters that change a rating (not the
 * provisional thresholds): a table computed with others is recomputed. */
void rw_params_text(const struct tour_os_params *os, const struct tour_glicko2_params *g2, char *buf, size_t len);

/* Does job (ctx->conn open).  Never fails: the outcome says what came of it. */
void rw_process(struct rw_context *ctx, const struct rw_job *job, struct rw_outcome *out);

/* The games of marks whose game was unknown, now marked for every game,
 * and every game that has a result or a table (check_all): *ret_games a
 * malloc'd array of malloc'd names.  The count, or -errno with the reason
 * in *out. */
int rw_all_games(struct rw_context *ctx, char ***ret_games, struct rw_outcome *out);

#endif
