/* store/stage_matches.h — the stage matches' repository: the tables
 * stage_matches, stage_byes, match_calls and corrections
 * (migrations/0004_tournaments.sql, 0007_fair_draws.sql), and the channel
 * on which the database tells of a result it recorded itself.
 *
 * A stage match is pending when made, called once a runtime match plays it
 * at a table, done once it has a result ([{player, name, rank, score,
 * forfeit}] in seat order, JSON text: stored data, passed as it is).  Its
 * result comes from a referee (store_stage_matches_record) or from the
 * runtime match it was called as: the trigger of migrations/0005 writes the
 * finished match's placements into it in the transaction of the input that
 * finished the match, and NOTIFYs STORE_RESULTS_CHANNEL with its id; an
 * aborted runtime match gives it back (pending, no runtime match).  A
 * correction writes the new result and its record (corrections) and
 * deletes what the caller says it invalidated, in one statement.
 *
 * What the statements decide is nothing: which matches a correction
 * invalidates, what a round holds, which table a match goes to, are the
 * tournament service's (organiser/, tournament/).  A write guarded by a
 * state the caller saw returns no row when the state changed meanwhile.
 * The constraint a caller may run into, by name:
 * stage_matches_stage_id_round_table_no_key (a round stored twice: two
 * organisers pairing at once).
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for an argument out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 * Rows, and every string and array they point to, live only as long as the
 * callback: copy what you keep.  On failure rows is NULL, n 0, failure the
 * server's SQLSTATE and constraint (store/store.h) and error the store's
 * words.
 */
#ifndef ARBITER_STORE_STAGE_MATCHES_H
#define ARBITER_STORE_STAGE_MATCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The channel of the results the database records itself (the trigger of
 * migrations/0005): the payload is the stage match's id. */
#define STORE_RESULTS_CHANNEL "arbiter_results"

/* stage_matches.state (its CHECK). */
enum store_match_state {
        STORE_MATCH_PENDING,
        STORE_MATCH_CALLED,
        STORE_MATCH_DONE,
};
/* "pending", "called", "done"; NULL for another value. */
const char *store_match_state_name(enum store_match_state state);

/* A player of a stage match. */
struct store_stage_participant {
        int seat;                       /* 1-based */
        int64_t player;
        const char *name;               /* the player's name now */
};

struct store_stage_match_row {
        int64_t id;
        int64_t tournament;
        int stage;                      /* its stage's number */
        int round;
        int table_no;                   /* 1.. within its round (a bracket's: its graph id + 1) */
        int bracket_id;                 /* brackets: the graph's match id; -1 otherwise */
        enum store_match_state state;
        int64_t table;                  /* the venue table it is called to, 0: none */
        int64_t match;                  /* its runtime match, 0: none */
        const struct store_stage_participant *participants;     /* in seat order */
        size_t n_participants;
        const char *result;             /* JSON array text, NULL until it has one */
        const char *recorded_at;        /* RFC 3339 UTC, NULL until it has a result */
        const char *recorded_by;        /* NULL until it has a result */
};

/* A bye of a round. */
struct store_stage_bye {
        int round;
        int64_t player;
        const char *name;
};

typedef void (*store_stage_matches_fn)(void *userdata, const struct store_stage_match_row *rows, size_t n,
                                       const struct store_error *failure, const char *error);
/* A tournament's list: found false (rows NULL, n 0) when there is no such
 * tournament. */
typedef void (*store_stage_matches_of_fn)(void *userdata, bool found, const struct store_stage_match_row *rows,
                                          size_t n, const struct store_error *failure, const char *error);

/* Stage match id of tournament (0: of any tournament): one row, or none. */
int store_stage_matches_get(struct store *s, int64_t tournament, int64_t id, store_stage_matches_fn cb,
                            void *userdata);

/* The stage matches of tournament, by stage number, round and table_no,
 * those of stage (0: every stage), of round (0: every round) and in state
 * (NULL: any). */
int store_stage_matches_list(struct store *s, int64_t tournament, int stage, int round,
                             const enum store_match_state *state, store_stage_matches_of_fn cb, void *userdata);
/* The matches of tournament not done yet, by venue table (id order, none
 * last), then stage number, round and table_no. */
int store_stage_matches_queue(struct store *s, int64_t tournament, store_stage_matches_of_fn cb,
                              void *userdata);

/* A round to store: its matches and byes (borrowed for the call). */
struct store_new_stage_match {
        int round;
        int table_no;
        int bracket_id;                 /* -1: none */
        const int64_t *participants;    /* player ids in seat order */
        size_t n_participants;
        int64_t table;                  /* the venue table, 0: none */
};
struct store_new_bye {
        int round;
        int64_t player;
};
/* Stores matches and byes of stage in one statement: the matches as stored
 * (by table_no) and the byes with their players' names. */
typedef void (*store_round_fn)(void *userdata, const struct store_stage_match_row *rows, size_t n,
                               const struct store_stage_bye *byes, size_t n_byes, const struct store_error *failure,
                               const char *error);
int store_stage_matches_insert_round(struct store *s, int64_t stage, const struct store_new_stage_match *matches,
                                     size_t n, const struct store_new_bye *byes, size_t n_byes, store_round_fn cb,
                                     void *userdata);

/* Records that pending stage match id is played as runtime match (at
 * table; 0 keeps its own), with the identity its seed came from
 * (store_tournaments_next_call, store/tournaments.h), in match_calls: the
 * match, or no row when it was not pending any more. */
int store_stage_matches_call(struct store *s, int64_t id, int64_t runtime_match, int64_t table,
                             int64_t tournament, int attempt, int epoch, store_stage_matches_fn cb,
                             void *userdata);

/* Records result (JSON text) of stage match id, which the caller saw in
 * state seen: done, recorded now by who.  The match, or no row when its
 * state was not seen any more. */
int store_stage_matches_record(struct store *s, int64_t id, enum store_match_state seen, const char *result,
                               const char *who, store_stage_matches_fn cb, void *userdata);

/* A correction of done stage match `match` of stage `stage`. */
struct store_correction_new {
        int64_t match;
        int64_t stage;
        const char *after;              /* the new result, JSON text */
        const char *reason;
        const char *who;
        const int64_t *deleted;         /* the stage matches it invalidated: deleted */
        size_t n_deleted;
        int byes_after;                 /* the byes of the rounds after this one are deleted; -1: none */
        bool reopen;                    /* the stage runs again (matches are to be paired anew) */
};
/* The match with its new result and the correction's id, or no row (and 0)
 * when the match was not done any more. */
typedef void (*store_corrected_fn)(void *userdata, const struct store_stage_match_row *rows, size_t n,
                                   int64_t correction, const struct store_error *failure, const char *error);
int store_stage_matches_correct(struct store *s, const struct store_correction_new *c, store_corrected_fn cb,
                                void *userdata);

/* One correction. */
struct store_correction_row {
        int64_t id;
        int64_t match;                  /* 0 once a later reset deleted the match */
        const char *before;             /* JSON text, or NULL */
        const char *after;              /* JSON text */
        const char *reason;
        const int64_t *reset;           /* the stage matches it deleted */
        size_t n_reset;
        const char *who;
        const char *at;                 /* RFC 3339 UTC */
};
typedef void (*store_corrections_fn)(void *userdata, bool found, const struct store_correction_row *rows, size_t n,
                                     const struct store_error *failure, const char *error);
/* The corrections of tournament, in id order (found false: no such
 * tournament). */
int store_corrections_list(struct store *s, int64_t tournament, store_corrections_fn cb, void *userdata);

#endif
