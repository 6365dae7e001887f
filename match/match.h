/* match/match.h — the match runtime: live matches, their clocks and
 * timers, and the write-then-publish path of every input (docs/architecture.md).  Its REST side is api/matches.c and api/match_inputs.c, its
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
 *       │                finished  <───── confirm ───── provisional
 *       │                   ^                               │ ^
 *       │                   └── (confirm: "auto") ──────────┘ │ the engine
 *       │                                                     │ finishes,
 *       │                              void (undo) ───────────┘ confirm:
 *       │                                                        "referee"
 *       └──── abort (from ready, running, paused, provisional) ────> aborted
 *
 * start, pause, resume, the finish, a void and a confirm are inputs and
 * their outputs (engine/log.h holds the rules of the last two); abort is
 * the runtime's own (the engine has no notion of it) and is a row update,
 * not an input.  A match whose result waits for a referee (its confirm
 * setting) is provisional once the engine finishes: still live, rebuilt on
 * restart, seed hidden, undo possible, until a confirm input (a referee's,
 * or the runtime's at the confirm timeout) makes it finished.  finished
 * and aborted are final: the match leaves the engine's hands, its seed is
 * revealed, and it takes no more inputs.
 *
 * The log.  A live match keeps its whole input log in memory (struct
 * eng_record: the input, what it got, what voided it), as stored: a void
 * rebuilds the state from it (eng_log_apply), and a reply to a void lists
 * the inputs it voided for re-entry.
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
 * once its write is queued.  Only when the INSERT completes are its outputs
 * published (SSE topic "match/<id>") and the request that caused it
 * answered.  If the write fails (the connection went under it, or the
 * statement was cancelled) the input goes to the spool like any other, and
 * the match goes on; only without a spool (or with a failed one) is the
 * match marked stale: it takes no more inputs and is rebuilt from what the
 * database holds when the store is READY again.
 *
 * One input of a match at a time on the lane.  The lane pipelines
 * (store/store.h, "Pipeline mode"): the inputs of several matches share
 * round trips, each its own transaction, so a later query may commit
 * although an earlier one failed.  A match's inputs must not: input N+1
 * stored while N went to the spool would be published before N, and its
 * plain INSERT would leave the matches row at N's state (the flush of N
 * changes the row only while no newer input is stored).  So a match has at
 * most one INSERT queued or in flight on the lane (writing); an input
 * submitted meanwhile is held (held_writes, with its spool record), and
 * leaves only from the completion of the one before it: to the database
 * when that one was stored and nothing needs the spool, to the spool when
 * it was spooled (the spool then holds a record), or failed when the match
 * went stale.  Hence, invariant: each match's inputs reach the database,
 * directly or through the spool, in seq order, and are published in seq
 * order.  A burst of calls at different tables still shares round trips;
 * one match's inputs follow each other by a round trip, as before
 * pipelining.
 *
 * The spool (store/spool.h).  While the database is not READY, and while
 * the spool holds any record, an input's row (exactly the parameters of its
 * INSERT, match_store_input_to_record) is appended to the spool instead and
 * fsync'd by the spool's writer thread (store/spool_writer.h); that makes it
 * durable, so it is published and answered when the writer reports back,
 * as after an INSERT.  Invariant: no input is written to the database
 * directly while the spool file holds records, consumed or not, or a record
 * or a cut is on its way to it (spool_empty), so every match's inputs reach
 * the database in seq order.  When the store becomes
 * READY the spool is flushed first — record by record, in order, with the
 * same idempotent INSERT, each consumed once its INSERT completes — and only
 * then are unfinished matches rebuilt, so that the replay sees every input.
 * Once every record is in the database the file is cut to zero, through
 * the writer (an fsync too), and only then do inputs go to the database
 * directly.  (The one exception to the order: a write cancelled on a
 * connection that stays up is spooled while other matches' writes behind it
 * may be stored; see the registry's invariant in runtime.h.)  A flush cut
 * by a lost connection resumes at the next READY.
 * A spool that fails (append, fsync, read back, consume, cut) is fatal: the matches_fatal_fn
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
 * Pads.  A match's seats carry the pads their table bound to them when the
 * match was created, each with its role (a button pad, a slap pad), and the
 * table's own pads (a referee keypad); the stored seats JSON and
 * table_pads are read back on creation and on start-up, and later changes
 * to the table do not move a match's pads.  A press goes to the running,
 * paused or provisional match that has its pad; the game's routes
 * (eng_route_find) decide what it is:
 *   - a judged call: the first-press judge (engine/judge.h) follows the
 *     engine's window requests (window_open at the window's open time in
 *     host time, match time − clock_offset_us, for the allowed seats;
 *     window_close), and its decision becomes an ENG_IN_CALL or ENG_IN_TIE;
 *   - a timed press: the ordered stream (padbus "pressed", a settle window
 *     after the press, in press order) makes it an ENG_IN_PRESS with its
 *     time, uncertainty and receive time in match time;
 *   - a named input (a referee keypad's Start or Pause): that input, at
 *     once;
 *   - none: counted (unrouted_presses) and ACKed.
 * Each takes the same write-then-publish path as a referee's input.  The judge is fed from the driver's "received"
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
 * ACKs.  A pad's press is ACKed once what it made is durable: a press the
 * judge holds is ACKed when the input of its window's decision is stored
 * or spooled (the losing presses of a window with it: the decision rests
 * on them), a timed press or a named input when its own input is, and
 * either is forgotten un-ACKed when that input is lost, so that the pad's
 * retransmission comes again.  A press that makes no input (no match, no
 * route, refused by the judge, or its window closed undecided) is ACKed at
 * once; but while a pad's match may exist and is not run (the unfinished
 * matches not rebuilt yet, at start or after a reconnect, or its match
 * stale), its presses are forgotten un-ACKed, to come again.  An input
 * whose database write fails goes to the spool, and its presses are ACKed
 * once it is there (see "The spool").
 *
 * Buttons.  A seat's button map (the table's, copied into the match's
 * seats when it is created) says which call each button of its button pad
 * makes; a seat without one uses the game's routes.  A mapped name that is
 * no call of this game makes that button no call.
 *
 * Venues (docs/operations.md, "Several venues").  A daemon runs one
 * venue's matches: the registry's venue is its store's (store_get_venue(),
 * the venue whose lock the lane holds).  The start-up rebuild loads only
 * this venue's unfinished matches.  A match created here at a table of
 * another venue is stored at that venue and not run here (matches_create
 * hands back the stored row without a match); that venue's daemon adopts
 * it (matches_adopt(), when it hears of it, and its own start-up rebuild
 * in any case).
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
#include "engine/log.h"

struct event;
struct loop;
struct pad;
struct pad_press;
struct padbus;
struct spool;
struct spool_writer;
struct store;
struct matches;

/* "match/" and a 64-bit id, and a seat or referee scope after it. */
#define MATCH_TOPIC_MAX         48
/* match_inputs.who, as api_request.token_name. */
#define MATCH_WHO_MAX           64
/* A reason for needs_referee, or a referee's for a void. */
#define MATCH_REASON_MAX        256
/* A pad id (hardware/padbus.h PAD_ID_LEN hex digits) and its NUL. */
#define MATCH_PAD_ID_MAX        17
/* A player's name (api/tokens.c NAME_MAX_BYTES) and its NUL. */
#define MATCH_NAME_MAX          65
/* Buttons a pad can have (hardware/protocol.h PROTO_MAX_BUTTONS). */
#define MATCH_BUTTONS           16
/* Pads of one seat (a button pad and a slap pad, with room), and of the
 * table itself (a referee keypad, with room). */
#define MATCH_SEAT_PADS         4
#define MATCH_TABLE_PADS        4
/* The longest a provisional result may wait for the runtime to confirm
 * it: a day. */
#define MATCH_CONFIRM_TIMEOUT_MAX_S     86400
/* Timed presses waiting for the ordered stream, per match: a settle
 * window of presses from every pad of the table. */
#define MATCH_TIMED_MAX         64

/* A press whose ACK waits for the input it made (see "ACKs"). */
struct match_held {
        const struct pad *pad;
        uint16_t event_no;
        uint64_t received_no;           /* the driver's number: the judge's press id, and which
                                         * press the ordered stream brings */
        enum eng_pad_role role;         /* of the pad at its seat */
};

struct match_pad {
        char id[MATCH_PAD_ID_MAX];
        enum eng_pad_role role;
};

struct match_seat {
        char name[MATCH_NAME_MAX];
        struct match_pad pads[MATCH_SEAT_PADS];
        unsigned n_pads;
        bool mapped;                    /* the seat has a button map */
        int16_t calls[MATCH_BUTTONS];   /* its map: button → call, -1 none */
};

enum match_source {
        MATCH_SOURCE_REFEREE,
        MATCH_SOURCE_OPERATOR,
        MATCH_SOURCE_TIMER,
        MATCH_SOURCE_PAD,
        MATCH_SOURCE_SEAT,              /* a seat's own token (its station) */
};

struct match_write;

struct match {
        struct matches *reg;
        struct match *next;
        int64_t id;                     /* 0 until its row is stored */
        const struct eng_game *game;
        struct eng_config cfg;
        struct eng_data data;           /* custom data files (owned copies), NULL: built in */
        struct eng_setup setup;         /* game, &cfg, &data, n_seats, seed, confirm */
        uint64_t seed;
        unsigned n_seats;
        int64_t table_id;               /* the table it is played at; 0: none */
        int64_t confirm_timeout_us;     /* provisional: confirmed by the runtime after this; 0 never */
        void *state;                    /* game->state_size bytes */
        void *scratch;                  /* where an input is tried first */
        struct eng_record *log;         /* every stored input, in seq order */
        size_t n_log, log_cap;
        uint64_t last_seq;
        int64_t last_us;                /* match time of the newest input */
        int64_t clock_offset_us;        /* match time − now_usec() */
        bool window_open;
        uint32_t window;                /* the open (or last) window id */
        int64_t window_open_us;         /* its open time, match time */
        uint32_t window_seats;          /* the seats it allows */
        struct match_seat seats[ENG_MAX_SEATS];
        struct match_pad table_pads[MATCH_TABLE_PADS];
        unsigned n_table_pads;
        struct judge judge;
        bool judging;                   /* the judge has a window for judge_window */
        uint32_t judge_window;
        struct event *judge_timer;      /* the judge's wake-up */
        uint64_t ignored_presses;       /* from its pads, routed but making no input */
        uint64_t unrouted_presses;      /* from its pads, that no route takes */
        /* Inputs of its log the engine refused, by refusal (match_log_push
         * counts them, live or replayed): a resolution pressed after a
         * game's pause began, a call too late, … */
        uint64_t refused[ENG_REFUSED_UNSUPPORTED + 1];
        struct match_held *held;        /* presses of the judge's window whose ACK waits */
        size_t n_held;                  /* (JUDGE_MAX_PRESSES of room) */
        struct match_held *timed;       /* timed presses waiting for the ordered stream */
        size_t n_timed;                 /* (MATCH_TIMED_MAX of room) */
        bool aborted;
        bool stale;                     /* a write failed; rebuilt on the next READY */
        bool released;                  /* freed when pending drops to 0 */
        unsigned pending;               /* input writes in flight (held ones too) */
        /* One input at a time on the lane ("Write, then publish"): writing
         * while one is queued or in flight on the store; held, the inputs
         * submitted meanwhile, in seq order, each written once the one
         * before it is stored or handed to the spool. */
        bool writing;
        struct match_write *held_writes;
        struct event *timer;            /* the engine's wake-up, or the confirm timeout */
};

/* Called once the input is stored (r 0) or could not be (r -EIO, error
 * says why); out is what the engine answered.  An accepted void's voided
 * inputs are the records of m->log whose voided_by is in->seq. */
typedef void (*match_done_fn)(void *userdata, struct match *m, int r, const struct eng_input *in,
                              const struct eng_out *out, const char *error);
/* Called once a match created by matches_create is stored: m and the stored
 * row as JSON (borrowed); m NULL and the row when it was stored at another
 * venue (its table's), whose daemon runs it; or both NULL with the
 * database's error. */
typedef void (*match_created_fn)(void *userdata, struct match *m, json_t *stored, const char *error);

int matches_new(struct loop *loop, struct store *store, struct matches **ret);
void matches_free(struct matches *reg);        /* accepts NULL */

/* Inputs go to spool, through writer (both borrowed; writer is freed
 * before reg, spool after it), while the database is away (see "The
 * spool").  fatal is called once, after the error is logged, when the spool
 * fails: the caller stops the daemon. */
typedef void (*matches_fatal_fn)(void *userdata);
void matches_set_spool(struct matches *reg, struct spool *spool, struct spool_writer *writer, matches_fatal_fn fatal,
                       void *userdata);

/* Pad feedback goes to pads, and the judge's settle window is the
 * driver's (padbus_effective_settle_us).  Without it presses are not
 * judged and no feedback is sent. */
void matches_set_pads(struct matches *reg, struct padbus *pads);

/* Who hears of the live matches (the SSE hub's publisher in api/, the
 * D-Bus objects in bus/), so that match/ depends on neither.  Each callback
 * may be NULL.  added: a match became live (created or rebuilt); removed:
 * it is about to leave the registry (still findable); changed: its row
 * changed outside an input (an abort); published: an input is durable,
 * with what the engine answered (refused inputs too: out->refusal says
 * so). */
struct match_observer {
        /* A match became live: created (created true), or rebuilt on start-up. */
        void (*added)(void *userdata, struct match *m, bool created);
        /* It leaves the registry: final (finished or aborted, match_state_name
         * says which), handed to a referee, or the daemon is stopping. */
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

/* padbus events.received: a press as soon as it is decoded (see "Pads"):
 * judged, held for the ordered stream, or sent as a named input for the
 * live match that has its pad; otherwise counted.  True when the match
 * holds the press's ACK (see "ACKs"). */
bool matches_pad_received(struct matches *reg, const struct pad_press *press);
/* padbus events.pressed: the same press from the ordered stream, a settle
 * window later: a timed press becomes its input now. */
void matches_pad_pressed(struct matches *reg, const struct pad_press *press);
/* Presses from pads at no seat of a live match, since start-up. */
uint64_t matches_unassigned_presses(const struct matches *reg);

/* The store became READY: drops stale matches, flushes the spool, then
 * rebuilds every unfinished match that is not live (see "Replay check"). */
void matches_store_ready(struct matches *reg);
/* Unfinished matches are being rebuilt: an unknown id may be one of them. */
bool matches_loading(const struct matches *reg);
struct store *matches_store(const struct matches *reg);
/* The venue whose matches this registry runs (venues.id; its store's). */
const char *matches_venue(const struct matches *reg);

/* Adopts match id: stored at this venue by another venue's daemon (a
 * match called there to one of our tables, announced by its league event
 * match_assigned), it is loaded and rebuilt as at start-up ("Replay
 * check") and runs here from then on.  Idempotent: a match that is live
 * already, finished, aborted, handed to a referee, of another venue or
 * unknown is left alone (and the start-up rebuild, which may be in flight,
 * skips one adopted meanwhile).  0 (the load is queued), -ENOTCONN (the
 * store is not READY: the next READY's rebuild loads it anyway), -ENOMEM. */
int matches_adopt(struct matches *reg, int64_t id);

/* The live match with this id (stale ones too), or NULL. */
struct match *matches_find(struct matches *reg, int64_t id);
/* The newest live match played at table table_id that is not over
 * (finished or aborted), or NULL: the match a table shows as its own. */
struct match *matches_at_table(struct matches *reg, int64_t table_id);

/* What a new match is made of (all borrowed). */
struct match_spec {
        const struct eng_game *game;
        const struct eng_config *cfg;   /* validated with data and the seat count */
        const struct eng_data *data;    /* NULL: every data file built in */
        unsigned n_seats;
        uint64_t seed;
        json_t *seats;                  /* [{seat, name}], seat 1..n */
        int64_t table_id;               /* 0: none */
        bool confirm;                   /* the result waits for a referee's confirm */
        int64_t confirm_timeout_s;      /* with confirm: confirmed by the runtime after this; 0 never */
};

/* Creates a match and stores it.  0 (cb follows), or -ENOTCONN, -ENOMEM,
 * -EINVAL. */
int matches_create(struct matches *reg, const struct match_spec *spec, const char *who, match_created_fn cb,
                   void *userdata);

/* The match clock (see above). */
int64_t match_now(const struct match *m);

/* Applies in (kind, action, seat and fields set; seq and time_us are
 * filled; a call's or tie's absent window is the open one, absent press
 * times are now) and stores (or spools) it, with reason (may be NULL) for
 * the audit trail.  0 (done follows, or has been called already when the
 * input was spooled; may be NULL), -ENOTCONN (database unreachable and no
 * spool, or the match stale), -ESHUTDOWN (aborted), -EPROTO (the engine
 * broke an invariant; the match is handed to a referee), -EIO (the spool
 * failed), -ENOMEM. */
int match_submit(struct match *m, struct eng_input *in, enum match_source source, const char *who,
                 const char *reason, match_done_fn done, void *userdata);

/* What match_submit would do with in, applied to preview (a buffer of
 * game->state_size bytes) and stored nowhere: 0 with *out and preview the
 * state after it, or -ESHUTDOWN, -ENOTCONN (stale), -EPROTO. */
int match_preview(struct match *m, struct eng_input *in, struct eng_out *out, void *preview);

/* Ends an unfinished match as aborted.  0 (done follows with r and the
 * database's error), -EALREADY (finished or aborted), -ENOTCONN, -ENOMEM. */
typedef void (*match_aborted_fn)(void *userdata, struct match *m, const char *error);
int match_abort(struct match *m, const char *who, match_aborted_fn done, void *userdata);

/* Where the match stands in the log's terms (open, provisional, final). */
enum eng_log_phase match_phase(const struct match *m);
/* "ready", "running", "paused", "provisional", "finished" or "aborted". */
const char *match_state_name(const struct match *m);

/* The seat a pad id sits at in m (or ENG_SEAT_TABLE for a table pad), and
 * its role: 0, or -ENOENT. */
int match_pad_seat(const struct match *m, const char *pad, int *ret_seat, enum eng_pad_role *ret_role);

/* The pure part of the replay check: compares what a replayed input gave
 * with what was stored.  0, or -EBADMSG with a reason in why. */
int match_replay_compare(uint64_t seq, enum eng_refusal replayed, const char *stored_refusal,
                         uint64_t replayed_hash, const char *stored_hash, char *why, size_t len);

/* The hash as stored: 16 lowercase hex digits. */
void match_hash_format(char buf[static 17], uint64_t hash);

#endif
