/* League events (api/league.h, store/league.h): two venues' daemons on one
 * database, north (on the suite's bus) and south (no bus), each with its
 * own port and spool, south's link to the database through a relay the
 * test cuts and restores (tests/fault/pgrelay.c):
 *   - north alone writes no match_view for its live match (a club of one
 *     venue); once south runs, north hears it and sends the view at once,
 *     and south shows it;
 *   - a tournament run at north — its changes, a result entered there, the
 *     standings — reaches south's stream of the tournament, with south's
 *     own event ids, one boot's, counting up;
 *   - a match called at north to a table of south's is run by south (north
 *     refuses its inputs), its public view reaches north (match_view on
 *     north's stream of the match, and in GET /v1/matches/{id} there), and
 *     its result, which south's daemon publishes, reaches north's stream
 *     and north's D-Bus (ResultRecorded);
 *   - south's link cut while north records a result: nothing can be
 *     notified to south then; restored, south catches up from its cursor
 *     and its open stream gets the result;
 *   - south restarted starts from the newest event (no history replayed)
 *     and follows again;
 *   - one rating worker is active across the two: north's; a recompute
 *     asked at south is done by north's worker and its ratings_changed
 *     reaches south; north stopped, south's worker takes over.
 * Every wait is for an event, a line or a state, never a time. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/pgrelay_proc.h"
#include "tests/integration/sse_client.h"

static struct daemon_proc north, south;
static struct pgrelay_proc relay;
static char *dsn, *south_dsn, *admin, *referee;
static json_int_t tid, north_table, south_table;
static json_int_t players[4];
static json_t *round_matches;           /* round 1's */
static pid_t monitor_pid = -1;          /* busctl monitor, while one runs */

static json_int_t jint(json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

static const char *jstr(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

static json_t *post(const struct daemon_proc *d, const char *path, const char *token, const char *body, long status) {
        struct http_reply r;

        http_post_json(d, path, token, body, &r);
        if (r.status != status)
                fail_msg("POST %s: expected HTTP %ld, got %ld: %s", path, status, r.status, r.body);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *get(const struct daemon_proc *d, const char *path) {
        struct http_reply r;

        http_get(d, path, admin, &r);
        if (r.status != 200)
                fail_msg("GET %s: expected HTTP 200, got %ld: %s", path, r.status, r.body);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static char *token(const char *role) {
        int st;
        char *out = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                     "'%s' --create-token %s '%s' 2>/dev/null",
                                dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"), role,
                                unique_name(role));
        if (st != 0)
                fail_msg("arbiterd --create-token %s exited %d", role, st);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

/* The league member of d's /v1/status. */
static json_t *league_status(const struct daemon_proc *d) {
        json_t *s = get(d, "/v1/status"), *l = json_incref(json_object_get(s, "league"));

        json_decref(s);
        return l;
}

/* Waits until d follows the league's events (its cursor is known). */
static void wait_following(const struct daemon_proc *d) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *l = league_status(d);
                bool ok = json_is_integer(json_object_get(l, "cursor"));

                json_decref(l);
                if (ok)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("%s never followed the league's events", d->url);
                usleep(20000);
        }
}

static void start_north(void) {
        char env_dsn[512];

        snprintf(env_dsn, sizeof env_dsn, "ARBITER_DSN=%s", dsn);
        const char *env[] = { env_dsn, "ARBITER_VENUE=north", NULL };
        daemon_start(&north, env, NULL, true);
        assert_true(wait_tokens_loaded(&north, HARNESS_WAIT_MS));
        wait_following(&north);
}

static void start_south(void) {
        char env_dsn[512];

        snprintf(env_dsn, sizeof env_dsn, "ARBITER_DSN=%s", south_dsn);
        const char *env[] = { env_dsn, "ARBITER_VENUE=south", "ARBITER_BUS=none", NULL };
        daemon_start(&south, env, NULL, true);
        assert_true(wait_tokens_loaded(&south, HARNESS_WAIT_MS));
        wait_following(&south);
}

static json_int_t new_table(const char *venue) {
        char body[256];

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"venue\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}]}",
                 unique_name("table"), venue);
        json_t *j = post(&north, "/v1/tables", admin, body, 201);
        json_int_t id = jint(j, "id");

        assert_string_equal(jstr(j, "venue"), venue);
        json_decref(j);
        return id;
}

static int setup(void **state) {
        char server[256], dir[256], *name = strdup(unique_name("league"));
        int st;
        (void) state;

        dsn = create_database(name);
        free(name);
        free(run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none '%s' "
                              "--migrate-only 2>&1", dsn, harness_env("ARBITER_TEST_ROOT"),
                         harness_env("ARBITER_TEST_DAEMON")));
        assert_int_equal(st, 0);
        admin = token("admin");
        referee = token("referee");
        snprintf(dir, sizeof dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("south-link"));
        snprintf(server, sizeof server, "%s/run", harness_env("ARBITER_TEST_PGDIR"));
        pgrelay_start(&relay, dir, server);
        south_dsn = pgrelay_dsn(&relay, dsn);
        start_north();
        north_table = new_table("north");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        if (monitor_pid > 0)
                kill(monitor_pid, SIGTERM);
        harness_kill_daemons(NULL);
        pgrelay_stop(&relay);
        json_decref(round_matches);
        free(admin);
        free(referee);
        free(south_dsn);
        free(dsn);
        return 0;
}

/* ---- what a stream saw --------------------------------------------------------------- */

/* Every event of st from `from` on has an id of one boot, counting up from
 * the one before. */
static void assert_ids_count_up(const struct stream *st, size_t from) {
        unsigned epoch0 = 0;
        unsigned long long last = 0;

        for (size_t i = from; i < st->n_events; i++) {
                unsigned epoch;
                unsigned long long n;

                if (sscanf(st->events[i].id, "%8x-%llu", &epoch, &n) != 2)
                        fail_msg("event %s has the id \"%s\"", st->events[i].name, st->events[i].id);
                if (i > from && (epoch != epoch0 || n <= last))
                        fail_msg("event %s has id %s after %x-%llu", st->events[i].name, st->events[i].id, epoch0,
                                 last);
                epoch0 = epoch;
                last = n;
        }
}

/* The first event named name at or after from whose data's key is value. */
static size_t wait_event_with(struct stream *st, size_t from, const char *name, const char *key, json_int_t value) {
        for (;;) {
                size_t at = wait_event(st, from, name, NULL);

                if (jint(st->events[at].data, key) == value)
                        return at;
                from = at + 1;
        }
}

/* ---- the tournament ------------------------------------------------------------------ */

static void tpath(char *buf, size_t len, const char *fmt, json_int_t id) {
        char rest[96];

        snprintf(rest, sizeof rest, fmt, (long long) id);
        snprintf(buf, len, "/v1/tournaments/%lld%s", (long long) tid, rest);
}

/* A tournament at north: four players, a Swiss of duels, started. */
static void make_tournament(void) {
        char path[160], body[256];
        json_t *j;

        for (int i = 0; i < 4; i++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\"}", unique_name("player"));
                j = post(&north, "/v1/players", admin, body, 201);
                players[i] = jint(j, "id");
                json_decref(j);
        }
        snprintf(body, sizeof body, "{\"name\": \"League night\", \"game\": \"crash-pilot\", \"match_config\": "
                 "{\"reveal\": {\"pause_ms\": 0}}, \"tables\": [%lld, %lld]}", (long long) north_table,
                 (long long) south_table);
        j = post(&north, "/v1/tournaments", admin, body, 201);
        tid = jint(j, "id");
        json_decref(j);
        tpath(path, sizeof path, "/stages", 0);
        json_decref(post(&north, path, admin, "{\"format\": \"swiss\", \"config\": {\"rounds\": 3}}", 201));
        tpath(path, sizeof path, "/state", 0);
        json_decref(post(&north, path, admin, "{\"state\": \"registration\"}", 200));
        for (int i = 0; i < 4; i++) {
                tpath(path, sizeof path, "/registrations", 0);
                snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[i]);
                json_decref(post(&north, path, admin, body, 201));
        }
        tpath(path, sizeof path, "/state", 0);
        json_decref(post(&north, path, admin, "{\"state\": \"check_in\"}", 200));
        for (int i = 0; i < 4; i++) {
                tpath(path, sizeof path, "/registrations/%lld/check-in", players[i]);
                json_decref(post(&north, path, admin, "{}", 200));
        }
}

/* The body of a result for stage match m: its first participant wins. */
static char *first_wins(json_t *m) {
        json_t *parts = json_object_get(m, "participants");
        char *body;

        assert_int_equal(json_array_size(parts), 2);
        assert_true(asprintf(&body, "{\"results\": [{\"player\": %lld, \"rank\": 1}, {\"player\": %lld, \"rank\": 2}]}",
                             (long long) jint(json_array_get(parts, 0), "player"),
                             (long long) jint(json_array_get(parts, 1), "player")) > 0);
        return body;
}

/* One value of the database, as psql prints it. */
static long long sql_number(const char *q) {
        char *out = run_capture(NULL, "psql '%s' -tAX -c \"%s\"", dsn, q);
        long long n = atoll(out);

        free(out);
        return n;
}

/* North alone: a live match's views go nowhere (a club of one venue writes
 * none); south starts: north hears it, and sends its live match's view at
 * once, which south then shows. */
static void views_go_out_only_while_another_venue_runs(void **state) {
        char path[160], body[256];
        json_t *j;
        json_int_t mid;
        (void) state;

        j = league_status(&north);
        assert_false(json_is_true(json_object_get(j, "peers")));
        json_decref(j);
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"players\": [\"Ana\", \"Ben\"], \"table\": %lld}",
                 (long long) north_table);
        j = post(&north, "/v1/matches", referee, body, 201);
        mid = jint(j, "id");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) mid);
        json_decref(post(&north, path, referee, "{}", 200));
        /* a table made after the start: once its table_created is in the
         * database, so is anything appended before it (one connection,
         * statements in order) */
        json_decref(post(&north, "/v1/tables", admin, "{\"name\": \"marker\", \"seats\": [{\"seat\": 1}]}", 201));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
             sql_number("SELECT count(*) FROM league_events WHERE event = 'table_created' AND data->>'name' = 'marker'")
             == 0;) {
                if (mono_ms() > deadline)
                        fail_msg("north's table_created never reached league_events");
                usleep(20000);
        }
        assert_int_equal(sql_number("SELECT count(*) FROM league_events WHERE event = 'match_view'"), 0);

        start_south();
        south_table = new_table("south");
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                j = league_status(&north);
                bool peers = json_is_true(json_object_get(j, "peers"));
                json_decref(j);
                snprintf(path, sizeof path, "/v1/matches/%lld", (long long) mid);
                j = get(&south, path);
                bool shown = json_is_object(json_object_get(j, "view"));
                json_decref(j);
                if (peers && shown)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("north never saw south (peers %d), or south never showed north's match %lld "
                                 "(view %d)", peers, (long long) mid, shown);
                usleep(20000);
        }
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) mid);
        json_decref(post(&north, path, referee, "{}", 200));
}

/* The tournament's changes at north reach south's stream of it: its start,
 * the round paired, a result entered, the standings; south's ids are its
 * own, one boot's, counting up. */
static void a_result_entered_at_north_reaches_the_stream_at_south(void **state) {
        char path[160];
        struct stream st;
        size_t at;
        json_t *j;
        (void) state;

        make_tournament();
        tpath(path, sizeof path, "/events", 0);
        stream_open(&st, south.url, path, NULL);

        tpath(path, sizeof path, "/state", 0);
        json_decref(post(&north, path, admin, "{\"state\": \"running\"}", 200));
        /* the tournament's making may reach south after its stream opened
         * (south reads the league's events at most every 100 ms): the
         * change to look for is the start */
        for (at = 0;; at++) {
                at = wait_event(&st, at, "tournament_changed", NULL);
                if (strcmp(data_str(&st.events[at], "state"), "running") == 0)
                        break;
        }
        assert_int_equal(jint(st.events[at].data, "tournament"), tid);

        tpath(path, sizeof path, "/rounds", 0);
        j = post(&north, path, admin, "{}", 201);
        round_matches = json_incref(json_object_get(j, "matches"));
        json_decref(j);
        assert_int_equal(json_array_size(round_matches), 2);
        at = wait_event(&st, at, "round_started", NULL);

        json_t *m = json_array_get(round_matches, 0);
        char *body = first_wins(m);
        tpath(path, sizeof path, "/matches/%lld/result", jint(m, "id"));
        json_decref(post(&north, path, referee, body, 200));
        free(body);
        at = wait_event_with(&st, at, "result_recorded", "match", jint(m, "id"));
        assert_true(json_is_false(json_object_get(st.events[at].data, "correction")));
        wait_event(&st, at, "standings_changed", NULL);
        assert_ids_count_up(&st, 0);
        stream_close(&st);

        /* south read them as league events; north's appended them */
        j = league_status(&south);
        assert_true(jint(j, "received") >= 4);
        assert_int_equal(jint(j, "dropped"), 0);
        json_decref(j);
        j = league_status(&north);
        assert_true(jint(j, "appended") >= 4);
        json_decref(j);
}

/* One view of match mid at daemon d (GET /v1/matches/{id}). */
static json_t *match_at(const struct daemon_proc *d, json_int_t mid) {
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) mid);
        return get(d, path);
}

static json_t *match_at_south(json_int_t mid) {
        json_t *m = match_at(&south, mid), *v = json_incref(json_object_get(m, "view"));

        json_decref(m);
        return v;
}

/* Waits until the monitor's file has every needle. */
static void wait_file_has(const char *file, const char *const *needles, size_t n) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                char *text = run_capture(NULL, "cat '%s'", file);
                size_t found = 0;

                for (size_t i = 0; i < n; i++)
                        found += strstr(text, needles[i]) != NULL;
                free(text);
                if (found == n)
                        return;
                if (mono_ms() > deadline)
                        fail_msg("%s never showed %s", file, needles[0]);
                usleep(20000);
        }
}

/* A match called at north to south's table: south runs it (north refuses
 * its inputs, naming south), north sees its view and gets its result. */
static void a_match_called_at_north_to_a_south_table_is_run_by_south(void **state) {
        char path[160], body[160];
        struct stream north_tour, north_match;
        json_int_t mid, after = 0;
        json_t *m = json_array_get(round_matches, 1), *called, *j;
        size_t at;
        (void) state;

        tpath(path, sizeof path, "/events", 0);
        stream_open(&north_tour, north.url, path, NULL);
        tpath(path, sizeof path, "/matches/%lld/call", jint(m, "id"));
        snprintf(body, sizeof body, "{\"table\": %lld}", (long long) south_table);
        called = post(&north, path, referee, body, 200);
        mid = jint(called, "match");
        assert_true(mid > 0);
        json_decref(called);

        /* south adopts it: its view at south comes from its live engine */
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                j = match_at(&south, mid);
                bool live = json_is_object(json_object_get(j, "view"));
                assert_string_equal(jstr(j, "venue"), "south");
                json_decref(j);
                if (live)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("south never ran match %lld", (long long) mid);
                usleep(20000);
        }
        /* its inputs go to south: north says so */
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) mid);
        j = post(&north, path, referee, "{}", 409);
        assert_non_null(strstr(jstr(j, "detail"), "south"));
        json_decref(j);

        snprintf(path, sizeof path, "/v1/events?topic=match/%lld", (long long) mid);
        stream_open(&north_match, north.url, path, NULL);
        char *mon;
        assert_true(asprintf(&mon, "%s/%s.monitor", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        monitor_pid = harness_dbus_monitor("org.arbiter.Arbiter1.Tournament", mon);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) mid);
        json_decref(post(&south, path, referee, "{}", 200));
        /* the running match's view reaches north: on its stream, and in the
         * match north serves */
        at = 0;
        for (;;) {
                at = wait_event(&north_match, at, "match_view", NULL);
                if (strcmp(data_str(&north_match.events[at], "state"), "running") == 0)
                        break;
                at++;
        }
        assert_string_equal(data_str(&north_match.events[at], "venue"), "south");
        assert_int_equal(jint(north_match.events[at].data, "table"), south_table);
        assert_true(json_is_object(json_object_get(north_match.events[at].data, "view")));
        j = match_at(&north, mid);
        assert_string_equal(jstr(j, "state"), "running");
        assert_true(json_is_object(json_object_get(j, "view")));
        json_decref(j);

        /* played at south to its end, with the referee's calls */
        for (int calls = 0;; calls++) {
                j = match_at(&south, mid);
                bool over = strcmp(jstr(j, "state"), "finished") == 0;
                json_decref(j);
                if (over)
                        break;
                if (calls > 60)
                        fail_msg("match %lld did not finish", (long long) mid);
                json_t *v = cp_wait_window(match_at_south, mid, after);
                after = cp_window_id(v);
                snprintf(body, sizeof body, "{\"seat\": 1, \"kind\": \"call\", \"call\": %d}", cp_pick_call(v, false));
                json_decref(v);
                snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) mid);
                json_decref(post(&south, path, referee, body, 200));
        }
        /* the result south's daemon published reaches north's stream */
        at = wait_event_with(&north_tour, 0, "result_recorded", "match", jint(m, "id"));
        assert_int_equal(jint(north_tour.events[at].data, "runtime_match"), mid);
        /* and north's D-Bus says so, as for a result of its own */
        char tour_path[96];
        snprintf(tour_path, sizeof tour_path, "Path=/org/arbiter/Arbiter1/tournament/%lld", (long long) tid);
        const char *const want[] = { "Member=ResultRecorded", tour_path };
        wait_file_has(mon, want, 2);
        kill(monitor_pid, SIGTERM);
        monitor_pid = -1;
        free(mon);
        assert_ids_count_up(&north_tour, 0);
        assert_ids_count_up(&north_match, 0);
        stream_close(&north_match);
        stream_close(&north_tour);
}

/* South's link cut: nothing reaches it; north records a result meanwhile;
 * restored, south catches up from its cursor, and its stream, open all
 * along, gets the result. */
static void south_catches_up_after_its_link_is_restored(void **state) {
        char path[160];
        struct stream st;
        json_t *round2, *m, *j;
        size_t at;
        (void) state;

        tpath(path, sizeof path, "/rounds", 0);
        round2 = post(&north, path, admin, "{}", 201);
        m = json_array_get(json_object_get(round2, "matches"), 0);
        tpath(path, sizeof path, "/events", 0);
        stream_open(&st, south.url, path, NULL);

        j = league_status(&south);
        json_int_t received = jint(j, "received");
        json_decref(j);
        assert_true(pgrelay_cut(&relay) > 0);
        assert_true(wait_database_state(&south, "disconnected", HARNESS_WAIT_MS));

        char *body = first_wins(m);
        tpath(path, sizeof path, "/matches/%lld/result", jint(m, "id"));
        json_decref(post(&north, path, referee, body, 200));
        free(body);
        /* committed, and notified to whoever listened: not south */
        j = league_status(&north);
        json_int_t appended = jint(j, "appended");
        json_decref(j);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                j = league_status(&north);
                bool sent = jint(j, "queued") == 0 && jint(j, "appended") >= appended;
                json_decref(j);
                if (sent)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("north never appended its events");
                usleep(20000);
        }
        pump(&st, 0);
        for (size_t i = 0; i < st.n_events; i++)
                assert_string_not_equal(st.events[i].name, "result_recorded");
        j = league_status(&south);
        assert_int_equal(jint(j, "received"), received);
        json_decref(j);

        pgrelay_restore(&relay);
        at = wait_event_with(&st, 0, "result_recorded", "match", jint(m, "id"));
        assert_true(json_is_false(json_object_get(st.events[at].data, "correction")));
        assert_ids_count_up(&st, 0);
        stream_close(&st);
        json_decref(round2);
}

/* A restarted daemon follows from the newest event: what came before it
 * started is in the database's state, not replayed on its streams. */
static void a_restarted_daemon_follows_from_the_newest_event(void **state) {
        char path[160];
        struct stream st;
        json_t *j;
        (void) state;

        assert_int_equal(daemon_stop(&south, SIGTERM, NULL), 0);
        json_decref(post(&north, "/v1/tables", admin, "{\"name\": \"while south was away\", \"seats\": "
                                                     "[{\"seat\": 1}, {\"seat\": 2}]}", 201));
        /* every event north has made so far: a replay would bring them all */
        char *out = run_capture(NULL, "psql '%s' -tAX -c \"SELECT count(*) FROM league_events WHERE venue = "
                                      "'north'\"", dsn);
        long long before = atoll(out);
        free(out);
        assert_true(before > 10);
        start_south();
        j = league_status(&south);
        assert_true(jint(j, "received") < before);
        json_decref(j);
        /* and follows from there */
        tpath(path, sizeof path, "/events", 0);
        stream_open(&st, south.url, path, NULL);
        tpath(path, sizeof path, "/recompute", 0);
        json_decref(post(&north, path, admin, "{}", 202));
        wait_event(&st, 0, "standings_changed", NULL);
        stream_close(&st);
        j = league_status(&south);
        assert_true(jint(j, "received") >= 1);
        json_decref(j);
}

static bool ratings_active(const struct daemon_proc *d) {
        json_t *s = get(d, "/v1/status");
        bool active = json_is_true(json_object_get(json_object_get(s, "ratings"), "active"));

        json_decref(s);
        return active;
}

static json_int_t ratings_count(const struct daemon_proc *d, const char *what) {
        json_t *s = get(d, "/v1/status");
        json_int_t n = jint(json_object_get(s, "ratings"), what);

        json_decref(s);
        return n;
}

/* One rating worker rates for both daemons: north's, which started first.
 * A recompute asked at south is north's worker's to do, and its
 * ratings_changed reaches south; north stopped, south's takes over. */
static void one_rating_worker_is_active_and_a_standby_takes_over(void **state) {
        char path[160];
        struct stream st;
        (void) state;

        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !ratings_active(&north);) {
                if (mono_ms() > deadline)
                        fail_msg("north's rating worker never became active");
                usleep(20000);
        }
        assert_false(ratings_active(&south));

        json_int_t recomputes = ratings_count(&north, "recomputes");
        stream_open(&st, south.url, "/v1/events?topic=ratings", NULL);
        tpath(path, sizeof path, "/recompute", 0);
        json_decref(post(&south, path, admin, "{}", 202));
        /* north's worker recomputes (south's never does) and says so at south */
        for (size_t from = 0;;) {
                size_t at = wait_event(&st, from, "ratings_changed", NULL);
                assert_string_equal(data_str(&st.events[at], "game"), "crash-pilot");
                if (ratings_count(&north, "recomputes") > recomputes)
                        break;
                from = at + 1;
        }
        stream_close(&st);
        assert_int_equal(ratings_count(&south, "recomputes"), 0);
        assert_false(ratings_active(&south));

        assert_int_equal(daemon_stop(&north, SIGTERM, NULL), 0);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !ratings_active(&south);) {
                if (mono_ms() > deadline)
                        fail_msg("south's rating worker never took over");
                usleep(50000);
        }
        assert_true(daemon_log_contains(&south, "the rating worker takes over"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(views_go_out_only_while_another_venue_runs),
                cmocka_unit_test(a_result_entered_at_north_reaches_the_stream_at_south),
                cmocka_unit_test(a_match_called_at_north_to_a_south_table_is_run_by_south),
                cmocka_unit_test(south_catches_up_after_its_link_is_restored),
                cmocka_unit_test(a_restarted_daemon_follows_from_the_newest_event),
                cmocka_unit_test(one_rating_worker_is_active_and_a_standby_takes_over),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
