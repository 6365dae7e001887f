/* tests/unit/fuzz_replay.h — a fuzz target's corpus as cmocka regression
 * tests: every file in tests/fuzz/corpus/NAME/ (seeds, the fuzzer's finds,
 * crash-* inputs kept for good) fed to the target's check function, whose
 * FUZZ_ASSERT fails the test naming the file.
 *
 * A test includes this, then the target (tests/fuzz/NAME_fuzz.c), then
 * FUZZ_REPLAY_MAIN:
 *
 *     #include "tests/unit/fuzz_replay.h"
 *     #include "tests/fuzz/spool_fuzz.c"
 *     FUZZ_REPLAY_MAIN("spool", spool_fuzz_check)
 *
 * Run from the repository root, as tests/run.sh does. */
#ifndef ARBITER_TESTS_FUZZ_REPLAY_H
#define ARBITER_TESTS_FUZZ_REPLAY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CORPUS_ROOT "tests/fuzz/corpus/"

/* The corpus file being replayed, for the failure message. */
static const char *fuzz_replay_file = "(none)";

#define FUZZ_ASSERT(cond) \
        do { \
                if (!(cond)) \
                        fail_msg("%s: fuzz invariant %s fails (%s:%d)", fuzz_replay_file, #cond, __FILE__, __LINE__); \
        } while (0)

/* The whole of path, malloc'd (at least one byte, for empty files). */
static uint8_t *fuzz_replay_read(const char *path, size_t *ret_len) {
        FILE *f = fopen(path, "rb");
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, n;

        if (!f)
                return NULL;
        do {
                if (len == cap) {
                        uint8_t *b = realloc(buf, cap = cap ? 2 * cap : 4096);
                        if (!b) {
                                free(buf);
                                fclose(f);
                                return NULL;
                        }
                        buf = b;
                }
                n = fread(buf + len, 1, cap - len, f);
                len += n;
        } while (n > 0);
        fclose(f);
        *ret_len = len;
        return buf;
}

/* Feeds every file of the corpus NAME to check; how many there were. */
static size_t fuzz_replay(const char *name, void (*check)(const uint8_t *data, size_t size)) {
        char pattern[256];
        size_t n = 0;
        glob_t gl;

        snprintf(pattern, sizeof pattern, FUZZ_CORPUS_ROOT "%s/*", name);
        if (glob(pattern, 0, NULL, &gl) != 0)
                return 0;
        for (size_t i = 0; i < gl.gl_pathc; i++) {
                size_t len = 0;
                uint8_t *data = fuzz_replay_read(gl.gl_pathv[i], &len);

                if (!data)
                        fail_msg("cannot read %s", gl.gl_pathv[i]);
                fuzz_replay_file = gl.gl_pathv[i];
                check(data, len);
                free(data);
                n++;
        }
        fuzz_replay_file = "(none)";
        globfree(&gl);
        return n;
}

#define FUZZ_REPLAY_MAIN(name, check) \
        static void corpus_inputs_keep_the_invariants(void **state) { \
                (void) state; \
                if (fuzz_replay(name, check) == 0) \
                        fail_msg("no corpus in " FUZZ_CORPUS_ROOT name); \
        } \
        int main(void) { \
                const struct CMUnitTest tests[] = { cmocka_unit_test(corpus_inputs_keep_the_invariants) }; \
                return cmocka_run_group_tests_name(name " fuzz corpus", tests, NULL, NULL); \
        }

#endif
