/* api/standings.c — a tournament's stages, standings, bracket and results,
 * and their CSV exports.
 *
 * Standings are served from the cache a result refreshes (stages.standings);
 * ?recompute=true computes them afresh from the results instead, which is
 * how a test (and a doubting organiser) checks the cache.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/handlers.h"
#include "api/stage_data.h"
#include "api/tournaments.h"
#include "store/store.h"

#define CSV_CONTENT_TYPE "text/csv; charset=utf-8"

/* ---- stages ------------------------------------------------------------------- */

void handle_stages_create(struct api_request *req) {
        char *confirm_text = NULL, adv_s[24], *config_text;
        struct body_stage b;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        if (body_stage(req->body, &b, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (b.confirm)
                confirm_text = json_dumps(b.confirm, JSON_COMPACT | JSON_ENCODE_ANY);
        /* no config: stored as {} (the empty object is ours to release) */
        json_t *empty = json_is_object(b.config) ? NULL : json_object();
        config_text = json_dumps(empty ? empty : b.config, JSON_COMPACT);
        json_decref(empty);
        snprintf(adv_s, sizeof adv_s, "%d", b.advance);
        const char *p[] = { route_param(&req->match, "id"), b.format, config_text, b.has_advance ? adv_s : NULL,
                            confirm_text };
        r = store_query(req->deps->store,
                        "WITH t AS (SELECT * FROM tournaments WHERE id = $1 FOR UPDATE), "
                        "     s AS (INSERT INTO stages (tournament_id, number, format, config, advance, confirm) "
                        "           SELECT t.id, coalesce((SELECT max(number) FROM stages WHERE tournament_id = t.id), 0) "
                        "                  + 1, $2, $3::jsonb, $4::int, $5::jsonb FROM t WHERE t.state <> 'finished' "
                        "                  AND NOT (t.competitive AND $3::jsonb ? 'seed') "
                        "           RETURNING *) "
                        "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM t) THEN NULL "
                        /* whoever chooses a draw's seed can search for a draw that suits him */
                        "  WHEN NOT EXISTS (SELECT 1 FROM s) AND (SELECT competitive FROM t) AND $3::jsonb ? 'seed' "
                        "  THEN jsonb_build_object('error', 'config.seed: a competitive tournament''s draws come from "
                        "its secret, so that nobody can choose them; leave the seed out (docs/fairness.md)') "
                        "  WHEN NOT EXISTS (SELECT 1 FROM s) THEN jsonb_build_object('error', "
                        "       'the tournament is finished: reopen it (state running) to add a stage') "
                        "  ELSE (SELECT jsonb_build_object('number', s.number, 'format', s.format, 'config', s.config, "
                        "       'advance', s.advance, 'state', s.state, 'confirm', s.confirm) FROM s) END",
                        5, p, tour_on_created, req);
        free(config_text);
        free(confirm_text);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- standings ------------------------------------------------------------------ */

/* ?stage=N (default: the current stage, else the last), ?format=csv|json;
 * replies 400 and returns false on a bad value. */
static bool stage_and_format(struct api_request *req, const char **ret_stage, bool *ret_csv) {
        struct api_query q = api_request_query(req);
        struct query_stage_format sf;
        json_t *problem;

        if (query_stage_format(&q, &sf, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return false;
        }
        *ret_stage = sf.stage;
        *ret_csv = sf.csv;
        return true;
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s) {
        if (!strpbrk(s, ",\"\r\n")) {
                fputs(s, f);
                return;
        }
        fputc('"', f);
        for (; *s; s++) {
                if (*s == '"')
                        fputc('"', f);
                fputc(*s, f);
        }
        fputc('"', f);
}

static void reply_standings(struct api_request *req, json_t *st, bool csv) {
        json_t *rows = json_object_get(st, "rows"), *names = json_object_get(st, "tiebreaks"), *row, *name;
        char *text = NULL;
        size_t len = 0, i, k;

        if (!csv) {
                api_reply_json(req, MHD_HTTP_OK, st);
                return;
        }
        FILE *f = open_memstream(&text, &len);
        if (!f) {
                json_decref(st);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        fputs("rank,player,name,points,played,won,drawn,lost,byes,dropped", f);
        json_array_foreach(names, k, name)
                fprintf(f, ",%s", json_string_value(name));
        fputs("\r\n", f);
        json_array_foreach(rows, i, row) {
                fprintf(f, "%lld,%lld,", (long long) json_integer_value(json_object_get(row, "rank")),
                        (long long) json_integer_value(json_object_get(row, "player")));
                csv_field(f, json_string_value(json_object_get(row, "name")) ?: "");
                fprintf(f, ",%g,%lld,%lld,%lld,%lld,%lld,%s", json_number_value(json_object_get(row, "points")),
                        (long long) json_integer_value(json_object_get(row, "played")),
                        (long long) json_integer_value(json_object_get(row, "won")),
                        (long long) json_integer_value(json_object_get(row, "drawn")),
                        (long long) json_integer_value(json_object_get(row, "lost")),
                        (long long) json_integer_value(json_object_get(row, "byes")),
                        json_is_true(json_object_get(row, "dropped")) ? "yes" : "no");
                json_array_foreach(names, k, name)
                        fprintf(f, ",%.6g", json_number_value(json_object_get(json_object_get(row, "tiebreaks"),
                                                                               json_string_value(name))));
                fputs("\r\n", f);
        }
        fclose(f);
        json_decref(st);
        api_reply_text(req, MHD_HTTP_OK, text, CSV_CONTENT_TYPE);
}

struct standings_ctx {
        struct api_request *req;
        bool csv, recompute;
};

static void on_standings(void *userdata, const PGresult *res, const char *error) {
        struct standings_ctx *c = userdata;
        struct stage_data d;
        char err[256];
        json_t *row = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL, *st;

        if (!row) {
                if (!res)
                        api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the stage failed: %s", error);
                else
                        api_reply_problem(c->req, MHD_HTTP_NOT_FOUND, "tournament %s has no such stage",
                                          route_param(&c->req->match, "id"));
                free(c);
                return;
        }
        json_t *cached = json_object_get(row, "cached");
        if (!c->recompute && json_is_object(cached)) {
                reply_standings(c->req, json_incref(cached), c->csv);
        } else if (stage_data_parse(json_object_get(row, "snapshot"), &d, err, sizeof err) < 0 ||
                   !(st = stage_data_standings(&d, err, sizeof err))) {
                api_reply_problem(c->req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the standings cannot be computed: %s", err);
                stage_data_free(&d);
        } else {
                stage_data_free(&d);
                reply_standings(c->req, st, c->csv);
        }
        json_decref(row);
        free(c);
}

void handle_tournament_standings(struct api_request *req) {
        struct api_query q = api_request_query(req);
        struct standings_ctx *c;
        bool csv, recompute;
        const char *stage;
        json_t *problem;
        long long id;
        int r;

        if (!id_param(req, "id", &id) || !stage_and_format(req, &stage, &csv))
                return;
        if (query_recompute(&q, &recompute, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        if (!(c = calloc(1, sizeof *c))) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        *c = (struct standings_ctx) { .req = req, .csv = csv, .recompute = recompute };
        const char *p[] = { route_param(&req->match, "id"), stage, NULL };
        r = store_query(req->deps->store,
                        "SELECT jsonb_build_object('cached', (SELECT s.standings FROM stages s "
                        "  WHERE s.id = (x.snap->'stage'->>'id')::bigint), 'snapshot', x.snap) "
                        "FROM (" STAGE_DATA_SQL ") x(snap)", 3, p, on_standings, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}

/* ---- bracket -------------------------------------------------------------------- */

static const char *const part_names[] = { "winners", "losers", "grand_final", "grand_final_reset", "third_place" };
static const char *const status_names[] = { "waiting", "ready", "done", "bye", "void", "not_needed" };

static json_t *entrant_json(const struct stage_data *d, int32_t e) {
        if (e < 0 || e >= d->n)
                return json_null();
        return json_pack("{s:I, s:s}", "player", (json_int_t) d->players[e], "name", d->names[e]);
}

static json_t *slot_source_json(const struct tour_bracket_slot *s) {
        static const char *const kinds[] = { "empty", "seed", "winner", "loser" };
        return json_pack("{s:s, s:i}", "from", kinds[s->source], "ref",
                         s->source == TOUR_SRC_SEED ? s->ref + 1 : s->ref);
}

static void on_bracket(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        struct tour_stage_bracket_view v = { 0 };
        struct tour_stage_error e = { "" };
        struct stage_data d;
        char err[256];
        json_t *snap = res && PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;

        if (!snap) {
                if (!res)
                        api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading the stage failed: %s", error);
                else
                        api_reply_problem(req, MHD_HTTP_NOT_FOUND, "tournament %s has no such stage",
                                          route_param(&req->match, "id"));
                return;
        }
        if (stage_data_parse(snap, &d, err, sizeof err) < 0) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the stored stage is inconsistent: %s", err);
                goto done;
        }
        if (!tour_format_bracket(d.cfg.format)) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "stage %d is %s: only elimination stages have a bracket; "
                                  "see .../standings", d.number, tour_format_name(d.cfg.format));
                goto done;
        }
        if (strcmp(d.state, "pending") == 0) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "stage %d has not started: its bracket is drawn when it "
                                  "starts", d.number);
                goto done;
        }
        int r = tour_stage_bracket(&d.in, &v, &e);
        if (r < 0) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the bracket cannot be resolved: %s", e.text);
                goto done;
        }
        /* a tree: every match names where its winner and loser go */
        json_t *matches = json_array();
        for (int i = 0; i < v.bracket->n_matches; i++) {
                const struct tour_bracket_match *m = &v.bracket->match[i];
                const struct tour_bracket_state *s = &v.states[i];
                json_t *slots = json_array(), *winner_to = json_null(), *loser_to = json_null();

                for (int k = 0; k < 2; k++)
                        json_array_append_new(slots, json_pack("{s:o, s:o}", "source", slot_source_json(&m->slot[k]),
                                                               "entrant", entrant_json(&d, s->occupant[k])));
                for (int j = i + 1; j < v.bracket->n_matches; j++)
                        for (int k = 0; k < 2; k++) {
                                const struct tour_bracket_slot *sl = &v.bracket->match[j].slot[k];
                                /* the first match that takes it: a grand final's
                                 * reset names the same sources again, later */
                                if (sl->ref == i && sl->source == TOUR_SRC_WINNER && json_is_null(winner_to))
                                        winner_to = json_pack("{s:i, s:i}", "match", j, "slot", k);
                                if (sl->ref == i && sl->source == TOUR_SRC_LOSER && json_is_null(loser_to))
                                        loser_to = json_pack("{s:i, s:i}", "match", j, "slot", k);
                        }
                json_array_append_new(matches, json_pack(
                        "{s:i, s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:i, s:i}", "id", m->id, "part",
                        part_names[m->part], "round", m->round, "label", m->label, "status", status_names[s->status],
                        "slots", slots, "winner", entrant_json(&d, s->winner), "winner_to", winner_to, "loser_to",
                        loser_to, "stored_match",
                        v.stored[i] >= 0 ? json_integer(d.match_ids[v.stored[i]]) : json_null(), "walkover",
                        v.walkover[i], "winner_place", m->winner_place, "loser_place", m->loser_place));
        }
        json_t *places = json_array();
        for (int i = 0; i < d.n; i++)
                if (v.place[i] > 0)
                        json_array_append_new(places, json_pack("{s:i, s:o}", "place", v.place[i], "entrant",
                                                                entrant_json(&d, i)));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:i, s:s, s:i, s:o, s:o}", "stage", d.number, "format",
                                                   tour_format_name(d.cfg.format), "size", v.bracket->size,
                                                   "matches", matches, "placements", places));
done:
        tour_stage_bracket_free(&v);
        stage_data_free(&d);
        json_decref(snap);
}

void handle_tournament_bracket(struct api_request *req) {
        const char *stage;
        long long id;
        bool csv;
        int r;

        if (!id_param(req, "id", &id) || !stage_and_format(req, &stage, &csv))
                return;
        if (csv) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST, "format: a bracket is a tree: JSON only");
                return;
        }
        const char *p[] = { route_param(&req->match, "id"), stage, NULL };
        r = store_query(req->deps->store, stage_data_sql, 3, p, on_bracket, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- results -------------------------------------------------------------------- */

static void on_results(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        const char *format = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "format");
        json_t *j = res && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0)
                            ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL, *m, *p;
        char *text = NULL;
        size_t len = 0, i, k;

        if (!j) {
                tour_reply_row(req, MHD_HTTP_OK, res, error, "tournament");
                return;
        }
        if (!format || strcmp(format, "csv") != 0) {
                api_reply_json(req, MHD_HTTP_OK, j);
                return;
        }
        FILE *f = open_memstream(&text, &len);
        if (!f) {
                json_decref(j);
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        fputs("stage,round,table,match,seat,player,name,rank,score,forfeit,recorded_at,recorded_by\r\n", f);
        json_array_foreach(json_object_get(j, "items"), i, m)
                json_array_foreach(json_object_get(m, "result"), k, p) {
                        fprintf(f, "%lld,%lld,%lld,%lld,%zu,%lld,", (long long) json_integer_value(json_object_get(m, "stage")),
                                (long long) json_integer_value(json_object_get(m, "round")),
                                (long long) json_integer_value(json_object_get(m, "table_no")),
                                (long long) json_integer_value(json_object_get(m, "id")), k + 1,
                                (long long) json_integer_value(json_object_get(p, "player")));
                        csv_field(f, json_string_value(json_object_get(p, "name")) ?: "");
                        fprintf(f, ",%lld,%g,%s,%s,", (long long) json_integer_value(json_object_get(p, "rank")),
                                json_number_value(json_object_get(p, "score")),
                                json_is_true(json_object_get(p, "forfeit")) ? "yes" : "no",
                                json_string_value(json_object_get(m, "recorded_at")) ?: "");
                        csv_field(f, json_string_value(json_object_get(m, "recorded_by")) ?: "");
                        fputs("\r\n", f);
                }
        fclose(f);
        json_decref(j);
        api_reply_text(req, MHD_HTTP_OK, text, CSV_CONTENT_TYPE);
}

void handle_tournament_results(struct api_request *req) {
        const char *stage;
        long long id;
        bool csv;
        int r;

        if (!id_param(req, "id", &id) || !stage_and_format(req, &stage, &csv))
                return;
        const char *p[] = { route_param(&req->match, "id"), stage };
        r = store_query(req->deps->store,
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM tournaments WHERE id = $1) THEN "
                        "  jsonb_build_object('items', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, "
                        "    'stage', s.number, 'round', m.round, 'table_no', m.table_no, 'match', m.match_id, "
                        "    'result', (SELECT jsonb_agg(x || jsonb_build_object('name', p.name) ORDER BY o) "
                        "               FROM jsonb_array_elements(m.result) WITH ORDINALITY r(x, o) "
                        "               JOIN players p ON p.id = (x->>'player')::bigint), "
                        "    'recorded_at', " TOUR_TIME("m.recorded_at") ", 'recorded_by', m.recorded_by) "
                        "    ORDER BY s.number, m.round, m.table_no), '[]'::jsonb) "
                        "    FROM stage_matches m JOIN stages s ON s.id = m.stage_id "
                        "    WHERE s.tournament_id = $1 AND m.state = 'done' AND ($2::int IS NULL OR s.number = $2::int))) "
                        "END",
                        2, p, on_results, req);
        if (r < 0)
                reply_store_error(req, r);
}
