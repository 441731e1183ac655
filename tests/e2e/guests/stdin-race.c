/*
 * stdin-race.c - a guest for t_unjoined's --stdin cases: a race that
 * depends on the number read from standard input. With a non-zero number
 * the thread adds to the counter main adds to, with no lock; with 0 (or
 * nothing) it adds to its own. A barrier starts both loops together, so
 * that a sweep's delays see them meet (volatile: one access per
 * iteration, not one add of 20000); the thread is joined.
 */
#include <pthread.h>
#include <stdio.h>

static volatile int shared, own;
static volatile int *target = &own;
static pthread_barrier_t go;

static void *work(void *arg)
{
	pthread_barrier_wait(&go);
	for (int i = 0; i < 20000; i++)
		(*target)++;
	return NULL;
}

int main(void)
{
	pthread_t t;
	int n = 0;

	if (scanf("%d", &n) == 1 && n != 0)
		target = &shared;
	pthread_barrier_init(&go, NULL, 2);
	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	pthread_barrier_wait(&go);
	for (int i = 0; i < 20000; i++)
		shared++;
	pthread_join(t, NULL);
	printf("stdin-race: %d %d\n", shared, own);
	return 0;
}
