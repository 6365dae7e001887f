/* api/tournaments.c — /v1/tournaments: creation, the state machine and
 * registrations (api/tournaments.h says what the tournament files share).
 *
 * States and the moves between them (POST /v1/tournaments/{id}/state):
 *
 *     draft ⇄ registration ⇄ check_in ⇄ running → finished
 *                                          ^           |
 *                                          +-----------+ (reopen)
 *
 *   draft → registration          always
 *   registration → draft          while nobody is registered
 *   registration → check_in       with two or more registrations
 *   check_in → registration       while no stage has made a match
 *   check_in → running            with a stage and two or more checked-in players
 *   running → check_in            while no stage has made a match
 *   running → finished            when every stage is finished
 *   finished → running            reopen: to add a stage (with a new secret, a new epoch:
 *                                 tournaments.h, "Fair draws")
 * Any other move is a 409 naming the moves the current state allows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/sse.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "engine/engine.h"
#include "store/store.h"
#include "tournament/states.h"

#define TOURNAMENT_JSON(t) \
        "jsonb_build_object('id', " t ".id, 'name', " t ".name, 'game', " t ".game, " \
        "'seed', CASE WHEN " t ".state = 'finished' THEN " t ".seed END, " \
        "'competitive', " t ".competitive, 'secrets', " TOUR_SECRETS_JSON(t) ", " \
        "'state', " t ".state, 'match_config', " t ".match_config, 'tables', to_jsonb(" t ".tables), " \
        "'created_by', " t ".created_by, 'created_at', " TOUR_TIME(t ".created_at") ", " \
        "'registrations', (SELECT count(*) FROM registrations r WHERE r.tournament_id = " t ".id), " \
        "'checked_in', (SELECT count(*) FROM registrations r WHERE r.tournament_id = " t ".id " \
        "               AND r.checked_in AND r.status = 'active'), " \
        "'stages', (SELECT coalesce(jsonb_agg(jsonb_build_object('number', s.number, 'format', s.format, " \
        "            'config', s.config, 'advance', s.advance, 'confirm', s.confirm, 'state', s.state, " \
        "            'entrants', coalesce(cardinality(s.entrants), 0), " \
        "            'rounds', (SELECT coalesce(max(m.round), 0) FROM stage_matches m WHERE m.stage_id = s.id)) " \
        "            ORDER BY s.number), '[]'::jsonb) FROM stages s WHERE s.tournament_id = " t ".id), " \
        "'current', (SELECT jsonb_build_object('stage', s.number, 'round', " \
        "             (SELECT coalesce(max(m.round), 0) FROM stage_matches m WHERE m.stage_id = s.id)) " \
        "             FROM stages s WHERE s.tournament_id = " t ".id AND s.state <> 'pending' " \
        "             ORDER BY s.number DESC LIMIT 1))"

#define REGISTRATION_JSON(r, p) \
        "jsonb_build_object('player', " r ".player_id, 'name', " p ".name, 'club', " p ".club, " \
        "'seed', " r ".seed, 'checked_in', " r ".checked_in, 'status', " r ".status, 'late', " r ".late, " \
        "'registered_at', " TOUR_TIME(r ".registered_at") ")"

/* ---- shared replies and events ------------------------------------------ */

void tour_reply_row(struct api_request *req, unsigned status, const PGresult *res, const char *error,
                    const char *what) {
        json_t *j;

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the %s query failed: %s", what, error);
                return;
        }
        if (PQntuples(res) == 0 || PQgetisnull(res, 0, 0)) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no %s %s", what,
                                  route_param(&req->match, "id") ? route_param(&req->match, "id") : "");
                return;
        }
        j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        if (!j) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the database returned a %s that is not JSON",
                                  what);
                return;
        }
        if (json_is_string(json_object_get(j, "error"))) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "%s", json_string_value(json_object_get(j, "error")));
                json_decref(j);
                return;
        }
        api_reply_json(req, status, j);
}

void tour_on_row(void *userdata, const PGresult *res, const char *error) {
        tour_reply_row(userdata, MHD_HTTP_OK, res, error, "tournament");
}

void tour_on_created(void *userdata, const PGresult *res, const char *error) {
        tour_reply_row(userdata, MHD_HTTP_CREATED, res, error, "tournament");
}

void tour_event(const struct api_deps *deps, int64_t id, const char *event, json_t *data) {
        char topic[40];
        int r;

        if (!data)
                return;
        json_object_set_new(data, "tournament", json_integer(id));
        if (deps->tournament_event)
                deps->tournament_event(deps->userdata, id, event, data);
        snprintf(topic, sizeof topic, "tournament/%" PRId64, id);
        if (deps->events) {
                r = sse_publish(deps->events, topic, event, data);
                if (r < 0 && r != -ESHUTDOWN)
                        log_warning("cannot publish %s of tournament %" PRId64 ": %s", event, id, strerror(-r));
        } else {
                json_decref(data);
        }
}

/* ---- tournaments --------------------------------------------------------- */

static void on_tournament(void *userdata, const PGresult *res, const char *error) {
        tour_reply_row(userdata, MHD_HTTP_OK, res, error, "tournament");
}

static void on_tournament_created(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;

        if (res && PQntuples(res) == 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "tables: names a table that does not exist "
                                  "(GET /v1/tables)");
                return;
        }
        if (res)
                tour_event(req->deps, strtoll(PQgetvalue(res, 0, 1), NULL, 10), "tournament_changed",
                           json_pack("{s:s}", "state", "draft"));
        tour_reply_row(req, MHD_HTTP_CREATED, res, error, "tournament");
}

void handle_tournaments_create(struct api_request *req) {
        char seed_s[24], secret[SEED_HEX_LEN + 1], *config_text, *tables_text;
        struct body_tournament t;
        json_t *problem;
        uint64_t seed_v;
        int r;

        if (body_tournament(req->body, req->deps->matches != NULL, &t, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        /* competitive: the secret is drawn and the seed (the stages' draws)
         * follows from it; otherwise both follow from the seed */
        if (t.competitive) {
                r = tour_secret_new(true, 0, 1, secret);
                if (r == 0)
                        r = tour_tournament_seed(secret, &seed_v);
        } else {
                r = 0;
                if (t.has_seed)
                        seed_v = t.seed;
                else if (getrandom(&seed_v, sizeof seed_v, 0) != (ssize_t) sizeof seed_v)
                        r = errno ? -errno : -EIO;
                seed_v &= (uint64_t) INT64_MAX;         /* tournaments.seed is a bigint */
                if (r == 0)
                        r = tour_secret_new(false, seed_v, 1, secret);
        }
        if (r < 0) {
                explicit_bzero(secret, sizeof secret);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "no random secret: %s", strerror(-r));
                return;
        }
        snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed_v & (uint64_t) INT64_MAX);
        config_text = t.config ? json_dumps(t.config, JSON_COMPACT) : strdup("{}");
        tables_text = t.tables ? json_dumps(t.tables, JSON_COMPACT) : strdup("[]");
        if (!config_text || !tables_text) {
                free(config_text);
                free(tables_text);
                explicit_bzero(secret, sizeof secret);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        const char *p[] = { t.name, t.game, seed_s, config_text, tables_text, req->token_name,
                            t.competitive ? "true" : "false", secret };
        r = store_query(req->deps->store,
                        "WITH t AS (INSERT INTO tournaments (name, game, seed, match_config, tables, created_by, "
                        "                                    competitive, secrets) "
                        "           SELECT $1, $2, $3::bigint, $4::jsonb, "
                        "                  coalesce(array(SELECT jsonb_array_elements_text($5::jsonb)::bigint), '{}'), $6, "
                        "                  $7::boolean, ARRAY[decode($8, 'hex')] "
                        "           WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text($5::jsonb) x "
                        "                             WHERE x::bigint NOT IN (SELECT id FROM tables)) "
                        "           RETURNING *) "
                        "SELECT " TOURNAMENT_JSON("t") ", t.id FROM t",
                        8, p, on_tournament_created, req);
        explicit_bzero(secret, sizeof secret);
        free(config_text);
        free(tables_text);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_tournament_get(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store, "SELECT " TOURNAMENT_JSON("t") " FROM tournaments t WHERE t.id = $1", 1, p,
                        on_tournament, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_tournaments_list(struct api_request *req) {
        reply_list_page(req, "SELECT " TOURNAMENT_JSON("t") " FROM tournaments t WHERE t.id > $1 ORDER BY t.id LIMIT $2");
}

/* ---- the state machine ----------------------------------------------------- */

struct move {
        const char *from, *to;
        const char *needs;              /* what the move needs, for the 409 */
};

static const struct move moves[] = {
        { "draft", "registration", NULL },
        { "registration", "draft", "nobody registered" },
        { "registration", "check_in", "two or more registrations" },
        { "check_in", "registration", "no match made by any stage" },
        { "check_in", "running", "a stage and two or more checked-in players" },
        { "running", "check_in", "no match made by any stage" },
        { "running", "finished", "every stage finished" },
        { "finished", "running", NULL },
};

struct state_ctx {
        struct api_request *req;
        char to[16];
        char from[16];
        int64_t id;
};

/* Whether facts (the counts the check query returns) allow the move. */
static bool move_allowed(const struct move *m, json_t *facts) {
        json_int_t regs = json_integer_value(json_object_get(facts, "regs")),
                   ready = json_integer_value(json_object_get(facts, "ready")),
                   stages = json_integer_value(json_object_get(facts, "stages")),
                   open = json_integer_value(json_object_get(facts, "open_stages")),
                   made = json_integer_value(json_object_get(facts, "made"));

        if (strcmp(m->from, "registration") == 0 && strcmp(m->to, "draft") == 0)
                return regs == 0;
        if (strcmp(m->to, "check_in") == 0 && strcmp(m->from, "registration") == 0)
                return regs >= 2;
        if (strcmp(m->to, "registration") == 0 || strcmp(m->to, "check_in") == 0)
                return made == 0;
        if (strcmp(m->from, "check_in") == 0 && strcmp(m->to, "running") == 0)
                return stages >= 1 && ready >= 2;
        if (strcmp(m->to, "finished") == 0)
                return stages >= 1 && open == 0;
        return true;
}

static void on_moved(void *userdata, const PGresult *res, const char *error) {
        struct state_ctx *c = userdata;

        if (res && PQntuples(res) == 1) {
                json_t *t = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
                /* the commitments go out when it starts, the secrets once
                 * it is finished */
                if (t)
                        tour_event(c->req->deps, c->id, "tournament_changed",
                                   json_pack("{s:s, s:O?, s:O?}", "state", c->to, "current",
                                             json_object_get(t, "current"), "secrets",
                                             json_object_get(t, "secrets")));
                json_decref(t);
                tour_reply_row(c->req, MHD_HTTP_OK, res, error, "tournament");
        } else if (res) {
                api_reply_problem(c->req, MHD_HTTP_CONFLICT, "the tournament changed state meanwhile; try again");
        } else {
                tour_reply_row(c->req, MHD_HTTP_OK, res, error, "tournament");
        }
        free(c);
}

static void on_state_facts(void *userdata, const PGresult *res, const char *error) {
        struct state_ctx *c = userdata;
        struct api_request *req = c->req;
        const struct move *m = NULL;
        char allowed[128] = "";
        json_t *facts;
        int r;

        if (!res || PQntuples(res) == 0) {
                tour_reply_row(req, MHD_HTTP_OK, res, error, "tournament");
                free(c);
                return;
        }
        facts = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        snprintf(c->from, sizeof c->from, "%s", json_string_value(json_object_get(facts, "state")));
        for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
                if (strcmp(moves[i].from, c->from) != 0)
                        continue;
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                         allowed[0] ? ", " : "", moves[i].to);
                if (strcmp(moves[i].to, c->to) == 0)
                        m = &moves[i];
        }
        if (!m) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "state: a tournament in %s can move to %s, not to %s",
                                  c->from, allowed[0] ? allowed : "nothing", c->to);
        } else if (!move_allowed(m, facts)) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "state: %s → %s needs %s", c->from, c->to, m->needs);
        } else {
                /* reopening: the end revealed the secret, so the matches to
                 * come get a new one (a new epoch) */
                json_int_t epochs = json_integer_value(json_object_get(facts, "epochs"));
                char secret[SEED_HEX_LEN + 1], epochs_s[24];
                bool reopen = strcmp(c->from, "finished") == 0;

                snprintf(epochs_s, sizeof epochs_s, "%lld", (long long) epochs);
                r = reopen ? tour_secret_new(json_is_true(json_object_get(facts, "competitive")),
                                             (uint64_t) json_integer_value(json_object_get(facts, "seed")),
                                             (uint32_t) epochs + 1, secret)
                           : 0;
                json_decref(facts);
                if (r < 0) {
                        api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "no random secret: %s", strerror(-r));
                        free(c);
                        return;
                }
                const char *p[] = { route_param(&req->match, "id"), c->to, c->from, reopen ? secret : NULL,
                                    epochs_s };
                r = store_query(req->deps->store,
                                "WITH t AS (UPDATE tournaments SET state = $2, "
                                "             secrets = CASE WHEN $4::text IS NULL THEN secrets "
                                "                            ELSE secrets || decode($4, 'hex') END "
                                "           WHERE id = $1 AND state = $3 AND cardinality(secrets) = $5::int "
                                "           RETURNING *) "
                                "SELECT " TOURNAMENT_JSON("t") " FROM t", 5, p, on_moved, c);
                explicit_bzero(secret, sizeof secret);
                if (r < 0) {
                        reply_store_error(req, r);
                        free(c);
                }
                return;
        }
        json_decref(facts);
        free(c);
}

void handle_tournament_state(struct api_request *req) {
        struct state_ctx *c;
        const char *to;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (body_tournament_state(req->body, &to, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        c = calloc(1, sizeof *c);
        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        c->req = req;
        c->id = id;
        snprintf(c->to, sizeof c->to, "%s", to);
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "SELECT jsonb_build_object('state', t.state, 'competitive', t.competitive, 'seed', t.seed, "
                        "  'epochs', cardinality(t.secrets), "
                        "  'regs', (SELECT count(*) FROM registrations r WHERE r.tournament_id = t.id), "
                        "  'ready', (SELECT count(*) FROM registrations r WHERE r.tournament_id = t.id "
                        "            AND r.checked_in AND r.status = 'active'), "
                        "  'stages', (SELECT count(*) FROM stages s WHERE s.tournament_id = t.id), "
                        "  'open_stages', (SELECT count(*) FROM stages s WHERE s.tournament_id = t.id "
                        "                  AND s.state <> 'finished'), "
                        "  'made', (SELECT count(*) FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                        "           WHERE s.tournament_id = t.id)) "
                        "FROM tournaments t WHERE t.id = $1", 1, p, on_state_facts, c);
        if (r < 0) {
                reply_store_error(req, r);
                free(c);
        }
}

/* ---- registrations -------------------------------------------------------- */

struct reg_ctx {
        struct api_request *req;
        int64_t id;
        unsigned status;                /* of the reply: 201 for a new registration */
        char event[32];
};

/* The statement's one row: {error, registration}; error is a 4xx line
 * ("404 …", "409 …") the SQL chose, or null. */
static void on_registration(void *userdata, const PGresult *res, const char *error) {
        struct reg_ctx *c = userdata;
        struct api_request *req = c->req;
        json_t *j;

        if (!res || PQntuples(res) == 0) {
                if (!res)
                        api_reply_query_failed(req, req->deps->store, "the registration", error);
                else
                        tour_reply_row(req, MHD_HTTP_OK, res, error, "tournament");
                free(c);
                return;
        }
        j = json_loads(PQgetvalue(res, 0, 0), 0, NULL);
        const char *why = json_string_value(json_object_get(j, "error"));
        if (why) {
                api_reply_problem(req, (unsigned) atoi(why), "%s", why + 4);
        } else {
                json_t *reg = json_incref(json_object_get(j, "registration"));
                if (c->event[0])
                        tour_event(req->deps, c->id, c->event, json_pack("{s:O}", "registration", reg));
                /* a drop or a late entry shows in the standings at once;
                 * no result changed, so the ratings stand */
                tour_refresh(req->deps, c->id, false);
                api_reply_json(req, c->status, reg);
        }
        json_decref(j);
        free(c);
}

static struct reg_ctx *reg_ctx_new(struct api_request *req, int64_t id, unsigned status, const char *event) {
        struct reg_ctx *c = calloc(1, sizeof *c);

        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return NULL;
        }
        c->req = req;
        c->id = id;
        c->status = status;
        snprintf(c->event, sizeof c->event, "%s", event);
        return c;
}

/* Registration is open in registration and check_in; in running it is a
 * late entry: checked in at once, and added to the running stage when its
 * format takes late entries (swiss, pod_swiss, league, race). */
void handle_registrations_create(struct api_request *req) {
        char player_s[24], seed_s[24];
        struct body_registration b;
        struct reg_ctx *c;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (body_registration(req->body, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (!(c = reg_ctx_new(req, id, MHD_HTTP_CREATED, "registration_changed")))
                return;
        snprintf(player_s, sizeof player_s, "%lld", (long long) b.player);
        snprintf(seed_s, sizeof seed_s, "%d", b.seed);
        const char *p[] = { route_param(&req->match, "id"), player_s, b.has_seed ? seed_s : NULL,
                            req->token_name };
        r = store_query(req->deps->store,
                "WITH t AS (SELECT * FROM tournaments WHERE id = $1 FOR UPDATE), "
                "     pl AS (SELECT * FROM players WHERE id = $2::bigint), "
                "     cur AS (SELECT s.* FROM stages s, t WHERE s.tournament_id = t.id AND s.state = 'running' "
                "             ORDER BY s.number DESC LIMIT 1), "
                "     ok AS (SELECT CASE "
                "       WHEN NOT EXISTS (SELECT 1 FROM pl) THEN '400 player: there is no such player' "
                "       WHEN NOT (SELECT active FROM pl) THEN '409 player: is not active (PATCH /v1/players/{id})' "
                "       WHEN t.state IN ('draft', 'finished') THEN "
                "            '409 registration is closed while the tournament is ' || t.state "
                "       WHEN t.state = 'running' AND EXISTS (SELECT 1 FROM cur WHERE cur.format NOT IN "
                "            ('swiss', 'pod_swiss', 'league', 'race')) THEN '409 the running stage (' || "
                "            (SELECT format FROM cur) || ') takes no late entries' "
                "       WHEN EXISTS (SELECT 1 FROM registrations r WHERE r.tournament_id = t.id "
                "                    AND r.player_id = $2::bigint) THEN '409 player: already registered' "
                "       END AS error FROM t), "
                "     ins AS (INSERT INTO registrations (tournament_id, player_id, seed, checked_in, late, changed_by) "
                "             SELECT t.id, $2::bigint, $3::int, t.state = 'running', t.state = 'running', $4 "
                "             FROM t, ok WHERE ok.error IS NULL RETURNING *), "
                "     st AS (UPDATE stages s SET entrants = array_append(s.entrants, ins.player_id) "
                "            FROM ins, cur WHERE s.id = cur.id RETURNING s.id) "
                "SELECT jsonb_build_object('error', ok.error, 'registration', "
                "       (SELECT " REGISTRATION_JSON("ins", "pl") " FROM ins, pl)) FROM ok",
                4, p, on_registration, c);
        if (r < 0) {
                reply_store_error(req, r);
                free(c);
        }
}

void handle_registrations_list(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM tournaments WHERE id = $1) THEN "
                        "  jsonb_build_object('items', (SELECT coalesce(jsonb_agg(" REGISTRATION_JSON("r", "p")
                        "    ORDER BY r.seed NULLS LAST, r.registered_at, r.player_id), '[]'::jsonb) "
                        "    FROM registrations r JOIN players p ON p.id = r.player_id WHERE r.tournament_id = $1)) END",
                        1, p, on_tournament, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* The states in which check-in is open (tour_state_check_in_open), as a
 * PostgreSQL text[] literal: "{check_in,running}". */
static void check_in_states(char *buf, size_t len) {
        size_t k = (size_t) snprintf(buf, len, "{");

        for (int s = TOUR_STATE_DRAFT; s <= TOUR_STATE_LAST && k < len; s++)
                if (tour_state_check_in_open((enum tour_state) s))
                        k += (size_t) snprintf(buf + k, len - k, "%s%s", k > 1 ? "," : "",
                                               tour_state_name((enum tour_state) s));
        if (k < len)
                snprintf(buf + k, len - k, "}");
}

/* check-in, drop, disqualify: one registration's flag or status. */
static void registration_change(struct api_request *req, const char *what) {
        char check_in_open[64];
        long long id, player;
        struct reg_ctx *c;
        int r;

        if (!id_param(req, "id", &id) || !id_param(req, "player", &player))
                return;
        if (!(c = reg_ctx_new(req, id, MHD_HTTP_OK, "registration_changed")))
                return;
        check_in_states(check_in_open, sizeof check_in_open);
        const char *p[] = { route_param(&req->match, "id"), route_param(&req->match, "player"), what,
                            req->token_name, check_in_open };
        r = store_query(req->deps->store,
                "WITH t AS (SELECT * FROM tournaments WHERE id = $1), "
                "     r0 AS (SELECT * FROM registrations WHERE tournament_id = $1 AND player_id = $2), "
                "     ok AS (SELECT CASE "
                "       WHEN NOT EXISTS (SELECT 1 FROM t) THEN '404 there is no tournament ' || $1 "
                "       WHEN NOT EXISTS (SELECT 1 FROM r0) THEN '404 player ' || $2 || ' is not registered' "
                "       WHEN (SELECT state FROM t) = 'finished' THEN '409 the tournament is finished' "
                "       WHEN $3 = 'check_in' AND NOT (SELECT state FROM t) = ANY ($5::text[]) "
                "            THEN '409 check-in opens with the check_in state (POST /v1/tournaments/' || $1 || "
                "                 '/state); the tournament is in ' || (SELECT state FROM t) "
                "       WHEN $3 = 'check_in' AND (SELECT status FROM r0) <> 'active' "
                "            THEN '409 the player is ' || (SELECT status FROM r0) "
                "       WHEN $3 <> 'check_in' AND (SELECT status FROM r0) <> 'active' "
                "            THEN '409 the player is already ' || (SELECT status FROM r0) "
                "       END AS error), "
                "     up AS (UPDATE registrations r SET "
                "              checked_in = r.checked_in OR $3 = 'check_in', "
                "              status = CASE $3 WHEN 'drop' THEN 'dropped' WHEN 'disqualify' THEN 'disqualified' "
                "                       ELSE r.status END, changed_by = $4 "
                "            FROM ok WHERE ok.error IS NULL AND r.tournament_id = $1 AND r.player_id = $2 "
                "            RETURNING r.*) "
                "SELECT jsonb_build_object('error', ok.error, 'registration', "
                "       (SELECT " REGISTRATION_JSON("up", "p") " FROM up JOIN players p ON p.id = up.player_id)) "
                "FROM ok",
                5, p, on_registration, c);
        if (r < 0) {
                reply_store_error(req, r);
                free(c);
        }
}

void handle_registration_check_in(struct api_request *req) { registration_change(req, "check_in"); }
void handle_registration_drop(struct api_request *req) { registration_change(req, "drop"); }
void handle_registration_disqualify(struct api_request *req) { registration_change(req, "disqualify"); }

static void on_tournament_exists(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        char topic[40];

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the tournament query failed: %s", error);
                return;
        }
        if (PQntuples(res) == 0) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s",
                                  route_param(&req->match, "id"));
                return;
        }
        snprintf(topic, sizeof topic, "tournament/%s", route_param(&req->match, "id"));
        api_events_stream(req, topic, NULL);
}

/* An unknown tournament is a 404, not a stream that stays quiet. */
void handle_tournament_events(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *params[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store, "SELECT 1 FROM tournaments WHERE id = $1", 1, params,
                        on_tournament_exists, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_recompute(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;

        if (res && PQntuples(res) == 1)
                tour_refresh(req->deps, strtoll(route_param(&req->match, "id"), NULL, 10), true);
        if (res && PQntuples(res) == 1)
                api_reply_json(req, MHD_HTTP_ACCEPTED, json_pack("{s:s}", "detail", "the standings of every started "
                                                                 "stage and the ratings of the game are being "
                                                                 "recomputed from the results; standings_changed "
                                                                 "follows"));
        else
                tour_reply_row(req, MHD_HTTP_OK, res, error, "tournament");
}

/* The caches are rebuilt after every result anyway; this is the command an
 * organiser (or an operator after a restore) runs to rebuild them now. */
void handle_tournament_recompute(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *p[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store, "SELECT 1 FROM tournaments WHERE id = $1", 1, p, on_recompute, req);
        if (r < 0)
                reply_store_error(req, r);
}
