# firmware/firmware.mk — `make firmware` and `make avr-harness`, included by
# the Makefile.  The pad's firmware (firmware/, docs/hardware.md) is built
# with avr-gcc and its own flags, apart from the daemon's: nothing here
# touches CC, CFLAGS or the objects of `make`, `make test` or `make asan`.
#
#   make firmware [UID=0x...] [PAD_KIND=1|2] [PAD_BUTTONS=1..7] [PAD_RS485=0|1]
#                 [PAD_BAUD=1000000|115200]
#     $(BUILD)/firmware/pad.elf, pad.hex; with UID also pad-UID.elf,
#     pad-UID.hex (a build that writes UID into a blank EEPROM on its first
#     start) and pad-UID.eep.hex (the EEPROM image, for avrdude or an ISP);
#     crcbench.elf (the codec's cost in cycles); prints flash and RAM use.
#   make avr-harness
#     $(BUILD)/tests/avr/avrpad, emulated pads on a pty (tests/avr/).
#   make build-tests (make test, make asan) builds pad.elf and avrpad too:
#     the emulated-pad tests (tests/integration/test_avr_*.c) run them.

FW_DIR     := $(BUILD)/firmware
FW_CC      := avr-gcc
FW_OBJCOPY := avr-objcopy
FW_SIZE    := avr-size
FW_MCU     := atmega328p
FW_F_CPU   := 16000000UL
# The build's defaults for a pad whose EEPROM does not say (firmware/board.h).
FW_DEFS    := $(if $(PAD_KIND),-DPAD_KIND=$(PAD_KIND)) $(if $(PAD_BUTTONS),-DPAD_BUTTONS=$(PAD_BUTTONS)) \
              $(if $(PAD_RS485),-DPAD_RS485=$(PAD_RS485)) $(if $(PAD_BAUD),-DPAD_BAUD=$(PAD_BAUD)UL)
FW_CFLAGS  := -mmcu=$(FW_MCU) -DF_CPU=$(FW_F_CPU) -Os -g -std=gnu11 -I. $(WARN) \
              -MMD -MP -ffunction-sections -fdata-sections -fshort-enums $(FW_DEFS)
FW_LDFLAGS := -mmcu=$(FW_MCU) -Wl,--gc-sections
FW_SRCS    := $(filter-out firmware/crcbench.c,$(wildcard firmware/*.c))
FW_OBJS    := $(FW_SRCS:%.c=$(BUILD)/%.avr.o)
FW_TARGETS := $(FW_DIR)/pad.elf $(FW_DIR)/pad.hex $(FW_DIR)/crcbench.elf
ifneq ($(UID),)
FW_TARGETS += $(FW_DIR)/pad-$(UID).elf $(FW_DIR)/pad-$(UID).hex $(FW_DIR)/pad-$(UID).eep.hex
endif

# The flags are part of what an object is: a build with other defaults
# rebuilds (the stamp changes when they do).
FW_STAMP   := $(FW_DIR)/flags
$(FW_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(FW_CFLAGS)' | cmp -s - $@ || echo '$(FW_CFLAGS)' > $@

$(BUILD)/firmware/%.avr.o: firmware/%.c $(FW_STAMP)
	@mkdir -p $(@D)
	@echo "  AVR-CC  $@"
	$(Q)$(FW_CC) $(FW_CFLAGS) -c -o $@ $<

$(FW_DIR)/pad.elf: $(FW_OBJS)
	@echo "  AVR-LD  $@"
	$(Q)$(FW_CC) $(FW_LDFLAGS) -o $@ $^

ifneq ($(UID),)
$(BUILD)/firmware/config-$(UID).avr.o: firmware/config.c $(FW_STAMP)
	@mkdir -p $(@D)
	@echo "  AVR-CC  $@"
	$(Q)$(FW_CC) $(FW_CFLAGS) -DPAD_UID=$(UID)ULL -c -o $@ $<

$(FW_DIR)/pad-$(UID).elf: $(filter-out %/config.avr.o,$(FW_OBJS)) $(BUILD)/firmware/config-$(UID).avr.o
	@echo "  AVR-LD  $@"
	$(Q)$(FW_CC) $(FW_LDFLAGS) -o $@ $^
endif

$(FW_DIR)/crcbench.elf: $(BUILD)/firmware/crcbench.avr.o $(BUILD)/firmware/codec.avr.o
	@echo "  AVR-LD  $@"
	$(Q)$(FW_CC) $(FW_LDFLAGS) -o $@ $^

$(FW_DIR)/%.hex: $(FW_DIR)/%.elf
	$(Q)$(FW_OBJCOPY) -O ihex -R .eeprom $< $@

$(FW_DIR)/%.eep.hex: $(FW_DIR)/%.elf
	$(Q)$(FW_OBJCOPY) -O ihex -j .eeprom --change-section-lma .eeprom=0 $< $@

firmware-build: $(FW_TARGETS)
	$(Q)$(FW_SIZE) --format=avr --mcu=$(FW_MCU) $(FW_DIR)/pad.elf | grep -E 'Program|Data|EEPROM'

firmware: deps
	$(Q)$(MAKE) --no-print-directory firmware-build

# The emulated pads (tests/avr/avrpad.c and its files): a host program on
# libsimavr.
AVR_HARNESS := $(BUILD)/tests/avr/avrpad
AVR_HARNESS_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/avr/*.c))
SIMAVR_CFLAGS := $(shell pkg-config --cflags simavr 2>/dev/null)
SIMAVR_LIBS := $(shell pkg-config --libs simavr 2>/dev/null) -lelf
$(AVR_HARNESS_OBJS): $(BUILD)/tests/avr/%.o: tests/avr/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) $(SIMAVR_CFLAGS) -c -o $@ $<

# Only the objects are linked: a build directory that made avrpad from
# avrpad.c alone still has that build's avrpad.d, which names the C file
# and its headers as prerequisites of $(AVR_HARNESS) until avrpad.o's own
# replaces it (linked with them, cc wrote a precompiled header as avrpad).
$(AVR_HARNESS): $(AVR_HARNESS_OBJS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $(filter %.o,$^) $(SIMAVR_LIBS) -lm

avr-harness: deps
	$(Q)$(MAKE) --no-print-directory $(AVR_HARNESS)

# The emulated-pad tests find both under $(BUILD), as the others find
# arbiter-padsim.
build-tests: $(FW_DIR)/pad.elf $(AVR_HARNESS)

FORCE:
.PHONY: firmware firmware-build avr-harness FORCE
