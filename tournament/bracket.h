/* tournament/bracket.h — elimination brackets as a static graph of duels,
 * and the resolver that turns (graph, recorded outcomes) into who plays
 * whom, who has finished where, and what a correction would invalidate.
 *
 * Pure (docs/architecture.md, "Pure layers"): libc only, no clock, no I/O,
 * no global state.
 * The exact rules, routing tables and placements are in
 * docs/formats/brackets.md; tests/unit/test_single_elim.c and
 * test_double_elim.c are named after them.
 *
 * Model.  A bracket is generated once from the entrant count n and the
 * options and never changes afterwards.  It is an array of 2-player matches;
 * each slot's source is a seed (an entrant 0..n-1 of this stage, in seeding
 * order: entrant 0 is seed 1), the winner or the loser of an earlier match,
 * or nothing (a bye slot).  Invariants the generators guarantee and the tests
 * check:
 *   - match ids are 0..n_matches-1 and every source names a smaller id, so
 *     resolving in id order is a topological pass;
 *   - every match's winner and loser feed at most one slot each (the
 *     grand-final reset excepted: it reads the grand final's two sources);
 *   - a slot that is empty "by construction" (a bye seed, the loser of a bye,
 *     the winner of a match with two empty slots) is known at generation
 *     time: a match with exactly one such slot is a bye (the other side
 *     advances without playing), a match with two is void (nobody ever
 *     plays it).  Neither is ever played.
 *
 * Outcomes are one int8_t per match: TOUR_BRACKET_UNPLAYED, or the winning
 * slot 0 or 1.  Resolution is a pure function of (graph, outcomes): a
 * corrected result is applied by changing one outcome and resolving again,
 * which re-derives everything downstream.  tour_bracket_dependents() lists
 * the later matches whose occupants such a correction would change.
 *
 * Ownership: tour_single_elim_new() and tour_double_elim_new() return a
 * bracket the caller owns and frees with tour_bracket_free() (NULL is
 * accepted).  Every other function borrows its arguments and writes only to
 * the caller's ret_* arrays, sized as each function says. */
#ifndef ARBITER_TOURNAMENT_BRACKET_H
#define ARBITER_TOURNAMENT_BRACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/types.h"

/* 2^16 entrants: the bracket of P = 65,536 slots has fewer than 2^18
 * matches, so every id, round and placement fits an int with room to spare,
 * and a graph stays under 20 MB.  Far above any club event; the bound exists
 * so that sizes computed from n cannot overflow. */
#define TOUR_BRACKET_MAX_ENTRANTS       65536

#define TOUR_BRACKET_UNPLAYED           ((int8_t) -1)
#define TOUR_BRACKET_LABEL_MAX          24

enum tour_bracket_part {
        TOUR_PART_WINNERS = 0,          /* single elimination: the whole bracket */
        TOUR_PART_LOSERS,
        TOUR_PART_GRAND_FINAL,
        TOUR_PART_GRAND_FINAL_RESET,
        TOUR_PART_THIRD_PLACE,
};

enum tour_grand_final {
        /* No grand final: the winners-bracket winner is 1st, the losers-
         * bracket winner 2nd (docs/formats/brackets.md, "Grand final"). */
        TOUR_GRAND_FINAL_NONE = 0,
        /* One match: its winner is 1st. */
        TOUR_GRAND_FINAL_SIMPLE,
        /* One match, plus a reset played only when the losers-bracket
         * finalist wins the first (both then have one loss). */
        TOUR_GRAND_FINAL_DOUBLE,
};

struct tour_bracket_options {
        bool                    third_place;    /* single elimination, n >= 3 */
        enum tour_grand_final   grand_final;    /* double elimination */
};

enum tour_slot_source {
        TOUR_SRC_EMPTY = 0,             /* a bye: nobody, ever */
        TOUR_SRC_SEED,                  /* ref = entrant 0..n-1 */
        TOUR_SRC_WINNER,                /* ref = match id */
        TOUR_SRC_LOSER,                 /* ref = match id */
};

struct tour_bracket_slot {
        enum tour_slot_source   source;
        int32_t                 ref;
};

struct tour_bracket_match {
        int                     id;
        enum tour_bracket_part  part;
        int                     round;          /* 1-based within its part */
        int                     index;          /* 0-based position within the round */
        char                    label[TOUR_BRACKET_LABEL_MAX];  /* "R1-3", "W2-1", "L4-2", "GF" ... */
        struct tour_bracket_slot slot[2];
        /* Derived at generation, see the invariants above. */
        bool                    empty[2];       /* slot empty by construction */
        /* Placement given to the loser / winner of this match when it
         * decides one (0: it does not; the loser drops to the losers
         * bracket or a third-place match, the winner plays on).  Equal
         * placements are shared: four quarter-final losers are all 5th. */
        int                     loser_place;
        int                     winner_place;
};

enum tour_bracket_format {
        TOUR_BRACKET_SINGLE = 1,
        TOUR_BRACKET_DOUBLE,
};

struct tour_bracket {
        enum tour_bracket_format format;
        struct tour_bracket_options options;
        int             n;              /* entrants, 2..TOUR_BRACKET_MAX_ENTRANTS */
        int             size;           /* P: the next power of two >= n */
        int             rounds[5];      /* rounds per enum tour_bracket_part */
        int             n_matches;      /* including byes and void matches */
        int             n_played;       /* matches with two real sides (neither bye nor void) */
        struct tour_bracket_match match[];
};

enum tour_match_status {
        TOUR_MATCH_WAITING = 0,         /* a side is not known yet */
        TOUR_MATCH_READY,               /* both sides known, no outcome */
        TOUR_MATCH_DONE,                /* outcome recorded */
        TOUR_MATCH_BYE,                 /* one side empty by construction: never played */
        TOUR_MATCH_VOID,                /* both sides empty by construction */
        TOUR_MATCH_NOT_NEEDED,          /* grand-final reset after the winners-bracket finalist won */
};

/* What the resolver says about one match.  occupant[] is TOUR_NONE when not
 * known yet or empty.  winner/loser are TOUR_NONE until decided; a bye's
 * winner is its non-empty side as soon as that is known, its loser is
 * always TOUR_NONE. */
struct tour_bracket_state {
        enum tour_match_status status;
        int32_t         occupant[2];
        int32_t         winner;
        int32_t         loser;
};

/* Single elimination for n entrants: P = next power of two >= n, standard
 * placement (seed s meets seed P+1-s in round 1), byes are seeds n+1..P so
 * seeds 1..P-n get them; a third-place match between the semi-final losers
 * when opt->third_place and n >= 3.  opt may be NULL (no third place).
 * Returns 0 and *ret_bracket, -EINVAL for n outside 2..MAX or a NULL
 * ret_bracket, -ENOMEM. */
int tour_single_elim_new(int n, const struct tour_bracket_options *opt,
                         struct tour_bracket **ret_bracket);

/* Double elimination for n entrants: the winners bracket is the single-
 * elimination bracket above; its losers drop into the losers bracket in the
 * alternating orders of docs/formats/brackets.md; opt->grand_final chooses
 * none / simple / double.  n_played is 2n-3, 2n-2 and 2n-1 (the reset
 * counted) respectively.  opt may be NULL (simple grand final).  Returns as
 * tour_single_elim_new(). */
int tour_double_elim_new(int n, const struct tour_bracket_options *opt,
                         struct tour_bracket **ret_bracket);

void tour_bracket_free(struct tour_bracket *b);

/* Resolves the bracket.  outcomes has b->n_matches entries (NULL: nothing
 * played).  ret_states (b->n_matches entries) is required; ret_place
 * (b->n entries, may be NULL) receives each entrant's final placement, 0
 * while the entrant is still in the running.
 * Returns the number of matches with status READY, or -EINVAL when b or
 * ret_states is NULL or an outcome is inconsistent: not -1/0/1, recorded for
 * a match whose sides are not both known, for a bye or void match, or for a
 * reset that is not needed.  On -EINVAL ret_states holds the resolution up
 * to the offending match only. */
int tour_bracket_resolve(const struct tour_bracket *b, const int8_t *outcomes,
                         struct tour_bracket_state *ret_states, int *ret_place);

/* The matches whose occupants (or, for a reset, whether it is needed) would
 * change if the outcome of match_id changed: flipped when it is played,
 * either result when it is not.  Anything downstream of a changed match is
 * counted as changed too, since its recorded outcome names a slot whose
 * occupant is no longer the one who won.  Writes their ids in increasing
 * order to ret_ids (b->n_matches entries); with played_only, only the ones
 * with a recorded outcome: the already-played matches the correction would
 * invalidate.  Returns the count, or -EINVAL (NULL b or ret_ids, bad
 * match_id, inconsistent outcomes), -ENOMEM. */
int tour_bracket_dependents(const struct tour_bracket *b, const int8_t *outcomes, int match_id,
                            bool played_only, int *ret_ids);

/* The READY matches as pairings (2 seats, slot 0 in seat 1), in id order;
 * round is the match's round within its part, table the 1-based position in
 * the returned list.  ret_pairings has room for b->n_matches.  Returns the
 * count or -EINVAL. */
int tour_bracket_ready_pairings(const struct tour_bracket *b, const struct tour_bracket_state *states,
                                struct tour_pairing *ret_pairings);

/* P = the next power of two >= n (n >= 1), the bracket size; -EINVAL for n
 * outside 1..TOUR_BRACKET_MAX_ENTRANTS. */
int tour_bracket_size(int n);

/* The standard placement: ret_seed_at[i] is the 1-based seed at leaf i of a
 * bracket of size P (a power of two, 2..2*MAX), built as pos(2) = [1,2],
 * pos(2k) = for each p in pos(k): p, 2k+1-p.  Leaves 2i and 2i+1 meet in
 * round 1.  Returns 0 or -EINVAL. */
int tour_bracket_seed_order(int size, int *ret_seed_at);

/* Internal to the bracket generators (bracket.c, single_elim.c,
 * double_elim.c), not for callers: allocates a bracket of n_matches
 * matches, fills the derived fields (empty[], n_played) once the graph is
 * built. */
struct tour_bracket *tour_bracket_alloc(int n_matches);
int tour_bracket_finish(struct tour_bracket *b);
/* Fills ids 0..size-2 with the standard-placement single-elimination tree
 * (round r, index i has id size - (size >> (r-1)) + i) and returns its
 * round count; loser_place is the elimination placement size/2^r + 1. */
int tour_bracket_fill_winners(struct tour_bracket *b);

#endif
