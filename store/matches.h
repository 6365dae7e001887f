/* store/matches.h — the SQL of the match runtime (migrations/0003).
 *
 * Every statement is one round trip; the ones that write do it in one
 * statement (a data-modifying CTE), so an input and the match row it moves
 * (state, started_at, finished_at, result) are stored together or not at
 * all.  Parameters are text; NULL pointers are SQL NULL.  Results come to cb
 * as store_query's do.  Returns store_query's 0, -ENOTCONN or -ENOMEM.
 */
#ifndef ARBITER_STORE_MATCHES_H
#define ARBITER_STORE_MATCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "store/store.h"

/* A new match's row.  venue is this daemon's: the match's venue when it
 * has no table; a match at a table is at the table's venue (the foreign
 * key matches_table_venue_fkey says so). */
struct match_store_new {
        const char *game, *table_id, *seed, *config, *data, *seats, *confirm, *confirm_timeout_s, *who;
        const char *venue;
};
/* One column: the stored match as JSON (id, venue, game, table, state, seats,
 * table_pads, config, data, confirm, created_by, created_at, started_at,
 * finished_at, needs_referee, result; seed only once finished or aborted).
 * Each seat takes the pads its table binds to it, with their roles, and
 * its button map; table_pads are the table's own pads. */
int match_store_insert_match(struct store *s, const struct match_store_new *m, store_result_fn cb,
                             void *userdata);
int match_store_get(struct store *s, const char *id, store_result_fn cb, void *userdata);
/* Rows of one column (the match), at most limit, in id order after
 * after; newest_first: in the reverse order, with ids below after (0: from
 * the newest). */
int match_store_list(struct store *s, const char *state, const char *limit, const char *after, bool newest_first,
                     store_result_fn cb, void *userdata);

struct match_store_input {
        const char *match_id, *seq, *time_us, *seat, *kind, *input, *hash, *refusal, *reaction_us,
                   *source, *who;
        const char *reason;             /* a referee's why (a void), or NULL */
        const char *voided;             /* a void's voided seqs as an SQL array "{4,5}", or NULL */
        const char *state;              /* the match's state after it */
        const char *result;             /* set while the match is provisional or finished */
        /* The match's state is what it was and there is no result: the row
         * of matches needs no update, one INSERT will do.  Not spooled (a
         * flushed record takes the general statement). */
        bool same_state;
};
/* Idempotent (ON CONFLICT DO NOTHING); the matches row takes the state of
 * the newest stored input only, whatever order inputs arrive in. */
int match_store_insert_input(struct store *s, const struct match_store_input *in, store_result_fn cb,
                             void *userdata);

/* The spool record of an input (store/spool.h): a compact JSON object of
 * exactly the parameters match_store_insert_input() sends, each a string
 * or null, so that flushing it later writes what writing it now would
 * have.  Pure; no database.
 *
 *     {"match_id": "12", "seq": "5", ..., "state": "running", "result": null}
 *
 * to_record returns a malloc'd NUL-terminated string (NULL: out of memory).
 * from_record parses one and points *ret's fields into *ret_root (the
 * caller json_decref()s it): 0, or -EBADMSG when the record is not such an
 * object or lacks a required field (match_id, seq, time_us, kind, input,
 * hash, source, who, state). */
char *match_store_input_to_record(const struct match_store_input *in);
int match_store_input_from_record(const void *data, size_t len, struct match_store_input *ret,
                                  json_t **ret_root);

/* Rows: id, game, seed, config, seats, inputs ([{seq, time_us, input,
 * state_hash, refusal}] in seq order), data, table_pads, confirm,
 * confirm_timeout_s, table_id, for every unfinished (or provisional) match
 * of venue that does not need a referee. */
int match_store_load(struct store *s, const char *venue, store_result_fn cb, void *userdata);
/* The same row for match id alone, when it is such a match of venue; else
 * none. */
int match_store_load_one(struct store *s, const char *venue, const char *id, store_result_fn cb, void *userdata);
int match_store_needs_referee(struct store *s, const char *id, const char *reason);
/* Sets aborted (only if not finished or aborted); one row (the match) or
 * none. */
int match_store_abort(struct store *s, const char *id, const char *result, store_result_fn cb,
                      void *userdata);
/* One row: the match exists (t/f), then the log page as a JSON array. */
int match_store_log(struct store *s, const char *id, const char *limit, const char *after,
                    store_result_fn cb, void *userdata);

#endif
