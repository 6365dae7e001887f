/* match/json.h: every engine shape as JSON and back.
 *
 * Two games are used.  Crash Pilot, the real one, for what a match
 * produces: outputs with cards from a created state, explanations, views,
 * results and whole simulated matches.  And a test game defined here whose
 * tables have every type of engine.h: a config with a bool, an enum,
 * dotted keys, a seat, a list and a list of records, and a data file;
 * actions with typed fields; events for every audience, cards and places;
 * score terms, teams and a label; and a view that can be told to walk
 * badly, to check that a malformed walk gives NULL and not a wrong
 * document.
 *
 * The rules checked here: every shape round-trips (config, data, inputs,
 * byte for byte), every bad input gets an error that names the field, and
 * every reader sees exactly what its audience allows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "match/json.h"
#include "engine/crash_pilot.h"
#include "engine/crazy_pilot.h"
#include "engine/rng.h"

#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))

/* Random inputs per kind and game in the round trip. */
#define RANDOM_INPUTS_PER_KIND  1000
/* Random configs per game and seat count in the config round trip. */
#define RANDOM_CONFIGS          200
/* Simulated matches: seeds per seat count. */
#define SIM_SEEDS               3
/* Crash Pilot scripts: the judge's settle window and a reaction. */
#define SETTLE_US               2500
#define REACTION_US             400000
#define T0_US                   INT64_C(1000000)

/* ---- Helpers. */

static json_t *member(json_t *o, const char *key) {
        json_t *v = json_object_get(o, key);

        if (!v)
                fail_msg("member \"%s\" is missing", key);
        return v;
}

static const char *str(json_t *o, const char *key) {
        json_t *v = member(o, key);

        if (!json_is_string(v))
                fail_msg("member \"%s\" is not a string", key);
        return json_string_value(v);
}

static json_int_t num(json_t *o, const char *key) {
        json_t *v = member(o, key);

        if (!json_is_integer(v))
                fail_msg("member \"%s\" is not an integer", key);
        return json_integer_value(v);
}

static json_t *parse(const char *text) {
        json_error_t e;
        json_t *j = json_loads(text, JSON_DECODE_ANY, &e);

        if (!j)
                fail_msg("bad test JSON %s: %s", text, e.text);
        return j;
}

/* got (borrowed) must be the JSON text want. */
static void assert_json(json_t *got, const char *want) {
        json_t *w = parse(want);

        if (!got)
                fail_msg("got NULL, want %s", want);
        if (!json_equal(got, w)) {
                char *text = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

                fail_msg("got  %s\nwant %s", text, want);
        }
        json_decref(w);
}

/* As assert_json, and releases got. */
static void assert_json_new(json_t *got, const char *want) {
        assert_json(got, want);
        json_decref(got);
}

/* An error that names field, says words, and starts "field: ". */
static void assert_error(const char *what, int r, const struct eng_error *err, const char *field,
                         const char *words) {
        if (r != -EINVAL)
                fail_msg("%s: returned %d, want -EINVAL (%s)", what, r, field);
        if (strcmp(err->field, field) != 0 || !strstr(err->message, words))
                fail_msg("%s: got field \"%s\", message \"%s\"; want \"%s\" and \"%s\"", what, err->field,
                         err->message, field, words);
        if (strncmp(err->message, field, strlen(field)) != 0 || strncmp(err->message + strlen(field), ": ", 2) != 0)
                fail_msg("%s: message \"%s\" does not start with \"%s: \"", what, err->message, field);
}

static const struct eng_game *crash_pilot(void) {
        const struct eng_game *g = eng_game_find("crash-pilot");

        assert_non_null(g);
        assert_ptr_equal(g, &cp_game);
        return g;
}

/* ---- The test game. */

#define TG_MAGIC                0x74657374u
#define TG_CALL_MAX             7
#define TG_MAX_CARD             1000

enum tg_walk {
        TG_WALK_GOOD,
        TG_WALK_KEY_IN_ARRAY,
        TG_WALK_NO_KEY_IN_OBJECT,
        TG_WALK_UNCLOSED,
        TG_WALK_CLOSE_ROOT,
        TG_WALK_DUPLICATE,
        TG_WALK_TOO_DEEP,
        TG_WALK_WRONG_END,
        TG_WALK_ERROR,
        TG_WALKS_END,
};

struct tg_state {
        uint32_t magic;
        enum tg_walk walk;
};

static const char *const tg_modes[] = { "fast", "slow", "careful" };
static const char *const tg_colours[] = { "red", "green", "blue" };
static const char *const tg_colour_text[] = { "bright red", "grass green", "sky blue" };
static const char *const tg_reasons[] = { "skill", "luck" };
static const char *const tg_reason_text[] = { "by skill", "by sheer luck" };
static const char *const tg_suits[] = { "clubs", "diamonds", "hearts", "spades" };
/* Call 2 is a gap, and 4 .. TG_CALL_MAX are in the fields' range but no
 * calls: the log holds them (a refused input), a request does not. */
static const char *const tg_calls[] = { [0] = "low", [1] = "high", [3] = "middle" };
static const char *const tg_terms[] = { "points", "penalty", "bonus" };

enum tg_param {
        TG_P_FLAG,
        TG_P_N,
        TG_P_MODE,
        TG_P_DEEP,
        TG_P_FIRST,
        TG_P_LEVELS,
        TG_P_CHALLENGES,
        TG_N_PARAMS,
};

static const struct eng_field tg_challenge_fields[] = {
        { .name = "vp", .type = ENG_T_INT, .min = 1, .max = 10, .doc = "Victory points." },
        { .name = "colour", .type = ENG_T_ENUM, .min = 0, .max = 2, .choices = tg_colours },
        { .name = "call", .type = ENG_T_CALL, .min = 0, .max = TG_CALL_MAX },
        { .name = "hidden", .type = ENG_T_BOOL, .max = 1 },
};

static const struct eng_field tg_params[TG_N_PARAMS] = {
        [TG_P_FLAG] = { .name = "a.flag", .type = ENG_T_BOOL, .max = 1, .def = 0, .doc = "A switch." },
        [TG_P_N] = { .name = "a.n", .type = ENG_T_INT, .min = -5, .max = 5, .def = 1, .unit = "cards",
                     .doc = "A number." },
        [TG_P_MODE] = { .name = "mode", .type = ENG_T_ENUM, .min = 0, .max = 2, .def = 1, .choices = tg_modes,
                        .doc = "A choice." },
        [TG_P_DEEP] = { .name = "x.y.z", .type = ENG_T_INT, .min = 0, .max = 100, .def = 50, .doc = "Deep." },
        [TG_P_FIRST] = { .name = "turn.first", .type = ENG_T_SEAT, .def = ENG_SEAT_TABLE,
                         .doc = "The first seat; null: by lot." },
        [TG_P_LEVELS] = { .name = "levels", .type = ENG_T_INT, .min = 0, .max = 9, .max_count = 4,
                          .doc = "Levels." },
        [TG_P_CHALLENGES] = { .name = "challenges", .type = ENG_T_RECORDS, .max_count = 3,
                              .fields = tg_challenge_fields, .n_fields = ELEMENTSOF(tg_challenge_fields),
                              .doc = "Custom challenges." },
};

#define TG_WORDS_MAX            32
static const struct eng_data_def tg_data[] = {
        { .name = "words", .builtin = "alpha\nbeta\n", .max_len = TG_WORDS_MAX, .doc = "One word a line." },
};

enum tg_action { TG_A_AWARD, TG_A_RESET, TG_A_TAP, TG_A_PING, TG_N_ACTIONS };

static const struct eng_field tg_award_fields[] = {
        { .name = "points", .type = ENG_T_INT, .min = -5, .max = 10 },
        { .name = "colour", .type = ENG_T_ENUM, .min = 0, .max = 2, .choices = tg_colours,
          .choice_text = tg_colour_text },
        { .name = "targets", .type = ENG_T_SEAT, .max_count = 3 },
        { .name = "bonus", .type = ENG_T_BOOL, .max = 1, .optional = true, .def = 0 },
        { .name = "call", .type = ENG_T_CALL, .min = 0, .max = TG_CALL_MAX, .optional = true, .def = ENG_ABSENT },
        { .name = "at_us", .type = ENG_T_TIME, .min = -ENG_TIME_LIMIT_US, .max = ENG_TIME_LIMIT_US,
          .optional = true, .def = ENG_ABSENT, .unit = "µs" },
        { .name = "card", .type = ENG_T_HANDLE, .optional = true, .def = ENG_ABSENT },
        { .name = "lights", .type = ENG_T_BITS, .optional = true, .def = 0 },
        { .name = "among", .type = ENG_T_SEATS, .optional = true, .def = 0 },
        { .name = "ref", .type = ENG_T_SEQ, .min = 1, .max = INT64_MAX, .optional = true, .def = ENG_ABSENT },
        { .name = "victim", .type = ENG_T_SEAT, .optional = true, .def = ENG_ABSENT },
        { .name = "calls", .type = ENG_T_CALL, .min = 0, .max = TG_CALL_MAX, .max_count = 3, .optional = true },
};
/* Slots of award's fields. */
enum {
        AW_POINTS = 0, AW_COLOUR = 1, AW_TARGETS = 2, AW_BONUS = 6, AW_CALL = 7, AW_AT = 8, AW_CARD = 9,
        AW_LIGHTS = 10, AW_AMONG = 11, AW_REF = 12, AW_VICTIM = 13, AW_CALLS = 14,
};

static const struct eng_field tg_tap_fields[] = {
        { .name = "modes", .type = ENG_T_ENUM, .min = 0, .max = 2, .choices = tg_modes, .max_count = 4 },
        { .name = "n", .type = ENG_T_INT, .min = 0, .max = 3 },
};
static const struct eng_field tg_ping_fields[] = {
        { .name = "level", .type = ENG_T_INT, .min = 0, .max = 9 },
};

static const struct eng_input_def tg_actions[TG_N_ACTIONS] = {
        [TG_A_AWARD] = { .name = "award", .from = ENG_FROM_SEAT | ENG_FROM_REFEREE, .seated = true,
                         .fields = tg_award_fields, .n_fields = ELEMENTSOF(tg_award_fields), .doc = "Points." },
        [TG_A_RESET] = { .name = "reset", .from = ENG_FROM_REFEREE },
        [TG_A_TAP] = { .name = "tap", .from = ENG_FROM_SEAT, .seated = true, .fields = tg_tap_fields,
                       .n_fields = ELEMENTSOF(tg_tap_fields) },
        [TG_A_PING] = { .name = "ping", .from = ENG_FROM_RUNTIME, .fields = tg_ping_fields,
                        .n_fields = ELEMENTSOF(tg_ping_fields) },
};

static const struct eng_field tg_scored_fields[] = {
        { .name = "points", .type = ENG_T_INT, .min = -100, .max = 100 },
        { .name = "call", .type = ENG_T_CALL, .min = 0, .max = TG_CALL_MAX },
        { .name = "hand", .type = ENG_T_CARD, .audience = ENG_VIEW_SEAT },
        { .name = "reason", .type = ENG_T_ENUM, .min = 0, .max = 1, .choices = tg_reasons,
          .choice_text = tg_reason_text, .audience = ENG_VIEW_REFEREE },
};
static const struct eng_field tg_dealt_fields[] = {
        { .name = "card", .type = ENG_T_CARD },
        { .name = "count", .type = ENG_T_INT, .min = 0, .max = 52 },
};
static const struct eng_field tg_audit_fields[] = {
        { .name = "note", .type = ENG_T_INT, .min = 0, .max = 1000 },
        { .name = "seats", .type = ENG_T_SEATS },
};
static const struct eng_field tg_ranked_fields[] = {
        { .name = "places", .type = ENG_T_PLACES },
        { .name = "leader", .type = ENG_T_SEAT, .optional = true },
        { .name = "lights", .type = ENG_T_BITS },
        { .name = "cards", .type = ENG_T_HANDLE, .max_count = 4 },
        { .name = "flags", .type = ENG_T_BOOL, .max = 1, .max_count = 2 },
};
/* Slots of ranked's fields. */
enum { RK_PLACES = 0, RK_LEADER = 8, RK_LIGHTS = 9, RK_CARDS = 10, RK_FLAGS = 15 };

static const struct eng_event_def tg_ev_scored = {
        .name = "scored", .fields = tg_scored_fields, .n_fields = ELEMENTSOF(tg_scored_fields),
        .text = "{seat} scores {points} with {call} {reason}; hand: {hand}.", .doc = "Points.",
};
static const struct eng_event_def tg_ev_dealt = {
        .name = "dealt", .audience = ENG_VIEW_SEAT, .fields = tg_dealt_fields,
        .n_fields = ELEMENTSOF(tg_dealt_fields), .reveals = true, .text = "{seat} is dealt {card} ({count} held).",
};
static const struct eng_event_def tg_ev_audit = {
        .name = "audit", .audience = ENG_VIEW_REFEREE, .fields = tg_audit_fields,
        .n_fields = ELEMENTSOF(tg_audit_fields), .text = "audit {note} of {seats} at {nope}.",
};
static const struct eng_event_def tg_ev_ranked = {
        .name = "ranked", .fields = tg_ranked_fields, .n_fields = ELEMENTSOF(tg_ranked_fields),
        .text = "ranking: {places}; {leader} leads, cards {cards}, flags {flags}.",
};
static const struct eng_event_def *const tg_events[] = { &tg_ev_scored, &tg_ev_dealt, &tg_ev_audit, &tg_ev_ranked };

static const struct eng_route tg_routes[] = {
        { .role = ENG_ROLE_BUTTONS, .button = 5, .kind = ENG_ROUTE_CALL, .call = 1 },
        { .role = ENG_ROLE_BUTTONS, .button = 2, .kind = ENG_ROUTE_CALL, .call = 3 },
        { .role = ENG_ROLE_BUTTONS, .button = ENG_ANY_BUTTON, .kind = ENG_ROUTE_CALL, .call = 0 },
        { .role = ENG_ROLE_SLAP, .button = ENG_ANY_BUTTON, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_KEYPAD, .button = 0, .kind = ENG_ROUTE_INPUT, .input = "start" },
        { .role = ENG_ROLE_KEYPAD, .button = 1, .kind = ENG_ROUTE_INPUT, .input = "reset" },
};

static const struct eng_field tg_view_fields[] = {
        { .name = "seat", .type = ENG_T_SEAT, .doc = "A seat." },
        { .name = "nested", .type = ENG_T_OBJECT },
        { .name = "you", .type = ENG_T_OBJECT, .audience = ENG_VIEW_SEAT },
        { .name = "secret", .type = ENG_T_INT, .audience = ENG_VIEW_REFEREE },
};

/* The config of a match: "a.flag" may not be on with "a.n" at -5;
 * "turn.first" must be a seat of the match; no word of the data file may
 * be "bad". */
static int tg_validate(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                       struct eng_error *ret_err) {
        const char *text, *line;
        size_t len, pos = 0, line_len;
        unsigned line_no = 0;

        if (cfg->v[TG_P_N] == -5 && cfg->v[TG_P_FLAG])
                return eng_error_set(ret_err, "a.flag", "cannot be on with a.n at -5");
        if (cfg->v[TG_P_FIRST] != ENG_SEAT_TABLE && cfg->v[TG_P_FIRST] >= (int64_t) n_seats)
                return eng_error_set(ret_err, "turn.first", "the match has %u seats", n_seats);
        if (eng_data_file(&(const struct eng_game) { .data = tg_data, .n_data = 1 }, data, 0, &text, &len) < 0)
                return -EINVAL;
        while (eng_data_next_line(text, len, &pos, &line, &line_len, &line_no) > 0)
                if (line_len == 3 && memcmp(line, "bad", 3) == 0)
                        return eng_error_set(ret_err, "data.words", "line %u: \"bad\" is no word", line_no);
        return 0;
}

/* Cards 0 .. TG_MAX_CARD − 1: a rank, a suit, and whether it is a court
 * card; anything else is no card of the game. */
static int tg_card_face(const void *state, uint32_t handle, const struct eng_visitor *v, void *ctx) {
        int r;

        if (((const struct tg_state *) state)->magic != TG_MAGIC || handle >= TG_MAX_CARD)
                return -ENOENT;
        r = v->integer(ctx, "rank", handle % 13 + 1);
        if (r >= 0)
                r = v->string(ctx, "suit", tg_suits[handle / 13 % 4]);
        if (r >= 0)
                r = v->boolean(ctx, "court", handle % 13 >= 10);
        return r;
}

static int tg_view_visit(const void *state, enum eng_audience audience, int seat, const struct eng_visitor *v,
                         void *ctx) {
        const struct tg_state *st = state;

        (void) audience;
        (void) seat;
        switch (st->walk) {
        case TG_WALK_GOOD:
                v->integer(ctx, "seat", 0);
                v->integer(ctx, "winner", ENG_SEAT_TABLE);
                v->integer(ctx, "next_seat", 2);
                v->integer(ctx, "count", 7);
                v->array_begin(ctx, "seats");
                v->integer(ctx, NULL, 0);
                v->integer(ctx, NULL, 2);
                v->array_end(ctx);
                v->array_begin(ctx, "tiebreak");
                v->integer(ctx, NULL, 1);
                v->array_end(ctx);
                v->array_begin(ctx, "other_seats");
                v->integer(ctx, NULL, 3);
                v->integer(ctx, NULL, -1);
                v->array_end(ctx);
                v->array_begin(ctx, "numbers");
                v->integer(ctx, NULL, 0);
                v->array_begin(ctx, NULL);
                v->integer(ctx, NULL, 5);
                v->array_end(ctx);
                v->array_end(ctx);
                v->object_begin(ctx, "nested");
                v->integer(ctx, "seats", 4);
                v->boolean(ctx, "winner", true);
                v->string(ctx, "name", "x");
                v->string(ctx, "none", NULL);
                v->null(ctx, "nothing");
                v->array_begin(ctx, "players");
                v->object_begin(ctx, NULL);
                v->integer(ctx, "seat", 1);
                v->integer(ctx, "chips", 2);
                v->object_end(ctx);
                v->array_end(ctx);
                v->object_end(ctx);
                return 0;
        case TG_WALK_KEY_IN_ARRAY:
                v->array_begin(ctx, "list");
                return v->integer(ctx, "oops", 1);
        case TG_WALK_NO_KEY_IN_OBJECT:
                return v->integer(ctx, NULL, 1);
        case TG_WALK_UNCLOSED:
                return v->object_begin(ctx, "open");
        case TG_WALK_CLOSE_ROOT:
                return v->object_end(ctx);
        case TG_WALK_DUPLICATE:
                v->integer(ctx, "a", 1);
                return v->integer(ctx, "a", 2);
        case TG_WALK_TOO_DEEP: {
                int r = 0;

                for (int i = 0; r >= 0 && i < 64; i++)
                        r = v->array_begin(ctx, i ? NULL : "deep");
                return r;
        }
        case TG_WALK_WRONG_END:
                v->array_begin(ctx, "list");
                return v->object_end(ctx);
        case TG_WALK_ERROR:
        default:
                return -EINVAL;
        }
}

/* A seat's statistics: "best_seat" and "rival_seats" carry seats. */
static int tg_stats(const void *state, int seat, const struct eng_visitor *v, void *ctx) {
        int r;

        (void) state;
        r = v->integer(ctx, "calls", seat * 10);
        if (r >= 0)
                r = v->integer(ctx, "best_seat", seat);
        if (r >= 0)
                r = v->array_begin(ctx, "rival_seats");
        if (r >= 0)
                r = v->integer(ctx, NULL, (seat + 1) % 4);
        if (r >= 0)
                r = v->array_end(ctx);
        if (r >= 0)
                r = v->null(ctx, "ratio");
        return r;
}

static const struct eng_game tg_game = {
        .name = "test-game",
        .display_name = "Test Game",
        .description = "A game of every shape.",
        .min_seats = 1,
        .max_seats = ENG_MAX_SEATS,
        .params = tg_params,
        .n_params = TG_N_PARAMS,
        .data = tg_data,
        .n_data = ELEMENTSOF(tg_data),
        .actions = tg_actions,
        .n_actions = TG_N_ACTIONS,
        .builtins = (1u << ENG_IN_CALL) | (1u << ENG_IN_PRESS),
        .events = tg_events,
        .n_events = ELEMENTSOF(tg_events),
        .routes = tg_routes,
        .n_routes = ELEMENTSOF(tg_routes),
        .calls = tg_calls,
        .n_calls = ELEMENTSOF(tg_calls),
        .terms = tg_terms,
        .n_terms = ELEMENTSOF(tg_terms),
        .view = tg_view_fields,
        .n_view = ELEMENTSOF(tg_view_fields),
        .state_size = sizeof(struct tg_state),
        .max_outputs = 4,
        .validate = tg_validate,
        .view_visit = tg_view_visit,
        .card_face = tg_card_face,
        .stats = tg_stats,
};

static const struct tg_state tg_state_good = { .magic = TG_MAGIC, .walk = TG_WALK_GOOD };

/* ---- Crash Pilot matches. */

struct cp_match {
        struct cp_state st;
        struct eng_out out;
        uint64_t seq;
        int64_t now;
};

static void cp_match_init(struct cp_match *m, unsigned n_seats, uint64_t seed) {
        struct eng_config cfg;

        memset(m, 0, sizeof *m);
        m->now = T0_US;
        eng_config_defaults(&cp_game, &cfg);
        assert_int_equal(cp_game.create(&m->st, &cfg, NULL, n_seats, seed), 0);
}

static enum eng_refusal cp_apply_input(struct cp_match *m, struct eng_input *in) {
        in->seq = ++m->seq;
        in->time_us = m->now;
        assert_int_equal(cp_game.apply(&m->st, in, &m->out), 0);
        return m->out.refusal;
}

static enum eng_refusal cp_table_input(struct cp_match *m, enum eng_input_kind kind) {
        struct eng_input in = { .kind = kind, .seat = ENG_SEAT_TABLE };

        return cp_apply_input(m, &in);
}

/* A judged call on the open window, REACTION_US after the reveal. */
static enum eng_refusal cp_call(struct cp_match *m, int seat, int call) {
        struct eng_input in = {
                .kind = ENG_IN_CALL, .seat = seat,
                .call = { .window = m->st.windows, .call = call, .press_us = m->st.t.shown_us + REACTION_US },
        };

        if (m->now < in.call.press_us + SETTLE_US)
                m->now = in.call.press_us + SETTLE_US;
        return cp_apply_input(m, &in);
}

static enum eng_refusal cp_tie(struct cp_match *m, uint32_t seats) {
        struct eng_input in = {
                .kind = ENG_IN_TIE, .seat = ENG_SEAT_TABLE,
                .tie = { .window = m->st.windows, .seats = seats, .press_us = m->st.t.shown_us + REACTION_US },
        };

        if (m->now < in.tie.press_us + SETTLE_US)
                m->now = in.tie.press_us + SETTLE_US;
        return cp_apply_input(m, &in);
}

/* The wake-up the engine asked for: the next card after a verdict. */
static void cp_next_card(struct cp_match *m) {
        assert_int_equal(m->st.t.phase, CP_PHASE_BETWEEN);
        m->now = m->st.wake_us;
        assert_int_equal(cp_table_input(m, ENG_IN_TIMER), ENG_ACCEPTED);
        assert_int_equal(m->st.t.phase, CP_PHASE_SHOWING);
}

static int cp_right_call(const struct cp_match *m) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (cp_fits_row(&m->st.t, r, m->st.t.face_up))
                        return (int) r + 1;
        return CP_CALL_DOESNT_FIT;
}

static int cp_wrong_call(const struct cp_match *m) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (!cp_fits_row(&m->st.t, r, m->st.t.face_up))
                        return (int) r + 1;
        return CP_CALL_DOESNT_FIT;
}

/* The first output of def in m's last answer. */
static const struct eng_output *cp_output(const struct cp_match *m, const struct eng_event_def *def) {
        for (size_t i = 0; i < m->out.n; i++)
                if (m->out.v[i].def == def)
                        return &m->out.v[i];
        fail_msg("no %s among %zu outputs", def->name, m->out.n);
        return NULL;
}

/* ---- An independent oracle of the JSON of a value, used on every output
 * the tests and the simulations produce. */

static bool oracle_sees(enum eng_audience a, int seat, const struct match_reader *r) {
        switch (r->audience) {
        case ENG_VIEW_RUNTIME:
                return true;
        case ENG_VIEW_REFEREE:
                return a != ENG_VIEW_RUNTIME;
        case ENG_VIEW_SEAT:
                return a == ENG_VIEW_PUBLIC || (a == ENG_VIEW_SEAT && seat == r->seat && seat >= 0);
        case ENG_VIEW_PUBLIC:
        default:
                return a == ENG_VIEW_PUBLIC;
        }
}

static void check_mask(json_t *j, int64_t mask, int base, int bits, const char *path) {
        json_t *e;
        size_t i, n = 0;
        int last = -1;

        if (!json_is_array(j))
                fail_msg("%s: not a list", path);
        json_array_foreach(j, i, e) {
                int b;

                if (!json_is_integer(e))
                        fail_msg("%s[%zu]: not an integer", path, i);
                b = (int) json_integer_value(e) - base;
                if (b <= last || b >= bits || !(mask & (INT64_C(1) << b)))
                        fail_msg("%s[%zu]: %d is not the next bit of %" PRIx64, path, i, b + base, mask);
                last = b;
        }
        for (int b = 0; b < bits; b++)
                n += (mask >> b) & 1;
        if (n != json_array_size(j))
                fail_msg("%s: %zu bits, want %zu", path, json_array_size(j), n);
}

static void check_face(const struct eng_game *g, const void *state, json_t *card, int64_t handle, const char *path) {
        char hex[16];

        if (!json_is_object(card))
                fail_msg("%s: not an object", path);
        snprintf(hex, sizeof hex, "%08" PRIx32, (uint32_t) handle);
        if (strcmp(str(card, "handle"), hex) != 0)
                fail_msg("%s: handle %s, want %s", path, str(card, "handle"), hex);
        if (g == &cp_game) {
                uint8_t id;

                assert_int_equal(cp_card_of(state, (uint32_t) handle, &id), 0);
                assert_int_equal(num(card, "object"), CP_CARD_OBJECT(id));
                assert_int_equal(num(card, "colour"), CP_CARD_COLOUR(id));
                assert_non_null(strstr(str(card, "name"), " "));
                assert_int_equal(json_object_size(card), 4);
        } else {
                assert_int_equal(num(card, "rank"), handle % 13 + 1);
                assert_string_equal(str(card, "suit"), tg_suits[handle / 13 % 4]);
                assert_true(json_is_boolean(member(card, "court")));
                assert_int_equal(json_object_size(card), 4);
        }
}

static void check_one(const struct eng_game *g, const void *state, const struct eng_field *f, int64_t v, json_t *j,
                      const char *path) {
        char hex[16];

        if (!j)
                fail_msg("%s: missing", path);
        if (v == ENG_ABSENT) {
                if (!json_is_null(j))
                        fail_msg("%s: an absent value is not null", path);
                return;
        }
        switch (f->type) {
        case ENG_T_BOOL:
                if (!json_is_boolean(j) || json_is_true(j) != (v != 0))
                        fail_msg("%s: want %s", path, v ? "true" : "false");
                break;
        case ENG_T_ENUM:
                if (!json_is_string(j) || strcmp(json_string_value(j), f->choices[v]) != 0)
                        fail_msg("%s: want \"%s\"", path, f->choices[v]);
                break;
        case ENG_T_SEAT:
                if (v < 0 ? !json_is_null(j) : !json_is_integer(j) || json_integer_value(j) != v + 1)
                        fail_msg("%s: want seat %" PRId64 " 1-based", path, v);
                break;
        case ENG_T_SEATS:
                check_mask(j, v, 1, ENG_MAX_SEATS, path);
                break;
        case ENG_T_BITS:
                check_mask(j, v, 0, 32, path);
                break;
        case ENG_T_HANDLE:
                snprintf(hex, sizeof hex, "%08" PRIx32, (uint32_t) v);
                if (!json_is_string(j) || strcmp(json_string_value(j), hex) != 0)
                        fail_msg("%s: want \"%s\"", path, hex);
                break;
        case ENG_T_CARD:
                check_face(g, state, j, v, path);
                break;
        default:
                if (!json_is_integer(j) || json_integer_value(j) != v)
                        fail_msg("%s: want %" PRId64, path, v);
                break;
        }
}

/* PLACES: [{seat, place}] best first, equal places in seat order. */
static void check_places(json_t *j, const int64_t *place, const char *path) {
        size_t k = 0;

        if (!json_is_array(j))
                fail_msg("%s: not a list", path);
        for (int64_t p = 1; p <= ENG_MAX_SEATS; p++)
                for (int s = 0; s < ENG_MAX_SEATS; s++) {
                        json_t *e = json_array_get(j, k);

                        if (place[s] != p)
                                continue;
                        if (!e || num(e, "seat") != s + 1 || num(e, "place") != p || json_object_size(e) != 2)
                                fail_msg("%s[%zu]: want seat %d place %" PRId64, path, k, s + 1, p);
                        k++;
                }
        assert_int_equal(json_array_size(j), k);
}

/* Checks the members of fields f[0..n) laid out from v in obj, for reader
 * r of an output of seat (r NULL: all shown); returns the members seen. */
static size_t check_fields(const struct eng_game *g, const void *state, const struct eng_field *f, size_t n,
                           const int64_t *v, json_t *obj, const struct match_reader *r, int seat) {
        size_t members = 0;

        for (size_t i = 0; i < n; v += eng_field_slots(&f[i]), i++) {
                json_t *m = json_object_get(obj, f[i].name);
                char name[ENG_FIELD_MAX + 16];

                snprintf(name, sizeof name, "%s_name", f[i].name);
                if (r && !oracle_sees(f[i].audience, seat, r)) {
                        if (m || json_object_get(obj, name))
                                fail_msg("%s: shown to a reader who may not see it", f[i].name);
                        continue;
                }
                members++;
                if (f[i].type == ENG_T_PLACES) {
                        check_places(m, v, f[i].name);
                } else if (f[i].max_count) {
                        if (!json_is_array(m) || (int64_t) json_array_size(m) != v[0])
                                fail_msg("%s: want a list of %" PRId64, f[i].name, v[0]);
                        for (int64_t k = 0; k < v[0]; k++) {
                                char item[ENG_FIELD_MAX + 16];

                                snprintf(item, sizeof item, "%s[%" PRId64 "]", f[i].name, k);
                                check_one(g, state, &f[i], v[1 + k], json_array_get(m, (size_t) k), item);
                        }
                } else {
                        check_one(g, state, &f[i], v[0], m, f[i].name);
                }
                if (f[i].type == ENG_T_CALL && !f[i].max_count && v[0] != ENG_ABSENT) {
                        const char *want = eng_call_name(g, v[0]);
                        json_t *cn = json_object_get(obj, name);

                        members++;
                        if (!cn || (want ? !json_is_string(cn) || strcmp(json_string_value(cn), want) != 0
                                         : !json_is_null(cn)))
                                fail_msg("%s: want %s", name, want ? want : "null");
                }
        }
        return members;
}

/* o for reader, member by member, against the oracle. */
static void check_output(const struct eng_game *g, const void *state, const struct eng_output *o,
                         const struct match_reader *r) {
        const char *name = NULL;
        json_t *j = match_json_output(g, state, o, r, &name);
        bool hears = oracle_sees(o->def->audience, o->seat, r);
        size_t members;

        assert_non_null(name);
        assert_string_equal(name, o->def->name);
        assert_int_equal(match_json_hears(o, r), hears);
        if (!hears) {
                if (j)
                        fail_msg("%s: heard by audience %d seat %d", o->def->name, r->audience, r->seat);
                return;
        }
        if (!j)
                fail_msg("%s: NULL for audience %d seat %d", o->def->name, r->audience, r->seat);
        assert_string_equal(str(j, "kind"), o->def->name);
        check_one(g, state, &(struct eng_field) { .type = ENG_T_SEAT }, o->seat, member(j, "seat"), "seat");
        assert_int_equal(num(j, "at_us"), o->at_us);
        members = 3 + check_fields(g, state, o->def->fields, o->def->n_fields, o->v, j, r, o->seat);
        if (json_object_size(j) != members)
                fail_msg("%s: %zu members, want %zu", o->def->name, json_object_size(j), members);
        json_decref(j);
}

static const struct match_reader seat_reader[ENG_MAX_SEATS] = {
        { ENG_VIEW_SEAT, 0 }, { ENG_VIEW_SEAT, 1 }, { ENG_VIEW_SEAT, 2 }, { ENG_VIEW_SEAT, 3 },
        { ENG_VIEW_SEAT, 4 }, { ENG_VIEW_SEAT, 5 }, { ENG_VIEW_SEAT, 6 }, { ENG_VIEW_SEAT, 7 },
};

/* o for every reader: the public, each seat, the referee, the runtime. */
static void check_output_all_readers(const struct eng_game *g, const void *state, const struct eng_output *o) {
        check_output(g, state, o, &match_public);
        for (int s = 0; s < ENG_MAX_SEATS; s++)
                check_output(g, state, o, &seat_reader[s]);
        check_output(g, state, o, &match_referee);
        check_output(g, state, o, &match_runtime);
}

/* ---- Random values of a field, in the domain JSON carries. */

static int64_t random_in(struct eng_rng *rng, int64_t min, int64_t max) {
        uint64_t span = (uint64_t) max - (uint64_t) min + 1;

        /* The ends of a range now and then: that is where a conversion
         * goes wrong. */
        switch (eng_rng_below(rng, 8)) {
        case 0:
                return min;
        case 1:
                return max;
        default:
                return span ? (int64_t) ((uint64_t) min + eng_rng_below(rng, span)) : (int64_t) eng_rng_next(rng);
        }
}

/* A call of g (request) or any call number in f's range (the log). */
static int64_t random_call(struct eng_rng *rng, const struct eng_game *g, const struct eng_field *f, bool request) {
        int64_t c;

        if (!request)
                return random_in(rng, f->min, f->max);
        do
                c = (int64_t) eng_rng_below(rng, g->n_calls);
        while (!g->calls[c]);
        return c;
}

static int64_t random_one(struct eng_rng *rng, const struct eng_game *g, const struct eng_field *f, bool item,
                          bool request) {
        if (!item && f->optional && f->def == ENG_ABSENT && f->type != ENG_T_SEAT && eng_rng_below(rng, 4) == 0)
                return ENG_ABSENT;
        switch (f->type) {
        case ENG_T_BOOL:
                return (int64_t) eng_rng_below(rng, 2);
        case ENG_T_SEAT:
                return item ? (int64_t) eng_rng_below(rng, ENG_MAX_SEATS)
                            : (int64_t) eng_rng_below(rng, ENG_MAX_SEATS + 1) - 1;
        case ENG_T_SEATS:
                return (int64_t) eng_rng_below(rng, UINT64_C(1) << ENG_MAX_SEATS);
        case ENG_T_BITS:
        case ENG_T_HANDLE:
                return random_in(rng, 0, UINT32_MAX);
        case ENG_T_CALL:
                return random_call(rng, g, f, request);
        default:
                return random_in(rng, f->min, f->max);
        }
}

/* Fields f[0..n) laid out from v, every list of a random length. */
static void random_fields(struct eng_rng *rng, const struct eng_game *g, const struct eng_field *f, size_t n,
                          int64_t *v, bool request) {
        for (size_t i = 0; i < n; v += eng_field_slots(&f[i]), i++) {
                if (f[i].type == ENG_T_RECORDS) {
                        size_t rec = eng_fields_slots(f[i].fields, f[i].n_fields);

                        v[0] = (int64_t) eng_rng_below(rng, f[i].max_count + 1);
                        for (int64_t k = 0; k < v[0]; k++)
                                random_fields(rng, g, f[i].fields, f[i].n_fields, v + 1 + (size_t) k * rec, request);
                } else if (f[i].max_count) {
                        v[0] = (int64_t) eng_rng_below(rng, f[i].max_count + 1);
                        for (int64_t k = 0; k < v[0]; k++)
                                v[1 + k] = random_one(rng, g, &f[i], true, request);
                } else {
                        v[0] = random_one(rng, g, &f[i], false, request);
                }
        }
}

/* ---- Names. */

static void status_names(void **state) {
        static const char *const names[] = { "ready", "running", "paused", "finished" };

        (void) state;
        for (int s = ENG_STATUS_READY; s <= ENG_STATUS_FINISHED; s++)
                assert_string_equal(match_json_status_name((enum eng_status) s), names[s - ENG_STATUS_READY]);
        assert_null(match_json_status_name((enum eng_status) 0));
        assert_null(match_json_status_name((enum eng_status) 9));
}

/* ---- Games. */

static void game_describes_crash_pilot(void **state) {
        const struct eng_game *g = crash_pilot();
        json_t *j = match_json_game(g), *params, *p, *events;
        size_t i;

        (void) state;
        assert_non_null(j);
        assert_string_equal(str(j, "name"), "crash-pilot");
        assert_string_equal(str(j, "display_name"), "Crash Pilot");
        assert_string_equal(str(j, "description"), g->description);
        assert_int_equal(num(j, "min_seats"), CP_MIN_SEATS);
        assert_int_equal(num(j, "max_seats"), CP_MAX_SEATS);
        params = member(j, "params");
        assert_int_equal(json_array_size(params), g->n_params);
        json_array_foreach(params, i, p) {
                assert_string_equal(str(p, "name"), g->params[i].name);
                assert_string_equal(str(p, "type"), "int");
                assert_int_equal(num(p, "min"), g->params[i].min);
                assert_int_equal(num(p, "max"), g->params[i].max);
                assert_int_equal(num(p, "default"), g->params[i].def);
                assert_string_equal(str(p, "doc"), g->params[i].doc);
                if (g->params[i].unit)
                        assert_string_equal(str(p, "unit"), g->params[i].unit);
                else
                        assert_true(json_is_null(member(p, "unit")));
        }
        assert_json(member(j, "defaults"), "{\"deck\": {\"objects\": 6, \"colours\": 6, \"copies\": 2},"
                                           " \"reveal\": {\"pause_ms\": 1000, \"timeout_ms\": 20000}}");
        assert_json(member(j, "data"), "[]");
        assert_json(member(j, "terms"), "[]");
        assert_json(member(j, "calls"),
                    "[{\"call\": 1, \"name\": \"row 1\", \"button\": 0},"
                    " {\"call\": 2, \"name\": \"row 2\", \"button\": 1},"
                    " {\"call\": 3, \"name\": \"row 3\", \"button\": 2},"
                    " {\"call\": 4, \"name\": \"row 4\", \"button\": 3},"
                    " {\"call\": 5, \"name\": \"row 5\", \"button\": 4},"
                    " {\"call\": 6, \"name\": \"row 6\", \"button\": 5},"
                    " {\"call\": 7, \"name\": \"doesn't fit\", \"button\": 6}]");
        assert_int_equal(json_array_size(member(j, "routes")), CP_PAD_BUTTONS);
        assert_json(json_array_get(member(j, "routes"), CP_BUTTON_DOESNT_FIT),
                    "{\"role\": \"buttons\", \"button\": 6, \"kind\": \"call\", \"call\": 7,"
                    " \"call_name\": \"doesn't fit\"}");
        /* the framework's events first, then the game's */
        events = member(j, "events");
        for (i = 0; eng_framework_events[i]; i++) {
                p = json_array_get(events, i);
                assert_string_equal(str(p, "name"), eng_framework_events[i]->name);
                assert_true(json_is_true(member(p, "framework")));
        }
        assert_int_equal(json_array_size(events), i + g->n_events);
        for (size_t k = 0; k < g->n_events; k++) {
                p = json_array_get(events, i + k);
                assert_string_equal(str(p, "name"), g->events[k]->name);
                assert_true(json_is_false(member(p, "framework")));
                assert_string_equal(str(p, "audience"), "public");
                assert_string_equal(str(p, "text"), g->events[k]->text);
                assert_int_equal(json_is_true(member(p, "reveals")), g->events[k]->reveals);
        }
        p = json_array_get(events, i + 1);
        assert_string_equal(str(p, "name"), "call_judged");
        assert_json(json_array_get(member(p, "fields"), 0),
                    "{\"name\": \"call\", \"type\": \"call\", \"audience\": \"public\", \"unit\": null,"
                    " \"doc\": \"The call made.\"}");
        assert_string_equal(str(json_array_get(member(p, "fields"), 1), "type"), "enum");
        assert_json(member(json_array_get(member(p, "fields"), 1), "choices"),
                    "[\"correct\", \"wrong\", \"too_late\", \"not_allowed\"]");
        /* the view's members and who sees them */
        p = member(j, "view");
        assert_int_equal(json_array_size(p), g->n_view);
        for (i = 0; i < g->n_view; i++) {
                json_t *f = json_array_get(p, i);

                assert_string_equal(str(f, "name"), g->view[i].name);
                assert_string_equal(str(f, "audience"), strcmp(g->view[i].name, "you") == 0 ? "seat"
                                                        : strcmp(g->view[i].name, "can_void") == 0 ? "referee"
                                                                                                 : "public");
        }
        json_decref(j);
}

/* Every registered game describes itself: its inputs are the built-ins it
 * takes and its actions, its events the framework's and its own, and its
 * defaults are the config of no settings. */
static void game_describes_every_registered_game(void **state) {
        (void) state;
        for (size_t gi = 0; eng_games[gi]; gi++) {
                const struct eng_game *g = eng_games[gi];
                json_t *j = match_json_game(g), *inputs;
                size_t n_builtin = 0, n_framework = 0, k = 0;

                if (!j)
                        fail_msg("%s: no description", g->name);
                assert_string_equal(str(j, "name"), g->name);
                assert_int_equal(json_array_size(member(j, "params")), g->n_params);
                inputs = member(j, "inputs");
                for (unsigned kind = ENG_IN_START; kind < ENG_IN_KINDS_END; kind++) {
                        bool takes = kind == ENG_IN_CALL || kind == ENG_IN_TIE || kind == ENG_IN_PRESS
                                             ? (g->builtins & (1u << kind)) != 0
                                             : eng_builtin_inputs[kind] != NULL;

                        if (takes)
                                assert_string_equal(str(json_array_get(inputs, n_builtin++), "name"),
                                                    eng_builtin_inputs[kind]->name);
                }
                assert_int_equal(json_array_size(inputs), n_builtin + g->n_actions);
                for (k = 0; k < g->n_actions; k++)
                        assert_string_equal(str(json_array_get(inputs, n_builtin + k), "name"), g->actions[k].name);
                while (eng_framework_events[n_framework])
                        n_framework++;
                assert_int_equal(json_array_size(member(j, "events")), n_framework + g->n_events);
                assert_int_equal(json_array_size(member(j, "view")), g->n_view);
                assert_int_equal(json_array_size(member(j, "terms")), g->n_terms);
                assert_int_equal(json_array_size(member(j, "data")), g->n_data);
                for (unsigned n = g->min_seats; n <= g->max_seats; n++) {
                        struct eng_config cfg, def;

                        eng_config_defaults(g, &def);
                        if (eng_config_validate(g, &def, NULL, n, NULL) < 0)
                                continue;
                        if (match_json_config_from(g, member(j, "defaults"), NULL, n, &cfg, NULL) < 0)
                                fail_msg("%s: its defaults are no config for %u seats", g->name, n);
                        assert_memory_equal(&cfg, &def, sizeof cfg);
                }
                json_decref(j);
        }
}

/* name, from, seated and the fields' names of each input a game takes. */
struct input_desc {
        const char *name;
        const char *from;
        bool seated;
        const char *fields;
};

static void check_inputs(json_t *inputs, const struct input_desc *want, size_t n) {
        json_t *in;
        size_t i;

        assert_int_equal(json_array_size(inputs), n);
        json_array_foreach(inputs, i, in) {
                char names[200] = "";
                json_t *f;
                size_t k;

                assert_string_equal(str(in, "name"), want[i].name);
                assert_json(member(in, "from"), want[i].from);
                assert_int_equal(json_is_true(member(in, "seated")), want[i].seated);
                assert_true(json_is_boolean(member(in, "seated")));
                json_array_foreach(member(in, "fields"), k, f) {
                        strcat(names, k ? "," : "");
                        strcat(names, str(f, "name"));
                }
                if (strcmp(names, want[i].fields) != 0)
                        fail_msg("%s: fields %s, want %s", want[i].name, names, want[i].fields);
        }
}

static void game_lists_the_inputs_each_game_takes(void **state) {
        static const struct input_desc cp[] = {
                { "start", "[\"referee\"]", false, "" },
                { "call", "[\"referee\", \"runtime\"]", true, "window,call,press_us" },
                { "tie", "[\"referee\", \"runtime\"]", false, "window,seats,press_us,calls" },
                { "timer", "[\"runtime\"]", false, "" },
                { "pause", "[\"referee\"]", false, "" },
                { "resume", "[\"referee\"]", false, "" },
                { "void", "[\"referee\"]", false, "target" },
                { "confirm", "[\"referee\", \"runtime\"]", false, "" },
                { "void_call", "[\"referee\"]", false, "" },
        };
        static const struct input_desc tg[] = {
                { "start", "[\"referee\"]", false, "" },
                { "call", "[\"referee\", \"runtime\"]", true, "window,call,press_us" },
                { "press", "[\"referee\", \"runtime\"]", true, "role,button,press_us,uncertainty_us,received_us" },
                { "timer", "[\"runtime\"]", false, "" },
                { "pause", "[\"referee\"]", false, "" },
                { "resume", "[\"referee\"]", false, "" },
                { "void", "[\"referee\"]", false, "target" },
                { "confirm", "[\"referee\", \"runtime\"]", false, "" },
                { "award", "[\"seat\", \"referee\"]", true,
                  "points,colour,targets,bonus,call,at_us,card,lights,among,ref,victim,calls" },
                { "reset", "[\"referee\"]", false, "" },
                { "tap", "[\"seat\"]", true, "modes,n" },
                { "ping", "[\"runtime\"]", false, "level" },
        };
        json_t *j;

        (void) state;
        j = match_json_game(crash_pilot());
        check_inputs(member(j, "inputs"), cp, ELEMENTSOF(cp));
        json_decref(j);
        j = match_json_game(&tg_game);
        check_inputs(member(j, "inputs"), tg, ELEMENTSOF(tg));
        /* a field's description: type, range, list, optional, unit */
        assert_json(member(json_array_get(member(j, "inputs"), 8), "fields"),
                    "[{\"name\": \"points\", \"type\": \"int\", \"min\": -5, \"max\": 10, \"unit\": null,"
                    " \"doc\": null},"
                    " {\"name\": \"colour\", \"type\": \"enum\", \"choices\": [\"red\", \"green\", \"blue\"],"
                    "  \"unit\": null, \"doc\": null},"
                    " {\"name\": \"targets\", \"type\": \"seat\", \"max_count\": 3, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"bonus\", \"type\": \"bool\", \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"call\", \"type\": \"call\", \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"at_us\", \"type\": \"time\", \"min\": -1152921504606846976,"
                    "  \"max\": 1152921504606846976, \"optional\": true, \"unit\": \"µs\", \"doc\": null},"
                    " {\"name\": \"card\", \"type\": \"handle\", \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"lights\", \"type\": \"bits\", \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"among\", \"type\": \"seats\", \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"ref\", \"type\": \"seq\", \"min\": 1, \"max\": 9223372036854775807,"
                    "  \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"victim\", \"type\": \"seat\", \"optional\": true, \"unit\": null, \"doc\": null},"
                    " {\"name\": \"calls\", \"type\": \"call\", \"max_count\": 3, \"optional\": true,"
                    "  \"unit\": null, \"doc\": null}]");
        assert_string_equal(str(json_array_get(member(j, "inputs"), 8), "doc"), "Points.");
        assert_true(json_is_null(member(json_array_get(member(j, "inputs"), 9), "doc")));
        json_decref(j);
}

static void game_describes_every_shape_of_the_test_game(void **state) {
        json_t *j = match_json_game(&tg_game), *events, *e;
        size_t n_framework = 0;

        (void) state;
        assert_non_null(j);
        assert_string_equal(str(j, "name"), "test-game");
        assert_string_equal(str(j, "display_name"), "Test Game");
        assert_string_equal(str(j, "description"), "A game of every shape.");
        assert_int_equal(num(j, "min_seats"), 1);
        assert_int_equal(num(j, "max_seats"), ENG_MAX_SEATS);
        assert_json(member(j, "params"),
                    "[{\"name\": \"a.flag\", \"type\": \"bool\", \"unit\": null, \"doc\": \"A switch.\","
                    " \"default\": false},"
                    " {\"name\": \"a.n\", \"type\": \"int\", \"min\": -5, \"max\": 5, \"unit\": \"cards\","
                    "  \"doc\": \"A number.\", \"default\": 1},"
                    " {\"name\": \"mode\", \"type\": \"enum\", \"choices\": [\"fast\", \"slow\", \"careful\"],"
                    "  \"unit\": null, \"doc\": \"A choice.\", \"default\": \"slow\"},"
                    " {\"name\": \"x.y.z\", \"type\": \"int\", \"min\": 0, \"max\": 100, \"unit\": null,"
                    "  \"doc\": \"Deep.\", \"default\": 50},"
                    " {\"name\": \"turn.first\", \"type\": \"seat\", \"unit\": null,"
                    "  \"doc\": \"The first seat; null: by lot.\", \"default\": null},"
                    " {\"name\": \"levels\", \"type\": \"int\", \"min\": 0, \"max\": 9, \"max_count\": 4,"
                    "  \"unit\": null, \"doc\": \"Levels.\", \"default\": []},"
                    " {\"name\": \"challenges\", \"type\": \"records\", \"max_count\": 3, \"fields\": ["
                    "   {\"name\": \"vp\", \"type\": \"int\", \"min\": 1, \"max\": 10, \"unit\": null,"
                    "    \"doc\": \"Victory points.\"},"
                    "   {\"name\": \"colour\", \"type\": \"enum\", \"choices\": [\"red\", \"green\", \"blue\"],"
                    "    \"unit\": null, \"doc\": null},"
                    "   {\"name\": \"call\", \"type\": \"call\", \"unit\": null, \"doc\": null},"
                    "   {\"name\": \"hidden\", \"type\": \"bool\", \"unit\": null, \"doc\": null}],"
                    "  \"unit\": null, \"doc\": \"Custom challenges.\", \"default\": []}]");
        assert_json(member(j, "defaults"), "{\"a\": {\"flag\": false, \"n\": 1}, \"mode\": \"slow\","
                                           " \"x\": {\"y\": {\"z\": 50}}, \"turn\": {\"first\": null},"
                                           " \"levels\": [], \"challenges\": []}");
        assert_json(member(j, "data"), "[{\"name\": \"words\", \"max_len\": 32, \"doc\": \"One word a line.\"}]");
        assert_json(member(j, "routes"),
                    "[{\"role\": \"buttons\", \"button\": 5, \"kind\": \"call\", \"call\": 1, \"call_name\": \"high\"},"
                    " {\"role\": \"buttons\", \"button\": 2, \"kind\": \"call\", \"call\": 3,"
                    " \"call_name\": \"middle\"},"
                    " {\"role\": \"buttons\", \"button\": null, \"kind\": \"call\", \"call\": 0,"
                    " \"call_name\": \"low\"},"
                    " {\"role\": \"slap\", \"button\": null, \"kind\": \"press\"},"
                    " {\"role\": \"keypad\", \"button\": 0, \"kind\": \"input\", \"input\": \"start\"},"
                    " {\"role\": \"keypad\", \"button\": 1, \"kind\": \"input\", \"input\": \"reset\"}]");
        /* a call made by any button has no default button; the gap is left out */
        assert_json(member(j, "calls"), "[{\"call\": 0, \"name\": \"low\", \"button\": null},"
                                        " {\"call\": 1, \"name\": \"high\", \"button\": 5},"
                                        " {\"call\": 3, \"name\": \"middle\", \"button\": 2}]");
        assert_json(member(j, "terms"), "[\"points\", \"penalty\", \"bonus\"]");
        assert_json(member(j, "view"),
                    "[{\"name\": \"seat\", \"type\": \"seat\", \"audience\": \"public\", \"unit\": null,"
                    " \"doc\": \"A seat.\"},"
                    " {\"name\": \"nested\", \"type\": \"object\", \"audience\": \"public\", \"unit\": null,"
                    " \"doc\": null},"
                    " {\"name\": \"you\", \"type\": \"object\", \"audience\": \"seat\", \"unit\": null, \"doc\": null},"
                    " {\"name\": \"secret\", \"type\": \"int\", \"min\": 0, \"max\": 0, \"audience\": \"referee\","
                    "  \"unit\": null, \"doc\": null}]");

        events = member(j, "events");
        while (eng_framework_events[n_framework])
                n_framework++;
        assert_int_equal(json_array_size(events), n_framework + ELEMENTSOF(tg_events));
        e = json_array_get(events, 3);
        assert_json(e, "{\"name\": \"match_finished\", \"audience\": \"public\", \"framework\": true,"
                       " \"reveals\": false, \"text\": \"The match is over; {winner} wins.\","
                       " \"doc\": \"The match is over: the winner and every place.\", \"fields\": ["
                       "  {\"name\": \"winner\", \"type\": \"seat\", \"optional\": true, \"audience\": \"public\","
                       "   \"unit\": null, \"doc\": \"The winner; null when shared.\"},"
                       "  {\"name\": \"placements\", \"type\": \"places\", \"audience\": \"public\", \"unit\": null,"
                       "   \"doc\": \"Every seat's place, best first; equal places share.\"}]}");
        e = json_array_get(events, n_framework);
        assert_json(e, "{\"name\": \"scored\", \"audience\": \"public\", \"framework\": false, \"reveals\": false,"
                       " \"text\": \"{seat} scores {points} with {call} {reason}; hand: {hand}.\","
                       " \"doc\": \"Points.\","
                       " \"fields\": ["
                       "  {\"name\": \"points\", \"type\": \"int\", \"min\": -100, \"max\": 100,"
                       " \"audience\": \"public\","
                       "   \"unit\": null, \"doc\": null},"
                       "  {\"name\": \"call\", \"type\": \"call\", \"audience\": \"public\", \"unit\": null,"
                       " \"doc\": null},"
                       "  {\"name\": \"hand\", \"type\": \"card\", \"audience\": \"seat\", \"unit\": null,"
                       " \"doc\": null},"
                       "  {\"name\": \"reason\", \"type\": \"enum\", \"choices\": [\"skill\", \"luck\"],"
                       "   \"audience\": \"referee\", \"unit\": null, \"doc\": null}]}");
        e = json_array_get(events, n_framework + 1);
        assert_string_equal(str(e, "name"), "dealt");
        assert_string_equal(str(e, "audience"), "seat");
        assert_true(json_is_true(member(e, "reveals")));
        assert_true(json_is_null(member(e, "doc")));
        e = json_array_get(events, n_framework + 2);
        assert_string_equal(str(e, "name"), "audit");
        assert_string_equal(str(e, "audience"), "referee");
        e = json_array_get(events, n_framework + 3);
        assert_string_equal(str(e, "name"), "ranked");
        assert_json(member(e, "fields"),
                    "[{\"name\": \"places\", \"type\": \"places\", \"audience\": \"public\", \"unit\": null,"
                    " \"doc\": null},"
                    " {\"name\": \"leader\", \"type\": \"seat\", \"optional\": true, \"audience\": \"public\","
                    "  \"unit\": null, \"doc\": null},"
                    " {\"name\": \"lights\", \"type\": \"bits\", \"audience\": \"public\", \"unit\": null,"
                    " \"doc\": null},"
                    " {\"name\": \"cards\", \"type\": \"handle\", \"max_count\": 4, \"audience\": \"public\","
                    "  \"unit\": null, \"doc\": null},"
                    " {\"name\": \"flags\", \"type\": \"bool\", \"max_count\": 2, \"audience\": \"public\","
                    "  \"unit\": null, \"doc\": null}]");
        /* requests to the runtime are no events of a game */
        for (size_t i = 0; i < json_array_size(events); i++)
                assert_string_not_equal(str(json_array_get(events, i), "audience"), "runtime");
        json_decref(j);
        assert_null(match_json_game(NULL));
}

/* ---- Config. */

static void config_null_is_the_defaults(void **state) {
        const struct eng_game *games[] = { crash_pilot(), &tg_game };

        (void) state;
        for (size_t gi = 0; gi < ELEMENTSOF(games); gi++) {
                const struct eng_game *g = games[gi];

                for (unsigned n = g->min_seats; n <= g->max_seats; n++) {
                        struct eng_config cfg, def;
                        json_t *null = json_null(), *empty = json_object();

                        eng_config_defaults(g, &def);
                        memset(&cfg, 0x5a, sizeof cfg);
                        assert_int_equal(match_json_config_from(g, NULL, NULL, n, &cfg, NULL), 0);
                        assert_memory_equal(&cfg, &def, sizeof cfg);
                        memset(&cfg, 0x5a, sizeof cfg);
                        assert_int_equal(match_json_config_from(g, null, NULL, n, &cfg, NULL), 0);
                        assert_memory_equal(&cfg, &def, sizeof cfg);
                        memset(&cfg, 0x5a, sizeof cfg);
                        assert_int_equal(match_json_config_from(g, empty, NULL, n, &cfg, NULL), 0);
                        assert_memory_equal(&cfg, &def, sizeof cfg);
                        json_decref(null);
                        json_decref(empty);
                }
        }
}

static void config_nested_and_dotted(void **state) {
        static const char *const cp_bodies[] = {
                "{\"deck\": {\"objects\": 7, \"copies\": 3}, \"reveal\": {\"pause_ms\": 0}}",
                "{\"deck.objects\": 7, \"deck.copies\": 3, \"reveal.pause_ms\": 0}",
                "{\"deck\": {\"objects\": 7}, \"deck.copies\": 3, \"reveal\": {\"pause_ms\": 0}}",
        };
        static const char *const tg_bodies[] = {
                "{\"a\": {\"flag\": true, \"n\": -2}, \"x\": {\"y\": {\"z\": 9}}}",
                "{\"a.flag\": true, \"a.n\": -2, \"x.y.z\": 9}",
                "{\"a\": {\"flag\": true}, \"a.n\": -2, \"x.y\": {\"z\": 9}}",
                "{\"x\": {\"y.z\": 9}, \"a\": {\"n\": -2, \"flag\": true}}",
        };
        const struct eng_game *g = crash_pilot();
        struct eng_config cfg, want;
        struct eng_error err;

        (void) state;
        eng_config_defaults(g, &want);
        want.v[CP_PARAM_OBJECTS] = 7;
        want.v[CP_PARAM_COPIES] = 3;
        want.v[CP_PARAM_PAUSE_MS] = 0;
        for (size_t i = 0; i < ELEMENTSOF(cp_bodies); i++) {
                json_t *j = parse(cp_bodies[i]);

                assert_int_equal(match_json_config_from(g, j, NULL, 4, &cfg, &err), 0);
                assert_memory_equal(&cfg, &want, sizeof cfg);
                json_decref(j);
        }
        eng_config_defaults(&tg_game, &want);
        want.v[TG_P_FLAG] = 1;
        want.v[TG_P_N] = -2;
        want.v[TG_P_DEEP] = 9;
        for (size_t i = 0; i < ELEMENTSOF(tg_bodies); i++) {
                json_t *j = parse(tg_bodies[i]);

                if (match_json_config_from(&tg_game, j, NULL, 2, &cfg, &err) < 0)
                        fail_msg("%s: %s", tg_bodies[i], err.message);
                assert_memory_equal(&cfg, &want, sizeof cfg);
                json_decref(j);
        }
}

static void config_of_every_type(void **state) {
        const int levels = eng_fields_offset(tg_params, TG_N_PARAMS, "levels");
        const int ch = eng_fields_offset(tg_params, TG_N_PARAMS, "challenges");
        struct eng_config cfg, want;
        struct eng_error err;
        json_t *j = parse("{\"a\": {\"flag\": true, \"n\": -5}, \"mode\": \"careful\", \"turn\": {\"first\": 3},"
                          " \"levels\": [0, 9, 4],"
                          " \"challenges\": [{\"vp\": 10, \"colour\": \"blue\", \"call\": 3, \"hidden\": true},"
                          "   {\"hidden\": false, \"call\": \"High\", \"colour\": \"red\", \"vp\": 1}]}");

        (void) state;
        assert_int_equal(levels, TG_P_LEVELS);
        /* validate says no to a.flag with a.n at -5: the rest first */
        assert_error("flag", match_json_config_from(&tg_game, j, NULL, 4, &cfg, &err), &err, "a.flag", "a.n at -5");
        json_object_set_new(member(j, "a"), "n", json_integer(-4));
        if (match_json_config_from(&tg_game, j, NULL, 4, &cfg, &err) < 0)
                fail_msg("%s", err.message);
        eng_config_defaults(&tg_game, &want);
        want.v[TG_P_FLAG] = 1;
        want.v[TG_P_N] = -4;
        want.v[TG_P_MODE] = 2;
        want.v[TG_P_FIRST] = 2;
        want.v[levels] = 3;
        want.v[levels + 1] = 0;
        want.v[levels + 2] = 9;
        want.v[levels + 3] = 4;
        want.v[ch] = 2;
        want.v[ch + 1] = 10;
        want.v[ch + 2] = 2;
        want.v[ch + 3] = 3;
        want.v[ch + 4] = 1;
        want.v[ch + 5] = 1;
        want.v[ch + 6] = 0;
        want.v[ch + 7] = 1;
        want.v[ch + 8] = 0;
        assert_memory_equal(&cfg, &want, sizeof cfg);
        /* and back, nested, calls by number with their names beside */
        assert_json_new(match_json_config_to(&tg_game, &cfg),
                        "{\"a\": {\"flag\": true, \"n\": -4}, \"mode\": \"careful\", \"x\": {\"y\": {\"z\": 50}},"
                        " \"turn\": {\"first\": 3}, \"levels\": [0, 9, 4],"
                        " \"challenges\": [{\"vp\": 10, \"colour\": \"blue\", \"call\": 3, \"call_name\": \"middle\","
                        "                   \"hidden\": true},"
                        "                  {\"vp\": 1, \"colour\": \"red\", \"call\": 1, \"call_name\": \"high\","
                        "                   \"hidden\": false}]}");
        /* a seat setting's "nobody" is null, both ways */
        json_object_set_new(member(j, "turn"), "first", json_null());
        if (match_json_config_from(&tg_game, j, NULL, 4, &cfg, &err) < 0)
                fail_msg("%s", err.message);
        assert_int_equal(cfg.v[TG_P_FIRST], ENG_SEAT_TABLE);
        json_decref(j);
}

struct config_error_case {
        const struct eng_game *game;    /* NULL: Crash Pilot */
        const char *body;
        unsigned n_seats;
        const char *field;
        const char *words;              /* in the message */
};

static void config_errors_name_the_field(void **state) {
        static const struct config_error_case cases[] = {
                /* unknown keys, flat, nested, under a group, not a group */
                { NULL, "{\"deck.copiez\": 1}", 3, "deck.copiez", "no such setting" },
                { NULL, "{\"deck\": {\"copiez\": 1}}", 3, "deck.copiez", "no such setting" },
                { NULL, "{\"decks\": {\"copies\": 1}}", 3, "decks", "no such setting" },
                { NULL, "{\"colour\": 6}", 3, "colour", "no such setting" },
                { NULL, "{\"deck\": {\"copies\": {\"n\": 1}}}", 3, "deck.copies", "whole number" },
                { &tg_game, "{\"x\": {\"y\": {\"q\": 1}}}", 1, "x.y.q", "no such setting" },
                /* a group given a value */
                { NULL, "{\"deck\": 2}", 3, "deck", "must be an object of settings" },
                { &tg_game, "{\"x\": {\"y\": 1}}", 1, "x.y", "must be an object of settings" },
                { &tg_game, "{\"a\": [true]}", 1, "a", "must be an object of settings" },
                /* wrong types */
                { NULL, "{\"deck\": {\"copies\": \"2\"}}", 3, "deck.copies", "whole number 1..4" },
                { NULL, "{\"deck\": {\"copies\": 2.0}}", 3, "deck.copies", "whole number" },
                { NULL, "{\"deck.copies\": true}", 3, "deck.copies", "whole number" },
                { NULL, "{\"deck.copies\": null}", 3, "deck.copies", "null" },
                { &tg_game, "{\"a\": {\"flag\": 1}}", 1, "a.flag", "true or false" },
                { &tg_game, "{\"a.flag\": null}", 1, "a.flag", "null" },
                { &tg_game, "{\"turn.first\": \"1\"}", 1, "turn.first", "1..8" },
                { &tg_game, "{\"levels\": 3}", 1, "levels", "list" },
                { &tg_game, "{\"levels\": [1, \"2\"]}", 1, "levels[1]", "whole number" },
                { &tg_game, "{\"levels\": [null]}", 1, "levels[0]", "null" },
                { &tg_game, "{\"challenges\": {\"vp\": 1}}", 1, "challenges", "list" },
                { &tg_game, "{\"challenges\": [3]}", 1, "challenges[0]", "object" },
                /* an enum name that is not a choice */
                { &tg_game, "{\"mode\": 2}", 1, "mode", "one of fast, slow, careful" },
                { &tg_game, "{\"mode\": \"quick\"}", 1, "mode", "one of fast, slow, careful" },
                { &tg_game, "{\"mode\": \"Fast\"}", 1, "mode", "one of fast, slow, careful" },
                /* out of range */
                { NULL, "{\"deck\": {\"copies\": 9}}", 3, "deck.copies", "1..4" },
                { NULL, "{\"reveal.pause_ms\": 10001}", 3, "reveal.pause_ms", "0..10000 ms" },
                { NULL, "{\"reveal.timeout_ms\": -1}", 3, "reveal.timeout_ms", "ms" },
                { &tg_game, "{\"x\": {\"y\": {\"z\": 101}}}", 1, "x.y.z", "0..100" },
                { &tg_game, "{\"a.n\": -6}", 1, "a.n", "-5..5 cards" },
                { &tg_game, "{\"turn\": {\"first\": 9}}", 1, "turn.first", "1..8" },
                { &tg_game, "{\"turn\": {\"first\": 0}}", 1, "turn.first", "1..8" },
                { &tg_game, "{\"levels\": [1, 10]}", 1, "levels[1]", "0..9" },
                /* lists too long */
                { &tg_game, "{\"levels\": [1, 2, 3, 4, 5]}", 1, "levels", "at most 4" },
                { &tg_game, "{\"challenges\": [{}, {}, {}, {}]}", 1, "challenges", "at most 3" },
                /* records: a field missing, unknown, of the wrong type, out of range */
                { &tg_game, "{\"challenges\": [{\"vp\": 1, \"colour\": \"red\", \"call\": 0, \"hidden\": false},"
                            " {\"colour\": \"red\", \"call\": 0, \"hidden\": false}]}", 1, "challenges[1].vp",
                  "missing" },
                { &tg_game, "{\"challenges\": [{\"vp\": 1, \"colour\": \"red\", \"call\": 0, \"hidden\": false,"
                            " \"extra\": 1}]}", 1, "challenges[0].extra", "no such field" },
                { &tg_game, "{\"challenges\": [{\"vp\": 11, \"colour\": \"red\", \"call\": 0, \"hidden\": false}]}",
                  1, "challenges[0].vp", "1..10" },
                { &tg_game, "{\"challenges\": [{\"vp\": 1, \"colour\": \"pink\", \"call\": 0, \"hidden\": false}]}",
                  1, "challenges[0].colour", "red, green, blue" },
                { &tg_game, "{\"challenges\": [{\"vp\": 1, \"colour\": \"red\", \"call\": 2, \"hidden\": false}]}",
                  1, "challenges[0].call", "call of Test Game" },
                { &tg_game, "{\"challenges\": [{\"vp\": 1, \"colour\": \"red\", \"call\": \"top\","
                            " \"hidden\": false}]}", 1, "challenges[0].call", "no call of Test Game" },
                { &tg_game, "{\"challenges\": [{\"vp\": 1, \"colour\": \"red\", \"call\": 0, \"hidden\": 0}]}",
                  1, "challenges[0].hidden", "true or false" },
                /* the same setting twice, nested and dotted */
                { NULL, "{\"deck\": {\"copies\": 2}, \"deck.copies\": 2}", 3, "deck.copies", "given twice" },
                { &tg_game, "{\"x\": {\"y.z\": 1}, \"x.y\": {\"z\": 2}}", 1, "x.y.z", "given twice" },
                /* not an object */
                { NULL, "[1]", 3, "config", "object" },
                { NULL, "\"deck.copies=2\"", 3, "config", "object" },
                /* the seat count, and the games' own checks */
                { NULL, "{}", 6, "seats", "2..5" },
                { NULL, "{}", 1, "seats", "2..5" },
                { &tg_game, "{}", 0, "seats", "1..8" },
                { NULL, "{\"deck\": {\"copies\": 1}}", 5, "deck.copies", "37" },
                { &tg_game, "{\"a\": {\"flag\": true, \"n\": -5}}", 1, "a.flag", "a.n" },
                { &tg_game, "{\"turn.first\": 3}", 2, "turn.first", "2 seats" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct config_error_case *c = &cases[i];
                const struct eng_game *g = c->game ? c->game : crash_pilot();
                struct eng_config cfg;
                struct eng_error err;
                json_t *j = parse(c->body);

                memset(&err, 0, sizeof err);
                assert_error(c->body, match_json_config_from(g, j, NULL, c->n_seats, &cfg, &err), &err, c->field,
                             c->words);
                /* ret_err may be NULL */
                assert_int_equal(match_json_config_from(g, j, NULL, c->n_seats, &cfg, NULL), -EINVAL);
                json_decref(j);
        }
}

/* Random valid configs of every game (the test game's and each registered
 * one's) at every seat count: to JSON, to text and back, the same config
 * byte for byte. */
static void config_round_trip(void **state) {
        struct eng_rng rng;
        unsigned tried = 0, all = 0;

        (void) state;
        eng_rng_seed(&rng, 42);
        for (size_t gi = 0; gi == 0 || eng_games[gi - 1]; gi++) {
                const struct eng_game *g = gi == 0 ? &tg_game : eng_games[gi - 1];

                for (unsigned n = g->min_seats; n <= g->max_seats; n++)
                        for (int i = 0; i < RANDOM_CONFIGS; i++) {
                                struct eng_config cfg, back;
                                struct eng_error err;
                                json_t *j, *again;
                                char *text;

                                all++;
                                memset(&cfg, 0, sizeof cfg);
                                random_fields(&rng, g, g->params, g->n_params, cfg.v, true);
                                if (eng_config_validate(g, &cfg, NULL, n, NULL) < 0)
                                        continue;
                                tried++;
                                j = match_json_config_to(g, &cfg);
                                assert_non_null(j);
                                text = json_dumps(j, JSON_COMPACT);
                                assert_non_null(text);
                                again = parse(text);
                                memset(&back, 0xa5, sizeof back);
                                if (match_json_config_from(g, again, NULL, n, &back, &err) < 0)
                                        fail_msg("%s: %s", text, err.message);
                                assert_memory_equal(&cfg, &back, sizeof cfg);
                                free(text);
                                json_decref(again);
                                json_decref(j);
                        }
        }
        assert_true(tried > all / 3);
}

static void config_to_shape(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_config cfg;

        (void) state;
        eng_config_defaults(g, &cfg);
        cfg.v[CP_PARAM_COPIES] = 3;
        assert_json_new(match_json_config_to(g, &cfg), "{\"deck\": {\"objects\": 6, \"colours\": 6, \"copies\": 3},"
                                                       " \"reveal\": {\"pause_ms\": 1000, \"timeout_ms\": 20000}}");
        eng_config_defaults(&tg_game, &cfg);
        cfg.v[TG_P_FLAG] = 1;
        cfg.v[TG_P_MODE] = 0;
        cfg.v[TG_P_FIRST] = 0;
        assert_json_new(match_json_config_to(&tg_game, &cfg),
                        "{\"a\": {\"flag\": true, \"n\": 1}, \"mode\": \"fast\", \"x\": {\"y\": {\"z\": 50}},"
                        " \"turn\": {\"first\": 1}, \"levels\": [], \"challenges\": []}");
        /* a list longer than its field cannot be shown */
        cfg.v[TG_P_LEVELS] = 5;
        assert_null(match_json_config_to(&tg_game, &cfg));
        assert_null(match_json_config_to(&tg_game, NULL));
        assert_null(match_json_config_to(NULL, &cfg));
}

/* ---- Data files. */

static void data_files_from_and_to_json(void **state) {
        struct eng_data data;
        struct eng_config cfg;
        struct eng_error err;
        json_t *j;

        (void) state;
        /* none: every file built in */
        memset(&data, 0x5a, sizeof data);
        assert_int_equal(match_json_data_from(&tg_game, NULL, &data, &err), 0);
        assert_null(data.text[0]);
        j = json_null();
        assert_int_equal(match_json_data_from(&tg_game, j, &data, &err), 0);
        assert_null(data.text[0]);
        json_decref(j);
        assert_json_new(match_json_data_to(&tg_game, &data), "{}");
        assert_json_new(match_json_data_to(&tg_game, NULL), "{}");
        assert_json_new(match_json_data_to(crash_pilot(), NULL), "{}");

        /* a custom file: its bytes, and back */
        j = parse("{\"words\": \"gamma\\ndelta\\n\"}");
        assert_int_equal(match_json_data_from(&tg_game, j, &data, &err), 0);
        assert_non_null(data.text[0]);
        assert_int_equal(data.len[0], 12);
        assert_memory_equal(data.text[0], "gamma\ndelta\n", 12);
        assert_int_equal(match_json_config_from(&tg_game, NULL, &data, 2, &cfg, &err), 0);
        assert_json_new(match_json_data_to(&tg_game, &data), "{\"words\": \"gamma\\ndelta\\n\"}");
        json_decref(j);

        /* the game's own check of the file */
        j = parse("{\"words\": \"good\\nbad\\n\"}");
        assert_int_equal(match_json_data_from(&tg_game, j, &data, &err), 0);
        assert_error("bad word", match_json_config_from(&tg_game, NULL, &data, 2, &cfg, &err), &err, "data.words",
                     "line 2");
        json_decref(j);

        /* a file longer than the game takes */
        j = parse("{\"words\": \"abcdefghij\\nabcdefghij\\nabcdefghij\\n\"}");
        assert_int_equal(match_json_data_from(&tg_game, j, &data, &err), 0);
        assert_int_equal(data.len[0], TG_WORDS_MAX + 1);
        assert_error("too long", match_json_config_from(&tg_game, NULL, &data, 2, &cfg, &err), &err, "data.words",
                     "33 bytes; at most 32");
        json_decref(j);

        /* what is not a data file of the game */
        static const struct { const char *body, *field, *words; } bad[] = {
                { "{\"x\": \"text\"}", "data.x", "Test Game has no such data file" },
                { "{\"words\": \"ok\", \"cards\": \"\"}", "data.cards", "no such data file" },
                { "{\"words\": 3}", "data.words", "string" },
                { "{\"words\": null}", "data.words", "string" },
                { "{\"words\": [\"a\"]}", "data.words", "string" },
                { "[\"words\"]", "data", "object" },
                { "\"words\"", "data", "object" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                j = parse(bad[i].body);
                memset(&err, 0, sizeof err);
                assert_error(bad[i].body, match_json_data_from(&tg_game, j, &data, &err), &err, bad[i].field,
                             bad[i].words);
                assert_int_equal(match_json_data_from(&tg_game, j, &data, NULL), -EINVAL);
                json_decref(j);
        }
        j = parse("{\"cards\": \"\"}");
        assert_error("crash pilot", match_json_data_from(crash_pilot(), j, &data, &err), &err, "data.cards",
                     "Crash Pilot has no such data file");
        json_decref(j);
}

/* ---- Inputs. */

/* in → JSON → text → JSON → input, which must be in again, byte for
 * byte (in was zeroed before it was filled). */
static void assert_input_round_trip(const struct eng_game *g, const struct eng_input *in) {
        struct eng_input back;
        struct eng_error err;
        json_t *j = match_json_input_to(g, in), *again;
        char *text;

        if (!j)
                fail_msg("input kind %d action %u: no JSON", in->kind, in->action);
        text = json_dumps(j, JSON_COMPACT);
        assert_non_null(text);
        again = parse(text);
        memset(&back, 0xa5, sizeof back);
        if (match_json_input_from(g, again, &back, &err) < 0)
                fail_msg("%s: %s", text, err.message);
        if (memcmp(&back, in, sizeof back) != 0)
                fail_msg("%s does not read back the same", text);
        free(text);
        json_decref(again);
        json_decref(j);
}

static void random_input(struct eng_rng *rng, const struct eng_game *g, enum eng_input_kind kind, unsigned action,
                         struct eng_input *ret) {
        const struct eng_input_def *def;

        memset(ret, 0, sizeof *ret);
        ret->seq = eng_rng_below(rng, 4) == 0 ? (uint64_t) INT64_MAX : eng_rng_next(rng) >> 1;
        ret->time_us = random_in(rng, INT64_MIN, INT64_MAX);
        ret->seat = (int) eng_rng_below(rng, ENG_MAX_SEATS + 1) - 1;
        ret->kind = kind;
        ret->action = action;
        def = eng_input_def_of(g, ret);
        assert_non_null(def);
        random_fields(rng, g, def->fields, def->n_fields, ret->arg, false);
}

/* Every built-in kind and every action of every game (the test game and
 * each registered one), in the log's domain: absent optional values, lists of every length, calls that are
 * no call of the game (refused inputs are logged too). */
static void input_round_trip_random(void **state) {
        struct eng_rng rng;

        (void) state;
        eng_rng_seed(&rng, 7);
        for (size_t gi = 0; gi == 0 || eng_games[gi - 1]; gi++) {
                const struct eng_game *g = gi == 0 ? &tg_game : eng_games[gi - 1];

                for (unsigned k = ENG_IN_START; k < ENG_IN_KINDS_END; k++) {
                        unsigned n_actions = k == ENG_IN_ACTION ? (unsigned) g->n_actions : 1;

                        for (unsigned a = 0; a < n_actions; a++)
                                for (int i = 0; i < RANDOM_INPUTS_PER_KIND; i++) {
                                        struct eng_input in;

                                        random_input(&rng, g, (enum eng_input_kind) k, a, &in);
                                        assert_input_round_trip(g, &in);
                                }
                }
        }
}

static void input_shapes(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_input in;

        (void) state;
        memset(&in, 0, sizeof in);
        in.seq = 12;
        in.time_us = 5000;
        in.seat = 1;
        in.kind = ENG_IN_CALL;
        in.call.window = 3;
        in.call.call = CP_CALL_DOESNT_FIT;
        in.call.press_us = 4000;
        assert_json_new(match_json_input_to(g, &in),
                        "{\"seq\": 12, \"time_us\": 5000, \"seat\": 2, \"kind\": \"call\", \"window\": 3,"
                        " \"call\": 7, \"call_name\": \"doesn't fit\", \"press_us\": 4000}");
        assert_input_round_trip(g, &in);

        /* a refused call: a number in range that is no call of the game */
        in.call.call = 0;
        in.call.window = ENG_ABSENT;
        in.call.press_us = ENG_ABSENT;
        assert_json_new(match_json_input_to(g, &in),
                        "{\"seq\": 12, \"time_us\": 5000, \"seat\": 2, \"kind\": \"call\", \"window\": null,"
                        " \"call\": 0, \"call_name\": null, \"press_us\": null}");
        assert_input_round_trip(g, &in);
        in.call.call = 255;
        assert_input_round_trip(g, &in);

        memset(&in, 0, sizeof in);
        in.seq = 13;
        in.time_us = -6000;
        in.seat = ENG_SEAT_TABLE;
        in.kind = ENG_IN_TIE;
        in.tie.window = 4;
        in.tie.seats = 0x85;
        in.tie.press_us = 5500;
        in.tie.n_calls = 3;
        in.tie.calls[0] = 1;
        in.tie.calls[1] = 7;
        in.tie.calls[2] = 0;
        assert_json_new(match_json_input_to(g, &in),
                        "{\"seq\": 13, \"time_us\": -6000, \"seat\": null, \"kind\": \"tie\", \"window\": 4,"
                        " \"seats\": [1, 3, 8], \"press_us\": 5500, \"calls\": [1, 7, 0]}");
        assert_input_round_trip(g, &in);

        memset(&in, 0, sizeof in);
        in.seq = 14;
        in.seat = 7;
        in.kind = ENG_IN_PRESS;
        in.press.role = ENG_ROLE_SLAP;
        in.press.button = 15;
        in.press.press_us = ENG_ABSENT;
        in.press.uncertainty_us = 300;
        in.press.received_us = 10;
        assert_json_new(match_json_input_to(g, &in),
                        "{\"seq\": 14, \"time_us\": 0, \"seat\": 8, \"kind\": \"press\", \"role\": \"slap\","
                        " \"button\": 15, \"press_us\": null, \"uncertainty_us\": 300, \"received_us\": 10}");
        assert_input_round_trip(g, &in);

        memset(&in, 0, sizeof in);
        in.seq = (uint64_t) INT64_MAX;
        in.time_us = INT64_MIN;
        in.seat = ENG_SEAT_TABLE;
        in.kind = ENG_IN_VOID;
        in.void_.target = 9;
        assert_json_new(match_json_input_to(g, &in),
                        "{\"seq\": 9223372036854775807, \"time_us\": -9223372036854775808, \"seat\": null,"
                        " \"kind\": \"void\", \"target\": 9}");
        assert_input_round_trip(g, &in);

        memset(&in, 0, sizeof in);
        in.seq = 3;
        in.seat = ENG_SEAT_TABLE;
        in.kind = ENG_IN_ACTION;
        in.action = CP_ACTION_VOID_CALL;
        assert_json_new(match_json_input_to(g, &in),
                        "{\"seq\": 3, \"time_us\": 0, \"seat\": null, \"kind\": \"void_call\"}");
        assert_input_round_trip(g, &in);

        memset(&in, 0, sizeof in);
        in.seq = 4;
        in.seat = 2;
        in.kind = ENG_IN_ACTION;
        in.action = TG_A_AWARD;
        in.arg[AW_POINTS] = -5;
        in.arg[AW_COLOUR] = 2;
        in.arg[AW_TARGETS] = 2;
        in.arg[AW_TARGETS + 1] = 0;
        in.arg[AW_TARGETS + 2] = 7;
        in.arg[AW_BONUS] = 1;
        in.arg[AW_CALL] = 3;
        in.arg[AW_AT] = ENG_ABSENT;
        in.arg[AW_CARD] = 0xdeadbeef;
        in.arg[AW_LIGHTS] = 0x80000001;
        in.arg[AW_AMONG] = 0x42;
        in.arg[AW_REF] = ENG_ABSENT;
        in.arg[AW_VICTIM] = ENG_SEAT_TABLE;
        in.arg[AW_CALLS] = 2;
        in.arg[AW_CALLS + 1] = 4;
        in.arg[AW_CALLS + 2] = 0;
        assert_json_new(match_json_input_to(&tg_game, &in),
                        "{\"seq\": 4, \"time_us\": 0, \"seat\": 3, \"kind\": \"award\", \"points\": -5,"
                        " \"colour\": \"blue\", \"targets\": [1, 8], \"bonus\": true, \"call\": 3,"
                        " \"call_name\": \"middle\", \"at_us\": null, \"card\": \"deadbeef\", \"lights\": [0, 31],"
                        " \"among\": [2, 7], \"ref\": null, \"victim\": null, \"calls\": [4, 0]}");
        assert_input_round_trip(&tg_game, &in);

        memset(&in, 0, sizeof in);
        in.seat = 0;
        in.kind = ENG_IN_ACTION;
        in.action = TG_A_TAP;
        in.arg[0] = 4;
        in.arg[1] = 2;
        in.arg[2] = 0;
        in.arg[3] = 2;
        in.arg[4] = 1;
        in.arg[5] = 3;
        assert_json_new(match_json_input_to(&tg_game, &in),
                        "{\"seq\": 0, \"time_us\": 0, \"seat\": 1, \"kind\": \"tap\","
                        " \"modes\": [\"careful\", \"fast\", \"careful\", \"slow\"], \"n\": 3}");
        assert_input_round_trip(&tg_game, &in);

        /* a call's name is not read back, and may be left out: the number counts */
        {
                json_t *j = parse("{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"window\": 1,"
                                  " \"call\": 2, \"call_name\": \"row 6\", \"press_us\": 0}");

                assert_int_equal(match_json_input_from(g, j, &in, NULL), 0);
                assert_int_equal(in.call.call, 2);
                assert_int_equal(in.seat, 0);
                json_object_del(j, "call_name");
                assert_int_equal(match_json_input_from(g, j, &in, NULL), 0);
                assert_int_equal(in.call.call, 2);
                json_decref(j);
        }
}

/* An input its fields cannot carry has no JSON: what would be logged
 * would not read back to it. */
static void input_to_refuses_what_json_cannot_carry(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_input in, base;
        struct {
                const struct eng_game *g;
                enum eng_input_kind kind;
                unsigned action;
                size_t slot;
                int64_t value;
        } cases[] = {
                { NULL, ENG_IN_TIE, 0, 1, INT64_C(1) << ENG_MAX_SEATS },        /* a seat beyond 8 */
                { NULL, ENG_IN_TIE, 0, 1, -1 },
                { NULL, ENG_IN_TIE, 0, 1, ENG_ABSENT },                         /* seats are not optional */
                { NULL, ENG_IN_TIE, 0, 3, ENG_TIE_CALLS + 1 },                  /* a list too long */
                { NULL, ENG_IN_TIE, 0, 3, -1 },
                { NULL, ENG_IN_CALL, 0, 0, -1 },                                /* a window below 0 */
                { NULL, ENG_IN_CALL, 0, 1, 256 },                               /* a call out of range */
                { NULL, ENG_IN_CALL, 0, 1, ENG_ABSENT },                        /* not optional */
                { NULL, ENG_IN_CALL, 0, 2, ENG_TIME_LIMIT_US + 1 },
                { NULL, ENG_IN_PRESS, 0, 0, 0 },                                /* no role */
                { NULL, ENG_IN_PRESS, 0, 0, ENG_ROLES_END },
                { NULL, ENG_IN_PRESS, 0, 3, ENG_ABSENT },                       /* its default is 0 */
                { NULL, ENG_IN_VOID, 0, 0, 0 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_BONUS, 2 },           /* a bool that is 2 */
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_BONUS, ENG_ABSENT },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_COLOUR, 3 },          /* no such choice */
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_COLOUR, -1 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_TARGETS + 1, ENG_SEAT_TABLE },   /* null in a list */
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_TARGETS + 1, ENG_MAX_SEATS },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_VICTIM, ENG_MAX_SEATS },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_VICTIM, -2 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_CARD, INT64_C(1) << 32 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_CARD, -1 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_LIGHTS, INT64_C(1) << 32 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_LIGHTS, -1 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_AMONG, 0x100 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_REF, 0 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_POINTS, 11 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_CALLS, 4 },
                { &tg_game, ENG_IN_ACTION, TG_A_AWARD, AW_CALLS + 1, ENG_ABSENT },
                { &tg_game, ENG_IN_ACTION, TG_A_TAP, 1, 3 },                    /* a list's element */
                { &tg_game, ENG_IN_ACTION, TG_A_TAP, 5, 4 },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct eng_game *cg = cases[i].g ? cases[i].g : g;

                memset(&in, 0, sizeof in);
                in.seq = 1;
                in.seat = 0;
                in.kind = cases[i].kind;
                in.action = cases[i].action;
                /* a valid input first, then the one value that is not */
                switch (in.kind) {
                case ENG_IN_TIE:
                        in.tie.seats = 3;
                        break;
                case ENG_IN_CALL:
                        in.call.call = 1;
                        break;
                case ENG_IN_PRESS:
                        in.press.role = ENG_ROLE_BUTTONS;
                        break;
                case ENG_IN_VOID:
                        in.void_.target = 1;
                        break;
                case ENG_IN_ACTION:
                        if (in.action == TG_A_AWARD) {
                                in.arg[AW_TARGETS] = 1;
                                in.arg[AW_CALL] = ENG_ABSENT;
                                in.arg[AW_AT] = ENG_ABSENT;
                                in.arg[AW_CARD] = ENG_ABSENT;
                                in.arg[AW_REF] = ENG_ABSENT;
                                in.arg[AW_VICTIM] = ENG_SEAT_TABLE;
                                in.arg[AW_CALLS] = 1;
                        } else if (in.action == TG_A_TAP) {
                                in.arg[0] = 1;
                        }
                        break;
                default:
                        break;
                }
                assert_input_round_trip(cg, &in);
                in.arg[cases[i].slot] = cases[i].value;
                if (match_json_input_to(cg, &in))
                        fail_msg("case %zu: kind %d slot %zu value %" PRId64 " has JSON", i, in.kind, cases[i].slot,
                                 cases[i].value);
        }

        memset(&base, 0, sizeof base);
        base.kind = ENG_IN_START;
        base.seat = ENG_SEAT_TABLE;
        in = base;
        in.seq = (uint64_t) INT64_MAX + 1;
        assert_null(match_json_input_to(g, &in));
        in = base;
        in.seat = ENG_MAX_SEATS;
        assert_null(match_json_input_to(g, &in));
        in.seat = -2;
        assert_null(match_json_input_to(g, &in));
        in = base;
        in.kind = (enum eng_input_kind) 0;
        assert_null(match_json_input_to(g, &in));
        in.kind = ENG_IN_KINDS_END;
        assert_null(match_json_input_to(g, &in));
        in.kind = ENG_IN_ACTION;
        in.action = CP_N_ACTIONS;
        assert_null(match_json_input_to(g, &in));
        /* only an action has an action number: another would not read back */
        in = base;
        in.action = 1;
        assert_null(match_json_input_to(g, &in));
        assert_null(match_json_input_to(g, NULL));
}

struct input_error_case {
        const struct eng_game *game;    /* NULL: Crash Pilot */
        const char *body;
        const char *field;
        const char *words;
};

#define LOG_HEAD(seat)  "{\"seq\": 1, \"time_us\": 0, \"seat\": " seat ", "

static void input_from_errors_name_the_member(void **state) {
        static const struct input_error_case cases[] = {
                { NULL, "[]", "input", "object" },
                { NULL, "\"start\"", "input", "object" },
                { NULL, LOG_HEAD("null") "\"x\": 1}", "kind", "missing" },
                { NULL, LOG_HEAD("null") "\"kind\": \"jump\"}", "kind", "must be an input of Crash Pilot" },
                { NULL, LOG_HEAD("null") "\"kind\": 3}", "kind", "must be an input of Crash Pilot" },
                { NULL, LOG_HEAD("null") "\"kind\": \"award\"}", "kind", "must be an input of Crash Pilot" },
                { NULL, "{\"time_us\": 0, \"seat\": null, \"kind\": \"start\"}", "seq", "missing" },
                { NULL, "{\"seq\": -1, \"time_us\": 0, \"seat\": null, \"kind\": \"start\"}", "seq", "whole number" },
                { NULL, "{\"seq\": \"1\", \"time_us\": 0, \"seat\": null, \"kind\": \"start\"}", "seq",
                  "whole number" },
                { NULL, "{\"seq\": 1, \"seat\": null, \"kind\": \"start\"}", "time_us", "missing" },
                { NULL, "{\"seq\": 1, \"time_us\": 1.5, \"seat\": null, \"kind\": \"start\"}", "time_us",
                  "whole number" },
                { NULL, "{\"seq\": 1, \"time_us\": 0, \"kind\": \"start\"}", "seat", "missing" },
                { NULL, LOG_HEAD("0") "\"kind\": \"start\"}", "seat", "must be 1..8 or null" },
                { NULL, LOG_HEAD("9") "\"kind\": \"start\"}", "seat", "must be 1..8 or null" },
                { NULL, LOG_HEAD("\"2\"") "\"kind\": \"start\"}", "seat", "must be 1..8 or null" },
                { NULL, LOG_HEAD("1.0") "\"kind\": \"start\"}", "seat", "must be 1..8 or null" },
                /* members of another kind, or of none */
                { NULL, LOG_HEAD("null") "\"kind\": \"start\", \"window\": 1}", "window",
                  "is not a member of a start input" },
                { NULL, LOG_HEAD("null") "\"kind\": \"timer\", \"extra\": 1}", "extra", "is not a member of a timer" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 1, \"press_us\": 0,"
                  " \"role\": \"slap\"}", "role", "is not a member of a call input" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 1, \"press_us\": 0,"
                  " \"window_name\": \"x\"}", "window_name", "is not a member of a call input" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 1, \"press_us\": 0,"
                  " \"calls_name\": \"x\"}", "calls_name", "is not a member of a call input" },
                /* call */
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"call\": 1, \"press_us\": 0}", "window", "missing" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": -1, \"call\": 1, \"press_us\": 0}", "window",
                  "0..4294967295" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 4294967296, \"call\": 1, \"press_us\": 0}",
                  "window", "0..4294967295" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"press_us\": 0}", "call", "missing" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 256, \"press_us\": 0}", "call",
                  "call of Crash Pilot" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": -1, \"press_us\": 0}", "call",
                  "call of Crash Pilot" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": null, \"press_us\": 0}", "call",
                  "null" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": \"row 9\", \"press_us\": 0}",
                  "call", "no call of Crash Pilot" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 1}", "press_us", "missing" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 1,"
                  " \"press_us\": 1152921504606846977}",
                  "press_us", "µs" },
                { NULL, LOG_HEAD("2") "\"kind\": \"call\", \"window\": 1, \"call\": 1, \"press_us\": \"now\"}",
                  "press_us", "whole number" },
                /* tie */
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"press_us\": 0, \"calls\": []}", "seats",
                  "missing" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, 2], \"press_us\": 0}",
                  "calls", "missing" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": 3, \"press_us\": 0,"
                  " \"calls\": []}", "seats", "list of seats 1..8" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": null, \"press_us\": 0,"
                  " \"calls\": []}", "seats", "null" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, 0], \"press_us\": 0,"
                  " \"calls\": []}", "seats[1]", "must be a seat 1..8" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, 9], \"press_us\": 0,"
                  " \"calls\": []}", "seats[1]", "must be a seat 1..8" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, \"2\"], \"press_us\": 0,"
                  " \"calls\": []}", "seats[1]", "must be a seat 1..8" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [2, 2], \"press_us\": 0,"
                  " \"calls\": []}", "seats[1]", "seat 2 is listed twice" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, 2], \"press_us\": 0,"
                  " \"calls\": [1, 2, 3, 4, 5, 6, 7, 1, 2]}", "calls", "at most 8" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, 2], \"press_us\": 0,"
                  " \"calls\": [1, true]}", "calls[1]", "call of Crash Pilot" },
                { NULL, LOG_HEAD("null") "\"kind\": \"tie\", \"window\": 1, \"seats\": [1, 2], \"press_us\": 0,"
                  " \"calls\": [1, null]}", "calls[1]", "null" },
                /* press, void */
                { NULL, LOG_HEAD("1") "\"kind\": \"press\", \"role\": \"thumb\", \"button\": 1, \"press_us\": 0,"
                  " \"uncertainty_us\": 0, \"received_us\": 0}", "role", "one of buttons, slap, keypad" },
                { NULL, LOG_HEAD("1") "\"kind\": \"press\", \"role\": 1, \"button\": 1, \"press_us\": 0,"
                  " \"uncertainty_us\": 0, \"received_us\": 0}", "role", "one of buttons, slap, keypad" },
                { NULL, LOG_HEAD("1") "\"kind\": \"press\", \"role\": \"slap\", \"button\": 16, \"press_us\": 0,"
                  " \"uncertainty_us\": 0, \"received_us\": 0}", "button", "0..15" },
                { NULL, LOG_HEAD("1") "\"kind\": \"press\", \"role\": \"slap\", \"button\": 1, \"press_us\": 0,"
                  " \"uncertainty_us\": -1, \"received_us\": 0}", "uncertainty_us", "µs" },
                { NULL, LOG_HEAD("null") "\"kind\": \"void\"}", "target", "missing" },
                { NULL, LOG_HEAD("null") "\"kind\": \"void\", \"target\": 0}", "target", "1..9223372036854775807" },
                { NULL, LOG_HEAD("null") "\"kind\": \"void_call\", \"target\": 1}", "target",
                  "is not a member of a void_call input" },
                /* the test game's types */
                { &tg_game, LOG_HEAD("1") "\"kind\": \"tap\", \"modes\": [\"fast\", \"quick\"], \"n\": 0}", "modes[1]",
                  "one of fast, slow, careful" },
                { &tg_game, LOG_HEAD("1") "\"kind\": \"tap\", \"modes\": \"fast\", \"n\": 0}", "modes", "list" },
                { &tg_game, LOG_HEAD("1") "\"kind\": \"tap\", \"modes\": [], \"n\": 4}", "n", "0..3" },
                { &tg_game, LOG_HEAD("1") "\"kind\": \"tap\", \"modes\": []}", "n", "missing" },
                { &tg_game, LOG_HEAD("1") "\"kind\": \"ping\", \"level\": true}", "level", "whole number" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct eng_game *g = cases[i].game ? cases[i].game : crash_pilot();
                struct eng_input in;
                struct eng_error err;
                json_t *j = parse(cases[i].body);

                memset(&err, 0, sizeof err);
                assert_error(cases[i].body, match_json_input_from(g, j, &in, &err), &err, cases[i].field,
                             cases[i].words);
                assert_int_equal(match_json_input_from(g, j, &in, NULL), -EINVAL);
                json_decref(j);
        }
}

/* The test game's award, every field of a valid one but the member under
 * test: each type's mistakes name the member. */
static void input_from_errors_of_every_type(void **state) {
        static const struct { const char *member, *value, *field, *words; } cases[] = {
                { "points", "\"3\"", "points", "whole number -5..10" },
                { "points", "-6", "points", "-5..10" },
                { "colour", "\"pink\"", "colour", "one of red, green, blue" },
                { "colour", "0", "colour", "one of red, green, blue" },
                { "targets", "[1, null]", "targets[1]", "null" },
                { "targets", "[1, 2, 3, 4]", "targets", "at most 3" },
                { "targets", "[0]", "targets[0]", "1..8" },
                { "targets", "null", "targets", "list" },
                { "bonus", "1", "bonus", "true or false" },
                { "bonus", "\"true\"", "bonus", "true or false" },
                { "call", "8", "call", "call of Test Game" },
                { "call", "\"top\"", "call", "no call of Test Game" },
                { "at_us", "1.5", "at_us", "whole number" },
                { "card", "\"ABCDEF01\"", "card", "8 hex digits" },
                { "card", "\"abcdef0\"", "card", "8 hex digits" },
                { "card", "\"abcdef012\"", "card", "8 hex digits" },
                { "card", "\"+bcdef01\"", "card", "8 hex digits" },
                { "card", "3735928559", "card", "8 hex digits" },
                { "lights", "[32]", "lights[0]", "must be a bit 0..31" },
                { "lights", "[0, -1]", "lights[1]", "must be a bit 0..31" },
                { "lights", "[1, 1]", "lights[1]", "bit 1 is listed twice" },
                { "lights", "3", "lights", "must be a list of bits 0..31" },
                { "lights", "null", "lights", "null" },
                { "among", "[9]", "among[0]", "must be a seat 1..8" },
                { "among", "{}", "among", "must be a list of seats 1..8" },
                { "ref", "0", "ref", "1..9223372036854775807" },
                { "victim", "9", "victim", "1..8" },
                { "victim", "[1]", "victim", "1..8" },
                { "calls", "[1, 2, 3, 4]", "calls", "at most 3" },
                { "calls", "[9]", "calls[0]", "call of Test Game" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                json_t *j = parse(LOG_HEAD("2") "\"kind\": \"award\", \"points\": 1, \"colour\": \"red\","
                                  " \"targets\": [1], \"bonus\": false, \"call\": null, \"at_us\": null,"
                                  " \"card\": null, \"lights\": [], \"among\": [], \"ref\": null, \"victim\": null,"
                                  " \"calls\": []}");
                struct eng_input in;
                struct eng_error err;

                assert_int_equal(match_json_input_from(&tg_game, j, &in, &err), 0);
                json_object_set_new(j, cases[i].member, parse(cases[i].value));
                memset(&err, 0, sizeof err);
                assert_error(cases[i].value, match_json_input_from(&tg_game, j, &in, &err), &err, cases[i].field,
                             cases[i].words);
                json_object_del(j, cases[i].member);
                assert_error(cases[i].member, match_json_input_from(&tg_game, j, &in, &err), &err, cases[i].member,
                             "missing");
                json_decref(j);
        }
}

/* ---- Inputs as a person sends them. */

struct request_case {
        const struct eng_game *game;    /* NULL: Crash Pilot */
        const char *body;
        int seat_fixed;
        struct eng_input want;          /* seq and time_us stay 0 */
};

#define CALL_REQ(seat_, call_, window_, press_) \
        { .seat = (seat_), .kind = ENG_IN_CALL, .call = { .window = (window_), .call = (call_), .press_us = (press_) } }

static void input_request_fills_the_defaults(void **state) {
        static const struct request_case cases[] = {
                /* a call by number or by name, window and press time left to the runtime */
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": 3}", -1, CALL_REQ(1, 3, ENG_ABSENT, ENG_ABSENT) },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": \"row 3\"}", -1,
                  CALL_REQ(1, 3, ENG_ABSENT, ENG_ABSENT) },
                { NULL, "{\"kind\": \"call\", \"seat\": 5, \"call\": \"Doesnt-Fit\"}", -1,
                  CALL_REQ(4, 7, ENG_ABSENT, ENG_ABSENT) },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": \"row-3\", \"window\": 4, \"press_us\": -100}", -1,
                  CALL_REQ(1, 3, 4, -100) },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": 1, \"window\": null, \"press_us\": null,"
                        " \"call_name\": \"ignored\"}", -1, CALL_REQ(1, 1, ENG_ABSENT, ENG_ABSENT) },
                /* a seat's token: "seat" may be left out, or be that seat */
                { NULL, "{\"kind\": \"call\", \"call\": 7}", 3, CALL_REQ(3, 7, ENG_ABSENT, ENG_ABSENT) },
                { NULL, "{\"kind\": \"call\", \"seat\": 4, \"call\": 7}", 3, CALL_REQ(3, 7, ENG_ABSENT, ENG_ABSENT) },
                /* table inputs: no seat, or null */
                { NULL, "{\"kind\": \"tie\", \"seats\": [1, 3]}", -1,
                  { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_TIE,
                    .tie = { .window = ENG_ABSENT, .seats = 5, .press_us = ENG_ABSENT } } },
                { NULL, "{\"kind\": \"tie\", \"seat\": null, \"seats\": [2, 3], \"calls\": [\"row 1\", 7],"
                        " \"press_us\": 9}", 2,
                  { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_TIE,
                    .tie = { .window = ENG_ABSENT, .seats = 6, .press_us = 9, .n_calls = 2, .calls = { 1, 7 } } } },
                { NULL, "{\"kind\": \"start\"}", -1, { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_START } },
                { NULL, "{\"kind\": \"pause\", \"seat\": null}", -1, { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_PAUSE } },
                { NULL, "{\"kind\": \"resume\"}", 0, { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_RESUME } },
                { NULL, "{\"kind\": \"confirm\"}", -1, { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_CONFIRM } },
                { NULL, "{\"kind\": \"void\", \"target\": 5}", -1,
                  { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_VOID, .void_ = { .target = 5 } } },
                { NULL, "{\"kind\": \"void_call\"}", -1,
                  { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_ACTION, .action = CP_ACTION_VOID_CALL } },
                /* an input of the table that a seat may send: a seat's token
                 * speaks as its seat (Crazy Pilot's drive), a referee for the table */
                { &cz_game, "{\"kind\": \"drive\"}", 2,
                  { .seat = 2, .kind = ENG_IN_ACTION, .action = CZ_ACTION_DRIVE } },
                { &cz_game, "{\"kind\": \"drive\"}", -1,
                  { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_ACTION, .action = CZ_ACTION_DRIVE } },
                /* a press: the uncertainty's default is 0, the times the runtime's */
                { &tg_game, "{\"kind\": \"press\", \"seat\": 1, \"role\": \"slap\", \"button\": 2}", -1,
                  { .seat = 0, .kind = ENG_IN_PRESS,
                    .press = { .role = ENG_ROLE_SLAP, .button = 2, .press_us = ENG_ABSENT, .uncertainty_us = 0,
                               .received_us = ENG_ABSENT } } },
                { &tg_game, "{\"kind\": \"press\", \"seat\": 1, \"role\": \"keypad\", \"button\": 0,"
                            " \"uncertainty_us\": null, \"press_us\": 5}", -1,
                  { .seat = 0, .kind = ENG_IN_PRESS,
                    .press = { .role = ENG_ROLE_KEYPAD, .button = 0, .press_us = 5, .uncertainty_us = 0,
                               .received_us = ENG_ABSENT } } },
                /* the test game's own inputs: every optional field left out */
                { &tg_game, "{\"kind\": \"award\", \"seat\": 1, \"points\": 3, \"colour\": \"green\","
                            " \"targets\": [2, 3]}", -1,
                  { .seat = 0, .kind = ENG_IN_ACTION, .action = TG_A_AWARD,
                    .arg = { [AW_POINTS] = 3, [AW_COLOUR] = 1, [AW_TARGETS] = 2, [AW_TARGETS + 1] = 1,
                             [AW_TARGETS + 2] = 2, [AW_BONUS] = 0, [AW_CALL] = ENG_ABSENT, [AW_AT] = ENG_ABSENT,
                             [AW_CARD] = ENG_ABSENT, [AW_LIGHTS] = 0, [AW_AMONG] = 0, [AW_REF] = ENG_ABSENT,
                             [AW_VICTIM] = ENG_SEAT_TABLE, [AW_CALLS] = 0 } } },
                /* … given, null where null means "left out" */
                { &tg_game, "{\"kind\": \"award\", \"seat\": 4, \"points\": -5, \"colour\": \"blue\", \"targets\": [],"
                            " \"bonus\": null, \"call\": \"HIGH\", \"at_us\": 7, \"card\": \"0000000e\","
                            " \"lights\": [3], \"among\": [8], \"ref\": 2, \"victim\": 6,"
                            " \"calls\": [\"middle\", 0]}", -1,
                  { .seat = 3, .kind = ENG_IN_ACTION, .action = TG_A_AWARD,
                    .arg = { [AW_POINTS] = -5, [AW_COLOUR] = 2, [AW_TARGETS] = 0, [AW_BONUS] = 0, [AW_CALL] = 1,
                             [AW_AT] = 7, [AW_CARD] = 14, [AW_LIGHTS] = 8, [AW_AMONG] = 0x80, [AW_REF] = 2,
                             [AW_VICTIM] = 5, [AW_CALLS] = 2, [AW_CALLS + 1] = 3, [AW_CALLS + 2] = 0 } } },
                { &tg_game, "{\"kind\": \"award\", \"points\": 0, \"colour\": \"red\", \"targets\": [1],"
                            " \"bonus\": true, \"call\": null, \"victim\": null, \"calls\": null}", 6,
                  { .seat = 6, .kind = ENG_IN_ACTION, .action = TG_A_AWARD,
                    .arg = { [AW_POINTS] = 0, [AW_COLOUR] = 0, [AW_TARGETS] = 1, [AW_TARGETS + 1] = 0,
                             [AW_BONUS] = 1, [AW_CALL] = ENG_ABSENT, [AW_AT] = ENG_ABSENT, [AW_CARD] = ENG_ABSENT,
                             [AW_REF] = ENG_ABSENT, [AW_VICTIM] = ENG_SEAT_TABLE, [AW_CALLS] = 0 } } },
                { &tg_game, "{\"kind\": \"tap\", \"seat\": 2, \"modes\": [\"fast\", \"careful\"], \"n\": 1}", -1,
                  { .seat = 1, .kind = ENG_IN_ACTION, .action = TG_A_TAP, .arg = { 2, 0, 2, 0, 0, 1 } } },
                { &tg_game, "{\"kind\": \"reset\"}", -1,
                  { .seat = ENG_SEAT_TABLE, .kind = ENG_IN_ACTION, .action = TG_A_RESET } },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct eng_game *g = cases[i].game ? cases[i].game : crash_pilot();
                struct eng_input want, got;
                struct eng_error err;
                json_t *j = parse(cases[i].body);

                memset(&want, 0, sizeof want);
                want.seat = cases[i].want.seat;
                want.kind = cases[i].want.kind;
                want.action = cases[i].want.action;
                memcpy(want.arg, cases[i].want.arg, sizeof want.arg);
                memset(&got, 0xa5, sizeof got);
                if (match_json_input_request(g, j, cases[i].seat_fixed, &got, &err) < 0)
                        fail_msg("%s: %s", cases[i].body, err.message);
                if (memcmp(&got, &want, sizeof got) != 0) {
                        for (size_t k = 0; k < ENG_MAX_ARGS; k++)
                                if (got.arg[k] != want.arg[k])
                                        print_error("arg[%zu]: got %" PRId64 ", want %" PRId64 "\n", k, got.arg[k],
                                                    want.arg[k]);
                        fail_msg("%s: seat %d kind %d action %u; want seat %d kind %d action %u", cases[i].body,
                                 got.seat, got.kind, got.action, want.seat, want.kind, want.action);
                }
                json_decref(j);
        }
}

static void input_request_errors_name_the_member(void **state) {
        static const struct {
                const struct eng_game *game;    /* NULL: Crash Pilot */
                const char *body;
                int seat_fixed;
                const char *field, *words;
        } cases[] = {
                { NULL, "[]", -1, "input", "object" },
                { NULL, "3", -1, "input", "object" },
                { NULL, "{\"seat\": 1, \"call\": 1}", -1, "kind", "missing" },
                /* a call that is no call of the game */
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": 0}", -1, "call", "call of Crash Pilot" },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": 8}", -1, "call", "call of Crash Pilot" },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": \"row 9\"}", -1, "call",
                  "\"row 9\" is no call of Crash Pilot" },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": null}", -1, "call", "null" },
                { NULL, "{\"kind\": \"call\", \"seat\": 2}", -1, "call", "missing" },
                { NULL, "{\"kind\": \"tie\", \"seats\": [1, 2], \"calls\": [0]}", -1, "calls[0]",
                  "call of Crash Pilot" },
                /* inputs only the runtime makes */
                { NULL, "{\"kind\": \"timer\"}", -1, "kind", "timer inputs are made by the runtime, not sent" },
                { &tg_game, "{\"kind\": \"ping\", \"level\": 1}", -1, "kind",
                  "ping inputs are made by the runtime, not sent" },
                /* the seat of a seated input */
                { NULL, "{\"kind\": \"call\", \"call\": 1}", -1, "seat", "missing" },
                { NULL, "{\"kind\": \"call\", \"seat\": null, \"call\": 1}", -1, "seat",
                  "must be a seat 1..8: a call input acts for a seat" },
                { NULL, "{\"kind\": \"call\", \"seat\": 0, \"call\": 1}", -1, "seat",
                  "must be a seat 1..8: a call input acts for a seat" },
                { NULL, "{\"kind\": \"call\", \"seat\": 9, \"call\": 1}", -1, "seat",
                  "must be a seat 1..8: a call input acts for a seat" },
                { NULL, "{\"kind\": \"call\", \"seat\": \"2\", \"call\": 1}", -1, "seat",
                  "must be a seat 1..8: a call input acts for a seat" },
                { NULL, "{\"kind\": \"call\", \"seat\": 2, \"call\": 1}", 0, "seat", "seat 1 only" },
                { NULL, "{\"kind\": \"call\", \"seat\": null, \"call\": 1}", 0, "seat", "1..8" },
                { &tg_game, "{\"kind\": \"tap\", \"modes\": [], \"n\": 0}", -1, "seat", "missing" },
                /* a seat given to a table input */
                { NULL, "{\"kind\": \"pause\", \"seat\": 1}", -1, "seat", "a pause input acts for the table" },
                { NULL, "{\"kind\": \"tie\", \"seat\": 1, \"seats\": [1, 2]}", 0, "seat",
                  "a tie input acts for the table" },
                /* members that are not the input's */
                { NULL, "{\"kind\": \"call\", \"seat\": 1, \"call\": 1, \"seq\": 3}", -1, "seq",
                  "is not a member of a call input" },
                { NULL, "{\"kind\": \"call\", \"seat\": 1, \"call\": 1, \"time_us\": 3}", -1, "time_us",
                  "is not a member of a call input" },
                { NULL, "{\"kind\": \"start\", \"target\": 3}", -1, "target", "is not a member of a start input" },
                /* fields */
                { NULL, "{\"kind\": \"tie\"}", -1, "seats", "missing" },
                { NULL, "{\"kind\": \"tie\", \"seats\": [1, 1]}", -1, "seats[1]", "seat 1 is listed twice" },
                { NULL, "{\"kind\": \"void\"}", -1, "target", "missing" },
                { NULL, "{\"kind\": \"void\", \"target\": \"last\"}", -1, "target", "whole number" },
                { &tg_game, "{\"kind\": \"award\", \"seat\": 1, \"colour\": \"red\", \"targets\": []}", -1, "points",
                  "missing" },
                { &tg_game, "{\"kind\": \"award\", \"seat\": 1, \"points\": 1, \"colour\": \"red\", \"targets\": [9]}",
                  -1, "targets[0]", "1..8" },
                { &tg_game, "{\"kind\": \"award\", \"seat\": 1, \"points\": 1, \"colour\": \"red\", \"targets\": [],"
                            " \"call\": 2}", -1, "call", "call of Test Game" },
                { &tg_game, "{\"kind\": \"award\", \"seat\": 1, \"points\": 1, \"colour\": \"red\", \"targets\": [],"
                            " \"among\": null}", -1, "among", "null" },
                { &tg_game, "{\"kind\": \"press\", \"seat\": 1, \"role\": \"slap\"}", -1, "button", "missing" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct eng_game *g = cases[i].game ? cases[i].game : crash_pilot();
                struct eng_input in;
                struct eng_error err;
                json_t *j = parse(cases[i].body);

                memset(&err, 0, sizeof err);
                assert_error(cases[i].body, match_json_input_request(g, j, cases[i].seat_fixed, &in, &err), &err,
                             cases[i].field, cases[i].words);
                assert_int_equal(match_json_input_request(g, j, cases[i].seat_fixed, &in, NULL), -EINVAL);
                json_decref(j);
        }
}

/* An unknown kind lists the game's inputs: in a request the ones that may
 * be sent (the built-ins the game takes and its own, nothing the runtime
 * alone makes); in the log every one. */
static void unknown_kind_lists_the_inputs(void **state) {
        static const struct {
                const struct eng_game *game;
                bool request;
                const char *message;
        } cases[] = {
                { &cp_game, true, "kind: must be an input of Crash Pilot: start, call, tie, pause, resume, void, "
                                  "confirm, void_call" },
                { &cp_game, false, "kind: must be an input of Crash Pilot: start, call, tie, timer, pause, resume, "
                                   "void, confirm, void_call" },
                { &tg_game, true, "kind: must be an input of Test Game: start, call, press, pause, resume, void, "
                                  "confirm, award, reset, tap" },
                { &tg_game, false, "kind: must be an input of Test Game: start, call, press, timer, pause, resume, "
                                   "void, confirm, award, reset, tap, ping" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                json_t *j = parse(LOG_HEAD("null") "\"kind\": \"jump\"}");
                struct eng_input in;
                struct eng_error err;
                int r;

                if (cases[i].request) {
                        json_object_del(j, "seq");
                        json_object_del(j, "time_us");
                        r = match_json_input_request(cases[i].game, j, -1, &in, &err);
                } else {
                        r = match_json_input_from(cases[i].game, j, &in, &err);
                }
                assert_int_equal(r, -EINVAL);
                assert_string_equal(err.field, "kind");
                assert_string_equal(err.message, cases[i].message);
                json_decref(j);
        }
}

/* ---- Outputs. */

/* The test game's outputs, as each reader gets them. */
static void outputs_show_each_reader_its_audience(void **state) {
        const void *st = &tg_state_good;
        struct eng_output scored, dealt, audit, ranked, light;
        const char *name = NULL;

        (void) state;
        memset(&scored, 0, sizeof scored);
        scored.def = &tg_ev_scored;
        scored.seat = 2;
        scored.at_us = 77;
        scored.v[0] = 5;
        scored.v[1] = 3;
        scored.v[2] = 14;
        scored.v[3] = 1;
        assert_json_new(match_json_output(&tg_game, st, &scored, &match_public, &name),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 3,"
                        " \"call_name\": \"middle\"}");
        assert_string_equal(name, "scored");
        /* seat-private: to that seat (and the referee), not to another */
        assert_json_new(match_json_output(&tg_game, st, &scored, &seat_reader[2], NULL),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 3,"
                        " \"call_name\": \"middle\","
                        " \"hand\": {\"handle\": \"0000000e\", \"rank\": 2, \"suit\": \"diamonds\","
                        " \"court\": false}}");
        assert_json_new(match_json_output(&tg_game, st, &scored, &seat_reader[1], NULL),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 3,"
                        " \"call_name\": \"middle\"}");
        /* referee-only: to the referee (and the runtime's log) */
        assert_json_new(match_json_output(&tg_game, st, &scored, &match_referee, NULL),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 3,"
                        " \"call_name\": \"middle\","
                        " \"hand\": {\"handle\": \"0000000e\", \"rank\": 2, \"suit\": \"diamonds\", \"court\": false},"
                        " \"reason\": \"luck\"}");
        assert_json_new(match_json_output(&tg_game, st, &scored, &match_runtime, NULL),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 3,"
                        " \"call_name\": \"middle\","
                        " \"hand\": {\"handle\": \"0000000e\", \"rank\": 2, \"suit\": \"diamonds\", \"court\": false},"
                        " \"reason\": \"luck\"}");
        /* a call that is no call of the game: its name is null */
        scored.v[1] = 2;
        assert_json_new(match_json_output(&tg_game, st, &scored, &match_public, NULL),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 2,"
                        " \"call_name\": null}");
        assert_false(match_json_all_public(&scored));
        check_output_all_readers(&tg_game, st, &scored);

        /* a seat's event: that seat and the referee hear it, no one else */
        memset(&dealt, 0, sizeof dealt);
        dealt.def = &tg_ev_dealt;
        dealt.seat = 1;
        dealt.at_us = -3;
        dealt.v[0] = 25;
        dealt.v[1] = 4;
        name = NULL;
        assert_null(match_json_output(&tg_game, st, &dealt, &match_public, &name));
        assert_string_equal(name, "dealt");
        assert_null(match_json_output(&tg_game, st, &dealt, &seat_reader[0], NULL));
        assert_json_new(match_json_output(&tg_game, st, &dealt, &seat_reader[1], NULL),
                        "{\"kind\": \"dealt\", \"seat\": 2, \"at_us\": -3,"
                        " \"card\": {\"handle\": \"00000019\", \"rank\": 13, \"suit\": \"diamonds\", \"court\": true},"
                        " \"count\": 4}");
        assert_json_new(match_json_output(&tg_game, st, &dealt, &match_referee, NULL),
                        "{\"kind\": \"dealt\", \"seat\": 2, \"at_us\": -3,"
                        " \"card\": {\"handle\": \"00000019\", \"rank\": 13, \"suit\": \"diamonds\", \"court\": true},"
                        " \"count\": 4}");
        assert_false(match_json_hears(&dealt, &match_public));
        assert_false(match_json_hears(&dealt, &seat_reader[0]));
        assert_true(match_json_hears(&dealt, &seat_reader[1]));
        assert_true(match_json_hears(&dealt, &match_referee));
        assert_false(match_json_all_public(&dealt));
        check_output_all_readers(&tg_game, st, &dealt);
        /* a seat's event of no seat: no seat hears it */
        dealt.seat = ENG_SEAT_TABLE;
        check_output_all_readers(&tg_game, st, &dealt);
        assert_null(match_json_output(&tg_game, st, &dealt, &(const struct match_reader) { ENG_VIEW_SEAT, -1 },
                                      NULL));

        /* the referee's event */
        memset(&audit, 0, sizeof audit);
        audit.def = &tg_ev_audit;
        audit.seat = ENG_SEAT_TABLE;
        audit.v[0] = 9;
        audit.v[1] = 0x81;
        assert_null(match_json_output(&tg_game, st, &audit, &match_public, NULL));
        assert_null(match_json_output(&tg_game, st, &audit, &seat_reader[0], NULL));
        assert_json_new(match_json_output(&tg_game, st, &audit, &match_referee, NULL),
                        "{\"kind\": \"audit\", \"seat\": null, \"at_us\": 0, \"note\": 9, \"seats\": [1, 8]}");
        check_output_all_readers(&tg_game, st, &audit);

        /* places best first, ties in seat order; a seat of no one is null */
        memset(&ranked, 0, sizeof ranked);
        ranked.def = &tg_ev_ranked;
        ranked.seat = ENG_SEAT_TABLE;
        ranked.v[RK_PLACES + 0] = 2;
        ranked.v[RK_PLACES + 1] = 1;
        ranked.v[RK_PLACES + 2] = 2;
        ranked.v[RK_PLACES + 3] = 4;
        ranked.v[RK_LEADER] = ENG_SEAT_TABLE;
        ranked.v[RK_LIGHTS] = 0x80000005;
        ranked.v[RK_CARDS] = 2;
        ranked.v[RK_CARDS + 1] = 1;
        ranked.v[RK_CARDS + 2] = 0xffffffff;
        ranked.v[RK_FLAGS] = 2;
        ranked.v[RK_FLAGS + 1] = 1;
        ranked.v[RK_FLAGS + 2] = 0;
        assert_json_new(match_json_output(&tg_game, st, &ranked, &seat_reader[3], NULL),
                        "{\"kind\": \"ranked\", \"seat\": null, \"at_us\": 0,"
                        " \"places\": [{\"seat\": 2, \"place\": 1}, {\"seat\": 1, \"place\": 2},"
                        "              {\"seat\": 3, \"place\": 2}, {\"seat\": 4, \"place\": 4}],"
                        " \"leader\": null, \"lights\": [0, 2, 31], \"cards\": [\"00000001\", \"ffffffff\"],"
                        " \"flags\": [true, false]}");
        assert_true(match_json_all_public(&ranked));
        check_output_all_readers(&tg_game, st, &ranked);
        ranked.v[RK_LEADER] = ENG_ABSENT;
        ranked.v[RK_CARDS] = 0;
        check_output_all_readers(&tg_game, st, &ranked);
        /* a list longer than its field, a card of no one: nothing to show */
        ranked.v[RK_CARDS] = 5;
        assert_null(match_json_output(&tg_game, st, &ranked, &match_public, NULL));
        scored.v[2] = TG_MAX_CARD;
        assert_null(match_json_output(&tg_game, st, &scored, &match_referee, NULL));
        /* … which the public, who does not see the card, does not miss */
        assert_json_new(match_json_output(&tg_game, st, &scored, &match_public, NULL),
                        "{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 77, \"points\": 5, \"call\": 2,"
                        " \"call_name\": null}");

        /* requests: the runtime's alone */
        memset(&light, 0, sizeof light);
        light.def = &eng_req_pad_light;
        light.seat = 0;
        light.at_us = 5;
        light.light.button = ENG_BUTTON_ALL;
        light.light.mode = ENG_LIGHT_BLINK;
        light.light.duration_ms = 1000;
        assert_null(match_json_output(&tg_game, st, &light, &match_public, NULL));
        assert_null(match_json_output(&tg_game, st, &light, &seat_reader[0], NULL));
        assert_null(match_json_output(&tg_game, st, &light, &match_referee, NULL));
        assert_json_new(match_json_output(&tg_game, st, &light, &match_runtime, NULL),
                        "{\"kind\": \"pad_light\", \"seat\": 1, \"at_us\": 5, \"button\": 255, \"mode\": \"blink\","
                        " \"duration_ms\": 1000}");
        assert_false(match_json_all_public(&light));
        check_output_all_readers(&tg_game, st, &light);
        assert_null(match_json_output(&tg_game, st, NULL, &match_runtime, NULL));
}

static void outputs_lists_what_each_reader_hears(void **state) {
        const void *st = &tg_state_good;
        struct eng_out *out = test_malloc(sizeof *out);
        struct eng_output *o;
        json_t *a;

        (void) state;
        eng_out_reset(out, ENG_NEVER);
        o = eng_out_push(out, &tg_ev_scored, 2, 1);
        o->v[1] = 1;
        o->v[2] = 3;
        o = eng_out_push(out, &tg_ev_dealt, 1, 2);
        o->v[0] = 4;
        eng_out_push(out, &tg_ev_audit, ENG_SEAT_TABLE, 3);
        eng_out_push(out, &eng_req_window_close, ENG_SEAT_TABLE, 4);
        o = eng_out_push(out, &tg_ev_ranked, ENG_SEAT_TABLE, 5);
        o->v[RK_LEADER] = ENG_SEAT_TABLE;
        eng_out_push(out, &eng_ev_match_started, ENG_SEAT_TABLE, 6);

        a = match_json_outputs(&tg_game, st, out, &match_public);
        assert_json_new(a, "[{\"kind\": \"scored\", \"seat\": 3, \"at_us\": 1, \"points\": 0, \"call\": 1,"
                           "  \"call_name\": \"high\"},"
                           " {\"kind\": \"ranked\", \"seat\": null, \"at_us\": 5, \"places\": [], \"leader\": null,"
                           "  \"lights\": [], \"cards\": [], \"flags\": []},"
                           " {\"kind\": \"match_started\", \"seat\": null, \"at_us\": 6}]");
        a = match_json_outputs(&tg_game, st, out, &seat_reader[1]);
        assert_int_equal(json_array_size(a), 4);
        assert_string_equal(str(json_array_get(a, 1), "kind"), "dealt");
        assert_null(json_object_get(json_array_get(a, 0), "hand"));
        json_decref(a);
        a = match_json_outputs(&tg_game, st, out, &seat_reader[2]);
        assert_int_equal(json_array_size(a), 3);
        assert_non_null(json_object_get(json_array_get(a, 0), "hand"));
        json_decref(a);
        a = match_json_outputs(&tg_game, st, out, &match_referee);
        assert_int_equal(json_array_size(a), 5);
        assert_string_equal(str(json_array_get(a, 2), "kind"), "audit");
        assert_string_equal(str(json_array_get(a, 0), "reason"), "skill");
        json_decref(a);
        /* none heard: an empty list */
        eng_out_reset(out, ENG_NEVER);
        eng_out_push(out, &tg_ev_audit, ENG_SEAT_TABLE, 3);
        assert_json_new(match_json_outputs(&tg_game, st, out, &match_public), "[]");
        test_free(out);
}

/* Every output of m's last input, for every reader. */
static void cp_check_outputs(const struct cp_match *m) {
        for (size_t i = 0; i < m->out.n; i++)
                check_output_all_readers(&cp_game, &m->st, &m->out.v[i]);
}

/* Crash Pilot's outputs from a created match: cards as their handle and
 * face, calls with their names, seats from 1. */
static void crash_pilot_outputs(void **state) {
        struct cp_match *m = test_malloc(sizeof *m);
        const struct eng_output *o;
        char want[512], hex[9], name[CP_CARD_NAME_MAX];
        uint8_t card;
        int call;

        (void) state;
        cp_match_init(m, 3, 2024);
        assert_int_equal(cp_table_input(m, ENG_IN_START), ENG_ACCEPTED);
        cp_check_outputs(m);
        o = cp_output(m, &cp_ev_card_revealed);
        card = m->st.t.face_up;
        snprintf(hex, sizeof hex, "%08" PRIx32, cp_handle(&m->st, card));
        snprintf(want, sizeof want,
                 "{\"kind\": \"card_revealed\", \"seat\": null, \"at_us\": %" PRId64 ","
                 " \"card\": {\"handle\": \"%s\", \"object\": %u, \"colour\": %u, \"name\": \"%s\"},"
                 " \"source\": \"neutral\", \"source_seat\": null, \"reveal\": 1}",
                 T0_US, hex, CP_CARD_OBJECT(card), CP_CARD_COLOUR(card), cp_card_name(card, name));
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        assert_json_new(match_json_output(&cp_game, &m->st, o, &match_public, NULL), want);
        /* the handle is no card id: the face is the card's, the handle not its id */
        assert_true(cp_handle(&m->st, card) != card);
        /* a window for the runtime only */
        o = cp_output(m, &eng_req_window_open);
        assert_null(match_json_output(&cp_game, &m->st, o, &match_referee, NULL));
        snprintf(want, sizeof want, "{\"kind\": \"window_open\", \"seat\": null, \"at_us\": %" PRId64 ","
                                    " \"window\": 1, \"seats\": [1, 2, 3]}", T0_US);
        assert_json_new(match_json_output(&cp_game, &m->st, o, &match_runtime, NULL), want);

        /* seat 2 calls wrong */
        call = cp_wrong_call(m);
        assert_int_equal(cp_call(m, 1, call), ENG_ACCEPTED);
        cp_check_outputs(m);
        o = cp_output(m, &cp_ev_call_judged);
        snprintf(want, sizeof want,
                 "{\"kind\": \"call_judged\", \"seat\": 2, \"at_us\": %" PRId64 ", \"call\": %d, \"call_name\": \"%s\","
                 " \"verdict\": \"wrong\", \"reaction_us\": %d, \"window\": 1,"
                 " \"card\": {\"handle\": \"%s\", \"object\": %u, \"colour\": %u, \"name\": \"%s\"}}",
                 m->now, call, eng_call_name(&cp_game, call), REACTION_US, hex, CP_CARD_OBJECT(card),
                 CP_CARD_COLOUR(card), cp_card_name(card, name));
        assert_json_new(match_json_output(&cp_game, &m->st, o, &seat_reader[0], NULL), want);
        o = cp_output(m, &cp_ev_chip_given);
        snprintf(want, sizeof want, "{\"kind\": \"chip_given\", \"seat\": 2, \"at_us\": %" PRId64 ", \"chips\": 1}",
                 m->now);
        assert_json_new(match_json_output(&cp_game, &m->st, o, &match_public, NULL), want);
        o = cp_output(m, &cp_ev_card_tucked);
        {
                json_t *j = match_json_output(&cp_game, &m->st, o, &match_public, NULL);

                assert_non_null(j);
                assert_string_equal(str(j, "cause"), "wrong_call");
                assert_string_equal(str(member(j, "card"), "handle"), hex);
                json_decref(j);
        }

        /* seats 1 and 2 tie; seat 1 wins the tiebreak */
        cp_next_card(m);
        cp_check_outputs(m);
        assert_int_equal(cp_tie(m, 0x3), ENG_ACCEPTED);
        cp_check_outputs(m);
        {
                json_t *j = match_json_output(&cp_game, &m->st, cp_output(m, &cp_ev_tiebreak_started), &match_public,
                                              NULL);

                assert_json(member(j, "seats"), "[1, 2]");
                assert_json(member(j, "calls"), "[]");
                json_decref(j);
        }
        cp_next_card(m);
        cp_check_outputs(m);
        assert_int_equal(cp_call(m, 2, cp_right_call(m)), ENG_REFUSED_NOT_ALLOWED);
        cp_check_outputs(m);
        assert_int_equal(cp_call(m, 0, cp_right_call(m)), ENG_ACCEPTED);
        cp_check_outputs(m);
        test_free(m);
}

/* ---- Explanations. */

static struct eng_output *push(struct eng_out *out, const struct eng_event_def *def, int seat,
                               const int64_t *v, size_t n) {
        struct eng_output *o = eng_out_push(out, def, seat, 100);

        assert_non_null(o);
        memcpy(o->v, v, n * sizeof *v);
        return o;
}

#define PUSH(out, def, seat, ...) \
        push((out), (def), (seat), (const int64_t[]) { __VA_ARGS__ }, \
             sizeof((const int64_t[]) { __VA_ARGS__ }) / sizeof(int64_t))

static void explain_crash_pilot_outputs(void **state) {
        struct cp_match *m = test_malloc(sizeof *m);
        struct eng_out *out = test_malloc(sizeof *out);
        int64_t h;

        (void) state;
        cp_match_init(m, 3, 5);
        h = cp_handle(&m->st, CP_CARD(1, 3, 1));
        eng_out_reset(out, ENG_NEVER);
        PUSH(out, &cp_ev_call_judged, 1, 3, CP_VERDICT_WRONG, 0, 1, h);
        PUSH(out, &cp_ev_call_judged, 0, CP_CALL_DOESNT_FIT, CP_VERDICT_TOO_LATE, 0, 1, h);
        PUSH(out, &cp_ev_call_judged, 4, 0, CP_VERDICT_NOT_ALLOWED, 0, 1, h);
        PUSH(out, &cp_ev_card_revealed, ENG_SEAT_TABLE, h, CP_SOURCE_NEUTRAL, ENG_SEAT_TABLE, 1);
        PUSH(out, &cp_ev_card_revealed, 2, h, CP_SOURCE_STACK, 2, 2);
        PUSH(out, &eng_req_window_open, ENG_SEAT_TABLE, 1, 7);
        PUSH(out, &cp_ev_card_placed, 1, h, 4);
        PUSH(out, &cp_ev_card_tucked, ENG_SEAT_TABLE, h, CP_CAUSE_EXPIRED);
        PUSH(out, &cp_ev_tiebreak_started, ENG_SEAT_TABLE, 0x5, 2, 1, 7);
        PUSH(out, &eng_req_pad_buzz, 2, ENG_BUZZ_SHORT, 400);
        PUSH(out, &cp_ev_chip_given, 2, 2);
        PUSH(out, &cp_ev_player_eliminated, 2, 1);
        PUSH(out, &cp_ev_reveal_expired, ENG_SEAT_TABLE, h);
        PUSH(out, &cp_ev_call_voided, ENG_SEAT_TABLE, 12);
        PUSH(out, &eng_ev_match_started, ENG_SEAT_TABLE, 0);
        PUSH(out, &eng_ev_match_finished, ENG_SEAT_TABLE, 1, 2, 1, 3);
        PUSH(out, &eng_ev_match_finished, ENG_SEAT_TABLE, ENG_SEAT_TABLE, 1, 1, 3);
        PUSH(out, &eng_ev_inputs_voided, ENG_SEAT_TABLE, 5, 3);
        assert_json_new(match_json_explain(&cp_game, &m->st, out),
                        "[\"Seat 2 calls row 3: wrong.\","
                        " \"Seat 1 calls doesn't fit: too late.\","
                        " \"Seat 5 calls an unknown call: not allowed.\","
                        " \"A card is turned up from the neutral deck: the blue star.\","
                        " \"A card is turned up from their own stack: the blue star.\","
                        " \"The blue star goes into row 4.\","
                        " \"The blue star goes under the neutral deck as nobody called it.\","
                        " \"Seat 1 and seat 3 called at the same time: a tiebreak among them.\","
                        " \"Seat 3 takes a red chip (2 now).\","
                        " \"Seat 3 has three chips and is out.\","
                        " \"Nobody called the blue star in time.\","
                        " \"The referee undoes the resolution of input #12.\","
                        " \"The match starts.\","
                        " \"The match is over; seat 2 wins.\","
                        " \"The match is over; nobody wins.\","
                        " \"3 inputs from #5 on are voided: the match is back to just before #5.\"]");
        /* without a state, a card is its handle */
        eng_out_reset(out, ENG_NEVER);
        PUSH(out, &cp_ev_reveal_expired, ENG_SEAT_TABLE, 0xabc);
        assert_json_new(match_json_explain(&cp_game, NULL, out), "[\"Nobody called card 00000abc in time.\"]");
        eng_out_reset(out, ENG_NEVER);
        assert_json_new(match_json_explain(&cp_game, &m->st, out), "[]");
        test_free(out);
        test_free(m);
}

/* The referee's explanation covers the events of every audience but the
 * runtime's, with every field in words. */
static void explain_every_audience_and_type(void **state) {
        struct eng_out *out = test_malloc(sizeof *out);

        (void) state;
        eng_out_reset(out, ENG_NEVER);
        PUSH(out, &tg_ev_scored, 2, 5, 3, 14, 1);
        PUSH(out, &tg_ev_dealt, 1, 25, 4);
        PUSH(out, &tg_ev_dealt, ENG_SEAT_TABLE, 25, 0);
        PUSH(out, &tg_ev_audit, ENG_SEAT_TABLE, 9, 0x81);
        PUSH(out, &tg_ev_audit, ENG_SEAT_TABLE, 0, 0);
        PUSH(out, &eng_req_pad_lockout, 1, 3);
        PUSH(out, &tg_ev_ranked, ENG_SEAT_TABLE, 2, 1, 2, 4, 0, 0, 0, 0, 3, 5, 2, 1, 0xffffffff, 0, 0, 2, 1, 0);
        assert_json_new(match_json_explain(&tg_game, &tg_state_good, out),
                        "[\"Seat 3 scores 5 with middle by sheer luck; hand: the card (rank 2, suit diamonds,"
                        " court no).\","
                        " \"Seat 2 is dealt the card (rank 13, suit diamonds, court yes) (4 held).\","
                        " \"The table is dealt the card (rank 13, suit diamonds, court yes) (0 held).\","
                        " \"Audit 9 of seat 1 and seat 8 at {nope}.\","
                        " \"Audit 0 of no seat at {nope}.\","
                        " \"Ranking: seat 2 place 1, seat 1 place 2, seat 3 place 2, seat 4 place 4; seat 4 leads,"
                        " cards card 00000001, card ffffffff, flags yes, no.\"]");
        test_free(out);
}

/* ---- Views. */

static json_t *cp_view_json(const struct cp_state *st, enum eng_audience a, int seat) {
        json_t *v = match_json_view(&cp_game, st, a, seat), *players, *p, *row, *c;
        size_t i, k;

        if (!v)
                fail_msg("no view for audience %d seat %d", a, seat);
        assert_string_equal(str(v, "game"), "crash-pilot");
        assert_string_equal(str(v, "audience"), eng_audience_name(a));
        assert_string_equal(str(v, "status"), match_json_status_name(cp_game.status(st)));
        /* a count is no seat */
        assert_int_equal(num(v, "seats"), st->n_seats);
        players = member(v, "players");
        assert_int_equal(json_array_size(players), st->n_seats);
        json_array_foreach(players, i, p) {
                assert_int_equal(num(p, "seat"), i + 1);
                assert_true(json_is_boolean(member(p, "winner")));
        }
        /* only a seat's screen has "you", only the referee's "can_void" */
        if (a == ENG_VIEW_SEAT) {
                assert_int_equal(num(member(v, "you"), "seat"), seat + 1);
                assert_true(json_equal(member(v, "you"), json_array_get(players, (size_t) seat)));
        } else {
                assert_null(json_object_get(v, "you"));
        }
        if (a == ENG_VIEW_REFEREE)
                assert_true(json_is_boolean(member(v, "can_void")));
        else
                assert_null(json_object_get(v, "can_void"));
        /* every card of a row as its handle and face */
        json_array_foreach(member(v, "rows"), i, row) {
                assert_int_equal(json_array_size(row), st->t.row_len[i]);
                json_array_foreach(row, k, c)
                        check_face(&cp_game, st, c, cp_handle(st, st->t.rows[i][k]), "rows");
        }
        if (st->t.winner >= 0)
                assert_int_equal(num(v, "winner"), st->t.winner + 1);
        else
                assert_true(json_is_null(member(v, "winner")));
        return v;
}

/* Every audience's view; returns the public one. */
static json_t *cp_views(const struct cp_state *st) {
        json_t *v;

        for (unsigned s = 0; s < st->n_seats; s++)
                json_decref(cp_view_json(st, ENG_VIEW_SEAT, (int) s));
        json_decref(cp_view_json(st, ENG_VIEW_REFEREE, -1));
        v = cp_view_json(st, ENG_VIEW_PUBLIC, -1);
        return v;
}

/* Seat 2 calls wrong three times and is out; seat 3 calls right until it
 * turns over its last card. */
static void cp_play_to_the_end(struct cp_match *m) {
        for (int i = 0; i < CP_CHIPS_OUT; i++) {
                assert_int_equal(cp_call(m, 1, cp_wrong_call(m)), ENG_ACCEPTED);
                cp_next_card(m);
        }
        for (int calls = 0; m->st.t.phase != CP_PHASE_FINISHED; calls++) {
                assert_true(calls < 100);
                assert_int_equal(cp_call(m, 2, cp_right_call(m)), ENG_ACCEPTED);
                if (m->st.t.phase == CP_PHASE_BETWEEN)
                        cp_next_card(m);
        }
        assert_int_equal(m->st.t.winner, 2);
}

static void crash_pilot_views(void **state) {
        struct cp_match *m = test_malloc(sizeof *m);
        json_t *v, *ref, *w;
        char hex[9];

        (void) state;
        cp_match_init(m, 3, 11);
        v = cp_views(&m->st);
        assert_string_equal(str(v, "status"), "ready");
        assert_true(json_is_null(member(v, "face_up")));
        assert_true(json_is_null(member(v, "window")));
        assert_json(member(v, "tiebreak"), "[]");
        json_decref(v);

        assert_int_equal(cp_table_input(m, ENG_IN_START), ENG_ACCEPTED);
        v = cp_views(&m->st);
        snprintf(hex, sizeof hex, "%08" PRIx32, cp_handle(&m->st, m->st.t.face_up));
        assert_string_equal(str(member(v, "face_up"), "handle"), hex);
        assert_string_equal(str(member(v, "face_up"), "source"), "neutral");
        assert_true(json_is_null(member(member(v, "face_up"), "seat")));
        w = member(v, "window");
        assert_int_equal(num(w, "id"), m->st.windows);
        assert_json(member(w, "seats"), "[1, 2, 3]");
        json_decref(v);

        /* seats 1 and 2 tie: the tiebreak and the next window are theirs */
        assert_int_equal(cp_tie(m, 0x3), ENG_ACCEPTED);
        cp_next_card(m);
        v = cp_views(&m->st);
        assert_json(member(v, "tiebreak"), "[1, 2]");
        assert_json(member(member(v, "window"), "seats"), "[1, 2]");
        json_decref(v);

        /* seat 1 wins it: its stack is next, and the last call is its */
        assert_int_equal(cp_call(m, 0, cp_right_call(m)), ENG_ACCEPTED);
        v = cp_views(&m->st);
        assert_string_equal(str(v, "phase"), "between");
        assert_string_equal(str(member(v, "next"), "source"), "stack");
        assert_int_equal(num(member(v, "next"), "seat"), 1);
        assert_int_equal(num(member(v, "last_call"), "seat"), 1);
        assert_string_equal(str(member(v, "last_call"), "call_name"), eng_call_name(&cp_game, m->st.t.last.call));
        json_decref(v);

        /* paused: the players' screens hide the card, the referee's does not */
        cp_next_card(m);
        m->now += 1000;
        assert_int_equal(cp_table_input(m, ENG_IN_PAUSE), ENG_ACCEPTED);
        v = cp_views(&m->st);
        assert_string_equal(str(v, "status"), "paused");
        assert_true(json_is_null(member(v, "face_up")));
        w = cp_view_json(&m->st, ENG_VIEW_SEAT, 2);
        assert_true(json_is_null(member(w, "face_up")));
        json_decref(w);
        ref = cp_view_json(&m->st, ENG_VIEW_REFEREE, -1);
        snprintf(hex, sizeof hex, "%08" PRIx32, cp_handle(&m->st, m->st.t.face_up));
        assert_string_equal(str(member(ref, "face_up"), "handle"), hex);
        json_decref(ref);
        json_decref(v);
        m->now += 1000;
        assert_int_equal(cp_table_input(m, ENG_IN_RESUME), ENG_ACCEPTED);

        cp_play_to_the_end(m);
        v = cp_views(&m->st);
        assert_true(json_is_true(member(json_array_get(member(v, "players"), 1), "out")));
        assert_string_equal(str(v, "status"), "finished");
        assert_int_equal(num(v, "winner"), 3);
        assert_true(json_is_true(member(json_array_get(member(v, "players"), 2), "winner")));
        assert_true(json_is_false(member(json_array_get(member(v, "players"), 0), "winner")));
        json_decref(v);

        /* no such seat, no state */
        assert_null(match_json_view(&cp_game, &m->st, ENG_VIEW_SEAT, 3));
        assert_null(match_json_view(&cp_game, &m->st, ENG_VIEW_SEAT, -1));
        assert_null(match_json_view(&cp_game, NULL, ENG_VIEW_PUBLIC, -1));
        assert_null(match_json_view(NULL, &m->st, ENG_VIEW_PUBLIC, -1));
        test_free(m);
}

/* The builder turns seats 1-based by the key convention of
 * docs/matches.md, "Seats in views". */
static void view_builder_converts_seats(void **state) {
        (void) state;
        assert_json_new(match_json_view(&tg_game, &tg_state_good, ENG_VIEW_PUBLIC, -1),
                        "{\"game\": \"test-game\", \"seat\": 1, \"winner\": null, \"next_seat\": 3, \"count\": 7, \"seats\": [1, 3],"
                        " \"tiebreak\": [2], \"other_seats\": [4, null], \"numbers\": [0, [5]],"
                        " \"nested\": {\"seats\": 4, \"winner\": true, \"name\": \"x\", \"none\": null,"
                        "  \"nothing\": null, \"players\": [{\"seat\": 2, \"chips\": 2}]}}");
}

static void view_builder_refuses_bad_walks(void **state) {
        (void) state;
        for (int w = TG_WALK_KEY_IN_ARRAY; w < TG_WALKS_END; w++) {
                struct tg_state st = { .magic = TG_MAGIC, .walk = (enum tg_walk) w };
                json_t *v = match_json_view(&tg_game, &st, ENG_VIEW_PUBLIC, -1);

                if (v)
                        fail_msg("walk %d gave a view", w);
        }
}

/* ---- Results. */

static void result_with_terms_teams_and_a_label(void **state) {
        static const int64_t terms[4][3] = { { 5, -1, 0 }, { 7, 0, 1 }, { 0, -3, 0 }, { 4, 0, 0 } };
        static const int8_t teams[4][2] = { { 0, 1 }, { 1, 0 }, { 0, 0 }, { 1, -1 } };
        struct eng_result r;
        uint64_t key[ENG_MAX_SEATS] = { 0 };

        (void) state;
        memset(&r, 0, sizeof r);
        r.finished = true;
        r.winner = 1;
        r.n_seats = 4;
        for (int s = 0; s < 4; s++) {
                memcpy(r.terms[s], terms[s], sizeof terms[s]);
                memcpy(r.team[s], teams[s], sizeof teams[s]);
        }
        eng_result_sum(&r, 3);
        for (int s = 0; s < 4; s++)
                key[s] = (uint64_t) (100 - r.score[s]);
        eng_result_rank(&r, key);
        r.n_stages = 2;
        r.label = "Solar-mighty";
        assert_json_new(match_json_result(&tg_game, &tg_state_good, &r),
                        "{\"finished\": true, \"winner\": 2, \"label\": \"Solar-mighty\", \"placements\": ["
                        " {\"seat\": 2, \"place\": 1, \"score\": {\"total\": 8,"
                        "   \"terms\": {\"points\": 7, \"penalty\": 0, \"bonus\": 1}}, \"teams\": [2, 1],"
                        "  \"stats\": {\"calls\": 10, \"best_seat\": 2, \"rival_seats\": [3], \"ratio\": null}},"
                        " {\"seat\": 1, \"place\": 2, \"score\": {\"total\": 4,"
                        "   \"terms\": {\"points\": 5, \"penalty\": -1, \"bonus\": 0}}, \"teams\": [1, 2],"
                        "  \"stats\": {\"calls\": 0, \"best_seat\": 1, \"rival_seats\": [2], \"ratio\": null}},"
                        " {\"seat\": 4, \"place\": 2, \"score\": {\"total\": 4,"
                        "   \"terms\": {\"points\": 4, \"penalty\": 0, \"bonus\": 0}}, \"teams\": [2, null],"
                        "  \"stats\": {\"calls\": 30, \"best_seat\": 4, \"rival_seats\": [1], \"ratio\": null}},"
                        " {\"seat\": 3, \"place\": 4, \"score\": {\"total\": -3,"
                        "   \"terms\": {\"points\": 0, \"penalty\": -3, \"bonus\": 0}}, \"teams\": [1, 1],"
                        "  \"stats\": {\"calls\": 20, \"best_seat\": 3, \"rival_seats\": [4], \"ratio\": null}}]}");

        /* provisional, shared, no stages, no label; no state: no stats */
        r.finished = false;
        r.winner = ENG_SEAT_TABLE;
        r.n_stages = 0;
        r.label = NULL;
        r.n_seats = 2;
        key[0] = key[1] = 1;
        eng_result_rank(&r, key);
        assert_json_new(match_json_result(&tg_game, NULL, &r),
                        "{\"finished\": false, \"winner\": null, \"placements\": ["
                        " {\"seat\": 1, \"place\": 1, \"score\": {\"total\": 4,"
                        "   \"terms\": {\"points\": 5, \"penalty\": -1, \"bonus\": 0}}, \"stats\": {}},"
                        " {\"seat\": 2, \"place\": 1, \"score\": {\"total\": 8,"
                        "   \"terms\": {\"points\": 7, \"penalty\": 0, \"bonus\": 1}}, \"stats\": {}}]}");
        assert_null(match_json_result(&tg_game, &tg_state_good, NULL));
        assert_null(match_json_result(NULL, &tg_state_good, &r));
}

static void result_of_a_crash_pilot_match(void **state) {
        struct cp_match *m = test_malloc(sizeof *m);
        struct eng_result r;
        json_t *j, *p;
        size_t i;

        (void) state;
        cp_match_init(m, 3, 77);
        assert_int_equal(cp_game.result(&m->st, &r), 0);
        j = match_json_result(&cp_game, &m->st, &r);
        assert_non_null(j);
        assert_true(json_is_false(member(j, "finished")));
        assert_true(json_is_null(member(j, "winner")));
        assert_null(json_object_get(j, "label"));
        assert_int_equal(json_array_size(member(j, "placements")), 3);
        json_array_foreach(member(j, "placements"), i, p) {
                assert_int_equal(num(p, "seat"), r.order[i] + 1);
                assert_int_equal(num(p, "place"), r.place[r.order[i]]);
                assert_json(member(p, "score"), "{\"total\": 0, \"terms\": {}}");
                assert_null(json_object_get(p, "teams"));
                assert_int_equal(num(member(p, "stats"), "calls"), 0);
                assert_true(json_is_null(member(member(p, "stats"), "reaction_avg_us")));
        }
        json_decref(j);

        assert_int_equal(cp_table_input(m, ENG_IN_START), ENG_ACCEPTED);
        cp_play_to_the_end(m);
        assert_int_equal(cp_game.result(&m->st, &r), 0);
        j = match_json_result(&cp_game, &m->st, &r);
        assert_non_null(j);
        assert_true(json_is_true(member(j, "finished")));
        assert_int_equal(num(j, "winner"), 3);
        p = json_array_get(member(j, "placements"), 0);
        assert_int_equal(num(p, "seat"), 3);
        assert_int_equal(num(p, "place"), 1);
        assert_int_equal(num(member(p, "stats"), "calls"), m->st.t.stats[2].calls);
        assert_int_equal(num(member(p, "stats"), "reaction_avg_us"), REACTION_US);
        p = json_array_get(member(j, "placements"), 2);
        assert_int_equal(num(p, "seat"), 2);
        assert_int_equal(num(p, "place"), 3);
        assert_true(json_is_true(member(member(p, "stats"), "eliminated")));
        assert_int_equal(num(member(p, "stats"), "eliminated_order"), 1);
        json_decref(j);
        test_free(m);
}

/* ---- Whole simulated matches: every input, output, explanation and view
 * of matches at every table size, ties, voids, pauses and refused junk
 * included. */

struct sim_ctx {
        size_t inputs, outputs, ties, voids, finished;
};

static size_t heard_events(const struct eng_out *out, const struct match_reader *r) {
        size_t n = 0;

        for (size_t i = 0; i < out->n; i++)
                n += !eng_output_is_request(&out->v[i]) && oracle_sees(out->v[i].def->audience, out->v[i].seat, r);
        return n;
}

static int sim_step(void *ctx, const struct cp_state *st, const struct eng_input *in, const struct eng_out *out) {
        const struct match_reader *readers[] = { &match_public, &seat_reader[0], &seat_reader[1], &match_referee };
        struct sim_ctx *c = ctx;
        json_t *j;
        size_t i;

        c->inputs++;
        j = match_json_input_to(&cp_game, in);
        if (j) {
                json_decref(j);
                assert_input_round_trip(&cp_game, in);
        } else {
                /* only the simulation's junk press, of no pad role, cannot be logged */
                assert_int_equal(in->kind, ENG_IN_PRESS);
                assert_int_equal(in->press.role, 0);
        }
        for (i = 0; i < out->n; i++) {
                const struct eng_output *o = &out->v[i];

                check_output_all_readers(&cp_game, st, o);
                c->outputs++;
                c->ties += o->def == &cp_ev_tiebreak_started;
                c->voids += o->def == &cp_ev_call_voided;
                c->finished += o->def == &eng_ev_match_finished;
        }
        for (size_t k = 0; k < ELEMENTSOF(readers); k++) {
                j = match_json_outputs(&cp_game, st, out, readers[k]);
                assert_non_null(j);
                assert_int_equal(json_array_size(j), heard_events(out, readers[k]));
                json_decref(j);
        }
        j = match_json_explain(&cp_game, st, out);
        assert_non_null(j);
        assert_int_equal(json_array_size(j), heard_events(out, &match_referee));
        for (i = 0; i < json_array_size(j); i++) {
                const char *s = json_string_value(json_array_get(j, i));

                assert_non_null(s);
                assert_true(s[0] >= 'A' && s[0] <= 'Z');
                assert_null(strchr(s, '{'));
        }
        json_decref(j);
        json_decref(cp_views(st));
        return 0;
}

/* Every view says its game and status, though Crazy Pilot's walk writes
 * neither: a station loads the game's module from its view alone. */
static void every_view_carries_its_game_and_status(void **state) {
        void *st = calloc(1, cz_game.state_size);
        struct eng_config cfg;
        (void) state;

        assert_non_null(st);
        eng_config_defaults(&cz_game, &cfg);
        assert_int_equal(cz_game.create(st, &cfg, NULL, 3, 7), 0);
        for (int a = ENG_VIEW_PUBLIC; a <= ENG_VIEW_REFEREE; a++) {
                json_t *v = match_json_view(&cz_game, st, (enum eng_audience) a, a == ENG_VIEW_SEAT ? 1 : -1);

                assert_non_null(v);
                assert_string_equal(json_string_value(json_object_get(v, "game")), "crazy-pilot");
                assert_string_equal(json_string_value(json_object_get(v, "status")), "ready");
                json_decref(v);
        }
        free(st);
}

static void simulated_matches(void **state) {
        struct cp_state *st = test_malloc(sizeof *st);
        struct cp_sim_params p;
        struct sim_ctx c;

        (void) state;
        memset(&c, 0, sizeof c);
        cp_sim_params_default(&p);
        for (unsigned n = CP_MIN_SEATS; n <= CP_MAX_SEATS; n++)
                for (uint64_t seed = 1; seed <= SIM_SEEDS; seed++) {
                        struct eng_config cfg;

                        assert_int_equal(match_json_config_from(&cp_game, NULL, NULL, n, &cfg, NULL), 0);
                        assert_int_equal(cp_sim_match(st, &cfg, n, seed, seed * 31, &p, NULL, 0, sim_step, &c, NULL),
                                         0);
                }
        assert_true(c.inputs > 500);
        assert_int_equal(c.finished, (CP_MAX_SEATS - CP_MIN_SEATS + 1) * SIM_SEEDS);
        assert_true(c.ties > 0);
        assert_true(c.voids > 0);
        test_free(st);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(status_names),
                cmocka_unit_test(game_describes_crash_pilot),
                cmocka_unit_test(game_describes_every_registered_game),
                cmocka_unit_test(game_lists_the_inputs_each_game_takes),
                cmocka_unit_test(game_describes_every_shape_of_the_test_game),
                cmocka_unit_test(config_null_is_the_defaults),
                cmocka_unit_test(config_nested_and_dotted),
                cmocka_unit_test(config_of_every_type),
                cmocka_unit_test(config_errors_name_the_field),
                cmocka_unit_test(config_round_trip),
                cmocka_unit_test(config_to_shape),
                cmocka_unit_test(data_files_from_and_to_json),
                cmocka_unit_test(input_round_trip_random),
                cmocka_unit_test(input_shapes),
                cmocka_unit_test(input_to_refuses_what_json_cannot_carry),
                cmocka_unit_test(input_from_errors_name_the_member),
                cmocka_unit_test(input_from_errors_of_every_type),
                cmocka_unit_test(input_request_fills_the_defaults),
                cmocka_unit_test(input_request_errors_name_the_member),
                cmocka_unit_test(unknown_kind_lists_the_inputs),
                cmocka_unit_test(outputs_show_each_reader_its_audience),
                cmocka_unit_test(outputs_lists_what_each_reader_hears),
                cmocka_unit_test(crash_pilot_outputs),
                cmocka_unit_test(explain_crash_pilot_outputs),
                cmocka_unit_test(explain_every_audience_and_type),
                cmocka_unit_test(crash_pilot_views),
                cmocka_unit_test(view_builder_converts_seats),
                cmocka_unit_test(view_builder_refuses_bad_walks),
                cmocka_unit_test(result_with_terms_teams_and_a_label),
                cmocka_unit_test(result_of_a_crash_pilot_match),
                cmocka_unit_test(simulated_matches),
                cmocka_unit_test(every_view_carries_its_game_and_status),
        };

        return cmocka_run_group_tests_name("match_json", tests, NULL, NULL);
}
