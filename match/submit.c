/* match/submit.c — the write-then-publish path of an input, previews, and
 * the match's timers (match.h, "Write, then publish", "The spool"). */
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
#include "store/spool_writer.h"
#include "store/store.h"

/* A timer that fell due while the database was unreachable tries again
 * after this long. */
#define MATCH_TIMER_RETRY_US    (1 * USEC_PER_SEC)
/* Decimal int64 and its NUL. */
#define NUM_MAX                 24
/* "{1,2,…}": the seqs a void voids, as an SQL array; each up to 19 digits
 * and a comma. */
#define SEQ_TEXT                21

/* One input on its way to the database. */
struct match_write {
        struct match_write *next;       /* among the match's held writes */
        struct match *m;
        struct eng_input in;
        struct eng_out out;
        match_done_fn done;
        void *userdata;
        int64_t made_usec;              /* when it was submitted, for the debug log */
        char *record;                   /* its spool record, should the database's write fail; a held
                                         * write's parameters too */
        bool same_state;                /* a held write's row.same_state (not in the record) */
};

bool matches_must_spool(const struct matches *reg) {
        return reg->spool && (store_get_state(reg->store) != STORE_READY || !spool_empty(reg->spool) ||
                              reg->flushing);
}

void matches_spool_failed(struct matches *reg, const char *what, int r) {
        log_error("the spool failed %s: %s; stopping, since no input may be acknowledged after it",
                  what, strerror(-r));
        if (!reg->broken && reg->fatal) {
                reg->broken = true;
                reg->fatal(reg->fatal_userdata);
        }
        reg->broken = true;
}

void match_hand_to_referee(struct match *m, const char *reason) {
        char id[NUM_MAX];

        log_warning("match %" PRId64 " needs a referee and is not run: %s", m->id, reason);
        snprintf(id, sizeof id, "%" PRId64, m->id);
        match_store_needs_referee(m->reg->store, id, reason);
        match_release(m);
}

void match_note_requests(struct match *m, const struct eng_out *out) {
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];

                if (o->def == &eng_req_window_open) {
                        m->window_open = true;
                        m->window = (uint32_t) o->window.window;
                        m->window_open_us = o->at_us;
                        m->window_seats = (uint32_t) o->window.seats;
                } else if (o->def == &eng_req_window_close && o->window.window == m->window) {
                        m->window_open = false;
                }
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
                int64_t durable = now_usec();

                MATCH_NOTIFY(m->reg, published, m, &w->in, &w->out);
                match_send_feedback(m, &w->out);
                /* logged after the publish, so that the log's own write is
                 * not in it (tests/bench/bench_e2e.sh reads both figures) */
                log_debug("match %" PRId64 ": input %" PRIu64 " durable %" PRId64 " µs after it was made, "
                          "published in %" PRId64 " µs", m->id, w->in.seq, durable - w->made_usec,
                          now_usec() - durable);
        }
        if (w->done)
                w->done(w->userdata, m, ok ? 0 : -EIO, &w->in, &w->out, error);
        if (m->released && m->pending == 0)
                match_free(m);
        free(w->record);
        free(w);
}

static void on_input_spooled(void *userdata, int r);
static void write_held(struct match *m);

/* The database's write failed (the connection went under it, or the
 * statement was cancelled): the input goes to the spool like any other
 * written while the database is away, and the match goes on.  Every write
 * queued after it fails too, or is already stored (the flush's INSERT is
 * idempotent, and a match's row follows its newest input only), so the
 * spool keeps each match's inputs in order. */
static void on_input_stored(void *userdata, const PGresult *res, const char *error) {
        struct match_write *w = userdata;
        struct match *m = w->m;
        struct matches *reg = m->reg;
        bool held = m->held_writes != NULL;     /* then pending > 1: m outlives input_written */
        int r;

        m->writing = false;
        if (res || !reg->spool || reg->broken || !w->record) {
                input_written(w, res != NULL, error);
        } else if ((r = spool_writer_append(reg->writer, w->record, strlen(w->record), on_input_spooled, w)) < 0) {
                if (r != -EINVAL && r != -ENOMEM)
                        matches_spool_failed(reg, "to take an input", r);
                input_written(w, false, error);
        } else {
                log_full_errno(reg->spooled_after_failure++ ? LOG_DEBUG : LOG_WARNING, 0,
                               "match %" PRId64 ": input %" PRIu64 " could not be stored (%s); it goes to the "
                               "spool, and the match goes on", m->id, w->in.seq, error);
        }
        if (held)
                write_held(m);
}

/* Queues a held write where the one before it left room: the spool when
 * anything is there or on its way (the one before it, spooled, among
 * them), else the database.  0, or a negative errno: not queued. */
static int write_record(struct match *m, struct match_write *w) {
        struct matches *reg = m->reg;
        struct match_store_input row;
        json_t *root;
        int r;

        if (matches_must_spool(reg)) {
                if (reg->broken)
                        return -EIO;
                r = spool_writer_append(reg->writer, w->record, strlen(w->record), on_input_spooled, w);
                if (r < 0 && r != -EINVAL && r != -ENOMEM)
                        matches_spool_failed(reg, "to take an input", r);
                return r;
        }
        if (store_get_state(reg->store) != STORE_READY)
                return -ENOTCONN;
        r = match_store_input_from_record(w->record, strlen(w->record), &row, &root);
        if (r < 0)
                return r;
        row.same_state = w->same_state;
        r = match_store_insert_input(reg->store, &row, on_input_stored, w);
        json_decref(root);
        if (r == 0)
                m->writing = true;
        return r;
}

/* The write before them has left the lane: the held writes follow, in
 * order, until one is on the lane again.  One that cannot be queued, or
 * any after the match went stale, is lost like a failed write (the match
 * is rebuilt from the database).  m may be freed by the last one. */
static void write_held(struct match *m) {
        while (m->held_writes && !m->writing) {
                struct match_write *w = m->held_writes;
                bool last;
                int r = -ENOTCONN;

                m->held_writes = w->next;
                w->next = NULL;
                last = !m->held_writes;
                if (!m->stale)
                        r = write_record(m, w);
                if (r < 0) {
                        input_written(w, false, m->stale ? "an input before it could not be stored"
                                                         : "it could be neither stored nor spooled");
                        if (last)
                                return;
                }
        }
}

/* The worker has fsync'd the input's record (r 0), or the spool failed:
 * then the input is not durable, and nothing after it will be. */
static void on_input_spooled(void *userdata, int r) {
        struct match_write *w = userdata;
        struct matches *reg = w->m->reg;
        char why[MATCH_REASON_MAX];

        if (r < 0) {
                matches_spool_failed(reg, "to take an input", r);
                snprintf(why, sizeof why, "the spool failed: %s", strerror(-r));
                input_written(w, false, why);
                return;
        }
        input_written(w, true, NULL);
        /* The flush may have been waiting for this write to land. */
        matches_flush_next(reg);
}

/* Hands an input's record to the spool's writer.  0 (on_input_spooled
 * follows), -EINVAL (it cannot be a record), or -EIO (the spool failed;
 * logged, and the daemon stops). */
static int spool_input(struct matches *reg, const struct match_store_input *row, struct match_write *w) {
        char *text = match_store_input_to_record(row);
        int r;

        if (!text)
                return -ENOMEM;
        r = spool_writer_append(reg->writer, text, strlen(text), on_input_spooled, w);
        free(text);
        if (r == -EINVAL || r == -ENOMEM)
                return r;
        if (r < 0) {
                matches_spool_failed(reg, "to take an input", r);
                return -EIO;
        }
        return 0;
}

/* The reaction time of an accepted input: the first event of it that has
 * one (a field "reaction_us"), for the log's column. */
static bool reaction_of(const struct eng_out *out, int64_t *ret) {
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_event_def *d = out->v[i].def;
                int off = eng_fields_offset(d->fields, d->n_fields, "reaction_us");

                if (off >= 0 && out->v[i].v[off] != ENG_ABSENT) {
                        *ret = out->v[i].v[off];
                        return true;
                }
        }
        return false;
}

static const char *source_name(enum match_source s) {
        switch (s) {
        case MATCH_SOURCE_REFEREE:  return "referee";
        case MATCH_SOURCE_OPERATOR: return "operator";
        case MATCH_SOURCE_TIMER:    return "timer";
        case MATCH_SOURCE_PAD:      return "pad";
        case MATCH_SOURCE_SEAT:     return "seat";
        }
        return "referee";
}

/* Numbers and stamps in, and puts in what a person may leave out: a call's
 * or tie's window (the open one) and press times (now). */
static void stamp(struct match *m, struct eng_input *in) {
        int64_t now = match_now(m);

        in->seq = m->last_seq + 1;
        in->time_us = now > m->last_us ? now : m->last_us;
        switch (in->kind) {
        case ENG_IN_CALL:
                if (in->call.window == ENG_ABSENT)
                        in->call.window = m->window;
                if (in->call.press_us == ENG_ABSENT)
                        in->call.press_us = in->time_us;
                break;
        case ENG_IN_TIE:
                if (in->tie.window == ENG_ABSENT)
                        in->tie.window = m->window;
                if (in->tie.press_us == ENG_ABSENT)
                        in->tie.press_us = in->time_us;
                break;
        case ENG_IN_PRESS:
                if (in->press.press_us == ENG_ABSENT)
                        in->press.press_us = in->time_us;
                if (in->press.received_us == ENG_ABSENT)
                        in->press.received_us = in->press.press_us;
                break;
        default:
                break;
        }
}

/* The state name after in, as the matches row keeps it. */
static const char *state_after(const struct match *m, const void *state, const struct eng_input *in,
                               const struct eng_out *out) {
        enum eng_log_phase phase;

        if (in->kind == ENG_IN_CONFIRM && out->refusal == ENG_ACCEPTED)
                return "finished";
        phase = eng_log_phase(&m->setup, state, m->log, m->n_log);
        if (phase == ENG_LOG_PROVISIONAL)
                return "provisional";
        if (phase == ENG_LOG_FINAL)
                return "finished";
        return match_json_status_name(m->game->status(state));
}

/* The seqs an accepted void voids, as "{4,5,7}". */
static char *voided_text(const struct match *m, const struct eng_input *in) {
        size_t len = 3 + m->n_log * SEQ_TEXT, at;
        char *text = malloc(len);

        if (!text)
                return NULL;
        at = (size_t) snprintf(text, len, "{");
        for (size_t i = 0; i < m->n_log; i++) {
                const struct eng_record *r = &m->log[i];

                if (r->in.seq >= (uint64_t) in->void_.target && r->refusal == ENG_ACCEPTED && !r->voided_by)
                        at += (size_t) snprintf(text + at, len - at, "%s%" PRIu64, at > 1 ? "," : "", r->in.seq);
        }
        snprintf(text + at, len - at, "}");
        return text;
}

int match_preview(struct match *m, struct eng_input *in, struct eng_out *out, void *preview) {
        int r;

        if (m->aborted)
                return -ESHUTDOWN;
        if (m->stale)
                return -ENOTCONN;
        stamp(m, in);
        memcpy(preview, m->state, m->game->state_size);
        r = eng_log_apply(&m->setup, preview, m->log, m->n_log, in, out);
        return r < 0 ? -EPROTO : 0;
}

/* The input is tried on scratch so that a write that cannot even be queued
 * leaves the match as it was; once queued, scratch becomes the state. */
int match_submit(struct match *m, struct eng_input *in, enum match_source source, const char *who,
                 const char *reason, match_done_fn done, void *userdata) {
        char id[NUM_MAX], seq[NUM_MAX], time_s[NUM_MAX], seat[NUM_MAX], reaction[NUM_MAX], hash[17];
        json_t *input_json, *result_json = NULL;
        char *input_text = NULL, *result_text = NULL, *voided = NULL;
        const char *state, *state_before;
        struct match_write *w;
        int64_t reaction_us;
        bool spooled, accepted_void;
        int r;

        if (m->aborted)
                return -ESHUTDOWN;
        spooled = matches_must_spool(m->reg);
        if (m->stale || (!spooled && store_get_state(m->reg->store) != STORE_READY))
                return -ENOTCONN;
        if (spooled && m->reg->broken)
                return -EIO;
        w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        stamp(m, in);
        memcpy(m->scratch, m->state, m->game->state_size);
        r = eng_log_apply(&m->setup, m->scratch, m->log, m->n_log, in, &w->out);
        if (r < 0) {
                free(w);
                match_hand_to_referee(m, "the engine refused to go on (internal error)");
                return -EPROTO;
        }
        w->m = m;
        w->in = *in;
        w->made_usec = now_usec();
        w->done = done;
        w->userdata = userdata;
        accepted_void = in->kind == ENG_IN_VOID && w->out.refusal == ENG_ACCEPTED;

        state_before = match_state_name(m);
        state = state_after(m, m->scratch, in, &w->out);
        if (strcmp(state, "provisional") == 0 || strcmp(state, "finished") == 0) {
                struct eng_result res;

                if (m->game->result(m->scratch, &res) == 0)
                        result_json = match_json_result(m->game, m->scratch, &res);
                result_text = result_json ? json_dumps(result_json, JSON_COMPACT) : NULL;
        }
        if (accepted_void)
                voided = voided_text(m, in);
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
        const struct eng_input_def *def = eng_input_def_of(m->game, in);
        struct match_store_input row = {
                .match_id = id, .seq = seq, .time_us = time_s,
                .seat = in->seat == ENG_SEAT_TABLE ? NULL : seat,
                .kind = def ? def->name : NULL, .input = input_text, .hash = hash,
                .refusal = w->out.refusal == ENG_ACCEPTED ? NULL : eng_refusal_name(w->out.refusal),
                .reaction_us = has_reaction ? reaction : NULL,
                .source = source_name(source), .who = who, .reason = reason,
                .voided = voided, .state = state, .result = result_text,
                .same_state = state && strcmp(state, state_before) == 0,
        };
        /* The log takes the record first: once the write is queued, nothing
         * may fail. */
        if (!input_text || !row.kind || !state || (accepted_void && !voided))
                r = -EINVAL;
        else
                r = match_log_push(m, in, w->out.refusal);
        if (r == 0) {
                /* Behind an input of its own on the lane, it is held (match.h,
                 * "One input of a match at a time on the lane"). */
                bool hold = m->writing;

                if ((hold || (!spooled && m->reg->spool)) && !(w->record = match_store_input_to_record(&row))) {
                        r = -ENOMEM;
                } else if (hold) {
                        struct match_write **tail = &m->held_writes;

                        while (*tail)
                                tail = &(*tail)->next;
                        w->same_state = row.same_state;
                        *tail = w;
                } else if (spooled) {
                        r = spool_input(m->reg, &row, w);
                } else {
                        r = match_store_insert_input(m->reg->store, &row, on_input_stored, w);
                        m->writing = r == 0;
                }
                if (r < 0)
                        m->n_log--;
        }
        json_decref(input_json);
        json_decref(result_json);
        free(input_text);
        free(result_text);
        free(voided);
        if (r < 0) {
                free(w->record);
                free(w);
                return r;
        }
        if (accepted_void) {
                eng_log_mark_voided(m->log, m->n_log - 1);
                /* The runtime's window was the voided inputs' world: the
                 * engine's outputs open the one that counts now. */
                m->window_open = false;
        }
        m->pending++;
        memcpy(m->state, m->scratch, m->game->state_size);
        m->last_seq = in->seq;
        m->last_us = in->time_us;
        match_note_requests(m, &w->out);
        match_judge_follow(m);
        match_arm_timer(m);
        return 0;
}

/* ---- timers ---------------------------------------------------------------- */

/* Whether the game turns pad presses into timed press inputs. */
static bool takes_timed_presses(const struct eng_game *g) {
        for (size_t i = 0; i < g->n_routes; i++)
                if (g->routes[i].kind == ENG_ROUTE_PRESS)
                        return true;
        return false;
}

/* When the pending wake-up is due, in match time: the engine's, or a
 * provisional result's confirm timeout (from the input that finished it:
 * the last accepted one); ENG_NEVER for none.  A game that takes timed
 * presses gets its wake-up once the pad driver's settle window has passed
 * after it: every press made before the deadline has then been handed over
 * (padbus_effective_settle_us), so the log's order puts it before the
 * timer (a slap pressed just in time is in time, whatever the window). */
static int64_t due_us(const struct match *m, bool *ret_confirm) {
        enum eng_log_phase phase = match_phase(m);
        int64_t wake;

        *ret_confirm = false;
        if (phase == ENG_LOG_OPEN) {
                wake = m->game->wake_us(m->state);
                if (wake != ENG_NEVER && m->reg->pads && takes_timed_presses(m->game))
                        wake += padbus_effective_settle_us(m->reg->pads);
                return wake;
        }
        if (phase == ENG_LOG_PROVISIONAL && m->confirm_timeout_us > 0)
                for (size_t i = m->n_log; i-- > 0;)
                        if (m->log[i].refusal == ENG_ACCEPTED) {
                                *ret_confirm = true;
                                return m->log[i].in.time_us + m->confirm_timeout_us;
                        }
        return ENG_NEVER;
}

static void on_timer(evutil_socket_t fd, short what, void *userdata) {
        struct match *m = userdata;
        bool confirm;
        int64_t wake = due_us(m, &confirm);
        struct eng_input in = { .seat = ENG_SEAT_TABLE, .kind = confirm ? ENG_IN_CONFIRM : ENG_IN_TIMER };
        int r;

        (void) fd, (void) what;
        if (wake == ENG_NEVER)
                return;
        /* libevent may fire a hair before the wake-up in match time (µs
         * rounding): wait for the rest rather than be refused as not due. */
        if (match_now(m) < wake) {
                match_arm_timer(m);
                return;
        }
        r = match_submit(m, &in, MATCH_SOURCE_TIMER, "timer", confirm ? "the confirm timeout passed" : NULL,
                         NULL, NULL);
        if (r == -ENOTCONN && !m->stale) {
                struct timeval tv = usec_to_timeval(MATCH_TIMER_RETRY_US);
                evtimer_add(m->timer, &tv);
        } else if (r < 0 && r != -ENOTCONN && r != -EPROTO) {
                log_warning("match %" PRId64 ": timer input failed: %s", m->id, strerror(-r));
        }
}

void match_arm_timer(struct match *m) {
        bool confirm;
        int64_t wake = due_us(m, &confirm), delay;
        struct timeval tv;

        evtimer_del(m->timer);
        if (wake == ENG_NEVER || m->aborted || m->stale)
                return;
        delay = wake - match_now(m);
        tv = usec_to_timeval(delay > 0 ? delay : 0);
        evtimer_assign(m->timer, loop_base(m->reg->loop), on_timer, m);
        evtimer_add(m->timer, &tv);
}
