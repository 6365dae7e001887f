/* common/number.c — strict numbers from text (number.h). */
#include "common/number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int number_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        char *end;
        unsigned long long v;

        if (!s)
                return -EINVAL;
        for (const char *p = s;; p++)
                if (*p != ' ' && *p != '\t') {
                        if (!*p || *p == '-')
                                return -EINVAL;
                        break;
                }
        errno = 0;
        v = strtoull(s, &end, 0);
        if (errno || *end || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

int number_parse_double(const char *s, double min, double max, double *ret) {
        char *end;
        double v;

        if (!s || !*s)
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (errno || *end || !isfinite(v) || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}
