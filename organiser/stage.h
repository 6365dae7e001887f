/* organiser/stage.h — one tournament stage as the tournament service
 * computes from it: the stage's snapshot (store/stages.h) turned into what
 * the pure tournament/stage.h module takes, with what the service needs
 * around it (the players behind the entrant numbers, the stored matches'
 * ids, states, tables and runtime matches), and the stored data the
 * service reads and writes as JSON: a stage's config, a match's result,
 * the standings document.
 *
 * Entrant i is players[i] (stages.entrants, in seeding order).  A stored
 * result [{player, name, rank, score, forfeit}] in seat order becomes a
 * struct tour_result over entrant numbers, and back.  An entrant's rating
 * (what orders a Swiss score group) is its OpenSkill ordinal in the game
 * (tour_os_ordinal), 0 while it has none.
 *
 * Ownership: a struct org_stage owns every array and string it points to
 * and is released with org_stage_free() (which accepts NULL).  Functions
 * that return JSON return a new reference.
 */
#ifndef ARBITER_ORGANISER_STAGE_H
#define ARBITER_ORGANISER_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "organiser/outcome.h"
#include "store/stage_matches.h"
#include "store/stages.h"
#include "tournament/play.h"
#include "tournament/stage.h"
#include "tournament/states.h"

struct org_stage {
        int64_t tournament;
        char *game;
        enum tour_state tournament_state;
        bool competitive;
        uint64_t seed;
        int64_t *tables;                /* the venue tables its matches are called to, in turn */
        size_t n_tables;
        json_t *match_config;           /* the tournament's runtime match config */
        json_t *confirm;                /* the stage's matches' confirm setting, or NULL */
        int64_t stage;                  /* stages.id */
        int number;
        enum tour_stage_state state;
        int advance;                    /* how many of the stage before go on; 0: everyone */
        bool next_started;              /* a later stage has started (from its standings) */
        struct tour_stage_config cfg;

        int n;                          /* entrants */
        int64_t *players;               /* entrant → player id */
        char **names;                   /* entrant → player name */
        struct tour_stage_entrant *entrants;

        size_t n_matches;
        struct tour_stage_match *matches;
        int64_t *match_ids;             /* stage_matches.id of matches[i] */
        enum store_match_state *match_states;
        int64_t *match_tables;          /* its venue table, 0: none */
        int64_t *runtime;               /* its runtime match, 0: not called */
        size_t n_byes;
        struct tour_bye *byes;

        struct tour_stage_input in;     /* points into the arrays above */
};

/* The stage of snap, in *ret (allocated; org_stage_free()).  0, or -EINVAL
 * (a snapshot that does not fit together: err says what) or -ENOMEM. */
int org_stage_from_snapshot(const struct store_stage_snapshot *snap, struct org_stage **ret, char *err, size_t len);
void org_stage_free(struct org_stage *d);

/* The stage (taken: org_stage_free() it) when result->outcome is ORG_DONE,
 * else NULL: ORG_NOT_FOUND when there is no such stage, ORG_INTERNAL when
 * the stored stage does not fit together. */
typedef void (*org_stage_fn)(void *userdata, const struct org_result *result, struct org_stage *stage);
/* Stage number of tournament. */
int org_stage_load(struct store *s, int64_t tournament, int number, org_stage_fn cb, void *userdata);
/* The stage of tournament that holds stage match id. */
int org_stage_load_of_match(struct store *s, int64_t tournament, int64_t match, org_stage_fn cb, void *userdata);

/* The index of stored match id, or -1. */
int org_stage_match(const struct org_stage *d, int64_t id);
/* The entrant number of player, or -1. */
int org_stage_entrant(const struct org_stage *d, int64_t player);

/* A stage's config (stages.config: the organiser's object, defaults
 * filled) for format.  0, or -EINVAL with a message naming the field in
 * err. */
int org_stage_config_from_json(const char *format, json_t *config, struct tour_stage_config *ret, char *err,
                               size_t len);
/* The config with every default spelled out. */
json_t *org_stage_config_to_json(const struct tour_stage_config *cfg);

/* One player's place in a result as it is entered: the API's "results"
 * member, decoded (api/bodies.h), before the match is known. */
struct org_result_entry {
        int64_t player;
        int rank;                       /* 1 (first) .. */
        double score;
        bool forfeit;
};

/* entries[0..n), in any order, as the result of stored match i: each of
 * the match's players once, ranks 1 to the number of players, a result
 * tournament/points.h accepts (tour_points_check_result); stored in seat
 * order.  0, or -EINVAL with err naming the field ("results[1].player: is
 * not in this match"). */
int org_stage_result_check(const struct org_stage *d, size_t i, const struct org_result_entry *entries, size_t n,
                           struct tour_result *ret, char *err, size_t len);
/* The stored result (stage_matches.result) of r over d's entrants. */
json_t *org_stage_result_json(const struct org_stage *d, const struct tour_result *r);

/* The standings document (stages.standings, what GET .../standings shows):
 * {stage, format, tiebreaks: [names], rows: [{rank, player, name, dropped,
 * points, played, won, drawn, lost, byes, game_win_pct, place, tiebreaks:
 * {name: value}[, group]}]}.  NULL with err. */
json_t *org_stage_standings_json(const struct org_stage *d, char *err, size_t len);

#endif
