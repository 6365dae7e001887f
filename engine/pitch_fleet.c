/* engine/pitch_fleet.c — the rules of Pitch Fleet ("pitch-fleet"); the
 * header says what this file owns, the turn's conversation, the state
 * diagram and the invariants; docs/games/pitch-fleet.md has every clause
 * (F1..F40), every power card (B1..B10, A1..A5) with its test and every
 * decision with its reason.
 *
 * The rules, as implemented (clause numbers are the rules page's):
 *   - Set-up (F1..F12, create): the layout (the setting, or shuffled), the
 *     power deck built from the deck settings and shuffled, a pile of three
 *     a player with its top face up, the planet deck (8, 7, 6, 5, 4 cards
 *     for 2..6 players, drawn from the nine), the starting and the goal
 *     planet, team cards by player count dealt (the holder of red_1 is the
 *     starting player), a restart card and a 3 VP token each, the 3 VP
 *     token on the goal.  START announces it.
 *   - A turn (F13..F20): pick (the card by its handle among the face-up
 *     tops, a ship of the player's team; pre-move steps of B4, B6, B10, A3),
 *     shot (the report), then restart, charge, end_turn or foul.  The shot
 *     makes the turn's score changes *pending* (examine()); they are made
 *     at end_turn (or at a charge use, before the extra attempt).
 *   - Outbound (F21..F25) and arrival (F26..F36) in examine(); every power
 *     card's effect there, in pick (pre-moves) and in the report's checks.
 *   - Restart (F37, F38), round end and the team bonus (F39..F42), the new
 *     stage (F43..F48) and the end (F49, F50) in the turn's flow below.
 *   - Solo (F51..F60): challenge cards by VP, one attempt input a try.
 *
 * Every handler decides whether to refuse before it changes anything, so
 * that a refused input leaves the state (and its hash) as it was.
 */
#include "engine/pitch_fleet.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/hash.h"
#include "engine/walk.h"

#define PF_MAGIC                UINT32_C(0x50465431)    /* "PFT1" */
/* Bumped whenever the canonical serialisation (pf_hash) changes. */
#define PF_HASH_VERSION         1

#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))
#define KEY_SCORE_BIAS          (INT64_C(1) << 40)
#define SHIP_BIT(s)             ((uint8_t) (1u << (s)))

/* ---- Schema. */

static const char *const advanced_choices[] = { "off", "mixed", "only" };
static const char *const advanced_text[] = { "basic cards only", "basic and advanced cards mixed",
                                             "advanced cards only" };

static const struct eng_field pf_params[PF_N_PARAMS] = {
        [PF_PARAM_LAYOUT] = {
                .name = "layout", .type = ENG_T_ENUM, .min = 0, .max = PF_N_PLANETS - 1,
                .choices = pf_planet_choices, .choice_text = pf_planet_text, .max_count = PF_BOARDS,
                .doc = "The nine planet boards' positions in the 3x3 matrix, row by row, each planet once; "
                       "empty: placed at random from the match seed.",
        },
        [PF_PARAM_BASIC_COPIES] = {
                .name = "deck.basic_copies", .type = ENG_T_INT, .min = 0, .max = PF_MAX_COPIES,
                .def = PF_BASIC_COPIES, .unit = "cards",
                .doc = "Copies of each basic power card B1..B10 in the power deck (the box: 5).",
        },
        [PF_PARAM_ADVANCED] = {
                .name = "deck.advanced", .type = ENG_T_ENUM, .min = 0, .max = PF_ADVANCED_ONLY,
                .def = PF_ADVANCED_OFF, .choices = advanced_choices, .choice_text = advanced_text,
                .doc = "Advanced power cards A1..A5: off, mixed into the basic deck, or only them.",
        },
        [PF_PARAM_ADVANCED_COPIES] = {
                .name = "deck.advanced_copies", .type = ENG_T_INT, .min = 0, .max = PF_MAX_COPIES,
                .def = PF_ADVANCED_COPIES, .unit = "cards",
                .doc = "Copies of each advanced power card when they are in play (the box: 5).",
        },
        [PF_PARAM_SOLO_CARDS] = {
                .name = "solo.cards", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGES,
                .def = PF_SOLO_CARDS, .unit = "cards",
                .doc = "Solo: challenge cards dealt face down (the rulebook: 7).",
        },
        [PF_PARAM_SOLO_MIN_VP] = {
                .name = "solo.min_vp", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_VP, .def = 1,
                .unit = "VP", .doc = "Solo: only challenges worth at least this many VP are dealt.",
        },
        [PF_PARAM_SOLO_MAX_VP] = {
                .name = "solo.max_vp", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_VP,
                .def = PF_MAX_CHALLENGE_VP, .unit = "VP",
                .doc = "Solo: only challenges worth at most this many VP are dealt.",
        },
};

static const struct eng_data_def pf_data[] = {
        [PF_DATA_CHALLENGES] = {
                .name = "challenges", .builtin = pf_builtin_challenges, .max_len = PF_CHALLENGES_MAX_LEN,
                .doc = "The solo challenge cards: one a line, its number, VP, move limit, fingers, power card "
                       "and texts (docs/games/pitch-fleet-data.md); the built-in catalogue has the rulebook's.",
        },
};

static const char *const rule_choices[PF_N_RULES] = {
        "start_token", "own_outbound", "opponent_outbound", "knocked_out", "vp_satellite", "charging_kept",
        "asteroid_belt", "team_bonus", "card_B1", "card_B2", "card_B3", "card_B4", "card_B5", "card_B6",
        "card_B7", "card_B8", "card_B9", "card_B10", "card_A1", "card_A2", "card_A3", "card_A4", "card_A5",
        "floor", "solo_challenge", "solo_failure",
};
static const char *const rule_text[PF_N_RULES] = {
        "the 3 VP token of the set-up",
        "a ship of the current player's team went out (outbound rule 1)",
        "an opponent's ship went out: its controller loses 1 (outbound rule 2)",
        "an opponent's ship went out: the current player gains 1 (outbound rule 2)",
        "a VP satellite of the goal planet's board: its stars",
        "every second face-down charging card is 1 VP",
        "the asteroid belt of the goal planet's board",
        "the 3 VP token: all of a team's record tokens on the goal",
        "B1: an asteroid belt gains 1 instead of losing 1",
        "B2: a knocked ship landed on a planet",
        "B3: a VP satellite loses its stars instead",
        "B4", "B5", "B6",
        "B7: a charging satellite gains 1",
        "B8", "B9",
        "B10",
        "A1: the second joint arrived at a planet",
        "A2: two or more special locations at once",
        "A3: an opponent's ship knocked by the beam (at most 2)",
        "A4: another ship went out while the moved ship stayed in",
        "A5: the springboard reached a planet",
        "a score never falls below zero",
        "a challenge completed: the VP on its card",
        "a failed attempt: 1 VP off the challenge card",
};
static const char *const pf_term_names[PF_N_TERMS] = {
        [PF_TERM_START_TOKEN] = "start_token",
        [PF_TERM_OUTBOUND] = "outbound",
        [PF_TERM_LOCATIONS] = "locations",
        [PF_TERM_CARDS] = "cards",
        [PF_TERM_CHARGING_KEPT] = "charging_kept",
        [PF_TERM_TEAM_BONUS] = "team_bonus",
        [PF_TERM_CHALLENGES] = "challenges",
        [PF_TERM_FLOOR] = "floor",
};
static const char *const charge_choices[] = { "use", "keep" };
static const char *const charge_text[] = { "used at once for an extra attempt", "kept face down" };
static const char *const result_choices[] = { "success", "failure", "discarded" };
static const char *const result_text[] = { "completed", "failed", "discarded with no VP left" };
static const char *const team_text[PF_N_TEAMS] = { "red", "blue" };

const char *pf_rule_name(unsigned rule) {
        return rule < PF_N_RULES ? rule_choices[rule] : NULL;
}

static unsigned term_of(unsigned rule) {
        switch (rule) {
        case PF_RULE_START_TOKEN:
                return PF_TERM_START_TOKEN;
        case PF_RULE_OWN_OUTBOUND:
        case PF_RULE_OPPONENT_OUTBOUND:
        case PF_RULE_KNOCKED_OUT:
                return PF_TERM_OUTBOUND;
        case PF_RULE_VP_SATELLITE:
        case PF_RULE_ASTEROID_BELT:
                return PF_TERM_LOCATIONS;
        case PF_RULE_CHARGING_KEPT:
                return PF_TERM_CHARGING_KEPT;
        case PF_RULE_TEAM_BONUS:
                return PF_TERM_TEAM_BONUS;
        case PF_RULE_SOLO_CHALLENGE:
        case PF_RULE_SOLO_FAILURE:
                return PF_TERM_CHALLENGES;
        case PF_RULE_FLOOR:
                return PF_TERM_FLOOR;
        }
        return PF_TERM_CARDS;
}

/* ---- Small helpers. */

static unsigned popcount8(unsigned x) {
        unsigned n = 0;

        for (; x; x &= x - 1)
                n++;
        return n;
}

static int team_of_seat(const struct pf_state *st, int seat) {
        return st->seats[seat].ship >= 0 ? (int) pf_ship_team((unsigned) st->seats[seat].ship) : -1;
}

unsigned pf_stages_for(unsigned n_seats) {
        unsigned k = pf_planet_cards_for(n_seats);

        return k ? k - 1 : 0;
}

/* Decision "teams by player count": red takes the odd one (1v1, 2v1, 2v2,
 * 3v2, 3v3). */
unsigned pf_team_size(unsigned n_seats, unsigned team) {
        if (n_seats < PF_MIN_PLAYERS || n_seats > PF_MAX_PLAYERS)
                return 0;
        return team == PF_TEAM_RED ? (n_seats + 1) / 2 : n_seats / 2;
}

uint32_t pf_handle(const struct pf_state *st, unsigned card) {
        return eng_handle(st->handle_key, card);
}

int pf_card_of(const struct pf_state *st, uint32_t handle, unsigned *ret_card) {
        uint32_t card = eng_handle_card(st->handle_key, handle);

        if (card >= st->n_cards)
                return -ENOENT;
        *ret_card = card;
        return 0;
}

int pf_face_up_seat(const struct pf_state *st, unsigned c) {
        for (int s = 0; s < st->n_seats; s++) {
                const struct pf_pile *p = &st->seats[s].pile;

                if (p->n && p->up && p->cards[p->n - 1] == c)
                        return s;
        }
        return -1;
}

static unsigned kind_of(const struct pf_state *st, unsigned card) {
        return card < st->n_cards ? st->card_kind[card] : PF_CARD_NONE;
}

static bool pos_has(const struct pf_pos *p, unsigned loc) {
        for (unsigned i = 0; i < p->n_at; i++)
                if (p->at[i] == loc)
                        return true;
        return false;
}

static void pos_set(struct pf_pos *p, const uint8_t *at, unsigned n) {
        memset(p, 0, sizeof *p);
        p->on_board = true;
        /* Ascending, so that a position has one form. */
        for (unsigned i = 0; i < n; i++) {
                unsigned k = p->n_at++;

                while (k > 0 && p->at[k - 1] > at[i]) {
                        p->at[k] = p->at[k - 1];
                        k--;
                }
                p->at[k] = at[i];
        }
}

static void pos_one(struct pf_pos *p, unsigned loc) {
        uint8_t at = (uint8_t) loc;

        pos_set(p, &at, loc == PF_LOC_NONE ? 0 : 1);
}

/* ---- The deck. */

/* The deck ran out: the discard pile shuffled is the new deck (F45). */
static void reshuffle(struct pf_state *st) {
        memcpy(st->deck, st->discard, st->discard_n);
        st->deck_n = st->discard_n;
        st->discard_n = 0;
        eng_rng_shuffle_u8(&st->rng, st->deck, st->deck_n);
}

/* The top card of the deck, reshuffling first when it is empty;
 * PF_NO_CARD when both are empty. */
static uint8_t draw(struct pf_state *st) {
        if (!st->deck_n)
                reshuffle(st);
        if (!st->deck_n)
                return PF_NO_CARD;
        return st->deck[--st->deck_n];
}

static void discard(struct pf_state *st, uint8_t card) {
        if (card != PF_NO_CARD)
                st->discard[st->discard_n++] = card;
}

/* F3, F45: a pile of three for each player, the top face up; short when
 * the deck and the discards run out together. */
static void deal_piles(struct pf_state *st) {
        for (unsigned k = 0; k < PF_PILE; k++)
                for (int s = 0; s < st->n_seats; s++) {
                        uint8_t c = draw(st);

                        if (c != PF_NO_CARD)
                                st->seats[s].pile.cards[st->seats[s].pile.n++] = c;
                }
        for (int s = 0; s < st->n_seats; s++)
                st->seats[s].pile.up = st->seats[s].pile.n > 0;
}

/* F7, F8, F47: team cards by player count, shuffled and dealt; the holder
 * of red_1 (the card with the starting player's icon) starts. */
static void deal_teams(struct pf_state *st) {
        uint8_t cards[PF_TEAM_CARDS];
        unsigned n = 0;

        for (unsigned t = 0; t < PF_N_TEAMS; t++)
                for (unsigned k = 0; k < pf_team_size(st->n_seats, t); k++)
                        cards[n++] = (uint8_t) (t * PF_SHIPS_PER_TEAM + k);
        eng_rng_shuffle_u8(&st->rng, cards, n);
        for (unsigned i = 0; i < PF_N_SHIPS; i++)
                st->owner[i] = PF_NO_SHIP;
        for (int s = 0; s < st->n_seats; s++) {
                st->seats[s].ship = (int8_t) cards[s];
                st->owner[cards[s]] = (int8_t) s;
                st->teams[st->stage - 1][s] = (int8_t) pf_ship_team(cards[s]);
                if (cards[s] == PF_SHIP_RED_1)
                        st->starting_seat = (int8_t) s;
        }
}

/* F9, F44: the board cleared, the record tokens on the starting planet. */
static void clear_board(struct pf_state *st) {
        memset(st->ships, 0, sizeof st->ships);
        memset(st->on_goal, 0, sizeof st->on_goal);
        st->beams = 0;
}

/* ---- Result. */

static void fill_result(const struct pf_state *st, struct eng_result *ret) {
        uint64_t key[ENG_MAX_SEATS] = { 0 };
        unsigned firsts = 0;

        memset(ret, 0, sizeof *ret);
        ret->finished = st->phase == PF_PHASE_FINISHED;
        ret->n_seats = st->n_seats;
        for (int s = 0; s < st->n_seats; s++) {
                for (unsigned t = 0; t < PF_N_TERMS; t++)
                        ret->terms[s][t] = st->seats[s].terms[t];
                key[s] = (uint64_t) (KEY_SCORE_BIAS - st->seats[s].score);
        }
        eng_result_rank(ret, key);
        eng_result_sum(ret, PF_N_TERMS);
        ret->winner = ENG_SEAT_TABLE;
        for (int s = 0; s < st->n_seats; s++)
                if (ret->place[s] == 1)
                        firsts++;
        if (ret->finished && firsts == 1)
                ret->winner = ret->order[0];
        if (st->mode == PF_MODE_RACE) {
                ret->n_stages = st->stage ? st->stage : 1;
                for (int s = 0; s < st->n_seats; s++)
                        for (unsigned k = 0; k < ret->n_stages; k++)
                                ret->team[s][k] = st->teams[k][s];
        } else if (ret->finished) {
                ret->label = pf_evaluation_label(st->seats[0].score);
        }
}

static int pf_result(const void *state, struct eng_result *ret) {
        const struct pf_state *st = state;

        if (!st || !ret || st->magic != PF_MAGIC)
                return -EINVAL;
        fill_result(st, ret);
        return 0;
}

/* ---- Validation and set-up. */

static unsigned deck_size(const struct eng_config *cfg) {
        unsigned n = 0;

        if (cfg->v[PF_SLOT_ADVANCED] != PF_ADVANCED_ONLY)
                n += PF_BASIC_KINDS * (unsigned) cfg->v[PF_SLOT_BASIC_COPIES];
        if (cfg->v[PF_SLOT_ADVANCED] != PF_ADVANCED_OFF)
                n += PF_ADVANCED_KINDS * (unsigned) cfg->v[PF_SLOT_ADVANCED_COPIES];
        return n;
}

static int parse_challenges(const struct eng_data *data, struct pf_challenges *ret, uint64_t *ret_digest,
                            struct eng_error *ret_err) {
        const char *text;
        size_t len;

        if (eng_data_file(&pf_game, data, PF_DATA_CHALLENGES, &text, &len) < 0)
                return eng_error_set(ret_err, "data.challenges", "cannot be read");
        if (len > PF_CHALLENGES_MAX_LEN)
                return eng_error_set(ret_err, "data.challenges", "is %zu bytes; at most %d are accepted", len,
                                     PF_CHALLENGES_MAX_LEN);
        if (pf_challenges_parse(text, len, ret, ret_err) < 0)
                return -EINVAL;
        if (ret_digest)
                *ret_digest = eng_fnv1a64(text, len);
        return 0;
}

static unsigned challenges_in_range(const struct pf_challenges *cat, int64_t lo, int64_t hi) {
        unsigned n = 0;

        for (unsigned i = 0; i < cat->n; i++)
                n += cat->cards[i].vp >= lo && cat->cards[i].vp <= hi;
        return n;
}

static int pf_validate(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                       struct eng_error *ret_err) {
        static const unsigned slot[PF_N_PARAMS] = {
                PF_SLOT_LAYOUT, PF_SLOT_BASIC_COPIES, PF_SLOT_ADVANCED, PF_SLOT_ADVANCED_COPIES,
                PF_SLOT_SOLO_CARDS, PF_SLOT_SOLO_MIN_VP, PF_SLOT_SOLO_MAX_VP,
        };
        struct pf_challenges cat;       /* about 26 KB of stack, for the check only */

        if (!cfg)
                return -EINVAL;
        if (n_seats < PF_MIN_SEATS || n_seats > PF_MAX_SEATS)
                return eng_error_set(ret_err, "seats", "must be %d..%d", PF_MIN_SEATS, PF_MAX_SEATS);
        for (unsigned p = 1; p < PF_N_PARAMS; p++)
                if (eng_value_check(&pf_params[p], pf_params[p].name, cfg->v[slot[p]], ret_err) < 0)
                        return -EINVAL;
        if (cfg->v[PF_SLOT_LAYOUT] < 0 || cfg->v[PF_SLOT_LAYOUT] > PF_BOARDS)
                return eng_error_set(ret_err, "layout", "must be a list of at most %d", PF_BOARDS);
        if (cfg->v[PF_SLOT_LAYOUT] != 0 &&
            pf_layout_check(&cfg->v[PF_SLOT_LAYOUT + 1], (size_t) cfg->v[PF_SLOT_LAYOUT], "layout", ret_err) < 0)
                return -EINVAL;
        if (n_seats == 1) {
                if (cfg->v[PF_SLOT_SOLO_MIN_VP] > cfg->v[PF_SLOT_SOLO_MAX_VP])
                        return eng_error_set(ret_err, "solo.min_vp", "is %" PRId64 " VP, more than solo.max_vp (%"
                                             PRId64 " VP)", cfg->v[PF_SLOT_SOLO_MIN_VP], cfg->v[PF_SLOT_SOLO_MAX_VP]);
                if (parse_challenges(data, &cat, NULL, ret_err) < 0)
                        return -EINVAL;
                if (challenges_in_range(&cat, cfg->v[PF_SLOT_SOLO_MIN_VP], cfg->v[PF_SLOT_SOLO_MAX_VP]) <
                    cfg->v[PF_SLOT_SOLO_CARDS])
                        return eng_error_set(ret_err, "solo.cards", "is %" PRId64 "; only %u challenge cards are "
                                             "worth %" PRId64 "..%" PRId64 " VP", cfg->v[PF_SLOT_SOLO_CARDS],
                                             challenges_in_range(&cat, cfg->v[PF_SLOT_SOLO_MIN_VP],
                                                                 cfg->v[PF_SLOT_SOLO_MAX_VP]),
                                             cfg->v[PF_SLOT_SOLO_MIN_VP], cfg->v[PF_SLOT_SOLO_MAX_VP]);
                return 0;
        }
        if (cfg->v[PF_SLOT_ADVANCED] != PF_ADVANCED_OFF && cfg->v[PF_SLOT_ADVANCED_COPIES] == 0)
                return eng_error_set(ret_err, "deck.advanced_copies", "is 0, but deck.advanced is %s",
                                     advanced_choices[cfg->v[PF_SLOT_ADVANCED]]);
        if (deck_size(cfg) < PF_PILE * n_seats)
                return eng_error_set(ret_err, "deck.basic_copies", "makes a power deck of %u cards; %u players "
                                     "need at least %u", deck_size(cfg), n_seats, PF_PILE * n_seats);
        /* The challenges are not used in a race, but a custom file must
         * still be one. */
        if (data && data->text[PF_DATA_CHALLENGES] && parse_challenges(data, &cat, NULL, ret_err) < 0)
                return -EINVAL;
        return 0;
}

static void create_race(struct pf_state *st, const struct eng_config *cfg) {
        uint8_t planets[PF_PLANET_CARDS];

        st->advanced = (uint8_t) cfg->v[PF_SLOT_ADVANCED];
        st->basic_copies = (uint8_t) cfg->v[PF_SLOT_BASIC_COPIES];
        st->advanced_copies = (uint8_t) cfg->v[PF_SLOT_ADVANCED_COPIES];
        /* F2, F3: the power deck shuffled, a pile of three each. */
        for (unsigned k = 0; k < PF_N_CARDS; k++) {
                bool adv = pf_card_defs[k].kind == PF_CARD_ADVANCED;
                unsigned copies = adv ? (st->advanced == PF_ADVANCED_OFF ? 0 : st->advanced_copies)
                                      : (st->advanced == PF_ADVANCED_ONLY ? 0 : st->basic_copies);

                for (unsigned c = 0; c < copies; c++)
                        st->card_kind[st->n_cards++] = (uint8_t) k;
        }
        for (unsigned i = 0; i < st->n_cards; i++)
                st->deck[i] = (uint8_t) i;
        st->deck_n = st->n_cards;
        eng_rng_shuffle_u8(&st->rng, st->deck, st->deck_n);
        deal_piles(st);
        /* F4, F5: planet cards by player count, shuffled; the first is the
         * starting planet, the second the goal. */
        for (unsigned p = 0; p < PF_PLANET_CARDS; p++)
                planets[p] = (uint8_t) p;
        eng_rng_shuffle_u8(&st->rng, planets, PF_PLANET_CARDS);
        st->n_planets = (uint8_t) pf_planet_cards_for(st->n_seats);
        memcpy(st->planets, planets, st->n_planets);
        st->stages = (uint8_t) (st->n_planets - 1);
        st->start_planet = st->planets[0];
        st->goal_planet = st->planets[1];
        st->planet_pos = 2;
        st->stage = 1;
        st->round = 1;
        /* F6..F8: teams, ships, record tokens on the start, the starting
         * player. */
        deal_teams(st);
        clear_board(st);
        /* F10, F11: a restart card and a 3 VP token each; one on the goal. */
        for (int s = 0; s < st->n_seats; s++) {
                st->seats[s].restart_card = true;
                st->seats[s].score = PF_STARTING_VP;
                st->seats[s].terms[PF_TERM_START_TOKEN] = PF_STARTING_VP;
        }
        st->bonus_token = true;
        st->current_seat = st->starting_seat;
}

/* F51..F54: the challenges worth solo.min_vp..solo.max_vp shuffled, the
 * first solo.cards dealt face down. */
static void create_solo(struct pf_state *st, const struct eng_config *cfg) {
        uint8_t pool[PF_MAX_CHALLENGES];
        unsigned n = 0;

        for (unsigned i = 0; i < st->cat.n; i++)
                if (st->cat.cards[i].vp >= cfg->v[PF_SLOT_SOLO_MIN_VP] &&
                    st->cat.cards[i].vp <= cfg->v[PF_SLOT_SOLO_MAX_VP])
                        pool[n++] = (uint8_t) i;
        eng_rng_shuffle_u8(&st->rng, pool, n);
        st->solo_n = (uint8_t) cfg->v[PF_SLOT_SOLO_CARDS];
        memcpy(st->solo_order, pool, st->solo_n);
        st->vp_left = st->cat.cards[st->solo_order[0]].vp;
        st->current_seat = 0;
        st->starting_seat = 0;
        st->seats[0].ship = PF_SHIP_BLUE_1;
}

static int pf_create(void *state, const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                     uint64_t seed) {
        struct pf_state *st = state;

        if (!st || !cfg || pf_validate(cfg, data, n_seats, NULL) < 0)
                return -EINVAL;
        memset(st, 0, sizeof *st);
        if (parse_challenges(data, &st->cat, &st->challenges_digest, NULL) < 0)
                return -EINVAL;
        st->magic = PF_MAGIC;
        st->n_seats = (uint8_t) n_seats;
        st->mode = n_seats == 1 ? PF_MODE_SOLO : PF_MODE_RACE;
        st->seed = seed;
        st->handle_key = eng_handle_key(seed);
        eng_rng_seed(&st->rng, seed);
        /* F1: the boards in a chosen or a random 3x3. */
        for (unsigned b = 0; b < PF_BOARDS; b++)
                st->layout[b] = cfg->v[PF_SLOT_LAYOUT] ? (uint8_t) cfg->v[PF_SLOT_LAYOUT + 1 + b] : (uint8_t) b;
        if (!cfg->v[PF_SLOT_LAYOUT])
                eng_rng_shuffle_u8(&st->rng, st->layout, PF_BOARDS);
        for (unsigned s = 0; s < PF_MAX_SEATS; s++)
                st->seats[s].ship = PF_NO_SHIP;
        for (unsigned i = 0; i < PF_N_SHIPS; i++)
                st->owner[i] = PF_NO_SHIP;
        st->turn.card = st->turn.forced = st->turn.drawn = PF_NO_CARD;
        st->turn.ship = PF_NO_SHIP;
        if (st->mode == PF_MODE_RACE)
                create_race(st, cfg);
        else
                create_solo(st, cfg);
        st->phase = PF_PHASE_READY;
        return 0;
}

/* ---- Events.  Each event's fields are its slots in order (pitch_fleet.h
 * names the positions). */

static const struct eng_field stage_fields[] = {
        [PF_STAGE_STAGE] = { .name = "stage", .type = ENG_T_INT, .min = 1, .max = PF_MAX_STAGES,
                             .doc = "The stage, from 1." },
        [PF_STAGE_START_PLANET] = { .name = "start_planet", .type = ENG_T_ENUM, .min = 0, .max = PF_N_PLANETS - 1,
                                    .choices = pf_planet_choices, .choice_text = pf_planet_text,
                                    .doc = "The starting planet: the last stage's goal." },
        [PF_STAGE_GOAL_PLANET] = { .name = "goal_planet", .type = ENG_T_ENUM, .min = 0, .max = PF_N_PLANETS - 1,
                                   .choices = pf_planet_choices, .choice_text = pf_planet_text,
                                   .doc = "The goal planet, turned up from the planet deck, with its 3 VP token." },
        [PF_STAGE_STARTING_SEAT] = { .name = "starting_seat", .type = ENG_T_SEAT,
                                     .doc = "Who holds the starting player token: the team card red_1's holder." },
};
static const struct eng_field teams_fields[] = {
        [PF_TEAMS_RED] = { .name = "red_seats", .type = ENG_T_SEATS, .doc = "The red team this stage." },
        [PF_TEAMS_BLUE] = { .name = "blue_seats", .type = ENG_T_SEATS, .doc = "The blue team this stage." },
};
static const struct eng_field round_fields[] = {
        [PF_ROUND_ROUND] = { .name = "round", .type = ENG_T_INT, .min = 1, .max = PF_ROUNDS,
                             .doc = "The round of the stage, 1..3." },
};
static const struct eng_field turn_fields[] = {
        [PF_TURN_STAGE] = { .name = "stage", .type = ENG_T_INT, .min = 1, .max = PF_MAX_STAGES, .doc = "The stage." },
        [PF_TURN_ROUND] = { .name = "round", .type = ENG_T_INT, .min = 1, .max = PF_ROUNDS, .doc = "The round." },
};
static const struct eng_field picked_fields[] = {
        [PF_PICKED_CARD] = { .name = "card", .type = ENG_T_CARD,
                             .doc = "The face-up power card taken (face-up cards are public)." },
        [PF_PICKED_SHIP] = { .name = "ship", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1,
                             .choices = pf_ship_choices, .doc = "The starship to move: the player's or a teammate's." },
};
static const struct eng_field reported_fields[] = {
        { .name = "outbound", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1, .choices = pf_ship_choices,
          .max_count = PF_N_SHIPS, .doc = "The ships that went out (touch the table, or stacked)." },
        { .name = "at", .type = ENG_T_ENUM, .min = 0, .max = PF_N_LOCATIONS - 1, .choices = pf_location_choices,
          .choice_text = pf_location_text, .max_count = PF_MAX_AT,
          .doc = "The locations the moved ship touches now." },
        { .name = "knocked", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1, .choices = pf_ship_choices,
          .max_count = PF_MAX_KNOCKED, .doc = "The ships the moved ship knocked." },
};
static const struct eng_field score_fields[] = {
        [PF_SCORE_DELTA] = { .name = "delta", .type = ENG_T_INT, .min = -100, .max = 100, .unit = "VP",
                             .doc = "The change: a gain or a loss." },
        [PF_SCORE_RULE] = { .name = "rule", .type = ENG_T_ENUM, .min = 0, .max = PF_N_RULES - 1,
                            .choices = rule_choices, .choice_text = rule_text, .doc = "The rule that made it." },
        [PF_SCORE_SHIP] = { .name = "ship", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1,
                            .choices = pf_ship_choices, .optional = true, .def = ENG_ABSENT,
                            .doc = "The ship concerned, if one." },
        [PF_SCORE_LOCATION] = { .name = "location", .type = ENG_T_ENUM, .min = 0, .max = PF_N_LOCATIONS - 1,
                                .choices = pf_location_choices, .choice_text = pf_location_text, .optional = true,
                                .def = ENG_ABSENT, .doc = "The location concerned, if one." },
};
static const struct eng_field drawn_fields[] = {
        [PF_DRAWN_CARD] = { .name = "card", .type = ENG_T_CARD, .audience = ENG_VIEW_SEAT,
                            .doc = "The power card drawn: for the current player (and the referee) only." },
};
static const struct eng_field used_fields[] = {
        [PF_USED_CARD] = { .name = "card", .type = ENG_T_CARD,
                           .doc = "The drawn card, now face up: the extra attempt's card." },
};
static const struct eng_field record_fields[] = {
        [PF_RECORD_SHIP] = { .name = "ship", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1,
                             .choices = pf_ship_choices, .doc = "The ship whose record token moved to the goal." },
};
static const struct eng_field bonus_fields[] = {
        [PF_BONUS_TEAM] = { .name = "team", .type = ENG_T_ENUM, .min = 0, .max = PF_N_TEAMS - 1,
                            .choices = pf_team_choices, .choice_text = team_text, .optional = true,
                            .def = ENG_ABSENT, .doc = "The team that met it; null when both or none did." },
        [PF_BONUS_AWARDED] = { .name = "awarded", .type = ENG_T_BOOL,
                               .doc = "Whether the team gains 3 VP each; the token is removed either way." },
};
static const struct eng_field given_fields[] = {
        [PF_GIVEN_SEATS] = { .name = "seats", .type = ENG_T_SEATS,
                             .doc = "The players on the lowest score who now hold a restart card." },
};
static const struct eng_field revealed_fields[] = {
        [PF_REVEALED_NUMBER] = { .name = "number", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_NUMBER,
                                 .doc = "The challenge card's number." },
        [PF_REVEALED_VP] = { .name = "vp", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_VP, .unit = "VP",
                             .doc = "The VP put on it." },
        [PF_REVEALED_MOVES] = { .name = "moves", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_MOVES,
                                .doc = "The most moves to complete it." },
};
static const struct eng_field done_fields[] = {
        [PF_DONE_NUMBER] = { .name = "number", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_NUMBER,
                             .doc = "The challenge card's number." },
        [PF_DONE_RESULT] = { .name = "result", .type = ENG_T_ENUM, .min = 0, .max = PF_RESULT_DISCARDED,
                             .choices = result_choices, .choice_text = result_text,
                             .doc = "success, failure (1 VP off, try again) or discarded (no VP left)." },
        [PF_DONE_VP] = { .name = "vp", .type = ENG_T_INT, .min = 0, .max = PF_MAX_CHALLENGE_VP, .unit = "VP",
                         .doc = "success: the VP gained; failure: the VP left on the card; discarded: 0." },
};

const struct eng_event_def pf_ev_stage_started = {
        .name = "stage_started", .fields = stage_fields, .n_fields = ELEMENTSOF(stage_fields), .reveals = true,
        .text = "Stage {stage}: from {start_planet} to {goal_planet}; {starting_seat} starts.",
        .doc = "A stage begins: the goal planet is turned up and new piles are dealt (their tops face up).",
};
const struct eng_event_def pf_ev_teams_dealt = {
        .name = "teams_dealt", .fields = teams_fields, .n_fields = ELEMENTSOF(teams_fields),
        .text = "Teams: red {red_seats}, blue {blue_seats}.",
        .doc = "The team cards dealt for the stage.",
};
const struct eng_event_def pf_ev_round_started = {
        .name = "round_started", .fields = round_fields, .n_fields = ELEMENTSOF(round_fields),
        .text = "Round {round} begins.", .doc = "A round begins from the holder of the starting player token.",
};
const struct eng_event_def pf_ev_turn_started = {
        .name = "turn_started", .fields = turn_fields, .n_fields = ELEMENTSOF(turn_fields),
        .text = "{seat}'s turn (stage {stage}, round {round}).", .doc = "A player's turn begins.",
};
const struct eng_event_def pf_ev_card_picked = {
        .name = "card_picked", .fields = picked_fields, .n_fields = ELEMENTSOF(picked_fields),
        .text = "{seat} takes {card} and moves {ship}.",
        .doc = "The current player took a face-up power card and chose a ship.",
};
const struct eng_event_def pf_ev_shot_reported = {
        .name = "shot_reported", .fields = reported_fields, .n_fields = ELEMENTSOF(reported_fields),
        .text = "The shot: out {outbound}; at {at}; knocked {knocked}.",
        .doc = "The referee reported the attempt; its effects are pending until the turn ends.",
};
const struct eng_event_def pf_ev_score_changed = {
        .name = "score_changed", .fields = score_fields, .n_fields = ELEMENTSOF(score_fields),
        .text = "{seat} {delta} VP: {rule}.",
        .doc = "One score change with the rule that made it (one event per change).",
};
const struct eng_event_def pf_ev_restart_used = {
        .name = "restart_used", .text = "{seat} uses the restart card: the ship goes back, the same card again.",
        .doc = "The restart card: the attempt is undone and made again with the same card.",
};
const struct eng_event_def pf_ev_charging_drawn = {
        .name = "charging_drawn", .fields = drawn_fields, .n_fields = ELEMENTSOF(drawn_fields), .reveals = true,
        .text = "{seat} draws a power card at a charging satellite.",
        .doc = "A charging satellite: the current player draws a card, to use at once or keep face down.",
};
const struct eng_event_def pf_ev_card_kept = {
        .name = "card_kept", .text = "{seat} keeps the drawn card face down.",
        .doc = "The drawn card is kept face down (every second one is 1 VP).",
};
const struct eng_event_def pf_ev_card_used = {
        .name = "card_used", .fields = used_fields, .n_fields = ELEMENTSOF(used_fields), .reveals = true,
        .text = "{seat} uses {card} at once: an extra attempt.",
        .doc = "The drawn card is used at once: the attempt so far is scored and an extra one follows.",
};
const struct eng_event_def pf_ev_record_moved = {
        .name = "record_moved", .fields = record_fields, .n_fields = ELEMENTSOF(record_fields),
        .text = "{ship}'s record token moves to the goal planet.",
        .doc = "A ship arrived at the goal planet: its record token is on the goal.",
};
const struct eng_event_def pf_ev_team_bonus = {
        .name = "team_bonus", .fields = bonus_fields, .n_fields = ELEMENTSOF(bonus_fields),
        .text = "The 3 VP token is removed: team {team}, awarded {awarded}.",
        .doc = "At a round's end: the 3 VP token is won by a team, cancelled by both, or removed unclaimed.",
};
const struct eng_event_def pf_ev_turn_ended = {
        .name = "turn_ended", .text = "{seat}'s turn ends.", .doc = "The turn's changes are made.",
};
const struct eng_event_def pf_ev_round_ended = {
        .name = "round_ended", .fields = round_fields, .n_fields = ELEMENTSOF(round_fields), .reveals = true,
        .text = "Round {round} ends: the piles' tops are turned up and the token passes left.",
        .doc = "A round ends: the piles' new tops are face up.",
};
const struct eng_event_def pf_ev_foul_called = {
        .name = "foul_called", .text = "Foul: {seat}'s attempt is void; the card is spent.",
        .doc = "The referee voided the attempt: nothing is scored, the card is discarded, the turn ends.",
};
const struct eng_event_def pf_ev_restart_cards_given = {
        .name = "restart_cards_given", .fields = given_fields, .n_fields = ELEMENTSOF(given_fields),
        .text = "A restart card for the lowest score: {seats}.",
        .doc = "A new stage: every player on the lowest score holds a restart card (at most one).",
};
const struct eng_event_def pf_ev_challenge_revealed = {
        .name = "challenge_revealed", .fields = revealed_fields, .n_fields = ELEMENTSOF(revealed_fields),
        .reveals = true, .text = "Challenge {number}: {vp} VP, at most {moves} moves.",
        .doc = "Solo: the next challenge card is turned up with its VP.",
};
const struct eng_event_def pf_ev_challenge_done = {
        .name = "challenge_done", .fields = done_fields, .n_fields = ELEMENTSOF(done_fields),
        .text = "Challenge {number}: {result}, {vp} VP.",
        .doc = "Solo: an attempt's outcome: completed, failed (try again) or the card discarded.",
};

static const struct eng_event_def *const pf_events[] = {
        &pf_ev_stage_started, &pf_ev_teams_dealt, &pf_ev_round_started, &pf_ev_turn_started, &pf_ev_card_picked,
        &pf_ev_shot_reported, &pf_ev_score_changed, &pf_ev_restart_used, &pf_ev_charging_drawn, &pf_ev_card_kept,
        &pf_ev_card_used, &pf_ev_record_moved, &pf_ev_team_bonus, &pf_ev_turn_ended, &pf_ev_round_ended,
        &pf_ev_foul_called, &pf_ev_restart_cards_given, &pf_ev_challenge_revealed, &pf_ev_challenge_done,
};

/* ---- The examinations: a report's pending changes. */

static void add(struct pf_turn *t, int seat, int delta, unsigned rule, int ship, unsigned loc) {
        struct pf_change *c;

        if (!delta || t->n_pending >= PF_MAX_PENDING)
                return;
        c = &t->pending[t->n_pending++];
        c->seat = (int8_t) seat;
        c->delta = (int8_t) delta;
        c->rule = (uint8_t) rule;
        c->ship = (int8_t) ship;
        c->location = (uint8_t) loc;
}

/* The first ship of mask, or PF_NO_SHIP. */
static int first_ship(unsigned mask) {
        for (int i = 0; i < PF_N_SHIPS; i++)
                if (mask & (1u << i))
                        return i;
        return PF_NO_SHIP;
}

/* F21..F36 and the power cards: the changes of the report in t, for the
 * current player's attempt.  At most PF_MAX_PENDING: rule 2 takes two per
 * opponent ship (3), B2 and A4 one in all, the locations one each (4), a
 * card one, the floor one a seat (4) and the charging card one. */
static void examine(const struct pf_state *st, struct pf_turn *t) {
        const struct pf_report *r = &t->rep;
        int cur = st->current_seat, moved = t->ship;
        unsigned card = kind_of(st, t->card), team = (unsigned) team_of_seat(st, cur);
        unsigned goal_loc = pf_planet_location(st->goal_planet);
        bool beam_shot = card == PF_CARD_A3;
        bool moved_out = !beam_shot && (r->outbound & SHIP_BIT(moved));
        unsigned own_out = 0, opp_out = 0, planets = 0, specials = 0;
        int32_t gain[PF_MAX_SEATS] = { 0 }, loss[PF_MAX_SEATS] = { 0 };

        t->n_pending = 0;
        t->charge_due = false;
        t->record_due = false;
        if (r->springboard_failed)
                goto charging;          /* A5: the move failed, the ship back */
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if (r->outbound & SHIP_BIT(s)) {
                        if (pf_ship_team(s) == team)
                                own_out |= SHIP_BIT(s);
                        else
                                opp_out |= SHIP_BIT(s);
                }
        /* F22, F24, A4 and B9: rule 1 (ignored under A4 while the moved
         * ship stays in), −1 once; B9 waives it when the moved ship is the
         * only one of the team out. */
        if (own_out && !(card == PF_CARD_A4 && !moved_out)) {
                if (!(card == PF_CARD_B9 && own_out == SHIP_BIT(moved)))
                        add(t, cur, -1, PF_RULE_OWN_OUTBOUND, first_ship(own_out), PF_LOC_NONE);
                goto floor;
        }
        /* F23: rule 2. */
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if (opp_out & SHIP_BIT(s)) {
                        add(t, st->owner[s], -1, PF_RULE_OPPONENT_OUTBOUND, (int) s, PF_LOC_NONE);
                        add(t, cur, +1, PF_RULE_KNOCKED_OUT, (int) s, PF_LOC_NONE);
                }
        if (card == PF_CARD_A4 && !moved_out)
                add(t, cur, (int) popcount8(r->outbound & (beam_shot ? 0xffu : (uint8_t) ~SHIP_BIT(moved))),
                    PF_RULE_CARD_B1 + PF_CARD_A4, PF_NO_SHIP, PF_LOC_NONE);
        if (!moved_out && !beam_shot) {
                /* F26..F36: every location newly arrived at counts; only
                 * those of the goal's board, unless the card names them. */
                for (unsigned i = 0; i < r->n_at; i++) {
                        unsigned loc = r->at[i], kind = pf_location_kind(loc);
                        bool goal_board = pf_location_on_board(loc, st->goal_planet);

                        if (pos_has(&t->began, loc))
                                continue;               /* F31: it stayed there */
                        if (kind != PF_KIND_ASTEROID_BELT)
                                specials++;
                        switch (kind) {
                        case PF_KIND_PLANET:
                                planets++;
                                if (loc == goal_loc && !st->on_goal[moved])
                                        t->record_due = true;
                                break;
                        case PF_KIND_VP_SATELLITE:
                                if (card == PF_CARD_B3)
                                        add(t, cur, -(int) pf_location_stars(loc), PF_RULE_CARD_B1 + PF_CARD_B3,
                                            moved, loc);
                                else if (goal_board)
                                        add(t, cur, (int) pf_location_stars(loc), PF_RULE_VP_SATELLITE, moved,
                                            loc);
                                break;
                        case PF_KIND_CHARGING_SATELLITE:
                                if (card == PF_CARD_B7)
                                        add(t, cur, +1, PF_RULE_CARD_B1 + PF_CARD_B7, moved, loc);
                                if (goal_board || card == PF_CARD_B7)
                                        t->charge_due = true;
                                break;
                        case PF_KIND_ASTEROID_BELT:
                                if (card == PF_CARD_B1)
                                        add(t, cur, +1, PF_RULE_CARD_B1 + PF_CARD_B1, moved, loc);
                                else if (goal_board)
                                        add(t, cur, -1, PF_RULE_ASTEROID_BELT, moved, loc);
                                break;
                        }
                }
                if (card == PF_CARD_A1 && planets)
                        add(t, cur, +1, PF_RULE_CARD_B1 + PF_CARD_A1, moved, PF_LOC_NONE);
                if (card == PF_CARD_A5 && planets)
                        add(t, cur, +3, PF_RULE_CARD_B1 + PF_CARD_A5, moved, PF_LOC_NONE);
                if (card == PF_CARD_A2 && specials >= 2)
                        add(t, cur, +2, PF_RULE_CARD_B1 + PF_CARD_A2, moved, PF_LOC_NONE);
        }
        if (card == PF_CARD_B2) {
                unsigned n = 0;

                for (unsigned s = 0; s < PF_N_SHIPS; s++)
                        if ((r->knocked & SHIP_BIT(s)) && !(r->outbound & SHIP_BIT(s)) &&
                            pf_location_kind(r->knocked_at[s]) == PF_KIND_PLANET)
                                n++;
                add(t, cur, (int) n, PF_RULE_CARD_B1 + PF_CARD_B2, PF_NO_SHIP, PF_LOC_NONE);
        }
        if (card == PF_CARD_A3) {
                unsigned n = 0;

                for (unsigned s = 0; s < PF_N_SHIPS; s++)
                        if ((r->knocked & SHIP_BIT(s)) && pf_ship_team(s) != team)
                                n++;
                add(t, cur, (int) (n > 2 ? 2 : n), PF_RULE_CARD_B1 + PF_CARD_A3, PF_NO_SHIP, PF_LOC_NONE);
        }
charging:
        /* Kept cards: every second one is 1 VP (the card is already kept). */
        if (t->kept && st->seats[cur].n_kept % 2 == 0)
                add(t, cur, +1, PF_RULE_CHARGING_KEPT, PF_NO_SHIP, PF_LOC_NONE);
floor:
        /* F34: gains first, then losses; never below zero. */
        for (unsigned i = 0; i < t->n_pending; i++) {
                const struct pf_change *c = &t->pending[i];

                if (c->delta > 0)
                        gain[c->seat] += c->delta;
                else
                        loss[c->seat] += c->delta;
        }
        for (int s = 0; s < st->n_seats; s++) {
                int32_t after = st->seats[s].score + gain[s] + loss[s];

                if (after < 0)
                        add(t, s, -after, PF_RULE_FLOOR, PF_NO_SHIP, PF_LOC_NONE);
        }
}

/* ---- Transitions. */

static void emit_change(struct pf_state *st, const struct pf_change *c, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &pf_ev_score_changed, c->seat, now);

        if (o) {
                o->v[PF_SCORE_DELTA] = c->delta;
                o->v[PF_SCORE_RULE] = c->rule;
                o->v[PF_SCORE_SHIP] = c->ship >= 0 ? c->ship : ENG_ABSENT;
                o->v[PF_SCORE_LOCATION] = c->location != PF_LOC_NONE ? c->location : ENG_ABSENT;
        }
        (void) st;
}

/* Makes one change (the caller has computed the floor with it). */
static void make_change(struct pf_state *st, const struct pf_change *c, int64_t now, struct eng_out *out) {
        st->seats[c->seat].score += c->delta;
        st->seats[c->seat].terms[term_of(c->rule)] += c->delta;
        /* last_turn: the changes of the turn under way once it has made
         * one, else of the turn before (a round's bonus joins the turn that
         * ended the round). */
        if (!st->turn.made_any) {
                st->n_last = 0;
                st->turn.made_any = true;
        }
        if (st->n_last < PF_MAX_LAST)
                st->last[st->n_last++] = *c;
        emit_change(st, c, now, out);
}

/* The attempt's report made: scores, ships, beams, the record token. */
static void commit(struct pf_state *st, int64_t now, struct eng_out *out) {
        struct pf_turn *t = &st->turn;
        const struct pf_report *r = &t->rep;
        bool beam_shot = kind_of(st, t->card) == PF_CARD_A3;
        struct eng_output *o;

        for (unsigned i = 0; i < t->n_pending; i++)
                make_change(st, &t->pending[i], now, out);
        t->n_pending = 0;
        if (r->springboard_failed)
                return;
        for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                if (r->outbound & SHIP_BIT(s))
                        memset(&st->ships[s], 0, sizeof st->ships[s]);         /* F25: set aside */
                else if (r->knocked & SHIP_BIT(s))
                        pos_one(&st->ships[s], r->knocked_at[s]);
        }
        if (!beam_shot && !(r->outbound & SHIP_BIT(t->ship)))
                pos_set(&st->ships[t->ship], r->at, r->n_at);
        st->beams = (uint8_t) (st->beams - r->beams_knocked);
        if (t->record_due) {
                st->on_goal[t->ship] = true;
                o = eng_out_push(out, &pf_ev_record_moved, st->current_seat, now);
                if (o)
                        o->v[PF_RECORD_SHIP] = t->ship;
        }
        t->record_due = false;
}

static bool any_face_up(const struct pf_state *st) {
        for (int s = 0; s < st->n_seats; s++)
                if (st->seats[s].pile.n && st->seats[s].pile.up)
                        return true;
        return false;
}

static void end_round(struct pf_state *st, int64_t now, struct eng_out *out);

static void reset_turn(struct pf_state *st) {
        memset(&st->turn, 0, sizeof st->turn);
        st->turn.card = st->turn.forced = st->turn.drawn = PF_NO_CARD;
        st->turn.ship = PF_NO_SHIP;
}

/* F13: the next player in clockwise order from the token's holder; a
 * player with no face-up card left to take (the deck and the discards ran
 * out) passes silently. */
static void begin_turn(struct pf_state *st, int64_t now, struct eng_out *out) {
        struct eng_output *o;

        while (st->turns_taken < st->n_seats && !any_face_up(st))
                st->turns_taken++;
        if (st->turns_taken >= st->n_seats) {
                end_round(st, now, out);
                return;
        }
        st->current_seat = (int8_t) ((st->starting_seat + st->turns_taken) % st->n_seats);
        reset_turn(st);
        st->phase = PF_PHASE_PICK;
        o = eng_out_push(out, &pf_ev_turn_started, st->current_seat, now);
        if (o) {
                o->v[PF_TURN_STAGE] = st->stage;
                o->v[PF_TURN_ROUND] = st->round;
        }
}

static void finish(struct pf_state *st, int64_t now, struct eng_out *out) {
        struct eng_result res;
        struct eng_output *o;

        st->phase = PF_PHASE_FINISHED;
        st->paused = false;
        reset_turn(st);
        fill_result(st, &res);
        o = eng_out_push(out, &eng_ev_match_finished, res.winner, now);
        if (o) {
                o->finished.winner = res.winner;
                for (unsigned s = 0; s < ENG_MAX_SEATS; s++)
                        o->finished.place[s] = res.place[s];
        }
}

static void announce_stage(struct pf_state *st, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &pf_ev_stage_started, st->starting_seat, now);
        uint32_t red = 0, blue = 0;

        if (o) {
                o->v[PF_STAGE_STAGE] = st->stage;
                o->v[PF_STAGE_START_PLANET] = st->start_planet;
                o->v[PF_STAGE_GOAL_PLANET] = st->goal_planet;
                o->v[PF_STAGE_STARTING_SEAT] = st->starting_seat;
        }
        for (int s = 0; s < st->n_seats; s++) {
                if (team_of_seat(st, s) == PF_TEAM_RED)
                        red |= 1u << s;
                else
                        blue |= 1u << s;
        }
        o = eng_out_push(out, &pf_ev_teams_dealt, ENG_SEAT_TABLE, now);
        if (o) {
                o->v[PF_TEAMS_RED] = red;
                o->v[PF_TEAMS_BLUE] = blue;
        }
}

static void start_round(struct pf_state *st, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &pf_ev_round_started, st->starting_seat, now);

        if (o)
                o->v[PF_ROUND_ROUND] = st->round;
        st->turns_taken = 0;
        begin_turn(st, now, out);
}

/* F43..F48: a new stage. */
static void new_stage(struct pf_state *st, int64_t now, struct eng_out *out) {
        int32_t lowest = INT32_MAX;
        uint32_t given = 0;
        struct eng_output *o;

        st->stage++;
        st->round = 1;
        /* F43: the goal becomes the start; a new goal with its 3 VP token. */
        st->start_planet = st->goal_planet;
        st->goal_planet = st->planets[st->planet_pos++];
        st->bonus_token = true;
        /* F44: new piles, reshuffling the discards when the deck runs out. */
        for (int s = 0; s < st->n_seats; s++)
                memset(&st->seats[s].pile, 0, sizeof st->seats[s].pile);
        deal_piles(st);
        /* F45: the board cleared.  F46: teams and the starting player. */
        clear_board(st);
        deal_teams(st);
        /* F47: the lowest score takes a restart card, at most one each. */
        for (int s = 0; s < st->n_seats; s++)
                if (st->seats[s].score < lowest)
                        lowest = st->seats[s].score;
        for (int s = 0; s < st->n_seats; s++)
                if (st->seats[s].score == lowest) {
                        st->seats[s].restart_card = true;
                        given |= 1u << s;
                }
        announce_stage(st, now, out);
        o = eng_out_push(out, &pf_ev_restart_cards_given, ENG_SEAT_TABLE, now);
        if (o)
                o->v[PF_GIVEN_SEATS] = given;
        start_round(st, now, out);
}

static void bonus_event(int team, bool awarded, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &pf_ev_team_bonus, ENG_SEAT_TABLE, now);

        if (o) {
                o->v[PF_BONUS_TEAM] = team >= 0 ? team : ENG_ABSENT;
                o->v[PF_BONUS_AWARDED] = awarded;
        }
}

/* F39..F42: the tops turned up, the team bonus, the token passed left; a
 * stage's third round ends the stage. */
static void end_round(struct pf_state *st, int64_t now, struct eng_out *out) {
        bool met[PF_N_TEAMS];
        struct eng_output *o;

        for (int s = 0; s < st->n_seats; s++)
                st->seats[s].pile.up = st->seats[s].pile.n > 0;
        o = eng_out_push(out, &pf_ev_round_ended, ENG_SEAT_TABLE, now);
        if (o)
                o->v[PF_ROUND_ROUND] = st->round;
        if (st->bonus_token) {
                for (unsigned t = 0; t < PF_N_TEAMS; t++) {
                        unsigned in_play = 0, home = 0;

                        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                                if (pf_ship_team(s) == t && st->owner[s] >= 0) {
                                        in_play++;
                                        home += st->on_goal[s];
                                }
                        met[t] = in_play && home == in_play;
                }
                if (met[PF_TEAM_RED] && met[PF_TEAM_BLUE]) {
                        st->bonus_token = false;
                        bonus_event(-1, false, now, out);
                } else if (met[PF_TEAM_RED] || met[PF_TEAM_BLUE]) {
                        int team = met[PF_TEAM_RED] ? PF_TEAM_RED : PF_TEAM_BLUE;

                        st->bonus_token = false;
                        bonus_event(team, true, now, out);
                        for (int s = 0; s < st->n_seats; s++)
                                if (team_of_seat(st, s) == team) {
                                        struct pf_change c = { .seat = (int8_t) s, .delta = PF_TEAM_BONUS_VP,
                                                               .rule = PF_RULE_TEAM_BONUS, .ship = PF_NO_SHIP,
                                                               .location = PF_LOC_NONE };

                                        make_change(st, &c, now, out);
                                }
                } else if (st->round == PF_ROUNDS) {
                        st->bonus_token = false;
                        bonus_event(-1, false, now, out);
                }
        }
        if (st->round < PF_ROUNDS) {
                st->round++;
                st->starting_seat = (int8_t) ((st->starting_seat + 1) % st->n_seats);
                start_round(st, now, out);
                return;
        }
        /* F49: the stages are the planet cards used − 1. */
        if (st->stage >= st->stages)
                finish(st, now, out);
        else
                new_stage(st, now, out);
}

/* The turn is over: the card in play discarded, the next player. */
static void end_turn(struct pf_state *st, int64_t now, struct eng_out *out) {
        discard(st, st->turn.card);
        st->turn.card = PF_NO_CARD;
        if (!st->turn.made_any)
                st->n_last = 0;         /* a turn that changed no score */
        eng_out_push(out, &pf_ev_turn_ended, st->current_seat, now);
        st->turns_taken++;
        begin_turn(st, now, out);
}

/* ---- Inputs. */

static enum eng_refusal running(const struct pf_state *st) {
        if (st->phase == PF_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase == PF_PHASE_READY || st->paused)
                return ENG_REFUSED_STATE;
        return ENG_ACCEPTED;
}

/* A turn's input acts for the table or for the current player. */
static enum eng_refusal who(const struct pf_state *st, const struct eng_input *in) {
        if (in->seat == ENG_SEAT_TABLE || in->seat == st->current_seat)
                return ENG_ACCEPTED;
        if (in->seat < 0 || in->seat >= st->n_seats)
                return ENG_REFUSED_INVALID;
        return ENG_REFUSED_NOT_ALLOWED;
}

static enum eng_refusal do_start(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        struct eng_output *o;

        if (st->phase == PF_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase != PF_PHASE_READY)
                return ENG_REFUSED_STATE;
        eng_out_push(out, &eng_ev_match_started, ENG_SEAT_TABLE, in->time_us);
        if (st->mode == PF_MODE_SOLO) {
                const struct pf_challenge *c = &st->cat.cards[st->solo_order[0]];

                st->phase = PF_PHASE_ATTEMPT;
                o = eng_out_push(out, &pf_ev_challenge_revealed, 0, in->time_us);
                if (o) {
                        o->v[PF_REVEALED_NUMBER] = c->number;
                        o->v[PF_REVEALED_VP] = c->vp;
                        o->v[PF_REVEALED_MOVES] = c->moves;
                }
                return ENG_ACCEPTED;
        }
        announce_stage(st, in->time_us, out);
        for (int s = 0; s < st->n_seats; s++) {
                struct pf_change c = { .seat = (int8_t) s, .delta = PF_STARTING_VP, .rule = PF_RULE_START_TOKEN,
                                       .ship = PF_NO_SHIP, .location = PF_LOC_NONE };

                emit_change(st, &c, in->time_us, out);
        }
        start_round(st, in->time_us, out);
        return ENG_ACCEPTED;
}

/* An optional location of an input: ENG_ABSENT, or a location id. */
static bool loc_ok(int64_t v) {
        return v == ENG_ABSENT || (v >= 0 && v < PF_N_LOCATIONS);
}

/* F14..F20: the card (by its handle) and the ship; B4, B5, B6, B10, A3 and
 * A5's steps before the move. */
static enum eng_refusal do_pick(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        struct pf_turn *t = &st->turn;
        int64_t h = in->arg[PF_PICK_CARD], ship = in->arg[PF_PICK_SHIP];
        int64_t start_at = in->arg[PF_PICK_START_AT], relocate = in->arg[PF_PICK_RELOCATE_TO];
        int64_t beam_at = in->arg[PF_PICK_BEAM_AT];
        enum eng_refusal r = running(st);
        unsigned card, kind;
        int from = -1;
        struct pf_pos *p;
        struct eng_output *o;

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_RACE)
                return ENG_REFUSED_UNSUPPORTED;
        if ((r = who(st, in)) != ENG_ACCEPTED)
                return r;
        if (h < 0 || h > UINT32_MAX || pf_card_of(st, (uint32_t) h, &card) < 0)
                return eng_refuse(out, ENG_REFUSED_INVALID, "card", "is no power card of this match");
        if (ship < 0 || ship >= PF_N_SHIPS)
                return eng_refuse(out, ENG_REFUSED_INVALID, "ship", "is no starship");
        if (!loc_ok(start_at) || !loc_ok(relocate) || !loc_ok(beam_at))
                return eng_refuse(out, ENG_REFUSED_INVALID, NULL, "a location is not one of the layout's");
        if (st->phase != PF_PHASE_PICK)
                return ENG_REFUSED_STATE;
        /* The card: a face-up top (or, after a charge use, the drawn one). */
        if (t->forced != PF_NO_CARD) {
                if (card != t->forced)
                        return eng_refuse(out, ENG_REFUSED_INVALID, "card", "must be the card just drawn and used");
        } else if ((from = pf_face_up_seat(st, card)) < 0) {
                return eng_refuse(out, ENG_REFUSED_INVALID, "card", "is not a face-up power card");
        }
        kind = kind_of(st, card);
        /* The ship: dealt this stage, the player's own or a teammate's. */
        if (st->owner[ship] < 0)
                return eng_refuse(out, ENG_REFUSED_INVALID, "ship", "is not dealt to anyone this stage");
        if ((int) pf_ship_team((unsigned) ship) != team_of_seat(st, st->current_seat))
                return eng_refuse(out, ENG_REFUSED_NOT_ALLOWED, "ship", "is an opponent's");
        p = &st->ships[ship];
        /* F15, F16: a ship off the board starts on the starting planet, or
         * anywhere on its board when it is crowded. */
        if (start_at != ENG_ABSENT && p->on_board)
                return eng_refuse(out, ENG_REFUSED_INVALID, "start_at", "is for a ship off the board, and this one is on it");
        if (start_at != ENG_ABSENT && !pf_location_on_board((unsigned) start_at, st->start_planet))
                return eng_refuse(out, ENG_REFUSED_INVALID, "start_at", "is not on the starting planet's board");
        /* B6: a planet other than the goal; B10: anywhere a card's length
         * away (the referee names where it now is). */
        if (relocate != ENG_ABSENT) {
                if (kind == PF_CARD_B6) {
                        if (pf_location_kind((unsigned) relocate) != PF_KIND_PLANET ||
                            relocate == pf_planet_location(st->goal_planet))
                                return eng_refuse(out, ENG_REFUSED_INVALID, "relocate_to",
                                                  "must be a planet other than the goal");
                } else if (kind != PF_CARD_B10) {
                        return eng_refuse(out, ENG_REFUSED_INVALID, "relocate_to", "this card moves no ship before the shot");
                }
        } else if (kind == PF_CARD_B6) {
                return eng_refuse(out, ENG_REFUSED_INVALID, "relocate_to", "is missing: this card relocates the ship first");
        }
        if (beam_at != ENG_ABSENT && kind != PF_CARD_B4 && kind != PF_CARD_A3)
                return eng_refuse(out, ENG_REFUSED_INVALID, "beam_at", "this card places no beam");

        /* Accepted. */
        if (from >= 0) {
                st->seats[from].pile.n--;
                st->seats[from].pile.up = false;
        }
        t->forced = PF_NO_CARD;
        t->card = (uint8_t) card;
        t->ship = (int8_t) ship;
        memcpy(t->before, st->ships, sizeof t->before);
        t->beams_before = st->beams;
        if (!p->on_board)
                pos_one(p, start_at != ENG_ABSENT ? (unsigned) start_at : pf_planet_location(st->start_planet));
        if (relocate != ENG_ABSENT)
                pos_one(p, (unsigned) relocate);
        switch (kind) {
        case PF_CARD_B4:        /* a beam placed (one taken from the board when all six are there) */
        case PF_CARD_A3:        /* the ship replaced by a beam */
                if (st->beams < PF_BEAMS)
                        st->beams++;
                break;
        case PF_CARD_B5:        /* a beam shoots; A5's springboard needs one too (Q&A: take one from the board) */
        case PF_CARD_A5:
                if (st->beams == PF_BEAMS)
                        st->beams--;
                break;
        }
        t->began = *p;
        if (kind == PF_CARD_A3)
                memset(p, 0, sizeof *p);
        st->phase = PF_PHASE_SHOT;
        o = eng_out_push(out, &pf_ev_card_picked, st->current_seat, in->time_us);
        if (o) {
                o->v[PF_PICKED_CARD] = pf_handle(st, card);
                o->v[PF_PICKED_SHIP] = ship;
        }
        return ENG_ACCEPTED;
}

/* A list of ships in arg[] at slot: a mask, or -1 for a bad one. */
static int ship_list(const int64_t *arg, unsigned max, uint8_t *ret_order) {
        int mask = 0;

        if (arg[0] < 0 || arg[0] > max)
                return -1;
        for (int64_t i = 0; i < arg[0]; i++) {
                int64_t s = arg[1 + i];

                if (s < 0 || s >= PF_N_SHIPS || (mask & (1 << s)))
                        return -1;
                mask |= 1 << s;
                if (ret_order)
                        ret_order[i] = (uint8_t) s;
        }
        return mask;
}

/* F21..F36: the report, checked against the table, then examined. */
static enum eng_refusal do_shot(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        struct pf_turn *t = &st->turn;
        const int64_t *a = in->arg;
        struct pf_report rep = { 0 };
        uint8_t knocked_order[PF_MAX_KNOCKED];
        enum eng_refusal r = running(st);
        unsigned kind, on_board = 0;
        int outbound, knocked;
        struct eng_output *o;
        int64_t na = a[PF_SHOT_AT];

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_RACE)
                return ENG_REFUSED_UNSUPPORTED;
        if ((r = who(st, in)) != ENG_ACCEPTED)
                return r;
        outbound = ship_list(&a[PF_SHOT_OUTBOUND], PF_N_SHIPS, NULL);
        knocked = ship_list(&a[PF_SHOT_KNOCKED], PF_MAX_KNOCKED, knocked_order);
        if (outbound < 0)
                return eng_refuse(out, ENG_REFUSED_INVALID, "outbound", "names a ship twice, or no ship");
        if (knocked < 0)
                return eng_refuse(out, ENG_REFUSED_INVALID, "knocked", "names a ship twice, or no ship");
        if (a[PF_SHOT_KNOCKED_AT] != a[PF_SHOT_KNOCKED])
                return eng_refuse(out, ENG_REFUSED_INVALID, "knocked_at", "must name one location per knocked ship");
        if (na < 0 || na > PF_MAX_AT || a[PF_SHOT_STACKED] < 0 || a[PF_SHOT_STACKED] > 1 || a[PF_SHOT_COLLIDED] < 0 || a[PF_SHOT_COLLIDED] > 1 ||
            a[PF_SHOT_SPRINGBOARD_FAILED] < 0 || a[PF_SHOT_SPRINGBOARD_FAILED] > 1 || a[PF_SHOT_BEAMS_KNOCKED] < 0 ||
            a[PF_SHOT_BEAMS_KNOCKED] > PF_BEAMS)
                return ENG_REFUSED_INVALID;
        for (int64_t i = 0; i < na; i++) {
                int64_t loc = a[PF_SHOT_AT + 1 + i];

                if (loc < 0 || loc >= PF_N_LOCATIONS)
                        return ENG_REFUSED_INVALID;
                if (loc == PF_LOC_NONE) {
                        if (na != 1)
                                return eng_refuse(out, ENG_REFUSED_INVALID, "at",
                                                  "names none (open space) beside a location");
                        continue;
                }
                for (int64_t k = 0; k < i; k++)
                        if (a[PF_SHOT_AT + 1 + k] == loc)
                                return eng_refuse(out, ENG_REFUSED_INVALID, "at", "names a location twice");
                rep.at[rep.n_at++] = (uint8_t) loc;
        }
        for (int64_t i = 0; i < a[PF_SHOT_KNOCKED]; i++) {
                int64_t loc = a[PF_SHOT_KNOCKED_AT + 1 + i];

                if (loc < 0 || loc >= PF_N_LOCATIONS)
                        return ENG_REFUSED_INVALID;
                rep.knocked_at[knocked_order[i]] = (uint8_t) loc;
        }
        if (st->phase != PF_PHASE_SHOT)
                return ENG_REFUSED_STATE;
        kind = kind_of(st, t->card);
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if (st->ships[s].on_board)
                        on_board |= 1u << s;
        rep.outbound = (uint8_t) outbound;
        rep.knocked = (uint8_t) knocked;
        rep.stacked = a[PF_SHOT_STACKED];
        rep.collided = a[PF_SHOT_COLLIDED];
        rep.springboard_failed = a[PF_SHOT_SPRINGBOARD_FAILED];
        rep.beams_knocked = (uint8_t) a[PF_SHOT_BEAMS_KNOCKED];
        /* A ship not on the board can neither go out nor be knocked; the
         * moved ship cannot knock itself; a stacked ship is outbound (Q&A). */
        if (outbound & ~on_board)
                return eng_refuse(out, ENG_REFUSED_INVALID, "outbound", "names a ship that is not on the board");
        if (knocked & ~on_board)
                return eng_refuse(out, ENG_REFUSED_INVALID, "knocked", "names a ship that is not on the board");
        if (knocked & (1 << t->ship))
                return eng_refuse(out, ENG_REFUSED_INVALID, "knocked", "names the moved ship, which cannot knock itself");
        if (rep.stacked) {
                if (kind == PF_CARD_A3)
                        return eng_refuse(out, ENG_REFUSED_INVALID, "stacked", "a beam in the ship's place cannot stack");
                rep.outbound |= SHIP_BIT(t->ship);
        }
        if ((rep.outbound & SHIP_BIT(t->ship)) && rep.n_at)
                return eng_refuse(out, ENG_REFUSED_INVALID, "at", "the moved ship went out, so it touches no location");
        for (unsigned s = 0; s < PF_N_SHIPS; s++)
                if ((rep.knocked & rep.outbound & SHIP_BIT(s)) && rep.knocked_at[s] != PF_LOC_NONE)
                        return eng_refuse(out, ENG_REFUSED_INVALID, "knocked_at",
                                          "a ship knocked out ends at none, not at a location");
        if (rep.beams_knocked > st->beams)
                return eng_refuse(out, ENG_REFUSED_INVALID, "beams_knocked", "is more than the beams on the board");
        if ((rep.knocked || rep.beams_knocked) && !rep.collided)
                return eng_refuse(out, ENG_REFUSED_INVALID, "collided", "must be true: a ship or a beam was knocked");
        if (rep.springboard_failed &&
            (kind != PF_CARD_A5 || rep.outbound || rep.knocked || rep.n_at || rep.beams_knocked))
                return eng_refuse(out, ENG_REFUSED_INVALID, "springboard_failed",
                                  "is for A5 alone, when the ship stayed on the springboard");

        /* Accepted. */
        t->rep = rep;
        t->kept = false;
        examine(st, t);
        o = eng_out_push(out, &pf_ev_shot_reported, st->current_seat, in->time_us);
        if (o) {
                unsigned n = 0;

                for (unsigned s = 0; s < PF_N_SHIPS; s++)
                        if (rep.outbound & SHIP_BIT(s))
                                o->v[PF_REPORTED_OUTBOUND + 1 + n++] = s;
                o->v[PF_REPORTED_OUTBOUND] = n;
                o->v[PF_REPORTED_AT] = rep.n_at;
                for (unsigned i = 0; i < rep.n_at; i++)
                        o->v[PF_REPORTED_AT + 1 + i] = rep.at[i];
                o->v[PF_REPORTED_KNOCKED] = a[PF_SHOT_KNOCKED];
                for (int64_t i = 0; i < a[PF_SHOT_KNOCKED]; i++)
                        o->v[PF_REPORTED_KNOCKED + 1 + i] = knocked_order[i];
        }
        st->phase = PF_PHASE_DECIDE;
        if (t->charge_due) {
                t->drawn = draw(st);
                if (t->drawn != PF_NO_CARD) {
                        st->phase = PF_PHASE_CHARGE;
                        o = eng_out_push(out, &pf_ev_charging_drawn, st->current_seat, in->time_us);
                        if (o)
                                o->v[PF_DRAWN_CARD] = pf_handle(st, t->drawn);
                }
        }
        return ENG_ACCEPTED;
}

/* Whether the attempt may be restarted (F37, F38): no collision, a restart
 * card, the charging draw (if any) not answered yet. */
static bool may_restart(const struct pf_state *st) {
        const struct pf_turn *t = &st->turn;

        return (st->phase == PF_PHASE_DECIDE || st->phase == PF_PHASE_CHARGE) && !t->kept && !t->rep.collided &&
               !t->rep.knocked && !t->rep.beams_knocked && st->seats[st->current_seat].restart_card;
}

/* The attempt undone: a drawn card back on the deck. */
static void undo_attempt(struct pf_state *st) {
        struct pf_turn *t = &st->turn;

        if (t->drawn != PF_NO_CARD)
                st->deck[st->deck_n++] = t->drawn;
        t->drawn = PF_NO_CARD;
        t->n_pending = 0;
        t->charge_due = t->record_due = t->kept = false;
        memset(&t->rep, 0, sizeof t->rep);
}

static enum eng_refusal do_restart(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r = running(st);

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_RACE)
                return ENG_REFUSED_UNSUPPORTED;
        if ((r = who(st, in)) != ENG_ACCEPTED)
                return r;
        if (st->phase != PF_PHASE_DECIDE && st->phase != PF_PHASE_CHARGE)
                return eng_refuse(out, ENG_REFUSED_STATE, NULL, "there is no shot to restart");
        if (!st->seats[st->current_seat].restart_card)
                return eng_refuse(out, ENG_REFUSED_STATE, NULL, "the player has no restart card");
        if (!may_restart(st))
                return eng_refuse(out, ENG_REFUSED_STATE, NULL,
                                  "the shot touched another starship or a beam (or its draw was kept)");
        undo_attempt(st);
        st->seats[st->current_seat].restart_card = false;
        st->phase = PF_PHASE_SHOT;
        eng_out_push(out, &pf_ev_restart_used, st->current_seat, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_charge(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        struct pf_turn *t = &st->turn;
        int64_t choice = in->arg[PF_CHARGE_CHOICE];
        enum eng_refusal r = running(st);
        struct pf_seat *p;
        struct eng_output *o;

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_RACE)
                return ENG_REFUSED_UNSUPPORTED;
        if ((r = who(st, in)) != ENG_ACCEPTED)
                return r;
        if (choice != PF_CHARGE_USE && choice != PF_CHARGE_KEEP)
                return ENG_REFUSED_INVALID;
        if (st->phase != PF_PHASE_CHARGE)
                return ENG_REFUSED_STATE;
        p = &st->seats[st->current_seat];
        if (choice == PF_CHARGE_KEEP) {
                p->kept[p->n_kept++] = t->drawn;
                t->drawn = PF_NO_CARD;
                t->kept = true;
                examine(st, t);
                st->phase = PF_PHASE_DECIDE;
                eng_out_push(out, &pf_ev_card_kept, st->current_seat, in->time_us);
                return ENG_ACCEPTED;
        }
        /* Use: the attempt so far is made, the card in play discarded, and
         * an extra attempt follows with the drawn card (a new pick). */
        commit(st, in->time_us, out);
        discard(st, t->card);
        t->card = PF_NO_CARD;
        t->forced = t->drawn;
        t->drawn = PF_NO_CARD;
        t->ship = PF_NO_SHIP;
        memset(&t->rep, 0, sizeof t->rep);
        st->phase = PF_PHASE_PICK;
        o = eng_out_push(out, &pf_ev_card_used, st->current_seat, in->time_us);
        if (o)
                o->v[PF_USED_CARD] = pf_handle(st, t->forced);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_end_turn(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r = running(st);

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_RACE)
                return ENG_REFUSED_UNSUPPORTED;
        if ((r = who(st, in)) != ENG_ACCEPTED)
                return r;
        if (st->phase != PF_PHASE_DECIDE)
                return ENG_REFUSED_STATE;
        commit(st, in->time_us, out);
        end_turn(st, in->time_us, out);
        return ENG_ACCEPTED;
}

/* Decision "fouls": the attempt is void, every ship and beam back where it
 * was before the pick (its pre-move undone too), the card spent, nothing
 * scored. */
static enum eng_refusal do_foul(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        struct pf_turn *t = &st->turn;
        enum eng_refusal r = running(st);

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_RACE)
                return ENG_REFUSED_UNSUPPORTED;
        if ((r = who(st, in)) != ENG_ACCEPTED)
                return r;
        if ((st->phase != PF_PHASE_SHOT && st->phase != PF_PHASE_DECIDE && st->phase != PF_PHASE_CHARGE) || t->kept)
                return ENG_REFUSED_STATE;
        undo_attempt(st);
        memcpy(st->ships, t->before, sizeof st->ships);
        st->beams = t->beams_before;
        eng_out_push(out, &pf_ev_foul_called, st->current_seat, in->time_us);
        end_turn(st, in->time_us, out);
        return ENG_ACCEPTED;
}

/* F55..F60: one try at the face-up challenge. */
static enum eng_refusal do_attempt(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        int64_t result = in->arg[PF_ATTEMPT_RESULT], moves = in->arg[PF_ATTEMPT_MOVES];
        enum eng_refusal r = running(st);
        const struct pf_challenge *c;
        struct pf_done *d;
        struct eng_output *o;
        bool over = false;

        if (r != ENG_ACCEPTED)
                return r;
        if (st->mode != PF_MODE_SOLO)
                return ENG_REFUSED_UNSUPPORTED;
        if (in->seat != ENG_SEAT_TABLE && in->seat != 0)
                return ENG_REFUSED_INVALID;
        if ((result != PF_RESULT_SUCCESS && result != PF_RESULT_FAILURE) || moves < 1 ||
            moves > PF_MAX_CHALLENGE_MOVES)
                return ENG_REFUSED_INVALID;
        c = &st->cat.cards[st->solo_order[st->solo_pos]];
        /* Completed past the move limit is no completion. */
        if (result == PF_RESULT_SUCCESS && moves > c->moves)
                return eng_refuse(out, ENG_REFUSED_INVALID, "moves", "is more than the challenge's move limit");
        if (st->phase != PF_PHASE_ATTEMPT)
                return ENG_REFUSED_STATE;
        st->n_last = 0;
        st->turn.made_any = true;
        if (result == PF_RESULT_SUCCESS) {
                struct pf_change ch = { .seat = 0, .delta = (int8_t) st->vp_left, .rule = PF_RULE_SOLO_CHALLENGE,
                                        .ship = PF_NO_SHIP, .location = PF_LOC_NONE };

                make_change(st, &ch, in->time_us, out);
                d = &st->done[st->n_done++];
                d->number = c->number;
                d->result = PF_RESULT_SUCCESS;
                d->vp = st->vp_left;
                over = true;
        } else {
                struct pf_change ch = { .seat = 0, .delta = -1, .rule = PF_RULE_SOLO_FAILURE, .ship = PF_NO_SHIP,
                                        .location = PF_LOC_NONE };

                /* Shown in last_turn: the card's VP, not the total. */
                st->last[st->n_last++] = ch;
                st->vp_left--;
                if (!st->vp_left) {
                        d = &st->done[st->n_done++];
                        d->number = c->number;
                        d->result = PF_RESULT_DISCARDED;
                        d->vp = 0;
                        over = true;
                }
        }
        o = eng_out_push(out, &pf_ev_challenge_done, 0, in->time_us);
        if (o) {
                o->v[PF_DONE_NUMBER] = c->number;
                o->v[PF_DONE_RESULT] = result == PF_RESULT_SUCCESS ? PF_RESULT_SUCCESS
                                       : st->vp_left ? PF_RESULT_FAILURE : PF_RESULT_DISCARDED;
                o->v[PF_DONE_VP] = result == PF_RESULT_SUCCESS ? st->done[st->n_done - 1].vp : st->vp_left;
        }
        if (!over)
                return ENG_ACCEPTED;
        if (++st->solo_pos >= st->solo_n) {
                st->vp_left = 0;
                finish(st, in->time_us, out);
                return ENG_ACCEPTED;
        }
        c = &st->cat.cards[st->solo_order[st->solo_pos]];
        st->vp_left = c->vp;
        o = eng_out_push(out, &pf_ev_challenge_revealed, 0, in->time_us);
        if (o) {
                o->v[PF_REVEALED_NUMBER] = c->number;
                o->v[PF_REVEALED_VP] = c->vp;
                o->v[PF_REVEALED_MOVES] = c->moves;
        }
        return ENG_ACCEPTED;
}

static enum eng_refusal do_action(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        switch (in->action) {
        case PF_ACTION_PICK:
                return do_pick(st, in, out);
        case PF_ACTION_SHOT:
                return do_shot(st, in, out);
        case PF_ACTION_RESTART:
                return do_restart(st, in, out);
        case PF_ACTION_CHARGE:
                return do_charge(st, in, out);
        case PF_ACTION_END_TURN:
                return do_end_turn(st, in, out);
        case PF_ACTION_FOUL:
                return do_foul(st, in, out);
        case PF_ACTION_ATTEMPT:
                return do_attempt(st, in, out);
        }
        return ENG_REFUSED_INVALID;
}

static enum eng_refusal do_pause(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r = running(st);

        if (r != ENG_ACCEPTED)
                return r;
        st->paused = true;
        eng_out_push(out, &eng_ev_paused, ENG_SEAT_TABLE, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_resume(struct pf_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == PF_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (!st->paused)
                return ENG_REFUSED_STATE;
        st->paused = false;
        eng_out_push(out, &eng_ev_resumed, ENG_SEAT_TABLE, in->time_us);
        return ENG_ACCEPTED;
}

static int pf_apply(void *state, const struct eng_input *in, struct eng_out *out) {
        struct pf_state *st = state;
        enum eng_refusal refusal;

        if (!st || !in || !out || st->magic != PF_MAGIC)
                return -EINVAL;
        eng_out_reset(out, ENG_NEVER);
        refusal = eng_input_order(in, st->any_input, st->last_seq, st->last_us);
        if (refusal == ENG_ACCEPTED)
                switch (in->kind) {
                case ENG_IN_START:
                        refusal = do_start(st, in, out);
                        break;
                case ENG_IN_PAUSE:
                        refusal = do_pause(st, in, out);
                        break;
                case ENG_IN_RESUME:
                        refusal = do_resume(st, in, out);
                        break;
                case ENG_IN_ACTION:
                        refusal = do_action(st, in, out);
                        break;
                case ENG_IN_VOID:
                        /* The log has rebuilt the state; there is no clock. */
                        refusal = ENG_ACCEPTED;
                        break;
                case ENG_IN_TIMER:
                        refusal = st->phase == PF_PHASE_FINISHED ? ENG_REFUSED_FINISHED : ENG_REFUSED_NOT_DUE;
                        break;
                default:
                        refusal = ENG_REFUSED_UNSUPPORTED;
                        break;
                }
        if (refusal == ENG_ACCEPTED) {
                st->any_input = true;
                st->last_seq = in->seq;
                st->last_us = in->time_us;
        }
        out->refusal = refusal;
        out->wake_us = ENG_NEVER;
        return 0;
}

static enum eng_status status_of(const struct pf_state *st) {
        switch (st->phase) {
        case PF_PHASE_READY:
                return ENG_STATUS_READY;
        case PF_PHASE_FINISHED:
                return ENG_STATUS_FINISHED;
        default:
                return st->paused ? ENG_STATUS_PAUSED : ENG_STATUS_RUNNING;
        }
}

static enum eng_status pf_status(const void *state) {
        return status_of(state);
}

static int64_t pf_wake_us(const void *state) {
        (void) state;
        return ENG_NEVER;
}

/* ---- The state hash.  Field order (PF_HASH_VERSION 1), integers
 * little-endian at the width shown; a position is bool on_board, u8 n_at
 * and its locations; a change is i8 seat, i8 delta, u8 rule, i8 ship, u8
 * location:
 *
 *   u8 version; u8 n_seats, mode; the 9 layout bytes; u8 advanced,
 *   basic_copies, advanced_copies, n_cards and the card kinds; u8 stages,
 *   n_planets, planet_pos and the planet deck; u64 seed, handle_key,
 *   challenges_digest; the generator's four u64; bool any_input; if
 *   any_input: u64 last_seq, i64 last_us; u8 phase; bool paused;
 *   race: u8 stage, round, turns_taken; i8 starting_seat, current_seat;
 *   u8 start_planet, goal_planet; bool bonus_token; u8 beams; per ship i8
 *   owner, its position, bool on_goal; per stage so far each seat's i8
 *   team; u8 deck_n and the deck, u8 discard_n and the discards; per seat
 *   i32 score and each term, bool restart_card, u8 n_kept and the kept
 *   cards, i8 ship, the pile (u8 n, bool up, its cards); the turn (PICK:
 *   u8 forced; SHOT .. CHARGE: u8 card; i8 ship; the began position; every
 *   ship's before position; u8 beams_before; DECIDE and CHARGE: the report (u8
 *   outbound, bools stacked, collided, springboard_failed, u8 n_at and the
 *   locations, u8 knocked, the 6 knocked_at, u8 beams_knocked), bools
 *   charge_due, kept, record_due, u8 drawn, u8 n_pending and the changes;
 *   PICK .. CHARGE: bool made_any); u8 n_last and the changes;
 *   solo: u8 solo_n, solo_pos, vp_left and the dealt order; u8 n_done and
 *   each (number, result, vp); i32 score and each term; u8 n_last and the
 *   changes. */
static void hash_pos(struct eng_hash *h, const struct pf_pos *p) {
        eng_hash_bool(h, p->on_board);
        eng_hash_u8(h, p->n_at);
        eng_hash_bytes(h, p->at, p->n_at);
}

static void hash_change(struct eng_hash *h, const struct pf_change *c) {
        eng_hash_u8(h, (uint8_t) c->seat);
        eng_hash_u8(h, (uint8_t) c->delta);
        eng_hash_u8(h, c->rule);
        eng_hash_u8(h, (uint8_t) c->ship);
        eng_hash_u8(h, c->location);
}

static void hash_seat_score(struct eng_hash *h, const struct pf_seat *p) {
        eng_hash_u32(h, (uint32_t) p->score);
        for (unsigned t = 0; t < PF_N_TERMS; t++)
                eng_hash_u32(h, (uint32_t) p->terms[t]);
}

static uint64_t pf_hash(const void *state) {
        const struct pf_state *st = state;
        const struct pf_turn *t = &st->turn;
        struct eng_hash h;

        eng_hash_init(&h);
        eng_hash_u8(&h, PF_HASH_VERSION);
        eng_hash_u8(&h, st->n_seats);
        eng_hash_u8(&h, st->mode);
        eng_hash_bytes(&h, st->layout, PF_BOARDS);
        eng_hash_u8(&h, st->advanced);
        eng_hash_u8(&h, st->basic_copies);
        eng_hash_u8(&h, st->advanced_copies);
        eng_hash_u8(&h, st->n_cards);
        eng_hash_bytes(&h, st->card_kind, st->n_cards);
        eng_hash_u8(&h, st->stages);
        eng_hash_u8(&h, st->n_planets);
        eng_hash_u8(&h, st->planet_pos);
        eng_hash_bytes(&h, st->planets, st->n_planets);
        eng_hash_u64(&h, st->seed);
        eng_hash_u64(&h, st->handle_key);
        eng_hash_u64(&h, st->challenges_digest);
        for (unsigned i = 0; i < 4; i++)
                eng_hash_u64(&h, st->rng.s[i]);
        eng_hash_bool(&h, st->any_input);
        if (st->any_input) {
                eng_hash_u64(&h, st->last_seq);
                eng_hash_i64(&h, st->last_us);
        }
        eng_hash_u8(&h, st->phase);
        eng_hash_bool(&h, st->paused);
        if (st->mode == PF_MODE_SOLO) {
                eng_hash_u8(&h, st->solo_n);
                eng_hash_u8(&h, st->solo_pos);
                eng_hash_u8(&h, st->vp_left);
                eng_hash_bytes(&h, st->solo_order, st->solo_n);
                eng_hash_u8(&h, st->n_done);
                for (unsigned i = 0; i < st->n_done; i++) {
                        eng_hash_u8(&h, st->done[i].number);
                        eng_hash_u8(&h, st->done[i].result);
                        eng_hash_u8(&h, st->done[i].vp);
                }
                hash_seat_score(&h, &st->seats[0]);
                eng_hash_u8(&h, st->n_last);
                for (unsigned i = 0; i < st->n_last; i++)
                        hash_change(&h, &st->last[i]);
                return eng_hash_value(&h);
        }
        eng_hash_u8(&h, st->stage);
        eng_hash_u8(&h, st->round);
        eng_hash_u8(&h, st->turns_taken);
        eng_hash_u8(&h, (uint8_t) st->starting_seat);
        eng_hash_u8(&h, (uint8_t) st->current_seat);
        eng_hash_u8(&h, st->start_planet);
        eng_hash_u8(&h, st->goal_planet);
        eng_hash_bool(&h, st->bonus_token);
        eng_hash_u8(&h, st->beams);
        for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                eng_hash_u8(&h, (uint8_t) st->owner[s]);
                hash_pos(&h, &st->ships[s]);
                eng_hash_bool(&h, st->on_goal[s]);
        }
        for (unsigned k = 0; k < st->stage; k++)
                for (int s = 0; s < st->n_seats; s++)
                        eng_hash_u8(&h, (uint8_t) st->teams[k][s]);
        eng_hash_u8(&h, st->deck_n);
        eng_hash_bytes(&h, st->deck, st->deck_n);
        eng_hash_u8(&h, st->discard_n);
        eng_hash_bytes(&h, st->discard, st->discard_n);
        for (int s = 0; s < st->n_seats; s++) {
                const struct pf_seat *p = &st->seats[s];

                hash_seat_score(&h, p);
                eng_hash_bool(&h, p->restart_card);
                eng_hash_u8(&h, p->n_kept);
                eng_hash_bytes(&h, p->kept, p->n_kept);
                eng_hash_u8(&h, (uint8_t) p->ship);
                eng_hash_u8(&h, p->pile.n);
                eng_hash_bool(&h, p->pile.up);
                eng_hash_bytes(&h, p->pile.cards, p->pile.n);
        }
        if (st->phase == PF_PHASE_PICK)
                eng_hash_u8(&h, t->forced);
        if (st->phase >= PF_PHASE_SHOT && st->phase <= PF_PHASE_CHARGE) {
                eng_hash_u8(&h, t->card);
                eng_hash_u8(&h, (uint8_t) t->ship);
                hash_pos(&h, &t->began);
                for (unsigned s = 0; s < PF_N_SHIPS; s++)
                        hash_pos(&h, &t->before[s]);
                eng_hash_u8(&h, t->beams_before);
                if (st->phase == PF_PHASE_DECIDE || st->phase == PF_PHASE_CHARGE) {
                        eng_hash_u8(&h, t->rep.outbound);
                        eng_hash_bool(&h, t->rep.stacked);
                        eng_hash_bool(&h, t->rep.collided);
                        eng_hash_bool(&h, t->rep.springboard_failed);
                        eng_hash_u8(&h, t->rep.n_at);
                        eng_hash_bytes(&h, t->rep.at, t->rep.n_at);
                        eng_hash_u8(&h, t->rep.knocked);
                        eng_hash_bytes(&h, t->rep.knocked_at, PF_N_SHIPS);
                        eng_hash_u8(&h, t->rep.beams_knocked);
                        eng_hash_bool(&h, t->charge_due);
                        eng_hash_bool(&h, t->kept);
                        eng_hash_bool(&h, t->record_due);
                        eng_hash_u8(&h, t->drawn);
                        eng_hash_u8(&h, t->n_pending);
                        for (unsigned i = 0; i < t->n_pending; i++)
                                hash_change(&h, &t->pending[i]);
                }
        }
        if (st->phase >= PF_PHASE_PICK && st->phase <= PF_PHASE_CHARGE)
                eng_hash_bool(&h, t->made_any);
        eng_hash_u8(&h, st->n_last);
        for (unsigned i = 0; i < st->n_last; i++)
                hash_change(&h, &st->last[i]);
        return eng_hash_value(&h);
}

/* ---- Invariants (pitch_fleet.h). */

#define FAIL(...) do { if (why) snprintf(why, len, __VA_ARGS__); return -EBADMSG; } while (0)

static int check_pos(const struct pf_pos *p, char *why, size_t len) {
        if (p->n_at > PF_MAX_AT || (!p->on_board && p->n_at))
                FAIL("a position with %u locations, on_board %d", p->n_at, p->on_board);
        for (unsigned i = 0; i < p->n_at; i++)
                if (p->at[i] == PF_LOC_NONE || p->at[i] >= PF_N_LOCATIONS || (i && p->at[i] <= p->at[i - 1]))
                        FAIL("a position's location %u out of range or out of order", p->at[i]);
        return 0;
}

int pf_check(const struct pf_state *st, char *why, size_t len) {
        uint8_t seen[PF_MAX_DECK] = { 0 };
        unsigned total = 0;

        if (!st || st->magic != PF_MAGIC)
                FAIL("not a created state");
        if (st->n_seats < PF_MIN_SEATS || st->n_seats > PF_MAX_SEATS ||
            st->mode != (st->n_seats == 1 ? PF_MODE_SOLO : PF_MODE_RACE) || st->phase > PF_PHASE_FINISHED)
                FAIL("%u seats in mode %u, phase %u", st->n_seats, st->mode, st->phase);
        for (int s = 0; s < st->n_seats; s++) {
                int64_t sum = 0;

                for (unsigned t = 0; t < PF_N_TERMS; t++)
                        sum += st->seats[s].terms[t];
                if (st->seats[s].score < 0)
                        FAIL("seat %d has %d VP", s, st->seats[s].score);
                if (sum != st->seats[s].score)
                        FAIL("seat %d: terms sum to %lld, score %d", s, (long long) sum, st->seats[s].score);
        }
        if (st->mode == PF_MODE_SOLO) {
                if (st->solo_n < 1 || st->solo_n > st->cat.n || st->solo_pos > st->solo_n || st->n_done != st->solo_pos)
                        FAIL("solo: %u dealt, at %u, %u done", st->solo_n, st->solo_pos, st->n_done);
                for (unsigned i = 0; i < st->solo_n; i++) {
                        if (st->solo_order[i] >= st->cat.n)
                                FAIL("solo: challenge %u out of range", st->solo_order[i]);
                        for (unsigned k = 0; k < i; k++)
                                if (st->solo_order[k] == st->solo_order[i])
                                        FAIL("solo: challenge %u dealt twice", st->solo_order[i]);
                }
                if (st->phase != PF_PHASE_FINISHED &&
                    (st->vp_left < 1 || st->vp_left > st->cat.cards[st->solo_order[st->solo_pos]].vp))
                        FAIL("solo: %u VP left on the card", st->vp_left);
                if ((st->phase == PF_PHASE_FINISHED) != (st->solo_pos == st->solo_n))
                        FAIL("solo: finished %d after %u of %u", st->phase == PF_PHASE_FINISHED, st->solo_pos,
                             st->solo_n);
                return 0;
        }
        if (st->n_planets != pf_planet_cards_for(st->n_seats) || st->stages != st->n_planets - 1)
                FAIL("%u stages of %u planet cards for %u players", st->stages, st->n_planets, st->n_seats);
        if (st->stage < 1 || st->stage > st->stages || st->round < 1 || st->round > PF_ROUNDS ||
            st->planet_pos != st->stage + 1)
                FAIL("stage %u of %u, round %u, planet card %u", st->stage, st->stages, st->round, st->planet_pos);
        if (st->beams > PF_BEAMS || st->n_cards > PF_MAX_DECK)
                FAIL("%u beams, %u cards", st->beams, st->n_cards);
        for (unsigned i = 0; i < st->deck_n; i++, total++)
                if (st->deck[i] >= st->n_cards || seen[st->deck[i]]++)
                        FAIL("deck card %u twice or out of range", st->deck[i]);
        for (unsigned i = 0; i < st->discard_n; i++, total++)
                if (st->discard[i] >= st->n_cards || seen[st->discard[i]]++)
                        FAIL("discarded card %u twice or out of range", st->discard[i]);
        for (int s = 0; s < st->n_seats; s++) {
                const struct pf_seat *p = &st->seats[s];

                if (p->pile.n > PF_PILE || (p->pile.up && !p->pile.n))
                        FAIL("seat %d: a pile of %u", s, p->pile.n);
                for (unsigned i = 0; i < p->pile.n; i++, total++)
                        if (p->pile.cards[i] >= st->n_cards || seen[p->pile.cards[i]]++)
                                FAIL("seat %d: pile card %u twice", s, p->pile.cards[i]);
                for (unsigned i = 0; i < p->n_kept; i++, total++)
                        if (p->kept[i] >= st->n_cards || seen[p->kept[i]]++)
                                FAIL("seat %d: kept card %u twice", s, p->kept[i]);
                if (p->ship < 0 || p->ship >= PF_N_SHIPS || st->owner[p->ship] != s)
                        FAIL("seat %d: ship %d not its own", s, p->ship);
        }
        if (st->turn.card != PF_NO_CARD) {
                if (st->turn.card >= st->n_cards || seen[st->turn.card]++)
                        FAIL("the card in play %u twice", st->turn.card);
                total++;
        }
        if (st->turn.drawn != PF_NO_CARD) {
                if (st->turn.drawn >= st->n_cards || seen[st->turn.drawn]++)
                        FAIL("the drawn card %u twice", st->turn.drawn);
                total++;
        }
        if (st->turn.forced != PF_NO_CARD) {
                if (st->turn.forced >= st->n_cards || seen[st->turn.forced]++)
                        FAIL("the card to use %u twice", st->turn.forced);
                total++;
        }
        if (total != st->n_cards)
                FAIL("%u power cards accounted for, of %u", total, st->n_cards);
        for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                if (check_pos(&st->ships[s], why, len) < 0)
                        return -EBADMSG;
                if (st->owner[s] < 0 && (st->ships[s].on_board || st->on_goal[s]))
                        FAIL("ship %s on the board without a team card", pf_ship_name(s));
        }
        switch (st->phase) {
        case PF_PHASE_PICK:
        case PF_PHASE_SHOT:
        case PF_PHASE_DECIDE:
        case PF_PHASE_CHARGE:
                if ((st->phase == PF_PHASE_PICK) != (st->turn.card == PF_NO_CARD))
                        FAIL("phase %u with card %u in play", st->phase, st->turn.card);
                if ((st->phase == PF_PHASE_CHARGE) != (st->turn.drawn != PF_NO_CARD))
                        FAIL("phase %u with drawn card %u", st->phase, st->turn.drawn);
                if (st->turn.forced != PF_NO_CARD && st->phase != PF_PHASE_PICK)
                        FAIL("a card to use outside the pick");
                if (st->current_seat != (st->starting_seat + st->turns_taken) % st->n_seats)
                        FAIL("seat %d plays, turn %u from %d", st->current_seat, st->turns_taken, st->starting_seat);
                break;
        default:
                if (st->turn.card != PF_NO_CARD || st->turn.drawn != PF_NO_CARD || st->turn.forced != PF_NO_CARD)
                        FAIL("a card in play in phase %u", st->phase);
        }
        if (st->phase == PF_PHASE_FINISHED && st->stage != st->stages)
                FAIL("finished at stage %u of %u", st->stage, st->stages);
        return 0;
}

#undef FAIL

/* ---- Views. */

static const char *phase_name(uint8_t p) {
        static const char *const names[] = { "ready", "pick", "shot", "decide", "charge", "attempt", "finished" };

        return p < ELEMENTSOF(names) ? names[p] : "unknown";
}

static int face_fields(unsigned kind, const struct eng_visitor *v, void *ctx) {
        int r = pf_card_face_visit(kind, v, ctx);

        return r == -EINVAL ? -ENOENT : r;
}

static void walk_card(const struct pf_state *st, struct eng_walk *w, const char *key, unsigned card) {
        if (card == PF_NO_CARD || card >= st->n_cards) {
                eng_walk_null(w, key);
                return;
        }
        eng_walk_obj(w, key);
        eng_walk_handle(w, "handle", pf_handle(st, card));
        if (!w->r) {
                int r = face_fields(st->card_kind[card], w->v, w->ctx);

                if (r < 0)
                        w->r = r;
        }
        eng_walk_end_obj(w);
}

static int pf_card_face(const void *state, uint32_t handle, const struct eng_visitor *v, void *ctx) {
        const struct pf_state *st = state;
        unsigned card;

        if (!st || !v || st->magic != PF_MAGIC)
                return -EINVAL;
        if (pf_card_of(st, handle, &card) < 0)
                return -ENOENT;
        return face_fields(st->card_kind[card], v, ctx);
}

static void walk_locs(struct eng_walk *w, const char *key, const struct pf_pos *p) {
        eng_walk_arr(w, key);
        for (unsigned i = 0; i < p->n_at; i++)
                eng_walk_str(w, NULL, pf_location_name(p->at[i]));
        eng_walk_end_arr(w);
}

static void walk_changes(struct eng_walk *w, const char *key, const struct pf_change *c, unsigned n) {
        eng_walk_arr(w, key);
        for (unsigned i = 0; i < n; i++) {
                eng_walk_obj(w, NULL);
                eng_walk_int(w, "seat", c[i].seat);
                eng_walk_int(w, "delta", c[i].delta);
                eng_walk_str(w, "rule", rule_choices[c[i].rule]);
                eng_walk_str(w, "why", rule_text[c[i].rule]);
                if (c[i].ship >= 0)
                        eng_walk_str(w, "ship", pf_ship_name((unsigned) c[i].ship));
                else
                        eng_walk_null(w, "ship");
                if (c[i].location != PF_LOC_NONE)
                        eng_walk_str(w, "location", pf_location_name(c[i].location));
                else
                        eng_walk_null(w, "location");
                eng_walk_end_obj(w);
        }
        eng_walk_end_arr(w);
}

static void walk_layout(const struct pf_state *st, struct eng_walk *w) {
        eng_walk_arr(w, "layout");
        for (unsigned b = 0; b < PF_BOARDS; b++) {
                unsigned planet = st->layout[b], first = 0, n = 0;

                pf_board_locations(planet, &first, &n);
                eng_walk_obj(w, NULL);
                eng_walk_int(w, "board", b);
                eng_walk_int(w, "row", b / 3);
                eng_walk_int(w, "col", b % 3);
                eng_walk_str(w, "planet", pf_planet_name(planet));
                eng_walk_arr(w, "locations");
                for (unsigned i = first; i < first + n; i++) {
                        const struct pf_location *l = pf_location(i);

                        eng_walk_obj(w, NULL);
                        eng_walk_str(w, "id", l->id);
                        eng_walk_str(w, "kind", pf_kind_name(l->kind));
                        eng_walk_int(w, "stars", l->stars);
                        eng_walk_int(w, "x", l->x);
                        eng_walk_int(w, "y", l->y);
                        eng_walk_int(w, "r", l->r);
                        eng_walk_end_obj(w);
                }
                eng_walk_end_arr(w);
                eng_walk_end_obj(w);
        }
        eng_walk_end_arr(w);
}

static void walk_terms(const struct pf_seat *p, struct eng_walk *w) {
        eng_walk_obj(w, "terms");
        for (unsigned t = 0; t < PF_N_TERMS; t++)
                eng_walk_int(w, pf_term_names[t], p->terms[t]);
        eng_walk_end_obj(w);
}

static void walk_turn(const struct pf_state *st, struct eng_walk *w) {
        const struct pf_turn *t = &st->turn;

        if (st->phase < PF_PHASE_PICK || st->phase > PF_PHASE_CHARGE) {
                eng_walk_null(w, "turn");
                return;
        }
        eng_walk_obj(w, "turn");
        eng_walk_int(w, "seat", st->current_seat);
        walk_card(st, w, "card", t->card != PF_NO_CARD ? t->card : t->forced);
        if (t->ship >= 0)
                eng_walk_str(w, "ship", pf_ship_name((unsigned) t->ship));
        else
                eng_walk_null(w, "ship");
        walk_locs(w, "began_at", &t->began);
        walk_changes(w, "pending", t->pending,
                     st->phase == PF_PHASE_DECIDE || st->phase == PF_PHASE_CHARGE ? t->n_pending : 0);
        eng_walk_bool(w, "record_due", (st->phase == PF_PHASE_DECIDE || st->phase == PF_PHASE_CHARGE) &&
                                               t->record_due);
        eng_walk_bool(w, "may_restart", may_restart(st));
        eng_walk_bool(w, "charge_pending", st->phase == PF_PHASE_CHARGE);
        eng_walk_end_obj(w);
}

static void walk_solo(const struct pf_state *st, struct eng_walk *w) {
        const struct pf_challenge *c;
        char fingers[80];

        if (st->phase == PF_PHASE_FINISHED || st->phase == PF_PHASE_READY) {
                eng_walk_null(w, "challenge");
        } else {
                c = &st->cat.cards[st->solo_order[st->solo_pos]];
                pf_fingers_text(c->fingers, fingers, sizeof fingers);
                eng_walk_obj(w, "challenge");
                eng_walk_int(w, "number", c->number);
                eng_walk_str(w, "setup", c->setup);
                eng_walk_str(w, "goal", c->goal);
                eng_walk_int(w, "vp", c->vp);
                eng_walk_int(w, "vp_left", st->vp_left);
                eng_walk_int(w, "moves_left", c->moves);
                eng_walk_str(w, "fingers", fingers);
                if (c->card != PF_CARD_NONE)
                        eng_walk_str(w, "card", pf_card_code(c->card));
                else
                        eng_walk_null(w, "card");
                eng_walk_end_obj(w);
        }
        eng_walk_int(w, "challenges_left", st->solo_n - st->solo_pos);
        eng_walk_arr(w, "challenges_done");
        for (unsigned i = 0; i < st->n_done; i++) {
                eng_walk_obj(w, NULL);
                eng_walk_int(w, "number", st->done[i].number);
                eng_walk_str(w, "result", result_choices[st->done[i].result]);
                eng_walk_int(w, "vp", st->done[i].vp);
                eng_walk_end_obj(w);
        }
        eng_walk_end_arr(w);
        eng_walk_int(w, "total", st->seats[0].score);
        if (st->phase == PF_PHASE_FINISHED)
                eng_walk_str(w, "evaluation", pf_evaluation_label(st->seats[0].score));
        else
                eng_walk_null(w, "evaluation");
}

static int pf_view_visit(const void *state, enum eng_audience audience, int seat, const struct eng_visitor *v,
                         void *ctx) {
        const struct pf_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };
        bool race = st && st->mode == PF_MODE_RACE;

        if (!st || !v || st->magic != PF_MAGIC)
                return -EINVAL;
        if (audience == ENG_VIEW_SEAT && (seat < 0 || seat >= st->n_seats))
                return -EINVAL;
        eng_walk_str(&w, "status", eng_status_name(status_of(st)));
        eng_walk_str(&w, "mode", race ? "race" : "solo");
        eng_walk_str(&w, "phase", phase_name(st->phase));
        walk_layout(st, &w);
        eng_walk_arr(&w, "seats");
        for (int s = 0; s < st->n_seats; s++) {
                const struct pf_seat *p = &st->seats[s];

                eng_walk_obj(&w, NULL);
                eng_walk_int(&w, "seat", s);
                eng_walk_int(&w, "score", p->score);
                if (race) {
                        eng_walk_str(&w, "team", pf_team_name(pf_ship_team((unsigned) p->ship)));
                        eng_walk_str(&w, "ship", pf_ship_name((unsigned) p->ship));
                } else {
                        eng_walk_null(&w, "team");
                        eng_walk_str(&w, "ship", pf_ship_name((unsigned) p->ship));
                }
                eng_walk_bool(&w, "restart_card", p->restart_card);
                eng_walk_int(&w, "kept", p->n_kept);
                walk_terms(p, &w);
                eng_walk_end_obj(&w);
        }
        eng_walk_end_arr(&w);
        walk_changes(&w, "last_turn", st->last, st->n_last);
        if (race) {
                eng_walk_int(&w, "stage", st->stage);
                eng_walk_int(&w, "stages", st->stages);
                eng_walk_int(&w, "round", st->round);
                if (st->phase == PF_PHASE_FINISHED || st->phase == PF_PHASE_READY)
                        eng_walk_null(&w, "current_seat");
                else
                        eng_walk_int(&w, "current_seat", st->current_seat);
                eng_walk_int(&w, "starting_seat", st->starting_seat);
                eng_walk_str(&w, "start_planet", pf_planet_name(st->start_planet));
                eng_walk_str(&w, "goal_planet", pf_planet_name(st->goal_planet));
                eng_walk_arr(&w, "piles");
                for (int s = 0; s < st->n_seats; s++) {
                        const struct pf_pile *p = &st->seats[s].pile;

                        eng_walk_obj(&w, NULL);
                        eng_walk_int(&w, "seat", s);
                        walk_card(st, &w, "top", p->n && p->up ? p->cards[p->n - 1] : PF_NO_CARD);
                        eng_walk_int(&w, "left", p->n);
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                eng_walk_int(&w, "deck_left", st->deck_n);
                eng_walk_int(&w, "discards", st->discard_n);
                eng_walk_arr(&w, "ships");
                for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                        if (st->owner[s] < 0)
                                continue;
                        eng_walk_obj(&w, NULL);
                        eng_walk_str(&w, "ship", pf_ship_name(s));
                        eng_walk_str(&w, "team", pf_team_name(pf_ship_team(s)));
                        eng_walk_int(&w, "owner_seat", st->owner[s]);
                        eng_walk_bool(&w, "on_board", st->ships[s].on_board);
                        walk_locs(&w, "at", &st->ships[s]);
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                eng_walk_arr(&w, "records");
                for (unsigned s = 0; s < PF_N_SHIPS; s++) {
                        if (st->owner[s] < 0)
                                continue;
                        eng_walk_obj(&w, NULL);
                        eng_walk_str(&w, "ship", pf_ship_name(s));
                        eng_walk_bool(&w, "on_goal", st->on_goal[s]);
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                eng_walk_bool(&w, "bonus_token", st->bonus_token);
                eng_walk_int(&w, "beams_on_board", st->beams);
                walk_turn(st, &w);
        } else {
                walk_solo(st, &w);
        }
        if (audience == ENG_VIEW_SEAT) {
                eng_walk_obj(&w, "you");
                eng_walk_int(&w, "seat", seat);
                walk_card(st, &w, "drawn",
                          st->phase == PF_PHASE_CHARGE && seat == st->current_seat ? st->turn.drawn : PF_NO_CARD);
                eng_walk_end_obj(&w);
        }
        if (audience == ENG_VIEW_REFEREE) {
                eng_walk_obj(&w, "referee");
                walk_card(st, &w, "drawn", st->phase == PF_PHASE_CHARGE ? st->turn.drawn : PF_NO_CARD);
                eng_walk_end_obj(&w);
        }
        return w.r;
}

/* What is hidden: the order of the power deck, of the planet cards not yet
 * turned up and of the challenge cards not yet turned up (nobody sees
 * them, the referee included). */
static int pf_perturb_hidden(void *state, uint64_t salt) {
        struct pf_state *st = state;
        struct eng_rng rng;
        bool any = false;

        if (!st || st->magic != PF_MAGIC)
                return -EINVAL;
        eng_rng_seed(&rng, salt);
        if (st->deck_n >= 2) {
                eng_rng_shuffle_u8(&rng, st->deck, st->deck_n);
                any = true;
        }
        if (st->mode == PF_MODE_RACE && st->n_planets >= st->planet_pos + 2) {
                eng_rng_shuffle_u8(&rng, st->planets + st->planet_pos, st->n_planets - st->planet_pos);
                any = true;
        }
        if (st->mode == PF_MODE_SOLO) {
                unsigned from = st->phase == PF_PHASE_READY ? 0u : st->solo_pos + 1u;

                if (from + 2 <= st->solo_n) {
                        eng_rng_shuffle_u8(&rng, st->solo_order + from, st->solo_n - from);
                        any = true;
                }
        }
        return any ? 0 : -EAGAIN;
}

static int pf_stats(const void *state, int seat, const struct eng_visitor *v, void *ctx) {
        const struct pf_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };

        if (!st || !v || st->magic != PF_MAGIC || seat < 0 || seat >= st->n_seats)
                return -EINVAL;
        eng_walk_int(&w, "kept", st->seats[seat].n_kept);
        eng_walk_bool(&w, "restart_card", st->seats[seat].restart_card);
        if (st->mode == PF_MODE_SOLO) {
                unsigned ok = 0;

                for (unsigned i = 0; i < st->n_done; i++)
                        ok += st->done[i].result == PF_RESULT_SUCCESS;
                eng_walk_int(&w, "challenges_completed", ok);
        }
        return w.r;
}

/* ---- The rest of the table. */

#define LOC_FIELD(nm, d) \
        { .name = nm, .type = ENG_T_ENUM, .min = 0, .max = PF_N_LOCATIONS - 1, .choices = pf_location_choices, \
          .choice_text = pf_location_text, .optional = true, .def = ENG_ABSENT, .doc = d }
static const struct eng_field pick_fields[] = {
        [PF_PICK_CARD] = { .name = "card", .type = ENG_T_HANDLE,
                           .doc = "A face-up power card (a pile's top), by its handle; after a charge use, the "
                                  "drawn card." },
        [PF_PICK_SHIP] = { .name = "ship", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1,
                           .choices = pf_ship_choices,
                           .doc = "The ship to move: the current player's or a teammate's." },
        [PF_PICK_START_AT] = LOC_FIELD("start_at", "A ship off the board: where it is put (default the starting "
                                                   "planet; another location of its board when crowded)."),
        [PF_PICK_RELOCATE_TO] = LOC_FIELD("relocate_to", "B6: the planet (not the goal) the ship is moved to "
                                                         "first; B10: where a card's length took it."),
        [PF_PICK_BEAM_AT] = LOC_FIELD("beam_at", "B4: where the beam is placed; A3: the beam in place of the "
                                                 "ship (where it was)."),
};
#undef LOC_FIELD
static const struct eng_field shot_fields[] = {
        { .name = "outbound", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1,
                               .choices = pf_ship_choices, .max_count = PF_N_SHIPS, .optional = true,
                               .doc = "The ships that touch the table now (outbound), the moved one included." },
        { .name = "stacked", .type = ENG_T_BOOL, .max = 1, .optional = true,
                              .doc = "The moved ship came to rest on another ship or a beam: it is outbound." },
        { .name = "collided", .type = ENG_T_BOOL, .max = 1, .optional = true,
                               .doc = "The moved ship touched another ship or a beam (no restart then)." },
        { .name = "at", .type = ENG_T_ENUM, .min = 0, .max = PF_N_LOCATIONS - 1,
                         .choices = pf_location_choices, .choice_text = pf_location_text, .max_count = PF_MAX_AT,
                         .optional = true,
                         .doc = "Every location the moved ship touches now; [] or [\"none\"] for open space." },
        { .name = "knocked", .type = ENG_T_ENUM, .min = 0, .max = PF_N_SHIPS - 1,
                              .choices = pf_ship_choices, .max_count = PF_MAX_KNOCKED, .optional = true,
                              .doc = "The other ships the moved ship knocked." },
        { .name = "knocked_at", .type = ENG_T_ENUM, .min = 0, .max = PF_N_LOCATIONS - 1,
                                 .choices = pf_location_choices, .choice_text = pf_location_text,
                                 .max_count = PF_MAX_KNOCKED, .optional = true,
                                 .doc = "Where each knocked ship ended, in the same order (\"none\": open space "
                                        "or out)." },
        { .name = "beams_knocked", .type = ENG_T_INT, .min = 0, .max = PF_BEAMS,
                                    .optional = true, .def = 0, .unit = "beams",
                                    .doc = "Beams knocked: they leave the board." },
        { .name = "springboard_failed", .type = ENG_T_BOOL, .max = 1,
                                         .optional = true,
                                         .doc = "A5: the ship stayed on the springboard; it goes back, the move "
                                                "failed." },
};
static const struct eng_field charge_fields[] = {
        [PF_CHARGE_CHOICE] = { .name = "choice", .type = ENG_T_ENUM, .min = 0, .max = PF_CHARGE_KEEP,
                               .choices = charge_choices, .choice_text = charge_text,
                               .doc = "use: an extra attempt now with the drawn card; keep: face down." },
};
static const struct eng_field attempt_fields[] = {
        [PF_ATTEMPT_RESULT] = { .name = "result", .type = ENG_T_ENUM, .min = 0, .max = PF_RESULT_FAILURE,
                                .choices = result_choices, .choice_text = result_text,
                                .doc = "success (within the move limit) or failure (an outbound, a broken rule, "
                                       "too many moves)." },
        [PF_ATTEMPT_MOVES] = { .name = "moves", .type = ENG_T_INT, .min = 1, .max = PF_MAX_CHALLENGE_MOVES,
                               .doc = "The moves the try took." },
};

static const struct eng_input_def pf_actions[PF_N_ACTIONS] = {
        [PF_ACTION_PICK] = {
                .name = "pick", .from = ENG_FROM_REFEREE, .fields = pick_fields, .n_fields = ELEMENTSOF(pick_fields),
                .doc = "The current player takes a face-up power card and chooses a ship of their team.",
        },
        [PF_ACTION_SHOT] = {
                .name = "shot", .from = ENG_FROM_REFEREE, .fields = shot_fields, .n_fields = ELEMENTSOF(shot_fields),
                .doc = "The attempt's outcome; its score changes are pending until end_turn.",
        },
        [PF_ACTION_RESTART] = {
                .name = "restart", .from = ENG_FROM_REFEREE,
                .doc = "The restart card (no collision): the ship back where it began, the same card again.",
        },
        [PF_ACTION_CHARGE] = {
                .name = "charge", .from = ENG_FROM_REFEREE, .fields = charge_fields,
                .n_fields = ELEMENTSOF(charge_fields),
                .doc = "Answers a charging satellite's draw: use it at once or keep it face down.",
        },
        [PF_ACTION_END_TURN] = {
                .name = "end_turn", .from = ENG_FROM_REFEREE,
                .doc = "Confirms the attempt: its pending changes are made and the turn ends.",
        },
        [PF_ACTION_FOUL] = {
                .name = "foul", .from = ENG_FROM_REFEREE,
                .doc = "Voids the attempt (a touched ship, a push, a player off their place): the card is spent.",
        },
        [PF_ACTION_ATTEMPT] = {
                .name = "attempt", .from = ENG_FROM_REFEREE, .fields = attempt_fields,
                .n_fields = ELEMENTSOF(attempt_fields),
                .doc = "Solo: one try at the face-up challenge card.",
        },
};

/* A referee keypad (docs/protocol.md section 7): Enter ends the turn, a key
 * restarts, two pause and resume the table. */
static const struct eng_route pf_routes[] = {
        /* The keys as docs/protocol.md labels them: Enter ends the turn,
         * Clear clears the attempt (a foul), digit 1 plays the restart
         * card; Undo (12) is left to the console, whose undo names its
         * input. */
        { .role = ENG_ROLE_KEYPAD, .button = 10, .kind = ENG_ROUTE_INPUT, .input = "end_turn" },
        { .role = ENG_ROLE_KEYPAD, .button = 11, .kind = ENG_ROUTE_INPUT, .input = "foul" },
        { .role = ENG_ROLE_KEYPAD, .button = 1, .kind = ENG_ROUTE_INPUT, .input = "restart" },
        { .role = ENG_ROLE_KEYPAD, .button = 13, .kind = ENG_ROUTE_INPUT, .input = "resume" },
        { .role = ENG_ROLE_KEYPAD, .button = 14, .kind = ENG_ROUTE_INPUT, .input = "pause" },
};

static const struct eng_field pf_view_fields[] = {
        { .name = "status", .type = ENG_T_ENUM, .doc = "ready, running, paused (the operator's) or finished." },
        { .name = "mode", .type = ENG_T_ENUM, .doc = "race (2..6 players) or solo (1)." },
        { .name = "phase", .type = ENG_T_ENUM,
          .doc = "ready, pick, shot, decide, charge, attempt (solo) or finished." },
        { .name = "layout", .type = ENG_T_OBJECT,
          .doc = "The nine boards: position (row, col), planet, and each location's id, kind, stars and circle." },
        { .name = "seats", .type = ENG_T_OBJECT,
          .doc = "Each seat: score, team and ship this stage, restart card, kept cards (a count) and score terms." },
        { .name = "last_turn", .type = ENG_T_OBJECT,
          .doc = "The changes of the last turn (or of the turn under way once it made one), each with its rule." },
        { .name = "stage", .type = ENG_T_INT, .doc = "Race: the stage, from 1." },
        { .name = "stages", .type = ENG_T_INT, .doc = "Race: stages in all (planet cards − 1)." },
        { .name = "round", .type = ENG_T_INT, .doc = "Race: the round of the stage, 1..3." },
        { .name = "current_seat", .type = ENG_T_SEAT, .doc = "Race: whose turn it is; null before and after." },
        { .name = "starting_seat", .type = ENG_T_SEAT, .doc = "Race: who holds the starting player token." },
        { .name = "start_planet", .type = ENG_T_ENUM, .doc = "Race: the starting planet." },
        { .name = "goal_planet", .type = ENG_T_ENUM, .doc = "Race: the goal planet." },
        { .name = "piles", .type = ENG_T_OBJECT,
          .doc = "Race: each seat's pile: its face-up top (a card, or null) and the cards left." },
        { .name = "deck_left", .type = ENG_T_INT, .doc = "Race: cards in the power deck." },
        { .name = "discards", .type = ENG_T_INT, .doc = "Race: cards in the discard pile." },
        { .name = "ships", .type = ENG_T_OBJECT,
          .doc = "Race: the ships dealt this stage: team, owner, on the board, the locations it touches." },
        { .name = "records", .type = ENG_T_OBJECT, .doc = "Race: each ship's record token: on the goal or not." },
        { .name = "bonus_token", .type = ENG_T_BOOL, .doc = "Race: the 3 VP token is on the goal." },
        { .name = "beams_on_board", .type = ENG_T_INT, .doc = "Race: magnetic beams on the board." },
        { .name = "turn", .type = ENG_T_OBJECT,
          .doc = "Race: the turn under way: seat, card, ship, where it began, the pending changes with their "
                 "rules, whether a restart is possible and whether a charging draw waits; null between turns." },
        { .name = "challenge", .type = ENG_T_OBJECT,
          .doc = "Solo: the face-up challenge: number, set-up, goal, VP, VP left, moves, fingers, card." },
        { .name = "challenges_left", .type = ENG_T_INT, .doc = "Solo: challenge cards not done yet." },
        { .name = "challenges_done", .type = ENG_T_OBJECT, .doc = "Solo: each card done: number, result, VP." },
        { .name = "total", .type = ENG_T_INT, .doc = "Solo: the VP gained." },
        { .name = "evaluation", .type = ENG_T_ENUM, .doc = "Solo: the evaluation at the end; null before." },
        { .name = "you", .type = ENG_T_OBJECT, .audience = ENG_VIEW_SEAT,
          .doc = "The viewer's seat and, while it answers a charging draw, the card drawn." },
        { .name = "referee", .type = ENG_T_OBJECT, .audience = ENG_VIEW_REFEREE,
          .doc = "The card drawn at a charging satellite, while it waits for use or keep." },
};

const struct eng_game pf_game = {
        .name = "pitch-fleet",
        .display_name = "Pitch Fleet",
        .description = "Flick starships across nine planet boards to the goal planet, with a power card for each "
                       "shot; teams are dealt anew each stage of three rounds, scoring is individual.  A referee "
                       "(or the players on a tablet) reports each shot and arbiter keeps the deck, the turns and "
                       "every score with its rule.  2 to 6 players, or 1 for the solo challenges.",
        .min_seats = PF_MIN_SEATS,
        .max_seats = PF_MAX_SEATS,
        .params = pf_params,
        .n_params = PF_N_PARAMS,
        .data = pf_data,
        .n_data = ELEMENTSOF(pf_data),
        .actions = pf_actions,
        .n_actions = PF_N_ACTIONS,
        .builtins = 0,
        .events = pf_events,
        .n_events = ELEMENTSOF(pf_events),
        .routes = pf_routes,
        .n_routes = ELEMENTSOF(pf_routes),
        .terms = pf_term_names,
        .n_terms = PF_N_TERMS,
        .view = pf_view_fields,
        .n_view = ELEMENTSOF(pf_view_fields),
        .state_size = sizeof(struct pf_state),
        /* The most one input makes: an end_turn's score changes (at most 18
         * with its record token: examine()) and a stage's end (turn_ended,
         * round_ended, team_bonus and up to 3 bonuses, stage_started,
         * teams_dealt, restart_cards_given, round_started, turn_started,
         * match_finished): 30. */
        .max_outputs = 31,
        .validate = pf_validate,
        .create = pf_create,
        .apply = pf_apply,
        .status = pf_status,
        .wake_us = pf_wake_us,
        .view_visit = pf_view_visit,
        .hash = pf_hash,
        .result = pf_result,
        .card_face = pf_card_face,
        .game_pause = NULL,
        .stats = pf_stats,
        .perturb_hidden = pf_perturb_hidden,
};
