#!/usr/bin/env bash
# Race reports (docs/detection.md "A race report"):
#   (a) a collision keeps both accesses' call stacks: after a small sweep
#       of demos/helper-race.c, whose racing lines sit in credit(), called
#       by one thread through pay_rent() and by the other through
#       pay_wages(), `heisen show` of each bug has both stacks from one
#       run, frame 0 at the site's line, one through each caller;
#   (b) the value evidence: some bug shows "Value changed while thread N
#       waited: OLD -> NEW", and its JSON value says the bytes differ;
#   (c) every bug of a few racy demos: a stack's frame 0 is its site, and
#       some bug of each demo has both stacks from one run;
#   (d) `heisen run --density` prints the same race text and its JSON has
#       the stacks and values.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
build=$root/demos/build

sweep() { # DB PROGRAM [SEED]
	"$HEISEN" sweep "$build/$2.wasm" --db "$1" --densities 100 --runs 8 \
		--profiles default --seed "${3:-7}" --timeout 60 >"$dir/sweep.out" 2>"$dir/sweep.err" ||
		bad "$2: sweep exit $?: $(snippet "$dir/sweep.err")"
}


# ---- (a), (b) helper-race -----------------------------------------------------

# A collision keeps both stacks only when the armed thread is asked
# before its window closes, and a value change is seen only when the
# other thread's write lands in it: a loaded machine makes a campaign
# without them likelier, not right. Another campaign then; the checks
# fail only when four miss.
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
for seed in 7 8 9 10; do
	rm -f "$dir/h.db"*
	sweep "$dir/h.db" helper-race "$seed"
	show_bugs "$dir/h.db"
	hb_check && break
	echo "  helper-race, seed $seed: $(snippet "$dir/hb.why")"
	[ "$seed" -eq 10 ] && bad "helper-race: the reports' stacks or values are wrong in 4 campaigns: $(snippet "$dir/hb.why")"
done

# ---- (c) other racy demos ------------------------------------------------------

for name in fibonacci lost-update lock-free-queue; do
	rm -f "$dir/d.db"*
	# Another campaign while no run kept both stacks of a collision (the
	# armed thread must be asked before its window closes: a loaded
	# machine makes that rarer, not wrong).
	for seed in 7 8 9 10 11 12 13 14; do
		sweep "$dir/d.db" "$name" "$seed"
		[ "$(sqlite3 "$dir/d.db" "SELECT count(*) FROM run_bugs WHERE stack_a IS NOT NULL AND stack_b IS NOT NULL")" -gt 0 ] && break
	done
	show_bugs "$dir/d.db"
	python3 - "$dir" "$name" <<'EOF' || bad "$name: the reports' stacks are wrong"
import glob, json, sys
docs = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/show.*.json")]
assert docs, "no bug"
pairs = 0
for d in docs:
    for x in d["sites"]:
        if x["stack"]:
            f = x["stack"][0]
            assert (f["function"], f["line"]) == (x["function"], x["line"]), (f, x)
    pairs += d["sites"][0]["stack_run"] == d["sites"][1]["stack_run"] != 0
assert pairs, "no bug kept both stacks of one run"
EOF
done

# ---- (d) heisen run --density -----------------------------------------------------

# A sampled run collides only when the two threads overlap (about 9 runs
# in 10 here): the text is checked on the first of a few seeds that does.
for seed in 3 4 5 6; do
	"$HEISEN" run "$build/helper-race.wasm" --density 100 --seed $seed >"$dir/run.prog" 2>"$dir/run.txt" ||
		bad "run --density: exit $?: $(snippet "$dir/run.txt")"
	grep -q '^WARNING: heisen: data race (violation 1 of ' "$dir/run.txt" && break
	[ "$seed" -eq 6 ] && bad "run --density: no race text in 4 runs: $(snippet "$dir/run.txt")"
done
grep -Eq '^    #1 pay_(rent|wages) ' "$dir/run.txt" ||
	bad "run --density: no caller frame: $(snippet "$dir/run.txt")"
# One run catches the armed access's stack only when its thread is asked
# before its delay window closes: on a loaded machine (an ASan build
# beside other jobs) a given seed may not; some seed of a few does.
got=0
for seed in 3 4 5 6 7 8 9 10; do
	"$HEISEN" run "$build/helper-race.wasm" --density 100 --seed $seed --json >"$dir/run.json" 2>/dev/null ||
		bad "run --density --json: exit $?"
	python3 - "$dir/run.json" <<'EOF' || bad "run --density --json: no stacks or values"
import json, sys
d = json.load(open(sys.argv[1]))
vs = d["violations"]
for v in vs:
    assert "value" in v
    for s in v["sites"]:
        if s["stack"]:
            assert s["stack"][0]["line"] == s["line"], s
EOF
	python3 -c 'import json, sys
vs = json.load(open(sys.argv[1]))["violations"]
sys.exit(0 if [v for v in vs if all(s["stack"] for s in v["sites"])] else 1)' "$dir/run.json" &&
		{ got=1; break; }
done
[ "$got" -eq 1 ] || bad "run --density --json: no violation with both stacks in 8 runs"

finish t_report
