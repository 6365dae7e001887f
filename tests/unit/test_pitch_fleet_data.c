/* Pitch Fleet's physical game as data (engine/pitch_fleet_data.h,
 * docs/games/pitch-fleet-data.md): the box's counts are the rulebook's
 * "Game Components"; the nine boards meet what the rulebook's challenges
 * say of them, their locations are named as the shared vocabulary says and
 * drawn inside the board without overlapping; the power cards' faces; the
 * built-in challenge cards are the rulebook's 1-16 and 20, and a custom
 * catalogue's every kind of error names its line, its card and its field;
 * the evaluation table's boundaries; a layout's check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "engine/pitch_fleet_data.h"
#include "test_engine_json.h"

#define ELEMENTSOF(a)   (sizeof(a) / sizeof((a)[0]))

/* Big: one of each is enough. */
static struct pf_challenges cat;
static char big[PF_CHALLENGES_MAX_LEN + 256];

/* ---- Helpers. */

struct board_counts {
        unsigned planets, vp, charging, belts, first, n;
};

static struct board_counts count_board(unsigned planet) {
        struct board_counts c = { 0 };

        assert_int_equal(pf_board_locations(planet, &c.first, &c.n), 0);
        for (unsigned l = c.first; l < c.first + c.n; l++)
                switch (pf_locations[l].kind) {
                case PF_KIND_PLANET: c.planets++; break;
                case PF_KIND_VP_SATELLITE: c.vp++; break;
                case PF_KIND_CHARGING_SATELLITE: c.charging++; break;
                case PF_KIND_ASTEROID_BELT: c.belts++; break;
                default: fail_msg("%s has kind %u", pf_locations[l].id, pf_locations[l].kind);
                }
        return c;
}

static bool is_satellite(unsigned kind) {
        return kind == PF_KIND_VP_SATELLITE || kind == PF_KIND_CHARGING_SATELLITE;
}

/* Squared distance between two locations' centres. */
static int dist2(const struct pf_location *a, const struct pf_location *b) {
        int dx = (int) a->x - (int) b->x, dy = (int) a->y - (int) b->y;

        return dx * dx + dy * dy;
}

/* Whether the circles of a and b (radii ra, rb) are at least gap apart. */
static bool apart(const struct pf_location *a, int ra, const struct pf_location *b, int rb, int gap) {
        int d = ra + rb + gap;

        return dist2(a, b) >= d * d;
}

static int parse(const char *text, struct eng_error *err) {
        memset(err, 0, sizeof *err);
        memset(&cat, 0xa5, sizeof cat);
        return pf_challenges_parse(text, strlen(text), &cat, err);
}

static void parse_ok(const char *text) {
        struct eng_error err;

        if (parse(text, &err) < 0)
                fail_msg("does not parse: %s", err.message);
}

/* The error: field "data.challenges line N" (line 0: "data.challenges"),
 * the message begins with the field, names the card (0: no card) and holds
 * what. */
static void expect_error(const char *text, unsigned line, unsigned number, const char *what) {
        struct eng_error err;
        char field[ENG_FIELD_MAX], card[64];

        assert_int_equal(parse(text, &err), -EINVAL);
        if (line)
                snprintf(field, sizeof field, "data.challenges line %u", line);
        else
                snprintf(field, sizeof field, "data.challenges");
        assert_string_equal(err.field, field);
        assert_true(strncmp(err.message, field, strlen(field)) == 0);
        snprintf(card, sizeof card, "(card %u): ", number);
        if (number && !strstr(err.message, card))
                fail_msg("\"%s\" does not name card %u", err.message, number);
        if (!number && strstr(err.message, "(card "))
                fail_msg("\"%s\" names a card", err.message);
        if (!strstr(err.message, what))
                fail_msg("\"%s\" does not say \"%s\"", err.message, what);
}

/* ---- F1: the box ("Game Components"). */

static void components_are_the_rulebooks_counts(void **state) {
        unsigned basic = 0, advanced = 0, per_team[PF_N_TEAMS] = { 0 };

        (void) state;
        assert_int_equal(PF_BOARDS, 9);                 /* A */
        assert_int_equal(PF_N_PLANETS, PF_BOARDS);
        assert_int_equal(PF_BASIC_CARDS, 50);           /* B: 10 kinds x 5 */
        assert_int_equal(PF_BASIC_KINDS * PF_BASIC_COPIES, 50);
        assert_int_equal(PF_PLANET_CARDS, 9);           /* C */
        assert_int_equal(PF_TEAM_CARDS, 6);             /* D: 3 red, 3 blue */
        assert_int_equal(PF_SHIPS, 6);                  /* E */
        assert_int_equal(PF_N_SHIPS, PF_SHIPS);
        assert_int_equal(PF_SHIP_STICKERS, 6);          /* F */
        assert_int_equal(PF_RECORD_TOKENS, 6);          /* G */
        assert_int_equal(PF_STARTING_TOKENS, 1);        /* H */
        assert_int_equal(PF_RESTART_CARDS, 6);          /* I */
        assert_int_equal(PF_VP1_TOKENS, 18);            /* J */
        assert_int_equal(PF_VP3_TOKENS, 18);
        assert_int_equal(PF_VP10_CARDS, 10);            /* K */
        assert_int_equal(PF_BEAMS, 6);                  /* L */
        assert_int_equal(PF_SUMMARY_CARDS, 6);          /* M */
        assert_int_equal(PF_ADVANCED_CARDS, 25);        /* N: 5 kinds x 5 */
        assert_int_equal(PF_ADVANCED_KINDS * PF_ADVANCED_COPIES, 25);
        assert_int_equal(PF_CHALLENGE_CARDS, 28);       /* O */
        for (unsigned c = 0; c < PF_N_CARDS; c++)
                *(pf_card_defs[c].kind == PF_CARD_BASIC ? &basic : &advanced) += 1;
        assert_int_equal(basic, PF_BASIC_KINDS);
        assert_int_equal(advanced, PF_ADVANCED_KINDS);
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                per_team[pf_ship_team(s)]++;
        assert_int_equal(per_team[PF_TEAM_RED], PF_TEAM_CARDS / 2);
        assert_int_equal(per_team[PF_TEAM_BLUE], PF_TEAM_CARDS / 2);
        assert_int_equal(PF_SHIPS_PER_TEAM * PF_N_TEAMS, PF_SHIPS);
}

static void planet_cards_by_player_count(void **state) {
        static const unsigned want[] = { [2] = 8, [3] = 7, [4] = 6, [5] = 5, [6] = 4 };

        (void) state;
        for (unsigned p = PF_MIN_PLAYERS; p <= PF_MAX_PLAYERS; p++)
                assert_int_equal(pf_planet_cards_for(p), want[p]);
        assert_int_equal(pf_planet_cards_for(0), 0);
        assert_int_equal(pf_planet_cards_for(1), 0);
        assert_int_equal(pf_planet_cards_for(7), 0);
}

static void names_are_the_shared_vocabulary(void **state) {
        static const char *const planets[] = {
                "mercury", "venus", "earth", "mars", "jupiter", "saturn", "uranus", "neptune", "pluto",
        };
        static const char *const ships[] = { "red_1", "red_2", "red_3", "blue_1", "blue_2", "blue_3" };
        static const char *const kinds[] = { "planet", "vp_satellite", "charging_satellite", "asteroid_belt" };

        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(planets); i++) {
                assert_string_equal(pf_planet_name(i), planets[i]);
                assert_int_equal(pf_planet_find(planets[i], strlen(planets[i])), (int) i);
                assert_non_null(pf_planet_text[i]);
        }
        assert_null(pf_planet_name(PF_N_PLANETS));
        assert_int_equal(pf_planet_find("vulcan", 6), -ENOENT);
        assert_int_equal(pf_planet_find("mars", 3), -ENOENT);
        for (unsigned i = 0; i < ELEMENTSOF(ships); i++) {
                assert_string_equal(pf_ship_name(i), ships[i]);
                assert_int_equal(pf_ship_team(i), i < 3 ? PF_TEAM_RED : PF_TEAM_BLUE);
        }
        assert_null(pf_ship_name(PF_N_SHIPS));
        assert_string_equal(pf_team_name(PF_TEAM_RED), "red");
        assert_string_equal(pf_team_name(PF_TEAM_BLUE), "blue");
        assert_null(pf_team_name(PF_N_TEAMS));
        for (unsigned i = 0; i < ELEMENTSOF(kinds); i++)
                assert_string_equal(pf_kind_name(i), kinds[i]);
        assert_null(pf_kind_name(PF_KIND_SPACE));
        assert_string_equal(pf_card_kind_choices[PF_CARD_BASIC], "basic");
        assert_string_equal(pf_card_kind_choices[PF_CARD_ADVANCED], "advanced");
}

/* ---- The boards. */

static void every_board_has_a_planet_satellites_of_both_kinds_and_at_most_one_belt(void **state) {
        unsigned with_belt = 0, next = PF_LOC_NONE + 1;

        (void) state;
        for (unsigned p = 0; p < PF_N_PLANETS; p++) {
                struct board_counts c = count_board(p);
                unsigned last_kind = 0;

                assert_int_equal(c.first, next);        /* consecutive, in planet order */
                next = c.first + c.n;
                assert_int_equal(c.planets, 1);
                assert_int_equal(pf_locations[c.first].kind, PF_KIND_PLANET);
                assert_int_equal(pf_planet_location(p), c.first);
                assert_string_equal(pf_locations[c.first].id, pf_planet_name(p));
                assert_in_range(c.vp + c.charging, 1, PF_MAX_SATELLITES);
                assert_true(c.vp >= 1);
                assert_true(c.charging >= 1);
                assert_true(c.belts <= 1);
                assert_true(c.n <= PF_MAX_BOARD_LOCATIONS);
                with_belt += c.belts;
                for (unsigned l = c.first; l < c.first + c.n; l++) {
                        const struct pf_location *loc = &pf_locations[l];

                        assert_int_equal(loc->board, p);
                        assert_true(loc->kind >= last_kind);    /* planet, VP, charging, belt */
                        last_kind = loc->kind;
                        if (loc->kind == PF_KIND_VP_SATELLITE)
                                assert_in_range(loc->stars, 1, 3);
                        else
                                assert_int_equal(loc->stars, 0);
                }
        }
        assert_int_equal(next, PF_N_LOCATIONS);
        assert_true(with_belt > PF_BOARDS / 2);         /* most boards */
        assert_int_equal(pf_board_locations(PF_N_PLANETS, &next, &next), -EINVAL);
        assert_int_equal(pf_planet_location(PF_N_PLANETS), PF_LOC_NONE);
}

/* The counts the rulebook's challenges fix: 1, 9, 10 (Venus's belt), 2
 * (Mars's two satellites), 7 (Jupiter's three), 20 (five of Uranus), 11
 * (Neptune's two), 6 (Pluto's satellites). */
static void boards_meet_the_rulebooks_challenges(void **state) {
        struct board_counts c;

        (void) state;
        c = count_board(PF_VENUS);
        assert_int_equal(c.belts, 1);
        c = count_board(PF_MARS);
        assert_int_equal(c.vp + c.charging, 2);
        c = count_board(PF_JUPITER);
        assert_int_equal(c.vp + c.charging, 3);
        c = count_board(PF_URANUS);
        assert_true(c.vp + c.charging >= 5);
        c = count_board(PF_NEPTUNE);
        assert_int_equal(c.vp + c.charging, 2);
        c = count_board(PF_PLUTO);
        assert_true(c.vp + c.charging >= 1);
        /* Picture A: the goal Mercury's board has an asteroid belt; picture
         * B: a belt and two 1 VP satellites (ours: Mercury's). */
        c = count_board(PF_MERCURY);
        assert_int_equal(c.belts, 1);
        assert_int_equal(pf_location_stars(PF_LOC_MERCURY_VP_1), 1);
        assert_int_equal(pf_location_stars(PF_LOC_MERCURY_VP_2), 1);
}

/* "<planet>", "<planet>_vp_<n>", "<planet>_charge_<n>", "<planet>_belt",
 * n from 1 in order; "none" at 0; unique; the table's id is the choice. */
static void location_names_are_unique_and_follow_the_pattern(void **state) {
        (void) state;
        assert_string_equal(pf_location_choices[PF_LOC_NONE], "none");
        assert_string_equal(pf_locations[PF_LOC_NONE].id, "none");
        assert_int_equal(pf_locations[PF_LOC_NONE].board, PF_NO_BOARD);
        assert_int_equal(pf_locations[PF_LOC_NONE].kind, PF_KIND_SPACE);
        for (unsigned p = 0; p < PF_N_PLANETS; p++) {
                struct board_counts c = count_board(p);
                unsigned vp = 0, charge = 0;

                for (unsigned l = c.first; l < c.first + c.n; l++) {
                        char want[64];

                        switch (pf_locations[l].kind) {
                        case PF_KIND_PLANET:
                                snprintf(want, sizeof want, "%s", pf_planet_name(p));
                                break;
                        case PF_KIND_VP_SATELLITE:
                                snprintf(want, sizeof want, "%s_vp_%u", pf_planet_name(p), ++vp);
                                break;
                        case PF_KIND_CHARGING_SATELLITE:
                                snprintf(want, sizeof want, "%s_charge_%u", pf_planet_name(p), ++charge);
                                break;
                        default:
                                snprintf(want, sizeof want, "%s_belt", pf_planet_name(p));
                                break;
                        }
                        assert_string_equal(pf_locations[l].id, want);
                }
        }
        for (unsigned i = 0; i < PF_N_LOCATIONS; i++) {
                assert_string_equal(pf_location_choices[i], pf_locations[i].id);
                assert_string_equal(pf_location_name(i), pf_locations[i].id);
                assert_non_null(pf_location_text[i]);
                assert_true(pf_location_text[i][0] != '\0');
                assert_int_equal(pf_location_find(pf_locations[i].id, strlen(pf_locations[i].id)), (int) i);
                for (unsigned j = 0; j < i; j++) {
                        assert_true(strcmp(pf_location_choices[i], pf_location_choices[j]) != 0);
                        assert_true(strcmp(pf_location_text[i], pf_location_text[j]) != 0);
                }
        }
        assert_null(pf_location_name(PF_N_LOCATIONS));
        assert_int_equal(pf_location_find("venus_belt_", 11), -ENOENT);
        assert_int_equal(pf_location_find("earth_belt", 10), -ENOENT);
}

static void location_lookups(void **state) {
        (void) state;
        assert_int_equal(pf_location_board(PF_LOC_NONE), -1);
        assert_int_equal(pf_location_board(PF_N_LOCATIONS), -1);
        assert_int_equal(pf_location_board(PF_LOC_VENUS_BELT), PF_VENUS);
        assert_int_equal(pf_location_board(PF_LOC_PLUTO_CHARGE_1), PF_PLUTO);
        assert_int_equal(pf_location_kind(PF_LOC_VENUS_BELT), PF_KIND_ASTEROID_BELT);
        assert_int_equal(pf_location_kind(PF_LOC_SATURN_CHARGE_2), PF_KIND_CHARGING_SATELLITE);
        assert_int_equal(pf_location_kind(PF_LOC_JUPITER), PF_KIND_PLANET);
        assert_int_equal(pf_location_kind(PF_LOC_NONE), PF_KIND_SPACE);
        assert_int_equal(pf_location_kind(PF_N_LOCATIONS), PF_KIND_SPACE);
        assert_int_equal(pf_location_stars(PF_LOC_JUPITER_VP_2), 3);
        assert_int_equal(pf_location_stars(PF_LOC_JUPITER_CHARGE_1), 0);
        assert_int_equal(pf_location_stars(PF_N_LOCATIONS), 0);
        assert_non_null(pf_location(PF_LOC_NONE));
        assert_null(pf_location(PF_N_LOCATIONS));
        for (unsigned l = 0; l < PF_N_LOCATIONS; l++)
                for (unsigned p = 0; p < PF_N_PLANETS; p++)
                        assert_int_equal(pf_location_on_board(l, p), pf_locations[l].board == p);
        assert_false(pf_location_on_board(PF_LOC_NONE, 0));
        assert_false(pf_location_on_board(PF_LOC_MERCURY, PF_N_PLANETS));
        assert_false(pf_location_on_board(PF_N_LOCATIONS, PF_PLUTO));
}

static void every_location_lies_inside_its_board(void **state) {
        (void) state;
        for (unsigned l = 1; l < PF_N_LOCATIONS; l++) {
                const struct pf_location *loc = &pf_locations[l];

                assert_true(loc->r > 0);
                if (loc->x < loc->r || loc->x + loc->r > PF_BOARD_UNITS || loc->y < loc->r ||
                    loc->y + loc->r > PF_BOARD_UNITS)
                        fail_msg("%s (%u, %u, r %u) leaves the board", loc->id, loc->x, loc->y, loc->r);
                if (loc->kind == PF_KIND_ASTEROID_BELT)
                        assert_true(loc->r_inner > 0 && loc->r_inner < loc->r);
                else
                        assert_int_equal(loc->r_inner, 0);
        }
}

/* The dotted lines that must not cross: satellites from each other, from
 * their planet and from the belt's ring (2 units apart at least); a belt is
 * a ring around its planet, the planet inside its hole. */
static void locations_do_not_overlap(void **state) {
        (void) state;
        for (unsigned p = 0; p < PF_N_PLANETS; p++) {
                struct board_counts c = count_board(p);
                const struct pf_location *planet = &pf_locations[c.first], *belt = NULL;

                for (unsigned l = c.first; l < c.first + c.n; l++)
                        if (pf_locations[l].kind == PF_KIND_ASTEROID_BELT)
                                belt = &pf_locations[l];
                if (belt) {
                        assert_int_equal(belt->x, planet->x);
                        assert_int_equal(belt->y, planet->y);
                        assert_true(planet->r < belt->r_inner);
                }
                for (unsigned a = c.first; a < c.first + c.n; a++) {
                        const struct pf_location *sa = &pf_locations[a];

                        if (!is_satellite(sa->kind))
                                continue;
                        if (!apart(sa, sa->r, planet, planet->r, 2))
                                fail_msg("%s overlaps %s", sa->id, planet->id);
                        if (belt && !apart(sa, sa->r, belt, belt->r, 2))
                                fail_msg("%s overlaps %s", sa->id, belt->id);
                        for (unsigned b = c.first; b < a; b++) {
                                const struct pf_location *sb = &pf_locations[b];

                                if (is_satellite(sb->kind) && !apart(sa, sa->r, sb, sb->r, 2))
                                        fail_msg("%s overlaps %s", sa->id, sb->id);
                        }
                }
        }
}

/* Challenge 20 (five satellites of Uranus in at most three moves, "arrive
 * multiple satellites simultaneously") and picture B (a belt and two 1 VP
 * satellites at once) ask for close neighbours: within 4 units. */
static void close_neighbours_where_the_rulebook_needs_them(void **state) {
        static const unsigned chain[] = {
                PF_LOC_URANUS_VP_1, PF_LOC_URANUS_CHARGE_1, PF_LOC_URANUS_VP_2, PF_LOC_URANUS_CHARGE_2,
                PF_LOC_URANUS_VP_3,
        };
        const struct pf_location *m1 = &pf_locations[PF_LOC_MERCURY_VP_1];
        const struct pf_location *belt = &pf_locations[PF_LOC_MERCURY_BELT];

        (void) state;
        for (unsigned i = 1; i < ELEMENTSOF(chain); i++) {
                const struct pf_location *a = &pf_locations[chain[i - 1]], *b = &pf_locations[chain[i]];

                if (apart(a, a->r, b, b->r, 4 + 1))
                        fail_msg("%s and %s are more than 4 units apart", a->id, b->id);
        }
        assert_false(apart(m1, m1->r, belt, belt->r, 4 + 1));
}

/* ---- Power cards. */

static void power_cards_are_b1_to_b10_then_a1_to_a5(void **state) {
        (void) state;
        for (unsigned c = 0; c < PF_N_CARDS; c++) {
                const struct pf_card_def *d = pf_card_def(c);
                char want[8], fingers[128];

                assert_non_null(d);
                if (c < PF_BASIC_KINDS)
                        snprintf(want, sizeof want, "B%u", c + 1);
                else
                        snprintf(want, sizeof want, "A%u", c - PF_BASIC_KINDS + 1);
                assert_string_equal(d->code, want);
                assert_string_equal(pf_card_code(c), want);
                assert_string_equal(pf_card_code_choices[c], want);
                assert_int_equal(pf_card_find(want, strlen(want)), (int) c);
                assert_int_equal(d->kind, c < PF_BASIC_KINDS ? PF_CARD_BASIC : PF_CARD_ADVANCED);
                assert_true(d->name && d->name[0]);
                assert_true(d->fingers != 0 && (d->fingers & ~PF_FINGER_ALL) == 0);
                pf_fingers_text(d->fingers, fingers, sizeof fingers);
                assert_string_equal(d->fingers_text, fingers);
                assert_true(strlen(d->effect) > 10);
                assert_int_equal(d->effect[strlen(d->effect) - 1], '.');
                assert_null(strchr(d->effect, '"'));
                for (unsigned o = 0; o < c; o++)
                        assert_true(strcmp(pf_card_defs[o].name, d->name) != 0);
        }
        assert_null(pf_card_def(PF_N_CARDS));
        assert_null(pf_card_code(PF_N_CARDS));
        assert_int_equal(pf_card_find("B11", 3), -ENOENT);
        assert_int_equal(pf_card_find("B1", 1), -ENOENT);
        /* The two names the rulebook gives, on the cards whose movement it
         * describes: a beam set down first; a move somewhere else first. */
        assert_string_equal(pf_card_defs[PF_CARD_B4].name, "Magnetic Barrier");
        assert_string_equal(pf_card_defs[PF_CARD_B6].name, "Warp Drive");
        assert_int_equal(pf_card_defs[PF_CARD_B5].fingers, PF_FINGER_BEAM);
        assert_int_equal(pf_card_defs[PF_CARD_A1].fingers, PF_FINGER_KNUCKLE);
}

static void a_card_face_is_name_kind_code_fingers_effect(void **state) {
        struct tj j;

        (void) state;
        tj_init(&j);
        assert_int_equal(pf_card_face_visit(PF_CARD_B4, &tj_visitor, &j), 0);
        assert_true(tj_balanced(&j));
        assert_string_equal(tj_finish(&j),
                            "{\"name\":\"Magnetic Barrier\",\"kind\":\"basic\",\"code\":\"B4\","
                            "\"fingers\":\"index finger\",\"effect\":\"Place a magnetic beam anywhere "
                            "touching no starship or beam, then move; it stays until a starship knocks "
                            "it.\"}");
        tj_init(&j);
        assert_int_equal(pf_card_face_visit(PF_N_CARDS, &tj_visitor, &j), -EINVAL);
}

static void fingers_in_words_and_from_the_data_file(void **state) {
        char buf[128];
        unsigned mask = 0;

        (void) state;
        pf_fingers_text(PF_FINGER_INDEX, buf, sizeof buf);
        assert_string_equal(buf, "index finger");
        pf_fingers_text(PF_FINGER_INDEX | PF_FINGER_MIDDLE, buf, sizeof buf);
        assert_string_equal(buf, "index or middle finger");
        pf_fingers_text(PF_FINGER_INDEX | PF_FINGER_MIDDLE | PF_FINGER_RING, buf, sizeof buf);
        assert_string_equal(buf, "index, middle or ring finger");
        pf_fingers_text(PF_FINGER_THUMB | PF_FINGER_INDEX, buf, sizeof buf);
        assert_string_equal(buf, "thumb or index finger");
        pf_fingers_text(0, buf, sizeof buf);
        assert_string_equal(buf, "no finger");
        /* Cut short like snprintf, the length it needs returned. */
        assert_int_equal(pf_fingers_text(PF_FINGER_RING | PF_FINGER_LITTLE, buf, 6),
                         (int) strlen("ring or little finger"));
        assert_string_equal(buf, "ring ");
        assert_int_equal(pf_fingers_parse("index+middle", 12, &mask), 0);
        assert_int_equal(mask, PF_FINGER_INDEX | PF_FINGER_MIDDLE);
        assert_int_equal(pf_fingers_parse("beam", 4, &mask), 0);
        assert_int_equal(mask, PF_FINGER_BEAM);
        assert_int_equal(pf_fingers_parse("", 0, &mask), -EINVAL);
        assert_int_equal(pf_fingers_parse("index+", 6, &mask), -EINVAL);
        assert_int_equal(pf_fingers_parse("+index", 6, &mask), -EINVAL);
        assert_int_equal(pf_fingers_parse("pinky", 5, &mask), -EINVAL);
        assert_int_equal(pf_fingers_parse("ring+ring", 9, &mask), -EINVAL);
        for (unsigned i = 0; i < PF_N_FINGERS; i++) {
                assert_int_equal(pf_fingers_parse(pf_finger_choices[i], strlen(pf_finger_choices[i]), &mask), 0);
                assert_int_equal(mask, 1u << i);
        }
}

/* ---- The built-in challenge cards. */

static void builtin_challenges_are_the_rulebooks_1_to_16_and_20(void **state) {
        (void) state;
        parse_ok(pf_builtin_challenges);
        assert_int_equal(cat.n, PF_BUILTIN_CHALLENGES);
        for (unsigned i = 0; i < cat.n; i++) {
                const struct pf_challenge *c = &cat.cards[i];

                assert_int_equal(c->number, i < 16 ? i + 1 : 20);
                assert_true(c->number <= PF_CHALLENGE_CARDS);
                assert_in_range(c->vp, 1, 4);
                assert_in_range(c->moves, 1, 3);
                assert_true(c->fingers != 0);
                assert_true(c->setup[0] && c->goal[0]);
                assert_ptr_equal(pf_challenge_find(&cat, c->number), c);
                assert_int_equal(c->card, c->number == 20 ? PF_CARD_B4 : PF_CARD_NONE);
        }
        assert_null(pf_challenge_find(&cat, 17));
        assert_null(pf_challenge_find(NULL, 1));
        /* As the rulebook prints them. */
        assert_string_equal(cat.cards[0].setup, "One red Starship on the asteroid belt of Venus.");
        assert_string_equal(cat.cards[0].goal, "Let the red Starship arrive Venus.");
        assert_string_equal(cat.cards[5].setup, "None.");
        assert_string_equal(cat.cards[5].goal, "Arrive Pluto without arriving any satellite.");
        assert_string_equal(cat.cards[15].goal, "Outbound one and only one red Starship.");
        /* Challenge 20: Uranus's five satellites, at most 3 moves, the
         * magnetic barrier (the rulebook's example). */
        assert_int_equal(cat.cards[16].moves, 3);
        assert_non_null(strstr(cat.cards[16].goal, "five satellites of Uranus"));
        assert_int_equal(cat.cards[16].fingers, pf_card_defs[PF_CARD_B4].fingers);
}

/* With seven cards of the built-in ones, "Solar-mighty" (18+) is reachable
 * and not given away: the best seven sum 18 or more, the worst seven less. */
static void builtin_vp_make_the_evaluation_table_meaningful(void **state) {
        unsigned vp[PF_MAX_CHALLENGES], best = 0, worst = 0;

        (void) state;
        parse_ok(pf_builtin_challenges);
        for (unsigned i = 0; i < cat.n; i++)
                vp[i] = cat.cards[i].vp;
        for (unsigned i = 0; i < cat.n; i++)            /* sort descending */
                for (unsigned k = i + 1; k < cat.n; k++)
                        if (vp[k] > vp[i]) {
                                unsigned t = vp[i];

                                vp[i] = vp[k];
                                vp[k] = t;
                        }
        for (unsigned i = 0; i < PF_SOLO_CARDS; i++) {
                best += vp[i];
                worst += vp[cat.n - 1 - i];
        }
        assert_true(best >= 18);
        assert_true(worst < 18);
}

/* ---- A custom catalogue. */

static void a_custom_catalogue_replaces_the_builtin_one(void **state) {
        (void) state;
        parse_ok("# ours\n"
                 "30 moves=1 fingers=ring+little vp=5 | Setup: None. | Challenge: Arrive Mars.\n"
                 "21   vp=3 moves=2 fingers=index card=B10 |Setup:Two beams on Earth.|Challenge:  Arrive Earth.  \n"
                 "22 vp=1 moves=9 fingers=beam card=none | Setup: x | Challenge: y # a comment\n");
        assert_int_equal(cat.n, 3);
        assert_int_equal(cat.cards[0].number, 21);      /* sorted by number */
        assert_int_equal(cat.cards[0].card, PF_CARD_B10);
        assert_string_equal(cat.cards[0].setup, "Two beams on Earth.");
        assert_string_equal(cat.cards[0].goal, "Arrive Earth.");
        assert_int_equal(cat.cards[1].number, 22);
        assert_int_equal(cat.cards[1].card, PF_CARD_NONE);
        assert_int_equal(cat.cards[1].moves, 9);
        assert_string_equal(cat.cards[1].goal, "y");
        assert_int_equal(cat.cards[2].number, 30);
        assert_int_equal(cat.cards[2].vp, 5);
        assert_int_equal(cat.cards[2].fingers, PF_FINGER_RING | PF_FINGER_LITTLE);
        assert_int_equal(cat.cards[2].card, PF_CARD_NONE);
        assert_null(pf_challenge_find(&cat, 1));
}

static void builtin_first_then_replace_and_add(void **state) {
        (void) state;
        parse_ok("builtin\n"
                 "20 vp=5 moves=3 fingers=index card=B4 | Setup: Three beams around Uranus. "
                 "| Challenge: Arrive all five satellites of Uranus.\n"
                 "17 vp=2 moves=2 fingers=middle | Setup: None. | Challenge: Arrive Saturn's belt.\n");
        assert_int_equal(cat.n, PF_BUILTIN_CHALLENGES + 1);
        assert_int_equal(cat.cards[16].number, 17);
        assert_int_equal(cat.cards[17].number, 20);
        assert_int_equal(cat.cards[17].vp, 5);
        assert_string_equal(cat.cards[17].setup, "Three beams around Uranus.");
        assert_int_equal(cat.cards[0].number, 1);
        assert_int_equal(cat.cards[0].vp, 2);
        for (unsigned i = 1; i < cat.n; i++)
                assert_true(cat.cards[i - 1].number < cat.cards[i].number);
}

/* ---- Every kind of error, naming its line, its card and its field. */

#define OK_TAIL " | Setup: None. | Challenge: Arrive Mars.\n"

static void errors_of_the_head(void **state) {
        (void) state;
        expect_error("vp=1" OK_TAIL, 1, 0, "number: \"vp=1\" must be 1..99");
        expect_error("0 vp=1 moves=1 fingers=index" OK_TAIL, 1, 0, "number: \"0\" must be 1..99");
        expect_error("100 vp=1 moves=1 fingers=index" OK_TAIL, 1, 0, "number: \"100\" must be 1..99");
        expect_error(" | Setup: None. | Challenge: x\n", 1, 0, "number: missing");
        expect_error("\n\n# c\n5 vp=1 moves=1 fingers=index points=3" OK_TAIL, 4, 5,
                     "points: is not a key");
        expect_error("5 vp=1 moves=1 fingers=index bonus" OK_TAIL, 1, 5, "\"bonus\" is not key=value");
        expect_error("5 vp=1 vp=2 moves=1 fingers=index" OK_TAIL, 1, 5, "vp: is given twice");
        expect_error("5 vp=0 moves=1 fingers=index" OK_TAIL, 1, 5, "vp: \"0\" must be 1..9");
        expect_error("5 vp=10 moves=1 fingers=index" OK_TAIL, 1, 5, "vp: \"10\" must be 1..9");
        expect_error("5 vp=x moves=1 fingers=index" OK_TAIL, 1, 5, "vp: \"x\" must be 1..9");
        expect_error("5 vp=1 moves=0 fingers=index" OK_TAIL, 1, 5, "moves: \"0\" must be 1..9");
        expect_error("5 vp=1 moves= fingers=index" OK_TAIL, 1, 5, "moves: \"\" must be 1..9");
        expect_error("5 vp=1 moves=1 fingers=pinky" OK_TAIL, 1, 5, "fingers: \"pinky\" is not a list");
        expect_error("5 vp=1 moves=1 fingers=index+index" OK_TAIL, 1, 5, "fingers: \"index+index\"");
        expect_error("5 vp=1 moves=1 fingers=index card=C1" OK_TAIL, 1, 5,
                     "card: \"C1\" is not a power card (B1..B10, A1..A5) or none");
        expect_error("5 moves=1 fingers=index" OK_TAIL, 1, 5, "vp: missing");
        expect_error("5 vp=1 fingers=index" OK_TAIL, 1, 5, "moves: missing");
        expect_error("5 vp=1 moves=1" OK_TAIL, 1, 5, "fingers: missing");
}

static void errors_of_the_texts(void **state) {
        (void) state;
        expect_error("5 vp=1 moves=1 fingers=index\n", 1, 5, "setup: missing");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: None.\n", 1, 5, "challenge: missing");
        expect_error("5 vp=1 moves=1 fingers=index | Challenge: x\n", 1, 5,
                     "setup: missing; the part begins \"Setup:\"");
        expect_error("5 vp=1 moves=1 fingers=index | None. | Challenge: x\n", 1, 5,
                     "setup: missing; the part begins \"Setup:\"");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: None. | Goal: x\n", 1, 5,
                     "challenge: missing; the part begins \"Challenge:\"");
        expect_error("5 vp=1 moves=1 fingers=index | Setup:   | Challenge: x\n", 1, 5, "setup: is empty");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: x | Challenge:\n", 1, 5, "challenge: is empty");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: x | Challenge: y | z\n", 1, 5,
                     "holds a third \"|\"");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: a \"b\" | Challenge: y\n", 1, 5,
                     "setup: holds '\"'");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: a | Challenge: y\\n\n", 1, 5,
                     "challenge: holds '\\'");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: a\tb | Challenge: y\n", 1, 5,
                     "setup: holds '\\t'");
        expect_error("5 vp=1 moves=1 fingers=index | Setup: caf\xc3\xa9 | Challenge: y\n", 1, 5,
                     "holds byte 0xc3 at column 42");
        expect_error("x\x01 vp=1 moves=1 fingers=index" OK_TAIL, 1, 0, "holds byte 0x01 at column 2");
}

static void error_text_too_long(void **state) {
        size_t at;

        (void) state;
        at = (size_t) snprintf(big, sizeof big, "7 vp=1 moves=1 fingers=index | Setup: ");
        memset(big + at, 'a', PF_CHALLENGE_TEXT_MAX);
        at += PF_CHALLENGE_TEXT_MAX;
        snprintf(big + at, sizeof big - at, " | Challenge: y\n");
        parse_ok(big);
        assert_int_equal(strlen(cat.cards[0].setup), PF_CHALLENGE_TEXT_MAX);
        at = (size_t) snprintf(big, sizeof big, "7 vp=1 moves=1 fingers=index | Setup: x | Challenge: ");
        memset(big + at, 'a', PF_CHALLENGE_TEXT_MAX + 1);
        at += PF_CHALLENGE_TEXT_MAX + 1;
        snprintf(big + at, sizeof big - at, "\n");
        expect_error(big, 1, 7, "challenge: is 201 characters; at most 200");
}

static void error_duplicate_number(void **state) {
        (void) state;
        expect_error("5 vp=1 moves=1 fingers=index" OK_TAIL "6 vp=1 moves=1 fingers=index" OK_TAIL
                     "5 vp=2 moves=1 fingers=index" OK_TAIL, 3, 5,
                     "number: 5 is already the number of line 1's card");
        /* After "builtin", a number may replace a built-in card once only. */
        expect_error("builtin\n3 vp=1 moves=1 fingers=index" OK_TAIL "3 vp=1 moves=1 fingers=index" OK_TAIL,
                     3, 3, "number: 3 is already the number of line 2's card");
}

static void error_builtin_not_first(void **state) {
        (void) state;
        expect_error("5 vp=1 moves=1 fingers=index" OK_TAIL "builtin\n", 2, 0,
                     "builtin: only the first line may say builtin");
        expect_error("builtin\nbuiltin\n", 2, 0, "builtin: only the first line");
        /* A comment before it is not a line. */
        parse_ok("# ours and the box's\nbuiltin\n");
        assert_int_equal(cat.n, PF_BUILTIN_CHALLENGES);
}

static void error_too_many_cards(void **state) {
        size_t at = 0;

        (void) state;
        for (unsigned n = 1; n <= PF_MAX_CHALLENGES; n++)
                at += (size_t) snprintf(big + at, sizeof big - at, "%u vp=1 moves=1 fingers=index" OK_TAIL, n);
        parse_ok(big);
        assert_int_equal(cat.n, PF_MAX_CHALLENGES);
        snprintf(big + at, sizeof big - at, "%u vp=1 moves=1 fingers=index" OK_TAIL, PF_MAX_CHALLENGES + 1);
        expect_error(big, PF_MAX_CHALLENGES + 1, PF_MAX_CHALLENGES + 1, "is card 65; at most 64 are accepted");
}

static void error_empty_and_too_long_files(void **state) {
        struct eng_error err;

        (void) state;
        expect_error("", 0, 0, "holds no card; 1 to 64 are needed");
        expect_error("# nothing\n\n   \n", 0, 0, "holds no card");
        memset(big, '#', PF_CHALLENGES_MAX_LEN + 1);
        big[PF_CHALLENGES_MAX_LEN + 1] = '\0';
        expect_error(big, 0, 0, "is 32769 bytes; at most 32768 are accepted");
        assert_int_equal(pf_challenges_parse(NULL, 0, &cat, &err), -EINVAL);
        assert_string_equal(err.field, "data.challenges");
        /* No error struct: still refused. */
        assert_int_equal(pf_challenges_parse("x", 1, &cat, NULL), -EINVAL);
}

/* Every prefix of the built-in text parses or fails with a message naming
 * the file; never a crash (ASan watches). */
static void truncated_catalogues_parse_or_fail_cleanly(void **state) {
        size_t len = strlen(pf_builtin_challenges);

        (void) state;
        for (size_t n = 0; n <= len; n += 7) {
                struct eng_error err;
                int r;

                memset(&err, 0, sizeof err);
                r = pf_challenges_parse(pf_builtin_challenges, n, &cat, &err);

                if (r < 0)
                        assert_true(strncmp(err.message, "data.challenges", 15) == 0);
                else
                        assert_true(cat.n >= 1 && cat.n <= PF_BUILTIN_CHALLENGES);
        }
}

/* ---- The evaluation table. */

static void evaluation_table_boundaries(void **state) {
        static const struct {
                int total;
                const char *label;
        } rows[] = {
                { 100, "Solar-mighty" }, { 18, "Solar-mighty" }, { 17, "Impressive" }, { 15, "Impressive" },
                { 14, "Expert" }, { 11, "Expert" }, { 10, "Average pilot" }, { 7, "Average pilot" },
                { 6, "Don't drive my Starship" }, { 5, "Don't drive my Starship" },
                { 4, "Back to internship!" }, { 0, "Back to internship!" }, { -3, "Back to internship!" },
        };

        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(rows); i++)
                assert_string_equal(pf_evaluation_label(rows[i].total), rows[i].label);
        for (unsigned i = 1; i < PF_N_EVALUATIONS; i++)
                assert_true(pf_evaluations[i].min_total < pf_evaluations[i - 1].min_total);
        assert_int_equal(pf_evaluations[PF_N_EVALUATIONS - 1].min_total, 0);
}

/* ---- A layout. */

static void layout_check(void **state) {
        int64_t layout[PF_BOARDS] = { 8, 7, 6, 5, 4, 3, 2, 1, 0 };
        struct eng_error err;

        (void) state;
        assert_int_equal(pf_layout_check(layout, PF_BOARDS, NULL, &err), 0);
        assert_int_equal(pf_layout_check(layout, 8, NULL, &err), -EINVAL);
        assert_string_equal(err.field, "layout");
        assert_non_null(strstr(err.message, "needs 9 planets, one per board, not 8"));
        assert_int_equal(pf_layout_check(layout, 0, "solo.layout", &err), -EINVAL);
        assert_string_equal(err.field, "solo.layout");
        layout[4] = PF_N_PLANETS;
        assert_int_equal(pf_layout_check(layout, PF_BOARDS, NULL, &err), -EINVAL);
        assert_string_equal(err.field, "layout[4]");
        assert_non_null(strstr(err.message, "is not a planet"));
        layout[4] = -1;
        assert_int_equal(pf_layout_check(layout, PF_BOARDS, NULL, &err), -EINVAL);
        assert_string_equal(err.field, "layout[4]");
        layout[4] = PF_URANUS;                          /* already at [2] */
        assert_int_equal(pf_layout_check(layout, PF_BOARDS, NULL, &err), -EINVAL);
        assert_string_equal(err.field, "layout[4]");
        assert_non_null(strstr(err.message, "uranus is already at layout[2]"));
        assert_int_equal(pf_layout_check(layout, PF_BOARDS, NULL, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(components_are_the_rulebooks_counts),
                cmocka_unit_test(planet_cards_by_player_count),
                cmocka_unit_test(names_are_the_shared_vocabulary),
                cmocka_unit_test(every_board_has_a_planet_satellites_of_both_kinds_and_at_most_one_belt),
                cmocka_unit_test(boards_meet_the_rulebooks_challenges),
                cmocka_unit_test(location_names_are_unique_and_follow_the_pattern),
                cmocka_unit_test(location_lookups),
                cmocka_unit_test(every_location_lies_inside_its_board),
                cmocka_unit_test(locations_do_not_overlap),
                cmocka_unit_test(close_neighbours_where_the_rulebook_needs_them),
                cmocka_unit_test(power_cards_are_b1_to_b10_then_a1_to_a5),
                cmocka_unit_test(a_card_face_is_name_kind_code_fingers_effect),
                cmocka_unit_test(fingers_in_words_and_from_the_data_file),
                cmocka_unit_test(builtin_challenges_are_the_rulebooks_1_to_16_and_20),
                cmocka_unit_test(builtin_vp_make_the_evaluation_table_meaningful),
                cmocka_unit_test(a_custom_catalogue_replaces_the_builtin_one),
                cmocka_unit_test(builtin_first_then_replace_and_add),
                cmocka_unit_test(errors_of_the_head),
                cmocka_unit_test(errors_of_the_texts),
                cmocka_unit_test(error_text_too_long),
                cmocka_unit_test(error_duplicate_number),
                cmocka_unit_test(error_builtin_not_first),
                cmocka_unit_test(error_too_many_cards),
                cmocka_unit_test(error_empty_and_too_long_files),
                cmocka_unit_test(truncated_catalogues_parse_or_fail_cleanly),
                cmocka_unit_test(evaluation_table_boundaries),
                cmocka_unit_test(layout_check),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
