#!/bin/bash
# t_world.sh - the program's world (--dir, --env, --max-threads,
# --max-memory) given to the commands that run a program many times, as
# `heisen run` takes it, and recorded for the runs' replays:
#   (a) world-race reads a number from the file WORLD_FILE names, in a
#       directory granted with --dir: `check` finds its race with the
#       directory and the variable, and without them records why its runs
#       did not end ok (exit 3: no variable; exit 2: no file);
#   (b) the campaign records the world (campaigns --json: absolute host
#       path, guest name, environment, limits), rerun and replay use it
#       again, and `check --max-memory 8M` ends every run at the memory
#       limit (the program's memory has 129 pages);
#   (c) a sweep and an explore take the options too, a --resume refuses
#       to change them;
#   (d) a repro file saved by replay carries dir, env and the limits and
#       replays the race in a fresh folder; `replay --env` replaces the
#       recorded environment; `minimize` saves them (a failure every
#       run shows, stopped by its budget with all sites left: it used to
#       try 2^sites subsets and crash);
#   (e) bad values are refused before anything runs, with run's message;
#   (f) why runs did not end ok: a sweep of stderr-trap (seven lines to
#       stderr, then a trap in give_up) lists the trap with its function
#       and offset and the last five lines of the first run's stderr, in
#       text and JSON, as check does;
#   (g) `run --timeout` of a deadlock prints each thread's stack, the two
#       workers in pthread_mutex_lock from work, main in pthread_join; and
#       `run --density`'s report goes to stderr, stdout holding the
#       program's output alone;
#   (h) libc-race: races in musl's sprintf (through the guest's stdio
#       wrapper) on the caller's buffer have SUMMARY lines naming the
#       program's calls, never libc's or the guest library's files.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB

wasm=$root/demos/build/guests/world-race.wasm
mkdir -p "$dir/data" && echo 1 >"$dir/data/n"
world=(--dir "data" --env WORLD_FILE=data/n)

# ---- (a) check in the program's world ---------------------------------------
hq check check "$wasm" "${world[@]}" --runs 2 --json --db "$dir/w.db"
want "check --dir --env" 0
python3 - "$dir/check.out" <<'PY' >"$dir/check.py" 2>&1 ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["statuses"] == {"ok": 2}, d["statuses"]
assert any(s["function"] == "work" for r in d["races"] for s in r["sites"]), d["races"]
PY
	bad "check --dir --env: no race in work: $(snippet "$dir/check.py")"

hq noenv check "$wasm" --dir data --runs 2 --db "$dir/n.db"
want "check without --env" 0
grep -q "2 runs ended with status exit" "$dir/noenv.out" ||
	bad "check without --env: $(snippet "$dir/noenv.out")"
grep -q "0 races" "$dir/noenv.out" || bad "check without --env found races"
hq nodir check "$wasm" --env WORLD_FILE=data/n --runs 1 --json --db "$dir/n.db"
want "check without --dir" 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["statuses"]=={"exit":1} and not d["races"], d' \
	"$dir/nodir.out" >"$dir/nodir.py" 2>&1 ||
	bad "check without --dir: $(snippet "$dir/nodir.py")"

# ---- (b) recorded with the campaign, used again ----------------------------
hq camps campaigns --db "$dir/w.db" --json
want "campaigns --json" 0
python3 - "$dir/camps.out" "$dir/data" <<'PY' >"$dir/camps.py" 2>&1 ||
import json, os, sys
c = json.load(open(sys.argv[1]))["campaigns"][0]
assert c["dirs"] == [{"host": os.path.realpath(sys.argv[2]), "guest": "data"}], c["dirs"]
assert c["env"] == ["WORLD_FILE=data/n"], c["env"]
assert c["max_threads"] is None and c["max_memory_bytes"] is None, c
PY
	bad "campaigns --json: world not recorded: $(snippet "$dir/camps.py")"

# From another folder: the granted directory is the recorded absolute one.
mkdir "$dir/elsewhere"
(cd "$dir/elsewhere" && timeout -s KILL 300 "$HEISEN" rerun 1 --db "$dir/w.db" \
	>"$dir/rerun.out" 2>"$dir/rerun.err")
rc=$?
want rerun 0
grep -q '^world-race: [0-9]* 0$' "$dir/rerun.out" ||
	bad "rerun did not run in the campaign's world: $(snippet "$dir/rerun.out") $(snippet "$dir/rerun.err")"

hq limit check "$wasm" "${world[@]}" --max-threads 1 --max-memory 8M --runs 1 \
	--json --db "$dir/l.db"
want "check --max-memory 8M" 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["statuses"]=={"limit":1} and "exceeds the limit of 128 pages" in d["reasons"][0]["message"], d' \
	"$dir/limit.out" >"$dir/limit.py" 2>&1 ||
	bad "check --max-memory 8M: $(snippet "$dir/limit.py")"
hq lcamps campaigns --db "$dir/l.db" --json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["campaigns"][0]; assert c["max_threads"]==1 and c["max_memory_bytes"]==8<<20, c' \
	"$dir/lcamps.out" >"$dir/lcamps.py" 2>&1 ||
	bad "campaigns --json: limits not recorded: $(snippet "$dir/lcamps.py")"

# ---- (c) sweep and explore --------------------------------------------------
hq sweep sweep "$wasm" "${world[@]}" --densities 100 --runs 2 --profiles default \
	--json --db "$dir/s.db"
want "sweep --dir --env" 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["statuses"]; assert s["ok"]==2 and sum(s.values())==2, s' \
	"$dir/sweep.out" >"$dir/sweep.py" 2>&1 ||
	bad "sweep --dir --env: runs did not end ok: $(snippet "$dir/sweep.py")"
hq resume sweep --resume 1 --env WORLD_FILE=x --db "$dir/s.db"
want "sweep --resume --env" 2
grep -q -- "--env cannot change a campaign being resumed" "$dir/resume.err" ||
	bad "sweep --resume --env: $(snippet "$dir/resume.err")"
hq explore explore "$wasm" "${world[@]}" --runs 2 --strategy random --json --db "$dir/e.db"
want "explore --dir --env" 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["statuses"]=={"ok":2} and d["races"], d["statuses"]' \
	"$dir/explore.out" >"$dir/explore.py" 2>&1 ||
	bad "explore --dir --env: $(snippet "$dir/explore.py")"

# ---- (d) repro files --------------------------------------------------------
hq save replay 1 --runs 3 --save "$dir/race.repro" --db "$dir/w.db"
want "replay --save" 0
grep -q "^dir = $(cd "$dir/data" && pwd -P)::data$" "$dir/race.repro" &&
	grep -q '^env = WORLD_FILE=data/n$' "$dir/race.repro" ||
	bad "the repro file does not carry the world: $(snippet "$dir/race.repro")"
mkdir "$dir/fresh" && cp "$dir/race.repro" "$wasm" "$dir/fresh/"
(cd "$dir/fresh" && HEISEN_DB="$dir/fresh/none.db" timeout -s KILL 300 \
	"$HEISEN" replay --file race.repro world-race.wasm --runs 3 \
	>"$dir/fresh.out" 2>"$dir/fresh.err")
rc=$?
want fresh 0
# The breakpoint holds for a tenth of the run: a loaded machine may let
# a run end before the two threads meet, so at least one of 3.
grep -qE "reproduced in [1-3] of 3 runs" "$dir/fresh.out" ||
	bad "replay in a fresh folder: $(snippet "$dir/fresh.out")"
# --env replaces the recorded environment: no file, no race.
(cd "$dir/fresh" && timeout -s KILL 300 "$HEISEN" replay --file race.repro \
	world-race.wasm --runs 2 --env WORLD_FILE=data/none \
	>"$dir/envr.out" 2>"$dir/envr.err")
rc=$?
want "replay --env" 1
# A repro file of an older heisen (no world keys) still reads.
grep -v '^dir = \|^env = ' "$dir/race.repro" >"$dir/fresh/old.repro"
(cd "$dir/fresh" && timeout -s KILL 300 "$HEISEN" replay --file old.repro \
	world-race.wasm --runs 1 --dir "$dir/data::data" --env WORLD_FILE=data/n \
	>"$dir/old.out" 2>"$dir/old.err")
rc=$?
want "replay of a repro file without world keys" 0

hq min minimize "$wasm" "${world[@]}" --max-threads 8 --failure exit:0 \
	--repeat 1 --budget 2s --save "$dir/min.repro"
want "minimize --dir --env" 0
grep -q '^env = WORLD_FILE=data/n$' "$dir/min.repro" &&
	grep -q '^max_threads = 8$' "$dir/min.repro" ||
	bad "minimize --save: no world: $(snippet "$dir/min.repro")"

# ---- (e) bad values ---------------------------------------------------------
hq badenv check "$wasm" --env NOEQUALS --db "$dir/bad.db"
want "check --env NOEQUALS" 2
grep -q "heisen check: --env expects NAME=VALUE, got 'NOEQUALS'" "$dir/badenv.err" ||
	bad "check --env NOEQUALS: $(snippet "$dir/badenv.err")"
hq baddir sweep "$wasm" --dir "$dir/missing" --db "$dir/bad.db"
want "sweep --dir MISSING" 2
grep -q "heisen sweep: --dir $dir/missing: cannot grant it" "$dir/baddir.err" ||
	bad "sweep --dir MISSING: $(snippet "$dir/baddir.err")"
hq badmem replay 1 --max-memory 3 --db "$dir/w.db"
want "replay --max-memory 3" 2
grep -q "heisen replay: --max-memory expects a size" "$dir/badmem.err" ||
	bad "replay --max-memory 3: $(snippet "$dir/badmem.err")"
[ ! -e "$dir/bad.db" ] || bad "a refused option left a workspace behind"

# ---- (f) reasons with the stderr's last lines -------------------------------
trap_wasm=$root/demos/build/guests/stderr-trap.wasm
hq rs sweep "$trap_wasm" --densities 100 --runs 2 --profiles default --db "$dir/r.db"
want "sweep stderr-trap" 0
grep -q "^  2 runs ended with status trap$" "$dir/rs.out" &&
	grep -qE "^    trap in 2 runs \(first: run 1\): unreachable in function [0-9]+ 'give_up' at offset 0x" "$dir/rs.out" &&
	grep -q "^      run 1's stderr ended with:$" "$dir/rs.out" &&
	grep -q "^        stderr-trap: line 3$" "$dir/rs.out" &&
	grep -q "^        stderr-trap: line 7$" "$dir/rs.out" &&
	! grep -q "line 2$" "$dir/rs.out" ||
	bad "sweep's reasons: $(snippet "$dir/rs.out")"
for cmd in sweep check; do
	extra=(--runs 1)
	[ $cmd = sweep ] && extra+=(--densities 100 --profiles default)
	hq "rj$cmd" $cmd "$trap_wasm" "${extra[@]}" --json --db "$dir/r.db"
	python3 - "$dir/rj$cmd.out" <<'PY' >"$dir/rj$cmd.py" 2>&1 ||
import json, sys
r = json.load(open(sys.argv[1]))["reasons"]
assert len(r) == 1 and r[0]["status"] == "trap" and "'give_up'" in r[0]["message"], r
assert r[0]["stderr"] == "\n".join("stderr-trap: line %d" % i for i in range(3, 8)), r
PY
		bad "$cmd --json reasons: $(snippet "$dir/rj$cmd.py")"
done

# ---- (g) run: a timeout's stacks, the report on stderr ----------------------
hq dl run "$root/demos/build/guests/deadlock.wasm" --timeout 1
want "run --timeout 1 of a deadlock" 124
grep -q "^heisen: where the threads were:$" "$dir/dl.err" &&
	[ "$(grep -c '^    #[0-9] pthread_mutex_lock ' "$dir/dl.err")" = 2 ] &&
	[ "$(grep -cE '^    #[0-9] work .*deadlock\.c:[0-9]+$' "$dir/dl.err")" = 2 ] &&
	grep -qE '^    #[0-9] pthread_join ' "$dir/dl.err" &&
	grep -q '^  thread 0:$' "$dir/dl.err" ||
	bad "run --timeout: the threads' stacks: $(snippet "$dir/dl.err")"
hq dens run "$wasm" "${world[@]}" --density 100 --seed 1
want "run --density" 0
grep -q '^world-race: [0-9]* 0$' "$dir/dens.out" && [ "$(wc -l <"$dir/dens.out")" = 1 ] ||
	bad "run --density: stdout is not the program's output alone: $(snippet "$dir/dens.out")"
grep -q '^heisen: density 100.00% seed 0x0000000000000001: ' "$dir/dens.err" ||
	bad "run --density: no summary line on stderr: $(snippet "$dir/dens.err")"

# ---- (h) a race in libc is the caller's ---------------------------------------
src=$root/tests/e2e/guests/libc-race.c
hq lr check "$root/demos/build/guests/libc-race.wasm" --runs 1 --db "$dir/lr.db"
want "check libc-race" 0
t_line=$(grep -n "thread's call" "$src" | cut -d: -f1)
m_line=$(grep -n "main's call" "$src" | cut -d: -f1)
grep '^SUMMARY' "$dir/lr.out" >"$dir/lr.sum"
[ -s "$dir/lr.sum" ] &&
	! grep -vE "^SUMMARY: heisen: data race \S*libc-race\.c:($t_line|$m_line) in (work|__original_main)\$" "$dir/lr.sum" >/dev/null ||
	bad "libc-race: SUMMARY lines not at the calls: $(snippet "$dir/lr.sum")"

finish t_world
