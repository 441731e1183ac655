#!/usr/bin/env bash
# Run libFuzzer targets, one line each (the Makefile's fuzz-all and
# fuzz-regress).
#
#   run.sh explore SECONDS BIN...  fuzz each target for SECONDS (one
#       process each, one after the other), new inputs kept in
#       build-fuzz/corpus/NAME/, crashes, leaks and timeouts in
#       build-fuzz/crash/NAME/;
#   run.sh replay 0 BIN...  run each target once over its committed corpus
#       (tests/fuzz/corpus/NAME/), no new inputs.
#
# NAME is the binary's name less fuzz_; fuzz_module and fuzz_instrument
# share corpus/module/. Prints "NAME: EXECS runs, N exec/s, corpus N
# inputs (SIZE), N findings" (the corpus as libFuzzer last counted it:
# the inputs that add coverage), or for a replay "NAME: N inputs
# replayed, N findings"; exits 1 when a target found something.
set -u
mode=${1:?usage: run.sh explore|replay SECONDS BIN...}
secs=${2:?}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	corpus=$here/corpus/$name
	[ "$name" = instrument ] && corpus=$here/corpus/module
	log=$(mktemp)
	if [ "$mode" = explore ]; then
		work=build-fuzz/corpus/$name crash=build-fuzz/crash/$name
		mkdir -p "$work" "$crash"
		before=$(ls "$crash" | wc -l)
		"$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
			-artifact_prefix="$crash/" "$work" "$corpus" >"$log" 2>&1
		rc=$?
		found=$(($(ls "$crash" | wc -l) - before))
	else
		"$bin" -runs=0 -timeout=10 -print_final_stats=1 "$corpus" >"$log" 2>&1
		rc=$?
		found=0
	fi
	[ $rc -ne 0 ] && [ $found -eq 0 ] && found=1
	if [ "$mode" = explore ]; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
		# The last status line: "#N ... corp: INPUTS/SIZE ...".
		corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n1 | cut -d' ' -f2)
		printf '%s: %s runs, %s exec/s, corpus %s inputs (%s), %s findings\n' \
			"$name" "${execs:-?}" "${rate:-?}" "${corp%%/*}" "${corp#*/}" "$found"
	else
		printf '%s: %s inputs replayed, %s findings\n' "$name" \
			"$(ls "$corpus" | wc -l)" "$found"
	fi
	if [ $found -ne 0 ]; then
		status=1
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz)|runtime error|Test unit written' "$log" | head -n 5
	fi
	rm -f "$log"
done
exit $status
