/* organiser/ratings.h — the refresh of every game's ratings: what a
 * recorded, corrected or deleted result sets off (docs/ratings.md, "How
 * the tables are kept"; docs/architecture.md, "The event loop").
 *
 * A game's ratings are its results applied one at a time in the order key's
 * order (store/ratings.h): recorded_at, then id.  The tables that hold them
 * (the game's all-time ratings with every player's history, and the
 * seasons a reader asked for) are kept by a worker: one thread of its own
 * with a blocking database connection of its own, so that nothing of a
 * rating's computation, nor the reading of a million results, runs on the
 * loop thread.  The loop thread only hands the worker what happened and
 * hears back when a table was written.
 *
 * What the worker does for a game, in one transaction:
 *   - a new result after the table's place in the order: one step
 *     (tournament/ratings.h) from the stored states of its players, its
 *     rows, history entries and the table's new place written together;
 *   - a result that changed, went, or came in behind the table's place
 *     (two results recorded in the same instant on two connections): the
 *     table is recomputed from that result's place on, every result
 *     replayed in memory from the start and what follows that place
 *     written anew (the history before it stays);
 *   - new rating parameters, POST .../recompute, a first start: the
 *     table is recomputed from the start.
 * A reader keeps seeing the table the last transaction committed.  Both
 * ways run the same step over the same order, so they give the same table.
 *
 * How it hears of results: the database's trigger (migrations/0008) sends
 * NOTIFY arbiter_ratings "<game> <stage match id>" in the transaction that
 * recorded, changed or deleted a result, and writes a durable mark for a
 * change (rating_dirty), so that a change made while no daemon ran is
 * recomputed when one starts.  org_ratings_check_all(), which the daemon
 * calls whenever the database becomes ready, looks at every game: what
 * came after each table's place, the marks, and whether the count of
 * results up to that place is still the one the table read (a result that
 * came in behind it while nobody listened).
 *
 * One active worker.  The daemons of several venues share one database
 * (docs/architecture.md, "Several venues"), and exactly one worker among
 * them rates: the one whose connection holds the worker's session
 * advisory lock (store_ratings_try_lock).  The others stand by: they try
 * the lock again every ORG_STANDBY_RETRY_MS and whenever work comes, and
 * the first to find it free (the active daemon stopped, or its link went
 * down and its session with it) takes over and looks at every game, as
 * at a start.  A standing-by worker drops the results it hears of (the
 * active one hears the same NOTIFYs) and passes on through the database
 * what was asked at its own daemon: a recompute as NOTIFY arbiter_ratings
 * "<game> full", a season as "<game> season <from> <to>" ("-": an open
 * end); a season's readers here are answered BUSY, and find the table
 * once the active worker has written it.  ratings_changed is the active
 * daemon's to publish (and its league events carry it to the others).
 *
 * Serialisation: one job at a time (one worker); what arrives meanwhile for
 * a game is merged into that game's next job (several new results are one
 * catch-up; several changes one recompute from the earliest).  A job the
 * database could not finish (connection lost) is kept and retried, with a
 * back-off; one it refused (an SQL error) is logged and dropped: the next
 * result of the game, or POST .../recompute, tries again.
 *
 * Seasons.  A leaderboard of a season (results recorded from one UTC day
 * to another) is a table of its own, computed by the worker when first
 * asked for and kept like the all-time one after that.  At most one
 * season of a game is computed at a time; at most ORG_RATINGS_SEASONS are
 * kept per game, the oldest dropped first.
 *
 * Threads: every function here is for the loop thread; callbacks run on it.
 * Ownership: the organiser copies its configuration; it borrows loop and
 * store, which must outlive it.
 */
#ifndef ARBITER_ORGANISER_RATINGS_H
#define ARBITER_ORGANISER_RATINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "tournament/glicko2.h"
#include "tournament/openskill.h"

struct loop;
struct store;
struct org_ratings;

/* Seasons kept per game: a club's seasons of a few years, and room for the
 * windows people try.  A reader asking for more drops the oldest. */
#define ORG_RATINGS_SEASONS     32
/* A standing-by worker tries the lock again this often ("One active
 * worker"): the active daemon's session ends within moments of its stop
 * or of a lost link (the server notices a closed socket at once), so the
 * league's ratings go on a few seconds later. */
#define ORG_STANDBY_RETRY_MS    2000u

struct org_ratings_config {
        const char *dsn;                        /* the worker's own connection */
        struct tour_os_params os;
        struct tour_glicko2_params g2;
};

/* A game's ratings were written (ratings_changed). */
typedef void (*org_ratings_changed_fn)(void *userdata, const char *game);

/* Starts the worker and LISTENs on arbiter_ratings through store.  0,
 * -EINVAL (parameters), -ENOMEM, or a thread's or eventfd's -errno. */
int org_ratings_new(struct loop *loop, struct store *store, const struct org_ratings_config *cfg,
                    org_ratings_changed_fn changed, void *userdata, struct org_ratings **ret);
/* Stops the worker (its statement in progress is cancelled, and its
 * transaction rolled back: the next start does it again), then answers
 * every season waiter ORG_SEASON_GONE.  Accepts NULL.  Free the store
 * before the loop turns again: its LISTEN stays registered with this
 * organiser (store.h has no way to take one back). */
void org_ratings_free(struct org_ratings *r);

/* Every game looked at: the database became ready (start, reconnect). */
void org_ratings_check_all(struct org_ratings *r);
/* Every table of game recomputed from the results (POST .../recompute). */
void org_ratings_recompute(struct org_ratings *r, const char *game);

enum org_season_state {
        ORG_SEASON_READY,               /* computed: table is its id */
        ORG_SEASON_BUSY,                /* not yet (being computed, or another season is) */
        ORG_SEASON_FAILED,              /* the worker could not compute it */
        ORG_SEASON_GONE,                /* the daemon is stopping */
};
typedef void (*org_season_fn)(void *userdata, enum org_season_state state, int64_t table);

/* The table of game's season from..to (YYYY-MM-DD, or NULL for an open
 * end; not both NULL), which the caller found missing or not ready: the
 * worker computes it, and cb runs once, with READY when it is, or with BUSY
 * after wait_ms (or at once when another season of the game is being
 * computed), FAILED or GONE.  0 (cb follows), -EINVAL, -ENOMEM. */
int org_ratings_season(struct org_ratings *r, const char *game, const char *from, const char *to,
                       unsigned wait_ms, org_season_fn cb, void *userdata);

/* What the worker has done, for GET /v1/status. */
struct org_ratings_stats {
        uint64_t steps;                 /* jobs that took new results a step at a time */
        uint64_t recomputes;            /* tables recomputed */
        uint64_t failures;              /* jobs refused by the database (dropped), connections lost */
        uint64_t results_last;          /* results read by the last recompute ... */
        double seconds_last;            /* ... and how long it took, off the loop */
        bool busy;                      /* a job is running or waiting */
        bool active;                    /* this daemon's worker rates ("One active worker") */
};
void org_ratings_stats(struct org_ratings *r, struct org_ratings_stats *ret);

#endif
