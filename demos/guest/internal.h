/*
 * internal.h - what the guest library's files share: the thread record
 * (whose first fields thread_start.s reads), futex helpers and the small
 * lock the library uses for its own state.
 */
#ifndef HEISEN_GUEST_INTERNAL_H
#define HEISEN_GUEST_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* One per thread, at the start of the block that also holds the thread's
 * TLS block and shadow stack. The first three fields are read and written
 * by thread_start.s at fixed offsets. */
struct __pthread {
	uintptr_t stack_top; /* +0: initial __stack_pointer (thread_start.s) */
	void *tls;	     /* +4: TLS block for __wasm_init_tls */
	int exited;	     /* +8: 1 once the thread no longer touches its
				block; stored by thread_start.s; a futex */
	int tid;	     /* wasi-threads id (0 for main); written by the
				thread itself */
	void *(*fn)(void *);
	void *arg;
	void *result; /* set before `exited`, read after it */
	int detached; /* on the reap list; freed by a later create */
	struct __pthread *reap_next;  /* reap list link, under reap_lock */
	void *stack_lo;		      /* lowest byte of the thread's stack */
	void *keys[PTHREAD_KEYS_MAX]; /* pthread_setspecific values */
	int cancel_pending;	      /* set by pthread_cancel */
	int cancel_off;		      /* PTHREAD_CANCEL_DISABLE; the thread's
					 own, as are the next two */
	int cancel_async;	      /* PTHREAD_CANCEL_ASYNCHRONOUS, which
					 acts as deferred */
	struct __heisen_cleanup *cleanup; /* innermost handler pushed */
	void *waiting_on;		  /* the word of the interruptible wait
					     (__heisen_wait) the thread is in, for
					     pthread_cancel and pthread_kill to wake it;
					     NULL */
	unsigned long long sig_pending;	  /* signal N at bit N - 1: sent
					     (pthread_kill), not yet run */
	unsigned long long sig_blocked;	  /* the thread's signal mask; its
					     own, read by senders */
	int nap; /* 0, never changed: what sleeps wait on */
};

_Static_assert(offsetof(struct __pthread, tls) == 4, "thread_start.s");
_Static_assert(offsetof(struct __pthread, exited) == 8, "thread_start.s");

/* Hints for a host that watches the program (heisen's detector, which
 * names the heap block or thread stack a race is on): a block was
 * allocated or is about to be freed; the calling thread's stack is
 * [lo, hi). Imports of module "heisen.hint": heisen links them as no-ops
 * when nothing listens; another runtime must provide them (empty
 * functions will do). */
__attribute__((import_module("heisen.hint"), import_name("alloc"))) void
__heisen_hint_alloc(void *p, size_t size);
__attribute__((import_module("heisen.hint"), import_name("free"))) void
__heisen_hint_free(void *p);
__attribute__((import_module("heisen.hint"), import_name("stack"))) void
__heisen_hint_stack(void *lo, void *hi);
/* [p, p + size) is new memory, whatever it held before (a block the
 * allocator hands out again, AnnotateNewMemory): a race detector forgets
 * its earlier accesses. */
__attribute__((import_module("heisen.hint"), import_name("new_memory"))) void
__heisen_hint_new_memory(const volatile void *p, size_t size);
/* [p, p + size) is one variable this libc keeps for all threads where
 * each thread has its own natively (errno): a race detector must not
 * report races on it. */
__attribute__((import_module("heisen.hint"), import_name("thread_local"))) void
__heisen_hint_thread_local(void *p, size_t size);
/* on: the calling thread's next accesses are the library's own, which a
 * race detector must neither record nor order threads by (a native
 * libc's internal locks are invisible to TSan); off: back to normal.
 * Called through __heisen_nosync_enter and _leave (detector.c), which
 * nest. */
__attribute__((import_module("heisen.hint"), import_name("nosync"))) void
__heisen_hint_nosync(int on);
/* The calling thread took the lock at p (how: HEISEN_LOCK_*), or let it
 * go, for the locks each access of a race report lists. Called once per
 * hold: a recursive mutex's first take and last release. */
#define HEISEN_LOCK_MUTEX 1
#define HEISEN_LOCK_READ  2 /* a rwlock for reading */
#define HEISEN_LOCK_WRITE 3 /* a rwlock for writing */
#define HEISEN_LOCK_SPIN  4
__attribute__((import_module("heisen.hint"), import_name("lock"))) void
__heisen_hint_lock(void *p, int kind);
__attribute__((import_module("heisen.hint"), import_name("unlock"))) void
__heisen_hint_unlock(void *p);

/* memory.atomic.wait32: 0 woken, 1 value differed, 2 timed out.
 * timeout_ns < 0 waits forever. */
static inline int futex_wait(int *addr, int expected, int64_t timeout_ns)
{
	return __builtin_wasm_memory_atomic_wait32(addr, expected, timeout_ns);
}

static inline void futex_wake(int *addr, unsigned n)
{
	__builtin_wasm_memory_atomic_notify(addr, n);
}

#define FUTEX_ALL UINT32_MAX

/* Nanoseconds from now until the deadline abs (negative once past) on
 * CLOCK_MONOTONIC if monotonic, else CLOCK_REALTIME. */
int64_t __heisen_ns_until(const struct timespec *abs, int monotonic);

/* Safe points: where a thread acts on a cancellation request and runs
 * the handlers of signals sent to it (signal.h lists them).
 *
 * __heisen_wait is futex_wait (64 bits wide when wide) that pthread_kill
 * interrupts, and pthread_cancel too when cancellable: -1 without
 * sleeping, or once woken, when a request (cancellable only) or an
 * unblocked signal is due. The caller then acts on them when it may:
 * __heisen_safe_point, or __heisen_run_signals alone. */
int __heisen_wait(void *addr, int64_t expected, int wide, int64_t timeout_ns,
		  int cancellable);
/* A cancellation point, then the due signals' handlers, returning what
 * __heisen_run_signals does. */
int __heisen_safe_point(void);
/* The handlers of the calling thread's due signals, run now: 0 when none
 * ran (none due, or ignored), 2 when one of them was installed without
 * SA_RESTART, else 1. A sleep ends with EINTR on any handler; a sem_wait,
 * as on Linux, only on one without SA_RESTART. signal.c. */
int __heisen_run_signals(void);
/* Whether a signal is pending for t and not blocked. signal.c. */
int __heisen_signal_due(struct __pthread *t);
/* Wake t if it sleeps in a wait that a cancellation request (cancel) or
 * its due signals interrupt, and return once it has left that wait. */
void __heisen_wake(struct __pthread *t, int cancel);

/* The 3-state futex lock (0 free, 1 locked, 2 locked and maybe waiters).
 * Not recursive. abs == NULL waits forever; otherwise returns ETIMEDOUT
 * after the CLOCK_REALTIME deadline. */
int __heisen_lock_word(int *w, const struct timespec *abs);
void __heisen_unlock_word(int *w);

/* detector.c: a region of the library's own synchronisation, which
 * a race detector must neither record nor order threads by (a native
 * libc's internal locks are invisible to TSan). Regions nest; pause ends
 * the thread's region for a signal handler and returns what resume
 * needs to restore it. */
void __heisen_nosync_enter(void);
void __heisen_nosync_leave(void);
int __heisen_nosync_pause(void);
void __heisen_nosync_resume(int depth);
/* The access a libc call made to the program's memory inside a region,
 * repeated outside it for the detector: a write of [p, p + n) that leaves
 * the bytes as they are, or a read of them. */
void __heisen_touch_write(void *p, size_t n);
void __heisen_touch_read(const void *p, size_t n);

/* The attribute objects' layouts, shared by pthread.c, which acts on
 * them, and pthread_attr.c, which keeps what has no effect here. The
 * slots of pthread_attr_t.__u.__i: */
#define ATTR_STACK     0 /* stack size; 0: __heisen_default_stack_size */
#define ATTR_DETACH    1
#define ATTR_SCOPE     2
#define ATTR_POLICY    3
#define ATTR_PRIO      4
#define ATTR_INHERIT   5
#define ATTR_GUARD     6
#define ATTR_STACKADDR 7 /* what pthread_attr_setstack was given */
/* pthread_mutexattr_t.__attr: bits 0-1 the type, 2 process-shared, 3-4
 * the protocol, 5 robust, 8-15 the priority ceiling. */
#define MATTR_TYPE	 3u
#define MATTR_PSHARED	 4u
#define MATTR_PROTO_AT	 3
#define MATTR_ROBUST	 32u
#define MATTR_CEILING_AT 8
/* pthread_condattr_t.__attr: bit 0 CLOCK_MONOTONIC, bit 1 shared. */
#define CATTR_MONOTONIC 1u
#define CATTR_PSHARED	2u

/* sched.c: 0 when a thread may run under policy at priority prio
 * (SCHED_OTHER, SCHED_BATCH or SCHED_IDLE at 0), EPERM for a real-time
 * policy at a valid priority, else EINVAL. */
int __heisen_sched_check(int policy, int prio);

#endif
