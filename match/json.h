/* match/json.h — engine values as JSON (jansson) and back.
 *
 * The one place that knows the JSON shape of a game, a config, an input, an
 * output, a view and a result, so that REST replies, Server-Sent Events, the
 * D-Bus signals' payloads and the stored input log (match_inputs.input,
 * jsonb) all say the same thing.  docs/matches.md documents every shape.
 *
 * Seats.  The engine numbers seats 0 .. n − 1 (engine/engine.h); tables,
 * the REST API and every screen number them 1 .. n.  JSON always carries
 * the 1-based number, and null for "no seat" (ENG_SEAT_TABLE: the table, a
 * referee, a timer).  The C side of every function here takes and returns
 * engine seats: the conversion happens only at the JSON edge, here.
 * Pad buttons stay 0-based, as in docs/protocol.md and the tables' button
 * maps.
 *
 * Errors.  A function that builds JSON returns a new reference, or NULL when
 * the value cannot be shown (an unknown kind, a number JSON cannot carry) or
 * memory ran out.  A function that parses JSON returns 0 or -EINVAL, with
 * *ret_err (may be NULL) naming the field a person must fix and saying how
 * ("deck.copies: must be 1..4"), the way eng_config_validate does.
 *
 * Ownership: every json_t * returned is a new reference the caller
 * decrefs; json_t * arguments are borrowed.  Names returned are static.
 */
#ifndef ARBITER_MATCH_JSON_H
#define ARBITER_MATCH_JSON_H

#include <jansson.h>

#include "engine/engine.h"

/* GET /v1/games: name, display_name, min_seats, max_seats, params (key,
 * type, min, max, default, unit, choices, doc), defaults (the default
 * config, as match_json_config_to shows it) and calls (button, call,
 * name). */
json_t *match_json_game(const struct eng_game *g);

/* A match's config from JSON, starting from the game's defaults: members
 * nest along the dots ({"deck": {"copies": 2}}) or are given dotted
 * ({"deck.copies": 2}), integers for ENG_PARAM_INT, true/false for
 * ENG_PARAM_BOOL, the choice's name for ENG_PARAM_ENUM.  An unknown key, a
 * setting given twice, a wrong type or a value out of range is an error
 * naming the dotted key; then eng_config_validate (its error names "seats"
 * or the game's field).  obj NULL or JSON null: the defaults, validated.
 * 0 with *ret, or -EINVAL (*ret is then unspecified). */
int match_json_config_from(const struct eng_game *g, json_t *obj, unsigned n_seats,
                           struct eng_config *ret, struct eng_error *ret_err);

/* cfg as nested objects along the dots, choices by name: what
 * match_json_config_from reads back to the same config.  NULL only when
 * memory runs out or the game's keys clash ("deck" and "deck.copies"). */
json_t *match_json_config_to(const struct eng_game *g, const struct eng_config *cfg);

/* One input of the log: seq, time_us, seat, kind by name, and the kind's
 * fields by name (call: window, call, call_name, press_us; tie: window,
 * seats, press_us; press: button, press_us; referee: op, args).  call_name
 * is for people reading the log; the number is what counts.  Seats are
 * those of any table (1..ENG_MAX_SEATS), not only the game's range: a
 * refused input for a seat the match lacks is logged too.  NULL for an
 * unknown kind, a seq above INT64_MAX, or a seat or tie seat outside
 * 0 .. ENG_MAX_SEATS − 1. */
json_t *match_json_input_to(const struct eng_game *g, const struct eng_input *in);

/* The inverse: match_json_input_from(g, match_json_input_to(g, in)) gives
 * back in exactly (the union's unused bytes zero).  Every member is
 * required (call_name is optional and ignored; referee args may be shorter
 * than ENG_REFEREE_ARGS, the rest zero) and no other is allowed.  0 with
 * *ret, or -EINVAL naming the member ("seat: must be 1..8 or null"). */
int match_json_input_from(const struct eng_game *g, json_t *j, struct eng_input *ret,
                          struct eng_error *ret_err);

/* An output as an event object: kind (= *ret_event_name), seat, at_us and
 * the kind's fields; cards through g->card_visit, calls by number and
 * name, verdicts and causes by name, placements as a list best first.
 * *ret_event_name (may be NULL) is the SSE event name and the object's
 * "kind": "card_revealed", "call_judged", ..., "game_event",
 * "match_finished", and for requests to the runtime "window_open",
 * "window_close", "pad_light", "pad_buzz", "pad_lockout".  NULL for an
 * unknown kind (*ret_event_name is then "unknown"). */
json_t *match_json_output(const struct eng_game *g, const struct eng_output *o,
                          const char **ret_event_name);

/* The view of state for audience a (seat: the engine seat, ENG_VIEW_SEAT
 * only) as an object, built from g->view's walk.  Members that carry seat
 * numbers (see "Seats in views" in docs/matches.md) are shown 1-based.
 * NULL when the engine refuses (a seat out of range), the walk is not
 * well formed, or memory runs out. */
json_t *match_json_view(const struct eng_game *g, const void *state, enum eng_audience a,
                        int seat);

/* Final or provisional placements: finished, winner, placements (seat,
 * place, stats) best first, in eng_result.order. */
json_t *match_json_result(const struct eng_game *g, const struct eng_result *r);

/* ---- Names: stable snake_case, the same in JSON, logs and the database. */

/* "start", "call", "tie", "press", "timer", "pause", "resume", "referee";
 * NULL for anything else. */
const char *match_json_kind_name(enum eng_input_kind kind);
/* The kind called name, or -EINVAL. */
int match_json_kind_from_name(const char *name);

/* "correct", "wrong", "too_late", "not_allowed"; NULL for anything else. */
const char *match_json_verdict_name(enum eng_verdict verdict);
int match_json_verdict_from_name(const char *name);

/* "ready", "running", "paused", "finished"; NULL for anything else. */
const char *match_json_status_name(enum eng_status status);
int match_json_status_from_name(const char *name);

/* The event name of an output kind (as match_json_output); NULL for an
 * unknown kind. */
const char *match_json_output_name(enum eng_output_kind kind);

#endif
