/* The store's pipeline mode (store/store.h, "Pipeline mode"; the input
 * lane's), against the harness's PostgreSQL, as plain C:
 *   - queries queued together are sent together and complete in the order
 *     queued, each callback once, each its own transaction (its own xid);
 *   - a statement that fails in the middle (a unique violation) fails
 *     alone: the ones before and after it are committed; one that fails
 *     only at its commit (a deferred constraint) is seen to fail, since a
 *     callback comes at its sync point, not at its command's result;
 *   - a statement cut by statement_timeout fails alone too, after the
 *     timeout was changed while queries were in flight (the SET leaves
 *     pipeline mode and the next queries enter it again);
 *   - a connection lost (its backend terminated from another session) with
 *     several queries in flight fails each exactly once, in order, commits
 *     none that the server had not run, and the store comes back READY and
 *     pipelines again.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event2/event.h>
#include <libpq-fe.h>

#include "common/log.h"
#include "common/loop.h"
#include "store/store.h"
#include "tests/integration/harness.h"
#include "tests/integration/own_store.h"

#define N_OPS 12

static struct store *pipe_store;
static enum store_state pipe_state;
static struct own_wait *pipe_ready;     /* set when the store becomes READY */

static void on_pipe_state(void *userdata, enum store_state state, const char *detail) {
        (void) userdata;
        pipe_state = state;
        if (state == STORE_READY && pipe_ready)
                pipe_ready->done = true;
        else if (state == STORE_FAILED)
                fail_msg("the pipelined store failed: %s", detail);
}

static void wait_ready(void) {
        struct own_wait ready = { 0 };

        if (pipe_state == STORE_READY)
                return;
        pipe_ready = &ready;
        own_wait_for(&ready, "the pipelined store becoming ready");
        pipe_ready = NULL;
}

static int setup(void **state) {
        (void) state;
        own_store_open("pipeline");
        struct store_config cfg = {
                .dsn = own_dsn,
                .statement_timeout_ms = HARNESS_WAIT_MS,
                .reconnect_max_s = 1,
                .hold_lock = true,
                .pipeline = true,
        };
        assert_int_equal(store_new(own_loop, &cfg, on_pipe_state, NULL, &pipe_store), 0);
        wait_ready();
        own_sql("CREATE TABLE pipe (k int PRIMARY KEY, xid text)");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        store_free(pipe_store);
        pipe_store = NULL;
        own_store_close();
        return 0;
}

/* What each callback saw, in the order they came. */
struct outcome {
        int calls;                      /* callbacks for this op: must end at 1 */
        int order;                      /* its place among all callbacks */
        bool ok;
        char value[64];
        char sqlstate[8];
        enum store_failure failure;
};

static struct outcome outcomes[N_OPS];
static int n_called;
static struct own_wait all_done;
static int expected;

static void on_result(void *userdata, const PGresult *res, const char *error) {
        struct outcome *o = userdata;
        struct store_error e;

        o->calls++;
        o->order = n_called++;
        o->ok = res != NULL;
        if (res && PQntuples(res) > 0)
                snprintf(o->value, sizeof o->value, "%s", PQgetvalue(res, 0, 0));
        if (!res) {
                assert_non_null(error);
                assert_true(store_error(pipe_store, &e));
                o->failure = e.failure;
                snprintf(o->sqlstate, sizeof o->sqlstate, "%s", e.sqlstate ? e.sqlstate : "");
        }
        if (n_called == expected)
                all_done.done = true;
}

static void reset(int n) {
        memset(outcomes, 0, sizeof outcomes);
        n_called = 0;
        expected = n;
        all_done = (struct own_wait) { 0 };
        own_sql("TRUNCATE pipe");
}

static void insert(int i, int k) {
        char key[16];
        const char *p[] = { key };

        snprintf(key, sizeof key, "%d", k);
        assert_int_equal(store_query(pipe_store,
                                     "INSERT INTO pipe (k, xid) VALUES ($1, pg_current_xact_id()::text) "
                                     "RETURNING xid", 1, p, on_result, &outcomes[i]), 0);
}

static void query(int i, const char *sql) {
        assert_int_equal(store_query(pipe_store, sql, 0, NULL, on_result, &outcomes[i]), 0);
}

static void on_turn(evutil_socket_t fd, short what, void *userdata) {
        struct own_wait *w = userdata;

        (void) fd, (void) what;
        w->done = true;
}

/* Runs the loop for one turn: the before-sleep hook sends what is queued. */
static void one_turn(void) {
        struct own_wait turn = { 0 };
        struct event *ev = evtimer_new(loop_base(own_loop), on_turn, &turn);

        assert_non_null(ev);
        struct timeval now = { 0, 0 };

        evtimer_add(ev, &now);
        own_wait_for(&turn, "one loop turn");
        event_free(ev);
}

static void check_each_once_in_order(int n) {
        for (int i = 0; i < n; i++) {
                assert_int_equal(outcomes[i].calls, 1);
                assert_int_equal(outcomes[i].order, i);
        }
        assert_int_equal(n_called, n);
        assert_int_equal(store_pending(pipe_store), 0);
}

static void queries_queued_together_complete_in_order_each_its_own_transaction(void **state) {
        (void) state;
        wait_ready();
        reset(N_OPS);
        for (int i = 0; i < N_OPS; i++)
                insert(i, i + 1);
        assert_int_equal(store_pending(pipe_store), N_OPS);
        own_wait_for(&all_done, "the pipelined inserts");
        check_each_once_in_order(N_OPS);
        for (int i = 0; i < N_OPS; i++) {
                assert_true(outcomes[i].ok);
                for (int j = 0; j < i; j++)     /* a transaction each */
                        assert_string_not_equal(outcomes[i].value, outcomes[j].value);
        }
        assert_int_equal(own_sql_int64("SELECT count(*) FROM pipe"), N_OPS);
        assert_int_equal(own_sql_int64("SELECT count(DISTINCT xid) FROM pipe"), N_OPS);
}

static void a_failing_statement_fails_alone(void **state) {
        (void) state;
        wait_ready();
        reset(5);
        insert(0, 1);
        insert(1, 2);
        insert(2, 1);                   /* a unique violation */
        insert(3, 3);
        insert(4, 4);
        own_wait_for(&all_done, "the pipelined inserts");
        check_each_once_in_order(5);
        assert_true(outcomes[0].ok);
        assert_true(outcomes[1].ok);
        assert_false(outcomes[2].ok);
        assert_string_equal(outcomes[2].sqlstate, "23505");
        assert_int_equal(outcomes[2].failure, STORE_FAILURE_CONFLICT);
        assert_true(outcomes[3].ok);
        assert_true(outcomes[4].ok);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM pipe"), 4);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM pipe WHERE k IN (1, 2, 3, 4)"), 4);

        /* A failure at commit (a deferred constraint): a callback comes at
         * its sync, not at its command's result, so it sees it. */
        reset(3);
        own_sql("CREATE TABLE IF NOT EXISTS pipe_deferred (k int UNIQUE DEFERRABLE INITIALLY DEFERRED)");
        own_sql("TRUNCATE pipe_deferred");
        query(0, "INSERT INTO pipe_deferred VALUES (1)");
        query(1, "INSERT INTO pipe_deferred VALUES (1)");
        query(2, "INSERT INTO pipe_deferred VALUES (2)");
        own_wait_for(&all_done, "the deferred inserts");
        check_each_once_in_order(3);
        assert_true(outcomes[0].ok);
        assert_false(outcomes[1].ok);
        assert_string_equal(outcomes[1].sqlstate, "23505");
        assert_true(outcomes[2].ok);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM pipe_deferred"), 2);
}

static void a_timeout_changed_in_flight_cuts_one_statement_alone(void **state) {
        (void) state;
        wait_ready();
        reset(6);
        insert(0, 1);
        insert(1, 2);
        /* A session change while those are in flight: the SET waits for
         * them, leaves pipeline mode, and the next queries enter it again. */
        one_turn();
        store_set_statement_timeout(pipe_store, 100);
        query(2, "SELECT pg_sleep(2)");
        insert(3, 3);
        query(4, "SHOW statement_timeout");
        insert(5, 4);
        own_wait_for(&all_done, "the queries after the SET");
        check_each_once_in_order(6);
        assert_true(outcomes[0].ok && outcomes[1].ok);
        assert_false(outcomes[2].ok);
        assert_string_equal(outcomes[2].sqlstate, "57014");
        assert_true(outcomes[3].ok);
        assert_true(outcomes[4].ok);
        assert_string_equal(outcomes[4].value, "100ms");
        assert_true(outcomes[5].ok);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM pipe"), 4);
        /* Back to the long timeout, set before the next test's queries. */
        store_set_statement_timeout(pipe_store, HARNESS_WAIT_MS);
        reset(1);
        query(0, "SHOW statement_timeout");
        own_wait_for(&all_done, "the timeout set back");
        assert_string_not_equal(outcomes[0].value, "100ms");
}

static void a_lost_connection_fails_each_in_flight_once_in_order(void **state) {
        char *active;
        int i;

        (void) state;
        wait_ready();
        reset(6);
        query(0, "SELECT pg_sleep(30) /* pipeline-test-blocker */");
        for (i = 1; i < 6; i++)
                insert(i, i);
        one_turn();             /* sends them all */
        /* The server is running the first: end its session. */
        for (i = 0; i < HARNESS_WAIT_MS / 10; i++) {
                active = own_sql_text("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                                      "AND query LIKE '%%pipeline-test-blocker%%' AND pid <> pg_backend_pid()");
                bool running = strcmp(active, "1") == 0;
                free(active);
                if (running)
                        break;
                usleep(10000);
        }
        assert_true(i < HARNESS_WAIT_MS / 10);
        assert_int_equal(own_sql_int64("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                       "WHERE query LIKE '%%pipeline-test-blocker%%' "
                                       "AND pid <> pg_backend_pid()) t"), 1);
        own_wait_for(&all_done, "the queries in flight to fail");
        check_each_once_in_order(6);
        for (i = 0; i < 6; i++) {
                assert_false(outcomes[i].ok);
                assert_int_equal(outcomes[i].failure, STORE_FAILURE_UNAVAILABLE);
        }
        assert_int_equal(own_sql_int64("SELECT count(*) FROM pipe"), 0);

        /* Back, and pipelining again. */
        wait_ready();
        reset(3);
        for (i = 0; i < 3; i++)
                insert(i, 10 + i);
        own_wait_for(&all_done, "the inserts after the reconnect");
        check_each_once_in_order(3);
        for (i = 0; i < 3; i++)
                assert_true(outcomes[i].ok);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(queries_queued_together_complete_in_order_each_its_own_transaction),
                cmocka_unit_test(a_failing_statement_fails_alone),
                cmocka_unit_test(a_timeout_changed_in_flight_cuts_one_statement_alone),
                cmocka_unit_test(a_lost_connection_fails_each_in_flight_once_in_order),
        };

        return cmocka_run_group_tests_name("store pipeline mode", tests, setup, teardown);
}
