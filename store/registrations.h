/* store/registrations.h — the registrations' repository: the table
 * registrations (migrations/0004_tournaments.sql), read with each player's
 * name and club (players), and the one change a registration makes to a
 * stage: a late entrant appended to the running stage's entrants (stages).
 *
 * Who may register, check in or drop, and what a late entry is, are rules
 * of tournament/states.h, which the tournament service applies
 * (organiser/registrations.h) to the facts read here
 * (store_registrations_facts).  Each write then happens only if the facts
 * it was decided on still hold — the tournament in the same state with the
 * same running stage, the registration as it was — in the same statement;
 * when they no longer do, it writes nothing and returns no row.  A late
 * entrant's registration and its place in the stage are written by one
 * statement, so one is never stored without the other.  Constraints a
 * caller may run into, by name: registrations_pkey (a player is
 * registered once), registrations_player_id_fkey (no such player).
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for an argument out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 * Text points into the query's result: valid only during the callback
 * (copy what you keep).
 */
#ifndef ARBITER_STORE_REGISTRATIONS_H
#define ARBITER_STORE_REGISTRATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One registration with its player's name and club. */
struct store_registration_row {
        int64_t player_id;
        const char *name;
        const char *club;               /* NULL: none */
        int seed;                       /* the organiser's, 1 the best; 0: none (by rating) */
        bool checked_in;
        const char *status;             /* "active", "dropped", "disqualified" (tour_reg_status_from_name) */
        bool late;                      /* a late entry */
        const char *registered_at;      /* RFC 3339 UTC */
};

/* rows[0..n) on success, failure NULL; on failure rows NULL, n 0, failure
 * the server's SQLSTATE and constraint (store/store.h) and error the
 * store's words. */
typedef void (*store_registrations_fn)(void *userdata, const struct store_registration_row *rows, size_t n,
                                       const struct store_error *failure, const char *error);

/* The registrations of tournament id, by seed (the unseeded last), then
 * registration time, then player id.  None for a tournament that does not
 * exist, as for one nobody registered for: store_tournaments_facts() tells
 * them apart. */
int store_registrations_list(struct store *s, int64_t tournament, store_registrations_fn cb, void *userdata);

/* ---- facts --------------------------------------------------------------------- */

/* What registering player, or changing his registration, is decided from:
 * the tournament's state and running stage, the player, his registration. */
struct store_registration_facts {
        const char *state;              /* the tournament's */
        int64_t running_stage;          /* its highest-numbered running stage; 0: none */
        const char *running_format;     /* that stage's format; NULL: none */
        bool player_exists;
        bool player_active;             /* players.active */
        bool registered;
        const char *status;             /* the registration's; NULL when not registered */
        bool checked_in;
        bool in_running_stage;          /* one of the running stage's entrants */
};

typedef void (*store_registration_facts_fn)(void *userdata, const struct store_registration_facts *rows, size_t n,
                                            const struct store_error *failure, const char *error);

/* The facts of player in tournament: one row, or none when there is no
 * such tournament. */
int store_registrations_facts(struct store *s, int64_t tournament, int64_t player, store_registration_facts_fn cb,
                              void *userdata);

/* ---- writes ------------------------------------------------------------------- */

/* The facts a write was decided on, which must still hold when it is made. */
struct store_registration_expect {
        const char *state;              /* the tournament's state */
        int64_t running_stage;          /* its running stage; 0: none */
};

/* A new registration (borrowed for the call only). */
struct store_registration_new {
        int64_t tournament;
        int64_t player;                 /* an active player */
        int seed;                       /* 1..; 0: none */
        bool checked_in;
        bool late;
        bool join_stage;                /* appended to the entrants of expect.running_stage */
        const char *who;
};
/* Registers r->player: one row, or none when expect no longer holds or the
 * player is no longer active.  A second registration of the player:
 * registrations_pkey; no such player: registrations_player_id_fkey. */
int store_registrations_insert(struct store *s, const struct store_registration_new *r,
                               const struct store_registration_expect *expect, store_registrations_fn cb,
                               void *userdata);

/* Checks player in if his registration is still active with checked_in
 * as was_checked_in; with join_stage also makes him a late entry: late
 * set, and appended to the entrants of expect.running_stage unless he is
 * one already.  One row, or none when expect or the registration no longer
 * holds. */
int store_registrations_check_in(struct store *s, int64_t tournament, int64_t player, bool was_checked_in,
                                 bool join_stage, const struct store_registration_expect *expect, const char *who,
                                 store_registrations_fn cb, void *userdata);

/* Sets the status of player's active registration to status ("dropped",
 * "disqualified") if the tournament is still in state: one row, or none
 * when it is not, or the registration is no longer active. */
int store_registrations_set_status(struct store *s, int64_t tournament, int64_t player, const char *status,
                                   const char *state, const char *who, store_registrations_fn cb, void *userdata);

#endif
