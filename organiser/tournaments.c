/* organiser/tournaments.c — creating a tournament and moving it through its
 * states.  See tournaments.h.
 *
 * A move is two statements: the facts (store_tournaments_facts), which
 * tour_state_move_check() judges, then the move itself, made only if the
 * tournament is still in the state and epoch the facts saw.
 */
#include "organiser/tournaments.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "organiser/draws.h"

/* ---- creation ---------------------------------------------------------------- */

struct create {
        org_tournament_fn cb;
        void *userdata;
};

static void on_created(void *userdata, const struct store_tournament_row *rows, size_t n,
                       const struct store_error *failure, const char *error) {
        struct create *c = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                r = (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };
        else if (n == 0)
                r = (struct org_result) { .outcome = ORG_INVALID,
                                          .detail = "tables: names a table that does not exist (GET /v1/tables)" };
        c->cb(c->userdata, &r, r.outcome == ORG_DONE ? &rows[0] : NULL);
        free(c);
}

int org_tournament_create(struct store *s, const struct org_tournament_new *t, org_tournament_fn cb,
                          void *userdata) {
        char secret[SEED_HEX_LEN + 1];
        struct create *c;
        uint64_t seed;
        int r;

        if (t->has_seed && (t->competitive || t->seed > (uint64_t) INT64_MAX))
                return -EINVAL;
        /* competitive: the secret is drawn and the seed (the stages' draws)
         * follows from it; otherwise both follow from the seed */
        if (t->competitive) {
                r = org_secret_new(true, 0, 1, secret);
                if (r == 0)
                        r = org_tournament_seed(secret, &seed);
        } else {
                r = 0;
                if (t->has_seed)
                        seed = t->seed;
                else if (getrandom(&seed, sizeof seed, 0) != (ssize_t) sizeof seed)
                        r = errno ? -errno : -EIO;
                seed &= (uint64_t) INT64_MAX;           /* tournaments.seed is a bigint */
                if (r == 0)
                        r = org_secret_new(false, seed, 1, secret);
        }
        if (r < 0)
                goto out;
        c = calloc(1, sizeof *c);
        if (!c) {
                r = -ENOMEM;
                goto out;
        }
        *c = (struct create) { .cb = cb, .userdata = userdata };
        struct store_tournament_new row = {
                .name = t->name,
                .game = t->game,
                .seed = (int64_t) (seed & (uint64_t) INT64_MAX),
                .competitive = t->competitive,
                .match_config = t->match_config,
                .tables = t->tables,
                .n_tables = t->n_tables,
                .secret = secret,
                .created_by = t->who,
        };
        r = store_tournaments_insert(s, &row, on_created, c);
        if (r < 0)
                free(c);
out:
        explicit_bzero(secret, sizeof secret);
        return r;
}

/* ---- moves ------------------------------------------------------------------- */

struct move {
        struct store *store;
        int64_t id;
        enum tour_state to;
        org_tournament_fn cb;
        void *userdata;
        char detail[ORG_DETAIL_MAX];
};

static void move_end(struct move *m, const struct org_result *r, const struct store_tournament_row *t) {
        m->cb(m->userdata, r, t);
        free(m);
}

static void move_refuse(struct move *m, enum org_outcome outcome) {
        struct org_result r = { .outcome = outcome, .detail = m->detail };

        move_end(m, &r, NULL);
}

static void on_moved(void *userdata, const struct store_tournament_row *rows, size_t n,
                     const struct store_error *failure, const char *error) {
        struct move *m = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure) {
                r = (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };
                move_end(m, &r, NULL);
        } else if (n == 0) {
                snprintf(m->detail, sizeof m->detail, "the tournament changed state meanwhile; try again");
                move_refuse(m, ORG_CONFLICT);
        } else {
                move_end(m, &r, &rows[0]);
        }
}

/* "registration, check_in": the states from may move to. */
static void moves_text(enum tour_state from, char *buf, size_t len) {
        enum tour_state to[TOUR_STATE_LAST];
        size_t n = tour_state_moves(from, to), k = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n && k < len; i++)
                k += (size_t) snprintf(buf + k, len - k, "%s%s", i ? ", " : "", tour_state_name(to[i]));
}

static void on_move_facts(void *userdata, const struct store_tournament_facts *rows, size_t n,
                          const struct store_error *failure, const char *error) {
        struct move *m = userdata;
        char allowed[ORG_DETAIL_MAX / 2], secret[SEED_HEX_LEN + 1];
        struct org_result res;
        struct store_error unqueued;
        struct tour_state_facts facts;
        enum tour_state from;
        bool reopen;
        int r;

        if (failure) {
                res = (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };
                move_end(m, &res, NULL);
                return;
        }
        if (n == 0) {
                snprintf(m->detail, sizeof m->detail, "there is no tournament %" PRId64, m->id);
                move_refuse(m, ORG_NOT_FOUND);
                return;
        }
        if (tour_state_from_name(rows[0].state, &from) < 0) {
                snprintf(m->detail, sizeof m->detail, "the tournament is in a state arbiterd does not know (%.64s)",
                         rows[0].state);
                move_refuse(m, ORG_INTERNAL);
                return;
        }
        facts = (struct tour_state_facts) {
                .registrations = rows[0].registrations,
                .checked_in = rows[0].checked_in,
                .stages = rows[0].stages,
                .open_stages = rows[0].open_stages,
                .matches_made = rows[0].matches_made,
        };
        switch (tour_state_move_check(from, m->to, &facts)) {
        case TOUR_MOVE_NO_SUCH_MOVE:
                moves_text(from, allowed, sizeof allowed);
                snprintf(m->detail, sizeof m->detail, "state: a tournament in %s can move to %s, not to %s",
                         tour_state_name(from), allowed[0] ? allowed : "nothing", tour_state_name(m->to));
                move_refuse(m, ORG_CONFLICT);
                return;
        case TOUR_MOVE_NOT_READY:
                snprintf(m->detail, sizeof m->detail, "state: %s → %s needs %s", tour_state_name(from),
                         tour_state_name(m->to), tour_state_move_needs(from, m->to));
                move_refuse(m, ORG_CONFLICT);
                return;
        case TOUR_MOVE_ALLOWED:
                break;
        }
        /* reopening: the end revealed the secret, so the matches to come
         * get a new one (a new epoch) */
        reopen = tour_state_move_begins_epoch(from, m->to);
        r = reopen ? org_secret_new(rows[0].competitive, (uint64_t) rows[0].seed, (uint32_t) rows[0].epochs + 1,
                                    secret)
                   : 0;
        if (r < 0) {
                snprintf(m->detail, sizeof m->detail, "no random secret: %s", strerror(-r));
                move_refuse(m, ORG_INTERNAL);
                return;
        }
        r = store_tournaments_move(m->store, m->id, tour_state_name(from), tour_state_name(m->to), rows[0].epochs,
                                   reopen ? secret : NULL, on_moved, m);
        explicit_bzero(secret, sizeof secret);
        if (r < 0) {
                res = org_result_unqueued(r, &unqueued);
                move_end(m, &res, NULL);
        }
}

int org_tournament_move(struct store *s, int64_t id, enum tour_state to, org_tournament_fn cb, void *userdata) {
        struct move *m;
        int r;

        if (!tour_state_name(to))
                return -EINVAL;
        m = calloc(1, sizeof *m);
        if (!m)
                return -ENOMEM;
        *m = (struct move) { .store = s, .id = id, .to = to, .cb = cb, .userdata = userdata };
        r = store_tournaments_facts(s, id, on_move_facts, m);
        if (r < 0)
                free(m);
        return r;
}

/* ---- calls ------------------------------------------------------------------- */

struct calls {
        struct store *store;
        int64_t id;
        org_calls_fn cb;
        void *userdata;
};

static void on_calls(void *userdata, const struct store_call_row *rows, size_t n, const struct store_error *failure,
                     const char *error) {
        struct calls *c = userdata;
        struct org_result r = { .outcome = ORG_DONE };

        if (failure)
                r = (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error };
        c->cb(c->userdata, &r, failure ? NULL : rows, failure ? 0 : n);
        free(c);
}

static void on_calls_facts(void *userdata, const struct store_tournament_facts *rows, size_t n,
                           const struct store_error *failure, const char *error) {
        struct calls *c = userdata;
        char detail[ORG_DETAIL_MAX];
        struct store_error unqueued;
        struct org_result r;
        int q;

        (void) rows;
        if (failure || n == 0) {
                snprintf(detail, sizeof detail, "there is no tournament %" PRId64, c->id);
                r = failure ? (struct org_result) { .outcome = ORG_STORE_FAILED, .failure = failure, .error = error }
                            : (struct org_result) { .outcome = ORG_NOT_FOUND, .detail = detail };
                c->cb(c->userdata, &r, NULL, 0);
                free(c);
                return;
        }
        q = store_tournaments_calls(c->store, c->id, on_calls, c);
        if (q < 0) {
                r = org_result_unqueued(q, &unqueued);
                c->cb(c->userdata, &r, NULL, 0);
                free(c);
        }
}

int org_tournament_calls(struct store *s, int64_t id, org_calls_fn cb, void *userdata) {
        struct calls *c = calloc(1, sizeof *c);
        int r;

        if (!c)
                return -ENOMEM;
        *c = (struct calls) { .store = s, .id = id, .cb = cb, .userdata = userdata };
        r = store_tournaments_facts(s, id, on_calls_facts, c);
        if (r < 0)
                free(c);
        return r;
}
