/* tools/arbiter-bots/bots.c — see bots.h. */
#define _GNU_SOURCE
#include "tools/arbiter-bots/bots.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>

#include "common/log.h"
#include "common/time.h"
#include "tools/arbiter-bots/play.h"
#include "tools/arbiter-bots/rest.h"
#include "tools/arbiter-bots/sse.h"
#include "tools/arbiter-bots/table.h"

/* Reconnecting while arbiterd is away: 0.25 s, doubling up to 4 s — it is
 * back within seconds after a restart, and a local request costs nothing. */
#define BACKOFF_MIN_US          (250 * USEC_PER_MSEC)
#define BACKOFF_MAX_US          (4 * USEC_PER_SEC)
/* The daemon answers a stream request at once; this only stops a hang. */
#define OPEN_TIMEOUT_MS         10000
/* With nothing to do, sse_wait_any() waits this long per call (a dead stream
 * is found by sse.h's stall check). */
#define IDLE_WAIT_MS            60000
#define URL_MAX_LEN             512
/* A hosted match that could not be made is tried again after this long at
 * least (the game unknown to the daemon, the table busy). */
#define RETRY_HOST_US           (5 * USEC_PER_SEC)

/* Names for hosted matches when --players gives none: one per seat. */
static const char *const default_players[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gil", "Hal" };
#define N_DEFAULT_PLAYERS       (sizeof default_players / sizeof default_players[0])
#define MAX_GAMES               8
/* The streams waited on at once: the venue's and a play's own. */
#define MAX_STREAMS             16

struct bots {
        const struct bots_options *opt;
        struct rest *rest;
        struct play *plays[MAX_GAMES];  /* one per game of play_games[] */
        const struct play_game *game;   /* the followed match's game; NULL: none we play */
        struct play *play;              /* its play */
        struct table table;
        bool have_table;
        json_int_t match;               /* the match followed; 0: none */
        bool hosted;                    /* match is one we created */
        json_int_t created;             /* the last match we created */
        int64_t create_at;              /* when to host the next match; INT64_MAX: not planned */
        int waiting;                    /* why the last connection failed (-errno); 0: it did not */
};

/* A failure that no reconnect cures: stdout (padsim) is gone. */
#define FATAL                   (-EPIPE)

static void plan_next(struct bots *b, int64_t at) {
        b->create_at = b->opt->keep_playing ? at : INT64_MAX;
}

/* Looks at the followed match. */
static int look(struct bots *b) {
        json_t *m;
        int r;

        if (!b->play)
                return 0;
        if (b->game->streams) {         /* a play with streams of its own reads them */
                b->game->look(b->play, NULL, now_usec());
                return 0;
        }
        if ((r = table_match(b->rest, b->match, &m)) < 0)
                return r;
        b->game->look(b->play, m, now_usec());
        json_decref(m);
        return 0;
}

static const char *seat_name(struct bots *b, int seat) {
        static char name[32];

        if (b->play)
                return b->game->seat_name(b->play, seat);
        snprintf(name, sizeof name, "seat %d", seat);
        return name;
}

/* Follows match (its JSON): sits the bots at it and looks at the table. */
static void follow(struct bots *b, json_t *m, bool hosted) {
        json_int_t id = json_integer_value(json_object_get(m, "id"));
        const char *game = json_string_value(json_object_get(m, "game"));
        char names[N_DEFAULT_PLAYERS * 80] = "";
        int ours = 0;

        b->match = id;
        b->hosted = hosted;
        b->create_at = INT64_MAX;
        b->game = NULL;
        b->play = NULL;
        for (size_t g = 0; play_games[g]; g++)
                if (game && strcmp(play_games[g]->name, game) == 0 && b->plays[g]) {
                        b->game = play_games[g];
                        b->play = b->plays[g];
                }
        if (b->play && (ours = b->game->sit(b->play, m)) <= 0) {
                b->game->forget(b->play);
                b->play = NULL;
        }
        for (size_t i = 0; i < json_array_size(json_object_get(m, "seats")); i++) {
                const char *n = json_string_value(json_object_get(json_array_get(json_object_get(m, "seats"), i),
                                                                  "name"));
                size_t len = strlen(names);
                snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", n ? n : "?");
        }
        if (ours > 0)
                log_notice("match %lld at %s: %s; the bots play %d seat%s", (long long) id, b->opt->table, names,
                           ours, ours == 1 ? "" : "s");
        else
                log_notice("match %lld at %s: %s; %s", (long long) id, b->opt->table, names,
                           !b->game ? "the bots do not play its game" : "none of its seats is a pad of ours");
        if (b->play)
                b->game->look(b->play, m, now_usec());
}

static void unfollow(struct bots *b) {
        b->match = 0;
        b->hosted = false;
        if (b->play)
                b->game->forget(b->play);
        b->game = NULL;
        b->play = NULL;
}

/* The match we host, remembered in opt->state_file so that a restarted
 * arbiter-bots still knows it for its own (a match the daemon replayed and
 * goes on with).  Written whole, by a rename. */
static void remember_hosted(struct bots *b) {
        char tmp[URL_MAX_LEN];
        FILE *f;

        if (!b->opt->state_file)
                return;
        snprintf(tmp, sizeof tmp, "%s.new", b->opt->state_file);
        if (!(f = fopen(tmp, "we")) || fprintf(f, "%lld\n", (long long) b->created) < 0 || fclose(f) != 0 ||
            rename(tmp, b->opt->state_file) < 0)
                log_warning("cannot write %s (%s): a restarted arbiter-bots will not know match %lld for its own",
                            b->opt->state_file, strerror(errno), (long long) b->created);
}

static void recall_hosted(struct bots *b) {
        long long id = 0;
        FILE *f;

        if (!b->opt->state_file || !(f = fopen(b->opt->state_file, "re")))
                return;
        if (fscanf(f, "%lld", &id) == 1 && id > 0)
                b->created = (json_int_t) id;
        fclose(f);
}

/* Creates and starts the next match (keep_playing). */
static void host(struct bots *b) {
        const struct play_game *g = play_game_find(b->opt->game);
        const char *const *names = b->opt->n_players ? b->opt->players : default_players;
        size_t n = b->opt->n_players;
        json_int_t id;
        json_t *m;

        if (!n)
                n = b->table.n_seats < g->max_seats ? b->table.n_seats : g->max_seats;
        if (n < g->min_seats || n > g->max_seats || n > b->table.n_seats) {
                log_error("%s has %u seats: not room for %zu players of %s (%u to %u); not hosting", b->opt->table,
                          b->table.n_seats, n, g->name, g->min_seats, g->max_seats);
                b->create_at = INT64_MAX;
                return;
        }
        if (table_new_match(b->rest, b->table.id, g->name, names, n, b->opt->match_config, &id) < 0 ||
            table_match(b->rest, id, &m) < 0) {
                /* try again, not faster than a person would */
                plan_next(b, now_usec() + (b->opt->between_us > RETRY_HOST_US ? b->opt->between_us : RETRY_HOST_US));
                return;
        }
        b->created = id;
        remember_hosted(b);
        follow(b, m, true);
        json_decref(m);
}

/* Who won and how, as a person at the table would say it. */
static void report_finish(struct bots *b, json_t *ev) {
        json_int_t winner = json_integer_value(json_object_get(ev, "winner"));
        char who[96];
        json_t *m = NULL;

        if (winner > 0)
                snprintf(who, sizeof who, "%s wins", seat_name(b, (int) winner));
        else
                snprintf(who, sizeof who, "the victory is shared");
        if (!b->play || table_match(b->rest, b->match, &m) < 0) {
                log_notice("match %lld at %s is over: %s", (long long) b->match, b->opt->table, who);
                return;
        }
        log_notice("match %lld at %s is over: %s%s", (long long) b->match, b->opt->table, who,
                   winner > 0 ? b->game->how_won(b->play, m) : "");
        json_decref(m);
}

/* A match other than ours has started: is it at our table? */
static int on_started_elsewhere(struct bots *b, json_int_t id) {
        json_t *m;
        int r = table_match(b->rest, id, &m);

        if (r < 0)
                return r;
        if (json_integer_value(json_object_get(m, "table")) != b->table.id) {
                json_decref(m);
                return 0;
        }
        if (b->match && !b->hosted) {
                log_warning("match %lld started at %s while match %lld is live there; the bots stay with %lld",
                            (long long) id, b->opt->table, (long long) b->match, (long long) b->match);
                json_decref(m);
                return 0;
        }
        if (b->match) {
                log_notice("match %lld starts at %s: aborting the bots' match %lld to make room", (long long) id,
                           b->opt->table, (long long) b->match);
                table_abort(b->rest, b->match);
        }
        follow(b, m, false);
        json_decref(m);
        return 0;
}

/* Everything anew: the table, the match at it, the view. */
static int resync(struct bots *b) {
        json_int_t id;
        json_t *m;
        int r;

        unfollow(b);
        if (!b->have_table) {
                if ((r = table_find(b->rest, b->opt->table, &b->table)) < 0)
                        return r;
                b->have_table = true;
        }
        if ((r = table_live_match(b->rest, b->table.id, &id)) < 0)
                return r;
        if (!id) {
                if (b->create_at == INT64_MAX)
                        plan_next(b, now_usec());
                return 0;
        }
        if ((r = table_match(b->rest, id, &m)) < 0)
                return r;
        follow(b, m, id == b->created);
        json_decref(m);
        return 0;
}

static int on_event(struct bots *b, const struct sse_event *ev) {
        json_t *data;
        json_int_t id;
        int r = 0;

        if (strcmp(ev->name, "reset") == 0)
                return resync(b);
        data = json_loads(ev->data, 0, NULL);
        id = json_integer_value(json_object_get(data, "match"));
        log_debug("match %lld: %s", (long long) id, ev->name);
        if (id && id == b->match) {
                if (strcmp(ev->name, "match_finished") == 0) {
                        report_finish(b, data);
                        unfollow(b);
                        plan_next(b, now_usec() + b->opt->between_us);
                } else if (strcmp(ev->name, "match_aborted") == 0) {
                        log_notice("match %lld at %s was aborted", (long long) id, b->opt->table);
                        unfollow(b);
                        plan_next(b, now_usec() + b->opt->between_us);
                } else {
                        r = look(b);
                }
        } else if (id && strcmp(ev->name, "match_started") == 0) {
                r = on_started_elsewhere(b, id);
        }
        json_decref(data);
        return r;
}

/* Milliseconds from now to due (rounded up), at most IDLE_WAIT_MS. */
static int ms_until(int64_t due, int64_t now) {
        int64_t ms;

        if (due <= now)
                return 0;
        ms = (due - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
        return ms < IDLE_WAIT_MS ? (int) ms : IDLE_WAIT_MS;
}

/* One connection to the event stream, until it is lost (-errno) or stdout
 * is (FATAL).  *connected says whether it got as far as following. */
static int session(struct bots *b, bool *connected) {
        char url[URL_MAX_LEN];
        struct sse *s;
        int r;

        snprintf(url, sizeof url, "%s/v1/events?topic=match", rest_url(b->rest));
        if ((r = sse_open(url, rest_token(b->rest), &s)) < 0)
                return r;
        if ((r = sse_wait_open(s, OPEN_TIMEOUT_MS)) < 0) {
                sse_free(s);
                return r;
        }
        if (b->waiting && b->waiting != -ENOENT)
                log_notice("connected to arbiterd at %s", b->opt->url);
        if ((r = resync(b)) < 0) {
                sse_free(s);
                return r;
        }
        *connected = true;
        b->waiting = 0;
        for (;;) {
                int64_t now = now_usec(), due = b->play ? b->game->next_due(b->play) : INT64_MAX;
                struct sse *all[MAX_STREAMS] = { s };
                struct sse *const *own = NULL;
                size_t n_own = 0, n = 1;
                struct sse_event ev;
                int i;

                if (b->create_at < due)
                        due = b->create_at;
                if (b->play && b->game->streams)
                        b->game->streams(b->play, &own, &n_own);
                for (size_t k = 0; k < n_own && n < MAX_STREAMS; k++)
                        all[n++] = own[k];
                i = sse_wait_any(all, n, ms_until(due, now));
                if (i == -ETIMEDOUT)
                        r = 0;
                else if (i < 0)
                        r = i;
                else if (i == 0 && (r = sse_next(s, 0, &ev)) > 0)
                        r = on_event(b, &ev);
                else if (i > 0) {
                        /* a play's own stream: its event or its end, never the session's */
                        int e = sse_next(all[i], 0, &ev);

                        if (e != 0 && b->play)
                                b->game->stream_event(b->play, (size_t) i - 1, e > 0 ? &ev : NULL, e, now_usec());
                        r = 0;
                }
                if (r < 0)
                        break;
                now = now_usec();
                if (b->play && (r = b->game->press(b->play, now, stdout)) < 0) {
                        log_error("cannot write presses to stdout (%s): is arbiter-padsim gone?", strerror(-r));
                        r = FATAL;
                        break;
                }
                if (b->create_at <= now) {
                        b->create_at = INT64_MAX;
                        host(b);
                }
        }
        sse_free(s);
        return r;
}

int bots_run(const struct bots_options *opt) {
        struct bots b = { .opt = opt, .create_at = INT64_MAX };
        int64_t backoff = BACKOFF_MIN_US;

        if (rest_new(opt->url, opt->token, &b.rest) < 0) {
                log_error("out of memory");
                goto out;
        }
        for (size_t g = 0; play_games[g] && g < MAX_GAMES; g++)
                if (play_games[g]->new_play(opt, b.rest, &b.plays[g]) < 0) {
                        log_error("out of memory");
                        goto out;
                }
        recall_hosted(&b);
        log_notice("playing at %s of %s (pads %016" PRIx64 " to %016" PRIx64 ")%s", opt->table, opt->url,
                   opt->uid_base, opt->uid_base + opt->n_pads - 1, opt->keep_playing ? ", hosting" : "");
        for (;;) {
                bool connected = false;
                int r = session(&b, &connected);

                if (r == FATAL)
                        goto out;
                unfollow(&b);
                if (connected) {
                        log_notice("lost arbiterd's event stream (%s); reconnecting", strerror(-r));
                        backoff = BACKOFF_MIN_US;
                } else if (r != b.waiting && r == -ENOENT) {
                        log_notice("waiting for a table called %s (GET /v1/tables)", opt->table);
                } else if (r != b.waiting) {
                        log_notice("waiting for arbiterd at %s (%s)", opt->url, strerror(-r));
                }
                b.waiting = r;
                usleep((useconds_t) backoff);
                backoff = backoff * 2 < BACKOFF_MAX_US ? backoff * 2 : BACKOFF_MAX_US;
        }
out:
        for (size_t g = 0; play_games[g] && g < MAX_GAMES; g++)
                if (b.plays[g])
                        play_games[g]->free_play(b.plays[g]);
        rest_free(b.rest);
        return 1;
}
