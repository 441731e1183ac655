#!/usr/bin/env bash
# heisen timeline (docs/debugger.md, "Timeline"): a serial run's events,
# recorded by replaying its schedule exactly:
#   (1) a bug explore found lists its race's two accesses at the bug's
#       lines, by different threads, marked in the rows;
#   (2) the text and --json list the same events, and two listings of one
#       schedule are identical; --from/--count, --thread, --at select;
#   (3) --watch shows the bytes at an address at every event (an access
#       to them sees the same value); --stack N names event N's frames;
#   (4) a schedule repro lists the same race in a fresh folder;
#   (5) bad input: exit 2, nothing written.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
db=$dir/w.db
cp "$root/demos/build/lost-update.wasm" app.wasm

hq explore explore app.wasm --strategy pct:3 --runs 20 --seed 5 --db "$db" --json
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || want explore 0
bug=$("$HEISEN" bugs --db "$db" --json | python3 -c '
import json, sys
for b in json.load(sys.stdin)["bugs"]:
    lines = sorted(s["line"] for s in b["sites"])
    if lines == [35, 36]:
        print(b["id"]); break')
[ -n "$bug" ] || { bad "explore found no race of lines 35 and 36"; finish t_timeline; }

# (1) and (2): every event, as JSON and as text.
hq tlj timeline "$bug" --db "$db" --count 0 --json
want tlj 0
hq tlt timeline "$bug" --db "$db" --count 0
want tlt 0
python3 - "$dir/tlj.out" "$dir/tlt.out" <<'PY' || bad "timeline: $(cat "$dir/py.err" 2>/dev/null)"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.timeline/1", d["schema"]
ev = d["events"]
assert len(ev) == d["rows"] == d["schedule"]["points"], (len(ev), d["rows"])
assert [e["event"] for e in ev] == list(range(len(ev)))
assert len(ev) >= 1000, len(ev)
assert d["races"], "no race in the timeline"
lines = set()
for r in d["races"]:
    a, b = (ev[i] for i in r["events"])
    assert a["race"] and b["race"], r
    assert a["type"] == b["type"] == "access", r
    assert a["thread"] != b["thread"], r
    assert a["address"] == b["address"], r
    assert "write" in (a["kind"], b["kind"]), r
    lines |= {a["line"], b["line"]}
assert lines <= {35, 36} and lines, lines
text = [l for l in open(sys.argv[2]) if re.match(r"^[! ] *[0-9]+  T", l)]
assert len(text) == len(ev), (len(text), len(ev))
for l, e in zip(text, ev):
    m = re.match(r"^([! ]) *([0-9]+)  T([0-9]+) ", l)
    assert int(m.group(2)) == e["event"] and int(m.group(3)) == e["thread"], (l, e)
    assert (m.group(1) == "!") == e["race"], (l, e)
    if e["type"] == "access" and e["operand"] == "address" and e["line"]:
        assert l.rstrip().endswith(":%d" % e["line"]), (l, e)
PY
hq tlj2 timeline "$bug" --db "$db" --count 0 --json
cmp -s "$dir/tlj.out" "$dir/tlj2.out" || bad "two timelines of one schedule differ"

hq part timeline "$bug" --db "$db" --from 500 --count 7 --json
want part 0
hq thr timeline "$bug" --db "$db" --thread 1 --count 0 --json
want thr 0
hq at timeline "$bug" --db "$db" --at lost-update.c:36 --count 0 --json
want at 0
python3 - "$dir" <<'PY' || bad "timeline --from/--count, --thread, --at"
import json, sys
d = sys.argv[1]
p = json.load(open(d + "/part.out"))["events"]
assert [e["event"] for e in p] == list(range(500, 507)), p
t = json.load(open(d + "/thr.out"))["events"]
assert t and all(e["thread"] == 1 for e in t)
a = json.load(open(d + "/at.out"))["events"]
assert a and all(e["line"] == 36 and e["kind"] == "write" for e in a), a[:2]
PY

# (3) the race's address watched; the second access's stack.
read -r addr second <<<"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["races"][0]["events"]
print(hex(d["events"][r[1]]["address"]), r[1])' "$dir/tlj.out")"
hq watch timeline "$bug" --db "$db" --watch "$addr:4" --count 0 --json
want watch 0
python3 - "$dir/watch.out" "$addr" <<'PY' || bad "--watch: an access to the watched bytes saw another value"
import json, sys
d = json.load(open(sys.argv[1]))
a = int(sys.argv[2], 16)
seen = 0
for e in d["events"]:
    assert "watch" in e
    # An access made at once (its thread not switched out at its
    # point) sees the bytes as they were at its point.
    if e["type"] == "access" and e["operand"] == "address" and e["address"] == a and e["width"] == 4 and not e["switch_after"]:
        assert e["value"] == e["watch"], e
        seen += 1
assert seen > 2, seen
PY
hq stack timeline "$bug" --db "$db" --from "$second" --count 1 --stack "$second"
want stack 0
grep -qE '^    #0 deposit .*lost-update\.c:3[56]$' "$dir/stack.out" ||
	bad "--stack: frame 0 is not deposit at line 35 or 36: $(snippet "$dir/stack.out")"
grep -qE '^    #1 ' "$dir/stack.out" || bad "--stack: no caller frame"

# (4) a schedule repro, listed where only it and the program are.
hq save replay "$bug" --db "$db" --mode schedule --runs 2 --save "$dir/s.repro"
want save 0
mkdir -p fresh && cp app.wasm fresh/ && cp s.repro fresh/
(cd fresh && timeout -s KILL 120 "$HEISEN" timeline s.repro app.wasm --count 0 --json >../rj.out 2>../rj.err)
rc=$?
want rj 0
python3 - "$dir/rj.out" <<'PY' || bad "the repro's timeline has no race at lines 35/36"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["events"]
assert d["races"]
assert {ev[i]["line"] for r in d["races"] for i in r["events"]} <= {35, 36}
PY
[ ! -e fresh/heisen.db ] || bad "timeline of a repro file created a workspace"

# (5) bad input.
before=$(sqlite3 "$db" 'SELECT count(*) FROM runs')
cp "$root/demos/build/fibonacci.wasm" other.wasm
expect 2 "a repro of another program" "$HEISEN" timeline s.repro other.wasm
grep -q 'hash' "$dir/err" || bad "another program: the message does not say the hash differs: $(snippet "$dir/err")"
head -c 200 s.repro >trunc.repro
expect 2 "a truncated repro" "$HEISEN" timeline trunc.repro app.wasm
expect 2 "an unknown bug" "$HEISEN" timeline 999 --db "$db"
expect 2 "a bad --watch" "$HEISEN" timeline "$bug" --db "$db" --watch 0x10:9
expect 2 "an --at of no line" "$HEISEN" timeline "$bug" --db "$db" --at lost-update.c:9999
grep -q 'lost-update.c:9999' "$dir/err" || bad "--at: the message does not name the place"
expect 2 "a --stack past the end" "$HEISEN" timeline "$bug" --db "$db" --stack 99999999
expect 2 "no bug, run or file" "$HEISEN" timeline --db "$db"
hq check check app.wasm --runs 2 --db "$dir/c.db"
cbug=$("$HEISEN" bugs --db "$dir/c.db" --json | python3 -c '
import json, sys
b = json.load(sys.stdin)["bugs"]
print(b[0]["id"] if b else "")')
if [ -n "$cbug" ]; then
	expect 2 "a race no serial run found" "$HEISEN" timeline "$cbug" --db "$dir/c.db"
	grep -q 'serial' "$dir/err" || bad "a parallel bug: the message does not say why: $(snippet "$dir/err")"
fi
expect 2 "debug without a terminal" "$HEISEN" debug "$bug" --db "$db"
[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = "$before" ] ||
	bad "bad input wrote to the workspace"
finish t_timeline
