/* common/venue.h — what a venue's id and name may be (docs/operations.md,
 * "Several venues"), for the configuration, the REST bodies and the store
 * alike: the rules of migrations/0010_venues.sql's CHECKs, so that a bad id
 * is refused with a message before the database sees it. */
#ifndef ARBITER_COMMON_VENUE_H
#define ARBITER_COMMON_VENUE_H

#include <stdbool.h>
#include <stddef.h>

/* venues.id ~ '^[a-z0-9][a-z0-9_-]{0,31}$' */
#define VENUE_ID_MAX            32
/* venues.name: length(name) BETWEEN 1 AND 64, in characters */
#define VENUE_NAME_MAX          64
/* The words a message about a bad id ends with. */
#define VENUE_ID_RULE           "1 to 32 of a-z, 0-9, '_' and '-', starting with a letter or digit"

static inline bool venue_id_valid(const char *id) {
        size_t n = 0;

        if (!id || !((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= '0' && id[0] <= '9')))
                return false;
        for (; id[n]; n++)
                if (n >= VENUE_ID_MAX ||
                    !((id[n] >= 'a' && id[n] <= 'z') || (id[n] >= '0' && id[n] <= '9') || id[n] == '_' || id[n] == '-'))
                        return false;
        return true;
}

/* Characters of UTF-8 text: the bytes that do not continue one. */
static inline size_t venue_name_chars(const char *s) {
        size_t n = 0;

        for (; s && *s; s++)
                if (((unsigned char) *s & 0xc0) != 0x80)
                        n++;
        return n;
}

#endif
