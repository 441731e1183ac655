/*
 * semaphore.h - POSIX unnamed semaphores for wasm32-wasi guests.
 *
 * Debian's wasi-libc ships musl's <semaphore.h> but no semaphores (WASI
 * has none); heisen's guest library supplies them, and `heisen cc` puts
 * this directory first on the include path, so this header is the one
 * programs get. It has the same include guard as wasi-libc's, so the two
 * never meet in one translation unit.
 *
 * Semantics are POSIX's. Every function returns 0 on success; on failure
 * it returns -1 (sem_open: SEM_FAILED) and sets errno, which is ONE
 * variable shared by all threads (see __errno.h): read it right after
 * the failing call.
 *
 *   sem_init(s, pshared, value)  a semaphore of the given value. EINVAL:
 *       value > SEM_VALUE_MAX. pshared is accepted either way: a WASI
 *       program is one process (no fork, no shared memory between
 *       processes), so a process-shared semaphore is only ever used by
 *       its own threads and behaves as a private one.
 *   sem_destroy(s)               always 0; destroying a semaphore that
 *       threads still wait on is undefined, as in POSIX.
 *   sem_wait(s)                  take one unit, sleeping while there is
 *       none. A cancellation point. EINTR: a signal's handler installed
 *       without SA_RESTART ran while it slept (signal.h); with
 *       SA_RESTART (signal() sets it) it waits on, as on Linux.
 *   sem_trywait(s)               take one unit if there is one. EAGAIN:
 *       the value was 0.
 *   sem_timedwait(s, abs)        sem_wait with a CLOCK_REALTIME deadline.
 *       ETIMEDOUT: the deadline passed with no unit taken (the value is
 *       unchanged by the call). EINVAL: it would have to sleep and
 *       abs->tv_nsec is outside [0, 1e9); a unit that is there is taken
 *       without looking at abs, as POSIX allows.
 *   sem_post(s)                  give one unit, waking one sleeper.
 *       EOVERFLOW: the value is already SEM_VALUE_MAX.
 *   sem_getvalue(s, &v)          the value at some moment of the call
 *       (never negative: waiters are not counted).
 *   sem_open, sem_close, sem_unlink  named semaphores: always ENOSYS
 *       (WASI has no object names shared between programs).
 *
 * Under `heisen check`, which orders threads only through WebAssembly's
 * atomics: sem_post releases and a successful wait acquires every post
 * made before it, as ThreadSanitizer's semaphore does. The atomics add a
 * few orderings POSIX does not promise, each of which can only hide a
 * race: posts are ordered after earlier posts, successful waits after
 * earlier successful waits, and a failing sem_trywait or sem_timedwait,
 * and sem_getvalue, acquire the posts and waits made before them. A wait
 * never orders a later post (until 2^31 - 1 units have been posted in
 * the semaphore's life, when a post must also read the wait count to
 * detect EOVERFLOW). sem_init and sem_destroy order nothing.
 */
#ifndef _SEMAPHORE_H
#define _SEMAPHORE_H

#if !defined(__wasm32__)
#error                                                                         \
    "heisen's semaphore.h is for wasm32-wasi guests; use the system one natively"
#endif

#define __NEED_struct_timespec
#include <bits/alltypes.h>

/* sem_open's O_CREAT and O_EXCL, as <semaphore.h> provides on Linux. */
#include <fcntl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Debian's wasi-libc leaves it out of <limits.h>; musl's value. */
#ifndef SEM_VALUE_MAX
#define SEM_VALUE_MAX 0x7fffffff
#endif

#define SEM_FAILED ((sem_t *)0)

/* Private to semaphore.c (which says why two counters). */
typedef struct {
	unsigned long long __posts, __takes;
} sem_t;

int sem_init(sem_t *, int, unsigned);
int sem_destroy(sem_t *);
int sem_wait(sem_t *);
int sem_trywait(sem_t *);
int sem_timedwait(sem_t *__restrict, const struct timespec *__restrict);
int sem_post(sem_t *);
int sem_getvalue(sem_t *__restrict, int *__restrict);

sem_t *sem_open(const char *, int, ...);
int sem_close(sem_t *);
int sem_unlink(const char *);

#ifdef __cplusplus
}
#endif

#endif
