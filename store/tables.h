/* store/tables.h — the venue tables' repository: the tables tables,
 * table_seats and table_pads (migrations/0002_tables.sql, 0005).
 *
 * A table is a named set of seats (1 to 8), each with the pads bound to it
 * and an optional button map, and the table's own pads (a referee keypad:
 * a pad without a seat).  It stands at one venue (migrations/0010: the
 * venue's daemon runs its matches).  A table is written in one statement,
 * so it exists whole or not at all, and never changes afterwards; arbiterd
 * deletes none.  The constraints the caller may run into, by name:
 * tables_venue_name_key (a name is unique at its venue), tables_venue_fkey
 * (no such venue), table_pads_pad_id_key (a pad sits at one table, at one
 * seat or none).
 *
 * Which match is being played at a table of this daemon's venue is the
 * match runtime's to say (matches_at_table(), match/match.h); for a table
 * of another venue, whose daemon runs it, the row's live_match is the
 * database's word: its newest match that is not over.
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (-EINVAL for arguments out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 */
#ifndef ARBITER_STORE_TABLES_H
#define ARBITER_STORE_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* A pad at a table.  role is the column's text ("buttons", "slap",
 * "keypad": table_pads' CHECK); the engine framework owns the roles
 * (engine/engine.h, enum eng_pad_role). */
struct store_table_pad {
        const char *pad;                /* 16 lowercase hex digits */
        const char *role;
};

struct store_table_seat {
        int seat;                       /* 1-based */
        const char *buttons;            /* the stored button map (JSON object text), or NULL */
        const struct store_table_pad *pads;     /* in pad id order */
        size_t n_pads;
};

/* One table.  Everything points into memory the repository owns for the
 * callback's duration (the query's result among it): copy what you keep. */
struct store_table_row {
        int64_t id;
        const char *venue;              /* venues.id */
        const char *name;
        const char *created_by;
        const char *created_at;         /* RFC 3339 UTC */
        const struct store_table_seat *seats;   /* in seat order */
        size_t n_seats;
        const struct store_table_pad *pads;     /* the table's own pads, in pad id order */
        size_t n_pads;
        int64_t live_match;             /* its newest match not over (ready to provisional); 0 none */
};

/* rows[0..n), in id order, on success (failure NULL); on failure rows NULL,
 * n 0, failure the server's SQLSTATE and constraint (store/store.h) and
 * error the store's words. */
typedef void (*store_tables_fn)(void *userdata, const struct store_table_row *rows, size_t n,
                                const struct store_error *failure, const char *error);

/* The tables with id > after, at most limit; venue NULL: every venue's. */
int store_tables_list(struct store *s, const char *venue, int64_t after, int64_t limit, store_tables_fn cb,
                      void *userdata);
/* Table id: one row, or none. */
int store_tables_get(struct store *s, int64_t id, store_tables_fn cb, void *userdata);

/* What a new table is made of (borrowed for the call only). */
struct store_table_new_seat {
        int seat;                       /* 1..8, each once */
        const char *buttons;            /* a button map as JSON object text, or NULL */
};
struct store_table_new_pad {
        int seat;                       /* the seat it is bound to; 0: the table's own */
        const char *pad;
        const char *role;
};
/* Stores a table at venue with its seats and pads in one statement: one
 * row, the table as stored. */
int store_tables_insert(struct store *s, const char *venue, const char *name, const char *created_by,
                        const struct store_table_new_seat *seats, size_t n_seats,
                        const struct store_table_new_pad *pads, size_t n_pads, store_tables_fn cb, void *userdata);

#endif
