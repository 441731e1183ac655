#!/usr/bin/env bash
# The TUI's bug screen, driven in tmux at 80x24, on demos/helper-race.c
# (the race is in credit(), called by pay_rent() and pay_wages()): the
# call stack shows folded ("+ called from ..."), Tab selects it, Enter
# unfolds it into numbered frames and folds it back; Enter on a frame
# opens its source file at that line, q goes back; t triages the bug
# (the screen and `heisen triage` agree), and in the bug list t moves
# the selected bug's state on. All of it under a folder whose path has
# 120+ characters, the program built there: the source screen's
# breadcrumb keeps the file name and line at 80 columns.
. "$(dirname "$0")/lib.sh"
tmux_session tuistk
unset HEISEN_DB
deep=$(deep_dir "$dir") || exit 3
cd "$deep" || exit 3
mkdir demos && cp "$root/demos/helper-race.c" demos/ || exit 3
"$HEISEN" cc -g -O1 -Wall -o helper-race.wasm "$deep/demos/helper-race.c" >"$dir/cc.log" 2>&1 ||
	{ bad "heisen cc in $deep: $(snippet "$dir/cc.log")"; finish t_tui_stacks; }
"$HEISEN" check helper-race.wasm --runs 1 >/dev/null 2>&1
[ "$("$HEISEN" bugs --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["bugs"]))')" -ge 1 ] ||
	{ bad "check recorded no bug"; finish t_tui_stacks; }


tm new-session -d -s tui -x 80 -y 24 -c "$deep" "$heisen tui; sleep 30" || bad "tmux failed"
wait_for 'Campaigns' "the TUI did not open" || finish t_tui_stacks
tm send-keys -t tui 2
wait_for '^ +BUG ' "bug list" || finish t_tui_stacks
wait_for '^ +1 .* new *$' "bug 1 listed as new"
tm send-keys -t tui t
wait_for '^ +1 .* confirmed *$' "t in the bug list: bug 1 confirmed"
"$HEISEN" triage 1 --json | grep -q '"state":"confirmed"' || bad "heisen triage does not see the TUI's decision"

tm send-keys -t tui Enter
wait_for 'Bug 1 ' "the bug screen" || finish t_tui_stacks
wait_for 'triage confirmed' "the bug screen shows the triage state"
wait_for '^  \+ called from (pay_rent|pay_wages) ' "the folded stack names the caller"
grep -qE '^    #1 ' <<<"$scr" && bad "the stack is unfolded before Enter"
tm send-keys -t tui Tab Enter
wait_for '^  - call stack of site ' "Enter unfolds the selected stack"
wait_for '^    #0  credit .*helper-race\.c:2[45]' "frame 0 is the racing line in credit()"
wait_for '^    #1  (pay_rent|pay_wages) .*helper-race\.c:' "frame 1 is the caller"
caller=$(grep -oE '^    #1  (pay_rent|pay_wages)' <<<"$scr" | awk '{print $2}')
tm send-keys -t tui Tab Tab Enter
wait_for "helper-race\.c:[0-9]+\$|helper-race\.c:[0-9]+ " "Enter on frame #1 opens its source" || finish t_tui_stacks
grep -qE "(\.\.\.|…)/([^ ]*/)?demos/helper-race\.c:[0-9]+ *\$" <<<"$(head -1 <<<"$scr")" ||
	bad "the breadcrumb does not end in …/demos/helper-race.c:LINE: $(head -1 <<<"$scr")"
wait_for "^ +[0-9]+ \| static .* void $caller\(void\)" "the source screen shows the caller's line"
tm send-keys -t tui q
wait_for '^    #1  ' "q goes back to the bug screen, still unfolded"
tm send-keys -t tui BTab BTab Enter
wait_for '^  \+ called from ' "Enter on the stack again folds it"
tm send-keys -t tui t
wait_for 'triage fixed' "t on the bug screen: fixed"
"$HEISEN" triage 1 --json | grep -q '"state":"fixed"' || bad "heisen triage does not see fixed"

finish t_tui_stacks
