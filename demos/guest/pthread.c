/*
 * pthread.c - POSIX threads on wasi-threads for heisen's guests.
 *
 * How it works: see pthread.h. Storage layouts of the musl-sized types
 * this file interprets (all ints, index into __u.__i):
 *   pthread_attr_t     [0] stack size (0 = default) [1] detach state
 *   pthread_mutex_t    [0] lock word [1] type [2] owner (recursive and
 *                      errorcheck only) [3] recursion count
 *   pthread_cond_t     [0] sequence (futex) [1] 1 = CLOCK_MONOTONIC
 *   pthread_rwlock_t   [0] lock word [1] readers [2] writer [3] sequence
 *   pthread_barrier_t  [0] lock word [1] count [2] arrived [3] generation
 *   pthread_once_t     0 never run, 1 running, 2 done
 * Zeroed storage is a valid default object, so the static initializers
 * are all zeros.
 *
 * Every word another thread may touch concurrently is accessed with
 * __atomic builtins (sequentially consistent unless noted), so the race
 * detector sees the library itself as race-free.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define XCHG(p, v)  __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define ADD(p, v)   __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)

/* The wasi-threads host import: start a thread that calls
 * wasi_thread_start(tid, start_arg). Returns the new thread's id (> 0) or
 * a negative number when the host refuses. */
__attribute__((import_module("wasi"), import_name("thread-spawn"))) int32_t
__heisen_wasi_thread_spawn(int32_t start_arg);

/* Defined by wasm-ld: copies the .tdata image to block and points
 * __tls_base at it. */
extern void __wasm_init_tls(void *block);

/* In thread_start.s: mark t exited and end the calling thread. */
_Noreturn void __heisen_thread_exit(struct __pthread *t);

/* Programs may define this (strongly) to change every thread's default
 * stack size. 2 MiB, not Linux's 8: stacks come out of the program's
 * memory, which heisen cc caps at 256 MiB, and 64 threads (heisen's
 * default limit) of 2 MiB leave half of it to the heap; pages a thread
 * never touches cost nothing. The engine traps a thread that outgrows it
 * (heisen.hint.stack). */
__attribute__((weak)) size_t __heisen_default_stack_size = 2 * 1024 * 1024;

static _Thread_local struct __pthread *self;
static struct __pthread main_thread;

/* Threads started and not yet finished; a futex for pthread_exit in
 * main. */
static int live_threads;

/* Detached threads whose blocks are freed once `exited` is set. */
static int reap_lock;
static struct __pthread *reap_list;

/* ---- locks ---------------------------------------------------------- */

int64_t __heisen_ns_until(const struct timespec *abs, int monotonic)
{
	struct timespec now;

	clock_gettime(monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME, &now);
	return (int64_t)(abs->tv_sec - now.tv_sec) * 1000000000 +
	       (abs->tv_nsec - now.tv_nsec);
}

/* safe: a thread asleep here runs the handlers of signals sent to it,
 * then sleeps on (pthread_mutex_lock is a safe point, not a cancellation
 * point). The library's own locks are not: a handler must not run while
 * the thread holds one of them. */
static int lock_word(int *w, const struct timespec *abs, int safe)
{
	int c = 0;

	if (__atomic_compare_exchange_n(w, &c, 1, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		return 0;
	if (c != 2)
		c = XCHG(w, 2);
	while (c != 0) {
		int64_t ns = -1;
		if (abs && (ns = __heisen_ns_until(abs, 0)) <= 0)
			return ETIMEDOUT;
		if (!safe)
			futex_wait(w, 2, ns);
		else if (__heisen_wait(w, 2, 0, ns, 0) < 0)
			__heisen_run_signals();
		c = XCHG(w, 2);
	}
	return 0;
}

int __heisen_lock_word(int *w, const struct timespec *abs)
{
	return lock_word(w, abs, 0);
}

void __heisen_unlock_word(int *w)
{
	if (XCHG(w, 0) == 2)
		futex_wake(w, 1);
}

/* ---- cancellation points and safe points ----------------------------- */

/* Whether the calling thread t must act on a cancellation request now. */
static int cancel_due(struct __pthread *t)
{
	return !t->cancel_off && LOAD(&t->cancel_pending);
}

/* waiting_on is published before the request and the signals are read,
 * and pthread_cancel and pthread_kill set theirs before reading
 * waiting_on, so one of the two sees the other. Its bit 0 tells
 * pthread_cancel whether a request interrupts this wait. */
int __heisen_wait(void *addr, int64_t expected, int wide, int64_t timeout_ns,
		  int cancellable)
{
	struct __pthread *t = self;
	int rc = -1;

	STORE(&t->waiting_on, (void *)((uintptr_t)addr | (cancellable != 0)));
	if (!(cancellable && cancel_due(t)) && !__heisen_signal_due(t)) {
		if (wide)
			rc = __builtin_wasm_memory_atomic_wait64(addr, expected,
								 timeout_ns);
		else
			rc = futex_wait(addr, (int)expected, timeout_ns);
		if (rc == 0 &&
		    ((cancellable && cancel_due(t)) || __heisen_signal_due(t)))
			rc = -1;
	}
	STORE(&t->waiting_on, NULL);
	return rc;
}

static void cancel_point(void)
{
	if (cancel_due(self))
		pthread_exit(PTHREAD_CANCELED);
}

int __heisen_safe_point(void)
{
	cancel_point();
	return __heisen_run_signals();
}

void pthread_testcancel(void) { __heisen_safe_point(); }

/* ---- threads -------------------------------------------------------- */

/* Called by _start (crt1.c) before constructors: give the main thread
 * its TLS block. Until then __tls_base is 0 and TLS would alias address
 * 0 of linear memory. */
void __heisen_init_main_thread(void)
{
	size_t size = __builtin_wasm_tls_size();
	size_t align = __builtin_wasm_tls_align();
	void *tls = NULL;

	if (align < sizeof(void *))
		align = sizeof(void *);
	if (posix_memalign(&tls, align, size ? size : 1)) {
		static const char msg[] =
		    "heisen guest: no memory for the main thread's TLS\n";
		write(2, msg, sizeof msg - 1);
		_Exit(70);
	}
	__wasm_init_tls(tls);
	self = &main_thread;
}

/* Free detached threads that have finished. */
static void reap(void)
{
	struct __pthread **pp, *t;

	if (!LOAD(&reap_list))
		return;
	__heisen_lock_word(&reap_lock, NULL);
	for (pp = &reap_list; (t = *pp);) {
		if (LOAD(&t->exited)) {
			*pp = t->reap_next;
			free(t);
		} else {
			pp = &t->reap_next;
		}
	}
	__heisen_unlock_word(&reap_lock);
}

static void put_on_reap_list(struct __pthread *t)
{
	__heisen_lock_word(&reap_lock, NULL);
	t->reap_next = reap_list;
	STORE(&reap_list, t);
	__heisen_unlock_word(&reap_lock);
}

static void run_key_destructors(struct __pthread *t);

/* The end of a thread's C life: its result and key destructors. */
/* live_threads += delta, the new count. Bookkeeping for main's
 * pthread_exit, not synchronisation: a thread's end must not order it
 * before a pthread_create that merely counts (a race detector would miss
 * their races). Main's wait for zero is ordered by the notify instead. */
static int count_live(int delta)
{
	int n;

	__heisen_nosync_enter();
	n = ADD(&live_threads, delta);
	__heisen_nosync_leave();
	return n;
}

static void finish(struct __pthread *t, void *result)
{
	run_key_destructors(t);
	t->result = result;
	if (t != &main_thread && count_live(-1) == 0)
		futex_wake(&live_threads, FUTEX_ALL);
}

/* Called by thread_start.s on the new thread's own stack and TLS. When it
 * returns, thread_start.s sets t->exited. */
void __heisen_thread_entry(int tid, struct __pthread *t)
{
	self = t;
	t->tid = tid;
	__heisen_hint_stack(t->stack_lo, (void *)t->stack_top);
	finish(t, t->fn(t->arg));
}

static size_t round_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

int pthread_create(pthread_t *restrict out, const pthread_attr_t *restrict attr,
		   void *(*fn)(void *), void *restrict arg)
{
	size_t stack = __heisen_default_stack_size;
	size_t tls_size = __builtin_wasm_tls_size();
	size_t align = __builtin_wasm_tls_align();
	int detached = 0;
	size_t rec, total;
	void *block = NULL;
	struct __pthread *t;
	int32_t tid;

	if (!fn)
		return EINVAL;
	if (attr) {
		int rc;
		if (attr->__u.__i[ATTR_STACK])
			stack = (size_t)attr->__u.__i[ATTR_STACK];
		detached =
		    attr->__u.__i[ATTR_DETACH] == PTHREAD_CREATE_DETACHED;
		if (attr->__u.__i[ATTR_INHERIT] == PTHREAD_EXPLICIT_SCHED &&
		    (rc = __heisen_sched_check(attr->__u.__i[ATTR_POLICY],
					       attr->__u.__i[ATTR_PRIO])))
			return rc;
	}
	reap();
	/* Block: [record | TLS block | stack ...... top], 16-byte aligned
	 * stack as the wasm32 C ABI wants. */
	if (align < 16)
		align = 16;
	rec = round_up(sizeof *t, align);
	total = rec + round_up(tls_size, 16) + round_up(stack, 16);
	if (total < stack || posix_memalign(&block, align, total))
		return EAGAIN;
	t = block;
	memset(t, 0, sizeof *t);
	t->tls = (char *)block + rec;
	t->stack_top = ((uintptr_t)block + total) & ~(uintptr_t)15;
	t->stack_lo = (char *)t->tls + round_up(tls_size, 16);
	t->fn = fn;
	t->arg = arg;
	t->detached = detached;
	t->sig_blocked = LOAD(&self->sig_blocked);
	/* Before the spawn: some programs read the id the moment the
	 * thread runs, as glibc allows. */
	*out = t;
	count_live(1);
	tid = __heisen_wasi_thread_spawn((int32_t)(uintptr_t)t);
	if (tid <= 0) {
		/* The host refused (thread limit): nothing runs on t. */
		if (count_live(-1) == 0)
			futex_wake(&live_threads, FUTEX_ALL);
		free(block);
		return EAGAIN;
	}
	if (detached)
		put_on_reap_list(t);
	return 0;
}

int pthread_join(pthread_t t, void **result)
{
	if (t == self)
		return EDEADLK;
	if (t == &main_thread || t->detached)
		return EINVAL;
	pthread_testcancel();
	while (!LOAD(&t->exited))
		if (__heisen_wait(&t->exited, 0, 0, -1, 1) < 0)
			__heisen_safe_point();
	if (result)
		*result = t->result;
	free(t);
	return 0;
}

int pthread_detach(pthread_t t)
{
	if (t == &main_thread || t->detached)
		return EINVAL;
	t->detached = 1;
	put_on_reap_list(t);
	return 0;
}

_Noreturn void pthread_exit(void *result)
{
	struct __pthread *t = self;
	struct __heisen_cleanup *c;
	int n;

	/* A cancellation point in a handler or destructor must not start
	 * the exit over. */
	STORE(&t->cancel_off, 1);
	while ((c = t->cleanup)) {
		t->cleanup = c->__next;
		c->__fn(c->__arg);
	}
	finish(t, result);
	if (t != &main_thread)
		__heisen_thread_exit(t);
	/* main: the process lives on until the last thread finishes. */
	while ((n = LOAD(&live_threads)) != 0)
		futex_wait(&live_threads, n, -1);
	exit(0);
}

pthread_t pthread_self(void) { return self; }

/* A millisecond sleep for __heisen_wake; nothing notifies it. */
static int cancel_pause;

int pthread_cancel(pthread_t t)
{
	STORE(&t->cancel_pending, 1);
	__heisen_wake(t, 1);
	return 0;
}

void __heisen_wake(struct __pthread *t, int cancel)
{
	uintptr_t w;

	/* t may be between publishing waiting_on and sleeping, where a
	 * notify is lost: notify again each millisecond until it has left
	 * the wait. A t whose wait the request or signal does not interrupt
	 * stays in it. */
	while ((w = (uintptr_t)LOAD(&t->waiting_on)) &&
	       (cancel ? (w & 1) && !LOAD(&t->cancel_off)
		       : __heisen_signal_due(t))) {
		futex_wake((int *)(w & ~(uintptr_t)1), FUTEX_ALL);
		futex_wait(&cancel_pause, 0, 1000000);
	}
}

int pthread_setcancelstate(int state, int *old)
{
	if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
		return EINVAL;
	if (old)
		*old = self->cancel_off;
	STORE(&self->cancel_off, state);
	return 0;
}

int pthread_setcanceltype(int type, int *old)
{
	if (type != PTHREAD_CANCEL_DEFERRED &&
	    type != PTHREAD_CANCEL_ASYNCHRONOUS)
		return EINVAL;
	if (old)
		*old = self->cancel_async;
	self->cancel_async = type;
	return 0;
}

void __heisen_cleanup_push(struct __heisen_cleanup *c, void (*fn)(void *),
			   void *arg)
{
	c->__fn = fn;
	c->__arg = arg;
	c->__next = self->cleanup;
	self->cleanup = c;
}

void __heisen_cleanup_pop(struct __heisen_cleanup *c, int execute)
{
	self->cleanup = c->__next;
	if (execute)
		c->__fn(c->__arg);
}

int(pthread_equal)(pthread_t a, pthread_t b) { return a == b; }

int pthread_attr_init(pthread_attr_t *a)
{
	memset(a, 0, sizeof *a);
	a->__u.__i[ATTR_GUARD] = 4096;
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *a) { return 0; }

int pthread_attr_setstacksize(pthread_attr_t *a, size_t size)
{
	if (size < PTHREAD_STACK_MIN || size > INT_MAX)
		return EINVAL;
	a->__u.__i[ATTR_STACK] = (int)size;
	return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *restrict a,
			      size_t *restrict size)
{
	*size = a->__u.__i[ATTR_STACK] ? (size_t)a->__u.__i[ATTR_STACK]
				       : __heisen_default_stack_size;
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *a, int state)
{
	if (state != PTHREAD_CREATE_JOINABLE &&
	    state != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	a->__u.__i[ATTR_DETACH] = state;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *a, int *state)
{
	*state = a->__u.__i[ATTR_DETACH];
	return 0;
}

int pthread_once(pthread_once_t *o, void (*fn)(void))
{
	int c = 0;

	if (LOAD(o) == 2)
		return 0;
	if (__atomic_compare_exchange_n(o, &c, 1, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST)) {
		fn();
		STORE(o, 2);
		futex_wake(o, FUTEX_ALL);
		return 0;
	}
	while (LOAD(o) == 1)
		futex_wait(o, 1, -1);
	return 0;
}

/* ---- mutexes -------------------------------------------------------- */

#define M_WORD(m)  (&(m)->__u.__i[0])
#define M_TYPE(m)  ((m)->__u.__i[1])
#define M_OWNER(m) (&(m)->__u.__i[2])
#define M_COUNT(m) ((m)->__u.__i[3])

int pthread_mutex_init(pthread_mutex_t *restrict m,
		       const pthread_mutexattr_t *restrict a)
{
	memset(m, 0, sizeof *m);
	if (a)
		M_TYPE(m) = (int)(a->__attr & MATTR_TYPE);
	return 0;
}

/* EBUSY for a locked mutex is a courtesy, not synchronisation: POSIX
 * orders nothing by a destroy, so its look at the word is bookkeeping to
 * a race detector (tests/e2e/guests/hb-destroy.c). */
int pthread_mutex_destroy(pthread_mutex_t *m)
{
	int busy;

	__heisen_nosync_enter();
	busy = LOAD(M_WORD(m)) != 0;
	__heisen_nosync_leave();
	return busy ? EBUSY : 0;
}

static int mutex_lock(pthread_mutex_t *m, const struct timespec *abs, int try)
{
	int me, rc, c = 0;

	/* The type is written only by init, before the mutex is shared. */
	if (M_TYPE(m) == PTHREAD_MUTEX_NORMAL) {
		if (!try)
			rc = lock_word(M_WORD(m), abs, 1);
		else
			rc = __atomic_compare_exchange_n(M_WORD(m), &c, 1, 0,
							 __ATOMIC_SEQ_CST,
							 __ATOMIC_SEQ_CST)
				 ? 0
				 : EBUSY;
		if (!rc)
			__heisen_hint_lock(m, HEISEN_LOCK_MUTEX);
		return rc;
	}
	me = (int)(uintptr_t)self;
	if (__atomic_load_n(M_OWNER(m), __ATOMIC_RELAXED) == me) {
		if (M_TYPE(m) != PTHREAD_MUTEX_RECURSIVE)
			return EDEADLK;
		if (M_COUNT(m) == INT_MAX)
			return EAGAIN;
		M_COUNT(m)++;
		return 0;
	}
	if (try) {
		if (!__atomic_compare_exchange_n(M_WORD(m), &c, 1, 0,
						 __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			return EBUSY;
	} else if ((rc = lock_word(M_WORD(m), abs, 1))) {
		return rc;
	}
	__atomic_store_n(M_OWNER(m), me, __ATOMIC_RELAXED);
	M_COUNT(m) = 1;
	__heisen_hint_lock(m, HEISEN_LOCK_MUTEX);
	return 0;
}

int pthread_mutex_lock(pthread_mutex_t *m) { return mutex_lock(m, NULL, 0); }

int pthread_mutex_trylock(pthread_mutex_t *m) { return mutex_lock(m, NULL, 1); }

int pthread_mutex_timedlock(pthread_mutex_t *restrict m,
			    const struct timespec *restrict abs)
{
	return mutex_lock(m, abs, 0);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (M_TYPE(m) != PTHREAD_MUTEX_NORMAL) {
		if (__atomic_load_n(M_OWNER(m), __ATOMIC_RELAXED) !=
		    (int)(uintptr_t)self)
			return EPERM;
		if (--M_COUNT(m) > 0)
			return 0;
		__atomic_store_n(M_OWNER(m), 0, __ATOMIC_RELAXED);
	}
	__heisen_hint_unlock(m);
	__heisen_unlock_word(M_WORD(m));
	return 0;
}

int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
	a->__attr = 0;
	return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *a) { return 0; }

int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ERRORCHECK)
		return EINVAL;
	a->__attr = (a->__attr & ~MATTR_TYPE) | (unsigned)type;
	return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *restrict a,
			      int *restrict type)
{
	*type = (int)(a->__attr & MATTR_TYPE);
	return 0;
}

/* ---- condition variables -------------------------------------------- */

/* A waiter samples the sequence while holding the mutex, then sleeps
 * until it changes; signal and broadcast bump it. Wakeups may be
 * spurious, as POSIX allows. */

int pthread_cond_init(pthread_cond_t *restrict c,
		      const pthread_condattr_t *restrict a)
{
	memset(c, 0, sizeof *c);
	if (a)
		c->__u.__i[1] = (int)(a->__attr & CATTR_MONOTONIC);
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c) { return 0; }

int pthread_cond_timedwait(pthread_cond_t *restrict c,
			   pthread_mutex_t *restrict m,
			   const struct timespec *restrict abs)
{
	int *seq = &c->__u.__i[0];
	int s = LOAD(seq);
	int rc = 0, w = 1;

	/* Signals only once the mutex is released: a handler that holds
	 * the thread (a pool's pause) would hold the mutex from every other
	 * thread too. */
	cancel_point();
	pthread_mutex_unlock(m);
	for (;;) {
		int64_t ns = -1;
		if (abs && (ns = __heisen_ns_until(abs, c->__u.__i[1])) <= 0) {
			rc = ETIMEDOUT;
			break;
		}
		if ((w = __heisen_wait(seq, s, 0, ns, 1)) == 2)
			rc = ETIMEDOUT;
		if (w >= 0 || cancel_due(self))
			break;
		/* A signal: its handler runs without the mutex, as a thread
		 * asleep in the kernel's wait runs it; then wait on. */
		__heisen_run_signals();
	}
	pthread_mutex_lock(m);
	if (cancel_due(self)) {
		/* POSIX: a cancelled waiter consumes no signal. The wakeup
		 * may have been one: pass it on (spurious at worst). */
		if (w == 0)
			futex_wake(seq, 1);
		pthread_exit(PTHREAD_CANCELED);
	}
	return rc;
}

int pthread_cond_wait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m)
{
	return pthread_cond_timedwait(c, m, NULL);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	ADD(&c->__u.__i[0], 1);
	futex_wake(&c->__u.__i[0], 1);
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	ADD(&c->__u.__i[0], 1);
	futex_wake(&c->__u.__i[0], FUTEX_ALL);
	return 0;
}

int pthread_condattr_init(pthread_condattr_t *a)
{
	a->__attr = 0;
	return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *a) { return 0; }

int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clk)
{
	if (clk == CLOCK_REALTIME)
		a->__attr &= ~CATTR_MONOTONIC;
	else if (clk == CLOCK_MONOTONIC)
		a->__attr |= CATTR_MONOTONIC;
	else
		return EINVAL;
	return 0;
}

/* ---- reader-writer locks -------------------------------------------- */

#define RW_LOCK(r)    (&(r)->__u.__i[0])
#define RW_READERS(r) ((r)->__u.__i[1])
#define RW_WRITER(r)  ((r)->__u.__i[2])
#define RW_SEQ(r)     (&(r)->__u.__i[3])

int pthread_rwlock_init(pthread_rwlock_t *restrict r,
			const pthread_rwlockattr_t *restrict a)
{
	memset(r, 0, sizeof *r);
	return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *r) { return 0; }

/* Take r for reading (write == 0) or writing; try == 1 fails with EBUSY
 * instead of sleeping, a deadline abs (CLOCK_REALTIME) with ETIMEDOUT
 * once past. The counters change under the lock word; the sequence,
 * bumped on every unlock, is what sleepers wait on. */
static int rwlock_take(pthread_rwlock_t *r, int write, int try,
		       const struct timespec *abs)
{
	for (;;) {
		int64_t ns = -1;
		int s;
		__heisen_lock_word(RW_LOCK(r), NULL);
		if (!RW_WRITER(r) && (!write || !RW_READERS(r))) {
			if (write)
				RW_WRITER(r) = 1;
			else
				RW_READERS(r)++;
			__heisen_unlock_word(RW_LOCK(r));
			__heisen_hint_lock(r, write ? HEISEN_LOCK_WRITE
						    : HEISEN_LOCK_READ);
			return 0;
		}
		s = LOAD(RW_SEQ(r));
		__heisen_unlock_word(RW_LOCK(r));
		if (try)
			return EBUSY;
		if (abs && (ns = __heisen_ns_until(abs, 0)) <= 0)
			return ETIMEDOUT;
		futex_wait(RW_SEQ(r), s, ns);
	}
}

int pthread_rwlock_rdlock(pthread_rwlock_t *r)
{
	return rwlock_take(r, 0, 0, NULL);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *r)
{
	return rwlock_take(r, 0, 1, NULL);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict r,
			       const struct timespec *restrict abs)
{
	return rwlock_take(r, 0, 0, abs);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *r)
{
	return rwlock_take(r, 1, 0, NULL);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *r)
{
	return rwlock_take(r, 1, 1, NULL);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict r,
			       const struct timespec *restrict abs)
{
	return rwlock_take(r, 1, 0, abs);
}

int pthread_rwlock_unlock(pthread_rwlock_t *r)
{
	__heisen_hint_unlock(r);
	__heisen_lock_word(RW_LOCK(r), NULL);
	if (RW_WRITER(r))
		RW_WRITER(r) = 0;
	else if (RW_READERS(r) > 0)
		RW_READERS(r)--;
	ADD(RW_SEQ(r), 1);
	__heisen_unlock_word(RW_LOCK(r));
	futex_wake(RW_SEQ(r), FUTEX_ALL);
	return 0;
}

/* ---- spin locks ----------------------------------------------------- */

int pthread_spin_init(pthread_spinlock_t *s, int shared)
{
	STORE(s, 0);
	return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *s) { return 0; }

int pthread_spin_lock(pthread_spinlock_t *s)
{
	while (__atomic_exchange_n(s, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(s, __ATOMIC_RELAXED))
			;
	__heisen_hint_lock(s, HEISEN_LOCK_SPIN);
	return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *s)
{
	if (__atomic_exchange_n(s, 1, __ATOMIC_ACQUIRE))
		return EBUSY;
	__heisen_hint_lock(s, HEISEN_LOCK_SPIN);
	return 0;
}

int pthread_spin_unlock(pthread_spinlock_t *s)
{
	__heisen_hint_unlock(s);
	__atomic_store_n(s, 0, __ATOMIC_RELEASE);
	return 0;
}

/* ---- barriers ------------------------------------------------------- */

#define B_LOCK(b)    (&(b)->__u.__i[0])
#define B_COUNT(b)   ((b)->__u.__i[1])
#define B_ARRIVED(b) ((b)->__u.__i[2])
#define B_GEN(b)     (&(b)->__u.__i[3])

int pthread_barrier_init(pthread_barrier_t *restrict b,
			 const pthread_barrierattr_t *restrict a,
			 unsigned count)
{
	if (count == 0 || count > INT_MAX)
		return EINVAL;
	memset(b, 0, sizeof *b);
	B_COUNT(b) = (int)count;
	return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b) { return 0; }

/* The last thread to arrive starts a new generation and wakes the rest;
 * the others sleep until the generation changes. */
int pthread_barrier_wait(pthread_barrier_t *b)
{
	int gen;

	__heisen_lock_word(B_LOCK(b), NULL);
	gen = LOAD(B_GEN(b));
	if (++B_ARRIVED(b) == B_COUNT(b)) {
		B_ARRIVED(b) = 0;
		STORE(B_GEN(b), gen + 1);
		__heisen_unlock_word(B_LOCK(b));
		futex_wake(B_GEN(b), FUTEX_ALL);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	__heisen_unlock_word(B_LOCK(b));
	while (LOAD(B_GEN(b)) == gen)
		futex_wait(B_GEN(b), gen, -1);
	return 0;
}

/* ---- thread-specific data ------------------------------------------- */

static int key_lock;
static unsigned char key_used[PTHREAD_KEYS_MAX];
static void (*key_dtor[PTHREAD_KEYS_MAX])(void *);

int pthread_key_create(pthread_key_t *k, void (*dtor)(void *))
{
	int rc = EAGAIN;

	__heisen_lock_word(&key_lock, NULL);
	for (unsigned i = 0; i < PTHREAD_KEYS_MAX; i++)
		if (!key_used[i]) {
			key_used[i] = 1;
			key_dtor[i] = dtor;
			*k = i;
			rc = 0;
			break;
		}
	__heisen_unlock_word(&key_lock);
	return rc;
}

/* Limitation: values other threads stored under k stay in their records
 * and reappear if the key number is reused, as in many libcs. */
int pthread_key_delete(pthread_key_t k)
{
	if (k >= PTHREAD_KEYS_MAX)
		return EINVAL;
	__heisen_lock_word(&key_lock, NULL);
	key_used[k] = 0;
	key_dtor[k] = NULL;
	__heisen_unlock_word(&key_lock);
	self->keys[k] = NULL;
	return 0;
}

void *pthread_getspecific(pthread_key_t k)
{
	return k < PTHREAD_KEYS_MAX ? self->keys[k] : NULL;
}

int pthread_setspecific(pthread_key_t k, const void *v)
{
	if (k >= PTHREAD_KEYS_MAX)
		return EINVAL;
	self->keys[k] = (void *)v;
	return 0;
}

static void run_key_destructors(struct __pthread *t)
{
	for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		int any = 0;
		for (unsigned i = 0; i < PTHREAD_KEYS_MAX; i++) {
			void (*dtor)(void *);
			void *v = t->keys[i];
			if (!v)
				continue;
			__heisen_lock_word(&key_lock, NULL);
			dtor = key_dtor[i];
			__heisen_unlock_word(&key_lock);
			t->keys[i] = NULL;
			if (dtor) {
				dtor(v);
				any = 1;
			}
		}
		if (!any)
			break;
	}
}
