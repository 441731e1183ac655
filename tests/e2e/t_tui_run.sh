#!/usr/bin/env bash
# The TUI's run screen, driven in tmux at 80x24, on a run that did not end
# ok (tests/e2e/guests/stderr-trap.c writes seven lines to stderr, then
# traps in give_up): the screen shows its status with the trap's message
# (function and offset) and the last five lines of its stderr.
. "$(dirname "$0")/lib.sh"
tmux_session tuirun
unset HEISEN_DB
cd "$dir" || exit 3
"$HEISEN" sweep "$root/demos/build/guests/stderr-trap.wasm" --densities 100 \
	--runs 1 --profiles default >"$dir/sweep.log" 2>&1 ||
	{ bad "the sweep failed: $(snippet "$dir/sweep.log")"; finish t_tui_run; }

tm new-session -d -s tui -x 80 -y 24 -c "$dir" "$heisen tui; sleep 30" || bad "tmux failed"
wait_for 'Campaigns' "the TUI did not open" || finish t_tui_run
tm send-keys -t tui Enter
wait_for '› Runs of campaign 1$' "the runs screen" || finish t_tui_run
tm send-keys -t tui Enter
wait_for '› Run 1$' "run 1" || finish t_tui_run
wait_for "^  trap \(exit -1\): unreachable in function [0-9]+ 'give_up' at" "the run's reason"
wait_for '^  its stderr ended with:' "the stderr tail's heading"
wait_for '^    stderr-trap: line 7$' "the last line of its stderr"
grep -q '^    stderr-trap: line 3$' <<<"$scr" || bad "the tail lacks line 3: $scr"
grep -q 'stderr-trap: line 2$' <<<"$scr" && bad "the tail has more than five lines"

finish t_tui_run
