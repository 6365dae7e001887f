/* api/venues.c — /v1/venues: the venues whose daemons share this database
 * (docs/operations.md, "Several venues"), each with whether its daemon is
 * running (its lock is held) and how many tables stand at it.
 *
 * A venue's daemon adds its venue itself when it first connects; an admin
 * may add one before (POST), so that its tables can be set up before its
 * daemon first starts.  The rows are store/venues.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "common/venue.h"
#include "store/venues.h"

/* The venue resource: "this" is the venue this daemon runs. */
static json_t *venue_json(struct api_request *req, const struct store_venue_row *v) {
        return json_pack("{s:s, s:s, s:I, s:s, s:I, s:b, s:s}",
                         "id", v->id,
                         "name", v->name,
                         "number", (json_int_t) v->number,
                         "daemon", v->online ? "online" : "offline",
                         "tables", (json_int_t) v->tables,
                         "this", req->deps->venue && strcmp(v->id, req->deps->venue) == 0,
                         "created_at", v->created_at);
}

static void on_venues(void *userdata, const struct store_venue_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        json_t *items;

        if (failure && failure->constraint && strcmp(failure->constraint, "venues_pkey") == 0) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "id: there is a venue \"%s\" already (GET /v1/venues/%s)",
                                  json_string_value(json_object_get(req->body, "id")),
                                  json_string_value(json_object_get(req->body, "id")));
                return;
        }
        if (failure) {
                api_reply_store_failed(req, failure, "the venue query", error);
                return;
        }
        if (strcmp(req->method, "POST") == 0) {
                api_reply_json(req, MHD_HTTP_CREATED, n > 0 ? venue_json(req, &rows[0]) : json_object());
                return;
        }
        if (route_param(&req->match, "id")) {
                if (n == 0)
                        api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no venue %.64s (GET /v1/venues lists "
                                          "them)", route_param(&req->match, "id"));
                else
                        api_reply_json(req, MHD_HTTP_OK, venue_json(req, &rows[0]));
                return;
        }
        items = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(items, venue_json(req, &rows[i]));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

void handle_venues_list(struct api_request *req) {
        int r = store_venues_list(req->deps->store, NULL, on_venues, req);

        if (r < 0)
                reply_store_error(req, r);
}

void handle_venue_get(struct api_request *req) {
        const char *id = route_param(&req->match, "id");
        int r;

        if (!venue_id_valid(id)) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no venue %.64s: a venue's id is " VENUE_ID_RULE,
                                  id);
                return;
        }
        r = store_venues_list(req->deps->store, id, on_venues, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_venues_create(struct api_request *req) {
        struct body_venue b;
        json_t *problem;
        int r;

        if (body_venue(req->body, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        r = store_venues_insert(req->deps->store, b.id, b.name, on_venues, req);
        if (r < 0)
                reply_store_error(req, r);
}
