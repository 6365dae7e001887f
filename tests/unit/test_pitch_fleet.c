/* Pitch Fleet, clause by clause (F1..F60, the rulebook's order;
 * docs/games/pitch-fleet.md), power card by power card (B1..B10, A1..A5)
 * and decision by decision (that page's "Decisions"), then the framework's
 * properties: the slots agree with the schema, replay equals live, power
 * cards are conserved, VP never fall below zero, stages = planet cards − 1,
 * every game ends, refused inputs change nothing.
 *
 * Tests that need a given card face up, a given goal or a ship somewhere
 * rig the state before the input (rig_top(): a card of that kind is swapped
 * with the pile's top, wherever it was, so every card stays in one place as
 * pf_check requires; set_planets(); place()); they apply inputs straight to
 * the engine.  The property and replay tests play whole games with the
 * random legal referee (pf_sim_match) untouched. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "engine/log.h"
#include "engine/pitch_fleet.h"
#include "engine/pitch_fleet_data.h"
#include "test_engine_json.h"

#define T0              INT64_C(1000000000)
#define SEC             INT64_C(1000000)
#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))
#define NONE            ENG_ABSENT

/* ---- A table under test. */

struct match {
        struct pf_state st;
        struct eng_out out;
        struct eng_config cfg;
        uint64_t seq;
        int64_t now;
};

static struct match *M;

static int setup_m(void **state) {
        (void) state;
        M = calloc(1, sizeof *M);
        return M ? 0 : -1;
}

static int teardown_m(void **state) {
        (void) state;
        free(M);
        M = NULL;
        return 0;
}

static void check(const struct match *m) {
        char why[200] = "";

        if (pf_check(&m->st, why, sizeof why) < 0)
                fail_msg("invariant broken: %s", why);
}

static void create_cfg(struct match *m, unsigned n, uint64_t seed) {
        assert_int_equal(pf_game.create(&m->st, &m->cfg, NULL, n, seed), 0);
        m->seq = 0;
        m->now = T0;
        check(m);
}

static void create(struct match *m, unsigned n, uint64_t seed) {
        eng_config_defaults(&pf_game, &m->cfg);
        create_cfg(m, n, seed);
}

/* Applies in (seq and time filled in) and returns the refusal; a refused
 * input must leave the state and its hash as they were. */
static enum eng_refusal apply(struct match *m, struct eng_input *in) {
        static struct pf_state before;
        uint64_t h = pf_game.hash(&m->st);

        before = m->st;
        in->seq = ++m->seq;
        m->now += SEC;
        in->time_us = m->now;
        assert_int_equal(pf_game.apply(&m->st, in, &m->out), 0);
        if (m->out.refusal != ENG_ACCEPTED) {
                assert_memory_equal(&before, &m->st, sizeof before);
                assert_true(h == pf_game.hash(&m->st));
        }
        check(m);
        return m->out.refusal;
}

static enum eng_refusal start(struct match *m) {
        struct eng_input in = { .kind = ENG_IN_START, .seat = ENG_SEAT_TABLE };

        return apply(m, &in);
}

static enum eng_refusal act(struct match *m, enum pf_action a, int64_t arg0) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = a, .seat = ENG_SEAT_TABLE };

        in.arg[0] = arg0;
        return apply(m, &in);
}

static enum eng_refusal pick_full(struct match *m, unsigned card, int ship, int64_t start_at, int64_t relocate,
                                  int64_t beam_at) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = PF_ACTION_PICK, .seat = ENG_SEAT_TABLE };

        in.arg[PF_PICK_CARD] = pf_handle(&m->st, card);
        in.arg[PF_PICK_SHIP] = ship;
        in.arg[PF_PICK_START_AT] = start_at;
        in.arg[PF_PICK_RELOCATE_TO] = relocate;
        in.arg[PF_PICK_BEAM_AT] = beam_at;
        return apply(m, &in);
}

/* The current seat's pile top. */
static unsigned top_of(const struct match *m, int seat) {
        const struct pf_pile *p = &m->st.seats[seat].pile;

        assert_true(p->n > 0 && p->up);
        return p->cards[p->n - 1];
}

static int cur(const struct match *m) {
        return m->st.current_seat;
}

static int own(const struct match *m) {
        return m->st.seats[cur(m)].ship;
}

/* A ship dealt this stage: of the current seat's team (same true) other
 * than its own, or of the other team; -1 if none. */
static int other_ship(const struct match *m, bool same) {
        unsigned team = pf_ship_team((unsigned) own(m));

        for (int s = 0; s < PF_N_SHIPS; s++)
                if (m->st.owner[s] >= 0 && s != own(m) && (pf_ship_team((unsigned) s) == team) == same)
                        return s;
        return -1;
}

/* Swaps a card of kind with seat's pile top (from wherever it is). */
static unsigned rig_top(struct match *m, int seat, unsigned kind) {
        struct pf_state *st = &m->st;
        struct pf_pile *p = &st->seats[seat].pile;
        uint8_t *top = &p->cards[p->n - 1], *where = NULL;

        if (st->card_kind[*top] == kind)
                return *top;
        for (unsigned i = 0; i < st->deck_n && !where; i++)
                if (st->card_kind[st->deck[i]] == kind)
                        where = &st->deck[i];
        for (unsigned i = 0; i < st->discard_n && !where; i++)
                if (st->card_kind[st->discard[i]] == kind)
                        where = &st->discard[i];
        for (int s = 0; s < st->n_seats && !where; s++)
                for (unsigned i = 0; i + 1 < st->seats[s].pile.n && !where; i++)
                        if (st->card_kind[st->seats[s].pile.cards[i]] == kind)
                                where = &st->seats[s].pile.cards[i];
        assert_non_null(where);
        {
                uint8_t c = *where;

                *where = *top;
                *top = c;
        }
        check(m);
        return *top;
}

/* Starting and goal planets of the stage (rigged). */
static void set_planet(struct match *m, unsigned planet, unsigned at) {
        uint8_t *p = m->st.planets;

        for (unsigned j = 0; j < m->st.n_planets; j++)
                if (p[j] == planet) {
                        p[j] = p[at];
                        p[at] = (uint8_t) planet;
                        return;
                }
        p[at] = (uint8_t) planet;
}

static void set_planets(struct match *m, unsigned start, unsigned goal) {
        set_planet(m, start, m->st.planet_pos - 2u);
        set_planet(m, goal, m->st.planet_pos - 1u);
        m->st.start_planet = (uint8_t) start;
        m->st.goal_planet = (uint8_t) goal;
}

static void place(struct match *m, int ship, unsigned loc) {
        struct pf_pos *p = &m->st.ships[ship];

        memset(p, 0, sizeof *p);
        p->on_board = true;
        if (loc != PF_LOC_NONE) {
                p->n_at = 1;
                p->at[0] = (uint8_t) loc;
        }
}

/* A 4-player game started: Saturn is the goal, Mercury the start. */
static void race(struct match *m, unsigned n, uint64_t seed) {
        create(m, n, seed);
        set_planets(m, PF_MERCURY, PF_SATURN);
        assert_int_equal(start(m), ENG_ACCEPTED);
}

/* The current player picks a card of kind with its own ship. */
static unsigned pick_kind(struct match *m, unsigned kind) {
        unsigned c = rig_top(m, cur(m), kind);

        assert_int_equal(pick_full(m, c, own(m), NONE, NONE, NONE), ENG_ACCEPTED);
        return c;
}

struct report {
        int out[PF_N_SHIPS];
        unsigned n_out;
        bool stacked, collided, springboard_failed;
        unsigned at[PF_MAX_AT], n_at;
        int knocked[PF_MAX_KNOCKED];
        unsigned knocked_at[PF_MAX_KNOCKED], n_knocked;
        unsigned beams;
};

static enum eng_refusal shot(struct match *m, const struct report *r) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = PF_ACTION_SHOT, .seat = ENG_SEAT_TABLE };

        in.arg[PF_SHOT_OUTBOUND] = r->n_out;
        for (unsigned i = 0; i < r->n_out; i++)
                in.arg[PF_SHOT_OUTBOUND + 1 + i] = r->out[i];
        in.arg[PF_SHOT_STACKED] = r->stacked;
        in.arg[PF_SHOT_COLLIDED] = r->collided;
        in.arg[PF_SHOT_AT] = r->n_at;
        for (unsigned i = 0; i < r->n_at; i++)
                in.arg[PF_SHOT_AT + 1 + i] = r->at[i];
        in.arg[PF_SHOT_KNOCKED] = r->n_knocked;
        in.arg[PF_SHOT_KNOCKED_AT] = r->n_knocked;
        for (unsigned i = 0; i < r->n_knocked; i++) {
                in.arg[PF_SHOT_KNOCKED + 1 + i] = r->knocked[i];
                in.arg[PF_SHOT_KNOCKED_AT + 1 + i] = r->knocked_at[i];
        }
        in.arg[PF_SHOT_BEAMS_KNOCKED] = r->beams;
        in.arg[PF_SHOT_SPRINGBOARD_FAILED] = r->springboard_failed;
        return apply(m, &in);
}

static enum eng_refusal shot_at(struct match *m, unsigned loc) {
        struct report r = { .n_at = loc == PF_LOC_NONE ? 0 : 1, .at = { loc } };

        return shot(m, &r);
}

static enum eng_refusal end_turn(struct match *m) {
        return act(m, PF_ACTION_END_TURN, 0);
}

/* The pending change of rule for seat (its delta), or 0 (none). */
static int pending(const struct match *m, int seat, unsigned rule) {
        int sum = 0;

        for (unsigned i = 0; i < m->st.turn.n_pending; i++)
                if (m->st.turn.pending[i].seat == seat && m->st.turn.pending[i].rule == rule)
                        sum += m->st.turn.pending[i].delta;
        return sum;
}

static unsigned n_pending(const struct match *m) {
        return m->st.turn.n_pending;
}

static unsigned count_events(const struct match *m, const struct eng_event_def *def) {
        unsigned n = 0;

        for (size_t i = 0; i < m->out.n; i++)
                n += m->out.v[i].def == def;
        return n;
}

static const struct eng_output *event(const struct match *m, const struct eng_event_def *def) {
        for (size_t i = 0; i < m->out.n; i++)
                if (m->out.v[i].def == def)
                        return &m->out.v[i];
        return NULL;
}

static struct tj J;

static const char *view_json(const struct match *m, enum eng_audience a, int seat) {
        tj_init(&J);
        assert_int_equal(pf_game.view_visit(&m->st, a, seat, &tj_visitor, &J), 0);
        assert_true(tj_balanced(&J));
        return tj_finish(&J);
}

/* Plays the current turn out with a shot into open space and end_turn. */
static void quiet_turn(struct match *m) {
        unsigned c = m->st.turn.forced;

        for (int s = 0; s < m->st.n_seats && c == PF_NO_CARD; s++)
                if (m->st.seats[s].pile.n && m->st.seats[s].pile.up)
                        c = top_of(m, s);
        assert_int_equal(pick_full(m, c, own(m), NONE,
                                   m->st.card_kind[c] == PF_CARD_B6 ? (int64_t) pf_planet_location(m->st.start_planet)
                                                                    : NONE,
                                   NONE), ENG_ACCEPTED);
        assert_int_equal(shot_at(m, PF_LOC_NONE), ENG_ACCEPTED);
        assert_int_equal(end_turn(m), ENG_ACCEPTED);
}

static void quiet_round(struct match *m) {
        unsigned round = m->st.round, stage = m->st.stage;

        while (m->st.round == round && m->st.stage == stage && m->st.phase != PF_PHASE_FINISHED)
                quiet_turn(m);
}

/* ====================================================================
 * Set-up: F1..F11.
 * ==================================================================== */

static void f01_components_and_their_counts(void **state) {
        (void) state;
        create(M, 4, 1);
        assert_int_equal(M->st.n_cards, 50);            /* B: 50 basic power cards */
        for (unsigned k = 0; k < PF_BASIC_KINDS; k++) {
                unsigned n = 0;

                for (unsigned c = 0; c < M->st.n_cards; c++)
                        n += M->st.card_kind[c] == k;
                assert_int_equal(n, 5);
        }
        assert_int_equal(PF_BOARDS, 9);
        assert_int_equal(PF_N_SHIPS, 6);
        assert_int_equal(PF_BEAMS, 6);
        assert_int_equal(M->st.beams, 0);               /* L: the beams aside */
}

static void f02_boards_in_a_random_or_chosen_3x3(void **state) {
        static struct pf_state a;
        static const int64_t chosen[PF_BOARDS] = { 8, 7, 6, 5, 4, 3, 2, 1, 0 };

        (void) state;
        create(M, 3, 2);
        a = M->st;
        create(M, 3, 3);
        assert_memory_not_equal(a.layout, M->st.layout, PF_BOARDS);
        M->cfg.v[PF_SLOT_LAYOUT] = PF_BOARDS;
        memcpy(&M->cfg.v[PF_SLOT_LAYOUT + 1], chosen, sizeof chosen);
        create_cfg(M, 3, 2);
        for (unsigned b = 0; b < PF_BOARDS; b++)
                assert_int_equal(M->st.layout[b], chosen[b]);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1),
                               "\"layout\":[{\"board\":0,\"row\":0,\"col\":0,\"planet\":\"pluto\""));
}

static void f03_the_basic_power_deck_shuffled(void **state) {
        static struct pf_state a;

        (void) state;
        create(M, 2, 4);
        a = M->st;
        create(M, 2, 5);
        assert_memory_not_equal(a.deck, M->st.deck, a.deck_n);
        for (unsigned c = 0; c < M->st.n_cards; c++)
                assert_true(M->st.card_kind[c] < PF_BASIC_KINDS);
}

static void f04_a_pile_of_three_per_player_with_the_top_face_up(void **state) {
        (void) state;
        for (unsigned n = 2; n <= 6; n++) {
                create(M, n, 10 + n);
                for (unsigned s = 0; s < n; s++) {
                        assert_int_equal(M->st.seats[s].pile.n, 3);
                        assert_true(M->st.seats[s].pile.up);
                }
                assert_int_equal(M->st.deck_n, 50 - 3 * n);
        }
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"left\":3"));
}

static void f05_planet_cards_by_player_count(void **state) {
        static const unsigned want[] = { 0, 0, 8, 7, 6, 5, 4 };

        (void) state;
        for (unsigned n = 2; n <= 6; n++) {
                create(M, n, n);
                assert_int_equal(M->st.n_planets, want[n]);
                for (unsigned i = 0; i < M->st.n_planets; i++)
                        for (unsigned k = 0; k < i; k++)
                                assert_int_not_equal(M->st.planets[i], M->st.planets[k]);
        }
}

static void f06_starting_then_goal_planet(void **state) {
        (void) state;
        create(M, 4, 6);
        assert_int_equal(M->st.start_planet, M->st.planets[0]);
        assert_int_equal(M->st.goal_planet, M->st.planets[1]);
        assert_int_not_equal(M->st.start_planet, M->st.goal_planet);
        assert_int_equal(start(M), ENG_ACCEPTED);
        assert_non_null(event(M, &pf_ev_stage_started));
        assert_int_equal(event(M, &pf_ev_stage_started)->v[PF_STAGE_GOAL_PLANET], M->st.goal_planet);
}

static void f07_team_cards_by_player_count_same_colour_same_team(void **state) {
        static const unsigned red[] = { 0, 0, 1, 2, 2, 3, 3 }, blue[] = { 0, 0, 1, 1, 2, 2, 3 };

        (void) state;
        for (unsigned n = 2; n <= 6; n++) {
                unsigned r = 0, b = 0;

                create(M, n, 70 + n);
                for (unsigned s = 0; s < n; s++) {
                        int ship = M->st.seats[s].ship;

                        assert_int_equal(M->st.owner[ship], s);
                        assert_int_equal(M->st.teams[0][s], (int) pf_ship_team((unsigned) ship));
                        r += pf_ship_team((unsigned) ship) == PF_TEAM_RED;
                        b += pf_ship_team((unsigned) ship) == PF_TEAM_BLUE;
                }
                assert_int_equal(r, red[n]);
                assert_int_equal(b, blue[n]);
        }
}

static void f08_record_tokens_on_the_starting_planet(void **state) {
        (void) state;
        create(M, 4, 8);
        for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                assert_false(M->st.on_goal[s]);
                assert_false(M->st.ships[s].on_board);
        }
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"on_goal\":false"));
}

static void f09_the_starting_player_from_the_team_cards_icon(void **state) {
        (void) state;
        for (uint64_t seed = 1; seed < 20; seed++) {
                create(M, 5, seed);
                assert_int_equal(M->st.seats[M->st.starting_seat].ship, PF_SHIP_RED_1);
                assert_int_equal(start(M), ENG_ACCEPTED);
                assert_int_equal(cur(M), M->st.starting_seat);
        }
}

static void f10_a_restart_card_and_a_3_vp_token_each(void **state) {
        (void) state;
        create(M, 6, 10);
        for (unsigned s = 0; s < 6; s++) {
                assert_true(M->st.seats[s].restart_card);
                assert_int_equal(M->st.seats[s].score, 3);
                assert_int_equal(M->st.seats[s].terms[PF_TERM_START_TOKEN], 3);
        }
        assert_int_equal(start(M), ENG_ACCEPTED);
        assert_int_equal(count_events(M, &pf_ev_score_changed), 6);
}

static void f11_one_3_vp_token_on_the_goal(void **state) {
        (void) state;
        create(M, 3, 11);
        assert_true(M->st.bonus_token);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"bonus_token\":true"));
}

/* ====================================================================
 * The sequence: F12..F14.
 * ==================================================================== */

static void f12_stages_of_three_rounds(void **state) {
        (void) state;
        race(M, 3, 12);
        quiet_round(M);
        assert_int_equal(M->st.round, 2);
        quiet_round(M);
        assert_int_equal(M->st.round, 3);
        quiet_round(M);
        assert_int_equal(M->st.stage, 2);
        assert_int_equal(M->st.round, 1);
}

static void f13_clockwise_from_the_starting_player(void **state) {
        int first;

        (void) state;
        race(M, 4, 13);
        first = cur(M);
        for (int k = 1; k < 4; k++) {
                quiet_turn(M);
                assert_int_equal(cur(M), (first + k) % 4);
        }
}

static void f14_the_token_passes_left_each_round(void **state) {
        int first;

        (void) state;
        race(M, 4, 14);
        first = M->st.starting_seat;
        quiet_round(M);
        assert_int_equal(M->st.starting_seat, (first + 1) % 4);
        assert_int_equal(cur(M), (first + 1) % 4);
        quiet_round(M);
        assert_int_equal(M->st.starting_seat, (first + 2) % 4);
}

/* ====================================================================
 * A turn: F15..F20.
 * ==================================================================== */

static void f15_your_own_or_a_teammates_ship_even_in_the_first_round(void **state) {
        unsigned c;

        (void) state;
        race(M, 4, 15);
        c = top_of(M, cur(M));
        assert_int_equal(pick_full(M, c, other_ship(M, false), NONE, NONE, NONE), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(pick_full(M, c, other_ship(M, true), NONE, NONE, NONE), ENG_ACCEPTED);
        assert_int_equal(M->st.turn.ship, other_ship(M, true));
}

static void f16_a_ship_off_the_board_starts_on_the_starting_planet(void **state) {
        (void) state;
        race(M, 2, 16);
        pick_kind(M, PF_CARD_B8);
        assert_true(M->st.ships[own(M)].on_board);
        assert_int_equal(M->st.ships[own(M)].at[0], PF_LOC_MERCURY);
        assert_int_equal(M->st.turn.began.at[0], PF_LOC_MERCURY);
}

static void f17_anywhere_on_the_starting_planets_board_when_crowded(void **state) {
        unsigned c;

        (void) state;
        race(M, 2, 17);
        c = rig_top(M, cur(M), PF_CARD_B8);
        assert_int_equal(pick_full(M, c, own(M), PF_LOC_SATURN_VP_1, NONE, NONE), ENG_REFUSED_INVALID);
        assert_int_equal(pick_full(M, c, own(M), PF_LOC_MERCURY_VP_2, NONE, NONE), ENG_ACCEPTED);
        assert_int_equal(M->st.ships[own(M)].at[0], PF_LOC_MERCURY_VP_2);
}

static void f18_take_any_face_up_power_card(void **state) {
        unsigned c;
        int other;

        (void) state;
        race(M, 3, 18);
        other = (cur(M) + 1) % 3;
        c = top_of(M, other);
        assert_int_equal(pick_full(M, c, own(M), NONE, NONE, NONE), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[other].pile.n, 2);
        assert_false(M->st.seats[other].pile.up);
        /* A face-down card, or one in the deck, cannot be taken. */
        race(M, 3, 18);
        assert_int_equal(pick_full(M, M->st.deck[0], own(M), NONE, NONE, NONE), ENG_REFUSED_INVALID);
        assert_int_equal(pick_full(M, M->st.seats[0].pile.cards[0], own(M), NONE, NONE, NONE), ENG_REFUSED_INVALID);
}

static void f19_one_attempt_and_the_card_is_discarded(void **state) {
        unsigned c;

        (void) state;
        race(M, 2, 19);
        c = pick_kind(M, PF_CARD_B8);
        assert_int_equal(M->st.turn.card, c);
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_ACCEPTED);
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_REFUSED_STATE);     /* one attempt */
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.discard_n, 1);
        assert_int_equal(M->st.discard[0], c);
}

static void f20_the_cards_special_movement_is_executed(void **state) {
        unsigned c;

        (void) state;
        race(M, 2, 20);
        c = rig_top(M, cur(M), PF_CARD_B6);
        /* B6 must relocate (and not to the goal). */
        assert_int_equal(pick_full(M, c, own(M), NONE, NONE, NONE), ENG_REFUSED_INVALID);
        assert_int_equal(pick_full(M, c, own(M), NONE, PF_LOC_SATURN, NONE), ENG_REFUSED_INVALID);
        assert_int_equal(pick_full(M, c, own(M), NONE, PF_LOC_EARTH, NONE), ENG_ACCEPTED);
        assert_int_equal(M->st.ships[own(M)].at[0], PF_LOC_EARTH);
}

/* ====================================================================
 * Outbound: F21..F25.
 * ==================================================================== */

static void f21_your_teams_ship_out_costs_one_and_gains_nothing(void **state) {
        struct report r = { .n_out = 1, .n_at = 0 };
        int opp;

        (void) state;
        race(M, 4, 21);
        opp = other_ship(M, false);
        place(M, opp, PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        r.out[0] = own(M);
        r.out[r.n_out++] = opp;
        r.collided = true;
        r.n_knocked = 1;
        r.knocked[0] = opp;
        r.knocked_at[0] = PF_LOC_NONE;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_OWN_OUTBOUND), -1);
        assert_int_equal(pending(M, cur(M), PF_RULE_KNOCKED_OUT), 0);
        assert_int_equal(n_pending(M), 1);
        assert_int_equal(M->st.phase, PF_PHASE_DECIDE);
}

static void f22_opponents_ships_out_cost_their_controllers_and_pay_you(void **state) {
        struct report r = { .n_out = 1, .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };
        int opp, me;

        (void) state;
        race(M, 2, 22);
        me = cur(M);
        opp = other_ship(M, false);
        place(M, opp, PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        r.out[0] = r.knocked[0] = opp;
        r.n_at = 1;
        r.at[0] = PF_LOC_SATURN;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, M->st.owner[opp], PF_RULE_OPPONENT_OUTBOUND), -1);
        assert_int_equal(pending(M, me, PF_RULE_KNOCKED_OUT), 1);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 4);
        assert_int_equal(M->st.seats[M->st.owner[opp]].score, 2);
}

static void f23_both_cases_only_the_first(void **state) {
        struct report r = { .n_out = 2, .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };
        int opp;

        (void) state;
        race(M, 2, 23);
        opp = other_ship(M, false);
        place(M, opp, PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        r.out[0] = own(M);
        r.out[1] = r.knocked[0] = opp;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_OWN_OUTBOUND), -1);
        assert_int_equal(pending(M, M->st.owner[opp], PF_RULE_OPPONENT_OUTBOUND), 0);
        assert_int_equal(pending(M, cur(M), PF_RULE_KNOCKED_OUT), 0);
}

static void f24_outbound_ships_are_set_aside(void **state) {
        struct report r = { .n_out = 1, .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };
        int opp;

        (void) state;
        race(M, 2, 24);
        opp = other_ship(M, false);
        place(M, opp, PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        r.out[0] = r.knocked[0] = opp;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_true(M->st.ships[opp].on_board);         /* pending */
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_false(M->st.ships[opp].on_board);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"on_board\":false,\"at\":[]"));
}

static void f25_a_ship_stacked_on_another_object_is_outbound(void **state) {
        struct report r = { .stacked = true, .collided = true };

        (void) state;
        race(M, 2, 25);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_OWN_OUTBOUND), -1);
        assert_true(M->st.turn.rep.outbound & (1u << own(M)));
}

/* ====================================================================
 * Arrival: F26..F37.
 * ==================================================================== */

static void f26_arrival_only_if_no_ship_of_your_team_went_out(void **state) {
        struct report r = { .n_out = 1, .n_at = 1, .at = { PF_LOC_SATURN_VP_2 }, .collided = true,
                            .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };
        int mate;

        (void) state;
        race(M, 4, 26);
        mate = other_ship(M, true);
        place(M, mate, PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        r.out[0] = r.knocked[0] = mate;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), 0);
        assert_int_equal(pending(M, cur(M), PF_RULE_OWN_OUTBOUND), -1);
}

static void f27_only_locations_on_the_goal_planets_board_count(void **state) {
        struct report r = { .n_at = 2, .at = { PF_LOC_MERCURY_VP_1, PF_LOC_MERCURY_BELT } };

        (void) state;
        race(M, 2, 27);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(n_pending(M), 0);
}

static void f28_a_card_naming_a_location_counts_it_on_every_board(void **state) {
        (void) state;
        race(M, 2, 28);
        pick_kind(M, PF_CARD_B1);
        assert_int_equal(shot_at(M, PF_LOC_MERCURY_BELT), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_B1), 1);
}

static void f29_every_location_arrived_at_counts(void **state) {
        struct report r = { .n_at = 3, .at = { PF_LOC_SATURN_VP_1, PF_LOC_SATURN_VP_2, PF_LOC_SATURN_BELT } };
        int me;

        (void) state;
        race(M, 2, 29);
        me = cur(M);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, me, PF_RULE_VP_SATELLITE), 3);
        assert_int_equal(pending(M, me, PF_RULE_ASTEROID_BELT), -1);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 5);
}

static void f30_staying_where_it_started_activates_nothing(void **state) {
        struct report r = { .n_at = 2, .at = { PF_LOC_SATURN_BELT, PF_LOC_SATURN_VP_2 } };

        (void) state;
        race(M, 2, 30);
        place(M, own(M), PF_LOC_SATURN_BELT);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_ASTEROID_BELT), 0);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), 2);
}

static void f31_knocked_ships_activate_nothing(void **state) {
        struct report r = { .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_SATURN_VP_2 } };
        int opp;

        (void) state;
        race(M, 2, 31);
        opp = other_ship(M, false);
        place(M, opp, PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        r.knocked[0] = opp;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(n_pending(M), 0);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.ships[opp].at[0], PF_LOC_SATURN_VP_2);
        assert_false(M->st.on_goal[opp]);
}

static void f32_effects_go_to_the_current_player(void **state) {
        int me, mate;
        unsigned c;

        (void) state;
        race(M, 4, 32);
        me = cur(M);
        mate = other_ship(M, true);
        c = rig_top(M, me, PF_CARD_B8);
        assert_int_equal(pick_full(M, c, mate, NONE, NONE, NONE), ENG_ACCEPTED);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_2), ENG_ACCEPTED);
        assert_int_equal(pending(M, me, PF_RULE_VP_SATELLITE), 2);
        assert_int_equal(pending(M, M->st.owner[mate], PF_RULE_VP_SATELLITE), 0);
}

static void f33_gains_before_losses_never_below_zero(void **state) {
        struct report r = { .n_at = 2, .at = { PF_LOC_SATURN_BELT, PF_LOC_SATURN_VP_1 } };
        int me;

        (void) state;
        race(M, 2, 33);
        me = cur(M);
        /* Rig: the player has 0 VP (the start token moved to the floor's
         * count is not what we test; keep terms summing to the score). */
        M->st.seats[me].terms[PF_TERM_START_TOKEN] = 0;
        M->st.seats[me].score = 0;
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        /* +1 first, then −1: 0, no floor. */
        assert_int_equal(pending(M, me, PF_RULE_FLOOR), 0);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 0);
        /* A loss alone at 0 is cut short: the floor's term keeps the sum. */
        quiet_turn(M);
        me = cur(M);
        M->st.seats[me].terms[PF_TERM_START_TOKEN] = 0;
        M->st.seats[me].score = 0;
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_BELT), ENG_ACCEPTED);
        assert_int_equal(pending(M, me, PF_RULE_FLOOR), 1);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 0);
        assert_int_equal(M->st.seats[me].terms[PF_TERM_FLOOR], 1);
        assert_int_equal(M->st.seats[me].terms[PF_TERM_LOCATIONS], -1);
}

static void f34_a_vp_satellite_gains_its_stars(void **state) {
        (void) state;
        race(M, 2, 34);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_2), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), (int) pf_location_stars(PF_LOC_SATURN_VP_2));
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"rule\":\"vp_satellite\""));
}

static void f35_a_charging_satellite_draws_use_or_keep_two_kept_are_one_vp(void **state) {
        int me;
        unsigned drawn;

        (void) state;
        race(M, 2, 35);
        me = cur(M);
        pick_kind(M, PF_CARD_B8);
        drawn = M->st.deck[M->st.deck_n - 1];
        assert_int_equal(shot_at(M, PF_LOC_SATURN_CHARGE_1), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, PF_PHASE_CHARGE);
        assert_int_equal(M->st.turn.drawn, drawn);
        assert_non_null(event(M, &pf_ev_charging_drawn));
        assert_int_equal(end_turn(M), ENG_REFUSED_STATE);
        assert_int_equal(act(M, PF_ACTION_CHARGE, PF_CHARGE_KEEP), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].n_kept, 1);
        assert_int_equal(pending(M, me, PF_RULE_CHARGING_KEPT), 0);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        while (cur(M) != me)
                quiet_turn(M);
        /* A second kept card: 1 VP. */
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_CHARGE_2), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_CHARGE, PF_CHARGE_KEEP), ENG_ACCEPTED);
        assert_int_equal(pending(M, me, PF_RULE_CHARGING_KEPT), 1);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].terms[PF_TERM_CHARGING_KEPT], 1);
}

static void f36_the_goal_planet_moves_that_ships_record_token(void **state) {
        int me;

        (void) state;
        race(M, 2, 36);
        me = own(M);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN), ENG_ACCEPTED);
        assert_true(M->st.turn.record_due);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_true(M->st.on_goal[me]);
        assert_non_null(event(M, &pf_ev_record_moved));
}

static void f37_an_asteroid_belt_costs_one(void **state) {
        (void) state;
        race(M, 2, 37);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_BELT), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_ASTEROID_BELT), -1);
}

/* ====================================================================
 * Restart: F38..F40.
 * ==================================================================== */

static void f38_restart_only_when_no_collision(void **state) {
        struct report r = { .collided = true };

        (void) state;
        race(M, 2, 38);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_REFUSED_STATE);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"may_restart\":false"));
}

static void f39_restart_moves_the_ship_back_with_the_same_card(void **state) {
        unsigned c;
        int me;

        (void) state;
        race(M, 2, 39);
        me = cur(M);
        c = pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_BELT), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, PF_PHASE_SHOT);
        assert_int_equal(M->st.turn.card, c);
        assert_false(M->st.seats[me].restart_card);
        assert_int_equal(M->st.ships[own(M)].at[0], PF_LOC_MERCURY);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_1), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_REFUSED_STATE);     /* no card left */
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 4);
}

static void f40_restart_after_an_outbound_loses_nothing(void **state) {
        struct report r = { .n_out = 1 };
        int me;

        (void) state;
        race(M, 2, 40);
        me = cur(M);
        pick_kind(M, PF_CARD_B8);
        r.out[0] = own(M);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_ACCEPTED);
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_ACCEPTED);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 3);
}

/* ====================================================================
 * Round end: F41..F44.
 * ==================================================================== */

static void f41_round_end_flips_the_tops(void **state) {
        (void) state;
        race(M, 3, 41);
        quiet_turn(M);
        quiet_turn(M);
        for (int s = 0; s < 3; s++)
                assert_true(!M->st.seats[s].pile.up || M->st.seats[s].pile.n == 3);
        quiet_turn(M);
        assert_non_null(event(M, &pf_ev_round_ended));
        for (int s = 0; s < 3; s++)
                assert_true(M->st.seats[s].pile.up && M->st.seats[s].pile.n == 2);
}

/* Every ship of team on the goal (rigged) before the round's last turn. */
static void all_home(struct match *m, unsigned team) {
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if (m->st.owner[s] >= 0 && pf_ship_team(s) == team)
                        m->st.on_goal[s] = true;
}

static void f42_a_team_with_every_record_token_on_the_goal_gains_3_each(void **state) {
        int32_t before[4];

        (void) state;
        race(M, 4, 42);
        quiet_turn(M);
        quiet_turn(M);
        quiet_turn(M);
        all_home(M, PF_TEAM_BLUE);
        for (int s = 0; s < 4; s++)
                before[s] = M->st.seats[s].score;
        quiet_turn(M);
        assert_false(M->st.bonus_token);
        assert_int_equal(event(M, &pf_ev_team_bonus)->v[PF_BONUS_TEAM], PF_TEAM_BLUE);
        for (int s = 0; s < 4; s++)
                assert_int_equal(M->st.seats[s].score,
                                 before[s] + (M->st.teams[0][s] == PF_TEAM_BLUE ? 3 : 0));
}

static void f43_both_teams_gain_nothing_and_the_token_goes(void **state) {
        int32_t before[4];

        (void) state;
        race(M, 4, 43);
        quiet_turn(M);
        quiet_turn(M);
        quiet_turn(M);
        all_home(M, PF_TEAM_BLUE);
        all_home(M, PF_TEAM_RED);
        for (int s = 0; s < 4; s++)
                before[s] = M->st.seats[s].score;
        quiet_turn(M);
        assert_false(M->st.bonus_token);
        assert_false(event(M, &pf_ev_team_bonus)->v[PF_BONUS_AWARDED]);
        for (int s = 0; s < 4; s++)
                assert_int_equal(M->st.seats[s].score, before[s]);
}

static void f44_unclaimed_after_the_stages_last_round_the_token_is_removed(void **state) {
        (void) state;
        race(M, 2, 44);
        quiet_round(M);
        quiet_round(M);
        assert_true(M->st.bonus_token);
        quiet_turn(M);
        quiet_turn(M);
        /* The new stage's token is a new one, on the new goal. */
        assert_int_equal(M->st.stage, 2);
        for (size_t i = 0; i < M->out.n; i++)
                if (M->out.v[i].def == &pf_ev_team_bonus)
                        assert_false(M->out.v[i].v[PF_BONUS_AWARDED]);
        assert_int_equal(count_events(M, &pf_ev_team_bonus), 1);
}

/* ====================================================================
 * New stage: F45..F49.
 * ==================================================================== */

static void stage_out(struct match *m) {
        unsigned stage = m->st.stage;

        while (m->st.stage == stage && m->st.phase != PF_PHASE_FINISHED)
                quiet_turn(m);
}

static void f45_the_goal_becomes_the_start_and_a_new_goal_with_its_token(void **state) {
        unsigned goal;

        (void) state;
        race(M, 3, 45);
        goal = M->st.goal_planet;
        stage_out(M);
        assert_int_equal(M->st.start_planet, goal);
        assert_int_equal(M->st.goal_planet, M->st.planets[2]);
        assert_true(M->st.bonus_token);
        assert_non_null(event(M, &pf_ev_stage_started));
}

static void f46_new_piles_reshuffling_the_discards_when_the_deck_runs_out(void **state) {
        (void) state;
        race(M, 6, 46);
        /* 50 cards: 18 dealt, 32 left; three stages of 18 need reshuffles. */
        stage_out(M);
        assert_int_equal(M->st.deck_n, 50 - 36);
        stage_out(M);
        for (int s = 0; s < 6; s++)
                assert_int_equal(M->st.seats[s].pile.n, 3);
        /* 14 left in the deck, then the 36 discards shuffled into it: 32. */
        assert_int_equal(M->st.discard_n, 0);
        assert_int_equal(M->st.deck_n, 32);
}

static void f47_the_board_is_cleared(void **state) {
        (void) state;
        race(M, 2, 47);
        place(M, own(M), PF_LOC_SATURN_VP_1);
        M->st.on_goal[own(M)] = true;
        M->st.beams = 2;
        stage_out(M);
        for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                assert_false(M->st.ships[s].on_board);
                assert_false(M->st.on_goal[s]);
        }
        assert_int_equal(M->st.beams, 0);
}

static void f48_teams_and_the_starting_player_are_dealt_again(void **state) {
        bool changed = false;

        (void) state;
        race(M, 6, 48);
        stage_out(M);
        stage_out(M);
        for (int s = 0; s < 6; s++)
                changed |= M->st.teams[0][s] != M->st.teams[1][s] || M->st.teams[1][s] != M->st.teams[2][s];
        assert_true(changed);
        assert_int_equal(M->st.seats[M->st.starting_seat].ship, PF_SHIP_RED_1);
        assert_non_null(event(M, &pf_ev_teams_dealt));
}

static void f49_the_lowest_score_takes_a_restart_card_at_most_one(void **state) {
        (void) state;
        race(M, 3, 49);
        for (int s = 0; s < 3; s++)
                M->st.seats[s].restart_card = false;
        M->st.seats[1].score += 2;
        M->st.seats[1].terms[PF_TERM_TEAM_BONUS] += 2;
        M->st.seats[2].restart_card = true;
        stage_out(M);
        assert_true(M->st.seats[0].restart_card);
        assert_false(M->st.seats[1].restart_card);
        assert_true(M->st.seats[2].restart_card);       /* still one */
        assert_int_equal(event(M, &pf_ev_restart_cards_given)->v[PF_GIVEN_SEATS], 0x5);
}

/* ====================================================================
 * The end: F50, F51.
 * ==================================================================== */

static void f50_stages_are_the_planet_cards_used_minus_one(void **state) {
        (void) state;
        for (unsigned n = 2; n <= 6; n++) {
                race(M, n, 50 + n);
                assert_int_equal(M->st.stages, pf_planet_cards_for(n) - 1);
                while (M->st.phase != PF_PHASE_FINISHED)
                        quiet_turn(M);
                assert_int_equal(M->st.stage, pf_planet_cards_for(n) - 1);
                assert_int_equal(M->st.planet_pos, pf_planet_cards_for(n));
                assert_int_equal(pf_game.status(&M->st), ENG_STATUS_FINISHED);
        }
}

static void f51_the_highest_total_wins_ties_share(void **state) {
        struct eng_result res;

        (void) state;
        race(M, 3, 51);
        while (M->st.phase != PF_PHASE_FINISHED)
                quiet_turn(M);
        assert_int_equal(pf_game.result(&M->st, &res), 0);
        assert_true(res.finished);
        assert_int_equal(res.place[0], 1);
        assert_int_equal(res.place[1], 1);
        assert_int_equal(res.winner, ENG_SEAT_TABLE);          /* all on 3: shared */
        /* Rig a leader. */
        M->st.seats[2].score += 4;
        M->st.seats[2].terms[PF_TERM_TEAM_BONUS] += 4;
        assert_int_equal(pf_game.result(&M->st, &res), 0);
        assert_int_equal(res.winner, 2);
        assert_int_equal(res.place[0], 2);
        assert_int_equal(res.score[2], 7);
}

/* ====================================================================
 * The Q&A: F52, F53.
 * ==================================================================== */

static void f52_a_crack_gives_no_free_reshot_a_restart_card_as_usual(void **state) {
        (void) state;
        race(M, 2, 52);
        M->st.seats[cur(M)].restart_card = false;
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_REFUSED_STATE);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_ACCEPTED);
}

static void f53_a_beam_card_with_every_beam_placed_takes_one_from_the_board(void **state) {
        (void) state;
        race(M, 2, 53);
        M->st.beams = PF_BEAMS;
        pick_kind(M, PF_CARD_B4);
        assert_int_equal(M->st.beams, PF_BEAMS);
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_ACCEPTED);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        pick_kind(M, PF_CARD_B5);
        assert_int_equal(M->st.beams, PF_BEAMS - 1);
}

/* ====================================================================
 * Solo: F54..F60.
 * ==================================================================== */

static void solo(struct match *m, uint64_t seed) {
        create(m, 1, seed);
        assert_int_equal(start(m), ENG_ACCEPTED);
}

static enum eng_refusal attempt(struct match *m, unsigned result, int64_t moves) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = PF_ACTION_ATTEMPT, .seat = ENG_SEAT_TABLE };

        in.arg[PF_ATTEMPT_RESULT] = result;
        in.arg[PF_ATTEMPT_MOVES] = moves;
        return apply(m, &in);
}

static const struct pf_challenge *face_up(const struct match *m) {
        return &m->st.cat.cards[m->st.solo_order[m->st.solo_pos]];
}

static void f54_solo_one_ship_and_seven_challenge_cards_chosen_by_vp(void **state) {
        (void) state;
        create(M, 1, 54);
        assert_int_equal(M->st.mode, PF_MODE_SOLO);
        assert_int_equal(M->st.solo_n, 7);
        assert_int_equal(M->st.seats[0].ship, PF_SHIP_BLUE_1);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"mode\":\"solo\""));
        M->cfg.v[PF_SLOT_SOLO_MIN_VP] = 3;
        M->cfg.v[PF_SLOT_SOLO_MAX_VP] = 3;
        M->cfg.v[PF_SLOT_SOLO_CARDS] = 2;
        if (pf_game.create(&M->st, &M->cfg, NULL, 1, 54) == 0) {
                for (unsigned i = 0; i < M->st.solo_n; i++)
                        assert_int_equal(M->st.cat.cards[M->st.solo_order[i]].vp, 3);
        }
        M->cfg.v[PF_SLOT_SOLO_CARDS] = PF_MAX_CHALLENGES;
        assert_int_equal(pf_game.create(&M->st, &M->cfg, NULL, 1, 54), -EINVAL);
}

static void f55_the_cards_vp_are_put_on_it(void **state) {
        (void) state;
        solo(M, 55);
        assert_int_equal(M->st.vp_left, face_up(M)->vp);
        assert_int_equal(event(M, &pf_ev_challenge_revealed)->v[PF_REVEALED_VP], face_up(M)->vp);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"vp_left\":"));
}

static void f56_the_challenge_shows_its_setup_goal_fingers_and_moves(void **state) {
        char want[300];

        (void) state;
        solo(M, 56);
        snprintf(want, sizeof want, "\"number\":%u,\"setup\":", face_up(M)->number);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), want));
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"fingers\":"));
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"moves_left\":"));
}

static void f57_success_within_the_move_limit_gains_the_vp(void **state) {
        unsigned vp, moves;

        (void) state;
        solo(M, 57);
        vp = face_up(M)->vp;
        moves = face_up(M)->moves;
        if (moves < PF_MAX_CHALLENGE_MOVES)
                assert_int_equal(attempt(M, PF_RESULT_SUCCESS, moves + 1), ENG_REFUSED_INVALID);
        assert_int_equal(attempt(M, PF_RESULT_SUCCESS, moves), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[0].score, vp);
        assert_int_equal(M->st.seats[0].terms[PF_TERM_CHALLENGES], vp);
        assert_int_equal(M->st.solo_pos, 1);
        assert_non_null(event(M, &pf_ev_challenge_revealed));
}

static void f58_a_failure_takes_one_vp_off_the_card_and_retries(void **state) {
        unsigned vp;

        (void) state;
        solo(M, 58);
        while (face_up(M)->vp < 2)
                assert_int_equal(attempt(M, PF_RESULT_SUCCESS, 1), ENG_ACCEPTED);
        vp = face_up(M)->vp;
        assert_int_equal(attempt(M, PF_RESULT_FAILURE, 1), ENG_ACCEPTED);
        assert_int_equal(M->st.vp_left, vp - 1);
        assert_int_equal(event(M, &pf_ev_challenge_done)->v[PF_DONE_RESULT], PF_RESULT_FAILURE);
        assert_int_equal(attempt(M, PF_RESULT_SUCCESS, 1), ENG_ACCEPTED);
        assert_int_equal(M->st.done[M->st.n_done - 1].vp, vp - 1);
}

static void f59_a_card_with_no_vp_left_is_discarded(void **state) {
        unsigned pos;

        (void) state;
        solo(M, 59);
        pos = M->st.solo_pos;
        while (M->st.solo_pos == pos)
                assert_int_equal(attempt(M, PF_RESULT_FAILURE, 1), ENG_ACCEPTED);
        assert_int_equal(M->st.done[0].result, PF_RESULT_DISCARDED);
        assert_int_equal(M->st.seats[0].score, 0);
}

static void f60_the_end_after_seven_cards_and_the_evaluation(void **state) {
        struct eng_result res;

        (void) state;
        solo(M, 60);
        for (unsigned i = 0; i < 7; i++)
                assert_int_equal(attempt(M, PF_RESULT_SUCCESS, 1), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, PF_PHASE_FINISHED);
        assert_int_equal(pf_game.result(&M->st, &res), 0);
        assert_string_equal(res.label, pf_evaluation_label(M->st.seats[0].score));
        assert_int_equal(attempt(M, PF_RESULT_SUCCESS, 1), ENG_REFUSED_FINISHED);
        /* Every card discarded: 0, "Back to internship!". */
        solo(M, 61);
        while (M->st.phase != PF_PHASE_FINISHED)
                assert_int_equal(attempt(M, PF_RESULT_FAILURE, 2), ENG_ACCEPTED);
        assert_int_equal(pf_game.result(&M->st, &res), 0);
        assert_string_equal(res.label, "Back to internship!");
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"evaluation\":\"Back to internship!\""));
}

/* ====================================================================
 * Power cards: B1..B10, A1..A5.
 * ==================================================================== */

static void b01_an_asteroid_belt_gains_one_instead_of_losing_one(void **state) {
        (void) state;
        race(M, 2, 101);
        pick_kind(M, PF_CARD_B1);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_BELT), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_ASTEROID_BELT), 0);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_B1), 1);
}

static void b02_plus_one_per_knocked_ship_landing_on_a_planet(void **state) {
        struct report r = { .collided = true, .n_knocked = 2, .knocked_at = { PF_LOC_EARTH, PF_LOC_SATURN_VP_1 } };
        int me;

        (void) state;
        race(M, 4, 102);
        me = cur(M);
        r.knocked[0] = other_ship(M, false);
        r.knocked[1] = other_ship(M, true);
        place(M, r.knocked[0], PF_LOC_SATURN);
        place(M, r.knocked[1], PF_LOC_SATURN_BELT);
        pick_kind(M, PF_CARD_B2);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, me, PF_RULE_CARD_B1 + PF_CARD_B2), 1);
}

static void b03_vp_satellites_lose_instead_of_gain(void **state) {
        struct report r = { .n_at = 2, .at = { PF_LOC_SATURN_VP_2, PF_LOC_MERCURY_VP_1 } };

        (void) state;
        race(M, 2, 103);
        pick_kind(M, PF_CARD_B3);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), 0);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_B3), -3);
}

static void b04_place_a_beam(void **state) {
        struct report r = { .collided = true, .beams = 1 };
        unsigned c;

        (void) state;
        race(M, 2, 104);
        c = rig_top(M, cur(M), PF_CARD_B4);
        assert_int_equal(pick_full(M, c, own(M), NONE, NONE, PF_LOC_SATURN_VP_1), ENG_ACCEPTED);
        assert_int_equal(M->st.beams, 1);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(M->st.beams, 0);       /* knocked: off the board */
        /* Only B4 and A3 place a beam. */
        c = rig_top(M, cur(M), PF_CARD_B8);
        assert_int_equal(pick_full(M, c, own(M), NONE, NONE, PF_LOC_SATURN_VP_1), ENG_REFUSED_INVALID);
}

static void b05_shoot_with_a_beam(void **state) {
        (void) state;
        race(M, 2, 105);
        pick_kind(M, PF_CARD_B5);
        assert_int_equal(M->st.beams, 0);       /* the beam shoots; it is not placed */
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_1), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), 1);
}

static void b06_relocate_to_a_planet_other_than_the_goal_before_moving(void **state) {
        unsigned c;

        (void) state;
        race(M, 2, 106);
        place(M, own(M), PF_LOC_SATURN_BELT);
        c = rig_top(M, cur(M), PF_CARD_B6);
        assert_int_equal(pick_full(M, c, own(M), NONE, PF_LOC_EARTH_VP_1, NONE), ENG_REFUSED_INVALID);
        assert_int_equal(pick_full(M, c, own(M), NONE, PF_LOC_EARTH, NONE), ENG_ACCEPTED);
        /* The original location is the relocated one (a decision). */
        assert_int_equal(M->st.turn.began.at[0], PF_LOC_EARTH);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_BELT), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_ASTEROID_BELT), -1);
}

static void b07_a_charging_satellite_gains_one(void **state) {
        (void) state;
        race(M, 2, 107);
        pick_kind(M, PF_CARD_B7);
        assert_int_equal(shot_at(M, PF_LOC_MERCURY_CHARGE_1), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_B7), 1);
        assert_int_equal(M->st.phase, PF_PHASE_CHARGE);        /* every board's counts: a draw too */
}

static void b08_eyes_closed_changes_no_score(void **state) {
        (void) state;
        race(M, 2, 108);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_1), ENG_ACCEPTED);
        assert_int_equal(n_pending(M), 1);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), 1);
}

static void b09_no_loss_for_your_own_outbound(void **state) {
        struct report r = { .n_out = 1 };

        (void) state;
        race(M, 4, 109);
        pick_kind(M, PF_CARD_B9);
        r.out[0] = own(M);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(n_pending(M), 0);
}

static void b10_shift_by_the_cards_length(void **state) {
        unsigned c;

        (void) state;
        race(M, 2, 110);
        c = rig_top(M, cur(M), PF_CARD_B10);
        assert_int_equal(pick_full(M, c, own(M), NONE, PF_LOC_MERCURY_VP_1, NONE), ENG_ACCEPTED);
        assert_int_equal(M->st.ships[own(M)].at[0], PF_LOC_MERCURY_VP_1);
        assert_int_equal(M->st.turn.began.at[0], PF_LOC_MERCURY_VP_1);
}

static void advanced(struct match *m, uint64_t seed) {
        eng_config_defaults(&pf_game, &m->cfg);
        m->cfg.v[PF_SLOT_ADVANCED] = PF_ADVANCED_MIXED;
        create_cfg(m, 4, seed);
        set_planets(m, PF_MERCURY, PF_SATURN);
        assert_int_equal(start(m), ENG_ACCEPTED);
}

static void a01_second_joint_plus_one_on_any_planet(void **state) {
        (void) state;
        advanced(M, 201);
        pick_kind(M, PF_CARD_A1);
        assert_int_equal(shot_at(M, PF_LOC_EARTH), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_A1), 1);
}

static void a02_two_special_locations_plus_two(void **state) {
        struct report r = { .n_at = 2, .at = { PF_LOC_MARS, PF_LOC_MARS_VP_1 } };

        (void) state;
        advanced(M, 202);
        pick_kind(M, PF_CARD_A2);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_A2), 2);
        assert_int_equal(act(M, PF_ACTION_FOUL, 0), ENG_ACCEPTED);
        /* A belt is no special location; the one it starts on does not count. */
        place(M, own(M), PF_LOC_MARS);
        pick_kind(M, PF_CARD_A2);
        r.at[1] = PF_LOC_MARS_BELT;
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_A2), 0);
}

static void a03_a_beam_replaces_the_ship_plus_one_per_opponent_knocked_at_most_two(void **state) {
        struct report r = { .collided = true, .n_knocked = 2, .knocked_at = { PF_LOC_EARTH, PF_LOC_NONE },
                            .n_at = 1, .at = { PF_LOC_SATURN_VP_2 } };
        int me;

        (void) state;
        advanced(M, 203);
        me = own(M);
        place(M, me, PF_LOC_SATURN_BELT);
        r.knocked[0] = other_ship(M, false);
        r.knocked[1] = other_ship(M, true);
        place(M, r.knocked[0], PF_LOC_SATURN);
        place(M, r.knocked[1], PF_LOC_SATURN_VP_1);
        pick_kind(M, PF_CARD_A3);
        assert_false(M->st.ships[me].on_board);
        assert_int_equal(M->st.beams, 1);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_A3), 1);
        assert_int_equal(pending(M, cur(M), PF_RULE_VP_SATELLITE), 0);  /* the beam scores nothing */
}

static void a04_plus_one_per_other_outbound_ship_ignoring_rule_1(void **state) {
        struct report r = { .collided = true, .n_knocked = 2, .knocked_at = { PF_LOC_NONE, PF_LOC_NONE },
                            .n_out = 2 };
        int me;

        (void) state;
        advanced(M, 204);
        me = cur(M);
        r.knocked[0] = r.out[0] = other_ship(M, false);
        r.knocked[1] = r.out[1] = other_ship(M, true);
        place(M, r.out[0], PF_LOC_SATURN);
        place(M, r.out[1], PF_LOC_SATURN_VP_1);
        pick_kind(M, PF_CARD_A4);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, me, PF_RULE_OWN_OUTBOUND), 0);
        assert_int_equal(pending(M, me, PF_RULE_CARD_B1 + PF_CARD_A4), 2);
        assert_int_equal(pending(M, me, PF_RULE_KNOCKED_OUT), 1);      /* the opponent's: +2 in all */
}

static void a05_springboard_plus_three_on_a_planet_a_failure_puts_it_back(void **state) {
        struct report fail = { .springboard_failed = true };

        (void) state;
        advanced(M, 205);
        pick_kind(M, PF_CARD_A5);
        assert_int_equal(shot_at(M, PF_LOC_JUPITER), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_A5), 3);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        place(M, own(M), PF_LOC_SATURN_VP_1);
        pick_kind(M, PF_CARD_A5);
        assert_int_equal(shot(M, &fail), ENG_ACCEPTED);
        assert_int_equal(n_pending(M), 0);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        /* Back where it was. */
        assert_int_equal(M->st.ships[M->st.seats[(cur(M) + 3) % 4].ship].at[0], PF_LOC_SATURN_VP_1);
        /* Only A5 fails on a springboard. */
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &fail), ENG_REFUSED_INVALID);
}

/* ====================================================================
 * Decisions.
 * ==================================================================== */

static void decision_a_report_names_locations_of_the_layout_by_id(void **state) {
        struct report bad = { .n_at = 2, .at = { PF_LOC_NONE, PF_LOC_SATURN } };
        struct report dup = { .n_at = 2, .at = { PF_LOC_SATURN, PF_LOC_SATURN } };
        struct report none = { .n_at = 1, .at = { PF_LOC_NONE } };
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = PF_ACTION_SHOT, .seat = ENG_SEAT_TABLE };

        (void) state;
        race(M, 2, 301);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &bad), ENG_REFUSED_INVALID);
        assert_int_equal(shot(M, &dup), ENG_REFUSED_INVALID);
        in.arg[PF_SHOT_AT] = 1;
        in.arg[PF_SHOT_AT + 1] = PF_N_LOCATIONS;
        assert_int_equal(apply(M, &in), ENG_REFUSED_INVALID);
        assert_int_equal(shot(M, &none), ENG_ACCEPTED);
}

static void decision_teams_by_player_count_dealt_from_the_seed_and_scoring_is_individual(void **state) {
        struct eng_result res;
        static struct pf_state a;

        (void) state;
        assert_int_equal(pf_team_size(2, PF_TEAM_RED), 1);
        assert_int_equal(pf_team_size(3, PF_TEAM_RED), 2);
        assert_int_equal(pf_team_size(5, PF_TEAM_BLUE), 2);
        create(M, 4, 302);
        a = M->st;
        create(M, 4, 302);
        assert_memory_equal(a.teams, M->st.teams, sizeof a.teams);
        race(M, 4, 302);
        stage_out(M);
        assert_int_equal(pf_game.result(&M->st, &res), 0);
        assert_int_equal(res.n_stages, 2);
        for (int s = 0; s < 4; s++) {
                assert_int_equal(res.team[s][0], M->st.teams[0][s]);
                assert_int_equal(res.team[s][1], M->st.teams[1][s]);
        }
}

static void decision_the_power_deck_off_mixed_or_only_counts_validated(void **state) {
        struct eng_error err;

        (void) state;
        eng_config_defaults(&pf_game, &M->cfg);
        M->cfg.v[PF_SLOT_ADVANCED] = PF_ADVANCED_ONLY;
        create_cfg(M, 4, 303);
        assert_int_equal(M->st.n_cards, 25);
        for (unsigned c = 0; c < M->st.n_cards; c++)
                assert_true(M->st.card_kind[c] >= PF_CARD_A1);
        M->cfg.v[PF_SLOT_ADVANCED] = PF_ADVANCED_MIXED;
        M->cfg.v[PF_SLOT_BASIC_COPIES] = 2;
        create_cfg(M, 4, 303);
        assert_int_equal(M->st.n_cards, 45);
        M->cfg.v[PF_SLOT_ADVANCED] = PF_ADVANCED_OFF;
        M->cfg.v[PF_SLOT_BASIC_COPIES] = 1;
        assert_int_equal(eng_config_validate(&pf_game, &M->cfg, NULL, 4, &err), -EINVAL);
        assert_string_equal(err.field, "deck.basic_copies");
        M->cfg.v[PF_SLOT_ADVANCED] = PF_ADVANCED_MIXED;
        M->cfg.v[PF_SLOT_ADVANCED_COPIES] = 0;
        assert_int_equal(eng_config_validate(&pf_game, &M->cfg, NULL, 4, &err), -EINVAL);
        assert_string_equal(err.field, "deck.advanced_copies");
        eng_config_defaults(&pf_game, &M->cfg);
        M->cfg.v[PF_SLOT_LAYOUT] = 2;
        assert_int_equal(eng_config_validate(&pf_game, &M->cfg, NULL, 4, &err), -EINVAL);
        assert_string_equal(err.field, "layout");
}

static void decision_charge_use_is_an_extra_attempt_and_an_empty_deck_draws_nothing(void **state) {
        unsigned drawn;
        int me;

        (void) state;
        race(M, 2, 304);
        me = cur(M);
        pick_kind(M, PF_CARD_B8);
        drawn = M->st.deck[M->st.deck_n - 1];
        assert_int_equal(shot_at(M, PF_LOC_SATURN_CHARGE_1), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_CHARGE, PF_CHARGE_USE), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, PF_PHASE_PICK);
        assert_int_equal(M->st.turn.forced, drawn);
        assert_int_equal(cur(M), me);
        assert_int_equal(M->st.ships[own(M)].at[0], PF_LOC_SATURN_CHARGE_1);  /* the first attempt made */
        assert_int_equal(pick_full(M, top_of(M, 1 - me), own(M), NONE, NONE, NONE), ENG_REFUSED_INVALID);
        if (M->st.card_kind[drawn] == PF_CARD_B6)
                assert_int_equal(pick_full(M, drawn, own(M), NONE, PF_LOC_EARTH, NONE), ENG_ACCEPTED);
        else if (M->st.card_kind[drawn] == PF_CARD_A3 || M->st.card_kind[drawn] == PF_CARD_A5)
                fail_msg("no advanced cards in a basic deck");
        else
                assert_int_equal(pick_full(M, drawn, own(M), NONE, NONE, NONE), ENG_ACCEPTED);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_2), ENG_ACCEPTED);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_true(M->st.seats[me].score >= 3);
        /* Deck and discards empty: nothing drawn, no charge phase. */
        race(M, 2, 305);
        rig_top(M, cur(M), PF_CARD_B8);
        while (M->st.deck_n) {
                uint8_t c = M->st.deck[--M->st.deck_n];

                M->st.seats[0].kept[M->st.seats[0].n_kept++] = c;
        }
        /* (kept cards are VP: the rig must keep terms in step) */
        M->st.seats[0].terms[PF_TERM_CHARGING_KEPT] = M->st.seats[0].n_kept / 2;
        M->st.seats[0].score = 3 + M->st.seats[0].n_kept / 2;
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_CHARGE_1), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, PF_PHASE_DECIDE);
        assert_int_equal(M->st.turn.drawn, PF_NO_CARD);
}

static void decision_outbound_rule_1_costs_one_once_and_the_controller_is_the_owner(void **state) {
        struct report r = { .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_NONE }, .n_out = 2 };

        (void) state;
        race(M, 4, 306);
        r.out[0] = own(M);
        r.out[1] = r.knocked[0] = other_ship(M, true);
        place(M, r.out[1], PF_LOC_SATURN);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot(M, &r), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_OWN_OUTBOUND), -1);
        assert_int_equal(n_pending(M), 1);
}

static void decision_the_original_location_is_after_the_pre_move(void **state) {
        unsigned c;

        (void) state;
        race(M, 2, 307);
        c = rig_top(M, cur(M), PF_CARD_B10);
        assert_int_equal(pick_full(M, c, own(M), NONE, PF_LOC_SATURN_VP_2, NONE), ENG_ACCEPTED);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_2), ENG_ACCEPTED);
        assert_int_equal(n_pending(M), 0);
}

static void decision_record_tokens_stay_on_the_goal(void **state) {
        int ship;

        (void) state;
        race(M, 2, 308);
        ship = own(M);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN), ENG_ACCEPTED);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        quiet_turn(M);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_1), ENG_ACCEPTED);
        assert_false(M->st.turn.record_due);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_true(M->st.on_goal[ship]);
}

static void decision_a_foul_voids_the_attempt_and_spends_the_card(void **state) {
        unsigned c;
        int me;

        (void) state;
        race(M, 2, 309);
        me = cur(M);
        c = pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_2), ENG_ACCEPTED);
        assert_int_equal(act(M, PF_ACTION_FOUL, 0), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[me].score, 3);
        assert_false(M->st.ships[M->st.seats[me].ship].on_board);
        assert_int_equal(M->st.discard[M->st.discard_n - 1], c);
        assert_int_not_equal(cur(M), me);
        assert_int_equal(act(M, PF_ACTION_FOUL, 0), ENG_REFUSED_STATE);        /* nothing to void */
        /* A pre-move is undone too: B4's beam leaves with the foul. */
        pick_kind(M, PF_CARD_B4);
        assert_int_equal(M->st.beams, 1);
        assert_int_equal(act(M, PF_ACTION_FOUL, 0), ENG_ACCEPTED);
        assert_int_equal(M->st.beams, 0);
}

static void decision_ambiguous_card_readings(void **state) {
        struct report two_belts = { .n_at = 2, .at = { PF_LOC_SATURN_BELT, PF_LOC_MERCURY_BELT } };

        (void) state;
        /* B1 per belt. */
        race(M, 2, 310);
        pick_kind(M, PF_CARD_B1);
        assert_int_equal(shot(M, &two_belts), ENG_ACCEPTED);
        assert_int_equal(pending(M, cur(M), PF_RULE_CARD_B1 + PF_CARD_B1), 2);
        /* B9 waives only the moved ship's −1: a teammate's out still costs. */
        {
                struct report r = { .n_out = 2, .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };

                race(M, 4, 311);
                r.out[0] = own(M);
                r.out[1] = r.knocked[0] = other_ship(M, true);
                place(M, r.out[1], PF_LOC_SATURN);
                pick_kind(M, PF_CARD_B9);
                assert_int_equal(shot(M, &r), ENG_ACCEPTED);
                assert_int_equal(pending(M, cur(M), PF_RULE_OWN_OUTBOUND), -1);
        }
}

static void decision_solo_challenges_as_data_custom_cards_validated(void **state) {
        static const char custom[] = "1 vp=2 moves=2 fingers=index card=B4 | Setup: a. | Challenge: b.\n"
                                     "2 vp=3 moves=1 fingers=index+middle | Setup: c. | Challenge: d.\n";
        static const char broken[] = "1 vp=0 moves=2 fingers=index | Setup: a. | Challenge: b.\n";
        struct eng_data data = { 0 };
        struct eng_error err;

        (void) state;
        eng_config_defaults(&pf_game, &M->cfg);
        M->cfg.v[PF_SLOT_SOLO_CARDS] = 2;
        data.text[PF_DATA_CHALLENGES] = custom;
        data.len[PF_DATA_CHALLENGES] = strlen(custom);
        assert_int_equal(eng_config_validate(&pf_game, &M->cfg, &data, 1, &err), 0);
        assert_int_equal(pf_game.create(&M->st, &M->cfg, &data, 1, 312), 0);
        assert_int_equal(M->st.cat.n, 2);
        check(M);
        M->cfg.v[PF_SLOT_SOLO_CARDS] = 3;
        assert_int_equal(eng_config_validate(&pf_game, &M->cfg, &data, 1, &err), -EINVAL);
        assert_string_equal(err.field, "solo.cards");
        data.text[PF_DATA_CHALLENGES] = broken;
        data.len[PF_DATA_CHALLENGES] = strlen(broken);
        M->cfg.v[PF_SLOT_SOLO_CARDS] = 1;
        assert_int_equal(eng_config_validate(&pf_game, &M->cfg, &data, 1, &err), -EINVAL);
        assert_non_null(strstr(err.message, "vp"));
}

static void decision_impossible_reports_are_refused(void **state) {
        struct report self = { .collided = true, .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };
        struct report off = { .n_out = 1 };
        struct report nocoll = { .n_knocked = 1, .knocked_at = { PF_LOC_NONE } };
        struct report beams = { .collided = true, .beams = 1 };

        (void) state;
        race(M, 4, 313);
        /* A shot before a pick, a charge with nothing drawn, an end before a shot. */
        assert_int_equal(shot_at(M, PF_LOC_NONE), ENG_REFUSED_STATE);
        assert_int_equal(act(M, PF_ACTION_CHARGE, PF_CHARGE_KEEP), ENG_REFUSED_STATE);
        assert_int_equal(end_turn(M), ENG_REFUSED_STATE);
        assert_int_equal(act(M, PF_ACTION_RESTART, 0), ENG_REFUSED_STATE);
        pick_kind(M, PF_CARD_B8);
        self.knocked[0] = own(M);
        assert_int_equal(shot(M, &self), ENG_REFUSED_INVALID);
        off.out[0] = other_ship(M, false);      /* not on the board */
        assert_int_equal(shot(M, &off), ENG_REFUSED_INVALID);
        nocoll.knocked[0] = other_ship(M, false);
        place(M, nocoll.knocked[0], PF_LOC_SATURN);
        assert_int_equal(shot(M, &nocoll), ENG_REFUSED_INVALID);
        assert_int_equal(shot(M, &beams), ENG_REFUSED_INVALID);        /* no beam on the board */
        /* Another seat may not act for the current one. */
        {
                struct eng_input in = { .kind = ENG_IN_ACTION, .action = PF_ACTION_END_TURN,
                                        .seat = (cur(M) + 1) % 4 };

                assert_int_equal(apply(M, &in), ENG_REFUSED_NOT_ALLOWED);
        }
        assert_int_equal(attempt(M, PF_RESULT_SUCCESS, 1), ENG_REFUSED_UNSUPPORTED);
}

static void decision_pending_changes_shown_before_end_turn(void **state) {
        const char *v;

        (void) state;
        race(M, 2, 314);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_VP_2), ENG_ACCEPTED);
        v = view_json(M, ENG_VIEW_PUBLIC, -1);
        assert_non_null(strstr(v, "\"pending\":[{\"seat\":"));
        assert_non_null(strstr(v, "\"delta\":2,\"rule\":\"vp_satellite\""));
        assert_int_equal(count_events(M, &pf_ev_score_changed), 0);
        assert_int_equal(end_turn(M), ENG_ACCEPTED);
        assert_int_equal(count_events(M, &pf_ev_score_changed), 1);
        v = view_json(M, ENG_VIEW_PUBLIC, -1);
        assert_non_null(strstr(v, "\"last_turn\":[{\"seat\":"));
}

static void decision_the_drawn_card_is_seen_by_its_seat_only(void **state) {
        char pub[TJ_MAX];
        int me;

        (void) state;
        race(M, 2, 315);
        me = cur(M);
        pick_kind(M, PF_CARD_B8);
        assert_int_equal(shot_at(M, PF_LOC_SATURN_CHARGE_1), ENG_ACCEPTED);
        strcpy(pub, view_json(M, ENG_VIEW_PUBLIC, -1));
        assert_null(strstr(pub, "\"drawn\""));
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, me), "\"drawn\":{\"handle\""));
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, 1 - me), "\"drawn\":null"));
        assert_true(pf_ev_charging_drawn.reveals);
        assert_int_equal(pf_ev_charging_drawn.fields[0].audience, ENG_VIEW_SEAT);
}

static void decision_a_referee_keypad_for_the_frequent_steps(void **state) {
        const struct eng_route *r;

        (void) state;
        r = eng_route_find(&pf_game, ENG_ROLE_KEYPAD, 10);
        assert_non_null(r);
        assert_string_equal(r->input, "end_turn");
        /* Clear clears the attempt; the digit 1 is the restart card; Undo
         * does not spend a card */
        assert_string_equal(eng_route_find(&pf_game, ENG_ROLE_KEYPAD, 11)->input, "foul");
        assert_string_equal(eng_route_find(&pf_game, ENG_ROLE_KEYPAD, 1)->input, "restart");
        assert_null(eng_route_find(&pf_game, ENG_ROLE_KEYPAD, 12));
        assert_null(eng_route_find(&pf_game, ENG_ROLE_BUTTONS, 0));    /* no seat routes */
}

static void decision_short_piles_when_the_deck_and_discards_run_out_and_turns_pass(void **state) {
        struct pf_state *st = &M->st;
        struct pf_seat *keeper = &st->seats[0];
        unsigned piles = 0;

        (void) state;
        race(M, 2, 320);
        for (unsigned t = 0; t < 5; t++)
                quiet_turn(M);
        /* Rig: every card of the deck and all discards but two are kept
         * face down (with their VP, so that the terms still sum). */
        while (st->deck_n)
                keeper->kept[keeper->n_kept++] = st->deck[--st->deck_n];
        while (st->discard_n > 2)
                keeper->kept[keeper->n_kept++] = st->discard[--st->discard_n];
        keeper->score += keeper->n_kept / 2 - keeper->terms[PF_TERM_CHARGING_KEPT];
        keeper->terms[PF_TERM_CHARGING_KEPT] = keeper->n_kept / 2;
        check(M);
        quiet_turn(M);
        assert_int_equal(st->stage, 2);
        for (int s = 0; s < 2; s++)
                piles += st->seats[s].pile.n;
        assert_int_equal(piles, 3);             /* the three discards, reshuffled */
        /* Round 1: two turns; round 2: one card, the other player passes;
         * round 3: no card, both pass; the next stage comes. */
        quiet_turn(M);
        quiet_turn(M);
        assert_int_equal(st->round, 2);
        quiet_turn(M);
        assert_int_equal(st->stage, 3);
        assert_int_equal(st->round, 1);
        assert_int_equal(st->phase, PF_PHASE_PICK);
}

/* ====================================================================
 * The framework's properties.
 * ==================================================================== */

static void game_tables_pass_eng_game_check(void **state) {
        char why[200] = "";

        (void) state;
        if (eng_game_check(&pf_game, why, sizeof why) < 0)
                fail_msg("%s", why);
}

static void slots_agree_with_the_schema(void **state) {
        (void) state;
#define PARAM(name, slot) assert_int_equal(eng_fields_offset(pf_game.params, pf_game.n_params, name), slot)
        PARAM("layout", PF_SLOT_LAYOUT);
        PARAM("deck.basic_copies", PF_SLOT_BASIC_COPIES);
        PARAM("deck.advanced", PF_SLOT_ADVANCED);
        PARAM("deck.advanced_copies", PF_SLOT_ADVANCED_COPIES);
        PARAM("solo.cards", PF_SLOT_SOLO_CARDS);
        PARAM("solo.min_vp", PF_SLOT_SOLO_MIN_VP);
        PARAM("solo.max_vp", PF_SLOT_SOLO_MAX_VP);
#undef PARAM
        assert_int_equal(eng_fields_slots(pf_game.params, pf_game.n_params), PF_CONFIG_SLOTS);
#define IN(a, name, slot) \
        assert_int_equal(eng_fields_offset(pf_game.actions[a].fields, pf_game.actions[a].n_fields, name), slot)
        IN(PF_ACTION_PICK, "card", PF_PICK_CARD);
        IN(PF_ACTION_PICK, "ship", PF_PICK_SHIP);
        IN(PF_ACTION_PICK, "start_at", PF_PICK_START_AT);
        IN(PF_ACTION_PICK, "relocate_to", PF_PICK_RELOCATE_TO);
        IN(PF_ACTION_PICK, "beam_at", PF_PICK_BEAM_AT);
        IN(PF_ACTION_SHOT, "outbound", PF_SHOT_OUTBOUND);
        IN(PF_ACTION_SHOT, "stacked", PF_SHOT_STACKED);
        IN(PF_ACTION_SHOT, "collided", PF_SHOT_COLLIDED);
        IN(PF_ACTION_SHOT, "at", PF_SHOT_AT);
        IN(PF_ACTION_SHOT, "knocked", PF_SHOT_KNOCKED);
        IN(PF_ACTION_SHOT, "knocked_at", PF_SHOT_KNOCKED_AT);
        IN(PF_ACTION_SHOT, "beams_knocked", PF_SHOT_BEAMS_KNOCKED);
        IN(PF_ACTION_SHOT, "springboard_failed", PF_SHOT_SPRINGBOARD_FAILED);
        IN(PF_ACTION_CHARGE, "choice", PF_CHARGE_CHOICE);
        IN(PF_ACTION_ATTEMPT, "result", PF_ATTEMPT_RESULT);
        IN(PF_ACTION_ATTEMPT, "moves", PF_ATTEMPT_MOVES);
#undef IN
        assert_true(eng_fields_slots(pf_game.actions[PF_ACTION_SHOT].fields,
                                     pf_game.actions[PF_ACTION_SHOT].n_fields) == PF_SHOT_SLOTS);
        assert_true(PF_SHOT_SLOTS <= ENG_MAX_ARGS);
#define AT(ev, name, slot) assert_int_equal(eng_fields_offset((ev).fields, (ev).n_fields, name), slot)
        AT(pf_ev_stage_started, "stage", PF_STAGE_STAGE);
        AT(pf_ev_stage_started, "start_planet", PF_STAGE_START_PLANET);
        AT(pf_ev_stage_started, "goal_planet", PF_STAGE_GOAL_PLANET);
        AT(pf_ev_stage_started, "starting_seat", PF_STAGE_STARTING_SEAT);
        AT(pf_ev_teams_dealt, "red_seats", PF_TEAMS_RED);
        AT(pf_ev_teams_dealt, "blue_seats", PF_TEAMS_BLUE);
        AT(pf_ev_round_started, "round", PF_ROUND_ROUND);
        AT(pf_ev_round_ended, "round", PF_ROUND_ROUND);
        AT(pf_ev_turn_started, "stage", PF_TURN_STAGE);
        AT(pf_ev_turn_started, "round", PF_TURN_ROUND);
        AT(pf_ev_card_picked, "card", PF_PICKED_CARD);
        AT(pf_ev_card_picked, "ship", PF_PICKED_SHIP);
        AT(pf_ev_shot_reported, "outbound", PF_REPORTED_OUTBOUND);
        AT(pf_ev_shot_reported, "at", PF_REPORTED_AT);
        AT(pf_ev_shot_reported, "knocked", PF_REPORTED_KNOCKED);
        AT(pf_ev_score_changed, "delta", PF_SCORE_DELTA);
        AT(pf_ev_score_changed, "rule", PF_SCORE_RULE);
        AT(pf_ev_score_changed, "ship", PF_SCORE_SHIP);
        AT(pf_ev_score_changed, "location", PF_SCORE_LOCATION);
        AT(pf_ev_charging_drawn, "card", PF_DRAWN_CARD);
        AT(pf_ev_card_used, "card", PF_USED_CARD);
        AT(pf_ev_record_moved, "ship", PF_RECORD_SHIP);
        AT(pf_ev_team_bonus, "team", PF_BONUS_TEAM);
        AT(pf_ev_team_bonus, "awarded", PF_BONUS_AWARDED);
        AT(pf_ev_restart_cards_given, "seats", PF_GIVEN_SEATS);
        AT(pf_ev_challenge_revealed, "number", PF_REVEALED_NUMBER);
        AT(pf_ev_challenge_revealed, "vp", PF_REVEALED_VP);
        AT(pf_ev_challenge_revealed, "moves", PF_REVEALED_MOVES);
        AT(pf_ev_challenge_done, "number", PF_DONE_NUMBER);
        AT(pf_ev_challenge_done, "result", PF_DONE_RESULT);
        AT(pf_ev_challenge_done, "vp", PF_DONE_VP);
#undef AT
        assert_int_equal(pf_game.n_terms, PF_N_TERMS);
        assert_true(PF_N_TERMS <= ENG_MAX_TERMS);
        assert_string_equal(pf_rule_name(PF_RULE_CARD_B1 + PF_CARD_A5), "card_A5");
        assert_string_equal(pf_rule_name(PF_RULE_FLOOR), "floor");
}

struct prop {
        size_t steps;
};

static int prop_step(void *ctx, const struct pf_state *st, const struct eng_input *in, const struct eng_out *out) {
        struct prop *p = ctx;
        char why[200] = "";

        (void) in;
        p->steps++;
        if (pf_check(st, why, sizeof why) < 0)
                fail_msg("after input %" PRIu64 ": %s", in->seq, why);
        if (out->n > pf_game.max_outputs)
                fail_msg("input %" PRIu64 " made %zu outputs", in->seq, out->n);
        for (size_t i = 0; i < out->n; i++)
                assert_non_null(out->v[i].def);
        return 0;
}

static void property_vp_never_negative_cards_conserved_stages_and_every_game_ends(void **state) {
        struct pf_sim_params params;
        struct pf_sim_stats stats;
        struct eng_config cfg;
        size_t turns = 0, restarts = 0, charges = 0, fouls = 0, refused = 0;

        (void) state;
        pf_sim_params_default(&params);
        for (uint64_t seed = 1; seed <= 300; seed++) {
                struct prop p = { 0 };
                unsigned n = 1 + (unsigned) (seed % 6);
                struct eng_result res;

                eng_config_defaults(&pf_game, &cfg);
                cfg.v[PF_SLOT_ADVANCED] = seed % 3;
                if (pf_sim_match(&M->st, &cfg, n, seed, seed * 31, &params, NULL, 0, prop_step, &p, &stats) != 0)
                        fail_msg("seed %" PRIu64 ": the simulated game did not end cleanly", seed);
                assert_int_equal(M->st.phase, PF_PHASE_FINISHED);
                if (n > 1) {
                        assert_int_equal(M->st.stage, pf_planet_cards_for(n) - 1);
                        assert_int_equal(M->st.stages, M->st.n_planets - 1);
                }
                assert_int_equal(pf_game.result(&M->st, &res), 0);
                for (unsigned s = 0; s < n; s++) {
                        assert_true(res.score[s] >= 0);
                        assert_int_equal(res.score[s], M->st.seats[s].score);
                }
                turns += stats.turns;
                restarts += stats.restarts;
                charges += stats.charges;
                fouls += stats.fouls;
                refused += stats.refused;
        }
        print_message("300 games: %zu turns, %zu restarts, %zu charges, %zu fouls, %zu refused inputs\n", turns,
                      restarts, charges, fouls, refused);
        assert_true(turns > 5000 && restarts > 100 && charges > 100 && fouls > 50 && refused > 50);
}

/* Every input of the random referee, junk included, is one REST carries:
 * each field within its range (so that the integration tests may send
 * them as a referee would). */
static int fields_step(void *ctx, const struct pf_state *st, const struct eng_input *in, const struct eng_out *out) {
        const struct eng_input_def *d = eng_input_def_of(&pf_game, in);
        size_t slot = 0;

        (void) ctx;
        (void) st;
        (void) out;
        assert_non_null(d);
        for (size_t i = 0; i < d->n_fields; i++) {
                const struct eng_field *f = &d->fields[i];
                struct eng_error err;

                if (f->max_count) {
                        assert_true(in->arg[slot] >= 0 && in->arg[slot] <= f->max_count);
                        for (int64_t k = 0; k < in->arg[slot]; k++)
                                if (eng_value_check(f, f->name, in->arg[slot + 1 + k], &err) < 0)
                                        fail_msg("%s: %s", d->name, err.message);
                } else if (!(f->optional && f->def == ENG_ABSENT && in->arg[slot] == ENG_ABSENT) &&
                           f->type != ENG_T_HANDLE && eng_value_check(f, f->name, in->arg[slot], &err) < 0) {
                        fail_msg("%s: %s", d->name, err.message);
                }
                slot += eng_field_slots(f);
        }
        return 0;
}

static void the_referees_inputs_are_within_their_fields(void **state) {
        struct pf_sim_params params;
        struct pf_sim_stats stats;
        struct eng_config cfg;
        size_t junk = 0;

        (void) state;
        pf_sim_params_default(&params);
        params.junk_pct = 20;
        eng_config_defaults(&pf_game, &cfg);
        for (uint64_t seed = 1; seed <= 60; seed++) {
                cfg.v[PF_SLOT_ADVANCED] = seed % 3;
                assert_int_equal(pf_sim_match(&M->st, &cfg, 1 + (unsigned) (seed % 6), seed, seed, &params, NULL, 0,
                                              fields_step, NULL, &stats), 0);
                junk += stats.junk;
        }
        assert_true(junk > 100);
}

static void replay_equals_live(void **state) {
        enum { CAP = 8192 };
        struct pf_sim_params params;
        struct pf_sim_stats stats;
        struct eng_config cfg;
        struct eng_input *log = calloc(CAP, sizeof *log);
        struct eng_record *rec = calloc(CAP, sizeof *rec);
        struct pf_state *live = malloc(sizeof *live), *again = malloc(sizeof *again);

        (void) state;
        assert_non_null(log);
        assert_non_null(rec);
        assert_non_null(live);
        assert_non_null(again);
        pf_sim_params_default(&params);
        eng_config_defaults(&pf_game, &cfg);
        for (uint64_t seed = 1; seed <= 30; seed++) {
                unsigned n = 1 + (unsigned) (seed % 6);
                struct eng_setup setup = { .game = &pf_game, .cfg = &cfg, .n_seats = n, .seed = seed };
                size_t refused_replay = 0;

                assert_int_equal(pf_sim_match(live, &cfg, n, seed, seed + 5, &params, log, CAP, NULL, NULL, &stats),
                                 0);
                assert_int_equal(pf_game.create(again, &cfg, NULL, n, seed), 0);
                for (size_t i = 0; i < stats.inputs; i++) {
                        struct eng_out o1;

                        assert_int_equal(pf_game.apply(again, &log[i], &o1), 0);
                        rec[i].in = log[i];
                        rec[i].refusal = o1.refusal;
                        rec[i].voided_by = 0;
                }
                assert_memory_equal(live, again, sizeof *live);
                assert_int_equal(eng_replay(&setup, again, rec, stats.inputs, &refused_replay), 0);
                assert_int_equal(refused_replay, stats.refused);
                assert_true(pf_game.hash(again) == pf_game.hash(live));
        }
        free(log);
        free(rec);
        free(live);
        free(again);
}

static void perturb_hidden_touches_only_the_hidden_order(void **state) {
        static struct pf_state before;
        char a[TJ_MAX];

        (void) state;
        race(M, 4, 400);
        before = M->st;
        strcpy(a, view_json(M, ENG_VIEW_PUBLIC, -1));
        assert_int_equal(pf_game.perturb_hidden(&M->st, 99), 0);
        check(M);
        assert_string_equal(a, view_json(M, ENG_VIEW_PUBLIC, -1));
        assert_memory_not_equal(before.deck, M->st.deck, before.deck_n);
        assert_memory_equal(before.seats, M->st.seats, sizeof before.seats);
}

static void a_void_undoes_a_confirmed_turn(void **state) {
        struct eng_config cfg;
        struct eng_setup setup = { .game = &pf_game, .cfg = &cfg, .n_seats = 2, .seed = 62 };
        struct eng_record log[16];
        struct eng_out out;
        static struct pf_state st, before;
        struct eng_input in;
        size_t n = 0;
        uint64_t seq = 0;

        (void) state;
        eng_config_defaults(&pf_game, &cfg);
        assert_int_equal(pf_game.create(&st, &cfg, NULL, 2, 62), 0);
#define LOG(...) do { \
                in = (struct eng_input) { .seq = ++seq, .time_us = T0 + (int64_t) seq * SEC, __VA_ARGS__ }; \
                assert_int_equal(eng_log_apply(&setup, &st, log, n, &in, &out), 0); \
                assert_int_equal(out.refusal, ENG_ACCEPTED); \
                log[n++] = (struct eng_record) { .in = in, .refusal = out.refusal }; \
        } while (0)
        LOG(.kind = ENG_IN_START, .seat = ENG_SEAT_TABLE);
        before = st;
        LOG(.kind = ENG_IN_ACTION, .action = PF_ACTION_PICK, .seat = ENG_SEAT_TABLE,
            .arg = { pf_handle(&st, st.seats[st.current_seat].pile.cards[2]), st.seats[st.current_seat].ship,
                     NONE, st.card_kind[st.seats[st.current_seat].pile.cards[2]] == PF_CARD_B6
                                   ? (int64_t) pf_planet_location(st.start_planet) : NONE, NONE });
        LOG(.kind = ENG_IN_ACTION, .action = PF_ACTION_SHOT, .seat = ENG_SEAT_TABLE);
        LOG(.kind = ENG_IN_ACTION, .action = PF_ACTION_END_TURN, .seat = ENG_SEAT_TABLE);
        assert_int_not_equal(st.current_seat, before.current_seat);
        in = (struct eng_input) { .seq = ++seq, .time_us = T0 + 99 * SEC, .kind = ENG_IN_VOID,
                                  .seat = ENG_SEAT_TABLE };
        in.void_.target = 2;
        assert_int_equal(eng_log_apply(&setup, &st, log, n, &in, &out), 0);
        assert_int_equal(out.refusal, ENG_ACCEPTED);
        assert_int_equal(st.phase, PF_PHASE_PICK);
        assert_int_equal(st.current_seat, before.current_seat);
        assert_memory_equal(st.seats, before.seats, sizeof st.seats);
#undef LOG
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup_m, teardown_m)
                T(f01_components_and_their_counts),
                T(f02_boards_in_a_random_or_chosen_3x3),
                T(f03_the_basic_power_deck_shuffled),
                T(f04_a_pile_of_three_per_player_with_the_top_face_up),
                T(f05_planet_cards_by_player_count),
                T(f06_starting_then_goal_planet),
                T(f07_team_cards_by_player_count_same_colour_same_team),
                T(f08_record_tokens_on_the_starting_planet),
                T(f09_the_starting_player_from_the_team_cards_icon),
                T(f10_a_restart_card_and_a_3_vp_token_each),
                T(f11_one_3_vp_token_on_the_goal),
                T(f12_stages_of_three_rounds),
                T(f13_clockwise_from_the_starting_player),
                T(f14_the_token_passes_left_each_round),
                T(f15_your_own_or_a_teammates_ship_even_in_the_first_round),
                T(f16_a_ship_off_the_board_starts_on_the_starting_planet),
                T(f17_anywhere_on_the_starting_planets_board_when_crowded),
                T(f18_take_any_face_up_power_card),
                T(f19_one_attempt_and_the_card_is_discarded),
                T(f20_the_cards_special_movement_is_executed),
                T(f21_your_teams_ship_out_costs_one_and_gains_nothing),
                T(f22_opponents_ships_out_cost_their_controllers_and_pay_you),
                T(f23_both_cases_only_the_first),
                T(f24_outbound_ships_are_set_aside),
                T(f25_a_ship_stacked_on_another_object_is_outbound),
                T(f26_arrival_only_if_no_ship_of_your_team_went_out),
                T(f27_only_locations_on_the_goal_planets_board_count),
                T(f28_a_card_naming_a_location_counts_it_on_every_board),
                T(f29_every_location_arrived_at_counts),
                T(f30_staying_where_it_started_activates_nothing),
                T(f31_knocked_ships_activate_nothing),
                T(f32_effects_go_to_the_current_player),
                T(f33_gains_before_losses_never_below_zero),
                T(f34_a_vp_satellite_gains_its_stars),
                T(f35_a_charging_satellite_draws_use_or_keep_two_kept_are_one_vp),
                T(f36_the_goal_planet_moves_that_ships_record_token),
                T(f37_an_asteroid_belt_costs_one),
                T(f38_restart_only_when_no_collision),
                T(f39_restart_moves_the_ship_back_with_the_same_card),
                T(f40_restart_after_an_outbound_loses_nothing),
                T(f41_round_end_flips_the_tops),
                T(f42_a_team_with_every_record_token_on_the_goal_gains_3_each),
                T(f43_both_teams_gain_nothing_and_the_token_goes),
                T(f44_unclaimed_after_the_stages_last_round_the_token_is_removed),
                T(f45_the_goal_becomes_the_start_and_a_new_goal_with_its_token),
                T(f46_new_piles_reshuffling_the_discards_when_the_deck_runs_out),
                T(f47_the_board_is_cleared),
                T(f48_teams_and_the_starting_player_are_dealt_again),
                T(f49_the_lowest_score_takes_a_restart_card_at_most_one),
                T(f50_stages_are_the_planet_cards_used_minus_one),
                T(f51_the_highest_total_wins_ties_share),
                T(f52_a_crack_gives_no_free_reshot_a_restart_card_as_usual),
                T(f53_a_beam_card_with_every_beam_placed_takes_one_from_the_board),
                T(f54_solo_one_ship_and_seven_challenge_cards_chosen_by_vp),
                T(f55_the_cards_vp_are_put_on_it),
                T(f56_the_challenge_shows_its_setup_goal_fingers_and_moves),
                T(f57_success_within_the_move_limit_gains_the_vp),
                T(f58_a_failure_takes_one_vp_off_the_card_and_retries),
                T(f59_a_card_with_no_vp_left_is_discarded),
                T(f60_the_end_after_seven_cards_and_the_evaluation),
                T(b01_an_asteroid_belt_gains_one_instead_of_losing_one),
                T(b02_plus_one_per_knocked_ship_landing_on_a_planet),
                T(b03_vp_satellites_lose_instead_of_gain),
                T(b04_place_a_beam),
                T(b05_shoot_with_a_beam),
                T(b06_relocate_to_a_planet_other_than_the_goal_before_moving),
                T(b07_a_charging_satellite_gains_one),
                T(b08_eyes_closed_changes_no_score),
                T(b09_no_loss_for_your_own_outbound),
                T(b10_shift_by_the_cards_length),
                T(a01_second_joint_plus_one_on_any_planet),
                T(a02_two_special_locations_plus_two),
                T(a03_a_beam_replaces_the_ship_plus_one_per_opponent_knocked_at_most_two),
                T(a04_plus_one_per_other_outbound_ship_ignoring_rule_1),
                T(a05_springboard_plus_three_on_a_planet_a_failure_puts_it_back),
                T(decision_a_report_names_locations_of_the_layout_by_id),
                T(decision_teams_by_player_count_dealt_from_the_seed_and_scoring_is_individual),
                T(decision_the_power_deck_off_mixed_or_only_counts_validated),
                T(decision_charge_use_is_an_extra_attempt_and_an_empty_deck_draws_nothing),
                T(decision_outbound_rule_1_costs_one_once_and_the_controller_is_the_owner),
                T(decision_the_original_location_is_after_the_pre_move),
                T(decision_record_tokens_stay_on_the_goal),
                T(decision_a_foul_voids_the_attempt_and_spends_the_card),
                T(decision_ambiguous_card_readings),
                T(decision_solo_challenges_as_data_custom_cards_validated),
                T(decision_impossible_reports_are_refused),
                T(decision_pending_changes_shown_before_end_turn),
                T(decision_the_drawn_card_is_seen_by_its_seat_only),
                T(decision_a_referee_keypad_for_the_frequent_steps),
                T(decision_short_piles_when_the_deck_and_discards_run_out_and_turns_pass),
                T(game_tables_pass_eng_game_check),
                T(slots_agree_with_the_schema),
                T(property_vp_never_negative_cards_conserved_stages_and_every_game_ends),
                T(the_referees_inputs_are_within_their_fields),
                T(replay_equals_live),
                T(perturb_hidden_touches_only_the_hidden_order),
                T(a_void_undoes_a_confirmed_turn),
#undef T
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
