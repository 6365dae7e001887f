/* organiser/draws.h — a tournament's fair draws (docs/fairness.md): the
 * secret of each epoch, the seed of its stages' draws and the seed of each
 * call of a stage match, from common/seed.h's derivations.
 *
 * A tournament holds one secret per epoch (tournaments.secrets; an epoch is
 * a stretch between the start and the end: reopening a finished tournament
 * begins another, tour_state_move_begins_epoch).  Each call of one of its
 * stage matches is a runtime match whose seed comes from the current secret
 * and the call's identity (match_calls, store/tournaments.h).  Which
 * secrets a reply shows is tournament/states.h's (tour_secret_revealed).
 *
 * Secrets pass as lowercase hex, as the database takes them; the buffers
 * holding them are wiped once used.  Functions return 0 or -errno.
 */
#ifndef ARBITER_ORGANISER_DRAWS_H
#define ARBITER_ORGANISER_DRAWS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/seed.h"

/* The secret of epoch (>= 1) of a tournament, as hex: drawn by the kernel
 * for a competitive one, else from its seed.  0 or -errno. */
int org_secret_new(bool competitive, uint64_t seed, uint32_t epoch, char ret_hex[SEED_HEX_LEN + 1]);

/* A competitive tournament's own seed (its stages' draws) from its first
 * secret, hex.  0 or -EINVAL. */
int org_tournament_seed(const char *secret_hex, uint64_t *ret);

/* The deck seed of attempt (>= 1) of stage match stage_match of
 * tournament, from the current secret in hex (store_tournaments_next_call).
 * 0 or -EINVAL. */
int org_call_seed(const char *secret_hex, int64_t tournament, int64_t stage_match, int attempt, uint64_t *ret);

#endif
