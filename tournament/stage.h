/* tournament/stage.h — one tournament stage as a pure function of its
 * inputs: the configuration, the entrants and the matches the daemon stored.
 * It ties the format modules together (swiss.h, pods.h, heats.h,
 * round_robin.h, bracket.h, groups.h, standings.h) and answers the daemon's
 * questions: what is played next, what are the standings, what does a
 * corrected result invalidate, what does the bracket look like, who goes on
 * to the next stage.  The rules, per format, are in docs/formats/stages.md.
 *
 * Pure (docs/architecture.md, "Pure layers"): libc and tournament/ only, no
 * clock, no I/O, no global state.  Nothing is remembered between calls: every
 * call derives the stage again from (config, entrants, stored matches, stored
 * byes) — the bracket graph included, which is a deterministic function of
 * n_entrants and the config — so the stored matches and byes are all the
 * daemon persists.  Same input, same output, byte for byte (outputs are
 * zeroed before they are filled).
 *
 * Entrants are 0..n_entrants-1 in the stage's seeding order (types.h).
 *
 * Ownership: every input is borrowed for the duration of a call and never
 * kept.  Outputs are the caller's arrays, sized as each function says,
 * except struct tour_stage_next and struct tour_stage_bracket_view, whose
 * arrays are allocated by the call and released with their _free()
 * function (which accepts NULL and a zeroed struct, and zeroes it again).
 *
 * Errors: -EINVAL for a bad config or input (with a message in *ret_err,
 * which may be NULL, naming the field: "table_size: must be 3 to 6 for
 * pod_swiss", "matches[4].result.entrant[1]: differs from the match's"),
 * -EBUSY when a round format is asked for its next round while a match is
 * unfinished, -ERANGE when a result does not fit the caller's array or a
 * pod split is impossible under the configured policy, -ENOMEM. */
#ifndef ARBITER_TOURNAMENT_STAGE_H
#define ARBITER_TOURNAMENT_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/bracket.h"
#include "tournament/pods.h"
#include "tournament/points.h"
#include "tournament/standings.h"
#include "tournament/types.h"

enum tour_format {
        TOUR_FORMAT_SINGLE_ELIM = 1,
        TOUR_FORMAT_DOUBLE_ELIM,
        TOUR_FORMAT_ROUND_ROBIN,
        TOUR_FORMAT_SWISS,
        TOUR_FORMAT_POD_SWISS,
        TOUR_FORMAT_LEAGUE,
        TOUR_FORMAT_HEATS,
        TOUR_FORMAT_RACE,
        TOUR_FORMAT_GROUPS,
};

/* Stable names used by configuration files and the API: "single_elimination",
 * "double_elimination", "round_robin", "swiss", "pod_swiss", "league",
 * "heats", "race", "groups".  NULL for an unknown value. */
const char *tour_format_name(enum tour_format f);

/* The format called name, or -EINVAL (NULL arguments included). */
int tour_format_from_name(const char *name, enum tour_format *ret_format);

/* Whether a running stage of format f takes late entrants — an entrant
 * appended while it runs, with no earlier match, who starts on 0 points and
 * is paired from the next round on: swiss, pod_swiss, league and race,
 * which pair each round from a snapshot of the standings.  The others fix
 * their structure from the number of entrants when they start (a bracket's
 * graph, a round robin's schedule, a split into groups or heats), which an
 * entrant more would change under the matches already made
 * (docs/formats/stages.md, "Drops and late entrants in the round formats").
 * The one rule of late entry: registration and check-in use it
 * (tournament/states.h, tour_late_entry).  False for an unknown value. */
bool tour_format_takes_late_entries(enum tour_format f);

/* Brackets: single and double elimination.  Not round-locked: a match is
 * made as soon as both its sides are known (tour_stage_next), and a result
 * decides only the matches it feeds (tour_bracket_dependents).  False for
 * an unknown value. */
bool tour_format_bracket(enum tour_format f);

/* Round-based: every round after the first is paired from the results of
 * the rounds before it, so a changed result invalidates every later round,
 * its matches and its byes alike (tour_stage_dependents; organiser/
 * deletes them and pairs again).  Swiss, pod_swiss, league and race pair
 * from the standings; heats from the advancers of the round before
 * (tour_heats_advance: a different rank at the cut line seats a different
 * field).  Not round robin and groups, whose schedule is fixed when the
 * stage starts (a result changes no pairing), nor brackets.  This is not
 * "paired from a snapshot" (tour_format_takes_late_entries): heats are
 * round-based but seat no late entrant.  False for an unknown value. */
bool tour_format_round_based(enum tour_format f);

/* Highest round a stage may have: far above any plan the formats make
 * (a double round robin of 4,096 has 8,190 rounds, a bracket of 65,536 a
 * depth under 40), low enough that per-round arrays sized from a corrupt
 * round number stay small. */
#define TOUR_STAGE_MAX_ROUNDS 65536

/* Longest message a call leaves in struct tour_stage_error. */
#define TOUR_STAGE_ERROR_MAX 160

/* "field: what is wrong", always NUL-terminated; empty on success. */
struct tour_stage_error {
        char text[TOUR_STAGE_ERROR_MAX];
};

/* One stage's configuration: plain data owned by the caller.  Fields a
 * format does not use are ignored (docs/formats/stages.md lists which
 * format reads what).  Invariants are those of tour_stage_config_check. */
struct tour_stage_config {
        enum tour_format        format;
        /* swiss, pod_swiss, league, race: rounds to play, 0 = the format's
         * default (tour_stage_rounds); must be 0 for the other formats,
         * whose structure fixes it. */
        int                     rounds;         /* 0..TOUR_STAGE_MAX_ROUNDS */
        /* pod_swiss, league: 3..6 (TOUR_PODS_MIN_K..MAX_K); heats:
         * 3..TOUR_MAX_SEATS (heats of 2 are a single elimination); race:
         * 2..TOUR_MAX_SEATS. */
        int                     table_size;
        enum tour_pods_policy   pod_policy;     /* pod_swiss, league */
        int                     advance;        /* heats: q per heat, 1..table_size-1 */
        struct tour_bracket_options bracket;    /* single / double elimination */
        bool                    double_round_robin;     /* round robin, groups */
        /* groups: how many, 0 = about TOUR_STAGE_DEFAULT_GROUP_SIZE a group
         * (tour_stage_groups_count), else 2..TOUR_GROUPS_MAX_GROUPS with at
         * least 2 entrants a group; draw: a seeded draw with pots
         * (tour_groups_draw, from seed) instead of the snake. */
        int                     groups;
        bool                    draw;
        struct tour_points_config points;
        enum tour_standings_tb  tiebreaks[TOUR_STANDINGS_MAX_TIEBREAKS];
        int                     n_tiebreaks;
        uint64_t                seed;           /* pod_swiss, league, race, groups draws */
};

/* Defaults of docs/formats/stages.md, "Defaults":
 *   duel formats (single/double elimination, round robin, groups, swiss):
 *     WDL 3/1/0 with a bye worth a win; swiss buchholz, sonneborn_berger;
 *     round robin and groups direct_encounter, sonneborn_berger (groups:
 *     groups 0, i.e. about 4 a group, snake seeding); brackets buchholz;
 *     double elimination with a grand-final reset (TOUR_GRAND_FINAL_DOUBLE),
 *     single elimination without a third-place match;
 *   table formats (pod_swiss, league, race, heats): PLACEMENT n - rank,
 *     tables of TOUR_STAGE_DEFAULT_TABLE (heats advance
 *     TOUR_STAGE_DEFAULT_ADVANCE), pods policy TOUR_PODS_BYE with a bye
 *     worth the mean points of a full table (k-1)/2, tie-breaks
 *     placement_avg, seat_adjusted (heats: placement_avg);
 *   rounds 0 (the format's default), seed 0.
 * An unknown f gives a zeroed config with that format (which the check
 * refuses). */
void tour_stage_config_default(enum tour_format f, struct tour_stage_config *ret_cfg);

/* Four seats: the Commander pod EDH_matchmaker is built around and the
 * heat size of its example plans (github.com/eVen-gits/EDH_matchmaker). */
#define TOUR_STAGE_DEFAULT_TABLE        4
/* Half of a heat of 4 goes through: 64 -> 32 -> 16 -> 8 -> 4 (the plan
 * docs/formats/swiss-and-pods.md works out). */
#define TOUR_STAGE_DEFAULT_ADVANCE      2
/* Groups of four: three rounds in which everyone meets everyone, the group
 * stage of most cups (the FIFA World Cup's among them); by default the
 * field is split into groups of about that size. */
#define TOUR_STAGE_DEFAULT_GROUP_SIZE   4

/* 0 if cfg can run a stage of n_entrants, else -EINVAL with *ret_err
 * naming the first bad field ("n_entrants: must be 2 to 65536 for
 * single_elimination", "points.win: ...", "tiebreaks[2]: unknown").
 * Entrant limits: brackets 2..TOUR_BRACKET_MAX_ENTRANTS, round robin
 * 2..TOUR_ROUND_ROBIN_MAX_ENTRANTS, groups 4..TOUR_ROUND_ROBIN_MAX_ENTRANTS
 * and at least 2 per group ("groups: 5 groups need at least 10 entrants
 * (n_entrants is 8)"), the others 1..TOUR_PAIR_MAX_N. */
int tour_stage_config_check(const struct tour_stage_config *cfg, int n_entrants,
                            struct tour_stage_error *ret_err);

/* Rounds the stage plays with n_entrants: cfg->rounds if set, else swiss
 * ceil(log2 n); pod_swiss ceil(log_k n) (one winner per pod each round
 * leaves a sole leader after that many); league and race ceil((n-1)/(k-1))
 * (the fewest rounds in which every entrant could meet every other); round
 * robin the Berger schedule's; groups the Berger schedule of the largest
 * group; heats the nominal plan's (tour_heats_plan,
 * drops and forfeits can end it sooner); brackets the depth of the graph
 * (the most matches one entrant can play).  At least 1.  -EINVAL as the
 * check. */
int tour_stage_rounds(const struct tour_stage_config *cfg, int n_entrants);

/* The number of groups a groups stage of n_entrants splits into: cfg->groups
 * if set, else ceil(n / TOUR_STAGE_DEFAULT_GROUP_SIZE) kept within 2 and
 * TOUR_GROUPS_MAX_GROUPS.  -EINVAL as the check (other formats included). */
int tour_stage_groups_count(const struct tour_stage_config *cfg, int n_entrants);

/* One entrant; the array index is the entrant number.  active false:
 * dropped or disqualified — never paired again (a bracket walks it over),
 * keeps its results, stays in the standings flagged. */
struct tour_stage_entrant {
        double  rating;         /* higher is stronger: orders a Swiss score group */
        bool    active;
};

/* A match the stage made earlier, as the daemon stored it: the pairing
 * next() returned (round, table, bracket_id, entrants in seat order), and
 * once played its result, whose entrants are the match's in the same seat
 * order and whose round is the match's. */
struct tour_stage_match {
        int                     round;
        int                     table;
        int                     bracket_id;     /* bracket formats: graph match id; else -1 */
        int                     n;
        int32_t                 entrant[TOUR_MAX_SEATS];
        bool                    done;
        struct tour_result      result;         /* valid when done */
};

struct tour_stage_input {
        const struct tour_stage_config  *cfg;
        int                             n_entrants;
        const struct tour_stage_entrant *entrants;      /* n_entrants */
        size_t                          n_matches;
        const struct tour_stage_match   *matches;       /* NULL only if n_matches is 0 */
        size_t                          n_byes;
        const struct tour_bye           *byes;          /* NULL only if n_byes is 0; none in brackets */
};

/* A pairing to store and play.  bracket_id: the graph's match id in bracket
 * formats, -1 otherwise. */
struct tour_stage_pairing {
        int                     bracket_id;
        struct tour_pairing     pairing;
};

/* A bracket match decided without playing because an occupant is inactive
 * (docs/formats/stages.md, "Drops in a bracket").  Not stored by anyone:
 * it is derived again every call. */
struct tour_stage_walkover {
        int                     bracket_id;
        int32_t                 winner, loser;
};

/* What tour_stage_next() returns.  Arrays owned by the struct: release with
 * tour_stage_next_free(). */
struct tour_stage_next {
        bool                    finished;       /* nothing more will ever be paired */
        int                     round;          /* round formats: the round paired; 0 otherwise */
        int                     n_pairings;
        struct tour_stage_pairing *pairings;
        int                     n_byes;
        struct tour_bye         *byes;
        int                     n_walkovers;    /* brackets: every walkover in force */
        struct tour_stage_walkover *walkovers;
        /* Swiss: rematches; pods, league, race: pod-mate pairs that met
         * before; 0 otherwise.  For the operator to see. */
        int                     repeats;
};

/* The next matches to play (rules per format: docs/formats/stages.md).
 * Round formats: -EBUSY while a stored match is not done; finished with no
 * pairings when the stage's rounds are played (heats: the final) or fewer
 * than two entrants are active (heats: left in), else the next round's
 * pairings and byes; -ERANGE when the pod policy cannot seat the active
 * count.  Brackets: every match whose two
 * occupants are known and that is not stored yet, in id order; finished
 * when every match is decided.  Returns the number of pairings; *ret is
 * zeroed first and must be released with tour_stage_next_free() even on
 * error. */
int tour_stage_next(const struct tour_stage_input *in, struct tour_stage_next *ret,
                    struct tour_stage_error *ret_err);

void tour_stage_next_free(struct tour_stage_next *next);

/* The standings of every entrant, best first (standings.h), into
 * ret_rows[0..n_entrants).  Brackets and heats order by placement first
 * (entrants still in the running ahead of everyone placed, then place 1,
 * 2, ...), then by points and tie-breaks; ranks are recomputed over that
 * order (competition ranking).  Groups: each group's standings are
 * computed from its own results alone, then every entrant is listed by
 * (rank within its group, points, tie-breaks, entrant): the group winners
 * first, then the runners-up, ...; two rows share a rank when they share
 * all of these but the entrant.  ret_place (may be NULL; n_entrants, per
 * row) receives the placement used: brackets and heats 0 = still in the
 * running, groups the rank within the group (always 0 for the other
 * formats).  Returns n_entrants. */
int tour_stage_standings(const struct tour_stage_input *in, struct tour_standings_row *ret_rows,
                         int *ret_place, struct tour_stage_error *ret_err);

/* The indices into in->matches of the matches that depended on the result
 * of in->matches[match_index]: with pending false the DONE ones (a
 * correction invalidates them: the operator decides), with pending true the
 * not-done ones (the daemon deletes them and calls next() again).  Brackets:
 * the matches whose occupants a different result would change
 * (tour_bracket_dependents); swiss, pod_swiss, league, race, heats: every
 * match of a later round; round robin and groups: none.  Increasing index order.
 * Returns the count, -ERANGE if it exceeds cap (n_matches always fits),
 * -EINVAL. */
int tour_stage_dependents(const struct tour_stage_input *in, size_t match_index, bool pending,
                          size_t *ret, size_t cap, struct tour_stage_error *ret_err);

/* A resolved bracket for rendering: the graph (owned), one state per graph
 * match, each entrant's placement (0 = still in), the stored match behind
 * each graph match (-1: none) and whether it was decided by walkover.
 * Release with tour_stage_bracket_free(). */
struct tour_stage_bracket_view {
        struct tour_bracket             *bracket;
        struct tour_bracket_state       *states;        /* bracket->n_matches */
        int                             *stored;        /* bracket->n_matches */
        bool                            *walkover;      /* bracket->n_matches */
        int                             *place;         /* n_entrants */
};

/* Bracket formats only (-EINVAL otherwise).  Returns the number of matches
 * ready to play; *ret is zeroed first and must be released even on error. */
int tour_stage_bracket(const struct tour_stage_input *in, struct tour_stage_bracket_view *ret,
                       struct tour_stage_error *ret_err);

void tour_stage_bracket_free(struct tour_stage_bracket_view *view);

/* The top `count` ACTIVE entrants of the stage's standings, best first
 * (dropped ones are skipped: they do not advance): ret_entrants[k] becomes
 * entrant k of the next stage.  Returns count; -ERANGE if fewer than count
 * are active; -EINVAL for count < 1 or > n_entrants. */
int tour_stage_top(const struct tour_stage_input *in, int count, int32_t *ret_entrants,
                   struct tour_stage_error *ret_err);

/* As tour_stage_top, then reordered for a single-elimination bracket of
 * `count` (tour_groups_top_cut): a first-round pairing of two entrants who
 * already met in this stage is undone by the smallest swap of the lower
 * seed.  Returns the number of first-round rematches no swap could avoid
 * (0 normally), or an error as tour_stage_top; count must be 2 to
 * TOUR_GROUPS_MAX_SEEDED (the cut's meetings matrix is count²). */
int tour_stage_top_cut(const struct tour_stage_input *in, int count, int32_t *ret_entrants,
                       struct tour_stage_error *ret_err);

/* Groups stages only: ret_group[e] (n_entrants entries) = the group of
 * entrant e, 0-based, as the stage split them (snake or draw).  Reads only
 * the config and n_entrants.  Returns the number of groups, or -EINVAL (a
 * bad config or input, another format), -ENOMEM. */
int tour_stage_group_of(const struct tour_stage_input *in, int32_t *ret_group);

/* Who goes on to a next stage of format next_format, in its seeding order:
 * ret_entrants[k] becomes entrant k of the next stage (count entries).
 * A groups stage: the top q = count / groups ACTIVE entrants of every group
 * (dropped ones are skipped: the next one in the group moves up); count
 * must be a multiple of the number of groups (-EINVAL), -ERANGE when a
 * group has fewer than q active.  Into single or double elimination they
 * are seeded by tour_groups_seed_bracket (tier by tier, the groups in the
 * order of their first qualifiers below): group winners meet other groups'
 * runners-up in round 1 and group-mates are kept apart; into any other
 * format they are ordered by (place among the group's qualifiers, points,
 * tie-breaks, entrant).  Every other format: tour_stage_top_cut into
 * single or double elimination when count is 2..TOUR_GROUPS_MAX_SEEDED
 * (the winners bracket is seeded like a single elimination one), else
 * tour_stage_top.  Returns count, or -EINVAL (count outside 1..n_entrants,
 * an unknown next_format), -ERANGE, -ENOMEM. */
int tour_stage_advance(const struct tour_stage_input *in, int count, enum tour_format next_format,
                       int32_t *ret_entrants, struct tour_stage_error *ret_err);

#endif
