/* tools/arbiter-bots/bots.h — the bots at one table, for as long as they
 * run: following the venue's public match events, playing the table's live
 * match, and with keep_playing hosting one match after another.  This loop
 * knows no game: each game's play is its own file (play.h).
 *
 * The bots read what a venue's screens read: the public Server-Sent Events
 * of every match (GET /v1/events?topic=match, the same events each match's
 * own stream GET /v1/matches/{id}/events carries) and, when something
 * happens at their table, that match's public view (GET /v1/matches/{id}).
 * A game's play may read more (Crazy Pilot: each seat's own view and
 * stream, with a seat token).  They write their presses as arbiter-padsim
 * script lines on stdout (play.h).  When the stream is lost — arbiterd restarting — they look
 * again from scratch once it is back: nothing they remember can be stale.
 *
 * Hosting (keep_playing): when no match is running at the table, they create
 * and start one of game (POST /v1/matches, …/start; a referee's or admin's token),
 * and the next one between_us after it finishes.  A match someone else starts
 * at the table takes it over: the bots abort the match they were hosting and
 * play the other one (a tournament's match called to the table, say).  The
 * hosted match's id is kept in state_file, if given, so that bots started
 * again know the match they hosted before (the daemon goes on with it).
 */
#ifndef ARBITER_BOTS_BOTS_H
#define ARBITER_BOTS_BOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "tools/arbiter-bots/human.h"

struct bots_options {
        const char *url;                /* "http://127.0.0.1:8080" */
        const char *table;              /* the table's name */
        const char *token;              /* NULL: none (they only play) */
        uint64_t uid_base;              /* our pads are uid_base + 0 .. n_pads - 1 */
        unsigned n_pads;
        bool keep_playing;
        const char *game;               /* the game hosted matches play ("crash-pilot") */
        const char *const *players;     /* names for hosted matches; n_players 0: defaults */
        size_t n_players;
        json_t *match_config;           /* hosted matches' config; NULL: the game's defaults */
        int64_t between_us;             /* from a hosted match's end to the next's start */
        const char *state_file;         /* remembers the hosted match across restarts; NULL: none */
        struct human_model human;       /* deciding: a call, a placement, a shout */
        struct human_model slap;        /* slapping in a race: a simple reaction */
        unsigned false_shout_pct;       /* Crazy Pilot: cards without a zombie shouted at */
        uint64_t seed;
};

/* Runs until a signal ends the process or padsim's end of stdout is gone
 * (returns 1, logged). */
int bots_run(const struct bots_options *opt);

#endif
