/* engine/engine.h, the parts every game shares: the registry, the one type
 * system (fields, slots, value checks, settings by schema, data files),
 * inputs, routes and calls by name, card handles, outputs, ranking, replay,
 * and the names used in JSON and the database.
 *
 * The unit tests link tests/games/registry.c, whose list of games grows as
 * games are added: the registry tests check properties every registered
 * game must have, never how many there are. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crash_pilot.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/rng.h"
#include "engine/walk.h"
#include "test_engine_json.h"

#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))
/* The slot of an overlay member in eng_output.v[] or eng_input.arg[]. */
#define OUT_SLOT(member) \
        ((int) ((offsetof(struct eng_output, member) - offsetof(struct eng_output, v)) / sizeof(int64_t)))
#define IN_SLOT(member) \
        ((int) ((offsetof(struct eng_input, member) - offsetof(struct eng_input, arg)) / sizeof(int64_t)))

/* ---- The registry. */

static void check_fields(const char *what, const struct eng_field *f, size_t n, bool need_doc) {
        for (size_t i = 0; i < n; i++) {
                if (!f[i].name || !*f[i].name)
                        fail_msg("%s: field %zu has no name", what, i);
                if (need_doc && !f[i].doc)
                        fail_msg("%s.%s has no doc", what, f[i].name);
                if (!eng_type_name(f[i].type) || strcmp(eng_type_name(f[i].type), "unknown") == 0)
                        fail_msg("%s.%s has no type", what, f[i].name);
                for (size_t k = 0; k < i; k++)
                        if (strcmp(f[k].name, f[i].name) == 0)
                                fail_msg("%s.%s twice", what, f[i].name);
                if (f[i].type == ENG_T_ENUM && f[i].choices)
                        for (int64_t c = f[i].min; c <= f[i].max; c++)
                                if (!f[i].choices[c])
                                        fail_msg("%s.%s: no name for choice %lld", what, f[i].name, (long long) c);
                if (f[i].type == ENG_T_RECORDS) {
                        if (!f[i].fields || !f[i].n_fields || !f[i].max_count)
                                fail_msg("%s.%s: records of nothing", what, f[i].name);
                        check_fields(f[i].name, f[i].fields, f[i].n_fields, need_doc);
                }
        }
}

/* Every name a game's events use, framework and requests included, once. */
static void check_event_names(const struct eng_game *g) {
        const char *names[ENG_MAX_OUTPUTS * 4];
        size_t n = 0;

        for (size_t i = 0; eng_framework_events[i]; i++)
                names[n++] = eng_framework_events[i]->name;
        for (size_t i = 0; eng_requests[i]; i++)
                names[n++] = eng_requests[i]->name;
        assert_true(n + g->n_events <= ELEMENTSOF(names));
        for (size_t i = 0; i < g->n_events; i++) {
                const struct eng_event_def *ev = g->events[i];

                assert_non_null(ev);
                if (!ev->name || !ev->doc || !ev->text)
                        fail_msg("%s: event %zu lacks a name, a doc or a text", g->name, i);
                assert_int_not_equal(ev->audience, ENG_VIEW_RUNTIME);
                assert_ptr_equal(eng_event_find(g, ev->name), ev);
                check_fields(ev->name, ev->fields, ev->n_fields, true);
                assert_true(eng_fields_slots(ev->fields, ev->n_fields) <= ENG_MAX_VALUES);
                names[n++] = ev->name;
        }
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < i; k++)
                        if (strcmp(names[i], names[k]) == 0)
                                fail_msg("%s: event name %s twice", g->name, names[i]);
}

static void check_routes(const struct eng_game *g) {
        for (size_t i = 0; i < g->n_routes; i++) {
                const struct eng_route *r = &g->routes[i];
                enum eng_input_kind kind;
                unsigned action;

                assert_non_null(eng_role_name(r->role));
                switch (r->kind) {
                case ENG_ROUTE_CALL:
                        if (!eng_call_name(g, r->call))
                                fail_msg("%s: route %zu makes call %d, which has no name", g->name, i, r->call);
                        assert_true(g->builtins & (1u << ENG_IN_CALL));
                        break;
                case ENG_ROUTE_PRESS:
                        assert_true(g->builtins & (1u << ENG_IN_PRESS));
                        break;
                case ENG_ROUTE_INPUT: {
                        const struct eng_input_def *def;
                        struct eng_input in = { .kind = 0 };

                        if (eng_input_find(g, r->input, &kind, &action) < 0)
                                fail_msg("%s: route %zu sends %s, which is no input", g->name, i,
                                         r->input ? r->input : "(null)");
                        in.kind = kind;
                        in.action = action;
                        def = eng_input_def_of(g, &in);
                        assert_non_null(def);
                        /* a press carries no fields: every one must be
                         * optional */
                        for (size_t f = 0; f < def->n_fields; f++)
                                if (!def->fields[f].optional)
                                        fail_msg("%s: route %zu sends %s without its %s", g->name, i,
                                                 r->input, def->fields[f].name);
                        break;
                }
                default:
                        fail_msg("%s: route %zu of kind %d", g->name, i, r->kind);
                }
        }
}

/* A match of every game can be set up with the default settings for every
 * seat count it allows, and is then ready, deterministic and viewable. */
static void check_defaults_create(const struct eng_game *g) {
        void *a = calloc(1, g->state_size), *b = calloc(1, g->state_size);
        struct eng_config cfg;
        struct eng_error err;
        struct eng_result res;
        struct tj j;

        assert_non_null(a);
        assert_non_null(b);
        eng_config_defaults(g, &cfg);
        for (unsigned n = g->min_seats; n <= g->max_seats; n++) {
                if (eng_config_validate(g, &cfg, NULL, n, &err) < 0)
                        fail_msg("%s, %u seats: defaults do not validate: %s", g->name, n, err.message);
                assert_int_equal(g->create(a, &cfg, NULL, n, 1234 + n), 0);
                assert_int_equal(g->create(b, &cfg, NULL, n, 1234 + n), 0);
                assert_int_equal(g->status(a), ENG_STATUS_READY);
                assert_true(g->hash(a) == g->hash(b));
                assert_int_equal(g->result(a, &res), 0);
                assert_false(res.finished);
                assert_int_equal(res.n_seats, n);
                for (int v = ENG_VIEW_PUBLIC; v <= ENG_VIEW_REFEREE; v++) {
                        tj_init(&j);
                        assert_int_equal(g->view_visit(a, (enum eng_audience) v, v == ENG_VIEW_SEAT ? (int) n - 1 : -1,
                                                       &tj_visitor, &j), 0);
                        assert_true(tj_balanced(&j));
                }
        }
        assert_int_equal(eng_config_validate(g, &cfg, NULL, g->max_seats + 1, &err), -EINVAL);
        assert_string_equal(err.field, "seats");
        free(a);
        free(b);
}

/* Every registered game is complete and names itself and its parts
 * consistently. */
static void every_game_is_registered_with_a_complete_method_table(void **state) {
        size_t n = 0;

        (void) state;
        for (size_t i = 0; eng_games[i]; i++, n++) {
                const struct eng_game *g = eng_games[i];
                char why[256] = "";

                /* the framework's own check of a game's tables (engine.h) */
                if (eng_game_check(g, why, sizeof why) < 0)
                        fail_msg("eng_game_check: %s", why);
                /* names are unique: the first game of a name is found */
                assert_ptr_equal(eng_game_find(g->name), g);
                assert_non_null(g->display_name);
                assert_non_null(g->description);
                assert_true(g->min_seats >= 1 && g->min_seats <= g->max_seats);
                assert_true(g->max_seats <= ENG_MAX_SEATS);
                assert_true(g->max_outputs > 0 && g->max_outputs < ENG_MAX_OUTPUTS);
                assert_true(g->state_size > 0);
                assert_non_null(g->validate);
                assert_non_null(g->create);
                assert_non_null(g->apply);
                assert_non_null(g->status);
                assert_non_null(g->wake_us);
                assert_non_null(g->view_visit);
                assert_non_null(g->hash);
                assert_non_null(g->result);

                /* settings */
                check_fields(g->name, g->params, g->n_params, true);
                assert_true(eng_fields_slots(g->params, g->n_params) <= ENG_MAX_CONFIG_SLOTS);
                for (size_t p = 0; p < g->n_params; p++) {
                        const struct eng_field *prm = &g->params[p];

                        assert_int_equal(eng_param_find(g, prm->name), (int) p);
                        if (!prm->max_count && prm->type != ENG_T_RECORDS &&
                            eng_value_check(prm, prm->name, prm->def, NULL) < 0)
                                fail_msg("%s: %s's default is out of its range", g->name, prm->name);
                }

                /* data files */
                assert_true(g->n_data <= ENG_MAX_DATA);
                for (size_t d = 0; d < g->n_data; d++) {
                        assert_non_null(g->data[d].name);
                        assert_non_null(g->data[d].builtin);
                        assert_non_null(g->data[d].doc);
                        assert_true(strlen(g->data[d].builtin) <= g->data[d].max_len);
                }

                /* its own inputs: none named like a built-in one */
                for (size_t a = 0; a < g->n_actions; a++) {
                        const struct eng_input_def *def = &g->actions[a];
                        enum eng_input_kind kind;
                        unsigned action;

                        assert_non_null(def->name);
                        assert_non_null(def->doc);
                        assert_true(def->from != 0);
                        if (eng_input_find(NULL, def->name, &kind, &action) == 0)
                                fail_msg("%s: action %s is named like a built-in input", g->name, def->name);
                        assert_int_equal(eng_input_find(g, def->name, &kind, &action), 0);
                        assert_int_equal(kind, ENG_IN_ACTION);
                        assert_int_equal(action, a);    /* and so named once */
                        check_fields(def->name, def->fields, def->n_fields, true);
                        assert_true(eng_fields_slots(def->fields, def->n_fields) <= ENG_MAX_ARGS);
                }

                check_event_names(g);
                check_routes(g);

                /* calls: each found by its own name */
                for (size_t c = 0; c < g->n_calls; c++) {
                        int call;

                        if (!g->calls[c])
                                continue;
                        assert_int_equal(eng_call_by_name(g, g->calls[c], &call), 0);
                        assert_int_equal(call, (int) c);
                }
                assert_true(g->n_terms <= ENG_MAX_TERMS);
                for (size_t t = 0; t < g->n_terms; t++)
                        assert_non_null(g->terms[t]);
                check_fields(g->name, g->view, g->n_view, true);

                check_defaults_create(g);
        }
        assert_true(n >= 1);
        assert_ptr_equal(eng_game_find("crash-pilot"), &cp_game);
        assert_null(eng_game_find("crash pilot"));
        assert_null(eng_game_find(NULL));
}

/* ---- Settings. */

/* Settings are set by key through the schema, with errors that name the
 * field; defaults validate for every seat count. */
/* eng_game_check finds what a game's author gets wrong in its tables: an
 * explanation naming no field, a reserved field name, a route to an input
 * the game does not have. */
static void game_check_names_the_first_problem(void **state) {
        static const struct eng_field bad_fields[] = {
                { .name = "points", .type = ENG_T_INT, .min = 0, .max = 9, .doc = "Points." },
        };
        static const struct eng_field reserved_fields[] = {
                { .name = "seat", .type = ENG_T_SEAT, .doc = "A seat." },
        };
        static const struct eng_event_def bad_text = {
                .name = "scored", .fields = bad_fields, .n_fields = 1, .text = "{seat} scores {pionts}.",
                .doc = "A score.",
        };
        static const struct eng_event_def open_text = {
                .name = "scored", .fields = bad_fields, .n_fields = 1, .text = "{seat} scores {points",
                .doc = "A score.",
        };
        static const struct eng_event_def reserved = {
                .name = "scored", .fields = reserved_fields, .n_fields = 1, .text = "{seat} scores.",
                .doc = "A score.",
        };
        static const struct eng_event_def *const ev_text[] = { &bad_text };
        static const struct eng_event_def *const ev_open[] = { &open_text };
        static const struct eng_event_def *const ev_reserved[] = { &reserved };
        static const struct eng_route bad_route[] = {
                { .role = ENG_ROLE_KEYPAD, .button = 1, .kind = ENG_ROUTE_INPUT, .input = "jump" },
        };
        struct eng_game g = cp_game;
        char why[256] = "";

        (void) state;
        assert_int_equal(eng_game_check(&cp_game, why, sizeof why), 0);

        g.events = ev_text;
        g.n_events = 1;
        assert_int_equal(eng_game_check(&g, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "{pionts}"));
        g.events = ev_open;
        assert_int_equal(eng_game_check(&g, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "unclosed"));
        g.events = ev_reserved;
        assert_int_equal(eng_game_check(&g, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "\"seat\""));

        g = cp_game;
        g.routes = bad_route;
        g.n_routes = 1;
        assert_int_equal(eng_game_check(&g, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "jump"));
}

/* A walk writes straight through and keeps the first error: nothing is
 * written after it. */
static int fail_on_second(void *ctx, const char *key, int64_t value) {
        int *calls = ctx;

        (void) key;
        (void) value;
        return ++*calls == 2 ? -ENOSPC : 0;
}

static void a_walk_writes_through_and_keeps_the_first_error(void **state) {
        struct tj j;
        struct eng_walk w = { .v = &tj_visitor, .ctx = &j };
        struct eng_visitor counting = { .integer = fail_on_second };
        int calls = 0;

        (void) state;
        tj_init(&j);
        eng_walk_handle(&w, "handle", 0x9f3a01c2u);
        eng_walk_handle(&w, "small", 0x2au);
        eng_walk_seats(&w, "seats", 0x15u);
        eng_walk_time(&w, "never", ENG_NEVER);
        eng_walk_time(&w, "at_us", 1500);
        eng_walk_obj(&w, "o");
        eng_walk_bool(&w, "b", true);
        eng_walk_null(&w, "n");
        eng_walk_str(&w, "s", "x");
        eng_walk_end_obj(&w);
        assert_int_equal(w.r, 0);
        assert_int_equal(tj_raw(&j, "}"), 0);
        assert_string_equal(j.buf, "{\"handle\":\"9f3a01c2\",\"small\":\"0000002a\",\"seats\":[0,2,4],"
                                   "\"never\":null,\"at_us\":1500,\"o\":{\"b\":true,\"n\":null,\"s\":\"x\"}}");

        w = (struct eng_walk) { .v = &counting, .ctx = &calls };
        for (int k = 0; k < 5; k++)
                eng_walk_int(&w, "k", k);
        assert_int_equal(w.r, -ENOSPC);
        assert_int_equal(calls, 2);
}

static void settings_are_set_by_key_and_errors_name_the_field(void **state) {
        const struct eng_game *g = &cp_game;
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        eng_config_defaults(g, &cfg);
        for (unsigned n = g->min_seats; n <= g->max_seats; n++)
                assert_int_equal(eng_config_validate(g, &cfg, NULL, n, &err), 0);
        assert_int_equal(eng_config_set(g, &cfg, "deck.copies", 3, &err), 0);
        assert_int_equal(cfg.v[CP_PARAM_COPIES], 3);
        assert_int_equal(eng_config_set(g, &cfg, "deck.copies", 0, &err), -ERANGE);
        assert_string_equal(err.field, "deck.copies");
        assert_string_equal(err.message, "deck.copies: must be 1..4");
        assert_int_equal(cfg.v[CP_PARAM_COPIES], 3);
        assert_int_equal(eng_config_set(g, &cfg, "reveal.pause_ms", 10001, &err), -ERANGE);
        assert_string_equal(err.message, "reveal.pause_ms: must be 0..10000 ms");
        assert_int_equal(eng_config_set(g, &cfg, "deck.copiez", 1, &err), -ENOENT);
        assert_string_equal(err.message, "deck.copiez: no such setting");
        assert_int_equal(eng_config_set(g, &cfg, "deck.copies", 2, NULL), 0);
        assert_int_equal(eng_config_set_choice(g, &cfg, "deck.copies", "two", &err), -EINVAL);
        assert_string_equal(err.message, "deck.copies: is not a choice");
        assert_int_equal(eng_config_validate(g, &cfg, NULL, 9, &err), -EINVAL);
        assert_string_equal(err.field, "seats");
        assert_string_equal(err.message, "seats: must be 2..5");
}

/* A synthetic game with a setting of every shape: a scalar, a list, a list
 * of records, and a choice after them, as Pitch Fleet's board layout and
 * custom challenges will be; one data file. */
static const char *const modes[] = { "team", "solo" };
static const char *const colours[] = { "red", "blue" };

static const struct eng_field challenge_fields[] = {
        { .name = "points", .type = ENG_T_INT, .min = 1, .max = 9, .def = 1, .doc = "Points it is worth." },
        { .name = "colour", .type = ENG_T_ENUM, .min = 0, .max = 1, .choices = colours, .doc = "Its colour." },
};

enum { S_ROUNDS = 0, S_BONUS = 1, S_CHALLENGES = 5, S_MODE = 14, S_SLOTS = 15 };

static const struct eng_field synth_params[] = {
        { .name = "rounds", .type = ENG_T_INT, .min = 1, .max = 4, .def = 2, .doc = "Rounds." },
        { .name = "bonus", .type = ENG_T_INT, .min = 0, .max = 5, .max_count = 3, .doc = "Bonus per round." },
        { .name = "challenges", .type = ENG_T_RECORDS, .max_count = 4, .fields = challenge_fields,
          .n_fields = ELEMENTSOF(challenge_fields), .doc = "Custom challenges." },
        { .name = "mode", .type = ENG_T_ENUM, .min = 0, .max = 1, .def = 1, .choices = modes,
          .doc = "Team race or solo challenges." },
        { .name = "advanced", .type = ENG_T_BOOL, .min = 0, .max = 1, .def = 0, .doc = "Advanced cards." },
};

static const struct eng_data_def synth_data[] = {
        { .name = "prompts", .builtin = "one\ntwo\n", .max_len = 16, .doc = "One prompt a line." },
};

/* What a range cannot say: three rounds need a bonus for each. */
static int synth_validate(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                          struct eng_error *ret_err) {
        (void) data, (void) n_seats;
        if (cfg->v[S_ROUNDS] == 3 && cfg->v[S_BONUS] != 3)
                return eng_error_set(ret_err, "bonus", "three rounds need three bonuses, not %lld",
                                     (long long) cfg->v[S_BONUS]);
        return 0;
}

static struct eng_game synth_game(void) {
        struct eng_game g = cp_game;

        g.name = "synth";
        g.params = synth_params;
        g.n_params = ELEMENTSOF(synth_params);
        g.data = synth_data;
        g.n_data = ELEMENTSOF(synth_data);
        g.validate = synth_validate;
        return g;
}

/* A choice is set by its name; a boolean is 0 or 1. */
static void enum_settings_are_set_by_choice_name(void **state) {
        struct eng_game g = synth_game();
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        eng_config_defaults(&g, &cfg);
        assert_int_equal(cfg.v[S_MODE], 1);
        assert_int_equal(eng_config_set_choice(&g, &cfg, "mode", "team", &err), 0);
        assert_int_equal(cfg.v[S_MODE], 0);
        assert_int_equal(eng_config_set_choice(&g, &cfg, "mode", "duo", &err), -ERANGE);
        assert_string_equal(err.field, "mode");
        assert_string_equal(err.message, "mode: must be one of team, solo");
        assert_int_equal(cfg.v[S_MODE], 0);
        assert_int_equal(eng_config_set(&g, &cfg, "advanced", 2, &err), -ERANGE);
        assert_string_equal(err.message, "advanced: must be true or false");
        assert_int_equal(eng_config_set(&g, &cfg, "advanced", 1, &err), 0);
        assert_int_equal(cfg.v[S_MODE + 1], 1);
}

/* A config is slots: a scalar one, a list its count and max_count
 * elements, a list of records its count and max_count records; defaults
 * land at each setting's slot, lists start empty, and a list is not set by
 * eng_config_set. */
static void settings_of_every_shape_are_laid_out_in_slots(void **state) {
        static const struct {
                const char *name;
                int slot;
        } slots[] = {
                { "rounds", S_ROUNDS }, { "bonus", S_BONUS }, { "challenges", S_CHALLENGES },
                { "mode", S_MODE }, { "advanced", S_MODE + 1 }, { "nope", -ENOENT }, { NULL, -ENOENT },
        };
        struct eng_game g = synth_game();
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        assert_int_equal(eng_field_slots(&synth_params[0]), 1);
        assert_int_equal(eng_field_slots(&synth_params[1]), 1 + 3);
        assert_int_equal(eng_field_slots(&synth_params[2]), 1 + 4 * 2);
        assert_int_equal(eng_fields_slots(synth_params, ELEMENTSOF(synth_params)), S_SLOTS + 1);
        assert_int_equal(eng_fields_slots(synth_params, 0), 0);
        for (size_t i = 0; i < ELEMENTSOF(slots); i++)
                assert_int_equal(eng_fields_offset(synth_params, ELEMENTSOF(synth_params), slots[i].name),
                                 slots[i].slot);
        /* a record's own fields are not settings */
        assert_int_equal(eng_fields_offset(synth_params, ELEMENTSOF(synth_params), "points"), -ENOENT);
        assert_ptr_equal(eng_fields_find(synth_params, ELEMENTSOF(synth_params), "mode"), &synth_params[3]);
        assert_null(eng_fields_find(synth_params, ELEMENTSOF(synth_params), "points"));

        memset(&cfg, 0x77, sizeof cfg);
        eng_config_defaults(&g, &cfg);
        assert_int_equal(cfg.v[S_ROUNDS], 2);
        assert_int_equal(cfg.v[S_BONUS], 0);
        assert_int_equal(cfg.v[S_CHALLENGES], 0);
        assert_int_equal(cfg.v[S_MODE], 1);
        assert_int_equal(cfg.v[S_MODE + 1], 0);
        for (size_t i = S_SLOTS + 1; i < ENG_MAX_CONFIG_SLOTS; i++)
                assert_int_equal(cfg.v[i], 0);
        assert_int_equal(eng_config_validate(&g, &cfg, NULL, 2, &err), 0);
        assert_int_equal(eng_config_set(&g, &cfg, "bonus", 1, &err), -EINVAL);
        assert_string_equal(err.message, "bonus: is a list");
        assert_int_equal(eng_config_set(&g, &cfg, "challenges", 1, &err), -EINVAL);
        assert_int_equal(eng_config_set(&g, &cfg, "rounds", 4, &err), 0);
        assert_int_equal(cfg.v[S_ROUNDS], 4);

        /* a scalar a PLACES field is ENG_MAX_SEATS slots */
        assert_int_equal(eng_fields_slots(eng_ev_match_finished.fields, eng_ev_match_finished.n_fields),
                         1 + ENG_MAX_SEATS);
}

/* eng_config_validate checks the seats, every value (each element of a list
 * and each field of each record, named by its path), the data files'
 * lengths, and only then the game's own check. */
static void config_validation_names_the_list_element_or_record_field_at_fault(void **state) {
        static const struct {
                int slot;
                int64_t value;
                const char *field, *message;
        } bad[] = {
                { S_ROUNDS, 0, "rounds", "rounds: must be 1..4" },
                { S_BONUS, 4, "bonus", "bonus: must list at most 3" },
                { S_BONUS, -1, "bonus", "bonus: must list at most 3" },
                { S_BONUS + 1 + 1, 6, "bonus[1]", "bonus[1]: must be 0..5" },
                { S_CHALLENGES, 5, "challenges", "challenges: must list at most 4" },
                { S_CHALLENGES + 1 + 2 * 1, 10, "challenges[1].points", "challenges[1].points: must be 1..9" },
                { S_CHALLENGES + 1 + 2 * 2 + 1, 2, "challenges[2].colour",
                  "challenges[2].colour: must be one of red, blue" },
                { S_MODE, 2, "mode", "mode: must be one of team, solo" },
                { S_MODE + 1, -1, "advanced", "advanced: must be true or false" },
                { S_ROUNDS, 3, "bonus", "bonus: three rounds need three bonuses, not 2" },
        };
        struct eng_game g = synth_game();
        struct eng_config good, cfg;
        struct eng_data data = { .text = { "0123456789abcdefg" }, .len = { 17 } };
        struct eng_error err;

        (void) state;
        eng_config_defaults(&g, &good);
        /* two bonuses and three challenges, all in range */
        good.v[S_BONUS] = 2;
        good.v[S_BONUS + 1] = 5;
        good.v[S_BONUS + 2] = 0;
        good.v[S_CHALLENGES] = 3;
        for (int k = 0; k < 3; k++) {
                good.v[S_CHALLENGES + 1 + 2 * k] = 9;
                good.v[S_CHALLENGES + 1 + 2 * k + 1] = 1;
        }
        /* values beyond a list's count are not looked at */
        good.v[S_BONUS + 3] = 99;
        good.v[S_CHALLENGES + 1 + 2 * 3] = 99;
        assert_int_equal(eng_config_validate(&g, &good, NULL, 2, &err), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                cfg = good;
                cfg.v[bad[i].slot] = bad[i].value;
                memset(&err, 0, sizeof err);
                assert_int_equal(eng_config_validate(&g, &cfg, NULL, 2, &err), -EINVAL);
                assert_string_equal(err.field, bad[i].field);
                assert_string_equal(err.message, bad[i].message);
                /* and NULL for the error is fine */
                assert_int_equal(eng_config_validate(&g, &cfg, NULL, 2, NULL), -EINVAL);
        }
        /* the seats first, then the values */
        cfg = good;
        cfg.v[S_ROUNDS] = 0;
        assert_int_equal(eng_config_validate(&g, &cfg, NULL, 99, &err), -EINVAL);
        assert_string_equal(err.field, "seats");
        /* a custom data file may not be longer than the game takes */
        assert_int_equal(eng_config_validate(&g, &good, &data, 2, &err), -EINVAL);
        assert_string_equal(err.field, "data.prompts");
        assert_string_equal(err.message, "data.prompts: is 17 bytes; at most 16 are accepted");
        data.len[0] = 16;
        assert_int_equal(eng_config_validate(&g, &good, &data, 2, &err), 0);
}

/* One value against its field: the messages every game's errors share. */
static void value_check_words_each_range_error(void **state) {
        static const char *const ab[] = { "a", "b" };
        static const struct {
                struct eng_field f;
                int64_t ok, bad;
                const char *message;
        } cases[] = {
                { { .type = ENG_T_INT, .min = 1, .max = 4 }, 4, 5, "x: must be 1..4" },
                { { .type = ENG_T_INT, .min = 1, .max = 4 }, 1, 0, "x: must be 1..4" },
                { { .type = ENG_T_TIME, .min = 0, .max = 10, .unit = "ms" }, 0, 11, "x: must be 0..10 ms" },
                { { .type = ENG_T_ENUM, .min = 0, .max = 1, .choices = ab }, 1, 2, "x: must be one of a, b" },
                { { .type = ENG_T_ENUM, .min = 0, .max = 1, .choices = ab }, 0, -1, "x: must be one of a, b" },
                { { .type = ENG_T_BOOL, .min = 0, .max = 1 }, 1, 2, "x: must be true or false" },
                { { .type = ENG_T_SEAT }, ENG_SEAT_TABLE, ENG_MAX_SEATS, "x: must be a seat 1..8" },
                { { .type = ENG_T_SEAT }, 0, -2, "x: must be a seat 1..8" },
                { { .type = ENG_T_SEATS }, 0xff, 0x100, "x: must list seats 1..8" },
                { { .type = ENG_T_HANDLE }, UINT32_MAX, INT64_C(1) << 32, "x: must be a card handle" },
                { { .type = ENG_T_BITS }, 0, -1, "x: must list bits 0..31" },
                { { .type = ENG_T_CALL, .min = 1, .max = 7 }, 7, 8, "x: must be 1..7" },
        };
        struct eng_error err;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                assert_int_equal(eng_value_check(&cases[i].f, "x", cases[i].ok, &err), 0);
                memset(&err, 0, sizeof err);
                assert_int_equal(eng_value_check(&cases[i].f, "x", cases[i].bad, &err), -ERANGE);
                assert_string_equal(err.field, "x");
                assert_string_equal(err.message, cases[i].message);
                assert_int_equal(eng_value_check(&cases[i].f, "x", cases[i].bad, NULL), -ERANGE);
        }
}

/* ---- Data files. */

/* A data file is read a line at a time: comments (from "#") and blank
 * lines are skipped, line numbers count every line, and a line's trailing
 * blanks (a "\r" included) are not part of it. */
static void data_lines_skip_comments_and_blanks_and_count_line_numbers(void **state) {
        static const char text[] =
                "# cards: object colour\n"      /* 1 */
                "\n"                            /* 2 */
                "alpha beta  \t\r\n"            /* 3 */
                "\t# indented comment\n"        /* 4 */
                "gamma#no blank before it\n"    /* 5 */
                "   \n"                         /* 6 */
                "delta # a comment\n"           /* 7 */
                "last";                         /* 8, no newline */
        static const struct {
                unsigned line_no;
                const char *line;
        } want[] = {
                { 3, "alpha beta" }, { 5, "gamma" }, { 7, "delta" }, { 8, "last" },
        };
        /* the comment line and the blank line */
        const size_t head = strlen("# cards: object colour\n\n");
        const char *start;
        size_t pos = 0, len;
        unsigned line_no = 0;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_int_equal(eng_data_next_line(text, strlen(text), &pos, &start, &len, &line_no), 1);
                assert_int_equal(line_no, want[i].line_no);
                assert_int_equal(len, strlen(want[i].line));
                assert_memory_equal(start, want[i].line, len);
        }
        assert_int_equal(eng_data_next_line(text, strlen(text), &pos, &start, &len, &line_no), 0);
        assert_int_equal(pos, strlen(text));
        /* the scan stops at len, not at a NUL */
        pos = 0;
        line_no = 0;
        assert_int_equal(eng_data_next_line(text, head, &pos, &start, &len, &line_no), 0);
        assert_int_equal(line_no, 2);
        pos = 0;
        line_no = 0;
        assert_int_equal(eng_data_next_line(text, head + 4, &pos, &start, &len, &line_no), 1);
        assert_int_equal(line_no, 3);
        assert_int_equal(len, 4);
        assert_memory_equal(start, "alph", 4);
        assert_int_equal(pos, head + 4);
        /* nothing at all */
        pos = 0;
        line_no = 0;
        assert_int_equal(eng_data_next_line("", 0, &pos, &start, &len, &line_no), 0);
        assert_int_equal(line_no, 0);
}

/* The file at each index: the custom one when given, else the built-in
 * one. */
static void data_files_are_custom_or_built_in(void **state) {
        struct eng_game g = synth_game();
        struct eng_data data = { .text = { "x\n" }, .len = { 2 } };
        const char *text;
        size_t len;

        (void) state;
        assert_int_equal(eng_data_file(&g, NULL, 0, &text, &len), 0);
        assert_string_equal(text, "one\ntwo\n");
        assert_int_equal(len, 8);
        assert_int_equal(eng_data_file(&g, &data, 0, &text, &len), 0);
        assert_ptr_equal(text, data.text[0]);
        assert_int_equal(len, 2);
        assert_int_equal(eng_data_file(&g, &data, 1, &text, &len), -EINVAL);
        assert_int_equal(eng_data_file(&cp_game, NULL, 0, &text, &len), -EINVAL);
}

/* ---- Card handles. */

/* A handle is a keyed bijection of 32 bits: eng_handle_card undoes
 * eng_handle and the other way round, for any value, and another key (from
 * another seed) maps the values elsewhere. */
static void handles_are_a_keyed_bijection(void **state) {
        uint64_t k1 = eng_handle_key(1), k2 = eng_handle_key(2);
        struct eng_rng rng;
        unsigned same = 0, fixed = 0;

        (void) state;
        assert_true(k1 != k2);
        assert_true(eng_handle_key(1) == k1);
        eng_rng_seed(&rng, 99);
        for (unsigned i = 0; i < 100000; i++) {
                uint32_t v = (uint32_t) eng_rng_next(&rng);
                uint32_t h = eng_handle(k1, v);

                if (eng_handle_card(k1, h) != v)
                        fail_msg("handle %08x of %08x does not come back", h, v);
                if (eng_handle(k1, eng_handle_card(k1, v)) != v)
                        fail_msg("%08x as a handle does not come back", v);
                same += eng_handle(k2, v) == h;
                fixed += h == v;
        }
        /* by chance, about one in 2^32 of either */
        assert_true(same <= 1);
        assert_true(fixed <= 1);
        /* the small card ids of a deck get distinct, scattered handles */
        for (uint32_t a = 0; a < 256; a++) {
                assert_true(eng_handle(k1, a) >= 256 || eng_handle(k1, a) != a);
                for (uint32_t b = 0; b < a; b++)
                        assert_true(eng_handle(k1, a) != eng_handle(k1, b));
        }
        assert_int_equal(eng_handle_card(k1, eng_handle(k1, 0)), 0);
        assert_int_equal(eng_handle_card(k1, eng_handle(k1, UINT32_MAX)), UINT32_MAX);
}

/* ---- Inputs, routes, calls and events by name. */

/* Every built-in input and every action of a game is found by its name. */
static void inputs_are_found_by_name(void **state) {
        enum eng_input_kind kind;
        unsigned action;
        struct eng_input in = { .kind = ENG_IN_ACTION, .action = CP_ACTION_VOID_CALL };

        (void) state;
        for (unsigned k = ENG_IN_START; k < ENG_IN_KINDS_END; k++) {
                const struct eng_input_def *def = eng_builtin_inputs[k];

                if (k == ENG_IN_ACTION) {
                        assert_null(def);
                        continue;
                }
                assert_non_null(def);
                assert_non_null(def->doc);
                action = 77;
                assert_int_equal(eng_input_find(&cp_game, def->name, &kind, &action), 0);
                assert_int_equal(kind, k);
                assert_int_equal(action, 0);
                assert_int_equal(eng_input_find(NULL, def->name, &kind, NULL), 0);
                assert_string_equal(eng_input_kind_name((enum eng_input_kind) k), def->name);
                in.kind = (enum eng_input_kind) k;
                assert_ptr_equal(eng_input_def_of(&cp_game, &in), def);
        }
        assert_int_equal(eng_input_find(&cp_game, "void_call", &kind, &action), 0);
        assert_int_equal(kind, ENG_IN_ACTION);
        assert_int_equal(action, CP_ACTION_VOID_CALL);
        assert_int_equal(eng_input_find(NULL, "void_call", &kind, &action), -ENOENT);
        assert_int_equal(eng_input_find(&cp_game, "Void", &kind, &action), -ENOENT);
        assert_int_equal(eng_input_find(&cp_game, "referee", &kind, &action), -ENOENT);
        assert_int_equal(eng_input_find(&cp_game, NULL, &kind, &action), -ENOENT);
        in.kind = ENG_IN_ACTION;
        in.action = CP_ACTION_VOID_CALL;
        assert_ptr_equal(eng_input_def_of(&cp_game, &in), &cp_game.actions[CP_ACTION_VOID_CALL]);
        in.action = CP_N_ACTIONS;
        assert_null(eng_input_def_of(&cp_game, &in));
        in.kind = (enum eng_input_kind) 0;
        assert_null(eng_input_def_of(&cp_game, &in));
        in.kind = ENG_IN_KINDS_END;
        assert_null(eng_input_def_of(&cp_game, &in));
        assert_null(eng_input_def_of(&cp_game, NULL));
}

/* The first route that takes a press decides; "any button" takes the
 * rest; a press no route takes goes nowhere. */
static void routes_take_a_press_by_role_and_button(void **state) {
        static const struct eng_route routes[] = {
                { .role = ENG_ROLE_BUTTONS, .button = 3, .kind = ENG_ROUTE_CALL, .call = 2 },
                { .role = ENG_ROLE_BUTTONS, .button = ENG_ANY_BUTTON, .kind = ENG_ROUTE_PRESS },
                { .role = ENG_ROLE_BUTTONS, .button = 4, .kind = ENG_ROUTE_CALL, .call = 1 },
                { .role = ENG_ROLE_KEYPAD, .button = 0, .kind = ENG_ROUTE_INPUT, .input = "start" },
                { .role = ENG_ROLE_KEYPAD, .button = 1, .kind = ENG_ROUTE_INPUT, .input = "pause" },
        };
        struct eng_game g = cp_game;

        (void) state;
        g.routes = routes;
        g.n_routes = ELEMENTSOF(routes);
        assert_ptr_equal(eng_route_find(&g, ENG_ROLE_BUTTONS, 3), &routes[0]);
        assert_ptr_equal(eng_route_find(&g, ENG_ROLE_BUTTONS, 4), &routes[1]);     /* first wins */
        assert_ptr_equal(eng_route_find(&g, ENG_ROLE_BUTTONS, 15), &routes[1]);
        assert_ptr_equal(eng_route_find(&g, ENG_ROLE_KEYPAD, 1), &routes[4]);
        assert_null(eng_route_find(&g, ENG_ROLE_KEYPAD, 2));
        assert_null(eng_route_find(&g, ENG_ROLE_SLAP, 0));
        assert_null(eng_route_find(NULL, ENG_ROLE_BUTTONS, 0));
        for (int r = ENG_ROLE_BUTTONS; r < ENG_ROLES_END; r++)
                assert_int_equal(eng_role_from_name(eng_role_name((enum eng_pad_role) r)), r);
        assert_string_equal(eng_role_name(ENG_ROLE_SLAP), "slap");
        assert_null(eng_role_name((enum eng_pad_role) 0));
        assert_null(eng_role_name((enum eng_pad_role) ENG_ROLES_END));
        assert_int_equal(eng_role_from_name("Buttons"), -EINVAL);
        assert_int_equal(eng_role_from_name(NULL), -EINVAL);
}

/* A call is found by its name whatever the case, blanks and punctuation:
 * what a person types into a form or a URL. */
static void calls_are_found_by_name_ignoring_case_blanks_and_punctuation(void **state) {
        static const struct {
                const char *name;
                int r, call;
        } cases[] = {
                { "row 1", 0, 1 }, { "row-1", 0, 1 }, { "ROW_1", 0, 1 }, { " Row  1 ", 0, 1 }, { "row1", 0, 1 },
                { "row 6", 0, 6 }, { "doesn't fit", 0, CP_CALL_DOESNT_FIT },
                { "doesnt_fit", 0, CP_CALL_DOESNT_FIT }, { "Doesn't-Fit!", 0, CP_CALL_DOESNT_FIT },
                { "row 12", -ENOENT, 0 }, { "row", -ENOENT, 0 }, { "row 7", -ENOENT, 0 },
                { "", -ENOENT, 0 }, { "--", -ENOENT, 0 }, { "1", -ENOENT, 0 },
        };
        int call;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                call = -99;
                if (eng_call_by_name(&cp_game, cases[i].name, &call) != cases[i].r)
                        fail_msg("\"%s\": not %d", cases[i].name, cases[i].r);
                if (cases[i].r == 0)
                        assert_int_equal(call, cases[i].call);
        }
        assert_int_equal(eng_call_by_name(&cp_game, NULL, &call), -EINVAL);
        assert_int_equal(eng_call_by_name(NULL, "row 1", &call), -EINVAL);
        assert_string_equal(eng_call_name(&cp_game, 1), "row 1");
        assert_null(eng_call_name(&cp_game, 0));                /* a gap */
        assert_null(eng_call_name(&cp_game, -1));
        assert_null(eng_call_name(&cp_game, (int64_t) cp_game.n_calls));
        assert_null(eng_call_name(NULL, 1));
}

/* Events are found by name, the game's and the framework's. */
static void events_are_found_by_name(void **state) {
        (void) state;
        assert_ptr_equal(eng_event_find(&cp_game, "card_revealed"), &cp_ev_card_revealed);
        assert_ptr_equal(eng_event_find(&cp_game, "match_finished"), &eng_ev_match_finished);
        assert_ptr_equal(eng_event_find(NULL, "inputs_voided"), &eng_ev_inputs_voided);
        assert_null(eng_event_find(NULL, "card_revealed"));
        assert_null(eng_event_find(&cp_game, "CardRevealed"));
        assert_null(eng_event_find(&cp_game, NULL));
        for (size_t i = 0; eng_framework_events[i]; i++) {
                const struct eng_event_def *ev = eng_framework_events[i];

                assert_non_null(ev->doc);
                assert_non_null(ev->text);
                assert_false(eng_output_is_request(&(struct eng_output) { .def = ev }));
        }
        for (size_t i = 0; eng_requests[i]; i++)
                assert_true(eng_output_is_request(&(struct eng_output) { .def = eng_requests[i] }));
}

/* ---- Outputs. */

/* The named overlays of eng_output and eng_input are the slots the field
 * tables lay out, so that code reading o->window.seats and code rendering
 * the fields by table (match/json) agree. */
static void overlays_name_the_slots_the_field_tables_lay_out(void **state) {
        /* not static: another unit's tables are no constant expression */
        const struct {
                const struct eng_field *f;
                size_t n;
                const char *name;
                int slot;
        } out[] = {
#define EV(def, name, member) { (def).fields, (def).n_fields, name, OUT_SLOT(member) }
                EV(eng_req_window_open, "window", window.window),
                EV(eng_req_window_open, "seats", window.seats),
                EV(eng_req_window_close, "window", window.window),
                EV(eng_req_pad_light, "button", light.button),
                EV(eng_req_pad_light, "mode", light.mode),
                EV(eng_req_pad_light, "duration_ms", light.duration_ms),
                EV(eng_req_pad_buzz, "pattern", buzz.pattern),
                EV(eng_req_pad_buzz, "duration_ms", buzz.duration_ms),
                EV(eng_req_pad_lockout, "buttons", lockout.buttons),
                EV(eng_ev_match_finished, "winner", finished.winner),
                EV(eng_ev_match_finished, "placements", finished.place),
                EV(eng_ev_inputs_voided, "target", voided.target),
                EV(eng_ev_inputs_voided, "count", voided.count),
#undef EV
        };
        static const struct {
                enum eng_input_kind kind;
                const char *name;
                int slot;
        } in[] = {
                { ENG_IN_CALL, "window", IN_SLOT(call.window) },
                { ENG_IN_CALL, "call", IN_SLOT(call.call) },
                { ENG_IN_CALL, "press_us", IN_SLOT(call.press_us) },
                { ENG_IN_TIE, "window", IN_SLOT(tie.window) },
                { ENG_IN_TIE, "seats", IN_SLOT(tie.seats) },
                { ENG_IN_TIE, "press_us", IN_SLOT(tie.press_us) },
                { ENG_IN_TIE, "calls", IN_SLOT(tie.n_calls) },
                { ENG_IN_PRESS, "role", IN_SLOT(press.role) },
                { ENG_IN_PRESS, "button", IN_SLOT(press.button) },
                { ENG_IN_PRESS, "press_us", IN_SLOT(press.press_us) },
                { ENG_IN_PRESS, "uncertainty_us", IN_SLOT(press.uncertainty_us) },
                { ENG_IN_PRESS, "received_us", IN_SLOT(press.received_us) },
                { ENG_IN_VOID, "target", IN_SLOT(void_.target) },
        };
        const struct eng_input_def *tie = eng_builtin_inputs[ENG_IN_TIE];

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(out); i++)
                if (eng_fields_offset(out[i].f, out[i].n, out[i].name) != out[i].slot)
                        fail_msg("output field %s is at slot %d, its overlay at %d", out[i].name,
                                 eng_fields_offset(out[i].f, out[i].n, out[i].name), out[i].slot);
        assert_int_equal(eng_fields_slots(eng_ev_match_finished.fields, eng_ev_match_finished.n_fields),
                         OUT_SLOT(finished.place) + ENG_MAX_SEATS);
        for (size_t i = 0; eng_framework_events[i]; i++)
                assert_true(eng_fields_slots(eng_framework_events[i]->fields, eng_framework_events[i]->n_fields) <=
                            ENG_MAX_VALUES);
        for (size_t i = 0; eng_requests[i]; i++)
                assert_true(eng_fields_slots(eng_requests[i]->fields, eng_requests[i]->n_fields) <= ENG_MAX_VALUES);
        for (size_t i = 0; i < ELEMENTSOF(in); i++) {
                const struct eng_input_def *def = eng_builtin_inputs[in[i].kind];

                if (eng_fields_offset(def->fields, def->n_fields, in[i].name) != in[i].slot)
                        fail_msg("%s.%s is at slot %d, its overlay at %d", def->name, in[i].name,
                                 eng_fields_offset(def->fields, def->n_fields, in[i].name), in[i].slot);
        }
        /* the tied calls: a count, then one slot per seat */
        assert_int_equal(IN_SLOT(tie.calls), IN_SLOT(tie.n_calls) + 1);
        assert_int_equal(eng_fields_slots(tie->fields, tie->n_fields), IN_SLOT(tie.calls) + ENG_TIE_CALLS);
        for (unsigned k = ENG_IN_START; k < ENG_IN_KINDS_END; k++)
                if (eng_builtin_inputs[k])
                        assert_true(eng_fields_slots(eng_builtin_inputs[k]->fields,
                                                     eng_builtin_inputs[k]->n_fields) <= ENG_MAX_ARGS);
}

/* eng_out_push zeroes each output, padding included, so two runs'
 * outputs compare with memcmp; it never writes past the buffer. */
static void output_buffer_is_zeroed_and_bounded(void **state) {
        struct eng_out *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        struct eng_output *o;

        (void) state;
        assert_non_null(a);
        assert_non_null(b);
        memset(a, 0xaa, sizeof *a);
        memset(b, 0x55, sizeof *b);
        eng_out_reset(a, 1);
        eng_out_reset(b, 1);
        assert_int_equal(a->n, 0);
        assert_int_equal(a->refusal, ENG_ACCEPTED);
        assert_int_equal(a->wake_us, 1);
        o = eng_out_push(a, &eng_ev_paused, ENG_SEAT_TABLE, 10);
        assert_ptr_equal(o->def, &eng_ev_paused);
        assert_int_equal(o->seat, ENG_SEAT_TABLE);
        assert_int_equal(o->at_us, 10);
        eng_out_push(b, &eng_ev_paused, ENG_SEAT_TABLE, 10);
        assert_memory_equal(&a->v[0], &b->v[0], sizeof a->v[0]);
        for (int i = 1; i < ENG_MAX_OUTPUTS; i++)
                assert_non_null(eng_out_push(a, &eng_ev_resumed, ENG_SEAT_TABLE, 11));
        assert_null(eng_out_push(a, &eng_ev_resumed, ENG_SEAT_TABLE, 12));
        assert_int_equal(a->n, ENG_MAX_OUTPUTS);
        free(a);
        free(b);
}

/* ---- Results. */

/* Smaller keys place better; equal keys share a place and the next place
 * is skipped; order lists equal seats in seat order. */
static void ranking_shares_places_only_between_equal_keys(void **state) {
        struct eng_result r = { .n_seats = 5 };
        const uint64_t key[ENG_MAX_SEATS] = { 30, 10, 30, 5, 40 };

        (void) state;
        eng_result_rank(&r, key);
        assert_int_equal(r.place[3], 1);
        assert_int_equal(r.place[1], 2);
        assert_int_equal(r.place[0], 3);
        assert_int_equal(r.place[2], 3);
        assert_int_equal(r.place[4], 5);
        assert_int_equal(r.order[0], 3);
        assert_int_equal(r.order[1], 1);
        assert_int_equal(r.order[2], 0);
        assert_int_equal(r.order[3], 2);
        assert_int_equal(r.order[4], 4);
        assert_int_equal(r.order[5], ENG_SEAT_TABLE);
        assert_int_equal(r.place[5], 0);
}

/* A seat's score is the sum of its terms, over the game's terms only. */
static void score_is_the_sum_of_the_terms(void **state) {
        struct eng_result r = { .n_seats = 2 };

        (void) state;
        r.terms[0][0] = 5;
        r.terms[0][1] = -2;
        r.terms[0][2] = 100;            /* no third term: not counted */
        r.terms[1][1] = 7;
        r.score[2] = 9;                 /* no third seat: left alone */
        eng_result_sum(&r, 2);
        assert_int_equal(r.score[0], 3);
        assert_int_equal(r.score[1], 7);
        assert_int_equal(r.score[2], 9);
}

/* ---- Names. */

/* Names are stable strings; anything unknown is "unknown". */
/* The checks every input passes first, in their order. */
static void inputs_keep_their_order(void **state) {
        struct eng_input in = { .seq = 5, .time_us = 100 };
        (void) state;

        assert_int_equal(eng_input_order(&in, false, 0, 0), ENG_ACCEPTED);
        assert_int_equal(eng_input_order(&in, true, 4, 100), ENG_ACCEPTED);
        assert_int_equal(eng_input_order(&in, true, 5, 0), ENG_REFUSED_SEQ);
        assert_int_equal(eng_input_order(&in, true, 4, 101), ENG_REFUSED_TIME);
        in.time_us = ENG_TIME_LIMIT_US + 1;
        assert_int_equal(eng_input_order(&in, false, 0, 0), ENG_REFUSED_INVALID);
        assert_int_equal(eng_input_order(&in, true, 9, 0), ENG_REFUSED_SEQ);     /* seq first */
        in.time_us = -ENG_TIME_LIMIT_US;
        assert_true(eng_time_ok(in.time_us));
        assert_int_equal(eng_input_order(&in, true, 4, -ENG_TIME_LIMIT_US), ENG_ACCEPTED);
}

static void names_are_stable(void **state) {
        (void) state;
        assert_string_equal(eng_input_kind_name(ENG_IN_TIE), "tie");
        assert_string_equal(eng_input_kind_name(ENG_IN_VOID), "void");
        assert_string_equal(eng_input_kind_name(ENG_IN_CONFIRM), "confirm");
        assert_string_equal(eng_input_kind_name(ENG_IN_ACTION), "action");
        assert_string_equal(eng_input_kind_name((enum eng_input_kind) 0), "unknown");
        assert_string_equal(eng_input_kind_name((enum eng_input_kind) 1000), "unknown");
        assert_string_equal(eng_refusal_name(ENG_REFUSED_TOO_LATE), "too late");
        assert_string_equal(eng_refusal_name(ENG_REFUSED_UNSUPPORTED), "not used by this game");
        assert_string_equal(eng_refusal_name((enum eng_refusal) 1000), "unknown");
        assert_string_equal(eng_status_name(ENG_STATUS_PAUSED), "paused");
        assert_string_equal(eng_status_name((enum eng_status) 0), "unknown");
        assert_string_equal(eng_audience_name(ENG_VIEW_REFEREE), "referee");
        assert_string_equal(eng_audience_name((enum eng_audience) 9), "unknown");
        assert_string_equal(eng_type_name(ENG_T_RECORDS), "records");
        assert_string_equal(eng_type_name(ENG_T_HANDLE), "handle");
        assert_string_equal(eng_type_name((enum eng_type) 0), "unknown");
        assert_string_equal(eng_type_name((enum eng_type) 99), "unknown");
}

/* ---- Replay. */

/* The generic replay rebuilds a match from its log, refusals included, in
 * caller-allocated memory of state_size bytes; a setup that does not
 * validate is refused. */
static void replay_rebuilds_a_match_in_caller_memory(void **state) {
        const struct eng_game *g = &cp_game;
        struct eng_input *in = calloc(4096, sizeof *in);
        struct eng_record *log = calloc(4096, sizeof *log);
        struct cp_sim_params p;
        struct cp_sim_stats s;
        struct eng_config cfg;
        struct cp_state live;
        struct eng_setup setup = { .game = g, .cfg = &cfg, .n_seats = 3, .seed = 5 };
        void *copy = calloc(1, g->state_size);
        size_t refused;

        (void) state;
        assert_non_null(in);
        assert_non_null(log);
        assert_non_null(copy);
        eng_config_defaults(g, &cfg);
        cp_sim_params_default(&p);
        assert_int_equal(cp_sim_match(&live, &cfg, 3, 5, 6, &p, in, 4096, NULL, NULL, &s), 0);
        for (size_t i = 0; i < s.inputs; i++)
                log[i] = (struct eng_record) { .in = in[i], .refusal = ENG_REFUSED_INVALID, .voided_by = 77 };
        assert_int_equal(eng_replay(&setup, copy, log, s.inputs, &refused), 0);
        assert_int_equal(refused, s.refused);
        assert_true(g->hash(copy) == g->hash(&live));
        assert_memory_equal(copy, &live, g->state_size);
        assert_int_equal(g->status(copy), ENG_STATUS_FINISHED);
        /* each record's refusal and voided_by come out as they were live */
        for (size_t i = 0; i < s.inputs; i++)
                assert_int_equal(log[i].voided_by, 0);
        cfg.v[CP_PARAM_COPIES] = 9;
        assert_int_equal(eng_replay(&setup, copy, log, s.inputs, NULL), -EINVAL);
        assert_int_equal(eng_replay(&setup, copy, NULL, 1, NULL), -EINVAL);
        free(copy);
        free(log);
        free(in);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_game_is_registered_with_a_complete_method_table),
                cmocka_unit_test(game_check_names_the_first_problem),
                cmocka_unit_test(a_walk_writes_through_and_keeps_the_first_error),
                cmocka_unit_test(settings_are_set_by_key_and_errors_name_the_field),
                cmocka_unit_test(enum_settings_are_set_by_choice_name),
                cmocka_unit_test(settings_of_every_shape_are_laid_out_in_slots),
                cmocka_unit_test(config_validation_names_the_list_element_or_record_field_at_fault),
                cmocka_unit_test(value_check_words_each_range_error),
                cmocka_unit_test(data_lines_skip_comments_and_blanks_and_count_line_numbers),
                cmocka_unit_test(data_files_are_custom_or_built_in),
                cmocka_unit_test(handles_are_a_keyed_bijection),
                cmocka_unit_test(inputs_are_found_by_name),
                cmocka_unit_test(routes_take_a_press_by_role_and_button),
                cmocka_unit_test(calls_are_found_by_name_ignoring_case_blanks_and_punctuation),
                cmocka_unit_test(events_are_found_by_name),
                cmocka_unit_test(overlays_name_the_slots_the_field_tables_lay_out),
                cmocka_unit_test(output_buffer_is_zeroed_and_bounded),
                cmocka_unit_test(ranking_shares_places_only_between_equal_keys),
                cmocka_unit_test(score_is_the_sum_of_the_terms),
                cmocka_unit_test(inputs_keep_their_order),
                cmocka_unit_test(names_are_stable),
                cmocka_unit_test(replay_rebuilds_a_match_in_caller_memory),
        };

        return cmocka_run_group_tests_name("engine_framework", tests, NULL, NULL);
}
