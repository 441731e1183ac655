/*
 * mutex-counter.c - four threads each add 1 to a shared counter 100000
 * times, every increment under one mutex. Race-free: the total is always
 * 400000. Exercises mutex contention (the futex slow path) and join.
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERS	100000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITERS; i++) {
		pthread_mutex_lock(&lock);
		counter++; /* heisen:site read,write counter */
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, NULL)) {
			fprintf(stderr,
				"mutex-counter: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("mutex-counter: %d threads x %d increments = %ld\n", THREADS,
	       ITERS, counter);
	return counter == (long)THREADS * ITERS ? 0 : 1;
}
