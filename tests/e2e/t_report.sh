#!/usr/bin/env bash
# Race reports (docs/detection.md "A race report"):
#   (a) a collision keeps both accesses' call stacks: after a small serial
#       sweep of demos/helper-race.c, whose racing lines sit in credit(), called
#       by one thread through pay_rent() and by the other through
#       pay_wages(), `heisen show` of each bug has both stacks from one
#       run, frame 0 at the site's line, one through each caller;
#   (b) the value evidence: some bug shows "Value changed while thread N
#       waited: OLD -> NEW", and its JSON value says the bytes differ;
#   (c) every bug of a few racy demos: a stack's frame 0 is its site, and
#       some bug of each demo has both stacks from one run; what a
#       sampled (parallel) sweep kept is right;
#   (d) `heisen run --schedule --density` prints the same race text and
#       its JSON has the stacks and values; a sampled run's are right.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
build=$root/demos/build

# sweep DB PROGRAM [SCHEDULE]: 8 runs at density 100, serial under
# SCHEDULE (default random): an armed thread sleeps while the other
# runs, so collisions, both stacks and the values they saw do not depend
# on the load of the machine; "sampled" runs them in parallel instead.
sweep() {
	local serial=(--schedule "${3:-random}")
	[ "${3:-}" = sampled ] && serial=(--profiles default)
	"$HEISEN" sweep "$build/$2.wasm" --db "$1" --densities 100 --runs 8 \
		"${serial[@]}" --seed 7 --timeout 60 >"$dir/sweep.out" 2>"$dir/sweep.err" ||
		bad "$2: sweep exit $?: $(snippet "$dir/sweep.err")"
}


# ---- (a), (b) helper-race -----------------------------------------------------

hb_check() {
	python3 - "$dir" >"$dir/hb.why" 2>&1 <<'EOF'
import glob, json, os, re, sys
docs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/show.*.json"))]
assert len(docs) == 4, "%d bugs, want 4" % len(docs)
changed = 0
for d in docs:
    s = d["sites"]
    runs = {x["stack_run"] for x in s}
    assert len(runs) == 1 and 0 not in runs, "bug %d: stacks from runs %s" % (d["id"], runs)
    callers = set()
    for x in s:
        st = x["stack"]
        assert st[0]["function"] == "credit", st[0]
        assert st[0]["line"] == x["line"], (st[0], x["line"])
        assert os.path.basename(st[0]["file"]) == "helper-race.c", st[0]
        callers.add(st[1]["function"])
    assert callers == {"pay_rent", "pay_wages"}, "bug %d: callers %s" % (d["id"], callers)
    for ex in d["examples"]:
        v = ex["value"]
        if v and v["changed"]:
            assert v["before"] != v["after"] and len(v["before"]) == 8, v
            changed += 1
assert changed, "no example run saw a value change"
for p in glob.glob(sys.argv[1] + "/show.*.txt"):
    t = open(p).read()
    assert t.count("WARNING: heisen: data race") == 1, p
    assert re.search(r"^  (Read|Write) of size 4 at 0x[0-9a-f]{8} by thread \d+:$", t, re.M), p
    assert re.search(r"^  Concurrent (read|write) of size 4 at 0x[0-9a-f]{8} by thread \d+:$", t, re.M), p
    assert re.search(r"^    #1 pay_rent .*helper-race.c:\d+$", t, re.M), p
    assert re.search(r"^    #1 pay_wages .*helper-race.c:\d+$", t, re.M), p
    assert re.search(r"^SUMMARY: heisen: data race \S+helper-race.c:2[45] in credit$", t, re.M), p
texts = "".join(open(p).read() for p in glob.glob(sys.argv[1] + "/show.*.txt"))
assert re.search(r"^  Value changed while thread \d+ waited: 0x[0-9a-f]{8} -> 0x[0-9a-f]{8}$", texts, re.M), "no value-changed line"
EOF
}
sweep "$dir/h.db" helper-race
show_bugs "$dir/h.db"
hb_check || bad "helper-race: the reports' stacks or values are wrong: $(snippet "$dir/hb.why")"

# ---- (c) other racy demos ------------------------------------------------------

# stacks_check NAME [any]: every stack's frame 0 is its site; unless
# "any", some bug kept both stacks of one run.
stacks_check() {
	python3 - "$dir" "${2:-}" <<'EOF' || bad "$1: the reports' stacks are wrong"
import glob, json, sys
docs = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/show.*.json")]
assert docs or sys.argv[2] == "any", "no bug"
pairs = 0
for d in docs:
    for x in d["sites"]:
        if x["stack"]:
            f = x["stack"][0]
            assert (f["function"], f["line"]) == (x["function"], x["line"]), (f, x)
    for ex in d["examples"]:
        v = ex["value"]
        if v and v["changed"]:
            assert v["before"] != v["after"], v
    pairs += d["sites"][0]["stack_run"] == d["sites"][1]["stack_run"] != 0
assert pairs or sys.argv[2] == "any", "no bug kept both stacks of one run"
EOF
}
for name in fibonacci lost-update lock-free-queue; do
	rm -f "$dir/d.db"*
	sweep "$dir/d.db" "$name" pct:3
	show_bugs "$dir/d.db"
	stacks_check "$name"
done
# Sampled (parallel) runs keep both stacks only when the armed thread is
# asked before its window closes, which a loaded machine may deny every
# run: what they kept must still be right.
rm -f "$dir/d.db"*
sweep "$dir/d.db" helper-race sampled
show_bugs "$dir/d.db"
stacks_check "helper-race (sampled)" any

# ---- (d) heisen run --density -----------------------------------------------------

# Serial: the armed thread sleeps while the other runs, so the run
# collides and keeps both stacks whatever the load of the machine.
serial=(--schedule random --schedule-seed 1 --density 100 --seed 3)
"$HEISEN" run "$build/helper-race.wasm" "${serial[@]}" >"$dir/run.prog" 2>"$dir/run.txt" ||
	bad "run --density: exit $?: $(snippet "$dir/run.txt")"
grep -q '^WARNING: heisen: data race (violation 1 of ' "$dir/run.txt" ||
	bad "run --density: no race text: $(snippet "$dir/run.txt")"
grep -Eq '^    #1 pay_(rent|wages) ' "$dir/run.txt" ||
	bad "run --density: no caller frame: $(snippet "$dir/run.txt")"
grep -q '^heisen: schedule random:0.05 seed 0x0000000000000001: [0-9]* points, [0-9]* switches, digest [0-9a-f]*; density 100.00% seed 0x0000000000000003: [0-9]* of [0-9]* sites armed; ok 0 in ' "$dir/run.txt" ||
	bad "run --schedule --density: its first line: $(snippet "$dir/run.txt")"
"$HEISEN" run "$build/helper-race.wasm" "${serial[@]}" --json >"$dir/run.json" 2>/dev/null ||
	bad "run --density --json: exit $?"
python3 - "$dir/run.json" <<'EOF' || bad "run --density --json: no stacks or values: $(snippet "$dir/run.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schedule"]["strategy"] == "random:0.05" and d["density_bp"] == 10000, d
assert d["seed"] == "0000000000000003" and d["delay"] == 50, d
vs = d["violations"]
assert [v for v in vs if all(s["stack"] for s in v["sites"])], "no violation with both stacks"
for v in vs:
    assert "value" in v
    for s in v["sites"]:
        if s["stack"]:
            assert s["stack"][0]["line"] == s["line"], s
EOF
# Sampled: what a run kept must be right, whatever it kept.
"$HEISEN" run "$build/helper-race.wasm" --density 100 --seed 3 --json >"$dir/run.json" 2>/dev/null ||
	bad "run --density --json (sampled): exit $?"
python3 - "$dir/run.json" <<'EOF' || bad "run --density --json (sampled): $(snippet "$dir/run.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert "schedule" not in d and d["density_bp"] == 10000, d
for v in d["violations"]:
    for s in v["sites"]:
        if s["stack"]:
            assert s["stack"][0]["line"] == s["line"], s
EOF

finish t_report
