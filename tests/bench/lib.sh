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

# isnum X: whether X is a plain decimal (a time, not "n/a" or "failed").
isnum() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

# secs T: T to the millisecond, or T itself when it is not a number.
secs() { if isnum "$1"; then printf '%.3f' "$1"; else echo "$1"; fi; }

# ratio A B [DIGITS]: A / B as "R×" with DIGITS decimals (1), or n/a.
ratio() {
	if isnum "$1" && isnum "$2"; then
		awk -v a="$1" -v b="$2" -v d="${3:-1}" \
			'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.*f×\n", d, a / b }'
	else
		echo "n/a"
	fi
}

# gm R...: the geometric mean of ratios, as "G×" (n/a for none).
gm() { printf '%s\n' "$@" | awk '{ s += log($1); n++ } END { if (n) printf "%.2f×", exp(s / n); else print "n/a" }'; }

# bench_demos: the racy demos the reproduction and strategy benchmarks
# sweep (comp-opt-bug and comp-unopt-bug are both built from comp-bug.c).
# shellcheck disable=SC2034 # used by the scripts that source this
bench_demos="fibonacci fibonacci-lock lock-free-queue antidep indirectaccess comp-opt-bug comp-unopt-bug input-dep"

# sweep_demo HEISEN ROOT NAME DB ERRFILE [SWEEP OPTIONS...]: sweep
# ROOT/demos/build/NAME.wasm into DB with the arguments its source's
# `args:` line names; stderr to ERRFILE. Fails when the sweep does.
sweep_demo() {
	local heisen=$1 root=$2 name=$3 db=$4 err=$5 src args
	shift 5
	src=$root/demos/$name.c
	case $name in comp-opt-bug | comp-unopt-bug) src=$root/demos/comp-bug.c ;; esac
	args=$(sed -n 's/^ \* args: *//p' "$src")
	# shellcheck disable=SC2086
	"$heisen" sweep "$root/demos/build/$name.wasm" --db "$db" "$@" \
		${args:+-- $args} >/dev/null 2>"$err"
}

# bench_scratch: a scratch folder $scratch, removed on exit, with the
# instrumentation cache inside it and $db a workspace there.
bench_scratch() {
	scratch=$(mktemp -d) || exit 3
	# shellcheck disable=SC2064 # expand now: $scratch is set
	trap "rm -rf '$scratch'" EXIT
	export XDG_CACHE_HOME=$scratch/cache
	db=$scratch/w.db
}
