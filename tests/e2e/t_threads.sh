#!/usr/bin/env bash
# Threads under `heisen run`, end to end, with programs built by
# `heisen cc` (so the guest library's pthreads are what runs):
#   atomics     4 threads x 1e6 atomic adds give the exact total
#   pingpong    100000 wait/notify round trips between two threads finish
#   race        two threads doing a plain counter++ lose updates in at
#               least one of 20 runs (real parallelism, as on hardware)
#   exit/trap   proc_exit or a trap on a thread other than main ends the
#               whole program promptly, with the code given / 134, even
#               while main is blocked in a wait
#   timeout     --timeout 1 ends a program spinning forever and one
#               blocked in a wait forever, with 124
#   hostile     spawning threads until refused ends with a clear message
#               and no crash; 10000 short-lived threads run to the end;
#               memory.grow up to the module's maximum fails cleanly
#   api         the guest library's pthreads, call by call (TLS, keys,
#               once, exit, detach, mutex kinds, conds, rwlock, spin,
#               barrier), print what glibc's do
. "$(dirname "$0")/lib.sh"

# run SECONDS ARGS... : heisen run under a hard guard, leaving rc, the
# elapsed whole seconds in secs, and $dir/out, $dir/err. KILL gives 137,
# which no check accepts, so a hung engine fails instead of hanging.
run() {
	local limit=$1 start=$SECONDS
	shift
	timeout -s KILL "$limit" "$HEISEN" run "$@" </dev/null >"$dir/out" 2>"$dir/err"
	rc=$?
	secs=$((SECONDS - start))
}

cat >"$dir/threads.c" <<'EOF'
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nthreads_done;
static int word;
static volatile int counter;
static long total;
static int go;

static void start_together(int n)
{
	__atomic_fetch_add(&nthreads_done, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&nthreads_done, __ATOMIC_SEQ_CST) < n)
		;
}

static void *atomic_adder(void *arg)
{
	start_together(4);
	for (int i = 0; i < 1000000; i++)
		__atomic_fetch_add(&total, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* word: 0 = ping's turn, 1 = pong's turn. */
static void *pingpong(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < 100000; i++) {
		while (__atomic_load_n(&word, __ATOMIC_SEQ_CST) != me)
			__builtin_wasm_memory_atomic_wait32(&word, !me, -1);
		__atomic_store_n(&word, !me, __ATOMIC_SEQ_CST);
		__builtin_wasm_memory_atomic_notify(&word, 1);
	}
	return NULL;
}

static void *racer(void *arg)
{
	start_together(2);
	for (int i = 0; i < 1000000; i++)
		counter++; /* the race under test: no lock, not atomic */
	return NULL;
}

static void *sleeper(void *arg)
{
	for (;;)
		__builtin_wasm_memory_atomic_wait32(&word, 0, -1);
	return NULL;
}

static void *exiter(void *arg)
{
	exit(7);
}

static void *trapper(void *arg)
{
	__builtin_trap();
}

static void *waiter(void *arg)
{
	while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST))
		__builtin_wasm_memory_atomic_wait32(&go, 0, -1);
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

static pthread_t two(void *(*fn)(void *), void *(*fn2)(void *))
{
	pthread_t a, b;
	if (pthread_create(&a, NULL, fn, (void *)0) ||
	    pthread_create(&b, NULL, fn2, (void *)1)) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
	return a;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "atomics")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, atomic_adder, NULL))
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		printf("total %ld\n", total);
	} else if (!strcmp(mode, "pingpong")) {
		pthread_t a = two(pingpong, pingpong);
		pthread_join(a, NULL);
		printf("pingpong done\n");
	} else if (!strcmp(mode, "race")) {
		pthread_t a, b;
		pthread_create(&a, NULL, racer, NULL);
		pthread_create(&b, NULL, racer, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		printf("counter %d\n", counter);
	} else if (!strcmp(mode, "exit-thread") || !strcmp(mode, "trap-thread")) {
		/* main blocks forever in join of a thread that never ends */
		pthread_t a = two(sleeper, mode[0] == 'e' ? exiter : trapper);
		pthread_join(a, NULL);
		printf("not reached\n");
	} else if (!strcmp(mode, "spin")) {
		for (volatile int x = 0;; x++)
			;
	} else if (!strcmp(mode, "block")) {
		__builtin_wasm_memory_atomic_wait32(&word, 0, -1);
		printf("not reached\n");
	} else if (!strcmp(mode, "spawn-many")) {
		/* Threads that stay alive until released: the host refuses
		 * some spawn; pthread_create must say so with EAGAIN. */
		static pthread_t t[10000];
		int n, rc = 0;
		for (n = 0; n < 10000; n++)
			if ((rc = pthread_create(&t[n], NULL, waiter, NULL)))
				break;
		printf("created %d threads; then: %s\n", n,
		       n < 10000 ? strerror(rc) : "none refused");
		__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
		__builtin_wasm_memory_atomic_notify(&go, -1);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("joined %d\n", n);
	} else if (!strcmp(mode, "spawn-seq")) {
		/* 10000 short-lived threads, 8 at a time. */
		long sum = 0;
		for (int i = 0; i < 10000; i += 8) {
			pthread_t t[8];
			for (int k = 0; k < 8; k++)
				if (pthread_create(&t[k], NULL, nothing,
						   (void *)(long)(i + k))) {
					printf("create %d failed\n", i + k);
					return 1;
				}
			for (int k = 0; k < 8; k++) {
				void *r;
				pthread_join(t[k], &r);
				sum += (long)r;
			}
		}
		printf("10000 threads, sum %ld\n", sum);
	} else if (!strcmp(mode, "grow")) {
		/* volatile: clang may otherwise assume malloc succeeds
		 * and delete the loop */
		void *volatile block;
		int blocks = 0;
		while ((block = malloc(1 << 20)))
			blocks++;
		while (__builtin_wasm_memory_grow(0, 1) != (size_t)-1)
			;
		printf("malloc failed cleanly after %d MiB; memory %zu pages\n",
		       blocks, __builtin_wasm_memory_size(0));
	} else {
		fprintf(stderr, "unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
EOF
if ! "$HEISEN" cc -O1 -g -o "$dir/threads.wasm" "$dir/threads.c" 2>"$dir/cc.err"; then
	echo "  FAIL: heisen cc threads.c: $(snippet "$dir/cc.err")"
	exit 1
fi
t="$dir/threads.wasm"

# (a) exact total of atomic adds
run 120 "$t" -- atomics
[ "$rc" -eq 0 ] && grep -qx 'total 4000000' "$dir/out" ||
	bad "atomics: exit $rc, want 0 and 'total 4000000'; out: $(snippet "$dir/out") err: $(snippet "$dir/err")"

# (b) wait/notify ping-pong
run 120 "$t" -- pingpong
[ "$rc" -eq 0 ] && grep -qx 'pingpong done' "$dir/out" ||
	bad "pingpong: exit $rc (${secs}s), want 0; err: $(snippet "$dir/err")"

# (c) a plain counter++ race loses updates, never gains any
lost=0
for i in $(seq 20); do
	run 120 "$t" -- race
	v=$(sed -n 's/^counter //p' "$dir/out")
	if [ "$rc" -ne 0 ] || [ -z "$v" ] || [ "$v" -gt 2000000 ]; then
		bad "race: exit $rc, counter '$v'; err: $(snippet "$dir/err")"
		break
	fi
	if [ "$v" -lt 2000000 ]; then
		lost=1
		break
	fi
done
[ "$lost" -eq 1 ] || [ "$failures" -ne 0 ] ||
	bad "race: 20 runs of 2 x 1e6 unsynchronised increments lost no update: threads do not run in parallel?"

# (d) proc_exit and a trap on another thread end everything promptly
run 20 "$t" -- exit-thread
[ "$rc" -eq 7 ] || bad "exit on a thread: exit $rc (${secs}s), want 7; err: $(snippet "$dir/err")"
run 20 "$t" -- trap-thread
[ "$rc" -eq 134 ] || bad "trap on a thread: exit $rc (${secs}s), want 134; err: $(snippet "$dir/err")"
grep -qi trap "$dir/err" || bad "trap on a thread: stderr does not mention the trap: $(snippet "$dir/err")"

# (e) --timeout ends spinning and blocked programs
for mode in spin block; do
	run 20 --timeout 1 "$t" -- $mode
	[ "$rc" -eq 124 ] || bad "--timeout 1 ($mode): exit $rc, want 124; err: $(snippet "$dir/err")"
done

# (f) hostile: more threads than the host allows
run 120 "$t" -- spawn-many
if [ "$rc" -ne 0 ] || ! grep -q '^created [0-9]* threads' "$dir/out" || ! grep -q '^joined' "$dir/out"; then
	bad "spawn-many: exit $rc, want 0 with a 'created N threads' line; out: $(snippet "$dir/out") err: $(snippet "$dir/err")"
fi
run 120 --max-threads 8 "$t" -- spawn-many
grep -q 'created [0-8] threads; then: Resource temporarily unavailable' "$dir/out" ||
	bad "spawn-many --max-threads 8: want EAGAIN after at most 8 threads; exit $rc; out: $(snippet "$dir/out") err: $(snippet "$dir/err")"
run 300 "$t" -- spawn-seq
[ "$rc" -eq 0 ] && grep -qx '10000 threads, sum 49995000' "$dir/out" ||
	bad "spawn-seq: exit $rc (${secs}s); out: $(snippet "$dir/out") err: $(snippet "$dir/err")"

# (g) hostile: memory.grow to the limit (heisen cc's cap: 256 MiB = 4096
# pages; --max-memory lowers it)
run 120 "$t" -- grow
grep -q 'malloc failed cleanly after [0-9]* MiB; memory 4096 pages' "$dir/out" && [ "$rc" -eq 0 ] ||
	bad "grow: exit $rc; out: $(snippet "$dir/out") err: $(snippet "$dir/err")"
run 120 --max-memory 16M "$t" -- grow
grep -q 'malloc failed cleanly after [0-9]* MiB; memory 256 pages' "$dir/out" && [ "$rc" -eq 0 ] ||
	bad "grow --max-memory 16M: exit $rc; out: $(snippet "$dir/out") err: $(snippet "$dir/err")"

# (h) the guest library's pthreads API, call by call, against glibc's
cat >"$dir/api.c" <<'EOF'
/* The guest library's pthreads API, checked call by call: prints one
 * line per area and "api ok" at the end; exits 1 at the first failure. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			printf("FAILED line %d: %s\n", __LINE__, #c);         \
			exit(1);                                              \
		}                                                             \
	} while (0)

static _Thread_local int tls = 7;
static int dtor_calls, once_calls, detached_done;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t bar;
static long spin_count;
static int serials;
static pthread_t creator_saw;

static void dtor(void *v) { __atomic_fetch_add(&dtor_calls, 1, 5); free(v); }
static void init_once(void) { once_calls++; }

static void *tls_thread(void *arg)
{
	CHECK(tls == 7); /* a fresh copy of the initial value */
	tls = (int)(long)arg;
	pthread_once(&once, init_once);
	pthread_setspecific(key, malloc(16));
	CHECK(pthread_getspecific(key) != NULL);
	if (arg == (void *)1)
		creator_saw = pthread_self();
	return (void *)(long)(tls * 2);
}

static void *exiting(void *arg)
{
	pthread_setspecific(key, malloc(16));
	pthread_exit((void *)123);
}

static void *detached(void *arg)
{
	__atomic_store_n(&detached_done, 1, 5);
	return NULL;
}

static void *spinner(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		pthread_spin_lock(&spin);
		spin_count++;
		pthread_spin_unlock(&spin);
	}
	if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
		__atomic_fetch_add(&serials, 1, 5);
	pthread_rwlock_rdlock(&rw);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

static void *waiter(void *arg)
{
	int *flag = arg;
	pthread_mutex_lock(&m);
	while (!*flag)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	void *r;
	pthread_attr_t a;
	size_t ss;
	int flag = 0;

	/* threads, TLS, keys, once, join results */
	CHECK(pthread_key_create(&key, dtor) == 0);
	for (long i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, tls_thread, (void *)(i + 1)) == 0);
	for (long i = 0; i < 4; i++) {
		CHECK(pthread_join(t[i], &r) == 0);
		CHECK((long)r == (i + 1) * 2);
	}
	CHECK(tls == 7 && once_calls == 1 && dtor_calls == 4);
	CHECK(pthread_equal(pthread_self(), pthread_self()));
	CHECK(!pthread_equal(pthread_self(), creator_saw));
	CHECK(pthread_join(pthread_self(), NULL) == EDEADLK);
	printf("threads ok\n");

	/* pthread_exit on a thread, attributes, detach */
	CHECK(pthread_create(&t[0], NULL, exiting, NULL) == 0);
	CHECK(pthread_join(t[0], &r) == 0 && (long)r == 123 && dtor_calls == 5);
	pthread_attr_init(&a);
	CHECK(pthread_attr_setstacksize(&a, 1 << 20) == 0);
	CHECK(pthread_attr_getstacksize(&a, &ss) == 0 && ss == 1 << 20);
	CHECK(pthread_attr_setstacksize(&a, 16) == EINVAL);
	CHECK(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0);
	CHECK(pthread_create(&t[0], &a, detached, NULL) == 0);
	pthread_attr_destroy(&a);
	while (!__atomic_load_n(&detached_done, 5))
		;
	CHECK(pthread_create(&t[0], NULL, detached, NULL) == 0);
	CHECK(pthread_detach(t[0]) == 0);
	printf("exit, attr, detach ok\n");

	/* mutex kinds */
	{
		pthread_mutexattr_t ma;
		pthread_mutex_t rec, chk;
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&rec, &ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
		pthread_mutex_init(&chk, &ma);
		CHECK(pthread_mutex_lock(&rec) == 0 && pthread_mutex_lock(&rec) == 0);
		CHECK(pthread_mutex_unlock(&rec) == 0 && pthread_mutex_unlock(&rec) == 0);
		CHECK(pthread_mutex_unlock(&rec) == EPERM);
		CHECK(pthread_mutex_lock(&chk) == 0 && pthread_mutex_lock(&chk) == EDEADLK);
		CHECK(pthread_mutex_unlock(&chk) == 0);
		CHECK(pthread_mutex_lock(&m) == 0 && pthread_mutex_trylock(&m) == EBUSY);
		CHECK(pthread_mutex_destroy(&m) == EBUSY);
		CHECK(pthread_mutex_unlock(&m) == 0 && pthread_mutex_trylock(&m) == 0);
		CHECK(pthread_mutex_unlock(&m) == 0);
	}
	printf("mutexes ok\n");

	/* condition variables: timeout, then a real wakeup */
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&m);
		CHECK(pthread_cond_timedwait(&cv, &m, &ts) == ETIMEDOUT);
		pthread_mutex_unlock(&m);
		CHECK(pthread_create(&t[0], NULL, waiter, &flag) == 0);
		CHECK(pthread_create(&t[1], NULL, waiter, &flag) == 0);
		pthread_mutex_lock(&m);
		flag = 1;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&m);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
	}
	printf("condition variables ok\n");

	/* spin lock, barrier (one serial thread), rwlock */
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	CHECK(pthread_barrier_init(&bar, NULL, 0) == EINVAL);
	CHECK(pthread_barrier_init(&bar, NULL, 4) == 0);
	CHECK(pthread_rwlock_wrlock(&rw) == 0);
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, spinner, NULL) == 0);
	CHECK(pthread_rwlock_tryrdlock(&rw) == EBUSY);
	CHECK(pthread_rwlock_unlock(&rw) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(spin_count == 40000 && serials == 1);
	CHECK(pthread_rwlock_rdlock(&rw) == 0 && pthread_rwlock_tryrdlock(&rw) == 0);
	CHECK(pthread_rwlock_trywrlock(&rw) == EBUSY);
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_unlock(&rw);
	CHECK(pthread_rwlock_trywrlock(&rw) == 0);
	pthread_rwlock_unlock(&rw);
	printf("spin, barrier, rwlock ok\n");

	/* main's pthread_exit: the program lives until the last thread ends */
	CHECK(pthread_create(&t[0], NULL, detached, NULL) == 0);
	printf("api ok\n");
	fflush(stdout);
	pthread_exit(NULL);
}
EOF
if ! "$HEISEN" cc -O1 -g -o "$dir/api.wasm" "$dir/api.c" 2>"$dir/cc.err"; then
	bad "heisen cc api.c: $(snippet "$dir/cc.err")"
elif ! cc -O1 -pthread -o "$dir/api" "$dir/api.c" 2>"$dir/cc.err"; then
	bad "cc -pthread api.c: $(snippet "$dir/cc.err")"
else
	timeout -s KILL 60 "$dir/api" >"$dir/api.native" 2>&1
	run 60 "$dir/api.wasm"
	[ "$rc" -eq 0 ] && cmp -s "$dir/out" "$dir/api.native" ||
		bad "api: exit $rc; stdout '$(snippet "$dir/out")', native '$(snippet "$dir/api.native")'; err: $(snippet "$dir/err")"
fi

finish t_threads
