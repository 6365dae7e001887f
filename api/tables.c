/* api/tables.c — /v1/tables: every venue's tables and which pad sits where.
 *
 * The tables are stored by store/tables.h (a table is written whole, in one
 * statement); the match a table of this daemon's venue shows as its own is
 * the match runtime's (matches_at_table()), that of a table of another
 * venue the database's (its daemon runs it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/league.h"
#include "api/sse.h"
#include "common/log.h"
#include "match/match.h"
#include "store/tables.h"

/* "table/" and an id */
#define TABLE_TOPIC_MAX   32

static json_t *pads_json(const struct store_table_pad *pads, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; i < n; i++)
                json_array_append_new(a, json_pack("{s:s, s:s}", "pad", pads[i].pad, "role", pads[i].role));
        return a;
}

/* The match a table shows as its own: at this daemon's venue, the newest
 * the runtime plays there that is not over; at another venue, whose daemon
 * runs it, the newest the database holds that is not over; or none (0). */
static int64_t table_match(struct api_request *req, const struct store_table_row *t) {
        struct match *m;

        if (!req->deps->venue || strcmp(t->venue, req->deps->venue) != 0)
                return t->live_match;
        m = req->deps->matches ? matches_at_table(req->deps->matches, t->id) : NULL;
        return m ? m->id : 0;
}

/* The table resource: its venue, its live match (table_match(), or null),
 * its seats, each with its pads and their roles and its button map, and
 * the table's own pads (a referee keypad). */
static json_t *table_json(struct api_request *req, const struct store_table_row *t) {
        int64_t match = table_match(req, t);
        json_t *seats = json_array();

        for (size_t i = 0; i < t->n_seats; i++) {
                const struct store_table_seat *s = &t->seats[i];
                json_t *buttons = s->buttons ? json_loads(s->buttons, 0, NULL) : NULL;

                json_array_append_new(seats, json_pack("{s:i, s:o, s:o}", "seat", s->seat,
                                                       "pads", pads_json(s->pads, s->n_pads),
                                                       "buttons", buttons ? buttons : json_null()));
        }
        return json_pack("{s:I, s:s, s:s, s:s, s:o, s:s, s:o, s:o}",
                         "id", (json_int_t) t->id,
                         "venue", t->venue,
                         "name", t->name,
                         "created_by", t->created_by,
                         "match", match ? json_integer((json_int_t) match) : json_null(),
                         "created_at", t->created_at,
                         "seats", seats,
                         "pads", pads_json(t->pads, t->n_pads));
}

/* "table_created" on the new table's topic, "table/<id>", here and at
 * every venue (api/league.h). */
static void announce_table(struct api_request *req, const struct store_table_row *t) {
        char topic[TABLE_TOPIC_MAX];

        snprintf(topic, sizeof topic, "table/%lld", (long long) t->id);
        api_publish_shared(req->deps->events, req->deps->league, topic, "table_created",
                           json_pack("{s:s, s:I, s:s, s:s}", "kind", "table_created", "table", (json_int_t) t->id,
                                     "name", t->name, "venue", t->venue));
}

/* The stored table, or a problem naming what the database refused. */
static void on_table(void *userdata, const struct store_table_row *rows, size_t n, const struct store_error *failure,
                     const char *error) {
        struct api_request *req = userdata;

        if (failure && failure->constraint && strcmp(failure->constraint, "tables_venue_fkey") == 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "venue: there is no venue \"%s\" (GET /v1/venues "
                                  "lists them; an admin adds one with POST /v1/venues)",
                                  json_string_value(json_object_get(req->body, "venue")));
                return;
        }
        if (failure) {
                api_reply_store_failed(req, failure, "the table query", error);
                return;
        }
        if (n == 0) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no table with id %s",
                                  route_param(&req->match, "id"));
                return;
        }
        if (strcmp(req->method, "POST") == 0) {
                /* A scoreboard that follows the tables shows a new one at once. */
                announce_table(req, &rows[0]);
                api_reply_json(req, MHD_HTTP_CREATED, table_json(req, &rows[0]));
        } else {
                api_reply_json(req, MHD_HTTP_OK, table_json(req, &rows[0]));
        }
}

void handle_tables_create(struct api_request *req) {
        struct store_table_new_seat seats[BODY_TABLE_MAX_SEATS] = { 0 };
        struct store_table_new_pad *pads = NULL;
        struct body_table t;
        size_t n_seats, n_pads, i;
        json_t *problem, *v;
        bool oom = false;
        int r;

        if (body_table(req->body, &t, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        /* body_table checked the shapes: seats [{seat, buttons}], 1 to
         * BODY_TABLE_MAX_SEATS; pads [{seat, pad, role}]. */
        n_seats = json_array_size(t.seats);
        n_pads = json_array_size(t.pads);
        pads = calloc(n_pads + 1, sizeof *pads);
        oom = !pads;
        json_array_foreach(t.seats, i, v) {
                json_t *buttons = json_object_get(v, "buttons");

                seats[i].seat = (int) json_integer_value(json_object_get(v, "seat"));
                if (json_is_object(buttons) && !(seats[i].buttons = json_dumps(buttons, JSON_COMPACT)))
                        oom = true;
        }
        for (i = 0; pads && i < n_pads; i++) {
                v = json_array_get(t.pads, i);
                pads[i] = (struct store_table_new_pad) {
                        .seat = (int) json_integer_value(json_object_get(v, "seat")),
                        .pad = json_string_value(json_object_get(v, "pad")),
                        .role = json_string_value(json_object_get(v, "role")),
                };
        }
        if (oom) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                r = 0;
        } else {
                r = store_tables_insert(req->deps->store, t.venue ? t.venue : req->deps->venue, t.name,
                                        req->token_name, seats, n_seats, pads, n_pads, on_table, req);
        }
        for (i = 0; i < n_seats; i++)
                free((char *) seats[i].buttons);
        free(pads);
        json_decref(t.pads);
        if (r < 0)
                reply_store_error(req, r);
}

/* A station's token reads its own table only (any other reader by role). */
static bool may_read_table(struct api_request *req, long long id) {
        if (req->role != AUTH_ROLE_SEAT || req->token_table == id)
                return true;
        api_reply_problem(req, MHD_HTTP_FORBIDDEN, "token \"%s\" is a seat's: it reads only its own table",
                          req->token_name);
        return false;
}

void handle_table_get(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !may_read_table(req, id))
                return;
        r = store_tables_get(req->deps->store, id, on_table, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_list(void *userdata, const struct store_table_row *rows, size_t n, const struct store_error *failure,
                    const char *error) {
        struct api_request *req = userdata;
        json_t *items;

        if (failure) {
                api_reply_store_failed(req, failure, "the list query", error);
                return;
        }
        items = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(items, table_json(req, &rows[i]));
        api_reply_json(req, MHD_HTTP_OK, api_page(items, n > 0 ? rows[n - 1].id : 0));
}

/* Every venue's tables (?venue= filters), so that a league's scoreboard
 * shows them all from any venue's daemon. */
void handle_tables_list(struct api_request *req) {
        struct api_query q = api_request_query(req);
        struct query_tables qt;
        long long limit, after;
        json_t *problem;
        int r;

        if (!page_params(req, &limit, &after))
                return;
        if (query_tables(&q, &qt, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        r = store_tables_list(req->deps->store, qt.venue, after, limit, on_list, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- a table's stream ------------------------------------------------------ */

static void on_table_exists(void *userdata, const struct store_table_row *rows, size_t n,
                            const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        char topic[TABLE_TOPIC_MAX];

        (void) rows;
        if (failure) {
                api_reply_store_failed(req, failure, "the table query", error);
                return;
        }
        if (n == 0) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no table with id %s",
                                  route_param(&req->match, "id"));
                return;
        }
        snprintf(topic, sizeof topic, "table/%s", route_param(&req->match, "id"));
        api_events_stream(req, topic, NULL);
}

/* GET /v1/tables/{id}/events: the matches that come and go at the table
 * (api_table_events_observe), so that a table's display and its stations
 * follow it from match to match.  An unknown table is a 404, not a stream
 * that stays quiet. */
void handle_table_events(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !may_read_table(req, id))
                return;
        r = store_tables_get(req->deps->store, id, on_table_exists, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- station tokens -------------------------------------------------------- */

static void on_station_token(void *userdata, enum api_token_outcome outcome, const char *token,
                             json_t *resource, const char *error) {
        struct api_request *req = userdata;
        struct auth_entry e = { .role = AUTH_ROLE_SEAT };

        if (!resource) {
                if (outcome == API_TOKEN_NO_SUCH_SEAT)
                        api_reply_problem(req, MHD_HTTP_NOT_FOUND, "table %s has no seat %s (GET /v1/tables/%s "
                                          "lists its seats)", route_param(&req->match, "id"),
                                          route_param(&req->match, "seat"), route_param(&req->match, "id"));
                else
                        api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the station token was not created: %s",
                                          error);
                return;
        }
        /* Usable at once, before the reload its NOTIFY brings. */
        e.id = json_integer_value(json_object_get(resource, "id"));
        e.name = (char *) json_string_value(json_object_get(resource, "name"));
        e.table_id = json_integer_value(json_object_get(resource, "table"));
        e.seat = (int) json_integer_value(json_object_get(resource, "seat"));
        auth_token_hash(token, e.hash);
        auth_add(req->deps->auth, &e);
        json_object_set_new(resource, "token", json_string(token));
        json_object_set_new(resource, "station_url", json_sprintf("/station?table=%lld&seat=%d&access_token=%s",
                                                                  (long long) e.table_id, e.seat, token));
        api_reply_json(req, MHD_HTTP_CREATED, json_incref(resource));
}

/* POST /v1/tables/{id}/seats/{seat}/token: a station's token for one seat
 * of the table, good for that seat of every match played there, replacing
 * the seat's last one. */
void handle_table_seat_token(struct api_request *req) {
        long long id, seat;
        int r;

        if (!id_param(req, "id", &id) || !id_param(req, "seat", &seat))
                return;
        if (seat > BODY_TABLE_MAX_SEATS) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: there is no seat %lld; seats are 1 to %d", seat,
                                  BODY_TABLE_MAX_SEATS);
                return;
        }
        r = api_seat_token_create(req->deps->store, 0, id, (int) seat, req->token_name, on_station_token, req);
        if (r < 0)
                reply_store_error(req, r);
}
