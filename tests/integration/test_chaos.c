/* Nothing acknowledged is ever lost (issue 11; docs/testing.md, "Chaos"):
 * matches of every game, played by a referee over REST and by pads on a
 * pty (tests/integration/chaos.h), while
 *   - kills: the daemon is killed (SIGKILL) at random moments, and started
 *     again;
 *   - database: PostgreSQL stops and starts at random moments (the first
 *     outage, and every other one at random, begins with an input's write in
 *     flight: another session holds a lock on match_inputs);
 *   - fsync: the database is down, the inputs go to the spool, and its
 *     fdatasync starts failing (the shim of tests/fault/): after that
 *     nothing is acknowledged (REST inputs get an error, presses no ACK),
 *     the daemon stops, and once the disk is back what was acknowledged
 *     before is stored.
 * After each, every acknowledged input is in its match's stored log, every
 * match is live again with the state of its stored log (replayed here, each
 * state hash as stored), or over.
 *
 * Sizes: ARBITER_CHAOS_KILLS (default 5), ARBITER_CHAOS_OUTAGES (2),
 * ARBITER_CHAOS_FSYNC_FAILURES (1), within ARBITER_CHAOS_SECONDS when set
 * (tests/soak/chaos.sh runs the long version); ARBITER_CHAOS_SEED draws a
 * run's moments again. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/chaos.h"
#include "tests/integration/sse_client.h"

/* The moments of a scene: a kill comes up to KILL_SPREAD_US into play;
 * before an outage or a failing disk the matches play PLAY_MIN_US plus up
 * to PLAY_SPREAD_US, and as long again while the database is down (long
 * enough for inputs to be spooled and acknowledged). */
#define KILL_SPREAD_US          (600 * 1000)
#define PLAY_MIN_US             (200 * 1000)
#define PLAY_SPREAD_US          (600 * 1000)

static int64_t play_us(struct chaos *c) {
        return PLAY_MIN_US + (int64_t) chaos_rand(c, PLAY_SPREAD_US);
}

static struct chaos stage;

static int teardown(void **state) {
        (void) state;
        chaos_done(&stage);
        return 0;
}

static void report(const struct chaos *c, unsigned rounds, unsigned wanted) {
        print_message("# chaos %s: %u of %u rounds in %.1f s; acknowledged: %zu REST inputs (%zu spooled) and %zu pad presses; "
                      "after the fault: %zu REST inputs refused, %zu presses made; %zu matches; %zu checks passed\n",
                      c->scene, rounds, wanted, (double) (mono_ms() - c->started_ms) / 1000, c->acked_rest, c->acked_spooled, c->acked_presses,
                      c->refused_after_fault, c->presses_after_fault, c->n_matches, c->checks);
}

/* ---- kills --------------------------------------------------------------- */

struct killer {
        pid_t pid;
        int64_t after_us;
        atomic_bool done;
};

/* Kills the daemon after its moment, while the main thread plays on. */
static void *killer_main(void *userdata) {
        struct killer *k = userdata;
        struct timespec ts = { .tv_sec = k->after_us / 1000000, .tv_nsec = (k->after_us % 1000000) * 1000 };

        nanosleep(&ts, NULL);
        kill(k->pid, SIGKILL);
        atomic_store(&k->done, true);
        return NULL;
}

static void kill_9_at_random_moments(void **state) {
        unsigned wanted = chaos_knob("ARBITER_CHAOS_KILLS", 5), k;
        int64_t deadline = chaos_deadline();
        char when[64];
        (void) state;

        chaos_init(&stage, "kills");
        for (k = 1; k <= wanted && mono_ms() < deadline; k++) {
                struct killer killer = { .pid = stage.o.d.pid, .after_us = (int64_t) chaos_rand(&stage, KILL_SPREAD_US) };
                pthread_t t;

                stage.round = k;
                assert_int_equal(pthread_create(&t, NULL, killer_main, &killer), 0);
                while (!atomic_load(&killer.done) && chaos_step(&stage))
                        usleep(1000);
                pthread_join(t, NULL);
                assert_int_equal(daemon_wait_exit(&stage.o.d), 128 + SIGKILL);
                stage.o.running = false;
                chaos_read_pads(&stage);

                chaos_restart(&stage);
                chaos_settle(&stage);
                snprintf(when, sizeof when, "after kill %u (%lld ms in)", k, (long long) killer.after_us / 1000);
                chaos_check(&stage, when);
        }
        report(&stage, k - 1, wanted);
        assert_true(stage.acked_rest > 0);
}

/* ---- database outages --------------------------------------------------- */

static void postgresql_stops_and_starts_at_random(void **state) {
        unsigned wanted = chaos_knob("ARBITER_CHAOS_OUTAGES", 2), k;
        int64_t deadline = chaos_deadline();
        char when[64];
        (void) state;

        chaos_init(&stage, "database");
        for (k = 1; k <= wanted && mono_ms() < deadline; k++) {
                stage.round = k;
                chaos_drive(&stage, play_us(&stage));
                bool held = k == 1 || chaos_rand(&stage, 2) == 0;
                if (held)
                        chaos_hold_a_write(&stage);
                outage_pg(&stage.o, "stop");
                assert_true(wait_database_state(&stage.o.d, "disconnected", HARNESS_WAIT_MS));
                stage.db_down = true;
                chaos_drive(&stage, play_us(&stage));
                outage_pg(&stage.o, "start");
                stage.db_down = false;
                assert_true(wait_database_state(&stage.o.d, "ready", HARNESS_WAIT_MS));
                chaos_settle(&stage);
                snprintf(when, sizeof when, "after outage %u%s", k, held ? " (begun with a write in flight)" : "");
                chaos_check(&stage, when);
        }
        report(&stage, k - 1, wanted);
        assert_int_equal(daemon_stop(&stage.o.d, SIGTERM, NULL), 0);
        stage.o.running = false;
}

/* ---- fsync failures ----------------------------------------------------- */

/* The disk starts failing the spool's fsyncs: the fault begins. */
static void disk_fails(struct chaos *c) {
        assert_int_equal(run_cmd("touch '%s'", c->fail_flag), 0);
        c->fault = true;
}

static void after_a_failed_fsync_nothing_is_acknowledged(void **state) {
        unsigned wanted = chaos_knob("ARBITER_CHAOS_FSYNC_FAILURES", 1), k;
        int64_t deadline = chaos_deadline();
        char when[64];
        (void) state;

        chaos_init(&stage, "fsync");
        for (k = 1; k <= wanted && mono_ms() < deadline; k++) {
                stage.round = k;
                chaos_drive(&stage, play_us(&stage));
                outage_pg(&stage.o, "stop");
                assert_true(wait_database_state(&stage.o.d, "disconnected", HARNESS_WAIT_MS));
                stage.db_down = true;
                /* Inputs go to the spool, fsync'd and acknowledged... */
                chaos_drive(&stage, play_us(&stage));
                /* ...until the disk fails them (the first input to fail is a
                 * pad's or a referee's): from here on nothing may be
                 * acknowledged; play goes on until the daemon stops. */
                if (chaos_rand(&stage, 2) == 0)
                        chaos_press_a_window(&stage, disk_fails);
                else
                        disk_fails(&stage);
                for (int64_t until = mono_ms() + HARNESS_WAIT_MS; chaos_step(&stage);) {
                        if (mono_ms() > until)
                                fail_msg("fsync: the spool's fsyncs fail, yet the daemon goes on");
                        usleep(1000);
                }
                int st = daemon_wait_exit(&stage.o.d);
                stage.o.running = false;
                if (st != 1 || !daemon_log_contains(&stage.o.d, "the spool failed"))
                        fail_msg("fsync: the daemon exited with status %d, not 1 after \"the spool failed\"", st);
                chaos_read_pads(&stage);

                /* The disk and the database are back. */
                assert_int_equal(unlink(stage.fail_flag), 0);
                outage_pg(&stage.o, "start");
                stage.db_down = false;
                chaos_restart(&stage);
                chaos_settle(&stage);
                snprintf(when, sizeof when, "after fsync failure %u", k);
                chaos_check(&stage, when);
                stage.fault = false;
        }
        report(&stage, k - 1, wanted);
        assert_int_equal(daemon_stop(&stage.o.d, SIGTERM, NULL), 0);
        stage.o.running = false;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(kill_9_at_random_moments, teardown),
                cmocka_unit_test_teardown(postgresql_stops_and_starts_at_random, teardown),
                cmocka_unit_test_teardown(after_a_failed_fsync_nothing_is_acknowledged, teardown),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
