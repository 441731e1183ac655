#!/usr/bin/env bash
# Suppressions (docs/suppressions.md) end to end, on the guest with exactly
# two races, one in store_left() and one in store_right()
# (tests/e2e/guests/two-races.c):
#   (a) with no rules, check reports both; a rule naming one reports only
#       the other and counts 1 suppressed, in either direction, as
#       race:FUNCTION, race:FILE:LINE (and not on a part of a file name)
#       and called_from:CALLER (and not on the access itself); text and
#       JSON agree;
#   (b) ./.heisen-suppressions is read when no --suppressions is given,
#       and --suppressions /dev/null sets it aside;
#   (c) --fail-on-bugs counts only races not suppressed (check, run);
#   (d) a bad rules file (named or the default), or a missing one, is exit
#       2 with FILE:LINE on stderr, nothing on stdout, no workspace made,
#       for check, run --density, sweep and bugs;
#   (e) a small sweep, then bugs: the suppressed bug is left out of both
#       lists and counted, --show-suppressed marks it, --json flags it,
#       --fail-on-bugs is 1 with a bug left and 0 when both are
#       suppressed; runs are recorded either way.
. "$(dirname "$0")/lib.sh"
need_demos
# Nothing here may meet a .heisen-suppressions but its own.
cd "$dir" || exit 1
unset HEISEN_DB

wasm=$root/demos/build/guests/two-races.wasm
src=$root/tests/e2e/guests/two-races.c
left_line=$(grep -n 'heisen:site write left' "$src" | cut -d: -f1)
right_line=$(grep -n 'heisen:site write right' "$src" | cut -d: -f1)
[ -n "$left_line" ] && [ -n "$right_line" ] || {
	bad "no heisen:site markers in $src"
	finish t_suppress
}

# hc OUT ERR ARGS...: heisen ARGS, stdout to OUT and stderr to ERR,
# leaving rc. KILL: a hung command must not hang the suite.
hc() {
	local out=$1 err=$2
	shift 2
	timeout -s KILL 300 "$HEISEN" "$@" >"$out" 2>"$err"
	rc=$?
}

# reported FILE: the functions of the races a text report printed, from
# its SUMMARY lines, sorted, on one line.
reported() {
	sed -n 's/^SUMMARY: heisen: data race .* in \(.*\)$/\1/p' "$1" |
		sort | tr '\n' ' ' | sed 's/ $//'
}

# check_with LABEL WANT NSUPP [ARGS...]: heisen check of the guest, text
# and JSON, reports exactly the races of WANT (functions, sorted,
# space-separated; "" for none) and counts NSUPP suppressed.
n_check=0
check_with() {
	local label=$1 want=$2 nsupp=$3 got
	shift 3
	n_check=$((n_check + 1))
	hc "$dir/c.out" "$dir/c.err" check "$wasm" --db "$dir/c.db" "$@"
	if [ "$rc" -ne 0 ]; then
		bad "$label: check exit $rc: $(snippet "$dir/c.err")"
		return
	fi
	got=$(reported "$dir/c.out")
	[ "$got" = "$want" ] || bad "$label: reported '$got', want '$want'"
	if [ "$nsupp" -eq 0 ]; then
		grep -q 'suppressed by' "$dir/c.out" &&
			bad "$label: a suppressed line with nothing suppressed: $(snippet "$dir/c.out")"
	else
		grep -q "^$nsupp races\? suppressed by " "$dir/c.out" ||
			bad "$label: no '$nsupp race(s) suppressed by' line: $(snippet "$dir/c.out")"
	fi
	hc "$dir/c.json" "$dir/c.err" check "$wasm" --db "$dir/c.db" --json "$@"
	if [ "$rc" -ne 0 ]; then
		bad "$label: check --json exit $rc: $(snippet "$dir/c.err")"
		return
	fi
	python3 - "$dir/c.json" "$want" "$nsupp" >"$dir/why" 2>&1 <<'EOF' ||
import json, sys
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
d = json.load(open(sys.argv[1]))
want, nsupp = sys.argv[2].split(), int(sys.argv[3])
got = sorted(r["sites"][0]["function"] for r in d["races"])
assert got == sorted(want), "races %s, want %s" % (got, want)
assert d["suppressed"] == nsupp, "suppressed %r, want %d" % (d["suppressed"], nsupp)
if d["suppressions"] is not None:
    hits = sum(r["hits"] for r in d["suppressions"]["rules"])
    assert hits == nsupp, "rules' hits %d, want %d" % (hits, nsupp)
EOF
		bad "$label: JSON: $(snippet "$dir/why")"
}

# ---- (a) one rule, each direction, each form ----------------------------------

both="store_left store_right"
check_with "no rules" "$both" 0

rules() { printf '%s\n' "$@" >"$dir/rules"; }

rules '# the left store is known' 'race:store_left   # accepted'
check_with "race:store_left" store_right 1 --suppressions "$dir/rules"
grep -q "^  rule 1 (.*rules:2) race:store_left: 1$" "$dir/c.out" ||
	bad "race:store_left: no line for the rule used: $(snippet "$dir/c.out")"
rules 'race:^store_right$'
check_with "race:^store_right\$" store_left 1 --suppressions "$dir/rules"

rules "race:two-races.c:$left_line"
check_with "race:FILE:LINE (left)" store_right 1 --suppressions "$dir/rules"
rules "race:guests/two-races.c:$right_line"
check_with "race:DIR/FILE:LINE (right)" store_left 1 --suppressions "$dir/rules"
# FILE is the end of the path after a '/', not any part of a name.
rules "race:races.c:$left_line" "race:two-races.c:$((right_line + 100))"
check_with "race:FILE:LINE off the boundary or line" "$both" 0 \
	--suppressions "$dir/rules"

rules 'called_from:via_left'
check_with "called_from:via_left" store_right 1 --suppressions "$dir/rules"
rules 'called_from:^via_right$'
check_with "called_from:via_right" store_left 1 --suppressions "$dir/rules"
# The access itself is not its own caller.
rules 'called_from:store_left' 'called_from:store_right'
check_with "called_from on frame #0" "$both" 0 --suppressions "$dir/rules"

rules 'race:nothing_here' 'race:store_*'
check_with "race:store_* (both)" "" 2 --suppressions "$dir/rules"
grep -q "^  rule 2 .* race:store_\*: 2$" "$dir/c.out" ||
	bad "race:store_*: no line counting 2 for rule 2: $(snippet "$dir/c.out")"
grep -q "rule 1 " "$dir/c.out" &&
	bad "race:store_*: rule 1 suppressed nothing but is listed"

# ---- (b) the default file -------------------------------------------------------

rules 'race:store_right'
cp "$dir/rules" "$dir/.heisen-suppressions"
check_with ".heisen-suppressions" store_left 1
grep -q 'suppressed by .heisen-suppressions$' "$dir/c.out" ||
	bad ".heisen-suppressions: the line does not name the file: $(snippet "$dir/c.out")"
check_with "--suppressions /dev/null" "$both" 0 --suppressions /dev/null
rules 'race:store_left'
check_with "--suppressions over the default" store_right 1 \
	--suppressions "$dir/rules"
rm -f "$dir/.heisen-suppressions"

# ---- (c) --fail-on-bugs ---------------------------------------------------------

fail_with() {
	local label=$1 want=$2
	shift 2
	hc "$dir/f.out" "$dir/f.err" "$@" --fail-on-bugs
	[ "$rc" -eq "$want" ] || bad "$label: exit $rc, want $want: $(snippet "$dir/f.err")"
}
rules 'race:store_left' 'called_from:via_right'
fail_with "check, both suppressed" 0 check "$wasm" --db "$dir/c.db" \
	--suppressions "$dir/rules"
rules 'race:store_left'
fail_with "check, one suppressed" 1 check "$wasm" --db "$dir/c.db" \
	--suppressions "$dir/rules"
fail_with "check, no rules" 1 check "$wasm" --db "$dir/c.db"

# A masked run at 100 % catches both stores colliding (serial, so that
# it does on a loaded machine too: an armed thread sleeps while the other
# runs); suppressed, they leave no violation, and none named store_left.
serial=(--schedule random --schedule-seed 1 --density 100 --seed 1)
rules 'race:store_left' 'race:store_right'
fail_with "run --density, both suppressed" 0 run "$wasm" "${serial[@]}" \
	--suppressions "$dir/rules"
grep -q "violations\? suppressed by" "$dir/f.err" ||
	bad "run --density: no suppressed line: $(snippet "$dir/f.err")"
grep -q "^WARNING" "$dir/f.err" &&
	bad "run --density: a suppressed violation reported: $(snippet "$dir/f.err")"
rules 'race:store_left'
hc "$dir/r.json" "$dir/r.err" run "$wasm" "${serial[@]}" --json \
	--suppressions "$dir/rules"
if [ "$rc" -ne 0 ]; then
	bad "run --json: exit $rc: $(snippet "$dir/r.err")"
else
	python3 - "$dir/r.json" >"$dir/why" 2>&1 <<'EOF' ||
import json, sys
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
d = json.load(open(sys.argv[1]))
funcs = [s["function"] for v in d["violations"] for s in v["sites"]]
assert "store_left" not in funcs, "store_left reported: %s" % funcs
assert d["suppressed"] >= 1, "suppressed %r" % d["suppressed"]
assert d["suppressions"]["rules"][0]["hits"] == d["suppressed"], d["suppressions"]
EOF
		bad "run --json: $(snippet "$dir/why")"
fi

# ---- (d) bad files ----------------------------------------------------------------

printf 'race:store_left\n\nthread:worker\n' >"$dir/bad"
# refused LABEL WHERE ARGS...: exit 2, WHERE on stderr, nothing on stdout,
# no workspace.
refused() {
	local label=$1 where=$2
	shift 2
	rm -f "$dir/new.db"
	hc "$dir/b.out" "$dir/b.err" "$@"
	[ "$rc" -eq 2 ] || bad "$label: exit $rc, want 2: $(snippet "$dir/b.err")"
	grep -qF "$where" "$dir/b.err" ||
		bad "$label: stderr does not name $where: $(snippet "$dir/b.err")"
	[ -s "$dir/b.out" ] && bad "$label: output on stdout: $(snippet "$dir/b.out")"
	[ -e "$dir/new.db" ] && bad "$label: created the workspace"
}
refused "check, thread:" "$dir/bad:3:" check "$wasm" --db "$dir/new.db" \
	--suppressions "$dir/bad"
refused "run, thread:" "$dir/bad:3:" run "$wasm" --density 50 \
	--suppressions "$dir/bad"
refused "sweep, thread:" "$dir/bad:3:" sweep "$wasm" --db "$dir/new.db" \
	--runs 1 --densities 100 --suppressions "$dir/bad"
refused "bugs, thread:" "$dir/bad:3:" bugs --db "$dir/c.db" \
	--suppressions "$dir/bad"
for line in 'store_left' 'race:' 'race:a.c:0' 'mutex:m' 'called_from:a.c:3' \
	'frobnicate:x'; do
	printf '# one bad line\n%s\n' "$line" >"$dir/bad1"
	refused "check, '$line'" "$dir/bad1:2:" check "$wasm" \
		--db "$dir/new.db" --suppressions "$dir/bad1"
done
refused "a missing file" "$dir/no-such-rules" check "$wasm" \
	--db "$dir/new.db" --suppressions "$dir/no-such-rules"
cp "$dir/bad" "$dir/.heisen-suppressions"
refused "a bad .heisen-suppressions" ".heisen-suppressions:3:" check "$wasm" \
	--db "$dir/new.db"
refused "a bad .heisen-suppressions, bugs" ".heisen-suppressions:3:" bugs \
	--db "$dir/c.db"
rm -f "$dir/.heisen-suppressions"
# Without --density or --mask, run has no report to suppress from.
refused "plain run" "needs --density or --mask" run "$wasm" \
	--suppressions "$dir/rules"

# ---- (e) a sweep, then the bug list ------------------------------------------------

sdb=$dir/sweep.db
rules 'race:store_left'
hc "$dir/s.out" "$dir/s.err" sweep "$wasm" --db "$sdb" --runs 3 \
	--densities 100 --profiles default --suppressions "$dir/rules"
[ "$rc" -eq 0 ] || bad "sweep: exit $rc: $(snippet "$dir/s.err")"
grep -q 'two-races.wasm .*store_right' "$dir/s.out" ||
	bad "sweep: store_right not listed: $(snippet "$dir/s.out")"
grep -q 'two-races.wasm .*store_left' "$dir/s.out" &&
	bad "sweep: store_left listed: $(snippet "$dir/s.out")"
grep -q "^1 bug suppressed by $dir/rules" "$dir/s.out" ||
	bad "sweep: no '1 bug suppressed' line: $(snippet "$dir/s.out")"

hc "$dir/b0.out" "$dir/b0.err" bugs --db "$sdb"
[ "$rc" -eq 0 ] || bad "bugs: exit $rc: $(snippet "$dir/b0.err")"
[ "$(grep -c 'two-races.wasm' "$dir/b0.out")" -eq 2 ] ||
	bad "bugs without rules: not both bugs: $(snippet "$dir/b0.out")"
grep -q suppressed "$dir/b0.out" && bad "bugs without rules: $(snippet "$dir/b0.out")"

hc "$dir/b1.out" "$dir/b1.err" bugs --db "$sdb" --suppressions "$dir/rules"
[ "$rc" -eq 0 ] || bad "bugs --suppressions: exit $rc: $(snippet "$dir/b1.err")"
[ "$(grep -c 'two-races.wasm' "$dir/b1.out")" -eq 1 ] &&
	grep -q 'store_right.*store_right' "$dir/b1.out" ||
	bad "bugs --suppressions: not store_right alone: $(snippet "$dir/b1.out")"
grep -q "^1 bug suppressed by $dir/rules (--show-suppressed lists them)$" \
	"$dir/b1.out" || bad "bugs --suppressions: no count line: $(snippet "$dir/b1.out")"

hc "$dir/b2.out" "$dir/b2.err" bugs --db "$sdb" --suppressions "$dir/rules" \
	--show-suppressed
[ "$rc" -eq 0 ] || bad "bugs --show-suppressed: exit $rc: $(snippet "$dir/b2.err")"
grep -q '^suppressed  *bug ' "$dir/b2.out" ||
	bad "--show-suppressed: no marker column header: $(snippet "$dir/b2.out")"
grep -q '^rule 1  .*store_left .*store_left' "$dir/b2.out" ||
	bad "--show-suppressed: store_left not marked rule 1: $(snippet "$dir/b2.out")"
grep -q '^-  .*store_right .*store_right' "$dir/b2.out" ||
	bad "--show-suppressed: store_right not marked '-': $(snippet "$dir/b2.out")"

hc "$dir/b.json" "$dir/b.err" bugs --db "$sdb" --suppressions "$dir/rules" \
	--json --show-suppressed
[ "$rc" -eq 0 ] || bad "bugs --json: exit $rc: $(snippet "$dir/b.err")"
python3 - "$dir/b.json" >"$dir/why" 2>&1 <<'EOF' ||
import json, sys
sys.excepthook = lambda t, v, tb: print("%s: %s" % (t.__name__, v), file=sys.stderr)
d = json.load(open(sys.argv[1]))
assert d["schema"] == "heisen.bugs/1", d["schema"]
flags = {b["sites"][0]["function"]: (b["suppressed"], b["suppressed_by"])
         for b in d["bugs"]}
assert set(flags) == {"store_left", "store_right"}, flags
assert flags["store_right"] == (False, None), flags
sup, by = flags["store_left"]
assert sup is True and by["rule"] == 1 and by["text"] == "race:store_left", flags
assert d["suppressed"] == 1, d["suppressed"]
assert d["suppressions"]["rules"] == [
    {"rule": 1, "line": 1, "text": "race:store_left", "hits": 1}], d["suppressions"]
# The runs are recorded all the same: the suppressed bug has its runs.
assert all(b["runs"] >= 1 for b in d["bugs"]), d["bugs"]
EOF
	bad "bugs --json: $(snippet "$dir/why")"

fail_with "bugs, one left" 1 bugs --db "$sdb" --suppressions "$dir/rules"
rules 'race:store_left' 'called_from:via_right'
fail_with "bugs, both suppressed" 0 bugs --db "$sdb" --suppressions "$dir/rules"
grep -q '^2 bugs suppressed by ' "$dir/f.out" ||
	bad "bugs, both suppressed: no count line: $(snippet "$dir/f.out")"
grep -q 'two-races.wasm' "$dir/f.out" &&
	bad "bugs, both suppressed: a bug listed: $(snippet "$dir/f.out")"
# Listed and marked, they still do not count.
fail_with "bugs --show-suppressed, both suppressed" 0 bugs --db "$sdb" \
	--suppressions "$dir/rules" --show-suppressed
[ "$(grep -c '^rule [12] .*two-races.wasm' "$dir/f.out")" -eq 2 ] ||
	bad "bugs --show-suppressed, both suppressed: not both marked: $(snippet "$dir/f.out")"
fail_with "sweep, both suppressed" 0 sweep "$wasm" --db "$sdb" --runs 1 \
	--densities 100 --profiles default --suppressions "$dir/rules"
fail_with "sweep, no rules" 1 sweep "$wasm" --db "$sdb" --runs 3 \
	--densities 100 --profiles default

[ "$n_check" -ge 12 ] || bad "only $n_check check cases ran"
finish t_suppress
