/* Property and replay tests over many simulated Crash Pilot matches
 * (cp_sim_match: bots with random correct and wrong calls, ties, expiries,
 * late calls, void_calls, pauses and junk inputs).
 *
 * After every input of every match: every card is in exactly one place, no
 * row repeats a colour or an object, chips never exceed three (cp_check
 * checks all of these and more); a refused input left the hash unchanged;
 * the outputs fit the game's declared bound; every window opened is closed
 * once; no event names a card nobody has seen; the neutral deck never drops
 * below its size after the first reveal.  After every match: it finished,
 * within the bound on judged calls, with a full set of placements.  Then
 * the log is replayed from the setup through the framework's log layer
 * (engine/log.h, as the runtime replays on start-up) and must give the live
 * hash and the same outputs and refusals at every step, and a copy of the
 * state taken halfway must carry on exactly as the original.
 *
 * The framework's undo is played too: matches driven through eng_log_apply
 * with voids (while running, while paused, of a finished match waiting for
 * a referee's confirmation) must replay to the live hash after every
 * input, and the state after each input must be what a rebuild from the
 * log gives. */
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
#include "engine/log.h"
#include "engine/rng.h"

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
        enum eng_refusal refusal[MAX_LOG];
        struct eng_input log[MAX_LOG];
        struct eng_record records[MAX_LOG];
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

static bool seen(const struct cp_state *st, uint8_t card) {
        return st->seen[card / 8] & (1u << (card % 8));
}

/* Every card an event names is one everybody has seen: the handle of a
 * card still hidden would let people follow it before it is turned up. */
static const char *hidden_card_named(const struct cp_state *st, const struct eng_out *out) {
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_event_def *def = out->v[i].def;
                size_t at = 0;

                for (size_t f = 0; f < def->n_fields; f++) {
                        int64_t v = out->v[i].v[at];
                        uint8_t card;

                        at += eng_field_slots(&def->fields[f]);
                        if (def->fields[f].type != ENG_T_CARD || (v == ENG_ABSENT && def->fields[f].optional))
                                continue;
                        if (v < 0 || v > UINT32_MAX || cp_card_of(st, (uint32_t) v, &card) < 0 || !seen(st, card))
                                return def->name;
                }
        }
        return NULL;
}

static int step(void *ctx, const struct cp_state *st, const struct eng_input *in,
                const struct eng_out *out) {
        struct run *run = ctx;
        uint64_t h = cp_game.hash(st);
        const char *named;
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
                if (out->v[i].def == &eng_req_window_open)
                        run->windows_open++;
                if (out->v[i].def == &eng_req_window_close)
                        run->windows_open--;
        }
        if (run->windows_open != (st->window_open ? 1 : 0))
                PROP_FAIL(run, "input %zu: %lld windows open", run->steps,
                          (long long) run->windows_open);
        named = hidden_card_named(st, out);
        if (named)
                PROP_FAIL(run, "input %zu: %s names a hidden card", run->steps, named);
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
        run->refusal[run->steps] = out->refusal;
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
        unsigned seen_seats = 0;

        if (cp_game.status(st) != ENG_STATUS_FINISHED)
                PROP_FAIL(run, "not finished");
        if (cp_game.result(st, &res) < 0 || !res.finished)
                PROP_FAIL(run, "no result");
        if (res.winner < 0 || res.place[res.winner] != 1 || res.order[0] != res.winner)
                PROP_FAIL(run, "winner %d not first", res.winner);
        for (unsigned s = 0; s < n; s++) {
                calls += st->t.stats[s].calls;
                if (res.place[s] < 1 || res.place[s] > n)
                        PROP_FAIL(run, "seat %u placed %u", s, res.place[s]);
                if (s != (unsigned) res.winner && res.place[s] == 1)
                        PROP_FAIL(run, "seat %u shares first place with the winner", s);
                seen_seats |= 1u << res.order[s];
        }
        if (seen_seats != (1u << n) - 1)
                PROP_FAIL(run, "order is not a permutation");
        if (calls > bound)
                PROP_FAIL(run, "%u judged calls, more than %u", calls, bound);
        return 0;
}

/* Replays the log from the setup through the log layer: the same hash,
 * outputs and refusal after every input, the same state in memory at the
 * end, and a copy made halfway that goes on alike; then eng_replay over the
 * same records, as the runtime replays on start-up, gives the same state
 * and every refusal again. */
static int check_replay(struct run *run, const struct eng_config *cfg, uint64_t seed,
                        const struct cp_state *live, bool fork) {
        struct cp_state *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        struct eng_setup setup = { .game = &cp_game, .cfg = cfg, .n_seats = run->n_seats, .seed = seed };
        struct eng_out out;
        size_t half = run->steps / 2, refused = 0;
        int r = 0;

        if (!a || !b) {
                free(a);
                free(b);
                return -ENOMEM;
        }
        if (cp_game.create(a, cfg, NULL, run->n_seats, seed) < 0) {
                snprintf(run->why, sizeof run->why, "create failed on replay");
                r = -EBADMSG;
        }
        for (size_t i = 0; r == 0 && i < run->steps; i++) {
                if (fork && i == half)
                        memcpy(b, a, sizeof *b);
                if (eng_log_apply(&setup, a, run->records, i, &run->log[i], &out) < 0 ||
                    cp_game.hash(a) != run->hash[i] || outputs_digest(&out) != run->outputs[i] ||
                    out.refusal != run->refusal[i]) {
                        snprintf(run->why, sizeof run->why, "replay differs at input %zu", i);
                        r = -EBADMSG;
                }
                run->records[i] = (struct eng_record) { .in = run->log[i], .refusal = out.refusal };
                refused += out.refusal != ENG_ACCEPTED;
        }
        if (r == 0 && memcmp(a, live, sizeof *a) != 0) {
                snprintf(run->why, sizeof run->why, "replayed state differs in memory");
                r = -EBADMSG;
        }
        for (size_t i = half; r == 0 && fork && i < run->steps; i++)
                if (eng_log_apply(&setup, b, run->records, i, &run->log[i], &out) < 0 ||
                    cp_game.hash(b) != run->hash[i]) {
                        snprintf(run->why, sizeof run->why, "copy differs at input %zu", i);
                        r = -EBADMSG;
                }
        if (r == 0) {
                size_t replay_refused = 0;

                /* what eng_replay must find again, not copy */
                for (size_t i = 0; i < run->steps; i++)
                        run->records[i].refusal = ENG_REFUSED_STATE;
                if (eng_replay(&setup, b, run->records, run->steps, &replay_refused) < 0 ||
                    memcmp(b, live, sizeof *b) != 0 || replay_refused != refused) {
                        snprintf(run->why, sizeof run->why, "eng_replay differs");
                        r = -EBADMSG;
                }
                for (size_t i = 0; r == 0 && i < run->steps; i++)
                        if (run->records[i].refusal != run->refusal[i] || run->records[i].voided_by) {
                                snprintf(run->why, sizeof run->why, "eng_replay: record %zu differs", i);
                                r = -EBADMSG;
                        }
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
                                if (eng_config_validate(&cp_game, &cfg, NULL, n, NULL) < 0)
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
        p = (struct cp_sim_params) { .correct_pct = 100, .reaction_min_us = 200000,
                                     .reaction_max_us = 800000, .max_inputs = MAX_LOG };
        for (uint64_t seed = 0; seed < 200; seed++) {
                struct eng_result res;

                assert_int_equal(cp_sim_match(&st, &cfg, 2 + seed % 4, seed, seed, &p, NULL, 0, NULL,
                                              NULL, NULL), 0);
                assert_int_equal(cp_game.result(&st, &res), 0);
                assert_int_equal(st.t.stack_len[res.winner], 0);
                assert_true(st.t.has_face_up);
                for (unsigned s = 0; s < st.n_seats; s++)
                        assert_int_equal(st.t.stats[s].wrong, 0);
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
        struct eng_input *in = malloc(MAX_LOG * sizeof *in);
        struct eng_record *log = malloc(MAX_LOG * sizeof *log);
        struct eng_setup setup = { .game = &cp_game, .cfg = &cfg, .n_seats = 4, .seed = 77 };

        (void) state;
        assert_non_null(in);
        assert_non_null(log);
        eng_config_defaults(&cp_game, &cfg);
        cp_sim_params_default(&p);
        p.max_inputs = MAX_LOG;
        assert_int_equal(cp_sim_match(&live, &cfg, 4, 77, 78, &p, in, MAX_LOG, NULL, NULL, &s), 0);
        for (size_t i = 0; i < s.inputs; i++)
                log[i] = (struct eng_record) { .in = in[i] };
        assert_int_equal(eng_replay(&setup, &again, log, s.inputs, NULL), 0);
        assert_true(cp_game.hash(&again) == cp_game.hash(&live));
        setup.seed = 78;
        assert_int_equal(eng_replay(&setup, &again, log, s.inputs, NULL), 0);
        assert_true(cp_game.hash(&again) != cp_game.hash(&live));
        free(log);
        free(in);
}

/* ---- Matches with the framework's undo. */

/* A table driven through the log layer, as the runtime drives it: bots
 * call, tie and miss; the operator pauses; the referee voids inputs (the
 * framework's undo: any input in effect, recent ones mostly), uses
 * void_call, and confirms a finished result when the setup asks for it. */
struct table {
        struct eng_setup setup;
        struct eng_config cfg;
        struct cp_state st, scratch;
        struct eng_out out;
        struct eng_rng rng;
        struct eng_record log[MAX_LOG];
        uint64_t hash[MAX_LOG];
        uint64_t outputs[MAX_LOG];
        size_t n;
        uint64_t seq;
        int64_t now;
        /* what happened, so the test knows it tried what it meant to */
        size_t voids, voids_paused, voids_provisional, voids_refused, confirms;
};

static bool roll(struct table *t, unsigned pct) {
        return eng_rng_below(&t->rng, 100) < pct;
}

/* Applies in live, logs it, and checks the state against a rebuild from
 * the log as it now stands. */
static void submit(struct table *t, struct eng_input *in) {
        char why[200];

        assert_true(t->n < MAX_LOG);
        in->seq = ++t->seq;
        in->time_us = t->now;
        assert_int_equal(eng_log_apply(&t->setup, &t->st, t->log, t->n, in, &t->out), 0);
        t->log[t->n] = (struct eng_record) { .in = *in, .refusal = t->out.refusal };
        eng_log_mark_voided(t->log, t->n);
        t->hash[t->n] = cp_game.hash(&t->st);
        t->outputs[t->n] = outputs_digest(&t->out);
        t->n++;
        if (cp_check(&t->st, why, sizeof why) < 0)
                fail_msg("input %zu (%s): %s", t->n - 1, eng_input_kind_name(in->kind), why);
        if (t->out.n > cp_game.max_outputs + 1)         /* + the framework's inputs_voided */
                fail_msg("input %zu made %zu outputs", t->n - 1, t->out.n);
        if (t->out.wake_us != cp_game.wake_us(&t->st))
                fail_msg("input %zu: wake_us disagrees", t->n - 1);
        /* the log alone gives the same match, without replaying what was
         * voided */
        assert_int_equal(eng_log_rebuild(&t->setup, &t->scratch, t->log, t->n, UINT64_MAX), 0);
        if (memcmp(&t->scratch, &t->st, sizeof t->st) != 0)
                fail_msg("input %zu (%s): a rebuild from the log differs", t->n - 1,
                         eng_input_kind_name(in->kind));
}

/* A recent input in effect, other than a void or a confirm, or 0. */
static uint64_t void_target(struct table *t) {
        uint64_t cand[8];
        size_t n = 0;

        for (size_t i = t->n; i-- > 0 && n < 8;) {
                const struct eng_record *r = &t->log[i];

                if (r->refusal == ENG_ACCEPTED && !r->voided_by && r->in.kind != ENG_IN_VOID &&
                    r->in.kind != ENG_IN_CONFIRM)
                        cand[n++] = r->in.seq;
        }
        return n ? cand[eng_rng_below(&t->rng, n)] : 0;
}

static void referee_void(struct table *t, uint64_t target) {
        struct eng_input in = { .kind = ENG_IN_VOID, .seat = ENG_SEAT_TABLE,
                                .void_ = { .target = (int64_t) target } };
        bool paused = cp_game.status(&t->st) == ENG_STATUS_PAUSED;
        bool provisional = eng_log_phase(&t->setup, &t->st, t->log, t->n) == ENG_LOG_PROVISIONAL;

        t->now += 300000;
        submit(t, &in);
        if (t->out.refusal != ENG_ACCEPTED) {
                t->voids_refused++;
                return;
        }
        t->voids++;
        t->voids_paused += paused;
        t->voids_provisional += provisional;
        /* a void is no resume, and no pause (a match voided back to before
         * its start cannot be paused) */
        if (cp_game.status(&t->st) != ENG_STATUS_READY)
                assert_int_equal(cp_game.status(&t->st) == ENG_STATUS_PAUSED, paused);
}

static void table_input(struct table *t, enum eng_input_kind kind) {
        struct eng_input in = { .kind = kind, .seat = ENG_SEAT_TABLE };

        submit(t, &in);
}

/* One decision of the table. */
static void play_one(struct table *t) {
        enum eng_log_phase phase = eng_log_phase(&t->setup, &t->st, t->log, t->n);
        struct cp_view v;
        struct eng_input in = { .seat = ENG_SEAT_TABLE };
        unsigned dice;

        if (phase == ENG_LOG_PROVISIONAL) {
                t->now += 1000000;
                if (roll(t, 40)) {
                        referee_void(t, void_target(t));
                } else {
                        table_input(t, ENG_IN_CONFIRM);
                        assert_int_equal(t->out.refusal, ENG_ACCEPTED);
                        t->confirms++;
                }
                return;
        }
        if (roll(t, 4)) {                       /* the referee undoes something */
                referee_void(t, roll(t, 10) ? 12345678 : void_target(t));
                return;
        }
        switch (cp_game.status(&t->st)) {
        case ENG_STATUS_READY:
                table_input(t, ENG_IN_START);
                return;
        case ENG_STATUS_PAUSED:
                /* a referee often pauses to sort out a call */
                if (roll(t, 30)) {
                        referee_void(t, void_target(t));
                        return;
                }
                t->now += 2000000;
                table_input(t, ENG_IN_RESUME);
                return;
        default:
                break;
        }
        if (roll(t, 3)) {
                t->now += 100000;
                table_input(t, ENG_IN_PAUSE);
                return;
        }
        if (t->st.t.phase == CP_PHASE_BETWEEN) {
                if (t->now < t->st.wake_us)
                        t->now = t->st.wake_us;
                table_input(t, ENG_IN_TIMER);
                return;
        }
        assert_int_equal(cp_view(&t->st, ENG_VIEW_REFEREE, -1, &v), 0);
        dice = (unsigned) eng_rng_below(&t->rng, 100);
        if (dice < 4) {                         /* nobody calls */
                if (t->now < v.deadline_us)
                        t->now = v.deadline_us;
                table_input(t, ENG_IN_TIMER);
        } else if (dice < 6) {                  /* the quick undo at the table */
                in.kind = ENG_IN_ACTION;
                in.action = CP_ACTION_VOID_CALL;
                t->now += 500000;
                submit(t, &in);
        } else if (dice < 16 && __builtin_popcount(v.allowed) >= 2) {
                int64_t press = v.shown_us + 300000;
                unsigned k = 0;

                in.kind = ENG_IN_TIE;
                in.tie.window = v.window;
                in.tie.press_us = press;
                for (int s = 0; s < CP_MAX_SEATS && k < 2; s++)
                        if (v.allowed & (1u << s)) {
                                in.tie.seats |= 1u << s;
                                in.tie.calls[k++] = 1 + (int64_t) eng_rng_below(&t->rng, CP_CALL_DOESNT_FIT);
                        }
                in.tie.n_calls = k;
                if (t->now < press + 2500)
                        t->now = press + 2500;
                submit(t, &in);
                assert_int_equal(t->out.refusal, ENG_ACCEPTED);
        } else {
                int seats[CP_MAX_SEATS], n = 0, call;
                int64_t press = v.shown_us + 150000 + (int64_t) eng_rng_below(&t->rng, 2000000);

                for (int s = 0; s < CP_MAX_SEATS; s++)
                        if (v.allowed & (1u << s))
                                seats[n++] = s;
                assert_int_equal(cp_bot_call(&v, &t->rng, 70, &call), 0);
                in.kind = ENG_IN_CALL;
                in.seat = seats[eng_rng_below(&t->rng, (uint64_t) n)];
                in.call.window = v.window;
                in.call.call = call;
                in.call.press_us = press;
                if (t->now < press + 2500)
                        t->now = press + 2500;
                submit(t, &in);
                assert_int_equal(t->out.refusal, ENG_ACCEPTED);
        }
}

/* Replays t's log from scratch with eng_replay's own steps: every record's
 * refusal and voided_by, and the hash and outputs after every input, as
 * they were live; then eng_replay itself. */
static void check_table_replay(struct table *t) {
        struct eng_record *log = malloc(t->n * sizeof *log);
        struct cp_state *st = malloc(sizeof *st);
        struct eng_out *out = malloc(sizeof *out);
        size_t refused = 0, replay_refused;

        assert_non_null(log);
        assert_non_null(st);
        assert_non_null(out);
        assert_int_equal(cp_game.create(st, &t->cfg, NULL, t->setup.n_seats, t->setup.seed), 0);
        for (size_t i = 0; i < t->n; i++) {
                log[i] = (struct eng_record) { .in = t->log[i].in };
                assert_int_equal(eng_log_apply(&t->setup, st, log, i, &log[i].in, out), 0);
                log[i].refusal = out->refusal;
                eng_log_mark_voided(log, i);
                if (out->refusal != t->log[i].refusal || cp_game.hash(st) != t->hash[i] ||
                    outputs_digest(out) != t->outputs[i])
                        fail_msg("seed %llu: replay differs at input %zu (%s)", (unsigned long long) t->setup.seed,
                                 i, eng_input_kind_name(t->log[i].in.kind));
                refused += out->refusal != ENG_ACCEPTED;
        }
        for (size_t i = 0; i < t->n; i++)
                assert_int_equal(log[i].voided_by, t->log[i].voided_by);
        assert_memory_equal(st, &t->st, sizeof *st);
        /* eng_replay finds refusals and voids again from the inputs alone */
        for (size_t i = 0; i < t->n; i++)
                log[i] = (struct eng_record) { .in = t->log[i].in, .refusal = ENG_REFUSED_STATE, .voided_by = 1 };
        assert_int_equal(eng_replay(&t->setup, st, log, t->n, &replay_refused), 0);
        assert_int_equal(replay_refused, refused);
        assert_true(cp_game.hash(st) == cp_game.hash(&t->st));
        assert_memory_equal(st, &t->st, sizeof *st);
        for (size_t i = 0; i < t->n; i++) {
                assert_int_equal(log[i].refusal, t->log[i].refusal);
                assert_int_equal(log[i].voided_by, t->log[i].voided_by);
        }
        free(log);
        free(st);
        free(out);
}

static void play_table(struct table *t, unsigned n_seats, int64_t pause_ms, uint64_t seed, bool confirm) {
        memset(t, 0, sizeof *t);
        eng_config_defaults(&cp_game, &t->cfg);
        t->cfg.v[CP_PARAM_PAUSE_MS] = pause_ms;
        t->setup = (struct eng_setup) {
                .game = &cp_game, .cfg = &t->cfg, .n_seats = n_seats, .seed = seed, .confirm = confirm,
        };
        t->now = INT64_C(5000000);
        eng_rng_seed(&t->rng, ~seed);
        assert_int_equal(cp_game.create(&t->st, &t->cfg, NULL, n_seats, seed), 0);
        while (eng_log_phase(&t->setup, &t->st, t->log, t->n) != ENG_LOG_FINAL) {
                if (t->n >= MAX_LOG - 1)
                        fail_msg("seed %llu: no end after %zu inputs", (unsigned long long) seed, t->n);
                play_one(t);
        }
}

/* Logs with voids in them — of calls, ties, expiries, pauses, resumes,
 * void_calls, while running, while paused, of the input that finished a
 * match waiting for a confirmation — replay to the live hash after every
 * input, and the live state is always the log's rebuild. */
static void logs_with_voids_replay_to_the_live_hash_after_every_input(void **state) {
        struct table *t = malloc(sizeof *t);
        size_t voids = 0, paused = 0, provisional = 0, refused = 0, confirms = 0;

        (void) state;
        assert_non_null(t);
        for (uint64_t seed = 1; seed <= 400; seed++) {
                play_table(t, CP_MIN_SEATS + seed % (CP_MAX_SEATS - CP_MIN_SEATS + 1), seed % 3 ? 1000 : 0,
                           seed, seed % 2 == 0);
                check_table_replay(t);
                voids += t->voids;
                paused += t->voids_paused;
                provisional += t->voids_provisional;
                refused += t->voids_refused;
                confirms += t->confirms;
        }
        /* the tables did what the test is about */
        assert_true(voids > 1000);
        assert_true(paused > 100);
        assert_true(provisional > 50);
        assert_true(refused > 50);
        assert_int_equal(confirms, 200);        /* one per match that needs it */
        free(t);
}

/* The simplest case by hand: a simulated match's log with a void spliced
 * in the middle, and the match played on from there, replays to the same
 * hash as it had live. */
static void simulated_log_with_a_void_in_the_middle_replays_to_the_live_hash(void **state) {
        struct table *t = malloc(sizeof *t);
        struct eng_input *in = malloc(MAX_LOG * sizeof *in);
        struct cp_sim_params p;
        struct cp_sim_stats s;
        uint64_t target = 0, max_seq = 0;
        int64_t max_us = 0;
        size_t half;

        (void) state;
        assert_non_null(t);
        assert_non_null(in);
        cp_sim_params_default(&p);
        p.max_inputs = MAX_LOG;
        memset(t, 0, sizeof *t);
        eng_config_defaults(&cp_game, &t->cfg);
        t->setup = (struct eng_setup) { .game = &cp_game, .cfg = &t->cfg, .n_seats = 3, .seed = 31 };
        assert_int_equal(cp_sim_match(&t->st, &t->cfg, 3, 31, 32, &p, in, MAX_LOG, NULL, NULL, &s), 0);
        half = s.inputs / 2;
        /* the first half, live through the log layer */
        assert_int_equal(cp_game.create(&t->st, &t->cfg, NULL, 3, 31), 0);
        for (size_t i = 0; i < half; i++) {
                /* the simulation's own seq and time, junk included */
                t->now = in[i].time_us;
                t->seq = in[i].seq - 1;
                submit(t, &in[i]);
                if (in[i].kind == ENG_IN_CALL && t->out.refusal == ENG_ACCEPTED)
                        target = in[i].seq;
                max_seq = in[i].seq > max_seq ? in[i].seq : max_seq;
                max_us = in[i].time_us > max_us ? in[i].time_us : max_us;
        }
        assert_true(target != 0);
        /* the last accepted call of it is voided, then the table plays on */
        t->seq = max_seq;
        t->now = max_us;
        eng_rng_seed(&t->rng, 33);
        referee_void(t, target);
        assert_int_equal(t->voids, 1);
        for (size_t i = 0; i < t->n; i++)
                if (t->log[i].in.seq >= target && t->log[i].refusal == ENG_ACCEPTED &&
                    t->log[i].in.kind != ENG_IN_VOID)
                        assert_int_equal(t->log[i].voided_by, t->seq);
        while (eng_log_phase(&t->setup, &t->st, t->log, t->n) != ENG_LOG_FINAL) {
                assert_true(t->n < MAX_LOG - 1);
                play_one(t);
        }
        check_table_replay(t);
        free(in);
        free(t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(random_matches_keep_every_invariant_and_replay_exactly),
                cmocka_unit_test(harsh_matches_on_every_deck_shape_keep_every_invariant),
                cmocka_unit_test(perfect_players_end_by_a_last_card),
                cmocka_unit_test(seed_config_and_log_reproduce_the_match),
                cmocka_unit_test(logs_with_voids_replay_to_the_live_hash_after_every_input),
                cmocka_unit_test(simulated_log_with_a_void_in_the_middle_replays_to_the_live_hash),
        };

        return cmocka_run_group_tests_name("engine_replay", tests, NULL, NULL);
}
