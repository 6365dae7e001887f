/* api/pool.c — see pool.h.
 *
 * Three intrusive lists, each in the order its members became ready (so
 * oldest first, and for the deadline list, earliest deadline first):
 *   deadline   PENDING connections and requests still uploading (rule 1);
 *   pending    PENDING connections (rule 2's candidates);
 *   a peer's   its PENDING connections (rule 3's candidates).
 * A connection is appended when it becomes ready and unlinked when it
 * leaves the state, so no list is ever sorted.
 *
 * Addresses live in a hash table of chained peers, keyed with a seeded
 * FNV-1a so that a client cannot choose addresses that share a chain
 * without knowing the seed; a peer is freed with its last connection.
 */
#include "api/pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Buckets of the address table: a venue has at most a few thousand client
 * addresses, so chains stay a few entries long.  A power of two. */
#define PEER_BUCKETS 1024

/* FNV-1a 64 (Fowler, Noll, Vo: the offset basis and prime published with
 * the algorithm, http://www.isthe.com/chongo/tech/comp/fnv/). */
#define FNV64_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV64_PRIME  UINT64_C(0x100000001b3)

struct link {
        struct pool_conn *prev, *next;
};

struct list {
        struct pool_conn *head, *tail;
};

struct peer {
        struct peer *next;              /* in its bucket */
        struct pool_addr addr;
        unsigned conns;                 /* every state but none: freed at 0 */
        unsigned pending;               /* PENDING */
        unsigned requests;              /* GENERAL + STREAM */
        struct list pending_list;
};

struct pool_conn {
        struct peer *peer;
        void *userdata;
        enum pool_state state;
        bool in_deadline;               /* in the deadline list */
        bool stream;                    /* its reply is a stream (STREAM, or a priority stream) */
        int64_t ready_usec;
        struct link deadline, pending, at_peer;
};

struct pool {
        struct pool_limits limits;
        uint64_t seed;
        pool_close_fn close_fn;
        void *userdata;
        struct list deadline, pending;
        struct peer *buckets[PEER_BUCKETS];
        struct pool_stats stats;        /* closed[], refused_*; the rest computed */
        unsigned count[POOL_N_STATES];
        unsigned streams, addresses;
};

/* Each list threads through one of the connection's links. */
static struct link *link_of(struct pool_conn *c, size_t offset) {
        return (struct link *) ((char *) c + offset);
}

static void list_append(struct list *l, struct pool_conn *c, size_t offset) {
        struct link *k = link_of(c, offset);

        k->prev = l->tail;
        k->next = NULL;
        if (l->tail)
                link_of(l->tail, offset)->next = c;
        else
                l->head = c;
        l->tail = c;
}

static void list_remove(struct list *l, struct pool_conn *c, size_t offset) {
        struct link *k = link_of(c, offset);

        if (k->prev)
                link_of(k->prev, offset)->next = k->next;
        else
                l->head = k->next;
        if (k->next)
                link_of(k->next, offset)->prev = k->prev;
        else
                l->tail = k->prev;
        k->prev = k->next = NULL;
}

#define DEADLINE offsetof(struct pool_conn, deadline)
#define PENDING  offsetof(struct pool_conn, pending)
#define AT_PEER  offsetof(struct pool_conn, at_peer)

static size_t bucket_of(const struct pool *p, const struct pool_addr *a) {
        uint64_t h = FNV64_OFFSET ^ p->seed;

        h = (h ^ a->family) * FNV64_PRIME;
        for (size_t i = 0; i < POOL_ADDR_MAX; i++)
                h = (h ^ a->bytes[i]) * FNV64_PRIME;
        return (size_t) (h ^ h >> 32) & (PEER_BUCKETS - 1);
}

static bool addr_equal(const struct pool_addr *a, const struct pool_addr *b) {
        return a->family == b->family && memcmp(a->bytes, b->bytes, POOL_ADDR_MAX) == 0;
}

static struct peer *peer_get(struct pool *p, const struct pool_addr *addr) {
        size_t b = bucket_of(p, addr);
        struct peer *e;

        for (e = p->buckets[b]; e; e = e->next)
                if (addr_equal(&e->addr, addr))
                        return e;
        e = calloc(1, sizeof *e);
        if (!e)
                return NULL;
        e->addr = *addr;
        e->next = p->buckets[b];
        p->buckets[b] = e;
        p->addresses++;
        return e;
}

static void peer_put(struct pool *p, struct peer *e) {
        struct peer **at;

        if (--e->conns > 0)
                return;
        for (at = &p->buckets[bucket_of(p, &e->addr)]; *at != e; at = &(*at)->next)
                ;
        *at = e->next;
        p->addresses--;
        free(e);
}

static unsigned used(const struct pool *p) {
        return p->count[POOL_PENDING] + p->count[POOL_GENERAL] + p->count[POOL_STREAM];
}

/* The connection leaves its state: out of its state's lists and counts
 * (the deadline list is left apart: a request keeps its deadline from
 * PENDING through its upload). */
static void leave(struct pool *p, struct pool_conn *c) {
        switch (c->state) {
        case POOL_PENDING:
                list_remove(&p->pending, c, PENDING);
                list_remove(&c->peer->pending_list, c, AT_PEER);
                c->peer->pending--;
                break;
        case POOL_GENERAL:
        case POOL_STREAM:
                c->peer->requests--;
                break;
        default:
                break;
        }
        if (c->stream)
                p->streams--;
        c->stream = false;
        p->count[c->state]--;
}

static void deadline_stop(struct pool *p, struct pool_conn *c) {
        if (!c->in_deadline)
                return;
        list_remove(&p->deadline, c, DEADLINE);
        c->in_deadline = false;
}

static void enter(struct pool *p, struct pool_conn *c, enum pool_state state) {
        c->state = state;
        p->count[state]++;
        switch (state) {
        case POOL_PENDING:
                list_append(&p->pending, c, PENDING);
                list_append(&c->peer->pending_list, c, AT_PEER);
                c->peer->pending++;
                break;
        case POOL_GENERAL:
        case POOL_STREAM:
                c->peer->requests++;
                break;
        default:
                break;
        }
}

/* Becomes ready for a request at now: PENDING, its deadline running. */
static void make_pending(struct pool *p, struct pool_conn *c, int64_t now) {
        enter(p, c, POOL_PENDING);
        c->ready_usec = now;
        list_append(&p->deadline, c, DEADLINE);
        c->in_deadline = true;
}

static void close_conn(struct pool *p, struct pool_conn *c, enum pool_reason why) {
        deadline_stop(p, c);
        leave(p, c);
        enter(p, c, POOL_CLOSING);
        p->stats.closed[why]++;
        p->close_fn(p->userdata, c->userdata, why);
}

/* Rule 2: the oldest PENDING connections other than keep go while used is
 * over the budget. */
static void make_room(struct pool *p, const struct pool_conn *keep) {
        while (used(p) > p->limits.budget) {
                struct pool_conn *c = p->pending.head;

                if (c == keep)
                        c = c->pending.next;
                if (!c)
                        return;
                close_conn(p, c, POOL_EVICTED);
        }
}

int pool_new(const struct pool_limits *limits, uint64_t seed, pool_close_fn close_fn, void *userdata,
             struct pool **ret) {
        struct pool *p;

        if (limits->budget < 1 || limits->per_address < 1 || limits->pending_per_address < 1 ||
            limits->request_timeout_usec <= 0)
                return -EINVAL;
        p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        p->limits = *limits;
        p->seed = seed;
        p->close_fn = close_fn;
        p->userdata = userdata;
        *ret = p;
        return 0;
}

void pool_free(struct pool *p) {
        free(p);
}

int pool_open(struct pool *p, const struct pool_addr *addr, int64_t now, void *conn_userdata,
              struct pool_conn **ret) {
        struct pool_conn *c = calloc(1, sizeof *c);

        if (!c)
                return -ENOMEM;
        c->peer = peer_get(p, addr);
        if (!c->peer) {
                free(c);
                return -ENOMEM;
        }
        c->peer->conns++;
        c->userdata = conn_userdata;
        make_pending(p, c, now);
        /* Rule 3, then rule 2: c is the newest, so never the oldest. */
        if (c->peer->pending > p->limits.pending_per_address)
                close_conn(p, c->peer->pending_list.head, POOL_EVICTED_ADDRESS);
        make_room(p, c);
        *ret = c;
        return 0;
}

enum pool_admit pool_classify(struct pool *p, struct pool_conn *c, bool priority) {
        if (c->state != POOL_PENDING)
                return POOL_ADMITTED;   /* a bug upstream; nothing to decide */
        leave(p, c);
        enter(p, c, priority ? POOL_PRIORITY : POOL_GENERAL);
        if (priority)
                return POOL_ADMITTED;
        make_room(p, c);
        if (used(p) > p->limits.budget) {
                p->stats.refused_full++;
                return POOL_FULL;
        }
        if (c->peer->requests > p->limits.per_address) {
                p->stats.refused_address++;
                return POOL_ADDRESS_FULL;
        }
        return POOL_ADMITTED;
}

void pool_request_in(struct pool *p, struct pool_conn *c) {
        deadline_stop(p, c);
}

void pool_stream(struct pool *p, struct pool_conn *c) {
        if (c->stream || (c->state != POOL_GENERAL && c->state != POOL_PRIORITY))
                return;
        pool_request_in(p, c);
        if (c->state == POOL_GENERAL) {
                leave(p, c);
                enter(p, c, POOL_STREAM);
        }
        c->stream = true;
        p->streams++;
}

void pool_done(struct pool *p, struct pool_conn *c, int64_t now) {
        if (c->state == POOL_CLOSING)
                return;
        deadline_stop(p, c);
        leave(p, c);
        make_pending(p, c, now);
}

void pool_closing(struct pool *p, struct pool_conn *c) {
        if (c->state == POOL_CLOSING)
                return;
        deadline_stop(p, c);
        leave(p, c);
        enter(p, c, POOL_CLOSING);
}

void pool_close(struct pool *p, struct pool_conn *c) {
        if (!c)
                return;
        deadline_stop(p, c);
        leave(p, c);
        peer_put(p, c->peer);
        free(c);
}

void pool_expire(struct pool *p, int64_t now) {
        struct pool_conn *c;

        while ((c = p->deadline.head) && c->ready_usec + p->limits.request_timeout_usec <= now)
                close_conn(p, c, POOL_TIMED_OUT);
}

int64_t pool_next_deadline(const struct pool *p) {
        return p->deadline.head ? p->deadline.head->ready_usec + p->limits.request_timeout_usec : INT64_MAX;
}

enum pool_state pool_conn_state(const struct pool_conn *c) {
        return c->state;
}

void pool_stats(const struct pool *p, struct pool_stats *ret) {
        *ret = p->stats;
        memcpy(ret->state, p->count, sizeof ret->state);
        ret->streams = p->streams;
        ret->addresses = p->addresses;
}
