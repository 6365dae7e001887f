/* store/replica.c: the read replica's verdict, a pure function of its
 * connection's state, its last probe and the time, and the lag a probe
 * finds, a pure function of what it and the probes before it saw
 * (store/replica.h). */
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


/* ---- the lag of a probe ---------------------------------------------------- */

#define SEC (1000 * MS)

static struct store_replica_sample sample(int64_t sent_s, int64_t received, bool streaming) {
        return (struct store_replica_sample) { .sent_usec = sent_s * SEC, .received = received, .in_recovery = true,
                                               .streaming = streaming };
}

/* Not in recovery (a promoted replica), or streaming with all it received
 * replayed (also below it: a receiver that restarted): caught up. */
static void caught_up_is_no_lag(void **state) {
        struct store_replica_sample now = sample(10, 5000, true), primary = now;
        (void) state;
        primary.in_recovery = false;
        assert_int_equal(store_replica_lag_of(&primary, -1, -1, NULL, 0), 0);
        assert_int_equal(store_replica_lag_of(&now, 5000, 90000, NULL, 0), 0);
        assert_int_equal(store_replica_lag_of(&now, 7000, 90000, NULL, 0), 0);
}

/* The primary wrote nothing for 90 s, then once: the probe comes between
 * receive and replay.  The probe a second before found everything it had
 * received replayed, so the replica is at most a second behind, not 90. */
static void a_quiet_primary_is_not_lag(void **state) {
        struct store_replica_sample history[] = { sample(8, 4000, true), sample(9, 5000, true) };
        struct store_replica_sample now = sample(10, 5100, true);
        (void) state;
        assert_int_equal(store_replica_lag_of(&now, 5000, 90000, history, 2), 1000);
        /* without a history, only the commit's age is known */
        assert_int_equal(store_replica_lag_of(&now, 5000, 90000, NULL, 0), 90000);
}

/* Replay paused at 5000 while the primary writes on: the replica is as far
 * behind as the newest probe whose receipt it has replayed, or its newest
 * commit's age, whichever is less. */
static void paused_replay_grows(void **state) {
        struct store_replica_sample history[] = { sample(1, 5000, true), sample(2, 6000, true), sample(3, 7000, true) };
        struct store_replica_sample now = sample(4, 8000, true);
        (void) state;
        assert_int_equal(store_replica_lag_of(&now, 5000, 3500, history, 3), 3000);
        assert_int_equal(store_replica_lag_of(&now, 5000, 2500, history, 3), 2500);
        assert_int_equal(store_replica_lag_of(&now, 5000, -1, history, 3), 3000);
        /* nothing replayed of what any probe saw received, no commit replayed yet */
        assert_int_equal(store_replica_lag_of(&now, 4000, -1, history, 3), -1);
}

/* A probe that found the receiver not streaming (the primary's link cut)
 * says nothing of what the primary had then. */
static void a_probe_without_streaming_is_no_bound(void **state) {
        struct store_replica_sample history[] = { sample(1, 5000, true), sample(2, 5000, false), sample(3, 5000, false) };
        struct store_replica_sample now = sample(4, 5000, false);
        (void) state;
        assert_int_equal(store_replica_lag_of(&now, 5000, 60000, history, 3), 3000);
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
                cmocka_unit_test(caught_up_is_no_lag),
                cmocka_unit_test(a_quiet_primary_is_not_lag),
                cmocka_unit_test(paused_replay_grows),
                cmocka_unit_test(a_probe_without_streaming_is_no_bound),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
