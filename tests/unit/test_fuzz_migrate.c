/* tests/unit/test_fuzz_migrate.c — tests/fuzz/corpus/migrate/ replayed
 * through the migrations target's invariants (tests/fuzz/migrate_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/migrate_fuzz.c"

FUZZ_REPLAY_MAIN("migrate", migrate_fuzz_check)
