/* tools/arbiter-padsim/keyboard.h — pads pressed from the keyboard.
 *
 * For a person trying the simulator: keys 1–7 press buttons 0–6 of pad 0,
 * q w e r t y u buttons 0–6 of pad 1, space slaps the first slap pad, p
 * unplugs the line or plugs it back in, Esc or Ctrl-C quits.  A terminal
 * cannot report key releases, so each key is a tap of KBD_HOLD_MS.
 *
 * On a terminal, stdin is switched to non-canonical mode without echo
 * (signals stay on, so Ctrl-C still arrives as SIGINT) and restored by
 * kbd_free(), or by an atexit handler should the process leave otherwise.
 * Stdin that is not a terminal is read as the same keys, which is how the
 * mapping can be tested.
 */
#ifndef ARBITER_PADSIM_KEYBOARD_H
#define ARBITER_PADSIM_KEYBOARD_H

#include "tools/arbiter-padsim/sim.h"

struct kbd;

/* Returns -errno (logged) when the terminal cannot be set up. */
int kbd_new(struct sim *s, struct kbd **ret);
void kbd_free(struct kbd *k);           /* accepts NULL; restores the terminal */

#endif
