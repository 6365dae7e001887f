/* docs/openapi.yaml lists exactly the routes api/routes.c serves: every
 * route is documented, and the document names no route that is not served. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/api.h"

#define MAX_DOC_ROUTES 256

struct doc_route {
        char method[8];
        char path[128];
};

/* Reads "  /v1/...:" path lines and the "    get:" method lines under them. */
static size_t read_doc(struct doc_route *out) {
        FILE *f = fopen("docs/openapi.yaml", "r");
        char line[512], path[128] = "";
        size_t n = 0;
        bool in_paths = false;

        if (!f)
                fail_msg("cannot open docs/openapi.yaml (run from the repository root)");
        while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\n")] = '\0';
                if (strcmp(line, "paths:") == 0) {
                        in_paths = true;
                        continue;
                }
                if (!in_paths)
                        continue;
                if (strncmp(line, "  /", 3) == 0) {
                        snprintf(path, sizeof path, "%.127s", line + 2);
                        path[strcspn(path, ":")] = '\0';
                } else if (strncmp(line, "    ", 4) == 0 && line[4] != ' ' && path[0]) {
                        static const char *const methods[] = { "get", "post", "put", "patch", "delete" };
                        for (size_t i = 0; i < 5; i++) {
                                size_t ml = strlen(methods[i]);
                                if (strncmp(line + 4, methods[i], ml) == 0 && line[4 + ml] == ':') {
                                        assert_true(n < MAX_DOC_ROUTES);
                                        for (size_t k = 0; k <= ml; k++)
                                                out[n].method[k] = (char) (methods[i][k] >= 'a' ? methods[i][k] - 32 : methods[i][k]);
                                        memcpy(out[n].path, path, sizeof path);
                                        n++;
                                }
                        }
                }
        }
        fclose(f);
        return n;
}

static void every_route_is_documented_and_nothing_else(void **state) {
        static struct doc_route doc[MAX_DOC_ROUTES];
        size_t n = read_doc(doc);
        (void) state;

        for (size_t i = 0; i < api_n_routes; i++) {
                bool found = false;
                for (size_t k = 0; k < n; k++)
                        found |= strcmp(doc[k].method, api_routes[i].method) == 0 &&
                                 strcmp(doc[k].path, api_routes[i].pattern) == 0;
                if (!found)
                        fail_msg("%s %s is served but not in docs/openapi.yaml", api_routes[i].method,
                                 api_routes[i].pattern);
        }
        for (size_t k = 0; k < n; k++) {
                bool found = false;
                for (size_t i = 0; i < api_n_routes; i++)
                        found |= strcmp(doc[k].method, api_routes[i].method) == 0 &&
                                 strcmp(doc[k].path, api_routes[i].pattern) == 0;
                if (!found)
                        fail_msg("docs/openapi.yaml documents %s %s, which is not served", doc[k].method,
                                 doc[k].path);
        }
        assert_int_equal(n, api_n_routes);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_route_is_documented_and_nothing_else),
        };
        return cmocka_run_group_tests_name("openapi", tests, NULL, NULL);
}
