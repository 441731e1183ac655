#!/usr/bin/env bash
# Every demo (demos/build/*.wasm: demos/*.c, comp-bug.c built at -O2 and
# -O0) runs to completion under `heisen run` with the same stdout and exit
# code as its native build (gcc -pthread). The racy demos print what the
# interleaving decides on stderr only, so stdout is deterministic for all:
# any difference is a bug in the engine, WASI, wasi-threads or the guest
# library (demos/guest/).
#
# Builds them first with `make demos` (which uses `heisen cc`).
. "$(dirname "$0")/lib.sh"

need_demos

n=0
for wasm in "$root"/demos/build/*.wasm; do
	name=$(basename "$wasm" .wasm)
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

finish t_demos
