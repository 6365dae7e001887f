/* engine/log.c — undo, confirmation and replay; the rules are in log.h. */
#include "engine/log.h"

#include <errno.h>
#include <string.h>

static bool in_effect(const struct eng_record *r) {
        return r->refusal == ENG_ACCEPTED && r->voided_by == 0;
}

/* The last accepted input, for the seq and time checks of the log's own
 * inputs (the engine checks its own). */
static const struct eng_record *last_accepted(const struct eng_record *log, size_t n) {
        while (n-- > 0)
                if (log[n].refusal == ENG_ACCEPTED)
                        return &log[n];
        return NULL;
}

static bool confirmed(const struct eng_record *log, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (log[i].in.kind == ENG_IN_CONFIRM && in_effect(&log[i]))
                        return true;
        return false;
}

enum eng_log_phase eng_log_phase(const struct eng_setup *setup, const void *state, const struct eng_record *log,
                                 size_t n) {
        if (setup->game->status(state) != ENG_STATUS_FINISHED)
                return ENG_LOG_OPEN;
        if (!setup->confirm || confirmed(log, n))
                return ENG_LOG_FINAL;
        return ENG_LOG_PROVISIONAL;
}

/* The operator's pause as it stood after log[0..n) was applied: the last
 * accepted PAUSE, RESUME or START decides, as nothing else sets or lifts
 * it (a void leaves it as it was: keep_pause()). */
static bool pause_on(const struct eng_record *log, size_t n) {
        while (n-- > 0) {
                const struct eng_record *r = &log[n];

                if (r->refusal != ENG_ACCEPTED)
                        continue;
                if (r->in.kind == ENG_IN_PAUSE)
                        return true;
                if (r->in.kind == ENG_IN_RESUME || r->in.kind == ENG_IN_START)
                        return false;
        }
        return false;
}

/* A void is neither a pause nor a resume (log.h): the rewound match is
 * paused or resumed to be as the match was when void v came, before the
 * engine sees v.  That input comes at v's time with the seq of v's target:
 * after every input the rewound match holds, before v.  What it shows is
 * left out of out (the engine's answer to v says what people see now); a
 * match that is not running (not started) is left as it is. */
static int keep_pause(const struct eng_setup *setup, void *state, bool on, const struct eng_input *v,
                      struct eng_out *out) {
        const struct eng_game *g = setup->game;
        enum eng_status status = g->status(state);
        struct eng_input in;
        int r;

        if (status != ENG_STATUS_RUNNING && status != ENG_STATUS_PAUSED)
                return 0;
        if (on == (status == ENG_STATUS_PAUSED))
                return 0;
        memset(&in, 0, sizeof in);
        in.seq = (uint64_t) v->void_.target;
        in.time_us = v->time_us;
        in.seat = ENG_SEAT_TABLE;
        in.kind = on ? ENG_IN_PAUSE : ENG_IN_RESUME;
        r = g->apply(state, &in, out);
        if (r < 0)
                return r;
        return out->refusal == ENG_ACCEPTED ? 0 : -EPROTO;
}

int eng_log_rebuild(const struct eng_setup *setup, void *state, const struct eng_record *log, size_t n,
                    uint64_t before) {
        const struct eng_game *g = setup->game;
        struct eng_out out;
        int r;

        r = g->create(state, setup->cfg, setup->data, setup->n_seats, setup->seed);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && log[i].in.seq < before; i++) {
                /* Refused inputs changed nothing, and a confirm changes no
                 * engine state: both are skipped.  So are voided inputs: a
                 * void in effect is reached with exactly what it undid left
                 * out (log.h: nothing before a void in effect was voided
                 * after it), and the engine takes it as it did live. */
                if (!in_effect(&log[i]) || log[i].in.kind == ENG_IN_CONFIRM)
                        continue;
                if (log[i].in.kind == ENG_IN_VOID) {
                        r = keep_pause(setup, state, pause_on(log, i), &log[i].in, &out);
                        if (r < 0)
                                return r;
                }
                r = g->apply(state, &log[i].in, &out);
                if (r < 0)
                        return r;
                if (out.refusal != ENG_ACCEPTED)
                        return -EPROTO;
        }
        return 0;
}

/* The checks a void or a confirm passes before anything changes. */
static enum eng_refusal check_own(const struct eng_setup *setup, const void *state, const struct eng_record *log,
                                  size_t n, const struct eng_input *in) {
        const struct eng_record *last = last_accepted(log, n);
        enum eng_log_phase phase = eng_log_phase(setup, state, log, n);

        if (last && in->seq <= last->in.seq)
                return ENG_REFUSED_SEQ;
        if (in->time_us < -ENG_TIME_LIMIT_US || in->time_us > ENG_TIME_LIMIT_US)
                return ENG_REFUSED_INVALID;
        if (last && in->time_us < last->in.time_us)
                return ENG_REFUSED_TIME;
        if (in->kind == ENG_IN_CONFIRM) {
                if (phase == ENG_LOG_FINAL)
                        return setup->confirm ? ENG_REFUSED_FINISHED : ENG_REFUSED_STATE;
                return phase == ENG_LOG_PROVISIONAL ? ENG_ACCEPTED : ENG_REFUSED_STATE;
        }
        if (phase == ENG_LOG_FINAL)
                return ENG_REFUSED_FINISHED;
        for (size_t i = 0; i < n; i++)
                if (log[i].in.seq == (uint64_t) in->void_.target)
                        return in_effect(&log[i]) && log[i].in.kind != ENG_IN_VOID &&
                               log[i].in.kind != ENG_IN_CONFIRM ? ENG_ACCEPTED : ENG_REFUSED_INVALID;
        return ENG_REFUSED_INVALID;
}

/* How many inputs a void of target voids. */
static int64_t void_count(const struct eng_record *log, size_t n, uint64_t target) {
        int64_t count = 0;

        for (size_t i = 0; i < n; i++)
                if (log[i].in.seq >= target && in_effect(&log[i]))
                        count++;
        return count;
}

int eng_log_apply(const struct eng_setup *setup, void *state, const struct eng_record *log, size_t n,
                  const struct eng_input *in, struct eng_out *out) {
        const struct eng_game *g = setup->game;
        struct eng_output *o;
        int64_t count;
        int r;

        if (!setup || !state || !in || !out)
                return -EINVAL;
        if (in->kind != ENG_IN_VOID && in->kind != ENG_IN_CONFIRM) {
                if (eng_log_phase(setup, state, log, n) == ENG_LOG_PROVISIONAL) {
                        /* Waiting for the referee: only a void or a confirm. */
                        eng_out_reset(out, g->wake_us(state));
                        out->refusal = ENG_REFUSED_FINISHED;
                        return 0;
                }
                return g->apply(state, in, out);
        }
        eng_out_reset(out, g->wake_us(state));
        out->refusal = check_own(setup, state, log, n, in);
        if (out->refusal != ENG_ACCEPTED)
                return 0;
        if (in->kind == ENG_IN_CONFIRM) {
                eng_out_push(out, &eng_ev_result_confirmed, ENG_SEAT_TABLE, in->time_us);
                return 0;
        }

        count = void_count(log, n, (uint64_t) in->void_.target);
        r = eng_log_rebuild(setup, state, log, n, (uint64_t) in->void_.target);
        if (r < 0)
                return r;
        r = keep_pause(setup, state, pause_on(log, n), in, out);
        if (r < 0)
                return r;
        r = g->apply(state, in, out);
        if (r < 0)
                return r;
        if (out->refusal != ENG_ACCEPTED)
                return -EPROTO;         /* an engine must take a void after the rewind */
        if (out->n >= ENG_MAX_OUTPUTS)
                return -EPROTO;
        /* The framework's event comes first, then what the engine did. */
        memmove(&out->v[1], &out->v[0], out->n * sizeof out->v[0]);
        out->n++;
        o = &out->v[0];
        memset(o, 0, sizeof *o);
        o->def = &eng_ev_inputs_voided;
        o->seat = ENG_SEAT_TABLE;
        o->at_us = in->time_us;
        o->voided.target = in->void_.target;
        o->voided.count = count;
        return 0;
}

size_t eng_log_mark_voided(struct eng_record *log, size_t n) {
        const struct eng_record *v = &log[n];
        size_t count = 0;

        if (v->in.kind != ENG_IN_VOID || v->refusal != ENG_ACCEPTED)
                return 0;
        for (size_t i = 0; i < n; i++)
                if (log[i].in.seq >= (uint64_t) v->in.void_.target && in_effect(&log[i])) {
                        log[i].voided_by = v->in.seq;
                        count++;
                }
        return count;
}

int eng_replay(const struct eng_setup *setup, void *state, struct eng_record *log, size_t n, size_t *ret_refused) {
        size_t refused = 0;
        struct eng_out out;
        int r;

        if (!setup || !state || (!log && n))
                return -EINVAL;
        r = setup->game->create(state, setup->cfg, setup->data, setup->n_seats, setup->seed);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                log[i].voided_by = 0;
        for (size_t i = 0; i < n; i++) {
                r = eng_log_apply(setup, state, log, i, &log[i].in, &out);
                if (r < 0)
                        return r;
                log[i].refusal = out.refusal;
                if (out.refusal != ENG_ACCEPTED)
                        refused++;
                eng_log_mark_voided(log, i);
        }
        if (ret_refused)
                *ret_refused = refused;
        return 0;
}
