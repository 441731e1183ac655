#!/usr/bin/env bash
# heisen rerun: a recorded run runs again under the very mask its campaign
# worker used (checked against the sweep's own findings: a recorded bug's
# two sites must both be armed), a serial campaign's run on the recorded
# path (its digest) with the same bugs; a check's under happens-before;
# with the campaign's arguments, exit
# statuses as `heisen run`, nothing recorded, and one message and exit 2
# for a bad id, a missing database, a program gone or changed.
# heisen sweep --progress-fd: the heisen.progress/1 lines, a bad FD, a
# reader that goes away or never reads, Ctrl-C and --resume.
. "$(dirname "$0")/lib.sh"
need_demos
fib="$root/demos/build/fibonacci.wasm"
db="$dir/w.db"
sql() { sqlite3 "$db" "$1"; }

# The sweeps keep to the profile default: the counts below are cells x runs
# of one profile.

# --- a campaign with progress lines ----------------------------------------
# Serial (--schedule): its runs find the same bugs on a loaded machine as
# on an idle one, and a rerun takes each run's path again.
"$HEISEN" sweep "$fib" --db "$db" --densities 10,30 --runs 10 --jobs 2 \
	--schedule random --seed 11 --json --progress-fd 3 3>"$dir/p.jsonl" >"$dir/sweep.json" \
	2>"$dir/sweep.err" || bad "sweep: exit $?: $(snippet "$dir/sweep.err")"
"$HEISEN" bugs --db "$db" --json >"$dir/bugs.json" ||
	bad "bugs --json: exit $?"
python3 - "$dir/p.jsonl" "$dir/sweep.json" "$dir/bugs.json" "$db" <<'EOF' ||
import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "the last line does not end with a newline"
ev = [json.loads(l) for l in lines[:-1]]
sw = json.load(open(sys.argv[2]))
bugs = {b["id"]: b for b in json.load(open(sys.argv[3]))["bugs"]}
assert all(e["schema"] == "heisen.progress/1" for e in ev), "schema"
s, e = ev[0], ev[-1]
assert s["event"] == "start" and s["campaign"] == sw["campaign"], s
assert s["planned"] == 20 and s["done"] == 0 and not s["resumed"], s
assert s["budget_s"] is None and s["program"] == "fibonacci.wasm", s
assert s["db"] == sys.argv[4] and s["seed"] == sw["seed"], s
assert e["event"] == "end" and e["status"] == "done", e
assert e["done"] == 20 and e["bugs"] == sw["campaign_bugs"], (e, sw)
assert e["statuses"] == sw["statuses"], e
mid = ev[1:-1]
assert all(x["event"] in ("progress", "bug") for x in mid), "events"
prog = [x for x in mid if x["event"] == "progress"]
assert prog and prog[-1]["done"] == 20 and prog[-1]["planned"] == 20, prog[-1:]
assert prog[-1]["bugs"] == sw["campaign_bugs"], prog[-1]
assert prog[-1]["eta_s"] == 0, prog[-1]
done = [x["done"] for x in prog]
assert done == sorted(done), "done went backwards"
for x in prog:
    assert x["elapsed_s"] >= 0 and x["runs_per_s"] >= 0, x
    assert x["eta_s"] is None or x["eta_s"] >= 0, x
bl = [x for x in mid if x["event"] == "bug"]
assert len(bl) == sw["campaign_bugs"], (len(bl), sw["campaign_bugs"])
assert len({x["bug"] for x in bl}) == len(bl), "a bug reported twice"
for x in bl:
    b = bugs[x["bug"]]
    got = [(t["site"], t["kind"], t["line"]) for t in x["sites"]]
    want = [(t["site"], t["kind"], t["line"]) for t in b["sites"]]
    assert got == want, (got, want)
    assert x["kinds"] == b["kinds"], (x, b)
EOF
	bad "progress lines: $(snippet "$dir/p.jsonl")"

# --- rerun: the mask of every run of the campaign ------------------------------
"$HEISEN" runs 1 --db "$db" --json >"$dir/runs.json" || bad "runs: exit $?"
nruns=$(sql "SELECT count(*) FROM runs")
for id in $(sql "SELECT id FROM runs WHERE campaign_id=1 ORDER BY id"); do
	"$HEISEN" rerun "$id" --db "$db" --json >"$dir/r$id.json" \
		2>"$dir/r$id.err" || bad "rerun $id: exit $?: $(snippet "$dir/r$id.err")"
done
python3 - "$dir" "$dir/runs.json" "$dir/bugs.json" <<'EOF' || bad "rerun --json of campaign 1"
import json, sys
d = sys.argv[1]
runs = json.load(open(sys.argv[2]))["runs"]
bugs = {b["id"]: b for b in json.load(open(sys.argv[3]))["bugs"]}
checked = 0
for r in runs:
    x = json.load(open(f"{d}/r{r['id']}.json"))
    rr = x["rerun"]
    assert x["schema"] == "heisen.run/1", x["schema"]
    assert rr["run"] == r["id"] and rr["campaign"] == 1, rr
    assert rr["idx"] == r["idx"], rr
    assert x["density_bp"] == r["density_bp"] and x["seed"] == r["seed"], x
    assert x["profile"] == r["profile"] and x["delay"] == 50, x
    assert x["pool"] == x["sites"], x
    # det_mask_count: round(density x pool)
    assert x["armed"] == (x["density_bp"] * x["pool"] + 5000) // 10000, x
    armed = rr["armed_sites"]
    assert len(armed) == x["armed"] and armed == sorted(set(armed)), "list"
    assert rr["recorded_status"] == r["status"], rr
    assert len(rr["recorded_bugs"]) == r["bugs"], (rr, r)
    assert sorted(rr["caught_again"] + rr["missed"]) == rr["recorded_bugs"], rr
    assert rr["new"] == len(rr["new_bugs"]), rr
    # Serial: the same path, the same bugs.
    assert rr["same_path"] is True, rr
    assert x["schedule"]["digest"] == rr["recorded_digest"], (x["schedule"], rr)
    assert not rr["missed"] and not rr["new"], rr
    caught = {tuple(s["site"] for s in v["sites"]) for v in x["violations"]}
    for b in rr["caught_again"]:
        assert tuple(s["site"] for s in bugs[b]["sites"]) in caught, b
    for n in rr["new_bugs"]:
        assert tuple(n["sites"]) in caught, n
        if n["bug"] is not None:
            assert n["bug"] not in rr["recorded_bugs"], n
    # The worker armed both sites of every bug it recorded: the same mask
    # arms them again, which a mask of another seed or pool rarely does
    # at these densities.
    for b in rr["recorded_bugs"]:
        for s in bugs[b]["sites"]:
            assert s["site"] in armed, (r["id"], b, s["site"])
        checked += 1
assert checked >= 3, f"only {checked} recorded bugs to check the masks on"
EOF
[ "$(sql "SELECT count(*) FROM runs")" = "$nruns" ] ||
	bad "rerun recorded runs in the database"

# the same mask as `heisen run --density D --seed S` (no pool)
read -r rid dens seed <<<"$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["runs"][0]
print(r["id"], r["density_bp"], "0x" + r["seed"])' "$dir/runs.json")"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["armed"])' "$dir/r$rid.json")
got=$("$HEISEN" run "$fib" --density "$(python3 -c "print($dens/100)")" \
	--seed "$seed" --json 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["armed"])')
[ "$got" = "$want" ] || bad "run --density armed $got, rerun armed $want"

# plain: the program's output on stdout, the report, the comparison line
"$HEISEN" rerun "$rid" --db "$db" >"$dir/plain.out" 2>"$dir/plain.err" ||
	bad "rerun plain: exit $?: $(snippet "$dir/plain.err")"
grep -q '^fibonacci: 2 threads' "$dir/plain.out" ||
	bad "rerun plain: no program output on stdout: $(snippet "$dir/plain.out")"
grep -q "^heisen: schedule random:0.05 seed $seed: .*; density .* seed $seed: [0-9]* of [0-9]* sites armed; ok 0" \
	"$dir/plain.out" || bad "rerun plain: no report line: $(snippet "$dir/plain.out")"
grep -q "^rerun of run $rid (recorded: ok 0, .*): caught again [0-9]* of [0-9]*.*; new 0; the same path (recorded digest [0-9a-f]*)\$" \
	"$dir/plain.out" || bad "rerun plain: no comparison line: $(snippet "$dir/plain.out")"
# --json: stdout is the document alone, the program's output on stderr
grep -q '^fibonacci: 2 threads' "$dir/r$rid.err" ||
	bad "rerun --json: the program's output is not on stderr"
# --fail-on-bugs: 1 exactly when a violation was caught
"$HEISEN" rerun "$rid" --db "$db" --json --fail-on-bugs >"$dir/f.json" 2>/dev/null
rc=$?
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["violations"]))' "$dir/f.json")
if [ "$n" -gt 0 ]; then want=1; else want=0; fi
[ $rc -eq $want ] || bad "rerun --fail-on-bugs: exit $rc with $n violations"

# --- a --prune campaign: the mask over its pool ---------------------------------
"$HEISEN" sweep "$fib" --db "$db" --densities 30 --runs 6 --jobs 2 --seed 12 \
	--profiles default --prune >/dev/null 2>"$dir/prune.err" || bad "sweep --prune: exit $?: $(snippet "$dir/prune.err")"
for id in $(sql "SELECT id FROM runs WHERE campaign_id=2 ORDER BY id"); do
	"$HEISEN" rerun "$id" --db "$db" --json >"$dir/p$id.json" 2>/dev/null ||
		bad "rerun $id (prune): exit $?"
	python3 - "$dir/p$id.json" <<'EOF' || bad "rerun $id (prune): $(snippet "$dir/p$id.json")"
import json, sys
x = json.load(open(sys.argv[1]))
assert 0 < x["pool"] < x["sites"], x["pool"]
assert x["armed"] == (x["density_bp"] * x["pool"] + 5000) // 10000, x
assert len(x["rerun"]["armed_sites"]) == x["armed"], x
EOF
done
"$HEISEN" bugs --db "$db" --json >"$dir/bugs2.json"
python3 - "$dir" "$dir/bugs2.json" $(sql "SELECT id FROM runs WHERE campaign_id=2") <<'EOF' || bad "prune: a recorded bug's site not armed by the rerun"
import json, sys
bugs = {b["id"]: b for b in json.load(open(sys.argv[2]))["bugs"]}
for rid in sys.argv[3:]:
    x = json.load(open(f"{sys.argv[1]}/p{rid}.json"))
    for b in x["rerun"]["recorded_bugs"]:
        for s in bugs[b]["sites"]:
            assert s["site"] in x["rerun"]["armed_sites"], (rid, b, s)
EOF

# --- the campaign's arguments and the program's exit status -------------------------
"$HEISEN" sweep "$root/demos/build/input-dep.wasm" --db "$db" --densities 50 \
	--runs 1 --profiles default --jobs 1 -- 3 >/dev/null 2>&1 || bad "sweep input-dep: exit $?"
id=$(sql "SELECT max(id) FROM runs")
"$HEISEN" rerun "$id" --db "$db" >"$dir/args.out" 2>/dev/null ||
	bad "rerun input-dep: exit $?"
grep -q '^input-dep: 3 worker(s)' "$dir/args.out" ||
	bad "rerun input-dep: not run with the campaign's argument: $(snippet "$dir/args.out")"
for g in exit3:3:exit trap:134:trap; do
	IFS=: read -r name code status <<<"$g"
	"$HEISEN" sweep "$root/demos/build/guests/$name.wasm" --db "$db" \
		--densities 50 --runs 1 --profiles default --jobs 1 --timeout 5 \
		>/dev/null 2>&1
	id=$(sql "SELECT max(id) FROM runs")
	[ "$(sql "SELECT status FROM runs WHERE id=$id")" = "$status" ] ||
		bad "$name: recorded status is not $status"
	"$HEISEN" rerun "$id" --db "$db" --json >"$dir/$name.json" 2>/dev/null
	rc=$?
	[ $rc -eq "$code" ] || bad "rerun $name: exit $rc, expected $code"
	grep -q "\"status\":\"$status\".*\"recorded_status\":\"$status\"" \
		"$dir/$name.json" || bad "rerun $name: $(snippet "$dir/$name.json")"
done

# --- a check's run: happens-before again ----------------------------------------
# early-read's race (a read long before the write it races with) is seen
# by happens-before in every run, by a collision almost never.
"$HEISEN" check "$root/demos/build/early-read.wasm" --profile default --db "$db" >/dev/null 2>&1 ||
	bad "check: exit $?"
id=$(sql "SELECT max(id) FROM runs")
"$HEISEN" rerun "$id" --db "$db" --json >"$dir/hb.json" 2>/dev/null
python3 - "$dir/hb.json" <<'EOF' || bad "rerun of a check's run: $(snippet "$dir/hb.json")"
import json, sys
x = json.load(open(sys.argv[1]))
rr = x["rerun"]
assert x["armed"] == x["sites"] and rr["recorded_digest"] is None, x
assert len(rr["recorded_bugs"]) == 1 and rr["caught_again"] == rr["recorded_bugs"], rr
EOF

# --- errors: one line, exit 2 ----------------------------------------------------
expect2() { # NAME PATTERN CMD...
	local name=$1 pat=$2
	shift 2
	"$@" >"$dir/e.out" 2>"$dir/e.err"
	local rc=$?
	[ $rc -eq 2 ] || bad "$name: exit $rc, expected 2: $(snippet "$dir/e.err")"
	grep -q -- "$pat" "$dir/e.err" || bad "$name: message: $(snippet "$dir/e.err")"
	[ "$(wc -l <"$dir/e.err")" -eq 1 ] || bad "$name: not one line: $(snippet "$dir/e.err")"
	[ -s "$dir/e.out" ] && bad "$name: output on stdout: $(snippet "$dir/e.out")"
}
expect2 "rerun of no run" "no run 99999" "$HEISEN" rerun 99999 --db "$db"
expect2 "rerun abc" "not a run id" "$HEISEN" rerun abc --db "$db"
expect2 "rerun 0" "not a run id" "$HEISEN" rerun 0 --db "$db"
expect2 "rerun, no database" "created by 'heisen sweep'" \
	"$HEISEN" rerun 1 --db "$dir/none.db"
[ -e "$dir/none.db" ] && bad "rerun created a database"
cp "$fib" "$dir/app.wasm"
"$HEISEN" sweep "$dir/app.wasm" --db "$db" --densities 50 --runs 1 --jobs 1 \
	--profiles default >/dev/null 2>&1 || bad "sweep app.wasm: exit $?"
id=$(sql "SELECT max(id) FROM runs")
cp "$root/demos/build/fibonacci-lock.wasm" "$dir/app.wasm"
expect2 "rerun, program changed" "app.wasm has changed since campaign" \
	"$HEISEN" rerun "$id" --db "$db"
rm "$dir/app.wasm"
expect2 "rerun, program gone" "is gone: .*app.wasm" "$HEISEN" rerun "$id" --db "$db"

# --- --progress-fd: bad descriptors ------------------------------------------------
expect2 "progress-fd closed" "not an open file descriptor" \
	"$HEISEN" sweep "$fib" --db "$dir/x.db" --runs 1 --progress-fd 9
expect2 "progress-fd read-only" "open for reading only" \
	"$HEISEN" sweep "$fib" --db "$dir/x.db" --runs 1 --progress-fd 9 9</dev/null
expect2 "progress-fd word" "expects a file descriptor" \
	"$HEISEN" sweep "$fib" --db "$dir/x.db" --runs 1 --progress-fd x
[ -e "$dir/x.db" ] && bad "a bad --progress-fd created the database"

# --- a reader that goes away: the sweep goes on (no SIGPIPE) -----------------------
{
	"$HEISEN" sweep "$fib" --db "$db" --densities 10:100:10 --runs 10 \
		--profiles default --jobs 2 --seed 13 --progress-fd 3 3>&1 >"$dir/gone.out" 2>&1
	echo $? >"$dir/gone.rc"
} | head -n 1 >/dev/null
[ "$(cat "$dir/gone.rc")" = 0 ] ||
	bad "reader gone: sweep exit $(cat "$dir/gone.rc"): $(snippet "$dir/gone.out")"
c=$(sql "SELECT max(id) FROM campaigns")
[ "$(sql "SELECT count(*) FROM runs WHERE campaign_id=$c")" = 100 ] &&
	[ "$(sql "SELECT status FROM campaigns WHERE id=$c")" = done ] ||
	bad "reader gone: the campaign did not complete"

# --- a reader that never reads: a full pipe does not hold the sweep ----------------
python3 - "$HEISEN" "$fib" "$db" <<'EOF' || bad "a full progress pipe held up the sweep"
import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
os.set_blocking(w, False)
try:
    while True:
        os.write(w, b"x" * 512)
except BlockingIOError:
    pass
os.set_blocking(w, True)
p = subprocess.run([sys.argv[1], "sweep", sys.argv[2], "--db", sys.argv[3],
                    "--densities", "50", "--runs", "20", "--jobs", "2",
                    "--profiles", "default",
                    "--progress-fd", str(w)], pass_fds=(w,),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   timeout=60)
assert p.returncode == 0, (p.returncode, p.stderr)
os.close(w)
data = os.read(r, 1 << 16)
assert set(data) == {ord("x")}, "heisen wrote into a full pipe"
EOF

# --- Ctrl-C: end "stopped"; --resume: start "resumed" --------------------------------
"$HEISEN" sweep "$fib" --db "$db" --densities 10:100:10 --runs 60 --jobs 2 \
	--profiles default --seed 14 --progress-fd 3 3>"$dir/int.jsonl" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
	grep -q '"done":[1-9][0-9]' "$dir/int.jsonl" && break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || bad "sigint: exit $rc, expected 130"
c=$(sql "SELECT max(id) FROM campaigns")
tail -n 1 "$dir/int.jsonl" | grep -q '"event":"end","status":"stopped"' ||
	bad "sigint: last line: $(tail -n 1 "$dir/int.jsonl" | head -c 300)"
n=$(sql "SELECT count(*) FROM runs WHERE campaign_id=$c")
"$HEISEN" sweep --resume "$c" --db "$db" --progress-fd 3 3>"$dir/res.jsonl" \
	>/dev/null 2>&1 || bad "resume: exit $?"
head -n 1 "$dir/res.jsonl" |
	grep -q "\"event\":\"start\",\"campaign\":$c,.*\"resumed\":true,\"planned\":600,\"budget_s\":null,\"done\":$n," ||
	bad "resume: start line: $(head -n 1 "$dir/res.jsonl" | head -c 300)"
tail -n 1 "$dir/res.jsonl" | grep -q '"event":"end","status":"done","done":600,' ||
	bad "resume: end line: $(tail -n 1 "$dir/res.jsonl" | head -c 300)"

# --- the mask generator's version -----------------------------------------------
# A campaign records the generator that drew its masks; resume and rerun
# refuse another one (the same seeds would arm other sites).
"$HEISEN" campaigns --db "$db" --json | grep -q '"mask_version":1' ||
	bad "campaigns --json: no mask_version 1"
"$HEISEN" sweep "$fib" --db "$db" --densities 50 --runs 2 --jobs 1 \
	--profiles default >/dev/null 2>&1 || bad "sweep for the version check: exit $?"
c=$(sql "SELECT max(id) FROM campaigns")
r=$(sql "SELECT min(id) FROM runs WHERE campaign_id=$c")
sql "UPDATE campaigns SET mask_version=7, status='stopped' WHERE id=$c"
expect2 "rerun, other mask generator" "mask generator version 7" \
	"$HEISEN" rerun "$r" --db "$db"
expect2 "resume, other mask generator" "mask generator version 7" \
	"$HEISEN" sweep --resume "$c" --db "$db"
# A workspace of schema 1 (before the columns mask_version, owner, kind,
# origin, stack_a, stack_b, value, width_a, width_b, sig, stdin, stdin_hash, locks and names, and the tables remotes, stacks and triage) opens, migrated to the newest schema, its
# campaigns at version 1 and of kind sweep.
latest=$(sqlite3 "$db" "PRAGMA user_version")
cp "$db" "$dir/v1.db"
sqlite3 "$dir/v1.db" "ALTER TABLE runs DROP COLUMN stderr; DROP TABLE slurm_jobs; ALTER TABLE campaigns DROP COLUMN dirs; ALTER TABLE campaigns DROP COLUMN env; ALTER TABLE campaigns DROP COLUMN max_threads; ALTER TABLE campaigns DROP COLUMN max_memory_pages; ALTER TABLE run_bugs DROP COLUMN locks; ALTER TABLE run_bugs DROP COLUMN names; DROP TABLE schedules; ALTER TABLE campaigns DROP COLUMN schedule; ALTER TABLE campaigns DROP COLUMN failure; ALTER TABLE campaigns DROP COLUMN stdin; ALTER TABLE campaigns DROP COLUMN stdin_hash; ALTER TABLE run_bugs DROP COLUMN location; ALTER TABLE run_bugs DROP COLUMN loc_stack; ALTER TABLE run_bugs DROP COLUMN parents; ALTER TABLE run_bugs DROP COLUMN spawn_a; ALTER TABLE run_bugs DROP COLUMN spawn_b; DROP TABLE triage; DROP INDEX bugs_sig; ALTER TABLE bugs DROP COLUMN sig; ALTER TABLE bugs DROP COLUMN width_a; ALTER TABLE bugs DROP COLUMN width_b; ALTER TABLE run_bugs DROP COLUMN value; ALTER TABLE run_bugs DROP COLUMN stack_a; ALTER TABLE run_bugs DROP COLUMN stack_b; DROP TABLE stacks; DROP TABLE remotes; DROP INDEX campaigns_origin; ALTER TABLE campaigns DROP COLUMN origin; ALTER TABLE campaigns DROP COLUMN kind; ALTER TABLE campaigns DROP COLUMN owner; ALTER TABLE campaigns DROP COLUMN mask_version; PRAGMA user_version=1" ||
	bad "could not make a schema-1 copy"
"$HEISEN" campaigns --db "$dir/v1.db" --json >"$dir/v1.json" ||
	bad "campaigns on a schema-1 workspace: exit $?"
[ "$(sqlite3 "$dir/v1.db" "PRAGMA user_version")" = "$latest" ] ||
	bad "schema-1 workspace not migrated to $latest"
[ "$(sqlite3 "$dir/v1.db" "SELECT count(*) FROM campaigns WHERE mask_version=1")" = \
	"$(sqlite3 "$dir/v1.db" "SELECT count(*) FROM campaigns")" ] ||
	bad "migrated campaigns are not at mask version 1"
[ "$(sqlite3 "$dir/v1.db" "SELECT count(*) FROM campaigns WHERE kind='sweep'")" = \
	"$(sqlite3 "$dir/v1.db" "SELECT count(*) FROM campaigns")" ] ||
	bad "migrated campaigns are not of kind sweep"
# Its bugs have no signature: each is its own, "#ID".
"$HEISEN" bugs --db "$dir/v1.db" --json >"$dir/v1bugs.json" ||
	bad "bugs on a migrated schema-1 workspace: exit $?"
python3 -c 'import json, sys
for b in json.load(open(sys.argv[1]))["bugs"]:
    assert b["signature"] == "#%d" % b["id"] and b["state"] == "new", b' \
	"$dir/v1bugs.json" 2>"$dir/py.err" || bad "migrated bugs: $(snippet "$dir/py.err")"

finish t_rerun
