/* tests/unit/test_fuzz_sse.c — tests/fuzz/corpus/sse/ replayed through the
 * Last-Event-ID target's invariants (tests/fuzz/sse_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/sse_fuzz.c"

FUZZ_REPLAY_MAIN("sse", sse_fuzz_check)
