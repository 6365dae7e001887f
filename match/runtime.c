/* match/runtime.c — the match runtime: registry, clock, timers, the
 * write-then-publish input path and the replay on start-up.  The design is
 * in match.h. */
#include "match/match.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"
#include "match/json.h"
#include "store/matches.h"
#include "hardware/padbus.h"
#include "store/spool.h"
#include "store/store.h"

/* A timer that fell due while the database was unreachable tries again
 * after this long. */
#define MATCH_TIMER_RETRY_US    (1 * USEC_PER_SEC)
/* A spooled input the database did not take (an error while it was
 * READY) is tried again after this long; a lost connection waits for the
 * next READY instead. */
#define MATCH_FLUSH_RETRY_US    (1 * USEC_PER_SEC)
/* Decimal int64 and its NUL. */
#define NUM_MAX                 24
/* LIGHT and BUZZ carry their duration in 16 bits (docs/protocol.md
 * section 6). */
#define PAD_DURATION_MAX_MS     UINT16_MAX

struct matches {
        struct loop *loop;
        struct store *store;
        struct match *list;
        bool loading;
        struct padbus *pads;            /* NULL: presses are not judged */
        struct match_observer obs[MATCH_MAX_OBSERVERS];
        size_t n_obs;
        uint64_t unassigned_presses;

        /* The spool (matches.h, "The spool").  Invariant: while it holds
         * records no input is written to the database directly, so the
         * database sees each match's inputs in seq order. */
        struct spool *spool;            /* NULL: inputs need the database */
        matches_fatal_fn fatal;
        void *fatal_userdata;
        bool broken;                    /* the spool failed: nothing more is acknowledged */
        bool flushing;                  /* a spooled record's INSERT is in flight */
        bool load_after_flush;          /* the rebuild waits until the spool is empty */
        uint64_t flushed;               /* records written in this flush */
        struct event *flush_retry;
};

/* One input on its way to the database. */
struct match_write {
        struct match *m;
        struct eng_input in;
        struct eng_out out;
        match_done_fn done;
        void *userdata;
        int64_t made_usec;              /* when it was submitted, for the debug log */
};

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

static void arm_timer(struct match *m);
static void on_judge_timer(evutil_socket_t fd, short what, void *userdata);
static void flush_next(struct matches *reg);
static void load_unfinished(struct matches *reg);

static void held_end(struct matches *reg, struct match_held *h, size_t n, bool durable);

/* Tells every observer; a NULL callback is skipped. */
#define NOTIFY(reg, fn, ...) do { \
        for (size_t i_ = 0; i_ < (reg)->n_obs; i_++) \
                if ((reg)->obs[i_].fn) \
                        (reg)->obs[i_].fn((reg)->obs[i_].userdata, __VA_ARGS__); \
} while (0)

static void match_free(struct match *m) {
        if (!m)
                return;
        held_end(m->reg, m->held, m->n_held, false);
        free(m->held);
        if (m->timer)
                event_free(m->timer);
        if (m->judge_timer)
                event_free(m->judge_timer);
        free(m->state);
        free(m->scratch);
        free(m);
}

/* Takes m out of the registry; frees it now or, while writes for it are in
 * flight, when the last one completes. */
static void match_release(struct match *m) {
        struct match **p;

        /* Announced while the bus can still read the object's interfaces. */
        NOTIFY(m->reg, removed, m);
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
        held_end(m->reg, m->held, m->n_held, true);
        m->n_held = 0;
        if (m->pending > 0)
                m->released = true;
        else
                match_free(m);
}

int64_t match_now(const struct match *m) {
        return now_usec() + m->clock_offset_us;
}

const char *match_state_name(const struct match *m) {
        if (m->aborted)
                return "aborted";
        return match_json_status_name(m->game->status(m->state));
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

static struct match *match_alloc(struct matches *reg, const struct eng_game *g) {
        struct match *m = calloc(1, sizeof *m);

        if (!m)
                return NULL;
        m->reg = reg;
        m->game = g;
        m->state = calloc(1, g->state_size);
        m->scratch = calloc(1, g->state_size);
        m->timer = evtimer_new(loop_base(reg->loop), NULL, NULL);
        m->judge_timer = evtimer_new(loop_base(reg->loop), on_judge_timer, m);
        if (m->timer)
                loop_set_urgent(m->timer);
        if (m->judge_timer)
                loop_set_urgent(m->judge_timer);
        m->held = calloc(JUDGE_MAX_PRESSES, sizeof *m->held);
        if (!m->state || !m->scratch || !m->timer || !m->judge_timer || !m->held) {
                match_free(m);
                return NULL;
        }
        /* The judge waits as long as the driver may hold a frame back; a
         * settle window shorter than the tie window is not a valid config. */
        struct judge_config jc;
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

/* A seat's button map {"0": "row 1", ...} (api/tables.c checked its
 * form); a name that is no call of this game leaves that button unmapped. */
static void load_buttons(struct match *m, unsigned seat, json_t *buttons) {
        const char *key;
        json_t *v;

        m->mapped[seat] = true;
        memset(m->calls[seat], -1, sizeof m->calls[seat]);
        json_object_foreach(buttons, key, v) {
                long b = strtol(key, NULL, 10);
                int call;

                if (b < 0 || b >= MATCH_BUTTONS || !json_is_string(v))
                        continue;
                if (eng_call_by_name(m->game, json_string_value(v), &call) < 0 || call > INT8_MAX) {
                        log_warning("match %" PRId64 ": seat %u button %ld maps to \"%s\", which is no call of %s: "
                                    "that button makes no call", m->id, seat + 1, b, json_string_value(v),
                                    m->game->name);
                        continue;
                }
                m->calls[seat][b] = (int8_t) call;
        }
}

/* Takes each seat's pad and name from the stored seats [{seat (1-based),
 * name, pad}]. */
static void load_pads(struct match *m, json_t *seats) {
        json_t *it;
        size_t i;

        memset(m->pads, 0, sizeof m->pads);
        memset(m->names, 0, sizeof m->names);
        memset(m->mapped, 0, sizeof m->mapped);
        json_array_foreach(seats, i, it) {
                json_int_t seat = json_integer_value(json_object_get(it, "seat"));
                const char *pad = json_string_value(json_object_get(it, "pad")),
                           *name = json_string_value(json_object_get(it, "name"));
                json_t *buttons = json_object_get(it, "buttons");

                if (seat >= 1 && seat <= ENG_MAX_SEATS && name)
                        snprintf(m->names[seat - 1], MATCH_NAME_MAX, "%s", name);
                if (seat >= 1 && seat <= ENG_MAX_SEATS && json_is_object(buttons))
                        load_buttons(m, (unsigned) seat - 1, buttons);
                if (seat < 1 || seat > ENG_MAX_SEATS || !pad || strlen(pad) != MATCH_PAD_ID_MAX - 1)
                        continue;
                memcpy(m->pads[seat - 1], pad, MATCH_PAD_ID_MAX);
        }
}

/* Follows the engine's requests that concern the runtime now: the open
 * window (calls answer it).  Pad feedback is wired next session. */
static void note_requests(struct match *m, const struct eng_out *out) {
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];
                if (o->kind == ENG_REQ_WINDOW_OPEN) {
                        m->window_open = true;
                        m->window = o->window.window;
                        m->window_open_us = o->at_us;
                        m->window_seats = o->window.seats;
                } else if (o->kind == ENG_REQ_WINDOW_CLOSE && o->window.window == m->window) {
                        m->window_open = false;
                }
        }
}

/* Makes the judge follow the engine's window: one judge window per engine
 * window, opened at the window's open time in host time. */
static void judge_follow(struct match *m) {
        if (m->judging && (!m->window_open || m->judge_window != m->window)) {
                judge_close(&m->judge);
                evtimer_del(m->judge_timer);
                m->judging = false;
                /* closed undecided: its presses made no input */
                held_end(m->reg, m->held, m->n_held, true);
                m->n_held = 0;
        }
        if (!m->window_open || m->judging || m->aborted || m->stale)
                return;
        int r = judge_open(&m->judge, m->window_open_us - m->clock_offset_us, m->window_seats & JUDGE_ALL_SEATS);
        if (r < 0) {
                log_warning("match %" PRId64 ": the judge cannot open window %" PRIu32 ": %s", m->id, m->window,
                            strerror(-r));
                return;
        }
        m->judging = true;
        m->judge_window = m->window;
}

/* Sends the pad feedback an input asked for; a pad that is not connected
 * misses it (feedback is display only, the match does not depend on it). */
static void send_feedback(struct match *m, const struct eng_out *out) {
        struct padbus *pads = m->reg->pads;

        if (!pads)
                return;
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];
                const char *pad;
                int r;

                if (o->kind < ENG_REQ_PAD_LIGHT || o->seat < 0 || (unsigned) o->seat >= m->n_seats ||
                    !m->pads[o->seat][0])
                        continue;
                pad = m->pads[o->seat];
                switch (o->kind) {
                case ENG_REQ_PAD_LIGHT:
                        r = padbus_light(pads, pad, (uint8_t) o->light.button, (uint8_t) o->light.mode,
                                         (uint16_t) (o->light.duration_ms > PAD_DURATION_MAX_MS
                                                     ? PAD_DURATION_MAX_MS : o->light.duration_ms));
                        break;
                case ENG_REQ_PAD_BUZZ:
                        r = padbus_buzz(pads, pad, (uint8_t) o->buzz.pattern,
                                        (uint16_t) (o->buzz.duration_ms > PAD_DURATION_MAX_MS
                                                    ? PAD_DURATION_MAX_MS : o->buzz.duration_ms));
                        break;
                case ENG_REQ_PAD_LOCKOUT:
                        r = padbus_lockout(pads, pad, (uint16_t) o->lockout.buttons);
                        break;
                default:
                        continue;
                }
                if (r < 0)
                        log_debug("match %" PRId64 ": no feedback to pad %s: %s", m->id, pad, strerror(-r));
        }
}

/* An input is durable (stored, or spooled: ok) or could not be stored:
 * publish and answer, or mark the match stale. */
static void input_written(struct match_write *w, bool ok, const char *error) {
        struct match *m = w->m;

        m->pending--;
        if (!ok) {
                if (!m->stale)
                        log_warning("match %" PRId64 ": input %" PRIu64 " could not be stored (%s); the match "
                                    "is rebuilt from the database when it is reachable again",
                                    m->id, w->in.seq, error);
                m->stale = true;
                if (m->timer)
                        evtimer_del(m->timer);
        } else if (!m->released) {
                log_debug("match %" PRId64 ": input %" PRIu64 " durable %" PRId64 " µs after it was made", m->id,
                          w->in.seq, now_usec() - w->made_usec);
                NOTIFY(m->reg, published, m, &w->in, &w->out);
                send_feedback(m, &w->out);
        }
        if (w->done)
                w->done(w->userdata, m, ok ? 0 : -EIO, &w->in, &w->out, error);
        if (m->released && m->pending == 0)
                match_free(m);
        free(w);
}

static void on_input_stored(void *userdata, const PGresult *res, const char *error) {
        input_written(userdata, res != NULL, error);
}

/* Whether an input goes to the spool rather than the database: when the
 * database is not READY, and whenever the spool holds records (or one is
 * being written), so that no input overtakes one waiting there. */
static bool must_spool(const struct matches *reg) {
        return reg->spool && (store_get_state(reg->store) != STORE_READY || spool_pending(reg->spool) > 0 ||
                              reg->flushing);
}

/* The spool failed: what it holds may or may not be on disk, so nothing
 * more may be acknowledged (REFERENCES.md: an fsync failure is fatal). */
static void spool_failed(struct matches *reg, const char *what, int r) {
        log_error("the spool failed %s: %s; stopping, since no input may be acknowledged after it",
                  what, strerror(-r));
        if (!reg->broken && reg->fatal) {
                reg->broken = true;
                reg->fatal(reg->fatal_userdata);
        }
        reg->broken = true;
}

/* Appends an input's record to the spool (fsync'd).  0, -EINVAL (it
 * cannot be a record), or -EIO (the spool failed; logged, and the daemon
 * stops). */
static int spool_input(struct matches *reg, const struct match_store_input *row) {
        char *text = match_store_input_to_record(row);
        int r;

        if (!text)
                return -ENOMEM;
        r = spool_append(reg->spool, text, strlen(text));
        free(text);
        if (r == -EINVAL)
                return r;
        if (r < 0) {
                spool_failed(reg, "to take an input", r);
                return -EIO;
        }
        return 0;
}

/* The reaction time of an accepted call: what its call_judged says. */
static bool reaction_of(const struct eng_out *out, int64_t *ret) {
        for (size_t i = 0; i < out->n; i++)
                if (out->v[i].kind == ENG_EV_CALL_JUDGED && (out->v[i].judged.verdict == ENG_VERDICT_CORRECT ||
                                                              out->v[i].judged.verdict == ENG_VERDICT_WRONG)) {
                        *ret = out->v[i].judged.reaction_us;
                        return true;
                }
        return false;
}

static const char *source_name(enum match_source s) {
        switch (s) {
        case MATCH_SOURCE_REFEREE:  return "referee";
        case MATCH_SOURCE_OPERATOR: return "operator";
        case MATCH_SOURCE_TIMER:    return "timer";
        case MATCH_SOURCE_PAD:      return "pad";
        }
        return "referee";
}

/* Hands a match whose engine broke to a referee: it leaves the registry. */
static void hand_to_referee(struct match *m, const char *reason) {
        char id[NUM_MAX];

        log_warning("match %" PRId64 " needs a referee and is not run: %s", m->id, reason);
        snprintf(id, sizeof id, "%" PRId64, m->id);
        match_store_needs_referee(m->reg->store, id, reason);
        match_release(m);
}

/* The input is tried on scratch so that a write that cannot even be queued
 * leaves the match as it was; once queued, scratch becomes the state. */
int match_submit(struct match *m, struct eng_input *in, enum match_source source, const char *who,
                 match_done_fn done, void *userdata) {
        char id[NUM_MAX], seq[NUM_MAX], time_s[NUM_MAX], seat[NUM_MAX], reaction[NUM_MAX], hash[17];
        struct match_write *w;
        int64_t now = match_now(m), reaction_us;
        json_t *input_json, *result_json = NULL;
        char *input_text = NULL, *result_text = NULL;
        int r;

        if (m->aborted)
                return -ESHUTDOWN;
        bool spooled = must_spool(m->reg);
        if (m->stale || (!spooled && store_get_state(m->reg->store) != STORE_READY))
                return -ENOTCONN;
        if (spooled && m->reg->broken)
                return -EIO;
        w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        in->seq = m->last_seq + 1;
        in->time_us = now > m->last_us ? now : m->last_us;
        memcpy(m->scratch, m->state, m->game->state_size);
        r = m->game->apply(m->scratch, in, &w->out);
        if (r < 0) {
                free(w);
                hand_to_referee(m, "the engine refused to go on (internal error)");
                return -EPROTO;
        }
        w->m = m;
        w->in = *in;
        w->made_usec = now_usec();
        w->done = done;
        w->userdata = userdata;

        enum eng_status status = m->game->status(m->scratch);
        if (status == ENG_STATUS_FINISHED) {
                struct eng_result res;
                if (m->game->result(m->scratch, &res) == 0)
                        result_json = match_json_result(m->game, &res);
                result_text = result_json ? json_dumps(result_json, JSON_COMPACT) : NULL;
        }
        input_json = match_json_input_to(m->game, in);
        input_text = input_json ? json_dumps(input_json, JSON_COMPACT) : NULL;
        snprintf(id, sizeof id, "%" PRId64, m->id);
        snprintf(seq, sizeof seq, "%" PRIu64, in->seq);
        snprintf(time_s, sizeof time_s, "%" PRId64, in->time_us);
        snprintf(seat, sizeof seat, "%d", in->seat + 1);
        bool has_reaction = w->out.refusal == ENG_ACCEPTED && reaction_of(&w->out, &reaction_us);
        if (has_reaction)
                snprintf(reaction, sizeof reaction, "%" PRId64, reaction_us);
        match_hash_format(hash, m->game->hash(m->scratch));
        struct match_store_input row = {
                .match_id = id, .seq = seq, .time_us = time_s,
                .seat = in->seat == ENG_SEAT_TABLE ? NULL : seat,
                .kind = match_json_kind_name(in->kind), .input = input_text, .hash = hash,
                .refusal = w->out.refusal == ENG_ACCEPTED ? NULL : eng_refusal_name(w->out.refusal),
                .reaction_us = has_reaction ? reaction : NULL,
                .source = source_name(source), .who = who,
                .state = match_json_status_name(status), .result = result_text,
                .same_state = status == m->game->status(m->state),
        };
        if (!input_text || !row.kind)
                r = -EINVAL;
        else if (spooled)
                r = spool_input(m->reg, &row);
        else
                r = match_store_insert_input(m->reg->store, &row, on_input_stored, w);
        json_decref(input_json);
        json_decref(result_json);
        free(input_text);
        free(result_text);
        if (r < 0) {
                free(w);
                return r;
        }
        m->pending++;
        memcpy(m->state, m->scratch, m->game->state_size);
        m->last_seq = in->seq;
        m->last_us = in->time_us;
        note_requests(m, &w->out);
        judge_follow(m);
        arm_timer(m);
        /* fsync'd: durable now, so published and answered now. */
        if (spooled)
                input_written(w, true, NULL);
        return 0;
}

static void on_timer(evutil_socket_t fd, short what, void *userdata) {
        struct match *m = userdata;
        struct eng_input in = { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_TIMER };
        int64_t wake = m->game->wake_us(m->state);
        int r;

        (void) fd, (void) what;
        if (wake == ENG_NEVER)
                return;
        /* libevent may fire a hair before the wake-up in match time (µs
         * rounding): wait for the rest rather than be refused as not due. */
        if (match_now(m) < wake) {
                arm_timer(m);
                return;
        }
        r = match_submit(m, &in, MATCH_SOURCE_TIMER, "timer", NULL, NULL);
        if (r == -ENOTCONN && !m->stale) {
                struct timeval tv = usec_to_timeval(MATCH_TIMER_RETRY_US);
                evtimer_add(m->timer, &tv);
        } else if (r < 0 && r != -ENOTCONN && r != -EPROTO) {
                log_warning("match %" PRId64 ": timer input failed: %s", m->id, strerror(-r));
        }
}

/* Follows the engine's pending wake-up (ENG_NEVER: none). */
static void arm_timer(struct match *m) {
        int64_t wake = m->game->wake_us(m->state), delay;
        struct timeval tv;

        evtimer_del(m->timer);
        if (wake == ENG_NEVER || m->aborted || m->stale)
                return;
        delay = wake - match_now(m);
        tv = usec_to_timeval(delay > 0 ? delay : 0);
        evtimer_assign(m->timer, loop_base(m->reg->loop), on_timer, m);
        evtimer_add(m->timer, &tv);
}

/* ---- creation ---------------------------------------------------------- */

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
        load_pads(m, json_object_get(j, "seats"));
        m->next = m->reg->list;
        m->reg->list = m;
        NOTIFY(m->reg, added, m);
        c->cb(c->userdata, m, j, NULL);
        json_decref(j);
        free(c);
}

int matches_create(struct matches *reg, const struct eng_game *g, const struct eng_config *cfg,
                   unsigned n_seats, uint64_t seed, json_t *seats, int64_t table_id, const char *who,
                   match_created_fn cb, void *userdata) {
        char table_s[NUM_MAX], seed_s[NUM_MAX];
        struct match_create_ctx *c;
        struct match *m;
        json_t *config;
        char *config_text, *seats_text;
        int r;

        if (store_get_state(reg->store) != STORE_READY)
                return -ENOTCONN;
        m = match_alloc(reg, g);
        c = calloc(1, sizeof *c);
        if (!m || !c) {
                match_free(m);
                free(c);
                return -ENOMEM;
        }
        m->cfg = *cfg;
        m->seed = seed;
        m->n_seats = n_seats;
        /* Match time starts at 0 now. */
        m->clock_offset_us = -now_usec();
        r = g->create(m->state, cfg, n_seats, seed);
        if (r < 0) {
                match_free(m);
                free(c);
                return r;
        }
        *c = (struct match_create_ctx) { .m = m, .cb = cb, .userdata = userdata };
        config = match_json_config_to(g, cfg);
        config_text = config ? json_dumps(config, JSON_COMPACT) : NULL;
        seats_text = json_dumps(seats, JSON_COMPACT);
        snprintf(table_s, sizeof table_s, "%" PRId64, table_id);
        snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
        r = config_text && seats_text
                ? match_store_insert_match(reg->store, g->name, table_id ? table_s : NULL, seed_s, config_text,
                                           seats_text, who, on_match_stored, c)
                : -ENOMEM;
        json_decref(config);
        free(config_text);
        free(seats_text);
        if (r < 0) {
                match_free(m);
                free(c);
        }
        return r;
}

/* ---- abort ------------------------------------------------------------- */

static void on_aborted(void *userdata, const PGresult *res, const char *error) {
        struct match_abort_ctx *c = userdata;
        struct match *m = c->m;

        m->pending--;
        if (res && !m->released)
                NOTIFY(m->reg, aborted, m);
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

        if (m->aborted || m->game->status(m->state) == ENG_STATUS_FINISHED)
                return -EALREADY;
        /* The abort is a row update: one written past spooled inputs would
         * be undone when they are flushed (each sets the row's state). */
        if (m->stale || store_get_state(m->reg->store) != STORE_READY || must_spool(m->reg))
                return -ENOTCONN;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        *c = (struct match_abort_ctx) { .m = m, .done = done, .userdata = userdata };
        if (m->game->result(m->state, &res) == 0)
                result = match_json_result(m->game, &res);
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

/* ---- start-up: rebuild unfinished matches ------------------------------ */

/* Rebuilds one stored match and checks every input against what was
 * stored with it.  0 with *ret (live), or -EBADMSG with why (a referee
 * must look), or -ENOMEM. */
static int rebuild(struct matches *reg, const PGresult *res, int row, struct match **ret, char *why,
                   size_t len) {
        const struct eng_game *g = eng_game_find(PQgetvalue(res, row, 1));
        json_t *config = json_loads(PQgetvalue(res, row, 3), 0, NULL),
               *seats = json_loads(PQgetvalue(res, row, 4), 0, NULL),
               *inputs = json_loads(PQgetvalue(res, row, 5), 0, NULL), *it;
        struct eng_error err;
        struct match *m = NULL;
        size_t i;
        int r = -EBADMSG;

        *ret = NULL;
        if (!g) {
                snprintf(why, len, "this build has no game \"%s\"", PQgetvalue(res, row, 1));
                goto out;
        }
        if (!config || !json_is_array(seats) || !json_is_array(inputs)) {
                snprintf(why, len, "the stored match is not well-formed JSON");
                goto out;
        }
        m = match_alloc(reg, g);
        if (!m) {
                r = -ENOMEM;
                goto out;
        }
        m->id = strtoll(PQgetvalue(res, row, 0), NULL, 10);
        m->seed = (uint64_t) strtoll(PQgetvalue(res, row, 2), NULL, 10);
        m->n_seats = (unsigned) json_array_size(seats);
        load_pads(m, seats);
        if (match_json_config_from(g, config, m->n_seats, &m->cfg, &err) < 0) {
                snprintf(why, len, "the stored config no longer validates: %s", err.message);
                goto out;
        }
        if (g->create(m->state, &m->cfg, m->n_seats, m->seed) < 0) {
                snprintf(why, len, "the engine cannot create the stored match");
                goto out;
        }
        json_array_foreach(inputs, i, it) {
                struct eng_input in;
                struct eng_out out;
                json_int_t seq = json_integer_value(json_object_get(it, "seq"));

                if (match_json_input_from(g, json_object_get(it, "input"), &in, &err) < 0) {
                        snprintf(why, len, "input %lld cannot be read back: %s", (long long) seq, err.message);
                        goto out;
                }
                if (g->apply(m->state, &in, &out) < 0) {
                        snprintf(why, len, "the engine failed on input %lld", (long long) seq);
                        goto out;
                }
                if (match_replay_compare(in.seq, out.refusal,
                                         json_string_value(json_object_get(it, "refusal")),
                                         g->hash(m->state), json_string_value(json_object_get(it, "state_hash")),
                                         why, len) < 0)
                        goto out;
                note_requests(m, &out);
                m->last_seq = in.seq;
                if (in.time_us > m->last_us)
                        m->last_us = in.time_us;
        }
        /* Match time goes on from the last stored input (matches.h). */
        m->clock_offset_us = m->last_us - now_usec();
        *ret = m;
        m = NULL;
        r = 0;
out:
        match_free(m);
        json_decref(config);
        json_decref(seats);
        json_decref(inputs);
        return r;
}

static void on_loaded(void *userdata, const PGresult *res, const char *error) {
        struct matches *reg = userdata;
        char why[MATCH_REASON_MAX];
        unsigned live = 0;

        reg->loading = false;
        if (!res) {
                log_warning("could not load unfinished matches: %s; trying again when the database is back", error);
                return;
        }
        for (int i = 0; i < PQntuples(res); i++) {
                int64_t id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
                struct match *m;

                if (matches_find(reg, id))
                        continue;
                int r = rebuild(reg, res, i, &m, why, sizeof why);
                if (r == -EBADMSG) {
                        log_warning("match %" PRId64 " needs a referee and is not run: %s", id, why);
                        match_store_needs_referee(reg->store, PQgetvalue(res, i, 0), why);
                        continue;
                }
                if (r < 0) {
                        log_error("match %" PRId64 " could not be rebuilt: %s", id, strerror(-r));
                        continue;
                }
                m->next = reg->list;
                reg->list = m;
                NOTIFY(reg, added, m);
                judge_follow(m);
                arm_timer(m);
                live++;
        }
        if (PQntuples(res) > 0)
                log_notice("%u unfinished match%s rebuilt from the input log", live, live == 1 ? "" : "es");
}

static void load_unfinished(struct matches *reg) {
        if (match_store_load(reg->store, on_loaded, reg) == 0)
                reg->loading = true;
}

/* The spool is flushed before the rebuild, so that the replay sees every
 * input. */
void matches_store_ready(struct matches *reg) {
        struct match *m, *next;

        for (m = reg->list; m; m = next) {
                next = m->next;
                if (m->stale)
                        match_release(m);
        }
        if (reg->spool && spool_pending(reg->spool) > 0) {
                reg->load_after_flush = true;
                reg->loading = true;
                flush_next(reg);
                return;
        }
        load_unfinished(reg);
}

/* ---- flushing the spool ------------------------------------------------- */

struct spool_record {
        char *data;
        size_t len;
};

/* spool_foreach callback: copies the first record and stops. */
static int take_first(void *userdata, const void *data, size_t len) {
        struct spool_record *rec = userdata;

        rec->data = malloc(len);
        if (!rec->data)
                return -ENOMEM;
        memcpy(rec->data, data, len);
        rec->len = len;
        return 1;
}

static void on_flush_retry(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        flush_next(userdata);
}

static void retry_flush_later(struct matches *reg) {
        struct timeval tv = usec_to_timeval(MATCH_FLUSH_RETRY_US);

        if (reg->flush_retry)
                evtimer_add(reg->flush_retry, &tv);
}

static void on_flushed(void *userdata, const PGresult *res, const char *error) {
        struct matches *reg = userdata;
        int r;

        reg->flushing = false;
        if (!res) {
                log_warning("a spooled input could not be written to the database yet (%s); %zu wait in the "
                            "spool", error, spool_pending(reg->spool));
                retry_flush_later(reg);
                return;
        }
        r = spool_consume(reg->spool, 1);
        if (r < 0) {
                spool_failed(reg, "to mark a record written", r);
                return;
        }
        reg->flushed++;
        flush_next(reg);
}

/* Writes the spool's first record with the same idempotent INSERT an
 * input takes, one at a time and in order; consumed once the INSERT
 * completes (a crash in between writes it again, harmlessly).  When the
 * spool is empty, the rebuild that waited for it runs.  Stops when the
 * database goes away; matches_store_ready() resumes it. */
static void flush_next(struct matches *reg) {
        struct spool_record rec = { 0 };
        struct match_store_input row;
        json_t *root;
        int r;

        if (!reg->spool || reg->flushing || reg->broken)
                return;
        if (spool_pending(reg->spool) == 0) {
                if (reg->flushed > 0)
                        log_notice("spool flushed: %" PRIu64 " input%s written to the database", reg->flushed,
                                   reg->flushed == 1 ? "" : "s");
                reg->flushed = 0;
                if (reg->load_after_flush && store_get_state(reg->store) == STORE_READY) {
                        reg->load_after_flush = false;
                        reg->loading = false;
                        load_unfinished(reg);
                }
                return;
        }
        if (store_get_state(reg->store) != STORE_READY)
                return;
        r = spool_foreach(reg->spool, take_first, &rec);
        if (r < 0) {
                spool_failed(reg, "to read a record back", r);
                return;
        }
        if (match_store_input_from_record(rec.data, rec.len, &row, &root) < 0) {
                /* Whole and CRC-checked, yet not an input record: no build
                 * writes such a thing, and it must not block the rest. */
                log_error("the spool holds a record that is not a match input; dropped: %.*s", (int) rec.len,
                          rec.data);
                free(rec.data);
                r = spool_consume(reg->spool, 1);
                if (r < 0)
                        spool_failed(reg, "to drop a record", r);
                else
                        flush_next(reg);
                return;
        }
        r = match_store_insert_input(reg->store, &row, on_flushed, reg);
        json_decref(root);
        free(rec.data);
        if (r < 0) {
                retry_flush_later(reg);
                return;
        }
        reg->flushing = true;
}

void matches_set_spool(struct matches *reg, struct spool *spool, matches_fatal_fn fatal, void *userdata) {
        reg->spool = spool;
        reg->fatal = fatal;
        reg->fatal_userdata = userdata;
}

bool matches_loading(const struct matches *reg) {
        return reg->loading;
}

/* ---- pad presses -------------------------------------------------------- */

/* Ends the held ACKs of presses (matches.h, "ACKs"). */
static void held_end(struct matches *reg, struct match_held *h, size_t n, bool durable) {
        for (size_t i = 0; i < n; i++)
                if (reg->pads)
                        padbus_ack(reg->pads, h[i].pad, h[i].event_no, durable);
}

/* The presses a judged input rests on, ACKed once it is stored. */
struct judged_acks {
        struct matches *reg;
        size_t n;
        struct match_held v[];
};

static void on_pad_input_done(void *userdata, struct match *m, int r, const struct eng_input *in,
                              const struct eng_out *out, const char *error) {
        struct judged_acks *acks = userdata;

        held_end(acks->reg, acks->v, acks->n, r == 0);
        free(acks);
        if (r < 0)
                log_warning("match %" PRId64 ": judged input %" PRIu64 " could not be stored: %s", m->id, in->seq,
                            error);
        else if (out->refusal != ENG_ACCEPTED)
                log_info("match %" PRId64 ": the engine refused the judged %s for window %" PRIu32 " (%s)", m->id,
                         in->kind == ENG_IN_TIE ? "tie" : "call",
                         in->kind == ENG_IN_TIE ? in->tie.window : in->call.window, eng_refusal_name(out->refusal));
}

/* The call a seat's button makes (matches.h, "Buttons"): 0 or -EINVAL. */
static int call_of(const struct match *m, unsigned seat, unsigned button, int *ret_call) {
        if (!m->mapped[seat])
                return m->game->call_of_button(button, ret_call);
        if (button >= MATCH_BUTTONS || m->calls[seat][button] < 0)
                return -EINVAL;
        *ret_call = m->calls[seat][button];
        return 0;
}

/* Turns the judge's decision into the engine input it stands for and
 * submits it.  Times go from host time to match time.  The window's held
 * presses go with it, to be ACKed once it is stored. */
static void submit_decision(struct match *m, const struct judge_result *res) {
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        struct judged_acks *acks;
        char who[MATCH_WHO_MAX];
        int r;

        acks = malloc(sizeof *acks + m->n_held * sizeof acks->v[0]);
        if (!acks) {
                log_warning("match %" PRId64 ": out of memory: the decision of window %" PRIu32 " is lost", m->id,
                            m->judge_window);
                held_end(m->reg, m->held, m->n_held, false);
                m->n_held = 0;
                return;
        }
        acks->reg = m->reg;
        acks->n = m->n_held;
        memcpy(acks->v, m->held, m->n_held * sizeof acks->v[0]);
        m->n_held = 0;

        /* Every held press that is not the winner or in the tie made no input. */
        m->ignored_presses += res->n_refused + (res->n_counted - res->n_first);
        if (res->outcome == JUDGE_WINNER) {
                const struct judge_press *p = &res->first[0];
                int call;

                /* Checked on arrival: only presses of buttons that make a call are judged. */
                if (call_of(m, p->seat, p->button, &call) < 0) {
                        held_end(acks->reg, acks->v, acks->n, true);
                        free(acks);
                        return;
                }
                in.seat = p->seat;
                in.kind = ENG_IN_CALL;
                in.call.window = m->judge_window;
                in.call.call = call;
                in.call.press_us = p->time_us + m->clock_offset_us;
                snprintf(who, sizeof who, "pad %s", m->pads[p->seat]);
        } else {
                in.kind = ENG_IN_TIE;
                in.tie.window = m->judge_window;
                for (size_t i = 0; i < res->n_first; i++)
                        in.tie.seats |= 1u << res->first[i].seat;
                in.tie.press_us = res->earliest_us + m->clock_offset_us;
                snprintf(who, sizeof who, "pads");
        }
        int64_t id = m->id;
        uint32_t window = m->judge_window;
        r = match_submit(m, &in, MATCH_SOURCE_PAD, who, on_pad_input_done, acks);
        if (r < 0) {
                /* not stored: the pads send these presses again */
                held_end(acks->reg, acks->v, acks->n, false);
                free(acks);
                /* -EPROTO: the match went to a referee and m is gone. */
                if (r != -EPROTO)
                        log_warning("match %" PRId64 ": the judged %s for window %" PRIu32 " is lost: %s", id,
                                    in.kind == ENG_IN_TIE ? "tie" : "call", window, strerror(-r));
        }
}

/* Asks the judge for its decision at the real now: presses reach it as
 * soon as they are received (matches.h, "Pads"). */
static void judge_check(struct match *m) {
        struct judge_result res;
        int64_t now = now_usec(), wake;
        int r;

        if (!m->judging)
                return;
        evtimer_del(m->judge_timer);
        r = judge_poll(&m->judge, now, &wake, &res);
        if (r < 0)
                return;
        if (r == JUDGE_PENDING) {
                if (wake != JUDGE_NEVER) {
                        struct timeval tv = usec_to_timeval(wake > now ? wake - now : 0);
                        evtimer_add(m->judge_timer, &tv);
                }
                return;
        }
        log_debug("match %" PRId64 ": window %" PRIu32 " decided %" PRId64 " µs after its first press "
                  "(settle window %" PRId64 " µs, decision time %" PRId64 " µs after the press, polled %" PRId64
                  " µs after it)", m->id, m->judge_window, now - res.earliest_us, res.settle_us,
                  res.decided_us - res.earliest_us, now - res.decided_us);
        submit_decision(m, &res);
}

static void on_judge_timer(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        judge_check(userdata);
}

/* The running or paused match with this pad at a seat. */
static struct match *match_of_pad(struct matches *reg, const char *pad, int *ret_seat) {
        for (struct match *m = reg->list; m; m = m->next) {
                enum eng_status st;

                if (m->aborted || m->stale)
                        continue;
                st = m->game->status(m->state);
                if (st != ENG_STATUS_RUNNING && st != ENG_STATUS_PAUSED)
                        continue;
                for (unsigned s = 0; s < m->n_seats; s++)
                        if (strcmp(m->pads[s], pad) == 0) {
                                *ret_seat = (int) s;
                                return m;
                        }
        }
        return NULL;
}

bool matches_pad_received(struct matches *reg, const struct pad_press *press) {
        enum judge_reason reason;
        struct match *m;
        int seat, call, r;

        m = match_of_pad(reg, press->pad->id, &seat);
        if (!m) {
                reg->unassigned_presses++;
                return false;
        }
        /* A button that makes no call never reaches the judge: it neither
         * wins a window nor counts as a false start. */
        if (call_of(m, (unsigned) seat, press->button, &call) < 0) {
                m->ignored_presses++;
                log_debug("match %" PRId64 ": pad %s button %u is no call: ignored", m->id, press->pad->id,
                          press->button);
                return false;
        }
        struct judge_press jp = {
                .id = press->received_no,
                .time_us = press->time_usec,
                .uncertainty_us = press->uncertainty_usec,
                .received_us = press->received_usec,
                .seat = (uint8_t) seat,
                .button = press->button,
                .receive_time = press->clock_fallback,
        };
        r = judge_press(&m->judge, &jp, &reason);
        if (r < 0 || reason != JUDGE_HELD || m->n_held == JUDGE_MAX_PRESSES) {
                m->ignored_presses++;
                log_debug("match %" PRId64 ": press %" PRIu64 " from pad %s not judged: %s", m->id, press->received_no,
                          press->pad->id, r < 0 ? strerror(-r) : judge_reason_name(reason));
                judge_check(m);
                return false;
        }
        m->held[m->n_held++] = (struct match_held) { .pad = press->pad, .event_no = press->event_no };
        judge_check(m);
        return true;
}

uint64_t matches_unassigned_presses(const struct matches *reg) {
        return reg->unassigned_presses;
}

void matches_set_pads(struct matches *reg, struct padbus *pads) {
        reg->pads = pads;
}

/* ---- observers ---------------------------------------------------------- */

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

struct match *matches_find(struct matches *reg, int64_t id) {
        for (struct match *m = reg->list; m; m = m->next)
                if (m->id == id)
                        return m;
        return NULL;
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
