/* tools/arbiterctl/cmd_tokens.c — `tokens`: the API tokens (GET, POST
 * /v1/tokens, GET and DELETE /v1/tokens/{id}; docs/operations.md, "API
 * tokens").  The server never sends a secret again after creating it;
 * `tokens create` prints the new one once. */
#include <stdio.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"

#define TOKEN_ROLES "admin referee display"

static const struct column token_cols[] = {
        { "ID", "id", NULL, true },
        { "NAME", "name", NULL, false },
        { "ROLE", "role", NULL, false },
        { "MATCH", "match", NULL, true },
        { "SEAT", "seat", NULL, true },
        { "CREATED_BY", "created_by", NULL, false },
        { "CREATED_AT", "created_at", NULL, false },
        { "REVOKED_AT", "revoked_at", NULL, false },
};

static int tokens_list(struct ctl *c, const struct args *a) {
        long long limit, after;
        json_t *items;
        int st;

        if (cmd_page(a, &limit, &after) < 0)
                return CTL_EXIT_USAGE;
        st = http_get_all(c, "/v1/tokens", limit, after, &items);
        return st ? st : cmd_print_list(c, items, token_cols, N_COLS(token_cols));
}

static int tokens_show(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t id;
        json_t *t;
        int st;

        CMD_ID(a, 0, "TOKEN", &id);
        http_path(path, "/v1/tokens/%lld", (long long) id);
        st = http_get_json(c, path, &t);
        return st ? st : cmd_print(c, t, NULL);
}

static void show_created(const json_t *t) {
        out_fields(t, NULL);
        printf("\nThe token is shown only this once: store it now.\n");
}

static int tokens_create(struct ctl *c, const struct args *a) {
        json_t *body = json_pack("{s:s, s:s}", "name", a->pos[0], "role", a->pos[1]), *t;
        int st;

        if (!body)
                return ctl_fail(CTL_EXIT_USAGE, "NAME and ROLE must be UTF-8 text");
        st = http_send_json(c, "POST", "/v1/tokens", body, &t);
        json_decref(body);
        return st ? st : cmd_print(c, t, show_created);
}

static void show_revoked(const json_t *t) {
        printf("token %lld (%s) revoked\n", (long long) json_integer_value(json_object_get(t, "id")),
               json_string_value(json_object_get(t, "name")) ? json_string_value(json_object_get(t, "name")) : "?");
}

static int tokens_revoke(struct ctl *c, const struct args *a) {
        char path[HTTP_PATH_MAX];
        int64_t id;
        json_t *t;
        int st;

        CMD_ID(a, 0, "TOKEN", &id);
        http_path(path, "/v1/tokens/%lld", (long long) id);
        st = http_send_json(c, "DELETE", path, NULL, &t);
        return st ? st : cmd_print(c, t, show_revoked);
}

static const struct opt list_opts[] = { OPT_LIMIT, OPT_AFTER, { NULL } };

static const struct verb verbs[] = {
        { "list", "[--limit N [--after ID]]", 0, 0, NULL, "the API tokens, never their secrets",
          "GET /v1/tokens (admin)", NULL, list_opts, tokens_list },
        { "show", "TOKEN", 1, 1, NULL, "one token", "GET /v1/tokens/{id} (admin)", NULL, NULL, tokens_show },
        { "create", "NAME ROLE", 2, 2, TOKEN_ROLES, "create a token and print its secret, once",
          "POST /v1/tokens (admin)", "ROLE is admin, referee or display (seat tokens: matches seat-token).\n", NULL,
          tokens_create, 1 },
        { "revoke", "TOKEN", 1, 1, NULL, "revoke a token at once", "DELETE /v1/tokens/{id} (admin)", NULL, NULL,
          tokens_revoke },
        { NULL },
};

const struct noun noun_tokens = { "tokens", "API tokens: who may do what", verbs };
