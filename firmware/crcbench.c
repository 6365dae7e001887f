/* firmware/crcbench.c — what the frame codec costs on the chip, in cycles:
 * the CRC table-driven and bit by bit, and COBS, over docs/protocol.md's
 * check string and over the longest frames a pad handles.  Timer1 runs at
 * the CPU clock, so its count is cycles (minus the constant of reading it,
 * measured first).  Prints its lines on the UART and stops; run it in the
 * emulator (`simavr -m atmega328p -f 16000000 crcbench.elf`, which prints
 * the UART's lines) or on a board with a terminal at 1 Mbaud. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdio.h>

#include "firmware/codec.h"

static int put(char ch, FILE *f) {
        (void) f;
        loop_until_bit_is_set(UCSR0A, UDRE0);
        UDR0 = (uint8_t) ch;
        return 0;
}

static FILE out = FDEV_SETUP_STREAM(put, NULL, _FDEV_SETUP_WRITE);

static uint16_t overhead;
static volatile uint16_t sink;

#define MEASURE(expr) ({ uint16_t t0 = TCNT1; sink = (expr); (uint16_t) (TCNT1 - t0 - overhead); })

int main(void) {
        static const uint8_t check[9] = "123456789";
        uint8_t frame[23], wire[25];

        UBRR0 = 0;
        UCSR0B = _BV(TXEN0);
        UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
        stdout = &out;
        TCCR1A = 0;
        TCCR1B = _BV(CS10);
        for (uint8_t i = 0; i < sizeof frame; i++)
                frame[i] = (uint8_t) (i * 37 + 1);
        frame[3] = 0;
        overhead = MEASURE(0);

        uint16_t table_check = crc16_update(CRC16_INIT, check, 9);
        uint16_t bit_check = crc16_update_bitwise(CRC16_INIT, check, 9);
        printf("crc check table 0x%04x bitwise 0x%04x (want 0x772b)\n", table_check, bit_check);
        printf("crc 9 bytes: table %u cycles, bitwise %u cycles\n",
               MEASURE(crc16_update(CRC16_INIT, check, 9)), MEASURE(crc16_update_bitwise(CRC16_INIT, check, 9)));
        printf("crc 21 bytes (HELLO): table %u cycles, bitwise %u cycles\n",
               MEASURE(crc16_update(CRC16_INIT, frame, 21)), MEASURE(crc16_update_bitwise(CRC16_INIT, frame, 21)));
        printf("crc 4 bytes (tx_time): table %u cycles, bitwise %u cycles\n",
               MEASURE(crc16_update(CRC16_INIT, frame, 4)), MEASURE(crc16_update_bitwise(CRC16_INIT, frame, 4)));
        printf("cobs encode 17 bytes (SYNC_REPLY): %u cycles\n", MEASURE(cobs_encode(frame, 17, wire)));
        printf("cobs encode 23 bytes (HELLO): %u cycles\n", MEASURE(cobs_encode(frame, 23, wire)));
        cobs_encode(frame, 16, wire);
        printf("cobs decode 17 bytes (ASSIGN): %u cycles\n", MEASURE((uint16_t) cobs_decode(wire, 17)));
        loop_until_bit_is_set(UCSR0A, TXC0);
        cli();
        sleep_cpu();
        for (;;)
                ;
}
