/* Crazy Pilot's card catalogue (engine/crazy_cards.h,
 * docs/games/crazy-pilot-cards.md): the built-in catalogue parses, holds
 * the rulebook's 94 cards in the documented distribution, and every card's
 * scene calls for the answer on its back; a custom catalogue's every kind
 * of error names its line, its card and its field; the rules of the road
 * decide as the page says; a face never shows the answer, the id or the
 * zombie flag. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/crazy_cards.h"
#include "engine/engine.h"
#include "test_engine_json.h"

#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))

/* Big: one of each is enough. */
static struct cz_catalogue cat;
static char big[CZ_CARDS_MAX_LEN + 64];

static int parse(const char *text, struct eng_error *err) {
        memset(err, 0, sizeof *err);
        return cz_catalogue_parse(text, strlen(text), &cat, err);
}

static void parse_builtin(void) {
        struct eng_error err;
        int r = parse(cz_builtin_cards, &err);

        if (r < 0)
                fail_msg("the built-in catalogue does not parse: %s", err.message);
}

/* The error of a one-card catalogue: field "data.cards line N", and the
 * message names the card and holds what. */
static void expect_error(const char *text, unsigned line, const char *id, const char *what) {
        struct eng_error err;
        char field[ENG_FIELD_MAX], card[64];

        assert_int_equal(parse(text, &err), -EINVAL);
        snprintf(field, sizeof field, "data.cards line %u", line);
        assert_string_equal(err.field, field);
        assert_true(strncmp(err.message, field, strlen(field)) == 0);
        if (id) {
                snprintf(card, sizeof card, "(card %s): ", id);
                if (!strstr(err.message, card))
                        fail_msg("\"%s\" does not name card %s", err.message, id);
        }
        if (!strstr(err.message, what))
                fail_msg("\"%s\" does not say \"%s\"", err.message, what);
}

static const char *face_json(const struct cz_card *card, struct tj *j) {
        tj_init(j);
        assert_int_equal(cz_card_face_visit(card, &tj_visitor, j), 0);
        assert_true(tj_balanced(j));
        return tj_finish(j);
}

/* ---- The built-in catalogue. */

static void builtin_catalogue_parses(void **state) {
        (void) state;
        parse_builtin();
        assert_true(cat.n >= 1);
}

static void every_builtin_card_scene_calls_for_its_answer(void **state) {
        (void) state;
        parse_builtin();
        for (unsigned i = 0; i < cat.n; i++) {
                const struct cz_card *c = &cat.cards[i];
                const char *why = NULL;
                enum cz_answer a = cz_scene_answer(&c->scene, &why);

                assert_non_null(why);
                if (a != c->answer)
                        fail_msg("card %s: its back says %s but its scene calls for %s: %s", c->id,
                                 cz_answer_name(c->answer), cz_answer_name(a), why);
        }
}

/* The rulebook's 94 situation cards, in the distribution the cards page
 * documents. */
static void builtin_holds_94_cards_in_the_documented_distribution(void **state) {
        static const unsigned want[CZ_N_ANSWERS] = {
                [CZ_ANS_STRAIGHT] = 14, [CZ_ANS_LEFT] = 12, [CZ_ANS_RIGHT] = 12, [CZ_ANS_UTURN] = 12,
                [CZ_ANS_HAND] = 14, [CZ_ANS_ZOMBIE] = 14, [CZ_ANS_FORK_LEFT] = 8, [CZ_ANS_FORK_RIGHT] = 8,
        };
        unsigned got[CZ_N_ANSWERS] = { 0 }, total = 0;

        (void) state;
        parse_builtin();
        assert_int_equal(cat.n, CZ_DEFAULT_CARDS);
        for (unsigned i = 0; i < cat.n; i++)
                got[cat.cards[i].answer]++;
        for (unsigned a = 0; a < CZ_N_ANSWERS; a++) {
                if (got[a] != want[a])
                        fail_msg("%u %s cards, not %u", got[a], cz_answer_name(a), want[a]);
                total += want[a];
        }
        assert_int_equal(total, CZ_DEFAULT_CARDS);
}

static void builtin_ids_are_unique_and_zombie_flags_agree(void **state) {
        (void) state;
        parse_builtin();
        for (unsigned i = 0; i < cat.n; i++) {
                bool item = false;

                for (unsigned j = 0; j < i; j++)
                        if (strcmp(cat.cards[i].id, cat.cards[j].id) == 0)
                                fail_msg("card %s twice", cat.cards[i].id);
                for (unsigned k = 0; k < cat.cards[i].scene.n_items; k++)
                        item |= cat.cards[i].scene.items[k].kind == CZ_ITEM_ZOMBIE;
                if (item != cat.cards[i].zombie || item != (cat.cards[i].answer == CZ_ANS_ZOMBIE))
                        fail_msg("card %s: zombie flag, zombie item and answer disagree", cat.cards[i].id);
        }
}

/* ---- A custom catalogue's errors: each names its line, card and field. */

static void error_unknown_answer(void **state) {
        (void) state;
        expect_error("# a comment\n\nx1 sideways road=straight lanes=1 car=1 | A road\n", 3, "x1",
                     "answer: \"sideways\" is not one of straight, left, right, u_turn");
}

static void error_bad_lane_count(void **state) {
        (void) state;
        expect_error("x1 straight road=straight lanes=4 car=1 | A road\n", 1, "x1", "lanes: \"4\" must be 1..3");
        expect_error("x1 straight road=straight lanes=0 car=1 | A road\n", 1, "x1", "lanes:");
        expect_error("x1 straight road=straight lanes=two car=1 | A road\n", 1, "x1", "lanes:");
}

static void error_car_lane_out_of_range(void **state) {
        (void) state;
        expect_error("x1 straight road=straight lanes=1 car=1 | A road\n"
                     "x2 straight road=straight lanes=2 car=3 | A road\n", 2, "x2",
                     "car: lane 3 is not a lane of the road (1..2)");
}

static void error_item_lane_out_of_range(void **state) {
        (void) state;
        expect_error("x1 straight road=straight lanes=1 car=1 items=cow@3/1 | A cow\n", 1, "x1",
                     "items[0]: lane 3 must be 0..2");
        expect_error("x1 straight road=straight lanes=1 car=1 items=cow@0/1,cow@9/1 | Cows\n", 1, "x1",
                     "items[1]: lane 9 must be 0..4");
        expect_error("x1 straight road=straight lanes=1 car=1 items=cow@0/4 | A cow\n", 1, "x1",
                     "items[0]: row 4 must be 1..3");
}

static void error_duplicate_id(void **state) {
        (void) state;
        expect_error("x1 straight road=straight lanes=1 car=1 | A road\n"
                     "x2 straight road=straight lanes=1 car=1 | A road\n"
                     "x1 straight road=straight lanes=1 car=1 | A road\n", 3, "x1",
                     "id: \"x1\" is already card 1's");
}

static void error_zombie_flag_inconsistent(void **state) {
        (void) state;
        expect_error("x1 zombie road=straight lanes=1 car=1 items=zombie@0/3 | A zombie\n", 1, "x1",
                     "zombie: is no but items[0] is a zombie");
        expect_error("x1 straight road=straight lanes=1 car=1 zombie=yes | A road\n", 1, "x1",
                     "zombie: is yes but no item of the scene is a zombie");
        expect_error("x1 hand road=straight lanes=1 car=1 items=zombie@0/3 zombie=yes | A zombie\n", 1, "x1",
                     "answer: is hand but the card holds a zombie");
}

static void error_answer_disagrees_with_scene(void **state) {
        (void) state;
        expect_error("x1 straight road=crossroads lanes=1 car=1 light=red | A red light\n", 1, "x1",
                     "answer: is straight but the scene calls for hand (a red light");
        expect_error("x1 hand road=straight lanes=2 car=1 items=monster@2/2 | A monster\n", 1, "x1",
                     "answer: is hand but the scene calls for u_turn (a monster");
}

static void error_too_many_items(void **state) {
        (void) state;
        expect_error("x1 straight road=straight lanes=1 car=1 "
                     "items=cow@0/1,cow@0/2,cow@0/3,cow@2/1,cow@2/2,cow@2/3,dog@0/1,dog@0/2,dog@0/3 | Cows\n",
                     1, "x1", "items: holds more than 8 items");
}

static void error_too_long_text(void **state) {
        char line[512];

        (void) state;
        snprintf(line, sizeof line, "x1 straight road=straight lanes=1 car=1 | %0*d\n", CZ_TEXT_MAX + 1, 0);
        expect_error(line, 1, "x1", "text: is 121 characters; at most 120");
        snprintf(line, sizeof line, "x1 straight road=straight lanes=1 car=1 | %0*d\n", CZ_TEXT_MAX, 0);
        assert_int_equal(parse(line, &(struct eng_error) { 0 }), 0);
}

static void error_too_many_cards(void **state) {
        size_t at = 0;

        (void) state;
        for (unsigned i = 1; i <= CZ_MAX_CARDS + 1; i++)
                at += (size_t) snprintf(big + at, sizeof big - at,
                                        "k%u straight road=straight lanes=1 car=1 | An empty road\n", i);
        expect_error(big, CZ_MAX_CARDS + 1, "k129", "is card 129; at most 128 are accepted");
        /* 128 is fine. */
        *strstr(big, "k129") = '\0';
        assert_int_equal(parse(big, &(struct eng_error) { 0 }), 0);
        assert_int_equal(cat.n, CZ_MAX_CARDS);
}

static void error_empty_file(void **state) {
        struct eng_error err;

        (void) state;
        assert_int_equal(parse("", &err), -EINVAL);
        assert_string_equal(err.field, "data.cards");
        assert_string_equal(err.message, "data.cards: holds no card; 1 to 128 are needed");
        assert_int_equal(parse("# only a comment\n\n   \n", &err), -EINVAL);
        assert_string_equal(err.field, "data.cards");
}

static void error_garbage_bytes(void **state) {
        static const char text[] = "x1 straight road=straight lanes=1 car=1 | A road\n"
                                   "x2 straight road=str\x07ight lanes=1 car=1 | A road\n";

        (void) state;
        expect_error(text, 2, NULL, "holds byte 0x07 at column 21; a card line is printable ASCII");
        /* A NUL inside the given length is garbage too. */
        {
                struct eng_error err;

                assert_int_equal(cz_catalogue_parse("x1 straight\0 road", 17, &cat, &err), -EINVAL);
                assert_string_equal(err.field, "data.cards line 1");
                assert_non_null(strstr(err.message, "holds byte 0x00 at column 12"));
        }
}

/* ---- Faces. */

static void face_is_the_text_and_the_scene_only(void **state) {
        static const char text[] =
                "c02 hand road=crossroads lanes=2 car=1 light=red marking=zebra items=bicycle@3/1,pedestrian@0/2 "
                "| A red light at a crossroads; a cyclist waits on the right\n";
        struct eng_error err;
        struct tj j;

        (void) state;
        assert_int_equal(parse(text, &err), 0);
        assert_string_equal(face_json(&cat.cards[0], &j),
                            "{\"name\":\"A red light at a crossroads; a cyclist waits on the right\","
                            "\"scene\":{\"road\":\"crossroads\",\"lanes\":2,\"car_lane\":1,\"light\":\"red\","
                            "\"sign\":\"none\",\"marking\":\"zebra\",\"items\":[{\"kind\":\"bicycle\",\"lane\":3,"
                            "\"row\":1},{\"kind\":\"pedestrian\",\"lane\":0,\"row\":2}]}}");
}

static void no_face_shows_its_answer_or_id(void **state) {
        (void) state;
        parse_builtin();
        for (unsigned i = 0; i < cat.n; i++) {
                const struct cz_card *c = &cat.cards[i];
                struct tj j;
                const char *json = face_json(c, &j);
                char id[CZ_ID_MAX + 4];

                snprintf(id, sizeof id, "\"%s\"", c->id);
                if (strstr(json, id) || strstr(json, "\"answer\"") || strstr(json, "\"zombie\":true") ||
                    strstr(json, "\"zombie\":false") || strstr(json, "\"id\""))
                        fail_msg("card %s: its face %s shows its id, answer or zombie flag", c->id, json);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(builtin_catalogue_parses),
                cmocka_unit_test(every_builtin_card_scene_calls_for_its_answer),
                cmocka_unit_test(builtin_holds_94_cards_in_the_documented_distribution),
                cmocka_unit_test(builtin_ids_are_unique_and_zombie_flags_agree),
                cmocka_unit_test(error_unknown_answer),
                cmocka_unit_test(error_bad_lane_count),
                cmocka_unit_test(error_car_lane_out_of_range),
                cmocka_unit_test(error_item_lane_out_of_range),
                cmocka_unit_test(error_duplicate_id),
                cmocka_unit_test(error_zombie_flag_inconsistent),
                cmocka_unit_test(error_answer_disagrees_with_scene),
                cmocka_unit_test(error_too_many_items),
                cmocka_unit_test(error_too_long_text),
                cmocka_unit_test(error_too_many_cards),
                cmocka_unit_test(error_empty_file),
                cmocka_unit_test(error_garbage_bytes),
                cmocka_unit_test(face_is_the_text_and_the_scene_only),
                cmocka_unit_test(no_face_shows_its_answer_or_id),
        };

        return cmocka_run_group_tests_name("crazy_cards", tests, NULL, NULL);
}
