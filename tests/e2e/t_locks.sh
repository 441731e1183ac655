#!/usr/bin/env bash
# The locks each access of a race held (docs/detection.md, "Locks held"),
# with guests of tests/e2e/guests/:
#   (a) locks-two under `heisen check` (1 run): every race lists thread
#       one's rwlock (read) and mutex `left` on its access and thread
#       two's spin lock (in a heap block) and mutex `right` on the other,
#       in text ("mutexes: read M1, write M2", a Mutex line per lock with
#       its location and first use) and in --json; the same under three
#       serial schedules, where the threads share an OS thread;
#   (b) locks-some-paths under check: thread two skips the shared mutex
#       on odd rounds; only that path races, and its access lists no lock
#       while the other lists `guard`;
#   (c) locks-two under a sweep (collisions: both threads' sets at the
#       collision): `show` as text and JSON, SARIF, and the locks survive
#       an export and import into another workspace;
#   (d) the TUI's bug screen lists them.
. "$(dirname "$0")/lib.sh"
tmux_session locks
cd "$dir" || exit 1
unset HEISEN_DB

build=$root/demos/build/guests

# ---- (a) two threads, different locks ------------------------------------

hq two check "$build/locks-two.wasm" --db "$dir/two.db" --json
want two 0
python3 - "$dir/two.out" <<'PY' || bad "locks-two --json: $(snippet "$dir/two.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["races"], "no race"
for r in d["races"]:
    by = {s["function"]: s for s in r["sites"]}
    one, two = by["one"], by["two"]
    got = [(l["type"], l["mode"], (l["location"] or {}).get("name")) for l in one["locks"]]
    assert got == [("rwlock", "read", "table"), ("mutex", "write", "left")], got
    assert one["locks_held"] == 2
    got = [(l["type"], l["mode"], (l["location"] or {}).get("kind")) for l in two["locks"]]
    assert got == [("spinlock", "write", "heap"), ("mutex", "write", "global")], got
    assert two["locks"][1]["location"]["name"] == "right"
    ids = [l["id"] for l in one["locks"] + two["locks"]]
    assert sorted(ids) == ["M1", "M2", "M3", "M4"], ids
    for l in one["locks"] + two["locks"]:
        fs = [f["function"] for f in l["first"]["stack"]]
        assert ("one" in fs) != ("two" in fs), fs
    assert two["locks"][0]["location"]["stack"], "no allocation stack"
PY
# The same under serial schedules: both threads share one OS thread
# there, and each keeps its own locks across the switches.
for seed in 1 2 3; do
	hq "two-serial$seed" check "$build/locks-two.wasm" --schedule random:0.2 \
		--schedule-seed "$seed" --db "$dir/two.db" --json
	want "two-serial$seed" 0
	python3 - "$dir/two-serial$seed.out" <<'PY' || bad "locks-two serial (seed $seed): $(snippet "$dir/two-serial$seed.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["races"], "no race"
for r in d["races"]:
    by = {s["function"]: s for s in r["sites"]}
    got = [(l["type"], l["mode"]) for l in by["one"]["locks"]]
    assert got == [("rwlock", "read"), ("mutex", "write")], got
    got = [(l["type"], l["mode"]) for l in by["two"]["locks"]]
    assert got == [("spinlock", "write"), ("mutex", "write")], got
PY
done
hq twotext check "$build/locks-two.wasm" --db "$dir/two.db"
want twotext 0
grep -Eq "by thread [0-9]+ \(mutexes: read M[0-9], write M[0-9]\):" "$dir/twotext.out" ||
	bad "no rwlock+mutex access line: $(snippet "$dir/twotext.out")"
grep -Eq "by thread [0-9]+ \(mutexes: write M[0-9], write M[0-9]\):" "$dir/twotext.out" ||
	bad "no spinlock+mutex access line: $(snippet "$dir/twotext.out")"
for want_line in "is a mutex at 0x[0-9a-f]{8}, global 'left' \(size" \
	"is a rwlock at 0x[0-9a-f]{8}, global 'table'" \
	"is a spinlock at 0x[0-9a-f]{8}, heap block \(size 4\) allocated by thread 0 at:" \
	"Mutex M[0-9] first taken by thread [0-9]+ at:"; do
	grep -Eq "$want_line" "$dir/twotext.out" ||
		bad "no /$want_line/ in check's text: $(snippet "$dir/twotext.out")"
done

# ---- (b) a lock shared on some paths only --------------------------------

src=$root/tests/e2e/guests/locks-some-paths.c
locked=$(grep -n "race: locked" "$src" | cut -d: -f1)
unlocked=$(grep -n "race: unlocked" "$src" | cut -d: -f1)
# Serial, under a schedule that switches often: thread one cannot finish
# before thread two starts (its lock would then order every later access),
# whatever the machine's load.
hq some check "$build/locks-some-paths.wasm" --schedule random:0.1 --schedule-seed 1 --db "$dir/some.db" --json
want some 0
python3 - "$dir/some.out" "$locked" "$unlocked" <<'PY' || bad "locks-some-paths: $(snippet "$dir/some.out")"
import json, sys
d = json.load(open(sys.argv[1]))
locked, unlocked = int(sys.argv[2]), int(sys.argv[3])
assert d["races"], "no race"
for r in d["races"]:
    lines = {s["line"]: s for s in r["sites"]}
    assert set(lines) == {locked, unlocked}, lines.keys()
    assert [l["location"]["name"] for l in lines[locked]["locks"]] == ["guard"]
    assert lines[unlocked]["locks"] == [] and lines[unlocked]["locks_held"] == 0
PY

# ---- (c) collisions ------------------------------------------------------

hq sweep sweep "$build/locks-two.wasm" --runs 8 --densities 100 --profiles default --db "$dir/sweep.db"
want sweep 0
show_bugs "$dir/sweep.db"
n=0
for j in "$dir"/show.*.json; do
	[ -e "$j" ] || continue
	python3 - "$j" <<'PY' && n=$((n + 1))
import json, sys
d = json.load(open(sys.argv[1]))
by = {s["function"]: s for s in d["sites"]}
assert [l["type"] for l in by["one"]["locks"]] == ["rwlock", "mutex"]
assert [l["type"] for l in by["two"]["locks"]] == ["spinlock", "mutex"]
PY
done
[ "$n" -ge 1 ] || bad "no collision kept both threads' locks: $(cat "$dir"/show.*.txt | head -c 600)"
grep -lqE "Concurrent .*\(mutexes: write M[0-9], write M[0-9]\):" "$dir"/show.*.txt ||
	bad "no collision's text lists the second thread's locks"
"$HEISEN" bugs --db "$dir/sweep.db" --format sarif >"$dir/sarif.json" ||
	bad "bugs --format sarif: exit $?"
python3 - "$dir/sarif.json" <<'PY' || bad "SARIF: no thread flow names the locks"
import json, sys
d = json.load(open(sys.argv[1]))
msgs = [tf["message"]["text"] for r in d["runs"][0]["results"]
        for tf in r["codeFlows"][0]["threadFlows"]]
assert any("holding read M1 (rwlock at" in m and "global 'table'" in m for m in msgs), msgs
assert any("spinlock at" in m and "heap block" in m for m in msgs), msgs
PY
"$HEISEN" export --db "$dir/sweep.db" >"$dir/stream" 2>/dev/null || bad "export: exit $?"
"$HEISEN" import "$dir/stream" --db "$dir/copy.db" >/dev/null 2>"$dir/import.err" ||
	bad "import: $(snippet "$dir/import.err")"
for b in $("$HEISEN" bugs --db "$dir/sweep.db" --json | python3 -c '
import json, sys
print(" ".join(str(b["id"]) for b in json.load(sys.stdin)["bugs"]))'); do
	"$HEISEN" show "$b" --db "$dir/sweep.db" --json | python3 -c '
import json, sys; print([s["locks"] for s in json.load(sys.stdin)["sites"]])' >"$dir/a.locks"
	"$HEISEN" show "$b" --db "$dir/copy.db" --json | python3 -c '
import json, sys; print([s["locks"] for s in json.load(sys.stdin)["sites"]])' >"$dir/b.locks"
	cmp -s "$dir/a.locks" "$dir/b.locks" || bad "bug $b: locks differ after export and import"
done

# ---- (d) the TUI's bug screen --------------------------------------------

tm new-session -d -s tui -x 200 -y 50 "$heisen tui --db $dir/two.db; sleep 30" || bad "tmux failed"
wait_for "locks-two" "campaigns screen"
tm send-keys -t tui 2
wait_for "Bugs" "bugs screen"
tm send-keys -t tui Enter
wait_for "held mutexes: read M[0-9], write M[0-9]" "bug screen's locks" &&
	wait_for "Mutex M[0-9] is a spinlock at 0x[0-9a-f]{8}, heap block" "bug screen's Mutex line"

finish t_locks
