/* api/tournaments.h — what the tournament resources share (internal to
 * api/): /v1/players, /v1/tournaments/..., /v1/leaderboards.
 *
 * The database holds everything; a request reads what it needs, the pure
 * modules of tournament/ compute (pairings, standings, brackets), and one
 * statement writes the outcome.  Results are the truth: standings
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
 * and for every epoch before the current one.  No reply, event or log line
 * holds a secret before that. */

/* The secrets of tournament row t as the API shows them, in SQL:
 * [{epoch, commitment, secret}], secret null until revealed. */
#define TOUR_SECRETS_JSON(t) \
        "(SELECT jsonb_agg(jsonb_build_object('epoch', e.n, 'commitment', encode(sha256(e.s), 'hex'), " \
        "  'secret', CASE WHEN " t ".state = 'finished' OR e.n < cardinality(" t ".secrets) " \
        "                 THEN encode(e.s, 'hex') END) ORDER BY e.n) " \
        " FROM unnest(" t ".secrets) WITH ORDINALITY e(s, n))"

/* What the next call of stage match $2 of tournament $1 needs: one row of
 * the current secret (hex), its epoch and the call's attempt (1 + the
 * calls made before). */
extern const char tour_next_call_sql[];

/* The secret of epoch (>= 1) of a tournament, as hex for the database:
 * drawn by the kernel for a competitive one, else from its seed.  0 or
 * -errno. */
int tour_secret_new(bool competitive, uint64_t seed, uint32_t epoch, char ret_hex[SEED_HEX_LEN + 1]);
/* A competitive tournament's own seed (its stages' draws) from its first
 * secret, hex.  0 or -EINVAL. */
int tour_tournament_seed(const char *secret_hex, uint64_t *ret);
/* The deck seed of attempt (>= 1) of stage match stage_match of
 * tournament, from the secret in hex as tour_next_call_sql gives it.  0 or
 * -EINVAL. */
int tour_call_seed(const char *secret_hex, int64_t tournament, int64_t stage_match, int attempt, uint64_t *ret);

#endif
