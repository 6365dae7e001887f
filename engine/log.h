/* engine/log.h — the input log's own rules: undo (ENG_IN_VOID), the
 * referee's confirmation of a result (ENG_IN_CONFIRM), and replay.
 *
 * Every game gets these the same way, so they live here once and not in
 * any engine.  Pure, as the engines: no clock, no I/O, no allocation.
 *
 * Undo.  A void names an input N of the log.  It rewinds the match to just
 * before N: the state is rebuilt from the set-up and every input before N
 * that is in effect; N and every input after it that was in effect are
 * voided with it (the caller lists them for re-entry).  The void is itself
 * an input: it is logged, audited, and replayed like any other, and after
 * the rewind the engine sees it (so that it sets its timers from now and
 * shows a face-up card again).  What a void cannot do:
 *   - name an input that is not in effect (refused, voided already, or in
 *     the future), or another void or a confirm ("invalid");
 *   - undo anything once the result is final ("finished"): when the match
 *     finished without needing a referee's confirmation, or once it was
 *     confirmed.
 * An input in effect is one that was accepted and not voided since.
 *
 * A void is neither a pause nor a resume: the operator's pause is after a
 * void as it was before it.  A referee who pauses the table to sort out a
 * call and voids it finds the table still paused; voiding a resume does
 * not stop a running table.  So before the engine sees the void, the
 * rewound match is paused (or resumed) at the void's time when it differs
 * (a match not started is left as it is); what that would show is left
 * out, and the engine's answer to the void says what people see now.
 *
 * Confirmation.  A match may need a referee to confirm its result (the
 * setup's confirm).  Finished but unconfirmed, it is provisional: undo is
 * still possible, including of the input that ended it.  A confirm input is
 * accepted only then; it changes no engine state and makes the result
 * final.  A match that needs no confirmation is final when it finishes, and
 * a confirm is refused ("state").
 *
 * Replay is the same function applied to the stored inputs in order
 * (eng_log_apply), so a void or a confirm replays exactly.
 */
#ifndef ARBITER_ENGINE_LOG_H
#define ARBITER_ENGINE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* One input of a match's log, as the runtime keeps it. */
struct eng_record {
        struct eng_input in;
        enum eng_refusal refusal;       /* what it got */
        uint64_t voided_by;             /* 0, or the seq of the void that undid it */
};

/* What create() takes, and the match's confirmation policy. */
struct eng_setup {
        const struct eng_game *game;
        const struct eng_config *cfg;
        const struct eng_data *data;    /* NULL: every data file built in */
        unsigned n_seats;
        uint64_t seed;
        bool confirm;                   /* a finished result waits for a referee's confirm */
};

/* Where a match stands in the log's terms. */
enum eng_log_phase {
        ENG_LOG_OPEN = 1,               /* not finished */
        ENG_LOG_PROVISIONAL,            /* finished, waiting for a confirm */
        ENG_LOG_FINAL,                  /* finished and final: nothing more is accepted */
};

/* The phase after log[0..n) with the game state state. */
enum eng_log_phase eng_log_phase(const struct eng_setup *setup, const void *state, const struct eng_record *log,
                                 size_t n);

/* Applies in as the input after log[0..n) to state (which is the state
 * after them): a void or a confirm by the rules above, anything else
 * through game->apply (refused as "finished" once the result is final).
 * For an accepted void, state is rebuilt before the engine sees the void,
 * and out begins with an inputs_voided event.  0 with out->refusal set, or
 * the engine's -errno.  A refused input leaves state as it was. */
int eng_log_apply(const struct eng_setup *setup, void *state, const struct eng_record *log, size_t n,
                  const struct eng_input *in, struct eng_out *out);

/* After an accepted void log[n] (the records before it as they were):
 * sets voided_by on every record it voided.  Returns how many. */
size_t eng_log_mark_voided(struct eng_record *log, size_t n);

/* Rebuilds state from the setup and log[0..n) (each record's refusal and
 * voided_by as stored), applying the inputs in effect that come before seq
 * before (UINT64_MAX: all), each void after keeping the pause as above.
 * 0, or -EINVAL / the engine's -errno. */
int eng_log_rebuild(const struct eng_setup *setup, void *state, const struct eng_record *log, size_t n,
                    uint64_t before);

/* Replays log[0..n) from scratch with eng_log_apply, filling each record's
 * refusal and voided_by as they come out (what the runtime does live).
 * ret_refused (may be NULL) counts refusals.  0, or -errno. */
int eng_replay(const struct eng_setup *setup, void *state, struct eng_record *log, size_t n, size_t *ret_refused);

#endif
