/*
 * pthread_attr.c - the POSIX thread attributes and scheduling calls a
 * WASI host has nothing to act on: one process (process-shared objects
 * are private ones), no priorities, no fork. Each keeps what the program
 * set so that it reads it back, and refuses what natively fails for an
 * unprivileged Linux process (a real-time policy: EPERM; sched.h), so a
 * program takes the path it takes natively. What pthread.c acts on
 * (stack size, detach state, mutex type, condition clock) is there.
 */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>

/* ---- thread attributes ---------------------------------------------- */

int pthread_attr_setscope(pthread_attr_t *a, int scope)
{
	if (scope == PTHREAD_SCOPE_PROCESS)
		return ENOTSUP;
	if (scope != PTHREAD_SCOPE_SYSTEM)
		return EINVAL;
	a->__u.__i[ATTR_SCOPE] = scope;
	return 0;
}

int pthread_attr_getscope(const pthread_attr_t *restrict a, int *restrict scope)
{
	*scope = a->__u.__i[ATTR_SCOPE];
	return 0;
}

int pthread_attr_setschedpolicy(pthread_attr_t *a, int policy)
{
	if (sched_get_priority_min(policy) < 0)
		return EINVAL;
	a->__u.__i[ATTR_POLICY] = policy;
	return 0;
}

int pthread_attr_getschedpolicy(const pthread_attr_t *restrict a,
				int *restrict policy)
{
	*policy = a->__u.__i[ATTR_POLICY];
	return 0;
}

/* Any priority is kept: POSIX checks it against the policy when the
 * thread is created (pthread_create: __heisen_sched_check). */
int pthread_attr_setschedparam(pthread_attr_t *restrict a,
			       const struct sched_param *restrict p)
{
	a->__u.__i[ATTR_PRIO] = p->sched_priority;
	return 0;
}

int pthread_attr_getschedparam(const pthread_attr_t *restrict a,
			       struct sched_param *restrict p)
{
	p->sched_priority = a->__u.__i[ATTR_PRIO];
	return 0;
}

int pthread_attr_setinheritsched(pthread_attr_t *a, int inherit)
{
	if (inherit != PTHREAD_INHERIT_SCHED &&
	    inherit != PTHREAD_EXPLICIT_SCHED)
		return EINVAL;
	a->__u.__i[ATTR_INHERIT] = inherit;
	return 0;
}

int pthread_attr_getinheritsched(const pthread_attr_t *restrict a,
				 int *restrict inherit)
{
	*inherit = a->__u.__i[ATTR_INHERIT];
	return 0;
}

int pthread_attr_setguardsize(pthread_attr_t *a, size_t size)
{
	if (size > INT_MAX)
		return EINVAL;
	a->__u.__i[ATTR_GUARD] = (int)size;
	return 0;
}

int pthread_attr_getguardsize(const pthread_attr_t *restrict a,
			      size_t *restrict size)
{
	*size = (size_t)a->__u.__i[ATTR_GUARD];
	return 0;
}

int pthread_attr_setstack(pthread_attr_t *a, void *addr, size_t size)
{
	int rc = pthread_attr_setstacksize(a, size);

	if (!rc)
		a->__u.__i[ATTR_STACKADDR] = (int)(uintptr_t)addr;
	return rc;
}

int pthread_attr_getstack(const pthread_attr_t *restrict a,
			  void **restrict addr, size_t *restrict size)
{
	*addr = (void *)(uintptr_t)a->__u.__i[ATTR_STACKADDR];
	return pthread_attr_getstacksize(a, size);
}

/* ---- a thread's scheduling, concurrency, fork handlers -------------- */

static int concurrency;

int pthread_setschedparam(pthread_t t, int policy, const struct sched_param *p)
{
	return __heisen_sched_check(policy, p->sched_priority);
}

int pthread_getschedparam(pthread_t t, int *restrict policy,
			  struct sched_param *restrict p)
{
	*policy = SCHED_OTHER;
	p->sched_priority = 0;
	return 0;
}

int pthread_setschedprio(pthread_t t, int prio)
{
	return __heisen_sched_check(SCHED_OTHER, prio);
}

int pthread_getconcurrency(void)
{
	return __atomic_load_n(&concurrency, __ATOMIC_RELAXED);
}

int pthread_setconcurrency(int level)
{
	if (level < 0)
		return EINVAL;
	__atomic_store_n(&concurrency, level, __ATOMIC_RELAXED);
	return 0;
}

int pthread_atfork(void (*prepare)(void), void (*parent)(void),
		   void (*child)(void))
{
	return 0;
}

/* ---- mutex, condition variable, rwlock and barrier attributes ------- */

/* shared: PTHREAD_PROCESS_PRIVATE or _SHARED, else EINVAL. */
static int pshared_ok(int shared)
{
	return shared == PTHREAD_PROCESS_PRIVATE ||
	       shared == PTHREAD_PROCESS_SHARED;
}

int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int shared)
{
	if (!pshared_ok(shared))
		return EINVAL;
	a->__attr = (a->__attr & ~MATTR_PSHARED) | (shared ? MATTR_PSHARED : 0);
	return 0;
}

int pthread_mutexattr_getpshared(const pthread_mutexattr_t *restrict a,
				 int *restrict shared)
{
	*shared = a->__attr & MATTR_PSHARED ? PTHREAD_PROCESS_SHARED
					    : PTHREAD_PROCESS_PRIVATE;
	return 0;
}

int pthread_mutexattr_setprotocol(pthread_mutexattr_t *a, int protocol)
{
	if (protocol < PTHREAD_PRIO_NONE || protocol > PTHREAD_PRIO_PROTECT)
		return EINVAL;
	a->__attr = (a->__attr & ~(3u << MATTR_PROTO_AT)) |
		    (unsigned)protocol << MATTR_PROTO_AT;
	return 0;
}

int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *restrict a,
				  int *restrict protocol)
{
	*protocol = (int)(a->__attr >> MATTR_PROTO_AT & 3u);
	return 0;
}

int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *a, int ceiling)
{
	if (ceiling < sched_get_priority_min(SCHED_FIFO) ||
	    ceiling > sched_get_priority_max(SCHED_FIFO))
		return EINVAL;
	a->__attr = (a->__attr & ~(0xffu << MATTR_CEILING_AT)) |
		    (unsigned)ceiling << MATTR_CEILING_AT;
	return 0;
}

int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *restrict a,
				     int *restrict ceiling)
{
	*ceiling = (int)(a->__attr >> MATTR_CEILING_AT & 0xffu);
	return 0;
}

int pthread_mutexattr_setrobust(pthread_mutexattr_t *a, int robust)
{
	if (robust != PTHREAD_MUTEX_STALLED && robust != PTHREAD_MUTEX_ROBUST)
		return EINVAL;
	a->__attr = (a->__attr & ~MATTR_ROBUST) | (robust ? MATTR_ROBUST : 0);
	return 0;
}

int pthread_mutexattr_getrobust(const pthread_mutexattr_t *restrict a,
				int *restrict robust)
{
	*robust = a->__attr & MATTR_ROBUST ? PTHREAD_MUTEX_ROBUST
					   : PTHREAD_MUTEX_STALLED;
	return 0;
}

/* No mutex is ever left inconsistent (EOWNERDEAD never comes). */
int pthread_mutex_consistent(pthread_mutex_t *m) { return EINVAL; }

int pthread_condattr_getclock(const pthread_condattr_t *restrict a,
			      clockid_t *restrict clk)
{
	*clk = a->__attr & CATTR_MONOTONIC ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	return 0;
}

int pthread_condattr_setpshared(pthread_condattr_t *a, int shared)
{
	if (!pshared_ok(shared))
		return EINVAL;
	a->__attr = (a->__attr & ~CATTR_PSHARED) | (shared ? CATTR_PSHARED : 0);
	return 0;
}

int pthread_condattr_getpshared(const pthread_condattr_t *restrict a,
				int *restrict shared)
{
	*shared = a->__attr & CATTR_PSHARED ? PTHREAD_PROCESS_SHARED
					    : PTHREAD_PROCESS_PRIVATE;
	return 0;
}

int pthread_rwlockattr_init(pthread_rwlockattr_t *a)
{
	a->__attr[0] = a->__attr[1] = 0;
	return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a) { return 0; }

int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *a, int shared)
{
	if (!pshared_ok(shared))
		return EINVAL;
	a->__attr[0] = (unsigned)shared;
	return 0;
}

int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *restrict a,
				  int *restrict shared)
{
	*shared = (int)a->__attr[0];
	return 0;
}

int pthread_barrierattr_init(pthread_barrierattr_t *a)
{
	a->__attr = 0;
	return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *a) { return 0; }

int pthread_barrierattr_setpshared(pthread_barrierattr_t *a, int shared)
{
	if (!pshared_ok(shared))
		return EINVAL;
	a->__attr = (unsigned)shared;
	return 0;
}

int pthread_barrierattr_getpshared(const pthread_barrierattr_t *restrict a,
				   int *restrict shared)
{
	*shared = (int)a->__attr;
	return 0;
}
