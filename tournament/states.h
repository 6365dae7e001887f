/* tournament/states.h — a tournament's states, the moves between them, and
 * what each state lets the organiser do with the players: register them,
 * check them in, take a late entry, drop them; and when the draws' secrets
 * are shown (docs/running-a-tournament.md, "Registration and check-in";
 * docs/fairness.md).  The tournament service (organiser/tournaments.h,
 * organiser/registrations.h) reads the facts from the database and asks
 * these functions; no rule of them is written anywhere else.
 *
 *     draft ⇄ registration ⇄ check_in ⇄ running → finished
 *                                          ^           |
 *                                          +-----------+ (reopen)
 *
 *   draft → registration          always
 *   registration → draft          while nobody is registered
 *   registration → check_in       with two or more registrations
 *   check_in → registration       while no stage has made a match
 *   check_in → running            with a stage and two or more checked-in players
 *   running → check_in            while no stage has made a match
 *   running → finished            when every stage is finished
 *   finished → running            reopen: to add a stage, with a new secret (a new
 *                                 epoch: tour_state_move_begins_epoch)
 *
 * Registration is open in registration, check_in and running; in running
 * it is a late entry (tour_late_entry).  Check-in is the door of the venue,
 * not the sign-up sheet: it opens with the check_in state, which the
 * organiser enters on the day, and stays open while the tournament runs.
 * A player who checks in before the first stage starts plays in it; one
 * who arrives while a stage that takes late entries runs joins it as a
 * late entry, as a registration then would; one who arrives while a stage
 * that takes none runs is marked present and joins no stage.  During
 * registration a player signs up, possibly weeks ahead; checking in then
 * would say nothing about who is in the room, which is what the first
 * stage is built from.
 *
 * Pure: libc and tournament/ only, no allocation, no global state. */
#ifndef ARBITER_TOURNAMENT_STATES_H
#define ARBITER_TOURNAMENT_STATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/stage.h"

/* The values never change; new states would be added at the end. */
enum tour_state {
        TOUR_STATE_DRAFT = 1,
        TOUR_STATE_REGISTRATION,
        TOUR_STATE_CHECK_IN,
        TOUR_STATE_RUNNING,
        TOUR_STATE_FINISHED,
};
#define TOUR_STATE_LAST TOUR_STATE_FINISHED

/* The players a tournament needs before it checks in or runs: a match
 * needs two. */
#define TOUR_STATE_MIN_PLAYERS 2

/* The state's name as the API and the database spell it ("draft",
 * "registration", "check_in", "running", "finished"); NULL for an unknown
 * value. */
const char *tour_state_name(enum tour_state state);

/* The state called name, or -EINVAL (NULL arguments included). */
int tour_state_from_name(const char *name, enum tour_state *ret_state);

/* ---- moves ------------------------------------------------------------------- */

/* What the moves depend on, as the database holds it at the time. */
struct tour_state_facts {
        int64_t registrations;          /* every registration, whatever its status */
        int64_t checked_in;             /* active and checked in */
        int64_t stages;                 /* stages added */
        int64_t open_stages;            /* stages not finished */
        int64_t matches_made;           /* matches made by any stage */
};

enum tour_move_check {
        TOUR_MOVE_ALLOWED,
        TOUR_MOVE_NO_SUCH_MOVE,         /* the diagram has no arrow from → to */
        TOUR_MOVE_NOT_READY,            /* it has, but what it needs does not hold */
};

/* The states from may move to, in the order of the table above, into
 * ret[0..count); the count (0 for an unknown state). */
size_t tour_state_moves(enum tour_state from, enum tour_state ret[TOUR_STATE_LAST]);

/* Whether from → to may happen with facts. */
enum tour_move_check tour_state_move_check(enum tour_state from, enum tour_state to,
                                           const struct tour_state_facts *facts);

/* What from → to needs, in words for a person ("two or more
 * registrations"); NULL when it needs nothing or is no move. */
const char *tour_state_move_needs(enum tour_state from, enum tour_state to);

/* Whether from → to begins a new epoch of the fair draws: reopening a
 * finished tournament, whose end revealed the secret, so that the matches
 * to come get a new one (docs/fairness.md). */
bool tour_state_move_begins_epoch(enum tour_state from, enum tour_state to);

/* ---- players ------------------------------------------------------------------ */

/* A registration's status.  The values never change. */
enum tour_reg_status {
        TOUR_REG_ACTIVE = 1,
        TOUR_REG_DROPPED,               /* never paired again; keeps the results */
        TOUR_REG_DISQUALIFIED,          /* as dropped */
};

/* "active", "dropped", "disqualified"; NULL for an unknown value. */
const char *tour_reg_status_name(enum tour_reg_status status);
/* The status called name, or -EINVAL (NULL arguments included). */
int tour_reg_status_from_name(const char *name, enum tour_reg_status *ret_status);

/* Whether a player may be registered: in registration, check_in and
 * running (a late entry, tour_late_entry), never in draft or finished. */
bool tour_state_registration_open(enum tour_state state);

/* Whether a registered, active player may be checked in: in check_in and
 * running, never in draft, registration or finished (nor in an unknown
 * state). */
bool tour_state_check_in_open(enum tour_state state);

/* Whether a registered, active player may be dropped or disqualified: in
 * every state but finished, whose standings are final. */
bool tour_state_drop_open(enum tour_state state);

/* What a player who enters now — registered, or checked in for the first
 * time — is.  The one rule of late entry, for both. */
enum tour_late {
        TOUR_LATE_NO,                   /* not late: the tournament has not started */
        TOUR_LATE_WAITS,                /* running, no stage running (the first not started yet,
                                         * or between two): late, in no stage for now */
        TOUR_LATE_JOINS,                /* a stage that takes late entries runs: late, and
                                         * added to it (starting on 0 points) */
        TOUR_LATE_REFUSED,              /* a stage that takes none runs */
};

/* In state, with a stage running (stage_running) of format, what entering
 * now makes of a player: tour_format_takes_late_entries() decides for a
 * running stage.  TOUR_LATE_NO outside running. */
enum tour_late tour_late_entry(enum tour_state state, bool stage_running, enum tour_format format);

/* ---- play ---------------------------------------------------------------------- */

/* Whether the tournament's matches are played: its rounds paired, its
 * matches called to their tables and their results entered.  In running
 * only (a correction of a result is not play: it stays open afterwards,
 * organiser/results.h). */
bool tour_state_plays(enum tour_state state);

/* Whether a stage may be added: in every state but finished (reopen it
 * first, which begins a new epoch of the draws). */
bool tour_state_takes_stages(enum tour_state state);

/* ---- fair draws ----------------------------------------------------------------- */

/* Whether a tournament in state shows its seed and its current secret:
 * once it is finished (docs/fairness.md).  Before that no reply, event or
 * log line may hold them. */
bool tour_state_reveals_secrets(enum tour_state state);

/* Whether the secret of epoch (1-based) of a tournament with epochs
 * secrets, in state, is shown: every epoch before the last (reopening
 * began a new one after the end revealed it), and the last once the
 * tournament is finished. */
bool tour_secret_revealed(enum tour_state state, int epoch, int epochs);

#endif
