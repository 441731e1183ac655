#!/usr/bin/env bash
# setjmp and longjmp in `heisen cc` programs (docs/porting.md), which
# clang lowers onto WebAssembly exception handling:
#   output   guests/posix-setjmp.c (an error path out of three nested
#            calls, nested setjmp points, sigsetjmp, four threads
#            jumping at once) prints what its native glibc build prints,
#            in free and in serial execution
#   check    heisen check finds no race in it (the rewriter's probes in
#            functions with try blocks; the guest library's setjmp state)
#   stale    a longjmp to a function that has returned ends the run as
#            a trap naming an uncaught exception, exit 134
. "$(dirname "$0")/lib.sh"
cd "$dir" || exit 1
unset HEISEN_DB
need_demos
wasm=$root/demos/build/guests/posix-setjmp.wasm

command cc -pthread -O1 -o "$dir/native" "$root/tests/e2e/guests/posix-setjmp.c" 2>"$dir/ncc" ||
	bad "native posix-setjmp.c: $(snippet "$dir/ncc")"
"$dir/native" >"$dir/native.out" 2>&1 || bad "native posix-setjmp: exit $?"
grep -q '^error 42 from depth 3 after 2 tries$' "$dir/native.out" ||
	bad "native posix-setjmp: no error path out of depth 3: $(snippet "$dir/native.out")"

hq run run "$wasm"
want run 0
diff "$dir/native.out" "$dir/run.out" >"$dir/run.diff" ||
	bad "posix-setjmp: output differs from glibc's: $(snippet "$dir/run.diff")"

# --json: the report on stdout, the program's output on stderr
hq serial run "$wasm" --schedule random --schedule-seed 5 --json
want serial 0
diff "$dir/native.out" "$dir/serial.err" >"$dir/serial.diff" ||
	bad "posix-setjmp, serial: output differs from glibc's: $(snippet "$dir/serial.diff")"

timeout -s KILL 300 "$HEISEN" check "$wasm" --runs 3 --json --db "$dir/check.db" \
	--timeout 60 >"$dir/check.json" 2>"$dir/check.err"
rc=$?
[ "$rc" -eq 0 ] || bad "check: exit $rc: $(snippet "$dir/check.err")"
python3 - "$dir/check.json" <<'PY' >"$dir/why" 2>&1 || bad "check: $(snippet "$dir/why")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["statuses"] == {"ok": 3}, "statuses %r" % d["statuses"]
assert not d["races"], "races %r" % [[(s["file"], s["line"]) for s in r["sites"]] for r in d["races"]]
PY

hq stale run "$wasm" -- stale
want stale 134
grep -q 'trap: uncaught exception in function .*__heisen_throw_longjmp' "$dir/stale.err" ||
	bad "stale longjmp: no 'uncaught exception' trap: $(snippet "$dir/stale.err")"

finish t_sjlj
