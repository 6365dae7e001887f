/* api/query.c — see query.h. */
#include "api/query.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/problem.h"
#include "api/sse.h"
#include "common/venue.h"

/* Room for a formatted detail: api/problem.c's limit. */
#define DETAIL_MAX 1024

static int __attribute__((format(printf, 2, 3))) fail(json_t **ret_problem, const char *fmt, ...) {
        char detail[DETAIL_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        *ret_problem = problem_new(MHD_HTTP_BAD_REQUEST, "%s", detail);
        return -EINVAL;
}

static const char *get(const struct api_query *q, const char *key) {
        return q->get(q->userdata, key);
}

/* A whole decimal number min..max: no sign beyond strtoll's, nothing after it. */
static bool parse_count(const char *s, long long min, long long max, long long *ret) {
        char *end;
        long long v;

        if (!s || !*s)
                return false;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return false;
        *ret = v;
        return true;
}

int query_page(const struct api_query *q, struct query_page *ret, json_t **ret_problem) {
        const char *limit = get(q, "limit"), *after = get(q, "after");

        *ret_problem = NULL;
        ret->limit = QUERY_PAGE_LIMIT_DEFAULT;
        ret->after = 0;
        if (limit && !parse_count(limit, 1, QUERY_PAGE_LIMIT_MAX, &ret->limit))
                return fail(ret_problem, "limit must be a whole number from 1 to %d", QUERY_PAGE_LIMIT_MAX);
        if (after && !parse_count(after, 0, INT64_MAX, &ret->after))
                return fail(ret_problem, "after must be the id of the last item of the previous page");
        return 0;
}

int query_matches(const struct api_query *q, struct query_matches *ret, json_t **ret_problem) {
        static const char *const states[] = { "ready", "running", "paused", "provisional", "finished", "aborted" };
        const char *state = get(q, "state"), *order = get(q, "order");
        bool known = !state;

        *ret_problem = NULL;
        for (size_t i = 0; state && i < sizeof states / sizeof states[0]; i++)
                known |= strcmp(state, states[i]) == 0;
        if (!known)
                return fail(ret_problem, "state: must be ready, running, paused, provisional, finished or aborted");
        if (order && strcmp(order, "asc") != 0 && strcmp(order, "desc") != 0)
                return fail(ret_problem, "order: must be asc (oldest first, the default) or desc (newest first)");
        ret->state = state;
        ret->order = order;
        return 0;
}

int query_tables(const struct api_query *q, struct query_tables *ret, json_t **ret_problem) {
        const char *venue = get(q, "venue");

        *ret_problem = NULL;
        if (venue && !venue_id_valid(venue))
                return fail(ret_problem, "venue: must be a venue's id (" VENUE_ID_RULE "), as GET /v1/venues "
                            "lists them");
        ret->venue = venue;
        return 0;
}

int query_ratings(const struct api_query *q, struct query_ratings *ret, json_t **ret_problem) {
        const char *game = get(q, "game"), *system = get(q, "system");

        *ret_problem = NULL;
        if (system && strcmp(system, "openskill") != 0 && strcmp(system, "glicko2") != 0)
                return fail(ret_problem, "system: must be openskill or glicko2");
        if (game && (strlen(game) < 1 || strlen(game) > QUERY_GAME_MAX))
                return fail(ret_problem, "game: must name a game, as in GET /v1/games");
        ret->system = system;
        ret->game = game;
        return 0;
}

/* NULL, or a whole number 1..10^6 written plainly. */
static bool positive_or_null(const char *s) {
        char *end;
        long v;

        if (!s)
                return true;
        v = strtol(s, &end, 10);
        return *s >= '1' && *s <= '9' && !*end && v <= QUERY_NUMBER_MAX;
}

int query_stage_matches(const struct api_query *q, struct query_stage_matches *ret, json_t **ret_problem) {
        const char *stage = get(q, "stage"), *round = get(q, "round"), *state = get(q, "state");

        *ret_problem = NULL;
        if (!positive_or_null(stage) || !positive_or_null(round))
                return fail(ret_problem, "stage and round: must be whole numbers from 1");
        if (state && strcmp(state, "pending") != 0 && strcmp(state, "called") != 0 && strcmp(state, "done") != 0)
                return fail(ret_problem, "state: must be pending, called or done");
        ret->stage = stage;
        ret->round = round;
        ret->state = state;
        return 0;
}

int query_stage_format(const struct api_query *q, struct query_stage_format *ret, json_t **ret_problem) {
        const char *stage = get(q, "stage"), *format = get(q, "format");
        char *end;

        *ret_problem = NULL;
        if (stage && (*stage < '1' || *stage > '9' || strtol(stage, &end, 10) > QUERY_STAGE_MAX || *end))
                return fail(ret_problem, "stage: must be a stage number from 1");
        if (format && strcmp(format, "csv") != 0 && strcmp(format, "json") != 0)
                return fail(ret_problem, "format: must be json or csv");
        ret->stage = stage;
        ret->csv = format && strcmp(format, "csv") == 0;
        return 0;
}

int query_recompute(const struct api_query *q, bool *ret, json_t **ret_problem) {
        const char *recompute = get(q, "recompute");

        *ret_problem = NULL;
        if (recompute && strcmp(recompute, "true") != 0 && strcmp(recompute, "false") != 0)
                return fail(ret_problem, "recompute: must be true or false");
        *ret = recompute && strcmp(recompute, "true") == 0;
        return 0;
}

/* YYYY-MM-DD, or NULL.  Digits only where digits go: sscanf alone lets
 * "2024-+1-01" and "2024- 1-01" through, which the database then refuses
 * (a 500 instead of this 400). */
static int date_param(const struct api_query *q, const char *name, const char **ret, json_t **ret_problem) {
        static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        const char *v = get(q, name);
        int y, m, d, n = 0;

        *ret = v;
        if (!v)
                return 0;
        if (strlen(v) != 10 || strspn(v, "0123456789") != 4 || strspn(v + 5, "0123456789") != 2 ||
            strspn(v + 8, "0123456789") != 2 ||
            sscanf(v, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || v[n] || y < QUERY_YEAR_MIN ||
            m < 1 || m > 12 || d < 1 || d > days[m - 1] ||
            (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))))
                return fail(ret_problem, "%s: must be a date YYYY-MM-DD (UTC)", name);
        return 0;
}

int query_leaderboard(const struct api_query *q, struct query_leaderboard *ret, json_t **ret_problem) {
        const char *system = get(q, "system");

        *ret_problem = NULL;
        if (system && strcmp(system, "openskill") != 0 && strcmp(system, "glicko2") != 0)
                return fail(ret_problem, "system: must be openskill (every match) or glicko2 (duels)");
        if (date_param(q, "from", &ret->from, ret_problem) < 0 || date_param(q, "to", &ret->to, ret_problem) < 0)
                return -EINVAL;
        ret->system = system;
        ret->glicko2 = system && strcmp(system, "glicko2") == 0;
        return 0;
}

int query_topic(const char *topic, json_t **ret_problem) {
        *ret_problem = NULL;
        if (topic && *topic && !sse_name_valid(topic, SSE_TOPIC_MAX))
                return fail(ret_problem, "topic must be a topic or topic prefix such as \"pads\" or \"match/42\" "
                            "(printable, no blanks, at most %d bytes)", SSE_TOPIC_MAX);
        return 0;
}
