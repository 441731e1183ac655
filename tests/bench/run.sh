#!/usr/bin/env bash
# Validation benchmark: heisen's decode+validate against wabt's
# wasm-validate on the same generated 24 MiB module.
#
#   tests/bench/run.sh BUILD_DIR      (make bench builds the tools first)
#
# The module is generated once into BUILD_DIR/bench/ and reused while
# genmod is unchanged. Ours is the best of 5 in-process runs (bench_validate,
# file already in memory); the reference is the best of 3 wall-clock runs of
# the wasm-validate process, which includes its start-up and file read, so
# the ratio slightly favours us on small files and not measurably on 24 MB.
# Then the execution benchmark, tests/bench/kernels.sh (see its header),
# and the fixed cost of a run (bench_engine).
# A report only: nothing here fails on a timing.
set -uo pipefail

build=${1:?usage: tests/bench/run.sh BUILD_DIR}
genmod=$build/tests/bench/genmod
bench=$build/tests/bench/bench_validate
mb=24
module=$build/bench/module-${mb}mb.wasm

for tool in "$genmod" "$bench"; do
	if [ ! -x "$tool" ]; then
		echo "bench: $tool not built (run: make bench)" >&2
		exit 2
	fi
done

mkdir -p "$build/bench"
if [ ! -s "$module" ] || [ "$genmod" -nt "$module" ]; then
	"$genmod" "$module" "$mb" >/dev/null || { echo "bench: genmod failed" >&2; exit 3; }
fi
bytes=$(stat -c %s "$module")

# Ours: the key=value line of bench_validate.
if ! line=$("$bench" "$module" 5 | grep '^bytes='); then
	echo "bench: bench_validate failed on $module" >&2
	exit 3
fi
ours_s=$(sed -n 's/.* best_s=\([0-9.]*\).*/\1/p' <<<"$line")

# Reference: wall clock of the whole process, best of 3.
ref_name="wasm-validate"
ref_s=""
if command -v wasm-validate >/dev/null; then
	ref_name="wasm-validate $(wasm-validate --version 2>/dev/null | head -n1)"
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		if ! wasm-validate --enable-threads "$module" >/dev/null 2>&1; then
			echo "bench: wasm-validate rejects $module (a genmod bug)" >&2
			ref_s=""
			break
		fi
		t1=$(date +%s.%N)
		ref_s=$(awk -v a="$t0" -v b="$t1" -v best="$ref_s" \
			'BEGIN { d = b - a; if (best == "" || d < best + 0) best = d; printf "%.6f", best }')
	done
else
	echo "bench: wasm-validate not found (apt-get install wabt); reference skipped" >&2
fi

# Formatting: seconds, MB/s (10^6 bytes), ratio = reference time / ours.
fmt() { # BYTES SECONDS -> "S s" and "R MB/s" cells
	awk -v n="$1" -v s="$2" 'BEGIN {
		if (s == "") { print "n/a|n/a"; exit }
		printf "%.3f s|%.1f MB/s\n", s, n / 1e6 / s }'
}
IFS='|' read -r ours_time ours_rate <<<"$(fmt "$bytes" "$ours_s")"
IFS='|' read -r ref_time ref_rate <<<"$(fmt "$bytes" "$ref_s")"
ratio=$(awk -v r="$ref_s" -v o="$ours_s" 'BEGIN {
	if (r == "" || o + 0 == 0) print "n/a"; else printf "%.2f×", r / o }')

echo
echo "decode+validate of $module ($bytes bytes); ratio = reference time / ours"
echo
echo "| what | ours | reference ($ref_name) | ratio |"
echo "|---|---|---|---|"
echo "| time (ours best of 5, reference best of 3) | $ours_time | $ref_time | $ratio |"
echo "| throughput | $ours_rate | $ref_rate | $ratio |"
echo

# Execution: C kernels natively, under `heisen run`, Node's WASI and
# wasm-interp. kernels.sh also runs alone; it fails (and so do we) only on
# a build problem, a failed run or a checksum mismatch, never on a timing.
"$(dirname "${BASH_SOURCE[0]}")/kernels.sh" "$build" || exit $?

# Fixed cost of one run inside one process (what campaigns pay per run):
# bench_engine's means over 2000 iterations; the goal is under 100 µs for
# instantiate + empty _start.
if line=$("$build/tests/bench/bench_engine" 2000 "$build/kernels/empty.wasm"); then
	val() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$line"; }
	echo
	echo "fixed cost of a run (mean of 2000, in-process)"
	echo
	echo "| what | µs |"
	echo "|---|---|"
	echo "| instantiate + empty _start in an existing proc | $(val instance_us) |"
	echo "| new proc + thread + instantiate + _start + free | $(val proc_us) |"
	echo "| wasi_run of empty.wasm (fds, env.memory, _start) | $(val wasi_run_us) |"
else
	echo "bench: bench_engine failed" >&2
	exit 3
fi
