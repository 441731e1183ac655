#!/usr/bin/env bash
# Regression files: every tests/regress/NNN-what.wat is a WASI command that
# once showed a bug. Its `;; expect-exit: N` line gives the exit code a
# correct engine produces under `heisen run`.
. "$(dirname "$0")/lib.sh"

for wat in "$root"/tests/regress/*.wat; do
	name=$(basename "$wat" .wat)
	want=$(sed -n 's/^;; expect-exit: *\([0-9]*\).*/\1/p' "$wat" | head -1)
	if [ -z "$want" ]; then
		bad "$name: no ';; expect-exit: N' line"
		continue
	fi
	if ! wat2wasm --enable-threads -o "$dir/$name.wasm" "$wat" 2>"$dir/err"; then
		bad "$name: wat2wasm: $(snippet "$dir/err")"
		continue
	fi
	timeout -s KILL 30 "$HEISEN" run "$dir/$name.wasm" >"$dir/out" 2>"$dir/err"
	rc=$?
	[ "$rc" = "$want" ] || bad "$name: exit $rc, want $want: $(snippet "$dir/err")"
done

finish t_regress
