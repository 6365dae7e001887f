/* tools/arbiterctl/cmd_verify.c — `verify TOURNAMENT`: checks a
 * tournament's draw from what the REST API publishes, as anyone may once it
 * is finished (docs/fairness.md):
 *
 *   - each epoch's revealed secret hashes (SHA-256) to the commitment
 *     published from the start;
 *   - the tournament's seed follows from its first secret (competitive) or
 *     its secrets from its seed (not competitive);
 *   - every call's seed is HMAC-SHA256 of its epoch's secret and its
 *     identity (tournament, stage match, attempt), and is the seed its
 *     runtime match was dealt from;
 *   - unless --seeds-only, every such match, dealt again from that seed,
 *     replays its stored log to the stored refusals and state hashes
 *     (replay.h; the log needs a referee token).
 *
 * It prints one line per check (--json: one report object) and exits 0
 * when every check passed, 1 when one failed or could not be made (a
 * secret not revealed yet); a request that fails exits as any command's
 * (ctl.h).  The derivations are common/seed.h's, written to be checked
 * against docs/fairness.md, not against the daemon's code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/seed.h"
#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"
#include "tools/arbiterctl/replay.h"

/* A check's line: the longest detail of a failed replay, with its prefix. */
#define LINE_MAX_VERIFY 512

struct verify {
        struct ctl *c;
        json_t *report;                 /* {tournament, verified, checks: [{what, ok, detail}]} */
        unsigned failed;
};

/* Records one check (and prints it without --json). */
static void check(struct verify *v, bool ok, const char *what, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void check(struct verify *v, bool ok, const char *what, const char *fmt, ...) {
        char detail[LINE_MAX_VERIFY];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        v->failed += !ok;
        json_array_append_new(json_object_get(v->report, "checks"),
                              json_pack("{s:s, s:b, s:s}", "what", what, "ok", ok, "detail", detail));
        if (!v->c->json)
                printf("%-4s %s: %s\n", ok ? "ok" : "FAIL", what, detail);
}

/* The secret of epoch (1-based) from the tournament's "secrets", or false
 * (with a failed check) when it is not revealed or not well formed. */
static bool epoch_secret(struct verify *v, json_t *secrets, json_int_t epoch, uint8_t ret[SEED_SECRET_LEN]) {
        char what[32];
        json_t *e = json_array_get(secrets, (size_t) (epoch - 1));
        const char *hex = json_string_value(json_object_get(e, "secret"));

        snprintf(what, sizeof what, "epoch %lld", (long long) epoch);
        if (epoch < 1 || !e) {
                check(v, false, what, "the tournament shows no such epoch");
                return false;
        }
        if (!hex) {
                check(v, false, what, "its secret is not revealed yet: it is, once the tournament is finished");
                return false;
        }
        if (seed_unhex(hex, ret, SEED_SECRET_LEN) < 0) {
                check(v, false, what, "its secret is not 64 hex digits: \"%s\"", hex);
                return false;
        }
        return true;
}

/* Each epoch's secret against its commitment, and the tournament's seed. */
static void verify_epochs(struct verify *v, json_t *t) {
        json_t *secrets = json_object_get(t, "secrets"), *e, *seed = json_object_get(t, "seed");
        bool competitive = json_is_true(json_object_get(t, "competitive"));
        uint8_t secret[SEED_SECRET_LEN], digest[SEED_SHA256_LEN], want[SEED_SECRET_LEN];
        char hex[SEED_HEX_LEN + 1], what[32];
        size_t i;

        json_array_foreach(secrets, i, e) {
                json_int_t epoch = (json_int_t) i + 1;
                snprintf(what, sizeof what, "epoch %lld", (long long) epoch);
                if (!epoch_secret(v, secrets, epoch, secret))
                        continue;
                seed_commitment(secret, digest);
                seed_hex(digest, sizeof digest, hex);
                const char *published = json_string_value(json_object_get(e, "commitment"));
                if (published && strcmp(published, hex) == 0)
                        check(v, true, what, "SHA-256 of the revealed secret is the commitment published, %s", hex);
                else
                        check(v, false, what, "SHA-256 of the revealed secret is %s, but the commitment published "
                              "was %s", hex, published ? published : "none");
                if (competitive || !json_is_integer(seed))
                        continue;
                /* not competitive: the secrets follow from the seed */
                seed_secret_of_seed((uint64_t) json_integer_value(seed), (uint32_t) epoch, want);
                seed_hex(want, sizeof want, hex);
                check(v, memcmp(want, secret, sizeof want) == 0, what,
                      "not competitive: the secret %s from the seed %lld", memcmp(want, secret, sizeof want) == 0
                      ? "follows" : "does NOT follow", (long long) json_integer_value(seed));
        }
        if (competitive && json_is_integer(seed) && epoch_secret(v, secrets, 1, secret)) {
                uint64_t s;
                seed_tournament(secret, &s);
                if (s == (uint64_t) json_integer_value(seed))
                        check(v, true, "stage draws", "the tournament's seed %" PRIu64 " follows from the first secret",
                              s);
                else
                        check(v, false, "stage draws", "the tournament's seed is %lld, but the first secret gives %"
                              PRIu64, (long long) json_integer_value(seed), s);
        }
}

/* One call: its seed from the secret, the match's seed, and its replay. */
static int verify_call(struct verify *v, json_int_t tid, json_t *secrets, json_t *call, bool seeds_only) {
        json_int_t mid = json_integer_value(json_object_get(call, "match")),
                   smid = json_integer_value(json_object_get(call, "stage_match")),
                   attempt = json_integer_value(json_object_get(call, "attempt")),
                   epoch = json_integer_value(json_object_get(call, "epoch"));
        char what[96], path[HTTP_PATH_MAX], hash[REPLAY_HASH_LEN + 1], why[LINE_MAX_VERIFY - 64];
        uint8_t secret[SEED_SECRET_LEN];
        json_t *match, *log, *stored;
        uint64_t want;
        size_t inputs;
        int st;

        snprintf(what, sizeof what, "match %lld (stage match %lld, attempt %lld, epoch %lld)", (long long) mid,
                 (long long) smid, (long long) attempt, (long long) epoch);
        if (!epoch_secret(v, secrets, epoch, secret))
                return CTL_EXIT_OK;
        if (attempt < 1 || attempt > UINT32_MAX || seed_match(secret, tid, smid, (uint32_t) attempt, &want) < 0) {
                check(v, false, what, "not a call's identity");
                return CTL_EXIT_OK;
        }
        http_path(path, "/v1/matches/%lld", (long long) mid);
        if ((st = http_get_json(v->c, path, &match)))
                return st;
        stored = json_object_get(match, "seed");
        if (!json_is_integer(stored)) {
                check(v, false, what, "its seed is not shown: the match is %s, not over",
                      json_string_value(json_object_get(match, "state")) ?: "in no state");
                json_decref(match);
                return CTL_EXIT_OK;
        }
        if ((uint64_t) json_integer_value(stored) != want) {
                check(v, false, what, "dealt from seed %lld, but the secret gives %" PRIu64,
                      (long long) json_integer_value(stored), want);
                json_decref(match);
                return CTL_EXIT_OK;
        }
        if (seeds_only) {
                check(v, true, what, "seed %" PRIu64 " follows from the secret", want);
                json_decref(match);
                return CTL_EXIT_OK;
        }
        http_path(path, "/v1/matches/%lld/log", (long long) mid);
        if ((st = http_get_all(v->c, path, 0, 0, &log))) {
                json_decref(match);
                return st;
        }
        if (replay_match(match, want, log, &inputs, hash, why, sizeof why) < 0)
                check(v, false, what, "seed %" PRIu64 " follows from the secret, but its log does not replay: %s",
                      want, why);
        else if (inputs == 0)
                check(v, true, what, "seed %" PRIu64 " follows from the secret; no input to replay (%s)", want,
                      json_string_value(json_object_get(match, "state")) ?: "?");
        else
                check(v, true, what, "seed %" PRIu64 " follows from the secret; %zu %s to state hash %s",
                      want, inputs, inputs == 1 ? "input replays" : "inputs replay", hash);
        json_decref(log);
        json_decref(match);
        return CTL_EXIT_OK;
}

static int verify_cmd(struct ctl *c, const struct args *a) {
        struct verify v = { .c = c };
        char path[HTTP_PATH_MAX];
        json_t *t, *calls, *call;
        int64_t tid;
        size_t i;
        int st;

        if (args_pos_id(a, 0, "TOURNAMENT", &tid) < 0)
                return CTL_EXIT_USAGE;
        http_path(path, "/v1/tournaments/%lld", (long long) tid);
        if ((st = http_get_json(c, path, &t)))
                return st;
        http_path(path, "/v1/tournaments/%lld/calls", (long long) tid);
        if ((st = http_get_json(c, path, &calls))) {
                json_decref(t);
                return st;
        }
        v.report = json_pack("{s:I, s:O?, s:O?, s:[]}", "tournament", (json_int_t) tid, "state",
                             json_object_get(t, "state"), "competitive", json_object_get(t, "competitive"), "checks");
        if (!v.report) {
                json_decref(t);
                json_decref(calls);
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        }
        if (!c->json)
                printf("tournament %lld \"%s\": %s, %s; %zu secret%s, %zu call%s\n", (long long) tid,
                       json_string_value(json_object_get(t, "name")) ?: "",
                       json_is_true(json_object_get(t, "competitive")) ? "competitive" : "NOT competitive",
                       json_string_value(json_object_get(t, "state")) ?: "?",
                       json_array_size(json_object_get(t, "secrets")),
                       json_array_size(json_object_get(t, "secrets")) == 1 ? "" : "s",
                       json_array_size(json_object_get(calls, "items")),
                       json_array_size(json_object_get(calls, "items")) == 1 ? "" : "s");
        verify_epochs(&v, t);
        json_array_foreach(json_object_get(calls, "items"), i, call)
                if ((st = verify_call(&v, tid, json_object_get(t, "secrets"), call, args_flag(a, "seeds-only"))))
                        break;
        json_decref(t);
        json_decref(calls);
        if (st) {
                json_decref(v.report);
                return st;
        }
        json_object_set_new(v.report, "verified", json_boolean(v.failed == 0));
        if (c->json)
                out_json(v.report);
        else if (v.failed == 0)
                printf("verified: every seed follows from the revealed secrets%s\n",
                       args_flag(a, "seeds-only") ? "" : ", and every match replays to its stored state hashes");
        else
                printf("NOT verified: %u check%s failed\n", v.failed, v.failed == 1 ? "" : "s");
        json_decref(v.report);
        return v.failed == 0 ? CTL_EXIT_OK : CTL_EXIT_ERROR;
}

static const struct opt opts[] = {
        { "seeds-only", 0, OPT_FLAG, NULL, "check the secrets and seeds only, not the matches' logs (no token needed)",
          NULL },
        { NULL },
};

static const struct verb verbs[] = {
        { "", "TOURNAMENT [--seeds-only]", 1, 1, NULL,
          "check a finished tournament's draw: secrets, seeds and every match's log",
          "GET /v1/tournaments/{id}, .../calls, /v1/matches/{id} (display), /v1/matches/{id}/log (referee)",
          "Each revealed secret must hash to the commitment published from the start; each\n"
          "call's seed must be HMAC-SHA256 of its epoch's secret and its identity, and be\n"
          "the seed its match was dealt from; and each match, dealt again from it here,\n"
          "must replay its stored log to the stored state hashes (docs/fairness.md).\n"
          "Exits 0 when every check passed, 1 when one failed or could not be made.\n",
          opts, verify_cmd },
        { NULL },
};

const struct noun noun_verify = { "verify", "check a finished tournament's draw, as anyone may", verbs };
