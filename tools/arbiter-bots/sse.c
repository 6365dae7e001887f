/* tools/arbiter-bots/sse.c — see sse.h. */
#define _GNU_SOURCE
#include "tools/arbiter-bots/sse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <curl/curl.h>

#include "common/time.h"

/* arbiterd's keep-alive comment comes every 15 s; four missed is a dead peer. */
#define SSE_STALL_S             60L
#define SSE_CONNECT_TIMEOUT_MS  3000L
/* An event arbiterd writes is a few hundred bytes; a line longer than this
 * is not from it. */
#define SSE_BUFFER_MAX          (1024u * 1024)
#define HTTP_OK                 200

struct sse {
        CURLM *multi;
        CURL *curl;
        struct curl_slist *headers;
        char *buf;                      /* received, not yet parsed */
        size_t len, cap;
        bool done;                      /* the transfer is over */
        int error;                      /* why, once done */
        /* the event handed out last (its strings) */
        char *id, *name, *data;
};

static size_t on_data(char *ptr, size_t size, size_t n, void *userdata) {
        struct sse *s = userdata;
        size_t add = size * n;

        if (s->len + add + 1 > s->cap) {
                size_t cap = s->cap ? s->cap : 4096;
                char *p;

                while (cap < s->len + add + 1)
                        cap *= 2;
                if (cap > SSE_BUFFER_MAX || !(p = realloc(s->buf, cap)))
                        return 0;
                s->buf = p;
                s->cap = cap;
        }
        memcpy(s->buf + s->len, ptr, add);
        s->len += add;
        s->buf[s->len] = '\0';
        return add;
}

int sse_open(const char *url, const char *token, struct sse **ret) {
        struct sse *s = calloc(1, sizeof *s);
        char *auth = NULL;

        if (!s)
                return -ENOMEM;
        s->multi = curl_multi_init();
        s->curl = curl_easy_init();
        s->headers = curl_slist_append(NULL, "Accept: text/event-stream");
        if (!s->multi || !s->curl || !s->headers)
                goto nomem;
        if (token) {
                struct curl_slist *h;

                if (asprintf(&auth, "Authorization: Bearer %s", token) < 0)
                        goto nomem;
                h = curl_slist_append(s->headers, auth);
                free(auth);
                if (!h)
                        goto nomem;
                s->headers = h;
        }
        curl_easy_setopt(s->curl, CURLOPT_URL, url);
        curl_easy_setopt(s->curl, CURLOPT_HTTPHEADER, s->headers);
        curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(s->curl, CURLOPT_FAILONERROR, 1L);
        curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT_MS, SSE_CONNECT_TIMEOUT_MS);
        curl_easy_setopt(s->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(s->curl, CURLOPT_LOW_SPEED_TIME, SSE_STALL_S);
        curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
        if (curl_multi_add_handle(s->multi, s->curl) != CURLM_OK)
                goto nomem;
        *ret = s;
        return 0;
nomem:
        sse_free(s);
        return -ENOMEM;
}

void sse_free(struct sse *s) {
        if (!s)
                return;
        if (s->multi && s->curl)
                curl_multi_remove_handle(s->multi, s->curl);
        if (s->curl)
                curl_easy_cleanup(s->curl);
        if (s->multi)
                curl_multi_cleanup(s->multi);
        curl_slist_free_all(s->headers);
        free(s->buf);
        free(s->id);
        free(s->name);
        free(s->data);
        free(s);
}

/* Appends line (len bytes) to *field, joined with '\n' when append. */
static int set_field(char **field, const char *v, size_t len, bool append) {
        size_t old = append && *field ? strlen(*field) : 0;
        char *p = realloc(append ? *field : NULL, old + (old ? 1 : 0) + len + 1);

        if (!p)
                return -ENOMEM;
        if (!append)
                free(*field);
        if (old)
                p[old++] = '\n';
        memcpy(p + old, v, len);
        p[old + len] = '\0';
        *field = p;
        return 0;
}

/* Parses one whole event off the front of the buffer: 1 with the fields
 * set, 0 when no whole event is there yet, -ENOMEM. */
static int parse_event(struct sse *s) {
        size_t pos = 0;
        bool any = false;

        free(s->id);
        free(s->name);
        free(s->data);
        s->id = s->name = s->data = NULL;
        for (;;) {
                char *nl = memchr(s->buf + pos, '\n', s->len - pos);
                size_t n;

                if (!nl)
                        return 0;               /* the event is not whole yet; parse again later */
                n = (size_t) (nl - (s->buf + pos));
                if (n > 0 && s->buf[pos + n - 1] == '\r')
                        n--;
                const char *line = s->buf + pos;
                pos = (size_t) (nl - s->buf) + 1;
                if (n == 0) {
                        /* the end of an event, or of comments and blank
                         * lines between events: consumed either way */
                        memmove(s->buf, s->buf + pos, s->len - pos);
                        s->len -= pos;
                        pos = 0;
                        if (any)
                                return 1;
                        continue;
                }
                const char *colon = memchr(line, ':', n);
                size_t klen = colon ? (size_t) (colon - line) : n;
                const char *v = colon ? colon + 1 : line + n;
                size_t vlen = n - (size_t) (v - line);
                int r = 0;

                if (vlen > 0 && *v == ' ') {
                        v++;
                        vlen--;
                }
                if (klen == 0)
                        continue;               /* a comment */
                if (klen == strlen("data") && memcmp(line, "data", klen) == 0)
                        r = set_field(&s->data, v, vlen, true);
                else if (klen == strlen("event") && memcmp(line, "event", klen) == 0)
                        r = set_field(&s->name, v, vlen, false);
                else if (klen == strlen("id") && memcmp(line, "id", klen) == 0)
                        r = set_field(&s->id, v, vlen, false);
                else
                        continue;               /* retry: and unknown fields */
                if (r < 0)
                        return r;
                any = true;
        }
}

static int result_errno(CURLcode c) {
        switch (c) {
        case CURLE_OK:
                return -EPIPE;
        case CURLE_COULDNT_CONNECT:
                return -ECONNREFUSED;
        case CURLE_HTTP_RETURNED_ERROR:
                return -EPROTO;
        default:
                return -EIO;
        }
}

/* Lets curl read what has arrived. */
static int transfer(struct sse *s) {
        int running = 0, left;
        CURLMsg *msg;

        if (!s->done && curl_multi_perform(s->multi, &running) != CURLM_OK)
                return -EIO;
        while ((msg = curl_multi_info_read(s->multi, &left)))
                if (msg->msg == CURLMSG_DONE) {
                        s->done = true;
                        s->error = result_errno(msg->data.result);
                }
        return 0;
}

/* Waits for curl's sockets until deadline: 0, or -ETIMEDOUT once it has
 * passed. */
static int wait_until(struct sse *s, int64_t deadline) {
        int64_t wait_us = deadline - now_usec();

        if (wait_us <= 0)
                return -ETIMEDOUT;
        if (curl_multi_poll(s->multi, NULL, 0, (int) ((wait_us + USEC_PER_MSEC - 1) / USEC_PER_MSEC), NULL) !=
            CURLM_OK)
                return -EIO;
        return 0;
}

int sse_wait_open(struct sse *s, int timeout_ms) {
        int64_t deadline = now_usec() + (int64_t) timeout_ms * USEC_PER_MSEC;

        for (;;) {
                long status = 0;
                int r = transfer(s);

                if (r < 0)
                        return r;
                curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
                if (s->done)
                        return s->error;
                if (status == HTTP_OK)
                        return 0;
                if ((r = wait_until(s, deadline)) < 0)
                        return r;
        }
}

int sse_next(struct sse *s, int timeout_ms, struct sse_event *ret) {
        int64_t deadline = now_usec() + (int64_t) timeout_ms * USEC_PER_MSEC;

        for (;;) {
                int r = transfer(s);

                if (r < 0)
                        return r;
                r = parse_event(s);
                if (r < 0)
                        return r;
                if (r > 0) {
                        ret->id = s->id ? s->id : "";
                        ret->name = s->name ? s->name : "message";
                        ret->data = s->data ? s->data : "";
                        return 1;
                }
                if (s->done)
                        return s->error;
                r = wait_until(s, deadline);
                if (r == -ETIMEDOUT)
                        return 0;
                if (r < 0)
                        return r;
        }
}

/* Whether s holds a whole event (or a comment) not handed out yet: a blank
 * line ends both. */
static bool has_whole(const struct sse *s) {
        return s->len && (memmem(s->buf, s->len, "\n\n", 2) || memmem(s->buf, s->len, "\n\r\n", 3));
}

int sse_wait_any(struct sse *const *v, size_t n, int timeout_ms) {
        int64_t deadline = now_usec() + (int64_t) timeout_ms * USEC_PER_MSEC;

        for (;;) {
                fd_set rd, wr, ex;
                int max_fd = -1;
                long wait_ms = -1;
                int64_t left;

                FD_ZERO(&rd);
                FD_ZERO(&wr);
                FD_ZERO(&ex);
                for (size_t i = 0; i < n; i++) {
                        long t = -1;
                        int fd = -1;

                        if (!v[i])
                                continue;
                        if (transfer(v[i]) < 0)
                                return -EIO;
                        if (v[i]->done || has_whole(v[i]))
                                return (int) i;
                        if (curl_multi_fdset(v[i]->multi, &rd, &wr, &ex, &fd) != CURLM_OK ||
                            curl_multi_timeout(v[i]->multi, &t) != CURLM_OK)
                                return -EIO;
                        if (fd > max_fd)
                                max_fd = fd;
                        if (t >= 0 && (wait_ms < 0 || t < wait_ms))
                                wait_ms = t;
                }
                left = deadline - now_usec();
                if (left <= 0)
                        return -ETIMEDOUT;
                if (wait_ms < 0 || wait_ms > (left + USEC_PER_MSEC - 1) / USEC_PER_MSEC)
                        wait_ms = (long) ((left + USEC_PER_MSEC - 1) / USEC_PER_MSEC);
                /* curl's advice when it has no socket to watch yet: wait a little */
                if (max_fd < 0 && wait_ms > 100)
                        wait_ms = 100;
                struct timeval tv = { .tv_sec = wait_ms / 1000, .tv_usec = (wait_ms % 1000) * 1000 };
                if (select(max_fd + 1, &rd, &wr, &ex, &tv) < 0 && errno != EINTR)
                        return -EIO;
        }
}
