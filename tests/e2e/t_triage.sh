#!/usr/bin/env bash
# Bugs across builds (docs/triage.md), on demos/lost-update.c built twice,
# the second time with an unrelated function added at the top of the file
# (every line of deposit() moves down):
#   (a) the second build's bugs (check and sweep) have the signatures of
#       the first build's, at the moved lines, and carry their triage
#       state; bugs --program NAME lists each signature once over both
#       builds; diff of the two checks: nothing new, nothing gone;
#   (b) triage: states and notes, history, bad state / bug / --note alone
#       are exit 2;
#   (c) --fail-on-bugs exit codes: no bugs (0), only suppressed bugs (0),
#       new bugs (1 with new and any), known-confirmed bugs (0 with new,
#       1 with any), a fixed bug that is back (1 with new); on check,
#       sweep, run and bugs; a bad value is 2.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
command -v python3 >/dev/null || skip "python3 missing (make deps)"

# The bugs campaign ID's runs detected: a sweep's gate fails only then
# (collisions are sampled: a loaded machine may see none in a few runs).
camp_bugs() {
	"$HEISEN" campaigns --json | python3 -c 'import json, sys
print([c["bugs"] for c in json.load(sys.stdin)["campaigns"] if c["id"] == int(sys.argv[1])][0])' "$1"
}
pycheck() { # NAME SCRIPT: SCRIPT sees the JSON of NAME.out as d
	python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
$2" "$dir/$1.out" >"$dir/py.err" 2>&1 ||
		bad "$1: JSON check failed: $(snippet "$dir/py.err")"
}

mkdir -p v1 v2
cp "$root/demos/lost-update.c" v1/lost-update.c
{
	printf '/* added above everything: moves every line below */\n'
	printf 'static int unrelated(int x)\n{\n\treturn 3 * x + 1;\n}\n\n'
	printf 'int use_unrelated(int x) { return unrelated(x); }\n\n'
	cat "$root/demos/lost-update.c"
} >v2/lost-update.c
shift_by=$(($(wc -l <v2/lost-update.c) - $(wc -l <v1/lost-update.c)))
for v in v1 v2; do
	hq cc_$v cc -g -O1 -Wall -o $v/lost-update.wasm $v/lost-update.c
	want cc_$v 0
done
cmp -s v1/lost-update.wasm v2/lost-update.wasm && bad "the two builds are the same binary"

# ---- (a) the first build, then the second -------------------------------
hq check1 check v1/lost-update.wasm --runs 2 --json --fail-on-bugs new
want check1 1
hq sweep1 sweep v1/lost-update.wasm --densities 100 --runs 6 --profiles default --jobs 2 --fail-on-bugs new
want sweep1 $(($(camp_bugs 2) > 0))
hq bugs1 bugs --program 1 --json
want bugs1 0
pycheck bugs1 '
assert len(d["bugs"]) >= 2, d
for b in d["bugs"]:
    assert len(b["signature"]) == 16 and b["state"] == "new" and b["builds"] == 1, b
'
python3 -c 'import json,sys
for b in json.load(open(sys.argv[1]))["bugs"]:
    print(b["id"], b["signature"], b["sites"][0]["line"], b["sites"][1]["line"])' \
	"$dir/bugs1.out" >v1.bugs
[ -s v1.bugs ] || bad "no bugs in the first build"

# Triage every bug of the first build: confirmed, with a note on the first.
first=$(head -1 v1.bugs | cut -d' ' -f1)
while read -r id sig la lb; do
	hq tri_$id triage "$id" confirmed --note "seen in v1 ($sig)"
	want tri_$id 0
done <v1.bugs
hq tri_show triage "$first" --json
want tri_show 0
pycheck tri_show '
assert d["schema"] == "heisen.triage/1" and d["state"] == "confirmed", d
h = d["history"]
assert len(h) == 1 and h[0]["state"] == "confirmed" and h[0]["note"].startswith("seen in v1"), h
'

# The second build: known-confirmed bugs pass the new gate, not the any gate.
hq check2 check v2/lost-update.wasm --runs 2 --fail-on-bugs new
want check2 0
grep -q "WARNING: heisen: data race" "$dir/check2.out" ||
	bad "check of v2 reported no race: $(snippet "$dir/check2.out")"
hq check2any check v2/lost-update.wasm --runs 1 --fail-on-bugs any
want check2any 1
hq check2plain check v2/lost-update.wasm --runs 1 --fail-on-bugs
want check2plain 1
hq sweep2 sweep v2/lost-update.wasm --densities 100 --runs 6 --profiles default --jobs 2 --fail-on-bugs=new
want sweep2 0
hq sweep2any sweep v2/lost-update.wasm --densities 100 --runs 6 --profiles default --jobs 2 --fail-on-bugs
want sweep2any $(($(camp_bugs 7) > 0))
hq bugs2 bugs --program 2 --json
want bugs2 0
python3 -c 'import json,sys
old = {}
for line in open(sys.argv[2]):
    i, s, a, b = line.split()
    old[s] = (int(a), int(b))
shift = int(sys.argv[3])
bugs = json.load(open(sys.argv[1]))["bugs"]
assert bugs, "no bugs in the second build"
for b in bugs:
    s = b["signature"]
    assert s in old, ("a v2 bug with no v1 signature", b, old)
    lines = (b["sites"][0]["line"], b["sites"][1]["line"])
    assert lines == (old[s][0] + shift, old[s][1] + shift), (lines, old[s], shift)
    assert b["state"] == "confirmed" and b["triaged"], b
' "$dir/bugs2.out" v1.bugs "$shift_by" >py.err 2>&1 ||
	bad "v2 bugs do not map to v1's: $(snippet py.err)"

hq across bugs --program lost-update.wasm --json
want across 0
pycheck across '
assert d["program"]["builds"] == 2 and d["program"]["hash"] is None, d["program"]
sigs = [b["signature"] for b in d["bugs"]]
assert len(sigs) == len(set(sigs)) and sigs, sigs
assert all(b["builds"] == 2 for b in d["bugs"]), d["bugs"]
'
hq across_text bugs --program lost-update.wasm
want across_text 0
grep -q "builds" "$dir/across_text.out" || bad "bugs --program NAME: no builds column"

# diff of the two checks (campaigns 1 and 3): the same races.
hq diff diff 1 3 --json
want diff 0
pycheck diff '
assert d["schema"] == "heisen.diff/1" and d["a"]["id"] == 1 and d["b"]["id"] == 3, d
assert d["new"] == [] and d["gone"] == [] and len(d["persisting"]) >= 2, d
'
hq diff_text diff 1 3
want diff_text 0
grep -q "^persisting: [1-9]" "$dir/diff_text.out" || bad "diff text: $(snippet "$dir/diff_text.out")"
hq diff_bad diff 1 99
want diff_bad 2

# ---- (b) triage errors and the fixed state --------------------------------
hq tri_bad triage "$first" maybe
want tri_bad 2
grep -q "not a triage state" "$dir/tri_bad.err" || bad "triage maybe: $(snippet "$dir/tri_bad.err")"
hq tri_none triage 999 confirmed
want tri_none 2
hq tri_note triage "$first" --note "no state"
want tri_note 2
hq tri_fixed triage "$first" fixed --note "mutex added"
want tri_fixed 0
grep -q "fixed, was confirmed" "$dir/tri_fixed.out" || bad "triage fixed: $(snippet "$dir/tri_fixed.out")"
# A fixed bug that comes back fails the new gate.
hq check_regress check v2/lost-update.wasm --runs 2 --fail-on-bugs new
want check_regress 1
hq bugs_regress bugs --program lost-update.wasm --fail-on-bugs new
want bugs_regress 1
hq tri_back triage "$first" confirmed
want tri_back 0
hq bugs_known bugs --program lost-update.wasm --fail-on-bugs new
want bugs_known 0
hq bugs_any bugs --program lost-update.wasm --fail-on-bugs any
want bugs_any 1
hq bad_gate bugs --fail-on-bugs=maybe
want bad_gate 2
grep -q "new' or 'any'" "$dir/bad_gate.err" || bad "bad gate value: $(snippet "$dir/bad_gate.err")"

# run records nothing: its races are looked up by signature. A serial
# run finds the race by happens-before on every schedule; a sampled run
# must collide, which a loaded machine may deny it: its gate is tested
# only when a run caught the race.
hq run_new run --density 100 --seed 7 --fail-on-bugs new v2/lost-update.wasm
want run_new 0
hq run_any run --schedule random --schedule-seed 3 --fail-on-bugs v2/lost-update.wasm
want run_any 1
for s in 1 2 3 4 5 6 7 8; do
	hq run_dens run --density 100 --seed $s --json --fail-on-bugs v2/lost-update.wasm
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || bad "run --density --fail-on-bugs: exit $rc: $(snippet "$dir/run_dens.err")"
	nviol=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["violations"]))' "$dir/run_dens.out" 2>/dev/null)
	[ "$nviol" = 0 ] && [ "$rc" -ne 0 ] && bad "run --density --fail-on-bugs: exit $rc without a violation"
	[ -n "$nviol" ] && [ "$nviol" != 0 ] && [ "$rc" -ne 1 ] && bad "run --density --fail-on-bugs: exit $rc with $nviol violations"
done
hq run_known run --schedule random --schedule-seed 3 --fail-on-bugs new v2/lost-update.wasm
want run_known 0
# Another workspace knows nothing: every race is new there.
hq run_other run --schedule random --schedule-seed 3 --db other.db --fail-on-bugs new v2/lost-update.wasm
want run_other 1
[ -e other.db ] && bad "run --fail-on-bugs new created a workspace"

# ---- (c) no bugs, and only suppressed ones ------------------------------
hq check_clean check "$root/demos/build/mutex-counter.wasm" --db clean.db --fail-on-bugs
want check_clean 0
hq sweep_clean sweep "$root/demos/build/mutex-counter.wasm" --db clean.db --densities 100 --runs 2 --profiles default --jobs 2 --fail-on-bugs new
want sweep_clean 0
hq bugs_clean bugs --db clean.db --fail-on-bugs
want bugs_clean 0
printf 'race:deposit\n' >supp.txt
hq check_supp check v2/lost-update.wasm --db supp.db --suppressions supp.txt --fail-on-bugs
want check_supp 0
grep -q "suppressed" "$dir/check_supp.out" || bad "check with every race suppressed: $(snippet "$dir/check_supp.out")"
hq sweep_supp sweep v2/lost-update.wasm --db supp.db --densities 100 --runs 4 --profiles default --jobs 2 --suppressions supp.txt --fail-on-bugs
want sweep_supp 0
hq bugs_supp bugs --db supp.db --suppressions supp.txt --fail-on-bugs new
want bugs_supp 0
hq bugs_unsupp bugs --db supp.db --fail-on-bugs new
want bugs_unsupp 1

finish t_triage
