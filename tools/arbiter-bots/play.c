/* tools/arbiter-bots/play.c — see play.h. */
#include "tools/arbiter-bots/play.h"

#include <string.h>

#include "tools/arbiter-bots/crazy.h"
#include "tools/arbiter-bots/player.h"

const struct play_game *const play_games[] = { &play_crash_pilot, &play_crazy_pilot, NULL };

const struct play_game *play_game_find(const char *name) {
        for (size_t i = 0; name && play_games[i]; i++)
                if (strcmp(play_games[i]->name, name) == 0)
                        return play_games[i];
        return NULL;
}
