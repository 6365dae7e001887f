/* api/standings.c — a tournament's stages, standings, bracket and results,
 * and their CSV exports; and tour_refresh(), the refresh of the standings'
 * cache a result sets off (the tournament service's organiser/standings.h).
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
#include "api/failures.h"
#include "api/handlers.h"
#include "api/stage_json.h"
#include "api/tournaments.h"
#include "common/log.h"
#include "organiser/standings.h"
#include "store/stage_matches.h"

#define CSV_CONTENT_TYPE "text/csv; charset=utf-8"

/* ---- stages ------------------------------------------------------------------- */

static void on_stage_added(void *userdata, const struct org_result *result, const struct store_stage_row *st) {
        struct api_request *req = userdata;

        if (tour_reply_outcome(req, result, "the stage"))
                return;
        /* the members in the order the replies have always had them */
        api_reply_json(req, MHD_HTTP_CREATED,
                       json_pack("{s:s, s:o, s:s, s:i, s:o, s:o}", "state", store_stage_state_name(st->state),
                                 "config", stage_stored_json(st->config), "format", st->format, "number", st->number,
                                 "advance", st->advance ? json_integer(st->advance) : json_null(), "confirm",
                                 stage_stored_json(st->confirm)));
}

void handle_stages_create(struct api_request *req) {
        char *confirm_text = NULL, *config_text;
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
        struct org_stage_new n = {
                .format = b.format, .config = config_text,
                .config_has_seed = json_object_get(b.config, "seed") != NULL,
                .advance = b.has_advance ? b.advance : 0, .confirm = confirm_text,
        };
        r = config_text && (!b.confirm || confirm_text) ? org_stage_add(req->deps->store, id, &n, on_stage_added, req)
                                                        : -ENOMEM;
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
        bool csv;
};

static void on_standings(void *userdata, const struct org_result *result, json_t *st) {
        struct standings_ctx *c = userdata;

        if (!tour_reply_outcome(c->req, result, "reading the stage"))
                reply_standings(c->req, json_incref(st), c->csv);
        free(c);
}

/* ?stage= as a number, 0 when absent (the decoder let through only a
 * stage number). */
static int stage_number(const char *stage) {
        return stage ? atoi(stage) : 0;
}

void handle_tournament_standings(struct api_request *req) {
        struct store *store = api_read_store(req);
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
        *c = (struct standings_ctx) { .req = req, .csv = csv };
        r = org_standings_get(store, id, stage_number(stage), recompute, on_standings, c);
        if (r < 0) {
                free(c);
                reply_store_error(req, r);
        }
}

/* The standings changed: standings_changed on the tournament's topic. */
static void on_standings_changed(void *userdata, int64_t tournament, int stage) {
        tour_event(userdata, tournament, "standings_changed", json_pack("{s:i}", "stage", stage));
}

void tour_refresh(const struct api_deps *deps, int64_t id, bool ratings) {
        int r = org_standings_refresh(deps->store, ratings ? deps->ratings : NULL, id, on_standings_changed,
                                      (void *) deps);

        if (r < 0)
                log_warning("tournament %" PRId64 " could not be refreshed: %s", id, strerror(-r));
}

/* ---- bracket -------------------------------------------------------------------- */

static const char *const part_names[] = { "winners", "losers", "grand_final", "grand_final_reset", "third_place" };
static const char *const status_names[] = { "waiting", "ready", "done", "bye", "void", "not_needed" };

static json_t *entrant_json(const struct org_stage *d, int32_t e) {
        if (e < 0 || e >= d->n)
                return json_null();
        return json_pack("{s:I, s:s}", "player", (json_int_t) d->players[e], "name", d->names[e]);
}

static json_t *slot_source_json(const struct tour_bracket_slot *s) {
        static const char *const kinds[] = { "empty", "seed", "winner", "loser" };
        return json_pack("{s:s, s:i}", "from", kinds[s->source], "ref",
                         s->source == TOUR_SRC_SEED ? s->ref + 1 : s->ref);
}

static void on_bracket(void *userdata, const struct org_result *result, const struct org_stage *d,
                       const struct tour_stage_bracket_view *v) {
        struct api_request *req = userdata;

        if (tour_reply_outcome(req, result, "reading the stage"))
                return;
        /* a tree: every match names where its winner and loser go */
        json_t *matches = json_array();
        for (int i = 0; i < v->bracket->n_matches; i++) {
                const struct tour_bracket_match *m = &v->bracket->match[i];
                const struct tour_bracket_state *s = &v->states[i];
                json_t *slots = json_array(), *winner_to = json_null(), *loser_to = json_null();

                for (int k = 0; k < 2; k++)
                        json_array_append_new(slots, json_pack("{s:o, s:o}", "source", slot_source_json(&m->slot[k]),
                                                               "entrant", entrant_json(d, s->occupant[k])));
                for (int j = i + 1; j < v->bracket->n_matches; j++)
                        for (int k = 0; k < 2; k++) {
                                const struct tour_bracket_slot *sl = &v->bracket->match[j].slot[k];
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
                        "slots", slots, "winner", entrant_json(d, s->winner), "winner_to", winner_to, "loser_to",
                        loser_to, "stored_match",
                        v->stored[i] >= 0 ? json_integer(d->match_ids[v->stored[i]]) : json_null(), "walkover",
                        v->walkover[i], "winner_place", m->winner_place, "loser_place", m->loser_place));
        }
        json_t *places = json_array();
        for (int i = 0; i < d->n; i++)
                if (v->place[i] > 0)
                        json_array_append_new(places, json_pack("{s:i, s:o}", "place", v->place[i], "entrant",
                                                                entrant_json(d, i)));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:i, s:s, s:i, s:o, s:o}", "stage", d->number, "format",
                                                   tour_format_name(d->cfg.format), "size", v->bracket->size,
                                                   "matches", matches, "placements", places));
}

void handle_tournament_bracket(struct api_request *req) {
        struct store *store = api_read_store(req);
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
        r = org_bracket_get(store, id, stage_number(stage), on_bracket, req);
        if (r < 0)
                reply_store_error(req, r);
}

/* ---- results -------------------------------------------------------------------- */

/* The result of a done match as the results list shows it: its stored
 * result, each player under the name the player has now. */
static json_t *result_with_names(const struct store_stage_match_row *m) {
        json_t *res = stage_stored_json(m->result), *x;
        size_t i;

        if (!json_is_array(res) || json_array_size(res) == 0) {
                json_decref(res);
                return json_null();
        }
        json_array_foreach(res, i, x)
                for (size_t k = 0; k < m->n_participants; k++)
                        if (m->participants[k].player == json_integer_value(json_object_get(x, "player")))
                                json_object_set_new(x, "name", json_string(m->participants[k].name));
        return res;
}

static void on_results(void *userdata, bool found, const struct store_stage_match_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct api_request *req = userdata;
        const char *format = MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, "format");
        json_t *j, *items, *m, *p;
        char *text = NULL;
        size_t len = 0, i, k;

        if (failure) {
                api_reply_store_failed(req, failure, "the results", error);
                return;
        }
        if (!found) {
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no tournament %s",
                                  route_param(&req->match, "id"));
                return;
        }
        items = json_array();
        for (size_t r = 0; r < n; r++)
                json_array_append_new(items, json_pack("{s:I, s:o, s:i, s:i, s:o, s:i, s:o, s:o}", "id",
                                                       (json_int_t) rows[r].id, "match",
                                                       rows[r].match ? json_integer((json_int_t) rows[r].match)
                                                                     : json_null(),
                                                       "round", rows[r].round, "stage", rows[r].stage, "result",
                                                       result_with_names(&rows[r]), "table_no", rows[r].table_no,
                                                       "recorded_at", stage_text_json(rows[r].recorded_at),
                                                       "recorded_by", stage_text_json(rows[r].recorded_by)));
        j = json_pack("{s:o}", "items", items);
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
        struct store *store = api_read_store(req);
        enum store_match_state done = STORE_MATCH_DONE;
        const char *stage;
        long long id;
        bool csv;
        int r;

        if (!id_param(req, "id", &id) || !stage_and_format(req, &stage, &csv))
                return;
        r = store_stage_matches_list(store, id, stage_number(stage), 0, &done, on_results, req);
        if (r < 0)
                reply_store_error(req, r);
}
