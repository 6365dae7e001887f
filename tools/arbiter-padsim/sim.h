/* tools/arbiter-padsim/sim.h — one simulated bus: the options it was started
 * with and the objects that make it up.
 *
 * A struct sim owns one libevent base, one line (the pty or serial port and
 * its transport), the pads sharing that line, and whatever drives them (a
 * script, the keyboard, bots).  Everything runs on the base's one thread;
 * nothing here blocks.  sim_run() builds it all from the options, runs the
 * loop until a signal, a script "quit" or Esc, and tears it down again.
 */
#ifndef ARBITER_PADSIM_SIM_H
#define ARBITER_PADSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "hardware/protocol.h"

struct event;
struct event_base;

/* Each pad needs its own bus address, and there are this many. */
#define SIM_MAX_PADS PROTO_ADDR_MAX

struct pad_config {
        uint64_t uid;
        uint8_t kind;                   /* enum proto_pad_kind */
        uint8_t n_buttons;
        bool has_clock;
        int64_t offset_us;              /* pad clock minus true elapsed time at start */
        double drift_ppm;               /* how much faster the pad's crystal runs */
        uint32_t clock_start;           /* every pad clock's value at start, before the offset */
};

struct sim_options {
        unsigned n_pads;
        struct pad_config pads[SIM_MAX_PADS];
        int64_t delay_us;               /* transport delay, pad → host */
        int64_t jitter_us;              /* plus uniform(0, jitter) per frame */
        double bitflip;                 /* probability per frame */
        double garbage_rate;            /* bursts per second, on average */
        double drop;                    /* probability per frame */
        const char *port;               /* open this instead of creating a pty */
        const char *link;               /* keep a symlink here to the current pty */
        const char *script;             /* a file, or "-" for stdin */
        bool keyboard;
        bool bots;
        int64_t bot_period_us;
        uint64_t seed;
        int log_level;                  /* enum plog_level */
        bool events;                    /* event records on stdout */
};

struct sim {
        struct event_base *base;
        const struct sim_options *opt;
        int64_t start_us;               /* CLOCK_MONOTONIC µs when the simulator started */
        struct line *line;
        struct pad *pads[SIM_MAX_PADS];
        unsigned n_pads;
        struct script *script;
        struct kbd *kbd;
        struct bots *bots;
        struct event *sigint, *sigterm;
        int status;                     /* exit status sim_run() returns */
        bool quitting;                  /* sim_quit() was called */
};

/* Runs the simulator; returns the process exit status (0, or 1 on failure). */
int sim_run(const struct sim_options *opt);

/* Ends the loop after the current callback (script "quit", Esc, a signal). */
void sim_quit(struct sim *s);

/* Arms a one-shot timer ev to fire at CLOCK_MONOTONIC time due_us (now if it
 * is already past). */
void sim_timer_at(struct event *ev, int64_t due_us);

/* "buttons", "slap", "referee": the names --kind takes. */
const char *sim_kind_name(uint8_t kind);

/* Unplugs the line for duration_us (< 0: until sim_toggle_plug() again). */
void sim_unplug(struct sim *s, int64_t duration_us);
void sim_toggle_plug(struct sim *s);

#endif
