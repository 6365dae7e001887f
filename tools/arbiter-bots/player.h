/* tools/arbiter-bots/player.h — Crash Pilot's play (play.h): what each
 * bot sees on the table display, what it calls, and when it presses.
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
 */
#ifndef ARBITER_BOTS_PLAYER_H
#define ARBITER_BOTS_PLAYER_H

#include "tools/arbiter-bots/play.h"

extern const struct play_game play_crash_pilot;

#endif
