/* hardware/serial.h — opening a pad bus serial port.
 *
 * O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, then TIOCEXCL so no second
 * program (a stray `screen`, a second arbiterd) can open it and steal
 * bytes; raw 8N1 termios at the configured speed with no flow control; and
 * low latency where the driver supports it: FTDI adapters otherwise hold
 * bytes for their 16 ms latency timer (FTDI application note AN232B-04,
 * "Data Throughput, Latency and Handshaking"; Linux's ftdi_sio sets the
 * timer to 1 ms for ASYNC_LOW_LATENCY).  Pseudo-terminals
 * answer ENOTTY to TIOCGSERIAL and ignore the speed; both are fine.
 */
#ifndef ARBITER_HARDWARE_SERIAL_H
#define ARBITER_HARDWARE_SERIAL_H

#include <stdbool.h>

/* The termios speed constant for baud, or 0 if the kernel has none. */
unsigned serial_speed(unsigned baud);

/* Opens and configures path; returns the fd or -errno.  *ret_low_latency
 * says whether ASYNC_LOW_LATENCY could be set. */
int serial_open(const char *path, unsigned baud, bool *ret_low_latency);

#endif
