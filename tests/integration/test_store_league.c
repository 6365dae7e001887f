/* store/league.h driven as plain C, without HTTP: a loop, the daemon's
 * store on a database of the test's own, and the league events'
 * repository:
 *   - an append keeps every byte of its events (quotes, backslashes,
 *     braces, commas, text that reads as NULL, UTF-8) in the order given,
 *     with ids in that order, and NOTIFYs the newest id;
 *   - a read after a cursor pages in id order and says the oldest id;
 *   - ids commit in id order: an append waits for another transaction
 *     that holds the league's lock (the server shows it waiting on the
 *     advisory lock), and draws its ids after that one's;
 *   - the newest match_view of a match, and none for another;
 *   - the prune deletes what is older than it keeps, and only that;
 *   - arguments out of range are refused before anything is queued.
 * Every wait is for a callback or for a state the server shows. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "common/loop.h"
#include "store/league.h"
#include "store/store.h"
#include "tests/integration/harness.h"
#include "tests/integration/own_store.h"

static int setup(void **state) {
        (void) state;
        own_store_open("league");
        return 0;
}

static int teardown(void **state) {
        (void) state;
        own_store_close();
        return 0;
}

/* ---- what the callbacks got ----------------------------------------------------------- */

#define MAX_ROWS 16

struct row_copy {
        int64_t id;
        char *venue, *topic, *event, *data;
};

struct got {
        struct own_wait w;
        bool failed;
        int64_t n_value;                /* an append's last id, a count */
        int64_t oldest;
        size_t n;
        struct row_copy rows[MAX_ROWS];
};

static void got_clear(struct got *g) {
        for (size_t i = 0; i < g->n; i++)
                free(g->rows[i].venue), free(g->rows[i].topic), free(g->rows[i].event), free(g->rows[i].data);
        memset(g, 0, sizeof *g);
}

static void on_number(void *userdata, int64_t n, const struct store_error *failure, const char *error) {
        struct got *g = userdata;

        if (failure)
                print_message("# failed: %s\n", error);
        g->w.done = true;
        g->failed = failure != NULL;
        g->n_value = n;
}

static void on_rows(void *userdata, const struct store_league_row *rows, size_t n, int64_t oldest,
                    const struct store_error *failure, const char *error) {
        struct got *g = userdata;

        if (failure)
                print_message("# failed: %s\n", error);
        g->w.done = true;
        g->failed = failure != NULL;
        g->oldest = oldest;
        assert_true(n <= MAX_ROWS);
        g->n = n;
        for (size_t i = 0; i < n; i++)
                g->rows[i] = (struct row_copy) { .id = rows[i].id, .venue = strdup(rows[i].venue),
                                                 .topic = strdup(rows[i].topic), .event = strdup(rows[i].event),
                                                 .data = strdup(rows[i].data) };
}

static void wait_ok(struct got *g, int r, const char *what) {
        assert_int_equal(r, 0);
        own_wait_for(&g->w, what);
        assert_false(g->failed);
}

static int64_t append(const struct store_league_new *ev, size_t n) {
        struct got g = { 0 };

        wait_ok(&g, store_league_append(own_store, "main", ev, n, on_number, &g), "an append");
        return g.n_value;
}

static void since(struct got *g, int64_t after, unsigned limit) {
        got_clear(g);
        wait_ok(g, store_league_since(own_store, after, limit, on_rows, g), "a read");
}

/* The same JSON value (jsonb keeps neither the spacing nor the order of
 * keys of the text it was given). */
static void assert_same_json(const char *a, const char *b) {
        json_t *x = json_loads(a, JSON_DECODE_ANY, NULL), *y = json_loads(b, JSON_DECODE_ANY, NULL);

        if (!x || !y || !json_equal(x, y))
                fail_msg("%s is not %s", a, b);
        json_decref(x);
        json_decref(y);
}

/* ---- the NOTIFY ------------------------------------------------------------------------ */

struct notified {
        struct own_wait w;
        char payload[32];
};

static struct notified last_notify;

static void on_notify(void *userdata, const char *channel, const char *payload) {
        struct notified *nt = userdata;

        assert_string_equal(channel, STORE_LEAGUE_CHANNEL);
        snprintf(nt->payload, sizeof nt->payload, "%s", payload);
        nt->w.done = true;
}

/* ---- the scenes ------------------------------------------------------------------------- */

static void an_append_keeps_every_byte_in_the_order_given(void **state) {
        static const struct store_league_new ev[] = {
                { "tournament/7", "result_recorded", "{\"name\": \"O'Brien \\\"the \\\\ fox\\\"\", \"ranks\": [1, 2]}" },
                { "table/3", "match_created", "{\"kind\": \"NULL\", \"odd\": \"{,}\\\"\"}" },
                { "ratings/crash-pilot", "ratings_changed", "{\"game\": \"Zoë — ½ ✓\"}" },
                { "match/42", "match_view", "{}" },
        };
        struct got g = { 0 };
        int64_t last;
        (void) state;

        assert_int_equal(store_league_watch(own_store, on_notify, &last_notify), 0);
        last = append(ev, 4);
        own_wait_for(&last_notify.w, "the append's NOTIFY");
        assert_int_equal(strtoll(last_notify.payload, NULL, 10), last);

        since(&g, 0, STORE_LEAGUE_BATCH_MAX);
        assert_int_equal(g.n, 4);
        for (size_t i = 0; i < 4; i++) {
                assert_true(i == 0 || g.rows[i].id > g.rows[i - 1].id);
                assert_string_equal(g.rows[i].venue, "main");
                assert_string_equal(g.rows[i].topic, ev[i].topic);
                assert_string_equal(g.rows[i].event, ev[i].event);
                assert_same_json(g.rows[i].data, ev[i].data);
        }
        assert_int_equal(g.rows[3].id, last);
        assert_int_equal(g.oldest, g.rows[0].id);

        /* in pages, after a cursor */
        int64_t first = g.rows[0].id, second = g.rows[1].id;
        since(&g, 0, 2);
        assert_int_equal(g.n, 2);
        assert_int_equal(g.rows[1].id, second);
        since(&g, second, STORE_LEAGUE_BATCH_MAX);
        assert_int_equal(g.n, 2);
        assert_int_equal(g.rows[1].id, last);
        assert_int_equal(g.oldest, first);
        since(&g, last, STORE_LEAGUE_BATCH_MAX);
        assert_int_equal(g.n, 0);

        struct got c = { 0 };
        wait_ok(&c, store_league_last_id(own_store, on_number, &c), "the newest id");
        assert_int_equal(c.n_value, last);
        got_clear(&g);
}

/* The loop's timer that looks, with a blocking query, whether an append's
 * statement waits on the league's advisory lock. */
struct lock_watch {
        struct own_wait w;
        struct event *timer;
};

static void on_lock_watch(evutil_socket_t fd, short what, void *userdata) {
        struct lock_watch *lw = userdata;
        struct timeval tick = { 0, 20000 };

        (void) fd, (void) what;
        if (own_sql_int64("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                          "AND wait_event_type = 'Lock' AND wait_event = 'advisory' "
                          "AND query LIKE '%%INSERT INTO league_events%%'") > 0)
                lw->w.done = true;
        else
                evtimer_add(lw->timer, &tick);
}

static void ids_commit_in_id_order(void **state) {
        static const struct store_league_new ev[] = { { "tournament/1", "standings_changed", "{\"stage\": 1}" } };
        struct lock_watch lw = { 0 };
        struct got g = { 0 };
        struct timeval now = { 0, 0 };
        PGconn *other;
        PGresult *res;
        char sql[160];
        int64_t other_id;
        (void) state;

        /* another writer holds the league's lock, as an append in flight does */
        other = PQconnectdb(own_dsn);
        assert_int_equal(PQstatus(other), CONNECTION_OK);
        snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock(%" PRId64 ")", STORE_LEAGUE_LOCK_KEY);
        res = PQexec(other, sql);
        assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
        PQclear(res);

        /* ours is sent, and waits for it */
        assert_int_equal(store_league_append(own_store, "main", ev, 1, on_number, &g), 0);
        lw.timer = evtimer_new(loop_base(own_loop), on_lock_watch, &lw);
        evtimer_add(lw.timer, &now);
        own_wait_for(&lw.w, "the append to wait on the league's lock");
        event_free(lw.timer);
        assert_false(g.w.done);

        /* the other draws its id now, later than ours was sent, and commits */
        res = PQexec(other, "INSERT INTO league_events (venue, topic, event, data) "
                            "VALUES ('main', 'table/1', 'table_created', '{}') RETURNING id");
        assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
        other_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
        PQclear(res);
        res = PQexec(other, "COMMIT");
        assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
        PQclear(res);
        PQfinish(other);

        own_wait_for(&g.w, "the append");
        assert_false(g.failed);
        assert_true(g.n_value > other_id);
}

static void the_newest_view_of_a_match(void **state) {
        static const struct store_league_new ev[] = {
                { "match/42", "match_view", "{\"match\": 42, \"seq\": 1}" },
                { "match/43", "match_view", "{\"match\": 43, \"seq\": 9}" },
                { "match/42", "match_view", "{\"match\": 42, \"seq\": 2}" },
                { "match/42", "match_ended", "{\"match\": 42}" },
        };
        struct got g = { 0 };
        (void) state;

        append(ev, 4);
        wait_ok(&g, store_league_newest_view(own_store, 42, on_rows, &g), "match 42's view");
        assert_int_equal(g.n, 1);
        assert_string_equal(g.rows[0].event, "match_view");
        assert_same_json(g.rows[0].data, ev[2].data);
        got_clear(&g);
        wait_ok(&g, store_league_newest_view(own_store, 44, on_rows, &g), "match 44's view");
        assert_int_equal(g.n, 0);
        got_clear(&g);
}

static void the_prune_deletes_what_is_older_than_it_keeps(void **state) {
        static const struct store_league_new ev[] = { { "tournament/2", "tournament_changed", "{}" } };
        struct got g = { 0 }, c = { 0 };
        int64_t kept, old;
        (void) state;

        kept = append(ev, 1);
        old = own_sql_int64("SELECT count(*) FROM league_events WHERE id < %" PRId64, kept);
        assert_true(old > 0);
        own_sql("UPDATE league_events SET at = now() - interval '2 hours' WHERE id < %" PRId64, kept);
        wait_ok(&c, store_league_prune(own_store, STORE_LEAGUE_KEEP_S, on_number, &c), "the prune");
        assert_int_equal(c.n_value, old);
        since(&g, 0, STORE_LEAGUE_BATCH_MAX);
        assert_int_equal(g.n, 1);
        assert_int_equal(g.rows[0].id, kept);
        assert_int_equal(g.oldest, kept);
        got_clear(&g);
}

static void arguments_out_of_range_are_refused(void **state) {
        char long_topic[STORE_LEAGUE_NAME_MAX + 2];
        struct store_league_new ev[] = { { "t", "e", "{}" } };
        (void) state;

        assert_int_equal(store_league_append(own_store, "main", ev, 0, on_number, NULL), -EINVAL);
        assert_int_equal(store_league_append(own_store, "main", ev, STORE_LEAGUE_BATCH_MAX + 1, on_number, NULL),
                         -EINVAL);
        memset(long_topic, 't', sizeof long_topic - 1);
        long_topic[sizeof long_topic - 1] = '\0';
        ev[0].topic = long_topic;
        assert_int_equal(store_league_append(own_store, "main", ev, 1, on_number, NULL), -EINVAL);
        ev[0].topic = "";
        assert_int_equal(store_league_append(own_store, "main", ev, 1, on_number, NULL), -EINVAL);
        assert_int_equal(store_league_since(own_store, 0, 0, on_rows, NULL), -EINVAL);
        assert_int_equal(store_league_since(own_store, -1, 1, on_rows, NULL), -EINVAL);
        assert_int_equal(store_league_newest_view(own_store, 0, on_rows, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(an_append_keeps_every_byte_in_the_order_given),
                cmocka_unit_test(ids_commit_in_id_order),
                cmocka_unit_test(the_newest_view_of_a_match),
                cmocka_unit_test(the_prune_deletes_what_is_older_than_it_keeps),
                cmocka_unit_test(arguments_out_of_range_are_refused),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
