#!/usr/bin/env bash
# The full-screen interface driven for real in tmux, at 80x24 and at
# 160x50: the campaigns list; a sweep started from the new-sweep form whose
# progress advances on the status line; a resize in the middle of it,
# redrawn at the new size; S stops it; the bug list, a bug and one cell of
# its detections table checked against the JSON of show and runs; the runs
# of a campaign, one run, an exact rerun; a ':' command with Tab
# completion; '?' help; q and Q quit with the terminal's settings as they
# were and the shell back (no alternate screen left). Then Ctrl-C during a
# sweep (stopped, recorded, terminal restored), NO_COLOR with plain
# `heisen` on $HEISEN_DB, and no terminal at all (exit 2).
# Only polling with deadlines: nothing depends on how fast anything is.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || {
	echo "  FAIL: tmux is missing (make deps installs it)"
	exit 1
}
need_demos
heisen=$(cd "$(dirname "$HEISEN")" && pwd)/$(basename "$HEISEN")
# One tmux server per pane started (heisen-tui-PID-N): a new server on the
# socket of one just killed can race its shutdown.
npane=0
# The servers' sockets in the scratch folder, removed with it (a socket's
# path has at most 107 bytes); everything else under a folder whose path
# has 120+ characters, as in a checkout in a deep temporary folder.
top=$dir
export TMUX_TMPDIR=$top
unset TMUX # run from inside tmux too
sock=heisen-tui-$$-0
trap 'for ((i = 0; i <= npane; i++)); do tmux -L "heisen-tui-$$-$i" kill-server 2>/dev/null; done; rm -rf "$top"' EXIT
dir=$(deep_dir "$top") || exit 3
tm() { tmux -L "$sock" "$@"; }

mkdir -p "$dir/home"
# A short relative program path keeps the form's Program field and the
# tables readable at 80 columns.
cp "$root/demos/build/fibonacci.wasm" "$dir/fibonacci.wasm"
# Nothing of the user's: the cache, and the ":" history (heisen shell's).
export XDG_CACHE_HOME="$dir/cache" XDG_STATE_HOME="$dir/state"

# The pane's shell runs the TUI through this: the terminal's settings
# before and after, then the exit status, on the screen and in a file.
cat >"$dir/tui.sh" <<'EOF'
# tui.sh TAG ARGS...: heisen ARGS between two `stty -a` into TAG.before
# and TAG.after; then "TUI-EXITED TAG rc=N".
tag=$1
shift
stty -a >"$tag.before"
"$HEISEN_ABS" "$@"
rc=$?
stty -a >"$tag.after"
echo "$rc" >"$tag.rc"
echo "TUI-EXITED $tag rc=$rc"
EOF

scr=
# wait_for ERE [WHAT]: poll the pane until a line matches; the screen is
# then in $scr. After 60 s (an ASan build included) record a failure
# with the screen and return 1: the limit only ends a hung test.
wait_for() {
	local deadline=$((SECONDS + 60))
	while :; do
		scr=$(tm capture-pane -p -t tui 2>/dev/null)
		grep -qE -- "$1" <<<"$scr" && return 0
		[ "$SECONDS" -ge "$deadline" ] && break
		sleep 0.1
	done
	bad "$size: ${2:-waiting}: no line matching /$1/ on the screen:"
	sed 's/^/    | /' <<<"$scr"
	return 1
}
# wait_not ERE [WHAT]: poll until no line matches.
wait_not() {
	local deadline=$((SECONDS + 60))
	while :; do
		scr=$(tm capture-pane -p -t tui 2>/dev/null)
		grep -qE -- "$1" <<<"$scr" || return 0
		[ "$SECONDS" -ge "$deadline" ] && break
		sleep 0.1
	done
	bad "$size: ${2:-waiting}: a line still matches /$1/:"
	sed 's/^/    | /' <<<"$scr"
	return 1
}
keys() { tm send-keys -t tui "$@"; }
text() { tm send-keys -t tui -l -- "$1"; }

# start_pane W H: a tmux server whose one pane is an interactive shell in
# $dir, W x H.
start_pane() {
	tm kill-server 2>/dev/null
	sock=heisen-tui-$$-$((npane += 1))
	tm -f /dev/null new-session -d -s tui -x "$1" -y "$2" -c "$dir" \
		env -u NO_COLOR -u HEISEN_DB TERM=screen LANG=C.UTF-8 \
		LC_ALL=C.UTF-8 HOME="$dir/home" PS1='$ ' HEISEN_ABS="$heisen" \
		bash --norc --noprofile -i || {
		echo "  FAIL: tmux new-session failed"
		exit 1
	}
	tm set -s escape-time 0
	wait_for '^\$ ?$' "the shell's prompt"
}

# run_tui TAG ARGS...: start `heisen ARGS` in the pane, on a clean screen.
run_tui() {
	local tag=$1
	shift
	text "clear; bash tui.sh $tag $*"
	keys Enter
}

# after_quit TAG: the TUI exited 0 with the terminal as it found it and
# the shell answering on the normal screen.
after_quit() {
	local tag=$1
	wait_for "^TUI-EXITED $tag rc=" "$tag: the TUI exits" || return 1
	grep -q "^TUI-EXITED $tag rc=0\$" <<<"$scr" ||
		bad "$size: $tag: exit status $(cat "$dir/$tag.rc"), wanted 0"
	if ! diff "$dir/$tag.before" "$dir/$tag.after" >"$dir/stty.diff"; then
		bad "$size: $tag: the terminal's settings changed (stty -a):"
		sed 's/^/    /' "$dir/stty.diff"
	fi
	[ "$(tm display-message -p -t tui '#{alternate_on}')" = 0 ] ||
		bad "$size: $tag: the pane is still on the alternate screen"
	text "echo shell-back-$tag"
	keys Enter
	wait_for "^shell-back-$tag\$" "$tag: the shell echoes and runs a command"
}

# count_in JSON_CMD...: how many runs of profile default at density 100 %
# the command's JSON lists.
count_in() {
	"$@" | grep -oE '"profile":"default","density_bp":10000,' | wc -l
}

# resize_check W H W2 H2 [sweep]: resize the window to W2 x H2, then back
# to W x H; each time the campaigns screen is redrawn at the new size: the
# title, the table's columns for the new width (CREATED needs more than 80
# columns, and then reaches the right edge), the status line on the new
# last row: the sweep's progress with "sweep", else ending with "? help"
# one column from the right edge.
resize_check() {
	local cw ch last
	for sz in "$3 $4" "$1 $2"; do
		read -r cw ch <<<"$sz"
		tm resize-window -t tui -x "$cw" -y "$ch"
		if [ "$cw" -gt 80 ]; then
			wait_for '^ +ID +PROGRAM .*PROFILES +KIND +NODE +CREATED$' "resized to ${cw}x$ch: CREATED shown" || return 1
			# The header and the rows can reach tmux in separate writes:
			# poll for the row rather than judge one capture.
			local rows_by=$((SECONDS + 60))
			until awk -v w="$cw" '/fibonacci\.wasm/ && length($0) == w { ok = 1 } END { exit !ok }' <<<"$scr"; do
				if [ "$SECONDS" -ge "$rows_by" ]; then
					bad "$size: resized to ${cw}x$ch: no campaign row $cw columns wide"
					sed 's/^/      | /' <<<"$scr"
					break
				fi
				sleep 0.1
				scr=$(tm capture-pane -p -t tui 2>/dev/null)
			done
		else
			wait_for '^ +ID +PROGRAM .*PROFILES$' "resized to ${cw}x$ch: CREATED gone" || return 1
		fi
		# The pane can be redrawn at the new width a moment before
		# tmux reports the new height: give the height a moment too.
		local until=$((SECONDS + 60))
		while [ "$(wc -l <<<"$scr")" -ne "$ch" ] && [ "$SECONDS" -lt "$until" ]; do
			sleep 0.1
			scr=$(tm capture-pane -p -t tui 2>/dev/null)
		done
		[ "$(wc -l <<<"$scr")" -eq "$ch" ] ||
			bad "$size: resized to ${cw}x$ch: the pane has $(wc -l <<<"$scr") lines"
		head -n 1 <<<"$scr" | grep -q '^ heisen › Campaigns$' ||
			bad "$size: resized to ${cw}x$ch: no title on the first line"
		if [ "${5:-}" = sweep ]; then
			wait_for '^ w[0-9]+\.db  sweep #2 ' "resized to ${cw}x$ch: the sweep on the status line" || return 1
			tail -n 1 <<<"$scr" | grep -q '^ w[0-9]*\.db  sweep #2 ' ||
				bad "$size: resized to ${cw}x$ch: the last row is not the status line: '$(tail -n 1 <<<"$scr")'"
		else
			wait_for '\? help$' "resized to ${cw}x$ch: the status line" || return 1
			last=$(tail -n 1 <<<"$scr")
			[ "${#last}" -eq $((cw - 1)) ] && [[ $last == *' ? help' ]] ||
				bad "$size: resized to ${cw}x$ch: the last row is not the status line at the new width: '$last'"
		fi
	done
}

# scenario W H W2 H2: the whole tour at W x H, resized to W2 x H2 and back
# in the middle of the sweep.
scenario() {
	local w=$1 h=$2 w2=$3 h2=$4 db="w$1.db" tag="main$1" done1 done2 n
	local bug cell k_runs n_runs k_show cells_json c run prof seed quit_key
	size=${w}x$h
	(cd "$dir" && "$heisen" sweep fibonacci.wasm --densities 20:100:20 \
		--runs 4 --profiles default --db "$db" >"$dir/sweep$w.log" 2>&1) ||
		{ bad "$size: the first sweep failed: $(snippet "$dir/sweep$w.log")"; return; }
	start_pane "$w" "$h" || return
	run_tui "$tag" tui --db "$db"

	# Campaigns: the sweep above, done.
	wait_for '^ heisen › Campaigns$' "the campaigns screen" || return
	wait_for '^ +ID +PROGRAM +STATUS +RUNS +BUGS +CELLS +DENSITIES +PROFILES' "the campaigns table" || return
	wait_for '^ +1 +fibonacci\.wasm +done +20/20 +[0-9]+ +5/5 +20:100:20 +default' "campaign 1's row" || return
	tm capture-pane -e -p -t tui | grep -qE $'\e\\[(3|4)[0-7]m' ||
		bad "$size: no colours on the screen"

	# The form, preset with the selected campaign's program: 2000 runs per
	# cell of 20 densities x the four profiles (more than the test can
	# wait for, on any machine), started with s.
	keys n
	wait_for '› New sweep$' "the new-sweep form" || return
	wait_for '^  Program +((…|\.\.\.)?/.*/)?fibonacci\.wasm$' "Program preset" || return
	wait_for '^  Densities +5:100:5' "the default densities" || return
	wait_for '^  Profiles +default,one-core,throttled,noisy$' "the default profiles" || return
	wait_for '^  \[ Start sweep \]' "the start button" || return
	keys k k k k k k k Enter
	wait_for '^Runs per cell: 5$' "editing Runs per cell" || return
	keys C-u
	text 2000
	keys Enter
	wait_for '^  Runs per cell +2000$' "Runs per cell set" || return
	keys s
	wait_for '^ heisen › Campaigns$' "back on the campaigns" || return

	# Progress advances on the status line, whole at 80 columns too.
	wait_for 'sweep #2 .*[0-9]+/160000 [0-9]+ runs/s [0-9]+ bugs? ETA [0-9:-]+$' "the sweep's progress" || return
	done1=$(grep -oE 'sweep #2 .*[0-9]+/160000 ' <<<"$scr" | grep -oE '[0-9]+/160000' | cut -d/ -f1)
	n=0
	while :; do
		wait_for 'sweep #2 .*[0-9]+/160000 ' "the sweep's progress" || return
		done2=$(grep -oE 'sweep #2 .*[0-9]+/160000 ' <<<"$scr" | grep -oE '[0-9]+/160000' | cut -d/ -f1)
		[ "$done2" -gt "$done1" ] && break
		if [ $((n += 1)) -gt 600 ]; then
			bad "$size: the sweep's progress stays at $done1/160000"
			return
		fi
		sleep 0.1
	done
	wait_for '^ +2 +fibonacci\.wasm +running +[0-9]+/160000 ' "campaign 2 running in the list" || return

	# A resize mid-sweep redraws at the new size.
	resize_check "$w" "$h" "$w2" "$h2" sweep || return

	# S stops the sweep; its campaign is stopped, in the list and the
	# database.
	keys S
	wait_for 'sweep of fibonacci\.wasm stopped after [0-9]+ runs' "the stopped message" || return
	wait_for '^ +2 +fibonacci\.wasm +stopped +[0-9]+/160000 ' "campaign 2 stopped in the list" || return
	"$heisen" campaigns --db "$dir/$db" --json | grep -q '"id":2,[^}]*"status":"stopped"' ||
		bad "$size: campaign 2 is not stopped in the database"
	# And with no sweep running, when nothing else redraws.
	resize_check "$w" "$h" "$w2" "$h2" || return

	# The bug list, the first bug and the 100 % cell of profile default.
	keys 2
	wait_for '^ heisen › Campaigns › Bugs$' "the bug list" || return
	wait_for '^ +BUG +PROGRAM +KINDS +RUNS' "the bug table" || return
	keys Enter
	wait_for '› Bug [0-9]+$' "a bug" || return
	bug=$(head -n 1 <<<"$scr" | grep -oE '[0-9]+$')
	wait_for "^ Bug $bug +[RW]/[RW] race in fibonacci\.wasm" "bug $bug's heading" || return
	wait_for '^Site A +[0-9]+ \(' "bug $bug's site A" || return
	keys G
	wait_for '^  profile( +[0-9.]+%)* +100%' "the detections at 100 %" || return
	cell=$(awk '/^  profile/ { c = 0; for (i = 2; i <= NF; i++) if ($i == "100%") c = i; next }
		c && $1 == "default" { print $c; exit } { c = 0 }' <<<"$scr")
	cells_json=$("$heisen" show "$bug" --db "$dir/$db" --json)
	k_show=$(grep -oE '"profile":"default","density_bp":10000,"k":[0-9]+,"n":[0-9]+' <<<"$cells_json" |
		sed 's/.*"k":\([0-9]*\),"n":\([0-9]*\)/\1\/\2/')
	# Independently: the runs of each of the program's campaigns at that
	# cell, and those of them that detected the bug.
	k_runs=0
	n_runs=0
	for c in $("$heisen" campaigns --db "$dir/$db" --json |
		grep -oE '"id":[0-9]+,"program_id":[0-9]+,"program":"fibonacci\.wasm"' |
		sed 's/"id":\([0-9]*\),.*/\1/'); do
		k_runs=$((k_runs + $(count_in "$heisen" runs "$c" --bug "$bug" --db "$dir/$db" --json)))
		n_runs=$((n_runs + $(count_in "$heisen" runs "$c" --db "$dir/$db" --json)))
	done
	if [ -z "$cell" ] || [ "$cell" != "$k_show" ] || [ "$cell" != "$k_runs/$n_runs" ]; then
		bad "$size: bug $bug, default at 100 %: the TUI shows '$cell', show --json '$k_show', runs --json $k_runs/$n_runs"
	fi
	[ "$n_runs" -ge 4 ] || bad "$size: bug $bug: only $n_runs runs at 100 % (campaign 1 alone has 4)"

	# The runs of a campaign, one run, an exact rerun.
	keys 1 Enter
	wait_for '› Runs of campaign [0-9]+$' "the runs screen" || return
	wait_for '^ +RUN +IDX +STATUS +EXIT +DENSITY +PROFILE +SEED' "the runs table" || return
	run=$(sed -n 3p <<<"$scr" | awk '{ print $1 }')
	prof=$(sed -n 3p <<<"$scr" | awk '{ print $6 }')
	seed=$(sed -n 3p <<<"$scr" | awk '{ print $7 }')
	keys Enter
	wait_for "› Run $run\$" "run $run" || return
	wait_for "^ Run $run +campaign [0-9]+, plan index [0-9]+" "run $run's heading" || return
	wait_for "^  profile $prof, density [0-9.]+%, mask seed $seed\$" "run $run's whole mask seed" || return
	wait_for '^ +BUG +KINDS +THREADS +ADDRESSES|no violation in this run' "run $run's violations" || return
	keys q
	wait_for '› Runs of campaign [0-9]+$' "back on the runs" || return
	keys x
	wait_for "› Rerun of run $run\$" "the rerun's screen" || return
	wait_for '^\[exit [0-9]+\]' "the rerun ends" || return
	grep -q '^\[exit 0\]$' <<<"$scr" || bad "$size: the rerun of run $run did not exit 0"
	grep -q "^rerun of run $run (recorded: " <<<"$scr" ||
		bad "$size: the rerun's comparison line is missing"

	# ':' with Tab completion runs a command on this workspace.
	keys q 1 :
	wait_for '^:$' "the ':' prompt" || return
	text bu
	keys Tab
	wait_for '^:bugs$' "Tab completes 'bu'" || return
	keys Enter
	wait_for '› bugs$' "the command's screen" || return
	wait_for '^\[exit [0-9]+\]' "the command ends" || return
	grep -q '^\[exit 0\]$' <<<"$scr" || bad "$size: ':bugs' did not exit 0"
	grep -qE "^$bug +fibonacci\.wasm " <<<"$scr" ||
		bad "$size: ':bugs' does not list bug $bug"

	# '?' lists the keys of the screen and the global ones.
	keys q '?'
	wait_for '› Help \(Campaigns\)$' "the help" || return
	# The title can be drawn before the page: wait for the page too.
	wait_for '^Keys everywhere' "help: the global keys" || return
	grep -q '^Keys of Campaigns' <<<"$scr" || bad "$size: help: no 'Keys of Campaigns'"
	grep -qE '^ +n +start a new sweep' <<<"$scr" || bad "$size: help: no n key"
	grep -qE '^ +S +stop the running sweep' <<<"$scr" || bad "$size: help: no S key"

	# Esc back to the campaigns; q (80x24) or Q (160x50) quits.
	keys Escape
	wait_for '^ heisen › Campaigns$' "back from the help" || return
	quit_key=q
	[ "$w" -gt 80 ] && quit_key=Q
	keys "$quit_key"
	after_quit "$tag"
}

scenario 80 24 160 50
scenario 160 50 80 24

# Ctrl-C with a sweep running: the sweep is stopped first (its campaign
# stopped, not left running), the TUI exits 0, the terminal is restored.
size=80x24
start_pane 80 24 && {
	run_tui ctrlc tui --db w80.db
	wait_for '^ heisen › Campaigns$' "ctrl-c: the campaigns"
	keys :
	text "sweep fibonacci.wasm --densities 5:100:5 --runs 2000 --profiles default"
	keys Enter
	wait_for 'sweep #3 .*[0-9]+/40000 ' "ctrl-c: the sweep runs" &&
		keys C-c
	after_quit ctrlc
	"$heisen" campaigns --db "$dir/w80.db" --json | grep -q '"id":3,[^}]*"status":"stopped"' ||
		bad "ctrl-c: campaign 3 is not stopped in the database"
}

# NO_COLOR, and plain `heisen` on a terminal opens the TUI on $HEISEN_DB:
# it draws, without colour.
start_pane 80 24 && {
	text "export NO_COLOR=1 HEISEN_DB=w160.db"
	keys Enter
	run_tui nocolor
	wait_for '^ +1 +fibonacci\.wasm +done +20/20 ' "NO_COLOR: the campaigns" &&
		if tm capture-pane -e -p -t tui | grep -qE $'\e\\[(3|4)[0-7]m'; then
			bad "NO_COLOR: colours on the screen"
		fi
	keys Q
	after_quit nocolor
}
tm kill-server 2>/dev/null

# No terminal: exit 2 and a message.
"$heisen" tui --db "$dir/w80.db" </dev/null >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 2 ] || bad "tui without a terminal: exit $rc, wanted 2"
grep -q 'needs a terminal' "$dir/err" ||
	bad "tui without a terminal: no message: $(snippet "$dir/err")"

finish t_tui
