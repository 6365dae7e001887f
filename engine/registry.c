/* engine/registry.c — the games arbiterd runs.  Adding a game is its
 * engine file, its data and one line here.  Nothing else defines
 * eng_games, so a test build of the daemon can link its own list instead
 * (tests/games/registry.c). */
#include "engine/engine.h"

#include "engine/crash_pilot.h"
#include "engine/crazy_pilot.h"
#include "engine/pitch_fleet.h"

const struct eng_game *const eng_games[] = {
        &cp_game,
        &cz_game,
        &pf_game,
        NULL,
};
