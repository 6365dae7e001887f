/* tests/unit/test_reflex.c — Reflex Duel (tests/games/reflex.c), the test
 * game that proves the engine framework general, rule by rule, and the
 * framework's log rules (engine/log.h) on it.
 *
 * What it owns: one cmocka test per rule or property, each named after
 * what it checks.  Every input goes through eng_log_apply() into a log, as
 * the runtime does, and after every one rx_check() must hold, a refused
 * input must leave the hash as it was and make no output, and out.wake_us
 * must agree with wake_us().
 *
 * Times: matches start at T0 (1000 s of CLOCK_MONOTONIC); a judged call
 * is decided one settle window after its press, as the judge does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "engine/hash.h"
#include "engine/log.h"
#include "engine/rng.h"
#include "tests/games/reflex.h"
#include "test_engine_json.h"

#define T0              INT64_C(1000000000)
#define MS              INT64_C(1000)
#define REACTION        (234567)                /* µs: not a whole millisecond, on purpose */
#define SETTLE          2500                    /* the judge's settle window, µs */
#define SEAT(s)         (UINT32_C(1) << (s))
/* Far beyond any match the tests play (a long random one is a few hundred
 * inputs): reaching it is a failure. */
#define MAX_LOG         4096
/* Random matches: how many, and the inputs after which one is given up. */
#define RANDOM_MATCHES  300
#define RANDOM_LIMIT    1500
#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))

/* ---- A table under test: the setup, the state and the log. */

struct table {
        struct eng_config cfg;
        struct eng_data data;
        struct eng_setup setup;
        struct rx_state st;
        struct eng_out out;
        size_t n;
        uint64_t seq;
        int64_t now;
        struct eng_record log[MAX_LOG];
        uint64_t hash[MAX_LOG];
};

static void check(const struct table *t) {
        char why[200] = "";

        if (rx_check(&t->st, why, sizeof why) < 0)
                fail_msg("invariant broken after %zu inputs: %s", t->n, why);
}

/* data may be NULL (the built-in prompts); its text must outlive t. */
static struct table *table_open(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                                uint64_t seed, bool confirm) {
        struct table *t = calloc(1, sizeof *t);

        assert_non_null(t);
        t->cfg = *cfg;
        if (data)
                t->data = *data;
        t->setup = (struct eng_setup) {
                .game = &rx_game, .cfg = &t->cfg, .data = data ? &t->data : NULL,
                .n_seats = n_seats, .seed = seed, .confirm = confirm,
        };
        t->now = T0;
        assert_int_equal(rx_game.create(&t->st, &t->cfg, t->setup.data, n_seats, seed), 0);
        check(t);
        return t;
}

static struct table *table_default(unsigned n_seats, uint64_t seed) {
        struct eng_config cfg;

        eng_config_defaults(&rx_game, &cfg);
        return table_open(&cfg, NULL, n_seats, seed, false);
}

/* Applies in as the next input of the log, at t->now unless it has a
 * time of its own. */
static enum eng_refusal submit(struct table *t, struct eng_input *in) {
        uint64_t before = rx_game.hash(&t->st);

        assert_true(t->n < MAX_LOG);
        in->seq = ++t->seq;
        if (in->time_us == 0)
                in->time_us = t->now;
        assert_int_equal(eng_log_apply(&t->setup, &t->st, t->log, t->n, in, &t->out), 0);
        t->log[t->n] = (struct eng_record) { .in = *in, .refusal = t->out.refusal };
        eng_log_mark_voided(t->log, t->n);
        t->hash[t->n] = rx_game.hash(&t->st);
        t->n++;
        check(t);
        /* The framework may add one output of its own (a void's). */
        assert_true(t->out.n <= rx_game.max_outputs + 1);
        assert_true(t->out.wake_us == rx_game.wake_us(&t->st));
        if (t->out.refusal != ENG_ACCEPTED) {
                assert_true(t->hash[t->n - 1] == before);
                assert_int_equal(t->out.n, 0);
        }
        return t->out.refusal;
}

static enum eng_refusal table_in(struct table *t, enum eng_input_kind kind) {
        struct eng_input in = { .kind = kind, .seat = ENG_SEAT_TABLE };

        return submit(t, &in);
}

/* The wake-up the engine asked for, at its time. */
static enum eng_refusal timer(struct table *t) {
        if (t->st.wake_us != ENG_NEVER && t->now < t->st.wake_us)
                t->now = t->st.wake_us;
        return table_in(t, ENG_IN_TIMER);
}

static enum eng_refusal call_for(struct table *t, int seat, int64_t window, int64_t call, int64_t press) {
        struct eng_input in = {
                .kind = ENG_IN_CALL, .seat = seat,
                .call = { .window = window, .call = call, .press_us = press },
        };

        if (t->now < press + SETTLE)
                t->now = press + SETTLE;
        return submit(t, &in);
}

/* The judge's hit for seat on the open window, reaction after the go. */
static enum eng_refusal hit(struct table *t, int seat, int64_t reaction) {
        return call_for(t, seat, t->st.windows, RX_CALL_HIT, t->st.go_us + reaction);
}

static enum eng_refusal tie_for(struct table *t, int64_t window, uint32_t seats, int64_t press) {
        struct eng_input in = {
                .kind = ENG_IN_TIE, .seat = ENG_SEAT_TABLE,
                .tie = { .window = window, .seats = seats, .press_us = press },
        };

        if (t->now < press + SETTLE)
                t->now = press + SETTLE;
        return submit(t, &in);
}

static enum eng_refusal tie(struct table *t, uint32_t seats) {
        return tie_for(t, t->st.windows, seats, t->st.go_us + REACTION);
}

static enum eng_refusal press_at(struct table *t, int seat, enum eng_pad_role role, int button, int64_t press) {
        struct eng_input in = {
                .kind = ENG_IN_PRESS, .seat = seat,
                .press = { .role = role, .button = button, .press_us = press, .received_us = press },
        };

        if (t->now < press + SETTLE)
                t->now = press + SETTLE;
        return submit(t, &in);
}

/* Timed mode's press of button 1. */
static enum eng_refusal press(struct table *t, int seat, int64_t press_us) {
        return press_at(t, seat, ENG_ROLE_BUTTONS, RX_BUTTON_PRESS, press_us);
}

static enum eng_refusal slap(struct table *t, int seat) {
        t->now += 10 * MS;
        return press_at(t, seat, ENG_ROLE_SLAP, 0, t->now);
}

static enum eng_refusal action(struct table *t, enum rx_action a, int seat) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = a, .seat = seat };

        t->now += 100 * MS;
        return submit(t, &in);
}

static enum eng_refusal award(struct table *t, const int *seats, int n, int64_t points, int64_t reason) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = RX_ACTION_AWARD, .seat = ENG_SEAT_TABLE };

        in.arg[RX_AWARD_TO] = n;
        for (int k = 0; k < n; k++)
                in.arg[RX_AWARD_TO + 1 + k] = seats[k];
        in.arg[RX_AWARD_POINTS] = points;
        in.arg[RX_AWARD_CATEGORY] = reason;
        t->now += 100 * MS;
        return submit(t, &in);
}

static enum eng_refusal void_from(struct table *t, uint64_t target) {
        struct eng_input in = { .kind = ENG_IN_VOID, .seat = ENG_SEAT_TABLE, .void_ = { .target = (int64_t) target } };

        t->now += 500 * MS;
        return submit(t, &in);
}

/* The k-th output of def in out, or NULL. */
static const struct eng_output *nth_output(const struct eng_out *out, const struct eng_event_def *def, size_t k) {
        for (size_t i = 0; i < out->n; i++)
                if (out->v[i].def == def && k-- == 0)
                        return &out->v[i];
        return NULL;
}

static const struct eng_output *output(const struct eng_out *out, const struct eng_event_def *def) {
        return nth_output(out, def, 0);
}

static size_t outputs_of(const struct eng_out *out, const struct eng_event_def *def) {
        size_t n = 0;

        for (size_t i = 0; i < out->n; i++)
                n += out->v[i].def == def;
        return n;
}

/* One judged round: the go at its wake-up, then seat's hit. */
static void judged_round(struct table *t, int seat) {
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(hit(t, seat, REACTION), ENG_ACCEPTED);
}

static const char *view_json(const struct table *t, enum eng_audience a, int seat, struct tj *j) {
        tj_init(j);
        assert_int_equal(rx_game.view_visit(&t->st, a, seat, &tj_visitor, j), 0);
        assert_true(tj_balanced(j));
        return tj_finish(j);
}

static int64_t terms_sum(const struct eng_result *r, int s) {
        int64_t sum = 0;

        for (unsigned k = 0; k < RX_N_TERMS; k++)
                sum += r->terms[s][k];
        return sum;
}

/* ---- A random table: mostly legal play with everything a real table
 * throws in (false starts, pauses, timeouts, awards, voids, junk). */

struct dice {
        unsigned void_pct, pause_pct, slap_pct, play_on_pct, award_pct, end_pct, concede_pct, junk_pct,
                false_start_pct, tie_pct;
};

static const struct dice everyday = {
        .void_pct = 3, .pause_pct = 3, .slap_pct = 3, .play_on_pct = 2, .award_pct = 4, .end_pct = 1,
        .concede_pct = 1, .junk_pct = 6, .false_start_pct = 8, .tie_pct = 15,
};

/* No end, no concession, many ties: matches that last. */
static const struct dice long_haul = {
        .void_pct = 2, .pause_pct = 3, .slap_pct = 3, .play_on_pct = 2, .award_pct = 5, .junk_pct = 6,
        .false_start_pct = 12, .tie_pct = 45,
};

static int64_t between(struct eng_rng *rng, int64_t lo, int64_t hi) {
        return lo + (int64_t) eng_rng_below(rng, (uint64_t) (hi - lo) + 1);
}

/* One slice of a percentage die: the slices of an if-else chain share one
 * throw (left), so each branch has its own pct chances in 100. */
static bool roll(unsigned *left, unsigned pct) {
        if (*left < pct)
                return true;
        *left -= pct;
        return false;
}

/* An input that breaks a rule or makes little sense, picked at random:
 * any kind, any seat, small arguments. */
static void junk(struct table *t, struct eng_rng *rng) {
        struct eng_input in = { 0 };

        in.kind = (enum eng_input_kind) between(rng, ENG_IN_START, ENG_IN_KINDS_END);
        in.action = (unsigned) between(rng, 0, RX_N_ACTIONS);
        in.seat = (int) between(rng, -1, RX_MAX_SEATS);
        for (size_t i = 0; i < 8; i++)
                in.arg[i] = between(rng, -2, 5);
        if (in.kind == ENG_IN_CALL || in.kind == ENG_IN_TIE || in.kind == ENG_IN_PRESS)
                in.arg[2] = t->now - between(rng, 0, 3000 * MS);
        if (in.kind == ENG_IN_VOID)
                in.void_.target = (int64_t) eng_rng_below(rng, t->seq + 2);
        submit(t, &in);
}

static void random_step(struct table *t, struct eng_rng *rng, const struct dice *d) {
        const struct rx_state *st = &t->st;
        unsigned left = (unsigned) eng_rng_below(rng, 100);
        int seat = (int) eng_rng_below(rng, st->n_seats);

        t->now += between(rng, 0, 50 * MS);
        /* A finished match that waits for a referee: confirm it, or go on
         * with what may come (a void, or refusals). */
        if (eng_log_phase(&t->setup, st, t->log, t->n) == ENG_LOG_PROVISIONAL && eng_rng_below(rng, 2)) {
                table_in(t, ENG_IN_CONFIRM);
                return;
        }
        if (st->phase == RX_PHASE_READY) {
                if (roll(&left, d->junk_pct))
                        junk(t, rng);
                else
                        table_in(t, ENG_IN_START);
                return;
        }
        if (roll(&left, d->void_pct)) {
                void_from(t, 1 + eng_rng_below(rng, t->seq));
        } else if (roll(&left, d->pause_pct)) {
                table_in(t, st->op_paused ? ENG_IN_RESUME : ENG_IN_PAUSE);
        } else if (roll(&left, d->slap_pct)) {
                slap(t, seat);
        } else if (roll(&left, d->play_on_pct)) {
                action(t, RX_ACTION_PLAY_ON, ENG_SEAT_TABLE);
        } else if (roll(&left, d->award_pct)) {
                int seats[RX_AWARD_MAX_SEATS], n = (int) between(rng, 0, RX_AWARD_MAX_SEATS);

                for (int k = 0; k < n; k++)
                        seats[k] = (int) between(rng, 0, st->n_seats);
                award(t, seats, n, between(rng, -RX_AWARD_MAX_POINTS, RX_AWARD_MAX_POINTS),
                      between(rng, 0, RX_REASON_CORRECTION + 1));
        } else if (roll(&left, d->end_pct)) {
                action(t, RX_ACTION_END, ENG_SEAT_TABLE);
        } else if (roll(&left, d->concede_pct)) {
                action(t, RX_ACTION_CONCEDE, seat);
        } else if (roll(&left, d->junk_pct)) {
                junk(t, rng);
        } else if (st->mode == RX_MODE_TIMED && roll(&left, d->false_start_pct)) {
                press(t, seat, t->now - between(rng, 0, 300 * MS));
        } else if (st->wake_us != ENG_NEVER) {
                timer(t);
        } else if (st->phase == RX_PHASE_LIVE && st->mode == RX_MODE_JUDGED) {
                if (st->n_seats >= 2 && eng_rng_below(rng, 100) < d->tie_pct) {
                        uint32_t seats = 0;

                        while (__builtin_popcount(seats) < 2)
                                seats |= SEAT(eng_rng_below(rng, st->n_seats));
                        tie(t, seats);
                } else {
                        hit(t, seat, between(rng, 0, 600 * MS));
                }
        } else if (st->phase == RX_PHASE_LIVE) {
                press(t, seat, st->go_us + between(rng, -200 * MS, 600 * MS));
        } else if (st->op_paused) {
                table_in(t, ENG_IN_RESUME);
        } else if (st->timeout_seat >= 0) {
                slap(t, st->timeout_seat);
        } else {
                junk(t, rng);
        }
}

/* A random configuration: any mode, target, delays, bonus list, teams. */
static void random_config(struct eng_rng *rng, struct eng_config *cfg, int64_t target) {
        eng_config_defaults(&rx_game, cfg);
        cfg->v[RX_SLOT_TARGET] = target ? target : between(rng, RX_TARGET_MIN, 8);
        cfg->v[RX_SLOT_DELAY_MIN] = between(rng, 0, 1500);
        cfg->v[RX_SLOT_DELAY_MAX] = cfg->v[RX_SLOT_DELAY_MIN] + between(rng, 0, 1500);
        cfg->v[RX_SLOT_MODE] = between(rng, RX_MODE_JUDGED, RX_MODE_TIMED);
        cfg->v[RX_SLOT_BONUS] = between(rng, 0, RX_MAX_BONUS);
        for (int64_t k = 0; k < cfg->v[RX_SLOT_BONUS]; k++)
                cfg->v[RX_SLOT_BONUS + 1 + k] = between(rng, RX_BONUS_MIN, RX_BONUS_MAX);
        cfg->v[RX_SLOT_TEAMS] = between(rng, 0, 1);
}

/* Plays until the result is final (or RANDOM_LIMIT inputs), calling each
 * step's check. */
static void play_random(struct table *t, uint64_t bot_seed, const struct dice *d,
                        void (*each)(const struct table *t)) {
        struct eng_rng rng;

        eng_rng_seed(&rng, bot_seed);
        while (t->n < RANDOM_LIMIT && eng_log_phase(&t->setup, &t->st, t->log, t->n) != ENG_LOG_FINAL) {
                random_step(t, &rng, d);
                if (each)
                        each(t);
        }
}

/* ======================================================================
 * Configuration and the data file.
 * ====================================================================== */

/* The slot constants of reflex.h are what the framework computes from the
 * schema, and the defaults validate for every seat count. */
static void config_slots_agree_with_the_schema(void **state) {
        static const struct { const char *name; int slot; } slots[] = {
                { "points.target", RX_SLOT_TARGET }, { "go.delay_min_ms", RX_SLOT_DELAY_MIN },
                { "go.delay_max_ms", RX_SLOT_DELAY_MAX }, { "mode", RX_SLOT_MODE },
                { "bonus", RX_SLOT_BONUS }, { "teams", RX_SLOT_TEAMS },
        };
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(slots); i++)
                assert_int_equal(eng_fields_offset(rx_game.params, rx_game.n_params, slots[i].name), slots[i].slot);
        assert_int_equal(eng_fields_slots(rx_game.params, rx_game.n_params), RX_CONFIG_SLOTS);
        assert_int_equal(eng_param_find(&rx_game, "bonus"), RX_PARAM_BONUS);
        eng_config_defaults(&rx_game, &cfg);
        assert_int_equal(cfg.v[RX_SLOT_TARGET], 3);
        assert_int_equal(cfg.v[RX_SLOT_DELAY_MIN], 500);
        assert_int_equal(cfg.v[RX_SLOT_DELAY_MAX], 2000);
        assert_int_equal(cfg.v[RX_SLOT_MODE], RX_MODE_JUDGED);
        assert_int_equal(cfg.v[RX_SLOT_BONUS], 0);
        assert_int_equal(cfg.v[RX_SLOT_TEAMS], 0);
        for (unsigned n = RX_MIN_SEATS; n <= RX_MAX_SEATS; n++)
                assert_int_equal(eng_config_validate(&rx_game, &cfg, NULL, n, &err), 0);
        assert_int_equal(eng_config_set_choice(&rx_game, &cfg, "mode", "timed", &err), 0);
        assert_int_equal(cfg.v[RX_SLOT_MODE], RX_MODE_TIMED);
        assert_int_equal(eng_config_set(&rx_game, &cfg, "teams", 1, &err), 0);
        assert_int_equal(cfg.v[RX_SLOT_TEAMS], 1);
}

/* Every error names its field, and create() refuses what validate does. */
static void config_errors_name_their_field(void **state) {
        struct eng_config cfg, bad;
        struct eng_error err;
        struct rx_state st;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);

        assert_int_equal(eng_config_validate(&rx_game, &cfg, NULL, 4, &err), -EINVAL);
        assert_string_equal(err.field, "seats");
        assert_string_equal(err.message, "seats: must be 1..3");
        assert_int_equal(eng_config_validate(&rx_game, &cfg, NULL, 0, &err), -EINVAL);
        assert_int_equal(rx_game.validate(&cfg, NULL, 4, &err), -EINVAL);
        assert_string_equal(err.message, "seats: must be 1..3");

        assert_int_equal(eng_config_set(&rx_game, &cfg, "points.target", 21, &err), -ERANGE);
        assert_string_equal(err.message, "points.target: must be 1..20 points");
        assert_int_equal(eng_config_set(&rx_game, &cfg, "go.delay_max_ms", 10001, &err), -ERANGE);
        assert_string_equal(err.message, "go.delay_max_ms: must be 0..10000 ms");
        assert_int_equal(eng_config_set_choice(&rx_game, &cfg, "mode", "blind", &err), -ERANGE);
        assert_string_equal(err.message, "mode: must be one of judged, timed");
        assert_int_equal(eng_config_set(&rx_game, &cfg, "bonus", 1, &err), -EINVAL);
        assert_string_equal(err.message, "bonus: is a list");

        /* Cross-field: the shortest delay may not exceed the longest. */
        bad = cfg;
        bad.v[RX_SLOT_DELAY_MIN] = 3000;
        bad.v[RX_SLOT_DELAY_MAX] = 1000;
        assert_int_equal(eng_config_validate(&rx_game, &bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.field, "go.delay_min_ms");
        assert_string_equal(err.message, "go.delay_min_ms: is 3000 ms, more than go.delay_max_ms (1000 ms)");
        assert_int_equal(rx_game.create(&st, &bad, NULL, 2, 1), -EINVAL);
        bad.v[RX_SLOT_DELAY_MAX] = 3000;
        assert_int_equal(eng_config_validate(&rx_game, &bad, NULL, 2, &err), 0);

        /* The list: too long, or an element out of range. */
        bad = cfg;
        bad.v[RX_SLOT_BONUS] = RX_MAX_BONUS + 1;
        assert_int_equal(eng_config_validate(&rx_game, &bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.field, "bonus");
        assert_string_equal(err.message, "bonus: must list at most 8");
        assert_int_equal(rx_game.validate(&bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.message, "bonus: must list at most 8");
        assert_int_equal(rx_game.create(&st, &bad, NULL, 2, 1), -EINVAL);
        bad.v[RX_SLOT_BONUS] = 3;
        bad.v[RX_SLOT_BONUS + 1] = 5;
        bad.v[RX_SLOT_BONUS + 2] = -5;
        bad.v[RX_SLOT_BONUS + 3] = 6;
        assert_int_equal(eng_config_validate(&rx_game, &bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.field, "bonus[2]");
        assert_string_equal(err.message, "bonus[2]: must be -5..5 points");
        assert_int_equal(rx_game.validate(&bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.message, "bonus[2]: must be -5..5 points");
        bad.v[RX_SLOT_BONUS + 3] = 0;
        assert_int_equal(eng_config_validate(&rx_game, &bad, NULL, 2, &err), 0);

        /* The other single values, through the game's own check. */
        bad = cfg;
        bad.v[RX_SLOT_TEAMS] = 2;
        assert_int_equal(rx_game.validate(&bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.message, "teams: must be true or false");
        bad = cfg;
        bad.v[RX_SLOT_MODE] = 2;
        assert_int_equal(rx_game.validate(&bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.message, "mode: must be one of judged, timed");
        bad = cfg;
        bad.v[RX_SLOT_TARGET] = 0;
        assert_int_equal(rx_game.validate(&bad, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.field, "points.target");
        assert_int_equal(rx_game.create(&st, &bad, NULL, 2, 1), -EINVAL);
        assert_int_equal(rx_game.create(NULL, &cfg, NULL, 2, 1), -EINVAL);
}

static void use_data(struct eng_data *d, const char *text) {
        memset(d, 0, sizeof *d);
        d->text[RX_DATA_PROMPTS] = text;
        d->len[RX_DATA_PROMPTS] = strlen(text);
}

/* A bad line of a custom prompts file is named by its line number, and a
 * file without prompts, with too many, or too long is refused. */
static void data_file_errors_name_the_line(void **state) {
        static char many[RX_DATA_MAX_LEN];
        static char huge[RX_DATA_MAX_LEN + 2];
        struct eng_config cfg;
        struct eng_error err;
        struct eng_data d;
        struct rx_state st;
        size_t at = 0;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);

        use_data(&d, "alpha\n# a comment\nabcdefghijklmnopqrstuvwxyz\nbeta\n");
        assert_int_equal(eng_config_validate(&rx_game, &cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.field, "data.prompts line 3");
        assert_string_equal(err.message, "data.prompts line 3: is 26 characters long; a prompt is 1 to 24 printable "
                                         "ASCII characters");
        assert_int_equal(rx_game.create(&st, &cfg, &d, 2, 1), -EINVAL);

        use_data(&d, "alpha\n\nbe\x01ta\n");
        assert_int_equal(eng_config_validate(&rx_game, &cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.message, "data.prompts line 3: holds byte 0x01 at column 3; a prompt is printable ASCII");
        use_data(&d, "caf\xc3\xa9\n");
        assert_int_equal(rx_game.validate(&cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.field, "data.prompts line 1");

        use_data(&d, "# only comments\n\n   \n");
        assert_int_equal(eng_config_validate(&rx_game, &cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.message, "data.prompts: holds no prompt; 1 to 64 are needed");

        for (int i = 0; i < RX_MAX_PROMPTS + 1; i++)
                at += (size_t) snprintf(many + at, sizeof many - at, "w%d\n", i);
        use_data(&d, many);
        assert_int_equal(eng_config_validate(&rx_game, &cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.message, "data.prompts line 65: is prompt 65; at most 64 are accepted");
        /* 64 prompts are fine. */
        many[at - strlen("w64\n")] = '\0';
        use_data(&d, many);
        assert_int_equal(eng_config_validate(&rx_game, &cfg, &d, 2, &err), 0);
        assert_int_equal(rx_game.create(&st, &cfg, &d, 2, 1), 0);
        assert_int_equal(st.n_prompts, RX_MAX_PROMPTS);

        memset(huge, 'a', sizeof huge - 1);
        use_data(&d, huge);
        assert_int_equal(eng_config_validate(&rx_game, &cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.message, "data.prompts: is 4097 bytes; at most 4096 are accepted");
        assert_int_equal(rx_game.validate(&cfg, &d, 2, &err), -EINVAL);
        assert_string_equal(err.field, "data.prompts");
}

/* Comments, blank lines, blanks around a prompt and CRLF line ends are not
 * part of the prompts; blanks inside one are; 24 characters fit. */
static void data_file_parsing_skips_comments_and_blank_lines(void **state) {
        struct eng_config cfg;
        struct eng_data d;
        struct rx_state st;
        char why[200];

        (void) state;
        eng_config_defaults(&rx_game, &cfg);
        use_data(&d, "# prompts for a test\n\n   alpha   # the first\r\nbeta\r\n\t\n"
                     " gamma ray \n#\nabcdefghijklmnopqrstuvwx\nlast-no-newline");
        assert_int_equal(rx_game.create(&st, &cfg, &d, 2, 9), 0);
        assert_int_equal(rx_check(&st, why, sizeof why), 0);
        assert_int_equal(st.n_prompts, 5);
        assert_string_equal(st.prompts[0], "alpha");
        assert_string_equal(st.prompts[1], "beta");
        assert_string_equal(st.prompts[2], "gamma ray");
        assert_string_equal(st.prompts[3], "abcdefghijklmnopqrstuvwx");
        assert_string_equal(st.prompts[4], "last-no-newline");

        /* The built-in file: twenty words, in file order. */
        assert_int_equal(rx_game.create(&st, &cfg, NULL, 2, 9), 0);
        assert_int_equal(st.n_prompts, 20);
        assert_string_equal(st.prompts[0], "apple");
        assert_string_equal(st.prompts[19], "thunder");
        assert_true(strchr(rx_game.data[RX_DATA_PROMPTS].builtin, '#') != NULL);
        assert_int_equal(rx_game.n_data, 1);
        assert_string_equal(rx_game.data[RX_DATA_PROMPTS].name, "prompts");
}

/* ======================================================================
 * Play.
 * ====================================================================== */

/* A judged match from START to the target: each go turns up the next
 * prompt of the shuffled deck and opens a window for every seat; a hit
 * scores a point and the round's bonus; the match ends at the target. */
static void judged_match_runs_from_start_to_the_target(void **state) {
        struct eng_config cfg;
        const struct eng_output *o;
        struct eng_result res;
        struct table *t;
        unsigned prompt;
        int64_t wake;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);
        cfg.v[RX_SLOT_TARGET] = 5;
        cfg.v[RX_SLOT_BONUS] = 2;
        cfg.v[RX_SLOT_BONUS + 1] = 2;           /* round 1 */
        cfg.v[RX_SLOT_BONUS + 2] = -1;          /* round 2 */
        t = table_open(&cfg, NULL, 2, 7, false);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_READY);
        assert_int_equal(timer(t), ENG_REFUSED_NOT_DUE);
        assert_int_equal(hit(t, 0, REACTION), ENG_REFUSED_STATE);

        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_non_null(output(&t->out, &eng_ev_match_started));
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_RUNNING);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
        assert_int_equal(t->st.round, 1);
        wake = t->out.wake_us;
        assert_true(wake >= T0 + 500 * MS && wake <= T0 + 2000 * MS);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_REFUSED_STATE);

        /* Before its time a timer is not due. */
        t->now = wake - 1;
        assert_int_equal(table_in(t, ENG_IN_TIMER), ENG_REFUSED_NOT_DUE);
        assert_int_equal(hit(t, 0, REACTION), ENG_REFUSED_TOO_LATE);
        t->now = wake;
        assert_int_equal(table_in(t, ENG_IN_TIMER), ENG_ACCEPTED);
        assert_int_equal(t->out.wake_us, ENG_NEVER);
        o = output(&t->out, &rx_ev_go);
        assert_non_null(o);
        assert_true(o->def->reveals);
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        assert_int_equal(o->at_us, wake);
        assert_int_equal(o->v[RX_GO_ROUND], 1);
        assert_int_equal(rx_card_of(&t->st, (uint32_t) o->v[RX_GO_CARD], &prompt), 0);
        assert_int_equal(prompt, t->st.deck[0]);
        o = output(&t->out, &eng_req_window_open);
        assert_non_null(o);
        assert_int_equal(o->window.window, 1);
        assert_int_equal(o->window.seats, SEAT(0) | SEAT(1));
        assert_int_equal(t->st.phase, RX_PHASE_LIVE);

        /* Round 1: seat 1 (index 0) hits, 1 + the bonus 2. */
        assert_int_equal(hit(t, 0, REACTION), ENG_ACCEPTED);
        o = output(&t->out, &eng_req_window_close);
        assert_non_null(o);
        assert_int_equal(o->window.window, 1);
        o = output(&t->out, &rx_ev_hit);
        assert_non_null(o);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->v[RX_HIT_REACTION], 234000);
        assert_int_equal(o->v[RX_HIT_MARGIN], REACTION);
        assert_int_equal(o->v[RX_HIT_WINDOW], 1);
        o = output(&t->out, &eng_req_pad_light);
        assert_non_null(o);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->light.button, RX_BUTTON_HIT);
        assert_int_equal(o->light.mode, ENG_LIGHT_ON);
        assert_int_equal(rx_score(&t->st, 0), 3);
        assert_int_equal(t->st.round, 2);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
        assert_true(t->out.wake_us >= t->now + 500 * MS && t->out.wake_us <= t->now + 2000 * MS);

        /* Round 2: seat 2 hits, 1 − 1; the go turns up the next prompt. */
        assert_int_equal(timer(t), ENG_ACCEPTED);
        o = output(&t->out, &rx_ev_go);
        assert_int_equal(o->v[RX_GO_ROUND], 2);
        assert_int_equal(rx_card_of(&t->st, (uint32_t) o->v[RX_GO_CARD], &prompt), 0);
        assert_int_equal(prompt, t->st.deck[1]);
        assert_int_equal(output(&t->out, &eng_req_window_open)->window.window, 2);
        assert_int_equal(hit(t, 1, REACTION), ENG_ACCEPTED);
        assert_int_equal(rx_score(&t->st, 1), 0);

        /* Rounds 3 to 5: no bonus beyond the list. */
        judged_round(t, 0);
        assert_int_equal(rx_score(&t->st, 0), 4);
        judged_round(t, 1);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(hit(t, 0, REACTION), ENG_ACCEPTED);
        o = output(&t->out, &eng_ev_match_finished);
        assert_non_null(o);
        assert_int_equal(o->finished.winner, 0);
        assert_int_equal(o->finished.place[0], 1);
        assert_int_equal(o->finished.place[1], 2);
        assert_int_equal(o->finished.place[2], 0);
        o = nth_output(&t->out, &eng_req_pad_light, 1);
        assert_non_null(o);
        assert_int_equal(o->light.mode, ENG_LIGHT_BLINK);
        assert_int_equal(t->out.wake_us, ENG_NEVER);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_FINISHED);
        assert_int_equal(t->st.rounds_played, 5);

        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_true(res.finished);
        assert_int_equal(res.winner, 0);
        assert_int_equal(res.score[0], 5);
        assert_int_equal(res.score[1], 1);
        assert_int_equal(res.terms[0][RX_TERM_HITS], 3);
        assert_int_equal(res.terms[0][RX_TERM_BONUS], 2);
        assert_int_equal(res.terms[1][RX_TERM_HITS], 2);
        assert_int_equal(res.terms[1][RX_TERM_BONUS], -1);
        assert_int_equal(res.order[0], 0);
        assert_int_equal(res.order[1], 1);
        assert_int_equal(res.n_stages, 0);
        assert_null(res.label);

        /* Over is over. */
        assert_int_equal(timer(t), ENG_REFUSED_FINISHED);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_REFUSED_FINISHED);
        assert_int_equal(table_in(t, ENG_IN_PAUSE), ENG_REFUSED_FINISHED);
        assert_int_equal(slap(t, 0), ENG_REFUSED_FINISHED);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_REFUSED_FINISHED);
        free(t);
}

/* A tie scores nobody, closes the window and starts the next round; the
 * tied pads blink.  A malformed tie is invalid, one for another window
 * too late. */
static void a_tie_scores_nobody_and_starts_the_next_round(void **state) {
        struct table *t = table_default(3, 11);
        const struct eng_output *o;
        struct eng_input in;

        (void) state;
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(tie(t, SEAT(0)), ENG_REFUSED_INVALID);
        assert_int_equal(tie(t, SEAT(0) | SEAT(3)), ENG_REFUSED_INVALID);
        assert_int_equal(tie(t, 0), ENG_REFUSED_INVALID);
        assert_int_equal(tie_for(t, 7, SEAT(0) | SEAT(1), t->st.go_us + REACTION), ENG_REFUSED_TOO_LATE);
        assert_int_equal(tie_for(t, 1, SEAT(0) | SEAT(1), t->st.go_us - 1), ENG_REFUSED_INVALID);
        /* The tied calls, when given, are one "hit" per tied seat. */
        in = (struct eng_input) { .kind = ENG_IN_TIE, .seat = ENG_SEAT_TABLE,
                                  .tie = { .window = 1, .seats = SEAT(0) | SEAT(2), .press_us = t->st.go_us + 1,
                                           .n_calls = 1, .calls = { RX_CALL_HIT } } };
        assert_int_equal(submit(t, &in), ENG_REFUSED_INVALID);
        in.tie.n_calls = 2;
        in.tie.calls[1] = 2;
        assert_int_equal(submit(t, &in), ENG_REFUSED_INVALID);
        in.tie.calls[1] = RX_CALL_HIT;
        assert_int_equal(submit(t, &in), ENG_ACCEPTED);

        o = output(&t->out, &rx_ev_tied);
        assert_non_null(o);
        assert_int_equal(o->v[RX_TIED_SEATS], SEAT(0) | SEAT(2));
        assert_int_equal(output(&t->out, &eng_req_window_close)->window.window, 1);
        assert_int_equal(outputs_of(&t->out, &eng_req_pad_light), 2);
        assert_null(output(&t->out, &rx_ev_hit));
        for (int s = 0; s < 3; s++)
                assert_int_equal(rx_score(&t->st, s), 0);
        assert_int_equal(t->st.seats[0].ties, 1);
        assert_int_equal(t->st.seats[1].ties, 0);
        assert_int_equal(t->st.round, 2);
        assert_int_equal(t->st.rounds_played, 1);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
        assert_true(t->out.wake_us != ENG_NEVER);
        /* The same tie again is too late: its window is closed. */
        assert_int_equal(tie_for(t, 1, SEAT(0) | SEAT(1), t->now - MS), ENG_REFUSED_TOO_LATE);
        free(t);
}

/* Calls are for the open window: a closed or another window is too late,
 * a press before the go or after the input invalid, as is a call other
 * than "hit" or a seat the match lacks. */
static void calls_for_a_closed_or_other_window_are_too_late(void **state) {
        struct table *t = table_default(2, 12);

        (void) state;
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(hit(t, 0, REACTION), ENG_REFUSED_TOO_LATE);           /* waiting: no window */
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(call_for(t, 0, 2, RX_CALL_HIT, t->st.go_us + REACTION), ENG_REFUSED_TOO_LATE);
        assert_int_equal(call_for(t, 0, 0, RX_CALL_HIT, t->st.go_us + REACTION), ENG_REFUSED_TOO_LATE);
        assert_int_equal(call_for(t, 0, 1, 2, t->st.go_us + REACTION), ENG_REFUSED_INVALID);
        assert_int_equal(call_for(t, 0, 1, 0, t->st.go_us + REACTION), ENG_REFUSED_INVALID);
        assert_int_equal(call_for(t, 2, 1, RX_CALL_HIT, t->st.go_us + REACTION), ENG_REFUSED_INVALID);
        assert_int_equal(call_for(t, ENG_SEAT_TABLE, 1, RX_CALL_HIT, t->st.go_us + REACTION), ENG_REFUSED_INVALID);
        assert_int_equal(call_for(t, 0, 1, RX_CALL_HIT, t->st.go_us - 1), ENG_REFUSED_INVALID);
        {
                struct eng_input in = { .kind = ENG_IN_CALL, .seat = 0,
                                        .call = { .window = 1, .call = RX_CALL_HIT, .press_us = t->now + 1 } };

                assert_int_equal(submit(t, &in), ENG_REFUSED_INVALID);        /* pressed in the future */
        }
        assert_int_equal(hit(t, 1, 0), ENG_ACCEPTED);                          /* at the go exactly */
        assert_int_equal(call_for(t, 0, 1, RX_CALL_HIT, t->st.go_us + REACTION), ENG_REFUSED_TOO_LATE);
        /* Presses are timed mode's: refused here as unused. */
        assert_int_equal(press(t, 0, t->now), ENG_REFUSED_UNSUPPORTED);
        assert_int_equal(press_at(t, 0, ENG_ROLE_KEYPAD, RX_KEY_END, t->now), ENG_REFUSED_INVALID);
        free(t);
}

/* Timed mode: presses in press order; one before the go is a false start
 * (−1, the round goes on), the first at or after the go wins the round,
 * a loser's press just after the round was decided is too late (no
 * penalty); judged inputs are unused. */
static void timed_mode_counts_presses_and_false_starts(void **state) {
        struct eng_config cfg;
        const struct eng_output *o;
        struct eng_result res;
        struct table *t;
        int64_t go_at, decided;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);
        cfg.v[RX_SLOT_MODE] = RX_MODE_TIMED;
        cfg.v[RX_SLOT_DELAY_MIN] = 1000;
        cfg.v[RX_SLOT_DELAY_MAX] = 1000;
        t = table_open(&cfg, NULL, 2, 21, false);
        assert_int_equal(press(t, 0, T0), ENG_REFUSED_STATE);                  /* not started */
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        go_at = t->st.wake_us;
        assert_int_equal(go_at, t->now + 1000 * MS);

        /* Waiting for the go: a press is a false start. */
        assert_int_equal(press(t, 0, T0 + 100 * MS), ENG_ACCEPTED);
        o = output(&t->out, &rx_ev_false_start);
        assert_non_null(o);
        assert_int_equal(o->seat, 0);
        assert_non_null(output(&t->out, &eng_req_pad_buzz));
        assert_int_equal(rx_score(&t->st, 0), -1);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
        assert_int_equal(t->out.wake_us, go_at);                               /* the round goes on */

        /* The go opens no window in timed mode. */
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_non_null(output(&t->out, &rx_ev_go));
        assert_null(output(&t->out, &eng_req_window_open));
        assert_false(t->st.window_open);

        /* Pressed before the go, handed over after it: a false start. */
        assert_int_equal(press(t, 1, go_at - 50 * MS), ENG_ACCEPTED);
        assert_non_null(output(&t->out, &rx_ev_false_start));
        assert_int_equal(rx_score(&t->st, 1), -1);
        assert_int_equal(t->st.phase, RX_PHASE_LIVE);

        /* The first press at or after the go wins the round. */
        assert_int_equal(press(t, 0, go_at + 180 * MS), ENG_ACCEPTED);
        decided = t->now;
        o = output(&t->out, &rx_ev_hit);
        assert_non_null(o);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->v[RX_HIT_REACTION], 180 * MS);
        assert_int_equal(o->v[RX_HIT_MARGIN], 180 * MS);
        assert_int_equal(o->v[RX_HIT_WINDOW], ENG_ABSENT);
        o = output(&t->out, &eng_req_pad_light);
        assert_int_equal(o->light.button, RX_BUTTON_PRESS);
        assert_null(output(&t->out, &eng_req_window_close));
        assert_int_equal(rx_score(&t->st, 0), 0);
        assert_int_equal(t->st.round, 2);

        /* The loser's press 70 ms later belongs to round 1: too late. */
        assert_int_equal(press(t, 1, go_at + 250 * MS), ENG_REFUSED_TOO_LATE);
        assert_int_equal(rx_score(&t->st, 1), -1);
        /* Past the grace, before the next go: a false start. */
        assert_int_equal(press(t, 1, decided + RX_LATE_GRACE_US), ENG_ACCEPTED);
        assert_non_null(output(&t->out, &rx_ev_false_start));
        assert_int_equal(rx_score(&t->st, 1), -2);

        /* Exactly at the go counts. */
        go_at = t->st.wake_us;
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(press(t, 1, go_at), ENG_ACCEPTED);
        assert_int_equal(output(&t->out, &rx_ev_hit)->v[RX_HIT_REACTION], 0);
        assert_int_equal(rx_score(&t->st, 1), -1);

        /* Judged inputs are not this mode's. */
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(call_for(t, 0, t->st.windows, RX_CALL_HIT, t->st.go_us), ENG_REFUSED_UNSUPPORTED);
        assert_int_equal(tie_for(t, t->st.windows, SEAT(0) | SEAT(1), t->st.go_us), ENG_REFUSED_UNSUPPORTED);
        /* A press from the future, of no seat, or of no button is invalid. */
        {
                struct eng_input in = { .kind = ENG_IN_PRESS, .seat = 0,
                                        .press = { .role = ENG_ROLE_BUTTONS, .button = 1, .press_us = t->now + 1 } };

                assert_int_equal(submit(t, &in), ENG_REFUSED_INVALID);
                in.press.press_us = t->now;
                in.seat = 2;
                assert_int_equal(submit(t, &in), ENG_REFUSED_INVALID);
                in.seat = 0;
                in.press.button = RX_PAD_BUTTON_MAX + 1;
                assert_int_equal(submit(t, &in), ENG_REFUSED_INVALID);
        }
        /* Paused, presses are not taken. */
        assert_int_equal(table_in(t, ENG_IN_PAUSE), ENG_ACCEPTED);
        assert_int_equal(press(t, 0, t->now), ENG_REFUSED_STATE);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_int_equal(res.terms[0][RX_TERM_FALSE_STARTS], -1);
        assert_int_equal(res.terms[1][RX_TERM_FALSE_STARTS], -2);
        assert_int_equal(res.terms[0][RX_TERM_HITS], 1);
        free(t);
}

/* award: to one to three distinct seats of the match, points −5..5 but
 * not 0, a reason; refused before the start; may end the match. */
static void award_gives_points_and_refuses_what_is_malformed(void **state) {
        static const int none[1] = { 0 };
        static const int s01[] = { 0, 1 }, s00[] = { 0, 0 }, s3[] = { 3 }, sneg[] = { -1 };
        static const int s012[] = { 0, 1, 2 }, s0123[] = { 0, 1, 2, 0 };
        struct table *t = table_default(3, 31);
        const struct eng_output *o;

        (void) state;
        assert_int_equal(award(t, s01, 2, 2, RX_REASON_BONUS), ENG_REFUSED_STATE);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(award(t, none, 0, 2, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s3, 1, 2, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, sneg, 1, 2, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s00, 2, 2, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s0123, 4, 2, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s01, 2, 0, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s01, 2, 6, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s01, 2, -6, RX_REASON_BONUS), ENG_REFUSED_INVALID);
        assert_int_equal(award(t, s01, 2, 1, 3), ENG_REFUSED_INVALID);

        assert_int_equal(award(t, s012, 3, -2, RX_REASON_PENALTY), ENG_ACCEPTED);
        o = output(&t->out, &rx_ev_awarded);
        assert_non_null(o);
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        assert_int_equal(o->v[RX_AWARDED_SEATS], SEAT(0) | SEAT(1) | SEAT(2));
        assert_int_equal(o->v[RX_AWARDED_POINTS], -2);
        assert_int_equal(o->v[RX_AWARDED_REASON], RX_REASON_PENALTY);
        for (int s = 0; s < 3; s++)
                assert_int_equal(t->st.seats[s].terms[RX_TERM_REFEREE], -2);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);

        /* Reaching the target by award ends the match, in the middle of a
         * round: its window closes first. */
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(award(t, s01, 2, 5, RX_REASON_CORRECTION), ENG_ACCEPTED);
        assert_int_equal(output(&t->out, &eng_req_window_close)->window.window, 1);
        o = output(&t->out, &eng_ev_match_finished);
        assert_non_null(o);
        /* Seats 1 and 2 (indexes 0, 1) are level: no single winner. */
        assert_int_equal(o->finished.winner, ENG_SEAT_TABLE);
        assert_int_equal(o->finished.place[0], 1);
        assert_int_equal(o->finished.place[1], 1);
        assert_int_equal(o->finished.place[2], 3);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_FINISHED);
        assert_int_equal(award(t, s01, 2, 1, RX_REASON_BONUS), ENG_REFUSED_FINISHED);
        free(t);
}

/* end: the referee ends the match where it stands; concede: the seat (or
 * a referee for it) gives up, places last, and the best other seat wins;
 * alone, the match just ends. */
static void end_and_concede_finish_the_match(void **state) {
        struct table *t;
        struct eng_result res;
        const struct eng_output *o;

        (void) state;
        t = table_default(3, 41);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_REFUSED_STATE);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, 0), ENG_REFUSED_STATE);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 1);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_ACCEPTED);
        assert_non_null(output(&t->out, &rx_ev_ended));
        o = output(&t->out, &eng_ev_match_finished);
        assert_int_equal(o->finished.winner, 1);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->finished.place[1], 1);
        assert_int_equal(o->finished.place[0], 2);
        assert_int_equal(o->finished.place[2], 2);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_int_equal(res.winner, 1);
        assert_int_equal(res.order[0], 1);
        assert_int_equal(res.order[1], 0);
        assert_int_equal(res.order[2], 2);
        free(t);

        /* The leader concedes: it places last, the best other wins. */
        t = table_default(3, 42);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 0);
        judged_round(t, 0);
        judged_round(t, 2);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, 3), ENG_REFUSED_INVALID);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, ENG_SEAT_TABLE), ENG_REFUSED_INVALID);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, 0), ENG_ACCEPTED);
        o = output(&t->out, &rx_ev_conceded);
        assert_non_null(o);
        assert_int_equal(o->seat, 0);
        assert_non_null(output(&t->out, &eng_req_window_close));
        o = output(&t->out, &eng_ev_match_finished);
        assert_int_equal(o->finished.winner, 2);
        assert_int_equal(o->finished.place[2], 1);
        assert_int_equal(o->finished.place[1], 2);
        assert_int_equal(o->finished.place[0], 3);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, 1), ENG_REFUSED_FINISHED);
        free(t);

        /* Two seats: the other one wins, whatever the score. */
        t = table_default(2, 43);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 1);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, 1), ENG_ACCEPTED);
        assert_int_equal(output(&t->out, &eng_ev_match_finished)->finished.winner, 0);
        free(t);

        /* Alone: the match ends without a winner. */
        t = table_default(1, 44);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(action(t, RX_ACTION_CONCEDE, 0), ENG_ACCEPTED);
        o = output(&t->out, &eng_ev_match_finished);
        assert_int_equal(o->finished.winner, ENG_SEAT_TABLE);
        assert_int_equal(o->finished.place[0], 1);
        assert_null(output(&t->out, &eng_req_pad_light));
        free(t);
}

/* Who may send what: the input definitions' `from` and `seated`, and the
 * routes that make the pads' inputs. */
static void inputs_say_who_may_send_them(void **state) {
        enum eng_input_kind kind;
        const struct eng_route *r;
        unsigned a;
        int call;

        (void) state;
        assert_int_equal(rx_game.n_actions, RX_N_ACTIONS);
        assert_int_equal(eng_input_find(&rx_game, "concede", &kind, &a), 0);
        assert_int_equal(kind, ENG_IN_ACTION);
        assert_int_equal(a, RX_ACTION_CONCEDE);
        assert_int_equal(rx_game.actions[a].from, ENG_FROM_SEAT | ENG_FROM_REFEREE);
        assert_true(rx_game.actions[a].seated);
        assert_int_equal(rx_game.actions[a].n_fields, 0);
        assert_int_equal(eng_input_find(&rx_game, "award", &kind, &a), 0);
        assert_int_equal(a, RX_ACTION_AWARD);
        assert_int_equal(rx_game.actions[a].from, ENG_FROM_REFEREE);
        assert_false(rx_game.actions[a].seated);
        assert_int_equal(eng_fields_offset(rx_game.actions[a].fields, rx_game.actions[a].n_fields, "to"), RX_AWARD_TO);
        assert_int_equal(eng_fields_offset(rx_game.actions[a].fields, rx_game.actions[a].n_fields, "points"),
                         RX_AWARD_POINTS);
        assert_int_equal(eng_fields_offset(rx_game.actions[a].fields, rx_game.actions[a].n_fields, "category"),
                         RX_AWARD_CATEGORY);
        assert_int_equal(rx_game.actions[a].fields[0].type, ENG_T_SEAT);
        assert_int_equal(rx_game.actions[a].fields[0].max_count, RX_AWARD_MAX_SEATS);
        assert_int_equal(eng_input_find(&rx_game, "end", &kind, &a), 0);
        assert_int_equal(a, RX_ACTION_END);
        assert_int_equal(rx_game.actions[a].from, ENG_FROM_REFEREE);
        assert_int_equal(rx_game.actions[a].n_fields, 0);
        assert_int_equal(eng_input_find(&rx_game, "play_on", &kind, &a), 0);
        assert_int_equal(rx_game.actions[a].from, ENG_FROM_REFEREE);
        assert_int_equal(rx_game.builtins, (1u << ENG_IN_CALL) | (1u << ENG_IN_TIE) | (1u << ENG_IN_PRESS));

        r = eng_route_find(&rx_game, ENG_ROLE_BUTTONS, RX_BUTTON_HIT);
        assert_int_equal(r->kind, ENG_ROUTE_CALL);
        assert_int_equal(r->call, RX_CALL_HIT);
        assert_int_equal(eng_route_find(&rx_game, ENG_ROLE_BUTTONS, RX_BUTTON_PRESS)->kind, ENG_ROUTE_PRESS);
        assert_null(eng_route_find(&rx_game, ENG_ROLE_BUTTONS, 2));
        assert_int_equal(eng_route_find(&rx_game, ENG_ROLE_SLAP, 0)->kind, ENG_ROUTE_PRESS);
        assert_int_equal(eng_route_find(&rx_game, ENG_ROLE_SLAP, 9)->kind, ENG_ROUTE_PRESS);
        r = eng_route_find(&rx_game, ENG_ROLE_KEYPAD, RX_KEY_END);
        assert_int_equal(r->kind, ENG_ROUTE_INPUT);
        assert_string_equal(r->input, "end");
        assert_string_equal(eng_route_find(&rx_game, ENG_ROLE_KEYPAD, RX_KEY_RESUME)->input, "resume");
        assert_string_equal(eng_route_find(&rx_game, ENG_ROLE_KEYPAD, RX_KEY_PAUSE)->input, "pause");
        /* Every INPUT route names an input that needs no fields. */
        for (size_t i = 0; i < rx_game.n_routes; i++) {
                if (rx_game.routes[i].kind != ENG_ROUTE_INPUT)
                        continue;
                assert_int_equal(eng_input_find(&rx_game, rx_game.routes[i].input, &kind, &a), 0);
                if (kind == ENG_IN_ACTION)
                        assert_int_equal(rx_game.actions[a].n_fields, 0);
        }
        assert_string_equal(eng_call_name(&rx_game, RX_CALL_HIT), "hit");
        assert_null(eng_call_name(&rx_game, 0));
        assert_int_equal(eng_call_by_name(&rx_game, "HIT", &call), 0);
        assert_int_equal(call, RX_CALL_HIT);
}

/* The four orders of a seat's timeout (T) and the operator's pause (P),
 * each lifted in either order: status() is PAUSED only for P, game_pause()
 * says "timeout" only for T, lifting one leaves the other, and the round
 * starts over (same prompt, a new window and delay) only once both are
 * lifted. */
static void game_pause_and_operator_pause_are_independent(void **state) {
        /* Each step: 'T' slap by seat 0 (calls or lifts), 'P' pause, 'R'
         * resume, 'O' the referee's play_on. */
        static const char *const orders[] = { "TPTR", "TPRT", "PTRT", "PTTR", "TPOR", "PTRO" };

        (void) state;
        for (size_t k = 0; k < ELEMENTSOF(orders); k++) {
                struct table *t = table_default(2, 50 + k);
                const struct eng_output *o;
                uint32_t card, window;
                bool op = false, to = false;

                assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
                assert_int_equal(timer(t), ENG_ACCEPTED);
                card = (uint32_t) output(&t->out, &rx_ev_go)->v[RX_GO_CARD];
                window = t->st.windows;
                for (const char *c = orders[k]; *c; c++) {
                        bool was_running = !op && !to;

                        switch (*c) {
                        case 'T':
                                assert_int_equal(slap(t, 0), ENG_ACCEPTED);
                                to = !to;
                                assert_non_null(output(&t->out, to ? &rx_ev_timeout_called : &rx_ev_play_resumed));
                                if (!to) {
                                        o = output(&t->out, &rx_ev_play_resumed);
                                        assert_int_equal(o->seat, 0);
                                        assert_int_equal(o->v[RX_RESUMED_TIMEOUT_SEAT], 0);
                                        assert_int_equal(o->v[RX_RESUMED_BY], RX_BY_SEAT);
                                }
                                break;
                        case 'O':
                                assert_int_equal(action(t, RX_ACTION_PLAY_ON, ENG_SEAT_TABLE), ENG_ACCEPTED);
                                o = output(&t->out, &rx_ev_play_resumed);
                                assert_non_null(o);
                                assert_int_equal(o->seat, ENG_SEAT_TABLE);
                                assert_int_equal(o->v[RX_RESUMED_TIMEOUT_SEAT], 0);
                                assert_int_equal(o->v[RX_RESUMED_BY], RX_BY_REFEREE);
                                to = false;
                                break;
                        case 'P':
                                assert_int_equal(table_in(t, ENG_IN_PAUSE), ENG_ACCEPTED);
                                assert_non_null(output(&t->out, &eng_ev_paused));
                                op = true;
                                break;
                        default:
                                assert_int_equal(table_in(t, ENG_IN_RESUME), ENG_ACCEPTED);
                                assert_non_null(output(&t->out, &eng_ev_resumed));
                                op = false;
                                break;
                        }
                        /* Only the first pause closes the window. */
                        assert_int_equal(outputs_of(&t->out, &eng_req_window_close), was_running && (op || to));
                        if (*c == 'P')
                                assert_int_equal(table_in(t, ENG_IN_PAUSE), ENG_REFUSED_STATE);
                        else if (!op)
                                assert_int_equal(table_in(t, ENG_IN_RESUME), ENG_REFUSED_STATE);
                        assert_int_equal(rx_game.status(&t->st), op ? ENG_STATUS_PAUSED : ENG_STATUS_RUNNING);
                        if (to)
                                assert_string_equal(rx_game.game_pause(&t->st), "timeout");
                        else
                                assert_null(rx_game.game_pause(&t->st));
                        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
                        assert_false(t->st.window_open);
                        assert_int_equal(rx_game.wake_us(&t->st) == ENG_NEVER, op || to);
                        /* Nothing runs while either is in force: the old
                         * window is gone. */
                        assert_int_equal(call_for(t, 1, window, RX_CALL_HIT, t->st.go_us + REACTION),
                                         ENG_REFUSED_TOO_LATE);
                        if (op || to)
                                assert_int_equal(table_in(t, ENG_IN_TIMER), ENG_REFUSED_NOT_DUE);
                }
                /* The round starts over: the same prompt, a new window. */
                assert_int_equal(timer(t), ENG_ACCEPTED);
                o = output(&t->out, &rx_ev_go);
                assert_int_equal(o->v[RX_GO_ROUND], 1);
                assert_int_equal(o->v[RX_GO_CARD], card);
                assert_int_equal(output(&t->out, &eng_req_window_open)->window.window, window + 1);
                assert_int_equal(hit(t, 1, REACTION), ENG_ACCEPTED);
                free(t);
        }
}

/* A timeout is its seat's: another seat's slap may not lift it; play_on
 * with none in force is refused; a slap before the start is refused. */
static void a_timeout_is_lifted_by_its_seat_or_the_referee(void **state) {
        struct table *t = table_default(3, 60);
        const struct eng_output *o;
        struct tj j;

        (void) state;
        assert_int_equal(slap(t, 0), ENG_REFUSED_STATE);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(action(t, RX_ACTION_PLAY_ON, ENG_SEAT_TABLE), ENG_REFUSED_STATE);
        assert_int_equal(slap(t, 3), ENG_REFUSED_INVALID);
        assert_int_equal(slap(t, 2), ENG_ACCEPTED);
        o = output(&t->out, &rx_ev_timeout_called);
        assert_int_equal(o->seat, 2);
        assert_int_equal(t->out.wake_us, ENG_NEVER);
        assert_non_null(strstr(view_json(t, ENG_VIEW_PUBLIC, -1, &j), "\"timeout\":{\"seat\":2}"));
        assert_int_equal(slap(t, 1), ENG_REFUSED_NOT_ALLOWED);
        /* Awards still go in during a timeout. */
        {
                static const int s0[] = { 0 };

                assert_int_equal(award(t, s0, 1, 1, RX_REASON_BONUS), ENG_ACCEPTED);
        }
        assert_int_equal(slap(t, 2), ENG_ACCEPTED);
        assert_null(rx_game.game_pause(&t->st));
        assert_non_null(strstr(view_json(t, ENG_VIEW_PUBLIC, -1, &j), "\"timeout\":null"));
        assert_true(t->out.wake_us != ENG_NEVER);
        free(t);
}

/* ======================================================================
 * The log's rules on this game.
 * ====================================================================== */

/* A void in the middle of a round (engine/log.h): the match goes back to
 * just before the voided input, then the engine closes the window the
 * rewound round had open and starts the round's delay again from now; the
 * go shows the same prompt with a new window. */
static void void_in_the_middle_of_a_round_restarts_its_delay(void **state) {
        struct table *t = table_default(2, 70);
        const struct eng_output *o;
        uint64_t hit_seq, timer_seq, after_timer;
        int64_t card;

        (void) state;
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 0);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        timer_seq = t->seq;
        after_timer = t->hash[t->n - 1];
        card = output(&t->out, &rx_ev_go)->v[RX_GO_CARD];
        assert_int_equal(hit(t, 1, REACTION), ENG_ACCEPTED);
        hit_seq = t->seq;
        assert_int_equal(rx_score(&t->st, 1), 1);
        assert_int_equal(timer(t), ENG_ACCEPTED);              /* round 3's go */

        /* Back to round 2 with its window open. */
        assert_int_equal(void_from(t, hit_seq), ENG_ACCEPTED);
        o = &t->out.v[0];
        assert_ptr_equal(o->def, &eng_ev_inputs_voided);
        assert_int_equal(o->voided.target, (int64_t) hit_seq);
        assert_int_equal(o->voided.count, 2);
        o = output(&t->out, &eng_req_window_close);
        assert_non_null(o);
        assert_int_equal(o->window.window, 2);
        assert_int_equal(t->out.n, 2);
        assert_int_equal(rx_score(&t->st, 1), 0);
        assert_int_equal(t->st.round, 2);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
        assert_true(t->st.card_up);
        assert_true(t->out.wake_us >= t->now + 500 * MS && t->out.wake_us <= t->now + 2000 * MS);
        assert_true(t->log[t->n - 2].voided_by == t->seq);
        assert_true(t->log[t->n - 3].voided_by == t->seq);
        /* The voided hit cannot be voided again, nor the void itself. */
        assert_int_equal(void_from(t, hit_seq), ENG_REFUSED_INVALID);
        assert_int_equal(void_from(t, t->seq - 1), ENG_REFUSED_INVALID);
        assert_int_equal(void_from(t, t->seq + 5), ENG_REFUSED_INVALID);

        assert_int_equal(timer(t), ENG_ACCEPTED);
        o = output(&t->out, &rx_ev_go);
        assert_int_equal(o->v[RX_GO_ROUND], 2);
        assert_int_equal(o->v[RX_GO_CARD], card);
        assert_int_equal(output(&t->out, &eng_req_window_open)->window.window, 3);
        assert_int_equal(hit(t, 1, REACTION), ENG_ACCEPTED);

        /* A void of a go: the round waits again, its prompt not turned up
         * in the rewound state (people saw it, but it comes up again). */
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(void_from(t, t->seq), ENG_ACCEPTED);
        assert_int_equal(t->st.phase, RX_PHASE_WAITING);
        assert_false(t->st.card_up);
        assert_null(output(&t->out, &eng_req_window_close));
        assert_true(t->out.wake_us != ENG_NEVER);
        (void) timer_seq;
        (void) after_timer;

        /* A void while paused leaves the match paused, with nothing armed. */
        assert_int_equal(table_in(t, ENG_IN_PAUSE), ENG_ACCEPTED);
        {
                static const int s0[] = { 0 };

                assert_int_equal(award(t, s0, 1, 1, RX_REASON_BONUS), ENG_ACCEPTED);
        }
        assert_int_equal(void_from(t, t->seq), ENG_ACCEPTED);
        assert_int_equal(t->out.n, 1);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_PAUSED);
        assert_int_equal(t->out.wake_us, ENG_NEVER);
        assert_int_equal(t->st.seats[0].terms[RX_TERM_REFEREE], 0);

        /* A void of the start goes back to a ready match. */
        assert_int_equal(void_from(t, 1), ENG_ACCEPTED);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_READY);
        assert_int_equal(t->out.wake_us, ENG_NEVER);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        free(t);
}

/* setup.confirm: a finished match waits for a referee; until the confirm
 * it takes only a void (which can undo the input that ended it) or the
 * confirm; after it, nothing.  Without confirm the end is final at once. */
static void confirm_rules_follow_setup_confirm(void **state) {
        struct eng_config cfg;
        struct table *t;
        uint64_t end_seq;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);
        t = table_open(&cfg, NULL, 2, 80, true);
        assert_int_equal(table_in(t, ENG_IN_CONFIRM), ENG_REFUSED_STATE);      /* not finished */
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 0);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_ACCEPTED);
        end_seq = t->seq;
        assert_int_equal(eng_log_phase(&t->setup, &t->st, t->log, t->n), ENG_LOG_PROVISIONAL);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_REFUSED_FINISHED);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_REFUSED_FINISHED);

        /* Undo the end: the match runs again, from now. */
        assert_int_equal(void_from(t, end_seq), ENG_ACCEPTED);
        assert_int_equal(eng_log_phase(&t->setup, &t->st, t->log, t->n), ENG_LOG_OPEN);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_RUNNING);
        assert_true(t->out.wake_us != ENG_NEVER);
        judged_round(t, 0);
        judged_round(t, 0);
        assert_int_equal(rx_game.status(&t->st), ENG_STATUS_FINISHED);
        assert_int_equal(eng_log_phase(&t->setup, &t->st, t->log, t->n), ENG_LOG_PROVISIONAL);
        assert_int_equal(table_in(t, ENG_IN_CONFIRM), ENG_ACCEPTED);
        assert_ptr_equal(t->out.v[0].def, &eng_ev_result_confirmed);
        assert_int_equal(eng_log_phase(&t->setup, &t->st, t->log, t->n), ENG_LOG_FINAL);
        assert_int_equal(void_from(t, t->seq - 1), ENG_REFUSED_FINISHED);
        assert_int_equal(table_in(t, ENG_IN_CONFIRM), ENG_REFUSED_FINISHED);
        free(t);

        /* Without confirm: final at once. */
        t = table_open(&cfg, NULL, 2, 81, false);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_ACCEPTED);
        assert_int_equal(eng_log_phase(&t->setup, &t->st, t->log, t->n), ENG_LOG_FINAL);
        assert_int_equal(table_in(t, ENG_IN_CONFIRM), ENG_REFUSED_STATE);
        assert_int_equal(void_from(t, t->seq), ENG_REFUSED_FINISHED);
        free(t);
}

/* ======================================================================
 * Results.
 * ====================================================================== */

static void result_terms_add_up(const struct table *t) {
        struct eng_result res;

        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_int_equal(res.n_seats, t->st.n_seats);
        assert_int_equal(res.finished, t->st.phase == RX_PHASE_FINISHED);
        for (int s = 0; s < t->st.n_seats; s++) {
                assert_int_equal(res.score[s], terms_sum(&res, s));
                assert_int_equal(res.score[s], rx_score(&t->st, s));
                for (int o = 0; o < t->st.n_seats; o++) {
                        bool worse = t->st.seats[s].conceded > t->st.seats[o].conceded ||
                                     (t->st.seats[s].conceded == t->st.seats[o].conceded &&
                                      res.score[s] < res.score[o]);

                        if (worse)
                                assert_true(res.place[s] > res.place[o]);
                        if (res.score[s] == res.score[o] && t->st.seats[s].conceded == t->st.seats[o].conceded)
                                assert_int_equal(res.place[s], res.place[o]);
                }
                assert_int_equal(res.terms[s][RX_TERM_HITS], t->st.seats[s].hits);
                assert_int_equal(res.terms[s][RX_TERM_FALSE_STARTS], -(int64_t) t->st.seats[s].false_starts);
        }
        if (res.finished && res.winner != ENG_SEAT_TABLE)
                assert_int_equal(res.place[res.winner], 1);
        assert_int_equal(res.n_stages, t->st.teams && t->st.n_seats >= 2 ? 1 : 0);
        assert_int_equal(res.label != NULL, t->st.n_seats == 1);
}

/* Over many random matches, after every input: the terms sum to the
 * score, places follow the scores (a seat that conceded last), and every
 * match ends. */
static void result_terms_sum_to_the_score_in_random_matches(void **state) {
        size_t finished = 0;

        (void) state;
        for (uint64_t m = 0; m < RANDOM_MATCHES; m++) {
                struct eng_rng rng;
                struct eng_config cfg;
                struct table *t;

                eng_rng_seed(&rng, 1000 + m);
                random_config(&rng, &cfg, 0);
                t = table_open(&cfg, NULL, 1 + (unsigned) (m % RX_MAX_SEATS), m * 7919, false);
                play_random(t, m, &everyday, result_terms_add_up);
                finished += rx_game.status(&t->st) == ENG_STATUS_FINISHED;
                free(t);
        }
        assert_int_equal(finished, RANDOM_MATCHES);
}

/* Teams: with the setting on and two or more seats, seat s is in team
 * s % 2 for the one stage; otherwise there are no teams. */
static void teams_put_odd_and_even_seats_apart(void **state) {
        struct eng_config cfg;
        struct eng_result res;
        struct table *t;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);
        cfg.v[RX_SLOT_TEAMS] = 1;
        t = table_open(&cfg, NULL, 3, 90, false);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_int_equal(res.n_stages, 1);
        assert_int_equal(res.team[0][0], 0);
        assert_int_equal(res.team[1][0], 1);
        assert_int_equal(res.team[2][0], 0);
        free(t);
        t = table_open(&cfg, NULL, 1, 90, false);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_int_equal(res.n_stages, 0);
        free(t);
        cfg.v[RX_SLOT_TEAMS] = 0;
        t = table_open(&cfg, NULL, 2, 90, false);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_int_equal(res.n_stages, 0);
        free(t);
}

/* One seat: "sharp" once the target is reached (and the seat wins),
 * "warming up" until then and when the match ends short of it. */
static void one_seat_is_labelled_sharp_or_warming_up(void **state) {
        struct eng_config cfg;
        struct eng_result res;
        struct table *t;

        (void) state;
        eng_config_defaults(&rx_game, &cfg);
        cfg.v[RX_SLOT_TARGET] = 2;
        t = table_open(&cfg, NULL, 1, 95, false);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_string_equal(res.label, "warming up");
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 0);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_false(res.finished);
        assert_string_equal(res.label, "warming up");
        judged_round(t, 0);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_true(res.finished);
        assert_string_equal(res.label, "sharp");
        assert_int_equal(res.winner, 0);
        assert_int_equal(res.place[0], 1);
        free(t);

        t = table_open(&cfg, NULL, 1, 96, false);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 0);
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_ACCEPTED);
        assert_int_equal(output(&t->out, &eng_ev_match_finished)->finished.winner, ENG_SEAT_TABLE);
        assert_int_equal(rx_game.result(&t->st, &res), 0);
        assert_true(res.finished);
        assert_string_equal(res.label, "warming up");
        assert_int_equal(res.winner, ENG_SEAT_TABLE);
        free(t);
}

/* ======================================================================
 * Replay, determinism, cards, views.
 * ====================================================================== */

/* A long random log (voids, pauses, timeouts, awards, junk) replayed with
 * eng_replay gives, for every prefix, the live hash after that input and
 * the live refusals and voids. */
static void replay_of_a_long_random_log_equals_live(void **state) {
        size_t longest = 0, voids = 0, confirms = 0;

        (void) state;
        for (uint64_t m = 0; m < 6; m++) {
                struct eng_rng rng;
                struct eng_config cfg;
                struct table *t;
                struct eng_record *copy = malloc(MAX_LOG * sizeof *copy);
                struct rx_state *st = malloc(sizeof *st);
                size_t refused_live = 0, refused;

                assert_non_null(copy);
                assert_non_null(st);
                eng_rng_seed(&rng, 2000 + m);
                random_config(&rng, &cfg, RX_TARGET_MAX);
                t = table_open(&cfg, NULL, 3, 0xfeed + m, m % 2 == 0);
                play_random(t, 3000 + m, &long_haul, NULL);
                if (t->n > longest)
                        longest = t->n;
                for (size_t i = 0; i < t->n; i++) {
                        refused_live += t->log[i].refusal != ENG_ACCEPTED;
                        voids += t->log[i].in.kind == ENG_IN_VOID && t->log[i].refusal == ENG_ACCEPTED;
                        confirms += t->log[i].in.kind == ENG_IN_CONFIRM && t->log[i].refusal == ENG_ACCEPTED;
                }
                for (size_t k = 1; k <= t->n; k++) {
                        memcpy(copy, t->log, k * sizeof *copy);
                        for (size_t i = 0; i < k; i++) {
                                copy[i].refusal = ENG_REFUSED_INVALID;  /* replay fills these in */
                                copy[i].voided_by = 12345;
                        }
                        assert_int_equal(eng_replay(&t->setup, st, copy, k, &refused), 0);
                        if (rx_game.hash(st) != t->hash[k - 1])
                                fail_msg("match %llu: replay of %zu inputs differs from live",
                                         (unsigned long long) m, k);
                        if (k == t->n) {
                                assert_int_equal(refused, refused_live);
                                for (size_t i = 0; i < k; i++) {
                                        assert_int_equal(copy[i].refusal, t->log[i].refusal);
                                        assert_true(copy[i].voided_by == t->log[i].voided_by);
                                }
                                assert_memory_equal(st, &t->st, sizeof *st);
                        }
                }
                free(st);
                free(copy);
                free(t);
        }
        /* "Long": each of these matches to 20 points takes hundreds. */
        assert_true(longest >= 200);
        /* The logs hold what replay must get right: accepted voids and
         * confirms (half the matches need one). */
        assert_true(voids >= 6);
        assert_int_equal(confirms, 3);
}

/* The same seed and inputs give the same match, output for output;
 * different seeds shuffle differently and key their handles differently. */
static void matches_are_deterministic_across_seeds(void **state) {
        size_t same_order = 0;

        (void) state;
        for (uint64_t seed = 0; seed < 40; seed++) {
                struct eng_config cfg;
                struct eng_rng r1, r2;
                struct table *a, *b, *c;

                eng_rng_seed(&r1, seed);
                random_config(&r1, &cfg, 0);
                a = table_open(&cfg, NULL, 2, seed, false);
                b = table_open(&cfg, NULL, 2, seed, false);
                c = table_open(&cfg, NULL, 2, seed + 1000, false);
                assert_true(rx_game.hash(&a->st) == rx_game.hash(&b->st));
                assert_true(rx_game.hash(&a->st) != rx_game.hash(&c->st));
                assert_true(a->st.handle_key != c->st.handle_key);
                same_order += memcmp(a->st.deck, c->st.deck, sizeof a->st.deck) == 0;
                eng_rng_seed(&r1, seed * 31);
                eng_rng_seed(&r2, seed * 31);
                while (a->n < RANDOM_LIMIT && rx_game.status(&a->st) != ENG_STATUS_FINISHED) {
                        random_step(a, &r1, &everyday);
                        random_step(b, &r2, &everyday);
                        assert_true(a->hash[a->n - 1] == b->hash[b->n - 1]);
                        assert_int_equal(a->out.refusal, b->out.refusal);
                        assert_int_equal(a->out.n, b->out.n);
                        assert_memory_equal(a->out.v, b->out.v, a->out.n * sizeof a->out.v[0]);
                }
                free(a);
                free(b);
                free(c);
        }
        /* 20! orders: two seeds agreeing would be a broken shuffle. */
        assert_int_equal(same_order, 0);
}

/* A prompt appears outside only as its handle: handles invert, name
 * distinct prompts, show the word, and a handle of no prompt is -ENOENT. */
static void card_handles_invert_and_show_the_word(void **state) {
        struct table *t = table_default(2, 100);
        uint32_t handles[RX_MAX_PROMPTS];
        unsigned prompt;
        struct tj j;

        (void) state;
        for (unsigned i = 0; i < t->st.n_prompts; i++) {
                char want[64];

                handles[i] = rx_handle(&t->st, i);
                assert_int_equal(handles[i], eng_handle(eng_handle_key(100), i));
                assert_int_equal(rx_card_of(&t->st, handles[i], &prompt), 0);
                assert_int_equal(prompt, i);
                for (unsigned k = 0; k < i; k++)
                        assert_true(handles[k] != handles[i]);
                tj_init(&j);
                assert_int_equal(rx_game.card_face(&t->st, handles[i], &tj_visitor, &j), 0);
                snprintf(want, sizeof want, "{\"word\":\"%s\"}", t->st.prompts[i]);
                assert_string_equal(tj_finish(&j), want);
        }
        tj_init(&j);
        assert_int_equal(rx_game.card_face(&t->st, rx_handle(&t->st, t->st.n_prompts), &tj_visitor, &j), -ENOENT);
        assert_int_equal(rx_card_of(&t->st, rx_handle(&t->st, 0xffff), &prompt), -ENOENT);
        /* The go's card is the view's card. */
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        {
                char want[64];

                snprintf(want, sizeof want, "\"card\":{\"handle\":\"%08x\",\"word\":\"%s\"}",
                         (unsigned) output(&t->out, &rx_ev_go)->v[RX_GO_CARD], t->st.prompts[t->st.deck[0]]);
                assert_non_null(strstr(view_json(t, ENG_VIEW_PUBLIC, -1, &j), want));
        }
        free(t);
}

/* Each audience sees its own: the lucky number only in that seat's view,
 * the audit only in the referee's, and no view shows the deck's order or
 * the next go's time. */
static void views_show_each_audience_its_own(void **state) {
        static const int s1[] = { 1 };
        struct table *t;
        const char *v;
        char want[64];
        struct tj j;

        (void) state;
        t = table_default(2, 110);
        v = view_json(t, ENG_VIEW_PUBLIC, -1, &j);
        assert_string_equal(v, "{\"game\":\"reflex\",\"audience\":\"public\",\"status\":\"ready\",\"phase\":\"ready\","
                               "\"target\":3,\"mode\":\"judged\",\"round\":0,\"scores\":["
                               "{\"seat\":0,\"score\":0,\"hits\":0,\"bonus\":0,\"false_starts\":0,\"referee\":0,"
                               "\"conceded\":false},"
                               "{\"seat\":1,\"score\":0,\"hits\":0,\"bonus\":0,\"false_starts\":0,\"referee\":0,"
                               "\"conceded\":false}],"
                               "\"card\":null,\"timeout\":null,\"winner\":null}");
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 1);
        assert_int_equal(award(t, s1, 1, -3, RX_REASON_PENALTY), ENG_ACCEPTED);
        for (int s = 0; s < 2; s++) {
                v = view_json(t, ENG_VIEW_SEAT, s, &j);
                snprintf(want, sizeof want, ",\"you\":{\"seat\":%d,\"lucky\":%u}}", s, t->st.seats[s].lucky);
                assert_non_null(strstr(v, want));
                assert_null(strstr(v, "audit"));
                assert_non_null(strstr(v, "\"audience\":\"seat\""));
        }
        v = view_json(t, ENG_VIEW_REFEREE, -1, &j);
        assert_non_null(strstr(v, ",\"audit\":{\"false_starts\":[0,0],\"rounds\":1}}"));
        assert_null(strstr(v, "lucky"));
        assert_non_null(strstr(v, "{\"seat\":1,\"score\":-2,\"hits\":1,\"bonus\":0,\"false_starts\":0,"
                                  "\"referee\":-3,\"conceded\":false}"));
        v = view_json(t, ENG_VIEW_PUBLIC, -1, &j);
        assert_null(strstr(v, "lucky"));
        assert_null(strstr(v, "audit"));
        assert_null(strstr(v, "wake"));
        assert_null(strstr(v, "deck"));
        assert_non_null(strstr(v, "\"phase\":\"waiting\",\"target\":3,\"mode\":\"judged\",\"round\":2"));

        assert_int_equal(rx_game.view_visit(&t->st, ENG_VIEW_SEAT, 2, &tj_visitor, &j), -EINVAL);
        assert_int_equal(rx_game.view_visit(&t->st, ENG_VIEW_SEAT, -1, &tj_visitor, &j), -EINVAL);
        assert_int_equal(rx_game.view_visit(&t->st, ENG_VIEW_RUNTIME, -1, &tj_visitor, &j), -EINVAL);

        /* The winner, once there is one; stats for the result. */
        assert_int_equal(action(t, RX_ACTION_END, ENG_SEAT_TABLE), ENG_ACCEPTED);
        assert_non_null(strstr(view_json(t, ENG_VIEW_PUBLIC, -1, &j), "\"winner\":0}"));
        tj_init(&j);
        assert_int_equal(rx_game.stats(&t->st, 1, &tj_visitor, &j), 0);
        assert_string_equal(tj_finish(&j), "{\"hits\":1,\"ties\":0,\"false_starts\":0,\"best_reaction_us\":234567,"
                                           "\"reaction_avg_us\":234567,\"conceded\":false}");
        tj_init(&j);
        assert_int_equal(rx_game.stats(&t->st, 0, &tj_visitor, &j), 0);
        assert_string_equal(tj_finish(&j), "{\"hits\":0,\"ties\":0,\"false_starts\":0,\"best_reaction_us\":null,"
                                           "\"reaction_avg_us\":null,\"conceded\":false}");
        free(t);
}

/* perturb_hidden permutes the prompts not yet turned up and nothing else;
 * with fewer than two left it has nothing to do. */
static void perturb_hidden_touches_only_the_prompts_not_yet_up(void **state) {
        struct eng_config cfg;
        struct eng_data d;
        struct rx_state copy;
        struct table *t;
        size_t moved = 0;

        (void) state;
        t = table_default(2, 120);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        judged_round(t, 0);
        assert_int_equal(timer(t), ENG_ACCEPTED);               /* two prompts up */
        for (uint64_t salt = 0; salt < 20; salt++) {
                copy = t->st;
                assert_int_equal(rx_game.perturb_hidden(&copy, salt), 0);
                assert_memory_equal(copy.deck, t->st.deck, 2);
                moved += memcmp(copy.deck, t->st.deck, sizeof copy.deck) != 0;
                /* Everything but the deck is as it was. */
                memcpy(copy.deck, t->st.deck, sizeof copy.deck);
                assert_memory_equal(&copy, &t->st, sizeof copy);
        }
        assert_true(moved >= 19);
        free(t);

        eng_config_defaults(&rx_game, &cfg);
        use_data(&d, "one\ntwo\n");
        t = table_open(&cfg, &d, 2, 121, false);
        copy = t->st;
        assert_int_equal(rx_game.perturb_hidden(&copy, 1), 0);
        assert_int_equal(table_in(t, ENG_IN_START), ENG_ACCEPTED);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        copy = t->st;
        assert_int_equal(rx_game.perturb_hidden(&copy, 1), -EAGAIN);
        /* The deck runs out and is reshuffled for the next pass. */
        assert_int_equal(hit(t, 0, REACTION), ENG_ACCEPTED);
        judged_round(t, 1);
        assert_int_equal(timer(t), ENG_ACCEPTED);
        assert_int_equal(t->st.deck_pos, 1);
        free(t);
}

/* Every setting, field, input and event is documented; every event has a
 * sentence for the referee's explanation whose {names} are its fields or
 * {seat}; every view member is declared once. */
static void everything_is_documented(void **state) {
        const struct eng_game *g = &rx_game;
        char why[256] = "";

        (void) state;
        /* The framework's own check of a game's tables (engine.h). */
        if (eng_game_check(g, why, sizeof why) < 0)
                fail_msg("eng_game_check: %s", why);
        assert_ptr_equal(eng_game_find("reflex"), g);
        assert_string_equal(g->display_name, "Reflex Duel");
        assert_non_null(g->description);
        assert_int_equal(g->min_seats, 1);
        assert_int_equal(g->max_seats, 3);
        for (size_t i = 0; i < g->n_params; i++) {
                assert_non_null(g->params[i].doc);
                if (!g->params[i].max_count)
                        assert_true(g->params[i].min <= g->params[i].def && g->params[i].def <= g->params[i].max);
        }
        for (size_t i = 0; i < g->n_data; i++)
                assert_non_null(g->data[i].doc);
        for (size_t a = 0; a < g->n_actions; a++) {
                assert_non_null(g->actions[a].doc);
                for (size_t f = 0; f < g->actions[a].n_fields; f++)
                        assert_non_null(g->actions[a].fields[f].doc);
        }
        for (size_t e = 0; e < g->n_events; e++) {
                const struct eng_event_def *d = g->events[e];
                const char *p = d->text;

                assert_non_null(d->doc);
                assert_non_null(d->text);
                assert_ptr_equal(eng_event_find(g, d->name), d);
                assert_int_equal(d->audience, ENG_VIEW_PUBLIC);
                assert_true(eng_fields_slots(d->fields, d->n_fields) <= ENG_MAX_VALUES);
                for (size_t f = 0; f < d->n_fields; f++) {
                        assert_non_null(d->fields[f].doc);
                        if (d->fields[f].type == ENG_T_ENUM)
                                for (int64_t c = d->fields[f].min; c <= d->fields[f].max; c++)
                                        assert_non_null(d->fields[f].choices[c]);
                }
                while ((p = strchr(p, '{')) != NULL) {
                        const char *close = strchr(p, '}');
                        char name[ENG_FIELD_MAX];

                        assert_non_null(close);
                        snprintf(name, sizeof name, "%.*s", (int) (close - p - 1), p + 1);
                        if (strcmp(name, "seat") != 0 && !eng_fields_find(d->fields, d->n_fields, name))
                                fail_msg("event %s: {%s} is not a field", d->name, name);
                        p = close + 1;
                }
        }
        assert_true(rx_ev_go.reveals);
        assert_false(rx_ev_hit.reveals);
        assert_int_equal(rx_ev_hit.fields[RX_HIT_MARGIN].audience, ENG_VIEW_SEAT);
        assert_int_equal(rx_ev_hit.fields[RX_HIT_WINDOW].audience, ENG_VIEW_REFEREE);
        assert_int_equal(rx_ev_hit.fields[RX_HIT_REACTION].audience, ENG_VIEW_PUBLIC);
        for (size_t v = 0; v < g->n_view; v++) {
                assert_non_null(g->view[v].doc);
                for (size_t w = 0; w < v; w++)
                        assert_string_not_equal(g->view[v].name, g->view[w].name);
        }
        assert_int_equal(g->n_terms, RX_N_TERMS);
        assert_string_equal(g->terms[RX_TERM_FALSE_STARTS], "false_starts");
        assert_true(g->max_outputs < ENG_MAX_OUTPUTS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(config_slots_agree_with_the_schema),
                cmocka_unit_test(config_errors_name_their_field),
                cmocka_unit_test(data_file_errors_name_the_line),
                cmocka_unit_test(data_file_parsing_skips_comments_and_blank_lines),
                cmocka_unit_test(judged_match_runs_from_start_to_the_target),
                cmocka_unit_test(a_tie_scores_nobody_and_starts_the_next_round),
                cmocka_unit_test(calls_for_a_closed_or_other_window_are_too_late),
                cmocka_unit_test(timed_mode_counts_presses_and_false_starts),
                cmocka_unit_test(award_gives_points_and_refuses_what_is_malformed),
                cmocka_unit_test(end_and_concede_finish_the_match),
                cmocka_unit_test(inputs_say_who_may_send_them),
                cmocka_unit_test(game_pause_and_operator_pause_are_independent),
                cmocka_unit_test(a_timeout_is_lifted_by_its_seat_or_the_referee),
                cmocka_unit_test(void_in_the_middle_of_a_round_restarts_its_delay),
                cmocka_unit_test(confirm_rules_follow_setup_confirm),
                cmocka_unit_test(result_terms_sum_to_the_score_in_random_matches),
                cmocka_unit_test(teams_put_odd_and_even_seats_apart),
                cmocka_unit_test(one_seat_is_labelled_sharp_or_warming_up),
                cmocka_unit_test(replay_of_a_long_random_log_equals_live),
                cmocka_unit_test(matches_are_deterministic_across_seeds),
                cmocka_unit_test(card_handles_invert_and_show_the_word),
                cmocka_unit_test(views_show_each_audience_its_own),
                cmocka_unit_test(perturb_hidden_touches_only_the_prompts_not_yet_up),
                cmocka_unit_test(everything_is_documented),
        };

        return cmocka_run_group_tests_name("reflex", tests, NULL, NULL);
}
