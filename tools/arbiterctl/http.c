/* tools/arbiterctl/http.c — see http.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/arbiterctl/http.h"

/* The largest reply body kept: far above any list arbiterd sends (a page is
 * at most HTTP_PAGE_MAX items of a few hundred bytes), low enough that a
 * wrong --url pointing at a file server cannot eat the memory. */
#define HTTP_REPLY_MAX (64u * 1024 * 1024)
/* A message line quotes at most this much of a body that is not JSON. */
#define HTTP_QUOTE_MAX 200
/* A reply buffer's first size: most replies fit a page. */
#define HTTP_BUFFER_INITIAL 4096
#define HTTP_STATUS_OK_MIN 200
#define HTTP_STATUS_OK_MAX 299

/* A GET answered 503 with Retry-After (a season's ratings being computed,
 * the database's queue full) is asked again after that long, as HTTP says,
 * at most this many times and within --timeout in all; a longer wait than
 * this is not waited for. */
#define HTTP_RETRIES            5
#define HTTP_RETRY_AFTER_MAX_S  10
#define HTTP_STATUS_UNAVAILABLE 503

struct buffer {
        char *data;
        size_t len, cap;
        bool too_big;
};

int http_init(void) {
        return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -ENOMEM;
}

void http_cleanup(void) {
        curl_global_cleanup();
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
        struct buffer *b = userdata;
        size_t n = size * nmemb;

        if (b->len + n + 1 > HTTP_REPLY_MAX) {
                b->too_big = true;
                return 0;               /* libcurl stops with CURLE_WRITE_ERROR */
        }
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : HTTP_BUFFER_INITIAL;
                while (cap < b->len + n + 1)
                        cap *= 2;
                char *d = realloc(b->data, cap);
                if (!d)
                        return 0;
                b->data = d;
                b->cap = cap;
        }
        memcpy(b->data + b->len, ptr, n);
        b->len += n;
        b->data[b->len] = '\0';
        return n;
}

int http_status_exit(long status) {
        switch (status) {
        case 404:
                return CTL_EXIT_NOT_FOUND;
        case 409:
                return CTL_EXIT_CONFLICT;
        case 401:
        case 403:
                return CTL_EXIT_AUTH;
        default:
                return CTL_EXIT_ERROR;
        }
}

int http_curl_exit(CURLcode code) {
        switch (code) {
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_COULDNT_CONNECT:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_SSL_CONNECT_ERROR:
                return CTL_EXIT_CONNECTION;
        case CURLE_URL_MALFORMAT:
        case CURLE_UNSUPPORTED_PROTOCOL:
                return CTL_EXIT_USAGE;
        default:
                return CTL_EXIT_ERROR;
        }
}

/* Appends text to a message, turning line breaks into blanks so that the
 * message stays one line. */
static void append(char *msg, size_t size, const char *text, size_t max) {
        size_t len = strlen(msg);

        for (size_t i = 0; text[i] && i < max && len + 1 < size; i++)
                msg[len++] = text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
        msg[len] = '\0';
}

void http_report(const struct ctl *c, long status, const char *body, const json_t *json) {
        char msg[2048] = "";
        const char *title = json_string_value(json_object_get(json, "title"));
        const char *detail = json_string_value(json_object_get(json, "detail"));
        json_t *matches = json_object_get(json, "matches"), *params = json_object_get(json, "invalid-params"), *v;
        size_t i;

        snprintf(msg, sizeof msg, "%ld %s", status, title ? title : "error");
        if (detail) {
                append(msg, sizeof msg, ": ", SIZE_MAX);
                append(msg, sizeof msg, detail, SIZE_MAX);
        } else if (body && *body && !json) {
                append(msg, sizeof msg, ": ", SIZE_MAX);
                append(msg, sizeof msg, body, HTTP_QUOTE_MAX);
        }
        /* RFC 9457 section 3's example extension: one entry per bad field. */
        json_array_foreach(params, i, v) {
                const char *name = json_string_value(json_object_get(v, "name"));
                const char *reason = json_string_value(json_object_get(v, "reason"));
                append(msg, sizeof msg, "; ", SIZE_MAX);
                append(msg, sizeof msg, name ? name : "?", SIZE_MAX);
                append(msg, sizeof msg, ": ", SIZE_MAX);
                append(msg, sizeof msg, reason ? reason : "invalid", SIZE_MAX);
        }
        /* A 409 of rounds and corrections lists the matches in the way. */
        if (json_array_size(matches) > 0) {
                append(msg, sizeof msg, " (matches:", SIZE_MAX);
                json_array_foreach(matches, i, v) {
                        char n[32];
                        snprintf(n, sizeof n, "%s %lld", i ? "," : "", (long long) json_integer_value(v));
                        append(msg, sizeof msg, n, SIZE_MAX);
                }
                append(msg, sizeof msg, ")", SIZE_MAX);
        }
        if (status == 401 && !c->token)
                append(msg, sizeof msg, " (no token given: use --token-file FILE, --token or $ARBITER_TOKEN)",
                       SIZE_MAX);
        ctl_fail(http_status_exit(status), "%s", msg);
}

int http_setup(const struct ctl *c, CURL *easy, const char *url, struct curl_slist **headers) {
        curl_easy_setopt(easy, CURLOPT_URL, url);
        /* Only the web: a --url of file:// or anything else is a mistake. */
        curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, (long) CTL_CONNECT_TIMEOUT_MS);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_USERAGENT, CTL_PROGRAM "/" ARBITER_VERSION);
        if (c->token) {
                char *h;
                if (asprintf(&h, "Authorization: Bearer %s", c->token) < 0)
                        return -ENOMEM;
                struct curl_slist *l = curl_slist_append(*headers, h);
                /* the header held the token: wipe it before freeing */
                memset(h, 0, strlen(h));
                free(h);
                if (!l)
                        return -ENOMEM;
                *headers = l;
        }
        return 0;
}

int http_call(struct ctl *c, const char *method, const char *path, json_t *body, struct http_reply *ret) {
        char url[CTL_URL_MAX + HTTP_PATH_MAX], errbuf[CURL_ERROR_SIZE] = "";
        struct buffer b = { 0 };
        struct curl_slist *headers = NULL, *l;
        char *text = NULL;
        const char *ct = NULL;
        CURLcode code;
        CURL *easy;
        int status = CTL_EXIT_ERROR;

        memset(ret, 0, sizeof *ret);
        snprintf(url, sizeof url, "%s%s", c->url, path);
        easy = curl_easy_init();
        if (!easy)
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        if (http_setup(c, easy, url, &headers) < 0)
                goto oom;
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT, c->timeout_s);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &b);
        /* libcurl would wait for a "100 Continue" that arbiterd never sends. */
        l = curl_slist_append(headers, "Expect:");
        if (!l)
                goto oom;
        headers = l;
        if (strcmp(method, "GET") != 0) {
                if (body) {
                        text = json_dumps(body, JSON_COMPACT);
                        if (!text)
                                goto oom;
                        l = curl_slist_append(headers, "Content-Type: application/json");
                } else {
                        /* no body at all: no content type either (a POST would
                         * otherwise say form data) */
                        l = curl_slist_append(headers, "Content-Type:");
                }
                if (!l)
                        goto oom;
                headers = l;
                curl_easy_setopt(easy, CURLOPT_POSTFIELDS, text ? text : "");
                curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, (long) (text ? strlen(text) : 0));
                if (strcmp(method, "POST") != 0)
                        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
        }
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);

        for (int attempt = 0, waited = 0;; attempt++) {
                curl_off_t after = 0;
                long st = 0;

                code = curl_easy_perform(easy);
                if (code != CURLE_OK || strcmp(method, "GET") != 0)
                        break;
                curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &st);
                curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &after);
                if (st != HTTP_STATUS_UNAVAILABLE || after < 1 || after > HTTP_RETRY_AFTER_MAX_S ||
                    attempt >= HTTP_RETRIES || waited + after > c->timeout_s)
                        break;
                fprintf(stderr, "arbiterctl: GET %s: not ready yet (503); asking again in %ld s, as the "
                        "daemon says (Retry-After)\n", path, (long) after);
                sleep((unsigned) after);
                waited += (int) after;
                free(b.data);
                b = (struct buffer) { 0 };
        }
        if (code != CURLE_OK) {
                if (b.too_big)
                        status = ctl_fail(CTL_EXIT_ERROR, "%s %s: the reply is larger than %u bytes", method, path,
                                          HTTP_REPLY_MAX);
                else if (code == CURLE_OPERATION_TIMEDOUT)
                        status = ctl_fail(CTL_EXIT_CONNECTION, "%s %s: no answer from %s within %ld s (--timeout)",
                                          method, path, c->url, c->timeout_s);
                else
                        status = ctl_fail(http_curl_exit(code), "cannot reach %s: %s%s", c->url,
                                          *errbuf ? errbuf : curl_easy_strerror(code),
                                          http_curl_exit(code) == CTL_EXIT_CONNECTION
                                                  ? " (is arbiterd running there? set --url or $ARBITER_URL)"
                                                  : "");
                goto done;
        }
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &ret->status);
        curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &ct);
        snprintf(ret->content_type, sizeof ret->content_type, "%s", ct ? ct : "");
        ret->body = b.data ? b.data : strdup("");
        ret->len = b.len;
        b.data = NULL;
        if (!ret->body)
                goto oom;
        if (strstr(ret->content_type, "json"))
                ret->json = json_loadb(ret->body, ret->len, 0, NULL);
        if (ret->status >= HTTP_STATUS_OK_MIN && ret->status <= HTTP_STATUS_OK_MAX) {
                status = CTL_EXIT_OK;
                goto done;
        }
        http_report(c, ret->status, ret->body, ret->json);
        status = http_status_exit(ret->status);
        http_reply_free(ret);
        goto done;

oom:
        status = ctl_fail(CTL_EXIT_ERROR, "out of memory");
        http_reply_free(ret);
done:
        free(b.data);
        free(text);
        curl_slist_free_all(headers);
        curl_easy_cleanup(easy);
        return status;
}

int http_send_json(struct ctl *c, const char *method, const char *path, json_t *body, json_t **ret_json) {
        struct http_reply r;
        int st = http_call(c, method, path, body, &r);

        if (st != CTL_EXIT_OK)
                return st;
        if (!r.json) {
                http_reply_free(&r);
                return ctl_fail(CTL_EXIT_ERROR, "%s %s: the reply is not JSON (is %s arbiterd?)", method, path, c->url);
        }
        *ret_json = json_incref(r.json);
        http_reply_free(&r);
        return CTL_EXIT_OK;
}

int http_get_json(struct ctl *c, const char *path, json_t **ret_json) {
        return http_send_json(c, "GET", path, NULL, ret_json);
}

int http_get_all(struct ctl *c, const char *path, long long limit, long long after, json_t **ret_items) {
        char page_path[HTTP_PATH_MAX];
        const char *sep = strchr(path, '?') ? "&" : "?";
        json_t *all = json_array(), *page = NULL;
        bool one_page = limit > 0;
        int st;

        if (!all)
                return ctl_fail(CTL_EXIT_ERROR, "out of memory");
        for (;;) {
                long long want = one_page ? limit : HTTP_PAGE_MAX;
                if (http_path(page_path, "%s%slimit=%lld&after=%lld", path, sep, want, after) < 0) {
                        json_decref(all);
                        return ctl_fail(CTL_EXIT_USAGE, "%s: the path is too long", path);
                }
                st = http_get_json(c, page_path, &page);
                if (st != CTL_EXIT_OK) {
                        json_decref(all);
                        return st;
                }
                json_t *items = json_object_get(page, "items"), *next = json_object_get(page, "next");
                if (!json_is_array(items)) {
                        json_decref(page);
                        json_decref(all);
                        return ctl_fail(CTL_EXIT_ERROR, "GET %s: the reply has no items", path);
                }
                json_array_extend(all, items);
                bool last = one_page || json_array_size(items) < (size_t) want || !json_is_integer(next);
                after = json_integer_value(next);
                json_decref(page);
                if (last)
                        break;
        }
        *ret_items = all;
        return CTL_EXIT_OK;
}

void http_reply_free(struct http_reply *r) {
        free(r->body);
        json_decref(r->json);
        memset(r, 0, sizeof *r);
}

char *http_escape(const char *segment) {
        char *e = curl_easy_escape(NULL, segment, 0), *copy;

        if (!e)
                return NULL;
        copy = strdup(e);
        curl_free(e);
        return copy;
}

int http_path(char *buf, const char *fmt, ...) {
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf, HTTP_PATH_MAX, fmt, ap);
        va_end(ap);
        return n < 0 || n >= HTTP_PATH_MAX ? -ENAMETOOLONG : 0;
}

int http_query(char *path, const char *key, const char *value) {
        size_t len = strlen(path);
        char *e;
        int n;

        if (!value)
                return 0;
        e = http_escape(value);
        if (!e)
                return -ENOMEM;
        n = snprintf(path + len, HTTP_PATH_MAX - len, "%s%s=%s", strchr(path, '?') ? "&" : "?", key, e);
        free(e);
        return n < 0 || (size_t) n >= HTTP_PATH_MAX - len ? -ENAMETOOLONG : 0;
}
