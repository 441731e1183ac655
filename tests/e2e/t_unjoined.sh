#!/usr/bin/env bash
# Races between main and a thread it never joins (docs/check.md, "Threads
# main never joins"), with guests of tests/e2e/guests/:
#   (a) unjoined-global, -struct, -array, -exit and -return: main races
#       with the unjoined thread and ends (returns or calls exit) right
#       after; `heisen check --runs 20` reports the race in at least 19 of
#       20 runs, and 0 races on each race-free twin (NAME-ok);
#   (b) natively with ThreadSanitizer, where the C compiler has it: a race
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

# ---- (b) ThreadSanitizer's verdicts, natively ------------------------------------

# tsan NAME WANT [STDIN]: the native TSan build of NAME reports a race
# (WANT 1) or none (0).
tsan() {
	local name=$1 want=$2 in=${3:-/dev/null} n
	if ! "$cc" -fsanitize=thread -g -O1 -pthread -o "$dir/$name" \
		"$guests/$name.c" 2>"$dir/tsan.err"; then
		bad "$name: native TSan build failed: $(snippet "$dir/tsan.err")"
		return
	fi
	n=$(TSAN_OPTIONS=exitcode=0 "$dir/$name" <"$in" 2>&1 >/dev/null |
		grep -c '^WARNING: ThreadSanitizer: data race')
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
else
	echo "no ThreadSanitizer for $cc: native verdicts not compared"
fi

finish t_unjoined
