/* tools/arbiterctl/cmd_common.c — the helpers the verbs share
 * (commands.h): printing a reply or a list the way the run asks, reading a
 * list verb's page. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/arbiterctl/commands.h"
#include "tools/arbiterctl/http.h"

int cmd_print(struct ctl *c, json_t *reply, void (*show)(const json_t *reply)) {
        int r = 0;

        if (c->json)
                r = out_json(reply);
        else if (show)
                show(reply);
        else
                r = out_fields(reply, NULL);
        json_decref(reply);
        return r < 0 ? ctl_fail(CTL_EXIT_ERROR, "cannot print the reply") : CTL_EXIT_OK;
}

int cmd_print_list(struct ctl *c, json_t *items, const struct column *cols, size_t n_cols) {
        int r = c->json ? out_json_items(items) : out_table(cols, n_cols, items);

        json_decref(items);
        return r < 0 ? ctl_fail(CTL_EXIT_ERROR, "cannot print the list") : CTL_EXIT_OK;
}

int cmd_page(const struct args *a, long long *ret_limit, long long *ret_after) {
        const char *limit = args_get(a, "limit"), *after = args_get(a, "after");
        int64_t v;

        *ret_limit = 0;
        *ret_after = 0;
        if (limit) {
                if (args_parse_int(limit, "--limit", 1, HTTP_PAGE_MAX, &v) < 0)
                        return -EINVAL;
                *ret_limit = v;
        }
        if (after) {
                if (!limit) {
                        ctl_fail(CTL_EXIT_USAGE, "--after goes with --limit");
                        return -EINVAL;
                }
                if (args_parse_int(after, "--after", 0, INT64_MAX, &v) < 0)
                        return -EINVAL;
                *ret_after = v;
        }
        return 0;
}

int cmd_get_items(struct ctl *c, const char *path, const char *member, json_t **ret_items) {
        json_t *r, *items;
        int st = http_get_json(c, path, &r);

        if (st)
                return st;
        items = json_object_get(r, member);
        if (!json_is_array(items)) {
                json_decref(r);
                return ctl_fail(CTL_EXIT_ERROR, "GET %s: the reply has no %s", path, member);
        }
        *ret_items = json_incref(items);
        json_decref(r);
        return CTL_EXIT_OK;
}

int cmd_get_raw(struct ctl *c, const char *path) {
        struct http_reply r;
        int st = http_call(c, "GET", path, NULL, &r);

        if (st)
                return st;
        fwrite(r.body, 1, r.len, stdout);
        http_reply_free(&r);
        return CTL_EXIT_OK;
}

json_t *cmd_confirm(const char *text) {
        const char *prefix = "referee:";
        int64_t s;

        if (strcmp(text, "auto") == 0 || strcmp(text, "referee") == 0)
                return json_string(text);
        if (strncmp(text, prefix, strlen(prefix)) == 0) {
                if (args_parse_int(text + strlen(prefix), "--confirm referee:SECONDS", 1, INT32_MAX, &s) < 0)
                        return NULL;
                return json_pack("{s:s, s:I}", "by", "referee", "timeout_s", (json_int_t) s);
        }
        ctl_fail(CTL_EXIT_USAGE, "--confirm: auto, referee or referee:SECONDS, not \"%s\"", text);
        return NULL;
}

int cmd_tpath(char *path, const struct args *a, const char *tail) {
        int64_t t;

        if (args_tournament(a, &t) < 0)
                return -EINVAL;
        if (http_path(path, "/v1/tournaments/%lld%s", (long long) t, tail) < 0) {
                ctl_fail(CTL_EXIT_USAGE, "the path is too long");
                return -ENAMETOOLONG;
        }
        return 0;
}
