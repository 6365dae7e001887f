/* Property and replay tests over many simulated Crash Pilot matches
 * (cp_sim_match: bots with random correct and wrong calls, ties, expiries,
 * late calls, voids, pauses and junk inputs).
 *
 * After every input of every match: every card is in exactly one place, no
 * row repeats a colour or an object, chips never exceed three (cp_check
 * checks all of these and more); a refused input left the hash unchanged;
 * the outputs fit the game's declared bound; every window opened is closed
 * once; the neutral deck never drops below its size after the first reveal.
 * After every match: it finished, within the bound on judged calls, with a
 * full set of placements.  Then the log is replayed from seed and config
 * and must give the live hash and the same outputs at every step, and a
 * copy of the state taken halfway must carry on exactly as the original. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crash_pilot.h"
#include "engine/engine.h"
#include "engine/hash.h"

/* The brief's count: 2,000 random matches for each number of players. */
#define MATCHES_PER_SEAT_COUNT  2000
/* Far beyond any simulated match (about 50 inputs on average, a few
 * hundred at the harshest settings below): reaching it means a match that
 * does not end. */
#define MAX_LOG                 4096

struct run {
        unsigned n_seats;
        uint16_t neutral_after_first_reveal;
        size_t steps;
        uint64_t prev_hash;
        int64_t windows_open;           /* opened − closed so far */
        size_t max_outputs;
        uint64_t hash[MAX_LOG];
        uint64_t outputs[MAX_LOG];
        struct eng_input log[MAX_LOG];
        char why[256];
};

/* The outputs of one input as a hash: eng_out_push zeroes each output, so
 * their bytes are comparable. */
static uint64_t outputs_digest(const struct eng_out *out) {
        struct eng_hash h;

        eng_hash_init(&h);
        eng_hash_u32(&h, (uint32_t) out->refusal);
        eng_hash_i64(&h, out->wake_us);
        eng_hash_u64(&h, out->n);
        eng_hash_bytes(&h, out->v, out->n * sizeof out->v[0]);
        return eng_hash_value(&h);
}

#define PROP_FAIL(run, ...) do { \
        snprintf((run)->why, sizeof (run)->why, __VA_ARGS__); \
        return -EBADMSG; \
} while (0)

static int step(void *ctx, const struct cp_state *st, const struct eng_input *in,
                const struct eng_out *out) {
        struct run *run = ctx;
        uint64_t h = cp_game.hash(st);
        char why[200];

        if (cp_check(st, why, sizeof why) < 0)
                PROP_FAIL(run, "input %zu (%s): %s", run->steps, eng_input_kind_name(in->kind), why);
        if (out->n > cp_game.max_outputs)
                PROP_FAIL(run, "input %zu made %zu outputs", run->steps, out->n);
        if (out->refusal != ENG_ACCEPTED && h != run->prev_hash)
                PROP_FAIL(run, "input %zu refused (%s) but the state changed", run->steps,
                          eng_refusal_name(out->refusal));
        if (out->wake_us != cp_game.wake_us(st))
                PROP_FAIL(run, "input %zu: wake_us disagrees", run->steps);
        for (size_t i = 0; i < out->n; i++) {
                if (out->v[i].kind == ENG_REQ_WINDOW_OPEN)
                        run->windows_open++;
                if (out->v[i].kind == ENG_REQ_WINDOW_CLOSE)
                        run->windows_open--;
        }
        if (run->windows_open != (st->window_open ? 1 : 0))
                PROP_FAIL(run, "input %zu: %lld windows open", run->steps,
                          (long long) run->windows_open);
        if (run->steps == 0)
                run->neutral_after_first_reveal = st->t.neutral_len;
        else if (st->t.phase != CP_PHASE_READY && st->t.neutral_len < run->neutral_after_first_reveal)
                PROP_FAIL(run, "input %zu: neutral deck down to %u from %u", run->steps,
                          st->t.neutral_len, run->neutral_after_first_reveal);
        if (run->steps >= MAX_LOG)
                return -E2BIG;
        if (out->n > run->max_outputs)
                run->max_outputs = out->n;
        run->hash[run->steps] = h;
        run->outputs[run->steps] = outputs_digest(out);
        run->prev_hash = h;
        run->steps++;
        return 0;
}

/* The end of a match: finished with a winner, every seat placed, the
 * winner first, and no more judged calls than the rules allow.  Correct
 * calls each cost the caller a card and the one that would turn over a
 * last card wins, so they number at most n × dealt − n + 1; wrong calls
 * each earn a chip and n − 1 seats can take three before the match ends
 * and the last two, so at most 3n − 1. */
static int check_end(struct run *run, const struct cp_state *st) {
        struct eng_result res;
        unsigned calls = 0, n = run->n_seats;
        unsigned bound = n * cp_cards_per_player(n) + 2 * n;
        unsigned seen = 0;

        if (cp_game.status(st) != ENG_STATUS_FINISHED)
                PROP_FAIL(run, "not finished");
        if (cp_game.result(st, &res) < 0 || !res.finished)
                PROP_FAIL(run, "no result");
        if (res.winner < 0 || res.place[res.winner] != 1 || res.order[0] != res.winner)
                PROP_FAIL(run, "winner %d not first", res.winner);
        for (unsigned s = 0; s < n; s++) {
                calls += res.stats[s].calls;
                if (res.place[s] < 1 || res.place[s] > n)
                        PROP_FAIL(run, "seat %u placed %u", s, res.place[s]);
                if (s != (unsigned) res.winner && res.place[s] == 1)
                        PROP_FAIL(run, "seat %u shares first place with the winner", s);
                seen |= 1u << res.order[s];
        }
        if (seen != (1u << n) - 1)
                PROP_FAIL(run, "order is not a permutation");
        if (calls > bound)
                PROP_FAIL(run, "%u judged calls, more than %u", calls, bound);
        return 0;
}

/* Replays the log from the seed: the same hash and outputs after every
 * input, and a copy made halfway that goes on alike. */
static int check_replay(struct run *run, const struct eng_config *cfg, uint64_t seed,
                        const struct cp_state *live, bool fork) {
        struct cp_state *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        struct eng_out out;
        size_t half = run->steps / 2;
        int r = 0;

        if (!a || !b) {
                free(a);
                free(b);
                return -ENOMEM;
        }
        if (cp_game.create(a, cfg, run->n_seats, seed) < 0) {
                snprintf(run->why, sizeof run->why, "create failed on replay");
                r = -EBADMSG;
        }
        for (size_t i = 0; r == 0 && i < run->steps; i++) {
                if (fork && i == half)
                        memcpy(b, a, sizeof *b);
                if (cp_game.apply(a, &run->log[i], &out) < 0 || cp_game.hash(a) != run->hash[i] ||
                    outputs_digest(&out) != run->outputs[i]) {
                        snprintf(run->why, sizeof run->why, "replay differs at input %zu", i);
                        r = -EBADMSG;
                }
        }
        if (r == 0 && memcmp(a, live, sizeof *a) != 0) {
                snprintf(run->why, sizeof run->why, "replayed state differs in memory");
                r = -EBADMSG;
        }
        for (size_t i = half; r == 0 && fork && i < run->steps; i++)
                if (cp_game.apply(b, &run->log[i], &out) < 0 || cp_game.hash(b) != run->hash[i]) {
                        snprintf(run->why, sizeof run->why, "copy differs at input %zu", i);
                        r = -EBADMSG;
                }
        free(a);
        free(b);
        return r;
}

static void run_matches(const struct eng_config *cfg, const struct cp_sim_params *p,
                        unsigned n_seats, unsigned matches, uint64_t seed0, size_t *ret_max_outputs) {
        struct run *run = malloc(sizeof *run);
        struct cp_state *st = malloc(sizeof *st);

        assert_non_null(run);
        assert_non_null(st);
        for (unsigned i = 0; i < matches; i++) {
                uint64_t seed = seed0 + i;
                struct cp_sim_stats stats;
                int r;

                memset(run, 0, offsetof(struct run, hash));
                run->n_seats = n_seats;
                run->prev_hash = 0;
                r = cp_sim_match(st, cfg, n_seats, seed, ~seed, p, run->log, MAX_LOG, step, run, &stats);
                if (r == 0)
                        r = check_end(run, st);
                if (r == 0)
                        r = check_replay(run, cfg, seed, st, i % 10 == 0);
                if (r < 0)
                        fail_msg("%u seats, seed %llu: %d %s", n_seats, (unsigned long long) seed, r,
                                 run->why);
                if (stats.inputs != run->steps)
                        fail_msg("%u seats, seed %llu: %zu inputs, %zu steps", n_seats,
                                 (unsigned long long) seed, stats.inputs, run->steps);
                if (ret_max_outputs && run->max_outputs > *ret_max_outputs)
                        *ret_max_outputs = run->max_outputs;
        }
        free(run);
        free(st);
}

/* The brief's 2,000 matches per player count, default settings (a second
 * between verdict and next card, so every reveal goes through a timer). */
static void random_matches_keep_every_invariant_and_replay_exactly(void **state) {
        struct eng_config cfg;
        struct cp_sim_params p;
        size_t max_outputs = 0;

        (void) state;
        eng_config_defaults(&cp_game, &cfg);
        cp_sim_params_default(&p);
        p.max_inputs = MAX_LOG;
        for (unsigned n = CP_MIN_SEATS; n <= CP_MAX_SEATS; n++)
                run_matches(&cfg, &p, n, MATCHES_PER_SEAT_COUNT, (uint64_t) n << 32, &max_outputs);
        assert_true(max_outputs > 0 && max_outputs <= cp_game.max_outputs);
}

/* Harsher tables on other decks, with instant reveals: mostly wrong calls
 * (many eliminations), many ties and expiries, every deck shape. */
static void harsh_matches_on_every_deck_shape_keep_every_invariant(void **state) {
        struct eng_config cfg;
        struct cp_sim_params p;

        (void) state;
        eng_config_defaults(&cp_game, &cfg);
        cfg.v[CP_PARAM_PAUSE_MS] = 0;
        cfg.v[CP_PARAM_TIMEOUT_MS] = 1000;
        cp_sim_params_default(&p);
        p.max_inputs = MAX_LOG;
        p.correct_pct = 30;
        p.tie_pct = 30;
        p.expire_pct = 15;
        p.void_pct = 10;
        p.reaction_max_us = 900000;
        for (int o = CP_MIN_KINDS; o <= CP_MAX_KINDS; o++)
                for (int k = 1; k <= CP_MAX_COPIES; k++)
                        for (unsigned n = CP_MIN_SEATS; n <= CP_MAX_SEATS; n++) {
                                cfg.v[CP_PARAM_OBJECTS] = o;
                                cfg.v[CP_PARAM_COLOURS] = CP_MAX_KINDS + CP_MIN_KINDS - o;
                                cfg.v[CP_PARAM_COPIES] = k;
                                if (eng_config_validate(&cp_game, &cfg, n, NULL) < 0)
                                        continue;
                                run_matches(&cfg, &p, n, 40, (uint64_t) (o * 100 + k * 10 + (int) n) << 24,
                                            NULL);
                        }
}

/* Perfect players: every call correct, never a tie.  The first player to
 * make enough calls wins by turning over their last card. */
static void perfect_players_end_by_a_last_card(void **state) {
        struct eng_config cfg;
        struct cp_sim_params p;
        struct cp_state st;

        (void) state;
        eng_config_defaults(&cp_game, &cfg);
        cp_sim_params_default(&p);
        p = (struct cp_sim_params) { .correct_pct = 100, .reaction_min_us = 200000,
                                     .reaction_max_us = 800000, .max_inputs = MAX_LOG };
        for (uint64_t seed = 0; seed < 200; seed++) {
                struct eng_result res;

                assert_int_equal(cp_sim_match(&st, &cfg, 2 + seed % 4, seed, seed, &p, NULL, 0, NULL,
                                              NULL, NULL), 0);
                assert_int_equal(cp_game.result(&st, &res), 0);
                assert_int_equal(res.stats[res.winner].cards_left, 0);
                assert_true(st.t.has_face_up);
                for (unsigned s = 0; s < st.n_seats; s++)
                        assert_int_equal(res.stats[s].wrong, 0);
        }
}

/* The same seed, config and log give the same match even through the
 * generic path the runtime uses (eng_replay), and a different seed does
 * not. */
static void seed_config_and_log_reproduce_the_match(void **state) {
        struct eng_config cfg;
        struct cp_sim_params p;
        struct cp_sim_stats s;
        struct cp_state live, again;
        struct eng_input *log = malloc(MAX_LOG * sizeof *log);

        (void) state;
        assert_non_null(log);
        eng_config_defaults(&cp_game, &cfg);
        cp_sim_params_default(&p);
        p.max_inputs = MAX_LOG;
        assert_int_equal(cp_sim_match(&live, &cfg, 4, 77, 78, &p, log, MAX_LOG, NULL, NULL, &s), 0);
        assert_int_equal(eng_replay(&cp_game, &again, &cfg, 4, 77, log, s.inputs, NULL), 0);
        assert_true(cp_game.hash(&again) == cp_game.hash(&live));
        assert_int_equal(eng_replay(&cp_game, &again, &cfg, 4, 78, log, s.inputs, NULL), 0);
        assert_true(cp_game.hash(&again) != cp_game.hash(&live));
        free(log);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(random_matches_keep_every_invariant_and_replay_exactly),
                cmocka_unit_test(harsh_matches_on_every_deck_shape_keep_every_invariant),
                cmocka_unit_test(perfect_players_end_by_a_last_card),
                cmocka_unit_test(seed_config_and_log_reproduce_the_match),
        };

        return cmocka_run_group_tests_name("engine_replay", tests, NULL, NULL);
}
