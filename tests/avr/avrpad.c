/* tests/avr/avrpad.c — the pad's firmware (firmware/, docs/hardware.md) on
 * emulated ATmega328Ps, their UARTs on one pseudo-terminal that arbiterd
 * opens like any serial port.
 *
 *     avrpad [options] FIRMWARE.elf
 *     PTY /dev/pts/N                  first line of stdout: the line
 *
 *     --uid 0xUID      the pad's uid (pad K of several: UID + K)
 *     --pads N         N pads (1..8) on one RS-485 bus; N > 1 needs --rs485
 *                      and --uid
 *     --rs485          RS-485 turn-taking (EEPROM flag) and a half-duplex bus
 *     --ppm A[,B,...]  each pad's crystal error, the last repeated (default 0)
 *     --kind K, --buttons N   the EEPROM's kind and number of buttons
 *     --link PATH      a symlink to the pty, as arbiter-padsim --link keeps
 *     --trace          every frame both ways, decoded
 *     --stats          the statistics at exit
 *
 * simavr (libsimavr) runs the real machine code cycle by cycle (chip.c);
 * this program adds what a bench would.  Files: avrpad.h (the shared
 * state), chip.c (one chip, its pins, reset and simavr's faults), line.c
 * (the wire and the bus), command.c (the commands), this file (the
 * options, the pacing of every pad to the wall clock, stdin and the pty).
 *
 * The clock.  Emulated time never runs ahead of wall time: pad p's crystal
 * is F_CPU x (1 + ppm / 10^6), so its cycle c is due at start + c /
 * (F_CPU (1 + ppm 10^-6)) on CLOCK_MONOTONIC ("line time").  The loop
 * takes the wall clock's now, advances every pad to it, writes to the pty
 * what is due, and only when every pad has caught up waits (ppoll on the
 * pty and stdin) until the earliest of: a frame's delimiter due at the pty,
 * or something due inside a pad (its next cycle timer, a byte reaching it,
 * a scheduled edge or reset) but, unless a pad is sending, no sooner than
 * SLICE_NS (50 µs) after the last round — so between rounds the pads lag
 * the wall clock by up to a slice, rather than the loop waking for every
 * byte time; a frame's first byte may come to light that late, its
 * delimiter not.  simavr's sleep callback never waits: it only stops a
 * sleeping chip's jump at the pad's horizon (below).  Busy code is not run
 * faster than the firmware would to catch up: a loaded host (or several
 * busy pads: each costs about one chip's emulation, 0.35 s of CPU a second
 * under a flood of host frames) makes emulated time lag, and the lag is
 * reported (`time`, `stats`).
 *
 * Lockstep.  Several pads run one at a time, always the one furthest
 * behind (by what it still has to do), and none past another pad's
 * "earliest transmission" (the next moment it could write a byte: now if
 * it is running; if it sleeps, its next cycle timer, scheduled edge or
 * incoming byte) plus one byte time — no byte can reach a pad sooner than
 * that.  A pad that writes a byte gives way at once; one that ran ahead
 * takes a byte only once no other pad can start one that overlaps it.  So
 * every pad is handed each byte in its own time exactly, with every byte
 * that overlaps it already known.
 *
 * The line.  A byte a pad writes occupies the wire for 10 bit times at the
 * rate its firmware set (UBRR0, U2X0), from when its shift register takes
 * it (once the byte before has left), and reaches the pty at the end of its
 * stop bit, as a real UART receiver on the host would get it (a frame's
 * delimiter then, the bytes before it up to a slice late; `stats` says how
 * late the delimiters were written, with the emulation lagging).  What the
 * host writes goes on the wire as it is read, one byte after the other at
 * pad 0's rate, and reaches each pad's receiver at the end of its stop bit
 * (our receiver: two bytes buffered and one in the shift register, a
 * fourth an overrun).  Full-duplex (one pad without --rs485): two wires.
 * RS-485: one bus.  A pad drives it only while its DE (PD2) is high; a byte
 * written with DE low never reaches the line and is printed as a violation,
 * and so is DE dropped before the last stop bit has left.  Every byte
 * reaches the host and every other pad whose DE is low (DE and /RE are
 * tied: a driving pad hears nothing).  Two drivers at once (the host
 * included) are a collision: where bytes overlap one byte is heard, the
 * AND of them, so the frames fail their CRC; counted, and printed once per
 * pair of drivers until their bytes stop overlapping.
 *
 * Commands on stdin, one a line:
 *
 *     [@K] press B [T]      button B's pin goes low (closed) at T
 *     [@K] release B [T]    and high again
 *     [@K] reset [T]        the chip's reset pin: the firmware starts over;
 *                           power stays, so the EEPROM (the uid) does
 *     [@K] drop out [N] [TYPE]  the next N (1) whole frames the pad sends
 *                           are lost on the line, from their first byte to
 *                           their 0x00 (the pad thinks it sent them); with a
 *                           TYPE (a name of docs/protocol.md section 6 such
 *                           as PRESS, or 0xNN) only frames of that type, lost
 *                           to the host (on a bus the other pads hear them)
 *     [@K] drop in [N] [TYPE]   the next N (1) whole frames from the host
 *                           (of that TYPE) never reach the pad's UART: those
 *                           whose first byte reaches it after the command
 *     [@K] time             the emulated time's host time, and the lag
 *     [@K] stats            the interrupt and line statistics
 *     [@K] peek ADDR [N]    N bytes (1) of data memory from ADDR (an address
 *                           from avr-nm, 0x800000 + the SRAM address, or the
 *                           SRAM address itself)
 *     quit
 *
 * @K is the pad (0-based) when several run; without it a command is for
 * pad 0, except time and stats, which are for every pad.  A time T is
 * "now" or nothing (at once), NNN (emulated µs since the pad's power-on,
 * by its own clock) or hNNN (µs of the host's CLOCK_MONOTONIC, the clock
 * arbiterd's times are in, converted with the pad's crystal: so pads in
 * different processes can be pressed at chosen host times).  A time
 * already past is refused.  Up to 64 edges and resets wait per pad.
 *
 * Output, one line per event, "[E] " first (E: emulated µs since the
 * pad's power-on, one decimal) and then, with several pads, "pad K " for a
 * pad's lines and "line " for the line's (stamped with pad 0's time):
 *
 *     [E] atmega328p at 16000000 Hz, crystal +0.0 ppm, full-duplex, uid from --uid
 *     [E] pad K atmega328p at 16000000 Hz, crystal +30.0 ppm, RS-485, uid 0x...
 *     [E] button B pressed host_us H      (or released)  H: CLOCK_MONOTONIC µs
 *     [E] light L on                      (or off; L 0..6), status on|off, DE on|off
 *     [E] buzzer on                       buzzer off (quiet since E)
 *     [E] reset host_us H
 *     [E] dropped out frame addr A seq S type 0xTT PAYLOAD   (dropped in frame ...)
 *     [E] receiver overrun: byte 0xBB lost (...)             (DOR0: a fourth unread)
 *     [E] collision with the host host_us H                  (one pad)
 *     [E] line collision pad K with pad J|the host host_us H (several)
 *     [E] DE violation: ...
 *     [E] time host_us H lag_us L
 *     [E] pad>  addr A seq S type 0xTT PAYLOAD              (--trace; host> for
 *                                                            the host's)
 *     [E] error: ...
 *
 * host_us is the CLOCK_MONOTONIC time that emulated moment stands for, so
 * that a press arbiterd reports can be checked against the one injected.
 * The outputs: the lights (PD4..PD7, PB0..PB2), the status light (PB5),
 * the RS-485 driver enable (PD2) as they change; the buzzer (PB3, toggled
 * by Timer2) "on" at its first edge and "off" after BUZZ_QUIET_US without
 * one.  Buttons are pins PC0..PC5 and PD3, active low, held as the ports'
 * external level (firmware/board.h).
 *
 * Interrupts.  After every instruction the loop looks at the PC and the I
 * flag: an interrupt's handler runs from its vector to the RETI that sets I
 * again, and the cycles in between are counted per vector; so are the
 * stretches the main loop runs with interrupts masked.  `stats` and the
 * exit (--stats, or a chip that stopped) print them, per pad, and the
 * line's collisions.
 *
 * The uid and the configuration go into the emulated EEPROM before the
 * firmware starts (--uid, --kind, --buttons, --rs485), as
 * firmware/config.h lays it out; a reset keeps them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <sim_avr.h>

#include "tests/avr/avrpad.h"

/* The most wall time a round spends advancing the pads before stdin and
 * the pty are looked at again (when the emulation lags). */
#define ROUND_NS                100000
/* What happens inside the pads is caught up with at most this often:
 * between two rounds they lag the wall clock by up to a slice, rather
 * than the loop waking for every timer of every chip (a byte time at
 * 1 Mbaud) or spinning beside a busy one. */
#define SLICE_NS                50000

struct avrpad h;

static char cmd[4096];
static size_t cmd_len;
static int stdin_open = 1;

int64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t min64(int64_t a, int64_t b) {
        return a < b ? a : b;
}

/* ---- the scheduler ---- */

/* The earliest line time p still has something to do at: its own time,
 * or a byte or a scheduled edge due before it (a byte it was not yet
 * safe to hand over when it ran ahead). */
static int64_t pad_due_ns(const struct pad *p) {
        avr_cycle_count_t c = p->avr->cycle;

        if (p->next_rx < c)
                c = p->next_rx;
        if (p->next_sched < c)
                c = p->next_sched;
        return pad_ns(p, c);
}

/* Runs p up to line time lim_ns (one instruction at least when it has
 * nothing else to do: it is the pad furthest behind), handing it its
 * bytes and its scheduled edges on the way; stops early when it puts a
 * byte on the line, or when a byte for it may not be handed over yet. */
static void run_pad(struct pad *p, int64_t lim_ns) {
        avr_cycle_count_t lim = pad_cycle_at(p, lim_ns);
        int progress = 0;

        h.cur = p;
        p->yield = 0;
        while (!h.stop) {
                avr_t *avr = p->avr;

                if (p->next_rx <= avr->cycle) {
                        int given = 0, all = line_deliver(p, &given);

                        progress |= given;
                        if (!all || p->next_rx <= avr->cycle)
                                break;
                        continue;
                }
                if (p->next_sched <= avr->cycle) {
                        pad_run_scheduled(p);
                        progress = 1;
                        continue;
                }
                if (progress && (avr->cycle >= lim || p->yield))
                        break;
                p->horizon = lim;
                if (p->next_rx < p->horizon)
                        p->horizon = p->next_rx;
                if (p->next_sched < p->horizon)
                        p->horizon = p->next_sched;
                int state = pad_step(p);
                progress = 1;
                if (state != cpu_Running && state != cpu_Sleeping) {
                        say(p, "the chip stopped: state %d at pc 0x%04x", state, avr->pc);
                        pad_stats(p);
                        h.stop = state == cpu_Crashed ? 2 : 1;
                }
        }
        h.cur = NULL;
}

/* Every pad to line time target, the one furthest behind first (by what
 * it still has to do: pad_due_ns), for at most ROUND_NS of wall time
 * (then stdin and the pty are looked at). */
static void advance(int64_t target) {
        int64_t lookahead = h.n_pads > 1 ? line_lookahead_ns() : 0;
        int64_t give_up = mono_ns() + ROUND_NS;

        while (!h.stop && mono_ns() < give_up) {
                struct pad *p = NULL;
                int64_t tp = target;

                for (int k = 0; k < h.n_pads; k++) {
                        int64_t t = pad_due_ns(&h.pads[k]);

                        if (t < tp) {
                                p = &h.pads[k];
                                tp = t;
                        }
                }
                if (!p)
                        return;
                int64_t lim = target;
                for (int k = 0; k < h.n_pads; k++) {
                        int64_t e;

                        if (k != p->index && (e = pad_eot(&h.pads[k])) != NEVER)
                                lim = min64(lim, e + lookahead);
                }
                run_pad(p, lim);
                if (h.n_pads > 1 && line_next_flush_ns(0) <= tp)
                        line_flush();
        }
}

/* ---- stdin and the pty ---- */

/* Waits until line time until_ns or until the pty or stdin has something,
 * and reads it: the host's bytes go on the wire at once, the commands wait
 * for the pads to catch up (run_commands). */
static void io_wait(int64_t until_ns) {
        struct pollfd fds[2] = {
                { .fd = line_can_read() ? line_fd() : -1, .events = POLLIN },
                { .fd = stdin_open ? 0 : -1, .events = POLLIN },
        };
        int64_t left = until_ns - mono_ns();
        struct timespec ts = { 0, 0 };

        if (left > 0) {
                ts.tv_sec = left / 1000000000;
                ts.tv_nsec = left % 1000000000;
        }
        if (ppoll(fds, 2, &ts, NULL) <= 0)
                return;
        if (fds[0].revents & POLLIN)
                line_host_read();
        if (fds[1].revents & (POLLIN | POLLHUP)) {
                ssize_t n = read(0, cmd + cmd_len, sizeof cmd - 1 - cmd_len);

                if (n <= 0)
                        stdin_open = 0;
                else
                        cmd_len += (size_t) n;
        }
}

static void run_commands(void) {
        char *nl;

        cmd[cmd_len] = '\0';
        while (!h.stop && (nl = strchr(cmd, '\n'))) {
                *nl = '\0';
                command(cmd);
                memmove(cmd, nl + 1, cmd_len - (size_t) (nl + 1 - cmd) + 1);
                cmd_len -= (size_t) (nl + 1 - cmd);
        }
        if (cmd_len == sizeof cmd - 1)
                cmd_len = 0;            /* a line too long: dropped */
}

/* The line time at which something is next due: a frame's delimiter to
 * the pty (line.c), or something in a pad, but not sooner than a slice
 * after the last round. */
static int64_t next_due(int64_t round) {
        int64_t pads = NEVER;
        int sending = 0;

        for (int k = 0; k < h.n_pads; k++) {
                struct pad *p = &h.pads[k];

                pads = min64(pads, pad_eot(p));
                if (p->buzz_on)
                        pads = min64(pads, pad_ns(p, p->buzz_last + (avr_cycle_count_t) BUZZ_QUIET_US
                                                                          * (F_CPU / 1000000) + 1));
                sending |= p->tx_free_ns > round;
        }
        /* A pad sending a frame is followed byte by byte, so that its
         * delimiter is known before its stop bit ends. */
        if (!sending && pads != NEVER && pads < round + SLICE_NS)
                pads = round + SLICE_NS;
        return min64(pads, line_next_flush_ns(SLICE_NS));
}

static void loop(void) {
        while (!h.stop) {
                int64_t now = mono_ns();

                /* How late the emulation comes to what is due. */
                for (int k = 0; k < h.n_pads; k++) {
                        struct pad *p = &h.pads[k];
                        int64_t t = pad_now_ns(p), due = pad_eot(p);
                        int64_t lag = now - (due > t ? due : t);

                        if (lag > p->lag_max_ns)
                                p->lag_max_ns = lag;
                }
                advance(now);
                run_commands();
                line_flush();
                for (int k = 0; k < h.n_pads; k++)
                        pad_buzzer_check(&h.pads[k]);

                io_wait(next_due(now));
        }
}

/* ---- start ---- */

static void on_signal(int sig) {
        (void) sig;
        h.stop = 1;
}

static void usage(void) {
        fprintf(stderr, "usage: avrpad [--uid 0xUID] [--pads N] [--kind 1|2] [--buttons N] [--rs485]\n"
                        "              [--ppm PPM[,PPM...]] [--link PATH] [--stats] [--trace] FIRMWARE.elf\n");
        exit(2);
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "uid", required_argument, NULL, 'u' },
                { "pads", required_argument, NULL, 'n' },
                { "kind", required_argument, NULL, 'k' },
                { "buttons", required_argument, NULL, 'b' },
                { "rs485", no_argument, NULL, 'r' },
                { "ppm", required_argument, NULL, 'p' },
                { "link", required_argument, NULL, 'l' },
                { "stats", no_argument, NULL, 's' },
                { "trace", no_argument, NULL, 't' },
                { NULL, 0, NULL, 0 },
        };
        uint8_t ee[11];
        double ppm[MAX_PADS] = { 0 };
        int n_ppm = 0, have_uid = 0, stats = 0, c, r;
        uint64_t uid = 0;
        const char *link = NULL;

        memset(ee, 0xff, sizeof ee);
        h.n_pads = 1;
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'u':
                        uid = strtoull(optarg, NULL, 0);
                        have_uid = 1;
                        break;
                case 'n':
                        h.n_pads = atoi(optarg);
                        if (h.n_pads < 1 || h.n_pads > MAX_PADS)
                                usage();
                        break;
                case 'k': ee[8] = (uint8_t) atoi(optarg); break;
                case 'b': ee[9] = (uint8_t) atoi(optarg); break;
                case 'r': ee[10] = 0x01; h.rs485 = 1; break;
                case 'p':
                        n_ppm = 0;
                        for (char *s = optarg, *end; n_ppm < MAX_PADS; s = end + 1) {
                                ppm[n_ppm++] = strtod(s, &end);
                                if (end == s || (*end && *end != ','))
                                        usage();
                                if (!*end)
                                        break;
                        }
                        break;
                case 'l': link = optarg; break;
                case 's': stats = 1; break;
                case 't': h.trace = 1; break;
                default: usage();
                }
        }
        if (optind != argc - 1)
                usage();
        if (h.n_pads > 1 && (!h.rs485 || !have_uid)) {
                fprintf(stderr, "avrpad: --pads %d needs --rs485 (one bus) and --uid (UID, UID + 1, ...)\n",
                        h.n_pads);
                return 2;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        /* ppoll's wake-ups on time, not up to 50 µs late: the pty gets
         * each byte at the end of its stop bit. */
        (void) prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

        for (int k = 0; k < h.n_pads; k++) {
                struct pad *p = &h.pads[k];

                p->ppm = ppm[k < n_ppm ? k : (n_ppm ? n_ppm - 1 : 0)];
                p->uid = uid + (uint64_t) k;
                p->have_uid = have_uid;
                for (int i = 0; i < 8; i++)
                        ee[i] = (uint8_t) (p->uid >> (8 * i));
                if (pad_init(p, k, argv[optind], ee, have_uid) < 0)
                        return 1;
        }
        if ((r = line_open(link)) < 0) {
                fprintf(stderr, "avrpad: pty%s%s: %s\n", link ? " or link " : "", link ? link : "", strerror(-r));
                return 1;
        }
        printf("PTY %s\n", line_pty());
        for (int k = 0; k < h.n_pads; k++) {
                struct pad *p = &h.pads[k];

                if (h.n_pads == 1)
                        printf("[0.0] atmega328p at %u Hz, crystal %+.1f ppm, %s, uid %s\n", F_CPU, p->ppm,
                               h.rs485 ? "RS-485" : "full-duplex", have_uid ? "from --uid" : "from the ELF or none");
                else
                        printf("[0.0] pad %d atmega328p at %u Hz, crystal %+.1f ppm, RS-485, uid 0x%016" PRIx64 "\n",
                               k, F_CPU, p->ppm, p->uid);
        }

        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGPIPE, SIG_IGN);
        h.start_ns = mono_ns();
        loop();

        if (stats && h.stop != 2) {
                for (int k = 0; k < h.n_pads; k++)
                        pad_stats(&h.pads[k]);
                line_stats();
        }
        line_close();
        return h.stop == 2 ? 1 : 0;
}
