/* common/errbuf.h — one-line error messages into a caller's buffer.
 *
 * Parsers (configuration, migrations) report "what is wrong and what to do"
 * into a char buffer the caller owns; err may be NULL or errlen 0 when the
 * caller only wants the verdict. */
#ifndef ARBITER_COMMON_ERRBUF_H
#define ARBITER_COMMON_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4)))
static inline void errbuf_set(char *err, size_t errlen, const char *fmt, ...) {
        va_list ap;

        if (!err || errlen == 0)
                return;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
}

#endif
