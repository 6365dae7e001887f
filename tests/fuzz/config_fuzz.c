/* libFuzzer target: the configuration parser never crashes, leaks or
 * reads out of bounds, and any input either parses or reports FILE:LINE;
 * what parses once parses again, and reloads into itself.
 *
 * tests/unit/test_fuzz_config.c replays tests/fuzz/corpus/config/ through
 * config_fuzz_check() with FUZZ_ASSERT mapped to cmocka. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void config_fuzz_check(const uint8_t *data, size_t size) {
        struct config cfg = { 0 }, next = { 0 };
        char err[256];
        char *text = malloc(size + 1);
        bool restart;

        if (!text)
                return;
        memcpy(text, data, size);
        text[size] = '\0';
        if (config_parse_string(&cfg, "fuzz.conf", text, err, sizeof err) < 0) {
                FUZZ_ASSERT(strncmp(err, "fuzz.conf", 9) == 0);        /* every error names the file */
        } else {
                FUZZ_ASSERT(config_parse_string(&next, "fuzz.conf", text, err, sizeof err) == 0);
                config_reload_into(&cfg, &next, &restart);
        }
        config_done(&next);
        config_done(&cfg);
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        config_fuzz_check(data, size);
        return 0;
}
