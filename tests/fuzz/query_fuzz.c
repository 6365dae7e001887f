/* libFuzzer target: the query strings of the read routes (api/query.c).
 *
 * The input is a query string, the part of a request's target after "?".
 * It is split and unescaped as libmicrohttpd 0.9.75 does before any
 * handler sees it ('&' between parameters, '=' between name and value, a
 * name without '=' has no value, '+' is a space, then MHD_http_unescape)
 * and looked up as MHD_lookup_connection_value does (the first parameter
 * of that name, whatever its case).  Every decoder of api/query.h then
 * reads it, in the order its handler does.
 *
 * Invariants:
 *   - a decoder returns 0 and no problem, or -EINVAL and a 400 problem
 *     (type, title, status, a non-empty detail under 1024 bytes, nothing
 *     else) whose detail begins with the name of a parameter it reads that
 *     the query has;
 *   - what it accepts is exactly what an independent reading of its rule
 *     accepts: ?limit= 1..1000, ?after= 0..2^63-1; ?state=, ?order=,
 *     ?system=, ?format=, ?recompute= one of their words; ?game= 1..64
 *     bytes; ?venue= a venue's id (1..32 of a-z, 0-9, '_', '-', not
 *     starting with '_' or '-'); ?stage= and ?round= digits without a leading zero, at most
 *     10^6 (a tournament's matches) or 10^5 (standings); ?from= and ?to=
 *     four, two and two digits with dashes, a real date from 1970 on;
 *     ?topic= a topic filter (api/sse.h);
 *   - the strings it gives back are the query's own.
 *
 * tests/unit/test_fuzz_query.c replays tests/fuzz/corpus/query/ through
 * query_fuzz_check().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>
#include <microhttpd.h>

#include "api/problem.h"
#include "api/query.h"
#include "api/sse.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* api/problem.c's room for a detail, with its NUL. */
#define QUERY_DETAIL_MAX 1024
/* More parameters than any route reads, and then some. */
#define QUERY_MAX_PARAMS 64

struct query_fuzz_params {
        size_t n;
        char *key[QUERY_MAX_PARAMS];
        char *value[QUERY_MAX_PARAMS];  /* NULL: the name had no '=' */
        char *buf;
};

static void query_fuzz_unescape(char *s) {
        for (char *p = s; *p; p++)
                if (*p == '+')
                        *p = ' ';
        MHD_http_unescape(s);
}

static void query_fuzz_split(const uint8_t *data, size_t size, struct query_fuzz_params *q) {
        char *s;

        q->n = 0;
        q->buf = malloc(size + 1);
        FUZZ_ASSERT(q->buf);
        memcpy(q->buf, data, size);
        q->buf[size] = '\0';            /* the request line ends the target at its first NUL */
        s = q->buf;
        while (*s && q->n < QUERY_MAX_PARAMS) {
                char *amp = strchr(s, '&'), *eq;

                if (amp)
                        *amp = '\0';
                eq = strchr(s, '=');
                if (eq)
                        *eq = '\0';
                query_fuzz_unescape(s);
                if (eq)
                        query_fuzz_unescape(eq + 1);
                q->key[q->n] = s;
                q->value[q->n] = eq ? eq + 1 : NULL;
                q->n++;
                if (!amp)
                        break;
                s = amp + 1;
        }
}

static const char *query_fuzz_get(void *userdata, const char *key) {
        const struct query_fuzz_params *q = userdata;

        for (size_t i = 0; i < q->n; i++)
                if (strcasecmp(q->key[i], key) == 0)
                        return q->value[i];
        return NULL;
}

/* ---- the rules, read independently ------------------------------------------ */

static bool query_fuzz_digits(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

/* Digits, no leading zero, at most max. */
static bool query_fuzz_plain(const char *s, long max) {
        size_t n = strlen(s);

        return n >= 1 && n <= 7 && s[0] != '0' && query_fuzz_digits(s, n) && strtol(s, NULL, 10) <= max;
}

static bool query_fuzz_date(const char *s) {
        static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        int y, m, d;

        if (strlen(s) != 10 || s[4] != '-' || s[7] != '-' || !query_fuzz_digits(s, 4) ||
            !query_fuzz_digits(s + 5, 2) || !query_fuzz_digits(s + 8, 2))
                return false;
        y = atoi(s);
        m = atoi(s + 5);
        d = atoi(s + 8);
        if (y < QUERY_YEAR_MIN || m < 1 || m > 12 || d < 1)
                return false;
        return d <= days[m - 1] + (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
}

static bool query_fuzz_word(const char *s, const char *const *words) {
        for (; *words; words++)
                if (strcmp(s, *words) == 0)
                        return true;
        return false;
}

/* ---- checks ------------------------------------------------------------------- */

/* The outcome of one decoder: r and problem agree; a problem names first
 * one of the parameters (NULL-ended) that the query has. */
static void query_fuzz_outcome(int r, json_t *problem, const struct api_query *q, const char *const *keys) {
        const char *detail = json_string_value(json_object_get(problem, "detail"));
        bool named = false;

        FUZZ_ASSERT(r == 0 || r == -EINVAL);
        FUZZ_ASSERT((r == 0) == (problem == NULL));
        if (!problem)
                return;
        FUZZ_ASSERT(json_integer_value(json_object_get(problem, "status")) == 400);
        FUZZ_ASSERT(strcmp(json_string_value(json_object_get(problem, "type")), "about:blank") == 0);
        FUZZ_ASSERT(strcmp(json_string_value(json_object_get(problem, "title")), problem_reason(400)) == 0);
        FUZZ_ASSERT(json_object_size(problem) == 4);
        FUZZ_ASSERT(detail && *detail && strlen(detail) < QUERY_DETAIL_MAX);
        for (; *keys; keys++) {
                /* "stage and round" names round when there is no stage */
                const char *key = strcmp(*keys, "stage and round") == 0 ? "round" : *keys;

                named |= strncmp(detail, *keys, strlen(*keys)) == 0 && q->get(q->userdata, key);
        }
        FUZZ_ASSERT(named);
        json_decref(problem);
}

static void query_fuzz_page(const struct api_query *q) {
        static const char *const keys[] = { "limit", "after", NULL };
        const char *limit = q->get(q->userdata, "limit"), *after = q->get(q->userdata, "after");
        struct query_page page;
        json_t *problem;
        char *end;
        int r = query_page(q, &page, &problem);

        query_fuzz_outcome(r, problem, q, keys);
        if (r < 0) {
                FUZZ_ASSERT(limit || after);
                return;
        }
        FUZZ_ASSERT(page.limit >= 1 && page.limit <= QUERY_PAGE_LIMIT_MAX);
        FUZZ_ASSERT(page.after >= 0);
        FUZZ_ASSERT(limit ? page.limit == strtoll(limit, &end, 10) && !*end : page.limit == QUERY_PAGE_LIMIT_DEFAULT);
        FUZZ_ASSERT(after ? page.after == strtoll(after, &end, 10) && !*end : page.after == 0);
}

static void query_fuzz_matches(const struct api_query *q) {
        static const char *const keys[] = { "state", "order", NULL };
        static const char *const states[] = { "ready", "running", "paused", "provisional", "finished", "aborted",
                                              NULL };
        static const char *const orders[] = { "asc", "desc", NULL };
        const char *state = q->get(q->userdata, "state"), *order = q->get(q->userdata, "order");
        struct query_matches m;
        json_t *problem;
        int r = query_matches(q, &m, &problem);

        query_fuzz_outcome(r, problem, q, keys);
        FUZZ_ASSERT((r == 0) == ((!state || query_fuzz_word(state, states)) &&
                                 (!order || query_fuzz_word(order, orders))));
        FUZZ_ASSERT(r < 0 || (m.state == state && m.order == order));
}

/* ?venue=: a venue's id, ^[a-z0-9][a-z0-9_-]{0,31}$ written out again. */
static void query_fuzz_tables(const struct api_query *q) {
        static const char *const keys[] = { "venue", NULL };
        const char *venue = q->get(q->userdata, "venue");
        struct query_tables t;
        json_t *problem;
        bool valid = true;
        int r = query_tables(q, &t, &problem);

        if (venue) {
                size_t n = strlen(venue);
                valid = n >= 1 && n <= 32 && strspn(venue, "abcdefghijklmnopqrstuvwxyz0123456789") >= 1 &&
                        strspn(venue, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
        }
        query_fuzz_outcome(r, problem, q, keys);
        FUZZ_ASSERT((r == 0) == valid);
        FUZZ_ASSERT(r < 0 || t.venue == venue);
}

static void query_fuzz_ratings(const struct api_query *q) {
        static const char *const keys[] = { "system", "game", NULL };
        static const char *const systems[] = { "openskill", "glicko2", NULL };
        const char *system = q->get(q->userdata, "system"), *game = q->get(q->userdata, "game");
        struct query_ratings m;
        json_t *problem;
        int r = query_ratings(q, &m, &problem);

        query_fuzz_outcome(r, problem, q, keys);
        FUZZ_ASSERT((r == 0) == ((!system || query_fuzz_word(system, systems)) &&
                                 (!game || (strlen(game) >= 1 && strlen(game) <= QUERY_GAME_MAX))));
        FUZZ_ASSERT(r < 0 || (m.system == system && m.game == game));
}

static void query_fuzz_stage_matches(const struct api_query *q) {
        static const char *const keys[] = { "stage", "state", NULL };
        static const char *const round_keys[] = { "stage and round", "round", "state", NULL };
        static const char *const states[] = { "pending", "called", "done", NULL };
        const char *stage = q->get(q->userdata, "stage"), *round = q->get(q->userdata, "round"),
                   *state = q->get(q->userdata, "state");
        struct query_stage_matches m;
        json_t *problem;
        int r = query_stage_matches(q, &m, &problem);

        /* "stage and round: …" is about either */
        FUZZ_ASSERT(!problem || stage || round || state);
        query_fuzz_outcome(r, problem, q, stage || !round ? keys : round_keys);
        FUZZ_ASSERT((r == 0) == ((!stage || query_fuzz_plain(stage, QUERY_NUMBER_MAX)) &&
                                 (!round || query_fuzz_plain(round, QUERY_NUMBER_MAX)) &&
                                 (!state || query_fuzz_word(state, states))));
        FUZZ_ASSERT(r < 0 || (m.stage == stage && m.round == round && m.state == state));
}

static void query_fuzz_standings(const struct api_query *q) {
        static const char *const keys[] = { "stage", "format", NULL };
        static const char *const recompute_key[] = { "recompute", NULL };
        static const char *const formats[] = { "json", "csv", NULL };
        static const char *const bools[] = { "true", "false", NULL };
        const char *stage = q->get(q->userdata, "stage"), *format = q->get(q->userdata, "format"),
                   *recompute = q->get(q->userdata, "recompute");
        struct query_stage_format sf;
        json_t *problem;
        bool again;
        int r = query_stage_format(q, &sf, &problem);

        query_fuzz_outcome(r, problem, q, keys);
        FUZZ_ASSERT((r == 0) == ((!stage || query_fuzz_plain(stage, QUERY_STAGE_MAX)) &&
                                 (!format || query_fuzz_word(format, formats))));
        FUZZ_ASSERT(r < 0 || (sf.stage == stage && sf.csv == (format && strcmp(format, "csv") == 0)));
        r = query_recompute(q, &again, &problem);
        query_fuzz_outcome(r, problem, q, recompute_key);
        FUZZ_ASSERT((r == 0) == (!recompute || query_fuzz_word(recompute, bools)));
        FUZZ_ASSERT(r < 0 || again == (recompute && strcmp(recompute, "true") == 0));
}

static void query_fuzz_leaderboard(const struct api_query *q) {
        static const char *const keys[] = { "system", "from", "to", NULL };
        static const char *const systems[] = { "openskill", "glicko2", NULL };
        const char *system = q->get(q->userdata, "system"), *from = q->get(q->userdata, "from"),
                   *to = q->get(q->userdata, "to");
        struct query_leaderboard l;
        json_t *problem;
        int r = query_leaderboard(q, &l, &problem);

        query_fuzz_outcome(r, problem, q, keys);
        FUZZ_ASSERT((r == 0) == ((!system || query_fuzz_word(system, systems)) && (!from || query_fuzz_date(from)) &&
                                 (!to || query_fuzz_date(to))));
        FUZZ_ASSERT(r < 0 || (l.system == system && l.from == from && l.to == to &&
                              l.glicko2 == (system && strcmp(system, "glicko2") == 0)));
}

static void query_fuzz_topic(const struct api_query *q) {
        static const char *const keys[] = { "topic", NULL };
        const char *topic = q->get(q->userdata, "topic");
        json_t *problem;
        int r = query_topic(topic, &problem);
        bool valid = !topic || !*topic;

        if (!valid) {
                size_t n = strlen(topic);

                valid = n <= SSE_TOPIC_MAX;
                for (size_t i = 0; i < n; i++)
                        valid &= topic[i] > ' ' && topic[i] < 0x7f;
                FUZZ_ASSERT(valid == sse_name_valid(topic, SSE_TOPIC_MAX));
        }
        query_fuzz_outcome(r, problem, q, keys);
        FUZZ_ASSERT((r == 0) == valid);
}

static void query_fuzz_check(const uint8_t *data, size_t size) {
        struct query_fuzz_params params;
        struct api_query q = { .get = query_fuzz_get, .userdata = &params };

        query_fuzz_split(data, size, &params);
        query_fuzz_page(&q);
        query_fuzz_matches(&q);
        query_fuzz_tables(&q);
        query_fuzz_ratings(&q);
        query_fuzz_stage_matches(&q);
        query_fuzz_standings(&q);
        query_fuzz_leaderboard(&q);
        query_fuzz_topic(&q);
        free(params.buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        query_fuzz_check(data, size);
        return 0;
}
