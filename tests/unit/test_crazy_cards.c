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
#include <strings.h>
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

/* The words a text may use for each element of a scene: a text must name
 * every kind of item, the light, the sign, the marking and the road's shape
 * its scene holds (a word counts where a word starts: "Cows" names a cow). */
static const char *const item_words[CZ_N_ITEMS][8] = {
        [CZ_ITEM_CAR] = { "car" }, [CZ_ITEM_TRUCK] = { "truck", "lorry" }, [CZ_ITEM_BUS] = { "bus" },
        [CZ_ITEM_TRACTOR] = { "tractor" }, [CZ_ITEM_BICYCLE] = { "cyclist", "bicycle", "bike" },
        [CZ_ITEM_PEDESTRIAN] = { "pedestrian", "man", "woman", "people", "someone", "hiker", "walker" },
        [CZ_ITEM_CHILD] = { "child", "kid", "boy", "girl" }, [CZ_ITEM_DOG] = { "dog" },
        [CZ_ITEM_COW] = { "cow", "herd", "cattle" }, [CZ_ITEM_BALL] = { "ball" }, [CZ_ITEM_CONE] = { "cone" },
        [CZ_ITEM_ROADWORKS] = { "roadworks" }, [CZ_ITEM_TREE] = { "tree" },
        [CZ_ITEM_ROCK] = { "rock", "boulder" }, [CZ_ITEM_HOLE] = { "hole", "pothole", "crater" },
        [CZ_ITEM_FLOOD] = { "flood" }, [CZ_ITEM_MONSTER] = { "monster" }, [CZ_ITEM_TRAIN] = { "train" },
        [CZ_ITEM_ZOMBIE] = { "zombie" }, [CZ_ITEM_SCARECROW] = { "scarecrow" },
        [CZ_ITEM_MANNEQUIN] = { "mannequin" },
};
static const char *const road_words[CZ_N_ROADS] = {
        [CZ_ROAD_FORK_LEFT] = "fork", [CZ_ROAD_FORK_RIGHT] = "fork", [CZ_ROAD_CROSSROADS] = "crossroads",
        [CZ_ROAD_T_JUNCTION] = "T-junction", [CZ_ROAD_DEAD_END] = "dead end",
};
static const char *const light_words[CZ_N_LIGHTS] = {
        [CZ_LIGHT_RED] = "red light", [CZ_LIGHT_AMBER] = "amber light", [CZ_LIGHT_GREEN] = "green light",
};
static const char *const sign_words[CZ_N_SIGNS] = {
        [CZ_SIGN_STOP] = "stop sign", [CZ_SIGN_GIVE_WAY] = "give way sign", [CZ_SIGN_NO_ENTRY] = "no entry sign",
        [CZ_SIGN_ROAD_CLOSED] = "road closed sign", [CZ_SIGN_KEEP_LEFT] = "keep left sign",
        [CZ_SIGN_KEEP_RIGHT] = "keep right sign", [CZ_SIGN_SPEED_LIMIT] = "speed limit sign",
};
static const char *const marking_words[CZ_N_MARKINGS] = {
        [CZ_MARK_ZEBRA] = "zebra crossing", [CZ_MARK_LEVEL_CROSSING] = "level crossing",
};

static bool is_letter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* word, case-blind, where a word of text starts. */
static bool says(const char *text, const char *word) {
        size_t n = strlen(word);

        for (const char *p = text; *p; p++)
                if ((p == text || !is_letter(p[-1])) && strncasecmp(p, word, n) == 0)
                        return true;
        return false;
}

static void expect_says(const struct cz_card *c, const char *what, const char *word) {
        if (word && !says(c->text, word))
                fail_msg("card %s: \"%s\" does not say \"%s\" (%s)", c->id, c->text, word, what);
}

static void every_builtin_text_names_what_its_scene_holds(void **state) {
        (void) state;
        parse_builtin();
        for (unsigned i = 0; i < cat.n; i++) {
                const struct cz_card *c = &cat.cards[i];
                const struct cz_scene *sc = &c->scene;

                expect_says(c, "road", road_words[sc->road]);
                expect_says(c, "light", light_words[sc->light]);
                expect_says(c, "sign", sign_words[sc->sign]);
                expect_says(c, "marking", marking_words[sc->marking]);
                for (unsigned k = 0; k < sc->n_items; k++) {
                        const char *const *w = item_words[sc->items[k].kind];
                        bool named = false;

                        for (unsigned x = 0; x < 8 && w[x]; x++)
                                named |= says(c->text, w[x]);
                        if (!named)
                                fail_msg("card %s: \"%s\" does not name its %s (items[%u])", c->id, c->text,
                                         cz_item_name(sc->items[k].kind), k);
                }
                /* Only a zombie card speaks of zombies: a text never gives a
                 * decoy away, nor lies about one. */
                if (says(c->text, "zombie") != c->zombie)
                        fail_msg("card %s: \"%s\" %s zombies but its scene %s", c->id, c->text,
                                 c->zombie ? "does not mention" : "mentions", c->zombie ? "has one" : "has none");
        }
}

/* Some cards without a zombie carry a decoy, so that a false shout is
 * plausible; some zombies are small or far. */
static void builtin_has_decoys_and_far_zombies(void **state) {
        unsigned decoys = 0, far_zombies = 0, verge_zombies = 0, lane_zombies = 0;

        (void) state;
        parse_builtin();
        for (unsigned i = 0; i < cat.n; i++) {
                const struct cz_scene *sc = &cat.cards[i].scene;
                bool decoy = false;

                for (unsigned k = 0; k < sc->n_items; k++) {
                        const struct cz_item *it = &sc->items[k];

                        decoy |= it->kind == CZ_ITEM_SCARECROW || it->kind == CZ_ITEM_MANNEQUIN;
                        if (it->kind != CZ_ITEM_ZOMBIE)
                                continue;
                        far_zombies += it->row == CZ_MAX_ROWS;
                        verge_zombies += it->lane == 0 || it->lane == sc->lanes + 1;
                        lane_zombies += it->lane >= 1 && it->lane <= sc->lanes;
                }
                decoys += decoy && !cat.cards[i].zombie;
        }
        assert_true(decoys >= 10);
        assert_true(far_zombies >= 3);
        assert_true(verge_zombies >= 3);
        assert_true(lane_zombies >= 3);
}

/* ---- The rules of the road, rule by rule and in their order
 * (docs/games/crazy-pilot-cards.md, "What a scene calls for").  Each case
 * is a card line: it parses only if its scene calls for the answer it
 * states; the reason must name what decided. */

struct road_case {
        const char *line;
        const char *why;                /* a part of cz_scene_answer's reason */
};

static const struct road_case road_cases[] = {
        /* 1. Zombies, anywhere, before everything. */
        { "zombie road=straight lanes=1 car=1 items=monster@1/3,zombie@0/2 zombie=yes", "zombie" },
        { "zombie road=dead_end lanes=1 car=1 light=red items=zombie@2/3 zombie=yes", "zombie" },
        /* 2. No way through. */
        { "u_turn road=straight lanes=2 car=1 items=monster@3/3", "monster" },
        { "u_turn road=straight lanes=2 car=1 light=red items=monster@2/1", "monster" },
        { "u_turn road=dead_end lanes=2 car=1 light=red", "dead end" },
        { "u_turn road=crossroads lanes=1 car=1 light=green sign=no_entry", "no entry" },
        { "u_turn road=fork_right lanes=1 car=1 sign=road_closed", "road closed" },
        { "u_turn road=straight lanes=3 car=1 light=red items=cone@1/1,rock@2/3,flood@3/2", "every lane" },
        { "u_turn road=fork_left lanes=1 car=1 items=tree@1/3", "every lane" },
        { "u_turn road=crossroads lanes=2 car=2 items=hole@1/1,hole@2/2,cow@0/1", "every lane" },
        /* 3. A stop that solves it, before changing lanes. */
        { "hand road=straight lanes=2 car=1 light=red items=cone@1/1", "red light" },
        { "hand road=straight lanes=1 car=1 light=amber", "amber light" },
        { "hand road=straight lanes=1 car=1 sign=stop", "stop sign" },
        { "hand road=fork_left lanes=1 car=1 sign=give_way", "give way" },
        { "hand road=straight lanes=2 car=1 items=pedestrian@2/3", "crossing the road" },
        { "hand road=straight lanes=2 car=1 items=child@1/1", "child" },
        { "hand road=straight lanes=2 car=1 items=cow@2/2,roadworks@1/1", "cows" },
        { "hand road=straight lanes=1 car=1 items=dog@1/3", "dog" },
        { "hand road=straight lanes=1 car=1 items=ball@1/2", "ball" },
        { "hand road=straight lanes=1 car=1 marking=level_crossing items=train@1/2", "train" },
        { "hand road=straight lanes=1 car=1 marking=zebra items=pedestrian@2/1", "zebra" },
        { "hand road=straight lanes=1 car=1 marking=zebra items=child@0/3", "zebra" },
        { "hand road=t_junction lanes=2 car=1", "T-junction" },
        { "hand road=straight lanes=2 car=1 items=roadworks@1/2,car@2/1", "no other lane is free" },
        { "hand road=straight lanes=1 car=1 items=bicycle@1/1", "no other lane is free" },
        { "hand road=straight lanes=2 car=2 sign=keep_left items=bus@1/1", "keep left" },
        { "hand road=straight lanes=2 car=1 sign=keep_right items=car@2/1", "keep right" },
        /* 4. The car's lane blocked: the nearest free lane, a tie to the
         * left unless a keep right sign says otherwise. */
        { "left road=straight lanes=2 car=2 items=cone@2/3", "lane to the left is free" },
        { "left road=straight lanes=2 car=2 items=truck@2/1", "lane to the left is free" },
        { "right road=straight lanes=2 car=1 items=tree@1/1", "lane to the right is free" },
        { "left road=straight lanes=3 car=2 items=rock@2/2", "overtake on the left" },
        { "right road=straight lanes=3 car=2 sign=keep_right items=rock@2/2", "keep right" },
        { "left road=straight lanes=3 car=2 sign=keep_left items=rock@2/2", "overtake on the left" },
        { "right road=straight lanes=3 car=1 items=flood@1/1,flood@2/3", "lane to the right is free" },
        { "left road=straight lanes=3 car=3 items=hole@3/1,hole@2/1", "lane to the left is free" },
        { "right road=straight lanes=3 car=2 items=bus@2/1,car@1/1", "lane to the right is free" },
        { "left road=fork_right lanes=2 car=2 items=cone@2/1", "lane to the left is free" },
        /* 5. A keep sign when the car is not in the kept lane yet. */
        { "left road=straight lanes=3 car=3 sign=keep_left", "keep left" },
        { "right road=straight lanes=2 car=1 sign=keep_right items=car@2/2", "keep right" },
        /* 6. A fork with both ways open. */
        { "fork_left road=fork_left lanes=2 car=2 items=car@1/1", "fork" },
        { "fork_right road=fork_right lanes=1 car=1 light=green sign=speed_limit", "fork" },
        { "fork_left road=fork_left lanes=1 car=1 sign=keep_left", "fork" },
        { "fork_right road=fork_right lanes=2 car=2 sign=keep_right", "fork" },
        /* 7. Nothing calls: decoys, verges, far or neighbouring traffic. */
        { "straight road=straight lanes=1 car=1 items=scarecrow@1/1", "clear" },
        { "straight road=straight lanes=1 car=1 items=mannequin@1/2,scarecrow@0/1", "clear" },
        { "straight road=straight lanes=1 car=1 sign=speed_limit", "clear" },
        { "straight road=crossroads lanes=2 car=1 light=green", "clear" },
        { "straight road=straight lanes=1 car=1 items=cone@0/1,rock@2/1,flood@2/2,tree@0/3", "clear" },
        { "straight road=straight lanes=1 car=1 items=pedestrian@0/1,child@2/1,dog@0/2,cow@2/3,ball@0/3", "clear" },
        { "straight road=straight lanes=2 car=1 items=car@1/2,truck@2/1,bus@1/3", "clear" },
        { "straight road=straight lanes=1 car=1 marking=level_crossing items=train@0/2", "clear" },
        { "straight road=straight lanes=1 car=1 marking=zebra items=dog@0/1", "clear" },
        { "straight road=straight lanes=2 car=1 sign=keep_left", "clear" },
        { "straight road=straight lanes=2 car=2 sign=keep_right", "clear" },
};

static void scenes_call_for_what_the_rules_of_the_road_say(void **state) {
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(road_cases); i++) {
                char line[256];
                struct eng_error err;
                const char *why = NULL;

                snprintf(line, sizeof line, "r%zu %s | A scene\n", i, road_cases[i].line);
                if (parse(line, &err) < 0)
                        fail_msg("case %zu (%s): %s", i, road_cases[i].line, err.message);
                cz_scene_answer(&cat.cards[0].scene, &why);
                if (!why || !strstr(why, road_cases[i].why))
                        fail_msg("case %zu (%s): the reason \"%s\" does not say \"%s\"", i, road_cases[i].line,
                                 why ? why : "(none)", road_cases[i].why);
        }
}

/* Every reason is a sentence; a NULL ret_why is fine. */
static void every_answer_comes_with_a_reason(void **state) {
        struct cz_scene sc = { .road = CZ_ROAD_STRAIGHT, .lanes = 1, .car_lane = 1 };

        (void) state;
        assert_int_equal(cz_scene_answer(&sc, NULL), CZ_ANS_STRAIGHT);
        parse_builtin();
        for (unsigned i = 0; i < cat.n; i++) {
                const char *why = NULL;

                cz_scene_answer(&cat.cards[i].scene, &why);
                assert_non_null(why);
                assert_true(strlen(why) > 10);
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
        expect_error("x1 straight road=straight lanes=4 car=1 | A road\n", 1, "x1", "lanes: must be 1..3, not \"4\"");
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
                     "items[1]: lane 9 must be 0..2");
        expect_error("x1 straight road=straight lanes=2 car=1 items=cow@0/1,cow@5/1 | Cows\n", 1, "x1",
                     "items[1]: lane 5 must be 0..3 (0 the left verge, 3 the right one)");
        expect_error("x1 straight road=straight lanes=1 car=1 items=cow@300/1 | A cow\n", 1, "x1",
                     "items[0]: lane 300 must be 0..lanes + 1");
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

/* What the other fields and words refuse, each naming line, card and field. */
static void other_errors_name_their_field(void **state) {
        static const struct {
                const char *line, *id, *what;
        } cases[] = {
                { "x1 straight lanes=1 car=1 | A road", "x1", "road: missing" },
                { "x1 straight road=straight car=1 | A road", "x1", "lanes: missing" },
                { "x1 straight road=straight lanes=1 | A road", "x1", "car: missing" },
                { "x1 straight road=straight lanes=1 car=1", "x1", "text: missing" },
                { "x1 straight road=straight lanes=1 car=1 |   ", "x1", "text: is empty" },
                { "x1 straight road=straight lanes=1 car=1 | A \"road\"", "x1", "text: holds '\"'" },
                { "x1 straight road=straight lanes=1 car=1 | A | road", "x1", "text: holds '|'" },
                { "x1 straight road=motorway lanes=1 car=1 | A road", "x1",
                  "road: \"motorway\" is not one of straight, fork_left, fork_right, crossroads, t_junction, dead_end" },
                { "x1 straight road=straight lanes=1 car=1 light=blue | A road", "x1", "light: \"blue\" is not one of" },
                { "x1 straight road=straight lanes=1 car=1 sign=yield | A road", "x1", "sign: \"yield\" is not one of" },
                { "x1 straight road=straight lanes=1 car=1 marking=stripes | A road", "x1", "marking: \"stripes\"" },
                { "x1 straight road=straight lanes=1 car=1 zombie=maybe | A road", "x1", "zombie: \"maybe\" is not one of no, yes" },
                { "x1 straight road=straight lanes=1 car=0 | A road", "x1", "car: must be a lane, 1..3, not \"0\"" },
                { "x1 straight road=straight lanes=1 car=1 colour=red | A road", "x1",
                  "\"colour\" is not a field; the fields are road, lanes, car, light, sign, marking, items, zombie" },
                { "x1 straight road=straight lanes=1 car=1 lanes=2 | A road", "x1", "lanes: is given twice" },
                { "x1 straight road=straight lanes=1 car=1 sideways | A road", "x1", "\"sideways\" is not key=value" },
                { "x1 straight road=straight lanes=1 car=1 items=unicorn@0/1 | A road", "x1",
                  "items[0]: \"unicorn\" is not one of car, truck" },
                { "x1 straight road=straight lanes=1 car=1 items=cow@0 | A cow", "x1", "items[0]: \"cow@0\" is not kind@lane/row" },
                { "x1 straight road=straight lanes=1 car=1 items=cow@x/1 | A cow", "x1", "items[0]: the lane of \"cow@x/1\"" },
                { "x1 straight road=straight lanes=1 car=1 items=cow@0/1, | A cow", "x1", "items[1]: is empty" },
                { "x1 straight road=straight lanes=1 car=1 items=cow@0/1,,cow@0/2 | A cow", "x1", "items[1]: is empty" },
                { "x1 straight road=straight lanes=1 car=1 items=cow@0/1,dog@0/1 | A cow and a dog", "x1",
                  "items[1]: lane 0 row 1 is taken by items[0]" },
                { "x1 hand road=straight lanes=1 car=1 items=train@1/1 | A train", "x1",
                  "items[0]: a train needs marking=level_crossing" },
                { "X1 straight road=straight lanes=1 car=1 | A road", NULL, "id: \"X1\" holds 'X'" },
                { "abcdefghijklmnopq straight road=straight lanes=1 car=1 | A road", NULL,
                  "id: \"abcdefghijklmnopq\" is 17 characters; at most 16" },
                { "x1 | A road", "x1", "answer: missing" },
                { "| A road", NULL, "id: missing" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[256];

                snprintf(text, sizeof text, "ok straight road=straight lanes=1 car=1 | A road\n%s\n", cases[i].line);
                expect_error(text, 2, cases[i].id, cases[i].what);
        }
}

static void error_file_too_long(void **state) {
        struct eng_error err;

        (void) state;
        memset(big, '#', CZ_CARDS_MAX_LEN + 1);
        assert_int_equal(cz_catalogue_parse(big, CZ_CARDS_MAX_LEN + 1, &cat, &err), -EINVAL);
        assert_string_equal(err.field, "data.cards");
        assert_string_equal(err.message, "data.cards: is 32769 bytes; at most 32768 are accepted");
}

/* ---- Writing a catalogue back out: it parses to the same cards. */

static size_t write_card(const struct cz_card *c, char *buf, size_t len) {
        const struct cz_scene *sc = &c->scene;
        size_t at = 0;

        at += (size_t) snprintf(buf + at, len - at, "%s %s road=%s lanes=%u car=%u light=%s sign=%s marking=%s items=",
                                c->id, cz_answer_name(c->answer), cz_road_name(sc->road), sc->lanes, sc->car_lane,
                                cz_light_name(sc->light), cz_sign_name(sc->sign), cz_marking_name(sc->marking));
        for (unsigned k = 0; k < sc->n_items; k++)
                at += (size_t) snprintf(buf + at, len - at, "%s%s@%u/%u", k ? "," : "",
                                        cz_item_name(sc->items[k].kind), sc->items[k].lane, sc->items[k].row);
        at += (size_t) snprintf(buf + at, len - at, " zombie=%s | %s\n", c->zombie ? "yes" : "no", c->text);
        return at;
}

static void catalogue_written_back_out_parses_to_the_same_cards(void **state) {
        static struct cz_catalogue first;
        struct eng_error err;
        size_t at = 0;

        (void) state;
        parse_builtin();
        first = cat;
        for (unsigned i = 0; i < first.n; i++)
                at += write_card(&first.cards[i], big + at, sizeof big - at);
        assert_true(at < CZ_CARDS_MAX_LEN);
        if (cz_catalogue_parse(big, at, &cat, &err) < 0)
                fail_msg("written back out: %s", err.message);
        assert_int_equal(cat.n, first.n);
        for (unsigned i = 0; i < first.n; i++)
                if (memcmp(&cat.cards[i], &first.cards[i], sizeof cat.cards[i]) != 0)
                        fail_msg("card %s changed on the way out and back", first.cards[i].id);
}

/* ---- Anything at all: a parse either succeeds with every invariant held
 * or fails naming data.cards; it never reads past the given length. */

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng_next(void) {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return rng_state;
}

static void mangled_catalogues_parse_or_fail_cleanly(void **state) {
        static const char alphabet[] = "abcz019_-=@/,|# \n\t\x01\xff";
        size_t n = strlen(cz_builtin_cards);
        unsigned ok = 0, failed = 0;

        (void) state;
        for (unsigned round = 0; round < 3000; round++) {
                struct eng_error err;
                unsigned edits = 1 + (unsigned) (rng_next() % 4);
                char *copy = malloc(n);
                int r;

                assert_non_null(copy);
                memcpy(copy, cz_builtin_cards, n);
                for (unsigned e = 0; e < edits; e++)
                        copy[rng_next() % n] = alphabet[rng_next() % (sizeof alphabet - 1)];
                r = cz_catalogue_parse(copy, n - (size_t) (rng_next() % 3), &cat, &err);
                if (r == 0) {
                        ok++;
                        assert_true(cat.n >= 1 && cat.n <= CZ_MAX_CARDS);
                        for (unsigned i = 0; i < cat.n; i++)
                                assert_int_equal(cz_scene_answer(&cat.cards[i].scene, NULL), cat.cards[i].answer);
                } else {
                        failed++;
                        assert_int_equal(r, -EINVAL);
                        assert_true(strncmp(err.field, "data.cards", 10) == 0);
                        assert_true(strncmp(err.message, err.field, strlen(err.field)) == 0);
                }
                free(copy);
        }
        /* Both outcomes happen (a comment's or a text's byte changes nothing). */
        assert_true(ok > 0 && failed > 0);
}

/* ---- Names. */

static void names_are_the_data_files_words_and_null_out_of_range(void **state) {
        (void) state;
        assert_string_equal(cz_answer_name(CZ_ANS_UTURN), "u_turn");
        assert_string_equal(cz_road_name(CZ_ROAD_T_JUNCTION), "t_junction");
        assert_string_equal(cz_light_name(CZ_LIGHT_AMBER), "amber");
        assert_string_equal(cz_sign_name(CZ_SIGN_GIVE_WAY), "give_way");
        assert_string_equal(cz_marking_name(CZ_MARK_LEVEL_CROSSING), "level_crossing");
        assert_string_equal(cz_item_name(CZ_ITEM_MANNEQUIN), "mannequin");
        assert_null(cz_answer_name(CZ_N_ANSWERS));
        assert_null(cz_road_name(CZ_N_ROADS));
        assert_null(cz_light_name(CZ_N_LIGHTS));
        assert_null(cz_sign_name(CZ_N_SIGNS));
        assert_null(cz_marking_name(CZ_N_MARKINGS));
        assert_null(cz_item_name(CZ_N_ITEMS));
        for (unsigned k = 0; k < CZ_N_ITEMS; k++)
                assert_non_null(cz_item_name(k));
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
                cmocka_unit_test(every_builtin_text_names_what_its_scene_holds),
                cmocka_unit_test(builtin_has_decoys_and_far_zombies),
                cmocka_unit_test(scenes_call_for_what_the_rules_of_the_road_say),
                cmocka_unit_test(every_answer_comes_with_a_reason),
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
                cmocka_unit_test(other_errors_name_their_field),
                cmocka_unit_test(error_file_too_long),
                cmocka_unit_test(catalogue_written_back_out_parses_to_the_same_cards),
                cmocka_unit_test(mangled_catalogues_parse_or_fail_cleanly),
                cmocka_unit_test(names_are_the_data_files_words_and_null_out_of_range),
                cmocka_unit_test(face_is_the_text_and_the_scene_only),
                cmocka_unit_test(no_face_shows_its_answer_or_id),
        };

        return cmocka_run_group_tests_name("crazy_cards", tests, NULL, NULL);
}
