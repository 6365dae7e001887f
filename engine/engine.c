/* engine/engine.c — what engine.h defines for every game alike: the
 * built-in inputs, the framework's events and requests, routes, calls,
 * card handles, names, and the helpers engines build outputs and results
 * with.  Settings and values are in fields.c, the log's rules in log.c,
 * the list of games in registry.c. */
#include "engine/engine.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "engine/judge.h"
#include "engine/rng.h"

/* A seat mask means the same to the judge and to an engine. */
_Static_assert(ENG_MAX_SEATS == JUDGE_MAX_SEATS, "engine and judge seat limits differ");
_Static_assert(ENG_NEVER == JUDGE_NEVER, "engine and judge disagree on never");
_Static_assert(ENG_TIME_LIMIT_US == JUDGE_TIME_LIMIT_US, "engine and judge time limits differ");

#define ELEMENTSOF(a)           (sizeof(a) / sizeof((a)[0]))
/* The largest pad button number (docs/protocol.md section 7). */
#define PAD_BUTTON_MAX          15
/* An error bound wider than a minute is no time at all (judge.h). */
#define UNCERTAINTY_MAX_US      JUDGE_MAX_UNCERTAINTY_US
/* Call numbers are small: a game's calls table is indexed by them. */
#define CALL_MAX                255

const struct eng_game *eng_game_find(const char *name) {
        if (!name)
                return NULL;
        for (size_t i = 0; eng_games[i]; i++)
                if (strcmp(eng_games[i]->name, name) == 0)
                        return eng_games[i];
        return NULL;
}

/* ---- Built-in inputs. */

static const char *const role_choices[ENG_ROLES_END] = {
        [ENG_ROLE_BUTTONS] = "buttons",
        [ENG_ROLE_SLAP] = "slap",
        [ENG_ROLE_KEYPAD] = "keypad",
};

static const struct eng_field call_fields[] = {
        { .name = "window", .type = ENG_T_INT, .min = 0, .max = UINT32_MAX, .optional = true, .def = ENG_ABSENT,
          .doc = "The window it answers (REST: the open one when left out)." },
        { .name = "call", .type = ENG_T_CALL, .min = 0, .max = CALL_MAX, .doc = "The call made, by number." },
        { .name = "press_us", .type = ENG_T_TIME, .min = -ENG_TIME_LIMIT_US, .max = ENG_TIME_LIMIT_US,
          .optional = true, .def = ENG_ABSENT, .unit = "µs",
          .doc = "When the button went down, match time (REST: now when left out)." },
};

static const struct eng_field tie_fields[] = {
        { .name = "window", .type = ENG_T_INT, .min = 0, .max = UINT32_MAX, .optional = true, .def = ENG_ABSENT,
          .doc = "The window it answers (REST: the open one when left out)." },
        { .name = "seats", .type = ENG_T_SEATS, .doc = "The seats tied for first, two or more." },
        { .name = "press_us", .type = ENG_T_TIME, .min = -ENG_TIME_LIMIT_US, .max = ENG_TIME_LIMIT_US,
          .optional = true, .def = ENG_ABSENT, .unit = "µs",
          .doc = "The earliest of the tied presses, match time (REST: now when left out)." },
        { .name = "calls", .type = ENG_T_CALL, .min = 0, .max = CALL_MAX, .max_count = ENG_TIE_CALLS,
          .optional = true,
          .doc = "The tied calls, one per tied seat in seat order (empty when not known)." },
};

static const struct eng_field press_fields[] = {
        { .name = "role", .type = ENG_T_ENUM, .min = ENG_ROLE_BUTTONS, .max = ENG_ROLE_KEYPAD,
          .choices = role_choices, .doc = "The role of the pad pressed." },
        { .name = "button", .type = ENG_T_INT, .min = 0, .max = PAD_BUTTON_MAX, .doc = "The pad's button." },
        { .name = "press_us", .type = ENG_T_TIME, .min = -ENG_TIME_LIMIT_US, .max = ENG_TIME_LIMIT_US,
          .optional = true, .def = ENG_ABSENT, .unit = "µs",
          .doc = "When it happened on the pad's clock, match time (REST: now when left out)." },
        { .name = "uncertainty_us", .type = ENG_T_INT, .min = 0, .max = UNCERTAINTY_MAX_US, .optional = true,
          .def = 0, .unit = "µs", .doc = "± the error bound of that time." },
        { .name = "received_us", .type = ENG_T_TIME, .min = -ENG_TIME_LIMIT_US, .max = ENG_TIME_LIMIT_US,
          .optional = true, .def = ENG_ABSENT, .unit = "µs",
          .doc = "When its frame arrived, match time (REST: press_us when left out)." },
};

static const struct eng_field void_fields[] = {
        { .name = "target", .type = ENG_T_SEQ, .min = 1, .max = INT64_MAX,
          .doc = "The seq of the first input to void: the match goes back to just before it." },
};

static const struct eng_input_def in_start = {
        .name = "start", .from = ENG_FROM_REFEREE, .doc = "Starts a ready match.",
};
static const struct eng_input_def in_call = {
        .name = "call", .from = ENG_FROM_RUNTIME | ENG_FROM_REFEREE, .seated = true,
        .fields = call_fields, .n_fields = ELEMENTSOF(call_fields),
        .doc = "The judge's first press of a window, or a referee's call for a seat.",
};
static const struct eng_input_def in_tie = {
        .name = "tie", .from = ENG_FROM_RUNTIME | ENG_FROM_REFEREE,
        .fields = tie_fields, .n_fields = ELEMENTSOF(tie_fields),
        .doc = "Seats the judge (or a referee) found tied for the first press of a window.",
};
static const struct eng_input_def in_press = {
        .name = "press", .from = ENG_FROM_RUNTIME | ENG_FROM_REFEREE, .seated = true,
        .fields = press_fields, .n_fields = ELEMENTSOF(press_fields),
        .doc = "A timed press of a seat's pad, in press order once the settle window has passed.",
};
static const struct eng_input_def in_timer = {
        .name = "timer", .from = ENG_FROM_RUNTIME, .doc = "A wake-up the engine asked for has come.",
};
static const struct eng_input_def in_pause = {
        .name = "pause", .from = ENG_FROM_REFEREE,
        .doc = "The operator's pause of the whole table; a game's own pause is separate.",
};
static const struct eng_input_def in_resume = {
        .name = "resume", .from = ENG_FROM_REFEREE, .doc = "Lifts the operator's pause, and only that.",
};
static const struct eng_input_def in_void = {
        .name = "void", .from = ENG_FROM_REFEREE, .fields = void_fields, .n_fields = ELEMENTSOF(void_fields),
        .doc = "Undo: voids input target and every input in effect after it; the match goes back to just "
               "before target.",
};
static const struct eng_input_def in_confirm = {
        .name = "confirm", .from = ENG_FROM_REFEREE | ENG_FROM_RUNTIME,
        .doc = "Confirms the provisional result of a finished match that waits for a referee.",
};

const struct eng_input_def *const eng_builtin_inputs[ENG_IN_KINDS_END] = {
        [ENG_IN_START] = &in_start,
        [ENG_IN_CALL] = &in_call,
        [ENG_IN_TIE] = &in_tie,
        [ENG_IN_PRESS] = &in_press,
        [ENG_IN_TIMER] = &in_timer,
        [ENG_IN_PAUSE] = &in_pause,
        [ENG_IN_RESUME] = &in_resume,
        [ENG_IN_VOID] = &in_void,
        [ENG_IN_CONFIRM] = &in_confirm,
};

_Static_assert(offsetof(struct eng_input, call.call) == offsetof(struct eng_input, arg[1]), "call layout");
_Static_assert(offsetof(struct eng_input, tie.calls) == offsetof(struct eng_input, arg[4]), "tie layout");
_Static_assert(offsetof(struct eng_input, press.received_us) == offsetof(struct eng_input, arg[4]),
               "press layout");

const struct eng_input_def *eng_input_def_of(const struct eng_game *g, const struct eng_input *in) {
        if (!in)
                return NULL;
        if (in->kind == ENG_IN_ACTION)
                return g && in->action < g->n_actions ? &g->actions[in->action] : NULL;
        if ((unsigned) in->kind < ENG_IN_KINDS_END)
                return eng_builtin_inputs[in->kind];
        return NULL;
}

int eng_input_find(const struct eng_game *g, const char *name, enum eng_input_kind *ret_kind,
                   unsigned *ret_action) {
        if (!name)
                return -ENOENT;
        for (unsigned k = ENG_IN_START; k < ENG_IN_KINDS_END; k++)
                if (eng_builtin_inputs[k] && strcmp(eng_builtin_inputs[k]->name, name) == 0) {
                        *ret_kind = (enum eng_input_kind) k;
                        if (ret_action)
                                *ret_action = 0;
                        return 0;
                }
        for (size_t a = 0; g && a < g->n_actions; a++)
                if (strcmp(g->actions[a].name, name) == 0) {
                        *ret_kind = ENG_IN_ACTION;
                        if (ret_action)
                                *ret_action = (unsigned) a;
                        return 0;
                }
        return -ENOENT;
}

/* ---- Routes. */

const struct eng_route *eng_route_find(const struct eng_game *g, enum eng_pad_role role, unsigned button) {
        for (size_t i = 0; g && i < g->n_routes; i++) {
                const struct eng_route *r = &g->routes[i];

                if (r->role == role && (r->button == ENG_ANY_BUTTON || r->button == button))
                        return r;
        }
        return NULL;
}

const char *eng_role_name(enum eng_pad_role role) {
        return (unsigned) role < ENG_ROLES_END ? role_choices[role] : NULL;
}

int eng_role_from_name(const char *name) {
        for (int r = ENG_ROLE_BUTTONS; name && r < ENG_ROLES_END; r++)
                if (strcmp(role_choices[r], name) == 0)
                        return r;
        return -EINVAL;
}

/* ---- The framework's events and the requests. */

static const struct eng_field finished_fields[] = {
        { .name = "winner", .type = ENG_T_SEAT, .optional = true, .doc = "The winner; null when shared." },
        { .name = "placements", .type = ENG_T_PLACES, .doc = "Every seat's place, best first; equal places share." },
};
static const struct eng_field voided_fields[] = {
        { .name = "target", .type = ENG_T_SEQ, .min = 1, .max = INT64_MAX,
          .doc = "The first input voided: the match went back to just before it." },
        { .name = "count", .type = ENG_T_INT, .min = 0, .max = INT64_MAX, .doc = "How many inputs were voided." },
};

const struct eng_event_def eng_ev_match_started = {
        .name = "match_started", .text = "The match starts.", .doc = "The match has started.",
};
const struct eng_event_def eng_ev_paused = {
        .name = "paused", .text = "The operator pauses the match.",
        .doc = "The operator paused the whole table.",
};
const struct eng_event_def eng_ev_resumed = {
        .name = "resumed", .text = "The operator lifts the pause.", .doc = "The operator's pause is lifted.",
};
const struct eng_event_def eng_ev_match_finished = {
        .name = "match_finished", .fields = finished_fields, .n_fields = ELEMENTSOF(finished_fields),
        .text = "The match is over; {winner} wins.", .doc = "The match is over: the winner and every place.",
};
const struct eng_event_def eng_ev_inputs_voided = {
        .name = "inputs_voided", .fields = voided_fields, .n_fields = ELEMENTSOF(voided_fields),
        .text = "{count} inputs from #{target} on are voided: the match is back to just before #{target}.",
        .doc = "A referee's undo: the inputs from target on no longer count.",
};
const struct eng_event_def eng_ev_result_confirmed = {
        .name = "result_confirmed", .text = "The referee confirms the result.",
        .doc = "A referee confirmed the provisional result; it is final.",
};

const struct eng_event_def *const eng_framework_events[] = {
        &eng_ev_match_started, &eng_ev_paused, &eng_ev_resumed, &eng_ev_match_finished,
        &eng_ev_inputs_voided, &eng_ev_result_confirmed, NULL,
};

static const char *const light_choices[] = { "off", "on", "blink" };
static const char *const buzz_choices[] = { "steady", "short", "long_short" };

static const struct eng_field window_fields[] = {
        { .name = "window", .type = ENG_T_INT, .min = 0, .max = UINT32_MAX, .doc = "The window's id." },
        { .name = "seats", .type = ENG_T_SEATS, .doc = "The seats that may call." },
};
static const struct eng_field light_fields[] = {
        { .name = "button", .type = ENG_T_INT, .min = 0, .max = ENG_BUTTON_ALL, .doc = "255: every button." },
        { .name = "mode", .type = ENG_T_ENUM, .min = 0, .max = 2, .choices = light_choices },
        { .name = "duration_ms", .type = ENG_T_INT, .min = 0, .max = INT32_MAX, .unit = "ms" },
};
static const struct eng_field buzz_fields[] = {
        { .name = "pattern", .type = ENG_T_ENUM, .min = 0, .max = 2, .choices = buzz_choices },
        { .name = "duration_ms", .type = ENG_T_INT, .min = 0, .max = INT32_MAX, .unit = "ms" },
};
static const struct eng_field lockout_fields[] = {
        { .name = "buttons", .type = ENG_T_BITS, .doc = "The buttons locked out; none unlocks." },
};

const struct eng_event_def eng_req_window_open = {
        .name = "window_open", .audience = ENG_VIEW_RUNTIME, .fields = window_fields, .n_fields = 2,
        .doc = "Open a first-press window at at_us for these seats.",
};
const struct eng_event_def eng_req_window_close = {
        .name = "window_close", .audience = ENG_VIEW_RUNTIME, .fields = window_fields, .n_fields = 1,
        .doc = "That window is over.",
};
const struct eng_event_def eng_req_pad_light = {
        .name = "pad_light", .audience = ENG_VIEW_RUNTIME, .fields = light_fields,
        .n_fields = ELEMENTSOF(light_fields), .doc = "LIGHT a button of the seat's pad.",
};
const struct eng_event_def eng_req_pad_buzz = {
        .name = "pad_buzz", .audience = ENG_VIEW_RUNTIME, .fields = buzz_fields,
        .n_fields = ELEMENTSOF(buzz_fields), .doc = "BUZZ the seat's pad.",
};
const struct eng_event_def eng_req_pad_lockout = {
        .name = "pad_lockout", .audience = ENG_VIEW_RUNTIME, .fields = lockout_fields,
        .n_fields = ELEMENTSOF(lockout_fields), .doc = "Show the seat's pad which buttons are locked out.",
};

const struct eng_event_def *const eng_requests[] = {
        &eng_req_window_open, &eng_req_window_close, &eng_req_pad_light, &eng_req_pad_buzz,
        &eng_req_pad_lockout, NULL,
};

const struct eng_event_def *eng_event_find(const struct eng_game *g, const char *name) {
        if (!name)
                return NULL;
        for (size_t i = 0; eng_framework_events[i]; i++)
                if (strcmp(eng_framework_events[i]->name, name) == 0)
                        return eng_framework_events[i];
        for (size_t i = 0; g && i < g->n_events; i++)
                if (strcmp(g->events[i]->name, name) == 0)
                        return g->events[i];
        return NULL;
}

/* ---- Calls. */

const char *eng_call_name(const struct eng_game *g, int64_t call) {
        if (!g || call < 0 || (uint64_t) call >= g->n_calls)
                return NULL;
        return g->calls[call];
}

/* Case, blanks and punctuation do not count: "row-1" is "row 1",
 * "doesnt_fit" is "doesn't fit". */
static bool same_call_name(const char *a, const char *b) {
        for (;;) {
                while (*a && !isalnum((unsigned char) *a))
                        a++;
                while (*b && !isalnum((unsigned char) *b))
                        b++;
                if (!*a || !*b)
                        return !*a && !*b;
                if (tolower((unsigned char) *a++) != tolower((unsigned char) *b++))
                        return false;
        }
}

int eng_call_by_name(const struct eng_game *g, const char *name, int *ret_call) {
        if (!g || !name)
                return -EINVAL;
        for (size_t call = 0; call < g->n_calls; call++)
                if (g->calls[call] && same_call_name(g->calls[call], name)) {
                        *ret_call = (int) call;
                        return 0;
                }
        return -ENOENT;
}

/* ---- Card handles: a four-round Feistel network on 32 bits (Luby and
 * Rackoff: four rounds of a keyed round function make a permutation that
 * cannot be told from a random one without the key).  The round function
 * is splitmix64's finaliser of the half and the round key. */

#define HANDLE_ROUNDS           4
/* splitmix64's increment, used to spread the seed into round keys, and a
 * constant that keeps the handle key apart from the deck's shuffle. */
#define HANDLE_KEY_SALT         UINT64_C(0x68616e646c65732e)   /* "handles." */

uint64_t eng_handle_key(uint64_t seed) {
        uint64_t s = seed ^ HANDLE_KEY_SALT;

        return eng_splitmix64(&s);
}

static uint16_t handle_round(uint64_t key, unsigned round, uint16_t half) {
        uint64_t x = key + (uint64_t) round * UINT64_C(0x9e3779b97f4a7c15) + half;

        return (uint16_t) (eng_splitmix64(&x) >> 48);
}

uint32_t eng_handle(uint64_t key, uint32_t card) {
        uint16_t l = (uint16_t) (card >> 16), r = (uint16_t) card;

        for (unsigned i = 0; i < HANDLE_ROUNDS; i++) {
                uint16_t t = r;

                r = l ^ handle_round(key, i, r);
                l = t;
        }
        return ((uint32_t) l << 16) | r;
}

uint32_t eng_handle_card(uint64_t key, uint32_t handle) {
        uint16_t l = (uint16_t) (handle >> 16), r = (uint16_t) handle;

        for (unsigned i = HANDLE_ROUNDS; i-- > 0;) {
                uint16_t t = l;

                l = r ^ handle_round(key, i, l);
                r = t;
        }
        return ((uint32_t) l << 16) | r;
}

/* ---- Outputs and results. */

void eng_out_reset(struct eng_out *out, int64_t wake_us) {
        out->refusal = ENG_ACCEPTED;
        out->refusal_field = NULL;
        out->refusal_why = NULL;
        out->wake_us = wake_us;
        out->n = 0;
}

bool eng_time_ok(int64_t t) {
        return t >= -ENG_TIME_LIMIT_US && t <= ENG_TIME_LIMIT_US;
}

enum eng_refusal eng_input_order(const struct eng_input *in, bool any, uint64_t last_seq, int64_t last_us) {
        if (any && in->seq <= last_seq)
                return ENG_REFUSED_SEQ;
        if (!eng_time_ok(in->time_us))
                return ENG_REFUSED_INVALID;
        if (any && in->time_us < last_us)
                return ENG_REFUSED_TIME;
        return ENG_ACCEPTED;
}

enum eng_refusal eng_refuse(struct eng_out *out, enum eng_refusal refusal, const char *field, const char *why) {
        out->refusal_field = field;
        out->refusal_why = why;
        return refusal;
}

struct eng_output *eng_out_push(struct eng_out *out, const struct eng_event_def *def, int seat, int64_t at_us) {
        struct eng_output *o;

        if (out->n >= ENG_MAX_OUTPUTS)
                return NULL;
        o = &out->v[out->n++];
        memset(o, 0, sizeof *o);
        o->def = def;
        o->seat = seat;
        o->at_us = at_us;
        return o;
}

/* Insertion sort: at most ENG_MAX_SEATS seats, and stable, so equal seats
 * stay in seat order as eng_result.order promises. */
void eng_result_rank(struct eng_result *ret, const uint64_t key[ENG_MAX_SEATS]) {
        unsigned n = ret->n_seats;

        for (unsigned i = 0; i < n; i++) {
                unsigned j = i;

                while (j > 0 && key[ret->order[j - 1]] > key[i]) {
                        ret->order[j] = ret->order[j - 1];
                        j--;
                }
                ret->order[j] = (int) i;
        }
        for (unsigned i = 0; i < n; i++) {
                unsigned better = 0;

                for (unsigned j = 0; j < n; j++)
                        if (key[j] < key[i])
                                better++;
                ret->place[i] = better + 1;
        }
        for (unsigned i = n; i < ENG_MAX_SEATS; i++) {
                ret->order[i] = ENG_SEAT_TABLE;
                ret->place[i] = 0;
        }
}

void eng_result_sum(struct eng_result *ret, size_t n_terms) {
        for (unsigned s = 0; s < ret->n_seats && s < ENG_MAX_SEATS; s++) {
                ret->score[s] = 0;
                for (size_t t = 0; t < n_terms && t < ENG_MAX_TERMS; t++)
                        ret->score[s] += ret->terms[s][t];
        }
}

/* ---- Names. */

#define NAME(table, i) \
        (((size_t) (i) < ELEMENTSOF(table) && (table)[i]) ? (table)[i] : "unknown")

const char *eng_input_kind_name(enum eng_input_kind kind) {
        if ((unsigned) kind < ENG_IN_KINDS_END && eng_builtin_inputs[kind])
                return eng_builtin_inputs[kind]->name;
        return kind == ENG_IN_ACTION ? "action" : "unknown";
}

const char *eng_refusal_name(enum eng_refusal refusal) {
        static const char *const names[] = {
                [ENG_ACCEPTED] = "accepted",
                [ENG_REFUSED_SEQ] = "seq not after the last input",
                [ENG_REFUSED_TIME] = "time before the last input",
                [ENG_REFUSED_INVALID] = "invalid",
                [ENG_REFUSED_STATE] = "not possible now",
                [ENG_REFUSED_TOO_LATE] = "too late",
                [ENG_REFUSED_NOT_ALLOWED] = "not allowed",
                [ENG_REFUSED_NOT_DUE] = "timer not due",
                [ENG_REFUSED_FINISHED] = "match finished",
                [ENG_REFUSED_UNSUPPORTED] = "not used by this game",
        };
        return NAME(names, refusal);
}

const char *eng_status_name(enum eng_status status) {
        static const char *const names[] = {
                [ENG_STATUS_READY] = "ready",
                [ENG_STATUS_RUNNING] = "running",
                [ENG_STATUS_PAUSED] = "paused",
                [ENG_STATUS_FINISHED] = "finished",
        };
        return NAME(names, status);
}

const char *eng_audience_name(enum eng_audience a) {
        static const char *const names[] = {
                [ENG_VIEW_PUBLIC] = "public",
                [ENG_VIEW_SEAT] = "seat",
                [ENG_VIEW_REFEREE] = "referee",
                [ENG_VIEW_RUNTIME] = "runtime",
        };
        return NAME(names, a);
}

const char *eng_type_name(enum eng_type t) {
        static const char *const names[] = {
                [ENG_T_INT] = "int", [ENG_T_BOOL] = "bool", [ENG_T_ENUM] = "enum",
                [ENG_T_SEAT] = "seat", [ENG_T_SEATS] = "seats", [ENG_T_BITS] = "bits",
                [ENG_T_TIME] = "time", [ENG_T_CALL] = "call", [ENG_T_SEQ] = "seq",
                [ENG_T_HANDLE] = "handle", [ENG_T_CARD] = "card", [ENG_T_PLACES] = "places",
                [ENG_T_RECORDS] = "records", [ENG_T_OBJECT] = "object",
        };
        return NAME(names, t);
}
