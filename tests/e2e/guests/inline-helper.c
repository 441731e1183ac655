/*
 * inline-helper.c - a race inside a helper the compiler inlines into both
 * of its callers, for inlined frames in race reports: each access's
 * stack must show the helper as frame 0, marked inlined, and the caller
 * it was inlined into as frame 1.
 *
 * Thread 1 bumps the counter through early_path() at once; thread 2 sleeps
 * 100 ms, then bumps it through late_path(). Nothing orders the two, so
 * the second bump races with the first: its stack is bump (inlined) <-
 * late_path <- second, the first's bump (inlined) <- early_path <- first.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static int counter;

static inline __attribute__((always_inline)) void bump(void)
{
	counter = counter + 1; /* heisen:site write counter */
}

static __attribute__((noinline)) void early_path(void) { bump(); }

static __attribute__((noinline)) void late_path(void) { bump(); }

static void *first(void *arg)
{
	early_path();
	return arg;
}

static void *second(void *arg)
{
	struct timespec t = {0, 100 * 1000 * 1000};

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
