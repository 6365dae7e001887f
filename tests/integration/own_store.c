/* tests/integration/own_store.c — see own_store.h. */
#define _GNU_SOURCE
#include "tests/integration/own_store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <libpq-fe.h>

#include "common/log.h"
#include "common/loop.h"
#include "store/store.h"
#include "tests/integration/harness.h"

struct loop *own_loop;
struct store *own_store;
char *own_dsn;

static void on_hang(evutil_socket_t fd, short what, void *userdata) {
        struct own_wait *w = userdata;

        (void) fd, (void) what;
        w->timed_out = w->done = true;
}

void own_wait_for(struct own_wait *w, const char *what) {
        struct timeval tv = { HARNESS_WAIT_MS / 1000, 0 };
        struct event *guard = evtimer_new(loop_base(own_loop), on_hang, w);

        assert_non_null(guard);
        evtimer_add(guard, &tv);
        assert_int_equal(loop_run_until(own_loop, &w->done), 0);
        event_free(guard);
        if (w->timed_out || !w->done)
                fail_msg("no answer: %s", what);
}

/* The result of q, which must have succeeded (tuples when want_tuples). */
static PGresult *exec(PGconn *c, const char *q, bool want_one_value) {
        PGresult *res = PQexec(c, q);
        ExecStatusType st = PQresultStatus(res);

        if (want_one_value ? st != PGRES_TUPLES_OK || PQntuples(res) != 1
                           : st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
                fail_msg("%s: %s", q, PQerrorMessage(c));
        return res;
}

static PGconn *connect_own(void) {
        PGconn *c = PQconnectdb(own_dsn);

        if (PQstatus(c) != CONNECTION_OK)
                fail_msg("cannot connect to %s: %s", own_dsn, PQerrorMessage(c));
        return c;
}

void own_sql(const char *fmt, ...) {
        PGconn *c = connect_own();
        va_list ap;
        char *q;

        va_start(ap, fmt);
        assert_true(vasprintf(&q, fmt, ap) > 0);
        va_end(ap);
        PQclear(exec(c, q, false));
        PQfinish(c);
        free(q);
}

char *own_sql_text(const char *fmt, ...) {
        PGconn *c = connect_own();
        PGresult *res;
        va_list ap;
        char *q, *v;

        va_start(ap, fmt);
        assert_true(vasprintf(&q, fmt, ap) > 0);
        va_end(ap);
        res = exec(c, q, true);
        v = strdup(PQgetvalue(res, 0, 0));
        PQclear(res);
        PQfinish(c);
        free(q);
        return v;
}

int64_t own_sql_int64(const char *fmt, ...) {
        va_list ap;
        char *q, *v;
        int64_t n;

        va_start(ap, fmt);
        assert_true(vasprintf(&q, fmt, ap) > 0);
        va_end(ap);
        v = own_sql_text("%s", q);
        n = strtoll(v, NULL, 10);
        free(v);
        free(q);
        return n;
}

static void on_state(void *userdata, enum store_state state, const char *detail) {
        struct own_wait *w = userdata;

        if (state == STORE_READY)
                w->done = true;
        else if (state == STORE_FAILED)
                fail_msg("the store failed: %s", detail);
}

void own_store_open(const char *name) {
        char *unique = strdup(unique_name(name)), migrations[512];
        struct own_wait ready = { 0 };

        log_set_level(LOG_WARNING);             /* the migrations' notices are not the test's */
        own_dsn = create_database(unique);
        free(unique);
        snprintf(migrations, sizeof migrations, "%s/migrations", harness_env("ARBITER_TEST_ROOT"));
        struct store_config cfg = {
                .dsn = own_dsn,
                .statement_timeout_ms = HARNESS_WAIT_MS,
                .reconnect_max_s = 1,
                .migrations_dir = migrations,
        };
        assert_int_equal(loop_new(&own_loop), 0);
        assert_int_equal(store_new(own_loop, &cfg, on_state, &ready, &own_store), 0);
        own_wait_for(&ready, "the store becoming ready");
}

void own_store_close(void) {
        store_free(own_store);
        loop_free(own_loop);
        free(own_dsn);
        own_store = NULL;
        own_loop = NULL;
        own_dsn = NULL;
}
