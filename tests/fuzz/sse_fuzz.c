/* libFuzzer target: Last-Event-ID (api/sse.c: sse_id_parse and where a
 * resumed stream starts).
 *
 * Input: byte 0 sizes the hub's ring (1..16 events), byte 1 says how many
 * events are published before the client reconnects (0..63), byte 2 picks
 * the stream's topic filter and scope, then one byte per event picks its
 * topic and renderings; what is left, up to a NUL, is the Last-Event-ID
 * the client brings (a header value holds no NUL).
 *
 * Invariants:
 *   - sse_id_parse accepts exactly 8 lowercase hex digits, '-', and a
 *     decimal that fits 64 bits, with those values; sse_id_format writes
 *     what it parses back to the same values (and the same text when the
 *     decimal has no leading zero);
 *   - the stream starts with its retry and boot comment; then, as sse.h
 *     "Resume" says: no Last-Event-ID (or an empty one): live events only;
 *     "0" or an id of this boot within the ring: every retained event
 *     after it that the stream's filter and scope get, each exactly as
 *     published, in order; an id of another boot: a reset "restarted"; an
 *     id above the newest: "unknown"; older than the ring: "expired";
 *     anything else: "unknown" — a reset carrying the newest id;
 *   - read in chunks of any size the stream is the same bytes; once they
 *     are read the stream waits, and the next event it gets arrives live.
 *
 * tests/unit/test_fuzz_sse.c replays tests/fuzz/corpus/sse/ through
 * sse_fuzz_check().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "api/sse.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SSE_FUZZ_EPOCH          0x3f9a1c2bu     /* this boot's, fixed as the unit tests fix it */
#define SSE_FUZZ_RING_MAX       16
#define SSE_FUZZ_EVENTS_MAX     63
/* The most a stream can hold here: the opening, a reset, and every event. */
#define SSE_FUZZ_STREAM_MAX     (8192 + SSE_FUZZ_EVENTS_MAX * 256)

static const char *const sse_fuzz_topics[] = { "pads", "match/1", "match/12", "match/1/x" };
static const char *const sse_fuzz_filters[] = { "", "match", "match/1", "pads" };
static const char *const sse_fuzz_scopes[] = { NULL, "match/1/seat/1", "match/1/referee", NULL };

/* What one published event was: its topic and which renderings it has. */
struct sse_fuzz_event {
        const char *topic;
        bool public_;                   /* a public rendering */
        bool seat, referee;             /* renderings for those scopes */
};

/* ---- ids ------------------------------------------------------------------- */

/* The id grammar of sse.h, read independently: 0 with the values or -EINVAL. */
static int sse_fuzz_parse(const char *s, uint32_t *ret_epoch, uint64_t *ret_n) {
        static const char hex[] = "0123456789abcdef";
        uint32_t epoch = 0;
        uint64_t n = 0;
        size_t len = strlen(s), i;

        if (len < 10 || s[8] != '-')
                return -EINVAL;
        for (i = 0; i < 8; i++) {
                const char *d = s[i] ? strchr(hex, s[i]) : NULL;

                if (!d)
                        return -EINVAL;
                epoch = epoch * 16 + (uint32_t) (d - hex);
        }
        for (i = 9; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                if (n > UINT64_MAX / 10 || n * 10 > UINT64_MAX - (uint64_t) (s[i] - '0'))
                        return -EINVAL;
                n = n * 10 + (uint64_t) (s[i] - '0');
        }
        *ret_epoch = epoch;
        *ret_n = n;
        return 0;
}

static void sse_fuzz_ids(const char *s) {
        uint32_t e1 = 0, e2 = 0, e3 = 0;
        uint64_t n1 = 0, n2 = 0, n3 = 0;
        char buf[SSE_ID_MAX];
        int r = sse_id_parse(s, &e1, &n1);

        FUZZ_ASSERT(r == 0 || r == -EINVAL);
        FUZZ_ASSERT(r == sse_fuzz_parse(s, &e2, &n2));
        if (r < 0)
                return;
        FUZZ_ASSERT(e1 == e2 && n1 == n2);
        sse_id_format(buf, e1, n1);
        FUZZ_ASSERT(sse_id_parse(buf, &e3, &n3) == 0 && e3 == e1 && n3 == n1);
        if (s[9] != '0' || s[10] == '\0')
                FUZZ_ASSERT(strcmp(buf, s) == 0);
}

/* ---- the stream -------------------------------------------------------------- */

struct sse_fuzz_text {
        char *s;
        size_t len, cap;
};

static void sse_fuzz_put(struct sse_fuzz_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sse_fuzz_put(struct sse_fuzz_text *t, const char *fmt, ...) {
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        FUZZ_ASSERT(n >= 0 && (size_t) n < t->cap - t->len);
        t->len += (size_t) n;
}

static void sse_fuzz_wake(void *userdata) {
        (*(unsigned *) userdata)++;
}

/* The block a subscriber in scope gets of event k (1-based), or nothing. */
static void sse_fuzz_expect_event(struct sse_fuzz_text *t, const struct sse_fuzz_event *ev, uint64_t k,
                                  const char *filter, const char *scope) {
        const char *kind;

        if (!sse_topic_matches(filter, ev->topic))
                return;
        if (scope && strcmp(scope, "match/1/seat/1") == 0 && ev->seat)
                kind = "seat";
        else if (scope && strcmp(scope, "match/1/referee") == 0 && ev->referee)
                kind = "referee";
        else if (ev->public_)
                kind = "public";
        else
                return;
        sse_fuzz_put(t, "id: %08" PRIx32 "-%" PRIu64 "\nevent: e%" PRIu64 "\n"
                     "data: {\"k\":%" PRIu64 ",\"for\":\"%s\"}\n\n", SSE_FUZZ_EPOCH, k, k % 3, k, kind);
}

static void sse_fuzz_publish(struct sse_hub *hub, const struct sse_fuzz_event *ev, uint64_t k) {
        struct sse_variant v[2];
        char name[8];
        size_t n = 0;

        snprintf(name, sizeof name, "e%" PRIu64, k % 3);
        if (ev->seat)
                v[n++] = (struct sse_variant) { "match/1/seat/1",
                                                json_pack("{s:I, s:s}", "k", (json_int_t) k, "for", "seat") };
        if (ev->referee)
                v[n++] = (struct sse_variant) { "match/1/referee",
                                                json_pack("{s:I, s:s}", "k", (json_int_t) k, "for", "referee") };
        FUZZ_ASSERT(sse_publish_scoped(hub, ev->topic, name,
                                       ev->public_ ? json_pack("{s:I, s:s}", "k", (json_int_t) k, "for", "public")
                                                   : NULL, v, n) == 0);
}

/* Reads the stream in chunks whose sizes come from seed, until it waits. */
static void sse_fuzz_drain(struct sse_sub *sub, uint8_t seed, struct sse_fuzz_text *got) {
        uint32_t lcg = seed;

        for (;;) {
                size_t want;
                ssize_t n;

                lcg = lcg * 1664525u + 1013904223u;     /* Numerical Recipes' LCG */
                want = 1 + (lcg >> 16) % 97;
                FUZZ_ASSERT(got->len + want < got->cap);
                n = sse_sub_fill(sub, got->s + got->len, want);
                FUZZ_ASSERT(n >= 0 && (size_t) n <= want);
                if (n == 0)
                        break;
                got->len += (size_t) n;
        }
        got->s[got->len] = '\0';
}

static void sse_fuzz_check(const uint8_t *data, size_t size) {
        struct sse_fuzz_event events[SSE_FUZZ_EVENTS_MAX + 1];
        struct sse_fuzz_text got = { 0 }, want = { 0 };
        struct sse_config cfg = { .epoch = SSE_FUZZ_EPOCH };
        const char *filter, *scope, *reason = NULL;
        char last_id[SSE_ID_MAX], *id;
        struct sse_hub *hub;
        struct sse_sub *sub;
        unsigned n_events, wakes = 0;
        uint64_t oldest, from = 0, n = 0;
        uint32_t epoch = 0;
        size_t at;

        if (size < 3)
                return;
        cfg.ring_events = 1 + data[0] % SSE_FUZZ_RING_MAX;
        n_events = data[1] % (SSE_FUZZ_EVENTS_MAX + 1);
        filter = sse_fuzz_filters[data[2] & 3];
        scope = sse_fuzz_scopes[(data[2] >> 2) & 3];
        at = 3;
        for (unsigned k = 0; k <= n_events; k++) {
                uint8_t b = at < size ? data[at++] : 0;

                events[k] = (struct sse_fuzz_event) {
                        .topic = sse_fuzz_topics[b & 3], .public_ = !(b & 4), .seat = b & 8, .referee = b & 16,
                };
                if (!events[k].public_ && !events[k].seat && !events[k].referee)
                        events[k].public_ = true;
        }
        id = malloc(size - at + 1);
        FUZZ_ASSERT(id);
        memcpy(id, data + at, size - at);
        id[size - at] = '\0';
        sse_fuzz_ids(id);

        FUZZ_ASSERT(sse_hub_new(NULL, &cfg, &hub) == 0);
        for (unsigned k = 0; k < n_events; k++)
                sse_fuzz_publish(hub, &events[k], k + 1);
        oldest = n_events > cfg.ring_events ? n_events - cfg.ring_events + 1 : 1;
        sse_id_format(last_id, SSE_FUZZ_EPOCH, n_events);

        /* where the stream should start, read from sse.h */
        if (*id) {
                if (strcmp(id, "0") == 0) {
                        epoch = SSE_FUZZ_EPOCH;
                        n = 0;
                } else if (sse_fuzz_parse(id, &epoch, &n) < 0) {
                        reason = "unknown";
                }
                if (!reason && epoch != SSE_FUZZ_EPOCH)
                        reason = "restarted";
                else if (!reason && n > n_events)
                        reason = "unknown";
                else if (!reason && n + 1 < oldest)
                        reason = "expired";
                else if (!reason)
                        from = n + 1;
        }

        got.cap = want.cap = SSE_FUZZ_STREAM_MAX;
        got.s = malloc(got.cap);
        want.s = malloc(want.cap);
        FUZZ_ASSERT(got.s && want.s);
        sse_fuzz_put(&want, "retry: %d\n: arbiter events, boot %08" PRIx32 "\n\n", SSE_RETRY_MS, SSE_FUZZ_EPOCH);
        if (reason)
                sse_fuzz_put(&want, "id: %s\nevent: reset\ndata: {\"reason\":\"%s\",\"last_id\":\"%s\"}\n\n",
                             last_id, reason, last_id);
        for (uint64_t k = from ? from : n_events + 1; k <= n_events; k++)
                sse_fuzz_expect_event(&want, &events[k - 1], k, filter, scope);

        FUZZ_ASSERT(sse_subscribe(hub, filter, scope, id, false, sse_fuzz_wake, &wakes, &sub) == 0);
        sse_fuzz_drain(sub, data[0] ^ data[1], &got);
        FUZZ_ASSERT(got.len == want.len && memcmp(got.s, want.s, got.len) == 0);

        /* live from here: the next event, when it is for this stream */
        want.len = 0;
        got.len = 0;
        sse_fuzz_publish(hub, &events[n_events], n_events + 1);
        sse_fuzz_expect_event(&want, &events[n_events], n_events + 1, filter, scope);
        FUZZ_ASSERT(wakes == (want.len > 0));
        sse_fuzz_drain(sub, data[2], &got);
        FUZZ_ASSERT(got.len == want.len && memcmp(got.s, want.s, got.len) == 0);

        sse_sub_free(sub);
        sse_hub_free(hub);
        free(got.s);
        free(want.s);
        free(id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        sse_fuzz_check(data, size);
        return 0;
}
