/* tournament/states.c — a tournament's states and what they open
 * (tournament/states.h). */
#include <errno.h>
#include <string.h>

#include "tournament/states.h"

static const char *const st_names[] = {
        [TOUR_STATE_DRAFT]              = "draft",
        [TOUR_STATE_REGISTRATION]       = "registration",
        [TOUR_STATE_CHECK_IN]           = "check_in",
        [TOUR_STATE_RUNNING]            = "running",
        [TOUR_STATE_FINISHED]           = "finished",
};

const char *tour_state_name(enum tour_state state) {
        if ((int) state < TOUR_STATE_DRAFT || (int) state > TOUR_STATE_LAST)
                return NULL;
        return st_names[state];
}

int tour_state_from_name(const char *name, enum tour_state *ret_state) {
        if (!name || !ret_state)
                return -EINVAL;
        for (int s = TOUR_STATE_DRAFT; s <= TOUR_STATE_LAST; s++)
                if (strcmp(name, st_names[s]) == 0) {
                        *ret_state = (enum tour_state) s;
                        return 0;
                }
        return -EINVAL;
}

bool tour_state_check_in_open(enum tour_state state) {
        return state == TOUR_STATE_CHECK_IN || state == TOUR_STATE_RUNNING;
}
