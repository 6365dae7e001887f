/* store/spool_writer.c — see spool_writer.h.
 *
 * Two lists under one mutex: queued (loop → worker, waited on with a
 * condition variable) and done (worker → loop, announced by writing the
 * eventfd).  The worker holds the mutex only to move a job between them,
 * never across a write or an fdatasync.
 */
#include "store/spool_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "store/spool.h"

struct job {
        struct job *next;
        bool cut;                       /* cut the file to zero, not a frame */
        struct spool_frame frame;
        int r;
        spool_written_fn fn;
        void *userdata;
};

struct list {
        struct job *head, **tail;
};

struct spool_writer {
        struct loop *loop;
        struct spool *spool;
        int efd;
        struct event *ev;
        pthread_t thread;
        bool started;

        pthread_mutex_t lock;
        pthread_cond_t wake;
        struct list queued, done;       /* under lock */
        bool stop;                      /* under lock */
        bool failed;                    /* the worker's own: a write failed */
        size_t pending;                 /* loop thread: appended, callback not run */
};

static void list_init(struct list *l) {
        l->head = NULL;
        l->tail = &l->head;
}

static void list_push(struct list *l, struct job *j) {
        j->next = NULL;
        *l->tail = j;
        l->tail = &j->next;
}

static struct job *list_take_all(struct list *l) {
        struct job *all = l->head;
        list_init(l);
        return all;
}

/* Wakes the loop thread.  An eventfd write fails only when its counter
 * would overflow (EAGAIN), which one per record cannot reach, and then the
 * loop is awake anyway. */
static void wake_loop(int efd) {
        uint64_t one = 1;

        while (write(efd, &one, sizeof one) < 0 && errno == EINTR)
                ;
}

static void *worker(void *userdata) {
        struct spool_writer *w = userdata;

        pthread_mutex_lock(&w->lock);
        for (;;) {
                struct job *j;

                while (!w->queued.head && !w->stop)
                        pthread_cond_wait(&w->wake, &w->lock);
                j = w->queued.head;
                if (!j)
                        break;          /* stopping, and nothing left to write */
                w->queued.head = j->next;
                if (!w->queued.head)
                        w->queued.tail = &w->queued.head;
                pthread_mutex_unlock(&w->lock);

                j->r = w->failed ? -EIO : j->cut ? spool_truncate_file(w->spool)
                                                 : spool_write_frame(w->spool, &j->frame);
                if (j->r < 0)
                        w->failed = true;

                pthread_mutex_lock(&w->lock);
                list_push(&w->done, j);
                wake_loop(w->efd);
        }
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

/* Commits finished records and runs their callbacks, in order. */
static void complete(struct spool_writer *w) {
        struct job *j, *next;

        pthread_mutex_lock(&w->lock);
        j = list_take_all(&w->done);
        pthread_mutex_unlock(&w->lock);
        for (; j; j = next) {
                int r;

                next = j->next;
                r = j->cut ? spool_truncate_end(w->spool, j->r) : spool_commit(w->spool, &j->frame, j->r);
                w->pending--;
                j->fn(j->userdata, r);
                free(j);
        }
}

static void on_done(evutil_socket_t fd, short what, void *userdata) {
        uint64_t n;

        (void) what;
        if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN)
                log_warning("spool writer: reading its eventfd failed: %s", strerror(errno));
        complete(userdata);
}

int spool_writer_new(struct loop *loop, struct spool *spool, struct spool_writer **ret) {
        struct spool_writer *w = calloc(1, sizeof *w);
        int r;

        if (!w)
                return -ENOMEM;
        w->efd = -1;
        w->loop = loop;
        w->spool = spool;
        list_init(&w->queued);
        list_init(&w->done);
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->wake, NULL);
        w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (w->efd < 0) {
                r = -errno;
                goto fail;
        }
        w->ev = event_new(loop_base(loop), w->efd, EV_READ | EV_PERSIST, on_done, w);
        if (!w->ev) {
                r = -ENOMEM;
                goto fail;
        }
        /* The path from a press to its ACK runs through here. */
        loop_set_urgent(w->ev);
        if (event_add(w->ev, NULL) < 0) {
                r = -ENOMEM;
                goto fail;
        }
        r = -pthread_create(&w->thread, NULL, worker, w);
        if (r < 0)
                goto fail;
        w->started = true;
        *ret = w;
        return 0;
fail:
        spool_writer_free(w);
        return r;
}

void spool_writer_free(struct spool_writer *w) {
        if (!w)
                return;
        if (w->started) {
                pthread_mutex_lock(&w->lock);
                w->stop = true;
                pthread_cond_signal(&w->wake);
                pthread_mutex_unlock(&w->lock);
                pthread_join(w->thread, NULL);
                complete(w);
        }
        if (w->ev)
                event_free(w->ev);
        if (w->efd >= 0)
                close(w->efd);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
}

static void give(struct spool_writer *w, struct job *j, spool_written_fn fn, void *userdata) {
        j->fn = fn;
        j->userdata = userdata;
        w->pending++;
        pthread_mutex_lock(&w->lock);
        list_push(&w->queued, j);
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
}

int spool_writer_append(struct spool_writer *w, const void *data, size_t len, spool_written_fn fn,
                        void *userdata) {
        struct job *j = calloc(1, sizeof *j);
        int r;

        if (!j)
                return -ENOMEM;
        r = spool_reserve(w->spool, data, len, &j->frame);
        if (r < 0) {
                free(j);
                return r;
        }
        give(w, j, fn, userdata);
        return 0;
}

int spool_writer_truncate(struct spool_writer *w, spool_written_fn fn, void *userdata) {
        struct job *j;

        if (!spool_may_truncate(w->spool))
                return -EALREADY;
        j = calloc(1, sizeof *j);
        if (!j)
                return -ENOMEM;
        j->cut = true;
        spool_truncate_begin(w->spool);
        give(w, j, fn, userdata);
        return 0;
}

size_t spool_writer_pending(const struct spool_writer *w) {
        return w ? w->pending : 0;
}
