#!/usr/bin/env bash
# `heisen cc`: arguments pass through to clang (-c, -o, -D, several
# files, objects); programs written against <pthread.h>, <errno.h> and
# _Thread_local build into valid wasi-threads modules (shared imported
# memory, wasi.thread-spawn, wasi_thread_start exported, no
# command_export wrappers); exit codes 0 / 2 (clang failed) / 3 (missing
# toolchain); --print-cmd; and it works from an installed prefix
# (make install PREFIX=...), finding the guest library next to itself.
. "$(dirname "$0")/lib.sh"

cc() { # ARGS... : heisen cc, leaving rc, $dir/out and $dir/err
	"$HEISEN" cc "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
}

for tool in clang wasm-objdump; do
	command -v $tool >/dev/null || { echo "t_cc: $tool missing (make deps)"; exit 1; }
done

need_demos

cat >"$dir/main.c" <<'EOF'
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

int twice(int);
_Thread_local int mine = GREETING;

static void *work(void *arg)
{
	mine = twice((int)(long)arg);
	return (void *)(long)mine;
}

int main(void)
{
	pthread_t t;
	void *r;
	errno = 0;
	pthread_create(&t, NULL, work, (void *)21);
	pthread_join(t, &r);
	printf("%ld %d %d\n", (long)r, mine, errno);
	return 0;
}
EOF
printf 'int twice(int x) { return 2 * x; }\n' >"$dir/util.c"

# compile only, then link an object with a source file
cc -c -O2 -o "$dir/util.o" "$dir/util.c"
[ "$rc" -eq 0 ] && [ -s "$dir/util.o" ] || bad "cc -c: exit $rc; $(snippet "$dir/err")"
cc -g -O1 -DGREETING=5 -o "$dir/app.wasm" "$dir/main.c" "$dir/util.o"
[ "$rc" -eq 0 ] || bad "cc main.c util.o: exit $rc; $(snippet "$dir/err")"
if [ -s "$dir/app.wasm" ]; then
	"$HEISEN" validate "$dir/app.wasm" >/dev/null 2>"$dir/verr" ||
		bad "app.wasm does not validate: $(snippet "$dir/verr")"
	wasm-objdump -x "$dir/app.wasm" >"$dir/dump" 2>&1
	grep -q 'memory.*<- env.memory' "$dir/dump" || bad "app.wasm: memory not imported as env.memory"
	grep -q 'shared' "$dir/dump" || bad "app.wasm: memory not shared"
	grep -q '<- wasi.thread-spawn' "$dir/dump" || bad "app.wasm: no wasi.thread-spawn import"
	grep -q '"wasi_thread_start"' "$dir/dump" || bad "app.wasm: wasi_thread_start not exported"
	! grep -q 'command_export' "$dir/dump" || bad "app.wasm: exports wrapped in command_export (dtors would run per thread)"
	if "$HEISEN" help run >/dev/null 2>&1; then
		timeout -s KILL 60 "$HEISEN" run "$dir/app.wasm" </dev/null >"$dir/out" 2>"$dir/err"
		rc=$?
		[ "$rc" -eq 0 ] && [ "$(cat "$dir/out")" = "42 5 0" ] ||
			bad "heisen run app.wasm: exit $rc, stdout '$(snippet "$dir/out")', want '42 5 0'; $(snippet "$dir/err")"
	fi
fi

# bad input: clang's exit becomes 2
printf 'int main(void) { return syntax error; }\n' >"$dir/broken.c"
cc -o "$dir/broken.wasm" "$dir/broken.c"
[ "$rc" -eq 2 ] || bad "cc broken.c: exit $rc, want 2"
grep -q error "$dir/err" || bad "cc broken.c: clang's error not shown: $(snippet "$dir/err")"
cc
[ "$rc" -eq 2 ] || bad "cc without arguments: exit $rc, want 2"

# missing toolchain: 3, naming what to install
HEISEN_CLANG=/nonexistent/clang cc -o "$dir/x.wasm" "$dir/util.c"
[ "$rc" -eq 3 ] || bad "HEISEN_CLANG=/nonexistent: exit $rc, want 3"
HEISEN_WASI_SYSROOT=/nonexistent cc -o "$dir/x.wasm" "$dir/util.c"
[ "$rc" -eq 3 ] && grep -q 'wasi-libc' "$dir/err" ||
	bad "HEISEN_WASI_SYSROOT=/nonexistent: exit $rc, want 3 naming wasi-libc: $(snippet "$dir/err")"

# --print-cmd prints, runs nothing
cc --print-cmd -o "$dir/printed.wasm" "$dir/util.c"
[ "$rc" -eq 0 ] && grep -q -- '-lheisen-guest' "$dir/out" && grep -q -- '--wrap=malloc' "$dir/out" ||
	bad "cc --print-cmd: exit $rc; $(snippet "$dir/out")"
[ ! -e "$dir/printed.wasm" ] || bad "cc --print-cmd built the output"

# SIMD: -msimd128 reaches clang, and -O2 vectorises a loop into v128
# loads and stores that heisen validates; relaxed SIMD is refused (2,
# one line naming the flag, nothing built, nothing on stdout).
cc --print-cmd -O2 -msimd128 -o "$dir/simd.wasm" "$dir/util.c"
[ "$rc" -eq 0 ] && grep -q -- ' -msimd128 ' "$dir/out" ||
	bad "cc --print-cmd -msimd128: exit $rc, -msimd128 not passed to clang: $(snippet "$dir/out")"
cat >"$dir/simd.c" <<'EOF'
#include <stdio.h>
float a[256], b[256], out[256];
int main(void)
{
	for (int i = 0; i < 256; i++) {
		a[i] = (float)i;
		b[i] = 1.0f;
	}
	for (int i = 0; i < 256; i++)
		out[i] = a[i] * 3.0f + b[i];
	printf("%g\n", out[255]);
	return 0;
}
EOF
cc -O2 -msimd128 -o "$dir/simd.wasm" "$dir/simd.c"
if [ "$rc" -ne 0 ]; then
	bad "cc -O2 -msimd128: exit $rc: $(snippet "$dir/err")"
else
	"$HEISEN" validate "$dir/simd.wasm" >/dev/null 2>"$dir/verr" ||
		bad "simd.wasm does not validate: $(snippet "$dir/verr")"
	wasm-objdump -d "$dir/simd.wasm" >"$dir/dump" 2>&1
	grep -q 'v128\.store' "$dir/dump" && grep -q 'f32x4\.' "$dir/dump" ||
		bad "cc -O2 -msimd128: no v128.store / f32x4 in the disassembly"
fi
rm -f "$dir/relaxed.wasm"
cc -O2 -mrelaxed-simd -o "$dir/relaxed.wasm" "$dir/simd.c"
[ "$rc" -eq 2 ] || bad "cc -mrelaxed-simd: exit $rc, want 2"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q -- '-mrelaxed-simd' "$dir/err" ||
	bad "cc -mrelaxed-simd: want one line naming the flag: $(snippet "$dir/err")"
[ ! -s "$dir/out" ] || bad "cc -mrelaxed-simd printed on stdout: $(snippet "$dir/out")"
[ ! -e "$dir/relaxed.wasm" ] || bad "cc -mrelaxed-simd built the output"
cc --print-cmd -mrelaxed-simd -o "$dir/relaxed.wasm" "$dir/simd.c"
[ "$rc" -eq 2 ] || bad "cc --print-cmd -mrelaxed-simd: exit $rc, want 2"

# from an installed prefix: make install, then the installed heisen
prefix=$dir/prefix
if make -s -C "$root" "${make_flags[@]}" install PREFIX="$prefix" >"$dir/make.log" 2>&1; then
	"$prefix/bin/heisen" cc --print-cmd -o x.wasm x.c >"$dir/out" 2>&1
	grep -q -- "-L$prefix/lib/heisen/guest" "$dir/out" && grep -q -- "$prefix/include/heisen/guest" "$dir/out" ||
		bad "installed heisen cc does not use $prefix's guest library: $(snippet "$dir/out")"
	"$prefix/bin/heisen" cc -O1 -DGREETING=5 -o "$dir/inst.wasm" "$dir/main.c" "$dir/util.c" 2>"$dir/err" ||
		bad "installed heisen cc failed: $(snippet "$dir/err")"
	[ -s "$dir/inst.wasm" ] || bad "installed heisen cc produced nothing"
else
	bad "make install PREFIX=$prefix failed: $(tail -5 "$dir/make.log" | tr '\n' ' ')"
fi

finish t_cc
