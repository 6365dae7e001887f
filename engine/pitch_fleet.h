/* engine/pitch_fleet.h — Pitch Fleet: a referee-scored flicking race over
 * nine planet boards, in stages of three rounds with teams dealt anew each
 * stage, a power deck, and a solo mode of challenge cards.
 *
 * The rules are the Pitch Fleet rulebook (docs/games/pitch-fleet.md, clause
 * by clause F1..F60, power card by power card B1..B10 and A1..A5); every
 * clause is implemented in pitch_fleet.c and has a test named after it in
 * tests/unit/test_pitch_fleet.c.  Where the rulebook is silent or assumes a
 * physical table, docs/games/pitch-fleet.md records what we decided and
 * why.  The game plugs into engine/engine.h as pf_game; the runtime uses
 * only that table.  The rest of this header is for tests, the simulation
 * (pitch_fleet_sim.c) and the benchmark.
 *
 * What it owns: the game's schema (settings, the "challenges" data file,
 * actions, events, view members), its rules (the turn's conversation, the
 * outbound and arrival examinations, every power card's effect, rounds,
 * stages, the end; the solo mode), its hash and its views.  The physical
 * game as data (boards, locations, ships, power card faces, challenge
 * cards and their parser, the evaluation table) is
 * engine/pitch_fleet_data.h's.
 *
 * arbiter cannot see the starships: a referee (or the players on a tablet,
 * with a referee token limited to their match) reports each attempt, and the
 * engine keeps everything else.  A race turn is a conversation:
 *
 *     pick {card, ship, start_at, relocate_to, beam_at}
 *       -> shot {outbound, stacked, collided, at, knocked, knocked_at,
 *                beams_knocked, springboard_failed}     (pending effects)
 *       -> restart {}            (back to shot, the same card and ship)
 *        | charge {use|keep}     (a charging draw: use = an extra attempt,
 *                                 back to pick with the drawn card)
 *        | end_turn {}           (the pending effects are scored)
 *        | foul {}               (the attempt is void; the card is spent)
 *
 * Power cards.  A card instance is its index in the match's deck (0 ..
 * n_cards − 1, built from the deck settings: each kind's copies in enum
 * pf_card order); outside the engine it is only ever eng_handle(handle_key,
 * index), with the face of its kind (card_face).
 *
 * Invariants (pf_check):
 *   - every card instance is in exactly one place: the deck, a pile, the
 *     discard pile, a seat's kept cards, the card in play or the card drawn
 *     at a charging satellite;
 *   - every seat's score is the sum of its terms and never below zero;
 *   - stages = planet cards for the players − 1; 1 <= stage <= stages once
 *     started; round in 1..3;
 *   - a ship is on the board only if its team card is dealt this stage; a
 *     ship on the board touches at most PF_MAX_AT locations; beams on the
 *     board <= PF_BEAMS;
 *   - solo: the challenges dealt are distinct cards of the catalogue; the
 *     VP left on the face-up one is 1..its VP.
 *
 * Ownership: struct pf_state is plain data (engine.h, "Ownership"), about
 * 28 KB with its parsed challenge catalogue; the caller allocates it
 * (pf_game.state_size) and frees nothing.
 */
#ifndef ARBITER_ENGINE_PITCH_FLEET_H
#define ARBITER_ENGINE_PITCH_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/pitch_fleet_data.h"
#include "engine/rng.h"

#define PF_MIN_SEATS            1       /* 1: the solo mode */
#define PF_MAX_SEATS            6
#define PF_ROUNDS               3       /* rounds a stage */
#define PF_PILE                 3       /* cards a pile */
#define PF_MAX_STAGES           7       /* 2 players: 8 planet cards, 7 stages */
/* Locations one ship touches at once, a report's `at`. */
#define PF_MAX_AT               4
/* Ships one shot may knock (every other ship). */
#define PF_MAX_KNOCKED          5
/* Copies of one kind of power card a deck may hold. */
#define PF_MAX_COPIES           8
#define PF_MAX_DECK             (PF_N_CARDS * PF_MAX_COPIES)
/* Score changes one attempt may make (pf_pending): see pitch_fleet.c. */
#define PF_MAX_PENDING          24
/* Score changes kept for the view's last_turn (a turn of many charge uses
 * may make more: the view shows the first PF_MAX_LAST). */
#define PF_MAX_LAST             32
#define PF_NO_CARD              0xff
#define PF_NO_SHIP              (-1)

#define PF_DATA_CHALLENGES      0       /* the "challenges" data file's index */

/* Settings, by position in pf_game.params. */
enum pf_param {
        PF_PARAM_LAYOUT = 0,            /* "layout": 0 or 9 planets */
        PF_PARAM_BASIC_COPIES,          /* "deck.basic_copies" */
        PF_PARAM_ADVANCED,              /* "deck.advanced": off, mixed, only */
        PF_PARAM_ADVANCED_COPIES,       /* "deck.advanced_copies" */
        PF_PARAM_SOLO_CARDS,            /* "solo.cards" */
        PF_PARAM_SOLO_MIN_VP,           /* "solo.min_vp" */
        PF_PARAM_SOLO_MAX_VP,           /* "solo.max_vp" */
        PF_N_PARAMS,
};
/* Their config slots (the layout is a list: its count, then 9 planets). */
enum pf_slot {
        PF_SLOT_LAYOUT = 0,
        PF_SLOT_BASIC_COPIES = 1 + PF_BOARDS,
        PF_SLOT_ADVANCED,
        PF_SLOT_ADVANCED_COPIES,
        PF_SLOT_SOLO_CARDS,
        PF_SLOT_SOLO_MIN_VP,
        PF_SLOT_SOLO_MAX_VP,
        PF_CONFIG_SLOTS,
};

enum pf_advanced {
        PF_ADVANCED_OFF = 0,            /* basic cards only (the rulebook's game) */
        PF_ADVANCED_MIXED,              /* basic and advanced shuffled together */
        PF_ADVANCED_ONLY,               /* advanced cards only */
};

enum pf_mode {
        PF_MODE_RACE = 0,               /* 2..6 players */
        PF_MODE_SOLO,                   /* 1 player: challenge cards */
};

/* The game's own inputs (eng_game.actions, eng_input.action). */
enum pf_action {
        PF_ACTION_PICK = 0,
        PF_ACTION_SHOT,
        PF_ACTION_RESTART,
        PF_ACTION_CHARGE,
        PF_ACTION_END_TURN,
        PF_ACTION_FOUL,
        PF_ACTION_ATTEMPT,              /* solo */
        PF_N_ACTIONS,
};
/* Actions' slots in eng_input.arg[]. */
enum { PF_PICK_CARD = 0, PF_PICK_SHIP, PF_PICK_START_AT, PF_PICK_RELOCATE_TO, PF_PICK_BEAM_AT };
enum {
        PF_SHOT_OUTBOUND = 0,                                   /* count, then PF_N_SHIPS */
        PF_SHOT_STACKED = PF_SHOT_OUTBOUND + 1 + PF_N_SHIPS,    /* 7 */
        PF_SHOT_COLLIDED,                                       /* 8 */
        PF_SHOT_AT,                                             /* 9: count, then PF_MAX_AT */
        PF_SHOT_KNOCKED = PF_SHOT_AT + 1 + PF_MAX_AT,           /* 14: count, then PF_MAX_KNOCKED */
        PF_SHOT_KNOCKED_AT = PF_SHOT_KNOCKED + 1 + PF_MAX_KNOCKED,      /* 20 */
        PF_SHOT_BEAMS_KNOCKED = PF_SHOT_KNOCKED_AT + 1 + PF_MAX_KNOCKED,        /* 26 */
        PF_SHOT_SPRINGBOARD_FAILED,                             /* 27 */
        PF_SHOT_SLOTS,
};
enum { PF_CHARGE_CHOICE = 0 };
enum pf_charge_choice { PF_CHARGE_USE = 0, PF_CHARGE_KEEP };
enum { PF_ATTEMPT_RESULT = 0, PF_ATTEMPT_MOVES };
enum pf_attempt_result { PF_RESULT_SUCCESS = 0, PF_RESULT_FAILURE, PF_RESULT_DISCARDED };

/* The rules a score change names (enum "rule", choice_text in words). */
enum pf_rule {
        PF_RULE_START_TOKEN = 0,
        PF_RULE_OWN_OUTBOUND,
        PF_RULE_OPPONENT_OUTBOUND,
        PF_RULE_KNOCKED_OUT,
        PF_RULE_VP_SATELLITE,
        PF_RULE_CHARGING_KEPT,
        PF_RULE_ASTEROID_BELT,
        PF_RULE_TEAM_BONUS,
        PF_RULE_CARD_B1,                /* .. PF_RULE_CARD_A5: + enum pf_card */
        PF_RULE_FLOOR = PF_RULE_CARD_B1 + PF_N_CARDS,
        PF_RULE_SOLO_CHALLENGE,
        PF_RULE_SOLO_FAILURE,
        PF_N_RULES,
};

/* Score terms (pf_game.terms, eng_result.terms[s][t]); their sum is the
 * score, the floor included. */
enum pf_term {
        PF_TERM_START_TOKEN = 0,        /* +3 at set-up */
        PF_TERM_OUTBOUND,               /* outbound rules 1 and 2: −1 own, −1 controller, +1 knocked out */
        PF_TERM_LOCATIONS,              /* VP satellites, asteroid belts */
        PF_TERM_CARDS,                  /* power cards' own gains and losses */
        PF_TERM_CHARGING_KEPT,          /* 1 VP every second kept card */
        PF_TERM_TEAM_BONUS,             /* the 3 VP token */
        PF_TERM_CHALLENGES,             /* solo: VP of the challenges completed */
        PF_TERM_FLOOR,                  /* what a loss cut short at zero did not take */
        PF_N_TERMS,
};

/* The game's events, for tests, and their fields' slots. */
extern const struct eng_event_def pf_ev_stage_started, pf_ev_teams_dealt, pf_ev_round_started,
        pf_ev_turn_started, pf_ev_card_picked, pf_ev_shot_reported, pf_ev_score_changed, pf_ev_restart_used,
        pf_ev_charging_drawn, pf_ev_card_kept, pf_ev_card_used, pf_ev_record_moved, pf_ev_team_bonus,
        pf_ev_turn_ended, pf_ev_round_ended, pf_ev_foul_called, pf_ev_restart_cards_given,
        pf_ev_challenge_revealed, pf_ev_challenge_done;

enum { PF_STAGE_STAGE = 0, PF_STAGE_START_PLANET, PF_STAGE_GOAL_PLANET, PF_STAGE_STARTING_SEAT };
enum { PF_TEAMS_RED = 0, PF_TEAMS_BLUE };
enum { PF_ROUND_ROUND = 0 };
enum { PF_TURN_STAGE = 0, PF_TURN_ROUND };
enum { PF_PICKED_CARD = 0, PF_PICKED_SHIP };
enum { PF_REPORTED_OUTBOUND = 0, PF_REPORTED_AT = PF_REPORTED_OUTBOUND + 1 + PF_N_SHIPS,
       PF_REPORTED_KNOCKED = PF_REPORTED_AT + 1 + PF_MAX_AT };
enum { PF_SCORE_DELTA = 0, PF_SCORE_RULE, PF_SCORE_SHIP, PF_SCORE_LOCATION };
enum { PF_DRAWN_CARD = 0 };
enum { PF_USED_CARD = 0 };
enum { PF_RECORD_SHIP = 0 };
enum { PF_BONUS_TEAM = 0, PF_BONUS_AWARDED };
enum { PF_GIVEN_SEATS = 0 };
enum { PF_REVEALED_NUMBER = 0, PF_REVEALED_VP, PF_REVEALED_MOVES };
enum { PF_DONE_NUMBER = 0, PF_DONE_RESULT, PF_DONE_VP };

/* The match:
 *
 *   READY --START--> PICK --pick--> SHOT --shot--> DECIDE --end_turn--> PICK
 *                     ^               ^  restart      |  (the next turn; at a
 *                     |               +---------------+   round's end the tops
 *                     |   charge use       | a charging    flip, at a stage's end
 *                     +--------------------+ draw: CHARGE  a new stage; after the
 *                                            (keep: DECIDE) last: FINISHED)
 *   foul from SHOT, DECIDE or CHARGE ends the turn with nothing scored.
 *   Solo: READY --START--> ATTEMPT --attempt ...--> FINISHED.
 */
enum pf_phase {
        PF_PHASE_READY = 0,
        PF_PHASE_PICK,                  /* the current player picks a card and a ship */
        PF_PHASE_SHOT,                  /* waiting for the attempt's report */
        PF_PHASE_DECIDE,                /* pending effects shown: restart, end_turn, foul */
        PF_PHASE_CHARGE,                /* a charging draw waits for use or keep */
        PF_PHASE_ATTEMPT,               /* solo: waiting for an attempt at the face-up challenge */
        PF_PHASE_FINISHED,
};

/* Where a ship is. */
struct pf_pos {
        bool on_board;
        uint8_t n_at;                   /* 0: open space */
        uint8_t at[PF_MAX_AT];          /* enum pf_location_id, none excluded, ascending */
};

/* One score change, pending or made. */
struct pf_change {
        int8_t seat;
        int8_t delta;
        uint8_t rule;                   /* enum pf_rule */
        int8_t ship;                    /* enum pf_ship or PF_NO_SHIP */
        uint8_t location;               /* enum pf_location_id; PF_LOC_NONE for none */
};

/* The attempt's report (shot), as the engine keeps it. */
struct pf_report {
        uint8_t outbound;               /* ship mask, the moved ship included when stacked */
        bool stacked, collided, springboard_failed;
        uint8_t n_at;
        uint8_t at[PF_MAX_AT];
        uint8_t knocked;                /* ship mask */
        uint8_t knocked_at[PF_N_SHIPS]; /* by ship */
        uint8_t beams_knocked;
};

/* The turn in progress (PICK .. CHARGE). */
struct pf_turn {
        uint8_t forced;                 /* PICK after a charge use: the card to pick; else PF_NO_CARD */
        uint8_t card;                   /* the card in play; PF_NO_CARD in PICK */
        int8_t ship;                    /* the ship moved */
        struct pf_pos began;            /* where it began the attempt (after any pre-move) */
        struct pf_pos before[PF_N_SHIPS];       /* every ship before the attempt (a foul puts them back) */
        uint8_t beams_before;
        struct pf_report rep;           /* DECIDE, CHARGE */
        bool charge_due;                /* the report reached a charging satellite that counts */
        uint8_t drawn;                  /* the card drawn there, or PF_NO_CARD */
        bool kept;                      /* the draw was kept (DECIDE after CHARGE) */
        bool record_due;                /* the moved ship reached the goal planet */
        bool made_any;                  /* the turn has made a score change (last_turn) */
        uint8_t n_pending;
        struct pf_change pending[PF_MAX_PENDING];
};

struct pf_pile {
        uint8_t n;                      /* cards left; cards[n − 1] is the top */
        bool up;                        /* the top is face up */
        uint8_t cards[PF_PILE];
};

struct pf_seat {
        int32_t score;                  /* never below zero */
        int32_t terms[PF_N_TERMS];
        bool restart_card;
        uint8_t n_kept;
        uint8_t kept[PF_MAX_DECK];      /* face-down charging cards */
        int8_t ship;                    /* this stage's team card: its ship; PF_NO_SHIP */
        struct pf_pile pile;
};

/* A challenge done (solo). */
struct pf_done {
        uint8_t number, result, vp;
};

struct pf_state {
        uint32_t magic;                 /* PF_MAGIC once created */

        /* The set-up, fixed at create. */
        uint8_t n_seats;
        uint8_t mode;                   /* enum pf_mode */
        uint8_t layout[PF_BOARDS];      /* board position (row by row) -> planet */
        uint8_t advanced;               /* enum pf_advanced */
        uint8_t basic_copies, advanced_copies;
        uint8_t n_cards;
        uint8_t card_kind[PF_MAX_DECK]; /* instance -> enum pf_card */
        uint8_t stages;                 /* planet cards − 1 */
        uint8_t planets[PF_PLANET_CARDS];       /* the planet deck, drawn in order (hidden past planet_pos) */
        uint8_t n_planets, planet_pos;
        uint64_t seed, handle_key;
        uint64_t challenges_digest;     /* FNV-1a 64 of the challenges file in use */
        struct eng_rng rng;             /* reshuffles, the teams of later stages */

        bool any_input;
        uint64_t last_seq;
        int64_t last_us;
        uint8_t phase;                  /* enum pf_phase */
        bool paused;                    /* the operator's pause */

        /* The race. */
        uint8_t stage, round;           /* from 1 once started */
        uint8_t turns_taken;            /* turns of this round done */
        int8_t starting_seat;           /* who holds the starting player token now */
        int8_t current_seat;
        uint8_t start_planet, goal_planet;
        bool bonus_token;               /* the 3 VP token is on the goal */
        uint8_t beams;                  /* beams on the board */
        int8_t owner[PF_N_SHIPS];       /* this stage's controller, PF_NO_SHIP: not dealt */
        struct pf_pos ships[PF_N_SHIPS];
        bool on_goal[PF_N_SHIPS];       /* record tokens */
        int8_t teams[PF_MAX_STAGES][PF_MAX_SEATS];      /* stage − 1, seat -> team */
        uint8_t deck_n, discard_n;
        uint8_t deck[PF_MAX_DECK];      /* hidden order; the top is deck[deck_n − 1] */
        uint8_t discard[PF_MAX_DECK];
        struct pf_seat seats[PF_MAX_SEATS];
        struct pf_turn turn;
        uint8_t n_last;
        struct pf_change last[PF_MAX_LAST];     /* the last turn's changes */

        /* Solo. */
        struct pf_challenges cat;
        uint8_t solo_n;                 /* challenges dealt */
        uint8_t solo_order[PF_MAX_CHALLENGES];  /* catalogue indices, hidden past solo_pos */
        uint8_t solo_pos;               /* the face-up one */
        uint8_t vp_left;
        uint8_t n_done;
        struct pf_done done[PF_MAX_CHALLENGES];
};

/* The engine.  Its params: layout, deck.basic_copies, deck.advanced,
 * deck.advanced_copies, solo.cards, solo.min_vp, solo.max_vp. */
extern const struct eng_game pf_game;

/* Stages of a race of n_seats players: planet cards − 1 (0 outside 2..6). */
unsigned pf_stages_for(unsigned n_seats);

/* How many team cards of team (enum pf_team) n_seats players use — the
 * decision "teams by player count": 1v1, 2v1, 2v2, 3v2, 3v3, red taking the
 * odd player; they are team's ships 1.. (red_1, red_2, …).  0 outside 2..6. */
unsigned pf_team_size(unsigned n_seats, unsigned team);

/* A card's handle in this match, and the card a handle names (-ENOENT for
 * no such card). */
uint32_t pf_handle(const struct pf_state *st, unsigned card);
int pf_card_of(const struct pf_state *st, uint32_t handle, unsigned *ret_card);

/* Whether card instance c is the face-up top of a pile (and whose). */
int pf_face_up_seat(const struct pf_state *st, unsigned c);

/* The name of a rule ("vp_satellite"), NULL out of range. */
const char *pf_rule_name(unsigned rule);

/* Checks every invariant above.  0, or -EBADMSG with a sentence in
 * why[0..len) (why may be NULL). */
int pf_check(const struct pf_state *st, char *why, size_t len);

/* ---- A random legal referee and whole games (pitch_fleet_sim.c), for
 * tests, test_audience and the benchmark. */

struct pf_sim_params {
        unsigned outbound_pct;          /* a shot sends the moved ship out */
        unsigned knock_pct;             /* a shot knocks another ship */
        unsigned restart_pct;           /* a restart when allowed */
        unsigned foul_pct;              /* a foul */
        unsigned keep_pct;              /* a charging draw is kept (else used) */
        unsigned success_pct;           /* solo: an attempt succeeds */
        unsigned junk_pct;              /* an impossible report (must be refused) */
        size_t max_inputs;              /* give up (-E2BIG) after this many */
};

void pf_sim_params_default(struct pf_sim_params *ret);

struct pf_sim_stats {
        size_t inputs, refused, outputs, turns, restarts, fouls, charges, junk;
};

/* One legal input for the state as it is (a random report drawn from the
 * layout in play), its seq and time set after the last one: 0, or -EAGAIN
 * when the match is finished.  With junk_pct, sometimes an impossible one
 * instead (*ret_junk true): the engine must refuse it, though every field
 * is within its range (REST carries it). */
int pf_sim_next(const struct pf_state *st, struct eng_rng *rng, const struct pf_sim_params *p, uint64_t seq,
                int64_t now, struct eng_input *ret, bool *ret_junk);

typedef int (*pf_sim_step_fn)(void *ctx, const struct pf_state *st, const struct eng_input *in,
                              const struct eng_out *out);

/* Plays one whole match from create to FINISHED with the random referee:
 * st is created from cfg, n_seats and seed (built-in challenges);
 * ref_seed drives the referee.  The inputs go to log[0..log_cap) when log
 * is not NULL (-ENOBUFS if too small).  0 with *ret_stats (may be NULL),
 * -EINVAL, -E2BIG past max_inputs, -EPROTO when an input meant to be
 * accepted was refused (or junk was accepted), or step's error. */
int pf_sim_match(struct pf_state *st, const struct eng_config *cfg, unsigned n_seats, uint64_t seed,
                 uint64_t ref_seed, const struct pf_sim_params *p, struct eng_input *log, size_t log_cap,
                 pf_sim_step_fn step, void *ctx, struct pf_sim_stats *ret_stats);

#endif
