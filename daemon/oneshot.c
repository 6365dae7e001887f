/* daemon/oneshot.c — `arbiterd --migrate-only` and `--create-token`.
 *
 * Both run the same loop and store as the daemon (so migrations are applied
 * by the one runner there is), wait for the store to settle, do their one
 * thing and exit.  Unlike the daemon they do not wait out a database outage:
 * the first failed connection ends them with exit status 69 and the reason.
 */
#include "daemon/service.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "common/log.h"
#include "common/loop.h"
#include "store/store.h"

struct oneshot {
        struct loop *loop;
        struct store *store;
        const char *role, *name;        /* NULL for --migrate-only */
        int exit_status;
        bool done;
};

static void finish(struct oneshot *o, int exit_status) {
        if (o->done)
                return;
        o->done = true;
        o->exit_status = exit_status;
        loop_exit(o->loop);
}

static void on_created(void *userdata, enum api_token_outcome outcome, const char *token, json_t *resource,
                       const char *error) {
        struct oneshot *o = userdata;

        (void) outcome;         /* the error line says it */
        if (!resource) {
                fprintf(stderr, "arbiterd: the token was not created: %s\n", error);
                finish(o, EXIT_FAILURE);
                return;
        }
        printf("%s\n", token);
        fflush(stdout);
        fprintf(stderr, "Created %s token \"%s\" (id %lld). It is shown only this once: store it now.\n"
                        "Use it as: curl -H 'Authorization: Bearer <token>' ...\n",
                o->role, o->name,
                (long long) json_integer_value(json_object_get(resource, "id")));
        finish(o, EXIT_SUCCESS);
}

static void on_state(void *userdata, enum store_state state, const char *detail) {
        struct oneshot *o = userdata;
        char who[64];
        int r;

        switch (state) {
        case STORE_READY:
                if (!o->name) {
                        fprintf(stderr, "arbiterd: migrations applied; %s\n", detail);
                        finish(o, EXIT_SUCCESS);
                        return;
                }
                snprintf(who, sizeof who, "arbiterd --create-token (uid %u)", (unsigned) getuid());
                r = api_tokens_create(o->store, o->name, (enum auth_role) auth_role_from_string(o->role),
                                      who, on_created, o);
                if (r < 0) {
                        fprintf(stderr, "arbiterd: cannot create the token: %s\n", strerror(-r));
                        finish(o, EXIT_FAILURE);
                }
                return;
        case STORE_DISCONNECTED:
                fprintf(stderr, "arbiterd: cannot use the database: %s\n"
                                "Check [database] dsn (or ARBITER_DSN) and that PostgreSQL is running.\n",
                        detail);
                finish(o, EXIT_UNAVAILABLE);
                return;
        case STORE_FAILED:
                fprintf(stderr, "arbiterd: %s\n", detail);
                finish(o, EXIT_DATAERR);
                return;
        case STORE_CONNECTING:
        case STORE_MIGRATING:
                return;
        }
}

static int run(const struct config *cfg, const char *role, const char *name) {
        struct store_config sc = {
                .dsn = cfg->dsn,
                .statement_timeout_ms = cfg->statement_timeout_ms,
                .reconnect_max_s = cfg->reconnect_max_s,
                .migrations_dir = cfg->migrations_dir,
        };
        struct oneshot o = { .role = role, .name = name, .exit_status = EXIT_FAILURE };
        int r;

        r = loop_new(&o.loop);
        if (r < 0) {
                fprintf(stderr, "arbiterd: cannot create the event loop: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        r = store_new(o.loop, &sc, on_state, &o, &o.store);
        if (r < 0)
                fprintf(stderr, "arbiterd: cannot set up the database connection: %s\n", strerror(-r));
        else
                loop_run(o.loop);
        store_free(o.store);
        loop_free(o.loop);
        return o.exit_status;
}

int oneshot_migrate(const struct config *cfg) {
        return run(cfg, NULL, NULL);
}

int oneshot_create_token(const struct config *cfg, const char *role, const char *name) {
        return run(cfg, role, name);
}
