/* One input of a match at a time on the input lane (match/match.h, "One
 * input of a match at a time on the lane"), on a cluster of the test's own
 * (outage.h): a match's pause whose INSERT fails on a connection that stays
 * up (a trigger of the test's refuses it, once the test lets it run) goes
 * to the spool, and the resume made while the pause's INSERT was in flight
 * follows it there instead of being stored before it — the spool's flush
 * writes both ("spool flushed: 2 inputs"), the stored log is start, pause,
 * resume, the row says running, and the match's stream says paused before
 * resumed.  Where the test waits for the database to be in a state (a lock
 * granted, a query waiting) it asks pg_locks and pg_stat_activity; where
 * it waits for the daemon to have taken the resume, the match's live view. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/async_post.h"
#include "tests/integration/harness.h"
#include "tests/integration/outage.h"
#include "tests/integration/sse_client.h"

#define LOCK_KEY 4242

static struct outage o;
static pid_t locker = -1;

static int teardown(void **state) {
        (void) state;
        outage_release(&locker);
        outage_done(&o);
        return 0;
}

static void sql(const char *q) {
        assert_int_equal(run_cmd("psql '%s' -qX -v ON_ERROR_STOP=1 -c \"%s\" >/dev/null", o.dsn, q), 0);
}

/* A session of the test's that holds the advisory lock LOCK_KEY until
 * outage_release(&locker). */
static void lock_key(void) {
        char q[256], check[256];

        snprintf(q, sizeof q, "SELECT pg_advisory_lock(%d); SELECT pg_sleep(3600)", LOCK_KEY);
        snprintf(check, sizeof check, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %d "
                 "AND granted", LOCK_KEY);
        locker = outage_hold(&o, q, check);
}

static const char *view_status(json_int_t id) {
        static char status[32];
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        http_get(&o.d, path, o.referee, &r);
        assert_int_equal(r.status, 200);
        snprintf(status, sizeof status, "%s",
                 json_string_value(json_object_get(json_object_get(r.json, "view"), "status")) ?: "");
        http_reply_done(&r);
        return status;
}

static void a_matchs_next_input_follows_a_failed_one_into_the_spool(void **state) {
        struct async_post pause, resume;
        struct stream st;
        char path[96], *config, *arg;
        FILE *f;
        (void) state;

        outage_init(&o, "lane");
        /* room for the test's stream and three requests at once from its
         * one address */
        assert_true(asprintf(&config, "%s/arbiterd.conf", o.dir) > 0);
        f = fopen(config, "w");
        assert_non_null(f);
        fprintf(f, "[http]\nmax_connections_per_ip = 16\npending_per_ip = 16\n");
        fclose(f);
        assert_true(asprintf(&arg, "--config=%s", config) > 0);
        const char *args[] = { arg, NULL };
        daemon_start(&o.d, (const char *const *) o.env, args, true);
        o.running = true;
        assert_true(wait_tokens_loaded(&o.d, HARNESS_WAIT_MS));
        json_int_t id = outage_match(&o, 31);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) id);
        stream_open(&st, o.d.url, path, NULL);

        /* The pause's INSERT waits for the test, then fails; nothing else. */
        sql("CREATE FUNCTION test_refuse_pause() RETURNS trigger LANGUAGE plpgsql AS \\$\\$ BEGIN "
            "IF NEW.kind = 'pause' THEN PERFORM pg_advisory_xact_lock(4242); "
            "RAISE EXCEPTION 'the test refuses this pause'; END IF; RETURN NEW; END \\$\\$; "
            "CREATE TRIGGER test_refuse_pause BEFORE INSERT ON match_inputs "
            "FOR EACH ROW EXECUTE FUNCTION test_refuse_pause()");
        lock_key();
        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) id);
        async_post_start(&pause, o.d.url, path, o.referee, "{}");
        outage_wait_sql(&o, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'arbiterd' "
                 "AND wait_event_type = 'Lock' AND wait_event = 'advisory'", "the pause's INSERT waits");
        assert_string_equal(view_status(id), "paused");

        /* The resume, made while the pause's INSERT is in flight. */
        snprintf(path, sizeof path, "/v1/matches/%lld/resume", (long long) id);
        async_post_start(&resume, o.d.url, path, o.referee, "{}");
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; strcmp(view_status(id), "running") != 0;)
                if (mono_ms() > deadline)
                        fail_msg("the daemon never took the resume");

        /* The pause fails; both go to the spool, in order. */
        outage_release(&locker);
        async_post_join(&pause);
        async_post_join(&resume);
        if (pause.status != 200 || resume.status != 200)
                fail_msg("pause %ld: %s; resume %ld: %s", pause.status, pause.reply, resume.status, resume.reply);
        size_t resumed = wait_event(&st, 0, "resumed", NULL);
        size_t paused = wait_event(&st, 0, "paused", NULL);
        if (paused > resumed)
                fail_msg("the match's stream said resumed (event %zu) before paused (event %zu)", resumed, paused);

        /* Once the trigger is gone the flush writes both. */
        sql("DROP TRIGGER test_refuse_pause ON match_inputs");
        assert_true(daemon_wait_log(&o.d, "spool flushed: 2 inputs written", HARNESS_WAIT_MS));
        json_t *items = outage_log(&o, id);
        assert_int_equal(json_array_size(items), 3);
        assert_string_equal(json_string_value(json_object_get(json_array_get(items, 1), "kind")), "pause");
        assert_string_equal(json_string_value(json_object_get(json_array_get(items, 2), "kind")), "resume");
        json_decref(items);
        snprintf(path, sizeof path, "SELECT count(*) FROM matches WHERE id = %lld AND state = 'running'",
                 (long long) id);
        assert_int_equal(outage_sql_number(&o, path), 1);
        stream_close(&st);
        free(config);
        free(arg);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(a_matchs_next_input_follows_a_failed_one_into_the_spool, teardown),
        };

        return cmocka_run_group_tests_name("the input lane, one input of a match at a time", tests, NULL, NULL);
}
