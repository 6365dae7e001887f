/* Crazy Pilot end to end: whole matches of 2, 4 and 6 players played on
 * scripted pads — arbiter-padsim on a real pty, a button pad and a slap pad
 * per seat — through the real daemon, PostgreSQL and dbus-daemon:
 *
 *   - every card resolved from its pad (the button its scene calls for:
 *     cz_scene_answer() of engine/crazy_cards.h), every zombie shouted at
 *     and raced for, slaps in a scripted order, the shouter's slap resuming
 *     play, until a starting card ends the match and every seat is scored;
 *   - a true zombie call, a false one, two shouts at once, a racer who
 *     never slaps (the deadline), and a kill -9 of the daemon in the middle
 *     of a race, which goes on after the restart with the slaps made before;
 *   - two players: a shout sends the card in front of the other seat, who
 *     covers it with its seat token; a bluff left uncovered costs its sender;
 *   - every resolution and slap is stored before it is published: the input
 *     of each event read from the stream is in the log, with its reaction
 *     time, when the event arrives, and the log's slap presses give the
 *     race's order, its gaps in microseconds and each press's uncertainty
 *     exactly as the events;
 *   - REST (views, log, result), SSE (the public stream carries no card)
 *     and `busctl --user monitor` (the game's signals, none of a seat's);
 *   - arbiter-bots host and play a two-player match (fast and never
 *     wrong): every zombie sent is covered with the seat's own token.
 *
 * Deterministic: the seeds are fixed and each step waits for the events
 * its presses make before the next.  The human-speed bots are for make
 * run (make-run.sh), not here. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/crazy_cards.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

/* A generous settle window for a sanitizer build, as test_framework.c. */
static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7c00: pads 0..5 are seats 1..6's button pads, pads
 * 6..11 their slap pads. */
#define UID_BASE        "31744"
#define MAX_SEATS       6
#define N_PADS          (2 * MAX_SEATS)
#define BUTTON_SHOUT    5
/* Slaps of a scripted race: this far apart, in µs (well over the clocks'
 * uncertainty, so the order is the script's). */
#define SLAP_GAP_US     7000
/* Two shouts "at the same time": within the default grace of 100 ms. */
#define SHOUT_GAP_US    30000
#define MAX_ROUNDS      200

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *monitor_path, *admin_token, *referee_token, *table_name;
static json_int_t table_id;
static pid_t monitor_pid;

static int buttons_pad(int seat) {
        return seat - 1;
}

static int slap_pad(int seat) {
        return MAX_SEATS + seat - 1;
}

static void expect(const struct http_reply *r, long status) {
        if (r->status != status)
                fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
}

static json_t *get_json(const char *path, const char *token) {
        struct http_reply r;

        http_get(&daemon_, path, token, &r);
        expect(&r, 200);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static json_t *post_json(const char *path, const char *token, const char *body, long status) {
        struct http_reply r;

        http_post_json(&daemon_, path, token, body, &r);
        expect(&r, status);
        json_t *j = json_incref(r.json);
        http_reply_done(&r);
        return j;
}

static bool all_synced(void) {
        struct http_reply r;
        size_t i, n = 0;
        json_t *p;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                n += json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        http_reply_done(&r);
        return n == N_PADS;
}

static void wait_synced(void) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d simulated pads did not all connect and sync", N_PADS);
                usleep(50000);
        }
}

static void start_daemon(void) {
        char *env_pads, *arg;

        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
}

/* Whether the D-Bus monitor's file has a line with needle. */
static bool monitor_has(const char *needle) {
        char *line = NULL;
        size_t cap = 0;
        bool found = false;
        FILE *f = fopen(monitor_path, "r");

        if (!f)
                return false;
        while (!found && getline(&line, &cap, f) > 0)
                found = strstr(line, needle) != NULL;
        free(line);
        fclose(f);
        return found;
}

static int setup(void **state) {
        char body[2048];
        size_t len;
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("cz")) > 0);
        assert_true(asprintf(&monitor_path, "%s/%s.json", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);
        const char *sim_args[] = { "--kinds", "buttons,buttons,buttons,buttons,buttons,buttons,slap,slap,slap,slap,"
                                   "slap,slap", "--buttons", "6", "--link", link_path, "--seed", "31",
                                   "--uid-base", UID_BASE, NULL };
        padsim_start(&sim, sim_args);
        start_daemon();
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        wait_synced();

        /* seat n: button pad 0x7c00 + n - 1, slap pad 0x7c06 + n - 1 */
        table_name = strdup(unique_name("cztable"));
        len = (size_t) snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [", table_name);
        for (int s = 1; s <= MAX_SEATS; s++)
                len += (size_t) snprintf(body + len, sizeof body - len,
                                         "%s{\"seat\": %d, \"pads\": [{\"pad\": \"%016x\", \"role\": \"buttons\"}, "
                                         "{\"pad\": \"%016x\", \"role\": \"slap\"}]}", s > 1 ? ", " : "", s,
                                         0x7c00 + buttons_pad(s), 0x7c00 + slap_pad(s));
        snprintf(body + len, sizeof body - len, "]}");
        json_t *t = post_json("/v1/tables", admin_token, body, 201);
        table_id = json_integer_value(json_object_get(t, "id"));
        json_decref(t);

        /* a real D-Bus client records the game's signals for the whole run;
         * a probe signal it shows says it is listening */
        char *pid_s = run_capture(NULL, "busctl --user monitor --json=short --match "
                                        "\"type='signal',interface='org.arbiter.Arbiter1.CrazyPilot'\" "
                                        "> '%s' 2>/dev/null & echo $!", monitor_path);
        monitor_pid = (pid_t) atoi(pid_s);
        free(pid_s);
        assert_true(monitor_pid > 0);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !monitor_has("\"Probe\"");) {
                if (mono_ms() > deadline)
                        fail_msg("busctl monitor never showed the probe signal");
                run_cmd("busctl --user emit /org/arbiter/test/probe org.arbiter.Arbiter1.CrazyPilot Probe");
                usleep(50000);
        }
        return 0;
}

static int teardown(void **state) {
        (void) state;
        if (monitor_pid > 0)
                kill(monitor_pid, SIGTERM);
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(monitor_path);
        free(admin_token);
        free(referee_token);
        free(table_name);
        return st == 0 ? 0 : -1;
}

/* ---- one match ------------------------------------------------------------ */

struct game {
        json_int_t id;
        int n;
        struct stream pub;              /* the match's public events */
        size_t at;                      /* the next event of pub not looked at */
        char *tokens[MAX_SEATS + 1];    /* seat tokens */
        int penalties[MAX_SEATS + 1];   /* penalty_given seen, per seat */
        int false_shouts[MAX_SEATS + 1];
        int bluffs[MAX_SEATS + 1];      /* 2 players: uncovered cards without a zombie sent */
        int races, sent, covered;
        bool finished;
};

static void open_stream(struct game *g) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) g->id);
        stream_open(&g->pub, daemon_.url, path, NULL);
        g->at = 0;
}

static void game_start(struct game *g, int n, int seed, const char *config) {
        static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay" };
        char body[1024], path[128];
        size_t len;

        memset(g, 0, sizeof *g);
        g->n = n;
        len = (size_t) snprintf(body, sizeof body, "{\"game\": \"crazy-pilot\", \"table\": %lld, \"seed\": %d, "
                                "\"config\": %s, \"players\": [", (long long) table_id, seed, config);
        for (int s = 0; s < n; s++)
                len += (size_t) snprintf(body + len, sizeof body - len, "%s\"%s\"", s ? ", " : "", names[s]);
        snprintf(body + len, sizeof body - len, "]}");
        json_t *m = post_json("/v1/matches", referee_token, body, 201);
        g->id = json_integer_value(json_object_get(m, "id"));
        json_decref(m);
        for (int s = 1; s <= n; s++) {
                snprintf(path, sizeof path, "/v1/matches/%lld/seats/%d/token", (long long) g->id, s);
                json_t *t = post_json(path, referee_token, "{}", 201);
                g->tokens[s] = strdup(json_string_value(json_object_get(t, "token")));
                json_decref(t);
        }
        open_stream(g);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) g->id);
        json_decref(post_json(path, referee_token, "{}", 200));
}

static void game_done(struct game *g) {
        stream_close(&g->pub);
        for (int s = 1; s <= g->n; s++)
                free(g->tokens[s]);
}

static int ev_seat(const struct event *e) {
        return (int) json_integer_value(json_object_get(e->data, "seat"));
}

static json_int_t ev_seq(const struct event *e) {
        return json_integer_value(json_object_get(e->data, "seq"));
}

/* The stored input seq of match id (GET …/log), a new reference, or fails:
 * an event is published only once its input is stored. */
static json_t *stored(json_int_t id, json_int_t seq) {
        char path[128];

        snprintf(path, sizeof path, "/v1/matches/%lld/log?after=%lld&limit=1", (long long) id, (long long) seq - 1);
        json_t *log = get_json(path, referee_token), *row = json_array_get(json_object_get(log, "items"), 0);
        if (json_integer_value(json_object_get(row, "seq")) != seq)
                fail_msg("input %lld of match %lld was published before it was stored", (long long) seq,
                         (long long) id);
        json_incref(row);
        json_decref(log);
        return row;
}

/* The next public event named name (any seat), in order; also notes what
 * passes by.  NULL when stop_at (may be NULL) comes first. */
static const struct event *next_event(struct game *g, const char *name, const char *stop_at) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                while (g->at < g->pub.n_events) {
                        const struct event *e = &g->pub.events[g->at++];

                        /* the public stream never carries a card's face or answer */
                        if (json_object_get(e->data, "card") || json_object_get(e->data, "answer"))
                                fail_msg("the public event %s carries a card: %s", e->name,
                                         json_dumps(e->data, JSON_COMPACT));
                        if (strcmp(e->name, "card_resolved") == 0 || strcmp(e->name, "slap_recorded") == 0) {
                                /* stored with its reaction time */
                                json_t *row = stored(g->id, ev_seq(e));
                                assert_int_equal(json_integer_value(json_object_get(row, "reaction_us")),
                                                 json_integer_value(json_object_get(e->data, "reaction_us")));
                                assert_true(json_is_integer(json_object_get(row, "reaction_us")));
                                json_decref(row);
                        }
                        if (strcmp(e->name, "zombie_called") == 0)
                                json_decref(stored(g->id, ev_seq(e)));
                        if (strcmp(e->name, "penalty_given") == 0)
                                g->penalties[ev_seat(e)]++;
                        if (strcmp(e->name, "match_finished") == 0)
                                g->finished = true;
                        if (strcmp(e->name, name) == 0)
                                return e;
                        if (stop_at && strcmp(e->name, stop_at) == 0)
                                return NULL;
                }
                if (g->pub.done || mono_ms() > deadline)
                        fail_msg("match %lld: no %s event came (after #%zu)", (long long) g->id, name, g->at);
                pump(&g->pub, 20);
        }
}

static json_t *referee_view(struct game *g) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) g->id);
        json_t *r = get_json(path, referee_token), *v = json_incref(json_object_get(r, "view"));
        json_decref(r);
        return v;
}

static json_t *seat_view(struct game *g, int seat) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/seats/%d", (long long) g->id, seat);
        return get_json(path, g->tokens[seat]);
}

static int by_name(const char *(*name_of)(unsigned), const char *name) {
        const char *n;

        for (unsigned i = 0; name && (n = name_of(i)); i++)
                if (strcmp(n, name) == 0)
                        return (int) i;
        fail_msg("no such name in the catalogue: %s", name ? name : "(null)");
        return -1;
}

/* What a card's face ({"handle", "name", "scene"}) calls for. */
static enum cz_answer answer_of(json_t *card) {
        json_t *sc = json_object_get(card, "scene"), *it;
        struct cz_scene s = {
                .road = (uint8_t) by_name(cz_road_name, json_string_value(json_object_get(sc, "road"))),
                .lanes = (uint8_t) json_integer_value(json_object_get(sc, "lanes")),
                .car_lane = (uint8_t) json_integer_value(json_object_get(sc, "car_lane")),
                .light = (uint8_t) by_name(cz_light_name, json_string_value(json_object_get(sc, "light"))),
                .sign = (uint8_t) by_name(cz_sign_name, json_string_value(json_object_get(sc, "sign"))),
                .marking = (uint8_t) by_name(cz_marking_name, json_string_value(json_object_get(sc, "marking"))),
        };
        size_t i;

        assert_true(json_is_object(sc));
        assert_true(json_array_size(json_object_get(sc, "items")) <= CZ_MAX_ITEMS);
        json_array_foreach(json_object_get(sc, "items"), i, it)
                s.items[s.n_items++] = (struct cz_item) {
                        (uint8_t) by_name(cz_item_name, json_string_value(json_object_get(it, "kind"))),
                        (uint8_t) json_integer_value(json_object_get(it, "lane")),
                        (uint8_t) json_integer_value(json_object_get(it, "row")) };
        return cz_scene_answer(&s, NULL);
}

/* The button of a right placement: the answer's own, a fork on its turn. */
static int button_of(enum cz_answer a) {
        switch (a) {
        case CZ_ANS_FORK_LEFT:
                return CZ_ANS_LEFT;
        case CZ_ANS_FORK_RIGHT:
                return CZ_ANS_RIGHT;
        case CZ_ANS_ZOMBIE:
                return BUTTON_SHOUT;
        default:
                return (int) a;         /* straight, left, right, u_turn, hand: buttons 0..4 */
        }
}

/* The face-up card of each seat (referee view), NULL for none; phase. */
static const char *look(struct game *g, json_t **ret_view, json_t *cards[MAX_SEATS + 1]) {
        json_t *v = referee_view(g), *s;
        size_t i;

        for (int k = 0; k <= MAX_SEATS; k++)
                cards[k] = NULL;
        json_array_foreach(json_object_get(json_object_get(v, "referee"), "seats"), i, s) {
                json_t *c = json_object_get(s, "card");
                int seat = (int) json_integer_value(json_object_get(s, "seat"));

                assert_true(seat >= 1 && seat <= g->n);
                /* the referee sees faces, never an answer before scoring */
                assert_null(json_object_get(c, "answer"));
                cards[seat] = json_is_object(c) ? c : NULL;
        }
        *ret_view = v;
        return json_string_value(json_object_get(v, "phase"));
}

/* One padsim write of several presses: {pad, button, in_us} each. */
struct press { int pad, button, in_us; };

static void press_all(const struct press *p, int n) {
        char buf[2048];
        size_t len = 0;

        for (int i = 0; i < n; i++)
                len += (size_t) snprintf(buf + len, sizeof buf - len, "%s{\"in_us\":%d,\"pad\":%d,\"button\":%d,"
                                         "\"press\":true}", i ? "\n" : "", p[i].in_us, p[i].pad, p[i].button);
        padsim_send(&sim, "%s", buf);
}

/* Every seat with a card places it where its scene says (zombies aside):
 * the presses in one write, 3 ms apart; waits for each resolution, or the
 * end.  How many were pressed. */
static int round_of_placements(struct game *g, json_t *cards[], const int *skip) {
        struct press p[MAX_SEATS];
        int n = 0, got = 0;

        for (int s = 1; s <= g->n; s++) {
                if (!cards[s] || (skip && skip[s]))
                        continue;
                enum cz_answer a = answer_of(cards[s]);
                if (a == CZ_ANS_ZOMBIE)
                        continue;
                p[n++] = (struct press) { buttons_pad(s), button_of(a), 1000 + 3000 * n };
        }
        if (!n)
                return 0;
        press_all(p, n);
        while (got < n) {
                const struct event *e = next_event(g, "card_resolved", "match_finished");

                if (!e)
                        break;
                got++;
                const char *pl = json_string_value(json_object_get(e->data, "placement"));
                assert_non_null(pl);
                assert_true(json_is_integer(json_object_get(e->data, "reaction_us")));
                assert_null(json_object_get(e->data, "verdict"));
        }
        return n;
}

/* The log's row of a slap (its seq): its press time and uncertainty. */
static void slap_row(struct game *g, json_int_t seq, int seat, json_int_t *ret_press, json_int_t *ret_unc) {
        json_t *row = stored(g->id, seq), *in = json_object_get(row, "input");

        assert_string_equal(json_string_value(json_object_get(row, "kind")), "press");
        assert_string_equal(json_string_value(json_object_get(row, "source")), "pad");
        assert_true(json_is_null(json_object_get(row, "refusal")));
        assert_string_equal(json_string_value(json_object_get(in, "role")), "slap");
        assert_int_equal(json_integer_value(json_object_get(in, "seat")), seat);
        *ret_press = json_integer_value(json_object_get(in, "press_us"));
        *ret_unc = json_integer_value(json_object_get(in, "uncertainty_us"));
        json_decref(row);
}

struct race_plan {
        int shouters[MAX_SEATS];        /* in press order, SHOUT_GAP_US apart */
        int n_shouters;
        int order[MAX_SEATS];           /* the racers who slap, in order */
        int n_order;
        int missing;                    /* a racer who never slaps (the deadline), or 0 */
        bool kill_after;                /* kill -9 the daemon after this many slaps (kill_at) */
        int kill_at;
};

/* Waits for the k-th slap of plan (0-based): its event and log row. */
static void expect_slap(struct game *g, const struct race_plan *rp, int k, json_int_t *prev_press,
                        json_int_t *prev_unc) {
        const struct event *e = next_event(g, "slap_recorded", NULL);
        json_int_t press, unc;

        assert_int_equal(ev_seat(e), rp->order[k]);
        assert_int_equal(json_integer_value(json_object_get(e->data, "order")), k + 1);
        slap_row(g, ev_seq(e), rp->order[k], &press, &unc);
        /* the log gives the event's uncertainty and gap to the microsecond */
        assert_int_equal(json_integer_value(json_object_get(e->data, "uncertainty_us")), unc);
        if (k == 0) {
                assert_true(json_is_null(json_object_get(e->data, "gap_us")));
        } else {
                json_int_t gap = json_integer_value(json_object_get(e->data, "gap_us"));

                /* to the microsecond, as the log's press times say; the
                 * script's 7 ms is no assertion (how late the simulator
                 * reads a line is the machine's business) */
                assert_int_equal(gap, press - *prev_press);
                assert_true(gap > 0);
        }
        assert_true(json_integer_value(json_object_get(e->data, "reaction_us")) > 0);
        *prev_press = press;
        *prev_unc = unc;
}

static void restart_daemon(struct game *g);

/* A whole race: the shouts, the slaps in order, the check, the penalty,
 * the earliest shouter's slap resuming play.  zombie[k]: whether shouter
 * k's card holds a zombie. */
static void run_race(struct game *g, const struct race_plan *rp, const bool *zombie) {
        struct press p[MAX_SEATS];
        json_int_t prev_press = 0, prev_unc = 0;
        bool any = false;
        const struct event *e;
        int from_penalties[MAX_SEATS + 1];

        memcpy(from_penalties, g->penalties, sizeof from_penalties);
        for (int k = 0; k < rp->n_shouters; k++) {
                p[k] = (struct press) { buttons_pad(rp->shouters[k]), BUTTON_SHOUT, 1000 + SHOUT_GAP_US * k };
                any |= zombie[k];
        }
        press_all(p, rp->n_shouters);
        /* every shout is in: the last zombie_called names them all */
        for (;;) {
                e = next_event(g, "zombie_called", NULL);
                if ((int) json_array_size(json_object_get(e->data, "seats")) == rp->n_shouters)
                        break;
        }
        assert_int_equal(json_array_size(json_object_get(e->data, "racers")), g->n - rp->n_shouters);
        assert_true(json_is_integer(json_object_get(e->data, "deadline_us")));

        int first = rp->kill_after ? rp->kill_at : rp->n_order;
        for (int k = 0; k < first; k++)
                p[k] = (struct press) { slap_pad(rp->order[k]), 0, 1000 + SLAP_GAP_US * k };
        press_all(p, first);
        for (int k = 0; k < first; k++)
                expect_slap(g, rp, k, &prev_press, &prev_unc);
        if (rp->kill_after) {
                /* the slaps so far are stored: kill -9 now, in the race */
                restart_daemon(g);
                json_t *v = referee_view(g), *race = json_object_get(v, "race");
                assert_string_equal(json_string_value(json_object_get(v, "phase")), "race");
                assert_int_equal(json_array_size(json_object_get(race, "slaps")), rp->kill_at);
                assert_int_equal(json_array_size(json_object_get(race, "waiting_seats")),
                                 g->n - rp->n_shouters - rp->kill_at);
                json_decref(v);
                /* the seat still to slap is told so on its own view */
                v = seat_view(g, rp->order[rp->kill_at]);
                assert_true(json_is_true(json_object_get(json_object_get(v, "you"), "must_slap")));
                json_decref(v);
                for (int k = rp->kill_at; k < rp->n_order; k++)
                        p[k - rp->kill_at] = (struct press) { slap_pad(rp->order[k]), 0,
                                                              1000 + SLAP_GAP_US * (k - rp->kill_at) };
                press_all(p, rp->n_order - rp->kill_at);
                for (int k = rp->kill_at; k < rp->n_order; k++) {
                        const struct event *s = next_event(g, "slap_recorded", NULL);
                        json_int_t press, unc;

                        /* the order goes on from the slaps made before the restart */
                        assert_int_equal(ev_seat(s), rp->order[k]);
                        assert_int_equal(json_integer_value(json_object_get(s->data, "order")), k + 1);
                        slap_row(g, ev_seq(s), rp->order[k], &press, &unc);
                        assert_int_equal(json_integer_value(json_object_get(s->data, "uncertainty_us")), unc);
                        assert_int_equal(json_integer_value(json_object_get(s->data, "gap_us")), press - prev_press);
                        prev_press = press;
                }
        }
        /* one check per shouter, then the penalty */
        for (int k = 0; k < rp->n_shouters; k++) {
                e = next_event(g, "zombie_checked", NULL);
                int seat = ev_seat(e), idx = -1;

                for (int j = 0; j < rp->n_shouters; j++)
                        if (rp->shouters[j] == seat)
                                idx = j;
                assert_true(idx >= 0);
                assert_int_equal(json_is_true(json_object_get(e->data, "zombie")), zombie[idx]);
                assert_string_equal(json_string_value(json_object_get(e->data, "placement")),
                                    zombie[idx] ? "under_car" : "set_aside");
                if (!zombie[idx])
                        g->false_shouts[seat]++;
        }
        /* the earliest shouter resumes play with its slap pad */
        p[0] = (struct press) { slap_pad(rp->shouters[0]), 0, 1000 };
        press_all(p, 1);
        e = next_event(g, "play_resumed", "match_finished");
        if (e)
                assert_string_equal(json_string_value(json_object_get(e->data, "by")), "shouter");
        /* Z19, Z22: a penalty only if a card had a zombie: for the last to
         * slap, or for each racer who did not slap in time */
        for (int s = 1; s <= g->n; s++) {
                int want = 0;

                if (any && rp->missing)
                        want = s == rp->missing;
                else if (any)
                        want = s == rp->order[rp->n_order - 1];
                assert_int_equal(g->penalties[s] - from_penalties[s], want);
        }
        g->races++;
}

/* kill -9 and a restart: the match is rebuilt from its log and the public
 * stream opened again (the old one ended with the daemon). */
static void restart_daemon(struct game *g) {
        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);
        stream_close(&g->pub);
        start_daemon();
        assert_true(daemon_wait_log(&daemon_, "rebuilt from the input log", HARNESS_WAIT_MS));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        wait_synced();
        open_stream(g);
}

/* The final result: every seat's score is the sum of its terms, and the
 * terms are what the match did. */
static json_t *check_result(struct game *g) {
        char path[96];
        size_t i;
        json_t *pl;
        int pen = 0, fs = 0;

        for (int s = 1; s <= g->n; s++) {
                pen += g->penalties[s];
                fs += g->false_shouts[s];
        }
        print_message("# match %lld, %d players: %zu public events, %d races (%d false shouts), %d penalties, "
                      "%d cards sent, %d covered\n", (long long) g->id, g->n, g->pub.n_events, g->races, fs, pen,
                      g->sent, g->covered);

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) g->id);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *m = get_json(path, referee_token);
                if (strcmp(json_string_value(json_object_get(m, "state")), "finished") == 0) {
                        json_array_foreach(json_object_get(json_object_get(m, "result"), "placements"), i, pl) {
                                json_t *sc = json_object_get(pl, "score"), *terms = json_object_get(sc, "terms");
                                int seat = (int) json_integer_value(json_object_get(pl, "seat"));
                                json_int_t sum = 0;
                                const char *k;
                                json_t *v;

                                json_object_foreach(terms, k, v)
                                        sum += json_integer_value(v);
                                assert_int_equal(sum, json_integer_value(json_object_get(sc, "total")));
                                /* every card was placed where its scene said */
                                assert_int_equal(json_integer_value(json_object_get(terms, "wrong")), 0);
                                assert_int_equal(json_integer_value(json_object_get(terms, "penalties")),
                                                 -g->penalties[seat]);
                                assert_int_equal(json_integer_value(json_object_get(terms, "set_aside")),
                                                 -g->false_shouts[seat]);
                                assert_int_equal(json_integer_value(json_object_get(terms, "bluffs")),
                                                 -g->bluffs[seat]);
                                assert_int_equal(json_integer_value(json_object_get(terms, "front")), 0);
                        }
                        assert_false(json_is_null(json_object_get(m, "seed")));
                        return m;
                }
                json_decref(m);
                if (mono_ms() > deadline)
                        fail_msg("match %lld never finished", (long long) g->id);
                usleep(20000);
        }
}

/* The game's signals on D-Bus for the match: the public ones, no seat's. */
static void check_dbus(struct game *g, const char *const *members) {
        char path[96], needle[160];

        snprintf(path, sizeof path, "\"/org/arbiter/Arbiter1/match/%lld\"", (long long) g->id);
        for (const char *const *m = members; *m; m++) {
                snprintf(needle, sizeof needle, "\"member\":\"%s\"", *m);
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                        char *line = NULL;
                        size_t cap = 0;
                        bool found = false;
                        FILE *f = fopen(monitor_path, "r");

                        assert_non_null(f);
                        while (!found && getline(&line, &cap, f) > 0)
                                found = strstr(line, path) && strstr(line, needle);
                        free(line);
                        fclose(f);
                        if (found)
                                break;
                        if (mono_ms() > deadline)
                                fail_msg("busctl monitor saw no %s of match %lld", *m, (long long) g->id);
                        usleep(50000);
                }
        }
        /* a seat's event (its new card) is never a signal */
        snprintf(needle, sizeof needle, "\"member\":\"CardShown\"");
        assert_false(monitor_has(needle));
}

/* The racers of a plan: every seat that does not shout, in seat order
 * rotated by rot (so that a different seat slaps last each time). */
static void racers_of(struct game *g, struct race_plan *rp, int rot) {
        int others[MAX_SEATS], n = 0;

        for (int s = 1; s <= g->n; s++) {
                bool shouts = false;

                for (int k = 0; k < rp->n_shouters; k++)
                        shouts |= rp->shouters[k] == s;
                if (!shouts)
                        others[n++] = s;
        }
        rp->n_order = n;
        for (int k = 0; k < n; k++)
                rp->order[k] = others[(k + rot) % n];
}

/* Plays the match to its end, n seats; hook decides the special races. */
typedef bool (*special_fn)(struct game *g, int round, json_t *cards[]);

static void play_out(struct game *g, special_fn special) {
        for (int round = 0; round < MAX_ROUNDS && !g->finished; round++) {
                json_t *cards[MAX_SEATS + 1], *v;
                const char *phase = look(g, &v, cards);

                if (strcmp(phase, "finished") == 0 || strcmp(phase, "ending") == 0) {
                        json_decref(v);
                        break;
                }
                assert_string_equal(phase, "playing");
                if (special && special(g, round, cards)) {
                        json_decref(v);
                        continue;
                }
                int zombie_seat = 0;
                for (int s = 1; s <= g->n && !zombie_seat; s++)
                        if (cards[s] && answer_of(cards[s]) == CZ_ANS_ZOMBIE)
                                zombie_seat = s;
                if (zombie_seat) {
                        /* a true call: the others slap, rotating who is last */
                        struct race_plan rp = { .shouters = { zombie_seat }, .n_shouters = 1 };
                        bool yes = true;

                        racers_of(g, &rp, g->races);
                        run_race(g, &rp, &yes);
                } else {
                        round_of_placements(g, cards, NULL);
                }
                json_decref(v);
        }
        if (!g->finished)
                next_event(g, "match_finished", NULL);
}

/* ---- the tests -------------------------------------------------------------- */

static bool is_zombie(json_t *card) {
        return card && answer_of(card) == CZ_ANS_ZOMBIE;
}

/* Two players: no race — a shout sends the card in front of the other
 * seat, who looks at it on its own view and covers it when it holds a
 * zombie; seat 1 bluffs once, and the bluff left uncovered costs it. */
static bool two_player_round(struct game *g, int round, json_t *cards[]) {
        static bool bluffed;
        (void) round;

        if (round == 0)
                bluffed = false;
        for (int s = 1; s <= 2; s++) {
                bool zombie = is_zombie(cards[s]), bluff = !zombie && s == 1 && !bluffed && cards[s];
                char path[96], body[96];

                if (!zombie && !bluff)
                        continue;
                struct press p = { buttons_pad(s), BUTTON_SHOUT, 1000 };
                press_all(&p, 1);
                const struct event *e = next_event(g, "card_sent", "match_finished");
                if (!e)
                        return true;
                assert_int_equal(ev_seat(e), s);
                assert_int_equal(json_integer_value(json_object_get(e->data, "to_seat")), 3 - s);
                json_decref(stored(g->id, ev_seq(e)));
                g->sent++;
                if (bluff) {
                        bluffed = true;
                        g->bluffs[s]++;
                        return true;
                }
                /* the other seat sees the card's face in front of it, and covers it */
                json_t *v = seat_view(g, 3 - s), *front = json_object_get(json_object_get(v, "you"), "front"),
                       *last = json_array_get(front, json_array_size(front) - 1);
                assert_true(is_zombie(last));
                assert_false(json_is_true(json_object_get(last, "covered")));
                snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) g->id);
                snprintf(body, sizeof body, "{\"kind\": \"cover\", \"card\": \"%s\"}",
                         json_string_value(json_object_get(last, "handle")));
                json_decref(post_json(path, g->tokens[3 - s], body, 200));
                json_decref(v);
                next_event(g, "card_covered", NULL);
                g->covered++;
                return true;
        }
        return false;
}

static void two_players(void **state) {
        struct game g;
        (void) state;

        game_start(&g, 2, 21, "{}");
        next_event(&g, "match_started", NULL);
        /* docs/dbus.md lists the game's interface as the live object has it */
        char obj[96];
        snprintf(obj, sizeof obj, "/org/arbiter/Arbiter1/match/%lld", (long long) g.id);
        assert_dbus_doc_matches(obj, "org.arbiter.Arbiter1.CrazyPilot");
        json_t *v = referee_view(&g);
        assert_true(json_is_true(json_object_get(v, "two_player")));
        json_decref(v);
        play_out(&g, two_player_round);
        assert_true(g.sent >= 2 && g.covered >= 1);
        json_decref(check_result(&g));
        static const char *const members[] = { "CardResolved", "CardSent", "CardCovered", "StartingCardRevealed",
                                               "SeatScored", NULL };
        check_dbus(&g, members);
        game_done(&g);
}

/* Four players: a false call, two shouts at once (one with a zombie, one
 * without), a racer who never slaps (the deadline, 3 s: time enough for
 * the others' slaps on a loaded machine) and true calls. */
struct four_plan { bool false_done, twin_done, timeout_done; };
static struct four_plan four;

static bool four_player_round(struct game *g, int round, json_t *cards[]) {
        int z = 0, other = 0;
        (void) round;

        for (int s = 1; s <= g->n; s++) {
                if (is_zombie(cards[s]) && !z)
                        z = s;
                else if (cards[s] && !is_zombie(cards[s]) && !other)
                        other = s;
        }
        if (!four.false_done && !z && other) {
                /* a false call: no zombie, the card set aside, no penalty */
                struct race_plan rp = { .shouters = { other }, .n_shouters = 1 };
                bool no = false;

                racers_of(g, &rp, 0);
                run_race(g, &rp, &no);
                four.false_done = true;
                return true;
        }
        if (!four.twin_done && z && other) {
                /* two shouts within the grace: both checked, one penalty */
                struct race_plan rp = { .shouters = { z, other }, .n_shouters = 2 };
                bool zombies[2] = { true, false };

                racers_of(g, &rp, 1);
                run_race(g, &rp, zombies);
                four.twin_done = true;
                return true;
        }
        if (four.twin_done && !four.timeout_done && z) {
                /* the last racer never slaps: at the deadline, its penalty */
                struct race_plan rp = { .shouters = { z }, .n_shouters = 1 };
                bool yes = true;

                racers_of(g, &rp, 0);
                rp.missing = rp.order[--rp.n_order];
                run_race(g, &rp, &yes);
                const struct event *e = NULL;
                for (size_t i = 0; i < g->pub.n_events; i++)
                        if (strcmp(g->pub.events[i].name, "penalty_given") == 0)
                                e = &g->pub.events[i];
                assert_non_null(e);
                assert_int_equal(ev_seat(e), rp.missing);
                assert_string_equal(json_string_value(json_object_get(e->data, "reason")), "no_slap");
                four.timeout_done = true;
                return true;
        }
        return false;
}

static void four_players(void **state) {
        struct game g;
        (void) state;

        memset(&four, 0, sizeof four);
        game_start(&g, 4, 41, "{\"zombie\": {\"slap_deadline_ms\": 3000}}");
        next_event(&g, "match_started", NULL);
        play_out(&g, four_player_round);
        assert_true(four.false_done && four.twin_done && four.timeout_done);
        json_decref(check_result(&g));
        static const char *const members[] = { "CardResolved", "ZombieCalled", "SlapRecorded", "ZombieChecked",
                                               "PenaltyGiven", "PlayResumed", "StartingCardRevealed", "SeatScored",
                                               NULL };
        check_dbus(&g, members);
        game_done(&g);
}

/* Six players, true calls; in the second race the daemon is killed (-9)
 * after two slaps, and the race goes on after the restart. */
static bool killed;

static bool six_player_round(struct game *g, int round, json_t *cards[]) {
        (void) round;
        if (killed || g->races != 1)
                return false;
        for (int s = 1; s <= g->n; s++) {
                if (!is_zombie(cards[s]))
                        continue;
                struct race_plan rp = { .shouters = { s }, .n_shouters = 1, .kill_after = true, .kill_at = 2 };
                bool yes = true;

                racers_of(g, &rp, 2);
                run_race(g, &rp, &yes);
                killed = true;
                return true;
        }
        return false;
}

static void six_players_and_a_restart(void **state) {
        struct game g;
        (void) state;

        killed = false;
        game_start(&g, 6, 61, "{}");
        next_event(&g, "match_started", NULL);
        play_out(&g, six_player_round);
        assert_true(killed && g.races >= 2);
        json_decref(check_result(&g));
        static const char *const members[] = { "CardResolved", "ZombieCalled", "SlapRecorded", "ZombieChecked",
                                               "PenaltyGiven", "PlayResumed", "StartingCardRevealed", NULL };
        check_dbus(&g, members);
        game_done(&g);
}

/* arbiter-bots (docs/bots.md) host a two-player match at the table and
 * play it through the same padsim: with no errors and no false shouts,
 * every zombie a seat sends is covered by the other, with its seat token. */
static void the_bots_play_two_players(void **state) {
        char *bin, *token_path, *bots_log, uid[16];
        pid_t pid;
        (void) state;

        assert_true(asprintf(&bin, "%s/arbiter-bots", harness_env("ARBITER_TEST_BUILD")) > 0);
        assert_true(asprintf(&token_path, "%s/%s.token", harness_env("ARBITER_TEST_TMP"), unique_name("bots")) > 0);
        assert_true(asprintf(&bots_log, "%s/%s.log", harness_env("ARBITER_TEST_TMP"), unique_name("bots")) > 0);
        FILE *f = fopen(token_path, "w");
        assert_non_null(f);
        fprintf(f, "%s\n", referee_token);
        fclose(f);
        snprintf(uid, sizeof uid, "%s", UID_BASE);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int log = open(bots_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(sim.script_fd, STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                const char *argv[] = { bin, "--url", daemon_.url, "--table", table_name, "--uid-base", uid, "--pads", "12",
                                       "--game", "crazy-pilot", "--players", "Ana,Ben", "--keep-playing",
                                       "--token-file", token_path, "--error-pct", "0", "--false-shout-pct", "0",
                                       "--seed", "7", "--reaction-ms", "150", "--reaction-min-ms", "80",
                                       "--slap-ms", "100", "--between-ms", "600000", NULL };
                execv(bin, (char **) argv);
                _exit(127);
        }
        json_int_t id = 0;
        for (int64_t deadline = mono_ms() + 4 * HARNESS_WAIT_MS; !id;) {
                char *line = NULL;
                size_t cap = 0;
                FILE *l = fopen(bots_log, "r");

                while (l && getline(&line, &cap, l) > 0) {
                        const char *m = strstr(line, "is over");
                        long long n;

                        if (m && (m = strstr(line, "match ")) && sscanf(m, "match %lld", &n) == 1)
                                id = n;
                }
                free(line);
                if (l)
                        fclose(l);
                if (!id && mono_ms() > deadline) {
                        kill(pid, SIGKILL);
                        waitpid(pid, NULL, 0);
                        struct daemon_proc fake = { 0 };
                        snprintf(fake.log_path, sizeof fake.log_path, "%s", bots_log);
                        fail_msg("the bots finished no match; their log:\n%s", daemon_log(&fake));
                }
                if (!id)
                        usleep(50000);
        }
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);

        char path[128];
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        json_t *m = get_json(path, referee_token), *pl;
        size_t i;
        assert_string_equal(json_string_value(json_object_get(m, "game")), "crazy-pilot");
        assert_int_equal(json_integer_value(json_object_get(m, "table")), table_id);
        json_array_foreach(json_object_get(json_object_get(m, "result"), "placements"), i, pl) {
                json_t *terms = json_object_get(json_object_get(pl, "score"), "terms");

                /* no error, no false shout: nothing misplaced, nothing sent
                 * without a zombie (a zombie sent at the very end may be
                 * left uncovered: the match ended before the other looked) */
                assert_int_equal(json_integer_value(json_object_get(terms, "wrong")), 0);
                assert_int_equal(json_integer_value(json_object_get(terms, "bluffs")), 0);
        }
        assert_int_equal(i, 2);
        json_decref(m);
        /* the covers were the seats' own inputs */
        snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=1000", (long long) id);
        json_t *log = get_json(path, referee_token), *row;
        unsigned sent = 0, covers = 0;
        json_array_foreach(json_object_get(log, "items"), i, row) {
                const char *kind = json_string_value(json_object_get(row, "kind"));
                json_t *in = json_object_get(row, "input");

                if (strcmp(kind, "cover") == 0) {
                        /* a seat's own input, and never a card it may not cover */
                        assert_string_equal(json_string_value(json_object_get(row, "source")), "seat");
                        assert_true(json_is_null(json_object_get(row, "refusal")));
                        covers++;
                }
                if (strcmp(kind, "press") == 0 && json_integer_value(json_object_get(in, "button")) == BUTTON_SHOUT &&
                    json_is_null(json_object_get(row, "refusal")))
                        sent++;
        }
        json_decref(log);
        print_message("# the bots' match %lld: %u cards sent, %u covered\n", (long long) id, sent, covers);
        assert_true(sent > 0 && covers > 0 && covers <= sent);
        free(bin);
        free(token_path);
        free(bots_log);
}

/* A seat's token speaks as its seat even for drive, an input of the table:
 * another seat's station cannot resume play after a race; the shouter's
 * can, and a referee's resumes it for the table. */
static void drive_speaks_for_the_seat_that_sends_it(void **state) {
        struct game g;
        char path[96];
        (void) state;

        game_start(&g, 3, 7, "{}");
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) g.id);
        json_decref(post_json(path, g.tokens[1], "{\"kind\": \"shout\"}", 200));
        json_decref(post_json(path, g.tokens[2], "{\"kind\": \"slap\"}", 200));
        json_decref(post_json(path, g.tokens[3], "{\"kind\": \"slap\"}", 200));
        next_event(&g, "zombie_checked", NULL);
        json_t *p = post_json(path, g.tokens[2], "{\"kind\": \"drive\"}", 409);
        assert_string_equal(json_string_value(json_object_get(p, "refusal")), "not allowed");
        json_decref(p);
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) g.id);
        json_t *m = get_json(path, referee_token);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "refused_inputs"), "not allowed")), 1);
        json_decref(m);
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) g.id);
        json_decref(post_json(path, g.tokens[1], "{\"kind\": \"drive\"}", 200));
        const struct event *e = next_event(&g, "play_resumed", NULL);
        assert_string_equal(json_string_value(json_object_get(e->data, "by")), "shouter");
        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) g.id);
        json_decref(post_json(path, referee_token, "{}", 200));
        game_done(&g);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(two_players),
                cmocka_unit_test(four_players),
                cmocka_unit_test(six_players_and_a_restart),
                cmocka_unit_test(the_bots_play_two_players),
                cmocka_unit_test(drive_speaks_for_the_seat_that_sends_it),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
