/* Crash Pilot, rule by rule and decision by decision: the Crash Pilot
 * rulebook (docs/games/crash-pilot.md) and what that page decides where the
 * rulebook is silent.  Each test is named after the sentence it checks.
 *
 * Most tests lay out the deck themselves (cp_create_with_deck), with the six
 * starting cards object r / colour r for row r + 1, so that a card with
 * object o and colour c fits every row except rows o + 1 and c + 1 until
 * more cards are placed.  Matches run with reveal.pause_ms 0 (the next card
 * comes at once) unless the test is about the pause.  Every input goes
 * through the framework's log layer (eng_log_apply, as the runtime applies
 * it), and every step is checked with cp_check(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crash_pilot.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "test_engine_json.h"

#define T0              INT64_C(1000000000)     /* 1000 s of CLOCK_MONOTONIC */
#define MS              INT64_C(1000)
#define REACTION        (250 * MS)
#define SETTLE          2500
#define TIMEOUT         (20000 * MS)            /* reveal.timeout_ms's default */
#define SEAT(s)         (UINT32_C(1) << (s))
#define C(o, c)         CP_CARD(0, (o), (c))
#define C2(o, c)        CP_CARD(1, (o), (c))
#define ALL_BUTTONS     0x7f
#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))
/* Inputs one test applies at most. */
#define MAX_LOG         256

/* ---- A table under test. */

struct match {
        struct cp_state st;
        struct eng_out out;
        struct eng_config cfg;
        struct eng_setup setup;
        struct eng_record log[MAX_LOG];
        size_t n_log;
        unsigned n;
        uint64_t seq;
        int64_t now;
};

/* What a test lays out; everything else is filled with the unused cards in
 * id order. */
struct layout {
        bool custom_rows;
        uint8_t rows[CP_ROWS];
        size_t n_stack[CP_MAX_SEATS];
        uint8_t stack[CP_MAX_SEATS][CP_MAX_STACK];      /* top first */
        size_t n_neutral;
        uint8_t neutral[32];                            /* top first */
};

/* cp_game, except that create() deals the deck the test laid out instead of
 * shuffling: the framework's undo rebuilds a match from its setup, so the
 * rebuilt match must be dealt the same way as the one under test. */
static uint8_t laid_deck[CP_MAX_CARDS];
static size_t laid_len;
static struct eng_game laid_game;

static int laid_create(void *state, const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                       uint64_t seed) {
        (void) data;
        return cp_create_with_deck(state, cfg, n_seats, seed, laid_deck, laid_len);
}

static void config(struct eng_config *cfg, int64_t pause_ms) {
        eng_config_defaults(&cp_game, cfg);
        cfg->v[CP_PARAM_PAUSE_MS] = pause_ms;
}

static void check(const struct match *m) {
        char why[200] = "";

        if (cp_check(&m->st, why, sizeof why) < 0)
                fail_msg("invariant broken: %s", why);
}

/* The deal order crash_pilot.c documents: six starters, then round by
 * round from seat 0 (so a seat's top card is the last dealt to it), then
 * the neutral deck. */
static size_t build_deck(const struct eng_config *cfg, unsigned n, const struct layout *l,
                         uint8_t *deck) {
        struct cp_config c;
        bool used[CP_MAX_CARDS] = { false };
        unsigned per = cp_cards_per_player(n);
        size_t total, fill = 0;
        uint8_t all[CP_MAX_CARDS];

        cp_config_from(cfg, &c);
        total = (size_t) c.objects * c.colours * c.copies;
        for (size_t i = 0, k = 0; k < c.copies; k++)
                for (unsigned o = 0; o < c.objects; o++)
                        for (unsigned col = 0; col < c.colours; col++)
                                all[i++] = CP_CARD(k, o, col);
        for (unsigned r = 0; r < CP_ROWS; r++) {
                deck[r] = l->custom_rows ? l->rows[r] : C(r, r);
                used[deck[r]] = true;
        }
        for (unsigned s = 0; s < n; s++)
                for (size_t d = 0; d < l->n_stack[s]; d++)
                        used[l->stack[s][d]] = true;
        for (size_t i = 0; i < l->n_neutral; i++)
                used[l->neutral[i]] = true;
        for (unsigned s = 0; s < n; s++)
                for (unsigned d = 0; d < per; d++) {
                        size_t pos = CP_ROWS + (size_t) (per - 1 - d) * n + s;

                        if (d < l->n_stack[s]) {
                                deck[pos] = l->stack[s][d];
                                continue;
                        }
                        while (used[all[fill]])
                                fill++;
                        deck[pos] = all[fill];
                        used[all[fill]] = true;
                }
        for (size_t i = 0, pos = CP_ROWS + (size_t) per * n; pos < total; pos++) {
                if (i < l->n_neutral) {
                        deck[pos] = l->neutral[i++];
                        continue;
                }
                while (used[all[fill]])
                        fill++;
                deck[pos] = all[fill];
                used[all[fill]] = true;
        }
        return total;
}

/* The match is created through the setup, as the log layer re-creates it. */
static void setup_match_confirm(struct match *m, unsigned n, int64_t pause_ms, const struct layout *l,
                                bool confirm) {
        memset(m, 0, sizeof *m);
        config(&m->cfg, pause_ms);
        m->n = n;
        m->now = T0;
        laid_len = build_deck(&m->cfg, n, l, laid_deck);
        laid_game = cp_game;
        laid_game.create = laid_create;
        m->setup = (struct eng_setup) {
                .game = &laid_game, .cfg = &m->cfg, .n_seats = n, .seed = 42, .confirm = confirm,
        };
        assert_int_equal(laid_game.create(&m->st, &m->cfg, NULL, n, 42), 0);
        check(m);
}

static void setup_match(struct match *m, unsigned n, int64_t pause_ms, const struct layout *l) {
        setup_match_confirm(m, n, pause_ms, l, false);
}

/* Applies in as the runtime does: through the log layer, then logged with
 * its refusal, and the inputs an accepted void undid marked. */
static enum eng_refusal apply(struct match *m, struct eng_input *in) {
        in->seq = ++m->seq;
        if (in->time_us == 0)
                in->time_us = m->now;
        assert_true(m->n_log < MAX_LOG);
        assert_int_equal(eng_log_apply(&m->setup, &m->st, m->log, m->n_log, in, &m->out), 0);
        m->log[m->n_log] = (struct eng_record) { .in = *in, .refusal = m->out.refusal };
        eng_log_mark_voided(m->log, m->n_log);
        m->n_log++;
        check(m);
        return m->out.refusal;
}

static enum eng_refusal table_input(struct match *m, enum eng_input_kind kind) {
        struct eng_input in = { .kind = kind, .seat = ENG_SEAT_TABLE };

        return apply(m, &in);
}

static void start(struct match *m) {
        assert_int_equal(table_input(m, ENG_IN_START), ENG_ACCEPTED);
}

/* A judged call on the open window, pressed `reaction` after the reveal and
 * decided one settle window later. */
static enum eng_refusal call_at(struct match *m, int seat, int call, int64_t reaction) {
        int64_t press = m->st.t.shown_us + reaction;
        struct eng_input in = {
                .kind = ENG_IN_CALL, .seat = seat,
                .call = { .window = m->st.windows, .call = call, .press_us = press },
        };

        if (m->now < press + SETTLE)
                m->now = press + SETTLE;
        return apply(m, &in);
}

static enum eng_refusal call(struct match *m, int seat, int call) {
        return call_at(m, seat, call, REACTION);
}

/* A tie on the open window, with the tied calls (n_calls 0: not known). */
static enum eng_refusal tie_calls(struct match *m, uint32_t seats, int64_t n_calls, const int64_t *calls) {
        int64_t press = m->st.t.shown_us + REACTION;
        struct eng_input in = {
                .kind = ENG_IN_TIE, .seat = ENG_SEAT_TABLE,
                .tie = { .window = m->st.windows, .seats = seats, .press_us = press, .n_calls = n_calls },
        };

        for (int64_t k = 0; k < n_calls && k < ENG_TIE_CALLS; k++)
                in.tie.calls[k] = calls[k];
        if (m->now < press + SETTLE)
                m->now = press + SETTLE;
        return apply(m, &in);
}

static enum eng_refusal tie(struct match *m, uint32_t seats) {
        return tie_calls(m, seats, 0, NULL);
}

static enum eng_refusal timer_at(struct match *m, int64_t t) {
        struct eng_input in = { .kind = ENG_IN_TIMER, .seat = ENG_SEAT_TABLE, .time_us = t };

        if (m->now < t)
                m->now = t;
        return apply(m, &in);
}

/* The referee's quick undo at the table (void_call), a moment later. */
static enum eng_refusal void_last(struct match *m) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .seat = ENG_SEAT_TABLE, .action = CP_ACTION_VOID_CALL };

        m->now += 500 * MS;
        return apply(m, &in);
}

/* The framework's undo (engine/log.h): back to just before input target. */
static enum eng_refusal void_input(struct match *m, uint64_t target) {
        struct eng_input in = { .kind = ENG_IN_VOID, .seat = ENG_SEAT_TABLE, .void_ = { .target = (int64_t) target } };

        m->now += 500 * MS;
        return apply(m, &in);
}

/* The first row the face-up card fits, as a call, or "doesn't fit". */
static int correct_call(const struct match *m) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (cp_fits_row(&m->st.t, r, m->st.t.face_up))
                        return (int) r + 1;
        return CP_CALL_DOESNT_FIT;
}

/* A row the face-up card does not fit, or "doesn't fit" when it fits all. */
static int wrong_call(const struct match *m) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (!cp_fits_row(&m->st.t, r, m->st.t.face_up))
                        return (int) r + 1;
        return CP_CALL_DOESNT_FIT;
}

/* The index of the nth output of def from the last input, or -1. */
static int output_at(const struct match *m, const struct eng_event_def *def, int nth) {
        for (size_t i = 0; i < m->out.n; i++)
                if (m->out.v[i].def == def && nth-- == 0)
                        return (int) i;
        return -1;
}

static const struct eng_output *output(const struct match *m, const struct eng_event_def *def, int nth) {
        int i = output_at(m, def, nth);

        return i < 0 ? NULL : &m->out.v[i];
}

static const struct eng_output *must_output(const struct match *m, const struct eng_event_def *def) {
        const struct eng_output *o = output(m, def, 0);

        if (!o)
                fail_msg("no %s among %zu outputs", def->name, m->out.n);
        return o;
}

/* A card field holds the card's handle in this match, never its id. */
#define assert_card(m, value, card) \
        assert_int_equal((value), (int64_t) cp_handle(&(m)->st, (card)))

static uint8_t neutral_bottom(const struct cp_table *t) {
        return t->neutral[(t->neutral_head + t->neutral_len - 1) % CP_MAX_CARDS];
}

static uint8_t neutral_top(const struct cp_table *t) {
        return t->neutral[t->neutral_head];
}

static uint8_t stack_top(const struct cp_table *t, int s) {
        return t->stack[s][t->stack_len[s] - 1];
}

/* ---- A seat's statistics, read through cp_game.stats as the result's
 * JSON is built. */

struct seat_stats {
        int64_t calls, correct, wrong, ties, ties_right, reaction_sum_us, reaction_avg_us;
        int64_t chips, cards_left, eliminated_order;
        bool eliminated;
};

static const struct {
        const char *key;
        size_t offset;
} stats_keys[] = {
        { "calls", offsetof(struct seat_stats, calls) },
        { "correct", offsetof(struct seat_stats, correct) },
        { "wrong", offsetof(struct seat_stats, wrong) },
        { "ties", offsetof(struct seat_stats, ties) },
        { "ties_right", offsetof(struct seat_stats, ties_right) },
        { "reaction_sum_us", offsetof(struct seat_stats, reaction_sum_us) },
        { "reaction_avg_us", offsetof(struct seat_stats, reaction_avg_us) },
        { "chips", offsetof(struct seat_stats, chips) },
        { "cards_left", offsetof(struct seat_stats, cards_left) },
        { "eliminated_order", offsetof(struct seat_stats, eliminated_order) },
};

static int64_t *stats_slot(void *ctx, const char *key) {
        for (size_t i = 0; key && i < ELEMENTSOF(stats_keys); i++)
                if (strcmp(stats_keys[i].key, key) == 0)
                        return (int64_t *) ((char *) ctx + stats_keys[i].offset);
        return NULL;
}

static int stats_nested(void *ctx, const char *key) {
        (void) ctx, (void) key;
        return -EINVAL;         /* the statistics are flat */
}

static int stats_end(void *ctx) {
        (void) ctx;
        return -EINVAL;
}

static int stats_integer(void *ctx, const char *key, int64_t value) {
        int64_t *slot = stats_slot(ctx, key);

        if (!slot)
                return -ENOENT;
        *slot = value;
        return 0;
}

static int stats_null(void *ctx, const char *key) {
        int64_t *slot = stats_slot(ctx, key);

        if (!slot)
                return -ENOENT;
        *slot = ENG_ABSENT;
        return 0;
}

static int stats_boolean(void *ctx, const char *key, bool value) {
        struct seat_stats *s = ctx;

        if (!key || strcmp(key, "eliminated") != 0)
                return -ENOENT;
        s->eliminated = value;
        return 0;
}

static int stats_string(void *ctx, const char *key, const char *value) {
        (void) ctx, (void) key, (void) value;
        return -ENOENT;
}

static const struct eng_visitor stats_visitor = {
        .object_begin = stats_nested, .object_end = stats_end,
        .array_begin = stats_nested, .array_end = stats_end,
        .integer = stats_integer, .boolean = stats_boolean, .string = stats_string, .null = stats_null,
};

static struct seat_stats seat_stats(const struct cp_state *st, int seat) {
        struct seat_stats s;

        /* A member the walk leaves out stays at this marker and fails the
         * comparisons below. */
        memset(&s, 0x5a, sizeof s);
        assert_int_equal(cp_game.stats(st, seat, &stats_visitor, &s), 0);
        return s;
}

/* A view as the JSON api/ serves. */
static const char *view_json(struct tj *j, const struct cp_state *st, enum eng_audience a, int seat) {
        tj_init(j);
        assert_int_equal(cp_game.view_visit(st, a, seat, &tj_visitor, j), 0);
        assert_true(tj_balanced(j));
        return tj_finish(j);
}

static char *handle_text(char buf[9], const struct cp_state *st, uint8_t card) {
        snprintf(buf, 9, "%08" PRIx32, cp_handle(st, card));
        return buf;
}

/* ---- Setup. */

/* "These cards form the beginnings of six rows." */
static void setup_deals_six_rows_of_one_card(void **state) {
        struct eng_config cfg;
        struct cp_state st;

        (void) state;
        config(&cfg, 0);
        for (uint64_t seed = 0; seed < 50; seed++) {
                assert_int_equal(cp_game.create(&st, &cfg, NULL, 2, seed), 0);
                for (unsigned r = 0; r < CP_ROWS; r++)
                        assert_int_equal(st.t.row_len[r], 1);
                assert_int_equal(cp_check(&st, NULL, 0), 0);
                assert_int_equal(cp_game.status(&st), ENG_STATUS_READY);
        }
}

/* "No object or color may occur twice in a series." — the six starting
 * cards, whatever the shuffle. */
static void setup_starting_cards_never_repeat_an_object_or_a_colour(void **state) {
        struct eng_config cfg;
        struct cp_state st;

        (void) state;
        config(&cfg, 0);
        for (uint64_t seed = 0; seed < 2000; seed++) {
                unsigned objects = 0, colours = 0;

                assert_int_equal(cp_game.create(&st, &cfg, NULL, 2 + seed % 4, seed), 0);
                for (unsigned r = 0; r < CP_ROWS; r++) {
                        objects |= 1u << CP_CARD_OBJECT(st.t.rows[r][0]);
                        colours |= 1u << CP_CARD_COLOUR(st.t.rows[r][0]);
                }
                assert_int_equal(__builtin_popcount(objects), CP_ROWS);
                assert_int_equal(__builtin_popcount(colours), CP_ROWS);
        }
}

/* "If this occurs in the initial deal, put the card with the duplicate back
 * into the deck and deal a replacement."  Back into the deck is the bottom
 * (docs/games/crash-pilot.md, "The re-deal"), in the order they came up. */
static void setup_duplicate_goes_to_the_bottom_of_the_deck_and_is_replaced(void **state) {
        static const uint8_t top[] = {
                /* (0,1) repeats object 0 and (1,0) colour 0: both go back */
                C(0, 0), C(0, 1), C(1, 0), C(1, 1), C(2, 2), C(3, 3), C(4, 4), C(5, 5),
        };
        struct eng_config cfg;
        struct cp_state st;
        uint8_t deck[CP_MAX_CARDS];
        bool used[CP_MAX_CARDS] = { false };
        size_t n = 0;

        (void) state;
        config(&cfg, 0);
        for (size_t i = 0; i < sizeof top; i++) {
                deck[n++] = top[i];
                used[top[i]] = true;
        }
        for (unsigned k = 0; k < 2; k++)
                for (unsigned o = 0; o < 6; o++)
                        for (unsigned c = 0; c < 6; c++)
                                if (!used[CP_CARD(k, o, c)])
                                        deck[n++] = CP_CARD(k, o, c);
        assert_int_equal(cp_create_with_deck(&st, &cfg, 2, 1, deck, n), 0);
        for (unsigned r = 0; r < CP_ROWS; r++)
                assert_int_equal(st.t.rows[r][0], C(r, r));
        /* the two rejected cards are now the bottom two, in the order they
         * came up */
        assert_int_equal(st.t.neutral[(st.t.neutral_head + st.t.neutral_len - 2) % CP_MAX_CARDS],
                         C(0, 1));
        assert_int_equal(neutral_bottom(&st.t), C(1, 0));
        /* and dealing to the players goes on from the card after the last
         * replacement */
        assert_int_equal(st.t.stack[0][0], deck[8]);
        assert_int_equal(st.t.stack[1][0], deck[9]);
        assert_int_equal(st.t.stack[0][1], deck[10]);
        assert_int_equal(cp_check(&st, NULL, 0), 0);
}

/* The re-deal always finds six: a deck whose 21 cards after the first all
 * clash with it still deals, the 22nd card starting row 2. */
static void setup_redeal_always_finds_a_replacement(void **state) {
        struct eng_config cfg;
        struct cp_state st;
        uint8_t deck[CP_MAX_CARDS];
        size_t n = 0;

        (void) state;
        config(&cfg, 0);
        /* every card with object 0 or colour 0 first, then the rest */
        for (unsigned k = 0; k < 2; k++)
                for (unsigned o = 0; o < 6; o++)
                        for (unsigned c = 0; c < 6; c++)
                                if (o == 0 || c == 0)
                                        deck[n++] = CP_CARD(k, o, c);
        for (unsigned k = 0; k < 2; k++)
                for (unsigned o = 1; o < 6; o++)
                        for (unsigned c = 1; c < 6; c++)
                                deck[n++] = CP_CARD(k, o, c);
        assert_int_equal(n, 72);
        assert_int_equal(cp_create_with_deck(&st, &cfg, 5, 0, deck, n), 0);
        assert_int_equal(st.t.rows[0][0], CP_CARD(0, 0, 0));
        assert_int_equal(st.t.rows[1][0], CP_CARD(0, 1, 1));
        assert_int_equal(cp_check(&st, NULL, 0), 0);
        /* 41 cards went back, more than the 36 of the neutral deck: the
         * first five returned, (0,0,1) .. (0,0,5), are the players' last
         * round, the tops of their stacks, and everyone saw them. */
        assert_int_equal(st.t.neutral_len, 36);
        for (unsigned s = 0; s < 5; s++) {
                uint8_t top = st.t.stack[s][st.t.stack_len[s] - 1];

                assert_int_equal(top, CP_CARD(0, 0, s + 1));
                assert_true(st.seen[top / 8] & (1u << (top % 8)));
                /* the card below it was never face up */
                top = st.t.stack[s][st.t.stack_len[s] - 2];
                assert_false(st.seen[top / 8] & (1u << (top % 8)));
        }
}

/* "2 players: 13 cards, 3 players: 9 cards, 4 players: 7 cards, 5
 * players: 6 cards"; "The remaining cards form a neutral deck." */
static void setup_cards_per_player_by_player_count_and_the_rest_is_the_neutral_deck(void **state) {
        static const unsigned per[] = { [2] = 13, [3] = 9, [4] = 7, [5] = 6 };
        struct eng_config cfg;
        struct cp_state st;

        (void) state;
        config(&cfg, 0);
        for (unsigned n = 2; n <= 5; n++) {
                assert_int_equal(cp_cards_per_player(n), per[n]);
                assert_int_equal(cp_game.create(&st, &cfg, NULL, n, n), 0);
                for (unsigned s = 0; s < n; s++)
                        assert_int_equal(st.t.stack_len[s], per[n]);
                assert_int_equal(st.t.neutral_len, 72 - CP_ROWS - n * per[n]);
        }
        assert_int_equal(cp_cards_per_player(1), 0);
        assert_int_equal(cp_cards_per_player(6), 0);
}

/* "Each player stacks his cards face-down ... without looking at them":
 * no view shows a stack's cards or the neutral deck's order, not even by
 * handle. */
static void setup_stacks_and_neutral_deck_stay_face_down_in_every_view(void **state) {
        struct match m;
        struct layout l = { 0 };
        struct tj j;
        char h[9];

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        for (int a = ENG_VIEW_PUBLIC; a <= ENG_VIEW_REFEREE; a++) {
                view_json(&j, &m.st, (enum eng_audience) a, a == ENG_VIEW_SEAT ? 0 : -1);
                /* the face-up card is there by handle: the needle works */
                assert_non_null(strstr(j.buf, handle_text(h, &m.st, m.st.t.face_up)));
                /* the next neutral card and every card of both stacks appear
                 * nowhere */
                assert_null(strstr(j.buf, handle_text(h, &m.st, neutral_top(&m.st.t))));
                for (int s = 0; s < 2; s++)
                        for (unsigned i = 0; i < m.st.t.stack_len[s]; i++)
                                assert_null(strstr(j.buf, handle_text(h, &m.st, m.st.t.stack[s][i])));
                assert_non_null(strstr(j.buf, "\"neutral_cards\":"));
        }
}

/* ---- The deck and its validation. */

static void deck_is_objects_by_colours_by_copies(void **state) {
        struct eng_config cfg;
        struct cp_state st;

        (void) state;
        config(&cfg, 0);
        cfg.v[CP_PARAM_OBJECTS] = 8;
        cfg.v[CP_PARAM_COLOURS] = 7;
        cfg.v[CP_PARAM_COPIES] = 3;
        assert_int_equal(cp_game.create(&st, &cfg, NULL, 4, 9), 0);
        assert_int_equal(CP_ROWS + 4 * 7 + st.t.neutral_len, 8 * 7 * 3);
        assert_int_equal(cp_check(&st, NULL, 0), 0);
}

static void deck_validation_names_the_field(void **state) {
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        config(&cfg, 0);
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 2, &err), 0);
        cfg.v[CP_PARAM_COPIES] = 5;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.field, "deck.copies");
        assert_string_equal(err.message, "deck.copies: must be 1..4");
        config(&cfg, 0);
        cfg.v[CP_PARAM_OBJECTS] = 5;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.message, "deck.objects: must be 6..8");
        config(&cfg, 0);
        cfg.v[CP_PARAM_TIMEOUT_MS] = 10;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 2, &err), -EINVAL);
        assert_string_equal(err.message, "reveal.timeout_ms: must be 1000..600000 ms");
        config(&cfg, 0);
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 6, &err), -EINVAL);
        assert_string_equal(err.message, "seats: must be 2..5");
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 1, &err), -EINVAL);
        /* 6 x 6 x 1 = 36 cards: enough for 2-4 players, one short for 5 */
        cfg.v[CP_PARAM_COPIES] = 1;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 4, &err), 0);
        assert_int_equal(eng_config_validate(&cp_game, &cfg, NULL, 5, &err), -EINVAL);
        assert_string_equal(err.field, "deck.copies");
        assert_non_null(strstr(err.message, "make 36 cards"));
        assert_non_null(strstr(err.message, "at least 37"));
        /* the game's own check says the same when called directly, as
         * create() does */
        assert_int_equal(cp_game.validate(&cfg, NULL, 5, &err), -EINVAL);
        assert_string_equal(err.field, "deck.copies");
}

/* Validation guarantees that set-up and dealing are possible: every config
 * in the schema's ranges that validates creates a legal match, and every
 * one that does not is refused by create as well. */
static void deck_validation_guarantees_a_legal_deal(void **state) {
        struct eng_config cfg;
        struct cp_state st;
        char why[200];

        (void) state;
        config(&cfg, 0);
        for (int o = CP_MIN_KINDS; o <= CP_MAX_KINDS; o++)
                for (int c = CP_MIN_KINDS; c <= CP_MAX_KINDS; c++)
                        for (int k = 1; k <= CP_MAX_COPIES; k++)
                                for (unsigned n = 2; n <= 5; n++) {
                                        bool ok;

                                        cfg.v[CP_PARAM_OBJECTS] = o;
                                        cfg.v[CP_PARAM_COLOURS] = c;
                                        cfg.v[CP_PARAM_COPIES] = k;
                                        ok = eng_config_validate(&cp_game, &cfg, NULL, n, NULL) == 0;
                                        for (uint64_t seed = 0; seed < 20; seed++) {
                                                int r = cp_game.create(&st, &cfg, NULL, n, seed);

                                                assert_int_equal(r, ok ? 0 : -EINVAL);
                                                if (ok && cp_check(&st, why, sizeof why) < 0)
                                                        fail_msg("%dx%dx%d, %u seats: %s", o, c, k, n, why);
                                        }
                                }
}

/* The shuffle is the seed's: the same seed deals the same, another seed
 * deals otherwise. */
static void deal_is_determined_by_the_seed(void **state) {
        struct eng_config cfg;
        struct cp_state a, b;

        (void) state;
        config(&cfg, 0);
        assert_int_equal(cp_game.create(&a, &cfg, NULL, 3, 12345), 0);
        assert_int_equal(cp_game.create(&b, &cfg, NULL, 3, 12345), 0);
        assert_true(cp_game.hash(&a) == cp_game.hash(&b));
        assert_memory_equal(a.t.stack, b.t.stack, sizeof a.t.stack);
        assert_int_equal(cp_game.create(&b, &cfg, NULL, 3, 12346), 0);
        assert_true(cp_game.hash(&a) != cp_game.hash(&b));
}

/* ---- Gameplay. */

/* "The youngest player begins by turning over the top card from the
 * neutral deck."  The table turns it (the source is what matters), on
 * START, and every seat may call it. */
static void first_reveal_is_the_top_of_the_neutral_deck_for_every_seat(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 3, 0, &l);
        assert_int_equal(call(&m, 0, 1), ENG_REFUSED_STATE);    /* not started */
        start(&m);
        must_output(&m, &eng_ev_match_started);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C(0, 1));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
        assert_int_equal(o->v[CP_REV_SOURCE_SEAT], ENG_SEAT_TABLE);
        assert_int_equal(o->v[CP_REV_NUMBER], 1);
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        o = must_output(&m, &eng_req_window_open);
        assert_int_equal(o->window.window, 1);
        assert_int_equal(o->window.seats, SEAT(0) | SEAT(1) | SEAT(2));
        assert_int_equal(o->at_us, T0);
        assert_int_equal(m.out.wake_us, T0 + TIMEOUT);
        assert_int_equal(table_input(&m, ENG_IN_START), ENG_REFUSED_STATE);
}

/* "he calls the number of that row aloud" / "call out 'Doesn't fit'": a
 * call is a row 1-6 or "doesn't fit"; a pad's buttons 0-5 are rows 1-6 and
 * button 6 is "doesn't fit" (docs/protocol.md section 7). */
static void call_names_a_row_or_doesnt_fit(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_route *route;
        int c;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call(&m, 0, 0), ENG_REFUSED_INVALID);
        assert_int_equal(call(&m, 0, CP_CALL_DOESNT_FIT + 1), ENG_REFUSED_INVALID);
        assert_int_equal(call(&m, 2, 1), ENG_REFUSED_INVALID);  /* no seat 2 */
        for (unsigned b = 0; b < 6; b++) {
                char name[16];

                route = eng_route_find(&cp_game, ENG_ROLE_BUTTONS, b);
                assert_non_null(route);
                assert_int_equal(route->kind, ENG_ROUTE_CALL);
                assert_int_equal(route->call, (int) b + 1);
                snprintf(name, sizeof name, "row %u", b + 1);
                assert_string_equal(eng_call_name(&cp_game, route->call), name);
                assert_int_equal(eng_call_by_name(&cp_game, name, &c), 0);
                assert_int_equal(c, (int) b + 1);
        }
        route = eng_route_find(&cp_game, ENG_ROLE_BUTTONS, CP_BUTTON_DOESNT_FIT);
        assert_non_null(route);
        assert_int_equal(route->call, CP_CALL_DOESNT_FIT);
        assert_string_equal(eng_call_name(&cp_game, route->call), "doesn't fit");
        assert_int_equal(eng_call_by_name(&cp_game, "Doesnt-Fit", &c), 0);
        assert_int_equal(c, CP_CALL_DOESNT_FIT);
        /* a pad has seven buttons, and no slap pad or keypad calls */
        assert_null(eng_route_find(&cp_game, ENG_ROLE_BUTTONS, 7));
        assert_null(eng_route_find(&cp_game, ENG_ROLE_SLAP, 0));
        assert_null(eng_route_find(&cp_game, ENG_ROLE_KEYPAD, 0));
        assert_null(eng_call_name(&cp_game, 0));
        assert_null(eng_call_name(&cp_game, CP_CALL_DOESNT_FIT + 1));
        assert_int_equal(eng_call_by_name(&cp_game, "row 0", &c), -ENOENT);
}

/* "If the card can be legally added to that row, the card is added [and]
 * the calling player turns over the top card from his stack." */
static void legal_row_call_places_the_card_and_the_caller_reveals_from_their_stack(void **state) {
        struct match m;
        /* (0,1) fits rows 3-6 */
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) },
                            .n_stack = { 0, 1 }, .stack = { { 0 }, { C2(2, 2) } } };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call(&m, 1, 4), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_call_judged);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->v[CP_JUD_VERDICT], CP_VERDICT_CORRECT);
        assert_int_equal(o->v[CP_JUD_CALL], 4);
        assert_int_equal(o->v[CP_JUD_WINDOW], 1);
        assert_card(&m, o->v[CP_JUD_CARD], C(0, 1));
        o = must_output(&m, &cp_ev_card_placed);
        assert_int_equal(o->v[CP_PLACED_ROW], 4);
        assert_card(&m, o->v[CP_PLACED_CARD], C(0, 1));
        assert_int_equal(m.st.t.row_len[3], 2);
        assert_int_equal(m.st.t.rows[3][1], C(0, 1));
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_STACK);
        assert_int_equal(o->v[CP_REV_SOURCE_SEAT], 1);
        assert_int_equal(o->seat, 1);
        assert_card(&m, o->v[CP_REV_CARD], C2(2, 2));
        assert_int_equal(m.st.t.stack_len[1], 12);
        assert_int_equal(m.st.t.chips[1], 0);
        o = must_output(&m, &eng_req_window_open);
        assert_int_equal(o->window.seats, SEAT(0) | SEAT(1));
}

/* "Note that it's possible for a card to fit into more than one row. Only
 * the first such row called counts." — the row named by the first call is
 * where the card goes. */
static void card_fitting_several_rows_goes_to_the_row_called_first(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_true(cp_fits_row(&m.st.t, 2, C(0, 1)) && cp_fits_row(&m.st.t, 5, C(0, 1)));
        assert_int_equal(call(&m, 0, 6), ENG_ACCEPTED);
        assert_int_equal(m.st.t.row_len[5], 2);
        assert_int_equal(m.st.t.row_len[2], 1);
}

/* "Only the first such row called counts": the judge picks the first call
 * of a window; any later call for the same reveal is refused as too late,
 * reported as such, and changes nothing. */
static void only_the_first_call_counts(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct eng_input late;
        uint64_t h;

        (void) state;
        setup_match(&m, 3, 1000, &l);
        start(&m);
        late = (struct eng_input) {
                .kind = ENG_IN_CALL, .seat = 2,
                .call = { .window = m.st.windows, .call = 5, .press_us = T0 + REACTION + 1 },
        };
        assert_int_equal(call(&m, 0, 3), ENG_ACCEPTED);
        h = cp_game.hash(&m.st);
        assert_int_equal(apply(&m, &late), ENG_REFUSED_TOO_LATE);
        assert_int_equal(m.out.n, 1);
        assert_ptr_equal(m.out.v[0].def, &cp_ev_call_judged);
        assert_int_equal(m.out.v[0].v[CP_JUD_VERDICT], CP_VERDICT_TOO_LATE);
        assert_int_equal(m.out.v[0].v[CP_JUD_CALL], 5);
        assert_int_equal(m.out.v[0].seat, 2);
        assert_true(cp_game.hash(&m.st) == h);
        assert_int_equal(m.st.t.row_len[4], 1);
}

/* A call that comes too late was judged against no card: its event names
 * none (null).  Between cards there is none face up, and naming another
 * card could name one still hidden in a stack; for a window that is over,
 * the card face up now is not the one called; and while paused the face-up
 * card is hidden from the players, whom call_judged reaches. */
static void call_too_late_names_no_card(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct eng_input late;

        (void) state;
        assert_true(cp_ev_call_judged.fields[CP_JUD_CARD].optional);
        setup_match(&m, 3, 1000, &l);
        start(&m);
        late = (struct eng_input) {
                .kind = ENG_IN_CALL, .seat = 2,
                .call = { .window = m.st.windows, .call = 5, .press_us = T0 + REACTION + 1 },
        };
        assert_int_equal(call(&m, 0, 3), ENG_ACCEPTED);
        assert_int_equal(m.st.t.phase, CP_PHASE_BETWEEN);
        assert_int_equal(apply(&m, &late), ENG_REFUSED_TOO_LATE);
        assert_int_equal(m.out.n, 1);
        assert_int_equal(m.out.v[0].v[CP_JUD_VERDICT], CP_VERDICT_TOO_LATE);
        assert_int_equal(m.out.v[0].v[CP_JUD_CARD], ENG_ABSENT);
        /* the next card is up: the old window's call still names none */
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
        late.time_us = 0;
        assert_int_equal(apply(&m, &late), ENG_REFUSED_TOO_LATE);
        assert_int_equal(m.out.v[0].v[CP_JUD_CARD], ENG_ABSENT);
        /* nor does a call for the current window made while paused */
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        late.time_us = 0;
        late.call.window = m.st.windows;
        assert_int_equal(apply(&m, &late), ENG_REFUSED_TOO_LATE);
        assert_int_equal(m.out.v[0].v[CP_JUD_CARD], ENG_ABSENT);
}

/* "If the card cannot be legally added to that row, that player gets a red
 * chip. ... The card is tucked underneath the neutral deck, and that player
 * turns up the top card of the neutral deck to start the next turn." */
static void illegal_row_call_gives_a_chip_tucks_the_card_and_reveals_from_the_neutral_deck(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 2, .neutral = { C(0, 1), C2(3, 3) } };
        const struct eng_output *o;
        uint16_t neutral;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        neutral = m.st.t.neutral_len;
        assert_int_equal(call(&m, 0, 2), ENG_ACCEPTED);         /* row 2 holds colour 1 */
        o = must_output(&m, &cp_ev_call_judged);
        assert_int_equal(o->v[CP_JUD_VERDICT], CP_VERDICT_WRONG);
        o = must_output(&m, &cp_ev_chip_given);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->v[CP_CHIP_CHIPS], 1);
        assert_int_equal(m.st.t.chips[0], 1);
        o = must_output(&m, &cp_ev_card_tucked);
        assert_card(&m, o->v[CP_TUCKED_CARD], C(0, 1));
        assert_int_equal(o->v[CP_TUCKED_CAUSE], CP_CAUSE_WRONG_CALL);
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
        assert_card(&m, o->v[CP_REV_CARD], C2(3, 3));
        assert_int_equal(m.st.t.neutral_len, neutral);          /* one in, one out */
        assert_int_equal(m.st.t.stack_len[0], 13);
        for (unsigned r = 0; r < CP_ROWS; r++)
                assert_int_equal(m.st.t.row_len[r], 1);
}

/* "Any player with three chips is out of the game."  The next card comes
 * from the neutral deck although its caller is out (docs/games/
 * crash-pilot.md, "A player eliminated holding the turn"); the seat may no
 * longer call and its stack is set aside. */
static void three_chips_and_a_player_is_out(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 3, 0, &l);
        start(&m);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
                assert_null(output(&m, &cp_ev_player_eliminated, 0));
        }
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_player_eliminated);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->v[CP_ELIMINATED_ORDER], 1);
        assert_int_equal(m.st.t.chips[0], CP_CHIPS_OUT);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
        o = must_output(&m, &eng_req_window_open);
        assert_int_equal(o->window.seats, SEAT(1) | SEAT(2));
        assert_int_equal(m.st.t.stack_len[0], 9);
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(m.out.v[0].v[CP_JUD_VERDICT], CP_VERDICT_NOT_ALLOWED);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_RUNNING);
}

/* Silent rule: when all but one player are out, the last one wins. */
static void when_all_but_one_are_out_the_last_player_wins(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_output *o;
        struct eng_result res;
        struct seat_stats s;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, &eng_ev_match_finished);
        assert_int_equal(o->finished.winner, 0);
        assert_int_equal(o->finished.place[0], 1);
        assert_int_equal(o->finished.place[1], 2);
        assert_int_equal(o->finished.place[2], 0);      /* no such seat */
        assert_null(output(&m, &cp_ev_card_revealed, 0));
        assert_int_equal(m.out.wake_us, ENG_NEVER);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_FINISHED);
        assert_int_equal(cp_game.result(&m.st, &res), 0);
        assert_true(res.finished);
        assert_int_equal(res.winner, 0);
        s = seat_stats(&m.st, 0);
        assert_int_equal(s.cards_left, 13);
        s = seat_stats(&m.st, 1);
        assert_true(s.eliminated);
        assert_int_equal(s.eliminated_order, 1);
        assert_int_equal(call(&m, 0, 1), ENG_REFUSED_FINISHED);
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_REFUSED_FINISHED);
}

/* Places (0,3), (4,1), (5,1) and (0,2) with correct calls by seat 0 so that
 * (0,1), the next card of seat 0's stack, fits no row. */
static void reveal_a_card_that_fits_nowhere(struct match *m, unsigned n) {
        struct layout l = {
                .n_neutral = 1, .neutral = { C(0, 3) },
                .n_stack = { 5 }, .stack = { { C(4, 1), C(5, 1), C(0, 2), C(0, 1), C2(4, 4) } },
        };

        setup_match(m, n, 0, &l);
        start(m);
        assert_int_equal(call(m, 0, 3), ENG_ACCEPTED);
        assert_int_equal(call(m, 0, 4), ENG_ACCEPTED);
        assert_int_equal(call(m, 0, 5), ENG_ACCEPTED);
        assert_int_equal(call(m, 0, 6), ENG_ACCEPTED);
        assert_int_equal(m->st.t.face_up, C(0, 1));
        assert_true(cp_fits_nowhere(&m->st.t, C(0, 1)));
}

/* "The first player to detect this and call out 'Doesn't fit' may turn
 * over the top card of his deck to start the next turn. The card which
 * didn't fit is tucked under the neutral deck." */
static void doesnt_fit_when_true_tucks_the_card_and_the_caller_reveals_from_their_stack(void **state) {
        struct match m;
        const struct eng_output *o;
        uint8_t top;

        (void) state;
        reveal_a_card_that_fits_nowhere(&m, 2);
        top = stack_top(&m.st.t, 1);
        assert_int_equal(call(&m, 1, CP_CALL_DOESNT_FIT), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_call_judged);
        assert_int_equal(o->v[CP_JUD_VERDICT], CP_VERDICT_CORRECT);
        o = must_output(&m, &cp_ev_card_tucked);
        assert_int_equal(o->v[CP_TUCKED_CAUSE], CP_CAUSE_DOESNT_FIT);
        assert_card(&m, o->v[CP_TUCKED_CARD], C(0, 1));
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_STACK);
        assert_int_equal(o->v[CP_REV_SOURCE_SEAT], 1);
        assert_card(&m, o->v[CP_REV_CARD], top);
        assert_int_equal(m.st.t.chips[1], 0);
}

/* "If a player calls out a row number for a card that doesn't fit any row
 * ... follow the procedure outlined above for an incorrect call." */
static void row_call_for_a_card_that_fits_nowhere_is_a_wrong_call(void **state) {
        struct match m;

        (void) state;
        reveal_a_card_that_fits_nowhere(&m, 2);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, &cp_ev_call_judged)->v[CP_JUD_VERDICT], CP_VERDICT_WRONG);
        assert_int_equal(m.st.t.chips[1], 1);
        assert_int_equal(must_output(&m, &cp_ev_card_revealed)->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
}

/* "... or if a player calls out 'Doesn't fit' but a legal row for that card
 * is found, follow the procedure outlined above for an incorrect call." */
static void doesnt_fit_when_a_row_fits_is_a_wrong_call(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call(&m, 0, CP_CALL_DOESNT_FIT), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_call_judged);
        assert_int_equal(o->v[CP_JUD_VERDICT], CP_VERDICT_WRONG);
        assert_int_equal(m.st.t.chips[0], 1);
        assert_int_equal(must_output(&m, &cp_ev_card_tucked)->v[CP_TUCKED_CAUSE], CP_CAUSE_WRONG_CALL);
        assert_int_equal(must_output(&m, &cp_ev_card_revealed)->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
}

/* "If two or more players call out at the same time, they enter a
 * tiebreaker round. The face-up card is tucked under the neutral deck and
 * the top card from that deck is turned up. ... Only the tied players can
 * call out for this card." */
static void simultaneous_calls_start_a_tiebreaker_for_the_tied_players_only(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 2, .neutral = { C(0, 1), C2(1, 2) } };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 4, 0, &l);
        start(&m);
        assert_int_equal(tie(&m, SEAT(0) | SEAT(2)), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_tiebreak_started);
        assert_int_equal(o->v[CP_TIE_SEATS], SEAT(0) | SEAT(2));
        assert_int_equal(o->v[CP_TIE_N_CALLS], 0);
        o = must_output(&m, &cp_ev_card_tucked);
        assert_card(&m, o->v[CP_TUCKED_CARD], C(0, 1));
        assert_int_equal(o->v[CP_TUCKED_CAUSE], CP_CAUSE_TIE);
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C2(1, 2));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
        o = must_output(&m, &eng_req_window_open);
        assert_int_equal(o->window.seats, SEAT(0) | SEAT(2));
        assert_int_equal(m.st.t.stats[0].ties, 1);
        assert_int_equal(m.st.t.stats[2].ties, 1);
        assert_int_equal(m.st.t.stats[1].ties, 0);
        assert_int_equal(call(&m, 1, correct_call(&m)), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(call(&m, 3, correct_call(&m)), ENG_REFUSED_NOT_ALLOWED);
        /* a tie must be of seats that may call, two at least */
        assert_int_equal(tie(&m, SEAT(0) | SEAT(1)), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(tie(&m, SEAT(0)), ENG_REFUSED_INVALID);
        assert_int_equal(tie(&m, SEAT(5) | SEAT(0)), ENG_REFUSED_INVALID);
}

/* The judge knows what each tied seat pressed: a tie carries the tied
 * calls, one per tied seat in seat order.  They are shown with the
 * tiebreak, and a tied seat whose call was a legal one for the card is
 * credited in its statistics (ties_right), though the card is tucked all
 * the same. */
static void tie_carries_the_tied_calls_into_the_tiebreak_and_the_statistics(void **state) {
        struct match m;
        /* (0,1) fits rows 3-6: row 3 is legal, row 1 and "doesn't fit" are
         * not */
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        const int64_t calls[] = { 3, 1, CP_CALL_DOESNT_FIT };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 4, 0, &l);
        start(&m);
        assert_int_equal(tie_calls(&m, SEAT(0) | SEAT(2) | SEAT(3), 3, calls), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_tiebreak_started);
        assert_int_equal(o->v[CP_TIE_SEATS], SEAT(0) | SEAT(2) | SEAT(3));
        assert_int_equal(o->v[CP_TIE_N_CALLS], 3);
        assert_int_equal(o->v[CP_TIE_CALLS + 0], 3);
        assert_int_equal(o->v[CP_TIE_CALLS + 1], 1);
        assert_int_equal(o->v[CP_TIE_CALLS + 2], CP_CALL_DOESNT_FIT);
        assert_int_equal(must_output(&m, &cp_ev_card_tucked)->v[CP_TUCKED_CAUSE], CP_CAUSE_TIE);
        for (int s = 0; s < 4; s++) {
                struct seat_stats x = seat_stats(&m.st, s);

                assert_int_equal(x.ties, s == 1 ? 0 : 1);
                assert_int_equal(x.ties_right, s == 0 ? 1 : 0);
                /* a tie is not a judged call */
                assert_int_equal(x.calls, 0);
        }
        /* "doesn't fit" is the legal call for a card that fits nowhere */
        reveal_a_card_that_fits_nowhere(&m, 3);
        {
                const int64_t both[] = { CP_CALL_DOESNT_FIT, 2 };

                assert_int_equal(tie_calls(&m, SEAT(1) | SEAT(2), 2, both), ENG_ACCEPTED);
                assert_int_equal(seat_stats(&m.st, 1).ties_right, 1);
                assert_int_equal(seat_stats(&m.st, 2).ties_right, 0);
        }
}

/* The tied calls must be complete or absent, and each a call: anything else
 * is malformed and changes nothing. */
static void tie_with_calls_not_one_per_tied_seat_is_refused(void **state) {
        static const struct {
                int64_t n_calls;
                int64_t calls[4];
        } bad[] = {
                { 1, { 3 } },                           /* fewer than the tied seats */
                { 2, { 3, 3 } },
                { 4, { 3, 3, 3, 3 } },                  /* more */
                { -1, { 0 } },
                { 3, { 3, 0, 3 } },                     /* no call 0 */
                { 3, { 3, 3, CP_CALL_DOESNT_FIT + 1 } },
                { 3, { -1, 3, 3 } },
        };
        const int64_t good[] = { 1, 2, CP_CALL_DOESNT_FIT };
        struct match m;
        struct layout l = { 0 };

        (void) state;
        setup_match(&m, 4, 0, &l);
        start(&m);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint64_t h = cp_game.hash(&m.st);

                assert_int_equal(tie_calls(&m, SEAT(0) | SEAT(1) | SEAT(3), bad[i].n_calls, bad[i].calls),
                                 ENG_REFUSED_INVALID);
                assert_int_equal(m.out.n, 0);
                assert_true(cp_game.hash(&m.st) == h);
        }
        assert_int_equal(tie_calls(&m, SEAT(0) | SEAT(1) | SEAT(3), 3, good), ENG_ACCEPTED);
}

/* "If they tie again, repeat this process until one player gets in first,
 * at which point the card is resolved normally."  Resolved normally: a
 * correct call places it and the caller reveals from their stack, and the
 * next card is open to every seat again. */
static void tiebreak_repeats_until_one_is_first_then_the_card_is_resolved_normally(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_output *o;
        uint8_t card;

        (void) state;
        setup_match(&m, 5, 0, &l);
        start(&m);
        assert_int_equal(tie(&m, SEAT(0) | SEAT(1) | SEAT(3)), ENG_ACCEPTED);
        assert_int_equal(tie(&m, SEAT(1) | SEAT(3)), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, SEAT(1) | SEAT(3));
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_REFUSED_NOT_ALLOWED);
        card = m.st.t.face_up;
        assert_int_equal(call(&m, 3, correct_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_card_placed);
        assert_card(&m, o->v[CP_PLACED_CARD], card);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_STACK);
        assert_int_equal(o->v[CP_REV_SOURCE_SEAT], 3);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x1f);
        assert_int_equal(m.st.t.tiebreak, 0);
}

/* The tiebreak card resolved normally by a wrong call: chip, tuck, next
 * card from the neutral deck, open to everyone. */
static void tiebreak_card_called_wrong_gives_a_chip_and_ends_the_tiebreak(void **state) {
        struct match m;
        struct layout l = { 0 };

        (void) state;
        setup_match(&m, 3, 0, &l);
        start(&m);
        assert_int_equal(tie(&m, SEAT(0) | SEAT(1)), ENG_ACCEPTED);
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(m.st.t.chips[1], 1);
        assert_int_equal(must_output(&m, &cp_ev_card_revealed)->v[CP_REV_SOURCE], CP_SOURCE_NEUTRAL);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x7);
        /* seat 2 sat the tiebreak out; its pad is unlocked again */
        assert_int_equal(must_output(&m, &eng_req_pad_lockout)->seat, 2);
        assert_int_equal(must_output(&m, &eng_req_pad_lockout)->lockout.buttons, 0);
}

/* "As soon as a player turns over the last card from his stack, he wins
 * the game -- the last card is not actually played."  Thirteen correct
 * calls by one of two players: the first on the neutral card, twelve on
 * their own cards; the thirteenth would turn over the last card. */
static void player_who_turns_over_their_last_card_wins_at_once_and_it_is_not_played(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_output *o;
        uint8_t last;
        unsigned placed = 0;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        for (int i = 0; i < 12; i++)
                assert_int_equal(call(&m, 0, correct_call(&m)), ENG_ACCEPTED);
        assert_int_equal(m.st.t.stack_len[0], 1);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_RUNNING);
        last = m.st.t.stack[0][0];
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, &eng_ev_match_finished);
        assert_int_equal(o->finished.winner, 0);
        /* turned over, so shown to all (a reveal), but opens no window */
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->v[CP_REV_CARD], cp_handle(&m.st, last));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_STACK);
        assert_null(output(&m, &eng_req_window_open, 0));
        assert_int_equal(m.st.t.stack_len[0], 0);
        assert_true(m.st.t.has_face_up);
        assert_int_equal(m.st.t.face_up, last);
        for (unsigned r = 0; r < CP_ROWS; r++)
                for (unsigned i = 0; i < m.st.t.row_len[r]; i++) {
                        assert_int_not_equal(m.st.t.rows[r][i], last);
                        placed++;
                }
        assert_int_equal(m.st.t.stats[0].correct, 13);
        assert_int_equal(m.st.t.winner, 0);
        assert_int_equal(m.out.wake_us, ENG_NEVER);
        assert_true(placed >= CP_ROWS);
}

/* ---- Decisions where the rulebook is silent. */

/* A reveal nobody calls within reveal.timeout_ms: tucked, next neutral
 * card, for the same seats; a timer before its time is refused. */
static void reveal_nobody_calls_is_tucked_and_the_next_neutral_card_revealed(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 2, .neutral = { C(0, 1), C(4, 5) } };
        const struct eng_output *o;
        uint64_t h;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        h = cp_game.hash(&m.st);
        assert_int_equal(timer_at(&m, T0 + TIMEOUT - 1), ENG_REFUSED_NOT_DUE);
        assert_true(cp_game.hash(&m.st) == h);
        assert_int_equal(timer_at(&m, T0 + TIMEOUT), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_reveal_expired);
        assert_card(&m, o->v[CP_EXPIRED_CARD], C(0, 1));
        assert_int_equal(must_output(&m, &eng_req_window_close)->window.window, 1);
        o = must_output(&m, &cp_ev_card_tucked);
        assert_int_equal(o->v[CP_TUCKED_CAUSE], CP_CAUSE_EXPIRED);
        assert_card(&m, o->v[CP_TUCKED_CARD], C(0, 1));
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C(4, 5));
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x3);
        assert_int_equal(m.out.wake_us, T0 + 2 * TIMEOUT);
        assert_int_equal(m.st.t.chips[0] + m.st.t.chips[1], 0);
}

/* A tiebreak in which nobody calls before the card expires is over: nobody
 * got in first, and keeping the other seats locked out expiry after expiry
 * would shut them out of the game.  The next card is open to every seat
 * still in, and the seats that sat the tiebreak out are unlocked (an
 * eliminated seat stays locked).  Checked with and without a verdict
 * pause. */
static void reveal_nobody_calls_during_a_tiebreak_ends_the_tiebreak(void **state) {
        static const int64_t pauses_ms[] = { 0, 1000 };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(pauses_ms); i++) {
                struct match m;
                struct layout l = { 0 };
                const struct eng_output *o;

                setup_match(&m, 5, pauses_ms[i], &l);
                start(&m);
                /* seat 4 goes out first */
                for (int k = 0; k < 3; k++) {
                        assert_int_equal(call(&m, 4, wrong_call(&m)), ENG_ACCEPTED);
                        if (m.st.t.phase == CP_PHASE_BETWEEN)
                                assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
                }
                assert_int_equal(m.st.t.out_order[4], 1);
                assert_int_equal(tie(&m, SEAT(0) | SEAT(1)), ENG_ACCEPTED);
                if (m.st.t.phase == CP_PHASE_BETWEEN)
                        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
                assert_int_equal(m.st.t.allowed, SEAT(0) | SEAT(1));
                assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
                must_output(&m, &cp_ev_reveal_expired);
                assert_int_equal(m.st.t.tiebreak, 0);
                /* seats 2 and 3 are unlocked, and only they */
                assert_non_null(o = output(&m, &eng_req_pad_lockout, 0));
                assert_int_equal(o->seat, 2);
                assert_int_equal(o->lockout.buttons, 0);
                assert_non_null(o = output(&m, &eng_req_pad_lockout, 1));
                assert_int_equal(o->seat, 3);
                assert_int_equal(o->lockout.buttons, 0);
                assert_null(output(&m, &eng_req_pad_lockout, 2));
                if (pauses_ms[i]) {
                        assert_null(output(&m, &eng_req_window_open, 0));
                        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
                }
                o = must_output(&m, &eng_req_window_open);
                assert_int_equal(o->window.seats, SEAT(0) | SEAT(1) | SEAT(2) | SEAT(3));
                assert_int_equal(call(&m, 2, correct_call(&m)), ENG_ACCEPTED);
        }
}

/* An empty neutral deck cannot happen: after the first reveal the deck
 * only shrinks when a card is drawn right after a tuck.  Here: the
 * smallest deck there is (4 players, 6 x 6 x 1, two neutral cards) and a
 * long run of wrong calls, ties and expiries. */
static void neutral_deck_is_never_empty_when_a_card_is_drawn_from_it(void **state) {
        struct eng_config cfg;
        struct cp_state st;
        struct cp_sim_params p;
        char why[200];

        (void) state;
        config(&cfg, 0);
        cfg.v[CP_PARAM_COPIES] = 1;
        cp_sim_params_default(&p);
        p.correct_pct = 10;
        p.tie_pct = 40;
        p.expire_pct = 20;
        for (uint64_t seed = 0; seed < 300; seed++) {
                /* -EPROTO from apply would mean a draw from an empty deck */
                assert_int_equal(cp_sim_match(&st, &cfg, 4, seed, seed, &p, NULL, 0, NULL, NULL, NULL), 0);
                if (cp_check(&st, why, sizeof why) < 0)
                        fail_msg("seed %llu: %s", (unsigned long long) seed, why);
        }
}

/* Pacing: the verdict stays up for reveal.pause_ms; the next card comes on
 * the timer, from the source the verdict chose. */
static void next_card_comes_after_the_verdict_pause(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        const struct eng_output *o;
        int64_t decided;
        uint8_t top;

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        top = stack_top(&m.st.t, 1);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        decided = m.now;
        assert_null(output(&m, &cp_ev_card_revealed, 0));
        assert_int_equal(m.out.wake_us, decided + 1000 * MS);
        assert_int_equal(m.st.t.phase, CP_PHASE_BETWEEN);
        assert_int_equal(timer_at(&m, decided + 999 * MS), ENG_REFUSED_NOT_DUE);
        assert_int_equal(timer_at(&m, decided + 1003 * MS), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], top);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_STACK);
        assert_int_equal(o->v[CP_REV_SOURCE_SEAT], 1);
        assert_int_equal(o->at_us, decided + 1003 * MS);
        assert_int_equal(must_output(&m, &eng_req_window_open)->at_us, decided + 1003 * MS);
}

/* Reaction time is the press time minus the reveal (window open) time. */
static void reaction_time_is_press_time_minus_reveal_time(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct seat_stats s;
        struct eng_result res;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call_at(&m, 0, 3, 431 * MS + 7), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, &cp_ev_call_judged)->v[CP_JUD_REACTION], 431 * MS + 7);
        assert_int_equal(call_at(&m, 0, wrong_call(&m), 600 * MS + 1), ENG_ACCEPTED);
        s = seat_stats(&m.st, 0);
        assert_int_equal(s.calls, 2);
        assert_int_equal(s.correct, 1);
        assert_int_equal(s.wrong, 1);
        assert_int_equal(s.ties, 0);
        assert_int_equal(s.ties_right, 0);
        assert_int_equal(s.reaction_sum_us, 1031 * MS + 8);
        assert_int_equal(s.reaction_avg_us, (1031 * MS + 8) / 2);
        assert_int_equal(s.chips, 1);
        assert_int_equal(s.cards_left, 12);
        assert_false(s.eliminated);
        assert_int_equal(s.eliminated_order, ENG_ABSENT);
        s = seat_stats(&m.st, 1);
        assert_int_equal(s.calls, 0);
        assert_int_equal(s.reaction_avg_us, ENG_ABSENT);        /* no calls: no average */
        assert_int_equal(cp_game.stats(&m.st, 2, &stats_visitor, &s), -EINVAL);
        assert_int_equal(cp_game.result(&m.st, &res), 0);
        assert_false(res.finished);
        /* a press before the reveal or after the decision is not a call */
        assert_int_equal(call_at(&m, 1, 1, -1), ENG_REFUSED_INVALID);
}

/* Pause closes the window and hides the card from players; resume shows it
 * again with a new window and a full timeout; a call for the old window is
 * too late. */
static void pause_hides_the_card_and_resume_shows_it_again(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct cp_view v;
        const struct eng_output *o;
        uint32_t old;

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        old = m.st.windows;
        m.now += 5000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        must_output(&m, &eng_ev_paused);
        assert_int_equal(must_output(&m, &eng_req_window_close)->window.window, old);
        assert_int_equal(m.out.wake_us, ENG_NEVER);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_PAUSED);
        assert_int_equal(cp_view(&m.st, ENG_VIEW_PUBLIC, -1, &v), 0);
        assert_false(v.face_up_shown);
        assert_int_equal(cp_view(&m.st, ENG_VIEW_SEAT, 0, &v), 0);
        assert_false(v.face_up_shown);
        assert_int_equal(cp_view(&m.st, ENG_VIEW_REFEREE, -1, &v), 0);
        assert_true(v.face_up_shown);
        assert_int_equal(v.face_up, C(0, 1));
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_REFUSED_STATE);
        assert_int_equal(timer_at(&m, T0 + 30000 * MS), ENG_REFUSED_NOT_DUE);
        assert_int_equal(void_last(&m), ENG_REFUSED_STATE);
        m.now = T0 + 60000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_ACCEPTED);
        must_output(&m, &eng_ev_resumed);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C(0, 1));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_AGAIN);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.window, old + 1);
        assert_int_equal(m.out.wake_us, T0 + 60000 * MS + TIMEOUT);
        {
                struct eng_input stale = {
                        .kind = ENG_IN_CALL, .seat = 0,
                        .call = { .window = old, .call = 3, .press_us = T0 + 60001 * MS },
                };

                m.now += 10 * MS;
                assert_int_equal(apply(&m, &stale), ENG_REFUSED_TOO_LATE);
        }
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_REFUSED_STATE);
}

/* A pause between verdict and reveal restarts the whole pause on resume. */
static void pause_between_cards_restarts_the_verdict_pause(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_ACCEPTED);
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        assert_null(output(&m, &eng_req_window_close, 0));
        m.now += 7000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_ACCEPTED);
        assert_int_equal(m.out.wake_us, m.now + 1000 * MS);
        assert_null(output(&m, &cp_ev_card_revealed, 0));
        assert_int_equal(timer_at(&m, m.now + 1000 * MS), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_STACK);
        assert_int_equal(o->v[CP_REV_SOURCE_SEAT], 0);
}

/* A referee's void_call puts the table back as it was before the last
 * resolution — chip, tuck, statistics — and shows that card again after
 * the pause; it is one level deep. */
static void referee_void_restores_the_table_and_shows_the_card_again(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct cp_table before;
        const struct eng_output *o;
        uint64_t seq;

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        assert_int_equal(void_last(&m), ENG_REFUSED_STATE);     /* nothing to void yet */
        before = m.st.t;
        assert_int_equal(call(&m, 0, 1), ENG_ACCEPTED);         /* wrong: row 1 holds object 0 */
        seq = m.seq;
        assert_int_equal(m.st.t.chips[0], 1);
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);     /* next card is up */
        assert_int_equal(void_last(&m), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_call_voided);
        assert_int_equal(o->v[CP_VOIDED_SEQ], seq);
        must_output(&m, &eng_req_window_close);
        assert_int_equal(m.st.t.chips[0], 0);
        assert_int_equal(m.st.t.stats[0].calls, 0);
        assert_int_equal(m.st.t.neutral_len, before.neutral_len);
        assert_memory_equal(m.st.t.rows, before.rows, sizeof before.rows);
        assert_int_equal(m.st.t.phase, CP_PHASE_BETWEEN);
        assert_int_equal(void_last(&m), ENG_REFUSED_STATE);     /* one level */
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C(0, 1));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_AGAIN);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x3);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        assert_int_equal(m.st.t.rows[2][1], C(0, 1));
}

/* A void_call can take back an elimination, and even a win by elimination
 * is final (the match is over). */
static void referee_void_can_undo_an_elimination(void **state) {
        struct match m;
        struct layout l = { 0 };

        (void) state;
        setup_match(&m, 3, 0, &l);
        start(&m);
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 2, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(m.st.t.out_order[2], 1);
        assert_int_equal(void_last(&m), ENG_ACCEPTED);
        assert_int_equal(m.st.t.out_order[2], 0);
        assert_int_equal(m.st.t.chips[2], 2);
        /* every pad is told its lock again: seat 2's is lifted */
        assert_int_equal(output(&m, &eng_req_pad_lockout, 2)->seat, 2);
        assert_int_equal(output(&m, &eng_req_pad_lockout, 2)->lockout.buttons, 0);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x7);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
                assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        }
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_FINISHED);
        assert_int_equal(m.st.t.winner, 2);
        assert_int_equal(void_last(&m), ENG_REFUSED_FINISHED);
}

/* ---- The framework's undo (engine/log.h), as Crash Pilot takes it. */

/* The parts of a table a void puts back. */
static void assert_same_table(const struct cp_table *a, const struct cp_table *b) {
        assert_memory_equal(a->row_len, b->row_len, sizeof a->row_len);
        for (unsigned r = 0; r < CP_ROWS; r++)
                assert_memory_equal(a->rows[r], b->rows[r], a->row_len[r]);
        assert_memory_equal(a->stack_len, b->stack_len, sizeof a->stack_len);
        for (unsigned s = 0; s < CP_MAX_SEATS; s++)
                assert_memory_equal(a->stack[s], b->stack[s], a->stack_len[s]);
        assert_int_equal(a->neutral_len, b->neutral_len);
        for (unsigned i = 0; i < a->neutral_len; i++)
                assert_int_equal(a->neutral[(a->neutral_head + i) % CP_MAX_CARDS],
                                 b->neutral[(b->neutral_head + i) % CP_MAX_CARDS]);
        assert_memory_equal(a->chips, b->chips, sizeof a->chips);
        assert_memory_equal(a->out_order, b->out_order, sizeof a->out_order);
        assert_memory_equal(a->stats, b->stats, sizeof a->stats);
        assert_int_equal(a->tiebreak, b->tiebreak);
}

/* Voiding a call takes the table back to just before it, and what people
 * see starts again from the void: the face-up card is shown again with a
 * new window (the rewound one is closed first: its presses are gone) and a
 * full timeout from now.  The framework says first what was voided. */
static void void_of_a_call_rewinds_the_table_and_shows_the_card_again(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 2, .neutral = { C(0, 1), C2(3, 3) } };
        struct cp_table before;
        const struct eng_output *o;
        uint64_t void_seq;
        int64_t at;
        int closed, shown, opened;

        (void) state;
        setup_match(&m, 3, 1000, &l);
        start(&m);
        before = m.st.t;
        assert_int_equal(call(&m, 0, 1), ENG_ACCEPTED);         /* seq 2, wrong: a chip */
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);     /* seq 3, C2(3,3) is up */
        assert_int_equal(m.st.t.chips[0], 1);
        m.now += 4000 * MS;
        assert_int_equal(void_input(&m, 2), ENG_ACCEPTED);
        void_seq = m.seq;
        at = m.now;

        o = &m.out.v[0];
        assert_ptr_equal(o->def, &eng_ev_inputs_voided);
        assert_int_equal(o->voided.target, 2);
        assert_int_equal(o->voided.count, 2);
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        assert_int_equal(o->at_us, at);
        assert_int_equal(m.log[0].voided_by, 0);
        assert_int_equal(m.log[1].voided_by, void_seq);
        assert_int_equal(m.log[2].voided_by, void_seq);

        assert_same_table(&m.st.t, &before);
        assert_int_equal(m.st.t.phase, CP_PHASE_SHOWING);
        assert_int_equal(m.st.t.face_up, C(0, 1));

        closed = output_at(&m, &eng_req_window_close, 0);
        shown = output_at(&m, &cp_ev_card_revealed, 0);
        opened = output_at(&m, &eng_req_window_open, 0);
        assert_true(closed > 0 && closed < shown && shown < opened);
        assert_int_equal(m.out.v[closed].window.window, 1);     /* the rewound state's window */
        o = &m.out.v[shown];
        assert_card(&m, o->v[CP_REV_CARD], C(0, 1));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_AGAIN);
        assert_int_equal(o->at_us, at);
        o = &m.out.v[opened];
        assert_int_equal(o->window.window, m.st.windows);
        assert_true(o->window.window > 1);
        assert_int_equal(o->window.seats, 0x7);
        assert_int_equal(o->at_us, at);
        assert_int_equal(m.out.wake_us, at + TIMEOUT);
        assert_int_equal(cp_game.wake_us(&m.st), at + TIMEOUT);
        /* every pad is told its lock again */
        for (int s = 0; s < 3; s++)
                assert_int_equal(output(&m, &eng_req_pad_lockout, s)->seat, s);
        /* the full timeout runs from the void, and the new window takes a
         * call */
        assert_int_equal(timer_at(&m, at + TIMEOUT - 1), ENG_REFUSED_NOT_DUE);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        assert_int_equal(m.st.t.rows[2][1], C(0, 1));
}

/* A void made while the operator's pause is on leaves it on: a void is not
 * a resume.  The table is rewound all the same (the pause came after the
 * call and is voided with it), and the card comes back only on RESUME. */
static void void_while_paused_leaves_the_match_paused(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 2, .neutral = { C(0, 1), C2(3, 3) } };
        struct cp_table before;
        struct cp_view v;
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 3, 1000, &l);
        start(&m);
        before = m.st.t;
        assert_int_equal(call(&m, 0, 1), ENG_ACCEPTED);         /* seq 2 */
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
        m.now += 1000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        assert_int_equal(void_input(&m, 2), ENG_ACCEPTED);
        assert_ptr_equal(m.out.v[0].def, &eng_ev_inputs_voided);
        assert_int_equal(m.out.v[0].voided.count, 3);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_PAUSED);
        assert_int_equal(m.out.wake_us, ENG_NEVER);
        assert_null(output(&m, &eng_req_window_open, 0));
        assert_null(output(&m, &cp_ev_card_revealed, 0));
        assert_same_table(&m.st.t, &before);
        /* players do not see the card during the pause, the referee does */
        assert_int_equal(cp_view(&m.st, ENG_VIEW_PUBLIC, -1, &v), 0);
        assert_false(v.face_up_shown);
        assert_int_equal(cp_view(&m.st, ENG_VIEW_REFEREE, -1, &v), 0);
        assert_true(v.face_up_shown);
        assert_int_equal(v.face_up, C(0, 1));
        /* a call cannot get in while paused */
        assert_int_equal(call(&m, 1, 3), ENG_REFUSED_TOO_LATE);
        m.now += 3000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_ACCEPTED);
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C(0, 1));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_AGAIN);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x7);
        assert_int_equal(m.out.wake_us, m.now + TIMEOUT);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
}

/* ... and voiding a resume does not stop a running table: the operator's
 * pause is the operator's to set and lift.  The card is shown again with a
 * new window, as after any void of a running match. */
static void void_of_a_resume_leaves_the_match_running(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        const struct eng_output *o;
        uint64_t resume;

        (void) state;
        setup_match(&m, 3, 1000, &l);
        start(&m);
        m.now += 1000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        m.now += 1000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_ACCEPTED);
        resume = m.seq;
        assert_int_equal(void_input(&m, resume), ENG_ACCEPTED);
        assert_int_equal(m.out.v[0].voided.count, 1);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_RUNNING);
        /* nobody is told of a pause or a resume: there was none */
        assert_null(output(&m, &eng_ev_paused, 0));
        assert_null(output(&m, &eng_ev_resumed, 0));
        o = must_output(&m, &cp_ev_card_revealed);
        assert_card(&m, o->v[CP_REV_CARD], C(0, 1));
        assert_int_equal(o->v[CP_REV_SOURCE], CP_SOURCE_AGAIN);
        assert_int_equal(must_output(&m, &eng_req_window_open)->window.seats, 0x7);
        assert_int_equal(m.out.wake_us, m.now + TIMEOUT);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        /* the operator can still pause it, and nothing else lifts that */
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        assert_int_equal(void_input(&m, m.seq - 1), ENG_ACCEPTED);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_PAUSED);
}

/* What a void cannot undo: only an input in effect, and never another void
 * or a confirm; once the result is final, nothing.  Each refusal changes
 * nothing. */
static void void_is_refused_for_what_is_not_in_effect_or_once_the_result_is_final(void **state) {
        struct match m;
        struct layout l = { 0 };
        uint64_t refused, kept, undone, void_seq, h;
        /* target 0: the refused void's own seq, which is not in the log yet */
        uint64_t targets[5];
        size_t n = 0;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call(&m, 0, 0), ENG_REFUSED_INVALID);
        refused = m.seq;
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        kept = m.seq;
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        undone = m.seq;
        assert_int_equal(void_input(&m, undone), ENG_ACCEPTED);
        void_seq = m.seq;
        assert_int_equal(m.st.t.chips[1], 0);
        targets[n++] = refused;         /* refused: it never took effect */
        targets[n++] = undone;          /* voided already */
        targets[n++] = void_seq;        /* a void */
        targets[n++] = 0;               /* itself */
        targets[n++] = 999;             /* no such input */
        for (size_t i = 0; i < n; i++) {
                h = cp_game.hash(&m.st);
                assert_int_equal(void_input(&m, targets[i] ? targets[i] : m.seq + 1), ENG_REFUSED_INVALID);
                assert_int_equal(m.out.n, 0);
                assert_true(cp_game.hash(&m.st) == h);
                assert_int_equal(eng_log_mark_voided(m.log, m.n_log - 1), 0);
        }
        assert_int_equal(m.log[kept - 1].voided_by, 0);
        assert_int_equal(m.st.t.chips[0], 1);
        /* without a referee's confirmation a finished match is final */
        assert_int_equal(table_input(&m, ENG_IN_CONFIRM), ENG_REFUSED_STATE);   /* not finished */
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_FINISHED);
        assert_int_equal(eng_log_phase(&m.setup, &m.st, m.log, m.n_log), ENG_LOG_FINAL);
        h = cp_game.hash(&m.st);
        assert_int_equal(void_input(&m, m.seq), ENG_REFUSED_FINISHED);
        assert_int_equal(void_input(&m, kept), ENG_REFUSED_FINISHED);
        assert_int_equal(table_input(&m, ENG_IN_CONFIRM), ENG_REFUSED_STATE);
        assert_true(cp_game.hash(&m.st) == h);
}

/* With a referee's confirmation required, a finished match is provisional:
 * the input that ended it can still be voided (and the match goes on), a
 * confirm is refused until it has finished again, and the confirm makes
 * the result final. */
static void finished_match_waiting_for_confirmation_can_be_voided_until_confirmed(void **state) {
        struct match m;
        struct layout l = { 0 };
        uint64_t finishing;

        (void) state;
        setup_match_confirm(&m, 2, 0, &l, true);
        start(&m);
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        finishing = m.seq;
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_FINISHED);
        assert_int_equal(eng_log_phase(&m.setup, &m.st, m.log, m.n_log), ENG_LOG_PROVISIONAL);
        /* waiting for the referee: nothing but a void or a confirm */
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_REFUSED_FINISHED);

        assert_int_equal(void_input(&m, finishing), ENG_ACCEPTED);
        assert_int_equal(m.out.v[0].voided.count, 1);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_RUNNING);
        assert_int_equal(eng_log_phase(&m.setup, &m.st, m.log, m.n_log), ENG_LOG_OPEN);
        assert_int_equal(m.st.t.chips[1], 2);
        assert_int_equal(m.st.t.out_order[1], 0);
        assert_non_null(output(&m, &eng_req_window_open, 0));
        assert_int_equal(table_input(&m, ENG_IN_CONFIRM), ENG_REFUSED_STATE);

        /* seat 0 finishes it this time */
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(m.st.t.winner, 1);
        assert_int_equal(eng_log_phase(&m.setup, &m.st, m.log, m.n_log), ENG_LOG_PROVISIONAL);
        assert_int_equal(table_input(&m, ENG_IN_CONFIRM), ENG_ACCEPTED);
        assert_int_equal(m.out.n, 1);
        assert_ptr_equal(m.out.v[0].def, &eng_ev_result_confirmed);
        assert_int_equal(eng_log_phase(&m.setup, &m.st, m.log, m.n_log), ENG_LOG_FINAL);
        assert_int_equal(void_input(&m, m.seq - 1), ENG_REFUSED_FINISHED);
        assert_int_equal(table_input(&m, ENG_IN_CONFIRM), ENG_REFUSED_FINISHED);
        assert_int_equal(m.st.t.winner, 1);
}

/* ---- Results and refusals. */

/* Placements: winner; then seats still in by fewer cards, then fewer
 * chips; then seats out, last out first.  Equal seats share a place. */
static void placements_rank_cards_left_then_chips_then_elimination_order(void **state) {
        struct match m;
        struct layout l = { 0 };
        struct eng_result res;

        (void) state;
        setup_match(&m, 5, 0, &l);
        start(&m);
        /* seat 4 out first, seat 3 out second */
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 4, wrong_call(&m)), ENG_ACCEPTED);
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 3, wrong_call(&m)), ENG_ACCEPTED);
        /* seat 1: one card fewer than seat 2; seat 2: a chip more than seat 0 */
        assert_int_equal(call(&m, 1, correct_call(&m)), ENG_ACCEPTED);
        assert_int_equal(call(&m, 2, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(cp_game.result(&m.st, &res), 0);
        assert_false(res.finished);
        assert_int_equal(res.winner, ENG_SEAT_TABLE);
        assert_int_equal(res.n_seats, 5);
        assert_int_equal(res.place[1], 1);
        assert_int_equal(res.place[0], 2);
        assert_int_equal(res.place[2], 3);
        assert_int_equal(res.place[3], 4);
        assert_int_equal(res.place[4], 5);
        assert_int_equal(res.order[0], 1);
        assert_int_equal(res.order[4], 4);
        /* Crash Pilot has no score terms and no teams */
        assert_int_equal(res.n_stages, 0);
        for (int s = 0; s < 5; s++)
                assert_int_equal(res.score[s], 0);
        assert_int_equal(seat_stats(&m.st, 4).eliminated_order, 1);
        assert_true(seat_stats(&m.st, 3).eliminated);
        assert_int_equal(seat_stats(&m.st, 3).eliminated_order, 2);
        /* seat 0 takes a chip too: now equal with seat 2, 6 cards and 1 chip */
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        assert_int_equal(cp_game.result(&m.st, &res), 0);
        assert_int_equal(res.place[1], 1);
        assert_int_equal(res.place[0], 2);
        assert_int_equal(res.place[2], 2);
        assert_int_equal(res.place[3], 4);
        assert_int_equal(res.order[1], 0);
        assert_int_equal(res.order[2], 2);
}

/* A refused input leaves the state exactly as it was. */
static void refused_inputs_change_nothing(void **state) {
        struct match m;
        struct layout l = { 0 };
        struct eng_input in;
        uint64_t h;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        h = cp_game.hash(&m.st);
        in = (struct eng_input) { .kind = ENG_IN_PRESS, .seat = 0 };
        assert_int_equal(apply(&m, &in), ENG_REFUSED_UNSUPPORTED);
        in = (struct eng_input) { .kind = ENG_IN_ACTION, .action = 99 };
        assert_int_equal(apply(&m, &in), ENG_REFUSED_INVALID);
        in = (struct eng_input) { .kind = ENG_IN_PAUSE, .time_us = T0 - 1 };
        assert_int_equal(apply(&m, &in), ENG_REFUSED_TIME);
        in = (struct eng_input) { .kind = ENG_IN_PAUSE, .time_us = ENG_TIME_LIMIT_US + 1 };
        assert_int_equal(apply(&m, &in), ENG_REFUSED_INVALID);
        in = (struct eng_input) { .kind = ENG_IN_PAUSE, .seq = 1, .time_us = m.now };
        assert_int_equal(cp_game.apply(&m.st, &in, &m.out), 0);
        assert_int_equal(m.out.refusal, ENG_REFUSED_SEQ);
        in = (struct eng_input) { .kind = ENG_IN_CALL, .seat = 1,
                                  .call = { .window = m.st.windows, .call = 1,
                                            .press_us = m.now + 1 } };
        assert_int_equal(apply(&m, &in), ENG_REFUSED_INVALID);  /* pressed after it was applied */
        assert_int_equal(call_at(&m, 1, 1, -1), ENG_REFUSED_INVALID);  /* before the reveal */
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_REFUSED_STATE);
        assert_int_equal(void_last(&m), ENG_REFUSED_STATE);
        /* the engine never sees a confirm: it has no use for one */
        in = (struct eng_input) { .kind = ENG_IN_CONFIRM, .seq = m.seq + 1, .time_us = m.now };
        assert_int_equal(cp_game.apply(&m.st, &in, &m.out), 0);
        assert_int_equal(m.out.refusal, ENG_REFUSED_UNSUPPORTED);
        assert_true(cp_game.hash(&m.st) == h);
        assert_int_equal(cp_game.apply(NULL, &in, &m.out), -EINVAL);
        memset(&in, 0, sizeof in);
        assert_int_equal(cp_game.apply(&(struct cp_state) { 0 }, &in, &m.out), -EINVAL);
}

/* Pads: a correct call lights the button that made it; a wrong call
 * buzzes; a tie blinks the tied pads and locks the others; an elimination
 * sounds long and locks the pad; the winner's pad blinks. */
static void pads_show_each_verdict(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        const struct eng_output *o;

        (void) state;
        setup_match(&m, 3, 0, &l);
        start(&m);
        assert_int_equal(call(&m, 2, 5), ENG_ACCEPTED);
        o = must_output(&m, &eng_req_pad_light);
        assert_true(eng_output_is_request(o));
        assert_int_equal(o->seat, 2);
        assert_int_equal(o->light.button, 4);
        assert_int_equal(o->light.mode, ENG_LIGHT_ON);
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, &eng_req_pad_buzz);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->buzz.pattern, ENG_BUZZ_SHORT);
        assert_int_equal(tie(&m, SEAT(0) | SEAT(2)), ENG_ACCEPTED);
        assert_int_equal(output(&m, &eng_req_pad_light, 0)->seat, 0);
        assert_int_equal(output(&m, &eng_req_pad_light, 0)->light.mode, ENG_LIGHT_BLINK);
        assert_int_equal(output(&m, &eng_req_pad_light, 1)->seat, 2);
        o = must_output(&m, &eng_req_pad_lockout);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->lockout.buttons, ALL_BUTTONS);
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);     /* seat 0: 1 chip */
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);     /* seat 1: 2 chips */
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        must_output(&m, &cp_ev_player_eliminated);
        assert_int_equal(output(&m, &eng_req_pad_buzz, 1)->buzz.pattern, ENG_BUZZ_LONG_SHORT);
        o = output(&m, &eng_req_pad_lockout, 0);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->lockout.buttons, ALL_BUTTONS);
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        assert_null(output(&m, &eng_ev_match_finished, 0));
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        must_output(&m, &eng_ev_match_finished);
        o = output(&m, &eng_req_pad_light, 0);
        assert_int_equal(o->seat, 2);
        assert_int_equal(o->light.button, ENG_BUTTON_ALL);
        assert_int_equal(o->light.mode, ENG_LIGHT_BLINK);
}

/* The views as api/ will serve them: each audience's fields. */
static void views_show_each_audience_what_it_may_see(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        char want[512], h[9];
        struct tj j;

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        view_json(&j, &m.st, ENG_VIEW_PUBLIC, -1);
        snprintf(want, sizeof want,
                 "{\"game\":\"crash-pilot\",\"audience\":\"public\",\"status\":\"running\",\"phase\":\"showing\","
                 "\"seats\":2,\"deck\":{\"objects\":6,\"colours\":6,\"copies\":2},"
                 "\"rows\":[[{\"handle\":\"%s\",\"object\":0,\"colour\":0,\"name\":\"red circle\"}],",
                 handle_text(h, &m.st, C(0, 0)));
        assert_non_null(strstr(j.buf, want));
        snprintf(want, sizeof want,
                 "\"face_up\":{\"handle\":\"%s\",\"object\":0,\"colour\":1,\"name\":\"blue circle\",\"source\":\"neutral\","
                 "\"seat\":null}",
                 handle_text(h, &m.st, C(0, 1)));
        assert_non_null(strstr(j.buf, want));
        assert_non_null(strstr(j.buf, "\"window\":{\"id\":1,\"opened_us\":1000000000,"
                                      "\"seats\":[0,1],\"deadline_us\":1020000000}"));
        assert_non_null(strstr(j.buf, "\"players\":[{\"seat\":0,\"cards_left\":13,\"chips\":0,"
                                      "\"out\":false,\"out_order\":null,\"may_call\":true,"));
        assert_non_null(strstr(j.buf, "\"last_call\":null,\"winner\":null}"));
        assert_null(strstr(j.buf, "\"you\""));
        assert_null(strstr(j.buf, "can_void"));
        assert_null(strstr(j.buf, "\"id\":0"));         /* no card by its id */

        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        view_json(&j, &m.st, ENG_VIEW_SEAT, 1);
        assert_non_null(strstr(j.buf, "\"face_up\":null"));
        assert_non_null(strstr(j.buf, "\"next\":{\"source\":\"stack\",\"seat\":1,\"at_us\":"));
        snprintf(want, sizeof want,
                 "\"last_call\":{\"seat\":1,\"call\":3,\"call_name\":\"row 3\",\"verdict\":\"correct\","
                 "\"reaction_us\":250000,\"card\":{\"handle\":\"%s\",\"object\":0,\"colour\":1,\"name\":\"blue circle\"}}",
                 handle_text(h, &m.st, C(0, 1)));
        assert_non_null(strstr(j.buf, want));
        assert_non_null(strstr(j.buf, "\"you\":{\"seat\":1,\"cards_left\":13,"));
        view_json(&j, &m.st, ENG_VIEW_REFEREE, -1);
        assert_non_null(strstr(j.buf, "\"can_void\":true}"));
        assert_int_equal(cp_game.view_visit(&m.st, ENG_VIEW_SEAT, 2, &tj_visitor, &j), -EINVAL);
        assert_int_equal(cp_game.view_visit(&m.st, ENG_VIEW_RUNTIME, -1, &tj_visitor, &j), -EINVAL);
}

/* The hash covers what matters: two cards of the neutral deck swapped
 * change it, a copy of the state does not. */
static void state_hash_sees_every_card_and_only_live_data(void **state) {
        struct match m;
        struct layout l = { 0 };
        struct cp_state copy;
        uint8_t t;

        (void) state;
        setup_match(&m, 2, 0, &l);
        memcpy(&copy, &m.st, sizeof copy);
        assert_true(cp_game.hash(&copy) == cp_game.hash(&m.st));
        t = copy.t.neutral[copy.t.neutral_head + 3];
        copy.t.neutral[copy.t.neutral_head + 3] = copy.t.neutral[copy.t.neutral_head + 4];
        copy.t.neutral[copy.t.neutral_head + 4] = t;
        assert_true(cp_game.hash(&copy) != cp_game.hash(&m.st));
        /* every live field counts, even one that duplicates another */
        for (int field = 0; field < 12; field++) {
                memcpy(&copy, &m.st, sizeof copy);
                switch (field) {
                case 0: copy.t.chips[1]++; break;
                case 1: copy.t.stack[0][2] ^= 1; break;
                case 2: copy.t.rows[3][0] ^= 1; break;
                case 3: copy.t.out_order[1] = 1; break;
                case 4: copy.t.stats[0].reaction_sum_us++; break;
                case 5: copy.t.tiebreak = 3; break;
                case 6: copy.paused = true; break;
                case 7: copy.wake_us = 5; break;
                case 8: copy.last_seq = 9; break;
                case 9: copy.t.stats[1].ties_right++; break;
                case 10: copy.seen[7] ^= 0x10; break;
                default: copy.seed++; break;
                }
                if (cp_game.hash(&copy) == cp_game.hash(&m.st))
                        fail_msg("field %d is not hashed", field);
        }
        /* a dead slot beyond the neutral deck is not state */
        memcpy(&copy, &m.st, sizeof copy);
        copy.t.neutral[(copy.t.neutral_head + copy.t.neutral_len) % CP_MAX_CARDS] ^= 0x55;
        copy.t.rows[0][5] ^= 0x55;
        assert_true(cp_game.hash(&copy) == cp_game.hash(&m.st));
}

/* ---- Handles: a card outside the engine is its per-match handle. */

static bool seen(const struct cp_state *st, uint8_t card) {
        return st->seen[card / 8] & (1u << (card % 8));
}

/* Every "handle" in a view's JSON names a card of the deck that has been
 * seen; returns how many there were. */
static unsigned check_view_handles(const struct cp_state *st, const char *json) {
        static const char key[] = "\"handle\":\"";
        unsigned n = 0;

        for (const char *p = strstr(json, key); p; p = strstr(p + 1, key)) {
                char *end;
                unsigned long h = strtoul(p + sizeof key - 1, &end, 16);
                uint8_t card;

                if (end != p + sizeof key - 1 + 8 || *end != '"')
                        fail_msg("a handle is not 8 hex digits: %.30s", p);
                if (cp_card_of(st, (uint32_t) h, &card) < 0)
                        fail_msg("handle %08lx names no card", h);
                if (!seen(st, card))
                        fail_msg("handle %08lx names a hidden card", h);
                n++;
        }
        return n;
}

struct card_check {
        size_t cards;                   /* card fields seen in events */
        size_t absent;
        size_t view_handles;
};

/* Every card field of every event names a card of the deck that everybody
 * has seen (or, where the field allows it, none); a revealed card is the
 * one face up; and every view names cards by handle only. */
static int check_cards_step(void *ctx, const struct cp_state *st, const struct eng_input *in,
                            const struct eng_out *out) {
        struct card_check *cc = ctx;
        struct tj j;

        (void) in;
        for (size_t i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];
                size_t at = 0;

                for (size_t f = 0; f < o->def->n_fields; f++) {
                        const struct eng_field *fd = &o->def->fields[f];
                        int64_t v = o->v[at];
                        uint8_t card;

                        at += eng_field_slots(fd);
                        if (fd->type != ENG_T_CARD)
                                continue;
                        if (v == ENG_ABSENT && fd->optional) {
                                cc->absent++;
                                continue;
                        }
                        if (v < 0 || v > UINT32_MAX || cp_card_of(st, (uint32_t) v, &card) < 0)
                                fail_msg("%s.%s: %lld names no card", o->def->name, fd->name, (long long) v);
                        if (!seen(st, card))
                                fail_msg("%s.%s names a hidden card", o->def->name, fd->name);
                        if (o->def == &cp_ev_card_revealed)
                                assert_int_equal(card, st->t.face_up);
                        cc->cards++;
                }
        }
        for (int a = ENG_VIEW_PUBLIC; a <= ENG_VIEW_REFEREE; a++) {
                view_json(&j, st, (enum eng_audience) a, a == ENG_VIEW_SEAT ? 0 : -1);
                cc->view_handles += check_view_handles(st, j.buf);
        }
        return 0;
}

static void cards_are_named_by_their_handle_in_every_view_and_event(void **state) {
        struct eng_config cfg;
        struct cp_sim_params p;
        struct cp_state st;
        struct card_check cc = { 0 };

        (void) state;
        config(&cfg, 1000);
        cp_sim_params_default(&p);
        for (uint64_t seed = 1; seed <= 40; seed++)
                assert_int_equal(cp_sim_match(&st, &cfg, 2 + seed % 4, seed, seed * 7, &p, NULL, 0,
                                              check_cards_step, &cc, NULL), 0);
        /* the walk did look at cards, and at a too-late call's missing one */
        assert_true(cc.cards > 1000);
        assert_true(cc.absent > 0);
        assert_true(cc.view_handles > 1000);
}

/* Decision "Card names": every card of the largest deck has a name of
 * its own, "<colour> <object>", the same wherever it is shown. */
static void every_card_has_a_name_of_its_own(void **state) {
        char names[CP_MAX_KINDS * CP_MAX_KINDS][CP_CARD_NAME_MAX];
        size_t n = 0;

        (void) state;
        assert_string_equal(cp_card_name(CP_CARD(0, 3, 0), names[0]), "red star");
        assert_string_equal(cp_card_name(CP_CARD(3, 7, 7), names[0]), "grey hexagon");
        for (unsigned o = 0; o < CP_MAX_KINDS; o++)
                for (unsigned c = 0; c < CP_MAX_KINDS; c++, n++) {
                        cp_card_name(CP_CARD(0, o, c), names[n]);
                        assert_non_null(strchr(names[n], ' '));         /* a colour, then an object */
                        /* every copy has its card's name */
                        char copy[CP_CARD_NAME_MAX];
                        assert_string_equal(cp_card_name(CP_CARD(CP_MAX_COPIES - 1, o, c), copy), names[n]);
                        for (size_t k = 0; k < n; k++)
                                assert_string_not_equal(names[k], names[n]);
                }
}

/* A handle names one card of one match: cp_card_of inverts cp_handle on
 * the deck, names nothing for anything else, another seed gives every card
 * another handle, and card_face shows the face a handle stands for. */
static void handles_name_cards_of_this_match_only(void **state) {
        struct eng_config cfg;
        struct cp_state a, b;
        uint32_t handles[CP_MAX_CARDS];
        size_t n = 0;
        struct tj j;
        char want[96], name[CP_CARD_NAME_MAX];

        (void) state;
        config(&cfg, 0);
        assert_int_equal(cp_game.create(&a, &cfg, NULL, 3, 7), 0);
        assert_int_equal(cp_game.create(&b, &cfg, NULL, 3, 8), 0);
        for (unsigned id = 0; id < CP_MAX_CARDS; id++) {
                bool in_deck = CP_CARD_OBJECT(id) < 6 && CP_CARD_COLOUR(id) < 6 && CP_CARD_COPY(id) < 2;
                uint32_t h = cp_handle(&a, (uint8_t) id);
                uint8_t card = 0xff;

                assert_true(cp_handle(&b, (uint8_t) id) != h);
                tj_init(&j);
                if (!in_deck) {
                        assert_int_equal(cp_card_of(&a, h, &card), -ENOENT);
                        assert_int_equal(cp_game.card_face(&a, h, &tj_visitor, &j), -ENOENT);
                        continue;
                }
                assert_int_equal(cp_card_of(&a, h, &card), 0);
                assert_int_equal(card, id);
                assert_int_equal(cp_game.card_face(&a, h, &tj_visitor, &j), 0);
                snprintf(want, sizeof want, "{\"object\":%u,\"colour\":%u,\"name\":\"%s\"}", CP_CARD_OBJECT(id),
                         CP_CARD_COLOUR(id), cp_card_name(id, name));
                assert_string_equal(tj_finish(&j), want);
                /* another match's handle for it names nothing here, or
                 * another card: never this one */
                if (cp_card_of(&a, cp_handle(&b, (uint8_t) id), &card) == 0)
                        assert_int_not_equal(card, id);
                for (size_t k = 0; k < n; k++)
                        assert_true(handles[k] != h);
                handles[n++] = h;
        }
        assert_int_equal(n, 72);
        /* beyond the 8-bit ids */
        assert_int_equal(cp_card_of(&a, eng_handle(a.handle_key, 1000), &(uint8_t) { 0 }), -ENOENT);
        assert_int_equal(cp_card_of(&a, eng_handle(a.handle_key, UINT32_MAX), &(uint8_t) { 0 }), -ENOENT);
        /* the key comes from the seed alone */
        assert_true(a.handle_key == eng_handle_key(7));
}

/* ---- Non-interference: what is hidden can change without anyone seeing a
 * difference. */

/* Every card nobody has seen, in every live place of t, as 0xff. */
static void mask_hidden(const struct cp_state *st, struct cp_table *t) {
        for (unsigned i = 0; i < t->neutral_len; i++) {
                uint8_t *c = &t->neutral[(t->neutral_head + i) % CP_MAX_CARDS];

                if (!seen(st, *c))
                        *c = 0xff;
        }
        for (int s = 0; s < st->n_seats; s++)
                for (unsigned i = 0; i < t->stack_len[s]; i++)
                        if (!seen(st, t->stack[s][i]))
                                t->stack[s][i] = 0xff;
        for (unsigned r = 0; r < CP_ROWS; r++)
                for (unsigned i = 0; i < t->row_len[r]; i++)
                        assert_true(seen(st, t->rows[r][i]));
}

struct perturb_check {
        uint64_t salt;
        size_t perturbed, nothing_hidden;
};

static int perturb_step(void *ctx, const struct cp_state *st, const struct eng_input *in,
                        const struct eng_out *out) {
        struct perturb_check *pc = ctx;
        struct cp_state *copy = malloc(sizeof *copy), *orig = malloc(sizeof *orig);
        struct tj *before = malloc(sizeof *before), *after = malloc(sizeof *after);
        char why[200];
        int r;

        (void) in, (void) out;
        assert_non_null(copy && orig && before && after);
        memcpy(copy, st, sizeof *copy);
        memcpy(orig, st, sizeof *orig);
        r = cp_game.perturb_hidden(copy, ++pc->salt);
        if (r == -EAGAIN) {
                pc->nothing_hidden++;
                assert_memory_equal(copy, st, sizeof *copy);
                goto out;
        }
        assert_int_equal(r, 0);
        pc->perturbed++;
        if (cp_check(copy, why, sizeof why) < 0)
                fail_msg("perturbed state broken: %s", why);
        /* no audience sees a difference, byte for byte */
        for (int a = ENG_VIEW_PUBLIC; a <= ENG_VIEW_REFEREE; a++)
                for (int s = 0; s < (a == ENG_VIEW_SEAT ? st->n_seats : 1); s++) {
                        view_json(before, st, (enum eng_audience) a, a == ENG_VIEW_SEAT ? s : -1);
                        view_json(after, copy, (enum eng_audience) a, a == ENG_VIEW_SEAT ? s : -1);
                        assert_string_equal(after->buf, before->buf);
                }
        /* something hidden did move, and the hash sees it */
        assert_true(memcmp(copy, st, sizeof *copy) != 0);
        assert_true(cp_game.hash(copy) != cp_game.hash(st));
        /* and nothing else did: not a seen card, not a chip, not the table
         * a void_call would restore */
        mask_hidden(copy, &copy->t);
        mask_hidden(orig, &orig->t);
        if (copy->can_void) {
                mask_hidden(copy, &copy->before);
                mask_hidden(orig, &orig->before);
        }
        assert_memory_equal(copy, orig, sizeof *copy);
out:
        free(copy);
        free(orig);
        free(before);
        free(after);
        return 0;
}

static void perturbing_hidden_cards_changes_nothing_anyone_sees(void **state) {
        struct eng_config cfg;
        struct cp_sim_params p;
        struct cp_state st;
        struct perturb_check pc = { 0 };

        (void) state;
        config(&cfg, 1000);
        cp_sim_params_default(&p);
        p.void_pct = 20;                /* many states with a void_call snapshot */
        for (uint64_t seed = 1; seed <= 30; seed++)
                assert_int_equal(cp_sim_match(&st, &cfg, 2 + seed % 4, seed, ~seed, &p, NULL, 0, perturb_step,
                                              &pc, NULL), 0);
        assert_true(pc.perturbed > 500);
}

/* A void_call after the hidden cards were reshuffled still undoes the last
 * resolution: the snapshot it restores got the same reshuffle. */
static void void_call_after_perturbing_hidden_cards_still_restores_the_table(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 2, .neutral = { C(0, 1), C2(3, 3) } };
        struct cp_table before, perturbed;

        (void) state;
        setup_match(&m, 3, 1000, &l);
        start(&m);
        before = m.st.t;
        assert_int_equal(call(&m, 0, 1), ENG_ACCEPTED);         /* wrong: a chip */
        assert_int_equal(cp_game.perturb_hidden(&m.st, 99), 0);
        check(&m);
        perturbed = m.st.t;
        assert_int_equal(void_last(&m), ENG_ACCEPTED);
        assert_int_equal(m.st.t.chips[0], 0);
        assert_int_equal(m.st.t.stats[0].calls, 0);
        assert_int_equal(m.st.t.face_up, C(0, 1));
        assert_int_equal(m.st.t.neutral_len, before.neutral_len);
        assert_memory_equal(m.st.t.rows, before.rows, sizeof before.rows);
        /* and the restored table holds the reshuffled hidden cards, not
         * the old ones: the call touched no stack, so the stacks are the
         * perturbed state's */
        assert_memory_equal(m.st.t.stack_len, before.stack_len, sizeof before.stack_len);
        for (int s = 0; s < 3; s++)
                assert_memory_equal(m.st.t.stack[s], perturbed.stack[s], perturbed.stack_len[s]);
        assert_true(memcmp(m.st.t.stack, before.stack, sizeof before.stack) != 0);
}

/* ---- The event tables. */

/* The slot names crash_pilot.h gives are where the tables put the fields. */
static void event_slots_are_where_the_field_tables_put_them(void **state) {
        static const struct {
                const struct eng_event_def *ev;
                const char *field;
                int slot;
        } slots[] = {
                { &cp_ev_card_revealed, "card", CP_REV_CARD },
                { &cp_ev_card_revealed, "source", CP_REV_SOURCE },
                { &cp_ev_card_revealed, "source_seat", CP_REV_SOURCE_SEAT },
                { &cp_ev_card_revealed, "reveal", CP_REV_NUMBER },
                { &cp_ev_call_judged, "call", CP_JUD_CALL },
                { &cp_ev_call_judged, "verdict", CP_JUD_VERDICT },
                { &cp_ev_call_judged, "reaction_us", CP_JUD_REACTION },
                { &cp_ev_call_judged, "window", CP_JUD_WINDOW },
                { &cp_ev_call_judged, "card", CP_JUD_CARD },
                { &cp_ev_tiebreak_started, "seats", CP_TIE_SEATS },
                { &cp_ev_tiebreak_started, "calls", CP_TIE_N_CALLS },
                { &cp_ev_card_placed, "card", CP_PLACED_CARD },
                { &cp_ev_card_placed, "row", CP_PLACED_ROW },
                { &cp_ev_card_tucked, "card", CP_TUCKED_CARD },
                { &cp_ev_card_tucked, "cause", CP_TUCKED_CAUSE },
                { &cp_ev_chip_given, "chips", CP_CHIP_CHIPS },
                { &cp_ev_player_eliminated, "order", CP_ELIMINATED_ORDER },
                { &cp_ev_reveal_expired, "card", CP_EXPIRED_CARD },
                { &cp_ev_call_voided, "voided_seq", CP_VOIDED_SEQ },
        };
        const struct eng_field *calls;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(slots); i++) {
                const struct eng_event_def *ev = slots[i].ev;

                if (eng_fields_offset(ev->fields, ev->n_fields, slots[i].field) != slots[i].slot)
                        fail_msg("%s.%s is at slot %d, not %d", ev->name, slots[i].field,
                                 eng_fields_offset(ev->fields, ev->n_fields, slots[i].field), slots[i].slot);
        }
        /* every field of every event has its name above: a new field needs
         * one */
        for (size_t e = 0; e < cp_game.n_events; e++) {
                const struct eng_event_def *ev = cp_game.events[e];
                size_t named = 0;

                for (size_t i = 0; i < ELEMENTSOF(slots); i++)
                        named += slots[i].ev == ev;
                if (named != ev->n_fields)
                        fail_msg("%s has %zu fields, %zu slot names", ev->name, ev->n_fields, named);
                assert_true(eng_fields_slots(ev->fields, ev->n_fields) <= ENG_MAX_VALUES);
        }
        /* the tied calls: a count, then one slot per tied seat */
        calls = eng_fields_find(cp_ev_tiebreak_started.fields, cp_ev_tiebreak_started.n_fields, "calls");
        assert_non_null(calls);
        assert_int_equal(calls->max_count, ENG_TIE_CALLS);
        assert_int_equal(CP_TIE_CALLS, CP_TIE_N_CALLS + 1);
        assert_int_equal(eng_fields_slots(cp_ev_tiebreak_started.fields, cp_ev_tiebreak_started.n_fields),
                         CP_TIE_CALLS + ENG_TIE_CALLS);
}

/* The names of sources, verdicts and causes are what JSON, D-Bus and the
 * database say: stable, one per enum value. */
static void source_verdict_and_cause_names_are_stable(void **state) {
        static const struct {
                const struct eng_event_def *ev;
                int slot;
                int64_t value;
                const char *name;
        } names[] = {
                { &cp_ev_card_revealed, CP_REV_SOURCE, CP_SOURCE_NEUTRAL, "neutral" },
                { &cp_ev_card_revealed, CP_REV_SOURCE, CP_SOURCE_STACK, "stack" },
                { &cp_ev_card_revealed, CP_REV_SOURCE, CP_SOURCE_AGAIN, "again" },
                { &cp_ev_call_judged, CP_JUD_VERDICT, CP_VERDICT_CORRECT, "correct" },
                { &cp_ev_call_judged, CP_JUD_VERDICT, CP_VERDICT_WRONG, "wrong" },
                { &cp_ev_call_judged, CP_JUD_VERDICT, CP_VERDICT_TOO_LATE, "too_late" },
                { &cp_ev_call_judged, CP_JUD_VERDICT, CP_VERDICT_NOT_ALLOWED, "not_allowed" },
                { &cp_ev_card_tucked, CP_TUCKED_CAUSE, CP_CAUSE_WRONG_CALL, "wrong_call" },
                { &cp_ev_card_tucked, CP_TUCKED_CAUSE, CP_CAUSE_DOESNT_FIT, "doesnt_fit" },
                { &cp_ev_card_tucked, CP_TUCKED_CAUSE, CP_CAUSE_TIE, "tie" },
                { &cp_ev_card_tucked, CP_TUCKED_CAUSE, CP_CAUSE_EXPIRED, "expired" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                /* every field before these is one slot: the slot is the
                 * field's index */
                const struct eng_field *f = &names[i].ev->fields[names[i].slot];

                assert_int_equal(f->type, ENG_T_ENUM);
                assert_true(names[i].value >= f->min && names[i].value <= f->max);
                assert_string_equal(f->choices[names[i].value], names[i].name);
        }
        assert_int_equal(cp_ev_card_revealed.fields[CP_REV_SOURCE].max, CP_SOURCE_AGAIN);
        assert_int_equal(cp_ev_call_judged.fields[CP_JUD_VERDICT].max, CP_VERDICT_NOT_ALLOWED);
        assert_int_equal(cp_ev_card_tucked.fields[CP_TUCKED_CAUSE].max, CP_CAUSE_EXPIRED);
        assert_string_equal(cp_game.actions[CP_ACTION_VOID_CALL].name, "void_call");
}

/* Does text's "{name}" name a field of ev, or the seat? */
static void check_placeholders(const struct eng_event_def *ev) {
        for (const char *p = strchr(ev->text, '{'); p; p = strchr(p + 1, '{')) {
                const char *end = strchr(p, '}');
                char name[ENG_FIELD_MAX];

                if (!end || (size_t) (end - p - 1) >= sizeof name)
                        fail_msg("%s: text has an unclosed {", ev->name);
                memcpy(name, p + 1, (size_t) (end - p - 1));
                name[end - p - 1] = '\0';
                if (strcmp(name, "seat") != 0 && !eng_fields_find(ev->fields, ev->n_fields, name))
                        fail_msg("%s: text names {%s}, which is no field", ev->name, name);
        }
}

/* Every event is documented for the reference and explained to referees:
 * a name, a doc and a text (whose {placeholders} are its fields), and
 * every field a doc; a choice has a name for every value. */
static void every_event_and_field_is_documented(void **state) {
        (void) state;
        assert_true(cp_game.n_events > 0);
        for (size_t e = 0; e < cp_game.n_events; e++) {
                const struct eng_event_def *ev = cp_game.events[e];

                assert_non_null(ev);
                assert_non_null(ev->name);
                for (const char *c = ev->name; *c; c++)
                        if (!((*c >= 'a' && *c <= 'z') || *c == '_'))
                                fail_msg("event %s: not snake_case", ev->name);
                if (!ev->doc || !*ev->doc)
                        fail_msg("event %s has no doc", ev->name);
                if (!ev->text || !*ev->text)
                        fail_msg("event %s has no text", ev->name);
                assert_int_not_equal(ev->audience, ENG_VIEW_RUNTIME);
                check_placeholders(ev);
                for (size_t f = 0; f < ev->n_fields; f++) {
                        const struct eng_field *fd = &ev->fields[f];

                        assert_non_null(fd->name);
                        if (!fd->doc || !*fd->doc)
                                fail_msg("%s.%s has no doc", ev->name, fd->name);
                        if (fd->type == ENG_T_ENUM) {
                                assert_non_null(fd->choices);
                                for (int64_t c = fd->min; c <= fd->max; c++)
                                        assert_non_null(fd->choices[c]);
                        }
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(setup_deals_six_rows_of_one_card),
                cmocka_unit_test(setup_starting_cards_never_repeat_an_object_or_a_colour),
                cmocka_unit_test(setup_duplicate_goes_to_the_bottom_of_the_deck_and_is_replaced),
                cmocka_unit_test(setup_redeal_always_finds_a_replacement),
                cmocka_unit_test(setup_cards_per_player_by_player_count_and_the_rest_is_the_neutral_deck),
                cmocka_unit_test(setup_stacks_and_neutral_deck_stay_face_down_in_every_view),
                cmocka_unit_test(deck_is_objects_by_colours_by_copies),
                cmocka_unit_test(deck_validation_names_the_field),
                cmocka_unit_test(deck_validation_guarantees_a_legal_deal),
                cmocka_unit_test(deal_is_determined_by_the_seed),
                cmocka_unit_test(first_reveal_is_the_top_of_the_neutral_deck_for_every_seat),
                cmocka_unit_test(call_names_a_row_or_doesnt_fit),
                cmocka_unit_test(legal_row_call_places_the_card_and_the_caller_reveals_from_their_stack),
                cmocka_unit_test(card_fitting_several_rows_goes_to_the_row_called_first),
                cmocka_unit_test(only_the_first_call_counts),
                cmocka_unit_test(call_too_late_names_no_card),
                cmocka_unit_test(illegal_row_call_gives_a_chip_tucks_the_card_and_reveals_from_the_neutral_deck),
                cmocka_unit_test(three_chips_and_a_player_is_out),
                cmocka_unit_test(when_all_but_one_are_out_the_last_player_wins),
                cmocka_unit_test(doesnt_fit_when_true_tucks_the_card_and_the_caller_reveals_from_their_stack),
                cmocka_unit_test(row_call_for_a_card_that_fits_nowhere_is_a_wrong_call),
                cmocka_unit_test(doesnt_fit_when_a_row_fits_is_a_wrong_call),
                cmocka_unit_test(simultaneous_calls_start_a_tiebreaker_for_the_tied_players_only),
                cmocka_unit_test(tie_carries_the_tied_calls_into_the_tiebreak_and_the_statistics),
                cmocka_unit_test(tie_with_calls_not_one_per_tied_seat_is_refused),
                cmocka_unit_test(tiebreak_repeats_until_one_is_first_then_the_card_is_resolved_normally),
                cmocka_unit_test(tiebreak_card_called_wrong_gives_a_chip_and_ends_the_tiebreak),
                cmocka_unit_test(player_who_turns_over_their_last_card_wins_at_once_and_it_is_not_played),
                cmocka_unit_test(reveal_nobody_calls_is_tucked_and_the_next_neutral_card_revealed),
                cmocka_unit_test(reveal_nobody_calls_during_a_tiebreak_ends_the_tiebreak),
                cmocka_unit_test(neutral_deck_is_never_empty_when_a_card_is_drawn_from_it),
                cmocka_unit_test(next_card_comes_after_the_verdict_pause),
                cmocka_unit_test(reaction_time_is_press_time_minus_reveal_time),
                cmocka_unit_test(pause_hides_the_card_and_resume_shows_it_again),
                cmocka_unit_test(pause_between_cards_restarts_the_verdict_pause),
                cmocka_unit_test(referee_void_restores_the_table_and_shows_the_card_again),
                cmocka_unit_test(referee_void_can_undo_an_elimination),
                cmocka_unit_test(void_of_a_call_rewinds_the_table_and_shows_the_card_again),
                cmocka_unit_test(void_while_paused_leaves_the_match_paused),
                cmocka_unit_test(void_of_a_resume_leaves_the_match_running),
                cmocka_unit_test(void_is_refused_for_what_is_not_in_effect_or_once_the_result_is_final),
                cmocka_unit_test(finished_match_waiting_for_confirmation_can_be_voided_until_confirmed),
                cmocka_unit_test(placements_rank_cards_left_then_chips_then_elimination_order),
                cmocka_unit_test(refused_inputs_change_nothing),
                cmocka_unit_test(pads_show_each_verdict),
                cmocka_unit_test(views_show_each_audience_what_it_may_see),
                cmocka_unit_test(state_hash_sees_every_card_and_only_live_data),
                cmocka_unit_test(cards_are_named_by_their_handle_in_every_view_and_event),
                cmocka_unit_test(handles_name_cards_of_this_match_only),
                cmocka_unit_test(every_card_has_a_name_of_its_own),
                cmocka_unit_test(perturbing_hidden_cards_changes_nothing_anyone_sees),
                cmocka_unit_test(void_call_after_perturbing_hidden_cards_still_restores_the_table),
                cmocka_unit_test(event_slots_are_where_the_field_tables_put_them),
                cmocka_unit_test(source_verdict_and_cause_names_are_stable),
                cmocka_unit_test(every_event_and_field_is_documented),
        };

        return cmocka_run_group_tests_name("crash_pilot", tests, NULL, NULL);
}
