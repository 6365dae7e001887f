# arbiter — one build for the daemon, its tools and its tests.
#
# The public targets (all, run, test, asan, bench, install) first make sure the
# Debian packages are there (`make deps`), then re-enter make for the real work,
# so that pkg-config is asked only once the libraries exist.  `make help` lists
# the targets.

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
DATADIR    ?= $(PREFIX)/share/arbiter
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= /etc
UNITDIR    ?= /lib/systemd/system
DBUSDIR    ?= /usr/share/dbus-1/system.d
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
# The empty root directory of arbiterd.service (RootDirectory=).
ROOTDIR    ?= $(PREFIX)/lib/arbiter/root

# SAN=1 builds everything with AddressSanitizer and UBSan into build-asan/.
SAN ?= 0
ifeq ($(SAN),1)
BUILD      ?= build-asan
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD      ?= build
SANFLAGS   :=
endif

VERSION    := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
PKGS       := libmicrohttpd libsystemd libpq libevent jansson libcrypto
TEST_PKGS  := cmocka libcurl

CC         ?= cc
OPT        ?= -O2
WARN       := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
              -Wno-missing-field-initializers
BASEFLAGS  := -std=gnu11 $(OPT) -g $(WARN) -MMD -MP -I. $(SANFLAGS) \
              -DARBITER_VERSION='"$(VERSION)"' -DARBITER_DATADIR='"$(DATADIR)"'

# Pure layers (docs/architecture.md, "Pure layers") compile with no library
# flags at all.
PURE_DIRS  := engine tournament
IO_DIRS    := common hardware store match organiser api bus daemon

# Empty (and quiet) before `make deps` has run; the inner make sees the real flags.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS := $(shell pkg-config --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS  := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)
# A tool's libraries beyond the daemon's: TOOL_LIBS_<name of the tool>.
CURL_LIBS  := $(shell pkg-config --libs libcurl 2>/dev/null)
TOOL_LIBS_arbiter-bots := $(CURL_LIBS)
TOOL_LIBS_arbiterctl := $(CURL_LIBS)

Q := @
ifeq ($(V),1)
Q :=
endif

PURE_SRCS  := $(wildcard $(addsuffix /*.c,$(PURE_DIRS)))
IO_SRCS    := $(filter-out daemon/main.c,$(wildcard $(addsuffix /*.c,$(IO_DIRS))))
PURE_OBJS  := $(PURE_SRCS:%.c=$(BUILD)/%.o)
IO_OBJS    := $(IO_SRCS:%.c=$(BUILD)/%.o)
LIB        := $(BUILD)/libarbiter.a
DAEMON     := $(BUILD)/arbiterd

# A game registered only in test builds (tests/games/, docs/engine.md): its
# engine is pure like engine/, and tests/games/registry.c is the list of
# games of the test daemon and of the unit tests, instead of
# engine/registry.c.
GAME_SRCS  := $(wildcard tests/games/*.c)
GAME_OBJS  := $(GAME_SRCS:%.c=$(BUILD)/%.o)
TEST_DAEMON := $(BUILD)/tests/arbiterd-test

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRCS:%.c=$(BUILD)/%)
INTEG_SRCS := $(wildcard tests/integration/test_*.c)
INTEG_BINS := $(INTEG_SRCS:%.c=$(BUILD)/%)
INTEG_LIB  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(INTEG_SRCS),$(wildcard tests/integration/*.c)))
# A tool is a directory tools/NAME/ of .c files, linked into $(BUILD)/NAME.
TOOL_DIRS  := $(patsubst %/main.c,%,$(wildcard tools/*/main.c))
TOOL_BINS  := $(patsubst tools/%,$(BUILD)/%,$(TOOL_DIRS))
BENCH_SRCS := $(wildcard tests/bench/bench_*.c)
BENCH_BINS := $(BENCH_SRCS:%.c=$(BUILD)/%)
# The load generator of the chaos test, `make bench` and `make soak`
# (tests/load/loadgen.c): libc only.
LOADGEN    := $(BUILD)/tests/load/loadgen
# A venue's link to the league's PostgreSQL, which a test cuts and restores
# (tests/fault/pgrelay.c: a Unix-socket relay): the league tests' and
# tests/bench/league.sh's.  libc only.
PGRELAY    := $(BUILD)/tests/pgrelay
# The league benchmark's driver (tests/bench/league_drive.c, run by
# tests/bench/league.sh, not by itself): jansson and libpq, threads.
LEAGUE_DRIVE := $(BUILD)/tests/bench/league_drive
# The live fan-out benchmark's client (tests/bench/sse_fanout.c, run by
# tests/bench/fanout.sh, not by itself): libc only.
SSE_FANOUT := $(BUILD)/tests/bench/sse_fanout

.PHONY: all build build-tests deps run test asan bench soak fuzz install clean help check-layers screenshots
.DEFAULT_GOAL := all
# Keep objects make would otherwise treat as intermediate and delete.
.SECONDARY:

all: deps
	$(Q)$(MAKE) --no-print-directory build

deps:
	$(Q)tools/deps.sh

run: all
	$(Q)tools/run-local.sh $(BUILD)

test: deps
	$(Q)$(MAKE) --no-print-directory build-tests
	$(Q)tests/run.sh $(BUILD)

asan: deps
	$(Q)$(MAKE) --no-print-directory SAN=1 build-tests
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  tests/run.sh build-asan

# The README's pictures of the web pages (the scoreboard, a table display, a
# bracket), drawn by the browser tests' code (tests/web/screenshots.py)
# against a real daemon: the only thing that writes docs/screenshots/.
screenshots: deps
	$(Q)$(MAKE) --no-print-directory build $(TEST_DAEMON)
	$(Q)ARBITER_WEB_SCREENSHOTS=$(CURDIR)/docs/screenshots tests/run.sh $(BUILD) test_web_browser

bench: deps
	$(Q)$(MAKE) --no-print-directory build $(BENCH_BINS) $(LOADGEN) $(PGRELAY) $(LEAGUE_DRIVE) $(TEST_DAEMON) $(SSE_FANOUT) $(FW_DIR)/pad.elf $(AVR_HARNESS)
	$(Q)tests/bench/run.sh $(BUILD)

# Long scenes, each a script tests/soak/*.sh bounded by SOAK_SECONDS; a new
# scene is a new script (tests/soak/run.sh runs them all).
SOAK_SECONDS ?= 600
soak: deps
	$(Q)$(MAKE) --no-print-directory build $(LOADGEN) $(CHAOS_TEST) $(TEST_DAEMON) $(FAULT_LIB)
	$(Q)SOAK_SECONDS=$(SOAK_SECONDS) tests/soak/run.sh $(BUILD)

# libFuzzer targets (clang): each runs FUZZ_SECONDS on its corpus in
# tests/fuzz/corpus/NAME (seeds; inputs that crashed once are kept there for
# good) and build-fuzz/corpus/NAME (what the fuzzer found, not committed),
# with the dictionary tests/fuzz/NAME.dict when there is one.  `make test`
# replays every committed corpus (tests/unit/test_fuzz_*.c, test_frame.c);
# docs/testing.md says how to run one target and keep what it finds.
FUZZ_SECONDS ?= 60
FUZZ_SRCS  := $(wildcard tests/fuzz/*_fuzz.c)
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRCS))
FUZZ_CFLAGS := -std=gnu11 -O1 -g -I. -fsanitize=fuzzer,address,undefined \
               -DARBITER_VERSION='"$(VERSION)"' -DARBITER_DATADIR='"$(DATADIR)"'

fuzz: deps
	$(Q)$(MAKE) --no-print-directory build
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS)
	$(Q)for f in $(FUZZ_BINS); do n=$$(basename $$f _fuzz); mkdir -p build-fuzz/corpus/$$n; \
	  d=; [ -f tests/fuzz/$$n.dict ] && d=-dict=tests/fuzz/$$n.dict; \
	  echo "== fuzzing $$n for $(FUZZ_SECONDS) s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=tests/fuzz/corpus/$$n/crash- $$d \
	    build-fuzz/corpus/$$n tests/fuzz/corpus/$$n 2>&1 | \
	    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY)' || exit 1; done

# The fuzzers link the sources they exercise directly, built with clang.
build-fuzz/config_fuzz: tests/fuzz/config_fuzz.c daemon/config.c common/log.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS)

# The frame codec is pure (libc only): no library flags.
build-fuzz/frame_fuzz: tests/fuzz/frame_fuzz.c hardware/frame.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^

# The router is instrumented; the route table's handlers come, uninstrumented,
# from the library (they are never called).
build-fuzz/router_fuzz: tests/fuzz/router_fuzz.c api/router.c $(LIB)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# What a request's body reaches is instrumented: the decoders, the match
# JSON they read configs, data and inputs with, the engines (the test
# build's games too) and the tournament rules; the rest of the library
# comes uninstrumented (the route table's handlers are never called).
FUZZ_PURE  := $(filter-out engine/registry.c,$(wildcard engine/*.c)) $(wildcard tournament/*.c) $(GAME_SRCS)
build-fuzz/bodies_fuzz: tests/fuzz/bodies_fuzz.c api/bodies.c api/problem.c api/stage_data.c \
                        match/json_fields.c match/json_game.c match/json_io.c $(FUZZ_PURE) $(LIB)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

build-fuzz/query_fuzz: tests/fuzz/query_fuzz.c api/query.c api/problem.c $(LIB)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

build-fuzz/sse_fuzz: tests/fuzz/sse_fuzz.c api/sse.c $(LIB)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# The spool reader, the pad messages and the clock model are libc (and
# libm) only: no library flags.
build-fuzz/spool_fuzz: tests/fuzz/spool_fuzz.c store/spool.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^

build-fuzz/payload_fuzz: tests/fuzz/payload_fuzz.c hardware/frame.c hardware/clock.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^ -lm

build-fuzz/clock_fuzz: tests/fuzz/clock_fuzz.c hardware/clock.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^ -lm

build-fuzz/migrate_fuzz: tests/fuzz/migrate_fuzz.c store/migrate.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS)

build: $(DAEMON) $(TOOL_BINS)

build-tests: build check-layers $(UNIT_BINS) $(INTEG_BINS) $(TEST_DAEMON) $(LOADGEN) $(PGRELAY)

# Each directory includes only what docs/architecture.md allows it, and
# engine/ and tournament/ include no library at all.
check-layers:
	$(Q)tools/check-layers

$(LIB): $(PURE_OBJS) $(IO_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(DAEMON): $(BUILD)/daemon/main.o $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) -lm

define tool_rule
$(BUILD)/$(notdir $(1)): $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(1)/*.c)) $(LIB)
	@echo "  LINK    $$@"
	$(Q)$(CC) $(SANFLAGS) -o $$@ $$^ $(PKG_LIBS) $(TOOL_LIBS_$(notdir $(1))) -lm
endef
$(foreach t,$(TOOL_DIRS),$(eval $(call tool_rule,$(t))))

$(BUILD)/tests/bench/%: $(BUILD)/tests/bench/%.o $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(LOADGEN): $(BUILD)/tests/load/loadgen.o
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^

$(PGRELAY): $(BUILD)/tests/fault/pgrelay.o
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^

$(LEAGUE_DRIVE): $(BUILD)/tests/bench/league_drive.o
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(SSE_FANOUT): $(BUILD)/tests/bench/sse_fanout.o
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ -lm

$(addprefix $(BUILD)/,$(PURE_SRCS:.c=.o)): $(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) $(PKG_CFLAGS) $(TEST_CFLAGS) -c -o $@ $<

# The games' objects come before the library, so that the test registry's
# eng_games is the one linked (engine/registry.o is then never pulled).
$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(GAME_OBJS) $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) $(TEST_LIBS) -lm

$(TEST_DAEMON): $(BUILD)/daemon/main.o $(GAME_OBJS) $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# A game is built as the pure engines are: with no library flags, so that an
# include of anything but engine/ and libc fails to compile.
$(GAME_OBJS): $(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) -c -o $@ $<

$(BUILD)/tests/integration/%: $(BUILD)/tests/integration/%.o $(INTEG_LIB) $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) $(TEST_LIBS) -lm

# The chaos scenes replay every game's matches themselves (tests/integration/
# chaos.h): the test registry's games come before the library, as in the
# test daemon.
CHAOS_TEST := $(BUILD)/tests/integration/test_chaos
$(CHAOS_TEST): $(BUILD)/tests/integration/test_chaos.o $(INTEG_LIB) $(GAME_OBJS) $(LIB)
	@echo "  LINK    $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $^ $(PKG_LIBS) $(TEST_LIBS) -lm

# An LD_PRELOAD shim that makes fsync and fdatasync slow or failing on
# chosen files (tests/fault/fsync_fault.c), for the tests of the spool;
# never sanitized, so that it can be preloaded into any build of the daemon.
FAULT_LIB  := $(BUILD)/tests/libfsync_fault.so
build-tests: $(FAULT_LIB)
$(FAULT_LIB): tests/fault/fsync_fault.c
	@mkdir -p $(@D)
	@echo "  SHLIB   $@"
	$(Q)$(CC) -std=gnu11 $(OPT) -g $(WARN) -fPIC -shared -o $@ $< -ldl

# An LD_PRELOAD shim that makes write(2) to one chosen pty return only when
# the test lets it (tests/fault/write_hold.c), for the clock sync's test
# (test_pad_sync); never sanitized, like the one above.
HOLD_LIB   := $(BUILD)/tests/libwrite_hold.so
build-tests: $(HOLD_LIB)
$(HOLD_LIB): tests/fault/write_hold.c
	@mkdir -p $(@D)
	@echo "  SHLIB   $@"
	$(Q)$(CC) -std=gnu11 $(OPT) -g $(WARN) -fPIC -shared -o $@ $< -ldl

install: all
	$(Q)install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/migrations \
	  $(DESTDIR)$(DATADIR)/web $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DBUSDIR) \
	  $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(SYSCONFDIR)/arbiter
	$(Q)install -m 0755 $(DAEMON) $(DESTDIR)$(SBINDIR)/arbiterd
	$(Q)for t in $(TOOL_BINS); do install -m 0755 $$t $(DESTDIR)$(BINDIR)/; done
	$(Q)install -m 0644 migrations/*.sql $(DESTDIR)$(DATADIR)/migrations/
	$(Q)if [ -n "$$(ls web 2>/dev/null)" ]; then cp -R web/. $(DESTDIR)$(DATADIR)/web/; fi
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@ROOTDIR@|$(ROOTDIR)|g' systemd/arbiterd.service \
	  > $(DESTDIR)$(UNITDIR)/arbiterd.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/arbiterd.service
	$(Q)install -m 0644 systemd/arbiterd.socket $(DESTDIR)$(UNITDIR)/
	$(Q)install -D -m 0644 systemd/arbiterd-single-venue.conf $(DESTDIR)$(DATADIR)/systemd/arbiterd-single-venue.conf
	$(Q)install -d $(addprefix $(DESTDIR)$(ROOTDIR)/,dev etc proc run sys tmp usr var/lib/arbiter var/tmp)
	$(Q)for l in bin:usr/bin lib:usr/lib lib64:usr/lib64 sbin:usr/sbin var/run:../run; do \
	  ln -sfn $${l#*:} $(DESTDIR)$(ROOTDIR)/$${l%%:*}; done
	$(Q)install -m 0644 systemd/org.arbiter.Arbiter1.conf $(DESTDIR)$(DBUSDIR)/
	$(Q)install -m 0644 systemd/arbiterd.sysusers $(DESTDIR)$(SYSUSERSDIR)/arbiter.conf
	$(Q)install -m 0644 systemd/arbiterd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/arbiter.conf
	$(Q)if [ ! -e $(DESTDIR)$(SYSCONFDIR)/arbiter/arbiterd.conf ]; then \
	  install -m 0640 docs/arbiterd.conf.example $(DESTDIR)$(SYSCONFDIR)/arbiter/arbiterd.conf; fi
	$(Q)for m in docs/man/*.[0-9]; do [ -e "$$m" ] || continue; s=$${m##*.}; \
	  install -d $(DESTDIR)$(MANDIR)/man$$s; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	$(Q)install -d $(DESTDIR)$(BASHCOMPDIR)
	$(Q)install -m 0644 tools/arbiterctl/arbiterctl.bash $(DESTDIR)$(BASHCOMPDIR)/arbiterctl
	@echo "installed into $(DESTDIR)$(PREFIX)"

clean:
	rm -rf build build-asan build-fuzz

help:
	@echo "make          build arbiterd and the tools (installs missing Debian packages first)"
	@echo "make run      start a local PostgreSQL under ./var and run arbiterd in the foreground"
	@echo "make test     the whole test suite: unit and integration (own PostgreSQL and dbus-daemon)"
	@echo "make asan     the whole test suite under AddressSanitizer and UBSan"
	@echo "make bench    benchmarks, each next to a reference measured in the same run"
	@echo "make soak     long scenes (tests/soak/*.sh), each bounded by SOAK_SECONDS (default 600)"
	@echo "make screenshots  the web pages' pictures in docs/screenshots/ (headless Chromium)"
	@echo "make install  install into DESTDIR/PREFIX (binaries, unit, D-Bus policy, migrations, web)"
	@echo "make fuzz     run each libFuzzer target for FUZZ_SECONDS (default 60)"
	@echo "make firmware the pad's firmware for an ATmega328P (UID=0x... for a pad's own build; docs/hardware.md)"
	@echo "make avr-harness  the emulated pad on a pty, for trying the firmware with arbiterd (tests/avr/)"
	@echo "make deps     install the Debian packages needed to build, test and run"
	@echo "make clean    remove build output"

include firmware/firmware.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
