/* A tournament's states, the moves between them and what they open
 * (tournament/states.h), and the one rule of late entry (tournament/stage.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "tournament/states.h"

static void every_state_has_the_name_the_api_and_the_database_use(void **state) {
        static const char *const names[] = { "draft", "registration", "check_in", "running", "finished" };
        enum tour_state s;

        (void) state;
        for (int k = TOUR_STATE_DRAFT; k <= TOUR_STATE_LAST; k++) {
                assert_string_equal(tour_state_name((enum tour_state) k), names[k - TOUR_STATE_DRAFT]);
                assert_int_equal(tour_state_from_name(names[k - TOUR_STATE_DRAFT], &s), 0);
                assert_int_equal(s, k);
        }
        assert_null(tour_state_name((enum tour_state) 0));
        assert_null(tour_state_name((enum tour_state) (TOUR_STATE_LAST + 1)));
        assert_int_equal(tour_state_from_name("check-in", &s), -EINVAL);
        assert_int_equal(tour_state_from_name(NULL, &s), -EINVAL);
        assert_int_equal(tour_state_from_name("draft", NULL), -EINVAL);
}

/* The door opens on the day (check_in) and stays open while the tournament
 * runs; signing up (registration) is not being in the room. */
static void check_in_opens_with_the_check_in_state_and_stays_open_while_running(void **state) {
        (void) state;
        assert_false(tour_state_check_in_open(TOUR_STATE_DRAFT));
        assert_false(tour_state_check_in_open(TOUR_STATE_REGISTRATION));
        assert_true(tour_state_check_in_open(TOUR_STATE_CHECK_IN));
        assert_true(tour_state_check_in_open(TOUR_STATE_RUNNING));
        assert_false(tour_state_check_in_open(TOUR_STATE_FINISHED));
        assert_false(tour_state_check_in_open((enum tour_state) 0));
        assert_false(tour_state_check_in_open((enum tour_state) (TOUR_STATE_LAST + 1)));
}

/* ---- moves ------------------------------------------------------------------- */

static const struct tour_state_facts nothing_yet = { 0 };

/* Every arrow of the diagram in states.h, and no other: from each state
 * exactly the moves listed, in the table's order. */
static void the_moves_are_the_arrows_of_the_diagram_and_no_other(void **state) {
        static const enum tour_state expect[TOUR_STATE_LAST + 1][TOUR_STATE_LAST] = {
                [TOUR_STATE_DRAFT] = { TOUR_STATE_REGISTRATION },
                [TOUR_STATE_REGISTRATION] = { TOUR_STATE_DRAFT, TOUR_STATE_CHECK_IN },
                [TOUR_STATE_CHECK_IN] = { TOUR_STATE_REGISTRATION, TOUR_STATE_RUNNING },
                [TOUR_STATE_RUNNING] = { TOUR_STATE_CHECK_IN, TOUR_STATE_FINISHED },
                [TOUR_STATE_FINISHED] = { TOUR_STATE_RUNNING },
        };
        enum tour_state moves[TOUR_STATE_LAST];
        (void) state;

        for (int from = TOUR_STATE_DRAFT; from <= TOUR_STATE_LAST; from++) {
                size_t n = tour_state_moves((enum tour_state) from, moves), want = 0;
                while (want < TOUR_STATE_LAST && expect[from][want])
                        want++;
                assert_int_equal(n, want);
                for (size_t i = 0; i < n; i++)
                        assert_int_equal(moves[i], expect[from][i]);
                for (int to = TOUR_STATE_DRAFT; to <= TOUR_STATE_LAST; to++) {
                        bool listed = false;
                        for (size_t i = 0; i < n; i++)
                                listed |= moves[i] == (enum tour_state) to;
                        struct tour_state_facts all = { .registrations = 9, .checked_in = 9, .stages = 1 };
                        if (!listed)
                                assert_int_equal(tour_state_move_check((enum tour_state) from, (enum tour_state) to,
                                                                       &all), TOUR_MOVE_NO_SUCH_MOVE);
                }
        }
        assert_int_equal(tour_state_moves((enum tour_state) 0, moves), 0);
        assert_int_equal(tour_state_moves((enum tour_state) (TOUR_STATE_LAST + 1), moves), 0);
        assert_int_equal(tour_state_move_check(TOUR_STATE_DRAFT, TOUR_STATE_RUNNING, &nothing_yet),
                         TOUR_MOVE_NO_SUCH_MOVE);
        assert_null(tour_state_move_needs(TOUR_STATE_DRAFT, TOUR_STATE_RUNNING));
}

/* Each arrow's condition at its edge: one short of it and just enough. */
static void each_move_needs_what_the_diagram_says(void **state) {
        struct tour_state_facts f;
        (void) state;

        assert_int_equal(tour_state_move_check(TOUR_STATE_DRAFT, TOUR_STATE_REGISTRATION, &nothing_yet),
                         TOUR_MOVE_ALLOWED);
        assert_null(tour_state_move_needs(TOUR_STATE_DRAFT, TOUR_STATE_REGISTRATION));

        /* back to draft while nobody is registered (a dropped one counts) */
        f = (struct tour_state_facts) { .registrations = 1 };
        assert_int_equal(tour_state_move_check(TOUR_STATE_REGISTRATION, TOUR_STATE_DRAFT, &f), TOUR_MOVE_NOT_READY);
        assert_string_equal(tour_state_move_needs(TOUR_STATE_REGISTRATION, TOUR_STATE_DRAFT), "nobody registered");
        assert_int_equal(tour_state_move_check(TOUR_STATE_REGISTRATION, TOUR_STATE_DRAFT, &nothing_yet),
                         TOUR_MOVE_ALLOWED);

        /* check-in with two registrations */
        f = (struct tour_state_facts) { .registrations = TOUR_STATE_MIN_PLAYERS - 1 };
        assert_int_equal(tour_state_move_check(TOUR_STATE_REGISTRATION, TOUR_STATE_CHECK_IN, &f), TOUR_MOVE_NOT_READY);
        f.registrations = TOUR_STATE_MIN_PLAYERS;
        assert_int_equal(tour_state_move_check(TOUR_STATE_REGISTRATION, TOUR_STATE_CHECK_IN, &f), TOUR_MOVE_ALLOWED);
        assert_string_equal(tour_state_move_needs(TOUR_STATE_REGISTRATION, TOUR_STATE_CHECK_IN),
                            "two or more registrations");

        /* back from check_in and from running while no match was made */
        f = (struct tour_state_facts) { .registrations = 4, .checked_in = 4, .stages = 1, .open_stages = 1,
                                        .matches_made = 1 };
        assert_int_equal(tour_state_move_check(TOUR_STATE_CHECK_IN, TOUR_STATE_REGISTRATION, &f), TOUR_MOVE_NOT_READY);
        assert_int_equal(tour_state_move_check(TOUR_STATE_RUNNING, TOUR_STATE_CHECK_IN, &f), TOUR_MOVE_NOT_READY);
        assert_string_equal(tour_state_move_needs(TOUR_STATE_RUNNING, TOUR_STATE_CHECK_IN),
                            "no match made by any stage");
        f.matches_made = 0;
        assert_int_equal(tour_state_move_check(TOUR_STATE_CHECK_IN, TOUR_STATE_REGISTRATION, &f), TOUR_MOVE_ALLOWED);
        assert_int_equal(tour_state_move_check(TOUR_STATE_RUNNING, TOUR_STATE_CHECK_IN, &f), TOUR_MOVE_ALLOWED);

        /* running needs a stage and two checked in */
        f = (struct tour_state_facts) { .registrations = 5, .checked_in = 5 };
        assert_int_equal(tour_state_move_check(TOUR_STATE_CHECK_IN, TOUR_STATE_RUNNING, &f), TOUR_MOVE_NOT_READY);
        f = (struct tour_state_facts) { .registrations = 5, .checked_in = TOUR_STATE_MIN_PLAYERS - 1, .stages = 1 };
        assert_int_equal(tour_state_move_check(TOUR_STATE_CHECK_IN, TOUR_STATE_RUNNING, &f), TOUR_MOVE_NOT_READY);
        f.checked_in = TOUR_STATE_MIN_PLAYERS;
        assert_int_equal(tour_state_move_check(TOUR_STATE_CHECK_IN, TOUR_STATE_RUNNING, &f), TOUR_MOVE_ALLOWED);
        assert_string_equal(tour_state_move_needs(TOUR_STATE_CHECK_IN, TOUR_STATE_RUNNING),
                            "a stage and two or more checked-in players");

        /* finished when every stage is (and there is one) */
        f = (struct tour_state_facts) { .stages = 2, .open_stages = 1, .matches_made = 9 };
        assert_int_equal(tour_state_move_check(TOUR_STATE_RUNNING, TOUR_STATE_FINISHED, &f), TOUR_MOVE_NOT_READY);
        assert_int_equal(tour_state_move_check(TOUR_STATE_RUNNING, TOUR_STATE_FINISHED, &nothing_yet),
                         TOUR_MOVE_NOT_READY);
        f.open_stages = 0;
        assert_int_equal(tour_state_move_check(TOUR_STATE_RUNNING, TOUR_STATE_FINISHED, &f), TOUR_MOVE_ALLOWED);
        assert_string_equal(tour_state_move_needs(TOUR_STATE_RUNNING, TOUR_STATE_FINISHED), "every stage finished");

        /* reopening needs nothing, and alone begins an epoch */
        assert_int_equal(tour_state_move_check(TOUR_STATE_FINISHED, TOUR_STATE_RUNNING, &f), TOUR_MOVE_ALLOWED);
        for (int from = TOUR_STATE_DRAFT; from <= TOUR_STATE_LAST; from++)
                for (int to = TOUR_STATE_DRAFT; to <= TOUR_STATE_LAST; to++)
                        assert_int_equal(tour_state_move_begins_epoch((enum tour_state) from, (enum tour_state) to),
                                         from == TOUR_STATE_FINISHED && to == TOUR_STATE_RUNNING);
}

/* ---- players ------------------------------------------------------------------ */

static void a_registration_status_has_the_name_the_database_uses(void **state) {
        static const char *const names[] = { "active", "dropped", "disqualified" };
        enum tour_reg_status s;

        (void) state;
        for (int k = TOUR_REG_ACTIVE; k <= TOUR_REG_DISQUALIFIED; k++) {
                assert_string_equal(tour_reg_status_name((enum tour_reg_status) k), names[k - TOUR_REG_ACTIVE]);
                assert_int_equal(tour_reg_status_from_name(names[k - TOUR_REG_ACTIVE], &s), 0);
                assert_int_equal(s, k);
        }
        assert_null(tour_reg_status_name((enum tour_reg_status) 0));
        assert_null(tour_reg_status_name((enum tour_reg_status) (TOUR_REG_DISQUALIFIED + 1)));
        assert_int_equal(tour_reg_status_from_name("withdrawn", &s), -EINVAL);
        assert_int_equal(tour_reg_status_from_name(NULL, &s), -EINVAL);
}

/* Signing up is open from registration until the tournament ends (late
 * while it runs); a drop is possible until it is finished. */
static void registration_is_open_until_the_end_and_drops_until_finished(void **state) {
        (void) state;
        assert_false(tour_state_registration_open(TOUR_STATE_DRAFT));
        assert_true(tour_state_registration_open(TOUR_STATE_REGISTRATION));
        assert_true(tour_state_registration_open(TOUR_STATE_CHECK_IN));
        assert_true(tour_state_registration_open(TOUR_STATE_RUNNING));
        assert_false(tour_state_registration_open(TOUR_STATE_FINISHED));
        assert_false(tour_state_registration_open((enum tour_state) 0));

        for (int s = TOUR_STATE_DRAFT; s <= TOUR_STATE_LAST; s++)
                assert_int_equal(tour_state_drop_open((enum tour_state) s), s != TOUR_STATE_FINISHED);
        assert_false(tour_state_drop_open((enum tour_state) 0));
        assert_false(tour_state_drop_open((enum tour_state) (TOUR_STATE_LAST + 1)));
}

/* The one rule of late entry: the formats that pair each round from a
 * snapshot take late entrants, the ones whose structure is fixed at the
 * start do not. */
static void swiss_pods_league_and_race_take_late_entries_and_no_other_format(void **state) {
        (void) state;
        for (int f = TOUR_FORMAT_SINGLE_ELIM; f <= TOUR_FORMAT_GROUPS; f++) {
                bool late = f == TOUR_FORMAT_SWISS || f == TOUR_FORMAT_POD_SWISS || f == TOUR_FORMAT_LEAGUE ||
                            f == TOUR_FORMAT_RACE;
                assert_int_equal(tour_format_takes_late_entries((enum tour_format) f), late);
                assert_int_equal(tour_late_entry(TOUR_STATE_RUNNING, true, (enum tour_format) f),
                                 late ? TOUR_LATE_JOINS : TOUR_LATE_REFUSED);
                /* no stage running: late, waiting for one */
                assert_int_equal(tour_late_entry(TOUR_STATE_RUNNING, false, (enum tour_format) f), TOUR_LATE_WAITS);
                /* not started: not late at all */
                for (int s = TOUR_STATE_DRAFT; s <= TOUR_STATE_LAST; s++)
                        if (s != TOUR_STATE_RUNNING)
                                assert_int_equal(tour_late_entry((enum tour_state) s, true, (enum tour_format) f),
                                                 TOUR_LATE_NO);
        }
        assert_false(tour_format_takes_late_entries((enum tour_format) 0));
        assert_false(tour_format_takes_late_entries((enum tour_format) (TOUR_FORMAT_GROUPS + 1)));
        assert_int_equal(tour_late_entry(TOUR_STATE_RUNNING, true, (enum tour_format) 0), TOUR_LATE_REFUSED);
}

/* ---- fair draws ----------------------------------------------------------------- */

static void the_secrets_show_once_finished_and_every_earlier_epoch_always(void **state) {
        (void) state;
        for (int s = TOUR_STATE_DRAFT; s <= TOUR_STATE_LAST; s++) {
                bool finished = s == TOUR_STATE_FINISHED;
                assert_int_equal(tour_state_reveals_secrets((enum tour_state) s), finished);
                assert_int_equal(tour_secret_revealed((enum tour_state) s, 1, 1), finished);
                /* reopened: epoch 1 was revealed when it first finished */
                assert_true(tour_secret_revealed((enum tour_state) s, 1, 3));
                assert_true(tour_secret_revealed((enum tour_state) s, 2, 3));
                assert_int_equal(tour_secret_revealed((enum tour_state) s, 3, 3), finished);
                assert_false(tour_secret_revealed((enum tour_state) s, 0, 3));
                assert_false(tour_secret_revealed((enum tour_state) s, 4, 3));
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_state_has_the_name_the_api_and_the_database_use),
                cmocka_unit_test(check_in_opens_with_the_check_in_state_and_stays_open_while_running),
                cmocka_unit_test(the_moves_are_the_arrows_of_the_diagram_and_no_other),
                cmocka_unit_test(each_move_needs_what_the_diagram_says),
                cmocka_unit_test(a_registration_status_has_the_name_the_database_uses),
                cmocka_unit_test(registration_is_open_until_the_end_and_drops_until_finished),
                cmocka_unit_test(swiss_pods_league_and_race_take_late_entries_and_no_other_format),
                cmocka_unit_test(the_secrets_show_once_finished_and_every_earlier_epoch_always),
        };
        return cmocka_run_group_tests_name("states", tests, NULL, NULL);
}
