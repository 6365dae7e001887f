/* tests/games/registry.c — the games of a test build of the daemon
 * (build/tests/arbiterd-test) and of the unit tests: the production list
 * (engine/registry.c) and the framework's test game.  Linked before the
 * library, so engine/registry.o is never pulled in. */
#include "engine/engine.h"

#include "engine/crash_pilot.h"
#include "engine/crazy_pilot.h"
#include "engine/pitch_fleet.h"
#include "reflex.h"

const struct eng_game *const eng_games[] = {
        &cp_game,
        &cz_game,
        &pf_game,
        &rx_game,
        NULL,
};
