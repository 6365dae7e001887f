/* tools/arbiter-padsim/keyboard.c — see keyboard.h. */
#include "tools/arbiter-padsim/keyboard.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <termios.h>
#include <unistd.h>
#include <event2/event.h>

#include "common/time.h"
#include "tools/arbiter-padsim/pad.h"
#include "tools/arbiter-padsim/plog.h"

/* A key is a tap: terminals report presses only. */
#define KBD_HOLD_MS     80
#define KEY_ESC         0x1b
#define KEY_CTRL_C      0x03
#define KBD_READ_CHUNK  256

static const char pad0_keys[] = "1234567";
static const char pad1_keys[] = "qwertyu";

struct kbd {
        struct sim *sim;
        struct event *ev;
};

/* The terminal as we found it; file-scope so that the atexit handler can
 * put it back whatever path the process leaves by. */
static struct termios saved_termios;
static bool termios_changed;

static void kbd_restore_terminal(void) {
        if (termios_changed && tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios) == 0)
                termios_changed = false;
}

static void kbd_press(struct kbd *k, unsigned pad, unsigned button) {
        struct sim *s = k->sim;

        if (pad >= s->n_pads || button >= pad_buttons(s->pads[pad])) {
                plog(PLOG_INFO, "keyboard: pad %u has no button %u", pad, button);
                return;
        }
        pad_press(s->pads[pad], button, now_usec(), -1, KBD_HOLD_MS * USEC_PER_MSEC);
}

static void kbd_slap(struct kbd *k) {
        struct sim *s = k->sim;

        for (unsigned i = 0; i < s->n_pads; i++) {
                if (pad_kind(s->pads[i]) == PROTO_KIND_SLAP) {
                        kbd_press(k, i, 0);
                        return;
                }
        }
        plog(PLOG_INFO, "keyboard: no slap pad (try --kinds buttons,slap)");
}

/* Length of the escape sequence starting at buf[0] (ESC): ESC [ params
 * final, ESC O x, or a lone ESC, which is the quit key. */
static size_t escape_length(const unsigned char *buf, size_t n) {
        size_t i;

        if (n < 2)
                return 1;
        if (buf[1] == 'O')
                return n < 3 ? n : 3;
        if (buf[1] != '[')
                return 1;
        for (i = 2; i < n; i++)
                if (buf[i] >= 0x40 && buf[i] <= 0x7e)
                        return i + 1;
        return n;
}

static void kbd_read_cb(evutil_socket_t fd, short what, void *userdata) {
        struct kbd *k = userdata;
        unsigned char buf[KBD_READ_CHUNK];
        ssize_t n;

        (void) what;
        n = read(fd, buf, sizeof buf);
        if (n <= 0) {
                if (n < 0 && errno == EINTR)
                        return;
                event_del(k->ev);
                return;
        }
        for (size_t i = 0; i < (size_t) n; i++) {
                int c = buf[i];
                const char *at;

                if (c == KEY_ESC) {
                        size_t len = escape_length(buf + i, (size_t) n - i);
                        if (len == 1) {
                                sim_quit(k->sim);
                                return;
                        }
                        i += len - 1;           /* an arrow or function key: ignored */
                } else if (c == KEY_CTRL_C) {
                        sim_quit(k->sim);
                        return;
                } else if (c >= '1' && (at = strchr(pad0_keys, c)) != NULL) {
                        kbd_press(k, 0, (unsigned) (at - pad0_keys));
                } else if (isalpha(c) && (at = strchr(pad1_keys, tolower(c))) != NULL) {
                        kbd_press(k, 1, (unsigned) (at - pad1_keys));
                } else if (c == ' ') {
                        kbd_slap(k);
                } else if (c == 'p' || c == 'P') {
                        sim_toggle_plug(k->sim);
                }
        }
}

/* Non-canonical, no echo, one byte at a time; ISIG stays so that Ctrl-C
 * is a signal and OPOST stays so that our stderr lines still end in CR LF. */
static int kbd_setup_terminal(void) {
        struct termios t;

        if (!isatty(STDIN_FILENO))
                return 0;
        if (tcgetattr(STDIN_FILENO, &saved_termios) < 0)
                return -errno;
        t = saved_termios;
        t.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        if (tcsetattr(STDIN_FILENO, TCSANOW, &t) < 0)
                return -errno;
        if (!termios_changed)
                atexit(kbd_restore_terminal);
        termios_changed = true;
        return 0;
}

int kbd_new(struct sim *s, struct kbd **ret) {
        struct kbd *k = calloc(1, sizeof *k);
        struct stat st;
        int r;

        if (!k)
                return -ENOMEM;
        k->sim = s;
        if (fstat(STDIN_FILENO, &st) < 0 || !plog_pollable(STDIN_FILENO, &st)) {
                plog(PLOG_WARN, "--keyboard needs a terminal (or a pipe) on stdin");
                kbd_free(k);
                return -EINVAL;
        }
        k->ev = event_new(s->base, STDIN_FILENO, EV_READ | EV_PERSIST, kbd_read_cb, k);
        if (!k->ev || event_add(k->ev, NULL) < 0) {
                plog(PLOG_WARN, "--keyboard: cannot watch stdin (is it a terminal or a pipe?)");
                kbd_free(k);
                return -EINVAL;
        }
        r = kbd_setup_terminal();
        if (r < 0) {
                plog(PLOG_WARN, "--keyboard: cannot set up the terminal: %s", strerror(-r));
                kbd_free(k);
                return r;
        }
        plog(PLOG_INFO, "keyboard: 1-7 pad 0 buttons 0-6, q-u pad 1 buttons 0-6, space slap, "
             "p unplug/replug, Esc quits");
        *ret = k;
        return 0;
}

void kbd_free(struct kbd *k) {
        kbd_restore_terminal();
        if (!k)
                return;
        if (k->ev)
                event_free(k->ev);
        free(k);
}
