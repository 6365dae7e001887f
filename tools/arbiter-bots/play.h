/* tools/arbiter-bots/play.h — one game's play: what the bots of one game
 * see, decide and press at a match, behind one interface, so that the loop
 * of bots.c (the stream, the table, hosting, reconnecting) knows no game.
 *
 * Each game the bots play is a struct play_game in its own file:
 * player.h (Crash Pilot: the public view, the judged call) and crazy.h
 * (Crazy Pilot: each seat's own view and events, resolving, shouting,
 * slapping); play.c lists them.  bots.c makes one struct play of every game at start, hands
 * each match to the play of the match's game (play_game_find()), and calls
 * it when something happens; the play writes its presses as arbiter-padsim
 * script lines on the output, one per press, flushed at once:
 *     {"pad": 2, "button": 4, "press": true}
 *
 * A play may follow streams of its own (a seat's events, with a seat
 * token): bots.c waits on them together with the venue's public stream
 * (sse_wait_any()) and hands each of their events back.
 *
 * Ownership: a play owns its seats, its pending presses and its streams;
 * it keeps no reference to the JSON it is given.
 */
#ifndef ARBITER_BOTS_PLAY_H
#define ARBITER_BOTS_PLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "tools/arbiter-bots/bots.h"
#include "tools/arbiter-bots/rest.h"
#include "tools/arbiter-bots/sse.h"

struct play;

struct play_game {
        const char *name;               /* the engine's game name, "crash-pilot" */
        unsigned min_seats, max_seats;

        /* 0, or -ENOMEM.  rest is the bots' client (its token, a
         * referee's or an admin's, may make seat tokens). */
        int (*new_play)(const struct bots_options *opt, struct rest *rest, struct play **ret);
        void (*free_play)(struct play *p);
        /* Sits the bots at a match of this game (its JSON as GET
         * /v1/matches/{id} gives it): the seats whose pads are ours.
         * Forgets the previous match.  How many seats we play, or -errno. */
        int (*sit)(struct play *p, json_t *match);
        /* Something happened in the match (a public event): match is its
         * JSON as GET /v1/matches/{id} gives it — NULL for a play with
         * streams of its own, which reads them instead — now_us
         * CLOCK_MONOTONIC. */
        void (*look)(struct play *p, json_t *match, int64_t now_us);
        /* Drops every press still to come and every stream (the match is
         * over, the venue's stream lost). */
        void (*forget)(struct play *p);
        /* When the next press is due, or INT64_MAX. */
        int64_t (*next_due)(const struct play *p);
        /* Makes the presses due by now_us.  0, or -errno when out fails
         * (-EPIPE: padsim is gone). */
        int (*press)(struct play *p, int64_t now_us, FILE *out);
        /* The name of seat (1-based) of the current match, or "seat N". */
        const char *(*seat_name)(struct play *p, int seat);
        /* How the finished match (its JSON) was won, after "X wins": e.g.
         * ", turning over their last card"; "" when nothing to add. */
        const char *(*how_won)(struct play *p, json_t *match);

        /* Optional (NULL: none).  The play's own streams: *ret_v set to an
         * array of *ret_n entries, NULL where none is open. */
        void (*streams)(struct play *p, struct sse *const **ret_v, size_t *ret_n);
        /* A stream's event (ev), or its end (ev NULL, error the reason):
         * the play closes an ended stream itself. */
        void (*stream_event)(struct play *p, size_t i, const struct sse_event *ev, int error, int64_t now_us);
};

/* The games the bots play, in the order --game names them; NULL-ended. */
extern const struct play_game *const play_games[];

/* The game called name, or NULL. */
const struct play_game *play_game_find(const char *name);

#endif
