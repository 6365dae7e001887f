/* The rules of playing a tournament's stages (tournament/play.h) and the
 * format rules they rest on (tournament/stage.h: tour_format_bracket,
 * tour_format_round_based): which stage is played now, the first stage's
 * seeding, the venue tables in turn, whether a stage may be added, and
 * what a corrected result invalidates — heats included, the case where two
 * copies of "round-based" disagreed before there was one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/play.h"
#include "tournament/stage.h"
#include "tournament/states.h"

/* ---- formats ------------------------------------------------------------------ */

static void round_based_formats_are_those_paired_from_earlier_results_heats_included(void **state) {
        static const struct {
                enum tour_format f;
                bool bracket, round_based;
        } want[] = {
                { TOUR_FORMAT_SINGLE_ELIM, true, false }, { TOUR_FORMAT_DOUBLE_ELIM, true, false },
                { TOUR_FORMAT_ROUND_ROBIN, false, false }, { TOUR_FORMAT_GROUPS, false, false },
                { TOUR_FORMAT_SWISS, false, true }, { TOUR_FORMAT_POD_SWISS, false, true },
                { TOUR_FORMAT_LEAGUE, false, true }, { TOUR_FORMAT_RACE, false, true },
                /* heats seat each round from the advancers of the last one:
                 * round-based, though it takes no late entrant */
                { TOUR_FORMAT_HEATS, false, true },
        };
        (void) state;
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
                assert_int_equal(tour_format_bracket(want[i].f), want[i].bracket);
                assert_int_equal(tour_format_round_based(want[i].f), want[i].round_based);
        }
        assert_false(tour_format_takes_late_entries(TOUR_FORMAT_HEATS));
        assert_false(tour_format_round_based((enum tour_format) 0));
        assert_false(tour_format_bracket((enum tour_format) 99));
}

/* ---- stages --------------------------------------------------------------------- */

static void the_current_stage_is_the_first_unfinished_else_the_last_started(void **state) {
        enum tour_stage_state a[] = { TOUR_STAGE_FINISHED, TOUR_STAGE_RUNNING, TOUR_STAGE_PENDING };
        enum tour_stage_state b[] = { TOUR_STAGE_FINISHED, TOUR_STAGE_PENDING };
        enum tour_stage_state c[] = { TOUR_STAGE_FINISHED, TOUR_STAGE_FINISHED };
        enum tour_stage_state d[] = { TOUR_STAGE_PENDING };
        (void) state;
        assert_int_equal(tour_play_current_stage(a, 3), 1);
        assert_int_equal(tour_play_current_stage(b, 2), 1);     /* the next one starts */
        assert_int_equal(tour_play_current_stage(c, 2), 1);     /* all played: the last */
        assert_int_equal(tour_play_current_stage(d, 1), 0);
        assert_int_equal(tour_play_current_stage(d, 0), -1);
        assert_int_equal(tour_play_current_stage(NULL, 0), -1);
}

static void the_first_stage_is_seeded_by_seed_then_rating_then_registration(void **state) {
        /* in the order of registration */
        struct tour_play_candidate c[] = {
                { .seed = 0, .rating = 10 },    /* 0 */
                { .seed = 2, .rating = 0 },     /* 1 */
                { .seed = 0, .rating = 0 },     /* 2: unrated */
                { .seed = 1, .rating = -5 },    /* 3 */
                { .seed = 0, .rating = 10 },    /* 4: as 0, registered later */
                { .seed = 0, .rating = 12.5 },  /* 5 */
                { .seed = 2, .rating = 3 },     /* 6: seed 2 as 1, rated higher */
        };
        size_t order[7], want[] = { 3, 6, 1, 5, 0, 4, 2 };
        (void) state;
        assert_int_equal(tour_play_first_stage_order(c, 7, order), 0);
        for (size_t i = 0; i < 7; i++)
                assert_int_equal(order[i], want[i]);
        assert_int_equal(tour_play_first_stage_order(c, 0, NULL), 0);
        assert_int_equal(tour_play_first_stage_order(NULL, 2, order), -EINVAL);
}

static void matches_are_called_to_the_venue_tables_in_turn(void **state) {
        int64_t tables[] = { 40, 41 };
        (void) state;
        assert_int_equal(tour_play_table(tables, 2, 1), 40);
        assert_int_equal(tour_play_table(tables, 2, 2), 41);
        assert_int_equal(tour_play_table(tables, 2, 3), 40);
        assert_int_equal(tour_play_table(tables, 2, 0), 0);
        assert_int_equal(tour_play_table(NULL, 0, 1), 0);
}

static void a_stage_is_added_unless_finished_and_a_competitive_one_takes_no_seed(void **state) {
        (void) state;
        assert_int_equal(tour_play_stage_add(TOUR_STATE_DRAFT, false, true), TOUR_STAGE_ADD_ALLOWED);
        assert_int_equal(tour_play_stage_add(TOUR_STATE_RUNNING, true, false), TOUR_STAGE_ADD_ALLOWED);
        assert_int_equal(tour_play_stage_add(TOUR_STATE_RUNNING, true, true), TOUR_STAGE_ADD_SEED_CHOSEN);
        assert_int_equal(tour_play_stage_add(TOUR_STATE_FINISHED, false, false), TOUR_STAGE_ADD_FINISHED);
        /* the seed is refused first, as it is whatever the state */
        assert_int_equal(tour_play_stage_add(TOUR_STATE_FINISHED, true, true), TOUR_STAGE_ADD_SEED_CHOSEN);
        assert_true(tour_state_plays(TOUR_STATE_RUNNING));
        assert_false(tour_state_plays(TOUR_STATE_CHECK_IN));
        assert_false(tour_state_plays(TOUR_STATE_FINISHED));
        assert_true(tour_state_takes_stages(TOUR_STATE_CHECK_IN));
        assert_false(tour_state_takes_stages(TOUR_STATE_FINISHED));
        assert_false(tour_state_takes_stages((enum tour_state) 0));
}

/* ---- corrections --------------------------------------------------------------- */

/* A stage played as the daemon plays it: next(), stored, results in seat
 * order (seat 1 wins). */
struct played {
        struct tour_stage_config cfg;
        struct tour_stage_entrant ent[16];
        struct tour_stage_match m[64];
        struct tour_bye by[64];
        size_t nm, nb;
        int n;
};

static struct tour_stage_input input_of(const struct played *p) {
        return (struct tour_stage_input) { .cfg = &p->cfg, .n_entrants = p->n, .entrants = p->ent,
                                           .n_matches = p->nm, .matches = p->nm ? p->m : NULL,
                                           .n_byes = p->nb, .byes = p->nb ? p->by : NULL };
}

static void play_new(struct played *p, enum tour_format f, int n) {
        memset(p, 0, sizeof *p);
        tour_stage_config_default(f, &p->cfg);
        p->cfg.seed = 7;
        p->n = n;
        for (int e = 0; e < n; e++)
                p->ent[e] = (struct tour_stage_entrant) { .rating = n - e, .active = true };
}

/* Pairs the next round and stores it, unplayed. */
static void pair(struct played *p) {
        struct tour_stage_input in = input_of(p);
        struct tour_stage_next nx;
        struct tour_stage_error err;

        assert_true(tour_stage_next(&in, &nx, &err) > 0);
        for (int i = 0; i < nx.n_pairings; i++) {
                struct tour_stage_match *m = &p->m[p->nm++];
                memset(m, 0, sizeof *m);
                m->round = nx.pairings[i].pairing.round;
                m->table = nx.pairings[i].pairing.table;
                m->bracket_id = nx.pairings[i].bracket_id;
                m->n = nx.pairings[i].pairing.n;
                memcpy(m->entrant, nx.pairings[i].pairing.entrant, sizeof m->entrant);
        }
        for (int i = 0; i < nx.n_byes; i++)
                p->by[p->nb++] = nx.byes[i];
        tour_stage_next_free(&nx);
}

static void play(struct played *p, size_t i) {
        struct tour_stage_match *m = &p->m[i];

        m->result = (struct tour_result) { .round = m->round, .n = m->n };
        for (int s = 0; s < m->n; s++) {
                m->result.entrant[s] = m->entrant[s];
                m->result.rank[s] = s + 1;
        }
        m->done = true;
}

static void plan(const struct played *p, size_t match, const bool *in_play, bool reset, bool admin,
                 struct tour_correction *ret) {
        struct tour_stage_input in = input_of(p);
        struct tour_correction_input ci = { .stage = &in, .match = match, .in_play = in_play, .reset = reset,
                                            .may_delete_played = admin };
        struct tour_stage_error err;

        assert_int_equal(tour_correction_plan(&ci, ret, &err), 0);
}

static void a_heats_correction_invalidates_the_later_rounds_as_any_round_based_one(void **state) {
        struct played p;
        struct tour_correction c;
        bool in_play[64] = { false };
        (void) state;

        /* 8 in heats of 4, 2 advancing: two heats, then the final */
        play_new(&p, TOUR_FORMAT_HEATS, 8);
        p.cfg.table_size = 4;
        p.cfg.advance = 2;
        pair(&p);
        assert_int_equal(p.nm, 2);
        play(&p, 0);
        play(&p, 1);
        pair(&p);
        assert_int_equal(p.nm, 3);
        assert_int_equal(p.m[2].round, 2);

        /* the final is not played: deleted with the correction, which a
         * referee may make; no byes in heats, but the rule is the round's */
        plan(&p, 0, NULL, false, false, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_ALLOWED);
        assert_int_equal(c.n_deleted, 1);
        assert_int_equal(c.deleted[0], 2);
        assert_int_equal(c.n_blocking, 0);
        assert_int_equal(c.byes_after, 1);
        assert_true(c.reopen);
        tour_correction_free(&c);

        /* being played: a reset may not pull it away, and without one it blocks */
        in_play[2] = true;
        plan(&p, 1, in_play, false, true, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_NEEDS_RESET);
        assert_int_equal(c.n_blocking, 1);
        assert_int_equal(c.blocking[0], 2);
        assert_int_equal(c.in_play, 2);
        tour_correction_free(&c);
        plan(&p, 1, in_play, true, true, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_IN_PLAY);
        tour_correction_free(&c);

        /* played: a reset needs an admin, and deletes it */
        play(&p, 2);
        plan(&p, 0, NULL, false, true, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_NEEDS_RESET);
        tour_correction_free(&c);
        plan(&p, 0, NULL, true, false, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_NOT_ALLOWED);
        tour_correction_free(&c);
        plan(&p, 0, NULL, true, true, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_ALLOWED);
        assert_int_equal(c.n_deleted, 1);
        assert_int_equal(c.deleted[0], 2);
        tour_correction_free(&c);

        /* the final's own result invalidates nothing */
        plan(&p, 2, NULL, false, false, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_ALLOWED);
        assert_int_equal(c.n_deleted, 0);
        assert_int_equal(c.byes_after, 2);
        assert_false(c.reopen);
        tour_correction_free(&c);
}

static void a_swiss_correction_takes_the_later_byes_and_a_round_robin_one_nothing(void **state) {
        struct played p;
        struct tour_correction c;
        (void) state;

        /* 5 in a swiss: a bye each round */
        play_new(&p, TOUR_FORMAT_SWISS, 5);
        pair(&p);
        for (size_t i = 0; i < p.nm; i++)
                play(&p, i);
        pair(&p);
        assert_int_equal(p.nb, 2);
        plan(&p, 0, NULL, false, false, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_ALLOWED);
        assert_int_equal(c.n_deleted, 2);               /* round 2's two tables */
        assert_int_equal(c.byes_after, 1);
        tour_correction_free(&c);

        play_new(&p, TOUR_FORMAT_ROUND_ROBIN, 5);
        pair(&p);
        for (size_t i = 0; i < p.nm; i++)
                play(&p, i);
        pair(&p);
        plan(&p, 0, NULL, false, false, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_ALLOWED);
        assert_int_equal(c.n_deleted, 0);
        assert_int_equal(c.byes_after, -1);             /* the schedule's byes stay */
        assert_false(c.reopen);
        tour_correction_free(&c);
}

static void a_correction_needs_a_result_and_a_stage_still_open(void **state) {
        struct played p;
        struct tour_correction c;
        struct tour_stage_input in;
        struct tour_correction_input ci;
        struct tour_stage_error err;
        (void) state;

        play_new(&p, TOUR_FORMAT_SWISS, 4);
        pair(&p);
        plan(&p, 0, NULL, false, false, &c);
        assert_int_equal(c.verdict, TOUR_CORRECTION_NO_RESULT);
        tour_correction_free(&c);
        play(&p, 0);
        in = input_of(&p);
        ci = (struct tour_correction_input) { .stage = &in, .match = 0, .next_stage_started = true };
        assert_int_equal(tour_correction_plan(&ci, &c, &err), 0);
        assert_int_equal(c.verdict, TOUR_CORRECTION_STAGE_CLOSED);
        tour_correction_free(&c);
        ci.match = 9;
        assert_int_equal(tour_correction_plan(&ci, &c, &err), -EINVAL);
        assert_non_null(strstr(err.text, "match"));
        tour_correction_free(&c);
        tour_correction_free(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(round_based_formats_are_those_paired_from_earlier_results_heats_included),
                cmocka_unit_test(the_current_stage_is_the_first_unfinished_else_the_last_started),
                cmocka_unit_test(the_first_stage_is_seeded_by_seed_then_rating_then_registration),
                cmocka_unit_test(matches_are_called_to_the_venue_tables_in_turn),
                cmocka_unit_test(a_stage_is_added_unless_finished_and_a_competitive_one_takes_no_seed),
                cmocka_unit_test(a_heats_correction_invalidates_the_later_rounds_as_any_round_based_one),
                cmocka_unit_test(a_swiss_correction_takes_the_later_byes_and_a_round_robin_one_nothing),
                cmocka_unit_test(a_correction_needs_a_result_and_a_stage_still_open),
        };
        return cmocka_run_group_tests_name("play", tests, NULL, NULL);
}
