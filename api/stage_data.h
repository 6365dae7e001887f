/* api/stage_data.h — one tournament stage as the pure tournament/stage.h
 * module sees it, read from the database's JSON, and the JSON of what it
 * computes (internal to api/).
 *
 * The stage's entrants are players; entrant i is players[i] (stages.entrants
 * in seeding order).  A stored result [{player, rank, score, forfeit}] in
 * seat order becomes a struct tour_result over entrant numbers.
 *
 * Ownership: stage_data_load() fills a struct whose arrays it owns;
 * stage_data_free() releases them (a zeroed struct is fine). */
#ifndef ARBITER_API_STAGE_DATA_H
#define ARBITER_API_STAGE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "tournament/stage.h"

/* The snapshot of stage number $2 of tournament $1 as one JSON column, or
 * no row.  $2 NULL: the stage of stage match $3, or with $3 NULL too the
 * first stage that is not finished, else the last that started. */
#define STAGE_DATA_SQL \
        "SELECT jsonb_build_object(" \
        "  'tournament', jsonb_build_object('id', t.id, 'game', t.game, 'seed', t.seed, 'state', t.state, " \
        "                 'tables', to_jsonb(t.tables), 'match_config', t.match_config), " \
        "  'stage', jsonb_build_object('id', s.id, 'number', s.number, 'format', s.format, 'config', s.config, " \
        "           'advance', s.advance, 'state', s.state, 'confirm', s.confirm, " \
        "           'last', NOT EXISTS (SELECT 1 FROM stages s2 WHERE s2.tournament_id = t.id AND s2.number > s.number), " \
        "           'next_started', EXISTS (SELECT 1 FROM stages s2 WHERE s2.tournament_id = t.id " \
        "                                   AND s2.number > s.number AND s2.state <> 'pending')), " \
        "  'entrants', (SELECT coalesce(jsonb_agg(jsonb_build_object('player', e.pid, 'name', p.name, " \
        "                 'status', coalesce(r.status, 'active'), 'rating', coalesce(rt.mu - 3 * rt.sigma, 0)) " \
        "                 ORDER BY e.ord), '[]'::jsonb) " \
        "               FROM unnest(s.entrants) WITH ORDINALITY e(pid, ord) JOIN players p ON p.id = e.pid " \
        "               LEFT JOIN registrations r ON r.tournament_id = t.id AND r.player_id = e.pid " \
        "               LEFT JOIN ratings rt ON rt.game = t.game AND rt.player_id = e.pid), " \
        "  'matches', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'round', m.round, 'table', m.table_no, " \
        "                 'bracket_id', m.bracket_id, 'participants', to_jsonb(m.participants), 'state', m.state, " \
        "                 'result', m.result, 'table_id', m.table_id, 'match_id', m.match_id) ORDER BY m.id), '[]'::jsonb) " \
        "              FROM stage_matches m WHERE m.stage_id = s.id), " \
        "  'byes', (SELECT coalesce(jsonb_agg(jsonb_build_object('round', b.round, 'player', b.player_id)), " \
        "              '[]'::jsonb) FROM stage_byes b WHERE b.stage_id = s.id)) " \
        "FROM tournaments t JOIN stages s ON s.tournament_id = t.id " \
        "WHERE t.id = $1 AND s.number = coalesce($2::int, " \
        "  (SELECT s3.number FROM stage_matches m3 JOIN stages s3 ON s3.id = m3.stage_id " \
        "   WHERE m3.id = $3::bigint AND s3.tournament_id = $1), " \
        "  (SELECT min(number) FROM stages WHERE tournament_id = $1 AND state <> 'finished' AND $3::bigint IS NULL), " \
        "  (SELECT max(number) FROM stages WHERE tournament_id = $1 AND state <> 'pending' AND $3::bigint IS NULL))"
extern const char stage_data_sql[];

#define STAGE_STATE_MAX 16

struct stage_data {
        int64_t tournament;
        char game[64];
        char tournament_state[STAGE_STATE_MAX];
        uint64_t seed;
        json_t *tables;                 /* tournaments.tables, as JSON (owned) */
        json_t *match_config;           /* owned */
        json_t *confirm;                /* the stage's matches' confirm, or NULL (owned) */
        int64_t stage;                  /* stages.id */
        int number;
        char state[STAGE_STATE_MAX];    /* pending, running, finished */
        bool last;                      /* no stage after it */
        bool next_started;              /* a later stage has started (from its standings) */
        int advance;                    /* 0: everyone */
        struct tour_stage_config cfg;

        int n;                          /* entrants */
        int64_t *players;               /* entrant → player id */
        char **names;                   /* entrant → player name */
        struct tour_stage_entrant *entrants;

        size_t n_matches;
        struct tour_stage_match *matches;
        int64_t *match_ids;             /* stage_matches.id of matches[i] */
        char (*match_states)[STAGE_STATE_MAX];  /* pending, called, done */
        int64_t *match_tables;          /* its venue table, 0: none */
        int64_t *runtime;               /* its runtime match, 0: not called */
        size_t n_byes;
        struct tour_bye *byes;

        struct tour_stage_input in;     /* points into the arrays above */
};

/* Parses a stage's config (stages.config: the organiser's object, defaults
 * filled) for format.  0, or -EINVAL with a message naming the field in err. */
int stage_config_from_json(const char *format, json_t *config, struct tour_stage_config *ret, char *err,
                           size_t len);

/* The config with every default spelled out: what GET shows. */
json_t *stage_config_to_json(const struct tour_stage_config *cfg);

/* Parses the snapshot (stage_data_sql's column).  0 or -EINVAL/-ENOMEM
 * with err. */
int stage_data_parse(json_t *snapshot, struct stage_data *ret, char *err, size_t len);
void stage_data_free(struct stage_data *d);

/* The index of stored match id, or -1. */
int stage_data_match(const struct stage_data *d, int64_t id);

/* The entrant number of player, or -1. */
int stage_data_entrant(const struct stage_data *d, int64_t player);

/* The stored-result JSON of a tour_result over d's entrants. */
json_t *stage_data_result_json(const struct stage_data *d, const struct tour_result *r);

/* Parses results [{player, rank, score?, forfeit?}] for stored match i
 * (players exactly the match's, in any order; stored in seat order).
 * 0, or -EINVAL with err naming the field. */
int stage_data_result_from_json(const struct stage_data *d, size_t i, json_t *results, struct tour_result *ret,
                                char *err, size_t len);

/* The standings as JSON: {stage, format, tiebreaks: [names], rows: [{rank,
 * player, name, dropped, points, played, won, drawn, lost, byes,
 * game_win_pct, place, tiebreaks: {name: value}}]}.  NULL with err. */
json_t *stage_data_standings(const struct stage_data *d, char *err, size_t len);

#endif
