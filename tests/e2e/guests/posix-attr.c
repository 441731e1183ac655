/*
 * posix-attr.c - a guest for t_posix: the thread attributes and
 * scheduling calls a WASI host cannot act on (demos/guest/pthread_attr.c,
 * sched.c), each result and read-back printed by name, as glibc gives
 * them to an unprivileged process. t_posix compares the output with the
 * native build's, but for the last line, marked "rt:" (a real-time
 * policy, which root may be granted natively; last, since it changes the
 * thread's policy there).
 */
#define _GNU_SOURCE /* glibc's pthread_getconcurrency */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *name(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ENOTSUP: return "ENOTSUP";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EBUSY: return "EBUSY";
	default: return "other";
	}
}

/* The deadline ms milliseconds from now, on CLOCK_REALTIME. */
static struct timespec in_ms(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += ms * 1000000;
	t.tv_sec += t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	return t;
}

static int ran;
static pthread_rwlock_t rw;

/* The timed locks of rw, which main holds for writing. */
static void *timed(void *arg)
{
	struct timespec t = in_ms(50);
	int x = pthread_rwlock_timedrdlock(&rw, &t), y;

	t = in_ms(50);
	y = pthread_rwlock_timedwrlock(&rw, &t);
	printf("rwlock held: timedrdlock %s timedwrlock %s", name(x), name(y));
	return arg;
}

static void *work(void *arg)
{
	ran = 1;
	return arg;
}

static void threads(void)
{
	pthread_attr_t a;
	struct sched_param sp = {.sched_priority = 0};
	void *stack = NULL, *addr;
	size_t size;
	int x;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_getguardsize(&a, &size);
	printf("guard default %zu\n", size);
	printf("guard set %s", name(pthread_attr_setguardsize(&a, 8192)));
	pthread_attr_getguardsize(&a, &size);
	printf(" -> %zu\n", size);
	printf("scope system %s",
	       name(pthread_attr_setscope(&a, PTHREAD_SCOPE_SYSTEM)));
	pthread_attr_getscope(&a, &x);
	printf(" -> %d; process %s; bad %s\n", x == PTHREAD_SCOPE_SYSTEM,
	       name(pthread_attr_setscope(&a, PTHREAD_SCOPE_PROCESS)),
	       name(pthread_attr_setscope(&a, 7)));
	printf("inherit explicit %s",
	       name(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED)));
	pthread_attr_getinheritsched(&a, &x);
	printf(" -> %d; bad %s\n", x == PTHREAD_EXPLICIT_SCHED,
	       name(pthread_attr_setinheritsched(&a, 9)));
	printf("policy other %s; bad %s\n",
	       name(pthread_attr_setschedpolicy(&a, SCHED_OTHER)),
	       name(pthread_attr_setschedpolicy(&a, 77)));
	pthread_attr_setschedparam(&a, &sp);
	if (posix_memalign(&stack, 16, 1 << 18))
		return;
	printf("stack set %s", name(pthread_attr_setstack(&a, stack, 1 << 18)));
	pthread_attr_getstack(&a, &addr, &size);
	printf(" -> %d %zu; too small %s\n", addr == stack, size,
	       name(pthread_attr_setstack(&a, stack, 1)));
	printf("create explicit other %s",
	       name(pthread_create(&t, &a, work, NULL)));
	pthread_join(t, NULL);
	printf(", ran %d\n", ran);
	pthread_attr_destroy(&a);
	free(stack);
}

/* Last: natively it may succeed, and then the thread is real-time. */
static void realtime(void)
{
	pthread_attr_t a;
	struct sched_param sp = {.sched_priority = 10};
	pthread_t t;
	int x;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	x = pthread_create(&t, &a, work, NULL);
	if (!x)
		pthread_join(t, NULL);
	printf("rt: create fifo %s, setschedparam fifo %s\n", name(x),
	       name(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)));
	pthread_attr_destroy(&a);
}

static void scheduling(void)
{
	struct sched_param sp;
	int policy;

	printf("priority other %d..%d fifo %d..%d rr %d..%d bad %d\n",
	       sched_get_priority_min(SCHED_OTHER),
	       sched_get_priority_max(SCHED_OTHER),
	       sched_get_priority_min(SCHED_FIFO),
	       sched_get_priority_max(SCHED_FIFO),
	       sched_get_priority_min(SCHED_RR),
	       sched_get_priority_max(SCHED_RR), sched_get_priority_max(77));
	sched_getparam(0, &sp);
	printf("process policy other %d priority %d\n",
	       sched_getscheduler(0) == SCHED_OTHER, sp.sched_priority);
	pthread_getschedparam(pthread_self(), &policy, &sp);
	printf("thread policy other %d priority %d\n", policy == SCHED_OTHER,
	       sp.sched_priority);
	sp.sched_priority = 0;
	printf("setschedparam other 0 %s",
	       name(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp)));
	sp.sched_priority = 5;
	printf(", other 5 %s, setschedprio 0 %s\n",
	       name(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp)),
	       name(pthread_setschedprio(pthread_self(), 0)));
	printf("concurrency %s", name(pthread_setconcurrency(3)));
	printf(" -> %d; bad %s\n", pthread_getconcurrency(),
	       name(pthread_setconcurrency(-1)));
	printf("atfork %s\n", name(pthread_atfork(NULL, NULL, NULL)));
}

static void objects(void)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_rwlockattr_t ra;
	pthread_barrierattr_t ba;
	pthread_mutex_t m;
	pthread_t th;
	struct timespec t;
	clockid_t clk;
	int x, y, z;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	printf("mutex pshared %s protocol %s robust %s ceiling %s",
	       name(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED)),
	       name(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT)),
	       name(pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST)),
	       name(pthread_mutexattr_setprioceiling(&ma, 10)));
	pthread_mutexattr_gettype(&ma, &x);
	printf(" -> recursive %d", x == PTHREAD_MUTEX_RECURSIVE);
	pthread_mutexattr_getpshared(&ma, &x);
	pthread_mutexattr_getprotocol(&ma, &y);
	pthread_mutexattr_getrobust(&ma, &z);
	printf(" shared %d inherit %d robust %d", x == PTHREAD_PROCESS_SHARED,
	       y == PTHREAD_PRIO_INHERIT, z == PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_getprioceiling(&ma, &x);
	printf(" ceiling %d; bad %s %s\n", x,
	       name(pthread_mutexattr_setpshared(&ma, 5)),
	       name(pthread_mutexattr_setrobust(&ma, 5)));
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_NONE);
	pthread_mutex_init(&m, &ma);
	x = pthread_mutex_lock(&m);
	y = pthread_mutex_lock(&m);
	printf("recursive lock twice %s %s, consistent %s\n", name(x), name(y),
	       name(pthread_mutex_consistent(&m)));
	pthread_mutex_unlock(&m);
	pthread_mutex_unlock(&m);
	pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&ma);

	pthread_condattr_init(&ca);
	pthread_condattr_getclock(&ca, &clk);
	printf("cond clock realtime %d", clk == CLOCK_REALTIME);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_getclock(&ca, &clk);
	pthread_condattr_getpshared(&ca, &x);
	printf(" -> monotonic %d shared %d\n", clk == CLOCK_MONOTONIC,
	       x == PTHREAD_PROCESS_SHARED);
	pthread_condattr_destroy(&ca);

	printf("rwlockattr %s", name(pthread_rwlockattr_init(&ra)));
	pthread_rwlockattr_getpshared(&ra, &x);
	printf(" private %d", x == PTHREAD_PROCESS_PRIVATE);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlockattr_getpshared(&ra, &x);
	printf(" -> shared %d\n", x == PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&rw, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_rwlock_wrlock(&rw);
	if (pthread_create(&th, NULL, timed, NULL))
		return;
	pthread_join(th, NULL);
	pthread_rwlock_unlock(&rw);
	t = in_ms(50);
	printf("; free: timedrdlock %s\n",
	       name(pthread_rwlock_timedrdlock(&rw, &t)));
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_destroy(&rw);

	printf("barrierattr %s", name(pthread_barrierattr_init(&ba)));
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrierattr_getpshared(&ba, &x);
	printf(" -> shared %d; bad %s\n", x == PTHREAD_PROCESS_SHARED,
	       name(pthread_barrierattr_setpshared(&ba, 5)));
	pthread_barrierattr_destroy(&ba);
}

int main(void)
{
	threads();
	scheduling();
	objects();
	realtime();
	return 0;
}
