/* tests/games/reflex.h — Reflex Duel: a one-button reaction game with a
 * referee-entered score, registered only in test builds (tests/games/
 * registry.c, build/tests/arbiterd-test).
 *
 * What this file owns: the game's public constants, the layout of its
 * config and of its actions' and events' slots, its plain-data state, and
 * the few helpers the tests use.  The rules live in reflex.c.
 *
 * Why it exists: it is the proof that engine/engine.h is general.  It is
 * compiled with engine/ headers and libc only (no library flags) and uses
 * every part of the framework Crash Pilot does not: a data file, a list
 * setting, an enum setting, a boolean setting, ENG_IN_PRESS in two roles,
 * seated and unseated actions with a list field, seat-private and
 * referee-only event fields and view members, a game pause of its own
 * besides the operator's, score terms, teams and a one-seat label.
 *
 * The game.  1 to 3 seats race to react to a "go" that comes after a
 * random delay; each go turns up the next prompt of a shuffled deck (the
 * prompts are the game's cards).  Judged mode: the first-press judge picks
 * the first hit (ENG_IN_CALL) or a tie.  Timed mode: every press comes as
 * ENG_IN_PRESS in press order; a press before the go is a false start.
 * The first seat to points.target wins.  reflex.c's top comment has the
 * whole rule set.
 *
 * Cards.  A card is a prompt's index in the prompt table (0 .. n_prompts −
 * 1); outside the engine it is only ever eng_handle(handle_key, index).
 *
 * Invariants of struct rx_state (rx_check tests each one):
 *   - deck[0 .. n_prompts) is a permutation of 0 .. n_prompts − 1 and
 *     deck_pos <= n_prompts: deck[deck_pos ..) are the prompts not yet
 *     turned up in this pass, the only hidden information;
 *   - wake_us != ENG_NEVER exactly when the phase is WAITING and neither
 *     pause is in force;
 *   - LIVE only while no pause is in force; window_open exactly when LIVE
 *     in judged mode;
 *   - every seat's score (the sum of its terms) is below points.target
 *     unless the match is FINISHED; terms[HITS] == hits and
 *     terms[FALSE_STARTS] == −false_starts;
 *   - at most one seat has conceded, and only in a FINISHED match.
 */
#ifndef ARBITER_TESTS_GAMES_REFLEX_H
#define ARBITER_TESTS_GAMES_REFLEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/rng.h"

#define RX_MIN_SEATS            1
#define RX_MAX_SEATS            3

/* Settings' ranges (the schema in reflex.c is built from these). */
#define RX_TARGET_MIN           1
#define RX_TARGET_MAX           20
#define RX_TARGET_DEFAULT       3
#define RX_DELAY_MAX_MS         10000
#define RX_DELAY_MIN_DEFAULT_MS 500
#define RX_DELAY_MAX_DEFAULT_MS 2000
#define RX_MAX_BONUS            8
#define RX_BONUS_MIN            (-5)
#define RX_BONUS_MAX            5

/* The prompts data file: 1..64 prompts of 1..24 printable ASCII
 * characters, one per line. */
#define RX_PROMPT_MAX           24
#define RX_MAX_PROMPTS          64
#define RX_DATA_MAX_LEN         4096
#define RX_DATA_PROMPTS         0       /* its index in rx_game.data */

/* Timed mode: a press up to this long after a round was decided is a
 * loser's late press for that round, not a false start in the next (the
 * runtime hands presses over in press order, the winner's first). */
#define RX_LATE_GRACE_US        INT64_C(500000)

/* Each seat's secret lucky number is 1..RX_LUCKY_MAX. */
#define RX_LUCKY_MAX            99

/* The one call: "hit" (BUTTONS button 0 through the judge). */
#define RX_CALL_HIT             1
/* Pad buttons (docs/protocol.md section 7 numbers them from 0). */
#define RX_BUTTON_HIT           0       /* judged mode: a CALL route */
#define RX_BUTTON_PRESS         1       /* timed mode: a PRESS route */
#define RX_PAD_BUTTON_MAX       15
#define RX_KEY_END              10      /* the referee keypad's Enter */
#define RX_KEY_RESUME           13
#define RX_KEY_PAUSE            14

/* award: at most three seats, −5..5 points but never 0. */
#define RX_AWARD_MAX_SEATS      3
#define RX_AWARD_MAX_POINTS     5

/* Settings, by position in rx_game.params. */
enum rx_param {
        RX_PARAM_TARGET = 0,
        RX_PARAM_DELAY_MIN,
        RX_PARAM_DELAY_MAX,
        RX_PARAM_MODE,
        RX_PARAM_BONUS,
        RX_PARAM_TEAMS,
        RX_N_PARAMS,
};

/* Config slots (struct eng_config.v[]): each setting takes one slot but
 * the list "bonus", which takes its count then RX_MAX_BONUS elements
 * (engine.h, "slots").  These are what eng_fields_offset() says for
 * rx_game.params; tests/unit/test_reflex.c checks that they agree. */
enum rx_slot {
        RX_SLOT_TARGET = 0,
        RX_SLOT_DELAY_MIN = 1,
        RX_SLOT_DELAY_MAX = 2,
        RX_SLOT_MODE = 3,
        RX_SLOT_BONUS = 4,              /* the count; element k at RX_SLOT_BONUS + 1 + k */
        RX_SLOT_TEAMS = RX_SLOT_BONUS + 1 + RX_MAX_BONUS,
        RX_CONFIG_SLOTS,
};

enum rx_mode {
        RX_MODE_JUDGED = 0,
        RX_MODE_TIMED,
};

/* The game's own inputs (eng_game.actions, eng_input.action). */
enum rx_action {
        RX_ACTION_CONCEDE = 0,          /* seated: that seat gives up; the match is over */
        RX_ACTION_AWARD,                /* referee: points to up to three seats */
        RX_ACTION_END,                  /* referee: the match is over now */
        RX_ACTION_PLAY_ON,              /* referee: lifts a seat's timeout */
        RX_N_ACTIONS,
};

/* award's slots in eng_input.arg[]: "to" is a list (count, then up to
 * three seats), then points, then category.  (Not "reason": a request's
 * "reason" is its audit sentence, api/match_inputs.c, and
 * eng_game_check() reserves it.) */
enum rx_award_slot {
        RX_AWARD_TO = 0,
        RX_AWARD_POINTS = RX_AWARD_TO + 1 + RX_AWARD_MAX_SEATS,
        RX_AWARD_CATEGORY,
};

/* award's category, and awarded's reason. */
enum rx_reason {
        RX_REASON_PENALTY = 0,
        RX_REASON_BONUS,
        RX_REASON_CORRECTION,
};

/* Score terms (rx_game.terms, eng_result.terms[s][t]). */
enum rx_term {
        RX_TERM_HITS = 0,               /* +1 a round won */
        RX_TERM_BONUS,                  /* the bonus list's points for rounds won */
        RX_TERM_FALSE_STARTS,           /* −1 a press before the go (timed mode) */
        RX_TERM_REFEREE,                /* award's points */
        RX_N_TERMS,
};

/* The game's events, for tests, and their fields' slots.  false_start,
 * timeout_called and conceded have no fields: the seat concerned is the
 * event's own seat (a field may not be called "seat": every event's JSON
 * has that member already). */
extern const struct eng_event_def rx_ev_go, rx_ev_hit, rx_ev_tied, rx_ev_false_start, rx_ev_timeout_called,
        rx_ev_play_resumed, rx_ev_awarded, rx_ev_conceded, rx_ev_ended;

enum { RX_GO_ROUND = 0, RX_GO_CARD };
enum { RX_HIT_REACTION = 0, RX_HIT_MARGIN, RX_HIT_WINDOW };
enum { RX_TIED_SEATS = 0 };
enum { RX_RESUMED_TIMEOUT_SEAT = 0, RX_RESUMED_BY };
enum { RX_AWARDED_SEATS = 0, RX_AWARDED_POINTS, RX_AWARDED_REASON };
/* play_resumed's "by". */
enum rx_by { RX_BY_SEAT = 0, RX_BY_REFEREE };

/* The match:
 *
 *            START                 TIMER (the go)
 *     READY -------> WAITING --------------------> LIVE
 *                     ^   ^                          |
 *                     |   | pause lifted, void       | hit, tie, timed win:
 *                     |   +---- (LIVE: same card) ---| the next round, or
 *                     +----------- next round -------+ FINISHED at the target
 *
 *   Either pause (the operator's, a seat's timeout) in force: no wake-up,
 *   no window; a LIVE round goes back to WAITING with its card up and
 *   starts over when the last pause is lifted.  award, concede and end
 *   may finish the match from any phase but READY.
 */
enum rx_phase {
        RX_PHASE_READY = 0,
        RX_PHASE_WAITING,               /* the delay before the go runs */
        RX_PHASE_LIVE,                  /* the go is out, nobody has won the round yet */
        RX_PHASE_FINISHED,
};

struct rx_seat {
        int32_t terms[RX_N_TERMS];
        uint32_t hits, ties, false_starts;
        int64_t best_us;                /* fastest reaction; ENG_NEVER before a first hit */
        int64_t reaction_sum_us;
        uint8_t lucky;                  /* 1..RX_LUCKY_MAX, that seat's eyes only */
        bool conceded;
};

/* Plain data (engine.h, "Ownership"), about 2.2 KB. */
struct rx_state {
        uint32_t magic;                 /* RX_MAGIC once created */

        /* The set-up, fixed at create. */
        uint8_t n_seats;
        uint8_t target;
        uint8_t mode;                   /* enum rx_mode */
        bool teams;
        uint16_t delay_min_ms, delay_max_ms;
        uint8_t n_bonus;
        int8_t bonus[RX_MAX_BONUS];
        uint64_t seed;
        uint64_t handle_key;            /* eng_handle_key(seed) */
        uint8_t n_prompts;
        char prompts[RX_MAX_PROMPTS][RX_PROMPT_MAX + 1];        /* NUL-terminated */

        /* Hidden: the deck's order and the generator of delays. */
        uint8_t deck[RX_MAX_PROMPTS];
        uint8_t deck_pos;               /* deck[deck_pos] is the next prompt turned up */
        struct eng_rng rng;

        bool any_input;                 /* last_seq and last_us are set */
        uint64_t last_seq;
        int64_t last_us;

        uint8_t phase;                  /* enum rx_phase */
        uint32_t round;                 /* 1, 2, … from START; 0 before */
        uint32_t rounds_played;         /* rounds decided (a hit, a tie, a timed win) */
        bool card_up;                   /* this round's prompt has been turned up */
        uint8_t card;                   /* that prompt, when card_up (kept once FINISHED) */
        int64_t late_until_us;          /* timed mode: a press from before this belongs to a
                                         * round that is over (too late, not a false start) */
        int64_t go_us;                  /* LIVE: when the go came */
        int64_t wake_us;
        uint32_t windows;               /* windows opened so far; ids are 1, 2, … */
        bool window_open;
        bool op_paused;                 /* the operator's pause */
        int8_t timeout_seat;            /* the game's pause: whose timeout, or −1 */
        int8_t winner;                  /* FINISHED: the winner, or −1 (none or shared) */
        struct rx_seat seats[RX_MAX_SEATS];
};

/* The engine. */
extern const struct eng_game rx_game;

/* A prompt's handle in this match, and the prompt a handle names (-ENOENT
 * for none of this match). */
uint32_t rx_handle(const struct rx_state *st, unsigned prompt);
int rx_card_of(const struct rx_state *st, uint32_t handle, unsigned *ret_prompt);

/* A seat's score: the sum of its terms. */
int64_t rx_score(const struct rx_state *st, int seat);

/* Checks every invariant above.  0, or -EBADMSG with a sentence in
 * why[0..len) (why may be NULL). */
int rx_check(const struct rx_state *st, char *why, size_t len);

#endif
