/* The tournament service (organiser/tournaments.h,
 * organiser/registrations.h) driven as plain C, without HTTP: a loop, the
 * daemon's store on a database of the test's own, and the service's calls,
 * with what they hold beyond one statement:
 *   - the state machine: only the arrows of tournament/states.h, each with
 *     what it needs, in the words the API shows; a reopening's new epoch;
 *     of two moves decided on the same facts, one passes and the other is
 *     told the tournament moved meanwhile;
 *   - registrations: who may register when, a player registered once, the
 *     door (check-in) opening with check_in, drops until the end;
 *   - late entry, one rule for both ways in: registered while a stage that
 *     takes late entries runs, or registered before and checked in then
 *     for the first time — either way a late entrant of that stage, in the
 *     same statement; a stage that takes none refuses a registration and
 *     only marks a check-in present; before the first stage starts a
 *     check-in is not late;
 *   - the fair draws' calls: a call's seed shown once its match is over,
 *     and what the next call of a stage match draws from.
 * Stages are made, started and finished with plain SQL here: how they are
 * is the rounds' code, not this service's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <libpq-fe.h>

#include "common/log.h"
#include "common/loop.h"
#include "organiser/draws.h"
#include "organiser/registrations.h"
#include "organiser/tournaments.h"
#include "store/store.h"
#include "store/tournaments.h"
#include "tests/integration/harness.h"
#include "tests/integration/own_store.h"

static int setup(void **state) {
        (void) state;
        own_store_open("organiser");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        own_store_close();
        return 0;
}

/* ---- what a call reported, copied ---------------------------------------------- */

#define MAX_ROWS 16

struct got {
        struct own_wait w;
        enum org_outcome outcome;
        char detail[ORG_DETAIL_MAX];
        enum store_failure failure;
        /* a tournament */
        int64_t id, seed;
        char state[16];
        size_t n_secrets, n_stages, n_tables;
        char secrets[4][65];            /* each epoch's, hex */
        /* registrations */
        size_t n;
        struct {
                int64_t player;
                int seed;
                bool checked_in, late;
                char status[16];
        } regs[MAX_ROWS];
};

static void got_result(struct got *g, const struct org_result *r) {
        g->w.done = true;
        g->outcome = r->outcome;
        if (r->detail)
                snprintf(g->detail, sizeof g->detail, "%s", r->detail);
        if (r->outcome == ORG_STORE_FAILED)
                g->failure = r->failure ? r->failure->failure : STORE_FAILURE_INTERNAL;
        if (r->outcome == ORG_DONE)
                assert_null(r->detail);
        else
                assert_true(r->outcome == ORG_STORE_FAILED || (r->detail && r->detail[0]));
}

static void on_tournament(void *userdata, const struct org_result *r, const struct store_tournament_row *t) {
        struct got *g = userdata;

        got_result(g, r);
        if (r->outcome != ORG_DONE) {
                assert_null(t);
                return;
        }
        g->id = t->id;
        g->seed = t->seed;
        snprintf(g->state, sizeof g->state, "%s", t->state);
        g->n_secrets = t->n_secrets;
        g->n_stages = t->n_stages;
        g->n_tables = t->n_tables;
        for (size_t i = 0; i < t->n_secrets && i < 4; i++) {
                assert_int_equal(t->secrets[i].epoch, (int) i + 1);
                snprintf(g->secrets[i], sizeof g->secrets[i], "%s", t->secrets[i].secret);
        }
}

static void on_registrations(void *userdata, const struct org_result *r, const struct store_registration_row *rows,
                             size_t n) {
        struct got *g = userdata;

        got_result(g, r);
        if (r->outcome != ORG_DONE) {
                assert_null(rows);
                assert_int_equal(n, 0);
                return;
        }
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++) {
                g->regs[i].player = rows[i].player_id;
                g->regs[i].seed = rows[i].seed;
                g->regs[i].checked_in = rows[i].checked_in;
                g->regs[i].late = rows[i].late;
                snprintf(g->regs[i].status, sizeof g->regs[i].status, "%s", rows[i].status);
        }
}

/* ---- the calls, waited for ---------------------------------------------------------- */

static struct got create(bool competitive, uint64_t seed, const int64_t *tables, size_t n_tables) {
        struct got g = { 0 };
        struct org_tournament_new t = {
                .name = "Friday club night",
                .game = "crash-pilot",
                .competitive = competitive,
                .has_seed = !competitive,
                .seed = seed,
                .match_config = "{}",
                .tables = tables,
                .n_tables = n_tables,
                .who = "test",
        };

        assert_int_equal(org_tournament_create(own_store, &t, on_tournament, &g), 0);
        own_wait_for(&g.w, "creating a tournament");
        return g;
}

static struct got move(int64_t id, enum tour_state to) {
        struct got g = { 0 };

        assert_int_equal(org_tournament_move(own_store, id, to, on_tournament, &g), 0);
        own_wait_for(&g.w, "a move");
        return g;
}

static struct got reg(int64_t t, int64_t player, int seed) {
        struct got g = { 0 };
        struct org_registration_new r = { .tournament = t, .player = player, .seed = seed, .who = "test" };

        assert_int_equal(org_register(own_store, &r, on_registrations, &g), 0);
        own_wait_for(&g.w, "a registration");
        return g;
}

static struct got change(int64_t t, int64_t player, enum org_registration_change what) {
        struct got g = { 0 };

        assert_int_equal(org_registration_change(own_store, t, player, what, "test", on_registrations, &g), 0);
        own_wait_for(&g.w, "a change of a registration");
        return g;
}

static struct got list(int64_t t) {
        struct got g = { 0 };

        assert_int_equal(org_registrations_list(own_store, t, on_registrations, &g), 0);
        own_wait_for(&g.w, "the registrations");
        return g;
}

/* Asserts a refusal: outcome and the words the API shows. */
static void refused(struct got g, enum org_outcome outcome, const char *detail) {
        if (g.outcome != outcome || strcmp(g.detail, detail) != 0)
                fail_msg("expected %d \"%s\", got %d \"%s\"", outcome, detail, g.outcome, g.detail);
}

static int64_t new_player(const char *name) {
        return own_sql_int64("INSERT INTO players (name) VALUES ('%s') RETURNING id", name);
}

/* A stage of tournament t, as POST .../stages stores it. */
static int64_t new_stage(int64_t t, int number, const char *format) {
        return own_sql_int64("INSERT INTO stages (tournament_id, number, format, config) VALUES (%" PRId64 ", %d, '%s', "
                         "'{}') RETURNING id", t, number, format);
}

/* Starts stage with the tournament's checked-in active players, as the
 * first round of the first stage does. */
static void start_stage(int64_t stage) {
        own_sql("UPDATE stages s SET state = 'running', entrants = coalesce((SELECT array_agg(r.player_id "
            "ORDER BY r.player_id) FROM registrations r WHERE r.tournament_id = s.tournament_id AND r.checked_in "
            "AND r.status = 'active'), '{}') WHERE s.id = %" PRId64, stage);
}

static bool entrant_of(int64_t stage, int64_t player) {
        char *v = own_sql_text("SELECT %" PRId64 " = ANY (entrants) FROM stages WHERE id = %" PRId64, player, stage);
        bool in = strcmp(v, "t") == 0;

        free(v);
        return in;
}

static int64_t entrants(int64_t stage) {
        return own_sql_int64("SELECT coalesce(cardinality(entrants), 0) FROM stages WHERE id = %" PRId64, stage);
}

/* A tournament in running with players[0..n) registered and checked in,
 * absent[0..n_absent) registered only, and a stage of format, started with
 * the checked-in players when start; its id, the stage's in *ret_stage. */
static int64_t running_with(const char *format, const int64_t *players, size_t n, const int64_t *absent,
                            size_t n_absent, bool start, int64_t *ret_stage) {
        struct got g = create(false, 7, NULL, 0);
        int64_t t = g.id;

        assert_int_equal(move(t, TOUR_STATE_REGISTRATION).outcome, ORG_DONE);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(reg(t, players[i], 0).outcome, ORG_DONE);
        for (size_t i = 0; i < n_absent; i++)
                assert_int_equal(reg(t, absent[i], 0).outcome, ORG_DONE);
        assert_int_equal(move(t, TOUR_STATE_CHECK_IN).outcome, ORG_DONE);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(change(t, players[i], ORG_CHECK_IN).outcome, ORG_DONE);
        *ret_stage = new_stage(t, 1, format);
        assert_int_equal(move(t, TOUR_STATE_RUNNING).outcome, ORG_DONE);
        if (start)
                start_stage(*ret_stage);
        return t;
}

/* ---- the state machine ------------------------------------------------------------- */

static void a_tournament_moves_only_along_the_arrows_with_what_each_needs(void **state) {
        int64_t p[3], t, stage;
        char secret[SEED_HEX_LEN + 1];
        struct got g;
        (void) state;

        for (int i = 0; i < 3; i++)
                p[i] = new_player(unique_name("mover"));
        g = create(false, 2026, NULL, 0);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_string_equal(g.state, "draft");
        assert_int_equal(g.seed, 2026);
        assert_int_equal(g.n_secrets, 1);
        /* a non-competitive tournament's secret follows from its seed */
        assert_int_equal(org_secret_new(false, 2026, 1, secret), 0);
        assert_string_equal(g.secrets[0], secret);
        t = g.id;

        refused(move(t, TOUR_STATE_RUNNING), ORG_CONFLICT,
                "state: a tournament in draft can move to registration, not to running");
        assert_int_equal(move(t, TOUR_STATE_REGISTRATION).outcome, ORG_DONE);
        refused(move(t, TOUR_STATE_CHECK_IN), ORG_CONFLICT,
                "state: registration → check_in needs two or more registrations");
        assert_int_equal(reg(t, p[0], 0).outcome, ORG_DONE);
        refused(move(t, TOUR_STATE_DRAFT), ORG_CONFLICT, "state: registration → draft needs nobody registered");
        refused(move(t, TOUR_STATE_CHECK_IN), ORG_CONFLICT,
                "state: registration → check_in needs two or more registrations");
        assert_int_equal(reg(t, p[1], 0).outcome, ORG_DONE);
        assert_int_equal(reg(t, p[2], 0).outcome, ORG_DONE);
        g = move(t, TOUR_STATE_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_string_equal(g.state, "check_in");

        /* running: a stage and two checked in */
        refused(move(t, TOUR_STATE_RUNNING), ORG_CONFLICT,
                "state: check_in → running needs a stage and two or more checked-in players");
        stage = new_stage(t, 1, "swiss");
        assert_int_equal(change(t, p[0], ORG_CHECK_IN).outcome, ORG_DONE);
        refused(move(t, TOUR_STATE_RUNNING), ORG_CONFLICT,
                "state: check_in → running needs a stage and two or more checked-in players");
        assert_int_equal(change(t, p[1], ORG_CHECK_IN).outcome, ORG_DONE);
        g = move(t, TOUR_STATE_RUNNING);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_stages, 1);

        /* back to check_in while no match is made; not once one is */
        assert_int_equal(move(t, TOUR_STATE_CHECK_IN).outcome, ORG_DONE);
        assert_int_equal(move(t, TOUR_STATE_RUNNING).outcome, ORG_DONE);
        start_stage(stage);
        own_sql("INSERT INTO stage_matches (stage_id, round, table_no, participants) VALUES (%" PRId64 ", 1, 1, "
            "ARRAY[%" PRId64 ", %" PRId64 "])", stage, p[0], p[1]);
        refused(move(t, TOUR_STATE_CHECK_IN), ORG_CONFLICT,
                "state: running → check_in needs no match made by any stage");
        refused(move(t, TOUR_STATE_FINISHED), ORG_CONFLICT, "state: running → finished needs every stage finished");
        refused(move(t, TOUR_STATE_DRAFT), ORG_CONFLICT,
                "state: a tournament in running can move to check_in, finished, not to draft");
        own_sql("UPDATE stages SET state = 'finished' WHERE id = %" PRId64, stage);
        g = move(t, TOUR_STATE_FINISHED);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_secrets, 1);

        /* reopening: a new epoch, its secret from the seed and epoch 2 */
        g = move(t, TOUR_STATE_RUNNING);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_secrets, 2);
        assert_int_equal(org_secret_new(false, 2026, 2, secret), 0);
        assert_string_equal(g.secrets[1], secret);
        assert_string_not_equal(g.secrets[0], g.secrets[1]);

        refused(move(987654321, TOUR_STATE_REGISTRATION), ORG_NOT_FOUND, "there is no tournament 987654321");
        assert_int_equal(org_tournament_move(own_store, t, (enum tour_state) 0, on_tournament, &g), -EINVAL);
}

/* Two moves decided on the same facts: the store runs the statements in
 * the order they were queued, so both read the facts before either moves;
 * the first moves and the second finds the tournament moved. */
static void of_two_moves_decided_at_once_one_passes_and_the_other_is_told(void **state) {
        struct got a = { 0 }, b = { 0 }, g;
        (void) state;

        g = create(true, 0, NULL, 0);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(org_tournament_move(own_store, g.id, TOUR_STATE_REGISTRATION, on_tournament, &a), 0);
        assert_int_equal(org_tournament_move(own_store, g.id, TOUR_STATE_REGISTRATION, on_tournament, &b), 0);
        own_wait_for(&a.w, "the first move");
        own_wait_for(&b.w, "the second move");
        assert_int_equal(a.outcome, ORG_DONE);
        assert_string_equal(a.state, "registration");
        refused(b, ORG_CONFLICT, "the tournament changed state meanwhile; try again");
        assert_int_equal(own_sql_int64("SELECT cardinality(secrets) FROM tournaments WHERE id = %" PRId64, g.id), 1);
}

static void a_tournament_calls_only_at_tables_that_exist(void **state) {
        int64_t table, tables[2];
        struct got g;
        (void) state;

        table = own_sql_int64("INSERT INTO tables (venue, name, created_by) VALUES ('main', '%s', 'test') RETURNING id",
                          unique_name("table"));
        tables[0] = table;
        tables[1] = table + 1000000;
        refused(create(false, 1, tables, 2), ORG_INVALID,
                "tables: names a table that does not exist (GET /v1/tables)");
        g = create(false, 1, tables, 1);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n_tables, 1);
}

/* ---- registrations ---------------------------------------------------------------- */

static void who_may_register_check_in_and_drop_and_when(void **state) {
        int64_t p[4], idle, t;
        struct got g;
        char detail[ORG_DETAIL_MAX];
        (void) state;

        for (int i = 0; i < 4; i++)
                p[i] = new_player(unique_name("entrant"));
        idle = new_player(unique_name("retired"));
        own_sql("UPDATE players SET active = false WHERE id = %" PRId64, idle);
        t = create(false, 3, NULL, 0).id;

        refused(reg(987654321, p[0], 0), ORG_NOT_FOUND, "there is no tournament 987654321");
        refused(reg(t, 987654321, 0), ORG_INVALID, "player: there is no such player");
        refused(reg(t, idle, 0), ORG_CONFLICT, "player: is not active (PATCH /v1/players/{id})");
        refused(reg(t, p[0], 0), ORG_CONFLICT, "registration is closed while the tournament is draft");
        assert_int_equal(move(t, TOUR_STATE_REGISTRATION).outcome, ORG_DONE);

        g = reg(t, p[0], 0);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n, 1);
        assert_int_equal(g.regs[0].player, p[0]);
        assert_false(g.regs[0].checked_in);
        assert_false(g.regs[0].late);
        assert_string_equal(g.regs[0].status, "active");
        refused(reg(t, p[0], 0), ORG_CONFLICT, "player: already registered");
        assert_int_equal(reg(t, p[1], 2).outcome, ORG_DONE);
        assert_int_equal(reg(t, p[2], 1).outcome, ORG_DONE);
        assert_int_equal(reg(t, p[3], 0).outcome, ORG_DONE);
        /* by seed, the unseeded last in the order they came */
        g = list(t);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_int_equal(g.n, 4);
        assert_int_equal(g.regs[0].player, p[2]);
        assert_int_equal(g.regs[0].seed, 1);
        assert_int_equal(g.regs[1].player, p[1]);
        assert_int_equal(g.regs[2].player, p[0]);
        assert_int_equal(g.regs[2].seed, 0);
        assert_int_equal(g.regs[3].player, p[3]);
        refused(list(987654321), ORG_NOT_FOUND, "there is no tournament 987654321");

        /* the door opens with check_in */
        snprintf(detail, sizeof detail, "check-in opens with the check_in state (POST /v1/tournaments/%" PRId64
                 "/state); the tournament is in registration", t);
        refused(change(t, p[0], ORG_CHECK_IN), ORG_CONFLICT, detail);
        snprintf(detail, sizeof detail, "player %" PRId64 " is not registered", idle);
        refused(change(t, idle, ORG_CHECK_IN), ORG_NOT_FOUND, detail);
        refused(change(987654321, p[0], ORG_DROP), ORG_NOT_FOUND, "there is no tournament 987654321");
        assert_int_equal(move(t, TOUR_STATE_CHECK_IN).outcome, ORG_DONE);
        g = change(t, p[0], ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].checked_in);
        assert_false(g.regs[0].late);
        /* twice is harmless */
        g = change(t, p[0], ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].checked_in);

        /* dropped: not checked in again, not dropped again */
        g = change(t, p[3], ORG_DROP);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_string_equal(g.regs[0].status, "dropped");
        refused(change(t, p[3], ORG_CHECK_IN), ORG_CONFLICT, "the player is dropped");
        refused(change(t, p[3], ORG_DISQUALIFY), ORG_CONFLICT, "the player is already dropped");
        g = change(t, p[2], ORG_DISQUALIFY);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_string_equal(g.regs[0].status, "disqualified");

        /* a finished tournament's registrations are final */
        int64_t stage = new_stage(t, 1, "swiss");
        assert_int_equal(change(t, p[1], ORG_CHECK_IN).outcome, ORG_DONE);
        assert_int_equal(move(t, TOUR_STATE_RUNNING).outcome, ORG_DONE);
        own_sql("UPDATE stages SET state = 'finished' WHERE id = %" PRId64, stage);
        assert_int_equal(move(t, TOUR_STATE_FINISHED).outcome, ORG_DONE);
        refused(change(t, p[1], ORG_DROP), ORG_CONFLICT, "the tournament is finished");
        refused(change(t, p[1], ORG_CHECK_IN), ORG_CONFLICT, "the tournament is finished");
        refused(reg(t, new_player(unique_name("too_late")), 0), ORG_CONFLICT,
                "registration is closed while the tournament is finished");
}

/* ---- late entry ------------------------------------------------------------------------ */

static void a_registration_while_a_swiss_runs_is_a_late_entrant_of_it(void **state) {
        int64_t p[3], late, t, stage;
        struct got g;
        (void) state;

        for (int i = 0; i < 3; i++)
                p[i] = new_player(unique_name("swiss"));
        late = new_player(unique_name("late"));
        t = running_with("swiss", p, 3, NULL, 0, true, &stage);
        assert_int_equal(entrants(stage), 3);

        g = reg(t, late, 0);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].checked_in);
        assert_true(g.regs[0].late);
        assert_int_equal(entrants(stage), 4);
        assert_true(entrant_of(stage, late));
        /* the last entrant: starts on 0 points from the next round */
        assert_int_equal(own_sql_int64("SELECT entrants[4] FROM stages WHERE id = %" PRId64, stage), late);
}

static void a_stage_that_takes_no_late_entries_refuses_a_registration(void **state) {
        int64_t p[2], t, stage;
        struct got g;
        (void) state;

        p[0] = new_player(unique_name("cup"));
        p[1] = new_player(unique_name("cup"));
        t = running_with("single_elimination", p, 2, NULL, 0, true, &stage);
        refused(reg(t, new_player(unique_name("late")), 0), ORG_CONFLICT,
                "the running stage (single_elimination) takes no late entries");
        assert_int_equal(entrants(stage), 2);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM registrations WHERE tournament_id = %" PRId64, t), 2);

        /* between two stages no stage runs: late, in none for now */
        own_sql("UPDATE stages SET state = 'finished' WHERE id = %" PRId64, stage);
        new_stage(t, 2, "swiss");
        g = reg(t, new_player(unique_name("between")), 0);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].late);
        assert_true(g.regs[0].checked_in);
        assert_int_equal(entrants(stage), 2);
}

/* The gap check-in left: a player registered weeks ahead who arrives once
 * the first stage has started was marked present and put in no stage, and
 * could not register again as a late entry.  Now arriving is entering, by
 * the one rule of late entry. */
static void a_player_registered_before_who_arrives_while_a_swiss_runs_joins_it_late(void **state) {
        int64_t p[3], arrives, t, stage;
        struct got g;
        (void) state;

        for (int i = 0; i < 3; i++)
                p[i] = new_player(unique_name("early"));
        arrives = new_player(unique_name("arrives"));
        t = running_with("swiss", p, 3, &arrives, 1, true, &stage);
        assert_int_equal(entrants(stage), 3);
        assert_false(entrant_of(stage, arrives));

        g = change(t, arrives, ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].checked_in);
        assert_true(g.regs[0].late);
        assert_int_equal(entrants(stage), 4);
        assert_int_equal(own_sql_int64("SELECT entrants[4] FROM stages WHERE id = %" PRId64, stage), arrives);

        /* checking in again changes nothing; nor does it for one who was
         * there from the start */
        g = change(t, arrives, ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].late);
        g = change(t, p[0], ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_false(g.regs[0].late);
        assert_int_equal(entrants(stage), 4);

        /* and registering him now is what it always was: registered already */
        refused(reg(t, arrives, 0), ORG_CONFLICT, "player: already registered");
}

static void a_check_in_while_a_stage_that_takes_none_runs_only_marks_the_player_present(void **state) {
        int64_t p[2], arrives, t, stage;
        struct got g;
        (void) state;

        p[0] = new_player(unique_name("cup"));
        p[1] = new_player(unique_name("cup"));
        arrives = new_player(unique_name("arrives"));
        t = running_with("double_elimination", p, 2, &arrives, 1, true, &stage);
        g = change(t, arrives, ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].checked_in);
        assert_false(g.regs[0].late);
        assert_int_equal(entrants(stage), 2);
        assert_false(entrant_of(stage, arrives));
}

/* Running, the first stage not started yet: a check-in is not late, and
 * the stage starts with the player. */
static void a_check_in_before_the_first_stage_starts_is_not_late(void **state) {
        int64_t p[2], arrives, t, stage;
        struct got g;
        (void) state;

        p[0] = new_player(unique_name("early"));
        p[1] = new_player(unique_name("early"));
        arrives = new_player(unique_name("arrives"));
        t = running_with("swiss", p, 2, &arrives, 1, false, &stage);
        g = change(t, arrives, ORG_CHECK_IN);
        assert_int_equal(g.outcome, ORG_DONE);
        assert_true(g.regs[0].checked_in);
        assert_false(g.regs[0].late);
        assert_int_equal(entrants(stage), 0);
        start_stage(stage);
        assert_int_equal(entrants(stage), 3);
        assert_true(entrant_of(stage, arrives));
}

/* ---- calls ------------------------------------------------------------------------------ */

struct calls_got {
        struct own_wait w;
        enum org_outcome outcome;
        char detail[ORG_DETAIL_MAX];
        size_t n;
        struct store_call_row row;      /* the first; its text not kept */
        char state[16];
};

static void on_calls(void *userdata, const struct org_result *r, const struct store_call_row *rows, size_t n) {
        struct calls_got *g = userdata;

        g->w.done = true;
        g->outcome = r->outcome;
        if (r->detail)
                snprintf(g->detail, sizeof g->detail, "%s", r->detail);
        g->n = n;
        if (n) {
                g->row = rows[0];
                snprintf(g->state, sizeof g->state, "%s", rows[0].state);
                g->row.state = g->row.called_at = NULL;
        }
}

static struct calls_got calls(int64_t t) {
        struct calls_got g = { 0 };

        assert_int_equal(org_tournament_calls(own_store, t, on_calls, &g), 0);
        own_wait_for(&g.w, "the calls");
        return g;
}

struct next_got {
        struct own_wait w;
        size_t n;
        int epoch, attempt;
        char secret[SEED_HEX_LEN + 1];
};

static void on_next_call(void *userdata, const struct store_next_call *rows, size_t n,
                         const struct store_error *failure, const char *error) {
        struct next_got *g = userdata;

        (void) error;
        assert_null(failure);
        g->w.done = true;
        g->n = n;
        if (n) {
                g->epoch = rows[0].epoch;
                g->attempt = rows[0].attempt;
                snprintf(g->secret, sizeof g->secret, "%s", rows[0].secret);
        }
}

static struct next_got next_call(int64_t t, int64_t stage_match) {
        struct next_got g = { 0 };

        assert_int_equal(store_tournaments_next_call(own_store, t, stage_match, on_next_call, &g), 0);
        own_wait_for(&g.w, "the next call");
        return g;
}

/* Each call of a stage match is a new deck from the current secret and the
 * call's identity; the list shows a call's seed once its match is over. */
static void a_calls_seed_shows_once_its_match_is_over_and_the_next_call_is_a_new_attempt(void **state) {
        char secret[SEED_HEX_LEN + 1];
        struct calls_got c;
        struct next_got nc;
        int64_t t, m;
        (void) state;

        t = create(false, 11, NULL, 0).id;
        c = calls(987654321);
        assert_int_equal(c.outcome, ORG_NOT_FOUND);
        assert_string_equal(c.detail, "there is no tournament 987654321");
        c = calls(t);
        assert_int_equal(c.outcome, ORG_DONE);
        assert_int_equal(c.n, 0);

        assert_int_equal(org_secret_new(false, 11, 1, secret), 0);
        nc = next_call(t, 5);
        assert_int_equal(nc.n, 1);
        assert_string_equal(nc.secret, secret);
        assert_int_equal(nc.epoch, 1);
        assert_int_equal(nc.attempt, 1);
        assert_int_equal(next_call(987654321, 5).n, 0);

        m = own_sql_int64("INSERT INTO matches (venue, game, seed, config, seats, created_by) "
                      "VALUES ('main', 'crash-pilot', 4242, '{}', '[]', 'test') RETURNING id");
        own_sql("INSERT INTO match_calls (match_id, tournament_id, stage_match_id, attempt, epoch) "
            "VALUES (%" PRId64 ", %" PRId64 ", 5, 1, 1)", m, t);
        c = calls(t);
        assert_int_equal(c.n, 1);
        assert_int_equal(c.row.match_id, m);
        assert_int_equal(c.row.stage_match_id, 5);
        assert_int_equal(c.row.attempt, 1);
        assert_int_equal(c.row.epoch, 1);
        assert_string_equal(c.state, "ready");
        assert_false(c.row.has_seed);
        assert_int_equal(c.row.seed, 0);
        assert_int_equal(next_call(t, 5).attempt, 2);
        assert_int_equal(next_call(t, 6).attempt, 1);

        own_sql("UPDATE matches SET state = 'aborted' WHERE id = %" PRId64, m);
        c = calls(t);
        assert_string_equal(c.state, "aborted");
        assert_true(c.row.has_seed);
        assert_int_equal(c.row.seed, 4242);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_tournament_moves_only_along_the_arrows_with_what_each_needs),
                cmocka_unit_test(of_two_moves_decided_at_once_one_passes_and_the_other_is_told),
                cmocka_unit_test(a_tournament_calls_only_at_tables_that_exist),
                cmocka_unit_test(who_may_register_check_in_and_drop_and_when),
                cmocka_unit_test(a_registration_while_a_swiss_runs_is_a_late_entrant_of_it),
                cmocka_unit_test(a_stage_that_takes_no_late_entries_refuses_a_registration),
                cmocka_unit_test(a_player_registered_before_who_arrives_while_a_swiss_runs_joins_it_late),
                cmocka_unit_test(a_check_in_while_a_stage_that_takes_none_runs_only_marks_the_player_present),
                cmocka_unit_test(a_check_in_before_the_first_stage_starts_is_not_late),
                cmocka_unit_test(a_calls_seed_shows_once_its_match_is_over_and_the_next_call_is_a_new_attempt),
        };

        return cmocka_run_group_tests_name("the tournament service", tests, setup, teardown);
}
