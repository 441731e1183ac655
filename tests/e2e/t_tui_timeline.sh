#!/usr/bin/env bash
# The Timeline screen (docs/debugger.md), driven in tmux at 80x24 under a
# 120+ character folder: d on a bug found by explore opens it at the
# race; stepping forward over 1 000 events and back shows each event's row
# the same both ways; r jumps to the race's accesses with the racing
# bytes' value shown; a line breakpoint stops c at that line; s shows the
# call stack; `heisen debug FILE.repro PROGRAM.wasm` opens the same
# screen from a repro file.
. "$(dirname "$0")/lib.sh"
tmux_session tuitl
deep=$(deep_dir "$dir") || exit 3
cd "$deep" || exit 3
unset HEISEN_DB
cp "$root/demos/build/lost-update.wasm" app.wasm
"$HEISEN" explore app.wasm --strategy pct:3 --runs 20 --seed 5 >/dev/null 2>&1
bug=$("$HEISEN" bugs --json | python3 -c '
import json, sys
for b in json.load(sys.stdin)["bugs"]:
    if sorted(s["line"] for s in b["sites"]) == [35, 36]:
        print(b["id"]); break')
[ -n "$bug" ] || { bad "explore found no race of lines 35 and 36"; finish t_tui_timeline; }
"$HEISEN" timeline "$bug" --count 0 --json >tl.json || bad "timeline --json failed"
read -r first second <<<"$(python3 -c '
import json, sys
r = json.load(open("tl.json"))["races"][0]["events"]
print(r[0], r[1])')"

tm new-session -d -s tui -x 80 -y 24 -c "$deep" "$heisen tui; sleep 30" || bad "tmux failed"
wait_for 'Campaigns' "the TUI did not open" || finish t_tui_timeline
tm send-keys -t tui 2
wait_for '^ +BUG ' "bug list"
# The race of lines 35 and 36 is the one of kinds R/W: filter on them.
tm send-keys -t tui /
tm send-keys -t tui -l "R/W"
tm send-keys -t tui Enter
sleep 0.3
tm send-keys -t tui Enter
wait_for "Bug $bug " "the bug's screen" || finish t_tui_timeline
tm send-keys -t tui d
wait_for 'Timeline app\.wasm' "d: the Timeline screen" || finish t_tui_timeline
wait_for "^event $first of [0-9]+: T[0-9]+ write 4 " "the screen opens at the race's first access"
wait_for '^watch: 4 bytes at 0x[0-9a-f]+ = [0-9]+ .*the race.s address' "the racing bytes' value"
wait_for '^   event  T0 +T1 +T2' "thread lanes side by side"

# Forward over 1 000 events from the first, then back: every event's row
# must read the same both ways.
tm send-keys -t tui g
wait_for '^event 0 of ' "g: the first event"
# A lane row: a mark and the event number right-aligned in 8 columns
# (source lines below are numbered in 6).
rows() {
	grep -E '^[! ]( {6}[0-9]| {5}[0-9]{2}| {4}[0-9]{3}| {3}[0-9]{4}| {2}[0-9]{5})( |$)' <<<"$scr" >>"$1"
}
: >fwd.txt
: >back.txt
for i in $(seq 10 10 1000); do
	tm send-keys -t tui -N 10 j
	wait_for "^event $i of " "stepping forward to $i" || break
	rows fwd.txt
done
for i in $(seq 990 -10 0); do
	tm send-keys -t tui -N 10 k
	wait_for "^event $i of " "stepping back to $i" || break
	rows back.txt
done
python3 - <<'PY' || bad "an event's row differs forward and back"
import re
def load(f):
    m = {}
    for l in open(f):
        n = int(re.match(r"^[! ] *([0-9]+)", l).group(1))
        m.setdefault(n, l.rstrip())
    return m
f, b = load("fwd.txt"), load("back.txt")
both = set(f) & set(b)
assert len(both) >= 900, len(both)
bad = [n for n in both if f[n] != b[n]]
assert not bad, (bad[:3], [f[n] for n in bad[:1]], [b[n] for n in bad[:1]])
PY

# r: the race's accesses, marked.
tm send-keys -t tui r
wait_for "^event $first of " "r: the race's first access"
tm send-keys -t tui r
wait_for "^event $second of " "r again: the race's second access"
wait_for "^! *$second " "the race's row is marked"
# s: the call stack of this event.
tm send-keys -t tui s
wait_for '^  #0 deposit .*lost-update\.c:3[56]' "s: the stack's first frame"
wait_for '^  #1 ' "s: a caller"
tm send-keys -t tui s
# A breakpoint at line 36: c from the start stops there.
tm send-keys -t tui b
wait_for 'Break at' "b: the breakpoint prompt"
tm send-keys -t tui -l "lost-update.c:36"
tm send-keys -t tui Enter
wait_for '\[b lost-update\.c:36\]' "the breakpoint in the header"
tm send-keys -t tui g c
wait_for '^event [0-9]+ of [0-9]+: T[0-9]+ write 4 @0x[0-9a-f]+ \(was [0-9]+\) deposit lost-update\.c:36' "c: stopped at line 36"
wait_for '^> +36 ' "the source pane at line 36"
tm send-keys -t tui Q

# heisen debug on a repro file, in a folder with only it and the program.
"$HEISEN" replay "$bug" --mode schedule --runs 2 --save s.repro >/dev/null 2>&1 || bad "replay --save failed"
mkdir -p fresh && cp app.wasm s.repro fresh/
tm new-window -t tui -c "$deep/fresh" "$heisen debug s.repro app.wasm; sleep 30"
wait_for 'Timeline app\.wasm' "heisen debug: the Timeline screen"
wait_for '^watch: 4 bytes at 0x[0-9a-f]+ = ' "heisen debug: the racing value"
tm send-keys -t tui r r
wait_for '^event [0-9]+ of [0-9]+: T[0-9]+ (read|write) 4 @0x[0-9a-f]+ .*deposit lost-update\.c:3[56]' "heisen debug: r"
tm send-keys -t tui Q
sleep 0.3
[ ! -e fresh/heisen.db ] || bad "heisen debug of a repro file created a workspace"
finish t_tui_timeline
