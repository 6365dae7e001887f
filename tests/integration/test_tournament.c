/* A club night through REST: 13 players, a pod-Swiss of Crash Pilot over
 * three rounds (tables of 4 and 3), one late entry after round 1, one drop
 * after round 2, one corrected result, then the top 4 at a final table.
 * One match each round is played for real in the match runtime (called to
 * the runtime, then played with referee inputs): its placements flow back
 * into the stage by themselves; the others are entered as results.  At the
 * end: standings (cached equal to recomputed, CSV too), ratings, the
 * leaderboard, and the tournament's D-Bus object and signals.  Bad input
 * along the way gets its 4xx and changes nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define N_PLAYERS 13

static struct daemon_proc daemon_;
static char *admin, *referee, *monitor_path;
static pid_t monitor_pid;
static json_int_t players[N_PLAYERS + 1];       /* the last: the late entry */

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

/* Numbers are printed as people write them: no decimal carries more than
 * the 15 significant digits a double holds exactly (0.33, not
 * 0.33000000000000002).  Checks every number of a raw JSON reply. */
static void numbers_as_people_write_them(const char *body) {
        for (const char *s = body; *s; s++) {
                size_t digits = 0;

                if (*s < '0' || *s > '9' || (s > body && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.')))
                        continue;
                /* significant digits: leading zeros do not count */
                for (const char *d = s; (*d >= '0' && *d <= '9') || *d == '.'; d++)
                        digits += *d != '.' && (digits > 0 || *d != '0');
                if (digits > 15)
                        fail_msg("a number with %zu digits at \"%.40s\"", digits, s);
        }
}

/* GETs path and checks every number in the raw reply. */
static void get_numbers_checked(const char *path) {
        struct http_reply r;

        http_get(&daemon_, path, NULL, &r);
        expect(&r, 200);
        numbers_as_people_write_them(r.body);
        http_reply_done(&r);
}

/* POSTs body to path with token and checks the status; returns the reply's
 * JSON (a new reference; NULL for a non-JSON reply). */
static json_t *post(const char *path, const char *token, const char *body, long status) {
        struct http_reply r;

        http_post_json(&daemon_, path, token, body, &r);
        expect(&r, status);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *get(const char *path, long status) {
        struct http_reply r;

        http_get(&daemon_, path, admin, &r);
        expect(&r, status);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static int setup(void **state) {
        (void) state;
        daemon_start(&daemon_, NULL, NULL, true);
        admin = create_token("admin", unique_name("organiser"));
        referee = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        assert_true(asprintf(&monitor_path, "%s/%s.json", harness_env("ARBITER_TEST_TMP"), unique_name("tmon")) > 0);
        char *pid_s = run_capture(NULL, "busctl --user monitor --json=short --match "
                                        "\"type='signal',interface='org.arbiter.Arbiter1.Tournament'\" "
                                        "> '%s' 2>/dev/null & echo $!", monitor_path);
        monitor_pid = (pid_t) atoi(pid_s);
        free(pid_s);
        usleep(500000);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        if (monitor_pid > 0)
                kill(monitor_pid, SIGTERM);
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        free(admin);
        free(referee);
        free(monitor_path);
        return st == 0 ? 0 : -1;
}

/* The monitor's signals of member on tournament id. */
static size_t dbus_signals(json_int_t id, const char *member) {
        char path[96], *line = NULL;
        size_t cap = 0, n = 0;
        FILE *f = fopen(monitor_path, "r");

        assert_non_null(f);
        snprintf(path, sizeof path, "/org/arbiter/Arbiter1/tournament/%lld", (long long) id);
        while (getline(&line, &cap, f) > 0) {
                json_t *j = json_loads(line, 0, NULL);
                const char *p = json_string_value(json_object_get(j, "path")),
                           *m = json_string_value(json_object_get(j, "member"));
                n += p && m && strcmp(p, path) == 0 && strcmp(m, member) == 0;
                json_decref(j);
        }
        free(line);
        fclose(f);
        return n;
}

static json_int_t jint(json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

/* Plays runtime match mid to its end with seat 1 calling right each time
 * (reveal.pause_ms is 0: the next card is up at once). */
static void play_runtime_match(json_int_t mid) {
        char path[96];
        json_t *m;

        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) mid);
        json_decref(post(path, referee, "{}", 200));
        for (int calls = 0;; calls++) {
                snprintf(path, sizeof path, "/v1/matches/%lld", (long long) mid);
                m = get(path, 200);
                if (strcmp(json_string_value(json_object_get(m, "state")), "finished") == 0) {
                        json_decref(m);
                        return;
                }
                if (calls > 60)
                        fail_msg("runtime match %lld did not finish", (long long) mid);
                json_t *v = json_object_get(m, "view");
                if (!json_is_object(json_object_get(v, "window"))) {
                        json_decref(m);
                        usleep(20000);
                        continue;
                }
                char body[128];
                snprintf(body, sizeof body, "{\"seat\": 1, \"kind\": \"call\", \"call\": %d}", cp_pick_call(v, false));
                snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) mid);
                json_decref(post(path, referee, body, 200));
                json_decref(m);
        }
}

/* Results for stage match m: ranks in seat order 1, 2, 3, ... except that
 * seat `first` (1-based) wins and the one it displaces takes its rank. */
static char *ranks_body(json_t *m, int first) {
        json_t *parts = json_object_get(m, "participants"), *p;
        char *body = NULL;
        size_t len = 0, i, n = json_array_size(parts);
        FILE *f = open_memstream(&body, &len);

        fputs("{\"results\": [", f);
        json_array_foreach(parts, i, p) {
                int seat = (int) i + 1, rank = seat == first ? 1 : seat < first ? seat + 1 : seat;
                fprintf(f, "%s{\"player\": %lld, \"rank\": %d}", i ? ", " : "", (long long) jint(p, "player"), rank);
        }
        (void) n;
        fputs("]}", f);
        fclose(f);
        return body;
}

/* Plays a round: the first match for real in the runtime, the rest entered
 * by a referee; returns the round's matches (a new reference). */
static json_t *play_round(json_int_t tid, json_t *round) {
        json_t *matches = json_object_get(round, "matches"), *m;
        char path[128];
        size_t i;

        json_array_foreach(matches, i, m) {
                json_int_t smid = jint(m, "id");
                if (i == 0) {
                        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) tid,
                                 (long long) smid);
                        json_t *called = post(path, referee, "{}", 200);
                        assert_string_equal(json_string_value(json_object_get(called, "state")), "called");
                        json_decref(post(path, referee, "{}", 409));         /* called already */
                        /* its result comes from the live match, not by hand */
                        char *by_hand = ranks_body(m, 1);
                        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                                 (long long) smid);
                        json_decref(post(path, referee, by_hand, 409));
                        free(by_hand);
                        play_runtime_match(jint(called, "match"));
                        json_decref(called);
                        /* the placements come back into the stage by themselves */
                        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld", (long long) tid,
                                 (long long) smid);
                        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                                json_t *sm = get(path, 200);
                                bool done = strcmp(json_string_value(json_object_get(sm, "state")), "done") == 0;
                                if (done) {
                                        json_t *res = json_object_get(sm, "result");
                                        assert_int_equal(jint(json_array_get(res, 0), "rank"), 1);
                                        assert_string_equal(json_string_value(json_object_get(sm, "recorded_by")) + 0,
                                                            json_string_value(json_object_get(sm, "recorded_by")));
                                }
                                json_decref(sm);
                                if (done)
                                        break;
                                if (mono_ms() > deadline)
                                        fail_msg("the runtime match's result never reached stage match %lld",
                                                 (long long) smid);
                                usleep(50000);
                        }
                } else {
                        char *body = ranks_body(m, (int) (i % (size_t) json_array_size(json_object_get(m, "participants"))) + 1);
                        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                                 (long long) smid);
                        json_decref(post(path, referee, body, 200));
                        free(body);
                }
        }
        return json_incref(matches);
}

static bool contains_id(json_t *ids, json_int_t id) {
        size_t i;
        json_t *x;

        json_array_foreach(ids, i, x)
                if (json_integer_value(x) == id)
                        return true;
        return false;
}

static void a_club_night_runs_from_registration_to_the_final_table(void **state) {
        char path[160], body[512];
        json_t *t, *r1, *r2, *r3, *fin, *j, *m, *p;
        size_t i, k;
        (void) state;

        /* players, and what a bad player gets */
        for (int n = 0; n <= N_PLAYERS; n++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\", \"club\": \"Northside\"}", unique_name("player"));
                j = post("/v1/players", admin, body, 201);
                players[n] = jint(j, "id");
                json_decref(j);
        }
        json_decref(post("/v1/players", admin, "{\"name\": \"\"}", 400));
        json_decref(post("/v1/players", referee, "{\"name\": \"Zed\"}", 403));

        /* the tournament: a bad game, a bad match config, then the real one */
        json_decref(post("/v1/tournaments", admin, "{\"name\": \"x\", \"game\": \"chess\"}", 400));
        j = post("/v1/tournaments", admin, "{\"name\": \"x\", \"game\": \"crash-pilot\", \"match_config\": "
                 "{\"reveal\": {\"pause_ms\": -5}}}", 400);
        json_decref(j);
        /* two venue tables the matches are called to, in turn */
        json_int_t venue[2];
        for (int v = 0; v < 2; v++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}, "
                         "{\"seat\": 3}, {\"seat\": 4}]}", unique_name("venue"));
                j = post("/v1/tables", admin, body, 201);
                venue[v] = jint(j, "id");
                json_decref(j);
        }
        json_decref(post("/v1/tournaments", admin, "{\"name\": \"x\", \"game\": \"crash-pilot\", "
                         "\"tables\": [987654321]}", 400));
        /* a seed the organiser chooses is for a tournament marked as not competitive */
        json_decref(post("/v1/tournaments", admin, "{\"name\": \"x\", \"game\": \"crash-pilot\", \"seed\": 2026}",
                         400));
        json_decref(post("/v1/tournaments", admin, "{\"name\": \"x\", \"game\": \"crash-pilot\", \"seed\": 2026, "
                         "\"competitive\": true}", 400));
        json_decref(post("/v1/tournaments", admin, "{\"name\": \"x\", \"game\": \"crash-pilot\", "
                         "\"competitive\": \"no\"}", 400));
        snprintf(body, sizeof body, "{\"name\": \"Friday club night\", \"game\": \"crash-pilot\", \"seed\": 2026, "
                 "\"competitive\": false, "
                 "\"match_config\": {\"reveal\": {\"pause_ms\": 0}}, \"tables\": [%lld, %lld]}",
                 (long long) venue[0], (long long) venue[1]);
        t = post("/v1/tournaments", admin, body, 201);
        assert_true(json_is_false(json_object_get(t, "competitive")));
        assert_true(json_is_null(json_object_get(t, "seed")));             /* hidden until it is over */
        json_int_t tid = jint(t, "id");
        json_decref(t);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"running\"}", 409));         /* draft cannot run */
        json_decref(post(path, admin, "{\"state\": \"registration\"}", 200));

        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
        for (int n = 0; n < N_PLAYERS; n++) {
                snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[n]);
                json_decref(post(path, admin, body, 201));
        }
        snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[0]);
        json_decref(post(path, admin, body, 409));                               /* twice */
        json_decref(post(path, admin, "{\"player\": 987654321}", 400));          /* nobody */

        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"pod_swiss\", \"config\": {\"table_size\": 9}}", 400));
        json_decref(post(path, admin, "{\"format\": \"pod_swiss\", \"config\": {\"tiebreaks\": [\"coin\"]}}", 400));
        json_decref(post(path, admin, "{\"format\": \"pod_swiss\", \"config\": {\"rounds\": 3, \"table_size\": 4, "
                         "\"tiebreaks\": [\"placement_avg\", \"buchholz\"]}}", 201));
        json_decref(post(path, admin, "{\"format\": \"heats\", \"config\": {\"table_size\": 4, \"advance\": 1}, "
                         "\"advance\": 4}", 201));

        /* check-in is the venue's door, not the sign-up sheet: it opens with
         * the check_in state (tournament/states.h) */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) tid,
                 (long long) players[0]);
        j = post(path, admin, "{}", 409);
        assert_non_null(strstr(json_string_value(json_object_get(j, "detail")), "opens with the check_in state"));
        json_decref(j);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
        j = get(path, 200);
        assert_true(json_is_false(json_object_get(json_array_get(json_object_get(j, "items"), 0), "checked_in")));
        json_decref(j);

        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"check_in\"}", 200));
        for (int n = 0; n < N_PLAYERS; n++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) tid,
                         (long long) players[n]);
                json_decref(post(path, admin, "{}", 200));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"running\"}", 200));

        /* round 1: 13 players at tables of 4, 3, 3, 3 */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        assert_int_equal(json_array_size(json_object_get(j, "matches")), 4);
        /* up next: the four matches over the two tables, in turn */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/queue", (long long) tid);
        json_t *queue = get(path, 200);
        assert_int_equal(json_array_size(json_object_get(queue, "tables")), 2);
        json_array_foreach(json_object_get(queue, "tables"), i, m) {
                assert_true(jint(m, "table") == venue[0] || jint(m, "table") == venue[1]);
                assert_int_equal(json_array_size(json_object_get(m, "matches")), 2);
        }
        json_decref(queue);
        r1 = play_round(tid, j);
        json_decref(j);

        /* a late entry joins before round 2 */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
        snprintf(body, sizeof body, "{\"player\": %lld}", (long long) players[N_PLAYERS]);
        j = post(path, admin, body, 201);
        assert_true(json_is_true(json_object_get(j, "late")));
        json_decref(j);

        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        assert_int_equal(json_array_size(json_object_get(j, "matches")), 4);       /* 14: 4, 4, 3, 3 */
        bool late_paired = false;
        json_array_foreach(json_object_get(j, "matches"), i, m)
                json_array_foreach(json_object_get(m, "participants"), k, p)
                        late_paired |= jint(p, "player") == players[N_PLAYERS];
        assert_true(late_paired);
        r2 = play_round(tid, j);
        json_decref(j);

        /* a round-1 result cannot change now: round 2 was paired from it */
        json_t *m1 = json_array_get(r1, 1);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/corrections", (long long) tid,
                 (long long) jint(m1, "id"));
        char *fix = ranks_body(m1, 3);
        char *fix_body;
        assert_true(asprintf(&fix_body, "%.*s, \"reason\": \"sheet misread\"}", (int) strlen(fix) - 1, fix) > 0);
        struct http_reply hr;
        http_post_json(&daemon_, path, referee, fix_body, &hr);
        expect(&hr, 409);
        json_t *listed = json_object_get(hr.json, "matches");
        assert_true(json_array_size(listed) >= 1);
        json_array_foreach(r2, i, m)
                assert_true(contains_id(listed, jint(m, "id")));
        http_reply_done(&hr);
        free(fix);
        free(fix_body);

        /* one player drops before round 3: not paired again, keeps results */
        json_int_t dropped = players[5];
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/drop", (long long) tid, (long long) dropped);
        json_decref(post(path, admin, "{}", 200));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        json_array_foreach(json_object_get(j, "matches"), i, m)
                json_array_foreach(json_object_get(m, "participants"), k, p)
                        assert_true(jint(p, "player") != dropped);
        json_decref(post(path, admin, "{}", 409));         /* round 3 is not played yet */
        r3 = play_round(tid, j);
        json_decref(j);

        /* a round-3 result is corrected: nothing was paired from it yet */
        json_t *m3 = json_array_get(r3, 1);
        json_int_t corrected = jint(m3, "id");
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/corrections", (long long) tid,
                 (long long) corrected);
        json_decref(post(path, referee, "{\"results\": [], \"reason\": \"x\"}", 400));
        fix = ranks_body(m3, 2);
        assert_true(asprintf(&fix_body, "%.*s, \"reason\": \"the table called the wrong winner\"}",
                             (int) strlen(fix) - 1, fix) > 0);
        j = post(path, referee, fix_body, 200);
        json_int_t second_seat_player = jint(json_array_get(json_object_get(m3, "participants"), 1), "player");
        size_t ri;
        json_t *rr;
        json_array_foreach(json_object_get(j, "result"), ri, rr)
                if (jint(rr, "player") == second_seat_player)
                        assert_int_equal(jint(rr, "rank"), 1);
        json_decref(j);
        free(fix);
        free(fix_body);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/corrections", (long long) tid);
        j = get(path, 200);
        assert_int_equal(json_array_size(json_object_get(j, "items")), 1);
        json_t *c0 = json_array_get(json_object_get(j, "items"), 0);
        assert_string_equal(json_string_value(json_object_get(c0, "reason")), "the table called the wrong winner");
        assert_non_null(json_string_value(json_object_get(c0, "who")));
        json_decref(j);

        /* the recompute command: queued, organisers only */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/recompute", (long long) tid);
        json_decref(post(path, referee, "{}", 403));
        json_decref(post(path, admin, "{}", 202));
        json_decref(post("/v1/tournaments/987654321/recompute", admin, "{}", 404));

        /* stage 1 standings: cached equal recomputed; the drop is flagged */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=1", (long long) tid);
        json_t *cached = NULL;
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                /* the cache is refreshed after each result: wait for the correction's */
                json_decref(cached);
                cached = get(path, 200);
                snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=1&recompute=true", (long long) tid);
                json_t *fresh = get(path, 200);
                snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=1", (long long) tid);
                bool same = json_equal(cached, fresh);
                json_decref(fresh);
                if (same)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the cached standings never equalled a recomputation");
                usleep(100000);
        }
        json_t *rows = json_object_get(cached, "rows");
        assert_int_equal(json_array_size(rows), N_PLAYERS + 1);
        double last_points = 1e9;
        json_array_foreach(rows, i, p) {
                assert_true(json_number_value(json_object_get(p, "points")) <= last_points + 1e-9 ||
                            jint(p, "rank") > 0);
                if (jint(p, "player") == dropped) {
                        assert_true(json_is_true(json_object_get(p, "dropped")));
                        assert_int_equal(jint(p, "played"), 2);
                }
                if (jint(p, "player") == players[N_PLAYERS])
                        assert_int_equal(jint(p, "played"), 2);
        }
        json_t *top4 = json_array();
        for (i = 0; json_array_size(top4) < 4 && i < json_array_size(rows); i++)
                if (!json_is_true(json_object_get(json_array_get(rows, i), "dropped")))
                        json_array_append_new(top4, json_integer(jint(json_array_get(rows, i), "player")));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=1&format=csv", (long long) tid);
        http_get(&daemon_, path, NULL, &hr);
        expect(&hr, 200);
        assert_non_null(strstr(hr.body, "rank,player,name,points"));
        size_t lines = 0;
        for (const char *s = hr.body; *s; s++)
                lines += *s == '\n';
        assert_int_equal(lines, N_PLAYERS + 2);
        http_reply_done(&hr);

        /* the final table: the top 4 of stage 1 */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        assert_int_equal(jint(j, "stage"), 2);
        assert_int_equal(json_array_size(json_object_get(j, "matches")), 1);
        json_t *final = json_array_get(json_object_get(j, "matches"), 0);
        assert_int_equal(json_array_size(json_object_get(final, "participants")), 4);
        json_array_foreach(json_object_get(final, "participants"), i, p)
                assert_true(contains_id(top4, jint(p, "player")));
        fin = play_round(tid, j);
        json_decref(j);
        json_decref(post(path, admin, "{}", 409));         /* everything is played */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        j = post(path, admin, "{\"state\": \"finished\"}", 200);
        assert_string_equal(json_string_value(json_object_get(j, "state")), "finished");
        json_decref(j);

        /* the champion: seat 1 of the final, who won it in the runtime */
        json_int_t champion = jint(json_array_get(json_object_get(json_array_get(fin, 0), "participants"), 0),
                                   "player");
        snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=2", (long long) tid);
        j = get(path, 200);
        assert_int_equal(jint(json_array_get(json_object_get(j, "rows"), 0), "player"), champion);
        json_decref(j);

        /* ratings: every player who played is on the leaderboard, sorted,
         * and what the cache holds equals the recompute */
        j = NULL;
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_decref(j);
                j = get("/v1/leaderboards/crash-pilot", 200);
                snprintf(path, sizeof path, "/v1/players/%lld", (long long) champion);
                json_t *pl = get(path, 200);
                json_t *cache = json_array_get(json_object_get(pl, "ratings"), 0);
                json_t *board = NULL;
                json_array_foreach(json_object_get(j, "items"), i, p)
                        if (jint(p, "player") == champion)
                                board = p;
                bool same = cache && board &&
                            jint(cache, "games") == jint(board, "games") &&
                            fabs(json_number_value(json_object_get(cache, "mu")) -
                                 json_number_value(json_object_get(json_object_get(board, "rating"), "mu"))) < 1e-9;
                json_decref(pl);
                if (same)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the cached rating of the champion never equalled the leaderboard's");
                usleep(100000);
        }
        json_t *items = json_object_get(j, "items");
        assert_true(json_array_size(items) >= N_PLAYERS + 1);
        double prev = 1e9;
        json_array_foreach(items, i, p) {
                double ord = json_number_value(json_object_get(json_object_get(p, "rating"), "ordinal"));
                assert_true(ord <= prev + 1e-9);
                prev = ord;
                if (jint(p, "player") == champion) {
                        assert_true(json_number_value(json_object_get(json_object_get(p, "rating"), "mu")) > 25.0);
                        assert_int_equal(jint(p, "games"), 4);
                }
                if (jint(p, "player") == players[N_PLAYERS])
                        assert_true(json_is_true(json_object_get(p, "provisional")));
        }
        json_decref(j);
        json_decref(get("/v1/leaderboards/crash-pilot?from=2026-13-01", 400));
        json_decref(get("/v1/leaderboards/crash-pilot?to=2026-02-30", 400));
        /* a season with no results has nobody on its board */
        j = get("/v1/leaderboards/crash-pilot?from=2099-01-01", 200);
        assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
        json_decref(j);
        /* the champion's history: four rated matches, the last one where the leaderboard stands */
        snprintf(path, sizeof path, "/v1/players/%lld/ratings?game=crash-pilot&system=openskill", (long long) champion);
        j = get(path, 200);
        json_t *hist = json_object_get(j, "items");
        assert_int_equal(json_array_size(hist), 4);
        double last_mu = json_number_value(json_object_get(json_object_get(json_array_get(hist, 3), "after"), "mu"));
        json_decref(j);
        j = get("/v1/leaderboards/crash-pilot", 200);
        json_array_foreach(json_object_get(j, "items"), i, p)
                if (jint(p, "player") == champion)
                        assert_true(fabs(json_number_value(json_object_get(json_object_get(p, "rating"), "mu")) -
                                         last_mu) < 1e-9);
        json_decref(j);
        snprintf(path, sizeof path, "/v1/players/%lld/ratings?system=elo", (long long) champion);
        json_decref(get(path, 400));
        json_decref(get("/v1/leaderboards/chess", 404));
        json_decref(get("/v1/tournaments/987654321/events", 404));
        get_numbers_checked("/v1/leaderboards/crash-pilot");
        snprintf(path, sizeof path, "/v1/players/%lld/ratings?game=crash-pilot", (long long) champion);
        get_numbers_checked(path);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=1", (long long) tid);
        get_numbers_checked(path);

        /* results export: one line per seat played, plus the header */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/results?format=csv", (long long) tid);
        http_get(&daemon_, path, NULL, &hr);
        expect(&hr, 200);
        lines = 0;
        for (const char *s = hr.body; *s; s++)
                lines += *s == '\n';
        size_t seats = 0;
        json_t *rounds[] = { r1, r2, r3, fin };
        for (int ro = 0; ro < 4; ro++)
                json_array_foreach(rounds[ro], i, m)
                        seats += json_array_size(json_object_get(m, "participants"));
        assert_int_equal(lines, seats + 1);
        http_reply_done(&hr);

        /* D-Bus: the tournament's object and its signals */
        snprintf(path, sizeof path, "/org/arbiter/Arbiter1/tournament/%lld", (long long) tid);
        char *out = run_capture(NULL, "busctl --user get-property org.arbiter.Arbiter1 '%s' "
                                      "org.arbiter.Arbiter1.Tournament State 2>&1", path);
        assert_non_null(strstr(out, "\"finished\""));
        free(out);
        assert_dbus_doc_matches(path, "org.arbiter.Arbiter1.Tournament");
        assert_int_equal(dbus_signals(tid, "RoundStarted"), 4);
        assert_true(dbus_signals(tid, "MatchCalled") >= 4);
        assert_int_equal(dbus_signals(tid, "ResultRecorded"), 14);      /* 4 + 4 + 4 + the final + the correction */
        assert_true(dbus_signals(tid, "StandingsChanged") >= 1);

        json_decref(top4);
        json_decref(cached);
        json_decref(r1);
        json_decref(r2);
        json_decref(r3);
        json_decref(fin);
}

/* n new players, named prefix_..., into ids. */
static void new_players(json_int_t *ids, int n, const char *prefix) {
        char body[128];

        for (int i = 0; i < n; i++) {
                snprintf(body, sizeof body, "{\"name\": \"%s\"}", unique_name(prefix));
                json_t *j = post("/v1/players", admin, body, 201);
                ids[i] = jint(j, "id");
                json_decref(j);
        }
}

/* Registers ids[0..n) seeded in that order, checks them all in, and starts
 * tournament tid (draft → registration → check_in → running). */
static void seed_and_start(json_int_t tid, const json_int_t *ids, int n) {
        char path[160], body[128];

        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"registration\"}", 200));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations", (long long) tid);
        for (int i = 0; i < n; i++) {
                snprintf(body, sizeof body, "{\"player\": %lld, \"seed\": %d}", (long long) ids[i], i + 1);
                json_decref(post(path, admin, body, 201));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"check_in\"}", 200));
        for (int i = 0; i < n; i++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/registrations/%lld/check-in", (long long) tid,
                         (long long) ids[i]);
                json_decref(post(path, admin, "{}", 200));
        }
        snprintf(path, sizeof path, "/v1/tournaments/%lld/state", (long long) tid);
        json_decref(post(path, admin, "{\"state\": \"running\"}", 200));
}

/* A double elimination with a grand-final reset, served as a tree: every
 * match names where its winner and loser go, the first match that takes
 * them (the reset names the grand final's sources again, later); and a
 * recorded result rewrites the game's ratings, which ratings_changed says
 * once they are written. */
static void a_double_elimination_tree_names_the_first_match_each_side_goes_to(void **state) {
        char path[160];
        json_int_t ids[4], tid;
        struct stream st;
        json_t *j, *matches, *m, *slot;
        size_t i, k;
        (void) state;

        new_players(ids, 4, "de");
        j = post("/v1/tournaments", admin, "{\"name\": \"De\", \"game\": \"crash-pilot\"}", 201);
        tid = jint(j, "id");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"double_elimination\", \"config\": {\"grand_final\": "
                                      "\"double\"}}", 201));
        seed_and_start(tid, ids, 4);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        json_t *round1 = post(path, admin, "{}", 201);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/bracket", (long long) tid);
        j = get(path, 200);
        matches = json_object_get(j, "matches");
        assert_true(json_array_size(matches) >= 6);
        size_t reset_sources = 0;
        json_array_foreach(matches, i, m) {
                static const char *const sides[] = { "winner_to", "loser_to" }, *const from[] = { "winner", "loser" };

                for (int s = 0; s < 2; s++) {
                        json_t *to = json_object_get(m, sides[s]);
                        size_t first = SIZE_MAX;
                        json_t *later;
                        size_t l;

                        json_array_foreach(matches, l, later)
                                json_array_foreach(json_object_get(later, "slots"), k, slot) {
                                        json_t *src = json_object_get(slot, "source");
                                        if (l > i && first == SIZE_MAX &&
                                            strcmp(json_string_value(json_object_get(src, "from")), from[s]) == 0 &&
                                            (size_t) jint(src, "ref") == i)
                                                first = l;
                                        reset_sources += l > i && first != SIZE_MAX && first != l &&
                                                         strcmp(json_string_value(json_object_get(src, "from")),
                                                                from[s]) == 0 && (size_t) jint(src, "ref") == i;
                                }
                        if (first == SIZE_MAX)
                                assert_true(json_is_null(to));
                        else
                                assert_int_equal(jint(to, "match"), first);
                }
        }
        assert_true(reset_sources > 0);         /* the reset does name a source again */
        json_decref(j);

        /* a result rewrites the game's ratings: said once written */
        stream_open(&st, daemon_.url, "/v1/events?topic=ratings", NULL);
        j = round1;
        m = json_array_get(json_object_get(j, "matches"), 0);
        json_int_t rated = jint(json_array_get(json_object_get(m, "participants"), 0), "player");
        char *b = ranks_body(m, 1);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                 (long long) jint(m, "id"));
        json_decref(post(path, referee, b, 200));
        free(b);
        json_decref(j);
        size_t at = wait_event(&st, 0, "ratings_changed", NULL);
        assert_string_equal(data_str(&st.events[at], "game"), "crash-pilot");
        stream_close(&st);
        /* the rated match is in the winner's history by now */
        snprintf(path, sizeof path, "/v1/players/%lld/ratings?game=crash-pilot&system=openskill", (long long) rated);
        j = get(path, 200);
        assert_true(json_array_size(json_object_get(j, "items")) >= 1);
        json_decref(j);
}

/* A single-elimination cup of 6 with a third-place match: the top two
 * seeds get the byes, the bracket is served as a tree, matches are made as
 * soon as both sides are known, and a first-round correction after the
 * second round was played is refused, then (reset: true, admin) re-derives
 * the bracket. */
static void a_cup_runs_as_a_bracket_with_byes_and_a_reset_correction(void **state) {
        struct http_reply hr;
        char path[160];
        json_int_t ids[6], tid;
        json_t *j, *m, *p;
        size_t i, k;
        (void) state;

        new_players(ids, 6, "cup");
        j = post("/v1/tournaments", admin, "{\"name\": \"Cup\", \"game\": \"crash-pilot\", \"seed\": 7, "
                 "\"competitive\": false}", 201);
        tid = jint(j, "id");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"single_elimination\", \"config\": {\"third_place\": true}}", 201));
        seed_and_start(tid, ids, 6);

        /* round 1: seeds 3-6 and 4-5 play; seeds 1 and 2 have byes */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        json_t *r1 = json_incref(json_object_get(j, "matches"));
        json_decref(j);
        assert_int_equal(json_array_size(r1), 2);
        json_array_foreach(r1, i, m)
                json_array_foreach(json_object_get(m, "participants"), k, p)
                        assert_true(jint(p, "player") != ids[0] && jint(p, "player") != ids[1]);
        json_decref(post(path, admin, "{}", 409));                 /* nothing is ready yet */

        /* seat 2 wins each first-round match */
        json_array_foreach(r1, i, m) {
                char *b = ranks_body(m, 2);
                snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                         (long long) jint(m, "id"));
                json_decref(post(path, referee, b, 200));
                json_decref(post(path, referee, b, 409));           /* twice: use a correction */
                free(b);
        }
        /* the semi-finals are ready: seeds 1 and 2 meet the winners */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        json_t *semis = json_incref(json_object_get(j, "matches"));
        json_decref(j);
        assert_int_equal(json_array_size(semis), 2);
        json_t *semi = json_array_get(semis, 0);
        char *b = ranks_body(semi, 1);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                 (long long) jint(semi, "id"));
        json_decref(post(path, referee, b, 200));
        free(b);

        /* the bracket as a tree */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/bracket", (long long) tid);
        j = get(path, 200);
        assert_int_equal(jint(j, "size"), 8);
        size_t byes = 0, done = 0;
        json_array_foreach(json_object_get(j, "matches"), i, m) {
                const char *st = json_string_value(json_object_get(m, "status"));
                byes += strcmp(st, "bye") == 0;
                done += strcmp(st, "done") == 0;
        }
        assert_int_equal(byes, 2);
        assert_int_equal(done, 3);
        json_decref(j);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/standings", (long long) tid);
        json_decref(get(path, 200));

        /* the other semi-final is being played live: a reset may not pull it
         * away; once its live match is aborted it is free again */
        json_t *semi2 = json_array_get(semis, 1), *fed2 = NULL;
        json_array_foreach(r1, i, m) {
                json_t *w = json_array_get(json_object_get(m, "participants"), 1);
                json_array_foreach(json_object_get(semi2, "participants"), k, p)
                        if (jint(p, "player") == jint(w, "player"))
                                fed2 = m;
        }
        assert_non_null(fed2);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/call", (long long) tid,
                 (long long) jint(semi2, "id"));
        j = post(path, referee, "{}", 200);
        json_int_t live = jint(j, "match");
        json_decref(j);
        char *fix2 = ranks_body(fed2, 1), *fix2_body;
        assert_true(asprintf(&fix2_body, "%.*s, \"reason\": \"x\", \"reset\": true}", (int) strlen(fix2) - 1,
                             fix2) > 0);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/corrections", (long long) tid,
                 (long long) jint(fed2, "id"));
        http_post_json(&daemon_, path, admin, fix2_body, &hr);
        expect(&hr, 409);
        assert_non_null(strstr(hr.body, "abort"));
        http_reply_done(&hr);
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) live);
        json_decref(post(path, referee, "{}", 200));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld", (long long) tid, (long long) jint(semi2, "id"));
        j = get(path, 200);
        assert_string_equal(json_string_value(json_object_get(j, "state")), "pending");
        assert_true(json_is_null(json_object_get(j, "match")));
        json_decref(j);
        free(fix2);
        free(fix2_body);

        /* correcting a first-round match that fed a played semi-final */
        json_t *fed = NULL;
        json_array_foreach(r1, i, m) {
                json_t *w = json_array_get(json_object_get(m, "participants"), 1);
                json_array_foreach(json_object_get(semi, "participants"), k, p)
                        if (jint(p, "player") == jint(w, "player"))
                                fed = m;
        }
        assert_non_null(fed);
        char *fix = ranks_body(fed, 1), *fix_body;
        assert_true(asprintf(&fix_body, "%.*s, \"reason\": \"wrong winner\"}", (int) strlen(fix) - 1, fix) > 0);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/corrections", (long long) tid,
                 (long long) jint(fed, "id"));
        http_post_json(&daemon_, path, referee, fix_body, &hr);
        expect(&hr, 409);
        assert_true(contains_id(json_object_get(hr.json, "matches"), jint(semi, "id")));
        http_reply_done(&hr);
        char *reset_body;
        assert_true(asprintf(&reset_body, "%.*s, \"reason\": \"wrong winner\", \"reset\": true}",
                             (int) strlen(fix) - 1, fix) > 0);
        json_decref(post(path, referee, reset_body, 403));         /* a reset is the organiser's */
        json_decref(post(path, admin, reset_body, 200));
        /* the semi-final is gone and is made again with the corrected winner */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld", (long long) tid, (long long) jint(semi, "id"));
        json_decref(get(path, 404));
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        bool corrected_winner_plays = false;
        json_int_t new_winner = jint(json_array_get(json_object_get(fed, "participants"), 0), "player");
        json_array_foreach(json_object_get(j, "matches"), i, m)
                json_array_foreach(json_object_get(m, "participants"), k, p)
                        corrected_winner_plays |= jint(p, "player") == new_winner;
        assert_true(corrected_winner_plays);
        json_decref(j);
        free(fix);
        free(fix_body);
        free(reset_body);
        json_decref(r1);
        json_decref(semis);
}

/* The index in ids[0..n) of player id, or -1. */
static int player_index(const json_int_t *ids, int n, json_int_t id) {
        for (int i = 0; i < n; i++)
                if (ids[i] == id)
                        return i;
        return -1;
}

static void groups_into_a_bracket_pair_each_group_winner_with_the_other_groups_runner_up(void **state) {
        char path[160];
        json_int_t ids[8], tid;
        json_t *j, *m, *p;
        size_t i, k;
        (void) state;

        new_players(ids, 8, "grp");
        j = post("/v1/tournaments", admin, "{\"name\": \"Groups cup\", \"game\": \"crash-pilot\", \"seed\": 11, "
                 "\"competitive\": false}", 201);
        tid = jint(j, "id");
        json_decref(j);
        snprintf(path, sizeof path, "/v1/tournaments/%lld/stages", (long long) tid);
        json_decref(post(path, admin, "{\"format\": \"groups\", \"config\": {\"groups\": 1}}", 400));
        json_decref(post(path, admin, "{\"format\": \"groups\", \"config\": {\"draw\": 1}}", 400));
        json_decref(post(path, admin, "{\"format\": \"groups\", \"config\": {\"groups\": 2}}", 201));
        json_decref(post(path, admin, "{\"format\": \"single_elimination\", \"advance\": 4}", 201));
        seed_and_start(tid, ids, 8);

        /* snake of 8 into 2 groups: seeds 1 4 5 8 and 2 3 6 7, a round
         * robin of 4 each: 3 rounds of 4 tables.  The better seed wins every
         * match, so the groups finish 1, 4 (A) and 2, 3 (B). */
        for (int round = 1; round <= 3; round++) {
                snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
                j = post(path, admin, "{}", 201);
                assert_int_equal(jint(j, "stage"), 1);
                assert_int_equal(jint(j, "round"), round);
                json_t *ms = json_object_get(j, "matches");
                assert_int_equal(json_array_size(ms), 4);
                json_array_foreach(ms, i, m) {
                        json_t *parts = json_object_get(m, "participants");
                        int a = player_index(ids, 8, jint(json_array_get(parts, 0), "player")),
                            b = player_index(ids, 8, jint(json_array_get(parts, 1), "player"));
                        assert_true(a >= 0 && b >= 0);
                        /* group-mates only: 0 3 4 7 | 1 2 5 6 */
                        bool ga = a == 0 || a == 3 || a == 4 || a == 7, gb = b == 0 || b == 3 || b == 4 || b == 7;
                        assert_int_equal(ga, gb);
                        char *res = ranks_body(m, a < b ? 1 : 2);
                        snprintf(path, sizeof path, "/v1/tournaments/%lld/matches/%lld/result", (long long) tid,
                                 (long long) jint(m, "id"));
                        json_decref(post(path, referee, res, 200));
                        free(res);
                }
                json_decref(j);
        }
        /* the group standings show each player's group and place in it
         * (computed afresh: the cache may not have the last result yet) */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/standings?stage=1&recompute=true", (long long) tid);
        j = get(path, 200);
        assert_string_equal(json_string_value(json_object_get(j, "format")), "groups");
        json_t *rows = json_object_get(j, "rows");
        assert_int_equal(json_array_size(rows), 8);
        static const int want_seed[4] = { 0, 1, 2, 3 }, want_group[4] = { 1, 2, 2, 1 }, want_place[4] = { 1, 1, 2, 2 };
        for (int r = 0; r < 4; r++) {
                json_t *row = json_array_get(rows, (size_t) r);
                assert_int_equal(jint(row, "player"), ids[want_seed[r]]);
                assert_int_equal(jint(row, "group"), want_group[r]);
                assert_int_equal(jint(row, "place"), want_place[r]);
        }
        json_decref(j);

        /* stage 1 is done: the next POST finishes it and pairs the bracket
         * of the top 2 of each group: winner A (seed 1) v runner-up B (seed
         * 3), winner B (seed 2) v runner-up A (seed 4) */
        snprintf(path, sizeof path, "/v1/tournaments/%lld/rounds", (long long) tid);
        j = post(path, admin, "{}", 201);
        assert_int_equal(jint(j, "stage"), 2);
        json_t *ms = json_object_get(j, "matches");
        assert_int_equal(json_array_size(ms), 2);
        bool seen_a = false, seen_b = false;
        json_array_foreach(ms, i, m) {
                int who[2] = { -1, -1 };
                json_array_foreach(json_object_get(m, "participants"), k, p)
                        who[k] = player_index(ids, 8, jint(p, "player"));
                int lo = who[0] < who[1] ? who[0] : who[1], hi = who[0] < who[1] ? who[1] : who[0];
                if (lo == 0) {
                        assert_int_equal(hi, 2);
                        seen_a = true;
                } else {
                        assert_int_equal(lo, 1);
                        assert_int_equal(hi, 3);
                        seen_b = true;
                }
        }
        assert_true(seen_a && seen_b);
        json_decref(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_club_night_runs_from_registration_to_the_final_table),
                cmocka_unit_test(a_cup_runs_as_a_bracket_with_byes_and_a_reset_correction),
                cmocka_unit_test(a_double_elimination_tree_names_the_first_match_each_side_goes_to),
                cmocka_unit_test(groups_into_a_bracket_pair_each_group_winner_with_the_other_groups_runner_up),
        };
        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
