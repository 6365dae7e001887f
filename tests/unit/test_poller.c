/* hardware/poller.c: the host's turns on an RS-485 bus (docs/protocol.md
 * section 10), driven with a simulated clock and simulated pads — which
 * frame goes when, that the line is left to the pads for each answer and
 * each discovery, the rounds, and that no device waits longer for its turn
 * than poller_cycle_usec() says (the settle window rests on it). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hardware/poller.h"

#define BAUD 1000000u
#define MARGIN POLLER_REPLY_MARGIN_DEFAULT_USEC

/* The devices the pad bus would report. */
static struct poller_device devs[POLLER_DEVICES_MAX];
static size_t n_devs;

static size_t devices(void *userdata, struct poller_device out[POLLER_DEVICES_MAX]) {
        (void) userdata;
        memcpy(out, devs, n_devs * sizeof devs[0]);
        return n_devs;
}

static void set_devices(size_t n, const uint8_t *addresses, const bool *connected) {
        n_devs = n;
        for (size_t i = 0; i < n; i++)
                devs[i] = (struct poller_device) { addresses[i], connected ? connected[i] : true };
}

static struct frame next_or_fail(struct poller *pl, int64_t now) {
        struct frame f;
        int64_t wake = 0;

        if (!poller_next(pl, now, &f, &wake))
                fail_msg("nothing to send at %lld (wake %lld)", (long long) now, (long long) wake);
        return f;
}

/* Nothing to send at now; returns when to ask again. */
static int64_t nothing(struct poller *pl, int64_t now) {
        struct frame f;
        int64_t wake = 0;

        if (poller_next(pl, now, &f, &wake))
                fail_msg("sent type 0x%02x to %u at %lld, expected nothing", f.type, f.address, (long long) now);
        assert_true(wake > now);
        assert_int_equal(poller_wake(pl), wake);
        return wake;
}

/* A started bus: its broadcast RESET (no answer) and the first discovery
 * are behind it; returns the time the discovery's silence ended. */
static int64_t started(struct poller *pl, int64_t t) {
        struct frame f;

        poller_init(pl, BAUD, MARGIN, devices, NULL);
        poller_start(pl, t, true);
        proto_pack_empty(&f, PROTO_RESET);
        f.address = PROTO_ADDR_BROADCAST;
        assert_int_equal(poller_queue(pl, &f), 0);

        f = next_or_fail(pl, t);
        assert_int_equal(f.type, PROTO_RESET);
        assert_int_equal(f.address, PROTO_ADDR_BROADCAST);
        /* nothing while the RESET is on the line: it asks no answer */
        int64_t sent = t;
        t = nothing(pl, t);
        assert_int_equal(t - sent, poller_air_usec(BAUD, poller_wire_bytes(0)));
        f = next_or_fail(pl, t);
        assert_int_equal(f.type, PROTO_HOST_BEAT);
        assert_int_equal(f.address, PROTO_ADDR_UNASSIGNED);
        return t + poller_discovery_usec(BAUD, MARGIN);
}

static void a_bus_starts_with_its_reset_then_a_discovery_and_keeps_quiet_through_it(void **state) {
        struct poller pl;
        (void) state;

        set_devices(0, NULL, NULL);
        int64_t end = started(&pl, 1000000);
        assert_int_equal(pl.counters.discoveries, 1);
        /* 16 slots of A(HELLO) + 100 µs, the HOST_BEAT, a byte and the margin: 8.71 ms at 1 Mbaud */
        assert_int_equal(poller_discovery_usec(BAUD, MARGIN), 100 + 16 * (250 + 100) + 10 + MARGIN);
        /* HELLOs heard in the silence do not end it */
        poller_heard(&pl, end - 3000, PROTO_ADDR_UNASSIGNED);
        assert_int_equal(nothing(&pl, end - 3000), end);
        assert_int_equal(nothing(&pl, end - 1), end);
        /* no device: idle until the next discovery, a second after the last */
        int64_t next = nothing(&pl, end);
        assert_int_equal(next, end - poller_discovery_usec(BAUD, MARGIN) + POLLER_DISCOVERY_INTERVAL_USEC);
        struct frame f = next_or_fail(&pl, next);
        assert_int_equal(f.type, PROTO_HOST_BEAT);
        assert_int_equal(f.address, PROTO_ADDR_UNASSIGNED);
}

static void each_turn_waits_for_its_answer_or_its_deadline(void **state) {
        static const uint8_t a[] = { 7, 2 };
        struct poller pl;
        struct frame f;
        (void) state;

        set_devices(2, a, NULL);
        int64_t t = started(&pl, 1000000);
        /* address order */
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_HOST_BEAT);
        assert_int_equal(f.address, 2);
        /* not a frame more until pad 2 answers: not for another pad's frame either */
        int64_t deadline = nothing(&pl, t);
        assert_int_equal(deadline - t, 100 + 260 + MARGIN);
        poller_heard(&pl, t + 300, 7);
        assert_int_equal(nothing(&pl, t + 300), deadline);
        /* its answer ends the wait, and the line is the pad's a byte time more */
        poller_heard(&pl, t + 400, 2);
        assert_int_equal(nothing(&pl, t + 400), t + 410);
        f = next_or_fail(&pl, t + 410);
        assert_int_equal(f.address, 7);
        t += 410;
        /* sooner than this turn's frame and a PRESS take, a frame from 7
         * is its late answer to a turn before: not this one's */
        poller_heard(&pl, t + 100 + 159, 7);
        assert_int_equal(pl.state, POLLER_REPLY);
        /* no answer: the turn ends at its deadline, counted */
        deadline = nothing(&pl, t);
        assert_int_equal(pl.counters.poll_timeouts, 0);
        assert_int_equal(nothing(&pl, deadline - 1), deadline);
        /* the round's minimum is past: the next round at once */
        assert_true(deadline > t - 410 + POLLER_ROUND_MIN_USEC);
        f = next_or_fail(&pl, deadline);
        assert_int_equal(pl.counters.poll_timeouts, 1);
        assert_int_equal(f.address, 2);
        assert_int_equal(pl.counters.polls, 3);
}

/* A pty without wire time (arbiter-padsim, a test's pad) answers as soon
 * as it reads: any frame from the address ends the turn. */
static void on_a_line_without_wire_time_any_answer_ends_the_turn(void **state) {
        static const uint8_t a[] = { 5 };
        struct poller pl;
        struct frame f;
        (void) state;

        set_devices(1, a, NULL);
        poller_init(&pl, BAUD, MARGIN, devices, NULL);
        poller_start(&pl, 1000, false);
        f = next_or_fail(&pl, 1000);
        assert_int_equal(f.type, PROTO_HOST_BEAT);
        assert_int_equal(f.address, PROTO_ADDR_UNASSIGNED);
        int64_t t = nothing(&pl, 1000);
        f = next_or_fail(&pl, t);
        assert_int_equal(f.address, 5);
        poller_heard(&pl, t + 1, 5);
        assert_int_equal(pl.state, POLLER_FREE);
        assert_int_equal(pl.counters.poll_timeouts, 0);
}

static void queued_frames_go_as_their_devices_turns(void **state) {
        static const uint8_t a[] = { 1, 3 };
        struct poller pl;
        struct frame f, q;
        (void) state;

        set_devices(2, a, NULL);
        int64_t t = started(&pl, 1000000);
        /* two frames for pad 3, one for pad 1, an ASSIGN of address 3 twice
         * (the second replaces the first), a RESET to an address no device has */
        proto_pack_ack(&q, &(struct proto_ack) { .event_no = 5 });
        q.address = 3;
        assert_int_equal(poller_queue(&pl, &q), 0);
        proto_pack_light(&q, &(struct proto_light) { .button = 1, .mode = PROTO_LIGHT_ON });
        q.address = 3;
        assert_int_equal(poller_queue(&pl, &q), 0);
        proto_pack_buzz(&q, &(struct proto_buzz) { .duration_ms = 100 });
        q.address = 1;
        assert_int_equal(poller_queue(&pl, &q), 0);
        proto_pack_empty(&q, PROTO_RESET);
        q.address = 9;
        assert_int_equal(poller_queue(&pl, &q), 0);

        int64_t turn_end;
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_BUZZ);
        assert_int_equal(f.address, 1);
        poller_heard(&pl, t + 300, 1);
        t += 310;
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_ACK);
        assert_int_equal(f.address, 3);
        poller_heard(&pl, t + 300, 3);
        t += 310;
        /* the RESET's own turn, after the devices' */
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_RESET);
        assert_int_equal(f.address, 9);
        /* its answer is a HELLO from address 0 */
        turn_end = nothing(&pl, t);
        poller_heard(&pl, t + 500, PROTO_ADDR_UNASSIGNED);
        assert_int_equal(pl.state, POLLER_FREE);
        t = nothing(&pl, t + 500);      /* the round's minimum */
        assert_int_not_equal(t, turn_end);
        assert_int_equal(pl.counters.poll_timeouts, 0);
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_HOST_BEAT);
        assert_int_equal(f.address, 1);
        poller_heard(&pl, t + 300, 1);
        t += 310;
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_LIGHT);
        assert_int_equal(f.address, 3);
}

static void an_assign_goes_as_the_turn_of_its_address_once(void **state) {
        static const uint8_t a[] = { 4 };
        struct poller pl;
        struct frame f, q;
        (void) state;

        set_devices(1, a, NULL);
        int64_t t = started(&pl, 1000000);
        proto_pack_assign(&q, &(struct proto_assign) { .uid = 0x1234, .address = 4 });
        q.address = PROTO_ADDR_BROADCAST;
        assert_int_equal(poller_queue(&pl, &q), 0);
        assert_int_equal(poller_queue(&pl, &q), 0);     /* re-sent before it went: replaces it */
        assert_int_equal(pl.n_queued, 1);
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_ASSIGN);
        assert_int_equal(f.address, PROTO_ADDR_BROADCAST);
        /* the new address's HELLO is its answer */
        poller_heard(&pl, t + 400, 4);
        assert_int_equal(pl.state, POLLER_FREE);
        t = nothing(&pl, t + 400);      /* the turnaround, then the round's minimum */
        assert_int_equal(pl.counters.poll_timeouts, 0);
        f = next_or_fail(&pl, t);
        assert_int_equal(f.type, PROTO_HOST_BEAT);
        assert_int_equal(f.address, 4);
}

static void a_disconnected_device_gets_one_turn_a_second(void **state) {
        static const uint8_t a[] = { 1, 5, 6 };
        static const bool live[] = { true, false, false };
        struct poller pl;
        unsigned turns[256] = { 0 };
        (void) state;

        set_devices(3, a, live);
        int64_t t = started(&pl, 1000000), end = t + 3 * 1000000;
        while (t < end) {
                struct frame f;
                int64_t wake;
                if (!poller_next(&pl, t, &f, &wake)) {
                        t = wake;
                        continue;
                }
                if (f.address == PROTO_ADDR_UNASSIGNED)
                        continue;       /* a discovery */
                turns[f.address]++;
                if (f.address == 1)
                        poller_heard(&pl, t + 400, 1);  /* only the connected pad answers */
        }
        /* three seconds: 5 and 6 a turn a second each (one of them a
         * fourth at the start), pad 1 every round of at least 2 ms */
        assert_in_range(turns[5], 2, 4);
        assert_in_range(turns[6], 2, 4);
        assert_in_range(turns[1], 800, 1600);
        assert_int_equal(pl.counters.poll_timeouts, turns[5] + turns[6]);
}

static void a_garbled_discovery_runs_again_after_the_next_round_three_times_at_most(void **state) {
        static const uint8_t a[] = { 1 };
        struct poller pl;
        unsigned discoveries = 0, rounds_between = 0;
        (void) state;

        set_devices(1, a, NULL);
        int64_t t = started(&pl, 1000000);
        poller_garbled(&pl, t - 2000);  /* the first discovery heard a collision, */
        for (int64_t end = t + 500000; t < end;) {
                struct frame f;
                int64_t wake;
                if (!poller_next(&pl, t, &f, &wake)) {
                        t = wake;
                        continue;
                }
                if (f.address == PROTO_ADDR_UNASSIGNED) {
                        discoveries++;
                        assert_int_equal(rounds_between, 1);    /* one round between */
                        rounds_between = 0;
                        poller_garbled(&pl, t + 2000);          /* and every one after it */
                        continue;
                }
                rounds_between++;
                poller_heard(&pl, t + 400, 1);
        }
        (void) rounds_between;
        assert_int_equal(discoveries, POLLER_DISCOVERY_RETRIES);
        assert_int_equal(pl.counters.discoveries, 1 + POLLER_DISCOVERY_RETRIES);
}

static void a_full_queue_drops_and_counts(void **state) {
        struct poller pl;
        struct frame q;
        (void) state;

        set_devices(0, NULL, NULL);
        poller_init(&pl, BAUD, MARGIN, devices, NULL);
        poller_start(&pl, 0, true);
        proto_pack_ack(&q, &(struct proto_ack) { .event_no = 1 });
        q.address = 2;
        for (int i = 0; i < POLLER_QUEUE_MAX; i++)
                assert_int_equal(poller_queue(&pl, &q), 0);
        assert_int_equal(poller_queue(&pl, &q), -ENOBUFS);
        assert_int_equal(pl.counters.dropped, 1);
}

/* xorshift64 (G. Marsaglia, "Xorshift RNGs", 2003): the pads' whims. */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t rnd(uint64_t n) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng % n;
}

/* Six connected pads that answer late, early or never, a gone one, frames
 * queued at random and discoveries that collide: the line is never spoken
 * on while a turn or a silence has it, and no connected pad waits longer
 * for its turn than poller_cycle_usec(). */
static void no_connected_device_waits_longer_than_the_cycle(void **state) {
        static const uint8_t a[] = { 3, 1, 9, 4, 2, 7, 200 };
        static const bool live[] = { true, true, true, true, true, true, false };
        int64_t last_turn[256] = { 0 }, longest = 0;
        struct poller pl;
        (void) state;

        set_devices(7, a, live);
        int64_t t = started(&pl, 1000000), end = t + 20 * 1000000;
        int64_t busy_until = 0;         /* the line is the pads' until then */
        int64_t answer_at = -1;
        uint8_t answer_from = 0;
        while (t < end) {
                struct frame f, q;
                int64_t wake;
                if (answer_at >= 0 && answer_at <= t) {
                        poller_heard(&pl, answer_at, answer_from);
                        answer_at = -1;
                }
                if (rnd(50) == 0) {
                        proto_pack_light(&q, &(struct proto_light) { .button = 0, .mode = PROTO_LIGHT_ON });
                        q.address = a[rnd(6)];
                        poller_queue(&pl, &q);
                }
                if (!poller_next(&pl, t, &f, &wake)) {
                        int64_t next = wake;
                        if (answer_at >= 0 && answer_at < next)
                                next = answer_at;
                        t = next > t ? next : t + 1;
                        continue;
                }
                if (t < busy_until)
                        fail_msg("the host spoke at %lld, the line is the pads' until %lld", (long long) t,
                                 (long long) busy_until);
                if (f.address == PROTO_ADDR_UNASSIGNED) {
                        busy_until = t + poller_discovery_usec(BAUD, MARGIN);
                        if (rnd(3) == 0)
                                poller_garbled(&pl, t + 1000);
                        continue;
                }
                uint8_t to = f.type == PROTO_ASSIGN ? f.payload[8] : f.address;
                if (last_turn[to] && to != 200 && t - last_turn[to] > longest)
                        longest = t - last_turn[to];
                last_turn[to] = t;
                /* it starts within 500 µs and sends a HEARTBEAT, or does
                 * not answer (1 in 20) */
                int64_t air = poller_air_usec(BAUD, poller_wire_bytes(f.len));
                if (to != 200 && rnd(20) != 0) {
                        int64_t reply = air + (int64_t) rnd(500) + poller_air_usec(BAUD, poller_wire_bytes(8));
                        answer_at = t + reply;
                        answer_from = to;
                        busy_until = t + reply;
                } else {
                        busy_until = t + air;
                }
        }
        print_message("longest wait for a turn: %lld µs of a cycle of %lld\n", (long long) longest,
                      (long long) poller_cycle_usec(BAUD, MARGIN, 6));
        assert_true(longest > 0);
        assert_true(longest <= poller_cycle_usec(BAUD, MARGIN, 6));
        assert_true(pl.counters.discoveries >= 15);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_bus_starts_with_its_reset_then_a_discovery_and_keeps_quiet_through_it),
                cmocka_unit_test(each_turn_waits_for_its_answer_or_its_deadline),
                cmocka_unit_test(on_a_line_without_wire_time_any_answer_ends_the_turn),
                cmocka_unit_test(queued_frames_go_as_their_devices_turns),
                cmocka_unit_test(an_assign_goes_as_the_turn_of_its_address_once),
                cmocka_unit_test(a_disconnected_device_gets_one_turn_a_second),
                cmocka_unit_test(a_garbled_discovery_runs_again_after_the_next_round_three_times_at_most),
                cmocka_unit_test(a_full_queue_drops_and_counts),
                cmocka_unit_test(no_connected_device_waits_longer_than_the_cycle),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
