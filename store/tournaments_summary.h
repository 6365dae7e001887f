/* store/tournaments_summary.h — what the D-Bus object of each tournament
 * shows (bus/tournaments.h), read from the tables tournaments, stages and
 * stage_matches (migrations/0004_tournaments.sql): its name, game and
 * state, its current stage and that stage's round.
 *
 * Read only; the tournaments' own repository writes them.  Each entry
 * point queues one statement and returns store_query()'s 0, -ENOTCONN or
 * -ENOMEM; cb is called exactly once after a 0, from the loop.
 */
#ifndef ARBITER_STORE_TOURNAMENTS_SUMMARY_H
#define ARBITER_STORE_TOURNAMENTS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One tournament.  Text points into the query's result: valid only during
 * the callback.  state is the column's text ("draft", "registration",
 * "check_in", "running", "finished": tournaments' CHECK); tournament/states.h
 * owns the states. */
struct store_tournament_summary {
        int64_t id;
        const char *name;
        const char *game;
        const char *state;
        uint32_t stage;                 /* the number of its last stage that is not pending; 0: none */
        uint32_t round;                 /* the highest round of that stage's matches; 0: none */
};

/* rows[0..n), in id order, on success (failure NULL); on failure rows NULL,
 * n 0, failure the server's SQLSTATE and constraint and error the store's
 * words. */
typedef void (*store_tournaments_summary_fn)(void *userdata, const struct store_tournament_summary *rows, size_t n,
                                             const struct store_error *failure, const char *error);

/* Every tournament. */
int store_tournaments_summary_all(struct store *s, store_tournaments_summary_fn cb, void *userdata);
/* Tournament id: one row, or none. */
int store_tournaments_summary_get(struct store *s, int64_t id, store_tournaments_summary_fn cb, void *userdata);

#endif
