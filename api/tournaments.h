/* api/tournaments.h — what the tournament resources share (internal to
 * api/): /v1/players, /v1/tournaments/..., /v1/leaderboards.
 *
 * The database holds everything; a request reads what it needs, the pure
 * modules of tournament/ compute (pairings, standings, brackets, ratings),
 * and one statement writes the outcome.  Results are the truth: standings
 * (stages.standings) and ratings are caches recomputed from them whenever a
 * result is recorded or corrected (tour_refresh).
 *
 * Events.  Each change is published on SSE topic "tournament/<id>" and
 * handed to api_deps.tournament_event (D-Bus) with the same name and data:
 *   tournament_changed    {state, current: {stage, round}}   created, moved, or a round paired
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

/* Publishes an event of tournament id (data taken). */
void tour_event(const struct api_deps *deps, int64_t id, const char *event, json_t *data);

/* Recomputes the caches of tournament id: the standings of its stages
 * (publishing standings_changed) and, with ratings (a result changed), the
 * ratings of its game.  Asynchronous; failures are logged. */
void tour_refresh(const struct api_deps *deps, int64_t id, bool ratings);


#endif
