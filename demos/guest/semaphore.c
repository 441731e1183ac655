/*
 * semaphore.c - POSIX unnamed semaphores for heisen's guests (the
 * contract is semaphore.h's).
 *
 * A semaphore is two 64-bit counters: every unit ever posted (the initial
 * value included) and every unit ever taken; the value is their
 * difference. One counter would do for correctness, but `heisen check`
 * makes every atomic on a word both release and acquire there: with one
 * count word that waiters decrement and posters increment, each post
 * would acquire what every earlier waiter did before its wait, an order
 * POSIX does not give, which hides exactly the races a missing sem_wait
 * causes. Apart, only posters write `posts`, so a post acquires from
 * posts alone, and waiters, which write only `takes`, acquire the posts
 * by reading `posts`. 64 bits never wrap, so a post needs `takes` (for
 * EOVERFLOW) only once `posts` itself reaches SEM_VALUE_MAX.
 *
 * Sleepers wait on `posts`, which every post changes, and every post
 * wakes one: no waiter count to keep (it would be another word posters
 * read and waiters write). A woken thread that finds the unit taken by
 * another sleeps again, so each sleeper is woken by a post that it or
 * someone else consumes, and none sleeps while the value is above zero.
 */
#include "internal.h"

#include <errno.h>
#include <semaphore.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define CAS(p, old, new)                                                       \
	__atomic_compare_exchange_n((p), (old), (new), 0, __ATOMIC_SEQ_CST,    \
				    __ATOMIC_SEQ_CST)

typedef unsigned long long count;

int sem_init(sem_t *s, int pshared, unsigned value)
{
	if (value > SEM_VALUE_MAX) {
		errno = EINVAL;
		return -1;
	}
	/* Plain stores, which order nothing: the semaphore is not shared
	 * yet. */
	s->__posts = value;
	s->__takes = 0;
	return 0;
}

int sem_destroy(sem_t *s) { return 0; }

/* Take a unit if there is one: 1, or 0 with the posts count seen empty
 * in *seen, for sleeping on. takes is read first: both counters only
 * grow and takes <= posts, so posts read after it is >= it. */
static int take(sem_t *s, count *seen)
{
	count t = LOAD(&s->__takes);

	for (;;) {
		count p = LOAD(&s->__posts);
		if (t == p) {
			*seen = p;
			return 0;
		}
		if (CAS(&s->__takes, &t, t + 1))
			return 1;
	}
}

/* A cancellation point; a signal's handler installed without SA_RESTART
 * run while it sleeps ends it with EINTR (one due on entry runs first, as
 * if sent before the call). */
static int wait_until(sem_t *s, const struct timespec *abs)
{
	count seen;
	int64_t ns = -1;

	__heisen_safe_point();
	while (!take(s, &seen)) {
		if (abs) {
			if (abs->tv_nsec < 0 || abs->tv_nsec >= 1000000000) {
				errno = EINVAL;
				return -1;
			}
			if ((ns = __heisen_ns_until(abs, 0)) <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
		}
		if (__heisen_wait(&s->__posts, (int64_t)seen, 1, ns, 1) < 0 &&
		    __heisen_safe_point() == 2) {
			errno = EINTR;
			return -1;
		}
	}
	return 0;
}

int sem_wait(sem_t *s) { return wait_until(s, NULL); }

int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abs)
{
	return wait_until(s, abs);
}

int sem_trywait(sem_t *s)
{
	count seen;

	if (take(s, &seen))
		return 0;
	errno = EAGAIN;
	return -1;
}

int sem_post(sem_t *s)
{
	count p = LOAD(&s->__posts);

	do {
		/* takes > p: posts has moved on since p, and the CAS fails. */
		count t;
		if (p >= SEM_VALUE_MAX && (t = LOAD(&s->__takes)) <= p &&
		    p - t >= SEM_VALUE_MAX) {
			errno = EOVERFLOW;
			return -1;
		}
	} while (!CAS(&s->__posts, &p, p + 1));
	futex_wake((int *)&s->__posts, 1);
	return 0;
}

/* takes unchanged around the read of posts: the difference is the value
 * at that read. */
int sem_getvalue(sem_t *restrict s, int *restrict value)
{
	count t, p;

	do {
		t = LOAD(&s->__takes);
		p = LOAD(&s->__posts);
	} while (LOAD(&s->__takes) != t);
	*value = (int)(p - t);
	return 0;
}

sem_t *sem_open(const char *name, int flags, ...)
{
	errno = ENOSYS;
	return SEM_FAILED;
}

int sem_close(sem_t *s)
{
	errno = ENOSYS;
	return -1;
}

int sem_unlink(const char *name)
{
	errno = ENOSYS;
	return -1;
}
