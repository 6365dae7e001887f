/* engine/judge.h — the first-press judge: who pressed first, fairly.
 *
 * Pure (docs/architecture.md, "Pure layers"): libc only, no clock reads, no
 * I/O, no allocation.  Time is passed in: every press carries its host time
 * and the caller says what "now" is.  docs/judge.md states every rule
 * exactly; this header is the contract.
 *
 * The judge sees presses that hardware/ has already mapped to host
 * CLOCK_MONOTONIC microseconds, each with an error bound.  A game opens a
 * window when the thing to react to appears (Crash Pilot: the card is
 * revealed), and the judge answers with the one press that was first or the
 * exact set of presses that were tied.  Ties are what the rulebook says they
 * are; the judge never breaks one by seat number or by arrival order.
 *
 * Window states; these are the only transitions (judge_open on an OPEN
 * window is -EBUSY):
 *
 *     NONE ----judge_open----> OPEN ----judge_poll decides----> DECIDED
 *      ^  <----judge_close----  |  <--------judge_open--------     |
 *      +-----------------------------------judge_close-------------+
 *
 * In NONE a press is refused as "no window", in DECIDED as "too late".
 *
 * Order independence.  The judge keeps the presses of the open window and
 * replays them in received_us order whenever it is polled.  The decision is
 * the one a judge would reach that saw each press at the instant it was
 * received and checked continuously: it depends on the set of presses and
 * their received_us only, not on the order of judge_press() calls nor on how
 * late judge_poll() is called, provided the caller keeps one rule:
 *
 *     every press with received_us <= now is given to judge_press() before
 *     judge_poll(now) is called.
 *
 * A press given after the decision in breach of that rule is refused as too
 * late.  The one other exception is a window in which the judge must keep
 * more than JUDGE_MAX_PRESSES presses: the excess is refused (JUDGE_FULL).
 *
 * Memory across windows: per seat, the time of its latest press that did not
 * count (false starts before the next window are found from it) and the end
 * of its cooldown.  judge_init() forgets both.
 *
 * Prefix judge_, not the engine framework's eng_ (docs/architecture.md,
 * "Naming and house style"): the judge is a module of its own that the
 * runtime calls directly, named after itself like frame_ and loop_.
 *
 * Ownership: struct judge is plain data owned by the caller, about 3.3 KB
 * (embed it or declare it static; there is nothing to free).  The judge copies the config
 * and every press it is given and keeps no pointer to caller memory.  A
 * struct judge_result is filled by copy and stays valid for as long as the
 * caller keeps it.  Fields of struct judge are private to judge.c.
 */
#ifndef ARBITER_ENGINE_JUDGE_H
#define ARBITER_ENGINE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Crash Pilot seats 2–5 players; 8 leaves room for the other games and for
 * a referee keypad without making the fixed arrays large. */
#define JUDGE_MAX_SEATS         8
#define JUDGE_ALL_SEATS         ((uint32_t) ((1u << JUDGE_MAX_SEATS) - 1))

/* Presses the judge keeps per window: the countable ones, false starts that
 * arrive while the window is open, and (cooldown_extends) presses refused
 * for cooldown.  Locked-out and not-allowed presses are not kept, and a
 * window decides within settle_us of its first countable press, so a window
 * holds a handful; 8 per seat is far beyond human mashing (15–20 presses a
 * second) over a settle window of a few milliseconds. */
#define JUDGE_MAX_PRESSES       (8 * JUDGE_MAX_SEATS)

/* "No such time": the wake-up time of a window that has no countable press
 * yet, and the internal marker for "never". */
#define JUDGE_NEVER             INT64_MAX

/* Accepted ranges, so that sums of a time and a few durations cannot
 * overflow int64_t.  2^60 µs is 36,000 years of CLOCK_MONOTONIC. */
#define JUDGE_TIME_LIMIT_US         (INT64_C(1) << 60)
/* An error bound wider than a minute means the pad has no usable time. */
#define JUDGE_MAX_UNCERTAINTY_US    (INT64_C(60) * 1000000)
/* Any configured duration: ten minutes is longer than any reveal lasts. */
#define JUDGE_MAX_DURATION_US       (INT64_C(600) * 1000000)

/* Defaults; docs/judge.md gives the full reasoning.
 *
 * settle: a press frame is 16 bytes on the wire (docs/protocol.md: 12
 * bytes, COBS and its delimiter), 1.39 ms at 115200 baud (the slowest
 * speed the protocol allows); a USB serial adapter in low-latency mode
 * hands it over within a 1 ms USB polling interval, and a press that ties
 * the earliest may itself come up to one tie window later: 1389 + 1000 +
 * 100 = 2489 µs, within 2.5 ms.  Multi-drop lines queue frames: add one
 * frame time per further pad on the line (the pad bus widens the window
 * by itself, padbus_settle_us). */
#define JUDGE_DEFAULT_SETTLE_US         2500
/* tie window: the finest order the judge claims even when clocks report
 * tiny errors.  It must stay below the 200 µs that issue 3's bench requires
 * to be ordered; at 100 µs, presses 200 µs apart are ordered whenever the
 * two clocks' uncertainties sum to less than 200 µs, and it covers a pad
 * that samples its buttons at 10 kHz (up to 100 µs of stamping delay). */
#define JUDGE_DEFAULT_TIE_WINDOW_US     100
/* lockout: Jeopardy! locks out a contestant who rings in before the signal
 * lights for a quarter of a second (as the show's official site,
 * jeopardy.com, describes its signalling device). */
#define JUDGE_DEFAULT_LOCKOUT_US        250000
/* cooldown: a deliberate second press needs at least a human reaction time
 * (~200–250 ms); a press sooner than that after the counted one is mashing
 * or bounce.  Same value as the lockout, for a different reason. */
#define JUDGE_DEFAULT_COOLDOWN_US       250000

struct judge_config {
        int64_t settle_us;              /* wait after the first sure press before deciding */
        int64_t tie_window_us;          /* presses this close (or closer) may be tied */
        int64_t lockout_us;             /* a false start locks its seat out this long */
        int64_t cooldown_us;            /* after a counted press, presses this soon are mashing */
        bool lockout_whole_window;      /* a false start whose lockout is still running
                                         * when the window opens locks the seat out of the
                                         * whole window (default false: timed, like Jeopardy) */
        bool cooldown_extends;          /* a press refused for cooldown restarts the cooldown
                                         * from its own time (default false) */
        bool accept_receive_time;       /* count presses from pads without a clock, stamped
                                         * with their receive time (default true) */
};

/* A press, already in host time.  hardware/ fills time_us and
 * uncertainty_us from its clock model; for a pad without a clock it sets
 * time_us to the receive time, widens uncertainty_us to the transport's
 * jitter and sets receive_time. */
struct judge_press {
        uint64_t id;                    /* the caller's reference (input seq, pad event):
                                         * carried through, never interpreted */
        int64_t time_us;                /* when the button closed, host CLOCK_MONOTONIC µs */
        int64_t uncertainty_us;         /* >= 0: the true time is within ± this */
        int64_t received_us;            /* when the press reached the daemon, host µs */
        uint8_t seat;                   /* 0..JUDGE_MAX_SEATS-1 */
        uint8_t button;                 /* the game's meaning; the judge only orders by it
                                         * when one seat presses twice in the same µs */
        bool receive_time;              /* time_us is a receive-time fallback */
};

/* What happened to a press.  judge_press() answers JUDGE_HELD or a refusal;
 * a decision gives every held press COUNTED or a refusal.  A refusal
 * returned by judge_press() is final: that press will never count. */
enum judge_reason {
        JUDGE_HELD = 0,                 /* kept; the decision says what it was */
        JUDGE_COUNTED,                  /* the seat's one counted press in the window */
        JUDGE_NO_WINDOW,                /* no window open and none just decided */
        JUDGE_TOO_LATE,                 /* received after the decision time */
        JUDGE_NOT_ALLOWED,              /* seat not in the window's allowed set */
        JUDGE_NO_CLOCK,                 /* receive-time press, and the config refuses them */
        JUDGE_FALSE_START,              /* pressed before the window opened */
        JUDGE_LOCKED_OUT,               /* pressed during the seat's false-start lockout */
        JUDGE_COOLDOWN,                 /* pressed within cooldown_us of the seat's counted press */
        JUDGE_ALREADY_PRESSED,          /* the seat has an earlier counted press in this window */
        JUDGE_FULL,                     /* the judge had no room left to keep it */
};

enum judge_status {
        JUDGE_PENDING = 0,
        JUDGE_DECIDED = 1,
};

enum judge_outcome {
        JUDGE_WINNER = 1,               /* exactly one press was first */
        JUDGE_TIE = 2,                  /* two or more presses may each have been first */
};

struct judge_verdict {
        struct judge_press press;
        enum judge_reason reason;
};

struct judge_result {
        enum judge_outcome outcome;
        int64_t open_us;                /* the window's opening time */
        uint32_t allowed_seats;
        int64_t decided_us;             /* the decision time D (docs/judge.md) */
        int64_t earliest_us;            /* the earliest counted press time */
        int64_t settle_us;              /* the config in force, for the match record */
        int64_t tie_window_us;
        bool receive_time_fallback;     /* a counted press carried a receive-time stamp */
        /* The winner (n_first == 1) or the tied presses (n_first >= 2), listed
         * in seat order: a listing, never a ranking. */
        size_t n_first;
        struct judge_press first[JUDGE_MAX_SEATS];
        /* Every seat's counted press, first or not, in seat order. */
        size_t n_counted;
        struct judge_press counted[JUDGE_MAX_SEATS];
        /* Every press judge_press() answered JUDGE_HELD that did not count,
         * with the reason, in press-time order.  Each held press appears
         * exactly once, in counted[] or here. */
        size_t n_refused;
        struct judge_verdict refused[JUDGE_MAX_PRESSES];
};

/* For the match record: why the decision came out as it did. */
struct judge_margin {
        struct judge_press press;       /* a counted press */
        int64_t margin_us;              /* time_us - earliest_us, >= 0 */
        int64_t threshold_us;           /* max(tie window, u_earliest + u_press) */
        bool first;                     /* in the winner/tie set */
        /* For a press not first: a witness that definitely pressed before it
         * (index into margins[]), the gap between the two and the threshold
         * the gap exceeded.  -1 / 0 / 0 for a first press. */
        int beaten_by;
        int64_t beaten_gap_us;
        int64_t beaten_threshold_us;
};

struct judge_explanation {
        int64_t earliest_us;
        int64_t earliest_uncertainty_us; /* smallest uncertainty among presses at earliest_us */
        int64_t tie_window_us;
        int64_t settle_us;
        int64_t decided_us;
        bool receive_time_fallback;
        size_t n;
        struct judge_margin margins[JUDGE_MAX_SEATS];   /* counted presses, seat order */
};

enum judge_window {
        JUDGE_WINDOW_NONE = 0,
        JUDGE_WINDOW_OPEN,
        JUDGE_WINDOW_DECIDED,
};

/* Private to judge.c. */
struct judge_entry {
        struct judge_press press;
        enum judge_reason answer;       /* what judge_press() said: HELD, FALSE_START, COOLDOWN */
};

struct judge_seat {
        int64_t uncounted_max_us;       /* latest press time that did not count, or INT64_MIN */
        int64_t cooldown_end_us;        /* presses before this are refused for cooldown */
        int64_t lock_end_us;            /* this window: lockout carried in from before open_us */
};

struct judge {
        struct judge_config cfg;
        enum judge_window window;
        int64_t open_us;
        uint32_t allowed_seats;
        size_t n;                       /* entries[0..n) belong to the open window */
        struct judge_entry entries[JUDGE_MAX_PRESSES];
        struct judge_seat seats[JUDGE_MAX_SEATS];
};

/* The defaults above. */
void judge_config_init(struct judge_config *ret);
/* 0, or -EINVAL for a duration out of [0, JUDGE_MAX_DURATION_US] or a
 * settle window shorter than the tie window. */
int judge_config_check(const struct judge_config *cfg);

/* Resets everything, including the memory across windows.  cfg NULL means
 * the defaults.  0 or -EINVAL (judge_config_check). */
int judge_init(struct judge *j, const struct judge_config *cfg);

/* Opens a window at open_us (the reveal, host µs) for the seats in
 * allowed_seats (bit i: seat i; JUDGE_ALL_SEATS, or the tied seats for a
 * tiebreaker).  -EBUSY if a window is open, -EINVAL for an empty mask, a bit
 * beyond JUDGE_MAX_SEATS or a time out of range. */
int judge_open(struct judge *j, int64_t open_us, uint32_t allowed_seats);

/* Abandons the open window without a decision (a reveal nobody answered),
 * or forgets a decided one; its presses count as presses that did not
 * count.  Always 0. */
int judge_close(struct judge *j);

/* Gives the judge one press.  0 with *ret_reason set (JUDGE_HELD or a final
 * refusal), or -EINVAL for a seat out of range, a negative or too large
 * uncertainty, or a time out of range (then *ret_reason is untouched).
 * A refused press is not lost: it still counts as a possible false start
 * for the next window. */
int judge_press(struct judge *j, const struct judge_press *p, enum judge_reason *ret_reason);

/* Asks for the decision at now_us; the caller has handed over every press
 * received at or before now_us.  JUDGE_PENDING with *ret_wake_us set to the
 * decision time (JUDGE_NEVER while no press can count), or JUDGE_DECIDED
 * with *ret_result filled and the window closed.  -ENOENT if no window is
 * open.  ret_wake_us may be NULL; ret_result may not. */
int judge_poll(struct judge *j, int64_t now_us, int64_t *ret_wake_us, struct judge_result *ret_result);

/* Fills *ret with the margins behind a decision.  0, or -EINVAL for a
 * result with no counted press. */
int judge_explain(const struct judge_result *r, struct judge_explanation *ret);

/* "counted", "too late", ... for logs; "unknown" for anything else. */
const char *judge_reason_name(enum judge_reason reason);

#endif
