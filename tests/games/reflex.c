/* tests/games/reflex.c — the rules of Reflex Duel ("reflex"), the test
 * game that proves engine/engine.h general (reflex.h says why it exists,
 * the state diagram and the invariants).
 *
 * What it owns: the game's schema (settings, the prompts data file,
 * actions, events, routes, view members), its rules, its hash and its
 * views.  It includes engine/ headers and libc only and is built without
 * any library's flags (Makefile, GAME_OBJS).
 *
 * The rules, as implemented:
 *   - Set-up: the prompts (the built-in list or the match's "prompts" data
 *     file) are shuffled with the match seed; each seat draws a secret
 *     lucky number 1..99 that only its own view shows.
 *   - START opens round 1.  A round waits a random delay in
 *     [go.delay_min_ms, go.delay_max_ms] (drawn from the state's generator
 *     when the delay starts) and asks for a wake-up; at the TIMER the go
 *     comes: event "go" turns up the next prompt (a reveal), and in judged
 *     mode a first-press window opens for every seat.
 *   - Judged mode: the judge's CALL ("hit") wins the round: +1 (term
 *     hits), plus bonus[round − 1] when the list has it (term bonus).  A TIE
 *     scores nothing.  Either closes the window.  A call or tie for a closed
 *     or other window is too late.  BUTTONS presses (ENG_IN_PRESS) are not
 *     used: UNSUPPORTED.
 *   - Timed mode: BUTTONS presses come as ENG_IN_PRESS in press order.
 *     The first press at or after the go (press_us >= the go's time) wins
 *     the round as a hit does; a press before the go is a false start: −1
 *     (term false_starts), and the round goes on.  A press from before the
 *     round's delay began, or within RX_LATE_GRACE_US after the last round
 *     was decided, belongs to a round that is over: too late, no penalty.
 *     CALL and TIE are not used: UNSUPPORTED.
 *   - After a round the next one starts at once with a new delay; a seat
 *     whose score reaches points.target ends the match.  The winner is the
 *     one best seat (none when the best are equal); with one seat, only
 *     reaching the target wins.
 *   - A seat's SLAP pad calls a timeout for that seat (the game's pause,
 *     game_pause() "timeout"); that seat's next slap or the referee's
 *     play_on lifts it.  The operator's PAUSE/RESUME is separate: both may
 *     be in force and lifting one leaves the other.  While either is in
 *     force no round runs: the window closes and no wake-up is asked; when
 *     the last is lifted the round starts over with a new delay (a round
 *     that had its go shows the same prompt again).
 *   - award (referee): points to one to three distinct seats (term
 *     referee), with a category (penalty, bonus, correction); it may end
 *     the match.  concede (the seat or a referee): that
 *     seat gives up and places last; the best other seat wins.  end
 *     (referee): the match is over now.
 *   - Undo (ENG_IN_VOID, engine/log.h): after the rewind, a round that was
 *     waiting or live starts over from the void's time with a fresh delay
 *     (a window the rewound state had open is closed first); a paused
 *     match stays paused.
 *   - Result: places by score, higher first, equal scores share; a seat
 *     that conceded is last.  Teams (setting "teams", 2+ seats): seat s is
 *     in team s % 2.  One seat: label "sharp" once the target was reached,
 *     else "warming up".
 *
 * As in Crash Pilot, every handler decides whether to refuse before it
 * changes anything, so that a refused input leaves the state (and its
 * hash) as it was.
 */
#include "reflex.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/hash.h"
#include "engine/walk.h"

#define RX_MAGIC                UINT32_C(0x52584731)    /* "RXG1" */
/* Bumped whenever the canonical serialisation (rx_hash) changes. */
#define RX_HASH_VERSION         1

#define US_PER_MS               INT64_C(1000)
#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))
/* Printable ASCII: space to tilde. */
#define ASCII_FIRST_PRINTABLE   0x20
#define ASCII_LAST_PRINTABLE    0x7e
/* Result keys: a seat that conceded sorts after every score, and a score
 * (four int32 terms) plus this bias is never negative. */
#define KEY_CONCEDED            (UINT64_C(1) << 62)
#define KEY_SCORE_BIAS          (INT64_C(1) << 40)

/* Pad feedback, for fun: the hitter's button lights while people look at
 * the score, tied pads blink as long, a false start beeps, the winner's
 * pad blinks until noticed. */
#define RX_LIGHT_HIT_MS         1000
#define RX_BLINK_TIE_MS         1000
#define RX_BUZZ_FALSE_MS        300
#define RX_BLINK_WIN_MS         5000

/* ---- Schema. */

static const char *const mode_choices[] = { "judged", "timed" };
static const char *const mode_text[] = { "judged by the first-press judge", "timed by the pads' clocks" };

static const struct eng_field rx_params[RX_N_PARAMS] = {
        [RX_PARAM_TARGET] = {
                .name = "points.target", .type = ENG_T_INT,
                .min = RX_TARGET_MIN, .max = RX_TARGET_MAX, .def = RX_TARGET_DEFAULT, .unit = "points",
                .doc = "Points a seat needs to win the match.",
        },
        [RX_PARAM_DELAY_MIN] = {
                .name = "go.delay_min_ms", .type = ENG_T_INT,
                .min = 0, .max = RX_DELAY_MAX_MS, .def = RX_DELAY_MIN_DEFAULT_MS, .unit = "ms",
                .doc = "The shortest wait before a go; at most go.delay_max_ms.",
        },
        [RX_PARAM_DELAY_MAX] = {
                .name = "go.delay_max_ms", .type = ENG_T_INT,
                .min = 0, .max = RX_DELAY_MAX_MS, .def = RX_DELAY_MAX_DEFAULT_MS, .unit = "ms",
                .doc = "The longest wait before a go; each round's wait is drawn at random in between.",
        },
        [RX_PARAM_MODE] = {
                .name = "mode", .type = ENG_T_ENUM, .min = 0, .max = RX_MODE_TIMED, .def = RX_MODE_JUDGED,
                .choices = mode_choices, .choice_text = mode_text,
                .doc = "judged: the first-press judge decides each round; timed: every press counts in "
                       "press order, and a press before the go is a false start.",
        },
        [RX_PARAM_BONUS] = {
                .name = "bonus", .type = ENG_T_INT, .min = RX_BONUS_MIN, .max = RX_BONUS_MAX,
                .max_count = RX_MAX_BONUS, .unit = "points",
                .doc = "Extra points for winning round k (the k-th element); later rounds earn none.",
        },
        [RX_PARAM_TEAMS] = {
                .name = "teams", .type = ENG_T_BOOL, .min = 0, .max = 1, .def = 0,
                .doc = "With two or more seats, the result puts odd and even seats in two teams.",
        },
};

/* Where each setting's (first) slot is; reflex.h documents the layout. */
static const int rx_slot_of[RX_N_PARAMS] = {
        [RX_PARAM_TARGET] = RX_SLOT_TARGET,
        [RX_PARAM_DELAY_MIN] = RX_SLOT_DELAY_MIN,
        [RX_PARAM_DELAY_MAX] = RX_SLOT_DELAY_MAX,
        [RX_PARAM_MODE] = RX_SLOT_MODE,
        [RX_PARAM_BONUS] = RX_SLOT_BONUS,
        [RX_PARAM_TEAMS] = RX_SLOT_TEAMS,
};

static const char rx_builtin_prompts[] =
        "# Reflex Duel's prompts: one per line, 1 to 24 printable ASCII characters.\n"
        "# Each go turns up the next one; '#' starts a comment.\n"
        "apple\n"
        "banana\n"
        "cherry\n"
        "dragon\n"
        "ember\n"
        "falcon\n"
        "glacier\n"
        "harbour\n"
        "island\n"
        "jaguar\n"
        "kettle\n"
        "lantern\n"
        "meadow\n"
        "nectar\n"
        "orbit\n"
        "pepper\n"
        "quartz\n"
        "river\n"
        "saddle\n"
        "thunder\n";

static const struct eng_data_def rx_data[] = {
        [RX_DATA_PROMPTS] = {
                .name = "prompts", .builtin = rx_builtin_prompts, .max_len = RX_DATA_MAX_LEN,
                .doc = "The prompts a go turns up: one per line, 1 to 24 printable ASCII characters, 1 to 64 "
                       "prompts; blank lines and everything after a '#' are ignored.",
        },
};

/* ---- Small helpers. */

static inline uint32_t seat_bit(int s) {
        return UINT32_C(1) << s;
}

static uint32_t all_seats(const struct rx_state *st) {
        return (UINT32_C(1) << st->n_seats) - 1;
}

static unsigned popcount32(uint32_t x) {
        unsigned n = 0;

        for (; x; x &= x - 1)
                n++;
        return n;
}

static bool seat_ok(const struct rx_state *st, int seat) {
        return seat >= 0 && seat < st->n_seats;
}

static bool paused(const struct rx_state *st) {
        return st->op_paused || st->timeout_seat >= 0;
}

int64_t rx_score(const struct rx_state *st, int seat) {
        int64_t sum = 0;

        for (unsigned t = 0; t < RX_N_TERMS; t++)
                sum += st->seats[seat].terms[t];
        return sum;
}

uint32_t rx_handle(const struct rx_state *st, unsigned prompt) {
        return eng_handle(st->handle_key, prompt);
}

int rx_card_of(const struct rx_state *st, uint32_t handle, unsigned *ret_prompt) {
        uint32_t prompt = eng_handle_card(st->handle_key, handle);

        if (prompt >= st->n_prompts)
                return -ENOENT;
        *ret_prompt = prompt;
        return 0;
}

/* ---- Validation and the data file. */

/* Parses the prompts file of data (custom or built in) into ret (NULL:
 * check only).  0 with *ret_n, or -EINVAL with *ret_err naming the line. */
static int parse_prompts(const struct eng_data *data, char (*ret)[RX_PROMPT_MAX + 1], uint8_t *ret_n,
                         struct eng_error *ret_err) {
        const char *text, *line;
        size_t len, pos = 0, n_line;
        unsigned line_no = 0, n = 0;
        char field[ENG_FIELD_MAX];

        if (eng_data_file(&rx_game, data, RX_DATA_PROMPTS, &text, &len) < 0)
                return eng_error_set(ret_err, "data.prompts", "cannot be read");
        if (len > RX_DATA_MAX_LEN)
                return eng_error_set(ret_err, "data.prompts", "is %zu bytes; at most %d are accepted", len,
                                     RX_DATA_MAX_LEN);
        while (eng_data_next_line(text, len, &pos, &line, &n_line, &line_no) > 0) {
                snprintf(field, sizeof field, "data.prompts line %u", line_no);
                if (n_line > RX_PROMPT_MAX)
                        return eng_error_set(ret_err, field,
                                             "is %zu characters long; a prompt is 1 to %d printable ASCII "
                                             "characters", n_line, RX_PROMPT_MAX);
                for (size_t i = 0; i < n_line; i++) {
                        unsigned char c = (unsigned char) line[i];

                        if (c < ASCII_FIRST_PRINTABLE || c > ASCII_LAST_PRINTABLE)
                                return eng_error_set(ret_err, field,
                                                     "holds byte 0x%02x at column %zu; a prompt is printable "
                                                     "ASCII", c, i + 1);
                }
                if (n == RX_MAX_PROMPTS)
                        return eng_error_set(ret_err, field, "is prompt %u; at most %d are accepted", n + 1,
                                             RX_MAX_PROMPTS);
                if (ret) {
                        memcpy(ret[n], line, n_line);
                        ret[n][n_line] = '\0';
                }
                n++;
        }
        if (n == 0)
                return eng_error_set(ret_err, "data.prompts", "holds no prompt; 1 to %d are needed",
                                     RX_MAX_PROMPTS);
        if (ret_n)
                *ret_n = (uint8_t) n;
        return 0;
}

/* eng_config_validate has checked the seats and every range already; they
 * are checked again because create() calls this directly. */
static int rx_validate(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                       struct eng_error *ret_err) {
        const int64_t *v;

        if (!cfg)
                return -EINVAL;
        v = cfg->v;
        if (n_seats < RX_MIN_SEATS || n_seats > RX_MAX_SEATS)
                return eng_error_set(ret_err, "seats", "must be %d..%d", RX_MIN_SEATS, RX_MAX_SEATS);
        for (unsigned p = 0; p < RX_N_PARAMS; p++) {
                const struct eng_field *f = &rx_params[p];

                if (f->max_count)
                        continue;
                if (eng_value_check(f, f->name, v[rx_slot_of[p]], ret_err) < 0)
                        return -EINVAL;
        }
        if (v[RX_SLOT_BONUS] < 0 || v[RX_SLOT_BONUS] > RX_MAX_BONUS)
                return eng_error_set(ret_err, "bonus", "must list at most %d", RX_MAX_BONUS);
        for (int64_t k = 0; k < v[RX_SLOT_BONUS]; k++) {
                char item[ENG_FIELD_MAX];

                snprintf(item, sizeof item, "bonus[%lld]", (long long) k);
                if (eng_value_check(&rx_params[RX_PARAM_BONUS], item, v[RX_SLOT_BONUS + 1 + k], ret_err) < 0)
                        return -EINVAL;
        }
        if (v[RX_SLOT_DELAY_MIN] > v[RX_SLOT_DELAY_MAX])
                return eng_error_set(ret_err, "go.delay_min_ms", "is %lld ms, more than go.delay_max_ms (%lld ms)",
                                     (long long) v[RX_SLOT_DELAY_MIN], (long long) v[RX_SLOT_DELAY_MAX]);
        return parse_prompts(data, NULL, NULL, ret_err);
}

/* ---- Set-up.  One generator, seeded with the match seed, shuffles the
 * deck, draws the lucky numbers, and then every delay and reshuffle, so
 * the seed fixes the whole match. */

static int rx_create(void *state, const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                     uint64_t seed) {
        struct rx_state *st = state;
        const int64_t *v;

        if (!st || !cfg || rx_validate(cfg, data, n_seats, NULL) < 0)
                return -EINVAL;
        v = cfg->v;
        memset(st, 0, sizeof *st);
        if (parse_prompts(data, st->prompts, &st->n_prompts, NULL) < 0)
                return -EINVAL;
        st->magic = RX_MAGIC;
        st->n_seats = (uint8_t) n_seats;
        st->target = (uint8_t) v[RX_SLOT_TARGET];
        st->mode = (uint8_t) v[RX_SLOT_MODE];
        st->teams = v[RX_SLOT_TEAMS] != 0;
        st->delay_min_ms = (uint16_t) v[RX_SLOT_DELAY_MIN];
        st->delay_max_ms = (uint16_t) v[RX_SLOT_DELAY_MAX];
        st->n_bonus = (uint8_t) v[RX_SLOT_BONUS];
        for (unsigned k = 0; k < st->n_bonus; k++)
                st->bonus[k] = (int8_t) v[RX_SLOT_BONUS + 1 + k];
        st->seed = seed;
        st->handle_key = eng_handle_key(seed);

        eng_rng_seed(&st->rng, seed);
        for (unsigned i = 0; i < st->n_prompts; i++)
                st->deck[i] = (uint8_t) i;
        eng_rng_shuffle_u8(&st->rng, st->deck, st->n_prompts);
        for (unsigned s = 0; s < n_seats; s++) {
                st->seats[s].lucky = (uint8_t) (1 + eng_rng_below(&st->rng, RX_LUCKY_MAX));
                st->seats[s].best_us = ENG_NEVER;
        }

        st->phase = RX_PHASE_READY;
        st->wake_us = ENG_NEVER;
        st->timeout_seat = -1;
        st->winner = -1;
        return 0;
}

/* ---- Events.  Each event's fields are its slots in order (reflex.h names
 * the positions). */

static const char *const by_choices[] = { "seat", "referee" };
static const char *const by_text[] = { "the seat itself", "the referee" };
static const char *const reason_choices[] = { "penalty", "bonus", "correction" };
static const char *const reason_text[] = { "a penalty", "a bonus", "a correction" };

static const struct eng_field go_fields[] = {
        [RX_GO_ROUND] = { .name = "round", .type = ENG_T_INT, .min = 1, .max = UINT32_MAX,
                          .doc = "The round, 1, 2, … in the match." },
        [RX_GO_CARD] = { .name = "card", .type = ENG_T_CARD, .doc = "The prompt turned up with the go." },
};
static const struct eng_field hit_fields[] = {
        [RX_HIT_REACTION] = { .name = "reaction_us", .type = ENG_T_INT, .min = 0, .max = ENG_TIME_LIMIT_US,
                              .unit = "µs",
                              .doc = "The press after the go, to the whole millisecond (the scoreboard's "
                                     "precision)." },
        [RX_HIT_MARGIN] = { .name = "margin_us", .type = ENG_T_INT, .min = 0, .max = ENG_TIME_LIMIT_US,
                            .unit = "µs", .audience = ENG_VIEW_SEAT,
                            .doc = "How long after the go the press came, to the microsecond: for the hitter "
                                   "only." },
        [RX_HIT_WINDOW] = { .name = "window", .type = ENG_T_INT, .min = 0, .max = UINT32_MAX, .optional = true,
                            .audience = ENG_VIEW_REFEREE,
                            .doc = "The judge's window the call answered; null in timed mode." },
};
static const struct eng_field tied_fields[] = {
        [RX_TIED_SEATS] = { .name = "seats", .type = ENG_T_SEATS,
                            .doc = "The seats that hit at the same time; nobody scores." },
};
static const struct eng_field resumed_fields[] = {
        [RX_RESUMED_TIMEOUT_SEAT] = { .name = "timeout_seat", .type = ENG_T_SEAT,
                                      .doc = "The seat whose timeout ends." },
        [RX_RESUMED_BY] = { .name = "by", .type = ENG_T_ENUM, .min = 0, .max = RX_BY_REFEREE,
                            .choices = by_choices, .choice_text = by_text,
                            .doc = "Who lifted it: the seat (its slap pad) or the referee (play_on)." },
};
static const struct eng_field awarded_fields[] = {
        [RX_AWARDED_SEATS] = { .name = "seats", .type = ENG_T_SEATS, .doc = "The seats that get the points." },
        [RX_AWARDED_POINTS] = { .name = "points", .type = ENG_T_INT, .min = -RX_AWARD_MAX_POINTS,
                                .max = RX_AWARD_MAX_POINTS, .unit = "points",
                                .doc = "Points each of them gets (negative: taken away)." },
        [RX_AWARDED_REASON] = { .name = "reason", .type = ENG_T_ENUM, .min = 0, .max = RX_REASON_CORRECTION,
                                .choices = reason_choices, .choice_text = reason_text,
                                .doc = "Why: penalty, bonus or correction." },
};

const struct eng_event_def rx_ev_go = {
        .name = "go", .fields = go_fields, .n_fields = ELEMENTSOF(go_fields), .reveals = true,
        .text = "Go! Round {round}: {card}.",
        .doc = "The go of a round: a prompt is turned up and the first press after it wins.",
};
const struct eng_event_def rx_ev_hit = {
        .name = "hit", .fields = hit_fields, .n_fields = ELEMENTSOF(hit_fields),
        .text = "{seat} hits first, {reaction_us} µs after the go.",
        .doc = "A seat won the round: a point, and the round's bonus if any.",
};
const struct eng_event_def rx_ev_tied = {
        .name = "tied", .fields = tied_fields, .n_fields = ELEMENTSOF(tied_fields),
        .text = "{seats} hit at the same time: nobody scores.",
        .doc = "The judge found seats tied for the first press; nobody scores the round.",
};
const struct eng_event_def rx_ev_false_start = {
        .name = "false_start",
        .text = "{seat} pressed before the go and loses a point.",
        .doc = "Timed mode: the event's seat pressed before the go, which costs a point; the round goes on.",
};
const struct eng_event_def rx_ev_timeout_called = {
        .name = "timeout_called",
        .text = "{seat} slaps the pad and calls a timeout.",
        .doc = "The event's seat slapped its pad and called a timeout: no round runs until it is lifted.",
};
const struct eng_event_def rx_ev_play_resumed = {
        .name = "play_resumed", .fields = resumed_fields, .n_fields = ELEMENTSOF(resumed_fields),
        .text = "{timeout_seat}'s timeout is lifted by {by}; play resumes.",
        .doc = "A timeout is over (the event's seat is the one that lifted it; the table for the "
               "referee): the round starts again with a new delay, unless the operator's pause is still "
               "in force.",
};
const struct eng_event_def rx_ev_awarded = {
        .name = "awarded", .fields = awarded_fields, .n_fields = ELEMENTSOF(awarded_fields),
        .text = "The referee gives {points} points to {seats} as {reason}.",
        .doc = "A referee's award of points to one to three seats.",
};
const struct eng_event_def rx_ev_conceded = {
        .name = "conceded",
        .text = "{seat} concedes.",
        .doc = "A seat gave up: it places last and the match is over.",
};
const struct eng_event_def rx_ev_ended = {
        .name = "ended",
        .text = "The referee ends the match.",
        .doc = "A referee ended the match where it stood.",
};

static const struct eng_event_def *const rx_events[] = {
        &rx_ev_go, &rx_ev_hit, &rx_ev_tied, &rx_ev_false_start, &rx_ev_timeout_called, &rx_ev_play_resumed,
        &rx_ev_awarded, &rx_ev_conceded, &rx_ev_ended,
};

/* ---- Outputs. */

static void emit_light(struct eng_out *out, int seat, int64_t now, unsigned button, enum eng_light mode,
                       unsigned ms) {
        struct eng_output *o = eng_out_push(out, &eng_req_pad_light, seat, now);

        if (o) {
                o->light.button = button;
                o->light.mode = mode;
                o->light.duration_ms = ms;
        }
}

static void emit_buzz(struct eng_out *out, int seat, int64_t now, enum eng_buzz pattern, unsigned ms) {
        struct eng_output *o = eng_out_push(out, &eng_req_pad_buzz, seat, now);

        if (o) {
                o->buzz.pattern = pattern;
                o->buzz.duration_ms = ms;
        }
}

static void close_window(struct rx_state *st, struct eng_out *out, int64_t now) {
        struct eng_output *o;

        if (!st->window_open)
                return;
        st->window_open = false;
        o = eng_out_push(out, &eng_req_window_close, ENG_SEAT_TABLE, now);
        if (o)
                o->window.window = st->windows;
}

/* ---- Result. */

/* The winner of a finished match: the one best seat that has not
 * conceded (none when the best are equal); alone at the table, a seat wins
 * only by reaching the target. */
static int winner_of(const struct rx_state *st) {
        int best = -1;
        bool shared = false;

        if (st->n_seats == 1)
                return !st->seats[0].conceded && rx_score(st, 0) >= st->target ? 0 : -1;
        for (int s = 0; s < st->n_seats; s++) {
                if (st->seats[s].conceded)
                        continue;
                if (best < 0 || rx_score(st, s) > rx_score(st, best)) {
                        best = s;
                        shared = false;
                } else if (rx_score(st, s) == rx_score(st, best)) {
                        shared = true;
                }
        }
        return shared ? -1 : best;
}

static void fill_result(const struct rx_state *st, struct eng_result *ret) {
        uint64_t key[ENG_MAX_SEATS] = { 0 };

        memset(ret, 0, sizeof *ret);
        ret->finished = st->phase == RX_PHASE_FINISHED;
        ret->winner = ret->finished && st->winner >= 0 ? st->winner : ENG_SEAT_TABLE;
        ret->n_seats = st->n_seats;
        for (int s = 0; s < st->n_seats; s++) {
                for (unsigned t = 0; t < RX_N_TERMS; t++)
                        ret->terms[s][t] = st->seats[s].terms[t];
                key[s] = (uint64_t) (KEY_SCORE_BIAS - rx_score(st, s));
                if (st->seats[s].conceded)
                        key[s] |= KEY_CONCEDED;
        }
        eng_result_rank(ret, key);
        eng_result_sum(ret, RX_N_TERMS);
        if (st->teams && st->n_seats >= 2) {
                ret->n_stages = 1;
                for (int s = 0; s < st->n_seats; s++)
                        ret->team[s][0] = (int8_t) (s % 2);
        }
        if (st->n_seats == 1)
                ret->label = rx_score(st, 0) >= st->target ? "sharp" : "warming up";
}

static int rx_result(const void *state, struct eng_result *ret) {
        const struct rx_state *st = state;

        if (!st || !ret || st->magic != RX_MAGIC)
                return -EINVAL;
        fill_result(st, ret);
        return 0;
}

/* ---- Transitions. */

static int64_t draw_delay_us(struct rx_state *st) {
        uint64_t span = (uint64_t) (st->delay_max_ms - st->delay_min_ms) + 1;

        return ((int64_t) st->delay_min_ms + (int64_t) eng_rng_below(&st->rng, span)) * US_PER_MS;
}

/* The round's delay starts (again) now: a fresh draw, so that nobody can
 * time the go from an earlier one.  A press from before now is no false
 * start of this round. */
static void start_delay(struct rx_state *st, int64_t now) {
        st->phase = RX_PHASE_WAITING;
        st->late_until_us = now;
        st->wake_us = now + draw_delay_us(st);
}

/* A pause takes the round off the table: no window, no wake-up; a round
 * that had its go goes back to waiting, its prompt still up. */
static void suspend(struct rx_state *st, struct eng_out *out, int64_t now) {
        close_window(st, out, now);
        if (st->phase == RX_PHASE_LIVE)
                st->phase = RX_PHASE_WAITING;
        st->wake_us = ENG_NEVER;
}

static void finish(struct rx_state *st, struct eng_out *out, int64_t now) {
        struct eng_result res;
        struct eng_output *o;
        int winner;

        close_window(st, out, now);
        st->phase = RX_PHASE_FINISHED;
        st->wake_us = ENG_NEVER;
        /* Nothing is in force once the match is over. */
        st->op_paused = false;
        st->timeout_seat = -1;
        winner = winner_of(st);
        st->winner = (int8_t) winner;
        fill_result(st, &res);
        o = eng_out_push(out, &eng_ev_match_finished, winner >= 0 ? winner : ENG_SEAT_TABLE, now);
        if (o) {
                o->finished.winner = winner >= 0 ? winner : ENG_SEAT_TABLE;
                for (unsigned s = 0; s < ENG_MAX_SEATS; s++)
                        o->finished.place[s] = res.place[s];
        }
        if (winner >= 0)
                emit_light(out, winner, now, ENG_BUTTON_ALL, ENG_LIGHT_BLINK, RX_BLINK_WIN_MS);
}

/* Ends the match when a seat has reached the target. */
static bool finish_at_target(struct rx_state *st, struct eng_out *out, int64_t now) {
        for (int s = 0; s < st->n_seats; s++)
                if (rx_score(st, s) >= st->target) {
                        finish(st, out, now);
                        return true;
                }
        return false;
}

/* A round was decided: the match ends at the target, or the next round's
 * delay starts at once. */
static void end_round(struct rx_state *st, struct eng_out *out, int64_t now) {
        st->rounds_played++;
        if (finish_at_target(st, out, now))
                return;
        st->round++;
        st->card_up = false;
        start_delay(st, now);
        st->late_until_us = now + RX_LATE_GRACE_US;
}

/* The go's prompt: this round's when it is up already (the round started
 * over), else the next of the deck, reshuffled from the generator once
 * every prompt has been turned up. */
static uint8_t turn_card(struct rx_state *st) {
        if (!st->card_up) {
                if (st->deck_pos >= st->n_prompts) {
                        eng_rng_shuffle_u8(&st->rng, st->deck, st->n_prompts);
                        st->deck_pos = 0;
                }
                st->card = st->deck[st->deck_pos++];
                st->card_up = true;
        }
        return st->card;
}

static void go(struct rx_state *st, struct eng_out *out, int64_t now) {
        struct eng_output *o;
        uint8_t card = turn_card(st);

        st->phase = RX_PHASE_LIVE;
        st->go_us = now;
        st->wake_us = ENG_NEVER;
        o = eng_out_push(out, &rx_ev_go, ENG_SEAT_TABLE, now);
        if (o) {
                o->v[RX_GO_ROUND] = st->round;
                o->v[RX_GO_CARD] = rx_handle(st, card);
        }
        if (st->mode != RX_MODE_JUDGED)
                return;
        st->windows++;
        st->window_open = true;
        o = eng_out_push(out, &eng_req_window_open, ENG_SEAT_TABLE, now);
        if (o) {
                o->window.window = st->windows;
                o->window.seats = all_seats(st);
        }
}

/* seat won the round with a press at press_us on button. */
static void score_round(struct rx_state *st, struct eng_out *out, int seat, int64_t press_us, unsigned button,
                        int64_t now) {
        struct rx_seat *p = &st->seats[seat];
        int64_t reaction = press_us - st->go_us;
        struct eng_output *o;

        close_window(st, out, now);
        p->hits++;
        p->terms[RX_TERM_HITS]++;
        if (st->round >= 1 && st->round <= st->n_bonus)
                p->terms[RX_TERM_BONUS] += st->bonus[st->round - 1];
        p->reaction_sum_us += reaction;
        if (reaction < p->best_us)
                p->best_us = reaction;
        o = eng_out_push(out, &rx_ev_hit, seat, now);
        if (o) {
                o->v[RX_HIT_REACTION] = reaction / US_PER_MS * US_PER_MS;
                o->v[RX_HIT_MARGIN] = reaction;
                o->v[RX_HIT_WINDOW] = st->mode == RX_MODE_JUDGED ? (int64_t) st->windows : ENG_ABSENT;
        }
        emit_light(out, seat, now, button, ENG_LIGHT_ON, RX_LIGHT_HIT_MS);
        end_round(st, out, now);
}

/* Lifts the timeout in force; the round starts over unless the operator's
 * pause still holds it. */
static void lift_timeout(struct rx_state *st, struct eng_out *out, enum rx_by by, int who, int64_t now) {
        struct eng_output *o = eng_out_push(out, &rx_ev_play_resumed, who, now);

        if (o) {
                o->v[RX_RESUMED_TIMEOUT_SEAT] = st->timeout_seat;
                o->v[RX_RESUMED_BY] = by;
        }
        st->timeout_seat = -1;
        if (!st->op_paused)
                start_delay(st, now);
}

/* ---- Input handlers: refuse first, then change. */

static enum eng_refusal running(const struct rx_state *st) {
        if (st->phase == RX_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase == RX_PHASE_READY)
                return ENG_REFUSED_STATE;
        return ENG_ACCEPTED;
}

static enum eng_refusal do_start(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == RX_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->phase != RX_PHASE_READY)
                return ENG_REFUSED_STATE;
        eng_out_push(out, &eng_ev_match_started, ENG_SEAT_TABLE, in->time_us);
        st->round = 1;
        start_delay(st, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_timer(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == RX_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (st->wake_us == ENG_NEVER || in->time_us < st->wake_us)
                return ENG_REFUSED_NOT_DUE;
        go(st, out, in->time_us);
        return ENG_ACCEPTED;
}

/* The judge's first press of the open window: a hit. */
static enum eng_refusal do_call(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r;

        if (st->mode != RX_MODE_JUDGED)
                return ENG_REFUSED_UNSUPPORTED;
        if (!seat_ok(st, in->seat) || in->call.call != RX_CALL_HIT)
                return ENG_REFUSED_INVALID;
        r = running(st);
        if (r != ENG_ACCEPTED)
                return r;
        if (!st->window_open || in->call.window != st->windows)
                return ENG_REFUSED_TOO_LATE;
        if (in->call.press_us < st->go_us || in->call.press_us > in->time_us)
                return ENG_REFUSED_INVALID;
        score_round(st, out, in->seat, in->call.press_us, RX_BUTTON_HIT, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_tie(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        int64_t seats = in->tie.seats;
        struct eng_output *o;
        enum eng_refusal r;

        if (st->mode != RX_MODE_JUDGED)
                return ENG_REFUSED_UNSUPPORTED;
        if (seats <= 0 || (seats & ~(int64_t) all_seats(st)) || popcount32((uint32_t) seats) < 2)
                return ENG_REFUSED_INVALID;
        if (in->tie.n_calls != 0 && in->tie.n_calls != popcount32((uint32_t) seats))
                return ENG_REFUSED_INVALID;
        for (int64_t k = 0; k < in->tie.n_calls; k++)
                if (in->tie.calls[k] != RX_CALL_HIT)
                        return ENG_REFUSED_INVALID;
        r = running(st);
        if (r != ENG_ACCEPTED)
                return r;
        if (!st->window_open || in->tie.window != st->windows)
                return ENG_REFUSED_TOO_LATE;
        if (in->tie.press_us < st->go_us || in->tie.press_us > in->time_us)
                return ENG_REFUSED_INVALID;

        close_window(st, out, in->time_us);
        o = eng_out_push(out, &rx_ev_tied, ENG_SEAT_TABLE, in->time_us);
        if (o)
                o->v[RX_TIED_SEATS] = seats;
        for (int s = 0; s < st->n_seats; s++)
                if (seats & seat_bit(s)) {
                        st->seats[s].ties++;
                        emit_light(out, s, in->time_us, ENG_BUTTON_ALL, ENG_LIGHT_BLINK, RX_BLINK_TIE_MS);
                }
        end_round(st, out, in->time_us);
        return ENG_ACCEPTED;
}

/* A slap calls the seat's timeout, or lifts its own. */
static enum eng_refusal do_slap(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->timeout_seat >= 0) {
                if (st->timeout_seat != in->seat)
                        return ENG_REFUSED_NOT_ALLOWED;
                lift_timeout(st, out, RX_BY_SEAT, in->seat, in->time_us);
                return ENG_ACCEPTED;
        }
        st->timeout_seat = (int8_t) in->seat;
        eng_out_push(out, &rx_ev_timeout_called, in->seat, in->time_us);
        if (!st->op_paused)
                suspend(st, out, in->time_us);
        return ENG_ACCEPTED;
}

/* Timed mode's press of a BUTTONS pad, in press order. */
static enum eng_refusal do_timed_press(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        int64_t press = in->press.press_us;
        struct rx_seat *p = &st->seats[in->seat];

        if (paused(st))
                return ENG_REFUSED_STATE;
        if (st->phase == RX_PHASE_LIVE && press >= st->go_us) {
                score_round(st, out, in->seat, press, (unsigned) in->press.button, in->time_us);
                return ENG_ACCEPTED;
        }
        /* Pressed before this round's delay began, or just after the last
         * round was decided: it belongs to a round that is over (the
         * runtime hands presses over in press order, so a round's loser
         * comes after its winner). */
        if (press < st->late_until_us)
                return ENG_REFUSED_TOO_LATE;
        p->false_starts++;
        p->terms[RX_TERM_FALSE_STARTS]--;
        eng_out_push(out, &rx_ev_false_start, in->seat, in->time_us);
        emit_buzz(out, in->seat, in->time_us, ENG_BUZZ_SHORT, RX_BUZZ_FALSE_MS);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_press(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        int64_t role = in->press.role;
        enum eng_refusal r;

        if (role == ENG_ROLE_BUTTONS && st->mode != RX_MODE_TIMED)
                return ENG_REFUSED_UNSUPPORTED;
        if (role != ENG_ROLE_BUTTONS && role != ENG_ROLE_SLAP)
                return ENG_REFUSED_INVALID;
        if (!seat_ok(st, in->seat) || in->press.button < 0 || in->press.button > RX_PAD_BUTTON_MAX ||
            !eng_time_ok(in->press.press_us) || in->press.press_us > in->time_us)
                return ENG_REFUSED_INVALID;
        r = running(st);
        if (r != ENG_ACCEPTED)
                return r;
        if (role == ENG_ROLE_SLAP)
                return do_slap(st, in, out);
        return do_timed_press(st, in, out);
}

static enum eng_refusal do_pause(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r = running(st);

        if (r != ENG_ACCEPTED)
                return r;
        if (st->op_paused)
                return ENG_REFUSED_STATE;
        eng_out_push(out, &eng_ev_paused, ENG_SEAT_TABLE, in->time_us);
        if (st->timeout_seat < 0)
                suspend(st, out, in->time_us);
        st->op_paused = true;
        return ENG_ACCEPTED;
}

static enum eng_refusal do_resume(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == RX_PHASE_FINISHED)
                return ENG_REFUSED_FINISHED;
        if (!st->op_paused)
                return ENG_REFUSED_STATE;
        st->op_paused = false;
        eng_out_push(out, &eng_ev_resumed, ENG_SEAT_TABLE, in->time_us);
        if (st->timeout_seat < 0)
                start_delay(st, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_award(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        const int64_t *to = &in->arg[RX_AWARD_TO];
        int64_t points = in->arg[RX_AWARD_POINTS], reason = in->arg[RX_AWARD_CATEGORY];
        uint32_t mask = 0;
        struct eng_output *o;
        enum eng_refusal r;

        if (to[0] < 1 || to[0] > RX_AWARD_MAX_SEATS)
                return ENG_REFUSED_INVALID;
        for (int64_t k = 0; k < to[0]; k++) {
                int64_t s = to[1 + k];

                if (s < 0 || s >= st->n_seats || (mask & seat_bit((int) s)))
                        return ENG_REFUSED_INVALID;
                mask |= seat_bit((int) s);
        }
        if (points == 0 || points < -RX_AWARD_MAX_POINTS || points > RX_AWARD_MAX_POINTS ||
            reason < RX_REASON_PENALTY || reason > RX_REASON_CORRECTION)
                return ENG_REFUSED_INVALID;
        r = running(st);
        if (r != ENG_ACCEPTED)
                return r;

        for (int s = 0; s < st->n_seats; s++)
                if (mask & seat_bit(s))
                        st->seats[s].terms[RX_TERM_REFEREE] += (int32_t) points;
        o = eng_out_push(out, &rx_ev_awarded, ENG_SEAT_TABLE, in->time_us);
        if (o) {
                o->v[RX_AWARDED_SEATS] = mask;
                o->v[RX_AWARDED_POINTS] = points;
                o->v[RX_AWARDED_REASON] = reason;
        }
        finish_at_target(st, out, in->time_us);
        return ENG_ACCEPTED;
}

static enum eng_refusal do_action(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        enum eng_refusal r;

        switch (in->action) {
        case RX_ACTION_CONCEDE:
                if (!seat_ok(st, in->seat))
                        return ENG_REFUSED_INVALID;
                r = running(st);
                if (r != ENG_ACCEPTED)
                        return r;
                st->seats[in->seat].conceded = true;
                eng_out_push(out, &rx_ev_conceded, in->seat, in->time_us);
                finish(st, out, in->time_us);
                return ENG_ACCEPTED;
        case RX_ACTION_AWARD:
                return do_award(st, in, out);
        case RX_ACTION_END:
                r = running(st);
                if (r != ENG_ACCEPTED)
                        return r;
                eng_out_push(out, &rx_ev_ended, ENG_SEAT_TABLE, in->time_us);
                finish(st, out, in->time_us);
                return ENG_ACCEPTED;
        case RX_ACTION_PLAY_ON:
                r = running(st);
                if (r != ENG_ACCEPTED)
                        return r;
                if (st->timeout_seat < 0)
                        return ENG_REFUSED_STATE;
                lift_timeout(st, out, RX_BY_REFEREE, ENG_SEAT_TABLE, in->time_us);
                return ENG_ACCEPTED;
        default:
                return ENG_REFUSED_INVALID;
        }
}

/* The framework's void (engine/log.h): the state is already what it was
 * just before the voided inputs, at their time.  The choice here, the
 * simplest correct one: a round that was waiting or live starts over from
 * now with a fresh delay, and a window the rewound state had open is
 * closed first (its presses are gone with the inputs voided); a live
 * round's prompt stays up and its go shows it again.  A paused match stays
 * paused (it has no window and no wake-up to re-arm). */
static enum eng_refusal do_void(struct rx_state *st, const struct eng_input *in, struct eng_out *out) {
        if (st->phase == RX_PHASE_READY || st->phase == RX_PHASE_FINISHED || paused(st))
                return ENG_ACCEPTED;
        close_window(st, out, in->time_us);
        start_delay(st, in->time_us);
        return ENG_ACCEPTED;
}

/* The checks every input passes first — a new seq, a time in range and not
 * before the last accepted one — then the kind's own.  Only an accepted
 * input moves last_seq and last_us, so that a refusal changes nothing. */
static int rx_apply(void *state, const struct eng_input *in, struct eng_out *out) {
        struct rx_state *st = state;
        enum eng_refusal refusal;

        if (!st || !in || !out || st->magic != RX_MAGIC)
                return -EINVAL;
        eng_out_reset(out, st->wake_us);
        refusal = eng_input_order(in, st->any_input, st->last_seq, st->last_us);
        if (refusal == ENG_ACCEPTED)
                switch (in->kind) {
                case ENG_IN_START:
                        refusal = do_start(st, in, out);
                        break;
                case ENG_IN_CALL:
                        refusal = do_call(st, in, out);
                        break;
                case ENG_IN_TIE:
                        refusal = do_tie(st, in, out);
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
                case ENG_IN_CONFIRM:            /* engine/log.h's own: never an engine's */
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
        out->wake_us = st->wake_us;
        return 0;
}

static enum eng_status status_of(const struct rx_state *st) {
        switch (st->phase) {
        case RX_PHASE_READY:
                return ENG_STATUS_READY;
        case RX_PHASE_FINISHED:
                return ENG_STATUS_FINISHED;
        default:
                /* Only the operator's pause is PAUSED; a timeout shows in
                 * game_pause() and the view. */
                return st->op_paused ? ENG_STATUS_PAUSED : ENG_STATUS_RUNNING;
        }
}

static enum eng_status rx_status(const void *state) {
        return status_of(state);
}

static int64_t rx_wake_us(const void *state) {
        const struct rx_state *st = state;

        return st->wake_us;
}

static const char *rx_game_pause(const void *state) {
        const struct rx_state *st = state;

        return st->phase != RX_PHASE_FINISHED && st->timeout_seat >= 0 ? "timeout" : NULL;
}

/* ---- The state hash.  Field order (RX_HASH_VERSION 1), every integer
 * little-endian at the width shown:
 *
 *   u8 version; u8 n_seats, target, mode; bool teams; u16 delay_min_ms,
 *   delay_max_ms; u8 n_bonus, then each bonus as u8; u64 seed, handle_key;
 *   u8 n_prompts, then per prompt u8 length and its bytes; the deck (u8
 *   each, all n_prompts: a reshuffle starts from the whole order); u8
 *   deck_pos; u64 rng s[0..3]; bool any_input; if any_input: u64 last_seq,
 *   i64 last_us; u8 phase; u32 round, rounds_played; bool card_up; if
 *   card_up: u8 card; WAITING or LIVE: i64 late_until_us; LIVE: i64 go_us;
 *   i64 wake_us; u32 windows; bool window_open, op_paused; i8 timeout_seat,
 *   winner; per seat: i32 each term, u32 hits, ties, false_starts, i64
 *   best_us, reaction_sum_us, u8 lucky, bool conceded.
 *
 * Only live data is hashed, so two states that behave the same hash the
 * same. */
static uint64_t rx_hash(const void *state) {
        const struct rx_state *st = state;
        struct eng_hash h;

        eng_hash_init(&h);
        eng_hash_u8(&h, RX_HASH_VERSION);
        eng_hash_u8(&h, st->n_seats);
        eng_hash_u8(&h, st->target);
        eng_hash_u8(&h, st->mode);
        eng_hash_bool(&h, st->teams);
        eng_hash_u16(&h, st->delay_min_ms);
        eng_hash_u16(&h, st->delay_max_ms);
        eng_hash_u8(&h, st->n_bonus);
        for (unsigned k = 0; k < st->n_bonus; k++)
                eng_hash_u8(&h, (uint8_t) st->bonus[k]);
        eng_hash_u64(&h, st->seed);
        eng_hash_u64(&h, st->handle_key);
        eng_hash_u8(&h, st->n_prompts);
        for (unsigned i = 0; i < st->n_prompts; i++) {
                size_t n = strnlen(st->prompts[i], RX_PROMPT_MAX);

                eng_hash_u8(&h, (uint8_t) n);
                eng_hash_bytes(&h, st->prompts[i], n);
        }
        eng_hash_bytes(&h, st->deck, st->n_prompts);
        eng_hash_u8(&h, st->deck_pos);
        for (unsigned i = 0; i < ELEMENTSOF(st->rng.s); i++)
                eng_hash_u64(&h, st->rng.s[i]);
        eng_hash_bool(&h, st->any_input);
        if (st->any_input) {
                eng_hash_u64(&h, st->last_seq);
                eng_hash_i64(&h, st->last_us);
        }
        eng_hash_u8(&h, st->phase);
        eng_hash_u32(&h, st->round);
        eng_hash_u32(&h, st->rounds_played);
        eng_hash_bool(&h, st->card_up);
        if (st->card_up)
                eng_hash_u8(&h, st->card);
        if (st->phase == RX_PHASE_WAITING || st->phase == RX_PHASE_LIVE)
                eng_hash_i64(&h, st->late_until_us);
        if (st->phase == RX_PHASE_LIVE)
                eng_hash_i64(&h, st->go_us);
        eng_hash_i64(&h, st->wake_us);
        eng_hash_u32(&h, st->windows);
        eng_hash_bool(&h, st->window_open);
        eng_hash_bool(&h, st->op_paused);
        eng_hash_u8(&h, (uint8_t) st->timeout_seat);
        eng_hash_u8(&h, (uint8_t) st->winner);
        for (unsigned s = 0; s < st->n_seats; s++) {
                const struct rx_seat *p = &st->seats[s];

                for (unsigned t = 0; t < RX_N_TERMS; t++)
                        eng_hash_u32(&h, (uint32_t) p->terms[t]);
                eng_hash_u32(&h, p->hits);
                eng_hash_u32(&h, p->ties);
                eng_hash_u32(&h, p->false_starts);
                eng_hash_i64(&h, p->best_us);
                eng_hash_i64(&h, p->reaction_sum_us);
                eng_hash_u8(&h, p->lucky);
                eng_hash_bool(&h, p->conceded);
        }
        return eng_hash_value(&h);
}

/* ---- Invariants (reflex.h). */

#define FAIL(...) do { if (why) snprintf(why, len, __VA_ARGS__); return -EBADMSG; } while (0)

int rx_check(const struct rx_state *st, char *why, size_t len) {
        bool seen[RX_MAX_PROMPTS] = { false };
        unsigned conceded = 0;

        if (!st || st->magic != RX_MAGIC)
                FAIL("not a created state");
        if (st->n_seats < RX_MIN_SEATS || st->n_seats > RX_MAX_SEATS)
                FAIL("%u seats", st->n_seats);
        if (st->n_prompts < 1 || st->n_prompts > RX_MAX_PROMPTS || st->deck_pos > st->n_prompts)
                FAIL("%u prompts, deck at %u", st->n_prompts, st->deck_pos);
        for (unsigned i = 0; i < st->n_prompts; i++) {
                if (st->deck[i] >= st->n_prompts || seen[st->deck[i]])
                        FAIL("the deck is not a permutation at %u", i);
                seen[st->deck[i]] = true;
        }
        if (st->card_up && st->card >= st->n_prompts)
                FAIL("card %u of %u prompts", st->card, st->n_prompts);
        if (st->phase > RX_PHASE_FINISHED)
                FAIL("phase %u", st->phase);
        if ((st->wake_us != ENG_NEVER) != (st->phase == RX_PHASE_WAITING && !paused(st)))
                FAIL("wake-up %lld in phase %u (paused %d, timeout %d)", (long long) st->wake_us, st->phase,
                     st->op_paused, st->timeout_seat);
        if (st->phase == RX_PHASE_LIVE && paused(st))
                FAIL("live while paused");
        if (st->window_open != (st->phase == RX_PHASE_LIVE && st->mode == RX_MODE_JUDGED))
                FAIL("window_open %d in phase %u", st->window_open, st->phase);
        if (st->timeout_seat < -1 || st->timeout_seat >= st->n_seats)
                FAIL("timeout of seat %d", st->timeout_seat);
        if ((st->phase == RX_PHASE_READY || st->phase == RX_PHASE_FINISHED) && paused(st))
                FAIL("a pause in force in phase %u", st->phase);
        if (st->phase == RX_PHASE_LIVE && !st->card_up)
                FAIL("live without its prompt up");
        if (st->winner < -1 || st->winner >= st->n_seats || (st->winner >= 0 && st->phase != RX_PHASE_FINISHED))
                FAIL("winner %d in phase %u", st->winner, st->phase);
        for (int s = 0; s < st->n_seats; s++) {
                const struct rx_seat *p = &st->seats[s];

                if (p->terms[RX_TERM_HITS] != (int64_t) p->hits)
                        FAIL("seat %d: hits term %d, %u hits", s, p->terms[RX_TERM_HITS], p->hits);
                if (p->terms[RX_TERM_FALSE_STARTS] != -(int64_t) p->false_starts)
                        FAIL("seat %d: false starts term %d, %u false starts", s,
                             p->terms[RX_TERM_FALSE_STARTS], p->false_starts);
                if (rx_score(st, s) >= st->target && st->phase != RX_PHASE_FINISHED)
                        FAIL("seat %d at the target in phase %u", s, st->phase);
                if (p->lucky < 1 || p->lucky > RX_LUCKY_MAX)
                        FAIL("seat %d: lucky number %u", s, p->lucky);
                if ((p->best_us == ENG_NEVER) != (p->hits == 0))
                        FAIL("seat %d: best reaction and hits disagree", s);
                conceded += p->conceded;
        }
        if (conceded > 1 || (conceded && st->phase != RX_PHASE_FINISHED))
                FAIL("%u seats conceded in phase %u", conceded, st->phase);
        return 0;
}

#undef FAIL

/* ---- Views. */

static const char *phase_name(uint8_t p) {
        switch (p) {
        case RX_PHASE_READY:
                return "ready";
        case RX_PHASE_WAITING:
                return "waiting";
        case RX_PHASE_LIVE:
                return "live";
        case RX_PHASE_FINISHED:
                return "finished";
        }
        return "unknown";
}

static int rx_card_face(const void *state, uint32_t handle, const struct eng_visitor *v, void *ctx) {
        const struct rx_state *st = state;
        unsigned prompt;

        if (!st || !v || st->magic != RX_MAGIC)
                return -EINVAL;
        if (rx_card_of(st, handle, &prompt) < 0)
                return -ENOENT;
        return v->string(ctx, "word", st->prompts[prompt]);
}

/* What each audience sees.  The public view is the scoreboard; a seat's
 * adds "you" (its lucky number); the referee's adds "audit".  The deck's
 * order, the generator and so the next delay (the wake-up) are in no view:
 * nobody at a real table knows them, the referee included. */
static int rx_view_visit(const void *state, enum eng_audience audience, int seat, const struct eng_visitor *v,
                         void *ctx) {
        const struct rx_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };

        if (!st || !v || st->magic != RX_MAGIC)
                return -EINVAL;
        if (audience != ENG_VIEW_PUBLIC && audience != ENG_VIEW_SEAT && audience != ENG_VIEW_REFEREE)
                return -EINVAL;
        if (audience == ENG_VIEW_SEAT && !seat_ok(st, seat))
                return -EINVAL;
        eng_walk_str(&w, "game", rx_game.name);
        eng_walk_str(&w, "audience", eng_audience_name(audience));
        eng_walk_str(&w, "status", eng_status_name(status_of(st)));
        eng_walk_str(&w, "phase", phase_name(st->phase));
        eng_walk_int(&w, "target", st->target);
        eng_walk_str(&w, "mode", mode_choices[st->mode]);
        eng_walk_int(&w, "round", st->round);

        eng_walk_arr(&w, "scores");
        for (int s = 0; s < st->n_seats; s++) {
                const struct rx_seat *p = &st->seats[s];

                eng_walk_obj(&w, NULL);
                eng_walk_int(&w, "seat", s);
                eng_walk_int(&w, "score", rx_score(st, s));
                eng_walk_int(&w, "hits", p->terms[RX_TERM_HITS]);
                eng_walk_int(&w, "bonus", p->terms[RX_TERM_BONUS]);
                eng_walk_int(&w, "false_starts", p->terms[RX_TERM_FALSE_STARTS]);
                eng_walk_int(&w, "referee", p->terms[RX_TERM_REFEREE]);
                eng_walk_bool(&w, "conceded", p->conceded);
                eng_walk_end_obj(&w);
        }
        eng_walk_end_arr(&w);

        if (st->card_up) {
                eng_walk_obj(&w, "card");
                eng_walk_handle(&w, "handle", rx_handle(st, st->card));
                eng_walk_str(&w, "word", st->prompts[st->card]);
                eng_walk_end_obj(&w);
        } else {
                eng_walk_null(&w, "card");
        }
        if (rx_game_pause(st)) {
                eng_walk_obj(&w, "timeout");
                eng_walk_int(&w, "seat", st->timeout_seat);
                eng_walk_end_obj(&w);
        } else {
                eng_walk_null(&w, "timeout");
        }
        if (st->phase == RX_PHASE_FINISHED && st->winner >= 0)
                eng_walk_int(&w, "winner", st->winner);
        else
                eng_walk_null(&w, "winner");

        if (audience == ENG_VIEW_SEAT) {
                eng_walk_obj(&w, "you");
                eng_walk_int(&w, "seat", seat);
                eng_walk_int(&w, "lucky", st->seats[seat].lucky);
                eng_walk_end_obj(&w);
        }
        if (audience == ENG_VIEW_REFEREE) {
                eng_walk_obj(&w, "audit");
                eng_walk_arr(&w, "false_starts");
                for (int s = 0; s < st->n_seats; s++)
                        eng_walk_int(&w, NULL, st->seats[s].false_starts);
                eng_walk_end_arr(&w);
                eng_walk_int(&w, "rounds", st->rounds_played);
                eng_walk_end_obj(&w);
        }
        return w.r;
}

/* A seat's statistics, for the result. */
static int rx_stats(const void *state, int seat, const struct eng_visitor *v, void *ctx) {
        const struct rx_state *st = state;
        struct eng_walk w = { .v = v, .ctx = ctx };
        const struct rx_seat *p;

        if (!st || !v || st->magic != RX_MAGIC || !seat_ok(st, seat))
                return -EINVAL;
        p = &st->seats[seat];
        eng_walk_int(&w, "hits", p->hits);
        eng_walk_int(&w, "ties", p->ties);
        eng_walk_int(&w, "false_starts", p->false_starts);
        eng_walk_time(&w, "best_reaction_us", p->best_us);
        if (p->hits)
                eng_walk_int(&w, "reaction_avg_us", p->reaction_sum_us / p->hits);
        else
                eng_walk_null(&w, "reaction_avg_us");
        eng_walk_bool(&w, "conceded", p->conceded);
        return w.r;
}

/* What is hidden: the order of the prompts not yet turned up in this pass
 * (deck[deck_pos ..)).  The generator is left alone, so every later delay
 * and reshuffle draws the same numbers. */
static int rx_perturb_hidden(void *state, uint64_t salt) {
        struct rx_state *st = state;
        struct eng_rng rng;

        if (!st || st->magic != RX_MAGIC)
                return -EINVAL;
        if (st->n_prompts - st->deck_pos < 2)
                return -EAGAIN;
        eng_rng_seed(&rng, salt);
        eng_rng_shuffle_u8(&rng, st->deck + st->deck_pos, (size_t) (st->n_prompts - st->deck_pos));
        return 0;
}

/* ---- The rest of the table. */

static const struct eng_field award_fields[] = {
        { .name = "to", .type = ENG_T_SEAT, .max_count = RX_AWARD_MAX_SEATS,
          .doc = "The seats that get the points: one to three, each at most once." },
        { .name = "points", .type = ENG_T_INT, .min = -RX_AWARD_MAX_POINTS, .max = RX_AWARD_MAX_POINTS,
          .unit = "points", .doc = "Points each of them gets, −5..5 but not 0." },
        /* Not "reason": that is a request's audit sentence (reflex.h). */
        { .name = "category", .type = ENG_T_ENUM, .min = 0, .max = RX_REASON_CORRECTION, .choices = reason_choices,
          .choice_text = reason_text, .doc = "What kind of award: penalty, bonus or correction." },
};

static const struct eng_input_def rx_actions[RX_N_ACTIONS] = {
        [RX_ACTION_CONCEDE] = {
                .name = "concede", .from = ENG_FROM_SEAT | ENG_FROM_REFEREE, .seated = true,
                .doc = "The seat gives up: it places last, the best other seat wins, and the match is over.",
        },
        [RX_ACTION_AWARD] = {
                .name = "award", .from = ENG_FROM_REFEREE, .fields = award_fields,
                .n_fields = ELEMENTSOF(award_fields),
                .doc = "Gives points to one to three seats (term referee); a seat that reaches the target wins.",
        },
        [RX_ACTION_END] = {
                .name = "end", .from = ENG_FROM_REFEREE,
                .doc = "Ends the match where it stands; the best seat wins, if there is one.",
        },
        [RX_ACTION_PLAY_ON] = {
                .name = "play_on", .from = ENG_FROM_REFEREE,
                .doc = "Lifts a seat's timeout; the round starts again with a new delay.",
        },
};

/* Pads: a seat's button 0 is the judged hit, button 1 the timed press;
 * its slap pad calls (or lifts) a timeout; the referee keypad's Enter ends
 * the match and two keys pause and resume the table. */
static const struct eng_route rx_routes[] = {
        { .role = ENG_ROLE_BUTTONS, .button = RX_BUTTON_HIT, .kind = ENG_ROUTE_CALL, .call = RX_CALL_HIT },
        { .role = ENG_ROLE_BUTTONS, .button = RX_BUTTON_PRESS, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_SLAP, .button = ENG_ANY_BUTTON, .kind = ENG_ROUTE_PRESS },
        { .role = ENG_ROLE_KEYPAD, .button = RX_KEY_END, .kind = ENG_ROUTE_INPUT, .input = "end" },
        { .role = ENG_ROLE_KEYPAD, .button = RX_KEY_RESUME, .kind = ENG_ROUTE_INPUT, .input = "resume" },
        { .role = ENG_ROLE_KEYPAD, .button = RX_KEY_PAUSE, .kind = ENG_ROUTE_INPUT, .input = "pause" },
};

static const char *const rx_calls[] = {
        [RX_CALL_HIT] = "hit",
};

static const char *const rx_terms[RX_N_TERMS] = {
        [RX_TERM_HITS] = "hits",
        [RX_TERM_BONUS] = "bonus",
        [RX_TERM_FALSE_STARTS] = "false_starts",
        [RX_TERM_REFEREE] = "referee",
};

/* The view's top-level members and who sees them. */
static const struct eng_field rx_view_fields[] = {
        { .name = "game", .type = ENG_T_ENUM, .doc = "\"reflex\"." },
        { .name = "audience", .type = ENG_T_ENUM, .doc = "public, seat or referee." },
        { .name = "status", .type = ENG_T_ENUM, .doc = "ready, running, paused (the operator's) or finished." },
        { .name = "phase", .type = ENG_T_ENUM, .doc = "ready, waiting (for the go), live or finished." },
        { .name = "target", .type = ENG_T_INT, .doc = "points.target: the points that win." },
        { .name = "mode", .type = ENG_T_ENUM, .doc = "judged or timed." },
        { .name = "round", .type = ENG_T_INT, .doc = "The round being played, from 1; 0 before the start." },
        { .name = "scores", .type = ENG_T_OBJECT,
          .doc = "Each seat: its score and its terms (hits, bonus, false_starts, referee), and whether it conceded." },
        { .name = "card", .type = ENG_T_OBJECT,
          .doc = "The prompt turned up for this round (handle and word); null before its go." },
        { .name = "timeout", .type = ENG_T_OBJECT, .doc = "The seat whose timeout is in force; null when none." },
        { .name = "winner", .type = ENG_T_SEAT, .doc = "The winner once the match is over; null otherwise." },
        { .name = "you", .type = ENG_T_OBJECT, .audience = ENG_VIEW_SEAT,
          .doc = "The viewer's seat and its secret lucky number." },
        { .name = "audit", .type = ENG_T_OBJECT, .audience = ENG_VIEW_REFEREE,
          .doc = "Each seat's false starts, and the rounds decided so far." },
};

const struct eng_game rx_game = {
        .name = "reflex",
        .display_name = "Reflex Duel",
        .description = "A one-button reaction game for the framework's tests: after a random delay a go turns "
                       "up a prompt, and the first press after it scores; a referee may award points.  The "
                       "first seat to the target wins.  1 to 3 players, a button pad and a slap pad each.",
        .min_seats = RX_MIN_SEATS,
        .max_seats = RX_MAX_SEATS,
        .params = rx_params,
        .n_params = RX_N_PARAMS,
        .data = rx_data,
        .n_data = ELEMENTSOF(rx_data),
        .actions = rx_actions,
        .n_actions = RX_N_ACTIONS,
        .builtins = (1u << ENG_IN_CALL) | (1u << ENG_IN_TIE) | (1u << ENG_IN_PRESS),
        .events = rx_events,
        .n_events = ELEMENTSOF(rx_events),
        .routes = rx_routes,
        .n_routes = ELEMENTSOF(rx_routes),
        .calls = rx_calls,
        .n_calls = ELEMENTSOF(rx_calls),
        .terms = rx_terms,
        .n_terms = RX_N_TERMS,
        .view = rx_view_fields,
        .n_view = ELEMENTSOF(rx_view_fields),
        .state_size = sizeof(struct rx_state),
        /* The most one input makes: a tie of three (window_close, tied, three
         * blinks) or a finishing hit (window_close, hit, light,
         * match_finished, the winner's blink). */
        .max_outputs = 8,
        .validate = rx_validate,
        .create = rx_create,
        .apply = rx_apply,
        .status = rx_status,
        .wake_us = rx_wake_us,
        .view_visit = rx_view_visit,
        .hash = rx_hash,
        .result = rx_result,
        .card_face = rx_card_face,
        .game_pause = rx_game_pause,
        .stats = rx_stats,
        .perturb_hidden = rx_perturb_hidden,
};
