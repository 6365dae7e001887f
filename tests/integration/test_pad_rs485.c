/* An RS-485 bus ([pads] rs485_ports) as docs/protocol.md section 10 has the
 * host take turns on it.  The test is the bus and its pads: it holds a
 * pty's master, the daemon opens the slave as a port named in ports and in
 * rs485_ports, and every frame the host writes is read, decoded with the
 * daemon's own codec, and answered (or not) as a pad would.
 *
 * The timing of the turns — the line left to the pads for a turn's answer
 * or its deadline, a byte time of turnaround, discovery's 16 slots, the
 * longest wait for a turn — is the pure poller's, checked with a simulated
 * clock in tests/unit/test_poller.c: a reader on a pty cannot measure when
 * the host wrote, only when it read, so a gap here would be a timing
 * assertion that a busy machine breaks.  What is checked here holds
 * whatever the timing: that the daemon sends nothing but turns
 * (discoveries, and the RESET at open: its frames written are its polls,
 * discoveries and that RESET, in one snapshot of its counters), one frame
 * a turn, each turn ended
 * only by its pad's answer or counted as a timeout (a pad that never
 * answers shows it: every turn of its but the last is a timeout), that the
 * other pad keeps being polled meanwhile, that what the daemon has for a
 * pad (an ASSIGN, a SYNC, an ACK, identify's LIGHT and BUZZ) goes as that
 * pad's turns, and that the counters in GET /v1/pads say so. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "hardware/frame.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

static struct daemon_proc daemon_;
static int master = -1;
static struct frame_decoder dec;

static int teardown(void **state) {
        (void) state;
        if (master >= 0)
                close(master);
        master = -1;
        return harness_kill_daemons(state);
}

/* Host frames read from the master, oldest first, and how many of them
 * came in one read with a frame before them (written before the test could
 * answer that one). */
#define RX_MAX 256
static struct frame rx[RX_MAX];
static size_t rx_head, rx_len;

static void on_host_frame(void *userdata, const struct frame *f) {
        (void) userdata;
        assert_true(rx_len < RX_MAX);
        rx[(rx_head + rx_len++) % RX_MAX] = *f;
}

static struct frame next_host_frame(void) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;

        while (rx_len == 0) {
                struct pollfd pfd = { .fd = master, .events = POLLIN };
                int64_t left = deadline - mono_ms();
                if (left <= 0)
                        fail_msg("the host wrote no frame for %d ms", HARNESS_WAIT_MS);
                if (poll(&pfd, 1, (int) left) <= 0)
                        continue;
                uint8_t buf[512];
                ssize_t n = read(master, buf, sizeof buf);
                assert_true(n > 0);
                frame_decoder_feed(&dec, buf, (size_t) n, on_host_frame, NULL);
        }
        struct frame f = rx[rx_head];
        rx_head = (rx_head + 1) % RX_MAX;
        rx_len--;
        return f;
}

/* Whether the host has written more than the frames read so far: a frame
 * is already waiting (no blocking). */
static bool more_waiting(void) {
        uint8_t buf[512];
        ssize_t n;

        while ((n = read(master, buf, sizeof buf)) > 0)
                frame_decoder_feed(&dec, buf, (size_t) n, on_host_frame, NULL);
        return rx_len > 0;
}

/* A pad on the bus, as the test plays it. */
struct bus_pad {
        uint64_t uid;
        uint8_t address;
        uint16_t seq;
        uint16_t event_no;
        bool silent;                    /* answers nothing once assigned */
        unsigned turns;                 /* frames the host gave it, ASSIGNs included */
        unsigned answered;
};

static void pad_send(struct bus_pad *p, uint8_t from, struct frame *f) {
        uint8_t out[1 + PROTO_MAX_ENCODED] = { 0 };     /* a leading 0x00, as on RS-485 */
        int n;

        f->version = PROTO_VERSION;
        f->address = from;
        f->seq = p->seq++;
        n = frame_encode(f, out + 1, sizeof out - 1);
        assert_true(n > 0);
        assert_int_equal(write(master, out, (size_t) n + 1), n + 1);
}

static void pad_hello(struct bus_pad *p, uint8_t from) {
        struct frame f;

        proto_pack_hello(&f, &(struct proto_hello) { .uid = p->uid, .kind = PROTO_KIND_BUTTONS, .n_buttons = 4,
                                                     .fw_major = 1, .clock_hz = 1000000 });
        pad_send(p, from, &f);
}

static uint32_t pad_clock(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint32_t) ((uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000);
}

/* The pad's answer to a turn (section 10): a SYNC_REPLY to a SYNC, a HELLO
 * to an ASSIGN of a new address, else its event if it has one, else a
 * HEARTBEAT. */
static void pad_answer(struct bus_pad *p, const struct frame *turn, bool press) {
        struct frame f;

        if (turn->type == PROTO_SYNC) {
                struct proto_sync s;
                assert_int_equal(proto_unpack_sync(turn, &s), 0);
                assert_int_equal(s.slot_us_x100, 0);    /* unicast: at once */
                uint32_t now = pad_clock();
                proto_pack_sync_reply(&f, &(struct proto_sync_reply) { .sync_id = s.sync_id, .rx_time = now,
                                                                       .tx_time = now });
        } else if (turn->type == PROTO_ASSIGN) {
                pad_hello(p, p->address);
                p->answered++;
                return;
        } else if (press) {
                proto_pack_event(&f, PROTO_PRESS, &(struct proto_event) { .event_no = p->event_no, .button = 1,
                                                                          .pad_time = pad_clock() });
        } else {
                proto_pack_heartbeat(&f, &(struct proto_heartbeat) { .pad_time = pad_clock() });
        }
        pad_send(p, p->address, &f);
        p->answered++;
}

/* Opens a pty, writes a config naming its slave in ports and rs485_ports,
 * starts the daemon with it and waits for the port to be open. */
static void start_bus(void) {
        char path[512];

        master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        assert_true(master >= 0);
        assert_int_equal(grantpt(master), 0);
        assert_int_equal(unlockpt(master), 0);
        frame_decoder_init(&dec);
        rx_head = rx_len = 0;
        snprintf(path, sizeof path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("rs485"));
        FILE *c = fopen(path, "w");
        assert_non_null(c);
        fprintf(c, "[pads]\nports = %s\nrs485_ports = %s\nbaud = 1000000\nheartbeat_timeout = 500\n",
                ptsname(master), ptsname(master));
        fclose(c);
        const char *const envs[] = { "ARBITER_BUS=none", NULL };
        const char *const args[] = { "--config", path, NULL };
        daemon_start(&daemon_, envs, args, true);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                struct http_reply r;
                http_get(&daemon_, "/v1/pads", NULL, &r);
                json_t *port = json_array_get(json_object_get(r.json, "ports"), 0);
                bool open = json_is_true(json_object_get(port, "open"));
                if (open)
                        assert_true(json_is_true(json_object_get(port, "rs485")));
                http_reply_done(&r);
                if (open)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("the daemon never opened the pty");
        }
}

/* The port's polling counters and a pad's, from GET /v1/pads. */
struct bus_state {
        json_int_t polls, poll_timeouts, discoveries, crc, tx_frames, tx_dropped;
        bool connected[2], synced[2];
        json_int_t address[2], syncs_answered[2];
};

static void bus_state(const struct bus_pad *pads, size_t n, struct bus_state *ret) {
        struct http_reply r;
        char id[17];

        memset(ret, 0, sizeof *ret);
        http_get(&daemon_, "/v1/pads", NULL, &r);
        assert_int_equal(r.status, 200);
        json_t *port = json_array_get(json_object_get(r.json, "ports"), 0);
        json_t *polling = json_object_get(port, "polling");
        assert_true(json_is_object(polling));
        ret->polls = json_integer_value(json_object_get(polling, "polls"));
        ret->poll_timeouts = json_integer_value(json_object_get(polling, "poll_timeouts"));
        ret->discoveries = json_integer_value(json_object_get(polling, "discoveries"));
        ret->crc = json_integer_value(json_object_get(json_object_get(port, "faults"), "crc"));
        ret->tx_frames = json_integer_value(json_object_get(port, "tx_frames"));
        ret->tx_dropped = json_integer_value(json_object_get(port, "tx_dropped"));
        /* Nothing unasked: every frame written was a turn, a discovery or
         * the RESET at open (one snapshot of the daemon's counters). */
        assert_int_equal(ret->tx_dropped, 0);
        assert_int_equal(ret->tx_frames, ret->polls + ret->discoveries + 1);
        for (size_t k = 0; k < n; k++) {
                size_t i;
                json_t *p;
                snprintf(id, sizeof id, "%016llx", (unsigned long long) pads[k].uid);
                json_array_foreach(json_object_get(r.json, "items"), i, p) {
                        if (strcmp(json_string_value(json_object_get(p, "id")), id) != 0)
                                continue;
                        ret->connected[k] = json_is_true(json_object_get(p, "connected"));
                        ret->address[k] = json_integer_value(json_object_get(p, "address"));
                        ret->synced[k] = json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
                        ret->syncs_answered[k] = json_integer_value(
                                json_object_get(json_object_get(p, "counters"), "syncs_answered"));
                }
        }
        http_reply_done(&r);
}

/* The pad a host frame gives the turn to: its destination, an ASSIGN's
 * the pad it names.  NULL: no pad of the test's. */
static struct bus_pad *turn_of(struct bus_pad *pads, size_t n, const struct frame *f) {
        if (f->type == PROTO_ASSIGN) {
                struct proto_assign a;
                assert_int_equal(f->address, PROTO_ADDR_BROADCAST);
                assert_int_equal(proto_unpack_assign(f, &a), 0);
                for (size_t k = 0; k < n; k++)
                        if (pads[k].uid == a.uid) {
                                if (pads[k].address)
                                        assert_int_equal(a.address, pads[k].address);
                                pads[k].address = a.address;
                                return &pads[k];
                        }
                fail_msg("an ASSIGN for uid %016llx, no pad of the test's", (unsigned long long) a.uid);
        }
        for (size_t k = 0; k < n; k++)
                if (pads[k].address && f->address == pads[k].address)
                        return &pads[k];
        return NULL;
}

/* Two pads say HELLO in the first discovery; one answers every turn, the
 * other only its ASSIGN.  Read until three more discoveries (the silent
 * pad is disconnected after heartbeat_timeout and polled about once a
 * second from then on). */
static void the_host_speaks_only_in_turns(void **state) {
        struct bus_pad pads[2] = { { .uid = 0x485001 }, { .uid = 0x485002, .silent = true } };
        unsigned discoveries = 0, unanswered = 0, frames = 0, after_silence = 0;
        unsigned turns_at_last_silence = 0;
        (void) state;

        start_bus();
        /* the RESET at open, to every pad, asks no answer */
        struct frame f = next_host_frame();
        assert_int_equal(f.type, PROTO_RESET);
        assert_int_equal(f.address, PROTO_ADDR_BROADCAST);
        frames++;
        while (discoveries < 4) {
                f = next_host_frame();
                frames++;
                if (f.type == PROTO_HOST_BEAT && f.address == PROTO_ADDR_BROADCAST)
                        fail_msg("a HOST_BEAT to every pad on a bus: its turns are its beats");
                assert_int_not_equal(f.type, PROTO_RESET);
                if (f.type == PROTO_HOST_BEAT && f.address == PROTO_ADDR_UNASSIGNED) {
                        /* a discovery: the unassigned pads say HELLO in their slots */
                        if (discoveries++ == 0) {
                                pad_hello(&pads[0], PROTO_ADDR_UNASSIGNED);
                                pad_hello(&pads[1], PROTO_ADDR_UNASSIGNED);
                        }
                        continue;
                }
                struct bus_pad *p = turn_of(pads, 2, &f);
                if (!p)
                        fail_msg("host frame type 0x%02x to address %u: no pad's turn", f.type, f.address);
                p->turns++;
                if (p->silent && f.type != PROTO_ASSIGN) {
                        /* timeout → next pad: the other pad had a turn
                         * between two of this one's */
                        if (after_silence++ > 0 && pads[0].turns == turns_at_last_silence)
                                fail_msg("two turns of the silent pad with none of the other's between them");
                        turns_at_last_silence = pads[0].turns;
                        unanswered++;   /* the next frame can only come after its deadline */
                        continue;
                }
                /* A frame already written before the test answered this one
                 * came after this turn's deadline. */
                if (more_waiting())
                        unanswered++;
                pad_answer(p, &f, false);
        }
        if (unanswered)
                unanswered--;           /* the last turn read may still be running */

        struct bus_state s;
        bus_state(pads, 2, &s);
        print_message("%u frames: %u turns to the pad that answers, %u to the silent one, %u discoveries; "
                      "daemon: %lld polls, %lld timeouts, %lld discoveries\n", frames, pads[0].turns,
                      pads[1].turns, discoveries, (long long) s.polls, (long long) s.poll_timeouts,
                      (long long) s.discoveries);
        /* every frame but the RESET and the discoveries was a turn */
        assert_true(s.polls >= (json_int_t) (pads[0].turns + pads[1].turns));
        assert_true(s.discoveries >= (json_int_t) discoveries);
        /* one frame a turn: each turn the test did not answer ended at its deadline */
        assert_true(s.poll_timeouts >= (json_int_t) unanswered);
        /* and the answers ended theirs: the only check here that assumes
         * something of the machine — that most of the test's answers come
         * within the turn's 3 ms margin */
        assert_true(s.poll_timeouts <= (json_int_t) (after_silence + pads[0].turns / 2));
        assert_true(after_silence >= 2);
        /* the answering pad: connected, at its address, its clock synced
         * through SYNCs sent as its turns */
        assert_true(s.connected[0]);
        assert_int_equal(s.address[0], pads[0].address);
        assert_true(s.syncs_answered[0] > 0);
        assert_true(s.synced[0]);
        /* the silent one: assigned, then gone (and still given a turn now and then) */
        assert_false(s.connected[1]);
        assert_int_equal(s.address[1], pads[1].address);
}

/* What the host has for a pad waits for that pad's turn: the ACK of a
 * press and identify's LIGHT and BUZZ each come as a turn of their own,
 * after the test answered the one before. */
static void frames_for_a_pad_go_as_its_turns(void **state) {
        struct bus_pad pad = { .uid = 0x485003 };
        bool pressed = false, acked = false, light = false, buzz = false, identified = false;
        unsigned unanswered = 0;
        char *token;
        (void) state;

        start_bus();
        token = create_token("referee", unique_name("rs485"));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !(acked && light && buzz);) {
                if (mono_ms() > deadline)
                        fail_msg("acked %d, light %d, buzz %d", acked, light, buzz);
                struct frame f = next_host_frame();
                if (f.type == PROTO_RESET)
                        continue;
                if (f.type == PROTO_HOST_BEAT && f.address == PROTO_ADDR_UNASSIGNED) {
                        if (!pad.address)
                                pad_hello(&pad, PROTO_ADDR_UNASSIGNED);
                        continue;
                }
                struct bus_pad *p = turn_of(&pad, 1, &f);
                assert_non_null(p);
                p->turns++;
                /* a pad never has two frames to answer: one written before
                 * the test answered this one came after its deadline */
                if (more_waiting())
                        unanswered++;
                if (f.type == PROTO_ACK) {
                        struct proto_ack a;
                        assert_int_equal(proto_unpack_ack(&f, &a), 0);
                        assert_true(pressed);
                        assert_int_equal(a.event_no, pad.event_no);
                        acked = true;
                }
                light |= f.type == PROTO_LIGHT;
                buzz |= f.type == PROTO_BUZZ;
                /* its turns carry a press (the same event again, as a pad
                 * retransmits it) until it is ACKed; then identify */
                bool press = !acked && f.type == PROTO_HOST_BEAT;
                pad_answer(p, &f, press);
                pressed |= press;
                if (acked && !identified) {
                        struct http_reply r;
                        char path[128];
                        snprintf(path, sizeof path, "/v1/pads/%016llx/identify", (unsigned long long) pad.uid);
                        http_post_json(&daemon_, path, token, "{}", &r);
                        assert_int_equal(r.status / 100, 2);
                        http_reply_done(&r);
                        identified = true;
                }
        }
        free(token);
        struct bus_state s;
        bus_state(&pad, 1, &s);
        assert_true(s.poll_timeouts >= (json_int_t) unanswered);
        assert_true(s.poll_timeouts <= (json_int_t) pad.turns / 2);     /* as in the test above */
        assert_true(s.polls >= (json_int_t) pad.turns);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(the_host_speaks_only_in_turns, teardown),
                cmocka_unit_test_teardown(frames_for_a_pad_go_as_its_turns, teardown),
        };

        curl_global_init(CURL_GLOBAL_ALL);
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
