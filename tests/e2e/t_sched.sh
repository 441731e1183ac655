#!/usr/bin/env bash
# Serial execution (`heisen run --schedule`, docs/schedules.md): one
# thread at a time, every switch chosen by the schedule. The same seed
# gives the same output and digest run after run, whatever else the
# machine does; other seeds give other interleavings; a saved schedule
# replays in a fresh folder with only the program, to the same digest; a
# deadlock is reported, not hung; and every bad strategy or schedule file
# is refused with exit 2.
. "$(dirname "$0")/lib.sh"
need_demos
b=$root/demos/build

# serial NAME ARGS...: heisen run ARGS --json; the report in NAME.json,
# the program's output (stderr under --json) in NAME.prog, exit in rc.
serial() {
	local name=$1
	shift
	timeout -s KILL 120 "$HEISEN" run --json "$@" >"$dir/$name.json" 2>"$dir/$name.prog"
	rc=$?
}
field() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$dir/$1.json" "$2"
}

# (1) Determinism: runs of every demo (lost-update with its "check"),
# one seed, while a busy loop keeps another core busy: one output, one
# exit status, one digest. 5 runs each keep make test short;
# HEISEN_SCHED_RUNS=20 is the acceptance's count (docs/schedules.md).
busy() { while :; do :; done; }
busy &
busy_pid=$!
trap 'kill "$busy_pid" 2>/dev/null; rm -rf "$dir"' EXIT
for wasm in "$b"/*.wasm; do
	demo=$(basename "$wasm" .wasm)
	src=$root/demos/$demo.c
	case "$demo" in comp-*-bug) src=$root/demos/comp-bug.c ;; esac
	# shellcheck disable=SC2207
	args=($(sed -n 's/^ \* args: *//p' "$src"))
	[ "$demo" = lost-update ] && args=(check)
	want_out= want_digest=
	for i in $(seq "${HEISEN_SCHED_RUNS:-5}"); do
		serial det "$wasm" --schedule pct:3 --schedule-seed 11 -- "${args[@]}"
		[ "$rc" -le 1 ] || { bad "$demo: exit $rc: $(snippet "$dir/det.prog")"; break; }
		d=$(field det 'd["schedule"]["digest"]')
		o=$(sha256sum <"$dir/det.prog")
		if [ "$i" = 1 ]; then
			want_out=$o want_digest=$d want_rc=$rc
			continue
		fi
		[ "$d" = "$want_digest" ] && [ "$o" = "$want_out" ] && [ "$rc" = "$want_rc" ] ||
			{ bad "$demo: run $i differs (digest $d, wanted $want_digest; exit $rc, wanted $want_rc)"; break; }
	done
done
kill "$busy_pid" 2>/dev/null
wait "$busy_pid" 2>/dev/null

# (2) The interleaving is the schedule's: lost-update loses a different
# number of deposits under different seeds.
outs=$(for s in 1 2 3 4 5 6; do
	timeout 60 "$HEISEN" run "$b/lost-update.wasm" --schedule random:0.3 --schedule-seed $s 2>&1 |
		grep -m1 '^balance'
done | sort -u | wc -l)
[ "$outs" -ge 2 ] || bad "lost-update printed one balance under 6 seeds"

# (3) Save, then replay in a fresh folder with only a copy of the program.
serial rec "$b/lost-update.wasm" --schedule random:0.2 --schedule-seed 42 \
	--save-schedule "$dir/lu.sched"
[ "$rc" = 0 ] || bad "recording: exit $rc: $(snippet "$dir/rec.prog")"
rec_digest=$(field rec 'd["schedule"]["digest"]')
grep -q "^digest = $rec_digest\$" "$dir/lu.sched" || bad "the schedule file does not hold the run's digest"
mkdir "$dir/fresh" && cp "$b/lost-update.wasm" "$dir/lu.sched" "$dir/fresh/"
(cd "$dir/fresh" && timeout 60 "$HEISEN" run lost-update.wasm --schedule fixed \
	--schedule-file lu.sched --json >rep.json 2>rep.prog)
rc=$?
[ "$rc" = 0 ] || bad "replay: exit $rc: $(snippet "$dir/fresh/rep.prog")"
cp "$dir/fresh/rep.json" "$dir/rep.json"
[ "$(field rep 'd["schedule"]["digest"]')" = "$rec_digest" ] ||
	bad "the replay's digest differs from the recording's"
[ "$(field rep 'd["schedule"]["diverged_at"]')" = None ] || bad "the replay diverged"
cmp -s "$dir/rec.prog" "$dir/fresh/rep.prog" || bad "the replay printed other output"
[ "$(field rep 'len(d["violations"])')" = "$(field rec 'len(d["violations"])')" ] ||
	bad "the replay found other races"
# Where the output goes is not an input: recorded with stdout on
# /dev/null, replayed into a file and into a pipe (wasi-libc's isatty()
# takes another path for each), the same digest.
"$HEISEN" run "$b/parallel-sum.wasm" --schedule random --schedule-seed 1 \
	--save-schedule "$dir/ps.sched" >/dev/null 2>&1 || bad "parallel-sum: the recording failed"
"$HEISEN" run "$b/parallel-sum.wasm" --schedule fixed --schedule-file "$dir/ps.sched" \
	>"$dir/ps.out" 2>&1 || bad "stdout into a file: the run left its schedule: $(grep -o 'DIVERGED[^)]*' "$dir/ps.out")"
"$HEISEN" run "$b/parallel-sum.wasm" --schedule fixed --schedule-file "$dir/ps.sched" 2>&1 |
	cat >"$dir/ps.pipe"
grep -q 'matches the recorded digest' "$dir/ps.pipe" || bad "stdout into a pipe: the run left its schedule"

# (4) A deadlock ends the run with each thread's place, not a timeout.
timeout 60 "$HEISEN" run "$b/guests/deadlock.wasm" --schedule random --schedule-seed 3 \
	>"$dir/dl.out" 2>&1
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || bad "deadlock: exit $rc"
grep -q 'deadlock: every thread waits.*thread 1 waits at 0x' "$dir/dl.out" ||
	bad "deadlock not reported: $(snippet "$dir/dl.out")"

# (5) Bad input: exit 2, a message naming the problem.
refused() {
	local what=$1 msg=$2
	shift 2
	expect 2 "$what" "$HEISEN" run "$@"
	grep -q -- "$msg" "$dir/err" || bad "$what: no '$msg' in: $(snippet "$dir/err")"
}
lu=$b/lost-update.wasm
refused "unknown strategy" "unknown schedule strategy 'rr'" "$lu" --schedule rr
refused "random:2" "from 0 to 1" "$lu" --schedule random:2
refused "pct:0" "pct:D expects D" "$lu" --schedule pct:0
refused "pct:3:x" "pct:D:K expects K" "$lu" --schedule pct:3:x
refused "fixed without a file" "name it with --schedule-file" "$lu" --schedule fixed
refused "a file without fixed" "the schedule --schedule fixed follows" "$lu" \
	--schedule random --schedule-file "$dir/lu.sched"
refused "a seed without --schedule" "needs --schedule" "$lu" --schedule-seed 3
refused "--schedule with --profile" "not for a serial run" "$lu" --schedule random --profile default
refused "--schedule with --seed alone" "needs --density or --mask" "$lu" --schedule random --seed 3
refused "--schedule with --delay alone" "needs --density or --mask" "$lu" --schedule random --delay 9
grep -v '^digest' "$dir/lu.sched" >"$dir/trunc.sched"
refused "truncated file" "truncated: no digest line" "$lu" --schedule fixed \
	--schedule-file "$dir/trunc.sched"
sed '1s/.*/heisen-schedule 9/' "$dir/lu.sched" >"$dir/future.sched"
refused "future version" "newer than this heisen reads" "$lu" --schedule fixed \
	--schedule-file "$dir/future.sched"
sed 's/^decisions =.*/decisions = 5:99/' "$dir/lu.sched" >"$dir/thread.sched"
refused "a thread that does not exist" "names thread 99" "$lu" --schedule fixed \
	--schedule-file "$dir/thread.sched"
sed 's/^decisions =.*/decisions = 99999999:1/' "$dir/lu.sched" >"$dir/past.sched"
refused "an event past the end" "past the run's last point" "$lu" --schedule fixed \
	--schedule-file "$dir/past.sched"
sed 's/^decisions =.*/decisions = 7:1 3:0/' "$dir/lu.sched" >"$dir/order.sched"
refused "events out of order" "must ascend" "$lu" --schedule fixed \
	--schedule-file "$dir/order.sched"
printf 'not a schedule\n' >"$dir/junk.sched"
refused "not a schedule" "not a heisen schedule" "$lu" --schedule fixed \
	--schedule-file "$dir/junk.sched"

finish t_sched
