/* tests/integration/chaos.c — see chaos.h. */
#define _GNU_SOURCE
#include "tests/integration/chaos.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/log.h"
#include "match/json.h"
#include "tests/integration/crash_pilot_view.h"
#include "tests/integration/sse_client.h"

/* The pads: as test_match_pads.c, a generous settle window for a sanitizer
 * build, quick syncs and a quick reopen of the pty after each restart. */
static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7400: pads no other test uses (test_match_pads has
 * 0x7300).  Pads 0-2 sit at cp-pads' table, 3-4 at rx-pads'. */
#define UID_BASE                "29696"
static const char *const pad_ids[CHAOS_PADS] = {
        "0000000000007400", "0000000000007401", "0000000000007402", "0000000000007403", "0000000000007404",
};
#define CP_PAD_FIRST            0
#define RX_PAD_FIRST            3
/* A Crash Pilot pad's button b calls row b + 1; button 6 is "doesn't fit"
 * (docs/protocol.md section 7).  Reflex's hit is button 0 (reflex.h). */
#define CP_DOESNT_FIT_BUTTON    6
#define RX_HIT_BUTTON           0

/* Seats: Crash Pilot at three (its tables' and the lanes' players), Reflex
 * at two. */
#define CP_SEATS                3
#define RX_SEATS                2
/* A Reflex match of the referee's lane ends once a seat has this many
 * points from its awards, then the next one starts: matches come and go. */
#define RX_TARGET               20

/* A referee's lane sends an input every REFEREE_PAUSE_MIN_MS plus up to
 * REFEREE_PAUSE_SPREAD_MS: its matches last a few seconds (a spare one
 * waits; matches cannot be created while the database is down). */
#define REFEREE_PAUSE_MIN_MS    5
#define REFEREE_PAUSE_SPREAD_MS 25

/* A log longer than a page is read page by page (api/tokens.c
 * PAGE_LIMIT_MAX). */
#define LOG_PAGE                1000
/* How often a wait looks again. */
#define POLL_US                 20000

static const char *const lane_names[CHAOS_LANES] = {
        [CHAOS_CP_REFEREE] = "cp-referee", [CHAOS_CP_PADS] = "cp-pads",
        [CHAOS_RX_REFEREE] = "rx-referee", [CHAOS_RX_PADS] = "rx-pads",
};

/* ---- knobs and the schedule --------------------------------------------- */

/* A size or a seed is at most this: more kills than anyone waits for, and
 * seeds short enough to type. */
#define KNOB_MAX                1000000

unsigned chaos_knob(const char *name, unsigned def) {
        const char *v = getenv(name);
        char *end;
        unsigned long n;

        if (!v || !*v)
                return def;
        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno || *end || n > KNOB_MAX)
                fail_msg("%s=%s is not a count", name, v);
        return (unsigned) n;
}

int64_t chaos_deadline(void) {
        unsigned s = chaos_knob("ARBITER_CHAOS_SECONDS", 0);
        return s ? mono_ms() + (int64_t) s * 1000 : INT64_MAX;
}

/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): one 64-bit state, good enough for a
 * schedule. */
static uint64_t splitmix64(uint64_t *s) {
        uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

uint64_t chaos_rand(struct chaos *c, uint64_t n) {
        return n ? splitmix64(&c->rng) % n : 0;
}

/* The play's own choices (lane order, seeds, wrong calls) come from a
 * stream of their own: how many the play makes depends on the daemon's
 * timing, and must not move the scene's moments. */
static uint64_t play_rand(struct chaos *c, uint64_t n) {
        return n ? splitmix64(&c->play_rng) % n : 0;
}

/* ---- HTTP that a dead daemon does not fail -------------------------------- */

struct body {
        char *data;
        size_t len;
};

static size_t on_body(char *p, size_t size, size_t n, void *userdata) {
        struct body *b = userdata;
        char *d = realloc(b->data, b->len + size * n + 1);

        if (!d)
                return 0;
        memcpy(d + b->len, p, size * n);
        b->data = d;
        b->len += size * n;
        b->data[b->len] = '\0';
        return size * n;
}

/* One request with the stage's own handle (its connection is kept between
 * requests).  The status, 0 when the daemon did not answer. */
static long try_request(struct chaos *c, const char *method, const char *path, const char *token, const char *json,
                        struct http_reply *ret) {
        struct curl_slist *h = NULL;
        struct body b = { 0 };
        char url[512], auth[512];

        memset(ret, 0, sizeof *ret);
        snprintf(url, sizeof url, "%s%s", c->o.d.url, path);
        if (token) {
                snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
                h = curl_slist_append(h, auth);
        }
        h = curl_slist_append(h, "Expect:");
        if (json)
                h = curl_slist_append(h, "Content-Type: application/json");
        curl_easy_reset(c->curl);
        curl_easy_setopt(c->curl, CURLOPT_URL, url);
        curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long) HARNESS_WAIT_MS);
        curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
        if (json)
                curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, json);
        if (curl_easy_perform(c->curl) == CURLE_OK)
                curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &ret->status);
        curl_slist_free_all(h);
        ret->body = b.data ? b.data : strdup("");
        ret->json = json_loads(ret->body, 0, NULL);
        return ret->status;
}

/* A request that must be answered (the stage's own set-up and checks). */
static void must_request(struct chaos *c, const char *method, const char *path, const char *token,
                         const char *json, long want, struct http_reply *ret) {
        if (try_request(c, method, path, token, json, ret) != want)
                fail_msg("%s %s: expected HTTP %ld, got %ld: %s", method, path, want, ret->status, ret->body);
}

/* ---- the stage -------------------------------------------------------- */

static bool pads_connected(struct chaos *c) {
        struct http_reply r;
        size_t i, n = 0;
        json_t *p;

        if (try_request(c, "GET", "/v1/pads", c->o.admin, NULL, &r) == 200)
                json_array_foreach(json_object_get(r.json, "items"), i, p)
                        n += json_is_true(json_object_get(p, "connected"));
        http_reply_done(&r);
        return n == CHAOS_PADS;
}

static void wait_pads(struct chaos *c) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !pads_connected(c);) {
                if (mono_ms() > deadline)
                        fail_msg("%s: the %d simulated pads did not all connect", c->scene, CHAOS_PADS);
                usleep(POLL_US);
        }
}

static json_int_t new_table(struct chaos *c, unsigned seats, int first_pad) {
        struct http_reply r;
        char body[512];
        int n;

        n = snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [", unique_name("chaos"));
        for (unsigned s = 0; s < seats; s++) {
                if (first_pad >= 0)
                        n += snprintf(body + n, sizeof body - (size_t) n, "%s{\"seat\": %u, \"pad\": \"%s\"}",
                                      s ? ", " : "", s + 1, pad_ids[first_pad + (int) s]);
                else
                        n += snprintf(body + n, sizeof body - (size_t) n, "%s{\"seat\": %u}", s ? ", " : "", s + 1);
        }
        snprintf(body + n, sizeof body - (size_t) n, "]}");
        must_request(c, "POST", "/v1/tables", c->o.admin, body, 201, &r);
        json_int_t id = json_integer_value(json_object_get(r.json, "id"));
        http_reply_done(&r);
        return id;
}

/* The body of a new match of lane l at its table. */
static void match_body(const struct chaos_lane *l, uint64_t seed, char *buf, size_t len) {
        switch (l->kind) {
        case CHAOS_CP_REFEREE:
        case CHAOS_CP_PADS:
                /* cp-pads: the pause between verdict and next reveal is longer
                 * than the judge's 250 ms cooldown, so a seat's next press always
                 * counts; nobody lets a card time out. */
                snprintf(buf, len, "{\"game\": \"crash-pilot\", \"table\": %lld, \"players\": [\"Ana\", \"Ben\", "
                         "\"Cy\"], \"seed\": %" PRIu64 ", \"config\": {\"reveal\": {\"pause_ms\": %d, "
                         "\"timeout_ms\": 600000}}}", (long long) l->table, seed,
                         l->kind == CHAOS_CP_PADS ? 300 : 0);
                break;
        case CHAOS_RX_REFEREE:
        case CHAOS_RX_PADS:
                /* The go comes after at least 500 ms: more than the cooldown too. */
                snprintf(buf, len, "{\"game\": \"reflex\", \"table\": %lld, \"players\": [\"Dee\", \"Eve\"], "
                         "\"seed\": %" PRIu64 ", \"config\": {\"mode\": \"judged\", \"points\": {\"target\": %d}, "
                         "\"go\": {\"delay_min_ms\": 500, \"delay_max_ms\": 1000}}}", (long long) l->table, seed,
                         RX_TARGET);
                break;
        default:
                break;
        }
}

/* Creates a match of lane l at its table, not started: its index in
 * matches, or SIZE_MAX when the daemon could not (the database is away, or
 * the daemon is; the lane tries again at its next step).  A match created
 * but not answered (the daemon killed in between) is no lane's: it is
 * rebuilt as any other, and played by nobody. */
static size_t new_match(struct chaos *c, const struct chaos_lane *l) {
        struct http_reply r;
        char body[512];
        uint64_t seed = 1 + play_rand(c, INT32_MAX);

        match_body(l, seed, body, sizeof body);
        if (try_request(c, "POST", "/v1/matches", c->o.referee, body, &r) != 201) {
                http_reply_done(&r);
                return SIZE_MAX;
        }
        c->matches = realloc(c->matches, (c->n_matches + 1) * sizeof *c->matches);
        assert_non_null(c->matches);
        c->matches[c->n_matches] = (struct chaos_match) {
                .id = json_integer_value(json_object_get(r.json, "id")), .lane = l->kind, .seed = seed,
        };
        http_reply_done(&r);
        return c->n_matches++;
}

void chaos_init(struct chaos *c, const char *scene) {
        const char *asan = getenv("ASAN_OPTIONS");

        memset(c, 0, sizeof *c);
        c->scene = scene;
        c->started_ms = mono_ms();
        c->seed = chaos_knob("ARBITER_CHAOS_SEED", 0);
        if (!c->seed) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                uint64_t s = (uint64_t) ts.tv_nsec ^ ((uint64_t) ts.tv_sec << 20) ^ (uint64_t) getpid();
                c->seed = 1 + splitmix64(&s) % (KNOB_MAX - 1);
        }
        /* Each scene its own schedule from the one seed. */
        c->rng = c->seed;
        for (const char *p = scene; *p; p++)
                c->rng = c->rng * 31 + (unsigned char) *p;
        c->play_rng = ~c->rng;
        print_message("# chaos %s: seed %" PRIu64 " (ARBITER_CHAOS_SEED=%" PRIu64 " draws the same moments)\n",
                      scene, c->seed, c->seed);
        c->curl = curl_easy_init();
        assert_non_null(c->curl);
        for (int i = 0; i < CHAOS_LANES; i++)
                c->lanes[i] = (struct chaos_lane) { .kind = (enum chaos_lane_kind) i, .match = SIZE_MAX,
                                                    .spare = SIZE_MAX, .press = SIZE_MAX };

        /* The test build's daemon has every game (tests/games/ too). */
        setenv("ARBITER_TEST_DAEMON", harness_env("ARBITER_TEST_DAEMON_GAMES"), 1);
        outage_init(&c->o, scene);
        assert_true(asprintf(&c->link, "%s/tty", c->o.dir) > 0);
        assert_true(asprintf(&c->config_path, "%s/arbiterd.conf", c->o.dir) > 0);
        assert_true(asprintf(&c->fail_flag, "%s/fail-fsync", c->o.dir) > 0);
        FILE *f = fopen(c->config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);

        /* -v: padsim logs each press's event number and every ACK. */
        char sim_seed[24];
        snprintf(sim_seed, sizeof sim_seed, "%" PRIu64, c->seed);
        const char *sim_args[] = { "--pads", "5", "--link", c->link, "--seed", sim_seed, "--uid-base", UID_BASE,
                                   "-v", NULL };
        padsim_start(&c->sim, sim_args);

        outage_env(&c->o, "ARBITER_PADS=%s", c->link);
        /* The shim fails the spool's fsyncs while the flag file exists. */
        outage_env(&c->o, "LD_PRELOAD=%s/tests/libfsync_fault.so", harness_env("ARBITER_TEST_BUILD"));
        outage_env(&c->o, "ARBITER_FAULT_PATH=%s", c->o.spool);
        outage_env(&c->o, "ARBITER_FAULT_FAIL_IF=%s", c->fail_flag);
        /* An ASan daemon takes a preloaded library that is not ASan's own
         * only when told to. */
        outage_env(&c->o, "ASAN_OPTIONS=%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
        chaos_restart(c);
        wait_pads(c);

        c->lanes[CHAOS_CP_REFEREE].table = new_table(c, CP_SEATS, -1);
        c->lanes[CHAOS_CP_PADS].table = new_table(c, CP_SEATS, CP_PAD_FIRST);
        c->lanes[CHAOS_RX_REFEREE].table = new_table(c, RX_SEATS, -1);
        c->lanes[CHAOS_RX_PADS].table = new_table(c, RX_SEATS, RX_PAD_FIRST);
        for (int i = 0; i < CHAOS_LANES; i++)
                if ((c->lanes[i].match = new_match(c, &c->lanes[i])) == SIZE_MAX)
                        fail_msg("%s: could not create %s's first match", c->scene, lane_names[i]);
}

void chaos_done(struct chaos *c) {
        if (!c->scene)
                return;
        padsim_stop(&c->sim);
        outage_done(&c->o);
        if (c->curl)
                curl_easy_cleanup(c->curl);
        free(c->link);
        free(c->config_path);
        if (c->fail_flag)
                unlink(c->fail_flag);
        free(c->fail_flag);
        free(c->matches);
        free(c->inputs);
        free(c->presses);
        memset(c, 0, sizeof *c);
}

void chaos_restart(struct chaos *c) {
        char *arg;

        assert_true(asprintf(&arg, "--config=%s", c->config_path) > 0);
        const char *args[] = { arg, NULL };
        daemon_start(&c->o.d, (const char *const *) c->o.env, args, true);
        c->o.running = true;
        free(arg);
        assert_true(wait_tokens_loaded(&c->o.d, HARNESS_WAIT_MS));
}

/* ---- driving ---------------------------------------------------------- */

static const struct chaos_match *lane_match(const struct chaos *c, const struct chaos_lane *l) {
        return l->match == SIZE_MAX ? NULL : &c->matches[l->match];
}

/* The live match's referee view ({"state", "view"}, a new reference), or
 * NULL: *ret_status says why (409: it is over; 503: the database or the
 * daemon's rebuild is not there; 0: no daemon). */
static json_t *referee_view(struct chaos *c, json_int_t id, long *ret_status) {
        struct http_reply r;
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) id);
        *ret_status = try_request(c, "GET", path, c->o.referee, NULL, &r);
        json_t *v = r.status == 200 ? json_incref(r.json) : NULL;
        http_reply_done(&r);
        return v;
}

static struct chaos_input *new_input(struct chaos *c, size_t match, const char *kind) {
        c->inputs = realloc(c->inputs, (c->n_inputs + 1) * sizeof *c->inputs);
        assert_non_null(c->inputs);
        struct chaos_input *in = &c->inputs[c->n_inputs++];
        *in = (struct chaos_input) { .match = match, .after_fault = c->fault };
        snprintf(in->tag, sizeof in->tag, "chaos %s round %u input %u", c->scene, c->round, ++c->n_tags);
        snprintf(in->kind, sizeof in->kind, "%s", kind);
        return in;
}

/* POSTs an input for the lane's match with a tag; records it when it is
 * answered 2xx.  The status. */
static long post_input(struct chaos *c, struct chaos_lane *l, const char *kind, const char *fields) {
        struct http_reply r;
        char path[96], body[512];
        size_t idx = c->n_inputs;
        struct chaos_input *in = new_input(c, l->match, kind);

        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) lane_match(c, l)->id);
        snprintf(body, sizeof body, "{\"kind\": \"%s\", %s%s\"reason\": \"%s\"}", kind, fields ? fields : "",
                 fields ? ", " : "", in->tag);
        long st = try_request(c, "POST", path, c->o.referee, body, &r);
        in = &c->inputs[idx];
        if (st >= 200 && st < 300) {
                in->seq = json_integer_value(json_object_get(r.json, "seq"));
                if (in->seq <= 0)
                        fail_msg("%s: input \"%s\" answered %ld without a seq: %s", c->scene, in->tag, st, r.body);
                c->acked_rest++;
                c->acked_spooled += c->db_down;
        } else if (c->fault) {
                c->refused_after_fault++;
        } else {
                c->n_inputs--;          /* not acknowledged, and no fault to account for */
        }
        http_reply_done(&r);
        return st;
}

/* The lane's match is not running: over (the spare takes its place), or
 * ready (it is started: the start is an input like any other). */
static void lane_not_running(struct chaos *c, struct chaos_lane *l, long status, json_t *view) {
        const char *state = json_string_value(json_object_get(view, "state"));

        if (status == 409 || (state && (strcmp(state, "finished") == 0 || strcmp(state, "aborted") == 0))) {
                c->matches[l->match].over = true;
                l->match = l->spare;
                l->spare = SIZE_MAX;
                l->press = SIZE_MAX;
        } else if (state && strcmp(state, "ready") == 0) {
                post_input(c, l, "start", NULL);
        }
}

static void press(struct chaos *c, struct chaos_lane *l, int pad, int seat, int button, json_int_t window) {
        c->presses = realloc(c->presses, (c->n_presses + 1) * sizeof *c->presses);
        assert_non_null(c->presses);
        c->presses[c->n_presses] = (struct chaos_press) {
                .match = l->match, .pad = pad, .seat = seat, .window = window, .round = c->round,
                .state = CHAOS_PRESS_SENT, .after_fault = c->fault,
        };
        l->press = c->n_presses++;
        c->presses_after_fault += c->fault;
        padsim_send(&c->sim, "{\"in_us\":1000,\"pad\":%d,\"button\":%d,\"press\":true}", pad, button);
}

/* A pad lane may press for window w unless its last press for w is still
 * on its way or was ACKed (a press the pad dropped or never sent may be
 * made again). */
static bool may_press(struct chaos *c, struct chaos_lane *l, json_int_t w) {
        if (l->press == SIZE_MAX)
                return true;
        const struct chaos_press *p = &c->presses[l->press];
        if (p->match != l->match || p->window != w)
                return true;
        return p->state == CHAOS_PRESS_IGNORED || p->state == CHAOS_PRESS_DROPPED;
}

/* One step of lane l.  False when the daemon did not answer. */
static bool lane_step(struct chaos *c, struct chaos_lane *l) {
        long st;
        char fields[128];

        /* A spare match waits, ready, for the lane's match to end: matches
         * are created only while the database is there, and started
         * whenever.  (Creating one moves matches: m is taken after.) */
        if (l->spare == SIZE_MAX)
                l->spare = new_match(c, l);
        const struct chaos_match *m = lane_match(c, l);
        if (!m) {
                l->match = l->spare;
                l->spare = SIZE_MAX;
                return true;
        }
        /* A referee takes a moment between two inputs. */
        if ((l->kind == CHAOS_CP_REFEREE || l->kind == CHAOS_RX_REFEREE) && mono_ms() < l->next_ms)
                return true;
        l->next_ms = mono_ms() + REFEREE_PAUSE_MIN_MS + (int64_t) play_rand(c, REFEREE_PAUSE_SPREAD_MS);
        json_t *rv = referee_view(c, m->id, &st), *v = json_object_get(rv, "view");
        if (st == 0)
                return false;
        if (!rv || strcmp(json_string_value(json_object_get(rv, "state")), "running") != 0) {
                lane_not_running(c, l, st, rv);
                json_decref(rv);
                return true;
        }
        switch (l->kind) {
        case CHAOS_CP_REFEREE: {
                /* Seats call in turn, now and then wrongly (the window stays
                 * open for the others; a seat refused is not acknowledged). */
                json_int_t w = cp_window_id(v);
                if (!w || !json_is_object(json_object_get(v, "face_up")))
                        break;
                int seat = 1 + (int) (l->turn++ % CP_SEATS);
                snprintf(fields, sizeof fields, "\"seat\": %d, \"call\": %d, \"window\": %lld", seat,
                         cp_pick_call(v, play_rand(c, 8) == 0), (long long) w);
                post_input(c, l, "call", fields);
                break;
        }
        case CHAOS_RX_REFEREE:
                /* +1, +1, -1 to each seat in turn: a match lasts about
                 * 6 × RX_TARGET awards */
                snprintf(fields, sizeof fields, "\"to\": [%u], \"points\": %d, \"category\": \"%s\"",
                         1 + l->turn % RX_SEATS, l->turn / RX_SEATS % 3 == 2 ? -1 : 1,
                         l->turn / RX_SEATS % 3 == 2 ? "penalty" : "bonus");
                l->turn++;
                post_input(c, l, "award", fields);
                break;
        case CHAOS_CP_PADS: {
                json_int_t w = cp_window_id(v);
                if (!w || !json_is_object(json_object_get(v, "face_up")) || !may_press(c, l, w))
                        break;
                int seat = (int) (l->turn++ % CP_SEATS), call = cp_pick_call(v, false);
                press(c, l, CP_PAD_FIRST + seat, seat + 1, call == CP_DOESNT_FIT_CALL ? CP_DOESNT_FIT_BUTTON
                                                                                      : call - 1, w);
                break;
        }
        case CHAOS_RX_PADS: {
                json_int_t round = json_integer_value(json_object_get(v, "round"));
                if (strcmp(json_string_value(json_object_get(v, "phase")), "live") != 0 || !may_press(c, l, round))
                        break;
                int seat = (int) (l->turn++ % RX_SEATS);
                press(c, l, RX_PAD_FIRST + seat, seat + 1, RX_HIT_BUTTON, round);
                break;
        }
        default:
                break;
        }
        json_decref(rv);
        return true;
}

bool chaos_step(struct chaos *c) {
        unsigned first = (unsigned) play_rand(c, CHAOS_LANES);
        bool answered = true;

        for (unsigned i = 0; i < CHAOS_LANES && answered; i++)
                answered = lane_step(c, &c->lanes[(first + i) % CHAOS_LANES]);
        chaos_read_pads(c);
        return answered;
}

void chaos_drive(struct chaos *c, int64_t usec) {
        int64_t end = mono_ms() + usec / 1000;

        while (mono_ms() < end && chaos_step(c))
                usleep(1000);
}

/* ---- arbiter-padsim's log --------------------------------------------- */

/* The press of pad that the next "press button" (or "ignored") line is
 * about: the oldest one still SENT. */
static struct chaos_press *oldest_sent(struct chaos *c, int pad) {
        for (size_t i = 0; i < c->n_presses; i++)
                if (c->presses[i].pad == pad && c->presses[i].state == CHAOS_PRESS_SENT)
                        return &c->presses[i];
        return NULL;
}

static void sim_line(struct chaos *c, const char *line) {
        const char *at = strstr(line, "] pad ");
        unsigned pad, a, b;
        int n = 0;

        if (!at || sscanf(at, "] pad %u: %n", &pad, &n) != 1 || n == 0 || pad >= CHAOS_PADS)
                return;
        at += n;
        struct chaos_press *p;
        if (sscanf(at, "press button %u (event %u,", &a, &b) == 2) {
                if ((p = oldest_sent(c, (int) pad))) {
                        p->state = CHAOS_PRESS_PENDING;
                        p->event = b;
                }
        } else if (strstr(at, "pressed before the host assigned an address")) {
                if ((p = oldest_sent(c, (int) pad)))
                        p->state = CHAOS_PRESS_IGNORED;
        } else if (strstr(at, "events unacknowledged: press of button")) {
                if ((p = oldest_sent(c, (int) pad)))
                        p->state = CHAOS_PRESS_DROPPED;
        } else if (sscanf(at, "event %u acknowledged after %u send", &a, &b) == 2) {
                for (size_t i = 0; i < c->n_presses; i++) {
                        p = &c->presses[i];
                        if (p->pad == (int) pad && p->state == CHAOS_PRESS_PENDING && p->event == a) {
                                p->state = CHAOS_PRESS_ACKED;
                                p->sends = b;
                                c->acked_presses++;
                        }
                }
        } else if (strncmp(at, "reset (", 7) == 0) {
                /* RESET: the pad forgot its pending events; numbers start again */
                for (size_t i = 0; i < c->n_presses; i++)
                        if (c->presses[i].pad == (int) pad && c->presses[i].state == CHAOS_PRESS_PENDING)
                                c->presses[i].state = CHAOS_PRESS_DROPPED;
        }
}

void chaos_read_pads(struct chaos *c) {
        FILE *f = fopen(c->sim.log_path, "r");
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;

        assert_non_null(f);
        fseek(f, c->sim_off, SEEK_SET);
        while ((n = getline(&line, &cap, f)) > 0) {
                if (line[n - 1] != '\n')
                        break;          /* being written: read it next time */
                c->sim_off += n;
                sim_line(c, line);
        }
        free(line);
        fclose(f);
}

/* ---- settling ----------------------------------------------------------- */

static off_t file_size(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 ? st.st_size : 0;
}

/* GET /v1/matches/{id} (a new reference), waiting out a 503 (the database
 * or the rebuild not there yet). */
static json_t *stored_match(struct chaos *c, json_int_t id) {
        struct http_reply r;
        char path[64];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                if (try_request(c, "GET", path, c->o.referee, NULL, &r) == 200) {
                        json_t *j = json_incref(r.json);
                        http_reply_done(&r);
                        return j;
                }
                if (mono_ms() > deadline)
                        fail_msg("%s: GET %s answered %ld: %s", c->scene, path, r.status, r.body);
                http_reply_done(&r);
                usleep(POLL_US);
        }
}

void chaos_settle(struct chaos *c) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; file_size(c->o.spool) > 0;) {
                if (mono_ms() > deadline)
                        fail_msg("%s: the spool still holds %lld bytes", c->scene, (long long) file_size(c->o.spool));
                usleep(POLL_US);
        }
        for (size_t i = 0; i < c->n_matches; i++) {
                struct chaos_match *m = &c->matches[i];

                if (m->over)
                        continue;
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                        json_t *j = stored_match(c, m->id);
                        const char *state = json_string_value(json_object_get(j, "state")),
                                   *why = json_string_value(json_object_get(j, "needs_referee"));
                        bool live = !json_is_null(json_object_get(j, "view")) && json_object_get(j, "view");

                        if (why)
                                fail_msg("%s round %u: match %lld (%s) was handed to a referee: %s", c->scene,
                                         c->round, (long long) m->id, lane_names[m->lane], why);
                        m->over = strcmp(state, "finished") == 0 || strcmp(state, "aborted") == 0;
                        json_decref(j);
                        if (m->over || live)
                                break;
                        if (mono_ms() > deadline)
                                fail_msg("%s round %u: match %lld (%s) is %s but did not resume live", c->scene,
                                         c->round, (long long) m->id, lane_names[m->lane], state);
                        usleep(POLL_US);
                }
        }
        wait_pads(c);
}

/* ---- the checks ------------------------------------------------------- */

/* Match id's stored log, every page (a new reference). */
static json_t *stored_log(struct chaos *c, json_int_t id) {
        json_t *all = json_array();
        json_int_t after = 0;

        for (;;) {
                struct http_reply r;
                char path[128];

                snprintf(path, sizeof path, "/v1/matches/%lld/log?limit=%d&after=%lld", (long long) id, LOG_PAGE,
                         (long long) after);
                must_request(c, "GET", path, c->o.referee, NULL, 200, &r);
                json_t *items = json_object_get(r.json, "items");
                size_t n = json_array_size(items);
                json_array_extend(all, items);
                if (n)
                        after = json_integer_value(json_object_get(json_array_get(items, n - 1), "seq"));
                http_reply_done(&r);
                if (n < LOG_PAGE)
                        break;
        }
        return all;
}

static json_t *log_item(json_t *log, json_int_t seq) {
        json_t *it;
        size_t i;

        json_array_foreach(log, i, it)
                if (json_integer_value(json_object_get(it, "seq")) == seq)
                        return it;
        return NULL;
}

static const char *str_or(json_t *j, const char *key, const char *def) {
        const char *s = json_string_value(json_object_get(j, key));
        return s ? s : def;
}

/* Every REST input of match i answered 2xx is stored at its seq with its
 * tag; after the scene's fault, nothing sent is. */
static void check_inputs(struct chaos *c, size_t i, json_t *log, const char *when) {
        const struct chaos_match *m = &c->matches[i];

        for (size_t k = 0; k < c->n_inputs; k++) {
                const struct chaos_input *in = &c->inputs[k];
                if (in->match != i)
                        continue;
                if (in->seq > 0) {
                        json_t *it = log_item(log, in->seq);
                        if (!it)
                                fail_msg("%s, %s: LOST: match %lld (%s), input seq %lld (%s, acknowledged: HTTP 2xx "
                                         "to POST /v1/matches/%lld/inputs, reason \"%s\") is not in the stored log "
                                         "(%zu items)", c->scene, when, (long long) m->id, lane_names[m->lane],
                                         (long long) in->seq, in->kind, (long long) m->id, in->tag,
                                         json_array_size(log));
                        if (strcmp(str_or(it, "reason", ""), in->tag) != 0)
                                fail_msg("%s, %s: LOST: match %lld (%s), input seq %lld (%s, acknowledged: HTTP 2xx, "
                                         "reason \"%s\"): the log's seq %lld is another input (%s, reason \"%s\", "
                                         "source %s)", c->scene, when, (long long) m->id, lane_names[m->lane],
                                         (long long) in->seq, in->kind, in->tag, (long long) in->seq,
                                         str_or(it, "kind", "?"), str_or(it, "reason", ""), str_or(it, "source", "?"));
                        if (in->after_fault)
                                fail_msg("%s, %s: match %lld (%s): input seq %lld (%s, reason \"%s\") was sent after "
                                         "the spool's fsync failed, yet acknowledged (HTTP 2xx)", c->scene, when,
                                         (long long) m->id, lane_names[m->lane], (long long) in->seq, in->kind,
                                         in->tag);
                } else if (in->after_fault) {
                        json_t *it;
                        size_t j;
                        json_array_foreach(log, j, it)
                                if (strcmp(str_or(it, "reason", ""), in->tag) == 0)
                                        fail_msg("%s, %s: match %lld (%s): input \"%s\" was refused after the "
                                                 "spool's fsync failed, yet it is stored at seq %lld", c->scene, when,
                                                 (long long) m->id, lane_names[m->lane], in->tag,
                                                 (long long) json_integer_value(json_object_get(it, "seq")));
                }
        }
}

/* Was window w of the match decided by a stored call or tie? */
static bool window_decided(json_t *log, json_int_t w) {
        json_t *it;
        size_t i;

        json_array_foreach(log, i, it) {
                const char *kind = str_or(it, "kind", "");
                if ((strcmp(kind, "call") == 0 || strcmp(kind, "tie") == 0) &&
                    json_integer_value(json_object_get(json_object_get(it, "input"), "window")) == w)
                        return true;
        }
        return false;
}

/* Every ACKed press of match i: its window has its stored call or tie. */
static void check_presses(struct chaos *c, size_t i, json_t *log, const char *when) {
        const struct chaos_match *m = &c->matches[i];

        for (size_t k = 0; k < c->n_presses; k++) {
                const struct chaos_press *p = &c->presses[k];
                if (p->match != i || p->state != CHAOS_PRESS_ACKED)
                        continue;
                if (p->after_fault)
                        fail_msg("%s, %s: match %lld (%s): pad %d's press (seat %d, %s %lld, padsim event %u) was "
                                 "made after the spool's fsync failed, yet ACKed after %u send%s", c->scene, when,
                                 (long long) m->id, lane_names[m->lane], p->pad, p->seat,
                                 m->lane == CHAOS_RX_PADS ? "round" : "window", (long long) p->window, p->event,
                                 p->sends, p->sends == 1 ? "" : "s");
                if (!window_decided(log, p->window))
                        fail_msg("%s, %s: LOST: match %lld (%s): pad %d (%s), seat %d, pressed the right call in "
                                 "%s %lld (scene round %u; padsim event %u, ACKed after %u send%s), but the stored "
                                 "log (%zu items) has no call or tie for that window: the ACKed press made no input",
                                 c->scene, when, (long long) m->id, lane_names[m->lane], p->pad, pad_ids[p->pad],
                                 p->seat, m->lane == CHAOS_RX_PADS ? "round" : "window", (long long) p->window,
                                 p->round, p->event, p->sends, p->sends == 1 ? "" : "s", json_array_size(log));
        }
}

/* Replays the first upto inputs of log (SIZE_MAX: all) into the match as
 * GET /v1/matches/{id} shows it, dealt from seed, checking each input's
 * refusal and state hash as stored; returns the referee's view of the
 * state after the last input (a new reference).  Fails the test at the
 * first difference. */
static json_t *replay(struct chaos *c, const struct chaos_match *m, json_t *match, json_t *log, size_t upto) {
        const struct eng_game *g = eng_game_find(str_or(match, "game", ""));
        json_t *seats = json_object_get(match, "seats"), *it;
        struct eng_data files;
        struct eng_config cfg;
        struct eng_error err;
        size_t i;

        if (!g)
                fail_msg("%s: this test has no game \"%s\"", c->scene, str_or(match, "game", ""));
        if (match_json_data_from(g, json_object_get(match, "data"), &files, &err) < 0 ||
            match_json_config_from(g, json_object_get(match, "config"), &files, (unsigned) json_array_size(seats),
                                   &cfg, &err) < 0)
                fail_msg("%s: match %lld's config cannot be read: %s", c->scene, (long long) m->id, err.message);
        void *state = calloc(1, g->state_size);
        struct eng_record *records = calloc(json_array_size(log) + 1, sizeof *records);
        assert_non_null(state);
        assert_non_null(records);
        struct eng_setup setup = {
                .game = g, .cfg = &cfg, .data = &files, .n_seats = (unsigned) json_array_size(seats), .seed = m->seed,
        };
        assert_int_equal(g->create(state, &cfg, &files, setup.n_seats, m->seed), 0);
        json_array_foreach(log, i, it) {
                json_int_t seq = json_integer_value(json_object_get(it, "seq"));
                struct eng_out out;
                char hash[17];

                if (i == upto)
                        break;
                if (seq != (json_int_t) i + 1)
                        fail_msg("%s: match %lld (%s): the stored log's item %zu has seq %lld: a gap", c->scene,
                                 (long long) m->id, lane_names[m->lane], i, (long long) seq);
                if (match_json_input_from(g, json_object_get(it, "input"), &records[i].in, &err) < 0)
                        fail_msg("%s: match %lld: input %lld cannot be read back: %s", c->scene, (long long) m->id,
                                 (long long) seq, err.message);
                assert_true(eng_log_apply(&setup, state, records, i, &records[i].in, &out) >= 0);
                records[i].refusal = out.refusal;
                snprintf(hash, sizeof hash, "%016" PRIx64, g->hash(state));
                const char *refusal = json_string_value(json_object_get(it, "refusal")),
                           *replayed = out.refusal == ENG_ACCEPTED ? NULL : eng_refusal_name(out.refusal);
                if ((refusal == NULL) != (replayed == NULL) || (refusal && strcmp(refusal, replayed) != 0) ||
                    strcmp(hash, str_or(it, "state_hash", "")) != 0)
                        fail_msg("%s: match %lld (%s): input %lld replays to %s with state hash %s; stored: %s, %s",
                                 c->scene, (long long) m->id, lane_names[m->lane], (long long) seq,
                                 replayed ? replayed : "accepted", hash, refusal ? refusal : "accepted",
                                 str_or(it, "state_hash", "none"));
                if (records[i].in.kind == ENG_IN_VOID && out.refusal == ENG_ACCEPTED)
                        eng_log_mark_voided(records, i);
        }
        json_t *view = match_json_view(g, state, ENG_VIEW_REFEREE, -1);
        assert_non_null(view);
        free(records);
        free(state);
        return view;
}

/* The members of the two views that differ, each side as JSON (cut short):
 * for a failure message (malloc'd). */
static char *view_difference(json_t *live, json_t *replayed, size_t n_inputs) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        const char *key;
        json_t *v;

        assert_non_null(f);
        fprintf(f, "the referee's view differs from its %zu stored inputs replayed, in:", n_inputs);
        json_object_foreach(live, key, v) {
                json_t *w = json_object_get(replayed, key);
                if (json_equal(v, w))
                        continue;
                char *a = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY),
                     *b = w ? json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : strdup("(none)");
                fprintf(f, "\n  %s: live %.300s\n  %*s  replayed %.300s", key, a, (int) strlen(key), "", b);
                free(a);
                free(b);
        }
        json_object_foreach(replayed, key, v)
                if (!json_object_get(live, key))
                        fprintf(f, "\n  %s: only in the replayed view", key);
        fclose(f);
        return text;
}

/* When the live view is the state after a shorter prefix of the stored
 * log, says which stored inputs the live match does not have (an input
 * written after the daemon rebuilt the match, say); appends to text. */
static char *behind_by(struct chaos *c, const struct chaos_match *m, json_t *match, json_t *log, json_t *live,
                       char *text) {
        size_t n = json_array_size(log), k = n;
        char *more = NULL;

        while (k-- > 0) {
                json_t *v = replay(c, m, match, log, k);
                bool same = json_equal(v, live);
                json_decref(v);
                if (same)
                        break;
        }
        if (k == SIZE_MAX)
                return text;
        size_t len = 0;
        FILE *f = open_memstream(&more, &len);
        assert_non_null(f);
        fprintf(f, "%s\nThe live match is the state after the first %zu stored inputs; it does not have:", text, k);
        for (size_t j = k; j < n; j++) {
                json_t *it = json_array_get(log, j);
                fprintf(f, "\n  seq %lld: %s from %s (%s), recorded at %s",
                        (long long) json_integer_value(json_object_get(it, "seq")), str_or(it, "kind", "?"),
                        str_or(it, "source", "?"), str_or(it, "reason", "no reason"), str_or(it, "recorded_at", "?"));
        }
        fclose(f);
        free(text);
        return more;
}

/* The live match holds the state of its stored log: a snapshot (the view,
 * the log, the view again, unchanged) whose log replays to that view.  An
 * input on its way to the database makes the view run ahead of the log for
 * a moment: the snapshot is taken again. */
static void check_resumed(struct chaos *c, size_t i, json_t *match, const char *when) {
        const struct chaos_match *m = &c->matches[i];
        char *last = NULL;

        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                long st1, st2;
                json_t *v1 = referee_view(c, m->id, &st1);
                json_t *log = v1 ? stored_log(c, m->id) : NULL;
                json_t *v2 = v1 ? referee_view(c, m->id, &st2) : NULL;
                bool done = false;

                if (!v1 || !v2) {
                        /* over since (a timer's input finished it): nothing live to compare */
                        done = st1 == 409 || (v1 && st2 == 409);
                        if (!done && mono_ms() > deadline)
                                fail_msg("%s, %s: match %lld (%s) is not live (HTTP %ld)", c->scene, when,
                                         (long long) m->id, lane_names[m->lane], v1 ? st2 : st1);
                } else if (json_equal(v1, v2)) {
                        json_t *replayed = replay(c, m, match, log, SIZE_MAX);
                        done = json_equal(replayed, json_object_get(v1, "view"));
                        if (!done) {
                                free(last);
                                last = view_difference(json_object_get(v1, "view"), replayed, json_array_size(log));
                                last = behind_by(c, m, match, log, json_object_get(v1, "view"), last);
                        }
                        json_decref(replayed);
                }
                json_decref(v1);
                json_decref(v2);
                json_decref(log);
                if (done)
                        break;
                if (mono_ms() > deadline)
                        fail_msg("%s, %s: match %lld (%s) resumed with a state other than its stored log's: %s",
                                 c->scene, when, (long long) m->id, lane_names[m->lane], last ? last : "");
                usleep(POLL_US);
        }
        free(last);
}

void chaos_check(struct chaos *c, const char *when) {
        chaos_read_pads(c);
        for (size_t i = 0; i < c->n_matches; i++) {
                struct chaos_match *m = &c->matches[i];
                json_t *match = stored_match(c, m->id);
                const char *why = json_string_value(json_object_get(match, "needs_referee")),
                           *state = str_or(match, "state", "?");

                if (why)
                        fail_msg("%s, %s: match %lld (%s) was handed to a referee: %s", c->scene, when,
                                 (long long) m->id, lane_names[m->lane], why);
                json_t *log = stored_log(c, m->id);
                check_inputs(c, i, log, when);
                check_presses(c, i, log, when);
                json_decref(log);
                if (strcmp(state, "finished") != 0 && strcmp(state, "aborted") != 0)
                        check_resumed(c, i, match, when);
                json_decref(match);
        }
        c->checks++;
}

/* ---- a write held in flight ---------------------------------------------- */

static int count_of(struct chaos *c, const char *sql) {
        int st;
        char *out = run_capture(&st, "psql '%s' -tA -c \"%s\" 2>/dev/null", c->o.dsn, sql);
        int n = st == 0 ? atoi(out) : -1;
        free(out);
        return n;
}

json_int_t chaos_press_a_window(struct chaos *c, void (*before)(struct chaos *c)) {
        struct chaos_lane *l = &c->lanes[CHAOS_CP_PADS];
        json_t *rv = NULL;
        long st = 0;

        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                const struct chaos_match *m = lane_match(c, l);
                rv = m ? referee_view(c, m->id, &st) : NULL;
                if (m && st == 0)
                        fail_msg("%s: the daemon stopped answering while cp-pads waited for a window", c->scene);
                json_t *v = json_object_get(rv, "view");
                json_int_t w = cp_window_id(v);
                if (rv && strcmp(json_string_value(json_object_get(rv, "state")), "running") == 0 && w &&
                    json_is_object(json_object_get(v, "face_up")) && may_press(c, l, w))
                        break;
                if (!rv || strcmp(json_string_value(json_object_get(rv, "state")), "running") != 0)
                        lane_step(c, l);
                json_decref(rv);
                rv = NULL;
                chaos_read_pads(c);
                if (mono_ms() > deadline)
                        fail_msg("%s: cp-pads never had a window open to press in", c->scene);
                usleep(POLL_US);
        }
        json_int_t w = cp_window_id(json_object_get(rv, "view"));
        int seat = (int) (l->turn++ % CP_SEATS), call = cp_pick_call(json_object_get(rv, "view"), false);
        json_decref(rv);
        if (before)
                before(c);
        press(c, l, CP_PAD_FIRST + seat, seat + 1, call == CP_DOESNT_FIT_CALL ? CP_DOESNT_FIT_BUTTON : call - 1, w);
        return w;
}

void chaos_hold_a_write(struct chaos *c) {
        struct chaos_lane *l = &c->lanes[CHAOS_CP_PADS];
        long st;

        assert_int_equal(run_cmd("psql '%s' -q -c 'BEGIN; LOCK TABLE match_inputs IN ACCESS EXCLUSIVE MODE; "
                                 "SELECT pg_sleep(3600); COMMIT;' >/dev/null 2>&1 &", c->o.dsn), 0);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
             count_of(c, "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE "
                         "c.relname = 'match_inputs' AND l.mode = 'AccessExclusiveLock' AND l.granted") != 1;) {
                if (mono_ms() > deadline)
                        fail_msg("%s: the lock on match_inputs was never granted", c->scene);
                usleep(POLL_US);
        }
        json_int_t w = chaos_press_a_window(c, NULL);
        /* The judge decides: the call is the match's state (its view moves
         * on) while its INSERT waits for the lock. */
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS;;) {
                json_t *rv = referee_view(c, lane_match(c, l)->id, &st);
                json_int_t now = cp_window_id(json_object_get(rv, "view"));
                json_decref(rv);
                if (now != w)
                        break;
                chaos_read_pads(c);
                if (mono_ms() > deadline)
                        fail_msg("%s: the press in window %lld of match %lld was never judged", c->scene,
                                 (long long) w, (long long) lane_match(c, l)->id);
                usleep(POLL_US);
        }
        chaos_read_pads(c);
}
