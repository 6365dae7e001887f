/* tournament/play.h — the rules of playing a tournament's stages that are
 * not one stage's own (those are stage.h's): which stage is played now, who
 * enters the first stage and in which order, which venue table a match is
 * called to, whether a stage may be added, and what a corrected result
 * invalidates (docs/running-a-tournament.md, "Corrections";
 * docs/formats/stages.md, "tour_stage_dependents").
 *
 * The tournament service (organiser/rounds.h, organiser/results.h) reads
 * the facts from the database, asks these functions and writes what they
 * decide; no rule of them is written anywhere else, in SQL least of all.
 *
 * Pure: libc and tournament/ only, no clock, no I/O, no global state.
 * Ownership: inputs are borrowed for the call; struct tour_correction's
 * arrays are allocated by tour_correction_plan() and released by
 * tour_correction_free() (which accepts NULL and a zeroed struct). */
#ifndef ARBITER_TOURNAMENT_PLAY_H
#define ARBITER_TOURNAMENT_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/stage.h"
#include "tournament/states.h"

/* A stage's state: pending until it starts, running while it is played,
 * finished when nothing more will be paired in it (a correction that
 * deletes matches makes it run again).  The values never change. */
enum tour_stage_state {
        TOUR_STAGE_PENDING = 1,
        TOUR_STAGE_RUNNING,
        TOUR_STAGE_FINISHED,
};

/* The stage played now among a tournament's stages, states[0..n) in number
 * order: the first that is not finished (the next round is paired there,
 * starting it when it is pending), else the last that started.  Its index,
 * or -1 when there is none. */
int tour_play_current_stage(const enum tour_stage_state *states, size_t n);

/* A player who may enter the first stage (checked in, active), in the
 * order of registration. */
struct tour_play_candidate {
        int seed;                       /* the organiser's seed, 1..; 0: none */
        double rating;                  /* the OpenSkill ordinal in the game (tour_os_ordinal); 0: unrated */
};

/* The seeding order of the first stage: ret_order[k] (n entries) is the
 * candidate seeded k-th — the organiser's seeds first, lowest first, then
 * by rating, highest first, ties in the order of registration.  0, or
 * -EINVAL, -ENOMEM. */
int tour_play_first_stage_order(const struct tour_play_candidate *candidates, size_t n, size_t *ret_order);

/* The venue table a match of table number table_no (1..) is called to,
 * among the tournament's tables[0..n) in turn: table 1 at the first, 2 at
 * the second, and round again.  0 when the tournament has none (or
 * table_no < 1). */
int64_t tour_play_table(const int64_t *tables, size_t n, int table_no);

/* Whether a stage may be added. */
enum tour_stage_add {
        TOUR_STAGE_ADD_ALLOWED,
        /* a competitive tournament's draws come from its secret, so that
         * nobody can choose them: whoever chooses a draw's seed can search
         * for a draw that suits him (docs/fairness.md) */
        TOUR_STAGE_ADD_SEED_CHOSEN,
        TOUR_STAGE_ADD_FINISHED,        /* the tournament is finished (tour_state_takes_stages) */
};
enum tour_stage_add tour_play_stage_add(enum tour_state state, bool competitive, bool config_has_seed);

/* ---- corrections --------------------------------------------------------------- */

/* A correction of the result of stage->matches[match]. */
struct tour_correction_input {
        const struct tour_stage_input *stage;
        size_t match;
        /* per stored match (n_matches entries, or NULL for none): called to
         * a table and being played as a runtime match — as good as played:
         * a reset may not pull it from under its players */
        const bool *in_play;
        bool next_stage_started;        /* a later stage started from this one's standings */
        bool reset;                     /* the organiser asked to delete what was played from it */
        bool may_delete_played;         /* the one asking may delete played matches (an admin) */
};

enum tour_correction_verdict {
        TOUR_CORRECTION_ALLOWED,
        TOUR_CORRECTION_NO_RESULT,      /* the match has no result yet: enter one instead */
        TOUR_CORRECTION_STAGE_CLOSED,   /* a later stage started from this one: its results are final */
        TOUR_CORRECTION_IN_PLAY,        /* reset asked while a dependent is being played: abort it first */
        TOUR_CORRECTION_NEEDS_RESET,    /* dependents were played or are in play: reset to delete them */
        TOUR_CORRECTION_NOT_ALLOWED,    /* reset would delete played matches: may_delete_played is false */
};

/* What a correction invalidates, and whether it may be made.  Indices are
 * into stage->matches. */
struct tour_correction {
        enum tour_correction_verdict verdict;
        /* the dependents played (done), in index order, then those in play:
         * what needs a reset, listed to the operator */
        size_t *blocking;
        size_t n_blocking;
        /* every dependent, played or not (done ones first, then the rest,
         * each in index order): deleted with the correction and paired
         * again by the next round */
        size_t *deleted;
        size_t n_deleted;
        /* a dependent in play (the last in index order), or -1 */
        long in_play;
        /* round-based formats (tour_format_round_based): the byes of the
         * rounds after this one go with their matches; -1 for the others */
        int byes_after;
        /* the stage runs again: something is to be paired anew */
        bool reopen;
};

/* The dependents come from tour_stage_dependents (brackets: the matches
 * whose occupants a different result would change; round-based formats:
 * every later round; round robin and groups: none).  The verdict is the
 * first that applies, in the enum's order.  Returns 0 (the verdict says
 * whether the correction may be made), or -EINVAL (bad input, with
 * *ret_err), -ENOMEM; *ret is zeroed first and must be released with
 * tour_correction_free() even on error. */
int tour_correction_plan(const struct tour_correction_input *in, struct tour_correction *ret,
                         struct tour_stage_error *ret_err);
void tour_correction_free(struct tour_correction *c);

#endif
