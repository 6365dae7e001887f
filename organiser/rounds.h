/* organiser/rounds.h — pairing a tournament's next round
 * (docs/running-a-tournament.md, "Rounds").
 *
 * org_round_next() finds the stage played now (tour_play_current_stage:
 * the first that is not finished), starts it when it is pending — stage 1
 * with the checked-in active players in seeding order
 * (tour_play_first_stage_order), a later stage with the `advance` the
 * stage before sends on, seeded for this stage's format by
 * tour_stage_advance (a bracket's first round without rematches, a bracket
 * after groups with winners against other groups' runners-up) — and asks
 * tournament/stage.h for the next matches.  A stage with nothing left is
 * marked finished and the next one is tried.  What is made is stored in
 * one statement, each match at its venue table in turn (tour_play_table):
 * two organisers pressing at once get one round, and the other a store
 * failure naming stage_matches_stage_id_round_table_no_key.
 *
 * The rounds are paired while the tournament runs (tour_state_plays).  A
 * round-locked stage pairs its next round only when every match of the
 * last one is played: until then the call ends ORG_CONFLICT with the
 * matches still to be played listed.
 *
 * What the call does not do: publish events (round_started,
 * bracket_advanced, tournament_changed are its caller's, from what it
 * reports) or refresh caches (a new round changes no standings).
 *
 * Calls return 0, after which cb runs exactly once from the loop, or
 * -errno (-ENOTCONN, -ENOMEM) with nothing done and no callback.
 */
#ifndef ARBITER_ORGANISER_ROUNDS_H
#define ARBITER_ORGANISER_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "organiser/outcome.h"
#include "store/stage_matches.h"
#include "tournament/states.h"

struct store;

/* Unfinished matches a refusal lists at most. */
#define ORG_ROUND_LISTED 64

/* What a call made, or (ORG_CONFLICT) why it made nothing.  Everything
 * lives as long as the callback. */
struct org_round {
        int stage;                      /* the stage's number (0: there was none) */
        int round;                      /* the round paired (brackets: the deepest match made) */
        int repeats;                    /* rematches the pairing could not avoid (tour_stage_next) */
        bool bracket;                   /* an elimination stage (tour_format_bracket) */
        enum tour_state tournament_state;
        const struct store_stage_match_row *matches;    /* ORG_DONE: as stored, by table_no */
        size_t n_matches;
        const struct store_stage_bye *byes;             /* ORG_DONE */
        size_t n_byes;
        /* ORG_CONFLICT because the last round is not played: its matches
         * still to be played, at most ORG_ROUND_LISTED; else none */
        const int64_t *unfinished;
        size_t n_unfinished;
};

/* result ORG_DONE with what was made; ORG_NOT_FOUND (no such tournament),
 * ORG_CONFLICT (no stage left, not running, the last round not played, a
 * stage that cannot be paired or seeded), ORG_STORE_FAILED, ORG_INTERNAL
 * (a stored stage that does not fit together).  round is never NULL. */
typedef void (*org_round_fn)(void *userdata, const struct org_result *result, const struct org_round *round);

int org_round_next(struct store *s, int64_t tournament, org_round_fn cb, void *userdata);

#endif
