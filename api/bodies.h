/* api/bodies.h — the JSON bodies of the write routes, decoded (internal to
 * api/).
 *
 * Each decoder is pure: the parsed body (and what the body's meaning
 * depends on: a match's game and seats, the sender's token) in, a typed
 * request or a problem out.  No I/O, no libmicrohttpd connection, no
 * database, no clock.  The handler runs its own checks that need the
 * daemon (the path's ids, the token's rights, a live match, the runtime)
 * where it did before, calls the decoder, and replies the problem as it
 * comes:
 *
 *     if (body_token(req->body, &t, &problem) < 0) {
 *             api_reply_problem_json(req, problem);
 *             return;
 *     }
 *
 * So tests/fuzz/bodies_fuzz.c drives exactly the code the handlers run,
 * route by route, with server.c's order: JSON syntax, then body_members(),
 * then the route's decoder.
 *
 * Every decoder returns 0 with *ret filled, or -EINVAL with *ret_problem a
 * new problem (api/problem.h: status 400, or 403/404 where an input names a
 * seat its token or its match does not have; a "field" member where the
 * problem names one), NULL only when memory ran out (the handler then
 * answers 500, as api_reply_problem_json does for NULL).  A decoder never
 * changes the body; pointers in *ret borrow from it unless said otherwise.
 */
#ifndef ARBITER_API_BODIES_H
#define ARBITER_API_BODIES_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "api/auth.h"
#include "api/router.h"
#include "engine/engine.h"
#include "match/match.h"
#include "organiser/stage.h"

/* How many venue tables a tournament may list. */
#define BODY_TOURNAMENT_TABLES_MAX      64
/* A tournament's name: 1..128 bytes (tournaments.name's CHECK). */
#define BODY_TOURNAMENT_NAME_MAX        128
/* A registration's seed: 1 (the best) .. 100000. */
#define BODY_REGISTRATION_SEED_MAX      100000
/* A stage's "advance": 2 .. 100000 of the previous stage go on. */
#define BODY_STAGE_ADVANCE_MAX          100000
/* A stage's config is checked when the stage is added as if this many
 * played. */
#define BODY_STAGE_CHECK_FIELD          64
/* A correction's reason: 1..500 bytes (corrections.reason's CHECK). */
#define BODY_REASON_MAX                 500
/* A table's seats: engine/judge.h JUDGE_MAX_SEATS. */
#define BODY_TABLE_MAX_SEATS            8
/* A seat's button map names a call of 1..32 bytes. */
#define BODY_CALL_NAME_MAX              32
/* Players, clubs, external ids: 1..64 bytes (api/tournaments.h TOUR_NAME_MAX). */
#define BODY_TEXT_MAX                   64

/* The route's members rule (api/router.h): a member the route does not
 * take, or a body on a route that takes none, is a 400 naming it.  A body
 * that is not an object passes: the handler says what it expects. */
int body_members(const struct route *route, const char *method, json_t *body, json_t **ret_problem);

/* POST /v1/tokens {name, role}: role admin, referee or display. */
struct body_token {
        const char *name;
        enum auth_role role;
};
int body_token(json_t *body, struct body_token *ret, json_t **ret_problem);

/* POST /v1/tables {name, seats, pads}.  pads is a new reference: every pad
 * of the table as the database takes it, [{seat, pad, role}] (seat 0 for
 * the table's own), each pad once. */
struct body_table {
        const char *venue;              /* a venue id (common/venue.h), or NULL: the daemon's */
        const char *name;
        json_t *seats;                  /* [{seat, pad | pads, buttons}], 1..8 of them */
        json_t *pads;
};
int body_table(json_t *body, struct body_table *ret, json_t **ret_problem);

/* POST /v1/matches (an object), and the spec another resource creates a
 * match from (api_match_create_for): {game, table, players | seats, seed,
 * config, data, confirm}.  "confirm" is "auto" (the default: a finished
 * match's result flows on), "referee", or {"by": "referee", "timeout_s":
 * n}: the runtime confirms after n seconds if no referee has.  seats is a new reference, [{seat, name}] in
 * seat order; data's texts point into the body. */
struct body_match {
        const struct eng_game *game;
        int64_t table_id;               /* 0: none */
        bool has_seed;
        uint64_t seed;                  /* <= INT64_MAX */
        bool confirm;
        int64_t confirm_timeout_s;
        struct eng_data data;
        struct eng_config cfg;          /* validated with data and the seat count */
        unsigned n_seats;
        json_t *seats;
};
int body_match(json_t *spec, struct body_match *ret, json_t **ret_problem);

/* POST /v1/matches/{id}/inputs and /preview (an object): {kind, seat,
 * fields…, reason}, for a live match of game with n_seats seats, sent by a
 * token of role (a seat token speaks for token_seat, 1-based; token_name
 * names it in a 403).  reason is "" when none was given. */
struct body_input_ctx {
        const struct eng_game *game;
        unsigned n_seats;
        int64_t match_id;
        enum auth_role role;
        int token_seat;
        const char *token_name;
};
int body_input(const struct body_input_ctx *c, json_t *body, struct eng_input *ret,
               char reason[static MATCH_REASON_MAX], json_t **ret_problem);

/* POST /v1/venues {id, name}: id a venue's id (common/venue.h); name 1 to
 * VENUE_NAME_MAX characters, or absent or null: the id. */
struct body_venue {
        const char *id, *name;
};
int body_venue(json_t *body, struct body_venue *ret, json_t **ret_problem);

/* POST /v1/players {name, club, external_id} (update false), PATCH
 * /v1/players/{id} {name, club, external_id, active} (update true: members
 * left out stay as they are).  Texts are NULL when absent or null. */
struct body_player {
        const char *name, *club, *external_id;
        bool club_given, external_id_given;     /* present, null included */
        int active;                     /* -1: left out; 0, 1 */
};
int body_player(json_t *body, bool update, struct body_player *ret, json_t **ret_problem);

/* POST /v1/tournaments {name, game, competitive, seed, match_config,
 * tables}.  check_config: match_config is checked against the game as a
 * match's config (a daemon that runs matches). */
struct body_tournament {
        const char *name, *game;
        bool competitive;
        bool has_seed;                  /* only when not competitive */
        uint64_t seed;
        json_t *config;                 /* an object, or NULL */
        json_t *tables;                 /* an array of table ids, or NULL */
};
int body_tournament(json_t *body, bool check_config, struct body_tournament *ret, json_t **ret_problem);

/* POST /v1/tournaments/{id}/state {state}. */
int body_tournament_state(json_t *body, const char **ret_state, json_t **ret_problem);

/* POST /v1/tournaments/{id}/registrations {player, seed}. */
struct body_registration {
        int64_t player;
        bool has_seed;
        int seed;
};
int body_registration(json_t *body, struct body_registration *ret, json_t **ret_problem);

/* POST /v1/tournaments/{id}/stages {format, config, advance, confirm}:
 * config is checked as if BODY_STAGE_CHECK_FIELD entrants played (the
 * stage's real field is checked again when it starts); confirm as a
 * match's. */
struct body_stage {
        const char *format;
        json_t *config;                 /* as sent; not an object: stored as {} */
        struct tour_stage_config cfg;
        bool has_advance;
        int advance;
        json_t *confirm;                /* as sent, or NULL when absent or null */
        bool confirm_by_referee;
        int64_t confirm_timeout_s;
};
int body_stage(json_t *body, struct body_stage *ret, json_t **ret_problem);

/* POST /v1/tournaments/{id}/matches/{match}/call: none, {} or {table}. */
int body_call(json_t *body, int64_t *ret_table, json_t **ret_problem);

/* POST .../matches/{match}/result {results}: the shape; the results are
 * decoded by body_results(), and judged against the match by the
 * tournament service (org_stage_result_check, organiser/stage.h). */
int body_result(json_t *body, json_t **ret_problem);
/* POST .../matches/{match}/corrections {results, reason, reset}. */
struct body_correction {
        const char *reason;
        bool reset;
};
int body_correction(json_t *body, struct body_correction *ret, json_t **ret_problem);
/* The results member, [{player, rank, score?, forfeit?}], into
 * ret[0..*ret_n) in the order sent: each an object of those members alone,
 * player a whole number, rank a whole number from 1, score a finite number
 * or null (0), forfeit true or false; at most cap of them.  Which players,
 * how many and which ranks the match takes is the service's to say. */
int body_results(json_t *results, struct org_result_entry *ret, size_t cap, size_t *ret_n, json_t **ret_problem);

#endif
