/* tools/arbiter-bots/table.h — the table the bots sit at, through the REST
 * API: finding it by name, the live match at it, and making, starting or
 * aborting the matches the bots host there (--keep-playing).
 *
 * Each function logs what went wrong, with the daemon's own words for a
 * refused request, and returns -errno: -ENOENT for what is not there,
 * -EPROTO for an unexpected HTTP status, or rest.h's errors.
 */
#ifndef ARBITER_BOTS_TABLE_H
#define ARBITER_BOTS_TABLE_H

#include <stddef.h>
#include <jansson.h>

#include "tools/arbiter-bots/rest.h"

struct table {
        json_int_t id;
        unsigned n_seats;
};

/* The table called name (GET /v1/tables); -ENOENT, not logged, when there
 * is none (yet: make run creates it once the daemon is up). */
int table_find(struct rest *r, const char *name, struct table *ret);

/* The oldest running or paused match at table (GET /v1/matches): 0 with
 * *ret_id, or 0 with *ret_id 0 when none is. */
int table_live_match(struct rest *r, json_int_t table, json_int_t *ret_id);

/* GET /v1/matches/{id}: 0 with *ret_match (a new reference). */
int table_match(struct rest *r, json_int_t id, json_t **ret_match);

/* Creates a match of game at table with players seated 1..n and config
 * (NULL: the game's defaults), and starts it: 0 with *ret_id. */
int table_new_match(struct rest *r, json_int_t table, const char *game, const char *const *players, size_t n,
                    json_t *config, json_int_t *ret_id);

/* POST /v1/matches/{id}/abort. */
int table_abort(struct rest *r, json_int_t id);

#endif
