#!/usr/bin/env bash
# The command line itself: help, usage errors and exit codes (0 ok, 2 bad
# usage or input), and that `inspect --json` prints JSON with a "schema".
. "$(dirname "$0")/lib.sh"

run() { # ARGS... : run heisen, leaving rc, $dir/out and $dir/err
	"$HEISEN" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
}


# (module (func)) with an export, so inspect has something to show.
printf '%s' '0061736d01000000 0104016000000302010007050101660000 0a040102000b' |
	tr -d ' ' | xxd -r -p >"$dir/valid.wasm"

for args in "--help" "help"; do
	run $args
	[ "$rc" -eq 0 ] || bad "heisen $args: exit $rc, want 0"
	for cmd in validate inspect; do
		grep -qw "$cmd" "$dir/out" || bad "heisen $args: '$cmd' not listed on stdout: $(snippet "$dir/out")"
	done
done

run help validate
[ "$rc" -eq 0 ] || bad "heisen help validate: exit $rc, want 0"
grep -qw validate "$dir/out" || bad "heisen help validate: does not mention validate: $(snippet "$dir/out")"

run no-such-command
[ "$rc" -eq 2 ] || bad "heisen no-such-command: exit $rc, want 2"
[ -s "$dir/err" ] || bad "heisen no-such-command: nothing on stderr"

run validate
[ "$rc" -eq 2 ] || bad "heisen validate (no file): exit $rc, want 2"
[ -s "$dir/err" ] || bad "heisen validate (no file): nothing on stderr"

run validate "$dir/valid.wasm"
[ "$rc" -eq 0 ] || bad "heisen validate valid.wasm: exit $rc, want 0: $(snippet "$dir/err")"

# check_json LABEL: the last run printed a JSON object with "schema".
check_json() {
	[ "$rc" -eq 0 ] || { bad "heisen $1: exit $rc, want 0: $(snippet "$dir/err")"; return; }
	if command -v python3 >/dev/null; then
		python3 -m json.tool <"$dir/out" >/dev/null 2>"$dir/jerr" ||
			{ bad "heisen $1: not JSON ($(snippet "$dir/jerr")): $(snippet "$dir/out")"; return; }
		python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(0 if isinstance(d, dict) and "schema" in d else 1)' \
			<"$dir/out" 2>/dev/null || bad "heisen $1: no top-level \"schema\" key"
	else
		echo "  (python3 missing: JSON syntax check skipped)"
		grep -q '"schema"' "$dir/out" || bad "heisen $1: no \"schema\" key"
	fi
}

# Both option orders: the usage line puts FILE first; options before
# operands is the other common habit.
run inspect "$dir/valid.wasm" --json
check_json "inspect FILE --json"
run inspect --json "$dir/valid.wasm"
check_json "inspect --json FILE"

finish t_cli
