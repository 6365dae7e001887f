/* tools/arbiter-padsim/bots.h — simulated players for demos and `make run`.
 *
 * Every --bot-period-ms (± a quarter, so rounds do not tick like a metronome)
 * a stimulus happens — a card is revealed, say — and each assigned button or
 * slap pad presses one random button after a human reaction time, or now
 * and then not at all.  Reaction times are log-normal with a median of
 * 450 ms and a log-space standard deviation of 0.25 (docs/padsim.md says
 * where these come from).  Referee keypads do not play.
 *
 * Ownership: the bots own one timer for the stimulus and one per pad.
 */
#ifndef ARBITER_PADSIM_BOTS_H
#define ARBITER_PADSIM_BOTS_H

#include "tools/arbiter-padsim/sim.h"

struct bots;

int bots_new(struct sim *s, struct bots **ret);
void bots_free(struct bots *b);         /* accepts NULL */

#endif
