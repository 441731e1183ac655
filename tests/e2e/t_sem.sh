#!/usr/bin/env bash
# POSIX semaphores of the guest library (demos/guest/semaphore.c,
# docs/toolchain.md#semaphores), with guests of tests/e2e/guests/:
#   (a) hb-ok-sem, a bounded buffer ordered by sem_wait/sem_post alone:
#       0 races in 100 runs of `heisen check`;
#   (b) sem-missing-wait, the same without the consumer's sem_wait: the
#       race of its two "race" lines in at least 19 of 20 runs, and the
#       plain report's SUMMARY names one of them;
#   (c) sem-wait-race, written before a sem_wait and after the sem_post
#       that wakes it: reported in every one of 20 runs (a wait must not
#       order a later post);
#   (d) sem-api: every call's result and errno as semaphore.h documents
#       them (EINVAL, EAGAIN, ETIMEDOUT, EOVERFLOW, ENOSYS), sem_timedwait
#       returning after its deadline and not long after, or early when a
#       post beats it; `sem-api many` (4 posters, 4 sleeping waiters)
#       takes every unit once, under `heisen run` and race-free under
#       check; `sem-api errno` (two threads' sem_trywait failing at once)
#       races on the one shared errno, the runtime's race, not reported;
#   (e) natively with ThreadSanitizer, where the C compiler has it: the
#       same verdicts on the three programs of (a) to (c).
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB

guests=$root/tests/e2e/guests
build=$root/demos/build/guests

# races FILE.json RUNS: "N file:line file:line" per race, N its runs,
# sites by basename and sorted; exits non-zero unless every run was ok.
races() {
	python3 - "$1" "$2" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
runs = int(sys.argv[2])
if d["runs"] != runs or d["statuses"] != {"ok": runs}:
    sys.exit("runs %r, statuses %r" % (d["runs"], d["statuses"]))
for r in d["races"]:
    print(r["runs"], " ".join(sorted("%s:%s" % (os.path.basename(s["file"] or "?"),
                                                s["line"]) for s in r["sites"])))
EOF
}

# line FILE TAG: the line of FILE marked "/* race: TAG */".
line() { grep -n "/\* race: $2 \*/" "$1" | cut -d: -f1; }

# pair FILE TAG TAG: the race of those two lines as races prints it.
pair() {
	printf '%s\n' "$(basename "$1"):$(line "$1" "$2")" \
		"$(basename "$1"):$(line "$1" "$3")" | LC_ALL=C sort | paste -sd' '
}

# ---- (a) the bounded buffer, 100 runs -------------------------------------------

start=$SECONDS
hq ok check "$build/hb-ok-sem.wasm" --runs 100 --json --db "$dir/sem.db"
secs=$((SECONDS - start))
if [ "$rc" -ne 0 ]; then
	bad "hb-ok-sem: check exit $rc: $(snippet "$dir/ok.err")"
elif ! races "$dir/ok.out" 100 >"$dir/ok.races" 2>&1; then
	bad "hb-ok-sem: $(snippet "$dir/ok.races")"
elif [ -s "$dir/ok.races" ]; then
	bad "hb-ok-sem: races in 100 runs: $(snippet "$dir/ok.races")"
fi
echo "hb-ok-sem: 100 runs of check in ${secs}s"

# ---- (b) a missing sem_wait -----------------------------------------------------

src=$guests/sem-missing-wait.c
pair=$(pair "$src" write read)
hq miss check "$build/sem-missing-wait.wasm" --runs 20 --json --db "$dir/sem.db"
if [ "$rc" -ne 0 ]; then
	bad "sem-missing-wait: check exit $rc: $(snippet "$dir/miss.err")"
elif ! races "$dir/miss.out" 20 >"$dir/miss.races" 2>&1; then
	bad "sem-missing-wait: $(snippet "$dir/miss.races")"
else
	n=$(awk -v p="$pair" '{ n = $1; $1 = "" } substr($0, 2) == p { print n }' \
		"$dir/miss.races")
	[ "${n:-0}" -ge 19 ] ||
		bad "sem-missing-wait: $pair in ${n:-0} of 20 runs, want >= 19; races: $(snippet "$dir/miss.races")"
	echo "sem-missing-wait: $pair in ${n:-0} of 20 runs"
fi
hq plain check "$build/sem-missing-wait.wasm" --runs 1 --db "$dir/sem.db"
grep -qE "^SUMMARY: heisen: data race \S*sem-missing-wait\.c:($(line "$src" write)|$(line "$src" read)) in " \
	"$dir/plain.out" ||
	bad "sem-missing-wait: no SUMMARY line naming a racing line: $(snippet "$dir/plain.out")"

# ---- (c) a wait does not order a later post --------------------------------------

src=$guests/sem-wait-race.c
pair=$(pair "$src" waiter poster)
hq wr check "$build/sem-wait-race.wasm" --runs 20 --json --db "$dir/sem.db"
if [ "$rc" -ne 0 ]; then
	bad "sem-wait-race: check exit $rc: $(snippet "$dir/wr.err")"
elif ! races "$dir/wr.out" 20 >"$dir/wr.races" 2>&1; then
	bad "sem-wait-race: $(snippet "$dir/wr.races")"
elif [ "$(cat "$dir/wr.races")" != "20 $pair" ]; then
	bad "sem-wait-race: want '20 $pair', got: $(snippet "$dir/wr.races")"
fi

# ---- (d) the calls, one by one ---------------------------------------------------

cat >"$dir/api.want" <<'EOF'
sem_init SEM_VALUE_MAX+1: -1 EINVAL
sem_init pshared=1: 0
  value 2
sem_wait: 0
sem_trywait: 0
sem_trywait: -1 EAGAIN
  value 0
sem_post: 0
  value 1
sem_timedwait tv_nsec=1e9, a unit there: 0
sem_timedwait tv_nsec=1e9: -1 EINVAL
sem_timedwait tv_nsec=-1: -1 EINVAL
sem_timedwait deadline 1970: -1 ETIMEDOUT
sem_timedwait +200 ms: -1 ETIMEDOUT
  returned after the deadline: yes
  within 1 s of it: yes
  value 0
sem_timedwait +10 s, posted after 100 ms: 0
  returned before the deadline: yes
  value 0
sem_destroy: 0
sem_init SEM_VALUE_MAX: 0
sem_post: -1 EOVERFLOW
  value 2147483647
sem_trywait: 0
sem_post: 0
sem_post: -1 EOVERFLOW
  value 2147483647
sem_destroy: 0
sem_open: SEM_FAILED ENOSYS
sem_close: -1 ENOSYS
sem_unlink: -1 ENOSYS
EOF
hq api run "$build/sem-api.wasm" --timeout 60
if [ "$rc" -ne 0 ]; then
	bad "sem-api: run exit $rc: $(snippet "$dir/api.err")"
elif ! diff -u "$dir/api.want" "$dir/api.out" >"$dir/api.diff"; then
	bad "sem-api: output differs from semaphore.h's promises:"
	sed 's/^/      /' "$dir/api.diff"
fi

want_many="many: 20000 taken, value 0, every post ok"
hq many run "$build/sem-api.wasm" --timeout 60 -- many
[ "$rc" -eq 0 ] && [ "$(cat "$dir/many.out")" = "$want_many" ] ||
	bad "sem-api many: exit $rc (124: a lost wakeup?): $(snippet "$dir/many.out") $(snippet "$dir/many.err")"
hq manyc check "$build/sem-api.wasm" --runs 3 --json --db "$dir/sem.db" -- many
if [ "$rc" -ne 0 ]; then
	bad "sem-api many: check exit $rc: $(snippet "$dir/manyc.err")"
elif ! races "$dir/manyc.out" 3 >"$dir/manyc.races" 2>&1 || [ -s "$dir/manyc.races" ]; then
	bad "sem-api many: check: $(snippet "$dir/manyc.races")"
fi

hq errno check "$build/sem-api.wasm" --runs 3 --json --db "$dir/sem.db" -- errno
if [ "$rc" -ne 0 ]; then
	bad "sem-api errno: check exit $rc: $(snippet "$dir/errno.err")"
elif ! races "$dir/errno.out" 3 >"$dir/errno.races" 2>&1 || [ -s "$dir/errno.races" ]; then
	bad "sem-api errno: check: $(snippet "$dir/errno.races")"
fi

# ---- (e) ThreadSanitizer's verdicts, natively ------------------------------------

cc=${CC:-cc}
if echo 'int main(void){return 0;}' >"$dir/t.c" &&
	"$cc" -fsanitize=thread -o "$dir/t" "$dir/t.c" 2>/dev/null && "$dir/t"; then
	for prog in hb-ok-sem:0 sem-missing-wait:1 sem-wait-race:1; do
		name=${prog%:*}
		if ! "$cc" -fsanitize=thread -g -O1 -pthread -o "$dir/$name" \
			"$guests/$name.c" 2>"$dir/tsan.err"; then
			bad "$name: native TSan build failed: $(snippet "$dir/tsan.err")"
			continue
		fi
		n=$(TSAN_OPTIONS=exitcode=0 "$dir/$name" 2>&1 >/dev/null |
			grep -c '^WARNING: ThreadSanitizer: data race')
		[ "$n" -eq "${prog#*:}" ] ||
			bad "$name: natively TSan reports $n races, want ${prog#*:}"
	done
else
	echo "no ThreadSanitizer for $cc: native verdicts not compared"
fi

finish t_sem
