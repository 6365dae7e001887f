/* Pitch Fleet end to end: whole games entered through REST as a referee
 * would, through the real daemon, PostgreSQL and dbus-daemon:
 *
 *   - a 4-player and a 6-player race and a solo game, every step drawn by
 *     the engine's random legal referee (pf_sim_next) from a replica of the
 *     match kept in the test: picks of the face-up cards by handle, shot
 *     reports with locations of the layout in play, knocks, outbounds,
 *     restarts, charging draws used and kept, fouls, and now and then an
 *     impossible report, which must be refused;
 *   - each step previewed first, then sent: what the preview showed (events,
 *     explanation, view) is what the input then did;
 *   - the replica follows the stored log (GET …/log) with the framework's
 *     own eng_log_apply, and after every stored input its refusal and state
 *     hash equal the daemon's: the daemon ran exactly the game the test did;
 *   - the referee keypad of the table (an arbiter-padsim keypad on a pty)
 *     ends turns, restarts and fouls in the 4-player game, and pauses and
 *     resumes it, as the game's routes say;
 *   - a void of a confirmed turn rewinds the match to just before it (the
 *     referee's view as it was), and play goes on from there;
 *   - a kill -9 in the middle of the 6-player game's second stage: after the
 *     restart the view, the state hash and the preview of the next step are
 *     what they were before;
 *   - SSE: the public stream carries each input's events in the reply's
 *     order, each stored before it is published, never the drawn card;
 *     D-Bus (`busctl --user monitor`): the game's signals on
 *     org.arbiter.Arbiter1.PitchFleet;
 *   - the result, confirmed by the referee: each seat's total, its terms
 *     and its team in each stage, as the replica says;
 *   - impossible reports: a location not on the layout (400 naming at[0]),
 *     a ship that is no ship (outbound[0]), a solo try of no moves (moves),
 *     a ship not on the board, a restart without a restart card or after a
 *     collision, the random referee's own impossible inputs (409, logged,
 *     the hash unchanged);
 *   - the players' tablet: a referee token limited to their match reports
 *     their turns and is refused (403) on another match and every other
 *     write (docs/matches.md, "Match referee tokens").
 *
 * Deterministic: the seeds are fixed, and each step waits for its events. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/log.h"
#include "engine/pitch_fleet.h"
#include "match/json.h"
#include "match/match.h"
#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

static const char config_text[] =
        "[pads]\n"
        "settle_window = 40000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --kinds referee --uid-base 0x7d00: the table's keypad. */
#define UID_BASE        "32000"
#define KEYPAD_ID       "0000000000007d00"
/* docs/games/pitch-fleet.md, "A referee keypad". */
#define KEY_END_TURN    10
#define KEY_RESTART     1
#define KEY_FOUL        11
#define KEY_RESUME      13
#define KEY_PAUSE       14
#define MAX_LOG         4096

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *monitor_path, *admin_token, *referee_token;
static json_int_t table_id;
static pid_t monitor_pid;

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

static bool keypad_synced(void) {
        struct http_reply r;
        size_t i;
        json_t *p;
        bool ok = false;

        http_get(&daemon_, "/v1/pads", NULL, &r);
        json_array_foreach(json_object_get(r.json, "items"), i, p)
                ok |= strcmp(json_string_value(json_object_get(p, "id")), KEYPAD_ID) == 0 &&
                      json_is_true(json_object_get(json_object_get(p, "clock"), "synced"));
        http_reply_done(&r);
        return ok;
}

static void wait_keypad(void) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !keypad_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the simulated keypad did not connect and sync");
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

static bool monitor_has(const char *a, const char *b) {
        char *line = NULL;
        size_t cap = 0;
        bool found = false;
        FILE *f = fopen(monitor_path, "r");

        if (!f)
                return false;
        while (!found && getline(&line, &cap, f) > 0)
                found = strstr(line, a) && (!b || strstr(line, b));
        free(line);
        fclose(f);
        return found;
}

static int setup(void **state) {
        char body[512];
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("pf")) > 0);
        assert_true(asprintf(&monitor_path, "%s/%s.json", harness_env("ARBITER_TEST_TMP"), unique_name("mon")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);
        const char *sim_args[] = { "--kinds", "referee", "--link", link_path, "--seed", "41", "--uid-base", UID_BASE,
                                   NULL };
        padsim_start(&sim, sim_args);
        start_daemon();
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        wait_keypad();

        /* a table of four seats whose only pad is the referee's keypad */
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [{\"seat\": 1, \"pads\": []}, {\"seat\": 2, "
                 "\"pads\": []}, {\"seat\": 3, \"pads\": []}, {\"seat\": 4, \"pads\": []}], "
                 "\"pads\": [{\"pad\": \"%s\", \"role\": \"keypad\"}]}", unique_name("pftable"), KEYPAD_ID);
        json_t *t = post_json("/v1/tables", admin_token, body, 201);
        table_id = json_integer_value(json_object_get(t, "id"));
        json_decref(t);

        char *pid_s = run_capture(NULL, "busctl --user monitor --json=short --match "
                                        "\"type='signal',interface='org.arbiter.Arbiter1.PitchFleet'\" "
                                        "> '%s' 2>/dev/null & echo $!", monitor_path);
        monitor_pid = (pid_t) atoi(pid_s);
        free(pid_s);
        assert_true(monitor_pid > 0);
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !monitor_has("\"Probe\"", NULL);) {
                if (mono_ms() > deadline)
                        fail_msg("busctl monitor never showed the probe signal");
                run_cmd("busctl --user emit /org/arbiter/test/probe org.arbiter.Arbiter1.PitchFleet Probe");
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
        return st == 0 ? 0 : -1;
}

/* ---- one match and its replica ------------------------------------------ */

struct game {
        json_int_t id;
        int n;
        json_t *config;
        struct eng_config cfg;
        struct eng_setup setup;
        struct pf_state *st;            /* the replica, following the stored log */
        struct eng_record *log;
        size_t n_log;
        struct stream pub;
        size_t at;                      /* the next event of pub not looked at */
        struct eng_rng rng;             /* the referee's */
        struct pf_sim_params p;
        bool keypad;                    /* frequent steps on the keypad */
        /* what was accepted, by action; junk refused; keypad presses */
        unsigned done[PF_N_ACTIONS], uses, keeps, refused, pressed, events, voids;
        /* the void: of the void_at-th end_turn, a few steps after it */
        unsigned void_at;
        json_t *view_before_target;     /* the referee's view just before it */
        json_int_t void_target;
};

static void open_stream(struct game *g) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) g->id);
        stream_open(&g->pub, daemon_.url, path, NULL);
        g->at = 0;
}

static void game_new(struct game *g, int n, int seed, const char *config, bool at_table) {
        static const char *const names[] = { "Ana", "Ben", "Cy", "Dee", "Eve", "Fay" };
        char body[1024], table[48] = "";
        size_t len;
        struct eng_error err;

        memset(g, 0, sizeof *g);
        g->n = n;
        g->config = json_loads(config, 0, NULL);
        assert_non_null(g->config);
        assert_int_equal(match_json_config_from(&pf_game, g->config, NULL, (unsigned) n, &g->cfg, &err), 0);
        g->setup = (struct eng_setup) { .game = &pf_game, .cfg = &g->cfg, .n_seats = (unsigned) n,
                                        .seed = (uint64_t) seed, .confirm = true };
        g->st = calloc(1, pf_game.state_size);
        g->log = calloc(MAX_LOG, sizeof *g->log);
        assert_non_null(g->st);
        assert_non_null(g->log);
        assert_int_equal(pf_game.create(g->st, &g->cfg, NULL, (unsigned) n, (uint64_t) seed), 0);
        pf_sim_params_default(&g->p);
        eng_rng_seed(&g->rng, (uint64_t) seed * 7919u + 1);
        if (at_table)
                snprintf(table, sizeof table, "\"table\": %lld, ", (long long) table_id);
        len = (size_t) snprintf(body, sizeof body, "{\"game\": \"pitch-fleet\", %s\"seed\": %d, \"config\": %s, "
                                "\"confirm\": \"referee\", \"players\": [", table, seed, config);
        for (int s = 0; s < n; s++)
                len += (size_t) snprintf(body + len, sizeof body - len, "%s\"%s\"", s ? ", " : "", names[s]);
        snprintf(body + len, sizeof body - len, "]}");
        json_t *m = post_json("/v1/matches", referee_token, body, 201);
        g->id = json_integer_value(json_object_get(m, "id"));
        json_decref(m);
        open_stream(g);
}

static void game_done(struct game *g) {
        stream_close(&g->pub);
        json_decref(g->config);
        free(g->st);
        free(g->log);
}

static const char *ev_kind(const struct event *e) {
        return e->name;
}

static json_int_t ev_seq(const struct event *e) {
        return json_integer_value(json_object_get(e->data, "seq"));
}

/* The rows of the log after seq after (a new reference). */
static json_t *log_after(const struct game *g, uint64_t after) {
        char path[128];

        snprintf(path, sizeof path, "/v1/matches/%lld/log?after=%" PRIu64 "&limit=100", (long long) g->id, after);
        json_t *log = get_json(path, referee_token), *items = json_incref(json_object_get(log, "items"));
        json_decref(log);
        return items;
}

static uint64_t last_seq(const struct game *g) {
        return g->n_log ? g->log[g->n_log - 1].in.seq : 0;
}

/* Brings the replica up to the stored log: every row read back as the
 * runtime reads it on replay, applied with the framework's eng_log_apply,
 * and its refusal and state hash compared with what the daemon stored.
 * The number of rows read; the last one's source in source (may be NULL). */
static size_t sync_log(struct game *g, char *source, size_t source_len) {
        json_t *rows = log_after(g, last_seq(g)), *row;
        size_t i;
        char why[256];
        struct eng_error err;

        json_array_foreach(rows, i, row) {
                struct eng_input in;
                struct eng_out out;

                assert_int_equal(match_json_input_from(&pf_game, json_object_get(row, "input"), &in, &err), 0);
                assert_true(g->n_log < MAX_LOG);
                assert_int_equal(eng_log_apply(&g->setup, g->st, g->log, g->n_log, &in, &out), 0);
                if (match_replay_compare(in.seq, out.refusal, json_string_value(json_object_get(row, "refusal")),
                                         pf_game.hash(g->st), json_string_value(json_object_get(row, "state_hash")),
                                         why, sizeof why) < 0)
                        fail_msg("match %lld: the test's replica and the daemon differ: %s", (long long) g->id, why);
                assert_int_equal(pf_check(g->st, why, sizeof why), 0);
                g->log[g->n_log++] = (struct eng_record) { .in = in, .refusal = out.refusal };
                if (in.kind == ENG_IN_VOID && out.refusal == ENG_ACCEPTED)
                        eng_log_mark_voided(g->log, g->n_log - 1);
                if (source)
                        snprintf(source, source_len, "%s", json_string_value(json_object_get(row, "source")));
        }
        size_t n = json_array_size(rows);
        json_decref(rows);
        return n;
}

/* Whether seq is in the log already (an event is published only once its
 * input is stored). */
static void assert_stored(const struct game *g, json_int_t seq) {
        json_t *rows = log_after(g, (uint64_t) seq - 1);

        if (json_integer_value(json_object_get(json_array_get(rows, 0), "seq")) != seq)
                fail_msg("input %lld of match %lld was published before it was stored", (long long) seq,
                         (long long) g->id);
        json_decref(rows);
}

/* The next public event, waiting for it. */
static const struct event *next_public(struct game *g) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; g->at >= g->pub.n_events;) {
                if (g->pub.done || mono_ms() > deadline)
                        fail_msg("match %lld: no public event came (after #%zu)", (long long) g->id, g->at);
                pump(&g->pub, 20);
        }
        const struct event *e = &g->pub.events[g->at++];

        /* the drawn card is the seat's and the referee's, never public */
        if (strcmp(ev_kind(e), "charging_drawn") == 0 && !json_is_null(json_object_get(e->data, "card")) &&
            json_object_get(e->data, "card"))
                fail_msg("the public charging_drawn carries the card: %s", json_dumps(e->data, JSON_COMPACT));
        g->events++;
        return e;
}

/* The public stream carries input seq's events, kinds[0..n) in order, each
 * stored before it is published. */
static void expect_published(struct game *g, json_int_t seq, json_t *events) {
        size_t i;
        json_t *ev;

        json_array_foreach(events, i, ev) {
                const struct event *e = next_public(g);

                if (ev_seq(e) != seq || strcmp(ev_kind(e), json_string_value(json_object_get(ev, "kind"))) != 0)
                        fail_msg("match %lld: expected %s of input %lld on the public stream, got %s of %lld",
                                 (long long) g->id, json_string_value(json_object_get(ev, "kind")), (long long) seq,
                                 ev_kind(e), (long long) ev_seq(e));
                if (i == 0)
                        assert_stored(g, seq);
        }
}

/* The events without their times (a preview's at_us is when it was made). */
static json_t *timeless(json_t *events) {
        json_t *c = json_deep_copy(events), *ev;
        size_t i;

        json_array_foreach(c, i, ev)
                json_object_del(ev, "at_us");
        return c;
}

static void assert_json_equal(json_t *a, json_t *b, const char *what) {
        if (!json_equal(a, b)) {
                char *sa = json_dumps(a, JSON_COMPACT), *sb = json_dumps(b, JSON_COMPACT);

                fail_msg("%s differ:\n%s\n%s", what, sa, sb);
        }
}

static json_t *referee_view(const struct game *g) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) g->id);
        json_t *r = get_json(path, referee_token), *v = json_incref(json_object_get(r, "view"));
        json_decref(r);
        return v;
}

/* The public view never holds the referee's member, the drawn card; the
 * rest is the referee's. */
static void check_public_view(const struct game *g) {
        char path[96];

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) g->id);
        json_t *m = get_json(path, NULL), *pub = json_object_get(m, "view"), *ref = referee_view(g);

        assert_true(json_is_object(pub));
        assert_null(json_object_get(pub, "referee"));
        assert_null(json_object_get(pub, "you"));
        json_object_del(ref, "referee");
        assert_json_equal(pub, ref, "the public view and the referee's (less its own member)");
        json_decref(ref);
        json_decref(m);
}

/* One input as a referee sends it over REST: the log's shape less seq and
 * time_us (the runtime's). */
static char *request_of(const struct eng_input *in) {
        json_t *j = match_json_input_to(&pf_game, in);

        assert_non_null(j);
        json_object_del(j, "seq");
        json_object_del(j, "time_us");
        char *s = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return s;
}

static void path_of(char *buf, size_t len, const struct game *g, const char *what) {
        snprintf(buf, len, "/v1/matches/%lld/%s", (long long) g->id, what);
}

static void press_key(int key) {
        padsim_send(&sim, "{\"in_us\":0,\"pad\":0,\"button\":%d,\"press\":true}", key);
}

/* The keypad's key for in, or -1 when it is not one of the frequent steps. */
static int key_of(const struct eng_input *in) {
        if (in->kind != ENG_IN_ACTION)
                return -1;
        switch (in->action) {
        case PF_ACTION_END_TURN:
                return KEY_END_TURN;
        case PF_ACTION_RESTART:
                return KEY_RESTART;
        case PF_ACTION_FOUL:
                return KEY_FOUL;
        default:
                return -1;
        }
}

static void count(struct game *g, const struct eng_input *in) {
        if (in->kind != ENG_IN_ACTION)
                return;
        g->done[in->action]++;
        if (in->action == PF_ACTION_CHARGE) {
                if (in->arg[PF_CHARGE_CHOICE] == PF_CHARGE_USE)
                        g->uses++;
                else
                        g->keeps++;
        }
}

/* A referee's input over REST: previewed, then sent; the preview is what
 * it then did.  The reply (a new reference). */
static json_t *send_previewed(struct game *g, const char *body) {
        char path[96];

        path_of(path, sizeof path, g, "preview");
        json_t *pre = post_json(path, referee_token, body, 200);
        assert_true(json_is_true(json_object_get(pre, "preview")));
        path_of(path, sizeof path, g, "inputs");
        json_t *rep = post_json(path, referee_token, body, 200);
        json_t *a = timeless(json_object_get(pre, "events")), *b = timeless(json_object_get(rep, "events"));

        assert_json_equal(a, b, "the preview's events and the input's");
        json_decref(a);
        json_decref(b);
        assert_json_equal(json_object_get(pre, "explanation"), json_object_get(rep, "explanation"),
                          "the preview's explanation and the input's");
        assert_json_equal(json_object_get(pre, "view"), json_object_get(rep, "view"), "the preview's view and the input's");
        assert_int_equal(json_integer_value(json_object_get(pre, "seq")), json_integer_value(json_object_get(rep, "seq")));
        json_decref(pre);
        return rep;
}

/* An input the match must refuse: the preview says so and stores nothing,
 * the input is refused and logged, and the state and its hash stay as they
 * were.  The problem (a new reference). */
/* A 409's field (NULL: none named) and the start of what it says after
 * "refused (…): ". */
static void expect_reason(json_t *p, const char *field, const char *why) {
        const char *detail = json_string_value(json_object_get(p, "detail")), *f;

        f = json_string_value(json_object_get(p, "field"));
        if (field ? !f || strcmp(f, field) != 0 : f != NULL)
                fail_msg("the problem should name the field %s: %s", field ? field : "(none)", json_dumps(p, JSON_COMPACT));
        if (!detail || !strstr(detail, why))
                fail_msg("the problem should say \"%s\": %s", why, json_dumps(p, JSON_COMPACT));
}

static json_t *send_refused(struct game *g, const char *body, long status, const char *refusal_or_field) {
        char path[96], before[17], after[17];

        match_hash_format(before, pf_game.hash(g->st));
        path_of(path, sizeof path, g, "preview");
        json_decref(post_json(path, referee_token, body, status));
        assert_int_equal(sync_log(g, NULL, 0), 0);
        path_of(path, sizeof path, g, "inputs");
        json_t *p = post_json(path, referee_token, body, status);
        if (status == 409) {
                const char *refusal = json_string_value(json_object_get(p, "refusal"));

                assert_non_null(refusal);
                if (refusal_or_field)
                        assert_string_equal(refusal, refusal_or_field);
                assert_int_equal(sync_log(g, NULL, 0), 1);
                assert_int_equal(g->log[g->n_log - 1].refusal == ENG_ACCEPTED, false);
        } else {
                const char *detail = json_string_value(json_object_get(p, "detail"));

                if (!detail || strncmp(detail, refusal_or_field, strlen(refusal_or_field)) != 0)
                        fail_msg("the problem should name %s: %s", refusal_or_field, json_dumps(p, JSON_COMPACT));
                assert_int_equal(sync_log(g, NULL, 0), 0);
        }
        match_hash_format(after, pf_game.hash(g->st));
        assert_string_equal(before, after);
        g->refused++;
        return p;
}

/* One step of the random referee.  false once the match is finished. */
static bool step(struct game *g) {
        struct eng_input in;
        bool junk = false;
        char path[96];

        if (pf_sim_next(g->st, &g->rng, &g->p, last_seq(g) + 1, 0, &in, &junk) == -EAGAIN)
                return false;
        char *body = request_of(&in);
        int key = g->keypad ? key_of(&in) : -1;

        bool target = !junk && g->void_at && !g->void_target && !g->view_before_target && in.kind == ENG_IN_ACTION &&
                      in.action == PF_ACTION_END_TURN && g->done[PF_ACTION_END_TURN] + 1 == g->void_at;

        if (target)
                g->view_before_target = referee_view(g);
        if (junk) {
                /* an impossible report (a solo success past the card's
                 * move limit, a turn's input in solo, an end_turn before a
                 * pick, a second pick): the engine refuses it */
                json_decref(send_refused(g, body, 409, NULL));
        } else if (key >= 0 && (g->done[in.action] % 2) == 0) {
                /* the keypad, every other time: its press makes the input
                 * the preview showed */
                char source[16];
                json_int_t seq = (json_int_t) last_seq(g) + 1;

                path_of(path, sizeof path, g, "preview");
                json_t *pre = post_json(path, referee_token, body, 200);
                press_key(key);
                expect_published(g, seq, json_object_get(pre, "events"));
                json_decref(pre);
                assert_int_equal(sync_log(g, source, sizeof source), 1);
                assert_string_equal(source, "pad");
                assert_int_equal(last_seq(g), seq);
                assert_int_equal(g->log[g->n_log - 1].refusal, ENG_ACCEPTED);
                assert_int_equal(g->log[g->n_log - 1].in.action, in.action);
                count(g, &in);
                g->pressed++;
        } else {
                json_t *rep = send_previewed(g, body);
                json_int_t seq = json_integer_value(json_object_get(rep, "seq"));

                expect_published(g, seq, json_object_get(rep, "events"));
                assert_int_equal(sync_log(g, NULL, 0), 1);
                assert_int_equal(last_seq(g), seq);
                json_decref(rep);
                count(g, &in);
        }
        if (target)
                g->void_target = (json_int_t) last_seq(g);
        free(body);
        return true;
}

/* The void of a confirmed turn (its end_turn, void_target): the match is
 * as it was just before it, and the referee's reply lists what was voided
 * for re-entry. */
static void void_turn(struct game *g) {
        char body[160];

        snprintf(body, sizeof body, "{\"kind\": \"void\", \"target\": %lld, \"reason\": \"the shot was a foul\"}",
                 (long long) g->void_target);
        json_t *rep = send_previewed(g, body), *voided = json_object_get(rep, "voided");
        json_int_t seq = json_integer_value(json_object_get(rep, "seq"));

        assert_true(json_array_size(voided) >= 1);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(voided, 0), "seq")), g->void_target);
        assert_string_equal(json_string_value(json_object_get(json_array_get(voided, 0), "kind")), "end_turn");
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(rep, "events"), 0),
                                                              "kind")), "inputs_voided");
        expect_published(g, seq, json_object_get(rep, "events"));
        assert_int_equal(sync_log(g, NULL, 0), 1);
        json_t *now = referee_view(g);
        assert_json_equal(g->view_before_target, now, "the view before the voided turn and after the void");
        assert_string_equal(json_string_value(json_object_get(now, "phase")), "decide");
        json_decref(now);
        json_decref(rep);
        g->voids++;
}

/* kill -9 in the middle of a turn: after the restart the referee's view,
 * the state hash and the preview of the referee's next step are as before. */
static void kill_and_resume(struct game *g) {
        char path[96], hash[17];
        struct eng_rng saved = g->rng;
        struct eng_input in;
        bool junk = true;

        while (junk)
                assert_int_equal(pf_sim_next(g->st, &g->rng, &g->p, last_seq(g) + 1, 0, &in, &junk), 0);
        g->rng = saved;
        char *body = request_of(&in);
        path_of(path, sizeof path, g, "preview");
        json_t *view = referee_view(g), *pre = post_json(path, referee_token, body, 200);
        match_hash_format(hash, pf_game.hash(g->st));

        kill(daemon_.pid, SIGKILL);
        daemon_wait_exit(&daemon_);
        stream_close(&g->pub);
        start_daemon();
        assert_true(daemon_wait_log(&daemon_, "rebuilt from the input log", HARNESS_WAIT_MS));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        wait_keypad();
        open_stream(g);

        json_t *view2 = referee_view(g), *pre2 = post_json(path, referee_token, body, 200);
        json_t *rows = log_after(g, last_seq(g) - 1);
        assert_int_equal(json_array_size(rows), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "state_hash")), hash);
        assert_json_equal(view, view2, "the referee's view before the kill and after the restart");
        json_t *a = timeless(json_object_get(pre, "events")), *b = timeless(json_object_get(pre2, "events"));
        assert_json_equal(a, b, "the next step's preview before the kill and after the restart");
        assert_json_equal(json_object_get(pre, "explanation"), json_object_get(pre2, "explanation"),
                          "the next step's explanation before the kill and after the restart");
        assert_json_equal(json_object_get(pre, "view"), json_object_get(pre2, "view"),
                          "the next step's view before the kill and after the restart");
        assert_int_equal(sync_log(g, NULL, 0), 0);
        json_decref(a);
        json_decref(b);
        json_decref(rows);
        json_decref(view);
        json_decref(view2);
        json_decref(pre);
        json_decref(pre2);
        free(body);
}

/* Plays the match out; kill_stage: kill -9 the daemon in that stage's
 * second round with a turn under way (0: never). */
static void play_out(struct game *g, unsigned kill_stage) {
        bool killed = false;
        unsigned since_target = 0;

        while (step(g)) {
                if (g->void_target && !g->voids && ++since_target > 4)
                        void_turn(g);
                if (kill_stage && !killed && g->st->stage == kill_stage && g->st->round == 2 &&
                    g->st->phase == PF_PHASE_DECIDE) {
                        kill_and_resume(g);
                        killed = true;
                }
                if (g->done[PF_ACTION_END_TURN] % 7 == 3 && g->st->phase == PF_PHASE_PICK)
                        check_public_view(g);
        }
        if (kill_stage)
                assert_true(killed);
        if (g->void_at)
                assert_int_equal(g->voids, 1);
        json_decref(g->view_before_target);
}

/* The result is provisional until the referee confirms it; then each seat's
 * total, terms and teams are the replica's. */
static json_t *confirm_and_check(struct game *g) {
        char path[96];
        struct eng_result res;
        size_t i;
        json_t *pl;

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) g->id);
        json_t *m = get_json(path, referee_token);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "provisional");
        assert_true(json_is_null(json_object_get(m, "seed")));
        json_decref(m);
        path_of(path, sizeof path, g, "inputs");
        json_t *rep = post_json(path, referee_token, "{\"kind\": \"confirm\"}", 200);
        expect_published(g, json_integer_value(json_object_get(rep, "seq")), json_object_get(rep, "events"));
        json_decref(rep);
        assert_int_equal(sync_log(g, NULL, 0), 1);

        assert_int_equal(pf_game.result(g->st, &res), 0);
        assert_true(res.finished);
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) g->id);
        m = get_json(path, referee_token);
        assert_string_equal(json_string_value(json_object_get(m, "state")), "finished");
        assert_false(json_is_null(json_object_get(m, "seed")));
        json_t *result = json_object_get(m, "result");
        assert_int_equal(json_array_size(json_object_get(result, "placements")), g->n);
        json_array_foreach(json_object_get(result, "placements"), i, pl) {
                int s = (int) json_integer_value(json_object_get(pl, "seat")) - 1;
                json_t *sc = json_object_get(pl, "score"), *terms = json_object_get(sc, "terms"), *teams;
                json_int_t sum = 0;

                assert_true(s >= 0 && s < g->n);
                assert_int_equal(s, res.order[i]);
                assert_int_equal(json_integer_value(json_object_get(pl, "place")), res.place[s]);
                assert_int_equal(json_integer_value(json_object_get(sc, "total")), g->st->seats[s].score);
                assert_true(g->st->seats[s].score >= 0);
                for (unsigned t = 0; t < pf_game.n_terms; t++) {
                        json_t *v = json_object_get(terms, pf_game.terms[t]);

                        assert_true(json_is_integer(v));
                        assert_int_equal(json_integer_value(v), g->st->seats[s].terms[t]);
                        sum += json_integer_value(v);
                }
                assert_int_equal(sum, g->st->seats[s].score);
                teams = json_object_get(pl, "teams");
                if (g->n == 1) {
                        assert_true(!teams || json_array_size(teams) == 0);
                        assert_non_null(res.label);
                        /* the solo evaluation is the result's label */
                        if (!json_is_string(json_object_get(result, "label")))
                                fail_msg("a solo result has no label: %s", json_dumps(result, JSON_COMPACT));
                        assert_string_equal(json_string_value(json_object_get(result, "label")), res.label);
                        continue;
                }
                /* a team per stage, dealt anew each stage */
                assert_int_equal(json_array_size(teams), g->st->stages);
                for (unsigned k = 0; k < g->st->stages; k++)
                        assert_int_equal(json_integer_value(json_array_get(teams, k)), g->st->teams[k][s] + 1);
        }
        return m;
}

/* The game's signals for the match were on D-Bus. */
static void check_dbus(const struct game *g, const char *const *members) {
        char path[96], needle[96];

        snprintf(path, sizeof path, "\"/org/arbiter/Arbiter1/match/%lld\"", (long long) g->id);
        for (const char *const *m = members; *m; m++) {
                snprintf(needle, sizeof needle, "\"member\":\"%s\"", *m);
                for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !monitor_has(path, needle);) {
                        if (mono_ms() > deadline)
                                fail_msg("busctl monitor saw no %s of match %lld", *m, (long long) g->id);
                        usleep(50000);
                }
        }
}

static void report(const struct game *g, const char *what) {
        print_message("# %s: match %lld, %zu inputs stored, %u public events; %u picks, %u shots, %u restarts, "
                      "%u charges (%u used, %u kept), %u fouls, %u turns, %u solo tries; %u refused, %u keypad "
                      "presses, %u voids\n", what, (long long) g->id, g->n_log, g->events, g->done[PF_ACTION_PICK],
                      g->done[PF_ACTION_SHOT], g->done[PF_ACTION_RESTART], g->done[PF_ACTION_CHARGE], g->uses,
                      g->keeps, g->done[PF_ACTION_FOUL], g->done[PF_ACTION_END_TURN], g->done[PF_ACTION_ATTEMPT],
                      g->refused, g->pressed, g->voids);
}

static const char *const race_signals[] = {
        "StageStarted", "TeamsDealt", "RoundStarted", "TurnStarted", "CardPicked", "ShotReported", "ScoreChanged",
        "TurnEnded", "RoundEnded", "RestartUsed", "FoulCalled", "ChargingDrawn", "CardKept", "CardUsed", NULL,
};

/* Four players at the table with the keypad: every other end_turn,
 * restart and foul is a key; a pause and a resume from it too; the fourth
 * turn is voided a few steps after it. */
static void four_players(void **state) {
        struct game g;
        (void) state;

        game_new(&g, 4, 4401, "{}", true);
        g.keypad = true;
        g.void_at = 4;
        g.p.junk_pct = 4;
        /* a pause from the keypad holds every input, a resume lifts it */
        for (int i = 0; i < 12; i++)
                step(&g);
        press_key(KEY_PAUSE);
        const struct event *e = next_public(&g);
        assert_string_equal(e->name, "paused");
        assert_int_equal(sync_log(&g, NULL, 0), 1);
        char path[96];
        path_of(path, sizeof path, &g, "inputs");
        json_t *p = post_json(path, referee_token, "{\"kind\": \"end_turn\"}", 409);
        json_decref(p);
        assert_int_equal(sync_log(&g, NULL, 0), 1);
        press_key(KEY_RESUME);
        e = next_public(&g);
        assert_string_equal(e->name, "resumed");
        assert_int_equal(sync_log(&g, NULL, 0), 1);

        play_out(&g, 0);
        report(&g, "4 players");
        assert_true(g.done[PF_ACTION_RESTART] > 0 && g.done[PF_ACTION_FOUL] > 0 && g.uses > 0 && g.keeps > 0);
        assert_true(g.pressed >= 3 && g.refused > 0);
        assert_int_equal(g.st->stages, pf_stages_for(4));
        json_decref(confirm_and_check(&g));
        check_dbus(&g, race_signals);
        game_done(&g);
}

/* Six players at no table, advanced cards mixed in, a kill -9 in the
 * second stage's second round. */
static void six_players_and_a_kill(void **state) {
        struct game g;
        (void) state;

        game_new(&g, 6, 6607, "{\"deck\": {\"advanced\": \"mixed\"}}", false);
        g.p.junk_pct = 3;
        play_out(&g, 2);
        report(&g, "6 players");
        assert_true(g.done[PF_ACTION_RESTART] > 0 && g.done[PF_ACTION_FOUL] > 0 && g.uses > 0 && g.keeps > 0);
        assert_int_equal(g.st->stages, pf_stages_for(6));
        json_decref(confirm_and_check(&g));
        check_dbus(&g, race_signals);
        game_done(&g);
}

static void solo(void **state) {
        struct game g;
        static const char *const signals[] = { "ChallengeRevealed", "ChallengeDone", NULL };
        (void) state;

        game_new(&g, 1, 101, "{}", false);
        g.p.junk_pct = 25;
        assert_true(step(&g));          /* start */
        /* a try of no moves is out of its field's range: 400 naming it */
        json_decref(send_refused(&g, "{\"kind\": \"attempt\", \"result\": \"success\", \"moves\": 0}", 400, "moves"));
        play_out(&g, 0);
        report(&g, "solo");
        assert_true(g.done[PF_ACTION_ATTEMPT] >= 7 && g.refused > 0);
        json_t *m = confirm_and_check(&g);
        print_message("# solo: %s\n", json_string_value(json_object_get(json_object_get(m, "result"), "label")));
        json_decref(m);
        check_dbus(&g, signals);
        game_done(&g);
}


/* A face-up card whose pick needs no placement (no relocation, no beam, no
 * springboard): its handle. */
static const char *plain_top(json_t *view) {
        static const char *const plain[] = { "B1", "B2", "B3", "B5", "B7", "B8", "B9", "A1", "A2", "A4", NULL };
        size_t i;
        json_t *pile;

        json_array_foreach(json_object_get(view, "piles"), i, pile) {
                json_t *top = json_object_get(pile, "top");
                const char *code = json_string_value(json_object_get(top, "code"));

                for (const char *const *p = plain; code && *p; p++)
                        if (strcmp(code, *p) == 0)
                                return json_string_value(json_object_get(top, "handle"));
        }
        fail_msg("no plain face-up card: %s", json_dumps(json_object_get(view, "piles"), JSON_COMPACT));
        return NULL;
}

/* The current player's ship, and a ship that is not on the board. */
static void ships_of(json_t *view, char *mine, char *off, size_t len) {
        int cur = (int) json_integer_value(json_object_get(view, "current_seat"));
        size_t i;
        json_t *sh;

        *mine = *off = 0;
        json_array_foreach(json_object_get(view, "ships"), i, sh) {
                const char *name = json_string_value(json_object_get(sh, "ship"));

                if (json_integer_value(json_object_get(sh, "owner_seat")) == cur && !*mine)
                        snprintf(mine, len, "%s", name);
                else if (!json_is_true(json_object_get(sh, "on_board")) && !*off)
                        snprintf(off, len, "%s", name);
        }
        if (!*mine)
                fail_msg("no ship of seat %d: %s", cur,
                         json_dumps(json_object_get(view, "ships"), JSON_COMPACT));
}

static void pick_plain(struct game *g) {
        char body[160], mine[16], off[16];
        json_t *v = referee_view(g);

        ships_of(v, mine, off, sizeof mine);
        snprintf(body, sizeof body, "{\"kind\": \"pick\", \"card\": \"%s\", \"ship\": \"%s\"}", plain_top(v), mine);
        json_t *rep = send_previewed(g, body);
        expect_published(g, json_integer_value(json_object_get(rep, "seq")), json_object_get(rep, "events"));
        assert_int_equal(sync_log(g, NULL, 0), 1);
        count(g, &g->log[g->n_log - 1].in);
        json_decref(rep);
        json_decref(v);
}

static void send_ok(struct game *g, const char *body) {
        json_t *rep = send_previewed(g, body);

        expect_published(g, json_integer_value(json_object_get(rep, "seq")), json_object_get(rep, "events"));
        assert_int_equal(sync_log(g, NULL, 0), 1);
        count(g, &g->log[g->n_log - 1].in);
        json_decref(rep);
}

#define SHOT(fields) "{\"kind\": \"shot\", \"outbound\": [], \"stacked\": false, \"collided\": false, \"at\": [], " \
        "\"knocked\": [], \"knocked_at\": [], \"beams_knocked\": 0, \"springboard_failed\": false, " fields "}"

/* Impossible reports: 400 naming the field when REST can tell, 409 when
 * only the table can (logged, the state and its hash unchanged). */
static void impossible_reports_are_refused(void **state) {
        struct game g;
        char body[512], mine[16], off[16], path[96];
        (void) state;

        game_new(&g, 2, 2203, "{}", false);
        g.p.junk_pct = 0;
        assert_true(step(&g));          /* start */

        /* a restart with no shot yet, a shot before a pick */
        json_t *p = send_refused(&g, "{\"kind\": \"restart\"}", 409, "not possible now");
        expect_reason(p, NULL, "there is no shot to restart");
        json_decref(p);
        json_decref(send_refused(&g, SHOT("\"seat\": null"), 409, "not possible now"));
        pick_plain(&g);
        json_t *v = referee_view(&g);
        ships_of(v, mine, off, sizeof mine);
        assert_true(*off);
        json_decref(v);

        /* a location not on the layout, a ship that is no ship: 400 */
        json_decref(send_refused(&g, "{\"kind\": \"shot\", \"outbound\": [], \"stacked\": false, \"collided\": false, "
                                     "\"at\": [\"saturn_vp_9\"], \"knocked\": [], \"knocked_at\": [], "
                                     "\"beams_knocked\": 0, \"springboard_failed\": false}", 400, "at[0]"));
        json_decref(send_refused(&g, "{\"kind\": \"shot\", \"outbound\": [\"green_1\"], \"stacked\": false, "
                                     "\"collided\": false, \"at\": [], \"knocked\": [], \"knocked_at\": [], "
                                     "\"beams_knocked\": 0, \"springboard_failed\": false}", 400, "outbound[0]"));
        /* a ship that is not on the board, knocked or out: 409 invalid */
        snprintf(body, sizeof body, "{\"kind\": \"shot\", \"outbound\": [], \"stacked\": false, \"collided\": true, "
                 "\"at\": [], \"knocked\": [\"%s\"], \"knocked_at\": [\"none\"], \"beams_knocked\": 0, "
                 "\"springboard_failed\": false}", off);
        p = send_refused(&g, body, 409, "invalid");
        expect_reason(p, "knocked", "knocked: names a ship that is not on the board");
        json_decref(p);
        snprintf(body, sizeof body, "{\"kind\": \"shot\", \"outbound\": [\"%s\"], \"stacked\": false, "
                 "\"collided\": false, \"at\": [], \"knocked\": [], \"knocked_at\": [], \"beams_knocked\": 0, "
                 "\"springboard_failed\": false}", off);
        p = send_refused(&g, body, 409, "invalid");
        expect_reason(p, "outbound", "outbound: names a ship that is not on the board");
        json_decref(p);

        /* a shot that touched nothing may restart, once: the card is spent */
        send_ok(&g, SHOT("\"seat\": null"));
        send_ok(&g, "{\"kind\": \"restart\"}");
        send_ok(&g, SHOT("\"seat\": null"));
        p = send_refused(&g, "{\"kind\": \"restart\"}", 409, "not possible now");
        expect_reason(p, NULL, "the player has no restart card");
        json_decref(p);
        send_ok(&g, "{\"kind\": \"end_turn\"}");

        /* the next player's shot collides: no restart */
        pick_plain(&g);
        send_ok(&g, "{\"kind\": \"shot\", \"outbound\": [], \"stacked\": false, \"collided\": true, \"at\": [], "
                    "\"knocked\": [], \"knocked_at\": [], \"beams_knocked\": 0, \"springboard_failed\": false}");
        p = send_refused(&g, "{\"kind\": \"restart\"}", 409, "not possible now");
        expect_reason(p, NULL, "the shot touched another starship or a beam");
        json_decref(p);
        /* a field no input has */
        json_decref(send_refused(&g, "{\"kind\": \"foul\", \"colour\": 1}", 400, "colour"));
        send_ok(&g, "{\"kind\": \"foul\"}");
        /* the live match's interface is the one docs/dbus.md lists */
        snprintf(path, sizeof path, "/org/arbiter/Arbiter1/match/%lld", (long long) g.id);
        assert_dbus_doc_matches(path, "org.arbiter.Arbiter1.PitchFleet");
        report(&g, "impossible reports");
        path_of(path, sizeof path, &g, "abort");
        json_decref(post_json(path, referee_token, "{}", 200));
        game_done(&g);
}

/* The players' tablet: a referee token limited to their match reports
 * their turns (inputs, previews, the referee's view, stream and log) and is
 * refused (403) on another match and on every other write. */
static void a_tablet_referees_its_own_match_only(void **state) {
        struct game g, other;
        char path[128], body[256];
        struct http_reply r;
        (void) state;

        game_new(&g, 2, 2207, "{}", false);
        game_new(&other, 2, 2208, "{}", false);
        path_of(path, sizeof path, &g, "referee-token");
        json_t *t = post_json(path, referee_token, "{}", 201);
        char *tablet = strdup(json_string_value(json_object_get(t, "token")));
        json_int_t token_id = json_integer_value(json_object_get(t, "id"));
        char *name = strdup(json_string_value(json_object_get(t, "name")));
        assert_string_equal(json_string_value(json_object_get(t, "role")), "referee");
        assert_int_equal(json_integer_value(json_object_get(t, "match")), g.id);
        assert_null(json_object_get(t, "seat"));
        json_t *view_url = json_object_get(t, "view_url");
        /* the link carries it: the referee's view of its match */
        json_t *v = get_json(json_string_value(view_url), NULL);
        assert_true(json_is_object(json_object_get(json_object_get(v, "view"), "referee")));
        json_decref(v);
        json_decref(t);

        /* a seat token cannot make one; the admin sees what it is */
        path_of(path, sizeof path, &g, "seats/1/token");
        json_t *seat = post_json(path, referee_token, "{}", 201);
        path_of(path, sizeof path, &g, "referee-token");
        json_decref(post_json(path, json_string_value(json_object_get(seat, "token")), "{}", 403));
        json_decref(seat);
        snprintf(path, sizeof path, "/v1/tokens/%lld", (long long) token_id);
        t = get_json(path, admin_token);
        assert_string_equal(json_string_value(json_object_get(t, "role")), "referee");
        assert_int_equal(json_integer_value(json_object_get(t, "match")), g.id);
        json_decref(t);

        /* its own match: start, a turn previewed and sent, the referee's
         * view and log, a pause and a resume, a seat token */
        path_of(path, sizeof path, &g, "start");
        json_decref(post_json(path, tablet, "{}", 200));
        assert_int_equal(sync_log(&g, NULL, 0), 1);
        for (int i = 0; i < 6; i++) {
                struct eng_input in;
                bool junk;

                assert_int_equal(pf_sim_next(g.st, &g.rng, &g.p, last_seq(&g) + 1, 0, &in, &junk), 0);
                if (junk)
                        continue;
                char *b = request_of(&in);
                path_of(path, sizeof path, &g, "preview");
                json_decref(post_json(path, tablet, b, 200));
                path_of(path, sizeof path, &g, "inputs");
                json_decref(post_json(path, tablet, b, 200));
                free(b);
                assert_int_equal(sync_log(&g, NULL, 0), 1);
        }
        json_t *rows = log_after(&g, last_seq(&g) - 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "source")), "referee");
        assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "who")), name);
        json_decref(rows);
        path_of(path, sizeof path, &g, "log");
        json_decref(get_json(path, tablet));
        path_of(path, sizeof path, &g, "referee");
        json_decref(get_json(path, tablet));
        path_of(path, sizeof path, &g, "pause");
        json_decref(post_json(path, tablet, "{}", 200));
        path_of(path, sizeof path, &g, "resume");
        json_decref(post_json(path, tablet, "{}", 200));
        assert_int_equal(sync_log(&g, NULL, 0), 2);
        path_of(path, sizeof path, &g, "seats/1/token");
        json_decref(post_json(path, tablet, "{}", 201));
        /* reads a display may make */
        json_decref(get_json("/v1/games/pitch-fleet", tablet));
        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) other.id);
        json_decref(get_json(path, tablet));

        /* another match, and every other write: 403 naming its match */
        static const char *const refused[][2] = {
                { "POST", "start" }, { "POST", "inputs" }, { "POST", "preview" }, { "POST", "pause" },
                { "POST", "abort" }, { "POST", "referee-token" }, { "POST", "seats/1/token" }, { "GET", "referee" },
                { "GET", "log" }, { "GET", "seats/1" },
        };
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
                path_of(path, sizeof path, &other, refused[i][1]);
                if (strcmp(refused[i][0], "GET") == 0)
                        http_get(&daemon_, path, tablet, &r);
                else
                        http_post_json(&daemon_, path, tablet, strcmp(refused[i][1], "inputs") == 0 ||
                                       strcmp(refused[i][1], "preview") == 0 ? "{\"kind\": \"start\"}" : "{}", &r);
                if (r.status != 403)
                        fail_msg("%s %s with a token of match %lld: expected 403, got %ld: %s", refused[i][0], path,
                                 (long long) g.id, r.status, r.body);
                http_reply_done(&r);
        }
        snprintf(body, sizeof body, "{\"game\": \"pitch-fleet\", \"players\": [\"Ana\", \"Ben\"]}");
        http_post_json(&daemon_, "/v1/matches", tablet, body, &r);
        expect(&r, 403);
        assert_non_null(strstr(json_string_value(json_object_get(r.json, "detail")), "referees match"));
        http_reply_done(&r);
        http_get(&daemon_, "/v1/tokens", tablet, &r);
        expect(&r, 403);
        http_reply_done(&r);
        /* the other match is as it was */
        assert_int_equal(sync_log(&other, NULL, 0), 0);

        /* the database holds the scope: a referee's token may name a match
         * (revoked at once here), a display token none */
        assert_int_equal(run_cmd("psql -q '%s' -c \"INSERT INTO api_tokens (name, role, token_hash, created_by, "
                                 "match_id, revoked_at) VALUES ('%s', 'referee', repeat('0', 64), 'test', %lld, now())\"",
                                 harness_env("ARBITER_TEST_DSN"), unique_name("ok"), (long long) g.id), 0);
        assert_true(run_cmd("psql -q '%s' -c \"INSERT INTO api_tokens (name, role, token_hash, created_by, "
                            "match_id) VALUES ('%s', 'display', repeat('0', 64), 'test', %lld)\" 2>/dev/null",
                            harness_env("ARBITER_TEST_DSN"), unique_name("bad"), (long long) g.id) != 0);

        path_of(path, sizeof path, &g, "abort");
        json_decref(post_json(path, tablet, "{}", 200));
        path_of(path, sizeof path, &other, "abort");
        json_decref(post_json(path, referee_token, "{}", 200));
        free(tablet);
        free(name);
        game_done(&g);
        game_done(&other);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(impossible_reports_are_refused),
                cmocka_unit_test(a_tablet_referees_its_own_match_only),
                cmocka_unit_test(four_players),
                cmocka_unit_test(six_players_and_a_kill),
                cmocka_unit_test(solo),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
