/* api/router.c — see router.h. */
#include "api/router.h"

#include <stdbool.h>
#include <string.h>

/* Length of the segment starting at s (up to the next '/' or the end). */
static size_t seg_len(const char *s) {
        return strcspn(s, "/");
}

/* Matches path against pattern segment by segment, collecting "{name}"
 * values into m.  Both start with '/'. */
static bool pattern_matches(const char *pattern, const char *path, struct route_match *m) {
        m->n_params = 0;
        while (*pattern && *path) {
                if (*pattern != '/' || *path != '/')
                        return false;
                pattern++, path++;
                size_t pl = seg_len(pattern), sl = seg_len(path);
                if (pl >= 2 && pattern[0] == '{' && pattern[pl - 1] == '}') {
                        if (sl == 0 || sl >= ROUTER_MAX_PARAM || m->n_params == ROUTER_MAX_PARAMS)
                                return false;
                        m->params[m->n_params].name = pattern + 1;
                        m->params[m->n_params].name_len = pl - 2;
                        memcpy(m->params[m->n_params].value, path, sl);
                        m->params[m->n_params].value[sl] = '\0';
                        m->n_params++;
                } else if (pl != sl || memcmp(pattern, path, pl) != 0) {
                        return false;
                }
                pattern += pl, path += sl;
        }
        return *pattern == '\0' && *path == '\0';
}

static bool method_is(const char *route_method, const char *method) {
        return strcmp(route_method, method) == 0 ||
               (strcmp(method, "HEAD") == 0 && strcmp(route_method, "GET") == 0);
}

static void allow_add(char *allow, const char *method) {
        size_t len = strlen(allow), ml = strlen(method);

        /* each method once */
        for (const char *p = allow; (p = strstr(p, method)); p += ml)
                if ((p == allow || p[-1] == ' ') && (p[ml] == ',' || p[ml] == '\0'))
                        return;
        if (len + ml + 3 >= ROUTER_ALLOW_MAX)
                return;
        if (len > 0)
                strcat(allow, ", ");
        strcat(allow, method);
}

enum router_result router_match(const struct route *routes, size_t n_routes,
                                const char *method, const char *path,
                                struct route_match *ret) {
        bool path_known = false;
        struct route_match scratch;

        ret->route = NULL;
        ret->n_params = 0;
        ret->allow[0] = '\0';
        if (!path || path[0] != '/' || strlen(path) >= ROUTER_MAX_PATH)
                return ROUTER_NOT_FOUND;

        for (size_t i = 0; i < n_routes; i++) {
                if (!pattern_matches(routes[i].pattern, path, &scratch))
                        continue;
                path_known = true;
                if (method_is(routes[i].method, method)) {
                        *ret = scratch;
                        ret->route = &routes[i];
                        ret->allow[0] = '\0';
                        return ROUTER_FOUND;
                }
                allow_add(ret->allow, routes[i].method);
                if (strcmp(routes[i].method, "GET") == 0)
                        allow_add(ret->allow, "HEAD");
        }
        return path_known ? ROUTER_METHOD_NOT_ALLOWED : ROUTER_NOT_FOUND;
}

const char *route_param(const struct route_match *m, const char *name) {
        size_t nl = strlen(name);

        for (size_t i = 0; i < m->n_params; i++)
                if (m->params[i].name_len == nl && memcmp(m->params[i].name, name, nl) == 0)
                        return m->params[i].value;
        return NULL;
}
