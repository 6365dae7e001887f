/* engine/crazy_pilot.c — the rules of Crazy Pilot ("crazy-pilot"); the
 * header says what this file owns, the state diagram and the invariants;
 * docs/games/crazy-pilot.md has every clause (Z1..Z41) with its test and
 * every decision with its reason.
 *
 * The rules, as implemented (the clause numbers are the issue's):
 *   - Set-up (Z1..Z7): the catalogue's cards are shuffled with the match
 *     seed; 20 each are dealt round by round (18 with 5 seats, 15 with 6),
 *     the rest go to the box.  Seat s plays the pile dealt for seat s − 1.
 *     Two seats (Z36..Z38): the zombie cards are taken out first, 20 each
 *     are dealt from the rest, three zombie cards (the first of the shuffled
 *     zombie cards) go back into each pile and each pile is shuffled again.
 *   - START (Z8, Z9): every seat's first situation card comes up at once.
 *   - A resolution (Z10..Z13): a button (0..4) or the resolve action puts
 *     the face-up card on one of the five stacks; the next card comes up.
 *     The pile's last card resolved, the starting card shows (Z23).
 *   - A shout (Z14..Z16; button 5, the shout action, or the slap pad when
 *     zombie.slap_shouts): the table pauses (game_pause "zombie"), every
 *     other seat must slap.  Shouts pressed within zombie.grace_ms of the
 *     first join it (Z21).  A resolution pressed before the first shout
 *     stands; one pressed after it is refused (too_late).
 *   - The race ends when every racer has slapped, or at the deadline: each
 *     shouted card goes under the car (a zombie, Z17) or aside (none,
 *     Z18); if any had a zombie (Z19, Z22), the last slapper takes a
 *     penalty card — every racer that had not slapped by the deadline
 *     takes one instead; slaps that cannot be told apart from the latest
 *     within their uncertainties all count as last.
 *   - "Driiiiive!" (Z20): the earliest shouter's slap pad or drive, a
 *     referee's drive, or zombie.resume_ms after the race.
 *   - The end (Z23..Z26): the first starting card revealed starts ENDING,
 *     which waits zombie.grace_ms; a resolution pressed by then (within the
 *     presses' uncertainties) stands, and a second starting card that
 *     cannot be told apart from the first shares the finish card.  Then
 *     every unresolved card is discarded and every seat scored.
 *   - Scoring (Z27..Z35): cz_stack_accepts() per card; terms per seat.
 *   - Two players (Z39..Z41): a shout sends the face-up card in front of
 *     the other seat (no race); that seat may cover it (cover, final); the
 *     four end cases are the terms front and bluffs.
 *   - A referee may move a card between the five stacks of a seat (move)
 *     until the match is over.
 *
 * Every handler decides whether to refuse before it changes anything, so
 * that a refused input leaves the state (and its hash) as it was.
 */
#include "engine/crazy_pilot.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/hash.h"
#include "engine/walk.h"

#define CZ_MAGIC                UINT32_C(0x435a5031)    /* "CZP1" */
/* Bumped whenever the canonical serialisation (cz_hash) changes. */
#define CZ_HASH_VERSION         1

#define US_PER_MS               INT64_C(1000)
#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))
/* Result keys: a score plus this bias is never negative; the lowest bit
 * says "no finish card" (the tie-break, Z35). */
#define KEY_SCORE_BIAS          (INT64_C(1) << 40)

/* ---- Schema. */

static const char *const fork_choices[] = { "matching", "either" };
static const char *const fork_text[] = { "straight or the matching turn", "straight or either turn" };

static const struct eng_field cz_params[CZ_N_PARAMS] = {
        [CZ_PARAM_FORK_TURNS] = {
                .name = "fork.turns", .type = ENG_T_ENUM, .min = 0, .max = CZ_FORK_EITHER, .def = CZ_FORK_MATCHING,
                .choices = fork_choices, .choice_text = fork_text,
                .doc = "Where a fork card (left-and-straight, right-and-straight) is correct besides the straight "
                       "stack: matching, its own turn's stack; either, both turn stacks.",
        },
        [CZ_PARAM_SLAP_DEADLINE_MS] = {
                .name = "zombie.slap_deadline_ms", .type = ENG_T_INT, .min = CZ_DEADLINE_MIN_MS,
                .max = CZ_DEADLINE_MAX_MS, .def = CZ_DEADLINE_DEFAULT_MS, .unit = "ms",
                .doc = "How long after the shout a racer may slap; one that has not slapped by then counts as last.",
        },
        [CZ_PARAM_GRACE_MS] = {
                .name = "zombie.grace_ms", .type = ENG_T_INT, .min = 0, .max = CZ_GRACE_MAX_MS,
                .def = CZ_GRACE_DEFAULT_MS, .unit = "ms",
                .doc = "Shouts pressed within this of the first are simultaneous; the end of the game waits this "
                       "long for a second starting card.",
        },
        [CZ_PARAM_RESUME_MS] = {
                .name = "zombie.resume_ms", .type = ENG_T_INT, .min = CZ_RESUME_MIN_MS, .max = CZ_RESUME_MAX_MS,
                .def = CZ_RESUME_DEFAULT_MS, .unit = "ms",
                .doc = "How long after a race play resumes by itself when the shouter has not said Driiiiive.",
        },
        [CZ_PARAM_SLAP_SHOUTS] = {
                .name = "zombie.slap_shouts", .type = ENG_T_BOOL, .min = 0, .max = 1, .def = 0,
                .doc = "A slap-pad press outside a race is a shout (for tables without a zombie button).",
        },
};

static const struct eng_data_def cz_data[] = {
        [CZ_DATA_CARDS] = {
                .name = "cards", .builtin = cz_builtin_cards, .max_len = CZ_CARDS_MAX_LEN,
                .doc = "The situation cards: one card per line, its id, the answer on its back, its scene and "
                       "its text (docs/games/crazy-pilot-cards.md); the built-in catalogue has the rulebook's 94.",
        },
};

static const char *const place_choices[CZ_N_PLACEMENTS] = {
        "straight", "left", "right", "u_turn", "hand", "under_car", "set_aside", "front",
};
static const char *const place_text[CZ_N_PLACEMENTS] = {
        "straight ahead (above the car)", "left (left of the car)", "right (right of the car)",
        "a U-turn (below the car)", "the hand (under the draw pile)", "under the car", "set aside face down",
        "in front of the other player",
};
static const char *const zone_names[CZ_N_ZONES] = {
        "straight", "left", "right", "u_turn", "hand", "under_car", "set_aside", "front", "discard",
};
static const char *const reason_choices[] = { "last_slap", "no_slap" };
static const char *const reason_text[] = { "the last slap", "no slap by the deadline" };
static const char *const by_choices[] = { "shouter", "referee", "timeout" };
static const char *const by_text[] = { "the shouter", "the referee", "the time running out" };

const char *cz_placement_name(unsigned place) {
        return place < CZ_N_PLACEMENTS ? place_choices[place] : NULL;
}

/* ---- Small helpers. */

static inline uint32_t seat_bit(int s) {
        return UINT32_C(1) << s;
}

static uint32_t all_seats(const struct cz_state *st) {
        return (UINT32_C(1) << st->n_seats) - 1;
}

static unsigned popcount32(uint32_t x) {
        unsigned n = 0;

        for (; x; x &= x - 1)
                n++;
        return n;
}

static bool seat_ok(const struct cz_state *st, int seat) {
        return seat >= 0 && seat < st->n_seats;
}

static bool has_card(const struct cz_state *st, int s) {
        return st->seats[s].pile_pos < st->seats[s].pile_len;
}

static uint8_t face_up(const struct cz_state *st, int s) {
        return st->seats[s].pile[st->seats[s].pile_pos];
}

static int64_t abs64(int64_t x) {
        return x < 0 ? -x : x;
}

unsigned cz_cards_per_player(unsigned n_seats) {
        switch (n_seats) {
        case 2:
        case 3:
        case 4:
                return 20;
        case 5:
                return 18;
        case 6:
                return 15;
        }
        return 0;
}

bool cz_stack_accepts(unsigned place, unsigned answer, unsigned fork) {
        bool either = fork == CZ_FORK_EITHER;

        switch (place) {
        case CZ_PLACE_STRAIGHT:
                return answer == CZ_ANS_STRAIGHT || answer == CZ_ANS_FORK_LEFT || answer == CZ_ANS_FORK_RIGHT;
        case CZ_PLACE_LEFT:
                return answer == CZ_ANS_LEFT || answer == CZ_ANS_FORK_LEFT || (either && answer == CZ_ANS_FORK_RIGHT);
        case CZ_PLACE_RIGHT:
                return answer == CZ_ANS_RIGHT || answer == CZ_ANS_FORK_RIGHT ||
                       (either && answer == CZ_ANS_FORK_LEFT);
        case CZ_PLACE_UTURN:
                return answer == CZ_ANS_UTURN;
        case CZ_PLACE_HAND:
                return answer == CZ_ANS_HAND;
        case CZ_PLACE_UNDER_CAR:
                return answer == CZ_ANS_ZOMBIE;
        }
        return false;
}

uint32_t cz_handle(const struct cz_state *st, unsigned card) {
        return eng_handle(st->handle_key, card);
}

int cz_card_of(const struct cz_state *st, uint32_t handle, unsigned *ret_card) {
        uint32_t card = eng_handle_card(st->handle_key, handle);

        if (card >= st->cat.n)
                return -ENOENT;
        *ret_card = card;
        return 0;
}

static bool is_zombie(const struct cz_state *st, unsigned card) {
        return st->cat.cards[card].zombie;
}

/* The index of card in seat s's zone z, or -1. */
static int zone_find(const struct cz_state *st, int s, unsigned z, unsigned card) {
        for (unsigned i = 0; i < st->seats[s].zone_len[z]; i++)
                if (st->seats[s].zone[z][i] == card)
                        return (int) i;
        return -1;
}

static void zone_push(struct cz_state *st, int s, unsigned z, uint8_t card) {
        struct cz_seat *p = &st->seats[s];

        p->zone[z][p->zone_len[z]++] = card;
}

/* ---- Scoring (Z27..Z35, Z41). */

void cz_terms(const struct cz_state *st, int seat, int64_t terms[CZ_N_TERMS]) {
        const struct cz_seat *p = &st->seats[seat];

        memset(terms, 0, CZ_N_TERMS * sizeof terms[0]);
        for (unsigned z = CZ_PLACE_STRAIGHT; z <= CZ_PLACE_UNDER_CAR; z++)
                for (unsigned i = 0; i < p->zone_len[z]; i++) {
                        unsigned answer = st->cat.cards[p->zone[z][i]].answer;

                        if (cz_stack_accepts(z, answer, st->fork))
                                terms[CZ_TERM_CORRECT]++;
                        else
                                terms[CZ_TERM_WRONG]--;
                }
        terms[CZ_TERM_FINISH] = p->finish ? 2 : 0;
        terms[CZ_TERM_PENALTIES] = -(int64_t) p->penalties;
        terms[CZ_TERM_SET_ASIDE] = -(int64_t) p->zone_len[CZ_PLACE_SET_ASIDE];
        if (!st->two_player)
                return;
        /* Z41: the cards in front of this seat cost it a point when they
         * had a zombie and were not covered, or had none and were covered;
         * a card without a zombie that was not covered costs its sender. */
        for (unsigned i = 0; i < p->zone_len[CZ_PLACE_FRONT]; i++) {
                bool zombie = is_zombie(st, p->zone[CZ_PLACE_FRONT][i]);
                bool covered = p->covered & seat_bit((int) i);

                if (zombie != covered)
                        terms[CZ_TERM_FRONT]--;
        }
        {
                const struct cz_seat *o = &st->seats[1 - seat];

                for (unsigned i = 0; i < o->zone_len[CZ_PLACE_FRONT]; i++)
                        if (!is_zombie(st, o->zone[CZ_PLACE_FRONT][i]) && !(o->covered & seat_bit((int) i)))
                                terms[CZ_TERM_BLUFFS]--;
        }
}

static int64_t score_of(const struct cz_state *st, int seat) {
        int64_t terms[CZ_N_TERMS], sum = 0;

        cz_terms(st, seat, terms);
        for (unsigned t = 0; t < CZ_N_TERMS; t++)
                sum += terms[t];
        return sum;
}

static void fill_result(const struct cz_state *st, struct eng_result *ret) {
        uint64_t key[ENG_MAX_SEATS] = { 0 };
        unsigned firsts = 0;

        memset(ret, 0, sizeof *ret);
        ret->finished = st->phase == CZ_PHASE_FINISHED;
        ret->n_seats = st->n_seats;
        for (int s = 0; s < st->n_seats; s++) {
                cz_terms(st, s, ret->terms[s]);
                key[s] = ((uint64_t) (KEY_SCORE_BIAS - score_of(st, s)) << 1) | (st->seats[s].finish ? 0 : 1);
        }
        eng_result_rank(ret, key);
        eng_result_sum(ret, CZ_N_TERMS);
        ret->winner = ENG_SEAT_TABLE;
        for (int s = 0; s < st->n_seats; s++)
                if (ret->place[s] == 1)
                        firsts++;
        if (ret->finished && firsts == 1)
                ret->winner = ret->order[0];
}

static int cz_result(const void *state, struct eng_result *ret) {
        const struct cz_state *st = state;

        if (!st || !ret || st->magic != CZ_MAGIC)
                return -EINVAL;
        fill_result(st, ret);
        return 0;
}

/* ---- Validation and set-up. */

/* Whether the catalogue has the cards n_seats need: 0 or -EINVAL. */
static int enough_cards(const struct cz_catalogue *cat, unsigned n_seats, struct eng_error *ret_err) {
        unsigned zombies = 0, per = cz_cards_per_player(n_seats);

        for (unsigned i = 0; i < cat->n; i++)
                zombies += cat->cards[i].zombie;
        if (n_seats == 2) {
                if (cat->n - zombies < 2 * per || zombies < 2 * CZ_TWO_PLAYER_ZOMBIES)
                        return eng_error_set(ret_err, "data.cards",
                                             "holds %u cards without a zombie and %u with one; two players need "
                                             "%u and %u", cat->n - zombies, zombies, 2 * per,
                                             2 * CZ_TWO_PLAYER_ZOMBIES);
                return 0;
        }
        if (cat->n < per * n_seats)
                return eng_error_set(ret_err, "data.cards", "holds %u cards; %u players need %u", cat->n, n_seats,
                                     per * n_seats);
        return 0;
}

static int parse_cards(const struct eng_data *data, struct cz_catalogue *ret, uint64_t *ret_digest,
                       struct eng_error *ret_err) {
        const char *text;
        size_t len;

        if (eng_data_file(&cz_game, data, CZ_DATA_CARDS, &text, &len) < 0)
                return eng_error_set(ret_err, "data.cards", "cannot be read");
        if (len > CZ_CARDS_MAX_LEN)
                return eng_error_set(ret_err, "data.cards", "is %zu bytes; at most %d are accepted", len,
                                     CZ_CARDS_MAX_LEN);
        if (cz_catalogue_parse(text, len, ret, ret_err) < 0)
                return -EINVAL;
        if (ret_digest)
                *ret_digest = eng_fnv1a64(text, len);
        return 0;
}

/* eng_config_validate has checked the seats and every range already; they
 * are checked again because create() calls this directly. */
static int cz_validate(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                       struct eng_error *ret_err) {
        struct cz_catalogue cat;        /* about 22 KB of stack, for the check only */

        if (!cfg)
                return -EINVAL;
        if (n_seats < CZ_MIN_SEATS || n_seats > CZ_MAX_SEATS)
                return eng_error_set(ret_err, "seats", "must be %d..%d", CZ_MIN_SEATS, CZ_MAX_SEATS);
        for (unsigned p = 0; p < CZ_N_PARAMS; p++)
                if (eng_value_check(&cz_params[p], cz_params[p].name, cfg->v[p], ret_err) < 0)
                        return -EINVAL;
        if (parse_cards(data, &cat, NULL, ret_err) < 0)
                return -EINVAL;
        return enough_cards(&cat, n_seats, ret_err);
}

/* Z1..Z7: shuffle, deal, pass the piles on; two players, Z36..Z38. */
static void deal(struct cz_state *st, struct eng_rng *rng) {
        uint8_t order[CZ_MAX_CARDS], rest[CZ_MAX_CARDS], zombies[CZ_MAX_CARDS];
        unsigned n = st->cat.n, per = cz_cards_per_player(st->n_seats), n_rest = 0, n_zombies = 0;

        for (unsigned i = 0; i < n; i++)
                order[i] = (uint8_t) i;
        eng_rng_shuffle_u8(rng, order, n);
        for (unsigned i = 0; i < n; i++) {
                if (st->two_player && is_zombie(st, order[i]))
                        zombies[n_zombies++] = order[i];
                else
                        rest[n_rest++] = order[i];
        }
        /* Round by round from seat 0: card k to seat k mod n, top first. */
        for (unsigned k = 0; k < per * st->n_seats; k++) {
                struct cz_seat *p = &st->seats[k % st->n_seats];

                p->dealt[p->dealt_len++] = rest[k];
        }
        for (unsigned k = per * st->n_seats; k < n_rest; k++)
                st->box[st->box_len++] = rest[k];
        if (st->two_player) {
                for (unsigned s = 0; s < st->n_seats; s++) {
                        struct cz_seat *p = &st->seats[s];

                        for (unsigned z = 0; z < CZ_TWO_PLAYER_ZOMBIES; z++)
                                p->dealt[p->dealt_len++] = zombies[s * CZ_TWO_PLAYER_ZOMBIES + z];
                        eng_rng_shuffle_u8(rng, p->dealt, p->dealt_len);
                }
                for (unsigned k = st->n_seats * CZ_TWO_PLAYER_ZOMBIES; k < n_zombies; k++)
                        st->box[st->box_len++] = zombies[k];
        }
        /* Z5: seat s plays the pile dealt for seat s − 1. */
        for (unsigned s = 0; s < st->n_seats; s++) {
                const struct cz_seat *from = &st->seats[(s + st->n_seats - 1) % st->n_seats];
                struct cz_seat *p = &st->seats[s];

                memcpy(p->pile, from->dealt, from->dealt_len);
                p->pile_len = from->dealt_len;
        }
}

static int cz_create(void *state, const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                     uint64_t seed) {
        struct cz_state *st = state;
        struct eng_rng rng;

        if (!st || !cfg || cz_validate(cfg, data, n_seats, NULL) < 0)
                return -EINVAL;
        memset(st, 0, sizeof *st);
        if (parse_cards(data, &st->cat, &st->catalogue_digest, NULL) < 0)
                return -EINVAL;
        st->magic = CZ_MAGIC;
        st->n_seats = (uint8_t) n_seats;
        st->two_player = n_seats == 2;
        st->fork = (uint8_t) cfg->v[CZ_SLOT_FORK_TURNS];
        st->deadline_us = cfg->v[CZ_SLOT_SLAP_DEADLINE_MS] * US_PER_MS;
        st->grace_us = cfg->v[CZ_SLOT_GRACE_MS] * US_PER_MS;
        st->resume_us = cfg->v[CZ_SLOT_RESUME_MS] * US_PER_MS;
        st->slap_shouts = cfg->v[CZ_SLOT_SLAP_SHOUTS] != 0;
        st->seed = seed;
        st->handle_key = eng_handle_key(seed);
        eng_rng_seed(&rng, seed);
        deal(st, &rng);
        st->phase = CZ_PHASE_READY;
        st->wake_us = ENG_NEVER;
        st->race.first = -1;
        return 0;
}

/* ---- Events.  Each event's fields are its slots in order (crazy_pilot.h
 * names the positions). */

static const struct eng_field shown_fields[] = {
        [CZ_SHOWN_CARD] = { .name = "card", .type = ENG_T_CARD, .doc = "The seat's new face-up situation card." },
        [CZ_SHOWN_NUMBER] = { .name = "number", .type = ENG_T_INT, .min = 1, .max = CZ_MAX_PILE,
                              .doc = "Its place in the seat's pile, 1 for the first." },
};
static const struct eng_field resolved_fields[] = {
        [CZ_RESOLVED_PLACEMENT] = { .name = "placement", .type = ENG_T_ENUM, .min = 0, .max = CZ_PLACE_HAND,
                                    .choices = place_choices, .choice_text = place_text,
                                    .doc = "Where the card went: straight, left, right, u_turn or hand." },
        [CZ_RESOLVED_REACTION] = { .name = "reaction_us", .type = ENG_T_INT, .min = 0, .max = ENG_TIME_LIMIT_US,
                                   .unit = "µs", .doc = "From the card coming up (or play resuming) to the press." },
        [CZ_RESOLVED_CARD] = { .name = "card", .type = ENG_T_CARD, .audience = ENG_VIEW_SEAT,
                               .doc = "The card resolved: for its seat only (its verdict waits for the scoring)." },
};
static const struct eng_field called_fields[] = {
        [CZ_CALLED_SEATS] = { .name = "seats", .type = ENG_T_SEATS, .doc = "The seats that shouted, so far." },
        [CZ_CALLED_RACERS] = { .name = "racers", .type = ENG_T_SEATS, .doc = "The seats that must slap." },
        [CZ_CALLED_DEADLINE] = { .name = "deadline_us", .type = ENG_T_TIME, .optional = true,
                                 .doc = "A slap pressed after this counts as none." },
};
static const struct eng_field slap_fields[] = {
        [CZ_SLAP_ORDER] = { .name = "order", .type = ENG_T_INT, .min = 1, .max = CZ_MAX_SEATS,
                            .doc = "1 for the first slap of the race, and so on, as they came." },
        [CZ_SLAP_GAP] = { .name = "gap_us", .type = ENG_T_INT, .min = -ENG_TIME_LIMIT_US, .max = ENG_TIME_LIMIT_US,
                          .optional = true, .unit = "µs",
                          .doc = "Its press time less the previous slap's; null for the first." },
        [CZ_SLAP_UNCERTAINTY] = { .name = "uncertainty_us", .type = ENG_T_INT, .min = 0, .max = ENG_TIME_LIMIT_US,
                                  .unit = "µs", .doc = "± the pad clock's error bound on its press time." },
        [CZ_SLAP_REACTION] = { .name = "reaction_us", .type = ENG_T_INT, .min = 0, .max = ENG_TIME_LIMIT_US,
                               .unit = "µs", .doc = "From the first shout's press to this slap's." },
};
static const struct eng_field checked_fields[] = {
        [CZ_CHECKED_ZOMBIE] = { .name = "zombie", .type = ENG_T_BOOL,
                                .doc = "Whether the shouted card really shows a zombie." },
        [CZ_CHECKED_PLACEMENT] = { .name = "placement", .type = ENG_T_ENUM, .min = 0, .max = CZ_PLACE_FRONT,
                                   .choices = place_choices, .choice_text = place_text,
                                   .doc = "under_car (a zombie: +1) or set_aside (none: −1)." },
};
static const struct eng_field penalty_fields[] = {
        [CZ_PENALTY_REASON] = { .name = "reason", .type = ENG_T_ENUM, .min = 0, .max = CZ_REASON_NO_SLAP,
                                .choices = reason_choices, .choice_text = reason_text,
                                .doc = "last_slap: the last to slap; no_slap: no slap by the deadline." },
};
static const struct eng_field resumed_fields[] = {
        [CZ_RESUMED_BY] = { .name = "by", .type = ENG_T_ENUM, .min = 0, .max = CZ_BY_TIMEOUT,
                            .choices = by_choices, .choice_text = by_text,
                            .doc = "shouter (the earliest shouter's Driiiiive), referee or timeout." },
};
static const struct eng_field revealed_fields[] = {
        [CZ_REVEALED_PRESS] = { .name = "press_us", .type = ENG_T_TIME,
                                .doc = "When the press that turned the starting card up was made." },
};
static const struct eng_field sent_fields[] = {
        [CZ_SENT_TO_SEAT] = { .name = "to_seat", .type = ENG_T_SEAT, .doc = "The seat the card is placed in front of." },
        [CZ_SENT_CARD] = { .name = "card", .type = ENG_T_CARD, .audience = ENG_VIEW_SEAT,
                           .doc = "The card sent: for the sender (the other seat sees it in its view)." },
};
static const struct eng_field covered_fields[] = {
        [CZ_COVERED_CARD] = { .name = "card", .type = ENG_T_CARD, .audience = ENG_VIEW_SEAT,
                              .doc = "The card in front of the seat that it covered with a penalty card." },
};
static const struct eng_field moved_fields[] = {
        [CZ_MOVED_CARD] = { .name = "card", .type = ENG_T_CARD, .audience = ENG_VIEW_REFEREE,
                            .doc = "The card moved: for the referee only." },
        [CZ_MOVED_FROM] = { .name = "from", .type = ENG_T_ENUM, .min = 0, .max = CZ_PLACE_HAND,
                            .choices = place_choices, .choice_text = place_text, .doc = "The stack it was on." },
        [CZ_MOVED_TO] = { .name = "to", .type = ENG_T_ENUM, .min = 0, .max = CZ_PLACE_HAND,
                          .choices = place_choices, .choice_text = place_text, .doc = "The stack it is on now." },
};
#define TERM_FIELD(slot, nm, lo, hi, d) \
        [slot] = { .name = nm, .type = ENG_T_INT, .min = lo, .max = hi, .unit = "points", .doc = d }
static const struct eng_field scored_fields[] = {
        TERM_FIELD(CZ_SCORED_CORRECT, "correct", 0, CZ_MAX_CARDS, "+1 per card on the stack its back calls for."),
        TERM_FIELD(CZ_SCORED_WRONG, "wrong", -CZ_MAX_CARDS, 0, "−1 per card on another stack."),
        TERM_FIELD(CZ_SCORED_FINISH, "finish", 0, 2, "+2 for the finish card."),
        TERM_FIELD(CZ_SCORED_PENALTIES, "penalties", -INT64_C(1000000), 0, "−1 per penalty card."),
        TERM_FIELD(CZ_SCORED_SET_ASIDE, "set_aside", -CZ_MAX_CARDS, 0, "−1 per card set aside."),
        TERM_FIELD(CZ_SCORED_FRONT, "front", -CZ_MAX_CARDS, 0,
                   "2 players: −1 per card in front of the seat that costs it (Z41)."),
        TERM_FIELD(CZ_SCORED_BLUFFS, "bluffs", -CZ_MAX_CARDS, 0,
                   "2 players: −1 per card the seat sent without a zombie that was not covered."),
        TERM_FIELD(CZ_SCORED_SCORE, "score", -INT64_C(1000000), INT64_C(1000000), "The sum of the terms."),
};
#undef TERM_FIELD

const struct eng_event_def cz_ev_card_shown = {
        .name = "card_shown", .audience = ENG_VIEW_SEAT, .fields = shown_fields, .n_fields = ELEMENTSOF(shown_fields),
        .reveals = true, .text = "{seat} turns up card {number}: {card}.",
        .doc = "The seat's next situation card is face up: for that seat's station only.",
};
const struct eng_event_def cz_ev_card_resolved = {
        .name = "card_resolved", .fields = resolved_fields, .n_fields = ELEMENTSOF(resolved_fields),
        .text = "{seat} places a card {placement} after {reaction_us} µs.",
        .doc = "A seat resolved its face-up card; whether it was right shows only at the scoring.",
};
const struct eng_event_def cz_ev_zombie_called = {
        .name = "zombie_called", .fields = called_fields, .n_fields = ELEMENTSOF(called_fields),
        .text = "{seat} shouts Zombieeees! Shouters {seats}; {racers} must slap.",
        .doc = "A shout: the table pauses and every other seat must slap (again for each simultaneous shout).",
};
const struct eng_event_def cz_ev_slap_recorded = {
        .name = "slap_recorded", .fields = slap_fields, .n_fields = ELEMENTSOF(slap_fields),
        .text = "{seat} slaps, number {order}, {reaction_us} µs after the shout.",
        .doc = "A racer's slap, with its gap to the previous one and its clock uncertainty.",
};
const struct eng_event_def cz_ev_zombie_checked = {
        .name = "zombie_checked", .fields = checked_fields, .n_fields = ELEMENTSOF(checked_fields),
        .text = "{seat}'s card is checked: zombie {zombie}, it goes {placement}.",
        .doc = "The race is over: a shouter's card is checked and placed (one event per shouter).",
};
const struct eng_event_def cz_ev_penalty_given = {
        .name = "penalty_given", .fields = penalty_fields, .n_fields = ELEMENTSOF(penalty_fields),
        .text = "{seat} takes a penalty card for {reason}.",
        .doc = "A seat takes a penalty card (−1): the last slap after a real zombie, or no slap at all.",
};
const struct eng_event_def cz_ev_play_resumed = {
        .name = "play_resumed", .fields = resumed_fields, .n_fields = ELEMENTSOF(resumed_fields),
        .text = "Driiiiive! Play resumes, by {by}.",
        .doc = "Play resumes after a race; every face-up card counts its reaction from now.",
};
const struct eng_event_def cz_ev_starting_card_revealed = {
        .name = "starting_card_revealed", .fields = revealed_fields, .n_fields = ELEMENTSOF(revealed_fields),
        .text = "{seat} reveals their starting card: Watch Out!",
        .doc = "A seat's pile is done and its starting card shows: the game ends (after zombie.grace_ms).",
};
const struct eng_event_def cz_ev_card_sent = {
        .name = "card_sent", .fields = sent_fields, .n_fields = ELEMENTSOF(sent_fields),
        .text = "{seat} shouts and places a card in front of {to_seat}.",
        .doc = "2 players: a shout places the face-up card in front of the other seat (a bluff is allowed).",
};
const struct eng_event_def cz_ev_card_covered = {
        .name = "card_covered", .fields = covered_fields, .n_fields = ELEMENTSOF(covered_fields),
        .text = "{seat} covers a card in front of them with a penalty card.",
        .doc = "2 players: a seat covered a card in front of it; final.",
};
const struct eng_event_def cz_ev_card_moved = {
        .name = "card_moved", .fields = moved_fields, .n_fields = ELEMENTSOF(moved_fields),
        .text = "The referee moves a card of {seat} from {from} to {to}.",
        .doc = "A referee corrected a misfired placement.",
};
const struct eng_event_def cz_ev_seat_scored = {
        .name = "seat_scored", .fields = scored_fields, .n_fields = ELEMENTSOF(scored_fields), .reveals = true,
        .text = "{seat} scores {score}: {correct} correct, {wrong} wrong, {finish} finish, {penalties} penalties, "
                "{set_aside} set aside, {front} front, {bluffs} bluffs.",
        .doc = "The end: a seat's stacks are turned over and scored, term by term.",
};

static const struct eng_event_def *const cz_events[] = {
        &cz_ev_card_shown, &cz_ev_card_resolved, &cz_ev_zombie_called, &cz_ev_slap_recorded,
        &cz_ev_zombie_checked, &cz_ev_penalty_given, &cz_ev_play_resumed, &cz_ev_starting_card_revealed,
        &cz_ev_card_sent, &cz_ev_card_covered, &cz_ev_card_moved, &cz_ev_seat_scored,
};

/* ---- Transitions. */

/* Who holds a finish card (Z24, and the decision on simultaneous starting
 * cards): the earliest reveal, and every other that cannot be told apart
 * from it within the two presses' uncertainties. */
static void assign_finish(struct cz_state *st) {
        int first = -1;

        for (int s = 0; s < st->n_seats; s++)
                if (st->seats[s].revealed && (first < 0 || st->seats[s].reveal_us < st->seats[first].reveal_us))
                        first = s;
        for (int s = 0; s < st->n_seats; s++) {
                struct cz_seat *p = &st->seats[s];
                const struct cz_seat *f = &st->seats[first];

                p->finish = p->revealed && abs64(p->reveal_us - f->reveal_us) <=
                                                   p->reveal_uncertainty_us + f->reveal_uncertainty_us;
        }
        st->end_us = st->seats[first].reveal_us;
        st->end_uncertainty_us = st->seats[first].reveal_uncertainty_us;
}

/* Z23: seat's pile is done: its starting card shows.  The first one starts
 * ENDING, which waits zombie.grace_ms for another (a race in progress was
 * shouted after the end: it is called off, the shouted cards stay up and
 * are discarded). */
static void reveal_starting(struct cz_state *st, int s, int64_t press_us, int64_t unc, int64_t now,
                            struct eng_out *out) {
        struct cz_seat *p = &st->seats[s];
        struct eng_output *o;

        p->revealed = true;
        p->reveal_us = press_us;
        p->reveal_uncertainty_us = unc;
        o = eng_out_push(out, &cz_ev_starting_card_revealed, s, now);
        if (o)
                o->v[CZ_REVEALED_PRESS] = press_us;
        if (st->phase != CZ_PHASE_ENDING) {
                memset(&st->race, 0, sizeof st->race);
                st->race.first = -1;
                st->phase = CZ_PHASE_ENDING;
                st->wake_us = now + st->grace_us;
        }
        assign_finish(st);
}

/* The seat's next card comes up, or its starting card. */
static void next_card(struct cz_state *st, int s, int64_t press_us, int64_t unc, int64_t now,
                      struct eng_out *out) {
        struct cz_seat *p = &st->seats[s];
        struct eng_output *o;

        if (p->pile_pos >= p->pile_len) {
                reveal_starting(st, s, press_us, unc, now, out);
                return;
        }
        p->shown_us = now;
        o = eng_out_push(out, &cz_ev_card_shown, s, now);
        if (o) {
                o->v[CZ_SHOWN_CARD] = cz_handle(st, face_up(st, s));
                o->v[CZ_SHOWN_NUMBER] = p->pile_pos + 1;
        }
}

static void do_resolution(struct cz_state *st, int s, unsigned place, int64_t press_us, int64_t unc, int64_t now,
                          struct eng_out *out) {
        struct cz_seat *p = &st->seats[s];
        uint8_t card = face_up(st, s);
        int64_t reaction = press_us > p->shown_us ? press_us - p->shown_us : 0;
        struct eng_output *o;

        p->pile_pos++;
        zone_push(st, s, place, card);
        p->resolved++;
        p->reaction_sum_us += reaction;
        o = eng_out_push(out, &cz_ev_card_resolved, s, now);
        if (o) {
                o->v[CZ_RESOLVED_PLACEMENT] = place;
                o->v[CZ_RESOLVED_REACTION] = reaction;
                o->v[CZ_RESOLVED_CARD] = cz_handle(st, card);
        }
        next_card(st, s, press_us, unc, now, out);
}

static void emit_called(struct cz_state *st, int s, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &cz_ev_zombie_called, s, now);

        if (o) {
                o->v[CZ_CALLED_SEATS] = st->race.shouters;
                o->v[CZ_CALLED_RACERS] = st->race.racers;
                o->v[CZ_CALLED_DEADLINE] = st->race.deadline_us;
        }
}

static void give_penalty(struct cz_state *st, int s, enum cz_reason reason, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &cz_ev_penalty_given, s, now);

        st->seats[s].penalties++;
        st->race.penalized |= seat_bit(s);
        if (o)
                o->v[CZ_PENALTY_REASON] = reason;
}

/* The race is over (every racer slapped, or the deadline): Z17..Z19, Z21,
 * Z22.  The shouters' next cards come up (a pile done shows its starting
 * card: the end), and play waits for "Driiiiive!" (Z20). */
static void end_race(struct cz_state *st, int64_t now, struct eng_out *out) {
        struct cz_race *r = &st->race;
        struct eng_output *o;
        uint32_t shouters;

        r->missing = r->racers & ~r->slapped;
        for (int s = 0; s < st->n_seats; s++) {
                struct cz_seat *p = &st->seats[s];
                uint8_t card;
                bool zombie;

                if (!(r->shouters & seat_bit(s)))
                        continue;
                card = face_up(st, s);
                zombie = is_zombie(st, card);
                p->pile_pos++;
                zone_push(st, s, zombie ? CZ_PLACE_UNDER_CAR : CZ_PLACE_SET_ASIDE, card);
                if (!zombie)
                        p->false_shouts++;
                r->zombie |= zombie;
                o = eng_out_push(out, &cz_ev_zombie_checked, s, now);
                if (o) {
                        o->v[CZ_CHECKED_ZOMBIE] = zombie;
                        o->v[CZ_CHECKED_PLACEMENT] = zombie ? CZ_PLACE_UNDER_CAR : CZ_PLACE_SET_ASIDE;
                }
        }
        if (r->zombie) {
                if (r->missing) {
                        for (int s = 0; s < st->n_seats; s++)
                                if (r->missing & seat_bit(s))
                                        give_penalty(st, s, CZ_REASON_NO_SLAP, now, out);
                } else if (r->n_slaps) {
                        const struct cz_slap *last = &r->slaps[0];

                        for (unsigned i = 1; i < r->n_slaps; i++)
                                if (r->slaps[i].press_us > last->press_us)
                                        last = &r->slaps[i];
                        for (int s = 0; s < st->n_seats; s++)
                                for (unsigned i = 0; i < r->n_slaps; i++) {
                                        const struct cz_slap *sl = &r->slaps[i];

                                        if (sl->seat == s && last->press_us - sl->press_us <=
                                                                     last->uncertainty_us + sl->uncertainty_us)
                                                give_penalty(st, s, CZ_REASON_LAST_SLAP, now, out);
                                }
                }
        }
        st->phase = CZ_PHASE_CHECKED;
        r->resume_at_us = now + st->resume_us;
        st->wake_us = r->resume_at_us;
        /* A shouter's pile may be done: its starting card ends the game
         * (which clears the race, so the shouters are kept here). */
        shouters = r->shouters;
        for (int s = 0; s < st->n_seats; s++)
                if (shouters & seat_bit(s))
                        next_card(st, s, now, 0, now, out);
}

/* Z20: play resumes. */
static void resume_play(struct cz_state *st, enum cz_by by, int64_t now, struct eng_out *out) {
        struct eng_output *o = eng_out_push(out, &cz_ev_play_resumed, by == CZ_BY_SHOUTER ? st->race.first :
                                                                                              ENG_SEAT_TABLE, now);

        if (o)
                o->v[CZ_RESUMED_BY] = by;
        memset(&st->race, 0, sizeof st->race);
        st->race.first = -1;
        st->phase = CZ_PHASE_PLAYING;
        st->wake_us = ENG_NEVER;
        for (int s = 0; s < st->n_seats; s++)
                st->seats[s].shown_us = now;
}

/* Z25, Z26: everyone stops; unresolved cards are discarded; every seat is
 * scored (Z27..Z35, Z41). */
static void finish(struct cz_state *st, int64_t now, struct eng_out *out) {
        struct eng_result res;
        struct eng_output *o;

        st->phase = CZ_PHASE_FINISHED;
        st->wake_us = ENG_NEVER;
        st->paused = false;
        for (int s = 0; s < st->n_seats; s++) {
                struct cz_seat *p = &st->seats[s];

                while (p->pile_pos < p->pile_len)
                        zone_push(st, s, CZ_PLACE_DISCARD, p->pile[p->pile_pos++]);
        }
        fill_result(st, &res);
        for (int s = 0; s < st->n_seats; s++) {
                o = eng_out_push(out, &cz_ev_seat_scored, s, now);
                if (!o)
                        continue;
                o->v[CZ_SCORED_CORRECT] = res.terms[s][CZ_TERM_CORRECT];
                o->v[CZ_SCORED_WRONG] = res.terms[s][CZ_TERM_WRONG];
                o->v[CZ_SCORED_FINISH] = res.terms[s][CZ_TERM_FINISH];
                o->v[CZ_SCORED_PENALTIES] = res.terms[s][CZ_TERM_PENALTIES];
                o->v[CZ_SCORED_SET_ASIDE] = res.terms[s][CZ_TERM_SET_ASIDE];
                o->v[CZ_SCORED_FRONT] = res.terms[s][CZ_TERM_FRONT];
                o->v[CZ_SCORED_BLUFFS] = res.terms[s][CZ_TERM_BLUFFS];
                o->v[CZ_SCORED_SCORE] = res.score[s];
        }
        o = eng_out_push(out, &eng_ev_match_finished, res.winner, now);
        if (o) {
                o->finished.winner = res.winner;
                for (unsigned s = 0; s < ENG_MAX_SEATS; s++)
                        o->finished.place[s] = res.place[s];
        }
}

/* Moves every pending clock by d (the operator's pause, a void). */
static void shift_clocks(struct cz_state *st, int64_t d) {
        if (st->wake_us != ENG_NEVER)
                st->wake_us += d;
        if (st->phase == CZ_PHASE_RACE)
                st->race.deadline_us += d;
        if (st->phase == CZ_PHASE_CHECKED)
                st->race.resume_at_us += d;
}

/* ---- Input handlers: refuse first, then change. */

static enum eng_refusal running(const struct cz_state *st) {
        if (st->phase == CZ_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase == CZ_PHASE_READY || st->paused)
                return ENG_REFUSED_STATE;
        return ENG_ACCEPTED;
}

/* A press as the handlers take it: a pad's, or an action's (its input
 * time, no uncertainty). */
struct press {
        int64_t us, unc;
};

static enum eng_refusal do_start(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == CZ_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase != CZ_PHASE_READY)
                return ENG_REFUSED_STATE;
        eng_out_push(out, &eng_ev_match_started, ENG_SEAT_TABLE, in->time_us);
        st->phase = CZ_PHASE_PLAYING;
        st->started_us = in->time_us;
        /* Z8, Z9: the starting card goes under the pile; the first situation
         * card is face up, at every seat at once. */
        for (int s = 0; s < st->n_seats; s++)
                next_card(st, s, in->time_us, 0, in->time_us, out);
        return ENG_ACCEPTED;
}

/* Z10..Z13, and the decisions on resolutions around a shout and the end. */
static enum eng_refusal do_resolve(struct cz_state *st, int s, unsigned place, struct press pr, int64_t now,
                                   struct eng_out *out) {
        enum eng_refusal r;

        if (place >= CZ_N_RESOLVE)
                return ENG_REFUSED_INVALID;
        r = running(st);
        if (r != ENG_ACCEPTED)
                return r;
        if (!has_card(st, s))
                return ENG_REFUSED_NOT_ALLOWED;
        /* Pressed before this card came up: it was meant for another. */
        if (pr.us < st->seats[s].shown_us)
                return ENG_REFUSED_TOO_LATE;
        switch (st->phase) {
        case CZ_PHASE_PLAYING:
                break;
        case CZ_PHASE_RACE:
        case CZ_PHASE_CHECKED:
                /* Pressed before the first shout: it stands.  After: the
                 * table was paused (refused; the log counts it). */
                if (pr.us >= st->race.shout_us)
                        return ENG_REFUSED_TOO_LATE;
                if (st->race.shouters & seat_bit(s))
                        return ENG_REFUSED_NOT_ALLOWED;
                break;
        case CZ_PHASE_ENDING:
                /* Everyone stops at the first starting card (Z25): a press
                 * that may have come before it, within the two clocks'
                 * uncertainties, stands. */
                if (pr.us - pr.unc > st->end_us + st->end_uncertainty_us)
                        return ENG_REFUSED_TOO_LATE;
                if (st->seats[s].revealed)
                        return ENG_REFUSED_NOT_ALLOWED;
                break;
        default:
                return ENG_REFUSED_STATE;
        }
        do_resolution(st, s, place, pr.us, pr.unc, now, out);
        return ENG_ACCEPTED;
}

/* Z39: two players, a shout sends the face-up card in front of the other. */
static void send_card(struct cz_state *st, int s, struct press pr, int64_t now, struct eng_out *out) {
        struct cz_seat *p = &st->seats[s];
        uint8_t card = face_up(st, s);
        int to = 1 - s;
        struct eng_output *o;

        p->pile_pos++;
        p->shouts++;
        p->sent++;
        if (!is_zombie(st, card))
                p->false_shouts++;
        zone_push(st, to, CZ_PLACE_FRONT, card);
        o = eng_out_push(out, &cz_ev_card_sent, s, now);
        if (o) {
                o->v[CZ_SENT_TO_SEAT] = to;
                o->v[CZ_SENT_CARD] = cz_handle(st, card);
        }
        next_card(st, s, pr.us, pr.unc, now, out);
}

/* Z14..Z16, Z21: a shout starts the race, or joins it within the grace. */
static enum eng_refusal do_shout(struct cz_state *st, int s, struct press pr, int64_t now, struct eng_out *out) {
        struct cz_race *r = &st->race;
        enum eng_refusal ref = running(st);

        if (ref != ENG_ACCEPTED)
                return ref;
        if (!has_card(st, s))
                return ENG_REFUSED_NOT_ALLOWED;
        if (pr.us < st->seats[s].shown_us)
                return ENG_REFUSED_TOO_LATE;
        if (st->phase == CZ_PHASE_PLAYING) {
                if (st->two_player) {
                        send_card(st, s, pr, now, out);
                        return ENG_ACCEPTED;
                }
                memset(r, 0, sizeof *r);
                r->shouters = seat_bit(s);
                r->racers = all_seats(st) & ~seat_bit(s);
                r->first = (int8_t) s;
                r->shout_us = pr.us;
                r->started_us = now;
                r->deadline_us = pr.us + st->deadline_us;
                st->phase = CZ_PHASE_RACE;
                st->wake_us = r->deadline_us;
                if (st->wake_us < now)
                        st->wake_us = now;
                st->races++;
                st->seats[s].shouts++;
                emit_called(st, s, now, out);
                return ENG_ACCEPTED;
        }
        if (st->phase != CZ_PHASE_RACE)
                return ENG_REFUSED_STATE;
        if (r->shouters & seat_bit(s) || r->slapped & seat_bit(s))
                return ENG_REFUSED_NOT_ALLOWED;
        if (pr.us > r->shout_us + st->grace_us)
                return ENG_REFUSED_TOO_LATE;
        r->shouters |= seat_bit(s);
        r->racers &= ~seat_bit(s);
        if (pr.us < r->shout_us) {
                r->first = (int8_t) s;
                r->shout_us = pr.us;
        }
        st->seats[s].shouts++;
        emit_called(st, s, now, out);
        if (r->slapped == r->racers)
                end_race(st, now, out);
        return ENG_ACCEPTED;
}

/* A slap: a racer's slap in a race, the earliest shouter's "Driiiiive!"
 * after it, or (zombie.slap_shouts) a shout outside one. */
static enum eng_refusal do_slap(struct cz_state *st, int s, struct press pr, int64_t now, struct eng_out *out) {
        struct cz_race *r = &st->race;
        enum eng_refusal ref = running(st);
        struct cz_slap *sl;
        struct eng_output *o;

        if (ref != ENG_ACCEPTED)
                return ref;
        switch (st->phase) {
        case CZ_PHASE_PLAYING:
                if (!st->slap_shouts)
                        return ENG_REFUSED_STATE;
                return do_shout(st, s, pr, now, out);
        case CZ_PHASE_CHECKED:
                if (s != r->first)
                        return ENG_REFUSED_NOT_ALLOWED;
                resume_play(st, CZ_BY_SHOUTER, now, out);
                return ENG_ACCEPTED;
        case CZ_PHASE_RACE:
                break;
        default:
                return ENG_REFUSED_STATE;
        }
        if (!(r->racers & seat_bit(s)) || (r->slapped & seat_bit(s)))
                return ENG_REFUSED_NOT_ALLOWED;
        if (pr.us < r->shout_us)
                return ENG_REFUSED_STATE;
        if (pr.us > r->deadline_us)
                return ENG_REFUSED_TOO_LATE;
        sl = &r->slaps[r->n_slaps++];
        sl->seat = (int8_t) s;
        sl->press_us = pr.us;
        sl->uncertainty_us = pr.unc;
        r->slapped |= seat_bit(s);
        st->seats[s].slaps++;
        st->seats[s].slap_sum_us += pr.us - r->shout_us;
        o = eng_out_push(out, &cz_ev_slap_recorded, s, now);
        if (o) {
                o->v[CZ_SLAP_ORDER] = r->n_slaps;
                o->v[CZ_SLAP_GAP] = r->n_slaps > 1 ? pr.us - r->slaps[r->n_slaps - 2].press_us : ENG_ABSENT;
                o->v[CZ_SLAP_UNCERTAINTY] = pr.unc;
                o->v[CZ_SLAP_REACTION] = pr.us - r->shout_us;
        }
        if (r->slapped == r->racers)
                end_race(st, now, out);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_press(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        struct press pr = { in->press.press_us, in->press.uncertainty_us };
        int64_t b = in->press.button;

        if (!seat_ok(st, in->seat) || !eng_time_ok(pr.us) || pr.us > in->time_us || pr.unc < 0 ||
            pr.unc > ENG_TIME_LIMIT_US)
                return ENG_REFUSED_INVALID;
        if (in->press.role == ENG_ROLE_SLAP)
                return do_slap(st, in->seat, pr, in->time_us, out);
        if (in->press.role != ENG_ROLE_BUTTONS || b < 0 || b >= CZ_PAD_BUTTONS)
                return ENG_REFUSED_INVALID;
        if (b == CZ_BUTTON_SHOUT)
                return do_shout(st, in->seat, pr, in->time_us, out);
        return do_resolve(st, in->seat, (unsigned) b, pr, in->time_us, out);
}

static enum eng_refusal do_timer(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == CZ_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->paused || st->wake_us == ENG_NEVER || in->time_us < st->wake_us)
                return ENG_REFUSED_NOT_DUE;
        switch (st->phase) {
        case CZ_PHASE_RACE:
                end_race(st, in->time_us, out);
                break;
        case CZ_PHASE_CHECKED:
                resume_play(st, CZ_BY_TIMEOUT, in->time_us, out);
                break;
        case CZ_PHASE_ENDING:
                finish(st, in->time_us, out);
                break;
        default:
                return ENG_REFUSED_NOT_DUE;
        }
        return ENG_ACCEPTED;
}

static enum eng_refusal do_pause(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r = running(st);

        if (r != ENG_ACCEPTED)
                return r;
        st->paused = true;
        st->paused_at_us = in->time_us;
        eng_out_push(out, &eng_ev_paused, ENG_SEAT_TABLE, in->time_us);
        return ENG_ACCEPTED;
}

/* The operator's pause lifted: every clock moves on by the pause's length,
 * and every face-up card counts its reaction from now. */
static enum eng_refusal do_resume(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == CZ_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (!st->paused)
                return ENG_REFUSED_STATE;
        st->paused = false;
        shift_clocks(st, in->time_us - st->paused_at_us);
        for (int s = 0; s < st->n_seats; s++)
                st->seats[s].shown_us = in->time_us;
        eng_out_push(out, &eng_ev_resumed, ENG_SEAT_TABLE, in->time_us);
        return ENG_ACCEPTED;
}

/* The framework's void (engine/log.h): the state is what it was before the
 * voided inputs; its clocks run on from the void's time. */
static enum eng_refusal do_void(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        (void) out;
        if (st->phase == CZ_PHASE_READY || st->phase == CZ_PHASE_FINISHED || st->paused || !st->any_input)
                return ENG_ACCEPTED;
        shift_clocks(st, in->time_us - st->last_us);
        for (int s = 0; s < st->n_seats; s++)
                st->seats[s].shown_us = in->time_us;
        return ENG_ACCEPTED;
}

static enum eng_refusal do_cover(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r;
        struct eng_output *o;
        unsigned card;
        int i;

        if (!st->two_player)
                return ENG_REFUSED_UNSUPPORTED;
        if (!seat_ok(st, in->seat) || in->arg[CZ_COVER_CARD] < 0 || in->arg[CZ_COVER_CARD] > UINT32_MAX ||
            cz_card_of(st, (uint32_t) in->arg[CZ_COVER_CARD], &card) < 0)
                return ENG_REFUSED_INVALID;
        r = running(st);
        if (r != ENG_ACCEPTED)
                return r;
        i = zone_find(st, in->seat, CZ_PLACE_FRONT, card);
        if (i < 0)
                return ENG_REFUSED_INVALID;
        if (st->seats[in->seat].covered & seat_bit(i))
                return ENG_REFUSED_STATE;
        st->seats[in->seat].covered |= seat_bit(i);
        o = eng_out_push(out, &cz_ev_card_covered, in->seat, in->time_us);
        if (o)
                o->v[CZ_COVERED_CARD] = cz_handle(st, card);
        return ENG_ACCEPTED;
}

/* A referee's correction of a misfired placement: among the five stacks. */
static enum eng_refusal do_move(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        int64_t to = in->arg[CZ_MOVE_TO];
        struct cz_seat *p;
        struct eng_output *o;
        unsigned card, from = CZ_N_RESOLVE;
        int i = -1;

        if (!seat_ok(st, in->seat) || to < 0 || to >= CZ_N_RESOLVE || in->arg[CZ_MOVE_CARD] < 0 ||
            in->arg[CZ_MOVE_CARD] > UINT32_MAX || cz_card_of(st, (uint32_t) in->arg[CZ_MOVE_CARD], &card) < 0)
                return ENG_REFUSED_INVALID;
        if (st->phase == CZ_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase == CZ_PHASE_READY)
                return ENG_REFUSED_STATE;
        for (unsigned z = 0; z < CZ_N_RESOLVE && i < 0; z++) {
                i = zone_find(st, in->seat, z, card);
                from = z;
        }
        if (i < 0)
                return ENG_REFUSED_INVALID;
        if (from == (unsigned) to)
                return ENG_REFUSED_STATE;
        p = &st->seats[in->seat];
        memmove(&p->zone[from][i], &p->zone[from][i + 1], (size_t) (p->zone_len[from] - i - 1));
        p->zone_len[from]--;
        zone_push(st, in->seat, (unsigned) to, (uint8_t) card);
        o = eng_out_push(out, &cz_ev_card_moved, in->seat, in->time_us);
        if (o) {
                o->v[CZ_MOVED_CARD] = cz_handle(st, card);
                o->v[CZ_MOVED_FROM] = from;
                o->v[CZ_MOVED_TO] = to;
        }
        return ENG_ACCEPTED;
}

static enum eng_refusal do_drive(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r = running(st);

        if (in->seat != ENG_SEAT_TABLE && !seat_ok(st, in->seat))
                return ENG_REFUSED_INVALID;
        if (r != ENG_ACCEPTED)
                return r;
        if (st->phase != CZ_PHASE_CHECKED)
                return ENG_REFUSED_STATE;
        if (in->seat != ENG_SEAT_TABLE && in->seat != st->race.first)
                return ENG_REFUSED_NOT_ALLOWED;
        resume_play(st, in->seat == ENG_SEAT_TABLE ? CZ_BY_REFEREE : CZ_BY_SHOUTER, in->time_us, out);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_action(struct cz_state *st, const struct eng_input *in, struct eng_out *out) {
        struct press pr = { in->time_us, 0 };

        switch (in->action) {
        case CZ_ACTION_RESOLVE:
        case CZ_ACTION_SHOUT:
        case CZ_ACTION_SLAP:
                if (!seat_ok(st, in->seat))
                        return ENG_REFUSED_INVALID;
                if (in->action == CZ_ACTION_SHOUT)
                        return do_shout(st, in->seat, pr, in->time_us, out);
                if (in->action == CZ_ACTION_SLAP)
                        return do_slap(st, in->seat, pr, in->time_us, out);
                if (in->arg[CZ_RESOLVE_PLACEMENT] < 0 || in->arg[CZ_RESOLVE_PLACEMENT] >= CZ_N_RESOLVE)
                        return ENG_REFUSED_INVALID;
                return do_resolve(st, in->seat, (unsigned) in->arg[CZ_RESOLVE_PLACEMENT], pr, in->time_us, out);
        case CZ_ACTION_DRIVE:
                return do_drive(st, in, out);
        case CZ_ACTION_COVER:
                return do_cover(st, in, out);
        case CZ_ACTION_MOVE:
                return do_move(st, in, out);
        }
        return ENG_REFUSED_INVALID;
}

/* The checks every input passes first, then the kind's own.  Only an
 * accepted input moves last_seq and last_us. */
static int cz_apply(void *state, const struct eng_input *in, struct eng_out *out) {
        struct cz_state *st = state;
        enum eng_refusal refusal;

        if (!st || !in || !out || st->magic != CZ_MAGIC)
                return -EINVAL;
        eng_out_reset(out, st->wake_us);
        refusal = eng_input_order(in, st->any_input, st->last_seq, st->last_us);
        if (refusal == ENG_ACCEPTED)
                switch (in->kind) {
                case ENG_IN_START:
                        refusal = do_start(st, in, out);
                        break;
                case ENG_IN_PRESS:
                        refusal = do_press(st, in, out);
                        break;
                case ENG_IN_TIMER:
                        refusal = do_timer(st, in, out);
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
                        refusal = do_void(st, in, out);
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
        out->wake_us = st->paused ? ENG_NEVER : st->wake_us;
        return 0;
}

static enum eng_status status_of(const struct cz_state *st) {
        switch (st->phase) {
        case CZ_PHASE_READY:
                return ENG_STATUS_READY;
        case CZ_PHASE_FINISHED:
                return ENG_STATUS_FINISHED;
        default:
                return st->paused ? ENG_STATUS_PAUSED : ENG_STATUS_RUNNING;
        }
}

static enum eng_status cz_status(const void *state) {
        return status_of(state);
}

static int64_t cz_wake_us(const void *state) {
        const struct cz_state *st = state;

        return st->paused ? ENG_NEVER : st->wake_us;
}

static const char *cz_game_pause(const void *state) {
        const struct cz_state *st = state;

        return st->phase == CZ_PHASE_RACE || st->phase == CZ_PHASE_CHECKED ? "zombie" : NULL;
}

/* ---- The state hash.  Field order (CZ_HASH_VERSION 1), integers
 * little-endian at the width shown:
 *
 *   u8 version; u8 n_seats; bool two_player; u8 fork; bool slap_shouts;
 *   i64 deadline_us, grace_us, resume_us; u64 seed, handle_key,
 *   catalogue_digest (the cards file, not its parsed copy); u8 box_len and
 *   the box; bool any_input; if any_input: u64 last_seq, i64 last_us; u8
 *   phase; bool paused; if paused: i64 paused_at_us; i64 wake_us,
 *   started_us; u32 races; RACE or CHECKED: the race (u32 shouters,
 *   racers, slapped; i8 first; i64 shout_us, started_us, deadline_us; u8
 *   n_slaps, each slap as i8 seat, i64 press_us, uncertainty_us; CHECKED:
 *   bool zombie, u32 penalized, missing, i64 resume_at_us); ENDING or
 *   FINISHED: i64 end_us, end_uncertainty_us; per seat: u8 dealt_len and
 *   the dealt pile, u8 pile_len, pile_pos and the pile, per zone u8 length
 *   and its cards, u32 covered, u16 penalties, bool revealed, finish, if
 *   revealed i64 reveal_us, reveal_uncertainty_us; i64 shown_us; u16
 *   resolved, shouts, false_shouts, slaps, sent; i64 reaction_sum_us,
 *   slap_sum_us. */
static uint64_t cz_hash(const void *state) {
        const struct cz_state *st = state;
        const struct cz_race *r = &st->race;
        struct eng_hash h;

        eng_hash_init(&h);
        eng_hash_u8(&h, CZ_HASH_VERSION);
        eng_hash_u8(&h, st->n_seats);
        eng_hash_bool(&h, st->two_player);
        eng_hash_u8(&h, st->fork);
        eng_hash_bool(&h, st->slap_shouts);
        eng_hash_i64(&h, st->deadline_us);
        eng_hash_i64(&h, st->grace_us);
        eng_hash_i64(&h, st->resume_us);
        eng_hash_u64(&h, st->seed);
        eng_hash_u64(&h, st->handle_key);
        eng_hash_u64(&h, st->catalogue_digest);
        eng_hash_u8(&h, st->box_len);
        eng_hash_bytes(&h, st->box, st->box_len);
        eng_hash_bool(&h, st->any_input);
        if (st->any_input) {
                eng_hash_u64(&h, st->last_seq);
                eng_hash_i64(&h, st->last_us);
        }
        eng_hash_u8(&h, st->phase);
        eng_hash_bool(&h, st->paused);
        if (st->paused)
                eng_hash_i64(&h, st->paused_at_us);
        eng_hash_i64(&h, st->wake_us);
        eng_hash_i64(&h, st->started_us);
        eng_hash_u32(&h, st->races);
        if (st->phase == CZ_PHASE_RACE || st->phase == CZ_PHASE_CHECKED) {
                eng_hash_u32(&h, r->shouters);
                eng_hash_u32(&h, r->racers);
                eng_hash_u32(&h, r->slapped);
                eng_hash_u8(&h, (uint8_t) r->first);
                eng_hash_i64(&h, r->shout_us);
                eng_hash_i64(&h, r->started_us);
                eng_hash_i64(&h, r->deadline_us);
                eng_hash_u8(&h, r->n_slaps);
                for (unsigned i = 0; i < r->n_slaps; i++) {
                        eng_hash_u8(&h, (uint8_t) r->slaps[i].seat);
                        eng_hash_i64(&h, r->slaps[i].press_us);
                        eng_hash_i64(&h, r->slaps[i].uncertainty_us);
                }
                if (st->phase == CZ_PHASE_CHECKED) {
                        eng_hash_bool(&h, r->zombie);
                        eng_hash_u32(&h, r->penalized);
                        eng_hash_u32(&h, r->missing);
                        eng_hash_i64(&h, r->resume_at_us);
                }
        }
        if (st->phase == CZ_PHASE_ENDING || st->phase == CZ_PHASE_FINISHED) {
                eng_hash_i64(&h, st->end_us);
                eng_hash_i64(&h, st->end_uncertainty_us);
        }
        for (unsigned s = 0; s < st->n_seats; s++) {
                const struct cz_seat *p = &st->seats[s];

                eng_hash_u8(&h, p->dealt_len);
                eng_hash_bytes(&h, p->dealt, p->dealt_len);
                eng_hash_u8(&h, p->pile_len);
                eng_hash_u8(&h, p->pile_pos);
                eng_hash_bytes(&h, p->pile, p->pile_len);
                for (unsigned z = 0; z < CZ_N_ZONES; z++) {
                        eng_hash_u8(&h, p->zone_len[z]);
                        eng_hash_bytes(&h, p->zone[z], p->zone_len[z]);
                }
                eng_hash_u32(&h, p->covered);
                eng_hash_u16(&h, p->penalties);
                eng_hash_bool(&h, p->revealed);
                eng_hash_bool(&h, p->finish);
                if (p->revealed) {
                        eng_hash_i64(&h, p->reveal_us);
                        eng_hash_i64(&h, p->reveal_uncertainty_us);
                }
                eng_hash_i64(&h, p->shown_us);
                eng_hash_u16(&h, p->resolved);
                eng_hash_u16(&h, p->shouts);
                eng_hash_u16(&h, p->false_shouts);
                eng_hash_u16(&h, p->slaps);
                eng_hash_u16(&h, p->sent);
                eng_hash_i64(&h, p->reaction_sum_us);
                eng_hash_i64(&h, p->slap_sum_us);
        }
        return eng_hash_value(&h);
}

/* ---- Invariants (crazy_pilot.h). */

#define FAIL(...) do { if (why) snprintf(why, len, __VA_ARGS__); return -EBADMSG; } while (0)

int cz_check(const struct cz_state *st, char *why, size_t len) {
        uint8_t seen[CZ_MAX_CARDS] = { 0 };
        unsigned total = 0;

        if (!st || st->magic != CZ_MAGIC)
                FAIL("not a created state");
        if (st->n_seats < CZ_MIN_SEATS || st->n_seats > CZ_MAX_SEATS || st->two_player != (st->n_seats == 2))
                FAIL("%u seats, two_player %d", st->n_seats, st->two_player);
        if (st->cat.n < 1 || st->cat.n > CZ_MAX_CARDS || st->phase > CZ_PHASE_FINISHED)
                FAIL("%u cards, phase %u", st->cat.n, st->phase);
        for (unsigned i = 0; i < st->box_len; i++, total++)
                if (st->box[i] >= st->cat.n || seen[st->box[i]]++)
                        FAIL("box card %u twice or out of range", st->box[i]);
        for (int s = 0; s < st->n_seats; s++) {
                const struct cz_seat *p = &st->seats[s];

                if (p->pile_pos > p->pile_len || p->pile_len > CZ_MAX_PILE)
                        FAIL("seat %d: pile at %u of %u", s, p->pile_pos, p->pile_len);
                if (p->pile_len != st->seats[(s + st->n_seats - 1) % st->n_seats].dealt_len ||
                    memcmp(p->pile, st->seats[(s + st->n_seats - 1) % st->n_seats].dealt, p->pile_len) != 0)
                        FAIL("seat %d does not play the pile dealt for seat %d", s,
                             (s + st->n_seats - 1) % st->n_seats);
                for (unsigned i = p->pile_pos; i < p->pile_len; i++, total++)
                        if (p->pile[i] >= st->cat.n || seen[p->pile[i]]++)
                                FAIL("seat %d: pile card %u twice", s, p->pile[i]);
                for (unsigned z = 0; z < CZ_N_ZONES; z++) {
                        if (p->zone_len[z] > CZ_MAX_PILE)
                                FAIL("seat %d: zone %s holds %u", s, zone_names[z], p->zone_len[z]);
                        for (unsigned i = 0; i < p->zone_len[z]; i++, total++)
                                if (p->zone[z][i] >= st->cat.n || seen[p->zone[z][i]]++)
                                        FAIL("seat %d: %s card %u twice", s, zone_names[z], p->zone[z][i]);
                }
                if (!st->two_player && (p->zone_len[CZ_PLACE_FRONT] || p->covered))
                        FAIL("seat %d: cards in front with %u players", s, st->n_seats);
                if (p->covered >> p->zone_len[CZ_PLACE_FRONT])
                        FAIL("seat %d: a cover without a card", s);
                if (p->zone_len[CZ_PLACE_DISCARD] && st->phase != CZ_PHASE_FINISHED)
                        FAIL("seat %d: discards before the end", s);
                if (st->phase == CZ_PHASE_FINISHED && p->pile_pos != p->pile_len)
                        FAIL("seat %d: cards left on the pile at the end", s);
                if (p->finish && !p->revealed)
                        FAIL("seat %d: the finish card without its starting card", s);
                if (p->revealed != (p->pile_pos == p->pile_len && p->zone_len[CZ_PLACE_DISCARD] == 0 &&
                                    p->dealt_len > 0 && st->phase != CZ_PHASE_READY) &&
                    st->phase != CZ_PHASE_FINISHED)
                        FAIL("seat %d: revealed %d with %u of %u cards played", s, p->revealed, p->pile_pos,
                             p->pile_len);
        }
        if (total != st->cat.n)
                FAIL("%u cards in play and in the box, of %u", total, st->cat.n);
        switch (st->phase) {
        case CZ_PHASE_READY:
        case CZ_PHASE_PLAYING:
                if (st->wake_us != ENG_NEVER)
                        FAIL("a wake-up in phase %u", st->phase);
                break;
        case CZ_PHASE_RACE:
        case CZ_PHASE_CHECKED:
                if (st->two_player)
                        FAIL("a race with two players");
                if (!st->race.shouters || (st->race.shouters & st->race.racers) ||
                    (st->race.shouters | st->race.racers) != all_seats(st) ||
                    (st->race.slapped & ~st->race.racers) || popcount32(st->race.slapped) != st->race.n_slaps)
                        FAIL("race of shouters %#x, racers %#x, slapped %#x", st->race.shouters, st->race.racers,
                             st->race.slapped);
                if (st->race.first < 0 || !(st->race.shouters & seat_bit(st->race.first)))
                        FAIL("the earliest shouter %d is no shouter", st->race.first);
                if (st->wake_us == ENG_NEVER)
                        FAIL("a race without a wake-up");
                if (st->phase == CZ_PHASE_RACE) {
                        if (st->race.slapped == st->race.racers)
                                FAIL("a race every racer has slapped");
                        for (int s = 0; s < st->n_seats; s++)
                                if ((st->race.shouters & seat_bit(s)) && !has_card(st, s))
                                        FAIL("shouter %d without a card", s);
                }
                break;
        case CZ_PHASE_ENDING:
                if (st->wake_us == ENG_NEVER)
                        FAIL("ending without a wake-up");
                /* fall through */
        case CZ_PHASE_FINISHED: {
                unsigned finishers = 0;

                for (int s = 0; s < st->n_seats; s++)
                        finishers += st->seats[s].finish;
                if (!finishers)
                        FAIL("the end without a finish card");
                if (st->phase == CZ_PHASE_FINISHED && (st->wake_us != ENG_NEVER || st->paused))
                        FAIL("a clock or a pause after the end");
                break;
        }
        }
        return 0;
}

#undef FAIL

/* ---- Views. */

static const char *phase_name(uint8_t p) {
        static const char *const names[] = { "ready", "playing", "race", "checked", "ending", "finished" };

        return p < ELEMENTSOF(names) ? names[p] : "unknown";
}

static int face_visit(const struct cz_state *st, struct eng_walk *w, const char *key, unsigned card) {
        int r;

        eng_walk_obj(w, key);
        eng_walk_handle(w, "handle", cz_handle(st, card));
        if (!w->r) {
                r = cz_card_face_visit(&st->cat.cards[card], w->v, w->ctx);
                if (r < 0)
                        w->r = r;
        }
        eng_walk_end_obj(w);
        return w->r;
}

static int cz_card_face(const void *state, uint32_t handle, const struct eng_visitor *v, void *ctx) {
        const struct cz_state *st = state;
        unsigned card;

        if (!st || !v || st->magic != CZ_MAGIC)
                return -EINVAL;
        if (cz_card_of(st, handle, &card) < 0)
                return -ENOENT;
        return cz_card_face_visit(&st->cat.cards[card], v, ctx);
}

static bool may_resolve(const struct cz_state *st, int s) {
        return !st->paused && has_card(st, s) &&
               (st->phase == CZ_PHASE_PLAYING || (st->phase == CZ_PHASE_ENDING && !st->seats[s].revealed));
}

static void walk_race(const struct cz_state *st, struct eng_walk *w) {
        const struct cz_race *r = &st->race;

        if (st->phase != CZ_PHASE_RACE && st->phase != CZ_PHASE_CHECKED) {
                eng_walk_null(w, "race");
                return;
        }
        eng_walk_obj(w, "race");
        eng_walk_seats(w, "shouters_seats", r->shouters);
        eng_walk_seats(w, "racers_seats", r->racers);
        eng_walk_seats(w, "waiting_seats", st->phase == CZ_PHASE_RACE ? r->racers & ~r->slapped : 0);
        eng_walk_arr(w, "slaps");
        for (unsigned i = 0; i < r->n_slaps; i++) {
                eng_walk_obj(w, NULL);
                eng_walk_int(w, "seat", r->slaps[i].seat);
                eng_walk_int(w, "order", i + 1);
                if (i)
                        eng_walk_int(w, "gap_us", r->slaps[i].press_us - r->slaps[i - 1].press_us);
                else
                        eng_walk_null(w, "gap_us");
                eng_walk_int(w, "uncertainty_us", r->slaps[i].uncertainty_us);
                eng_walk_end_obj(w);
        }
        eng_walk_end_arr(w);
        eng_walk_int(w, "deadline_us", r->deadline_us);
        if (st->phase == CZ_PHASE_CHECKED) {
                eng_walk_bool(w, "zombie", r->zombie);
                eng_walk_seats(w, "penalty_seats", r->penalized);
                eng_walk_int(w, "resume_at_us", r->resume_at_us);
        } else {
                eng_walk_null(w, "zombie");
                eng_walk_seats(w, "penalty_seats", 0);
                eng_walk_null(w, "resume_at_us");
        }
        eng_walk_end_obj(w);
}

static void walk_stack_counts(const struct cz_seat *p, struct eng_walk *w) {
        eng_walk_obj(w, "stacks");
        for (unsigned z = CZ_PLACE_STRAIGHT; z <= CZ_PLACE_SET_ASIDE; z++)
                eng_walk_int(w, zone_names[z], p->zone_len[z]);
        eng_walk_end_obj(w);
}

static void walk_answers(const struct cz_state *st, struct eng_walk *w) {
        eng_walk_arr(w, "answers");
        for (int s = 0; s < st->n_seats; s++) {
                const struct cz_seat *p = &st->seats[s];

                eng_walk_obj(w, NULL);
                eng_walk_int(w, "seat", s);
                eng_walk_obj(w, "stacks");
                for (unsigned z = CZ_PLACE_STRAIGHT; z <= CZ_PLACE_FRONT; z++) {
                        if (z == CZ_PLACE_FRONT && !st->two_player)
                                continue;
                        eng_walk_arr(w, zone_names[z]);
                        for (unsigned i = 0; i < p->zone_len[z]; i++) {
                                unsigned card = p->zone[z][i];

                                eng_walk_obj(w, NULL);
                                eng_walk_handle(w, "handle", cz_handle(st, card));
                                eng_walk_str(w, "answer", cz_answer_name(st->cat.cards[card].answer));
                                if (z == CZ_PLACE_FRONT)
                                        eng_walk_bool(w, "covered", p->covered & seat_bit((int) i));
                                else
                                        eng_walk_bool(w, "correct",
                                                      cz_stack_accepts(z, st->cat.cards[card].answer, st->fork));
                                eng_walk_end_obj(w);
                        }
                        eng_walk_end_arr(w);
                }
                eng_walk_end_obj(w);
                eng_walk_end_obj(w);
        }
        eng_walk_end_arr(w);
}

/* What each audience sees.  The public view is the scoreboard: counts,
 * the race, and at the end the scores and every stack with its answers.
 * A seat's adds "you": its own face-up scene (never its answer) and, with
 * two players, the cards in front of it.  The referee's adds "referee":
 * every seat's face-up card and the handles on each stack, to judge a
 * misfire; never the order of a pile, nor an answer before the end. */
static int cz_view_visit(const void *state, enum eng_audience audience, int seat, const struct eng_visitor *v,
                         void *ctx) {
        const struct cz_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };
        uint32_t finishers = 0;

        if (!st || !v || st->magic != CZ_MAGIC)
                return -EINVAL;
        if (audience != ENG_VIEW_PUBLIC && audience != ENG_VIEW_SEAT && audience != ENG_VIEW_REFEREE)
                return -EINVAL;
        if (audience == ENG_VIEW_SEAT && !seat_ok(st, seat))
                return -EINVAL;
        eng_walk_str(&w, "status", eng_status_name(status_of(st)));
        eng_walk_str(&w, "phase", phase_name(st->phase));
        eng_walk_bool(&w, "two_player", st->two_player);
        eng_walk_str(&w, "fork_turns", fork_choices[st->fork]);
        eng_walk_arr(&w, "seats");
        for (int s = 0; s < st->n_seats; s++) {
                const struct cz_seat *p = &st->seats[s];

                if (p->finish)
                        finishers |= seat_bit(s);
                eng_walk_obj(&w, NULL);
                eng_walk_int(&w, "seat", s);
                eng_walk_int(&w, "pile_left", p->pile_len - p->pile_pos);
                walk_stack_counts(p, &w);
                eng_walk_int(&w, "penalties", p->penalties);
                eng_walk_bool(&w, "finish_card", p->finish);
                eng_walk_arr(&w, "front");
                for (unsigned i = 0; i < p->zone_len[CZ_PLACE_FRONT]; i++) {
                        eng_walk_obj(&w, NULL);
                        eng_walk_handle(&w, "handle", cz_handle(st, p->zone[CZ_PLACE_FRONT][i]));
                        eng_walk_bool(&w, "covered", p->covered & seat_bit((int) i));
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                eng_walk_bool(&w, "resolving", st->phase != CZ_PHASE_READY && st->phase != CZ_PHASE_FINISHED &&
                                                       has_card(st, s));
                eng_walk_end_obj(&w);
        }
        eng_walk_end_arr(&w);
        walk_race(st, &w);
        eng_walk_seats(&w, "finish_seats", finishers);
        if (st->phase == CZ_PHASE_FINISHED) {
                struct eng_result res;

                fill_result(st, &res);
                eng_walk_arr(&w, "scores");
                for (int s = 0; s < st->n_seats; s++) {
                        eng_walk_obj(&w, NULL);
                        eng_walk_int(&w, "seat", s);
                        for (unsigned t = 0; t < CZ_N_TERMS; t++)
                                eng_walk_int(&w, cz_game.terms[t], res.terms[s][t]);
                        eng_walk_int(&w, "score", res.score[s]);
                        eng_walk_int(&w, "place", res.place[s]);
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                walk_answers(st, &w);
        } else {
                eng_walk_null(&w, "scores");
                eng_walk_null(&w, "answers");
        }

        if (audience == ENG_VIEW_SEAT) {
                const struct cz_seat *p = &st->seats[seat];
                bool live = st->phase != CZ_PHASE_READY && st->phase != CZ_PHASE_FINISHED;

                eng_walk_obj(&w, "you");
                eng_walk_int(&w, "seat", seat);
                if (live && has_card(st, seat))
                        face_visit(st, &w, "card", face_up(st, seat));
                else
                        eng_walk_null(&w, "card");
                eng_walk_time(&w, "shown_us", live && has_card(st, seat) ? p->shown_us : ENG_NEVER);
                eng_walk_bool(&w, "may_resolve", may_resolve(st, seat));
                eng_walk_bool(&w, "must_slap", !st->paused && st->phase == CZ_PHASE_RACE &&
                                                       (st->race.racers & ~st->race.slapped & seat_bit(seat)));
                eng_walk_bool(&w, "may_drive", !st->paused && st->phase == CZ_PHASE_CHECKED &&
                                                       st->race.first == seat);
                eng_walk_arr(&w, "front");
                for (unsigned i = 0; i < p->zone_len[CZ_PLACE_FRONT]; i++) {
                        unsigned card = p->zone[CZ_PLACE_FRONT][i];

                        eng_walk_obj(&w, NULL);
                        eng_walk_handle(&w, "handle", cz_handle(st, card));
                        eng_walk_bool(&w, "covered", p->covered & seat_bit((int) i));
                        if (!w.r) {
                                int r = cz_card_face_visit(&st->cat.cards[card], v, ctx);

                                if (r < 0)
                                        w.r = r;
                        }
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                eng_walk_arr(&w, "sent");
                if (st->two_player) {
                        const struct cz_seat *o = &st->seats[1 - seat];

                        for (unsigned i = 0; i < o->zone_len[CZ_PLACE_FRONT]; i++)
                                eng_walk_handle(&w, NULL, cz_handle(st, o->zone[CZ_PLACE_FRONT][i]));
                }
                eng_walk_end_arr(&w);
                eng_walk_end_obj(&w);
        }
        if (audience == ENG_VIEW_REFEREE) {
                eng_walk_obj(&w, "referee");
                eng_walk_arr(&w, "seats");
                for (int s = 0; s < st->n_seats; s++) {
                        const struct cz_seat *p = &st->seats[s];

                        eng_walk_obj(&w, NULL);
                        eng_walk_int(&w, "seat", s);
                        if (st->phase != CZ_PHASE_READY && st->phase != CZ_PHASE_FINISHED && has_card(st, s))
                                face_visit(st, &w, "card", face_up(st, s));
                        else
                                eng_walk_null(&w, "card");
                        eng_walk_obj(&w, "stacks");
                        for (unsigned z = CZ_PLACE_STRAIGHT; z <= CZ_PLACE_SET_ASIDE; z++) {
                                eng_walk_arr(&w, zone_names[z]);
                                for (unsigned i = 0; i < p->zone_len[z]; i++)
                                        eng_walk_handle(&w, NULL, cz_handle(st, p->zone[z][i]));
                                eng_walk_end_arr(&w);
                        }
                        eng_walk_end_obj(&w);
                        eng_walk_end_obj(&w);
                }
                eng_walk_end_arr(&w);
                eng_walk_end_obj(&w);
        }
        return w.r;
}

static int cz_stats(const void *state, int seat, const struct eng_visitor *v, void *ctx) {
        const struct cz_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };
        const struct cz_seat *p;

        if (!st || !v || st->magic != CZ_MAGIC || !seat_ok(st, seat))
                return -EINVAL;
        p = &st->seats[seat];
        eng_walk_int(&w, "resolved", p->resolved);
        if (p->resolved)
                eng_walk_int(&w, "reaction_avg_us", p->reaction_sum_us / p->resolved);
        else
                eng_walk_null(&w, "reaction_avg_us");
        eng_walk_int(&w, "shouts", p->shouts);
        eng_walk_int(&w, "false_shouts", p->false_shouts);
        eng_walk_int(&w, "slaps", p->slaps);
        if (p->slaps)
                eng_walk_int(&w, "slap_avg_us", p->slap_sum_us / p->slaps);
        else
                eng_walk_null(&w, "slap_avg_us");
        eng_walk_int(&w, "penalties", p->penalties);
        eng_walk_int(&w, "sent", p->sent);
        return w.r;
}

/* What is hidden: the order of each pile below its face-up card, and the
 * box (nobody sees either, the referee included). */
static int cz_perturb_hidden(void *state, uint64_t salt) {
        struct cz_state *st = state;
        struct eng_rng rng;
        bool any = false;

        if (!st || st->magic != CZ_MAGIC)
                return -EINVAL;
        eng_rng_seed(&rng, salt);
        for (int s = 0; s < st->n_seats; s++) {
                struct cz_seat *p = &st->seats[s];
                /* Before the start no card is up: the whole pile is hidden. */
                unsigned from = st->phase == CZ_PHASE_READY ? p->pile_pos : p->pile_pos + 1u;

                if (from + 2 <= p->pile_len) {
                        eng_rng_shuffle_u8(&rng, p->pile + from, p->pile_len - from);
                        /* The dealt pile it came from is the same cards in
                         * the same order (Z5), as hidden. */
                        memcpy(st->seats[(s + st->n_seats - 1) % st->n_seats].dealt, p->pile, p->pile_len);
                        any = true;
                }
        }
        if (st->box_len >= 2) {
                eng_rng_shuffle_u8(&rng, st->box, st->box_len);
                any = true;
        }
        return any ? 0 : -EAGAIN;
}

int cz_view_of(const struct cz_state *st, int seat, struct cz_view *ret) {
        const struct cz_seat *p;
        bool live;

        if (!st || !ret || st->magic != CZ_MAGIC || !seat_ok(st, seat))
                return -EINVAL;
        p = &st->seats[seat];
        live = st->phase != CZ_PHASE_READY && st->phase != CZ_PHASE_FINISHED;
        memset(ret, 0, sizeof *ret);
        ret->phase = st->phase;
        ret->two_player = st->two_player;
        ret->paused = st->paused;
        ret->n_seats = st->n_seats;
        ret->seat = seat;
        ret->has_card = live && has_card(st, seat);
        if (ret->has_card) {
                ret->handle = cz_handle(st, face_up(st, seat));
                ret->scene = st->cat.cards[face_up(st, seat)].scene;
                ret->shown_us = p->shown_us;
        }
        ret->may_resolve = may_resolve(st, seat);
        ret->may_shout = !st->paused && ret->has_card &&
                         (st->phase == CZ_PHASE_PLAYING ||
                          (st->phase == CZ_PHASE_RACE && !(st->race.shouters & seat_bit(seat)) &&
                           !(st->race.slapped & seat_bit(seat))));
        ret->must_slap = !st->paused && st->phase == CZ_PHASE_RACE &&
                         (st->race.racers & ~st->race.slapped & seat_bit(seat));
        ret->may_drive = !st->paused && st->phase == CZ_PHASE_CHECKED && st->race.first == seat;
        ret->pile_left = (uint8_t) (p->pile_len - p->pile_pos);
        ret->n_front = p->zone_len[CZ_PLACE_FRONT];
        for (unsigned i = 0; i < ret->n_front; i++) {
                ret->front_handle[i] = cz_handle(st, p->zone[CZ_PLACE_FRONT][i]);
                ret->front_scene[i] = st->cat.cards[p->zone[CZ_PLACE_FRONT][i]].scene;
                ret->front_covered[i] = p->covered & seat_bit((int) i);
        }
        ret->deadline_us = st->phase == CZ_PHASE_RACE ? st->race.deadline_us : ENG_NEVER;
        ret->resume_at_us = st->phase == CZ_PHASE_CHECKED ? st->race.resume_at_us : ENG_NEVER;
        ret->wake_us = st->paused ? ENG_NEVER : st->wake_us;
        return 0;
}

/* ---- The rest of the table. */

static const struct eng_field resolve_fields[] = {
        [CZ_RESOLVE_PLACEMENT] = { .name = "placement", .type = ENG_T_ENUM, .min = 0, .max = CZ_PLACE_HAND,
                                   .choices = place_choices, .choice_text = place_text,
                                   .doc = "straight, left, right, u_turn or hand." },
};
static const struct eng_field cover_fields[] = {
        [CZ_COVER_CARD] = { .name = "card", .type = ENG_T_HANDLE, .doc = "A card in front of the seat." },
};
static const struct eng_field move_fields[] = {
        [CZ_MOVE_CARD] = { .name = "card", .type = ENG_T_HANDLE, .doc = "A card on one of the seat's five stacks." },
        [CZ_MOVE_TO] = { .name = "to", .type = ENG_T_ENUM, .min = 0, .max = CZ_PLACE_HAND, .choices = place_choices,
                         .choice_text = place_text, .doc = "The stack it belongs on: straight, left, right, u_turn "
                                                           "or hand." },
};

static const struct eng_input_def cz_actions[CZ_N_ACTIONS] = {
        [CZ_ACTION_RESOLVE] = {
                .name = "resolve", .from = ENG_FROM_SEAT | ENG_FROM_REFEREE, .seated = true,
                .fields = resolve_fields, .n_fields = ELEMENTSOF(resolve_fields),
                .doc = "Resolves the seat's face-up card onto a stack, as its buttons 0..4 do.",
        },
        [CZ_ACTION_SHOUT] = {
                .name = "shout", .from = ENG_FROM_SEAT | ENG_FROM_REFEREE, .seated = true,
                .doc = "Zombieeees! for the seat's face-up card, as its button 5 does.",
        },
        [CZ_ACTION_SLAP] = {
                .name = "slap", .from = ENG_FROM_SEAT | ENG_FROM_REFEREE, .seated = true,
                .doc = "A slap of the seat's slap pad: in a race, or the earliest shouter's Driiiiive after it.",
        },
        [CZ_ACTION_DRIVE] = {
                .name = "drive", .from = ENG_FROM_SEAT | ENG_FROM_REFEREE,
                .doc = "Driiiiive!: play resumes after a race.",
        },
        [CZ_ACTION_COVER] = {
                .name = "cover", .from = ENG_FROM_SEAT, .seated = true, .fields = cover_fields,
                .n_fields = ELEMENTSOF(cover_fields),
                .doc = "2 players: covers a card in front of the seat with a penalty card; final.",
        },
        [CZ_ACTION_MOVE] = {
                .name = "move", .from = ENG_FROM_REFEREE, .seated = true, .fields = move_fields,
                .n_fields = ELEMENTSOF(move_fields),
                .doc = "Moves a misplaced card of the seat to another of its five stacks (a pad's misfire).",
        },
};

/* Pads: a seat's button pad resolves (0..4) and shouts (5), its slap pad
 * slaps; the referee keypad's Enter says Driiiiive, two keys pause and
 * resume the table. */
static const struct eng_route cz_routes[] = {
        { .role = ENG_ROLE_BUTTONS, .button = CZ_PLACE_STRAIGHT, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_BUTTONS, .button = CZ_PLACE_LEFT, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_BUTTONS, .button = CZ_PLACE_RIGHT, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_BUTTONS, .button = CZ_PLACE_UTURN, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_BUTTONS, .button = CZ_PLACE_HAND, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_BUTTONS, .button = CZ_BUTTON_SHOUT, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_SLAP, .button = ENG_ANY_BUTTON, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_KEYPAD, .button = 10, .kind = ENG_ROUTE_INPUT, .input = "drive" },
        { .role = ENG_ROLE_KEYPAD, .button = 13, .kind = ENG_ROUTE_INPUT, .input = "resume" },
        { .role = ENG_ROLE_KEYPAD, .button = 14, .kind = ENG_ROUTE_INPUT, .input = "pause" },
};

static const char *const cz_term_names[CZ_N_TERMS] = {
        [CZ_TERM_CORRECT] = "correct",
        [CZ_TERM_FINISH] = "finish",
        [CZ_TERM_WRONG] = "wrong",
        [CZ_TERM_PENALTIES] = "penalties",
        [CZ_TERM_SET_ASIDE] = "set_aside",
        [CZ_TERM_FRONT] = "front",
        [CZ_TERM_BLUFFS] = "bluffs",
};

static const struct eng_field cz_view_fields[] = {
        { .name = "status", .type = ENG_T_ENUM, .doc = "ready, running, paused (the operator's) or finished." },
        { .name = "phase", .type = ENG_T_ENUM, .doc = "ready, playing, race, checked, ending or finished." },
        { .name = "two_player", .type = ENG_T_BOOL, .doc = "The 2-player variant is played (two seats)." },
        { .name = "fork_turns", .type = ENG_T_ENUM, .doc = "The fork.turns setting: matching or either." },
        { .name = "seats", .type = ENG_T_OBJECT,
          .doc = "Each seat: cards left on its pile, its stacks' sizes, penalty cards, the finish card, the cards "
                 "in front of it (2 players) and whether it has a card up." },
        { .name = "race", .type = ENG_T_OBJECT,
          .doc = "The slap race: shouters, racers, who still has to slap, the slaps with their gaps and "
                 "uncertainties, the deadline, then the check and the penalties; null outside a race." },
        { .name = "finish_seats", .type = ENG_T_SEATS, .doc = "Who holds a finish card." },
        { .name = "scores", .type = ENG_T_OBJECT,
          .doc = "At the end: each seat's terms, score and place; null before." },
        { .name = "answers", .type = ENG_T_OBJECT,
          .doc = "At the end: each seat's stacks card by card with the answer on its back and the verdict; null "
                 "before." },
        { .name = "you", .type = ENG_T_OBJECT, .audience = ENG_VIEW_SEAT,
          .doc = "The viewer's face-up card (its scene, never its answer), what it may do now, and with two "
                 "players the cards in front of it and those it sent." },
        { .name = "referee", .type = ENG_T_OBJECT, .audience = ENG_VIEW_REFEREE,
          .doc = "Each seat's face-up card and the handles on each of its stacks, to correct a misfire." },
};

const struct eng_game cz_game = {
        .name = "crazy-pilot",
        .display_name = "Crazy Pilot",
        .description = "Everyone at once resolves their own pile of traffic situations — straight, left, right, "
                       "U-turn or stop — and shouts Zombieeees! at a zombie, which pauses the table for a slap "
                       "race; the first to reveal their starting card ends the game, and the stacks are scored "
                       "against the answers on the cards' backs.  2 to 6 players, a button pad and a slap pad "
                       "each.",
        .min_seats = CZ_MIN_SEATS,
        .max_seats = CZ_MAX_SEATS,
        .params = cz_params,
        .n_params = CZ_N_PARAMS,
        .data = cz_data,
        .n_data = ELEMENTSOF(cz_data),
        .actions = cz_actions,
        .n_actions = CZ_N_ACTIONS,
        .builtins = 1u << ENG_IN_PRESS,
        .events = cz_events,
        .n_events = ELEMENTSOF(cz_events),
        .routes = cz_routes,
        .n_routes = ELEMENTSOF(cz_routes),
        .terms = cz_term_names,
        .n_terms = CZ_N_TERMS,
        .view = cz_view_fields,
        .n_view = ELEMENTSOF(cz_view_fields),
        .state_size = sizeof(struct cz_state),
        /* The most one input makes: the end of a race at six seats (a slap,
         * a check per shouter, a penalty per racer, a card or a starting
         * card per shouter) stays below 20; START makes 7, the end 7. */
        .max_outputs = 24,
        .validate = cz_validate,
        .create = cz_create,
        .apply = cz_apply,
        .status = cz_status,
        .wake_us = cz_wake_us,
        .view_visit = cz_view_visit,
        .hash = cz_hash,
        .result = cz_result,
        .card_face = cz_card_face,
        .game_pause = cz_game_pause,
        .stats = cz_stats,
        .perturb_hidden = cz_perturb_hidden,
};
