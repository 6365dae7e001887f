/* tools/arbiter-bots/rest.h — JSON over HTTP to arbiterd, one blocking
 * request at a time.
 *
 * A struct rest owns one libcurl easy handle (so the connection is reused),
 * the daemon's base URL ("http://127.0.0.1:8080") and the token requests
 * carry, if any.  Every request has a hang guard (REST_TIMEOUT_MS): the
 * daemon answers a local request in milliseconds.
 *
 * A request returns the HTTP status with the reply's JSON, or -errno when
 * no answer came (-ECONNREFUSED while arbiterd is not listening, -ETIMEDOUT,
 * -EIO for anything else); it logs nothing, so that the caller decides what
 * a failure means (a daemon restarting is expected, a 400 is a bug).
 */
#ifndef ARBITER_BOTS_REST_H
#define ARBITER_BOTS_REST_H

#include <jansson.h>

struct rest;

/* token may be NULL (reads are open).  0, or -ENOMEM. */
int rest_new(const char *url, const char *token, struct rest **ret);
void rest_free(struct rest *r);         /* accepts NULL */

const char *rest_url(const struct rest *r);
const char *rest_token(const struct rest *r);

/* GET path ("/v1/tables?after=3"); POST path with body (NULL: no body).
 * The HTTP status, with *ret_json the reply's JSON (a new reference, NULL
 * when the body is not JSON), or -errno and *ret_json NULL. */
int rest_get(struct rest *r, const char *path, json_t **ret_json);
int rest_post(struct rest *r, const char *path, json_t *body, json_t **ret_json);

/* The "detail" of a problem reply (RFC 9457), or "" — for messages. */
const char *rest_problem(json_t *reply);

#endif
