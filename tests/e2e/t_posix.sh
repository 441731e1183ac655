#!/usr/bin/env bash
# The POSIX surface `heisen cc` gives real threaded C programs:
#   headers   the host's /usr/include is never searched: an #include <H>
#             wasm32-wasi lacks (<ucontext.h>, a Linux <asm/types.h>, one
#             behind a program's own header) fails with one line naming
#             H and docs/porting.md, exit 2, not glibc's or Linux's
#             error; a missing "H" of the program's own stays clang's
#   latomic   -latomic and -l atomic link (wasm32's atomics are
#             instructions)
#   misc      guests/posix-misc.c (<sys/queue.h>'s six kinds, getpid,
#             chmod and chown) prints what its native glibc build prints;
#             heisen check finds no race in it
#   attr      guests/posix-attr.c (thread, mutex, condition, rwlock and
#             barrier attributes, scheduling calls, timed rwlocks) prints
#             what its native glibc build prints, but for the real-time
#             line, which must be EPERM (root may get it natively)
#   signals   guests/posix-signals.c (a pool paused and resumed by
#             pthread_kill(SIGUSR1), raise, sigaction, masks, SIG_IGN,
#             nanosleep and sem_wait ended by EINTR, sleep and sem_wait
#             cancelled)
#             prints what its native glibc build prints; raise(SIGTERM)
#             with no handler ends both with status 143; heisen check
#             finds no race in it
#   libc      guests/posix-libc.c (random, rand, getenv beside setenv,
#             strerror, localtime_r, strftime and puts from four threads,
#             exit while they print): heisen check finds no race, in libc
#             or elsewhere
#   free      guests/free-race.c (a worker's write deep in a block, main's
#             free of it unordered): check reports the free's write of the
#             block racing with it in 3 of 3 runs, at the two lines, and
#             TSan natively a race (or a use after free, in runs where
#             the worker comes late); free-race-ok.c (joined first, and a
#             block reused by an unordered thread) clean in both
#   order     guests/libc-order.c (three races across printf, random and
#             a localtime_r result): check reports the three in 3 of 3
#             runs, at their lines, and none with a mutex ordering them;
#             TSan natively the same
#   fnptr     guests/knr-call.c (a thread start routine, a task and a
#             signal handler declared without parameters, called through
#             pointers that pass some) prints the native output;
#             guests/knr-mismatch.c (a result read from a function that
#             returns none) traps naming the function and both types
. "$(dirname "$0")/lib.sh"
cd "$dir" || exit 1
unset HEISEN_DB

cc() { # NAME ARGS... : heisen cc ARGS, leaving rc, $dir/NAME.out and .err
	local name=$1
	shift
	"$HEISEN" cc "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	rc=$?
}

# ---- headers: one line for what wasm32-wasi lacks --------------------------------
printf '#include <stdio.h>\n#include "mine.h"\nint main(void) { return 0; }\n' >"$dir/via.c"
printf '#include <ucontext.h>\n' >"$dir/mine.h"
printf '#include <asm/types.h>\nint main(void) { return 0; }\n' >"$dir/linux.c"
printf '#include <stdio.h>\n#include <sys/nosuch.h>\nint main(void) { return 0; }\n' >"$dir/nosuch.c"
for c in "via.c|./mine.h:1:10: <ucontext.h> is not available for wasm32-wasi (WASI has no user contexts" \
	"linux.c|linux.c:1:10: <asm/types.h> is not available for wasm32-wasi (a Linux kernel header" \
	"nosuch.c|nosuch.c:2:10: <sys/nosuch.h> is not available for wasm32-wasi (wasi-libc has no such header)"; do
	src=${c%%|*}
	want="heisen cc: ${c#*|}"
	cc "$src" -o "$dir/x.wasm" "$src"
	[ "$rc" -eq 2 ] || bad "cc $src: exit $rc, want 2"
	[ "$(wc -l <"$dir/$src.err")" -eq 1 ] && grep -qF "$want" "$dir/$src.err" &&
		grep -q 'see docs/porting.md$' "$dir/$src.err" ||
		bad "cc $src: want one line '$want...; see docs/porting.md', got: $(snippet "$dir/$src.err")"
	! grep -qE '/usr/include/[^w]|bits/|In file included' "$dir/$src.err" ||
		bad "cc $src: the host's headers or clang's include chain show: $(snippet "$dir/$src.err")"
done
printf '#include "absent.h"\nint main(void) { return 0; }\n' >"$dir/own.c"
cc own -c -o "$dir/own.o" "$dir/own.c"
[ "$rc" -eq 2 ] && grep -q "'absent.h' file not found" "$dir/own.err" &&
	! grep -q 'heisen cc' "$dir/own.err" ||
	bad "cc own.c: a missing \"absent.h\" should be clang's error, exit 2; got exit $rc: $(snippet "$dir/own.err")"
"$HEISEN" cc --print-cmd -c x.c >"$dir/cmd" 2>&1
grep -q -- '-nostdlibinc' "$dir/cmd" && grep -q -- '-idirafter /usr/include/wasm32-wasi' "$dir/cmd" ||
	bad "--print-cmd: no -nostdlibinc ... -idirafter /usr/include/wasm32-wasi: $(snippet "$dir/cmd")"
printf '#include <stdio.h>\nint main(void) { return 0; }\n' >"$dir/search.c"
cc search -E -v -o /dev/null "$dir/search.c"
sed -n '/search starts here/,/End of search/p' "$dir/search.err" >"$dir/search.list"
grep -q 'wasm32-wasi' "$dir/search.list" && ! grep -qE '^ /usr/(local/)?include$' "$dir/search.list" ||
	bad "cc -E -v: the include search list has the host's headers: $(snippet "$dir/search.list")"

# ---- -latomic ---------------------------------------------------------------------
cat >"$dir/atomic.c" <<'EOF'
#include <stdatomic.h>
#include <stdio.h>
static _Atomic long long n;
int main(void)
{
	atomic_fetch_add(&n, 41);
	atomic_fetch_add(&n, 1);
	printf("%lld\n", (long long)atomic_load(&n));
	return 0;
}
EOF
for flag in -latomic "-l atomic"; do
	# shellcheck disable=SC2086
	cc atomic -O1 -o "$dir/atomic.wasm" "$dir/atomic.c" $flag
	[ "$rc" -eq 0 ] || { bad "cc $flag: exit $rc: $(snippet "$dir/atomic.err")"; continue; }
	out=$(timeout -s KILL 60 "$HEISEN" run "$dir/atomic.wasm" </dev/null 2>&1)
	[ "$out" = 42 ] || bad "atomic.wasm built with $flag: printed '$out', want 42"
done

# ---- misc: <sys/queue.h>, getpid, chmod, against glibc --------------------------
need_demos
guests=$root/demos/build/guests
# check_clean NAME WASM [ARGS...]: 3 runs of heisen check end ok, no race
check_clean() {
	local name=$1 wasm=$2
	shift 2
	timeout -s KILL 300 "$HEISEN" check "$wasm" --runs 3 --json --db "$dir/check.db" \
		--timeout 60 -- "$@" >"$dir/$name.json" 2>"$dir/$name.cerr"
	rc=$?
	[ "$rc" -eq 0 ] || { bad "check $name: exit $rc: $(snippet "$dir/$name.cerr")"; return; }
	python3 - "$dir/$name.json" <<'EOF' >"$dir/why" 2>&1 || bad "check $name: $(snippet "$dir/why")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["statuses"] == {"ok": 3}, "statuses %r" % d["statuses"]
assert not d["races"], "races %r" % [[(s["file"], s["line"]) for s in r["sites"]] for r in d["races"]]
EOF
}
# check_races NAME WANT [ARGS...]: `check --runs 3` of guests/NAME.wasm
# ends every run ok and reports exactly the races WANT (a Python list of
# ([(kind, line), (kind, line)], runs), each access by its first line in
# NAME.c, sorted).
check_races() {
	local name=$1 want=$2
	shift 2
	timeout -s KILL 300 "$HEISEN" check "$guests/$name.wasm" --runs 3 --json \
		--db "$dir/check.db" -- "$@" >"$dir/$name.json" 2>"$dir/$name.cerr"
	rc=$?
	[ "$rc" -eq 0 ] || { bad "check $name: exit $rc: $(snippet "$dir/$name.cerr")"; return; }
	python3 - "$dir/$name.json" "$name.c" "$want" <<'EOF' >"$dir/why" 2>&1 || bad "check $name: $(snippet "$dir/why")"
import ast, json, sys
d = json.load(open(sys.argv[1]))
assert d["statuses"] == {"ok": 3}, "statuses %r" % d["statuses"]
def mine(site):  # the access's kind and its first line in the guest
    f = [x for x in site["stack"] if x["file"].endswith("/" + sys.argv[2])]
    return (site["kind"], f[0]["line"] if f else None)
races = sorted((sorted(mine(s) for s in r["sites"]), r["runs"]) for r in d["races"])
want = sorted(ast.literal_eval(sys.argv[3]))
assert races == want, "races %r, want %r" % (races, want)
EOF
}
# native NAME: build tests/e2e/guests/NAME.c with the host's cc into $dir/NAME
native() {
	command cc -pthread -O1 -o "$dir/$1" "$root/tests/e2e/guests/$1.c" 2>"$dir/$1.ncc" ||
		{ bad "native $1.c: $(snippet "$dir/$1.ncc")"; return 1; }
}
mkdir -p "$dir/files"
echo data >"$dir/files/mine"
if native posix-misc; then
	"$dir/posix-misc" "$dir/files/mine" "$dir/files/absent" >"$dir/misc.native" 2>&1
	timeout -s KILL 60 "$HEISEN" run "$guests/posix-misc.wasm" --dir "$dir/files::/f" \
		-- /f/mine /f/absent </dev/null >"$dir/misc.out" 2>"$dir/misc.err"
	rc=$?
	[ "$rc" -eq 0 ] && diff "$dir/misc.native" "$dir/misc.out" >"$dir/misc.diff" ||
		bad "posix-misc: exit $rc, output differs from glibc's: $(snippet "$dir/misc.diff") $(snippet "$dir/misc.err")"
fi
check_clean misc "$guests/posix-misc.wasm"

# ---- attributes and scheduling WASI cannot act on, against glibc -----------------
if native posix-attr; then
	timeout -s KILL 60 "$dir/posix-attr" >"$dir/attr.native" 2>&1
	timeout -s KILL 60 "$HEISEN" run "$guests/posix-attr.wasm" </dev/null \
		>"$dir/attr.out" 2>"$dir/attr.err"
	rc=$?
	[ "$rc" -eq 0 ] && diff <(grep -v '^rt:' "$dir/attr.native") <(grep -v '^rt:' "$dir/attr.out") \
		>"$dir/attr.diff" ||
		bad "posix-attr: exit $rc, output differs from glibc's: $(snippet "$dir/attr.diff") $(snippet "$dir/attr.err")"
	[ "$(grep '^rt:' "$dir/attr.out")" = "rt: create fifo EPERM, setschedparam fifo EPERM" ] ||
		bad "posix-attr: a real-time policy is not refused as for an unprivileged process: $(snippet "$dir/attr.out")"
fi

# ---- signals: a pool paused by pthread_kill, against glibc ------------------------
if native posix-signals; then
	timeout -s KILL 60 "$dir/posix-signals" >"$dir/sig.native" 2>&1
	nrc=$?
	timeout -s KILL 120 "$HEISEN" run "$guests/posix-signals.wasm" </dev/null \
		>"$dir/sig.out" 2>"$dir/sig.err"
	rc=$?
	[ "$nrc" -eq 0 ] || bad "native posix-signals: exit $nrc: $(snippet "$dir/sig.native")"
	[ "$rc" -eq 0 ] && diff "$dir/sig.native" "$dir/sig.out" >"$dir/sig.diff" ||
		bad "posix-signals: exit $rc, output differs from glibc's: $(snippet "$dir/sig.diff") $(snippet "$dir/sig.err")"
	grep -q '^pool: 0 of 8 jobs done while held$' "$dir/sig.out" ||
		bad "posix-signals: a held pool ran jobs: $(snippet "$dir/sig.out")"
	# in another bash, whose report of its child's death by SIGTERM
	# goes to /dev/null
	nrc=$(bash -c '"$1" term >/dev/null 2>&1; echo $?' _ "$dir/posix-signals" 2>/dev/null)
	timeout -s KILL 60 "$HEISEN" run "$guests/posix-signals.wasm" -- term </dev/null \
		>"$dir/term.out" 2>"$dir/term.err"
	rc=$?
	[ "$nrc" -eq 143 ] && [ "$rc" -eq 143 ] && [ ! -s "$dir/term.out" ] ||
		bad "raise(SIGTERM) with no handler: exit $rc (native $nrc), want 143 and no output: $(snippet "$dir/term.out")"
fi
check_clean signals "$guests/posix-signals.wasm"

# ---- libc: what glibc locks, locked by the guest library -------------------------
check_clean libc "$guests/posix-libc.wasm"

# ---- free: a write of the block, and the allocator no synchronisation -------------
# A worker's write deep in a block races with main's free of it (TSan's
# verdict too, where the C compiler has TSan); the twin, joined before the
# free and with a block reused by an unordered thread, is clean.
check_races free-race '[([("range-write", 31), ("write", 20)], 3)]'
check_clean free-race-ok "$guests/free-race-ok.wasm"
tsan_ok=
echo 'int main(void){return 0;}' >"$dir/t.c" &&
	command cc -fsanitize=thread -o "$dir/t" "$dir/t.c" 2>/dev/null && "$dir/t" && tsan_ok=1
if [ -n "$tsan_ok" ]; then
	for prog in free-race:1 free-race-ok:0; do
		name=${prog%:*}
		command cc -fsanitize=thread -g -O1 -pthread -o "$dir/$name.tsan" \
			"$root/tests/e2e/guests/$name.c" 2>"$dir/tsan.err" ||
			{ bad "$name: native TSan build failed: $(snippet "$dir/tsan.err")"; continue; }
		# A worker that writes after the free is TSan's
		# heap-use-after-free; before it, a race with the free. TSan
		# can miss a race with a thread that has ended (t_unjoined):
		# the racy one gets up to twenty runs.
		n=0
		for _ in $(seq $((${prog#*:} ? 20 : 3))); do
			n=$((n + $(TSAN_OPTIONS=exitcode=0 "$dir/$name.tsan" 2>&1 >/dev/null |
				grep -cE '^WARNING: ThreadSanitizer: (data race|heap-use-after-free)')))
			[ "${prog#*:}" = 1 ] && [ "$n" -gt 0 ] && break
		done
		[ "$((n > 0))" -eq "${prog#*:}" ] ||
			bad "$name: natively TSan reports $n races, want ${prog#*:}"
	done
fi

# ---- libc's own locks order nothing, as glibc's do not for TSan ------------------
# Three races whose threads each call printf, random or localtime_r
# between their accesses (one on the struct localtime_r fills): check
# sees all three in 3 of 3 runs, at their lines; ordered by a mutex
# ("ok"), none. TSan natively: 3 races, and none with "ok".
check_races libc-order '[([("range-write", 43), ("read", 58)], 3),
	([("read", 58), ("write", 41)], 3), ([("read", 58), ("write", 42)], 3)]'
check_clean libc-order-ok "$guests/libc-order.wasm" ok
if [ -n "$tsan_ok" ]; then
	command cc -fsanitize=thread -g -O1 -pthread -o "$dir/libc-order.tsan" \
		"$root/tests/e2e/guests/libc-order.c" 2>"$dir/tsan.err" ||
		bad "libc-order: native TSan build failed: $(snippet "$dir/tsan.err")"
	for arg in racy:3 ok:0; do
		n=$(TSAN_OPTIONS=exitcode=0 "$dir/libc-order.tsan" "${arg%:*}" 2>&1 >/dev/null |
			grep -c '^WARNING: ThreadSanitizer: data race')
		[ "$n" -eq "${arg#*:}" ] ||
			bad "libc-order ${arg%:*}: natively TSan reports $n races, want ${arg#*:}"
	done
fi

# ---- a function called through a pointer of another type ---------------------------
# Natively it runs; Wasm checks the type, and heisen runs it as natively
# where the types allow (a thread start routine, a task and a signal
# handler declared without parameters). Where they do not (a result
# the function never returns), the trap names the function, both types,
# and what to change.
timeout -s KILL 60 "$HEISEN" run "$guests/knr-call.wasm" >"$dir/knr.out" 2>"$dir/knr.err"
rc=$?
[ "$rc" -eq 0 ] || bad "knr-call: exit $rc, want 0: $(snippet "$dir/knr.err")"
[ "$(cat "$dir/knr.out")" = "done 1 tasks 3 signalled 1" ] ||
	bad "knr-call: output $(snippet "$dir/knr.out"), want the native 'done 1 tasks 3 signalled 1'"
timeout -s KILL 60 "$HEISEN" run "$guests/knr-mismatch.wasm" >"$dir/knrm.out" 2>"$dir/knrm.err"
rc=$?
[ "$rc" -eq 134 ] || bad "knr-mismatch: exit $rc, want 134 (a trap): $(snippet "$dir/knrm.err")"
grep -qE "^heisen: trap: indirect call type mismatch: 'nothing' \(\) -> \(\) called through \(\) -> \(i32\) in function [0-9]+ '__original_main'" "$dir/knrm.err" ||
	bad "knr-mismatch: the trap does not name nothing and both types: $(snippet "$dir/knrm.err")"
grep -q "reads a result the function does not return.*give the function the pointer's type" "$dir/knrm.err" ||
	bad "knr-mismatch: no line saying what to change: $(snippet "$dir/knrm.err")"

finish t_posix
