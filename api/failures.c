/* api/failures.c — see failures.h. */
#include "api/failures.h"

#include <string.h>
#include <microhttpd.h>

#include "api/problem.h"
#include "api/router.h"
#include "store/store.h"

/* A tournament's routes: what needs the league's primary. */
#define TOURNAMENT_ROUTES "/v1/tournaments"
/* When to ask again while the primary is away: about when the store has
 * tried to reconnect (its back-off tops out at 2 s by default). */
#define PRIMARY_AWAY_RETRY_S 5

/* The schema's constraints a request can run into, by name
 * (migrations/). */
static const struct {
        const char *constraint;
        unsigned status;
        const char *detail;
} constraints[] = {
        { "players_external_id_key", MHD_HTTP_CONFLICT, "external_id: another player has this external id" },
        { "tables_venue_name_key", MHD_HTTP_CONFLICT, "a table with this name exists already at this venue" },
        { "matches_table_venue_fkey", MHD_HTTP_CONFLICT, "table: the table is at another venue than the match" },
        { "table_pads_pad_id_key", MHD_HTTP_CONFLICT,
          "a pad in this table already sits at another table; a pad has one seat" },
        { "api_tokens_live_name", MHD_HTTP_CONFLICT,
          "a live token with this name exists already; revoke it first or choose another name" },
        { "matches_table_id_fkey", MHD_HTTP_BAD_REQUEST, "table: there is no such table" },
        { "stage_matches_stage_id_round_table_no_key", MHD_HTTP_CONFLICT,
          "this round was paired by another request meanwhile; see the tournament's matches" },
        { "registrations_player_id_fkey", MHD_HTTP_BAD_REQUEST, "player: there is no such player" },
        { "registrations_pkey", MHD_HTTP_CONFLICT, "player: already registered" },
};

unsigned api_store_failure(const struct store_error *e, const char **ret_detail) {
        *ret_detail = NULL;
        if (!e)
                return MHD_HTTP_INTERNAL_SERVER_ERROR;
        for (size_t i = 0; e->constraint && i < sizeof constraints / sizeof constraints[0]; i++)
                if (strcmp(e->constraint, constraints[i].constraint) == 0) {
                        *ret_detail = constraints[i].detail;
                        return constraints[i].status;
                }
        switch (e->failure) {
        case STORE_FAILURE_CONFLICT:    return MHD_HTTP_CONFLICT;
        case STORE_FAILURE_INVALID:     return MHD_HTTP_BAD_REQUEST;
        case STORE_FAILURE_UNAVAILABLE: return MHD_HTTP_SERVICE_UNAVAILABLE;
        case STORE_FAILURE_INTERNAL:    break;
        }
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
}

unsigned api_query_failure(struct store *store, const char **ret_detail) {
        struct store_error e;

        return api_store_failure(store && store_error(store, &e) ? &e : NULL, ret_detail);
}

void api_reply_store_failed(struct api_request *req, const struct store_error *failure, const char *what,
                            const char *error) {
        const char *detail;
        unsigned status = api_store_failure(failure, &detail);

        if (detail)
                api_reply_problem(req, status, "%s", detail);
        else if (status == MHD_HTTP_SERVICE_UNAVAILABLE && api_is_tournament_route(req))
                api_reply_primary_away(req);
        else if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
                api_reply_busy(req, "%s could not be completed now (%s); try again shortly", what,
                               error ? error : "the database is away");
        else
                api_reply_problem(req, status, "%s failed: %s", what, error ? error : "no reason given");
}

void api_reply_query_failed(struct api_request *req, struct store *store, const char *what, const char *error) {
        struct store_error e;

        api_reply_store_failed(req, store && store_error(store, &e) ? &e : NULL, what, error);
}

bool api_is_tournament_route(const struct api_request *req) {
        const struct route *r = req->match.route;
        size_t n = strlen(TOURNAMENT_ROUTES);

        return r && strncmp(r->pattern, TOURNAMENT_ROUTES, n) == 0 && (r->pattern[n] == '\0' || r->pattern[n] == '/');
}

void api_reply_primary_away(struct api_request *req) {
        const char *venue = req->deps->venue ? req->deps->venue : "this venue";

        api_reply_unavailable(req, PRIMARY_AWAY_RETRY_S,
                              "the database (the league's primary, for several venues) cannot be reached from "
                              "venue %s: tournament operations need it; this venue's matches go on, their inputs "
                              "kept in the spool until the database is back", venue);
}
