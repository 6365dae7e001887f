/* firmware/uart.h — the serial line: candidates in, frames out, and the
 * RS-485 driver enable around each transmission.
 *
 * Receiving.  The receive interrupt stores each byte into the candidate
 * being filled and, at every 0x00, stamps the pad time (docs/protocol.md
 * section 8: the pad keeps the stamp of the delimiter that ended a SYNC; it
 * only knows it was one after decoding) and hands the candidate to the main
 * loop.  Candidates live in UART_RX_SLOTS fixed buffers: the interrupt fills
 * one while the main loop may hold the others; when the main loop has
 * fallen that far behind, a finished candidate is dropped and counted
 * (uart_rx_overflows), as noise would be.  A candidate longer than 40 bytes
 * stops being stored and is marked overlong; a byte with a framing or
 * overrun error marks it bad.  Empty candidates (idle line) are not handed
 * over.  The interrupt does a bounded amount of work per byte.
 *
 *     ISR:  fill slot[wr] --0x00--> ready (rx_ready++) --> fill slot[wr+1]
 *     main: uart_rx_peek() = slot[rd] while rx_ready > 0; uart_rx_done()
 *
 * Sending.  One frame at a time from uart_tx_buf: uart_tx_start() raises DE
 * (RS-485 mode), writes the first byte and lets the data-register-empty
 * interrupt write the rest; after the last byte the transmit-complete
 * interrupt, which fires when the stop bit of the last byte has left the
 * shift register, drops DE and marks the line free.  Each byte written
 * clears a transmit-complete flag that a gap between two bytes may have
 * left, so DE never drops under the last byte.
 */
#ifndef ARBITER_FIRMWARE_UART_H
#define ARBITER_FIRMWARE_UART_H

#include <stdint.h>

#include "firmware/proto.h"

#define UART_RX_SLOTS           3
#define UART_RX_BAD             0x01    /* a framing or overrun error */
#define UART_RX_OVERLONG        0x02    /* longer than PROTO_CANDIDATE_MAX */

struct uart_candidate {
        uint8_t buf[PROTO_CANDIDATE_MAX];
        uint8_t len;
        uint8_t flags;                  /* UART_RX_* */
        uint32_t rx_time;               /* pad time of its delimiter */
};

extern uint8_t uart_tx_buf[PROTO_WIRE_MAX];
extern volatile uint8_t uart_tx_busy;
extern volatile uint8_t uart_rx_overflows;  /* candidates dropped: main too slow */

/* rs485: drive DE around transmissions. */
void uart_init(uint8_t rs485);

/* The oldest candidate not yet handled, or NULL. */
struct uart_candidate *uart_rx_peek(void);
void uart_rx_done(void);

/* Sends uart_tx_buf[0 .. len-1]; the line must be free (uart_tx_busy 0).
 * Call with interrupts masked when the moment of the first byte matters
 * (a SYNC_REPLY's tx_time): the first byte goes to the UART before this
 * returns. */
void uart_tx_start(uint8_t len);

/* One byte's time on the line (10 bits at the rate the UART really runs,
 * 117647 baud when 115200 is asked for), in pad-clock ticks. */
extern const uint16_t uart_byte_ticks;

#endif
