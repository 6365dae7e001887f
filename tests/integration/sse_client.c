/* tests/integration/sse_client.c — see sse_client.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct stream *st = userdata;
        size_t n = size * nmemb;
        char *b = realloc(st->buf, st->len + n + 1);

        if (!b)
                return 0;
        memcpy(b + st->len, ptr, n);
        st->buf = b;
        st->len += n;
        st->buf[st->len] = '\0';
        return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct stream *st = userdata;
        size_t n = size * nmemb;
        char line[256];

        snprintf(line, sizeof line, "%.*s", (int) (n < sizeof line ? n : sizeof line - 1), ptr);
        line[strcspn(line, "\r\n")] = '\0';
        if (strncasecmp(line, "Cache-Control: ", 15) == 0)
                snprintf(st->cache_control, sizeof st->cache_control, "%.63s", line + 15);
        else if (strncasecmp(line, "X-Accel-Buffering: ", 19) == 0)
                snprintf(st->accel_buffering, sizeof st->accel_buffering, "%.15s", line + 19);
        else if (strncasecmp(line, "Content-Type: ", 14) == 0)
                snprintf(st->content_type, sizeof st->content_type, "%.127s", line + 14);
        return n;
}

/* Turns every complete block ("…\n\n") received so far into events. */
static void parse(struct stream *st) {
        char *end;

        while ((end = strstr(st->buf + st->parsed, "\n\n"))) {
                struct event ev = { 0 };
                char *block = strndup(st->buf + st->parsed, (size_t) (end - (st->buf + st->parsed)));
                char *save = NULL;
                bool has_data = false;

                st->parsed = (size_t) (end + 2 - st->buf);
                for (char *l = strtok_r(block, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                        if (strcmp(l, ":") == 0)
                                st->heartbeats++;
                        else if (strncmp(l, "retry: ", 7) == 0)
                                st->opened = true;
                        else if (strncmp(l, "id: ", 4) == 0)
                                snprintf(ev.id, sizeof ev.id, "%s", l + 4);
                        else if (strncmp(l, "event: ", 7) == 0)
                                snprintf(ev.name, sizeof ev.name, "%s", l + 7);
                        else if (strncmp(l, "data: ", 6) == 0) {
                                ev.data = json_loads(l + 6, JSON_DECODE_ANY, NULL);
                                if (!ev.data)
                                        fail_msg("event data is not one line of JSON: %s", l);
                                has_data = true;
                        } else if (l[0] != ':')
                                fail_msg("unexpected line in the stream: \"%s\"", l);
                }
                free(block);
                if (has_data) {
                        assert_true(st->n_events < MAX_EVENTS);
                        st->events[st->n_events++] = ev;
                }
        }
}

/* Lets libcurl work for up to ms. */
void pump(struct stream *st, int ms) {
        int64_t deadline = mono_ms() + ms;

        do {
                int running = 0, left;
                CURLMsg *m;

                curl_multi_perform(st->multi, &running);
                while ((m = curl_multi_info_read(st->multi, &left)))
                        if (m->msg == CURLMSG_DONE) {
                                st->done = true;
                                st->result = m->data.result;
                        }
                parse(st);
                if (st->done)
                        return;
                curl_multi_poll(st->multi, NULL, 0, 20, NULL);
        } while (mono_ms() < deadline);
}

/* The stream's socket must not outlive stream_close() in a child this
 * process forks later (padsim): the daemon would see the client stay. */
static int on_sockopt(void *userdata, curl_socket_t fd, curlsocktype purpose) {
        (void) userdata, (void) purpose;
        return fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ? CURL_SOCKOPT_ERROR : CURL_SOCKOPT_OK;
}

/* Opens path with Last-Event-ID last (NULL: none) and waits for the
 * stream's first bytes. */
void stream_open(struct stream *st, const char *base_url, const char *path, const char *last) {
        char url[512], h[128];

        memset(st, 0, sizeof *st);
        st->buf = strdup("");
        st->multi = curl_multi_init();
        st->easy = curl_easy_init();
        assert_non_null(st->multi);
        assert_non_null(st->easy);
        snprintf(url, sizeof url, "%s%s", base_url, path);
        curl_easy_setopt(st->easy, CURLOPT_URL, url);
        curl_easy_setopt(st->easy, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(st->easy, CURLOPT_WRITEDATA, st);
        curl_easy_setopt(st->easy, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(st->easy, CURLOPT_HEADERDATA, st);
        curl_easy_setopt(st->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(st->easy, CURLOPT_SOCKOPTFUNCTION, on_sockopt);
        if (last) {
                snprintf(h, sizeof h, "Last-Event-ID: %s", last);
                st->headers = curl_slist_append(st->headers, h);
                curl_easy_setopt(st->easy, CURLOPT_HTTPHEADER, st->headers);
        }
        curl_multi_add_handle(st->multi, st->easy);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !st->opened && !st->done && mono_ms() < deadline;)
                pump(st, 50);
        if (!st->opened)
                fail_msg("GET %s sent no \"retry:\" line (done %d, %zu bytes: %s)", path, st->done, st->len, st->buf);
}

void stream_close(struct stream *st) {
        for (size_t i = 0; i < st->n_events; i++)
                json_decref(st->events[i].data);
        curl_multi_remove_handle(st->multi, st->easy);
        curl_easy_cleanup(st->easy);
        curl_multi_cleanup(st->multi);
        curl_slist_free_all(st->headers);
        free(st->buf);
        memset(st, 0, sizeof *st);
}

const char *data_str(const struct event *ev, const char *key) {
        return json_string_value(json_object_get(ev->data, key));
}

/* Index of the first event at or after from named name (and, when pad is
 * not NULL, whose data names that pad), waiting for it; fails the test
 * when it does not come. */
size_t wait_event(struct stream *st, size_t from, const char *name, const char *pad) {
        int64_t deadline = mono_ms() + HARNESS_WAIT_MS;

        for (;;) {
                for (size_t i = from; i < st->n_events; i++) {
                        const char *p = data_str(&st->events[i], pad && strcmp(name, "pressed") == 0 ? "pad" : "id");
                        if (strcmp(st->events[i].name, name) == 0 && (!pad || (p && strcmp(p, pad) == 0)))
                                return i;
                }
                if (st->done || mono_ms() > deadline)
                        fail_msg("no \"%s\" event%s%s arrived (%zu bytes: %s)", name, pad ? " for pad " : "",
                                 pad ? pad : "", st->len, st->buf);
                pump(st, 50);
        }
}

