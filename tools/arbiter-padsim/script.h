/* tools/arbiter-padsim/script.h — timed actions from JSON lines.
 *
 * Each line of the script (a file, or stdin with "-") is one JSON object,
 * one action: a press or release, an unplug, a burst of garbage, or quit;
 * docs/padsim.md has the format.  A line with a time ("at_us" or "at_ms"
 * since the simulator started, "in_us" or "in_ms" after the line is read)
 * runs then; one without runs when it is read.
 * A bad line is reported on stderr with its number and skipped.  Stdin is
 * read as it arrives, so a test can feed actions while the simulator runs;
 * its end does not stop the simulator.
 *
 * Ownership: the script owns its queued actions and its stdin event.
 */
#ifndef ARBITER_PADSIM_SCRIPT_H
#define ARBITER_PADSIM_SCRIPT_H

#include "tools/arbiter-padsim/sim.h"

struct script;

/* Reads a file at once, or starts watching stdin for "-".  Returns -errno
 * (logged) when the file cannot be opened. */
int script_new(struct sim *s, const char *path, struct script **ret);
void script_free(struct script *sc);    /* accepts NULL */

#endif
