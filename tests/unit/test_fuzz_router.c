/* tests/unit/test_fuzz_router.c — tests/fuzz/corpus/router/ replayed through the
 * router target's invariants (tests/fuzz/router_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/router_fuzz.c"

FUZZ_REPLAY_MAIN("router", router_fuzz_check)
