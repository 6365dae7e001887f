/* Crazy Pilot's slap deadline under a long settle window, end to end: a
 * slap pressed before the deadline counts, even when the pad driver hands
 * it over only after the deadline has passed (docs/games/crazy-pilot.md,
 * "The slap deadline"; docs/matches.md, "How presses become inputs").
 *
 * The daemon holds presses for `[pads] settle_window = 1000000` (1 s, the
 * most it takes); a three-player match has `zombie.slap_deadline_ms` 1000
 * and a catalogue of zombie cards only, so seat 1's first face-up card
 * holds a zombie whichever pile it plays (Z5).  One padsim write (a real
 * pty) presses seat 1's shout and, 150 ms and 400 ms after it, seats 2's
 * and 3's slap pads: both slaps are pressed well before the deadline, and
 * both reach the engine after it (a press is handed over a settle window
 * after it was made).  The race must record both slaps and give the
 * penalty to seat 3, the last to slap; no one is missing.
 *
 * This fails if the engine's deadline timer is applied as soon as the
 * deadline (plus a few ms) has passed: the timer is then in the log before
 * the slaps, which count as missing (`no_slap` for seats 2 and 3).
 *
 * Deterministic: each step waits for the events it causes (SSE); nothing
 * is timed but the script's presses. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

static const char config_text[] =
        "[pads]\n"
        "settle_window = 1000000\n"
        "sync_interval = 200\n"
        "heartbeat_timeout = 1500\n"
        "reopen_interval = 200\n";

/* padsim --uid-base 0x7a00 (pads no other test binds to a table): pads 0..2
 * are seats 1..3's button pads, pads 3..5 their slap pads. */
#define UID_BASE        "31232"
#define N_SEATS         3
#define N_PADS          (2 * N_SEATS)
#define BUTTON_SHOUT    5
/* Three players are dealt 20 cards each (Z2). */
#define N_CARDS         60
#define DEADLINE_MS     1000
/* The slaps, after the shout: before the deadline, but handed over after
 * it by the 1 s settle window. */
#define SLAP2_US        150000
#define SLAP3_US        400000

static struct daemon_proc daemon_;
static struct padsim_proc sim;
static char *link_path, *config_path, *admin_token, *referee_token;
static json_int_t table_id, match_id;
static bool match_live;

static int buttons_pad(int seat) {
        return seat - 1;
}

static int slap_pad(int seat) {
        return N_SEATS + seat - 1;
}

static json_t *request(const char *method, const char *path, const char *token, const char *body, long status) {
        struct http_reply r;

        if (strcmp(method, "GET") == 0)
                http_get(&daemon_, path, token, &r);
        else
                http_post_json(&daemon_, path, token, body, &r);
        if (r.status != status)
                fail_msg("%s %s: expected HTTP %ld, got %ld: %s", method, path, status, r.status, r.body);
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

static int setup(void **state) {
        char body[1024], *env_pads, *arg;
        size_t len;
        (void) state;

        assert_true(asprintf(&link_path, "%s/%s", harness_env("ARBITER_TEST_TMP"), unique_name("tty")) > 0);
        assert_true(asprintf(&config_path, "%s/%s.conf", harness_env("ARBITER_TEST_TMP"), unique_name("czd")) > 0);
        FILE *f = fopen(config_path, "w");
        assert_non_null(f);
        fputs(config_text, f);
        fclose(f);
        const char *sim_args[] = { "--kinds", "buttons,buttons,buttons,slap,slap,slap", "--buttons", "6", "--link",
                                   link_path, "--seed", "37", "--uid-base", UID_BASE, NULL };
        padsim_start(&sim, sim_args);
        assert_true(asprintf(&env_pads, "ARBITER_PADS=%s", link_path) > 0);
        assert_true(asprintf(&arg, "--config=%s", config_path) > 0);
        const char *env[] = { env_pads, NULL };
        const char *args[] = { arg, NULL };
        daemon_start(&daemon_, env, args, true);
        free(env_pads);
        free(arg);
        admin_token = create_token("admin", unique_name("admin"));
        referee_token = create_token("referee", unique_name("referee"));
        assert_true(wait_tokens_loaded(&daemon_, HARNESS_WAIT_MS));
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; !all_synced();) {
                if (mono_ms() > deadline)
                        fail_msg("the %d simulated pads did not all connect and sync", N_PADS);
                usleep(50000);
        }

        /* seat n: button pad 0x7a00 + n - 1, slap pad 0x7a03 + n - 1 */
        len = (size_t) snprintf(body, sizeof body, "{\"name\": \"%s\", \"seats\": [", unique_name("czdtable"));
        for (int s = 1; s <= N_SEATS; s++)
                len += (size_t) snprintf(body + len, sizeof body - len,
                                         "%s{\"seat\": %d, \"pads\": [{\"pad\": \"%016x\", \"role\": \"buttons\"}, "
                                         "{\"pad\": \"%016x\", \"role\": \"slap\"}]}", s > 1 ? ", " : "", s,
                                         0x7a00 + buttons_pad(s), 0x7a00 + slap_pad(s));
        snprintf(body + len, sizeof body - len, "]}");
        json_t *t = request("POST", "/v1/tables", admin_token, body, 201);
        table_id = json_integer_value(json_object_get(t, "id"));
        json_decref(t);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        /* a match a failed test left live is not left to the next daemon */
        if (match_live) {
                char path[96];
                struct http_reply r;

                snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) match_id);
                http_post_json(&daemon_, path, referee_token, "{}", &r);
                http_reply_done(&r);
        }
        int st = daemon_stop(&daemon_, SIGTERM, NULL);
        padsim_stop(&sim);
        free(link_path);
        free(config_path);
        free(admin_token);
        free(referee_token);
        return st == 0 ? 0 : -1;
}

/* The catalogue: N_CARDS zombie cards, each with its own id. */
static char *zombie_cards(void) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        for (int i = 1; i <= N_CARDS; i++)
                fprintf(f, "z%02d zombie road=straight lanes=1 car=1 items=zombie@2/%d zombie=yes | "
                        "A zombie waits on the right verge\n", i, 1 + i % 3);
        fclose(f);
        return text;
}

/* The next public event of the stream, waiting for it. */
static const struct event *next(struct stream *st, size_t *at) {
        for (int64_t deadline = mono_ms() + HARNESS_WAIT_MS; *at >= st->n_events;) {
                if (st->done || mono_ms() > deadline)
                        fail_msg("match %lld: no event came after #%zu", (long long) match_id, *at);
                pump(st, 20);
        }
        return &st->events[(*at)++];
}

static int ev_seat(const struct event *e) {
        return (int) json_integer_value(json_object_get(e->data, "seat"));
}

/* The stored input seq (GET …/log). */
static json_t *stored(json_int_t seq) {
        char path[128];

        snprintf(path, sizeof path, "/v1/matches/%lld/log?after=%lld&limit=1", (long long) match_id,
                 (long long) seq - 1);
        json_t *log = request("GET", path, referee_token, NULL, 200),
               *row = json_incref(json_array_get(json_object_get(log, "items"), 0));
        json_decref(log);
        assert_non_null(row);
        assert_int_equal(json_integer_value(json_object_get(row, "seq")), seq);
        return row;
}

/* A slap pressed before the deadline and handed over after it counts. */
static void slaps_pressed_in_time_count_whatever_the_settle_window(void **state) {
        char path[128], *cards;
        struct stream pub;
        size_t at = 0;
        const struct event *e;
        (void) state;

        cards = zombie_cards();
        json_t *req = json_pack("{s:s, s:I, s:i, s:{s:{s:i}}, s:[s,s,s], s:{s:s}}", "game", "crazy-pilot", "table",
                                table_id, "seed", 43, "config", "zombie", "slap_deadline_ms", DEADLINE_MS, "players",
                                "Ana", "Ben", "Cy", "data", "cards", cards);
        assert_non_null(req);
        char *body = json_dumps(req, JSON_COMPACT);
        json_t *m = request("POST", "/v1/matches", referee_token, body, 201);
        match_id = json_integer_value(json_object_get(m, "id"));
        match_live = true;
        json_decref(m);
        free(body);
        json_decref(req);
        free(cards);
        snprintf(path, sizeof path, "/v1/matches/%lld/events", (long long) match_id);
        stream_open(&pub, daemon_.url, path, NULL);
        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) match_id);
        json_decref(request("POST", path, referee_token, "{}", 200));
        while (strcmp(next(&pub, &at)->name, "match_started") != 0)
                ;

        /* one write: seat 1 shouts, seats 2 and 3 slap 150 and 400 ms later */
        padsim_send(&sim,
                    "{\"in_us\":1000,\"pad\":%d,\"button\":%d,\"press\":true}\n"
                    "{\"in_us\":%d,\"pad\":%d,\"button\":0,\"press\":true}\n"
                    "{\"in_us\":%d,\"pad\":%d,\"button\":0,\"press\":true}",
                    buttons_pad(1), BUTTON_SHOUT, 1000 + SLAP2_US, slap_pad(2), 1000 + SLAP3_US, slap_pad(3));

        e = next(&pub, &at);
        assert_string_equal(e->name, "zombie_called");
        assert_int_equal(ev_seat(e), 1);
        json_int_t deadline = json_integer_value(json_object_get(e->data, "deadline_us"));
        assert_true(deadline > 0);

        /* the race as the stream tells it, in order: both slaps, the check,
         * one penalty, for the last to slap */
        for (int k = 0; k < 2; k++) {
                int seat = 2 + k;

                e = next(&pub, &at);
                if (strcmp(e->name, "slap_recorded") != 0)
                        fail_msg("slap %d (seat %d, pressed %d ms after the shout): expected slap_recorded, got "
                                 "%s %s", k + 1, seat, (k ? SLAP3_US : SLAP2_US) / 1000, e->name,
                                 json_dumps(e->data, JSON_COMPACT));
                assert_int_equal(ev_seat(e), seat);
                assert_int_equal(json_integer_value(json_object_get(e->data, "order")), k + 1);
                /* pressed before the deadline, handed over after it: the
                 * case the settle window makes */
                json_t *row = stored(json_integer_value(json_object_get(e->data, "seq"))),
                       *in = json_object_get(row, "input");
                assert_true(json_is_null(json_object_get(row, "refusal")));
                assert_string_equal(json_string_value(json_object_get(in, "role")), "slap");
                json_int_t press = json_integer_value(json_object_get(in, "press_us"));
                if (!(press < deadline && json_integer_value(json_object_get(row, "time_us")) > deadline))
                        fail_msg("seat %d's slap: pressed at %lld, handed over at %lld, deadline %lld: not the "
                                 "case under test", seat, (long long) press,
                                 (long long) json_integer_value(json_object_get(row, "time_us")),
                                 (long long) deadline);
                json_decref(row);
        }
        e = next(&pub, &at);
        assert_string_equal(e->name, "zombie_checked");
        assert_int_equal(ev_seat(e), 1);
        assert_true(json_is_true(json_object_get(e->data, "zombie")));
        e = next(&pub, &at);
        if (strcmp(e->name, "penalty_given") != 0 ||
            strcmp(json_string_value(json_object_get(e->data, "reason")), "last_slap") != 0 || ev_seat(e) != 3)
                fail_msg("expected penalty_given last_slap for seat 3, got %s %s", e->name,
                         json_dumps(e->data, JSON_COMPACT));

        /* a referee's "Driiiiive!": whatever the race gave is before it */
        snprintf(path, sizeof path, "/v1/matches/%lld/inputs", (long long) match_id);
        json_decref(request("POST", path, referee_token, "{\"kind\": \"drive\"}", 200));
        e = next(&pub, &at);
        if (strcmp(e->name, "play_resumed") != 0)
                fail_msg("expected play_resumed after the penalty, got %s %s", e->name,
                         json_dumps(e->data, JSON_COMPACT));
        assert_string_equal(json_string_value(json_object_get(e->data, "by")), "referee");

        /* the view agrees: one penalty, seat 3's */
        snprintf(path, sizeof path, "/v1/matches/%lld/referee", (long long) match_id);
        json_t *r = request("GET", path, referee_token, NULL, 200), *seat;
        size_t i;
        json_array_foreach(json_object_get(json_object_get(r, "view"), "seats"), i, seat) {
                int s = (int) json_integer_value(json_object_get(seat, "seat"));

                assert_int_equal(json_integer_value(json_object_get(seat, "penalties")), s == 3);
        }
        assert_int_equal(i, N_SEATS);
        json_decref(r);

        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) match_id);
        json_decref(request("POST", path, referee_token, "{}", 200));
        match_live = false;
        stream_close(&pub);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(slaps_pressed_in_time_count_whatever_the_settle_window),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
