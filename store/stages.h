/* store/stages.h — the stages' repository: the table stages
 * (migrations/0004_tournaments.sql), and the snapshot of one stage that the
 * tournament service computes from (organiser/stage.h): its tournament, its
 * entrants with their ratings, its matches and its byes, read in one
 * statement.
 *
 * A stage is pending until it starts, running while it is played, then
 * finished; a correction that deletes matches makes a finished stage run
 * again.  Its entrants are fixed when it starts (player ids in seeding
 * order; a late entry is appended by registration).  Its standings column
 * is a cache of what the service computed from its results
 * (organiser/standings.h), stored as the document GET .../standings shows.
 *
 * No rule is decided here: which stage is the current one, who enters the
 * first stage and in which order, whether a stage may be added, are the
 * service's (tournament/), from the facts these statements return.  A write
 * that depends on a fact the caller read says so in its guard (the state it
 * saw, the players it counted): when the fact changed meanwhile the write
 * does nothing and returns no row, and the caller reads again.
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for an argument out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 * Rows, and every string and array they point to, live only as long as the
 * callback: copy what you keep.  On failure rows is NULL, n 0, failure the
 * server's SQLSTATE and constraint (store/store.h) and error the store's
 * words.
 */
#ifndef ARBITER_STORE_STAGES_H
#define ARBITER_STORE_STAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/stage_matches.h"
#include "store/store.h"

/* stages.state (its CHECK). */
enum store_stage_state {
        STORE_STAGE_PENDING,
        STORE_STAGE_RUNNING,
        STORE_STAGE_FINISHED,
};
/* "pending", "running", "finished"; NULL for another value. */
const char *store_stage_state_name(enum store_stage_state state);

/* One stage. */
struct store_stage_row {
        int64_t id;
        int number;                     /* 1.. within its tournament */
        const char *format;             /* the format's name (tournament/stage.h) */
        const char *config;             /* the organiser's config, JSON object text */
        int advance;                    /* how many of the stage before go on; 0: NULL (everyone) */
        enum store_stage_state state;
        const char *confirm;            /* its matches' confirm setting, JSON text, or NULL */
        const char *standings;          /* the cached standings (JSON text), or NULL; only when asked for */
};

/* A tournament and its stages, in number order. */
struct store_stages_row {
        int64_t tournament;
        const char *game;
        const char *state;              /* tournaments.state, as tournament/states.h names it */
        bool competitive;
        const struct store_stage_row *stages;
        size_t n_stages;
};

/* rows: one tournament, or none (n 0) when there is no such tournament or
 * a guarded write changed nothing. */
typedef void (*store_stages_fn)(void *userdata, const struct store_stages_row *rows, size_t n,
                                const struct store_error *failure, const char *error);

/* Tournament id with every stage (with standings: their cached standings
 * too). */
int store_stages_of(struct store *s, int64_t tournament, bool standings, store_stages_fn cb, void *userdata);

/* Adds stage number max + 1 to tournament, if its state is still seen_state
 * and its competitive flag still competitive: the tournament with the new
 * stage as its only stage, or no row. */
struct store_stage_new {
        const char *format;
        const char *config;             /* JSON object text */
        int advance;                    /* 0: NULL */
        const char *confirm;            /* JSON text, or NULL */
};
int store_stages_insert(struct store *s, int64_t tournament, const char *seen_state, bool competitive,
                        const struct store_stage_new *stage, store_stages_fn cb, void *userdata);

/* Starts pending stage id with entrants[0..n) in seeding order.  With
 * checked_in, only if they are exactly the tournament's checked-in active
 * players at that moment (the first stage: a check-in meanwhile changes the
 * field).  The tournament with the stage, or no row (it was not pending any
 * more, or the field changed). */
int store_stages_start(struct store *s, int64_t stage, const int64_t *entrants, size_t n, bool checked_in,
                       store_stages_fn cb, void *userdata);
/* Finishes running stage id: the tournament with the stage, or no row. */
int store_stages_finish(struct store *s, int64_t stage, store_stages_fn cb, void *userdata);
/* Stores the standings document (JSON text) of stage id: the tournament
 * with the stage, or no row (gone). */
int store_stages_set_standings(struct store *s, int64_t stage, const char *standings, store_stages_fn cb,
                               void *userdata);

/* A registered player who may enter the first stage: checked in, active. */
struct store_stage_candidate {
        int64_t player;
        int seed;                       /* the organiser's seed, 0: none */
        bool rated;                     /* has an OpenSkill rating in the tournament's game */
        double mu, sigma;
};
/* rows in registration order (registered_at, then player id). */
typedef void (*store_stage_candidates_fn)(void *userdata, const struct store_stage_candidate *rows, size_t n,
                                          const struct store_error *failure, const char *error);
int store_stages_candidates(struct store *s, int64_t tournament, store_stage_candidates_fn cb, void *userdata);

/* ---- The snapshot of one stage ------------------------------------------- */

/* An entrant, in seeding order. */
struct store_stage_entrant {
        int64_t player;
        const char *name;
        const char *status;             /* registrations.status ("active", "dropped", "disqualified"); "active" without one */
        bool rated;                     /* has an OpenSkill rating in the tournament's game */
        double mu, sigma;
};

struct store_stage_snapshot {
        int64_t tournament;
        const char *game;
        const char *tournament_state;
        bool competitive;
        int64_t seed;                   /* tournaments.seed (the bits of a uint64_t) */
        const int64_t *tables;          /* the venue tables its matches are called to, in turn */
        size_t n_tables;
        const char *match_config;       /* JSON object text */
        struct store_stage_row stage;   /* standings NULL */
        bool next_started;              /* a later stage of the tournament is not pending */
        const struct store_stage_entrant *entrants;
        size_t n_entrants;
        const struct store_stage_match_row *matches;    /* in id order */
        size_t n_matches;
        const struct store_stage_bye *byes;             /* in round, then player order */
        size_t n_byes;
};

/* rows: one snapshot, or none (n 0) when there is no such stage. */
typedef void (*store_stage_snapshot_fn)(void *userdata, const struct store_stage_snapshot *rows, size_t n,
                                        const struct store_error *failure, const char *error);

/* Stage number of tournament. */
int store_stages_snapshot(struct store *s, int64_t tournament, int number, store_stage_snapshot_fn cb,
                          void *userdata);
/* The stage of tournament that holds stage match id. */
int store_stages_snapshot_of_match(struct store *s, int64_t tournament, int64_t stage_match,
                                   store_stage_snapshot_fn cb, void *userdata);

#endif
