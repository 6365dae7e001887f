/* engine/crash_pilot.h — Crash Pilot: race to call a row for the face-up
 * card.
 *
 * The rules are the Crash Pilot rulebook (docs/games/crash-pilot.md); every
 * sentence of it is implemented in crash_pilot.c and has a test named after
 * it in tests/unit/test_crash_pilot.c.  Where the rulebook is silent or
 * assumes a physical table, docs/games/crash-pilot.md records what we
 * decided and why.
 * The game plugs into engine/engine.h as cp_game; the runtime uses only that
 * table.  The rest of this header is for tests, the benchmark and bus/
 * (plain-struct views).
 *
 * Cards.  A card is an object and a colour; a deck holds `copies` cards of
 * every (object, colour) pair.  A card's id names its copy too, so that every
 * physical card can be followed (card conservation):
 *
 *     id = copy * 64 + object * 8 + colour       (object, colour < 8, copy < 4)
 *
 * Outside the engine a card is its handle (eng_handle() of the id with the
 * match's key): views and events show the handle and the face (object,
 * colour), never the id, so that two copies of a card cannot be told apart
 * before the seed is revealed, as at a table.
 *
 * Calls.  A call names a row, 1 to 6, or "doesn't fit" (CP_CALL_DOESNT_FIT).
 * A Crash Pilot pad's button b is row b + 1, and button 6 is "doesn't fit"
 * (docs/protocol.md section 7).
 *
 * Ownership: struct cp_state is plain data (engine.h, "Ownership"), about
 * 1.2 KB; the caller allocates it (cp_game.state_size) and frees nothing.
 */
#ifndef ARBITER_ENGINE_CRASH_PILOT_H
#define ARBITER_ENGINE_CRASH_PILOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/rng.h"

/* Rulebook, "Setup": the hexagon has six sections, one row each. */
#define CP_ROWS                 6
/* Rulebook, "Setup": the deal table covers 2 to 5 players. */
#define CP_MIN_SEATS            2
#define CP_MAX_SEATS            5
/* Rulebook, "Gameplay": "Any player with three chips is out of the game." */
#define CP_CHIPS_OUT            3
/* Rulebook, "Setup": 13 cards each for 2 players, the most anyone holds. */
#define CP_MAX_STACK            13

/* The deck (docs/games/crash-pilot.md, "The deck").  Six rows with six
 * different starting objects and colours need at least six of each; eight
 * is what a scoreboard can still tell apart at a glance, and keeps a row (at
 * most one card per object and per colour) to eight cards. */
#define CP_MIN_KINDS            6
#define CP_MAX_KINDS            8
#define CP_MAX_COPIES           4
#define CP_MAX_CARDS            (CP_MAX_KINDS * CP_MAX_KINDS * CP_MAX_COPIES)
#define CP_ROW_MAX              CP_MAX_KINDS

#define CP_CARD(copy, object, colour)   ((uint8_t) ((copy) * 64 + (object) * 8 + (colour)))
#define CP_CARD_OBJECT(id)      (((unsigned) (id) >> 3) & 7u)
#define CP_CARD_COLOUR(id)      ((unsigned) (id) & 7u)
#define CP_CARD_COPY(id)        ((unsigned) (id) >> 6)

/* What a card is called on every screen and in every explanation: "<colour>
 * <object>", "red star" (docs/games/crash-pilot.md, "Card names"); its
 * face's "name".  Returns buf. */
#define CP_CARD_NAME_MAX        24      /* "purple hexagon" and a NUL, with room */
const char *cp_card_name(uint8_t card, char buf[static CP_CARD_NAME_MAX]);

/* Where a face-up card came from, besides a seat's own stack (>= 0). */
#define CP_FROM_NEUTRAL         (-1)    /* the neutral deck */
#define CP_FROM_AGAIN           (-2)    /* the same card, shown again (resume, void) */

/* Calls: 1..CP_ROWS name a row. */
#define CP_CALL_DOESNT_FIT      7
/* docs/protocol.md section 7: a Crash Pilot pad has 7 buttons. */
#define CP_PAD_BUTTONS          7
#define CP_BUTTON_DOESNT_FIT    6

/* The game's own inputs (eng_game.actions, eng_input.action). */
enum cp_action {
        /* "void_call": undo the last resolution of a face-up card (a judged
         * call, a tie or an expiry) and show that card again to the seats
         * that could call it.  One level deep; refused once the match is
         * over or while it is paused.  (The framework's "void" undoes any
         * input; this is the quick one a referee uses at the table.) */
        CP_ACTION_VOID_CALL = 0,
        CP_N_ACTIONS,
};

/* The game's events (eng_game.events), for tests. */
extern const struct eng_event_def cp_ev_card_revealed, cp_ev_call_judged, cp_ev_tiebreak_started,
        cp_ev_card_placed, cp_ev_card_tucked, cp_ev_chip_given, cp_ev_player_eliminated, cp_ev_reveal_expired,
        cp_ev_call_voided;

/* The slots of each event's values (eng_output.v[]): its fields laid out in
 * order (eng_fields_slots).  crash_pilot.c fills outputs by these names and
 * tests/unit/test_crash_pilot.c checks each against eng_fields_offset() of
 * the event's field table, so that a field added or moved in one place
 * cannot silently shift the values read in another. */
enum { CP_REV_CARD, CP_REV_SOURCE, CP_REV_SOURCE_SEAT, CP_REV_NUMBER };         /* card_revealed */
enum { CP_JUD_CALL, CP_JUD_VERDICT, CP_JUD_REACTION, CP_JUD_WINDOW, CP_JUD_CARD }; /* call_judged */
enum { CP_TIE_SEATS, CP_TIE_N_CALLS, CP_TIE_CALLS };    /* tiebreak_started: calls is a list */
enum { CP_PLACED_CARD, CP_PLACED_ROW };                 /* card_placed */
enum { CP_TUCKED_CARD, CP_TUCKED_CAUSE };               /* card_tucked */
enum { CP_CHIP_CHIPS };                                 /* chip_given */
enum { CP_ELIMINATED_ORDER };                           /* player_eliminated */
enum { CP_EXPIRED_CARD };                               /* reveal_expired */
enum { CP_VOIDED_SEQ };                                 /* call_voided */

/* card_revealed's source, call_judged's verdict, card_tucked's cause. */
enum cp_source { CP_SOURCE_NEUTRAL = 0, CP_SOURCE_STACK, CP_SOURCE_AGAIN };
enum cp_verdict { CP_VERDICT_CORRECT = 0, CP_VERDICT_WRONG, CP_VERDICT_TOO_LATE, CP_VERDICT_NOT_ALLOWED };
enum cp_cause { CP_CAUSE_WRONG_CALL = 0, CP_CAUSE_DOESNT_FIT, CP_CAUSE_TIE, CP_CAUSE_EXPIRED };

/* Config positions in cp_game.params (eng_config.v[]). */
enum cp_param {
        CP_PARAM_OBJECTS = 0,
        CP_PARAM_COLOURS,
        CP_PARAM_COPIES,
        CP_PARAM_PAUSE_MS,
        CP_PARAM_TIMEOUT_MS,
        CP_N_PARAMS,
};

/* The match, one phase at a time (pause is a flag over RUNNING phases):
 *
 *              START
 *     READY ----------> SHOWING <--------------------------------+
 *                        |  a card is face up, a window is open   |
 *                        |                                        | TIMER at the
 *      CALL correct, CALL wrong, TIE, TIMER (expiry)              | end of the pause
 *                        |                                        | (at once when
 *                        v                                        |  pause is 0)
 *                     resolve ---------> BETWEEN -----------------+
 *                        |               the verdict is on screen;
 *                        |               the next card's source is known
 *                        | the caller turns over their last card, or
 *                        | all but one player are out
 *                        v
 *                     FINISHED
 *
 *   PAUSE  (SHOWING or BETWEEN): the window closes, no wake-up; RESUME
 *          shows the face-up card again with a new window, or restarts the
 *          pause before the next reveal.
 *   VOID   (SHOWING or BETWEEN, not paused): back to the table as it was
 *          before the last resolution, then BETWEEN with the same card next.
 */
enum cp_phase {
        CP_PHASE_READY = 0,
        CP_PHASE_SHOWING,
        CP_PHASE_BETWEEN,
        CP_PHASE_FINISHED,
};

/* Where the next card comes from (BETWEEN). */
enum cp_next {
        CP_NEXT_NEUTRAL = 0,
        CP_NEXT_STACK,                  /* next_seat's own stack */
        CP_NEXT_AGAIN,                  /* the face-up card again (after a void) */
};

struct cp_config {
        uint8_t objects, colours, copies;
        int64_t pause_us;               /* verdict on screen before the next reveal */
        int64_t timeout_us;             /* a reveal nobody calls expires after this */
};

struct cp_stats {
        uint16_t calls, correct, wrong, ties;
        uint16_t ties_right;            /* ties in which this seat's call was a legal one */
        int64_t reaction_sum_us;
};

/* The last judged call, for the screens. */
struct cp_last {
        bool valid;
        int8_t seat;
        uint8_t call;
        uint8_t verdict;                /* enum cp_verdict */
        uint8_t card;
        int64_t reaction_us;
};

/* The table: everything a void puts back.
 *
 * Invariants (cp_check tests each one):
 *   - every card of the deck is in exactly one place: a row, a stack, the
 *     neutral deck, or face up (has_face_up);
 *   - no row holds two cards with the same object or the same colour, and
 *     every row holds at least its starting card;
 *   - chips[s] <= CP_CHIPS_OUT; out_order[s] != 0 exactly when chips[s] ==
 *     CP_CHIPS_OUT; out_order values are 1..n_out, each once;
 *   - outside FINISHED, every seat still in holds at least one card, and at
 *     least two seats are in;
 *   - SHOWING: has_face_up; allowed is the seats still in, or the tiebreak
 *     seats that are still in; tiebreak is 0 or has at least two seats;
 *   - BETWEEN: has_face_up exactly when next is CP_NEXT_AGAIN;
 *   - FINISHED: winner >= 0 (has_face_up: the winner's last card, turned
 *     over and not played).
 */
struct cp_table {
        uint8_t phase;                  /* enum cp_phase */
        uint8_t next;                   /* enum cp_next, BETWEEN only */
        int8_t next_seat;
        bool has_face_up;
        uint8_t face_up;
        int8_t face_source;             /* CP_FROM_NEUTRAL, _AGAIN, or a seat */
        uint32_t allowed;               /* seats that may call the face-up card */
        uint32_t tiebreak;              /* the tied seats while a tiebreak runs */
        int64_t shown_us;               /* the open window's opening (the reveal) */
        int8_t winner;                  /* -1 until FINISHED */
        uint8_t n_out;

        uint8_t row_len[CP_ROWS];
        uint8_t rows[CP_ROWS][CP_ROW_MAX];      /* rows[r][0] is the starting card */

        /* The neutral deck as a ring: neutral[(head + i) % CP_MAX_CARDS] is
         * the i-th card from the top; cards are tucked at the bottom. */
        uint16_t neutral_head, neutral_len;
        uint8_t neutral[CP_MAX_CARDS];

        /* stack[s][stack_len[s] − 1] is the top, the next card turned over. */
        uint8_t stack_len[CP_MAX_SEATS];
        uint8_t stack[CP_MAX_SEATS][CP_MAX_STACK];
        uint8_t chips[CP_MAX_SEATS];
        uint8_t out_order[CP_MAX_SEATS];        /* 0: still in; k: the k-th out */
        struct cp_stats stats[CP_MAX_SEATS];
        struct cp_last last;
};

struct cp_state {
        uint32_t magic;                 /* CP_MAGIC once created */
        struct cp_config cfg;
        uint8_t n_seats;
        uint64_t seed;
        uint64_t handle_key;            /* eng_handle_key(seed) */
        /* Cards that have been face up (or in a row) at least once: what is
         * no longer hidden.  Not undone by a void: people saw them. */
        uint8_t seen[CP_MAX_CARDS / 8];

        bool any_input;                 /* last_seq and last_us are set */
        uint64_t last_seq;
        int64_t last_us;
        uint32_t windows;               /* windows opened so far; ids are 1, 2, ... */
        uint32_t reveals;               /* cards revealed so far */
        bool window_open;               /* windows is the open window's id */
        bool paused;
        int64_t wake_us;

        struct cp_table t;
        bool can_void;
        uint64_t before_seq;            /* the input whose resolution a void undoes */
        struct cp_table before;         /* t just before that resolution */
};

/* The engine.  Its params: deck.objects, deck.colours, deck.copies,
 * reveal.pause_ms, reveal.timeout_ms (docs/games/crash-pilot.md). */
extern const struct eng_game cp_game;

/* Rulebook, "Setup": cards dealt to each player for n_seats players; 0
 * outside 2..5. */
unsigned cp_cards_per_player(unsigned n_seats);

/* cfg (already checked against the schema) as cp_config. */
void cp_config_from(const struct eng_config *cfg, struct cp_config *ret);

/* Creates a match from a deck given top card first instead of a shuffle,
 * for tests and to re-create a physical deal: deck must hold every card of
 * the config exactly once.  0, or -EINVAL. */
int cp_create_with_deck(struct cp_state *st, const struct eng_config *cfg, unsigned n_seats,
                        uint64_t seed, const uint8_t *deck, size_t n);

/* A card's handle in this match, and the card a handle names (-ENOENT for
 * none of this deck). */
uint32_t cp_handle(const struct cp_state *st, uint8_t card);
int cp_card_of(const struct cp_state *st, uint32_t handle, uint8_t *ret_card);

/* Rulebook: "No object or color may occur twice in a series."  Would card
 * go legally into a row holding row[0..len)?  The rule itself, in one place:
 * cp_fits_row() applies it to a table, cp_bot_call() to a view. */
bool cp_row_accepts(const uint8_t *row, unsigned len, uint8_t card);
/* Would card go legally into row r (0-based)? */
bool cp_fits_row(const struct cp_table *t, unsigned r, uint8_t card);
/* Does card fit no row at all? */
bool cp_fits_nowhere(const struct cp_table *t, uint8_t card);

/* Checks every invariant of struct cp_table and cp_state.  0, or -EBADMSG
 * with a sentence in why[0..len) (why may be NULL). */
int cp_check(const struct cp_state *st, char *why, size_t len);

/* ---- Views as plain structs (bus/ properties, the bot). */

struct cp_view_seat {
        uint8_t cards_left;
        uint8_t chips;
        bool out;
        uint8_t out_order;
        bool may_call;                  /* may call the face-up card now */
        bool in_tiebreak;
        bool winner;
        struct cp_stats stats;
};

struct cp_view {
        enum eng_audience audience;
        int seat;                       /* ENG_VIEW_SEAT: whose screen; else -1 */
        enum eng_status status;
        enum cp_phase phase;
        uint8_t n_seats;
        uint8_t objects, colours, copies;
        uint8_t row_len[CP_ROWS];
        uint8_t rows[CP_ROWS][CP_ROW_MAX];
        /* The face-up card, when this audience may see it: SHOWING and not
         * paused (the referee sees it while paused too), or FINISHED (the
         * winner's last card). */
        bool face_up_shown;
        uint8_t face_up;
        int face_source;
        bool window_open;
        uint32_t window;
        int64_t shown_us;
        uint32_t allowed;
        int64_t deadline_us;            /* SHOWING: when the card expires; else ENG_NEVER */
        uint32_t tiebreak;
        uint16_t neutral_count;
        struct cp_view_seat seats[CP_MAX_SEATS];
        struct cp_last last;
        int winner;                     /* -1 until FINISHED */
        /* BETWEEN: where the next card comes from (CP_FROM_NEUTRAL,
         * _AGAIN, or a seat); public, as at a table. */
        int next_source;
        int64_t next_reveal_us;         /* BETWEEN: when it comes; else ENG_NEVER */
        bool can_void;                  /* referee only */
};

/* Fills *ret for audience (seat: ENG_VIEW_SEAT only).  0 or -EINVAL. */
int cp_view(const struct cp_state *st, enum eng_audience audience, int seat, struct cp_view *ret);

/* ---- Bot and simulation, for tests and the benchmark. */

/* A call for seat on the card the view shows: with probability
 * correct_pct/100 a correct one (a random legal row, or "doesn't fit" when
 * none is), otherwise a wrong one (a random row that does not fit, or
 * "doesn't fit" when every row fits).  Pure: the view and the rng are its
 * only inputs.  0 with *ret_call, or -EAGAIN if no card is shown. */
int cp_bot_call(const struct cp_view *v, struct eng_rng *rng, unsigned correct_pct, int *ret_call);

/* How the simulated table behaves, per window (percentages).  Whatever is
 * left after tie, expire is a single judged call. */
struct cp_sim_params {
        unsigned correct_pct;           /* a call is right */
        unsigned tie_pct;               /* the judge finds a tie */
        unsigned expire_pct;            /* nobody calls */
        unsigned late_pct;              /* a late call follows the judged one (refused) */
        unsigned void_pct;              /* the referee voids the resolution */
        unsigned pause_pct;             /* the operator pauses and resumes */
        unsigned junk_pct;              /* a malformed or out-of-place input (refused) */
        int64_t reaction_min_us, reaction_max_us;
        size_t max_inputs;              /* give up (-E2BIG) after this many */
};

/* Defaults: 75 % correct, 10 % ties, 3 % expiries, some late calls, voids,
 * pauses and junk; reactions 150 ms .. 3 s; 100,000 inputs at most. */
void cp_sim_params_default(struct cp_sim_params *ret);

struct cp_sim_stats {
        size_t inputs, refused, outputs;
        size_t calls, ties, expiries, voids, pauses;
};

/* Called after each input the simulation applies; a negative return stops
 * the simulation with that value. */
typedef int (*cp_sim_step_fn)(void *ctx, const struct cp_state *st, const struct eng_input *in,
                              const struct eng_out *out);

/* Plays one full match from create to FINISHED with bots: st is created
 * from cfg, n_seats and seed; bot_seed drives the table's behaviour.  The
 * inputs are stored in log[0..log_cap) when log is not NULL (-ENOBUFS if it
 * is too small).  0 with *ret_stats (may be NULL), -EINVAL, -E2BIG when
 * max_inputs passed without an end, -EPROTO when an input the simulation
 * expected to be accepted was refused, or step's error. */
int cp_sim_match(struct cp_state *st, const struct eng_config *cfg, unsigned n_seats,
                 uint64_t seed, uint64_t bot_seed, const struct cp_sim_params *p,
                 struct eng_input *log, size_t log_cap, cp_sim_step_fn step, void *ctx,
                 struct cp_sim_stats *ret_stats);

#endif
