/* tools/arbiterctl/watch.c — see watch.h. */
#include <errno.h>
#include <float.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "tools/arbiterctl/describe.h"
#include "tools/arbiterctl/output.h"
#include "tools/arbiterctl/watch.h"

/* How long one curl_multi_poll() may sleep: libcurl's own timers are
 * honoured inside it, the signalfd wakes it; this only bounds a wait. */
#define WATCH_POLL_MS 1000
/* An error reply's body kept for its message. */
#define WATCH_ERROR_BODY_MAX 8192
#define HTTP_OK 200
#define HTTP_SERVER_ERROR 500

enum outcome {
        OUTCOME_STOP,                   /* a signal, or --count reached */
        OUTCOME_ENDED,                  /* the stream ended or broke after it opened */
        OUTCOME_UNREACHABLE,            /* no connection, or it broke before any event byte */
        OUTCOME_HTTP_ERROR,             /* a status other than 200 */
        OUTCOME_FAILED,                 /* out of memory, a malformed stream */
};

struct watch {
        struct ctl *c;
        const struct watch_options *o;
        CURL *easy;
        struct sse_parser parser;
        char url[CTL_URL_MAX + HTTP_PATH_MAX];
        int sfd;
        bool opened;                    /* this connection answered 200 */
        bool ever_opened;
        bool stop;
        long long printed;
        char error_body[WATCH_ERROR_BODY_MAX];
        size_t error_len;
        CURLcode result;
        long status;                    /* the HTTP status of the last attempt, 0: none */
        char errbuf[CURL_ERROR_SIZE];
};

static void print_event(struct watch *w, const struct sse_event *ev) {
        json_t *data = json_loads(ev->data, JSON_DECODE_ANY, NULL);

        if (w->c->json) {
                /* data that is not JSON goes as a string */
                json_t *line = json_pack("{s:s, s:s, s:o}", "id", ev->id, "event", ev->name, "data",
                                         data ? json_incref(data) : json_string(ev->data));
                char *text = line ? json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(DBL_DIG)) : NULL;
                if (text)
                        printf("%s\n", text);
                free(text);
                json_decref(line);
        } else {
                char when[16] = "--:--:--", where[64], what[OUT_CELL_MAX];
                time_t now = time(NULL);
                struct tm tm;
                if (localtime_r(&now, &tm))
                        strftime(when, sizeof when, "%H:%M:%S", &tm);
                describe_context(data, where, sizeof where);
                describe_event(ev->name, data, what, sizeof what);
                printf("%s  %-14s  %-20s  %s\n", when, where, ev->name, what);
        }
        json_decref(data);
}

static int on_event(const struct sse_event *ev, void *userdata) {
        struct watch *w = userdata;

        print_event(w, ev);
        w->printed++;
        if (w->o->count > 0 && w->printed >= w->o->count) {
                w->stop = true;
                return 1;
        }
        return 0;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct watch *w = userdata;
        size_t n = size * nmemb;
        long status = 0;

        curl_easy_getinfo(w->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status != HTTP_OK) {
                size_t room = sizeof w->error_body - 1 - w->error_len;
                size_t k = n < room ? n : room;
                memcpy(w->error_body + w->error_len, ptr, k);
                w->error_len += k;
                w->error_body[w->error_len] = '\0';
                return n;
        }
        if (!w->opened) {
                w->opened = true;
                if (w->ever_opened)
                        fprintf(stderr, CTL_PROGRAM ": reconnected to %s%s%s\n", w->url,
                                w->parser.id[0] ? ", resuming after " : "", w->parser.id);
                else
                        fprintf(stderr, CTL_PROGRAM ": watching %s (Ctrl-C to stop)\n", w->url);
                w->ever_opened = true;
        }
        int r = sse_feed(&w->parser, ptr, n, on_event, w);
        if (r < 0) {
                ctl_fail(CTL_EXIT_ERROR, "the event stream is malformed: %s", strerror(-r));
                return 0;
        }
        return r == 0 ? n : 0;          /* 0: libcurl stops the transfer */
}

/* Drains the signalfd; true when SIGINT or SIGTERM arrived. */
static bool signalled(int sfd) {
        struct signalfd_siginfo si;
        bool any = false;

        while (read(sfd, &si, sizeof si) == (ssize_t) sizeof si)
                any = true;
        return any;
}

/* One connection, until it ends, breaks, or the watch stops. */
static enum outcome stream_once(struct watch *w) {
        struct curl_slist *headers = NULL, *l;
        char last[SSE_ID_MAX + 32];
        enum outcome out = OUTCOME_FAILED;
        CURLM *multi = NULL;
        int running = 1;

        w->opened = false;
        w->status = 0;
        w->error_len = 0;
        w->error_body[0] = '\0';
        w->errbuf[0] = '\0';
        w->result = CURLE_OK;
        sse_parser_restart(&w->parser);
        w->easy = curl_easy_init();
        multi = curl_multi_init();
        if (!w->easy || !multi || http_setup(w->c, w->easy, w->url, &headers) < 0)
                goto oom;
        l = curl_slist_append(headers, "Accept: text/event-stream");
        if (!l)
                goto oom;
        headers = l;
        if (w->parser.id[0]) {
                snprintf(last, sizeof last, "Last-Event-ID: %s", w->parser.id);
                l = curl_slist_append(headers, last);
                if (!l)
                        goto oom;
                headers = l;
        }
        curl_easy_setopt(w->easy, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
        curl_easy_setopt(w->easy, CURLOPT_ERRORBUFFER, w->errbuf);
        curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(w->easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(w->easy, CURLOPT_LOW_SPEED_TIME, (long) WATCH_STALL_S);
        if (curl_multi_add_handle(multi, w->easy) != CURLM_OK)
                goto oom;

        while (running && !w->stop) {
                struct curl_waitfd sig = { .fd = w->sfd, .events = CURL_WAIT_POLLIN };
                CURLMsg *msg;
                int left;

                if (curl_multi_perform(multi, &running) != CURLM_OK)
                        goto oom;
                while ((msg = curl_multi_info_read(multi, &left)))
                        if (msg->msg == CURLMSG_DONE)
                                w->result = msg->data.result;
                if (!running || w->stop)
                        break;
                if (curl_multi_poll(multi, &sig, 1, WATCH_POLL_MS, NULL) != CURLM_OK)
                        goto oom;
                if (signalled(w->sfd))
                        w->stop = true;
        }
        if (w->stop) {
                out = OUTCOME_STOP;
        } else {
                curl_easy_getinfo(w->easy, CURLINFO_RESPONSE_CODE, &w->status);
                if (w->status != 0 && w->status != HTTP_OK)
                        out = OUTCOME_HTTP_ERROR;
                else if (w->result == CURLE_WRITE_ERROR)
                        out = OUTCOME_FAILED;   /* the parser said why */
                else
                        out = w->opened ? OUTCOME_ENDED : OUTCOME_UNREACHABLE;
        }
        goto done;
oom:
        /* libcurl fails these only when it cannot allocate */
        ctl_fail(CTL_EXIT_ERROR, "out of memory");
done:
        if (multi && w->easy)
                curl_multi_remove_handle(multi, w->easy);
        curl_multi_cleanup(multi);
        curl_easy_cleanup(w->easy);
        w->easy = NULL;
        curl_slist_free_all(headers);
        return out;
}

/* Sleeps ms, or until a signal: true when one came. */
static bool wait_or_signal(int sfd, long ms) {
        struct pollfd p = { .fd = sfd, .events = POLLIN };
        int r = poll(&p, 1, ms > INT32_MAX ? INT32_MAX : (int) ms);

        return r > 0 && signalled(sfd);
}

static const char *why(const struct watch *w) {
        if (w->errbuf[0])
                return w->errbuf;
        if (w->result != CURLE_OK)
                return curl_easy_strerror(w->result);
        return "the server closed the stream";
}

int watch_run(struct ctl *c, const struct watch_options *o) {
        struct watch w = { .c = c, .o = o, .sfd = -1 };
        sigset_t mask;
        int status = CTL_EXIT_OK;

        setvbuf(stdout, NULL, _IOLBF, 0);
        sse_parser_init(&w.parser);
        snprintf(w.parser.id, sizeof w.parser.id, "%s", o->last_id);
        snprintf(w.url, sizeof w.url, "%s%s", c->url, o->path);
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
            (w.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
                return ctl_fail(CTL_EXIT_ERROR, "cannot watch for Ctrl-C: %s", strerror(errno));

        for (;;) {
                enum outcome out = stream_once(&w);
                long retry = w.parser.retry_ms >= 0 ? w.parser.retry_ms : WATCH_RETRY_MS;

                if (out == OUTCOME_STOP)
                        break;
                if (out == OUTCOME_FAILED) {
                        status = CTL_EXIT_ERROR;
                        break;
                }
                /* Before the first stream every failure is final; after it a
                 * 5xx or a refused connection is a daemon restarting. */
                if (out == OUTCOME_HTTP_ERROR && (!w.ever_opened || w.status < HTTP_SERVER_ERROR)) {
                        json_t *j = json_loads(w.error_body, 0, NULL);
                        http_report(c, w.status, w.error_body, j);
                        json_decref(j);
                        status = http_status_exit(w.status);
                        break;
                }
                if (out == OUTCOME_UNREACHABLE && !w.ever_opened) {
                        status = ctl_fail(http_curl_exit(w.result) == CTL_EXIT_USAGE ? CTL_EXIT_USAGE
                                                                                     : CTL_EXIT_CONNECTION,
                                          "cannot reach %s: %s (is arbiterd running there? set --url or "
                                          "$ARBITER_URL)", c->url, why(&w));
                        break;
                }
                if (out == OUTCOME_ENDED)
                        fprintf(stderr, CTL_PROGRAM ": connection lost (%s); reconnecting every %ld ms\n", why(&w),
                                retry);
                if (wait_or_signal(w.sfd, retry))
                        break;
        }
        sse_parser_free(&w.parser);
        close(w.sfd);
        return status;
}
