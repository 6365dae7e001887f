/* tests/unit/test_fuzz_config.c — tests/fuzz/corpus/config/ replayed through the
 * config target's invariants (tests/fuzz/config_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/config_fuzz.c"

FUZZ_REPLAY_MAIN("config", config_fuzz_check)
