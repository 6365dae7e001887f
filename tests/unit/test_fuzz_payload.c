/* tests/unit/test_fuzz_payload.c — tests/fuzz/corpus/payload/ replayed
 * through the pad payload target's invariants (tests/fuzz/payload_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/payload_fuzz.c"

FUZZ_REPLAY_MAIN("payload", payload_fuzz_check)
