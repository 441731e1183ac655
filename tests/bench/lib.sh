# lib.sh - what the benchmark scripts share. Source it:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# best_of_3 OUTFILE CMD...   runs CMD three times (output to OUTFILE) and
#                            prints the best wall time in seconds; fails
#                            (returns 1) on a failed run.
best_of_3() {
	local out=$1 best="" t0 t1
	shift
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >"$out" 2>&1 || return 1
		t1=$(date +%s.%N)
		best=$(awk -v a="$t0" -v b="$t1" -v best="$best" \
			'BEGIN { d = b - a; if (best == "" || d < best + 0) best = d; printf "%.6f", best }')
	done
	echo "$best"
}
