/* firmware/codec.h — the frame's CRC-16 and its COBS framing
 * (docs/protocol.md sections 3 and 4).  Pure: no I/O, no state.
 *
 * The CRC is table-driven, the table in flash (512 bytes of the 32 KB):
 * firmware/crcbench.c measures both forms on the emulated chip, and the
 * table is about four times faster (docs/hardware.md, "How it keeps time, and what it costs").  Speed
 * matters where the CRC runs between stamping a SYNC_REPLY's tx_time and
 * sending its first byte, and when frames arrive back to back at 1 Mbaud.
 */
#ifndef ARBITER_FIRMWARE_CODEC_H
#define ARBITER_FIRMWARE_CODEC_H

#include <stdint.h>

#define CRC16_INIT      0xffff

/* CRC-16, polynomial 0x5935 MSB first, no reflection, no final xor:
 * crc16_update(CRC16_INIT, "123456789", 9) == 0x772b. */
uint16_t crc16_update(uint16_t crc, const uint8_t *p, uint8_t n);
/* The same, bit by bit (docs/protocol.md's reference): for the
 * measurement in firmware/crcbench.c only. */
uint16_t crc16_update_bitwise(uint16_t crc, const uint8_t *p, uint8_t n);

/* Encodes n < 254 bytes into out (n + 1 bytes; no delimiter); returns the
 * encoded length. */
uint8_t cobs_encode(const uint8_t *in, uint8_t n, uint8_t *out);
/* Decodes a candidate of n bytes in place; returns the decoded length, or
 * -1 when a code byte is 0 or announces more bytes than are left. */
int8_t cobs_decode(uint8_t *buf, uint8_t n);

#endif
