/* match/presses.c — pad presses: the game's routes, the first-press judge,
 * timed presses, named inputs from a keypad, their ACKs, and feedback to
 * the pads (match.h, "Pads", "ACKs", "Buttons"). */
#include "match/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/time.h"
#include "hardware/padbus.h"

/* LIGHT and BUZZ carry their duration in 16 bits (docs/protocol.md
 * section 6). */
#define PAD_DURATION_MAX_MS     UINT16_MAX

/* ---- ACKs ------------------------------------------------------------------ */

void match_held_end(struct matches *reg, struct match_held *h, size_t n, bool durable) {
        for (size_t i = 0; i < n; i++)
                if (reg->pads)
                        padbus_ack(reg->pads, h[i].pad, h[i].event_no, durable);
}

/* The presses an input rests on, ACKed once it is stored. */
struct press_acks {
        struct matches *reg;
        size_t n;
        struct match_held v[];
};

static struct press_acks *acks_new(struct matches *reg, const struct match_held *h, size_t n) {
        struct press_acks *acks = malloc(sizeof *acks + n * sizeof acks->v[0]);

        if (!acks)
                return NULL;
        acks->reg = reg;
        acks->n = n;
        memcpy(acks->v, h, n * sizeof acks->v[0]);
        return acks;
}

static void on_pad_input_done(void *userdata, struct match *m, int r, const struct eng_input *in,
                              const struct eng_out *out, const char *error) {
        struct press_acks *acks = userdata;

        match_held_end(acks->reg, acks->v, acks->n, r == 0);
        free(acks);
        if (r < 0)
                log_warning("match %" PRId64 ": pad input %" PRIu64 " could not be stored: %s", m->id, in->seq, error);
        else if (out->refusal != ENG_ACCEPTED)
                log_info("match %" PRId64 ": the engine refused the pad's %s (%s)", m->id,
                         eng_input_def_of(m->game, in)->name, eng_refusal_name(out->refusal));
}

/* Submits a pad's input with the presses it rests on; they are ACKed once
 * it is stored, or forgotten (the pads resend) when it cannot be. */
static void submit_from_pads(struct match *m, struct eng_input *in, const char *who, struct press_acks *acks) {
        int64_t id = m->id;
        int r;

        r = match_submit(m, in, MATCH_SOURCE_PAD, who, NULL, on_pad_input_done, acks);
        if (r < 0) {
                match_held_end(acks->reg, acks->v, acks->n, false);
                free(acks);
                /* -EPROTO: the match went to a referee and m is gone. */
                if (r != -EPROTO)
                        log_warning("match %" PRId64 ": a pad's input is lost: %s", id, strerror(-r));
        }
}

/* ---- the judge ------------------------------------------------------------- */

void match_judge_follow(struct match *m) {
        int r;

        if (m->judging && (!m->window_open || m->judge_window != m->window)) {
                judge_close(&m->judge);
                evtimer_del(m->judge_timer);
                m->judging = false;
                /* closed undecided: its presses made no input */
                match_held_end(m->reg, m->held, m->n_held, true);
                m->n_held = 0;
        }
        if (!m->window_open || m->judging || m->aborted || m->stale)
                return;
        r = judge_open(&m->judge, m->window_open_us - m->clock_offset_us, m->window_seats & JUDGE_ALL_SEATS);
        if (r < 0) {
                log_warning("match %" PRId64 ": the judge cannot open window %" PRIu32 ": %s", m->id, m->window,
                            strerror(-r));
                return;
        }
        m->judging = true;
        m->judge_window = m->window;
}

/* The call a seat's button makes (match.h, "Buttons"): 0 or -EINVAL. */
static int call_of(const struct match *m, int seat, enum eng_pad_role role, unsigned button, int *ret_call) {
        const struct match_seat *ms = &m->seats[seat];
        const struct eng_route *rt;

        if (role == ENG_ROLE_BUTTONS && ms->mapped) {
                if (button >= MATCH_BUTTONS || ms->calls[button] < 0)
                        return -EINVAL;
                *ret_call = ms->calls[button];
                return 0;
        }
        rt = eng_route_find(m->game, role, button);
        if (!rt || rt->kind != ENG_ROUTE_CALL)
                return -EINVAL;
        *ret_call = rt->call;
        return 0;
}

/* The role of the pad that made the judge's press id (its received_no). */
static enum eng_pad_role held_role(const struct match *m, uint64_t id) {
        for (size_t i = 0; i < m->n_held; i++)
                if (m->held[i].received_no == id)
                        return m->held[i].role;
        return ENG_ROLE_BUTTONS;
}

/* Turns the judge's decision into the engine input it stands for and
 * submits it.  Times go from host time to match time.  The window's held
 * presses go with it, to be ACKed once it is stored. */
static void submit_decision(struct match *m, const struct judge_result *res) {
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        struct press_acks *acks;
        char who[MATCH_WHO_MAX];

        enum eng_pad_role roles[JUDGE_MAX_PRESSES];

        for (size_t i = 0; i < res->n_first && i < JUDGE_MAX_PRESSES; i++)
                roles[i] = held_role(m, res->first[i].id);
        acks = acks_new(m->reg, m->held, m->n_held);
        if (!acks) {
                log_warning("match %" PRId64 ": out of memory: the decision of window %" PRIu32 " is lost", m->id,
                            m->judge_window);
                match_held_end(m->reg, m->held, m->n_held, false);
                m->n_held = 0;
                return;
        }
        m->n_held = 0;

        /* Every held press that is not the winner or in the tie made no input. */
        m->ignored_presses += res->n_refused + (res->n_counted - res->n_first);
        if (res->outcome == JUDGE_WINNER) {
                const struct judge_press *p = &res->first[0];
                int call;

                /* Checked on arrival: only presses of buttons that make a
                 * call are judged. */
                if (call_of(m, p->seat, roles[0], p->button, &call) < 0) {
                        match_held_end(acks->reg, acks->v, acks->n, true);
                        free(acks);
                        return;
                }
                in.seat = p->seat;
                in.kind = ENG_IN_CALL;
                in.call.window = m->judge_window;
                in.call.call = call;
                in.call.press_us = p->time_us + m->clock_offset_us;
                snprintf(who, sizeof who, "pads of seat %d", p->seat + 1);
                for (unsigned k = 0; k < m->seats[p->seat].n_pads; k++)
                        if (m->seats[p->seat].pads[k].role == roles[0]) {
                                snprintf(who, sizeof who, "pad %s", m->seats[p->seat].pads[k].id);
                                break;
                        }
        } else {
                in.kind = ENG_IN_TIE;
                in.tie.window = m->judge_window;
                /* The tied calls, in seat order: first[] is in press order. */
                for (int s = 0; s < ENG_MAX_SEATS; s++)
                        for (size_t i = 0; i < res->n_first; i++) {
                                const struct judge_press *p = &res->first[i];
                                int call;

                                if (p->seat != s || (in.tie.seats & (1u << s)))
                                        continue;
                                in.tie.seats |= 1u << s;
                                if (call_of(m, s, roles[i], p->button, &call) == 0)
                                        in.tie.calls[in.tie.n_calls++] = call;
                        }
                /* Every tied seat's call or none: a partial list would pair
                 * calls with the wrong seats. */
                if (in.tie.n_calls != __builtin_popcount((unsigned) in.tie.seats))
                        in.tie.n_calls = 0;
                in.tie.press_us = res->earliest_us + m->clock_offset_us;
                snprintf(who, sizeof who, "pads");
        }
        submit_from_pads(m, &in, who, acks);
}

void match_judge_check(struct match *m) {
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

/* ---- presses ------------------------------------------------------------- */

/* The live match that has this pad, and the pad's seat and role there:
 * running, paused, or provisional (a keypad may confirm). */
static struct match *match_of_pad(struct matches *reg, const char *pad, int *ret_seat,
                                  enum eng_pad_role *ret_role) {
        for (struct match *m = reg->list; m; m = m->next) {
                enum eng_status st;

                if (m->aborted || m->stale)
                        continue;
                st = m->game->status(m->state);
                if (st == ENG_STATUS_READY || (st == ENG_STATUS_FINISHED && match_phase(m) != ENG_LOG_PROVISIONAL))
                        continue;
                if (match_pad_seat(m, pad, ret_seat, ret_role) == 0)
                        return m;
        }
        return NULL;
}

/* A judged call: to the judge, whose decision comes later. */
static bool press_to_judge(struct match *m, int seat, enum eng_pad_role role, const struct pad_press *press) {
        enum judge_reason reason;
        int call, r;

        /* A button that makes no call never reaches the judge: it neither
         * wins a window nor counts as a false start. */
        if (seat < 0 || call_of(m, seat, role, press->button, &call) < 0) {
                m->ignored_presses++;
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
                match_judge_check(m);
                return false;
        }
        m->held[m->n_held++] = (struct match_held) {
                .pad = press->pad, .event_no = press->event_no, .received_no = press->received_no, .role = role,
        };
        match_judge_check(m);
        return true;
}

/* A timed press: held until the ordered stream brings it. */
static bool press_to_wait(struct match *m, int seat, const struct pad_press *press) {
        if (seat < 0 || m->n_timed == MATCH_TIMED_MAX) {
                m->ignored_presses++;
                return false;
        }
        m->timed[m->n_timed++] = (struct match_held) {
                .pad = press->pad, .event_no = press->event_no, .received_no = press->received_no,
        };
        return true;
}

/* A named input: sent at once, for the pad's seat (or the table). */
static bool press_to_input(struct match *m, int seat, const struct eng_route *rt, const struct pad_press *press) {
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        const struct eng_input_def *def;
        struct match_held h = { .pad = press->pad, .event_no = press->event_no };
        struct press_acks *acks;
        char who[MATCH_WHO_MAX];

        if (eng_input_find(m->game, rt->input, &in.kind, &in.action) < 0 ||
            !(def = eng_input_def_of(m->game, &in)) || (def->seated && seat < 0)) {
                m->ignored_presses++;
                return false;
        }
        if (def->seated)
                in.seat = seat;
        /* Its fields at their defaults: a route names inputs without
         * required fields. */
        int64_t *at = in.arg;
        for (size_t i = 0; i < def->n_fields; i++) {
                at[0] = def->fields[i].max_count ? 0 : def->fields[i].def;
                at += eng_field_slots(&def->fields[i]);
        }
        acks = acks_new(m->reg, &h, 1);
        if (!acks) {
                m->ignored_presses++;
                return false;
        }
        snprintf(who, sizeof who, "pad %s", press->pad->id);
        submit_from_pads(m, &in, who, acks);
        return true;
}

/* No live match has the pad, but one may: the unfinished matches are not
 * rebuilt yet (at start, or while a reconnect rebuilds them), or the pad's
 * match is stale (set aside until the database is back).  A press then is
 * not ACKed (match.h, "ACKs"). */
static bool unsure_of(struct matches *reg, const char *pad) {
        int seat;
        enum eng_pad_role role;

        if (!reg->loaded || reg->loading)
                return true;
        for (struct match *m = reg->list; m; m = m->next)
                if (m->stale && !m->aborted && match_pad_seat(m, pad, &seat, &role) == 0)
                        return true;
        return false;
}

bool matches_pad_received(struct matches *reg, const struct pad_press *press) {
        const struct eng_route *rt;
        enum eng_pad_role role;
        struct match *m;
        int seat;

        m = match_of_pad(reg, press->pad->id, &seat, &role);
        if (!m && unsure_of(reg, press->pad->id)) {
                /* Not ACKed: the pad sends it again, and by then its match
                 * may be back. */
                padbus_ack(reg->pads, press->pad, press->event_no, false);
                return true;
        }
        if (!m) {
                reg->unassigned_presses++;
                return false;
        }
        rt = eng_route_find(m->game, role, press->button);
        /* A seat's button map makes calls of buttons the game's routes may
         * not name. */
        if (!rt && role == ENG_ROLE_BUTTONS && seat >= 0 && m->seats[seat].mapped)
                return press_to_judge(m, seat, role, press);
        if (!rt) {
                m->unrouted_presses++;
                log_debug("match %" PRId64 ": pad %s (%s) button %u: no route takes it", m->id, press->pad->id,
                          eng_role_name(role), press->button);
                return false;
        }
        switch (rt->kind) {
        case ENG_ROUTE_CALL:
                return press_to_judge(m, seat, role, press);
        case ENG_ROUTE_PRESS:
                return press_to_wait(m, seat, press);
        case ENG_ROUTE_INPUT:
                return press_to_input(m, seat, rt, press);
        }
        return false;
}

void matches_pad_pressed(struct matches *reg, const struct pad_press *press) {
        enum eng_pad_role role;
        struct press_acks *acks;
        struct match *m;
        int seat;

        m = match_of_pad(reg, press->pad->id, &seat, &role);
        if (!m || seat < 0)
                return;
        for (size_t i = 0; i < m->n_timed; i++) {
                struct eng_input in = { .seat = seat, .kind = ENG_IN_PRESS };
                char who[MATCH_WHO_MAX];

                if (m->timed[i].received_no != press->received_no)
                        continue;
                acks = acks_new(reg, &m->timed[i], 1);
                memmove(&m->timed[i], &m->timed[i + 1], (m->n_timed - i - 1) * sizeof m->timed[0]);
                m->n_timed--;
                if (!acks) {
                        padbus_ack(reg->pads, press->pad, press->event_no, false);
                        return;
                }
                in.press.role = role;
                in.press.button = press->button;
                in.press.press_us = press->time_usec + m->clock_offset_us;
                /* The driver's error bound is never above a minute (a wider
                 * one is no clock at all: the judge refuses it too); held
                 * to the field's range so that the input is always one the
                 * log can carry. */
                in.press.uncertainty_us = press->uncertainty_usec < JUDGE_MAX_UNCERTAINTY_US
                                          ? press->uncertainty_usec : JUDGE_MAX_UNCERTAINTY_US;
                in.press.received_us = press->received_usec + m->clock_offset_us;
                snprintf(who, sizeof who, "pad %s", press->pad->id);
                submit_from_pads(m, &in, who, acks);
                return;
        }
}

/* ---- feedback -------------------------------------------------------------- */

/* The pads a seat's feedback goes to: its button pads, or its first pad
 * when it has none. */
static void feedback_to(struct match *m, int seat, const struct eng_output *o) {
        struct padbus *pads = m->reg->pads;
        const struct match_seat *ms = &m->seats[seat];
        bool any_buttons = false;

        for (unsigned k = 0; k < ms->n_pads; k++)
                any_buttons |= ms->pads[k].role == ENG_ROLE_BUTTONS;
        for (unsigned k = 0; k < ms->n_pads; k++) {
                const char *pad = ms->pads[k].id;
                int r = 0;

                if (any_buttons ? ms->pads[k].role != ENG_ROLE_BUTTONS : k > 0)
                        continue;
                if (o->def == &eng_req_pad_light)
                        r = padbus_light(pads, pad, (uint8_t) o->light.button, (uint8_t) o->light.mode,
                                         (uint16_t) (o->light.duration_ms > PAD_DURATION_MAX_MS ? PAD_DURATION_MAX_MS
                                                                                                : o->light.duration_ms));
                else if (o->def == &eng_req_pad_buzz)
                        r = padbus_buzz(pads, pad, (uint8_t) o->buzz.pattern,
                                        (uint16_t) (o->buzz.duration_ms > PAD_DURATION_MAX_MS ? PAD_DURATION_MAX_MS
                                                                                              : o->buzz.duration_ms));
                else if (o->def == &eng_req_pad_lockout)
                        r = padbus_lockout(pads, pad, (uint16_t) o->lockout.buttons);
                if (r < 0)
                        log_debug("match %" PRId64 ": no feedback to pad %s: %s", m->id, pad, strerror(-r));
        }
}

/* A pad that is not connected misses its feedback (feedback is display
 * only; the match does not depend on it). */
void match_send_feedback(struct match *m, const struct eng_out *out) {
        if (!m->reg->pads)
                return;
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];

                if (o->def != &eng_req_pad_light && o->def != &eng_req_pad_buzz && o->def != &eng_req_pad_lockout)
                        continue;
                if (o->seat >= 0 && (unsigned) o->seat < m->n_seats)
                        feedback_to(m, o->seat, o);
        }
}
