#!/usr/bin/env bash
# Execution benchmark: small C kernels run natively, under `heisen run`
# (compiled, core/jit.c, and interpreted, HEISEN_ENGINE=interp), under
# Node's WASI (V8's optimising TurboFan, and its baseline Liftoff alone)
# and under wabt's wasm-interp.
#
#   tests/bench/kernels.sh BUILD_DIR     (also run by tests/bench/run.sh,
#                                         i.e. by `make bench`)
#
# Kernels (tests/bench/kernels/*.c, each prints "NAME n=N checksum=C"):
# fib (recursive calls), matmul (f64 loads/stores/arithmetic), sort
# (quicksort, branches), hash (FNV-1a + SHA-256 rounds), coremark (lists,
# matrices, a state machine, CRC; written for heisen, not EEMBC's code).
#
# Each kernel is built three ways into BUILD_DIR/kernels/, rebuilt when its
# source or this script is newer than the output:
#   K            gcc -O2, the native reference;
#   K.wasm       clang -O2 for wasm32-wasi (wasi-libc), run by heisen and node;
#   K-run.wasm   clang -O2 -DNO_LIBC -DSIZE=SMALL: no imports, exports
#                run() -> i32 returning the checksum, for `wasm-interp
#                --run-all-exports` (Debian's wabt has no WASI).
#
# Sizes. Every kernel has two (the size and small arrays below):
#   SIZE   its default: native takes ~0.2-0.5 s. native, node and heisen
#          run at SIZE.
#   SMALL  for wasm-interp, which runs ~100-500x slower than native: about
#          1 s per run. native and heisen also run at SMALL, so each ratio
#          involving wasm-interp compares runs of the same size.
# KERNELS_QUICK=1 (env) runs everything once at SMALL: a smoke test of
# this script whose timings mean nothing.
# heisen runs at SIZE only when its SMALL time, scaled by native's
# SIZE/SMALL ratio, predicts at most HEISEN_MAX_S seconds per run (env,
# default 5); otherwise its "x native" is measured at SMALL and marked so.
# This keeps the whole `make bench` within a few minutes on 2 cores.
#
# Timing: best of 3 wall-clock runs of the whole process (start-up, and for
# wasm the compile/decode, included). Node runs twice: with NODE_FLAGS (env,
# default --no-liftoff: TurboFan only), and Liftoff only (--liftoff
# --no-wasm-tier-up), V8's baseline compiler, the one heisen's compiler
# is measured against. V8 has no on-stack replacement for
# wasm, so under its default tiering a hot loop inside a single call (hash's
# FNV loop) stays in baseline Liftoff code for the whole run, ~5x slower;
# the optimising JIT is the more useful reference. Node's time includes its
# start-up and compile (see its empty.wasm figure). Every run's output is
# checked: the checksum must equal native's at the same size, else MISMATCH
# is printed and the script exits 1 after the tables. Nothing here judges
# a timing.
#
# empty.wasm (main returns 0) is run 100 times under heisen to give the
# mean wall time of a whole `heisen run` process, an upper bound on the
# fixed cost of instantiating and running an empty _start.
set -euo pipefail

usage() {
	echo "usage: tests/bench/kernels.sh BUILD_DIR" >&2
	exit 2
}
[ $# -eq 1 ] || usage
build=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/kernels
out=$build/kernels
heisen=$build/heisen
self=$here/kernels.sh
. "$here/lib.sh"

kernels=(fib matmul sort hash coremark)
declare -A size=([fib]=40 [matmul]=600 [sort]=4000000 [hash]=800 [coremark]=6000)
declare -A small=([fib]=30 [matmul]=140 [sort]=80000 [hash]=6 [coremark]=100)
heisen_max_s=${HEISEN_MAX_S:-5}
read -r -a node_flags <<<"${NODE_FLAGS---no-liftoff}"
runs=3
empty_runs=100
if [ "${KERNELS_QUICK:-0}" = 1 ]; then # smoke test of this script, no timing value
	for k in "${kernels[@]}"; do size[$k]=${small[$k]}; done
	runs=1
	empty_runs=5
fi

die() {
	echo "kernels: $*" >&2
	exit 2
}

# ---- tools ------------------------------------------------------------------

command -v gcc >/dev/null || die "gcc not found (run: make deps)"
command -v clang >/dev/null || die "clang not found (run: make deps)"
wasi_lib=/usr/lib/wasm32-wasi
[ -f "$wasi_lib/crt1-command.o" ] || die "wasi-libc not found in $wasi_lib (run: make deps)"
rt=$(clang --print-resource-dir)/lib/wasi/libclang_rt.builtins-wasm32.a
[ -f "$rt" ] || die "$rt not found (run: make deps; package libclang-rt-14-dev-wasm32)"

have_node=0
if command -v node >/dev/null; then
	have_node=1
else
	echo "kernels: node not found; the node column is skipped" >&2
fi
have_interp=0
if command -v wasm-interp >/dev/null; then
	have_interp=1
else
	echo "kernels: wasm-interp not found (apt-get install wabt); its column is skipped" >&2
fi
have_heisen=0
heisen_na="n/a (heisen run not built yet)"
if [ ! -x "$heisen" ]; then
	heisen_na="n/a ($heisen not built)"
elif "$heisen" help run >/dev/null 2>&1; then
	have_heisen=1
fi

# ---- build ------------------------------------------------------------------

CFLAGS_K=(-std=c17 -O2 -Wall -Wextra)
WASI_CC=(clang --target=wasm32-wasi --sysroot=/usr "${CFLAGS_K[@]}")
WASI_LINK=(-nostdlib -fuse-ld=lld "-Wl,-L$wasi_lib" "$wasi_lib/crt1-command.o" -lc "$rt")

# stale OUTPUT INPUT...: true if OUTPUT is missing or older than an input.
stale() {
	local target=$1 dep
	shift
	[ -e "$target" ] || return 0
	for dep in "$@"; do
		[ "$dep" -nt "$target" ] && return 0
	done
	return 1
}

# rebuild OUTPUT SOURCE COMMAND...: runs COMMAND if OUTPUT is stale.
rebuild() {
	local target=$1 source=$2
	shift 2
	stale "$target" "$source" "$src/harness.h" "$self" || return 0
	echo "kernels: building $target" >&2
	"$@" || die "build of $target failed: $*"
}

mkdir -p "$out"
for k in "${kernels[@]}" empty; do
	c=$src/$k.c
	[ -f "$c" ] || die "$c missing"
	rebuild "$out/$k" "$c" gcc "${CFLAGS_K[@]}" -o "$out/$k" "$c"
	rebuild "$out/$k.wasm" "$c" "${WASI_CC[@]}" -o "$out/$k.wasm" "$c" "${WASI_LINK[@]}"
	[ "$k" = empty ] && continue
	rebuild "$out/$k-run.wasm" "$c" "${WASI_CC[@]}" -DNO_LIBC "-DSIZE=${small[$k]}" \
		-nostdlib -fuse-ld=lld -Wl,--no-entry -o "$out/$k-run.wasm" "$c"
done

# ---- running ----------------------------------------------------------------

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		echo "${EPOCHREALTIME/,/.}"
	else
		date +%s.%N
	fi
}

# problem WHAT DETAIL...: reports a wrong or failed run loudly on stderr
# now, and again on stdout after the tables; the script then exits 1.
# (A file, not a variable, so that it works from subshells too.)
problems=$tmp/problems
problem() {
	local what=$1
	shift
	{
		echo "!!!!!!!! $what !!!!!!!!"
		printf '!!! %s\n' "$@"
	} | tee -a "$problems" >&2
}

# timed N CMD...: runs CMD N times, stdout to $tmp/out; sets $best to the
# least wall-clock seconds. Returns 1 (after reporting) if a run fails.
timed() {
	local n=$1 i t0 t1 rc
	shift
	best=""
	for ((i = 0; i < n; i++)); do
		t0=$(now)
		rc=0
		"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
		t1=$(now)
		if [ "$rc" -ne 0 ]; then
			problem "FAILED" "command: $*" "exit status $rc; stderr:" \
				"$(tail -n 5 "$tmp/err" | grep . || echo '(empty)')"
			best=""
			return 1
		fi
		best=$(awk -v a="$t0" -v b="$t1" -v m="$best" \
			'BEGIN { d = b - a; if (m == "" || d < m + 0) m = d; printf "%.6f", m }')
	done
}

# check LABEL EXPECTED GOT: compares checksum lines; true when they match.
check() {
	if [ "$2" != "$3" ]; then
		problem "MISMATCH" "$1" "expected: $2" "got:      ${3:-(no checksum line)}"
		return 1
	fi
}

# measure RESULT_VAR EXPECTED LABEL CMD...: best-of-$runs time of CMD whose
# stdout must contain EXPECTED's line; RESULT_VAR gets the time or a word.
measure() {
	local var=$1 expect=$2 label=$3 got
	shift 3
	if ! timed "$runs" "$@"; then
		printf -v "$var" FAILED
		return
	fi
	got=$(grep -m1 "^${expect%% *} n=" "$tmp/out" || true)
	if check "$label" "$expect" "$got"; then
		printf -v "$var" %s "$best"
	else
		printf -v "$var" MISMATCH
	fi
}

# measure_interp RESULT_VAR CHECKSUM LABEL WASM: the same for wasm-interp,
# whose output is "run() => i32:C".
measure_interp() {
	local var=$1 sum=$2 label=$3 got
	if ! timed "$runs" wasm-interp --run-all-exports "$4"; then
		printf -v "$var" FAILED
		return
	fi
	got=$(sed -n 's/^run() => i32:\([0-9]*\)$/\1/p' "$tmp/out")
	if check "$label" "run() => i32:$sum" "run() => i32:$got"; then
		printf -v "$var" %s "$best"
	else
		printf -v "$var" MISMATCH
	fi
}

declare -A nat nat_s hei hei_s hei_at nod itp xnat vsitp itpx hin xin lif xlif xnod
heisen_note=""

for k in "${kernels[@]}"; do
	n=${size[$k]}
	s=${small[$k]}
	echo "kernels: $k (n=$n; wasm-interp n=$s)" >&2

	# Native at both sizes; their checksum lines are the references.
	"$out/$k" "$n" >"$tmp/ref" || die "$out/$k $n failed"
	ref=$(cat "$tmp/ref")
	"$out/$k" "$s" >"$tmp/ref_s" || die "$out/$k $s failed"
	ref_s=$(cat "$tmp/ref_s")
	sum_s=${ref_s##*checksum=}
	measure "nat[$k]" "$ref" "native $k $n" "$out/$k" "$n"
	measure "nat_s[$k]" "$ref_s" "native $k $s" "$out/$k" "$s"

	if [ "$have_node" = 1 ]; then
		measure "nod[$k]" "$ref" "node $k.wasm $n" \
			node --no-warnings "${node_flags[@]}" "$src/node-wasi.mjs" "$out/$k.wasm" "$n"
		measure "lif[$k]" "$ref" "node (Liftoff only) $k.wasm $n" \
			node --no-warnings --liftoff --no-wasm-tier-up "$src/node-wasi.mjs" "$out/$k.wasm" "$n"
	else
		nod[$k]="n/a"
		lif[$k]="n/a"
	fi
	xnod[$k]=$(ratio "${nod[$k]}" "${nat[$k]}")
	xlif[$k]=$(ratio "${lif[$k]}" "${nat[$k]}")

	if [ "$have_interp" = 1 ]; then
		measure_interp "itp[$k]" "$sum_s" "wasm-interp $k-run.wasm (n=$s)" "$out/$k-run.wasm"
	else
		itp[$k]="n/a"
	fi

	hei[$k]=$heisen_na
	hei_s[$k]="n/a"
	hei_at[$k]=""
	if [ "$have_heisen" = 1 ]; then
		measure "hei_s[$k]" "$ref_s" "heisen run $k.wasm $s" \
			"$heisen" run "$out/$k.wasm" -- "$s"
		est=""
		if isnum "${hei_s[$k]}" && isnum "${nat_s[$k]}" && isnum "${nat[$k]}"; then
			est=$(awk -v h="${hei_s[$k]}" -v a="${nat[$k]}" -v b="${nat_s[$k]}" \
				'BEGIN { printf "%.1f", h * a / b }')
		fi
		if [ -n "$est" ] && awk -v e="$est" -v m="$heisen_max_s" 'BEGIN { exit !(e <= m) }'; then
			measure "hei[$k]" "$ref" "heisen run $k.wasm $n" \
				"$heisen" run "$out/$k.wasm" -- "$n"
		elif [ -n "$est" ]; then
			hei[$k]="skipped (est. ${est} s)"
			hei_at[$k]=" (at n=$s)"
			heisen_note="heisen cells 'skipped (est. S s)': too slow for the full size (predicted > ${heisen_max_s} s per run, see HEISEN_MAX_S); their x native is measured at the small size, as marked."
		else
			hei[$k]=${hei_s[$k]}
		fi
	fi

	hin[$k]="n/a"
	if [ "$have_heisen" = 1 ]; then
		measure "hin[$k]" "$ref" "heisen run (interpreter) $k.wasm $n" \
			env HEISEN_ENGINE=interp "$heisen" run "$out/$k.wasm" -- "$n"
	fi
	xin[$k]=$(ratio "${hin[$k]}" "${nat[$k]}")

	if isnum "${hei[$k]}"; then
		xnat[$k]=$(ratio "${hei[$k]}" "${nat[$k]}")
	elif [ -n "${hei_at[$k]}" ]; then
		xnat[$k]="$(ratio "${hei_s[$k]}" "${nat_s[$k]}")${hei_at[$k]}"
	else
		xnat[$k]="n/a"
	fi
	vsitp[$k]=$(ratio "${itp[$k]}" "${hei_s[$k]}")
	itpx[$k]=$(ratio "${itp[$k]}" "${nat_s[$k]}")
done

# ---- empty module: a whole process per run ----------------------------------

# mean_of N CMD...: mean wall seconds per run of N runs of CMD (or FAILED).
mean_of() {
	local n=$1 i t0 t1 rc=0
	shift
	t0=$(now)
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>"$tmp/err" || { rc=$?; break; }
	done
	t1=$(now)
	if [ "$rc" -ne 0 ]; then
		problem "FAILED" "command: $*" "exit status $rc; stderr:" "$(tail -n 5 "$tmp/err" | grep . || echo '(empty)')"
		echo FAILED
		return
	fi
	awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.2f ms", (b - a) / n * 1000 }'
}

echo "kernels: empty ($empty_runs runs)" >&2
empty_native=$(mean_of "$empty_runs" "$out/empty")
empty_node="n/a"
if [ "$have_node" = 1 ]; then
	empty_node=$(mean_of 20 node --no-warnings "${node_flags[@]}" "$src/node-wasi.mjs" "$out/empty.wasm")
fi
empty_heisen=$heisen_na
if [ "$have_heisen" = 1 ]; then
	empty_heisen=$(mean_of "$empty_runs" "$heisen" run "$out/empty.wasm")
fi

# ---- report -----------------------------------------------------------------

# geomean VALUE...: geometric mean of the numeric values (a trailing "×"
# is kept), or n/a unless every value is numeric.
geomean() {
	local v suffix="" vals=()
	for v in "$@"; do
		v=${v%% (*} # drop a note such as " (at n=29)"
		[[ $v == *× ]] && suffix="×" && v=${v%×}
		isnum "$v" || { echo "n/a"; return; }
		vals+=("$v")
	done
	printf '%s\n' "${vals[@]}" | awk -v sfx="$suffix" '
		{ s += log($1); n++ }
		END { if (sfx == "") printf "%.3f\n", exp(s / n); else printf "%.1f%s\n", exp(s / n), sfx }'
}

column() { # NAME-OF-ARRAY: its values in kernel order, one per line
	local -n arr=$1
	local k
	for k in "${kernels[@]}"; do
		printf '%s\n' "${arr[$k]}"
	done
}

geo() { # NAME-OF-ARRAY
	local vals=()
	mapfile -t vals < <(column "$1")
	geomean "${vals[@]}"
}

gcc_v=$(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion)
clang_v=$(clang --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n1)
node_v="not found"
[ "$have_node" = 1 ] && node_v="$(node --version) (V8 $(node -p process.versions.v8))${node_flags[*]:+ ${node_flags[*]}}"
interp_v="not found"
[ "$have_interp" = 1 ] && interp_v="wabt $(wasm-interp --version 2>/dev/null | head -n1)"

echo
echo "kernel execution; each time is the best of $runs wall-clock runs of the whole process"
echo "native: gcc $gcc_v -O2 | wasm: clang $clang_v -O2, wasm32-wasi | node: $node_v, node:wasi preview1 | wasm-interp: $interp_v, --run-all-exports"
echo "x native = heisen / native; heisen vs wasm-interp = wasm-interp / heisen (> 1: heisen faster), both at the small size"
echo
echo "| kernel | native s | heisen (compiler) x native | heisen (interpreter) x native | V8 Liftoff only x native | V8 TurboFan x native |"
echo "|---|---|---|---|---|---|"
for k in "${kernels[@]}"; do
	echo "| $k | $(secs "${nat[$k]}") | ${xnat[$k]} | ${xin[$k]} | ${xlif[$k]} | ${xnod[$k]} |"
done
echo "| geometric mean | $(geo nat) | $(geo xnat) | $(geo xin) | $(geo xlif) | $(geo xnod) |"
echo
echo "| kernel | native s | heisen s | x native | node s | wasm-interp s | heisen vs wasm-interp |"
echo "|---|---|---|---|---|---|---|"
for k in "${kernels[@]}"; do
	echo "| $k (n=${size[$k]}; small n=${small[$k]}) | $(secs "${nat[$k]}") | $(secs "${hei[$k]}") | ${xnat[$k]} | $(secs "${nod[$k]}") | $(secs "${itp[$k]}") (small) | ${vsitp[$k]} |"
done
echo "| geometric mean | $(geo nat) | $(geo hei) | $(geo xnat) | $(geo nod) | $(geo itp) | $(geo vsitp) |"
echo
echo "at the small sizes (wasm-interp's):"
echo
echo "| kernel | small n | native s | heisen s | wasm-interp s | wasm-interp x native |"
echo "|---|---|---|---|---|---|"
for k in "${kernels[@]}"; do
	echo "| $k | ${small[$k]} | $(secs "${nat_s[$k]}") | $(secs "${hei_s[$k]}") | $(secs "${itp[$k]}") | ${itpx[$k]} |"
done
echo "| geometric mean | | $(geo nat_s) | $(geo hei_s) | $(geo itp) | $(geo itpx) |"
echo
[ -n "$heisen_note" ] && echo "$heisen_note" && echo
echo "empty.wasm (main returns 0), mean wall time of a whole process per run:"
runs_note() { # TIME RUNS: " (RUNS runs)" after a measured time only
	if [[ $1 == *ms ]]; then echo " ($2 runs)"; fi
}
echo "  heisen run: $empty_heisen$(runs_note "$empty_heisen" "$empty_runs")" \
	"  native: $empty_native$(runs_note "$empty_native" "$empty_runs")" \
	"  node: $empty_node$(runs_note "$empty_node" 20)"
echo
if [ -s "$problems" ]; then
	cat "$problems"
	echo
	echo "kernels: MISMATCH or FAILED: a run failed or its output differs from native's" >&2
	exit 1
fi
