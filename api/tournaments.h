/* api/tournaments.h — what the tournament resources share (internal to
 * api/): /v1/players, /v1/tournaments/..., /v1/leaderboards.
 *
 * The database holds everything; a request reads what it needs, the pure
 * modules of tournament/ compute (pairings, standings, brackets) and hold
 * the rules (tournament/states.h), and one statement writes the outcome.
 * Creating a tournament, moving it and registering players are the
 * tournament service's (organiser/tournaments.h, organiser/registrations.h),
 * whose outcomes tour_reply_outcome() maps to statuses.  Results are the truth: standings
 * (stages.standings) are a cache recomputed from them whenever a result is
 * recorded or corrected (tour_refresh); ratings are the rating worker's
 * (organiser/ratings.h), which hears of every result from the database.
 *
 * Events.  Each change is published on SSE topic "tournament/<id>" and
 * handed to api_deps.tournament_event (D-Bus) with the same name and data:
 *   tournament_changed    {state, current: {stage, round}[, secrets]}   created, moved (with
 *                         the secrets as the tournament shows them), or a round paired
 *   registration_changed  {registration}                     registered, checked in, dropped
 *   round_started         {stage, round, matches}            a round format paired a round
 *   bracket_advanced      {stage, round, matches}            an elimination stage made matches
 *   match_called          {match, table, participants, runtime_match}
 *   result_recorded       {match, stage, round, result, correction[, runtime_match]}
 *   standings_changed     {stage}                            the stage's cached standings were rewritten
 */
#ifndef ARBITER_API_TOURNAMENTS_H
#define ARBITER_API_TOURNAMENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "api/api.h"
#include "common/seed.h"

/* Names, clubs, external ids: 1..64 bytes, as the schema's CHECKs. */
#define TOUR_NAME_MAX 64

/* A timestamptz as RFC 3339 UTC text, in SQL. */
#define TOUR_TIME(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* Replies status with the first column of the first row, parsed as JSON,
 * or 404 naming what when there is no row (or a NULL), or 409 when the
 * JSON is {"error": "..."} (a refusal the SQL chose), or 500. */
void tour_reply_row(struct api_request *req, unsigned status, const PGresult *res, const char *error,
                    const char *what);
/* store callback: tour_reply_row(userdata, ..., "tournament"). */
void tour_on_row(void *userdata, const PGresult *res, const char *error);
/* store callback: tour_reply_row(userdata, 201, ..., "tournament"). */
void tour_on_created(void *userdata, const PGresult *res, const char *error);

struct org_result;
/* Replies what a call of the tournament service (organiser/outcome.h) that
 * did not do what was asked reports — 404, 400, 409, what api/failures.h
 * says of a failed query of what ("the registration"), or 500 — and
 * returns true; returns false, replying nothing, when it did. */
bool tour_reply_outcome(struct api_request *req, const struct org_result *result, const char *what);

/* Publishes an event of tournament id (data taken). */
void tour_event(const struct api_deps *deps, int64_t id, const char *event, json_t *data);

/* Recomputes the caches of tournament id: the standings of its stages
 * (publishing standings_changed) and, with ratings (POST .../recompute),
 * asks the rating worker to recompute its game's ratings from the results.
 * Asynchronous; failures are logged. */
void tour_refresh(const struct api_deps *deps, int64_t id, bool ratings);

/* ---- Fair draws (api/draws.c; docs/fairness.md) ----------------------------
 *
 * A tournament holds one secret per epoch (tournaments.secrets; an epoch
 * is a stretch between the start and the end: reopening a finished
 * tournament begins another).  Each call of one of its stage matches is a
 * runtime match whose seed comes from the current secret and the call's
 * identity (match_calls).  Replies show each secret's SHA-256 from the
 * start, and the secret once revealed: when the tournament is finished,
 * and for every epoch before the current one (tour_secret_revealed,
 * tournament/states.h).  No reply, event or log line holds a secret before
 * that.  The secrets are drawn by organiser/draws.h. */

/* What the next call of stage match $2 of tournament $1 needs: one row of
 * the current secret (hex), its epoch and the call's attempt (1 + the
 * calls made before).  The same read as store_tournaments_next_call()
 * (store/tournaments.h), which replaces it once its caller moves to it. */
extern const char tour_next_call_sql[];

/* The deck seed of attempt (>= 1) of stage match stage_match of
 * tournament, from the secret in hex as tour_next_call_sql gives it
 * (org_call_seed, organiser/draws.h).  0 or -EINVAL. */
int tour_call_seed(const char *secret_hex, int64_t tournament, int64_t stage_match, int attempt, uint64_t *ret);

#endif
