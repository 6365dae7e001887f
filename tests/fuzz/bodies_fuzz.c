/* libFuzzer target: the JSON bodies of every write route (api/bodies.c),
 * through the functions the handlers call, in server.c's order: the body
 * parsed as the server parses it (JSON_REJECT_DUPLICATES; no bytes: no
 * body), the route's members rule (body_members with the route's entry in
 * api_routes), then the route's decoder.
 *
 * Input: byte 0 picks the route: below 0x80 one of the routes with a
 * decoder (bodies_decoders), from 0x80 any route of api_routes but its
 * GETs; byte 1 what the decoding depends on besides the body (an input's game,
 * seat count and token; whether a tournament's match_config is checked;
 * which stored match a result is for), the rest is the body.  A route
 * with no decoder below has only the members rule (a route that takes
 * no body, or one whose handler is not yet split: it is fuzzed as far
 * as the server goes).
 *
 * Invariants:
 *   - every decoder below belongs to a route of api_routes;
 *   - body_members passes exactly when the route takes "*", or the body
 *     is absent, or it is an object whose keys are all listed (a route
 *     with no list: {} only), or a non-object on a route with a list; a
 *     refusal names a key of the body the route does not take;
 *   - a decoder returns 0 and no problem, or -EINVAL and a problem: an
 *     RFC 9457 object (type, title = the status's reason, status 400 or,
 *     for an input, 403/404, a non-empty detail under 1024 bytes, a string
 *     "field" when there is one, nothing else);
 *   - decoding leaves the body as it was, and decoding twice gives the
 *     same outcome;
 *   - what a decoder accepts holds its documented ranges (names, seats,
 *     pads, roles, ids, seeds, confirm), and: a match's config written by
 *     match_json_config_to and its data by match_json_data_to read back
 *     to the same values; an input written by match_json_input_to reads
 *     back to the same input, comes from a sender its definition allows
 *     and acts for a seat the match has (a seat token: its own); a
 *     result body_results decodes is judged against its match as the
 *     tournament service judges it (org_stage_result_check), and one it
 *     accepts reads back the same through org_stage_result_json.
 *
 * tests/unit/test_fuzz_bodies.c includes this file and replays
 * tests/fuzz/corpus/bodies/ through bodies_fuzz_check() with FUZZ_ASSERT
 * mapped to cmocka, so an input kept there is a regression test.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "api/api.h"
#include "api/bodies.h"
#include "api/problem.h"
#include "hardware/padbus.h"
#include "match/json.h"
#include "organiser/stage.h"
#include "store/stages.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* api/problem.c's room for a detail, with its NUL. */
#define BODIES_DETAIL_MAX       1024

enum decoder {
        D_NONE,                 /* the route takes no body: the members rule is all */
        D_TOKEN,
        D_TABLE,
        D_MATCH,
        D_INPUT,
        D_PLAYER_NEW,
        D_PLAYER_UPDATE,
        D_TOURNAMENT,
        D_STATE,
        D_REGISTRATION,
        D_STAGE,
        D_CALL,
        D_RESULT,
        D_CORRECTION,
        D_VENUE,
};

/* The routes whose handlers call a decoder of api/bodies.h. */
static const struct {
        const char *method, *pattern;
        enum decoder decoder;
} bodies_decoders[] = {
        { "POST",  "/v1/tokens", D_TOKEN },
        { "POST",  "/v1/tables", D_TABLE },
        { "POST",  "/v1/matches", D_MATCH },
        { "POST",  "/v1/matches/{id}/inputs", D_INPUT },
        { "POST",  "/v1/matches/{id}/preview", D_INPUT },
        { "POST",  "/v1/players", D_PLAYER_NEW },
        { "PATCH", "/v1/players/{id}", D_PLAYER_UPDATE },
        { "POST",  "/v1/tournaments", D_TOURNAMENT },
        { "POST",  "/v1/tournaments/{id}/state", D_STATE },
        { "POST",  "/v1/tournaments/{id}/registrations", D_REGISTRATION },
        { "POST",  "/v1/tournaments/{id}/stages", D_STAGE },
        { "POST",  "/v1/tournaments/{id}/matches/{match}/call", D_CALL },
        { "POST",  "/v1/tournaments/{id}/matches/{match}/result", D_RESULT },
        { "POST",  "/v1/tournaments/{id}/matches/{match}/corrections", D_CORRECTION },
        { "POST",  "/v1/venues", D_VENUE },
};
#define BODIES_N_DECODERS (sizeof bodies_decoders / sizeof bodies_decoders[0])

/* Stages a result is entered for, as the stage repository gives them
 * (store_stages_snapshot): a duel format and a pod format, each with a
 * pending match and a done one. */
static const struct store_stage_participant bodies_seats[][4] = {
        { { 1, 4, "Ana" }, { 2, 9, "Ben" } },
        { { 1, 12, "Cy" }, { 2, 15, "Di" } },
        { { 1, 1, "A" }, { 2, 2, "B" }, { 3, 3, "C" }, { 4, 4, "D" } },
        { { 1, 5, "E" }, { 2, 3, "C" }, { 3, 1, "A" } },
};
static const int64_t bodies_tables[] = { 1, 2 };
static const struct store_stage_snapshot bodies_snapshots[] = {
        {
                .tournament = 1, .game = "crash-pilot", .tournament_state = "running", .seed = 7,
                .match_config = "{}",
                .stage = { .id = 3, .number = 1, .format = "swiss", .config = "{\"rounds\": 3}",
                           .state = STORE_STAGE_RUNNING },
                .entrants = (const struct store_stage_entrant[]) {
                        { 4, "Ana", "active", false, 0, 0 }, { 9, "Ben", "active", false, 0, 0 },
                        { 12, "Cy", "active", false, 0, 0 }, { 15, "Di", "dropped", false, 0, 0 },
                },
                .n_entrants = 4,
                .matches = (const struct store_stage_match_row[]) {
                        { .id = 100, .tournament = 1, .stage = 1, .round = 1, .table_no = 1, .bracket_id = -1,
                          .state = STORE_MATCH_PENDING, .participants = bodies_seats[0], .n_participants = 2 },
                        { .id = 101, .tournament = 1, .stage = 1, .round = 1, .table_no = 2, .bracket_id = -1,
                          .state = STORE_MATCH_DONE, .participants = bodies_seats[1], .n_participants = 2,
                          .result = "[{\"player\": 12, \"rank\": 1, \"score\": 1, \"forfeit\": false}, "
                                    "{\"player\": 15, \"rank\": 2, \"score\": 0, \"forfeit\": false}]" },
                },
                .n_matches = 2,
        },
        {
                .tournament = 2, .game = "crash-pilot", .tournament_state = "running", .seed = 8,
                .tables = bodies_tables, .n_tables = 2, .match_config = "{}",
                .stage = { .id = 4, .number = 1, .format = "pod_swiss",
                           .config = "{\"rounds\": 3, \"table_size\": 4, \"points\": {\"mode\": \"placement\"}}",
                           .state = STORE_STAGE_RUNNING, .confirm = "\"referee\"" },
                .entrants = (const struct store_stage_entrant[]) {
                        { 1, "A", "active", true, 1.5, 0 }, { 2, "B", "active", false, 0, 0 },
                        { 3, "C", "active", false, 0, 0 }, { 4, "D", "active", false, 0, 0 },
                        { 5, "E", "active", false, 0, 0 },
                },
                .n_entrants = 5,
                .matches = (const struct store_stage_match_row[]) {
                        { .id = 7, .tournament = 2, .stage = 1, .round = 1, .table_no = 1, .bracket_id = -1,
                          .state = STORE_MATCH_CALLED, .table = 1, .match = 30, .participants = bodies_seats[2],
                          .n_participants = 4 },
                        { .id = 8, .tournament = 2, .stage = 1, .round = 2, .table_no = 1, .bracket_id = -1,
                          .state = STORE_MATCH_PENDING, .participants = bodies_seats[3], .n_participants = 3 },
                },
                .n_matches = 2,
                .byes = (const struct store_stage_bye[]) { { 1, 5, "E" } },
                .n_byes = 1,
        },
};
#define BODIES_N_SNAPSHOTS (sizeof bodies_snapshots / sizeof bodies_snapshots[0])

/* The routes that take a body: every one but the GETs, in api_routes' order. */
static const struct route *bodies_routes[64];
static size_t bodies_n_routes;

static enum decoder bodies_decoder_of(const struct route *r) {
        for (size_t k = 0; k < BODIES_N_DECODERS; k++)
                if (strcmp(bodies_decoders[k].method, r->method) == 0 &&
                    strcmp(bodies_decoders[k].pattern, r->pattern) == 0)
                        return bodies_decoders[k].decoder;
        return D_NONE;
}

static const struct route *bodies_route(const char *method, const char *pattern) {
        for (size_t i = 0; i < bodies_n_routes; i++)
                if (strcmp(bodies_routes[i]->method, method) == 0 && strcmp(bodies_routes[i]->pattern, pattern) == 0)
                        return bodies_routes[i];
        return NULL;
}

static void bodies_route_table(void) {
        for (size_t i = 0; i < api_n_routes; i++)
                if (strcmp(api_routes[i].method, "GET") != 0) {
                        FUZZ_ASSERT(bodies_n_routes < sizeof bodies_routes / sizeof bodies_routes[0]);
                        bodies_routes[bodies_n_routes++] = &api_routes[i];
                }
        /* a decoder whose route went away, or moved, is noticed */
        for (size_t k = 0; k < BODIES_N_DECODERS; k++)
                FUZZ_ASSERT(bodies_route(bodies_decoders[k].method, bodies_decoders[k].pattern));
}

static bool bodies_listed(const char *members, const char *key) {
        size_t n = strlen(key);

        for (const char *m = members; *m;) {
                size_t len = strcspn(m, " ");

                if (len == n && memcmp(m, key, n) == 0)
                        return true;
                m += len + strspn(m + len, " ");
        }
        return false;
}

/* A problem as bodies.h promises it; status one of allowed (0-ended). */
static void bodies_check_problem(json_t *p, const unsigned *allowed) {
        json_t *status = json_object_get(p, "status"), *detail = json_object_get(p, "detail"),
               *field = json_object_get(p, "field");
        bool ok = false;

        FUZZ_ASSERT(json_is_object(p));
        FUZZ_ASSERT(json_is_integer(status));
        for (const unsigned *a = allowed; *a; a++)
                ok |= json_integer_value(status) == (json_int_t) *a;
        FUZZ_ASSERT(ok);
        FUZZ_ASSERT(json_is_string(json_object_get(p, "type")) &&
                    strcmp(json_string_value(json_object_get(p, "type")), "about:blank") == 0);
        FUZZ_ASSERT(json_is_string(json_object_get(p, "title")) &&
                    strcmp(json_string_value(json_object_get(p, "title")),
                           problem_reason((unsigned) json_integer_value(status))) == 0);
        FUZZ_ASSERT(json_is_string(detail) && json_string_length(detail) > 0 &&
                    json_string_length(detail) < BODIES_DETAIL_MAX);
        FUZZ_ASSERT(!field || json_is_string(field));
        FUZZ_ASSERT(json_object_size(p) == 4u + (field != NULL));
}

static const unsigned bodies_400[] = { 400, 0 };
static const unsigned bodies_input_statuses[] = { 400, 403, 404, 0 };

/* The outcome of one decoding: what two runs must agree on. */
struct bodies_outcome {
        int r;
        json_t *problem;
        char *summary;          /* the decoded values, as text */
};

static void bodies_outcome_done(struct bodies_outcome *o) {
        json_decref(o->problem);
        free(o->summary);
}

static char *bodies_dump(json_t *j) {
        char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

        json_decref(j);
        return s;
}

/* ---- what each decoder promises of what it accepts ------------------------- */

static bool bodies_name_ok(const char *s) {
        return s && !api_name_problem(s);
}

static bool bodies_text_ok(const char *s, size_t max) {
        return !s || (strlen(s) >= 1 && strlen(s) <= max);
}

static char *bodies_token(json_t *body, const struct body_token *t) {
        FUZZ_ASSERT(bodies_name_ok(t->name));
        FUZZ_ASSERT(t->name == json_string_value(json_object_get(body, "name")));
        FUZZ_ASSERT(t->role == AUTH_ROLE_DISPLAY || t->role == AUTH_ROLE_REFEREE || t->role == AUTH_ROLE_ADMIN);
        return bodies_dump(json_pack("{s:s, s:i}", "name", t->name, "role", (int) t->role));
}

/* The pads a table's body lists: each seat's "pad" or "pads", the table's "pads". */
static size_t bodies_count_pads(json_t *body) {
        size_t n = json_array_size(json_object_get(body, "pads")), i;
        json_t *seat;

        json_array_foreach(json_object_get(body, "seats"), i, seat) {
                json_t *pad = json_object_get(seat, "pad");

                n += pad && !json_is_null(pad);
                n += json_array_size(json_object_get(seat, "pads"));
        }
        return n;
}

/* A venue's id as migrations/0010_venues.sql's CHECK reads it:
 * ^[a-z0-9][a-z0-9_-]{0,31}$, written out again. */
static bool bodies_venue_id_ok(const char *s) {
        size_t n = s ? strlen(s) : 0;

        if (n < 1 || n > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789") < 1)
                return false;
        return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

static char *bodies_venue(json_t *body, const struct body_venue *v) {
        json_t *name = json_object_get(body, "name");
        size_t chars = 0;

        FUZZ_ASSERT(bodies_venue_id_ok(v->id) && v->id == json_string_value(json_object_get(body, "id")));
        if (json_is_string(name)) {
                FUZZ_ASSERT(v->name == json_string_value(name));
                for (const char *c = v->name; *c; c++)
                        chars += ((unsigned char) *c & 0xc0) != 0x80;
                FUZZ_ASSERT(chars >= 1 && chars <= 64);
        } else {
                FUZZ_ASSERT(!name || json_is_null(name));
                FUZZ_ASSERT(v->name == v->id);
        }
        return bodies_dump(json_pack("{s:s, s:s}", "id", v->id, "name", v->name));
}

static char *bodies_table(json_t *body, const struct body_table *t) {
        json_t *venue = json_object_get(body, "venue");
        uint32_t seats = 0;
        json_t *s, *p;
        size_t i, k;

        FUZZ_ASSERT(bodies_name_ok(t->name));
        FUZZ_ASSERT(venue && !json_is_null(venue) ? t->venue == json_string_value(venue) && bodies_venue_id_ok(t->venue)
                                                  : t->venue == NULL);
        FUZZ_ASSERT(t->seats == json_object_get(body, "seats"));
        FUZZ_ASSERT(json_array_size(t->seats) >= 1 && json_array_size(t->seats) <= BODY_TABLE_MAX_SEATS);
        json_array_foreach(t->seats, i, s) {
                json_int_t n = json_integer_value(json_object_get(s, "seat"));

                FUZZ_ASSERT(n >= 1 && n <= BODY_TABLE_MAX_SEATS && !(seats & 1u << n));
                seats |= 1u << n;
        }
        FUZZ_ASSERT(json_is_array(t->pads) && json_array_size(t->pads) == bodies_count_pads(body));
        json_array_foreach(t->pads, i, p) {
                json_int_t seat = json_integer_value(json_object_get(p, "seat"));
                const char *id = json_string_value(json_object_get(p, "pad")),
                           *role = json_string_value(json_object_get(p, "role"));

                FUZZ_ASSERT(json_object_size(p) == 3 && json_is_integer(json_object_get(p, "seat")));
                FUZZ_ASSERT(seat == 0 || (seat >= 1 && (seats & 1u << seat)));
                FUZZ_ASSERT(id && strlen(id) == PAD_ID_LEN && strspn(id, "0123456789abcdef") == PAD_ID_LEN);
                FUZZ_ASSERT(role && (strcmp(role, "keypad") == 0) == (seat == 0));
                FUZZ_ASSERT(strcmp(role, "keypad") == 0 || strcmp(role, "buttons") == 0 || strcmp(role, "slap") == 0);
                for (k = 0; k < i; k++)
                        FUZZ_ASSERT(strcmp(json_string_value(json_object_get(json_array_get(t->pads, k), "pad")), id));
        }
        return bodies_dump(json_pack("{s:s, s:O, s:O}", "name", t->name, "seats", t->seats, "pads", t->pads));
}

static bool bodies_same_data(const struct eng_game *g, const struct eng_data *a, const struct eng_data *b) {
        for (size_t i = 0; i < g->n_data; i++) {
                if ((a->text[i] == NULL) != (b->text[i] == NULL))
                        return false;
                if (a->text[i] && (a->len[i] != b->len[i] || memcmp(a->text[i], b->text[i], a->len[i]) != 0))
                        return false;
        }
        return true;
}

static char *bodies_match(json_t *body, const struct body_match *m) {
        struct eng_config cfg;
        struct eng_data data;
        struct eng_error err;
        json_t *seat, *j;
        size_t i;

        FUZZ_ASSERT(m->game && m->game == eng_game_find(json_string_value(json_object_get(body, "game"))));
        FUZZ_ASSERT(m->n_seats >= m->game->min_seats && m->n_seats <= m->game->max_seats);
        FUZZ_ASSERT(json_array_size(m->seats) == m->n_seats);
        json_array_foreach(m->seats, i, seat) {
                FUZZ_ASSERT(json_integer_value(json_object_get(seat, "seat")) == (json_int_t) i + 1);
                FUZZ_ASSERT(bodies_name_ok(json_string_value(json_object_get(seat, "name"))));
        }
        FUZZ_ASSERT(m->table_id >= 0);
        FUZZ_ASSERT(!m->has_seed || m->seed <= (uint64_t) INT64_MAX);
        FUZZ_ASSERT(m->confirm || m->confirm_timeout_s == 0);
        FUZZ_ASSERT(m->confirm_timeout_s >= 0 && m->confirm_timeout_s <= MATCH_CONFIRM_TIMEOUT_MAX_S);
        /* the config as the API shows it reads back to the same config */
        j = match_json_config_to(m->game, &m->cfg);
        if (j) {
                FUZZ_ASSERT(match_json_config_from(m->game, j, &m->data, m->n_seats, &cfg, &err) == 0);
                FUZZ_ASSERT(memcmp(cfg.v, m->cfg.v, sizeof cfg.v) == 0);
                json_decref(j);
        }
        j = match_json_data_to(m->game, &m->data);
        if (j) {
                FUZZ_ASSERT(match_json_data_from(m->game, j, &data, &err) == 0);
                FUZZ_ASSERT(bodies_same_data(m->game, &m->data, &data));
                json_decref(j);
        }
        return bodies_dump(json_pack("{s:s, s:I, s:b, s:I, s:b, s:I, s:O, s:o}", "game", m->game->name, "table",
                                     (json_int_t) m->table_id, "has_seed", m->has_seed, "seed",
                                     (json_int_t) m->seed, "confirm", m->confirm, "timeout",
                                     (json_int_t) m->confirm_timeout_s, "seats", m->seats, "config",
                                     match_json_config_to(m->game, &m->cfg)));
}

static char *bodies_input(json_t *body, const struct body_input_ctx *c, const struct eng_input *in,
                          const char *reason) {
        const struct eng_input_def *def = eng_input_def_of(c->game, in);
        json_t *why = json_object_get(body, "reason"), *j;
        struct eng_input back;
        struct eng_error err;

        FUZZ_ASSERT(def);
        FUZZ_ASSERT(c->role != AUTH_ROLE_SEAT || (def->from & ENG_FROM_SEAT));
        FUZZ_ASSERT(c->role < AUTH_ROLE_REFEREE || (def->from & ENG_FROM_REFEREE));
        FUZZ_ASSERT(in->seat == ENG_SEAT_TABLE || (in->seat >= 0 && (unsigned) in->seat < c->n_seats));
        FUZZ_ASSERT(c->role != AUTH_ROLE_SEAT || in->seat == ENG_SEAT_TABLE || in->seat == c->token_seat - 1);
        FUZZ_ASSERT(strlen(reason) < MATCH_REASON_MAX);
        FUZZ_ASSERT(json_is_string(why) ? strcmp(reason, json_string_value(why)) == 0 : reason[0] == '\0');
        /* the log's form of the input reads back to the same input */
        j = match_json_input_to(c->game, in);
        if (j) {
                memset(&back, 0, sizeof back);
                FUZZ_ASSERT(match_json_input_from(c->game, j, &back, &err) == 0);
                FUZZ_ASSERT(back.seq == in->seq && back.time_us == in->time_us && back.seat == in->seat &&
                            back.kind == in->kind && back.action == in->action &&
                            memcmp(back.arg, in->arg, sizeof back.arg) == 0);
        }
        return bodies_dump(json_pack("{s:o, s:s}", "input", j ? j : json_null(), "reason", reason));
}

static char *bodies_player(json_t *body, bool update, const struct body_player *p) {
        FUZZ_ASSERT(bodies_text_ok(p->name, BODY_TEXT_MAX) && bodies_text_ok(p->club, BODY_TEXT_MAX) &&
                    bodies_text_ok(p->external_id, BODY_TEXT_MAX));
        if (!update) {
                FUZZ_ASSERT(p->name);
        } else {
                FUZZ_ASSERT(p->active >= -1 && p->active <= 1);
                FUZZ_ASSERT(p->club_given == (json_object_get(body, "club") != NULL));
                FUZZ_ASSERT(p->external_id_given == (json_object_get(body, "external_id") != NULL));
                FUZZ_ASSERT(p->name || !json_object_get(body, "name"));
        }
        return bodies_dump(json_pack("{s:s?, s:s?, s:s?, s:b, s:b, s:i}", "name", p->name, "club", p->club,
                                     "external_id", p->external_id, "club_given", p->club_given,
                                     "external_id_given", p->external_id_given, "active", p->active));
}

static char *bodies_tournament(bool check, const struct body_tournament *t) {
        const struct eng_game *g = eng_game_find(t->game);
        struct eng_config cfg;
        struct eng_error err;
        json_t *it;
        size_t i;

        FUZZ_ASSERT(t->name && strlen(t->name) >= 1 && strlen(t->name) <= BODY_TOURNAMENT_NAME_MAX);
        FUZZ_ASSERT(g);
        FUZZ_ASSERT(!t->has_seed || (!t->competitive && t->seed <= (uint64_t) INT64_MAX));
        FUZZ_ASSERT(!t->config || json_is_object(t->config));
        FUZZ_ASSERT(!check || !t->config || match_json_config_from(g, t->config, NULL, g->min_seats, &cfg, &err) == 0);
        FUZZ_ASSERT(!t->tables || json_array_size(t->tables) <= BODY_TOURNAMENT_TABLES_MAX);
        json_array_foreach(t->tables, i, it)
                FUZZ_ASSERT(json_is_integer(it) && json_integer_value(it) >= 1);
        return bodies_dump(json_pack("{s:s, s:s, s:b, s:b, s:I, s:O?, s:O?}", "name", t->name, "game", t->game,
                                     "competitive", t->competitive, "has_seed", t->has_seed, "seed",
                                     (json_int_t) t->seed, "config", t->config, "tables", t->tables));
}

static char *bodies_stage(json_t *body, const struct body_stage *s) {
        struct tour_stage_error e = { "" };

        FUZZ_ASSERT(s->format && s->format == json_string_value(json_object_get(body, "format")));
        FUZZ_ASSERT(tour_stage_config_check(&s->cfg, BODY_STAGE_CHECK_FIELD, &e) == 0 || strstr(e.text, "n_entrants"));
        FUZZ_ASSERT(!s->has_advance || (s->advance >= 2 && s->advance <= BODY_STAGE_ADVANCE_MAX));
        FUZZ_ASSERT(s->confirm_by_referee || s->confirm_timeout_s == 0);
        FUZZ_ASSERT(s->confirm_timeout_s >= 0 && s->confirm_timeout_s <= MATCH_CONFIRM_TIMEOUT_MAX_S);
        FUZZ_ASSERT(!s->confirm || !json_is_null(s->confirm));
        return bodies_dump(json_pack("{s:s, s:o, s:b, s:i, s:b, s:I}", "format", s->format, "config",
                                     org_stage_config_to_json(&s->cfg), "has_advance", s->has_advance, "advance",
                                     s->advance, "by_referee", s->confirm_by_referee, "timeout",
                                     (json_int_t) s->confirm_timeout_s));
}

/* A result the service accepted for stored match i. */
static json_t *bodies_result(const struct org_stage *d, size_t i, const struct tour_result *r) {
        const struct tour_stage_match *m = &d->matches[i];
        struct org_result_entry e[TOUR_MAX_SEATS];
        struct tour_result back;
        json_t *problem, *again, *it;
        char err[BODIES_DETAIL_MAX];
        size_t k, n;

        FUZZ_ASSERT(r->n == m->n && r->round == m->round);
        for (int s = 0; s < r->n; s++) {
                FUZZ_ASSERT(r->entrant[s] == m->entrant[s]);
                FUZZ_ASSERT(r->rank[s] >= 1 && r->rank[s] <= r->n);
        }
        /* the stored form reads back to the same result */
        again = org_stage_result_json(d, r);
        json_array_foreach(again, k, it)
                json_object_del(it, "name");
        FUZZ_ASSERT(body_results(again, e, TOUR_MAX_SEATS, &n, &problem) == 0 && !problem);
        FUZZ_ASSERT(org_stage_result_check(d, i, e, n, &back, err, sizeof err) == 0);
        for (int s = 0; s < r->n; s++)
                FUZZ_ASSERT(back.entrant[s] == r->entrant[s] && back.rank[s] == r->rank[s] &&
                            back.score[s] == r->score[s] && back.forfeit[s] == r->forfeit[s]);
        return again;
}

/* ---- one decoding ----------------------------------------------------------- */

struct bodies_params {
        struct body_input_ctx input;
        bool check_config;
        struct org_stage *stage;
        size_t match;
};

/* The results member of body decoded as the handler does, then judged
 * against the params' stage as the tournament service does once it has
 * the stage's snapshot.  The problem or the refusal, if any, is checked
 * and summarised into *o. */
static void bodies_results(json_t *body, const struct bodies_params *p, struct bodies_outcome *o) {
        struct org_result_entry e[TOUR_MAX_SEATS];
        struct tour_result r;
        char err[BODIES_DETAIL_MAX];
        json_t *problem;
        size_t n;

        char *head = o->summary;
        json_t *j;

        if (body_results(json_object_get(body, "results"), e, TOUR_MAX_SEATS, &n, &problem) < 0) {
                bodies_check_problem(problem, bodies_400);
                j = problem;
        } else {
                FUZZ_ASSERT(!problem && n <= TOUR_MAX_SEATS);
                if (org_stage_result_check(p->stage, p->match, e, n, &r, err, sizeof err) < 0) {
                        /* the service's words, for a 400 */
                        FUZZ_ASSERT(err[0] && strlen(err) < BODIES_DETAIL_MAX - 1);
                        j = json_pack("{s:s}", "refused", err);
                } else {
                        j = bodies_result(p->stage, p->match, &r);
                }
        }
        o->summary = bodies_dump(json_pack("{s:s?, s:o}", "head", head, "results", j));
        free(head);
}

static void bodies_decode(enum decoder d, json_t *body, const struct bodies_params *p, struct bodies_outcome *o) {
        const unsigned *statuses = d == D_INPUT ? bodies_input_statuses : bodies_400;
        json_t *problem = NULL;
        char *summary = NULL;
        int r = 0;

        switch (d) {
        case D_NONE:
                break;
        case D_TOKEN: {
                struct body_token t;
                if ((r = body_token(body, &t, &problem)) == 0)
                        summary = bodies_token(body, &t);
                break;
        }
        case D_TABLE: {
                struct body_table t;
                if ((r = body_table(body, &t, &problem)) == 0) {
                        summary = bodies_table(body, &t);
                        json_decref(t.pads);
                }
                break;
        }
        case D_VENUE: {
                struct body_venue v;
                if ((r = body_venue(body, &v, &problem)) == 0)
                        summary = bodies_venue(body, &v);
                break;
        }
        case D_MATCH: {
                struct body_match m;
                if (!json_is_object(body))      /* the handler's first check */
                        break;
                if ((r = body_match(body, &m, &problem)) == 0) {
                        summary = bodies_match(body, &m);
                        json_decref(m.seats);
                }
                break;
        }
        case D_INPUT: {
                char reason[MATCH_REASON_MAX];
                struct eng_input in;
                if (!json_is_object(body))      /* match_for_input's first check */
                        break;
                memset(&in, 0, sizeof in);
                if ((r = body_input(&p->input, body, &in, reason, &problem)) == 0)
                        summary = bodies_input(body, &p->input, &in, reason);
                break;
        }
        case D_PLAYER_NEW:
        case D_PLAYER_UPDATE: {
                struct body_player pl;
                if ((r = body_player(body, d == D_PLAYER_UPDATE, &pl, &problem)) == 0)
                        summary = bodies_player(body, d == D_PLAYER_UPDATE, &pl);
                break;
        }
        case D_TOURNAMENT: {
                struct body_tournament t;
                if ((r = body_tournament(body, p->check_config, &t, &problem)) == 0)
                        summary = bodies_tournament(p->check_config, &t);
                break;
        }
        case D_STATE: {
                const char *state;
                if ((r = body_tournament_state(body, &state, &problem)) == 0) {
                        FUZZ_ASSERT(strcmp(state, "draft") == 0 || strcmp(state, "registration") == 0 ||
                                    strcmp(state, "check_in") == 0 || strcmp(state, "running") == 0 ||
                                    strcmp(state, "finished") == 0);
                        summary = strdup(state);
                }
                break;
        }
        case D_REGISTRATION: {
                struct body_registration reg;
                if ((r = body_registration(body, &reg, &problem)) == 0) {
                        FUZZ_ASSERT(reg.player >= 1);
                        FUZZ_ASSERT(!reg.has_seed || (reg.seed >= 1 && reg.seed <= BODY_REGISTRATION_SEED_MAX));
                        summary = bodies_dump(json_pack("{s:I, s:b, s:i}", "player", (json_int_t) reg.player,
                                                        "has_seed", reg.has_seed, "seed", reg.seed));
                }
                break;
        }
        case D_STAGE: {
                struct body_stage s;
                if ((r = body_stage(body, &s, &problem)) == 0)
                        summary = bodies_stage(body, &s);
                break;
        }
        case D_CALL: {
                int64_t table;
                if ((r = body_call(body, &table, &problem)) == 0) {
                        FUZZ_ASSERT(table >= 0);
                        summary = bodies_dump(json_integer((json_int_t) table));
                }
                break;
        }
        case D_RESULT:
                if ((r = body_result(body, &problem)) == 0) {
                        FUZZ_ASSERT(json_is_array(json_object_get(body, "results")));
                        o->r = r;
                        bodies_results(body, p, o);
                        return;
                }
                break;
        case D_CORRECTION: {
                struct body_correction c;
                if ((r = body_correction(body, &c, &problem)) == 0) {
                        FUZZ_ASSERT(c.reason && strlen(c.reason) >= 1 && strlen(c.reason) <= BODY_REASON_MAX);
                        FUZZ_ASSERT(c.reset == json_is_true(json_object_get(body, "reset")));
                        o->r = r;
                        o->summary = bodies_dump(json_pack("{s:s, s:b}", "reason", c.reason, "reset", c.reset));
                        bodies_results(body, p, o);
                        return;
                }
                break;
        }
        }
        FUZZ_ASSERT(r == 0 || r == -EINVAL);
        FUZZ_ASSERT((r == 0) == (problem == NULL));
        if (problem)
                bodies_check_problem(problem, statuses);
        o->r = r;
        o->problem = problem;
        o->summary = summary;
}

/* body_members against an independent reading of the rule. */
static void bodies_members(const struct route *route, const char *method, json_t *body, json_t **ret_problem) {
        const char *members = route->members, *key;
        bool expect = true;
        json_t *v;
        int r;

        if (body && !(members && strcmp(members, "*") == 0)) {
                if (!members)
                        expect = json_is_object(body) && json_object_size(body) == 0;
                else if (json_is_object(body))
                        json_object_foreach(body, key, v)
                                expect &= bodies_listed(members, key);
        }
        r = body_members(route, method, body, ret_problem);
        FUZZ_ASSERT((r == 0) == expect && (r == 0) == (*ret_problem == NULL));
        if (r < 0) {
                json_t *field = json_object_get(*ret_problem, "field");

                bodies_check_problem(*ret_problem, bodies_400);
                FUZZ_ASSERT(!members || (json_is_string(field) && json_object_get(body, json_string_value(field)) &&
                                         !bodies_listed(members, json_string_value(field))));
        }
}

static void bodies_params_from(uint8_t b, struct bodies_params *p, struct org_stage **stages) {
        size_t n_games = 0;

        while (eng_games[n_games])
                n_games++;
        const struct eng_game *g = eng_games[b % n_games];
        unsigned span = g->max_seats - g->min_seats + 1;
        static const enum auth_role roles[] = { AUTH_ROLE_SEAT, AUTH_ROLE_REFEREE, AUTH_ROLE_ADMIN, AUTH_ROLE_SEAT };

        p->input = (struct body_input_ctx) {
                .game = g,
                .n_seats = g->min_seats + (b >> 1) % span,
                .match_id = 42,
                .role = roles[(b >> 3) & 3],
                .token_seat = 1 + (b >> 5),
                .token_name = "fuzz",
        };
        p->check_config = b & 1;
        p->stage = stages[(b >> 1) % BODIES_N_SNAPSHOTS];
        p->match = (b >> 2) % p->stage->n_matches;
}

static void bodies_fuzz_check(const uint8_t *data, size_t size) {
        static struct org_stage *stages[BODIES_N_SNAPSHOTS];
        static bool ready;
        struct bodies_outcome a = { 0 }, b = { 0 };
        struct bodies_params p;
        const struct route *route;
        json_t *body = NULL, *copy, *problem;
        json_error_t jerr;

        if (!ready) {
                char err[256];

                bodies_route_table();
                for (size_t i = 0; i < BODIES_N_SNAPSHOTS; i++) {
                        FUZZ_ASSERT(org_stage_from_snapshot(&bodies_snapshots[i], &stages[i], err, sizeof err) == 0);
                        FUZZ_ASSERT(stages[i]->n_matches > 0);
                }
                ready = true;
        }
        if (size < 2)
                return;
        if (data[0] < 0x80)
                route = bodies_route(bodies_decoders[data[0] % BODIES_N_DECODERS].method,
                                     bodies_decoders[data[0] % BODIES_N_DECODERS].pattern);
        else
                route = bodies_routes[(data[0] - 0x80) % bodies_n_routes];
        bodies_params_from(data[1], &p, stages);
        if (size > 2) {
                body = json_loadb((const char *) data + 2, size - 2, JSON_REJECT_DUPLICATES, &jerr);
                if (!body)
                        return;         /* a 400 from the server before any of this */
        }
        copy = body ? json_deep_copy(body) : NULL;
        FUZZ_ASSERT(!body || copy);

        bodies_members(route, route->method, body, &problem);
        if (problem) {
                json_decref(problem);
        } else {
                enum decoder d = bodies_decoder_of(route);

                bodies_decode(d, body, &p, &a);
                FUZZ_ASSERT(!body || json_equal(body, copy));
                bodies_decode(d, body, &p, &b);
                FUZZ_ASSERT(a.r == b.r);
                FUZZ_ASSERT((a.problem == NULL) == (b.problem == NULL));
                FUZZ_ASSERT(!a.problem || json_equal(a.problem, b.problem));
                FUZZ_ASSERT((a.summary == NULL) == (b.summary == NULL));
                FUZZ_ASSERT(!a.summary || strcmp(a.summary, b.summary) == 0);
                bodies_outcome_done(&a);
                bodies_outcome_done(&b);
        }
        json_decref(copy);
        json_decref(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        bodies_fuzz_check(data, size);
        return 0;
}
