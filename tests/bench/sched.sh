#!/usr/bin/env bash
# Serial execution benchmark (run by tests/bench/run.sh, i.e. `make bench`;
# also alone), for `heisen run --schedule` (docs/schedules.md):
#
#   tests/bench/sched.sh BUILD_DIR
#
# Each demo runs with every site probed by the happens-before detector, in
# one process (BUILD_DIR/tests/bench/bench_sched, best of 3 by the runs'
# own time): its threads in parallel (the reference), serially under
# random:0.05, replaying that run's schedule (fixed), and under pct:3.
# Ratios to the parallel run, geometric mean. Goals: serial <= 2x, replay
# <= 1.2x its recording. A report only: nothing here fails on a timing; a
# failed run or a replay that leaves its recording fails it.
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
for d in $demos; do
	args=$(sed -n 's/^ \* args: *//p' "$root/demos/$d.c")
	# shellcheck disable=SC2086
	if ! out=$("$bench" "$root/demos/build/$d.wasm" $args 2>"$scratch/err"); then
		echo "| $d | failed: $(grep -v '^[a-z-]*:' "$scratch/err" | head -c 200) | | | | | | | | |"
		bad_run=1
		continue
	fi
	read -r tp ts tr tc pts sw same <<<"$out"
	[ "$same" = 1 ] || { echo "| $d | the replay left its recording | | | | | | | | |"; bad_run=1; continue; }
	awk -v n="$d" -v tp="$tp" -v ts="$ts" -v tr="$tr" -v tc="$tc" -v pts="$pts" -v sw="$sw" 'BEGIN {
		printf "| %s | %.1f ms | %.1f ms | %.2f× | %.1f ms | %.2f× | %.1f ms | %.2f× | %d | %d |\n",
			n, tp * 1e3, ts * 1e3, ts / tp, tr * 1e3, tr / ts, tc * 1e3, tc / tp, pts, sw }'
	rs+=("$(awk -v a="$ts" -v b="$tp" 'BEGIN { printf "%.4f", a / b }')")
	rr+=("$(awk -v a="$tr" -v b="$ts" 'BEGIN { printf "%.4f", a / b }')")
	rp+=("$(awk -v a="$tc" -v b="$tp" 'BEGIN { printf "%.4f", a / b }')")
done
echo "| geometric mean | | | $(gm "${rs[@]}") | | $(gm "${rr[@]}") | | $(gm "${rp[@]}") | | |"
exit "$bad_run"
