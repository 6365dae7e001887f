/* api/tables.c — /v1/tables: the venue's tables and which pad sits where.
 *
 * A table is written in one statement (a data-modifying CTE inserts the
 * table and its seats together), so it exists whole or not at all, and the
 * reply is assembled by PostgreSQL from what was stored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/sse.h"
#include "common/log.h"
#include "store/store.h"

/* "table/" and an id */
#define TABLE_TOPIC_MAX   32

/* The stored table as one JSON object, built by the database: its live
 * match (the newest that is not finished or aborted, or null), its seats,
 * each with its pads and their roles and its button map, and the table's
 * own pads (a referee keypad). */
#define TABLE_JSON(t, seats) \
        "jsonb_build_object('id', " t ".id, 'name', " t ".name, 'created_by', " t ".created_by, " \
        "'match', (SELECT max(m.id) FROM matches m WHERE m.table_id = " t ".id " \
        "          AND m.state IN ('ready', 'running', 'paused', 'provisional')), " \
        "'created_at', to_char(" t ".created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), " \
        "'seats', " seats ", " \
        "'pads', (SELECT coalesce(jsonb_agg(jsonb_build_object('pad', p.pad_id, 'role', p.role) " \
        "          ORDER BY p.pad_id), '[]'::jsonb) FROM table_pads p WHERE p.table_id = " t ".id AND p.seat IS NULL))"

#define SEATS_OF(id_expr) \
        "(SELECT coalesce(jsonb_agg(jsonb_build_object('seat', s.seat, " \
        "  'pads', (SELECT coalesce(jsonb_agg(jsonb_build_object('pad', p.pad_id, 'role', p.role) " \
        "            ORDER BY p.pad_id), '[]'::jsonb) FROM table_pads p WHERE p.table_id = s.table_id AND p.seat = s.seat), " \
        "  'buttons', s.button_map) ORDER BY s.seat), '[]'::jsonb) FROM table_seats s WHERE s.table_id = " id_expr ")"

/* The stored table, or a problem naming what the database refused. */
/* "table_created" on the new table's topic, "table/<id>". */
static void announce_table(struct api_request *req, json_t *t) {
        char topic[TABLE_TOPIC_MAX];
        json_int_t id = json_integer_value(json_object_get(t, "id"));

        if (!req->deps->events)
                return;
        snprintf(topic, sizeof topic, "table/%lld", (long long) id);
        if (sse_publish(req->deps->events, topic, "table_created",
                        json_pack("{s:s, s:I, s:O}", "kind", "table_created", "table", id, "name",
                                  json_object_get(t, "name"))) < 0)
                log_warning("table %lld: cannot publish table_created", (long long) id);
}

static void on_table(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        json_t *t;

        if (!res) {
                api_reply_query_failed(req, req->deps->store, "the table query", error);
                return;
        }
        if (PQntuples(res) == 0) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no table with id %s",
                                  route_param(&req->match, "id"));
                return;
        }
        t = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        if (!t) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the database returned a table that is not JSON");
                return;
        }
        if (strcmp(req->method, "POST") == 0) {
                /* A scoreboard that follows the tables shows a new one at once. */
                announce_table(req, t);
                api_reply_json(req, MHD_HTTP_CREATED, t);
        } else {
                api_reply_json(req, MHD_HTTP_OK, t);
        }
}

void handle_tables_create(struct api_request *req) {
        struct body_table t;
        json_t *problem;
        int r;

        if (body_table(req->body, &t, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        char *seats_text = json_dumps(t.seats, JSON_COMPACT), *pads_text = json_dumps(t.pads, JSON_COMPACT);
        json_decref(t.pads);
        if (!seats_text || !pads_text) {
                free(seats_text);
                free(pads_text);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        const char *params[] = { t.name, seats_text, req->token_name, pads_text };
        r = store_query(req->deps->store,
                        "WITH t AS (INSERT INTO tables (name, created_by) VALUES ($1, $3) "
                        "           RETURNING id, name, created_by, created_at), "
                        "     s AS (INSERT INTO table_seats (table_id, seat, button_map) "
                        "           SELECT t.id, x.seat, x.buttons FROM t, "
                        "                  jsonb_to_recordset($2::jsonb) AS x(seat int, buttons jsonb) "
                        "           RETURNING table_id, seat, button_map), "
                        "     p AS (INSERT INTO table_pads (table_id, seat, pad_id, role) "
                        "           SELECT t.id, nullif(x.seat, 0), x.pad, x.role FROM t, "
                        "                  jsonb_to_recordset($4::jsonb) AS x(seat int, pad text, role text) "
                        "           RETURNING seat, pad_id, role) "
                        "SELECT jsonb_build_object('id', t.id, 'name', t.name, 'created_by', t.created_by, "
                        "  'match', NULL, 'created_at', to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
                        "  'seats', (SELECT coalesce(jsonb_agg(jsonb_build_object('seat', s.seat, "
                        "     'pads', (SELECT coalesce(jsonb_agg(jsonb_build_object('pad', p.pad_id, 'role', p.role) "
                        "               ORDER BY p.pad_id), '[]'::jsonb) FROM p WHERE p.seat = s.seat), "
                        "     'buttons', s.button_map) ORDER BY s.seat), '[]'::jsonb) FROM s), "
                        "  'pads', (SELECT coalesce(jsonb_agg(jsonb_build_object('pad', p.pad_id, 'role', p.role) "
                        "           ORDER BY p.pad_id), '[]'::jsonb) FROM p WHERE p.seat IS NULL)) "
                        "FROM t",
                        4, params, on_table, req);
        free(seats_text);
        free(pads_text);
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
        const char *params[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "SELECT " TABLE_JSON("t", SEATS_OF("t.id")) " FROM tables t WHERE t.id = $1",
                        1, params, on_table, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_tables_list(struct api_request *req) {
        reply_list_page(req, "SELECT " TABLE_JSON("t", SEATS_OF("t.id")) " FROM tables t WHERE t.id > $1 "
                             "ORDER BY t.id LIMIT $2");
}

/* ---- a table's stream ------------------------------------------------------ */

static void on_table_exists(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        char topic[TABLE_TOPIC_MAX];

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the table query failed: %s", error);
                return;
        }
        if (PQntuples(res) == 0) {
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
        const char *params[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store, "SELECT 1 FROM tables WHERE id = $1", 1, params, on_table_exists, req);
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
