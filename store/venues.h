/* store/venues.h — the venues' repository: the table venues
 * (migrations/0010_venues.sql; docs/operations.md, "Several venues").
 *
 * A venue is where a daemon runs its tables and matches: an id (the
 * configuration's [venue] id, common/venue.h), a name, and a number, the
 * key of its daemon's lock (store/store.h, "The daemon's lock").  The
 * daemon of a venue inserts its row when it first connects; an organiser
 * may add one before (store_venues_insert()) to set up its tables ahead.
 * arbiterd deletes none.  The constraint a caller may run into: venues_pkey
 * (the id is taken).
 *
 * Whether a venue's daemon is running is the database's to say: its lock
 * is held (pg_locks), whichever daemon asks.
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM; cb is called exactly once after a 0, from the loop.
 */
#ifndef ARBITER_STORE_VENUES_H
#define ARBITER_STORE_VENUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One venue.  Text points into the query's result: valid only during the
 * callback (copy what you keep). */
struct store_venue_row {
        const char *id;
        const char *name;
        int64_t number;                 /* its lock's key */
        const char *created_at;         /* RFC 3339 UTC */
        int64_t tables;                 /* tables standing at it */
        bool online;                    /* its daemon holds its lock now */
};

/* rows[0..n), in number order, on success (failure NULL); on failure rows
 * NULL, n 0, failure the server's SQLSTATE and constraint (store/store.h)
 * and error the store's words. */
typedef void (*store_venues_fn)(void *userdata, const struct store_venue_row *rows, size_t n,
                                const struct store_error *failure, const char *error);

/* Every venue (id NULL), or venue id: one row or none. */
int store_venues_list(struct store *s, const char *id, store_venues_fn cb, void *userdata);
/* Stores a new venue: one row. */
int store_venues_insert(struct store *s, const char *id, const char *name, store_venues_fn cb, void *userdata);

#endif
