/* firmware/uart.c — see uart.h. */
#include "firmware/uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "firmware/board.h"
#include "firmware/clock.h"

/* util/setbaud.h picks UBRR and U2X for PAD_BAUD: at 16 MHz, 1 Mbaud is
 * exact with UBRR 0 and no U2X (16 samples a bit, the receiver's wider
 * tolerance); 115200 takes U2X and UBRR 16, 117647 baud, 2.1 % fast, within
 * the 8N1 receivers' tolerance but not by much (docs/hardware.md). */
#define BAUD            PAD_BAUD
#define BAUD_TOL        3
#include <util/setbaud.h>

/* A bit is (UBRR + 1) x 16 CPU cycles, x 8 with U2X; a pad-clock tick is
 * CLOCK_PRESCALE cycles. */
#if USE_2X
#define UART_CYCLES_PER_BIT     ((UBRR_VALUE + 1UL) * 8)
#else
#define UART_CYCLES_PER_BIT     ((UBRR_VALUE + 1UL) * 16)
#endif
const uint16_t uart_byte_ticks = (uint16_t) (10 * UART_CYCLES_PER_BIT / CLOCK_PRESCALE);

uint8_t uart_tx_buf[PROTO_WIRE_MAX];
volatile uint8_t uart_tx_busy;
volatile uint8_t uart_rx_overflows;

static uint8_t tx_len, tx_pos;
static uint8_t rs485;

static struct uart_candidate rx_slot[UART_RX_SLOTS];
static uint8_t rx_wr, rx_rd;            /* slot being filled; oldest ready */
static volatile uint8_t rx_ready;       /* finished slots the main loop holds */

void uart_init(uint8_t rs485_mode) {
        rs485 = rs485_mode;
        UBRR0H = UBRRH_VALUE;
        UBRR0L = UBRRL_VALUE;
#if USE_2X
        UCSR0A = _BV(U2X0);
#else
        UCSR0A = 0;
#endif
        UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);     /* 8N1 */
        UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART_RX_vect) {
        uint8_t status = UCSR0A;
        uint8_t b = UDR0;
        struct uart_candidate *c = &rx_slot[rx_wr];

        if (status & (_BV(FE0) | _BV(DOR0)))
                c->flags |= UART_RX_BAD;
        if (b != 0) {
                if (c->len < PROTO_CANDIDATE_MAX)
                        c->buf[c->len++] = b;
                else
                        c->flags |= UART_RX_OVERLONG;
                return;
        }
        /* A delimiter: stamp it, whatever it ends. */
        c->rx_time = clock_read_isr();
        if (c->len == 0 && !c->flags)
                return;                 /* idle line */
        if (rx_ready < UART_RX_SLOTS - 1) {
                rx_ready++;
                rx_wr = (uint8_t) (rx_wr + 1 == UART_RX_SLOTS ? 0 : rx_wr + 1);
                c = &rx_slot[rx_wr];
        } else {
                uart_rx_overflows++;
        }
        c->len = 0;
        c->flags = 0;
}

struct uart_candidate *uart_rx_peek(void) {
        return rx_ready ? &rx_slot[rx_rd] : 0;
}

void uart_rx_done(void) {
        rx_rd = (uint8_t) (rx_rd + 1 == UART_RX_SLOTS ? 0 : rx_rd + 1);
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                rx_ready--;
        }
}

/* Clears TXC (it is cleared by writing one; FE, DOR and UPE must be written
 * zero) and keeps U2X. */
static inline void clear_txc(void) {
        UCSR0A = (uint8_t) ((UCSR0A & _BV(U2X0)) | _BV(TXC0));
}

void uart_tx_start(uint8_t len) {
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
                uart_tx_busy = 1;
                if (rs485)
                        BOARD_DE_HIGH();
                tx_len = len;
                tx_pos = 1;
                UDR0 = uart_tx_buf[0];
                clear_txc();
                if (len > 1)
                        UCSR0B |= _BV(UDRIE0);
                else
                        UCSR0B |= _BV(TXCIE0);
        }
}

ISR(USART_UDRE_vect) {
        UDR0 = uart_tx_buf[tx_pos++];
        clear_txc();
        if (tx_pos == tx_len)
                UCSR0B = (uint8_t) ((UCSR0B & (uint8_t) ~_BV(UDRIE0)) | _BV(TXCIE0));
}

ISR(USART_TX_vect) {
        /* The stop bit of the last byte has left: release the bus. */
        if (rs485)
                BOARD_DE_LOW();
        UCSR0B &= (uint8_t) ~_BV(TXCIE0);
        uart_tx_busy = 0;
}
