/* engine/pitch_fleet_data.c — Pitch Fleet's physical game as data: the
 * nine boards and their locations, ships and teams, the power cards' faces,
 * the evaluation table and the look-ups over them (pitch_fleet_data.h; every
 * board, card and default in words: docs/games/pitch-fleet-data.md).  The
 * challenge catalogue's parser and its built-in text are in
 * engine/pitch_fleet_challenges.c. */
#include "engine/pitch_fleet_data.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/walk.h"

#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))

/* ---- Names. */

const char *const pf_planet_choices[PF_N_PLANETS] = {
        [PF_MERCURY] = "mercury", [PF_VENUS] = "venus", [PF_EARTH] = "earth", [PF_MARS] = "mars",
        [PF_JUPITER] = "jupiter", [PF_SATURN] = "saturn", [PF_URANUS] = "uranus",
        [PF_NEPTUNE] = "neptune", [PF_PLUTO] = "pluto",
};

const char *const pf_planet_text[PF_N_PLANETS] = {
        [PF_MERCURY] = "Mercury", [PF_VENUS] = "Venus", [PF_EARTH] = "Earth", [PF_MARS] = "Mars",
        [PF_JUPITER] = "Jupiter", [PF_SATURN] = "Saturn", [PF_URANUS] = "Uranus",
        [PF_NEPTUNE] = "Neptune", [PF_PLUTO] = "Pluto",
};

const char *const pf_kind_choices[PF_N_KINDS] = {
        [PF_KIND_PLANET] = "planet", [PF_KIND_VP_SATELLITE] = "vp_satellite",
        [PF_KIND_CHARGING_SATELLITE] = "charging_satellite", [PF_KIND_ASTEROID_BELT] = "asteroid_belt",
};

const char *const pf_team_choices[PF_N_TEAMS] = {
        [PF_TEAM_RED] = "red", [PF_TEAM_BLUE] = "blue",
};

const char *const pf_ship_choices[PF_N_SHIPS] = {
        [PF_SHIP_RED_1] = "red_1", [PF_SHIP_RED_2] = "red_2", [PF_SHIP_RED_3] = "red_3",
        [PF_SHIP_BLUE_1] = "blue_1", [PF_SHIP_BLUE_2] = "blue_2", [PF_SHIP_BLUE_3] = "blue_3",
};

const char *const pf_card_kind_choices[PF_N_CARD_KINDS] = {
        [PF_CARD_BASIC] = "basic", [PF_CARD_ADVANCED] = "advanced",
};

/* Bit i of a finger mask. */
const char *const pf_finger_choices[PF_N_FINGERS] = {
        "thumb", "index", "middle", "ring", "little", "knuckle", "beam",
};

/* ---- The boards.  Board units: a board is 100 x 100, x to the right, y
 * down.  A belt is a ring around its planet (the planet in its hole); the
 * satellites stand outside the ring, a gap of at least 2 units from it and
 * from each other (docs/games/pitch-fleet-data.md draws each board). */

#define PLANET(p, name_, x_, y_, r_) \
        { .id = p, .board = name_, .kind = PF_KIND_PLANET, .x = x_, .y = y_, .r = r_ }
#define VP(p, name_, stars_, x_, y_, r_) \
        { .id = p, .board = name_, .kind = PF_KIND_VP_SATELLITE, .stars = stars_, .x = x_, .y = y_, \
          .r = r_ }
#define CHARGE(p, name_, x_, y_, r_) \
        { .id = p, .board = name_, .kind = PF_KIND_CHARGING_SATELLITE, .x = x_, .y = y_, .r = r_ }
#define BELT(p, name_, x_, y_, inner_, outer_) \
        { .id = p, .board = name_, .kind = PF_KIND_ASTEROID_BELT, .x = x_, .y = y_, .r = outer_, \
          .r_inner = inner_ }

const struct pf_location pf_locations[PF_N_LOCATIONS] = {
        [PF_LOC_NONE] = { .id = "none", .board = PF_NO_BOARD, .kind = PF_KIND_SPACE },

        /* Mercury: a belt and two 1-star satellites close to it and to each
         * other (the rulebook's pictures A and B: a ship on the belt and two
         * 1 VP satellites at once). */
        [PF_LOC_MERCURY]          = PLANET("mercury", PF_MERCURY, 46, 46, 14),
        [PF_LOC_MERCURY_VP_1]     = VP("mercury_vp_1", PF_MERCURY, 1, 80, 58, 7),
        [PF_LOC_MERCURY_VP_2]     = VP("mercury_vp_2", PF_MERCURY, 1, 68, 78, 7),
        [PF_LOC_MERCURY_CHARGE_1] = CHARGE("mercury_charge_1", PF_MERCURY, 14, 86, 7),
        [PF_LOC_MERCURY_BELT]     = BELT("mercury_belt", PF_MERCURY, 46, 46, 18, 26),

        /* Venus: a wide belt (challenges 1, 9, 10: a ship, six beams side by
         * side on it). */
        [PF_LOC_VENUS]            = PLANET("venus", PF_VENUS, 50, 50, 13),
        [PF_LOC_VENUS_VP_1]       = VP("venus_vp_1", PF_VENUS, 2, 84, 20, 7),
        [PF_LOC_VENUS_CHARGE_1]   = CHARGE("venus_charge_1", PF_VENUS, 16, 82, 7),
        [PF_LOC_VENUS_BELT]       = BELT("venus_belt", PF_VENUS, 50, 50, 17, 27),

        /* Earth: no belt; a satellite close enough that a ship may touch
         * Earth and it at once (the Q&A's picture). */
        [PF_LOC_EARTH]            = PLANET("earth", PF_EARTH, 44, 52, 16),
        [PF_LOC_EARTH_VP_1]       = VP("earth_vp_1", PF_EARTH, 1, 70, 52, 7),
        [PF_LOC_EARTH_VP_2]       = VP("earth_vp_2", PF_EARTH, 2, 18, 22, 6),
        [PF_LOC_EARTH_CHARGE_1]   = CHARGE("earth_charge_1", PF_EARTH, 72, 84, 7),

        /* Mars: two satellites (challenges 2 and 11's "both satellites"). */
        [PF_LOC_MARS]             = PLANET("mars", PF_MARS, 50, 50, 12),
        [PF_LOC_MARS_VP_1]        = VP("mars_vp_1", PF_MARS, 2, 82, 30, 7),
        [PF_LOC_MARS_CHARGE_1]    = CHARGE("mars_charge_1", PF_MARS, 20, 80, 7),
        [PF_LOC_MARS_BELT]        = BELT("mars_belt", PF_MARS, 50, 50, 16, 24),

        /* Jupiter: the largest planet, three satellites (challenge 7). */
        [PF_LOC_JUPITER]          = PLANET("jupiter", PF_JUPITER, 50, 50, 18),
        [PF_LOC_JUPITER_VP_1]     = VP("jupiter_vp_1", PF_JUPITER, 1, 88, 50, 7),
        [PF_LOC_JUPITER_VP_2]     = VP("jupiter_vp_2", PF_JUPITER, 3, 20, 20, 6),
        [PF_LOC_JUPITER_CHARGE_1] = CHARGE("jupiter_charge_1", PF_JUPITER, 30, 88, 7),
        [PF_LOC_JUPITER_BELT]     = BELT("jupiter_belt", PF_JUPITER, 50, 50, 22, 29),

        /* Saturn: its rings as the belt, four satellites in the corners. */
        [PF_LOC_SATURN]           = PLANET("saturn", PF_SATURN, 48, 50, 15),
        [PF_LOC_SATURN_VP_1]      = VP("saturn_vp_1", PF_SATURN, 1, 86, 28, 6),
        [PF_LOC_SATURN_VP_2]      = VP("saturn_vp_2", PF_SATURN, 2, 86, 76, 6),
        [PF_LOC_SATURN_CHARGE_1]  = CHARGE("saturn_charge_1", PF_SATURN, 12, 20, 6),
        [PF_LOC_SATURN_CHARGE_2]  = CHARGE("saturn_charge_2", PF_SATURN, 14, 84, 6),
        [PF_LOC_SATURN_BELT]      = BELT("saturn_belt", PF_SATURN, 48, 50, 19, 28),

        /* Uranus: five satellites in a chain, 2 units apart, so that one
         * move may arrive at two at once (challenge 20: five satellites in
         * at most three moves); no belt. */
        [PF_LOC_URANUS]           = PLANET("uranus", PF_URANUS, 34, 50, 14),
        [PF_LOC_URANUS_VP_1]      = VP("uranus_vp_1", PF_URANUS, 1, 72, 22, 6),
        [PF_LOC_URANUS_VP_2]      = VP("uranus_vp_2", PF_URANUS, 1, 80, 50, 6),
        [PF_LOC_URANUS_VP_3]      = VP("uranus_vp_3", PF_URANUS, 2, 72, 78, 6),
        [PF_LOC_URANUS_CHARGE_1]  = CHARGE("uranus_charge_1", PF_URANUS, 78, 36, 6),
        [PF_LOC_URANUS_CHARGE_2]  = CHARGE("uranus_charge_2", PF_URANUS, 78, 64, 6),

        /* Neptune: two satellites in opposite corners (challenge 11). */
        [PF_LOC_NEPTUNE]          = PLANET("neptune", PF_NEPTUNE, 52, 48, 14),
        [PF_LOC_NEPTUNE_VP_1]     = VP("neptune_vp_1", PF_NEPTUNE, 3, 14, 14, 7),
        [PF_LOC_NEPTUNE_CHARGE_1] = CHARGE("neptune_charge_1", PF_NEPTUNE, 86, 84, 7),
        [PF_LOC_NEPTUNE_BELT]     = BELT("neptune_belt", PF_NEPTUNE, 52, 48, 18, 26),

        /* Pluto: the smallest planet, its satellite close by (challenge 6:
         * arrive Pluto without arriving any satellite); no belt. */
        [PF_LOC_PLUTO]            = PLANET("pluto", PF_PLUTO, 40, 44, 10),
        [PF_LOC_PLUTO_VP_1]       = VP("pluto_vp_1", PF_PLUTO, 3, 62, 62, 5),
        [PF_LOC_PLUTO_CHARGE_1]   = CHARGE("pluto_charge_1", PF_PLUTO, 20, 76, 6),
};

const char *const pf_location_choices[PF_N_LOCATIONS] = {
        [PF_LOC_NONE] = "none",
        [PF_LOC_MERCURY] = "mercury", [PF_LOC_MERCURY_VP_1] = "mercury_vp_1",
        [PF_LOC_MERCURY_VP_2] = "mercury_vp_2", [PF_LOC_MERCURY_CHARGE_1] = "mercury_charge_1",
        [PF_LOC_MERCURY_BELT] = "mercury_belt",
        [PF_LOC_VENUS] = "venus", [PF_LOC_VENUS_VP_1] = "venus_vp_1",
        [PF_LOC_VENUS_CHARGE_1] = "venus_charge_1", [PF_LOC_VENUS_BELT] = "venus_belt",
        [PF_LOC_EARTH] = "earth", [PF_LOC_EARTH_VP_1] = "earth_vp_1",
        [PF_LOC_EARTH_VP_2] = "earth_vp_2", [PF_LOC_EARTH_CHARGE_1] = "earth_charge_1",
        [PF_LOC_MARS] = "mars", [PF_LOC_MARS_VP_1] = "mars_vp_1",
        [PF_LOC_MARS_CHARGE_1] = "mars_charge_1", [PF_LOC_MARS_BELT] = "mars_belt",
        [PF_LOC_JUPITER] = "jupiter", [PF_LOC_JUPITER_VP_1] = "jupiter_vp_1",
        [PF_LOC_JUPITER_VP_2] = "jupiter_vp_2", [PF_LOC_JUPITER_CHARGE_1] = "jupiter_charge_1",
        [PF_LOC_JUPITER_BELT] = "jupiter_belt",
        [PF_LOC_SATURN] = "saturn", [PF_LOC_SATURN_VP_1] = "saturn_vp_1",
        [PF_LOC_SATURN_VP_2] = "saturn_vp_2", [PF_LOC_SATURN_CHARGE_1] = "saturn_charge_1",
        [PF_LOC_SATURN_CHARGE_2] = "saturn_charge_2", [PF_LOC_SATURN_BELT] = "saturn_belt",
        [PF_LOC_URANUS] = "uranus", [PF_LOC_URANUS_VP_1] = "uranus_vp_1",
        [PF_LOC_URANUS_VP_2] = "uranus_vp_2", [PF_LOC_URANUS_VP_3] = "uranus_vp_3",
        [PF_LOC_URANUS_CHARGE_1] = "uranus_charge_1", [PF_LOC_URANUS_CHARGE_2] = "uranus_charge_2",
        [PF_LOC_NEPTUNE] = "neptune", [PF_LOC_NEPTUNE_VP_1] = "neptune_vp_1",
        [PF_LOC_NEPTUNE_CHARGE_1] = "neptune_charge_1", [PF_LOC_NEPTUNE_BELT] = "neptune_belt",
        [PF_LOC_PLUTO] = "pluto", [PF_LOC_PLUTO_VP_1] = "pluto_vp_1",
        [PF_LOC_PLUTO_CHARGE_1] = "pluto_charge_1",
};

const char *const pf_location_text[PF_N_LOCATIONS] = {
        [PF_LOC_NONE] = "open space",
        [PF_LOC_MERCURY] = "Mercury", [PF_LOC_MERCURY_VP_1] = "Mercury's 1-star satellite (1)",
        [PF_LOC_MERCURY_VP_2] = "Mercury's 1-star satellite (2)",
        [PF_LOC_MERCURY_CHARGE_1] = "Mercury's charging satellite",
        [PF_LOC_MERCURY_BELT] = "Mercury's asteroid belt",
        [PF_LOC_VENUS] = "Venus", [PF_LOC_VENUS_VP_1] = "Venus's 2-star satellite",
        [PF_LOC_VENUS_CHARGE_1] = "Venus's charging satellite",
        [PF_LOC_VENUS_BELT] = "Venus's asteroid belt",
        [PF_LOC_EARTH] = "Earth", [PF_LOC_EARTH_VP_1] = "Earth's 1-star satellite",
        [PF_LOC_EARTH_VP_2] = "Earth's 2-star satellite",
        [PF_LOC_EARTH_CHARGE_1] = "Earth's charging satellite",
        [PF_LOC_MARS] = "Mars", [PF_LOC_MARS_VP_1] = "Mars's 2-star satellite",
        [PF_LOC_MARS_CHARGE_1] = "Mars's charging satellite",
        [PF_LOC_MARS_BELT] = "Mars's asteroid belt",
        [PF_LOC_JUPITER] = "Jupiter", [PF_LOC_JUPITER_VP_1] = "Jupiter's 1-star satellite",
        [PF_LOC_JUPITER_VP_2] = "Jupiter's 3-star satellite",
        [PF_LOC_JUPITER_CHARGE_1] = "Jupiter's charging satellite",
        [PF_LOC_JUPITER_BELT] = "Jupiter's asteroid belt",
        [PF_LOC_SATURN] = "Saturn", [PF_LOC_SATURN_VP_1] = "Saturn's 1-star satellite",
        [PF_LOC_SATURN_VP_2] = "Saturn's 2-star satellite",
        [PF_LOC_SATURN_CHARGE_1] = "Saturn's charging satellite (1)",
        [PF_LOC_SATURN_CHARGE_2] = "Saturn's charging satellite (2)",
        [PF_LOC_SATURN_BELT] = "Saturn's asteroid belt",
        [PF_LOC_URANUS] = "Uranus", [PF_LOC_URANUS_VP_1] = "Uranus's 1-star satellite (1)",
        [PF_LOC_URANUS_VP_2] = "Uranus's 1-star satellite (2)",
        [PF_LOC_URANUS_VP_3] = "Uranus's 2-star satellite",
        [PF_LOC_URANUS_CHARGE_1] = "Uranus's charging satellite (1)",
        [PF_LOC_URANUS_CHARGE_2] = "Uranus's charging satellite (2)",
        [PF_LOC_NEPTUNE] = "Neptune", [PF_LOC_NEPTUNE_VP_1] = "Neptune's 3-star satellite",
        [PF_LOC_NEPTUNE_CHARGE_1] = "Neptune's charging satellite",
        [PF_LOC_NEPTUNE_BELT] = "Neptune's asteroid belt",
        [PF_LOC_PLUTO] = "Pluto", [PF_LOC_PLUTO_VP_1] = "Pluto's 3-star satellite",
        [PF_LOC_PLUTO_CHARGE_1] = "Pluto's charging satellite",
};

/* Each board's locations: [first, first + n). */
static const struct {
        uint8_t first, n;
} boards[PF_N_PLANETS] = {
        [PF_MERCURY] = { PF_LOC_MERCURY, PF_LOC_VENUS - PF_LOC_MERCURY },
        [PF_VENUS]   = { PF_LOC_VENUS, PF_LOC_EARTH - PF_LOC_VENUS },
        [PF_EARTH]   = { PF_LOC_EARTH, PF_LOC_MARS - PF_LOC_EARTH },
        [PF_MARS]    = { PF_LOC_MARS, PF_LOC_JUPITER - PF_LOC_MARS },
        [PF_JUPITER] = { PF_LOC_JUPITER, PF_LOC_SATURN - PF_LOC_JUPITER },
        [PF_SATURN]  = { PF_LOC_SATURN, PF_LOC_URANUS - PF_LOC_SATURN },
        [PF_URANUS]  = { PF_LOC_URANUS, PF_LOC_NEPTUNE - PF_LOC_URANUS },
        [PF_NEPTUNE] = { PF_LOC_NEPTUNE, PF_LOC_PLUTO - PF_LOC_NEPTUNE },
        [PF_PLUTO]   = { PF_LOC_PLUTO, PF_N_LOCATIONS - PF_LOC_PLUTO },
};

/* ---- The power cards: the rulebook's effects in our words; names and
 * fingers are ours except "Magnetic Barrier" and "Warp Drive", which the
 * rulebook names (docs/games/pitch-fleet-data.md gives the reasons). */

#define IDX             PF_FINGER_INDEX
#define MID             PF_FINGER_MIDDLE

const struct pf_card_def pf_card_defs[PF_N_CARDS] = {
        [PF_CARD_B1] = { "B1", "Asteroid Miner", PF_CARD_BASIC, IDX | MID, "index or middle finger",
                         "Gain 1 VP for arriving at any asteroid belt; the goal board's belt gives +1 "
                         "instead of -1." },
        [PF_CARD_B2] = { "B2", "Gravity Sling", PF_CARD_BASIC, MID, "middle finger",
                         "Gain 1 VP for each other starship the moved one knocks that comes to rest "
                         "on any planet." },
        [PF_CARD_B3] = { "B3", "Black Hole", PF_CARD_BASIC, IDX | MID, "index or middle finger",
                         "Arriving at any VP satellite loses its points instead of gaining them." },
        [PF_CARD_B4] = { "B4", "Magnetic Barrier", PF_CARD_BASIC, IDX, "index finger",
                         "Place a magnetic beam anywhere touching no starship or beam, then move; "
                         "it stays until a starship knocks it." },
        [PF_CARD_B5] = { "B5", "Beam Cannon", PF_CARD_BASIC, PF_FINGER_BEAM,
                         "a magnetic beam instead of a finger",
                         "Shoot the starship with a magnetic beam instead of a finger, never pushing." },
        [PF_CARD_B6] = { "B6", "Warp Drive", PF_CARD_BASIC, IDX | MID, "index or middle finger",
                         "Before moving, put the starship on any planet other than the goal planet." },
        [PF_CARD_B7] = { "B7", "Solar Charger", PF_CARD_BASIC, PF_FINGER_RING | PF_FINGER_LITTLE,
                         "ring or little finger",
                         "Gain 1 VP for arriving at any charging satellite." },
        [PF_CARD_B8] = { "B8", "Blind Flight", PF_CARD_BASIC, IDX | MID, "index or middle finger",
                         "Shoot with your eyes closed." },
        [PF_CARD_B9] = { "B9", "Shield Generator", PF_CARD_BASIC, PF_FINGER_RING | PF_FINGER_LITTLE,
                         "ring or little finger",
                         "Lose nothing if the moved starship goes outbound; the other outbound "
                         "examinations still apply." },
        [PF_CARD_B10] = { "B10", "Hyperjump", PF_CARD_BASIC, PF_FINGER_THUMB, "thumb",
                          "Before moving, shift the starship by this card's long side in any direction "
                          "(off the board: from the starting planet), touching no starship or beam." },
        [PF_CARD_A1] = { "A1", "Knuckle Thruster", PF_CARD_ADVANCED, PF_FINGER_KNUCKLE,
                         "the second joint of the index finger",
                         "Shoot with the second joint of your index finger; gain 1 VP if the "
                         "starship arrives at any planet." },
        [PF_CARD_A2] = { "A2", "Grand Tour", PF_CARD_ADVANCED, PF_FINGER_RING | PF_FINGER_LITTLE,
                         "ring or little finger",
                         "Gain 2 VP if the starship arrives at two or more special locations other "
                         "than asteroid belts, not counting where it started." },
        [PF_CARD_A3] = { "A3", "Decoy Beam", PF_CARD_ADVANCED, IDX | MID, "index or middle finger",
                         "Replace the starship by a magnetic beam at the same place (off the board: "
                         "on the starting planet) and shoot the beam; gain 1 VP per opponent's "
                         "starship knocked, at most 2." },
        [PF_CARD_A4] = { "A4", "Demolition Run", PF_CARD_ADVANCED, MID, "middle finger",
                         "Gain 1 VP for each other starship that goes outbound, your team's too, as "
                         "long as the moved one stays in; outbound rule 1 does not apply." },
        [PF_CARD_A5] = { "A5", "Launch Ramp", PF_CARD_ADVANCED, IDX, "index finger",
                         "Shoot the starship off this card set on a beam as a springboard; gain 3 VP "
                         "if it arrives at any planet; if it stays on the card the move fails and it "
                         "goes back." },
};

const char *const pf_card_code_choices[PF_N_CARDS] = {
        [PF_CARD_B1] = "B1", [PF_CARD_B2] = "B2", [PF_CARD_B3] = "B3", [PF_CARD_B4] = "B4",
        [PF_CARD_B5] = "B5", [PF_CARD_B6] = "B6", [PF_CARD_B7] = "B7", [PF_CARD_B8] = "B8",
        [PF_CARD_B9] = "B9", [PF_CARD_B10] = "B10", [PF_CARD_A1] = "A1", [PF_CARD_A2] = "A2",
        [PF_CARD_A3] = "A3", [PF_CARD_A4] = "A4", [PF_CARD_A5] = "A5",
};

/* ---- The solo evaluation table, as the rulebook prints it. */

const struct pf_evaluation pf_evaluations[PF_N_EVALUATIONS] = {
        { 18, "Solar-mighty" },
        { 15, "Impressive" },
        { 11, "Expert" },
        { 7, "Average pilot" },
        { 5, "Don't drive my Starship" },
        { 0, "Back to internship!" },
};

const char *pf_evaluation_label(int total) {
        for (size_t i = 0; i < ELEMENTSOF(pf_evaluations); i++)
                if (total >= (int)pf_evaluations[i].min_total)
                        return pf_evaluations[i].label;
        return pf_evaluations[PF_N_EVALUATIONS - 1].label;
}

/* ---- Look-ups. */

static const char *name_of(const char *const *names, size_t n, unsigned i) {
        return i < n ? names[i] : NULL;
}

const char *pf_planet_name(unsigned planet) {
        return name_of(pf_planet_choices, ELEMENTSOF(pf_planet_choices), planet);
}

const char *pf_location_name(unsigned loc) {
        return name_of(pf_location_choices, ELEMENTSOF(pf_location_choices), loc);
}

const char *pf_kind_name(unsigned kind) {
        return name_of(pf_kind_choices, ELEMENTSOF(pf_kind_choices), kind);
}

const char *pf_ship_name(unsigned ship) {
        return name_of(pf_ship_choices, ELEMENTSOF(pf_ship_choices), ship);
}

const char *pf_team_name(unsigned team) {
        return name_of(pf_team_choices, ELEMENTSOF(pf_team_choices), team);
}

const char *pf_card_code(unsigned card) {
        return name_of(pf_card_code_choices, ELEMENTSOF(pf_card_code_choices), card);
}

const struct pf_location *pf_location(unsigned loc) {
        return loc < PF_N_LOCATIONS ? &pf_locations[loc] : NULL;
}

int pf_location_board(unsigned loc) {
        if (loc >= PF_N_LOCATIONS || pf_locations[loc].board == PF_NO_BOARD)
                return -1;
        return pf_locations[loc].board;
}

unsigned pf_location_kind(unsigned loc) {
        return loc < PF_N_LOCATIONS ? pf_locations[loc].kind : PF_KIND_SPACE;
}

unsigned pf_location_stars(unsigned loc) {
        return loc < PF_N_LOCATIONS ? pf_locations[loc].stars : 0;
}

bool pf_location_on_board(unsigned loc, unsigned planet) {
        return planet < PF_N_PLANETS && loc >= boards[planet].first &&
               loc < (unsigned)boards[planet].first + boards[planet].n;
}

int pf_board_locations(unsigned planet, unsigned *ret_first, unsigned *ret_n) {
        if (planet >= PF_N_PLANETS)
                return -EINVAL;
        *ret_first = boards[planet].first;
        *ret_n = boards[planet].n;
        return 0;
}

unsigned pf_planet_location(unsigned planet) {
        return planet < PF_N_PLANETS ? boards[planet].first : PF_LOC_NONE;
}

static int find(const char *const *names, size_t n, const char *name, size_t len) {
        for (size_t i = 0; i < n; i++)
                if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
                        return (int)i;
        return -ENOENT;
}

int pf_planet_find(const char *name, size_t len) {
        return find(pf_planet_choices, ELEMENTSOF(pf_planet_choices), name, len);
}

int pf_location_find(const char *name, size_t len) {
        return find(pf_location_choices, ELEMENTSOF(pf_location_choices), name, len);
}

int pf_card_find(const char *code, size_t len) {
        return find(pf_card_code_choices, ELEMENTSOF(pf_card_code_choices), code, len);
}

const struct pf_card_def *pf_card_def(unsigned card) {
        return card < PF_N_CARDS ? &pf_card_defs[card] : NULL;
}

int pf_card_face_visit(unsigned card, const struct eng_visitor *v, void *ctx) {
        struct eng_walk w = { .v = v, .ctx = ctx };
        const struct pf_card_def *d = pf_card_def(card);

        if (!d || !v)
                return -EINVAL;
        eng_walk_str(&w, ENG_CARD_NAME, d->name);
        eng_walk_str(&w, "kind", pf_card_kind_choices[d->kind]);
        eng_walk_str(&w, "code", d->code);
        eng_walk_str(&w, "fingers", d->fingers_text);
        eng_walk_str(&w, "effect", d->effect);
        return w.r;
}

/* Words of each finger for pf_fingers_text. */
static const char *const finger_words[PF_N_FINGERS] = {
        "thumb", "index finger", "middle finger", "ring finger", "little finger",
        "the second joint of the index finger", "a magnetic beam instead of a finger",
};

/* "index or middle finger": fingers share the word "finger" at the end;
 * others are listed in full. */
int pf_fingers_text(unsigned mask, char *buf, size_t size) {
        static const char *const short_words[PF_N_FINGERS] = {
                NULL, "index", "middle", "ring", "little", NULL, NULL,
        };
        unsigned n = 0, total = 0, all_short = 1;
        size_t used = 0;
        int len = 0;

        for (unsigned i = 0; i < PF_N_FINGERS; i++)
                if (mask & (1u << i)) {
                        total++;
                        if (!short_words[i])
                                all_short = 0;
                }
        if (size > 0)
                buf[0] = '\0';
        if (total == 0)
                return snprintf(buf, size, "no finger");
        for (unsigned i = 0; i < PF_N_FINGERS; i++) {
                const char *sep, *word;
                int k;

                if (!(mask & (1u << i)))
                        continue;
                n++;
                sep = n == 1 ? "" : n == total ? " or " : ", ";
                word = all_short && total > 1 ? short_words[i] : finger_words[i];
                k = snprintf(buf + used, used < size ? size - used : 0, "%s%s", sep, word);
                if (k < 0)
                        return k;
                len += k;
                used = used + (size_t)k < size ? used + (size_t)k : size;
        }
        if (all_short && total > 1) {
                int k = snprintf(buf + used, used < size ? size - used : 0, " finger");

                if (k < 0)
                        return k;
                len += k;
        }
        return len;
}

int pf_fingers_parse(const char *text, size_t len, unsigned *ret_mask) {
        unsigned mask = 0;
        size_t i = 0;

        if (len == 0)
                return -EINVAL;
        while (i <= len) {
                size_t j = i;
                int f;

                while (j < len && text[j] != '+')
                        j++;
                f = find(pf_finger_choices, ELEMENTSOF(pf_finger_choices), text + i, j - i);
                if (f < 0 || (mask & (1u << f)))
                        return -EINVAL;
                mask |= 1u << f;
                i = j + 1;
        }
        *ret_mask = mask;
        return 0;
}

unsigned pf_planet_cards_for(unsigned players) {
        if (players < PF_MIN_PLAYERS || players > PF_MAX_PLAYERS)
                return 0;
        return 10 - players;            /* 2..6 players: 8, 7, 6, 5, 4 */
}

int pf_layout_check(const int64_t *planets, size_t n, const char *field, struct eng_error *ret_err) {
        int at[PF_N_PLANETS];
        char name[ENG_FIELD_MAX];

        if (!field)
                field = "layout";
        if (n != PF_BOARDS)
                return eng_error_set(ret_err, field, "needs %d planets, one per board, not %zu",
                                     PF_BOARDS, n);
        for (size_t i = 0; i < PF_N_PLANETS; i++)
                at[i] = -1;
        for (size_t i = 0; i < n; i++) {
                snprintf(name, sizeof(name), "%s[%zu]", field, i);
                if (planets[i] < 0 || planets[i] >= PF_N_PLANETS)
                        return eng_error_set(ret_err, name, "is not a planet");
                if (at[planets[i]] >= 0)
                        return eng_error_set(ret_err, name, "%s is already at %s[%d]",
                                             pf_planet_choices[planets[i]], field, at[planets[i]]);
                at[planets[i]] = (int)i;
        }
        return 0;
}
