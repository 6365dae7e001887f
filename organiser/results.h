/* organiser/results.h — a stage match's way to its result: called to a
 * table as a runtime match, its result entered by a referee or handed over
 * by the runtime match that played it, corrected, and what a correction
 * invalidates (docs/running-a-tournament.md, "Calling matches", "Results
 * and corrections").
 *
 *     pending --call--> called --the runtime match finishes--> done
 *        |  ^              |                                     |
 *        |  +---aborted----+                                     +--correction--> done
 *        +--------------result entered by hand------------------>
 *
 * Calling.  org_call_prepare() checks that the match may be called (the
 * tournament runs: tour_state_plays; the match is pending) and says what
 * its runtime match is made of: the game, the players, the deck seed from
 * the tournament's current secret and the call's identity
 * (organiser/draws.h, org_call_seed), the stage's config and confirm.  The
 * caller makes the runtime match (match/ is not the service's to reach)
 * and org_call_record() puts the call on record (match_calls) and the
 * stage match in state called, if it is still pending.
 *
 * The hand-off.  A runtime match that finishes hands its placements to its
 * stage match in the database, by the trigger of migrations/0005, in the
 * transaction of the input that finished it: whether that input came
 * straight from the daemon or from the spool after an outage, the result
 * is recorded exactly when the match's end is, and cannot be lost between
 * the two.  The trigger NOTIFYs STORE_RESULTS_CHANNEL with the stage
 * match's id; org_result_handed_over() reads what it recorded, so that the
 * caller (who LISTENs) publishes it and refreshes the standings as for a
 * result entered by hand.  An aborted
 * runtime match gives its stage match back (pending) the same way.
 *
 * Entering a result: only while the tournament runs, only for a match that
 * has none, and not for one being played as a runtime match (its result
 * comes from there; abort it first to enter one by hand).
 *
 * Correcting a result: what it invalidates, and whether it may be made, is
 * tour_correction_plan's (tournament/play.h); the correction, its record
 * and the deletion of what it invalidated are one statement.
 *
 * What the calls do not do: publish events (match_called, result_recorded)
 * or refresh the standings: the caller does both with what they report
 * (organiser/standings.h, org_standings_refresh).
 *
 * Calls return 0, after which cb runs exactly once from the loop, or
 * -errno (-ENOTCONN, -ENOMEM, -EINVAL) with nothing done and no callback.
 * Arguments are borrowed for the call only.
 */
#ifndef ARBITER_ORGANISER_RESULTS_H
#define ARBITER_ORGANISER_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "organiser/outcome.h"
#include "organiser/stage.h"
#include "store/stage_matches.h"
#include "tournament/play.h"

struct store;

/* result ORG_DONE with m the stage match as stored now; otherwise m NULL. */
typedef void (*org_match_fn)(void *userdata, const struct org_result *result, const struct store_stage_match_row *m);

/* ---- calling ------------------------------------------------------------------ */

/* What the runtime match of a call is made of, and the call's identity.
 * Lives as long as the callback. */
struct org_call {
        int64_t tournament;
        int64_t stage_match;
        const char *game;
        int64_t table;                  /* the stage match's venue table, 0: none */
        const char *const *players;     /* names, in seat order */
        size_t n_players;
        uint64_t seed;                  /* the deck's (docs/fairness.md) */
        json_t *config;                 /* the tournament's match config (borrowed) */
        json_t *confirm;                /* the stage's confirm setting, or NULL (borrowed) */
        int attempt;                    /* the call's identity, for org_call_record() */
        int epoch;
};

/* result ORG_DONE with call; ORG_NOT_FOUND (no such match in the
 * tournament), ORG_CONFLICT (the tournament does not run, the match is
 * called or done already), ORG_STORE_FAILED, ORG_INTERNAL. */
typedef void (*org_call_fn)(void *userdata, const struct org_result *result, const struct org_call *call);
int org_call_prepare(struct store *s, int64_t tournament, int64_t stage_match, org_call_fn cb, void *userdata);

/* The call made: runtime_match plays stage_match at table (0: its own). */
struct org_call_made {
        int64_t tournament;
        int64_t stage_match;
        int64_t runtime_match;
        int64_t table;
        int attempt, epoch;             /* from struct org_call */
};
/* ORG_DONE with the match, called; ORG_CONFLICT when it was not pending
 * any more ("the match changed meanwhile"). */
int org_call_record(struct store *s, const struct org_call_made *made, org_match_fn cb, void *userdata);

/* ---- results ------------------------------------------------------------------- */

/* Enters entries[0..n) as the result of stage_match of tournament, by who.
 * ORG_DONE with the match, done; ORG_NOT_FOUND; ORG_CONFLICT (it has a
 * result, the tournament does not run, a runtime match plays it, it
 * changed meanwhile); ORG_INVALID (the entries do not fit the match:
 * org_stage_result_check's words). */
int org_result_enter(struct store *s, int64_t tournament, int64_t stage_match, const struct org_result_entry *entries,
                     size_t n, const char *who, org_match_fn cb, void *userdata);

struct org_correction {
        int64_t tournament;
        int64_t stage_match;
        const struct org_result_entry *entries;
        size_t n_entries;
        const char *reason;
        bool reset;                     /* delete the played dependents */
        bool may_delete_played;         /* the one asking may (an admin) */
        const char *who;
};

/* What a correction did, or why not.  Lives as long as the callback. */
struct org_corrected {
        enum tour_correction_verdict verdict;
        const struct store_stage_match_row *match;      /* ORG_DONE: with its new result */
        int64_t correction;             /* ORG_DONE: the correction's id */
        const int64_t *deleted;         /* ORG_DONE: the stage matches it deleted */
        size_t n_deleted;
        const int64_t *blocking;        /* TOUR_CORRECTION_NEEDS_RESET: played or in play */
        size_t n_blocking;
        int64_t in_play;                /* TOUR_CORRECTION_IN_PLAY: the stage match ... */
        int64_t in_play_runtime;        /* ... and the runtime match playing it */
};
/* result ORG_DONE; ORG_NOT_FOUND; ORG_CONFLICT with the verdict (every
 * verdict but TOUR_CORRECTION_ALLOWED) or when the match changed
 * meanwhile (verdict ALLOWED then); ORG_INVALID (the entries);
 * ORG_STORE_FAILED; ORG_INTERNAL.  c is never NULL. */
typedef void (*org_corrected_fn)(void *userdata, const struct org_result *result, const struct org_corrected *c);
int org_result_correct(struct store *s, const struct org_correction *k, org_corrected_fn cb, void *userdata);

/* ---- the hand-off ----------------------------------------------------------------- */

/* The stage match a NOTIFY on STORE_RESULTS_CHANNEL names (payload: its
 * id, then a space and the venue of the match that finished it, since
 * migrations/0010), done by the database itself: ORG_DONE with it,
 * ORG_NOT_FOUND when it is gone.  The caller LISTENs (store_listen) and
 * publishes it as a result recorded.  0 (cb follows); 1 when the payload
 * names a venue other than venue (that venue's daemon publishes it: cb is
 * not called); -EINVAL for a payload that is no id. */
int org_result_handed_over(struct store *s, const char *payload, const char *venue, org_match_fn cb,
                           void *userdata);

#endif
