/* engine/crazy_cards.h — Crazy Pilot's situation cards: the catalogue as
 * data, each card's scene as structured elements, and the rule that says
 * which answer a scene calls for.
 *
 * What it owns: the card catalogue format (docs/games/crazy-pilot-cards.md),
 * its parser and validator, the built-in catalogue of exactly 94 cards
 * (engine/crazy_cards_data.c), and cz_scene_answer(), the one place where
 * "a red light is a hand, a monster blocking the road a U-turn" is written.
 * The rules engine (engine/crazy_pilot.c) keeps a parsed catalogue in its
 * state; the bots (tools/arbiter-bots) and the tests ask cz_scene_answer()
 * what a scene calls for; the web module (web/games/crazy-pilot/) draws a
 * scene from the face that cz_card_face_visit() writes.
 *
 * A card is what a player sees (its scene and a one-line text: its face)
 * plus what is printed on its back (its answer).  The face never carries
 * the answer, the id or the zombie flag as such: a zombie is simply an item
 * of the scene.
 *
 * Invariants of a parsed catalogue (cz_catalogue_parse checks each one):
 *   - 1 <= n <= CZ_MAX_CARDS; ids are unique;
 *   - every enum field is in range; 1 <= lanes <= CZ_MAX_LANES;
 *     1 <= car_lane <= lanes; every item's lane is 0 .. lanes + 1 (0 the
 *     left verge, lanes + 1 the right one) and its row 1 .. CZ_MAX_ROWS;
 *     no two items share a lane and a row; a train stands only on a scene
 *     with marking CZ_MARK_LEVEL_CROSSING;
 *   - zombie is true exactly when answer is CZ_ANS_ZOMBIE, and exactly
 *     when the scene holds an item of kind CZ_ITEM_ZOMBIE;
 *   - answer == cz_scene_answer(&card->scene, ...) for every card: a card
 *     whose scene does not support its answer is refused, naming the card.
 *
 * Pure: libc and engine/ only, no allocation.
 */
#ifndef ARBITER_ENGINE_CRAZY_CARDS_H
#define ARBITER_ENGINE_CRAZY_CARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define CZ_DEFAULT_CARDS        94      /* the rulebook's "94 situation cards" */
#define CZ_MAX_CARDS            128     /* a custom catalogue's largest */
#define CZ_MAX_ITEMS            8       /* items in one scene */
#define CZ_MAX_LANES            3       /* lanes in the car's direction */
#define CZ_MAX_ROWS             3       /* distance ahead: 1 near .. 3 far */
#define CZ_ID_MAX               16      /* a card id's longest, without NUL */
#define CZ_TEXT_MAX             120     /* a card's text's longest, without NUL */
#define CZ_CARDS_MAX_LEN        32768   /* a custom catalogue's bytes */

/* The icon on a card's back: the answer it calls for.  JSON and the data
 * file name them as cz_answer_name() says. */
enum cz_answer {
        CZ_ANS_STRAIGHT = 0,            /* "straight"    drive on: above the car */
        CZ_ANS_LEFT,                    /* "left"        move to the left lane */
        CZ_ANS_RIGHT,                   /* "right"       move to the right lane */
        CZ_ANS_UTURN,                   /* "u_turn"      no way through: below the car */
        CZ_ANS_HAND,                    /* "hand"        stop, then go on: under the pile */
        CZ_ANS_ZOMBIE,                  /* "zombie"      shout: under the car */
        CZ_ANS_FORK_LEFT,               /* "fork_left"   left or straight */
        CZ_ANS_FORK_RIGHT,              /* "fork_right"  right or straight */
        CZ_N_ANSWERS,
};

/* The road ahead of the car (the car drives up the picture). */
enum cz_road {
        CZ_ROAD_STRAIGHT = 0,           /* "straight" */
        CZ_ROAD_FORK_LEFT,              /* "fork_left"   a branch to the left, the road goes on */
        CZ_ROAD_FORK_RIGHT,             /* "fork_right" */
        CZ_ROAD_CROSSROADS,             /* "crossroads" */
        CZ_ROAD_T_JUNCTION,             /* "t_junction"  the road ends in a T */
        CZ_ROAD_DEAD_END,               /* "dead_end" */
        CZ_N_ROADS,
};

enum cz_light {
        CZ_LIGHT_NONE = 0,              /* "none" */
        CZ_LIGHT_RED,                   /* "red" */
        CZ_LIGHT_AMBER,                 /* "amber" */
        CZ_LIGHT_GREEN,                 /* "green" */
        CZ_N_LIGHTS,
};

enum cz_sign {
        CZ_SIGN_NONE = 0,               /* "none" */
        CZ_SIGN_STOP,                   /* "stop" */
        CZ_SIGN_GIVE_WAY,               /* "give_way" */
        CZ_SIGN_NO_ENTRY,               /* "no_entry" */
        CZ_SIGN_ROAD_CLOSED,            /* "road_closed" */
        CZ_SIGN_KEEP_LEFT,              /* "keep_left" */
        CZ_SIGN_KEEP_RIGHT,             /* "keep_right" */
        CZ_SIGN_SPEED_LIMIT,            /* "speed_limit" (changes nothing: a decoy) */
        CZ_N_SIGNS,
};

enum cz_marking {
        CZ_MARK_NONE = 0,               /* "none" */
        CZ_MARK_ZEBRA,                  /* "zebra"           a pedestrian crossing */
        CZ_MARK_LEVEL_CROSSING,         /* "level_crossing"  rails across the road */
        CZ_N_MARKINGS,
};

/* What may stand in a scene.  cz_item_name() gives the data file's word. */
enum cz_item_kind {
        CZ_ITEM_CAR = 0,                /* "car" */
        CZ_ITEM_TRUCK,                  /* "truck" */
        CZ_ITEM_BUS,                    /* "bus" */
        CZ_ITEM_TRACTOR,                /* "tractor" */
        CZ_ITEM_BICYCLE,                /* "bicycle" */
        CZ_ITEM_PEDESTRIAN,             /* "pedestrian" */
        CZ_ITEM_CHILD,                  /* "child" */
        CZ_ITEM_DOG,                    /* "dog" */
        CZ_ITEM_COW,                    /* "cow" */
        CZ_ITEM_BALL,                   /* "ball" */
        CZ_ITEM_CONE,                   /* "cone" */
        CZ_ITEM_ROADWORKS,              /* "roadworks" */
        CZ_ITEM_TREE,                   /* "tree"       fallen across a lane */
        CZ_ITEM_ROCK,                   /* "rock" */
        CZ_ITEM_HOLE,                   /* "hole" */
        CZ_ITEM_FLOOD,                  /* "flood" */
        CZ_ITEM_MONSTER,                /* "monster"    huge: blocks every lane */
        CZ_ITEM_TRAIN,                  /* "train"      on a level crossing */
        CZ_ITEM_ZOMBIE,                 /* "zombie" */
        CZ_ITEM_SCARECROW,              /* "scarecrow"  looks like one, is not (a decoy) */
        CZ_ITEM_MANNEQUIN,              /* "mannequin"  another decoy */
        CZ_N_ITEMS,
};

struct cz_item {
        uint8_t kind;                   /* enum cz_item_kind */
        uint8_t lane;                   /* 0 left verge, 1 .. lanes, lanes + 1 right verge */
        uint8_t row;                    /* 1 near .. CZ_MAX_ROWS far */
};

/* What a player sees on a card. */
struct cz_scene {
        uint8_t road;                   /* enum cz_road */
        uint8_t lanes;                  /* 1 .. CZ_MAX_LANES, in the car's direction */
        uint8_t car_lane;               /* 1 .. lanes, 1 the leftmost */
        uint8_t light;                  /* enum cz_light */
        uint8_t sign;                   /* enum cz_sign */
        uint8_t marking;                /* enum cz_marking */
        uint8_t n_items;
        struct cz_item items[CZ_MAX_ITEMS];
};

struct cz_card {
        char id[CZ_ID_MAX + 1];         /* "c01": [a-z0-9_-], unique in the catalogue */
        uint8_t answer;                 /* enum cz_answer: the icon on the back */
        bool zombie;                    /* a zombie is in the scene */
        struct cz_scene scene;
        char text[CZ_TEXT_MAX + 1];     /* the scene in one line of words */
};

/* A parsed catalogue: plain data, no pointers (it lives in a match state). */
struct cz_catalogue {
        uint16_t n;
        struct cz_card cards[CZ_MAX_CARDS];
};

/* The built-in catalogue's text (engine/crazy_cards_data.c), NUL-terminated. */
extern const char cz_builtin_cards[];

/* Parses and validates a catalogue file (format:
 * docs/games/crazy-pilot-cards.md).  0 with *ret filled, or -EINVAL with
 * *ret_err naming the line, the card and the field ("data.cards line 12
 * (card c12): lanes: must be 1..3").  ret_err may be NULL. */
int cz_catalogue_parse(const char *text, size_t len, struct cz_catalogue *ret,
                       struct eng_error *ret_err);

/* The answer a scene calls for, by the rules of the road written once here
 * (docs/games/crazy-pilot-cards.md, "What a scene calls for").  *ret_why
 * (may be NULL) is set to a short static sentence naming the element that
 * decided ("a red light: stop and go on"). */
enum cz_answer cz_scene_answer(const struct cz_scene *scene, const char **ret_why);

/* Names as the data file and JSON write them; NULL when out of range. */
const char *cz_answer_name(unsigned answer);
const char *cz_road_name(unsigned road);
const char *cz_light_name(unsigned light);
const char *cz_sign_name(unsigned sign);
const char *cz_marking_name(unsigned marking);
const char *cz_item_name(unsigned kind);

/* A card's face as an object's fields (engine.h card_face): "name" (its
 * text, ENG_CARD_NAME) and "scene" {road, lanes, car_lane, light, sign,
 * marking, items: [{kind, lane, row}]}, enums by name.  Never the answer,
 * the id or the zombie flag.  0 or the visitor's error. */
int cz_card_face_visit(const struct cz_card *card, const struct eng_visitor *v, void *ctx);

#endif
