/* engine/crash_pilot.c — the Crash Pilot rules; see crash_pilot.h for the
 * state diagram and invariants, docs/games/crash-pilot.md for every
 * decision the rulebook leaves open.
 *
 * Each handler for an input first decides whether to refuse it, touching
 * nothing but the output buffer (a refused call still gets its "too late"
 * CallJudged event), and only then changes the state.  That is what lets
 * the runtime log refused inputs and replay them.
 */
#include "engine/crash_pilot.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/hash.h"
#include "engine/walk.h"

#define CP_MAGIC                UINT32_C(0x43505331)    /* "CPS1" */
/* Bumped whenever the canonical serialisation below changes: a stored hash
 * from an older version then no longer matches, and the runtime hands the
 * match to a referee instead of resuming it on different rules. */
#define CP_HASH_VERSION         2

/* The first reveal needs one neutral card (rulebook, "Gameplay"); after
 * that every draw from the neutral deck follows a tuck, so the deck is never
 * empty when drawn from (docs/games/crash-pilot.md, "An empty neutral
 * deck"). */
#define CP_MIN_NEUTRAL          1

#define US_PER_MS               INT64_C(1000)
#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))

/* Pad feedback (docs/protocol.md LIGHT and BUZZ).  A correct call lights
 * the button that made it for as long as the verdict is on screen by
 * default (reveal.pause_ms); a tie blinks the tied pads as long; a wrong
 * call beeps briefly; an elimination sounds the long-short pattern for
 * longer, so that it is told apart from a wrong call without looking; the
 * winner's pad blinks until people have noticed. */
#define CP_LIGHT_CORRECT_MS     1000
#define CP_BLINK_TIE_MS         1000
#define CP_BUZZ_WRONG_MS        400
#define CP_BUZZ_OUT_MS          1500
#define CP_BLINK_WIN_MS         5000
#define CP_PAD_ALL_BUTTONS      ((UINT32_C(1) << CP_PAD_BUTTONS) - 1)

/* ---- Schema. */

static const struct eng_field cp_params[CP_N_PARAMS] = {
        [CP_PARAM_OBJECTS] = {
                .name = "deck.objects", .type = ENG_T_INT,
                .min = CP_MIN_KINDS, .max = CP_MAX_KINDS, .def = 6,
                .doc = "Different objects pictured on the cards.",
        },
        [CP_PARAM_COLOURS] = {
                .name = "deck.colours", .type = ENG_T_INT,
                .min = CP_MIN_KINDS, .max = CP_MAX_KINDS, .def = 6,
                .doc = "Different colours on the cards.",
        },
        [CP_PARAM_COPIES] = {
                .name = "deck.copies", .type = ENG_T_INT,
                .min = 1, .max = CP_MAX_COPIES, .def = 2,
                .doc = "Cards of each object and colour in the deck.",
        },
        [CP_PARAM_PAUSE_MS] = {
                .name = "reveal.pause_ms", .type = ENG_T_INT,
                .min = 0, .max = 10000, .def = 1000, .unit = "ms",
                .doc = "How long a verdict stays on screen before the next card is revealed "
                       "(at a real table at least the judge's 250 ms false-start lockout; "
                       "0 reveals at once, for simulations).",
        },
        [CP_PARAM_TIMEOUT_MS] = {
                .name = "reveal.timeout_ms", .type = ENG_T_INT,
                .min = 1000, .max = 600000, .def = 20000, .unit = "ms",
                .doc = "A card nobody calls within this time is tucked under the neutral deck "
                       "and the next neutral card is revealed.",
        },
};

/* Rulebook, "Setup": "2 players: 13 cards, 3 players: 9 cards, 4 players:
 * 7 cards, 5 players: 6 cards". */
static const uint8_t cp_deal_table[CP_MAX_SEATS + 1] = { 0, 0, 13, 9, 7, 6 };

unsigned cp_cards_per_player(unsigned n_seats) {
        return n_seats <= CP_MAX_SEATS ? cp_deal_table[n_seats] : 0;
}

void cp_config_from(const struct eng_config *cfg, struct cp_config *ret) {
        *ret = (struct cp_config) {
                .objects = (uint8_t) cfg->v[CP_PARAM_OBJECTS],
                .colours = (uint8_t) cfg->v[CP_PARAM_COLOURS],
                .copies = (uint8_t) cfg->v[CP_PARAM_COPIES],
                .pause_us = cfg->v[CP_PARAM_PAUSE_MS] * US_PER_MS,
                .timeout_us = cfg->v[CP_PARAM_TIMEOUT_MS] * US_PER_MS,
        };
}

/* Set-up must always be possible, so validation proves it:
 *   - the six starting cards need six different objects and six different
 *     colours: objects, colours >= 6 (the schema's minimum) give 6! such
 *     sets, and the re-deal (deal_rows) always finds the next one;
 *   - the deck must hold the six starters, the players' cards and at least
 *     one neutral card for the first reveal.
 * Ranges are checked again here because create() calls this directly. */
static int cp_validate(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                       struct eng_error *ret_err) {
        struct cp_config c;
        unsigned per, cards, need;

        for (size_t i = 0; i < CP_N_PARAMS; i++)
                if (cfg->v[i] < cp_params[i].min || cfg->v[i] > cp_params[i].max)
                        return eng_error_set(ret_err, cp_params[i].name, "must be %lld..%lld%s%s",
                                             (long long) cp_params[i].min,
                                             (long long) cp_params[i].max,
                                             cp_params[i].unit ? " " : "",
                                             cp_params[i].unit ? cp_params[i].unit : "");
        (void) data;            /* Crash Pilot has no data files */
        per = cp_cards_per_player(n_seats);
        if (per == 0)
                return eng_error_set(ret_err, "seats", "must be %d..%d", CP_MIN_SEATS, CP_MAX_SEATS);
        cp_config_from(cfg, &c);
        cards = (unsigned) c.objects * c.colours * c.copies;
        need = CP_ROWS + n_seats * per + CP_MIN_NEUTRAL;
        if (cards < need)
                return eng_error_set(ret_err, "deck.copies",
                                     "%u objects x %u colours x %u copies make %u cards; "
                                     "%u players need at least %u (%d row starters, %u dealt, "
                                     "%d for the neutral deck)",
                                     c.objects, c.colours, c.copies, cards, n_seats, need,
                                     CP_ROWS, n_seats * per, CP_MIN_NEUTRAL);
        return 0;
}

/* ---- Small helpers. */

static inline uint32_t seat_bit(int s) {
        return UINT32_C(1) << s;
}

static unsigned popcount32(uint32_t x) {
        unsigned n = 0;

        for (; x; x &= x - 1)
                n++;
        return n;
}

static uint32_t table_seats_in(const struct cp_table *t, unsigned n_seats) {
        uint32_t m = 0;

        for (unsigned s = 0; s < n_seats; s++)
                if (t->out_order[s] == 0)
                        m |= seat_bit((int) s);
        return m;
}

static uint32_t seats_in(const struct cp_state *st) {
        return table_seats_in(&st->t, st->n_seats);
}

bool cp_row_accepts(const uint8_t *row, unsigned len, uint8_t card) {
        for (unsigned i = 0; i < len; i++)
                if (CP_CARD_OBJECT(row[i]) == CP_CARD_OBJECT(card) ||
                    CP_CARD_COLOUR(row[i]) == CP_CARD_COLOUR(card))
                        return false;
        return true;
}

bool cp_fits_row(const struct cp_table *t, unsigned r, uint8_t card) {
        return r < CP_ROWS && cp_row_accepts(t->rows[r], t->row_len[r], card);
}

bool cp_fits_nowhere(const struct cp_table *t, uint8_t card) {
        for (unsigned r = 0; r < CP_ROWS; r++)
                if (cp_fits_row(t, r, card))
                        return false;
        return true;
}

static uint8_t neutral_at(const struct cp_table *t, unsigned i) {
        return t->neutral[(t->neutral_head + i) % CP_MAX_CARDS];
}

/* Rulebook: "tucked underneath the neutral deck". */
static void neutral_tuck(struct cp_table *t, uint8_t card) {
        t->neutral[(t->neutral_head + t->neutral_len) % CP_MAX_CARDS] = card;
        t->neutral_len++;
}

static uint8_t neutral_draw(struct cp_table *t) {
        uint8_t card = t->neutral[t->neutral_head];

        t->neutral_head = (uint16_t) ((t->neutral_head + 1) % CP_MAX_CARDS);
        t->neutral_len--;
        return card;
}

static void mark_seen(struct cp_state *st, uint8_t card) {
        st->seen[card / 8] |= (uint8_t) (1u << (card % 8));
}

static bool was_seen(const struct cp_state *st, uint8_t card) {
        return st->seen[card / 8] & (1u << (card % 8));
}

uint32_t cp_handle(const struct cp_state *st, uint8_t card) {
        return eng_handle(st->handle_key, card);
}

int cp_card_of(const struct cp_state *st, uint32_t handle, uint8_t *ret_card) {
        uint32_t card = eng_handle_card(st->handle_key, handle);

        if (card >= CP_MAX_CARDS || CP_CARD_OBJECT(card) >= st->cfg.objects ||
            CP_CARD_COLOUR(card) >= st->cfg.colours || CP_CARD_COPY(card) >= st->cfg.copies)
                return -ENOENT;
        *ret_card = (uint8_t) card;
        return 0;
}

/* ---- Set-up. */

static void state_init(struct cp_state *st, const struct eng_config *cfg, unsigned n_seats,
                       uint64_t seed) {
        memset(st, 0, sizeof *st);
        st->magic = CP_MAGIC;
        cp_config_from(cfg, &st->cfg);
        st->n_seats = (uint8_t) n_seats;
        st->seed = seed;
        st->handle_key = eng_handle_key(seed);
        st->wake_us = ENG_NEVER;
        st->t.phase = CP_PHASE_READY;
        st->t.next_seat = -1;
        st->t.winner = -1;
        st->t.face_source = CP_FROM_NEUTRAL;
        st->t.last.seat = -1;
}

/* Rulebook, "Setup": "deal a card next to each section of the hexagon ...
 * No object or color may occur twice in a series.  If this occurs in the
 * initial deal, put the card with the duplicate back into the deck and
 * deal a replacement."  The series is the six starting cards.  "Back into
 * the deck" is the bottom of the deck (docs/games/crash-pilot.md, "The
 * re-deal"): deterministic, and it bounds the search, because every card
 * that could start the next row is still in the deck and comes up before a
 * returned card comes round again.  The deck is in t->neutral, top first. */
static int deal_rows(struct cp_state *st) {
        struct cp_table *t = &st->t;

        for (unsigned r = 0; r < CP_ROWS; r++) {
                unsigned tries;

                for (tries = 0; tries < t->neutral_len; tries++) {
                        uint8_t card = neutral_draw(t);
                        bool clash = false;

                        /* dealt face up, even when it goes back: seen */
                        mark_seen(st, card);
                        for (unsigned k = 0; k < r; k++)
                                if (CP_CARD_OBJECT(t->rows[k][0]) == CP_CARD_OBJECT(card) ||
                                    CP_CARD_COLOUR(t->rows[k][0]) == CP_CARD_COLOUR(card))
                                        clash = true;
                        if (!clash) {
                                t->rows[r][0] = card;
                                t->row_len[r] = 1;
                                break;
                        }
                        neutral_tuck(t, card);
                }
                if (t->row_len[r] == 0)
                        return -EINVAL;
        }
        return 0;
}

/* Rulebook, "Setup": the players' cards, then "the remaining cards form a
 * neutral deck".  Cards go round the table one at a time from seat 0, as a
 * dealer deals; a face-down pile is built upwards, so the last card dealt
 * to a seat is the top of its stack. */
static int deal(struct cp_state *st, const uint8_t *deck, size_t n) {
        struct cp_table *t = &st->t;
        unsigned per = cp_cards_per_player(st->n_seats);
        int r;

        memcpy(t->neutral, deck, n);
        t->neutral_head = 0;
        t->neutral_len = (uint16_t) n;
        r = deal_rows(st);
        if (r < 0)
                return r;
        if (t->neutral_len < st->n_seats * per + CP_MIN_NEUTRAL)
                return -EINVAL;
        for (unsigned k = 0; k < per; k++)
                for (int s = 0; s < st->n_seats; s++)
                        t->stack[s][t->stack_len[s]++] = neutral_draw(t);
        return 0;
}

static size_t full_deck(const struct cp_config *c, uint8_t *ret) {
        size_t n = 0;

        for (unsigned k = 0; k < c->copies; k++)
                for (unsigned o = 0; o < c->objects; o++)
                        for (unsigned col = 0; col < c->colours; col++)
                                ret[n++] = CP_CARD(k, o, col);
        return n;
}

/* Rulebook, "Setup": "Shuffle the deck".  The shuffle is the only use of
 * randomness in Crash Pilot, so the seed fixes the whole deal. */
static int cp_create(void *state, const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                     uint64_t seed) {
        struct cp_state *st = state;
        uint8_t deck[CP_MAX_CARDS];
        struct cp_config c;
        struct eng_rng rng;
        size_t n;

        if (!st || !cfg || cp_validate(cfg, data, n_seats, NULL) < 0)
                return -EINVAL;
        cp_config_from(cfg, &c);
        n = full_deck(&c, deck);
        eng_rng_seed(&rng, seed);
        eng_rng_shuffle_u8(&rng, deck, n);
        state_init(st, cfg, n_seats, seed);
        return deal(st, deck, n);
}

int cp_create_with_deck(struct cp_state *st, const struct eng_config *cfg, unsigned n_seats,
                        uint64_t seed, const uint8_t *deck, size_t n) {
        bool seen[CP_MAX_CARDS] = { false };
        struct cp_config c;

        if (!st || !cfg || !deck || cp_validate(cfg, NULL, n_seats, NULL) < 0)
                return -EINVAL;
        cp_config_from(cfg, &c);
        if (n != (size_t) c.objects * c.colours * c.copies)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                uint8_t id = deck[i];

                if (CP_CARD_OBJECT(id) >= c.objects || CP_CARD_COLOUR(id) >= c.colours ||
                    CP_CARD_COPY(id) >= c.copies || seen[id])
                        return -EINVAL;
                seen[id] = true;
        }
        state_init(st, cfg, n_seats, seed);
        return deal(st, deck, n);
}

/* ---- Events (docs/games/crash-pilot.md, "Events").  Each event's fields
 * are its slots in order: the emit functions below fill them by these
 * positions, and tests/unit/test_crash_pilot.c checks them against the
 * tables. */

static const char *const source_choices[] = { "neutral", "stack", "again" };
static const char *const source_text[] = { "from the neutral deck", "from their own stack", "again" };
static const char *const verdict_choices[] = { "correct", "wrong", "too_late", "not_allowed" };
static const char *const verdict_text[] = { "correct", "wrong", "too late", "not allowed" };
static const char *const cause_choices[] = { "wrong_call", "doesnt_fit", "tie", "expired" };
static const char *const cause_text[] = { "after a wrong call", "as it fits no row", "after a tie",
                                          "as nobody called it" };

#define CARD_FIELD(doc_) { .name = "card", .type = ENG_T_CARD, .doc = doc_ }

static const struct eng_field revealed_fields[] = {
        CARD_FIELD("The card now face up."),
        { .name = "source", .type = ENG_T_ENUM, .min = 0, .max = 2, .choices = source_choices,
          .choice_text = source_text, .doc = "Where it came from." },
        { .name = "source_seat", .type = ENG_T_SEAT, .optional = true,
          .doc = "The seat whose stack it came from; null otherwise." },
        { .name = "reveal", .type = ENG_T_INT, .min = 1, .max = UINT32_MAX, .doc = "1, 2, … in the match." },
};

static const struct eng_field judged_fields[] = {
        { .name = "call", .type = ENG_T_CALL, .min = 0, .max = CP_CALL_DOESNT_FIT, .doc = "The call made." },
        { .name = "verdict", .type = ENG_T_ENUM, .min = 0, .max = 3, .choices = verdict_choices,
          .choice_text = verdict_text, .doc = "correct, wrong, too_late or not_allowed." },
        { .name = "reaction_us", .type = ENG_T_INT, .min = 0, .max = ENG_TIME_LIMIT_US, .unit = "µs",
          .doc = "The press time minus the reveal; 0 for a refused call." },
        { .name = "window", .type = ENG_T_INT, .min = 0, .max = UINT32_MAX, .doc = "The window it answered." },
        { .name = "card", .type = ENG_T_CARD, .optional = true,
          .doc = "The card called; null for a call too late, which was judged against no card." },
};

static const struct eng_field tiebreak_fields[] = {
        { .name = "seats", .type = ENG_T_SEATS, .doc = "The tied seats: only they call the next card." },
        { .name = "calls", .type = ENG_T_CALL, .min = 0, .max = CP_CALL_DOESNT_FIT, .max_count = ENG_TIE_CALLS,
          .doc = "Their calls, in seat order (empty when a referee entered the tie without them)." },
};

static const struct eng_field placed_fields[] = {
        CARD_FIELD("The card placed."),
        { .name = "row", .type = ENG_T_INT, .min = 1, .max = CP_ROWS, .doc = "The row, 1 to 6." },
};

static const struct eng_field tucked_fields[] = {
        CARD_FIELD("The card put under the neutral deck."),
        { .name = "cause", .type = ENG_T_ENUM, .min = 0, .max = 3, .choices = cause_choices,
          .choice_text = cause_text, .doc = "wrong_call, doesnt_fit, tie or expired." },
};

static const struct eng_field chip_fields[] = {
        { .name = "chips", .type = ENG_T_INT, .min = 1, .max = CP_CHIPS_OUT, .doc = "The seat's chips now." },
};
static const struct eng_field eliminated_fields[] = {
        { .name = "order", .type = ENG_T_INT, .min = 1, .max = CP_MAX_SEATS, .doc = "1: the first seat out." },
};
static const struct eng_field expired_fields[] = {
        CARD_FIELD("The card nobody called in time."),
};
static const struct eng_field voided_fields[] = {
        { .name = "voided_seq", .type = ENG_T_SEQ, .min = 1, .max = INT64_MAX,
          .doc = "The input whose resolution the referee undid." },
};

const struct eng_event_def cp_ev_card_revealed = {
        .name = "card_revealed", .fields = revealed_fields, .n_fields = ELEMENTSOF(revealed_fields),
        .reveals = true, .text = "A card is turned up {source}: {card}.",
        .doc = "A card is face up: a window is open for it, except for the winner's last card, which "
               "is only turned over.",
};
const struct eng_event_def cp_ev_call_judged = {
        .name = "call_judged", .fields = judged_fields, .n_fields = ELEMENTSOF(judged_fields),
        .text = "{seat} calls {call}: {verdict}.", .doc = "A call and its verdict.",
};
const struct eng_event_def cp_ev_tiebreak_started = {
        .name = "tiebreak_started", .fields = tiebreak_fields, .n_fields = ELEMENTSOF(tiebreak_fields),
        .text = "{seats} called at the same time: a tiebreak among them.",
        .doc = "Seats called at the same time; only they call the next card.",
};
const struct eng_event_def cp_ev_card_placed = {
        .name = "card_placed", .fields = placed_fields, .n_fields = ELEMENTSOF(placed_fields),
        .text = "{card} goes into row {row}.", .doc = "A correct call placed the card in its row.",
};
const struct eng_event_def cp_ev_card_tucked = {
        .name = "card_tucked", .fields = tucked_fields, .n_fields = ELEMENTSOF(tucked_fields),
        .text = "{card} goes under the neutral deck {cause}.", .doc = "A card went under the neutral deck.",
};
const struct eng_event_def cp_ev_chip_given = {
        .name = "chip_given", .fields = chip_fields, .n_fields = ELEMENTSOF(chip_fields),
        .text = "{seat} takes a red chip ({chips} now).", .doc = "A wrong call earned the seat a chip.",
};
const struct eng_event_def cp_ev_player_eliminated = {
        .name = "player_eliminated", .fields = eliminated_fields, .n_fields = ELEMENTSOF(eliminated_fields),
        .text = "{seat} has three chips and is out.", .doc = "A seat reached three chips and is out.",
};
const struct eng_event_def cp_ev_reveal_expired = {
        .name = "reveal_expired", .fields = expired_fields, .n_fields = ELEMENTSOF(expired_fields),
        .text = "Nobody called {card} in time.", .doc = "Nobody called the face-up card in time.",
};
const struct eng_event_def cp_ev_call_voided = {
        .name = "call_voided", .fields = voided_fields, .n_fields = ELEMENTSOF(voided_fields),
        .text = "The referee undoes the resolution of input #{voided_seq}.",
        .doc = "A referee undid the last resolution (void_call).",
};

static const struct eng_event_def *const cp_events[] = {
        &cp_ev_card_revealed, &cp_ev_call_judged, &cp_ev_tiebreak_started, &cp_ev_card_placed,
        &cp_ev_card_tucked, &cp_ev_chip_given, &cp_ev_player_eliminated, &cp_ev_reveal_expired,
        &cp_ev_call_voided,
};

/* ---- Outputs. */

static void emit_light(struct eng_out *out, int seat, int64_t now, unsigned button,
                       enum eng_light mode, unsigned ms) {
        struct eng_output *o = eng_out_push(out, &eng_req_pad_light, seat, now);

        if (o) {
                o->light.button = button;
                o->light.mode = mode;
                o->light.duration_ms = ms;
        }
}

static void emit_buzz(struct eng_out *out, int seat, int64_t now, enum eng_buzz pattern,
                      unsigned ms) {
        struct eng_output *o = eng_out_push(out, &eng_req_pad_buzz, seat, now);

        if (o) {
                o->buzz.pattern = pattern;
                o->buzz.duration_ms = ms;
        }
}

static void emit_lockout(struct eng_out *out, int seat, int64_t now, uint32_t buttons) {
        struct eng_output *o = eng_out_push(out, &eng_req_pad_lockout, seat, now);

        if (o)
                o->lockout.buttons = buttons;
}

static void emit_tucked(const struct cp_state *st, struct eng_out *out, int seat, int64_t now, uint8_t card,
                        enum cp_cause cause) {
        struct eng_output *o = eng_out_push(out, &cp_ev_card_tucked, seat, now);

        if (o) {
                o->v[CP_TUCKED_CARD] = cp_handle(st, card);
                o->v[CP_TUCKED_CAUSE] = cause;
        }
}

/* card < 0: none (ENG_ABSENT). */
static void emit_judged(const struct cp_state *st, struct eng_out *out, const struct eng_input *in,
                        enum cp_verdict verdict, int64_t reaction_us, int card) {
        struct eng_output *o = eng_out_push(out, &cp_ev_call_judged, in->seat, in->time_us);

        if (!o)
                return;
        o->v[CP_JUD_CALL] = in->call.call;
        o->v[CP_JUD_VERDICT] = verdict;
        o->v[CP_JUD_REACTION] = reaction_us;
        o->v[CP_JUD_WINDOW] = in->call.window;
        o->v[CP_JUD_CARD] = card < 0 ? ENG_ABSENT : (int64_t) cp_handle(st, (uint8_t) card);
}

static void close_window(struct cp_state *st, struct eng_out *out, int64_t now) {
        struct eng_output *o;

        if (!st->window_open)
                return;
        st->window_open = false;
        o = eng_out_push(out, &eng_req_window_close, ENG_SEAT_TABLE, now);
        if (o)
                o->window.window = st->windows;
}

/* The lock a pad shows: every button while its seat is out or sits out a
 * tiebreak, none otherwise. */
static uint32_t seat_lockout(const struct cp_state *st, int s) {
        if (st->t.out_order[s] != 0)
                return CP_PAD_ALL_BUTTONS;
        if (st->t.tiebreak && !(st->t.tiebreak & seat_bit(s)))
                return CP_PAD_ALL_BUTTONS;
        return 0;
}

/* ---- Result. */

/* Placements (docs/games/crash-pilot.md, "Placements"): the winner first;
 * then the seats still in, fewer cards left first, then fewer chips; then
 * the seats that are out, the last one out first.  Seats equal on all of
 * that share a place. */
static void fill_result(const struct cp_state *st, struct eng_result *ret) {
        const struct cp_table *t = &st->t;
        uint64_t key[ENG_MAX_SEATS] = { 0 };

        memset(ret, 0, sizeof *ret);
        ret->finished = t->phase == CP_PHASE_FINISHED;
        ret->winner = t->winner >= 0 ? t->winner : ENG_SEAT_TABLE;
        ret->n_seats = st->n_seats;
        for (int s = 0; s < st->n_seats; s++) {
                if (s == t->winner)
                        key[s] = 0;
                else if (t->out_order[s] == 0)
                        key[s] = (UINT64_C(1) << 48) | ((uint64_t) t->stack_len[s] << 8) |
                                 t->chips[s];
                else
                        key[s] = (UINT64_C(2) << 48) | (uint64_t) (CP_MAX_SEATS - t->out_order[s]);
        }
        eng_result_rank(ret, key);
}

static int cp_result(const void *state, struct eng_result *ret) {
        const struct cp_state *st = state;

        if (!st || !ret || st->magic != CP_MAGIC)
                return -EINVAL;
        fill_result(st, ret);
        return 0;
}

/* ---- Transitions. */

static void finish(struct cp_state *st, struct eng_out *out, int winner, int64_t now) {
        struct eng_result res;
        struct eng_output *o;

        st->t.phase = CP_PHASE_FINISHED;
        st->t.winner = (int8_t) winner;
        st->wake_us = ENG_NEVER;
        fill_result(st, &res);
        o = eng_out_push(out, &eng_ev_match_finished, winner, now);
        if (o) {
                o->finished.winner = winner;
                for (unsigned s = 0; s < ENG_MAX_SEATS; s++)
                        o->finished.place[s] = res.place[s];
        }
        emit_light(out, winner, now, ENG_BUTTON_ALL, ENG_LIGHT_BLINK, CP_BLINK_WIN_MS);
}

/* Turns a card face up and opens its window.  Rulebook, "Gameplay": "A
 * card is turned up, either from the neutral deck or from a player's own
 * deck"; "Ties": during a tiebreak "only the tied players can call out for
 * this card". */
static int reveal(struct cp_state *st, struct eng_out *out, enum cp_next next, int seat,
                  int64_t now) {
        struct cp_table *t = &st->t;
        struct eng_output *o;
        uint8_t card;
        int source;

        switch (next) {
        case CP_NEXT_NEUTRAL:
                if (t->neutral_len == 0)
                        return -EPROTO;
                card = neutral_draw(t);
                source = CP_FROM_NEUTRAL;
                break;
        case CP_NEXT_STACK:
                if (seat < 0 || seat >= st->n_seats || t->stack_len[seat] < 2)
                        return -EPROTO;
                card = t->stack[seat][--t->stack_len[seat]];
                source = seat;
                break;
        case CP_NEXT_AGAIN:
        default:
                if (!t->has_face_up)
                        return -EPROTO;
                card = t->face_up;
                source = CP_FROM_AGAIN;
                break;
        }
        t->phase = CP_PHASE_SHOWING;
        t->has_face_up = true;
        t->face_up = card;
        t->face_source = (int8_t) source;
        t->shown_us = now;
        t->allowed = seats_in(st);
        if (t->tiebreak)
                t->allowed &= t->tiebreak;
        st->reveals++;
        st->windows++;
        st->window_open = true;
        st->wake_us = now + st->cfg.timeout_us;

        mark_seen(st, card);
        o = eng_out_push(out, &cp_ev_card_revealed, source >= 0 ? source : ENG_SEAT_TABLE, now);
        if (o) {
                o->v[CP_REV_CARD] = cp_handle(st, card);
                o->v[CP_REV_SOURCE] = source >= 0 ? CP_SOURCE_STACK
                                 : source == CP_FROM_AGAIN ? CP_SOURCE_AGAIN : CP_SOURCE_NEUTRAL;
                o->v[CP_REV_SOURCE_SEAT] = source >= 0 ? source : ENG_SEAT_TABLE;
                o->v[CP_REV_NUMBER] = st->reveals;
        }
        o = eng_out_push(out, &eng_req_window_open, ENG_SEAT_TABLE, now);
        if (o) {
                o->window.window = st->windows;
                o->window.seats = t->allowed;
        }
        return 0;
}

/* Rulebook, "Game End": "As soon as a player turns over the last card
 * from his stack, he wins the game -- the last card is not actually
 * played."  Turned over, so everyone sees it (a reveal: card_revealed,
 * with no window, as nobody calls it); the finish follows. */
static void turn_over_last(struct cp_state *st, struct eng_out *out, int seat, int64_t now) {
        struct cp_table *t = &st->t;
        struct eng_output *o;

        t->face_up = t->stack[seat][--t->stack_len[seat]];
        t->has_face_up = true;
        t->face_source = (int8_t) seat;
        mark_seen(st, t->face_up);
        st->reveals++;
        o = eng_out_push(out, &cp_ev_card_revealed, seat, now);
        if (o) {
                o->v[CP_REV_CARD] = cp_handle(st, t->face_up);
                o->v[CP_REV_SOURCE] = CP_SOURCE_STACK;
                o->v[CP_REV_SOURCE_SEAT] = seat;
                o->v[CP_REV_NUMBER] = st->reveals;
        }
}

/* After a resolution the verdict stays on screen for reveal.pause_ms, then
 * the next card comes (docs/games/crash-pilot.md, "Pacing"). */
static int schedule(struct cp_state *st, struct eng_out *out, enum cp_next next, int seat,
                    int64_t now) {
        st->t.next = (uint8_t) next;
        st->t.next_seat = (int8_t) seat;
        if (st->cfg.pause_us == 0)
                return reveal(st, out, next, seat, now);
        st->t.phase = CP_PHASE_BETWEEN;
        st->wake_us = now + st->cfg.pause_us;
        return 0;
}

/* Every resolution of a face-up card starts here, so that a referee can
 * undo it (CP_ACTION_VOID_CALL). */
static void resolution_begin(struct cp_state *st, const struct eng_input *in, struct eng_out *out) {
        st->before = st->t;
        st->before_seq = in->seq;
        st->can_void = true;
        close_window(st, out, in->time_us);
}

/* Rulebook, "Ties": "... until one player gets in first, at which point the
 * card is resolved normally" — after which the next card is open to
 * everyone again. */
static void tiebreak_end(struct cp_state *st, struct eng_out *out, int64_t now) {
        uint32_t waiting = seats_in(st) & ~st->t.tiebreak;

        if (!st->t.tiebreak)
                return;
        st->t.tiebreak = 0;
        for (int s = 0; s < st->n_seats; s++)
                if (waiting & seat_bit(s))
                        emit_lockout(out, s, now, 0);
}

/* Rulebook: "Any player with three chips is out of the game."  Their stack
 * is set aside as it is (docs/games/crash-pilot.md, "Eliminated players").
 * Returns true when that leaves one player, who wins. */
static bool eliminate(struct cp_state *st, struct eng_out *out, int seat, int64_t now) {
        struct eng_output *o;
        uint32_t left;

        st->t.out_order[seat] = ++st->t.n_out;
        o = eng_out_push(out, &cp_ev_player_eliminated, seat, now);
        if (o)
                o->v[CP_ELIMINATED_ORDER] = st->t.out_order[seat];
        emit_buzz(out, seat, now, ENG_BUZZ_LONG_SHORT, CP_BUZZ_OUT_MS);
        emit_lockout(out, seat, now, CP_PAD_ALL_BUTTONS);
        left = seats_in(st);
        if (popcount32(left) == 1) {
                for (int s = 0; s < st->n_seats; s++)
                        if (left & seat_bit(s))
                                finish(st, out, s, now);
                return true;
        }
        return false;
}

static bool call_is_legal(const struct cp_table *t, int call, uint8_t card) {
        if (call == CP_CALL_DOESNT_FIT)
                return cp_fits_nowhere(t, card);
        return cp_fits_row(t, (unsigned) call - 1, card);
}

/* Rulebook, "Gameplay" and "Does not fit": a correct row call places the
 * card and the caller turns over the top card of their stack; a correct
 * "doesn't fit" tucks the card and the caller turns over theirs; a wrong
 * call of either kind earns a chip, tucks the card, and the next card comes
 * from the neutral deck.  "Game End": a caller whose stack holds one card
 * would now turn over their last card, and wins; that card is not played. */
static enum eng_refusal do_call(struct cp_state *st, const struct eng_input *in,
                                struct eng_out *out, int *ret_err) {
        struct cp_table *t = &st->t;
        int seat = in->seat, call = in->call.call;
        int64_t now = in->time_us, reaction;
        struct eng_output *o;
        uint8_t card;

        if (seat < 0 || seat >= st->n_seats || call < 1 || call > CP_CALL_DOESNT_FIT)
                return ENG_REFUSED_INVALID;
        if (t->phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (t->phase == CP_PHASE_READY)
                return ENG_REFUSED_STATE;
        /* Rulebook: "Only the first such row called counts."  The judge
         * picked the first call; anything else for this card is late.  A
         * late call names no card: between cards none is face up (and any
         * other card named could be one still hidden in a stack), the card
         * up now may not be the one the call was for, and while paused the
         * face-up card is hidden from the players this event reaches. */
        if (!st->window_open || in->call.window != st->windows) {
                emit_judged(st, out, in, CP_VERDICT_TOO_LATE, 0, -1);
                return ENG_REFUSED_TOO_LATE;
        }
        if (!(t->allowed & seat_bit(seat))) {
                emit_judged(st, out, in, CP_VERDICT_NOT_ALLOWED, 0, t->face_up);
                return ENG_REFUSED_NOT_ALLOWED;
        }
        if (in->call.press_us < t->shown_us || in->call.press_us > now)
                return ENG_REFUSED_INVALID;

        resolution_begin(st, in, out);
        card = t->face_up;
        reaction = in->call.press_us - t->shown_us;
        t->stats[seat].calls++;
        t->stats[seat].reaction_sum_us += reaction;
        t->has_face_up = false;
        t->last = (struct cp_last) {
                .valid = true, .seat = (int8_t) seat, .call = (uint8_t) call,
                .card = card, .reaction_us = reaction,
        };

        if (call_is_legal(t, call, card)) {
                t->stats[seat].correct++;
                t->last.verdict = CP_VERDICT_CORRECT;
                emit_judged(st, out, in, CP_VERDICT_CORRECT, reaction, card);
                emit_light(out, seat, now, (unsigned) call - 1, ENG_LIGHT_ON, CP_LIGHT_CORRECT_MS);
                if (call == CP_CALL_DOESNT_FIT) {
                        neutral_tuck(t, card);
                        emit_tucked(st, out, seat, now, card, CP_CAUSE_DOESNT_FIT);
                } else {
                        unsigned r = (unsigned) call - 1;

                        t->rows[r][t->row_len[r]++] = card;
                        o = eng_out_push(out, &cp_ev_card_placed, seat, now);
                        if (o) {
                                o->v[CP_PLACED_CARD] = cp_handle(st, card);
                                o->v[CP_PLACED_ROW] = call;
                        }
                }
                tiebreak_end(st, out, now);
                if (t->stack_len[seat] == 1) {
                        turn_over_last(st, out, seat, now);
                        finish(st, out, seat, now);
                        return ENG_ACCEPTED;
                }
                *ret_err = schedule(st, out, CP_NEXT_STACK, seat, now);
                return ENG_ACCEPTED;
        }

        /* Rulebook: "If the card cannot be legally added to that row, that
         * player gets a red chip ... The card is tucked underneath the
         * neutral deck, and that player turns up the top card of the
         * neutral deck." */
        t->stats[seat].wrong++;
        t->chips[seat]++;
        t->last.verdict = CP_VERDICT_WRONG;
        emit_judged(st, out, in, CP_VERDICT_WRONG, reaction, card);
        emit_buzz(out, seat, now, ENG_BUZZ_SHORT, CP_BUZZ_WRONG_MS);
        o = eng_out_push(out, &cp_ev_chip_given, seat, now);
        if (o)
                o->v[CP_CHIP_CHIPS] = t->chips[seat];
        neutral_tuck(t, card);
        emit_tucked(st, out, seat, now, card, CP_CAUSE_WRONG_CALL);
        tiebreak_end(st, out, now);
        if (t->chips[seat] >= CP_CHIPS_OUT && eliminate(st, out, seat, now))
                return ENG_ACCEPTED;
        *ret_err = schedule(st, out, CP_NEXT_NEUTRAL, -1, now);
        return ENG_ACCEPTED;
}

/* Rulebook, "Ties": "If two or more players call out at the same time,
 * they enter a tiebreaker round.  The face-up card is tucked under the
 * neutral deck and the top card from that deck is turned up.  ... Only the
 * tied players can call out for this card.  If they tie again, repeat." */
static enum eng_refusal do_tie(struct cp_state *st, const struct eng_input *in,
                               struct eng_out *out, int *ret_err) {
        struct cp_table *t = &st->t;
        uint32_t seats = in->tie.seats;
        uint32_t all = (UINT32_C(1) << st->n_seats) - 1;
        int64_t now = in->time_us;
        struct eng_output *o;
        uint8_t card;

        if ((seats & ~all) || popcount32(seats) < 2)
                return ENG_REFUSED_INVALID;
        /* The tied calls, when known, are one per tied seat (docs/games/
         * crash-pilot.md, "Ties"). */
        if (in->tie.n_calls != 0 && in->tie.n_calls != popcount32(seats))
                return ENG_REFUSED_INVALID;
        for (int64_t k = 0; k < in->tie.n_calls; k++)
                if (in->tie.calls[k] < 1 || in->tie.calls[k] > CP_CALL_DOESNT_FIT)
                        return ENG_REFUSED_INVALID;
        if (t->phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (t->phase == CP_PHASE_READY)
                return ENG_REFUSED_STATE;
        if (!st->window_open || in->tie.window != st->windows)
                return ENG_REFUSED_TOO_LATE;
        if (seats & ~t->allowed)
                return ENG_REFUSED_NOT_ALLOWED;
        if (in->tie.press_us < t->shown_us || in->tie.press_us > now)
                return ENG_REFUSED_INVALID;

        resolution_begin(st, in, out);
        card = t->face_up;
        for (int s = 0, k = 0; s < st->n_seats; s++)
                if (seats & seat_bit(s)) {
                        t->stats[s].ties++;
                        if (k < in->tie.n_calls && call_is_legal(t, (int) in->tie.calls[k], card))
                                t->stats[s].ties_right++;
                        k++;
                }
        o = eng_out_push(out, &cp_ev_tiebreak_started, ENG_SEAT_TABLE, now);
        if (o) {
                o->v[CP_TIE_SEATS] = seats;
                o->v[CP_TIE_N_CALLS] = in->tie.n_calls;
                for (int64_t k = 0; k < in->tie.n_calls; k++)
                        o->v[CP_TIE_CALLS + k] = in->tie.calls[k];
        }
        for (int s = 0; s < st->n_seats; s++)
                if (seats & seat_bit(s))
                        emit_light(out, s, now, ENG_BUTTON_ALL, ENG_LIGHT_BLINK, CP_BLINK_TIE_MS);
        t->has_face_up = false;
        neutral_tuck(t, card);
        emit_tucked(st, out, ENG_SEAT_TABLE, now, card, CP_CAUSE_TIE);
        t->tiebreak = seats;
        for (int s = 0; s < st->n_seats; s++)
                if (t->out_order[s] == 0 && !(seats & seat_bit(s)))
                        emit_lockout(out, s, now, CP_PAD_ALL_BUTTONS);
        *ret_err = schedule(st, out, CP_NEXT_NEUTRAL, -1, now);
        return ENG_ACCEPTED;
}

/* A wake-up: the end of the pause before the next reveal, or a reveal that
 * nobody called in time (docs/games/crash-pilot.md, "Nobody calls"): the
 * card is tucked and the next neutral card revealed.  A tiebreak in which
 * nobody calls ends with it: the next card is open to every seat still in,
 * so that the tied players' rivals are not locked out expiry after expiry. */
static enum eng_refusal do_timer(struct cp_state *st, const struct eng_input *in,
                                 struct eng_out *out, int *ret_err) {
        struct cp_table *t = &st->t;
        int64_t now = in->time_us;
        struct eng_output *o;
        uint8_t card;

        if (t->phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->wake_us == ENG_NEVER || now < st->wake_us)
                return ENG_REFUSED_NOT_DUE;
        if (t->phase == CP_PHASE_BETWEEN) {
                *ret_err = reveal(st, out, (enum cp_next) t->next, t->next_seat, now);
                return ENG_ACCEPTED;
        }
        resolution_begin(st, in, out);
        card = t->face_up;
        o = eng_out_push(out, &cp_ev_reveal_expired, ENG_SEAT_TABLE, now);
        if (o)
                o->v[CP_EXPIRED_CARD] = cp_handle(st, card);
        t->has_face_up = false;
        neutral_tuck(t, card);
        emit_tucked(st, out, ENG_SEAT_TABLE, now, card, CP_CAUSE_EXPIRED);
        tiebreak_end(st, out, now);
        *ret_err = schedule(st, out, CP_NEXT_NEUTRAL, -1, now);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_start(struct cp_state *st, const struct eng_input *in,
                                 struct eng_out *out, int *ret_err) {
        if (st->t.phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->t.phase != CP_PHASE_READY)
                return ENG_REFUSED_STATE;
        eng_out_push(out, &eng_ev_match_started, ENG_SEAT_TABLE, in->time_us);
        /* Rulebook: "The youngest player begins by turning over the top
         * card from the neutral deck."  The card is the same whoever turns
         * it, so the table does (docs/games/crash-pilot.md). */
        *ret_err = reveal(st, out, CP_NEXT_NEUTRAL, -1, in->time_us);
        return ENG_ACCEPTED;
}

/* A pause closes the window (presses no longer count) and hides the card
 * from the players' screens; resuming shows it again with a new window and
 * a full timeout, so nobody gains from the pause. */
static enum eng_refusal do_pause(struct cp_state *st, const struct eng_input *in,
                                 struct eng_out *out) {
        if (st->t.phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->t.phase == CP_PHASE_READY || st->paused)
                return ENG_REFUSED_STATE;
        st->paused = true;
        st->wake_us = ENG_NEVER;
        eng_out_push(out, &eng_ev_paused, ENG_SEAT_TABLE, in->time_us);
        close_window(st, out, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_resume(struct cp_state *st, const struct eng_input *in,
                                  struct eng_out *out, int *ret_err) {
        if (st->t.phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (!st->paused)
                return ENG_REFUSED_STATE;
        st->paused = false;
        eng_out_push(out, &eng_ev_resumed, ENG_SEAT_TABLE, in->time_us);
        if (st->t.phase == CP_PHASE_SHOWING)
                *ret_err = reveal(st, out, CP_NEXT_AGAIN, -1, in->time_us);
        else
                *ret_err = schedule(st, out, (enum cp_next) st->t.next, st->t.next_seat,
                                    in->time_us);
        return ENG_ACCEPTED;
}

/* CP_ACTION_VOID_CALL: the table goes back to how it was just before the
 * last resolution (chips, stacks, rows, statistics, an elimination), and
 * that card is shown again after the usual pause with a new window.  Pads
 * are told their lock again because an elimination or a tiebreak may have
 * been undone. */
static enum eng_refusal do_action(struct cp_state *st, const struct eng_input *in,
                                  struct eng_out *out, int *ret_err) {
        struct eng_output *o;

        if (in->action != CP_ACTION_VOID_CALL)
                return ENG_REFUSED_INVALID;
        if (st->t.phase == CP_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->t.phase == CP_PHASE_READY || st->paused || !st->can_void)
                return ENG_REFUSED_STATE;
        close_window(st, out, in->time_us);
        st->t = st->before;
        st->can_void = false;
        o = eng_out_push(out, &cp_ev_call_voided, ENG_SEAT_TABLE, in->time_us);
        if (o)
                o->v[CP_VOIDED_SEQ] = (int64_t) st->before_seq;
        for (int s = 0; s < st->n_seats; s++)
                emit_lockout(out, s, in->time_us, seat_lockout(st, s));
        *ret_err = schedule(st, out, CP_NEXT_AGAIN, -1, in->time_us);
        return ENG_ACCEPTED;
}

/* The framework's void (engine/log.h): the state is already what it was
 * just before the voided inputs, at their time.  What a person sees must
 * start again from now: a face-up card is shown again with a new window
 * and a full timeout (the window the rewound state had open is closed
 * first: its presses are gone), a pending reveal comes after the usual
 * pause, a paused match stays paused.  Pads are told their lock again. */
static enum eng_refusal do_void(struct cp_state *st, const struct eng_input *in,
                                struct eng_out *out, int *ret_err) {
        int64_t now = in->time_us;

        if (st->t.phase == CP_PHASE_READY || st->t.phase == CP_PHASE_FINISHED)
                return ENG_ACCEPTED;
        for (int s = 0; s < st->n_seats; s++)
                emit_lockout(out, s, now, seat_lockout(st, s));
        if (st->paused)
                return ENG_ACCEPTED;
        close_window(st, out, now);
        if (st->t.phase == CP_PHASE_SHOWING)
                *ret_err = reveal(st, out, CP_NEXT_AGAIN, -1, now);
        else
                *ret_err = schedule(st, out, (enum cp_next) st->t.next, st->t.next_seat, now);
        return ENG_ACCEPTED;
}

/* The checks every input passes first — a new seq, a time in range and not
 * before the last accepted one — then the kind's own.  Only an accepted
 * input moves last_seq and last_us, so that a refusal changes nothing. */
static int cp_apply(void *state, const struct eng_input *in, struct eng_out *out) {
        struct cp_state *st = state;
        enum eng_refusal refusal;
        int err = 0;

        if (!st || !in || !out || st->magic != CP_MAGIC)
                return -EINVAL;
        eng_out_reset(out, st->wake_us);
        refusal = eng_input_order(in, st->any_input, st->last_seq, st->last_us);
        if (refusal == ENG_ACCEPTED)
                switch (in->kind) {
                case ENG_IN_START:
                        refusal = do_start(st, in, out, &err);
                        break;
                case ENG_IN_CALL:
                        refusal = do_call(st, in, out, &err);
                        break;
                case ENG_IN_TIE:
                        refusal = do_tie(st, in, out, &err);
                        break;
                case ENG_IN_TIMER:
                        refusal = do_timer(st, in, out, &err);
                        break;
                case ENG_IN_PAUSE:
                        refusal = do_pause(st, in, out);
                        break;
                case ENG_IN_RESUME:
                        refusal = do_resume(st, in, out, &err);
                        break;
                case ENG_IN_ACTION:
                        refusal = do_action(st, in, out, &err);
                        break;
                case ENG_IN_VOID:
                        refusal = do_void(st, in, out, &err);
                        break;
                case ENG_IN_PRESS:
                default:
                        refusal = ENG_REFUSED_UNSUPPORTED;
                        break;
                }
        if (err < 0)
                return err;
        if (refusal == ENG_ACCEPTED) {
                st->any_input = true;
                st->last_seq = in->seq;
                st->last_us = in->time_us;
        }
        out->refusal = refusal;
        out->wake_us = st->wake_us;
        return 0;
}

static enum eng_status status_of(const struct cp_state *st) {
        switch (st->t.phase) {
        case CP_PHASE_READY:
                return ENG_STATUS_READY;
        case CP_PHASE_FINISHED:
                return ENG_STATUS_FINISHED;
        default:
                return st->paused ? ENG_STATUS_PAUSED : ENG_STATUS_RUNNING;
        }
}

static enum eng_status cp_status(const void *state) {
        return status_of(state);
}

static int64_t cp_wake_us(const void *state) {
        const struct cp_state *st = state;

        return st->wake_us;
}

/* ---- The state hash.  Field order (CP_HASH_VERSION 2), every integer
 * little-endian at the width shown:
 *
 *   u8 version; cfg: u8 objects, colours, copies, i64 pause_us, timeout_us;
 *   u8 n_seats; u64 seed; u64 handle_key; the seen bitmap (CP_MAX_CARDS / 8
 *   bytes); bool any_input; u64 last_seq; i64 last_us;
 *   u32 windows, reveals; bool window_open, paused; i64 wake_us;
 *   table t; bool can_void; if can_void: u64 before_seq, table before.
 *
 * A table: u8 phase; BETWEEN: u8 next, i8 next_seat; bool has_face_up; if
 * has_face_up: u8 face_up, i8 face_source; SHOWING: u32 allowed, i64
 * shown_us; u32 tiebreak; i8 winner; u8 n_out; per row: u8 len, the cards
 * from the start; u16 neutral count, the cards top first; per seat: u8
 * stack count, the cards bottom first, u8 chips, u8 out_order, u16 calls,
 * correct, wrong, ties, ties_right, i64 reaction_sum_us; bool last.valid; if valid:
 * i8 seat, u8 call, verdict, card, i64 reaction_us.
 *
 * Only live data is hashed (no stale slots, no fields of another phase), so
 * two states that behave the same hash the same. */
static void hash_table(struct eng_hash *h, const struct cp_state *st, const struct cp_table *t) {
        eng_hash_u8(h, t->phase);
        if (t->phase == CP_PHASE_BETWEEN) {
                eng_hash_u8(h, t->next);
                eng_hash_u8(h, (uint8_t) t->next_seat);
        }
        eng_hash_bool(h, t->has_face_up);
        if (t->has_face_up) {
                eng_hash_u8(h, t->face_up);
                eng_hash_u8(h, (uint8_t) t->face_source);
        }
        if (t->phase == CP_PHASE_SHOWING) {
                eng_hash_u32(h, t->allowed);
                eng_hash_i64(h, t->shown_us);
        }
        eng_hash_u32(h, t->tiebreak);
        eng_hash_u8(h, (uint8_t) t->winner);
        eng_hash_u8(h, t->n_out);
        for (unsigned r = 0; r < CP_ROWS; r++) {
                eng_hash_u8(h, t->row_len[r]);
                eng_hash_bytes(h, t->rows[r], t->row_len[r]);
        }
        eng_hash_u16(h, t->neutral_len);
        for (unsigned i = 0; i < t->neutral_len; i++)
                eng_hash_u8(h, neutral_at(t, i));
        for (int s = 0; s < st->n_seats; s++) {
                eng_hash_u8(h, t->stack_len[s]);
                eng_hash_bytes(h, t->stack[s], t->stack_len[s]);
                eng_hash_u8(h, t->chips[s]);
                eng_hash_u8(h, t->out_order[s]);
                eng_hash_u16(h, t->stats[s].calls);
                eng_hash_u16(h, t->stats[s].correct);
                eng_hash_u16(h, t->stats[s].wrong);
                eng_hash_u16(h, t->stats[s].ties);
                eng_hash_u16(h, t->stats[s].ties_right);
                eng_hash_i64(h, t->stats[s].reaction_sum_us);
        }
        eng_hash_bool(h, t->last.valid);
        if (t->last.valid) {
                eng_hash_u8(h, (uint8_t) t->last.seat);
                eng_hash_u8(h, t->last.call);
                eng_hash_u8(h, t->last.verdict);
                eng_hash_u8(h, t->last.card);
                eng_hash_i64(h, t->last.reaction_us);
        }
}

static uint64_t cp_hash(const void *state) {
        const struct cp_state *st = state;
        struct eng_hash h;

        eng_hash_init(&h);
        eng_hash_u8(&h, CP_HASH_VERSION);
        eng_hash_u8(&h, st->cfg.objects);
        eng_hash_u8(&h, st->cfg.colours);
        eng_hash_u8(&h, st->cfg.copies);
        eng_hash_i64(&h, st->cfg.pause_us);
        eng_hash_i64(&h, st->cfg.timeout_us);
        eng_hash_u8(&h, st->n_seats);
        eng_hash_u64(&h, st->seed);
        eng_hash_u64(&h, st->handle_key);
        eng_hash_bytes(&h, st->seen, sizeof st->seen);
        eng_hash_bool(&h, st->any_input);
        eng_hash_u64(&h, st->last_seq);
        eng_hash_i64(&h, st->last_us);
        eng_hash_u32(&h, st->windows);
        eng_hash_u32(&h, st->reveals);
        eng_hash_bool(&h, st->window_open);
        eng_hash_bool(&h, st->paused);
        eng_hash_i64(&h, st->wake_us);
        hash_table(&h, st, &st->t);
        eng_hash_bool(&h, st->can_void);
        if (st->can_void) {
                eng_hash_u64(&h, st->before_seq);
                hash_table(&h, st, &st->before);
        }
        return eng_hash_value(&h);
}

/* ---- Invariants. */

#define FAIL(...) do { if (why) snprintf(why, len, __VA_ARGS__); return -EBADMSG; } while (0)

static int check_table(const struct cp_state *st, const struct cp_table *t, char *why, size_t len) {
        uint16_t seen[CP_MAX_CARDS] = { 0 };
        unsigned in = 0, outs = 0;
        uint32_t out_orders = 0;

        for (unsigned r = 0; r < CP_ROWS; r++) {
                if (t->row_len[r] < 1 || t->row_len[r] > CP_ROW_MAX)
                        FAIL("row %u holds %u cards", r + 1, t->row_len[r]);
                for (unsigned i = 0; i < t->row_len[r]; i++) {
                        if (!cp_row_accepts(t->rows[r], i, t->rows[r][i]))
                                FAIL("row %u repeats an object or a colour", r + 1);
                        seen[t->rows[r][i]]++;
                }
        }
        if (t->neutral_len > CP_MAX_CARDS || t->neutral_head >= CP_MAX_CARDS)
                FAIL("neutral deck ring out of range");
        for (unsigned i = 0; i < t->neutral_len; i++)
                seen[neutral_at(t, i)]++;
        for (int s = 0; s < st->n_seats; s++) {
                if (t->stack_len[s] > CP_MAX_STACK)
                        FAIL("seat %d holds %u cards", s, t->stack_len[s]);
                for (unsigned i = 0; i < t->stack_len[s]; i++)
                        seen[t->stack[s][i]]++;
                if (t->chips[s] > CP_CHIPS_OUT)
                        FAIL("seat %d has %u chips", s, t->chips[s]);
                if ((t->out_order[s] != 0) != (t->chips[s] == CP_CHIPS_OUT))
                        FAIL("seat %d: out_order %u with %u chips", s, t->out_order[s], t->chips[s]);
                if (t->out_order[s]) {
                        if (t->out_order[s] > t->n_out || (out_orders & seat_bit(t->out_order[s])))
                                FAIL("seat %d: bad out_order %u", s, t->out_order[s]);
                        out_orders |= seat_bit(t->out_order[s]);
                        outs++;
                } else {
                        in++;
                }
                if (t->stack_len[s] == 0 && !(t->phase == CP_PHASE_FINISHED && t->winner == s))
                        FAIL("seat %d has no cards", s);
                if (t->stats[s].correct + t->stats[s].wrong != t->stats[s].calls)
                        FAIL("seat %d: calls do not add up", s);
                if (t->stats[s].ties_right > t->stats[s].ties)
                        FAIL("seat %d: more right ties than ties", s);
                if (t->stats[s].wrong != t->chips[s])
                        FAIL("seat %d: %u wrong calls but %u chips", s, t->stats[s].wrong, t->chips[s]);
        }
        if (outs != t->n_out)
                FAIL("%u seats out, n_out %u", outs, t->n_out);
        if (t->has_face_up)
                seen[t->face_up]++;
        for (size_t id = 0; id < CP_MAX_CARDS; id++) {
                bool in_deck = CP_CARD_OBJECT(id) < st->cfg.objects &&
                               CP_CARD_COLOUR(id) < st->cfg.colours &&
                               CP_CARD_COPY(id) < st->cfg.copies;

                if (seen[id] != (in_deck ? 1 : 0))
                        FAIL("card %zu is in %u places", id, seen[id]);
        }
        switch (t->phase) {
        case CP_PHASE_READY:
                if (t->has_face_up || in != st->n_seats)
                        FAIL("ready with a card up or a seat out");
                break;
        case CP_PHASE_SHOWING:
                if (!t->has_face_up)
                        FAIL("showing without a face-up card");
                if (t->allowed != (table_seats_in(t, st->n_seats) &
                                   (t->tiebreak ? t->tiebreak : ~UINT32_C(0))))
                        FAIL("allowed seats 0x%x do not match", (unsigned) t->allowed);
                /* fall through */
        case CP_PHASE_BETWEEN:
                if (in < 2)
                        FAIL("running with %u seats in", in);
                if (t->tiebreak && popcount32(t->tiebreak) < 2)
                        FAIL("tiebreak of one seat");
                if (t->phase == CP_PHASE_BETWEEN &&
                    t->has_face_up != (t->next == CP_NEXT_AGAIN))
                        FAIL("between: face-up card and next source disagree");
                if (t->winner >= 0)
                        FAIL("a winner before the end");
                break;
        case CP_PHASE_FINISHED:
                if (t->winner < 0 || t->winner >= st->n_seats || t->out_order[t->winner])
                        FAIL("finished without a winner still in");
                if (t->has_face_up && (t->face_source != t->winner || t->stack_len[t->winner] != 0))
                        FAIL("finished with a card up that is not the winner's last");
                break;
        default:
                FAIL("phase %u", t->phase);
        }
        return 0;
}

int cp_check(const struct cp_state *st, char *why, size_t len) {
        int r;

        if (!st || st->magic != CP_MAGIC)
                FAIL("not a created state");
        r = check_table(st, &st->t, why, len);
        if (r < 0)
                return r;
        if (st->window_open != (st->t.phase == CP_PHASE_SHOWING && !st->paused))
                FAIL("window_open %d in phase %u (paused %d)", st->window_open, st->t.phase,
                     st->paused);
        if ((st->wake_us == ENG_NEVER) !=
            (st->paused || st->t.phase == CP_PHASE_READY || st->t.phase == CP_PHASE_FINISHED))
                FAIL("wake-up %lld in phase %u", (long long) st->wake_us, st->t.phase);
        if (st->can_void) {
                r = check_table(st, &st->before, why, len);
                if (r < 0)
                        return r;
        }
        return 0;
}

#undef FAIL

/* ---- Views. */

/* The one place that decides what each audience may see: the face-up card
 * is hidden from players while paused, a window's details exist only while
 * it is open, can_void is the referee's, and no audience gets the order of
 * a stack or of the neutral deck (only counts). */
int cp_view(const struct cp_state *st, enum eng_audience audience, int seat, struct cp_view *ret) {
        const struct cp_table *t;
        bool showing;

        if (!st || !ret || st->magic != CP_MAGIC)
                return -EINVAL;
        if (audience != ENG_VIEW_PUBLIC && audience != ENG_VIEW_SEAT && audience != ENG_VIEW_REFEREE)
                return -EINVAL;
        if (audience == ENG_VIEW_SEAT && (seat < 0 || seat >= st->n_seats))
                return -EINVAL;
        t = &st->t;
        memset(ret, 0, sizeof *ret);
        ret->audience = audience;
        ret->seat = audience == ENG_VIEW_SEAT ? seat : -1;
        ret->status = status_of(st);
        ret->phase = (enum cp_phase) t->phase;
        ret->n_seats = st->n_seats;
        ret->objects = st->cfg.objects;
        ret->colours = st->cfg.colours;
        ret->copies = st->cfg.copies;
        memcpy(ret->row_len, t->row_len, sizeof ret->row_len);
        memcpy(ret->rows, t->rows, sizeof ret->rows);

        showing = t->phase == CP_PHASE_SHOWING && (!st->paused || audience == ENG_VIEW_REFEREE);
        ret->face_up_shown = t->has_face_up && (showing || t->phase == CP_PHASE_FINISHED);
        ret->face_up = ret->face_up_shown ? t->face_up : 0;
        ret->face_source = ret->face_up_shown ? t->face_source : CP_FROM_NEUTRAL;
        ret->window_open = st->window_open;
        ret->window = st->window_open ? st->windows : 0;
        ret->shown_us = t->phase == CP_PHASE_SHOWING ? t->shown_us : ENG_NEVER;
        ret->allowed = st->window_open ? t->allowed : 0;
        ret->deadline_us = st->window_open ? st->wake_us : ENG_NEVER;
        ret->tiebreak = t->tiebreak;
        ret->neutral_count = t->neutral_len;
        for (int s = 0; s < st->n_seats; s++) {
                struct cp_view_seat *v = &ret->seats[s];

                v->cards_left = t->stack_len[s];
                v->chips = t->chips[s];
                v->out = t->out_order[s] != 0;
                v->out_order = t->out_order[s];
                v->may_call = st->window_open && (t->allowed & seat_bit(s));
                v->in_tiebreak = (t->tiebreak & seat_bit(s)) != 0;
                v->winner = t->winner == s;
                v->stats = t->stats[s];
        }
        ret->last = t->last;
        ret->winner = t->winner;
        ret->next_source = CP_FROM_NEUTRAL;
        ret->next_reveal_us = ENG_NEVER;
        if (t->phase == CP_PHASE_BETWEEN) {
                ret->next_source = t->next == CP_NEXT_STACK ? t->next_seat
                                 : t->next == CP_NEXT_AGAIN ? CP_FROM_AGAIN
                                 : CP_FROM_NEUTRAL;
                ret->next_reveal_us = st->wake_us;
        }
        ret->can_void = audience == ENG_VIEW_REFEREE && st->can_void && !st->paused &&
                        t->phase != CP_PHASE_FINISHED;
        return 0;
}

static const char *phase_name(enum cp_phase p) {
        switch (p) {
        case CP_PHASE_READY:
                return "ready";
        case CP_PHASE_SHOWING:
                return "showing";
        case CP_PHASE_BETWEEN:
                return "between";
        case CP_PHASE_FINISHED:
                return "finished";
        }
        return "unknown";
}

/* A card's face: what is printed on it. */
/* What a card is called, on every screen and in every explanation alike
 * (docs/games/crash-pilot.md, "Card names"): the rulebook draws its cards
 * and names none, so the engine names them, once.  Eight of each, as many
 * as a deck may have (CP_MAX_KINDS). */
static const char *const object_names[CP_MAX_KINDS] = {
        "circle", "square", "triangle", "star", "diamond", "cross", "heart", "hexagon",
};
static const char *const colour_names[CP_MAX_KINDS] = {
        "red", "blue", "green", "yellow", "purple", "orange", "pink", "grey",
};
const char *cp_card_name(uint8_t card, char buf[static CP_CARD_NAME_MAX]) {
        snprintf(buf, CP_CARD_NAME_MAX, "%s %s", colour_names[CP_CARD_COLOUR(card)], object_names[CP_CARD_OBJECT(card)]);
        return buf;
}

static int face_visit(uint8_t card, const struct eng_visitor *v, void *ctx) {
        char name[CP_CARD_NAME_MAX];
        int r = v->integer(ctx, "object", CP_CARD_OBJECT(card));

        if (r >= 0)
                r = v->integer(ctx, "colour", CP_CARD_COLOUR(card));
        cp_card_name(card, name);
        if (r >= 0)
                r = v->string(ctx, ENG_CARD_NAME, name);
        return r;
}

static int cp_card_face(const void *state, uint32_t handle, const struct eng_visitor *v, void *ctx) {
        uint8_t card;

        if (cp_card_of(state, handle, &card) < 0)
                return -ENOENT;
        return face_visit(card, v, ctx);
}

/* Rulebook, "Gameplay": players call "the number of that row", or "Doesn't
 * fit". */
static const char *const cp_calls[] = {
        [1] = "row 1", [2] = "row 2", [3] = "row 3",
        [4] = "row 4", [5] = "row 5", [6] = "row 6",
        [CP_CALL_DOESNT_FIT] = "doesn't fit",
};

/* A card as views show it: its handle and its face. */
static void w_card_fields(struct eng_walk *w, const struct cp_state *st, uint8_t card) {
        eng_walk_handle(w, "handle", cp_handle(st, card));
        if (w->r >= 0)
                w->r = face_visit(card, w->v, w->ctx);
}

static void w_card(struct eng_walk *w, const struct cp_state *st, const char *key, uint8_t card) {
        eng_walk_obj(w, key);
        w_card_fields(w, st, card);
        eng_walk_end_obj(w);
}

static void w_source(struct eng_walk *w, int source) {
        eng_walk_str(w, "source", source == CP_FROM_NEUTRAL ? "neutral"
                         : source == CP_FROM_AGAIN ? "again" : "stack");
        if (source >= 0)
                eng_walk_int(w, "seat", source);
        else
                eng_walk_null(w, "seat");
}

static void w_player(struct eng_walk *w, const char *key, int s, const struct cp_view_seat *p) {
        eng_walk_obj(w, key);
        eng_walk_int(w, "seat", s);
        eng_walk_int(w, "cards_left", p->cards_left);
        eng_walk_int(w, "chips", p->chips);
        eng_walk_bool(w, "out", p->out);
        if (p->out)
                eng_walk_int(w, "out_order", p->out_order);
        else
                eng_walk_null(w, "out_order");
        eng_walk_bool(w, "may_call", p->may_call);
        eng_walk_bool(w, "in_tiebreak", p->in_tiebreak);
        eng_walk_bool(w, "winner", p->winner);
        eng_walk_int(w, "calls", p->stats.calls);
        eng_walk_int(w, "correct", p->stats.correct);
        eng_walk_int(w, "wrong", p->stats.wrong);
        eng_walk_int(w, "ties", p->stats.ties);
        eng_walk_int(w, "ties_right", p->stats.ties_right);
        if (p->stats.calls)
                eng_walk_int(w, "reaction_avg_us", p->stats.reaction_sum_us / p->stats.calls);
        else
                eng_walk_null(w, "reaction_avg_us");
        eng_walk_end_obj(w);
}

/* The JSON shape of every audience's view; docs/games/crash-pilot.md,
 * "Views", lists the fields.  Built from cp_view() so that the hiding rules
 * live in one place. */
static int cp_view_visit(const void *state, enum eng_audience audience, int seat,
                         const struct eng_visitor *v, void *ctx) {
        struct eng_walk w = { .v = v, .ctx = ctx };
        struct cp_view cv;
        int r;

        r = cp_view(state, audience, seat, &cv);
        if (r < 0)
                return r;
        eng_walk_str(&w, "game", cp_game.name);
        eng_walk_str(&w, "audience", eng_audience_name(audience));
        eng_walk_str(&w, "status", eng_status_name(cv.status));
        eng_walk_str(&w, "phase", phase_name(cv.phase));
        eng_walk_int(&w, "seats", cv.n_seats);
        eng_walk_obj(&w, "deck");
        eng_walk_int(&w, "objects", cv.objects);
        eng_walk_int(&w, "colours", cv.colours);
        eng_walk_int(&w, "copies", cv.copies);
        eng_walk_end_obj(&w);

        eng_walk_arr(&w, "rows");
        for (unsigned r6 = 0; r6 < CP_ROWS; r6++) {
                eng_walk_arr(&w, NULL);
                for (unsigned i = 0; i < cv.row_len[r6]; i++)
                        w_card(&w, state, NULL, cv.rows[r6][i]);
                eng_walk_end_arr(&w);
        }
        eng_walk_end_arr(&w);

        if (cv.face_up_shown) {
                eng_walk_obj(&w, "face_up");
                w_card_fields(&w, state, cv.face_up);
                w_source(&w, cv.face_source);
                eng_walk_end_obj(&w);
        } else {
                eng_walk_null(&w, "face_up");
        }
        if (cv.window_open) {
                eng_walk_obj(&w, "window");
                eng_walk_int(&w, "id", cv.window);
                eng_walk_int(&w, "opened_us", cv.shown_us);
                eng_walk_seats(&w, "seats", cv.allowed);
                eng_walk_time(&w, "deadline_us", cv.deadline_us);
                eng_walk_end_obj(&w);
        } else {
                eng_walk_null(&w, "window");
        }
        eng_walk_seats(&w, "tiebreak", cv.tiebreak);
        eng_walk_int(&w, "neutral_cards", cv.neutral_count);
        if (cv.phase == CP_PHASE_BETWEEN) {
                eng_walk_obj(&w, "next");
                w_source(&w, cv.next_source);
                eng_walk_time(&w, "at_us", cv.next_reveal_us);
                eng_walk_end_obj(&w);
        } else {
                eng_walk_null(&w, "next");
        }

        eng_walk_arr(&w, "players");
        for (int s = 0; s < cv.n_seats; s++)
                w_player(&w, NULL, s, &cv.seats[s]);
        eng_walk_end_arr(&w);

        if (cv.last.valid) {
                eng_walk_obj(&w, "last_call");
                eng_walk_int(&w, "seat", cv.last.seat);
                eng_walk_int(&w, "call", cv.last.call);
                eng_walk_str(&w, "call_name", cp_calls[cv.last.call]);
                eng_walk_str(&w, "verdict", verdict_choices[cv.last.verdict]);
                eng_walk_int(&w, "reaction_us", cv.last.reaction_us);
                w_card(&w, state, "card", cv.last.card);
                eng_walk_end_obj(&w);
        } else {
                eng_walk_null(&w, "last_call");
        }
        if (cv.winner >= 0)
                eng_walk_int(&w, "winner", cv.winner);
        else
                eng_walk_null(&w, "winner");

        if (audience == ENG_VIEW_SEAT)
                w_player(&w, "you", seat, &cv.seats[seat]);
        if (audience == ENG_VIEW_REFEREE)
                eng_walk_bool(&w, "can_void", cv.can_void);
        return w.r;
}

/* The seat's statistics, for the result. */
static int cp_stats_visit(const void *state, int seat, const struct eng_visitor *v, void *ctx) {
        const struct cp_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };
        const struct cp_stats *x;

        if (!st || st->magic != CP_MAGIC || seat < 0 || seat >= st->n_seats)
                return -EINVAL;
        x = &st->t.stats[seat];
        eng_walk_int(&w, "calls", x->calls);
        eng_walk_int(&w, "correct", x->correct);
        eng_walk_int(&w, "wrong", x->wrong);
        eng_walk_int(&w, "ties", x->ties);
        eng_walk_int(&w, "ties_right", x->ties_right);
        eng_walk_int(&w, "reaction_sum_us", x->reaction_sum_us);
        if (x->calls)
                eng_walk_int(&w, "reaction_avg_us", x->reaction_sum_us / x->calls);
        else
                eng_walk_null(&w, "reaction_avg_us");
        eng_walk_int(&w, "chips", st->t.chips[seat]);
        eng_walk_int(&w, "cards_left", st->t.stack_len[seat]);
        eng_walk_bool(&w, "eliminated", st->t.out_order[seat] != 0);
        if (st->t.out_order[seat])
                eng_walk_int(&w, "eliminated_order", st->t.out_order[seat]);
        else
                eng_walk_null(&w, "eliminated_order");
        return w.r;
}

/* Replaces every hidden card of t's live places by its image in map. */
static void substitute_hidden(const struct cp_state *st, struct cp_table *t, const uint8_t *map) {
        for (unsigned i = 0; i < t->neutral_len; i++) {
                uint8_t *c = &t->neutral[(t->neutral_head + i) % CP_MAX_CARDS];

                if (!was_seen(st, *c))
                        *c = map[*c];
        }
        for (int s = 0; s < st->n_seats; s++)
                for (unsigned i = 0; i < t->stack_len[s]; i++)
                        if (!was_seen(st, t->stack[s][i]))
                                t->stack[s][i] = map[t->stack[s][i]];
}

/* What is still hidden: the cards that were never face up, wherever they
 * are (the neutral deck, the stacks).  Permuting them among their places
 * keeps every pile's size and every card anyone has seen where it is.  The
 * snapshot a void_call restores holds the same hidden cards (a resolution
 * moves only cards that are then seen), so it gets the same permutation,
 * card for card: a void_call then restores the table as it was before the
 * resolution, with the reshuffled hidden cards. */
static int cp_perturb_hidden(void *state, uint64_t salt) {
        struct cp_state *st = state;
        struct cp_table *t = &st->t;
        uint8_t *where[CP_MAX_CARDS], cards[CP_MAX_CARDS], map[CP_MAX_CARDS];
        struct eng_rng rng;
        size_t n = 0;

        if (!st || st->magic != CP_MAGIC)
                return -EINVAL;
        for (unsigned i = 0; i < t->neutral_len; i++) {
                uint8_t *c = &t->neutral[(t->neutral_head + i) % CP_MAX_CARDS];

                if (!was_seen(st, *c))
                        where[n++] = c;
        }
        for (int s = 0; s < st->n_seats; s++)
                for (unsigned i = 0; i < t->stack_len[s]; i++)
                        if (!was_seen(st, t->stack[s][i]))
                                where[n++] = &t->stack[s][i];
        if (n < 2)
                return -EAGAIN;
        for (size_t i = 0; i < n; i++)
                cards[i] = *where[i];
        eng_rng_seed(&rng, salt);
        eng_rng_shuffle_u8(&rng, cards, n);
        /* A change is promised: a shuffle that left every card in place
         * (likely with two) swaps the first two. */
        bool moved = false;
        for (size_t i = 0; i < n; i++)
                moved |= cards[i] != *where[i];
        if (!moved) {
                uint8_t c = cards[0];

                cards[0] = cards[1];
                cards[1] = c;
        }
        for (size_t i = 0; i < CP_MAX_CARDS; i++)
                map[i] = (uint8_t) i;
        for (size_t i = 0; i < n; i++)
                map[*where[i]] = cards[i];
        substitute_hidden(st, t, map);
        if (st->can_void)
                substitute_hidden(st, &st->before, map);
        return 0;
}

static const struct eng_input_def cp_actions[CP_N_ACTIONS] = {
        [CP_ACTION_VOID_CALL] = {
                .name = "void_call", .from = ENG_FROM_REFEREE,
                .doc = "Undo the last resolution of a face-up card (a call, a tie or an expiry) and show that "
                       "card again; one level deep.",
        },
};

/* docs/protocol.md section 7: a Crash Pilot pad's buttons 0-5 call rows
 * 1-6, button 6 "doesn't fit". */
static const struct eng_route cp_routes[] = {
        { .role = ENG_ROLE_BUTTONS, .button = 0, .kind = ENG_ROUTE_CALL, .call = 1 },
        { .role = ENG_ROLE_BUTTONS, .button = 1, .kind = ENG_ROUTE_CALL, .call = 2 },
        { .role = ENG_ROLE_BUTTONS, .button = 2, .kind = ENG_ROUTE_CALL, .call = 3 },
        { .role = ENG_ROLE_BUTTONS, .button = 3, .kind = ENG_ROUTE_CALL, .call = 4 },
        { .role = ENG_ROLE_BUTTONS, .button = 4, .kind = ENG_ROUTE_CALL, .call = 5 },
        { .role = ENG_ROLE_BUTTONS, .button = 5, .kind = ENG_ROUTE_CALL, .call = 6 },
        { .role = ENG_ROLE_BUTTONS, .button = CP_BUTTON_DOESNT_FIT, .kind = ENG_ROUTE_CALL,
          .call = CP_CALL_DOESNT_FIT },
};

/* The view's top-level members (docs/games/crash-pilot.md, "Views"). */
static const struct eng_field cp_view_fields[] = {
        { .name = "game", .type = ENG_T_ENUM, .doc = "\"crash-pilot\"." },
        { .name = "audience", .type = ENG_T_ENUM, .doc = "public, seat or referee." },
        { .name = "status", .type = ENG_T_ENUM, .doc = "ready, running, paused or finished." },
        { .name = "phase", .type = ENG_T_ENUM, .doc = "ready, showing, between or finished." },
        { .name = "seats", .type = ENG_T_INT, .doc = "How many seats." },
        { .name = "deck", .type = ENG_T_OBJECT, .doc = "objects, colours, copies." },
        { .name = "rows", .type = ENG_T_OBJECT, .doc = "The six rows, each a list of cards from its start." },
        { .name = "face_up", .type = ENG_T_OBJECT,
          .doc = "The face-up card and where it came from; null between cards, and for players (not "
                 "the referee) during a pause; once the match is won, the winner's last card." },
        { .name = "window", .type = ENG_T_OBJECT, .doc = "The open window: id, opened_us, seats, deadline_us." },
        { .name = "tiebreak", .type = ENG_T_SEATS, .doc = "The seats in a tiebreak." },
        { .name = "neutral_cards", .type = ENG_T_INT, .doc = "Cards in the neutral deck." },
        { .name = "next", .type = ENG_T_OBJECT, .doc = "Between cards: where the next comes from, and when." },
        { .name = "players", .type = ENG_T_OBJECT, .doc = "Each seat: cards left, chips, out, calls, …" },
        { .name = "last_call", .type = ENG_T_OBJECT, .doc = "The last judged call and its verdict." },
        { .name = "winner", .type = ENG_T_SEAT, .doc = "The winner, once there is one." },
        { .name = "you", .type = ENG_T_OBJECT, .audience = ENG_VIEW_SEAT, .doc = "The viewer's own seat." },
        { .name = "can_void", .type = ENG_T_BOOL, .audience = ENG_VIEW_REFEREE,
          .doc = "Whether void_call can undo the last resolution now." },
};

const struct eng_game cp_game = {
        .name = "crash-pilot",
        .display_name = "Crash Pilot",
        .description = "Everyone races to call a row for the face-up card: a row that holds neither its "
                       "object nor its colour, or \"doesn't fit\".  The first call counts; a wrong one "
                       "earns a red chip, three put a player out; the first to turn over their last card "
                       "wins.  2 to 5 players, one button pad each.",
        .min_seats = CP_MIN_SEATS,
        .max_seats = CP_MAX_SEATS,
        .params = cp_params,
        .n_params = CP_N_PARAMS,
        .actions = cp_actions,
        .n_actions = CP_N_ACTIONS,
        .builtins = (1u << ENG_IN_CALL) | (1u << ENG_IN_TIE),
        .events = cp_events,
        .n_events = ELEMENTSOF(cp_events),
        .routes = cp_routes,
        .n_routes = ELEMENTSOF(cp_routes),
        .calls = cp_calls,
        .n_calls = ELEMENTSOF(cp_calls),
        .view = cp_view_fields,
        .n_view = ELEMENTSOF(cp_view_fields),
        .state_size = sizeof(struct cp_state),
        .max_outputs = 24,
        .validate = cp_validate,
        .create = cp_create,
        .apply = cp_apply,
        .status = cp_status,
        .wake_us = cp_wake_us,
        .view_visit = cp_view_visit,
        .hash = cp_hash,
        .result = cp_result,
        .card_face = cp_card_face,
        .stats = cp_stats_visit,
        .perturb_hidden = cp_perturb_hidden,
};
