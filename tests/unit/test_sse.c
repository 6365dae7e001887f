/* api/sse.c without HTTP: ids, topic filters, the ring, resume and its
 * resets, backpressure, heartbeats and closing, read through
 * sse_sub_fill() exactly as a stream's content reader reads them. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "api/sse.h"

#define EPOCH 0x2a
#define OPENING "retry: 2000\n: arbiter events, boot 0000002a\n\n"

struct client {
        struct sse_sub *sub;
        unsigned wakes;
};

static void on_wake(void *userdata) {
        struct client *c = userdata;
        c->wakes++;
}

static struct sse_hub *hub_with(struct sse_config cfg) {
        struct sse_hub *hub;

        cfg.epoch = EPOCH;
        assert_int_equal(sse_hub_new(NULL, &cfg, &hub), 0);
        return hub;
}

static void subscribe(struct sse_hub *hub, const char *filter, const char *last, struct client *c) {
        memset(c, 0, sizeof *c);
        assert_int_equal(sse_subscribe(hub, filter, NULL, last, false, on_wake, c, &c->sub), 0);
}

/* Everything the stream has to send now, read max bytes at a time; *ret_end
 * tells whether the stream ended (-EPIPE) rather than ran dry (0). */
static char *drain(struct client *c, size_t max, bool *ret_end) {
        static char out[65536];
        char buf[65536];
        size_t len = 0;
        ssize_t n;

        while ((n = sse_sub_fill(c->sub, buf, max)) > 0) {
                assert_true((size_t) n <= max);
                assert_true(len + (size_t) n < sizeof out);
                memcpy(out + len, buf, (size_t) n);
                len += (size_t) n;
        }
        out[len] = '\0';
        if (ret_end)
                *ret_end = n == -EPIPE;
        else
                assert_int_equal(n, 0);
        return out;
}

static void publish(struct sse_hub *hub, const char *topic, const char *event, int v) {
        assert_int_equal(sse_publish(hub, topic, event, json_pack("{s:i}", "v", v)), 0);
}

static void ids_format_and_parse(void **state) {
        static const char *const bad[] = {
                "", "0", "2a-1", "0000002a", "0000002a-", "0000002A-1", "0000002g-1", "0000002a-1x",
                "0000002a--1", "0000002a-+1", "0000002a-18446744073709551616", "00000002a-1", " 0000002a-1",
        };
        char buf[SSE_ID_MAX];
        uint32_t epoch;
        uint64_t n;
        (void) state;

        sse_id_format(buf, EPOCH, 17);
        assert_string_equal(buf, "0000002a-17");
        sse_id_format(buf, UINT32_MAX, UINT64_MAX);
        assert_string_equal(buf, "ffffffff-18446744073709551615");
        assert_int_equal(sse_id_parse(buf, &epoch, &n), 0);
        assert_int_equal(epoch, UINT32_MAX);
        assert_true(n == UINT64_MAX);
        assert_int_equal(sse_id_parse("deadbeef-0", &epoch, &n), 0);
        assert_int_equal(epoch, 0xdeadbeef);
        assert_int_equal(n, 0);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                if (sse_id_parse(bad[i], &epoch, &n) != -EINVAL)
                        fail_msg("\"%s\" parsed as an id", bad[i]);
}

static void topic_filters_match_whole_segments(void **state) {
        static const struct {
                const char *filter, *topic;
                bool match;
        } rows[] = {
                { "", "pads", true },
                { "", "match/42", true },
                { "pads", "pads", true },
                { "pads", "pads/x", true },
                { "pads", "padsx", false },
                { "pad", "pads", false },
                { "match", "match/42", true },
                { "match/4", "match/42", false },
                { "match/42", "match/42", true },
                { "match/42", "match", false },
                { "tournament/7", "match/7", false },
        };
        (void) state;

        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
                if (sse_topic_matches(rows[i].filter, rows[i].topic) != rows[i].match)
                        fail_msg("filter \"%s\" on topic \"%s\" should %smatch", rows[i].filter, rows[i].topic,
                                 rows[i].match ? "" : "not ");
        assert_true(sse_name_valid("match/42", SSE_TOPIC_MAX));
        assert_false(sse_name_valid("", SSE_TOPIC_MAX));
        assert_false(sse_name_valid(NULL, SSE_TOPIC_MAX));
        assert_false(sse_name_valid("a b", SSE_TOPIC_MAX));
        assert_false(sse_name_valid("a\nb", SSE_TOPIC_MAX));
        assert_false(sse_name_valid("caf\xc3\xa9", SSE_TOPIC_MAX));
        assert_true(sse_name_valid("abcd", 4));
        assert_false(sse_name_valid("abcde", 4));
}

static void a_stream_opens_with_retry_then_waits(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client c;
        (void) state;

        subscribe(hub, NULL, NULL, &c);
        assert_string_equal(drain(&c, 4096, NULL), OPENING);
        assert_int_equal(c.wakes, 0);

        publish(hub, "pads", "pressed", 1);
        assert_int_equal(c.wakes, 1);
        assert_string_equal(drain(&c, 4096, NULL), "id: 0000002a-1\nevent: pressed\ndata: {\"v\":1}\n\n");

        /* several events between two reads: one wake, every event in order */
        publish(hub, "pads", "pad_added", 2);
        publish(hub, "match/1", "card", 3);
        assert_int_equal(c.wakes, 2);
        assert_string_equal(drain(&c, 4096, NULL),
                            "id: 0000002a-2\nevent: pad_added\ndata: {\"v\":2}\n\n"
                            "id: 0000002a-3\nevent: card\ndata: {\"v\":3}\n\n");
        sse_sub_free(c.sub);
        sse_hub_free(hub);
}

static void small_reads_give_the_same_bytes(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client a, b;
        char whole[4096];
        (void) state;

        subscribe(hub, NULL, NULL, &a);
        subscribe(hub, NULL, NULL, &b);
        for (int i = 0; i < 20; i++)
                publish(hub, i % 2 ? "pads" : "match/9", "e", i);
        snprintf(whole, sizeof whole, "%s", drain(&a, 4096, NULL));
        assert_string_equal(drain(&b, 3, NULL), whole);
        assert_non_null(strstr(whole, "id: 0000002a-20\n"));
        sse_sub_free(a.sub);
        sse_sub_free(b.sub);
        sse_hub_free(hub);
}

static void a_filter_skips_other_topics(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client c;
        (void) state;

        subscribe(hub, "match", NULL, &c);
        drain(&c, 4096, NULL);
        publish(hub, "pads", "pressed", 1);
        publish(hub, "matches", "x", 2);
        assert_int_equal(c.wakes, 0);
        publish(hub, "match/42", "card", 3);
        assert_int_equal(c.wakes, 1);
        publish(hub, "pads", "pressed", 4);
        assert_string_equal(drain(&c, 4096, NULL), "id: 0000002a-3\nevent: card\ndata: {\"v\":3}\n\n");
        sse_sub_free(c.sub);
        sse_hub_free(hub);
}

static void resume_sends_exactly_what_was_missed(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client c;
        (void) state;

        for (int i = 1; i <= 5; i++)
                publish(hub, i == 4 ? "match/1" : "pads", "e", i);

        subscribe(hub, NULL, "0000002a-2", &c);
        assert_string_equal(drain(&c, 4096, NULL), OPENING
                            "id: 0000002a-3\nevent: e\ndata: {\"v\":3}\n\n"
                            "id: 0000002a-4\nevent: e\ndata: {\"v\":4}\n\n"
                            "id: 0000002a-5\nevent: e\ndata: {\"v\":5}\n\n");
        publish(hub, "pads", "e", 6);
        assert_string_equal(drain(&c, 4096, NULL), "id: 0000002a-6\nevent: e\ndata: {\"v\":6}\n\n");
        sse_sub_free(c.sub);

        /* with a filter: only its topic */
        subscribe(hub, "pads", "0000002a-2", &c);
        assert_string_equal(drain(&c, 4096, NULL), OPENING
                            "id: 0000002a-3\nevent: e\ndata: {\"v\":3}\n\n"
                            "id: 0000002a-5\nevent: e\ndata: {\"v\":5}\n\n"
                            "id: 0000002a-6\nevent: e\ndata: {\"v\":6}\n\n");
        sse_sub_free(c.sub);

        /* up to date: nothing but the opening */
        subscribe(hub, NULL, "0000002a-6", &c);
        assert_string_equal(drain(&c, 4096, NULL), OPENING);
        sse_sub_free(c.sub);

        /* "0": everything since start */
        subscribe(hub, NULL, "0", &c);
        assert_non_null(strstr(drain(&c, 4096, NULL), "id: 0000002a-1\n"));
        sse_sub_free(c.sub);
        sse_hub_free(hub);
}

static void ids_the_hub_cannot_resume_from_get_a_reset(void **state) {
        static const struct {
                const char *last, *reason;
        } rows[] = {
                { "deadbeef-3", "restarted" },
                { "0000002a-99", "unknown" },
                { "garbage", "unknown" },
                { "0000002a-1", "expired" },
                { "0", "expired" },
        };
        struct sse_hub *hub = hub_with((struct sse_config) { .ring_events = 4 });
        char want[512];
        struct client c;
        (void) state;

        for (int i = 1; i <= 6; i++)
                publish(hub, "pads", "e", i);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                unsigned newest = 6 + (unsigned) i;
                subscribe(hub, NULL, rows[i].last, &c);
                snprintf(want, sizeof want, OPENING "id: 0000002a-%u\nevent: reset\n"
                         "data: {\"reason\":\"%s\",\"last_id\":\"0000002a-%u\"}\n\n", newest, rows[i].reason,
                         newest);
                assert_string_equal(drain(&c, 4096, NULL), want);
                /* and live from there */
                publish(hub, "pads", "e", 7 + (int) i);
                assert_int_equal(c.wakes, 1);
                assert_non_null(strstr(drain(&c, 4096, NULL), "event: e\n"));
                sse_sub_free(c.sub);
        }
        /* the ring of 4 holds 8..11 now */
        struct sse_stats st;
        sse_hub_stats(hub, &st);
        assert_int_equal(st.retained, 4);
        assert_int_equal(st.published, 11);
        assert_string_equal(st.last_id, "0000002a-11");
        subscribe(hub, NULL, "0000002a-7", &c);        /* 8..11 are all there */
        char *text = drain(&c, 4096, NULL);
        assert_null(strstr(text, "reset"));
        assert_non_null(strstr(text, "id: 0000002a-8\n"));
        assert_non_null(strstr(text, "id: 0000002a-11\n"));
        sse_sub_free(c.sub);
        sse_hub_free(hub);
}

static void a_slow_reader_overflows_and_ends(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { .backlog_limit = 200 });
        struct client slow, fast;
        bool end;
        (void) state;

        subscribe(hub, NULL, NULL, &slow);
        subscribe(hub, NULL, NULL, &fast);
        drain(&slow, 4096, NULL);
        drain(&fast, 4096, NULL);
        publish(hub, "pads", "e", 1);
        /* the slow reader takes 5 bytes of the first event and stops reading */
        char buf[8];
        assert_int_equal(sse_sub_fill(slow.sub, buf, 5), 5);
        for (int i = 2; i <= 8; i++) {
                publish(hub, "pads", "e", i);
                drain(&fast, 4096, NULL);
        }
        struct sse_stats st;
        sse_hub_stats(hub, &st);
        assert_int_equal(st.overflowed, 1);
        /* the rest of the half-sent event, the overflow, the end */
        char *text = drain(&slow, 4096, &end);
        assert_true(end);
        assert_string_equal(text, "000002a-1\nevent: e\ndata: {\"v\":1}\n\n"
                                  "event: overflow\ndata: {\"reason\":\"the client reads too slowly\","
                                  "\"backlog_limit\":200}\n\n");
        assert_int_equal(sse_sub_fill(slow.sub, buf, sizeof buf), -EPIPE);
        /* the fast reader is unaffected */
        publish(hub, "pads", "e", 9);
        assert_non_null(strstr(drain(&fast, 4096, NULL), "id: 0000002a-9\n"));
        sse_sub_free(slow.sub);
        sse_sub_free(fast.sub);
        sse_hub_free(hub);
}

static void the_ring_dropping_an_unsent_event_overflows(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { .ring_events = 2 });
        struct client replay, other;
        char buf[256];
        bool end;
        (void) state;

        publish(hub, "pads", "e", 1);
        publish(hub, "pads", "e", 2);
        subscribe(hub, NULL, "0", &replay);
        subscribe(hub, "match", "0", &other);          /* reads nothing yet */
        /* the replaying reader has sent the opening and 5 bytes of event 1 */
        assert_int_equal(sse_sub_fill(replay.sub, buf, strlen(OPENING) + 5), (ssize_t) strlen(OPENING) + 5);
        /* the ring drops event 1 (half sent: it stays whole for the reader)
         * and event 2 (not sent: lost) */
        publish(hub, "pads", "e", 3);
        publish(hub, "pads", "e", 4);
        struct sse_stats st;
        sse_hub_stats(hub, &st);
        assert_int_equal(st.overflowed, 1);
        char *text = drain(&replay, 4096, &end);
        assert_true(end);
        assert_string_equal(text, "000002a-1\nevent: e\ndata: {\"v\":1}\n\n"
                                  "event: overflow\ndata: {\"reason\":\"the ring dropped events this stream "
                                  "had not sent\",\"backlog_limit\":262144}\n\n");
        /* events of other topics dropped from the ring are no loss */
        assert_string_equal(drain(&other, 4096, NULL), OPENING);
        publish(hub, "match/1", "m", 5);
        assert_int_equal(other.wakes, 1);
        assert_string_equal(drain(&other, 4096, NULL), "id: 0000002a-5\nevent: m\ndata: {\"v\":5}\n\n");
        sse_sub_free(replay.sub);
        sse_sub_free(other.sub);
        sse_hub_free(hub);
}

static void ring_bounds_bytes_and_age(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { .ring_bytes = 200 });
        struct sse_stats st;
        struct client c;
        (void) state;

        /* events 1..9 take 39 bytes, 10 takes 41: 6..10 fit in 200 */
        for (int i = 1; i <= 10; i++)
                publish(hub, "pads", "e", i);
        sse_hub_stats(hub, &st);
        assert_int_equal(st.retained, 5);
        assert_int_equal(st.retained_bytes, 4 * 39 + 41);
        subscribe(hub, NULL, "0000002a-5", &c);
        assert_non_null(strstr(drain(&c, 4096, NULL), "id: 0000002a-6\n"));
        sse_sub_free(c.sub);
        sse_hub_free(hub);

        hub = hub_with((struct sse_config) { .ring_age_usec = 20000 });
        for (int i = 1; i <= 10; i++)
                publish(hub, "pads", "e", i);
        usleep(50000);
        sse_hub_heartbeat(hub);
        sse_hub_stats(hub, &st);
        assert_int_equal(st.retained, 0);
        assert_int_equal(st.retained_bytes, 0);
        /* nothing retained: resuming from the last id works, from before it does not */
        subscribe(hub, NULL, "0000002a-10", &c);
        assert_string_equal(drain(&c, 4096, NULL), OPENING);
        sse_sub_free(c.sub);
        subscribe(hub, NULL, "0000002a-9", &c);
        assert_non_null(strstr(drain(&c, 4096, NULL), "\"reason\":\"expired\""));
        sse_sub_free(c.sub);
        sse_hub_free(hub);
}

static void heartbeats_go_to_idle_streams(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client idle, busy;
        char buf[4];
        (void) state;

        subscribe(hub, NULL, NULL, &idle);
        subscribe(hub, NULL, NULL, &busy);
        drain(&idle, 4096, NULL);
        /* busy still has its opening to send: no heartbeat on top */
        assert_int_equal(sse_sub_fill(busy.sub, buf, sizeof buf), (ssize_t) sizeof buf);
        sse_hub_heartbeat(hub);
        assert_int_equal(idle.wakes, 1);
        assert_int_equal(busy.wakes, 0);
        assert_string_equal(drain(&idle, 4096, NULL), ":\n\n");
        assert_string_equal(drain(&busy, 4096, NULL), OPENING + sizeof buf);
        sse_hub_heartbeat(hub);
        assert_string_equal(drain(&busy, 4096, NULL), ":\n\n");
        sse_sub_free(idle.sub);
        sse_sub_free(busy.sub);
        sse_hub_free(hub);
}

static void closing_ends_every_stream_and_refuses_more(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client waiting, sending, late;
        char buf[4];
        bool end;
        (void) state;

        subscribe(hub, NULL, NULL, &waiting);
        subscribe(hub, NULL, NULL, &sending);
        drain(&waiting, 4096, NULL);
        assert_int_equal(sse_sub_fill(sending.sub, buf, sizeof buf), (ssize_t) sizeof buf);
        sse_hub_close(hub);
        sse_hub_close(hub);
        assert_int_equal(waiting.wakes, 1);
        assert_int_equal(sending.wakes, 0);
        /* nothing more, not even the rest of what was pending */
        assert_string_equal(drain(&waiting, 4096, &end), "");
        assert_true(end);
        assert_string_equal(drain(&sending, 4096, &end), "");
        assert_true(end);
        assert_int_equal(sse_subscribe(hub, NULL, NULL, NULL, false, on_wake, &late, &late.sub), -ESHUTDOWN);
        assert_int_equal(sse_publish(hub, "pads", "e", json_object()), -ESHUTDOWN);
        sse_sub_free(waiting.sub);
        sse_sub_free(sending.sub);
        sse_hub_free(hub);
}

/* ... but not a referee's: a priority subscriber always finds room. */
static void streams_are_limited(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { .max_streams = 2 });
        struct client a, b, c, referee;
        struct sse_stats st;
        (void) state;

        subscribe(hub, NULL, NULL, &a);
        subscribe(hub, "pads", NULL, &b);
        assert_int_equal(sse_subscribe(hub, NULL, NULL, NULL, false, on_wake, &c, &c.sub), -EBUSY);
        memset(&referee, 0, sizeof referee);
        assert_int_equal(sse_subscribe(hub, "match/1", "match/1/referee", NULL, true, on_wake, &referee,
                                       &referee.sub), 0);
        sse_hub_stats(hub, &st);
        assert_int_equal(st.streams, 3);
        assert_int_equal(st.refused, 1);
        sse_sub_free(referee.sub);
        sse_sub_free(a.sub);
        subscribe(hub, NULL, NULL, &c);
        sse_sub_free(b.sub);
        sse_sub_free(c.sub);
        sse_hub_stats(hub, &st);
        assert_int_equal(st.streams, 0);
        sse_hub_free(hub);
}

static void bad_input_is_refused(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { .backlog_limit = 1024 });
        struct client c;
        char big[2048];
        (void) state;

        assert_int_equal(sse_publish(hub, "", "e", json_object()), -EINVAL);
        assert_int_equal(sse_publish(hub, "pads", "two words", json_object()), -EINVAL);
        assert_int_equal(sse_publish(hub, "pads", "e\ndata: x", json_object()), -EINVAL);
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        assert_int_equal(sse_publish(hub, "pads", "e", json_string(big)), -EMSGSIZE);
        assert_int_equal(sse_subscribe(hub, "a b", NULL, NULL, false, on_wake, &c, &c.sub), -EINVAL);
        /* a string with a newline stays on one data line */
        subscribe(hub, NULL, NULL, &c);
        drain(&c, 4096, NULL);
        assert_int_equal(sse_publish(hub, "pads", "e", json_string("two\nlines")), 0);
        assert_int_equal(sse_publish(hub, "pads", "e", NULL), 0);
        assert_string_equal(drain(&c, 4096, NULL), "id: 0000002a-1\nevent: e\ndata: \"two\\nlines\"\n\n"
                                                   "id: 0000002a-2\nevent: e\ndata: null\n\n");
        sse_sub_free(c.sub);
        sse_hub_free(hub);
}

static void subscribers_outliving_the_hub_end(void **state) {
        struct sse_hub *hub = hub_with((struct sse_config) { 0 });
        struct client c;
        char buf[8];
        (void) state;

        subscribe(hub, NULL, NULL, &c);
        publish(hub, "pads", "e", 1);
        assert_int_equal(sse_sub_fill(c.sub, buf, sizeof buf), (ssize_t) sizeof buf);
        sse_hub_free(hub);
        assert_int_equal(sse_sub_fill(c.sub, buf, sizeof buf), -EPIPE);
        sse_sub_free(c.sub);
        sse_sub_free(NULL);
        sse_hub_free(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(ids_format_and_parse),
                cmocka_unit_test(topic_filters_match_whole_segments),
                cmocka_unit_test(a_stream_opens_with_retry_then_waits),
                cmocka_unit_test(small_reads_give_the_same_bytes),
                cmocka_unit_test(a_filter_skips_other_topics),
                cmocka_unit_test(resume_sends_exactly_what_was_missed),
                cmocka_unit_test(ids_the_hub_cannot_resume_from_get_a_reset),
                cmocka_unit_test(a_slow_reader_overflows_and_ends),
                cmocka_unit_test(the_ring_dropping_an_unsent_event_overflows),
                cmocka_unit_test(ring_bounds_bytes_and_age),
                cmocka_unit_test(heartbeats_go_to_idle_streams),
                cmocka_unit_test(closing_ends_every_stream_and_refuses_more),
                cmocka_unit_test(streams_are_limited),
                cmocka_unit_test(bad_input_is_refused),
                cmocka_unit_test(subscribers_outliving_the_hub_end),
        };
        return cmocka_run_group_tests_name("sse", tests, NULL, NULL);
}
