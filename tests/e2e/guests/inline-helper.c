/*
 * inline-helper.c - a race inside a helper the compiler inlines into both
 * of its callers, for inlined frames in race reports: each access's
 * stack must show the helper as frame 0, marked inlined, and the caller
 * it was inlined into as frame 1.
 *
 * Thread 2 says it has started, sleeps 100 ms, then bumps the counter
 * through late_path(); thread 1 waits until thread 2 has started, then
 * bumps it through early_path() at once. Nothing orders the two bumps,
 * so the second races with the first: its stack is bump (inlined) <-
 * late_path <- second. (Without the wait, a thread 2 that started after
 * thread 1 had exited would be ordered after it by the guest library's
 * thread bookkeeping, and there would be no race.)
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static int counter;
static int started; /* atomic: thread 2 runs */

static inline __attribute__((always_inline)) void bump(void)
{
	counter = counter + 1; /* heisen:site write counter */
}

static __attribute__((noinline)) void early_path(void) { bump(); }

static __attribute__((noinline)) void late_path(void) { bump(); }

static void *first(void *arg)
{
	while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
		;
	early_path();
	return arg;
}

static void *second(void *arg)
{
	struct timespec t = {0, 100 * 1000 * 1000};

	__atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
	nanosleep(&t, NULL);
	late_path();
	return arg;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, first, NULL) ||
	    pthread_create(&b, NULL, second, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("counter %d\n", counter);
	return 0;
}
