/* api/health.c — GET /v1 and GET /v1/health. */
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/sse.h"

void handle_index(struct api_request *req) {
        json_t *routes = json_array();

        for (size_t i = 0; i < api_n_routes; i++)
                json_array_append_new(routes, json_pack("{s:s, s:s, s:s, s:s}",
                                                        "method", api_routes[i].method,
                                                        "path", api_routes[i].pattern,
                                                        "role", auth_role_to_string(api_routes[i].min_role),
                                                        "summary", api_routes[i].summary));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "routes", routes));
}

/* The venue this daemon runs (docs/operations.md, "Several venues"). */
static void set_venue(struct api_request *req, json_t *h) {
        if (req->deps->venue)
                json_object_set_new(h, "venue", json_pack("{s:s, s:s}", "id", req->deps->venue, "name",
                                                          req->deps->venue_name ? req->deps->venue_name
                                                                                : req->deps->venue));
}

/* Always 200 while the process can answer: "status" says whether everything
 * it depends on is there ("ok") or not ("degraded"), and the members say
 * which part is missing.  Kept small: load balancers, systemd and displays
 * poll it; everything else is in GET /v1/status. */
void handle_health(struct api_request *req) {
        json_t *h = json_object();

        if (req->deps->health)
                req->deps->health(req->deps->userdata, h, API_HEALTH_BRIEF);
        set_venue(req, h);
        api_reply_json(req, MHD_HTTP_OK, h);
}

/* The health members and every counter an operator looks at; the
 * internals (api.h, enum api_health_view) only for an admin token. */
void handle_status(struct api_request *req) {
        json_t *h = json_object();

        if (req->deps->health)
                req->deps->health(req->deps->userdata, h,
                                  req->role >= AUTH_ROLE_ADMIN ? API_HEALTH_INTERNALS : API_HEALTH_STATUS);
        set_venue(req, h);
        json_object_set_new(h, "http", api_server_status(req->server));
        if (req->deps->events) {
                struct sse_stats st;
                sse_hub_stats(req->deps->events, &st);
                json_object_set_new(h, "events", json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}",
                                                           "last_id", st.last_id,
                                                           "published", (json_int_t) st.published,
                                                           "retained", (json_int_t) st.retained,
                                                           "retained_bytes", (json_int_t) st.retained_bytes,
                                                           "overflowed", (json_int_t) st.overflowed,
                                                           "refused", (json_int_t) st.refused));
        }
        api_reply_json(req, MHD_HTTP_OK, h);
}
