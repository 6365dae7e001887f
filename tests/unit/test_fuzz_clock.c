/* tests/unit/test_fuzz_clock.c — tests/fuzz/corpus/clock/ replayed through
 * the clock model target's invariants (tests/fuzz/clock_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/clock_fuzz.c"

FUZZ_REPLAY_MAIN("clock", clock_fuzz_check)
