/*
 * stack-race.c - a race on a thread's stack: a worker thread keeps a
 * counter in a local variable and hands its address to a helper thread
 * it creates; both count into it without a lock. The race's location is
 * the worker's stack (thread 1), and its helper was created by thread 1.
 */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 2000

static void *helper(void *arg)
{
	volatile unsigned *n = arg;

	for (int i = 0; i < ROUNDS; i++)
		*n = *n + 1;
	return NULL;
}

static void *worker(void *arg)
{
	volatile unsigned n = 0;
	pthread_t h;

	if (pthread_create(&h, NULL, helper, (void *)&n))
		return NULL;
	for (int i = 0; i < ROUNDS; i++)
		n = n + 1;
	pthread_join(h, NULL);
	fprintf(stderr, "stack-race: %u of %u\n", n, 2 * ROUNDS);
	return arg;
}

int main(void)
{
	pthread_t w;

	if (pthread_create(&w, NULL, worker, NULL))
		return 1;
	pthread_join(w, NULL);
	printf("stack-race: %d rounds each\n", ROUNDS);
	return 0;
}
