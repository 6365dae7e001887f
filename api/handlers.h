/* api/handlers.h — the route handlers, one file per resource (internal to api/). */
#ifndef ARBITER_API_HANDLERS_H
#define ARBITER_API_HANDLERS_H

#include "api/api.h"
#include "api/query.h"

struct match;
struct matches;

void handle_index(struct api_request *req);
void handle_health(struct api_request *req);
void handle_status(struct api_request *req);
void handle_tokens_list(struct api_request *req);
void handle_tokens_create(struct api_request *req);
void handle_token_get(struct api_request *req);
void handle_token_revoke(struct api_request *req);
void handle_pads_list(struct api_request *req);
void handle_pad_get(struct api_request *req);
void handle_pad_identify(struct api_request *req);
void handle_pad_trust(struct api_request *req);
void handle_presses_list(struct api_request *req);
void handle_events(struct api_request *req);
void handle_tables_list(struct api_request *req);
void handle_tables_create(struct api_request *req);
void handle_table_get(struct api_request *req);
void handle_table_events(struct api_request *req);
void handle_table_seat_token(struct api_request *req);
void handle_venues_list(struct api_request *req);
void handle_venues_create(struct api_request *req);
void handle_venue_get(struct api_request *req);
void handle_games_list(struct api_request *req);
void handle_game_get(struct api_request *req);
void handle_matches_list(struct api_request *req);
void handle_matches_create(struct api_request *req);
void handle_match_get(struct api_request *req);
void handle_match_seat(struct api_request *req);
void handle_match_log(struct api_request *req);
void handle_match_events(struct api_request *req);
void handle_match_start(struct api_request *req);
void handle_match_pause(struct api_request *req);
void handle_match_resume(struct api_request *req);
void handle_match_abort(struct api_request *req);
void handle_match_input(struct api_request *req);
void handle_match_preview(struct api_request *req);
void handle_match_seat_events(struct api_request *req);
void handle_match_seat_token(struct api_request *req);
void handle_match_referee_token(struct api_request *req);
void handle_match_referee(struct api_request *req);
void handle_match_referee_events(struct api_request *req);
void handle_players_list(struct api_request *req);
void handle_players_create(struct api_request *req);
void handle_player_get(struct api_request *req);
void handle_player_ratings(struct api_request *req);
void handle_player_update(struct api_request *req);
void handle_tournaments_list(struct api_request *req);
void handle_tournaments_create(struct api_request *req);
void handle_tournament_get(struct api_request *req);
void handle_tournament_state(struct api_request *req);
void handle_registrations_list(struct api_request *req);
void handle_registrations_create(struct api_request *req);
void handle_registration_check_in(struct api_request *req);
void handle_registration_drop(struct api_request *req);
void handle_registration_disqualify(struct api_request *req);
void handle_stages_create(struct api_request *req);
void handle_rounds_create(struct api_request *req);
void handle_tournament_matches(struct api_request *req);
void handle_tournament_match_get(struct api_request *req);
void handle_tournament_match_call(struct api_request *req);
void handle_tournament_match_result(struct api_request *req);
void handle_tournament_match_correct(struct api_request *req);
void handle_tournament_corrections(struct api_request *req);
void handle_tournament_calls(struct api_request *req);
void handle_tournament_queue(struct api_request *req);
void handle_tournament_standings(struct api_request *req);
void handle_tournament_bracket(struct api_request *req);
void handle_tournament_results(struct api_request *req);
void handle_tournament_events(struct api_request *req);
void handle_tournament_recompute(struct api_request *req);
void handle_leaderboard(struct api_request *req);

/* The store for the reads of a route of displays, leaderboards or exports,
 * whose data may lag a little (api/read_store.c): the read replica when one
 * is configured, fresh enough and the request's role is below referee, else
 * the primary (deps->store).  Decided at the first call of a request, the
 * same at every later one; every reply to the request then carries the
 * Arbiter-Read-From header saying which.  Call it before the first reply. */
struct store *api_read_store(struct api_request *req);
/* The request's reads must see a write just made (a season's ratings the
 * worker has just computed): from here on they go to the primary, and the
 * reply says so. */
void api_read_primary(struct api_request *req);

/* Shared replies (api/replies.c). */
void reply_store_error(struct api_request *req, int r);
/* Parses ?limit=&after= (defaults 100 and 0); replies 400 and returns false on bad values. */
bool page_params(struct api_request *req, long long *ret_limit, long long *ret_after);
/* A page {items, next} of items (taken): next is last_id, the id of the
 * page's last item, or null when it is 0 (an empty page). */
json_t *api_page(json_t *items, int64_t last_id);
/* The request's query string, for the decoders of api/query.h. */
struct api_query api_request_query(const struct api_request *req);
/* Parses a positive decimal id path parameter; replies 404 and returns false otherwise. */
bool id_param(struct api_request *req, const char *name, long long *ret_id);

/* ---- The match resources (api/match_common.c, api/matches.c). */

/* Replies to a database write that could not be queued: 503 when the
 * database is away, 500 otherwise. */
void api_match_store_failed(struct api_request *req, int r);
/* The stored row (borrowed) as the resource: the live engine's public view,
 * state and provisional result added while the match is live. */
json_t *api_match_resource(struct matches *reg, json_t *row);
/* Replies with the stored match (404 when there is none): api_match_reply
 * to an input or a control of the match, read on the input lane right
 * behind its write; api_match_read to a plain read (GET), on the REST
 * connection, so that reads never queue on the lane in front of inputs. */
void api_match_reply(struct matches *reg, struct api_request *req, int64_t id, unsigned status);
void api_match_read(struct matches *reg, struct api_request *req, int64_t id);
/* Whether a seat token's match is id: the match it was made for, or a
 * live match at its table (a station's token; a station reads and acts
 * only while the match is live).  False for any other token. */
bool api_match_own(struct api_request *req, int64_t id);
/* Whether the request's token may act on match id (a seat token only on
 * its own match, or on a live match at its own table; a display token
 * never): true, or false after replying 401 or 403. */
bool api_match_may_act(struct api_request *req, int64_t id);
/* Whether it may see seat (1-based) of match id: that seat's token, or a
 * referee's.  true, or false after replying 401 or 403. */
bool api_match_may_see_seat(struct api_request *req, int64_t id, int seat);
/* The live match with id, or NULL after replying (503 while matches are
 * being rebuilt, else 404 or 409 from the database). */
struct match *api_match_live(struct matches *reg, struct api_request *req, int64_t id);

/* A match's SSE topic, "match/<id>", and the scope of its seat's events
 * (seat >= 0: "match/<id>/seat/<seat + 1>") or its referee's
 * ("match/<id>/referee"): api/match_events.c. */
void api_match_topic(int64_t id, char topic[static 48]);
void api_match_scope(int64_t id, int seat, char scope[static 48]);

/* A match created for another resource (borrowed), or NULL when its
 * creation failed and the request has been answered with why. */
typedef void (*api_match_created_fn)(void *userdata, json_t *match);
/* Creates a match from spec, shaped as the body of POST /v1/matches, for
 * another resource: done gets the match.  A problem with spec is replied
 * to req (400 naming the field, 503) and done gets NULL; a negative return
 * means done will not be called. */
int api_match_create_for(struct api_request *req, json_t *spec, api_match_created_fn done, void *userdata);

#endif
