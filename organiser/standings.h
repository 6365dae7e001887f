/* organiser/standings.h — a tournament's standings and brackets: the cache
 * a result refreshes, and what a reader asks of it
 * (docs/running-a-tournament.md, "Standings").
 *
 * Results are the truth; a stage's standings (stages.standings) are a
 * cache of what tournament/stage.h computes from them, kept as the document
 * a reader is shown (org_stage_standings_json).  org_standings_refresh()
 * recomputes the cache of every stage that has started, after a result is
 * recorded or corrected, a player drops or enters late, or on
 * POST .../recompute — which also asks the rating worker to recompute the
 * game's ratings (organiser/ratings.h; a new or changed result reaches the
 * worker by itself, through the database).
 *
 * Reads: org_standings_get() serves the cache, or computes afresh from the
 * results (recompute: how a test, or a doubting organiser, checks the
 * cache); org_bracket_get() resolves an elimination stage's bracket.  The
 * stage is the one asked for, or the current one (tour_play_current_stage).
 *
 * Calls return 0, after which cb runs exactly once from the loop, or
 * -errno (-ENOTCONN, -ENOMEM) with nothing done and no callback.
 */
#ifndef ARBITER_ORGANISER_STANDINGS_H
#define ARBITER_ORGANISER_STANDINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "organiser/outcome.h"
#include "organiser/stage.h"

struct org_ratings;
struct store;

/* The cached standings of stage number of tournament were rewritten. */
typedef void (*org_standings_changed_fn)(void *userdata, int64_t tournament, int stage);

/* Recomputes the cached standings of every started stage of tournament, in
 * number order, calling changed after each is written; with ratings (not
 * NULL) also asks it to recompute the tournament's game.  Failures are
 * logged: the cache stays as it was, and the next refresh tries again.
 * userdata must live until the refresh ends (it has no end callback: the
 * daemon's deps do).  0, -ENOTCONN, -ENOMEM. */
int org_standings_refresh(struct store *s, struct org_ratings *ratings, int64_t tournament,
                          org_standings_changed_fn changed, void *userdata);

/* result ORG_DONE with standings (the document, borrowed for the
 * callback); ORG_NOT_FOUND when the tournament or the stage does not exist;
 * ORG_INTERNAL when they cannot be computed.  stage 0: the current stage. */
typedef void (*org_standings_fn)(void *userdata, const struct org_result *result, json_t *standings);
int org_standings_get(struct store *s, int64_t tournament, int stage, bool recompute, org_standings_fn cb,
                      void *userdata);

/* result ORG_DONE with the stage and its bracket (both borrowed for the
 * callback); ORG_NOT_FOUND (no such tournament or stage), ORG_CONFLICT (not
 * an elimination stage, or not started: no bracket yet), ORG_INTERNAL. */
typedef void (*org_bracket_fn)(void *userdata, const struct org_result *result, const struct org_stage *stage,
                               const struct tour_stage_bracket_view *bracket);
int org_bracket_get(struct store *s, int64_t tournament, int stage, org_bracket_fn cb, void *userdata);

/* ---- adding a stage -------------------------------------------------------------- */

struct org_stage_new {
        const char *format;
        const char *config;             /* the organiser's object, JSON text (checked by the caller) */
        bool config_has_seed;           /* it names a seed of its own */
        int advance;                    /* 0: everyone still in */
        const char *confirm;            /* JSON text, or NULL */
};
/* result ORG_DONE with the stage as stored; ORG_NOT_FOUND (no such
 * tournament); ORG_CONFLICT as tour_play_stage_add refuses it (or when the
 * tournament changed meanwhile). */
typedef void (*org_stage_added_fn)(void *userdata, const struct org_result *result,
                                   const struct store_stage_row *stage);
int org_stage_add(struct store *s, int64_t tournament, const struct org_stage_new *stage, org_stage_added_fn cb,
                  void *userdata);

#endif
