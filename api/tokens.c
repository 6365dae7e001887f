/* api/tokens.c — API tokens: the /v1/tokens resource and the auth cache.
 *
 * The secret is generated here, returned once, and only its SHA-256 is
 * stored (store/tokens.h).  Every change to api_tokens fires a NOTIFY,
 * which reloads the cache of every daemon sharing the database.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "api/bodies.h"
#include "api/failures.h"
#include "api/handlers.h"
#include "common/log.h"
#include "engine/engine.h"
#include "store/tokens.h"

#define NAME_MAX_BYTES   64     /* the CHECK on api_tokens.name and tables.name */

/* The token resource: {id, name, role, created_by, created_at, revoked_at},
 * and a seat token's match or table and seat, a match referee's match. */
static json_t *token_json(const struct store_token_row *row) {
        json_t *t = json_pack("{s:I, s:s, s:s, s:s, s:s, s:o}",
                              "id", (json_int_t) row->id,
                              "name", row->name,
                              "role", row->role,
                              "created_by", row->created_by,
                              "created_at", row->created_at,
                              "revoked_at", row->revoked_at ? json_string(row->revoked_at) : json_null());

        /* A seat token says which seat of which match or table it speaks
         * for, a match referee's token its match. */
        if (t && row->match_id)
                json_object_set_new(t, "match", json_integer((json_int_t) row->match_id));
        if (t && row->table_id)
                json_object_set_new(t, "table", json_integer((json_int_t) row->table_id));
        if (t && row->seat)
                json_object_set_new(t, "seat", json_integer(row->seat));
        return t;
}

/* ---- the cache ---------------------------------------------------------- */

static void on_tokens_loaded(void *userdata, const struct store_token_row *rows, size_t n,
                             const struct store_error *failure, const char *error) {
        struct auth *auth = userdata;
        struct auth_entry *entries;

        if (failure) {
                log_warning("could not load API tokens: %s; keeping the %zu cached", error, auth_count(auth));
                return;
        }
        entries = calloc(n + 1, sizeof *entries);
        if (!entries) {
                log_error("out of memory loading %zu API tokens; keeping the cached ones", n);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                int role = auth_role_from_string(rows[i].role);

                entries[i] = (struct auth_entry) {
                        .id = rows[i].id,
                        .name = (char *) rows[i].name,          /* auth_replace copies it */
                        .role = role < 0 ? AUTH_ROLE_NONE : (enum auth_role) role,  /* the table's CHECK forbids < 0 */
                        .match_id = rows[i].match_id,
                        .table_id = rows[i].table_id,
                        .seat = rows[i].seat,
                };
                snprintf(entries[i].hash, sizeof entries[i].hash, "%s", rows[i].hash ? rows[i].hash : "");
        }
        if (auth_replace(auth, entries, n) < 0)
                log_error("out of memory loading %zu API tokens; keeping the cached ones", n);
        else
                log_info("loaded %zu API token%s", n, n == 1 ? "" : "s");
        free(entries);
}

int api_tokens_reload(struct store *store, struct auth *auth) {
        return store_tokens_live(store, on_tokens_loaded, auth);
}

struct watch {
        struct store *store;
        struct auth *auth;
};

static void on_notify(void *userdata, const char *channel, const char *payload) {
        struct watch *w = userdata;
        int r;

        (void) channel, (void) payload;
        r = api_tokens_reload(w->store, w->auth);
        if (r < 0)
                log_warning("API tokens changed but could not be reloaded: %s", strerror(-r));
}

int api_tokens_watch(struct store *store, struct auth *auth) {
        static struct watch w;          /* one daemon, one store, one cache */

        w.store = store;
        w.auth = auth;
        return store_tokens_watch(store, on_notify, &w);
}

/* ---- creation ----------------------------------------------------------- */

struct creation {
        char token[AUTH_TOKEN_LEN + 1];
        api_token_created_fn cb;
        void *userdata;
};

const char *api_name_problem(const char *name) {
        size_t n = name ? strlen(name) : 0;

        if (n == 0)
                return "a name is needed (e.g. \"scoreboard-hall-a\", \"table-a\")";
        if (n > NAME_MAX_BYTES)
                return "a name is at most 64 bytes";
        for (const unsigned char *p = (const unsigned char *) name; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        return "a name cannot contain control characters";
        return NULL;
}

static void on_token_inserted(void *userdata, const struct store_token_row *rows, size_t n,
                              const struct store_error *failure, const char *error) {
        struct creation *c = userdata;

        if (failure) {
                const char *detail;

                if (api_store_failure(failure, &detail) == MHD_HTTP_CONFLICT && detail)
                        c->cb(c->userdata, API_TOKEN_NAME_TAKEN, NULL, NULL, detail);
                else
                        c->cb(c->userdata, API_TOKEN_FAILED, NULL, NULL, error);
        } else if (n == 0) {
                c->cb(c->userdata, API_TOKEN_NO_SUCH_SEAT, NULL, NULL, "no such seat");
        } else {
                json_t *t = token_json(&rows[0]);
                c->cb(c->userdata, API_TOKEN_CREATED, c->token, t, NULL);
                json_decref(t);
        }
        explicit_bzero(c->token, sizeof c->token);
        free(c);
}

/* A creation with a fresh secret in *ret and its hash in hash: 0 or -errno. */
static int creation_new(api_token_created_fn cb, void *userdata, struct creation **ret,
                        char hash[AUTH_HASH_HEX_LEN + 1]) {
        struct creation *c = calloc(1, sizeof *c);
        int r;

        if (!c)
                return -ENOMEM;
        r = auth_token_generate(c->token);
        if (r < 0) {
                free(c);
                return r;
        }
        auth_token_hash(c->token, hash);
        c->cb = cb;
        c->userdata = userdata;
        *ret = c;
        return 0;
}

static void creation_free(struct creation *c) {
        explicit_bzero(c->token, sizeof c->token);
        free(c);
}

int api_tokens_create(struct store *store, const char *name, enum auth_role role,
                      const char *created_by, api_token_created_fn cb, void *userdata) {
        char hash[AUTH_HASH_HEX_LEN + 1];
        struct creation *c;
        int r;

        if (api_name_problem(name) || role < AUTH_ROLE_DISPLAY || role > AUTH_ROLE_ADMIN)
                return -EINVAL;
        r = creation_new(cb, userdata, &c, hash);
        if (r < 0)
                return r;
        r = store_tokens_insert(store, name, auth_role_to_string(role), hash, created_by, on_token_inserted, c);
        if (r < 0)
                creation_free(c);
        return r;
}

int api_seat_token_create(struct store *store, int64_t match_id, int64_t table_id, int seat,
                          const char *created_by, api_token_created_fn cb, void *userdata) {
        char hash[AUTH_HASH_HEX_LEN + 1], name[NAME_MAX_BYTES + 1];
        struct creation *c;
        int r;

        if ((match_id > 0) == (table_id > 0) || match_id < 0 || table_id < 0 || seat < 1 || seat > ENG_MAX_SEATS)
                return -EINVAL;
        r = creation_new(cb, userdata, &c, hash);
        if (r < 0)
                return r;
        /* Names of live tokens are unique; the hash's first digits tell a
         * seat's successive tokens apart in the audit trail. */
        snprintf(name, sizeof name, "%s %lld seat %d #%.8s", match_id ? "match" : "table",
                 (long long) (match_id ? match_id : table_id), seat, hash);
        r = store_tokens_insert_seat(store, name, hash, created_by, match_id, table_id, seat, on_token_inserted, c);
        if (r < 0)
                creation_free(c);
        return r;
}

int api_match_referee_token_create(struct store *store, int64_t match_id, const char *created_by,
                                   api_token_created_fn cb, void *userdata) {
        char hash[AUTH_HASH_HEX_LEN + 1], name[NAME_MAX_BYTES + 1];
        struct creation *c;
        int r;

        if (match_id < 1)
                return -EINVAL;
        r = creation_new(cb, userdata, &c, hash);
        if (r < 0)
                return r;
        snprintf(name, sizeof name, "match %lld referee #%.8s", (long long) match_id, hash);
        r = store_tokens_insert_match_referee(store, name, hash, created_by, match_id, on_token_inserted, c);
        if (r < 0)
                creation_free(c);
        return r;
}

/* ---- handlers ----------------------------------------------------------- */

static void on_created_for_request(void *userdata, enum api_token_outcome outcome, const char *token,
                                   json_t *resource, const char *error) {
        struct api_request *req = userdata;

        if (!resource) {
                unsigned status = outcome == API_TOKEN_NAME_TAKEN ? MHD_HTTP_CONFLICT
                                                                  : MHD_HTTP_INTERNAL_SERVER_ERROR;
                api_reply_problem(req, status, "the token was not created: %s", error);
                return;
        }
        /* Usable at once, before the reload its NOTIFY brings: the client
         * may use it in its very next request. */
        struct auth_entry e = {
                .id = json_integer_value(json_object_get(resource, "id")),
                .name = (char *) json_string_value(json_object_get(resource, "name")),
                .role = (enum auth_role) auth_role_from_string(json_string_value(json_object_get(resource, "role"))),
        };
        auth_token_hash(token, e.hash);
        auth_add(req->deps->auth, &e);
        json_object_set_new(resource, "token", json_string(token));
        api_reply_json(req, MHD_HTTP_CREATED, json_incref(resource));
}

void handle_tokens_create(struct api_request *req) {
        struct body_token t;
        json_t *problem;
        int r;

        if (body_token(req->body, &t, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return;
        }
        r = api_tokens_create(req->deps->store, t.name, t.role, req->token_name, on_created_for_request, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_list(void *userdata, const struct store_token_row *rows, size_t n, const struct store_error *failure,
                    const char *error) {
        struct api_request *req = userdata;
        json_t *items;

        if (failure) {
                api_reply_store_failed(req, failure, "listing tokens", error);
                return;
        }
        items = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(items, token_json(&rows[i]));
        api_reply_json(req, MHD_HTTP_OK, api_page(items, n > 0 ? rows[n - 1].id : 0));
}

void handle_tokens_list(struct api_request *req) {
        long long limit, after;
        int r;

        if (!page_params(req, &limit, &after))
                return;
        r = store_tokens_list(req->deps->store, after, limit, on_list, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_one(void *userdata, const struct store_token_row *rows, size_t n, const struct store_error *failure,
                   const char *error) {
        struct api_request *req = userdata;

        if (failure)
                api_reply_store_failed(req, failure, "the token query", error);
        else if (n == 0)
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no token with id %s%s",
                                  route_param(&req->match, "id"),
                                  strcmp(req->method, "DELETE") == 0 ? " that is still live" : "");
        else
                api_reply_json(req, MHD_HTTP_OK, token_json(&rows[0]));
}

void handle_token_get(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_tokens_get(req->deps->store, id, on_one, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_token_revoke(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        r = store_tokens_revoke(req->deps->store, id, on_one, req);
        if (r < 0)
                reply_store_error(req, r);
}
