/* api/pool.c: the deadline of a request's headers and body, the budget and
 * its eviction of the oldest pending connections, room for priority
 * requests, the per-address limits, and the counts — driven as
 * api/server.c drives it, with times given by hand. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/pool.h"

#define SEC INT64_C(1000000)
#define TIMEOUT (10 * SEC)
#define MAX_CONNS 64

/* A connection as the server sees it: what the pool closed it for. */
struct conn {
        struct pool_conn *pc;
        bool closed;
        enum pool_reason why;
};

struct fixture {
        struct pool *pool;
        struct conn conns[MAX_CONNS];
        size_t n;
        unsigned closes;
};

static void on_close(void *userdata, void *conn_userdata, enum pool_reason why) {
        struct fixture *f = userdata;
        struct conn *c = conn_userdata;

        assert_false(c->closed);
        c->closed = true;
        c->why = why;
        f->closes++;
}

static struct fixture *fixture(unsigned budget, unsigned per_address, unsigned pending_per_address) {
        static struct fixture f;
        struct pool_limits lim = { .budget = budget, .per_address = per_address,
                                   .pending_per_address = pending_per_address, .request_timeout_usec = TIMEOUT };

        memset(&f, 0, sizeof f);
        assert_int_equal(pool_new(&lim, 0, on_close, &f, &f.pool), 0);
        return &f;
}

/* 10.0.0.host */
static struct pool_addr addr4(unsigned host) {
        struct pool_addr a = { .family = 4, .bytes = { 10, 0, 0, (uint8_t) host } };
        return a;
}

static struct conn *open_from(struct fixture *f, unsigned host, int64_t now) {
        struct pool_addr a = addr4(host);
        struct conn *c = &f->conns[f->n++];

        assert_true(f->n <= MAX_CONNS);
        assert_int_equal(pool_open(f->pool, &a, now, c, &c->pc), 0);
        return c;
}

/* What libmicrohttpd does with a socket the pool shut: drops it. */
static void drop_closed(struct fixture *f) {
        for (size_t i = 0; i < f->n; i++)
                if (f->conns[i].closed && f->conns[i].pc) {
                        assert_int_equal(pool_conn_state(f->conns[i].pc), POOL_CLOSING);
                        pool_close(f->pool, f->conns[i].pc);
                        f->conns[i].pc = NULL;
                }
}

static void done(struct fixture *f) {
        struct pool_stats st;

        for (size_t i = 0; i < f->n; i++)
                pool_close(f->pool, f->conns[i].pc);
        pool_stats(f->pool, &st);
        for (int s = 0; s < POOL_N_STATES; s++)
                assert_int_equal(st.state[s], 0);
        assert_int_equal(st.streams, 0);
        assert_int_equal(st.addresses, 0);
        pool_free(f->pool);
}

static unsigned in_state(struct fixture *f, enum pool_state s) {
        struct pool_stats st;
        pool_stats(f->pool, &st);
        return st.state[s];
}

/* Rule 1: headers and body within request_timeout of being ready, however
 * the bytes trickle in; once the body is in, no deadline. */
static void a_request_has_a_total_deadline(void **state) {
        struct fixture *f = fixture(100, 100, 100);
        (void) state;

        struct conn *silent = open_from(f, 1, 0);
        struct conn *uploading = open_from(f, 2, 1 * SEC);
        struct conn *answered = open_from(f, 3, 2 * SEC);
        assert_int_equal(pool_next_deadline(f->pool), TIMEOUT);

        assert_int_equal(pool_classify(f->pool, uploading->pc, false), POOL_ADMITTED);
        assert_int_equal(pool_classify(f->pool, answered->pc, false), POOL_ADMITTED);
        pool_request_in(f->pool, answered->pc);

        pool_expire(f->pool, TIMEOUT - 1);
        assert_int_equal(f->closes, 0);
        pool_expire(f->pool, TIMEOUT);
        assert_true(silent->closed);
        assert_int_equal(silent->why, POOL_TIMED_OUT);
        assert_false(uploading->closed);
        /* the upload keeps the deadline it had while its headers came */
        assert_int_equal(pool_next_deadline(f->pool), 1 * SEC + TIMEOUT);
        pool_expire(f->pool, 1 * SEC + TIMEOUT);
        assert_true(uploading->closed);
        assert_int_equal(uploading->why, POOL_TIMED_OUT);
        assert_false(answered->closed);
        assert_int_equal(pool_next_deadline(f->pool), INT64_MAX);

        /* kept alive after its reply: ready again, with a new deadline */
        pool_done(f->pool, answered->pc, 30 * SEC);
        assert_int_equal(pool_conn_state(answered->pc), POOL_PENDING);
        assert_int_equal(pool_next_deadline(f->pool), 30 * SEC + TIMEOUT);
        pool_expire(f->pool, 30 * SEC + TIMEOUT);
        assert_true(answered->closed);

        struct pool_stats st;
        pool_stats(f->pool, &st);
        assert_int_equal(st.closed[POOL_TIMED_OUT], 3);
        drop_closed(f);
        done(f);
}

/* Rule 2: a connection that takes the pool over its budget closes the
 * oldest pending one, never itself. */
static void over_the_budget_the_oldest_pending_connection_goes(void **state) {
        struct fixture *f = fixture(3, 100, 100);
        (void) state;

        struct conn *a = open_from(f, 1, 0);
        struct conn *b = open_from(f, 2, 1);
        struct conn *c = open_from(f, 3, 2);
        assert_int_equal(pool_classify(f->pool, b->pc, false), POOL_ADMITTED);
        assert_int_equal(f->closes, 0);

        struct conn *d = open_from(f, 4, 3);
        assert_true(a->closed);
        assert_int_equal(a->why, POOL_EVICTED);
        assert_false(b->closed || c->closed || d->closed);   /* b is a request, not pending */

        /* a kept-alive connection idle since long ago is pending too */
        pool_request_in(f->pool, b->pc);
        pool_done(f->pool, b->pc, 4);
        struct conn *e = open_from(f, 5, 5);
        assert_true(c->closed);                 /* c (ready at 2) before b (ready again at 4) */
        assert_false(e->closed || b->closed || d->closed);
        drop_closed(f);
        assert_int_equal(in_state(f, POOL_PENDING), 3);
        done(f);
}

/* Room for priority requests: streams fill the budget; then a new
 * non-priority request is refused once no pending connection is left to
 * close, and a priority request is admitted and not counted. */
static void priority_requests_find_room_when_the_budget_is_full(void **state) {
        struct fixture *f = fixture(3, 100, 100);
        struct pool_stats st;
        (void) state;

        for (unsigned i = 0; i < 3; i++) {
                struct conn *s = open_from(f, 10 + i, i);
                assert_int_equal(pool_classify(f->pool, s->pc, false), POOL_ADMITTED);
                pool_stream(f->pool, s->pc);
        }
        assert_int_equal(in_state(f, POOL_STREAM), 3);

        struct conn *slow = open_from(f, 1, 10);        /* over the budget, nothing older to close */
        assert_false(slow->closed);
        struct conn *general = open_from(f, 2, 11);     /* closes slow */
        assert_true(slow->closed);
        assert_int_equal(pool_classify(f->pool, general->pc, false), POOL_FULL);

        struct conn *health = open_from(f, 3, 12);
        assert_int_equal(pool_classify(f->pool, health->pc, true), POOL_ADMITTED);
        struct conn *referee = open_from(f, 4, 13);
        assert_int_equal(pool_classify(f->pool, referee->pc, true), POOL_ADMITTED);
        pool_stream(f->pool, referee->pc);              /* a referee's stream stays priority */
        assert_int_equal(pool_conn_state(referee->pc), POOL_PRIORITY);

        pool_stats(f->pool, &st);
        assert_int_equal(st.refused_full, 1);
        assert_int_equal(st.closed[POOL_EVICTED], 1);
        assert_int_equal(st.state[POOL_PRIORITY], 2);
        assert_int_equal(st.state[POOL_STREAM], 3);
        assert_int_equal(st.streams, 4);

        /* a stream ends: the next request is admitted */
        pool_closing(f->pool, f->conns[0].pc);
        pool_closing(f->pool, general->pc);
        struct conn *next = open_from(f, 5, 14);
        assert_int_equal(pool_classify(f->pool, next->pc, false), POOL_ADMITTED);
        drop_closed(f);
        done(f);
}

/* Rule 3: one address's pending connections are capped by closing its own
 * oldest, so a slow host behind a NAT does not lock out its neighbours;
 * its requests and streams are capped by refusal; priority is exempt. */
static void one_address_cannot_hold_the_room_of_everyone_behind_it(void **state) {
        struct fixture *f = fixture(100, 2, 3);
        struct pool_stats st;
        (void) state;

        struct conn *slow[3];
        for (int i = 0; i < 3; i++)
                slow[i] = open_from(f, 1, i);
        struct conn *other = open_from(f, 2, 3);
        struct conn *neighbour = open_from(f, 1, 4);    /* same address: the oldest of it goes */
        assert_true(slow[0]->closed);
        assert_int_equal(slow[0]->why, POOL_EVICTED_ADDRESS);
        assert_false(slow[1]->closed || slow[2]->closed || other->closed || neighbour->closed);
        assert_int_equal(pool_classify(f->pool, neighbour->pc, false), POOL_ADMITTED);
        pool_stream(f->pool, neighbour->pc);

        struct conn *second = open_from(f, 1, 5);
        assert_int_equal(pool_classify(f->pool, second->pc, false), POOL_ADMITTED);
        struct conn *third = open_from(f, 1, 6);
        assert_int_equal(pool_classify(f->pool, third->pc, false), POOL_ADDRESS_FULL);
        struct conn *referee = open_from(f, 1, 7);
        assert_int_equal(pool_classify(f->pool, referee->pc, true), POOL_ADMITTED);
        struct conn *elsewhere = open_from(f, 2, 8);
        assert_int_equal(pool_classify(f->pool, elsewhere->pc, false), POOL_ADMITTED);

        pool_stats(f->pool, &st);
        assert_int_equal(st.refused_address, 1);
        assert_int_equal(st.closed[POOL_EVICTED_ADDRESS], 1);
        assert_int_equal(st.addresses, 2);
        drop_closed(f);
        done(f);
}

/* Closing a connection in any state leaves the counts and lists right:
 * the survivors still time out in order. */
static void connections_close_in_any_state(void **state) {
        struct fixture *f = fixture(100, 100, 100);
        (void) state;

        struct conn *p1 = open_from(f, 1, 0);
        struct conn *p2 = open_from(f, 1, 1);
        struct conn *g = open_from(f, 2, 2);
        struct conn *p3 = open_from(f, 3, 3);
        assert_int_equal(pool_classify(f->pool, g->pc, false), POOL_ADMITTED);
        pool_close(f->pool, p2->pc);
        p2->pc = NULL;
        pool_closing(f->pool, g->pc);
        pool_expire(f->pool, TIMEOUT + 1);
        assert_true(p1->closed);
        assert_false(g->closed);                /* libmicrohttpd's to close, not the pool's */
        assert_false(p3->closed);
        assert_int_equal(pool_next_deadline(f->pool), 3 + TIMEOUT);
        pool_close(f->pool, g->pc);
        g->pc = NULL;
        drop_closed(f);
        done(f);
}

static void bad_limits_are_refused(void **state) {
        struct pool_limits lim = { .budget = 0, .per_address = 1, .pending_per_address = 1,
                                   .request_timeout_usec = SEC };
        struct pool *p;
        (void) state;

        assert_int_equal(pool_new(&lim, 0, on_close, NULL, &p), -EINVAL);
        lim.budget = 1;
        lim.request_timeout_usec = 0;
        assert_int_equal(pool_new(&lim, 0, on_close, NULL, &p), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_request_has_a_total_deadline),
                cmocka_unit_test(over_the_budget_the_oldest_pending_connection_goes),
                cmocka_unit_test(priority_requests_find_room_when_the_budget_is_full),
                cmocka_unit_test(one_address_cannot_hold_the_room_of_everyone_behind_it),
                cmocka_unit_test(connections_close_in_any_state),
                cmocka_unit_test(bad_limits_are_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
