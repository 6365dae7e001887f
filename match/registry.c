/* match/registry.c — the registry of live matches: allocation, seats and
 * pads, creation, abort, names (match.h, runtime.h). */
#include "match/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"
#include "hardware/padbus.h"
#include "match/json.h"
#include "store/spool.h"
#include "store/store.h"

/* Decimal int64 and its NUL. */
#define NUM_MAX                 24
/* A spooled input the database did not take (an error while it was
 * READY) is tried again after this long; a lost connection waits for the
 * next READY instead. */
#define FLUSH_RETRY_US          (1 * USEC_PER_SEC)
/* A log grows by doubling from this many records. */
#define LOG_INITIAL             32

struct match_create_ctx {
        struct match *m;
        match_created_fn cb;
        void *userdata;
};

struct match_abort_ctx {
        struct match *m;
        match_aborted_fn done;
        void *userdata;
};

static void on_judge_timer(evutil_socket_t fd, short what, void *userdata);

void match_free(struct match *m) {
        if (!m)
                return;
        match_held_end(m->reg, m->held, m->n_held, false);
        match_held_end(m->reg, m->timed, m->n_timed, false);
        free(m->held);
        free(m->timed);
        if (m->timer)
                event_free(m->timer);
        if (m->judge_timer)
                event_free(m->judge_timer);
        for (size_t i = 0; i < ENG_MAX_DATA; i++)
                free((char *) m->data.text[i]);
        free(m->log);
        free(m->state);
        free(m->scratch);
        free(m);
}

void match_release(struct match *m) {
        struct match **p;

        /* Announced while observers can still read the match. */
        MATCH_NOTIFY(m->reg, removed, m);
        for (p = &m->reg->list; *p; p = &(*p)->next)
                if (*p == m) {
                        *p = m->next;
                        break;
                }
        m->next = NULL;
        /* Out of the registry it takes no more inputs, timed or judged. */
        evtimer_del(m->timer);
        evtimer_del(m->judge_timer);
        m->judging = false;
        match_held_end(m->reg, m->held, m->n_held, true);
        match_held_end(m->reg, m->timed, m->n_timed, true);
        m->n_held = m->n_timed = 0;
        if (m->pending > 0)
                m->released = true;
        else
                match_free(m);
}

int64_t match_now(const struct match *m) {
        return now_usec() + m->clock_offset_us;
}

enum eng_log_phase match_phase(const struct match *m) {
        return eng_log_phase(&m->setup, m->state, m->log, m->n_log);
}

const char *match_state_name(const struct match *m) {
        if (m->aborted)
                return "aborted";
        switch (match_phase(m)) {
        case ENG_LOG_PROVISIONAL:
                return "provisional";
        case ENG_LOG_FINAL:
                return "finished";
        default:
                return match_json_status_name(m->game->status(m->state));
        }
}

void match_hash_format(char buf[static 17], uint64_t hash) {
        snprintf(buf, 17, "%016" PRIx64, hash);
}

int match_replay_compare(uint64_t seq, enum eng_refusal replayed, const char *stored_refusal,
                         uint64_t replayed_hash, const char *stored_hash, char *why, size_t len) {
        char hash[17];

        if (replayed != ENG_ACCEPTED && !stored_refusal) {
                snprintf(why, len, "input %" PRIu64 " was accepted live but is refused (%s) on replay",
                         seq, eng_refusal_name(replayed));
                return -EBADMSG;
        }
        if (stored_refusal && strcmp(stored_refusal, eng_refusal_name(replayed)) != 0) {
                snprintf(why, len, "input %" PRIu64 " was %s live but is %s on replay", seq,
                         stored_refusal, replayed == ENG_ACCEPTED ? "accepted" : eng_refusal_name(replayed));
                return -EBADMSG;
        }
        match_hash_format(hash, replayed_hash);
        if (!stored_hash || strcmp(hash, stored_hash) != 0) {
                snprintf(why, len, "state hash after input %" PRIu64 " is %s on replay, %s was stored",
                         seq, hash, stored_hash ? stored_hash : "none");
                return -EBADMSG;
        }
        return 0;
}

struct match *match_alloc(struct matches *reg, const struct eng_game *g) {
        struct match *m = calloc(1, sizeof *m);
        struct judge_config jc;

        if (!m)
                return NULL;
        m->reg = reg;
        m->game = g;
        m->setup = (struct eng_setup) { .game = g, .cfg = &m->cfg, .data = &m->data };
        m->state = calloc(1, g->state_size);
        m->scratch = calloc(1, g->state_size);
        m->timer = evtimer_new(loop_base(reg->loop), NULL, NULL);
        m->judge_timer = evtimer_new(loop_base(reg->loop), on_judge_timer, m);
        if (m->timer)
                loop_set_urgent(m->timer);
        if (m->judge_timer)
                loop_set_urgent(m->judge_timer);
        m->held = calloc(JUDGE_MAX_PRESSES, sizeof *m->held);
        m->timed = calloc(MATCH_TIMED_MAX, sizeof *m->timed);
        if (!m->state || !m->scratch || !m->timer || !m->judge_timer || !m->held || !m->timed) {
                match_free(m);
                return NULL;
        }
        /* The judge waits as long as the driver may hold a frame back; a
         * settle window shorter than the tie window is not a valid config. */
        judge_config_init(&jc);
        if (reg->pads)
                jc.settle_us = padbus_effective_settle_us(reg->pads);
        if (jc.settle_us < jc.tie_window_us)
                jc.settle_us = jc.tie_window_us;
        if (jc.settle_us > JUDGE_MAX_DURATION_US)
                jc.settle_us = JUDGE_MAX_DURATION_US;
        judge_init(&m->judge, &jc);
        return m;
}

int match_take_data(struct match *m, const struct eng_data *data) {
        for (size_t i = 0; data && i < ENG_MAX_DATA; i++) {
                char *copy;

                if (!data->text[i])
                        continue;
                copy = malloc(data->len[i] + 1);
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, data->text[i], data->len[i]);
                copy[data->len[i]] = '\0';
                m->data.text[i] = copy;
                m->data.len[i] = data->len[i];
        }
        return 0;
}

int match_log_push(struct match *m, const struct eng_input *in, enum eng_refusal refusal) {
        if (m->n_log == m->log_cap) {
                size_t cap = m->log_cap ? 2 * m->log_cap : LOG_INITIAL;
                struct eng_record *log = realloc(m->log, cap * sizeof *log);

                if (!log)
                        return -ENOMEM;
                m->log = log;
                m->log_cap = cap;
        }
        m->log[m->n_log++] = (struct eng_record) { .in = *in, .refusal = refusal };
        if (refusal != ENG_ACCEPTED && (unsigned) refusal < sizeof m->refused / sizeof m->refused[0])
                m->refused[refusal]++;
        return 0;
}

const char *matches_venue(const struct matches *reg) {
        return store_get_venue(reg->store);
}

bool match_is_ours(const struct matches *reg, const char *venue) {
        return !venue || strcmp(venue, matches_venue(reg)) == 0;
}

/* ---- seats and pads ------------------------------------------------------ */

/* A seat's button map {"0": "row 1", ...} (api/tables.c checked its form);
 * a name that is no call of this game leaves that button unmapped. */
static void load_buttons(struct match *m, unsigned seat, json_t *buttons) {
        struct match_seat *ms = &m->seats[seat];
        const char *key;
        json_t *v;

        ms->mapped = true;
        for (unsigned b = 0; b < MATCH_BUTTONS; b++)
                ms->calls[b] = -1;
        json_object_foreach(buttons, key, v) {
                long b = strtol(key, NULL, 10);
                int call;

                if (b < 0 || b >= MATCH_BUTTONS || !json_is_string(v))
                        continue;
                if (eng_call_by_name(m->game, json_string_value(v), &call) < 0) {
                        log_warning("match %" PRId64 ": seat %u button %ld maps to \"%s\", which is no call of %s: "
                                    "that button makes no call", m->id, seat + 1, b, json_string_value(v),
                                    m->game->name);
                        continue;
                }
                ms->calls[b] = (int16_t) call;
        }
}

static bool pad_of(json_t *it, struct match_pad *ret) {
        const char *pad = json_string_value(json_object_get(it, "pad"));
        const char *role = json_string_value(json_object_get(it, "role"));
        int r = role ? eng_role_from_name(role) : ENG_ROLE_BUTTONS;

        if (!pad || strlen(pad) != MATCH_PAD_ID_MAX - 1 || r < 0)
                return false;
        memcpy(ret->id, pad, MATCH_PAD_ID_MAX);
        ret->role = (enum eng_pad_role) r;
        return true;
}

void match_load_seats(struct match *m, json_t *seats, json_t *table_pads) {
        json_t *it, *p;
        size_t i, k;

        memset(m->seats, 0, sizeof m->seats);
        m->n_table_pads = 0;
        json_array_foreach(seats, i, it) {
                json_int_t seat = json_integer_value(json_object_get(it, "seat"));
                const char *name = json_string_value(json_object_get(it, "name"));
                json_t *buttons = json_object_get(it, "buttons"), *pads = json_object_get(it, "pads");
                struct match_seat *ms;

                if (seat < 1 || seat > ENG_MAX_SEATS)
                        continue;
                ms = &m->seats[seat - 1];
                if (name)
                        snprintf(ms->name, MATCH_NAME_MAX, "%s", name);
                if (json_is_object(buttons))
                        load_buttons(m, (unsigned) seat - 1, buttons);
                /* A match stored before pads had roles has one "pad": its
                 * button pad. */
                if (!pads && json_is_string(json_object_get(it, "pad")) && pad_of(it, &ms->pads[0]))
                        ms->n_pads = 1;
                json_array_foreach(pads, k, p)
                        if (ms->n_pads < MATCH_SEAT_PADS && pad_of(p, &ms->pads[ms->n_pads]))
                                ms->n_pads++;
        }
        json_array_foreach(table_pads, k, p)
                if (m->n_table_pads < MATCH_TABLE_PADS && pad_of(p, &m->table_pads[m->n_table_pads]))
                        m->n_table_pads++;
}

int match_pad_seat(const struct match *m, const char *pad, int *ret_seat, enum eng_pad_role *ret_role) {
        for (unsigned s = 0; s < m->n_seats; s++)
                for (unsigned k = 0; k < m->seats[s].n_pads; k++)
                        if (strcmp(m->seats[s].pads[k].id, pad) == 0) {
                                *ret_seat = (int) s;
                                *ret_role = m->seats[s].pads[k].role;
                                return 0;
                        }
        for (unsigned k = 0; k < m->n_table_pads; k++)
                if (strcmp(m->table_pads[k].id, pad) == 0) {
                        *ret_seat = ENG_SEAT_TABLE;
                        *ret_role = m->table_pads[k].role;
                        return 0;
                }
        return -ENOENT;
}

/* ---- creation ------------------------------------------------------------ */

static void on_match_stored(void *userdata, const PGresult *res, const char *error) {
        struct match_create_ctx *c = userdata;
        struct match *m = c->m;
        json_t *j;

        if (!res || PQntuples(res) != 1 || !(j = json_loads(PQgetvalue(res, 0, 0), 0, NULL))) {
                match_free(m);
                c->cb(c->userdata, NULL, NULL, error ? error : "the database returned no match");
                free(c);
                return;
        }
        m->id = json_integer_value(json_object_get(j, "id"));
        /* At another venue's table: stored, and run by that venue's daemon
         * (match.h, "Venues"). */
        if (!match_is_ours(m->reg, json_string_value(json_object_get(j, "venue")))) {
                match_free(m);
                c->cb(c->userdata, NULL, j, NULL);
                json_decref(j);
                free(c);
                return;
        }
        match_load_seats(m, json_object_get(j, "seats"), json_object_get(j, "table_pads"));
        m->next = m->reg->list;
        m->reg->list = m;
        MATCH_NOTIFY(m->reg, added, m, true);
        c->cb(c->userdata, m, j, NULL);
        json_decref(j);
        free(c);
}

int matches_create(struct matches *reg, const struct match_spec *spec, const char *who, match_created_fn cb,
                   void *userdata) {
        char table_s[NUM_MAX], seed_s[NUM_MAX], timeout_s[NUM_MAX];
        const struct eng_game *g = spec->game;
        struct match_create_ctx *c;
        struct match *m;
        json_t *config, *data;
        char *config_text, *seats_text, *data_text;
        int r;

        if (store_get_state(reg->store) != STORE_READY)
                return -ENOTCONN;
        m = match_alloc(reg, g);
        c = calloc(1, sizeof *c);
        if (!m || !c || match_take_data(m, spec->data) < 0) {
                match_free(m);
                free(c);
                return -ENOMEM;
        }
        m->cfg = *spec->cfg;
        m->seed = spec->seed;
        m->n_seats = spec->n_seats;
        m->setup.n_seats = spec->n_seats;
        m->setup.seed = spec->seed;
        m->setup.confirm = spec->confirm;
        m->confirm_timeout_us = spec->confirm ? spec->confirm_timeout_s * USEC_PER_SEC : 0;
        /* Match time starts at 0 now. */
        m->clock_offset_us = -now_usec();
        m->table_id = spec->table_id;
        r = g->create(m->state, &m->cfg, &m->data, m->n_seats, m->seed);
        if (r < 0) {
                match_free(m);
                free(c);
                return r;
        }
        *c = (struct match_create_ctx) { .m = m, .cb = cb, .userdata = userdata };
        config = match_json_config_to(g, &m->cfg);
        data = match_json_data_to(g, &m->data);
        config_text = config ? json_dumps(config, JSON_COMPACT) : NULL;
        data_text = data ? json_dumps(data, JSON_COMPACT) : NULL;
        seats_text = json_dumps(spec->seats, JSON_COMPACT);
        snprintf(table_s, sizeof table_s, "%" PRId64, spec->table_id);
        snprintf(seed_s, sizeof seed_s, "%" PRIu64, spec->seed);
        snprintf(timeout_s, sizeof timeout_s, "%" PRId64, spec->confirm_timeout_s);
        struct match_store_new row = {
                .game = g->name, .table_id = spec->table_id ? table_s : NULL, .seed = seed_s,
                .config = config_text, .data = data_text, .seats = seats_text,
                .confirm = spec->confirm ? "referee" : "auto",
                .confirm_timeout_s = spec->confirm && spec->confirm_timeout_s ? timeout_s : NULL, .who = who,
                .venue = matches_venue(reg),
        };
        r = config_text && seats_text && data_text ? match_store_insert_match(reg->store, &row, on_match_stored, c)
                                                   : -ENOMEM;
        json_decref(config);
        json_decref(data);
        free(config_text);
        free(data_text);
        free(seats_text);
        if (r < 0) {
                match_free(m);
                free(c);
        }
        return r;
}

/* ---- abort ----------------------------------------------------------------- */

static void on_aborted(void *userdata, const PGresult *res, const char *error) {
        struct match_abort_ctx *c = userdata;
        struct match *m = c->m;

        m->pending--;
        if (res && !m->released)
                MATCH_NOTIFY(m->reg, aborted, m);
        c->done(c->userdata, m, res ? NULL : error);
        if (m->released && m->pending == 0)
                match_free(m);
        free(c);
}

int match_abort(struct match *m, const char *who, match_aborted_fn done, void *userdata) {
        char id[NUM_MAX];
        struct match_abort_ctx *c;
        struct eng_result res;
        json_t *result = NULL;
        char *text = NULL;
        int r;

        if (m->aborted || match_phase(m) == ENG_LOG_FINAL)
                return -EALREADY;
        /* The abort is a row update: one written past spooled inputs would
         * be undone when they are flushed (each sets the row's state). */
        if (m->stale || store_get_state(m->reg->store) != STORE_READY || matches_must_spool(m->reg))
                return -ENOTCONN;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        *c = (struct match_abort_ctx) { .m = m, .done = done, .userdata = userdata };
        if (m->game->result(m->state, &res) == 0)
                result = match_json_result(m->game, m->state, &res);
        text = result ? json_dumps(result, JSON_COMPACT) : NULL;
        snprintf(id, sizeof id, "%" PRId64, m->id);
        r = match_store_abort(m->reg->store, id, text, on_aborted, c);
        json_decref(result);
        free(text);
        if (r < 0) {
                free(c);
                return r;
        }
        log_info("match %" PRId64 " aborted by %s", m->id, who);
        m->pending++;
        m->aborted = true;
        evtimer_del(m->timer);
        evtimer_del(m->judge_timer);
        return 0;
}

/* ---- the registry ---------------------------------------------------------- */

static void on_judge_timer(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        match_judge_check(userdata);
}

int matches_observe(struct matches *reg, const struct match_observer *obs) {
        if (reg->n_obs == MATCH_MAX_OBSERVERS)
                return -ENOSPC;
        reg->obs[reg->n_obs++] = *obs;
        return 0;
}

size_t matches_ids(const struct matches *reg, int64_t *ids, size_t cap) {
        size_t n = 0;

        for (struct match *m = reg->list; m; m = m->next, n++)
                if (n < cap)
                        ids[n] = m->id;
        return n;
}

struct store *matches_store(const struct matches *reg) {
        return reg->store;
}

bool matches_loading(const struct matches *reg) {
        return reg->loading;
}

struct match *matches_find(struct matches *reg, int64_t id) {
        for (struct match *m = reg->list; m; m = m->next)
                if (m->id == id)
                        return m;
        return NULL;
}

struct match *matches_at_table(struct matches *reg, int64_t table_id) {
        struct match *newest = NULL;

        if (table_id <= 0)
                return NULL;
        for (struct match *m = reg->list; m; m = m->next)
                if (m->table_id == table_id && m->id > 0 && !m->aborted && match_phase(m) != ENG_LOG_FINAL &&
                    (!newest || m->id > newest->id))
                        newest = m;
        return newest;
}

uint64_t matches_unassigned_presses(const struct matches *reg) {
        return reg->unassigned_presses;
}

void matches_set_pads(struct matches *reg, struct padbus *pads) {
        reg->pads = pads;
}

void matches_set_spool(struct matches *reg, struct spool *spool, struct spool_writer *writer, matches_fatal_fn fatal,
                       void *userdata) {
        reg->spool = spool;
        reg->writer = writer;
        reg->fatal = fatal;
        reg->fatal_userdata = userdata;
}

static void on_flush_retry(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        matches_flush_next(userdata);
}

int matches_new(struct loop *loop, struct store *store, struct matches **ret) {
        struct matches *reg = calloc(1, sizeof *reg);

        if (!reg)
                return -ENOMEM;
        *reg = (struct matches) { .loop = loop, .store = store };
        reg->flush_retry = evtimer_new(loop_base(loop), on_flush_retry, reg);
        if (!reg->flush_retry) {
                free(reg);
                return -ENOMEM;
        }
        *ret = reg;
        return 0;
}

void matches_flush_retry(struct matches *reg) {
        struct timeval tv = usec_to_timeval(FLUSH_RETRY_US);

        if (reg->flush_retry)
                evtimer_add(reg->flush_retry, &tv);
}

/* Called after the store is freed: every write has had its callback. */
void matches_free(struct matches *reg) {
        struct match *m, *next;

        if (!reg)
                return;
        for (m = reg->list; m; m = next) {
                next = m->next;
                match_free(m);
        }
        event_free(reg->flush_retry);
        free(reg);
}
