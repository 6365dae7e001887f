/* tools/arbiterctl/http.h — arbiterctl's HTTP client (libcurl): one request
 * to arbiterd's REST API, its reply, and the one-line message and exit
 * status for everything that is not a success.
 *
 * Errors.  A reply of 4xx or 5xx is application/problem+json (RFC 9457;
 * docs/openapi.yaml): its detail — with the members arbiter adds (field,
 * refusal, matches) and RFC 9457's invalid-params — becomes one line on
 * stderr, and its status the exit status (ctl.h): 404 → 3, 409 → 4, 401
 * and 403 → 5, any other → 1.  A transport failure (refused, unresolvable,
 * broken, timed out) is 6; a URL libcurl cannot use is 2.
 *
 * A GET answered 503 with Retry-After (a season's ratings being computed,
 * the database's queue full) is asked again after that long — at most 5
 * times, each wait at most 10 s, all within --timeout — saying so on
 * stderr; only then is the 503 an error.
 *
 * The token goes in the Authorization header only; it is never printed,
 * not even in an error.
 *
 * Ownership: a struct http_reply owns its body and json until
 * http_reply_free(); the JSON helpers return new references.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_HTTP_H
#define ARBITER_TOOLS_ARBITERCTL_HTTP_H

#include <stddef.h>
#include <curl/curl.h>
#include <jansson.h>

#include "tools/arbiterctl/ctl.h"

/* Every list route's largest page (docs/openapi.yaml, parameters/limit). */
#define HTTP_PAGE_MAX 1000
/* A path with its query: ids and a few short names. */
#define HTTP_PATH_MAX 512

struct http_reply {
        long status;
        char *body;                     /* NUL-terminated */
        size_t len;
        char content_type[128];
        json_t *json;                   /* the body parsed, when it is JSON; else NULL */
};

int http_init(void);
void http_cleanup(void);

/* Sends method to c->url + path (path starts with '/' and may carry a
 * query) with body as JSON (NULL: no body).  On a 2xx reply returns
 * CTL_EXIT_OK and fills *ret (free it); otherwise prints the error, frees
 * everything and returns the exit status. */
int http_call(struct ctl *c, const char *method, const char *path, json_t *body, struct http_reply *ret);

/* GET path; *ret_json gets the reply's JSON (an error when it is not). */
int http_get_json(struct ctl *c, const char *path, json_t **ret_json);
/* method path body and *ret_json the JSON reply. */
int http_send_json(struct ctl *c, const char *method, const char *path, json_t *body, json_t **ret_json);

/* Every page of a paginated list (path has no limit/after; it may have
 * other query parameters): *ret_items is one array of all their items.
 * With limit > 0 (--limit) only that page from after (--after) is asked. */
int http_get_all(struct ctl *c, const char *path, long long limit, long long after, json_t **ret_items);

void http_reply_free(struct http_reply *r);

/* The exit status for an HTTP status and for a libcurl failure. */
int http_status_exit(long status);
int http_curl_exit(CURLcode code);

/* Prints the one-line message of an error reply (problem+json or not). */
void http_report(const struct ctl *c, long status, const char *body, const json_t *json);

/* Sets the options every request of c shares on a fresh easy handle:
 * URL, protocols, timeouts, the token's header in *headers (appended). */
int http_setup(const struct ctl *c, CURL *easy, const char *url, struct curl_slist **headers);

/* A path segment percent-encoded (malloc'd), for names such as a game's. */
char *http_escape(const char *segment);
/* Appends "?key=value" (or "&key=value") to path (HTTP_PATH_MAX), value
 * percent-encoded; nothing when value is NULL. */
int http_query(char *path, const char *key, const char *value);
/* snprintf into a path buffer of HTTP_PATH_MAX; -ENAMETOOLONG when cut. */
int http_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
