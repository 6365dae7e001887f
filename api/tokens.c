/* api/tokens.c — API tokens: the /v1/tokens resource and the auth cache.
 *
 * The secret is generated here, returned once, and only its SHA-256 is
 * stored.  Every change to api_tokens fires NOTIFY arbiter_tokens (a trigger
 * in migrations/0001_tokens.sql), which reloads the cache of every daemon
 * sharing the database.
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
#include "store/store.h"

#define TOKENS_CHANNEL   "arbiter_tokens"
#define NAME_MAX_BYTES   64     /* the CHECK on api_tokens.name and tables.name */

/* Columns of a token resource, timestamps in RFC 3339 UTC. */
#define TOKEN_COLUMNS \
        "id, name, role, created_by, " \
        "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), " \
        "to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), match_id, seat, table_id"

static json_t *token_row(const PGresult *res, int row) {
        json_t *t = json_pack("{s:I, s:s, s:s, s:s, s:s, s:o}",
                         "id", (json_int_t) strtoll(PQgetvalue(res, row, 0), NULL, 10),
                         "name", PQgetvalue(res, row, 1),
                         "role", PQgetvalue(res, row, 2),
                         "created_by", PQgetvalue(res, row, 3),
                         "created_at", PQgetvalue(res, row, 4),
                         "revoked_at", PQgetisnull(res, row, 5) ? json_null()
                                                                : json_string(PQgetvalue(res, row, 5)));

        /* A seat token says which seat of which match or table it speaks for. */
        if (t && !PQgetisnull(res, row, 6))
                json_object_set_new(t, "match", json_integer(strtoll(PQgetvalue(res, row, 6), NULL, 10)));
        if (t && !PQgetisnull(res, row, 8))
                json_object_set_new(t, "table", json_integer(strtoll(PQgetvalue(res, row, 8), NULL, 10)));
        if (t && !PQgetisnull(res, row, 7))
                json_object_set_new(t, "seat", json_integer(strtol(PQgetvalue(res, row, 7), NULL, 10)));
        return t;
}

void reply_store_error(struct api_request *req, int r) {
        if (r == -ENOTCONN)
                api_reply_problem(req, MHD_HTTP_SERVICE_UNAVAILABLE,
                                  "the database is not reachable right now; arbiterd keeps retrying "
                                  "(see /v1/health) — try again shortly");
        else
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
                                  "could not queue the database query: %s", strerror(-r));
}

static bool parse_count(const char *s, long long min, long long max, long long *ret) {
        char *end;
        long long v;

        if (!s || !*s)
                return false;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return false;
        *ret = v;
        return true;
}

/* A page {items, next} of one JSON object with an "id" per row; next is
 * the last id, or null. */
static void on_page(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        json_t *items;
        json_int_t last = 0;

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the list query failed: %s", error);
                return;
        }
        items = json_array();
        for (int i = 0; i < PQntuples(res); i++) {
                json_t *t = json_loads(PQgetvalue(res, i, 0), 0, NULL);
                if (t) {
                        last = json_integer_value(json_object_get(t, "id"));
                        json_array_append_new(items, t);
                }
        }
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o, s:o}", "items", items, "next",
                                                   last ? json_integer(last) : json_null()));
}

void reply_list_page(struct api_request *req, const char *sql) {
        long long limit, after;
        char limit_s[24], after_s[24];
        int r;

        if (!page_params(req, &limit, &after))
                return;
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        const char *p[] = { after_s, limit_s };
        r = store_query(req->deps->store, sql, 2, p, on_page, req);
        if (r < 0)
                reply_store_error(req, r);
}

bool page_params(struct api_request *req, long long *ret_limit, long long *ret_after) {
        struct api_query q = api_request_query(req);
        struct query_page page;
        json_t *problem;

        if (query_page(&q, &page, &problem) < 0) {
                api_reply_problem_json(req, problem);
                return false;
        }
        *ret_limit = page.limit;
        *ret_after = page.after;
        return true;
}

bool id_param(struct api_request *req, const char *name, long long *ret_id) {
        if (parse_count(route_param(&req->match, name), 1, INT64_MAX, ret_id))
                return true;
        api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no resource at %.200s: %s must be a positive number",
                          req->path, name);
        return false;
}

/* ---- the cache ---------------------------------------------------------- */

static void on_tokens_loaded(void *userdata, const PGresult *res, const char *error) {
        struct auth *auth = userdata;
        struct auth_entry *entries;
        int n;

        if (!res) {
                log_warning("could not load API tokens: %s; keeping the %zu cached", error, auth_count(auth));
                return;
        }
        n = PQntuples(res);
        entries = calloc((size_t) n + 1, sizeof *entries);
        if (!entries) {
                log_error("out of memory loading %d API tokens; keeping the cached ones", n);
                return;
        }
        for (int i = 0; i < n; i++) {
                entries[i].id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
                entries[i].name = PQgetvalue(res, i, 1);
                entries[i].role = auth_role_from_string(PQgetvalue(res, i, 2));
                snprintf(entries[i].hash, sizeof entries[i].hash, "%s", PQgetvalue(res, i, 3));
                if (!PQgetisnull(res, i, 4))
                        entries[i].match_id = strtoll(PQgetvalue(res, i, 4), NULL, 10);
                if (!PQgetisnull(res, i, 5))
                        entries[i].seat = (int) strtol(PQgetvalue(res, i, 5), NULL, 10);
                if (!PQgetisnull(res, i, 6))
                        entries[i].table_id = strtoll(PQgetvalue(res, i, 6), NULL, 10);
                if ((int) entries[i].role < 0)
                        entries[i].role = AUTH_ROLE_NONE;     /* the table's CHECK forbids this */
        }
        if (auth_replace(auth, entries, (size_t) n) < 0)
                log_error("out of memory loading %d API tokens; keeping the cached ones", n);
        else
                log_info("loaded %d API token%s", n, n == 1 ? "" : "s");
        free(entries);
}

int api_tokens_reload(struct store *store, struct auth *auth) {
        return store_query(store,
                           "SELECT id, name, role, token_hash, match_id, seat, table_id FROM api_tokens "
                           "WHERE revoked_at IS NULL",
                           0, NULL, on_tokens_loaded, auth);
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
        return store_listen(store, TOKENS_CHANNEL, on_notify, &w);
}

/* ---- creation ----------------------------------------------------------- */

struct creation {
        char token[AUTH_TOKEN_LEN + 1];
        struct store *store;            /* for the failure's constraint */
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

static void on_token_inserted(void *userdata, const PGresult *res, const char *error) {
        struct creation *c = userdata;

        if (!res) {
                const char *detail;

                if (api_query_failure(c->store, &detail) == MHD_HTTP_CONFLICT && detail)
                        c->cb(c->userdata, API_TOKEN_NAME_TAKEN, NULL, NULL, detail);
                else
                        c->cb(c->userdata, API_TOKEN_FAILED, NULL, NULL, error);
        } else if (PQntuples(res) == 0) {
                c->cb(c->userdata, API_TOKEN_NO_SUCH_SEAT, NULL, NULL, "no such seat");
        } else {
                json_t *t = token_row(res, 0);
                c->cb(c->userdata, API_TOKEN_CREATED, c->token, t, NULL);
                json_decref(t);
        }
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
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        r = auth_token_generate(c->token);
        if (r < 0) {
                free(c);
                return r;
        }
        auth_token_hash(c->token, hash);
        c->cb = cb;
        c->store = store;
        c->userdata = userdata;

        const char *params[] = { name, auth_role_to_string(role), hash, created_by };
        r = store_query(store,
                        "INSERT INTO api_tokens (name, role, token_hash, created_by) "
                        "VALUES ($1, $2, $3, $4) RETURNING " TOKEN_COLUMNS,
                        4, params, on_token_inserted, c);
        if (r < 0) {
                explicit_bzero(c->token, sizeof c->token);
                free(c);
        }
        return r;
}

int api_seat_token_create(struct store *store, int64_t match_id, int64_t table_id, int seat,
                          const char *created_by, api_token_created_fn cb, void *userdata) {
        char hash[AUTH_HASH_HEX_LEN + 1], name[NAME_MAX_BYTES + 1], match_s[24], table_s[24], seat_s[8];
        struct creation *c;
        int r;

        if ((match_id > 0) == (table_id > 0) || match_id < 0 || table_id < 0 || seat < 1 || seat > 8)
                return -EINVAL;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        r = auth_token_generate(c->token);
        if (r < 0) {
                free(c);
                return r;
        }
        auth_token_hash(c->token, hash);
        c->cb = cb;
        c->store = store;
        c->userdata = userdata;
        /* Names of live tokens are unique; the hash's first digits tell a
         * seat's successive tokens apart in the audit trail. */
        snprintf(name, sizeof name, "%s %lld seat %d #%.8s", match_id ? "match" : "table",
                 (long long) (match_id ? match_id : table_id), seat, hash);
        snprintf(match_s, sizeof match_s, "%lld", (long long) match_id);
        snprintf(table_s, sizeof table_s, "%lld", (long long) table_id);
        snprintf(seat_s, sizeof seat_s, "%d", seat);

        /* A seat has one live token: a new one revokes the one before (a
         * lost link is replaced, never duplicated).  A table's seat must
         * exist: otherwise nothing is revoked or made, and no row returns. */
        const char *params[] = { name, hash, created_by, match_s, seat_s, table_s };
        r = store_query(store,
                        "WITH ok AS (SELECT 1 WHERE $6::bigint = 0 OR EXISTS "
                        "              (SELECT 1 FROM table_seats WHERE table_id = $6 AND seat = $5)), "
                        "old AS (UPDATE api_tokens SET revoked_at = now() "
                        "        WHERE seat = $5 AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM ok) "
                        "          AND (match_id = nullif($4::bigint, 0) OR table_id = nullif($6::bigint, 0)) "
                        "        RETURNING id) "
                        "INSERT INTO api_tokens (name, role, token_hash, created_by, match_id, seat, table_id) "
                        "SELECT $1, 'seat', $2, $3, nullif($4::bigint, 0), $5, nullif($6::bigint, 0) "
                        "FROM ok, (SELECT count(*) FROM old) o "
                        "RETURNING " TOKEN_COLUMNS,
                        6, params, on_token_inserted, c);
        if (r < 0) {
                explicit_bzero(c->token, sizeof c->token);
                free(c);
        }
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

static void on_list(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;
        json_t *items;
        int n;

        if (!res) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "listing tokens failed: %s", error);
                return;
        }
        items = json_array();
        n = PQntuples(res);
        for (int i = 0; i < n; i++)
                json_array_append_new(items, token_row(res, i));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o, s:o}", "items", items, "next",
                                                   n > 0 ? json_integer(json_integer_value(json_object_get(
                                                                   json_array_get(items, (size_t) n - 1), "id")))
                                                         : json_null()));
}

void handle_tokens_list(struct api_request *req) {
        long long limit, after;
        char limit_s[24], after_s[24];
        int r;

        if (!page_params(req, &limit, &after))
                return;
        snprintf(limit_s, sizeof limit_s, "%lld", limit);
        snprintf(after_s, sizeof after_s, "%lld", after);
        const char *params[] = { after_s, limit_s };
        r = store_query(req->deps->store,
                        "SELECT " TOKEN_COLUMNS " FROM api_tokens WHERE id > $1 ORDER BY id LIMIT $2",
                        2, params, on_list, req);
        if (r < 0)
                reply_store_error(req, r);
}

static void on_one(void *userdata, const PGresult *res, const char *error) {
        struct api_request *req = userdata;

        if (!res)
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "the token query failed: %s", error);
        else if (PQntuples(res) == 0)
                api_reply_problem(req, MHD_HTTP_NOT_FOUND, "there is no token with id %s%s",
                                  route_param(&req->match, "id"),
                                  strcmp(req->method, "DELETE") == 0 ? " that is still live" : "");
        else
                api_reply_json(req, MHD_HTTP_OK, token_row(res, 0));
}

void handle_token_get(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *params[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store, "SELECT " TOKEN_COLUMNS " FROM api_tokens WHERE id = $1",
                        1, params, on_one, req);
        if (r < 0)
                reply_store_error(req, r);
}

void handle_token_revoke(struct api_request *req) {
        long long id;
        int r;

        if (!id_param(req, "id", &id))
                return;
        const char *params[] = { route_param(&req->match, "id") };
        r = store_query(req->deps->store,
                        "UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL "
                        "RETURNING " TOKEN_COLUMNS,
                        1, params, on_one, req);
        if (r < 0)
                reply_store_error(req, r);
}
