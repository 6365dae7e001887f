/* tests/integration/outage.c — see outage.h. */
#define _GNU_SOURCE
#include "tests/integration/outage.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/sse_client.h"

/* cp_wait_window's fetch has no context: the stage it reads. */
static struct outage *current;

static char *token_in(struct outage *o, const char *role) {
        int st;
        char *t = run_capture(&st, "ARBITER_DSN='%s' ARBITER_MIGRATIONS='%s/migrations' ARBITER_BUS=none "
                                   "'%s' --create-token %s '%s' 2>/dev/null",
                              o->dsn, harness_env("ARBITER_TEST_ROOT"), harness_env("ARBITER_TEST_DAEMON"), role,
                              unique_name(role));
        assert_int_equal(st, 0);
        t[strcspn(t, "\n")] = '\0';
        return t;
}

void outage_pg(struct outage *o, const char *what) {
        assert_int_equal(run_cmd("'%s/tools/pgcluster' '%s' %s >/dev/null", harness_env("ARBITER_TEST_ROOT"),
                                 o->pg_dir, what), 0);
}

void outage_init(struct outage *o, const char *name) {
        int st;

        memset(o, 0, sizeof *o);
        current = o;
        assert_true(asprintf(&o->dir, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name(name)) > 0);
        assert_int_equal(run_cmd("mkdir -p '%s'", o->dir), 0);
        assert_true(asprintf(&o->pg_dir, "%s/pg", o->dir) > 0);
        assert_true(asprintf(&o->spool, "%s/spool", o->dir) > 0);
        outage_pg(o, "init");
        outage_pg(o, "start");
        o->dsn = run_capture(&st, "'%s/tools/pgcluster' '%s' dsn", harness_env("ARBITER_TEST_ROOT"), o->pg_dir);
        o->dsn[strcspn(o->dsn, "\n")] = '\0';
        outage_env(o, "ARBITER_DSN=%s", o->dsn);
        outage_env(o, "ARBITER_SPOOL=%s", o->spool);
        o->admin = token_in(o, "admin");
        o->referee = token_in(o, "referee");
}

void outage_env(struct outage *o, const char *fmt, ...) {
        va_list ap;

        assert_true(o->n_env < OUTAGE_MAX_ENV);
        va_start(ap, fmt);
        assert_true(vasprintf(&o->env[o->n_env++], fmt, ap) > 0);
        va_end(ap);
        o->env[o->n_env] = NULL;
}

void outage_start(struct outage *o, bool wait_ready) {
        daemon_start(&o->d, (const char *const *) o->env, NULL, wait_ready);
        o->running = true;
        if (wait_ready)
                assert_true(wait_tokens_loaded(&o->d, HARNESS_WAIT_MS));
}

void outage_kill(struct outage *o) {
        if (!o->running)
                return;
        kill(o->d.pid, SIGKILL);
        daemon_wait_exit(&o->d);
        o->running = false;
}

void outage_done(struct outage *o) {
        outage_kill(o);
        if (o->pg_dir)
                run_cmd("'%s/tools/pgcluster' '%s' stop >/dev/null 2>&1", harness_env("ARBITER_TEST_ROOT"), o->pg_dir);
        for (size_t i = 0; i < o->n_env; i++)
                free(o->env[i]);
        free(o->dir);
        free(o->pg_dir);
        free(o->dsn);
        free(o->spool);
        free(o->admin);
        free(o->referee);
        memset(o, 0, sizeof *o);
        current = NULL;
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

json_int_t outage_match(struct outage *o, int seed) {
        struct http_reply r;
        char body[512], path[96];

        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1}, {\"seat\": 2}, {\"seat\": 3}]}",
                 unique_name("table"));
        http_post_json(&o->d, "/v1/tables", o->admin, body, &r);
        expect(&r, 201);
        json_int_t table = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(body, sizeof body, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\", "
                 "\"Cy\"], \"seed\": %d, \"config\": {\"reveal\": {\"pause_ms\": 0}}}", (long long) table, seed);
        http_post_json(&o->d, "/v1/matches", o->referee, body, &r);
        expect(&r, 201);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) id);
        http_post_json(&o->d, path, o->referee, "{}", &r);
        expect(&r, 200);
        http_reply_done(&r);
        return id;
}

json_t *outage_view(struct outage *o, json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld/seats/1", (long long) id);
        http_get(&o->d, path, o->referee, &r);
        expect(&r, 200);
        json_t *v = json_incref(r.json);
        http_reply_done(&r);
        return v;
}

static json_t *view_of_current(json_int_t id) {
        return outage_view(current, id);
}

char *outage_call_body(struct outage *o, json_int_t id, int seat, json_int_t *window) {
        char *body;

        current = o;
        json_t *v = cp_wait_window(view_of_current, id, *window);
        *window = cp_window_id(v);
        assert_true(asprintf(&body, "{\"seat\": %d, \"kind\": \"call\", \"call\": %d}", seat,
                             cp_pick_call(v, false)) > 0);
        json_decref(v);
        return body;
}

void outage_post_input(struct outage *o, json_int_t id, const char *body, struct http_reply *ret) {
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) id);
        http_post_json(&o->d, path, o->referee, body, ret);
}

json_t *outage_log(struct outage *o, json_int_t id) {
        struct http_reply r;
        char path[96];
        json_t *it;
        size_t i;

        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        http_get(&o->d, path, o->referee, &r);
        expect(&r, 200);
        json_t *items = json_incref(json_object_get(r.json, "items"));
        http_reply_done(&r);
        json_array_foreach(items, i, it)
                if (json_integer_value(json_object_get(it, "seq")) != (json_int_t) i + 1)
                        fail_msg("log item %zu has seq %lld", i,
                                 (long long) json_integer_value(json_object_get(it, "seq")));
        return items;
}

long long outage_sql_number(struct outage *o, const char *sql) {
        int st;
        char *out = run_capture(&st, "psql '%s' -tAX -c \"%s\"", o->dsn, sql);
        long long v = atoll(out);

        assert_int_equal(st, 0);
        free(out);
        return v;
}

void outage_wait_sql(struct outage *o, const char *sql, const char *what) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; outage_sql_number(o, sql) < 1;)
                if (mono_ms() > deadline)
                        fail_msg("the database never got there: %s", what);
}

pid_t outage_hold(struct outage *o, const char *sql, const char *check) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                setenv("PGAPPNAME", "locker", 1);
                execlp("psql", "psql", o->dsn, "-qX", "-c", sql, (char *) NULL);
                _exit(127);
        }
        outage_wait_sql(o, check, "the test's session holds the lock");
        return pid;
}

void outage_release(pid_t *pid) {
        if (*pid > 0) {
                kill(*pid, SIGTERM);
                waitpid(*pid, NULL, 0);
        }
        *pid = -1;
}
