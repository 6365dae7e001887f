/* engine/engine.h — the interface every game engine implements.
 *
 * A match is an engine state plus an append-only, numbered input log
 * (DESIGN.md section 5).  This header is the contract between a game's rules
 * (engine/<game>.c) and everything that runs a match (daemon/, api/, bus/,
 * store/): the runtime feeds inputs, the engine answers with outputs, and
 * nothing else passes between them.  docs/engine.md explains the design and
 * how the runtime drives it, step by step.
 *
 * Pure (DESIGN.md section 2): engines include libc only, read no clock, do
 * no I/O and allocate nothing.  Every time comes in with an input.  An engine
 * that needs to act at a later time says so ("wake me at T", out->wake_us)
 * and the runtime feeds an ENG_IN_TIMER input when that time has come.
 *
 * Deterministic: create(config, n_seats, seed) followed by the same inputs
 * gives the same state, the same outputs and the same hash, bit for bit, on
 * every platform.  Recovery after a crash is replay (eng_replay), checked by
 * the hash the runtime stored with the last input.
 *
 * Ownership.  The state is plain data owned by the caller: game->state_size
 * bytes, aligned for any type (malloc/calloc, or static storage), with no
 * pointers inside and nothing to free.  create() initialises all of it;
 * apply() mutates it in place and allocates nothing.  Because the state has
 * no pointers, memcpy() of state_size bytes is a complete, independent copy:
 * that is how a referee's report is previewed (apply it to a copy, show the
 * copy's outputs, throw the copy away) and how a benchmark or a test forks a
 * match.  Output buffers (struct eng_out) and views are filled by copy; the
 * engine keeps no pointer to caller memory after a call returns.
 *
 * Refusals.  apply() answers every well-formed call with 0 and sets
 * out->refusal: ENG_ACCEPTED, or the reason the input was refused.  A
 * refused input changes nothing in the state (its hash is unchanged), so the
 * runtime may log refused inputs for the audit trail and replay them: they
 * are refused again.  apply() returns -errno only for a programming error
 * (a NULL pointer, a state that was never created, a broken invariant).
 *
 * Seats are numbered 0 .. n_seats − 1, as in engine/judge.h (bit i of a seat
 * mask is seat i); screens show them from 1.
 */
#ifndef ARBITER_ENGINE_ENGINE_H
#define ARBITER_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest table any game seats: engine/judge.h's JUDGE_MAX_SEATS, so
 * that a seat mask means the same to the judge and to an engine. */
#define ENG_MAX_SEATS           8
/* The "seat" of an input or output that concerns no one seat: the table,
 * the referee, a timer. */
#define ENG_SEAT_TABLE          (-1)
/* "No such time" (no wake-up wanted), as JUDGE_NEVER. */
#define ENG_NEVER               INT64_MAX
/* Accepted input times, as JUDGE_TIME_LIMIT_US: within ±2^60 µs (36,000
 * years), a time plus any configured duration cannot overflow int64_t.  An
 * input outside is refused as invalid. */
#define ENG_TIME_LIMIT_US       (INT64_C(1) << 60)
/* Settings per game: Crash Pilot has 5; Pitch Fleet's set-up (players,
 * planets, advanced cards, solo mode, challenge count) is the largest
 * foreseen, and 16 leaves room without making a config large. */
#define ENG_MAX_PARAMS          16
/* Outputs one input may produce.  A game declares its own bound in
 * eng_game.max_outputs (Crash Pilot: 24; its worst case, a wrong call in a
 * five-seat tiebreak that eliminates the caller, with instant reveals,
 * makes 13); 32 covers a Pitch Fleet round end that scores every seat. */
#define ENG_MAX_OUTPUTS         32
/* Arguments of a referee input: Pitch Fleet's move report (ship, outbound
 * flags, locations arrived at, ...) is the largest foreseen. */
#define ENG_REFEREE_ARGS        6
/* Room for one validation message naming its field. */
#define ENG_ERROR_MAX           200
#define ENG_FIELD_MAX           48

struct eng_game;

/* ---- Configuration: a schema of typed keys, so that the REST layer can
 * validate, default and document any game's settings without knowing it. */

enum eng_param_type {
        ENG_PARAM_INT = 1,              /* an integer in [min, max] */
        ENG_PARAM_BOOL,                 /* 0 or 1; JSON true/false */
        ENG_PARAM_ENUM,                 /* an index into choices; JSON the choice's name */
};

struct eng_param {
        const char *key;                /* dotted path, "deck.copies"; JSON may nest along the dots */
        enum eng_param_type type;
        int64_t min, max, def;          /* BOOL: 0, 1; ENUM: 0, n_choices − 1 */
        const char *unit;               /* "ms", "cards", ...; NULL when unitless */
        const char *const *choices;     /* ENUM only: the names, index = value */
        const char *doc;                /* one sentence for the REST reference */
};

/* Values by position in the game's params[] (not by key). */
struct eng_config {
        int64_t v[ENG_MAX_PARAMS];
};

/* A validation error: the field at fault ("deck.copies", or "seats") and a
 * message a person can act on, which starts with the field
 * ("deck.copies: must be 1..4"). */
struct eng_error {
        char field[ENG_FIELD_MAX];
        char message[ENG_ERROR_MAX];
};

/* ---- Inputs. */

enum eng_input_kind {
        ENG_IN_START = 1,               /* the match begins (operator or referee) */
        ENG_IN_CALL,                    /* the judged first call of a window: seat, call */
        ENG_IN_TIE,                     /* the judge found these seats tied for first */
        ENG_IN_PRESS,                   /* a raw press, for games that order presses
                                         * themselves (Crazy Pilot: each seat plays its
                                         * own pile; the slap race is "who was last") */
        ENG_IN_TIMER,                   /* a wake-up the engine asked for has come */
        ENG_IN_PAUSE,                   /* table-wide pause (operator, referee) */
        ENG_IN_RESUME,
        ENG_IN_REFEREE,                 /* a game-defined referee operation (override,
                                         * report, adjudication): op and args */
};

struct eng_input {
        uint64_t seq;                   /* the log's number; strictly increasing */
        int64_t time_us;                /* host CLOCK_MONOTONIC µs when the runtime applied
                                         * it; never decreasing */
        int seat;                       /* the seat acting, or ENG_SEAT_TABLE */
        enum eng_input_kind kind;
        union {
                struct {                /* ENG_IN_CALL */
                        uint32_t window;        /* the window it answers (ENG_REQ_WINDOW_OPEN) */
                        int call;               /* game-defined (eng_game.call_of_button) */
                        int64_t press_us;       /* when the button went down, host µs */
                } call;
                struct {                /* ENG_IN_TIE */
                        uint32_t window;
                        uint32_t seats;         /* bit i: seat i was among the first */
                        int64_t press_us;       /* the earliest of the tied presses */
                } tie;
                struct {                /* ENG_IN_PRESS */
                        unsigned button;
                        int64_t press_us;
                } press;
                struct {                /* ENG_IN_REFEREE */
                        unsigned op;            /* game-defined, e.g. CP_REFEREE_VOID */
                        int64_t arg[ENG_REFEREE_ARGS];
                } referee;
        };
};

enum eng_refusal {
        ENG_ACCEPTED = 0,
        ENG_REFUSED_SEQ,                /* seq not after the last accepted input's */
        ENG_REFUSED_TIME,               /* time_us before the last accepted input's */
        ENG_REFUSED_INVALID,            /* malformed: no such seat, call or op; a press
                                         * time outside [window open, time_us] */
        ENG_REFUSED_STATE,              /* not possible now: not started, already
                                         * started, paused, nothing to undo, ... */
        ENG_REFUSED_TOO_LATE,           /* answers a window that has closed */
        ENG_REFUSED_NOT_ALLOWED,        /* this seat may not act now (out; not in the
                                         * tiebreak) */
        ENG_REFUSED_NOT_DUE,            /* a timer before the engine's wake-up time */
        ENG_REFUSED_FINISHED,           /* the match is over */
        ENG_REFUSED_UNSUPPORTED,        /* this game has no use for this kind of input */
};

/* ---- Outputs: events for the world, and requests to the runtime. */

enum eng_output_kind {
        /* Events: what happened, for SSE, D-Bus signals and the match record. */
        ENG_EV_MATCH_STARTED = 1,
        ENG_EV_CARD_REVEALED,           /* card, source; a window opens with it */
        ENG_EV_CALL_JUDGED,             /* seat, call, verdict, reaction */
        ENG_EV_TIEBREAK_STARTED,        /* seats */
        ENG_EV_CARD_PLACED,             /* card, row; seat: who placed it */
        ENG_EV_CARD_TUCKED,             /* card, cause */
        ENG_EV_CHIP_GIVEN,              /* seat, chips now */
        ENG_EV_PLAYER_ELIMINATED,       /* seat, order of elimination */
        ENG_EV_REVEAL_EXPIRED,          /* nobody called in time */
        ENG_EV_CALL_VOIDED,             /* a referee undid the last resolution */
        ENG_EV_PAUSED,
        ENG_EV_RESUMED,
        ENG_EV_SCORE_CHANGED,           /* seat, delta, total (VP games; not Crash Pilot) */
        ENG_EV_GAME,                    /* game-defined: code, args */
        ENG_EV_MATCH_FINISHED,          /* winner, placements */

        /* Requests: what the runtime must do. */
        ENG_REQ_WINDOW_OPEN = 64,       /* judge_open(at_us, seats) for this window id */
        ENG_REQ_WINDOW_CLOSE,           /* that window is over: judge_close() it */
        ENG_REQ_PAD_LIGHT,              /* docs/protocol.md LIGHT for the seat's pad */
        ENG_REQ_PAD_BUZZ,               /* docs/protocol.md BUZZ */
        ENG_REQ_PAD_LOCKOUT,            /* docs/protocol.md LOCKOUT (display only) */
};

enum eng_verdict {
        ENG_VERDICT_CORRECT = 1,
        ENG_VERDICT_WRONG,
        ENG_VERDICT_TOO_LATE,           /* refused: the window had closed */
        ENG_VERDICT_NOT_ALLOWED,        /* refused: the seat may not call this card */
};

/* Why a card went under the neutral deck. */
enum eng_cause {
        ENG_CAUSE_WRONG_CALL = 1,
        ENG_CAUSE_DOESNT_FIT,           /* a correct "doesn't fit" */
        ENG_CAUSE_TIE,
        ENG_CAUSE_EXPIRED,
};

/* Where a revealed card came from. */
#define ENG_SOURCE_NEUTRAL      (-1)    /* the neutral deck */
#define ENG_SOURCE_AGAIN        (-2)    /* the same card, shown again (resume, void) */
                                        /* >= 0: that seat's own stack */

/* docs/protocol.md section 6, LIGHT mode and BUZZ pattern. */
enum eng_light {
        ENG_LIGHT_OFF = 0,
        ENG_LIGHT_ON = 1,
        ENG_LIGHT_BLINK = 2,
};
enum eng_buzz {
        ENG_BUZZ_STEADY = 0,
        ENG_BUZZ_SHORT = 1,
        ENG_BUZZ_LONG_SHORT = 2,
};
#define ENG_BUTTON_ALL          0xff    /* LIGHT: every button */

struct eng_output {
        enum eng_output_kind kind;
        int seat;                       /* the seat concerned, or ENG_SEAT_TABLE */
        int64_t at_us;                  /* the input's time_us */
        union {
                struct { uint32_t card; int source; uint32_t reveal; } revealed;
                struct {
                        int call;
                        enum eng_verdict verdict;
                        int64_t reaction_us;    /* press time − reveal (window open) time;
                                                 * 0 for a refused call */
                        uint32_t window;
                        uint32_t card;
                } judged;
                struct { uint32_t seats; } tiebreak;
                struct { uint32_t card; int row; } placed;
                struct { uint32_t card; enum eng_cause cause; } tucked;
                struct { unsigned chips; } chip;
                struct { unsigned order; } eliminated;  /* 1: the first seat out */
                struct { uint32_t card; } expired;
                struct { uint64_t seq; } voided;        /* the input whose effect was undone */
                struct { int64_t delta, total; } score;
                struct { int code; int64_t arg[4]; } game;
                struct {
                        int winner;             /* ENG_SEAT_TABLE: none (shared) */
                        unsigned n_seats;
                        unsigned place[ENG_MAX_SEATS];  /* per seat, 1 = first */
                } finished;
                struct { uint32_t window; uint32_t seats; } window;
                struct { unsigned button; enum eng_light mode; unsigned duration_ms; } light;
                struct { enum eng_buzz pattern; unsigned duration_ms; } buzz;
                struct { uint32_t buttons; } lockout;   /* bit i: button i locked out */
        };
};

/* Caller-provided; apply() resets it.  About 1.8 KB: a stack variable. */
struct eng_out {
        enum eng_refusal refusal;
        int64_t wake_us;                /* the engine's next wake-up after this input, or
                                         * ENG_NEVER: replaces any earlier one */
        size_t n;
        struct eng_output v[ENG_MAX_OUTPUTS];
};

/* ---- Views: what each audience may see, as a walk the caller turns into
 * JSON (api/) or D-Bus properties (bus/) without knowing the game. */

enum eng_audience {
        ENG_VIEW_PUBLIC = 1,            /* the scoreboard: what everyone at the table sees */
        ENG_VIEW_SEAT,                  /* one player's screen */
        ENG_VIEW_REFEREE,               /* everything a referee needs; hidden card order
                                         * stays hidden (docs/engine.md, "Views") */
};

/* Each callback gets the key of the value in the enclosing object, or NULL
 * inside an array, and returns 0 or -errno; the first error stops the walk
 * and is returned.  The walk starts inside an implicit root object. */
struct eng_visitor {
        int (*object_begin)(void *ctx, const char *key);
        int (*object_end)(void *ctx);
        int (*array_begin)(void *ctx, const char *key);
        int (*array_end)(void *ctx);
        int (*integer)(void *ctx, const char *key, int64_t value);
        int (*boolean)(void *ctx, const char *key, bool value);
        int (*string)(void *ctx, const char *key, const char *value);
        int (*null)(void *ctx, const char *key);
};

/* ---- Status and result. */

enum eng_status {
        ENG_STATUS_READY = 1,           /* created, waiting for ENG_IN_START */
        ENG_STATUS_RUNNING,
        ENG_STATUS_PAUSED,
        ENG_STATUS_FINISHED,
};

struct eng_seat_stats {
        unsigned calls;                 /* judged calls: correct + wrong */
        unsigned correct, wrong;
        unsigned ties;                  /* ties this seat was part of */
        int64_t reaction_sum_us;        /* over judged calls */
        int64_t reaction_avg_us;        /* reaction_sum_us / calls, 0 when no calls */
        unsigned chips;
        unsigned cards_left;
        bool eliminated;
        unsigned eliminated_order;      /* 1: the first out; 0: not out */
        int64_t score;                  /* VP games; 0 for Crash Pilot */
};

struct eng_result {
        bool finished;                  /* false: provisional order of an unfinished match */
        int winner;                     /* ENG_SEAT_TABLE when none */
        unsigned n_seats;
        /* Per seat: 1 is first; seats that are truly equal share a place and
         * the next place is skipped ("1, 2, 2, 4"). */
        unsigned place[ENG_MAX_SEATS];
        /* The seats best first; equal seats are adjacent, in seat order. */
        int order[ENG_MAX_SEATS];
        struct eng_seat_stats stats[ENG_MAX_SEATS];
};

/* ---- The game: a const table of methods (gpsd's driver table style). */

struct eng_game {
        const char *name;               /* "crash-pilot": URLs, the database, configs */
        const char *display_name;       /* "Crash Pilot" */
        unsigned min_seats, max_seats;
        const struct eng_param *params;
        size_t n_params;                /* <= ENG_MAX_PARAMS */
        size_t state_size;              /* bytes the caller allocates for a state */
        size_t max_outputs;             /* outputs per apply(), <= ENG_MAX_OUTPUTS */

        /* Cross-field checks beyond each param's range (eng_config_validate
         * checks ranges and the seat count first).  0, or -EINVAL with
         * *ret_err filled. */
        int (*validate)(const struct eng_config *cfg, unsigned n_seats, struct eng_error *ret_err);
        /* Initialises the whole state: set-up and deal, shuffled with seed.
         * 0, or -EINVAL for a config that does not validate. */
        int (*create)(void *state, const struct eng_config *cfg, unsigned n_seats, uint64_t seed);
        /* One input: 0 with out->refusal and out->wake_us set and the outputs
         * appended; -EINVAL for a NULL argument or an uncreated state;
         * -EPROTO if an internal invariant broke (a bug: the state is then
         * unusable, and the runtime hands the match to a referee). */
        int (*apply)(void *state, const struct eng_input *in, struct eng_out *out);
        enum eng_status (*status)(const void *state);
        /* The pending wake-up, as the last out->wake_us said; ENG_NEVER. */
        int64_t (*wake_us)(const void *state);
        /* Walks the view for audience (seat: ENG_VIEW_SEAT only).  0, -EINVAL
         * for a seat out of range, or the visitor's error. */
        int (*view)(const void *state, enum eng_audience audience, int seat,
                    const struct eng_visitor *v, void *ctx);
        /* The state hash: FNV-1a 64 over the canonical serialisation. */
        uint64_t (*hash)(const void *state);
        /* Placements and statistics; provisional (finished false) while the
         * match runs.  Always 0 for a created state. */
        int (*result)(const void *state, struct eng_result *ret);
        /* A card's fields into the current object ("object": 2, ...). */
        int (*card_visit)(uint32_t card, const struct eng_visitor *v, void *ctx);
        /* "row 3", "doesn't fit", ...; NULL for an unknown call. */
        const char *(*call_name)(int call);
        /* A pad button (docs/protocol.md section 7) to the call it makes:
         * 0 with *ret_call, or -EINVAL for a button this game does not use. */
        int (*call_of_button)(unsigned button, int *ret_call);
};

/* Every game arbiter runs, NULL-terminated. */
extern const struct eng_game *const eng_games[];

/* The game called name, or NULL. */
const struct eng_game *eng_game_find(const char *name);

/* Calls are numbered below this (eng_game.call_name answers NULL beyond). */
#define ENG_MAX_CALLS 64

/* The call g names so, ignoring case, blanks and punctuation ("row-1" is
 * "row 1"): 0 with *ret_call, -ENOENT for no call of g, -EINVAL. */
int eng_call_by_name(const struct eng_game *g, const char *name, int *ret_call);

/* The index of key in game->params, or -ENOENT. */
int eng_param_find(const struct eng_game *game, const char *key);

/* Every param at its default. */
void eng_config_defaults(const struct eng_game *game, struct eng_config *ret);

/* Sets one param by key after checking its range: 0, -ENOENT for an
 * unknown key ("deck.copiez: no such setting"), -ERANGE for a value out of
 * range ("deck.copies: must be 1..4"); *ret_err says which (may be NULL). */
int eng_config_set(const struct eng_game *game, struct eng_config *cfg, const char *key,
                   int64_t value, struct eng_error *ret_err);

/* As eng_config_set for an ENG_PARAM_ENUM given by choice name: also
 * -EINVAL for a param that is not an enum. */
int eng_config_set_choice(const struct eng_game *game, struct eng_config *cfg, const char *key,
                          const char *choice, struct eng_error *ret_err);

/* The whole check: the seat count against the game's range ("seats: must be
 * 2..5"), every param against its range, then game->validate.  0 or
 * -EINVAL with *ret_err (may be NULL). */
int eng_config_validate(const struct eng_game *game, const struct eng_config *cfg,
                        unsigned n_seats, struct eng_error *ret_err);

/* Rebuilds a match: create, then apply log[0..n) in order.  Refused inputs
 * are part of a log and are refused again.  0, -EINVAL from create, or the
 * first -errno from apply.  *ret_refused (may be NULL) counts refusals. */
int eng_replay(const struct eng_game *game, void *state, const struct eng_config *cfg,
               unsigned n_seats, uint64_t seed, const struct eng_input *log, size_t n,
               size_t *ret_refused);

/* Walks one output as an object's fields ("kind": "call_judged", "seat": 2,
 * ...), cards through game->card_visit.  0 or the visitor's error. */
int eng_output_visit(const struct eng_game *game, const struct eng_output *o,
                     const struct eng_visitor *v, void *ctx);

/* Stable snake_case names for logs, JSON and the database; "unknown" for
 * anything else. */
const char *eng_input_kind_name(enum eng_input_kind kind);
const char *eng_output_kind_name(enum eng_output_kind kind);
const char *eng_refusal_name(enum eng_refusal refusal);
const char *eng_verdict_name(enum eng_verdict verdict);
const char *eng_cause_name(enum eng_cause cause);
const char *eng_status_name(enum eng_status status);

/* ---- For engines. */

/* Empties out: no outputs, accepted, wake_us as given. */
void eng_out_reset(struct eng_out *out, int64_t wake_us);

/* Appends a zeroed output (padding included, so outputs compare with
 * memcmp) with kind, seat and at_us set, or NULL when out is full: an
 * engine whose max_outputs is right never sees NULL. */
struct eng_output *eng_out_push(struct eng_out *out, enum eng_output_kind kind, int seat,
                                int64_t at_us);

/* Fills ret->place[] and ret->order[] from a per-seat sort key: a seat with
 * a smaller key places better, equal keys share a place.  Games build the
 * key from their own ranking rule. */
void eng_result_rank(struct eng_result *ret, const uint64_t key[ENG_MAX_SEATS]);

/* Sets *ret_err (if not NULL) to field and a printf-formatted message that
 * the function prefixes with "field: ".  Returns -EINVAL. */
int eng_error_set(struct eng_error *ret_err, const char *field, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif
