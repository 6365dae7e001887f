/* api/problem.h — RFC 9457 problem details (application/problem+json).
 *
 * Every error arbiterd's REST API returns is one of these:
 *
 *     {"type": "about:blank", "title": "Not Found", "status": 404,
 *      "detail": "no resource at /v1/nope; see /v1 for the API's routes"}
 *
 * "title" is the HTTP reason phrase; "detail" says what went wrong with this
 * request and what to do about it.  Extra members (an "allow" list, the
 * "conflicts" of a 409) go in with problem_set().
 */
#ifndef ARBITER_API_PROBLEM_H
#define ARBITER_API_PROBLEM_H

#include <jansson.h>

#define PROBLEM_CONTENT_TYPE "application/problem+json"

/* A new reference, or NULL on allocation failure. */
json_t *problem_new(unsigned status, const char *detail_fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* Adds member key (value stolen) to a problem; returns 0 or -ENOMEM. */
int problem_set(json_t *problem, const char *key, json_t *value);

const char *problem_reason(unsigned status);

#endif
