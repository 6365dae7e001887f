/* libFuzzer target: the configuration parser never crashes, leaks or
 * reads out of bounds, and any input either parses or reports FILE:LINE. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct config cfg = { 0 }, next = { 0 };
        char err[256];
        char *text = malloc(size + 1);
        bool restart;

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        if (config_parse_string(&cfg, "fuzz.conf", text, err, sizeof err) < 0) {
                if (strncmp(err, "fuzz.conf", 9) != 0)
                        abort();        /* every error names the file */
        } else if (config_parse_string(&next, "fuzz.conf", text, err, sizeof err) == 0) {
                config_reload_into(&cfg, &next, &restart);
        }
        config_done(&next);
        config_done(&cfg);
        free(text);
        return 0;
}
