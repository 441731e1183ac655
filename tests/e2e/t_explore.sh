#!/usr/bin/env bash
# Schedule search and exact replay (docs/schedules.md, "Explore" and
# "Replaying a schedule"):
#   (1) explore finds every named race of racy demos and lost-update's
#       lost deposit (exit 1), keeps each run's schedule in the
#       workspace, and gives the same runs the same digests under one
#       campaign seed;
#   (2) a race with a thread main never joins is found in >= 95 % of runs;
#   (3) replay --mode schedule reproduces a race and a failing run in
#       every run with the recorded digest; --save shrinks the schedule
#       and the repro replays in a fresh folder with only the program;
#   (4) an edited digest is a divergence (exit 1), not "not reproduced";
#   (5) check --schedule records serial runs; export/import carry them;
#   (6) bad strategies, options and schedule repros: exit 2, nothing
#       written to the workspace.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1

unset HEISEN_DB
b=$root/demos/build
db=$dir/x.db

# races FILE.json: "LINE_A LINE_B RUNS" per race, sorted.
races() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["races"]:
    a, b = sorted(s["line"] or 0 for s in r["sites"])
    print(a, b, r["runs"])
PY
}
# named DEMO: the demo's "race: FILE:A FILE:B" lines as "A B", sorted.
named() {
	sed -n 's/^ \* race: [^:]*:\([0-9]*\) [^:]*:\([0-9]*\)$/\1 \2/p' "$root/demos/$1.c" |
		while read -r x y; do [ "$x" -le "$y" ] && echo "$x $y" || echo "$y $x"; done | sort -u
}

# ---- (1) explore finds the named races ------------------------------------
for demo in fibonacci helper-race heap-race lost-update; do
	hq "ex-$demo" explore "$b/$demo.wasm" --runs 20 --seed 5 --db "$db" --json
	[ "$rc" = 0 ] || { bad "$demo: explore exit $rc: $(snippet "$dir/ex-$demo.err")"; continue; }
	found=$(races "$dir/ex-$demo.out" | awk '{print $1, $2}' | sort -u)
	missing=$(comm -23 <(named "$demo") <(echo "$found"))
	[ -z "$missing" ] || bad "$demo: explore missed named races: $missing"
done
hq lu explore "$b/lost-update.wasm" --runs 30 --seed 1 --failure exit:1 --db "$db" --json -- check
[ "$rc" = 0 ] || bad "lost-update: explore exit $rc: $(snippet "$dir/lu.err")"
nfail=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["schedule"]; print(s["failures"], len(s["failed_runs"]), s["strategy"].count(":"))' "$dir/lu.out")
set -- $nfail
[ "${1:-0}" -ge 1 ] && [ "$1" = "$2" ] || bad "lost-update: explore found no lost deposit ($nfail)"
[ "${3:-0}" = 2 ] || bad "pct:3 was not recorded with its measured K: $(snippet "$dir/lu.out")"
fail_run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schedule"]["failed_runs"][0])' "$dir/lu.out")
camp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["campaign"])' "$dir/lu.out")
kind=$(sqlite3 "$db" "SELECT kind || ' ' || schedule || ' ' || failure FROM campaigns WHERE id = $camp")
case $kind in "explore pct:3:"*" exit:1") ;; *) bad "campaign row: '$kind'" ;; esac
n=$(sqlite3 "$db" "SELECT count(*) FROM schedules s JOIN runs r ON r.id = s.run_id WHERE r.campaign_id = $camp")
[ "$n" = 30 ] || bad "campaign $camp: $n schedules stored for 30 runs"
kept=$(sqlite3 "$db" "SELECT count(*) FROM schedules s JOIN runs r ON r.id = s.run_id WHERE r.campaign_id = $camp AND s.failed AND s.decisions IS NOT NULL")
[ "$kept" = "${1:-x}" ] || bad "failing runs' decisions kept: $kept of ${1:-?}"
# The same campaign seed: the same runs, digest for digest.
hq lu2 explore "$b/lost-update.wasm" --runs 30 --seed 1 --failure exit:1 --db "$db" --json -- check
camp2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["campaign"])' "$dir/lu2.out")
d1=$(sqlite3 "$db" "SELECT group_concat(digest) FROM (SELECT s.digest FROM schedules s JOIN runs r ON r.id = s.run_id WHERE r.campaign_id = $camp ORDER BY r.idx)")
d2=$(sqlite3 "$db" "SELECT group_concat(digest) FROM (SELECT s.digest FROM schedules s JOIN runs r ON r.id = s.run_id WHERE r.campaign_id = $camp2 ORDER BY r.idx)")
[ -n "$d1" ] && [ "$d1" = "$d2" ] || { bad "one campaign seed gave other digests"; sqlite3 "$db" "SELECT r.campaign_id, r.idx, s.digest, s.points, r.status FROM schedules s JOIN runs r ON r.id = s.run_id WHERE r.campaign_id IN ($camp, $camp2) ORDER BY r.idx, r.campaign_id" | head -30; sqlite3 "$db" "SELECT id, schedule, seed FROM campaigns"; }

# chaos (rr's) finds the lost deposit too.
hq chaos explore "$b/lost-update.wasm" --strategy chaos --runs 10 --seed 1 --failure exit:1 --db "$db" --json -- check
nchaos=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schedule"]["failures"])' "$dir/chaos.out" 2>/dev/null)
[ "${nchaos:-0}" -ge 1 ] || bad "chaos: no lost deposit in 10 runs ($(snippet "$dir/chaos.err"))"

# ---- (2) a thread main never joins ------------------------------------------
hq unj explore "$b/guests/unjoined-global.wasm" --runs 40 --seed 2 --db "$db" --json
most=$(races "$dir/unj.out" | awk 'BEGIN{m=0} $3>m{m=$3} END{print m}')
[ "${most:-0}" -ge 38 ] || bad "unjoined-global: race in $most of 40 explore runs, want >= 38"

# ---- (3) exact replay ------------------------------------------------------
bug=$(sqlite3 "$db" "SELECT b.id FROM bugs b JOIN programs p ON p.id = b.program_id WHERE p.name = 'lost-update.wasm' AND b.line_a = 36 AND b.line_b = 36")
hq rp replay "$bug" --mode schedule --runs 10 --db "$db" --json
[ "$rc" = 0 ] || bad "replay of bug $bug: exit $rc: $(snippet "$dir/rp.err")"
python3 - "$dir/rp.out" <<'PY' || bad "replay of bug $bug: $(snippet "$dir/rp.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "schedule" and d["reproduced"] == 10 and d["runs"] == 10, d
assert d["schedule"]["diverged"] == 0, d["schedule"]
PY
hq rf replay --run "$fail_run" --mode schedule --runs 10 --db "$db" --save "$dir/fail.repro" --json
[ "$rc" = 0 ] || bad "replay of run $fail_run: exit $rc: $(snippet "$dir/rf.err")"
python3 - "$dir/rf.out" <<'PY' || bad "replay of run $fail_run: $(snippet "$dir/rf.out")"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["schedule"]
assert d["reproduced"] == 10 and s["diverged"] == 0, d
assert s["shrunk"]["decisions_after"] <= s["shrunk"]["decisions_before"], s
PY
grep -q '^mode = schedule$' "$dir/fail.repro" && grep -q '^sched_decisions = ' "$dir/fail.repro" ||
	bad "the repro file holds no schedule: $(snippet "$dir/fail.repro")"
mkdir fresh && cp "$b/lost-update.wasm" "$dir/fail.repro" fresh/
(cd fresh && "$HEISEN" replay --file fail.repro lost-update.wasm --runs 5 --json >r.json 2>r.err)
rc=$?
[ "$rc" = 0 ] || bad "repro in a fresh folder: exit $rc: $(snippet "$dir/fresh/r.err")"
[ ! -e fresh/heisen.db ] || bad "replaying a repro file made a workspace"
want=$(sed -n 's/^sched_digest = //p' "$dir/fail.repro")
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["schedule"]["digest"])' fresh/r.json)
[ "$want" = "$got" ] || bad "fresh replay digest $got, file $want"

# ---- (4) divergence --------------------------------------------------------
sed 's/^sched_digest = .*/sched_digest = 0123456789abcdef/' "$dir/fail.repro" >"$dir/div.repro"
hq div replay --file "$dir/div.repro" "$b/lost-update.wasm" --runs 3
[ "$rc" = 1 ] || bad "divergence: exit $rc, want 1"
grep -q DIVERGED "$dir/div.out" && grep -q diverged "$dir/div.err" || bad "divergence not reported: $(snippet "$dir/div.out")"
grep -q '^reproduced in' "$dir/div.out" && bad "a divergence reported as a reproduction rate"

# ---- (5) check --schedule, export and import --------------------------------
hq ck check "$b/helper-race.wasm" --runs 4 --schedule random:0.1 --schedule-seed 9 --db "$db" --json
[ "$rc" = 0 ] || bad "check --schedule: exit $rc: $(snippet "$dir/ck.err")"
grep -q '"strategy":"random:0.1"' "$dir/ck.out" || bad "check --schedule: no schedule object: $(snippet "$dir/ck.out")"
"$HEISEN" export --db "$db" -o "$dir/all.hs" 2>"$dir/exp.err" || bad "export: $(snippet "$dir/exp.err")"
"$HEISEN" import "$dir/all.hs" --db "$dir/copy.db" >/dev/null 2>"$dir/imp.err" || bad "import: $(snippet "$dir/imp.err")"
a=$(sqlite3 "$db" "SELECT count(*), sum(points), group_concat(digest), sum(length(decisions)) FROM schedules")
c=$(sqlite3 "$dir/copy.db" "SELECT count(*), sum(points), group_concat(digest), sum(length(decisions)) FROM schedules")
[ "$a" = "$c" ] || bad "import did not carry the schedules: '$a' vs '$c'"
(cd fresh && "$HEISEN" replay --run "$fail_run" --mode schedule --runs 2 --db "$dir/copy.db" >/dev/null 2>&1) ||
	bad "an imported run does not replay from its schedule"

# ---- (6) bad input ---------------------------------------------------------
before=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM campaigns), (SELECT count(*) FROM runs)")
expect2() {
	local name=$1 msg=$2
	shift 2
	hq "$name" "$@"
	[ "$rc" = 2 ] || bad "$name: exit $rc, want 2"
	grep -q -- "$msg" "$dir/$name.err" || bad "$name: message: $(snippet "$dir/$name.err")"
}
expect2 strat "unknown schedule strategy" explore "$b/lost-update.wasm" --strategy chaotic --db "$db"
expect2 pct0 "pct:D expects D" explore "$b/lost-update.wasm" --strategy pct:0 --db "$db"
expect2 randp "random:P expects P" check "$b/lost-update.wasm" --schedule random:2 --db "$db"
expect2 fixed "fixed follows one recorded schedule" explore "$b/lost-update.wasm" --strategy fixed --db "$db"
expect2 both "not both" explore "$b/lost-update.wasm" --runs 3 --budget 10s --db "$db"
expect2 prof "not for serial runs" check "$b/lost-update.wasm" --schedule pct:2 --profile one-core --db "$db"
expect2 fail "failure" explore "$b/lost-update.wasm" --failure exit:x --db "$db"
expect2 seed "schedule-seed" check "$b/lost-update.wasm" --schedule-seed 3 --db "$db"
head -n 14 "$dir/fail.repro" >"$dir/trunc.repro"
expect2 trunc "truncated" replay --file "$dir/trunc.repro" "$b/lost-update.wasm"
sed 's/^heisen-repro 2$/heisen-repro 7/' "$dir/fail.repro" >"$dir/future.repro"
expect2 future "newer heisen" replay --file "$dir/future.repro" "$b/lost-update.wasm"
sed 's/^sched_decisions = .*/sched_decisions = 5:9/' "$dir/fail.repro" >"$dir/thread.repro"
expect2 thread "names thread 9" replay --file "$dir/thread.repro" "$b/lost-update.wasm" --runs 2
sed 's/^sched_decisions = .*/sched_decisions = 99999999:1/' "$dir/fail.repro" >"$dir/past.repro"
expect2 past "past the run's last point" replay --file "$dir/past.repro" "$b/lost-update.wasm" --runs 2
sed 's/^sched_decisions = .*/sched_decisions = 9:1 4:2/' "$dir/fail.repro" >"$dir/order.repro"
expect2 order "sched_decisions" replay --file "$dir/order.repro" "$b/lost-update.wasm"
sweep_bug=$(sqlite3 "$db" "SELECT id FROM runs WHERE id NOT IN (SELECT run_id FROM schedules) LIMIT 1")
[ -z "$sweep_bug" ] || bad "a run without a schedule in this workspace"
after=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM campaigns), (SELECT count(*) FROM runs)")
[ "$before" = "$after" ] || bad "bad input wrote to the workspace: $before -> $after"
finish t_explore
