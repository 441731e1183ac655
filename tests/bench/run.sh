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
# 128-bit SIMD against scalar code (tests/bench/simd.sh),
# the fixed cost of a run (bench_engine), and the rewriter: its throughput
# on the same module (bench_rewrite) and what instrumented code costs with
# every site disarmed (see "rewriter" below), the detector
# (tests/bench/detector.sh), happens-before detection
# (tests/bench/check.sh), the TUI's key echo during a sweep
# (tests/bench/tui_echo.sh), execution synthesis from ThreadSanitizer
# reports (tests/bench/synth.sh), reproduction rates (tests/bench/replay.sh),
# the statistics' speed (bench_stats), the sweep strategies at an
# equal budget (tests/bench/strategies.sh), fetching 100 000 runs from
# a node over ssh (tests/bench/fetch.sh), a campaign dispatched to a
# one-machine Slurm cluster as a 64-task array (tests/bench/slurm.sh) and
# the debugger (tests/bench/debugger.sh).
# A report only: nothing here fails on a timing.
set -uo pipefail

build=${1:?usage: tests/bench/run.sh BUILD_DIR}
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
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

# The compiler (core/jit.h) on the same module: what it adds to loading
# and its throughput (bench_jit, best of 3). genmod's module is not meant
# to run, so "load to ready" ends where its first instruction would run.
if line=$("$build/tests/bench/bench_jit" "$module" 3 | grep '^bytes='); then
	jval() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $line"; }
	echo "the compiler on the same module (best of 3): load to ready is"
	echo "decode + validate + compile to register code, what a first run"
	echo "waits for (a function is compiled to machine code on its first"
	echo "call); the compiler alone compiles every function at once"
	echo
	echo "| what | value |"
	echo "|---|---|"
	echo "| code section | $(awk -v b="$(jval code_bytes)" 'BEGIN { printf "%.1f MB", b / 1e6 }') |"
	echo "| load to ready, interpreted | $(secs "$(jval off_s)") s |"
	echo "| load to ready, compiled | $(secs "$(jval on_s)") s |"
	echo "| the compiler alone | $(secs "$(jval jit_s)") s, $(jval mbps) MB/s |"
	echo "| functions compiled / interpreted | $(jval compiled) / $(jval interpreted) |"
	echo "| machine code | $(awk -v b="$(jval machine_bytes)" 'BEGIN { printf "%.1f MB", b / 1e6 }') |"
	echo
else
	echo "bench: bench_jit failed on $module" >&2
	exit 3
fi

# Execution: C kernels natively, under `heisen run`, Node's WASI and
# wasm-interp. kernels.sh also runs alone; it fails (and so do we) only on
# a build problem, a failed run or a checksum mismatch, never on a timing.
"$(dirname "${BASH_SOURCE[0]}")/kernels.sh" "$build" || exit $?

# 128-bit SIMD: the SIMD demo's kernel built with and without
# -msimd128, under heisen and natively (tests/bench/simd.sh).
simd_rc=0
"$(dirname "${BASH_SOURCE[0]}")/simd.sh" "$build" || simd_rc=1

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

# ---- rewriter ---------------------------------------------------------------
# Throughput: rw_instrument on the 24 MB module above, in process, best of
# 3 (bench_rewrite; decode and validate are not timed, they are the table
# above). Goal: >= 100 MB/s of input.
# Density 0: each kernel of kernels.sh instrumented with --all-memories
# (their memory is not shared) by `heisen instrument`, then run with
# heisen.mask all zeros, so every site pays only its mask check, against
# the original kernel, both under tests/e2e/masked_run (the same WASI host
# as `heisen run`, plus the heisen imports), best of 3 wall-clock runs at a
# mid size (~0.3-0.8 s under heisen), geometric mean of the ratios. Goal:
# <= 1.3x. Outputs must match (same checksum), or the script fails.
echo
rewrite=$build/tests/bench/bench_rewrite
masked=$build/tests/e2e/masked_run
if [ ! -x "$rewrite" ] || [ ! -x "$masked" ]; then
	echo "bench: $rewrite or $masked not built (run: make bench)" >&2
	exit 2
fi
if ! line=$("$rewrite" "$module" 3 | grep '^bytes='); then
	echo "bench: bench_rewrite failed on $module" >&2
	exit 3
fi
rw_val() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $line"; }
echo "rewrite of $module (rw_instrument in process, best of 3; goal >= 100 MB/s;"
echo "with covered reads: also marking the reads a store covers, as heisen"
echo "instrument and the campaigns do, for heisen check)"
echo
echo "| input | output | sites | time | throughput | with covered reads | throughput |"
echo "|---|---|---|---|---|---|---|"
printf '| %s bytes | %s bytes | %s | %.3f s | %.1f MB/s | %.3f s | %.1f MB/s |\n' "$(rw_val bytes)" \
	"$(rw_val out_bytes)" "$(rw_val sites)" "$(rw_val best_s)" "$(rw_val mb_s)" \
	"$(rw_val cover_s)" "$(rw_val cover_mb_s)"

declare -A osize=([fib]=35 [matmul]=300 [sort]=1000000 [hash]=100 [coremark]=1500)
# Scratch outputs in a folder of this run's own: two `make bench` at once
# must not compare each other's outputs.
scratch=$(mktemp -d) || exit 3
trap 'rm -rf "$scratch"' EXIT
echo
echo "instrumented kernels at density 0 (mask all zero) against the originals;"
echo "masked_run, best of 3 wall-clock runs; goal: geometric mean <= 1.3x"
echo
echo "| kernel | n | sites | original | density 0 | ratio |"
echo "|---|---|---|---|---|---|"
ratios=()
bad_run=0
for k in fib matmul sort hash coremark; do
	orig=$build/kernels/$k.wasm
	inst=$scratch/$k.d0.wasm
	n=${osize[$k]}
	if ! "$build/heisen" instrument --all-memories "$orig" -o "$inst" >"$scratch/instrument.log" 2>&1; then
		echo "| $k | $n | heisen instrument failed: $(head -c 200 "$scratch/instrument.log" | tr '\n' ' ') | | | |"
		bad_run=1
		continue
	fi
	sites=$("$build/heisen" sites "$inst" --json 2>/dev/null | grep -o '"offset"' | wc -l)
	if ! t_o=$(best_of_3 "$scratch/orig.out" "$masked" --mask 0 "$orig" "$n") ||
		! t_i=$(best_of_3 "$scratch/inst.out" "$masked" --mask 0 "$inst" "$n"); then
		echo "| $k | $n | $sites | run failed: $(tail -c 200 "$scratch/inst.out" | tr '\n' ' ') | | |"
		bad_run=1
		continue
	fi
	if ! cmp -s "$scratch/orig.out" "$scratch/inst.out"; then
		echo "| $k | $n | $sites | MISMATCH: $(tr '\n' ' ' <"$scratch/orig.out") vs $(tr '\n' ' ' <"$scratch/inst.out") | | |"
		bad_run=1
		continue
	fi
	r=$(awk -v a="$t_i" -v b="$t_o" 'BEGIN { printf "%.3f", a / b }')
	ratios+=("$r")
	printf '| %s | %s | %s | %.3f s | %.3f s | %.2f× |\n' "$k" "$n" "$sites" "$t_o" "$t_i" "$r"
done
if [ ${#ratios[@]} -gt 0 ]; then
	gm=$(printf '%s\n' "${ratios[@]}" | awk '{ s += log($1); n++ } END { printf "%.2f", exp(s / n) }')
	echo "| geometric mean | | | | | ${gm}× |"
fi

# The detector: overhead by density, cost per probe, campaign and
# database throughput (tests/bench/detector.sh, see its header).
"$(dirname "${BASH_SOURCE[0]}")/detector.sh" "$build" || bad_run=1

# What call stacks and values at a collision cost a run at density 100 %:
# the same runs with capture on and off, alternating, median of 31 each
# (bench_stacks). A race-free control collides never, so its ratio is the
# cost on the path that does not collide; the racy demos' ratios add the
# capture itself. Goal: within 5 % (issue 15).
stacks=$build/tests/bench/bench_stacks
if [ -x "$stacks" ]; then
	echo
	echo "### Call stacks at a collision: density 100 %, capture on vs off (median of 31 runs each)"
	echo
	echo "| program | with capture (s) | without (s) | ratio | bugs |"
	echo "|---|---|---|---|---|"
	for d in control-mutex control-atomics fibonacci helper-race lost-update; do
		if line=$("$stacks" "$(dirname "${BASH_SOURCE[0]}")/../../demos/build/$d.wasm" 31); then
			read -r w wo ratio nb <<<"$line"
			echo "| $d | $w | $wo | ${ratio}× | $nb |"
		else
			echo "| $d | failed | | | |"
			bad_run=1
		fi
	done
fi

# Happens-before detection: its cost against the engine alone, its
# memory, and its rates over 100 runs (tests/bench/check.sh).
"$(dirname "${BASH_SOURCE[0]}")/check.sh" "$build" || bad_run=1

# Serial execution against the same happens-before runs in parallel, and
# a schedule's replay against its recording (tests/bench/sched.sh).
"$(dirname "${BASH_SOURCE[0]}")/sched.sh" "$build" || bad_run=1

# The debugger: recording a serial run's events, stepping back in the
# Timeline screen, bisecting (tests/bench/debugger.sh).
"$(dirname "${BASH_SOURCE[0]}")/debugger.sh" "$build" || bad_run=1

# Execution synthesis from the racy demos' ThreadSanitizer reports
# (tests/bench/synth.sh, see its header).
"$(dirname "${BASH_SOURCE[0]}")/synth.sh" "$build" || bad_run=1

# The TUI's key echo during a sweep of 10 000 runs, against tmux's own
# latency (tests/bench/tui_echo.sh, see its header).
"$(dirname "${BASH_SOURCE[0]}")/tui_echo.sh" "$build" || bad_run=1

# Reproduction rates of every demo bug in the three replay modes
# (tests/bench/replay.sh, see its header).
"$(dirname "${BASH_SOURCE[0]}")/replay.sh" "$build" || bad_run=1

# The statistics: heisen factors and a budget simulation against their
# goals (tests/bench/bench_stats.c, see its header).
echo
"$build/tests/bench/bench_stats" || bad_run=1

# Sweep strategies at an equal budget, simulated over sweeps of the racy
# demos (tests/bench/strategies.sh, see its header).
"$(dirname "${BASH_SOURCE[0]}")/strategies.sh" "$build" || bad_run=1

# heisen fetch of 100 000 runs through a real ssh to an sshd on loopback
# (tests/bench/fetch.sh, see its header; skipped without sshd).
"$(dirname "${BASH_SOURCE[0]}")/fetch.sh" "$build" || bad_run=1
# A 64-task Slurm array against sweep --jobs 2 (tests/bench/slurm.sh;
# skipped where the cluster cannot start): on the machine's CPUs (tasks
# in waves, Slurm's scheduling cycle between them), then with 64 CPUs
# declared (one wave: heisen's own cost).
"$(dirname "${BASH_SOURCE[0]}")/slurm.sh" "$build" || bad_run=1
SLURM_CPUS=64 "$(dirname "${BASH_SOURCE[0]}")/slurm.sh" "$build" || bad_run=1
[ "$simd_rc" -eq 0 ] || bad_run=1
exit $bad_run
