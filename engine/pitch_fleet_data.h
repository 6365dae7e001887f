/* engine/pitch_fleet_data.h — Pitch Fleet's physical game as data: the
 * nine planet boards and their locations, the starships and teams, the
 * power cards' faces, the solo challenge cards and the solo evaluation
 * table.
 *
 * What it owns: every name the game's inputs, events and views use for a
 * planet, a location, a ship, a team, a location kind and a power card
 * (each list here once, usable directly as an eng_field's `choices`); each
 * location's board, kind, stars and geometry (board units 0..100, for the
 * pictures); each power card's code, name, kind, fingers and effect in
 * words (the effect's code stays in the rules, engine/pitch_fleet.c); the
 * challenge catalogue format (docs/games/pitch-fleet-data.md), its parser
 * and validator and the built-in catalogue (the rulebook's challenges 1-16
 * and 20 with our defaults: engine/pitch_fleet_challenges.c); the check of
 * a planet layout; the evaluation label of a solo total.  The rules engine keeps a parsed challenge
 * catalogue in its state; the web draws boards from the locations' geometry.
 *
 * Invariants of the tables (tests/unit/test_pitch_fleet_data.c checks each):
 *   - board k holds planet k (enum pf_planet order); a board's locations are
 *     consecutive in enum pf_location, in the order planet, VP satellites,
 *     charging satellites, asteroid belt; PF_LOC_NONE (index 0, "none") is
 *     open space, on no board;
 *   - every board has its planet, one to five satellites, at least one of
 *     each kind, and at most one asteroid belt; VP satellites have 1-3
 *     stars, every other location 0;
 *   - names are "<planet>", "<planet>_vp_<n>", "<planet>_charge_<n>",
 *     "<planet>_belt", n from 1; unique;
 *   - geometry: a location is the circle (x, y, r); a belt is the annulus
 *     r_inner .. r around (x, y), which is its planet's centre, with the
 *     planet inside the hole (planet r < belt r_inner); everything lies in
 *     0..100; no two satellites overlap, no satellite overlaps its planet
 *     or its belt's ring.
 *
 * Invariants of a parsed challenge catalogue (pf_challenges_parse checks
 * each one): 1 <= n <= PF_MAX_CHALLENGES, sorted by number, numbers unique
 * in 1..PF_MAX_CHALLENGE_NUMBER; 1 <= vp <= PF_MAX_CHALLENGE_VP;
 * 1 <= moves <= PF_MAX_CHALLENGE_MOVES; fingers a non-empty mask of
 * PF_FINGER_*; card PF_CARD_NONE or a power card; setup and goal non-empty
 * printable ASCII.
 *
 * Pure: libc and engine/ only, no allocation.
 */
#ifndef ARBITER_ENGINE_PITCH_FLEET_DATA_H
#define ARBITER_ENGINE_PITCH_FLEET_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* ---- The box: "Game Components" of the rulebook. */

#define PF_BOARDS               9       /* A. Planet Board x 9 */
#define PF_BASIC_KINDS          10      /* B1 .. B10 */
#define PF_BASIC_COPIES         5       /* B. 50 basic power cards = 10 kinds x 5 */
#define PF_BASIC_CARDS          (PF_BASIC_KINDS * PF_BASIC_COPIES)
#define PF_PLANET_CARDS         9       /* C. Planet Card x 9 */
#define PF_TEAM_CARDS           6       /* D. 3 red, 3 blue */
#define PF_SHIPS                6       /* E. Starship Token x 6 (3 red, 3 blue) */
#define PF_SHIP_STICKERS        6       /* F. */
#define PF_RECORD_TOKENS        6       /* G. */
#define PF_STARTING_TOKENS      1       /* H. */
#define PF_RESTART_CARDS        6       /* I. */
#define PF_VP1_TOKENS           18      /* J. 1 VP x 18 */
#define PF_VP3_TOKENS           18      /* J. 3 VP x 18 */
#define PF_VP10_CARDS           10      /* K. */
#define PF_BEAMS                6       /* L. Magnetic Beam Token x 6 */
#define PF_SUMMARY_CARDS        6       /* M. */
#define PF_ADVANCED_KINDS       5       /* A1 .. A5 */
#define PF_ADVANCED_COPIES      5       /* N. 25 advanced power cards = 5 kinds x 5 */
#define PF_ADVANCED_CARDS       (PF_ADVANCED_KINDS * PF_ADVANCED_COPIES)
#define PF_CHALLENGE_CARDS      28      /* O. Challenge Card x 28 */

#define PF_MIN_PLAYERS          2       /* the race; 1 player is the solo mode */
#define PF_MAX_PLAYERS          6
#define PF_STARTING_VP          3       /* each player's 3 VP token at set-up */
#define PF_TEAM_BONUS_VP        3       /* the 3 VP token on the goal */
#define PF_SOLO_CARDS           7       /* "place 7 cards faced down as a deck" */

/* The board's coordinates: a board is BOARD_UNITS wide and high. */
#define PF_BOARD_UNITS          100

/* ---- Planets: board k holds planet k.  JSON names: pf_planet_choices. */

enum pf_planet {
        PF_MERCURY = 0,
        PF_VENUS,
        PF_EARTH,
        PF_MARS,
        PF_JUPITER,
        PF_SATURN,
        PF_URANUS,
        PF_NEPTUNE,
        PF_PLUTO,
        PF_N_PLANETS,
};

/* No board (a location's board for PF_LOC_NONE). */
#define PF_NO_BOARD             0xff

/* ---- Locations: index 0 is "none" (open space), then each board's
 * locations in planet order.  JSON names: pf_location_choices. */

enum pf_location_id {
        PF_LOC_NONE = 0,
        PF_LOC_MERCURY, PF_LOC_MERCURY_VP_1, PF_LOC_MERCURY_VP_2, PF_LOC_MERCURY_CHARGE_1,
        PF_LOC_MERCURY_BELT,
        PF_LOC_VENUS, PF_LOC_VENUS_VP_1, PF_LOC_VENUS_CHARGE_1, PF_LOC_VENUS_BELT,
        PF_LOC_EARTH, PF_LOC_EARTH_VP_1, PF_LOC_EARTH_VP_2, PF_LOC_EARTH_CHARGE_1,
        PF_LOC_MARS, PF_LOC_MARS_VP_1, PF_LOC_MARS_CHARGE_1, PF_LOC_MARS_BELT,
        PF_LOC_JUPITER, PF_LOC_JUPITER_VP_1, PF_LOC_JUPITER_VP_2, PF_LOC_JUPITER_CHARGE_1,
        PF_LOC_JUPITER_BELT,
        PF_LOC_SATURN, PF_LOC_SATURN_VP_1, PF_LOC_SATURN_VP_2, PF_LOC_SATURN_CHARGE_1,
        PF_LOC_SATURN_CHARGE_2, PF_LOC_SATURN_BELT,
        PF_LOC_URANUS, PF_LOC_URANUS_VP_1, PF_LOC_URANUS_VP_2, PF_LOC_URANUS_VP_3,
        PF_LOC_URANUS_CHARGE_1, PF_LOC_URANUS_CHARGE_2,
        PF_LOC_NEPTUNE, PF_LOC_NEPTUNE_VP_1, PF_LOC_NEPTUNE_CHARGE_1, PF_LOC_NEPTUNE_BELT,
        PF_LOC_PLUTO, PF_LOC_PLUTO_VP_1, PF_LOC_PLUTO_CHARGE_1,
        PF_N_LOCATIONS,                 /* 42: "none" and 41 locations */
};

/* The most locations one board has (Saturn: planet, 4 satellites, belt;
 * Uranus: planet, 5 satellites). */
#define PF_MAX_BOARD_LOCATIONS  6
#define PF_MAX_SATELLITES       5

/* A location's kind.  JSON names: pf_kind_choices. */
enum pf_kind {
        PF_KIND_PLANET = 0,             /* "planet" */
        PF_KIND_VP_SATELLITE,           /* "vp_satellite":       + its stars */
        PF_KIND_CHARGING_SATELLITE,     /* "charging_satellite": draw a power card */
        PF_KIND_ASTEROID_BELT,          /* "asteroid_belt":      − 1 */
        PF_N_KINDS,
        PF_KIND_SPACE = PF_N_KINDS,     /* PF_LOC_NONE's: open space (no JSON name) */
};

/* One location of a board (or open space). */
struct pf_location {
        const char *id;                 /* "venus_belt": its name in pf_location_choices */
        uint8_t board;                  /* enum pf_planet; PF_NO_BOARD for "none" */
        uint8_t kind;                   /* enum pf_kind */
        uint8_t stars;                  /* VP satellites: 1..3; others 0 */
        uint8_t x, y;                   /* the centre, board units 0..100 (y down) */
        uint8_t r;                      /* the radius: the dotted line; a belt's outer radius */
        uint8_t r_inner;                /* a belt's inner radius (its hole); others 0 */
};

/* Every location, index = enum pf_location_id. */
extern const struct pf_location pf_locations[PF_N_LOCATIONS];

/* Choices (index = value) for eng_field.choices: */
extern const char *const pf_planet_choices[PF_N_PLANETS];       /* "mercury" .. "pluto" */
extern const char *const pf_planet_text[PF_N_PLANETS];          /* "Mercury" .. "Pluto" */
extern const char *const pf_location_choices[PF_N_LOCATIONS];   /* "none", "mercury", … */
extern const char *const pf_location_text[PF_N_LOCATIONS];      /* "open space", "Mercury", … */
extern const char *const pf_kind_choices[PF_N_KINDS];           /* "planet", … */

/* ---- Starships and teams.  JSON names: pf_ship_choices, pf_team_choices. */

enum pf_team {
        PF_TEAM_RED = 0,                /* "red" */
        PF_TEAM_BLUE,                   /* "blue" */
        PF_N_TEAMS,
};

enum pf_ship {
        PF_SHIP_RED_1 = 0,              /* "red_1" */
        PF_SHIP_RED_2,
        PF_SHIP_RED_3,
        PF_SHIP_BLUE_1,                 /* "blue_1" */
        PF_SHIP_BLUE_2,
        PF_SHIP_BLUE_3,
        PF_N_SHIPS,
};
#define PF_SHIPS_PER_TEAM       3

extern const char *const pf_team_choices[PF_N_TEAMS];
extern const char *const pf_ship_choices[PF_N_SHIPS];

/* ---- Power cards.  The face of a card instance; JSON code: pf_card_code_choices. */

enum pf_card {
        PF_CARD_B1 = 0, PF_CARD_B2, PF_CARD_B3, PF_CARD_B4, PF_CARD_B5,
        PF_CARD_B6, PF_CARD_B7, PF_CARD_B8, PF_CARD_B9, PF_CARD_B10,
        PF_CARD_A1, PF_CARD_A2, PF_CARD_A3, PF_CARD_A4, PF_CARD_A5,
        PF_N_CARDS,
};
/* No power card (a challenge with no card restriction). */
#define PF_CARD_NONE            0xff

enum pf_card_kind {
        PF_CARD_BASIC = 0,              /* "basic":    silver border, the power deck */
        PF_CARD_ADVANCED,               /* "advanced": gold border */
        PF_N_CARD_KINDS,
};

/* The fingers a gesture allows (a mask): one and only one of them shoots. */
enum pf_finger {
        PF_FINGER_THUMB   = 1u << 0,    /* "thumb" */
        PF_FINGER_INDEX   = 1u << 1,    /* "index" */
        PF_FINGER_MIDDLE  = 1u << 2,    /* "middle" */
        PF_FINGER_RING    = 1u << 3,    /* "ring" */
        PF_FINGER_LITTLE  = 1u << 4,    /* "little" */
        PF_FINGER_KNUCKLE = 1u << 5,    /* "knuckle": the second joint of the index finger (A1) */
        PF_FINGER_BEAM    = 1u << 6,    /* "beam":    a magnetic beam instead of a finger (B5) */
        PF_FINGER_ALL     = (1u << 7) - 1,
};
#define PF_N_FINGERS            7

struct pf_card_def {
        const char *code;               /* "B1" .. "B10", "A1" .. "A5" */
        const char *name;               /* "Magnetic Barrier" */
        uint8_t kind;                   /* enum pf_card_kind */
        uint8_t fingers;                /* mask of enum pf_finger */
        const char *fingers_text;       /* "index or middle finger" */
        const char *effect;             /* one sentence: the rulebook's effect in our words */
};

/* Every power card, index = enum pf_card. */
extern const struct pf_card_def pf_card_defs[PF_N_CARDS];
extern const char *const pf_card_code_choices[PF_N_CARDS];      /* "B1" .. "A5" */
extern const char *const pf_card_kind_choices[PF_N_CARD_KINDS]; /* "basic", "advanced" */
extern const char *const pf_finger_choices[PF_N_FINGERS];       /* bit i's name */

/* ---- Challenge cards (solo mode). */

#define PF_MAX_CHALLENGES       64      /* a catalogue's most cards */
#define PF_MAX_CHALLENGE_NUMBER 99      /* a card's number: 1 .. 99 */
#define PF_MAX_CHALLENGE_VP     9
#define PF_MAX_CHALLENGE_MOVES  9
#define PF_CHALLENGE_TEXT_MAX   200     /* a setup's or a goal's longest, without NUL */
#define PF_CHALLENGES_MAX_LEN   32768   /* a custom catalogue's bytes */

struct pf_challenge {
        uint8_t number;                 /* printed on the card: 1 .. PF_MAX_CHALLENGE_NUMBER */
        uint8_t vp;                     /* the VP tokens put on it */
        uint8_t moves;                  /* the most moves to complete it */
        uint8_t fingers;                /* mask of enum pf_finger */
        uint8_t card;                   /* enum pf_card: the movement imposed; PF_CARD_NONE */
        char setup[PF_CHALLENGE_TEXT_MAX + 1];  /* "One red Starship on the asteroid belt of Venus." */
        char goal[PF_CHALLENGE_TEXT_MAX + 1];   /* "Let the red Starship arrive Venus." */
};

/* A parsed catalogue: plain data, no pointers (it lives in a match state). */
struct pf_challenges {
        uint8_t n;
        struct pf_challenge cards[PF_MAX_CHALLENGES];
};

/* The built-in catalogue's text (engine/pitch_fleet_data.c), NUL-terminated:
 * the rulebook's challenges 1-16 and 20 with our defaults. */
extern const char pf_builtin_challenges[];
#define PF_BUILTIN_CHALLENGES   17

/* Parses and validates a challenge catalogue (format:
 * docs/games/pitch-fleet-data.md): one card a line,
 *   21 vp=3 moves=2 fingers=index+middle card=B4 | Setup: … | Challenge: …
 * and an optional first line "builtin": start from the built-in cards, the
 * file's cards replacing those of the same number and adding the others.
 * 0 with *ret filled (sorted by number), or -EINVAL with *ret_err naming
 * the line, the card and the field ("data.challenges line 3 (card 21):
 * moves: must be 1..9").  ret_err may be NULL. */
int pf_challenges_parse(const char *text, size_t len, struct pf_challenges *ret,
                        struct eng_error *ret_err);

/* The card numbered number in cat, or NULL. */
const struct pf_challenge *pf_challenge_find(const struct pf_challenges *cat, unsigned number);

/* ---- The solo evaluation table. */

struct pf_evaluation {
        uint8_t min_total;              /* the row's lowest total */
        const char *label;              /* "Solar-mighty" */
};
#define PF_N_EVALUATIONS        6
/* Best first: 18+ Solar-mighty, 15-17 Impressive, 11-14 Expert, 7-10
 * Average pilot, 5-6 Don't drive my Starship, 0-4 Back to internship! */
extern const struct pf_evaluation pf_evaluations[PF_N_EVALUATIONS];

/* The label of a solo total (a negative total is read as 0). */
const char *pf_evaluation_label(int total);

/* ---- Look-ups. */

/* Names; NULL when out of range. */
const char *pf_planet_name(unsigned planet);
const char *pf_location_name(unsigned loc);
const char *pf_kind_name(unsigned kind);
const char *pf_ship_name(unsigned ship);
const char *pf_team_name(unsigned team);
const char *pf_card_code(unsigned card);

/* A location's entry; NULL when out of range. */
const struct pf_location *pf_location(unsigned loc);
/* A location's board (enum pf_planet), or -1 for "none" and out of range. */
int pf_location_board(unsigned loc);
/* A location's kind (enum pf_kind); PF_KIND_SPACE for "none" and out of range. */
unsigned pf_location_kind(unsigned loc);
/* A VP satellite's stars; 0 for every other location. */
unsigned pf_location_stars(unsigned loc);
/* Whether loc is a location of planet's board ("none" is on no board). */
bool pf_location_on_board(unsigned loc, unsigned planet);
/* The locations of planet's board: [*ret_first, *ret_first + *ret_n), the
 * planet first.  0, or -EINVAL for a planet out of range. */
int pf_board_locations(unsigned planet, unsigned *ret_first, unsigned *ret_n);
/* The planet location of a board (PF_LOC_MERCURY, …), or PF_LOC_NONE. */
unsigned pf_planet_location(unsigned planet);

/* An index by name ([name, name + len), not NUL-terminated), or -ENOENT. */
int pf_planet_find(const char *name, size_t len);
int pf_location_find(const char *name, size_t len);
int pf_card_find(const char *code, size_t len);

/* A ship's team. */
static inline unsigned pf_ship_team(unsigned ship) {
        return ship / PF_SHIPS_PER_TEAM;
}

/* A power card's face; NULL when out of range. */
const struct pf_card_def *pf_card_def(unsigned card);

/* A power card's face as an object's fields (engine.h card_face): "name"
 * (ENG_CARD_NAME), "kind" ("basic"|"advanced"), "code" ("B4"), "fingers"
 * (its text) and "effect" (its sentence).  0, -EINVAL for a card out of
 * range, or the visitor's error. */
int pf_card_face_visit(unsigned card, const struct eng_visitor *v, void *ctx);

/* Fingers in words ("index or middle finger", "ring or little finger"),
 * NUL-terminated in buf; the length it needs (as snprintf). */
int pf_fingers_text(unsigned mask, char *buf, size_t size);
/* Parses "index+middle" (names of pf_finger_choices joined by '+') into
 * *ret_mask: 0, or -EINVAL (an unknown name, a repeat, empty). */
int pf_fingers_parse(const char *text, size_t len, unsigned *ret_mask);

/* Planet cards in the planet deck for a number of players (2..6: 8, 7, 6,
 * 5, 4); 0 out of range. */
unsigned pf_planet_cards_for(unsigned players);

/* Checks a planet layout: n == PF_BOARDS planets (board positions row by
 * row), each in range and each once.  0, or -EINVAL with *ret_err naming
 * field ("layout" for the count, "layout[4]" for an element: "jupiter is
 * already at layout[1]").  ret_err may be NULL. */
int pf_layout_check(const int64_t *planets, size_t n, const char *field, struct eng_error *ret_err);

#endif
