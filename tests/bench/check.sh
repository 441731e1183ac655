#!/usr/bin/env bash
# Happens-before benchmark (run by tests/bench/run.sh, i.e. `make bench`;
# also alone), for `heisen check`:
#
#   tests/bench/check.sh BUILD_DIR
#
# 1. Cost: each demo and each kernel (BUILD_DIR/kernels/, built by
#    kernels.sh; instrumented with --all-memories, run at the detector
#    benchmark's small sizes) runs under the engine alone and with the
#    sites heisen check probes (every site but the reads a store covers)
#    by the happens-before detector, under the default profile
#    and under throttled (check's default), in one process
#    (BUILD_DIR/tests/bench/bench_check), best of 3 by the runs' own time.
#    Ratio to the engine alone; geometric mean. Goal: <= 8x (ThreadSanitizer
#    costs 5-15x over native code).
#    Then each kernel again at a size where native code runs 20-40 ms:
#    check's time (in-process, default profile) and ThreadSanitizer's
#    (gcc -O2 -fsanitize=thread, best of 3 processes) against native
#    gcc -O2's (best of 3 processes). Goal (issue 29): check <= 8x
#    native; TSan's column is the reference.
# 2. Memory: the detector's shadow and clocks in memory against the
#    program memory its accesses touched (4 KiB pages). Goal: <= 4x.
# 3. Rates over 100 runs of `heisen check` (its defaults): for each racy
#    demo, the fewest runs any race its header names (`race:` and
#    `hb-race:` lines) was reported in; for each race-free program (the
#    control demos and tests/e2e/guests/hb-ok-*), the races reported.
#    Goal: every named race in >= 95 of 100, no race in any control.
# A report only: nothing here fails on a timing; a failed run fails it.
set -uo pipefail

build=${1:?usage: tests/bench/check.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
heisen=$build/heisen
bench=$build/tests/bench/bench_check
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_scratch
bad_run=0

declare -A ksmall=([fib]=25 [matmul]=60 [sort]=20000 [hash]=2 [coremark]=20)
racy="fibonacci fibonacci-lock lock-free-queue antidep indirectaccess comp-opt-bug comp-unopt-bug input-dep lost-update block-boundary early-read plain-flag"
controls="control-mutex control-barrier control-atomics mutex-counter parallel-sum prod-cons atomic-sum barrier-phases"

echo
echo "heisen check: the sites it probes, by the happens-before detector, against"
echo "the engine alone; best of 3; goal <= 8x time, <= 4x memory"
echo
echo "| program | engine | check | ratio | check, throttled | ratio | shadow | touched | ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
rt=() rtt=() rm=()
row() {
	local name=$1 plain=$2 inst=$3
	shift 3
	local out
	if ! out=$("$bench" "$plain" "$inst" "$@" 2>"$scratch/err"); then
		echo "| $name | failed: $(head -c 200 "$scratch/err") | | | | | | | |"
		bad_run=1
		return
	fi
	read -r tp th tt sh to _ <<<"$out"
	awk -v n="$name" -v tp="$tp" -v th="$th" -v tt="$tt" -v sh="$sh" -v to="$to" 'BEGIN {
		printf "| %s | %.1f ms | %.1f ms | %.2f× | %.1f ms | %.2f× | %.0f KiB | %.0f KiB | %s |\n",
			n, tp * 1e3, th * 1e3, th / tp, tt * 1e3, tt / tp, sh / 1024, to / 1024,
			(to > 0 ? sprintf("%.2f×", sh / to) : "-") }'
	rt+=("$(awk -v a="$th" -v b="$tp" 'BEGIN { printf "%.4f", a / b }')")
	rtt+=("$(awk -v a="$tt" -v b="$tp" 'BEGIN { printf "%.4f", a / b }')")
	[ "$to" -gt 0 ] && rm+=("$(awk -v a="$sh" -v b="$to" 'BEGIN { printf "%.4f", a / b }')")
}
for d in $racy $controls; do
	w=$root/demos/build/$d.wasm
	[ -f "$w" ] && row "$d" "$w" "$w"
done
for k in fib matmul sort hash coremark; do
	[ -f "$build/kernels/$k.wasm" ] || continue
	inst=$scratch/$k.hz.wasm
	"$heisen" instrument --all-memories "$build/kernels/$k.wasm" -o "$inst" >/dev/null 2>&1 ||
		{ echo "| $k | instrument failed | | | | | | | |"; bad_run=1; continue; }
	row "$k" "$build/kernels/$k.wasm" "$inst" "${ksmall[$k]}"
done
echo "| geometric mean | | | $(gm "${rt[@]}") | | $(gm "${rtt[@]}") | | | $(gm "${rm[@]}") |"

declare -A kmid=([fib]=35 [matmul]=300 [sort]=400000 [hash]=80 [coremark]=600)
echo
echo "heisen check against native gcc -O2 and ThreadSanitizer (gcc -O2"
echo "-fsanitize=thread) on the same kernels; goal: check <= 8x native"
echo
echo "| kernel | n | native | TSan | x native | engine | x native | check | x native |"
echo "|---|---|---|---|---|---|---|---|---|"
rn=() rts=() rch=()
for k in fib matmul sort hash coremark; do
	if [ ! -x "$build/kernels/$k" ] || [ ! -f "$scratch/$k.hz.wasm" ]; then
		continue
	fi
	n=${kmid[$k]}
	nat=$(best_of_3 "$scratch/out" "$build/kernels/$k" "$n") || nat=failed
	tsan=$build/kernels/$k.tsan
	if [ ! -x "$tsan" ] || [ "$root/tests/bench/kernels/$k.c" -nt "$tsan" ]; then
		gcc -std=c17 -O2 -fsanitize=thread -o "$tsan" "$root/tests/bench/kernels/$k.c" 2>"$scratch/err" || tsan=
	fi
	if [ -n "$tsan" ]; then
		ts=$(best_of_3 "$scratch/out" "$tsan" "$n") || ts=failed
	else
		ts="n/a (no -fsanitize=thread)"
	fi
	if out=$("$bench" "$build/kernels/$k.wasm" "$scratch/$k.hz.wasm" "$n" 2>"$scratch/err"); then
		read -r tp th _ <<<"$out"
	else
		tp=failed th=failed
		bad_run=1
	fi
	echo "| $k | $n | $(secs "$nat") s | $(secs "$ts") s | $(ratio "$ts" "$nat") | $(secs "$tp") s | $(ratio "$tp" "$nat") | $(secs "$th") s | $(ratio "$th" "$nat") |"
	isnum "$nat" || continue
	isnum "$tp" && rn+=("$(awk -v a="$tp" -v b="$nat" 'BEGIN { printf "%.4f", a / b }')")
	isnum "$ts" && rts+=("$(awk -v a="$ts" -v b="$nat" 'BEGIN { printf "%.4f", a / b }')")
	isnum "$th" && rch+=("$(awk -v a="$th" -v b="$nat" 'BEGIN { printf "%.4f", a / b }')")
done
echo "| geometric mean | | | | $(gm "${rts[@]}") | | $(gm "${rn[@]}") | | $(gm "${rch[@]}") |"

echo
echo "heisen check --runs 100: the fewest runs a named race was reported in"
echo "(racy demos), races reported (race-free programs); goal >= 95 and 0"
echo
echo "| program | named races | fewest runs | races reported |"
echo "|---|---|---|---|"
for d in $racy; do
	src=$root/demos/$d.c
	case $d in comp-opt-bug) src=$root/demos/comp-bug.c tag=race-O2 ;; comp-unopt-bug) src=$root/demos/comp-bug.c tag=race-O0 ;; *) tag=race ;; esac
	w=$root/demos/build/$d.wasm
	[ -f "$w" ] || continue
	args=$(sed -n 's/^ \* args: *//p' "$src")
	# shellcheck disable=SC2086
	if ! "$heisen" check "$w" --runs 100 --db "$db" --json ${args:+-- $args} >"$scratch/c.json" 2>"$scratch/err"; then
		echo "| $d | check failed: $(head -c 200 "$scratch/err") | | |"
		bad_run=1
		continue
	fi
	sed -n "s/^ \* \(race\|hb-race\|$tag\): *//p" "$src" >"$scratch/races"
	python3 - "$scratch/c.json" "$scratch/races" "$d" <<'EOF'
import json, os, sys
doc = json.load(open(sys.argv[1]))
runs = {}
for r in doc["races"]:
    key = frozenset("%s:%s" % (os.path.basename(s["file"] or "?"), s["line"]) for s in r["sites"])
    runs[key] = max(runs.get(key, 0), r["runs"])
named = [frozenset(l.split()) for l in open(sys.argv[2]) if l.strip()]
fewest = min((runs.get(n, 0) for n in named), default=0)
print("| %s | %d | %d of %d | %d |" % (sys.argv[3], len(named), fewest, doc["runs"], len(doc["races"])))
EOF
done
guests=()
for g in "$root"/demos/build/guests/hb-ok-*.wasm; do
	[ -f "$g" ] && guests+=("$g")
done
for w in $(for d in $controls; do echo "$root/demos/build/$d.wasm"; done) "${guests[@]}"; do
	[ -f "$w" ] || continue
	n=$(basename "$w" .wasm)
	if ! "$heisen" check "$w" --runs 100 --db "$db" --json >"$scratch/c.json" 2>"$scratch/err"; then
		echo "| $n | check failed: $(head -c 200 "$scratch/err") | | |"
		bad_run=1
		continue
	fi
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("| %s | 0 | - | %d in %d runs |" % (sys.argv[2], len(d["races"]), d["runs"]))' "$scratch/c.json" "$n"
done
exit $bad_run
