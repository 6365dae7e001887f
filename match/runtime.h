/* match/runtime.h — private to the files of match/: the registry's own state and the
 * functions its files share.  The design is in match.h.
 *
 *   registry.c  the registry, a match's allocation, seats and pads, create,
 *               abort, names
 *   submit.c    the write-then-publish path of an input, preview, timers
 *   flush.c     the spool's flush when the database returns
 *   load.c      the rebuild of unfinished matches on start-up
 *   presses.c   pad presses: routes, the judge, timed presses, ACKs,
 *               feedback
 */
#ifndef ARBITER_MATCH_RUNTIME_H
#define ARBITER_MATCH_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "match/match.h"
#include "store/matches.h"

struct event;

struct matches {
        struct loop *loop;
        struct store *store;
        struct match *list;
        bool loading;
        bool loaded;                    /* the unfinished matches were rebuilt once */
        struct padbus *pads;            /* NULL: presses are not judged */
        struct match_observer obs[MATCH_MAX_OBSERVERS];
        size_t n_obs;
        uint64_t unassigned_presses;

        /* The spool (match.h, "The spool").  Invariant: while it holds
         * records no input is written to the database directly, so the
         * database sees each match's inputs in seq order.  A write that
         * fails on a connection that stays up (a cancelled statement) is
         * spooled while other matches' writes queued behind it may be
         * stored; its own match's next input was held (match.h, "One input
         * of a match at a time on the lane") and follows it into the spool.
         * Across matches the order does not matter: the INSERT is
         * idempotent and a match's row follows its newest stored input
         * (store/matches.h). */
        struct spool *spool;            /* NULL: inputs need the database */
        struct spool_writer *writer;    /* writes and fsyncs it off the loop thread */
        matches_fatal_fn fatal;
        void *fatal_userdata;
        bool broken;                    /* the spool failed: nothing more is acknowledged */
        bool flushing;                  /* a spooled record's INSERT is in flight */
        bool load_after_flush;          /* the rebuild waits until the spool is empty */
        uint64_t flushed;               /* records written in this flush */
        uint64_t spooled_after_failure; /* inputs whose database write failed, since the last flush */
        struct event *flush_retry;
};

/* Tells every observer; a NULL callback is skipped. */
#define MATCH_NOTIFY(reg, fn, ...) do { \
        for (size_t i_ = 0; i_ < (reg)->n_obs; i_++) \
                if ((reg)->obs[i_].fn) \
                        (reg)->obs[i_].fn((reg)->obs[i_].userdata, __VA_ARGS__); \
} while (0)

/* registry.c */
/* Whether a stored match's venue (NULL: a row without one) is this
 * daemon's. */
bool match_is_ours(const struct matches *reg, const char *venue);
struct match *match_alloc(struct matches *reg, const struct eng_game *g);
void match_free(struct match *m);               /* accepts NULL */
/* Takes m out of the registry; frees it now or, while writes for it are in
 * flight, when the last one completes. */
void match_release(struct match *m);
/* The seats [{seat, name, pads: [{pad, role}], buttons}] (or a seat's
 * single "pad" of a match stored before pads had roles) and the table's
 * pads [{pad, role}] as stored. */
void match_load_seats(struct match *m, json_t *seats, json_t *table_pads);
/* Copies the custom data files of data into m (owned): 0 or -ENOMEM. */
int match_take_data(struct match *m, const struct eng_data *data);
/* Appends a record to m's log: 0 or -ENOMEM. */
int match_log_push(struct match *m, const struct eng_input *in, enum eng_refusal refusal);

/* submit.c */
/* Follows the engine's pending wake-up, or the confirm timeout. */
void match_arm_timer(struct match *m);
/* Follows the window requests among out. */
void match_note_requests(struct match *m, const struct eng_out *out);
/* Hands a match whose engine broke, or whose replay disagrees, to a
 * referee: logged, marked in the database, and out of the registry. */
void match_hand_to_referee(struct match *m, const char *reason);
/* Whether inputs go to the spool now rather than to the database. */
bool matches_must_spool(const struct matches *reg);
/* The spool failed: logged, fatal called once, nothing more acknowledged. */
void matches_spool_failed(struct matches *reg, const char *what, int r);

/* flush.c */
void matches_flush_next(struct matches *reg);
/* registry.c: the flush is tried again a second later. */
void matches_flush_retry(struct matches *reg);

/* load.c */
void matches_load_unfinished(struct matches *reg);

/* presses.c */
/* Makes the judge follow the engine's window. */
void match_judge_follow(struct match *m);
/* Asks the judge for its decision now (its timer calls this). */
void match_judge_check(struct match *m);
/* Ends held ACKs: durable, ACK them; not, forget them (the pad resends). */
void match_held_end(struct matches *reg, struct match_held *h, size_t n, bool durable);
/* Sends the pad feedback requests among out to the seats' pads. */
void match_send_feedback(struct match *m, const struct eng_out *out);

#endif
