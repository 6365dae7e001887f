/* firmware/config.c — see config.h. */
#include "firmware/config.h"

#include <avr/eeprom.h>

#include "firmware/board.h"
#include "firmware/proto.h"

static uint8_t uid_blank(const uint8_t *uid) {
        uint8_t all_ones = 0xff, any = 0;

        for (uint8_t i = 0; i < 8; i++) {
                all_ones &= uid[i];
                any |= uid[i];
        }
        return all_ones == 0xff || any == 0;
}

void config_load(struct pad_config *c) {
        eeprom_read_block(c->uid, (const void *) CONFIG_EE_UID, sizeof c->uid);
#ifdef PAD_UID
        if (uid_blank(c->uid)) {
                uint64_t seed = PAD_UID;

                for (uint8_t i = 0; i < 8; i++, seed >>= 8)
                        c->uid[i] = (uint8_t) seed;
                if (!uid_blank(c->uid))
                        eeprom_update_block(c->uid, (void *) CONFIG_EE_UID, sizeof c->uid);
        }
#endif
        c->has_uid = !uid_blank(c->uid);

        uint8_t kind = eeprom_read_byte((const uint8_t *) CONFIG_EE_KIND);
        uint8_t n = eeprom_read_byte((const uint8_t *) CONFIG_EE_BUTTONS);
        uint8_t flags = eeprom_read_byte((const uint8_t *) CONFIG_EE_FLAGS);

        if (kind != PROTO_KIND_BUTTONS && kind != PROTO_KIND_SLAP)
                kind = PAD_KIND;
        if (n < 1 || n > BOARD_BUTTONS_MAX)
                n = kind == PROTO_KIND_SLAP ? 1 : PAD_BUTTONS;
        c->kind = kind;
        c->n_buttons = n;
        c->rs485 = flags == 0xff ? PAD_RS485 : (flags & CONFIG_FLAG_RS485) != 0;
}

#ifdef PAD_UID
#if (PAD_UID) == 0 || (PAD_UID) == 0xffffffffffffffff
#error "UID must not be 0 or all ones (docs/protocol.md, HELLO)"
#endif
/* The EEPROM image of a build with a uid (pad-UID.eep.hex): the uid at
 * EEPROM address 0, the only variable in the .eeprom section, stored
 * little-endian as the AVR stores a uint64_t. */
__attribute__((section(".eeprom"), used)) static const uint64_t eeprom_uid = PAD_UID;
#endif
