/* api/auth.h — API tokens and roles (docs/architecture.md, "Outside
 * interfaces"; docs/operations.md, "API tokens").
 *
 * A token is "arb_" followed by 43 base64url characters (32 random bytes
 * from getrandom(2)): printed once when created, never stored.  The database
 * keeps its SHA-256 in lowercase hex; a token this strong needs no slow KDF,
 * and a plain hash lets a lookup be one comparison of digests.
 *
 * Roles are ordered: seat < display < referee < admin; a request needs a
 * role at least as high as the route's.  A seat token is for one seat of
 * one match, or of one table (a player's station, good for every match
 * played there): the routes that take it check that the match (or its
 * table) and the seat are its own.  A referee token may be limited to one
 * match (match_id): api/server.c lets it be a referee only on that match's
 * routes (/v1/matches/{id}/…) and a display token everywhere else.  The daemon keeps an in-memory cache of the
 * live tokens (reloaded whenever the api_tokens table notifies a change), so
 * checking a request never waits for the database and keeps working while
 * the database is down.
 *
 * Ownership: struct auth owns its entries; auth_free() accepts NULL.
 */
#ifndef ARBITER_API_AUTH_H
#define ARBITER_API_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_TOKEN_PREFIX     "arb_"
#define AUTH_TOKEN_RANDOM_LEN 32                    /* bytes of entropy */
#define AUTH_TOKEN_LEN        (4 + 43)              /* prefix + base64url(32) unpadded */
#define AUTH_HASH_HEX_LEN     64                    /* SHA-256 */

enum auth_role {
        AUTH_ROLE_NONE = 0,     /* no token: open reads only */
        AUTH_ROLE_SEAT,         /* one seat of one match or table: its view, its stream, its own inputs */
        AUTH_ROLE_DISPLAY,
        AUTH_ROLE_REFEREE,
        AUTH_ROLE_ADMIN,
};

struct auth_entry {
        int64_t id;
        char *name;
        enum auth_role role;
        int64_t match_id;       /* AUTH_ROLE_SEAT, or a match referee: the match it is for, or 0 ... */
        int64_t table_id;       /* ... the table, every match at which it is for; else 0 */
        int seat;               /* AUTH_ROLE_SEAT: its seat, 1-based; else 0 */
        char hash[AUTH_HASH_HEX_LEN + 1];
};

struct auth;

int auth_new(struct auth **ret);
void auth_free(struct auth *a);

/* Replaces the cache with entries (copied).  Marks the cache loaded. */
int auth_replace(struct auth *a, const struct auth_entry *entries, size_t n);
/* Adds one entry (copied) at once, for a token just created: the reload
 * its NOTIFY brings replaces the cache a moment later.  0 or -ENOMEM. */
int auth_add(struct auth *a, const struct auth_entry *e);
bool auth_loaded(const struct auth *a);
size_t auth_count(const struct auth *a);

/* Finds the entry for a presented token; NULL when unknown. */
const struct auth_entry *auth_lookup(const struct auth *a, const char *token);

/* Extracts the token from an Authorization header value ("Bearer <t>",
 * scheme case-insensitive).  Returns a pointer into header, or NULL. */
const char *auth_bearer(const char *header);

/* Fills out with a fresh token (NUL-terminated).  -errno from getrandom. */
int auth_token_generate(char out[AUTH_TOKEN_LEN + 1]);
/* True when s has the shape of a token (prefix, length, alphabet). */
bool auth_token_well_formed(const char *s);
void auth_token_hash(const char *token, char out[AUTH_HASH_HEX_LEN + 1]);

const char *auth_role_to_string(enum auth_role r);
/* "admin", "referee", "display", "seat" → role; -EINVAL otherwise. */
int auth_role_from_string(const char *s);

#endif
