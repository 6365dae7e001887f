/* tests/integration/sse_client.h — a Server-Sent Events client for the
 * integration tests: one stream read with libcurl's multi interface, so a
 * test can do other things (press buttons, stop the daemon) while it is
 * open, and parsed into events as blocks arrive. */
#ifndef ARBITER_TESTS_SSE_CLIENT_H
#define ARBITER_TESTS_SSE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>
#include <jansson.h>

#define MAX_EVENTS 1024

struct event {
        char id[48];
        char name[48];
        json_t *data;
};

/* One open stream, read with libcurl's multi interface so that the test
 * can do other things (press buttons, stop the daemon) while it is open. */
struct stream {
        CURLM *multi;
        CURL *easy;
        struct curl_slist *headers;
        char *buf;
        size_t len, parsed;
        bool done;
        CURLcode result;
        char content_type[128], cache_control[64], accel_buffering[16];
        struct event events[MAX_EVENTS];
        size_t n_events;
        unsigned heartbeats;            /* ":" comment lines */
        bool opened;                    /* the "retry:" line arrived */
};

/* CLOCK_MONOTONIC in milliseconds, for the tests' hang guards. */
int64_t mono_ms(void);

/* Opens base_url + path with Last-Event-ID last (NULL: none) and waits for
 * the stream's first bytes; fails the test if they do not come. */
void stream_open(struct stream *st, const char *base_url, const char *path, const char *last);
void stream_close(struct stream *st);
/* Lets libcurl work for up to ms, parsing what arrives. */
void pump(struct stream *st, int ms);
const char *data_str(const struct event *ev, const char *key);
/* Index of the first event at or after from named name (and, when pad is
 * not NULL, whose data names that pad), waiting for it; fails the test
 * when it does not come. */
size_t wait_event(struct stream *st, size_t from, const char *name, const char *pad);

#endif
