/* firmware/config.h — who the pad is: its uid, kind, buttons and line mode,
 * from the EEPROM, with the build's defaults (firmware/board.h).
 *
 * EEPROM layout (docs/hardware.md, "The uid"):
 *
 *     0..7   uid, little-endian; all 0xff (blank) or 0: none
 *     8      kind: 1 button pad, 2 slap pad; 0xff: the build's PAD_KIND
 *     9      n_buttons, 1..7; 0xff: the build's default for the kind
 *     10     flags: bit 0 set = RS-485 turn-taking; 0xff: the build's PAD_RS485
 *
 * The uid is set once.  The firmware never writes it, except on the first
 * start of a build made with a uid (`make firmware UID=...`, which defines
 * PAD_UID) on a board whose EEPROM holds none: it then copies PAD_UID into
 * the EEPROM, so that a board flashed through a bootloader that cannot
 * write EEPROM (an Uno's) gets one.  From then on the EEPROM wins: flashing
 * another build keeps the pad's identity.  Changing it takes erasing the
 * EEPROM (an ISP chip erase, or avrdude writing the EEPROM image).
 * A pad without a uid does not speak (uid 0 is invalid: docs/protocol.md,
 * HELLO) and flickers its status light.
 */
#ifndef ARBITER_FIRMWARE_CONFIG_H
#define ARBITER_FIRMWARE_CONFIG_H

#include <stdint.h>

#define CONFIG_EE_UID           0
#define CONFIG_EE_KIND          8
#define CONFIG_EE_BUTTONS       9
#define CONFIG_EE_FLAGS         10
#define CONFIG_FLAG_RS485       0x01

struct pad_config {
        uint8_t uid[8];                 /* little-endian, as sent */
        uint8_t has_uid;
        uint8_t kind;
        uint8_t n_buttons;
        uint8_t rs485;
};

void config_load(struct pad_config *ret);

#endif
