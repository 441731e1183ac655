#!/usr/bin/env bash
# `heisen factor` and `heisen grid`: on a sweep of a racy demo over two
# profiles, every bug gets F with an interval that holds it and a naive
# F, most heisen first; the same seed gives the same numbers, another
# seed others; one bug alone equals its row in the list; the grid's
# cells are show's, in JSON and CSV, with Phi and X; the budget
# simulation covers each strategy's cells; bad input is exit 2.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 3
db=$dir/w.db
"$HEISEN" sweep "$root/demos/build/fibonacci.wasm" --db "$db" --densities 25:100:25 \
	--runs 5 --profiles default,one-core --seed 4 >/dev/null 2>&1 || bad "sweep failed"
"$HEISEN" factor --db "$db" --json >f1.json 2>f1.err || bad "factor: exit $?: $(snippet f1.err)"
"$HEISEN" factor --db "$db" --json >f2.json || bad "factor again: exit $?"
cmp -s f1.json f2.json || bad "the same seed gave other numbers"
"$HEISEN" factor --db "$db" --json --seed 9 >f3.json || bad "factor --seed: exit $?"
cmp -s f1.json f3.json && bad "another seed gave the same numbers"
python3 - f1.json "$(sqlite3 "$db" 'SELECT count(*) FROM bugs')" <<'PY' || bad "factor JSON: $(snippet f1.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.factor/1" and d["samples"] == 10000
assert d["prior"] == "pooled", d["prior"]
bugs = d["bugs"]
assert len(bugs) == int(sys.argv[2]) > 0, len(bugs)
fs = [b["factor"] for b in bugs]
assert fs == sorted(fs, reverse=True), "not most heisen first"
for b in bugs:
    lo, hi = b["interval"]
    assert 0 <= lo <= b["factor"] <= hi, b
    assert b["cells"] == 8, b["cells"]  # 2 profiles x 4 densities
    assert b["runs"] == 40 and 0 < b["detections"] <= 40, b
    assert b["few"] == (b["detections"] < 10)
    assert b["class"] in ("ordinary", "density-specific", "profile-specific", "random", "few"), b
    assert (b["class"] == "few") == b["few"], b
PY
bug=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bugs"][0]["bug"])' f1.json)
"$HEISEN" factor "$bug" --db "$db" --json >one.json || bad "factor BUG: exit $?"
python3 - f1.json one.json <<'PY' || bad "factor BUG differs from its row in the list"
import json, sys
row = json.load(open(sys.argv[1]))["bugs"][0]
one = json.load(open(sys.argv[2]))["bugs"]
assert one == [row], (one, row)
PY
# The paper's prior: the same bugs, other numbers, named in the JSON.
"$HEISEN" factor --db "$db" --json --prior paper >fp.json || bad "factor --prior paper: exit $?"
python3 - f1.json fp.json <<'PY' || bad "factor --prior paper: $(snippet fp.json)"
import json, sys
pooled, paper = (json.load(open(f)) for f in sys.argv[1:3])
assert paper["prior"] == "paper"
assert sorted(b["bug"] for b in paper["bugs"]) == sorted(b["bug"] for b in pooled["bugs"])
assert [b["factor"] for b in paper["bugs"]] != [b["factor"] for b in pooled["bugs"]]
PY
"$HEISEN" factor --db "$db" >plain.out || bad "plain factor: exit $?"
grep -Eq '^bug +program +kinds +detections +cells +F ' plain.out || bad "plain header: $(snippet plain.out)"
[ "$(grep -c 'fibonacci.c' plain.out)" -eq "$(sqlite3 "$db" 'SELECT count(*) FROM bugs')" ] ||
	bad "plain output: not a row per bug"
for args in "999" "abc" "--samples 5" "--seed -1" "--prior flat"; do
	# shellcheck disable=SC2086
	"$HEISEN" factor $args --db "$db" >b.out 2>b.err
	[ $? -eq 2 ] && [ -s b.err ] && [ ! -s b.out ] || bad "factor $args: not exit 2 with a message"
done
# grid: the same cells as show's JSON, in JSON and CSV; plain text
# folds to the width, and a pipe gets no colour.
"$HEISEN" grid "$bug" --db "$db" --json >g.json || bad "grid --json: exit $?"
"$HEISEN" show "$bug" --db "$db" --json >s.json || bad "show --json: exit $?"
python3 - g.json s.json <<'PY' || bad "grid --json: $(snippet g.json)"
import json, sys
g = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
assert g["schema"] == "heisen.grid/1" and len(g["cells"]) == 8, g
want = sorted((c["profile"], c["density_bp"], c["k"], c["n"]) for c in s["cells"])
got = sorted((c["profile"], c["density_bp"], c["detected"], c["runs"]) for c in g["cells"])
assert got == want, (got, want)
for c in g["cells"]:
    d = c["density_bp"] / 10000
    phi = d if g["same_site"] else d * d
    assert abs(c["phi"] - phi) < 1e-12 and abs(c["observability"] - c["detectability"] / phi) < 1e-9
PY
"$HEISEN" grid "$bug" --db "$db" --csv >g.csv || bad "grid --csv: exit $?"
[ "$(head -1 g.csv)" = "node,profile,density_pct,detected,runs,detectability,phi,observability" ] &&
	[ "$(wc -l <g.csv)" -eq 9 ] || bad "grid --csv: $(snippet g.csv)"
"$HEISEN" grid "$bug" --db "$db" >g.txt || bad "grid: exit $?"
grep -q $'\033' g.txt && bad "grid into a pipe has colour codes"
[ "$(grep -c '^  profile ' g.txt)" -eq 1 ] && grep -Eq '^  one-core +[0-9]+/5 ' g.txt ||
	bad "grid text: $(snippet g.txt)"
"$HEISEN" grid "$bug" --db "$db" --csv --json >/dev/null 2>&1
[ $? -eq 2 ] || bad "grid --csv --json: not exit 2"
"$HEISEN" grid 999 --db "$db" >/dev/null 2>&1
[ $? -eq 2 ] || bad "grid of an unknown bug: not exit 2"
# simulate: every strategy on the two-profile sweep; one profile's
# strategies draw fewer cells than the diverse ones.
"$HEISEN" simulate --db "$db" --budget 0.5 --trials 500 --json >sim.json ||
	bad "simulate: exit $?"
python3 - sim.json <<'PY' || bad "simulate --json: $(snippet sim.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.simulate/1" and d["trials"] == 500 and d["recorded_runs"] == 40
st = {s["strategy"]: s for s in d["strategies"]}
assert list(st) == ["homogeneous", "density", "profile", "both"]
assert [st[k]["cells"] for k in st] == [1, 4, 2, 8], [st[k]["cells"] for k in st]
for s in st.values():
    assert not s["empty"] and s["p5"] <= s["p95"] <= d["bugs"] and 0 <= s["mean"] <= d["bugs"]
    assert all(0 <= b["probability"] <= 1 for b in s["found"])
PY
"$HEISEN" simulate --db "$db" --strategies both,homogeneous --trials 100 >sim.txt ||
	bad "simulate --strategies: exit $?"
grep -q '^  both ' sim.txt && ! grep -q '^  density ' sim.txt || bad "simulate --strategies: $(snippet sim.txt)"
for args in "--strategies sideways" "--profile nosuch" "--program nosuch.wasm" "--trials 0"; do
	# shellcheck disable=SC2086
	"$HEISEN" simulate $args --db "$db" >/dev/null 2>b.err
	[ $? -eq 2 ] && [ -s b.err ] || bad "simulate $args: not exit 2 with a message"
done
# plot: well-formed SVG carrying the numbers of grid, factor, simulate.
"$HEISEN" plot grid "$bug" -o grid.svg --db "$db" >/dev/null || bad "plot grid: exit $?"
"$HEISEN" plot factor -o factor.svg --db "$db" >/dev/null || bad "plot factor: exit $?"
"$HEISEN" plot simulate -o sim.svg --db "$db" --budget 0.5 --trials 500 >/dev/null ||
	bad "plot simulate: exit $?"
python3 - g.json f1.json sim.json <<'PY' || bad "plots do not carry the numbers"
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
g, f, sim = (json.load(open(p)) for p in sys.argv[1:4])
cells = {(r.get("data-profile"), int(r.get("data-density-bp"))): (int(r.get("data-k")), int(r.get("data-n")))
         for r in ET.parse("grid.svg").iter(ns + "rect") if r.get("data-k") is not None}
assert cells == {(c["profile"], c["density_bp"]): (c["detected"], c["runs"]) for c in g["cells"]}, cells
bugs = [x for x in ET.parse("factor.svg").iter(ns + "g") if x.get("data-bug")]
assert [int(x.get("data-bug")) for x in bugs] == [b["bug"] for b in f["bugs"]]
for x, b in zip(bugs, f["bugs"]):
    assert abs(float(x.get("data-factor")) - b["factor"]) <= 1e-5 * max(1, b["factor"])
strat = [x.get("data-strategy") for x in ET.parse("sim.svg").iter(ns + "g") if x.get("data-strategy")]
assert strat == ["homogeneous", "density", "profile", "both"], strat
PY
for args in "grid -o x.svg" "factor" "bars -o x.svg" "factor $bug -o x.svg"; do
	# shellcheck disable=SC2086
	"$HEISEN" plot $args --db "$db" >/dev/null 2>b.err
	[ $? -eq 2 ] && [ -s b.err ] || bad "plot $args: not exit 2 with a message"
done
[ -e x.svg ] && bad "a refused plot wrote its file"
"$HEISEN" factor --db "$dir/none.db" >/dev/null 2>&1
[ $? -eq 2 ] || bad "factor on a missing workspace: not exit 2"
finish t_factor
