/* api/stage_request.h — a request that works on one tournament stage
 * (internal to api/): the context api/rounds.c and api/match_results.c
 * carry through their chains of queries, and the stage snapshot it loads.
 *
 * Every function that takes a struct stage_req either continues the chain
 * or replies to the request and frees the context: a context is freed
 * exactly once, by whoever replies. */
#ifndef ARBITER_API_STAGE_REQUEST_H
#define ARBITER_API_STAGE_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "api/api.h"
#include "api/stage_data.h"
#include "api/tournaments.h"
#include "store/store.h"

/* A stage match as the API shows it; "s" must be its stage's row. */
#define STAGE_MATCH_JSON(m) \
        "jsonb_build_object('id', " m ".id, 'stage', s.number, 'round', " m ".round, 'table_no', " m ".table_no, " \
        "'bracket_id', " m ".bracket_id, 'state', " m ".state, 'table', " m ".table_id, 'match', " m ".match_id, " \
        "'participants', (SELECT jsonb_agg(jsonb_build_object('seat', x.ord, 'player', x.pid, 'name', p.name) " \
        "                 ORDER BY x.ord) FROM unnest(" m ".participants) WITH ORDINALITY x(pid, ord) " \
        "                 JOIN players p ON p.id = x.pid), " \
        "'result', " m ".result, 'recorded_at', " TOUR_TIME(m ".recorded_at") ", 'recorded_by', " m ".recorded_by)"

struct stage_req {
        struct api_request *req;
        int64_t id;                     /* tournament */
        int64_t match;                  /* stage match, for call/result/correction */
        struct stage_data d;
        int hops;                       /* finished stages walked through */
        /* Starting a later stage: its id, how many go on, its format (which
         * decides how the previous stage seeds it: tour_stage_advance). */
        int64_t starting;
        int advance;
        enum tour_format next_format;
        /* Calling a match: the call's attempt and the secret's epoch, the
         * identity its seed came from (tournaments.h, "Fair draws"). */
        int attempt, epoch;
};

/* NULL after replying 500. */
struct stage_req *stage_req_new(struct api_request *req, int64_t id, int64_t match);
void stage_req_free(struct stage_req *c);
/* Queries with c as the callback's userdata, or replies the store's error
 * and frees c. */
void stage_req_query(struct stage_req *c, const char *sql, int n, const char *const *p, store_result_fn fn);
/* Loads the snapshot of stage number (0: as stage_data_sql's rules) into
 * c->d, then calls next. */
void stage_req_load(struct stage_req *c, int number, store_result_fn next);
/* Parses the snapshot a store callback got into c->d; replies (none: 404
 * for a request about one match, else 409) and frees c, returning false,
 * when there is none or it does not parse. */
bool stage_req_snapshot(struct stage_req *c, const PGresult *res, const char *error, const char *none);

#endif
