#!/usr/bin/env bash
# Races between main and a thread it never joins (docs/check.md, "Threads
# main never joins"), with guests of tests/e2e/guests/:
#   (a) unjoined-global, -struct, -array, -exit and -return: main races
#       with the unjoined thread and ends (returns or calls exit) right
#       after; `heisen check --runs 20` reports the race in at least 19 of
#       20 runs, and 0 races on each race-free twin (NAME-ok);
#   (b) unjoined-scanf, main scanf()ing into a global the thread reads:
#       the same with `--stdin` (its race needs the number), and without
#       it (empty stdin) no race and every run exits 2;
#   (c) stdin-race, whose race depends on the number it reads: `check
#       --stdin` and `sweep --stdin` find it with 1 and not with 0; the
#       campaign records the input (campaigns --json), rerun reads it,
#       --resume refuses
#       --stdin, bad --stdin files are refused (exit 2, naming the limit);
#       a repro file saved from the sweep carries the bytes and replays
#       the race in a fresh folder with only the file and the program,
#       and not with --stdin of the other input;
#   (d) natively with ThreadSanitizer, where the C compiler has it: a race
#       reported on each racy program and none on the twins.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB

guests=$root/tests/e2e/guests
build=$root/demos/build/guests

# runs FILE.json STATUS: the most runs any one race was seen in (0:
# none); exits non-zero unless all 20 runs ended with STATUS.
runs() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d["runs"] != 20 or set(d["statuses"]) - {sys.argv[2]}:
    sys.exit("runs %r, statuses %r" % (d["runs"], d["statuses"]))
print(max([r["runs"] for r in d["races"]] + [0]))
PY
}

# check NAME MIN MAX [ARGS...]: check --runs 20 of NAME sees a race in
# MIN to MAX runs, every run ending ok ($status to say otherwise).
check() {
	local name=$1 lo=$2 hi=$3 n
	shift 3
	hq "$name" check "$build/$name.wasm" --runs 20 --json --db "$dir/u.db" "$@"
	if [ "$rc" -ne 0 ]; then
		bad "$name: check exit $rc: $(snippet "$dir/$name.err")"
	elif ! n=$(runs "$dir/$name.out" "${status:-ok}" 2>"$dir/$name.runs"); then
		bad "$name: $(snippet "$dir/$name.runs")"
	elif [ "$n" -lt "$lo" ] || [ "$n" -gt "$hi" ]; then
		bad "$name: race in $n of 20 runs, want $lo to $hi"
	else
		echo "$name: race in $n of 20 runs"
	fi
}

# ---- (a) check --runs 20 ---------------------------------------------------------

for name in unjoined-global unjoined-struct unjoined-array unjoined-exit \
	unjoined-return; do
	check "$name" 19 20
	check "$name-ok" 0 0
done

# ---- (b) scanf into a global, with and without --stdin ----------------------------

echo 42 >"$dir/42"
check unjoined-scanf 19 20 --stdin "$dir/42"
check unjoined-scanf-ok 0 0 --stdin "$dir/42"
status=exit check unjoined-scanf 0 0

# ---- (c) a race that depends on the input ------------------------------------------

echo 1 >"$dir/racy"
echo 0 >"$dir/calm"
check stdin-race 1 20 --stdin "$dir/racy"
check stdin-race 0 0 --stdin "$dir/calm"

# sweep DB INPUT: a small sweep of stdin-race reading INPUT; its bugs
# into $dir/DB.bugs.
sweep() {
	hq "$1" sweep "$build/stdin-race.wasm" --stdin "$2" --densities 50,100 \
		--runs 3 --json --db "$dir/$1.db"
	want "sweep --stdin $2" 0
	python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["program_bugs"]))' \
		"$dir/$1.out" >"$dir/$1.bugs" 2>&1
}
sweep racy "$dir/racy"
[ "$(cat "$dir/racy.bugs")" -gt 0 ] ||
	bad "sweep --stdin racy: no bug: $(snippet "$dir/racy.bugs")"
sweep calm "$dir/calm"
[ "$(cat "$dir/calm.bugs")" = 0 ] ||
	bad "sweep --stdin calm: bugs: $(snippet "$dir/calm.bugs")"

hq camps campaigns --db "$dir/racy.db" --json
want "campaigns --json" 0
python3 - "$dir/camps.out" "$(printf 1 | od -An -tx1 | tr -d ' ')" <<'PY' >"$dir/camps.check" 2>&1 ||
import json, sys
c = json.load(open(sys.argv[1]))["campaigns"][0]
assert c["stdin"]["bytes"] == 2 and len(c["stdin"]["hash"]) == 16, c["stdin"]
PY
	bad "campaigns --json: stdin not recorded: $(snippet "$dir/camps.check")"

# rerun gives the run the campaign's input: the thread added to the
# shared counter, its own stayed 0 (the program prints both).
hq rerun rerun 1 --db "$dir/racy.db"
grep -q '^stdin-race: [0-9]* 0$' "$dir/rerun.out" ||
	bad "rerun did not read the campaign's stdin: $(snippet "$dir/rerun.out")"

hq resume sweep --resume 1 --stdin "$dir/calm" --db "$dir/racy.db"
want "sweep --resume --stdin" 2
grep -q -- "--stdin cannot change a campaign being resumed" "$dir/resume.err" ||
	bad "sweep --resume --stdin: $(snippet "$dir/resume.err")"
hq missing check "$build/stdin-race.wasm" --stdin "$dir/nothing" --db "$dir/x.db"
want "check --stdin MISSING" 2
grep -q "cannot read it" "$dir/missing.err" ||
	bad "check --stdin MISSING: $(snippet "$dir/missing.err")"
head -c 1048577 /dev/zero >"$dir/big"
hq big check "$build/stdin-race.wasm" --stdin "$dir/big" --db "$dir/x.db"
want "check --stdin BIG" 2
grep -q "more than 1048576 bytes (1 MiB)" "$dir/big.err" ||
	bad "check --stdin BIG: $(snippet "$dir/big.err")"
[ ! -e "$dir/x.db" ] || bad "a refused --stdin left a workspace behind"

# The first bug of the racy sweep, saved as a repro file and replayed in
# a fresh folder that has only that file and the program.
bug=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["program_bugs"][0]["id"])' \
	"$dir/racy.out" 2>/dev/null)
hq save replay "${bug:-1}" --runs 5 --save "$dir/race.repro" --db "$dir/racy.db"
want "replay --save" 0
grep -q '^stdin = 310a$' "$dir/race.repro" ||
	bad "the repro file does not carry the input: $(snippet "$dir/race.repro")"
mkdir "$dir/fresh" && cp "$dir/race.repro" "$build/stdin-race.wasm" "$dir/fresh/"
(cd "$dir/fresh" && HEISEN_DB="$dir/fresh/none.db" timeout -s KILL 300 \
	"$HEISEN" replay --file race.repro stdin-race.wasm --runs 10 \
	>"$dir/fresh.out" 2>"$dir/fresh.err")
rc=$?
want fresh 0
grep -q "reproduced in 10 of 10 runs" "$dir/fresh.out" ||
	bad "replay in a fresh folder: $(snippet "$dir/fresh.out")"
(cd "$dir/fresh" && timeout -s KILL 300 "$HEISEN" replay --file race.repro \
	stdin-race.wasm --runs 10 --stdin "$dir/calm" >"$dir/calmr.out" 2>"$dir/calmr.err")
rc=$?
want "replay --stdin calm" 1
sed -i 's/^stdin = 310a$/stdin = 300a/' "$dir/fresh/race.repro"
(cd "$dir/fresh" && "$HEISEN" replay --file race.repro stdin-race.wasm \
	--runs 1 >"$dir/edit.out" 2>"$dir/edit.err")
rc=$?
want "replay of an edited stdin" 2
grep -q "does not match its 'stdin_hash'" "$dir/edit.err" ||
	bad "replay of an edited stdin: $(snippet "$dir/edit.err")"

# ---- (d) ThreadSanitizer's verdicts, natively ------------------------------------

# tsan NAME WANT [STDIN]: the native TSan build of NAME reports a race
# (WANT 1) or none (0). TSan too sees a race with a thread main never
# joins only in some runs: on unjoined-array it missed 11 and then 22 runs
# in 40 on an idle 2-core machine (the thread had run and finished; only
# the leak was reported), and CI once saw 3 misses in a row. A race gets
# up to twenty runs (all twenty miss with odds near 0.55^20, 6e-6; a run
# takes 0.6 s at most); a race-free twin gets three and must stay clean.
tsan() {
	local name=$1 want=$2 in=${3:-/dev/null} n=0 k tries=3
	[ "$want" = 1 ] && tries=20
	if ! "$cc" -fsanitize=thread -g -O1 -pthread -o "$dir/$name" \
		"$guests/$name.c" 2>"$dir/tsan.err"; then
		bad "$name: native TSan build failed: $(snippet "$dir/tsan.err")"
		return
	fi
	for _ in $(seq "$tries"); do
		k=$(TSAN_OPTIONS=exitcode=0 "$dir/$name" <"$in" 2>&1 >/dev/null |
			grep -c '^WARNING: ThreadSanitizer: data race')
		n=$((n + k))
		[ "$want" = 1 ] && [ "$n" -gt 0 ] && break
	done
	[ "$((n > 0))" -eq "$want" ] ||
		bad "$name: natively TSan reports $n races, want $([ "$want" = 1 ] && echo some || echo none)"
}
cc=${CC:-cc}
if echo 'int main(void){return 0;}' >"$dir/t.c" &&
	"$cc" -fsanitize=thread -o "$dir/t" "$dir/t.c" 2>/dev/null && "$dir/t"; then
	for name in unjoined-global unjoined-struct unjoined-array \
		unjoined-exit unjoined-return; do
		tsan "$name" 1
		tsan "$name-ok" 0
	done
	tsan unjoined-scanf 1 "$dir/42"
	tsan unjoined-scanf-ok 0 "$dir/42"
else
	echo "no ThreadSanitizer for $cc: native verdicts not compared"
fi

finish t_unjoined
