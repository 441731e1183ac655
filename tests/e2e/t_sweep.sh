#!/usr/bin/env bash
# Detection end to end: a default sweep (20 densities x every profile x 5
# runs, 400 runs) of each racy demo reports every race its header names
# ("* race: a.c:12 a.c:14"), mapped to those lines; each race-free
# control has no bug in 2000 runs over the profiles. One profile alone
# gets 5 runs a cell too.
. "$(dirname "$0")/lib.sh"
need_demos

# The races a demo's header names, one "file:line file:line" per line.
# comp-bug.c serves two builds: "race-O2:" lines belong to the -O2 one,
# "race-O0:" lines to the -O0 one, plain "race:" lines to both.
races_of() {
	local src=$1 tag=$2
	sed -n "s/^ \* \(race\|$tag\): *//p" "$src"
}

# check_found NAME SWEEP_JSON RACES: every race of RACES is among the
# program's bugs (unordered pair of basename:line).
check_found() {
	python3 - "$1" "$2" "$3" <<'EOF' || bad "$1: intended race(s) not reported"
import json, os, sys
name, path, races = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(path))
got = set()
for b in doc["program_bugs"]:
    ends = []
    for s in b["sites"]:
        ends.append("%s:%s" % (os.path.basename(s["file"] or "?"), s["line"]))
    got.add(frozenset(ends))
missing = []
for r in races.strip().splitlines():
    want = frozenset(r.split())
    if want not in got:
        missing.append(r)
if missing:
    print("  %s: not found: %s; reported: %s" % (
        name, missing, sorted(" ".join(sorted(g)) for g in got)))
    sys.exit(1)
EOF
}

db="$dir/w.db"
for name in fibonacci fibonacci-lock lock-free-queue antidep indirectaccess \
	comp-opt-bug comp-unopt-bug input-dep; do
	src="$root/demos/$name.c" tag=race
	case $name in
	comp-opt-bug) src="$root/demos/comp-bug.c" tag=race-O2 ;;
	comp-unopt-bug) src="$root/demos/comp-bug.c" tag=race-O0 ;;
	esac
	races=$(races_of "$src" "$tag")
	[ -n "$races" ] || { bad "$name: no 'race:' lines in $src"; continue; }
	args=$(sed -n 's/^ \* args: *//p' "$src")
	# shellcheck disable=SC2086
	"$HEISEN" sweep "$root/demos/build/$name.wasm" --db "$db" --seed 1 \
		--json -- $args >"$dir/$name.json" 2>"$dir/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name: sweep exit $rc: $(snippet "$dir/$name.err")"
		continue
	fi
	check_found "$name" "$dir/$name.json" "$races"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.sweep/1" and d["status"] == "done", d
assert d["done"] == d["planned"] == 400 and d["cells"] == 80, d
' "$dir/$name.json" || bad "$name: sweep summary is not 400 runs over 80 cells"
done

# Those default campaigns: 5 runs a cell, every profile 'heisen profiles'
# lists, in its order.
"$HEISEN" profiles --json >"$dir/profiles.json" || bad "profiles --json: exit $?"
"$HEISEN" campaigns --db "$db" --json >"$dir/camps.json" || bad "campaigns --json: exit $?"
python3 - "$dir/profiles.json" "$dir/camps.json" <<'EOF' || bad "the default sweep is not 5 runs a cell over every profile"
import json, sys
names = [p["name"] for p in json.load(open(sys.argv[1]))["profiles"]]
assert names == ["default", "one-core", "throttled", "noisy"], names
camps = json.load(open(sys.argv[2]))["campaigns"]
assert len(camps) == 8, len(camps)
for c in camps:
    assert c["profiles"] == names, c
    assert c["runs_per_cell"] == 5 and c["runs_planned"] == 400, c
EOF

# --profiles without --runs: still 5 a cell.
"$HEISEN" sweep "$root/demos/build/control-mutex.wasm" --db "$dir/one.db" \
	--profiles default --densities 50,100 --json >"$dir/one.json" 2>"$dir/one.err" ||
	bad "--profiles default: sweep exit $?: $(snippet "$dir/one.err")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["done"] == d["planned"] == 10 and d["cells"] == 2, d
' "$dir/one.json" || bad "--profiles default, no --runs: not 5 runs a cell: $(snippet "$dir/one.json")"

for name in control-mutex control-barrier control-atomics; do
	"$HEISEN" sweep "$root/demos/build/$name.wasm" --db "$db" --seed 2 \
		--runs 25 --json >"$dir/$name.json" 2>"$dir/$name.err" ||
		{ bad "$name: sweep failed: $(snippet "$dir/$name.err")"; continue; }
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["done"] == 2000 and d["cells"] == 80, "runs: %d, cells: %d" % (d["done"], d["cells"])
assert d["statuses"]["ok"] == 2000, "statuses: %s" % d["statuses"]
assert d["campaign_bugs"] == 0, "bugs: %s" % d["program_bugs"]
' "$dir/$name.json" || bad "$name: expected 0 bugs in 2000 runs: $(snippet "$dir/$name.json")"
done

# --plan-slice: three slices of one plan (same seed) hold the plan's runs
# exactly once, with the indices and seeds of the whole campaign.
fib=$root/demos/build/fibonacci.wasm
plan=(--seed 7 --runs 3 --densities 10,100 --profiles default,noisy --jobs 2)
hq whole sweep "$fib" "${plan[@]}" --db "$dir/whole.db"
want whole 0
for i in 0 1 2; do
	hq slice$i sweep "$fib" "${plan[@]}" --plan-slice $i/3 --origin t:1:2 --db "$dir/sliced.db"
	want slice$i 0
done
q="SELECT idx, seed, profile, density_bp FROM runs ORDER BY idx"
[ "$(sqlite3 "$dir/whole.db" "$q")" = "$(sqlite3 "$dir/sliced.db" "$q")" ] ||
	bad "slices do not make up the plan"
[ "$(sqlite3 "$dir/sliced.db" "SELECT count(*) || ' ' || min(status) || ' ' || min(origin) FROM campaigns")" = "1 done t:1:2" ] ||
	bad "slices: $(sqlite3 "$dir/sliced.db" "SELECT * FROM campaigns")"
hq noseed sweep "$fib" --plan-slice 0/2 --db "$dir/noseed.db"
want noseed 2
hq badslice sweep "$fib" --seed 1 --plan-slice 2/2 --db "$dir/noseed.db"
want badslice 2
[ ! -e "$dir/noseed.db" ] || bad "a refused slice left a workspace"

finish t_sweep
