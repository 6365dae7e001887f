/* Venues: several venues' daemons on one database (docs/operations.md,
 * "Several venues").  North and south run beside each other on a database
 * of the test's own, each with its own port and spool (south without
 * D-Bus); a second daemon for north is refused, naming the venue and the
 * holder; tables stand at a venue, their names unique there; a match made
 * at north for a table of south is stored at south and run by south's
 * daemon — loaded when south starts, or adopted at once while it runs —
 * while north refuses its inputs with a 409 naming south, and rebuilds
 * only its own venue's matches; GET /v1/venues says which daemons are
 * running.  Every daemon is stopped by pid. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"

/* Exit status of a daemon refused its venue's lock (daemon/main.c: "65
 * database or spool refused"; systemd does not restart it). */
#define EXIT_REFUSED 65

static struct daemon_proc north, south, north2;
static char *dsn, *admin, *referee;
static char *env_dsn, *env_north, *env_south, *env_none, *north_config;

static char *token_in(const char *role) {
        int st;
        char *t = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                   "'%s' --create-token %s '%s' 2>/dev/null",
                              dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"), role,
                              unique_name(role));
        assert_int_equal(st, 0);
        t[strcspn(t, "\n")] = '\0';
        return t;
}

/* North owns the suite's bus; south has none ([dbus] bus = none). */
static void start_north(void) {
        const char *env[] = { env_dsn, env_north, NULL };
        const char *args[] = { north_config, NULL };

        daemon_start(&north, env, args, true);
        assert_true(wait_database_state(&north, "ready", HARNESS_WAIT_MS));
        assert_true(wait_tokens_loaded(&north, HARNESS_WAIT_MS));
}

static void start_south(void) {
        const char *env[] = { env_dsn, env_south, env_none, NULL };

        daemon_start(&south, env, NULL, true);
        assert_true(wait_database_state(&south, "ready", HARNESS_WAIT_MS));
        assert_true(wait_tokens_loaded(&south, HARNESS_WAIT_MS));
}

static void stop(struct daemon_proc *d) {
        if (d->pid > 0)
                assert_int_equal(daemon_stop(d, SIGTERM, NULL), 0);
}

static int setup(void **state) {
        (void) state;
        dsn = create_database(unique_name("venues"));
        assert_true(asprintf(&env_dsn, "ARBITER_DSN=%s", dsn) > 0);
        env_north = strdup("ARBITER_VENUE=north");
        env_south = strdup("ARBITER_VENUE=south");
        env_none = strdup("ARBITER_BUS=none");
        /* north's name comes from its configuration */
        char *path;
        assert_true(asprintf(&path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("north")) > 0);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "[venue]\nid = north\nname = \"North Hall\"\n");
        fclose(f);
        assert_true(asprintf(&north_config, "--config=%s", path) > 0);
        free(path);
        admin = token_in("admin");
        referee = token_in("referee");
        start_north();
        start_south();
        return 0;
}

static int teardown(void **state) {
        (void) state;
        stop(&north);
        stop(&south);
        harness_kill_daemons(NULL);
        free(dsn);
        free(admin);
        free(referee);
        free(env_dsn);
        free(env_north);
        free(env_south);
        free(env_none);
        free(north_config);
        return 0;
}

static json_t *request(struct daemon_proc *d, const char *method, const char *path, const char *token,
                       const char *body, long status) {
        struct http_reply r;
        json_t *j;

        if (strcmp(method, "GET") == 0)
                http_get(d, path, token, &r);
        else
                http_post_json(d, path, token, body, &r);
        if (r.status != status)
                fail_msg("%s %s at %s: expected %ld, got %ld: %s", method, path, d->url, status, r.status, r.body);
        j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static const char *str(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

/* The venue of that id in GET /v1/venues's items, or NULL. */
static json_t *venue_in(json_t *list, const char *id) {
        json_t *v;
        size_t i;

        json_array_foreach(json_object_get(list, "items"), i, v)
                if (strcmp(str(v, "id"), id) == 0)
                        return v;
        return NULL;
}

static json_int_t new_table(struct daemon_proc *d, const char *venue, const char *name) {
        char body[256];
        json_t *t;
        json_int_t id;

        snprintf(body, sizeof body, "{%s%s%s\"name\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}]}",
                 venue ? "\"venue\": \"" : "", venue ? venue : "", venue ? "\", " : "", name);
        t = request(d, "POST", "/v1/tables", admin, body, 201);
        id = json_integer_value(json_object_get(t, "id"));
        json_decref(t);
        return id;
}

static json_t *new_match(struct daemon_proc *d, json_int_t table) {
        char body[256];

        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\"]}",
                 (long long) table);
        return request(d, "POST", "/v1/matches", referee, body, 201);
}

/* Waits until d runs match id: its GET shows the live engine's view.  A
 * hang guard, not a timing assertion. */
static bool runs(struct daemon_proc *d, json_int_t id) {
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) id);
        for (int i = 0; i < HARNESS_WAIT_MS / 50; i++) {
                struct http_reply r;
                bool live;

                http_get(d, path, referee, &r);
                live = r.status == 200;
                http_reply_done(&r);
                if (live)
                        return true;
                usleep(50000);
        }
        return false;
}

static void a_second_daemon_of_a_venue_is_refused_and_another_venue_runs_beside(void **state) {
        const char *env[] = { env_dsn, env_north, env_none, NULL };
        json_t *h;
        (void) state;

        /* both run, each saying which venue it is */
        h = request(&north, "GET", "/v1/health", NULL, NULL, 200);
        assert_string_equal(str(json_object_get(h, "venue"), "id"), "north");
        assert_string_equal(str(json_object_get(h, "venue"), "name"), "North Hall");
        json_decref(h);
        h = request(&south, "GET", "/v1/status", NULL, NULL, 200);
        assert_string_equal(str(json_object_get(h, "venue"), "id"), "south");
        assert_string_equal(str(json_object_get(h, "venue"), "name"), "south");
        json_decref(h);
        char *out = run_capture(NULL, "busctl --user get-property org.arbiter.Arbiter1 /org/arbiter/Arbiter1 "
                                      "org.arbiter.Arbiter1.Manager Venue 2>&1");
        assert_non_null(strstr(out, "s \"north\""));
        free(out);

        /* a second north: refused, naming the venue and who holds it */
        daemon_start(&north2, env, NULL, false);
        assert_int_equal(daemon_wait_exit(&north2), EXIT_REFUSED);
        assert_true(daemon_log_contains(&north2, "another arbiterd runs venue north on this database"));
        assert_true(daemon_log_contains(&north2, "arbiterd, server pid"));

        /* the venue's lock: one per venue, held by its daemon */
        char *locks = run_capture(NULL, "psql -X -A -t '%s' -c \"SELECT string_agg(v.id, ',' ORDER BY v.id) "
                                        "FROM pg_locks l JOIN venues v ON v.number = l.objid::int "
                                        "WHERE l.locktype = 'advisory' AND l.classid = 1634886244 "
                                        "AND l.objsubid = 2 AND l.granted "
                                        "AND l.database = (SELECT oid FROM pg_database "
                                        "WHERE datname = current_database())\"", dsn);
        assert_string_equal(locks, "north,south\n");
        free(locks);

        /* north and south go on */
        h = request(&north, "GET", "/v1/health", NULL, NULL, 200);
        assert_string_equal(str(json_object_get(h, "database"), "state"), "ready");
        json_decref(h);
        h = request(&south, "GET", "/v1/health", NULL, NULL, 200);
        assert_string_equal(str(json_object_get(h, "database"), "state"), "ready");
        json_decref(h);
}

static void tables_stand_at_a_venue_and_every_daemon_lists_them(void **state) {
        char name[64], body[256], path[128];
        json_int_t at_north, at_south;
        json_t *j, *t;
        size_t i;
        int seen = 0;
        (void) state;

        snprintf(name, sizeof name, "%s", unique_name("table"));
        at_north = new_table(&north, NULL, name);
        /* the same name at another venue: made at north for south */
        at_south = new_table(&north, "south", name);
        snprintf(body, sizeof body, "{\"venue\": \"south\", \"name\": \"%s\", \"seats\": [{\"seat\": 1}]}", name);
        j = request(&south, "POST", "/v1/tables", admin, body, 409);
        json_decref(j);
        j = request(&north, "POST", "/v1/tables", admin,
                    "{\"venue\": \"nowhere\", \"name\": \"t\", \"seats\": [{\"seat\": 1}]}", 400);
        assert_non_null(strstr(str(j, "detail"), "\"nowhere\""));
        json_decref(j);
        j = request(&north, "POST", "/v1/tables", admin,
                    "{\"venue\": \"No Where\", \"name\": \"t\", \"seats\": [{\"seat\": 1}]}", 400);
        assert_non_null(strstr(str(j, "detail"), "venue:"));
        json_decref(j);

        /* every venue's tables, from either daemon */
        j = request(&south, "GET", "/v1/tables", NULL, NULL, 200);
        json_array_foreach(json_object_get(j, "items"), i, t) {
                json_int_t id = json_integer_value(json_object_get(t, "id"));
                if (id == at_north)
                        assert_string_equal(str(t, "venue"), "north"), seen++;
                if (id == at_south)
                        assert_string_equal(str(t, "venue"), "south"), seen++;
        }
        assert_int_equal(seen, 2);
        json_decref(j);
        j = request(&north, "GET", "/v1/tables?venue=south", NULL, NULL, 200);
        json_array_foreach(json_object_get(j, "items"), i, t)
                assert_string_equal(str(t, "venue"), "south");
        json_decref(j);
        json_decref(request(&north, "GET", "/v1/tables?venue=-x", NULL, NULL, 400));
        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) at_south);
        j = request(&north, "GET", path, NULL, NULL, 200);
        assert_string_equal(str(j, "venue"), "south");
        assert_string_equal(str(j, "name"), name);
        json_decref(j);

        /* the venues, their daemons and tables */
        j = request(&north, "GET", "/v1/venues", NULL, NULL, 200);
        t = venue_in(j, "north");
        assert_non_null(t);
        assert_string_equal(str(t, "name"), "North Hall");
        assert_string_equal(str(t, "daemon"), "online");
        assert_true(json_is_true(json_object_get(t, "this")));
        t = venue_in(j, "south");
        assert_non_null(t);
        assert_string_equal(str(t, "daemon"), "online");
        assert_true(json_is_false(json_object_get(t, "this")));
        assert_true(json_integer_value(json_object_get(t, "tables")) >= 1);
        assert_non_null(venue_in(j, "main"));           /* the venue every older row is at */
        json_decref(j);
}

static void a_venue_is_added_before_its_daemon_starts(void **state) {
        char id[40], body[128], path[64];
        json_t *j;
        (void) state;

        snprintf(id, sizeof id, "east-%d", (int) getpid());
        snprintf(body, sizeof body, "{\"id\": \"%s\", \"name\": \"East Wing\"}", id);
        json_decref(request(&north, "POST", "/v1/venues", referee, body, 403));
        j = request(&north, "POST", "/v1/venues", admin, body, 201);
        assert_string_equal(str(j, "id"), id);
        assert_string_equal(str(j, "daemon"), "offline");
        assert_int_equal(json_integer_value(json_object_get(j, "tables")), 0);
        json_decref(j);
        j = request(&south, "POST", "/v1/venues", admin, body, 409);
        json_decref(j);
        j = request(&north, "POST", "/v1/venues", admin, "{\"id\": \"East\"}", 400);
        json_decref(j);
        /* its tables can be set up before its daemon first starts */
        new_table(&south, id, unique_name("table"));
        snprintf(path, sizeof path, "/v1/venues/%s", id);
        j = request(&south, "GET", path, NULL, NULL, 200);
        assert_string_equal(str(j, "name"), "East Wing");
        assert_int_equal(json_integer_value(json_object_get(j, "tables")), 1);
        json_decref(j);
        json_decref(request(&south, "GET", "/v1/venues/nowhere", NULL, NULL, 404));
}

static void a_match_for_another_venues_table_is_stored_there_and_run_by_its_daemon(void **state) {
        char path[96];
        json_int_t table, id;
        json_t *m, *j;
        (void) state;

        /* south away: its venue offline */
        stop(&south);
        j = request(&north, "GET", "/v1/venues", NULL, NULL, 200);
        assert_string_equal(str(venue_in(j, "south"), "daemon"), "offline");
        assert_string_equal(str(venue_in(j, "north"), "daemon"), "online");
        json_decref(j);

        /* made at north: stored at south, ready, not run at north */
        table = new_table(&north, "south", unique_name("table"));
        m = new_match(&north, table);
        id = json_integer_value(json_object_get(m, "id"));
        assert_string_equal(str(m, "venue"), "south");
        assert_string_equal(str(m, "state"), "ready");
        assert_true(json_is_null(json_object_get(m, "view")));
        json_decref(m);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        j = request(&north, "POST", path, referee, "{}", 409);
        assert_non_null(strstr(str(j, "detail"), "is at venue south"));
        json_decref(j);

        /* south's daemon loads it when it starts, and runs it */
        start_south();
        assert_true(runs(&south, id));
        j = request(&south, "POST", path, referee, "{}", 200);
        assert_string_equal(str(j, "state"), "running");
        assert_string_equal(str(j, "venue"), "south");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        j = request(&north, "POST", path, referee, "{\"kind\": \"pause\"}", 409);
        assert_non_null(strstr(str(j, "detail"), "is at venue south: its daemon runs it; send its inputs there"));
        json_decref(j);
        snprintf(path, sizeof path, "/v1/matches/%lld/pause", (long long) id);
        j = request(&south, "POST", path, referee, "{}", 200);
        assert_string_equal(str(j, "state"), "paused");
        json_decref(j);
        /* the table's live match, at north too (from the database) */
        snprintf(path, sizeof path, "/v1/tables/%lld", (long long) table);
        j = request(&north, "GET", path, NULL, NULL, 200);
        assert_int_equal(json_integer_value(json_object_get(j, "match")), id);
        json_decref(j);

        /* north, started again, rebuilds only its own venue's matches: one
         * of its own, not south's */
        m = new_match(&north, new_table(&north, NULL, unique_name("table")));
        assert_string_equal(str(m, "venue"), "north");
        json_decref(m);
        stop(&north);
        start_north();
        assert_true(daemon_wait_log(&north, "1 unfinished match rebuilt from the input log", HARNESS_WAIT_MS));
        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) id);
        j = request(&north, "GET", path, referee, NULL, 409);
        assert_non_null(strstr(str(j, "detail"), "is at venue south"));
        json_decref(j);
}

/* South running: it hears of the match made for it (the league event
 * match_assigned, api/league.h) and adopts it at once (matches_adopt). */
static void a_match_made_for_a_running_venue_is_adopted_at_once(void **state) {
        char path[96];
        json_int_t id;
        json_t *m, *j;
        (void) state;

        m = new_match(&north, new_table(&north, "south", unique_name("table")));
        id = json_integer_value(json_object_get(m, "id"));
        assert_string_equal(str(m, "venue"), "south");
        json_decref(m);
        assert_true(runs(&south, id));
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        j = request(&south, "POST", path, referee, "{}", 200);
        assert_string_equal(str(j, "state"), "running");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        j = request(&north, "POST", path, referee, "{}", 409);
        assert_non_null(strstr(str(j, "detail"), "is at venue south"));
        json_decref(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_second_daemon_of_a_venue_is_refused_and_another_venue_runs_beside),
                cmocka_unit_test(tables_stand_at_a_venue_and_every_daemon_lists_them),
                cmocka_unit_test(a_venue_is_added_before_its_daemon_starts),
                cmocka_unit_test(a_match_for_another_venues_table_is_stored_there_and_run_by_its_daemon),
                cmocka_unit_test(a_match_made_for_a_running_venue_is_adopted_at_once),
        };
        return cmocka_run_group_tests_name("venues", tests, setup, teardown);
}
