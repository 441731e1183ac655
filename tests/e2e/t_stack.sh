#!/usr/bin/env bash
# Thread stacks (docs/porting.md#thread-stacks):
#   default   a thread with a 1 MiB local array runs on the default
#             stack (2 MiB)
#   overflow  a thread that recurses past its stack ends the run with a
#             trap "stack overflow in thread 1 (stack 2048 KiB) in function
#             ... 'recurse'" and how to raise it, exit 134, free and under
#             heisen check; so does the main thread past its 8 MiB
. "$(dirname "$0")/lib.sh"
cd "$dir" || exit 1
unset HEISEN_DB
need_demos
wasm=$root/demos/build/guests/stack-size.wasm

hq big run "$wasm"
want big 0
[ "$(cat "$dir/big.out")" = "thread: 256" ] ||
	bad "1 MiB array on a thread: printed $(snippet "$dir/big.out"), want 'thread: 256'"

hq deep run "$wasm" -- deep
want deep 134
grep -q "trap: stack overflow in thread 1 (stack 2048 KiB) in function [0-9]* 'recurse' at offset 0x[0-9a-f]*; raise it with pthread_attr_setstacksize" "$dir/deep.err" ||
	bad "thread overflow: $(snippet "$dir/deep.err")"

hq main run "$wasm" -- main
want main 134
grep -q "trap: stack overflow in thread 0 (stack 8192 KiB) in function [0-9]* 'recurse' .*; raise it with heisen cc -Wl,-z,stack-size=BYTES" "$dir/main.err" ||
	bad "main thread overflow: $(snippet "$dir/main.err")"

hq check check "$wasm" --runs 1 --json --db "$dir/check.db" -- deep
want check 0
python3 - "$dir/check.out" <<'PY' >"$dir/why" 2>&1 || bad "check deep: $(snippet "$dir/why")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["statuses"] == {"trap": 1}, "statuses %r" % d["statuses"]
PY

finish t_stack
