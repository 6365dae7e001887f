/* match/match.h — the match runtime: live matches, their clocks and
 * timers, and the write-then-publish path of every input (DESIGN.md
 * section 5).  Its REST side is api/matches.c and api/match_inputs.c, its
 * D-Bus objects bus/matches.c, its SQL store/matches.c; it tells the first
 * two what happens through observers (struct match_observer), so that it
 * depends on neither.
 *
 * A match's lifecycle (the matches.state column; "needs referee" is a flag
 * beside it, set when a replay disagrees with what was stored):
 *
 *                 start            pause
 *     ready ─────────────> running ─────> paused
 *       │                   │  ^ resume     │
 *       │                   │  └────────────┘
 *       │                   │ the engine says so (a winner)
 *       │                   v
 *       │                finished
 *       │
 *       └──── abort (from ready, running or paused) ────> aborted
 *
 * start, pause, resume and the finish are engine inputs and outputs; abort
 * is the runtime's own (the engine has no notion of it) and is a row update,
 * not an input.  finished and aborted are final: the match leaves the
 * engine's hands, its seed is revealed, and it takes no more inputs.
 *
 * The match clock.  Engine times are match time in µs: 0 when the match was
 * created, advancing with CLOCK_MONOTONIC while this daemon runs it:
 *
 *     match time = now_usec() + clock_offset_us
 *
 * CLOCK_MONOTONIC restarts with the machine, so a stored time means nothing
 * to the next boot.  On start-up the runtime sets clock_offset_us so that
 * match time continues from the time of the last stored input: the time the
 * daemon was down (and the moments between the last input and the crash)
 * are not counted, so a pending reveal timer keeps the remainder it had at
 * that input.  Input times therefore never decrease across restarts, as the
 * engine requires.  Pad press times (host µs, next session) convert with the
 * same offset.
 *
 * Write, then publish.  An input is numbered (last seq + 1), stamped with
 * match time, and applied to a copy of the state; the copy becomes the state
 * once its INSERT is queued (the store sends queries in order, so one
 * match's inputs are written in seq order).  Only when the INSERT completes
 * are its outputs published (SSE topic "match/<id>") and the request that
 * caused it answered.  If the write fails the match is marked stale: it
 * takes no more inputs and is rebuilt from what the database holds when the
 * store is READY again.
 *
 * The spool (store/spool.h).  While the database is not READY, and while
 * the spool holds any record, an input's row (exactly the parameters of its
 * INSERT, match_store_input_to_record) is appended to the spool instead and
 * fsync'd; that makes it durable, so it is published and answered at once
 * (done is called before match_submit returns).  Invariant: no input is
 * written to the database directly while the spool holds records, so every
 * match's inputs reach the database in seq order.  When the store becomes
 * READY the spool is flushed first — record by record, in order, with the
 * same idempotent INSERT, each consumed once its INSERT completes — and only
 * then are unfinished matches rebuilt, so that the replay sees every input.
 * A flush cut by a lost connection resumes at the next READY.  A spool that
 * fails (append, fsync, read back, consume) is fatal: the matches_fatal_fn
 * is called once and every later input that would need the spool is
 * refused (-EIO).  An abort (a row update) is refused while the spool holds
 * records: flushing them would set the row's state back.  Without a spool
 * (matches_set_spool not called) inputs are refused (-ENOTCONN, HTTP 503)
 * while the database is unreachable.
 *
 * Replay check.  After the store becomes READY every unfinished match is
 * rebuilt: create from seed + config + seats, then each stored input in seq
 * order.  Each input's refusal and state hash must equal what was stored
 * with it; on the first difference the match gets needs_referee (the
 * reason), a warning is logged, and it is not run.
 *
 * Pads.  A match's seats carry the pad their table bound to them when the
 * match was created (the stored seats JSON, read back on creation and on
 * start-up); later changes to the table do not move a match's pads.  Each
 * live match has a first-press judge (engine/judge.h) that follows the
 * engine's window requests: ENG_REQ_WINDOW_OPEN opens it at the window's
 * open time in host time (match time − clock_offset_us) for the allowed
 * seats, ENG_REQ_WINDOW_CLOSE closes it.  A press goes to the running (or
 * paused) match that has its pad at a seat; the judge's decision becomes an
 * ENG_IN_CALL or ENG_IN_TIE that takes the same write-then-publish path as
 * a referee's input.  The judge is fed from the driver's "received"
 * callback, as soon as a press is decoded, not from the ordered stream that
 * the driver delays by its settle window: the judge orders presses by time
 * itself, and since every press received by now has been handed over, it
 * is polled at the real "now" (docs/judge.md, "The caller's one rule") on
 * every press and at the wake-up it names.  Its own settle window (the
 * driver's effective one, padbus_effective_settle_us) is then the only
 * wait: a decision comes one settle window after the first press.  Pad
 * feedback requests are sent once the input that made them is stored,
 * alongside its events.
 *
 * ACKs.  A pad's press is ACKed once what it made is durable (DESIGN.md
 * section 5): a press the judge holds is ACKed when the input of its
 * window's decision is stored or spooled (the losing presses of a window
 * with it: the decision rests on them), and forgotten un-ACKed when that
 * input is lost, so that the pad's retransmission comes again.  A press
 * that makes no input (no match, not a call, refused by the judge, or its
 * window closed undecided) is ACKed at once.
 *
 * Buttons.  A seat's button map (the table's, copied into the match's
 * seats when it is created) says which call each button makes; a seat
 * without one uses the game's (eng_game.call_of_button).  A mapped name
 * that is no call of this game makes that button no call.
 *
 * Ownership: the registry owns its matches; a match stays allocated while
 * writes for it are in flight.
 */
#ifndef ARBITER_MATCH_MATCH_H
#define ARBITER_MATCH_MATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "engine/engine.h"
#include "engine/judge.h"

struct event;
struct loop;
struct pad;
struct pad_press;
struct padbus;
struct spool;
struct store;
struct matches;

/* "match/" and a 64-bit id. */
#define MATCH_TOPIC_MAX         32
/* match_inputs.who, as api_request.token_name. */
#define MATCH_WHO_MAX           64
/* A reason for needs_referee. */
#define MATCH_REASON_MAX        256
/* A pad id (hardware/padbus.h PAD_ID_LEN hex digits) and its NUL. */
#define MATCH_PAD_ID_MAX        17
/* A player's name (api/tokens.c NAME_MAX_BYTES) and its NUL. */
#define MATCH_NAME_MAX          65
/* Buttons a pad can have (hardware/protocol.h PROTO_MAX_BUTTONS). */
#define MATCH_BUTTONS           16

/* A press whose ACK waits for the input it made (see "ACKs"). */
struct match_held {
        const struct pad *pad;
        uint16_t event_no;
};

enum match_source {
        MATCH_SOURCE_REFEREE,
        MATCH_SOURCE_OPERATOR,
        MATCH_SOURCE_TIMER,
        MATCH_SOURCE_PAD,
};

struct match {
        struct matches *reg;
        struct match *next;
        int64_t id;                     /* 0 until its row is stored */
        const struct eng_game *game;
        struct eng_config cfg;
        uint64_t seed;
        unsigned n_seats;
        void *state;                    /* game->state_size bytes */
        void *scratch;                  /* where an input is tried first */
        uint64_t last_seq;
        int64_t last_us;                /* match time of the newest input */
        int64_t clock_offset_us;        /* match time − now_usec() */
        bool window_open;
        uint32_t window;                /* the open (or last) window id */
        int64_t window_open_us;         /* its open time, match time */
        uint32_t window_seats;          /* the seats it allows */
        char pads[ENG_MAX_SEATS][MATCH_PAD_ID_MAX];     /* per seat; "" for none */
        char names[ENG_MAX_SEATS][MATCH_NAME_MAX];      /* per seat, for D-Bus */
        bool mapped[ENG_MAX_SEATS];                     /* the seat has a button map */
        int8_t calls[ENG_MAX_SEATS][MATCH_BUTTONS];     /* its map: button → call, -1 none */
        struct judge judge;
        bool judging;                   /* the judge has a window for judge_window */
        uint32_t judge_window;
        struct event *judge_timer;      /* the judge's wake-up */
        uint64_t ignored_presses;       /* from its pads, that made no input */
        struct match_held *held;        /* presses of the judge's window whose ACK waits */
        size_t n_held;                  /* (JUDGE_MAX_PRESSES of room) */
        bool aborted;
        bool stale;                     /* a write failed; rebuilt on the next READY */
        bool released;                  /* freed when pending drops to 0 */
        unsigned pending;               /* input writes in flight */
        struct event *timer;            /* the engine's wake-up */
};

/* Called once the input is stored (r 0) or could not be (r -EIO, error
 * says why); out is what the engine answered. */
typedef void (*match_done_fn)(void *userdata, struct match *m, int r, const struct eng_input *in,
                              const struct eng_out *out, const char *error);
/* Called once a match created by matches_create is stored: m and the stored
 * row as JSON (borrowed), or NULL with the database's error. */
typedef void (*match_created_fn)(void *userdata, struct match *m, json_t *stored, const char *error);

int matches_new(struct loop *loop, struct store *store, struct matches **ret);
void matches_free(struct matches *reg);        /* accepts NULL */

/* Inputs go to spool (borrowed; open, and outliving reg) while the
 * database is away (see "The spool").  fatal is called once, after the
 * error is logged, when the spool fails: the caller stops the daemon. */
typedef void (*matches_fatal_fn)(void *userdata);
void matches_set_spool(struct matches *reg, struct spool *spool, matches_fatal_fn fatal, void *userdata);

/* Pad feedback goes to pads, and the judge's settle window is the
 * driver's (padbus_effective_settle_us).  Without it presses are not
 * judged and no feedback is sent. */
void matches_set_pads(struct matches *reg, struct padbus *pads);

/* Who hears of the live matches (the SSE hub's publisher in api/, the
 * D-Bus objects in bus/), so that match/ depends on neither.  Each callback
 * may be NULL.  added: a match became live (created or rebuilt); removed:
 * it is about to leave the registry (still findable); aborted: its row is
 * now aborted; published: an input is durable, with what the engine
 * answered (refused inputs too: out->refusal says so). */
struct match_observer {
        void (*added)(void *userdata, struct match *m);
        void (*removed)(void *userdata, struct match *m);
        void (*aborted)(void *userdata, struct match *m);
        void (*published)(void *userdata, struct match *m, const struct eng_input *in,
                          const struct eng_out *out);
        void *userdata;
};
/* Observers a registry keeps: the SSE publisher and D-Bus, with room. */
#define MATCH_MAX_OBSERVERS     4

/* Adds an observer (copied).  0, or -ENOSPC. */
int matches_observe(struct matches *reg, const struct match_observer *obs);

/* Writes up to cap live match ids to ids, in registry order, and returns
 * how many there are in all (may exceed cap: ask again with more room). */
size_t matches_ids(const struct matches *reg, int64_t *ids, size_t cap);

/* A press from the pad bus as soon as it is received (padbus_events.received,
 * before the driver's settle window): judged for the running match that has
 * its pad at a seat, or counted as unassigned. */
/* padbus events.received: true when the match holds the press's ACK
 * (see "ACKs"). */
bool matches_pad_received(struct matches *reg, const struct pad_press *press);
/* Presses from pads at no seat of a running match, since start-up. */
uint64_t matches_unassigned_presses(const struct matches *reg);

/* The store became READY: drops stale matches, flushes the spool, then
 * rebuilds every unfinished match that is not live (see "Replay check"). */
void matches_store_ready(struct matches *reg);
/* Unfinished matches are being rebuilt: an unknown id may be one of them. */
bool matches_loading(const struct matches *reg);
struct store *matches_store(const struct matches *reg);

/* The live match with this id (stale ones too), or NULL. */
struct match *matches_find(struct matches *reg, int64_t id);

/* Creates a match from a validated config and stores it; seats is the
 * list [{seat, name}] (borrowed), table_id 0 for none.  0 (cb follows), or
 * -ENOTCONN, -ENOMEM, -EINVAL. */
int matches_create(struct matches *reg, const struct eng_game *g, const struct eng_config *cfg,
                   unsigned n_seats, uint64_t seed, json_t *seats, int64_t table_id, const char *who,
                   match_created_fn cb, void *userdata);

/* The match clock (see above). */
int64_t match_now(const struct match *m);

/* Applies in (kind, seat and payload set; seq and time_us are filled) and
 * stores (or spools) it.  0 (done follows, or has been called already when
 * the input was spooled; may be NULL), -ENOTCONN (database unreachable and
 * no spool, or the match stale), -ESHUTDOWN (aborted), -EPROTO (the engine
 * broke an invariant; the match is handed to a referee), -EIO (the spool
 * failed), -ENOMEM. */
int match_submit(struct match *m, struct eng_input *in, enum match_source source, const char *who,
                 match_done_fn done, void *userdata);

/* Ends an unfinished match as aborted.  0 (done follows with r and the
 * database's error), -EALREADY (finished or aborted), -ENOTCONN, -ENOMEM. */
typedef void (*match_aborted_fn)(void *userdata, struct match *m, const char *error);
int match_abort(struct match *m, const char *who, match_aborted_fn done, void *userdata);

/* "ready", "running", "paused", "finished" or "aborted". */
const char *match_state_name(const struct match *m);

/* The pure part of the replay check: compares what a replayed input gave
 * with what was stored.  0, or -EBADMSG with a reason in why. */
int match_replay_compare(uint64_t seq, enum eng_refusal replayed, const char *stored_refusal,
                         uint64_t replayed_hash, const char *stored_hash, char *why, size_t len);

/* The hash as stored: 16 lowercase hex digits. */
void match_hash_format(char buf[static 17], uint64_t hash);

#endif
