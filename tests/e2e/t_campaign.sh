#!/usr/bin/env bash
# Campaign robustness: Ctrl-C and a killed worker leave a sound database
# with every finished run, --resume completes the plan, programs that
# trap, exit non-zero or deadlock are recorded as such, and bad input is
# one message and exit 2 with the database untouched.
. "$(dirname "$0")/lib.sh"
need_demos
demo="$root/demos/build/fibonacci.wasm"
db="$dir/w.db"

# sql QUERY: one value from the workspace database.
sql() { sqlite3 "$db" "$1"; }
integrity() {
	[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] ||
		bad "$1: integrity_check failed"
}
# wait_runs N: until the database holds at least N runs (max ~20 s).
wait_runs() {
	for _ in $(seq 200); do
		n=$(sqlite3 "$db" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
		[ "${n:-0}" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- SIGINT, then --resume --------------------------------------------------
# The default profiles, all four: resume must cover each evenly (400 runs).
"$HEISEN" sweep "$demo" --db "$db" --densities 10:100:10 --runs 10 --jobs 2 \
	--seed 7 >"$dir/int.out" 2>"$dir/int.err" &
pid=$!
wait_runs 20 || bad "sigint: no runs recorded"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || bad "sigint: exit $rc, expected 130: $(snippet "$dir/int.err")"
integrity sigint
status=$(sql "SELECT status FROM campaigns WHERE id=1")
[ "$status" = stopped ] || bad "sigint: campaign status '$status'"
done1=$(sql "SELECT count(*) FROM runs WHERE campaign_id=1")
[ "$done1" -ge 20 ] && [ "$done1" -lt 400 ] ||
	bad "sigint: $done1 runs recorded (expected 20..399)"
grep -q -- "--resume 1" "$dir/int.out" || bad "sigint: no resume hint: $(snippet "$dir/int.out")"
"$HEISEN" sweep --resume 1 --db "$db" >"$dir/res.out" 2>"$dir/res.err" ||
	bad "resume: exit $?: $(snippet "$dir/res.err")"
[ "$(sql "SELECT count(*) FROM runs WHERE campaign_id=1")" = 400 ] ||
	bad "resume: plan not complete"
[ "$(sql "SELECT count(DISTINCT idx) FROM runs WHERE campaign_id=1")" = 400 ] ||
	bad "resume: a plan entry ran twice or not at all"
[ "$(sql "SELECT status FROM campaigns WHERE id=1")" = done ] ||
	bad "resume: campaign not marked done"
# every cell, (profile, density), got the same number of runs
[ "$(sql "SELECT count(DISTINCT n) FROM (SELECT count(*) n FROM runs
	WHERE campaign_id=1 GROUP BY profile, density_bp)")" = 1 ] ||
	bad "resume: cells unevenly covered"
"$HEISEN" sweep --resume 1 --db "$db" >/dev/null 2>"$dir/res2.err"
[ $? -eq 2 ] || bad "resume of a done campaign should exit 2"
integrity resume

# --- SIGKILL of a worker --------------------------------------------------------
"$HEISEN" sweep "$demo" --db "$db" --densities 50 --runs 75 --jobs 2 \
	--seed 8 >"$dir/kill.out" 2>"$dir/kill.err" &
pid=$!
wait_runs 420
killed=0
for _ in $(seq 100); do
	w=$(pgrep -P $pid | head -1)
	if [ -n "$w" ] && kill -KILL "$w" 2>/dev/null; then
		killed=1
		break
	fi
	sleep 0.02
done
wait $pid
rc=$?
[ $killed -eq 1 ] || bad "sigkill: no worker to kill"
[ $rc -eq 0 ] || bad "sigkill: sweep exit $rc: $(snippet "$dir/kill.err")"
integrity sigkill
[ "$(sql "SELECT count(*) FROM runs WHERE campaign_id=2")" = 300 ] ||
	bad "sigkill: not every run recorded"
[ "$(sql "SELECT count(*) FROM runs WHERE campaign_id=2 AND status='crash'")" -ge 1 ] ||
	bad "sigkill: the killed run is not recorded as a crash"

# --- SIGKILL of the sweep itself: interrupted, then --resume ------------------
before=$(sql "SELECT count(*) FROM runs")
"$HEISEN" sweep "$demo" --db "$db" --densities 10:100:10 --runs 10 --jobs 2 \
	--seed 9 >"$dir/sk.out" 2>"$dir/sk.err" &
pid=$!
wait_runs $((before + 20)) || bad "sweep-kill: no runs recorded"
c=$(sql "SELECT max(id) FROM campaigns")
# campaigns_status ID: the status `campaigns --json` gives campaign ID.
campaigns_status() {
	"$HEISEN" campaigns --db "$db" --json | python3 -c '
import json, sys
print([c["status"] for c in json.load(sys.stdin)["campaigns"]
       if c["id"] == int(sys.argv[1])][0])' "$1"
}
[ "$(campaigns_status "$c")" = running ] || bad "sweep-kill: not running while it runs"
"$HEISEN" sweep --resume "$c" --db "$db" >/dev/null 2>"$dir/sk2.err"
[ $? -eq 2 ] && grep -q "being run by process $pid" "$dir/sk2.err" ||
	bad "sweep-kill: resuming a running campaign: $(snippet "$dir/sk2.err")"
{ kill -KILL $pid && wait $pid; } 2>/dev/null
# Its workers end when their parent's pipes close.
for _ in $(seq 100); do
	pgrep -f "sweep $demo --db $db --densities 10:100:10 --runs 10" >/dev/null || break
	sleep 0.1
done
integrity sweep-kill
[ "$(sql "SELECT status FROM campaigns WHERE id=$c")" = running ] ||
	bad "sweep-kill: the file should still say running"
[ "$(campaigns_status "$c")" = interrupted ] ||
	bad "sweep-kill: campaigns --json says '$(campaigns_status "$c")'"
"$HEISEN" campaigns --db "$db" | grep -Eq "^$c +sweep +fibonacci\.wasm .* interrupted +[0-9]+/400 " ||
	bad "sweep-kill: campaigns does not list it interrupted: $("$HEISEN" campaigns --db "$db")"
"$HEISEN" sweep --resume "$c" --db "$db" >"$dir/sk3.out" 2>"$dir/sk3.err" ||
	bad "sweep-kill: resume exit $?: $(snippet "$dir/sk3.err")"
grep -q "campaign $c was interrupted" "$dir/sk3.err" ||
	bad "sweep-kill: resume does not say it was interrupted: $(snippet "$dir/sk3.err")"
[ "$(sql "SELECT count(DISTINCT idx) FROM runs WHERE campaign_id=$c")" = 400 ] &&
	[ "$(sql "SELECT count(*) FROM runs WHERE campaign_id=$c")" = 400 ] ||
	bad "sweep-kill: resume did not complete the plan exactly once"
[ "$(campaigns_status "$c")" = done ] || bad "sweep-kill: not done after resume"
integrity sweep-kill-resume

# --- programs that trap, exit non-zero, deadlock ----------------------------------
g="$root/demos/build/guests"
for case in "trap.wasm trap" "exit3.wasm exit" "deadlock.wasm timeout"; do
	set -- $case
	"$HEISEN" sweep "$g/$1" --db "$db" --densities 50,100 --runs 2 \
		--profiles default --timeout 1 --json >"$dir/$2.json" 2>"$dir/$2.err" ||
		bad "$1: sweep exit $?: $(snippet "$dir/$2.err")"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
st = d["statuses"]
assert d["done"] == 4 and st[sys.argv[2]] == 4, st
' "$dir/$2.json" "$2" || bad "$1: runs not all '$2': $(snippet "$dir/$2.json")"
done
[ "$(sql "SELECT count(*) FROM runs WHERE status='exit' AND exit_code=3")" = 4 ] ||
	bad "exit3: exit code not recorded"
integrity statuses

# --- bad input ---------------------------------------------------------------------
cp "$db" "$dir/before.db"
n_before=$(sql "SELECT count(*) FROM runs")
expect2() { # NAME CMD...: exit 2, one line on stderr, nothing on stdout
	local name=$1
	shift
	"$@" >"$dir/b.out" 2>"$dir/b.err"
	local rc=$?
	[ $rc -eq 2 ] || bad "$name: exit $rc, expected 2"
	[ "$(wc -l <"$dir/b.err")" -ge 1 ] || bad "$name: no message"
	[ -s "$dir/b.out" ] && bad "$name: output on stdout"
	return 0
}
printf 'not wasm at all' >"$dir/junk.wasm"
expect2 not-wasm "$HEISEN" sweep "$dir/junk.wasm" --db "$db"
expect2 not-wasm-fresh-db "$HEISEN" sweep "$dir/junk.wasm" --db "$dir/fresh.db"
[ -e "$dir/fresh.db" ] && bad "bad input created a workspace database"
expect2 unknown-profile "$HEISEN" sweep "$demo" --db "$db" --profiles default,warp
grep -q "warp" "$dir/b.err" || bad "unknown-profile: message does not name it"
expect2 zero-densities "$HEISEN" sweep "$demo" --db "$db" --densities 0:0:0
expect2 bad-runs "$HEISEN" sweep "$demo" --db "$db" --runs 0
expect2 unwritable-db "$HEISEN" sweep "$demo" --db "$dir/no/such/dir/w.db"
mkdir "$dir/adir"
# --db DIR means DIR/heisen.db (as a node URL naming a directory does):
# a query of a directory without one is refused, naming the file.
expect2 dir-as-db "$HEISEN" campaigns --db "$dir/adir"
grep -q "adir/heisen.db: No such file" "$dir/b.err" ||
	bad "dir-as-db: the message does not name DIR/heisen.db: $(snippet "$dir/b.err")"
head -c 8192 /dev/urandom >"$dir/corrupt.db"
cp "$dir/corrupt.db" "$dir/corrupt.orig"
expect2 corrupt-db "$HEISEN" sweep "$demo" --db "$dir/corrupt.db"
cmp -s "$dir/corrupt.db" "$dir/corrupt.orig" || bad "corrupt-db: file was modified"
expect2 resume-unknown "$HEISEN" sweep --resume 99 --db "$db"
expect2 run-bad-density "$HEISEN" run "$demo" --density 0
expect2 run-mask-and-density "$HEISEN" run "$demo" --density 5 --mask /dev/null
[ "$(sql "SELECT count(*) FROM runs")" = "$n_before" ] ||
	bad "bad input changed the database"
integrity bad-input

finish t_campaign
