# heisen - top-level build. `make help` lists the targets.
#
#   make run      install missing Debian packages, build, open heisen on a demo
#   make test     the same set-up, then every test suite
#   make SANITIZE=1 ...   the same with ASan+UBSan (objects in build-asan/)

SHELL := /bin/bash
CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
PREFIX ?= /usr/local
SANITIZE ?= 0
FUZZ_SECONDS ?= 30

CSTD := -std=c17 -D_GNU_SOURCE
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
OPT := -O2 -g
ifeq ($(SANITIZE),1)
BUILD := build-asan
OPT := -O1 -g -fno-omit-frame-pointer
SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
else
BUILD := build
SAN :=
endif
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) $(SAN) -MMD -MP -I. $(CFLAGS)
LDFLAGS_ALL := $(SAN) $(LDFLAGS)

CORE_SRC := $(wildcard core/*.c)
TUI_SRC := $(wildcard tui/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ := $(TUI_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libheisen.a
HEISEN := $(BUILD)/heisen

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
SPEC_BIN := $(BUILD)/tests/spec/spec_validate
BENCH_BIN := $(BUILD)/tests/bench/genmod $(BUILD)/tests/bench/bench_validate
FUZZ_BIN := build-fuzz/fuzz_module

.PHONY: all deps run test unit spec e2e fuzz fuzz-regress bench demos install clean help format

all: $(HEISEN)

help:
	@echo "targets: deps all run test unit spec e2e fuzz bench demos install clean"
	@echo "options: SANITIZE=1  PREFIX=$(PREFIX)  FUZZ_SECONDS=$(FUZZ_SECONDS)"

# Debian packages the project needs. Idempotent: installs only what is
# missing, so a machine that has them all makes no network request.
DEB_PKGS := build-essential pkg-config libncurses-dev libreadline-dev \
	libedit-dev libsqlite3-dev sqlite3 libcmocka-dev clang lld \
	libclang-rt-14-dev libclang-rt-14-dev-wasm32 wasi-libc wabt tmux xxd
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "deps: run as root (or install: $$missing)" >&2; exit 2; fi; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "deps: all Debian packages present"; fi

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(HEISEN): $(TUI_OBJ) $(LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $(TUI_OBJ) $(LIB) -lm -lpthread

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDFLAGS_ALL) -lcmocka -lm -lpthread

$(BUILD)/tests/spec/%: tests/spec/%.c tests/spec/json.c tests/spec/json.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< tests/spec/json.c $(LIB) $(LDFLAGS_ALL) -lm -lpthread

$(BUILD)/tests/bench/%: tests/bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O2 -o $@ $< $(LIB) $(LDFLAGS_ALL) -lm -lpthread

# libFuzzer needs clang; its objects are built separately with coverage.
# UBSan must stop the run, or libFuzzer reports a finding and moves on.
FUZZ_CFLAGS := $(CSTD) $(WARN) -g -O1 -I. -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
# The module core only: what the fuzz target exercises.
FUZZ_SRC := core/util.c core/decode.c core/validate.c core/encode.c core/summary.c
$(FUZZ_BIN): tests/fuzz/fuzz_module.c $(FUZZ_SRC) $(wildcard core/*.h core/*.def)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_module.c $(FUZZ_SRC) -lm -lpthread

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

spec: $(SPEC_BIN) $(HEISEN)
	tests/spec/run.sh $(BUILD)

e2e: $(HEISEN)
	HEISEN=$(abspath $(HEISEN)) tests/e2e/run.sh

# Replays the committed corpus, then explores for FUZZ_SECONDS.
fuzz: $(FUZZ_BIN)
	@mkdir -p build-fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build-fuzz/corpus tests/fuzz/corpus

fuzz-regress: $(FUZZ_BIN)
	$(FUZZ_BIN) -runs=0 tests/fuzz/corpus

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) spec
	$(MAKE) e2e
	$(MAKE) fuzz-regress

bench: deps
	$(MAKE) $(BENCH_BIN) $(HEISEN)
	tests/bench/run.sh $(BUILD)

DEMO_WASM := $(patsubst demos/%.c,demos/build/%.wasm,$(wildcard demos/*.c))
WASI_CLANG := clang --target=wasm32-wasi --sysroot=/usr -matomics -mbulk-memory -g -O1
WASI_LINK := -nostdlib -Wl,-L/usr/lib/wasm32-wasi /usr/lib/wasm32-wasi/crt1-command.o \
	-lc /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a \
	-Wl,--shared-memory -Wl,--import-memory -Wl,--max-memory=67108864 -Wl,--no-check-features
demos: $(DEMO_WASM)
demos/build/%.wasm: demos/%.c
	@mkdir -p $(dir $@)
	$(WASI_CLANG) -fuse-ld=lld -o $@ $< $(WASI_LINK)

run: deps
	$(MAKE) all demos
	$(HEISEN) inspect demos/build/hello.wasm
	$(HEISEN) validate demos/build/hello.wasm

install: $(HEISEN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(HEISEN) $(DESTDIR)$(PREFIX)/bin/heisen

format:
	clang-format -i $(CORE_SRC) $(TUI_SRC) core/*.h tui/*.h tests/*/*.c tests/*/*.h 2>/dev/null || true

clean:
	rm -rf build build-asan build-fuzz demos/build

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)
