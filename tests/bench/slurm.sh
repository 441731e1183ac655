#!/usr/bin/env bash
# Slurm benchmark (run by tests/bench/run.sh, i.e. `make bench`; also
# alone): a campaign of a short program (fibonacci) dispatched to a
# one-machine Slurm cluster (tests/e2e/lib_slurm.sh) as a 64-task array,
# against the same plan swept here with `sweep --jobs 2`.
#
#   tests/bench/slurm.sh BUILD_DIR [RUNS_PER_CELL]   (default 600: 2400 runs)
#
# The cluster has this machine's CPUs (2 here; SLURM_CPUS=64 declares
# 64 on its cores, config_overrides), each task one CPU and one worker.
# With 2 CPUs Slurm starts two tasks, and each takes, after its own
# slice, those of the tasks still pending (cancelling them): without
# that, the controller would start the 64 tasks in 32 waves, one a
# second. Slurm's time is the wall clock from `dispatch` to the end of
# `fetch --wait` (submission, Slurm's first scheduling pass, every
# slice's start-up and program load, `fetch --wait` bringing task files
# home as slices end); the local one that of the sweep. Goal: the
# overhead under 20 % on a plan of >= 10 s of work. Fetch throughput:
# the runs a fetch of the ended array imports into the workspace as
# dispatch left it (a copy), over its wall time (64 task files, each the
# export its slice left, imported as a part of one transaction); goal
# >= 50 000 runs/s as the ssh fetch does. A control runs the same 64
# slices at once here without Slurm, to tell what 64 processes on a
# machine's few cores cost from what Slurm and
# the fetch add. Skipped (exit 0) where the cluster cannot start (not
# root, packages missing). A report only: it fails only when the runs
# do not all come home.
set -uo pipefail

build=${1:?usage: tests/bench/slurm.sh BUILD_DIR [RUNS_PER_CELL]}
runs=${2:-600}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/tests/bench/lib.sh"
heisen=$(cd "$build" && pwd)/heisen
fib=$root/demos/build/fibonacci.wasm
if [ ! -x "$heisen" ] || [ ! -f "$fib" ]; then
	echo "bench: $heisen or $fib not built (run: make bench)" >&2
	exit 2
fi
bench_scratch

# What lib_slurm.sh takes from lib.sh: a folder and how to give up
# without failing (here, without failing `make bench`).
dir=$scratch
skip() {
	echo "bench: slurm skipped: $*" >&2
	exit 0
}
. "$root/tests/e2e/lib_slurm.sh"
slurm_start "${SLURM_CPUS:-$(nproc)}" || { echo "bench: slurm: the cluster did not come up" >&2; exit 3; }
mkdir "$scratch/bin" "$scratch/shared"
ln -s "$heisen" "$scratch/bin/heisen"
export PATH=$scratch/bin:$PATH

plan=(--runs "$runs" --densities 25,100 --profiles default,noisy --seed 11)
total=$((runs * 4))
# Instrumented once into the cache, as both sides then find it.
"$heisen" sweep "$fib" --runs 1 --densities 100 --profiles default --db "$scratch/warm.db" >/dev/null 2>&1

t0=$(date +%s.%N)
"$heisen" sweep "$fib" "${plan[@]}" --jobs 2 --db "$scratch/local.db" >/dev/null 2>"$scratch/err" ||
	{ echo "bench: slurm: local sweep failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
t1=$(date +%s.%N)
local_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')

# The control: the 64 slices the array runs, at once on this machine
# without Slurm (xargs -P 64): what 64 processes on these cores cost
# before Slurm's scheduling and the fetch add theirs.
mkdir "$scratch/par"
t0=$(date +%s.%N)
seq 0 63 | xargs -P 64 -I{} "$heisen" sweep "$fib" "${plan[@]}" --plan-slice {}/64 --jobs 1 \
	--origin bench-par --db "$scratch/par/task-{}.db" >/dev/null 2>"$scratch/err" ||
	{ echo "bench: slurm: the slices here failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
t1=$(date +%s.%N)
par_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')

home=$scratch/home.db
"$heisen" node add cl "slurm://$scratch/shared" --tasks 64 --db "$home" >/dev/null
t0=$(date +%s.%N)
"$heisen" dispatch cl "$fib" "${plan[@]}" --db "$home" >"$scratch/out" 2>"$scratch/err" ||
	{ echo "bench: slurm: dispatch failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
# The workspace as dispatch left it, for the fetch of the whole array below.
cp "$home" "$scratch/home0.db"
"$heisen" fetch cl --wait --timeout 15m --db "$home" --json >"$scratch/wait.json" 2>"$scratch/err" ||
	{ echo "bench: slurm: fetch --wait failed: $(head -c 300 "$scratch/err")" >&2; exit 3; }
t1=$(date +%s.%N)
got=$(sqlite3 "$home" "SELECT count(DISTINCT idx) FROM runs")
if [ "$got" != "$total" ]; then
	echo "bench: slurm: $got of $total runs came home: $(head -c 300 "$scratch/err")" >&2
	exit 3
fi
fetches=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["nodes"][0]["fetches"])' "$scratch/wait.json")
taken=$("$heisen" node status cl --db "$home" --json 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["campaigns"][0]["slices_taken"])' 2>/dev/null || echo "?")
# Fetch throughput: the ended array fetched whole, at once, into the copy.
f0=$(date +%s.%N)
"$heisen" fetch cl --db "$scratch/home0.db" --json >"$scratch/fetch.json" 2>"$scratch/err"
f1=$(date +%s.%N)
got=$(sqlite3 "$scratch/home0.db" "SELECT count(DISTINCT idx) FROM runs")
[ "$got" = "$total" ] ||
	{ echo "bench: slurm: the fetch at once brought $got of $total runs: $(head -c 300 "$scratch/err")" >&2; exit 3; }
slurm_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
fetch_s=$(awk -v a="$f0" -v b="$f1" 'BEGIN { printf "%.6f", b - a }')
over=$(awk -v s="$slurm_s" -v l="$local_s" 'BEGIN { printf "%+.0f %%", (s / l - 1) * 100 }')
rate=$(awk -v n="$total" -v s="$fetch_s" 'BEGIN { printf "%.0f", n / s }')

echo
echo "Slurm: $total fibonacci runs (${runs} x 2 densities x 2 profiles), one-machine cluster of ${SLURM_CPUS:-$(nproc)} CPUs on $(nproc) cores"
printf '%-50s %10s\n' "" "wall"
printf '%-50s %10s\n' "sweep --jobs 2 here" "$(secs "$local_s") s"
printf '%-50s %10s\n' "its 64 slices at once here, no Slurm" "$(secs "$par_s") s"
printf '%-50s %10s\n' "dispatch (64-task array) to end of fetch --wait" "$(secs "$slurm_s") s"
printf '%-50s %10s\n' "  fetches made while the tasks ran" "$fetches"
printf '%-50s %10s\n' "  slices run by a task that ended its own first" "$taken"
printf '%-50s %10s\n' "fetch of the ended array (64 task files)" "$(secs "$fetch_s") s"
echo "Slurm / local: $(ratio "$slurm_s" "$local_s" 2) (overhead $over; goal under 20 % on >= 10 s of work)"
echo "64 slices at once / local: $(ratio "$par_s" "$local_s" 2); Slurm / 64 slices at once: $(ratio "$slurm_s" "$par_s" 2)"
echo "fetch: $rate runs/s (goal >= 50 000 runs/s)"
exit 0
