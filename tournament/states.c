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

static bool st_valid(enum tour_state state) {
        return (int) state >= TOUR_STATE_DRAFT && (int) state <= TOUR_STATE_LAST;
}

const char *tour_state_name(enum tour_state state) {
        return st_valid(state) ? st_names[state] : NULL;
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

/* ---- moves ------------------------------------------------------------------- */

/* What a move needs of the facts. */
enum st_needs {
        NEEDS_NOTHING,
        NEEDS_NOBODY_REGISTERED,
        NEEDS_REGISTRATIONS,            /* TOUR_STATE_MIN_PLAYERS registrations */
        NEEDS_NO_MATCH_MADE,
        NEEDS_STAGE_AND_CHECKED_IN,     /* a stage, TOUR_STATE_MIN_PLAYERS checked in */
        NEEDS_STAGES_FINISHED,
};

/* The arrows of the diagram in states.h, in its order. */
static const struct {
        enum tour_state from, to;
        enum st_needs needs;
} st_moves[] = {
        { TOUR_STATE_DRAFT, TOUR_STATE_REGISTRATION, NEEDS_NOTHING },
        { TOUR_STATE_REGISTRATION, TOUR_STATE_DRAFT, NEEDS_NOBODY_REGISTERED },
        { TOUR_STATE_REGISTRATION, TOUR_STATE_CHECK_IN, NEEDS_REGISTRATIONS },
        { TOUR_STATE_CHECK_IN, TOUR_STATE_REGISTRATION, NEEDS_NO_MATCH_MADE },
        { TOUR_STATE_CHECK_IN, TOUR_STATE_RUNNING, NEEDS_STAGE_AND_CHECKED_IN },
        { TOUR_STATE_RUNNING, TOUR_STATE_CHECK_IN, NEEDS_NO_MATCH_MADE },
        { TOUR_STATE_RUNNING, TOUR_STATE_FINISHED, NEEDS_STAGES_FINISHED },
        { TOUR_STATE_FINISHED, TOUR_STATE_RUNNING, NEEDS_NOTHING },
};
#define ST_N_MOVES (sizeof st_moves / sizeof st_moves[0])

static const char *const st_needs_words[] = {
        [NEEDS_NOTHING]                 = NULL,
        [NEEDS_NOBODY_REGISTERED]       = "nobody registered",
        [NEEDS_REGISTRATIONS]           = "two or more registrations",
        [NEEDS_NO_MATCH_MADE]           = "no match made by any stage",
        [NEEDS_STAGE_AND_CHECKED_IN]    = "a stage and two or more checked-in players",
        [NEEDS_STAGES_FINISHED]         = "every stage finished",
};

/* The arrow from → to, or -1. */
static int st_move(enum tour_state from, enum tour_state to) {
        for (size_t i = 0; i < ST_N_MOVES; i++)
                if (st_moves[i].from == from && st_moves[i].to == to)
                        return (int) i;
        return -1;
}

size_t tour_state_moves(enum tour_state from, enum tour_state ret[TOUR_STATE_LAST]) {
        size_t n = 0;

        for (size_t i = 0; i < ST_N_MOVES && n < TOUR_STATE_LAST; i++)
                if (st_moves[i].from == from)
                        ret[n++] = st_moves[i].to;
        return n;
}

enum tour_move_check tour_state_move_check(enum tour_state from, enum tour_state to,
                                           const struct tour_state_facts *f) {
        int m = st_move(from, to);
        bool ok;

        if (m < 0)
                return TOUR_MOVE_NO_SUCH_MOVE;
        switch (st_moves[m].needs) {
        case NEEDS_NOTHING:
                ok = true;
                break;
        case NEEDS_NOBODY_REGISTERED:
                ok = f->registrations == 0;
                break;
        case NEEDS_REGISTRATIONS:
                ok = f->registrations >= TOUR_STATE_MIN_PLAYERS;
                break;
        case NEEDS_NO_MATCH_MADE:
                ok = f->matches_made == 0;
                break;
        case NEEDS_STAGE_AND_CHECKED_IN:
                ok = f->stages >= 1 && f->checked_in >= TOUR_STATE_MIN_PLAYERS;
                break;
        case NEEDS_STAGES_FINISHED:
                ok = f->stages >= 1 && f->open_stages == 0;
                break;
        default:
                ok = false;
                break;
        }
        return ok ? TOUR_MOVE_ALLOWED : TOUR_MOVE_NOT_READY;
}

const char *tour_state_move_needs(enum tour_state from, enum tour_state to) {
        int m = st_move(from, to);

        return m < 0 ? NULL : st_needs_words[st_moves[m].needs];
}

bool tour_state_move_begins_epoch(enum tour_state from, enum tour_state to) {
        return from == TOUR_STATE_FINISHED && to == TOUR_STATE_RUNNING;
}

/* ---- players ------------------------------------------------------------------ */

static const char *const reg_names[] = {
        [TOUR_REG_ACTIVE]               = "active",
        [TOUR_REG_DROPPED]              = "dropped",
        [TOUR_REG_DISQUALIFIED]         = "disqualified",
};

const char *tour_reg_status_name(enum tour_reg_status status) {
        if ((int) status < TOUR_REG_ACTIVE || (int) status > TOUR_REG_DISQUALIFIED)
                return NULL;
        return reg_names[status];
}

int tour_reg_status_from_name(const char *name, enum tour_reg_status *ret_status) {
        if (!name || !ret_status)
                return -EINVAL;
        for (int s = TOUR_REG_ACTIVE; s <= TOUR_REG_DISQUALIFIED; s++)
                if (strcmp(name, reg_names[s]) == 0) {
                        *ret_status = (enum tour_reg_status) s;
                        return 0;
                }
        return -EINVAL;
}

bool tour_state_registration_open(enum tour_state state) {
        return state == TOUR_STATE_REGISTRATION || state == TOUR_STATE_CHECK_IN || state == TOUR_STATE_RUNNING;
}

bool tour_state_check_in_open(enum tour_state state) {
        return state == TOUR_STATE_CHECK_IN || state == TOUR_STATE_RUNNING;
}

bool tour_state_drop_open(enum tour_state state) {
        return st_valid(state) && state != TOUR_STATE_FINISHED;
}

enum tour_late tour_late_entry(enum tour_state state, bool stage_running, enum tour_format format) {
        if (state != TOUR_STATE_RUNNING)
                return TOUR_LATE_NO;
        if (!stage_running)
                return TOUR_LATE_WAITS;
        return tour_format_takes_late_entries(format) ? TOUR_LATE_JOINS : TOUR_LATE_REFUSED;
}

/* ---- fair draws ----------------------------------------------------------------- */

bool tour_state_plays(enum tour_state state) {
        return state == TOUR_STATE_RUNNING;
}

bool tour_state_takes_stages(enum tour_state state) {
        return st_valid(state) && state != TOUR_STATE_FINISHED;
}

bool tour_state_reveals_secrets(enum tour_state state) {
        return state == TOUR_STATE_FINISHED;
}

bool tour_secret_revealed(enum tour_state state, int epoch, int epochs) {
        if (epoch < 1 || epoch > epochs)
                return false;
        return epoch < epochs || tour_state_reveals_secrets(state);
}
