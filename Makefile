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
# DISPATCH=switch builds the interpreter's switch fallback instead of
# computed goto (core/interp.c); `make test` runs the engine suites on both.
DISPATCH ?= goto
ifeq ($(DISPATCH),switch)
BUILD := $(BUILD)-switch
DISPATCH_FLAGS := -DENG_SWITCH_DISPATCH
endif
# LINE=edit builds the command line (tui/cli/line.c) on libedit instead of GNU
# readline, in its own build folder; `make test` checks both.
LINE ?= readline
ifeq ($(LINE),edit)
BUILD := $(BUILD)-edit
LINE_FLAGS := -DTUI_LINE_EDIT
LINE_LIBS := -ledit
else
LINE_LIBS := -lreadline
endif
# What the heisen binary links (test_complete too, with its objects).
# The TUI's curses: ncursesw for wide characters.
CURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
HEISEN_LIBS := -lsqlite3 -lm -lpthread $(LINE_LIBS) $(CURSES_LIBS)
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) $(SAN) $(DISPATCH_FLAGS) $(LINE_FLAGS) -MMD -MP -I. $(CFLAGS)
LDFLAGS_ALL := $(SAN) $(LDFLAGS)

CORE_SRC := $(wildcard core/*.c rewriter/*.c detector/*.c db/*.c replay/*.c remote/*.c)
TUI_SRC := $(wildcard tui/cli/*.c tui/report/*.c tui/cmd/*.c tui/screen/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ := $(TUI_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libheisen.a
HEISEN := $(BUILD)/heisen

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
SPEC_BIN := $(BUILD)/tests/spec/spec_validate $(BUILD)/tests/spec/spec_instrument
# Runs a WASI program whose heisen.mask is all zeros or all ones (the
# rewriter's e2e test and the density-0 benchmark).
MASKED_RUN := $(BUILD)/tests/e2e/masked_run
# Writes a workspace database with known content (t_db.sh).
DB_FILL := $(BUILD)/tests/e2e/db_fill
BENCH_BIN := $(BUILD)/tests/bench/genmod $(BUILD)/tests/bench/bench_validate \
	$(BUILD)/tests/bench/bench_jit \
	$(BUILD)/tests/bench/bench_engine $(BUILD)/tests/bench/bench_rewrite \
	$(BUILD)/tests/bench/bench_db $(BUILD)/tests/bench/bench_stats \
	$(BUILD)/tests/bench/bench_check $(BUILD)/tests/bench/bench_stacks \
	$(BUILD)/tests/bench/bench_sched $(MASKED_RUN)
FUZZ_BIN := build-fuzz/fuzz_module
FUZZ_RW_BIN := build-fuzz/fuzz_instrument

.PHONY: all deps run test unit spec e2e line-check fuzz fuzz-all fuzz-regress bench demos install clean help format

# What an installed heisen needs besides itself: the guest library that
# `heisen cc` links (demos/guest/, built below with the demos' rules), and
# the manual page and completion script made from the command table.
WASI_AR ?= llvm-ar
GUEST_DIR := demos/build/guest
GUEST_OBJ := $(patsubst demos/guest/%.c,$(GUEST_DIR)/%.o,$(filter-out demos/guest/crt1.c,$(wildcard demos/guest/*.c))) \
	$(GUEST_DIR)/longjmp.o
GUEST_FILES := $(GUEST_DIR)/libheisen-guest.a $(GUEST_DIR)/crt1.o $(GUEST_DIR)/thread_start.o
MAN_PAGE := $(BUILD)/heisen.1
BASH_COMPLETION := $(BUILD)/heisen.bash
all: $(HEISEN) $(GUEST_FILES) $(MAN_PAGE) $(BASH_COMPLETION)

$(MAN_PAGE): $(HEISEN)
	$(HEISEN) help --man > $@.tmp && mv $@.tmp $@
$(BASH_COMPLETION): $(HEISEN)
	$(HEISEN) completion bash > $@.tmp && mv $@.tmp $@

help:
	@echo "targets: deps all run test unit spec e2e line-check fuzz fuzz-all bench demos install clean"
	@echo "options: SANITIZE=1  DISPATCH=switch  LINE=edit  PREFIX=$(PREFIX)  FUZZ_SECONDS=$(FUZZ_SECONDS)"

# Debian packages the project needs. Idempotent: installs only what is
# missing, so a machine that has them all makes no network request.
# openssh-server is for the remote-node e2e tests, which start their own
# sshd on loopback (tests/e2e/lib_sshd.sh) and never use the system one.
# python3-jsonschema and libxml2-utils (xmllint) check the SARIF and JUnit
# output of --format (tests/e2e/t_formats.sh). munge, slurmctld, slurmd and
# slurm-client make the one-machine cluster of tests/e2e/t_slurm.sh and
# the Slurm benchmark (tests/e2e/lib_slurm.sh), started by the test itself.
DEB_PKGS := build-essential pkg-config libncurses-dev libreadline-dev \
	libedit-dev libsqlite3-dev sqlite3 libcmocka-dev clang lld \
	libclang-rt-14-dev libclang-rt-14-dev-wasm32 wasi-libc llvm wabt tmux xxd \
	python3 python3-jsonschema libxml2-utils man-db openssh-client \
	openssh-server munge slurmctld slurmd slurm-client
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

# interp.c: a callee's few locals are zeroed inline, not by a memset call.
$(BUILD)/core/interp.o: CFLAGS_ALL += -fno-tree-loop-distribute-patterns

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(HEISEN): $(TUI_OBJ) $(LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $(TUI_OBJ) $(LIB) $(HEISEN_LIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDFLAGS_ALL) -lcmocka -lsqlite3 -lm -lpthread

# Completion and --format's option checks read the command table, which
# names every handler: these tests link the objects of heisen but main.o,
# and heisen's libraries.
TUI_LIB_OBJ := $(filter-out $(BUILD)/tui/cli/main.o,$(TUI_OBJ))
TUI_UNIT_BIN := $(BUILD)/tests/unit/test_complete $(BUILD)/tests/unit/test_report_fmt
$(TUI_UNIT_BIN): $(BUILD)/tests/unit/%: tests/unit/%.c $(TUI_LIB_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(TUI_LIB_OBJ) $(LIB) $(LDFLAGS_ALL) -lcmocka $(HEISEN_LIBS)

SPEC_COMMON := tests/spec/json.c tests/spec/exceptions.c
$(BUILD)/tests/spec/%: tests/spec/%.c $(SPEC_COMMON) tests/spec/json.h tests/spec/exceptions.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(SPEC_COMMON) $(LIB) $(LDFLAGS_ALL) -lm -lpthread

# The engine runner also links the spec suite's host module.
$(BUILD)/tests/spec/spec_run: tests/spec/spec_run.c tests/spec/spectest.c tests/spec/spectest.h $(SPEC_COMMON) tests/spec/json.h tests/spec/exceptions.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< tests/spec/spectest.c $(SPEC_COMMON) $(LIB) $(LDFLAGS_ALL) -lm -lpthread

$(BUILD)/tests/e2e/%: tests/e2e/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDFLAGS_ALL) -lsqlite3 -lm -lpthread

$(BUILD)/tests/bench/%: tests/bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O2 -o $@ $< $(LIB) $(LDFLAGS_ALL) -lsqlite3 -lm -lpthread

# libFuzzer needs clang; its objects are built separately with coverage.
# UBSan must stop the run, or libFuzzer reports a finding and moves on.
FUZZ_CFLAGS := $(CSTD) $(WARN) -g -O1 -I. -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
# The module core only: what the rewriter's fuzz target exercises.
FUZZ_SRC := core/util.c core/decode.c core/validate.c core/encode.c core/summary.c
# The module target also compiles each valid module for the engine
# (core/compile.c, instrumented). The interpreter and the runtime it links
# (with serial execution's sched.c and fiber.c) are not under test there
# and are built plain: clang takes ~9 minutes to instrument interp.c's one
# big function for coverage and ASan.
FUZZ_PLAIN_OBJ := build-fuzz/plain/interp.o build-fuzz/plain/runtime.o \
	build-fuzz/plain/sched.o build-fuzz/plain/fiber.o build-fuzz/plain/jit.o
build-fuzz/plain/%.o: core/%.c $(wildcard core/*.h core/*.def)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(WARN) -g -O1 -I. -c -o $@ $<
$(FUZZ_BIN): tests/fuzz/fuzz_module.c $(FUZZ_SRC) core/compile.c $(FUZZ_PLAIN_OBJ) $(wildcard core/*.h core/*.def)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_module.c $(FUZZ_SRC) core/compile.c $(FUZZ_PLAIN_OBJ) -lm -lpthread
# The rewriter on top of the module core: instrument, then check the output.
FUZZ_RW_SRC := $(FUZZ_SRC) $(wildcard rewriter/*.c)
$(FUZZ_RW_BIN): tests/fuzz/fuzz_instrument.c $(FUZZ_RW_SRC) $(wildcard core/*.h core/*.def rewriter/*.h)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_instrument.c $(FUZZ_RW_SRC) -lm -lpthread

# One target per reader of untrusted input (tests/fuzz/fuzz_NAME.c; issue
# 31): the reader's own files are built for coverage and the sanitizers,
# everything else it calls comes plain from FUZZ_LIB (heisen's objects but
# main.o, without instrumentation). Each target's committed corpus is
# tests/fuzz/corpus/NAME/; fuzz_module and fuzz_instrument share module/.
FUZZ_READERS := repro sched mask suppress script nodeurl import dwarf tsan jit
FUZZ_SRC_repro := replay/replay.c
FUZZ_SRC_sched := replay/sched.c
FUZZ_SRC_tsan := replay/tsan.c
FUZZ_SRC_mask := detector/mask.c
FUZZ_SRC_suppress := detector/suppress.c tui/report/suppress.c
FUZZ_SRC_script := tui/cli/script.c tui/cli/parse.c
FUZZ_SRC_nodeurl := db/nodes.c
FUZZ_SRC_import := db/sync.c db/db.c
# Not a reader: the compiler against the interpreter (differential).
FUZZ_SRC_jit := core/compile.c core/jit.c
FUZZ_SRC_dwarf := rewriter/dwarf.c rewriter/srcmap.c rewriter/symbols.c \
	rewriter/inline.c
FUZZ_READER_BIN := $(FUZZ_READERS:%=build-fuzz/fuzz_%)
FUZZ_ALL_BIN := $(FUZZ_BIN) $(FUZZ_RW_BIN) $(FUZZ_READER_BIN)
FUZZ_LIB := build-fuzz/lib/libheisen-plain.a
FUZZ_LIB_OBJ := $(patsubst %.c,build-fuzz/lib/%.o,$(CORE_SRC) $(filter-out tui/cli/main.c,$(TUI_SRC)))
FUZZ_HDR := $(wildcard core/*.h core/*.def */*.h tui/*/*.h)
build-fuzz/lib/%.o: %.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(WARN) -g -O1 -I. -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
.SECONDEXPANSION:
$(FUZZ_READER_BIN): build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $$(FUZZ_SRC_$$*) $(FUZZ_LIB) $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRC_$*) $(FUZZ_LIB) $(HEISEN_LIBS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

spec: $(SPEC_BIN) $(BUILD)/tests/spec/spec_run $(HEISEN)
	tests/spec/run.sh $(BUILD)

e2e: $(HEISEN) $(MASKED_RUN) $(DB_FILL) demos
	HEISEN=$(abspath $(HEISEN)) tests/e2e/run.sh

# The tests of what the line library touches, for `make LINE=edit
# line-check`: `make test` runs every suite on GNU readline, then these on
# libedit: completion and scripts (unit), and the shell, the TUI (which
# links curses beside it), scripts and argv commands (e2e). The rest of
# the binary is the same code in both builds.
line-check: $(HEISEN) $(BUILD)/tests/unit/test_complete $(BUILD)/tests/unit/test_script demos
	$(BUILD)/tests/unit/test_complete
	$(BUILD)/tests/unit/test_script
	@set -e; for t in t_shell t_tui t_script t_cli; do \
		echo "== $$t ($(BUILD))"; \
		HEISEN=$(abspath $(HEISEN)) bash tests/e2e/$$t.sh; \
	done

# Replays the committed corpus, then explores for FUZZ_SECONDS.
fuzz: $(FUZZ_BIN)
	@mkdir -p build-fuzz/corpus/module
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build-fuzz/corpus/module tests/fuzz/corpus/module

# Every target for FUZZ_SECONDS each, one after the other, new inputs in
# build-fuzz/corpus/NAME/ (crashes in build-fuzz/crash/NAME/); one line per
# target (tests/fuzz/run.sh).
fuzz-all: $(FUZZ_ALL_BIN)
	tests/fuzz/run.sh explore $(FUZZ_SECONDS) $(FUZZ_ALL_BIN)

# Replays every committed corpus under ASan and UBSan, no new inputs: a
# finding fixed once stays fixed.
fuzz-regress: $(FUZZ_ALL_BIN)
	tests/fuzz/run.sh replay 0 $(FUZZ_ALL_BIN)

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) spec
	$(MAKE) e2e
	$(MAKE) LINE=edit line-check
	$(MAKE) fuzz-regress
	HEISEN_ENGINE=interp $(MAKE) DISPATCH=switch unit spec

bench: deps
	$(MAKE) $(BENCH_BIN) $(HEISEN) $(DB_FILL) demos
	tests/bench/run.sh $(BUILD)

# comp-bug.c is built twice, at -O0 and -O2 (the paper's comp-unopt-bug
# and comp-opt-bug), and never under its own name.
DEMO_SRC := $(filter-out demos/comp-bug.c,$(wildcard demos/*.c))
DEMO_COMP := comp-opt-bug comp-unopt-bug
DEMO_WASM := $(patsubst demos/%.c,demos/build/%.wasm,$(DEMO_SRC)) $(DEMO_COMP:%=demos/build/%.wasm)
WASI_CLANG := clang --target=wasm32-wasi --sysroot=/usr -matomics -mbulk-memory -g -O1
# The guest library (demos/guest/: pthreads on wasi-threads, locked malloc
# and stdio) and the demos, built with `heisen cc`, which holds the compile
# and link flags (tui/cmd/cmd_cc.c). Native builds of the same sources, whose
# output the wasm builds must reproduce, go to demos/build/native/.
GUEST_CFLAGS := -pthread -ftls-model=local-exec -O2 -Wall -Wextra -Wno-unused-parameter -Werror -isystem demos/guest/include
DEMO_NATIVE := $(patsubst demos/%.c,demos/build/native/%,$(DEMO_SRC)) $(DEMO_COMP:%=demos/build/native/%)
# Guests of the campaign robustness tests (trap, exit status, deadlock).
E2E_GUESTS := $(patsubst tests/e2e/guests/%.c,demos/build/guests/%.wasm,$(wildcard tests/e2e/guests/*.c))
demos: $(GUEST_FILES) $(DEMO_WASM) $(DEMO_NATIVE) $(E2E_GUESTS)
# Per-demo flags, as target-specific variables: DEMO_OPT for both builds,
# DEMO_WASM_FLAGS for the wasm one. The SIMD demos are there to be
# vectorised: -O2 (gcc's -O2 vectorises too), and 128-bit SIMD in wasm.
SIMD_DEMOS := simd-race simd-race-free
DEMO_OPT := -O1
DEMO_WASM_FLAGS :=
$(SIMD_DEMOS:%=demos/build/%.wasm) $(SIMD_DEMOS:%=demos/build/native/%): DEMO_OPT := -O2
$(SIMD_DEMOS:%=demos/build/%.wasm): DEMO_WASM_FLAGS := -msimd128
$(GUEST_DIR)/%.o: demos/guest/%.c $(wildcard demos/guest/*.h demos/guest/include/*.h demos/guest/include/*/*.h)
	@mkdir -p $(dir $@)
	$(WASI_CLANG) $(GUEST_CFLAGS) -c -o $@ $<
$(GUEST_DIR)/%.o: demos/guest/%.s
	@mkdir -p $(dir $@)
	$(WASI_CLANG) $(GUEST_ASFLAGS) -c -o $@ $<
# longjmp.s throws (exception handling); clang 14's assembler crashes
# ("section doesn't have defining symbol") on its tag when it adds debug
# information, so none.
$(GUEST_DIR)/longjmp.o: GUEST_ASFLAGS := -mexception-handling -g0
$(GUEST_DIR)/libheisen-guest.a: $(GUEST_OBJ)
	@rm -f $@
	$(WASI_AR) rcs $@ $^
demos/build/%.wasm: demos/%.c $(GUEST_FILES) tui/cmd/cmd_cc.c | $(HEISEN)
	@mkdir -p $(dir $@)
	$(HEISEN) cc -g $(DEMO_OPT) $(DEMO_WASM_FLAGS) -Wall -o $@ $<
demos/build/native/%: demos/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DEMO_OPT) -g -pthread -Wall -o $@ $<
demos/build/comp-opt-bug.wasm demos/build/native/comp-opt-bug: COMP_OPT := -O2
demos/build/comp-unopt-bug.wasm demos/build/native/comp-unopt-bug: COMP_OPT := -O0
$(DEMO_COMP:%=demos/build/%.wasm): demos/comp-bug.c $(GUEST_FILES) tui/cmd/cmd_cc.c | $(HEISEN)
	@mkdir -p $(dir $@)
	$(HEISEN) cc -g $(COMP_OPT) -Wall -o $@ $<
$(DEMO_COMP:%=demos/build/native/%): demos/comp-bug.c
	@mkdir -p $(dir $@)
	$(CC) $(COMP_OPT) -g -pthread -Wall -o $@ $<
demos/build/guests/%.wasm: tests/e2e/guests/%.c $(GUEST_FILES) tui/cmd/cmd_cc.c | $(HEISEN)
	@mkdir -p $(dir $@)
	$(HEISEN) cc -g -O1 -Wall -o $@ $<
# The same program without its annotations (#include of the other).
demos/build/guests/annotations-off.wasm: tests/e2e/guests/annotations-on.c
$(BUILD)/tui/cmd/cmd_cc.o: CFLAGS_ALL += -DHEISEN_GUEST_LIBDIR='"$(PREFIX)/lib/heisen/guest"' \
	-DHEISEN_GUEST_INCDIR='"$(PREFIX)/include/heisen/guest"'

# The workspace is ./heisen.db: a first `make run` sweeps the fibonacci
# demo into it, later ones open what is there. Without a terminal (a CI
# log) the bug list is printed instead of opening the TUI.
run: deps
	$(MAKE) all demos
	test -e heisen.db || $(HEISEN) sweep demos/build/fibonacci.wasm --densities 10:100:10
	if [ -t 0 ] && [ -t 1 ]; then $(HEISEN) tui; else $(HEISEN) bugs; fi

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(HEISEN) $(DESTDIR)$(PREFIX)/bin/heisen
	install -m 644 $(MAN_PAGE) $(DESTDIR)$(PREFIX)/share/man/man1/heisen.1
	install -m 644 $(BASH_COMPLETION) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/heisen
	install -d $(DESTDIR)$(PREFIX)/lib/heisen/guest $(DESTDIR)$(PREFIX)/include/heisen/guest/sys
	install -m 644 $(GUEST_FILES) $(DESTDIR)$(PREFIX)/lib/heisen/guest
	install -m 644 demos/guest/include/*.h $(DESTDIR)$(PREFIX)/include/heisen/guest
	install -m 644 demos/guest/include/sys/*.h $(DESTDIR)$(PREFIX)/include/heisen/guest/sys
	for d in heisen sanitizer valgrind; do \
		install -d $(DESTDIR)$(PREFIX)/include/heisen/guest/$$d && \
		install -m 644 demos/guest/include/$$d/*.h $(DESTDIR)$(PREFIX)/include/heisen/guest/$$d || exit 1; \
	done

format:
	clang-format -i $(CORE_SRC) $(TUI_SRC) core/*.h tui/*/*.h replay/*.h tests/*/*.c tests/*/*.h 2>/dev/null || true

clean:
	rm -rf build build-asan build-fuzz build-switch build-asan-switch \
		build-edit build-asan-edit demos/build

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)
