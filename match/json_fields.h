/* match/json_fields.h — private to match/json_*.c: one field's values as
 * JSON and back, the pieces every shape of match/json.h is made of.  The
 * type mapping is the one json.h states. */
#ifndef ARBITER_MATCH_JSON_FIELDS_H
#define ARBITER_MATCH_JSON_FIELDS_H

#include <stdbool.h>
#include <jansson.h>

#include "engine/engine.h"

/* json_object_set_new/json_array_append_new steal their value even when
 * they fail, so a NULL from a constructor only has to be seen once: these
 * fold every failure into one -ENOMEM the caller checks at the end. */
int jf_set(json_t *obj, const char *key, json_t *v);
int jf_append(json_t *arr, json_t *v);
json_t *jf_string_or_null(const char *s);

/* An engine seat: 1-based, null for none. */
json_t *jf_seat(int64_t seat);
/* A seat mask as the list of 1-based seats. */
json_t *jf_seats(int64_t mask);
/* A handle as 8 lowercase hex digits. */
json_t *jf_handle(int64_t handle);

/* Field f's value at v (its slots) as JSON: one value, or a list.  state
 * (may be NULL) is any state of the match, for a card's face.  NULL when
 * the value cannot be shown. */
json_t *jf_value_to(const struct eng_game *g, const void *state, const struct eng_field *f, const int64_t *v);

/* Adds the members of fields f[0..n) laid out from v to obj: each as
 * jf_value_to, and beside a single CALL its name ("<field>_name").  keep
 * (may be NULL) says which fields to show.  0 or -ENOMEM / -EINVAL. */
int jf_fields_to(const struct eng_game *g, const void *state, const struct eng_field *f, size_t n,
                 const int64_t *v, bool (*keep)(const struct eng_field *f, const void *ctx), const void *ctx,
                 json_t *obj);

/* Reads field f from j (not NULL) into its slots at ret.  JSON null is a
 * single SEAT's "no seat" (ENG_SEAT_TABLE), an optional field's default
 * (ENG_ABSENT when that is its default), an optional list's empty list.
 * field is the name for messages ("points", "deck.copies").  request: a
 * person's input, where a call must be one of the game's (by number or
 * name); otherwise the log, which holds any call number in the field's
 * range (a refused input is logged too).  0, or -EINVAL with *ret_err. */
int jf_value_from(const struct eng_game *g, const struct eng_field *f, json_t *j, const char *field, bool request,
                  int64_t *ret, struct eng_error *ret_err);

/* Whether key is a member fields f[0..n) make (a field, or a single CALL's
 * "_name" companion). */
bool jf_is_member(const struct eng_field *f, size_t n, const char *key);

/* Whether field f's value at v (its slots) reads back, through
 * jf_value_to and jf_value_from, to the same slots: each value in its
 * type's domain and its field's range, a list no longer than its field,
 * ENG_ABSENT only where null reads back as it. */
bool jf_value_carried(const struct eng_field *f, const int64_t *v);

/* Whether g takes the built-in input kind k (engine.h, eng_game.builtins:
 * call, tie and press only when g says so). */
bool jf_takes_builtin(const struct eng_game *g, enum eng_input_kind k);

#endif
