/* organiser/tournaments.h — the tournament service's calls on a tournament
 * itself: creating one (with its first secret) and moving it through its
 * states, and the list of its calls (docs/running-a-tournament.md;
 * docs/fairness.md).
 *
 * Each call reads the facts (store/tournaments.h), asks the rules of
 * tournament/states.h and writes, as plain C a test drives without HTTP.
 * A move is written only if the tournament is still where the facts saw
 * it; when another move came first, the call ends ORG_CONFLICT without
 * writing ("the tournament changed state meanwhile; try again").
 *
 * What a call does not do: publish events or refresh caches.  Its caller
 * does that with what the call reports (api/tournaments.c publishes
 * tournament_changed).
 *
 * Calls return 0, after which cb runs exactly once from the loop (never
 * from inside the call), or -errno with nothing done and no callback:
 * -ENOTCONN (the database is not ready), -ENOMEM, -EINVAL, or the kernel's
 * random generator's.  Arguments are borrowed for the call only.
 */
#ifndef ARBITER_ORGANISER_TOURNAMENTS_H
#define ARBITER_ORGANISER_TOURNAMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "organiser/outcome.h"
#include "store/tournaments.h"
#include "tournament/states.h"

struct store;

/* result->outcome ORG_DONE with t the tournament as stored; otherwise t
 * NULL. */
typedef void (*org_tournament_fn)(void *userdata, const struct org_result *result,
                                  const struct store_tournament_row *t);

struct org_tournament_new {
        const char *name;
        const char *game;
        /* competitive: arbiterd draws the secret (and the stages' draws
         * follow from it); otherwise both follow from the seed, the
         * organiser's (has_seed) or a random one */
        bool competitive;
        bool has_seed;
        uint64_t seed;                  /* < 2^63 */
        const char *match_config;       /* JSON object text */
        const int64_t *tables;
        size_t n_tables;
        const char *who;
};

/* Creates a tournament in draft.  ORG_INVALID when a table does not exist. */
int org_tournament_create(struct store *s, const struct org_tournament_new *t, org_tournament_fn cb,
                          void *userdata);

/* Moves tournament id to state to, as tournament/states.h allows
 * (tour_state_move_check); reopening a finished one draws the secret of a
 * new epoch.  ORG_NOT_FOUND for no such tournament; ORG_CONFLICT naming
 * the moves its state allows, or what the move needs. */
int org_tournament_move(struct store *s, int64_t id, enum tour_state to, org_tournament_fn cb, void *userdata);

/* result ORG_DONE with rows[0..n) every call the tournament made (store/
 * tournaments.h, store_tournaments_calls); ORG_NOT_FOUND for no such
 * tournament. */
typedef void (*org_calls_fn)(void *userdata, const struct org_result *result, const struct store_call_row *rows,
                             size_t n);
int org_tournament_calls(struct store *s, int64_t id, org_calls_fn cb, void *userdata);

#endif
