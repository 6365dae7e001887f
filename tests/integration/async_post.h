/* tests/integration/async_post.h — a POST on a thread of its own, so that
 * the test's main thread can do other things (stop the database, ask
 * /v1/health) while the daemon holds the request.  Plain libcurl: cmocka's
 * checks belong to the main thread, which reads the outcome after
 * async_post_join(). */
#ifndef ARBITER_TESTS_ASYNC_POST_H
#define ARBITER_TESTS_ASYNC_POST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct async_post {
        char url[256], auth[256];
        const char *body;               /* borrowed until joined */
        long status;                    /* 0: no reply (connection failed or timed out) */
        char reply[4096];
        size_t len;
        atomic_bool done;
        pthread_t thread;
};

/* POSTs body (JSON) to base_url + path with a bearer token (may be NULL). */
void async_post_start(struct async_post *q, const char *base_url, const char *path, const char *token,
                      const char *body);
void async_post_join(struct async_post *q);

#endif
