/* tournament/states.h — a tournament's states by name, and what each
 * state lets the organiser do with the players (docs/running-a-tournament.md,
 * "Registration and check-in"; the moves between the states are in
 * api/tournaments.c).
 *
 *     draft → registration → check_in → running → finished
 *
 * Check-in is the door of the venue, not the sign-up sheet: it opens with
 * the check_in state, which the organiser enters on the day, and stays open
 * while the tournament runs (a player who arrives before the first stage
 * starts plays in it; once it has started, a check-in adds the player to no
 * stage).  During registration a player signs up, possibly weeks ahead;
 * checking in then would say nothing about who is in the room, which is
 * what the first stage is built from.
 *
 * Pure: libc only, no allocation, no global state. */
#ifndef ARBITER_TOURNAMENT_STATES_H
#define ARBITER_TOURNAMENT_STATES_H

#include <stdbool.h>

/* The values never change; new states would be added at the end. */
enum tour_state {
        TOUR_STATE_DRAFT = 1,
        TOUR_STATE_REGISTRATION,
        TOUR_STATE_CHECK_IN,
        TOUR_STATE_RUNNING,
        TOUR_STATE_FINISHED,
};
#define TOUR_STATE_LAST TOUR_STATE_FINISHED

/* The state's name as the API and the database spell it ("draft",
 * "registration", "check_in", "running", "finished"); NULL for an unknown
 * value. */
const char *tour_state_name(enum tour_state state);

/* The state called name, or -EINVAL (NULL arguments included). */
int tour_state_from_name(const char *name, enum tour_state *ret_state);

/* Whether a registered, active player may be checked in: in check_in and
 * running, never in draft, registration or finished (nor in an unknown
 * state). */
bool tour_state_check_in_open(enum tour_state state);

#endif
