/* common/number.h — numbers from text (command lines, scripts), strictly:
 * the whole string, in range, or an error.
 *
 * What it owns: nothing but the two parsers.  They take what strtoull and
 * strtod take (leading blanks; a u64 also in hex, 0x…) and nothing after
 * it: no minus on a u64 (strtoull would wrap it), no trailing text, no NaN
 * or infinity. */
#ifndef ARBITER_COMMON_NUMBER_H
#define ARBITER_COMMON_NUMBER_H

#include <stdint.h>

/* *ret = s as a whole number in [min, max]: 0, or -EINVAL (*ret unchanged). */
int number_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* *ret = s as a finite number in [min, max]: 0, or -EINVAL (*ret unchanged). */
int number_parse_double(const char *s, double min, double max, double *ret);

#endif
