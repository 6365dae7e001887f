/* tests/bench/bench_decoder.c — the pad bus frame decoder's throughput in
 * MB/s, next to memcpy of the same bytes in the same reads as the ceiling,
 * measured in the same run.
 *
 * The stream is a few MB of what a busy line carries (mostly PRESS and
 * RELEASE, HEARTBEAT and SYNC_REPLY from a dozen pads), fed once in reads
 * of 1..64 bytes (what a USB serial port hands to read()) and once in a
 * single call.  Each figure is the best of several rounds.  A benchmark
 * reports; it does not pass or fail.
 *
 * Rows of `make bench`'s report (report.h): decoder.mb_per_s.reads and
 * decoder.mb_per_s.whole, each against memcpy in the same reads, goal a
 * ratio of at least 0.01.  Why: the decoder walks every byte (COBS, the
 * CRC, the frame's checks), memcpy moves 16 or 32 at a time, so a few
 * percent of memcpy is what byte-at-a-time work costs; below 1 % it would
 * be doing something per byte that it should not (a call, an allocation).
 * Even 1 % of memcpy is a thousand times the fastest line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hardware/frame.h"

#include "report.h"

/* 4 MiB: well beyond the L2 cache, as a long session's bytes would be. */
#define STREAM_BYTES    (4u << 20)
/* A full-speed USB bulk packet carries 64 bytes; reads rarely bring more. */
#define MAX_READ        64
#define ROUNDS          7
#define PADS            12
/* The fastest line the protocol allows: 3 Mbaud, 10 bits a byte with 8N1. */
#define LINE_MAX_BYTES_PER_S    (3000000.0 / 10)

struct stream {
        uint8_t *bytes;
        size_t len;
        uint16_t *reads;                /* read sizes, summing to len */
        size_t n_reads;
        uint64_t frames;
};

/* xorshift64 (Marsaglia 2003): a fixed, cheap sequence of choices. */
static uint64_t next_rand(uint64_t *s) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

/* Builds the stream: half events, three in ten heartbeats, two in ten
 * sync replies, with plausible field values (zero bytes included, so COBS
 * has real work), and the read sizes to feed it with. */
static int stream_build(struct stream *st) {
        uint32_t pad_time[PADS + 1] = { 0 };
        uint16_t seq[PADS + 1] = { 0 }, event_no[PADS + 1] = { 0 };
        uint64_t rng = 0x243f6a8885a308d3ULL;
        size_t at = 0;

        st->bytes = malloc(STREAM_BYTES + PROTO_MAX_ENCODED);
        st->reads = malloc(STREAM_BYTES * sizeof *st->reads);
        if (!st->bytes || !st->reads)
                return -1;
        st->frames = 0;
        while (at < STREAM_BYTES) {
                unsigned pick = (unsigned) (next_rand(&rng) % 10);
                uint8_t addr = (uint8_t) (1 + next_rand(&rng) % PADS);
                struct frame f;
                int n;

                pad_time[addr] += (uint32_t) (next_rand(&rng) % 400000);
                if (pick < 5) {
                        struct proto_event e = { .event_no = event_no[addr]++,
                                                 .button = (uint8_t) (next_rand(&rng) % 7),
                                                 .pad_time = pad_time[addr] };
                        proto_pack_event(&f, pick < 3 ? PROTO_PRESS : PROTO_RELEASE, &e);
                } else if (pick < 8) {
                        struct proto_heartbeat h = { .pad_time = pad_time[addr] };
                        proto_pack_heartbeat(&f, &h);
                } else {
                        struct proto_sync_reply r = { .sync_id = seq[addr],
                                                      .rx_time = pad_time[addr],
                                                      .tx_time = pad_time[addr] + 35 };
                        proto_pack_sync_reply(&f, &r);
                }
                f.address = addr;
                f.seq = seq[addr]++;
                n = frame_encode(&f, st->bytes + at, PROTO_MAX_ENCODED);
                if (n < 0)
                        return -1;
                at += (size_t) n;
                st->frames++;
        }
        st->len = at;
        st->n_reads = 0;
        for (size_t done = 0; done < st->len;) {
                size_t r = 1 + next_rand(&rng) % MAX_READ;

                if (r > st->len - done)
                        r = st->len - done;
                st->reads[st->n_reads++] = (uint16_t) r;
                done += r;
        }
        return 0;
}

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static uint64_t frames_seen;
static volatile uint8_t sink;           /* keeps the copies observable */

static void count_frame(void *userdata, const struct frame *f) {
        (void) userdata;
        (void) f;
        frames_seen++;
}

/* What the decoder's caller must do at the least: move the bytes.  The
 * destination is read afterwards so that the copies cannot be dropped. */
static double run_memcpy(const struct stream *st, uint8_t *dst, int whole) {
        double t0 = now_s();

        if (whole) {
                memcpy(dst, st->bytes, st->len);
        } else {
                size_t at = 0;

                for (size_t i = 0; i < st->n_reads; i++) {
                        memcpy(dst + at, st->bytes + at, st->reads[i]);
                        at += st->reads[i];
                }
        }
        t0 = now_s() - t0;
        sink = dst[st->len - 1];
        return t0;
}

static double run_decoder(const struct stream *st, int whole) {
        struct frame_decoder d;
        double t0 = now_s(), t;

        frame_decoder_init(&d);
        frames_seen = 0;
        if (whole) {
                frame_decoder_feed(&d, st->bytes, st->len, count_frame, NULL);
        } else {
                size_t at = 0;

                for (size_t i = 0; i < st->n_reads; i++) {
                        frame_decoder_feed(&d, st->bytes + at, st->reads[i], count_frame, NULL);
                        at += st->reads[i];
                }
        }
        t = now_s() - t0;
        if (d.faults.frames != st->frames || frames_seen != st->frames) {
                fprintf(stderr, "bench_decoder: decoded %" PRIu64 " of %" PRIu64 " frames\n",
                        d.faults.frames, st->frames);
                exit(1);
        }
        return t;
}

int main(void) {
        struct stream st;
        uint8_t *dst;
        double mb;

        if (stream_build(&st) < 0 || !(dst = malloc(st.len))) {
                fprintf(stderr, "bench_decoder: out of memory\n");
                return 1;
        }
        memset(dst, 0, st.len);
        mb = (double) st.len / 1e6;
        printf("stream: %.1f MB, %" PRIu64 " frames (%.1f bytes each), %zu reads of 1..%d bytes; "
               "best of %d\n", mb, st.frames, (double) st.len / (double) st.frames, st.n_reads,
               MAX_READ, ROUNDS);
        printf("%-16s %-12s %10s %12s %10s\n", "", "reads", "MB/s", "ns/frame", "of memcpy");

        for (int whole = 0; whole <= 1; whole++) {
                double best_copy = 1e9, best_dec = 1e9;

                for (int r = 0; r < ROUNDS; r++) {
                        double c = run_memcpy(&st, dst, whole), d = run_decoder(&st, whole);

                        best_copy = c < best_copy ? c : best_copy;
                        best_dec = d < best_dec ? d : best_dec;
                }
                printf("%-16s %-12s %10.0f %12.1f %10s\n", "memcpy", whole ? "one call" : "1..64 B",
                       mb / best_copy, best_copy * 1e9 / (double) st.frames, "1.00");
                printf("%-16s %-12s %10.0f %12.1f %10.3f\n", "frame decoder",
                       whole ? "one call" : "1..64 B", mb / best_dec,
                       best_dec * 1e9 / (double) st.frames, best_copy / best_dec);
                bench_report(whole ? "decoder.mb_per_s.whole" : "decoder.mb_per_s.reads",
                             whole ? "pad frame decoder, the stream in one call"
                                   : "pad frame decoder, reads of 1..64 bytes",
                             "MB/s", mb / best_dec, mb / best_copy, "memcpy, same reads", BENCH_GOAL_RATIO_MIN,
                             0.01);
        }
        printf("(a 3 Mbaud line, the protocol's fastest, carries %.2f MB/s)\n",
               LINE_MAX_BYTES_PER_S / 1e6);
        free(dst);
        free(st.bytes);
        free(st.reads);
        return 0;
}
