/* organiser/registrations.h — the tournament service's calls on who plays:
 * registering a player, checking one in, dropping or disqualifying one,
 * and the list (docs/running-a-tournament.md, "Registration and check-in").
 *
 * The rules are tournament/states.h's: registration is open in
 * registration, check_in and running; check-in in check_in and running;
 * drops until the tournament is finished; and one rule of late entry
 * (tour_late_entry) for both ways a player can arrive once it runs:
 *   - registered while it runs: a late entry, checked in at once, and
 *     added to the running stage when its format takes late entries (409
 *     when the running stage takes none);
 *   - registered before, checked in for the first time while it runs:
 *     added to the running stage as a late entry when its format takes
 *     late entries, as a registration then would; otherwise only marked
 *     present (a later stage takes the players of the one before).
 * A second check-in changes nothing.
 *
 * Each call reads the facts (store_registrations_facts), decides, and
 * writes in one statement that holds only if the facts still do (the
 * tournament's state and running stage, the registration's status and
 * check-in): when they changed meanwhile the call ends ORG_CONFLICT without
 * writing ("the tournament changed meanwhile; try again").  It does not
 * publish events nor refresh the standings: its caller does
 * (api/tournaments.c: registration_changed, tour_refresh).
 *
 * Calls return 0, after which cb runs exactly once from the loop, or
 * -errno with nothing done and no callback: -ENOTCONN, -ENOMEM, -EINVAL.
 * Arguments are borrowed for the call only.
 */
#ifndef ARBITER_ORGANISER_REGISTRATIONS_H
#define ARBITER_ORGANISER_REGISTRATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "organiser/outcome.h"
#include "store/registrations.h"

struct store;

/* result->outcome ORG_DONE with rows[0..n) (one for a change, every
 * registration for the list); otherwise rows NULL, n 0. */
typedef void (*org_registrations_fn)(void *userdata, const struct org_result *result,
                                     const struct store_registration_row *rows, size_t n);

struct org_registration_new {
        int64_t tournament;
        int64_t player;
        int seed;                       /* the organiser's, 1 the best; 0: none */
        const char *who;
};

/* Registers a player.  ORG_NOT_FOUND for no such tournament, ORG_INVALID
 * for no such player, ORG_CONFLICT when the player is not active or
 * already registered, the state is closed, or the running stage takes no
 * late entries. */
int org_register(struct store *s, const struct org_registration_new *r, org_registrations_fn cb, void *userdata);

enum org_registration_change {
        ORG_CHECK_IN,
        ORG_DROP,
        ORG_DISQUALIFY,
};

/* Checks in, drops or disqualifies player.  ORG_NOT_FOUND for no such
 * tournament or a player not registered; ORG_CONFLICT when the state does
 * not allow it or the player was dropped or disqualified already. */
int org_registration_change(struct store *s, int64_t tournament, int64_t player, enum org_registration_change what,
                            const char *who, org_registrations_fn cb, void *userdata);

/* Every registration of tournament (store_registrations_list's order).
 * ORG_NOT_FOUND for no such tournament. */
int org_registrations_list(struct store *s, int64_t tournament, org_registrations_fn cb, void *userdata);

#endif
