#!/usr/bin/env bash
# The debugger's benchmark (run by tests/bench/run.sh, i.e. `make bench`;
# also alone), docs/debugger.md:
#
#   tests/bench/debugger.sh BUILD_DIR
#
# (1) Recording: `heisen timeline` of parallel-sum's serial run (about
#     526 000 events) against the same schedule replayed without a record
#     (`heisen run --schedule fixed`), best of 3 wall time each.
# (2) Stepping back: the Timeline screen on that run in tmux (80x24),
#     G to the last event, then 300 Up keys one at a time; the TUI times
#     each key to the screen showing it (HEISEN_TUI_STATS): median, p99,
#     max against the goal of 100 ms.
# (3) Bisect: lost-update's lost deposit between a failing and a passing
#     run of explore: the runs it took against 2 + ceil(log2 m).
# A report only: nothing here fails on a timing.
set -uo pipefail

build=${1:?usage: tests/bench/debugger.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
heisen=$(cd "$build" && pwd)/heisen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_scratch
export HEISEN_DB=$scratch/w.db XDG_CACHE_HOME=$scratch/cache XDG_STATE_HOME=$scratch/state
prog=$root/demos/build/parallel-sum.wasm

echo
echo "Debugger: recording a serial run's events, stepping back in the Timeline"
echo "screen (goal <= 100 ms a step), bisecting a failure"
echo
"$heisen" run "$prog" --schedule random --schedule-seed 1 \
	--save-schedule "$scratch/ps.sched" >/dev/null 2>&1 ||
	{ echo "bench: the serial run of parallel-sum failed" >&2; exit 1; }
"$heisen" check "$prog" --schedule random --schedule-seed 1 --runs 1 >/dev/null 2>&1
run=$("$heisen" runs 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
events=$("$heisen" timeline --run "$run" --count 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
t_rec=$(best_of_3 "$scratch/tl.out" "$heisen" timeline --run "$run" --count 1)
t_plain=$(best_of_3 "$scratch/plain.out" "$heisen" run "$prog" --schedule fixed \
	--schedule-file "$scratch/ps.sched") || cat "$scratch/plain.out" >&2
echo "| what | events | time | reference | ratio |"
echo "|---|---|---|---|---|"
echo "| timeline (record every event) | $events | $(secs "$t_rec") s | $(secs "$t_plain") s (run --schedule fixed) | $(ratio "$t_rec" "$t_plain" 2) |"

if command -v tmux >/dev/null; then
	sock=heisen-bench-dbg-$$
	export TMUX_TMPDIR=$scratch
	unset TMUX
	tm() { tmux -L "$sock" "$@"; }
	trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$scratch"' EXIT
	tm -f /dev/null new-session -d -s b -x 80 -y 24 -c "$scratch" \
		env HEISEN_TUI_STATS="$scratch/lat" TERM=screen LANG=C.UTF-8 \
		"$heisen" debug --run "$run"
	tm set -s escape-time 0
	scr=
	wait_screen() {
		local deadline=$((SECONDS + 60))
		while :; do
			scr=$(tm capture-pane -p -t b 2>/dev/null)
			grep -qE -- "$1" <<<"$scr" && return 0
			[ "$SECONDS" -ge "$deadline" ] && return 1
		done
	}
	last=$((events - 1))
	if wait_screen 'Timeline parallel-sum' && tm send-keys -t b G &&
		wait_screen "^event $last of "; then
		for ((i = 1; i <= 300; i++)); do
			tm send-keys -t b Up
			wait_screen "^event $((last - i)) of " || break
		done
		tm send-keys -t b Q
		sleep 1
		step=$(grep '^key_to_screen_ms' "$scratch/lat" 2>/dev/null)
		echo "| step back (300 Up keys) | $events | $step | goal 100 ms | |"
	else
		echo "| step back | $events | the Timeline screen did not open | | |"
		sed 's/^/    | /' <<<"$scr"
	fi
	tm kill-server 2>/dev/null
fi

"$heisen" explore "$root/demos/build/lost-update.wasm" --runs 30 --seed 1 \
	--failure exit:1 --db "$scratch/b.db" -- check >/dev/null 2>&1
read -r fail pass <<<"$("$heisen" runs 1 --db "$scratch/b.db" --json | python3 -c '
import json, sys
runs = json.load(sys.stdin)["runs"]
f = [r["id"] for r in runs if r["status"] == "exit"]
p = [r["id"] for r in runs if r["status"] == "ok"]
print(f[0] if f else "", p[0] if p else "")')"
if [ -n "$fail" ] && [ -n "$pass" ]; then
	t0=$(date +%s.%N)
	"$heisen" bisect --fail "$fail" --pass "$pass" --db "$scratch/b.db" --json >"$scratch/bi.json" 2>&1
	t1=$(date +%s.%N)
	python3 - "$scratch/bi.json" "$t0" "$t1" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
m = d["differ"]
print("| bisect lost-update (%d points apart) | | %.2f s, %d runs | 2 + ceil(log2 %d) = %d runs | |"
      % (m, float(sys.argv[3]) - float(sys.argv[2]), d["runs"], m, 2 + math.ceil(math.log2(m))))
PY
else
	echo "| bisect | | explore found no failing and passing pair | | |"
fi
