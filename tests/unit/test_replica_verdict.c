/* store/replica.c: the read replica's verdict, a pure function of its
 * connection's state, its last probe and the time (store/replica.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "store/replica.h"

#define MS INT64_C(1000)
#define MAX_LAG_MS 5000

static const struct store_replica_probe caught_up = {
        .done = true, .in_recovery = true, .streaming = true, .lag_ms = 0, .sent_usec = 100 * MS,
};

static void not_ready_or_not_probed_is_unavailable(void **state) {
        struct store_replica_probe none = { 0 }, failed = caught_up;
        (void) state;

        failed.failed = true;
        for (enum store_state s = STORE_DISCONNECTED; s <= STORE_FAILED; s++)
                if (s != STORE_READY)
                        assert_int_equal(store_replica_verdict_of(s, &caught_up, 100 * MS, MAX_LAG_MS),
                                         STORE_REPLICA_UNAVAILABLE);
        assert_int_equal(store_replica_verdict_of(STORE_READY, &none, 100 * MS, MAX_LAG_MS),
                         STORE_REPLICA_UNAVAILABLE);
        assert_int_equal(store_replica_verdict_of(STORE_READY, &failed, 100 * MS, MAX_LAG_MS),
                         STORE_REPLICA_UNAVAILABLE);
        assert_int_equal(store_replica_verdict_of(STORE_READY, &caught_up, 100 * MS, MAX_LAG_MS), STORE_REPLICA_USE);
}

/* The lag at the probe plus the time since it was sent: the most it can be
 * behind now. */
static void lag_and_the_probes_age_add_up(void **state) {
        struct store_replica_probe p = caught_up;
        (void) state;

        p.lag_ms = 3000;
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec, MAX_LAG_MS), STORE_REPLICA_USE);
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec + 2000 * MS, MAX_LAG_MS),
                         STORE_REPLICA_USE);
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec + 2001 * MS, MAX_LAG_MS),
                         STORE_REPLICA_BEHIND);
        p.lag_ms = MAX_LAG_MS + 1;
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec, MAX_LAG_MS), STORE_REPLICA_BEHIND);
        /* a probe that never comes back ends the replica's use as well */
        p.lag_ms = 0;
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec + (MAX_LAG_MS + 1) * MS, MAX_LAG_MS),
                         STORE_REPLICA_BEHIND);
        /* a clock read before the probe's send counts as no time at all */
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec - MS, MAX_LAG_MS), STORE_REPLICA_USE);
}

static void unknown_lag_is_behind(void **state) {
        struct store_replica_probe p = caught_up;
        (void) state;

        p.lag_ms = -1;
        assert_int_equal(store_replica_verdict_of(STORE_READY, &p, p.sent_usec, MAX_LAG_MS), STORE_REPLICA_BEHIND);
}

/* replica_max_lag 0: only a replica caught up at a probe sent this very
 * millisecond; in practice, never (docs/arbiterd.conf.example). */
static void no_lag_allowed(void **state) {
        (void) state;
        assert_int_equal(store_replica_verdict_of(STORE_READY, &caught_up, caught_up.sent_usec, 0),
                         STORE_REPLICA_USE);
        assert_int_equal(store_replica_verdict_of(STORE_READY, &caught_up, caught_up.sent_usec + MS, 0),
                         STORE_REPLICA_BEHIND);
}

static void verdict_names(void **state) {
        (void) state;
        assert_string_equal(store_replica_verdict_to_string(STORE_REPLICA_USE), "use");
        assert_string_equal(store_replica_verdict_to_string(STORE_REPLICA_BEHIND), "behind");
        assert_string_equal(store_replica_verdict_to_string(STORE_REPLICA_UNAVAILABLE), "unavailable");
        assert_string_equal(store_replica_verdict_to_string((enum store_replica_verdict) 99), "unknown");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(not_ready_or_not_probed_is_unavailable),
                cmocka_unit_test(lag_and_the_probes_age_add_up),
                cmocka_unit_test(unknown_lag_is_behind),
                cmocka_unit_test(no_lag_allowed),
                cmocka_unit_test(verdict_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
