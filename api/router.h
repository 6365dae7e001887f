/* api/router.h — the REST routing table.
 *
 * A route is a method, a path pattern and the least role it needs:
 *
 *     { "GET",  "/v1/tokens/{id}", handle_token_get, AUTH_ROLE_ADMIN }
 *
 * Patterns are literal segments and "{name}" segments that match one
 * non-empty segment.  Matching is by segments, so "/v1/health/" (a trailing
 * slash) and "//v1/health" do not match.  A path that matches some route's
 * pattern but none with this method is "method not allowed", and the router
 * lists the methods that are (GET implies HEAD) for the Allow header.
 *
 * The router is pure: no I/O, no allocation beyond the caller's buffers.
 */
#ifndef ARBITER_API_ROUTER_H
#define ARBITER_API_ROUTER_H

#include <stddef.h>
#include "api/auth.h"

#define ROUTER_MAX_PARAMS   4
#define ROUTER_MAX_PATH     512   /* longer paths are 404 without a scan */
#define ROUTER_MAX_PARAM    128   /* a longer segment matches no "{name}" (ids are short) */
#define ROUTER_ALLOW_MAX    64

struct api_request;
typedef void (*api_handler_fn)(struct api_request *req);

struct route {
        const char *method;
        const char *pattern;
        api_handler_fn handler;
        enum auth_role min_role;    /* for GET/HEAD: AUTH_ROLE_NONE = always open */
        const char *summary;        /* one line, listed by GET /v1 */
        /* The members a JSON body may have, space-separated ("name club");
         * NULL: none (no body, or {}); "*": the handler checks them (they
         * depend on the body, as an input's on its kind).  Any other member
         * is a 400 naming it, before the handler runs. */
        const char *members;
};

struct route_match {
        const struct route *route;
        size_t n_params;
        struct {
                const char *name;   /* points into the pattern, not NUL-terminated */
                size_t name_len;
                char value[ROUTER_MAX_PARAM];
        } params[ROUTER_MAX_PARAMS];
        char allow[ROUTER_ALLOW_MAX];   /* filled on ROUTER_METHOD_NOT_ALLOWED */
};

enum router_result {
        ROUTER_FOUND,
        ROUTER_NOT_FOUND,
        ROUTER_METHOD_NOT_ALLOWED,
};

enum router_result router_match(const struct route *routes, size_t n_routes,
                                const char *method, const char *path,
                                struct route_match *ret);

/* The value of path parameter name, or NULL. */
const char *route_param(const struct route_match *m, const char *name);

#endif
