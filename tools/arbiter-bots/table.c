/* tools/arbiter-bots/table.c — see table.h. */
#define _GNU_SOURCE
#include "tools/arbiter-bots/table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"

/* The most items a list page may hold (api/tokens.c PAGE_LIMIT_MAX). */
#define PAGE_LIMIT              1000
#define PATH_MAX_LEN            160
#define HTTP_OK                 200
#define HTTP_CREATED            201

/* A reply that is not the expected status: logged with the daemon's words. */
static int unexpected(const char *what, int status, json_t *reply) {
        if (status < 0)
                log_warning("%s: arbiterd did not answer (%s)", what, strerror(-status));
        else
                log_warning("%s: HTTP %d: %s", what, status, rest_problem(reply));
        json_decref(reply);
        return status < 0 ? status : -EPROTO;
}

int table_find(struct rest *r, const char *name, struct table *ret) {
        json_int_t after = 0;

        for (;;) {
                char path[PATH_MAX_LEN];
                json_t *page, *it;
                size_t i;
                int st;

                snprintf(path, sizeof path, "/v1/tables?limit=%d&after=%lld", PAGE_LIMIT, (long long) after);
                st = rest_get(r, path, &page);
                if (st != HTTP_OK)
                        return unexpected("listing the tables", st, page);
                json_t *items = json_object_get(page, "items");
                json_array_foreach(items, i, it) {
                        const char *n = json_string_value(json_object_get(it, "name"));

                        after = json_integer_value(json_object_get(it, "id"));
                        if (n && strcmp(n, name) == 0) {
                                ret->id = after;
                                ret->n_seats = (unsigned) json_array_size(json_object_get(it, "seats"));
                                json_decref(page);
                                return 0;
                        }
                }
                size_t n = json_array_size(items);
                json_decref(page);
                if (n < PAGE_LIMIT)
                        return -ENOENT;
        }
}

/* The oldest match in state at table: 0 with *ret_id (0: none). */
static int oldest_in(struct rest *r, const char *state, json_int_t table, json_int_t *ret_id) {
        json_int_t after = 0;

        *ret_id = 0;
        for (;;) {
                char path[PATH_MAX_LEN], what[PATH_MAX_LEN];
                json_t *page, *it;
                size_t i;
                int st;

                snprintf(path, sizeof path, "/v1/matches?state=%s&limit=%d&after=%lld", state, PAGE_LIMIT,
                         (long long) after);
                st = rest_get(r, path, &page);
                if (st != HTTP_OK) {
                        snprintf(what, sizeof what, "listing the %s matches", state);
                        return unexpected(what, st, page);
                }
                json_t *items = json_object_get(page, "items");
                json_array_foreach(items, i, it) {
                        after = json_integer_value(json_object_get(it, "id"));
                        if (json_integer_value(json_object_get(it, "table")) == table) {
                                *ret_id = after;
                                json_decref(page);
                                return 0;
                        }
                }
                size_t n = json_array_size(items);
                json_decref(page);
                if (n < PAGE_LIMIT)
                        return 0;
        }
}

int table_live_match(struct rest *r, json_int_t table, json_int_t *ret_id) {
        static const char *const live[] = { "running", "paused" };
        json_int_t best = 0, id;

        for (size_t i = 0; i < sizeof live / sizeof live[0]; i++) {
                int st = oldest_in(r, live[i], table, &id);

                if (st < 0)
                        return st;
                if (id && (!best || id < best))
                        best = id;
        }
        *ret_id = best;
        return 0;
}

int table_match(struct rest *r, json_int_t id, json_t **ret_match) {
        char path[PATH_MAX_LEN], what[PATH_MAX_LEN];
        int st;

        snprintf(path, sizeof path, "/v1/matches/%lld", (long long) id);
        st = rest_get(r, path, ret_match);
        if (st == HTTP_OK && json_is_object(*ret_match))
                return 0;
        snprintf(what, sizeof what, "reading match %lld", (long long) id);
        st = unexpected(what, st, *ret_match);
        *ret_match = NULL;
        return st;
}

int table_new_match(struct rest *r, json_int_t table, const char *game, const char *const *players, size_t n,
                    json_t *config, json_int_t *ret_id) {
        json_t *names = json_array(), *body, *reply;
        char path[PATH_MAX_LEN], what[PATH_MAX_LEN];
        int st;

        for (size_t i = 0; i < n; i++)
                json_array_append_new(names, json_string(players[i]));
        body = json_pack("{s:s, s:I, s:o}", "game", game, "table", table, "players", names);
        if (!body)
                return -ENOMEM;
        if (config)
                json_object_set(body, "config", config);
        st = rest_post(r, "/v1/matches", body, &reply);
        json_decref(body);
        if (st != HTTP_CREATED)
                return unexpected("creating a match", st, reply);
        *ret_id = json_integer_value(json_object_get(reply, "id"));
        json_decref(reply);

        snprintf(path, sizeof path, "/v1/matches/%lld/start", (long long) *ret_id);
        st = rest_post(r, path, NULL, &reply);
        if (st != HTTP_OK) {
                snprintf(what, sizeof what, "starting match %lld", (long long) *ret_id);
                return unexpected(what, st, reply);
        }
        json_decref(reply);
        return 0;
}

int table_abort(struct rest *r, json_int_t id) {
        char path[PATH_MAX_LEN], what[PATH_MAX_LEN];
        json_t *reply;
        int st;

        snprintf(path, sizeof path, "/v1/matches/%lld/abort", (long long) id);
        st = rest_post(r, path, NULL, &reply);
        if (st != HTTP_OK) {
                snprintf(what, sizeof what, "aborting match %lld", (long long) id);
                return unexpected(what, st, reply);
        }
        json_decref(reply);
        return 0;
}
