#!/usr/bin/env bash
# Regression files: every tests/regress/NNN-what.wat is a WASI command that
# once showed a bug. Its `;; expect-exit: N` line gives the exit code a
# correct engine produces under `heisen run`.
set -u
: "${HEISEN:?HEISEN must name the heisen binary}"
here=$(cd "$(dirname "$0")/../regress" && pwd)
dir=$(mktemp -d) || exit 3
trap 'rm -rf "$dir"' EXIT
failures=0
for wat in "$here"/*.wat; do
	name=$(basename "$wat" .wat)
	want=$(sed -n 's/^;; expect-exit: *\([0-9]*\).*/\1/p' "$wat" | head -1)
	if [ -z "$want" ]; then
		echo "  FAIL: $name: no ';; expect-exit: N' line"
		failures=$((failures + 1))
		continue
	fi
	if ! wat2wasm --enable-threads -o "$dir/$name.wasm" "$wat" 2>"$dir/err"; then
		echo "  FAIL: $name: wat2wasm: $(head -c 300 "$dir/err")"
		failures=$((failures + 1))
		continue
	fi
	timeout 30 "$HEISEN" run "$dir/$name.wasm" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "  FAIL: $name: exit $rc, want $want: $(head -c 300 "$dir/err")"
		failures=$((failures + 1))
	fi
done
[ "$failures" -eq 0 ]
