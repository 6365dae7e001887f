/* Crash Pilot, rule by rule (../shared/rules/000_1c9dac1fe6892792.txt) and
 * decision by decision (docs/games/crash-pilot.md).  Each test is named
 * after the sentence it checks.
 *
 * Most tests lay out the deck themselves (cp_create_with_deck), with the six
 * starting cards object r / colour r for row r + 1, so that a card with
 * object o and colour c fits every row except rows o + 1 and c + 1 until
 * more cards are placed.  Matches run with reveal.pause_ms 0 (the next card
 * comes at once) unless the test is about the pause.  Every step is checked
 * with cp_check(). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crash_pilot.h"
#include "engine/engine.h"
#include "engine/hash.h"
#include "test_engine_json.h"

#define T0              INT64_C(1000000000)     /* 1000 s of CLOCK_MONOTONIC */
#define MS              INT64_C(1000)
#define REACTION        (250 * MS)
#define SETTLE          2500
#define SEAT(s)         (UINT32_C(1) << (s))
#define C(o, c)         CP_CARD(0, (o), (c))
#define C2(o, c)        CP_CARD(1, (o), (c))

/* ---- A table under test. */

struct match {
        struct cp_state st;
        struct eng_out out;
        struct eng_config cfg;
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

static void setup_match(struct match *m, unsigned n, int64_t pause_ms, const struct layout *l) {
        uint8_t deck[CP_MAX_CARDS];
        size_t len;

        memset(m, 0, sizeof *m);
        config(&m->cfg, pause_ms);
        m->n = n;
        m->now = T0;
        len = build_deck(&m->cfg, n, l, deck);
        assert_int_equal(cp_create_with_deck(&m->st, &m->cfg, n, 42, deck, len), 0);
        check(m);
}

static enum eng_refusal apply(struct match *m, struct eng_input *in) {
        in->seq = ++m->seq;
        if (in->time_us == 0)
                in->time_us = m->now;
        assert_int_equal(cp_game.apply(&m->st, in, &m->out), 0);
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

/* A judged call on the open window, pressed REACTION after the reveal and
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

static enum eng_refusal tie(struct match *m, uint32_t seats) {
        int64_t press = m->st.t.shown_us + REACTION;
        struct eng_input in = {
                .kind = ENG_IN_TIE, .seat = ENG_SEAT_TABLE,
                .tie = { .window = m->st.windows, .seats = seats, .press_us = press },
        };

        if (m->now < press + SETTLE)
                m->now = press + SETTLE;
        return apply(m, &in);
}

static enum eng_refusal timer_at(struct match *m, int64_t t) {
        struct eng_input in = { .kind = ENG_IN_TIMER, .seat = ENG_SEAT_TABLE, .time_us = t };

        if (m->now < t)
                m->now = t;
        return apply(m, &in);
}

static enum eng_refusal void_last(struct match *m) {
        struct eng_input in = { .kind = ENG_IN_REFEREE, .seat = ENG_SEAT_TABLE,
                                .referee = { .op = CP_REFEREE_VOID } };

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

/* The nth output of kind from the last input, or NULL. */
static const struct eng_output *output(const struct match *m, enum eng_output_kind kind, int nth) {
        for (size_t i = 0; i < m->out.n; i++)
                if (m->out.v[i].kind == kind && nth-- == 0)
                        return &m->out.v[i];
        return NULL;
}

static const struct eng_output *must_output(const struct match *m, enum eng_output_kind kind) {
        const struct eng_output *o = output(m, kind, 0);

        if (!o)
                fail_msg("no %s among %zu outputs", eng_output_kind_name(kind), m->out.n);
        return o;
}

static uint8_t neutral_bottom(const struct cp_table *t) {
        return t->neutral[(t->neutral_head + t->neutral_len - 1) % CP_MAX_CARDS];
}

static uint8_t neutral_top(const struct cp_table *t) {
        return t->neutral[t->neutral_head];
}

static uint8_t stack_top(const struct cp_table *t, int s) {
        return t->stack[s][t->stack_len[s] - 1];
}

/* ---- Setup. */

/* "These cards form the beginnings of six rows." */
static void setup_deals_six_rows_of_one_card(void **state) {
        struct eng_config cfg;
        struct cp_state st;

        (void) state;
        config(&cfg, 0);
        for (uint64_t seed = 0; seed < 50; seed++) {
                assert_int_equal(cp_game.create(&st, &cfg, 2, seed), 0);
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

                assert_int_equal(cp_game.create(&st, &cfg, 2 + seed % 4, seed), 0);
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
                assert_int_equal(cp_game.create(&st, &cfg, n, n), 0);
                for (unsigned s = 0; s < n; s++)
                        assert_int_equal(st.t.stack_len[s], per[n]);
                assert_int_equal(st.t.neutral_len, 72 - CP_ROWS - n * per[n]);
        }
        assert_int_equal(cp_cards_per_player(1), 0);
        assert_int_equal(cp_cards_per_player(6), 0);
}

/* "Each player stacks his cards face-down ... without looking at them":
 * no view shows a stack's cards or the neutral deck's order. */
static void setup_stacks_and_neutral_deck_stay_face_down_in_every_view(void **state) {
        struct match m;
        struct layout l = { 0 };
        struct tj j;
        char needle[64];

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        for (int a = ENG_VIEW_PUBLIC; a <= ENG_VIEW_REFEREE; a++) {
                tj_init(&j);
                assert_int_equal(cp_game.view(&m.st, a, a == ENG_VIEW_SEAT ? 0 : -1, &tj_visitor, &j), 0);
                tj_finish(&j);
                /* the next neutral card and both stacks' tops appear nowhere */
                snprintf(needle, sizeof needle, "\"id\":%u,\"object\"", neutral_top(&m.st.t));
                assert_null(strstr(j.buf, needle));
                snprintf(needle, sizeof needle, "\"id\":%u,\"object\"", stack_top(&m.st.t, 0));
                assert_null(strstr(j.buf, needle));
                snprintf(needle, sizeof needle, "\"id\":%u,\"object\"", stack_top(&m.st.t, 1));
                assert_null(strstr(j.buf, needle));
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
        assert_int_equal(cp_game.create(&st, &cfg, 4, 9), 0);
        assert_int_equal(CP_ROWS + 4 * 7 + st.t.neutral_len, 8 * 7 * 3);
        assert_int_equal(cp_check(&st, NULL, 0), 0);
}

static void deck_validation_names_the_field(void **state) {
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        config(&cfg, 0);
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 2, &err), 0);
        cfg.v[CP_PARAM_COPIES] = 5;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 2, &err), -EINVAL);
        assert_string_equal(err.field, "deck.copies");
        assert_string_equal(err.message, "deck.copies: must be 1..4");
        config(&cfg, 0);
        cfg.v[CP_PARAM_OBJECTS] = 5;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 2, &err), -EINVAL);
        assert_string_equal(err.message, "deck.objects: must be 6..8");
        config(&cfg, 0);
        cfg.v[CP_PARAM_TIMEOUT_MS] = 10;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 2, &err), -EINVAL);
        assert_string_equal(err.message, "reveal.timeout_ms: must be 1000..600000 ms");
        config(&cfg, 0);
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 6, &err), -EINVAL);
        assert_string_equal(err.message, "seats: must be 2..5");
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 1, &err), -EINVAL);
        /* 6 x 6 x 1 = 36 cards: enough for 2-4 players, one short for 5 */
        cfg.v[CP_PARAM_COPIES] = 1;
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 4, &err), 0);
        assert_int_equal(eng_config_validate(&cp_game, &cfg, 5, &err), -EINVAL);
        assert_string_equal(err.field, "deck.copies");
        assert_non_null(strstr(err.message, "make 36 cards"));
        assert_non_null(strstr(err.message, "at least 37"));
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
                                        ok = eng_config_validate(&cp_game, &cfg, n, NULL) == 0;
                                        for (uint64_t seed = 0; seed < 20; seed++) {
                                                int r = cp_game.create(&st, &cfg, n, seed);

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
        assert_int_equal(cp_game.create(&a, &cfg, 3, 12345), 0);
        assert_int_equal(cp_game.create(&b, &cfg, 3, 12345), 0);
        assert_true(cp_game.hash(&a) == cp_game.hash(&b));
        assert_memory_equal(a.t.stack, b.t.stack, sizeof a.t.stack);
        assert_int_equal(cp_game.create(&b, &cfg, 3, 12346), 0);
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
        must_output(&m, ENG_EV_MATCH_STARTED);
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.card, C(0, 1));
        assert_int_equal(o->revealed.source, ENG_SOURCE_NEUTRAL);
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        o = must_output(&m, ENG_REQ_WINDOW_OPEN);
        assert_int_equal(o->window.window, 1);
        assert_int_equal(o->window.seats, SEAT(0) | SEAT(1) | SEAT(2));
        assert_int_equal(o->at_us, T0);
        assert_int_equal(m.out.wake_us, T0 + 20000 * MS);
        assert_int_equal(table_input(&m, ENG_IN_START), ENG_REFUSED_STATE);
}

/* "he calls the number of that row aloud" / "call out 'Doesn't fit'": a
 * call is a row 1-6 or "doesn't fit"; a pad's buttons 0-5 are rows 1-6 and
 * button 6 is "doesn't fit" (docs/protocol.md section 7). */
static void call_names_a_row_or_doesnt_fit(void **state) {
        struct match m;
        struct layout l = { 0 };
        int c;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call(&m, 0, 0), ENG_REFUSED_INVALID);
        assert_int_equal(call(&m, 0, CP_CALL_DOESNT_FIT + 1), ENG_REFUSED_INVALID);
        assert_int_equal(call(&m, 2, 1), ENG_REFUSED_INVALID);  /* no seat 2 */
        for (unsigned b = 0; b < 6; b++) {
                char name[16];

                assert_int_equal(cp_game.call_of_button(b, &c), 0);
                assert_int_equal(c, (int) b + 1);
                snprintf(name, sizeof name, "row %u", b + 1);
                assert_string_equal(cp_game.call_name(c), name);
        }
        assert_int_equal(cp_game.call_of_button(6, &c), 0);
        assert_int_equal(c, CP_CALL_DOESNT_FIT);
        assert_string_equal(cp_game.call_name(c), "doesn't fit");
        assert_int_equal(cp_game.call_of_button(7, &c), -EINVAL);
        assert_null(cp_game.call_name(0));
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
        o = must_output(&m, ENG_EV_CALL_JUDGED);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->judged.verdict, ENG_VERDICT_CORRECT);
        assert_int_equal(o->judged.call, 4);
        assert_int_equal(o->judged.card, C(0, 1));
        o = must_output(&m, ENG_EV_CARD_PLACED);
        assert_int_equal(o->placed.row, 4);
        assert_int_equal(m.st.t.row_len[3], 2);
        assert_int_equal(m.st.t.rows[3][1], C(0, 1));
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.source, 1);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->revealed.card, C2(2, 2));
        assert_int_equal(m.st.t.stack_len[1], 12);
        assert_int_equal(m.st.t.chips[1], 0);
        o = must_output(&m, ENG_REQ_WINDOW_OPEN);
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
        assert_int_equal(m.out.v[0].kind, ENG_EV_CALL_JUDGED);
        assert_int_equal(m.out.v[0].judged.verdict, ENG_VERDICT_TOO_LATE);
        assert_int_equal(m.out.v[0].seat, 2);
        assert_true(cp_game.hash(&m.st) == h);
        assert_int_equal(m.st.t.row_len[4], 1);
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
        o = must_output(&m, ENG_EV_CALL_JUDGED);
        assert_int_equal(o->judged.verdict, ENG_VERDICT_WRONG);
        o = must_output(&m, ENG_EV_CHIP_GIVEN);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->chip.chips, 1);
        assert_int_equal(m.st.t.chips[0], 1);
        o = must_output(&m, ENG_EV_CARD_TUCKED);
        assert_int_equal(o->tucked.card, C(0, 1));
        assert_int_equal(o->tucked.cause, ENG_CAUSE_WRONG_CALL);
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.source, ENG_SOURCE_NEUTRAL);
        assert_int_equal(o->revealed.card, C2(3, 3));
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
                assert_null(output(&m, ENG_EV_PLAYER_ELIMINATED, 0));
        }
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, ENG_EV_PLAYER_ELIMINATED);
        assert_int_equal(o->seat, 0);
        assert_int_equal(o->eliminated.order, 1);
        assert_int_equal(m.st.t.chips[0], CP_CHIPS_OUT);
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.source, ENG_SOURCE_NEUTRAL);
        o = must_output(&m, ENG_REQ_WINDOW_OPEN);
        assert_int_equal(o->window.seats, SEAT(1) | SEAT(2));
        assert_int_equal(m.st.t.stack_len[0], 9);
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(m.out.v[0].judged.verdict, ENG_VERDICT_NOT_ALLOWED);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_RUNNING);
}

/* Silent rule: when all but one player are out, the last one wins. */
static void when_all_but_one_are_out_the_last_player_wins(void **state) {
        struct match m;
        struct layout l = { 0 };
        const struct eng_output *o;
        struct eng_result res;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        for (int i = 0; i < 3; i++)
                assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, ENG_EV_MATCH_FINISHED);
        assert_int_equal(o->finished.winner, 0);
        assert_int_equal(o->finished.place[0], 1);
        assert_int_equal(o->finished.place[1], 2);
        assert_null(output(&m, ENG_EV_CARD_REVEALED, 0));
        assert_int_equal(m.out.wake_us, ENG_NEVER);
        assert_int_equal(cp_game.status(&m.st), ENG_STATUS_FINISHED);
        assert_int_equal(cp_game.result(&m.st, &res), 0);
        assert_true(res.finished);
        assert_int_equal(res.winner, 0);
        assert_int_equal(res.stats[0].cards_left, 13);
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
        o = must_output(&m, ENG_EV_CALL_JUDGED);
        assert_int_equal(o->judged.verdict, ENG_VERDICT_CORRECT);
        o = must_output(&m, ENG_EV_CARD_TUCKED);
        assert_int_equal(o->tucked.cause, ENG_CAUSE_DOESNT_FIT);
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.source, 1);
        assert_int_equal(o->revealed.card, top);
        assert_int_equal(m.st.t.chips[1], 0);
}

/* "If a player calls out a row number for a card that doesn't fit any row
 * ... follow the procedure outlined above for an incorrect call." */
static void row_call_for_a_card_that_fits_nowhere_is_a_wrong_call(void **state) {
        struct match m;

        (void) state;
        reveal_a_card_that_fits_nowhere(&m, 2);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, ENG_EV_CALL_JUDGED)->judged.verdict, ENG_VERDICT_WRONG);
        assert_int_equal(m.st.t.chips[1], 1);
        assert_int_equal(must_output(&m, ENG_EV_CARD_REVEALED)->revealed.source, ENG_SOURCE_NEUTRAL);
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
        o = must_output(&m, ENG_EV_CALL_JUDGED);
        assert_int_equal(o->judged.verdict, ENG_VERDICT_WRONG);
        assert_int_equal(m.st.t.chips[0], 1);
        assert_int_equal(must_output(&m, ENG_EV_CARD_TUCKED)->tucked.cause, ENG_CAUSE_WRONG_CALL);
        assert_int_equal(must_output(&m, ENG_EV_CARD_REVEALED)->revealed.source, ENG_SOURCE_NEUTRAL);
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
        o = must_output(&m, ENG_EV_TIEBREAK_STARTED);
        assert_int_equal(o->tiebreak.seats, SEAT(0) | SEAT(2));
        o = must_output(&m, ENG_EV_CARD_TUCKED);
        assert_int_equal(o->tucked.card, C(0, 1));
        assert_int_equal(o->tucked.cause, ENG_CAUSE_TIE);
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.card, C2(1, 2));
        assert_int_equal(o->revealed.source, ENG_SOURCE_NEUTRAL);
        o = must_output(&m, ENG_REQ_WINDOW_OPEN);
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
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, SEAT(1) | SEAT(3));
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_REFUSED_NOT_ALLOWED);
        card = m.st.t.face_up;
        assert_int_equal(call(&m, 3, correct_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, ENG_EV_CARD_PLACED);
        assert_int_equal(o->placed.card, card);
        assert_int_equal(must_output(&m, ENG_EV_CARD_REVEALED)->revealed.source, 3);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, 0x1f);
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
        assert_int_equal(must_output(&m, ENG_EV_CARD_REVEALED)->revealed.source, ENG_SOURCE_NEUTRAL);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, 0x7);
        /* seat 2 sat the tiebreak out; its pad is unlocked again */
        assert_int_equal(must_output(&m, ENG_REQ_PAD_LOCKOUT)->seat, 2);
        assert_int_equal(must_output(&m, ENG_REQ_PAD_LOCKOUT)->lockout.buttons, 0);
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
        o = must_output(&m, ENG_EV_MATCH_FINISHED);
        assert_int_equal(o->finished.winner, 0);
        assert_null(output(&m, ENG_EV_CARD_REVEALED, 0));
        assert_null(output(&m, ENG_REQ_WINDOW_OPEN, 0));
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
        assert_int_equal(timer_at(&m, T0 + 20000 * MS - 1), ENG_REFUSED_NOT_DUE);
        assert_true(cp_game.hash(&m.st) == h);
        assert_int_equal(timer_at(&m, T0 + 20000 * MS), ENG_ACCEPTED);
        o = must_output(&m, ENG_EV_REVEAL_EXPIRED);
        assert_int_equal(o->expired.card, C(0, 1));
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_CLOSE)->window.window, 1);
        assert_int_equal(must_output(&m, ENG_EV_CARD_TUCKED)->tucked.cause, ENG_CAUSE_EXPIRED);
        assert_int_equal(neutral_bottom(&m.st.t), C(0, 1));
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.card, C(4, 5));
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, 0x3);
        assert_int_equal(m.out.wake_us, T0 + 40000 * MS);
        assert_int_equal(m.st.t.chips[0] + m.st.t.chips[1], 0);
}

static void reveal_nobody_calls_during_a_tiebreak_keeps_the_tiebreak(void **state) {
        struct match m;
        struct layout l = { 0 };

        (void) state;
        setup_match(&m, 3, 0, &l);
        start(&m);
        assert_int_equal(tie(&m, SEAT(1) | SEAT(2)), ENG_ACCEPTED);
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, SEAT(1) | SEAT(2));
        assert_int_equal(m.st.t.tiebreak, SEAT(1) | SEAT(2));
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
        assert_null(output(&m, ENG_EV_CARD_REVEALED, 0));
        assert_int_equal(m.out.wake_us, decided + 1000 * MS);
        assert_int_equal(m.st.t.phase, CP_PHASE_BETWEEN);
        assert_int_equal(timer_at(&m, decided + 999 * MS), ENG_REFUSED_NOT_DUE);
        assert_int_equal(timer_at(&m, decided + 1003 * MS), ENG_ACCEPTED);
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.card, top);
        assert_int_equal(o->revealed.source, 1);
        assert_int_equal(o->at_us, decided + 1003 * MS);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->at_us, decided + 1003 * MS);
}

/* Reaction time is the press time minus the reveal (window open) time. */
static void reaction_time_is_press_time_minus_reveal_time(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct eng_result res;

        (void) state;
        setup_match(&m, 2, 0, &l);
        start(&m);
        assert_int_equal(call_at(&m, 0, 3, 431 * MS + 7), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, ENG_EV_CALL_JUDGED)->judged.reaction_us, 431 * MS + 7);
        assert_int_equal(call_at(&m, 0, wrong_call(&m), 600 * MS + 1), ENG_ACCEPTED);
        assert_int_equal(cp_game.result(&m.st, &res), 0);
        assert_int_equal(res.stats[0].calls, 2);
        assert_int_equal(res.stats[0].correct, 1);
        assert_int_equal(res.stats[0].wrong, 1);
        assert_int_equal(res.stats[0].reaction_sum_us, 1031 * MS + 8);
        assert_int_equal(res.stats[0].reaction_avg_us, (1031 * MS + 8) / 2);
        assert_int_equal(res.stats[0].chips, 1);
        assert_int_equal(res.stats[0].cards_left, 12);
        assert_int_equal(res.stats[1].calls, 0);
        assert_int_equal(res.stats[1].reaction_avg_us, 0);
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
        must_output(&m, ENG_EV_PAUSED);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_CLOSE)->window.window, old);
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
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.card, C(0, 1));
        assert_int_equal(o->revealed.source, ENG_SOURCE_AGAIN);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.window, old + 1);
        assert_int_equal(m.out.wake_us, T0 + 80000 * MS);
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

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        assert_int_equal(call(&m, 0, correct_call(&m)), ENG_ACCEPTED);
        assert_int_equal(table_input(&m, ENG_IN_PAUSE), ENG_ACCEPTED);
        assert_null(output(&m, ENG_REQ_WINDOW_CLOSE, 0));
        m.now += 7000 * MS;
        assert_int_equal(table_input(&m, ENG_IN_RESUME), ENG_ACCEPTED);
        assert_int_equal(m.out.wake_us, m.now + 1000 * MS);
        assert_null(output(&m, ENG_EV_CARD_REVEALED, 0));
        assert_int_equal(timer_at(&m, m.now + 1000 * MS), ENG_ACCEPTED);
        assert_int_equal(must_output(&m, ENG_EV_CARD_REVEALED)->revealed.source, 0);
}

/* A referee's void puts the table back as it was before the last
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
        o = must_output(&m, ENG_EV_CALL_VOIDED);
        assert_int_equal(o->voided.seq, seq);
        must_output(&m, ENG_REQ_WINDOW_CLOSE);
        assert_int_equal(m.st.t.chips[0], 0);
        assert_int_equal(m.st.t.stats[0].calls, 0);
        assert_int_equal(m.st.t.neutral_len, before.neutral_len);
        assert_memory_equal(m.st.t.rows, before.rows, sizeof before.rows);
        assert_int_equal(m.st.t.phase, CP_PHASE_BETWEEN);
        assert_int_equal(void_last(&m), ENG_REFUSED_STATE);     /* one level */
        assert_int_equal(timer_at(&m, m.st.wake_us), ENG_ACCEPTED);
        o = must_output(&m, ENG_EV_CARD_REVEALED);
        assert_int_equal(o->revealed.card, C(0, 1));
        assert_int_equal(o->revealed.source, ENG_SOURCE_AGAIN);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, 0x3);
        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        assert_int_equal(m.st.t.rows[2][1], C(0, 1));
}

/* A void can take back an elimination, and even a win by elimination is
 * final (the match is over). */
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
        assert_int_equal(output(&m, ENG_REQ_PAD_LOCKOUT, 2)->seat, 2);
        assert_int_equal(output(&m, ENG_REQ_PAD_LOCKOUT, 2)->lockout.buttons, 0);
        assert_int_equal(must_output(&m, ENG_REQ_WINDOW_OPEN)->window.seats, 0x7);
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
        assert_int_equal(res.place[1], 1);
        assert_int_equal(res.place[0], 2);
        assert_int_equal(res.place[2], 3);
        assert_int_equal(res.place[3], 4);
        assert_int_equal(res.place[4], 5);
        assert_int_equal(res.order[0], 1);
        assert_int_equal(res.order[4], 4);
        assert_int_equal(res.stats[4].eliminated_order, 1);
        assert_true(res.stats[3].eliminated);
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
        in = (struct eng_input) { .kind = ENG_IN_REFEREE, .referee = { .op = 99 } };
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
        o = must_output(&m, ENG_REQ_PAD_LIGHT);
        assert_int_equal(o->seat, 2);
        assert_int_equal(o->light.button, 4);
        assert_int_equal(o->light.mode, ENG_LIGHT_ON);
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        o = must_output(&m, ENG_REQ_PAD_BUZZ);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->buzz.pattern, ENG_BUZZ_SHORT);
        assert_int_equal(tie(&m, SEAT(0) | SEAT(2)), ENG_ACCEPTED);
        assert_int_equal(output(&m, ENG_REQ_PAD_LIGHT, 0)->seat, 0);
        assert_int_equal(output(&m, ENG_REQ_PAD_LIGHT, 0)->light.mode, ENG_LIGHT_BLINK);
        assert_int_equal(output(&m, ENG_REQ_PAD_LIGHT, 1)->seat, 2);
        o = must_output(&m, ENG_REQ_PAD_LOCKOUT);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->lockout.buttons, 0x7f);
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);     /* seat 0: 1 chip */
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);     /* seat 1: 2 chips */
        assert_int_equal(call(&m, 1, wrong_call(&m)), ENG_ACCEPTED);
        must_output(&m, ENG_EV_PLAYER_ELIMINATED);
        assert_int_equal(output(&m, ENG_REQ_PAD_BUZZ, 1)->buzz.pattern, ENG_BUZZ_LONG_SHORT);
        o = output(&m, ENG_REQ_PAD_LOCKOUT, 0);
        assert_int_equal(o->seat, 1);
        assert_int_equal(o->lockout.buttons, 0x7f);
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        assert_null(output(&m, ENG_EV_MATCH_FINISHED, 0));
        assert_int_equal(call(&m, 0, wrong_call(&m)), ENG_ACCEPTED);
        must_output(&m, ENG_EV_MATCH_FINISHED);
        o = output(&m, ENG_REQ_PAD_LIGHT, 0);
        assert_int_equal(o->seat, 2);
        assert_int_equal(o->light.button, ENG_BUTTON_ALL);
        assert_int_equal(o->light.mode, ENG_LIGHT_BLINK);
}

/* The views as api/ will serve them: each audience's fields. */
static void views_show_each_audience_what_it_may_see(void **state) {
        struct match m;
        struct layout l = { .n_neutral = 1, .neutral = { C(0, 1) } };
        struct tj j;

        (void) state;
        setup_match(&m, 2, 1000, &l);
        start(&m);
        tj_init(&j);
        assert_int_equal(cp_game.view(&m.st, ENG_VIEW_PUBLIC, -1, &tj_visitor, &j), 0);
        tj_finish(&j);
        assert_non_null(strstr(j.buf, "{\"game\":\"crash-pilot\",\"audience\":\"public\","
                                      "\"status\":\"running\",\"phase\":\"showing\",\"seats\":2,"
                                      "\"deck\":{\"objects\":6,\"colours\":6,\"copies\":2},"
                                      "\"rows\":[[{\"id\":0,\"object\":0,\"colour\":0}],"));
        assert_non_null(strstr(j.buf, "\"face_up\":{\"id\":1,\"object\":0,\"colour\":1,"
                                      "\"source\":\"neutral\",\"seat\":null}"));
        assert_non_null(strstr(j.buf, "\"window\":{\"id\":1,\"opened_us\":1000000000,"
                                      "\"seats\":[0,1],\"deadline_us\":1020000000}"));
        assert_non_null(strstr(j.buf, "\"players\":[{\"seat\":0,\"cards_left\":13,\"chips\":0,"
                                      "\"out\":false,\"out_order\":null,\"may_call\":true,"));
        assert_non_null(strstr(j.buf, "\"last_call\":null,\"winner\":null}"));
        assert_null(strstr(j.buf, "\"you\""));
        assert_null(strstr(j.buf, "can_void"));

        assert_int_equal(call(&m, 1, 3), ENG_ACCEPTED);
        tj_init(&j);
        assert_int_equal(cp_game.view(&m.st, ENG_VIEW_SEAT, 1, &tj_visitor, &j), 0);
        tj_finish(&j);
        assert_non_null(strstr(j.buf, "\"face_up\":null"));
        assert_non_null(strstr(j.buf, "\"next\":{\"source\":\"stack\",\"seat\":1,\"at_us\":"));
        assert_non_null(strstr(j.buf, "\"last_call\":{\"seat\":1,\"call\":3,\"call_name\":\"row 3\","
                                      "\"verdict\":\"correct\",\"reaction_us\":250000,"));
        assert_non_null(strstr(j.buf, "\"you\":{\"seat\":1,\"cards_left\":13,"));
        tj_init(&j);
        assert_int_equal(cp_game.view(&m.st, ENG_VIEW_REFEREE, -1, &tj_visitor, &j), 0);
        tj_finish(&j);
        assert_non_null(strstr(j.buf, "\"can_void\":true}"));
        assert_int_equal(cp_game.view(&m.st, ENG_VIEW_SEAT, 2, &tj_visitor, &j), -EINVAL);
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
        for (int field = 0; field < 10; field++) {
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
                cmocka_unit_test(illegal_row_call_gives_a_chip_tucks_the_card_and_reveals_from_the_neutral_deck),
                cmocka_unit_test(three_chips_and_a_player_is_out),
                cmocka_unit_test(when_all_but_one_are_out_the_last_player_wins),
                cmocka_unit_test(doesnt_fit_when_true_tucks_the_card_and_the_caller_reveals_from_their_stack),
                cmocka_unit_test(row_call_for_a_card_that_fits_nowhere_is_a_wrong_call),
                cmocka_unit_test(doesnt_fit_when_a_row_fits_is_a_wrong_call),
                cmocka_unit_test(simultaneous_calls_start_a_tiebreaker_for_the_tied_players_only),
                cmocka_unit_test(tiebreak_repeats_until_one_is_first_then_the_card_is_resolved_normally),
                cmocka_unit_test(tiebreak_card_called_wrong_gives_a_chip_and_ends_the_tiebreak),
                cmocka_unit_test(player_who_turns_over_their_last_card_wins_at_once_and_it_is_not_played),
                cmocka_unit_test(reveal_nobody_calls_is_tucked_and_the_next_neutral_card_revealed),
                cmocka_unit_test(reveal_nobody_calls_during_a_tiebreak_keeps_the_tiebreak),
                cmocka_unit_test(neutral_deck_is_never_empty_when_a_card_is_drawn_from_it),
                cmocka_unit_test(next_card_comes_after_the_verdict_pause),
                cmocka_unit_test(reaction_time_is_press_time_minus_reveal_time),
                cmocka_unit_test(pause_hides_the_card_and_resume_shows_it_again),
                cmocka_unit_test(pause_between_cards_restarts_the_verdict_pause),
                cmocka_unit_test(referee_void_restores_the_table_and_shows_the_card_again),
                cmocka_unit_test(referee_void_can_undo_an_elimination),
                cmocka_unit_test(placements_rank_cards_left_then_chips_then_elimination_order),
                cmocka_unit_test(refused_inputs_change_nothing),
                cmocka_unit_test(pads_show_each_verdict),
                cmocka_unit_test(views_show_each_audience_what_it_may_see),
                cmocka_unit_test(state_hash_sees_every_card_and_only_live_data),
        };

        return cmocka_run_group_tests_name("crash_pilot", tests, NULL, NULL);
}
