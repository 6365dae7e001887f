/* engine/engine.h — the interface every game engine implements.
 *
 * A match is an engine state plus an append-only, numbered input log
 * (docs/architecture.md).  This header is the contract between a game's
 * rules (engine/<game>.c) and everything that runs a match (match/, api/,
 * bus/, store/): the runtime feeds inputs, the engine answers with outputs,
 * and nothing else passes between them.  Nothing outside engine/ knows any
 * one game: a game is its engine file, its data and one line in
 * engine/registry.c.  docs/engine.md is the guide a new game's author
 * follows.
 *
 * Pure: engines include libc only, read no clock, do no I/O and allocate
 * nothing.  Every time comes in with an input.  An engine that needs to act
 * at a later time says so ("wake me at T", out->wake_us) and the runtime
 * feeds an ENG_IN_TIMER input when that time has come.
 *
 * Deterministic: create(config, data, n_seats, seed) followed by the same
 * inputs gives the same state, the same outputs and the same hash, bit for
 * bit, on every platform.  Recovery after a crash is replay (engine/log.h),
 * checked by the hash the runtime stored with every input.
 *
 * One type system.  Settings, the fields of inputs and events, the members
 * of views and the records of data files are all described by struct
 * eng_field: a name, a type, a range, an audience.  The same tables give the
 * REST layer its validation (400 naming the field), the JSON shape of every
 * value, the D-Bus signal signatures and GET /v1/games.  Values travel as
 * "slots": int64_t each, a list as its count followed by its elements
 * (eng_fields_slots() gives the layout).
 *
 * Audiences.  Every event and every field of an event or a view is public
 * (the scoreboard, D-Bus, everyone), seat-private (the seat concerned: the
 * event's seat, the seat whose view it is) or referee-only.  Anything that
 * identifies a card outside the engine is an opaque per-match handle
 * (eng_handle()), so that a public card catalogue reveals nothing.
 *
 * Ownership.  The state is plain data owned by the caller: game->state_size
 * bytes, aligned for any type, with no pointers inside and nothing to free.
 * create() initialises all of it; apply() mutates it in place.  memcpy() of
 * state_size bytes is a complete, independent copy: that is how a referee's
 * input is previewed (apply it to a copy, show the copy's outputs, throw the
 * copy away).  Outputs and views are filled by copy; the engine keeps no
 * pointer to caller memory after a call returns.  The definition tables
 * (struct eng_field, eng_input_def, eng_event_def, eng_route) are static
 * const data of the engine; outputs point into them.
 *
 * Refusals.  apply() answers every well-formed call with 0 and sets
 * out->refusal: ENG_ACCEPTED, or the reason the input was refused.  A refused
 * input changes nothing in the state (its hash is unchanged), so the runtime
 * logs refused inputs for the audit trail and replay refuses them again.
 * apply() returns -errno only for a programming error (a NULL pointer, a
 * state that was never created, a broken invariant).
 *
 * Seats are numbered 0 .. n_seats − 1 (bit i of a seat mask is seat i);
 * screens show them from 1.  Seat order is clockwise around the table: the
 * seat on a player's left is the next seat, (s + 1) mod n_seats.
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
/* An optional value that is not there (JSON null, or left out). */
#define ENG_ABSENT              INT64_MIN
/* Accepted input times, as JUDGE_TIME_LIMIT_US: within ±2^60 µs (36,000
 * years), a time plus any configured duration cannot overflow int64_t. */
#define ENG_TIME_LIMIT_US       (INT64_C(1) << 60)
/* Config slots: Pitch Fleet's board layout and deck counts, and a game's
 * lists of records (ENG_T_RECORDS), are the largest foreseen. */
#define ENG_MAX_CONFIG_SLOTS    512
/* Slots of one input's fields: Pitch Fleet's shot report (ship, the ships
 * that went out, collided, locations arrived at, knocked ships and where
 * each ended: six ships, a few locations) is the largest foreseen, about
 * 30.  Kept small: the runtime keeps every input of a live match. */
#define ENG_MAX_ARGS            32
/* Slots of one output's fields: places for every seat (8) with a few more
 * fields, or a handful of short lists.  Kept small: every output is zeroed
 * when it is pushed, and an input makes several. */
#define ENG_MAX_VALUES          20
/* Outputs one input may produce; a game declares its own bound in
 * eng_game.max_outputs, and the framework may add one (a void's
 * inputs_voided). */
#define ENG_MAX_OUTPUTS         32
/* Data files per game (Crazy Pilot's cards; Pitch Fleet's challenges,
 * its boards being compiled in). */
#define ENG_MAX_DATA            4
/* Named score terms per seat, and in-game stages that deal teams anew. */
#define ENG_MAX_TERMS           8
#define ENG_MAX_STAGES          8
/* The member of a card's face that names it in words (card_face). */
#define ENG_CARD_NAME           "name"
/* Room for one validation message naming its field. */
#define ENG_ERROR_MAX           200
#define ENG_FIELD_MAX           48

struct eng_game;

/* ---- Audiences. */

enum eng_audience {
        ENG_VIEW_PUBLIC = 0,            /* the scoreboard: what everyone at the table sees */
        ENG_VIEW_SEAT,                  /* one player: the seat concerned */
        ENG_VIEW_REFEREE,               /* the referee; hidden card order stays hidden */
        ENG_VIEW_RUNTIME,               /* requests to the runtime: never published */
};

/* ---- Types and fields. */

enum eng_type {
        ENG_T_INT = 1,                  /* an integer in [min, max] */
        ENG_T_BOOL,                     /* 0 or 1; JSON true/false */
        ENG_T_ENUM,                     /* an index into choices; JSON the choice's name */
        ENG_T_SEAT,                     /* an engine seat, or ENG_SEAT_TABLE; JSON 1-based or null */
        ENG_T_SEATS,                    /* a seat mask; JSON the list of 1-based seats */
        ENG_T_BITS,                     /* a bit mask (pad buttons); JSON the list of set bits */
        ENG_T_TIME,                     /* match time in µs */
        ENG_T_CALL,                     /* a judged call (eng_game.calls); JSON the number */
        ENG_T_SEQ,                      /* an input's seq */
        ENG_T_HANDLE,                   /* a card's opaque handle; JSON 8 hex digits */
        ENG_T_CARD,                     /* a card: its handle and its face (card_face) */
        ENG_T_PLACES,                   /* ENG_MAX_SEATS slots: each seat's place, 1 = first
                                         * (0: no such seat); JSON [{seat, place}] best first */
        ENG_T_RECORDS,                  /* config only: a list of records of `fields` */
        ENG_T_OBJECT,                   /* views only (documentation): a nested object */
};

/* One field of a setting, an input, an event, a view or a data record. */
struct eng_field {
        const char *name;               /* JSON member; settings: a dotted key, "deck.copies" */
        enum eng_type type;
        int64_t min, max;               /* INT, TIME, SEQ: the range; ENUM: 0 .. choices − 1 */
        int64_t def;                    /* a setting's default; an optional input field's */
        const char *const *choices;     /* ENUM: the names, index = value */
        const char *const *choice_text; /* ENUM: each choice in words, for explanations (NULL:
                                         * the name) */
        unsigned max_count;             /* 0: one value; n: a list of 0 .. n values */
        bool optional;                  /* inputs: may be left out (def; ENG_ABSENT when def is
                                         * ENG_ABSENT); events: may be ENG_ABSENT (JSON null) */
        enum eng_audience audience;     /* events and views: who may see it */
        const struct eng_field *fields; /* RECORDS: the fields of one record */
        size_t n_fields;
        const char *unit;               /* "ms", "cards", …; NULL when unitless */
        const char *doc;                /* one sentence for the reference */
};

/* Slots one field takes: a scalar 1 (PLACES ENG_MAX_SEATS), a list 1 (its
 * count) + max_count × one element, RECORDS 1 + max_count × the slots of a
 * record. */
size_t eng_field_slots(const struct eng_field *f);
/* Slots of a list of fields, laid out in order. */
size_t eng_fields_slots(const struct eng_field *f, size_t n);
/* The first slot of the field called name (a dotted key for settings;
 * fields of records are not found), or -ENOENT. */
int eng_fields_offset(const struct eng_field *f, size_t n, const char *name);
/* The field called name, or NULL. */
const struct eng_field *eng_fields_find(const struct eng_field *f, size_t n, const char *name);

/* ---- Configuration and data files. */

/* Values by slot (eng_fields_slots of the game's params).  A setting of
 * one value is at its slot; a list is its count then its elements. */
struct eng_config {
        int64_t v[ENG_MAX_CONFIG_SLOTS];
};

/* A data file: a game's catalogue of cards, boards, challenges.  The
 * default is compiled into the engine (builtin); a custom one comes with
 * the match and is stored with it, so that replay is exact.  The format is
 * the game's (documented in doc), parsed by the engine in create(). */
struct eng_data_def {
        const char *name;               /* "cards": the key in a match's "data" */
        const char *builtin;            /* the default file, NUL-terminated */
        size_t max_len;                 /* the longest custom file accepted, in bytes */
        const char *doc;
};

/* The data files of one match, by position in the game's data[]: a custom
 * file's bytes, or NULL for the built-in one.  A NULL struct eng_data
 * pointer means every file is built in. */
struct eng_data {
        const char *text[ENG_MAX_DATA];
        size_t len[ENG_MAX_DATA];
};

/* The file at index i of data (custom or built in): 0 with *ret_text and
 * *ret_len, or -EINVAL for no such file. */
int eng_data_file(const struct eng_game *g, const struct eng_data *data, size_t i, const char **ret_text,
                  size_t *ret_len);

/* A validation error: the field at fault ("deck.copies", "seats",
 * "data.prompts line 3") and a message a person can act on, which starts
 * with the field ("deck.copies: must be 1..4"). */
struct eng_error {
        char field[ENG_FIELD_MAX];
        char message[ENG_ERROR_MAX];
};

/* ---- Inputs. */

enum eng_input_kind {
        ENG_IN_START = 1,               /* the match begins (referee, keypad) */
        ENG_IN_CALL,                    /* the judge's single winner of a window: seat, call */
        ENG_IN_TIE,                     /* the judge found these seats tied for first */
        ENG_IN_PRESS,                   /* a timed press: every press of a PRESS route, in press
                                         * order once the settle window has passed */
        ENG_IN_TIMER,                   /* a wake-up the engine asked for has come */
        ENG_IN_PAUSE,                   /* the operator's table-wide pause */
        ENG_IN_RESUME,                  /* lifts the operator's pause (only that one) */
        ENG_IN_ACTION,                  /* one of the game's own inputs (eng_game.actions) */
        ENG_IN_VOID,                    /* undo: rewinds the match to just before input
                                         * `target` (engine/log.h); the engine sees it after
                                         * the rewind, to set its timers from now */
        ENG_IN_CONFIRM,                 /* a referee confirms the result of a finished match
                                         * (engine/log.h); engines never see it */
        ENG_IN_KINDS_END,
};

/* Who may send an input. */
#define ENG_FROM_SEAT           1u      /* the seat itself (its pads, its station's token);
                                         * sent by a seat, even an input that is not seated
                                         * carries that seat, not ENG_SEAT_TABLE */
#define ENG_FROM_REFEREE        2u      /* a referee (REST, the referee keypad) */
#define ENG_FROM_RUNTIME        4u      /* only the runtime makes it (timers, the judge) */

struct eng_input_def {
        const char *name;               /* "award": REST's and the log's "kind" */
        unsigned from;                  /* ENG_FROM_* */
        bool seated;                    /* it acts for one seat: input.seat is a seat */
        const struct eng_field *fields;
        size_t n_fields;
        const char *doc;
};

/* Built-in inputs' field layouts; the struct overlays in eng_input name
 * the same slots. */
#define ENG_TIE_CALLS           ENG_MAX_SEATS

struct eng_input {
        uint64_t seq;                   /* the log's number; strictly increasing */
        int64_t time_us;                /* match time when the runtime applied it; never
                                         * decreasing */
        int seat;                       /* the seat acting, or ENG_SEAT_TABLE */
        enum eng_input_kind kind;
        unsigned action;                /* ENG_IN_ACTION: the index in eng_game.actions */
        union {
                int64_t arg[ENG_MAX_ARGS];      /* the fields, as eng_input_def lays them out */
                struct {                /* ENG_IN_CALL */
                        int64_t window;         /* the window it answers (window_open) */
                        int64_t call;           /* the call it makes (eng_game.calls) */
                        int64_t press_us;       /* when the button went down, match time */
                } call;
                struct {                /* ENG_IN_TIE */
                        int64_t window;
                        int64_t seats;          /* bit i: seat i was among the first */
                        int64_t press_us;       /* the earliest of the tied presses */
                        int64_t n_calls;        /* the tied calls, one per tied seat in seat
                                                 * order (0 when not known: a referee's tie) */
                        int64_t calls[ENG_TIE_CALLS];
                } tie;
                struct {                /* ENG_IN_PRESS */
                        int64_t role;           /* enum eng_pad_role of the pad */
                        int64_t button;
                        int64_t press_us;       /* when it happened (the pad's clock), match time */
                        int64_t uncertainty_us; /* ± the clock model's error bound */
                        int64_t received_us;    /* when its frame arrived, match time */
                } press;
                struct {                /* ENG_IN_VOID */
                        int64_t target;         /* the first input voided */
                } void_;
        };
};

/* The definition of in (a built-in one, or the game's action); NULL for an
 * unknown kind or action. */
const struct eng_input_def *eng_input_def_of(const struct eng_game *g, const struct eng_input *in);
/* The input called name: 0 with *ret_kind (and *ret_action for an action),
 * or -ENOENT. */
int eng_input_find(const struct eng_game *g, const char *name, enum eng_input_kind *ret_kind,
                   unsigned *ret_action);
/* Built-in inputs, by kind (NULL below ENG_IN_START). */
extern const struct eng_input_def *const eng_builtin_inputs[ENG_IN_KINDS_END];

enum eng_refusal {
        ENG_ACCEPTED = 0,
        ENG_REFUSED_SEQ,                /* seq not after the last accepted input's */
        ENG_REFUSED_TIME,               /* time_us before the last accepted input's */
        ENG_REFUSED_INVALID,            /* malformed: no such seat, call, card or location; a
                                         * press time outside [window open, time_us] */
        ENG_REFUSED_STATE,              /* not possible now: not started, already started,
                                         * paused, nothing to undo, ... */
        ENG_REFUSED_TOO_LATE,           /* answers a window that has closed */
        ENG_REFUSED_NOT_ALLOWED,        /* this seat may not act now */
        ENG_REFUSED_NOT_DUE,            /* a timer before the engine's wake-up time */
        ENG_REFUSED_FINISHED,           /* the match is over */
        ENG_REFUSED_UNSUPPORTED,        /* this game has no use for this kind of input */
};

/* ---- Pads: where a press goes (input routes). */

/* A pad's role at a table: the pad kinds of docs/protocol.md section 7. */
enum eng_pad_role {
        ENG_ROLE_BUTTONS = 1,           /* a seat's button pad */
        ENG_ROLE_SLAP = 2,              /* a seat's slap pad */
        ENG_ROLE_KEYPAD = 3,            /* the table's referee keypad */
};
#define ENG_ROLES_END           4
#define ENG_ANY_BUTTON          0xffu

enum eng_route_kind {
        ENG_ROUTE_CALL = 1,             /* a judged call: first-press windows (engine/judge.h);
                                         * the judge's decision becomes ENG_IN_CALL or _TIE */
        ENG_ROUTE_PRESS,                /* every press is an ENG_IN_PRESS for the seat, in press
                                         * order after the settle window */
        ENG_ROUTE_INPUT,                /* the press sends a named input without fields (a
                                         * referee keypad's Start, Pause, Undo, …) */
};

struct eng_route {
        enum eng_pad_role role;
        unsigned button;                /* or ENG_ANY_BUTTON */
        enum eng_route_kind kind;
        int call;                       /* CALL: the call it makes */
        const char *input;              /* INPUT: a built-in input or an action without
                                         * required fields */
};

/* The first route of g for a press of button on a pad of role; NULL when
 * none takes it (the runtime counts such presses). */
const struct eng_route *eng_route_find(const struct eng_game *g, enum eng_pad_role role, unsigned button);
/* "buttons", "slap", "keypad"; NULL for anything else. */
const char *eng_role_name(enum eng_pad_role role);
/* The role called name, or -EINVAL. */
int eng_role_from_name(const char *name);

/* ---- Outputs: events for the world, requests to the runtime. */

struct eng_event_def {
        const char *name;               /* "card_revealed": the SSE event; the D-Bus signal is
                                         * its CamelCase ("CardRevealed") */
        enum eng_audience audience;     /* who hears it at all; its fields may narrow it */
        const struct eng_field *fields;
        size_t n_fields;
        const char *text;               /* the sentence of a referee's explanation, with
                                         * {field} and {seat} put in: "{seat} calls {call}" */
        bool reveals;                   /* it shows what was hidden (a card turned over) */
        const char *doc;
};

struct eng_output {
        const struct eng_event_def *def;
        int seat;                       /* the seat concerned, or ENG_SEAT_TABLE */
        int64_t at_us;                  /* the input's time_us */
        union {
                int64_t v[ENG_MAX_VALUES];      /* the fields, as def lays them out */
                struct { int64_t window, seats; } window;               /* window_open/close */
                struct { int64_t button, mode, duration_ms; } light;     /* pad_light */
                struct { int64_t pattern, duration_ms; } buzz;           /* pad_buzz */
                struct { int64_t buttons; } lockout;                     /* pad_lockout */
                struct { int64_t winner; int64_t place[ENG_MAX_SEATS]; } finished;
                struct { int64_t target, count; } voided;               /* inputs_voided */
        };
};

/* The framework's own events, the same for every game (D-Bus: the Match
 * interface). */
extern const struct eng_event_def eng_ev_match_started;
extern const struct eng_event_def eng_ev_paused;        /* the operator's pause */
extern const struct eng_event_def eng_ev_resumed;
extern const struct eng_event_def eng_ev_match_finished;        /* winner, placements */
extern const struct eng_event_def eng_ev_inputs_voided;         /* target, count */
extern const struct eng_event_def eng_ev_result_confirmed;
extern const struct eng_event_def *const eng_framework_events[];        /* NULL-terminated */

/* Requests to the runtime (audience ENG_VIEW_RUNTIME, never published). */
extern const struct eng_event_def eng_req_window_open;  /* judge_open(at_us, seats) */
extern const struct eng_event_def eng_req_window_close; /* judge_close() */
extern const struct eng_event_def eng_req_pad_light;    /* docs/protocol.md LIGHT */
extern const struct eng_event_def eng_req_pad_buzz;     /* BUZZ */
extern const struct eng_event_def eng_req_pad_lockout;  /* LOCKOUT (display only) */
extern const struct eng_event_def *const eng_requests[];        /* NULL-terminated */

static inline bool eng_output_is_request(const struct eng_output *o) {
        return o->def->audience == ENG_VIEW_RUNTIME;
}

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

/* Caller-provided; apply() resets it.  About 6.5 KB. */
struct eng_out {
        enum eng_refusal refusal;
        /* A refused input: the field at fault ("ship") and why, in a few
         * words that follow it ("is not on the board"), static strings of
         * the engine (eng_refuse()); NULL when the refusal says it all.
         * Shown in a 409's detail, never stored: the log keeps the
         * refusal. */
        const char *refusal_field;
        const char *refusal_why;
        int64_t wake_us;                /* the engine's next wake-up after this input, or
                                         * ENG_NEVER: replaces any earlier one */
        size_t n;
        struct eng_output v[ENG_MAX_OUTPUTS];
};

/* ---- Views: what each audience may see, as a walk the caller turns into
 * JSON (api/) or D-Bus values (bus/) without knowing the game. */

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
        ENG_STATUS_RUNNING,             /* (a game's own pause is running: eng_game.game_pause) */
        ENG_STATUS_PAUSED,              /* the operator's pause */
        ENG_STATUS_FINISHED,
};

struct eng_result {
        bool finished;                  /* false: provisional order of an unfinished match */
        int winner;                     /* ENG_SEAT_TABLE when none (or shared) */
        unsigned n_seats;
        /* Per seat: 1 is first; seats that are truly equal share a place and
         * the next place is skipped ("1, 2, 2, 4"). */
        unsigned place[ENG_MAX_SEATS];
        /* The seats best first; equal seats are adjacent, in seat order. */
        int order[ENG_MAX_SEATS];
        /* Each seat's score: terms[s][t] is the seat's value of the game's
         * term t (eng_game.terms), and score[s] their sum. */
        int64_t score[ENG_MAX_SEATS];
        int64_t terms[ENG_MAX_SEATS][ENG_MAX_TERMS];
        /* Teams per in-game stage (0 stages: no teams); team[s][k] is seat
         * s's team in stage k, from 0. */
        unsigned n_stages;
        int8_t team[ENG_MAX_SEATS][ENG_MAX_STAGES];
        /* One-seat games: the evaluation ("Solar-mighty"); else NULL. */
        const char *label;
};

/* ---- The game: a const table of methods (gpsd's driver table style). */

struct eng_game {
        const char *name;               /* "crash-pilot": URLs, the database, configs */
        const char *display_name;       /* "Crash Pilot" */
        const char *description;        /* one paragraph for GET /v1/games */
        unsigned min_seats, max_seats;

        const struct eng_field *params; /* the settings */
        size_t n_params;
        const struct eng_data_def *data;        /* its data files */
        size_t n_data;
        const struct eng_input_def *actions;    /* its own inputs (ENG_IN_ACTION) */
        size_t n_actions;
        unsigned builtins;              /* bit k: built-in input kind k applies (START, TIMER,
                                         * PAUSE, RESUME, VOID, CONFIRM always do) */
        const struct eng_event_def *const *events;      /* its own events */
        size_t n_events;
        const struct eng_route *routes;         /* where pad presses go */
        size_t n_routes;
        const char *const *calls;       /* call numbers' names ("row 1"); NULL gaps */
        size_t n_calls;
        const char *const *terms;       /* score terms' names ("correct", "penalty") */
        size_t n_terms;
        const struct eng_field *view;   /* the view's top-level members and their audiences */
        size_t n_view;
        size_t state_size;              /* bytes the caller allocates for a state */
        size_t max_outputs;             /* outputs per apply(), < ENG_MAX_OUTPUTS */

        /* Cross-field checks beyond each setting's range (eng_config_validate
         * checks ranges and the seat count first), and the data files: 0, or
         * -EINVAL with *ret_err filled. */
        int (*validate)(const struct eng_config *cfg, const struct eng_data *data, unsigned n_seats,
                        struct eng_error *ret_err);
        /* Initialises the whole state: set-up and deal, shuffled with seed.
         * 0, or -EINVAL for a setup that does not validate. */
        int (*create)(void *state, const struct eng_config *cfg, const struct eng_data *data,
                      unsigned n_seats, uint64_t seed);
        /* One input: 0 with out->refusal and out->wake_us set and the outputs
         * appended; -EINVAL for a NULL argument or an uncreated state;
         * -EPROTO if an internal invariant broke (a bug: the runtime then
         * hands the match to a referee). */
        int (*apply)(void *state, const struct eng_input *in, struct eng_out *out);
        enum eng_status (*status)(const void *state);
        /* The pending wake-up, as the last out->wake_us said; ENG_NEVER. */
        int64_t (*wake_us)(const void *state);
        /* Walks the view for audience (seat: ENG_VIEW_SEAT only).  0, -EINVAL
         * for a seat out of range, or the visitor's error. */
        int (*view_visit)(const void *state, enum eng_audience audience, int seat,
                          const struct eng_visitor *v, void *ctx);
        /* The state hash: FNV-1a 64 over the canonical serialisation. */
        uint64_t (*hash)(const void *state);
        /* Placements, score terms, teams; provisional (finished false) while
         * the match runs.  Always 0 for a created state. */
        int (*result)(const void *state, struct eng_result *ret);
        /* A card's face, by its handle, as an object's fields ("object": 2,
         * ...); state is any state of the match.  A string member
         * ENG_CARD_NAME is the card in words ("red star"): explanations say
         * it, and screens show it.  0, -ENOENT for no such card, or the
         * visitor's error.  NULL for a game without cards. */
        int (*card_face)(const void *state, uint32_t handle, const struct eng_visitor *v, void *ctx);
        /* The game's own pause in force ("zombie"), or NULL; NULL method: the
         * game has none.  Independent of the operator's pause. */
        const char *(*game_pause)(const void *state);
        /* A seat's statistics for the result, as an object's fields; NULL
         * method: none. */
        int (*stats)(const void *state, int seat, const struct eng_visitor *v, void *ctx);
        /* For the non-interference test only: permutes what is still hidden
         * (the order of unrevealed cards) and nothing else, drawing from
         * salt (a permutation may happen to leave it as it was).  0, or
         * -EAGAIN when nothing is hidden now.  NULL: the game hides
         * nothing. */
        int (*perturb_hidden)(void *state, uint64_t salt);
};

/* Whether g's tables are complete and consistent: names (snake_case, none
 * that every input or event already has: kind, seat, seq, time_us, reason,
 * at_us, match), docs and explanation texts, defaults in range, slots within
 * bounds, routes that name a call or an input the game takes, no action or
 * event named like a built-in one.  0, or -EINVAL with the first problem in
 * why (may be NULL).  A game's unit test calls it. */
int eng_game_check(const struct eng_game *g, char *why, size_t len);

/* Every game arbiter runs, NULL-terminated (engine/registry.c; a test build
 * of the daemon links its own registry). */
extern const struct eng_game *const eng_games[];

/* The game called name, or NULL. */
const struct eng_game *eng_game_find(const char *name);

/* The name of call, or NULL for no call of g. */
const char *eng_call_name(const struct eng_game *g, int64_t call);
/* The call g names so, ignoring case, blanks and punctuation ("row-1" is
 * "row 1"): 0 with *ret_call, -ENOENT for no call of g, -EINVAL. */
int eng_call_by_name(const struct eng_game *g, const char *name, int *ret_call);

/* The event of g called name (its own or the framework's), or NULL. */
const struct eng_event_def *eng_event_find(const struct eng_game *g, const char *name);

/* ---- Settings. */

/* The index of key in game->params, or -ENOENT. */
int eng_param_find(const struct eng_game *game, const char *key);
/* Every setting at its default; lists empty. */
void eng_config_defaults(const struct eng_game *game, struct eng_config *ret);
/* Sets one single-valued setting by key after checking its range: 0,
 * -ENOENT for an unknown key ("deck.copiez: no such setting"), -ERANGE for
 * a value out of range ("deck.copies: must be 1..4"), -EINVAL for a list;
 * *ret_err says which (may be NULL). */
int eng_config_set(const struct eng_game *game, struct eng_config *cfg, const char *key,
                   int64_t value, struct eng_error *ret_err);
/* As eng_config_set for an ENG_T_ENUM given by choice name: also -EINVAL
 * for a setting that is not a choice. */
int eng_config_set_choice(const struct eng_game *game, struct eng_config *cfg, const char *key,
                          const char *choice, struct eng_error *ret_err);
/* The whole check: the seat count against the game's range ("seats: must
 * be 2..5"), every value against its field, each data file's length, then
 * game->validate.  0 or -EINVAL with *ret_err (may be NULL). */
int eng_config_validate(const struct eng_game *game, const struct eng_config *cfg,
                        const struct eng_data *data, unsigned n_seats, struct eng_error *ret_err);
/* One value against its field (type, range, list count): 0, or -ERANGE
 * with *ret_err naming field (the caller's path, "award.points[2]"). */
int eng_value_check(const struct eng_field *f, const char *field, int64_t value,
                    struct eng_error *ret_err);

/* ---- Card handles.  A handle is a keyed permutation of the 32-bit card
 * ids (a four-round Feistel network whose round keys come from key), so a
 * handle names one card of one match and says nothing about it to anyone
 * without the key.  Engines derive key from the match seed at create and
 * keep it in their state: the seed is shown only once the match is over,
 * and with it anyone can map handles back to cards. */

uint64_t eng_handle_key(uint64_t seed);
uint32_t eng_handle(uint64_t key, uint32_t card);
uint32_t eng_handle_card(uint64_t key, uint32_t handle);

/* ---- Names: stable snake_case, the same in JSON, logs and the database;
 * "unknown" for anything else. */
const char *eng_input_kind_name(enum eng_input_kind kind);
const char *eng_refusal_name(enum eng_refusal refusal);
const char *eng_status_name(enum eng_status status);
const char *eng_audience_name(enum eng_audience a);
const char *eng_type_name(enum eng_type t);

/* ---- For engines. */

/* Whether t is a time an input may carry: within ±ENG_TIME_LIMIT_US. */
bool eng_time_ok(int64_t t);

/* The checks every input passes before its kind's own (docs/engine.md,
 * "Refusals"): its seq after the last accepted input's (ENG_REFUSED_SEQ),
 * its time_us a time (ENG_REFUSED_INVALID) and not before the last
 * accepted input's (ENG_REFUSED_TIME).  any: an input has been accepted,
 * so last_seq and last_us are set.  ENG_ACCEPTED when in passes. */
enum eng_refusal eng_input_order(const struct eng_input *in, bool any, uint64_t last_seq, int64_t last_us);

/* Empties out: no outputs, accepted, no refusal field or why, wake_us as
 * given. */
void eng_out_reset(struct eng_out *out, int64_t wake_us);

/* Notes which field of the input is at fault (may be NULL: the input as a
 * whole) and why, both static strings, and returns refusal:
 *     return eng_refuse(out, ENG_REFUSED_INVALID, "ship", "is not on the board"); */
enum eng_refusal eng_refuse(struct eng_out *out, enum eng_refusal refusal, const char *field, const char *why);

/* Appends a zeroed output (padding included, so outputs compare with
 * memcmp) of def with seat and at_us set, or NULL when out is full: an
 * engine whose max_outputs is right never sees NULL. */
struct eng_output *eng_out_push(struct eng_out *out, const struct eng_event_def *def, int seat,
                                int64_t at_us);

/* Fills ret->place[] and ret->order[] from a per-seat sort key: a seat with
 * a smaller key places better, equal keys share a place. */
void eng_result_rank(struct eng_result *ret, const uint64_t key[ENG_MAX_SEATS]);
/* Sets ret->score[] to the sum of each seat's terms. */
void eng_result_sum(struct eng_result *ret, size_t n_terms);

/* Sets *ret_err (if not NULL) to field and a printf-formatted message that
 * the function prefixes with "field: ".  Returns -EINVAL. */
int eng_error_set(struct eng_error *ret_err, const char *field, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The next line of a data file: [*pos, len) is scanned, the line (without
 * its newline, trailing blanks and any "#" comment) is [*ret_start,
 * *ret_start + *ret_len), *pos moves past it and *ret_line_no counts from
 * 1.  Blank and comment-only lines are skipped.  1 with a line, 0 at the
 * end. */
int eng_data_next_line(const char *text, size_t len, size_t *pos, const char **ret_start, size_t *ret_len,
                       unsigned *ret_line_no);

#endif
