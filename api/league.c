/* api/league.c — league events: the outgoing queue and its appends, the
 * incoming reads and their publication, the remote matches' views.  See
 * league.h.
 *
 * The append (one at a time):
 *
 *     queue ──before sleep, READY, none in flight──> in flight ──committed──> popped, counted
 *       ^                                               │
 *       └────── connection lost (may have committed) ───┘   refused by the server: dropped, logged
 *
 * A batch whose connection went under it is sent again (its rows may then
 * be there twice: a reader sees an event twice rather than never); one the
 * server refused is dropped, so that no event can stop the ones behind it.
 *
 * The read (one at a time): a NOTIFY or a READY asks for one; one asked for
 * while one is in flight is remembered and made when it returns, and a
 * full page asks for the next at once.  Reads that follow NOTIFYs start at
 * least LEAGUE_READ_GAP_MS apart (a timer makes the one asked for sooner):
 * every venue's daemon reads after every other venue's append, so without
 * a gap a league of N venues reads N times per append, and the primary's
 * reads grow with N squared (docs/scaling.md).  The first read after a
 * quiet spell goes at once.
 */
#include "api/league.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "api/handlers.h"
#include "api/sse.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/time.h"
#include "match/json.h"
#include "match/match.h"
#include "store/league.h"
#include "store/store.h"
#include "store/venues.h"

/* migrations/0010_venues.sql: a venue id is at most 32 bytes. */
#define LEAGUE_VENUE_MAX        33
/* "venue/" and a venue id, or "tournament/" and an int64_t. */
#define LEAGUE_TOPIC_MAX        48
/* The least time between the starts of two reads of the league's events:
 * at most 10 a second per daemon, whatever the league's append rate, for
 * at most this much more on an event's way to another venue (within the
 * second the issue allows; docs/scaling.md has the arithmetic). */
#define LEAGUE_READ_GAP_MS      100

struct queued {
        char *topic, *event, *data;
};

struct view {
        int64_t match;                  /* 0: a free slot */
        uint64_t seq;
        uint64_t stamp;                 /* when it was last updated: the oldest goes first */
        json_t *data;                   /* the match_view's data */
};

struct api_league {
        struct loop *loop;
        const struct api_deps *deps;
        char venue[LEAGUE_VENUE_MAX];
        int hook_id;
        struct event *prune_timer;

        /* outgoing: a ring of LEAGUE_QUEUE_MAX; the first in_flight are
         * in the statement in flight */
        struct queued *queue;
        size_t head, n_queued, in_flight;
        bool appending;
        /* Another venue's daemon runs (its lock is held, or we read one of
         * its events): only then do our live matches' views go out. */
        bool peers, asking_peers;
        int64_t *dirty;                 /* our live matches with a view not yet sent */
        size_t n_dirty, cap_dirty;
        int64_t *views_sent;            /* the matches whose views are in flight */
        size_t n_views_sent;
        uint64_t appended, dropped, dropped_logged;

        /* incoming */
        int64_t cursor;
        bool cursor_known, asking_cursor, reading, read_again;
        int64_t read_usec;              /* when the last read was sent */
        struct event *read_timer;       /* the read asked for within LEAGUE_READ_GAP_MS of it */
        uint64_t received, reads;
        struct view views[LEAGUE_VIEWS_MAX];
        uint64_t stamp;
};

static struct store *store_of(const struct api_league *l) {
        return l->deps->store;
}

static bool ready(const struct api_league *l) {
        return store_of(l) && store_get_state(store_of(l)) == STORE_READY;
}

/* ---- the remote views ------------------------------------------------------------ */

static struct view *view_find(struct api_league *l, int64_t match) {
        for (size_t i = 0; i < LEAGUE_VIEWS_MAX; i++)
                if (l->views[i].match == match)
                        return &l->views[i];
        return NULL;
}

static void view_drop(struct api_league *l, int64_t match) {
        struct view *v = match > 0 ? view_find(l, match) : NULL;

        if (v) {
                json_decref(v->data);
                *v = (struct view) { 0 };
        }
}

static bool state_over(const char *state) {
        return state && (strcmp(state, "finished") == 0 || strcmp(state, "aborted") == 0);
}

/* Keeps data (borrowed) as match's newest view, unless it is older than
 * the one kept or the match is over. */
static void view_put(struct api_league *l, json_t *data) {
        int64_t match = json_integer_value(json_object_get(data, "match"));
        uint64_t seq = (uint64_t) json_integer_value(json_object_get(data, "seq"));
        struct view *v, *oldest = NULL;

        if (match < 1)
                return;
        if (state_over(json_string_value(json_object_get(data, "state")))) {
                view_drop(l, match);
                return;
        }
        v = view_find(l, match);
        if (v && v->seq > seq)
                return;
        if (!v) {
                for (size_t i = 0; i < LEAGUE_VIEWS_MAX && !v; i++) {
                        if (l->views[i].match == 0)
                                v = &l->views[i];
                        else if (!oldest || l->views[i].stamp < oldest->stamp)
                                oldest = &l->views[i];
                }
                if (!v) {
                        v = oldest;
                        json_decref(v->data);
                }
        } else {
                json_decref(v->data);
        }
        *v = (struct view) { .match = match, .seq = seq, .stamp = ++l->stamp, .data = json_incref(data) };
}

static void fill(json_t *resource, json_t *data) {
        json_t *view = json_object_get(data, "view");
        const char *state = json_string_value(json_object_get(data, "state"));

        json_object_set(resource, "view", view ? view : json_null());
        if (state)
                json_object_set_new(resource, "state", json_string(state));
}

/* The match's id when resource is a match of another venue that is not
 * over, else 0. */
static int64_t remote_match(const struct api_league *l, json_t *resource) {
        const char *venue = json_string_value(json_object_get(resource, "venue"));

        if (!venue || strcmp(venue, l->venue) == 0 ||
            state_over(json_string_value(json_object_get(resource, "state"))))
                return 0;
        return json_integer_value(json_object_get(resource, "id"));
}

bool api_league_view(struct api_league *l, json_t *resource) {
        int64_t match = l ? remote_match(l, resource) : 0;
        struct view *v = match > 0 ? view_find(l, match) : NULL;

        if (match < 1)
                return true;
        if (!v)
                return false;
        fill(resource, v->data);
        return true;
}

struct view_read {
        struct api_league *league;
        json_t *resource;
        api_league_view_fn done;
        void *userdata;
};

static void on_view_row(void *userdata, const struct store_league_row *rows, size_t n, int64_t oldest,
                        const struct store_error *failure, const char *error) {
        struct view_read *c = userdata;
        json_t *data;

        (void) oldest;
        if (failure)
                log_debug("the newest view of a remote match could not be read: %s", error);
        else if (n == 1 && (data = json_loads(rows[0].data, 0, NULL))) {
                /* the reader sees it; the cache keeps it only when it is
                 * not older than what came meanwhile */
                view_put(c->league, data);
                if (!state_over(json_string_value(json_object_get(data, "state"))))
                        fill(c->resource, data);
                json_decref(data);
        }
        c->done(c->userdata, c->resource);
        free(c);
}

int api_league_view_read(struct api_league *l, json_t *resource, api_league_view_fn done, void *userdata) {
        struct view_read *c;
        int r;

        if (!l || remote_match(l, resource) < 1)
                return -EINVAL;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        *c = (struct view_read) { .league = l, .resource = resource, .done = done, .userdata = userdata };
        r = store_league_newest_view(store_of(l), remote_match(l, resource), on_view_row, c);
        if (r < 0)
                free(c);
        return r;
}

/* ---- incoming ------------------------------------------------------------------------ */

static void read_now(struct api_league *l);
static void read_next(struct api_league *l);
static void peers_found(struct api_league *l);
static void peers_check(struct api_league *l);

/* One event of another venue, as this daemon's own. */
static void dispatch(struct api_league *l, const struct store_league_row *row) {
        const struct api_deps *deps = l->deps;
        json_t *data = json_loads(row->data, 0, NULL);
        int64_t match;
        int r;

        if (!data) {
                log_warning("league event %" PRId64 " of venue %s is not JSON; skipped", row->id, row->venue);
                return;
        }
        match = json_integer_value(json_object_get(data, "match"));
        if (strcmp(row->event, "venue_ready") == 0) {
                /* a daemon (re)connected: it has none of our views */
                l->peers = false;
                peers_found(l);
        } else if (strcmp(row->event, "match_view") == 0)
                view_put(l, data);
        else if (strcmp(row->event, "match_ended") == 0)
                view_drop(l, match);
        else if (strcmp(row->event, "match_assigned") == 0 && match > 0 && deps->matches &&
                 strcmp(json_string_value(json_object_get(data, "venue")) ?: "", l->venue) == 0) {
                log_info("match %" PRId64 " was made at venue %s for a table of this venue: adopting it", match,
                         row->venue);
                r = matches_adopt(deps->matches, match);
                /* not READY: the next READY's rebuild loads it anyway */
                if (r < 0 && r != -ENOTCONN)
                        log_warning("match %" PRId64 " could not be adopted: %s", match, strerror(-r));
        }
        if (strncmp(row->topic, "tournament/", strlen("tournament/")) == 0 && deps->tournament_event) {
                int64_t id = strtoll(row->topic + strlen("tournament/"), NULL, 10);
                if (id > 0)
                        deps->tournament_event(deps->userdata, id, row->event, data);
        }
        if (!deps->events) {
                json_decref(data);
                return;
        }
        r = sse_publish(deps->events, row->topic, row->event, data);
        if (r < 0 && r != -ESHUTDOWN)
                log_warning("league event %" PRId64 " (%s on %s) could not be published: %s", row->id, row->event,
                            row->topic, strerror(-r));
}

static void on_rows(void *userdata, const struct store_league_row *rows, size_t n, int64_t oldest,
                    const struct store_error *failure, const char *error) {
        struct api_league *l = userdata;

        l->reading = false;
        if (failure) {
                /* the next READY catches up */
                log_debug("reading the league's events failed: %s", error);
                return;
        }
        if (n > 0 && l->cursor > 0 && oldest > l->cursor + 1)
                log_warning("league events %" PRId64 " to %" PRId64 " were pruned before this daemon read them "
                            "(kept %d s): what they said is in the database's state, not in this daemon's "
                            "event streams", l->cursor + 1, oldest - 1, STORE_LEAGUE_KEEP_S);
        for (size_t i = 0; i < n; i++) {
                l->cursor = rows[i].id;
                if (strcmp(rows[i].venue, l->venue) == 0)
                        continue;       /* published here first-hand */
                peers_found(l);
                l->received++;
                dispatch(l, &rows[i]);
        }
        if (n == LEAGUE_PAGE) {
                l->read_again = false;
                read_now(l);            /* a backlog: the next page at once */
        } else if (l->read_again) {
                l->read_again = false;
                read_next(l);
        }
}

static void read_now(struct api_league *l) {
        int r;

        if (!l->cursor_known || !ready(l))
                return;         /* the cursor's read, or the next READY, reads */
        if (l->reading) {
                l->read_again = true;
                return;
        }
        evtimer_del(l->read_timer);
        r = store_league_since(store_of(l), l->cursor, LEAGUE_PAGE, on_rows, l);
        if (r < 0) {
                log_warning("the league's events cannot be read now: %s", strerror(-r));
                return;
        }
        l->reading = true;
        l->reads++;
        l->read_usec = now_usec();
}

/* A read, now or LEAGUE_READ_GAP_MS after the last one started. */
static void read_next(struct api_league *l) {
        int64_t due = l->read_usec + (int64_t) LEAGUE_READ_GAP_MS * USEC_PER_MSEC, now = now_usec();

        if (l->reading) {
                l->read_again = true;
                return;
        }
        if (l->read_usec == 0 || now >= due) {
                read_now(l);
                return;
        }
        if (!evtimer_pending(l->read_timer, NULL)) {
                struct timeval tv = usec_to_timeval(due - now);
                evtimer_add(l->read_timer, &tv);
        }
}

static void on_read_timer(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        read_now(userdata);
}

static void on_cursor(void *userdata, int64_t last, const struct store_error *failure, const char *error) {
        struct api_league *l = userdata;

        l->asking_cursor = false;
        if (failure) {
                log_debug("reading the league's newest event failed: %s", error);
                return;
        }
        l->cursor = last;
        l->cursor_known = true;
        log_info("league events: following from id %" PRId64, last);
        read_now(l);
}

static void on_notify(void *userdata, const char *channel, const char *payload) {
        struct api_league *l = userdata;

        (void) channel;
        if (l->cursor_known && strtoll(payload, NULL, 10) <= l->cursor)
                return;         /* read already */
        read_next(l);
}

void api_league_venue_ready(struct api_league *l) {
        char topic[LEAGUE_TOPIC_MAX];

        if (!l)
                return;
        /* the other venues' daemons hear that this one is (back) there and
         * send it their live matches' views again */
        snprintf(topic, sizeof topic, "venue/%s", l->venue);
        api_publish_shared(l->deps->events, l, topic, "venue_ready",
                           json_pack("{s:s, s:s}", "kind", "venue_ready", "venue", l->venue));
}

void api_league_store_ready(struct api_league *l) {
        int r;

        if (!l)
                return;
        peers_check(l);
        if (l->cursor_known) {
                read_now(l);            /* a catch-up: at once */
                return;
        }
        if (l->asking_cursor)
                return;
        r = store_league_last_id(store_of(l), on_cursor, l);
        if (r < 0)
                log_warning("the league's events cannot be read now: %s", strerror(-r));
        else
                l->asking_cursor = true;
}

/* ---- outgoing ------------------------------------------------------------------------ */

static struct queued *queued_at(struct api_league *l, size_t i) {
        return &l->queue[(l->head + i) % LEAGUE_QUEUE_MAX];
}

static void queued_free(struct queued *q) {
        free(q->topic);
        free(q->event);
        free(q->data);
        *q = (struct queued) { 0 };
}

static void pop(struct api_league *l) {
        queued_free(queued_at(l, 0));
        l->head = (l->head + 1) % LEAGUE_QUEUE_MAX;
        l->n_queued--;
        if (l->in_flight)
                l->in_flight--;
}

static void enqueue(struct api_league *l, const char *topic, const char *event, json_t *data) {
        struct queued q = { 0 };

        if (strlen(topic) > STORE_LEAGUE_NAME_MAX || strlen(event) > STORE_LEAGUE_NAME_MAX) {
                /* the table's CHECKs: none of ours is that long */
                l->dropped++;
                log_warning("league event %s on %s dropped: a topic and an event name have at most %d bytes",
                            event, topic, STORE_LEAGUE_NAME_MAX);
                return;
        }
        q.topic = strdup(topic);
        q.event = strdup(event);
        q.data = json_dumps(data ? data : json_null(), JSON_COMPACT);
        if (!q.topic || !q.event || !q.data) {
                queued_free(&q);
                l->dropped++;
                log_warning("league event %s on %s dropped: out of memory", event, topic);
                return;
        }
        if (l->n_queued == LEAGUE_QUEUE_MAX) {
                pop(l);
                /* said once an outage; the count when the database is back */
                if (l->dropped++ == l->dropped_logged)
                        log_warning("the league's queue is full (%d events: the database has been away a "
                                    "while); the oldest are dropped, and counted in /v1/status "
                                    "(league.dropped)", LEAGUE_QUEUE_MAX);
        }
        *queued_at(l, l->n_queued++) = q;
}

void api_publish_shared(struct sse_hub *hub, struct api_league *league, const char *topic, const char *event,
                        json_t *data) {
        int r;

        if (league)
                enqueue(league, topic, event, data);
        if (!hub) {
                json_decref(data);
                return;
        }
        r = sse_publish(hub, topic, event, data);
        if (r < 0 && r != -ESHUTDOWN)
                log_warning("cannot publish %s on %s: %s", event, topic, strerror(-r));
}

void api_league_match_assigned(struct api_league *l, int64_t match, const char *venue) {
        char topic[LEAGUE_TOPIC_MAX];

        if (!l || !venue)
                return;
        snprintf(topic, sizeof topic, "venue/%s", venue);
        api_publish_shared(l->deps->events, l, topic, "match_assigned",
                           json_pack("{s:s, s:I, s:s}", "kind", "match_assigned", "match", (json_int_t) match, "venue",
                                     venue));
}

static void dirty_add(struct api_league *l, int64_t id) {
        for (size_t i = 0; i < l->n_dirty; i++)
                if (l->dirty[i] == id)
                        return;
        if (l->n_dirty == l->cap_dirty) {
                size_t cap = l->cap_dirty ? 2 * l->cap_dirty : 16;
                int64_t *d = realloc(l->dirty, cap * sizeof *d);
                if (!d)
                        return;         /* its next input marks it again */
                l->dirty = d;
                l->cap_dirty = cap;
        }
        l->dirty[l->n_dirty++] = id;
}

static void dirty_remove(struct api_league *l, int64_t id) {
        for (size_t i = 0; i < l->n_dirty; i++)
                if (l->dirty[i] == id) {
                        l->dirty[i] = l->dirty[--l->n_dirty];
                        return;
                }
}

/* ---- whether anyone else listens ------------------------------------------------------- */

/* Another venue's daemon is there: from now on our live matches' views go
 * out, each of them at once (the newcomer has none of them yet). */
static void peers_found(struct api_league *l) {
        size_t n, cap = 0;
        int64_t *ids = NULL;

        if (l->peers)
                return;
        l->peers = true;
        log_info("league events: another venue's arbiterd runs; this venue's live matches' views go to it");
        if (!l->deps->matches)
                return;
        while ((n = matches_ids(l->deps->matches, ids, cap)) > cap) {
                int64_t *more = realloc(ids, n * sizeof *ids);
                if (!more) {
                        free(ids);
                        return;         /* their next inputs send them */
                }
                ids = more;
                cap = n;
        }
        for (size_t i = 0; i < n; i++)
                dirty_add(l, ids[i]);
        free(ids);
}

static void on_venues(void *userdata, const struct store_venue_row *rows, size_t n,
                      const struct store_error *failure, const char *error) {
        struct api_league *l = userdata;
        bool any = false;

        l->asking_peers = false;
        if (failure) {
                log_debug("the league's venues could not be read: %s", error);
                return;
        }
        for (size_t i = 0; i < n; i++)
                any |= rows[i].online && strcmp(rows[i].id, l->venue) != 0;
        if (any) {
                peers_found(l);
        } else if (l->peers) {
                l->peers = false;
                l->n_dirty = 0;
                log_info("league events: no other venue's arbiterd runs; live matches' views are kept here");
        }
}

/* Asks the database whether another venue's daemon runs (store/venues.h:
 * its lock is held). */
static void peers_check(struct api_league *l) {
        if (l->asking_peers || !ready(l))
                return;
        if (store_venues_list(store_of(l), NULL, on_venues, l) == 0)
                l->asking_peers = true;
}

/* The match_view of m: its public view as api_match_resource shows it. */
static char *view_text(struct api_league *l, const struct match *m) {
        json_t *j = json_pack("{s:I, s:s, s:o, s:I, s:s, s:o}", "match", (json_int_t) m->id, "venue", l->venue,
                              "table", m->table_id ? json_integer((json_int_t) m->table_id) : json_null(), "seq",
                              (json_int_t) m->last_seq, "state", match_state_name(m), "view",
                              match_json_view(m->game, m->state, ENG_VIEW_PUBLIC, -1));
        char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;

        json_decref(j);
        return text;
}

static void on_appended(void *userdata, int64_t last_id, const struct store_error *failure, const char *error) {
        struct api_league *l = userdata;
        size_t n = l->in_flight;

        l->appending = false;
        if (!failure) {
                while (l->in_flight)
                        pop(l);
                l->appended += n + l->n_views_sent;
                l->n_views_sent = 0;
                log_debug("league events: %zu appended, the newest %" PRId64, n, last_id);
                if (l->dropped > l->dropped_logged) {
                        log_warning("%" PRIu64 " league event%s dropped while the database was away: the other "
                                    "venues' streams missed %s (the database's state has what they told)",
                                    l->dropped - l->dropped_logged, l->dropped - l->dropped_logged == 1 ? " was"
                                    : "s were", l->dropped - l->dropped_logged == 1 ? "it" : "them");
                        l->dropped_logged = l->dropped;
                }
                return;
        }
        if (failure->failure == STORE_FAILURE_UNAVAILABLE) {
                /* sent again once the database is back: the views as they
                 * are then */
                l->in_flight = 0;
                for (size_t i = 0; i < l->n_views_sent; i++)
                        dirty_add(l, l->views_sent[i]);
                l->n_views_sent = 0;
                log_debug("league events: the append failed, kept for the next: %s", error);
                return;
        }
        log_warning("league events: the database refused %zu event%s and %zu view%s (dropped): %s", n,
                    n == 1 ? "" : "s", l->n_views_sent, l->n_views_sent == 1 ? "" : "s", error);
        l->dropped += n;
        while (l->in_flight)
                pop(l);
        l->n_views_sent = 0;
}

/* Before the loop sleeps: what is queued and the dirty views, in one
 * statement, when none is in flight. */
static void flush(void *userdata) {
        struct api_league *l = userdata;
        struct store_league_new *ev;
        char **owned;                   /* the views' topics and texts, freed once queued */
        size_t n = 0, n_owned = 0, k;
        int r;

        if (l->appending || (l->n_queued == 0 && l->n_dirty == 0) || !ready(l))
                return;
        k = l->n_queued < STORE_LEAGUE_BATCH_MAX ? l->n_queued : STORE_LEAGUE_BATCH_MAX;
        ev = calloc(STORE_LEAGUE_BATCH_MAX, sizeof *ev);
        owned = calloc(2 * STORE_LEAGUE_BATCH_MAX, sizeof *owned);
        if (!l->views_sent)
                l->views_sent = calloc(STORE_LEAGUE_BATCH_MAX, sizeof *l->views_sent);
        if (!ev || !owned || !l->views_sent) {
                free(ev);
                free(owned);
                return;         /* the next turn tries again */
        }
        for (; n < k; n++) {
                struct queued *q = queued_at(l, n);
                ev[n] = (struct store_league_new) { .topic = q->topic, .event = q->event, .data = q->data };
        }
        l->n_views_sent = 0;
        for (size_t i = 0; i < l->n_dirty && n < STORE_LEAGUE_BATCH_MAX;) {
                struct match *m = l->deps->matches ? matches_find(l->deps->matches, l->dirty[i]) : NULL;
                char topic[MATCH_TOPIC_MAX], *t, *text;

                /* one whose write is pending publishes again, and is
                 * marked again then: its view goes with the durable state */
                if (m && m->pending > 0) {
                        i++;
                        continue;
                }
                l->dirty[i] = l->dirty[--l->n_dirty];
                if (!m || m->stale || m->released || m->aborted || match_phase(m) == ENG_LOG_FINAL)
                        continue;
                api_match_topic(m->id, topic);
                t = strdup(topic);
                text = view_text(l, m);
                if (!t || !text) {
                        free(t);
                        free(text);
                        continue;
                }
                owned[n_owned++] = t;
                owned[n_owned++] = text;
                ev[n++] = (struct store_league_new) { .topic = t, .event = "match_view", .data = text };
                l->views_sent[l->n_views_sent++] = m->id;
        }
        if (n > 0) {
                r = store_league_append(store_of(l), l->venue, ev, n, on_appended, l);
                if (r == 0) {
                        l->appending = true;
                        l->in_flight = k;
                } else {
                        log_warning("league events could not be appended: %s", strerror(-r));
                        for (size_t i = 0; i < l->n_views_sent; i++)
                                dirty_add(l, l->views_sent[i]);
                        l->n_views_sent = 0;
                }
        }
        for (size_t i = 0; i < n_owned; i++)
                free(owned[i]);
        free(owned);
        free(ev);
}

/* ---- the live matches of this venue ------------------------------------------------- */

static void on_added(void *userdata, struct match *m, bool created) {
        struct api_league *l = userdata;

        (void) created;
        if (l->peers)
                dirty_add(l, m->id);
}

static void on_gone(void *userdata, struct match *m) {
        dirty_remove(userdata, m->id);
}

static void on_published(void *userdata, struct match *m, const struct eng_input *in, const struct eng_out *out) {
        struct api_league *l = userdata;

        (void) in, (void) out;
        if (l->peers)
                dirty_add(l, m->id);
}

int api_league_observe(struct api_league *l, struct matches *reg) {
        const struct match_observer obs = {
                .added = on_added,
                .removed = on_gone,
                .aborted = on_gone,
                .published = on_published,
                .userdata = l,
        };

        return matches_observe(reg, &obs);
}

/* ---- pruning, status, lifetime ------------------------------------------------------- */

static void on_pruned(void *userdata, int64_t n, const struct store_error *failure, const char *error) {
        (void) userdata;
        if (failure)
                log_debug("pruning the league's events failed: %s", error);
        else if (n > 0)
                log_debug("league events: %" PRId64 " older than %d s pruned", n, STORE_LEAGUE_KEEP_S);
}

static void on_prune_timer(evutil_socket_t fd, short what, void *userdata) {
        struct api_league *l = userdata;

        (void) fd, (void) what;
        if (ready(l) && store_league_prune(store_of(l), STORE_LEAGUE_KEEP_S, on_pruned, l) < 0)
                log_debug("pruning the league's events could not be queued");
        peers_check(l);         /* a venue whose daemon stopped for good */
}

json_t *api_league_status(const struct api_league *l) {
        if (!l)
                return json_null();
        return json_pack("{s:o, s:b, s:I, s:I, s:I, s:I, s:I}", "cursor",
                         l->cursor_known ? json_integer((json_int_t) l->cursor) : json_null(), "peers", l->peers,
                         "received",
                         (json_int_t) l->received, "reads", (json_int_t) l->reads, "appended",
                         (json_int_t) l->appended, "queued", (json_int_t) l->n_queued, "dropped",
                         (json_int_t) l->dropped);
}

const char *api_league_venue(const struct api_league *l) {
        return l ? l->venue : NULL;
}

int api_league_new(struct loop *loop, const struct api_deps *deps, const char *venue, struct api_league **ret) {
        struct timeval tv = usec_to_timeval((int64_t) LEAGUE_PRUNE_MS * USEC_PER_MSEC);
        struct api_league *l;
        int r;

        if (!loop || !deps || !deps->store || !venue || !*venue || strlen(venue) >= LEAGUE_VENUE_MAX)
                return -EINVAL;
        l = calloc(1, sizeof *l);
        if (!l)
                return -ENOMEM;
        l->loop = loop;
        l->deps = deps;
        l->hook_id = -1;
        snprintf(l->venue, sizeof l->venue, "%s", venue);
        l->queue = calloc(LEAGUE_QUEUE_MAX, sizeof *l->queue);
        l->prune_timer = event_new(loop_base(loop), -1, EV_PERSIST, on_prune_timer, l);
        l->read_timer = evtimer_new(loop_base(loop), on_read_timer, l);
        if (!l->queue || !l->prune_timer || !l->read_timer || event_add(l->prune_timer, &tv) < 0) {
                r = -ENOMEM;
                goto fail;
        }
        r = loop_add_before_sleep(loop, flush, l);
        if (r < 0)
                goto fail;
        l->hook_id = r;
        r = store_league_watch(deps->store, on_notify, l);
        if (r < 0)
                goto fail;
        *ret = l;
        return 0;
fail:
        api_league_free(l);
        return r;
}

void api_league_free(struct api_league *l) {
        if (!l)
                return;
        if (l->hook_id >= 0)
                loop_remove_before_sleep(l->loop, l->hook_id);
        if (l->prune_timer)
                event_free(l->prune_timer);
        if (l->read_timer)
                event_free(l->read_timer);
        while (l->queue && l->n_queued)
                pop(l);
        free(l->queue);
        for (size_t i = 0; i < LEAGUE_VIEWS_MAX; i++)
                json_decref(l->views[i].data);
        free(l->dirty);
        free(l->views_sent);
        free(l);
}
