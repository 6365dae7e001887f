/* engine/crazy_pilot.h — Crazy Pilot: everyone resolves their own pile of
 * situation cards at once; a "Zombieeees!" pauses the table for a slap race.
 *
 * The rules are the Crazy Pilot rulebook (docs/games/crazy-pilot.md, clause
 * by clause Z1..Z41); every clause is implemented in crazy_pilot.c and has a
 * test named after it in tests/unit/test_crazy_pilot.c.  Where the rulebook
 * is silent or assumes a physical table, docs/games/crazy-pilot.md records
 * what we decided and why.  The game plugs into engine/engine.h as cz_game;
 * the runtime uses only that table.  The rest of this header is for tests,
 * the bots (crazy_pilot_sim.c, tools/arbiter-bots) and the benchmark.
 *
 * What it owns: the game's schema (settings, the "cards" data file, actions,
 * events, routes, view members), its rules, the one rule of scoring
 * (cz_stack_accepts: is a card of answer A correct in stack S), its hash and
 * its views.  The card catalogue (format, parser, the built-in 94 cards, the
 * scene's answer) is engine/crazy_cards.h's.
 *
 * Cards.  A card is its index in the match's catalogue (0 .. n − 1, the
 * catalogue's line order); outside the engine it is only ever
 * eng_handle(handle_key, index).  Starting cards, car cards, penalty cards
 * and the finish card are not situation cards: they are flags and counts.
 *
 * Seats.  Seat s plays the pile dealt for seat s − 1 (Z5: "pass this pile to
 * the player on your left", and the seat on a player's left is the next
 * seat); both the dealt piles and the played ones are kept, for audit.
 *
 * Ownership: struct cz_state is plain data (engine.h, "Ownership"), about
 * 25 KB with its parsed catalogue; the caller allocates it
 * (cz_game.state_size) and frees nothing.
 */
#ifndef ARBITER_ENGINE_CRAZY_PILOT_H
#define ARBITER_ENGINE_CRAZY_PILOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/crazy_cards.h"
#include "engine/engine.h"
#include "engine/rng.h"

/* The rulebook's deal table: 2 to 6 players. */
#define CZ_MIN_SEATS            2
#define CZ_MAX_SEATS            6
/* Rulebook, "2-Player Variant": 20 each and 3 zombie cards added back. */
#define CZ_TWO_PLAYER_DEAL      20
#define CZ_TWO_PLAYER_ZOMBIES   3
/* The most cards one pile or one stack can hold: 20 + 3. */
#define CZ_MAX_PILE             24

/* Settings' ranges and defaults (the schema in crazy_pilot.c). */
#define CZ_DEADLINE_MIN_MS      1000
#define CZ_DEADLINE_MAX_MS      60000
#define CZ_DEADLINE_DEFAULT_MS  5000
#define CZ_GRACE_MAX_MS         1000
#define CZ_GRACE_DEFAULT_MS     100
#define CZ_RESUME_MIN_MS        1000
#define CZ_RESUME_MAX_MS        120000
#define CZ_RESUME_DEFAULT_MS    10000

#define CZ_DATA_CARDS           0       /* the "cards" data file's index */

/* Settings, by position in cz_game.params; each takes one slot, so the
 * config slot of a setting is its position (tests check it). */
enum cz_param {
        CZ_PARAM_FORK_TURNS = 0,        /* "fork.turns" */
        CZ_PARAM_SLAP_DEADLINE_MS,      /* "zombie.slap_deadline_ms" */
        CZ_PARAM_GRACE_MS,              /* "zombie.grace_ms" */
        CZ_PARAM_RESUME_MS,             /* "zombie.resume_ms" */
        CZ_PARAM_SLAP_SHOUTS,           /* "zombie.slap_shouts" */
        CZ_N_PARAMS,
};
enum cz_slot {
        CZ_SLOT_FORK_TURNS = 0,
        CZ_SLOT_SLAP_DEADLINE_MS = 1,
        CZ_SLOT_GRACE_MS = 2,
        CZ_SLOT_RESUME_MS = 3,
        CZ_SLOT_SLAP_SHOUTS = 4,
        CZ_CONFIG_SLOTS,
};

/* fork.turns (Z28). */
enum cz_fork {
        CZ_FORK_MATCHING = 0,           /* a fork goes on straight or on its own turn's stack */
        CZ_FORK_EITHER,                 /* a fork goes on straight or on either turn stack */
};

/* Where a situation card lies: the placements of the rulebook (JSON names
 * as cz_placement_name()), and, past them, where the rest goes. */
enum cz_place {
        CZ_PLACE_STRAIGHT = 0,          /* above the car */
        CZ_PLACE_LEFT,                  /* left of the car */
        CZ_PLACE_RIGHT,                 /* right of the car */
        CZ_PLACE_UTURN,                 /* below the car */
        CZ_PLACE_HAND,                  /* under the draw pile (under the starting card) */
        CZ_PLACE_UNDER_CAR,             /* a shouted card with a zombie */
        CZ_PLACE_SET_ASIDE,             /* a shouted card without one, face down */
        CZ_PLACE_FRONT,                 /* 2 players: in front of this seat, sent by the other */
        CZ_N_PLACEMENTS,
        CZ_PLACE_DISCARD = CZ_N_PLACEMENTS,     /* unresolved at the end (Z26) */
        CZ_N_ZONES,
};
/* The five placements a seat resolves a card to (buttons 0..4). */
#define CZ_N_RESOLVE            5

/* Pad buttons (docs/protocol.md section 7 numbers them from 0): a button
 * pad's 0..4 resolve to straight, left, right, u_turn, hand; 5 shouts. */
#define CZ_BUTTON_SHOUT         5
#define CZ_PAD_BUTTONS          6

/* The game's own inputs (eng_game.actions, eng_input.action). */
enum cz_action {
        CZ_ACTION_RESOLVE = 0,          /* seated {placement} */
        CZ_ACTION_SHOUT,                /* seated {} */
        CZ_ACTION_SLAP,                 /* seated {} */
        CZ_ACTION_DRIVE,                /* {}: resume play after a race */
        CZ_ACTION_COVER,                /* seated {card}: 2 players */
        CZ_ACTION_MOVE,                 /* seated (the seat whose card) {card, to}: referee */
        CZ_N_ACTIONS,
};
/* Actions' slots in eng_input.arg[]. */
enum { CZ_RESOLVE_PLACEMENT = 0 };
enum { CZ_COVER_CARD = 0 };
enum { CZ_MOVE_CARD = 0, CZ_MOVE_TO };

/* Score terms (cz_game.terms, eng_result.terms[s][t]). */
enum cz_term {
        CZ_TERM_CORRECT = 0,            /* +1 a card assessed correctly (Z29) */
        CZ_TERM_FINISH,                 /* +2 the finish card (Z30) */
        CZ_TERM_WRONG,                  /* −1 a card assessed wrongly (Z31) */
        CZ_TERM_PENALTIES,              /* −1 a penalty card (Z32) */
        CZ_TERM_SET_ASIDE,              /* −1 a card set aside (Z33) */
        CZ_TERM_FRONT,                  /* 2 players: −1 a card in front of you that costs you */
        CZ_TERM_BLUFFS,                 /* 2 players: −1 a card you sent without a zombie, not covered */
        CZ_N_TERMS,
};

/* The game's events, for tests, and their fields' slots. */
extern const struct eng_event_def cz_ev_card_shown, cz_ev_card_resolved, cz_ev_zombie_called,
        cz_ev_slap_recorded, cz_ev_zombie_checked, cz_ev_penalty_given, cz_ev_play_resumed,
        cz_ev_starting_card_revealed, cz_ev_card_sent, cz_ev_card_covered, cz_ev_card_moved, cz_ev_seat_scored;

enum { CZ_SHOWN_CARD = 0, CZ_SHOWN_NUMBER };
enum { CZ_RESOLVED_PLACEMENT = 0, CZ_RESOLVED_REACTION, CZ_RESOLVED_CARD };
enum { CZ_CALLED_SEATS = 0, CZ_CALLED_RACERS, CZ_CALLED_DEADLINE };
enum { CZ_SLAP_ORDER = 0, CZ_SLAP_GAP, CZ_SLAP_UNCERTAINTY, CZ_SLAP_REACTION };
enum { CZ_CHECKED_ZOMBIE = 0, CZ_CHECKED_PLACEMENT };
enum { CZ_PENALTY_REASON = 0 };
enum { CZ_RESUMED_BY = 0 };
enum { CZ_REVEALED_PRESS = 0 };
enum { CZ_SENT_TO_SEAT = 0, CZ_SENT_CARD };
enum { CZ_COVERED_CARD = 0 };
enum { CZ_MOVED_CARD = 0, CZ_MOVED_FROM, CZ_MOVED_TO };
enum { CZ_SCORED_CORRECT = 0, CZ_SCORED_WRONG, CZ_SCORED_FINISH, CZ_SCORED_PENALTIES, CZ_SCORED_SET_ASIDE,
       CZ_SCORED_FRONT, CZ_SCORED_BLUFFS, CZ_SCORED_SCORE };

/* penalty_given's reason, play_resumed's by. */
enum cz_reason { CZ_REASON_LAST_SLAP = 0, CZ_REASON_NO_SLAP };
enum cz_by { CZ_BY_SHOUTER = 0, CZ_BY_REFEREE, CZ_BY_TIMEOUT };

/* The match:
 *
 *            START (Z8, Z9)
 *     READY --------------> PLAYING <------------------------------+
 *                            |    ^                                 |
 *          a shout (Z14, Z15)|    | drive: the earliest shouter's   |
 *          (2 players: the   |    | slap pad or action, a referee,  |
 *           card is sent,    v    | or TIMER at resume_at (Z20)     |
 *           no race)       RACE ---------> CHECKED -----------------+
 *                            every racer slapped, or TIMER at the
 *                            deadline: cards checked, penalties (Z17..Z22)
 *
 *     A starting card revealed (the last card of a pile resolved or
 *     shouted; Z23) from PLAYING, RACE or CHECKED: ENDING, which waits
 *     zombie.grace_ms for a second starting card; TIMER: FINISHED,
 *     unresolved cards discarded (Z26), every seat scored (Z27..Z35).
 *
 *   The operator's PAUSE stops every clock (the deadlines move by the
 *   pause's length at RESUME); a VOID re-arms them from the void's time.
 */
enum cz_phase {
        CZ_PHASE_READY = 0,
        CZ_PHASE_PLAYING,
        CZ_PHASE_RACE,                  /* the slap race runs */
        CZ_PHASE_CHECKED,               /* cards checked, waiting for "Driiiiive!" */
        CZ_PHASE_ENDING,                /* a starting card is up; waiting zombie.grace_ms */
        CZ_PHASE_FINISHED,
};

struct cz_slap {
        int8_t seat;
        int64_t press_us, uncertainty_us;
};

/* The slap race (RACE and CHECKED). */
struct cz_race {
        uint32_t shouters;              /* seats that shouted (within the grace of the first) */
        uint32_t racers;                /* every other seat: they must slap */
        uint32_t slapped;               /* racers that slapped */
        int8_t first;                   /* the earliest shouter (by press time) */
        int64_t shout_us;               /* the earliest shout's press time */
        int64_t started_us;             /* the input time of the first shout */
        int64_t deadline_us;            /* press times after this are too late */
        uint8_t n_slaps;
        struct cz_slap slaps[CZ_MAX_SEATS];     /* in the order they came */
        /* CHECKED: */
        bool zombie;                    /* at least one shouted card had a zombie */
        uint32_t penalized;             /* who took a penalty card */
        uint32_t missing;               /* racers that had not slapped by the deadline */
        int64_t resume_at_us;           /* the automatic "Driiiiive!" */
};

struct cz_seat {
        /* The pile dealt for this seat, top first (Z2..Z5): seat s plays the
         * one dealt for s − 1.  Never changes after create. */
        uint8_t dealt_len;
        uint8_t dealt[CZ_MAX_PILE];
        /* The pile this seat plays, top first: pile[pile_pos] is the face-up
         * card while pile_pos < pile_len; pile[pile_pos + 1 ..) is hidden. */
        uint8_t pile_len, pile_pos;
        uint8_t pile[CZ_MAX_PILE];
        /* Every other place a card of this seat can be, in the order it
         * came (zone[CZ_PLACE_FRONT]: the cards the other seat sent). */
        uint8_t zone_len[CZ_N_ZONES];
        uint8_t zone[CZ_N_ZONES][CZ_MAX_PILE];
        uint32_t covered;               /* 2 players: bit i: zone[FRONT][i] covered */
        uint16_t penalties;             /* penalty cards taken (Z19, Z22) */
        bool revealed;                  /* revealed its starting card */
        bool finish;                    /* holds a finish card (Z24) */
        int64_t reveal_us, reveal_uncertainty_us;
        int64_t shown_us;               /* when the face-up card came up (or play resumed) */
        /* Statistics. */
        uint16_t resolved, shouts, false_shouts, slaps, sent;
        int64_t reaction_sum_us, slap_sum_us;
};

struct cz_state {
        uint32_t magic;                 /* CZ_MAGIC once created */

        /* The set-up, fixed at create. */
        uint8_t n_seats;
        bool two_player;
        uint8_t fork;                   /* enum cz_fork */
        bool slap_shouts;
        int64_t deadline_us, grace_us, resume_us;
        uint64_t seed, handle_key;
        uint64_t catalogue_digest;      /* FNV-1a 64 of the cards file in use */
        struct cz_catalogue cat;

        /* Unused cards (Z3, and the zombie cards not added back). */
        uint8_t box_len;
        uint8_t box[CZ_MAX_CARDS];

        bool any_input;
        uint64_t last_seq;
        int64_t last_us;

        uint8_t phase;                  /* enum cz_phase */
        bool paused;                    /* the operator's pause */
        int64_t paused_at_us;
        int64_t wake_us;
        int64_t started_us;
        struct cz_race race;
        /* ENDING: the first starting card's press and uncertainty. */
        int64_t end_us, end_uncertainty_us;
        uint32_t races;                 /* races run so far */
        struct cz_seat seats[CZ_MAX_SEATS];
};

/* The engine.  Its params: fork.turns, zombie.slap_deadline_ms,
 * zombie.grace_ms, zombie.resume_ms, zombie.slap_shouts. */
extern const struct eng_game cz_game;

/* Rulebook, "Setup": cards dealt to each player for n_seats players (2: 20,
 * before the zombie cards are added back); 0 outside 2..6. */
unsigned cz_cards_per_player(unsigned n_seats);

/* "straight", "left", …, "front"; NULL when out of range. */
const char *cz_placement_name(unsigned place);

/* The scoring rule, in one place (Z27, Z28): is a card whose back shows
 * answer correctly placed in zone place, with fork.turns fork?  Straight
 * holds straight and both forks; left holds left and fork_left (and
 * fork_right when fork is CZ_FORK_EITHER); right likewise; u_turn, hand and
 * under_car hold their own answer only.  set_aside, front and discard are
 * scored by their own terms, never as correct. */
bool cz_stack_accepts(unsigned place, unsigned answer, unsigned fork);

/* A card's handle in this match, and the card a handle names (-ENOENT for
 * none of this catalogue). */
uint32_t cz_handle(const struct cz_state *st, unsigned card);
int cz_card_of(const struct cz_state *st, uint32_t handle, unsigned *ret_card);

/* Each seat's score terms as the result will give them (the sum is the
 * score). */
void cz_terms(const struct cz_state *st, int seat, int64_t terms[CZ_N_TERMS]);

/* Checks every invariant: every card of the catalogue in exactly one place
 * (a pile, a zone of a seat, the box); pile_pos <= pile_len; the phase's
 * own (a race's racers and shouters apart and covering the table,
 * slapped within racers, a wake-up exactly when a clock runs); two-player
 * zones only with two players.  0, or -EBADMSG with a sentence in
 * why[0..len) (why may be NULL). */
int cz_check(const struct cz_state *st, char *why, size_t len);

/* ---- A seat's view as a plain struct (the bot, the simulation). */

struct cz_view {
        enum cz_phase phase;
        bool two_player;
        bool paused;
        uint8_t n_seats;
        int seat;
        bool has_card;                  /* a face-up card */
        uint32_t handle;
        struct cz_scene scene;          /* its scene, as the station draws it */
        int64_t shown_us;
        bool may_resolve, may_shout, must_slap, may_drive;
        uint8_t pile_left;
        /* 2 players: the cards in front of this seat, their scenes, and
         * whether each is covered. */
        uint8_t n_front;
        uint32_t front_handle[CZ_MAX_PILE];
        struct cz_scene front_scene[CZ_MAX_PILE];
        bool front_covered[CZ_MAX_PILE];
        int64_t deadline_us, resume_at_us, wake_us;
};

/* Fills *ret with what seat sees.  0 or -EINVAL. */
int cz_view_of(const struct cz_state *st, int seat, struct cz_view *ret);

/* ---- Bot and simulation (crazy_pilot_sim.c), for tests and the benchmark. */

/* What a bot does with its face-up card: resolve it (*ret_place one of the
 * five), or shout (*ret_shout).  It asks cz_scene_answer() what the scene
 * calls for; with probability error_pct/100 it picks another placement,
 * and with false_shout_pct/100 it shouts at a card without a zombie.  A
 * fork goes on straight or on its turn, at random.  0, or -EAGAIN when the
 * view shows no card to act on. */
int cz_bot_choose(const struct cz_view *v, struct eng_rng *rng, unsigned error_pct, unsigned false_shout_pct,
                  bool *ret_shout, unsigned *ret_place);

struct cz_sim_params {
        unsigned error_pct;             /* a resolution is wrong */
        unsigned false_shout_pct;       /* a shout at a card without a zombie */
        unsigned miss_zombie_pct;       /* a zombie not noticed (resolved instead) */
        unsigned no_slap_pct;           /* a racer does not slap before the deadline */
        unsigned drive_timeout_pct;     /* the shouter never says "Driiiiive!" */
        unsigned junk_pct;              /* a malformed or out-of-place input (refused) */
        unsigned cover_pct;             /* 2 players: the chance a card in front is covered */
        int64_t reaction_min_us, reaction_max_us;
        int64_t uncertainty_us;         /* every press's clock uncertainty */
        size_t max_inputs;              /* give up (-E2BIG) after this many */
};

/* Defaults: 10 % wrong, 3 % false shouts, 10 % missed zombies, 3 % missed
 * slaps, 20 % timed-out resumes, 3 % junk, 60 % covers; reactions 400 ms ..
 * 2.5 s; uncertainty 300 µs; 100,000 inputs at most. */
void cz_sim_params_default(struct cz_sim_params *ret);

struct cz_sim_stats {
        size_t inputs, refused, outputs;
        size_t resolutions, shouts, races, penalties, junk;
};

typedef int (*cz_sim_step_fn)(void *ctx, const struct cz_state *st, const struct eng_input *in,
                              const struct eng_out *out);

/* Plays one whole match from create to FINISHED with bots at every seat:
 * st is created from cfg, n_seats and seed (built-in cards); bot_seed
 * drives the players.  The inputs go to log[0..log_cap) when log is not
 * NULL (-ENOBUFS if too small).  0 with *ret_stats (may be NULL), -EINVAL,
 * -E2BIG past max_inputs, -EPROTO when an input the simulation meant to be
 * accepted was refused (or junk was accepted), or step's error. */
int cz_sim_match(struct cz_state *st, const struct eng_config *cfg, unsigned n_seats, uint64_t seed,
                 uint64_t bot_seed, const struct cz_sim_params *p, struct eng_input *log, size_t log_cap,
                 cz_sim_step_fn step, void *ctx, struct cz_sim_stats *ret_stats);

#endif
