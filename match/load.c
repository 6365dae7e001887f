/* match/load.c — rebuilding unfinished matches from the database on
 * start-up, each input checked against what was stored with it (match.h,
 * "Replay check"). */
#include "match/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/time.h"
#include "match/json.h"
#include "store/store.h"

/* Decimal int64 and its NUL. */
#define NUM_TEXT 24

/* The columns of match_store_load. */
enum {
        COL_ID, COL_GAME, COL_SEED, COL_CONFIG, COL_SEATS, COL_INPUTS, COL_DATA, COL_TABLE_PADS, COL_CONFIRM,
        COL_CONFIRM_TIMEOUT, COL_TABLE,
};

/* Replays the stored inputs into m, each as eng_log_apply takes it live,
 * checking its refusal and hash.  0, or -EBADMSG with why. */
static int replay(struct match *m, json_t *inputs, char *why, size_t len) {
        struct eng_error err;
        json_t *it;
        size_t i;

        json_array_foreach(inputs, i, it) {
                json_int_t seq = json_integer_value(json_object_get(it, "seq"));
                struct eng_input in;
                struct eng_out out;

                if (match_json_input_from(m->game, json_object_get(it, "input"), &in, &err) < 0) {
                        snprintf(why, len, "input %lld cannot be read back: %s", (long long) seq, err.message);
                        return -EBADMSG;
                }
                if (eng_log_apply(&m->setup, m->state, m->log, m->n_log, &in, &out) < 0) {
                        snprintf(why, len, "the engine failed on input %lld", (long long) seq);
                        return -EBADMSG;
                }
                if (match_replay_compare(in.seq, out.refusal, json_string_value(json_object_get(it, "refusal")),
                                         m->game->hash(m->state), json_string_value(json_object_get(it, "state_hash")),
                                         why, len) < 0)
                        return -EBADMSG;
                if (match_log_push(m, &in, out.refusal) < 0)
                        return -ENOMEM;
                if (in.kind == ENG_IN_VOID && out.refusal == ENG_ACCEPTED) {
                        eng_log_mark_voided(m->log, m->n_log - 1);
                        m->window_open = false;
                }
                match_note_requests(m, &out);
                m->last_seq = in.seq;
                if (in.time_us > m->last_us)
                        m->last_us = in.time_us;
        }
        return 0;
}

/* Rebuilds one stored match.  0 with *ret (live), -EBADMSG with why (a
 * referee must look), or -ENOMEM. */
static int rebuild(struct matches *reg, const PGresult *res, int row, struct match **ret, char *why, size_t len) {
        const struct eng_game *g = eng_game_find(PQgetvalue(res, row, COL_GAME));
        json_t *config = json_loads(PQgetvalue(res, row, COL_CONFIG), 0, NULL),
               *seats = json_loads(PQgetvalue(res, row, COL_SEATS), 0, NULL),
               *inputs = json_loads(PQgetvalue(res, row, COL_INPUTS), 0, NULL),
               *data = json_loads(PQgetvalue(res, row, COL_DATA), 0, NULL),
               *table_pads = json_loads(PQgetvalue(res, row, COL_TABLE_PADS), 0, NULL);
        struct eng_data files;
        struct eng_error err;
        struct match *m = NULL;
        int r = -EBADMSG;

        *ret = NULL;
        if (!g) {
                snprintf(why, len, "this build has no game \"%s\"", PQgetvalue(res, row, COL_GAME));
                goto out;
        }
        if (!config || !json_is_array(seats) || !json_is_array(inputs) || !data || !table_pads) {
                snprintf(why, len, "the stored match is not well-formed JSON");
                goto out;
        }
        m = match_alloc(reg, g);
        if (!m) {
                r = -ENOMEM;
                goto out;
        }
        m->id = strtoll(PQgetvalue(res, row, COL_ID), NULL, 10);
        m->seed = (uint64_t) strtoll(PQgetvalue(res, row, COL_SEED), NULL, 10);
        m->n_seats = (unsigned) json_array_size(seats);
        m->setup.n_seats = m->n_seats;
        m->setup.seed = m->seed;
        m->setup.confirm = strcmp(PQgetvalue(res, row, COL_CONFIRM), "referee") == 0;
        if (m->setup.confirm && !PQgetisnull(res, row, COL_CONFIRM_TIMEOUT))
                m->confirm_timeout_us = strtoll(PQgetvalue(res, row, COL_CONFIRM_TIMEOUT), NULL, 10) * USEC_PER_SEC;
        if (!PQgetisnull(res, row, COL_TABLE))
                m->table_id = strtoll(PQgetvalue(res, row, COL_TABLE), NULL, 10);
        match_load_seats(m, seats, table_pads);
        if (match_json_data_from(g, data, &files, &err) < 0 || match_take_data(m, &files) < 0) {
                snprintf(why, len, "the stored data files cannot be read: %s", err.message);
                goto out;
        }
        if (match_json_config_from(g, config, &m->data, m->n_seats, &m->cfg, &err) < 0) {
                snprintf(why, len, "the stored config no longer validates: %s", err.message);
                goto out;
        }
        if (g->create(m->state, &m->cfg, &m->data, m->n_seats, m->seed) < 0) {
                snprintf(why, len, "the engine cannot create the stored match");
                goto out;
        }
        r = replay(m, inputs, why, len);
        if (r < 0)
                goto out;
        /* Match time goes on from the last stored input (match.h). */
        m->clock_offset_us = m->last_us - now_usec();
        *ret = m;
        m = NULL;
        r = 0;
out:
        match_free(m);
        json_decref(config);
        json_decref(seats);
        json_decref(inputs);
        json_decref(data);
        json_decref(table_pads);
        return r;
}

/* Rebuilds the rows of res that are not live yet; how many went live. */
static unsigned rebuild_rows(struct matches *reg, const PGresult *res) {
        char why[MATCH_REASON_MAX];
        unsigned live = 0;

        for (int i = 0; i < PQntuples(res); i++) {
                int64_t id = strtoll(PQgetvalue(res, i, COL_ID), NULL, 10);
                struct match *m;
                int r;

                if (matches_find(reg, id))
                        continue;
                r = rebuild(reg, res, i, &m, why, sizeof why);
                if (r == -EBADMSG) {
                        log_warning("match %" PRId64 " needs a referee and is not run: %s", id, why);
                        match_store_needs_referee(reg->store, PQgetvalue(res, i, COL_ID), why);
                        continue;
                }
                if (r < 0) {
                        log_error("match %" PRId64 " could not be rebuilt: %s", id, strerror(-r));
                        continue;
                }
                m->next = reg->list;
                reg->list = m;
                MATCH_NOTIFY(reg, added, m, false);
                match_judge_follow(m);
                match_arm_timer(m);
                live++;
        }
        return live;
}

static void on_loaded(void *userdata, const PGresult *res, const char *error) {
        struct matches *reg = userdata;
        unsigned live;

        reg->loading = false;
        if (!res) {
                log_warning("could not load unfinished matches: %s; trying again when the database is back", error);
                return;
        }
        reg->loaded = true;
        live = rebuild_rows(reg, res);
        if (PQntuples(res) > 0)
                log_notice("%u unfinished match%s rebuilt from the input log", live, live == 1 ? "" : "es");
}

void matches_load_unfinished(struct matches *reg) {
        if (match_store_load(reg->store, matches_venue(reg), on_loaded, reg) == 0)
                reg->loading = true;
}

/* ---- adoption -------------------------------------------------------------- */

struct adopt_ctx {
        struct matches *reg;
        int64_t id;
};

static void on_adopt_loaded(void *userdata, const PGresult *res, const char *error) {
        struct adopt_ctx *c = userdata;

        if (!res)
                log_warning("match %" PRId64 " could not be adopted now: %s; the next start-up of the "
                            "connection loads it", c->id, error);
        else if (rebuild_rows(c->reg, res) > 0)
                log_notice("match %" PRId64 " adopted: called here from another venue, run by this daemon", c->id);
        free(c);
}

int matches_adopt(struct matches *reg, int64_t id) {
        char id_s[NUM_TEXT];
        struct adopt_ctx *c;
        int r;

        if (matches_find(reg, id))
                return 0;
        if (store_get_state(reg->store) != STORE_READY)
                return -ENOTCONN;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        *c = (struct adopt_ctx) { .reg = reg, .id = id };
        snprintf(id_s, sizeof id_s, "%" PRId64, id);
        r = match_store_load_one(reg->store, matches_venue(reg), id_s, on_adopt_loaded, c);
        if (r < 0)
                free(c);
        return r;
}
