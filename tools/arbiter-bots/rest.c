/* tools/arbiter-bots/rest.c — see rest.h. */
#define _GNU_SOURCE
#include "tools/arbiter-bots/rest.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

/* A local daemon answers in milliseconds; this only stops a hang. */
#define REST_TIMEOUT_MS         10000L
#define REST_CONNECT_TIMEOUT_MS 3000L
/* A reply larger than this is not one arbiterd sends to these requests. */
#define REST_REPLY_MAX          (4u * 1024 * 1024)

struct rest {
        CURL *curl;
        char *url;
        char *token;
        struct curl_slist *headers;
};

struct reply {
        char *data;
        size_t len;
        bool too_big;
};

static size_t on_data(char *ptr, size_t size, size_t n, void *userdata) {
        struct reply *b = userdata;
        size_t add = size * n;
        char *p;

        if (b->len + add > REST_REPLY_MAX) {
                b->too_big = true;
                return 0;
        }
        p = realloc(b->data, b->len + add + 1);
        if (!p)
                return 0;
        memcpy(p + b->len, ptr, add);
        b->data = p;
        b->len += add;
        b->data[b->len] = '\0';
        return add;
}

int rest_new(const char *url, const char *token, struct rest **ret) {
        struct rest *r = calloc(1, sizeof *r);

        if (!r)
                return -ENOMEM;
        r->curl = curl_easy_init();
        r->url = strdup(url);
        r->headers = curl_slist_append(NULL, "Content-Type: application/json");
        if (!r->curl || !r->url || !r->headers)
                goto nomem;
        if (token) {
                struct curl_slist *h;
                char *auth;

                r->token = strdup(token);
                if (!r->token || asprintf(&auth, "Authorization: Bearer %s", token) < 0)
                        goto nomem;
                h = curl_slist_append(r->headers, auth);
                free(auth);
                if (!h)
                        goto nomem;
                r->headers = h;
        }
        *ret = r;
        return 0;
nomem:
        rest_free(r);
        return -ENOMEM;
}

void rest_free(struct rest *r) {
        if (!r)
                return;
        if (r->curl)
                curl_easy_cleanup(r->curl);
        curl_slist_free_all(r->headers);
        free(r->url);
        free(r->token);
        free(r);
}

const char *rest_url(const struct rest *r) {
        return r->url;
}

const char *rest_token(const struct rest *r) {
        return r->token;
}

static int errno_of(CURLcode c) {
        switch (c) {
        case CURLE_COULDNT_CONNECT:
                return -ECONNREFUSED;
        case CURLE_OPERATION_TIMEDOUT:
                return -ETIMEDOUT;
        case CURLE_OUT_OF_MEMORY:
                return -ENOMEM;
        default:
                return -EIO;
        }
}

static int request(struct rest *r, const char *method, const char *path, json_t *body, json_t **ret_json) {
        struct reply b = { 0 };
        char *url = NULL, *text = NULL;
        long status = 0;
        CURLcode c;

        *ret_json = NULL;
        if (asprintf(&url, "%s%s", r->url, path) < 0)
                return -ENOMEM;
        if (body && !(text = json_dumps(body, JSON_COMPACT))) {
                free(url);
                return -ENOMEM;
        }
        curl_easy_reset(r->curl);
        curl_easy_setopt(r->curl, CURLOPT_URL, url);
        curl_easy_setopt(r->curl, CURLOPT_HTTPHEADER, r->headers);
        curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(r->curl, CURLOPT_TIMEOUT_MS, REST_TIMEOUT_MS);
        curl_easy_setopt(r->curl, CURLOPT_CONNECTTIMEOUT_MS, REST_CONNECT_TIMEOUT_MS);
        curl_easy_setopt(r->curl, CURLOPT_NOSIGNAL, 1L);
        if (strcmp(method, "POST") == 0) {
                curl_easy_setopt(r->curl, CURLOPT_POST, 1L);
                curl_easy_setopt(r->curl, CURLOPT_POSTFIELDS, text ? text : "");
        }
        c = curl_easy_perform(r->curl);
        free(url);
        free(text);
        if (c != CURLE_OK) {
                free(b.data);
                return b.too_big ? -EMSGSIZE : errno_of(c);
        }
        curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
        if (b.data)
                *ret_json = json_loads(b.data, 0, NULL);
        free(b.data);
        return (int) status;
}

int rest_get(struct rest *r, const char *path, json_t **ret_json) {
        return request(r, "GET", path, NULL, ret_json);
}

int rest_post(struct rest *r, const char *path, json_t *body, json_t **ret_json) {
        return request(r, "POST", path, body, ret_json);
}

const char *rest_problem(json_t *reply) {
        const char *d = json_string_value(json_object_get(reply, "detail"));

        return d ? d : "";
}
