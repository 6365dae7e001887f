/* api/sse.c — see sse.h.
 *
 * The ring.  ring[] is a circular array of cfg.ring_events slots holding the
 * retained events, oldest at ring_head.  Invariant: the ring holds exactly
 * the events numbered oldest_n() … last_n, contiguous, ring_count of them
 * (ring_count == 0 ⇔ oldest_n() == last_n + 1), and ring_bytes is the sum
 * of their text lengths.  Events are reference counted: the ring holds one
 * reference, a subscriber sending one holds another, so eviction never
 * pulls text from under a half-sent event.
 *
 * A subscriber:
 *
 *     LIVE ──(backlog over the limit, or the ring dropped a matching
 *       │     event it had not sent)──> OVERFLOW ──(cur and ctl sent)──> end
 *       └──(sse_hub_close)──> CLOSED ──> end at once
 *
 * Invariants of a LIVE subscriber:
 *   - oldest_n() <= cursor <= last_n + 1: every event below cursor was sent
 *     or skipped (not matching); eviction advances cursor or overflows it.
 *   - ctl holds whole blocks (each ends in "\n\n"); ctl is sent only while no
 *     event is half sent (cur == NULL) and an event is started only once ctl
 *     is empty, so blocks never interleave on the wire.
 *   - waiting ⇒ cur == NULL, ctl empty, cursor == last_n + 1.
 *   - backlog == bytes of matching events numbered >= live_from not yet sent
 *     (what the client has fallen behind since it subscribed; a resume's
 *     replay is not counted: it is bounded by the ring).
 */
#include "api/sse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <event2/event.h>

#include "api/json.h"
#include "common/loop.h"
#include "common/time.h"

/* Room for the control blocks a subscriber may have queued at once: the
 * opening (~60 bytes), a reset (~90), a heartbeat (3) and the overflow
 * (~110). */
#define SSE_CTL_MAX 512

#define HEARTBEAT ":\n\n"

/* A rendering of an event for the subscribers of one scope (sse.h,
 * "Scopes"). */
struct sse_scoped {
        char *scope;
        char *text;
        size_t len;
};

struct sse_event {
        unsigned refs;
        uint64_t n;                     /* its id is "<epoch>-<n>" */
        int64_t time_usec;              /* CLOCK_MONOTONIC at publication */
        size_t len;                     /* of text; 0: only scoped subscribers get it */
        size_t bytes;                   /* of every rendering: what the ring counts */
        struct sse_scoped *scoped;      /* its scoped renderings */
        size_t n_scoped;
        char *topic;                    /* in the same allocation, after text */
        char text[];                    /* "id: …\nevent: …\ndata: …\n\n" */
};

enum sub_state {
        SUB_LIVE,
        SUB_OVERFLOW,
        SUB_CLOSED,
};

struct sse_sub {
        struct sse_hub *hub;            /* NULL once the hub is gone */
        struct sse_sub *prev, *next;
        char filter[SSE_TOPIC_MAX + 1];
        char scope[SSE_TOPIC_MAX + 1];  /* "" for the public */
        enum sub_state state;
        uint64_t cursor;                /* n of the next event to consider */
        uint64_t live_from;             /* events from here on count toward backlog */
        size_t backlog;
        struct sse_event *cur;          /* being sent (a reference), or NULL */
        const char *cur_text;           /* the rendering of cur this subscriber gets */
        size_t cur_len, cur_pos;
        char ctl[SSE_CTL_MAX];
        size_t ctl_pos, ctl_len;
        bool waiting;
        sse_wake_fn wake;
        void *userdata;
};

struct sse_hub {
        struct loop *loop;
        struct event *ev_heartbeat;
        struct sse_config cfg;          /* defaults filled in */
        bool closed;
        uint64_t last_n;
        struct sse_event **ring;
        size_t ring_head, ring_count, ring_bytes;
        struct sse_sub *subs;
        unsigned n_subs;
        uint64_t overflowed, refused;
};

void sse_id_format(char buf[static SSE_ID_MAX], uint32_t epoch, uint64_t n) {
        snprintf(buf, SSE_ID_MAX, "%08" PRIx32 "-%" PRIu64, epoch, n);
}

int sse_id_parse(const char *s, uint32_t *ret_epoch, uint64_t *ret_n) {
        uint32_t epoch = 0;
        uint64_t n = 0;
        size_t i;

        for (i = 0; i < 8; i++) {
                char c = s[i];
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                if (d < 0)
                        return -EINVAL;
                epoch = epoch << 4 | (uint32_t) d;
        }
        if (s[i++] != '-' || !s[i])
                return -EINVAL;
        for (; s[i]; i++) {
                uint64_t d = (uint64_t) (s[i] - '0');
                if (s[i] < '0' || s[i] > '9' || n > (UINT64_MAX - d) / 10)
                        return -EINVAL;
                n = n * 10 + d;
        }
        *ret_epoch = epoch;
        *ret_n = n;
        return 0;
}

bool sse_topic_matches(const char *filter, const char *topic) {
        size_t n = strlen(filter);

        return n == 0 || (strncmp(filter, topic, n) == 0 && (topic[n] == '\0' || topic[n] == '/'));
}

bool sse_name_valid(const char *s, size_t max) {
        size_t n = 0;

        if (!s)
                return false;
        for (; s[n]; n++)
                if (n >= max || s[n] <= ' ' || s[n] > '~')
                        return false;
        return n > 0;
}

static uint64_t oldest_n(const struct sse_hub *hub) {
        return hub->last_n - hub->ring_count + 1;
}

static struct sse_event *ring_at(const struct sse_hub *hub, uint64_t n) {
        return hub->ring[(hub->ring_head + (size_t) (n - oldest_n(hub))) % hub->cfg.ring_events];
}

static void event_unref(struct sse_event *ev) {
        if (!ev || --ev->refs > 0)
                return;
        for (size_t i = 0; i < ev->n_scoped; i++) {
                free(ev->scoped[i].scope);
                free(ev->scoped[i].text);
        }
        free(ev->scoped);
        free(ev);
}

/* What sub gets of ev: its scope's rendering, or the public one; NULL (and
 * 0) when ev is not for it at all. */
static const char *rendering(const struct sse_sub *sub, const struct sse_event *ev, size_t *ret_len) {
        *ret_len = 0;
        if (!sse_topic_matches(sub->filter, ev->topic))
                return NULL;
        for (size_t i = 0; sub->scope[0] && i < ev->n_scoped; i++)
                if (strcmp(ev->scoped[i].scope, sub->scope) == 0) {
                        *ret_len = ev->scoped[i].len;
                        return ev->scoped[i].text;
                }
        if (!ev->len)
                return NULL;
        *ret_len = ev->len;
        return ev->text;
}

/* Appends a whole block to the subscriber's control queue; false when it
 * does not fit (the caller decides whether that matters). */
static bool ctl_append(struct sse_sub *sub, const char *block, size_t len) {
        if (sub->ctl_pos > 0) {
                memmove(sub->ctl, sub->ctl + sub->ctl_pos, sub->ctl_len - sub->ctl_pos);
                sub->ctl_len -= sub->ctl_pos;
                sub->ctl_pos = 0;
        }
        if (len > sizeof sub->ctl - sub->ctl_len)
                return false;
        memcpy(sub->ctl + sub->ctl_len, block, len);
        sub->ctl_len += len;
        return true;
}

static void wake(struct sse_sub *sub) {
        if (!sub->waiting)
                return;
        sub->waiting = false;
        sub->wake(sub->userdata);
}

/* The subscriber fell behind: it gets what it has half sent, then the
 * overflow event, then its stream ends.  The event has no id on purpose:
 * the client's Last-Event-ID stays at the last event it really received. */
static void overflow(struct sse_hub *hub, struct sse_sub *sub, const char *reason) {
        char block[256];
        int len;

        sub->state = SUB_OVERFLOW;
        hub->overflowed++;
        len = snprintf(block, sizeof block,
                       "event: overflow\ndata: {\"reason\":\"%s\",\"backlog_limit\":%zu}\n\n",
                       reason, hub->cfg.backlog_limit);
        ctl_append(sub, block, (size_t) len);  /* the stream ends either way */
        wake(sub);
}

/* Drops the oldest event.  A subscriber about to send it either skips it
 * (not for its filter) or has lost it (overflow). */
static void evict_oldest(struct sse_hub *hub) {
        struct sse_event *ev = hub->ring[hub->ring_head];

        for (struct sse_sub *sub = hub->subs; sub; sub = sub->next) {
                size_t len;

                if (sub->state != SUB_LIVE || sub->cursor != ev->n)
                        continue;
                if (rendering(sub, ev, &len))
                        overflow(hub, sub, "the ring dropped events this stream had not sent");
                else
                        sub->cursor++;
        }
        hub->ring[hub->ring_head] = NULL;
        hub->ring_head = (hub->ring_head + 1) % hub->cfg.ring_events;
        hub->ring_count--;
        hub->ring_bytes -= ev->bytes;
        event_unref(ev);
}

static void expire(struct sse_hub *hub, int64_t now) {
        while (hub->ring_count > 0 && now - hub->ring[hub->ring_head]->time_usec > hub->cfg.ring_age_usec)
                evict_oldest(hub);
}

void sse_hub_heartbeat(struct sse_hub *hub) {
        expire(hub, now_usec());
        for (struct sse_sub *sub = hub->subs, *next; sub; sub = next) {
                next = sub->next;
                if (sub->waiting && ctl_append(sub, HEARTBEAT, sizeof HEARTBEAT - 1))
                        wake(sub);
        }
}

static void on_heartbeat(evutil_socket_t fd, short what, void *userdata) {
        (void) fd, (void) what;
        sse_hub_heartbeat(userdata);
}

static uint32_t random_epoch(void) {
        uint32_t e;

        if (getrandom(&e, sizeof e, GRND_NONBLOCK) == (ssize_t) sizeof e)
                return e;
        /* No entropy yet (early boot): distinct enough across restarts. */
        return (uint32_t) now_usec() ^ (uint32_t) getpid() << 16;
}

int sse_hub_new(struct loop *loop, const struct sse_config *cfg, struct sse_hub **ret) {
        struct sse_hub *hub = calloc(1, sizeof *hub);

        if (!hub)
                return -ENOMEM;
        hub->loop = loop;
        hub->cfg = *cfg;
        if (!hub->cfg.heartbeat_ms)
                hub->cfg.heartbeat_ms = SSE_HEARTBEAT_MS_DEFAULT;
        if (!hub->cfg.max_streams)
                hub->cfg.max_streams = SSE_MAX_STREAMS_DEFAULT;
        if (!hub->cfg.ring_events)
                hub->cfg.ring_events = SSE_RING_EVENTS;
        if (!hub->cfg.ring_bytes)
                hub->cfg.ring_bytes = SSE_RING_BYTES;
        if (!hub->cfg.ring_age_usec)
                hub->cfg.ring_age_usec = SSE_RING_AGE_USEC;
        if (!hub->cfg.backlog_limit)
                hub->cfg.backlog_limit = SSE_BACKLOG_LIMIT;
        if (!hub->cfg.epoch)
                hub->cfg.epoch = random_epoch();
        hub->ring = calloc(hub->cfg.ring_events, sizeof *hub->ring);
        if (!hub->ring) {
                sse_hub_free(hub);
                return -ENOMEM;
        }
        if (loop) {
                struct timeval tv = usec_to_timeval((int64_t) hub->cfg.heartbeat_ms * USEC_PER_MSEC);
                hub->ev_heartbeat = event_new(loop_base(loop), -1, EV_PERSIST, on_heartbeat, hub);
                if (!hub->ev_heartbeat || event_add(hub->ev_heartbeat, &tv) < 0) {
                        sse_hub_free(hub);
                        return -ENOMEM;
                }
        }
        *ret = hub;
        return 0;
}

void sse_hub_free(struct sse_hub *hub) {
        if (!hub)
                return;
        while (hub->subs) {
                struct sse_sub *sub = hub->subs;
                hub->subs = sub->next;
                sub->hub = NULL;
                sub->prev = sub->next = NULL;
        }
        while (hub->ring_count > 0) {
                event_unref(hub->ring[hub->ring_head]);
                hub->ring_head = (hub->ring_head + 1) % hub->cfg.ring_events;
                hub->ring_count--;
        }
        free(hub->ring);
        if (hub->ev_heartbeat)
                event_free(hub->ev_heartbeat);
        free(hub);
}

/* The block of one rendering: "id: …\nevent: …\ndata: …\n\n". */
static char *block_build(const struct sse_hub *hub, uint64_t n, const char *name, json_t *data, size_t *ret_len) {
        char id[SSE_ID_MAX], *text, *block;
        size_t len;

        /* Compact JSON escapes every control character: the data is one line. */
        text = json_dumps(data ? data : json_null(), API_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
        if (!text)
                return NULL;
        sse_id_format(id, hub->cfg.epoch, n);
        len = strlen("id: \nevent: \ndata: \n\n") + strlen(id) + strlen(name) + strlen(text);
        block = malloc(len + 1);
        if (block)
                *ret_len = (size_t) snprintf(block, len + 1, "id: %s\nevent: %s\ndata: %s\n\n", id, name, text);
        free(text);
        return block;
}

/* Builds the event's blocks once; every subscriber of a scope sends the
 * same bytes.  data NULL: no public rendering. */
static struct sse_event *event_build(const struct sse_hub *hub, uint64_t n, const char *topic, const char *name,
                                     json_t *data, const struct sse_variant *v, size_t n_v) {
        size_t topic_len = strlen(topic), len = 0;
        char *text = data ? block_build(hub, n, name, data, &len) : NULL;
        struct sse_event *ev;

        if (data && !text)
                return NULL;
        ev = calloc(1, sizeof *ev + len + 1 + topic_len + 1);
        if (!ev) {
                free(text);
                return NULL;
        }
        ev->refs = 1;
        ev->n = n;
        ev->time_usec = now_usec();
        ev->len = len;
        if (text)
                memcpy(ev->text, text, len + 1);
        free(text);
        ev->bytes = len;
        ev->topic = ev->text + len + 1;
        memcpy(ev->topic, topic, topic_len + 1);
        if (n_v) {
                ev->scoped = calloc(n_v, sizeof *ev->scoped);
                if (!ev->scoped) {
                        event_unref(ev);
                        return NULL;
                }
        }
        for (size_t i = 0; i < n_v; i++) {
                struct sse_scoped *sc = &ev->scoped[ev->n_scoped];

                sc->scope = strdup(v[i].scope);
                sc->text = block_build(hub, n, name, v[i].data, &sc->len);
                ev->n_scoped++;
                if (!sc->scope || !sc->text) {
                        event_unref(ev);
                        return NULL;
                }
                ev->bytes += sc->len;
        }
        return ev;
}

int sse_publish(struct sse_hub *hub, const char *topic, const char *event, json_t *data) {
        return sse_publish_scoped(hub, topic, event, data ? data : json_null(), NULL, 0);
}

int sse_publish_scoped(struct sse_hub *hub, const char *topic, const char *event, json_t *data,
                       const struct sse_variant *v, size_t n_v) {
        struct sse_event *ev;
        size_t largest;
        int r = 0;

        if (!sse_name_valid(topic, SSE_TOPIC_MAX) || !sse_name_valid(event, SSE_EVENT_NAME_MAX))
                r = -EINVAL;
        for (size_t i = 0; r == 0 && i < n_v; i++)
                if (!sse_name_valid(v[i].scope, SSE_TOPIC_MAX))
                        r = -EINVAL;
        if (r == 0 && hub->closed)
                r = -ESHUTDOWN;
        ev = r == 0 ? event_build(hub, hub->last_n + 1, topic, event, data, v, n_v) : NULL;
        json_decref(data);
        for (size_t i = 0; i < n_v; i++)
                json_decref(v[i].data);
        if (r < 0)
                return r;
        if (!ev)
                return -ENOMEM;
        /* One event bigger than a subscriber may lag would cut every stream. */
        largest = ev->len;
        for (size_t i = 0; i < ev->n_scoped; i++)
                if (ev->scoped[i].len > largest)
                        largest = ev->scoped[i].len;
        if (largest > hub->cfg.backlog_limit || ev->bytes > hub->cfg.ring_bytes) {
                event_unref(ev);
                return -EMSGSIZE;
        }

        expire(hub, ev->time_usec);
        while (hub->ring_count > 0 && (hub->ring_count == hub->cfg.ring_events ||
                                       hub->ring_bytes + ev->bytes > hub->cfg.ring_bytes))
                evict_oldest(hub);
        hub->ring[(hub->ring_head + hub->ring_count) % hub->cfg.ring_events] = ev;
        hub->ring_count++;
        hub->ring_bytes += ev->bytes;
        hub->last_n = ev->n;

        for (struct sse_sub *sub = hub->subs, *next; sub; sub = next) {
                size_t len;

                next = sub->next;
                if (sub->state != SUB_LIVE)
                        continue;
                if (!rendering(sub, ev, &len)) {
                        if (sub->waiting)
                                sub->cursor = ev->n + 1;        /* keeps "waiting ⇒ cursor == last_n + 1" */
                        continue;
                }
                sub->backlog += len;
                if (sub->backlog > hub->cfg.backlog_limit)
                        overflow(hub, sub, "the client reads too slowly");
                else
                        wake(sub);
        }
        return 0;
}

void sse_hub_close(struct sse_hub *hub) {
        if (!hub)
                return;
        hub->closed = true;
        for (struct sse_sub *sub = hub->subs, *next; sub; sub = next) {
                next = sub->next;
                sub->state = SUB_CLOSED;
                wake(sub);
        }
}

void sse_hub_stats(const struct sse_hub *hub, struct sse_stats *ret) {
        *ret = (struct sse_stats) {
                .streams = hub->n_subs,
                .published = hub->last_n,
                .retained = hub->ring_count,
                .retained_bytes = hub->ring_bytes,
                .overflowed = hub->overflowed,
                .refused = hub->refused,
        };
        sse_id_format(ret->last_id, hub->cfg.epoch, hub->last_n);
}

/* Where a new subscriber starts.  Returns NULL to resume at *ret_cursor,
 * or the reason the client must refetch its state instead. */
static const char *resume_point(const struct sse_hub *hub, const char *last_event_id, uint64_t *ret_cursor) {
        uint32_t epoch;
        uint64_t n;

        *ret_cursor = hub->last_n + 1;
        if (!last_event_id || !*last_event_id)
                return NULL;
        if (strcmp(last_event_id, "0") == 0) {
                epoch = hub->cfg.epoch;
                n = 0;
        } else if (sse_id_parse(last_event_id, &epoch, &n) < 0)
                return "unknown";
        if (epoch != hub->cfg.epoch)
                return "restarted";
        if (n > hub->last_n)
                return "unknown";
        if (n + 1 < oldest_n(hub))
                return "expired";
        *ret_cursor = n + 1;
        return NULL;
}

int sse_subscribe(struct sse_hub *hub, const char *filter, const char *scope, const char *last_event_id,
                  bool priority, sse_wake_fn wake_fn, void *userdata, struct sse_sub **ret) {
        char block[256], id[SSE_ID_MAX];
        const char *reset;
        struct sse_sub *sub;
        int len;

        if ((filter && *filter && !sse_name_valid(filter, SSE_TOPIC_MAX)) ||
            (scope && *scope && !sse_name_valid(scope, SSE_TOPIC_MAX)))
                return -EINVAL;
        if (hub->closed)
                return -ESHUTDOWN;
        if (hub->n_subs >= hub->cfg.max_streams && !priority) {
                hub->refused++;
                return -EBUSY;
        }
        sub = calloc(1, sizeof *sub);
        if (!sub)
                return -ENOMEM;
        sub->hub = hub;
        snprintf(sub->filter, sizeof sub->filter, "%s", filter ? filter : "");
        snprintf(sub->scope, sizeof sub->scope, "%s", scope ? scope : "");
        sub->wake = wake_fn;
        sub->userdata = userdata;
        sub->live_from = hub->last_n + 1;
        reset = resume_point(hub, last_event_id, &sub->cursor);

        /* The first bytes go out at once, so the client (and any proxy) sees
         * the stream is open before the first event. */
        len = snprintf(block, sizeof block, "retry: %d\n: arbiter events, boot %08" PRIx32 "\n\n", SSE_RETRY_MS,
                       hub->cfg.epoch);
        ctl_append(sub, block, (size_t) len);
        if (reset) {
                sse_id_format(id, hub->cfg.epoch, hub->last_n);
                len = snprintf(block, sizeof block, "id: %s\nevent: reset\ndata: {\"reason\":\"%s\",\"last_id\":\"%s\"}\n\n",
                               id, reset, id);
                ctl_append(sub, block, (size_t) len);
        }

        sub->next = hub->subs;
        if (hub->subs)
                hub->subs->prev = sub;
        hub->subs = sub;
        hub->n_subs++;
        *ret = sub;
        return 0;
}

void sse_sub_free(struct sse_sub *sub) {
        if (!sub)
                return;
        if (sub->hub) {
                if (sub->prev)
                        sub->prev->next = sub->next;
                else
                        sub->hub->subs = sub->next;
                if (sub->next)
                        sub->next->prev = sub->prev;
                sub->hub->n_subs--;
        }
        event_unref(sub->cur);
        free(sub);
}

/* The next event for this subscriber's filter, skipping the others. */
static bool next_event(struct sse_sub *sub) {
        struct sse_hub *hub = sub->hub;

        while (sub->cursor <= hub->last_n) {
                struct sse_event *ev = ring_at(hub, sub->cursor++);
                const char *text = rendering(sub, ev, &sub->cur_len);

                if (text) {
                        sub->cur = ev;
                        sub->cur_text = text;
                        sub->cur_pos = 0;
                        ev->refs++;
                        return true;
                }
        }
        return false;
}

ssize_t sse_sub_fill(struct sse_sub *sub, char *buf, size_t max) {
        size_t n = 0, k;

        sub->waiting = false;
        if (!sub->hub || sub->state == SUB_CLOSED)
                return -EPIPE;
        while (n < max) {
                if (sub->cur) {
                        struct sse_event *ev = sub->cur;
                        k = sub->cur_len - sub->cur_pos < max - n ? sub->cur_len - sub->cur_pos : max - n;
                        memcpy(buf + n, sub->cur_text + sub->cur_pos, k);
                        n += k;
                        sub->cur_pos += k;
                        if (ev->n >= sub->live_from)
                                sub->backlog = sub->backlog > k ? sub->backlog - k : 0;
                        if (sub->cur_pos == sub->cur_len) {
                                sub->cur = NULL;
                                event_unref(ev);
                        }
                        continue;
                }
                if (sub->ctl_pos < sub->ctl_len) {
                        k = sub->ctl_len - sub->ctl_pos < max - n ? sub->ctl_len - sub->ctl_pos : max - n;
                        memcpy(buf + n, sub->ctl + sub->ctl_pos, k);
                        n += k;
                        sub->ctl_pos += k;
                        if (sub->ctl_pos == sub->ctl_len)
                                sub->ctl_pos = sub->ctl_len = 0;
                        continue;
                }
                if (sub->state != SUB_LIVE || !next_event(sub))
                        break;
        }
        if (n > 0)
                return (ssize_t) n;
        if (sub->state != SUB_LIVE)
                return -EPIPE;
        sub->waiting = true;
        return 0;
}
