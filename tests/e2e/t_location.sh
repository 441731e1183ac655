#!/usr/bin/env bash
# The location of a race (docs/detection.md "A race report"), as `heisen
# show` prints it from the workspace and `heisen run --density` from the
# run:
#   (a) a global: demos/helper-race.c races on the two fields of its
#       `ledger` (8 bytes; clang splits it into two pieces): every bug is
#       "global 'ledger'", at offset 0 (total, line 24) or 4 (count, 25);
#   (b) a heap block: demos/heap-race.c's tally (20 bytes, calloc'd by
#       open_tally from main), field total at offset 16, allocated by
#       thread 0, and each thread created by thread 0 in main;
#   (c) a thread's stack: tests/e2e/guests/stack-race.c's worker (thread
#       1) counts in a local with a helper it created (thread 2);
#   (d) the same from `heisen run --schedule --density` and its JSON;
#   (e) a workspace of the previous schema migrates and shows its old
#       runs without a location.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
build=$root/demos/build

# check DB PROGRAM: one happens-before run of PROGRAM into DB
check() {
	"$HEISEN" check "$1" --db "$2" --runs 1 >"$dir/check.out" 2>"$dir/check.err"
	[ $? -eq 0 ] || bad "$1: check exit: $(snippet "$dir/check.err")"
}


# ---- (a) a global --------------------------------------------------------------

check "$build/helper-race.wasm" "$dir/g.db"
show_bugs "$dir/g.db"
python3 - "$dir" <<'EOF' || bad "helper-race: the global's location is wrong"
import glob, json, re, sys
n = 0
for p in sorted(glob.glob(sys.argv[1] + "/show.*.json")):
    d = json.load(open(p))
    loc = d["location"]
    line = d["sites"][0]["line"]
    want = {24: 0, 25: 4}[line]
    assert loc == {"kind": "global", "name": "ledger", "offset": want, "size": 8}, (p, loc)
    t = open(p[:-4] + "txt").read()
    tail = " + 4" if want else ""
    assert re.search(r"^  Location is global 'ledger'%s \(size 8\)$" % re.escape(tail), t, re.M), t
    n += 1
assert n == 4, "%d bugs, want 4" % n
EOF

# ---- (b) a heap block --------------------------------------------------------

check "$build/heap-race.wasm" "$dir/h.db"
show_bugs "$dir/h.db"
python3 - "$dir" <<'EOF' || bad "heap-race: the heap block's location is wrong"
import glob, json, re, sys
n = 0
for p in sorted(glob.glob(sys.argv[1] + "/show.*.json")):
    d = json.load(open(p))
    loc = d["location"]
    assert loc["kind"] == "heap" and loc["offset"] == 16 and loc["size"] == 20, loc
    assert loc["thread"] == 0, loc
    fns = [f["function"] for f in loc["stack"]]
    assert fns[:3] == ["__wrap_calloc", "open_tally", "__original_main"], fns
    for s in d["sites"]:
        c = s["created_by"]
        assert c["thread"] == 0, c
        assert [f["function"] for f in c["stack"]][:2] == ["pthread_create", "__original_main"], c
    t = open(p[:-4] + "txt").read()
    assert re.search(r"^  Location is heap block \+ 16 \(size 20\) allocated by thread 0 at:\n"
                     r"    #0 __wrap_calloc \S+malloc.c:\d+\n"
                     r"    #1 open_tally \S+heap-race.c:22\n", t, re.M), t
    for tid in (1, 2):
        assert re.search(r"^  Thread %d created by thread 0 at:\n    #0 pthread_create \S+\n"
                         r"    #1 __original_main \S+heap-race.c:4[01]\n" % tid, t, re.M), t
    n += 1
assert n == 2, "%d bugs, want 2" % n
EOF

# ---- (c) a thread's stack -----------------------------------------------------

check "$build/guests/stack-race.wasm" "$dir/s.db"
show_bugs "$dir/s.db"
python3 - "$dir" <<'EOF' || bad "stack-race: the stack's location is wrong"
import glob, json, re, sys
n = 0
for p in sorted(glob.glob(sys.argv[1] + "/show.*.json")):
    d = json.load(open(p))
    loc = d["location"]
    assert loc["kind"] == "stack" and loc["thread"] == 1, loc
    assert "name" not in loc and "stack" not in loc, loc
    by = {s["function"]: s["created_by"] for s in d["sites"]}
    assert set(by) == {"worker", "helper"}, by
    assert by["helper"]["thread"] == 1, by
    assert by["helper"]["stack"][1]["function"] == "worker", by
    assert by["worker"]["thread"] == 0, by
    t = open(p[:-4] + "txt").read()
    assert re.search(r"^  Location is stack of thread 1$", t, re.M), t
    assert re.search(r"^  Thread 2 created by thread 1 at:\n    #0 pthread_create \S+\n"
                     r"    #1 worker \S+stack-race.c:26\n", t, re.M), t
    n += 1
assert n >= 2, "%d bugs, want 2 or more" % n
EOF

# ---- (d) heisen run ------------------------------------------------------------

# Serial runs (an armed thread sleeps while the other runs): each
# collides whatever the load of the machine.
serial=(--schedule random --schedule-seed 1 --density 100 --seed 3)
"$HEISEN" run "$build/heap-race.wasm" "${serial[@]}" >"$dir/run.prog" 2>"$dir/run.out"
grep -q "^  Location is heap block + 16 (size 20) allocated by thread 0 at:$" "$dir/run.out" ||
	bad "run --density: no heap location: $(snippet "$dir/run.out")"
"$HEISEN" run "$build/helper-race.wasm" "${serial[@]}" --json >"$dir/run.json" 2>"$dir/run.err"
python3 - "$dir/run.json" <<'EOF' || bad "run --json: locations wrong"
import json, sys
d = json.load(open(sys.argv[1]))
vs = d["violations"]
assert vs, "no violations"
for v in vs:
    loc = v["location"]
    assert loc["kind"] == "global" and loc["name"] == "ledger" and loc["size"] == 8, loc
    assert loc["offset"] in (0, 4), loc
    for s in v["sites"]:
        assert s["created_by"]["thread"] == 0, s["created_by"]
EOF

# ---- (e) an older workspace ----------------------------------------------------

# A schema-9 workspace (before locations, db.c's 9 -> 10): the heap-race
# run, the columns of that migration and later ones gone, the version set
# back. heisen migrates it and shows the run unlocated.
cp "$dir/h.db" "$dir/old.db"
sqlite3 "$dir/old.db" "DROP TABLE slurm_jobs; DROP TABLE schedules; ALTER TABLE campaigns DROP COLUMN schedule;
ALTER TABLE campaigns DROP COLUMN failure; ALTER TABLE run_bugs DROP COLUMN location;
ALTER TABLE run_bugs DROP COLUMN loc_stack; ALTER TABLE run_bugs DROP COLUMN parents;
ALTER TABLE run_bugs DROP COLUMN spawn_a; ALTER TABLE run_bugs DROP COLUMN spawn_b;
ALTER TABLE campaigns DROP COLUMN stdin; ALTER TABLE campaigns DROP COLUMN stdin_hash;
ALTER TABLE run_bugs DROP COLUMN locks; ALTER TABLE run_bugs DROP COLUMN names;
ALTER TABLE campaigns DROP COLUMN dirs; ALTER TABLE campaigns DROP COLUMN env;
ALTER TABLE runs DROP COLUMN stderr;
ALTER TABLE campaigns DROP COLUMN max_threads;
ALTER TABLE campaigns DROP COLUMN max_memory_pages;
PRAGMA user_version = 9;" ||
	bad "could not make an older workspace"
"$HEISEN" show 1 --db "$dir/old.db" >"$dir/old.txt" 2>"$dir/old.err" ||
	bad "show on an older workspace: exit $?: $(snippet "$dir/old.err")"
grep -q "Location is" "$dir/old.txt" && bad "an old run has a location"
grep -q "^SUMMARY: heisen: data race" "$dir/old.txt" || bad "old run: no report"

finish t_location
