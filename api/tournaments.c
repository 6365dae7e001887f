/* api/tournaments.c — /v1/tournaments: creation, the state machine and
 * registrations (api/tournaments.h says what the tournament files share).
 *
 * The handlers decode the request, call the tournament service
 * (organiser/tournaments.h, organiser/registrations.h) or read a
 * repository (store/tournaments.h), and map what comes back to JSON, to a
 * status and to the events it publishes.  The states and the moves between
 * them, and who may register or check in when, are tournament/states.h's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "api/league.h"
#include "api/sse.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "organiser/registrations.h"
#include "organiser/tournaments.h"
#include "store/tournaments.h"
#include "tournament/states.h"

/* ---- events ------------------------------------------------------------- */

void tour_event(const struct api_deps *deps, int64_t id, const char *event, json_t *data) {
        char topic[40];

        if (!data)
                return;
        json_object_set_new(data, "tournament", json_integer(id));
        if (deps->tournament_event)
                deps->tournament_event(deps->userdata, id, event, data);
        snprintf(topic, sizeof topic, "tournament/%" PRId64, id);
        api_publish_shared(deps->events, deps->league, topic, event, data);
}

/* ---- JSON ------------------------------------------------------------------- */

/* Stored JSON text as a value; null for NULL (or text that is not JSON,
 * which the jsonb columns cannot hold). */
static json_t *stored_json(const char *text) {
        json_t *j = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;

        return j ? j : json_null();
}

/* The tournament resource: the seed and the current secret only once it is
 * finished, the secrets of earlier epochs always (tour_secret_revealed);
 * its stages; and where it is now (current): the round of its last stage
 * that has started, or null. */
static json_t *tournament_json(const struct store_tournament_row *t) {
        json_t *secrets = json_array(), *tables = json_array(), *stages = json_array(), *current = json_null();
        enum tour_state state;
        bool known = tour_state_from_name(t->state, &state) == 0;

        for (size_t i = 0; i < t->n_secrets; i++) {
                const struct store_tournament_secret *e = &t->secrets[i];
                bool shown = known && tour_secret_revealed(state, e->epoch, (int) t->n_secrets);

                json_array_append_new(secrets, json_pack("{s:i, s:s, s:o}", "epoch", e->epoch, "commitment",
                                                         e->commitment, "secret",
                                                         shown ? json_string(e->secret) : json_null()));
        }
        for (size_t i = 0; i < t->n_tables; i++)
                json_array_append_new(tables, json_integer((json_int_t) t->tables[i]));
        for (size_t i = 0; i < t->n_stages; i++) {
                const struct store_tournament_stage *s = &t->stages[i];

                json_array_append_new(stages, json_pack("{s:i, s:s, s:o, s:o, s:o, s:s, s:i, s:i}",
                                                        "number", s->number, "format", s->format,
                                                        "config", stored_json(s->config),
                                                        "advance", s->advance ? json_integer(s->advance) : json_null(),
                                                        "confirm", stored_json(s->confirm), "state", s->state,
                                                        "entrants", s->entrants, "rounds", s->rounds));
                if (strcmp(s->state, "pending") != 0) {
                        json_decref(current);
                        current = json_pack("{s:i, s:i}", "stage", s->number, "round", s->rounds);
                }
        }
        return json_pack("{s:I, s:s, s:s, s:o, s:b, s:o, s:s, s:o, s:o, s:s, s:s, s:I, s:I, s:o, s:o}",
                         "id", (json_int_t) t->id, "name", t->name, "game", t->game,
                         "seed", known && tour_state_reveals_secrets(state) ? json_integer((json_int_t) t->seed)
                                                                            : json_null(),
                         "competitive", t->competitive, "secrets", secrets, "state", t->state,
                         "match_config", stored_json(t->match_config), "tables", tables,
                         "created_by", t->created_by, "created_at", t->created_at,
                         "registrations", (json_int_t) t->registrations, "checked_in", (json_int_t) t->checked_in,
                         "stages", stages, "current", current);
}

static json_t *registration_json(const struct store_registration_row *r) {
        return json_pack("{s:I, s:s, s:o, s:o, s:b, s:s, s:b, s:s}",
                         "player", (json_int_t) r->player_id, "name", r->name,
                         "club", r->club ? json_string(r->club) : json_null(),
                         "seed", r->seed ? json_integer(r->seed) : json_null(),
                         "checked_in", r->checked_in, "status", r->status, "late", r->late,
                         "registered_at", r->registered_at);
}

bool tour_reply_outcome(struct api_request *req, const struct org_result *r, const char *what) {
        switch (r->outcome) {
        case ORG_DONE:
                return false;
        case ORG_NOT_FOUND:
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "%s", r->detail);
                break;
        case ORG_INVALID:
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "%s", r->detail);
                break;
        case ORG_CONFLICT:
                api_reply_problem(req, MHD_HTTP_CONFLICT, "%s", r->detail);
                break;
        case ORG_STORE_FAILED:
                api_reply_store_failed(req, r->failure, what, r->error);
                break;
        case ORG_INTERNAL:
        default:
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
                                  r->detail ? r->detail : "the tournament service failed");
                break;
        }
        return true;
}

/* ---- tournaments --------------------------------------------------------- */

static void on_tournament(void *userdata, const struct store_tournament_row *rows, size_t n,
                          const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;

        if (failure)
                api_reply_store_failed(req, failure, "the tournament query", error);
        else if (n == 0)
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s", route_param(&req->match, "id"));
        else
                api_reply_json(req, MHD_HTTP_OK, tournament_json(&rows[0]));
}

static void on_tournament_created(void *userdata, const struct org_result *result,
                                  const struct store_tournament_row *t) {
        struct api_request *req = userdata;

        if (tour_reply_outcome(req, result, "the tournament query"))
                return;
        tour_event(req->deps, t->id, "tournament_changed", json_pack("{s:s}", "state", t->state));
        api_reply_json(req, MHD_HTTP_CREATED, tournament_json(t));
}

void handle_tournaments_create(struct api_request *req) {
        int64_t tables[BODY_TOURNAMENT_TABLES_MAX];
        struct body_tournament t;
        size_t n_tables = 0, i;
        char *config_text;
        json_t *problem, *v;
        int r;

        if (body_tournament(req->body, req->deps->matches != NULL, &t, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        json_array_foreach(t.tables, i, v)
                if (n_tables < BODY_TOURNAMENT_TABLES_MAX)
                        tables[n_tables++] = (int64_t) json_integer_value(v);
        config_text = t.config ? json_dumps(t.config, JSON_COMPACT) : strdup("{}");
        if (!config_text) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        struct org_tournament_new o = {
                .name = t.name,
                .game = t.game,
                .competitive = t.competitive,
                .has_seed = t.has_seed,
                .seed = t.seed,
                .match_config = config_text,
                .tables = tables,
                .n_tables = n_tables,
                .who = req->token_name,
        };
        r = org_tournament_create(req->deps->store, &o, on_tournament_created, req);
        free(config_text);
        if (r == -ENOTCONN || r == -ENOMEM)
                reply_store_error(req, r);
        else if (r < 0)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "no random secret: %s", strerror(-r));
}

void handle_tournament_get(struct api_request *req) {
        struct store *store = api_read_store(req);
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_tournaments_get(store, id, on_tournament, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_tournaments_page(void *userdata, const struct store_tournament_row *rows, size_t n,
                                const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        json_t *items;

        if (failure) {
                api_reply_store_failed(req, failure, "the list query", error);
                return;
        }
        items = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(items, tournament_json(&rows[i]));
        api_reply_json(req, MHD_HTTP_OK, api_page(items, n ? rows[n - 1].id : 0));
}

void handle_tournaments_list(struct api_request *req) {
        struct store *store = api_read_store(req);
        long long limit, after;
        int r;

        if (!page_params(req, &limit, &after))
                return;
        r = store_tournaments_list(store, after, limit, on_tournaments_page, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- the state machine ----------------------------------------------------- */

static void on_moved(void *userdata, const struct org_result *result, const struct store_tournament_row *t) {
        struct api_request *req = userdata;
        json_t *j;

        if (tour_reply_outcome(req, result, "the tournament query"))
                return;
        j = tournament_json(t);
        /* the commitments go out when it starts, the secrets once it is
         * finished */
        tour_event(req->deps, t->id, "tournament_changed",
                   json_pack("{s:s, s:O?, s:O?}", "state", t->state, "current", json_object_get(j, "current"),
                             "secrets", json_object_get(j, "secrets")));
        api_reply_json(req, MHD_HTTP_OK, j);
}

/* The moves and what each needs are tournament/states.h's; a move the
 * state does not allow is a 409 naming the moves it does allow. */
void handle_tournament_state(struct api_request *req) {
        enum tour_state to;
        const char *name;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (body_tournament_state(req->body, &name, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (tour_state_from_name(name, &to) < 0) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "state: there is no state %s", name);
                return;
        }
        r = org_tournament_move(req->deps->store, id, to, on_moved, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- registrations -------------------------------------------------------- */

struct reg_ctx {
        struct api_request *req;
        int64_t id;
        unsigned status;                /* of the reply: 201 for a new registration */
};

/* The registration written: registration_changed, and the standings
 * refreshed — a drop or a late entry shows in them at once; no result
 * changed, so the ratings stand. */
static void on_registration(void *userdata, const struct org_result *result, const struct store_registration_row *rows,
                            size_t n) {
        struct reg_ctx *c = userdata;
        struct api_request *req = c->req;

        if (!tour_reply_outcome(req, result, "the registration")) {
                json_t *reg = n ? registration_json(&rows[0]) : json_null();
                tour_event(req->deps, c->id, "registration_changed", json_pack("{s:O}", "registration", reg));
                tour_refresh(req->deps, c->id, false);
                api_reply_json(req, c->status, reg);
        }
        free(c);
}

static struct reg_ctx *reg_ctx_new(struct api_request *req, int64_t id, unsigned status) {
        struct reg_ctx *c = calloc(1, sizeof *c);

        if (!c) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return NULL;
        }
        *c = (struct reg_ctx) { .req = req, .id = id, .status = status };
        return c;
}

/* Registration is open in registration and check_in; in running it is a
 * late entry (organiser/registrations.h). */
void handle_registrations_create(struct api_request *req) {
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
        if (!(c = reg_ctx_new(req, id, MHD_HTTP_CREATED)))
                return;
        struct org_registration_new o = {
                .tournament = id,
                .player = b.player,
                .seed = b.has_seed ? b.seed : 0,
                .who = req->token_name,
        };
        r = org_register(req->deps->store, &o, on_registration, c);
        if (r < 0) {
                reply_store_error(req, r);
                free(c);
        }
}

static void on_registrations(void *userdata, const struct org_result *result,
                             const struct store_registration_row *rows, size_t n) {
        struct api_request *req = userdata;
        json_t *items;

        if (tour_reply_outcome(req, result, "the tournament query"))
                return;
        items = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(items, registration_json(&rows[i]));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o}", "items", items));
}

void handle_registrations_list(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = org_registrations_list(req->deps->store, id, on_registrations, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* check-in, drop, disqualify: one registration's flag or status. */
static void registration_change(struct api_request *req, enum org_registration_change what) {
        long long id, player;
        struct reg_ctx *c;
        int r;

        if (!id_param(req, "id", &id) || !id_param(req, "player", &player))
                return;
        if (!(c = reg_ctx_new(req, id, MHD_HTTP_OK)))
                return;
        r = org_registration_change(req->deps->store, id, player, what, req->token_name, on_registration, c);
        if (r < 0) {
                reply_store_error(req, r);
                free(c);
        }
}

void handle_registration_check_in(struct api_request *req) { registration_change(req, ORG_CHECK_IN); }
void handle_registration_drop(struct api_request *req) { registration_change(req, ORG_DROP); }
void handle_registration_disqualify(struct api_request *req) { registration_change(req, ORG_DISQUALIFY); }

/* ---- events and recompute ------------------------------------------------------- */

/* Replies 404 (or the failure) and returns false unless the facts say the
 * tournament exists. */
static bool tournament_exists(struct api_request *req, size_t n, const struct store_error *failure,
                              const char *error) {
        if (failure)
                api_reply_store_failed(req, failure, "the tournament query", error);
        else if (n == 0)
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s", route_param(&req->match, "id"));
        return !failure && n > 0;
}

static void on_events_tournament(void *userdata, const struct store_tournament_facts *rows, size_t n,
                                 const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        char topic[40];

        if (!tournament_exists(req, n, failure, error))
                return;
        snprintf(topic, sizeof topic, "tournament/%" PRId64, rows[0].id);
        api_events_stream(req, topic, NULL);
}

/* An unknown tournament is a 404, not a stream that stays quiet. */
void handle_tournament_events(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_tournaments_facts(req->deps->store, id, on_events_tournament, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_recompute(void *userdata, const struct store_tournament_facts *rows, size_t n,
                         const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;

        if (!tournament_exists(req, n, failure, error))
                return;
        tour_refresh(req->deps, rows[0].id, true);
        api_reply_json(req, MHD_HTTP_ACCEPTED, json_pack("{s:s}", "detail", "the standings of every started "
                                                         "stage and the ratings of the game are being "
                                                         "recomputed from the results; standings_changed "
                                                         "follows"));
}

/* The caches are rebuilt after every result anyway; this is the command an
 * organiser (or an operator after a restore) runs to rebuild them now. */
void handle_tournament_recompute(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_tournaments_facts(req->deps->store, id, on_recompute, req);
        if (r < 0)
                reply_store_error(req, r);
}
