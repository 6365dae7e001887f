/* organiser/stage.c — see stage.h. */
#include "organiser/stage.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/groups.h"
#include "tournament/openskill.h"

/* The seed of a stage without one of its own: the tournament's, mixed with
 * the stage's number by the 64-bit golden ratio (as splitmix64 steps), so
 * that every stage draws differently. */
#define STAGE_SEED_MIX UINT64_C(0x9e3779b97f4a7c15)

static const char *const policies[] = { [TOUR_PODS_BYE] = "bye", [TOUR_PODS_BIG_POD] = "big_pod",
                                        [TOUR_PODS_SMALL_PODS] = "small_pods" };
static const char *const grand_finals[] = { [TOUR_GRAND_FINAL_NONE] = "none", [TOUR_GRAND_FINAL_SIMPLE] = "simple",
                                            [TOUR_GRAND_FINAL_DOUBLE] = "double" };

static int fail(char *err, size_t len, const char *fmt, const char *a, const char *b) {
        snprintf(err, len, fmt, a, b);
        return -EINVAL;
}

/* A whole number member: absent leaves *ret. */
static int get_int(json_t *o, const char *key, int min, int max, int *ret, char *err, size_t len) {
        json_t *v = json_object_get(o, key);
        char range[48];

        if (!v)
                return 0;
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
                snprintf(range, sizeof range, "%d to %d", min, max);
                return fail(err, len, "%s: must be a whole number %s", key, range);
        }
        *ret = (int) json_integer_value(v);
        return 0;
}

static int get_number(json_t *o, const char *prefix, const char *key, double *ret, char *err, size_t len) {
        json_t *v = json_object_get(o, key);

        if (!v)
                return 0;
        if (!json_is_number(v) || !isfinite(json_number_value(v)) || fabs(json_number_value(v)) > TOUR_POINTS_MAX_ABS)
                return fail(err, len, "%s%s: must be a number", prefix, key);
        *ret = json_number_value(v);
        return 0;
}

static int get_choice(json_t *o, const char *key, const char *const *names, size_t n, int *ret, char *err,
                      size_t len) {
        json_t *v = json_object_get(o, key);

        if (!v)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (names[i] && json_is_string(v) && strcmp(json_string_value(v), names[i]) == 0) {
                        *ret = (int) i;
                        return 0;
                }
        return fail(err, len, "%s: must be one of the documented names (docs/formats/stages.md)%s", key, "");
}

static int points_from_json(json_t *p, struct tour_points_config *pts, char *err, size_t len) {
        static const char *const keys[] = { "mode", "win", "draw", "loss", "bye", "forfeit_loss", "table", NULL };
        static const char *const modes[] = { [TOUR_POINTS_WDL] = "wdl", [TOUR_POINTS_PLACEMENT] = "placement" };
        const char *key;
        json_t *v;
        int mode = pts->mode, r;

        if (!json_is_object(p))
                return fail(err, len, "points: must be an object such as {\"mode\": \"placement\"}%s%s", "", "");
        json_object_foreach(p, key, v) {
                bool known = false;
                for (size_t i = 0; keys[i]; i++)
                        known |= strcmp(key, keys[i]) == 0;
                if (!known)
                        return fail(err, len, "points.%s: unknown setting%s", key, "");
        }
        if ((r = get_choice(p, "mode", modes, 3, &mode, err, len)) < 0)
                return r;
        if (mode != (int) pts->mode) {
                if (mode == TOUR_POINTS_WDL)
                        tour_points_defaults_wdl(pts);
                else
                        tour_points_defaults_placement(pts);
        }
        if ((r = get_number(p, "points.", "win", &pts->win, err, len)) < 0 ||
            (r = get_number(p, "points.", "draw", &pts->draw, err, len)) < 0 ||
            (r = get_number(p, "points.", "loss", &pts->loss, err, len)) < 0 ||
            (r = get_number(p, "points.", "bye", &pts->bye, err, len)) < 0 ||
            (r = get_number(p, "points.", "forfeit_loss", &pts->forfeit_loss, err, len)) < 0)
                return r;
        json_t *table = json_object_get(p, "table");
        if (table) {
                if (!json_is_object(table))
                        return fail(err, len, "points.table: must map a table size to its points by place, "
                                    "e.g. {\"4\": [3, 2, 1, 0]}%s%s", "", "");
                pts->rule = TOUR_POINTS_TABLE;
                json_object_foreach(table, key, v) {
                        char *end;
                        long size = strtol(key, &end, 10);
                        size_t i;
                        json_t *x;

                        if (*end || size < 1 || size > TOUR_MAX_SEATS || !json_is_array(v) ||
                            json_array_size(v) != (size_t) size)
                                return fail(err, len, "points.table.%s: must be a size 1 to 16 with one number "
                                            "per place%s", key, "");
                        pts->table_set[size] = true;
                        json_array_foreach(v, i, x) {
                                if (!json_is_number(x))
                                        return fail(err, len, "points.table.%s: must hold numbers%s", key, "");
                                pts->table[size][i] = json_number_value(x);
                        }
                }
        }
        return 0;
}

int org_stage_config_from_json(const char *format, json_t *config, struct tour_stage_config *ret, char *err,
                           size_t len) {
        static const char *const keys[] = { "rounds", "table_size", "pod_policy", "advance", "third_place",
                                            "grand_final", "double_round_robin", "groups", "draw", "points",
                                            "tiebreaks", "seed", NULL };
        enum tour_format f;
        const char *key;
        json_t *v;
        int r, choice;

        if (tour_format_from_name(format, &f) < 0)
                return fail(err, len, "format: must be single_elimination, double_elimination, round_robin, "
                            "swiss, pod_swiss, league, heats, race or groups%s%s", "", "");
        tour_stage_config_default(f, ret);
        if (!config || json_is_null(config))
                return 0;
        if (!json_is_object(config))
                return fail(err, len, "config: must be an object%s%s", "", "");
        json_object_foreach(config, key, v) {
                bool known = false;
                for (size_t i = 0; keys[i]; i++)
                        known |= strcmp(key, keys[i]) == 0;
                if (!known)
                        return fail(err, len, "config.%s: unknown setting (docs/formats/stages.md lists them)%s",
                                    key, "");
        }
        if ((r = get_int(config, "rounds", 0, 1000, &ret->rounds, err, len)) < 0 ||
            (r = get_int(config, "table_size", 2, TOUR_MAX_SEATS, &ret->table_size, err, len)) < 0 ||
            (r = get_int(config, "advance", 1, TOUR_MAX_SEATS, &ret->advance, err, len)) < 0 ||
            (r = get_int(config, "groups", 2, TOUR_GROUPS_MAX_GROUPS, &ret->groups, err, len)) < 0)
                return r;
        choice = ret->pod_policy;
        if ((r = get_choice(config, "pod_policy", policies, 4, &choice, err, len)) < 0)
                return r;
        ret->pod_policy = (enum tour_pods_policy) choice;
        choice = ret->bracket.grand_final;
        if ((r = get_choice(config, "grand_final", grand_finals, 3, &choice, err, len)) < 0)
                return r;
        ret->bracket.grand_final = (enum tour_grand_final) choice;
        if ((v = json_object_get(config, "third_place"))) {
                if (!json_is_boolean(v))
                        return fail(err, len, "third_place: must be true or false%s%s", "", "");
                ret->bracket.third_place = json_is_true(v);
        }
        if ((v = json_object_get(config, "double_round_robin"))) {
                if (!json_is_boolean(v))
                        return fail(err, len, "double_round_robin: must be true or false%s%s", "", "");
                ret->double_round_robin = json_is_true(v);
        }
        if ((v = json_object_get(config, "draw"))) {
                if (!json_is_boolean(v))
                        return fail(err, len, "draw: must be true or false%s%s", "", "");
                ret->draw = json_is_true(v);
        }
        if ((v = json_object_get(config, "seed"))) {
                if (!json_is_integer(v) || json_integer_value(v) < 0)
                        return fail(err, len, "seed: must be a whole number 0 to 2^63 - 1%s%s", "", "");
                ret->seed = (uint64_t) json_integer_value(v);
        }
        if ((v = json_object_get(config, "points")) && (r = points_from_json(v, &ret->points, err, len)) < 0)
                return r;
        if ((v = json_object_get(config, "tiebreaks"))) {
                size_t i;
                json_t *tb;

                if (!json_is_array(v) || json_array_size(v) > TOUR_STANDINGS_MAX_TIEBREAKS)
                        return fail(err, len, "tiebreaks: must be a list of at most 12 tie-break names%s%s", "", "");
                ret->n_tiebreaks = 0;
                json_array_foreach(v, i, tb) {
                        if (tour_standings_tb_from_name(json_string_value(tb), &ret->tiebreaks[i]) < 0) {
                                char idx[24];
                                snprintf(idx, sizeof idx, "%zu", i);
                                return fail(err, len, "tiebreaks[%s]: unknown; the names are in "
                                            "docs/tournaments.md%s", idx, "");
                        }
                        ret->n_tiebreaks = (int) i + 1;
                }
        }
        return 0;
}

json_t *org_stage_config_to_json(const struct tour_stage_config *cfg) {
        json_t *tbs = json_array(), *points = json_object(), *table = json_object();

        for (int i = 0; i < cfg->n_tiebreaks; i++)
                json_array_append_new(tbs, json_string(tour_standings_tb_name(cfg->tiebreaks[i])));
        json_object_set_new(points, "mode", json_string(cfg->points.mode == TOUR_POINTS_WDL ? "wdl" : "placement"));
        if (cfg->points.mode == TOUR_POINTS_WDL) {
                json_object_set_new(points, "win", json_real(cfg->points.win));
                json_object_set_new(points, "draw", json_real(cfg->points.draw));
                json_object_set_new(points, "loss", json_real(cfg->points.loss));
        } else if (cfg->points.rule == TOUR_POINTS_TABLE) {
                for (int n = 1; n <= TOUR_MAX_SEATS; n++) {
                        char key[8];
                        json_t *row;

                        if (!cfg->points.table_set[n])
                                continue;
                        row = json_array();
                        for (int i = 0; i < n; i++)
                                json_array_append_new(row, json_real(cfg->points.table[n][i]));
                        snprintf(key, sizeof key, "%d", n);
                        json_object_set_new(table, key, row);
                }
                json_object_set(points, "table", table);
        }
        json_decref(table);
        json_object_set_new(points, "bye", json_real(cfg->points.bye));
        json_object_set_new(points, "forfeit_loss", json_real(cfg->points.forfeit_loss));
        /* groups 0: about TOUR_STAGE_DEFAULT_GROUP_SIZE a group, the count
         * depending on the field */
        return json_pack("{s:i, s:i, s:s?, s:i, s:b, s:s?, s:b, s:i, s:b, s:o, s:o, s:I}", "rounds", cfg->rounds,
                         "table_size", cfg->table_size, "pod_policy",
                         cfg->pod_policy >= TOUR_PODS_BYE && cfg->pod_policy <= TOUR_PODS_SMALL_PODS
                                 ? policies[cfg->pod_policy] : NULL,
                         "advance", cfg->advance, "third_place", cfg->bracket.third_place, "grand_final",
                         cfg->bracket.grand_final <= TOUR_GRAND_FINAL_DOUBLE ? grand_finals[cfg->bracket.grand_final]
                                                                             : NULL,
                         "double_round_robin", cfg->double_round_robin, "groups", cfg->groups, "draw", cfg->draw,
                         "points", points, "tiebreaks", tbs, "seed",
                         (json_int_t) (cfg->seed & (uint64_t) INT64_MAX));
}

void org_stage_free(struct org_stage *d) {
        if (!d)
                return;
        for (int i = 0; d->names && i < d->n; i++)
                free(d->names[i]);
        free(d->names);
        free(d->game);
        free(d->tables);
        free(d->players);
        free(d->entrants);
        free(d->matches);
        free(d->match_ids);
        free(d->match_states);
        free(d->match_tables);
        free(d->runtime);
        free(d->byes);
        json_decref(d->match_config);
        json_decref(d->confirm);
        free(d);
}

int org_stage_match(const struct org_stage *d, int64_t id) {
        for (size_t i = 0; i < d->n_matches; i++)
                if (d->match_ids[i] == id)
                        return (int) i;
        return -1;
}

int org_stage_entrant(const struct org_stage *d, int64_t player) {
        for (int i = 0; i < d->n; i++)
                if (d->players[i] == player)
                        return i;
        return -1;
}

/* A stored result (seat order) into r, over match m's entrants. */
static int result_parse(const struct org_stage *d, const struct tour_stage_match *m, const char *text,
                        struct tour_result *r) {
        json_t *res = text ? json_loads(text, 0, NULL) : NULL, *it;
        size_t i;
        int ret = 0;

        if (!json_is_array(res) || json_array_size(res) != (size_t) m->n) {
                json_decref(res);
                return -EINVAL;
        }
        memset(r, 0, sizeof *r);
        r->round = m->round;
        r->n = m->n;
        json_array_foreach(res, i, it) {
                int e = org_stage_entrant(d, json_integer_value(json_object_get(it, "player")));
                if (e < 0) {
                        ret = -EINVAL;
                        break;
                }
                r->entrant[i] = e;
                r->rank[i] = (int) json_integer_value(json_object_get(it, "rank"));
                r->score[i] = json_number_value(json_object_get(it, "score"));
                r->forfeit[i] = json_is_true(json_object_get(it, "forfeit"));
        }
        json_decref(res);
        return ret;
}

static enum tour_stage_state stage_state_of(enum store_stage_state s) {
        switch (s) {
        case STORE_STAGE_RUNNING:
                return TOUR_STAGE_RUNNING;
        case STORE_STAGE_FINISHED:
                return TOUR_STAGE_FINISHED;
        default:
                return TOUR_STAGE_PENDING;
        }
}

int org_stage_from_snapshot(const struct store_stage_snapshot *snap, struct org_stage **ret, char *err, size_t len) {
        struct org_stage *d = calloc(1, sizeof *d);
        json_t *config = NULL;
        int r;

        *ret = NULL;
        if (!d) {
                snprintf(err, len, "out of memory");
                return -ENOMEM;
        }
        d->tournament = snap->tournament;
        d->game = strdup(snap->game ?: "");
        if (tour_state_from_name(snap->tournament_state, &d->tournament_state) < 0) {
                r = fail(err, len, "the tournament's state %s is unknown%s", snap->tournament_state ?: "(none)", "");
                goto fail;
        }
        d->competitive = snap->competitive;
        d->seed = (uint64_t) snap->seed;
        d->match_config = snap->match_config ? json_loads(snap->match_config, 0, NULL) : json_object();
        d->confirm = snap->stage.confirm ? json_loads(snap->stage.confirm, JSON_DECODE_ANY, NULL) : NULL;
        d->stage = snap->stage.id;
        d->number = snap->stage.number;
        d->state = stage_state_of(snap->stage.state);
        d->advance = snap->stage.advance;
        d->next_started = snap->next_started;
        config = json_loads(snap->stage.config ?: "{}", 0, NULL);
        if (!config || !d->match_config || (snap->stage.confirm && !d->confirm)) {
                r = fail(err, len, "the stage's stored JSON does not parse%s%s", "", "");
                goto fail;
        }
        r = org_stage_config_from_json(snap->stage.format, config, &d->cfg, err, len);
        if (r < 0)
                goto fail;
        /* without a seed of its own a stage draws from the tournament's */
        if (!json_object_get(config, "seed"))
                d->cfg.seed = d->seed ^ ((uint64_t) d->number * STAGE_SEED_MIX);

        d->n = (int) snap->n_entrants;
        d->n_matches = snap->n_matches;
        d->n_byes = snap->n_byes;
        d->n_tables = snap->n_tables;
        d->tables = calloc(d->n_tables + 1, sizeof *d->tables);
        d->players = calloc((size_t) d->n + 1, sizeof *d->players);
        d->names = calloc((size_t) d->n + 1, sizeof *d->names);
        d->entrants = calloc((size_t) d->n + 1, sizeof *d->entrants);
        d->matches = calloc(d->n_matches + 1, sizeof *d->matches);
        d->match_ids = calloc(d->n_matches + 1, sizeof *d->match_ids);
        d->match_states = calloc(d->n_matches + 1, sizeof *d->match_states);
        d->byes = calloc(d->n_byes + 1, sizeof *d->byes);
        d->match_tables = calloc(d->n_matches + 1, sizeof *d->match_tables);
        d->runtime = calloc(d->n_matches + 1, sizeof *d->runtime);
        if (!d->game || !d->tables || !d->players || !d->names || !d->entrants || !d->matches || !d->match_ids ||
            !d->match_states || !d->byes || !d->match_tables || !d->runtime) {
                snprintf(err, len, "out of memory");
                r = -ENOMEM;
                goto fail;
        }
        for (size_t i = 0; i < d->n_tables; i++)
                d->tables[i] = snap->tables[i];
        for (int i = 0; i < d->n; i++) {
                const struct store_stage_entrant *e = &snap->entrants[i];
                struct tour_os_rating os = { e->mu, e->sigma };

                d->players[i] = e->player;
                if (!(d->names[i] = strdup(e->name ?: ""))) {
                        snprintf(err, len, "out of memory");
                        r = -ENOMEM;
                        goto fail;
                }
                d->entrants[i].rating = e->rated ? tour_os_ordinal(&os) : 0;
                d->entrants[i].active = e->status && strcmp(e->status, "active") == 0;
        }
        for (size_t i = 0; i < d->n_matches; i++) {
                const struct store_stage_match_row *sm = &snap->matches[i];
                struct tour_stage_match *m = &d->matches[i];

                m->round = sm->round;
                m->table = sm->table_no;
                m->bracket_id = sm->bracket_id;
                m->n = (int) sm->n_participants;
                if (m->n < 1 || m->n > TOUR_MAX_SEATS) {
                        r = fail(err, len, "stage match %s has a bad participant list%s", "", "");
                        goto fail;
                }
                for (int k = 0; k < m->n; k++) {
                        m->entrant[k] = org_stage_entrant(d, sm->participants[k].player);
                        if (m->entrant[k] < 0) {
                                r = fail(err, len, "a stage match names a player who is no entrant of the "
                                         "stage%s%s", "", "");
                                goto fail;
                        }
                }
                d->match_ids[i] = sm->id;
                d->match_tables[i] = sm->table;
                d->runtime[i] = sm->match;
                d->match_states[i] = sm->state;
                m->done = sm->state == STORE_MATCH_DONE;
                if (m->done && result_parse(d, m, sm->result, &m->result) < 0) {
                        r = fail(err, len, "a stage match has a result that does not match its "
                                 "participants%s%s", "", "");
                        goto fail;
                }
        }
        for (size_t i = 0; i < d->n_byes; i++) {
                d->byes[i].round = snap->byes[i].round;
                d->byes[i].entrant = org_stage_entrant(d, snap->byes[i].player);
        }
        d->in = (struct tour_stage_input) {
                .cfg = &d->cfg, .n_entrants = d->n, .entrants = d->entrants,
                .n_matches = d->n_matches, .matches = d->n_matches ? d->matches : NULL,
                .n_byes = d->n_byes, .byes = d->n_byes ? d->byes : NULL,
        };
        json_decref(config);
        *ret = d;
        return 0;
fail:
        json_decref(config);
        org_stage_free(d);
        return r;
}

/* ---- loading ----------------------------------------------------------------- */

struct load {
        struct store *store;
        org_stage_fn cb;
        void *userdata;
};

static void on_snapshot(void *userdata, const struct store_stage_snapshot *rows, size_t n,
                        const struct store_error *failure, const char *error) {
        struct load *c = userdata;
        struct org_result r = { .outcome = ORG_DONE };
        struct org_stage *d = NULL;
        char detail[ORG_DETAIL_MAX], err[ORG_DETAIL_MAX - 40];

        if (failure) {
                r = (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };
        } else if (n == 0) {
                r = (struct org_result) { .outcome = ORG_NOT_FOUND, .detail = "there is no such stage" };
        } else if (org_stage_from_snapshot(&rows[0], &d, err, sizeof err) < 0) {
                snprintf(detail, sizeof detail, "the stored stage is inconsistent: %s", err);
                r = (struct org_result) { .outcome = ORG_INTERNAL, .detail = detail };
        }
        c->cb(c->userdata, &r, d);
        free(c);
}

static struct load *load_new(struct store *s, org_stage_fn cb, void *userdata) {
        struct load *c = calloc(1, sizeof *c);

        if (c)
                *c = (struct load) { .store = s, .cb = cb, .userdata = userdata };
        return c;
}

int org_stage_load(struct store *s, int64_t tournament, int number, org_stage_fn cb, void *userdata) {
        struct load *c = load_new(s, cb, userdata);
        int r = c ? store_stages_snapshot(s, tournament, number, on_snapshot, c) : -ENOMEM;

        if (r < 0)
                free(c);
        return r;
}

int org_stage_load_of_match(struct store *s, int64_t tournament, int64_t match, org_stage_fn cb, void *userdata) {
        struct load *c = load_new(s, cb, userdata);
        int r = c ? store_stages_snapshot_of_match(s, tournament, match, on_snapshot, c) : -ENOMEM;

        if (r < 0)
                free(c);
        return r;
}

/* ---- results --------------------------------------------------------------------- */

json_t *org_stage_result_json(const struct org_stage *d, const struct tour_result *r) {
        json_t *a = json_array();

        for (int i = 0; i < r->n; i++)
                json_array_append_new(a, json_pack("{s:I, s:s, s:i, s:f, s:b}", "player",
                                                   (json_int_t) d->players[r->entrant[i]], "name",
                                                   d->names[r->entrant[i]], "rank", r->rank[i], "score", r->score[i],
                                                   "forfeit", r->forfeit[i]));
        return a;
}

int org_stage_result_check(const struct org_stage *d, size_t i, const struct org_result_entry *entries, size_t n,
                           struct tour_result *ret, char *err, size_t len) {
        const struct tour_stage_match *m = &d->matches[i];
        struct tour_points_error perr;
        bool seen[TOUR_MAX_SEATS] = { false };

        if (n != (size_t) m->n)
                return fail(err, len, "results: must list each of the match's %s players once%s",
                            m->n == 2 ? "two" : "", "");
        memset(ret, 0, sizeof *ret);
        ret->round = m->round;
        ret->n = m->n;
        for (int s = 0; s < m->n; s++)
                ret->entrant[s] = m->entrant[s];
        for (size_t k = 0; k < n; k++) {
                char idx[24];
                int seat = -1;

                snprintf(idx, sizeof idx, "%zu", k);
                for (int s = 0; s < m->n; s++)
                        if (d->players[m->entrant[s]] == entries[k].player)
                                seat = s;
                if (seat < 0 || seen[seat])
                        return fail(err, len, "results[%s].player: %s", idx,
                                    seat < 0 ? "is not in this match" : "is listed twice");
                seen[seat] = true;
                if (entries[k].rank < 1 || entries[k].rank > m->n)
                        return fail(err, len, "results[%s].rank: must be 1 (first) to the number of players%s",
                                    idx, "");
                if (!isfinite(entries[k].score))
                        return fail(err, len, "results[%s].score: must be a number%s", idx, "");
                ret->rank[seat] = entries[k].rank;
                ret->score[seat] = entries[k].score;
                ret->forfeit[seat] = entries[k].forfeit;
        }
        if (tour_points_check_result(ret, &perr) < 0)
                return fail(err, len, "results: %s (%s)", perr.message, perr.field);
        return 0;
}

json_t *org_stage_standings_json(const struct org_stage *d, char *err, size_t len) {
        struct tour_standings_row *rows = calloc((size_t) d->n + 1, sizeof *rows);
        int *place = calloc((size_t) d->n + 1, sizeof *place);
        int32_t *group = calloc((size_t) d->n + 1, sizeof *group);
        struct tour_stage_error e = { "" };
        json_t *out = NULL, *items, *names;
        int n;

        if (!rows || !place || !group) {
                snprintf(err, len, "out of memory");
                goto done;
        }
        /* a stage that has not started has nobody in it yet */
        n = d->n == 0 ? 0 : tour_stage_standings(&d->in, rows, place, &e);
        if (n < 0) {
                snprintf(err, len, "%s", e.text[0] ? e.text : strerror(-n));
                goto done;
        }
        /* groups: which group each row is in, 1-based as shown */
        if (n > 0 && d->cfg.format == TOUR_FORMAT_GROUPS && tour_stage_group_of(&d->in, group) < 0) {
                snprintf(err, len, "the stage's groups cannot be formed");
                goto done;
        }
        names = json_array();
        for (int k = 0; k < d->cfg.n_tiebreaks; k++)
                json_array_append_new(names, json_string(tour_standings_tb_name(d->cfg.tiebreaks[k])));
        items = json_array();
        for (int i = 0; i < n; i++) {
                const struct tour_standings_row *r = &rows[i];
                json_t *tbs = json_object();

                for (int k = 0; k < d->cfg.n_tiebreaks; k++)
                        json_object_set_new(tbs, tour_standings_tb_name(d->cfg.tiebreaks[k]), json_real(r->tb[k]));
                json_array_append_new(items, json_pack("{s:i, s:I, s:s, s:b, s:f, s:i, s:i, s:i, s:i, s:i, s:f, "
                                                       "s:i, s:o}", "rank", r->rank, "player",
                                                       (json_int_t) d->players[r->entrant], "name",
                                                       d->names[r->entrant], "dropped", r->dropped, "points",
                                                       r->points, "played", r->played, "won", r->won, "drawn",
                                                       r->drawn, "lost", r->lost, "byes", r->byes, "game_win_pct",
                                                       r->game_win_pct, "place", place[i], "tiebreaks", tbs));
                if (d->cfg.format == TOUR_FORMAT_GROUPS)
                        json_object_set_new(json_array_get(items, (size_t) i), "group",
                                            json_integer(group[r->entrant] + 1));
        }
        out = json_pack("{s:i, s:s, s:o, s:o}", "stage", d->number, "format", tour_format_name(d->cfg.format),
                        "tiebreaks", names, "rows", items);
done:
        free(rows);
        free(place);
        free(group);
        return out;
}
