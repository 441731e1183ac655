#!/usr/bin/env bash
# run.sh BUILD_DIR - the spec-suite check of decode, validate and encode.
#
# Converts the WebAssembly spec suite (.wast) with wabt's wast2json into
# BUILD_DIR/spec-json/{core,threads,multi-memory}/NAME/NAME.json (each file
# in its own folder: wast2json writes NAME.N.wasm next to the JSON and the
# suites share file names), then runs BUILD_DIR/tests/spec/spec_validate
# on all of them, and BUILD_DIR/tests/spec/spec_run, which executes them
# on the engine; then the rewriter's checks on the same modules
# (spec_instrument, spec_run --instrument 0|1; see the end). A JSON newer
# than its .wast is not converted again.
#
# The suite is found at $HEISEN_SPEC_DIR, else ../shared/wasm-spec next to
# the repository. A plain clone has neither: then the suite is skipped
# with one line saying how to run it (exit 0), unless HEISEN_SPEC_DIR was
# set, which makes a missing suite an error (CI sets it). `make spec`
# builds both programs and runs this.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: tests/spec/run.sh BUILD_DIR" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" 2>/dev/null && pwd) || { echo "run.sh: no build folder $1" >&2; exit 2; }
spec=${HEISEN_SPEC_DIR:-$root/../shared/wasm-spec}
if [ ! -d "$spec/core" ]; then
	if [ -n "${HEISEN_SPEC_DIR:-}" ]; then
		echo "run.sh: spec suite not found at $spec (expected" \
			"core/*.wast; HEISEN_SPEC_DIR names the wasm-spec" \
			"folder of the WebAssembly spec tests)" >&2
		exit 2
	fi
	echo "spec: skipped: no WebAssembly spec suite at" \
		"$(cd "$root/.." && pwd)/shared/wasm-spec; to run it," \
		"make spec HEISEN_SPEC_DIR=/path/to/wasm-spec (a folder with" \
		"core/*.wast and proposals/)"
	exit 0
fi
spec=$(cd "$spec" && pwd) # before the cd below, so a relative one works
cd "$root"
bin=$build/tests/spec/spec_validate
out=$build/spec-json
for tool in wast2json wasm-validate; do
	if ! command -v "$tool" >/dev/null; then
		echo "run.sh: $tool not found (Debian package wabt; make deps)" >&2
		exit 2
	fi
done
if [ ! -x "$bin" ]; then
	echo "run.sh: $bin missing (make $bin)" >&2
	exit 2
fi

"$bin" --selftest

# Folders of the suite and the wast2json flags each needs
# (wasm-spec/README.md). The suite has no tests of the legacy exception
# handling (try, catch, delegate) that clang 14 emits for setjmp/longjmp:
# tests/spec/eh holds heisen's own.
suites=(
	"core|$spec/core|"
	"threads|$spec/proposals/threads|--enable-threads"
	"multi-memory|$spec/proposals/multi-memory|--enable-multi-memory"
	"eh|$root/tests/spec/eh|--enable-exceptions"
)

# Stale conversions, three words each: FLAGS WAST JSON (FLAGS may be "").
jobs=()
jsons=()
for entry in "${suites[@]}"; do
	IFS='|' read -r suite dir flags <<<"$entry"
	shopt -s nullglob
	wasts=("$dir"/*.wast)
	shopt -u nullglob
	if [ ${#wasts[@]} -eq 0 ]; then
		echo "run.sh: no .wast files in $dir" >&2
		exit 2
	fi
	for wast in "${wasts[@]}"; do
		name=$(basename "$wast" .wast)
		json=$out/$suite/$name/$name.json
		jsons+=("$json")
		if [ ! "$json" -nt "$wast" ]; then
			jobs+=("$flags" "$wast" "$json")
		fi
	done
done

if [ ${#jobs[@]} -gt 0 ]; then
	echo "run.sh: converting $((${#jobs[@]} / 3)) .wast files with wast2json"
	# A failed conversion removes its JSON so that the next run retries
	# it instead of trusting a partial file; its folder is emptied first
	# so no .wasm of an older conversion lingers.
	printf '%s\0' "${jobs[@]}" | xargs -0 -P 2 -n 3 bash -c '
		flags=$1 wast=$2 json=$3
		dir=$(dirname "$json")
		rm -rf "$dir" && mkdir -p "$dir"
		if ! wast2json $flags "$wast" -o "$json"; then
			rm -f "$json"
			echo "run.sh: wast2json $flags $wast failed" >&2
			exit 255
		fi' _ || { echo "run.sh: conversion failed" >&2; exit 1; }
fi

# Re-encoded modules that wasm-validate rejects are kept here to look at.
tmp=$build/spec-roundtrip
rm -rf "$tmp"
mkdir -p "$tmp"
# Both checks run even when the first one fails: they judge different
# parts of core/ (the module code; the engine).
status=0
"$bin" -j 2 --exceptions tests/spec/exceptions.txt --tmpdir "$tmp" "${jsons[@]}" || status=1

# The engine on the same files: every command that runs code
# (spec_run.c). Each .wast runs in a child of spec_run, so a crash names
# its file and line. Under SANITIZE=1 nothing needs setting: the engine's
# guard-page handler chains to ASan's for faults outside linear memory.
run_bin=$build/tests/spec/spec_run
if [ ! -x "$run_bin" ]; then
	echo "run.sh: $run_bin missing (make $run_bin)" >&2
	exit 2
fi
# Both engines (core/jit.h): the interpreter, then the compiler where
# this machine has it. HEISEN_ENGINE set by the caller picks one.
engines=${HEISEN_ENGINE:-interp jit}
for engine in $engines; do
	echo "spec-run: engine $engine"
	HEISEN_ENGINE=$engine "$run_bin" -j 2 --exceptions tests/spec/run_exceptions.txt \
		"${jsons[@]}" || status=1
done

# The rewriter (rewriter/instrument.h), on the same files. First its
# output must be valid: spec_instrument instruments every valid module
# with all memories and has wasm-validate check each result (rejected
# ones are kept in spec-instrumented/). Then it must mean the same: the
# engine runs every command again on the instrumented modules, with every
# site disarmed (mask 0: only the mask check runs) and armed (mask 1: the
# probe is called too), and must get the results above.
inst_bin=$build/tests/spec/spec_instrument
if [ ! -x "$inst_bin" ]; then
	echo "run.sh: $inst_bin missing (make $inst_bin)" >&2
	exit 2
fi
rm -rf "$build/spec-instrumented"
"$inst_bin" -j 2 --tmpdir "$build/spec-instrumented" "${jsons[@]}" || status=1
for engine in $engines; do
	echo "spec-run: engine $engine, instrumented"
	for mask in 0 1; do
		HEISEN_ENGINE=$engine "$run_bin" -j 2 --instrument "$mask" \
			--exceptions tests/spec/run_exceptions.txt "${jsons[@]}" || status=1
	done
done
exit $status
