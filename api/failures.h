/* api/failures.h — the one place where a query that failed becomes an HTTP
 * problem.
 *
 * Inside a failed query's callback the store knows the server's SQLSTATE
 * and constraint (store/store.h, store_error()); nothing in api/ reads the
 * text of libpq's messages.  A constraint this table knows answers with its
 * own status and words (409 for a unique violation, naming the member of
 * the request at fault); otherwise the class decides: a conflict 409, bad
 * data 400, a database that is away or busy 503 with Retry-After, anything
 * else 500 with the server's words.
 *
 * Call it from inside the failed query's callback (or from a callback the
 * store's callback calls synchronously, as the match runtime's creation
 * callback is): elsewhere the store has no error to give, and the reply is
 * the generic one for the class "internal".  A repository of store/
 * (store/tokens.h, ...) hands its caller the failure itself (struct
 * store_error): its callers use the variants that take it.
 *
 * A tournament's operations (its routes, under /v1/tournaments) need the
 * league's primary: the players' registrations, the rounds and the results
 * are shared by every venue.  While this daemon cannot reach it, they are
 * refused with a 503 that says so, names this venue and says what goes on
 * meanwhile (this venue's live matches, their inputs spooled): the
 * organiser's words, not a generic "try again".  Any other route answers a
 * database that is away as before.
 */
#ifndef ARBITER_API_FAILURES_H
#define ARBITER_API_FAILURES_H

#include <stdbool.h>

#include "api/api.h"

struct store;
struct store_error;

/* Replies for a query of what ("the table", "the round", …) that failed
 * with error (the store's text, for the 500). */
void api_reply_query_failed(struct api_request *req, struct store *store, const char *what, const char *error);

/* The status the table or the class gives the failure being handled now,
 * and its detail (a constant; NULL when the class decides): for a caller
 * that answers in words of its own. */
unsigned api_query_failure(struct store *store, const char **ret_detail);

/* The same for a failure a repository reported (failure may be NULL: an
 * internal one). */
void api_reply_store_failed(struct api_request *req, const struct store_error *failure, const char *what,
                            const char *error);
unsigned api_store_failure(const struct store_error *failure, const char **ret_detail);

/* Whether req is a tournament's operation (see above). */
bool api_is_tournament_route(const struct api_request *req);
/* The 503 of a tournament's operation while the primary cannot be reached
 * from this venue (with Retry-After). */
void api_reply_primary_away(struct api_request *req);

#endif
