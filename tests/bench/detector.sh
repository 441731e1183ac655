#!/usr/bin/env bash
# Detector benchmark (run by tests/bench/run.sh, i.e. `make bench`; also
# alone): what detection costs, against the uninstrumented program in the
# same invocation.
#
#   tests/bench/detector.sh BUILD_DIR
#
# 1. Overhead at density 0 %, 50 % and 100 %: each demo (demos/build/) and
#    each kernel (BUILD_DIR/kernels/, built by kernels.sh; run at sizes
#    that keep this table quick: the 100 % column multiplies memory-bound
#    kernels' time ~40x; their memory is not shared, so they are
#    instrumented with
#    --all-memories) runs under `heisen run` uninstrumented, then
#    instrumented under `heisen run --density D --seed 1` with the default
#    delay. Wall clock of the whole process, best of 3; ratio to the
#    uninstrumented run; geometric mean over all programs. Paper: ~9x at
#    100 % on its engine. Goal: <= 4x at 100 %.
# 2. Cost of one armed probe without delay: on each kernel, (time at
#    density 100 % with --delay 0 - time at density 0 %) / probe calls,
#    both from the run's own duration_ms (heisen run --json), best of 3.
# 3. Campaign throughput: `heisen sweep` of fibonacci, --jobs 2, 400 runs,
#    runs/s from the wall clock (the program itself runs ~2 ms).
#    Goal: >= 200 runs/s.
# 4. Database: bench_db inserts 200 000 runs in batches. Goal: >= 50 000
#    runs/s.
# A report only: nothing here fails on a timing; a failed run fails it.
set -uo pipefail

build=${1:?usage: tests/bench/detector.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
heisen=$build/heisen
scratch=$(mktemp -d) || exit 3
trap 'rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME=$scratch/cache
bad_run=0

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
jfield() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

declare -A ksmall=([fib]=25 [matmul]=60 [sort]=20000 [hash]=2 [coremark]=20)
programs=()
for d in fibonacci fibonacci-lock lock-free-queue antidep indirectaccess \
	comp-opt-bug comp-unopt-bug input-dep control-mutex control-barrier \
	control-atomics; do
	[ -f "$root/demos/build/$d.wasm" ] && programs+=("demo:$d")
done
for k in fib matmul sort hash coremark; do
	[ -f "$build/kernels/$k.wasm" ] && programs+=("kernel:$k")
done

echo
echo "detection overhead: heisen run --density D (default delay) against the"
echo "uninstrumented program; best of 3 wall-clock runs; goal at 100 %: <= 4x"
echo
echo "| program | plain | 0 % | 50 % | 100 % |"
echo "|---|---|---|---|---|"
r0=() r50=() r100=() k100=() d100=()
for p in "${programs[@]}"; do
	kind=${p%%:*} name=${p#*:}
	args=()
	if [ "$kind" = demo ]; then
		orig=$root/demos/build/$name.wasm inst=$orig
	else
		orig=$build/kernels/$name.wasm inst=$scratch/$name.hz.wasm
		args=("${ksmall[$name]}")
		"$heisen" instrument --all-memories "$orig" -o "$inst" >/dev/null 2>&1 ||
			{ echo "| $name | instrument failed | | | |"; bad_run=1; continue; }
	fi
	if ! t=$(best_of_3 "$scratch/o" "$heisen" run "$orig" -- "${args[@]}"); then
		echo "| $name | run failed | | | |"
		bad_run=1
		continue
	fi
	row="| $name | $(printf '%.3f s' "$t")"
	for d in 0 50 100; do
		dens=$d
		[ "$d" = 0 ] && dens=0.01 # one site at most on the demos
		if ! td=$(best_of_3 "$scratch/o" "$heisen" run "$inst" --density "$dens" --seed 1 -- "${args[@]}"); then
			row="$row | failed"
			bad_run=1
			continue
		fi
		r=$(awk -v a="$td" -v b="$t" 'BEGIN { printf "%.3f", a / b }')
		row="$row | $(printf '%.2f×' "$r")"
		case $d in 0) r0+=("$r") ;; 50) r50+=("$r") ;; 100) r100+=("$r") ;; esac
		if [ "$d" = 100 ]; then
			if [ "$kind" = demo ]; then d100+=("$r"); else k100+=("$r"); fi
		fi
	done
	echo "$row |"
done
echo "| geometric mean | | $(gm "${r0[@]}") | $(gm "${r50[@]}") | $(gm "${r100[@]}") |"
echo
echo "at 100 %: demos alone $(gm "${d100[@]}"), kernels alone $(gm "${k100[@]}") (the demos'"
echo "time is mostly process start-up and thread synchronisation; the kernels"
echo "are memory-bound loops where every access is an armed probe)"

echo
echo "cost of one armed probe without delay: (run at 100 % --delay 0 - run at"
echo "0 %) / probe calls, from the runs' own durations, best of 3"
echo
echo "| kernel | probe calls | 0 % | 100 %, delay 0 | ns per probe |"
echo "|---|---|---|---|---|"
for k in fib matmul sort hash coremark; do
	inst=$scratch/$k.hz.wasm
	[ -f "$inst" ] || continue
	best0="" best1="" probes=0
	: >"$scratch/empty.mask"
	for _ in 1 2 3; do
		"$heisen" run "$inst" --mask "$scratch/empty.mask" --json -- "${ksmall[$k]}" >"$scratch/j0" 2>/dev/null &&
			"$heisen" run "$inst" --density 100 --delay 0 --seed 1 --json -- "${ksmall[$k]}" >"$scratch/j1" 2>/dev/null ||
			{ bad_run=1; continue; }
		a=$(jfield "$scratch/j0" duration_ms) b=$(jfield "$scratch/j1" duration_ms)
		probes=$(jfield "$scratch/j1" probes)
		best0=$(awk -v x="$a" -v b="$best0" 'BEGIN { if (b == "" || x < b + 0) b = x; print b }')
		best1=$(awk -v x="$b" -v b="$best1" 'BEGIN { if (b == "" || x < b + 0) b = x; print b }')
	done
	[ -n "$best0" ] || { echo "| $k | failed | | | |"; continue; }
	awk -v k="$k" -v p="$probes" -v a="$best0" -v b="$best1" 'BEGIN {
		if (p < 10000) ns = "- (too few probes to time)"; else ns = sprintf("%.1f", (b - a) * 1e6 / p)
		printf "| %s | %d | %.1f ms | %.1f ms | %s |\n", k, p, a, b, ns }'
done

echo
echo "campaign throughput: heisen sweep fibonacci --jobs 2 (400 runs, fresh database)"
echo
fib=$root/demos/build/fibonacci.wasm
if [ -f "$fib" ]; then
	"$heisen" run "$fib" --density 50 --seed 1 --json >"$scratch/one" 2>/dev/null
	one=$(jfield "$scratch/one" duration_ms 2>/dev/null || echo "?")
	t0=$(date +%s.%N)
	if "$heisen" sweep "$fib" --db "$scratch/s.db" --jobs 2 --json >"$scratch/sw" 2>&1; then
		t1=$(date +%s.%N)
		n=$(jfield "$scratch/sw" done)
		awk -v n="$n" -v a="$t0" -v b="$t1" -v one="$one" 'BEGIN {
			printf "| runs | wall | runs/s | one run (density 50 %%) |\n|---|---|---|---|\n"
			printf "| %d | %.2f s | %.0f | %.1f ms |\n", n, b - a, n / (b - a), one }'
	else
		echo "sweep failed: $(head -c 300 "$scratch/sw")"
		bad_run=1
	fi
fi

echo
if [ -x "$build/tests/bench/bench_db" ]; then
	"$build/tests/bench/bench_db" 200000 || bad_run=1
fi
exit $bad_run
