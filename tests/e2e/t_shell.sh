#!/usr/bin/env bash
# The interactive command line in a real terminal (tmux, 80x24): help,
# Tab completion of commands, options and campaign ids, set and the
# prompt, an error and the prompt after it, Ctrl-C at the prompt and
# during a sweep, history across a restart (not a line starting with a
# space), an unwritable history, Ctrl-D, quit and exit, and the terminal
# as it was. Works on the GNU readline and the libedit build alike.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || {
	echo "  FAIL: tmux is missing (make deps installs it)"
	exit 1
}
# Any build of the demo serves; `make LINE=edit line-check` runs this
# after `make e2e` built them, and need_demos would build a plain heisen
# for a libedit or sanitizer one.
[ -e "$root/demos/build/control-mutex.wasm" ] || need_demos
sock=heisen-test-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT
tm() { tmux -L "$sock" "$@"; }

mkdir -p "$dir/home" "$dir/work"
ln -s "$root/demos/build/control-mutex.wasm" "$dir/work/ctl.wasm"
# The pane runs this: the shell between two snapshots of the terminal's
# settings, then its exit status, then it waits to be looked at.
cat >"$dir/pane.sh" <<'EOF'
#!/bin/sh
# pane.sh NAME ARGS...: $dir/NAME.before, NAME.after, then "NAME exited N"
d=$(dirname "$0")
name=$1
# The terminal's Ctrl-C reaches this script too (no job control here):
# caught, not fatal; heisen gets the default action back.
trap : INT
shift
stty -g >"$d/$name.before"
"$HEISEN" shell "$@"
rc=$?
stty -g >"$d/$name.after"
echo "$name exited $rc"
exec sleep 600
EOF
chmod +x "$dir/pane.sh"

sess=
# start NAME STATE ARGS...: a new pane running the shell with
# XDG_STATE_HOME=STATE, in $dir/work.
start() {
	local name=$1 state=$2
	shift 2
	sess=$name
	tm new-session -d -s "$name" -x 80 -y 24 -c "$dir/work" \
		env -u HEISEN_DB HOME="$dir/home" XDG_STATE_HOME="$state" \
		XDG_CACHE_HOME="$dir/cache" HEISEN="$HEISEN" \
		"$dir/pane.sh" "$name" "$@" || {
		echo "  FAIL: tmux new-session failed"
		exit 1
	}
}

# The screen of the current pane, in $dir/screen; its last non-blank line
# in $last.
screen() {
	tm capture-pane -p -t "$sess" >"$dir/screen" 2>/dev/null
	last=$(grep -v '^ *$' "$dir/screen" | tail -n 1)
}

# wait_screen ERE WHAT / wait_last ERE WHAT: poll until a line of the
# screen (or its last non-blank line) matches; after 30 s record a
# failure with the screen and return 1. The limit only ends a hung
# test: nothing here depends on how fast the shell is.
wait_screen() {
	for ((i = 0; i < 600; i++)); do
		screen
		grep -qE -- "$1" "$dir/screen" && return 0
		sleep 0.05
	done
	bad "$2: no line matching '$1' on the screen: $(tr '\n' '|' <"$dir/screen" | tr -s '|')"
	return 1
}
wait_last() {
	for ((i = 0; i < 600; i++)); do
		screen
		grep -qE -- "$1" <<<"$last" && return 0
		sleep 0.05
	done
	bad "$2: last line '$last' does not match '$1'; screen: $(tr '\n' '|' <"$dir/screen" | tr -s '|')"
	return 1
}

# send WORDS...: tmux key names and literal text, then clear the screen
# first when asked with -c (Ctrl-L redraws the prompt at the top).
keys() { tm send-keys -t "$sess" "$@"; }
clear_screen() {
	keys C-l
	wait_screen '^heisen' "Ctrl-L"
}

# ---- first session: --db, help, completion, set, errors, Ctrl-C ----------
start s1 "$dir/state" --db "$dir/w.db"
wait_last '^heisen w\.db> ?$' "prompt with --db" || exit 1

keys help Enter
wait_screen "'heisen help COMMAND' shows" "help"
wait_last '^heisen w\.db> ?$' "prompt after help"
grep -qE '^  shell +an interactive command line' "$dir/screen" ||
	bad "help does not list shell: $(tr '\n' '|' <"$dir/screen")"

clear_screen
keys ver Tab
wait_last '^heisen w\.db> version ?$' "ver<Tab>"
keys Enter
wait_screen '^heisen [0-9]+\.[0-9]+\.[0-9]+$' "version after completion"
wait_last '^heisen w\.db> ?$' "prompt after version"
# The same line again: kept once in the history.
keys version Enter
wait_last '^heisen w\.db> ?$' "prompt after the second version"

clear_screen
keys "help swe" Tab
wait_last '^heisen w\.db> help sweep ?$' "help swe<Tab>"
keys C-u "sweep x.wasm --prof" Tab
wait_last '^heisen w\.db> sweep x\.wasm --profiles ?$' "sweep --prof<Tab>"
keys C-u

# set db: the prompt follows, set lists it.
keys "set db $dir/x.db" Enter
wait_last '^heisen x\.db> ?$' "prompt after set db"
keys set Enter
wait_screen "^set db $dir/x\.db$" "set lists db"

# A failing command: its message, no script location line, the prompt.
clear_screen
keys "no-such-command; version" Enter
wait_screen "unknown command 'no-such-command'" "unknown command"
wait_last '^heisen x\.db> ?$' "prompt after a failed command"
grep -q 'failed (exit' "$dir/screen" &&
	bad "the shell printed a script's 'command failed' line"
grep -qE '^heisen [0-9]' "$dir/screen" &&
	bad "the command after the failed one ran"
keys "help 'x" Enter
wait_screen "unclosed quote \(.\) at column 6" "unclosed quote"
wait_last '^heisen x\.db> ?$' "prompt after a syntax error"

# Ctrl-C at the prompt drops the line.
clear_screen
keys "bugs --json"
wait_last '^heisen x\.db> bugs --json$' "typing before Ctrl-C"
keys C-c
wait_last '^heisen x\.db> ?$' "prompt after Ctrl-C"
grep -qE '^heisen x\.db> bugs --json\^C$' "$dir/screen" ||
	bad "Ctrl-C: the dropped line is not shown with ^C: $(tr '\n' '|' <"$dir/screen" | tr -s '|')"
keys Enter profiles Enter
wait_screen '^noisy ' "profiles after Ctrl-C"
wait_last '^heisen x\.db> ?$' "prompt after profiles"
grep -q 'schema' "$dir/screen" && bad "the line dropped by Ctrl-C ran"

# Ctrl-C during a sweep stops the sweep, not the shell.
clear_screen
keys "sweep ctl.wasm --budget 10m --jobs 1" Enter
wait_screen 'sweep: [1-9][0-9]* runs' "sweep progress" || exit 1
keys C-c
wait_screen '^campaign 1 \(stopped\)' "sweep stopped by Ctrl-C"
wait_last '^heisen x\.db> ?$' "prompt after the stopped sweep" || exit 1
# Campaign ids come from the workspace set with 'set db'.
clear_screen
keys "runs " Tab
wait_last '^heisen x\.db> runs 1 ?$' "runs <Tab> completes the campaign id"
keys C-u "campaigns" Enter
wait_screen ' stopped ' "campaigns after Ctrl-C"

# A line starting with a space is not kept; Ctrl-D leaves.
keys " set" Enter
wait_last '^heisen x\.db> ?$' "prompt after ' set'"
keys C-d
wait_screen '^s1 exited 0$' "Ctrl-D exits 0"
cmp -s "$dir/s1.before" "$dir/s1.after" ||
	bad "terminal settings after the shell differ: $(cat "$dir/s1.before") -> $(cat "$dir/s1.after")"
tm kill-session -t s1

hist="$dir/state/heisen/history"
if [ ! -f "$hist" ]; then
	bad "no history at $hist"
else
	[ "$(stat -c %a "$dir/state/heisen")" = 700 ] ||
		bad "history folder mode $(stat -c %a "$dir/state/heisen"), want 700"
	[ "$(grep -c '^version$' "$hist")" -eq 1 ] ||
		bad "history: 'version' twice in a row kept $(grep -c '^version$' "$hist") times"
	grep -q '^ set' "$hist" && bad "history kept a line starting with a space"
	[ "$(tail -n 1 "$hist")" = campaigns ] ||
		bad "history's last line is '$(tail -n 1 "$hist")', want campaigns"
fi

# ---- second session: the history is back; exit -----------------------
start s2 "$dir/state"
wait_last '^heisen> ?$' "prompt without --db" || exit 1
keys Up
wait_last '^heisen> campaigns$' "Up recalls the last line of the first session"
keys Up
wait_last '^heisen> sweep ctl\.wasm --budget 10m --jobs 1$' "Up again"
keys C-u exit Enter
wait_screen '^s2 exited 0$' "exit leaves with 0"
tm kill-session -t s2

# ---- an unwritable history: one warning, the shell works ---------------
echo "not a folder" >"$dir/state-file"
start s3 "$dir/state-file"
wait_last '^heisen> ?$' "prompt with an unusable history" || exit 1
keys version Enter
wait_screen '^heisen [0-9]' "version without a history"
keys "set jobs 1" Enter set Enter
wait_screen '^set jobs 1$' "set without a history"
keys quit Enter
wait_screen '^s3 exited 0$' "quit leaves with 0"
n=$(grep -c 'heisen shell: cannot' "$dir/screen")
[ "$n" -eq 1 ] || bad "unusable history: $n warnings, want 1: $(tr '\n' '|' <"$dir/screen" | tr -s '|')"
tm kill-session -t s3

# Not on a terminal: every line runs, failing or not; no history.
printf 'version\nno-such-command\nset db a.db; set\n' |
	XDG_STATE_HOME="$dir/state-pipe" "$HEISEN" shell >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 0 ] || bad "heisen shell from a pipe: exit $rc: $(snippet "$dir/err")"
[ "$(grep -c '' "$dir/out")" -eq 2 ] && grep -q '^heisen [0-9]' "$dir/out" &&
	grep -q '^set db a\.db$' "$dir/out" ||
	bad "heisen shell from a pipe: output $(snippet "$dir/out")"
grep -q "unknown command 'no-such-command'" "$dir/err" ||
	bad "heisen shell from a pipe: no error for line 2: $(snippet "$dir/err")"
[ -e "$dir/state-pipe" ] && bad "heisen shell from a pipe wrote a history"

# No shell inside a script (nor inside a shell: the same check).
"$HEISEN" -c shell </dev/null >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q '^heisen shell: already reading commands' "$dir/err" ||
	bad "heisen -c shell: exit $rc, want 2: $(snippet "$dir/err")"

finish t_shell
