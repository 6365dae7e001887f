/* engine/engine.h, the parts every game shares: the registry, settings by
 * schema, ranking, replay, outputs as a visitor walk, and the names used in
 * JSON and the database. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crash_pilot.h"
#include "engine/engine.h"
#include "test_engine_json.h"

/* Every registered game is complete and names itself consistently. */
static void every_game_is_registered_with_a_complete_method_table(void **state) {
        size_t n = 0;

        (void) state;
        for (size_t i = 0; eng_games[i]; i++, n++) {
                const struct eng_game *g = eng_games[i];

                assert_ptr_equal(eng_game_find(g->name), g);
                assert_non_null(g->display_name);
                assert_true(g->min_seats >= 1 && g->min_seats <= g->max_seats);
                assert_true(g->max_seats <= ENG_MAX_SEATS);
                assert_true(g->n_params <= ENG_MAX_PARAMS);
                assert_true(g->max_outputs <= ENG_MAX_OUTPUTS);
                assert_true(g->state_size > 0);
                assert_non_null(g->validate);
                assert_non_null(g->create);
                assert_non_null(g->apply);
                assert_non_null(g->status);
                assert_non_null(g->wake_us);
                assert_non_null(g->view);
                assert_non_null(g->hash);
                assert_non_null(g->result);
                assert_non_null(g->card_visit);
                assert_non_null(g->call_name);
                assert_non_null(g->call_of_button);
                for (size_t p = 0; p < g->n_params; p++) {
                        const struct eng_param *prm = &g->params[p];

                        assert_non_null(prm->key);
                        assert_non_null(prm->doc);
                        assert_true(prm->min <= prm->def && prm->def <= prm->max);
                        assert_int_equal(eng_param_find(g, prm->key), (int) p);
                }
        }
        assert_int_equal(n, 1);
        assert_ptr_equal(eng_game_find("crash-pilot"), &cp_game);
        assert_null(eng_game_find("crash pilot"));
        assert_null(eng_game_find(NULL));
}

/* Settings are set by key through the schema, with errors that name the
 * field; defaults validate for every seat count. */
static void settings_are_set_by_key_and_errors_name_the_field(void **state) {
        const struct eng_game *g = &cp_game;
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        eng_config_defaults(g, &cfg);
        for (unsigned n = g->min_seats; n <= g->max_seats; n++)
                assert_int_equal(eng_config_validate(g, &cfg, n, &err), 0);
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
        assert_int_equal(eng_config_validate(g, &cfg, 9, &err), -EINVAL);
        assert_string_equal(err.field, "seats");
        assert_string_equal(err.message, "seats: must be 2..5");
}

/* A game-independent enum setting, as Pitch Fleet's mode will be. */
static void enum_settings_are_set_by_choice_name(void **state) {
        static const char *const modes[] = { "team", "solo" };
        static const struct eng_param params[] = {
                { .key = "mode", .type = ENG_PARAM_ENUM, .min = 0, .max = 1, .def = 0,
                  .choices = modes, .doc = "Team race or solo challenges." },
                { .key = "advanced", .type = ENG_PARAM_BOOL, .min = 0, .max = 1, .def = 0,
                  .doc = "Advanced power cards." },
        };
        struct eng_game g = cp_game;
        struct eng_config cfg;
        struct eng_error err;

        (void) state;
        g.params = params;
        g.n_params = 2;
        eng_config_defaults(&g, &cfg);
        assert_int_equal(eng_config_set_choice(&g, &cfg, "mode", "solo", &err), 0);
        assert_int_equal(cfg.v[0], 1);
        assert_int_equal(eng_config_set_choice(&g, &cfg, "mode", "duo", &err), -ERANGE);
        assert_string_equal(err.message, "mode: must be one of team, solo");
        assert_int_equal(eng_config_set(&g, &cfg, "advanced", 2, &err), -ERANGE);
        assert_string_equal(err.message, "advanced: must be true or false");
}

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

/* Outputs reach JSON without api/ decoding any union. */
static void outputs_walk_as_json_fields(void **state) {
        struct eng_out out;
        struct eng_output *o;
        struct tj j;

        (void) state;
        eng_out_reset(&out, ENG_NEVER);
        o = eng_out_push(&out, ENG_EV_CALL_JUDGED, 2, 1234);
        o->judged.call = CP_CALL_DOESNT_FIT;
        o->judged.verdict = ENG_VERDICT_WRONG;
        o->judged.reaction_us = 456789;
        o->judged.window = 7;
        o->judged.card = CP_CARD(1, 2, 3);
        tj_init(&j);
        assert_int_equal(eng_output_visit(&cp_game, o, &tj_visitor, &j), 0);
        assert_string_equal(tj_finish(&j),
                            "{\"kind\":\"call_judged\",\"seat\":2,\"at_us\":1234,\"call\":7,"
                            "\"call_name\":\"doesn't fit\",\"verdict\":\"wrong\","
                            "\"reaction_us\":456789,\"window\":7,"
                            "\"card\":{\"id\":83,\"object\":2,\"colour\":3}}");

        o = eng_out_push(&out, ENG_EV_MATCH_FINISHED, 1, 99);
        o->finished.winner = 1;
        o->finished.n_seats = 3;
        o->finished.place[0] = 2;
        o->finished.place[1] = 1;
        o->finished.place[2] = 2;
        tj_init(&j);
        assert_int_equal(eng_output_visit(&cp_game, o, &tj_visitor, &j), 0);
        assert_string_equal(tj_finish(&j),
                            "{\"kind\":\"match_finished\",\"seat\":1,\"at_us\":99,\"winner\":1,"
                            "\"placements\":[2,1,2]}");

        o = eng_out_push(&out, ENG_REQ_WINDOW_OPEN, ENG_SEAT_TABLE, 5);
        o->window.window = 3;
        o->window.seats = 0x5;
        tj_init(&j);
        assert_int_equal(eng_output_visit(&cp_game, o, &tj_visitor, &j), 0);
        assert_string_equal(tj_finish(&j),
                            "{\"kind\":\"window_open\",\"seat\":null,\"at_us\":5,\"window\":3,"
                            "\"seats\":[0,2]}");
        assert_int_equal(out.n, 3);
}

/* eng_out_push zeroes each output, padding included, so two runs'
 * outputs compare with memcmp; it never writes past the buffer. */
static void output_buffer_is_zeroed_and_bounded(void **state) {
        struct eng_out *a = malloc(sizeof *a), *b = malloc(sizeof *b);

        (void) state;
        memset(a, 0xaa, sizeof *a);
        memset(b, 0x55, sizeof *b);
        eng_out_reset(a, 1);
        eng_out_reset(b, 1);
        eng_out_push(a, ENG_EV_PAUSED, ENG_SEAT_TABLE, 10);
        eng_out_push(b, ENG_EV_PAUSED, ENG_SEAT_TABLE, 10);
        assert_memory_equal(&a->v[0], &b->v[0], sizeof a->v[0]);
        for (int i = 1; i < ENG_MAX_OUTPUTS; i++)
                assert_non_null(eng_out_push(a, ENG_EV_RESUMED, ENG_SEAT_TABLE, 11));
        assert_null(eng_out_push(a, ENG_EV_RESUMED, ENG_SEAT_TABLE, 12));
        assert_int_equal(a->n, ENG_MAX_OUTPUTS);
        free(a);
        free(b);
}

/* Names are stable strings; anything unknown is "unknown". */
static void names_are_stable(void **state) {
        (void) state;
        assert_string_equal(eng_input_kind_name(ENG_IN_TIE), "tie");
        assert_string_equal(eng_output_kind_name(ENG_EV_TIEBREAK_STARTED), "tiebreak_started");
        assert_string_equal(eng_output_kind_name(ENG_REQ_PAD_LOCKOUT), "pad_lockout");
        assert_string_equal(eng_output_kind_name((enum eng_output_kind) 40), "unknown");
        assert_string_equal(eng_refusal_name(ENG_REFUSED_TOO_LATE), "too late");
        assert_string_equal(eng_verdict_name(ENG_VERDICT_NOT_ALLOWED), "not_allowed");
        assert_string_equal(eng_cause_name(ENG_CAUSE_DOESNT_FIT), "doesnt_fit");
        assert_string_equal(eng_status_name(ENG_STATUS_PAUSED), "paused");
        assert_string_equal(eng_status_name((enum eng_status) 0), "unknown");
        assert_string_equal(eng_refusal_name((enum eng_refusal) 1000), "unknown");
}

/* The generic replay rebuilds a match from its log, refusals included, in
 * caller-allocated memory of state_size bytes. */
static void replay_rebuilds_a_match_in_caller_memory(void **state) {
        const struct eng_game *g = &cp_game;
        struct eng_input log[4096];
        struct cp_sim_params p;
        struct cp_sim_stats s;
        struct eng_config cfg;
        struct cp_state live;
        void *copy = calloc(1, g->state_size);
        size_t refused;

        (void) state;
        eng_config_defaults(g, &cfg);
        cp_sim_params_default(&p);
        assert_int_equal(cp_sim_match(&live, &cfg, 3, 5, 6, &p, log, 4096, NULL, NULL, &s), 0);
        assert_int_equal(eng_replay(g, copy, &cfg, 3, 5, log, s.inputs, &refused), 0);
        assert_int_equal(refused, s.refused);
        assert_true(g->hash(copy) == g->hash(&live));
        assert_int_equal(g->status(copy), ENG_STATUS_FINISHED);
        cfg.v[CP_PARAM_COPIES] = 9;
        assert_int_equal(eng_replay(g, copy, &cfg, 3, 5, log, s.inputs, NULL), -EINVAL);
        free(copy);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_game_is_registered_with_a_complete_method_table),
                cmocka_unit_test(settings_are_set_by_key_and_errors_name_the_field),
                cmocka_unit_test(enum_settings_are_set_by_choice_name),
                cmocka_unit_test(ranking_shares_places_only_between_equal_keys),
                cmocka_unit_test(outputs_walk_as_json_fields),
                cmocka_unit_test(output_buffer_is_zeroed_and_bounded),
                cmocka_unit_test(names_are_stable),
                cmocka_unit_test(replay_rebuilds_a_match_in_caller_memory),
        };

        return cmocka_run_group_tests_name("engine_framework", tests, NULL, NULL);
}
