/* hardware/claim.c: which device a HELLO is from — the pad's own (also
 * after a restart), a known rival, a refused one, the pad having moved, or
 * a new device that makes a conflict — and what an operator's trust picks. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hardware/claim.h"

#define P1 0
#define P2 1
#define P3 2

/* The pad on P1 at address 3, heard (live) or gone. */
static struct claim_pad pad_on_p1(bool live) {
        return (struct claim_pad) { .pad = { .port = P1, .address = 3, .live = live } };
}

static void the_pads_own_device_and_its_restart(void **state) {
        struct claim_pad p = pad_on_p1(true);
        size_t i = 0;
        (void) state;

        assert_int_equal(claim_hello(&p, P1, 3, &i), CLAIM_PAD);
        assert_true(i == CLAIM_THE_PAD);
        /* it restarted: HELLO from address 0, on its line */
        assert_int_equal(claim_hello(&p, P1, 0, &i), CLAIM_PAD);
        /* gone, then back on its own line: still itself, not a move */
        p.pad.live = false;
        assert_int_equal(claim_hello(&p, P1, 0, &i), CLAIM_PAD);
        assert_int_equal(claim_hello(&p, P1, 3, &i), CLAIM_PAD);
}

static void another_port_while_connected_is_a_conflict_and_while_gone_a_move(void **state) {
        struct claim_pad p = pad_on_p1(true);
        size_t i = 99;
        (void) state;

        assert_int_equal(claim_hello(&p, P2, 0, &i), CLAIM_NEW_RIVAL);
        assert_int_equal(i, 0);         /* the next rival slot */
        assert_int_equal(claim_hello(&p, P2, 3, &i), CLAIM_NEW_RIVAL);
        p.pad.live = false;
        assert_int_equal(claim_hello(&p, P2, 0, &i), CLAIM_MOVE);
        /* a pad gone but in conflict: a new device is one more rival, not a move */
        p.conflict = true;
        assert_int_equal(claim_hello(&p, P2, 0, &i), CLAIM_NEW_RIVAL);
}

static void a_second_address_on_the_pads_line_is_another_device(void **state) {
        struct claim_pad p = pad_on_p1(true);
        size_t i;
        (void) state;

        assert_int_equal(claim_hello(&p, P1, 7, &i), CLAIM_NEW_RIVAL);
        p.pad.live = false;
        assert_int_equal(claim_hello(&p, P1, 7, &i), CLAIM_MOVE);
}

static void rivals_are_known_by_port_and_address(void **state) {
        const struct claim_device rivals[] = {
                { .port = P2, .address = 1, .live = true },
                { .port = P3, .address = 2, .live = true, .refused = true },
        };
        struct claim_pad p = pad_on_p1(true);
        size_t i;
        (void) state;

        p.conflict = true;
        p.rivals = rivals;
        p.n_rivals = 2;
        assert_int_equal(claim_hello(&p, P2, 1, &i), CLAIM_RIVAL);
        assert_int_equal(i, 0);
        assert_int_equal(claim_hello(&p, P2, 0, &i), CLAIM_RIVAL);     /* it restarted */
        assert_int_equal(i, 0);
        assert_int_equal(claim_hello(&p, P3, 0, &i), CLAIM_REFUSED);
        assert_int_equal(i, 1);
        assert_int_equal(claim_hello(&p, P3, 2, &i), CLAIM_REFUSED);
        assert_int_equal(i, 1);
        /* a third device on P2, at another address */
        assert_int_equal(claim_hello(&p, P2, 9, &i), CLAIM_NEW_RIVAL);
        assert_int_equal(i, 2);
        /* the pad's own device wins over a rival on its line (a same-line
         * rival shares its address) */
        const struct claim_device twin[] = { { .port = P1, .address = 3, .live = true } };
        p.rivals = twin;
        p.n_rivals = 1;
        assert_int_equal(claim_hello(&p, P1, 3, &i), CLAIM_PAD);
        assert_int_equal(claim_hello(&p, P1, 0, &i), CLAIM_PAD);
}

static void an_exact_address_wins_over_a_restart_on_the_same_line(void **state) {
        /* the pad is on P2 at address 4; a refused device on the same line at 5 */
        const struct claim_device rivals[] = { { .port = P2, .address = 5, .refused = true } };
        struct claim_pad p = { .pad = { .port = P2, .address = 4, .live = true }, .rivals = rivals, .n_rivals = 1 };
        size_t i;
        (void) state;

        assert_int_equal(claim_hello(&p, P2, 5, &i), CLAIM_REFUSED);
        assert_int_equal(claim_hello(&p, P2, 4, &i), CLAIM_PAD);
        assert_int_equal(claim_hello(&p, P2, 0, &i), CLAIM_PAD);
}

static void a_refused_device_stays_refused_while_the_pad_is_gone(void **state) {
        const struct claim_device rivals[] = { { .port = P2, .address = 1, .live = true, .refused = true } };
        struct claim_pad p = pad_on_p1(false);
        size_t i;
        (void) state;

        p.rivals = rivals;
        p.n_rivals = 1;
        assert_int_equal(claim_hello(&p, P2, 0, &i), CLAIM_REFUSED);
        /* elsewhere, with the pad gone and no conflict: a move */
        assert_int_equal(claim_hello(&p, P3, 0, &i), CLAIM_MOVE);
        /* and with the pad there: a new conflict */
        p.pad.live = true;
        assert_int_equal(claim_hello(&p, P3, 0, &i), CLAIM_NEW_RIVAL);
        assert_int_equal(i, 1);
}

static void trust_picks_the_device_on_the_port(void **state) {
        const struct claim_device rivals[] = {
                { .port = P2, .address = 1, .live = false },
                { .port = P2, .address = 2, .live = true },
                { .port = P3, .address = 1, .live = false },
        };
        struct claim_pad p = pad_on_p1(true);
        size_t i = 42;
        (void) state;

        /* nothing to decide */
        assert_int_equal(claim_trust(&p, P1, &i), -EALREADY);
        assert_int_equal(i, 42);

        p.conflict = true;
        p.rivals = rivals;
        p.n_rivals = 3;
        assert_int_equal(claim_trust(&p, P1, &i), 0);
        assert_true(i == CLAIM_THE_PAD);
        assert_int_equal(claim_trust(&p, P2, &i), 0);
        assert_int_equal(i, 1);         /* the live one on P2 */
        assert_int_equal(claim_trust(&p, P3, &i), 0);
        assert_int_equal(i, 2);         /* gone, but the only one there */
        assert_int_equal(claim_trust(&p, 7, &i), -ESRCH);
}

static void trust_can_change_a_decision(void **state) {
        const struct claim_device rivals[] = { { .port = P2, .address = 1, .live = true, .refused = true } };
        struct claim_pad p = pad_on_p1(true);
        size_t i;
        (void) state;

        p.rivals = rivals;
        p.n_rivals = 1;
        assert_int_equal(claim_trust(&p, P2, &i), 0);
        assert_int_equal(i, 0);
        assert_int_equal(claim_trust(&p, P1, &i), 0);
        assert_true(i == CLAIM_THE_PAD);
        assert_int_equal(claim_trust(&p, P3, &i), -ESRCH);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_pads_own_device_and_its_restart),
                cmocka_unit_test(another_port_while_connected_is_a_conflict_and_while_gone_a_move),
                cmocka_unit_test(a_second_address_on_the_pads_line_is_another_device),
                cmocka_unit_test(rivals_are_known_by_port_and_address),
                cmocka_unit_test(an_exact_address_wins_over_a_restart_on_the_same_line),
                cmocka_unit_test(a_refused_device_stays_refused_while_the_pad_is_gone),
                cmocka_unit_test(trust_picks_the_device_on_the_port),
                cmocka_unit_test(trust_can_change_a_decision),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
