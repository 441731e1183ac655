#!/usr/bin/env bash
# The TUI's heisen factors (F and class in the bug list, F above a bug's
# grid, as `heisen factor` computes them) and its replay keys, driven in
# tmux at 80x24: s on a campaign shows the budget simulation of its
# program, as `heisen simulate` prints it; on a bug, p opens the
# replay form (Enter on Mode cycles trigger -> pinned), s starts it, the
# output screen shows the progress lines and the rate as they come; w
# writes a repro file, which replays with `heisen replay --file`. All
# of it under a folder whose path has 120+ characters.
. "$(dirname "$0")/lib.sh"
tmux_session tuirep
deep=$(deep_dir "$dir") || exit 3
cd "$deep" || exit 3
cp "$root/demos/build/fibonacci.wasm" app.wasm
"$HEISEN" sweep app.wasm --densities 50,100 --runs 4 --profiles default --seed 3 \
	>/dev/null 2>&1 ||
	{ bad "sweep failed"; finish t_tui_replay; }


tm new-session -d -s tui -x 80 -y 24 -c "$deep" "$heisen tui; sleep 30" || bad "tmux failed"
wait_for 'Campaigns' "the TUI did not open" || finish t_tui_replay
tm send-keys -t tui s
wait_for '^simulation of app\.wasm: ' "s on a campaign: the simulation's output screen"
wait_for '^  both +[0-9]+ ' "the simulation's table"
wait_for '^\[exit 0\]' "the simulation's end"
tm send-keys -t tui q
wait_for '^ +ID +PROGRAM ' "back on the campaigns"
tm send-keys -t tui 2
wait_for '^ +BUG ' "bug list"
# F and the class fill in when the background computation is done.
wait_for '^ +[0-9]+ .* [0-9]+\.[0-9]{2} (ordinary|density-specific|profile-specific|random|few) ' \
	"F and class in the bug list"
tm send-keys -t tui Enter
wait_for 'Bug [0-9]+ ' "a bug screen" || finish t_tui_replay
shown=$(grep -oE 'Bug [0-9]+ ' <<<"$scr" | head -1 | grep -oE '[0-9]+')
# The same numbers as `heisen factor BUG`, as an ERE.
want=$("$HEISEN" factor "$shown" --json | python3 -c '
import json, re, sys
b = json.load(sys.stdin)["bugs"][0]
t = "%.2f (90 %%: %.2f-%.2f" % (b["factor"], *b["interval"])
print(re.sub(r"([.()])", r"\\\1", t))')
# Below the sites, the location and who created the threads: scroll.
tm send-keys -t tui j j j j j j j j
wait_for "^Heisen factor $want" "the bug screen's F equals heisen factor's"
tm send-keys -t tui p
wait_for 'Mode +trigger' "the replay form" || finish t_tui_replay
tm send-keys -t tui j Enter
wait_for 'Mode +pinned' "Enter on Mode cycles to pinned"
tm send-keys -t tui s
wait_for "Replay of bug $shown" "the replay's output screen"
wait_for '^replay: [0-9]+/100 runs, [0-9]+ reproduced' "a progress line"
wait_for '^reproduced in [0-9]+ of 100 runs' "the rate"
wait_for '^mode pinned: ' "the pinned mode's line"
wait_for '^\[exit [01]\]' "the replay's end"
tm send-keys -t tui q
wait_for '(Bug [0-9]+ |› Bug [0-9]+$)' "back on the bug"
tm send-keys -t tui w
wait_for "Write repro file: bug-$shown\.repro" "w asks for the file name"
tm send-keys -t tui Enter
wait_for "saved bug-$shown\.repro" "w wrote the repro file"
wait_for '^\[exit 0\]' "the repro replay's end"
[ -s "bug-$shown.repro" ] || bad "no bug-$shown.repro"
"$HEISEN" replay --file "bug-$shown.repro" app.wasm --runs 10 >"$dir/f.out" 2>&1 ||
	bad "replay --file of the TUI's repro: exit $?: $(snippet "$dir/f.out")"
# c on a campaign: heisen check of its program, a campaign of kind check.
tm send-keys -t tui q q q
wait_for '^ +ID +PROGRAM ' "back on the campaigns"
tm send-keys -t tui c
wait_for 'Check of app\.wasm' "c on a campaign: the check's output screen"
wait_for '^heisen check: app\.wasm: 1 run, [0-9]+ races?; campaign [0-9]+' "the check's summary"
wait_for '^\[exit 0\]' "the check's end"
"$HEISEN" campaigns --json | grep -q '"kind":"check"' ||
	bad "c: no campaign of kind check in the workspace"
tm send-keys -t tui Q
finish t_tui_replay
