/* tools/arbiter-bots/crazy.h — Crazy Pilot's play (play.h): each bot reads
 * its own seat, as a player reads the station screen in front of them, and
 * works through its pile at its own pace.
 *
 * What a seat sees: its seat's view (GET /v1/matches/{id}/seats/{n}) and
 * its seat's events (GET /v1/matches/{id}/seats/{n}/events), with a seat
 * token the bots make for it (POST /v1/matches/{id}/seats/{n}/token: their
 * --token-file must be a referee's or an admin's).  The seat's own
 * face-up scene is all it knows of its cards: never the answer, never
 * another seat's card.
 *
 * Which seats: those whose button pad is one of ours (uid_base ..
 * uid_base + n_pads - 1); a seat's slap pad, when it is ours too, is the
 * one it slaps.  The buttons are the game's routes: 0 straight, 1 left,
 * 2 right, 3 U-turn, 4 hand, 5 the zombie shout; the slap pad's one.
 *
 * What a seat does, each after a log-normal reaction time (human.h):
 *   - a new face-up card: cz_scene_answer() of engine/crazy_cards.h says
 *     what its scene calls for (the rule lives there, once); a zombie is
 *     shouted at (button 5), anything else placed (a fork on straight or
 *     its turn, at random).  With probability error_pct the seat is wrong:
 *     a wrong placement, or a zombie missed and placed as a direction.
 *     With probability false_shout_pct a card without a zombie is shouted
 *     at all the same.  A race that starts meanwhile stops the hand: the
 *     seat decides again once play resumes.
 *   - a race it must slap in (its view's must_slap): the slap pad, after a
 *     slap reaction time (the slap model: a simple reaction, faster).
 *   - a race it called, once checked (may_drive): the slap pad again, to
 *     resume play ("Driiiiive!"), after a reaction time.
 *   - two players: a card in front of it is looked at and covered (the
 *     `cover` input, with the seat's token) when it holds a zombie — with
 *     probability error_pct the other way round.
 */
#ifndef ARBITER_BOTS_CRAZY_H
#define ARBITER_BOTS_CRAZY_H

#include "tools/arbiter-bots/play.h"

extern const struct play_game play_crazy_pilot;

#endif
