#!/usr/bin/env bash
# Every demo (demos/*.c) runs to completion under `heisen run` with the
# same stdout and exit code as its native build (gcc -pthread). The demos
# are race-free and deterministic, so any difference is a bug in the
# engine, WASI, wasi-threads or the guest library (demos/guest/).
#
# Builds them first with `make demos` (which uses `heisen cc`). Skips, and
# passes, only while `heisen run` does not exist yet.
set -u
: "${HEISEN:?HEISEN must name the heisen binary}"
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d) || exit 3
trap 'rm -rf "$dir"' EXIT
failures=0

bad() { echo "  FAIL: $*"; failures=$((failures + 1)); }
snippet() { head -c 400 "$1" | tr '\n' ' '; }

if ! "$HEISEN" help run >/dev/null 2>&1; then
	echo "SKIP: heisen run not available"
	exit 0
fi

# Build with the same heisen the tests run (build/ or build-asan/).
make_flags=()
case "$HEISEN" in */build-asan/heisen) make_flags+=(SANITIZE=1) ;; esac
if ! make -s -C "$root" "${make_flags[@]}" demos >"$dir/make.log" 2>&1; then
	echo "  FAIL: make demos failed:"
	sed 's/^/    /' "$dir/make.log" | tail -20
	exit 1
fi

n=0
for src in "$root"/demos/*.c; do
	name=$(basename "$src" .c)
	wasm=$root/demos/build/$name.wasm
	native=$root/demos/build/native/$name
	n=$((n + 1))
	timeout -s KILL 60 "$native" >"$dir/native.out" 2>"$dir/native.err"
	nrc=$?
	# KILL, not TERM: a hung engine must not hang the suite (137).
	timeout -s KILL 120 "$HEISEN" run "$wasm" </dev/null \
		>"$dir/wasm.out" 2>"$dir/wasm.err"
	wrc=$?
	if [ "$wrc" -ne "$nrc" ]; then
		bad "$name: heisen run exit $wrc, native $nrc; stderr: $(snippet "$dir/wasm.err")"
	elif ! cmp -s "$dir/native.out" "$dir/wasm.out"; then
		bad "$name: stdout differs from the native build:"
		diff "$dir/native.out" "$dir/wasm.out" | head -10 | sed 's/^/    /'
	fi
done
[ "$n" -gt 0 ] || bad "no demos found in $root/demos"

if [ "$failures" -ne 0 ]; then
	echo "t_demos: $failures of $n demo(s) failed"
	exit 1
fi
