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

#include "api/api.h"

/* Names, clubs, external ids: 1..64 bytes, as the schema's CHECKs. */
#define TOUR_NAME_MAX 64

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

#endif
