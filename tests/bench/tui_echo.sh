#!/usr/bin/env bash
# TUI responsiveness (run by tests/bench/run.sh, i.e. `make bench`; also
# alone): does a sweep of 10 000 runs ever block the interface for more
# than 100 ms?
#
#   tests/bench/tui_echo.sh BUILD_DIR
#
# `heisen tui` runs in a tmux pane (80x24) on a new workspace, on its
# campaigns screen (live: reread every second while a sweep runs); ':'
# starts `sweep fibonacci.wasm --densities 5:100:5 --runs 500 --profiles
# default` (20 x 500 = 10 000 runs, --jobs one per CPU). Until the
# campaign is done, every 200 ms: the time is taken, tmux send-keys types
# ':' and a marker that is new each time, capture-pane is polled until the
# prompt line shows it (the key echo), Esc closes the prompt. Reported:
# samples, median, p99 and max of the echo latency, and the sweep's runs/s
# (10 000 over the wall time from ':sweep' to done). The latency includes
# tmux's own send-keys and capture-pane round trip and the polling, and
# the sweep keeps every CPU busy, so the same loop is measured against
# `cat` in a tmux pane (the terminal's own echo) as the baseline, idle and
# during the same sweep run from the command line (100 samples, then
# stopped): the TUI's share is the difference; and the TUI's own echo
# before the sweep (50 samples). The TUI also times itself
# (HEISEN_TUI_STATS, over its whole session): how long each turn of its
# loop works before it reads keys again, and from reading a key to the
# screen showing it.
# A report only: it fails only when the TUI does not start, the sweep
# fails, or an echo never comes (30 s).
set -uo pipefail

build=${1:?usage: tests/bench/tui_echo.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
heisen=$(cd "$build" && pwd)/heisen
prog=$root/demos/build/fibonacci.wasm
if ! command -v tmux >/dev/null; then
	echo "bench: tmux not found (apt-get install tmux); TUI key echo skipped" >&2
	exit 0
fi
if [ ! -x "$heisen" ] || [ ! -f "$prog" ]; then
	echo "bench: $heisen or $prog not built (run: make bench)" >&2
	exit 2
fi
scratch=$(mktemp -d) || exit 3
sock=heisen-bench-$$
export TMUX_TMPDIR=$scratch # the servers' sockets go with it
unset TMUX # run from inside tmux too
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$scratch"' EXIT
tm() { tmux -L "$sock" "$@"; }
# Nothing of the user's: the cache, and the ":" history (heisen shell's).
export XDG_CACHE_HOME=$scratch/cache XDG_STATE_HOME=$scratch/state

us() { echo "${EPOCHREALTIME/./}"; } # microseconds, without a fork

# A pane running CMD... in $scratch, 80x24.
pane() {
	tm kill-server 2>/dev/null
	sock=heisen-bench-$$-$1
	shift
	tm -f /dev/null new-session -d -s b -x 80 -y 24 -c "$scratch" \
		env -u NO_COLOR TERM=screen LANG=C.UTF-8 LC_ALL=C.UTF-8 "$@" ||
		{ echo "bench: tmux new-session failed" >&2; exit 3; }
	tm set -s escape-time 0
}

scr=
# wait_screen ERE: poll the pane (as fast as capture-pane goes) until a
# line matches; false after 30 s.
wait_screen() {
	local deadline=$((SECONDS + 30))
	while :; do
		scr=$(tm capture-pane -p -t b 2>/dev/null)
		grep -qE -- "$1" <<<"$scr" && return 0
		[ "$SECONDS" -ge "$deadline" ] && return 1
	done
}

# echo_sample PREFIX MARKER ERE: microseconds from sending PREFIX MARKER
# to a line matching ERE on the screen; appended to $lat.
lat=()
echo_sample() {
	local t0 t1
	t0=$(us)
	tm send-keys -t b -l -- "$1$2"
	wait_screen "$3" || {
		echo "bench: the echo of '$1$2' never came; screen:" >&2
		sed 's/^/    | /' <<<"$scr" >&2
		exit 3
	}
	t1=$(us)
	lat+=($((t1 - t0)))
}

# stats: "samples median p99 max" of $lat, in ms.
stats() {
	printf '%s\n' "${lat[@]}" | sort -n | awk '{ v[NR] = $1 }
		END {
			p = int(0.99 * NR + 0.999); if (p < 1) p = 1
			printf "%d %.1f %.1f %.1f\n", NR, v[int((NR + 1) / 2)] / 1000,
				v[p] / 1000, v[NR] / 1000
		}'
}

# Baselines: cat in a pane, the terminal echoing what is typed; idle,
# then with the same sweep running from the command line (the machine as
# loaded as under the TUI; stopped with SIGINT after 100 samples).
cat_samples() {
	local i
	lat=()
	for ((i = 1; i <= 100; i++)); do
		echo_sample "" "$1${i}q" "^$1${i}q\$"
		tm send-keys -t b Enter
		sleep "$2"
	done
}
pane base cat
cat_samples q 0.02
read -r b_n b_med b_p99 b_max <<<"$(stats)"
"$heisen" sweep "$prog" --densities 5:100:5 --runs 500 --profiles default \
	--db "$scratch/cli.db" >"$scratch/cli.log" 2>&1 &
spid=$!
# The sweep is under way once its workspace has a run.
until "$heisen" campaigns --db "$scratch/cli.db" --json 2>/dev/null |
	grep -qE '"runs_done":[1-9]'; do
	kill -0 "$spid" 2>/dev/null ||
		{ echo "bench: sweep failed: $(head -c 300 "$scratch/cli.log")" >&2; exit 3; }
	sleep 0.1
done
cat_samples l 0.2
kill -INT "$spid"
wait "$spid"
spid=
read -r l_n l_med l_p99 l_max <<<"$(stats)"

# The TUI during the sweep.
lat=()
pane tui env HEISEN_TUI_STATS="$scratch/tui.stats" "$heisen" tui --db w.db
wait_screen '^ heisen .* Campaigns$' ||
	{ echo "bench: the TUI did not start: $scr" >&2; exit 3; }
# The TUI idle first: its own echo without the sweep's load.
for ((i = 1; i <= 50; i++)); do
	echo_sample ":" "i${i}q" "^:i${i}q\$"
	tm send-keys -t b Escape
	wait_screen '^ w\.db ' || { echo "bench: Esc did not close the prompt: $scr" >&2; exit 3; }
	sleep 0.05
done
read -r i_n i_med i_p99 i_max <<<"$(stats)"
lat=()
tm send-keys -t b -l -- ":sweep $prog --densities 5:100:5 --runs 500 --profiles default"
t_start=$(us)
tm send-keys -t b Enter
wait_screen 'sweep #1 ' ||
	{ echo "bench: the sweep did not start: $scr" >&2; exit 3; }
i=0
while :; do
	i=$((i + 1))
	echo_sample ":" "q${i}q" "^:q${i}q\$"
	tm send-keys -t b Escape
	# The prompt closed: the status line is back.
	wait_screen '^ w\.db |^sweep' || { echo "bench: Esc did not close the prompt: $scr" >&2; exit 3; }
	if grep -qE '^ +1 +fibonacci\.wasm +(done|stopped|failed) ' <<<"$scr"; then
		t_end=$(us)
		break
	fi
	sleep 0.2
done
grep -qE '^ +1 +fibonacci\.wasm +done +10000/10000 ' <<<"$scr" ||
	{ echo "bench: the sweep did not finish its 10 000 runs: $scr" >&2; exit 3; }
read -r t_n t_med t_p99 t_max <<<"$(stats)"
rps=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.0f", 10000 / ((b - a) / 1e6) }')
jobs=$("$heisen" campaigns --db "$scratch/w.db" --json | grep -oE '"jobs":[0-9]+' | head -n 1 | cut -d: -f2)
tm send-keys -t b Q
# The TUI's own account (HEISEN_TUI_STATS), written as it ends.
for ((i = 0; i < 100; i++)); do
	[ -s "$scratch/tui.stats" ] && break
	sleep 0.1
done
read -r _ _ ib_n _ ib_med _ ib_p99 _ ib_max < <(grep '^loop_busy_ms' "$scratch/tui.stats")
read -r _ _ ik_n _ ik_med _ ik_p99 _ ik_max < <(grep '^key_to_screen_ms' "$scratch/tui.stats")

echo
echo "TUI key echo during a sweep of 10 000 runs (fibonacci, 20 densities x 500,"
echo "--jobs $jobs, $rps runs/s): ':' and a marker sent by tmux every 200 ms until the"
echo "prompt shows it; includes tmux's send-keys/capture-pane round trip, measured"
echo "against cat in a pane (baselines: idle, and under the same sweep without"
echo "the TUI); goal: never more than 100 ms"
echo
echo "| what | samples | median | p99 | max | goal |"
echo "|---|---|---|---|---|---|"
echo "| TUI during the sweep | $t_n | $t_med ms | $t_p99 ms | $t_max ms | max <= 100 ms |"
echo "| TUI, no sweep | $i_n | $i_med ms | $i_p99 ms | $i_max ms | |"
echo "| baseline: cat in tmux, idle | $b_n | $b_med ms | $b_p99 ms | $b_max ms | |"
echo "| baseline: cat in tmux, same sweep from the command line | $l_n | $l_med ms | $l_p99 ms | $l_max ms | |"
awk -v m="$t_med" -v p="$t_p99" -v x="$t_max" -v lm="$l_med" -v lp="$l_p99" -v lx="$l_max" 'BEGIN {
	printf "| TUI minus the loaded baseline | | %+.1f ms | %+.1f ms | %+.1f ms | |\n", m - lm, p - lp, x - lx }'
echo "| inside the TUI (HEISEN_TUI_STATS): work per loop turn, keys unread meanwhile | $ib_n | $ib_med ms | $ib_p99 ms | $ib_max ms | max <= 100 ms |"
echo "| inside the TUI: a key read to the screen showing it | $ik_n | $ik_med ms | $ik_p99 ms | $ik_max ms | |"
