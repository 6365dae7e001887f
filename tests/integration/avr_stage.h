/* tests/integration/avr_stage.h — the stage of the emulated-pad tests
 * (test_avr_*.c): pads running the real firmware (tests/avr/avrpad) and the
 * daemon that has their line(s) as its pad ports, every pad connected and
 * its clock synced before a test starts.  Two lines:
 *
 *   AVR_LINES_OWN   each pad its own avrpad process and pty (a USB pad),
 *                   full-duplex;
 *   AVR_LINE_BUS    every pad on one RS-485 bus: one avrpad process
 *                   (--pads N --rs485), one pty, in [pads] rs485_ports, so
 *                   that the daemon polls it (docs/protocol.md section 10).
 *
 * Either way the daemon reads at 1 Mbaud (the firmware's speed) with
 * [pads] pty_wire_time = yes, a generous settle window (50 ms, 150 on a
 * bus, with a 20 ms rs485_reply_margin), and syncs every 200 ms.  Pad i is
 * uid uid_base + i with crystal error ppm[i].
 *
 * Presses are injected at chosen host times (CLOCK_MONOTONIC µs, the clock
 * arbiterd reports in: avrpad's hNNN, which each pad turns into its own
 * emulated time through its crystal), so that two pads press when the test
 * says, whatever process they are in; the pad prints the host time each
 * edge stands for, which is what arbiterd's reported times are checked
 * against.  A pad's output lines are "[E] WHAT" alone and "[E] pad K WHAT"
 * on a bus: tag[i] is what comes before WHAT, so that a needle names one
 * pad ("%slight 3 on", tag[i]). */
#ifndef ARBITER_TESTS_AVR_STAGE_H
#define ARBITER_TESTS_AVR_STAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "tests/integration/avrpad_proc.h"
#include "tests/integration/harness.h"

#define AVR_STAGE_MAX_PADS      4
/* How far ahead of now a press is scheduled: the command must reach the
 * pad's process before its emulated clock gets there, on a loaded machine. */
#define AVR_STAGE_LEAD_US       200000
/* The same for a single press, which only has to come after what the test
 * saw (the window it presses in). */
#define AVR_STAGE_TAP_LEAD_US   100000
/* How many times a press that came after its time is tried again before
 * the machine is called too slow for the test. */
#define AVR_STAGE_TRIES         10

enum avr_line {
        AVR_LINES_OWN,
        AVR_LINE_BUS,
};

struct avr_stage {
        enum avr_line line;
        struct daemon_proc daemon;
        struct avrpad_proc procs[AVR_STAGE_MAX_PADS];
        unsigned n_procs, n_pads;
        unsigned proc_of[AVR_STAGE_MAX_PADS];   /* pad i runs in procs[proc_of[i]] */
        char ids[AVR_STAGE_MAX_PADS][17];       /* the uids as /v1/pads names them */
        char tag[AVR_STAGE_MAX_PADS][24];       /* "] " or "] pad K " */
        char at[AVR_STAGE_MAX_PADS][16];        /* "" or "@K ": a command's prefix */
        char *config_path;
        /* made before the daemon starts, so that its first load of the
         * tokens has them */
        char *admin_token, *referee_token;
};

/* Starts n pads on line (with pad_args, NULL-terminated, may be NULL,
 * added to every avrpad's), an admin and a referee token, then the daemon;
 * waits until every pad is connected and synced. */
void avr_stage_start(struct avr_stage *s, enum avr_line line, unsigned n, uint64_t uid_base, const int *ppm,
                     const char *const *pad_args);
/* Stops the daemon (SIGTERM) and the pads; fails the test when the daemon
 * did not exit with 0, or a pad printed an error (but a command that came
 * after its time), drove its line with DE low, or its chip stopped. */
void avr_stage_stop(struct avr_stage *s);

/* The avrpad process pad i runs in. */
struct avrpad_proc *avr_stage_proc(struct avr_stage *s, unsigned i);
/* The end of what pad i's process printed so far: a mark to wait from. */
size_t avr_stage_mark(struct avr_stage *s, unsigned i);
/* Sends a command for pad i (with its @K on a bus). */
void avr_stage_send(struct avr_stage *s, unsigned i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Waits for pad i's next line WHAT containing what (the pad's tag put
 * before it) after *mark; fails the test when it does not come.  line may
 * be NULL. */
void avr_stage_expect(struct avr_stage *s, unsigned i, size_t *mark, const char *what, char *line, size_t size);

/* Waits until every pad is connected and its clock synced; fails the test
 * after HARNESS_WAIT_MS. */
void avr_stage_wait_synced(struct avr_stage *s);

/* GET /v1/pads/{id} of pad i (a new reference). */
json_t *avr_stage_pad(struct avr_stage *s, unsigned i);
/* One of pad i's counters in /v1/pads. */
json_int_t avr_stage_counter(struct avr_stage *s, unsigned i, const char *name);

/* The seq after which the next press will come (GET /v1/presses' next). */
json_int_t avr_stage_press_seq(struct avr_stage *s);
/* The presses after seq after (a new reference to the items), once at
 * least n have come; fails the test otherwise. */
json_t *avr_stage_presses(struct avr_stage *s, json_int_t after, size_t n);

/* A host time far enough ahead to schedule a press at (now + lead). */
int64_t avr_stage_soon(void);
/* Schedules pad i's button to close at host µs host_us and open hold_us
 * later; *mark is where to look for its line (avr_stage_pressed). */
void avr_stage_schedule(struct avr_stage *s, unsigned i, unsigned button, int64_t host_us, int64_t hold_us,
                        size_t *mark);
/* Waits for the press scheduled from *mark: the host µs the pad printed
 * for the edge; -1 when the pad refused it (its time had passed when the
 * command came: a loaded machine), which the caller may retry. */
int64_t avr_stage_pressed(struct avr_stage *s, unsigned i, unsigned button, size_t *mark);
/* Both: presses pad i's button at host_us (held 50 ms); fails the test
 * when the pad refuses. */
int64_t avr_stage_press(struct avr_stage *s, unsigned i, unsigned button, int64_t host_us);
/* Presses pad i's button a moment from now (AVR_STAGE_TAP_LEAD_US: never
 * in a lagging emulation's past) and releases it 30 ms later; returns the
 * host µs the pad printed for the press. */
int64_t avr_stage_tap(struct avr_stage *s, unsigned i, unsigned button);

#endif
