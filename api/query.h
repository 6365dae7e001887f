/* api/query.h — the query strings of the read routes, decoded (internal to
 * api/).
 *
 * Each decoder is pure: it asks q for the parameters it reads (the values
 * libmicrohttpd decoded from the request's query string, or a fuzzer's),
 * and gives typed values or a problem (api/problem.h, status 400, naming
 * the parameter first: "state: must be …").  No I/O, no connection, no
 * database.  A handler gets q from api_request_query() (api/handlers.h),
 * runs the decoder where it checked the parameters before, and replies
 * the problem as it comes; tests/fuzz/query_fuzz.c drives every decoder
 * with a q of its own, from a query string split and unescaped as
 * libmicrohttpd does.
 *
 * Every decoder returns 0 with *ret filled, or -EINVAL with *ret_problem a
 * new problem (NULL only when memory ran out: the handler then answers
 * 500).  Strings in *ret are q's (NULL: the parameter was not given).
 */
#ifndef ARBITER_API_QUERY_H
#define ARBITER_API_QUERY_H

#include <stdbool.h>
#include <jansson.h>

/* A page of a list: ?limit= (1..QUERY_PAGE_LIMIT_MAX, default
 * QUERY_PAGE_LIMIT_DEFAULT) items after ?after= (an id, default 0). */
#define QUERY_PAGE_LIMIT_DEFAULT        100
#define QUERY_PAGE_LIMIT_MAX            1000
/* ?stage= of the standings, bracket and results: 1..100000. */
#define QUERY_STAGE_MAX                 100000
/* ?stage= and ?round= of a tournament's matches: 1..10^6. */
#define QUERY_NUMBER_MAX                1000000
/* ?game= of a rating history: a game's name, 1..64 bytes. */
#define QUERY_GAME_MAX                  64
/* ?from= and ?to= of a leaderboard: dates from this year on. */
#define QUERY_YEAR_MIN                  1970

struct api_query {
        /* The value of parameter key, or NULL when it is not there. */
        const char *(*get)(void *userdata, const char *key);
        void *userdata;
};

/* ?limit= and ?after= (every list that pages). */
struct query_page {
        long long limit, after;
};
int query_page(const struct api_query *q, struct query_page *ret, json_t **ret_problem);

/* GET /v1/matches: ?state= (ready, running, paused, provisional, finished,
 * aborted) and ?order= (asc, desc); its page comes first. */
struct query_matches {
        const char *state;
        const char *order;              /* NULL, "asc" or "desc" */
};
int query_matches(const struct api_query *q, struct query_matches *ret, json_t **ret_problem);

/* GET /v1/tables: ?venue= (a venue id, common/venue.h; NULL: every
 * venue's); its page comes first. */
struct query_tables {
        const char *venue;
};
int query_tables(const struct api_query *q, struct query_tables *ret, json_t **ret_problem);

/* GET /v1/players/{id}/ratings: ?system= (openskill, glicko2), ?game=. */
struct query_ratings {
        const char *system, *game;
};
int query_ratings(const struct api_query *q, struct query_ratings *ret, json_t **ret_problem);

/* GET /v1/tournaments/{id}/matches: ?stage=, ?round= (1..10^6, written
 * plainly), ?state= (pending, called, done). */
struct query_stage_matches {
        const char *stage, *round, *state;
};
int query_stage_matches(const struct api_query *q, struct query_stage_matches *ret, json_t **ret_problem);

/* GET /v1/tournaments/{id}/standings, /bracket, /results: ?stage= (a stage
 * number, default: the current stage, else the last) and ?format= (json,
 * csv); the standings also take ?recompute= (true, false). */
struct query_stage_format {
        const char *stage;
        bool csv;
};
int query_stage_format(const struct api_query *q, struct query_stage_format *ret, json_t **ret_problem);
int query_recompute(const struct api_query *q, bool *ret, json_t **ret_problem);

/* GET /v1/leaderboards/{game}: ?system= (openskill, glicko2), ?from= and
 * ?to= (dates YYYY-MM-DD, UTC). */
struct query_leaderboard {
        const char *system;
        bool glicko2;
        const char *from, *to;
};
int query_leaderboard(const struct api_query *q, struct query_leaderboard *ret, json_t **ret_problem);

/* GET /v1/events: ?topic= (a topic or topic prefix, api/sse.h; NULL or ""
 * for every topic), checked where every stream's topic is
 * (api_events_stream). */
int query_topic(const char *topic, json_t **ret_problem);

#endif
