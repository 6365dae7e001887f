/* Crazy Pilot, clause by clause (Z1..Z41, the numbering of the
 * rulebook; docs/games/crazy-pilot.md) and decision by decision (that
 * page's "Decisions"), then the framework's properties: the slots agree
 * with the schema, replay equals live, cards are conserved, a score is the
 * sum of its terms, every game ends, refused inputs change nothing.
 *
 * Tests that need a card of a given kind face up rig the deal before the
 * start (rig(): a card of that answer is swapped into the pile position,
 * and the dealt pile is kept in step, as cz_check requires); they apply
 * inputs straight to the engine.  The replay and property tests play whole
 * simulated matches (cz_sim_match) untouched. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crazy_pilot.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "test_engine_json.h"

#define T0              INT64_C(1000000000)
#define MS              INT64_C(1000)
#define SEAT(s)         (UINT32_C(1) << (s))
#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))

/* ---- A table under test. */

struct match {
        struct cz_state st;
        struct eng_out out;
        struct eng_config cfg;
        uint64_t seq;
        int64_t now;
        bool fixed[CZ_MAX_SEATS][CZ_MAX_PILE];
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

        if (cz_check(&m->st, why, sizeof why) < 0)
                fail_msg("invariant broken: %s", why);
}

static void create_cfg(struct match *m, unsigned n, uint64_t seed) {
        memset(m->fixed, 0, sizeof m->fixed);
        assert_int_equal(cz_game.create(&m->st, &m->cfg, NULL, n, seed), 0);
        m->seq = 0;
        m->now = T0;
        check(m);
}

static void create(struct match *m, unsigned n, uint64_t seed) {
        eng_config_defaults(&cz_game, &m->cfg);
        create_cfg(m, n, seed);
}

/* Applies in (seq and time filled in) and returns the refusal; a refused
 * input must leave the state and its hash as they were. */
static enum eng_refusal apply(struct match *m, struct eng_input *in) {
        static struct cz_state before;
        uint64_t h = cz_game.hash(&m->st);

        before = m->st;
        in->seq = ++m->seq;
        if (in->time_us < m->now)
                in->time_us = m->now;
        assert_int_equal(cz_game.apply(&m->st, in, &m->out), 0);
        if (m->out.refusal != ENG_ACCEPTED) {
                assert_memory_equal(&before, &m->st, sizeof before);
                assert_true(h == cz_game.hash(&m->st));
                m->seq--;
        } else {
                m->now = in->time_us;
        }
        check(m);
        return m->out.refusal;
}

static enum eng_refusal start(struct match *m) {
        struct eng_input in = { .kind = ENG_IN_START, .seat = ENG_SEAT_TABLE, .time_us = m->now };

        return apply(m, &in);
}

static enum eng_refusal press_at(struct match *m, int seat, enum eng_pad_role role, unsigned button, int64_t press_us,
                                 int64_t unc) {
        struct eng_input in = { .kind = ENG_IN_PRESS, .seat = seat, .time_us = press_us > m->now ? press_us : m->now };

        in.press.role = role;
        in.press.button = button;
        in.press.press_us = press_us;
        in.press.uncertainty_us = unc;
        in.press.received_us = in.time_us;
        return apply(m, &in);
}

/* A button press dt after the last input. */
static enum eng_refusal button(struct match *m, int seat, unsigned b, int64_t dt) {
        return press_at(m, seat, ENG_ROLE_BUTTONS, b, m->now + dt, 0);
}

static enum eng_refusal slap(struct match *m, int seat, int64_t dt) {
        return press_at(m, seat, ENG_ROLE_SLAP, 0, m->now + dt, 0);
}

static enum eng_refusal timer_at(struct match *m, int64_t t) {
        struct eng_input in = { .kind = ENG_IN_TIMER, .seat = ENG_SEAT_TABLE, .time_us = t };

        return apply(m, &in);
}

static enum eng_refusal timer(struct match *m) {
        return timer_at(m, m->st.wake_us);
}

static enum eng_refusal action(struct match *m, enum cz_action a, int seat, int64_t arg0, int64_t arg1) {
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = a, .seat = seat, .time_us = m->now + 10 * MS };

        in.arg[0] = arg0;
        in.arg[1] = arg1;
        return apply(m, &in);
}

static const struct eng_output *find_out(const struct match *m, const struct eng_event_def *def, int seat) {
        for (size_t i = 0; i < m->out.n; i++)
                if (m->out.v[i].def == def && (seat == -2 || m->out.v[i].seat == seat))
                        return &m->out.v[i];
        return NULL;
}

static unsigned count_out(const struct match *m, const struct eng_event_def *def) {
        unsigned n = 0;

        for (size_t i = 0; i < m->out.n; i++)
                n += m->out.v[i].def == def;
        return n;
}

static unsigned answer_of(const struct match *m, unsigned card) {
        return m->st.cat.cards[card].answer;
}

static unsigned up(const struct match *m, int s) {
        return m->st.seats[s].pile[m->st.seats[s].pile_pos];
}

/* The placement a card's back calls for (a fork: straight). */
static unsigned right_place(unsigned answer) {
        switch (answer) {
        case CZ_ANS_LEFT:
                return CZ_PLACE_LEFT;
        case CZ_ANS_RIGHT:
                return CZ_PLACE_RIGHT;
        case CZ_ANS_UTURN:
                return CZ_PLACE_UTURN;
        case CZ_ANS_HAND:
                return CZ_PLACE_HAND;
        default:
                return CZ_PLACE_STRAIGHT;
        }
}

static void sync_dealt(struct match *m) {
        unsigned n = m->st.n_seats;

        for (unsigned s = 0; s < n; s++)
                memcpy(m->st.seats[(s + n - 1) % n].dealt, m->st.seats[s].pile, m->st.seats[s].pile_len);
}

/* Before the start: puts a card of answer at position pos of seat's pile,
 * swapping it with one from another unfixed pile position or the box. */
/* answer CZ_N_ANSWERS: any plain card (straight, left, right, u_turn or
 * hand: one right placement, no zombie). */
static bool fits(unsigned have, unsigned answer) {
        return answer == CZ_N_ANSWERS ? have <= CZ_ANS_HAND : have == answer;
}

static void rig(struct match *m, int seat, unsigned pos, unsigned answer) {
        struct cz_state *st = &m->st;
        uint8_t *slot = &st->seats[seat].pile[pos];

        assert_int_equal(st->phase, CZ_PHASE_READY);
        m->fixed[seat][pos] = true;
        if (fits(answer_of(m, *slot), answer))
                return;
        for (unsigned i = 0; i < st->box_len; i++)
                if (fits(answer_of(m, st->box[i]), answer)) {
                        uint8_t t = st->box[i];

                        st->box[i] = *slot;
                        *slot = t;
                        sync_dealt(m);
                        check(m);
                        return;
                }
        for (unsigned s = 0; s < st->n_seats; s++)
                for (unsigned i = 0; i < st->seats[s].pile_len; i++) {
                        uint8_t *o = &st->seats[s].pile[i];

                        if (m->fixed[s][i] || !fits(answer_of(m, *o), answer))
                                continue;
                        {
                                uint8_t t = *o;

                                *o = *slot;
                                *slot = t;
                        }
                        sync_dealt(m);
                        check(m);
                        return;
                }
        fail_msg("no card of answer %u to rig", answer);
}

/* A plain card (no zombie, no fork) at pos. */
static void rig_plain(struct match *m, int seat, unsigned pos) {
        rig(m, seat, pos, CZ_N_ANSWERS);
}

static void rig_zombie(struct match *m, int seat, unsigned pos) {
        rig(m, seat, pos, CZ_ANS_ZOMBIE);
}

/* Resolves seat's face-up card correctly, or (a plain card) wrongly. */
static enum eng_refusal resolve_right(struct match *m, int seat, int64_t dt) {
        return button(m, seat, right_place(answer_of(m, up(m, seat))), dt);
}

static unsigned wrong_place(const struct match *m, int seat) {
        return (right_place(answer_of(m, up(m, seat))) + 1) % CZ_N_RESOLVE;
}

static enum eng_refusal resolve_wrong(struct match *m, int seat, int64_t dt) {
        return button(m, seat, wrong_place(m, seat), dt);
}

static int64_t term(const struct match *m, int seat, enum cz_term t) {
        int64_t terms[CZ_N_TERMS];

        cz_terms(&m->st, seat, terms);
        return terms[t];
}

/* Every seat but the last resolves nothing; seat plays out its pile
 * correctly (shouting at nothing), which reveals its starting card. */
static void play_out(struct match *m, int seat) {
        while (m->st.seats[seat].pile_pos < m->st.seats[seat].pile_len) {
                unsigned a = answer_of(m, up(m, seat));

                if (a == CZ_ANS_ZOMBIE && !m->st.two_player) {
                        assert_int_equal(button(m, seat, CZ_BUTTON_SHOUT, 300 * MS), ENG_ACCEPTED);
                        for (int s = 0; s < m->st.n_seats; s++)
                                if (s != seat && m->st.phase == CZ_PHASE_RACE)
                                        assert_int_equal(slap(m, s, 200 * MS), ENG_ACCEPTED);
                        if (m->st.phase == CZ_PHASE_CHECKED)
                                assert_int_equal(slap(m, seat, 500 * MS), ENG_ACCEPTED);
                } else if (a == CZ_ANS_ZOMBIE) {
                        assert_int_equal(button(m, seat, CZ_BUTTON_SHOUT, 300 * MS), ENG_ACCEPTED);
                } else {
                        assert_int_equal(resolve_right(m, seat, 300 * MS), ENG_ACCEPTED);
                }
        }
}

/* ---- JSON views. */

static struct tj J;

static const char *view_json(const struct match *m, enum eng_audience a, int seat) {
        tj_init(&J);
        assert_int_equal(cz_game.view_visit(&m->st, a, seat, &tj_visitor, &J), 0);
        assert_true(tj_balanced(&J));
        return tj_finish(&J);
}

/* ====================================================================
 * Set-up: Z1..Z7.
 * ==================================================================== */

static void z01_the_situation_cards_are_shuffled_with_the_seed(void **state) {
        static struct cz_state a;

        (void) state;
        create(M, 4, 7);
        a = M->st;
        create(M, 4, 7);
        assert_memory_equal(&a, &M->st, sizeof a);
        create(M, 4, 8);
        assert_memory_not_equal(a.seats[0].pile, M->st.seats[0].pile, 20);
        assert_int_equal(M->st.cat.n, CZ_DEFAULT_CARDS);
}

static void z02_twenty_cards_each_eighteen_with_five_fifteen_with_six(void **state) {
        static const unsigned per[] = { [3] = 20, [4] = 20, [5] = 18, [6] = 15 };

        (void) state;
        for (unsigned n = 3; n <= 6; n++) {
                create(M, n, n);
                for (unsigned s = 0; s < n; s++) {
                        assert_int_equal(M->st.seats[s].dealt_len, per[n]);
                        assert_int_equal(M->st.seats[s].pile_len, per[n]);
                }
                assert_int_equal(cz_cards_per_player(n), per[n]);
        }
        assert_int_equal(cz_cards_per_player(1), 0);
        assert_int_equal(cz_cards_per_player(7), 0);
}

static void z03_unused_cards_return_to_the_box(void **state) {
        (void) state;
        create(M, 5, 3);
        assert_int_equal(M->st.box_len, CZ_DEFAULT_CARDS - 5 * 18);
        create(M, 3, 3);
        assert_int_equal(M->st.box_len, CZ_DEFAULT_CARDS - 3 * 20);
}

static void z04_each_pile_is_face_up_with_its_starting_card_on_top(void **state) {
        (void) state;
        create(M, 3, 4);
        /* Before the start the starting card hides the pile: no card shows. */
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, 0), "\"card\":null"));
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"pile_left\":20"));
        assert_int_equal(cz_game.status(&M->st), ENG_STATUS_READY);
}

static void z05_each_seat_plays_the_pile_dealt_for_the_seat_on_its_right(void **state) {
        (void) state;
        for (unsigned n = 2; n <= 6; n++) {
                create(M, n, 100 + n);
                for (unsigned s = 0; s < n; s++) {
                        const struct cz_seat *from = &M->st.seats[(s + n - 1) % n];

                        assert_int_equal(M->st.seats[s].pile_len, from->dealt_len);
                        assert_memory_equal(M->st.seats[s].pile, from->dealt, from->dealt_len);
                }
                /* Both are kept: the dealt piles differ from the played ones. */
                assert_memory_not_equal(M->st.seats[0].pile, M->st.seats[0].dealt, 10);
        }
}

static void z06_a_car_card_each_with_its_stacks_around_it(void **state) {
        const char *v;

        (void) state;
        create(M, 4, 5);
        v = view_json(M, ENG_VIEW_PUBLIC, -1);
        assert_non_null(strstr(v, "\"stacks\":{\"straight\":0,\"left\":0,\"right\":0,\"u_turn\":0,\"hand\":0,"
                                  "\"under_car\":0,\"set_aside\":0}"));
}

static void z07_penalty_cards_and_the_finish_card_in_the_middle(void **state) {
        const char *v;

        (void) state;
        create(M, 4, 6);
        v = view_json(M, ENG_VIEW_PUBLIC, -1);
        assert_non_null(strstr(v, "\"finish_seats\":[]"));
        assert_null(strstr(v, "\"finish_card\":true"));
        assert_null(strstr(v, "\"penalties\":1"));
}

/* ====================================================================
 * Play: Z8..Z13.
 * ==================================================================== */

static void z08_one_starting_signal_for_the_table(void **state) {
        (void) state;
        create(M, 3, 8);
        assert_int_equal(button(M, 0, 0, MS), ENG_REFUSED_STATE);
        assert_int_equal(start(M), ENG_ACCEPTED);
        assert_non_null(find_out(M, &eng_ev_match_started, ENG_SEAT_TABLE));
        assert_int_equal(start(M), ENG_REFUSED_STATE);
}

static void z09_the_starting_card_goes_under_so_the_first_situation_card_is_face_up(void **state) {
        (void) state;
        create(M, 4, 9);
        assert_int_equal(start(M), ENG_ACCEPTED);
        assert_int_equal(count_out(M, &cz_ev_card_shown), 4);
        for (int s = 0; s < 4; s++) {
                const struct eng_output *o = find_out(M, &cz_ev_card_shown, s);

                assert_non_null(o);
                assert_int_equal(o->v[CZ_SHOWN_NUMBER], 1);
                assert_int_equal(o->v[CZ_SHOWN_CARD], cz_handle(&M->st, M->st.seats[s].pile[0]));
        }
}

static void z10_a_card_must_be_resolved_before_the_next(void **state) {
        int64_t shown;

        (void) state;
        create(M, 3, 10);
        rig_plain(M, 0, 0);
        rig_plain(M, 0, 1);
        start(M);
        assert_int_equal(resolve_right(M, 0, 500 * MS), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[0].pile_pos, 1);
        shown = M->st.seats[0].shown_us;
        /* A second press made before the next card came up was meant for the
         * card just resolved: it cannot resolve the next one. */
        assert_int_equal(press_at(M, 0, ENG_ROLE_BUTTONS, 0, shown - 1, 0), ENG_REFUSED_TOO_LATE);
        assert_int_equal(M->st.seats[0].pile_pos, 1);
}

static void z11_everyone_plays_at_once(void **state) {
        (void) state;
        create(M, 4, 11);
        for (int s = 0; s < 4; s++)
                rig_plain(M, s, 0);
        start(M);
        for (int s = 0; s < 4; s++)
                assert_int_equal(resolve_right(M, s, 10 * MS), ENG_ACCEPTED);
        for (int s = 0; s < 4; s++)
                assert_int_equal(M->st.seats[s].pile_pos, 1);
        assert_int_equal(cz_game.game_pause(&M->st), NULL);
}

static void z12_five_placements_around_the_car_and_under_the_pile(void **state) {
        (void) state;
        create(M, 3, 12);
        start(M);
        for (unsigned b = 0; b < CZ_N_RESOLVE; b++) {
                unsigned card = up(M, 1);

                if (answer_of(M, card) == CZ_ANS_ZOMBIE) {
                        b--;
                        assert_int_equal(action(M, CZ_ACTION_RESOLVE, 1, CZ_PLACE_HAND, 0), ENG_ACCEPTED);
                        continue;
                }
                assert_int_equal(button(M, 1, b, 100 * MS), ENG_ACCEPTED);
                assert_int_equal(find_out(M, &cz_ev_card_resolved, 1)->v[CZ_RESOLVED_PLACEMENT], b);
                assert_int_equal(M->st.seats[1].zone[b][M->st.seats[1].zone_len[b] - 1], card);
        }
        assert_int_equal(press_at(M, 1, ENG_ROLE_BUTTONS, 6, M->now, 0), ENG_REFUSED_INVALID);
        assert_int_equal(action(M, CZ_ACTION_RESOLVE, 1, CZ_PLACE_UNDER_CAR, 0), ENG_REFUSED_INVALID);
}

static void z13_a_hand_card_goes_under_the_starting_card_and_never_comes_back(void **state) {
        (void) state;
        /* Whatever the cards are, the hand button puts each under the pile. */
        create(M, 3, 13);
        start(M);
        for (unsigned i = 0; i < 20; i++)
                assert_int_equal(button(M, 0, CZ_PLACE_HAND, 100 * MS), ENG_ACCEPTED);
        /* Twenty cards under the pile, and the starting card shows. */
        assert_int_equal(M->st.seats[0].zone_len[CZ_PLACE_HAND], 20);
        assert_non_null(find_out(M, &cz_ev_starting_card_revealed, 0));
        assert_int_equal(M->st.phase, CZ_PHASE_ENDING);
}

/* ====================================================================
 * Zombies: Z14..Z22.
 * ==================================================================== */

/* Seat 0 shouts at a rigged card (zombie or not); 4 seats. */
static void shout_setup(struct match *m, bool zombie) {
        create(m, 4, 14);
        if (zombie)
                rig_zombie(m, 0, 0);
        else
                rig_plain(m, 0, 0);
        for (int s = 1; s < 4; s++)
                rig_plain(m, s, 0);
        rig_plain(m, 0, 1);
        start(m);
}

static void z14_a_shout_is_the_zombie_button_and_starts_the_race(void **state) {
        const struct eng_output *o;

        (void) state;
        shout_setup(M, true);
        assert_int_equal(button(M, 0, CZ_BUTTON_SHOUT, 400 * MS), ENG_ACCEPTED);
        o = find_out(M, &cz_ev_zombie_called, 0);
        assert_non_null(o);
        assert_int_equal(o->v[CZ_CALLED_SEATS], SEAT(0));
        assert_int_equal(o->v[CZ_CALLED_RACERS], SEAT(1) | SEAT(2) | SEAT(3));
        assert_int_equal(o->v[CZ_CALLED_DEADLINE], M->now + CZ_DEADLINE_DEFAULT_MS * MS);
        assert_int_equal(M->st.phase, CZ_PHASE_RACE);
}

static void z15_the_whole_table_pauses(void **state) {
        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        assert_string_equal(cz_game.game_pause(&M->st), "zombie");
        assert_int_equal(cz_game.status(&M->st), ENG_STATUS_RUNNING);
        assert_int_equal(button(M, 1, 0, 100 * MS), ENG_REFUSED_TOO_LATE);
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, 1), "\"may_resolve\":false"));
}

static void z16_every_other_player_must_slap(void **state) {
        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        for (int s = 1; s < 4; s++)
                assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, s), "\"must_slap\":true"));
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, 0), "\"must_slap\":false"));
        assert_int_equal(slap(M, 0, 100 * MS), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(slap(M, 1, 100 * MS), ENG_ACCEPTED);
        assert_int_equal(slap(M, 1, 100 * MS), ENG_REFUSED_NOT_ALLOWED);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"waiting_seats\":[2,3]"));
}

static void race_all_slap(struct match *m) {
        for (int s = 1; s < 4; s++)
                assert_int_equal(slap(m, s, 200 * MS), ENG_ACCEPTED);
}

static void z17_a_real_zombie_goes_under_the_car_for_a_point(void **state) {
        unsigned card;

        (void) state;
        shout_setup(M, true);
        card = up(M, 0);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(M->st.phase, CZ_PHASE_CHECKED);
        assert_int_equal(find_out(M, &cz_ev_zombie_checked, 0)->v[CZ_CHECKED_ZOMBIE], 1);
        assert_int_equal(find_out(M, &cz_ev_zombie_checked, 0)->v[CZ_CHECKED_PLACEMENT], CZ_PLACE_UNDER_CAR);
        assert_int_equal(M->st.seats[0].zone[CZ_PLACE_UNDER_CAR][0], card);
        assert_int_equal(term(M, 0, CZ_TERM_CORRECT), 1);
}

static void z18_no_zombie_is_set_aside_for_minus_one(void **state) {
        (void) state;
        shout_setup(M, false);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(find_out(M, &cz_ev_zombie_checked, 0)->v[CZ_CHECKED_ZOMBIE], 0);
        assert_int_equal(M->st.seats[0].zone_len[CZ_PLACE_SET_ASIDE], 1);
        assert_int_equal(term(M, 0, CZ_TERM_SET_ASIDE), -1);
        assert_int_equal(term(M, 0, CZ_TERM_CORRECT), 0);
}

static void z19_only_with_a_zombie_the_last_slapper_takes_a_penalty(void **state) {
        (void) state;
        shout_setup(M, false);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(count_out(M, &cz_ev_penalty_given), 0);
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(count_out(M, &cz_ev_penalty_given), 1);
        assert_int_equal(find_out(M, &cz_ev_penalty_given, 3)->v[CZ_PENALTY_REASON], CZ_REASON_LAST_SLAP);
        assert_int_equal(M->st.seats[3].penalties, 1);
        assert_int_equal(term(M, 3, CZ_TERM_PENALTIES), -1);
}

static void z20_the_interrupter_resumes_play_when_they_see_fit(void **state) {
        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, 0), "\"may_drive\":true"));
        assert_int_equal(slap(M, 1, 3000 * MS), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(button(M, 1, 0, 10 * MS), ENG_REFUSED_TOO_LATE);
        assert_int_equal(slap(M, 0, 3000 * MS), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_play_resumed, 0)->v[CZ_RESUMED_BY], CZ_BY_SHOUTER);
        assert_int_equal(M->st.phase, CZ_PHASE_PLAYING);
        assert_null(cz_game.game_pause(&M->st));
        assert_int_equal(button(M, 1, 0, 300 * MS), ENG_ACCEPTED);
}

static void z21_several_shouts_at_the_same_time_check_every_card(void **state) {
        (void) state;
        create(M, 4, 21);
        rig_zombie(M, 0, 0);
        rig_plain(M, 1, 0);
        start(M);
        assert_int_equal(button(M, 0, CZ_BUTTON_SHOUT, 400 * MS), ENG_ACCEPTED);
        assert_int_equal(button(M, 1, CZ_BUTTON_SHOUT, 50 * MS), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_zombie_called, 1)->v[CZ_CALLED_SEATS], SEAT(0) | SEAT(1));
        assert_int_equal(M->st.race.racers, SEAT(2) | SEAT(3));
        slap(M, 2, 200 * MS);
        slap(M, 3, 100 * MS);
        assert_int_equal(count_out(M, &cz_ev_zombie_checked), 2);
        assert_int_equal(M->st.seats[0].zone_len[CZ_PLACE_UNDER_CAR], 1);
        assert_int_equal(M->st.seats[1].zone_len[CZ_PLACE_SET_ASIDE], 1);
}

static void z22_a_zombie_among_the_shouted_cards_gives_one_penalty_to_the_last(void **state) {
        (void) state;
        create(M, 5, 22);
        rig_plain(M, 0, 0);
        rig_zombie(M, 1, 0);
        rig_plain(M, 2, 0);
        start(M);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        button(M, 1, CZ_BUTTON_SHOUT, 30 * MS);
        button(M, 2, CZ_BUTTON_SHOUT, 30 * MS);
        slap(M, 4, 200 * MS);
        slap(M, 3, 100 * MS);
        assert_int_equal(count_out(M, &cz_ev_penalty_given), 1);
        assert_non_null(find_out(M, &cz_ev_penalty_given, 3));
        assert_int_equal(M->st.seats[0].zone_len[CZ_PLACE_SET_ASIDE] + M->st.seats[2].zone_len[CZ_PLACE_SET_ASIDE], 2);
}

/* ====================================================================
 * End: Z23..Z26.
 * ==================================================================== */

static void z23_the_game_ends_when_a_player_reveals_their_starting_card(void **state) {
        (void) state;
        create(M, 3, 23);
        start(M);
        play_out(M, 2);
        assert_int_equal(M->st.phase, CZ_PHASE_ENDING);
        assert_int_equal(find_out(M, &cz_ev_starting_card_revealed, 2)->v[CZ_REVEALED_PRESS], M->now);
        assert_int_equal(M->st.wake_us, M->now + CZ_GRACE_DEFAULT_MS * MS);
        assert_int_equal(timer(M), ENG_ACCEPTED);
        assert_int_equal(cz_game.status(&M->st), ENG_STATUS_FINISHED);
}

static void z24_that_player_takes_the_finish_card(void **state) {
        (void) state;
        create(M, 3, 24);
        start(M);
        play_out(M, 1);
        timer(M);
        assert_true(M->st.seats[1].finish);
        assert_false(M->st.seats[0].finish);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"finish_seats\":[1]"));
}

static void z25_everyone_stops_at_once(void **state) {
        (void) state;
        create(M, 3, 25);
        start(M);
        play_out(M, 0);
        /* A press after the starting card is refused; the match is over at
         * the timer and every input after it too. */
        assert_int_equal(button(M, 1, 0, 50 * MS), ENG_REFUSED_TOO_LATE);
        assert_int_equal(button(M, 1, CZ_BUTTON_SHOUT, 50 * MS), ENG_REFUSED_STATE);
        timer(M);
        assert_int_equal(button(M, 1, 0, 50 * MS), ENG_REFUSED_FINISHED);
}

static void z26_unresolved_cards_are_discarded(void **state) {
        (void) state;
        create(M, 3, 26);
        start(M);
        play_out(M, 0);
        timer(M);
        assert_int_equal(M->st.seats[1].zone_len[CZ_PLACE_DISCARD], 20);
        assert_int_equal(M->st.seats[1].pile_pos, M->st.seats[1].pile_len);
        assert_int_equal(term(M, 1, CZ_TERM_WRONG) + term(M, 1, CZ_TERM_CORRECT), 0);
}

/* ====================================================================
 * Scoring: Z27..Z35.
 * ==================================================================== */

static void z27_each_stack_is_checked_against_the_icon_on_each_back(void **state) {
        for (unsigned a = 0; a < CZ_N_ANSWERS; a++)
                for (unsigned z = 0; z < CZ_N_ZONES; z++) {
                        bool want = (a == CZ_ANS_STRAIGHT && z == CZ_PLACE_STRAIGHT) ||
                                    (a == CZ_ANS_LEFT && z == CZ_PLACE_LEFT) ||
                                    (a == CZ_ANS_RIGHT && z == CZ_PLACE_RIGHT) ||
                                    (a == CZ_ANS_UTURN && z == CZ_PLACE_UTURN) ||
                                    (a == CZ_ANS_HAND && z == CZ_PLACE_HAND) ||
                                    (a == CZ_ANS_ZOMBIE && z == CZ_PLACE_UNDER_CAR) ||
                                    (a == CZ_ANS_FORK_LEFT && (z == CZ_PLACE_STRAIGHT || z == CZ_PLACE_LEFT)) ||
                                    (a == CZ_ANS_FORK_RIGHT && (z == CZ_PLACE_STRAIGHT || z == CZ_PLACE_RIGHT));

                        assert_int_equal(cz_stack_accepts(z, a, CZ_FORK_MATCHING), want);
                }
        (void) state;
}

static void z28_fork_cards_go_straight_or_on_a_turn_stack_by_the_setting(void **state) {
        (void) state;
        assert_true(cz_stack_accepts(CZ_PLACE_STRAIGHT, CZ_ANS_FORK_LEFT, CZ_FORK_MATCHING));
        assert_true(cz_stack_accepts(CZ_PLACE_LEFT, CZ_ANS_FORK_LEFT, CZ_FORK_MATCHING));
        assert_false(cz_stack_accepts(CZ_PLACE_RIGHT, CZ_ANS_FORK_LEFT, CZ_FORK_MATCHING));
        assert_true(cz_stack_accepts(CZ_PLACE_RIGHT, CZ_ANS_FORK_LEFT, CZ_FORK_EITHER));
        assert_true(cz_stack_accepts(CZ_PLACE_LEFT, CZ_ANS_FORK_RIGHT, CZ_FORK_EITHER));
        assert_false(cz_stack_accepts(CZ_PLACE_UTURN, CZ_ANS_FORK_RIGHT, CZ_FORK_EITHER));
        /* Through the engine, with each setting. */
        for (unsigned fork = CZ_FORK_MATCHING; fork <= CZ_FORK_EITHER; fork++) {
                eng_config_defaults(&cz_game, &M->cfg);
                M->cfg.v[CZ_SLOT_FORK_TURNS] = fork;
                create_cfg(M, 3, 28);
                rig(M, 0, 0, CZ_ANS_FORK_LEFT);
                start(M);
                button(M, 0, CZ_PLACE_RIGHT, 300 * MS);
                assert_int_equal(term(M, 0, CZ_TERM_CORRECT), fork == CZ_FORK_EITHER);
                assert_int_equal(term(M, 0, CZ_TERM_WRONG), -(fork == CZ_FORK_MATCHING));
        }
}

static void z29_to_z33_terms(struct match *m) {
        create(m, 3, 29);
        rig_plain(m, 0, 0);
        rig_plain(m, 0, 1);
        rig_plain(m, 0, 2);
        rig_zombie(m, 1, 0);
        start(m);
        resolve_right(m, 0, 300 * MS);                  /* correct */
        resolve_wrong(m, 0, 300 * MS);                  /* wrong */
        button(m, 0, CZ_BUTTON_SHOUT, 300 * MS);        /* set aside */
        slap(m, 1, 200 * MS);
        slap(m, 2, 200 * MS);
        slap(m, 0, 200 * MS);
        button(m, 1, CZ_BUTTON_SHOUT, 300 * MS);        /* a zombie: seat 0 slaps last */
        slap(m, 2, 200 * MS);
        slap(m, 0, 200 * MS);
}

static void z29_plus_one_per_card_assessed_correctly(void **state) {
        (void) state;
        z29_to_z33_terms(M);
        assert_int_equal(term(M, 0, CZ_TERM_CORRECT), 1);
        assert_int_equal(term(M, 1, CZ_TERM_CORRECT), 1);
}

static void z30_plus_two_for_the_finish_card(void **state) {
        (void) state;
        create(M, 3, 30);
        start(M);
        play_out(M, 0);
        assert_int_equal(term(M, 0, CZ_TERM_FINISH), 2);
        assert_int_equal(term(M, 1, CZ_TERM_FINISH), 0);
}

static void z31_minus_one_per_card_assessed_wrongly(void **state) {
        (void) state;
        z29_to_z33_terms(M);
        assert_int_equal(term(M, 0, CZ_TERM_WRONG), -1);
}

static void z32_minus_one_per_penalty_card(void **state) {
        (void) state;
        z29_to_z33_terms(M);
        assert_int_equal(term(M, 0, CZ_TERM_PENALTIES), -1);
        assert_int_equal(term(M, 2, CZ_TERM_PENALTIES), 0);
}

static void z33_minus_one_per_card_set_aside(void **state) {
        (void) state;
        z29_to_z33_terms(M);
        assert_int_equal(term(M, 0, CZ_TERM_SET_ASIDE), -1);
        assert_int_equal(term(M, 1, CZ_TERM_SET_ASIDE), 0);
}

static void z34_the_most_points_wins(void **state) {
        struct eng_result res;

        (void) state;
        create(M, 3, 34);
        start(M);
        for (int i = 0; i < 5; i++) {
                unsigned a = answer_of(M, up(M, 1));

                if (a == CZ_ANS_ZOMBIE)
                        break;
                resolve_right(M, 1, 200 * MS);
        }
        play_out(M, 0);
        timer(M);
        assert_int_equal(cz_game.result(&M->st, &res), 0);
        assert_true(res.finished);
        assert_int_equal(res.winner, 0);
        assert_int_equal(res.place[0], 1);
        assert_true(res.score[0] > res.score[1] && res.score[1] > res.score[2]);
        assert_int_equal(res.place[2], 3);
}

static void z35_a_tie_is_won_by_the_finish_card_holder_otherwise_shared(void **state) {
        struct eng_result res;

        (void) state;
        create(M, 3, 35);
        for (unsigned i = 0; i < 20; i++)
                rig_plain(M, 0, i);
        rig_plain(M, 1, 0);
        rig_plain(M, 1, 1);
        start(M);
        /* Seat 0: 18 right, 2 wrong, the finish card: 18 − 2 + 2 = 18.  Seat
         * 1 cannot reach that; seats 1 and 2 tie at 0 and share. */
        for (unsigned i = 0; i < 20; i++)
                (i < 2 ? resolve_wrong : resolve_right)(M, 0, 200 * MS);
        timer(M);
        cz_game.result(&M->st, &res);
        assert_int_equal(res.score[0], 18);
        assert_int_equal(res.place[1], 2);
        assert_int_equal(res.place[2], 2);
        /* A tie at the top: the finish card holder wins. */
        create(M, 3, 36);
        for (unsigned i = 0; i < 20; i++)
                rig_plain(M, 0, i);
        for (unsigned i = 0; i < 4; i++)
                rig_plain(M, 1, i);
        start(M);
        for (unsigned i = 0; i < 4; i++)
                resolve_right(M, 1, 100 * MS);                  /* 4 */
        for (unsigned i = 0; i < 20; i++)
                (i < 9 ? resolve_wrong : resolve_right)(M, 0, 100 * MS);   /* 11 − 9 + 2 = 4 */
        timer(M);
        cz_game.result(&M->st, &res);
        assert_int_equal(res.score[0], 4);
        assert_int_equal(res.score[1], 4);
        assert_int_equal(res.place[0], 1);
        assert_int_equal(res.place[1], 2);
        assert_int_equal(res.winner, 0);
}

/* ====================================================================
 * Two players: Z36..Z41.
 * ==================================================================== */

static unsigned zombies_in(const struct match *m, const uint8_t *cards, unsigned n) {
        unsigned z = 0;

        for (unsigned i = 0; i < n; i++)
                z += m->st.cat.cards[cards[i]].zombie;
        return z;
}

static void z36_two_players_remove_the_zombie_cards(void **state) {
        (void) state;
        create(M, 2, 36);
        assert_true(M->st.two_player);
        /* Every zombie card not added back is in the box. */
        assert_int_equal(zombies_in(M, M->st.box, M->st.box_len), 14 - 2 * CZ_TWO_PLAYER_ZOMBIES);
}

static void z37_two_players_twenty_each(void **state) {
        (void) state;
        create(M, 2, 37);
        for (int s = 0; s < 2; s++)
                assert_int_equal(M->st.seats[s].dealt_len - zombies_in(M, M->st.seats[s].dealt, 23), 20);
}

static void z38_three_zombie_cards_shuffled_into_each_pile_chosen_by_the_seed(void **state) {
        uint8_t first[CZ_MAX_PILE];

        (void) state;
        create(M, 2, 38);
        for (int s = 0; s < 2; s++) {
                assert_int_equal(M->st.seats[s].dealt_len, 23);
                assert_int_equal(zombies_in(M, M->st.seats[s].dealt, 23), 3);
        }
        memcpy(first, M->st.seats[0].dealt, 23);
        create(M, 2, 38);
        assert_memory_equal(first, M->st.seats[0].dealt, 23);
        create(M, 2, 39);
        assert_memory_not_equal(first, M->st.seats[0].dealt, 23);
}

static void z39_a_shout_sends_the_card_in_front_of_the_opponent_bluffs_allowed(void **state) {
        unsigned card;

        (void) state;
        create(M, 2, 39);
        rig_plain(M, 0, 0);
        start(M);
        card = up(M, 0);
        assert_int_equal(button(M, 0, CZ_BUTTON_SHOUT, 300 * MS), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_card_sent, 0)->v[CZ_SENT_TO_SEAT], 1);
        assert_int_equal(M->st.seats[1].zone[CZ_PLACE_FRONT][0], card);
        /* No race: play goes on. */
        assert_int_equal(M->st.phase, CZ_PHASE_PLAYING);
        assert_null(cz_game.game_pause(&M->st));
        assert_non_null(find_out(M, &cz_ev_card_shown, 0));
        /* The receiver sees its face; the public only a handle. */
        assert_non_null(strstr(view_json(M, ENG_VIEW_SEAT, 1), M->st.cat.cards[card].text));
        assert_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), M->st.cat.cards[card].text));
}

static void z40_the_opponent_may_cover_it_with_a_penalty_card_once(void **state) {
        uint32_t h;

        (void) state;
        create(M, 2, 40);
        rig_zombie(M, 0, 0);
        start(M);
        h = cz_handle(&M->st, up(M, 0));
        button(M, 0, CZ_BUTTON_SHOUT, 300 * MS);
        assert_int_equal(action(M, CZ_ACTION_COVER, 0, h, 0), ENG_REFUSED_INVALID);     /* not in front of 0 */
        assert_int_equal(action(M, CZ_ACTION_COVER, 1, h, 0), ENG_ACCEPTED);
        assert_non_null(find_out(M, &cz_ev_card_covered, 1));
        assert_int_equal(action(M, CZ_ACTION_COVER, 1, h, 0), ENG_REFUSED_STATE);       /* final */
        assert_int_equal(M->st.seats[1].penalties, 0);  /* a cover is scored by Z41 alone */
}

static void z41_the_four_end_of_game_cases(void **state) {
        (void) state;
        /* Seat 0 sends four cards: a zombie kept, a zombie covered, a bluff
         * covered, a bluff kept. */
        create(M, 2, 41);
        rig_zombie(M, 0, 0);
        rig_zombie(M, 0, 1);
        rig_plain(M, 0, 2);
        rig_plain(M, 0, 3);
        start(M);
        for (int i = 0; i < 4; i++)
                assert_int_equal(button(M, 0, CZ_BUTTON_SHOUT, 300 * MS), ENG_ACCEPTED);
        action(M, CZ_ACTION_COVER, 1, cz_handle(&M->st, M->st.seats[1].zone[CZ_PLACE_FRONT][1]), 0);
        action(M, CZ_ACTION_COVER, 1, cz_handle(&M->st, M->st.seats[1].zone[CZ_PLACE_FRONT][2]), 0);
        /* zombie kept −1; zombie covered 0; bluff covered −1; bluff kept: −1
         * to the sender. */
        assert_int_equal(term(M, 1, CZ_TERM_FRONT), -2);
        assert_int_equal(term(M, 0, CZ_TERM_BLUFFS), -1);
        assert_int_equal(term(M, 1, CZ_TERM_BLUFFS), 0);
        assert_int_equal(term(M, 0, CZ_TERM_FRONT), 0);
        assert_int_equal(term(M, 1, CZ_TERM_PENALTIES), 0);
}

/* ====================================================================
 * Decisions where the rulebook is silent.
 * ==================================================================== */

static void decision_a_zombie_card_belongs_under_the_car_only(void **state) {
        (void) state;
        for (unsigned z = 0; z < CZ_N_ZONES; z++)
                assert_int_equal(cz_stack_accepts(z, CZ_ANS_ZOMBIE, CZ_FORK_EITHER), z == CZ_PLACE_UNDER_CAR);
        create(M, 3, 50);
        rig_zombie(M, 0, 0);
        start(M);
        button(M, 0, CZ_PLACE_STRAIGHT, 300 * MS);
        assert_int_equal(term(M, 0, CZ_TERM_WRONG), -1);
}

static void decision_racers_are_every_player_who_did_not_shout(void **state) {
        (void) state;
        create(M, 6, 51);
        rig_zombie(M, 2, 0);
        start(M);
        button(M, 2, CZ_BUTTON_SHOUT, 300 * MS);
        assert_int_equal(M->st.race.racers, 0x3f & ~SEAT(2));
}

static void decision_a_racer_missing_the_deadline_counts_as_last_each_taking_a_penalty(void **state) {
        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        slap(M, 1, 200 * MS);
        assert_int_equal(M->st.wake_us, M->st.race.deadline_us);
        assert_int_equal(timer_at(M, M->st.wake_us - 1), ENG_REFUSED_NOT_DUE);
        /* A slap pressed after the deadline counts as none. */
        assert_int_equal(press_at(M, 2, ENG_ROLE_SLAP, 0, M->st.race.deadline_us + 1, 0), ENG_REFUSED_TOO_LATE);
        assert_int_equal(timer(M), ENG_ACCEPTED);
        assert_int_equal(count_out(M, &cz_ev_penalty_given), 2);
        assert_int_equal(find_out(M, &cz_ev_penalty_given, 2)->v[CZ_PENALTY_REASON], CZ_REASON_NO_SLAP);
        assert_int_equal(find_out(M, &cz_ev_penalty_given, 3)->v[CZ_PENALTY_REASON], CZ_REASON_NO_SLAP);
        assert_null(find_out(M, &cz_ev_penalty_given, 1));
        /* A slap pressed by the deadline and handed over just after it still counts. */
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        slap(M, 1, 200 * MS);
        slap(M, 2, 200 * MS);
        {
                struct eng_input in = { .kind = ENG_IN_PRESS, .seat = 3, .time_us = M->st.race.deadline_us + 10 * MS };

                in.press.role = ENG_ROLE_SLAP;
                in.press.press_us = M->st.race.deadline_us;
                assert_int_equal(apply(M, &in), ENG_ACCEPTED);
        }
        assert_non_null(find_out(M, &cz_ev_penalty_given, 3));
        assert_int_equal(find_out(M, &cz_ev_penalty_given, 3)->v[CZ_PENALTY_REASON], CZ_REASON_LAST_SLAP);
}

static void decision_last_is_decided_on_press_times_and_indistinguishable_slaps_both_count(void **state) {
        int64_t t;

        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        t = M->now;
        /* Arrival order 3, 1, 2 — but by press time seat 3 is last. */
        assert_int_equal(press_at(M, 1, ENG_ROLE_SLAP, 0, t + 200 * MS, 100), ENG_ACCEPTED);
        assert_int_equal(press_at(M, 2, ENG_ROLE_SLAP, 0, t + 250 * MS, 100), ENG_ACCEPTED);
        assert_int_equal(press_at(M, 3, ENG_ROLE_SLAP, 0, t + 250 * MS + 150, 100), ENG_ACCEPTED);
        /* 150 µs apart with ±100 µs each: cannot be told apart, both last. */
        assert_int_equal(count_out(M, &cz_ev_penalty_given), 2);
        assert_non_null(find_out(M, &cz_ev_penalty_given, 2));
        assert_non_null(find_out(M, &cz_ev_penalty_given, 3));
        assert_int_equal(find_out(M, &cz_ev_slap_recorded, 3)->v[CZ_SLAP_GAP], 150);
        /* 250 µs apart: only the later. */
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        t = M->now;
        press_at(M, 3, ENG_ROLE_SLAP, 0, t + 200 * MS, 100);
        press_at(M, 2, ENG_ROLE_SLAP, 0, t + 250 * MS, 100);
        press_at(M, 1, ENG_ROLE_SLAP, 0, t + 250 * MS + 250, 100);
        assert_int_equal(count_out(M, &cz_ev_penalty_given), 1);
        assert_non_null(find_out(M, &cz_ev_penalty_given, 1));
}

static void decision_shouts_within_the_grace_are_simultaneous(void **state) {
        (void) state;
        create(M, 4, 53);
        rig_zombie(M, 0, 0);
        rig_zombie(M, 1, 0);
        rig_zombie(M, 2, 0);
        start(M);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        assert_int_equal(press_at(M, 1, ENG_ROLE_BUTTONS, CZ_BUTTON_SHOUT, M->st.race.shout_us + 100 * MS, 0),
                         ENG_ACCEPTED);
        assert_int_equal(press_at(M, 2, ENG_ROLE_BUTTONS, CZ_BUTTON_SHOUT, M->st.race.shout_us + 100 * MS + 1, 0),
                         ENG_REFUSED_TOO_LATE);
        assert_int_equal(M->st.race.shouters, SEAT(0) | SEAT(1));
}

static void decision_a_resolution_pressed_before_the_shout_stands_after_is_refused(void **state) {
        int64_t shout;

        (void) state;
        create(M, 4, 54);
        rig_zombie(M, 0, 0);
        rig_plain(M, 1, 0);
        rig_plain(M, 2, 0);
        start(M);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        shout = M->st.race.shout_us;
        /* Pressed 1 ms before the shout, handed over after it: it stands. */
        assert_int_equal(press_at(M, 1, ENG_ROLE_BUTTONS, 0, shout - MS, 0), ENG_ACCEPTED);
        assert_int_equal(M->st.seats[1].zone_len[CZ_PLACE_STRAIGHT], 1);
        /* Pressed at the shout or after: refused (too late), nothing moves. */
        assert_int_equal(press_at(M, 2, ENG_ROLE_BUTTONS, 0, shout, 0), ENG_REFUSED_TOO_LATE);
        assert_int_equal(M->st.seats[2].pile_pos, 0);
}

static void decision_a_table_may_read_a_slap_outside_a_race_as_a_shout(void **state) {
        (void) state;
        create(M, 3, 55);
        rig_zombie(M, 0, 0);
        start(M);
        assert_int_equal(slap(M, 0, 300 * MS), ENG_REFUSED_STATE);
        eng_config_defaults(&cz_game, &M->cfg);
        M->cfg.v[CZ_SLOT_SLAP_SHOUTS] = 1;
        create_cfg(M, 3, 55);
        rig_zombie(M, 0, 0);
        start(M);
        assert_int_equal(slap(M, 0, 300 * MS), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, CZ_PHASE_RACE);
        assert_non_null(find_out(M, &cz_ev_zombie_called, 0));
}

static void decision_resume_by_drive_by_a_referee_or_by_itself(void **state) {
        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(action(M, CZ_ACTION_DRIVE, 2, 0, 0), ENG_REFUSED_NOT_ALLOWED);
        assert_int_equal(action(M, CZ_ACTION_DRIVE, ENG_SEAT_TABLE, 0, 0), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_play_resumed, ENG_SEAT_TABLE)->v[CZ_RESUMED_BY], CZ_BY_REFEREE);
        assert_int_equal(action(M, CZ_ACTION_DRIVE, ENG_SEAT_TABLE, 0, 0), ENG_REFUSED_STATE);
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(M->st.wake_us, M->now + CZ_RESUME_DEFAULT_MS * MS);
        assert_int_equal(timer(M), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_play_resumed, ENG_SEAT_TABLE)->v[CZ_RESUMED_BY], CZ_BY_TIMEOUT);
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        race_all_slap(M);
        assert_int_equal(action(M, CZ_ACTION_DRIVE, 0, 0, 0), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_play_resumed, 0)->v[CZ_RESUMED_BY], CZ_BY_SHOUTER);
}

/* Seats 0 and 1 hold one card each to the end. */
static void two_finishers(struct match *m, int64_t gap, int64_t unc) {
        create(m, 3, 57);
        for (unsigned i = 0; i < 20; i++) {
                rig_plain(m, 0, i);
                rig_plain(m, 1, i);
        }
        start(m);
        for (unsigned i = 0; i < 19; i++) {
                resolve_right(m, 0, 10 * MS);
                resolve_right(m, 1, 10 * MS);
        }
        {
                int64_t t = m->now + 500 * MS;

                assert_int_equal(press_at(m, 0, ENG_ROLE_BUTTONS, right_place(answer_of(m, up(m, 0))), t, unc),
                                 ENG_ACCEPTED);
                assert_int_equal(press_at(m, 1, ENG_ROLE_BUTTONS, right_place(answer_of(m, up(m, 1))), t + gap, unc),
                                 gap - unc > unc ? ENG_REFUSED_TOO_LATE : ENG_ACCEPTED);
        }
        assert_int_equal(timer(m), ENG_ACCEPTED);
}

static void decision_two_starting_cards_that_cannot_be_told_apart_share_the_finish(void **state) {
        struct eng_result res;

        (void) state;
        two_finishers(M, 150, 100);
        assert_true(M->st.seats[0].finish && M->st.seats[1].finish);
        cz_game.result(&M->st, &res);
        assert_int_equal(res.terms[0][CZ_TERM_FINISH], 2);
        assert_int_equal(res.terms[1][CZ_TERM_FINISH], 2);
        assert_int_equal(res.place[0], 1);
        assert_int_equal(res.place[1], 1);
        assert_int_equal(res.winner, ENG_SEAT_TABLE);
}

static void decision_two_starting_cards_apart_the_earlier_press_takes_it(void **state) {
        (void) state;
        /* Within the uncertainties of the end, but told apart from it. */
        two_finishers(M, 150, 60);
        assert_true(M->st.seats[0].finish);
        assert_false(M->st.seats[1].finish);
        /* A later press than the end (beyond the uncertainties) is refused. */
        two_finishers(M, 300, 100);
        assert_false(M->st.seats[1].revealed);
}

static void decision_views_a_seat_sees_its_own_scene_answers_only_at_scoring(void **state) {
        char seat0[TJ_MAX];
        const char *text1;

        (void) state;
        create(M, 3, 58);
        start(M);
        text1 = M->st.cat.cards[up(M, 1)].text;
        strcpy(seat0, view_json(M, ENG_VIEW_SEAT, 0));
        assert_non_null(strstr(seat0, M->st.cat.cards[up(M, 0)].text));
        assert_null(strstr(seat0, text1));
        assert_null(strstr(seat0, "\"answer\""));
        assert_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"answer\""));
        assert_null(strstr(view_json(M, ENG_VIEW_REFEREE, -1), "\"answer\""));
        assert_non_null(strstr(view_json(M, ENG_VIEW_REFEREE, -1), text1));
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"scores\":null"));
        assert_int_equal(cz_ev_card_resolved.fields[CZ_RESOLVED_CARD].audience, ENG_VIEW_SEAT);
        assert_int_equal(cz_ev_card_shown.audience, ENG_VIEW_SEAT);
        play_out(M, 2);
        timer(M);
        assert_non_null(strstr(view_json(M, ENG_VIEW_PUBLIC, -1), "\"answer\""));
        assert_int_equal(count_out(M, &cz_ev_seat_scored), 3);
        assert_true(cz_ev_seat_scored.reveals);
}

static void decision_a_referee_moves_a_misplaced_card_until_the_end(void **state) {
        unsigned right, wrong;
        uint32_t h;

        (void) state;
        create(M, 3, 59);
        rig_plain(M, 0, 0);
        start(M);
        h = cz_handle(&M->st, up(M, 0));
        right = right_place(answer_of(M, up(M, 0)));
        wrong = wrong_place(M, 0);
        button(M, 0, wrong, 300 * MS);
        assert_int_equal(term(M, 0, CZ_TERM_WRONG), -1);
        assert_int_equal(action(M, CZ_ACTION_MOVE, 1, h, right), ENG_REFUSED_INVALID);
        assert_int_equal(action(M, CZ_ACTION_MOVE, 0, h, wrong), ENG_REFUSED_STATE);
        assert_int_equal(action(M, CZ_ACTION_MOVE, 0, h, CZ_PLACE_UNDER_CAR), ENG_REFUSED_INVALID);
        assert_int_equal(action(M, CZ_ACTION_MOVE, 0, h, right), ENG_ACCEPTED);
        assert_int_equal(find_out(M, &cz_ev_card_moved, 0)->v[CZ_MOVED_FROM], wrong);
        assert_int_equal(term(M, 0, CZ_TERM_CORRECT), 1);
        assert_int_equal(term(M, 0, CZ_TERM_WRONG), 0);
        play_out(M, 1);
        timer(M);
        assert_int_equal(action(M, CZ_ACTION_MOVE, 0, h, wrong), ENG_REFUSED_FINISHED);
}

static void decision_two_to_six_players(void **state) {
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        eng_config_defaults(&cz_game, &cfg);
        assert_int_equal(cz_game.min_seats, 2);
        assert_int_equal(cz_game.max_seats, 6);
        assert_int_equal(eng_config_validate(&cz_game, &cfg, NULL, 7, &err), -EINVAL);
        assert_string_equal(err.field, "seats");
        for (unsigned n = 2; n <= 6; n++)
                assert_int_equal(eng_config_validate(&cz_game, &cfg, NULL, n, NULL), 0);
}

static void decision_a_custom_catalogue_too_small_for_the_table_is_refused(void **state) {
        static const char one[] =
                "c01 straight road=straight lanes=2 car=1 | An empty two-lane road under a clear sky\n";
        struct eng_data data = { .text = { one }, .len = { sizeof one - 1 } };
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        eng_config_defaults(&cz_game, &cfg);
        assert_int_equal(eng_config_validate(&cz_game, &cfg, &data, 3, &err), -EINVAL);
        assert_string_equal(err.field, "data.cards");
        assert_int_equal(cz_game.create(&M->st, &cfg, &data, 3, 1), -EINVAL);
}

static void decision_the_operator_pause_stops_every_clock(void **state) {
        int64_t deadline;

        (void) state;
        shout_setup(M, true);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        deadline = M->st.race.deadline_us;
        {
                struct eng_input in = { .kind = ENG_IN_PAUSE, .seat = ENG_SEAT_TABLE, .time_us = M->now + MS };

                assert_int_equal(apply(M, &in), ENG_ACCEPTED);
        }
        assert_int_equal(M->out.wake_us, ENG_NEVER);
        assert_int_equal(slap(M, 1, MS), ENG_REFUSED_STATE);
        assert_int_equal(timer_at(M, deadline + 500 * MS), ENG_REFUSED_NOT_DUE);
        {
                struct eng_input in = { .kind = ENG_IN_RESUME, .seat = ENG_SEAT_TABLE, .time_us = M->now + 3000 * MS };

                assert_int_equal(apply(M, &in), ENG_ACCEPTED);
        }
        assert_true(M->st.race.deadline_us > deadline);
        assert_int_equal(slap(M, 1, MS), ENG_ACCEPTED);
}

static void decision_a_race_shouted_after_the_end_is_called_off(void **state) {
        int64_t shout;
        unsigned shouted;

        (void) state;
        create(M, 3, 62);
        rig_zombie(M, 0, 0);
        for (unsigned i = 0; i < 20; i++)
                rig_plain(M, 1, i);
        start(M);
        for (unsigned i = 0; i < 19; i++)
                resolve_right(M, 1, 10 * MS);
        shouted = up(M, 0);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        shout = M->st.race.shout_us;
        /* Seat 1's last card, resolved 1 ms before the shout, arrives after
         * it: the game had ended, so the shout came after the end. */
        assert_int_equal(press_at(M, 1, ENG_ROLE_BUTTONS, right_place(answer_of(M, up(M, 1))), shout - MS, 0),
                         ENG_ACCEPTED);
        assert_non_null(find_out(M, &cz_ev_starting_card_revealed, 1));
        assert_int_equal(M->st.phase, CZ_PHASE_ENDING);
        assert_null(cz_game.game_pause(&M->st));
        assert_int_equal(slap(M, 2, 10 * MS), ENG_REFUSED_STATE);
        timer(M);
        /* The shouted card was never checked: discarded unresolved. */
        assert_int_equal(M->st.seats[0].zone[CZ_PLACE_DISCARD][0], shouted);
        assert_int_equal(M->st.seats[0].zone_len[CZ_PLACE_UNDER_CAR], 0);
}

static void decision_a_shouted_last_card_reveals_the_starting_card_at_the_check(void **state) {
        (void) state;
        create(M, 3, 63);
        for (unsigned i = 0; i < 19; i++)
                rig_plain(M, 0, i);
        rig_zombie(M, 0, 19);
        start(M);
        for (unsigned i = 0; i < 19; i++)
                resolve_right(M, 0, 10 * MS);
        button(M, 0, CZ_BUTTON_SHOUT, 400 * MS);
        slap(M, 1, 200 * MS);
        slap(M, 2, 300 * MS);
        assert_non_null(find_out(M, &cz_ev_penalty_given, 2));
        assert_non_null(find_out(M, &cz_ev_starting_card_revealed, 0));
        assert_int_equal(M->st.phase, CZ_PHASE_ENDING);
        timer(M);
        assert_int_equal(term(M, 0, CZ_TERM_CORRECT), 20);
        assert_int_equal(term(M, 0, CZ_TERM_FINISH), 2);
        assert_int_equal(term(M, 2, CZ_TERM_PENALTIES), -1);
}

static void decision_two_players_penalty_cards_are_unlimited(void **state) {
        (void) state;
        create(M, 2, 65);
        start(M);
        /* Seat 0 sends its whole pile; seat 1 covers every card. */
        for (unsigned i = 0; i < 23; i++)
                assert_int_equal(button(M, 0, CZ_BUTTON_SHOUT, 100 * MS), ENG_ACCEPTED);
        assert_int_equal(M->st.phase, CZ_PHASE_ENDING);
        for (unsigned i = 0; i < 23; i++)
                assert_int_equal(action(M, CZ_ACTION_COVER, 1,
                                        cz_handle(&M->st, M->st.seats[1].zone[CZ_PLACE_FRONT][i]), 0),
                                 ENG_ACCEPTED);
        assert_int_equal(__builtin_popcount(M->st.seats[1].covered), 23);
        timer(M);
        /* Covered: 3 zombies cost nothing, 20 bluffs −1 each. */
        assert_int_equal(term(M, 1, CZ_TERM_FRONT), -20);
        assert_int_equal(term(M, 0, CZ_TERM_BLUFFS), 0);
        assert_int_equal(term(M, 0, CZ_TERM_FINISH), 2);
}

/* How many times the card of handle h is on seat s's zone z. */
static unsigned zone_count_of(const struct cz_state *st, int s, unsigned z, uint32_t h) {
        unsigned n = 0;

        for (unsigned i = 0; i < st->seats[s].zone_len[z]; i++)
                n += cz_handle(st, st->seats[s].zone[z][i]) == h;
        return n;
}

/* Through the framework's log, with a referee's confirmation: the match is
 * provisional once it ends; a move then needs the end undone first. */
struct logged {
        struct eng_setup setup;
        struct eng_record log[64];
        size_t n;
        struct eng_out out;
};

static enum eng_refusal log_apply(struct logged *l, struct cz_state *st, struct eng_input in) {
        in.seq = l->n + 1;
        assert_int_equal(eng_log_apply(&l->setup, st, l->log, l->n, &in, &l->out), 0);
        assert_true(l->n < ELEMENTSOF(l->log));
        l->log[l->n++] = (struct eng_record) { .in = in, .refusal = l->out.refusal };
        if (l->out.refusal == ENG_ACCEPTED && in.kind == ENG_IN_VOID)
                eng_log_mark_voided(l->log, l->n - 1);
        return l->out.refusal;
}

static void decision_a_move_before_confirmation_undoes_the_end_first(void **state) {
        static struct logged l;
        static struct cz_state st;
        struct eng_config cfg;
        struct eng_result res;
        int64_t t = T0, correct;
        unsigned k = CZ_MAX_PILE, right = 0, wrong = 0;
        uint32_t h = 0;
        uint64_t end_seq;

        (void) state;
        eng_config_defaults(&cz_game, &cfg);
        memset(&l, 0, sizeof l);
        l.setup = (struct eng_setup) { .game = &cz_game, .cfg = &cfg, .n_seats = 3, .seed = 66, .confirm = true };
        assert_int_equal(cz_game.create(&st, &cfg, NULL, 3, 66), 0);
        assert_int_equal(log_apply(&l, &st, (struct eng_input) { .kind = ENG_IN_START, .seat = ENG_SEAT_TABLE,
                                                                 .time_us = t }), ENG_ACCEPTED);
        /* Seat 0 plays out its pile: its first plain card on a wrong stack
         * (a misfire), a zombie under the pile (no race), the rest right. */
        while (st.seats[0].pile_pos < st.seats[0].pile_len) {
                unsigned card = st.seats[0].pile[st.seats[0].pile_pos], a = st.cat.cards[card].answer, place;
                struct eng_input in = { .kind = ENG_IN_PRESS, .seat = 0, .time_us = t += 100 * MS };

                place = a == CZ_ANS_ZOMBIE ? CZ_PLACE_HAND : right_place(a);
                if (k == CZ_MAX_PILE && a <= CZ_ANS_HAND) {
                        k = st.seats[0].pile_pos;
                        h = cz_handle(&st, card);
                        right = place;
                        wrong = place = (place + 1) % CZ_N_RESOLVE;
                }
                in.press.role = ENG_ROLE_BUTTONS;
                in.press.button = place;
                in.press.press_us = t;
                assert_int_equal(log_apply(&l, &st, in), ENG_ACCEPTED);
        }
        assert_true(k < CZ_MAX_PILE);
        assert_int_equal(log_apply(&l, &st, (struct eng_input) { .kind = ENG_IN_TIMER, .seat = ENG_SEAT_TABLE,
                                                                 .time_us = st.wake_us }), ENG_ACCEPTED);
        end_seq = l.n;
        t = st.last_us;
        assert_int_equal(eng_log_phase(&l.setup, &st, l.log, l.n), ENG_LOG_PROVISIONAL);
        cz_game.result(&st, &res);
        correct = res.terms[0][CZ_TERM_CORRECT];
        /* A move on a provisional result: the log takes only a void or a confirm. */
        {
                struct eng_input mv = { .kind = ENG_IN_ACTION, .action = CZ_ACTION_MOVE, .seat = 0, .time_us = t += MS };

                mv.arg[CZ_MOVE_CARD] = h;
                mv.arg[CZ_MOVE_TO] = right;
                assert_int_equal(log_apply(&l, &st, mv), ENG_REFUSED_FINISHED);
                /* Undo the end (the timer that ended the match): back in the
                 * grace after the starting card, its clock from now. */
                {
                        struct eng_input v = { .kind = ENG_IN_VOID, .seat = ENG_SEAT_TABLE, .time_us = t += MS };

                        v.void_.target = (int64_t) end_seq;
                        assert_int_equal(log_apply(&l, &st, v), ENG_ACCEPTED);
                }
                assert_int_equal(st.phase, CZ_PHASE_ENDING);
                assert_int_equal(st.wake_us, t + CZ_GRACE_DEFAULT_MS * MS);
                mv.time_us = t += MS;
                assert_int_equal(log_apply(&l, &st, mv), ENG_ACCEPTED);
                assert_int_equal(st.seats[0].zone[right][st.seats[0].zone_len[right] - 1], eng_handle_card(st.handle_key, h));
                assert_int_equal(zone_count_of(&st, 0, wrong, h), 0);
        }
        assert_int_equal(log_apply(&l, &st, (struct eng_input) { .kind = ENG_IN_TIMER, .seat = ENG_SEAT_TABLE,
                                                                 .time_us = st.wake_us }), ENG_ACCEPTED);
        cz_game.result(&st, &res);
        assert_true(res.finished);
        assert_int_equal(res.terms[0][CZ_TERM_CORRECT], correct + 1);
        assert_int_equal(log_apply(&l, &st, (struct eng_input) { .kind = ENG_IN_CONFIRM, .seat = ENG_SEAT_TABLE,
                                                                 .time_us = t + 200 * MS }), ENG_ACCEPTED);
        assert_int_equal(eng_log_phase(&l.setup, &st, l.log, l.n), ENG_LOG_FINAL);
}

static void refused_inputs_change_nothing(void **state) {
        struct eng_input in;

        (void) state;
        /* apply() asserts, for every refusal, that the state and its hash
         * are as they were; here one of each kind. */
        create(M, 3, 64);
        assert_int_equal(button(M, 0, 0, MS), ENG_REFUSED_STATE);                       /* not started */
        start(M);
        assert_int_equal(button(M, 3, 0, MS), ENG_REFUSED_INVALID);                     /* no such seat */
        assert_int_equal(press_at(M, 0, ENG_ROLE_KEYPAD, 0, M->now, 0), ENG_REFUSED_INVALID);
        assert_int_equal(press_at(M, 0, ENG_ROLE_BUTTONS, 0, M->now, -1), ENG_REFUSED_INVALID);
        assert_int_equal(timer_at(M, M->now + 1), ENG_REFUSED_NOT_DUE);
        assert_int_equal(action(M, CZ_ACTION_COVER, 0, 1, 0), ENG_REFUSED_UNSUPPORTED);  /* 3 players */
        assert_int_equal(action(M, CZ_ACTION_DRIVE, ENG_SEAT_TABLE, 0, 0), ENG_REFUSED_STATE);
        assert_int_equal(action(M, CZ_ACTION_MOVE, 0, 12345, CZ_PLACE_LEFT), ENG_REFUSED_INVALID);
        in = (struct eng_input) { .kind = ENG_IN_CALL, .seat = 0, .time_us = M->now };
        assert_int_equal(apply(M, &in), ENG_REFUSED_UNSUPPORTED);
        in = (struct eng_input) { .kind = ENG_IN_RESUME, .seat = ENG_SEAT_TABLE, .time_us = M->now };
        assert_int_equal(apply(M, &in), ENG_REFUSED_STATE);
        in = (struct eng_input) { .kind = ENG_IN_PAUSE, .seat = ENG_SEAT_TABLE, .time_us = M->now - 1 };
        M->seq++;
        in.seq = M->seq;
        assert_int_equal(cz_game.apply(&M->st, &in, &M->out), 0);
        assert_int_equal(M->out.refusal, ENG_REFUSED_TIME);
        in.seq = M->seq - 1;
        in.time_us = M->now;
        assert_int_equal(cz_game.apply(&M->st, &in, &M->out), 0);
        assert_int_equal(M->out.refusal, ENG_REFUSED_SEQ);
        check(M);
}

/* ====================================================================
 * The framework's properties.
 * ==================================================================== */

static void game_tables_pass_eng_game_check(void **state) {
        char why[200] = "";

        (void) state;
        if (eng_game_check(&cz_game, why, sizeof why) < 0)
                fail_msg("%s", why);
}

static void slots_agree_with_the_schema(void **state) {
        static const char *const params[] = { "fork.turns", "zombie.slap_deadline_ms", "zombie.grace_ms",
                                              "zombie.resume_ms", "zombie.slap_shouts" };

        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(params); i++)
                assert_int_equal(eng_fields_offset(cz_game.params, cz_game.n_params, params[i]), (int) i);
        assert_int_equal(eng_fields_slots(cz_game.params, cz_game.n_params), CZ_CONFIG_SLOTS);
#define AT(ev, name, slot) assert_int_equal(eng_fields_offset((ev).fields, (ev).n_fields, name), slot)
        AT(cz_ev_card_shown, "card", CZ_SHOWN_CARD);
        AT(cz_ev_card_shown, "number", CZ_SHOWN_NUMBER);
        AT(cz_ev_card_resolved, "placement", CZ_RESOLVED_PLACEMENT);
        AT(cz_ev_card_resolved, "reaction_us", CZ_RESOLVED_REACTION);
        AT(cz_ev_card_resolved, "card", CZ_RESOLVED_CARD);
        AT(cz_ev_zombie_called, "seats", CZ_CALLED_SEATS);
        AT(cz_ev_zombie_called, "racers", CZ_CALLED_RACERS);
        AT(cz_ev_zombie_called, "deadline_us", CZ_CALLED_DEADLINE);
        AT(cz_ev_slap_recorded, "order", CZ_SLAP_ORDER);
        AT(cz_ev_slap_recorded, "gap_us", CZ_SLAP_GAP);
        AT(cz_ev_slap_recorded, "uncertainty_us", CZ_SLAP_UNCERTAINTY);
        AT(cz_ev_slap_recorded, "reaction_us", CZ_SLAP_REACTION);
        AT(cz_ev_zombie_checked, "zombie", CZ_CHECKED_ZOMBIE);
        AT(cz_ev_zombie_checked, "placement", CZ_CHECKED_PLACEMENT);
        AT(cz_ev_penalty_given, "reason", CZ_PENALTY_REASON);
        AT(cz_ev_play_resumed, "by", CZ_RESUMED_BY);
        AT(cz_ev_starting_card_revealed, "press_us", CZ_REVEALED_PRESS);
        AT(cz_ev_card_sent, "to_seat", CZ_SENT_TO_SEAT);
        AT(cz_ev_card_sent, "card", CZ_SENT_CARD);
        AT(cz_ev_card_covered, "card", CZ_COVERED_CARD);
        AT(cz_ev_card_moved, "card", CZ_MOVED_CARD);
        AT(cz_ev_card_moved, "from", CZ_MOVED_FROM);
        AT(cz_ev_card_moved, "to", CZ_MOVED_TO);
        AT(cz_ev_seat_scored, "correct", CZ_SCORED_CORRECT);
        AT(cz_ev_seat_scored, "wrong", CZ_SCORED_WRONG);
        AT(cz_ev_seat_scored, "finish", CZ_SCORED_FINISH);
        AT(cz_ev_seat_scored, "penalties", CZ_SCORED_PENALTIES);
        AT(cz_ev_seat_scored, "set_aside", CZ_SCORED_SET_ASIDE);
        AT(cz_ev_seat_scored, "front", CZ_SCORED_FRONT);
        AT(cz_ev_seat_scored, "bluffs", CZ_SCORED_BLUFFS);
        AT(cz_ev_seat_scored, "score", CZ_SCORED_SCORE);
#undef AT
        assert_int_equal(eng_fields_offset(cz_game.actions[CZ_ACTION_RESOLVE].fields,
                                           cz_game.actions[CZ_ACTION_RESOLVE].n_fields, "placement"),
                         CZ_RESOLVE_PLACEMENT);
        assert_int_equal(eng_fields_offset(cz_game.actions[CZ_ACTION_COVER].fields,
                                           cz_game.actions[CZ_ACTION_COVER].n_fields, "card"), CZ_COVER_CARD);
        assert_int_equal(eng_fields_offset(cz_game.actions[CZ_ACTION_MOVE].fields,
                                           cz_game.actions[CZ_ACTION_MOVE].n_fields, "card"), CZ_MOVE_CARD);
        assert_int_equal(eng_fields_offset(cz_game.actions[CZ_ACTION_MOVE].fields,
                                           cz_game.actions[CZ_ACTION_MOVE].n_fields, "to"), CZ_MOVE_TO);
        for (unsigned t = 0; t < CZ_N_TERMS; t++)
                assert_int_equal(eng_fields_offset(cz_ev_seat_scored.fields, cz_ev_seat_scored.n_fields,
                                                   cz_game.terms[t]) >= 0, 1);
}

/* The property checks after every simulated input. */
struct prop {
        size_t states;
        uint64_t prev_hash;
};

static int prop_step(void *ctx, const struct cz_state *st, const struct eng_input *in, const struct eng_out *out) {
        struct prop *p = ctx;
        char why[200] = "";
        struct eng_result res;

        (void) in;
        if (cz_check(st, why, sizeof why) < 0)
                fail_msg("invariant broken: %s", why);
        if (out->refusal != ENG_ACCEPTED && cz_game.hash(st) != p->prev_hash)
                fail_msg("a refused input changed the state");
        assert_int_equal(cz_game.result(st, &res), 0);
        for (int s = 0; s < st->n_seats; s++) {
                int64_t sum = 0;

                for (unsigned t = 0; t < CZ_N_TERMS; t++)
                        sum += res.terms[s][t];
                assert_true(sum == res.score[s]);
        }
        p->prev_hash = cz_game.hash(st);
        p->states++;
        return 0;
}

static void property_cards_conserved_scores_sum_and_every_game_ends(void **state) {
        struct cz_sim_params params;
        struct cz_sim_stats stats;
        struct eng_config cfg;
        size_t races = 0, penalties = 0, refused = 0;

        (void) state;
        cz_sim_params_default(&params);
        eng_config_defaults(&cz_game, &cfg);
        for (uint64_t seed = 1; seed <= 300; seed++) {
                struct prop p = { 0 };
                unsigned n = 2 + (unsigned) (seed % 5);

                cfg.v[CZ_SLOT_FORK_TURNS] = seed % 2;
                cz_game.create(&M->st, &cfg, NULL, n, seed);
                p.prev_hash = cz_game.hash(&M->st);
                if (cz_sim_match(&M->st, &cfg, n, seed, seed * 31, &params, NULL, 0, prop_step, &p, &stats) != 0)
                        fail_msg("seed %" PRIu64 ": the simulated match did not end cleanly", seed);
                assert_int_equal(M->st.phase, CZ_PHASE_FINISHED);
                races += stats.races;
                penalties += stats.penalties;
                refused += stats.refused;
        }
        print_message("300 matches: %zu races, %zu penalties, %zu refused inputs\n", races, penalties, refused);
        assert_true(races > 100 && penalties > 50 && refused > 50);
}

static void replay_equals_live(void **state) {
        enum { CAP = 4096 };
        struct cz_sim_params params;
        struct cz_sim_stats stats;
        struct eng_config cfg;
        struct eng_input *log = calloc(CAP, sizeof *log);
        struct eng_record *rec = calloc(CAP, sizeof *rec);
        struct cz_state *live = malloc(sizeof *live), *again = malloc(sizeof *again);

        (void) state;
        assert_non_null(log);
        assert_non_null(rec);
        assert_non_null(live);
        assert_non_null(again);
        cz_sim_params_default(&params);
        eng_config_defaults(&cz_game, &cfg);
        for (uint64_t seed = 1; seed <= 40; seed++) {
                unsigned n = 2 + (unsigned) (seed % 5);
                struct eng_setup setup = { .game = &cz_game, .cfg = &cfg, .n_seats = n, .seed = seed };
                size_t refused_replay = 0;

                assert_int_equal(cz_sim_match(live, &cfg, n, seed, seed + 5, &params, log, CAP, NULL, NULL, &stats), 0);
                /* Step by step: the same refusal, outputs and hash. */
                assert_int_equal(cz_game.create(again, &cfg, NULL, n, seed), 0);
                for (size_t i = 0; i < stats.inputs; i++) {
                        struct eng_out o1;

                        assert_int_equal(cz_game.apply(again, &log[i], &o1), 0);
                        rec[i].in = log[i];
                        rec[i].refusal = o1.refusal;
                        rec[i].voided_by = 0;
                }
                assert_memory_equal(live, again, sizeof *live);
                assert_int_equal(eng_replay(&setup, again, rec, stats.inputs, &refused_replay), 0);
                assert_int_equal(refused_replay, stats.refused);
                assert_true(cz_game.hash(again) == cz_game.hash(live));
        }
        free(log);
        free(rec);
        free(live);
        free(again);
}

static void perturb_hidden_touches_only_the_hidden_order(void **state) {
        static struct cz_state before;
        char a[TJ_MAX];

        (void) state;
        create(M, 4, 60);
        start(M);
        before = M->st;
        strcpy(a, view_json(M, ENG_VIEW_PUBLIC, -1));
        assert_int_equal(cz_game.perturb_hidden(&M->st, 99), 0);
        check(M);
        assert_string_equal(a, view_json(M, ENG_VIEW_PUBLIC, -1));
        for (int s = 0; s < 4; s++)
                assert_int_equal(up(M, s), before.seats[s].pile[0]);
        assert_memory_not_equal(before.seats[0].pile + 1, M->st.seats[0].pile + 1, 19);
}

static void a_void_rewinds_and_rearms_the_clocks(void **state) {
        struct eng_config cfg;
        struct eng_setup setup = { .game = &cz_game, .cfg = &cfg, .n_seats = 3, .seed = 61 };
        struct eng_record log[8];
        struct eng_out out;
        static struct cz_state st;
        size_t n = 0;
        struct eng_input in = { .seq = 1, .time_us = T0, .kind = ENG_IN_START, .seat = ENG_SEAT_TABLE };

        (void) state;
        eng_config_defaults(&cz_game, &cfg);
        assert_int_equal(cz_game.create(&st, &cfg, NULL, 3, 61), 0);
        assert_int_equal(eng_log_apply(&setup, &st, log, n, &in, &out), 0);
        log[n++] = (struct eng_record) { .in = in, .refusal = out.refusal };
        in = (struct eng_input) { .seq = 2, .time_us = T0 + 500 * MS, .kind = ENG_IN_ACTION, .seat = 0,
                                  .action = CZ_ACTION_SHOUT };
        assert_int_equal(eng_log_apply(&setup, &st, log, n, &in, &out), 0);
        assert_int_equal(out.refusal, ENG_ACCEPTED);
        log[n++] = (struct eng_record) { .in = in, .refusal = out.refusal };
        in = (struct eng_input) { .seq = 3, .time_us = T0 + 2000 * MS, .kind = ENG_IN_VOID, .seat = ENG_SEAT_TABLE };
        in.void_.target = 2;
        assert_int_equal(eng_log_apply(&setup, &st, log, n, &in, &out), 0);
        assert_int_equal(out.refusal, ENG_ACCEPTED);
        assert_int_equal(st.phase, CZ_PHASE_PLAYING);
        assert_int_equal(st.seats[0].shown_us, T0 + 2000 * MS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup_m, teardown_m)
                T(z01_the_situation_cards_are_shuffled_with_the_seed),
                T(z02_twenty_cards_each_eighteen_with_five_fifteen_with_six),
                T(z03_unused_cards_return_to_the_box),
                T(z04_each_pile_is_face_up_with_its_starting_card_on_top),
                T(z05_each_seat_plays_the_pile_dealt_for_the_seat_on_its_right),
                T(z06_a_car_card_each_with_its_stacks_around_it),
                T(z07_penalty_cards_and_the_finish_card_in_the_middle),
                T(z08_one_starting_signal_for_the_table),
                T(z09_the_starting_card_goes_under_so_the_first_situation_card_is_face_up),
                T(z10_a_card_must_be_resolved_before_the_next),
                T(z11_everyone_plays_at_once),
                T(z12_five_placements_around_the_car_and_under_the_pile),
                T(z13_a_hand_card_goes_under_the_starting_card_and_never_comes_back),
                T(z14_a_shout_is_the_zombie_button_and_starts_the_race),
                T(z15_the_whole_table_pauses),
                T(z16_every_other_player_must_slap),
                T(z17_a_real_zombie_goes_under_the_car_for_a_point),
                T(z18_no_zombie_is_set_aside_for_minus_one),
                T(z19_only_with_a_zombie_the_last_slapper_takes_a_penalty),
                T(z20_the_interrupter_resumes_play_when_they_see_fit),
                T(z21_several_shouts_at_the_same_time_check_every_card),
                T(z22_a_zombie_among_the_shouted_cards_gives_one_penalty_to_the_last),
                T(z23_the_game_ends_when_a_player_reveals_their_starting_card),
                T(z24_that_player_takes_the_finish_card),
                T(z25_everyone_stops_at_once),
                T(z26_unresolved_cards_are_discarded),
                T(z27_each_stack_is_checked_against_the_icon_on_each_back),
                T(z28_fork_cards_go_straight_or_on_a_turn_stack_by_the_setting),
                T(z29_plus_one_per_card_assessed_correctly),
                T(z30_plus_two_for_the_finish_card),
                T(z31_minus_one_per_card_assessed_wrongly),
                T(z32_minus_one_per_penalty_card),
                T(z33_minus_one_per_card_set_aside),
                T(z34_the_most_points_wins),
                T(z35_a_tie_is_won_by_the_finish_card_holder_otherwise_shared),
                T(z36_two_players_remove_the_zombie_cards),
                T(z37_two_players_twenty_each),
                T(z38_three_zombie_cards_shuffled_into_each_pile_chosen_by_the_seed),
                T(z39_a_shout_sends_the_card_in_front_of_the_opponent_bluffs_allowed),
                T(z40_the_opponent_may_cover_it_with_a_penalty_card_once),
                T(z41_the_four_end_of_game_cases),
                T(decision_a_zombie_card_belongs_under_the_car_only),
                T(decision_racers_are_every_player_who_did_not_shout),
                T(decision_a_racer_missing_the_deadline_counts_as_last_each_taking_a_penalty),
                T(decision_last_is_decided_on_press_times_and_indistinguishable_slaps_both_count),
                T(decision_shouts_within_the_grace_are_simultaneous),
                T(decision_a_resolution_pressed_before_the_shout_stands_after_is_refused),
                T(decision_a_table_may_read_a_slap_outside_a_race_as_a_shout),
                T(decision_resume_by_drive_by_a_referee_or_by_itself),
                T(decision_two_starting_cards_that_cannot_be_told_apart_share_the_finish),
                T(decision_two_starting_cards_apart_the_earlier_press_takes_it),
                T(decision_views_a_seat_sees_its_own_scene_answers_only_at_scoring),
                T(decision_a_referee_moves_a_misplaced_card_until_the_end),
                T(decision_two_to_six_players),
                T(decision_a_custom_catalogue_too_small_for_the_table_is_refused),
                T(decision_the_operator_pause_stops_every_clock),
                T(decision_a_race_shouted_after_the_end_is_called_off),
                T(decision_a_shouted_last_card_reveals_the_starting_card_at_the_check),
                T(decision_two_players_penalty_cards_are_unlimited),
                T(decision_a_move_before_confirmation_undoes_the_end_first),
                T(refused_inputs_change_nothing),
                T(game_tables_pass_eng_game_check),
                T(slots_agree_with_the_schema),
                T(property_cards_conserved_scores_sum_and_every_game_ends),
                T(replay_equals_live),
                T(perturb_hidden_touches_only_the_hidden_order),
                T(a_void_rewinds_and_rearms_the_clocks),
#undef T
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
