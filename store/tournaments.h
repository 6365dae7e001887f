/* store/tournaments.h — the tournaments' repository: the table tournaments
 * (migrations/0004_tournaments.sql; competitive and secrets from 0007),
 * read with what a tournament shows of its registrations (counts) and its
 * stages, and the reads of match_calls (0007): the calls its stage matches
 * made (docs/fairness.md).
 *
 * A tournament is written by two statements only: its insert, and a move of
 * its state (which may append a secret: a new epoch).  Each returns the
 * tournament as stored, read whole in the same statement.  A move happens
 * only if the tournament is still where its caller saw it (its state and
 * its number of secrets), so that of two moves decided on the same facts
 * one passes and the other finds nothing.
 *
 * Rows are facts: every secret comes back with its commitment, revealed or
 * not, and the seed whatever the state.  What a reply may show of them is a
 * rule of tournament/states.h (tour_secret_revealed,
 * tour_state_reveals_secrets), which the callers apply; the states, the
 * formats and the stage states are the columns' text, which
 * tournament/states.h and tournament/stage.h parse.
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for an argument out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 * Everything a callback gets points into memory the repository owns for
 * the callback's duration (the query's result among it): copy what you
 * keep.
 */
#ifndef ARBITER_STORE_TOURNAMENTS_H
#define ARBITER_STORE_TOURNAMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The secret of one epoch. */
struct store_tournament_secret {
        int epoch;                      /* 1-based */
        const char *commitment;         /* SHA-256 of the secret, 64 hex digits */
        const char *secret;             /* 64 hex digits: shown only when tour_secret_revealed() */
};

/* One stage, as the tournament lists it. */
struct store_tournament_stage {
        int64_t id;
        int number;                     /* 1-based */
        const char *format;             /* tournament/stage.h's name */
        const char *config;             /* JSON object text */
        int advance;                    /* the top cut; 0: none (everyone still in) */
        const char *confirm;            /* JSON text, or NULL */
        const char *state;              /* "pending", "running", "finished" */
        int entrants;                   /* its entrants, 0 while pending */
        int rounds;                     /* the highest round of its matches, 0 before the first */
};

struct store_tournament_row {
        int64_t id;
        const char *name;
        const char *game;
        int64_t seed;                   /* its draws' seed: shown once tour_state_reveals_secrets() */
        bool competitive;
        const char *state;              /* tournament/states.h's name */
        const char *match_config;       /* JSON object text */
        const int64_t *tables;          /* venue tables its matches are called to, in turn */
        size_t n_tables;
        const char *created_by;
        const char *created_at;         /* RFC 3339 UTC */
        int64_t registrations;          /* every registration, whatever its status */
        int64_t checked_in;             /* active and checked in */
        const struct store_tournament_secret *secrets;  /* in epoch order, at least one */
        size_t n_secrets;
        const struct store_tournament_stage *stages;    /* in number order */
        size_t n_stages;
};

/* rows[0..n), in id order, on success (failure NULL); on failure rows NULL,
 * n 0, failure the server's SQLSTATE and constraint (store/store.h) and
 * error the store's words. */
typedef void (*store_tournaments_fn)(void *userdata, const struct store_tournament_row *rows, size_t n,
                                     const struct store_error *failure, const char *error);

/* The tournaments with id > after, at most limit. */
int store_tournaments_list(struct store *s, int64_t after, int64_t limit, store_tournaments_fn cb, void *userdata);
/* Tournament id: one row, or none. */
int store_tournaments_get(struct store *s, int64_t id, store_tournaments_fn cb, void *userdata);

/* A new tournament (borrowed for the call only), in state draft. */
struct store_tournament_new {
        const char *name;
        const char *game;
        int64_t seed;                   /* >= 0 */
        bool competitive;
        const char *match_config;       /* JSON object text */
        const int64_t *tables;
        size_t n_tables;
        const char *secret;             /* epoch 1's, 64 hex digits */
        const char *created_by;
};
/* Stores t: one row; none, with nothing stored, when a table of t->tables
 * does not exist (-EINVAL for a seed below 0 or a table id below 1). */
int store_tournaments_insert(struct store *s, const struct store_tournament_new *t, store_tournaments_fn cb,
                             void *userdata);

/* Moves tournament id from state `from` to state `to` if it is still in
 * from with epochs secrets, appending secret (64 hex digits) as epoch
 * epochs + 1 unless it is NULL: one row (the tournament as moved), or none
 * when it is not so (it moved meanwhile, or does not exist). */
int store_tournaments_move(struct store *s, int64_t id, const char *from, const char *to, int epochs,
                           const char *secret, store_tournaments_fn cb, void *userdata);

/* ---- facts --------------------------------------------------------------------- */

/* What the tournament's rules decide from (tournament/states.h), read in
 * one statement. */
struct store_tournament_facts {
        int64_t id;
        const char *state;
        bool competitive;
        int64_t seed;
        int epochs;                     /* its secrets */
        int64_t registrations;          /* every registration, whatever its status */
        int64_t checked_in;             /* active and checked in */
        int64_t stages;
        int64_t open_stages;            /* not finished */
        int64_t matches_made;           /* by any stage */
        int64_t running_stage;          /* the id of its highest-numbered running stage; 0: none */
        int running_stage_number;       /* its number; 0: none */
        const char *running_format;     /* its format; NULL: none */
};

typedef void (*store_tournament_facts_fn)(void *userdata, const struct store_tournament_facts *rows, size_t n,
                                          const struct store_error *failure, const char *error);

/* The facts of tournament id: one row, or none when there is no such
 * tournament. */
int store_tournaments_facts(struct store *s, int64_t id, store_tournament_facts_fn cb, void *userdata);

/* ---- calls (match_calls) ------------------------------------------------------------ */

/* One call of a stage match: the runtime match it made and the identity its
 * seed came from. */
struct store_call_row {
        int64_t match_id;
        int64_t stage_match_id;
        int attempt;                    /* 1-based */
        int epoch;                      /* the secret it came from */
        const char *called_at;          /* RFC 3339 UTC */
        const char *state;              /* the runtime match's (matches.state) */
        bool has_seed;                  /* the match is over (finished or aborted): its seed is
                                         * shown, as the match's own reads show it (store/matches.h) */
        int64_t seed;                   /* 0 until then */
};

typedef void (*store_calls_fn)(void *userdata, const struct store_call_row *rows, size_t n,
                               const struct store_error *failure, const char *error);

/* Every call tournament id made, in runtime match id order. */
int store_tournaments_calls(struct store *s, int64_t id, store_calls_fn cb, void *userdata);

/* What the next call of stage match stage_match of tournament id needs. */
struct store_next_call {
        const char *secret;             /* the current epoch's, 64 hex digits */
        int epoch;                      /* the current epoch */
        int attempt;                    /* 1 + the calls the stage match made before */
};

typedef void (*store_next_call_fn)(void *userdata, const struct store_next_call *rows, size_t n,
                                   const struct store_error *failure, const char *error);

/* One row, or none when there is no tournament id. */
int store_tournaments_next_call(struct store *s, int64_t id, int64_t stage_match, store_next_call_fn cb,
                                void *userdata);

#endif
