/* tests/avr/avrpad.h — the emulated pads' shared state: one struct pad per
 * emulated chip (chip.c), the line they share (line.c), the commands
 * (command.c) and the loop that paces them (avrpad.c, whose header
 * describes the program).
 *
 * Times.  Every pad counts its own cycles (avr->cycle, from power-on; a
 * reset of the chip does not restart it); cycle c of pad p is due at wall
 * time h.start_ns + c x p->ns_per_cycle on CLOCK_MONOTONIC, its crystal
 * being F_CPU x (1 + ppm 10^-6).  The line and the scheduler work in wall
 * ns ("line time"); each pad converts with pad_ns() and pad_cycle_at().
 *
 * Invariants.  Only the pad h.cur runs (avr_run) at a time, and only from
 * avrpad.c's scheduler; no pad runs past the wall clock, and none past the
 * moment another pad could put a byte on the line that reaches it (see
 * pad_eot() and avrpad.c), so every byte reaches every receiver at the end
 * of its stop bit in the receiver's own time, with every byte it overlaps
 * known.
 */
#ifndef ARBITER_TESTS_AVRPAD_H
#define ARBITER_TESTS_AVRPAD_H

#include <signal.h>
#include <stdint.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <avr_uart.h>

#define F_CPU                   16000000u
#define MAX_PADS                8
#define MAX_SCHEDULED           64
#define BUZZ_QUIET_US           5000
/* The ATmega328P's interrupt vectors: 26 of 4 bytes (datasheet, table 12-6). */
#define N_VECTORS               26
#define VECTOR_BYTES            4
/* firmware/board.h: seven buttons; seven lights, the status light, DE. */
#define N_BUTTONS               7
#define N_OUTPUTS               9
#define OUTPUT_DE               (N_OUTPUTS - 1)
#define NEVER                   INT64_MAX
#define NO_CYCLE                UINT64_MAX

enum sched_kind { SCHED_PRESS, SCHED_RELEASE, SCHED_RESET };

struct scheduled {
        int used;
        avr_cycle_count_t cycle;
        enum sched_kind kind;
        unsigned button;
};

struct pad;

struct pin_ref {
        struct pad *pad;
        unsigned pin;                   /* index into output_pins (chip.c) */
};

/* A frame being collected from the line, COBS-encoded, for --trace and the
 * drop messages. */
struct frame_acc {
        uint8_t buf[64];
        size_t len;
};

struct pad {
        int index;
        avr_t *avr;
        elf_firmware_t fw;              /* kept: simavr may point into it */
        double ppm;
        double ns_per_cycle;            /* 10^9 / (F_CPU (1 + ppm 10^-6)) */
        uint64_t uid;
        int have_uid;

        avr_uart_t *uart;
        avr_cycle_timer_t tx_pump;      /* simavr's transmitter timer (static there) */
        uint32_t bit_cycles;            /* from UBRR0 and U2X0 */
        int64_t byte_ns;                /* 10 bit times */

        uint8_t ext[3];                 /* external levels of ports B, C, D */
        avr_io_addr_t pin_reg[3];       /* PINB, PINC, PIND */
        struct scheduled sched[MAX_SCHEDULED];
        avr_cycle_count_t next_sched;   /* earliest scheduled, NO_CYCLE: none */
        struct pin_ref outs[N_OUTPUTS];

        /* the line as this pad sees it (line.c) */
        int de;
        int64_t tx_free_ns;             /* its transmitter is free from then */
        int64_t tx_last_end_ns;         /* the stop bit of its last byte */
        int64_t de_on_ns;               /* DE went high */
        avr_cycle_count_t next_rx;      /* cycle of the next byte for it */
        unsigned drop_out, drop_in;     /* frames still to lose */
        int drop_out_type, drop_in_type;        /* only frames of this type; -1: any */
        int out_in_frame, out_deciding, in_dropping;
        int out_dropping;               /* 1: lost to everyone; 2: to the host (a type) */
        uint32_t out_frame_no;
        struct frame_acc out_frame, in_frame;
        uint64_t bytes_out, bytes_in, de_violations, dropped_out, dropped_in;
        uint64_t rx_overruns, rx_missed_driving, resets;
        int64_t de_tail_max_ns;         /* DE high after its last stop bit */
        int buzz_on;
        avr_cycle_count_t buzz_last;

        /* interrupt accounting (chip.c) */
        int in_isr, isr_vector, masked, seen_sei;
        avr_cycle_count_t isr_start, masked_start;
        uint64_t isr_count[N_VECTORS], isr_total[N_VECTORS];
        uint32_t isr_min[N_VECTORS], isr_max[N_VECTORS];
        uint64_t masked_max, masked_count;
        int64_t lag_max_ns;
        uint64_t instructions, slept_cycles, sleeps;

        /* the scheduler (avrpad.c) */
        avr_cycle_count_t horizon;      /* a sleep may not pass it */
        int yield;                      /* it put a byte on the line */
};

struct avrpad {
        struct pad pads[MAX_PADS];
        int n_pads;
        int rs485;                      /* one half-duplex bus, DE gates the drivers */
        int64_t start_ns;               /* CLOCK_MONOTONIC at cycle 0 */
        int trace;
        struct pad *cur;                /* the pad avr_run is running */
        volatile sig_atomic_t stop;
};

extern struct avrpad h;

int64_t mono_ns(void);

/* ---- chip.c: one emulated ATmega328P ---- */
int pad_init(struct pad *p, int index, const char *elf, const uint8_t *ee, int have_uid);
/* Wall ns at which cycle c of p is due; the cycle due at wall ns (rounded up). */
int64_t pad_ns(const struct pad *p, avr_cycle_count_t c);
avr_cycle_count_t pad_cycle_at(const struct pad *p, int64_t ns);
int64_t pad_now_ns(const struct pad *p);
double pad_emu_us(const struct pad *p);
/* A line of output about p: "[emu µs] " then, with several pads, "pad K ". */
void say(const struct pad *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line about the line: p's time, and "line " with several pads. */
void say_line(const struct pad *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One instruction (or one sleep up to p->horizon), with its accounting;
 * the chip's state after it. */
int pad_step(struct pad *p);
/* The earliest line time at which p could write a byte (NEVER: not
 * before something reaches it that is not known yet). */
int64_t pad_eot(const struct pad *p);
void pad_edge(struct pad *p, unsigned button, int pressed);
/* The chip's reset pin: power stays, so does the EEPROM. */
void pad_reset(struct pad *p);
int pad_schedule(struct pad *p, avr_cycle_count_t cycle, enum sched_kind kind, unsigned button);
void pad_run_scheduled(struct pad *p);
/* A byte at the end of its stop bit into p's receiver. */
void pad_receive(struct pad *p, uint8_t b);
void pad_buzzer_check(struct pad *p);
void pad_stats(struct pad *p);

/* ---- line.c: the pty, the wire, the bus ---- */
int line_open(const char *link);
const char *line_pty(void);
int line_fd(void);
int line_can_read(void);
void line_close(void);
/* What the host wrote, read now (the pty is readable). */
void line_host_read(void);
/* A byte p's firmware wrote to UDR0 (from simavr's UART output). */
void line_pad_byte(struct pad *p, uint8_t b);
/* Gives p the bytes whose stop bit it has reached, while no other pad
 * could still overlap them (*given set when it gave any); 0 when one is
 * held back for that. */
int line_deliver(struct pad *p, int *given);
/* Writes to the pty the bytes whose stop bit has passed on the wall
 * clock and that no pad can overlap any more. */
void line_flush(void);
/* When the pty should next be written: at a delimiter's stop bit, or when
 * the first byte waiting has waited batch_ns (NEVER: nothing waits). */
int64_t line_next_flush_ns(int64_t batch_ns);
/* The shortest byte time on the line: nothing one pad does reaches
 * another sooner. */
int64_t line_lookahead_ns(void);
/* p's chip was reset: its bytes not yet started never will be. */
void line_pad_reset(struct pad *p);
void line_pad_de(struct pad *p, int on);
void line_stats(void);
/* Decodes a COBS frame into a summary "addr A seq S type 0xTT payload". */
void frame_summary(const uint8_t *cobs, size_t len, char *out, size_t size);

/* ---- command.c ---- */
void command(char *line);

#endif
