/* engine/crazy_cards_data.c — Crazy Pilot's built-in catalogue of 94
 * situation cards, one a line (format: docs/games/crazy-pilot-cards.md;
 * parsed by cz_catalogue_parse, engine/crazy_cards.h).  Each card's answer
 * is the one its scene calls for by cz_scene_answer(), and its text says
 * what the scene holds. */
#include "engine/crazy_cards.h"

const char cz_builtin_cards[] =
"# id answer fields | text\n"
"c01 straight road=straight lanes=2 car=1 | An empty two-lane road under a clear sky\n"
"c02 hand road=crossroads lanes=2 car=1 light=red items=bicycle@3/1 | A red light at a crossroads; a cyclist waits on the right\n"
"c03 u_turn road=straight lanes=2 car=2 items=monster@1/3 | A huge monster stands across the road ahead\n"
"c04 left road=straight lanes=2 car=2 items=roadworks@2/2,cone@2/1 | Roadworks and a cone close your lane; the left lane is free\n"
"c05 right road=straight lanes=2 car=1 items=tree@1/2 | A fallen tree lies across your lane; the right lane is free\n"
"c06 zombie road=straight lanes=2 car=1 items=zombie@3/3 zombie=yes | A small zombie lurks far away on the right verge\n"
"c07 fork_left road=fork_left lanes=1 car=1 | The road forks: a branch goes left, the road goes on\n"
"c08 fork_right road=fork_right lanes=1 car=1 items=scarecrow@2/2 | A fork to the right; a scarecrow stands in the field\n"
;
