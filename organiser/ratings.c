/* organiser/ratings.c — see ratings.h: the loop's side of the rating
 * worker, and its thread.
 *
 * Between the loop thread and the worker, under one mutex: the jobs
 * waiting (one per game, work merged into it as it arrives; loop → worker,
 * waited on with a condition variable) and the outcomes (worker → loop,
 * announced by writing an eventfd the loop watches, as
 * store/spool_writer.c does).  The worker holds the mutex only to take the
 * jobs and to hand back an outcome, never across a statement.  It alone
 * opens and closes its connection; the loop thread reaches it only to
 * cancel a statement at shutdown, under the mutex.
 *
 * The worker's loop:
 *
 *     wait for jobs ──take all──> connected? ──no──> connect ──fails──> put them back,
 *          ^                         │yes                                back off, wait
 *          │                         v
 *          │                    holds the lock? ──no──> take it ──another holds it──> standby:
 *          │                         │yes                 │taken: every game checked  pass on what
 *          │                         v                    v                           was asked here,
 *          └──── outcomes to the loop <── each job: rw_process()                       drop the rest,
 *                                             └─ connection lost: put it back,        try again after
 *                                                back off (the lock went with it)      ORG_STANDBY_RETRY_MS
 */
#include "organiser/ratings.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/loop.h"
#include "organiser/rating_worker.h"
#include "store/store.h"

/* The worker's statements may run this long: a recompute's COPY of a
 * million results' history is one statement of a few seconds on the bench
 * machine (docs/ratings.md, "Performance"); a slow disk may take many
 * times that, and a shutdown cancels it anyway. */
#define ORG_STATEMENT_TIMEOUT_MS        (10u * 60u * 1000u)
/* Back-off after the worker's connection failed: from 250 ms, doubling up
 * to 2 s, as the daemon's own connection does (store/store.h). */
#define ORG_BACKOFF_FIRST_MS            250u
#define ORG_BACKOFF_MAX_MS              2000u

struct outcome {
        struct outcome *next;
        char game[STORE_RATING_GAME_MAX];
        bool season_asked;
        struct rw_season season;
        /* a job's end; a log line only; a season passed on to the active
         * worker (its readers are told to come back) */
        enum { OUTCOME_DONE, OUTCOME_TROUBLE, OUTCOME_NOTE, OUTCOME_FORWARDED } kind;
        struct rw_outcome out;
};

struct waiter {
        struct waiter *next;
        struct org_ratings *owner;
        char game[STORE_RATING_GAME_MAX];
        struct rw_season season;
        org_season_fn cb;
        void *userdata;
        struct event *timer;
        enum org_season_state answer;   /* what the timer answers */
};

/* A game with a season being computed (loop thread only). */
struct season_busy {
        struct season_busy *next;
        char game[STORE_RATING_GAME_MAX];
        struct rw_season season;
};

struct org_ratings {
        struct loop *loop;
        struct store *store;
        org_ratings_changed_fn changed;
        void *userdata;
        char *dsn;
        struct rw_context ctx;          /* the worker's */

        pthread_t thread;
        bool started;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        /* under lock */
        struct rw_job *jobs;
        size_t n_jobs, cap_jobs;
        bool check_all;
        bool stop;
        bool running;
        bool active;                    /* the worker holds the lock (the worker writes it) */
        struct store_ratings *conn;     /* the worker's connection, for a cancel */
        struct outcome *done, **done_tail;

        int efd;
        struct event *ev;
        /* loop thread only */
        struct waiter *waiters;
        struct season_busy *seasons;
        struct org_ratings_stats stats;
};

static void wake_loop(int efd) {
        uint64_t one = 1;

        while (write(efd, &one, sizeof one) < 0 && errno == EINTR)
                ;
}

/* ---- jobs (under lock) -------------------------------------------------------------- */

static void job_free(struct rw_job *j) {
        free(j->verify);
        j->verify = NULL;
}

/* The job of game, added when missing; NULL when out of memory. */
static struct rw_job *job_of(struct org_ratings *r, const char *game) {
        for (size_t i = 0; i < r->n_jobs; i++)
                if (strcmp(r->jobs[i].game, game) == 0)
                        return &r->jobs[i];
        if (r->n_jobs == r->cap_jobs) {
                size_t cap = r->cap_jobs ? 2 * r->cap_jobs : 8;
                struct rw_job *j = realloc(r->jobs, cap * sizeof *j);
                if (!j)
                        return NULL;
                r->jobs = j;
                r->cap_jobs = cap;
        }
        struct rw_job *j = &r->jobs[r->n_jobs++];
        memset(j, 0, sizeof *j);
        snprintf(j->game, sizeof j->game, "%s", game);
        return j;
}

static int job_verify(struct rw_job *j, int64_t id) {
        if (j->n_verify == j->cap_verify) {
                size_t cap = j->cap_verify ? 2 * j->cap_verify : 4;
                int64_t *v = realloc(j->verify, cap * sizeof *v);
                if (!v)
                        return -ENOMEM;
                j->verify = v;
                j->cap_verify = cap;
        }
        j->verify[j->n_verify++] = id;
        return 0;
}

/* Merges src (taken) into the jobs waiting. */
static void job_merge(struct org_ratings *r, struct rw_job *src) {
        struct rw_job *j = job_of(r, src->game);

        if (!j) {
                job_free(src);
                return;
        }
        j->check |= src->check;
        j->verify_counts |= src->verify_counts;
        j->full |= src->full;
        j->here_full |= src->here_full;
        j->here_season |= src->here_season;
        for (size_t i = 0; i < src->n_verify; i++)
                (void) job_verify(j, src->verify[i]);
        if (src->want_season && !j->want_season) {
                j->want_season = true;
                j->season = src->season;
        }
        job_free(src);
}

static void give(struct org_ratings *r) {
        pthread_cond_signal(&r->wake);
}

/* ---- the worker -------------------------------------------------------------------- */

static void post(struct org_ratings *r, struct outcome *o) {
        pthread_mutex_lock(&r->lock);
        o->next = NULL;
        *r->done_tail = o;
        r->done_tail = &o->next;
        pthread_mutex_unlock(&r->lock);
        wake_loop(r->efd);
}

/* An outcome for the loop: a job done, or only words to log (trouble, a
 * warning that counts as a failure, or a note). */
static void report(struct org_ratings *r, const struct rw_job *j, const struct rw_outcome *out, int kind) {
        struct outcome *o = calloc(1, sizeof *o);

        if (!o)
                return;         /* the loop then never hears of this job: its waiters time out */
        if (j) {
                snprintf(o->game, sizeof o->game, "%s", j->game);
                o->season_asked = j->want_season;
                o->season = j->season;
        }
        o->kind = kind;
        o->out = *out;
        post(r, o);
}

/* Waits ms unless told to stop; false when stopping. */
static bool back_off(struct org_ratings *r, unsigned *ms) {
        struct timespec until;
        bool stop;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += *ms / 1000;
        until.tv_nsec += (long) (*ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&r->lock);
        while (!r->stop && pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
                ;
        stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        *ms = *ms * 2 > ORG_BACKOFF_MAX_MS ? ORG_BACKOFF_MAX_MS : *ms * 2;
        return !stop;
}

static void set_conn(struct org_ratings *r, struct store_ratings *c) {
        pthread_mutex_lock(&r->lock);
        r->conn = c;
        pthread_mutex_unlock(&r->lock);
        r->ctx.conn = c;
}

static void set_active(struct org_ratings *r, bool active) {
        pthread_mutex_lock(&r->lock);
        r->active = active;
        pthread_mutex_unlock(&r->lock);
}

/* The lock goes with the connection. */
static void drop_conn(struct org_ratings *r) {
        struct store_ratings *c = r->ctx.conn;

        set_conn(r, NULL);
        set_active(r, false);
        store_ratings_close(c);
}

/* Puts jobs[0..n) back, with check_all; the loop hears nothing yet. */
static void put_back(struct org_ratings *r, struct rw_job *jobs, size_t n, bool check_all) {
        pthread_mutex_lock(&r->lock);
        for (size_t i = 0; i < n; i++)
                job_merge(r, &jobs[i]);
        r->check_all |= check_all;
        pthread_mutex_unlock(&r->lock);
}

/* check_all: a job for every game (new results, marks, counts). */
static int expand_all(struct org_ratings *r, struct rw_job **jobs, size_t *n, size_t *cap) {
        struct rw_outcome out;
        char **games = NULL;
        int k = rw_all_games(&r->ctx, &games, &out);

        if (k < 0) {
                report(r, NULL, &out, OUTCOME_TROUBLE);
                return k;
        }
        for (int i = 0; i < k; i++) {
                struct rw_job *j = NULL;
                for (size_t x = 0; x < *n; x++)
                        if (strcmp((*jobs)[x].game, games[i]) == 0)
                                j = &(*jobs)[x];
                if (!j) {
                        if (*n == *cap) {
                                size_t c = *cap ? 2 * *cap : 8;
                                struct rw_job *g = realloc(*jobs, c * sizeof *g);
                                if (!g)
                                        break;
                                *jobs = g;
                                *cap = c;
                        }
                        j = &(*jobs)[(*n)++];
                        memset(j, 0, sizeof *j);
                        snprintf(j->game, sizeof j->game, "%s", games[i]);
                }
                j->check = j->verify_counts = true;
        }
        for (int i = 0; i < k; i++)
                free(games[i]);
        free(games);
        return 0;
}

/* Standing by: what was asked at this daemon goes to the active worker
 * through the database (store_ratings_ask); the rest is the active one's
 * already, since it hears every result's NOTIFY itself.  A season passed
 * on is reported, so that the loop lets its readers come back for it.
 * -ENOTCONN when the connection failed. */
static int pass_on(struct org_ratings *r, struct rw_job *jobs, size_t n) {
        char payload[STORE_RATING_GAME_MAX + 40];
        struct rw_outcome out;
        int e = 0;

        for (size_t i = 0; i < n && e != -ENOTCONN; i++) {
                struct rw_job *j = &jobs[i];

                if (j->here_full) {
                        snprintf(payload, sizeof payload, "%s full", j->game);
                        e = store_ratings_ask(r->ctx.conn, payload);
                }
                if (e != -ENOTCONN && j->want_season && j->here_season) {
                        snprintf(payload, sizeof payload, "%s season %s %s", j->game, j->season.from[0] ?
                                 j->season.from : "-", j->season.to[0] ? j->season.to : "-");
                        e = store_ratings_ask(r->ctx.conn, payload);
                        memset(&out, 0, sizeof out);
                        report(r, j, &out, OUTCOME_FORWARDED);
                }
        }
        for (size_t i = 0; i < n; i++)
                job_free(&jobs[i]);
        return e == -ENOTCONN ? e : 0;
}

/* Takes the worker's lock when it is free (or held by *pid, the server pid
 * of this worker's last active session, which a cut link left behind: that
 * one is ended first).  1 active (*pid the new session's), 0 standing by,
 * -ENOTCONN. */
static int take_lock(struct org_ratings *r, bool *standby_told, int *pid) {
        struct rw_outcome out = { 0 };
        int now_pid = 0, e = store_ratings_try_lock(r->ctx.conn, *pid, &now_pid);

        if (e < 0) {
                snprintf(out.message, sizeof out.message, "the rating worker could not take its lock: %s",
                         store_ratings_error(r->ctx.conn));
                report(r, NULL, &out, OUTCOME_TROUBLE);
                return -ENOTCONN;
        }
        if (e == 0) {
                if (!*standby_told) {
                        snprintf(out.message, sizeof out.message, "the rating worker stands by: another daemon's "
                                 "worker rates this database's games (it takes over when that one stops)");
                        report(r, NULL, &out, OUTCOME_NOTE);
                        *standby_told = true;
                }
                return 0;
        }
        if (*standby_told) {
                snprintf(out.message, sizeof out.message, "the rating worker takes over: it rates this "
                         "database's games from now on");
                report(r, NULL, &out, OUTCOME_NOTE);
        }
        *standby_told = false;
        *pid = now_pid;
        set_active(r, true);
        return 1;
}

static void *worker(void *userdata) {
        struct org_ratings *r = userdata;
        unsigned backoff = ORG_BACKOFF_FIRST_MS;
        bool outage = false;            /* told the loop once; quiet until it ends */
        bool standby = false;           /* another worker holds the lock: try again after a while */
        bool standby_told = false;
        int active_pid = 0;             /* the server pid of the last session that held the lock */

        for (;;) {
                struct rw_job *jobs;
                size_t n, cap;
                bool check_all;

                pthread_mutex_lock(&r->lock);
                if (standby) {
                        struct timespec until;
                        clock_gettime(CLOCK_REALTIME, &until);
                        until.tv_sec += ORG_STANDBY_RETRY_MS / 1000;
                        until.tv_nsec += (long) (ORG_STANDBY_RETRY_MS % 1000) * 1000000L;
                        if (until.tv_nsec >= 1000000000L) {
                                until.tv_sec++;
                                until.tv_nsec -= 1000000000L;
                        }
                        while (!r->stop && r->n_jobs == 0 && !r->check_all &&
                               pthread_cond_timedwait(&r->wake, &r->lock, &until) == 0)
                                ;
                } else {
                        while (!r->stop && r->n_jobs == 0 && !r->check_all)
                                pthread_cond_wait(&r->wake, &r->lock);
                }
                if (r->stop) {
                        pthread_mutex_unlock(&r->lock);
                        break;
                }
                jobs = r->jobs;
                n = r->n_jobs;
                cap = r->cap_jobs;
                check_all = r->check_all;
                r->jobs = NULL;
                r->n_jobs = r->cap_jobs = 0;
                r->check_all = false;
                r->running = true;
                pthread_mutex_unlock(&r->lock);

                if (!r->ctx.conn) {
                        struct store_ratings *c;
                        struct rw_outcome out = { 0 };
                        char err[384];

                        if (store_ratings_open(r->dsn, ORG_STATEMENT_TIMEOUT_MS, &c, err, sizeof err) < 0) {
                                snprintf(out.message, sizeof out.message, "the rating worker cannot connect to "
                                         "the database (retrying): %s", err);
                                if (!outage)
                                        report(r, NULL, &out, OUTCOME_TROUBLE);
                                outage = true;
                                put_back(r, jobs, n, check_all);
                                free(jobs);
                                if (!back_off(r, &backoff))
                                        break;
                                continue;
                        }
                        set_conn(r, c);
                        if (outage) {
                                snprintf(out.message, sizeof out.message, "the rating worker is connected again");
                                report(r, NULL, &out, OUTCOME_NOTE);
                                outage = false;
                        }
                }
                if (!r->active) {
                        int e = take_lock(r, &standby_told, &active_pid);

                        standby = e == 0;
                        if (e == 0 && pass_on(r, jobs, n) == 0) {
                                free(jobs);
                                pthread_mutex_lock(&r->lock);
                                r->running = false;
                                pthread_mutex_unlock(&r->lock);
                                continue;
                        }
                        if (e < 0 || standby) {         /* the connection failed */
                                if (e < 0)
                                        put_back(r, jobs, n, check_all);
                                free(jobs);
                                drop_conn(r);
                                pthread_mutex_lock(&r->lock);
                                r->running = false;
                                pthread_mutex_unlock(&r->lock);
                                if (!back_off(r, &backoff))
                                        break;
                                continue;
                        }
                        /* active now: whatever came while another worker
                         * rated, or nobody did, is looked at */
                        check_all = true;
                }
                if (check_all && expand_all(r, &jobs, &n, &cap) < 0) {
                        put_back(r, jobs, n, true);
                        free(jobs);
                        drop_conn(r);
                        if (!back_off(r, &backoff))
                                break;
                        continue;
                }
                size_t i;
                bool lost = false, stop = false;
                for (i = 0; i < n && !lost && !stop; i++) {
                        struct rw_outcome out;

                        rw_process(&r->ctx, &jobs[i], &out);
                        if (out.retry) {
                                lost = true;
                                report(r, NULL, &out, OUTCOME_TROUBLE);
                                break;
                        }
                        report(r, &jobs[i], &out, OUTCOME_DONE);
                        job_free(&jobs[i]);
                        backoff = ORG_BACKOFF_FIRST_MS;
                        pthread_mutex_lock(&r->lock);
                        stop = r->stop;
                        pthread_mutex_unlock(&r->lock);
                }
                /* what is left waits: for the database to come back, or
                 * for org_ratings_free() */
                put_back(r, jobs + i, n - i, false);
                free(jobs);
                if (lost)
                        drop_conn(r);
                pthread_mutex_lock(&r->lock);
                r->running = false;
                stop = r->stop;
                pthread_mutex_unlock(&r->lock);
                wake_loop(r->efd);
                if (stop || (lost && !back_off(r, &backoff)))
                        break;
        }
        drop_conn(r);
        return NULL;
}

/* ---- the loop's side ----------------------------------------------------------------- */

static void waiter_free(struct org_ratings *r, struct waiter *w) {
        for (struct waiter **p = &r->waiters; *p; p = &(*p)->next)
                if (*p == w) {
                        *p = w->next;
                        break;
                }
        if (w->timer)
                event_free(w->timer);
        free(w);
}

static void waiter_answer(struct org_ratings *r, struct waiter *w, enum org_season_state state, int64_t table) {
        org_season_fn cb = w->cb;
        void *userdata = w->userdata;

        waiter_free(r, w);
        cb(userdata, state, table);
}

static void on_waiter_timer(evutil_socket_t fd, short what, void *userdata) {
        struct waiter *w = userdata;

        (void) fd;
        (void) what;
        waiter_answer(w->owner, w, w->answer, 0);
}

static bool same_season(const struct rw_season *a, const struct rw_season *b) {
        return strcmp(a->from, b->from) == 0 && strcmp(a->to, b->to) == 0;
}

static struct season_busy *season_busy_of(struct org_ratings *r, const char *game) {
        for (struct season_busy *b = r->seasons; b; b = b->next)
                if (strcmp(b->game, game) == 0)
                        return b;
        return NULL;
}

static void season_busy_end(struct org_ratings *r, const char *game) {
        for (struct season_busy **p = &r->seasons; *p; p = &(*p)->next)
                if (strcmp((*p)->game, game) == 0) {
                        struct season_busy *b = *p;
                        *p = b->next;
                        free(b);
                        return;
                }
}

static void handle(struct org_ratings *r, struct outcome *o) {
        const struct rw_outcome *out = &o->out;

        if (out->message[0])
                log_full_errno(o->kind == OUTCOME_TROUBLE || out->failed ? LOG_WARNING : LOG_NOTICE, 0, "%s",
                               out->message);
        if (out->detail[0])
                log_info("%s", out->detail);
        if (o->kind == OUTCOME_TROUBLE || out->failed)
                r->stats.failures++;
        if (o->kind == OUTCOME_FORWARDED) {
                /* the active worker computes it: the readers waiting here
                 * are answered BUSY by their timers and come back */
                season_busy_end(r, o->game);
                return;
        }
        if (o->kind != OUTCOME_DONE)
                return;
        r->stats.steps += out->steps;
        r->stats.recomputes += out->recomputes;
        if (out->recomputes) {
                r->stats.results_last = out->results;
                r->stats.seconds_last = out->seconds;
        }
        if (out->changed && r->changed)
                r->changed(r->userdata, o->game);
        if (!o->season_asked)
                return;
        season_busy_end(r, o->game);
        for (struct waiter *w = r->waiters, *next; w; w = next) {
                next = w->next;
                if (strcmp(w->game, o->game) == 0 && same_season(&w->season, &o->season))
                        waiter_answer(r, w, out->season_ready ? ORG_SEASON_READY : ORG_SEASON_FAILED,
                                      out->season_table);
        }
}

static void on_done(evutil_socket_t fd, short what, void *userdata) {
        struct org_ratings *r = userdata;
        struct outcome *o, *next;
        uint64_t n;

        (void) what;
        if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN)
                log_warning("rating worker: reading its eventfd failed: %s", strerror(errno));
        pthread_mutex_lock(&r->lock);
        o = r->done;
        r->done = NULL;
        r->done_tail = &r->done;
        pthread_mutex_unlock(&r->lock);
        for (; o; o = next) {
                next = o->next;
                handle(r, o);
                free(o);
        }
}

/* What a standing-by worker asks of the active one (pass_on): "<game>
 * full", "<game> season <from> <to>" ("-" for an open end).  True when
 * payload is one of those, merged into the jobs. */
static bool on_asked(struct org_ratings *r, const char *payload) {
        const char *season = strstr(payload, " season ");
        size_t len = strlen(payload), n;
        struct rw_job asked = { 0 };
        char from[11] = "", to[11] = "";

        if (len > strlen(" full") && strcmp(payload + len - strlen(" full"), " full") == 0) {
                n = len - strlen(" full");
                asked.full = true;
        } else if (season && sscanf(season, " season %10s %10s", from, to) == 2) {
                n = (size_t) (season - payload);
                asked.want_season = true;
                snprintf(asked.season.from, sizeof asked.season.from, "%s", strcmp(from, "-") ? from : "");
                snprintf(asked.season.to, sizeof asked.season.to, "%s", strcmp(to, "-") ? to : "");
        } else {
                return false;
        }
        if (n == 0 || n >= sizeof asked.game)
                return true;    /* no game of ours: nothing to do */
        snprintf(asked.game, sizeof asked.game, "%.*s", (int) n, payload);
        pthread_mutex_lock(&r->lock);
        job_merge(r, &asked);
        give(r);
        pthread_mutex_unlock(&r->lock);
        return true;
}

/* NOTIFY arbiter_ratings "<game> <stage match id>": a result of game was
 * recorded, changed or deleted.  An empty game (its tournament is gone)
 * asks for every game.  Or what a standing-by worker asks (on_asked). */
static void on_notify(void *userdata, const char *channel, const char *payload) {
        struct org_ratings *r = userdata;
        const char *space = strrchr(payload, ' ');
        char game[STORE_RATING_GAME_MAX];
        struct rw_job *j;

        (void) channel;
        if (on_asked(r, payload))
                return;
        if (!space || space == payload || (size_t) (space - payload) >= sizeof game) {
                org_ratings_check_all(r);
                return;
        }
        snprintf(game, sizeof game, "%.*s", (int) (space - payload), payload);
        pthread_mutex_lock(&r->lock);
        j = job_of(r, game);
        if (j) {
                j->check = true;
                (void) job_verify(j, strtoll(space + 1, NULL, 10));
                give(r);
        }
        pthread_mutex_unlock(&r->lock);
        if (!j)
                log_warning("the ratings of %s: out of memory; they follow with the next result", game);
}

int org_ratings_new(struct loop *loop, struct store *store, const struct org_ratings_config *cfg,
                    org_ratings_changed_fn changed, void *userdata, struct org_ratings **ret) {
        struct org_ratings *r;
        int e;

        if (!cfg || !cfg->dsn || tour_ratings_params_check(&cfg->os, &cfg->g2) < 0)
                return -EINVAL;
        r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        r->efd = -1;
        r->loop = loop;
        r->store = store;
        r->changed = changed;
        r->userdata = userdata;
        r->ctx.os = cfg->os;
        r->ctx.g2 = cfg->g2;
        rw_params_text(&cfg->os, &cfg->g2, r->ctx.params, sizeof r->ctx.params);
        r->done_tail = &r->done;
        pthread_mutex_init(&r->lock, NULL);
        pthread_cond_init(&r->wake, NULL);
        r->dsn = strdup(cfg->dsn);
        if (!r->dsn) {
                e = -ENOMEM;
                goto fail;
        }
        r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (r->efd < 0) {
                e = -errno;
                goto fail;
        }
        r->ev = event_new(loop_base(loop), r->efd, EV_READ | EV_PERSIST, on_done, r);
        if (!r->ev || event_add(r->ev, NULL) < 0) {
                e = -ENOMEM;
                goto fail;
        }
        e = store_listen(store, STORE_RATINGS_CHANNEL, on_notify, r);
        if (e < 0)
                goto fail;
        e = -pthread_create(&r->thread, NULL, worker, r);
        if (e < 0)
                goto fail;
        r->started = true;
        *ret = r;
        return 0;
fail:
        org_ratings_free(r);
        return e;
}

void org_ratings_free(struct org_ratings *r) {
        if (!r)
                return;
        if (r->started) {
                pthread_mutex_lock(&r->lock);
                r->stop = true;
                pthread_cond_signal(&r->wake);
                /* a recompute may be in the middle of a long statement */
                store_ratings_cancel(r->conn);
                pthread_mutex_unlock(&r->lock);
                pthread_join(r->thread, NULL);
        }
        for (struct outcome *o = r->done, *next; o; o = next) {
                next = o->next;
                free(o);
        }
        while (r->waiters)
                waiter_answer(r, r->waiters, ORG_SEASON_GONE, 0);
        while (r->seasons)
                season_busy_end(r, r->seasons->game);
        for (size_t i = 0; i < r->n_jobs; i++)
                job_free(&r->jobs[i]);
        free(r->jobs);
        if (r->ev)
                event_free(r->ev);
        if (r->efd >= 0)
                close(r->efd);
        pthread_cond_destroy(&r->wake);
        pthread_mutex_destroy(&r->lock);
        free(r->dsn);
        free(r);
}

void org_ratings_check_all(struct org_ratings *r) {
        if (!r)
                return;
        pthread_mutex_lock(&r->lock);
        r->check_all = true;
        give(r);
        pthread_mutex_unlock(&r->lock);
}

void org_ratings_recompute(struct org_ratings *r, const char *game) {
        struct rw_job *j;

        if (!r || !game || !*game)
                return;
        pthread_mutex_lock(&r->lock);
        j = job_of(r, game);
        if (j) {
                j->full = j->here_full = true;
                give(r);
        }
        pthread_mutex_unlock(&r->lock);
        if (!j)
                log_warning("the ratings of %s could not be queued for a recompute: out of memory", game);
}

static bool valid_day(const char *s) {
        return !s || (strlen(s) == 10 && s[4] == '-' && s[7] == '-');
}

int org_ratings_season(struct org_ratings *r, const char *game, const char *from, const char *to,
                       unsigned wait_ms, org_season_fn cb, void *userdata) {
        struct season_busy *busy;
        struct waiter *w;
        struct timeval tv;

        if (!r || !game || !*game || strlen(game) >= STORE_RATING_GAME_MAX || (!from && !to) || !valid_day(from) ||
            !valid_day(to) || !cb)
                return -EINVAL;
        w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        w->owner = r;
        snprintf(w->game, sizeof w->game, "%s", game);
        snprintf(w->season.from, sizeof w->season.from, "%s", from ? from : "");
        snprintf(w->season.to, sizeof w->season.to, "%s", to ? to : "");
        w->cb = cb;
        w->userdata = userdata;
        w->answer = ORG_SEASON_BUSY;
        w->timer = evtimer_new(loop_base(r->loop), on_waiter_timer, w);
        if (!w->timer) {
                free(w);
                return -ENOMEM;
        }
        busy = season_busy_of(r, game);
        /* another season of the game is being computed: answered at once
         * (from the loop, not from inside this call) */
        if (busy && !same_season(&busy->season, &w->season))
                wait_ms = 0;
        tv = (struct timeval) { .tv_sec = wait_ms / 1000, .tv_usec = (wait_ms % 1000) * 1000 };
        if (evtimer_add(w->timer, &tv) < 0) {
                event_free(w->timer);
                free(w);
                return -ENOMEM;
        }
        w->next = r->waiters;
        r->waiters = w;
        if (busy)
                return 0;
        busy = calloc(1, sizeof *busy);
        if (busy) {
                struct rw_job *j;

                snprintf(busy->game, sizeof busy->game, "%s", game);
                busy->season = w->season;
                pthread_mutex_lock(&r->lock);
                j = job_of(r, game);
                if (j) {
                        j->want_season = j->here_season = true;
                        j->season = w->season;
                        give(r);
                }
                pthread_mutex_unlock(&r->lock);
                if (j) {
                        busy->next = r->seasons;
                        r->seasons = busy;
                        return 0;
                }
                free(busy);
        }
        w->answer = ORG_SEASON_FAILED;          /* the timer says so */
        return 0;
}

void org_ratings_stats(struct org_ratings *r, struct org_ratings_stats *ret) {
        memset(ret, 0, sizeof *ret);
        if (!r)
                return;
        *ret = r->stats;
        pthread_mutex_lock(&r->lock);
        ret->busy = r->n_jobs > 0 || r->check_all || r->running;
        ret->active = r->active;
        pthread_mutex_unlock(&r->lock);
}
