#!/usr/bin/env bash
# heisen export and import between two workspaces made by real sweeps of
# the fibonacci demo: A's bugs, campaigns and runs arrive in B; a second
# import adds nothing; --since sends only newer runs; a stream with a byte
# flipped or cut short is refused with exit 2 and B stays as it was (and
# sound); export refuses a terminal; bad usage exits 2.
. "$(dirname "$0")/lib.sh"
unset HEISEN_DB

if ! command -v python3 >/dev/null || ! command -v sqlite3 >/dev/null; then
	echo "  FAIL: python3 and sqlite3 are needed"
	exit 1
fi
if ! make -s -C "$root" "${make_flags[@]}" demos/build/fibonacci.wasm \
	>"$dir/make.log" 2>&1; then
	echo "  FAIL: make demos/build/fibonacci.wasm failed:"
	tail -20 "$dir/make.log"
	exit 1
fi
fib=$root/demos/build/fibonacci.wasm
A=$dir/a.db
B=$dir/b.db

# sweep DB RUNS: serial runs (an armed thread sleeps while the other
# runs), so that the workspace has bugs whatever the machine's load; each
# campaign its own seed.
seed=0
sweep() {
	seed=$((seed + 1))
	"$HEISEN" sweep "$fib" --db "$1" --densities 100 --runs "$2" \
		--schedule random --seed "$seed" >"$dir/sweep.out" 2>&1 ||
		[ $? -eq 1 ] || bad "sweep into $1 failed: $(snippet "$dir/sweep.out")"
}
sweep "$A" 2
sweep "$B" 1

# The records by content, not by local ids.
bugs_of() {
	"$HEISEN" bugs --db "$1" --json | python3 -c '
import json, sys
print(sorted((b["sites"][0]["site"], b["sites"][1]["site"])
             for b in json.load(sys.stdin)["bugs"]))' 2>/dev/null
}
count() { sqlite3 "$1" "$2"; }

"$HEISEN" export --db "$A" >"$dir/s" 2>"$dir/export.err" ||
	bad "export exited $?: $(snippet "$dir/export.err")"
grep -q '^heisen export: 2 runs, cursor 2$' "$dir/export.err" ||
	bad "export's summary: $(snippet "$dir/export.err")"
"$HEISEN" import "$dir/s" --db "$B" >"$dir/import.out" 2>&1 ||
	bad "import exited $?: $(snippet "$dir/import.out")"
grep -q "^heisen import: 2 runs added (1 campaigns, [0-9]* bugs new) from $dir/s\$" \
	"$dir/import.out" || bad "import's summary: $(snippet "$dir/import.out")"

# Every bug of A is in B, and B has A's campaign and runs besides its own.
python3 - "$(bugs_of "$A")" "$(bugs_of "$B")" <<'PY' || bad "A's bugs are not all in B"
import ast, sys
a, b = (set(ast.literal_eval(x)) for x in sys.argv[1:3])
sys.exit(0 if a and a <= b else 1)
PY
n=$("$HEISEN" campaigns --db "$B" --json | python3 -c '
import json, sys; print(len(json.load(sys.stdin)["campaigns"]))')
[ "$n" = 2 ] || bad "B lists $n campaigns, want 2"
[ "$(count "$B" 'SELECT count(*) FROM runs')" = 3 ] ||
	bad "B has $(count "$B" 'SELECT count(*) FROM runs') runs, want 3"
ca=$(count "$B" "SELECT id FROM campaigns WHERE origin IS NOT NULL")
ra=$("$HEISEN" runs "$ca" --db "$B" --json | python3 -c '
import json, sys; print(len(json.load(sys.stdin)["runs"]))')
[ "$ra" = 2 ] || bad "the imported campaign lists $ra runs, want 2"

# Again: nothing added, from a pipe this time, in JSON.
"$HEISEN" import - --db "$B" --json <"$dir/s" >"$dir/again.json" 2>&1 ||
	bad "second import exited $?"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "heisen.import/1" and j["source"] == "stdin"
assert j["runs_added"] == j["campaigns_added"] == j["bugs_added"] == 0
' "$dir/again.json" || bad "second import added something: $(snippet "$dir/again.json")"

# --since: only the runs after the cursor.
sweep "$A" 1
"$HEISEN" export --db "$A" --since 2 -o "$dir/s2" 2>"$dir/export.err" ||
	bad "export --since exited $?"
grep -q '^heisen export: 1 runs, cursor 3$' "$dir/export.err" ||
	bad "export --since's summary: $(snippet "$dir/export.err")"
"$HEISEN" import "$dir/s2" --db "$B" >"$dir/import.out" 2>&1 ||
	bad "import of the newer runs exited $?"
grep -q '^heisen import: 1 runs added (1 campaigns' "$dir/import.out" ||
	bad "import of the newer runs: $(snippet "$dir/import.out")"

# Damaged streams: refused, B untouched and sound.
runs=$(count "$B" 'SELECT count(*) FROM runs')
sqlite3 "$B" .dump >"$dir/before.sql"
size=$(wc -c <"$dir/s")
for spec in flip:40 flip:$((size / 2)) flip:$((size - 3)) cut:$((size - 1)) cut:13; do
	python3 - "$dir/s" "$dir/bad" "$spec" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
how, at = sys.argv[3].split(":")
if how == "flip":
    b[int(at)] ^= 0x10
else:
    b = b[:int(at)]
open(sys.argv[2], "wb").write(b)
PY
	"$HEISEN" import "$dir/bad" --db "$B" >"$dir/bad.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || bad "import of a stream with $spec exited $rc, want 2"
	grep -q 'byte [0-9]*' "$dir/bad.out" ||
		bad "$spec: the message names no byte: $(snippet "$dir/bad.out")"
done
[ "$(sqlite3 "$B" 'PRAGMA integrity_check')" = ok ] || bad "B is damaged"
[ "$(count "$B" 'SELECT count(*) FROM runs')" = "$runs" ] ||
	bad "a refused import changed B's run count"
sqlite3 "$B" .dump | cmp -s - "$dir/before.sql" || bad "a refused import changed B"

# A newer format is refused by name.
python3 -c '
import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[8] = 99
open(sys.argv[2], "wb").write(b)' "$dir/s" "$dir/future"
"$HEISEN" import "$dir/future" --db "$B" >"$dir/future.out" 2>&1
[ $? -eq 2 ] || bad "a future stream was not refused with 2"
grep -q 'version 99, this heisen reads versions 1 to [0-9]*;' "$dir/future.out" ||
	bad "future stream message: $(snippet "$dir/future.out")"

# A terminal-less stdout works (a file here); a terminal is refused when
# script(1) can give one.
"$HEISEN" export --db "$A" >"$dir/s3" 2>/dev/null && [ -s "$dir/s3" ] ||
	bad "export to a file on stdout failed"
if command -v script >/dev/null; then
	script -qec "'$HEISEN' export --db '$A'" /dev/null >"$dir/tty.out" 2>&1
	grep -q 'stdout is a terminal' "$dir/tty.out" ||
		bad "export to a terminal: $(snippet "$dir/tty.out")"
fi

# Bad usage.
"$HEISEN" import >/dev/null 2>&1
[ $? -eq 2 ] || bad "import without FILE did not exit 2"
"$HEISEN" import "$dir/nonexistent" --db "$B" >/dev/null 2>&1
[ $? -eq 2 ] || bad "import of a missing file did not exit 2"
"$HEISEN" export --since many --db "$A" >/dev/null 2>&1
[ $? -eq 2 ] || bad "export --since many did not exit 2"
"$HEISEN" export --db "$dir/none.db" >/dev/null 2>&1
[ $? -eq 2 ] || bad "export of a missing workspace did not exit 2"
[ ! -e "$dir/none.db" ] || bad "export created a workspace"
"$HEISEN" export --bogus --db "$A" >/dev/null 2>&1
[ $? -eq 2 ] || bad "export --bogus did not exit 2"

finish t_sync
