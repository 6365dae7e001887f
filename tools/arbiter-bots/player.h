/* tools/arbiter-bots/player.h — the bots at one Crash Pilot match: what
 * each sees on the table display, what it calls, and when it presses.
 *
 * The bots play the seats whose button pad is one of ours (a pad of the
 * arbiter-padsim this tool drives: uid_base + index).  They look at the
 * match's public view — what a table display shows — each time the stream
 * says something happened.  When a new window opens on a face-up card, each
 * of our seats the window allows decides its call (cp_bot_call() of
 * engine/crash_pilot.h: the rule of which row a card fits lives there) and
 * a reaction time (human.h), and presses the button its pad maps to that
 * call — the table's button map, or the game's routes — when that time is
 * up, unless the window has closed meanwhile (someone else got in first),
 * as a person stops reaching for the buttons once the card is gone.
 *
 * A press is one padsim script line on the output:
 *     {"pad": 2, "button": 4, "press": true}
 *
 * Ownership: the player owns its seats and pending presses; it keeps no
 * reference to the JSON it is given.
 */
#ifndef ARBITER_BOTS_PLAYER_H
#define ARBITER_BOTS_PLAYER_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "tools/arbiter-bots/human.h"

struct player;

/* 0, or -ENOMEM. */
int player_new(const struct human_model *human, uint64_t seed, struct player **ret);
void player_free(struct player *p);     /* accepts NULL */

/* Sits the bots at a match (its JSON as GET /v1/matches/{id} gives it):
 * the seats whose button pad is uid_base .. uid_base + n_pads - 1 are ours.
 * Forgets the previous match.  The number of seats we play (0: none, or
 * not a Crash Pilot match), or -EINVAL for a match JSON without seats. */
int player_sit(struct player *p, json_t *match, uint64_t uid_base, unsigned n_pads);

/* The table as it looks at now_us (the match's public view): a new window
 * gets its decisions; a closed one loses the presses still to come. */
void player_look(struct player *p, json_t *view, int64_t now_us);

/* Drops every press still to come (the match is over, the stream lost). */
void player_forget(struct player *p);

/* When the next press is due (CLOCK_MONOTONIC µs), or INT64_MAX. */
int64_t player_next_due(const struct player *p);

/* Makes the presses due by now_us: one line each on out, flushed.  0, or
 * -errno when out fails (-EPIPE: padsim is gone). */
int player_press(struct player *p, int64_t now_us, FILE *out);

/* The name of seat (1-based) of the current match, or "seat N". */
const char *player_seat_name(struct player *p, int seat);

#endif
