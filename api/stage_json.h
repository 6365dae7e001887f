/* api/stage_json.h — the JSON of a tournament's stage matches, as every
 * route that shows them shows them (internal to api/): GET
 * .../matches[/{mid}], .../queue, POST .../rounds, .../call, .../result,
 * .../corrections, and the events that carry them.
 *
 * A stage match: {id, match, round, stage, state, table, result, table_no,
 * bracket_id, recorded_at, recorded_by, participants: [{name, seat,
 * player}]}, members in the order the replies have always had (the order
 * PostgreSQL's jsonb kept them in when the database built them: shorter
 * names first).  match, table, bracket_id, result, recorded_at and
 * recorded_by are null while there is none.  Functions return a new
 * reference (NULL only without memory).
 */
#ifndef ARBITER_API_STAGE_JSON_H
#define ARBITER_API_STAGE_JSON_H

#include <stddef.h>
#include <jansson.h>

#include "store/stage_matches.h"

json_t *stage_match_json(const struct store_stage_match_row *m);
/* [stage_match_json(rows[0]), ...]. */
json_t *stage_matches_json(const struct store_stage_match_row *rows, size_t n);
/* A round's byes: [{name, player}]. */
json_t *stage_byes_json(const struct store_stage_bye *byes, size_t n);
/* Stored JSON text (a result), or null. */
json_t *stage_stored_json(const char *text);
/* A string, or null for NULL. */
json_t *stage_text_json(const char *text);

#endif
