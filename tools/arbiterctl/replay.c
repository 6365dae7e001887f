/* tools/arbiterctl/replay.c — see replay.h. */
#include "tools/arbiterctl/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/log.h"
#include "match/json.h"

/* Compares one replayed input with what the log stored with it, as the
 * daemon's replay check does (match/match.h, "Replay check"). */
static int compare(const json_t *item, const struct eng_out *out, const char *hash, char *why, size_t len) {
        const char *refusal = json_string_value(json_object_get(item, "refusal")),
                   *stored = json_string_value(json_object_get(item, "state_hash"));
        json_int_t seq = json_integer_value(json_object_get(item, "seq"));
        const char *replayed = out->refusal == ENG_ACCEPTED ? NULL : eng_refusal_name(out->refusal);

        if ((refusal == NULL) != (replayed == NULL) || (refusal && strcmp(refusal, replayed) != 0)) {
                snprintf(why, len, "input %lld was %s when played, %s on replay", (long long) seq,
                         refusal ? refusal : "accepted", replayed ? replayed : "accepted");
                return -EBADMSG;
        }
        if (!stored || strcmp(stored, hash) != 0) {
                snprintf(why, len, "the state hash after input %lld is %s on replay, %s was stored", (long long) seq,
                         hash, stored ? stored : "none");
                return -EBADMSG;
        }
        return 0;
}

int replay_match(json_t *match, uint64_t seed, json_t *log, size_t *ret_inputs, char *ret_hash, char *why,
                 size_t len) {
        const char *name = json_string_value(json_object_get(match, "game"));
        const struct eng_game *g = name ? eng_game_find(name) : NULL;
        json_t *seats = json_object_get(match, "seats"), *item;
        struct eng_record *records = NULL;
        struct eng_data files;
        struct eng_config cfg;
        struct eng_error err;
        void *state = NULL;
        size_t i;
        int r = -EBADMSG;

        *ret_inputs = 0;
        ret_hash[0] = '\0';
        if (!g) {
                snprintf(why, len, "this arbiterctl has no game \"%s\"", name ? name : "(none)");
                return -EBADMSG;
        }
        if (!json_is_array(seats) || !json_is_array(log)) {
                snprintf(why, len, "the match or its log is not what GET /v1/matches/{id} shows");
                return -EBADMSG;
        }
        if (match_json_data_from(g, json_object_get(match, "data"), &files, &err) < 0 ||
            match_json_config_from(g, json_object_get(match, "config"), &files, (unsigned) json_array_size(seats),
                                   &cfg, &err) < 0) {
                snprintf(why, len, "the match's config or data cannot be read: %s", err.message);
                return -EBADMSG;
        }
        state = calloc(1, g->state_size);
        records = calloc(json_array_size(log) + 1, sizeof *records);
        if (!state || !records) {
                r = -ENOMEM;
                snprintf(why, len, "out of memory");
                goto out;
        }
        const char *by = json_string_value(json_object_get(json_object_get(match, "confirm"), "by"));
        struct eng_setup setup = {
                .game = g, .cfg = &cfg, .data = &files, .n_seats = (unsigned) json_array_size(seats),
                .seed = seed, .confirm = by && strcmp(by, "referee") == 0,
        };
        if (g->create(state, &cfg, &files, setup.n_seats, seed) < 0) {
                snprintf(why, len, "the engine cannot create the match");
                goto out;
        }
        json_array_foreach(log, i, item) {
                struct eng_out out;

                if (match_json_input_from(g, json_object_get(item, "input"), &records[i].in, &err) < 0) {
                        snprintf(why, len, "input %lld cannot be read: %s",
                                 (long long) json_integer_value(json_object_get(item, "seq")), err.message);
                        goto out;
                }
                if (eng_log_apply(&setup, state, records, i, &records[i].in, &out) < 0) {
                        snprintf(why, len, "the engine failed on input %lld",
                                 (long long) json_integer_value(json_object_get(item, "seq")));
                        goto out;
                }
                snprintf(ret_hash, REPLAY_HASH_LEN + 1, "%016" PRIx64, g->hash(state));
                if (compare(item, &out, ret_hash, why, len) < 0)
                        goto out;
                records[i].refusal = out.refusal;
                if (records[i].in.kind == ENG_IN_VOID && out.refusal == ENG_ACCEPTED)
                        eng_log_mark_voided(records, i);
                *ret_inputs = i + 1;
        }
        r = 0;
out:
        free(records);
        free(state);
        return r;
}
