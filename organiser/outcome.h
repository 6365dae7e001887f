/* organiser/outcome.h — how a call of the tournament service
 * (organiser/tournaments.h, organiser/registrations.h) ends, shared by its
 * modules.
 *
 * The service reads the facts, asks the rules of tournament/ and writes;
 * what it reports is the outcome and, when it did not do what was asked, a
 * sentence for the person who asked (the words the API and arbiterctl
 * show).  Mapping an outcome to a protocol's status is the caller's: api/
 * turns ORG_NOT_FOUND into 404, ORG_INVALID into 400, ORG_CONFLICT into
 * 409, ORG_STORE_FAILED into what api/failures.h says of the failure, and
 * ORG_INTERNAL into 500.
 */
#ifndef ARBITER_ORGANISER_OUTCOME_H
#define ARBITER_ORGANISER_OUTCOME_H

#include <errno.h>

#include "store/store.h"

enum org_outcome {
        ORG_DONE,                       /* done as asked */
        ORG_NOT_FOUND,                  /* what the call names does not exist (the tournament, the registration) */
        ORG_INVALID,                    /* the request names what does not exist elsewhere (a table, a player) */
        ORG_CONFLICT,                   /* the rules refuse it now (the tournament's state, the player's) */
        ORG_STORE_FAILED,               /* the database failed: failure and error say how */
        ORG_INTERNAL,                   /* anything else (no memory, no random bytes) */
};

/* Everything points to memory that lives as long as the callback. */
struct org_result {
        enum org_outcome outcome;
        const char *detail;             /* for a person; NULL when done */
        const struct store_error *failure;      /* ORG_STORE_FAILED: the server's SQLSTATE and constraint */
        const char *error;              /* ORG_STORE_FAILED: the store's words */
};

/* The longest detail the service writes. */
#define ORG_DETAIL_MAX 256

/* The outcome of a statement the store would not queue (store_query()'s
 * -errno, after the call's first step: the first one's -errno is the
 * call's own return value): the database away is a failure of the class
 * "unavailable", as a lost connection is; anything else is internal.  *e
 * must live as long as the result. */
static inline struct org_result org_result_unqueued(int r, struct store_error *e) {
        if (r == -ENOTCONN) {
                *e = (struct store_error) { .failure = STORE_FAILURE_UNAVAILABLE };
                return (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = e,
                                             .error = "the database is not reachable right now" };
        }
        return (struct org_result) { .outcome = ORG_INTERNAL,
                                     .detail = r == -ENOMEM ? "out of memory" : "the query could not be queued" };
}

#endif
