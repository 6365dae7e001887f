/* tests/integration/chaos.h — the stage of the chaos scenes of issue 11
 * ("Nothing acknowledged is ever lost"; tests/integration/test_chaos.c,
 * tests/soak/chaos.sh; docs/testing.md, "Chaos").
 *
 * The stage: the daemon of the test build (every game there is:
 * ARBITER_TEST_DAEMON_GAMES) on a PostgreSQL cluster of its own with a
 * spool of its own (outage.h), the fsync shim of tests/fault/ preloaded
 * (inert until the scene creates its flag file), five simulated pads on a
 * pty (arbiter-padsim -v), and one match of each lane always running:
 *
 *     lane          game          driven by
 *     cp-referee    crash-pilot   a referee's calls (POST …/inputs)
 *     cp-pads       crash-pilot   presses of pads 0-2, judged into calls
 *     rx-referee    reflex        a referee's awards (POST …/inputs)
 *     rx-pads       reflex        presses of pads 3-4, judged into calls
 *
 * A lane whose match is over starts the next one at its table (created
 * beforehand, while the database is there).
 *
 * The ledger.  The stage records what the daemon acknowledged:
 *   - a REST input answered 2xx: its match and seq, and a tag the request
 *     put in its "reason" (stored with the input, shown by the log);
 *   - a press arbiter-padsim saw ACKed.  Its log (-v) says which event
 *     number each scripted press got, which events were ACKed and after how
 *     many sends, and when a RESET (the daemon's, each time it opens the
 *     port) dropped the events never ACKed.  A pad lane presses once per
 *     window (Crash Pilot) or round (Reflex, judged: round R is window R,
 *     since these matches are never paused or voided), with the right call,
 *     and only once the live match shows that window open; so an ACKed
 *     press means that window was decided by a stored call or tie.
 *
 * chaos_check() asserts, after whatever the scene did, that
 *   - every match of the scene is live again (not handed to a referee), or
 *     over;
 *   - every acknowledged REST input is in GET /v1/matches/{id}/log at its
 *     seq, with its tag;
 *   - every window of an ACKed press has its call or tie in the log;
 *   - every live match holds the state of its stored log: the log replayed
 *     here from the seed through the same engines (each state hash as
 *     stored with its input, as the daemon's replay check and `arbiterctl
 *     verify` compare them) gives the referee's view the live match shows.
 * A failure names the match, its lane, the seq or window and how the input
 * was acknowledged.
 *
 * The schedule comes from one seed (ARBITER_CHAOS_SEED, else the clock),
 * printed at the start of each scene: a failing run's moments (when each
 * fault comes, how long the play lasts) are drawn again from it; the play
 * itself follows the daemon's timing, which no seed repeats.
 *
 * Ownership: chaos_init() fills a struct chaos; chaos_done() (also fit for
 * a teardown after a failed test) stops the padsim, the daemon and the
 * cluster by their pids and frees everything.
 */
#ifndef ARBITER_TESTS_CHAOS_H
#define ARBITER_TESTS_CHAOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>
#include <jansson.h>

#include "tests/integration/harness.h"
#include "tests/integration/outage.h"

enum chaos_lane_kind {
        CHAOS_CP_REFEREE,
        CHAOS_CP_PADS,
        CHAOS_RX_REFEREE,
        CHAOS_RX_PADS,
        CHAOS_LANES,
};

/* One match a lane played. */
struct chaos_match {
        json_int_t id;
        enum chaos_lane_kind lane;
        uint64_t seed;
        bool over;                      /* finished or aborted, seen in the database */
};

/* A REST input answered 2xx, or (after a fault) sent at all. */
struct chaos_input {
        size_t match;                   /* index into matches */
        json_int_t seq;                 /* 0: not answered 2xx */
        char tag[64];                   /* its "reason" */
        char kind[16];
        bool after_fault;               /* sent once the scene's fault began */
};

enum chaos_press_state {
        CHAOS_PRESS_SENT,               /* scripted; padsim has not logged it yet */
        CHAOS_PRESS_IGNORED,            /* the pad was not assigned: no event */
        CHAOS_PRESS_PENDING,            /* an event, not ACKed (yet) */
        CHAOS_PRESS_ACKED,
        CHAOS_PRESS_DROPPED,            /* never ACKed: RESET, or the pad's ring was full */
};

/* A press the stage scripted. */
struct chaos_press {
        size_t match;
        int pad, seat;
        json_int_t window;              /* Crash Pilot's window id, Reflex's round */
        unsigned event, sends;
        unsigned round;                 /* the scene's round it was made in */
        enum chaos_press_state state;
        bool after_fault;
};

struct chaos_lane {
        enum chaos_lane_kind kind;
        json_int_t table;
        size_t match;                   /* index into matches; SIZE_MAX: none yet */
        size_t spare;                   /* the next one, created, not started; SIZE_MAX: none */
        int64_t next_ms;                /* a referee's lane: its next input, mono_ms() */
        size_t press;                   /* its last press (pad lanes); SIZE_MAX: none */
        unsigned turn;                  /* whose seat acts next */
};

#define CHAOS_PADS 5

struct chaos {
        const char *scene;
        struct outage o;
        struct padsim_proc sim;
        char *link, *config_path, *fail_flag;
        CURL *curl;
        uint64_t seed, rng, play_rng;   /* the scene's moments; the play's own choices */
        unsigned round;                 /* the scene's round, for messages and tags */
        int64_t started_ms;             /* when chaos_init began, mono_ms() */
        unsigned n_tags;
        bool fault;                     /* the scene's fault began: nothing may be acknowledged */
        bool db_down;                   /* the scene stopped the database: inputs are spooled */
        struct chaos_lane lanes[CHAOS_LANES];
        struct chaos_match *matches;
        size_t n_matches;
        struct chaos_input *inputs;
        size_t n_inputs;
        struct chaos_press *presses;
        size_t n_presses;
        /* arbiter-padsim's log, read so far: */
        long sim_off;
        /* for the report: acknowledged REST inputs (and of those, while the
         * database was down), ACKed presses, what was sent after the fault
         * (REST inputs refused, presses), checks passed */
        size_t acked_rest, acked_spooled, acked_presses, refused_after_fault, presses_after_fault, checks;
};

/* A size knob of the scenes: the environment variable name as a count,
 * else def. */
unsigned chaos_knob(const char *name, unsigned def);
/* The end of the scene's time budget (ARBITER_CHAOS_SECONDS from now; none:
 * INT64_MAX), in mono_ms(). */
int64_t chaos_deadline(void);

/* Sets the stage up for scene (a name for the log and the tags) and starts
 * every lane's first match; prints the seed.  Fails the test on error. */
void chaos_init(struct chaos *c, const char *scene);
void chaos_done(struct chaos *c);

/* A random number in [0, n) from the scene's schedule (its moments and
 * choices of fault: the same for the same seed). */
uint64_t chaos_rand(struct chaos *c, uint64_t n);

/* One step of every lane (in a random order): at most one input or press
 * each.  Answers from a daemon that is gone or stopping are not
 * acknowledgements; they fail nothing.  False when the daemon did not
 * answer at all. */
bool chaos_step(struct chaos *c);
/* Steps for usec, or until the daemon stops answering. */
void chaos_drive(struct chaos *c, int64_t usec);

/* Starts the daemon again (the same database, spool, pads and shim). */
void chaos_restart(struct chaos *c);
/* Waits until every match of the scene is live again or over, the spool is
 * empty and the pads are connected; fails the test, naming the match, when
 * one was handed to a referee or does not come back. */
void chaos_settle(struct chaos *c);
/* The checks (above); when says when, for the messages. */
void chaos_check(struct chaos *c, const char *when);
/* Reads the padsim log so far: which presses got events, ACKs, drops. */
void chaos_read_pads(struct chaos *c);

/* Waits for cp-pads' match to show a window open, calls before (may be
 * NULL), and presses the right call in that window from the next seat's
 * pad: the window's id. */
json_int_t chaos_press_a_window(struct chaos *c, void (*before)(struct chaos *c));
/* A write held in flight: another session locks match_inputs, then a press
 * of cp-pads is judged into a call whose INSERT waits on the lock.
 * Returns once the live match shows the window decided; the lock lasts
 * until the cluster stops. */
void chaos_hold_a_write(struct chaos *c);

#endif
