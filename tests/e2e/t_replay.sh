#!/usr/bin/env bash
# `heisen replay` and `heisen mask save`: every bug a sweep of the racy
# demos finds replays in the three modes (trigger reproduces it in nearly
# every run; thresholds are generous here, the real rates are in `make
# bench`); a saved repro file replays in another folder with no
# workspace; a changed program is refused; bad ids and bad repro files
# are one message and exit 2 with nothing written; a saved mask arms
# exactly the sites of its run.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 3
db=$dir/w.db
b="$root/demos/build"

# json FILE EXPR: a value of the JSON in FILE (python3 expression on d).
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- every bug of two racy demos, three modes ------------------------------
for demo in fibonacci antidep; do
	"$HEISEN" sweep "$b/$demo.wasm" --db "$db" --densities 20:100:20 \
		--runs 8 --profiles default --seed 11 >/dev/null 2>"$dir/sweep.err" ||
		bad "$demo: sweep exit $?: $(snippet "$dir/sweep.err")"
done
bugs=$(sqlite3 "$db" "SELECT id FROM bugs ORDER BY id")
[ -n "$bugs" ] || bad "the sweeps found no bug"
for bug in $bugs; do
	for mode in trigger pinned minimal; do
		"$HEISEN" replay "$bug" --db "$db" --mode $mode --runs 20 \
			--json >"$dir/r.json" 2>"$dir/r.err"
		rc=$?
		[ $rc -eq 0 ] || [ $rc -eq 1 ] ||
			{ bad "bug $bug $mode: exit $rc: $(snippet "$dir/r.err")"; continue; }
		got=$(json "$dir/r.json" 'd["reproduced"]')
		runs=$(json "$dir/r.json" 'd["runs"]')
		[ "$runs" = 20 ] || bad "bug $bug $mode: $runs runs, want 20"
		[ "$(json "$dir/r.json" 'd["schema"]')" = heisen.replay/1 ] ||
			bad "bug $bug $mode: schema"
		[ "$rc" -eq $((got == 0)) ] || bad "bug $bug $mode: exit $rc with $got reproduced"
		case $mode in
		trigger)
			[ "$got" -ge 17 ] || bad "bug $bug trigger: reproduced $got of 20"
			[ "$(json "$dir/r.json" 'd["armed"]')" -le 2 ] ||
				bad "bug $bug trigger: more than the two sites armed"
			;;
		minimal)
			[ "$(json "$dir/r.json" 'd["armed"]')" -le 2 ] ||
				bad "bug $bug minimal: more than the two sites armed"
			;;
		pinned)
			[ "$(json "$dir/r.json" 'd["original"]["runs"] > 0')" = True ] ||
				bad "bug $bug pinned: no original cell"
			;;
		esac
	done
done

# --- a run instead of a bug; plain output --------------------------------------
bug=$(sqlite3 "$db" "SELECT id FROM bugs ORDER BY id LIMIT 1")
run=$(sqlite3 "$db" "SELECT first_run FROM bugs WHERE id=$bug")
"$HEISEN" replay "$bug" --run "$run" --db "$db" --runs 10 >"$dir/p.out" 2>&1 ||
	bad "replay BUG --run RUN: exit $?: $(snippet "$dir/p.out")"
grep -Eq "^reproduced in [0-9]+ of 10 runs: .* \(95 % interval " "$dir/p.out" ||
	bad "plain output has no rate line: $(snippet "$dir/p.out")"
grep -q "^original cell " "$dir/p.out" || bad "plain output has no original cell"
"$HEISEN" replay "$bug" --db "$db" --runs 50 --until-first --json >"$dir/u.json" ||
	bad "--until-first: exit $?"
[ "$(json "$dir/u.json" 'd["runs"] < 50 and d["first"] is not None')" = True ] ||
	bad "--until-first did not stop at the first reproduction: $(snippet "$dir/u.json")"

# --- repro file: save, delete the workspace, replay elsewhere ------------------
"$HEISEN" replay "$bug" --db "$db" --runs 10 --save "$dir/race.repro" >/dev/null ||
	bad "--save: exit $?"
grep -q '^heisen-repro 2$' "$dir/race.repro" || bad "repro file has no version line"
mkdir "$dir/elsewhere"
prog=$(sqlite3 "$db" "SELECT p.name FROM bugs b JOIN programs p ON p.id=b.program_id WHERE b.id=$bug")
cp "$b/$prog" "$dir/elsewhere/app.wasm"
cp "$dir/race.repro" "$dir/elsewhere/"
rm -f "$db" "$db"-wal "$db"-shm
(cd "$dir/elsewhere" && "$HEISEN" replay --file race.repro app.wasm --runs 20 --json) \
	>"$dir/f.json" 2>"$dir/f.err" || bad "replay --file: exit $?: $(snippet "$dir/f.err")"
[ "$(json "$dir/f.json" 'd["reproduced"] >= 17 and d["mode"] == "trigger"')" = True ] ||
	bad "replay --file did not reproduce: $(snippet "$dir/f.json")"
[ -e "$dir/elsewhere/heisen.db" ] && bad "replay --file created a workspace"
other=fibonacci-lock.wasm
[ "$prog" = fibonacci-lock.wasm ] && other=antidep.wasm
"$HEISEN" replay --file "$dir/race.repro" "$b/$other" >"$dir/c.out" 2>"$dir/c.err"
[ $? -eq 2 ] && grep -q "not the program of this race" "$dir/c.err" ||
	bad "a changed program was not refused: $(snippet "$dir/c.err")"

# --- bad input: exit 2, one message, nothing written ----------------------------
"$HEISEN" sweep "$b/fibonacci.wasm" --db "$db" --densities 100 --runs 2 --profiles default \
	>/dev/null 2>&1
expect2() { # NAME PATTERN CMD...
	local name=$1 pat=$2
	shift 2
	"$@" >"$dir/b.out" 2>"$dir/b.err"
	local rc=$?
	[ $rc -eq 2 ] || bad "$name: exit $rc, expected 2"
	grep -q -- "$pat" "$dir/b.err" || bad "$name: message: $(snippet "$dir/b.err")"
	[ -s "$dir/b.out" ] && bad "$name: output on stdout"
	[ -e "$dir/never.repro" ] && bad "$name: wrote the repro file"
	return 0
}
expect2 unknown-bug "no bug 999" "$HEISEN" replay 999 --db "$db" --save "$dir/never.repro"
expect2 unknown-run "no run 999" "$HEISEN" replay --run 999 --db "$db" --save "$dir/never.repro"
expect2 bad-mode "pinned, minimal, trigger or schedule" "$HEISEN" replay 1 --db "$db" --mode sideways
expect2 no-workspace "No such file" "$HEISEN" replay 1 --db "$dir/none.db"
head -n 12 "$dir/race.repro" >"$dir/trunc.repro"
expect2 truncated "truncated" "$HEISEN" replay --file "$dir/trunc.repro" "$dir/elsewhere/app.wasm" --save "$dir/never.repro"
sed 's/^heisen-repro [12]$/heisen-repro 9/' "$dir/race.repro" >"$dir/future.repro"
expect2 future "newer heisen" "$HEISEN" replay --file "$dir/future.repro" "$dir/elsewhere/app.wasm"
sed 's/^mode = trigger$/mode = sideways/' "$dir/race.repro" >"$dir/edited.repro"
expect2 edited "line [0-9]*: bad value for mode" "$HEISEN" replay --file "$dir/edited.repro" "$dir/elsewhere/app.wasm"
sed 's/^site_b = [0-9]*$/site_b = 99999999/' "$dir/race.repro" >"$dir/nosite.repro"
expect2 no-such-site "inconsistent" "$HEISEN" replay --file "$dir/nosite.repro" "$dir/elsewhere/app.wasm"
# A bug whose sites do not exist in the program given (--force past the
# hash): refused all the same.
sed 's/^sites = [0-9]*$/sites = 99999999/; s/^site_b = [0-9]*$/site_b = 99999000/' \
	"$dir/race.repro" >"$dir/gone.repro"
expect2 sites-gone "do not all exist" "$HEISEN" replay --file "$dir/gone.repro" "$dir/elsewhere/app.wasm" --force
expect2 file-no-program "takes the program" "$HEISEN" replay --file "$dir/race.repro"
expect2 file-and-run "takes the program" "$HEISEN" replay --run 1 --file "$dir/race.repro" "$dir/elsewhere/app.wasm"

# --- mask save: the exact armed sites of a run -----------------------------------
"$HEISEN" sweep "$b/fibonacci.wasm" --db "$db" --densities 35 --runs 2 --seed 5 \
	--profiles default >/dev/null 2>&1
run=$(sqlite3 "$db" "SELECT max(id) FROM runs")
"$HEISEN" mask save "$run" -o "$dir/m.txt" --db "$db" >/dev/null || bad "mask save: exit $?"
"$HEISEN" rerun "$run" --db "$db" --json >"$dir/rr.json" 2>/dev/null
python3 - "$dir/m.txt" "$dir/rr.json" <<'EOF' || bad "mask save: its sites differ from the run's armed sites"
import json, sys
ids = set()
for line in open(sys.argv[1]):
    line = line.split('#')[0]
    for w in line.replace(',', ' ').split():
        a, _, b = w.partition('-')
        ids.update(range(int(a), int(b or a) + 1))
armed = set(json.load(open(sys.argv[2]))["rerun"]["armed_sites"])
sys.exit(0 if ids == armed and ids else 1)
EOF
"$HEISEN" run "$b/fibonacci.wasm" --mask "$dir/m.txt" --json >"$dir/mr.json" 2>/dev/null
[ "$(json "$dir/mr.json" 'd["armed"]')" = "$(json "$dir/rr.json" 'len(d["rerun"]["armed_sites"])')" ] ||
	bad "run --mask with the saved mask armed another number of sites"
expect2 mask-unknown-run "no run 999" "$HEISEN" mask save 999 -o "$dir/never.repro" --db "$db"

finish t_replay
