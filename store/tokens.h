/* store/tokens.h — the API tokens' repository: the table api_tokens
 * (migrations/0001_tokens.sql; its seat and match columns come from 0005,
 * its table column from 0006) and the channel its trigger notifies
 * (docs/operations.md, "API tokens").
 *
 * What is stored of a token is its SHA-256 in hex, never the secret (the
 * secret and its hash are made in api/auth.h).  arbiterd deletes no token:
 * revoking one sets revoked_at, and a live token is one without it.  The
 * table's own constraints hold what no caller may break: a live token's
 * name is unique (api_tokens_live_name), a role is one of "admin",
 * "referee", "display", "seat", a seat token names its seat and one match
 * or one table, a match is named only by a seat's or a referee's token (a
 * referee's limited to that match: migrations/0009) and a table only by a
 * seat's.
 *
 * Every statement that writes api_tokens makes the table's trigger NOTIFY
 * STORE_TOKENS_CHANNEL, so that every daemon sharing the database reloads
 * its cache (store_tokens_watch, store_tokens_live).
 *
 * Each entry point queues one statement and returns store_query()'s 0,
 * -ENOTCONN or -ENOMEM (or -EINVAL for an argument out of range, before
 * anything is queued); cb is called exactly once after a 0, from the loop.
 */
#ifndef ARBITER_STORE_TOKENS_H
#define ARBITER_STORE_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The channel the trigger of api_tokens notifies on every change. */
#define STORE_TOKENS_CHANNEL "arbiter_tokens"

/* One token.  Text points into the query's result: valid only during the
 * callback (copy what you keep).  role is the column's text: api/auth.h
 * owns the roles and parses it (auth_role_from_string). */
struct store_token_row {
        int64_t id;
        const char *name;
        const char *role;
        const char *created_by;
        const char *created_at;         /* RFC 3339 UTC */
        const char *revoked_at;         /* RFC 3339 UTC; NULL while live */
        int64_t match_id;               /* a seat token's match, a match referee's, or 0 */
        int64_t table_id;               /* a station's token's table, or 0 */
        int seat;                       /* a seat token's seat (1-based), or 0 */
        const char *hash;               /* store_tokens_live() only: the SHA-256 in hex; else NULL */
};

/* rows[0..n) (owned by the repository, for the callback's duration) on
 * success, failure NULL; on failure rows NULL, n 0, failure the server's
 * SQLSTATE and constraint (store/store.h) and error the store's words. */
typedef void (*store_tokens_fn)(void *userdata, const struct store_token_row *rows, size_t n,
                                const struct store_error *failure, const char *error);

/* The tokens with id > after, live or not, at most limit, in id order. */
int store_tokens_list(struct store *s, int64_t after, int64_t limit, store_tokens_fn cb, void *userdata);
/* The token id: one row, or none. */
int store_tokens_get(struct store *s, int64_t id, store_tokens_fn cb, void *userdata);
/* Revokes token id if it is live: one row (the token, revoked), or none
 * when there is no live token with id. */
int store_tokens_revoke(struct store *s, int64_t id, store_tokens_fn cb, void *userdata);

/* Stores a token of role (not "seat") with the hash of its secret: one row.
 * A live token named name already: the failure's constraint is
 * api_tokens_live_name. */
int store_tokens_insert(struct store *s, const char *name, const char *role, const char *hash,
                        const char *created_by, store_tokens_fn cb, void *userdata);
/* Stores a referee token limited to match match_id (> 0, else -EINVAL):
 * one row.  The match must exist (a foreign key); other referee tokens of
 * the match stay live (several tablets may report for one match). */
int store_tokens_insert_match_referee(struct store *s, const char *name, const char *hash, const char *created_by,
                                      int64_t match_id, store_tokens_fn cb, void *userdata);
/* Stores a seat token for seat (1-based) of match match_id or of table
 * table_id (exactly one of them > 0, the other 0), and in the same
 * statement revokes the live token that seat had: a seat has one live
 * token, so a lost link is replaced, never duplicated.  One row (the new
 * token); none, with nothing revoked or stored, when the table has no such
 * seat.  -EINVAL when the ids or the seat are not so. */
int store_tokens_insert_seat(struct store *s, const char *name, const char *hash, const char *created_by,
                             int64_t match_id, int64_t table_id, int seat, store_tokens_fn cb, void *userdata);

/* Every live token, hash included, in no order: what a daemon's cache of
 * tokens holds. */
int store_tokens_live(struct store *s, store_tokens_fn cb, void *userdata);
/* LISTENs on STORE_TOKENS_CHANNEL now and after every reconnect
 * (store_listen): fn hears of every change to the tokens. */
int store_tokens_watch(struct store *s, store_notify_fn fn, void *userdata);

#endif
