/* match/json.h — engine values as JSON (jansson) and back.
 *
 * The one place that knows the JSON shape of a game, a config, an input, an
 * output, a view and a result, so that REST replies, Server-Sent Events, the
 * stored input log (match_inputs.input, jsonb) and the spool all say the
 * same thing.  Nothing here knows a game: every shape comes from the game's
 * tables (struct eng_field and the definitions in engine/engine.h).
 * docs/matches.md documents the shapes.
 *
 * Types (engine.h, enum eng_type) in JSON: INT, TIME, SEQ numbers; BOOL
 * true/false; ENUM the choice's name; SEAT 1-based, null for none; SEATS
 * the list of 1-based seats; BITS the list of set bits; CALL the number,
 * with the call's name beside a single call ("call": 1, "call_name":
 * "row 1"); HANDLE 8 lowercase hex digits; CARD {"handle": …, face…};
 * PLACES [{"seat", "place"}] best first; a list a JSON array; an absent
 * optional value null.
 *
 * Audiences.  Outputs are shown to one reader: the public (scoreboards,
 * D-Bus), one seat, the referee, or the runtime (logs: everything).  An
 * event the reader may not hear gives NULL; a field the reader may not see
 * is left out (engine.h, "Audiences").
 *
 * Seats.  The engine numbers seats 0 .. n − 1; JSON always carries the
 * 1-based number.  The C side of every function here takes and returns
 * engine seats: the conversion happens only at the JSON edge, here.
 *
 * Errors.  A function that builds JSON returns a new reference, or NULL when
 * the value cannot be shown or memory ran out.  A function that parses JSON
 * returns 0 or -EINVAL with *ret_err (may be NULL) naming the field a person
 * must fix and saying how ("deck.copies: must be 1..4").
 *
 * Ownership: every json_t * returned is a new reference the caller
 * decrefs; json_t * arguments are borrowed.
 */
#ifndef ARBITER_MATCH_JSON_H
#define ARBITER_MATCH_JSON_H

#include <stdbool.h>
#include <jansson.h>

#include "engine/engine.h"

/* ---- Games, settings and data files (match/json_game.c). */

/* GET /v1/games/{name}: name, display_name, description, min_seats,
 * max_seats, params (each field), defaults, data (the data files), inputs
 * (built-in and the game's, each with who may send it and its fields),
 * events (the framework's and the game's, with audiences and fields),
 * routes, calls, terms, view (its top-level members and audiences). */
json_t *match_json_game(const struct eng_game *g);

/* A match's config from JSON, starting from the game's defaults: members
 * nest along the dots ({"deck": {"copies": 2}}) or are given dotted
 * ({"deck.copies": 2}); each value as its field's type says; a list as an
 * array, a list of records as an array of objects.  An unknown key, a
 * setting given twice, a wrong type or a value out of range is an error
 * naming the key; then eng_config_validate with data (its error names
 * "seats", a data file, or the game's field).  obj NULL or JSON null: the
 * defaults.  0 with *ret, or -EINVAL. */
int match_json_config_from(const struct eng_game *g, json_t *obj, const struct eng_data *data,
                           unsigned n_seats, struct eng_config *ret, struct eng_error *ret_err);

/* cfg as nested objects along the dots: what match_json_config_from reads
 * back to the same config.  NULL only when memory runs out or the game's
 * keys clash. */
json_t *match_json_config_to(const struct eng_game *g, const struct eng_config *cfg);

/* A match's custom data files from {"<name>": "<the file>", …} (obj NULL or
 * null: none): ret's texts point into obj's strings (keep obj while ret is
 * used).  An unknown name or a value that is not a string is an error
 * naming "data.<name>".  0 or -EINVAL. */
int match_json_data_from(const struct eng_game *g, json_t *obj, struct eng_data *ret, struct eng_error *ret_err);
/* The custom files of data as that object; {} when every file is built in. */
json_t *match_json_data_to(const struct eng_game *g, const struct eng_data *data);

/* ---- Inputs and outputs (match/json_io.c). */

/* One input of the log: seq, time_us, seat, kind (the input's name) and
 * its fields.  NULL for an unknown kind or action, a seq above INT64_MAX,
 * or a value its field cannot carry. */
json_t *match_json_input_to(const struct eng_game *g, const struct eng_input *in);

/* The inverse, exactly: every member required (a CALL's "_name" companion
 * is optional and ignored), no other allowed.  0 with *ret, or -EINVAL
 * naming the member ("seat: must be 1..8 or null"). */
int match_json_input_from(const struct eng_game *g, json_t *j, struct eng_input *ret,
                          struct eng_error *ret_err);

/* An input as a person sends it over REST: {"kind": name, "seat": n (for an
 * input that acts for a seat), fields…}.  Optional fields left out get
 * their default (ENG_ABSENT where the runtime fills them in: a call's
 * window and press time); seq and time_us are the runtime's.  seat_fixed
 * >= 0 is the seat a seat token speaks for: "seat" may then be left out
 * and, if given, must be it; an input that acts for the table, sent by a
 * seat's token, carries that seat too (the engine knows who spoke).  0 with *ret, or -EINVAL naming the member
 * (an unknown kind lists the game's inputs). */
int match_json_input_request(const struct eng_game *g, json_t *body, int seat_fixed, struct eng_input *ret,
                             struct eng_error *ret_err);

/* Who reads an output. */
struct match_reader {
        enum eng_audience audience;     /* PUBLIC, SEAT, REFEREE, or RUNTIME (everything) */
        int seat;                       /* SEAT: whose */
};
extern const struct match_reader match_public, match_referee, match_runtime;

/* Whether reader hears o at all, and whether every field of it is public
 * (one rendering serves everyone). */
bool match_json_hears(const struct eng_output *o, const struct match_reader *reader);
bool match_json_all_public(const struct eng_output *o);

/* An output as an event object for reader: kind (its name), seat, at_us
 * and the fields reader may see; cards through g->card_face with state (any
 * state of the match).  *ret_name (may be NULL) is the event's name.  NULL
 * when reader does not hear it or memory ran out. */
json_t *match_json_output(const struct eng_game *g, const void *state, const struct eng_output *o,
                          const struct match_reader *reader, const char **ret_name);

/* The events of out that reader hears, as a list. */
json_t *match_json_outputs(const struct eng_game *g, const void *state, const struct eng_out *out,
                           const struct match_reader *reader);

/* The referee's explanation of out: one sentence per event the referee
 * hears, from each event's text with its fields put in ("seat 2 calls row
 * 3: wrong."). */
json_t *match_json_explain(const struct eng_game *g, const void *state, const struct eng_out *out);

/* ---- Views and results (match/json_view.c). */

/* The view of state for audience a (seat: the engine seat, ENG_VIEW_SEAT
 * only) as an object, built from g->view_visit's walk.  Members that carry
 * seat numbers (see "Seats in views" in docs/matches.md) are shown 1-based.
 * Every view carries "game" (the game's name) and "status" (eng_status_name),
 * whatever the engine's walk says.  NULL when the engine refuses, the walk is not well formed, or memory runs
 * out. */
json_t *match_json_view(const struct eng_game *g, const void *state, enum eng_audience a, int seat);

/* Final or provisional placements: finished, winner, label (one-seat
 * games), placements [{seat, place, score: {total, terms: {name: value}},
 * teams (per stage, when the game deals teams), stats (g->stats)}] best
 * first. */
json_t *match_json_result(const struct eng_game *g, const void *state, const struct eng_result *r);

/* ---- Names. */

/* "ready", "running", "paused", "finished"; NULL for anything else. */
const char *match_json_status_name(enum eng_status status);

#endif
