#!/usr/bin/env bash
# heisen bisect (docs/debugger.md, "Bisect"): from a failing and a
# passing serial run of lost-update (its lost deposit, exit 1, found by
# explore), the one switch that decides, in at most 2 + ceil(log2 m)
# runs, and the racing read and write it reorders with both stacks; from
# a repro file too, and with --seeds looking for the passing run; bad
# input exits 2 and writes nothing.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
db=$dir/w.db
cp "$root/demos/build/lost-update.wasm" app.wasm

hq ex explore app.wasm --runs 30 --seed 1 --failure exit:1 --db "$db" --json -- check
want ex 0
read -r fail pass <<<"$("$HEISEN" runs 1 --db "$db" --json | python3 -c '
import json, sys
runs = json.load(sys.stdin)["runs"]
f = [r["id"] for r in runs if r["status"] == "exit" and r["exit_code"] == 1]
p = [r["id"] for r in runs if r["status"] == "ok"]
print(f[0] if f else "", p[0] if p else "")')"
[ -n "$fail" ] && [ -n "$pass" ] ||
	{ bad "explore gave no failing and passing runs ($fail, $pass)"; finish t_bisect; }

check_json() {
	python3 - "$1" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.bisect/1"
m = d["differ"]
assert m >= 1 and d["runs"] <= math.ceil(math.log2(max(m, 1))) + 2, (d["runs"], m)
a, b = d["first"], d["second"]
assert a and b, d
assert a["thread"] != b["thread"] and a["address"] == b["address"], (a, b)
assert {a["line"], b["line"]} <= {35, 36} and "write" in (a["kind"], b["kind"]), (a, b)
for x in (a, b):
    assert x["stack"] and x["stack"][0]["function"] == "deposit", x
    assert len(x["stack"]) >= 2, x
print(a["kind"], a["line"], b["kind"], b["line"], d["race"], d["runs"], m)
PY
}

hq bj bisect --fail "$fail" --pass "$pass" --db "$db" --json
want bj 0
got=$(check_json "$dir/bj.out") || bad "bisect --json: $got"
echo "  runs $fail/$pass: $got"
hq bt bisect --fail "$fail" --pass "$pass" --db "$db"
want bt 0
grep -qE '^the deciding switch: at point [0-9]+, reached by thread [0-9]+' "$dir/bt.out" ||
	bad "bisect: no deciding switch line: $(snippet "$dir/bt.out")"
[ "$(grep -cE '^    #0 deposit .*lost-update\.c:3[56]$' "$dir/bt.out")" = 2 ] ||
	bad "bisect: not two stacks in deposit: $(snippet "$dir/bt.out")"

# The failing schedule as a repro file, on its program.
hq save replay --run "$fail" --db "$db" --mode schedule --runs 1 --no-shrink --save "$dir/f.repro"
want save 0
hq bf bisect --fail "$dir/f.repro" --pass "$pass" --db "$db" app.wasm --json
want bf 0
got=$(check_json "$dir/bf.out") || bad "bisect from a repro file: $got"

# --seeds: the passing run looked for.
hq bs bisect --fail "$fail" --seeds 30 --db "$db" --json
want bs 0
python3 - "$dir/bs.out" <<'PY' || bad "bisect --seeds: $(snippet "$dir/bs.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert 1 <= d["seeds_tried"] <= 30 and d["point"] >= 0
PY

# Bad input.
before=$(sqlite3 "$db" 'SELECT count(*) FROM runs')
expect 2 "the same schedule twice" "$HEISEN" bisect --fail "$fail" --pass "$fail" --db "$db"
expect 2 "a failing schedule that passes" "$HEISEN" bisect --fail "$pass" --pass "$fail" --db "$db"
grep -q 'does not fail' "$dir/err" || bad "swapped runs: $(snippet "$dir/err")"
expect 2 "an unknown run" "$HEISEN" bisect --fail 99999 --pass "$pass" --db "$db"
expect 2 "no passing schedule named" "$HEISEN" bisect --fail "$fail" --db "$db"
expect 2 "--pass and --seeds" "$HEISEN" bisect --fail "$fail" --pass "$pass" --seeds 3 --db "$db"
expect 2 "--seeds 0" "$HEISEN" bisect --fail "$fail" --seeds 0 --db "$db"
expect 2 "a bad --failure" "$HEISEN" bisect --fail "$fail" --pass "$pass" --failure exit:x --db "$db"
cp "$root/demos/build/fibonacci.wasm" other.wasm
expect 2 "a repro of another program" "$HEISEN" bisect --fail "$dir/f.repro" --pass "$pass" --db "$db" other.wasm
hq ck check app.wasm --runs 1 --db "$dir/c.db"
expect 2 "a run that was not serial" "$HEISEN" bisect --fail 1 --pass 1 --db "$dir/c.db"
grep -q 'not serial' "$dir/err" || bad "a parallel run: $(snippet "$dir/err")"
[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = "$before" ] ||
	bad "bisect wrote to the workspace"
finish t_bisect
