#!/usr/bin/env bash
# The compiler (core/jit.h) against the interpreter on whole programs:
# a serial run under a seeded schedule takes the same scheduling points
# in both engines, so its digest, points and switches are equal (the
# events of serial execution are the same); a program's output and exit
# status are the same; `run --stats` tells the two apart; a bad
# HEISEN_ENGINE is refused with exit 2.
. "$(dirname "$0")/lib.sh"
need_demos
b=$root/demos/build

# sched DEMO ENGINE: "digest points switches" of a seeded serial run.
sched() {
	HEISEN_ENGINE=$2 "$HEISEN" run "$b/$1.wasm" --schedule random:0.05 --schedule-seed 3 --json 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); s=d.get("schedule") or d; print(s["digest"], s["points"], s["switches"])'
}
for demo in fibonacci lost-update prod-cons mutex-counter; do
	i=$(sched "$demo" interp) c=$(sched "$demo" jit)
	[ -n "$i" ] && [ "$i" = "$c" ] || bad "$demo: serial run interpreted '$i', compiled '$c'"
done

for demo in fibonacci prod-cons simd-race-free; do
	[ -f "$b/$demo.wasm" ] || continue
	HEISEN_ENGINE=interp "$HEISEN" run "$b/$demo.wasm" >"$dir/i.out" 2>/dev/null
	ri=$?
	HEISEN_ENGINE=jit "$HEISEN" run "$b/$demo.wasm" >"$dir/c.out" 2>/dev/null
	rc=$?
	[ "$ri" = "$rc" ] || bad "$demo: exit $ri interpreted, $rc compiled"
done

HEISEN_ENGINE=interp "$HEISEN" run "$b/fibonacci.wasm" --stats >/dev/null 2>"$dir/err"
grep -q "^heisen: engine: interpreter" "$dir/err" || bad "run --stats, interp: $(snippet "$dir/err")"
if [ "$(uname -m)" = x86_64 ]; then
	HEISEN_ENGINE=jit "$HEISEN" run "$b/fibonacci.wasm" --stats >/dev/null 2>"$dir/err"
	grep -q "^heisen: engine: compiler, [1-9][0-9]* functions compiled, 0 interpreted, [1-9][0-9]* never called and not compiled" "$dir/err" ||
		bad "run --stats, jit: $(snippet "$dir/err")"
fi
expect 2 "bad HEISEN_ENGINE" env HEISEN_ENGINE=fast "$HEISEN" run "$b/fibonacci.wasm"
grep -q "HEISEN_ENGINE is 'fast'; it takes jit" "$dir/err" || bad "bad HEISEN_ENGINE: $(snippet "$dir/err")"

finish t_engines
