/* tools/arbiterctl/replay.h — a stored match replayed through its game's
 * engine, away from the daemon, for `arbiterctl verify` (docs/fairness.md).
 *
 * From what the REST API shows of a finished or aborted match — its game,
 * config, data files, seats, confirmation and seed (GET /v1/matches/{id})
 * and its input log (GET /v1/matches/{id}/log) — the match is created
 * again (the deal is the seed's) and every input applied in order through
 * the same function the daemon uses live and on restart (eng_log_apply,
 * engine/log.h), each input's refusal and state hash compared with what was
 * stored with it.  The shapes are match/json.h's, the daemon's own.
 *
 * Ownership: nothing is kept; the JSON arguments are borrowed.
 */
#ifndef ARBITER_TOOLS_ARBITERCTL_REPLAY_H
#define ARBITER_TOOLS_ARBITERCTL_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* The state hash's text in the log: FNV-1a 64 in 16 hex digits. */
#define REPLAY_HASH_LEN 16

/* Replays match (as GET /v1/matches/{id}) dealt from seed, with log (the
 * items of its log, by seq).  0 when every input replays to its stored
 * refusal and state hash, with *ret_inputs the inputs replayed and
 * ret_hash (REPLAY_HASH_LEN + 1) the last state hash ("" with no input);
 * -EBADMSG with why (the first difference, or what cannot be read);
 * -ENOMEM. */
int replay_match(json_t *match, uint64_t seed, json_t *log, size_t *ret_inputs, char *ret_hash, char *why,
                 size_t len);

#endif
