/* tools/arbiter-padsim/script.c — see script.h. */
#include "tools/arbiter-padsim/script.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <event2/event.h>
#include <jansson.h>

#include "common/time.h"
#include "tools/arbiter-padsim/line.h"
#include "tools/arbiter-padsim/pad.h"
#include "tools/arbiter-padsim/plog.h"

/* A line longer than this is not an action anyone wrote by hand or by
 * program; it is reported and skipped. */
#define SCRIPT_MAX_LINE         4096
/* How long a scripted press is held when the line does not say: a quick
 * tap on an arcade button. */
#define SCRIPT_DEFAULT_HOLD_MS  80
/* Limits that catch a typo (seconds for milliseconds) rather than anything
 * the simulator could not do. */
#define SCRIPT_MAX_GARBAGE      4096
#define SCRIPT_MAX_DELAY_US     (60 * USEC_PER_SEC)

enum action_kind {
        ACTION_PRESS,
        ACTION_RELEASE,
        ACTION_UNPLUG,
        ACTION_GARBAGE,
        ACTION_QUIT,
};

struct action {
        struct action *next;
        enum action_kind kind;
        unsigned line_no;
        int64_t at_us;                  /* CLOCK_MONOTONIC µs */
        unsigned pad, button;
        int64_t hold_us;                /* 0: held until a release action */
        int64_t delay_us;               /* -1: the line's transport delay */
        int64_t unplug_us;
        size_t garbage;
};

struct script {
        struct sim *sim;
        const char *name;               /* for messages: the path or "stdin" */
        struct action *queue;           /* sorted by at_us, then line order */
        struct action *tail;            /* its last action, when queue is not empty */
        struct event *timer;
        struct event *stdin_ev;
        char buf[SCRIPT_MAX_LINE + 1];
        size_t len;
        bool skipping;                  /* inside an overlong line */
        unsigned line_no;
        unsigned n_actions, n_bad;
};

static void script_arm(struct script *sc) {
        event_del(sc->timer);
        if (sc->queue)
                sim_timer_at(sc->timer, sc->queue->at_us);
}

static void action_run(struct script *sc, const struct action *a) {
        struct sim *s = sc->sim;

        switch (a->kind) {
        case ACTION_PRESS:
                pad_press(s->pads[a->pad], a->button, a->at_us, a->delay_us, a->hold_us);
                break;
        case ACTION_RELEASE:
                pad_release(s->pads[a->pad], a->button, a->at_us);
                break;
        case ACTION_UNPLUG:
                sim_unplug(s, a->unplug_us);
                break;
        case ACTION_GARBAGE:
                plog(PLOG_INFO, "%s:%u: %zu bytes of garbage", sc->name, a->line_no, a->garbage);
                line_write_garbage(s->line, a->garbage);
                break;
        case ACTION_QUIT:
                plog(PLOG_INFO, "%s:%u: quit", sc->name, a->line_no);
                sim_quit(s);
                break;
        }
}

/* Runs every action that is due, in time order and, at equal times, in the
 * order of the script's lines. */
static void script_timer_cb(evutil_socket_t fd, short what, void *userdata) {
        struct script *sc = userdata;
        int64_t now = now_usec();

        (void) fd;
        (void) what;
        while (sc->queue && sc->queue->at_us <= now) {
                struct action *a = sc->queue;
                sc->queue = a->next;
                action_run(sc, a);
                free(a);
        }
        script_arm(sc);
}

/* A script is usually written in time order, so a new action mostly goes
 * last: the tail check keeps reading a long benchmark script linear. */
static void script_enqueue(struct script *sc, struct action *a) {
        struct action **p;

        if (sc->queue && sc->tail->at_us <= a->at_us) {
                p = &sc->tail->next;
        } else {
                for (p = &sc->queue; *p && (*p)->at_us <= a->at_us; p = &(*p)->next)
                        ;
        }
        a->next = *p;
        *p = a;
        if (!a->next)
                sc->tail = a;
        script_arm(sc);
}

/* A non-negative number from key, scaled to µs; 1 when present and set,
 * 0 when absent, -EINVAL when it is there but not such a number. */
static int get_duration(json_t *o, const char *key, int64_t scale, int64_t max_us, int64_t *ret) {
        json_t *v = json_object_get(o, key);
        double d;

        if (!v)
                return 0;
        if (!json_is_number(v))
                return -EINVAL;
        d = json_number_value(v) * (double) scale;
        if (!isfinite(d) || d < 0 || d > (double) max_us)
                return -EINVAL;
        *ret = llround(d);
        return 1;
}

static int get_index(json_t *o, const char *key, unsigned limit, unsigned *ret) {
        json_t *v = json_object_get(o, key);

        if (!v)
                return 0;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= limit)
                return -EINVAL;
        *ret = (unsigned) json_integer_value(v);
        return 1;
}

/* Checks one object and turns it into an action; on a problem writes a
 * sentence for the person who wrote the line into err and returns -EINVAL. */
static int action_parse(struct script *sc, json_t *o, struct action *a, char *err, size_t err_size) {
        static const char *const known[] = {
                "at_us", "at_ms", "in_us", "in_ms", "pad", "button", "press", "hold_ms", "delay_us",
                "unplug_ms", "garbage", "quit", NULL,
        };
        struct sim *s = sc->sim;
        const char *key;
        json_t *v, *press, *unplug, *garbage, *quit;
        int64_t at = -1, in = -1, hold_us = SCRIPT_DEFAULT_HOLD_MS * USEC_PER_MSEC;
        int n_kinds, n_times, r;

        json_object_foreach(o, key, v) {
                bool ok = false;
                for (size_t i = 0; known[i]; i++)
                        ok = ok || strcmp(key, known[i]) == 0;
                if (!ok) {
                        snprintf(err, err_size, "unknown key \"%s\"", key);
                        return -EINVAL;
                }
        }
        n_times = !!json_object_get(o, "at_us") + !!json_object_get(o, "at_ms") +
                  !!json_object_get(o, "in_us") + !!json_object_get(o, "in_ms");
        if (n_times > 1) {
                snprintf(err, err_size, "give one time at most: at_us, at_ms, in_us or in_ms");
                return -EINVAL;
        }
        if (get_duration(o, "at_us", 1, INT64_MAX / 2, &at) < 0 ||
            get_duration(o, "at_ms", USEC_PER_MSEC, INT64_MAX / 2, &at) < 0 ||
            get_duration(o, "in_us", 1, INT64_MAX / 2, &in) < 0 ||
            get_duration(o, "in_ms", USEC_PER_MSEC, INT64_MAX / 2, &in) < 0) {
                snprintf(err, err_size, "at_us, at_ms, in_us and in_ms must be numbers >= 0");
                return -EINVAL;
        }
        press = json_object_get(o, "press");
        unplug = json_object_get(o, "unplug_ms");
        garbage = json_object_get(o, "garbage");
        quit = json_object_get(o, "quit");
        n_kinds = !!press + !!unplug + !!garbage + !!quit;
        if (n_kinds != 1) {
                snprintf(err, err_size, "an action needs exactly one of \"press\", \"unplug_ms\", \"garbage\" "
                         "or \"quit\"");
                return -EINVAL;
        }
        *a = (struct action) { .delay_us = -1 };
        if (at >= 0)
                a->at_us = s->start_us + at;
        else
                a->at_us = now_usec() + (in >= 0 ? in : 0);

        if (!press && (json_object_get(o, "pad") || json_object_get(o, "button") ||
                       json_object_get(o, "hold_ms") || json_object_get(o, "delay_us"))) {
                snprintf(err, err_size, "pad, button, hold_ms and delay_us belong to a press");
                return -EINVAL;
        }
        if (press) {
                if (!json_is_boolean(press)) {
                        snprintf(err, err_size, "\"press\" must be true (press) or false (release)");
                        return -EINVAL;
                }
                a->kind = json_is_true(press) ? ACTION_PRESS : ACTION_RELEASE;
                if (get_index(o, "pad", s->n_pads, &a->pad) <= 0) {
                        snprintf(err, err_size, "\"pad\" must be a pad number from 0 to %u", s->n_pads - 1);
                        return -EINVAL;
                }
                if (get_index(o, "button", pad_buttons(s->pads[a->pad]), &a->button) <= 0) {
                        snprintf(err, err_size, "\"button\" must be from 0 to %u for pad %u",
                                 pad_buttons(s->pads[a->pad]) - 1, a->pad);
                        return -EINVAL;
                }
                r = get_duration(o, "hold_ms", USEC_PER_MSEC, SCRIPT_MAX_DELAY_US, &hold_us);
                if (r < 0 || (r > 0 && a->kind == ACTION_RELEASE)) {
                        snprintf(err, err_size, "\"hold_ms\" is a number of ms >= 0, and only for a press");
                        return -EINVAL;
                }
                a->hold_us = hold_us;
                r = get_duration(o, "delay_us", 1, SCRIPT_MAX_DELAY_US, &a->delay_us);
                if (r < 0 || (r > 0 && a->kind == ACTION_RELEASE)) {
                        snprintf(err, err_size, "\"delay_us\" is a number of µs >= 0, and only for a press");
                        return -EINVAL;
                }
        } else if (unplug) {
                a->kind = ACTION_UNPLUG;
                if (get_duration(o, "unplug_ms", USEC_PER_MSEC, SCRIPT_MAX_DELAY_US, &a->unplug_us) < 0) {
                        snprintf(err, err_size, "\"unplug_ms\" must be a number of ms >= 0");
                        return -EINVAL;
                }
        } else if (garbage) {
                a->kind = ACTION_GARBAGE;
                if (!json_is_integer(garbage) || json_integer_value(garbage) < 1 ||
                    json_integer_value(garbage) > SCRIPT_MAX_GARBAGE) {
                        snprintf(err, err_size, "\"garbage\" must be a byte count from 1 to %d", SCRIPT_MAX_GARBAGE);
                        return -EINVAL;
                }
                a->garbage = (size_t) json_integer_value(garbage);
        } else {
                a->kind = ACTION_QUIT;
                if (!json_is_true(quit)) {
                        snprintf(err, err_size, "\"quit\" must be true");
                        return -EINVAL;
                }
        }
        return 0;
}

/* One complete line: blank lines and lines starting with '#' are comments.
 * An action whose time has come (or has none) runs at once, so that lines
 * without times keep their order relative to each other; a press whose
 * time is already past happened now, not in the past. */
static void script_line(struct script *sc, const char *text) {
        json_error_t jerr;
        struct action *a;
        char err[256];
        json_t *o;
        int64_t now;

        while (*text == ' ' || *text == '\t' || *text == '\r')
                text++;
        if (*text == '\0' || *text == '#')
                return;
        o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
        if (!o || !json_is_object(o)) {
                plog(PLOG_WARN, "%s:%u: not a JSON object: %s", sc->name, sc->line_no,
                     o ? "expected {...}" : jerr.text);
                json_decref(o);
                sc->n_bad++;
                return;
        }
        a = malloc(sizeof *a);
        if (!a || action_parse(sc, o, a, err, sizeof err) < 0) {
                plog(PLOG_WARN, "%s:%u: %s; line skipped", sc->name, sc->line_no, a ? err : "out of memory");
                json_decref(o);
                free(a);
                sc->n_bad++;
                return;
        }
        json_decref(o);
        a->line_no = sc->line_no;
        sc->n_actions++;
        now = now_usec();
        if (a->at_us <= now && !sc->queue) {
                a->at_us = now;
                action_run(sc, a);
                free(a);
                return;
        }
        if (a->at_us < now)
                a->at_us = now;
        script_enqueue(sc, a);
}

/* Splits bytes into lines; text is fed in whatever pieces read() returns. */
static void script_feed(struct script *sc, const char *data, size_t n) {
        for (size_t i = 0; i < n; i++) {
                char c = data[i];
                if (c == '\n') {
                        sc->line_no++;
                        if (sc->skipping) {
                                plog(PLOG_WARN, "%s:%u: longer than %d bytes; line skipped", sc->name, sc->line_no,
                                     SCRIPT_MAX_LINE);
                                sc->n_bad++;
                        } else {
                                sc->buf[sc->len] = '\0';
                                script_line(sc, sc->buf);
                        }
                        sc->len = 0;
                        sc->skipping = false;
                } else if (sc->len < SCRIPT_MAX_LINE) {
                        sc->buf[sc->len++] = c;
                } else {
                        sc->skipping = true;
                }
        }
}

/* A last line without its newline still counts. */
static void script_eof(struct script *sc) {
        if (sc->len > 0 || sc->skipping)
                script_feed(sc, "\n", 1);
        plog(PLOG_INFO, "%s: end of script (%u action%s, %u bad line%s)", sc->name, sc->n_actions,
             sc->n_actions == 1 ? "" : "s", sc->n_bad, sc->n_bad == 1 ? "" : "s");
}

/* One read per readiness, without O_NONBLOCK: stdin's file description may
 * be shared with a shell, which would not thank us for changing its flags. */
static void script_stdin_cb(evutil_socket_t fd, short what, void *userdata) {
        struct script *sc = userdata;
        char buf[SCRIPT_MAX_LINE];
        ssize_t n;

        (void) what;
        n = read(fd, buf, sizeof buf);
        if (n > 0) {
                script_feed(sc, buf, (size_t) n);
                return;
        }
        if (n < 0 && errno == EINTR)
                return;
        if (n < 0)
                plog(PLOG_WARN, "%s: %s", sc->name, strerror(errno));
        event_del(sc->stdin_ev);
        script_eof(sc);
}

static int script_read_all(struct script *sc, int fd) {
        char buf[SCRIPT_MAX_LINE];
        ssize_t n;

        while ((n = read(fd, buf, sizeof buf)) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                script_feed(sc, buf, (size_t) n);
        }
        script_eof(sc);
        return 0;
}

/* A file is read whole at start; its timed actions wait in the queue.
 * Stdin is watched with the loop when it is a pipe, socket or terminal;
 * a regular file or /dev/null cannot be polled and is read whole too
 * (reading either never blocks). */
int script_new(struct sim *s, const char *path, struct script **ret) {
        struct script *sc = calloc(1, sizeof *sc);
        bool use_stdin = strcmp(path, "-") == 0;
        struct stat st;
        int fd, r;

        if (!sc)
                return -ENOMEM;
        sc->sim = s;
        sc->name = use_stdin ? "stdin" : path;
        sc->timer = evtimer_new(s->base, script_timer_cb, sc);
        if (!sc->timer) {
                free(sc);
                return -ENOMEM;
        }
        *ret = sc;
        if (use_stdin && fstat(STDIN_FILENO, &st) == 0 && plog_pollable(STDIN_FILENO, &st)) {
                sc->stdin_ev = event_new(s->base, STDIN_FILENO, EV_READ | EV_PERSIST, script_stdin_cb, sc);
                if (sc->stdin_ev && event_add(sc->stdin_ev, NULL) == 0)
                        return 0;
                if (sc->stdin_ev)
                        event_free(sc->stdin_ev);
                sc->stdin_ev = NULL;
        }
        fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                plog(PLOG_WARN, "--script %s: %s", path, strerror(-r));
                script_free(sc);
                *ret = NULL;
                return r;
        }
        r = script_read_all(sc, fd);
        if (!use_stdin)
                close(fd);
        if (r < 0) {
                plog(PLOG_WARN, "--script %s: %s", path, strerror(-r));
                script_free(sc);
                *ret = NULL;
        }
        return r;
}

void script_free(struct script *sc) {
        if (!sc)
                return;
        while (sc->queue) {
                struct action *a = sc->queue;
                sc->queue = a->next;
                free(a);
        }
        if (sc->stdin_ev)
                event_free(sc->stdin_ev);
        event_free(sc->timer);
        free(sc);
}
