#!/usr/bin/env bash
# SIMD benchmark (run by tests/bench/run.sh, i.e. `make bench`; also
# alone): the kernel of demos/simd-race-free.c (two threads compute
# out[i] = a[i] * k + b[i] in chunks, a barrier and a checksum a frame)
# built with and without 128-bit SIMD, run under heisen and natively.
#
#   tests/bench/simd.sh BUILD_DIR [FRAMES]
#
# Built into BUILD_DIR/bench/simd/ when the source or this script is newer,
# with -DCHUNKS=2048 (204 800 floats, so that the kernel, not the
# barriers, takes the time):
#   simd.wasm      heisen cc -O2 -msimd128 (v128 loads, f32x4 arithmetic)
#   scalar.wasm    heisen cc -O2 (without SIMD clang cannot vectorise)
#   native-simd    gcc -O2 (vectorised with SSE2)
#   native-scalar  gcc -O2 -fno-tree-vectorize
# Each runs FRAMES frames (default 300), best of 3 wall-clock runs of the
# whole process; every output must be the same line. The SIMD speed-up
# is scalar time / SIMD time: under heisen (goal >= 1.5x) and natively
# (the reference: what the vector instructions give on this CPU).
# A report only: a timing fails nothing; a failed build or run, or a
# mismatch, exits 1.
set -uo pipefail

build=${1:?usage: tests/bench/simd.sh BUILD_DIR [FRAMES]}
frames=${2:-300}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
self=$root/tests/bench/simd.sh
src=$root/demos/simd-race-free.c
heisen=$build/heisen
out=$build/bench/simd
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_scratch
mkdir -p "$out"
defs=(-DCHUNKS=2048)

# build TARGET CMD...: run CMD when TARGET is older than the source or
# this script.
build_one() {
	local target=$1
	shift
	[ -e "$target" ] && [ "$target" -nt "$src" ] && [ "$target" -nt "$self" ] &&
		return 0
	"$@" >"$scratch/build.log" 2>&1 || {
		echo "simd: build of $target failed: $(head -c 300 "$scratch/build.log")" >&2
		return 1
	}
}
build_one "$out/simd.wasm" "$heisen" cc -O2 -msimd128 "${defs[@]}" -o "$out/simd.wasm" "$src" &&
	build_one "$out/scalar.wasm" "$heisen" cc -O2 "${defs[@]}" -o "$out/scalar.wasm" "$src" &&
	build_one "$out/native-simd" gcc -O2 -pthread "${defs[@]}" -o "$out/native-simd" "$src" &&
	build_one "$out/native-scalar" gcc -O2 -fno-tree-vectorize -pthread "${defs[@]}" \
		-o "$out/native-scalar" "$src" || exit 1

declare -A t
ref="" bad_run=0
# time KEY CMD...: best of 3 into t[KEY], its output checked against the
# first one's.
time_one() {
	local key=$1 got
	shift
	if ! t[$key]=$(best_of_3 "$scratch/out" "$@"); then
		echo "simd: $* failed: $(head -c 300 "$scratch/out")" >&2
		t[$key]=failed
		bad_run=1
		return
	fi
	got=$(cat "$scratch/out")
	[ -n "$ref" ] || ref=$got
	if [ "$got" != "$ref" ]; then
		echo "simd: MISMATCH: $* printed '$got', expected '$ref'" >&2
		t[$key]=mismatch
		bad_run=1
	fi
}
time_one native-scalar "$out/native-scalar" "$frames"
time_one native-simd "$out/native-simd" "$frames"
time_one heisen-scalar "$heisen" run "$out/scalar.wasm" -- "$frames"
time_one heisen-simd "$heisen" run "$out/simd.wasm" -- "$frames"

echo
echo "### SIMD: demos/simd-race-free.c's kernel, ${defs[*]}, $frames frames, 2 threads"
echo
echo "best of 3 wall-clock runs; wasm: heisen cc -O2 with and without -msimd128;"
echo "native: gcc -O2, vectorised (SSE2) or -fno-tree-vectorize; goal: heisen's"
echo "SIMD speed-up >= 1.5x"
echo
echo "| build | native s | heisen s | heisen x native |"
echo "|---|---|---|---|"
echo "| scalar | $(secs "${t[native-scalar]}") | $(secs "${t[heisen-scalar]}") | $(ratio "${t[heisen-scalar]}" "${t[native-scalar]}" 2) |"
echo "| SIMD | $(secs "${t[native-simd]}") | $(secs "${t[heisen-simd]}") | $(ratio "${t[heisen-simd]}" "${t[native-simd]}" 2) |"
echo "| SIMD speed-up (scalar / SIMD) | $(ratio "${t[native-scalar]}" "${t[native-simd]}" 2) | $(ratio "${t[heisen-scalar]}" "${t[heisen-simd]}" 2) | |"
exit $bad_run
