#!/usr/bin/env bash
# Serial execution benchmark (run by tests/bench/run.sh, i.e. `make bench`;
# also alone), for `heisen run --schedule` (docs/schedules.md):
#
#   tests/bench/sched.sh BUILD_DIR
#
# Each demo (and each kernel of kernels.sh, instrumented with
# --all-memories) runs with every site probed by the happens-before
# detector, in one process (BUILD_DIR/tests/bench/bench_sched, best of 3
# by the runs' own time): its threads in parallel (the reference), serially under
# random:0.05, replaying that run's schedule (fixed), and under pct:3.
# Ratios to the parallel run, geometric mean. Goals: serial <= 2x, replay
# <= 1.2x its recording. Then explore's runs per second against check's,
# and the shrinking of a race's schedule. A report only: nothing here
# fails on a timing; a failed run or a replay that leaves its recording
# fails it.
set -uo pipefail

build=${1:?usage: tests/bench/sched.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench=$build/tests/bench/bench_sched
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_scratch
bad_run=0
demos="fibonacci fibonacci-lock lock-free-queue antidep lost-update helper-race heap-race control-mutex control-barrier control-atomics mutex-counter parallel-sum prod-cons atomic-sum barrier-phases"

echo
echo "Serial execution: every site probed by happens-before, threads in"
echo "parallel against one at a time; best of 3; goals serial <= 2x, replay <= 1.2x"
echo
echo "| demo | parallel | random:0.05 | ratio | replay | vs recording | pct:3 | ratio | points | switches |"
echo "|---|---|---|---|---|---|---|---|---|---|"
rs=() rr=() rp=()
# row NAME WASM ARGS...: one line of the table, its ratios kept for the
# means.
row() {
	local name=$1 wasm=$2 out tp ts tr tc pts sw same
	shift 2
	if ! out=$("$bench" "$wasm" "$@" 2>"$scratch/err"); then
		echo "| $name | failed: $(grep -v '^[a-z-]*:' "$scratch/err" | head -c 200) | | | | | | | | |"
		bad_run=1
		return
	fi
	read -r tp ts tr tc pts sw same <<<"$out"
	[ "$same" = 1 ] || { echo "| $name | the replay left its recording | | | | | | | | |"; bad_run=1; return; }
	awk -v n="$name" -v tp="$tp" -v ts="$ts" -v tr="$tr" -v tc="$tc" -v pts="$pts" -v sw="$sw" 'BEGIN {
		printf "| %s | %.1f ms | %.1f ms | %.2f× | %.1f ms | %.2f× | %.1f ms | %.2f× | %d | %d |\n",
			n, tp * 1e3, ts * 1e3, ts / tp, tr * 1e3, tr / ts, tc * 1e3, tc / tp, pts, sw }'
	rs+=("$(awk -v a="$ts" -v b="$tp" 'BEGIN { printf "%.4f", a / b }')")
	rr+=("$(awk -v a="$tr" -v b="$ts" 'BEGIN { printf "%.4f", a / b }')")
	rp+=("$(awk -v a="$tc" -v b="$tp" 'BEGIN { printf "%.4f", a / b }')")
}
for d in $demos; do
	# shellcheck disable=SC2046 # the demo's arguments, split as words
	row "$d" "$root/demos/build/$d.wasm" $(sed -n 's/^ \* args: *//p' "$root/demos/$d.c")
done
# The kernels of kernels.sh (`make bench` builds them first): one thread
# and no shared memory, so instrumented with --all-memories, every access
# a probe and a scheduling point; sizes that run about a second under the
# detector.
heisen=$build/heisen
for ks in "fib 30" "matmul 120" "sort 300000" "hash 60" "coremark 200"; do
	read -r k n <<<"$ks"
	if [ ! -f "$build/kernels/$k.wasm" ]; then
		echo "| $k (kernel) | not built (tests/bench/kernels.sh builds it) | | | | | | | | |"
		continue
	fi
	if ! "$heisen" instrument --all-memories "$build/kernels/$k.wasm" -o "$scratch/$k-i.wasm" >/dev/null 2>"$scratch/err"; then
		echo "| $k (kernel) | instrument failed: $(head -c 200 "$scratch/err") | | | | | | | | |"
		bad_run=1
		continue
	fi
	row "$k (kernel, $n)" "$scratch/$k-i.wasm" "$n"
done
echo "| geometric mean | | | $(gm "${rs[@]}") | | $(gm "${rr[@]}") | | $(gm "${rp[@]}") | | |"

# Schedule search and shrinking: heisen explore (pct:3, 40 runs, 2 jobs)
# runs per second against heisen check (40 parallel runs, 2 jobs), and a
# race's schedule shrunk by replay --save (decisions and switches before
# and after, the candidate runs it took).
echo
echo "Schedule search (explore pct:3, 40 runs, 2 jobs) against check (40 runs,"
echo "2 jobs), and replay --save's shrinking of the first race's schedule"
echo
echo "| demo | check runs/s | explore runs/s | ratio | races | decisions | after shrinking | switches | after | shrink runs |"
echo "|---|---|---|---|---|---|---|---|---|---|"
re=()
for d in fibonacci lock-free-queue lost-update helper-race heap-race prod-cons; do
	args=$(sed -n 's/^ \* args: *//p' "$root/demos/$d.c")
	ws=$scratch/$d.db
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	"$heisen" check "$root/demos/build/$d.wasm" --runs 40 --jobs 2 --db "$ws" -- $args >/dev/null 2>&1
	t1=$(date +%s.%N)
	# shellcheck disable=SC2086
	"$heisen" explore "$root/demos/build/$d.wasm" --runs 40 --jobs 2 --seed 1 --db "$ws" --json -- $args >"$scratch/ex.json" 2>"$scratch/err" ||
		{ echo "| $d | explore failed: $(head -c 200 "$scratch/err") | | | | | | | | |"; bad_run=1; continue; }
	t2=$(date +%s.%N)
	bug=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["races"]; print(r[0]["bug"] if r else "")' "$scratch/ex.json")
	shr="| - | - | - | - | -"
	if [ -n "$bug" ] && "$heisen" replay "$bug" --mode schedule --runs 1 --save "$scratch/s.repro" --db "$ws" --json >"$scratch/rp.json" 2>"$scratch/err"; then
		shr=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["schedule"]["shrunk"]; print("| %d | %d | %d | %d | %d" % (s["decisions_before"], s["decisions_after"], s["switches_before"], s["switches_after"], s["runs"]))' "$scratch/rp.json")
	fi
	awk -v n="$d" -v a="$t0" -v b="$t1" -v c="$t2" -v nb="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["races"]))' "$scratch/ex.json")" -v shr="$shr" 'BEGIN {
		printf "| %s | %.0f | %.0f | %.2f× | %d %s |\n", n, 40 / (b - a), 40 / (c - b), (c - b) / (b - a), nb, shr }'
	re+=("$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.4f", (c - b) / (b - a) }')")
done
echo "| geometric mean | | | $(gm "${re[@]}") | | | | | | |"
exit "$bad_run"
