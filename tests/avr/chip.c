/* tests/avr/chip.c — one emulated ATmega328P running the pad's firmware:
 * simavr set up as the board wires it (firmware/board.h), its pins, its
 * reset, its interrupt accounting, and the faults of simavr 1.6 worked
 * around (each where it is, with its reason).  See tests/avr/avrpad.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>
#include <sim_io.h>
#include <sim_interrupts.h>
#include <sim_core.h>
#include <sim_cycle_timers.h>
#include <avr_eeprom.h>
#include <avr_extint.h>
#include <avr_ioport.h>
#include <avr_uart.h>

#include "tests/avr/avrpad.h"

/* simavr declares the UART's FIFO in avr_uart.h and defines its functions
 * in avr_uart.c, static: ours, the same, for the receiver below. */
DEFINE_FIFO(uint16_t, uart_fifo);

/* The receiver holds two bytes and a third in its shift register; the
 * next one is an overrun (datasheet, "Data OverRun"). */
#define RX_HOLD                 3

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
static const struct button_pin button_pins[N_BUTTONS] = {
        { 'C', 0 }, { 'C', 1 }, { 'C', 2 }, { 'C', 3 }, { 'C', 4 }, { 'C', 5 }, { 'D', 3 },
};

struct output_pin {
        char port;
        uint8_t bit;
        const char *name;
};

static const struct output_pin output_pins[N_OUTPUTS] = {
        { 'D', 4, "light 0" }, { 'D', 5, "light 1" }, { 'D', 6, "light 2" }, { 'D', 7, "light 3" },
        { 'B', 0, "light 4" }, { 'B', 1, "light 5" }, { 'B', 2, "light 6" },
        { 'B', 5, "status" }, { 'D', 2, "DE" },
};

/* ---- time ---- */

int64_t pad_ns(const struct pad *p, avr_cycle_count_t c) {
        return h.start_ns + llround((double) c * p->ns_per_cycle);
}

avr_cycle_count_t pad_cycle_at(const struct pad *p, int64_t ns) {
        if (ns <= h.start_ns)
                return 0;
        if (ns == NEVER)
                return NO_CYCLE;
        return (avr_cycle_count_t) ceil((double) (ns - h.start_ns) / p->ns_per_cycle);
}

int64_t pad_now_ns(const struct pad *p) {
        return pad_ns(p, p->avr->cycle);
}

/* Emulated µs since power-on, by the chip's own (nominal) clock. */
double pad_emu_us(const struct pad *p) {
        return (double) p->avr->cycle / (F_CPU / 1000000);
}

static void vsay(const struct pad *p, const char *who, const char *fmt, va_list ap) {
        printf("[%.1f] ", pad_emu_us(p));
        if (h.n_pads > 1 && who)
                printf("%s ", who);
        else if (h.n_pads > 1)
                printf("pad %d ", p->index);
        vprintf(fmt, ap);
        putchar('\n');
}

void say(const struct pad *p, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsay(p, NULL, fmt, ap);
        va_end(ap);
}

void say_line(const struct pad *p, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsay(p, "line", fmt, ap);
        va_end(ap);
}

/* ---- the pins ---- */

static avr_irq_t *port_irq(struct pad *p, char port, uint8_t bit) {
        return avr_io_getirq(p->avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}

static void set_external(struct pad *p, char port) {
        uint8_t mask = 0;

        for (size_t i = 0; i < N_BUTTONS; i++)
                if (button_pins[i].port == port)
                        mask |= (uint8_t) (1u << button_pins[i].bit);
        avr_ioport_external_t e = { .name = port, .mask = mask, .value = p->ext[port - 'B'] };
        avr_ioctl(p->avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(port), &e);
}

/* Button pins follow firmware/board.h, active low, set as the ports'
 * external level so that the firmware's own port writes (pull-ups,
 * lights) do not overwrite them. */
void pad_edge(struct pad *p, unsigned button, int pressed) {
        const struct button_pin *b = &button_pins[button];
        uint8_t *ext = &p->ext[b->port - 'B'];

        if (pressed)
                *ext &= (uint8_t) ~(1u << b->bit);
        else
                *ext |= (uint8_t) (1u << b->bit);
        set_external(p, b->port);
        avr_raise_irq(port_irq(p, b->port, b->bit), pressed ? 0 : 1);
        say(p, "button %u %s host_us %" PRId64, button, pressed ? "pressed" : "released", pad_now_ns(p) / 1000);
}

static void output_changed(struct avr_irq_t *irq, uint32_t value, void *param) {
        const struct pin_ref *r = param;
        struct pad *p = r->pad;
        int on = (value & 0xff) != 0;

        (void) irq;
        if (r->pin == OUTPUT_DE && on != p->de) {
                p->de = on;
                line_pad_de(p, on);
        }
        say(p, "%s %s", output_pins[r->pin].name, on ? "on" : "off");
}

/* The buzzer (PB3, toggled by Timer2): "on" at its first edge, "off" after
 * BUZZ_QUIET_US without one. */
static void buzzer_edge(struct avr_irq_t *irq, uint32_t value, void *param) {
        struct pad *p = param;

        (void) irq;
        (void) value;
        p->buzz_last = p->avr->cycle;
        if (!p->buzz_on) {
                p->buzz_on = 1;
                say(p, "buzzer on");
        }
}

void pad_buzzer_check(struct pad *p) {
        if (p->buzz_on && p->avr->cycle - p->buzz_last > (avr_cycle_count_t) BUZZ_QUIET_US * (F_CPU / 1000000)) {
                p->buzz_on = 0;
                say(p, "buzzer off (quiet since %.1f)", (double) p->buzz_last / (F_CPU / 1000000));
        }
}

/* ---- scheduled edges and resets ---- */

static void next_scheduled(struct pad *p) {
        p->next_sched = NO_CYCLE;
        for (size_t i = 0; i < MAX_SCHEDULED; i++)
                if (p->sched[i].used && p->sched[i].cycle < p->next_sched)
                        p->next_sched = p->sched[i].cycle;
}

int pad_schedule(struct pad *p, avr_cycle_count_t cycle, enum sched_kind kind, unsigned button) {
        for (size_t i = 0; i < MAX_SCHEDULED; i++) {
                struct scheduled *s = &p->sched[i];

                if (s->used)
                        continue;
                *s = (struct scheduled) { 1, cycle, kind, button };
                next_scheduled(p);
                return 0;
        }
        return -1;
}

/* Everything due, in time order (the same cycle: in the order given). */
void pad_run_scheduled(struct pad *p) {
        while (p->next_sched <= p->avr->cycle) {
                struct scheduled *first = NULL;

                for (size_t i = 0; i < MAX_SCHEDULED; i++) {
                        struct scheduled *s = &p->sched[i];

                        if (s->used && s->cycle == p->next_sched && (!first || s < first))
                                first = s;
                }
                first->used = 0;
                if (first->kind == SCHED_RESET)
                        pad_reset(p);
                else
                        pad_edge(p, first->button, first->kind == SCHED_PRESS);
                next_scheduled(p);
        }
}

/* ---- the UART ---- */

/* One bit is (UBRR0 + 1) x 16 cycles, x 8 with U2X0 (datasheet, table
 * 20-1).  simavr works it out only when UBRR0L is written, with the U2X0
 * of that moment (the firmware sets U2X0 after UBRR0), and counts 11 bits
 * to an 8N1 byte (a parity bit it always adds): an emulated line would be
 * 10 % slow, or half speed with U2X.  So we work it out after each write
 * of UBRR0L, UBRR0H or UCSR0A, and give simavr's transmitter the chip's 10
 * bits. */
static void uart_timing(struct pad *p) {
        avr_t *avr = p->avr;
        avr_uart_t *u = p->uart;
        uint32_t ubrr = avr->data[u->ubrrl.reg] | (uint32_t) (avr->data[u->ubrrh.reg] & 0x0f) << 8;

        p->bit_cycles = (ubrr + 1) * (avr_regbit_get(avr, u->u2x) ? 8 : 16);
        u->cycles_per_byte = 10 * p->bit_cycles;
        p->byte_ns = llround((double) (10 * p->bit_cycles) * p->ns_per_cycle);
}

static void uart_reg_write(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
        struct pad *p = param;

        if (addr == p->uart->ubrrh.reg)
                avr->data[addr] = v;    /* nobody else keeps UBRR0H */
        uart_timing(p);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
        struct pad *p = param;

        (void) irq;
        /* simavr's transmitter counts bytes out on a timer started by the
         * first byte and kept running while UDRIE is on; a byte written
         * when the line is idle (none in flight) then ends at that timer's
         * next tick, which may be a few cycles away, not a byte time: the
         * next ticks lose count of it, and TXC never comes (the pad held
         * its line forever when an interrupt delayed its UDRE handler).
         * Restart the timer at this byte, as the chip starts its shift
         * register: simavr's own udr_write registers it again right after
         * this callback (its "synchronize tx pump" line, commented out). */
        if (p->tx_pump && p->uart->tx_cnt == 0)
                avr_cycle_timer_cancel(p->avr, p->tx_pump, p->uart);
        line_pad_byte(p, (uint8_t) value);
}

/* The receiver, ours: simavr's takes a byte at its start bit and makes it
 * readable one (simavr) byte time later, and while its 64-byte FIFO holds
 * more it raises RXC for them on its own timer, so a byte written after
 * another could be read before its stop bit.  The line hands us each byte
 * at the end of its stop bit, as the chip's receiver has it: into the
 * FIFO and RXC at once; a fourth byte while three wait is an overrun
 * (DOR0, the byte lost). */
void pad_receive(struct pad *p, uint8_t b) {
        avr_t *avr = p->avr;
        avr_uart_t *u = p->uart;

        if (!avr_regbit_get(avr, u->rxen))
                return;
        if (uart_fifo_get_read_size(&u->input) >= RX_HOLD) {
                avr_regbit_setto(avr, u->dor, 1);
                p->rx_overruns++;
                say(p, "receiver overrun: byte 0x%02x lost (three unread, pc 0x%04x, I %d)", b, avr->pc, avr->sreg[S_I]);
                return;
        }
        uart_fifo_write(&u->input, b);
        p->bytes_in++;
        u->rx_cnt = 0;
        u->rxc_raise_time = avr->cycle;
        avr_raise_interrupt(avr, &u->rxc);
}

/* RXC is set while the receive buffer holds a byte, and interrupts while
 * RXCIE0 is on; simavr requests the interrupt once per raise and relied on
 * its timer for the rest (and clears RXC when bytes are read "too fast"). */
static void rxc_as_the_chip(struct pad *p) {
        avr_uart_t *u = p->uart;

        if (uart_fifo_isempty(&u->input) || !avr_regbit_get(p->avr, u->rxen))
                return;
        if ((!u->rxc.pending && avr_regbit_get(p->avr, u->rxc.enable)) || !avr_regbit_get(p->avr, u->rxc.raised))
                avr_raise_interrupt(p->avr, &u->rxc);
}

/* An interrupt whose flag is set when its enable bit is written to one is
 * requested at once on the chip (the flag and the enable are ANDed).
 * simavr 1.6 requests an interrupt only when its flag is raised while
 * enabled, and its transmitter can count the last byte of a frame as sent
 * at the end of the byte before it, raising TXC in the few cycles between
 * the firmware's write of that byte and its enabling of TXCIE: the chip
 * would then interrupt, simavr not, and the pad would hold its driver
 * enable and its line forever.  So we request it, as the chip would. */
static void txc_as_the_chip(struct pad *p) {
        avr_uart_t *u = p->uart;

        if (!u->txc.pending && avr_regbit_get(p->avr, u->txc.raised) && avr_regbit_get(p->avr, u->txc.enable))
                avr_raise_interrupt(p->avr, &u->txc);
}

/* simavr's transmitter timer is static in avr_uart.c: we learn its
 * address from the pool after the firmware's first byte (the receiver's
 * timer, the only other one with the UART as its parameter, never runs:
 * pad_receive() is the receiver). */
static void find_tx_pump(struct pad *p) {
        if (p->tx_pump || !p->bytes_out)
                return;
        for (avr_cycle_timer_slot_p t = p->avr->cycle_timers.timer; t; t = t->next)
                if (t->param == p->uart)
                        p->tx_pump = t->timer;
}

static avr_uart_t *find_uart(avr_t *avr) {
        for (avr_io_t *io = avr->io_port; io; io = io->next)
                if (io->kind && strcmp(io->kind, "uart") == 0)
                        return (avr_uart_t *) io;
        return NULL;
}

static avr_io_addr_t find_pin_reg(avr_t *avr, char name) {
        for (avr_io_t *io = avr->io_port; io; io = io->next)
                if (io->kind && strcmp(io->kind, "port") == 0 && ((avr_ioport_t *) io)->name == name)
                        return ((avr_ioport_t *) io)->r_pin;
        return 0;
}

/* ---- interrupts ---- */

/* After every instruction: an interrupt's handler runs from its vector to
 * the RETI that sets I again (the firmware's handlers do not re-enable
 * interrupts); the cycles in between are counted per vector, and so are
 * the stretches the main loop runs with interrupts masked. */
static void account(struct pad *p) {
        avr_t *avr = p->avr;
        int i_flag = avr->sreg[S_I];

        if (!p->in_isr && avr->pc >= VECTOR_BYTES && avr->pc < N_VECTORS * VECTOR_BYTES && !i_flag) {
                p->in_isr = 1;
                p->isr_vector = (int) (avr->pc / VECTOR_BYTES);
                p->isr_start = avr->cycle;
                p->masked = 0;
                return;
        }
        if (p->in_isr) {
                if (i_flag) {
                        int v = p->isr_vector;
                        uint32_t d = (uint32_t) (avr->cycle - p->isr_start);

                        p->in_isr = 0;
                        if (!p->isr_count[v] || d < p->isr_min[v])
                                p->isr_min[v] = d;
                        if (d > p->isr_max[v])
                                p->isr_max[v] = d;
                        p->isr_count[v]++;
                        p->isr_total[v] += d;
                }
                return;
        }
        if (!p->seen_sei) {
                p->seen_sei = i_flag;   /* start-up runs masked until its sei */
                return;
        }
        if (!i_flag && !p->masked) {
                p->masked = 1;
                p->masked_start = avr->cycle;
        } else if (i_flag && p->masked) {
                uint64_t d = avr->cycle - p->masked_start;

                p->masked = 0;
                p->masked_count++;
                if (d > p->masked_max)
                        p->masked_max = d;
        }
}

void pad_stats(struct pad *p) {
        say(p, "interrupts (cycles from the vector to RETI; 16 cycles = 1 µs):");
        for (int v = 0; v < N_VECTORS; v++) {
                if (!p->isr_count[v])
                        continue;
                say(p, "  %-13s %10" PRIu64 " times  min %4" PRIu32 "  max %4" PRIu32 "  mean %.1f", vector_name[v],
                    p->isr_count[v], p->isr_min[v], p->isr_max[v], (double) p->isr_total[v] / (double) p->isr_count[v]);
        }
        say(p, "  main loop with interrupts masked: %" PRIu64 " times, longest %" PRIu64 " cycles", p->masked_count,
            p->masked_max);
        say(p, "  %" PRIu64 " instructions, %" PRIu64 " sleeps, %" PRIu64 " cycles slept of %" PRIu64, p->instructions,
            p->sleeps, p->slept_cycles, (uint64_t) p->avr->cycle);
        say(p, "  bytes out %" PRIu64 " in %" PRIu64 ", DE violations %" PRIu64 ", emulation lag max %.1f µs",
            p->bytes_out, p->bytes_in, p->de_violations, (double) p->lag_max_ns / 1000);
        say(p, "  frames dropped out %" PRIu64 " in %" PRIu64 ", receiver overruns %" PRIu64
               ", bytes missed while driving %" PRIu64 ", DE held after the last stop bit max %.1f µs, resets %" PRIu64,
            p->dropped_out, p->dropped_in, p->rx_overruns, p->rx_missed_driving, (double) p->de_tail_max_ns / 1000,
            p->resets);
}

/* ---- running ---- */

/* simavr's sleep callback: the firmware sleeps, and simavr is about to add
 * how_long + 1 cycles (to its next cycle timer).  It may not pass the
 * pad's horizon (the scheduler's, avrpad.c): take back what would.  The
 * wall clock is the scheduler's business; nothing here waits. */
static void sleep_cb(avr_t *avr, avr_cycle_count_t how_long) {
        struct pad *p = h.cur;
        avr_cycle_count_t allowed = how_long;

        if (avr->cycle + 1 + how_long > p->horizon)
                allowed = p->horizon > avr->cycle + 1 ? p->horizon - avr->cycle - 1 : 0;
        avr->cycle -= how_long - allowed;       /* run_raw adds how_long + 1 */
        p->sleeps++;
        p->slept_cycles += allowed + 1;
}

/* simavr's avr_callback_run_raw (one instruction, the cycle timers, a
 * sleep, the interrupts), except that the timers are looked at only when
 * one is due: most instructions have none. */
static void run_one(avr_t *avr) {
        avr_flashaddr_t new_pc = avr->pc;
        avr_cycle_timer_slot_p t;
        avr_cycle_count_t sleep;

        if (avr->state == cpu_Running)
                new_pc = avr_run_one(avr);
        t = avr->cycle_timers.timer;
        if (t && t->when <= avr->cycle)
                sleep = avr_cycle_timer_process(avr);
        else
                sleep = t ? t->when - avr->cycle : 1000;        /* simavr's default */
        avr->pc = new_pc;
        if (avr->state == cpu_Sleeping) {
                if (!avr->sreg[S_I]) {
                        avr->state = cpu_Done;  /* asleep for ever, as simavr says */
                        return;
                }
                sleep_cb(avr, sleep);
                avr->cycle += 1 + sleep;
        }
        if ((avr->state == cpu_Running || avr->state == cpu_Sleeping) && avr->interrupt_state)
                avr_service_interrupts(avr);
}

int pad_step(struct pad *p) {
        run_one(p->avr);
        p->instructions++;
        account(p);
        txc_as_the_chip(p);
        rxc_as_the_chip(p);
        find_tx_pump(p);
        return p->avr->state;
}

int64_t pad_eot(const struct pad *p) {
        const avr_t *avr = p->avr;

        if (avr->state == cpu_Running)
                return pad_now_ns(p);
        if (avr->state != cpu_Sleeping)
                return NEVER;
        avr_cycle_count_t c = p->next_rx < p->next_sched ? p->next_rx : p->next_sched;
        avr_cycle_timer_slot_p t = avr->cycle_timers.timer;

        if (t && t->when < c)
                c = t->when;
        return c == NO_CYCLE ? NEVER : pad_ns(p, c);
}

/* ---- set-up and reset ---- */

/* simavr polls a pin configured as a low-level external interrupt (INT0
 * on PD2, INT1 on PD3: EICRA's reset value) every cycle while it is low,
 * enabled or not (avr_extint.c, "strict" level triggering): the DE pin is
 * low nearly always, so the emulator would never sleep more than a cycle.
 * The firmware does not use INT0 or INT1; edge-like polling changes
 * nothing it can see.  simavr turns it on again at each reset. */
static void no_strict_levels(struct pad *p) {
        avr_extint_set_strict_lvl_trig(p->avr, 0, 0);
        avr_extint_set_strict_lvl_trig(p->avr, 1, 0);
}

void pad_reset(struct pad *p) {
        avr_t *avr = p->avr;

        say(p, "reset host_us %" PRId64, pad_now_ns(p) / 1000);
        p->resets++;
        line_pad_reset(p);
        avr_reset(avr);                 /* registers, timers, UART; not the cycle count */
        avr_regbit_set(avr, avr->reset_flags.extrf);
        no_strict_levels(p);
        uart_timing(p);
        /* The buttons' pins read what the outside holds (avr_reset zeroed
         * PINx; simavr only updates a pin when its level changes). */
        for (int i = 0; i < 3; i++)
                avr->data[p->pin_reg[i]] = p->ext[i];
        /* Every pin is an input now: the lights go out, DE lets go. */
        for (unsigned i = 0; i < N_OUTPUTS; i++) {
                avr_irq_t *irq = port_irq(p, output_pins[i].port, output_pins[i].bit);

                if (irq->value & 0xff)
                        avr_raise_irq(irq, 0);
        }
        p->in_isr = p->masked = p->seen_sei = 0;
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

int pad_init(struct pad *p, int index, const char *elf, const uint8_t *ee, int have_uid) {
        elf_firmware_t *fw = &p->fw;

        avr_global_logger_set(logger);
        p->index = index;
        p->ns_per_cycle = 1e9 / ((double) F_CPU * (1.0 + p->ppm * 1e-6));
        p->next_sched = NO_CYCLE;
        p->next_rx = NO_CYCLE;
        p->drop_out_type = p->drop_in_type = -1;
        p->horizon = NO_CYCLE;
        memset(fw, 0, sizeof *fw);
        if (elf_read_firmware(elf, fw) != 0) {
                fprintf(stderr, "avrpad: cannot read %s\n", elf);
                return -1;
        }
        p->avr = avr_make_mcu_by_name("atmega328p");
        if (!p->avr || avr_init(p->avr) != 0) {
                fprintf(stderr, "avrpad: simavr has no atmega328p\n");
                return -1;
        }
        fw->frequency = F_CPU;
        avr_load_firmware(p->avr, fw);
        p->avr->log = LOG_WARNING;
        p->avr->sleep = sleep_cb;

        /* The EEPROM: what the ELF brought (a pad-UID.elf's uid), then ours. */
        avr_eeprom_desc_t d = have_uid ? (avr_eeprom_desc_t) { .ee = (uint8_t *) ee, .offset = 0, .size = 11 }
                                       : (avr_eeprom_desc_t) { .ee = (uint8_t *) ee + 8, .offset = 8, .size = 3 };
        avr_ioctl(p->avr, AVR_IOCTL_EEPROM_SET, &d);
        no_strict_levels(p);

        /* The UART: no console echo, no polling sleeps of its own. */
        uint32_t flags = 0;
        avr_ioctl(p->avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
        p->uart = find_uart(p->avr);
        if (!p->uart) {
                fprintf(stderr, "avrpad: simavr's atmega328p has no UART\n");
                return -1;
        }
        avr_irq_register_notify(avr_io_getirq(p->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, p);
        avr_register_io_write(p->avr, p->uart->ubrrl.reg, uart_reg_write, p);
        avr_register_io_write(p->avr, p->uart->ubrrh.reg, uart_reg_write, p);
        avr_register_io_write(p->avr, p->uart->r_ucsra, uart_reg_write, p);
        uart_timing(p);

        /* Buttons released: their pins high, held by the outside. */
        memset(p->ext, 0xff, sizeof p->ext);
        for (int i = 0; i < 3; i++)
                p->pin_reg[i] = find_pin_reg(p->avr, (char) ('B' + i));
        set_external(p, 'C');
        set_external(p, 'D');
        for (size_t i = 0; i < N_BUTTONS; i++)
                avr_raise_irq(port_irq(p, button_pins[i].port, button_pins[i].bit), 1);
        for (unsigned i = 0; i < N_OUTPUTS; i++) {
                p->outs[i] = (struct pin_ref) { p, i };
                avr_irq_register_notify(port_irq(p, output_pins[i].port, output_pins[i].bit), output_changed,
                                        &p->outs[i]);
        }
        avr_irq_register_notify(port_irq(p, 'B', 3), buzzer_edge, p);
        return 0;
}
