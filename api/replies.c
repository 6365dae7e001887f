/* api/replies.c — the replies and parameters every resource's handlers
 * share (api/handlers.h, "Shared replies"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/failures.h"
#include "api/handlers.h"

void reply_store_error(struct api_request *req, int r) {
        if (r == -ENOTCONN && api_is_tournament_route(req))
                api_reply_primary_away(req);
        else if (r == -ENOTCONN)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE,
                                  "the database is not reachable right now; arbiterd keeps retrying "
                                  "(see /v1/health) — try again shortly");
        else
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
                                  "could not queue the database query: %s", strerror(-r));
}

static bool parse_count(const char *s, long long min, long long max, long long *ret) {
        char *end;
        long long v;

        if (!s || !*s)
                return false;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return false;
        *ret = v;
        return true;
}

json_t *api_page(json_t *items, int64_t last_id) {
        return json_pack("{s:o, s:o}", "items", items, "next", last_id ? json_integer(last_id) : json_null());
}

bool page_params(struct api_request *req, long long *ret_limit, long long *ret_after) {
        struct api_query q = api_request_query(req);
        struct query_page page;
        json_t *problem;

        if (query_page(&q, &page, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return false;
        }
        *ret_limit = page.limit;
        *ret_after = page.after;
        return true;
}

bool id_param(struct api_request *req, const char *name, long long *ret_id) {
        if (parse_count(route_param(&req->match, name), 1, INT64_MAX, ret_id))
                return true;
        api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no resource at %.200s: %s must be a positive number",
                          req->path, name);
        return false;
}
