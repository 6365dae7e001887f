/* tests/unit/test_engine_json.h — an eng_visitor that writes compact JSON
 * into a fixed buffer, so engine tests can look at views and outputs the
 * way api/ will serve them (api/ uses jansson; the engine tests stay
 * libc-only).  Strings are written as given: engine strings need no
 * escaping.  A walk that closes what it did not open (or an object as an
 * array) fails with -EPROTO rather than writing a wrong document, and
 * tj_balanced() says whether everything opened was closed. */
#ifndef ARBITER_TESTS_ENGINE_JSON_H
#define ARBITER_TESTS_ENGINE_JSON_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"

#define TJ_MAX          16384
#define TJ_DEPTH        16

struct tj {
        char buf[TJ_MAX];
        size_t len;
        int depth;
        bool first[TJ_DEPTH];
        char close[TJ_DEPTH];           /* what closes each open level: '}' or ']' */
};

static inline int tj_raw(struct tj *j, const char *s) {
        size_t n = strlen(s);

        if (j->len + n + 1 > sizeof j->buf)
                return -ENOBUFS;
        memcpy(j->buf + j->len, s, n + 1);
        j->len += n;
        return 0;
}

static inline int tj_key(struct tj *j, const char *key) {
        int r = 0;

        if (!j->first[j->depth])
                r = tj_raw(j, ",");
        j->first[j->depth] = false;
        if (r >= 0 && key) {
                r = tj_raw(j, "\"");
                if (r >= 0)
                        r = tj_raw(j, key);
                if (r >= 0)
                        r = tj_raw(j, "\":");
        }
        return r;
}

static inline int tj_open(struct tj *j, const char *key, const char *brace) {
        int r = tj_key(j, key);

        if (r >= 0)
                r = tj_raw(j, brace);
        if (r >= 0) {
                if (j->depth + 1 >= TJ_DEPTH)
                        return -E2BIG;
                j->first[++j->depth] = true;
                j->close[j->depth] = brace[0] == '{' ? '}' : ']';
        }
        return r;
}

static inline int tj_close(struct tj *j, const char *brace) {
        if (j->depth <= 0 || j->close[j->depth] != brace[0])
                return -EPROTO;
        j->depth--;
        return tj_raw(j, brace);
}

static inline int tj_object_begin(void *ctx, const char *key) {
        return tj_open(ctx, key, "{");
}

static inline int tj_array_begin(void *ctx, const char *key) {
        return tj_open(ctx, key, "[");
}

static inline int tj_object_end(void *ctx) {
        return tj_close(ctx, "}");
}

static inline int tj_array_end(void *ctx) {
        return tj_close(ctx, "]");
}

static inline int tj_integer(void *ctx, const char *key, int64_t value) {
        char num[32];
        int r = tj_key(ctx, key);

        snprintf(num, sizeof num, "%" PRId64, value);
        return r < 0 ? r : tj_raw(ctx, num);
}

static inline int tj_boolean(void *ctx, const char *key, bool value) {
        int r = tj_key(ctx, key);

        return r < 0 ? r : tj_raw(ctx, value ? "true" : "false");
}

static inline int tj_string(void *ctx, const char *key, const char *value) {
        int r = tj_key(ctx, key);

        if (r >= 0)
                r = tj_raw(ctx, "\"");
        if (r >= 0)
                r = tj_raw(ctx, value);
        return r < 0 ? r : tj_raw(ctx, "\"");
}

static inline int tj_null(void *ctx, const char *key) {
        int r = tj_key(ctx, key);

        return r < 0 ? r : tj_raw(ctx, "null");
}

static const struct eng_visitor tj_visitor = {
        .object_begin = tj_object_begin,
        .object_end = tj_object_end,
        .array_begin = tj_array_begin,
        .array_end = tj_array_end,
        .integer = tj_integer,
        .boolean = tj_boolean,
        .string = tj_string,
        .null = tj_null,
};

/* Starts the implicit root object. */
static inline void tj_init(struct tj *j) {
        memset(j, 0, sizeof *j);
        j->first[0] = true;
        tj_raw(j, "{");
}

static inline const char *tj_finish(struct tj *j) {
        tj_raw(j, "}");
        return j->buf;
}

/* Everything the walk opened it closed. */
static inline bool tj_balanced(const struct tj *j) {
        return j->depth == 0;
}

#endif
