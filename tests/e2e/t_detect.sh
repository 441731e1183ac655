#!/usr/bin/env bash
# The detector's other entry points: one run under a density or a mask
# file, Algorithm 2 (`heisen shared`) and `sweep --prune`, every profile,
# and a time budget.
. "$(dirname "$0")/lib.sh"
need_demos
fib="$root/demos/build/fibonacci.wasm"
ctl="$root/demos/build/control-mutex.wasm"
db="$dir/w.db"
export XDG_CACHE_HOME="$dir/cache"
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

# --- heisen run --density / --mask ----------------------------------------------
"$HEISEN" run "$fib" --density 100 --seed 5 --json >"$dir/r.json" 2>"$dir/r.err" ||
	bad "run --density 100: exit $?: $(snippet "$dir/r.err")"
[ "$(jget "$dir/r.json" 'd["schema"]')" = heisen.run/1 ] || bad "run: schema"
[ "$(jget "$dir/r.json" 'd["armed"] == d["sites"] > 1000')" = True ] ||
	bad "run: 100 % should arm every site: $(snippet "$dir/r.json")"
grep -q "fibonacci: 2 threads" "$dir/r.err" || bad "run --json: program output not on stderr"
# The same seed arms the same sites: same armed count at 37 %.
a=$("$HEISEN" run "$fib" --density 37 --seed 9 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["armed"])')
[ "$a" = "$(( ($(jget "$dir/r.json" 'd["sites"]') * 3700 + 5000) / 10000 ))" ] ||
	bad "run --density 37: armed $a, not round(0.37 x sites)"
# Caught races name the demo's lines; --fail-on-bugs turns them into exit
# 1. Serial (an armed thread sleeps while the other runs), so that the
# run collides whatever the load of the machine.
"$HEISEN" run "$fib" --schedule random --schedule-seed 2 --density 100 --seed 1 \
	--fail-on-bugs >/dev/null 2>"$dir/f.out"
rc=$?
[ $rc -eq 1 ] && grep -qE "fibonacci\.c:(38|39|40|41|42|43)" "$dir/f.out" ||
	bad "run: no race on fibonacci.c's racy lines (exit $rc): $(snippet "$dir/f.out")"
# A mask file: exactly the listed sites.
printf '0 2-4 # five sites\n7\n' >"$dir/m.txt"
"$HEISEN" run "$fib" --mask "$dir/m.txt" --json >"$dir/m.json" 2>/dev/null ||
	bad "run --mask: exit $?"
[ "$(jget "$dir/m.json" 'd["armed"]')" = 5 ] || bad "run --mask: armed $(jget "$dir/m.json" 'd["armed"]'), expected 5"
printf '999999\n' >"$dir/bad.txt"
"$HEISEN" run "$fib" --mask "$dir/bad.txt" >/dev/null 2>"$dir/bad.err"
[ $? -eq 2 ] && grep -q "line 1" "$dir/bad.err" || bad "run --mask out of range: not exit 2 with the line"
"$HEISEN" run "$fib" --seed 3 >/dev/null 2>&1
[ $? -eq 2 ] || bad "run --seed without --density should be exit 2"
"$HEISEN" run "$fib" --density 50 --profile warp >/dev/null 2>&1
[ $? -eq 2 ] || bad "run --profile warp should be exit 2"

# --- heisen shared and sweep --prune ----------------------------------------------
"$HEISEN" shared "$fib" --runs 5 --json >"$dir/sh.json" 2>"$dir/sh.err" ||
	bad "shared: exit $?: $(snippet "$dir/sh.err")"
# Both threads read i (line 38) before any check of the loop, and one
# writes it (43): whatever the interleaving, those sites are shared.
python3 - "$dir/sh.json" <<'EOF' || bad "shared: fibonacci.c's lines 38 and 43 are not shared"
import json, os, sys
d = json.load(open(sys.argv[1]))
lines = {s["line"] for s in d["shared"] if s["file"] and os.path.basename(s["file"]) == "fibonacci.c"}
assert {38, 43} <= lines, lines
assert 0 < len(d["shared"]) < d["sites"], len(d["shared"])
EOF
"$HEISEN" sweep "$fib" --db "$db" --prune --densities 100 --runs 6 --seed 4 \
	--profiles default --json >"$dir/p.json" 2>"$dir/p.err" || bad "sweep --prune: exit $?: $(snippet "$dir/p.err")"
[ "$(jget "$dir/p.json" 'd["campaign_bugs"] > 0')" = True ] ||
	bad "sweep --prune at 100 %: no bug in 6 runs"
n=$(sqlite3 "$db" "SELECT length(pruned) / 4 FROM campaigns WHERE prune = 1")
[ "${n:-0}" -gt 0 ] && [ "$n" -lt 1000 ] || bad "sweep --prune: pruned set of '$n' sites"

# --- every profile, and a budget ---------------------------------------------------
"$HEISEN" sweep "$ctl" --db "$db" --profiles default,one-core,throttled,noisy \
	--densities 50 --runs 3 --json >"$dir/pr.json" 2>"$dir/pr.err" ||
	bad "sweep --profiles: exit $?: $(snippet "$dir/pr.err")"
[ "$(jget "$dir/pr.json" 'd["statuses"]["ok"]')" = 12 ] ||
	bad "sweep --profiles: not 12 ok runs: $(snippet "$dir/pr.json")"
[ "$(jget "$dir/pr.json" 'd["cells"]')" = 4 ] || bad "sweep --profiles: not 4 cells"
"$HEISEN" sweep "$ctl" --db "$db" --budget 2s --densities 25,75 --json >"$dir/b.json" 2>"$dir/b.err" ||
	bad "sweep --budget: exit $?: $(snippet "$dir/b.err")"
[ "$(jget "$dir/b.json" 'd["status"] == "done" and d["planned"] == 0 and d["done"] > 4')" = True ] ||
	bad "sweep --budget 2s: $(snippet "$dir/b.json")"
"$HEISEN" sweep "$ctl" --db "$db" --budget 10q >/dev/null 2>&1
[ $? -eq 2 ] || bad "sweep --budget 10q should be exit 2"
"$HEISEN" campaigns --db "$db" --json >"$dir/c.json" || bad "campaigns: exit $?"
[ "$(jget "$dir/c.json" 'len(d["campaigns"])')" = 3 ] || bad "campaigns: not 3"

finish t_detect
