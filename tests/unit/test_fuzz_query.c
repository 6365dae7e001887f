/* tests/unit/test_fuzz_query.c — tests/fuzz/corpus/query/ replayed through
 * the query target's invariants (tests/fuzz/query_fuzz.c). */
#include "tests/unit/fuzz_replay.h"
#include "tests/fuzz/query_fuzz.c"

FUZZ_REPLAY_MAIN("query", query_fuzz_check)
