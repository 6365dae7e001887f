/* tests/unit/test_fuzz_bodies.c — tests/fuzz/corpus/bodies/ replayed
 * through the bodies target's invariants (tests/fuzz/bodies_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/bodies_fuzz.c"

FUZZ_REPLAY_MAIN("bodies", bodies_fuzz_check)
