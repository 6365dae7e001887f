/* api/tables.c — /v1/tables: the venue's tables and which pad sits where.
 *
 * A table is written in one statement (a data-modifying CTE inserts the
 * table and its seats together), so it exists whole or not at all, and the
 * reply is assembled by PostgreSQL from what was stored.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/sse.h"
#include "common/log.h"
#include "engine/engine.h"
#include "hardware/padbus.h"
#include "store/store.h"

#define TABLE_MAX_SEATS   8             /* engine/judge.h JUDGE_MAX_SEATS */
#define BUTTON_MAX        (PROTO_MAX_BUTTONS - 1)
#define CALL_NAME_MAX     32
/* "table/" and an id */
#define TABLE_TOPIC_MAX   32

/* Tables serve every game: a button may name a call of any of them. */
static bool is_call_name(const char *name) {
        int call;

        for (size_t g = 0; eng_games[g]; g++)
                if (eng_call_by_name(eng_games[g], name, &call) == 0)
                        return true;
        return false;
}

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

static bool is_pad_id(const char *s) {
        return s && strlen(s) == PAD_ID_LEN && strspn(s, "0123456789abcdef") == PAD_ID_LEN;
}

/* One pad {pad, role} (role defaults to the seat's "buttons", the table's
 * "keypad").  Adds it to pads as the database takes it, with seat (0 for
 * the table).  Replies 400 naming field and returns false. */
static bool check_pad(struct api_request *req, const char *field, json_t *p, json_int_t seat, json_t *pads) {
        const char *id = json_string_value(json_object_get(p, "pad"));
        json_t *role = json_object_get(p, "role");
        const char *key;
        json_t *v;
        int r = seat ? ENG_ROLE_BUTTONS : ENG_ROLE_KEYPAD;

        if (!json_is_object(p)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s: must be an object {\"pad\": \"…\", \"role\": "
                                  "\"buttons\"}", field);
                return false;
        }
        json_object_foreach(p, key, v)
                if (strcmp(key, "pad") != 0 && strcmp(key, "role") != 0) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s.%.32s: no such member (pad, role)", field, key);
                        return false;
                }
        if (!is_pad_id(id)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s.pad: must be a pad id, 16 lowercase hex digits as in "
                                  "GET /v1/pads", field);
                return false;
        }
        if (role && !json_is_null(role) && (r = eng_role_from_name(json_string_value(role))) < 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s.role: must be \"buttons\", \"slap\" or \"keypad\"",
                                  field);
                return false;
        }
        if ((r == ENG_ROLE_KEYPAD) != (seat == 0)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s.role: %s", field,
                                  seat ? "a seat's pads are its \"buttons\" and \"slap\" pads; the table's "
                                         "referee keypad goes in the table's \"pads\""
                                       : "the table's own pads are referee keypads (\"keypad\")");
                return false;
        }
        for (size_t i = 0; i < json_array_size(pads); i++)
                if (strcmp(json_string_value(json_object_get(json_array_get(pads, i), "pad")), id) == 0) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s.pad: pad %s is listed twice", field, id);
                        return false;
                }
        json_array_append_new(pads, json_pack("{s:I, s:s, s:s}", "seat", seat, "pad", id, "role",
                                              eng_role_name((enum eng_pad_role) r)));
        return true;
}

/* Checks one seat object; replies 400 naming the field and returns false.
 * Its pads go to pads. */
static bool check_seat(struct api_request *req, size_t i, json_t *seat, uint32_t *seen_seats, json_t *pads) {
        json_t *n = json_object_get(seat, "seat"), *pad = json_object_get(seat, "pad"),
               *list = json_object_get(seat, "pads"), *buttons = json_object_get(seat, "buttons"), *v;
        char field[64];
        const char *key;
        size_t k;

        if (!json_is_object(seat)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats[%zu]: must be an object {\"seat\": 1, \"pads\": […]}", i);
                return false;
        }
        json_object_foreach(seat, key, v)
                if (strcmp(key, "seat") != 0 && strcmp(key, "pad") != 0 && strcmp(key, "pads") != 0 &&
                    strcmp(key, "buttons") != 0) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats[%zu].%.32s: no such member (seat, pads, pad, "
                                          "buttons)", i, key);
                        return false;
                }
        if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > TABLE_MAX_SEATS) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats[%zu].seat: must be a whole number from 1 to %d",
                                  i, TABLE_MAX_SEATS);
                return false;
        }
        uint32_t bit = 1u << json_integer_value(n);
        if (*seen_seats & bit) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats[%zu].seat: seat %lld is listed twice",
                                  i, (long long) json_integer_value(n));
                return false;
        }
        *seen_seats |= bit;
        if (pad && !json_is_null(pad) && list) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats[%zu]: give \"pad\" (its button pad) or "
                                  "\"pads\" (each with its role), not both", i);
                return false;
        }
        if (pad && !json_is_null(pad)) {
                json_t *one = json_pack("{s:O}", "pad", pad);
                bool ok;

                snprintf(field, sizeof field, "seats[%zu]", i);
                ok = check_pad(req, field, one, json_integer_value(n), pads);
                json_decref(one);
                if (!ok)
                        return false;
        }
        if (list && !json_is_null(list)) {
                if (!json_is_array(list)) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats[%zu].pads: must be a list of "
                                          "{\"pad\", \"role\"}", i);
                        return false;
                }
                json_array_foreach(list, k, v) {
                        snprintf(field, sizeof field, "seats[%zu].pads[%zu]", i, k);
                        if (!check_pad(req, field, v, json_integer_value(n), pads))
                                return false;
                }
        }
        if (buttons && !json_is_null(buttons)) {
                if (!json_is_object(buttons)) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                          "seats[%zu].buttons: must map button numbers to calls, e.g. "
                                          "{\"0\": \"row-1\", \"6\": \"doesnt-fit\"}", i);
                        return false;
                }
                json_object_foreach(buttons, key, v) {
                        char *end;
                        long b = strtol(key, &end, 10);
                        size_t len = json_string_length(v);
                        if (!*key || *end || b < 0 || b > BUTTON_MAX || !isdigit((unsigned char) key[0])) {
                                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                                  "seats[%zu].buttons: \"%.20s\" is not a button number 0 to %d",
                                                  i, key, BUTTON_MAX);
                                return false;
                        }
                        if (!json_is_string(v) || len == 0 || len > CALL_NAME_MAX) {
                                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                                  "seats[%zu].buttons.%s: must be a call name of 1 to %d characters",
                                                  i, key, CALL_NAME_MAX);
                                return false;
                        }
                        if (!is_call_name(json_string_value(v))) {
                                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                                  "seats[%zu].buttons.%s: \"%.32s\" is no call of any game "
                                                  "(Crash Pilot: \"row 1\" to \"row 6\", \"doesn't fit\")",
                                                  i, key, json_string_value(v));
                                return false;
                        }
                }
        }
        return true;
}

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
                if (error && strstr(error, "tables_name_key"))
                        api_reply_problem(req, MHD_HTTP_CONFLICT, "a table with this name exists already");
                else if (error && strstr(error, "table_pads_pad_id_key"))
                        api_reply_problem(req, MHD_HTTP_CONFLICT,
                                          "a pad in this table already sits at another table; a pad has one seat");
                else
                        api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the table query failed: %s", error);
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
        json_t *seats = json_object_get(req->body, "seats"), *table_pads = json_object_get(req->body, "pads");
        const char *name = json_string_value(json_object_get(req->body, "name")), *problem;
        json_t *pads, *seat, *v;
        uint32_t seen = 0;
        const char *key;
        char field[32];
        size_t i;
        int r;

        if (!json_is_object(req->body)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "send a JSON object: {\"name\": \"table-a\", \"seats\": [{\"seat\": 1, \"pad\": \"…\"}]}");
                return;
        }
        problem = api_name_problem(name);
        if (problem) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "name: %s", problem);
                return;
        }
        json_object_foreach(req->body, key, v)
                if (strcmp(key, "name") != 0 && strcmp(key, "seats") != 0 && strcmp(key, "pads") != 0) {
                        api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%.32s: no such member of a table (name, seats, "
                                          "pads)", key);
                        return;
                }
        if (!json_is_array(seats) || json_array_size(seats) < 1 || json_array_size(seats) > TABLE_MAX_SEATS) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "seats: must be a list of 1 to %d seats", TABLE_MAX_SEATS);
                return;
        }
        if (table_pads && !json_is_null(table_pads) && !json_is_array(table_pads)) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "pads: must be a list of the table's own pads, "
                                  "[{\"pad\": \"…\", \"role\": \"keypad\"}]");
                return;
        }
        pads = json_array();
        json_array_foreach(seats, i, seat)
                if (!check_seat(req, i, seat, &seen, pads)) {
                        json_decref(pads);
                        return;
                }
        json_array_foreach(table_pads, i, v) {
                snprintf(field, sizeof field, "pads[%zu]", i);
                if (!check_pad(req, field, v, 0, pads)) {
                        json_decref(pads);
                        return;
                }
        }

        char *seats_text = json_dumps(seats, JSON_COMPACT), *pads_text = json_dumps(pads, JSON_COMPACT);
        json_decref(pads);
        if (!seats_text || !pads_text) {
                free(seats_text);
                free(pads_text);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        const char *params[] = { name, seats_text, req->token_name, pads_text };
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

static void on_station_token(void *userdata, const char *token, json_t *resource, const char *error) {
        struct api_request *req = userdata;
        struct auth_entry e = { .role = AUTH_ROLE_SEAT };

        if (!resource) {
                if (error && strcmp(error, API_NO_SUCH_SEAT) == 0)
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
        if (seat > TABLE_MAX_SEATS) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "seat: there is no seat %lld; seats are 1 to %d", seat,
                                  TABLE_MAX_SEATS);
                return;
        }
        r = api_seat_token_create(req->deps->store, 0, id, (int) seat, req->token_name, on_station_token, req);
        if (r < 0)
                reply_store_error(req, r);
}
