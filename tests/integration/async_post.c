/* tests/integration/async_post.c — see async_post.h. */
#include "tests/integration/async_post.h"

#include <stdio.h>
#include <string.h>
#include <curl/curl.h>

#include "tests/integration/harness.h"

static size_t on_reply(char *p, size_t size, size_t n, void *userdata) {
        struct async_post *q = userdata;
        size_t take = size * n < sizeof q->reply - 1 - q->len ? size * n : sizeof q->reply - 1 - q->len;

        memcpy(q->reply + q->len, p, take);
        q->len += take;
        q->reply[q->len] = '\0';
        return size * n;
}

static void *post_thread(void *userdata) {
        struct async_post *q = userdata;
        CURL *c = curl_easy_init();
        struct curl_slist *h = NULL;

        if (q->auth[0])
                h = curl_slist_append(h, q->auth);
        h = curl_slist_append(h, "Content-Type: application/json");
        h = curl_slist_append(h, "Expect:");
        curl_easy_setopt(c, CURLOPT_URL, q->url);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_reply);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, q);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) HARNESS_WAIT_MS);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        if (curl_easy_perform(c) == CURLE_OK)
                curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &q->status);
        curl_slist_free_all(h);
        curl_easy_cleanup(c);
        atomic_store(&q->done, true);
        return NULL;
}

void async_post_start(struct async_post *q, const char *base_url, const char *path, const char *token,
                      const char *body) {
        memset(q, 0, sizeof *q);
        snprintf(q->url, sizeof q->url, "%s%s", base_url, path);
        if (token)
                snprintf(q->auth, sizeof q->auth, "Authorization: Bearer %s", token);
        q->body = body;
        assert_int_equal(pthread_create(&q->thread, NULL, post_thread, q), 0);
}

void async_post_join(struct async_post *q) {
        pthread_join(q->thread, NULL);
}
