#!/usr/bin/env bash
# The TUI's schedule keys, driven in tmux at 80x24 under a 120+ character
# folder: e on a campaign explores its program (a campaign of kind
# explore); a bug it found shows its schedule, and e there replays it
# exactly (every run on the recorded digest); a serial run's screen shows
# its schedule and e replays that run; a run that was not serial says it
# has no schedule.
. "$(dirname "$0")/lib.sh"
tmux_session tuiexp
deep=$(deep_dir "$dir") || exit 3
cd "$deep" || exit 3
cp "$root/demos/build/helper-race.wasm" app.wasm
"$HEISEN" check app.wasm --runs 2 >/dev/null 2>&1 || { bad "check failed"; finish t_tui_explore; }

tm new-session -d -s tui -x 80 -y 24 -c "$deep" "$heisen tui; sleep 30" || bad "tmux failed"
wait_for 'Campaigns' "the TUI did not open" || finish t_tui_explore
tm send-keys -t tui e
wait_for 'Explore of app\.wasm' "e on a campaign: the explore's output screen"
wait_for '^heisen explore: app\.wasm: 100 runs, [0-9]+ races?; campaign 2' "the explore's summary"
wait_for '^  schedule pct:3:[0-9]+, campaign seed ' "the schedule line"
wait_for '^\[exit 0\]' "the explore's end"
"$HEISEN" campaigns --json | grep -q '"kind":"explore"' ||
	bad "e: no campaign of kind explore in the workspace"
bug=$("$HEISEN" bugs --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bugs"][0]["id"])')
tm send-keys -t tui q
wait_for '^ +ID +PROGRAM ' "back on the campaigns"
tm send-keys -t tui 2
wait_for '^ +BUG ' "bug list"
tm send-keys -t tui Enter
wait_for 'Bug [0-9]+ ' "a bug screen" || finish t_tui_explore
tm send-keys -t tui j j j j j j j j j j j j
wait_for '^Schedule of run [0-9]+ \(campaign 2\): pct:3:[0-9]+' "the bug's schedule"
tm send-keys -t tui e
wait_for 'Replay of bug [0-9]+' "e: the replay's output screen"
wait_for '^digest: every run took the recorded path \(100 of 100\)' "every run on the recorded digest"
wait_for '^reproduced in 100 of 100 runs' "the exact replay's rate"
wait_for '^\[exit 0\]' "the replay's end"
# A serial run's screen: its schedule, and e.
tm send-keys -t tui q o
wait_for 'Runs detecting bug' "o: the bug's runs"
tm send-keys -t tui G Enter
wait_for '^ Run [0-9]+ ' "a run's screen" || finish t_tui_explore
if grep -q 'campaign 1,' <<<"$scr"; then
	tm send-keys -t tui e
	wait_for 'was not serial' "e on a run of the check"
	tm send-keys -t tui q g Enter
	wait_for '^ Run [0-9]+ ' "a run's screen"
fi
wait_for '^  schedule pct:3:[0-9]+, seed [0-9a-f]{16}: [0-9]+ points' "the run's schedule line"
tm send-keys -t tui e
wait_for '^replay of run [0-9]+ ' "e on a run: the replay's output screen"
wait_for '^digest: every run took the recorded path' "the run replayed on its digest"
wait_for '^\[exit 0\]' "the run replay's end"
tm send-keys -t tui Q
finish t_tui_explore
