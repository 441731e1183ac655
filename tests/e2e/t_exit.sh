#!/usr/bin/env bash
# Threads that end by pthread_exit, with programs built by `heisen cc`:
#   pool        500 threads, each ending by pthread_exit from a nested
#               call, are created and joined 10 at a time: all 500 joins
#               return their values, and while the program sleeps half-way
#               the heisen process has no OS thread per ended thread (a
#               pthread_exit used to park its thread: the 65th
#               pthread_create failed with EAGAIN)
#   main-exit   pthread_exit in main while a worker still runs: the
#               program lives until the worker ends, exit status 0
#   check       a worker's write before its pthread_exit is ordered before
#               main's read after the join (0 races); main's read before
#               the join races with it (1 race)
#   cancel      deferred cancellation, call by call, prints what glibc's
#               does: cleanup handlers innermost first on cancel and on
#               pthread_exit, pop(0) and pop(1), the mutex held again in a
#               cancelled pthread_cond_wait, cancellation disabled then
#               enabled, the asynchronous type, threads cancelled in
#               pthread_join and pthread_cond_timedwait, PTHREAD_CANCELED
#               from the join; every run of `heisen check` and of a small
#               sweep of it ends ok, with no race
. "$(dirname "$0")/lib.sh"
cd "$dir" || exit 1
unset HEISEN_DB

cat >"$dir/exit.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void end_here(long v, int depth)
{
	if (depth)
		end_here(v, depth - 1);
	pthread_exit((void *)v);
}

static void *worker(void *arg)
{
	end_here((long)arg, 5);
	return NULL;
}

static void *slow(void *arg)
{
	struct timespec ts = {0, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
	printf("worker done\n");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "pool")) {
		long sum = 0;
		int joins = 0;
		for (int i = 0; i < 500; i += 10) {
			pthread_t t[10];
			for (int k = 0; k < 10; k++) {
				int rc = pthread_create(&t[k], NULL, worker,
							(void *)(long)(i + k));
				if (rc) {
					printf("create %d: %s\n", i + k,
					       strerror(rc));
					return 1;
				}
			}
			for (int k = 0; k < 10; k++) {
				void *r;
				if (pthread_join(t[k], &r) == 0)
					joins++;
				sum += (long)r;
			}
			if (i + 10 == 250) {
				struct timespec ts = {2, 0};
				printf("half-way\n");
				fflush(stdout);
				nanosleep(&ts, NULL);
			}
		}
		printf("%d joins, sum %ld\n", joins, sum);
	} else if (!strcmp(mode, "main-exit")) {
		pthread_t t;
		if (pthread_create(&t, NULL, slow, NULL))
			return 1;
		printf("main exits\n");
		fflush(stdout);
		pthread_exit(NULL);
	}
	return 0;
}
EOF
if ! "$HEISEN" cc -O1 -g -o "$dir/exit.wasm" "$dir/exit.c" 2>"$dir/cc.err"; then
	echo "  FAIL: heisen cc exit.c: $(snippet "$dir/cc.err")"
	exit 1
fi

# ---- pool: 500 pthread_exits, OS threads bounded --------------------------------
"$HEISEN" run "$dir/exit.wasm" -- pool </dev/null >"$dir/pool.out" 2>"$dir/pool.err" &
pid=$!
threads=
for _ in $(seq 600); do
	if grep -q '^half-way' "$dir/pool.out"; then
		threads=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$pid/status")
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
# The guest sleeps 2 s; a hung engine must not hang the suite.
for _ in $(seq 600); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && grep -qx '500 joins, sum 124750' "$dir/pool.out" ||
	bad "pool: exit $rc; out: $(snippet "$dir/pool.out") err: $(snippet "$dir/pool.err")"
# The main thread, perhaps an ended thread not yet joined by the engine
# (it joins them at the next spawn) and nothing per pthread_exit: 250
# threads have ended by now.
if [ -z "$threads" ]; then
	bad "pool: no Threads: count read half-way; out: $(snippet "$dir/pool.out")"
elif [ "$threads" -gt 4 ]; then
	bad "pool: $threads OS threads half-way through, after 250 threads ended by pthread_exit (want at most 4)"
fi

# ---- main-exit: the program outlives main --------------------------------------
timeout -s KILL 60 "$HEISEN" run "$dir/exit.wasm" -- main-exit </dev/null >"$dir/main.out" 2>"$dir/main.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$dir/main.out")" = "$(printf 'main exits\nworker done')" ] ||
	bad "main-exit: exit $rc, want 0 with both lines; out: $(snippet "$dir/main.out") err: $(snippet "$dir/main.err")"

# ---- check: pthread_exit orders like a return ----------------------------------
for order in after before; do
	cat >"$dir/hb-$order.c" <<EOF
#include <pthread.h>
#include <stdio.h>

static int result;

static void *worker(void *arg)
{
	result = 42;
	pthread_exit(NULL);
}

int main(void)
{
	pthread_t t;
	int seen;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
#if $([ "$order" = before ] && echo 1 || echo 0)
	seen = result;
	pthread_join(t, NULL);
#else
	pthread_join(t, NULL);
	seen = result;
#endif
	printf("%d\n", seen);
	return 0;
}
EOF
	if ! "$HEISEN" cc -O1 -g -o "$dir/hb-$order.wasm" "$dir/hb-$order.c" 2>"$dir/cc.err"; then
		bad "heisen cc hb-$order.c: $(snippet "$dir/cc.err")"
		continue
	fi
	timeout -s KILL 300 "$HEISEN" check "$dir/hb-$order.wasm" --runs 3 --json \
		--db "$dir/hb.db" --timeout 60 >"$dir/hb-$order.json" 2>"$dir/hb-$order.err"
	rc=$?
	[ "$rc" -eq 0 ] || { bad "check hb-$order: exit $rc: $(snippet "$dir/hb-$order.err")"; continue; }
	want=0
	[ "$order" = before ] && want=1
	python3 - "$dir/hb-$order.json" "$want" <<'EOF' >"$dir/why" 2>&1 || bad "check hb-$order: $(snippet "$dir/why")"
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
assert d["statuses"] == {"ok": 3}, "statuses %r" % d["statuses"]
lines = sorted(sorted(s["line"] for s in r["sites"]) for r in d["races"])
assert len(d["races"]) == want, "races %r, want %d" % (lines, want)
if want:
    assert lines == [[8, 20]], "race on lines %r, want 8 and 20" % lines
EOF
done

# ---- cancel: deferred cancellation and cleanup handlers, against glibc ----------
cat >"$dir/cancel.c" <<'EOF'
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			printf("FAILED line %d: %s\n", __LINE__, #c);         \
			exit(1);                                              \
		}                                                             \
	} while (0)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started, never;
static int sent, ready;
static pthread_key_t key;
static pthread_t blocker;

static void say(void *s) { printf("cleanup %s\n", (char *)s); }
static void key_dtor(void *v) { printf("key destructor %s\n", (char *)v); }
static void unlock(void *mx)
{
	printf("cleanup unlock (mutex held: %s)\n",
	       pthread_mutex_trylock(mx) == EBUSY ? "yes" : "no");
	pthread_mutex_unlock(mx);
}

/* Under m: main waits for this before it cancels. */
static void mark_started(void)
{
	started = 1;
	pthread_cond_broadcast(&cv);
}

static void *in_cond_wait(void *arg)
{
	pthread_setspecific(key, "a");
	pthread_cleanup_push(say, "a1");
	pthread_cleanup_push(say, "a2");
	pthread_mutex_lock(&m);
	pthread_cleanup_push(unlock, &m);
	mark_started();
	while (!never)
		pthread_cond_wait(&cv, &m);
	pthread_cleanup_pop(1);
	pthread_cleanup_pop(1);
	pthread_cleanup_pop(1);
	return "not cancelled";
}

static void *in_timedwait(void *arg)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 60;
	pthread_cleanup_push(say, "g1");
	pthread_mutex_lock(&m);
	pthread_cleanup_push(unlock, &m);
	mark_started();
	while (!never)
		CHECK(pthread_cond_timedwait(&cv, &m, &ts) == 0);
	pthread_cleanup_pop(1);
	pthread_cleanup_pop(1);
	return "not cancelled";
}

static void *disabled(void *arg)
{
	int old;
	CHECK(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
	CHECK(old == PTHREAD_CANCEL_ENABLE);
	CHECK(pthread_setcancelstate(7, NULL) == EINVAL);
	pthread_cleanup_push(say, "b1");
	while (!__atomic_load_n(&sent, __ATOMIC_SEQ_CST))
		sched_yield();
	pthread_testcancel();
	printf("b: still running with cancellation disabled\n");
	CHECK(pthread_setcancelstate(old, &old) == 0);
	CHECK(old == PTHREAD_CANCEL_DISABLE);
	pthread_testcancel();
	printf("b: not reached\n");
	pthread_cleanup_pop(0);
	return NULL;
}

static void *async_type(void *arg)
{
	int old;
	CHECK(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old) == 0);
	CHECK(old == PTHREAD_CANCEL_DEFERRED);
	pthread_cleanup_push(say, "c1");
	__atomic_store_n(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pthread_testcancel();
	pthread_cleanup_pop(0);
	return NULL;
}

static void *exits(void *arg)
{
	pthread_cleanup_push(say, "d1");
	pthread_cleanup_push(say, "d2");
	pthread_cleanup_pop(0);
	pthread_cleanup_push(say, "d3");
	pthread_cleanup_push(say, "d4");
	pthread_cleanup_pop(1);
	pthread_exit((void *)7);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *blocked(void *arg)
{
	pthread_mutex_lock(&m);
	while (!never)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	return "released";
}

static void *in_join(void *arg)
{
	void *r;
	pthread_cleanup_push(say, "e1");
	pthread_join(blocker, &r);
	printf("e: joined %s\n", (char *)r);
	pthread_cleanup_pop(0);
	return NULL;
}

static void cancel_after_start(void *(*fn)(void *), const char *name)
{
	pthread_t t;
	void *r;
	started = 0;
	CHECK(pthread_create(&t, NULL, fn, NULL) == 0);
	pthread_mutex_lock(&m);
	while (!started)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	CHECK(pthread_cancel(t) == 0);
	CHECK(pthread_join(t, &r) == 0);
	printf("%s: %s\n", name, r == PTHREAD_CANCELED ? "canceled" : (char *)r);
	CHECK(pthread_mutex_trylock(&m) == 0);
	pthread_mutex_unlock(&m);
}

int main(void)
{
	pthread_t t;
	void *r;

	CHECK(pthread_key_create(&key, key_dtor) == 0);
	cancel_after_start(in_cond_wait, "a");
	cancel_after_start(in_timedwait, "g");

	CHECK(pthread_create(&t, NULL, disabled, NULL) == 0);
	CHECK(pthread_cancel(t) == 0);
	__atomic_store_n(&sent, 1, __ATOMIC_SEQ_CST);
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
	printf("b: canceled\n");

	CHECK(pthread_create(&t, NULL, async_type, NULL) == 0);
	while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST))
		sched_yield();
	CHECK(pthread_cancel(t) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
	printf("c: canceled\n");

	CHECK(pthread_create(&t, NULL, exits, NULL) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)7);
	printf("d: exited with 7\n");

	CHECK(pthread_create(&blocker, NULL, blocked, NULL) == 0);
	CHECK(pthread_create(&t, NULL, in_join, NULL) == 0);
	CHECK(pthread_cancel(t) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
	printf("e: canceled\n");
	pthread_mutex_lock(&m);
	never = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	CHECK(pthread_join(blocker, &r) == 0);
	printf("blocker: %s\n", (char *)r);
	return 0;
}
EOF
if ! "$HEISEN" cc -O1 -g -o "$dir/cancel.wasm" "$dir/cancel.c" 2>"$dir/cc.err"; then
	bad "heisen cc cancel.c: $(snippet "$dir/cc.err")"
elif ! cc -O1 -pthread -o "$dir/cancel" "$dir/cancel.c" 2>"$dir/cc.err"; then
	bad "cc -pthread cancel.c: $(snippet "$dir/cc.err")"
else
	timeout -s KILL 60 "$dir/cancel" >"$dir/cancel.native" 2>&1
	grep -qx 'cleanup a2' "$dir/cancel.native" ||
		bad "cancel: the native run printed no cleanup: $(snippet "$dir/cancel.native")"
	timeout -s KILL 60 "$HEISEN" run "$dir/cancel.wasm" </dev/null >"$dir/cancel.out" 2>"$dir/cancel.err"
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$dir/cancel.out" "$dir/cancel.native" ||
		bad "cancel: exit $rc; stdout '$(snippet "$dir/cancel.out")', native '$(snippet "$dir/cancel.native")'; err: $(snippet "$dir/cancel.err")"

	# Every run of check and of a small sweep ends ok, without a race.
	timeout -s KILL 300 "$HEISEN" check "$dir/cancel.wasm" --runs 3 --json \
		--db "$dir/cancel.db" --timeout 60 >"$dir/check.json" 2>"$dir/check.err"
	rc=$?
	timeout -s KILL 300 "$HEISEN" sweep "$dir/cancel.wasm" --runs 2 --densities 10,100 \
		--db "$dir/cancel.db" --timeout 60 --json >"$dir/sweep.json" 2>"$dir/sweep.err"
	src=$?
	if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
		bad "check, sweep cancel: exit $rc, $src: $(snippet "$dir/check.err") $(snippet "$dir/sweep.err")"
	else
		python3 - "$dir/check.json" "$dir/sweep.json" <<'EOF' >"$dir/why" 2>&1 ||
import json, sys
c = json.load(open(sys.argv[1]))
assert c["statuses"] == {"ok": 3}, "check statuses %r" % c["statuses"]
assert c["races"] == [], "check races %r" % c["races"]
s = json.load(open(sys.argv[2]))
st = s["statuses"]
assert st["ok"] > 0 and sum(st.values()) == st["ok"], "sweep statuses %r" % st
assert s["program_bugs"] == [], "sweep bugs %r" % s["program_bugs"]
EOF
			bad "check, sweep cancel: $(snippet "$dir/why")"
	fi
fi

finish t_exit
