#!/usr/bin/env bash
# `heisen run`: a WASI program's stdout, stderr, stdin, arguments,
# environment and exit code pass through; files are reachable only in
# granted directories; proc_exit ends the program with its code from any
# thread; traps exit 134 with the message on stderr; --timeout exits 124
# promptly; wasi-threads thread-spawn runs threads on a shared memory;
# bad files and options exit 2.
#
# Guest programs are built here: C with clang + wasi-libc (the link line
# of the Makefile's `demos` rule), and hand-written .wat with wat2wasm.
. "$(dirname "$0")/lib.sh"

run() { # ARGS... : run heisen (stdin from $dir/in), leaving rc, out, err
	# A hung engine must not hang the suite: KILL gives 137, not our 124.
	timeout -s KILL 60 "$HEISEN" "$@" <"$dir/in" >"$dir/out" 2>"$dir/err"
	rc=$?
}

expect_rc() { # WANT LABEL
	[ "$rc" -eq "$1" ] ||
		bad "$2: exit $rc, want $1; stderr: $(snippet "$dir/err")"
}

for tool in clang wat2wasm; do
	command -v $tool >/dev/null || { echo "t_run: $tool missing (make deps)"; exit 1; }
done
: >"$dir/in"

# ---- a C program with one mode per test ---------------------------------
cat >"$dir/prog.c" <<'EOF'
/* No errno here: wasm32 TLS needs -ftls-model=local-exec; perror reads
 * it inside libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hello";
	char buf[256];
	size_t n;
	FILE *f;

	if (!strcmp(mode, "hello")) {
		printf("hello from wasm:");
		for (int i = 2; i < argc; i++)
			printf(" [%s]", argv[i]);
		printf("\n");
		fprintf(stderr, "this goes to stderr\n");
		return 0;
	}
	if (!strcmp(mode, "exit"))
		exit(atoi(argv[2]));
	if (!strcmp(mode, "env")) {
		const char *v = getenv(argv[2]);
		printf("%s=%s\n", argv[2], v ? v : "(unset)");
		return 0;
	}
	if (!strcmp(mode, "cat")) {
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			fwrite(buf, 1, n, stdout);
		return 0;
	}
	if (!strcmp(mode, "read")) {
		if (!(f = fopen(argv[2], "r"))) {
			fprintf(stderr, "cannot open ");
			perror(argv[2]);
			return 1;
		}
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(f);
		return 0;
	}
	if (!strcmp(mode, "write")) {
		if (!(f = fopen(argv[2], "w"))) {
			fprintf(stderr, "cannot create ");
			perror(argv[2]);
			return 1;
		}
		fprintf(f, "written by wasm\n");
		return fclose(f) ? 1 : 0;
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
EOF
# The flags of the Makefile's WASI_CLANG, linked as DESIGN.md's guest notes say.
if ! clang --target=wasm32-wasi --sysroot=/usr -matomics -mbulk-memory -g -O1 \
	-fuse-ld=lld -o "$dir/prog.wasm" "$dir/prog.c" \
	-nostdlib -Wl,-L/usr/lib/wasm32-wasi /usr/lib/wasm32-wasi/crt1-command.o \
	-lc /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a \
	-Wl,--shared-memory -Wl,--import-memory -Wl,--max-memory=67108864 \
	-Wl,--no-check-features 2>"$dir/cc.err"; then
	echo "t_run: cannot build the test program: $(snippet "$dir/cc.err")"
	exit 1
fi

wat() { # NAME : $dir/NAME.wat -> $dir/NAME.wasm
	wat2wasm --enable-threads --debug-names -o "$dir/$1.wasm" "$dir/$1.wat" 2>"$dir/wat.err" ||
		{ echo "t_run: wat2wasm $1: $(snippet "$dir/wat.err")"; exit 1; }
}

# ---- stdio, arguments, environment, exit codes ---------------------------
c_tests() {
	run run "$dir/prog.wasm" -- hello "a b" --dash
	expect_rc 0 "hello"
	[ "$(cat "$dir/out")" = "hello from wasm: [a b] [--dash]" ] ||
		bad "hello: stdout is '$(snippet "$dir/out")'"
	[ "$(cat "$dir/err")" = "this goes to stderr" ] ||
		bad "hello: stderr is '$(snippet "$dir/err")'"

	run run "$dir/prog.wasm" -- exit 42
	expect_rc 42 "exit 42"
	[ -s "$dir/err" ] && bad "exit 42: unexpected stderr: $(snippet "$dir/err")"

	run run "$dir/prog.wasm" --env FOO=bar --env EMPTY= -- env FOO
	expect_rc 0 "env"
	[ "$(cat "$dir/out")" = "FOO=bar" ] || bad "env: stdout is '$(snippet "$dir/out")'"
	# heisen's own environment is not the program's.
	HEISEN_SECRET=1 timeout -s KILL 60 "$HEISEN" run "$dir/prog.wasm" -- env HEISEN_SECRET >"$dir/out" 2>&1 </dev/null
	[ "$(cat "$dir/out")" = "HEISEN_SECRET=(unset)" ] ||
		bad "env: host environment leaked: $(snippet "$dir/out")"

	printf 'line one\nline two\n' >"$dir/in"
	run run "$dir/prog.wasm" -- cat
	expect_rc 0 "cat"
	[ "$(cat "$dir/out")" = "$(printf 'line one\nline two')" ] ||
		bad "cat: stdin did not pass through: $(snippet "$dir/out")"
	: >"$dir/in"

	# ---- files: granted directories only -------------------------------------
	mkdir -p "$dir/data" "$dir/other"
	echo "granted content" >"$dir/data/in.txt"
	echo "not granted" >"$dir/other/secret.txt"
	ln -s ../other/secret.txt "$dir/data/escape"

	run run "$dir/prog.wasm" --dir "$dir/data::/data" -- read /data/in.txt
	expect_rc 0 "read granted"
	[ "$(cat "$dir/out")" = "granted content" ] || bad "read granted: stdout '$(snippet "$dir/out")'"

	run run "$dir/prog.wasm" --dir "$dir/data" -- read "$dir/data/in.txt"
	expect_rc 0 "read granted (guest name = host path)"

	for p in "$dir/other/secret.txt" /data/../other/secret.txt /data/escape /etc/passwd; do
		run run "$dir/prog.wasm" --dir "$dir/data::/data" -- read "$p"
		expect_rc 1 "read $p (not granted)"
		grep -q "cannot open" "$dir/err" || bad "read $p: no error from the program: $(snippet "$dir/err")"
		grep -q "not granted" "$dir/out" && bad "read $p: the program read a file outside the grant"
	done

	run run "$dir/prog.wasm" --dir "$dir/data::/data" -- write /data/new.txt
	expect_rc 0 "write granted"
	[ "$(cat "$dir/data/new.txt" 2>/dev/null)" = "written by wasm" ] || bad "write granted: file not written"
	run run "$dir/prog.wasm" --dir "$dir/data::/data" -- write /data/../created.txt
	expect_rc 1 "write outside"
	[ -e "$dir/created.txt" ] && bad "write outside: created a file outside the grant"
}
# One quick run first: if the engine hangs or crashes on a wasi-libc
# program, say so once instead of timing out every check.
run run "$dir/prog.wasm" -- exit 0
if [ "$rc" -eq 0 ]; then
	c_tests
else
	bad "a wasi-libc program does not run (exit $rc): $(snippet "$dir/err"); skipped the C checks"
fi

# ---- hand-written modules: proc_exit, traps, timeout ---------------------
cat >"$dir/exit7.wat" <<'EOF'
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (func (export "_start") (call $exit (i32.const 7)) unreachable))
EOF
wat exit7
run run "$dir/exit7.wasm"
expect_rc 7 "proc_exit(7)"

cat >"$dir/divzero.wat" <<'EOF'
(module
  (memory 1)
  (func $divide (param i32 i32) (result i32)
    (i32.div_s (local.get 0) (local.get 1)))
  (func (export "_start")
    (drop (call $divide (i32.const 1) (i32.const 0)))))
EOF
wat divzero
run run "$dir/divzero.wasm"
expect_rc 134 "trap"
grep -q '^heisen: trap: integer divide by zero' "$dir/err" ||
	bad "trap: message is '$(snippet "$dir/err")'"
grep -q 'divide' "$dir/err" || bad "trap: message does not name the function: $(snippet "$dir/err")"

cat >"$dir/spin.wat" <<'EOF'
(module
  (memory 1)
  (func (export "_start") (loop $l (br $l))))
EOF
wat spin
run run "$dir/spin.wasm" --timeout 1
expect_rc 124 "timeout"
grep -q 'timeout' "$dir/err" || bad "timeout: no message: $(snippet "$dir/err")"

# A program sleeping in poll_oneoff is stopped by the timeout too.
cat >"$dir/sleep.wat" <<'EOF'
(module
  (import "wasi_snapshot_preview1" "poll_oneoff"
    (func $poll (param i32 i32 i32 i32) (result i32)))
  (memory 1)
  ;; one subscription at 0: clock monotonic, relative, 60 s
  (data (i32.const 8) "\00")
  (data (i32.const 16) "\01\00\00\00")
  (data (i32.const 24) "\00\58\47\f8\0d\00\00\00")
  (func (export "_start")
    (drop (call $poll (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128)))))
EOF
wat sleep
run run "$dir/sleep.wasm" --timeout 1s
expect_rc 124 "timeout while sleeping (--timeout 1s)"

# ---- wasi-threads ----------------------------------------------------------
# Four threads each add their argument to a shared counter and notify;
# _start waits for the sum and exits with it (99 if a spawn failed).
cat >"$dir/threads.wat" <<'EOF'
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "env" "memory" (memory 1 1 shared))
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (if (i32.le_s (local.get $tid) (i32.const 0)) (then unreachable))
    (drop (i32.atomic.rmw.add (i32.const 0) (local.get $arg)))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1))))
  (func (export "_start")
    (local $i i32) (local $v i32)
    (loop $l
      (if (i32.le_s (call $spawn (i32.const 10)) (i32.const 0))
        (then (call $exit (i32.const 99))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 4))))
    (block $done
      (loop $w
        (local.set $v (i32.atomic.load (i32.const 0)))
        (br_if $done (i32.eq (local.get $v) (i32.const 40)))
        (drop (memory.atomic.wait32 (i32.const 0) (local.get $v) (i64.const 100000000)))
        (br $w)))
    (call $exit (i32.atomic.load (i32.const 0)))))
EOF
wat threads
run run "$dir/threads.wasm" --timeout 20
expect_rc 40 "threads: four threads add 10 each"
# With room for the main thread only, thread-spawn fails and the program
# sees it (a negative result), instead of heisen failing.
run run "$dir/threads.wasm" --timeout 20 --max-threads 1
expect_rc 99 "threads: thread-spawn past --max-threads"

# _start returning ends the program even while a thread spins forever;
# a trap in a thread ends the whole program with that trap.
cat >"$dir/threads2.wat" <<'EOF'
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "env" "memory" (memory 1 1 shared))
  (func $thread_body (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (if (local.get $arg) (then unreachable))
    (loop $l (br $l)))
  (func (export "_start")
    (local $mode i32)
    (local.set $mode (i32.load (i32.const 16)))
    (drop (call $spawn (local.get $mode)))
    (if (local.get $mode)
      (then (loop $l (br $l))))))
EOF
wat threads2
run run "$dir/threads2.wasm" --timeout 20
expect_rc 0 "threads: _start returns while a thread spins"
sed 's/(i32.load (i32.const 16))/(i32.const 1)/' "$dir/threads2.wat" >"$dir/threads3.wat"
wat threads3
run run "$dir/threads3.wasm" --timeout 20
expect_rc 134 "threads: trap in a thread"
grep -q '^heisen: trap: unreachable' "$dir/err" ||
	bad "threads: trap in a thread: message is '$(snippet "$dir/err")'"

# A thread asleep in poll_oneoff does not keep the program alive once
# _start returns: host calls that wait notice the stop within 50 ms.
cat >"$dir/threads_sleep.wat" <<'EOF'
(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff"
    (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "env" "memory" (memory 1 1 shared))
  ;; subscription at 0: clock monotonic, relative, 60 s
  (data (i32.const 16) "\01\00\00\00")
  (data (i32.const 24) "\00\58\47\f8\0d\00\00\00")
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
    (i32.atomic.store (i32.const 200) (i32.const 1))
    (drop (memory.atomic.notify (i32.const 200) (i32.const 1)))
    (drop (call $poll (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128))))
  (func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (block $done
      (loop $w
        (br_if $done (i32.atomic.load (i32.const 200)))
        (drop (memory.atomic.wait32 (i32.const 200) (i32.const 0) (i64.const 10000000)))
        (br $w)))))
EOF
wat threads_sleep
run run "$dir/threads_sleep.wasm" --timeout 20
expect_rc 0 "threads: _start returns while a thread sleeps"

# ---- limits ------------------------------------------------------------------
cat >"$dir/bigmem.wat" <<'EOF'
(module
  (import "env" "memory" (memory 32 64 shared))
  (func (export "_start")))
EOF
wat bigmem
run run "$dir/bigmem.wasm" --max-memory 1M
expect_rc 134 "memory larger than --max-memory"
grep -q 'limit' "$dir/err" || bad "memory limit: message is '$(snippet "$dir/err")'"
run run "$dir/bigmem.wasm" --max-memory 4M
expect_rc 0 "memory within --max-memory"

# ---- bad input -----------------------------------------------------------------
printf '\0asm\1\0\0\0\1\5\1\x60' >"$dir/broken.wasm"
run run "$dir/broken.wasm"
expect_rc 2 "malformed module"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q 'broken.wasm: offset 0x' "$dir/err" ||
	bad "malformed module: want one line naming the offset, got '$(snippet "$dir/err")'"

cat >"$dir/reactor.wat" <<'EOF'
(module (memory 1) (func (export "_initialize")))
EOF
wat reactor
run run "$dir/reactor.wasm"
expect_rc 2 "module without _start"
grep -q '_start' "$dir/err" || bad "module without _start: message is '$(snippet "$dir/err")'"

cat >"$dir/unknown.wat" <<'EOF'
(module (import "env" "mystery" (func)) (memory 1) (func (export "_start")))
EOF
wat unknown
run run "$dir/unknown.wasm"
expect_rc 2 "unknown import"
grep -q 'mystery' "$dir/err" || bad "unknown import: message is '$(snippet "$dir/err")'"

run run "$dir/nonexistent.wasm"
expect_rc 2 "missing file"
for opts in "--max-memory 12Q" "--max-memory 1K" "--max-threads 0" "--timeout -1" \
	"--timeout abc" "--env NOEQUALS" "--dir ::guest" "--dir $dir/nonexistent"; do
	# shellcheck disable=SC2086
	run run "$dir/exit7.wasm" $opts
	expect_rc 2 "bad option: $opts"
	[ -s "$dir/err" ] || bad "bad option $opts: nothing on stderr"
done

run help run
expect_rc 0 "help run"
for word in 134 124 --dir --timeout; do
	grep -q -- "$word" "$dir/out" || bad "help run: does not mention $word"
done

finish t_run
