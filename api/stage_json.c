/* api/stage_json.c — see stage_json.h. */
#include "api/stage_json.h"

json_t *stage_stored_json(const char *text) {
        json_t *j = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;

        return j ? j : json_null();
}

static json_t *id_or_null(int64_t id) {
        return id ? json_integer((json_int_t) id) : json_null();
}

json_t *stage_text_json(const char *s) {
        return s ? json_string(s) : json_null();
}

json_t *stage_match_json(const struct store_stage_match_row *m) {
        json_t *parts = m->n_participants ? json_array() : json_null();

        for (size_t i = 0; i < m->n_participants; i++)
                json_array_append_new(parts, json_pack("{s:s, s:i, s:I}", "name", m->participants[i].name, "seat",
                                                       m->participants[i].seat, "player",
                                                       (json_int_t) m->participants[i].player));
        return json_pack("{s:I, s:o, s:i, s:i, s:s, s:o, s:o, s:i, s:o, s:o, s:o, s:o}", "id", (json_int_t) m->id,
                         "match", id_or_null(m->match), "round", m->round, "stage", m->stage, "state",
                         store_match_state_name(m->state), "table", id_or_null(m->table), "result",
                         stage_stored_json(m->result), "table_no", m->table_no, "bracket_id",
                         m->bracket_id >= 0 ? json_integer(m->bracket_id) : json_null(), "recorded_at",
                         stage_text_json(m->recorded_at), "recorded_by", stage_text_json(m->recorded_by), "participants",
                         parts);
}

json_t *stage_matches_json(const struct store_stage_match_row *rows, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, stage_match_json(&rows[i]));
        return a;
}

json_t *stage_byes_json(const struct store_stage_bye *byes, size_t n) {
        json_t *a = json_array();

        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_pack("{s:s?, s:I}", "name", byes[i].name, "player",
                                                   (json_int_t) byes[i].player));
        return a;
}
