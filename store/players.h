/* store/players.h — the players' repository: the table players
 * (migrations/0004_tournaments.sql).
 *
 * A player is the club's: a name, a club and an external id (a membership
 * number; unique when given: players_external_id_key), active or not.
 * arbiterd deletes no player (results and ratings refer to it); an
 * organiser sets active false instead.  A player's ratings are the rating
 * tables' (store/ratings.h, store_ratings_of_players()), not this
 * repository's.
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for arguments out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 */
#ifndef ARBITER_STORE_PLAYERS_H
#define ARBITER_STORE_PLAYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One player.  Text points into the query's result: valid only during the
 * callback (copy what you keep). */
struct store_player_row {
        int64_t id;
        const char *name;
        const char *club;               /* NULL: none */
        const char *external_id;        /* NULL: none */
        bool active;
        const char *created_at;         /* RFC 3339 UTC */
};

/* rows[0..n), in id order, on success (failure NULL); on failure rows NULL,
 * n 0, failure the server's SQLSTATE and constraint (store/store.h) and
 * error the store's words. */
typedef void (*store_players_fn)(void *userdata, const struct store_player_row *rows, size_t n,
                                 const struct store_error *failure, const char *error);

/* The players with id > after, at most limit. */
int store_players_list(struct store *s, int64_t after, int64_t limit, store_players_fn cb, void *userdata);
/* Player id: one row, or none. */
int store_players_get(struct store *s, int64_t id, store_players_fn cb, void *userdata);
/* Stores a new player (club, external_id NULL: none), active: one row. */
int store_players_insert(struct store *s, const char *name, const char *club, const char *external_id,
                         store_players_fn cb, void *userdata);

/* What an update changes; what it leaves out stays as it is. */
struct store_player_change {
        const char *name;               /* NULL: unchanged */
        bool club_given;                /* club (NULL: none) replaces the club */
        const char *club;
        bool external_id_given;         /* external_id (NULL: none) replaces it */
        const char *external_id;
        int active;                     /* -1: unchanged; 0, 1 */
};
/* Changes player id: one row (the player as it is now), or none when there
 * is no such player. */
int store_players_update(struct store *s, int64_t id, const struct store_player_change *change,
                         store_players_fn cb, void *userdata);

#endif
