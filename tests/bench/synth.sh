#!/usr/bin/env bash
# Execution synthesis benchmark (run by tests/bench/run.sh, i.e. `make
# bench`; also alone), for `heisen synthesize` (docs/debugger.md,
# "Synthesis"):
#
#   tests/bench/synth.sh BUILD_DIR
#
# Every demo is built natively with gcc -fsanitize=thread and run once;
# each race of its ThreadSanitizer report is synthesized against the
# demo's Wasm build (seed 1, budget 60 s). Per race: the search's runs
# and time, the whole command's wall time (search, shrinking, the
# recording run), the decisions before and after shrinking, and whether
# the repro replays 20 of 20 on its recorded path. Goal: median whole
# time <= 10 s, each <= 60 s (ESD took 7-150 s). A report only: nothing
# here fails on a timing; a race not synthesized or a repro that does
# not replay fails it. Skipped where TSan cannot run.
set -uo pipefail

build=${1:?usage: tests/bench/synth.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
heisen=$(cd "$build" && pwd)/heisen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_scratch
bad_run=0

echo
echo "Execution synthesis from ThreadSanitizer reports of the native builds;"
echo "goal: median whole time <= 10 s, each <= 60 s"
echo
cd "$scratch" || exit 3
printf '#include <pthread.h>\nstatic int x;\nstatic void *f(void *a) { x++; return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); x++; pthread_join(t, 0); return 0; }\n' >probe.c
if ! gcc -fsanitize=thread -g -pthread -o probe probe.c 2>/dev/null ||
	! { ./probe >/dev/null 2>probe.out; grep -q "data race" probe.out; }; then
	echo "skipped: ThreadSanitizer does not build or run here"
	exit 0
fi
echo "| demo | race | lines | search runs | search | whole | decisions | shrunk | replay |"
echo "|---|---|---|---|---|---|---|---|---|"
times=()
for src in "$root"/demos/*.c; do
	d=$(basename "$src" .c)
	[ -e "$root/demos/build/$d.wasm" ] || continue
	gcc -fsanitize=thread -g -O1 -pthread -o "$d" "$src" 2>/dev/null || continue
	args=$(sed -n 's/^ \* args: *//p' "$src")
	# shellcheck disable=SC2086
	timeout 60 ./"$d" $args >/dev/null 2>"$d.tsan"
	n=$(grep -c "WARNING: ThreadSanitizer: data race" "$d.tsan")
	for i in $(seq 1 "$n"); do
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$heisen" synthesize "$d.tsan" "$root/demos/build/$d.wasm" --index "$i" \
			--seed 1 --budget 60s --db "$scratch/w.db" -o "$d.$i.repro" --json \
			-- $args >"$d.$i.json" 2>"$d.$i.err"
		rc=$?
		t1=$(date +%s.%N)
		whole=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		if [ $rc -ne 0 ]; then
			echo "| $d | $i | | not found (exit $rc): $(head -c 150 "$d.$i.err" "$d.$i.json" | tr '\n' ' ') | | $whole s | | | |"
			bad_run=1
			continue
		fi
		row=$(python3 - "$d.$i.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["schedule"]
lines = "/".join(str(x["line"]) for x in d["race"])
print(lines, d["runs"], "%.2f" % d["elapsed_s"], s["decisions_before"], s["decisions"])
PY
)
		read -r lines runs search before after <<<"$row"
		if "$heisen" replay --file "$d.$i.repro" "$root/demos/build/$d.wasm" --runs 20 >"$d.$i.replay" 2>&1 &&
			grep -q "reproduced in 20 of 20" "$d.$i.replay" &&
			grep -q "recorded path (20 of 20)" "$d.$i.replay"; then
			rep="20/20"
		else
			rep="FAILED"
			bad_run=1
		fi
		echo "| $d | $i | $lines | $runs | $search s | $whole s | $before | $after | $rep |"
		times+=("$whole")
	done
done
if [ ${#times[@]} -gt 0 ]; then
	printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "\n%d races: whole time median %.2f s, max %.2f s\n", NR, m, v[NR] }'
fi
exit $bad_run
