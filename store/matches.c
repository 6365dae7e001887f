/* store/matches.c — the SQL of the match runtime.  See matches.h. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <jansson.h>

#include "common/log.h"
#include "store/matches.h"

#define TS(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

/* The seed stays secret while a match can still be played: whoever knows
 * it can compute the deal. */
#define MATCH_JSON(m) \
        "jsonb_build_object('id', " m ".id, 'venue', " m ".venue, 'game', " m ".game, 'table', " m ".table_id, " \
        "'state', " m ".state, 'seats', " m ".seats, 'table_pads', " m ".table_pads, 'config', " m ".config, " \
        "'data', " m ".data, 'confirm', jsonb_build_object('by', " m ".confirm, 'timeout_s', " \
        m ".confirm_timeout_s), " \
        "'created_by', " m ".created_by, 'created_at', " TS(m ".created_at") ", " \
        "'started_at', " TS(m ".started_at") ", 'finished_at', " TS(m ".finished_at") ", " \
        "'needs_referee', " m ".needs_referee, 'result', " m ".result, " \
        "'seed', CASE WHEN " m ".state IN ('finished', 'aborted') THEN " m ".seed END)"

static void on_ignored(void *userdata, const PGresult *res, const char *error) {
        (void) userdata;
        if (!res)
                log_warning("could not mark a match for a referee: %s", error);
}

int match_store_insert_match(struct store *s, const struct match_store_new *m, store_result_fn cb,
                             void *userdata) {
        const char *p[] = { m->game, m->table_id, m->seed, m->config, m->seats, m->who, m->data, m->confirm,
                            m->confirm_timeout_s, m->venue };

        /* At a table: the table's venue (an unknown table leaves it NULL,
         * and matches_table_id_fkey names the fault, not the venue). */
        return store_query(s,
                "WITH m AS (INSERT INTO matches (game, table_id, seed, config, seats, created_by, data, confirm, "
                "                                confirm_timeout_s, table_pads, venue) "
                "  SELECT $1, $2::bigint, $3::bigint, $4::jsonb, "
                "    (SELECT jsonb_agg(jsonb_build_object('seat', x.seat, 'name', x.name, "
                "       'pads', (SELECT coalesce(jsonb_agg(jsonb_build_object('pad', tp.pad_id, 'role', tp.role) "
                "                                          ORDER BY tp.pad_id), '[]'::jsonb) "
                "                  FROM table_pads tp WHERE tp.table_id = $2::bigint AND tp.seat = x.seat), "
                "       'buttons', ts.button_map) ORDER BY x.seat) "
                "       FROM jsonb_to_recordset($5::jsonb) AS x(seat int, name text) "
                "       LEFT JOIN table_seats ts ON ts.table_id = $2::bigint AND ts.seat = x.seat), $6, "
                "    $7::jsonb, $8, $9::integer, "
                "    (SELECT coalesce(jsonb_agg(jsonb_build_object('pad', tp.pad_id, 'role', tp.role) "
                "                               ORDER BY tp.pad_id), '[]'::jsonb) "
                "       FROM table_pads tp WHERE tp.table_id = $2::bigint AND tp.seat IS NULL), "
                "    CASE WHEN $2::bigint IS NULL THEN $10 "
                "         ELSE coalesce((SELECT t.venue FROM tables t WHERE t.id = $2::bigint), $10) END "
                "  RETURNING *) "
                "SELECT " MATCH_JSON("m") " FROM m",
                10, p, cb, userdata);
}

int match_store_get(struct store *s, const char *id, store_result_fn cb, void *userdata) {
        const char *p[] = { id };

        return store_query(s, "SELECT " MATCH_JSON("m") " FROM matches m WHERE m.id = $1", 1, p, cb, userdata);
}

int match_store_list(struct store *s, const char *state, const char *limit, const char *after, bool newest_first,
                     store_result_fn cb, void *userdata) {
        const char *p[] = { after, limit, state };

        /* "after" is after in the list's order: newest first, the ids
         * below it (0: from the newest). */
        if (newest_first)
                return store_query(s,
                        "SELECT " MATCH_JSON("m") " FROM matches m "
                        "WHERE ($1::bigint = 0 OR m.id < $1) AND ($3::text IS NULL OR m.state = $3) "
                        "ORDER BY m.id DESC LIMIT $2",
                        3, p, cb, userdata);
        return store_query(s,
                "SELECT " MATCH_JSON("m") " FROM matches m WHERE m.id > $1 AND ($3::text IS NULL OR m.state = $3) "
                "ORDER BY m.id LIMIT $2",
                3, p, cb, userdata);
}

/* The row of matches changes only with the state or a result: most inputs
 * (calls, timers) are one INSERT, which keeps the write before publishing
 * short (issue 4's end-to-end target). */
int match_store_insert_input(struct store *s, const struct match_store_input *in, store_result_fn cb,
                             void *userdata) {
        const char *p[] = { in->match_id, in->seq, in->time_us, in->seat, in->kind, in->input, in->hash,
                            in->refusal, in->reaction_us, in->source, in->who, in->reason, in->state, in->result,
                            in->voided };

        /* most inputs (calls, timers): the INSERT alone, the cheapest
         * statement to parse, plan and commit before the input is published */
        if (in->same_state && !in->result && !in->voided)
                return store_query(s,
                        "INSERT INTO match_inputs (match_id, seq, match_time_us, seat, kind, input, state_hash, "
                        "  refusal, reaction_us, source, who, reason) "
                        "VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING",
                        12, p, cb, userdata);
        /* The row follows the state: a result while provisional or
         * finished, none once a void takes the match back to running; and
         * only the newest input's state, should an older one arrive late
         * (a write retried from the spool). */
        return store_query(s,
                "WITH i AS (INSERT INTO match_inputs (match_id, seq, match_time_us, seat, kind, input, "
                "             state_hash, refusal, reaction_us, source, who, reason) "
                "           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12) "
                "           ON CONFLICT DO NOTHING RETURNING seq), "
                "     v AS (UPDATE match_inputs SET voided_by = $2 "
                "           WHERE match_id = $1 AND seq = ANY ($15::bigint[]) AND voided_by IS NULL "
                "             AND EXISTS (SELECT 1 FROM i)) "
                "UPDATE matches SET state = $13, "
                "  started_at = CASE WHEN $13 <> 'ready' THEN coalesce(started_at, now()) END, "
                "  finished_at = CASE WHEN $13 IN ('provisional', 'finished') THEN coalesce(finished_at, now()) END, "
                "  result = CASE WHEN $13 IN ('provisional', 'finished') THEN coalesce($14::jsonb, result) END "
                "WHERE id = $1 "
                "  AND NOT EXISTS (SELECT 1 FROM match_inputs n WHERE n.match_id = $1 AND n.seq > $2::bigint) "
                "RETURNING (SELECT count(*) FROM i)",
                15, p, cb, userdata);
}

#define LOAD_SELECT \
        "SELECT m.id, m.game, m.seed, m.config, m.seats, " \
        "  (SELECT coalesce(jsonb_agg(jsonb_build_object('seq', i.seq, 'time_us', i.match_time_us, " \
        "     'input', i.input, 'state_hash', i.state_hash, 'refusal', i.refusal) ORDER BY i.seq), " \
        "     '[]'::jsonb) FROM match_inputs i WHERE i.match_id = m.id), " \
        "  m.data, m.table_pads, m.confirm, m.confirm_timeout_s, m.table_id " \
        "FROM matches m WHERE m.venue = $1 AND m.state IN ('ready', 'running', 'paused', 'provisional') " \
        "  AND m.needs_referee IS NULL "

int match_store_load(struct store *s, const char *venue, store_result_fn cb, void *userdata) {
        const char *p[] = { venue };

        return store_query(s, LOAD_SELECT "ORDER BY m.id", 1, p, cb, userdata);
}

int match_store_load_one(struct store *s, const char *venue, const char *id, store_result_fn cb, void *userdata) {
        const char *p[] = { venue, id };

        return store_query(s, LOAD_SELECT "AND m.id = $2", 2, p, cb, userdata);
}

int match_store_needs_referee(struct store *s, const char *id, const char *reason) {
        const char *p[] = { id, reason };

        return store_query(s, "UPDATE matches SET needs_referee = $2 WHERE id = $1", 2, p, on_ignored, NULL);
}

int match_store_abort(struct store *s, const char *id, const char *result, store_result_fn cb,
                      void *userdata) {
        const char *p[] = { id, result };

        return store_query(s,
                "UPDATE matches m SET state = 'aborted', finished_at = now(), result = $2::jsonb "
                "WHERE m.id = $1 AND m.state IN ('ready', 'running', 'paused', 'provisional') RETURNING " MATCH_JSON("m"),
                2, p, cb, userdata);
}

int match_store_log(struct store *s, const char *id, const char *limit, const char *after,
                    store_result_fn cb, void *userdata) {
        const char *p[] = { id, after, limit };

        return store_query(s,
                "SELECT EXISTS (SELECT 1 FROM matches WHERE id = $1), "
                "  (SELECT coalesce(jsonb_agg(x.j ORDER BY x.seq), '[]'::jsonb) FROM "
                "    (SELECT i.seq, jsonb_build_object('seq', i.seq, 'recorded_at', " TS("i.recorded_at") ", "
                "       'time_us', i.match_time_us, 'seat', i.seat, 'kind', i.kind, 'input', i.input, "
                "       'state_hash', i.state_hash, 'refusal', i.refusal, 'reaction_us', i.reaction_us, "
                "       'source', i.source, 'who', i.who, 'reason', i.reason, 'voided_by', i.voided_by) AS j "
                "     FROM match_inputs i WHERE i.match_id = $1 AND i.seq > $2 ORDER BY i.seq LIMIT $3) x)",
                3, p, cb, userdata);
}

/* ---- spool records --------------------------------------------------- */

/* The record's keys, in the order of the INSERT's parameters; the flag
 * says whether SQL NULL is allowed there. */
#define INPUT_FIELD(name, nullable) { #name, offsetof(struct match_store_input, name), nullable }
static const struct input_field {
        const char *key;
        size_t offset;
        bool nullable;
} input_fields[] = {
        INPUT_FIELD(match_id, false), INPUT_FIELD(seq, false), INPUT_FIELD(time_us, false),
        INPUT_FIELD(seat, true), INPUT_FIELD(kind, false), INPUT_FIELD(input, false),
        INPUT_FIELD(hash, false), INPUT_FIELD(refusal, true), INPUT_FIELD(reaction_us, true),
        INPUT_FIELD(source, false), INPUT_FIELD(who, false), INPUT_FIELD(reason, true),
        INPUT_FIELD(state, false), INPUT_FIELD(result, true), INPUT_FIELD(voided, true),
};
#define N_INPUT_FIELDS (sizeof input_fields / sizeof input_fields[0])

static const char **input_field(const struct match_store_input *in, const struct input_field *f) {
        return (const char **) ((char *) (uintptr_t) in + f->offset);
}

char *match_store_input_to_record(const struct match_store_input *in) {
        json_t *o = json_object();
        char *text;

        if (!o)
                return NULL;
        for (size_t i = 0; i < N_INPUT_FIELDS; i++) {
                const char *v = *input_field(in, &input_fields[i]);
                if (json_object_set_new(o, input_fields[i].key, v ? json_string(v) : json_null()) < 0) {
                        json_decref(o);
                        return NULL;
                }
        }
        text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(o);
        return text;
}

int match_store_input_from_record(const void *data, size_t len, struct match_store_input *ret,
                                  json_t **ret_root) {
        json_t *o = json_loadb(data, len, 0, NULL);

        *ret = (struct match_store_input) { 0 };
        *ret_root = NULL;
        if (!json_is_object(o)) {
                json_decref(o);
                return -EBADMSG;
        }
        for (size_t i = 0; i < N_INPUT_FIELDS; i++) {
                json_t *v = json_object_get(o, input_fields[i].key);
                if (json_is_string(v))
                        *input_field(ret, &input_fields[i]) = json_string_value(v);
                /* A nullable field may be missing: a record spooled by an
                 * older build, before the field existed. */
                else if (!(input_fields[i].nullable && (!v || json_is_null(v)))) {
                        json_decref(o);
                        *ret = (struct match_store_input) { 0 };
                        return -EBADMSG;
                }
        }
        *ret_root = o;
        return 0;
}
