/*
 * pthread.h - POSIX threads for wasm32-wasi guests, on wasi-threads.
 *
 * Debian's wasi-libc has no pthreads. heisen's guest library supplies
 * them so that ordinary C written against <pthread.h> compiles unchanged
 * with `heisen cc` (which puts this directory first on the include path
 * and links libheisen-guest.a).
 *
 * How it works:
 *   - pthread_create allocates one block (thread record, TLS block, shadow
 *     stack) and calls the host import `wasi.thread-spawn(block)`. The host
 *     instantiates the module again on a new OS thread, sharing memory, and
 *     calls the exported `wasi_thread_start(tid, block)` (thread_start.s),
 *     which points `__stack_pointer` and `__tls_base` at the block before
 *     any C code runs.
 *   - Every blocking primitive is a futex on shared linear memory:
 *     `memory.atomic.wait32` / `memory.atomic.notify`. Mutexes are the
 *     3-state lock of Drepper's "Futexes are tricky" (0 free, 1 locked,
 *     2 locked with waiters); condition variables are sequence counters.
 *   - All of the library's own shared state is accessed with atomics or
 *     under its locks, so a race detector sees no races inside it.
 *   - pthread_exit() runs the thread's key destructors, publishes its
 *     result and marks it exited as a return from the start routine does,
 *     then calls heisen's import `heisen.thread.exit`, which ends the
 *     thread at once: the engine unwinds the C frames that Wasm itself
 *     cannot, and the OS thread and its place under the host's thread
 *     limit are freed. A thread that joins one ended so is ordered after
 *     it as after a return. In main, pthread_exit() waits for every other
 *     thread to finish and then ends the program with status 0.
 *   - Cancellation is deferred: pthread_cancel() sets a request that the
 *     thread acts on at its next cancellation point (pthread_testcancel,
 *     pthread_join, pthread_cond_wait, pthread_cond_timedwait, sem_wait,
 *     sem_timedwait, sleep, usleep, nanosleep, pause, sigsuspend), waking
 *     it if it sleeps in one of those, by pthread_exit(PTHREAD_CANCELED):
 *     cleanup handlers run innermost first (on pthread_exit too), then
 *     key destructors, and pthread_join returns PTHREAD_CANCELED. A
 *     thread cancelled in pthread_cond_wait holds the mutex again when its
 *     handlers run. PTHREAD_CANCEL_ASYNCHRONOUS is accepted and acts as
 *     deferred (Wasm cannot interrupt a thread between instructions).
 *     Blocking I/O is wasi-libc's own and is not a cancellation point.
 *     pthread_cancel of a thread blocked in a
 *     cancellation point reads that thread's state with an atomic, so
 *     `heisen check` orders the cancelling thread after what the target
 *     did before it blocked.
 *
 * Limitations (wasi-threads and Debian's wasi-libc, not fixable here):
 *   - errno is ONE variable shared by all threads: wasi-libc was built
 *     without the atomics feature, so its `_Thread_local int errno` is a
 *     plain global. (heisen's __errno.h declares it that way so programs
 *     link.) Read errno right after the failing call.
 *   - Signals are process-local and run at safe points (signal.h); no
 *     scheduling policies or priorities: SCHED_OTHER at priority 0, as
 *     for an unprivileged Linux process (sched.h).
 *   - Stdio output functions (printf, puts, fwrite, ...) are serialised by
 *     one library lock; input functions are not.
 *   - Thread stacks have no guard page; the engine reports a thread that
 *     overflows its stack. The default size is 2 MiB; change it per
 *     thread with pthread_attr_setstacksize, or for the whole program by
 *     defining `size_t __heisen_default_stack_size = N;` in one source
 *     file.
 */
#ifndef HEISEN_GUEST_PTHREAD_H
#define HEISEN_GUEST_PTHREAD_H

#if !defined(__wasm32__)
#error "heisen's pthread.h is for wasm32-wasi guests; use the system one natively"
#endif

/* The pthread types come from wasi-libc's musl headers, exactly as
 * <sys/types.h> declares them, so both headers can be included together.
 * The library interprets their storage (see the layouts in pthread.c). */
#define __NEED_pthread_t
#define __NEED_pthread_once_t
#define __NEED_pthread_key_t
#define __NEED_pthread_spinlock_t
#define __NEED_pthread_attr_t
#define __NEED_pthread_mutex_t
#define __NEED_pthread_mutexattr_t
#define __NEED_pthread_cond_t
#define __NEED_pthread_condattr_t
#define __NEED_pthread_rwlock_t
#define __NEED_pthread_rwlockattr_t
#define __NEED_pthread_barrier_t
#define __NEED_pthread_barrierattr_t
#define __NEED_size_t
#define __NEED_clockid_t
#define __NEED_struct_timespec
#include <bits/alltypes.h>

#include <sched.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1

#define PTHREAD_MUTEX_NORMAL 0
#define PTHREAD_MUTEX_DEFAULT 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2

#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED 1

#define PTHREAD_SCOPE_SYSTEM  0
#define PTHREAD_SCOPE_PROCESS 1

#define PTHREAD_INHERIT_SCHED  0
#define PTHREAD_EXPLICIT_SCHED 1

#define PTHREAD_PRIO_NONE    0
#define PTHREAD_PRIO_INHERIT 1
#define PTHREAD_PRIO_PROTECT 2

#define PTHREAD_MUTEX_STALLED 0
#define PTHREAD_MUTEX_ROBUST  1

#define PTHREAD_MUTEX_INITIALIZER {{{0}}}
#define PTHREAD_RWLOCK_INITIALIZER {{{0}}}
#define PTHREAD_COND_INITIALIZER {{{0}}}
#define PTHREAD_ONCE_INIT 0

#define PTHREAD_BARRIER_SERIAL_THREAD (-1)

#define PTHREAD_CANCELED ((void *)-1)

#define PTHREAD_CANCEL_ENABLE 0
#define PTHREAD_CANCEL_DISABLE 1
#define PTHREAD_CANCEL_DEFERRED 0
#define PTHREAD_CANCEL_ASYNCHRONOUS 1

/* Threads */
int pthread_create(pthread_t *__restrict, const pthread_attr_t *__restrict,
		   void *(*)(void *), void *__restrict);
int pthread_join(pthread_t, void **);
int pthread_detach(pthread_t);
_Noreturn void pthread_exit(void *);
pthread_t pthread_self(void);
int pthread_equal(pthread_t, pthread_t);
#ifndef __cplusplus
#define pthread_equal(x, y) ((x) == (y))
#endif

int pthread_attr_init(pthread_attr_t *);
int pthread_attr_destroy(pthread_attr_t *);
int pthread_attr_setstacksize(pthread_attr_t *, size_t);
int pthread_attr_getstacksize(const pthread_attr_t *__restrict,
			      size_t *__restrict);
int pthread_attr_setdetachstate(pthread_attr_t *, int);
int pthread_attr_getdetachstate(const pthread_attr_t *, int *);

/* Attributes a WASI host does not act on, kept so that a program reads
 * back what it set (sched.h for the scheduling rules):
 *   scope         PTHREAD_SCOPE_SYSTEM; PTHREAD_SCOPE_PROCESS is ENOTSUP,
 *                 as on Linux
 *   schedpolicy, schedparam, inheritsched
 *                 stored; pthread_create with PTHREAD_EXPLICIT_SCHED and
 *                 a real-time policy fails with EPERM, as unprivileged
 *   guardsize     stored (default 4096); a thread stack has no guard page,
 *                 but the engine reports its overflow (docs/porting.md)
 *   stack         setstack(addr, size) gives the thread a stack of size
 *                 bytes from the guest library's own block: the memory at
 *                 addr stays unused, and getstack reads back addr */
int pthread_attr_setscope(pthread_attr_t *, int);
int pthread_attr_getscope(const pthread_attr_t *__restrict, int *__restrict);
int pthread_attr_setschedpolicy(pthread_attr_t *, int);
int pthread_attr_getschedpolicy(const pthread_attr_t *__restrict,
				int *__restrict);
int pthread_attr_setschedparam(pthread_attr_t *__restrict,
			       const struct sched_param *__restrict);
int pthread_attr_getschedparam(const pthread_attr_t *__restrict,
			       struct sched_param *__restrict);
int pthread_attr_setinheritsched(pthread_attr_t *, int);
int pthread_attr_getinheritsched(const pthread_attr_t *__restrict,
				 int *__restrict);
int pthread_attr_setguardsize(pthread_attr_t *, size_t);
int pthread_attr_getguardsize(const pthread_attr_t *__restrict,
			      size_t *__restrict);
int pthread_attr_setstack(pthread_attr_t *, void *, size_t);
int pthread_attr_getstack(const pthread_attr_t *__restrict, void **__restrict,
			  size_t *__restrict);

/* A thread's scheduling: SCHED_OTHER at priority 0 (sched.h's rules:
 * EPERM for a real-time policy). The concurrency level is a hint POSIX
 * lets an implementation ignore: kept and read back. pthread_atfork
 * registers nothing, since a WASI program cannot fork. */
int pthread_setschedparam(pthread_t, int, const struct sched_param *);
int pthread_getschedparam(pthread_t, int *__restrict,
			  struct sched_param *__restrict);
int pthread_setschedprio(pthread_t, int);
int pthread_getconcurrency(void);
int pthread_setconcurrency(int);
int pthread_atfork(void (*)(void), void (*)(void), void (*)(void));

int pthread_once(pthread_once_t *, void (*)(void));

/* Cancellation (deferred only) and cleanup handlers. A handler record
 * lives in the frame of the block pthread_cleanup_push opens, as POSIX
 * asks of the two macros. */
int pthread_cancel(pthread_t);
int pthread_setcancelstate(int, int *);
int pthread_setcanceltype(int, int *);
void pthread_testcancel(void);

struct __heisen_cleanup {
	void (*__fn)(void *);
	void *__arg;
	struct __heisen_cleanup *__next;
};
void __heisen_cleanup_push(struct __heisen_cleanup *, void (*)(void *),
			   void *);
void __heisen_cleanup_pop(struct __heisen_cleanup *, int);
#define pthread_cleanup_push(fn, arg)                                         \
	do {                                                                  \
		struct __heisen_cleanup __heisen_cb;                          \
		__heisen_cleanup_push(&__heisen_cb, (fn), (arg));
#define pthread_cleanup_pop(execute)                                          \
	__heisen_cleanup_pop(&__heisen_cb, (execute));                        \
	}                                                                     \
	while (0)

/* Mutexes */
int pthread_mutex_init(pthread_mutex_t *__restrict,
		       const pthread_mutexattr_t *__restrict);
int pthread_mutex_destroy(pthread_mutex_t *);
int pthread_mutex_lock(pthread_mutex_t *);
int pthread_mutex_trylock(pthread_mutex_t *);
int pthread_mutex_timedlock(pthread_mutex_t *__restrict,
			    const struct timespec *__restrict);
int pthread_mutex_unlock(pthread_mutex_t *);

int pthread_mutexattr_init(pthread_mutexattr_t *);
int pthread_mutexattr_destroy(pthread_mutexattr_t *);
int pthread_mutexattr_settype(pthread_mutexattr_t *, int);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *__restrict,
			      int *__restrict);
/* Kept and read back, with no effect: process-shared (one process),
 * protocol and priority ceiling (no priorities), robust (a robust
 * mutex whose owner ends holding it is not recovered: EOWNERDEAD never
 * comes, so pthread_mutex_consistent is always EINVAL). */
int pthread_mutexattr_setpshared(pthread_mutexattr_t *, int);
int pthread_mutexattr_getpshared(const pthread_mutexattr_t *__restrict,
				 int *__restrict);
int pthread_mutexattr_setprotocol(pthread_mutexattr_t *, int);
int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *__restrict,
				  int *__restrict);
int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *, int);
int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *__restrict,
				     int *__restrict);
int pthread_mutexattr_setrobust(pthread_mutexattr_t *, int);
int pthread_mutexattr_getrobust(const pthread_mutexattr_t *__restrict,
				int *__restrict);
int pthread_mutex_consistent(pthread_mutex_t *);

/* Condition variables (CLOCK_REALTIME deadlines, or CLOCK_MONOTONIC via
 * pthread_condattr_setclock) */
int pthread_cond_init(pthread_cond_t *__restrict,
		      const pthread_condattr_t *__restrict);
int pthread_cond_destroy(pthread_cond_t *);
int pthread_cond_wait(pthread_cond_t *__restrict, pthread_mutex_t *__restrict);
int pthread_cond_timedwait(pthread_cond_t *__restrict,
			   pthread_mutex_t *__restrict,
			   const struct timespec *__restrict);
int pthread_cond_signal(pthread_cond_t *);
int pthread_cond_broadcast(pthread_cond_t *);

int pthread_condattr_init(pthread_condattr_t *);
int pthread_condattr_destroy(pthread_condattr_t *);
int pthread_condattr_setclock(pthread_condattr_t *, clockid_t);
int pthread_condattr_getclock(const pthread_condattr_t *__restrict,
			      clockid_t *__restrict);
int pthread_condattr_setpshared(pthread_condattr_t *, int);
int pthread_condattr_getpshared(const pthread_condattr_t *__restrict,
				int *__restrict);

/* Reader-writer locks (reader-preferring, like glibc's default) */
int pthread_rwlock_init(pthread_rwlock_t *__restrict,
			const pthread_rwlockattr_t *__restrict);
int pthread_rwlock_destroy(pthread_rwlock_t *);
int pthread_rwlock_rdlock(pthread_rwlock_t *);
int pthread_rwlock_tryrdlock(pthread_rwlock_t *);
int pthread_rwlock_wrlock(pthread_rwlock_t *);
int pthread_rwlock_trywrlock(pthread_rwlock_t *);
int pthread_rwlock_timedrdlock(pthread_rwlock_t *__restrict,
			       const struct timespec *__restrict);
int pthread_rwlock_timedwrlock(pthread_rwlock_t *__restrict,
			       const struct timespec *__restrict);
int pthread_rwlock_unlock(pthread_rwlock_t *);

int pthread_rwlockattr_init(pthread_rwlockattr_t *);
int pthread_rwlockattr_destroy(pthread_rwlockattr_t *);
int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *, int);
int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *__restrict,
				  int *__restrict);

/* Spin locks */
int pthread_spin_init(pthread_spinlock_t *, int);
int pthread_spin_destroy(pthread_spinlock_t *);
int pthread_spin_lock(pthread_spinlock_t *);
int pthread_spin_trylock(pthread_spinlock_t *);
int pthread_spin_unlock(pthread_spinlock_t *);

/* Barriers */
int pthread_barrier_init(pthread_barrier_t *__restrict,
			 const pthread_barrierattr_t *__restrict, unsigned);
int pthread_barrier_destroy(pthread_barrier_t *);
int pthread_barrier_wait(pthread_barrier_t *);

int pthread_barrierattr_init(pthread_barrierattr_t *);
int pthread_barrierattr_destroy(pthread_barrierattr_t *);
int pthread_barrierattr_setpshared(pthread_barrierattr_t *, int);
int pthread_barrierattr_getpshared(const pthread_barrierattr_t *__restrict,
				   int *__restrict);

/* Thread-specific data */
int pthread_key_create(pthread_key_t *, void (*)(void *));
int pthread_key_delete(pthread_key_t);
void *pthread_getspecific(pthread_key_t);
int pthread_setspecific(pthread_key_t, const void *);

#ifdef __cplusplus
}
#endif

#endif
