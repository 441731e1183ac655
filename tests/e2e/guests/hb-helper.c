/*
 * hb-helper.c - a race whose racing store sits in a helper called from two
 * places, for `heisen check`'s call stacks: the report must name the
 * caller each thread came through.
 *
 * Thread 1 bumps the counter through early_path() at once; thread 2 sleeps
 * 100 ms, then bumps it through late_path(). Nothing orders the two, so
 * the second store races with the first and finds the race: bump <-
 * late_path <- second, and from thread 1's trace bump <- early_path.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static int counter;

static __attribute__((noinline)) void bump(void)
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
