/* libFuzzer target: routing any method and path (the request line is the
 * first thing a client controls) never crashes and always yields one of the
 * three answers, with an Allow list exactly when the method is wrong. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const methods[] = { "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "" };
        struct route_match m;
        char *path;

        if (size < 1)
                return 0;
        path = malloc(size);
        if (!path)
                return 0;
        memcpy(path, data + 1, size - 1);
        path[size - 1] = '\0';
        enum router_result r = router_match(api_routes, api_n_routes, methods[data[0] % 7], path, &m);
        if ((r == ROUTER_FOUND) != (m.route != NULL))
                abort();
        if ((r == ROUTER_METHOD_NOT_ALLOWED) != (m.allow[0] != '\0'))
                abort();
        free(path);
        return 0;
}
