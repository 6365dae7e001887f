/* api/problem.c — see problem.h. */
#include "api/problem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <microhttpd.h>

#define PROBLEM_DETAIL_MAX 1024

const char *problem_reason(unsigned status) {
        const char *r = MHD_get_reason_phrase_for(status);
        return r && *r ? r : "Unknown";
}

json_t *problem_new(unsigned status, const char *detail_fmt, ...) {
        char detail[PROBLEM_DETAIL_MAX];
        va_list ap;

        va_start(ap, detail_fmt);
        vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);

        return json_pack("{s:s, s:s, s:i, s:s}",
                         "type", "about:blank",
                         "title", problem_reason(status),
                         "status", (json_int_t) status,
                         "detail", detail);
}

int problem_set(json_t *problem, const char *key, json_t *value) {
        return json_object_set_new(problem, key, value) == 0 ? 0 : -ENOMEM;
}
