/* organiser/registrations.c — registering, checking in, dropping.  See
 * registrations.h.
 *
 * Every call is two statements: the facts (store_registrations_facts),
 * which the rules of tournament/states.h judge, then the write, which
 * checks in the same statement that the facts it was decided on still hold.
 */
#include "organiser/registrations.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/tournaments.h"
#include "tournament/states.h"

/* "who" as api/ gives it (a token's name) and room to spare. */
#define WHO_MAX 128

struct reg {
        struct store *store;
        int64_t tournament, player;
        int seed;                       /* org_register */
        enum org_registration_change what;
        org_registrations_fn cb;
        void *userdata;
        char who[WHO_MAX];
        char detail[ORG_DETAIL_MAX];
};

static struct reg *reg_new(struct store *s, int64_t tournament, int64_t player, const char *who,
                           org_registrations_fn cb, void *userdata) {
        struct reg *c = calloc(1, sizeof *c);

        if (!c)
                return NULL;
        *c = (struct reg) { .store = s, .tournament = tournament, .player = player, .cb = cb, .userdata = userdata };
        snprintf(c->who, sizeof c->who, "%s", who ? who : "");
        return c;
}

static void reg_end(struct reg *c, const struct org_result *r, const struct store_registration_row *rows,
                    size_t n) {
        c->cb(c->userdata, r, r->outcome == ORG_DONE ? rows : NULL, r->outcome == ORG_DONE ? n : 0);
        free(c);
}

/* Ends the call with c->detail, formatted. */
__attribute__((format(printf, 3, 4)))
static void reg_refuse(struct reg *c, enum org_outcome outcome, const char *fmt, ...) {
        struct org_result r = { .outcome = outcome, .detail = c->detail };
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(c->detail, sizeof c->detail, fmt, ap);
        va_end(ap);
        reg_end(c, &r, NULL, 0);
}

static void reg_failed(struct reg *c, const struct store_error *failure, const char *error) {
        struct org_result r = { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };

        reg_end(c, &r, NULL, 0);
}

static void reg_unqueued(struct reg *c, int q) {
        struct store_error e;
        struct org_result r = org_result_unqueued(q, &e);

        reg_end(c, &r, NULL, 0);
}

/* The written registration, or a 409 when the facts changed under it. */
static void on_written(void *userdata, const struct store_registration_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct reg *c = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                reg_failed(c, failure, error);
        else if (n == 0)
                reg_refuse(c, ORG_CONFLICT, "the tournament changed meanwhile; try again");
        else
                reg_end(c, &r, rows, n);
}

/* The tournament's state and what entering now makes of a player; false
 * (the call ended) for a state arbiterd does not know. */
static bool entry_of(struct reg *c, const struct store_registration_facts *f, enum tour_state *ret_state,
                     enum tour_late *ret_late) {
        enum tour_format format = 0;

        if (tour_state_from_name(f->state, ret_state) < 0) {
                reg_refuse(c, ORG_INTERNAL, "the tournament is in a state arbiterd does not know (%.64s)", f->state);
                return false;
        }
        /* a format arbiterd does not know takes no late entries */
        if (f->running_format && tour_format_from_name(f->running_format, &format) < 0)
                format = 0;
        *ret_late = tour_late_entry(*ret_state, f->running_stage != 0, format);
        return true;
}

/* ---- registering ----------------------------------------------------------------- */

static void on_register_facts(void *userdata, const struct store_registration_facts *rows, size_t n,
                              const struct store_error *failure, const char *error) {
        struct reg *c = userdata;
        const struct store_registration_facts *f = rows;
        enum tour_state state;
        enum tour_late late;
        int q;

        if (failure) {
                reg_failed(c, failure, error);
                return;
        }
        if (n == 0) {
                reg_refuse(c, ORG_NOT_FOUND, "there is no tournament %" PRId64, c->tournament);
                return;
        }
        if (!f->player_exists) {
                reg_refuse(c, ORG_INVALID, "player: there is no such player");
                return;
        }
        if (!f->player_active) {
                reg_refuse(c, ORG_CONFLICT, "player: is not active (PATCH /v1/players/{id})");
                return;
        }
        if (!entry_of(c, f, &state, &late))
                return;
        if (!tour_state_registration_open(state)) {
                reg_refuse(c, ORG_CONFLICT, "registration is closed while the tournament is %s",
                           tour_state_name(state));
                return;
        }
        if (late == TOUR_LATE_REFUSED) {
                reg_refuse(c, ORG_CONFLICT, "the running stage (%.64s) takes no late entries", f->running_format);
                return;
        }
        if (f->registered) {
                reg_refuse(c, ORG_CONFLICT, "player: already registered");
                return;
        }
        /* a late entry is here, registered by whoever sees him: checked in */
        struct store_registration_new r = {
                .tournament = c->tournament,
                .player = c->player,
                .seed = c->seed,
                .checked_in = late != TOUR_LATE_NO,
                .late = late != TOUR_LATE_NO,
                .join_stage = late == TOUR_LATE_JOINS,
                .who = c->who,
        };
        struct store_registration_expect expect = { .state = f->state, .running_stage = f->running_stage };
        q = store_registrations_insert(c->store, &r, &expect, on_written, c);
        if (q < 0)
                reg_unqueued(c, q);
}

int org_register(struct store *s, const struct org_registration_new *r, org_registrations_fn cb, void *userdata) {
        struct reg *c;
        int q;

        if (r->seed < 0)
                return -EINVAL;
        c = reg_new(s, r->tournament, r->player, r->who, cb, userdata);
        if (!c)
                return -ENOMEM;
        c->seed = r->seed;
        q = store_registrations_facts(s, r->tournament, r->player, on_register_facts, c);
        if (q < 0)
                free(c);
        return q;
}

/* ---- check-in, drop, disqualify ----------------------------------------------------- */

static void on_change_facts(void *userdata, const struct store_registration_facts *rows, size_t n,
                            const struct store_error *failure, const char *error) {
        struct reg *c = userdata;
        const struct store_registration_facts *f = rows;
        struct store_registration_expect expect;
        enum tour_reg_status status;
        enum tour_state state;
        enum tour_late late;
        int q;

        if (failure) {
                reg_failed(c, failure, error);
                return;
        }
        if (n == 0) {
                reg_refuse(c, ORG_NOT_FOUND, "there is no tournament %" PRId64, c->tournament);
                return;
        }
        if (!f->registered) {
                reg_refuse(c, ORG_NOT_FOUND, "player %" PRId64 " is not registered", c->player);
                return;
        }
        if (!entry_of(c, f, &state, &late))
                return;
        if (tour_reg_status_from_name(f->status, &status) < 0) {
                reg_refuse(c, ORG_INTERNAL, "the registration has a status arbiterd does not know (%.64s)",
                           f->status);
                return;
        }
        expect = (struct store_registration_expect) { .state = f->state, .running_stage = f->running_stage };
        if (c->what == ORG_CHECK_IN) {
                if (!tour_state_check_in_open(state)) {
                        if (state == TOUR_STATE_FINISHED)
                                reg_refuse(c, ORG_CONFLICT, "the tournament is finished");
                        else
                                reg_refuse(c, ORG_CONFLICT, "check-in opens with the check_in state "
                                           "(POST /v1/tournaments/%" PRId64 "/state); the tournament is in %s",
                                           c->tournament, tour_state_name(state));
                        return;
                }
                if (status != TOUR_REG_ACTIVE) {
                        reg_refuse(c, ORG_CONFLICT, "the player is %s", tour_reg_status_name(status));
                        return;
                }
                /* arriving for the first time while a stage that takes late
                 * entries runs: a late entry into it, as registering now
                 * would be; a second check-in changes nothing */
                bool join = !f->checked_in && !f->in_running_stage && late == TOUR_LATE_JOINS;
                q = store_registrations_check_in(c->store, c->tournament, c->player, f->checked_in, join, &expect,
                                                 c->who, on_written, c);
        } else {
                if (!tour_state_drop_open(state)) {
                        reg_refuse(c, ORG_CONFLICT, "the tournament is finished");
                        return;
                }
                if (status != TOUR_REG_ACTIVE) {
                        reg_refuse(c, ORG_CONFLICT, "the player is already %s", tour_reg_status_name(status));
                        return;
                }
                q = store_registrations_set_status(c->store, c->tournament, c->player,
                                                   tour_reg_status_name(c->what == ORG_DROP ? TOUR_REG_DROPPED
                                                                                            : TOUR_REG_DISQUALIFIED),
                                                   f->state, c->who, on_written, c);
        }
        if (q < 0)
                reg_unqueued(c, q);
}

int org_registration_change(struct store *s, int64_t tournament, int64_t player, enum org_registration_change what,
                            const char *who, org_registrations_fn cb, void *userdata) {
        struct reg *c;
        int q;

        if (what != ORG_CHECK_IN && what != ORG_DROP && what != ORG_DISQUALIFY)
                return -EINVAL;
        c = reg_new(s, tournament, player, who, cb, userdata);
        if (!c)
                return -ENOMEM;
        c->what = what;
        q = store_registrations_facts(s, tournament, player, on_change_facts, c);
        if (q < 0)
                free(c);
        return q;
}

/* ---- the list -------------------------------------------------------------------- */

static void on_list(void *userdata, const struct store_registration_row *rows, size_t n,
                    const struct store_error *failure, const char *error) {
        struct reg *c = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                reg_failed(c, failure, error);
        else
                reg_end(c, &r, rows, n);
}

static void on_list_facts(void *userdata, const struct store_tournament_facts *rows, size_t n,
                          const struct store_error *failure, const char *error) {
        struct reg *c = userdata;
        int q;

        (void) rows;
        if (failure) {
                reg_failed(c, failure, error);
                return;
        }
        if (n == 0) {
                reg_refuse(c, ORG_NOT_FOUND, "there is no tournament %" PRId64, c->tournament);
                return;
        }
        q = store_registrations_list(c->store, c->tournament, on_list, c);
        if (q < 0)
                reg_unqueued(c, q);
}

int org_registrations_list(struct store *s, int64_t tournament, org_registrations_fn cb, void *userdata) {
        struct reg *c = reg_new(s, tournament, 0, NULL, cb, userdata);
        int q;

        if (!c)
                return -ENOMEM;
        q = store_tournaments_facts(s, tournament, on_list_facts, c);
        if (q < 0)
                free(c);
        return q;
}
