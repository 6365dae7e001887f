/* tests/unit/test_fuzz_spool.c — tests/fuzz/corpus/spool/ replayed through
 * the spool reader target's invariants (tests/fuzz/spool_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/spool_fuzz.c"

FUZZ_REPLAY_MAIN("spool", spool_fuzz_check)
