/* tests/integration/crash_pilot_view.h — reading a Crash Pilot view (the
 * JSON of GET /v1/matches/{id} "view" or /seats/{n}) the way a player at
 * the table would: which window is open, which call is right or wrong. */
#ifndef ARBITER_TESTS_CRASH_PILOT_VIEW_H
#define ARBITER_TESTS_CRASH_PILOT_VIEW_H

#include <stdbool.h>
#include <jansson.h>

#define CP_DOESNT_FIT_CALL 7    /* rows are calls 1..6 */

/* The open window's id, 0 when none. */
json_int_t cp_window_id(json_t *view);

/* A legal row (1..6) for the face-up card, or CP_DOESNT_FIT_CALL when none
 * is; with want_wrong, a call that is wrong instead. */
int cp_pick_call(json_t *view, bool want_wrong);

/* Polls fetch(id) (a new reference to a view) until a window other than
 * after is open with a card face up; returns that view (a new reference).
 * Fails the test after HARNESS_WAIT_MS. */
json_t *cp_wait_window(json_t *(*fetch)(json_int_t id), json_int_t id, json_int_t after);

#endif
