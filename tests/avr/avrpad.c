/* tests/avr/avrpad.c — the pad's firmware (firmware/, docs/hardware.md) on an
 * emulated ATmega328P, its UART on a pseudo-terminal that arbiterd opens like
 * any serial port.
 *
 *     avrpad [options] FIRMWARE.elf
 *     PTY /dev/pts/N                  first line of stdout: the line
 *
 * simavr (libsimavr) runs the real machine code cycle by cycle.  This
 * program adds what a bench would:
 *
 * The line.  Bytes the firmware writes to UDR0 go to the pty master as it
 * writes them; bytes the host writes are handed to the UART's receiver, which
 * delivers them one byte time apart (simavr paces its receiver at the baud
 * rate the firmware set), never more than its FIFO takes (XON/XOFF).
 * --link PATH keeps a symlink to the pty, as arbiter-padsim --link does.
 *
 * The clock.  Emulated time never runs ahead of wall time: the chip's
 * crystal is F_CPU x (1 + ppm / 10^6) (--ppm, default 0), so cycle c is due
 * at start + c / (F_CPU (1 + ppm 10^-6)) on CLOCK_MONOTONIC.  Busy code runs
 * faster than that in simavr, so every PACE_CYCLES the loop waits for the
 * wall clock; while the firmware sleeps, simavr asks its sleep callback to
 * pass the time to the next cycle timer, and ours waits for the wall clock
 * too (simavr's own, avr_callback_sleep_raw, would usleep through it), on
 * ppoll() of the pty and stdin, so a byte or a command that arrives during
 * the sleep wakes it: the cycle count then moves only as far as the wall
 * clock has, and the byte goes in at once.  Emulated time can fall behind
 * (a loaded host) and is then not caught up by running faster than the
 * firmware would: it lags, and the lag is reported (`time`).
 *
 * The buttons.  Commands on stdin, one a line, times in emulated µs since
 * power-on ("now" or nothing: at once):
 *
 *     press B [T]       button B's pin goes low (closed) at T
 *     release B [T]     and high again
 *     time              prints the emulated time and its host time
 *     stats             prints the interrupt statistics
 *     peek ADDR [N]     prints N bytes (default 1) of data memory from ADDR
 *                       (an address from avr-nm, 0x800000 + the SRAM address
 *                       or the SRAM address itself)
 *     quit
 *
 * Each applied edge is printed with its emulated time and the host time it
 * corresponds to (CLOCK_MONOTONIC µs, the clock arbiterd's times are in),
 * so that a press arbiterd reports can be checked against the one injected.
 * Button pins follow firmware/board.h: buttons 0..5 PC0..PC5, button 6 PD3,
 * active low, set as the ports' external level so the firmware's own port
 * writes (pull-ups, lights) do not overwrite them.
 *
 * The outputs.  Changes of the lights (PD4..PD7, PB0..PB2), the status
 * light (PB5), the RS-485 driver enable (PD2) are printed with their
 * emulated time; the buzzer (PB3, toggled by Timer2) as "buzzer on" at its
 * first edge and "off" after BUZZ_QUIET_US without one.  With --rs485 every
 * byte the firmware sends while DE is low is counted and printed as a
 * violation.
 *
 * Interrupts.  After every instruction the loop looks at the PC and the I
 * flag: an interrupt's handler runs from its vector to the RETI that sets I
 * again (the firmware's handlers do not re-enable interrupts), and the
 * cycles in between are counted per vector; so are the stretches the main
 * loop runs with interrupts masked.  `stats` and the exit print them.
 *
 * --trace prints every frame both ways, decoded, with its emulated time.
 *
 * The uid and the configuration go into the emulated EEPROM before the
 * firmware starts (--uid, --kind, --buttons, --rs485), as
 * firmware/config.h lays it out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>
#include <sim_io.h>
#include <sim_cycle_timers.h>
#include <avr_eeprom.h>
#include <avr_extint.h>
#include <avr_ioport.h>
#include <avr_uart.h>

#define F_CPU                   16000000u
/* How far busy code may run before the loop looks at the wall clock and
 * the line again: 100 µs of emulated time. */
#define PACE_CYCLES             (F_CPU / 10000)
#define BUZZ_QUIET_US           5000
#define LINE_BUF                4096
#define MAX_SCHEDULED           64
/* The ATmega328P's interrupt vectors: 26 of 4 bytes (datasheet, table 12-6). */
#define N_VECTORS               26
#define VECTOR_BYTES            4

static const char *const vector_name[N_VECTORS] = {
        "RESET", "INT0", "INT1", "PCINT0", "PCINT1", "PCINT2", "WDT",
        "TIMER2_COMPA", "TIMER2_COMPB", "TIMER2_OVF", "TIMER1_CAPT",
        "TIMER1_COMPA", "TIMER1_COMPB", "TIMER1_OVF", "TIMER0_COMPA",
        "TIMER0_COMPB", "TIMER0_OVF", "SPI_STC", "USART_RX", "USART_UDRE",
        "USART_TX", "ADC", "EE_READY", "ANALOG_COMP", "TWI", "SPM_READY",
};

struct button_pin {
        char port;
        uint8_t bit;
};

/* firmware/board.h */
static const struct button_pin button_pins[] = {
        { 'C', 0 }, { 'C', 1 }, { 'C', 2 }, { 'C', 3 }, { 'C', 4 }, { 'C', 5 }, { 'D', 3 },
};
#define N_BUTTONS (sizeof button_pins / sizeof button_pins[0])

struct output_pin {
        char port;
        uint8_t bit;
        const char *name;
};

static const struct output_pin output_pins[] = {
        { 'D', 4, "light 0" }, { 'D', 5, "light 1" }, { 'D', 6, "light 2" }, { 'D', 7, "light 3" },
        { 'B', 0, "light 4" }, { 'B', 1, "light 5" }, { 'B', 2, "light 6" },
        { 'B', 5, "status" }, { 'D', 2, "DE" },
};
#define N_OUTPUTS (sizeof output_pins / sizeof output_pins[0])
#define OUTPUT_DE (N_OUTPUTS - 1)

struct scheduled {
        int used;
        unsigned button;
        int pressed;
};

static struct {
        avr_t *avr;
        double ppm;
        int64_t start_ns;               /* CLOCK_MONOTONIC at cycle 0 */
        int rs485;

        int master, slave;
        char pty[256];
        const char *link;

        uint8_t rx[LINE_BUF];           /* host -> pad, not yet in the UART */
        size_t rx_len;
        int uart_xoff;
        avr_irq_t *uart_in;
        avr_uart_t *uart;
        avr_cycle_timer_t tx_pump;      /* simavr's transmitter timer (static there) */

        char cmd[1024];
        size_t cmd_len;
        int stdin_open;

        uint8_t ext[3];                 /* external levels of ports B, C, D */
        struct scheduled sched[MAX_SCHEDULED];

        int de;
        uint64_t de_violations;
        uint64_t bytes_out, bytes_in;
        int buzz_on;
        avr_cycle_count_t buzz_last;

        /* interrupt accounting */
        int in_isr, isr_vector, masked, seen_sei;
        int io_pending;                 /* read during a sleep, not yet taken */
        avr_cycle_count_t isr_start, masked_start;
        uint64_t isr_count[N_VECTORS], isr_total[N_VECTORS];
        uint32_t isr_min[N_VECTORS], isr_max[N_VECTORS];
        uint64_t masked_max, masked_count;
        avr_cycle_count_t lag_max_cycles;
        uint64_t instructions, slept_cycles, sleeps;

        int trace;
        uint8_t trace_buf[2][64];       /* [0] pad -> host, [1] host -> pad */
        size_t trace_len[2];

        volatile sig_atomic_t stop;
} h;

static int64_t mono_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wall time (CLOCK_MONOTONIC ns) at which cycle c is due. */
static int64_t cycle_wall_ns(avr_cycle_count_t c) {
        return h.start_ns + (int64_t) ((double) c * 1e9 / ((double) F_CPU * (1.0 + h.ppm * 1e-6)));
}

/* The cycle due at wall time ns. */
static avr_cycle_count_t wall_cycle(int64_t ns) {
        if (ns <= h.start_ns)
                return 0;
        return (avr_cycle_count_t) ((double) (ns - h.start_ns) * (double) F_CPU * (1.0 + h.ppm * 1e-6) / 1e9);
}

/* Emulated µs since power-on, by the chip's own (nominal) clock. */
static double emu_us(avr_cycle_count_t c) {
        return (double) c / (F_CPU / 1000000);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
        va_list ap;

        printf("[%.1f] ", emu_us(h.avr->cycle));
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
}

/* ---- the line ---- */

/* --trace: each frame on the line, COBS-decoded, as one line: direction,
 * address, seq, type and payload in hex (no CRC check: the firmware and
 * arbiterd count faults). */
static void trace_byte(int dir, uint8_t b) {
        uint8_t *buf = h.trace_buf[dir];
        size_t *len = &h.trace_len[dir];

        if (!h.trace)
                return;
        if (b != 0) {
                if (*len < sizeof h.trace_buf[dir])
                        buf[(*len)++] = b;
                return;
        }
        if (*len == 0)
                return;
        uint8_t f[64];
        size_t i = 0, o = 0;
        while (i < *len) {
                uint8_t code = buf[i++];
                for (uint8_t k = 1; k < code && i < *len; k++)
                        f[o++] = buf[i++];
                if (code != 0xff && i < *len)
                        f[o++] = 0;
        }
        *len = 0;
        if (o < 7) {
                say("%s %zu bytes, too short", dir ? "host>" : "pad> ", o);
                return;
        }
        char hex[3 * 64 + 1] = "";
        for (size_t k = 5; k < o - 2; k++)
                sprintf(hex + 3 * (k - 5), " %02x", f[k]);
        say("%s addr %u seq %u type 0x%02x%s", dir ? "host>" : "pad> ", f[1], f[2] | f[3] << 8, f[4], hex);
}

static int make_raw(int fd) {
        struct termios t;

        if (tcgetattr(fd, &t) < 0)
                return -errno;
        cfmakeraw(&t);
        t.c_cflag |= CLOCAL | CREAD;
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        return tcsetattr(fd, TCSANOW, &t) < 0 ? -errno : 0;
}

/* A raw pty; we hold the slave open too, so that the master does not
 * report a hang-up each time arbiterd closes it (arbiter-padsim's line.c
 * does the same, for the same reason). */
static int open_pty(void) {
        h.master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (h.master < 0)
                return -errno;
        if (grantpt(h.master) < 0 || unlockpt(h.master) < 0 || ptsname_r(h.master, h.pty, sizeof h.pty) != 0)
                return -errno;
        h.slave = open(h.pty, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (h.slave < 0)
                return -errno;
        return make_raw(h.slave);
}

static int link_update(const char *link, const char *path) {
        char tmp[PATH_MAX];

        if (snprintf(tmp, sizeof tmp, "%s.avrpad-%d", link, (int) getpid()) >= (int) sizeof tmp)
                return -ENAMETOOLONG;
        (void) unlink(tmp);
        if (symlink(path, tmp) < 0)
                return -errno;
        if (rename(tmp, link) < 0) {
                int r = -errno;
                (void) unlink(tmp);
                return r;
        }
        return 0;
}

static void link_remove(void) {
        char target[PATH_MAX];
        ssize_t n;

        if (!h.link)
                return;
        n = readlink(h.link, target, sizeof target - 1);
        if (n < 0)
                return;
        target[n] = '\0';
        if (strcmp(target, h.pty) == 0)
                (void) unlink(h.link);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
        uint8_t b = (uint8_t) value;

        (void) irq;
        (void) param;
        /* simavr's transmitter counts bytes out on a timer started by the
         * first byte and kept running while UDRIE is on; a byte written
         * when the line is idle (none in flight) then ends at that timer's
         * next tick, which may be a few cycles away, not a byte time: the
         * next ticks lose count of it, and TXC never comes (the pad held
         * its line forever when an interrupt delayed its UDRE handler).
         * Restart the timer at this byte, as the chip starts its shift
         * register: simavr's own udr_write registers it again right after
         * this callback (its "synchronize tx pump" line, commented out). */
        if (h.uart && h.tx_pump && h.uart->tx_cnt == 0)
                avr_cycle_timer_cancel(h.avr, h.tx_pump, h.uart);
        h.bytes_out++;
        trace_byte(0, b);
        if (h.rs485 && !h.de) {
                h.de_violations++;
                say("DE violation: byte 0x%02x sent with the driver disabled", b);
        }
        /* A full pty (nobody reading) loses the byte, as a line would. */
        if (write(h.master, &b, 1) < 0 && errno != EAGAIN)
                say("pty write: %s", strerror(errno));
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param) {
        (void) irq;
        (void) param;
        h.uart_xoff = value != 0;
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param) {
        (void) irq;
        (void) param;
        if (value)
                h.uart_xoff = 0;
}

/* Hands what the host wrote to the UART while its FIFO takes it. */
static void feed_uart(void) {
        size_t i = 0;

        while (i < h.rx_len && !h.uart_xoff) {
                trace_byte(1, h.rx[i]);
                avr_raise_irq(h.uart_in, h.rx[i++]);
                h.bytes_in++;
        }
        memmove(h.rx, h.rx + i, h.rx_len - i);
        h.rx_len -= i;
}

/* ---- the buttons ---- */

static avr_irq_t *port_irq(char port, uint8_t bit) {
        return avr_io_getirq(h.avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}

static void set_external(char port) {
        uint8_t mask = 0;

        for (size_t i = 0; i < N_BUTTONS; i++)
                if (button_pins[i].port == port)
                        mask |= (uint8_t) (1u << button_pins[i].bit);
        avr_ioport_external_t e = { .name = port, .mask = mask, .value = h.ext[port - 'B'] };
        avr_ioctl(h.avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(port), &e);
}

static void apply_edge(unsigned button, int pressed) {
        const struct button_pin *p = &button_pins[button];
        uint8_t *ext = &h.ext[p->port - 'B'];
        int64_t host_ns = cycle_wall_ns(h.avr->cycle);

        if (pressed)
                *ext &= (uint8_t) ~(1u << p->bit);
        else
                *ext |= (uint8_t) (1u << p->bit);
        set_external(p->port);
        avr_raise_irq(port_irq(p->port, p->bit), pressed ? 0 : 1);
        say("button %u %s host_us %" PRId64, button, pressed ? "pressed" : "released", host_ns / 1000);
}

static avr_cycle_count_t scheduled_edge(struct avr_t *avr, avr_cycle_count_t when, void *param) {
        struct scheduled *s = param;

        (void) avr;
        (void) when;
        apply_edge(s->button, s->pressed);
        s->used = 0;
        return 0;
}

static void command(char *line) {
        char verb[16], at[32] = "";
        unsigned button;
        int n = sscanf(line, "%15s %u %31s", verb, &button, at);

        if (n < 1)
                return;
        if (strcmp(verb, "quit") == 0) {
                h.stop = 1;
        } else if (strcmp(verb, "time") == 0) {
                int64_t now = mono_ns();
                say("time host_us %" PRId64 " lag_us %.1f", cycle_wall_ns(h.avr->cycle) / 1000,
                    (double) (now - cycle_wall_ns(h.avr->cycle)) / 1000);
        } else if (strcmp(verb, "peek") == 0) {
                char a[32];
                unsigned long addr, len = 1;

                if (sscanf(line, "%*s %31s %lu", a, &len) < 1)
                        return;
                addr = strtoul(a, NULL, 0) & 0xffff;
                if (addr + len > h.avr->ramend + 1UL || len > 64) {
                        say("error: peek past the RAM");
                        return;
                }
                char hex[3 * 64 + 1] = "";
                for (unsigned long i = 0; i < len; i++)
                        sprintf(hex + 3 * i, " %02x", h.avr->data[addr + i]);
                say("peek 0x%04lx:%s", addr, hex);
        } else if (strcmp(verb, "stats") == 0) {
                void print_stats(void);
                print_stats();
        } else if ((strcmp(verb, "press") == 0 || strcmp(verb, "release") == 0) && n >= 2) {
                int pressed = verb[0] == 'p';

                if (button >= N_BUTTONS) {
                        say("error: no button %u (0..%zu)", button, N_BUTTONS - 1);
                        return;
                }
                if (n < 3 || strcmp(at, "now") == 0) {
                        apply_edge(button, pressed);
                        return;
                }
                char *end;
                double t_us = strtod(at, &end);
                avr_cycle_count_t c = (avr_cycle_count_t) (t_us * (F_CPU / 1000000));

                if (*end || t_us < 0) {
                        say("error: bad time %s", at);
                        return;
                }
                if (c <= h.avr->cycle) {
                        say("error: %s µs is past (now %.1f)", at, emu_us(h.avr->cycle));
                        return;
                }
                for (size_t i = 0; i < MAX_SCHEDULED; i++) {
                        struct scheduled *s = &h.sched[i];

                        if (s->used)
                                continue;
                        *s = (struct scheduled) { 1, button, pressed };
                        avr_cycle_timer_register(h.avr, c - h.avr->cycle, scheduled_edge, s);
                        return;
                }
                say("error: more than %d edges scheduled", MAX_SCHEDULED);
        } else {
                say("error: unknown command: %s", line);
        }
}

/* ---- the outputs ---- */

static void output_changed(struct avr_irq_t *irq, uint32_t value, void *param) {
        const struct output_pin *p = param;
        int on = (value & 0xff) != 0;

        (void) irq;
        if (p == &output_pins[OUTPUT_DE])
                h.de = on;
        say("%s %s", p->name, on ? "on" : "off");
}

static void buzzer_edge(struct avr_irq_t *irq, uint32_t value, void *param) {
        (void) irq;
        (void) value;
        (void) param;
        h.buzz_last = h.avr->cycle;
        if (!h.buzz_on) {
                h.buzz_on = 1;
                say("buzzer on");
        }
}

static void buzzer_check(void) {
        if (h.buzz_on && h.avr->cycle - h.buzz_last > (avr_cycle_count_t) BUZZ_QUIET_US * (F_CPU / 1000000)) {
                h.buzz_on = 0;
                say("buzzer off (quiet since %.1f)", emu_us(h.buzz_last));
        }
}

/* ---- interrupts ---- */

void print_stats(void);
void print_stats(void) {
        say("interrupts (cycles from the vector to RETI; 16 cycles = 1 µs):");
        for (int v = 0; v < N_VECTORS; v++) {
                if (!h.isr_count[v])
                        continue;
                say("  %-13s %10" PRIu64 " times  min %4" PRIu32 "  max %4" PRIu32 "  mean %.1f", vector_name[v],
                    h.isr_count[v], h.isr_min[v], h.isr_max[v], (double) h.isr_total[v] / (double) h.isr_count[v]);
        }
        say("  main loop with interrupts masked: %" PRIu64 " times, longest %" PRIu64 " cycles", h.masked_count,
            h.masked_max);
        say("  %" PRIu64 " instructions, %" PRIu64 " sleeps, %" PRIu64 " cycles slept of %" PRIu64,
            h.instructions, h.sleeps, h.slept_cycles, (uint64_t) h.avr->cycle);
        say("  bytes out %" PRIu64 " in %" PRIu64 ", DE violations %" PRIu64 ", emulation lag max %.1f µs",
            h.bytes_out, h.bytes_in, h.de_violations, emu_us(h.lag_max_cycles));
}

static void account(void) {
        avr_t *avr = h.avr;
        int i_flag = avr->sreg[S_I];

        if (!h.in_isr && avr->pc >= VECTOR_BYTES && avr->pc < N_VECTORS * VECTOR_BYTES && !i_flag) {
                h.in_isr = 1;
                h.isr_vector = (int) (avr->pc / VECTOR_BYTES);
                h.isr_start = avr->cycle;
                h.masked = 0;
                return;
        }
        if (h.in_isr) {
                if (i_flag) {
                        int v = h.isr_vector;
                        uint32_t d = (uint32_t) (avr->cycle - h.isr_start);

                        h.in_isr = 0;
                        if (!h.isr_count[v] || d < h.isr_min[v])
                                h.isr_min[v] = d;
                        if (d > h.isr_max[v])
                                h.isr_max[v] = d;
                        h.isr_count[v]++;
                        h.isr_total[v] += d;
                }
                return;
        }
        if (!h.seen_sei) {
                h.seen_sei = i_flag;    /* start-up runs masked until its sei */
                return;
        }
        if (!i_flag && !h.masked) {
                h.masked = 1;
                h.masked_start = avr->cycle;
        } else if (i_flag && h.masked) {
                uint64_t d = avr->cycle - h.masked_start;

                h.masked = 0;
                h.masked_count++;
                if (d > h.masked_max)
                        h.masked_max = d;
        }
}

/* An interrupt whose flag is set when its enable bit is written to one is
 * requested at once on the chip (the flag and the enable are ANDed).
 * simavr 1.6 requests an interrupt only when its flag is raised while
 * enabled, and its transmitter can count the last byte of a frame as sent
 * at the end of the byte before it, raising TXC in the few cycles between
 * the firmware's write of that byte and its enabling of TXCIE: the chip
 * would then interrupt, simavr not, and the pad would hold its driver
 * enable and its line forever.  So we request it, as the chip would. */
static void txc_as_the_chip(void) {
        avr_uart_t *u = h.uart;

        if (u && !u->txc.pending && avr_regbit_get(h.avr, u->txc.raised) && avr_regbit_get(h.avr, u->txc.enable))
                avr_raise_interrupt(h.avr, &u->txc);
}

/* simavr's transmitter timer is static in avr_uart.c: we learn its
 * address from the pool after the firmware's first byte, before anything
 * was received (the receiver's timer, the only other one with the UART as
 * its parameter, runs only while bytes come in). */
static void find_tx_pump(void) {
        if (h.tx_pump || !h.bytes_out || h.bytes_in)
                return;
        for (avr_cycle_timer_slot_p t = h.avr->cycle_timers.timer; t; t = t->next)
                if (t->param == h.uart)
                        h.tx_pump = t->timer;
}

static avr_uart_t *find_uart(void) {
        for (avr_io_t *io = h.avr->io_port; io; io = io->next)
                if (io->kind && strcmp(io->kind, "uart") == 0)
                        return (avr_uart_t *) io;
        return NULL;
}

/* ---- pacing and I/O ---- */

/* Waits until wall time `until_ns` or until the pty or stdin has
 * something; reads it into h.rx and h.cmd.  Returns 1 if it read anything.
 * What it read is acted on by take_io(), between two instructions, never
 * inside simavr's sleep callback: there the cycle count is not yet the one
 * the chip will resume at. */
static int wait_io(int64_t until_ns) {
        struct pollfd fds[2] = {
                { .fd = h.master, .events = POLLIN },
                { .fd = h.stdin_open ? 0 : -1, .events = POLLIN },
        };
        int64_t left = until_ns - mono_ns();
        struct timespec ts = { 0, 0 };
        int got = 0;

        if (left > 0) {
                ts.tv_sec = left / 1000000000;
                ts.tv_nsec = left % 1000000000;
        }
        if (h.rx_len == sizeof h.rx)
                fds[0].fd = -1;         /* the UART has not taken what we hold */
        if (ppoll(fds, 2, &ts, NULL) <= 0)
                return 0;
        if (fds[0].revents & POLLIN) {
                ssize_t n = read(h.master, h.rx + h.rx_len, sizeof h.rx - h.rx_len);

                if (n > 0) {
                        h.rx_len += (size_t) n;
                        got = 1;
                }
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
                ssize_t n = read(0, h.cmd + h.cmd_len, sizeof h.cmd - 1 - h.cmd_len);

                if (n <= 0)
                        h.stdin_open = 0;
                else
                        h.cmd_len += (size_t) n;
                got = 1;
        }
        return got;
}

/* Runs the complete command lines read, then feeds the UART. */
static void take_io(void) {
        char *nl;

        h.cmd[h.cmd_len] = '\0';
        while ((nl = strchr(h.cmd, '\n'))) {
                *nl = '\0';
                command(h.cmd);
                memmove(h.cmd, nl + 1, h.cmd_len - (size_t) (nl + 1 - h.cmd) + 1);
                h.cmd_len -= (size_t) (nl + 1 - h.cmd);
        }
        if (h.cmd_len == sizeof h.cmd - 1)
                h.cmd_len = 0;          /* a line too long: dropped */
        feed_uart();
}

/* simavr's sleep callback: the firmware sleeps, and simavr is about to add
 * how_long + 1 cycles (to its next cycle timer).  Wait for the wall clock to
 * get there; if the line or stdin wakes us first, take back the cycles that
 * have not passed yet, so the clock moves only as far as the wall has. */
static void sleep_cb(avr_t *avr, avr_cycle_count_t how_long) {
        int64_t until = cycle_wall_ns(avr->cycle + how_long);

        h.sleeps++;
        h.slept_cycles += how_long;

        while (mono_ns() < until && !h.stop) {
                if (wait_io(until)) {
                        avr_cycle_count_t now = wall_cycle(mono_ns());
                        avr_cycle_count_t done = now > avr->cycle ? now - avr->cycle : 0;

                        if (done < how_long)
                                avr->cycle -= how_long - done;
                        h.io_pending = 1;
                        return;
                }
        }
}

/* Busy code: the emulated clock may not pass the wall clock. */
static void pace(void) {
        int64_t due = cycle_wall_ns(h.avr->cycle);
        int64_t now = mono_ns();

        if (now < due) {
                while (mono_ns() < due && !h.stop)
                        wait_io(due);
        } else {
                avr_cycle_count_t w = wall_cycle(now);
                avr_cycle_count_t lag = w > h.avr->cycle ? w - h.avr->cycle : 0;

                if (lag > h.lag_max_cycles)
                        h.lag_max_cycles = lag;
                wait_io(now);
        }
        take_io();
        buzzer_check();
}

/* simavr's messages go to stderr, warnings and worse only: stdout is the
 * record a person or a test reads, PTY first. */
static void logger(struct avr_t *avr, const int level, const char *format, va_list ap) {
        (void) avr;
        if (level > LOG_WARNING)
                return;
        fputs("simavr: ", stderr);
        vfprintf(stderr, format, ap);
}

static void on_signal(int sig) {
        (void) sig;
        h.stop = 1;
}

static void usage(void) {
        fprintf(stderr, "usage: avrpad [--uid 0xUID] [--kind 1|2] [--buttons N] [--rs485] [--ppm PPM]\n"
                        "              [--link PATH] [--stats] [--trace] FIRMWARE.elf\n");
        exit(2);
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "uid", required_argument, NULL, 'u' },
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
        int have_uid = 0, stats = 0, c, r;
        uint64_t uid = 0;
        elf_firmware_t fw;

        memset(ee, 0xff, sizeof ee);
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'u':
                        uid = strtoull(optarg, NULL, 0);
                        have_uid = 1;
                        break;
                case 'k': ee[8] = (uint8_t) atoi(optarg); break;
                case 'b': ee[9] = (uint8_t) atoi(optarg); break;
                case 'r': ee[10] = 0x01; h.rs485 = 1; break;
                case 'p': h.ppm = strtod(optarg, NULL); break;
                case 'l': h.link = optarg; break;
                case 's': stats = 1; break;
                case 't': h.trace = 1; break;
                default: usage();
                }
        }
        if (optind != argc - 1)
                usage();
        setvbuf(stdout, NULL, _IOLBF, 0);

        avr_global_logger_set(logger);
        memset(&fw, 0, sizeof fw);
        if (elf_read_firmware(argv[optind], &fw) != 0) {
                fprintf(stderr, "avrpad: cannot read %s\n", argv[optind]);
                return 1;
        }
        h.avr = avr_make_mcu_by_name("atmega328p");
        if (!h.avr || avr_init(h.avr) != 0) {
                fprintf(stderr, "avrpad: simavr has no atmega328p\n");
                return 1;
        }
        fw.frequency = F_CPU;
        avr_load_firmware(h.avr, &fw);
        h.avr->log = LOG_WARNING;
        h.avr->sleep = sleep_cb;

        /* The EEPROM: what the ELF brought (a pad-UID.elf's uid), then ours. */
        if (have_uid) {
                for (int i = 0; i < 8; i++)
                        ee[i] = (uint8_t) (uid >> (8 * i));
                avr_eeprom_desc_t d = { .ee = ee, .offset = 0, .size = sizeof ee };
                avr_ioctl(h.avr, AVR_IOCTL_EEPROM_SET, &d);
        } else {
                avr_eeprom_desc_t d = { .ee = ee + 8, .offset = 8, .size = 3 };
                avr_ioctl(h.avr, AVR_IOCTL_EEPROM_SET, &d);
        }

        /* simavr polls a pin configured as a low-level external interrupt
         * (INT0 on PD2, INT1 on PD3: EICRA's reset value) every cycle while
         * it is low, enabled or not (avr_extint.c, "strict" level
         * triggering): the DE pin is low nearly always, so the emulator
         * would never sleep more than a cycle.  The firmware does not use
         * INT0 or INT1; edge-like polling changes nothing it can see. */
        avr_extint_set_strict_lvl_trig(h.avr, 0, 0);
        avr_extint_set_strict_lvl_trig(h.avr, 1, 0);

        /* The UART: no console echo, no polling sleeps of its own. */
        uint32_t flags = 0;
        avr_ioctl(h.avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
        h.uart = find_uart();
        h.uart_in = avr_io_getirq(h.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
        avr_irq_register_notify(avr_io_getirq(h.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
        avr_irq_register_notify(avr_io_getirq(h.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff, NULL);
        avr_irq_register_notify(avr_io_getirq(h.avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), uart_xon, NULL);

        /* Buttons released: their pins high, held by the outside. */
        memset(h.ext, 0xff, sizeof h.ext);
        set_external('C');
        set_external('D');
        for (size_t i = 0; i < N_BUTTONS; i++)
                avr_raise_irq(port_irq(button_pins[i].port, button_pins[i].bit), 1);
        for (size_t i = 0; i < N_OUTPUTS; i++)
                avr_irq_register_notify(port_irq(output_pins[i].port, output_pins[i].bit), output_changed,
                                        (void *) &output_pins[i]);
        avr_irq_register_notify(port_irq('B', 3), buzzer_edge, NULL);

        if ((r = open_pty()) < 0) {
                fprintf(stderr, "avrpad: pty: %s\n", strerror(-r));
                return 1;
        }
        if (h.link && (r = link_update(h.link, h.pty)) < 0) {
                fprintf(stderr, "avrpad: link %s: %s\n", h.link, strerror(-r));
                return 1;
        }
        printf("PTY %s\n", h.pty);
        printf("[0.0] atmega328p at %u Hz, crystal %+.1f ppm, %s, uid %s\n", F_CPU, h.ppm,
               h.rs485 ? "RS-485" : "full-duplex", have_uid ? "from --uid" : "from the ELF or none");

        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGPIPE, SIG_IGN);
        h.stdin_open = 1;
        h.start_ns = mono_ns();

        avr_cycle_count_t next_pace = PACE_CYCLES;
        int state = cpu_Running;

        while (!h.stop && (state == cpu_Running || state == cpu_Sleeping)) {
                state = avr_run(h.avr);
                h.instructions++;
                account();
                txc_as_the_chip();
                find_tx_pump();
                if (h.io_pending) {
                        h.io_pending = 0;
                        take_io();
                }
                if (h.avr->cycle >= next_pace) {
                        next_pace = h.avr->cycle + PACE_CYCLES;
                        pace();
                }
        }
        if (state != cpu_Running && state != cpu_Sleeping)
                say("the chip stopped: state %d at pc 0x%04x", state, h.avr->pc);
        if (stats || state == cpu_Crashed)
                print_stats();
        link_remove();
        return state == cpu_Crashed ? 1 : 0;
}
