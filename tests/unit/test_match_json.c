/* daemon/match_json: configs, inputs, outputs, views and results as JSON.
 *
 * Two games are used: Crash Pilot, the real one, for everything a match
 * produces; and a small game defined here whose schema has every param
 * type (Crash Pilot has integers only) and whose view can be told to walk
 * badly, to check that a malformed walk gives NULL and not a wrong
 * document. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "match/json.h"
#include "engine/crash_pilot.h"
#include "engine/rng.h"

/* Random inputs per kind in the round-trip test: thousands in all. */
#define RANDOM_INPUTS_PER_KIND  2000
/* Random configs tried in the config round trip. */
#define RANDOM_CONFIGS          500
/* Simulated matches: seeds per player count. */
#define SIM_SEEDS               6
/* A scripted match ends well before this many calls (9 cards each). */
#define SCRIPT_MAX_CALLS        100
/* Microseconds between a press and the judge's verdict in the script. */
#define SETTLE_US               5000
#define REACTION_US             400000
#define T0_US                   INT64_C(1000000000)

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

/* A 1-based JSON seat (or null) against an engine seat. */
static void assert_seat(json_t *v, int seat) {
        if (seat < 0) {
                assert_true(json_is_null(v));
        } else {
                assert_true(json_is_integer(v));
                assert_int_equal(json_integer_value(v), seat + 1);
        }
}

/* A JSON list of 1-based seats against a mask. */
static void assert_seat_list(json_t *a, uint32_t mask) {
        uint32_t got = 0;
        json_t *v;
        size_t i;

        assert_true(json_is_array(a));
        json_array_foreach(a, i, v) {
                assert_true(json_is_integer(v));
                assert_in_range(json_integer_value(v), 1, ENG_MAX_SEATS);
                got |= UINT32_C(1) << (json_integer_value(v) - 1);
        }
        assert_int_equal(got, mask);
        assert_int_equal(json_array_size(a), __builtin_popcount(mask));
}

static const struct eng_game *crash_pilot(void) {
        const struct eng_game *g = eng_game_find("crash-pilot");

        assert_non_null(g);
        return g;
}

/* ---- A test game: every param type, nested three deep, and a view that
 * walks well or badly as its seat says. */

enum { TG_N, TG_FLAG, TG_MODE, TG_DEEP, TG_N_PARAMS };

static const char *const tg_modes[] = { "fast", "slow", "careful" };

static const struct eng_param tg_params[TG_N_PARAMS] = {
        [TG_N] = { .key = "a.n", .type = ENG_PARAM_INT, .min = -5, .max = 5, .def = 1,
                   .unit = "cards", .doc = "A number." },
        [TG_FLAG] = { .key = "a.flag", .type = ENG_PARAM_BOOL, .min = 0, .max = 1, .def = 0,
                      .doc = "A switch." },
        [TG_MODE] = { .key = "mode", .type = ENG_PARAM_ENUM, .min = 0, .max = 2, .def = 1,
                      .choices = tg_modes, .doc = "A choice." },
        [TG_DEEP] = { .key = "x.y.z", .type = ENG_PARAM_INT, .min = 0, .max = 100, .def = 50,
                      .doc = "Deep." },
};

static int tg_validate(const struct eng_config *cfg, unsigned n_seats, struct eng_error *ret_err) {
        (void) n_seats;
        if (cfg->v[TG_N] == -5 && cfg->v[TG_FLAG])
                return eng_error_set(ret_err, "a.flag", "cannot be on with a.n at -5");
        return 0;
}

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
};

static int tg_view(const void *state, enum eng_audience audience, int seat,
                   const struct eng_visitor *v, void *ctx) {
        (void) state;
        (void) audience;
        switch ((enum tg_walk) seat) {
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
                v->array_end(ctx);
                v->array_begin(ctx, "numbers");
                v->integer(ctx, NULL, 0);
                v->array_end(ctx);
                v->object_begin(ctx, "nested");
                v->integer(ctx, "seats", 4);
                v->boolean(ctx, "winner", true);
                v->string(ctx, "name", "x");
                v->null(ctx, "nothing");
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

static int tg_card_visit(uint32_t card, const struct eng_visitor *v, void *ctx) {
        return v->string(ctx, "name", card == 1 ? "ace" : "other");
}

static const char *tg_call_name(int call) {
        return call == 1 ? "one" : NULL;
}

static int tg_call_of_button(unsigned button, int *ret_call) {
        if (button != 3)
                return -EINVAL;
        *ret_call = 1;
        return 0;
}

static const struct eng_game tg_game = {
        .name = "test-game",
        .display_name = "Test Game",
        .min_seats = 1,
        .max_seats = 8,
        .params = tg_params,
        .n_params = TG_N_PARAMS,
        .max_outputs = 1,
        .validate = tg_validate,
        .view = tg_view,
        .card_visit = tg_card_visit,
        .call_name = tg_call_name,
        .call_of_button = tg_call_of_button,
};

/* ---- Names. */

static void names_round_trip(void **state) {
        (void) state;

        for (int k = ENG_IN_START; k <= ENG_IN_REFEREE; k++) {
                const char *n = match_json_kind_name((enum eng_input_kind) k);

                assert_non_null(n);
                assert_int_equal(match_json_kind_from_name(n), k);
        }
        assert_string_equal(match_json_kind_name(ENG_IN_CALL), "call");
        assert_string_equal(match_json_kind_name(ENG_IN_REFEREE), "referee");
        assert_null(match_json_kind_name((enum eng_input_kind) 0));
        assert_null(match_json_kind_name((enum eng_input_kind) 99));
        assert_int_equal(match_json_kind_from_name("jump"), -EINVAL);
        assert_int_equal(match_json_kind_from_name(NULL), -EINVAL);

        for (int v = ENG_VERDICT_CORRECT; v <= ENG_VERDICT_NOT_ALLOWED; v++)
                assert_int_equal(match_json_verdict_from_name(
                                         match_json_verdict_name((enum eng_verdict) v)), v);
        assert_string_equal(match_json_verdict_name(ENG_VERDICT_TOO_LATE), "too_late");
        assert_null(match_json_verdict_name((enum eng_verdict) 0));

        static const char *const statuses[] = { "ready", "running", "paused", "finished" };
        for (int s = ENG_STATUS_READY; s <= ENG_STATUS_FINISHED; s++) {
                assert_string_equal(match_json_status_name((enum eng_status) s),
                                    statuses[s - ENG_STATUS_READY]);
                assert_int_equal(match_json_status_from_name(statuses[s - ENG_STATUS_READY]), s);
        }
        assert_null(match_json_status_name((enum eng_status) 7));
        assert_int_equal(match_json_status_from_name("over"), -EINVAL);

        assert_string_equal(match_json_output_name(ENG_EV_GAME), "game_event");
        assert_string_equal(match_json_output_name(ENG_REQ_PAD_LOCKOUT), "pad_lockout");
        assert_null(match_json_output_name((enum eng_output_kind) 40));
}

/* ---- Games. */

static void game_describes_crash_pilot(void **state) {
        const struct eng_game *g = crash_pilot();
        json_t *j = match_json_game(g), *params, *p, *calls, *c;
        size_t i;
        (void) state;

        assert_non_null(j);
        assert_string_equal(str(j, "name"), "crash-pilot");
        assert_string_equal(str(j, "display_name"), "Crash Pilot");
        assert_int_equal(num(j, "min_seats"), CP_MIN_SEATS);
        assert_int_equal(num(j, "max_seats"), CP_MAX_SEATS);
        params = member(j, "params");
        assert_int_equal(json_array_size(params), g->n_params);
        json_array_foreach(params, i, p) {
                assert_string_equal(str(p, "key"), g->params[i].key);
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
        assert_int_equal(num(member(member(j, "defaults"), "deck"), "copies"),
                         g->params[CP_PARAM_COPIES].def);
        calls = member(j, "calls");
        assert_int_equal(json_array_size(calls), CP_PAD_BUTTONS);
        json_array_foreach(calls, i, c) {
                assert_int_equal(num(c, "button"), i);
                assert_int_equal(num(c, "call"), i == CP_BUTTON_DOESNT_FIT ? CP_CALL_DOESNT_FIT
                                                                           : (json_int_t) i + 1);
        }
        assert_string_equal(str(json_array_get(calls, 0), "name"), "row 1");
        assert_string_equal(str(json_array_get(calls, CP_BUTTON_DOESNT_FIT), "name"), "doesn't fit");
        json_decref(j);
}

static void game_describes_every_param_type(void **state) {
        json_t *j = match_json_game(&tg_game), *params, *flag, *mode, *choices, *expected;
        (void) state;

        assert_non_null(j);
        params = member(j, "params");
        flag = json_array_get(params, TG_FLAG);
        assert_string_equal(str(flag, "type"), "bool");
        assert_true(json_is_false(member(flag, "default")));
        assert_null(json_object_get(flag, "min"));
        assert_null(json_object_get(flag, "choices"));
        assert_true(json_is_null(member(flag, "unit")));
        mode = json_array_get(params, TG_MODE);
        assert_string_equal(str(mode, "type"), "enum");
        assert_string_equal(str(mode, "default"), "slow");
        choices = member(mode, "choices");
        expected = parse("[\"fast\", \"slow\", \"careful\"]");
        assert_true(json_equal(choices, expected));
        json_decref(expected);
        assert_string_equal(str(json_array_get(params, TG_N), "unit"), "cards");
        assert_int_equal(num(json_array_get(params, TG_N), "min"), -5);

        expected = parse("{\"a\": {\"n\": 1, \"flag\": false}, \"mode\": \"slow\","
                         " \"x\": {\"y\": {\"z\": 50}}}");
        assert_true(json_equal(member(j, "defaults"), expected));
        json_decref(expected);
        expected = parse("[{\"button\": 3, \"call\": 1, \"name\": \"one\"}]");
        assert_true(json_equal(member(j, "calls"), expected));
        json_decref(expected);
        json_decref(j);
        assert_null(match_json_game(NULL));
}

/* ---- Config from JSON. */

static void config_defaults(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_config cfg, def;
        struct eng_error err;
        json_t *null = json_null(), *empty = json_object();
        (void) state;

        eng_config_defaults(g, &def);
        assert_int_equal(match_json_config_from(g, NULL, 3, &cfg, &err), 0);
        assert_memory_equal(&cfg, &def, sizeof cfg);
        assert_int_equal(match_json_config_from(g, null, 3, &cfg, &err), 0);
        assert_memory_equal(&cfg, &def, sizeof cfg);
        assert_int_equal(match_json_config_from(g, empty, 3, &cfg, NULL), 0);
        assert_memory_equal(&cfg, &def, sizeof cfg);
        json_decref(null);
        json_decref(empty);
}

static void config_nested_and_dotted(void **state) {
        const struct eng_game *g = crash_pilot();
        static const char *const bodies[] = {
                "{\"deck\": {\"objects\": 7, \"copies\": 3}, \"reveal\": {\"pause_ms\": 0}}",
                "{\"deck.objects\": 7, \"deck.copies\": 3, \"reveal.pause_ms\": 0}",
                "{\"deck\": {\"objects\": 7}, \"deck.copies\": 3, \"reveal\": {\"pause_ms\": 0}}",
        };
        struct eng_config cfg;
        struct eng_error err;
        (void) state;

        for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
                json_t *j = parse(bodies[i]);

                assert_int_equal(match_json_config_from(g, j, 4, &cfg, &err), 0);
                assert_int_equal(cfg.v[CP_PARAM_OBJECTS], 7);
                assert_int_equal(cfg.v[CP_PARAM_COLOURS], g->params[CP_PARAM_COLOURS].def);
                assert_int_equal(cfg.v[CP_PARAM_COPIES], 3);
                assert_int_equal(cfg.v[CP_PARAM_PAUSE_MS], 0);
                assert_int_equal(cfg.v[CP_PARAM_TIMEOUT_MS], g->params[CP_PARAM_TIMEOUT_MS].def);
                json_decref(j);
        }
}

static void config_bool_and_enum(void **state) {
        struct eng_config cfg;
        struct eng_error err;
        json_t *j = parse("{\"a\": {\"flag\": true, \"n\": -2}, \"mode\": \"careful\","
                          " \"x.y\": {\"z\": 9}}");
        (void) state;

        assert_int_equal(match_json_config_from(&tg_game, j, 1, &cfg, &err), 0);
        assert_int_equal(cfg.v[TG_FLAG], 1);
        assert_int_equal(cfg.v[TG_N], -2);
        assert_int_equal(cfg.v[TG_MODE], 2);
        assert_int_equal(cfg.v[TG_DEEP], 9);
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
                /* a group given a value */
                { NULL, "{\"deck\": 2}", 3, "deck", "must be an object" },
                /* wrong types */
                { NULL, "{\"deck\": {\"copies\": \"2\"}}", 3, "deck.copies", "whole number" },
                { NULL, "{\"deck\": {\"copies\": 2.0}}", 3, "deck.copies", "whole number" },
                { NULL, "{\"deck.copies\": true}", 3, "deck.copies", "whole number" },
                { NULL, "{\"deck.copies\": null}", 3, "deck.copies", "whole number" },
                { &tg_game, "{\"a\": {\"flag\": 1}}", 1, "a.flag", "true or false" },
                { &tg_game, "{\"mode\": 2}", 1, "mode", "fast, slow, careful" },
                { &tg_game, "{\"mode\": \"quick\"}", 1, "mode", "fast, slow, careful" },
                /* out of range */
                { NULL, "{\"deck\": {\"copies\": 9}}", 3, "deck.copies", "1..4" },
                { NULL, "{\"reveal.timeout_ms\": 5}", 3, "reveal.timeout_ms", "ms" },
                { &tg_game, "{\"x\": {\"y\": {\"z\": 101}}}", 1, "x.y.z", "0..100" },
                /* the same setting twice */
                { NULL, "{\"deck\": {\"copies\": 2}, \"deck.copies\": 2}", 3, "deck.copies", "twice" },
                /* not an object */
                { NULL, "[1]", 3, "config", "object" },
                { NULL, "\"deck.copies=2\"", 3, "config", "object" },
                /* the seat count and the game's cross-field check */
                { NULL, "{}", 6, "seats", "2..5" },
                { NULL, "{}", 1, "seats", "2..5" },
                { NULL, "{\"deck\": {\"copies\": 1}}", 5, "deck.copies", "37" },
                { &tg_game, "{\"a\": {\"flag\": true, \"n\": -5}}", 1, "a.flag", "a.n" },
        };
        (void) state;

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const struct config_error_case *c = &cases[i];
                const struct eng_game *g = c->game ? c->game : crash_pilot();
                struct eng_config cfg;
                struct eng_error err;
                json_t *j = parse(c->body);

                memset(&err, 0, sizeof err);
                assert_int_equal(match_json_config_from(g, j, c->n_seats, &cfg, &err), -EINVAL);
                if (strcmp(err.field, c->field) != 0 || !strstr(err.message, c->words))
                        fail_msg("%s: got field \"%s\", message \"%s\"; want \"%s\" and \"%s\"",
                                 c->body, err.field, err.message, c->field, c->words);
                assert_int_equal(strncmp(err.message, c->field, strlen(c->field)), 0);
                /* ret_err may be NULL */
                assert_int_equal(match_json_config_from(g, j, c->n_seats, &cfg, NULL), -EINVAL);
                json_decref(j);
        }
}

/* ---- Config to JSON. */

static void config_round_trip(void **state) {
        const struct eng_game *games[] = { crash_pilot(), &tg_game };
        struct eng_rng rng;
        unsigned tried = 0;
        (void) state;

        eng_rng_seed(&rng, 42);
        for (size_t gi = 0; gi < 2; gi++) {
                const struct eng_game *g = games[gi];

                for (int i = 0; i < RANDOM_CONFIGS; i++) {
                        struct eng_config cfg, back;
                        unsigned n_seats = g->min_seats +
                                           (unsigned) eng_rng_below(&rng, g->max_seats - g->min_seats + 1);
                        json_t *j, *again;
                        char *text;

                        eng_config_defaults(g, &cfg);
                        for (size_t p = 0; p < g->n_params; p++) {
                                const struct eng_param *pa = &g->params[p];

                                cfg.v[p] = pa->min + (int64_t) eng_rng_below(&rng, (uint64_t) (pa->max - pa->min + 1));
                        }
                        if (eng_config_validate(g, &cfg, n_seats, NULL) < 0)
                                continue;
                        tried++;
                        j = match_json_config_to(g, &cfg);
                        assert_non_null(j);
                        /* through text, as a stored match's config goes */
                        text = json_dumps(j, JSON_COMPACT);
                        assert_non_null(text);
                        again = parse(text);
                        free(text);
                        assert_int_equal(match_json_config_from(g, again, n_seats, &back, NULL), 0);
                        assert_memory_equal(&cfg, &back, sizeof cfg);
                        json_decref(again);
                        json_decref(j);
                }
        }
        assert_true(tried > RANDOM_CONFIGS / 2);
}

static void config_to_shape(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_config cfg;
        json_t *j, *expected;
        (void) state;

        eng_config_defaults(g, &cfg);
        cfg.v[CP_PARAM_COPIES] = 3;
        j = match_json_config_to(g, &cfg);
        expected = parse("{\"deck\": {\"objects\": 6, \"colours\": 6, \"copies\": 3},"
                         " \"reveal\": {\"pause_ms\": 1000, \"timeout_ms\": 20000}}");
        assert_true(json_equal(j, expected));
        json_decref(expected);
        json_decref(j);

        eng_config_defaults(&tg_game, &cfg);
        cfg.v[TG_FLAG] = 1;
        cfg.v[TG_MODE] = 0;
        j = match_json_config_to(&tg_game, &cfg);
        expected = parse("{\"a\": {\"n\": 1, \"flag\": true}, \"mode\": \"fast\","
                         " \"x\": {\"y\": {\"z\": 50}}}");
        assert_true(json_equal(j, expected));
        json_decref(expected);
        json_decref(j);
}

/* ---- Inputs. */

static int64_t random_i64(struct eng_rng *rng) {
        /* The ends of the range now and then: they are where a conversion
         * would go wrong. */
        switch (eng_rng_below(rng, 16)) {
        case 0:
                return INT64_MIN;
        case 1:
                return INT64_MAX;
        case 2:
                return 0;
        default:
                return (int64_t) eng_rng_next(rng);
        }
}

static void random_input(struct eng_rng *rng, enum eng_input_kind kind, struct eng_input *ret) {
        memset(ret, 0, sizeof *ret);
        ret->seq = eng_rng_below(rng, 4) == 0 ? (uint64_t) INT64_MAX : eng_rng_next(rng) >> 1;
        ret->time_us = random_i64(rng);
        ret->seat = (int) eng_rng_below(rng, ENG_MAX_SEATS + 1) - 1;
        ret->kind = kind;
        switch (kind) {
        case ENG_IN_CALL:
                ret->call.window = (uint32_t) eng_rng_next(rng);
                ret->call.call = (int) (int32_t) (uint32_t) eng_rng_next(rng);
                if (eng_rng_below(rng, 2))
                        ret->call.call = 1 + (int) eng_rng_below(rng, CP_CALL_DOESNT_FIT);
                ret->call.press_us = random_i64(rng);
                break;
        case ENG_IN_TIE:
                ret->tie.window = (uint32_t) eng_rng_next(rng);
                ret->tie.seats = (uint32_t) eng_rng_below(rng, UINT64_C(1) << ENG_MAX_SEATS);
                ret->tie.press_us = random_i64(rng);
                break;
        case ENG_IN_PRESS:
                ret->press.button = (unsigned) eng_rng_next(rng);
                ret->press.press_us = random_i64(rng);
                break;
        case ENG_IN_REFEREE:
                ret->referee.op = (unsigned) eng_rng_next(rng);
                for (int i = 0; i < ENG_REFEREE_ARGS; i++)
                        ret->referee.arg[i] = random_i64(rng);
                break;
        default:
                break;
        }
}

/* in → JSON → text → JSON → input, which must be in again, byte for byte. */
static void assert_input_round_trip(const struct eng_game *g, const struct eng_input *in) {
        struct eng_input back;
        struct eng_error err;
        json_t *j = match_json_input_to(g, in), *again;
        char *text;

        assert_non_null(j);
        text = json_dumps(j, JSON_COMPACT);
        assert_non_null(text);
        again = parse(text);
        memset(&back, 0xa5, sizeof back);
        if (match_json_input_from(g, again, &back, &err) < 0)
                fail_msg("%s: %s", text, err.message);
        assert_memory_equal(&back, in, sizeof back);
        free(text);
        json_decref(again);
        json_decref(j);
}

static void input_round_trip_random(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_rng rng;
        (void) state;

        eng_rng_seed(&rng, 7);
        for (int k = ENG_IN_START; k <= ENG_IN_REFEREE; k++)
                for (int i = 0; i < RANDOM_INPUTS_PER_KIND; i++) {
                        struct eng_input in;

                        random_input(&rng, (enum eng_input_kind) k, &in);
                        assert_input_round_trip(i % 2 ? g : &tg_game, &in);
                }
}

static void input_shape(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_input in;
        json_t *j, *expected;
        (void) state;

        memset(&in, 0, sizeof in);
        in.seq = 12;
        in.time_us = 5000;
        in.seat = 1;
        in.kind = ENG_IN_CALL;
        in.call.window = 3;
        in.call.call = CP_CALL_DOESNT_FIT;
        in.call.press_us = 4000;
        j = match_json_input_to(g, &in);
        expected = parse("{\"seq\": 12, \"time_us\": 5000, \"seat\": 2, \"kind\": \"call\","
                         " \"window\": 3, \"call\": 7, \"call_name\": \"doesn't fit\","
                         " \"press_us\": 4000}");
        assert_true(json_equal(j, expected));
        json_decref(expected);
        json_decref(j);

        memset(&in, 0, sizeof in);
        in.seq = 13;
        in.time_us = 6000;
        in.seat = ENG_SEAT_TABLE;
        in.kind = ENG_IN_TIE;
        in.tie.window = 4;
        in.tie.seats = 0x5;
        in.tie.press_us = 5500;
        j = match_json_input_to(g, &in);
        expected = parse("{\"seq\": 13, \"time_us\": 6000, \"seat\": null, \"kind\": \"tie\","
                         " \"window\": 4, \"seats\": [1, 3], \"press_us\": 5500}");
        assert_true(json_equal(j, expected));
        json_decref(expected);
        json_decref(j);

        memset(&in, 0, sizeof in);
        in.kind = ENG_IN_REFEREE;
        in.seat = ENG_SEAT_TABLE;
        in.referee.op = CP_REFEREE_VOID;
        in.referee.arg[1] = -4;
        j = match_json_input_to(g, &in);
        expected = parse("{\"seq\": 0, \"time_us\": 0, \"seat\": null, \"kind\": \"referee\","
                         " \"op\": 1, \"args\": [0, -4, 0, 0, 0, 0]}");
        assert_true(json_equal(j, expected));
        json_decref(expected);
        json_decref(j);

        /* shorter args are padded with zeros; call_name is not read */
        j = parse("{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"referee\","
                  " \"op\": 1, \"args\": [5]}");
        assert_int_equal(match_json_input_from(g, j, &in, NULL), 0);
        assert_int_equal(in.referee.arg[0], 5);
        assert_int_equal(in.referee.arg[1], 0);
        json_decref(j);
        j = parse("{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"window\": 1,"
                  " \"call\": 2, \"call_name\": \"row 6\", \"press_us\": 0}");
        assert_int_equal(match_json_input_from(g, j, &in, NULL), 0);
        assert_int_equal(in.call.call, 2);
        assert_int_equal(in.seat, 0);
        json_decref(j);
}

static void input_to_refuses_what_json_cannot_carry(void **state) {
        const struct eng_game *g = crash_pilot();
        struct eng_input in;
        (void) state;

        memset(&in, 0, sizeof in);
        in.kind = ENG_IN_START;
        in.seat = ENG_SEAT_TABLE;
        in.seq = (uint64_t) INT64_MAX + 1;
        assert_null(match_json_input_to(g, &in));
        in.seq = 1;
        in.seat = ENG_MAX_SEATS;
        assert_null(match_json_input_to(g, &in));
        in.seat = -2;
        assert_null(match_json_input_to(g, &in));
        in.seat = 0;
        in.kind = (enum eng_input_kind) 0;
        assert_null(match_json_input_to(g, &in));
        in.kind = ENG_IN_TIE;
        in.tie.seats = UINT32_C(1) << ENG_MAX_SEATS;
        assert_null(match_json_input_to(g, &in));
        assert_null(match_json_input_to(g, NULL));
}

struct input_error_case {
        const char *body;
        const char *field;
        const char *words;
};

static void input_errors_name_the_field(void **state) {
        static const struct input_error_case cases[] = {
                { "[]", "input", "object" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null}", "kind", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"jump\"}", "kind", "one of" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": 3}", "kind", "one of" },
                { "{\"time_us\": 0, \"seat\": null, \"kind\": \"start\"}", "seq", "missing" },
                { "{\"seq\": -1, \"time_us\": 0, \"seat\": null, \"kind\": \"start\"}", "seq", "whole number" },
                { "{\"seq\": \"1\", \"time_us\": 0, \"seat\": null, \"kind\": \"start\"}", "seq", "whole number" },
                { "{\"seq\": 1, \"seat\": null, \"kind\": \"start\"}", "time_us", "missing" },
                { "{\"seq\": 1, \"time_us\": 1.5, \"seat\": null, \"kind\": \"start\"}", "time_us", "whole number" },
                { "{\"seq\": 1, \"time_us\": 0, \"kind\": \"start\"}", "seat", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 0, \"kind\": \"start\"}", "seat", "1..8" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 9, \"kind\": \"start\"}", "seat", "1..8" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": \"2\", \"kind\": \"start\"}", "seat", "1..8" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"start\", \"window\": 1}",
                  "window", "not a member of a start input" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"timer\", \"extra\": 1}",
                  "extra", "not a member" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"call\": 1, \"press_us\": 0}",
                  "window", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"window\": -1,"
                  " \"call\": 1, \"press_us\": 0}", "window", "0..4294967295" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"window\": 4294967296,"
                  " \"call\": 1, \"press_us\": 0}", "window", "0..4294967295" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"window\": 1,"
                  " \"call\": \"row 1\", \"press_us\": 0}", "call", "whole number" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"call\", \"window\": 1,"
                  " \"call\": 1}", "press_us", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"tie\", \"window\": 1,"
                  " \"press_us\": 0}", "seats", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"tie\", \"window\": 1,"
                  " \"seats\": 3, \"press_us\": 0}", "seats", "list" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"tie\", \"window\": 1,"
                  " \"seats\": [1, 0], \"press_us\": 0}", "seats[1]", "1..8" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"tie\", \"window\": 1,"
                  " \"seats\": [2, 2], \"press_us\": 0}", "seats[1]", "twice" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": 1, \"kind\": \"press\", \"button\": -1,"
                  " \"press_us\": 0}", "button", "whole number" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"referee\", \"args\": []}",
                  "op", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"referee\", \"op\": 1}",
                  "args", "missing" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"referee\", \"op\": 1,"
                  " \"args\": [1, 2, 3, 4, 5, 6, 7]}", "args", "at most 6" },
                { "{\"seq\": 1, \"time_us\": 0, \"seat\": null, \"kind\": \"referee\", \"op\": 1,"
                  " \"args\": [1, \"x\"]}", "args[1]", "whole number" },
        };
        const struct eng_game *g = crash_pilot();
        (void) state;

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct eng_input in;
                struct eng_error err;
                json_t *j = parse(cases[i].body);

                memset(&err, 0, sizeof err);
                assert_int_equal(match_json_input_from(g, j, &in, &err), -EINVAL);
                if (strcmp(err.field, cases[i].field) != 0 || !strstr(err.message, cases[i].words))
                        fail_msg("%s: got field \"%s\", message \"%s\"; want \"%s\" and \"%s\"",
                                 cases[i].body, err.field, err.message, cases[i].field,
                                 cases[i].words);
                assert_int_equal(match_json_input_from(g, j, &in, NULL), -EINVAL);
                json_decref(j);
        }
}

/* ---- Outputs. */

static void assert_card(const struct eng_game *g, json_t *card, uint32_t id) {
        assert_true(json_is_object(card));
        assert_int_equal(num(card, "id"), id);
        if (g == &tg_game) {
                assert_non_null(json_object_get(card, "name"));
        } else {
                assert_int_equal(num(card, "object"), CP_CARD_OBJECT(id));
                assert_int_equal(num(card, "colour"), CP_CARD_COLOUR(id));
        }
}

/* Every member of o's JSON against the struct it came from. */
static void check_output(const struct eng_game *g, const struct eng_output *o) {
        const char *name = NULL;
        json_t *j = match_json_output(g, o, &name), *a, *e;
        size_t i;

        assert_non_null(j);
        assert_non_null(name);
        assert_string_equal(name, match_json_output_name(o->kind));
        assert_string_equal(str(j, "kind"), name);
        assert_seat(member(j, "seat"), o->seat);
        assert_int_equal(num(j, "at_us"), o->at_us);

        switch (o->kind) {
        case ENG_EV_CARD_REVEALED:
                assert_card(g, member(j, "card"), o->revealed.card);
                assert_string_equal(str(j, "source"),
                                    o->revealed.source == ENG_SOURCE_NEUTRAL ? "neutral"
                                    : o->revealed.source == ENG_SOURCE_AGAIN ? "again" : "stack");
                assert_seat(member(j, "source_seat"), o->revealed.source >= 0 ? o->revealed.source : -1);
                assert_int_equal(num(j, "reveal"), o->revealed.reveal);
                break;
        case ENG_EV_CALL_JUDGED:
                assert_int_equal(num(j, "call"), o->judged.call);
                if (g->call_name(o->judged.call))
                        assert_string_equal(str(j, "call_name"), g->call_name(o->judged.call));
                else
                        assert_true(json_is_null(member(j, "call_name")));
                assert_string_equal(str(j, "verdict"), match_json_verdict_name(o->judged.verdict));
                assert_int_equal(num(j, "reaction_us"), o->judged.reaction_us);
                assert_int_equal(num(j, "window"), o->judged.window);
                assert_card(g, member(j, "card"), o->judged.card);
                break;
        case ENG_EV_TIEBREAK_STARTED:
                assert_seat_list(member(j, "seats"), o->tiebreak.seats);
                break;
        case ENG_EV_CARD_PLACED:
                assert_card(g, member(j, "card"), o->placed.card);
                assert_int_equal(num(j, "row"), o->placed.row);
                break;
        case ENG_EV_CARD_TUCKED: {
                static const char *const causes[] = { NULL, "wrong_call", "doesnt_fit", "tie", "expired" };

                assert_card(g, member(j, "card"), o->tucked.card);
                assert_string_equal(str(j, "cause"), causes[o->tucked.cause]);
                break;
        }
        case ENG_EV_CHIP_GIVEN:
                assert_int_equal(num(j, "chips"), o->chip.chips);
                break;
        case ENG_EV_PLAYER_ELIMINATED:
                assert_int_equal(num(j, "order"), o->eliminated.order);
                break;
        case ENG_EV_REVEAL_EXPIRED:
                assert_card(g, member(j, "card"), o->expired.card);
                break;
        case ENG_EV_CALL_VOIDED:
                assert_int_equal(num(j, "voided_seq"), o->voided.seq);
                break;
        case ENG_EV_SCORE_CHANGED:
                assert_int_equal(num(j, "delta"), o->score.delta);
                assert_int_equal(num(j, "total"), o->score.total);
                break;
        case ENG_EV_GAME:
                assert_int_equal(num(j, "code"), o->game.code);
                a = member(j, "args");
                assert_int_equal(json_array_size(a), 4);
                json_array_foreach(a, i, e)
                        assert_int_equal(json_integer_value(e), o->game.arg[i]);
                break;
        case ENG_EV_MATCH_FINISHED: {
                unsigned last = 0;

                assert_seat(member(j, "winner"), o->finished.winner);
                a = member(j, "placements");
                assert_int_equal(json_array_size(a), o->finished.n_seats);
                json_array_foreach(a, i, e) {
                        json_int_t s = num(e, "seat"), p = num(e, "place");

                        assert_in_range(s, 1, o->finished.n_seats);
                        assert_int_equal(p, o->finished.place[s - 1]);
                        assert_true((unsigned) p >= last);
                        last = (unsigned) p;
                }
                break;
        }
        case ENG_REQ_WINDOW_OPEN:
                assert_int_equal(num(j, "window"), o->window.window);
                assert_seat_list(member(j, "seats"), o->window.seats);
                break;
        case ENG_REQ_WINDOW_CLOSE:
                assert_int_equal(num(j, "window"), o->window.window);
                break;
        case ENG_REQ_PAD_LIGHT: {
                static const char *const modes[] = { "off", "on", "blink" };

                if (o->light.button == ENG_BUTTON_ALL)
                        assert_true(json_is_null(member(j, "button")));
                else
                        assert_int_equal(num(j, "button"), o->light.button);
                assert_string_equal(str(j, "mode"), modes[o->light.mode]);
                assert_int_equal(num(j, "duration_ms"), o->light.duration_ms);
                break;
        }
        case ENG_REQ_PAD_BUZZ: {
                static const char *const patterns[] = { "steady", "short", "long_short" };

                assert_string_equal(str(j, "pattern"), patterns[o->buzz.pattern]);
                assert_int_equal(num(j, "duration_ms"), o->buzz.duration_ms);
                break;
        }
        case ENG_REQ_PAD_LOCKOUT: {
                uint32_t mask = 0;

                a = member(j, "buttons");
                json_array_foreach(a, i, e)
                        mask |= UINT32_C(1) << json_integer_value(e);
                assert_int_equal(mask, o->lockout.buttons);
                break;
        }
        default:
                assert_int_equal(json_object_size(j), 3);
                break;
        }
        json_decref(j);
}

static void output_of_every_kind(void **state) {
        struct eng_output o;
        const char *name = "x";
        (void) state;

        memset(&o, 0, sizeof o);
        o.seat = 2;
        o.at_us = 77;
        o.kind = ENG_EV_SCORE_CHANGED;
        o.score.delta = -3;
        o.score.total = 12;
        check_output(&tg_game, &o);
        memset(&o.game, 0, sizeof o.game);
        o.kind = ENG_EV_GAME;
        o.game.code = 9;
        o.game.arg[3] = -1;
        check_output(&tg_game, &o);
        o.kind = ENG_REQ_PAD_LIGHT;
        o.light.button = ENG_BUTTON_ALL;
        o.light.mode = ENG_LIGHT_BLINK;
        o.light.duration_ms = 10;
        check_output(&tg_game, &o);
        o.kind = ENG_EV_CARD_REVEALED;
        o.seat = ENG_SEAT_TABLE;
        o.revealed.card = 1;
        o.revealed.source = ENG_SOURCE_AGAIN;
        check_output(&tg_game, &o);
        o.kind = ENG_EV_CALL_VOIDED;
        o.voided.seq = 41;
        check_output(&tg_game, &o);
        for (int k = ENG_EV_MATCH_STARTED; k <= ENG_EV_MATCH_FINISHED; k++) {
                memset(&o, 0, sizeof o);
                o.kind = (enum eng_output_kind) k;
                o.seat = ENG_SEAT_TABLE;
                o.judged.verdict = ENG_VERDICT_WRONG;   /* valid names for the unions that need them */
                if (k == ENG_EV_CARD_TUCKED)
                        o.tucked.cause = ENG_CAUSE_TIE;
                if (k == ENG_EV_MATCH_FINISHED) {
                        memset(&o.finished, 0, sizeof o.finished);
                        o.finished.winner = ENG_SEAT_TABLE;
                        o.finished.n_seats = 2;
                        o.finished.place[0] = 2;
                        o.finished.place[1] = 1;
                }
                check_output(&tg_game, &o);
        }

        memset(&o, 0, sizeof o);
        o.kind = (enum eng_output_kind) 50;
        assert_null(match_json_output(&tg_game, &o, &name));
        assert_string_equal(name, "unknown");
        o.kind = ENG_EV_CALL_VOIDED;
        o.voided.seq = UINT64_MAX;
        assert_null(match_json_output(&tg_game, &o, NULL));
}

/* A Crash Pilot match driven input by input, so that each step's outputs
 * and views can be checked against what the rules say happened. */
struct match {
        const struct eng_game *g;
        struct cp_state st;
        unsigned n_seats;
        uint64_t seq;
        int64_t now;
        struct eng_out out;
        unsigned seen[ENG_REQ_PAD_LOCKOUT + 1];
};

/* Applies in (seq and time filled here), checks its log JSON and every
 * output's JSON, and counts the outputs by kind. */
static enum eng_refusal apply(struct match *m, struct eng_input *in) {
        in->seq = ++m->seq;
        in->time_us = m->now;
        assert_input_round_trip(m->g, in);
        assert_int_equal(m->g->apply(&m->st, in, &m->out), 0);
        for (size_t i = 0; i < m->out.n; i++) {
                check_output(m->g, &m->out.v[i]);
                m->seen[m->out.v[i].kind]++;
        }
        return m->out.refusal;
}

static struct eng_input input(enum eng_input_kind kind, int seat) {
        struct eng_input in;

        memset(&in, 0, sizeof in);
        in.kind = kind;
        in.seat = seat;
        return in;
}

static enum eng_refusal call(struct match *m, int seat, int c) {
        struct eng_input in = input(ENG_IN_CALL, seat);

        in.call.window = m->st.windows;
        in.call.press_us = m->st.t.shown_us + REACTION_US;
        in.call.call = c;
        if (m->now < in.call.press_us + SETTLE_US)
                m->now = in.call.press_us + SETTLE_US;
        return apply(m, &in);
}

static int right_call(const struct match *m) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (cp_fits_row(&m->st.t, r, m->st.t.face_up))
                        return (int) r + 1;
        return CP_CALL_DOESNT_FIT;
}

static int wrong_call(const struct match *m) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (!cp_fits_row(&m->st.t, r, m->st.t.face_up))
                        return (int) r + 1;
        return CP_CALL_DOESNT_FIT;
}

/* The pause between a verdict and the next reveal runs out. */
static void next_card(struct match *m) {
        struct eng_input in = input(ENG_IN_TIMER, ENG_SEAT_TABLE);

        assert_int_equal(m->st.t.phase, CP_PHASE_BETWEEN);
        m->now = m->st.wake_us;
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        assert_int_equal(m->st.t.phase, CP_PHASE_SHOWING);
}

static json_t *view(struct match *m, enum eng_audience a, int seat) {
        json_t *j = match_json_view(m->g, &m->st, a, seat);

        assert_non_null(j);
        return j;
}

/* The members every audience sees (docs/games/crash-pilot.md, "Views"),
 * with seats 1-based wherever they appear. */
static void check_view(struct match *m, json_t *v, const char *audience) {
        static const char *const common[] = {
                "game", "audience", "status", "phase", "seats", "deck", "rows", "face_up",
                "window", "tiebreak", "neutral_cards", "next", "players", "last_call", "winner",
        };
        json_t *players, *p, *w;
        size_t i;

        assert_true(json_is_object(v));
        for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
                member(v, common[k]);
        assert_string_equal(str(v, "game"), "crash-pilot");
        assert_string_equal(str(v, "audience"), audience);
        assert_int_equal(match_json_status_from_name(str(v, "status")), m->g->status(&m->st));
        assert_int_equal(num(v, "seats"), m->n_seats);
        assert_int_equal(json_array_size(member(v, "rows")), CP_ROWS);
        assert_seat_list(member(v, "tiebreak"), m->st.t.tiebreak);
        players = member(v, "players");
        assert_int_equal(json_array_size(players), m->n_seats);
        json_array_foreach(players, i, p) {
                assert_int_equal(num(p, "seat"), i + 1);
                assert_int_equal(num(p, "cards_left"), m->st.t.stack_len[i]);
                assert_int_equal(num(p, "chips"), m->st.t.chips[i]);
                assert_true(json_is_boolean(member(p, "winner")));
        }
        w = member(v, "window");
        if (m->st.window_open) {
                assert_int_equal(num(w, "id"), m->st.windows);
                assert_seat_list(member(w, "seats"), m->st.t.allowed);
        } else {
                assert_true(json_is_null(w));
        }
        if (m->st.t.last.valid)
                assert_seat(member(member(v, "last_call"), "seat"), m->st.t.last.seat);
        assert_seat(member(v, "winner"), m->st.t.winner);
}

/* All audiences at this moment; returns the public view. */
static json_t *check_views(struct match *m) {
        json_t *pub = view(m, ENG_VIEW_PUBLIC, -1), *ref = view(m, ENG_VIEW_REFEREE, -1);

        check_view(m, pub, "public");
        assert_null(json_object_get(pub, "you"));
        assert_null(json_object_get(pub, "can_void"));
        check_view(m, ref, "referee");
        assert_true(json_is_boolean(member(ref, "can_void")));
        assert_null(json_object_get(ref, "you"));
        for (unsigned s = 0; s < m->n_seats; s++) {
                json_t *mine = view(m, ENG_VIEW_SEAT, (int) s);

                check_view(m, mine, "seat");
                assert_int_equal(num(member(mine, "you"), "seat"), s + 1);
                assert_null(json_object_get(mine, "can_void"));
                json_decref(mine);
        }
        json_decref(ref);
        return pub;
}

static void match_init(struct match *m, unsigned n_seats, uint64_t seed) {
        struct eng_config cfg;

        memset(m, 0, sizeof *m);
        m->g = crash_pilot();
        m->n_seats = n_seats;
        m->now = T0_US;
        assert_int_equal(match_json_config_from(m->g, NULL, n_seats, &cfg, NULL), 0);
        assert_int_equal(m->g->create(&m->st, &cfg, n_seats, seed), 0);
}

/* Start, pause, a tie, a call refused as not allowed, the tiebreak won, a
 * late call, a void, an expiry, three wrong calls and an elimination, then
 * one seat calling right until it turns over its last card. */
static void crash_pilot_match_outputs_and_views(void **state) {
        struct match *m = test_malloc(sizeof *m);
        struct eng_input in;
        json_t *pub, *ref, *v, *next;
        uint32_t old_window;
        unsigned calls;
        (void) state;

        match_init(m, 3, 2024);
        pub = check_views(m);
        assert_string_equal(str(pub, "status"), "ready");
        assert_true(json_is_null(member(pub, "face_up")));
        json_decref(pub);

        in = input(ENG_IN_START, ENG_SEAT_TABLE);
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        assert_int_equal(m->seen[ENG_EV_MATCH_STARTED], 1);
        assert_int_equal(m->seen[ENG_EV_CARD_REVEALED], 1);
        pub = check_views(m);
        assert_string_equal(str(member(pub, "face_up"), "source"), "neutral");
        assert_true(json_is_null(member(member(pub, "face_up"), "seat")));
        json_decref(pub);

        /* Paused: the players' screens hide the card, the referee's not. */
        m->now += 1000;
        in = input(ENG_IN_PAUSE, ENG_SEAT_TABLE);
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        pub = check_views(m);
        ref = view(m, ENG_VIEW_REFEREE, -1);
        v = view(m, ENG_VIEW_SEAT, 0);
        assert_string_equal(str(pub, "status"), "paused");
        assert_true(json_is_null(member(pub, "face_up")));
        assert_true(json_is_null(member(v, "face_up")));
        assert_true(json_is_object(member(ref, "face_up")));
        json_decref(pub);
        json_decref(ref);
        json_decref(v);
        m->now += 1000;
        in = input(ENG_IN_RESUME, ENG_SEAT_TABLE);
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);

        /* Seats 1 and 2 (engine 0 and 1) tie. */
        in = input(ENG_IN_TIE, ENG_SEAT_TABLE);
        in.tie.window = m->st.windows;
        in.tie.seats = 0x3;
        in.tie.press_us = m->st.t.shown_us + REACTION_US;
        m->now = in.tie.press_us + SETTLE_US;
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        assert_int_equal(m->seen[ENG_EV_TIEBREAK_STARTED], 1);
        next_card(m);
        pub = check_views(m);
        assert_int_equal(json_array_size(member(pub, "tiebreak")), 2);
        json_decref(pub);

        /* Seat 3 may not call in the tiebreak; seat 1 wins it. */
        assert_int_equal(call(m, 2, right_call(m)), ENG_REFUSED_NOT_ALLOWED);
        old_window = m->st.windows;
        assert_int_equal(call(m, 0, right_call(m)), ENG_ACCEPTED);
        pub = check_views(m);
        assert_string_equal(str(pub, "phase"), "between");
        next = member(pub, "next");
        assert_string_equal(str(next, "source"), "stack");
        assert_int_equal(num(next, "seat"), 1);
        assert_string_equal(str(member(pub, "last_call"), "verdict"), "correct");
        json_decref(pub);

        /* A late call for the closed window. */
        in = input(ENG_IN_CALL, 1);
        in.call.window = old_window;
        in.call.call = 1;
        in.call.press_us = m->now - 1;
        m->now += 10;
        assert_int_equal(apply(m, &in), ENG_REFUSED_TOO_LATE);

        /* The referee voids it: the same card again. */
        m->now += 1000;
        in = input(ENG_IN_REFEREE, ENG_SEAT_TABLE);
        in.referee.op = CP_REFEREE_VOID;
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        assert_int_equal(m->seen[ENG_EV_CALL_VOIDED], 1);
        next_card(m);
        /* The void put the tiebreak back: seat 1 wins it again. */
        assert_int_equal(m->st.t.tiebreak, 0x3);
        assert_int_equal(call(m, 0, right_call(m)), ENG_ACCEPTED);
        next_card(m);

        /* Nobody calls. */
        m->now = m->st.wake_us;
        in = input(ENG_IN_TIMER, ENG_SEAT_TABLE);
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        assert_int_equal(m->seen[ENG_EV_REVEAL_EXPIRED], 1);
        next_card(m);

        /* Seat 3 calls wrong three times and is out. */
        for (int i = 0; i < CP_CHIPS_OUT; i++) {
                if (m->st.t.tiebreak)
                        fail_msg("no tiebreak expected here");
                assert_int_equal(call(m, 2, wrong_call(m)), ENG_ACCEPTED);
                next_card(m);
        }
        assert_int_equal(m->seen[ENG_EV_CHIP_GIVEN], CP_CHIPS_OUT);
        assert_int_equal(m->seen[ENG_EV_PLAYER_ELIMINATED], 1);
        pub = check_views(m);
        assert_true(json_is_true(member(json_array_get(member(pub, "players"), 2), "out")));
        json_decref(pub);

        /* Seat 1 calls right until it turns over its last card. */
        for (calls = 0; m->st.t.phase != CP_PHASE_FINISHED; calls++) {
                assert_true(calls < SCRIPT_MAX_CALLS);
                assert_int_equal(call(m, 0, right_call(m)), ENG_ACCEPTED);
                if (m->st.t.phase == CP_PHASE_BETWEEN)
                        next_card(m);
        }
        assert_int_equal(m->seen[ENG_EV_MATCH_FINISHED], 1);
        pub = check_views(m);
        assert_string_equal(str(pub, "status"), "finished");
        assert_int_equal(num(pub, "winner"), 1);
        json_decref(pub);

        /* Every event and request a Crash Pilot match makes was turned into
         * JSON and checked on the way. */
        static const enum eng_output_kind expected[] = {
                ENG_EV_MATCH_STARTED, ENG_EV_CARD_REVEALED, ENG_EV_CALL_JUDGED,
                ENG_EV_TIEBREAK_STARTED, ENG_EV_CARD_PLACED, ENG_EV_CARD_TUCKED,
                ENG_EV_CHIP_GIVEN, ENG_EV_PLAYER_ELIMINATED, ENG_EV_REVEAL_EXPIRED,
                ENG_EV_CALL_VOIDED, ENG_EV_PAUSED, ENG_EV_RESUMED, ENG_EV_MATCH_FINISHED,
                ENG_REQ_WINDOW_OPEN, ENG_REQ_WINDOW_CLOSE, ENG_REQ_PAD_LIGHT, ENG_REQ_PAD_BUZZ,
                ENG_REQ_PAD_LOCKOUT,
        };
        for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
                if (!m->seen[expected[k]])
                        fail_msg("no %s output in the match", match_json_output_name(expected[k]));
        test_free(m);
}

static void result_of_a_finished_match(void **state) {
        struct match *m = test_malloc(sizeof *m);
        struct eng_result r;
        struct eng_input in;
        json_t *j, *placements, *p, *stats;
        size_t i;
        unsigned last = 0;
        (void) state;

        match_init(m, 3, 77);
        assert_int_equal(m->g->result(&m->st, &r), 0);
        j = match_json_result(m->g, &r);
        assert_non_null(j);
        assert_true(json_is_false(member(j, "finished")));
        assert_true(json_is_null(member(j, "winner")));
        assert_int_equal(json_array_size(member(j, "placements")), 3);
        json_decref(j);

        in = input(ENG_IN_START, ENG_SEAT_TABLE);
        assert_int_equal(apply(m, &in), ENG_ACCEPTED);
        for (int k = 0; k < CP_CHIPS_OUT; k++) {
                assert_int_equal(call(m, 1, wrong_call(m)), ENG_ACCEPTED);
                next_card(m);
        }
        while (m->st.t.phase != CP_PHASE_FINISHED) {
                assert_int_equal(call(m, 2, right_call(m)), ENG_ACCEPTED);
                if (m->st.t.phase == CP_PHASE_BETWEEN)
                        next_card(m);
        }
        assert_int_equal(m->g->result(&m->st, &r), 0);
        j = match_json_result(m->g, &r);
        assert_non_null(j);
        assert_true(json_is_true(member(j, "finished")));
        assert_int_equal(num(j, "winner"), 3);
        placements = member(j, "placements");
        assert_int_equal(json_array_size(placements), 3);
        json_array_foreach(placements, i, p) {
                json_int_t s = num(p, "seat");

                assert_int_equal(s, r.order[i] + 1);
                assert_int_equal(num(p, "place"), r.place[s - 1]);
                assert_true((unsigned) num(p, "place") >= last);
                last = (unsigned) num(p, "place");
                stats = member(p, "stats");
                assert_int_equal(num(stats, "calls"), r.stats[s - 1].calls);
                assert_int_equal(num(stats, "correct"), r.stats[s - 1].correct);
                assert_int_equal(num(stats, "wrong"), r.stats[s - 1].wrong);
                assert_int_equal(num(stats, "chips"), r.stats[s - 1].chips);
                assert_int_equal(num(stats, "cards_left"), r.stats[s - 1].cards_left);
                if (r.stats[s - 1].calls)
                        assert_int_equal(num(stats, "reaction_avg_us"), r.stats[s - 1].reaction_avg_us);
                else
                        assert_true(json_is_null(member(stats, "reaction_avg_us")));
                assert_int_equal(num(stats, "ties"), r.stats[s - 1].ties);
                assert_int_equal(num(stats, "reaction_sum_us"), r.stats[s - 1].reaction_sum_us);
                assert_true(json_is_boolean(member(stats, "eliminated")));
                if (r.stats[s - 1].eliminated_order)
                        assert_int_equal(num(stats, "eliminated_order"), r.stats[s - 1].eliminated_order);
                else
                        assert_true(json_is_null(member(stats, "eliminated_order")));
                assert_int_equal(num(stats, "score"), 0);
        }
        p = json_array_get(placements, 0);
        assert_int_equal(num(p, "seat"), 3);
        assert_int_equal(num(p, "place"), 1);
        p = json_array_get(placements, 2);
        assert_int_equal(num(p, "seat"), 2);
        assert_true(json_is_true(member(member(p, "stats"), "eliminated")));
        assert_int_equal(num(member(p, "stats"), "eliminated_order"), 1);
        json_decref(j);
        assert_null(match_json_result(m->g, NULL));
        test_free(m);
}

/* ---- Simulated matches: every input, output and view of whole matches
 * at every table size, ties, voids, pauses and refused junk included. */

struct sim_ctx {
        const struct eng_game *g;
        unsigned n_seats;
        unsigned seen[ENG_REQ_PAD_LOCKOUT + 1];
        size_t inputs;
};

static int sim_step(void *ctx, const struct cp_state *st, const struct eng_input *in,
                    const struct eng_out *out) {
        struct sim_ctx *c = ctx;
        json_t *v;

        c->inputs++;
        assert_input_round_trip(c->g, in);
        for (size_t i = 0; i < out->n; i++) {
                check_output(c->g, &out->v[i]);
                c->seen[out->v[i].kind]++;
        }
        v = match_json_view(c->g, st, ENG_VIEW_PUBLIC, -1);
        assert_non_null(v);
        json_decref(v);
        v = match_json_view(c->g, st, ENG_VIEW_REFEREE, -1);
        assert_non_null(v);
        json_decref(v);
        v = match_json_view(c->g, st, ENG_VIEW_SEAT, (int) (c->inputs % c->n_seats));
        assert_non_null(v);
        json_decref(v);
        return 0;
}

static void simulated_matches(void **state) {
        struct cp_state *st = test_malloc(sizeof *st);
        struct cp_sim_params p;
        struct sim_ctx c;
        (void) state;

        memset(&c, 0, sizeof c);
        c.g = crash_pilot();
        cp_sim_params_default(&p);
        for (unsigned n = CP_MIN_SEATS; n <= CP_MAX_SEATS; n++)
                for (uint64_t seed = 1; seed <= SIM_SEEDS; seed++) {
                        struct eng_config cfg;

                        c.n_seats = n;
                        assert_int_equal(match_json_config_from(c.g, NULL, n, &cfg, NULL), 0);
                        assert_int_equal(cp_sim_match(st, &cfg, n, seed, seed * 31, &p, NULL, 0,
                                                      sim_step, &c, NULL), 0);
                }
        assert_true(c.inputs > 1000);
        assert_true(c.seen[ENG_EV_MATCH_FINISHED] == (CP_MAX_SEATS - CP_MIN_SEATS + 1) * SIM_SEEDS);
        assert_true(c.seen[ENG_EV_TIEBREAK_STARTED] > 0);
        assert_true(c.seen[ENG_EV_CALL_VOIDED] > 0);
        test_free(st);
}

/* ---- Views: the builder itself. */

static void view_builder_converts_seats(void **state) {
        json_t *v = match_json_view(&tg_game, &tg_game, ENG_VIEW_PUBLIC, TG_WALK_GOOD), *expected;
        (void) state;

        assert_non_null(v);
        expected = parse("{\"seat\": 1, \"winner\": null, \"next_seat\": 3, \"count\": 7,"
                         " \"seats\": [1, 3], \"tiebreak\": [2], \"other_seats\": [4],"
                         " \"numbers\": [0],"
                         " \"nested\": {\"seats\": 4, \"winner\": true, \"name\": \"x\","
                         " \"nothing\": null}}");
        if (!json_equal(v, expected)) {
                char *text = json_dumps(v, JSON_COMPACT);

                fail_msg("got %s", text);
        }
        json_decref(expected);
        json_decref(v);
}

static void view_builder_refuses_bad_walks(void **state) {
        (void) state;

        for (int w = TG_WALK_KEY_IN_ARRAY; w <= TG_WALK_ERROR; w++)
                if (match_json_view(&tg_game, &tg_game, ENG_VIEW_PUBLIC, w))
                        fail_msg("walk %d gave a view", w);
        assert_null(match_json_view(&tg_game, NULL, ENG_VIEW_PUBLIC, 0));
}

static void view_seat_out_of_range(void **state) {
        struct match *m = test_malloc(sizeof *m);
        (void) state;

        match_init(m, 2, 5);
        assert_null(match_json_view(m->g, &m->st, ENG_VIEW_SEAT, 2));
        assert_null(match_json_view(m->g, &m->st, ENG_VIEW_SEAT, -1));
        assert_null(match_json_view(m->g, &m->st, (enum eng_audience) 9, 0));
        test_free(m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(names_round_trip),
                cmocka_unit_test(game_describes_crash_pilot),
                cmocka_unit_test(game_describes_every_param_type),
                cmocka_unit_test(config_defaults),
                cmocka_unit_test(config_nested_and_dotted),
                cmocka_unit_test(config_bool_and_enum),
                cmocka_unit_test(config_errors_name_the_field),
                cmocka_unit_test(config_round_trip),
                cmocka_unit_test(config_to_shape),
                cmocka_unit_test(input_round_trip_random),
                cmocka_unit_test(input_shape),
                cmocka_unit_test(input_to_refuses_what_json_cannot_carry),
                cmocka_unit_test(input_errors_name_the_field),
                cmocka_unit_test(output_of_every_kind),
                cmocka_unit_test(crash_pilot_match_outputs_and_views),
                cmocka_unit_test(result_of_a_finished_match),
                cmocka_unit_test(simulated_matches),
                cmocka_unit_test(view_builder_converts_seats),
                cmocka_unit_test(view_builder_refuses_bad_walks),
                cmocka_unit_test(view_seat_out_of_range),
        };
        return cmocka_run_group_tests_name("match_json", tests, NULL, NULL);
}
