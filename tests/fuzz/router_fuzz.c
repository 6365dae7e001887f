/* libFuzzer target: routing any method and path (the request line is the
 * first thing a client controls) never crashes and always yields one of the
 * three answers, with a route exactly when found and an Allow list exactly
 * when the method is wrong.
 *
 * tests/unit/test_fuzz_router.c replays tests/fuzz/corpus/router/ through
 * router_fuzz_check() with FUZZ_ASSERT mapped to cmocka. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void router_fuzz_check(const uint8_t *data, size_t size) {
        static const char *const methods[] = { "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "" };
        struct route_match m;
        char *path;

        if (size < 1)
                return;
        path = malloc(size);
        if (!path)
                return;
        memcpy(path, data + 1, size - 1);
        path[size - 1] = '\0';
        enum router_result r = router_match(api_routes, api_n_routes, methods[data[0] % 7], path, &m);
        FUZZ_ASSERT((r == ROUTER_FOUND) == (m.route != NULL));
        FUZZ_ASSERT((r == ROUTER_METHOD_NOT_ALLOWED) == (m.allow[0] != '\0'));
        free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        router_fuzz_check(data, size);
        return 0;
}
